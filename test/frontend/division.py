# Division and modulo with Python's sign rules: // and % of signed integers are floor division and a
# modulo with the sign of the divisor (arith.floordivsi / floormodsi), of unsigned integers plain
# division and remainder, of floats floordivf / floormodf; / is always a float division.
# RUN: kfront compile %s -k divs --sig 'void(int64[:], uint32[:], float32[:], float64[:])' --emit=kir --pass-pipeline= | FileCheck %s
from numba import cuda


@cuda.jit
def divs(a, u, f, out):
    # CHECK-LABEL: func.func
    # CHECK: arith.floordivsi({{.*}}) : (i64, i64) -> (i64)
    q = a[0] // a[1]
    # CHECK: arith.floormodsi({{.*}}) : (i64, i64) -> (i64)
    r = a[0] % a[1]
    # CHECK: arith.divui({{.*}}) : (u64, u64) -> (u64)
    uq = u[0] // u[1]
    # CHECK: arith.remui({{.*}}) : (u64, u64) -> (u64)
    ur = u[0] % u[1]
    # CHECK: arith.floordivf({{.*}}) : (f32, f32) -> (f32)
    fq = f[0] // f[1]
    # float32 % float literal (float64) is float64
    # CHECK: arith.floormodf({{.*}}) : (f64, f64) -> (f64)
    fr = f[0] % 2.0
    # CHECK: arith.divf({{.*}}) : (f32, f32) -> (f32)
    fd = f[0] / f[1]
    # -7 % 3 is folded by Python: 2
    # CHECK: arith.constant() {value = 2.0} : () -> (f64)
    c = -7 % 3
    out[0] = q + r + uq + ur + fq + fr + fd + c
