# Module-level complex constants as numba-cuda freezes globals: a complex number (complex128; np.complex64(...) keeps
# its type), tuples holding them, and NumPy arrays of complex (constant arrays: a "const" mem.global whose elements
# are [real, imaginary] pairs). Module-level arithmetic on them is folded as Python computes it (+ - * /, unary -,
# complex(), abs) where every part is finite; a kernel reading one gets a complex.create of its parts. Then PTX from
# both backends through ptxas; an expression kfront cannot fold (**) is not a compile-time constant, located.
# RUN: kfront compile %s -k consts --sig 'void(complex128[::1], complex64[::1], float64[::1])' --emit=kir --pass-pipeline= --bounds-check=off | FileCheck %s
# RUN: kfront compile %s -k consts --sig 'void(complex128[::1], complex64[::1], float64[::1])' --emit=ptx --arch=sm_90 -o %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %s -k consts --sig 'void(complex128[::1], complex64[::1], float64[::1])' --emit=ptx --backend=llvm -o %t.llvm.ptx
# RUN: %ptxas -arch=sm_90 %t.llvm.ptx -o %t.llvm.cubin
# RUN: kfront compile %s -k consts --sig 'void(complex128[::1], complex64[::1], float64[::1])' --emit=kir --pass-pipeline= -o %t.kir && kfront-opt %t.kir --pass-pipeline= | FileCheck %s --check-prefix=ROUND
# RUN: not kfront check %s -k bad --sig 'void(complex128[::1])' 2>&1 | FileCheck %s --check-prefix=ERR
import numpy as np
from numba import cuda

C = 1 + 2j
D = -C * 2 - 1j / (2 + 1j)  # (-2.2-4.4j)
T = (C, 3.5 - 1j, (2j, 1))
F = np.complex64(0.1 + 0.2j)
E = complex(1, -0.0)
N = abs(3 + 4j)
A = np.array([[1 + 2j, 3], [0.5j, -1]], dtype=np.complex64)
B = np.array([1j, 2])
P = C ** 2

# CHECK: mem.global() {sym_name = @consts__B, type = array<complex<f64>, 1, C>, shape = [2], space = "const", value = {{\[}}[0.0, 1.0], [2.0, 0.0]]}
# CHECK: mem.global() {sym_name = @consts__A, type = array<complex<f32>, 2, C>, shape = [2, 2], space = "const", value = {{\[}}[1.0 : f32, 2.0 : f32], [3.0 : f32, 0.0 : f32], [0.0 : f32, 0.5 : f32], [-1.0 : f32, 0.0 : f32]]}
# ROUND: value = {{\[}}[1.0 : f32, 2.0 : f32], [3.0 : f32, 0.0 : f32], [0.0 : f32, 0.5 : f32], [-1.0 : f32, 0.0 : f32]]


@cuda.jit
def consts(out, o64, f):
    # CHECK: %[[RE:.*]] = arith.constant() {value = 1.0} : () -> (f64)
    # CHECK: %[[IM:.*]] = arith.constant() {value = 2.0} : () -> (f64)
    # CHECK: complex.create(%[[RE]], %[[IM]]) : (f64, f64) -> (complex<f64>)
    out[0] = C
    # CHECK: %[[DR:.*]] = arith.constant() {value = -2.2} : () -> (f64)
    # CHECK: %[[DI:.*]] = arith.constant() {value = -4.4} : () -> (f64)
    # CHECK: complex.create(%[[DR]], %[[DI]])
    out[1] = D
    # CHECK: %[[TR:.*]] = arith.constant() {value = 3.5} : () -> (f64)
    # CHECK: %[[TI:.*]] = arith.constant() {value = -1.0} : () -> (f64)
    # CHECK: complex.create(%[[TR]], %[[TI]])
    out[2] = T[1]
    # CHECK: %[[ER:.*]] = arith.constant() {value = -0.0} : () -> (f64)
    # CHECK: complex.create(%{{.*}}, %[[ER]])
    out[3] = E
    # CHECK: mem.global_ref() {name = @consts__B} : () -> (array<complex<f64>, 1, C>)
    out[4] = B[0] + T[2][0] * T[2][1]
    # CHECK: %[[FR:.*]] = arith.constant() {value = 0.1 : f32} : () -> (f32)
    # CHECK: %[[FI:.*]] = arith.constant() {value = 0.2 : f32} : () -> (f32)
    # CHECK: complex.create(%[[FR]], %[[FI]]) : (f32, f32) -> (complex<f32>)
    o64[0] = F
    # CHECK: mem.global_ref() {name = @consts__A} : () -> (array<complex<f32>, 2, C>)
    o64[1] = A[1, 0]
    # CHECK: arith.constant() {value = 5.0} : () -> (f64)
    f[0] = N


@cuda.jit
def bad(out):
    # ERR: complex_constants.py:[[@LINE+1]]:14: error: global name 'P' is not a compile-time constant
    out[0] = P
