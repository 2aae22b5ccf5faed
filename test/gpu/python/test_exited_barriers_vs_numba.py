"""GPU-only: barriers after threads exited, kfront against numba-cuda on the same kernels and inputs (run by
test/gpu/run_python_gpu.sh on the GPU machine, where both are installed). The kernels are python/tests/
test_exited_barriers.py's, which the simulator suite checks against NumPy: `if i >= n: return` before
cuda.syncthreads(), a loop of barriers after the early return, threads finishing while others wait, the barrier
reductions (syncthreads_count/_and/_or) over the live threads, grid barriers after an early return (laplace-like)
and waited at by some threads only (sessionize-like), syncwarp, ballot and shuffles after lanes exited. Each runs
here on the GPU under both compilers, and the outputs must agree (exactly; the diffusion within 1e-12, where the
compilers may contract differently) and match NumPy's. This proves the GPU follows the rules the simulator
implements (runtime/sim/exec.c): in particular that syncthreads_and over threads 0..9 with the others exited is 1
(numba-cuda's own simulator says 0: its table of predicates keeps the exited threads' zeros)."""
import inspect
import os
import sys
import textwrap

import numba.cuda as ncuda  # the GPU machine has numba-cuda: missing, the suite fails (it is not skipped)
import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python", "tests"))
import test_exited_barriers as sim  # noqa: E402

os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")


def numba_twin(kernel):
    """numba-cuda's compilation of a kfront kernel's source (the same text, its decorator dropped)."""
    src = textwrap.dedent(inspect.getsource(kernel.py_func))
    src = "\n".join(line for line in src.splitlines() if not line.startswith("@"))
    scope = {"cuda": ncuda, "np": np}
    exec(compile(src, inspect.getsourcefile(kernel.py_func), "exec"), scope)
    return ncuda.jit(scope[kernel.py_func.__name__])


def both(kernel, launch, *args):
    """Runs kernel[launch](*args) under kfront and numba-cuda on copies of args; the two lists of outputs."""
    results = []
    for k in (kernel, numba_twin(kernel)):
        copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        k[launch](*copies)
        results.append([a for a in copies if isinstance(a, np.ndarray)])
    return results


def assert_same(kernel, launch, *args):
    ours, theirs = both(kernel, launch, *args)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)
    return ours


def test_return_then_syncthreads():
    a = np.arange(100, dtype=np.int64)
    _, out = assert_same(sim.next_in_block, (2, 64), a, np.zeros(100, dtype=np.int64))
    assert out[0] == 3 and out[62] == 189 and out[63] == -1 and out[99] == -1


def test_loop_of_barriers_after_return():
    x = np.arange(150, dtype=np.float64) * 0.25
    _, partial = assert_same(sim.block_sums, (3, 64), x, np.zeros(3))
    np.testing.assert_array_equal(partial, [x[:64].sum(), x[64:128].sum(), x[128:].sum()])


def test_threads_finish_while_others_wait():
    out, = assert_same(sim.uneven_trips, (1, 48), np.zeros(48, dtype=np.int64))
    np.testing.assert_array_equal(out, [(t % 4 + 1) * (t % 4 + 2) // 2 for t in range(48)])


def test_barrier_reductions_count_live_threads():
    out, = assert_same(sim.reductions_after_return, (1, 40), np.zeros(40, dtype=np.int64), 10)
    np.testing.assert_array_equal(out[:10], [411] * 10)


@pytest.mark.parametrize("grid, block, n", [(1, 64, 41), (4, 32, 101), (3, 64, 129)])
def test_grid_sync_after_return(grid, block, n):
    a0 = np.zeros(n)
    a0[n // 2] = 1000.0
    ours, theirs = both(sim.diffuse, (grid, block), a0, np.zeros(n), 25, 0.25)
    ra, rb = sim.diffuse_reference(a0, 25, 0.25)
    for got, other, ref in zip(ours, theirs, (ra, rb)):
        np.testing.assert_allclose(got, other, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("grid, block, runs", [(1, 32, [3, 1, 4, 1, 5, 9, 2]), (3, 8, [3, 5, 3, 5, 4, 2, 2])])
def test_grid_sync_by_some_threads(grid, block, runs):
    keys = np.repeat(np.arange(len(runs)) * 7 + 2, runs)
    _, labels = assert_same(sim.label_runs, (grid, block), keys, np.full(len(keys), -1, dtype=np.int64))
    np.testing.assert_array_equal(labels, sim.run_starts(keys))


def test_one_block_grid_sync_without_thread_0():
    out, = assert_same(sim.leader_of_last_exits, (1, 8), np.zeros(8, dtype=np.int64))
    np.testing.assert_array_equal(out, [0] + [1] * 7)


@pytest.mark.parametrize("n, delta", [(44, 0), (32, 16)])
def test_warp_ops_wait_for_live_lanes(n, delta):
    out, ballots = assert_same(sim.warp_ops_after_return, (1, 64), np.zeros(64, dtype=np.int64),
                               np.zeros(64, dtype=np.uint32), n, delta)
    if delta == 0:
        np.testing.assert_array_equal(ballots[:44], [0xFFFFFFFF] * 32 + [0xFFF] * 12)
        np.testing.assert_array_equal(out[:44], np.arange(44))
    else:
        np.testing.assert_array_equal(out[:32], np.r_[np.arange(16, 32), np.arange(16, 32)])


def test_shuffle_of_half_a_warp():
    out, = assert_same(sim.half_warp_shuffles, (1, 32), np.zeros(32, dtype=np.int64), 0xFFFF)
    np.testing.assert_array_equal(out, np.r_[np.arange(16) ^ 1, np.arange(16, 32)])
