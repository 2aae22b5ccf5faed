"""Tuples indexed with an integer known only at run time, as numba-cuda's getitem_unituple (on the simulator in
CI, checked against numba-cuda in test/gpu/python/test_tuples_vs_numba.py): for a tuple whose elements share one
scalar type (Numba's UniTuple) a negative index counts from the end and one out of range raises IndexError; other
tuples are a located error, as Numba refuses them."""
import numpy as np
import pytest

from kfront import cuda, errors


@cuda.jit
def index_at_run_time(a, out):
    t = (a[0], a[1], a[2], a[3])
    for i in range(-4, 4):
        out[i + 4] = t[i]


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64, np.complex128, np.bool_])
def test_unituple_index_at_run_time(dtype):
    a = np.array([1, 0, 3, 4]).astype(dtype)
    out = np.zeros(8, dtype=dtype)
    index_at_run_time[1, 1](a, out)
    t = tuple(a)
    np.testing.assert_array_equal(out, [t[i] for i in range(-4, 4)])


@cuda.jit(debug=True, opt=False)
def pick(t, i, out):
    out[0] = t[i]


def test_unituple_index_out_of_range_raises():
    out = np.zeros(1, dtype=np.int64)
    for i, want in [(2, 30), (-3, 10), (np.uint8(1), 20)]:
        pick[1, 1]((10, 20, 30), i, out)
        assert out[0] == want
    for i in [3, -4, 1 << 40]:
        with pytest.raises(IndexError) as e:
            pick[1, 1]((10, 20, 30), i, out)
        assert e.value.exception == "IndexError: tuple index out of range"
        assert e.value.line == pick.py_func.__code__.co_firstlineno + 2


def test_out_of_range_without_debug_ends_the_thread():
    @cuda.jit
    def store(out, i):
        t = (1.0, 2.0)
        out[0] = -1.0
        out[0] = t[i]

    out = np.zeros(1)
    store[1, 1](out, 5)
    assert out[0] == -1.0
    store[1, 1](out, -1)
    assert out[0] == 2.0


def test_heterogeneous_index_at_run_time_is_a_located_error():
    @cuda.jit
    def hetero(out, i):
        t = (1, 2.5)
        out[0] = t[i]

    with pytest.raises(errors.CompilerError, match=r"must have elements of one scalar type .*Tuple\(int64, float64\)") as e:
        hetero[1, 1](np.zeros(1), 0)
    assert e.value.line == hetero.py_func.__code__.co_firstlineno + 3

    @cuda.jit
    def of_arrays(a, b, i):
        t = (a, b)
        t[i][0] = 1.0

    with pytest.raises(errors.CompilerError, match="must have elements of one scalar type"):
        of_arrays[1, 1](np.zeros(1), np.zeros(1), 0)


@cuda.jit
def extents(a, out):
    for d in range(-a.ndim, a.ndim):
        out[d + a.ndim] = a.shape[d]


def test_shape_indexed_at_run_time():
    a = np.zeros((2, 3, 5))
    out = np.zeros(6, dtype=np.int64)
    extents[1, 1](a, out)
    np.testing.assert_array_equal(out, [2, 3, 5, 2, 3, 5])
