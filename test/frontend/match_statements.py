# match statements lower to the structured ifs of if/elif (frontend/match.c): the subject once, literal and value
# patterns as ==, None/True/False as `is`, or-patterns short-circuit, captures bound before the guard. Sequence,
# mapping and class patterns are numba-cuda's "Use of unsupported opcode (MATCH_...)" at the pattern.
# RUN: kfront compile %s -k classify --sig 'void(int64[::1], int64)' --emit=kir --pass-pipeline= | FileCheck %s
# RUN: not kfront compile %s -k sequence --sig 'void(int64[::1], UniTuple(int64, 2))' 2>&1 | FileCheck %s --check-prefix=SEQ
# RUN: not kfront compile %s -k klass --sig 'void(int64[::1], int64)' 2>&1 | FileCheck %s --check-prefix=CLS
import enum

from numba import cuda


class Color(enum.IntEnum):
    RED = 1
    GREEN = 2


@cuda.jit
def classify(out, x):
    # CHECK-LABEL: func.func
    match x:
        # the subject is the argument itself; the alternatives are pure: one ori
        # CHECK: %[[A:.*]] = arith.cmpi(%1, {{.*}}) {pred = "eq"} : (i64, i64) -> (i1)
        # CHECK: %[[B:.*]] = arith.cmpi(%1, {{.*}}) {pred = "eq"} : (i64, i64) -> (i1)
        # CHECK: %[[OR:.*]] = arith.ori(%[[A]], %[[B]])
        # CHECK: scf.if(%[[OR]])
        case 1 | 2:
            r = 10
        # the IntEnum member compares as its value
        # CHECK: arith.cmpi(%1, {{.*}}) {pred = "eq"}
        # CHECK: scf.if
        case Color.RED:
            r = 20
        # the capture is the subject: the guard compares it
        # CHECK: arith.cmpi(%1, {{.*}}) {pred = "sgt"}
        case y if y > 5:
            r = y
        case _:
            r = 0
    # CHECK: mem.store
    out[0] = r


@cuda.jit
def sequence(out, t):
    match t:
        # SEQ: match_statements.py:[[@LINE+1]]:14: error: Use of unsupported opcode (MATCH_SEQUENCE) found
        case (1, y):
            out[0] = y


@cuda.jit
def klass(out, x):
    match x:
        case 1:
            out[0] = 1
        # CLS: match_statements.py:[[@LINE+1]]:14: error: Use of unsupported opcode (MATCH_CLASS) found
        case int():
            out[0] = 2
