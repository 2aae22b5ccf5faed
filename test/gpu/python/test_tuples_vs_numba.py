"""GPU-only: kfront against numba-cuda on the same kernels and inputs (run by test/gpu/run_python_gpu.sh on the GPU
machine, where both are installed): tuple comparisons (==, != and the orderings; NaN, promotions between int and
float elements, tuples of different lengths, nested tuples), and the compile error both give for ordered complex
elements."""
import linecache
import os

import numpy as np
np.row_stack = np.vstack  # numba-cuda 0.30.4 still names np.row_stack, which NumPy 2.4 removed
import numba.cuda as ncuda  # the GPU machine has numba-cuda: missing, the suite fails (it is not skipped)
import pytest

from kfront import cuda as kcuda
from kfront import errors

os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")


def compile_both(src, name, **options):
    """The kernel `name` of src, compiled by numba-cuda and by kfront from the same text (registered with
    linecache: kfront reads source lines)."""
    kernels = []
    for module in (ncuda, kcuda):
        fname = "<tuples-vs-numba %s %s>" % (name, module.__name__)
        linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
        scope = {"cuda": module, "np": np}
        exec(compile(src, fname, "exec"), scope)
        kernels.append(module.jit(**options)(scope[name]))
    return kernels


COMPARE = """
def compare(a, b, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        u = (a[i, 0], a[i, 1])
        v = (b[i, 0], b[i, 1])
        out[i, 0] = u == v
        out[i, 1] = u != v
        out[i, 2] = u < v
        out[i, 3] = u <= v
        out[i, 4] = u > v
        out[i, 5] = u >= v
        w = (a[i, 0], a[i, 1], 1.0)
        out[i, 6] = u < w
        out[i, 7] = w >= v
        out[i, 8] = (u, 1) == (v, 1)
        out[i, 9] = (i, u[0]) <= (2, v[0])
        out[i, 10] = (u[0],) != u
"""


def test_comparisons_match_numba():
    vals = [-1.0, 0.0, 2.5, np.nan]
    grid = np.array(np.meshgrid(vals, vals, vals, vals)).reshape(4, -1).T
    a, b = np.ascontiguousarray(grid[:, :2]), np.ascontiguousarray(grid[:, 2:])
    outs = []
    for k in compile_both(COMPARE, "compare"):
        out = np.zeros((len(a), 11), dtype=np.bool_)
        k[(len(a) + 63) // 64, 64](a, b, out)
        outs.append(out)
    np.testing.assert_array_equal(outs[1], outs[0])


COMPLEX_ORDER = """
def complex_order(out, z):
    out[0] = (1, z) < (1, z)
"""


@pytest.mark.parametrize("src,name,args", [(COMPLEX_ORDER, "complex_order", (np.zeros(1, dtype=np.bool_), 1j))])
def test_refusals_match_numba(src, name, args):
    nk, kk = compile_both(src, name)
    with pytest.raises(Exception):  # numba-cuda's TypingError
        nk[1, 1](*args)
    with pytest.raises(errors.CompilerError):
        kk[1, 1](*args)
