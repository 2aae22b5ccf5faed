"""Tuples as kernel arguments (on the simulator in CI, on the GPU in the GPU suite): homogeneous (UniTuple),
heterogeneous and nested (Tuple), tuples of host arrays (copied in and back) and of device arrays, eager signatures
that spell tuples, the overloads they make, and numba-cuda's test_array_reshape with its shape passed as a tuple."""
import numpy as np
import pytest

from kfront import cuda, errors, float64, int64, void
from kfront.types import Tuple, UniTuple


@cuda.jit
def dot2(t, out):
    out[0] = t[0] * t[1] + len(t)


@cuda.jit
def nested(t, out):
    a, (b, c) = t
    out[0] = a + b * c
    out[1] = t[1][1]


@cuda.jit
def axpy_pair(arrays, coeffs):
    x, y = arrays
    i = cuda.grid(1)
    if i < x.size:
        y[i] = coeffs[0] * x[i] + coeffs[1]


def test_homogeneous_and_heterogeneous():
    out = np.zeros(1, dtype=np.int64)
    dot2[1, 1]((6, 7), out)
    assert out[0] == 44
    outf = np.zeros(1)
    dot2[1, 1]((1.5, 4), outf)  # Tuple((float64, int64)): another specialisation
    assert outf[0] == 8.0
    sigs = set(dot2.overloads)
    assert (UniTuple(int64, 2), int64[::1]) in sigs
    assert (Tuple((float64, int64)), float64[::1]) in sigs


def test_nested():
    out = np.zeros(2)
    nested[1, 1]((3, (2.5, np.float32(4))), out)
    assert list(out) == [13.0, 4.0]
    assert "void(Tuple((int64, Tuple((float64, float32)))), float64[::1])" in nested.overloads


def test_tuples_of_arrays():
    x = np.arange(50, dtype=np.float64)
    y = np.zeros_like(x)
    axpy_pair[1, 64]((x, y), (2.0, 1))
    np.testing.assert_array_equal(y, 2 * x + 1)  # a host array inside a tuple is copied back
    dx, dy = cuda.to_device(x), cuda.device_array_like(x)
    axpy_pair[1, 64]((dx, dy), (0.5, -1))
    np.testing.assert_array_equal(dy.copy_to_host(), 0.5 * x - 1)


def test_eager_signature_with_tuples():
    @cuda.jit("void(UniTuple(int64, 3), int64[:])")
    def sum3(t, out):
        out[0] = t[0] + t[1] + t[2]

    out = np.zeros(1, dtype=np.int64)
    sum3[1, 1]((1, 2, 3), out)
    assert out[0] == 6
    assert list(sum3.overloads) == [(UniTuple(int64, 3), int64[:])]
    with pytest.raises(TypeError):
        sum3[1, 1]((1, 2), out)

    @cuda.jit(void(Tuple((int64, float64)), float64[:]))
    def pair(t, out):
        out[0] = t[0] * t[1]

    outf = np.zeros(1)
    pair[1, 1]((3, 0.5), outf)
    assert outf[0] == 1.5


def test_specialize_keeps_the_tuple_signature():
    out = np.zeros(1, dtype=np.int64)
    spec = dot2.specialize((1, 2), out)
    assert spec.signatures == [(UniTuple(int64, 2), int64[::1])]
    spec[1, 1]((5, 5), out)
    assert out[0] == 27


def array_reshape1d(arr, newshape, got):
    y = arr.reshape(newshape)
    for i in range(y.shape[0]):
        got[i] = y[i]


def array_reshape2d(arr, newshape, got):
    y = arr.reshape(newshape)
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            got[i, j] = y[i, j]


def array_reshape3d(arr, newshape, got):
    y = arr.reshape(newshape)
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            for k in range(y.shape[2]):
                got[i, j, k] = y[i, j, k]


def test_numba_array_reshape():
    # numba-cuda's test_array.test_array_reshape: the new shape is a kernel argument (an int or a tuple)
    def check(kernelfunc, arr, shape):
        kernel = cuda.jit(kernelfunc)
        expected = arr.reshape(shape)
        got = np.zeros(expected.shape, dtype=arr.dtype)
        kernel[1, 1](arr, shape, got)
        np.testing.assert_array_equal(got, expected)

    def check_empty(arr):
        check(array_reshape1d, arr, 0)
        check(array_reshape1d, arr, (0,))
        check(array_reshape3d, arr, (1, 0, 2))

    arr = np.arange(24)
    check(array_reshape1d, arr, (24,))
    check(array_reshape2d, arr, (4, 6))
    check(array_reshape2d, arr, (8, 3))
    check(array_reshape3d, arr, (8, 1, 3))
    arr = np.arange(24).reshape((1, 8, 1, 1, 3, 1))
    check(array_reshape1d, arr, (24,))
    check(array_reshape2d, arr, (4, 6))
    check(array_reshape2d, arr, (8, 3))
    check(array_reshape3d, arr, (8, 1, 3))
    arr = np.arange(25).reshape(5, 5)
    check(array_reshape1d, arr, -1)
    check(array_reshape1d, arr, (-1,))
    check(array_reshape2d, arr, (-1, 5))
    check(array_reshape3d, arr, (5, -1, 5))
    check(array_reshape3d, arr, (5, 5, -1))
    check_empty(np.array([]))


def test_bad_tuples():
    with pytest.raises(errors.TypingError):
        nested[1, 1]((1, 2), np.zeros(2))  # t[1][1] of an int64
    deep = 1
    for _ in range(20):
        deep = (deep,)
    with pytest.raises(ValueError):
        dot2[1, 1](deep, np.zeros(1))
