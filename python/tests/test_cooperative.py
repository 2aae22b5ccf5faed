"""Cooperative groups as numba-cuda's test_cooperative_groups checks them (its kernels): cuda.cg.this_grid() and
grid.sync(), the overloads' `cooperative` flag, max_cooperative_grid_blocks, and the launch refused when the grid
does not fit the device at once; the grid group passed to and returned from device functions, synchronised there. On the simulator every block of a cooperative launch is resident (as many as two
sm_90 multiprocessors hold, by their threads, blocks and shared memory), so the grid barrier is exercised for
real."""
import os
import numpy as np
import pytest

from kfront import cuda
from kfront.errors import LaunchError


@cuda.jit
def this_grid(A):
    cuda.cg.this_grid()
    A[0] = 1.0


@cuda.jit
def sync_group(A):
    g = cuda.cg.this_grid()
    g.sync()
    A[0] = 1.0


@cuda.jit
def no_sync(A):
    A[0] = cuda.grid(1)


def sequential_rows(M):
    col = cuda.grid(1)
    g = cuda.cg.this_grid()
    rows = M.shape[0]
    cols = M.shape[1]
    for row in range(1, rows):
        opposite = cols - col - 1
        M[row, col] = M[row - 1, opposite] + 1
        g.sync()


def test_this_grid_is_cooperative():
    A = np.full(1, fill_value=np.nan)
    this_grid[1, 1](A)
    assert not np.isnan(A[0])
    assert [o.cooperative for o in this_grid.overloads.values()] == [True]


def test_sync_group_is_cooperative():
    A = np.full(1, fill_value=np.nan)
    sync_group[1, 1](A)
    assert not np.isnan(A[0])
    assert [o.cooperative for o in sync_group.overloads.values()] == [True]


def test_no_sync_is_not_cooperative():
    A = np.full(1, fill_value=np.nan)
    no_sync[1, 1](A)
    assert [o.cooperative for o in no_sync.overloads.values()] == [False]


def test_sync_at_matrix_row():
    shape = (32, 256)
    A = np.zeros(shape, dtype=np.int32)
    blockdim = 8
    griddim = A.shape[1] // blockdim
    k = cuda.jit("void(int32[:, ::1])")(sequential_rows)
    overload = k.overloads["void(int32[:, ::1])"]
    assert griddim <= overload.max_cooperative_grid_blocks(blockdim)
    k[griddim, blockdim](A)
    np.testing.assert_equal(A, np.tile(np.arange(shape[0]), (shape[1], 1)).T)


def test_max_cooperative_grid_blocks():
    k = cuda.jit("void(int32[:, ::1])")(sequential_rows)
    overload = k.overloads["void(int32[:, ::1])"]
    b1 = overload.max_cooperative_grid_blocks(256)
    assert b1 == overload.max_cooperative_grid_blocks((16, 16)) == overload.max_cooperative_grid_blocks((16, 4, 4))
    assert b1 >= 1
    with pytest.raises(ValueError):
        overload.max_cooperative_grid_blocks((0, 4))


def test_grid_too_large():
    k = cuda.jit("void(int32[:, ::1])")(sequential_rows)
    mb = k.overloads["void(int32[:, ::1])"].max_cooperative_grid_blocks(1)
    A = np.zeros((2, mb + 1), dtype=np.int32)
    with pytest.raises(LaunchError, match="must be resident at once"):
        k[mb + 1, 1](A)
    k[mb, 1](A[:, :mb].copy())  # the largest grid that fits runs


def test_grid_reduction():
    @cuda.jit
    def grid_sum(x, partial, out):
        sm = cuda.shared.array(32, np.float64)
        i = cuda.grid(1)
        t = cuda.threadIdx.x
        sm[t] = x[i] if i < x.size else 0.0
        cuda.syncthreads()
        if t == 0:
            s = 0.0
            for k in range(cuda.blockDim.x):
                s += sm[k]
            partial[cuda.blockIdx.x] = s
        cuda.cg.this_grid().sync()
        if i == 0:
            total = 0.0
            for b in range(cuda.gridDim.x):
                total += partial[b]
            out[0] = total

    x = np.random.default_rng(1).random(300)
    partial = np.zeros(10)
    out = np.zeros(1)
    grid_sum[10, 32](x, partial, out)
    assert out[0] == pytest.approx(x.sum())


@cuda.jit(device=True)
def row_step(g, M, row, col):
    # a device function given the kernel's grid group, synchronising the grid there
    M[row, col] = M[row - 1, M.shape[1] - col - 1] + 1
    return g.sync()


@cuda.jit(device=True)
def the_grid():
    return cuda.cg.this_grid()


@cuda.jit
def rows_through_device_functions(M, status):
    col = cuda.grid(1)
    g = cuda.cg.this_grid()
    s = 0
    for row in range(1, M.shape[0]):
        s += row_step(g, M, row, col)
    the_grid().sync()
    status[col] = s + 7


@cuda.jit(device=True)
def sync_given(g):
    g.sync()


@cuda.jit
def grid_from_a_device_function(M):
    # this_grid() only in a device function: it and every caller are cooperative
    col = cuda.grid(1)
    g = the_grid()
    for row in range(1, M.shape[0]):
        M[row, col] = M[row - 1, M.shape[1] - col - 1] + 1
        sync_given(g)


@pytest.mark.parametrize("kernel", [rows_through_device_functions, grid_from_a_device_function])
def test_grid_group_in_device_functions(kernel):
    A = np.zeros((16, 64), dtype=np.int32)
    status = np.zeros(64, dtype=np.int32)
    args = (A, status) if kernel is rows_through_device_functions else (A,)
    kernel[8, 8](*args)
    np.testing.assert_equal(A, np.tile(np.arange(16), (64, 1)).T)
    if kernel is rows_through_device_functions:
        assert status.tolist() == [7] * 64  # each sync() gives 0, as numba-cuda's
    assert [o.cooperative for o in kernel.overloads.values()] == [True]


@pytest.mark.skipif(os.environ.get("KFRONT_SIM") != "1", reason="the simulated device's own occupancy")
def test_simulated_occupancy():
    """The simulated device holds what two sm_90 multiprocessors hold: 32 blocks, 2048 threads (whole warps) and
    228 KiB of shared memory (1 KiB more per block) each; the launch limit follows the block size and memory."""
    k = cuda.jit("void(int32[:, ::1])")(sequential_rows)
    overload = k.overloads["void(int32[:, ::1])"]
    assert [overload.max_cooperative_grid_blocks(t) for t in (1, 32, 64, 65, 100, 256, 512, 1024)] == [
        64, 64, 64, 42, 32, 16, 8, 4]
    assert overload.max_cooperative_grid_blocks(32, 48 * 1024) == 8
    assert overload.max_cooperative_grid_blocks((16, 16), 100 * 1024) == 4
    A = np.zeros((3, 16 * 256), dtype=np.int32)
    k[16, 256](A)
    np.testing.assert_equal(A, np.tile(np.arange(3), (16 * 256, 1)).T)
    with pytest.raises(LaunchError, match="holds at most 16 blocks of 256 threads"):
        k[17, 256](np.zeros((3, 17 * 256), dtype=np.int32))
