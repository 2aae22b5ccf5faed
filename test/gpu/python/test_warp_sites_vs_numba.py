"""GPU-only: warp ops at different sites, kfront against numba-cuda on the same kernels and inputs (run by
test/gpu/run_python_gpu.sh on the GPU machine, where both are installed). The kernels are python/tests/
test_warp_sites.py's, which the simulator suite checks against NumPy: the CUDA Programming Guide's shfl_xor_sync
in both branches of an if, shuffles, ballots, all/any/eq_sync and syncwarp at two sites, numba-cuda's
test_independent_scheduling and test_activemask, a half-warp shuffle before a whole-warp one, an int32 and a
float32 exchanging bits at two sites, a shuffle delta of 33. Each runs here under both compilers; the outputs must
agree exactly and match NumPy's. This proves the GPU matches warp ops across sites as the simulator does
(runtime/sim/exec_warp.c, sim_resolve_warp). Only kernels whose behaviour PTX defines run here: the error cases of
test_warp_sites.py (a lane outside its mask, ops that never match) would hang or read garbage on the GPU."""
import inspect
import os
import sys
import textwrap

import numba.cuda as ncuda  # the GPU machine has numba-cuda: missing, the suite fails (it is not skipped)
import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python", "tests"))
import test_warp_sites as sim  # noqa: E402

os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")


def numba_twin(kernel):
    """numba-cuda's compilation of a kfront kernel's source (the same text, its decorator dropped)."""
    src = textwrap.dedent(inspect.getsource(kernel.py_func))
    src = "\n".join(line for line in src.splitlines() if not line.startswith("@"))
    scope = {"cuda": ncuda, "np": np}
    exec(compile(src, inspect.getsourcefile(kernel.py_func), "exec"), scope)
    return ncuda.jit(scope[kernel.py_func.__name__])


def assert_same(kernel, launch, *args):
    """Runs kernel[launch](*args) under kfront and numba-cuda on copies of args; they must agree. kfront's outputs."""
    results = []
    for k in (kernel, numba_twin(kernel)):
        copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        k[launch](*copies)
        results.append([a for a in copies if isinstance(a, np.ndarray)])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
    return results[0]


def test_guide_example():
    vals = (np.arange(64, dtype=np.float32) * 1.5) ** 2
    _, out = assert_same(sim.guide_example, (1, 64), vals, np.zeros(64, dtype=np.float32))
    partner = vals[np.arange(64) ^ 16]
    np.testing.assert_array_equal(out, np.where(np.arange(64) % 32 < 16, vals - partner, vals + partner))


def test_shuffle_in_both_branches():
    out, = assert_same(sim.xor_in_both_branches, (1, 64), np.zeros(64, dtype=np.int64), sim.FULL, sim.FULL)
    partner = np.arange(64) ^ 16
    np.testing.assert_array_equal(out, partner * 10 + (partner % 32 >= 16))


@pytest.mark.parametrize("lim", [20, 10])
def test_votes_in_both_branches(lim):
    ballots, alls, anys, eqs = assert_same(sim.votes_in_both_branches, (1, 32), np.zeros(32, dtype=np.uint32),
                                           *(np.full(32, -1, dtype=np.int32) for _ in range(3)), lim)
    np.testing.assert_array_equal(ballots, [0x42109249] * 32)
    np.testing.assert_array_equal(alls != 0, [lim >= 16] * 32)
    np.testing.assert_array_equal(anys != 0, [lim < 16] * 32)
    np.testing.assert_array_equal(eqs != 0, [lim >= 16] * 32)


def test_syncwarp_in_both_branches():
    out, = assert_same(sim.syncwarp_in_both_branches, (1, 32), np.zeros(32, dtype=np.int32))
    mirror = 31 - np.arange(32)
    np.testing.assert_array_equal(out, mirror + np.where(mirror < 16, 100, 200))


def test_independent_scheduling():
    out, = assert_same(sim.independent_scheduling, (1, 32), np.zeros(32, dtype=np.uint32))
    np.testing.assert_array_equal(out, np.tile([0x11111111, 0x22222222, 0x44444444, 0x88888888], 8))


def test_activemask_in_both_branches():
    out, = assert_same(sim.activemask_in_both_branches, (1, 32), np.zeros(32, dtype=np.uint32))
    np.testing.assert_array_equal(out, np.tile([0x55555555, 0xAAAAAAAA], 16))


def test_half_warp_then_whole_warp():
    out, = assert_same(sim.half_then_whole, (1, 32), np.zeros(32, dtype=np.int64))
    t = np.arange(32)
    np.testing.assert_array_equal(out, np.where(t < 16, t + 16, (t - 16) ^ 1))


def test_bits_across_sites():
    ints, floats = assert_same(sim.bits_across_sites, (1, 32), np.zeros(32, dtype=np.int32),
                               np.zeros(32, dtype=np.float32))
    np.testing.assert_array_equal(ints[:16], np.arange(16, 32, dtype=np.float32).view(np.int32))
    np.testing.assert_array_equal(floats[16:], (np.arange(16, dtype=np.int32) + 0x3F800000).view(np.float32))


@pytest.mark.parametrize("delta", [1, 33])
def test_delta_is_read_as_its_low_five_bits(delta):
    out, = assert_same(sim.shuffle_down_by, (1, 32), np.zeros(32, dtype=np.int64), delta)
    np.testing.assert_array_equal(out, np.minimum(np.arange(32) + 1, 31))
