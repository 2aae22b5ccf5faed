# Comparisons: operands converted as Numba's comparison templates pick (int32 < uint32 compares int64,
# uint64 < int64 compares float64), floats with ordered predicates (!= unordered); chains evaluate the
# middle operand once and stop early: a pure right-hand side is folded into arith.andi, one that loads
# from an array (and may fail a bounds check) is only evaluated under scf.if.
# RUN: kfront compile %s -k cmps --sig 'void(int32[:], uint32[:], uint64[:], float32[:], int64[:])' --emit=kir --pass-pipeline= | FileCheck %s
# RUN: kfront compile %s -k chains --sig 'void(int64[:], int64[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=CHAIN
from numba import cuda


@cuda.jit
def cmps(i, u, u64, f, out):
    # CHECK-LABEL: func.func
    # CHECK: arith.extsi({{.*}}) : (i32) -> (i64)
    # CHECK: arith.extui({{.*}}) : (u32) -> (i64)
    # CHECK: arith.cmpi({{.*}}) {pred = "slt"} : (i64, i64) -> (i1)
    a = i[0] < u[0]
    # CHECK: arith.uitofp({{.*}}) : (u64) -> (f64)
    # CHECK: arith.cmpf({{.*}}) {pred = "oge"} : (f64, f64) -> (i1)
    b = u64[0] >= -1
    # CHECK: arith.cmpf({{.*}}) {pred = "une"} : (f32, f32) -> (i1)
    c = f[0] != f[1]
    # CHECK: arith.cmpi({{.*}}) {pred = "ule"} : (u32, u32) -> (i1)
    d = u[0] <= u[1]
    out[0] = a + b + c + d


@cuda.jit
def chains(a, out):
    # CHAIN-LABEL: func.func
    x = cuda.threadIdx.x
    # 0 <= x < n: both sides pure
    # CHAIN: %[[C1:.*]] = arith.cmpi({{.*}}) {pred = "sle"}
    # CHAIN: %[[C2:.*]] = arith.cmpi({{.*}}) {pred = "slt"}
    # CHAIN: arith.andi(%[[C1]], %[[C2]]) : (i1, i1) -> (i1)
    ok = 0 <= x < a.shape[0]
    # the second comparison reads a[x]: only when the first holds
    # CHAIN: %[[P:.*]] = arith.cmpi({{.*}}) {pred = "slt"}
    # CHAIN: %[[FALSE:.*]] = arith.constant() {value = 0 : i1}
    # CHAIN: scf.if(%[[P]]) ({
    # CHAIN: check.bounds
    # CHAIN: mem.load
    # CHAIN: arith.cmpi({{.*}}) {pred = "slt"}
    # CHAIN: scf.yield
    # CHAIN: }, {
    # CHAIN-NEXT: scf.yield(%[[FALSE]])
    # CHAIN: }) : (i1) -> (i1)
    inside = x < a.shape[0] < a[x]
    out[0] = ok + inside
