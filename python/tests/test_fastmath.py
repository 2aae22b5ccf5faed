"""fastmath=True (and any non-empty set or dict of flags, as numba-cuda 0.30.4 takes them) on the simulator and in
compile_ptx's text. The simulator computes the fast forms exactly (the float32 division correctly rounded, sin ...
pow as the precise ops), within the documented error of the GPU's approximations (docs/numeric.md); a float32
division under fastmath has no division-by-zero check, even with debug=True: it gives inf or nan where the
precise kernel raises ZeroDivisionError. compile_ptx shows the forms numba-cuda chooses (test/backend/fastmath.py
checks each)."""
import math

import numpy as np
import pytest

from kfront import cuda, float32, float64


def unary_kernels(fastmath):
    @cuda.jit(fastmath=fastmath)
    def k(r, x):
        i = cuda.grid(1)
        if i < x.shape[0]:
            v = x[i]
            r[i, 0] = math.sin(v)
            r[i, 1] = math.cos(v)
            r[i, 2] = math.tan(v)
            r[i, 3] = math.exp(v)
            r[i, 4] = math.log(v)
            r[i, 5] = math.log2(v)
            r[i, 6] = math.log10(v)
            r[i, 7] = math.tanh(v)
            r[i, 8] = math.pow(v, float32(1.5))
            r[i, 9] = v ** float32(0.5)
            r[i, 10] = v / float32(3.0)
    return k


@pytest.mark.simulator_only("the simulator computes fast forms as the precise ones; test/gpu/python/test_fastmath_vs_numba.py checks the GPU's")
@pytest.mark.parametrize("fastmath", [True, {"arcp"}, {"nnan": False}])
def test_fast_forms_compute_as_the_precise_ones(fastmath):
    x = np.linspace(0.01, 3.0, 97, dtype=np.float32)
    fast = np.zeros((x.size, 11), np.float32)
    prec = np.zeros_like(fast)
    unary_kernels(fastmath)[1, 128](fast, x)
    unary_kernels(False)[1, 128](prec, x)
    np.testing.assert_array_equal(fast, prec)
    ref = [np.sin, np.cos, np.tan, np.exp, np.log, np.log2, np.log10, np.tanh, lambda v: v ** np.float32(1.5),
           np.sqrt, lambda v: v / np.float32(3.0)]
    for j, f in enumerate(ref):
        np.testing.assert_allclose(fast[:, j], f(x.astype(np.float64)).astype(np.float32), rtol=4e-7, atol=0,
                                   err_msg="column %d" % j)


def div(r, x, y):
    r[0] = x / y


def test_fastmath_division_by_zero_does_not_raise_under_debug():
    sig = (float32[::1], float32, float32)
    fast = cuda.jit(sig, fastmath=True, debug=True, opt=False)(div)
    prec = cuda.jit(sig, debug=True, opt=False)(div)
    r = np.zeros(1, np.float32)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        prec[1, 1](r, 10.0, 0.0)
    fast[1, 1](r, 10.0, 0.0)
    assert r[0] == np.inf
    fast[1, 1](r, -0.0, 0.0)
    assert np.isnan(r[0])


def test_float64_division_keeps_its_check_under_fastmath():
    """numba-cuda's fast division is float32's only: a float64 division still raises under debug."""
    k = cuda.jit((float64[::1], float64, float64), fastmath=True, debug=True, opt=False)(div)
    with pytest.raises(ZeroDivisionError):
        k[1, 1](np.zeros(1), 1.0, 0.0)


def test_augmented_division_is_fast_too():
    def idiv(r, x, y):
        x /= y
        r[0] = x
    ptx, _ = cuda.compile_ptx(idiv, (float32[::1], float32, float32), fastmath=True, cc=(9, 0))
    assert "div.approx.ftz.f32" in ptx


@pytest.mark.parametrize("fastmath,fast", [(True, True), ({"arcp"}, True), ({"nnan": False}, True), ({}, False),
                                           (set(), False), (False, False)])
def test_compile_ptx_forms(fastmath, fast):
    def k(r, x, y):
        r[0] = x / y
        r[1] = math.sin(x)
        r[2] = math.log(x)
        r[3] = math.tanh(x)
    ptx, _ = cuda.compile_ptx(k, (float32[::1], float32, float32), fastmath=fastmath, cc=(9, 0))
    for form in ("div.approx.ftz.f32 ", "sin.approx.ftz.f32 ", "lg2.approx.ftz.f32 ", "tanh.approx.f32 "):
        assert (form in ptx) == fast, form
    assert ("div.rn.f32" in ptx) == (not fast)


def test_device_function_keeps_its_own_choice():
    """numba-cuda: the fast forms are each function's own; ftz and -prec-div=0 are the kernel's compile."""
    @cuda.jit(device=True)
    def quotient(a, b):
        return a / b

    @cuda.jit(device=True, fastmath=True)
    def fast_quotient(a, b):
        return a / b

    def k1(r, x, y):
        r[0] = quotient(x, y)

    def k2(r, x, y):
        r[0] = fast_quotient(x, y)
    sig = (float32[::1], float32, float32)
    assert "div.full.ftz.f32" in cuda.compile_ptx(k1, sig, fastmath=True, cc=(9, 0))[0]
    assert "div.approx.f32" in cuda.compile_ptx(k2, sig, cc=(9, 0))[0]
