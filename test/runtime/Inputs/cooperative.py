# Kernels that synchronise their grid (cuda.cg), for test/runtime/cooperative.test and test/backend/cooperative.py.
from numba import cuda, int32, float64
from numba.cuda import cg


@cuda.jit
def sequential_rows(M):
    # numba-cuda's test: each row written by the whole grid, read back by the "opposite" thread of another block
    col = cuda.grid(1)
    g = cuda.cg.this_grid()
    rows = M.shape[0]
    cols = M.shape[1]
    for row in range(1, rows):
        opposite = cols - col - 1
        M[row, col] = M[row - 1, opposite] + 1
        g.sync()


@cuda.jit(device=True)
def block_sums(x, partial):
    # one partial sum per block (shared-memory tree), then the grid barrier
    sm = cuda.shared.array(64, float64)
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    sm[t] = x[i] if i < x.shape[0] else 0.0
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s:
            sm[t] += sm[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = sm[0]
    cg.this_grid().sync()


@cuda.jit
def grid_sum(x, partial, out):
    # a reduction across blocks in one launch: every thread reads all the partial sums after the grid barrier
    block_sums(x, partial)
    total = 0.0
    for b in range(cuda.gridDim.x):
        total += partial[b]
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = total


@cuda.jit
def only_this_grid(A):
    cuda.cg.this_grid()
    A[0] = 1


@cuda.jit
def diverges(A):
    g = cuda.cg.this_grid()
    if cuda.blockIdx.x == 0:
        g.sync()
    A[cuda.grid(1)] = 1


@cuda.jit
def plain(A):
    A[cuda.grid(1)] = 1


@cuda.jit
def others_exit(A):
    g = cuda.cg.this_grid()
    if cuda.threadIdx.x == 0:
        g.sync()
    A[cuda.grid(1)] = 1


@cuda.jit
def index_error(A, out):
    # block 1's threads all fail a bounds check before the grid barrier: the others must not wait for ever
    i = cuda.grid(1)
    A[i] = 1
    g = cuda.cg.this_grid()
    g.sync()
    out[i] = 2


@cuda.jit
def big_shared(A):
    # 48 KiB of shared memory per block: the simulated device's multiprocessors (228 KiB each, 1 KiB more per
    # block) hold 4 blocks each, whatever their size
    sm = cuda.shared.array(6144, float64)
    t = cuda.threadIdx.x
    sm[t] = t
    g = cuda.cg.this_grid()
    g.sync()
    A[cuda.grid(1)] = sm[t]


@cuda.jit
def heat_steps(a, b, steps):
    # threads past the end return before the loop of grid barriers (PTX: exited threads do not take part; the
    # grid's last block is partly idle), each step reads the other buffer's neighbours
    i = cuda.grid(1)
    n = a.shape[0]
    if i >= n:
        return
    g = cuda.cg.this_grid()
    for step in range(steps):
        if step % 2 == 0:
            src = a
            dst = b
        else:
            src = b
            dst = a
        left = src[i - 1] if i > 0 else 0
        right = src[i + 1] if i < n - 1 else 0
        dst[i] = left + 2 * src[i] + right
        g.sync()


@cuda.jit
def run_heads(keys, out):
    # the threads that start a run of equal keys mark it, wait at the grid barrier and fill their run up to the
    # next mark; the others finish without it (out starts at -1)
    i = cuda.grid(1)
    n = keys.shape[0]
    if i >= n:
        return
    if i == 0 or keys[i] != keys[i - 1]:
        out[i] = i
        cuda.cg.this_grid().sync()
        j = i + 1
        while j < n and out[j] == -1:
            out[j] = i
            j += 1


@cuda.jit
def last_leader_exits(A):
    # thread (0,0,0) of the last block returns: in a grid of several blocks that block never arrives
    if cuda.threadIdx.x == 0 and cuda.blockIdx.x == cuda.gridDim.x - 1:
        return
    cuda.cg.this_grid().sync()
    A[cuda.grid(1)] = 1
