"""thread-map (passes/thread_map.c, issue 24 item 1) differential-tested on the simulator: kernels as Numba users
write them (the 2-D increment, a 5-point Jacobi step, a transpose, the thread and block indices themselves, a 3-D
block, an IndexError at an edge) over C-order, F-order and sliced arrays, odd shapes and block shapes, aliasing
arguments, run with thread-map (this process) and without it (a child process under KFRONT_NO_THREAD_MAP=1), must
give the same bits, and the same IndexError message. The kernels thread-map rewrites carry its `thread_map`
attribute here and not in the child (inspect_kir), so the comparison is of two different compiles."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from kfront import cuda


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


def _mapped_kernels():
    """The names of the kernels whose compiled kir has the thread_map attribute."""
    names = []
    for k in (inc, jacobi, transpose, indices, indices3, scale_into, edge):
        kir = k.inspect_kir()
        if any("thread_map" in text for text in kir.values()):
            names.append(k.__name__)
    return sorted(names)


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    path = tmp_path_factory.mktemp("tmap") / "unmapped.npz"
    env = dict(os.environ, KFRONT_NO_THREAD_MAP="1", KFRONT_SIM="1")
    subprocess.run([sys.executable, __file__, str(path)], env=env, check=True, timeout=1200)
    with np.load(path, allow_pickle=False) as z:
        plain = {k: z[k] for k in z.files}
    return _results(), plain


def test_the_rewritten_kernels_are_the_expected_ones(both):
    mapped, plain = both
    # with thread-map: every kernel whose accesses are contiguous along y in C order (transpose is not)
    assert _mapped_kernels() == ["edge", "indices", "indices3", "inc", "jacobi", "scale_into"]
    assert json.loads(str(plain["__mapped__"])) == []


def test_each_case_is_bit_identical(both):
    mapped, plain = both
    names = sorted(mapped)
    assert sorted(k for k in plain if k != "__mapped__") == names
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
    res["__mapped__"] = np.array(json.dumps(_mapped_kernels()))
    np.savez(sys.argv[1], **res)
