"""thread-map (passes/thread_map.c, issue 24 item 1) differential-tested on the simulator: kernels as Numba users
write them (the 2-D increment, a 5-point Jacobi step, a transpose, the thread and block indices themselves, a 3-D
block, an IndexError at an edge) over C-order, F-order and sliced arrays, odd shapes and block shapes, aliasing
arguments, run with thread-map (this process) and without it (a child process under KFRONT_NO_THREAD_MAP=1), must
give the same bits, and the same IndexError message. A deliberately racy kernel shows the order the simulator ran
the threads in: that the two processes ran different mappings, and which."""
import os
import subprocess
import sys

import numpy as np
import pytest

from kfront import config, cuda


@cuda.jit
def inc(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


@cuda.jit
def jacobi(a, b):
    i, j = cuda.grid(2)
    if 0 < i < a.shape[0] - 1 and 0 < j < a.shape[1] - 1:
        b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])


@cuda.jit
def transpose(a, b):
    i, j = cuda.grid(2)
    if i < b.shape[0] and j < b.shape[1]:
        b[i, j] = a[j, i]


@cuda.jit
def indices(tx, ty, bx, by):
    """Each element names the logical thread that wrote it: thread-map must keep them exact."""
    x, y = cuda.grid(2)
    if x < tx.shape[0] and y < tx.shape[1]:
        tx[x, y] = cuda.threadIdx.x * 1000 + cuda.blockDim.x
        ty[x, y] = cuda.threadIdx.y * 1000 + cuda.blockDim.y
        bx[x, y] = cuda.blockIdx.x * 1000 + cuda.gridDim.x
        by[x, y] = cuda.blockIdx.y * 1000 + cuda.gridDim.y


@cuda.jit
def indices3(out):
    x, y, z = cuda.grid(3)
    if z < out.shape[0] and x < out.shape[1] and y < out.shape[2]:
        out[z, x, y] = (cuda.threadIdx.z * 64 + cuda.threadIdx.x) * 64 + cuda.threadIdx.y


@cuda.jit
def scale_into(a, out):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        out[x, y] = a[x, y] * np.float32(1.5) + np.float32(0.25)


@cuda.jit
def order(a, seq):
    """A deliberate race, to observe the physical order: the simulator runs the threads of a block one after another
    (they do not cooperate), so each element gets the rank of the thread that ran it."""
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        seq[0, 0] += 1
        a[x, y] = seq[0, 0]


def _order(block):
    a = np.zeros(block, np.int32)
    order[1, block](a, np.zeros((1, 1), np.int32))
    return a


@cuda.jit(boundscheck=True)
def edge(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y + 1] += 1  # the last column's threads index one past the end


def _blocks(shape, block):
    return tuple((n + b - 1) // b for n, b in zip(shape, block))


def _base(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# each layout the arrays come in: C, F order, a C-contiguous row slice, a strided (layout A) view
def _layout(a, kind):
    if kind == "C":
        return np.ascontiguousarray(a)
    if kind == "F":
        return np.asfortranarray(a)
    if kind == "rows":
        big = np.zeros((a.shape[0] + 5, a.shape[1]), a.dtype)
        big[3:3 + a.shape[0]] = a
        return big[3:3 + a.shape[0]]
    big = np.zeros((a.shape[0] * 2, a.shape[1] * 3), a.dtype)
    big[::2, ::3] = a
    return big[::2, ::3]


SHAPES = [(1000, 37), (1, 1), (33, 17), (64, 64)]
BLOCKS = [(16, 16), (17, 16), (32, 8), (8, 32), (1, 1), (3, 5)]
LAYOUTS = ["C", "F", "rows", "strided"]


def _cases():
    """name -> a function computing the case's result (an array, or the IndexError's message)."""
    cases = {}
    for si, shape in enumerate(SHAPES):
        for block in BLOCKS:
            for lay in LAYOUTS:
                def run_inc(shape=shape, block=block, lay=lay, si=si):
                    a = _layout(_base(shape, si), lay)
                    inc[_blocks(shape, block), block](a)
                    return a
                cases[f"inc-{shape[0]}x{shape[1]}-{block[0]}x{block[1]}-{lay}"] = run_inc

                def run_jacobi(shape=shape, block=block, lay=lay, si=si):
                    a = _layout(_base(shape, si + 10), lay)
                    b = _layout(np.zeros(shape, np.float32), lay)
                    jacobi[_blocks(shape, block), block](a, b)
                    return b
                cases[f"jacobi-{shape[0]}x{shape[1]}-{block[0]}x{block[1]}-{lay}"] = run_jacobi
            def run_transpose(shape=shape, block=block, si=si):
                a = _base(shape[::-1], si + 20)
                b = np.zeros(shape, np.float32)
                transpose[_blocks(shape, block), block](a, b)
                return b
            cases[f"transpose-{shape[0]}x{shape[1]}-{block[0]}x{block[1]}"] = run_transpose

            def run_indices(shape=shape, block=block):
                outs = [np.zeros(shape, np.int32) for _ in range(4)]
                indices[_blocks(shape, block), block](*outs)
                return np.stack(outs)
            cases[f"indices-{shape[0]}x{shape[1]}-{block[0]}x{block[1]}"] = run_indices

            def run_edge(shape=shape, block=block):
                a = np.zeros(shape, np.float32)
                try:
                    edge[_blocks(shape, block), block](a)
                except IndexError as e:
                    return "IndexError: " + str(e)
                return "no error"
            cases[f"edge-{shape[0]}x{shape[1]}-{block[0]}x{block[1]}"] = run_edge
    for block in [(16, 16, 2), (8, 4, 3), (5, 7, 1)]:
        def run_indices3(block=block):
            out = np.zeros((5, 21, 19), np.int32)
            grid = _blocks((21, 19, 5), block)
            indices3[grid, block](out)
            return out
        cases[f"indices3-{block[0]}x{block[1]}x{block[2]}"] = run_indices3
    for block in [(16, 16), (32, 8)]:
        for lay in ["C", "F"]:
            def run_alias(block=block, lay=lay):
                a = _layout(_base((100, 70), 3), lay)
                scale_into[_blocks(a.shape, block), block](a, a)  # out is a: each thread its own element
                return a
            cases[f"alias-{block[0]}x{block[1]}-{lay}"] = run_alias
    return cases


def _results():
    out = {}
    for name, run in _cases().items():
        r = run()
        out[name] = r if isinstance(r, str) else np.ascontiguousarray(r)
    return out


ORDER_BLOCKS = [(16, 16), (32, 8), (4, 8)]


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    path = tmp_path_factory.mktemp("tmap") / "unmapped.npz"
    env = dict(os.environ, KFRONT_NO_THREAD_MAP="1", KFRONT_SIM="1")
    subprocess.run([sys.executable, __file__, str(path)], env=env, check=True, timeout=1200)
    with np.load(path, allow_pickle=False) as z:
        plain = {k: z[k] for k in z.files}
    return _results(), plain


@pytest.mark.skipif(not config.ENABLE_CUDASIM, reason="simulator only: the race observes the order the simulator runs "
                    "a block's threads in, one after another; on a GPU they run at once (GPU run 2026-12-02 19:12)")
def test_the_two_processes_ran_different_mappings(both):
    """So that the comparison is of two different compiles: with thread-map consecutive physical threads run
    consecutive threadIdx.y (the logical thread (x, y) of a (bx, by) block is the (x * by + y)-th to run), without it
    consecutive threadIdx.x (the (y * bx + x)-th)."""
    _, plain = both
    for block in ORDER_BLOCKS:
        x, y = np.meshgrid(np.arange(block[0]), np.arange(block[1]), indexing="ij")
        np.testing.assert_array_equal(_order(block), x * block[1] + y + 1)
        np.testing.assert_array_equal(plain["order-%dx%d" % block], y * block[0] + x + 1)
    # and the kernel the pass declines (its accesses are contiguous along x): the same order in both
    @cuda.jit
    def order_swapped(a, seq):
        y, x = cuda.grid(2)
        if x < a.shape[0] and y < a.shape[1]:
            seq[0, 0] += 1
            a[x, y] = seq[0, 0]
    a = np.zeros((8, 8), np.int32)
    order_swapped[1, (8, 8)](a, np.zeros((1, 1), np.int32))
    r, c = np.meshgrid(np.arange(8), np.arange(8), indexing="ij")
    np.testing.assert_array_equal(a, r * 8 + c + 1)  # a[x, y] with x = threadIdx.y: run in the user's order


def test_each_case_is_bit_identical(both):
    mapped, plain = both
    names = sorted(mapped)
    assert sorted(k for k in plain if not k.startswith("order-")) == names
    diffs = []
    for name in names:
        m, p = mapped[name], plain[name]
        if isinstance(m, str):
            if str(p) != m:
                diffs.append(f"{name}: {m!r} != {str(p)!r}")
        elif m.dtype != p.dtype or m.shape != p.shape or m.tobytes() != p.tobytes():
            diffs.append(name)
    assert not diffs, diffs


def test_the_results_are_right(both):
    """Against NumPy, so that two equally wrong compiles cannot pass."""
    mapped, _ = both
    for si, shape in enumerate(SHAPES):
        want = _base(shape, si) + 1
        for block in BLOCKS:
            for lay in LAYOUTS:
                np.testing.assert_array_equal(mapped[f"inc-{shape[0]}x{shape[1]}-{block[0]}x{block[1]}-{lay}"], want)
            got = mapped[f"indices-{shape[0]}x{shape[1]}-{block[0]}x{block[1]}"]
            x, y = np.meshgrid(np.arange(shape[0]), np.arange(shape[1]), indexing="ij")
            g = _blocks(shape, block)
            np.testing.assert_array_equal(got[0], (x % block[0]) * 1000 + block[0])
            np.testing.assert_array_equal(got[1], (y % block[1]) * 1000 + block[1])
            np.testing.assert_array_equal(got[2], (x // block[0]) * 1000 + g[0])
            np.testing.assert_array_equal(got[3], (y // block[1]) * 1000 + g[1])
            msg = mapped[f"edge-{shape[0]}x{shape[1]}-{block[0]}x{block[1]}"]
            assert msg.startswith("IndexError: "), msg
            assert f"index {shape[1]} is out of bounds for axis 1 with size {shape[1]}" in msg, msg
    a = _base((40, 30), 1)
    want = np.zeros_like(a)
    want[1:-1, 1:-1] = np.float32(0.25) * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
    b = np.zeros_like(a)
    jacobi[_blocks(a.shape, (16, 16)), (16, 16)](a, b)
    np.testing.assert_allclose(b, want, rtol=1e-6)


if __name__ == "__main__":  # the child: every case without thread-map, into the .npz named by argv[1]
    res = _results()
    for blk in ORDER_BLOCKS:
        res["order-%dx%d" % blk] = _order(blk)
    np.savez(sys.argv[1], **res)
