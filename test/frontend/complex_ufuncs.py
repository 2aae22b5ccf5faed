# The complex loops of NumPy's ufuncs numba-cuda's ufunc_db has beyond the arithmetic, as kir: sinh / cosh / tanh
# and expm1 / log1p / rint from the parts (math ops of the parts' float type), exp2 / log2 / log10 / arccosh around
# cmath.c's device functions (NumPy's constants in the float type), sign through cmath.c's np_sign, power and
# float_power (the product for an exponent of 2 + 0j, else complex.pow), the ordering comparisons lexicographic and
# maximum / fmin choosing whole values; then PTX from both backends through ptxas. Loops numba-cuda lacks are
# refused with the call's location.
# RUN: kfront compile %s -k uf --sig 'void(complex64[:, ::1], boolean[:, ::1], complex64[::1], complex64[::1])' --emit=kir --pass-pipeline= --bounds-check=off | FileCheck %s
# RUN: kfront compile %s -k uf --sig 'void(complex128[:, ::1], boolean[:, ::1], complex128[::1], complex128[::1])' --emit=ptx --arch=sm_90 -o %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %s -k uf --sig 'void(complex64[:, ::1], boolean[:, ::1], complex64[::1], complex64[::1])' --emit=ptx --backend=llvm -o %t.llvm.ptx
# RUN: %ptxas -arch=sm_90 %t.llvm.ptx -o %t.llvm.cubin
# RUN: not kfront check %s -k bad --sig 'void(complex128[::1])' 2>&1 | FileCheck %s --check-prefix=ERR
import numpy as np
from numba import cuda

# CHECK-LABEL: ^bb0(%0: array<complex<f32>, 2, C>


@cuda.jit
def uf(o, f, a, b):
    i = cuda.grid(1)
    # sinh: cos(y) sinh(x) + sin(y) cosh(x) j, in f32
    # CHECK-DAG: math.sin(%{{[0-9]+}}) : (f32) -> (f32)
    # CHECK-DAG: math.cos(%{{[0-9]+}}) : (f32) -> (f32)
    # CHECK-DAG: math.sinh(%{{[0-9]+}}) : (f32) -> (f32)
    # CHECK-DAG: math.cosh(%{{[0-9]+}}) : (f32) -> (f32)
    # CHECK: complex.create
    o[i, 0] = np.sinh(a[i])
    # exp2: cmath's exp of log(2) z, the constant a float32
    # CHECK: arith.constant() {value = 0.6931472 : f32}
    # CHECK: func.call(%{{[0-9]+}}) {callee = @cmath__exp} : (complex<f32>) -> (complex<f64>)
    o[i, 1] = np.exp2(a[i])
    # log10: cmath's log scaled by log10(e)
    # CHECK: func.call(%{{[0-9]+}}) {callee = @cmath__log}
    # CHECK: arith.constant() {value = 0.4342945 : f32}
    o[i, 2] = np.log10(a[i])
    # power: the square for 2 + 0j, else complex.pow
    # CHECK-DAG: arith.constant() {value = 2.0 : f32}
    # CHECK-DAG: complex.pow(%{{[0-9]+}}, %{{[0-9]+}}) : (complex<f32>, complex<f32>) -> (complex<f32>)
    # CHECK-DAG: complex.mul
    # CHECK: arith.select(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (i1, complex<f32>, complex<f32>) -> (complex<f32>)
    o[i, 3] = np.power(a[i], b[i])
    # sign: NumPy 2's z / |z| (numba-cuda's Python)
    # CHECK: func.call(%{{[0-9]+}}) {callee = @cmath__np_sign}
    o[i, 4] = np.sign(a[i])
    # less: real parts ordered with no NaN imaginary part, or equal real parts and ordered imaginary parts
    # CHECK-DAG: arith.cmpf(%{{[0-9]+}}, %{{[0-9]+}}) {pred = "ord"} : (f32, f32) -> (i1)
    # CHECK-DAG: arith.cmpf(%{{[0-9]+}}, %{{[0-9]+}}) {pred = "oeq"} : (f32, f32) -> (i1)
    # CHECK: arith.ori
    # CHECK: mem.store(%{{[0-9]+}}, %1,
    f[i, 0] = np.less(a[i], b[i])
    # fmax: the non-NaN value, else by the lexicographic order
    # CHECK-DAG: arith.cmpf(%{{[0-9]+}}, %{{[0-9]+}}) {pred = "uno"}
    # CHECK-DAG: arith.cmpf(%{{[0-9]+}}, %{{[0-9]+}}) {pred = "oge"}
    # CHECK: arith.select(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (i1, complex<f32>, complex<f32>) -> (complex<f32>)
    o[i, 5] = np.fmax(a[i], b[i])
    # arccosh: log(z + sqrt(z + 1) sqrt(z - 1))
    # CHECK: complex.add
    # CHECK: func.call(%{{[0-9]+}}, %{{[0-9]+}}) {callee = @cmath__sqrt}
    # CHECK: complex.sub
    # CHECK: func.call(%{{[0-9]+}}, %{{[0-9]+}}) {callee = @cmath__sqrt}
    # CHECK: complex.mul
    # CHECK: complex.add
    # CHECK: func.call(%{{[0-9]+}}) {callee = @cmath__log}
    o[i, 6] = np.arccosh(a[i])
    # rint part by part
    # CHECK: math.round(%{{[0-9]+}}) : (f32) -> (f32)
    # CHECK: math.round(%{{[0-9]+}}) : (f32) -> (f32)
    o[i, 7] = np.rint(a[i])
    o[i, 8] = np.tanh(a[i]) + np.cosh(a[i]) + np.expm1(a[i]) + np.log1p(a[i]) + np.log2(a[i])
    o[i, 9] = np.float_power(a[i], b[i]) + np.maximum(a[i], b[i]) + np.minimum(a[i], b[i]) + np.fmin(a[i], b[i])
    f[i, 1] = np.greater(a[i], b[i]) or np.greater_equal(a[i], b[i]) or np.less_equal(a[i], b[i])


@cuda.jit
def bad(a):
    # ERR: complex_ufuncs.py:[[@LINE+3]]:12: error: no implementation of numpy.cbrt() for argument types (complex128)
    # ERR-NEXT: a[0] = np.cbrt(a[1])
    # ERR-NEXT: ^
    a[0] = np.cbrt(a[1])
