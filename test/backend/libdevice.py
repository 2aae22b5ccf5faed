# cuda.libdevice.NAME from Python source to PTX through both backends and ptxas: each math.libdevice op is a call
# of __nv_NAME with libdevice's prototype (pointer arguments to stack slots), inlined by libNVVM.
# RUN: kfront compile %s -k ld --sig 'void(float64[::1], int64[::1], float32[::1])' --emit=llvm | FileCheck %s --check-prefix=LL
# RUN: kfront compile %s -k ld --sig 'void(float64[::1], int64[::1], float32[::1])' --emit=ptx --arch=sm_90 -o %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %s -k ld --sig 'void(float64[::1], int64[::1], float32[::1])' --emit=ptx --backend=llvm -o %t.llvm.ptx
# RUN: %ptxas -arch=sm_90 %t.llvm.ptx -o %t.llvm.cubin
import numpy as np
from numba import cuda


@cuda.jit
def ld(d, i, f):
    k = cuda.grid(1)
    if k < d.size:
        s, c = cuda.libdevice.sincos(d[k])
        m, e = cuda.libdevice.frexpf(f[k])
        fr, ip = cuda.libdevice.modf(d[k])
        d[k] = s + c + fr + ip + cuda.libdevice.dsqrt_ru(d[k]) + cuda.libdevice.j1(d[k])
        i[k] = e + cuda.libdevice.mul64hi(i[k], i[k]) + cuda.libdevice.double2ll_rd(d[k]) + cuda.libdevice.clzll(i[k])
        f[k] = m + cuda.libdevice.fmaf_rz(f[k], f[k], m) + cuda.libdevice.ull2float_ru(i[k])
        r, q = cuda.libdevice.remquo(d[k], 0.75)
        s2, c2 = cuda.libdevice.fast_sincosf(f[k])
        d[k] += r + q + cuda.libdevice.erfinv(d[k]) + cuda.libdevice.erfcx(d[k]) + cuda.libdevice.sinpi(d[k])
        f[k] += s2 + c2 + cuda.libdevice.fast_powf(f[k], m) + cuda.libdevice.normcdfinvf(f[k])


# LL-LABEL: define void @ld
# LL: call void @__nv_sincos(double %{{[0-9]+}}, double* %{{[0-9]+}}, double* %{{[0-9]+}})
# LL: call float @__nv_frexpf(float %{{[0-9]+}}, i32* %{{[0-9]+}})
# LL: call double @__nv_modf(double %{{[0-9]+}}, double* %{{[0-9]+}})
# LL: call double @__nv_dsqrt_ru(
# LL: call i64 @__nv_mul64hi(
# LL: call float @__nv_fmaf_rz(
# LL: call double @__nv_remquo(double %{{[0-9]+}}, double 7.500000e-01, i32* %{{[0-9]+}})
# LL: call void @__nv_fast_sincosf(float %{{[0-9]+}}, float* %{{[0-9]+}}, float* %{{[0-9]+}})
# LL: call double @__nv_erfinv(
# LL: call double @__nv_erfcx(
# LL: call double @__nv_sinpi(
# LL: call float @__nv_fast_powf(
# LL: call float @__nv_normcdfinvf(
