"""GPU-only: kfront against numba-cuda on the same kernels and inputs (run by test/gpu/run_python_gpu.sh on the GPU
machine, where both are installed): conditional expressions whose values are tuples (unified element by element),
tuples holding arrays and rows, arrays of different layouts; a grid group passed to and returned from device
functions, synchronised there (both kernels cooperative); slice objects (their fields as Numba fills them in,
indices(), arrays read and written through them, passed to and returned from device functions, in tuples, chosen
by a condition, carried around a loop, tuples sliced by constant ones) and the ValueError of a zero step."""
import linecache
import os

import numba.cuda as ncuda  # the GPU machine has numba-cuda: missing, the suite fails (it is not skipped)
import numpy as np
import pytest

from kfront import cuda as kcuda

os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")


def compile_both(src, name):
    """The kernel `name` of src, compiled by numba-cuda and by kfront from the same text (registered with
    linecache: kfront reads source lines)."""
    kernels = []
    for module in (ncuda, kcuda):
        fname = "<control-vs-numba %s %s>" % (name, module.__name__)
        linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
        scope = {"cuda": module, "np": np}
        exec(compile(src, fname, "exec"), scope)
        kernels.append(module.jit(scope[name]))
    return kernels


CONDITIONALS = """
def conditionals(out, m, x, i, c):
    t = (i, x) if c > 0 else (x, i)
    u = (x, (i, 1.5)) if c > 1 else (i, (x, 2.5))
    p, (q, r) = u
    v = m[0] if c > 0 else m[:, 1]
    s = 0.0
    for e in v:
        s += e
    k, w = (m[0, 0], m[1]) if c > 0 else (m[0, 1], m[2])
    acc = (0, 1)
    for j in range(c + 5):
        acc = (acc[1], acc[0] + acc[1]) if j % 2 == 0 else (acc[1], acc[0] + acc[1] + 1)
    out[0] = t[0] / 2
    out[1] = t[1] / 2
    out[2] = p + q + r
    out[3] = s
    out[4] = k + w[3]
    out[5] = acc[0] + acc[1]
"""


@pytest.mark.parametrize("c", [2, 1, 0])
def test_conditional_values_match_numba(c):
    m = np.arange(12.0).reshape(3, 4)
    outs = []
    for k in compile_both(CONDITIONALS, "conditionals"):
        out = np.zeros(6)
        k[1, 1](out, m, 0.25, 3, c)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])


GROUPS = """
@cuda.jit(device=True)
def row_step(g, M, row, col):
    M[row, col] = M[row - 1, M.shape[1] - col - 1] + 1
    return g.sync()


@cuda.jit(device=True)
def the_grid():
    return cuda.cg.this_grid()


def groups(M, status):
    col = cuda.grid(1)
    g = cuda.cg.this_grid()
    s = 0
    for row in range(1, M.shape[0]):
        s += row_step(g, M, row, col)
    the_grid().sync()
    status[col] = s + 7
"""


def test_grid_group_in_device_functions_matches_numba():
    outs = []
    for k in compile_both(GROUPS, "groups"):
        A = np.zeros((64, 1024), dtype=np.int32)
        status = np.zeros(1024, dtype=np.int32)
        k[8, 128](A, status)
        (overload,) = k.overloads.values()
        assert overload.cooperative
        outs.append((A, status))
    np.testing.assert_array_equal(outs[0][0], np.tile(np.arange(64), (1024, 1)).T)
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_array_equal(outs[0][1], outs[1][1])


SLICES = """
@cuda.jit(device=True)
def window(lo, hi, st):
    return slice(lo, hi, st)


@cuda.jit(device=True)
def sum_of(a, s):
    t = 0.0
    for v in a[s]:
        t += v
    return t


def slices(m, out, info, lo, hi, st, n):
    a = slice(n)
    b = slice(None, None, st)
    info[0] = a.start
    info[1] = a.stop
    info[2] = a.step
    info[3] = b.start
    info[4] = b.stop
    info[5] = b.step
    i, j, k = slice(lo, hi, st).indices(n)
    info[6] = i
    info[7] = j
    info[8] = k
    s = window(lo, hi, st)
    row = m[1, s]
    for q in range(len(row)):
        out[0, q] = row[q]
    t = (slice(1, 3), s)
    sub = m[t]
    for p in range(sub.shape[0]):
        for q in range(sub.shape[1]):
            out[1 + p, q] = sub[p, q]
    out[3, 0] = sum_of(m[0], s)
    c = slice(0, 1)
    for _ in range(n):
        c = slice(c.start + 1, c.stop + 2)
    out[3, 1] = len(m[0, c])
    u = (1, 2, 3, 4, 5)[slice(None, None, -2)]
    out[3, 2] = u[0] * 100 + u[1] * 10 + u[2]
    w = slice(1, None, st) if lo > 0 else slice(None, 2, st)
    m[4, w] = -5.0
    src = m[w, 4]  # (m[w, 5] = m[w, 4] itself: numba-cuda 0.30.4 wants NRT for an array copied into a slice)
    dst = m[w, 5]
    for q in range(src.shape[0]):
        dst[q] = src[q]
"""


@pytest.mark.parametrize("lo,hi,st", [(1, 5, 2), (-1, -7, -1), (0, 4, 1), (5, 0, -2)])
def test_slice_objects_match_numba(lo, hi, st):
    results = []
    for k in compile_both(SLICES, "slices"):
        m = np.arange(36.0).reshape(6, 6)
        out = np.zeros((4, 6))
        info = np.zeros(9, np.int64)
        k[1, 1](m, out, info, lo, hi, st, 2)
        results.append((m, out, info))
    for x, y in zip(*results):
        np.testing.assert_array_equal(x, y)


ZERO_STEP = """
def zero_step(a, z):
    v = a[slice(0, 4, z)]
    a[0] = len(v)
"""


def test_zero_step_raises_like_numba():
    numba_k, kfront_k = compile_both(ZERO_STEP, "zero_step")
    # numba-cuda raises in the kernel only with debug=True; kfront's run-time checks always report
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        kfront_k[1, 1](np.zeros(5), 0)
        kcuda.synchronize()
    ndebug = ncuda.jit(debug=True, opt=False)(numba_k.py_func)
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        ndebug[1, 1](np.zeros(5), 0)


GLOBAL_SLICES = """
EVERY = slice(None, None, 2)
BACK = slice(None, -6, -1)


def global_slices(a, out):
    v = a[EVERY]
    out[0] = len(v)
    out[1] = v[1]
    out[2] = EVERY.start
    out[3] = BACK.stop
    out[4] = a[BACK][0]
"""


def test_global_slices_match_numba():
    outs = []
    for k in compile_both(GLOBAL_SLICES, "global_slices"):
        out = np.zeros(5, np.int64)
        k[1, 1](np.arange(7, dtype=np.int64), out)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], [4, 2, 0, -6, 6])
    np.testing.assert_array_equal(outs[0], outs[1])
