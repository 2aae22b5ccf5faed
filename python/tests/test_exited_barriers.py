"""Barriers and threads that have exited (issue 22): on the GPU a block barrier waits for the threads of the block
that have not exited (PTX's `exit`), so `if i >= n: return` before cuda.syncthreads() is valid, and so is a thread
finishing while others wait; a grid barrier waits for every block, each arriving through its thread (0,0,0) (CUDA's
cooperative groups, and kfront's lower_grid_sync). numba-cuda runs these kernels, and kfront's simulator must
too, with the same answers (checked here against NumPy; the one-block launches were also run on numba-cuda's
simulator). What the GPU leaves undefined or would hang on stays a located error on the simulator: live threads at
different barriers (numba-cuda's simulator releases any barrier with any other; CUDA C leaves it undefined), a
shuffle whose mask names a lane waiting at a block barrier, a block of a grid of several that never reaches the
grid barrier, and a shuffle that reads an exited lane. Those
error cases run on the simulator only; the rest also run on the GPU (test/gpu/run_python_gpu.sh), and
test/gpu/python/test_exited_barriers_vs_numba.py compares them with numba-cuda there."""
import os

import numpy as np
import pytest

from kfront import cuda
from kfront.errors import CudaDriverError

ON_GPU = os.environ.get("KFRONT_TEST_GPU") == "1"
sim_only = pytest.mark.skipif(ON_GPU, reason="an error on the simulator; the GPU would hang or read garbage")


# ---- block barriers after an early return ----------------------------------------------------------------

@cuda.jit
def next_in_block(a, out):
    # each live thread stages its element, then reads its right neighbour's: threads past the end returned
    i = cuda.grid(1)
    if i >= a.shape[0]:
        return
    sm = cuda.shared.array(64, np.int64)
    t = cuda.threadIdx.x
    sm[t] = a[i] * 3
    cuda.syncthreads()
    if t + 1 < cuda.blockDim.x and i + 1 < a.shape[0]:
        out[i] = sm[t + 1]
    else:
        out[i] = -1


def test_return_then_syncthreads():
    a = np.arange(100, dtype=np.int64)
    out = np.zeros(100, dtype=np.int64)
    next_in_block[2, 64](a, out)
    expect = np.append(a[1:] * 3, -1)
    expect[63] = -1  # the last thread of block 0 has no neighbour in its block
    np.testing.assert_array_equal(out, expect)


@cuda.jit
def block_sums(x, partial):
    # a tree reduction in shared memory, its loop of barriers run by the live threads only
    i = cuda.grid(1)
    n = x.shape[0]
    if i >= n:
        return
    sm = cuda.shared.array(64, np.float64)
    t = cuda.threadIdx.x
    start = cuda.blockIdx.x * cuda.blockDim.x
    live = min(cuda.blockDim.x, n - start)
    sm[t] = x[i]
    cuda.syncthreads()
    s = 1
    while s < cuda.blockDim.x:
        if t % (2 * s) == 0 and t + s < live:
            sm[t] += sm[t + s]
        cuda.syncthreads()
        s *= 2
    if t == 0:
        partial[cuda.blockIdx.x] = sm[0]


def test_loop_of_barriers_after_return():
    x = np.arange(150, dtype=np.float64) * 0.25
    partial = np.zeros(3)
    block_sums[3, 64](x, partial)
    np.testing.assert_array_equal(partial, [x[:64].sum(), x[64:128].sum(), x[128:].sum()])
    one = np.zeros(1)
    block_sums[1, 64](x[:37].copy(), one)  # one block, 27 threads returned
    assert one[0] == x[:37].sum()


@cuda.jit
def uneven_trips(out):
    # thread t runs t % 4 + 1 iterations, each with a barrier; those done finish while the others go on
    t = cuda.threadIdx.x
    acc = 0
    for k in range(t % 4 + 1):
        acc += k + 1
        cuda.syncthreads()
    out[t] = acc


def test_threads_finish_while_others_wait():
    out = np.zeros(48, dtype=np.int64)
    uneven_trips[1, 48](out)
    np.testing.assert_array_equal(out, [(t % 4 + 1) * (t % 4 + 2) // 2 for t in range(48)])


@cuda.jit
def reductions_after_return(out, n):
    t = cuda.threadIdx.x
    if t >= n:
        return
    c = cuda.syncthreads_count(1 if t % 3 == 0 else 0)  # an integer predicate, as numba-cuda types it
    a = cuda.syncthreads_and(1 if t < n else 0)
    o = cuda.syncthreads_or(1 if t == n - 1 else 0)
    out[t] = c * 100 + a * 10 + o


def test_barrier_reductions_count_live_threads():
    # the GPU reduces over the threads that arrive (test/gpu/python checks numba-cuda agrees there); numba-cuda's
    # simulator gives syncthreads_and 0 here, its table of predicates keeping the exited threads' zeros
    out = np.zeros(40, dtype=np.int64)
    reductions_after_return[1, 40](out, 10)  # threads 0..9: four multiples of 3, all < n, one is n - 1
    np.testing.assert_array_equal(out, [411] * 10 + [0] * 30)


# ---- grid barriers ----------------------------------------------------------------------------------------

@cuda.jit
def diffuse(a, b, steps, k):
    # laplace-like: threads past the end return before the loop of grid barriers
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
        left = src[i - 1] if i > 0 else 0.0
        right = src[i + 1] if i < n - 1 else 0.0
        dst[i] = src[i] + k * (left - 2.0 * src[i] + right)
        g.sync()


def diffuse_reference(a, steps, k):
    a = a.copy()
    b = np.zeros_like(a)
    for step in range(steps):
        src, dst = (a, b) if step % 2 == 0 else (b, a)
        p = np.pad(src, 1)
        dst[:] = src + k * (p[:-2] - 2.0 * src + p[2:])
    return a, b


@pytest.mark.parametrize("grid, block, n", [(1, 64, 41), (4, 32, 101), (3, 64, 129)])
def test_grid_sync_after_return(grid, block, n):
    a0 = np.zeros(n)
    a0[n // 2] = 1000.0
    a, b = a0.copy(), np.zeros(n)
    diffuse[grid, block](a, b, 25, 0.25)
    ra, rb = diffuse_reference(a0, 25, 0.25)
    np.testing.assert_allclose(a, ra, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(b, rb, rtol=1e-12, atol=1e-12)


@cuda.jit
def label_runs(keys, labels):
    # sessionize-like: the thread starting each run of equal keys labels it, waits at the grid barrier (the
    # others finish without it) and labels the rest of its run, up to the next label
    i = cuda.grid(1)
    n = keys.shape[0]
    if i >= n:
        return
    if i == 0 or keys[i] != keys[i - 1]:
        labels[i] = i
        cuda.cg.this_grid().sync()
        j = i + 1
        while j < n and labels[j] == -1:
            labels[j] = i
            j += 1


def run_starts(keys):
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return np.repeat(starts, np.diff(np.r_[starts, len(keys)]))


@pytest.mark.parametrize("grid, block, runs", [
    (1, 32, [3, 1, 4, 1, 5, 9, 2]),     # one block: 25 live threads, most of them finish without the barrier
    (3, 8, [3, 5, 3, 5, 4, 2, 2]),      # three blocks, each block's thread 0 starts a run
])
def test_grid_sync_by_some_threads(grid, block, runs):
    keys = np.repeat(np.arange(len(runs)) * 7 + 2, runs)
    labels = np.full(len(keys), -1, dtype=np.int64)
    label_runs[grid, block](keys, labels)
    np.testing.assert_array_equal(labels, run_starts(keys))


@cuda.jit
def leader_of_last_exits(out):
    if cuda.threadIdx.x == 0 and cuda.blockIdx.x == cuda.gridDim.x - 1:
        return
    cuda.cg.this_grid().sync()
    out[cuda.grid(1)] = 1


def test_one_block_grid_sync_without_thread_0():
    out = np.zeros(8, dtype=np.int64)
    leader_of_last_exits[1, 8](out)  # the grid barrier of one block is its block barrier
    np.testing.assert_array_equal(out, [0] + [1] * 7)


# ---- what stays an error ----------------------------------------------------------------------------------

@cuda.jit
def two_barriers(out):
    t = cuda.threadIdx.x
    if t < 4:
        cuda.syncthreads()
        out[t] = 1
    else:
        cuda.syncthreads()
        out[t] = 2


@cuda.jit
def after_loop_barrier(out):
    # thread 0 leaves the loop and waits at the barrier after it while the others wait in the loop
    t = cuda.threadIdx.x
    for k in range(1 if t == 0 else 3):
        cuda.syncthreads()
    cuda.syncthreads()
    out[t] = 1


@sim_only
def test_live_threads_at_different_barriers():
    out = np.zeros(8, dtype=np.int64)
    with pytest.raises(CudaDriverError, match=r"barrier divergence in kernel two_barriers at .*test_exited_barriers"
                       r"\.py:\d+:\d+: thread \(0,0,0\) of block \(0,0,0\) waits here, but thread \(4,0,0\) waits at"):
        two_barriers[1, 8](out)
    with pytest.raises(CudaDriverError, match=r"barrier divergence in kernel after_loop_barrier"):
        after_loop_barrier[1, 8](out)


@sim_only
def test_grid_sync_a_block_never_reaches():
    n = 64  # the grid's last block is wholly past the end: its threads all return
    a, b = np.zeros(n), np.zeros(n)
    with pytest.raises(CudaDriverError, match=r"grid barrier divergence in kernel diffuse at .*: block \(0,0,0\) "
                       r"waits here, but block \(2,0,0\) has ended: a grid barrier waits for every block"):
        diffuse[3, 32](a, b, 4, 0.25)
    out = np.zeros(24, dtype=np.int64)
    with pytest.raises(CudaDriverError, match=r"block \(2,0,0\) waits here, but its thread \(0,0,0\) has exited: a "
                       r"block arrives at a grid barrier through its thread \(0,0,0\)"):
        leader_of_last_exits[3, 8](out)
    keys = np.repeat([1, 2, 3], [3, 6, 15])  # element 8, block 1's thread 0, does not start a run
    labels = np.full(24, -1, dtype=np.int64)
    with pytest.raises(CudaDriverError, match=r"grid barrier divergence in kernel label_runs .* block \(1,0,0\) "
                       r"waits here, but its thread \(0,0,0\) has exited"):
        label_runs[3, 8](keys, labels)


@cuda.jit
def warp_ops_after_return(out, ballots, n, delta):
    t = cuda.threadIdx.x
    if t >= n:
        return
    cuda.syncwarp(0xFFFFFFFF)  # the exited lanes named in the mask do not hold it
    ballots[t] = cuda.ballot_sync(0xFFFFFFFF, True)
    out[t] = cuda.shfl_down_sync(0xFFFFFFFF, t, delta)


def test_warp_ops_wait_for_live_lanes():
    out = np.zeros(64, dtype=np.int64)
    ballots = np.zeros(64, dtype=np.uint32)
    warp_ops_after_return[1, 64](out, ballots, 44, 0)
    np.testing.assert_array_equal(ballots[:44], [0xFFFFFFFF] * 32 + [0xFFF] * 12)
    np.testing.assert_array_equal(out[:44], np.arange(44))
    warp_ops_after_return[1, 64](out, ballots, 32, 16)  # warp 1 exited whole: warp 0 shuffles among its own
    np.testing.assert_array_equal(out[:32], np.r_[np.arange(16, 32), np.arange(16, 32)])


@sim_only
def test_shuffle_from_an_exited_lane():
    out = np.zeros(32, dtype=np.int64)
    ballots = np.zeros(32, dtype=np.uint32)
    with pytest.raises(CudaDriverError, match=r"shuffle from an absent lane in kernel warp_ops_after_return at "
                       r".*: thread \(16,0,0\) of block \(0,0,0\) reads lane 20 of its warp, thread \(20,0,0\), "
                       r"which has exited \(on the GPU the value read is undefined\)"):
        warp_ops_after_return[1, 32](out, ballots, 20, 4)
    with pytest.raises(CudaDriverError, match=r"reads lane 16 of its warp, which the block does not have \(its last "
                       r"warp has 16 threads\)"):
        warp_ops_after_return[1, 16](out, ballots, 16, 8)


@cuda.jit
def half_warp_shuffles(out, mask):
    # lanes 0..15 swap with their neighbour while lanes 16..31 go on to the block barrier
    t = cuda.threadIdx.x
    v = t
    if t < 16:
        v = cuda.shfl_xor_sync(mask, t, 1)
    cuda.syncthreads()
    out[t] = v


def test_shuffle_of_half_a_warp():
    out = np.zeros(32, dtype=np.int64)
    half_warp_shuffles[1, 32](out, 0xFFFF)
    np.testing.assert_array_equal(out, np.r_[np.arange(16) ^ 1, np.arange(16, 32)])


@sim_only
def test_shuffle_mask_names_a_lane_at_a_barrier():
    out = np.zeros(32, dtype=np.int64)
    with pytest.raises(CudaDriverError, match=r"barrier divergence in kernel half_warp_shuffles at .*: thread "
                       r"\(0,0,0\) of block \(0,0,0\) waits here, but thread \(16,0,0\) waits at"):
        half_warp_shuffles[1, 32](out, 0xFFFFFFFF)
