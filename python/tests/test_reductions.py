"""NumPy's whole-array reductions in kernels (np.sum/prod/min/amin/max/amax/all/any/mean/var/std/count_nonzero,
the nan* ones and the array methods sum/prod/min/max/all/any/mean/var/std), on the simulator against NumPy: every dtype kind (bool, signed and
unsigned integers, float32/float64, complex), arrays of rank 1 to 3 and views of any layout (reversed, stepped,
transposed), NaN, empty arrays (min/max raise ValueError as numba-cuda does; sum 0, prod 1, mean NaN, all True, any
False). Sums of integers and booleans accumulate in int64 (uint64 for unsigned), as NumPy's default accumulator and
numba's typing; floating sums add in C order one element at a time, as numba-cuda's loops do, so they are compared
exactly with such a loop and closely with NumPy's pairwise sum. An axis, and any other argument, is refused with a
located error."""
import functools
import linecache

import numpy as np
import pytest

from kfront import cuda, errors


@cuda.jit
def functions(a, sums, mins, flags, counts):
    sums[0] = np.sum(a)
    sums[1] = np.prod(a)
    sums[2] = np.mean(a)
    mins[0] = np.min(a)
    mins[1] = np.amin(a)
    mins[2] = np.max(a)
    mins[3] = np.amax(a)
    flags[0] = np.all(a)
    flags[1] = np.any(a)
    counts[0] = np.count_nonzero(a)


@cuda.jit
def methods(a, sums, mins, flags):
    sums[0] = a.sum()
    sums[1] = a.prod()
    sums[2] = a.mean()
    mins[0] = a.min()
    mins[1] = a.max()
    flags[0] = a.all()
    flags[1] = a.any()


@cuda.jit
def of_views(a, sums, mins):
    v = a[::-1, 1::2].T
    sums[0] = v.sum()
    sums[1] = np.sum(a[1])
    sums[2] = np.prod(a[:, 0, ::-1])
    mins[0] = v.min()
    mins[1] = np.max(a[0])


def accumulator(dtype):
    """numba's: int64 for signed integers and booleans, uint64 for unsigned, the dtype itself otherwise."""
    if dtype == np.bool_ or np.issubdtype(dtype, np.signedinteger):
        return np.dtype(np.int64)
    if np.issubdtype(dtype, np.unsignedinteger):
        return np.dtype(np.uint64)
    return dtype


def in_order(a, op, start):
    """op applied element by element in C order from `start` (numba-cuda's nditer loop)."""
    with np.errstate(all="ignore"):
        return functools.reduce(op, (start.dtype.type(x) for x in a.ravel()), start)


def expected(a):
    acc = accumulator(a.dtype)
    s = in_order(a, lambda x, y: acc.type(x + y), np.zeros((), acc)[()])
    p = in_order(a, lambda x, y: acc.type(x * y), np.ones((), acc)[()])
    mean_t = np.float64 if acc.kind in "iu" else a.dtype.type  # accumulated in that type, divided in float64
    with np.errstate(all="ignore"):
        m = in_order(a, lambda x, y: mean_t(x + y), mean_t(0)) / np.float64(a.size)
    return s, p, m


ARRAYS = [
    np.array([True, False, True, True]),
    np.array([[100, 27], [-128, 127], [90, 90]], dtype=np.int8),  # its sum does not fit in int8
    np.arange(1, 13, dtype=np.int32).reshape(3, 4),
    np.array([200, 255, 3, 0], dtype=np.uint8),
    np.array([2**63, 2**63 + 5, 7], dtype=np.uint64),  # a uint64 sum that wraps, as NumPy's does
    np.array([-(2**40), 3, 2**40 + 9, 0, -5], dtype=np.int64),
    (np.arange(24, dtype=np.float32).reshape(2, 3, 4) * np.float32(0.1)) - np.float32(1.05),
    np.linspace(-3.3, 7.1, 17),
]


@pytest.mark.parametrize("a", ARRAYS, ids=lambda a: f"{a.dtype}-{a.ndim}d")
def test_functions_and_methods_against_numpy(a):
    acc = accumulator(a.dtype)
    mean_t = np.float64 if a.dtype.kind in "biuf" else np.complex128
    s, p, m = expected(a)
    sums, mins = np.zeros(3, acc), np.zeros(4, a.dtype)
    means = np.zeros(3, mean_t)
    flags, counts = np.zeros(2, np.bool_), np.zeros(1, np.int64)
    functions[1, 1](a, sums, mins, flags, counts)
    functions[1, 1](a, means, mins, flags, counts)  # the mean, stored without converting it
    assert sums[0] == s and sums[1] == p
    assert means[2] == m
    np.testing.assert_allclose(means[2], np.mean(a), rtol=1e-6)
    if a.dtype.kind in "biu":
        assert sums[0] == np.sum(a) and sums[1] == np.prod(a)
    else:
        np.testing.assert_allclose(sums[0], np.sum(a), rtol=1e-5)
    assert list(mins) == [a.min(), a.min(), a.max(), a.max()]
    assert list(flags) == [np.all(a), np.any(a)] and counts[0] == np.count_nonzero(a)

    sums2, mins2, flags2 = np.zeros(3, acc), np.zeros(2, a.dtype), np.zeros(2, np.bool_)
    methods[1, 1](a, sums2, mins2, flags2)
    assert sums2[0] == s and sums2[1] == p
    assert list(mins2) == [a.min(), a.max()] and list(flags2) == [a.all(), a.any()]


def test_result_types():
    """int8 sums to int64 (no wrap), uint8 to uint64, bool to int64; float32 stays float32, its mean too."""
    a = np.full(300, 100, dtype=np.int8)
    sums = np.zeros(3, np.int64)
    methods[1, 1](a, sums, np.zeros(2, np.int8), np.zeros(2, np.bool_))
    assert sums[0] == 30000 and sums[2] == 100.0
    f = np.full(10, np.float32(0.1))
    fs = np.zeros(3, np.float64)
    methods[1, 1](f, fs, np.zeros(2, np.float32), np.zeros(2, np.bool_))
    # a float32 sum, added in float32 one by one, then stored in float64; the mean divides it in float64 (numba-cuda's
    # overload returns float64 for a float32 array)
    assert fs[0] == in_order(f, lambda x, y: np.float32(x + y), np.float32(0))
    assert fs[0] != np.float64(f.astype(np.float64).sum())
    assert fs[2] == np.float64(fs[0]) / 10 and fs[2] != np.float32(fs[2])


def test_views():
    a = np.arange(1.0, 25.0).reshape(2, 3, 4) * 1.25
    sums, mins = np.zeros(3), np.zeros(2)
    of_views[1, 1](a, sums, mins)
    v = a[::-1, 1::2].T
    assert sums[0] == in_order(v, lambda x, y: x + y, np.float64(0))
    assert sums[1] == in_order(a[1], lambda x, y: x + y, np.float64(0))
    assert sums[2] == in_order(a[:, 0, ::-1], lambda x, y: x * y, np.float64(1))
    assert list(mins) == [v.min(), a[0].max()]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan(dtype):
    a = np.array([[1.5, -2.0], [np.nan, 4.0], [-np.inf, 0.0]], dtype=dtype)
    sums, mins, flags = np.zeros(3, dtype), np.zeros(2, dtype), np.zeros(2, np.bool_)
    methods[1, 1](a, sums, mins, flags)
    assert np.isnan(sums).all() and np.isnan(mins).all()  # NaN propagates through sum, prod, mean, min, max
    assert list(flags) == [False, True]  # the zero makes all() False; NaN is true
    b = np.array([np.nan, 0.0, np.nan], dtype=dtype)
    methods[1, 1](b, sums, mins, flags)
    assert np.isnan(mins).all() and list(flags) == [False, True]
    c = np.array([0.0, -0.0, np.inf], dtype=dtype)
    methods[1, 1](c, sums, mins, flags)
    assert sums[0] == np.inf and np.isnan(sums[1]) and mins[0] == 0.0 and mins[1] == np.inf


def test_complex():
    a = np.array([[1 + 2j, -3.5j], [0.5, 2 - 1j]], dtype=np.complex128)
    sums, flags, counts = np.zeros(3, np.complex128), np.zeros(2, np.bool_), np.zeros(1, np.int64)

    @cuda.jit
    def k(a, sums, flags, counts):
        sums[0] = a.sum()
        sums[1] = np.prod(a)
        sums[2] = a.mean()
        flags[0] = np.all(a)
        flags[1] = a.any()
        counts[0] = np.count_nonzero(a)

    k[1, 1](a, sums, flags, counts)
    s = in_order(a, lambda x, y: x + y, np.complex128(0))
    assert sums[0] == s and sums[1] == in_order(a, lambda x, y: x * y, np.complex128(1)) and sums[2] == s / 4
    assert list(flags) == [True, True] and counts[0] == 4
    k[1, 1](np.array([0j, 1j]), sums, flags, counts)
    assert list(flags) == [False, True] and counts[0] == 1


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.uint16, np.float32, np.float64])
def test_empty(dtype):
    a = np.zeros((3, 0), dtype=dtype)
    sums, flags, counts = np.zeros(3), np.zeros(2, np.bool_), np.zeros(1, np.int64)

    @cuda.jit
    def k(a, sums, flags, counts):
        sums[0] = np.sum(a)
        sums[1] = a.prod()
        sums[2] = np.mean(a)
        flags[0] = a.all()
        flags[1] = np.any(a)
        counts[0] = np.count_nonzero(a)

    k[1, 1](a, sums, flags, counts)
    assert sums[0] == 0 and sums[1] == 1 and np.isnan(sums[2])
    assert list(flags) == [True, False] and counts[0] == 0

    @cuda.jit
    def kmin(a, out):
        out[0] = np.min(a)

    @cuda.jit
    def kmax(a, out):
        out[0] = a.max()

    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum which has no identity"):
        kmin[1, 1](a, np.zeros(1))
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum which has no identity"):
        kmax[1, 1](a, np.zeros(1))


@cuda.jit
def spreads(a, out):
    out[0] = np.var(a)
    out[1] = a.std()
    out[2] = a.var()
    out[3] = np.std(a)
    out[4] = np.nansum(a)
    out[5] = np.nanprod(a)
    out[6] = np.nanmean(a)
    out[7] = np.nanvar(a)
    out[8] = np.nanstd(a)
    out[9] = np.nanmin(a)
    out[10] = np.nanmax(a)


def numba_var(a, skip_nan):
    """numba-cuda's array_var/np_nanvar: the mean, then squared differences summed in float64 in C order."""
    vals = [x for x in a.ravel() if not (skip_nan and np.isnan(x))]
    acc_t = np.float64 if a.dtype.kind in "biu" or skip_nan else a.dtype.type
    m = functools.reduce(lambda x, y: acc_t(x + y), vals, acc_t(0)) / np.float64(len(vals))
    ssd = functools.reduce(lambda x, y: x + np.float64(y - m) ** 2, vals, np.float64(0))
    return ssd / len(vals)


@pytest.mark.parametrize("a", [
    np.arange(1, 13, dtype=np.int32).reshape(3, 4)[:, ::-1],
    np.array([[3, 0], [250, 7]], dtype=np.uint8),
    np.array([True, False, True]),
    np.linspace(-2.0, 5.0, 11, dtype=np.float32).reshape(1, 11),
    np.array([1.5, np.nan, 2.25, -4.0, np.nan, 3.0]),
    (np.arange(24.0).reshape(2, 3, 4) * 0.37)[1:, ::2, 1::2],
], ids=lambda a: f"{a.dtype}-{a.ndim}d")
def test_spreads_and_nan_reductions(a):
    out = np.zeros(11)
    spreads[1, 1](a, out)
    with np.errstate(all="ignore"):
        for k in range(4):
            if np.isnan(a).any():
                assert np.isnan(out[k])
            else:
                want = numba_var(a, False) ** (1.0 if k % 2 == 0 else 0.5)
                assert out[k] == want or np.isclose(out[k], want, rtol=1e-15, atol=0)
                np.testing.assert_allclose(out[k], (np.var if k % 2 == 0 else np.std)(a.astype(np.float64)), rtol=1e-12)
        np.testing.assert_allclose(out[4:9], [np.nansum(a), np.nanprod(a), np.nanmean(a.astype(np.float64)),
                                              np.nanvar(a.astype(np.float64)), np.nanstd(a.astype(np.float64))],
                                   rtol=1e-5 if a.dtype == np.float32 else 1e-12)
        assert out[7] == numba_var(a, True) or np.isclose(out[7], numba_var(a, True), rtol=1e-15, atol=0)
    assert out[9] == np.nanmin(a) and out[10] == np.nanmax(a)


def test_nan_reductions_of_nothing():
    out = np.zeros(11)

    @cuda.jit
    def counted(a, out):
        out[4] = np.nansum(a)
        out[5] = np.nanprod(a)
        out[6] = np.nanmean(a)
        out[7] = np.nanvar(a)
        out[8] = np.nanstd(a)

    counted[1, 1](np.array([np.nan, np.nan]), out)
    assert out[4] == 0 and out[5] == 1 and np.isnan(out[6:9]).all()  # no element counted: 0/0
    out = np.zeros(11)
    spreads[1, 1](np.array([np.nan, np.nan]), out)
    assert np.isnan(out[9]) and np.isnan(out[10])  # nothing replaces the first element
    with pytest.raises(ValueError, match="zero-size array to reduction operation not possible"):
        spreads[1, 1](np.zeros((0, 2)), out)


def test_nanmin_ties_are_numbas():
    """numba-cuda's nanmin replaces its answer by any later element it is not below: of 0.0 and -0.0 the last wins
    (NumPy's answer may be either)."""
    out = np.zeros(11)
    spreads[1, 1](np.array([0.0, np.nan, -0.0]), out)
    assert np.signbit(out[9]) and np.signbit(out[10])
    spreads[1, 1](np.array([-0.0, 0.0]), out)
    assert not np.signbit(out[9]) and not np.signbit(out[10])


@cuda.jit
def axis_keyword(a, out):
    out[0] = a.sum(axis=0)


@cuda.jit
def axis_positional(a, out):
    out[0] = np.max(a, 0)


@cuda.jit
def min_of_complex(a, out):
    out[0] = a.min()


@cuda.jit
def sum_of_scalar(a, out):
    out[0] = np.sum(a[0])


@pytest.mark.parametrize("kernel, text, msg", [
    (axis_keyword, "axis=0", "sum(): the axis argument is not supported by kfront (whole-array reductions only)"),
    (axis_positional, "0)", "np.max(): the axis argument is not supported by kfront (whole-array reductions only)"),
    (min_of_complex, "a.min()", "min() of an array of complex128 is not supported by kfront"),
    (sum_of_scalar, "a[0]", "np.sum() of float64 is not supported by kfront (an array only)"),
])
def test_refusals_are_located(kernel, text, msg):
    a = np.ones(3, dtype=np.complex128 if kernel is min_of_complex else np.float64)
    with pytest.raises(errors.CompilerError) as e:
        kernel[1, 1](a, np.zeros(1, a.dtype))
    s = str(e.value)
    assert msg in s
    line = kernel.py_func.__code__.co_firstlineno + 2
    col = linecache.getline(__file__, line).index(text) + 1
    assert f"test_reductions.py:{line}:{col}:" in s


def test_nansum_nanprod_of_uint64_wrap_as_int64():
    """numba-cuda 0.30.4 (on the H200) returns an integer array's nansum/nanprod as intp: of uint64 elements the
    64-bit wrapping sum and product, their bits read as int64"""
    @cuda.jit
    def wrapped(a, out):
        out[0] = np.nansum(a)
        out[1] = np.nanprod(a)

    a = np.array([2**63, 5, 2**64 - 1], np.uint64)
    out = np.zeros(2, np.int64)
    wrapped[1, 1](a, out)
    total = (2**63 + 5 + 2**64 - 1) % 2**64
    product = (2**63 * 5 * (2**64 - 1)) % 2**64
    assert out.tolist() == [total - 2**64 if total >= 2**63 else total, product - 2**64 if product >= 2**63 else product]


_ZERO_D_GLOBAL = np.array(7.5)


def test_zero_d_arrays_reduce_as_numpys():
    # numba-cuda's test_count_nonzero_basic has np.array(0) among its cases; a 0-d parameter, a 0-d global
    @cuda.jit
    def kernel(out, p):
        out[0] = np.count_nonzero(p)
        out[1] = np.sum(p) + p.sum()
        out[2] = np.max(p) + p.min()
        out[3] = np.mean(_ZERO_D_GLOBAL) + _ZERO_D_GLOBAL.prod()
        out[4] = np.count_nonzero(_ZERO_D_GLOBAL) + np.all(p) + p.any()
        out[5] = np.var(p) + np.std(_ZERO_D_GLOBAL)

    for value in (0.0, -3.0, 2.5):
        p = np.array(value)
        out = np.zeros(6)
        kernel[1, 1](out, p)
        g = _ZERO_D_GLOBAL
        expect = [np.count_nonzero(p), np.sum(p) + p.sum(), np.max(p) + p.min(), np.mean(g) + g.prod(),
                  np.count_nonzero(g) + np.all(p) + p.any(), np.var(p) + np.std(g)]
        assert out.tolist() == expect, value
