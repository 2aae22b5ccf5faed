# The math functions, CUDA intrinsics and NumPy ufuncs of issue 11 from Python source to PTX, through ptxas: the
# libdevice functions they call (inlined by libNVVM: no call remains), frexp's exponent through a local slot.
# RUN: kfront compile %s -k numeric --sig 'void(float64[::1], float32[::1], int32[::1])' --emit=llvm | FileCheck %s --check-prefix=LL
# RUN: kfront compile %s -k numeric --sig 'void(float64[::1], float32[::1], int32[::1])' --emit=ptx --arch=sm_90 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %s -k numeric --sig 'void(float64[::1], float32[::1], int32[::1])' --emit=ptx --backend=llvm -o %t.llvm.ptx
# RUN: %ptxas -arch=sm_90 %t.llvm.ptx -o %t.llvm.cubin
# RUN: kfront compile %s -k nan_atomics --sig 'void(float32[::1], float64[::1], int64[::1])' --emit=ptx -o %t.atom.ptx
# RUN: FileCheck %s --check-prefix=ATOM < %t.atom.ptx
# RUN: %ptxas -arch=sm_90 %t.atom.ptx -o %t.atom.cubin
# RUN: kfront compile %s -k half --sig 'void(float16[::1])' --emit=ptx -o %t.half.ptx
# RUN: %ptxas -arch=sm_90 %t.half.ptx -o %t.half.cubin
# RUN: kfront compile %s -k half --sig 'void(float16[::1])' --emit=ptx --backend=llvm -o %t.half2.ptx
# RUN: %ptxas -arch=sm_90 %t.half2.ptx -o %t.half2.cubin
# RUN: kfront compile %s -k rounding --sig 'void(float64[::1], int64[::1])' --emit=ptx -o %t.round.ptx
# RUN: %ptxas -arch=sm_90 %t.round.ptx -o %t.round.cubin
import math
import numpy as np
from numba import cuda


@cuda.jit
def numeric(d, f, i):
    k = cuda.grid(1)
    if k < d.size:
        m, e = math.frexp(d[k])
        d[k] = math.ldexp(m, e + 1) + math.remainder(d[k], 3.0)
        fr, ip = math.modf(f[k])
        f[k] = cuda.fma(fr, ip, f[k]) + cuda.cbrt(f[k]) + np.nextafter(f[k], np.float32(0))
        d[k] += np.logaddexp(d[k], 1.0) + np.hypot(d[k], 2.0) + np.spacing(d[k])
        i[k] = cuda.selp(i[k] > 0, i[k], np.int32(-1)) + np.floor_divide(i[k], 3) + cuda.popc(i[k])

# LL: call double @__nv_frexp(double
# LL: call double @__nv_ldexp(double
# LL: call double @__nv_remainder(double
# LL: call float @__nv_fmaf(float
# LL: call float @__nv_cbrtf(float
# LL: call float @__nv_nextafterf(float
# LL: call double @__nv_log1p(double
# LL: call double @__nv_hypot(double
# LL: call double @__nv_nextafter(double
# PTX: .visible .entry numeric(
# PTX-NOT: __nv_
# PTX: fma.rn.f32


# NaN-ignoring atomics: floats by a compare-and-swap loop, integers as atomic max / min
@cuda.jit
def nan_atomics(f, d, i):
    k = cuda.grid(1)
    cuda.atomic.nanmax(f, 0, f[k])
    cuda.atomic.nanmin(d, 0, d[k])
    cuda.atomic.nanmax(i, 0, i[k])

# ATOM: atom.global.cas.b32
# ATOM: atom.global.cas.b64
# ATOM: atom.global.max.s64


@cuda.jit
def rounding(d, n):
    k = cuda.grid(1)
    if k < d.size:
        d[k] = round(d[k], n[k])


@cuda.jit
def half(h):
    k = cuda.grid(1)
    if k < h.size:
        x = h[k]
        h[k] = cuda.fp16.hfma(x, x, cuda.fp16.hsin(x)) + cuda.fp16.hmax(x, cuda.fp16.hrsqrt(x))
