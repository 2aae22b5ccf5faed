# libdevice's toward-zero integer-to-float conversions through the LLVM backend are the PTX instruction itself
# (LLVM 14's NVPTX selected round-to-nearest for __nv_int2float_rz and the like: the H200's backend_gpu run);
# libNVVM keeps the libdevice call.
# RUN: kfront compile %s -k rz --sig 'void(int64[::1], float32[::1], float64[::1])' --emit=ptx --backend=llvm -o %t.llvm.ptx
# RUN: FileCheck %s < %t.llvm.ptx
# RUN: %ptxas -arch=sm_90 %t.llvm.ptx -o %t.llvm.cubin
# RUN: kfront compile %s -k rz --sig 'void(int64[::1], float32[::1], float64[::1])' --emit=ptx -o %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
from numba import cuda
from numba.cuda import libdevice


@cuda.jit
def rz(a, f, d):
    f[0] = libdevice.int2float_rz(a[0])
    f[1] = libdevice.uint2float_rz(a[1])
    f[2] = libdevice.ll2float_rz(a[2])
    f[3] = libdevice.ull2float_rz(a[3])
    d[0] = libdevice.ll2double_rz(a[4])
    d[1] = libdevice.ull2double_rz(a[5])


# CHECK-DAG: cvt.rz.f32.s32
# CHECK-DAG: cvt.rz.f32.u32
# CHECK-DAG: cvt.rz.f32.s64
# CHECK-DAG: cvt.rz.f32.u64
# CHECK-DAG: cvt.rz.f64.s64
# CHECK-DAG: cvt.rz.f64.u64
