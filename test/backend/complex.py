# Complex numbers from Python source to PTX, through ptxas, with both backends: complex arrays read and written as
# their two floats (ld/st of f32 pairs at the element's offsets: NumPy's layout), the arithmetic as float
# instructions, cmath's device functions inlined, a complex64 local array and a complex128 shared one.
# RUN: kfront compile %s -k arith --sig 'void(complex64[::1], complex128[::1], float32[::1])' --emit=llvm | FileCheck %s --check-prefix=LL
# RUN: kfront compile %s -k arith --sig 'void(complex64[::1], complex128[::1], float32[::1])' --emit=ptx --arch=sm_90 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %s -k arith --sig 'void(complex64[::1], complex128[::1], float32[::1])' --emit=ptx --backend=llvm -o %t.llvm.ptx
# RUN: %ptxas -arch=sm_90 %t.llvm.ptx -o %t.llvm.cubin
# RUN: kfront compile %s -k cm --sig 'void(complex128[:], complex64[:, ::1])' --emit=ptx -o %t.cm.ptx
# RUN: %ptxas -arch=sm_90 %t.cm.ptx -o %t.cm.cubin
# RUN: kfront compile %s -k cm --sig 'void(complex128[:], complex64[:, ::1])' --emit=ptx --backend=llvm -o %t.cm2.ptx
# RUN: %ptxas -arch=sm_90 %t.cm2.ptx -o %t.cm2.cubin
import cmath
import numpy as np
from numba import cuda

# LL-LABEL: define{{.*}} void @arith(
# LL: load float
# LL: call float @llvm.nvvm.mul.rn.f(
# LL: call float @__nv_fmaf(
# LL: fdiv double
# LL: call float @__nv_hypotf
# PTX: .entry arith(
# PTX: ld.global.f32
# PTX: st.global.f64
@cuda.jit
def arith(a, b, f):
    i = cuda.grid(1)
    if i < a.size:
        z = a[i] * f[i]
        w = z + 1j
        b[i] = w / b[i]
        f[i] = abs(z)
        if z == a[i]:
            f[i] = z.conjugate().imag
        b[i] = b[i] ** w


@cuda.jit
def cm(a, m):
    i = cuda.grid(1)
    loc = cuda.local.array(3, np.complex64)
    sh = cuda.shared.array(32, np.complex128)
    if i < a.size:
        loc[0] = m[i, 0]
        loc[1] = cmath.sqrt(loc[0])
        sh[cuda.threadIdx.x] = cmath.acos(a[i]) + cmath.tanh(a[i]) + loc[1]
        a[i] = sh[cuda.threadIdx.x] * cmath.exp(a[i]) + cmath.log10(a[i])
