"""GPU-only: kfront against numba-cuda on the same kernels and inputs (run by test/gpu/run_python_gpu.sh on the GPU
machine, where both are installed): tuple comparisons (==, != and the orderings; NaN, promotions between int and
float elements, tuples of different lengths, nested tuples) and homogeneous tuples indexed with an integer known
only at run time (negative indices; with debug=True the IndexError of an index out of range on the host, without
it the thread ending at the raise), and the compile errors both give for heterogeneous tuples indexed at run time
and for ordered complex elements."""
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
        out[i, 11] = a[i, 0] in (b[i, 0], b[i, 1], 2.5)
        out[i, 12] = a[i, 1] not in (b[i, 0], 0.0)
"""


def test_comparisons_match_numba():
    vals = [-1.0, 0.0, 2.5, np.nan]
    grid = np.array(np.meshgrid(vals, vals, vals, vals)).reshape(4, -1).T
    a, b = np.ascontiguousarray(grid[:, :2]), np.ascontiguousarray(grid[:, 2:])
    outs = []
    for k in compile_both(COMPARE, "compare"):
        out = np.zeros((len(a), 13), dtype=np.bool_)
        k[(len(a) + 63) // 64, 64](a, b, out)
        outs.append(out)
    np.testing.assert_array_equal(outs[1], outs[0])


INDEX = """
def index(a, out, lo):
    t = (a[0], a[1], a[2], a[3])
    for i in range(lo, 4):
        out[i - lo] = t[i]
"""


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64, np.complex64, np.bool_])
def test_run_time_index_matches_numba(dtype):
    a = np.array([3, 0, 1, 7]).astype(dtype)
    outs = []
    for k in compile_both(INDEX, "index"):
        out = np.zeros(8, dtype=dtype)
        k[1, 1](a, out, np.int64(-4))
        outs.append(out)
    np.testing.assert_array_equal(outs[1], outs[0])


PICK = """
def pick(out, i):
    t = (10, 20, 30)
    out[0] = -1
    out[0] = t[i]
"""


def test_out_of_range_matches_numba():
    nk, kk = compile_both(PICK, "pick", debug=True, opt=False)
    for i in [-3, -1, 0, 2]:
        outs = []
        for k in (nk, kk):
            out = np.zeros(1, dtype=np.int64)
            k[1, 1](out, i)
            outs.append(out[0])
        assert outs[0] == outs[1] == (10, 20, 30)[i]
    for i in [3, -4]:
        for k in (nk, kk):
            with pytest.raises(IndexError, match="tuple index out of range"):
                k[1, 1](np.zeros(1, dtype=np.int64), i)
    # without debug the thread ends at the raise, in both
    nk, kk = compile_both(PICK, "pick")
    for k in (nk, kk):
        out = np.zeros(1, dtype=np.int64)
        k[1, 1](out, 7)
        assert out[0] == -1


HETERO = """
def hetero(out, i):
    t = (1, 2.5)
    out[0] = t[i]
"""

COMPLEX_ORDER = """
def complex_order(out, z):
    out[0] = (1, z) < (1, z)
"""


@pytest.mark.parametrize("src,name,args", [(HETERO, "hetero", (np.zeros(1), 0)),
                                           (COMPLEX_ORDER, "complex_order", (np.zeros(1, dtype=np.bool_), 1j))])
def test_refusals_match_numba(src, name, args):
    nk, kk = compile_both(src, name)
    with pytest.raises(Exception):  # numba-cuda's TypingError
        nk[1, 1](*args)
    with pytest.raises(errors.CompilerError):
        kk[1, 1](*args)
