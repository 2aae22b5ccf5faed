# cuda.nanosleep from Python source to kir and PTX through ptxas (both backends): gpu.nanosleep of a u32, PTX's
# nanosleep.u32 (sm_70 on); the argument converts to uint32 as numba-cuda's void(uint32) case takes it (a float
# toward zero, an int64 truncated).
# RUN: kfront compile %s -k sleepy --sig 'void(int64, float64)' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=KIR
# RUN: kfront compile %s -k sleepy --sig 'void(int64, float64)' --emit=ptx --arch=sm_90 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %s -k sleepy --sig 'void(int64, float64)' --emit=ptx --backend=llvm -o %t.llvm.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.llvm.ptx
# RUN: %ptxas -arch=sm_90 %t.llvm.ptx -o %t.llvm.cubin
from numba import cuda


@cuda.jit
def sleepy(n, t):
    # KIR: gpu.nanosleep({{.*}}) : (u32) -> ()
    # PTX: nanosleep.u32 %r{{[0-9]+}};
    cuda.nanosleep(32)
    # KIR: arith.trunci
    # KIR: gpu.nanosleep({{.*}}) : (u32) -> ()
    # PTX: nanosleep.u32 %r{{[0-9]+}};
    cuda.nanosleep(n)
    # KIR: arith.fptoui
    # KIR: gpu.nanosleep({{.*}}) : (u32) -> ()
    # PTX: cvt.rzi.u32.f64
    # PTX: nanosleep.u32 %r{{[0-9]+}};
    cuda.nanosleep(t)
