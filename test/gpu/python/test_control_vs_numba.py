"""GPU-only: kfront against numba-cuda on the same kernels and inputs (run by test/gpu/run_python_gpu.sh on the GPU
machine, where both are installed): conditional expressions whose values are tuples (unified element by element),
tuples holding arrays and rows, arrays of different layouts; a grid group passed to and returned from device
functions, synchronised there (both kernels cooperative)."""
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
