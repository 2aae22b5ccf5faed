"""float() of a string constant in kernels, as numba-cuda types and lowers it (typing/builtins.py Float: a
StringLiteral gives float64; cpython/builtins.py float_literal_impl: the constant Python's float() makes of it):
nan and inf in any case and sign, infinity, decimal text with whitespace, a sign, a point, an exponent and
underscores; and bfloat16(float("nan")) with the bf16 intrinsics, as numba-cuda's test_bfloat16 writes them. Text
Python's float() refuses is a located error (ValueError's message). Expected values are numba-cuda's simulator's
(NUMBA_ENABLE_CUDASIM=1, numba-cuda 0.30.4) where it runs them (its simulator has no cuda.bf16 intrinsics: those
are NumPy's and IEEE's values)."""
import math

import numpy as np
import pytest

from kfront import cuda, errors

bf16 = cuda.bf16
SPACED = " -1_000.5e-1 "


def test_float_of_text_constants():
    @cuda.jit
    def kernel(out):
        out[0] = float("nan")
        out[1] = float("-inf")
        out[2] = float(SPACED)
        out[3] = float("Infinity")
        out[4] = float("+.5")
        out[5] = float("1e309")
        out[6] = float("0.1")
        out[7] = float("-NaN")
        out[8] = float("3.") + float("1E-2")

    out = np.zeros(9)
    kernel[1, 1](out)
    assert math.isnan(out[0]) and math.isnan(out[7]) and math.copysign(1, out[7]) == -1
    assert out[1:7].tolist() == [-math.inf, -100.05, math.inf, 0.5, math.inf, 0.1]
    assert out[8] == 3.01


def test_float_of_text_is_float64():
    @cuda.jit
    def kernel(out):
        x = float("0.1")
        out[0] = x * np.float32(1)  # float64 times float32: float64, so 0.1 stays exact in float64

    out = np.zeros(1)
    kernel[1, 1](out)
    assert out[0] == 0.1


def test_bfloat16_of_float_text():
    @cuda.jit
    def flags(out_bool, out_int):
        out_bool[0] = bf16.hisnan(bf16.bfloat16(float("nan")))
        out_int[0] = bf16.hisinf(bf16.bfloat16(float("inf")))

    ob = np.zeros(1, np.bool_)
    oi = np.zeros(1, np.int32)
    flags[1, 1](ob, oi)
    assert ob[0] and oi[0] != 0

    @cuda.jit
    def nan_max_min(out):
        a = bf16.bfloat16(float("nan"))
        b = bf16.bfloat16(2.0)
        out[0] = np.float32(bf16.hmax_nan(a, b))
        out[1] = np.float32(bf16.hmin_nan(a, b))
        out[2] = np.float32(bf16.hmax(a, b))
        out[3] = np.float32(bf16.hmin(a, b))

    out = np.zeros(4, np.float32)
    nan_max_min[1, 1](out)
    assert math.isnan(out[0]) and math.isnan(out[1]) and out[2:].tolist() == [2.0, 2.0]


@pytest.mark.parametrize("text", ["", "1_", "_1", "1__0", "0x10", "nan(1)", "1e", "infinit", ". 5", "e5"])
def test_text_python_refuses_is_a_located_error(text):
    @cuda.jit
    def kernel(out):
        out[0] = float(TEXT)

    kernel.py_func.__globals__["TEXT"] = text
    with pytest.raises(errors.TypingError, match="could not convert string to float: '%s'" % text.replace(".", r"\.").replace("(", r"\(").replace(")", r"\)")) as e:
        kernel[1, 1](np.zeros(1))
    assert e.value.line == kernel.py_func.__code__.co_firstlineno + 2
    with pytest.raises(ValueError):
        float(text)
