# and / or / not. In a condition, a right operand without side effects that cannot fail becomes
# arith.andi / arith.ori of i1 values (so that `if x < a.shape[0] and y < a.shape[1]` is one andi of two
# comparisons, as bounds-check elimination expects); one that loads from an array is evaluated under
# scf.if. As values, `a and b` / `a or b` give back an operand (Numba unifies the two types).
# RUN: kfront compile %s -k guards --sig 'void(float32[:, :])' --emit=kir --pass-pipeline= | FileCheck %s
# RUN: kfront compile %s -k values --sig 'void(int32[:], float64[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=VAL
from numba import cuda


@cuda.jit
def guards(a):
    # CHECK-LABEL: func.func
    x, y = cuda.grid(2)
    # CHECK: %[[X:.*]] = arith.cmpi({{.*}}) {pred = "slt"} : (i64, i64) -> (i1)
    # CHECK: %[[Y:.*]] = arith.cmpi({{.*}}) {pred = "slt"} : (i64, i64) -> (i1)
    # CHECK: %[[XY:.*]] = arith.andi(%[[X]], %[[Y]]) : (i1, i1) -> (i1)
    # CHECK: scf.if(%[[XY]])
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] = 1
    # or with a load on the right: scf.if, true when the left holds
    # CHECK: %[[L:.*]] = arith.cmpi({{.*}}) {pred = "sge"}
    # CHECK: %[[TRUE:.*]] = arith.constant() {value = 1 : i1}
    # CHECK: scf.if(%[[L]]) ({
    # CHECK-NEXT: scf.yield(%[[TRUE]])
    # CHECK: }, {
    # CHECK: mem.load
    # CHECK: }) : (i1) -> (i1)
    if x >= a.shape[0] or a[x, 0] > 0:
        return
    # not: xori with true
    # CHECK: arith.xori({{.*}}) : (i1, i1) -> (i1)
    if not (x > 3):
        a[0, 0] = 2


@cuda.jit
def values(a, out):
    # VAL-LABEL: func.func
    t = a[0]
    # t and 5: int32 and int64 -> int64, t itself when t is 0
    # VAL: %[[T:.*]] = arith.cmpi({{.*}}) {pred = "ne"} : (i32, i32) -> (i1)
    # VAL: arith.select(%[[T]], {{.*}}) : (i1, i64, i64) -> (i64)
    x = t and 5
    # t or 2.5 -> float64
    # VAL: arith.select({{.*}}) : (i1, f64, f64) -> (f64)
    y = t or 2.5
    # comparisons -> bool, andi
    # VAL: arith.andi({{.*}}) : (i1, i1) -> (i1)
    z = t > 1 and t < 5
    out[0] = x + y + z
