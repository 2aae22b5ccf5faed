"""cuda.declare_device (kfront.cuda.linking): a foreign device function typed by its signature and called with
numba-cuda's ABI (`extern "C" __device__ int f(T *ret, args...)`). Compiling works (compile_ptx's PTX declares and
calls it); launching needs the runtime's link step, not built yet, so on the simulator the launch raises, naming the
function and saying it needs a GPU."""
import re

import numpy as np
import pytest

from kfront import config, cuda, errors
from kfront.types import float32

mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)")


def multiply(r, x, y):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = mul(x[i], y[i])


def test_compile_ptx_declares_and_calls_it():
    ptx, _ = cuda.compile_ptx(multiply, (float32[::1], float32[::1], float32[::1]))
    assert re.search(r"\.extern \.func\s+\(\.param \.b32 func_retval0\) mul_f32_f32", ptx)
    assert re.search(r"call\.uni\s+\(retval0\),\s+mul_f32_f32,", ptx)


def test_wrong_argument_count_is_a_located_typing_error():
    def bad(r, x):
        r[0] = mul(x[0])

    with pytest.raises(errors.TypingError) as e:
        cuda.compile_ptx(bad, (float32[::1], float32[::1]))
    assert "mul_f32_f32" in str(e.value) or "argument" in str(e.value)


@pytest.mark.skipif(not config.ENABLE_CUDASIM, reason="the simulator's message (a GPU says it cannot link yet)")
def test_simulator_says_it_needs_a_gpu():
    k = cuda.jit(multiply)
    x = np.arange(4, dtype=np.float32)
    r = np.zeros_like(x)
    with pytest.raises(errors.KfrontError, match="foreign device function .*simulator cannot run.*needs a GPU"):
        k[1, 4](r, x, x)
    y = np.zeros_like(x)   # the module still works after it

    @cuda.jit
    def copy(a, b):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = b[i]

    copy[1, 4](y, x)
    assert (y == x).all()
