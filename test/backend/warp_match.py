# cuda.lanemask_lt, cuda.match_any_sync and cuda.match_all_sync from Python source to kir and PTX through ptxas
# (both backends): lanemask_lt is gpu.lanemask_lt (%lanemask_lt), uint32; match_any_sync an int32 mask, the value
# converted by numba-cuda's cases (int32, int64, float32, float64); match_all_sync the pair (int32 mask, bool).
# 32-bit values use the intrinsics, 64-bit ones inline match.*.sync.b64 (a 32-bit destination, as PTX has it).
# RUN: kfront compile %s -k warp_match --sig 'void(int32[::1], int64[::1], float32[::1], float64[::1], int16[::1], int64[:, ::1], boolean[::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=KIR
# RUN: kfront compile %s -k warp_match --sig 'void(int32[::1], int64[::1], float32[::1], float64[::1], int16[::1], int64[:, ::1], boolean[::1])' --emit=ptx --arch=sm_90 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %s -k warp_match --sig 'void(int32[::1], int64[::1], float32[::1], float64[::1], int16[::1], int64[:, ::1], boolean[::1])' --emit=ptx --backend=llvm -o %t.llvm.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.llvm.ptx
# RUN: %ptxas -arch=sm_90 %t.llvm.ptx -o %t.llvm.cubin
from numba import cuda


@cuda.jit
def warp_match(vi, vl, vf, vd, vs, out, pred):
    i = cuda.grid(1)
    # KIR: gpu.lanemask_lt() : () -> (u32)
    # PTX: mov.u32 {{.*}}, %lanemask_lt;
    out[i, 0] = cuda.lanemask_lt()
    # KIR: gpu.match({{.*}}) {mode = "any"} : (u32, i32) -> (i32)
    # PTX: match.any.sync.b32
    out[i, 1] = cuda.match_any_sync(0xFFFFFFFF, vi[i])
    # KIR: gpu.match({{.*}}) {mode = "any"} : (u32, i64) -> (i32)
    # PTX: match.any.sync.b64 %r{{[0-9]+}}, %rd{{[0-9]+}}, %r{{[0-9]+}};
    out[i, 2] = cuda.match_any_sync(0xFFFFFFFF, vl[i])
    # KIR: gpu.match({{.*}}) {mode = "any"} : (u32, f32) -> (i32)
    # PTX: match.any.sync.b32
    out[i, 3] = cuda.match_any_sync(0xFFFFFFFF, vf[i])
    # KIR: gpu.match({{.*}}) {mode = "all"} : (u32, f64) -> (i32, i1)
    # PTX: match.all.sync.b64 %r{{[0-9]+}}|%p, %rd{{[0-9]+}}, %r{{[0-9]+}};
    m, p = cuda.match_all_sync(0xFFFFFFFF, vd[i])
    out[i, 4] = m
    pred[i] = p
    # an int16 value promotes to the int32 case
    # KIR: gpu.match({{.*}}) {mode = "all"} : (u32, i32) -> (i32, i1)
    # PTX: match.all.sync.b32 %r{{[0-9]+}}|%p{{[0-9]+}}
    m2, p2 = cuda.match_all_sync(cuda.activemask(), vs[i])
    out[i, 5] = m2 if p2 else -1
