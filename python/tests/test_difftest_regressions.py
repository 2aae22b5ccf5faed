"""kfront.cuda on the simulator (KFRONT_SIM=1 in the test command): the differential fuzzer's findings
(test/difftest/FINDINGS.md), each minimised, with the value numba-cuda 0.30.4's simulator (the oracle) produced
written in as a literal. A finding not yet fixed is marked xfail(strict=True): the test fails once it passes, so
the mark goes with the fix."""
import math

import numpy as np
import pytest

from kfront import cuda


@cuda.jit(device=True)
def _plus_one(x):
    return x + 1


def test_global_read_only_in_a_loop_python_drops():
    @cuda.jit
    def k(out):
        w = 0
        while w < 1 and False:
            w += 1
            out[1] = _plus_one(w)
        out[0] = 7

    out = np.zeros(2, np.int64)
    k[1, 1](out)
    assert out.tolist() == [7, 0]     # the oracle's output


def test_global_read_only_in_an_if_python_drops():
    @cuda.jit
    def k(out, c):
        if c > 0 and False:
            out[1] = _plus_one(c)
        out[0] = 4

    out = np.zeros(2, np.int64)
    k[1, 1](out, 1)
    assert out.tolist() == [4, 0]     # the oracle's output


def test_module_read_only_in_a_loop_python_drops():
    @cuda.jit
    def k(out, x):
        w = 0
        while w < 1 and False:
            w += 1
            out[1] = math.floor(x)
        out[0] = 3

    out = np.zeros(2, np.int64)
    k[1, 1](out, 2.5)
    assert out.tolist() == [3, 0]     # the oracle's output


@pytest.mark.parametrize("n, expected", [(0, 5), (3, 12)])     # the oracle's outputs
def test_variable_read_only_in_for_else(n, expected):
    @cuda.jit
    def k(out, n):
        v = 5
        for i in range(n):
            v = i + 10
        else:
            out[0] = v

    out = np.zeros(1, np.int64)
    k[1, 1](out, n)
    assert out[0] == expected


@pytest.mark.parametrize("n, expected", [(0, 5), (3, 13)])     # the oracle's outputs
def test_variable_read_only_in_while_else(n, expected):
    @cuda.jit
    def k(out, n):
        v = 5
        i = 0
        while i < n:
            i += 1
            v = i + 10
        else:
            out[0] = v

    out = np.zeros(1, np.int64)
    k[1, 1](out, n)
    assert out[0] == expected


@pytest.mark.parametrize("form", ["continue_never", "continue_dead", "break_dead"])
def test_inner_loop_value_after_a_jump(form):
    @cuda.jit
    def continue_never(out):
        v = 1
        for i in range(3):
            if i > 5:
                continue
            v = 0
            w = 0
            while w < 3:
                w += 1
                v = 3
        out[0] = v

    @cuda.jit
    def continue_dead(out):
        v = 1
        for i in range(3):
            if False:
                continue
            v = 0
            w = 0
            while w < 3:
                w += 1
                v = 3
        out[0] = v

    @cuda.jit
    def break_dead(out):
        v = 1
        for i in range(3):
            if False:
                break
            v = 0
            for w in range(3):
                v = 3
        out[0] = v

    k = {"continue_never": continue_never, "continue_dead": continue_dead, "break_dead": break_dead}[form]
    out = np.zeros(1, np.int64)
    k[1, 1](out)
    assert out[0] == 3     # the oracle's output (kfront had stored 0, 1 and 1)


def test_tile_shared_loop_of_indirect_reads():
    # Finding 4 (FINDINGS.md), its shared arrays sized for a (16, 16) block so that it also runs at the block shape
    # tile-shared tiles for: launched at the finding's block of 1 and at (16, 16), where the tiled variant runs. The
    # tile loads compute the index from its affine form (j is always i: the ranges decide the select), not by
    # cloning the index computation, which reaches v25, a value loaded before the loop that cannot be recomputed
    # (its compile failed before the fix, whatever the launch).
    @cuda.jit
    def k(out, a):
        sh = cuda.shared.array((16, 16), np.float64)
        ssum = cuda.shared.array(1, np.int64)
        if cuda.threadIdx.x == 0 and cuda.threadIdx.y == 0:
            ssum[0] = 0
        cuda.syncthreads()
        sh[cuda.threadIdx.y, cuda.threadIdx.x] = np.float64(0.0)
        cuda.atomic.add(ssum, 0, np.int64(-100))
        cuda.syncthreads()
        v25 = np.uint32((np.int64((np.int16(3) + (a[np.int64(0)] & np.int16(3)))) % np.int64(1048577)))
        for i in range(5):
            j = np.int64(i) if (np.int64(-100) <= v25) else np.int64(3)
            v = min(max(np.int64((np.int16(0) + a[np.int64((a[j] % np.int16(3)))])), np.int64(0)), np.int64(32))
            out[cuda.blockIdx.x, i] = v

    a = np.array([5, 1, 7, 2, 9, 4, 6, 8], np.int16)
    for block in (1, (16, 16)):
        out = np.zeros((4, 5), np.int64)
        k[4, block](out, a)
        assert out.tolist() == [[7, 1, 1, 7, 5]] * 4, block
