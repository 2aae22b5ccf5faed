# Barriers, fences, atomics and warp intrinsics. syncthreads_count/and/or take an integer predicate and
# return int32; atomics convert the value to the array's dtype and return the old value, with the index
# wrapped and checked as any element access (an integer, or a tuple for a 2-D array); shuffles return the
# value's type; votes are bool, ballot_sync int32, activemask uint32.
# RUN: kfront compile %s -k sync --sig 'void(float32[:], int32[:, :], uint32[:])' --emit=kir --pass-pipeline= | FileCheck %s
from numba import cuda


@cuda.jit
def sync(a, m, u):
    # CHECK-LABEL: func.func
    t = cuda.threadIdx.x
    # CHECK: gpu.barrier() : () -> ()
    cuda.syncthreads()
    # CHECK: %[[P:.*]] = arith.cmpi({{.*}}) {pred = "ne"} : (i32, i32) -> (i1)
    # CHECK: gpu.barrier_reduce(%[[P]]) {kind = "count"} : (i1) -> (i32)
    n = cuda.syncthreads_count(t)
    # CHECK: gpu.barrier_reduce({{.*}}) {kind = "or"}
    o = cuda.syncthreads_or(t)
    # CHECK: gpu.fence() {scope = "device"}
    cuda.threadfence()
    # CHECK: gpu.fence() {scope = "block"}
    cuda.threadfence_block()
    # CHECK: gpu.fence() {scope = "system"}
    cuda.threadfence_system()
    # the value 1.0 becomes float32
    # CHECK: gpu.atomic_rmw(%0, {{.*}}) {kind = "add"} : (array<f32, 1, A>, i64, f32) -> (f32)
    old = cuda.atomic.add(a, 0, 1.0)
    # CHECK: gpu.atomic_rmw(%1, {{.*}}, {{.*}}, {{.*}}) {kind = "max"} : (array<i32, 2, A>, i64, i64, i32) -> (i32)
    mx = cuda.atomic.max(m, (t, 1), 7)
    # CHECK: gpu.atomic_rmw(%2, {{.*}}) {kind = "inc"} : (array<u32, 1, A>, i64, u32) -> (u32)
    inc = cuda.atomic.inc(u, t, 10)
    # CHECK: gpu.atomic_cas(%1, {{.*}}) : (array<i32, 2, A>, i64, i64, i32, i32) -> (i32)
    cas = cuda.atomic.cas(m, (0, 0), 1, 2)
    # compare_and_swap: element 0 of a 1-D array
    # CHECK: gpu.atomic_cas(%2, {{.*}}) : (array<u32, 1, A>, i64, u32, u32) -> (u32)
    cs = cuda.atomic.compare_and_swap(u, 3, 4)
    # CHECK: gpu.shfl({{.*}}) {mode = "down"} : (u32, f32, i32, i32) -> (f32)
    v = cuda.shfl_down_sync(0xFFFFFFFF, a[t], 16)
    # CHECK: gpu.shfl({{.*}}) {mode = "xor"} : (u32, i32, i32, i32) -> (i32)
    w = cuda.shfl_xor_sync(0xFFFFFFFF, t, 1)
    # CHECK: gpu.shfl({{.*}}) {mode = "idx"} : (u32, i64, i32, i32) -> (i64)
    z = cuda.shfl_sync(0xFFFFFFFF, 5, 0)
    # CHECK: gpu.shfl({{.*}}) {mode = "up"}
    y = cuda.shfl_up_sync(0xFFFFFFFF, a[t], 1)
    # CHECK: gpu.vote({{.*}}) {mode = "ballot"} : (u32, i1) -> (i32)
    b = cuda.ballot_sync(0xFFFFFFFF, t > 3)
    # CHECK: gpu.vote({{.*}}) {mode = "all"} : (u32, i1) -> (i1)
    al = cuda.all_sync(0xFFFFFFFF, t > 3)
    # CHECK: gpu.vote({{.*}}) {mode = "any"}
    an = cuda.any_sync(0xFFFFFFFF, t)
    # CHECK: gpu.vote({{.*}}) {mode = "uni"}
    eq = cuda.eq_sync(0xFFFFFFFF, t)
    # CHECK: gpu.activemask() : () -> (u32)
    am = cuda.activemask()
    # CHECK: %[[FULL:.*]] = arith.constant() {value = 4294967295 : u32}
    # CHECK: gpu.syncwarp(%[[FULL]]) : (u32) -> ()
    cuda.syncwarp()
    # CHECK: arith.popc({{.*}}) : (i32) -> (i32)
    pc = cuda.popc(t)
    a[t] = n + o + old + mx + inc + cas + cs + v + w + z + y + b + al + an + eq + am + pc
