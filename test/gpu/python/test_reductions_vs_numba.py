"""GPU-only: NumPy's whole-array reductions in kfront against numba-cuda on the same kernels and inputs (run by
test/gpu/run_python_gpu.sh on the GPU machine): np.sum/prod/min/amin/max/amax/all/any/mean/var/std/count_nonzero,
np.nansum/nanprod/nanmin/nanmax/nanmean/nanvar/nanstd and the methods sum/prod/min/max/all/any/mean/var/std, over bool, signed and unsigned integers, float32/float64 with NaN and
infinities, complex, arrays of rank 1 to 3 and non-contiguous views, and empty arrays. numba-cuda compiles these
only with its NRT enabled (they allocate nothing; its typing asks for it), set here around its compiles and
launches. Both add in C order one element at a time, so every result must be bit for bit the same."""
import linecache
import os

import numba.cuda as ncuda  # the GPU machine has numba-cuda: missing, the suite fails (it is not skipped)
import numpy as np
import pytest

from kfront import cuda as kcuda

os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
np.row_stack = np.vstack  # numba-cuda 0.30.4 on NumPy 2

REDUCE = """
def reduce(a, sums, mins, flags, counts):
    v = a[::-1]
    sums[0] = np.sum(a)
    sums[1] = a.prod()
    sums[2] = np.mean(a)
    sums[3] = v.sum()
    sums[4] = v.mean()
    flags[0] = np.all(a)
    flags[1] = a.any()
    flags[2] = v.all()
    counts[0] = np.count_nonzero(a)
    if a.size:
        mins[0] = np.min(a)
        mins[1] = a.max()
        mins[2] = np.amin(v)
        mins[3] = np.amax(v)
"""

COMPLEX = """
def reduce_complex(a, sums, flags, counts):
    sums[3] = np.var(a)
    sums[4] = np.nanmean(a)
    sums[5] = np.nansum(a)
    sums[0] = a.sum()
    sums[1] = np.prod(a)
    sums[2] = a.mean()
    flags[0] = a.all()
    flags[1] = np.any(a)
    counts[0] = np.count_nonzero(a)
"""


SPREADS = """
def spreads(a, out, cout):
    out[0] = np.var(a)
    out[1] = a.std()
    out[2] = np.mean(a)
    out[3] = np.nanvar(a)
    out[4] = np.nanstd(a)
    cout[0] = np.nanmean(a)
    cout[1] = np.nansum(a)
    cout[2] = np.nanprod(a)
    if a.size:
        cout[3] = np.nanmin(a)
        cout[4] = np.nanmax(a)
"""


def compile_both(src, name):
    kernels = []
    for module in (ncuda, kcuda):
        fname = "<reductions-vs-numba %s %s>" % (name, module.__name__)
        linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
        scope = {"cuda": module, "np": np}
        exec(compile(src, fname, "exec"), scope)
        kernels.append(module.jit(scope[name]))
    return kernels


def with_numba_nrt(fn):
    old = ncuda.config.CUDA_ENABLE_NRT
    ncuda.config.CUDA_ENABLE_NRT = True  # numba-cuda types these reductions only with its NRT on
    try:
        return fn()
    finally:
        ncuda.config.CUDA_ENABLE_NRT = old


def as_each_takes(arr):
    """The array as numba-cuda takes it, then as kfront does: numba-cuda 0.30.4 copies no reversed, transposed or
    stepped host array on the H200 (cuda.core: "Buffer size is too small for the layout", "negative memory offsets"),
    so it gets a C-order copy; the reductions walk C order either way, kfront the view itself."""
    return np.ascontiguousarray(arr), arr


def accumulator(dtype):
    if dtype == np.bool_ or np.issubdtype(dtype, np.signedinteger):
        return np.int64
    if np.issubdtype(dtype, np.unsignedinteger):
        return np.uint64
    return dtype


rng = np.random.default_rng(11)
ARRAYS = [
    np.array([True, False, True]),
    np.ones((2, 3), dtype=np.bool_),
    rng.integers(-128, 128, size=(5, 7), dtype=np.int8),
    rng.integers(0, 60000, size=(3, 4, 5), dtype=np.uint16),
    rng.integers(-1000, 1000, size=40, dtype=np.int32),
    np.array([2**63, 2**63 + 5, 7], dtype=np.uint64),
    rng.integers(-(2**40), 2**40, size=(6, 6), dtype=np.int64)[::2, 1::3],
    rng.random((4, 9), dtype=np.float32)[:, ::-2] - np.float32(0.5),
    rng.random((3, 5, 7)).transpose(2, 0, 1) - 0.5,
    np.array([1.5, np.nan, -np.inf, 0.0]),
    np.array([0.0, -0.0, np.inf], dtype=np.float32),
    np.zeros(0),
    np.zeros((3, 0), dtype=np.int32),
]


@pytest.mark.parametrize("arr", ARRAYS, ids=lambda a: f"{a.dtype}-{a.shape}")
def test_reductions_match_numba(arr):
    a = arr
    mean_t = np.float64 if a.dtype.kind in "biu" else a.dtype
    results = []

    def run_both():
        for k, a in zip(compile_both(REDUCE, "reduce"), as_each_takes(arr)):
            sums = np.zeros(5, np.float64 if a.dtype.kind in "biu" else a.dtype)
            if a.dtype.kind in "biu":  # the sum and product in their accumulator, the means in float64
                sums = np.zeros(5, accumulator(a.dtype))
            mins, flags, counts = np.zeros(4, a.dtype), np.zeros(3, np.bool_), np.zeros(1, np.int64)
            means = np.zeros(5, mean_t)
            k[1, 1](a, sums, mins, flags, counts)
            k[1, 1](a, means, mins, flags, counts)
            results.append((sums, means, mins, flags, counts))

    with_numba_nrt(run_both)
    (nsums, nmeans, *nrest), (ksums, kmeans, *krest) = results
    np.testing.assert_array_equal(ksums[[0, 1, 3]], nsums[[0, 1, 3]])  # (the means stored as integers are not compared:
    np.testing.assert_array_equal(kmeans[[2, 4]], nmeans[[2, 4]])  # an empty array's NaN converts to no defined int)
    for got, want in zip(krest, nrest):
        np.testing.assert_array_equal(got, want)
    sums, means, mins, flags, counts = results[1]
    assert flags[0] == np.all(a) and flags[1] == np.any(a) and counts[0] == np.count_nonzero(a)
    if a.size:
        assert mins[0] == a.min() or (np.isnan(mins[0]) and np.isnan(a).any())


SPREAD_ARRAYS = [
    np.arange(1, 13, dtype=np.int32).reshape(3, 4)[:, ::-1],
    np.array([[3, 0], [250, 7]], dtype=np.uint8),
    np.array([2**63, 5, 2**64 - 1], dtype=np.uint64),  # nansum/nanprod: the wrapping 64-bit result as int64
    np.array([True, False, True]),
    np.linspace(-2.0, 5.0, 11, dtype=np.float32).reshape(1, 11),
    np.array([1.5, np.nan, 2.25, -4.0, np.nan, 3.0, 0.0, -0.0]),
    np.array([np.nan, np.nan], dtype=np.float32),
    rng.random((3, 4, 5)).transpose(1, 2, 0)[::2],
    np.zeros(0),
]


@pytest.mark.parametrize("arr", SPREAD_ARRAYS, ids=lambda a: f"{a.dtype}-{a.shape}")
def test_spreads_and_nan_reductions_match_numba(arr):
    a = arr
    results = []

    def run_both():
        for k, a in zip(compile_both(SPREADS, "spreads"), as_each_takes(arr)):
            out, cout = np.zeros(5), np.zeros(5, a.dtype if a.dtype.kind == "f" else np.float64)
            k[1, 1](a, out, cout)
            results.append((out, cout))

    with_numba_nrt(run_both)
    for got, want in zip(results[1], results[0]):
        np.testing.assert_array_equal(got, want)


def test_complex_reductions_match_numba():
    arr = np.array([[1 + 2j, -3.5j], [0.5, 2 - 1j]])[:, ::-1]
    results = []

    def run_both():
        for k, a in zip(compile_both(COMPLEX, "reduce_complex"), as_each_takes(arr)):
            sums, flags, counts = np.zeros(6, np.complex128), np.zeros(2, np.bool_), np.zeros(1, np.int64)
            k[1, 1](a, sums, flags, counts)
            results.append((sums, flags, counts))

    with_numba_nrt(run_both)
    for got, want in zip(results[1], results[0]):
        np.testing.assert_array_equal(got, want)
