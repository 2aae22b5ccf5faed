"""Warp ops at different sites: PTX (sm_70 and later) matches a shfl.sync, vote.sync or bar.warp.sync among the
lanes its mask names whatever instruction each lane executes, as long as the ops agree (the same kind, mode and
mask), so the CUDA Programming Guide's `__shfl_xor_sync` in both branches of an if gives each lane its partner's
value. kfront's simulator does the same (runtime/sim/exec_warp.c, sim_resolve_warp); before, it grouped lanes by the
instruction they waited at, and each half got its own half's value, silently. The answers here are NumPy's, and
were seen on an H200 under numba-cuda (each kernel's shape: shuffles, ballots and all_sync at two sites, syncwarp
at two sites ordering shared memory, an int32 and a float32 exchanging their bits, a half-warp shuffle before a
whole-warp one, numba-cuda's test_independent_scheduling); test/gpu/python/test_warp_sites_vs_numba.py compares
kfront with numba-cuda there. What PTX leaves undefined is a located error on the simulator, never a value: a lane
outside its own mask, a shuffle reading a lane its mask does not name, ops or masks that never match. Those run on
the simulator only (on the GPU they would hang or read garbage)."""
import os
import re

import numpy as np
import pytest

from kfront import cuda
from kfront.errors import CudaDriverError

ON_GPU = os.environ.get("KFRONT_TEST_GPU") == "1"
sim_only = pytest.mark.skipif(ON_GPU, reason="an error on the simulator; the GPU would hang or read garbage")

FULL = 0xFFFFFFFF


# ---- the same op in both branches of an if ----------------------------------------------------------------

@cuda.jit
def guide_example(vals, out):
    # the CUDA Programming Guide's example (independent thread scheduling): valid on Volta and later
    t = cuda.threadIdx.x
    val = vals[t]
    if t % 32 < 16:
        swapped = cuda.shfl_xor_sync(0xFFFFFFFF, val, 16)
        out[t] = val - swapped
    else:
        swapped = cuda.shfl_xor_sync(0xFFFFFFFF, val, 16)
        out[t] = val + swapped


@cuda.jit
def xor_in_both_branches(out, mask_lo, mask_hi):
    t = cuda.threadIdx.x
    if t % 32 < 16:
        out[t] = cuda.shfl_xor_sync(mask_lo, t * 10, 16)
    else:
        out[t] = cuda.shfl_xor_sync(mask_hi, t * 10 + 1, 16)


def test_guide_example():
    vals = (np.arange(64, dtype=np.float32) * 1.5) ** 2
    out = np.zeros(64, dtype=np.float32)
    guide_example[1, 64](vals, out)
    partner = vals[np.arange(64) ^ 16]
    np.testing.assert_array_equal(out, np.where(np.arange(64) % 32 < 16, vals - partner, vals + partner))


def test_shuffle_in_both_branches():
    out = np.zeros(64, dtype=np.int64)
    xor_in_both_branches[1, 64](out, FULL, FULL)
    partner = np.arange(64) ^ 16
    np.testing.assert_array_equal(out, partner * 10 + (partner % 32 >= 16))


@cuda.jit
def votes_in_both_branches(ballots, alls, anys, eqs, lim):
    t = cuda.threadIdx.x
    if t < 16:
        ballots[t] = cuda.ballot_sync(0xFFFFFFFF, t % 3 == 0)
        alls[t] = cuda.all_sync(0xFFFFFFFF, t < lim)
        anys[t] = cuda.any_sync(0xFFFFFFFF, t == lim)
        eqs[t] = cuda.eq_sync(0xFFFFFFFF, t < lim)
    else:
        ballots[t] = cuda.ballot_sync(0xFFFFFFFF, t % 5 == 0)
        alls[t] = cuda.all_sync(0xFFFFFFFF, True)
        anys[t] = cuda.any_sync(0xFFFFFFFF, False)
        eqs[t] = cuda.eq_sync(0xFFFFFFFF, True)


@pytest.mark.parametrize("lim", [20, 10])
def test_votes_in_both_branches(lim):
    ballots = np.zeros(32, dtype=np.uint32)
    alls, anys, eqs = (np.full(32, -1, dtype=np.int32) for _ in range(3))
    votes_in_both_branches[1, 32](ballots, alls, anys, eqs, lim)
    t = np.arange(32)
    expected = sum(1 << int(i) for i in t if (i % 3 == 0 if i < 16 else i % 5 == 0))
    assert expected == 0x42109249
    np.testing.assert_array_equal(ballots, [expected] * 32)  # the whole warp's ballot in both halves
    np.testing.assert_array_equal(alls != 0, [lim >= 16] * 32)
    np.testing.assert_array_equal(anys != 0, [lim < 16] * 32)
    np.testing.assert_array_equal(eqs != 0, [lim >= 16] * 32)


@cuda.jit
def syncwarp_in_both_branches(out):
    # each half stores, waits at its own syncwarp, then reads the other half's store
    t = cuda.threadIdx.x
    sm = cuda.shared.array(32, np.int32)
    if t < 16:
        sm[t] = t + 100
        cuda.syncwarp()
        out[t] = sm[31 - t]
    else:
        sm[t] = t + 200
        cuda.syncwarp(0xFFFFFFFF)
        out[t] = sm[31 - t]


def test_syncwarp_in_both_branches():
    out = np.zeros(32, dtype=np.int32)
    syncwarp_in_both_branches[1, 32](out)
    mirror = 31 - np.arange(32)
    np.testing.assert_array_equal(out, mirror + np.where(mirror < 16, 100, 200))


@cuda.jit
def independent_scheduling(arr):
    # numba-cuda's test_warp_ops.py: four disjoint groups, each at its own site
    i = cuda.threadIdx.x
    if i % 4 == 0:
        ballot = cuda.ballot_sync(0x11111111, True)
    elif i % 4 == 1:
        ballot = cuda.ballot_sync(0x22222222, True)
    elif i % 4 == 2:
        ballot = cuda.ballot_sync(0x44444444, True)
    else:
        ballot = cuda.ballot_sync(0x88888888, True)
    arr[i] = ballot


def test_independent_scheduling():
    arr = np.zeros(32, dtype=np.uint32)
    independent_scheduling[1, 32](arr)
    np.testing.assert_array_equal(arr, np.tile([0x11111111, 0x22222222, 0x44444444, 0x88888888], 8))


@cuda.jit
def activemask_in_both_branches(x):
    # numba-cuda's test_activemask: each branch sees its own lanes
    i = cuda.grid(1)
    if i % 2 == 0:
        x[i] = cuda.activemask()
    else:
        x[i] = cuda.activemask()


def test_activemask_in_both_branches():
    out = np.zeros(32, dtype=np.uint32)
    activemask_in_both_branches[1, 32](out)
    np.testing.assert_array_equal(out, np.tile([0x55555555, 0xAAAAAAAA], 16))


@cuda.jit
def half_then_whole(out):
    # lanes 0..15 swap with their neighbour among themselves; the whole warp then waits for them at the second
    t = cuda.threadIdx.x
    v = t
    if t < 16:
        v = cuda.shfl_xor_sync(0xFFFF, v, 1)
    out[t] = cuda.shfl_xor_sync(0xFFFFFFFF, v, 16)


def test_half_warp_then_whole_warp():
    out = np.zeros(32, dtype=np.int64)
    half_then_whole[1, 32](out)
    t = np.arange(32)
    np.testing.assert_array_equal(out, np.where(t < 16, t + 16, (t - 16) ^ 1))


@cuda.jit
def bits_across_sites(ints, floats):
    # a shuffle moves 32-bit words: at two sites an int32 and a float32 exchange their bits
    t = cuda.threadIdx.x
    if t < 16:
        ints[t] = cuda.shfl_xor_sync(0xFFFFFFFF, np.int32(t + 0x3F800000), 16)
    else:
        floats[t] = cuda.shfl_xor_sync(0xFFFFFFFF, np.float32(t), 16)


def test_bits_across_sites():
    ints = np.zeros(32, dtype=np.int32)
    floats = np.zeros(32, dtype=np.float32)
    bits_across_sites[1, 32](ints, floats)
    np.testing.assert_array_equal(ints[:16], np.arange(16, 32, dtype=np.float32).view(np.int32))
    np.testing.assert_array_equal(floats[16:], (np.arange(16, dtype=np.int32) + 0x3F800000).view(np.float32))


@cuda.jit
def shuffle_down_by(out, delta):
    t = cuda.threadIdx.x
    out[t] = cuda.shfl_down_sync(0xFFFFFFFF, t, delta)


@pytest.mark.parametrize("delta", [1, 33])
def test_delta_is_read_as_its_low_five_bits(delta):
    out = np.zeros(32, dtype=np.int64)
    shuffle_down_by[1, 32](out, delta)  # PTX's shfl.sync reads b[4:0]: 33 is 1
    np.testing.assert_array_equal(out, np.minimum(np.arange(32) + 1, 31))


# ---- what PTX leaves undefined: located errors ---------------------------------------------------------------

@sim_only
def test_shuffle_reads_a_lane_outside_its_mask():
    out = np.zeros(32, dtype=np.int64)
    with pytest.raises(CudaDriverError, match=r"shuffle from a lane outside its mask in kernel xor_in_both_branches at "
                       r".*test_warp_sites.py:\d+:\d+: thread \(0,0,0\) of block \(0,0,0\) reads lane 16 of its warp, "
                       r"thread \(16,0,0\), which its mask 0x0000ffff does not name \(on the GPU the value read is "
                       r"undefined\)"):
        xor_in_both_branches[1, 32](out, 0xFFFF, 0xFFFF0000)


@sim_only
def test_mask_without_its_own_lane():
    out = np.zeros(32, dtype=np.int64)
    with pytest.raises(CudaDriverError, match=r"warp op mask without its own lane in kernel xor_in_both_branches at "
                       r".*: thread \(0,0,0\) of block \(0,0,0\), lane 0 of its warp, calls a shuffle \(mode xor\) of "
                       r"a 64-bit value with mask 0xffff0000, which does not name it"):
        xor_in_both_branches[1, 32](out, 0xFFFF0000, FULL)


@cuda.jit
def syncwarp_mask(mask):
    cuda.syncwarp(mask)


@sim_only
def test_syncwarp_mask_without_its_own_lane():
    with pytest.raises(CudaDriverError, match=r"warp op mask without its own lane in kernel syncwarp_mask at .*: "
                       r"thread \(16,0,0\) of block \(0,0,0\), lane 16 of its warp, calls a syncwarp with mask "
                       r"0x0000ffff"):
        syncwarp_mask[1, 32](0xFFFF)


@sim_only
def test_masks_that_never_match():
    out = np.zeros(32, dtype=np.int64)
    with pytest.raises(CudaDriverError, match=r"warp op mismatch in kernel xor_in_both_branches at .*: thread "
                       r"\(0,0,0\) of block \(0,0,0\) waits here at a shuffle \(mode xor\) of a 64-bit value with mask "
                       r"0xffffffff, but thread \(16,0,0\), which that mask names, waits at .*test_warp_sites.py:\d+:\d+ "
                       r"at a shuffle \(mode xor\) of a 64-bit value with mask 0xfffffffe"):
        xor_in_both_branches[1, 32](out, FULL, 0xFFFFFFFE)


@cuda.jit
def ballot_against_any(out):
    t = cuda.threadIdx.x
    if t < 16:
        out[t] = cuda.ballot_sync(0xFFFFFFFF, True)
    else:
        out[t] = cuda.any_sync(0xFFFFFFFF, True)


@cuda.jit
def narrow_against_wide(out):
    t = cuda.threadIdx.x
    if t < 16:
        out[t] = cuda.shfl_xor_sync(0xFFFFFFFF, np.int32(t), 16)
    else:
        out[t] = cuda.shfl_xor_sync(0xFFFFFFFF, np.int64(t), 16)


@sim_only
def test_ops_that_never_match():
    out = np.zeros(32, dtype=np.int64)
    with pytest.raises(CudaDriverError, match=r"warp op mismatch in kernel ballot_against_any at .*: thread \(0,0,0\) "
                       r"of block \(0,0,0\) waits here at a vote \(mode ballot\) with mask 0xffffffff, but thread "
                       r"\(16,0,0\), which that mask names, waits at .* at a vote \(mode any\) with mask 0xffffffff "
                       r"\(the two never match: the GPU would hang or give undefined values\)"):
        ballot_against_any[1, 32](out)
    with pytest.raises(CudaDriverError, match=r"warp op mismatch in kernel narrow_against_wide at .*: thread \(0,0,0\) "
                       r"of block \(0,0,0\) waits here at a shuffle \(mode xor\) of a 32-bit value with mask 0xffffffff, "
                       r"but thread \(16,0,0\), which that mask names, waits at .* at a shuffle \(mode xor\) of a 64-bit "
                       r"value"):
        narrow_against_wide[1, 32](out)


@pytest.mark.parametrize("sig, words", [
    ("void(float32[:], int32[:], int32[:])", "Mask type must be an integer: the mask of cuda.all_sync() is float32"),
    ("void(boolean[:], int32[:], int32[:])", "Mask type must be an integer"),
    ("void(int32[:], float64[:], int32[:])",
     "Predicate must be an integer or boolean: the predicate of cuda.all_sync() is float64"),
])
def test_vote_argument_types_are_numba_cudas(sig, words):
    """numba-cuda's typing of the vote functions, its words in kfront's located TypingError"""
    from kfront.errors import TypingError

    def vote(mask, predicate, result):
        i = cuda.grid(1)
        if i < result.shape[0]:
            result[i] = cuda.all_sync(mask[i], predicate[i])

    with pytest.raises(TypingError, match=r"test_warp_sites\.py:\d+:\d+: error: " + re.escape(words)):
        cuda.jit(sig)(vote)
    ok = cuda.jit("void(int32[:], boolean[:], int32[:])")(vote)  # an integer mask, a boolean predicate
    result = np.zeros(32, dtype=np.int32)
    ok[1, 32](np.full(32, -1, dtype=np.int32), np.ones(32, dtype=np.bool_), result)
    assert result.tolist() == [1] * 32
