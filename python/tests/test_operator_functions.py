"""Python's operator module used as functions in kernels (on the simulator in CI), as numba-cuda's test_operator.py
uses it: the function passed in as a closure variable, bound by the embedder, and compared with the same operator
applied by NumPy on the host; integers, floats, float16, comparisons, unary operators, getitem/setitem, in-place
forms; and what numba-cuda does not type (operator.truth of a number, operator.abs of other than float16)."""
import operator

import numpy as np
import pytest

from kfront import cuda, errors

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod, operator.pow,
          operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv, operator.imod,
          operator.ipow]
BITWISE = [operator.lshift, operator.rshift, operator.and_, operator.or_, operator.xor, operator.ilshift,
           operator.irshift, operator.iand, operator.ior, operator.ixor]
COMPARE = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]


def binary_kernel(op):
    @cuda.jit
    def kernel(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = op(a[i], b[i])
    return kernel


@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.__name__)
def test_float_arithmetic(op):
    a = np.array([7.5, -3.25, 1e10, 0.5, 2.0])
    b = np.array([2.0, 0.75, -3.0, 4.0, -1.5])
    out = np.zeros_like(a)
    binary_kernel(op)[1, 8](a, b, out)
    with np.errstate(invalid="ignore"):  # (-3.25) ** 0.75 is nan in both
        np.testing.assert_allclose(out, op(a.copy(), b), rtol=1e-15)


@pytest.mark.parametrize("op", BINARY[:3] + BINARY[4:6] + BITWISE + COMPARE, ids=lambda op: op.__name__)
def test_integer_operators(op):
    a = np.array([7, -13, 100, 0, 5, -1], dtype=np.int64)
    b = np.array([2, 3, -7, 9, 1, 4], dtype=np.int64)
    if op in BITWISE[:2] + BITWISE[5:7]:
        b = np.abs(b)
    out = np.zeros(a.size, dtype=np.int64)
    binary_kernel(op)[1, 8](a, b, out)
    np.testing.assert_array_equal(out, op(a.copy(), b))


@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv, operator.iadd,
                                operator.itruediv] + COMPARE, ids=lambda op: op.__name__)
def test_float16(op):
    a = np.array([1.5, -2.25, 100.0, 0.125], dtype=np.float16)
    b = np.array([0.5, 3.0, -7.0, 0.125], dtype=np.float16)
    out = np.zeros(a.size, dtype=np.float16)
    binary_kernel(op)[1, 8](a, b, out)
    np.testing.assert_array_equal(out, op(a.copy(), b).astype(np.float16))


@cuda.jit
def unary(x, b, out, flags):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = operator.neg(x[i])
        out[i, 1] = operator.pos(x[i])
        out[i, 2] = operator.invert(x[i])
        flags[i, 0] = operator.not_(x[i])
        flags[i, 1] = operator.truth(b[i])
        flags[i, 2] = operator.not_(b[i])


def test_unary():
    x = np.array([0, 5, -7, 127], dtype=np.int8)
    b = np.array([True, False, True, False])
    out = np.zeros((4, 3), dtype=np.int64)
    flags = np.zeros((4, 3), dtype=np.bool_)
    unary[1, 4](x, b, out, flags)
    x64 = x.astype(np.int64)
    np.testing.assert_array_equal(out[:, 0], -x64)
    np.testing.assert_array_equal(out[:, 1], x64)
    np.testing.assert_array_equal(out[:, 2], ~x64)  # Numba widens int8 to int64 first
    np.testing.assert_array_equal(flags[:, 0], x == 0)
    np.testing.assert_array_equal(flags[:, 1], b)
    np.testing.assert_array_equal(flags[:, 2], ~b)


@cuda.jit
def half_abs(h, out):
    i = cuda.grid(1)
    if i < h.size:
        out[i] = operator.abs(h[i])


def test_float16_abs():
    h = np.array([-1.5, 2.0, -0.0, -65504.0], dtype=np.float16)
    out = np.zeros_like(h)
    half_abs[1, 4](h, out)
    np.testing.assert_array_equal(out, np.abs(h))


@cuda.jit
def items(m, out):
    i = cuda.grid(1)
    if i < m.shape[0]:
        row = operator.getitem(m, i)
        operator.setitem(out, (i, 0), operator.getitem(row, 1))
        operator.setitem(out, (i, 1), operator.getitem(m, (i, 2)))
        operator.setitem(operator.getitem(out, i), 2, operator.getitem(operator.getitem(m, i), -3))


def test_getitem_setitem():
    m = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = np.zeros((4, 3), dtype=np.float32)
    items[1, 4](m, out)
    np.testing.assert_array_equal(out, np.stack([m[:, 1], m[:, 2], m[:, -3]], axis=1))


def test_not_typed():
    def truth_of_int(out):
        out[0] = operator.truth(out[0])

    with pytest.raises(errors.CompilerError, match=r"operator.truth\(\) of int64 is not supported"):
        cuda.jit(truth_of_int)[1, 1](np.zeros(1, dtype=np.int64))

    def abs_of_float(out):
        out[0] = operator.abs(out[0])

    with pytest.raises(errors.CompilerError, match="float16 only"):
        cuda.jit(abs_of_float)[1, 1](np.zeros(1))
