# .real / .imag of complex arrays as numba-cuda's array_complex_attr makes them: a float view (layout A) with the
# array's extents and strides: the elements reinterpreted as pairs of floats, one of the pair taken by a subview;
# np.real / np.imag are the attributes; then PTX from both backends through ptxas. .imag of a real array needs a
# new array (numba-cuda's NRT): a located error.
# RUN: kfront compile %s -k parts --sig 'void(complex64[:, ::1], float32[::1])' --emit=kir --pass-pipeline= --bounds-check=off | FileCheck %s
# RUN: kfront compile %s -k parts --sig 'void(complex64[:, ::1], float32[::1])' --emit=ptx --arch=sm_90 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %s -k parts --sig 'void(complex128[:, :], float32[::1])' --emit=ptx --backend=llvm -o %t.llvm.ptx
# RUN: %ptxas -arch=sm_90 %t.llvm.ptx -o %t.llvm.cubin
# RUN: not kfront check %s -k bad --sig 'void(float64[::1])' 2>&1 | FileCheck %s --check-prefix=ERR
import numpy as np
from numba import cuda


# CHECK-LABEL: func.func
@cuda.jit
def parts(a, f):
    # CHECK: %[[S0:[0-9]+]] = mem.stride(%0) {axis = 0}
    # CHECK: %[[S1:[0-9]+]] = mem.stride(%0) {axis = 1}
    # CHECK: %[[TWO:[0-9]+]] = arith.constant() {value = 2} : () -> (i64)
    # CHECK: %[[FOUR:[0-9]+]] = arith.constant() {value = 4} : () -> (i64)
    # CHECK: %[[P:[0-9]+]] = mem.reinterpret(%0, %{{[0-9]+}}, %{{[0-9]+}}, %[[TWO]], %[[S0]], %[[S1]], %[[FOUR]]) : (array<complex<f32>, 2, C>, i64, i64, i64, i64, i64, i64) -> (array<f32, 3, A>)
    # CHECK: %[[ONE:[0-9]+]] = arith.constant() {value = 1} : () -> (i64)
    # CHECK: mem.subview(%[[P]], %{{[0-9]+}}, %{{[0-9]+}}, %[[ONE]], {{.*}}) {dims = [0, 1]} : (array<f32, 3, A>, {{.*}}) -> (array<f32, 2, A>)
    im = a.imag
    # CHECK: mem.store(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (f32, array<f32, 2, A>, i64, i64) -> ()
    im[0, 1] = f[0]
    # PTX: st.global.f32 [%rd{{[0-9]+}}+4]
    f[1] = np.real(a)[1, 0]


@cuda.jit
def bad(f):
    # ERR: complex_parts.py:[[@LINE+3]]:14: error: .imag of array(float64, 1d, C) makes a new array of zeros, which a kernel cannot allocate
    # ERR-NEXT: f[0] = f.imag[1]
    # ERR-NEXT: ^
    f[0] = f.imag[1]
