"""GPU-only checks of the control side of the language (issue 12), run by test/gpu/run_python_gpu.sh on the GPU
machine (python/tests/test_language_control.py runs there too, on the GPU): the error record on the device
for raised exceptions (many raising threads, one reported, the context working after it; asynchronous launches
reporting at the synchronisation), UnboundLocalError, recursion in real device code (call stack), enum arguments
specialised per class, and raise in a device function (numba-cuda's xfail on the GPU)."""
import enum

import numpy as np
import pytest

from kfront import cuda


def test_runs_on_the_gpu():
    assert cuda.is_available()


@cuda.jit(debug=True)
def checked(a):
    i = cuda.grid(1)
    if i < a.size:
        if a[i] < 0:
            raise ValueError("negative", 1)
        a[i] = 2 * a[i]


def test_raise_many_threads_one_record_and_the_context_survives():
    a = -np.ones(1 << 20, dtype=np.int64)
    with pytest.raises(ValueError) as e:
        checked[(a.size + 255) // 256, 256](a)
    exc = e.value
    assert exc.exception == "ValueError: ('negative', 1)"
    assert 0 <= exc.thread[0] < 256 and exc.block[0] < a.size // 256
    b = np.arange(1000, dtype=np.int64)
    checked[4, 256](b)
    np.testing.assert_array_equal(b, 2 * np.arange(1000))


def test_raise_from_an_asynchronous_launch():
    d = cuda.to_device(np.array([1, 2, -3, 4], dtype=np.int64))
    with pytest.raises(ValueError, match="negative") as e:  # on the GPU at the synchronisation
        checked[1, 32](d)
        cuda.synchronize()
    assert e.value.thread == (2, 0, 0)
    cuda.synchronize()  # reported once


@cuda.jit
def unbound(a, n):
    i = cuda.grid(1)
    if i < a.size:
        if i < n:
            z = i * 3
        a[i] = z


def test_unbound_local_error_on_the_gpu():
    a = np.zeros(64, dtype=np.int64)
    unbound[1, 64](a, 64)
    np.testing.assert_array_equal(a, 3 * np.arange(64))
    with pytest.raises(UnboundLocalError) as e:
        unbound[1, 64](a, 40)
    assert 40 <= e.value.thread[0] < 64


@cuda.jit("int64(int64)", device=True)
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@cuda.jit(device=True)
def even(n):
    if n == 0:
        return 1
    return odd(n - 1)


@cuda.jit(device=True)
def odd(n):
    if n == 0:
        return 0
    return even(n - 1)


def test_recursion_on_the_gpu():
    @cuda.jit
    def k(out, parity):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = fib(i)
            parity[i] = even(i)

    out = np.zeros(25, dtype=np.int64)
    parity = np.zeros(25, dtype=np.int64)
    k[1, 32](out, parity)
    expect = [0, 1]
    for _ in range(23):
        expect.append(expect[-1] + expect[-2])
    np.testing.assert_array_equal(out, expect)
    np.testing.assert_array_equal(parity, [1 - i % 2 for i in range(25)])
    ptx = k.inspect_asm()  # the recursive functions are called, not inlined
    assert any("call.uni" in text and ".func" in text for text in ptx.values())


class Color(enum.Enum):
    red = 1
    green = 2


class Shape(enum.IntEnum):
    circle = 2
    square = 500


def test_enum_arguments_on_the_gpu():
    @cuda.jit
    def f(a, b, out):
        out[0] = a == b
        out[1] = a is b

    got = np.zeros(2, dtype=np.bool_)
    f[1, 1](Color.red, Color.red, got)
    np.testing.assert_array_equal(got, [True, True])
    f[1, 1](Color.red, Color.green, got)
    np.testing.assert_array_equal(got, [False, False])
    f[1, 1](Shape.circle, 2, got)
    np.testing.assert_array_equal(got, [True, False])
    assert len(f.overloads) == 2


def test_raise_in_device_function_on_the_gpu():
    @cuda.jit(device=True)
    def g():
        raise ValueError("Device Function Error")

    @cuda.jit(debug=True, opt=False)
    def kernel():
        g()

    with pytest.raises(ValueError, match="Device Function Error"):
        kernel[1, 1]()


def test_zero_division_in_debug_on_the_gpu():
    @cuda.jit(debug=True)
    def f(r, x):
        r[0] = 1.0 / x[0]

    with pytest.raises(ZeroDivisionError):
        f[1, 1](np.zeros(1), np.zeros(1))
