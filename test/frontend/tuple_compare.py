# Tuple comparisons as numba-cuda's (cpython/tupleobj.py): == and-s the pairs' == (a constant False for tuples of
# different lengths), != negates it; an ordering is a select chain over the pairs (the first pair that is != decides
# with its ordering, else the lengths), each pair compared with Numba's promotions. A tuple against a non-tuple,
# and pairs Numba cannot compare, are located errors.
# RUN: kfront compile %s -k cmp --sig 'void(boolean[::1], int64, float64)' --emit=kir --pass-pipeline= | FileCheck %s
# RUN: kfront compile %s -k cmp --sig 'void(boolean[::1], int64, float64)' -o %t.ptx && %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: not kfront compile %s -k mixed --sig 'void(boolean[::1], int64)' --emit=kir 2>&1 | FileCheck %s --check-prefix=MIXED
# RUN: not kfront compile %s -k cplx --sig 'void(boolean[::1], complex128)' --emit=kir 2>&1 | FileCheck %s --check-prefix=CPLX
# RUN: kfront compile %s -k member --sig 'void(boolean[::1], float64)' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=IN
# RUN: not kfront compile %s -k member_mixed --sig 'void(boolean[::1], int64)' --emit=kir 2>&1 | FileCheck %s --check-prefix=INMIXED
from numba import cuda


@cuda.jit
def cmp(out, x, y):
    # CHECK: %[[EX:.*]] = arith.cmpi(%1, %1) {pred = "eq"}
    # CHECK: %[[EY:.*]] = arith.cmpf(%2, %2) {pred = "oeq"}
    # CHECK: %[[EQ:.*]] = arith.andi(%[[EX]], %[[EY]])
    # CHECK: mem.store(%[[EQ]]
    out[0] = (x, y) == (x, y)
    # an int64 against a float64: promoted to float64 per pair
    # CHECK: arith.sitofp(%1)
    # CHECK: arith.cmpf({{.*}}) {pred = "oeq"}
    # CHECK: %[[NE:.*]] = arith.xori(
    # CHECK: mem.store(%[[NE]]
    out[1] = (x, y) != (y, x)
    # CHECK: %[[LT0:.*]] = arith.cmpi(%1, %1) {pred = "slt"}
    # CHECK: %[[NE0:.*]] = arith.cmpi(%1, %1) {pred = "ne"}
    # CHECK: %[[LT1:.*]] = arith.cmpf(%2, {{.*}}) {pred = "olt"}
    # CHECK: %[[NE1:.*]] = arith.cmpf(%2, {{.*}}) {pred = "une"}
    # CHECK: %[[LEN:.*]] = arith.constant() {value = 0 : i1}
    # CHECK: %[[S1:.*]] = arith.select(%[[NE1]], %[[LT1]], %[[LEN]])
    # CHECK: %[[S0:.*]] = arith.select(%[[NE0]], %[[LT0]], %[[S1]])
    # CHECK: mem.store(%[[S0]]
    out[2] = (x, y) < (x, 2.5)
    # a prefix orders first: equal pairs, then the lengths (a constant True here)
    # CHECK: %[[PRE:.*]] = arith.constant() {value = 1 : i1}
    # CHECK: arith.select({{.*}}, %[[PRE]])
    out[3] = (x, y) <= (x, y, 0)
    # different lengths are never equal
    # CHECK: %[[F:.*]] = arith.constant() {value = 0 : i1}
    # CHECK-NEXT: mem.store(%[[F]]
    out[4] = (x,) == (x, y)


@cuda.jit
def mixed(out, x):
    # MIXED: tuple_compare.py:[[@LINE+3]]:21: error: no implementation of '==' for UniTuple(int64 x 2) and int64 (Numba compares a tuple only with a tuple)
    # MIXED-NEXT: out[0] = (x, x) == x
    # MIXED-NEXT: ^
    out[0] = (x, x) == x


@cuda.jit
def cplx(out, z):
    # CPLX: tuple_compare.py:[[@LINE+1]]:21: error: unsupported operand types for '<': complex128 and complex128
    out[0] = (1, z) < (1, z)


@cuda.jit
def member(out, y):
    # x in t of a homogeneous tuple: the elements' == or-ed (Numba's in_seq); not in negates it
    # IN: %[[A:.*]] = arith.cmpf({{.*}}) {pred = "oeq"}
    # IN: %[[B:.*]] = arith.cmpf({{.*}}) {pred = "oeq"}
    # IN: %[[OR:.*]] = arith.ori(%[[A]], %[[B]])
    # IN: mem.store(%[[OR]]
    out[0] = y in (1.0, 2.5)
    # IN: arith.ori(
    # IN: %[[NOT:.*]] = arith.xori(
    # IN: mem.store(%[[NOT]]
    out[1] = y not in (1.0, 2.5)


@cuda.jit
def member_mixed(out, x):
    # INMIXED: tuple_compare.py:[[@LINE+1]]:16: error: 'in' of Tuple(int64, float64): Numba has it for tuples of one element type only
    out[0] = x in (1, 2.5)
