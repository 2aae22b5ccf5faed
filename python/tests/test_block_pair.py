"""block-pair (passes/block_pair.c, issue 24) differential-tested on the simulator: the kernels and cases of
test_thread_map.py (the 2-D increment, a 5-point Jacobi step, a transpose, the thread and block indices and dims
themselves, 3-D blocks, an IndexError at an edge; C-order, F-order, row-sliced and strided arrays; odd grids, partial
blocks, blocks 16x16, 17x16, 32x8, 8x32, 1x1, 3x5; aliasing arguments) and a 1-D kernel, run in a child process with
block-pair's launch variants (KFRONT_BLOCK_PAIR=1) and in one without any transform (KFRONT_NO_THREAD_MAP=1), must
give the same bits and the same IndexError message. A deliberately racy kernel shows the order the simulator ran the
threads in: that the variant ran, two logical blocks side by side per block, two logical threads per thread."""
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

from kfront import config, cuda

_spec = importlib.util.spec_from_file_location("tmap_cases", os.path.join(os.path.dirname(__file__),
                                                                         "test_thread_map.py"))
tm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tm)


@cuda.jit
def inc1(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def _cases():
    cases = tm._cases()
    for n, block in [(1000, 16), (33, 32), (1, 1)]:
        def run_inc1(n=n, block=block):
            a = tm._base((n,), 7)
            inc1[(n + block - 1) // block, block](a)
            return a
        cases[f"inc1-{n}-{block}"] = run_inc1
    for lay in ["C", "F"]:
        def run_short(lay=lay):  # an odd grid smaller than the array: the last pair's missing half must not run
            a = tm._layout(tm._base((48, 64), 5), lay)
            tm.inc[(3, 3), (16, 16)](a)
            return a
        cases[f"short-grid-{lay}"] = run_short
    return cases


def _results():
    out = {}
    for name, run in _cases().items():
        r = run()
        out[name] = r if isinstance(r, str) else np.ascontiguousarray(r)
    return out


def _order(block, grid):
    a = np.zeros((block[0] * grid[0], block[1] * grid[1]), np.int32)
    tm.order[grid, block](a, np.zeros((1, 1), np.int32))
    return a


ORDERS = [((16, 16), (1, 2)), ((8, 32), (2, 2)), ((16, 16), (1, 3))]


def _child(tmp_path_factory, tag, **env):
    path = tmp_path_factory.mktemp("bpair") / (tag + ".npz")
    e = {k: v for k, v in os.environ.items() if k not in ("KFRONT_BLOCK_PAIR", "KFRONT_NO_THREAD_MAP")}
    e.update(KFRONT_SIM="1", **env)
    subprocess.run([sys.executable, __file__, str(path)], env=e, check=True, timeout=1800)
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    return (_child(tmp_path_factory, "paired", KFRONT_BLOCK_PAIR="1"),
            _child(tmp_path_factory, "plain", KFRONT_NO_THREAD_MAP="1"))


@pytest.mark.skipif(not config.ENABLE_CUDASIM, reason="simulator only: the race observes the order the simulator runs "
                    "a block's threads in, one after another")
def test_the_variant_ran(both):
    """With block-pair the physical thread p of a (bx, by) block runs q = p, then q = bx*by + p of the pair of
    logical blocks (2b, 2b+1) along y: threadIdx.x = q / (2*by), blockIdx.y = 2b + (q % (2*by)) / by, threadIdx.y =
    (q % (2*by)) % by. Without any transform, the user's order (y * bx + x within each block)."""
    paired, plain = both
    for block, grid in ORDERS:
        bx, by = block
        want = np.zeros((bx * grid[0], by * grid[1]), np.int32)
        rank = 0
        for gx in range(grid[0]):
            for pb in range((grid[1] + 1) // 2):
                for p in range(bx * by):
                    for k in range(2):
                        q = k * bx * by + p
                        tx, r = q // (2 * by), q % (2 * by)
                        lb, ty = 2 * pb + r // by, r % by
                        if lb < grid[1]:
                            rank += 1
                            want[gx * bx + tx, lb * by + ty] = rank
        key = "order-%dx%d-%dx%d" % (block + grid)
        np.testing.assert_array_equal(paired[key], want, err_msg=key)
        x, y = np.meshgrid(np.arange(bx), np.arange(by), indexing="ij")
        np.testing.assert_array_equal(plain[key][:bx, :by], y * bx + x + 1, err_msg=key)


def test_each_case_is_bit_identical(both):
    paired, plain = both
    names = sorted(k for k in paired if not k.startswith("order-"))
    assert sorted(k for k in plain if not k.startswith("order-")) == names
    assert len(names) > 250
    diffs = []
    for name in names:
        m, p = paired[name], plain[name]
        if m.dtype.kind == "U":
            if str(p) != str(m):
                diffs.append(f"{name}: {str(m)!r} != {str(p)!r}")
        elif m.dtype != p.dtype or m.shape != p.shape or m.tobytes() != p.tobytes():
            diffs.append(name)
    assert not diffs, diffs


def test_the_results_are_right(both):
    """Against NumPy, so that two equally wrong runs cannot pass."""
    paired, _ = both
    for si, shape in enumerate(tm.SHAPES):
        want = tm._base(shape, si) + 1
        for block in tm.BLOCKS:
            for lay in tm.LAYOUTS:
                np.testing.assert_array_equal(paired[f"inc-{shape[0]}x{shape[1]}-{block[0]}x{block[1]}-{lay}"], want)
            got = paired[f"indices-{shape[0]}x{shape[1]}-{block[0]}x{block[1]}"]
            x, y = np.meshgrid(np.arange(shape[0]), np.arange(shape[1]), indexing="ij")
            g = tm._blocks(shape, block)
            np.testing.assert_array_equal(got[0], (x % block[0]) * 1000 + block[0])
            np.testing.assert_array_equal(got[1], (y % block[1]) * 1000 + block[1])
            np.testing.assert_array_equal(got[2], (x // block[0]) * 1000 + g[0])
            np.testing.assert_array_equal(got[3], (y // block[1]) * 1000 + g[1])
            msg = str(paired[f"edge-{shape[0]}x{shape[1]}-{block[0]}x{block[1]}"])
            assert f"index {shape[1]} is out of bounds for axis 1 with size {shape[1]}" in msg, msg
    np.testing.assert_array_equal(paired["inc1-1000-16"], tm._base((1000,), 7) + 1)
    for lay in ["C", "F"]:
        want = tm._base((48, 64), 5)
        want[:, :48] += 1
        np.testing.assert_array_equal(paired[f"short-grid-{lay}"], want)


if __name__ == "__main__":  # a child: every case under this process's environment, into the .npz named by argv[1]
    res = _results()
    for blk, grd in ORDERS:
        res["order-%dx%d-%dx%d" % (blk + grd)] = _order(blk, grd)
    np.savez(sys.argv[1], **res)
