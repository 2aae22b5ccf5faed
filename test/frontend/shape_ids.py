# .shape (a UniTuple of int64 from mem.dim), .size (mem.size), .ndim (a constant), len(); thread and block
# ids are int32 (gpu.thread_id...), cuda.grid(n) / cuda.gridsize(n) int64 (or tuples of them) computed as
# Numba does (ntid * ctaid + tid, after sign extension), cuda.laneid / cuda.warpsize int32.
# RUN: kfront compile %s -k shapes --sig 'void(float32[:, :, :], int64[:])' --emit=kir --pass-pipeline= | FileCheck %s
# RUN: kfront compile %s -k ids --sig 'void(int64[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=IDS
from numba import cuda


@cuda.jit
def shapes(a, out):
    # CHECK-LABEL: func.func
    # CHECK: mem.dim(%0) {axis = 0} : (array<f32, 3, A>) -> (i64)
    # CHECK: mem.dim(%0) {axis = 1}
    # CHECK: mem.dim(%0) {axis = 2}
    s = a.shape
    # CHECK: mem.size(%0) : (array<f32, 3, A>) -> (i64)
    n = a.size
    d = a.ndim
    # len(a) is the first extent
    # CHECK: mem.dim(%0) {axis = 0}
    m = len(a)
    # ndim is the constant 3 (made where it is used)
    # CHECK: arith.constant() {value = 3} : () -> (i64)
    out[0] = s[0] + s[1] + s[-1] + n + d + m + len(s)


@cuda.jit
def ids(out):
    # IDS-LABEL: func.func
    # IDS: gpu.thread_id() {dim = 0} : () -> (i32)
    tx = cuda.threadIdx.x
    # IDS: gpu.block_id() {dim = 1} : () -> (i32)
    by = cuda.blockIdx.y
    # IDS: gpu.block_dim() {dim = 2} : () -> (i32)
    bz = cuda.blockDim.z
    # IDS: gpu.grid_dim() {dim = 0} : () -> (i32)
    gx = cuda.gridDim.x
    # cuda.grid(1): blockDim.x * blockIdx.x + threadIdx.x in int64
    # IDS: %[[NT:.*]] = gpu.block_dim() {dim = 0}
    # IDS: %[[NT64:.*]] = arith.extsi(%[[NT]]) : (i32) -> (i64)
    # IDS: %[[T:.*]] = gpu.thread_id() {dim = 0}
    # IDS: %[[T64:.*]] = arith.extsi(%[[T]])
    # IDS: %[[B:.*]] = gpu.block_id() {dim = 0}
    # IDS: %[[B64:.*]] = arith.extsi(%[[B]])
    # IDS: %[[P:.*]] = arith.muli(%[[NT64]], %[[B64]])
    # IDS: arith.addi(%[[P]], %[[T64]]) : (i64, i64) -> (i64)
    i = cuda.grid(1)
    # IDS: gpu.block_id() {dim = 1}
    x, y = cuda.grid(2)
    # IDS: gpu.grid_dim() {dim = 2}
    # IDS: arith.muli({{.*}}) : (i64, i64) -> (i64)
    sx, sy, sz = cuda.gridsize(3)
    # IDS: gpu.lane_id() : () -> (i32)
    lane = cuda.laneid
    # IDS: gpu.warp_size() : () -> (i32)
    ws = cuda.warpsize
    out[i] = tx + by + bz + gx + x + y + sx + sy + sz + lane + ws
