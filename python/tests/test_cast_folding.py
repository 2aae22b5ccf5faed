"""kfront.cuda on the simulator (KFRONT_SIM=1 in the test command; on the GPU by test/gpu/run_python_gpu.sh): a cast
or integer operation of constants folded by the frontend gives what the same op computes at run time (one
definition: ir/op_semantics). `np.int8(300.0)` had folded to 44 (the low bits of 300) while `np.int8(x)` with
x = 300.0 saturated to 127; test/gpu/python/test_casts_vs_numba.py compares both with numba-cuda on the GPU."""
import math

import numpy as np
import pytest

from kfront import cuda

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = [300.0, -300.0, 1e10, -1e10, 1e30, -1e30, 2.0**63, -(2.0**63), 2.0**64, 127.9, -128.9, 255.5, -0.9, -1.0,
          math.inf, -math.inf, math.nan, 0.0, -0.0, 65535.7, 4294967295.5]


def literal(v):
    return "math.nan" if math.isnan(v) else "math.inf" if v == math.inf else "-math.inf" if v == -math.inf else repr(v)


@pytest.mark.parametrize("dtype", INTS)
def test_float_to_int_folds_as_run_time(dtype, tmp_path):
    """One kernel per value: the literal's cast is folded, the argument's runs; both must agree."""
    out = np.zeros(2, dtype)
    for n, v in enumerate(FLOATS):
        src = (f"import math\nimport numpy as np\n"
               f"def k(out, x):\n"
               f"    out[0] = np.{dtype}({literal(v)})\n"
               f"    out[1] = np.{dtype}(x)\n")
        path = tmp_path / f"cast_{dtype}_{n}.py"
        path.write_text(src)
        ns = {}
        exec(compile(src, str(path), "exec"), ns)
        cuda.jit(ns["k"])[1, 1](out, v)
        assert out[0] == out[1], (dtype, v, out)


def test_saturates():
    @cuda.jit
    def k(out):
        out[0] = np.int8(300.0)
        out[1] = np.uint8(-5.0)
        out[2] = np.int16(1e10)
        out[3] = np.int32(math.nan)

    out = np.zeros(4, np.int64)
    k[1, 1](out)
    assert out.tolist() == [127, 0, 32767, 0]


def test_integer_folds_as_run_time():
    # // and % of negative constants (Python's floor semantics) and wrapping casts, folded and at run time
    @cuda.jit
    def k(out, a, b):
        out[0] = np.int8(-7) // np.int8(2)
        out[1] = a // b
        out[2] = np.int8(-7) % np.int8(3)
        out[3] = a % np.int8(3)
        out[4] = np.uint8(np.uint8(250) + np.uint8(10))
        out[5] = np.uint8(np.uint8(a * -1 + 243) + np.uint8(10))
        out[6] = np.int16(-32768) // np.int16(-1)
        out[7] = np.int16(b * 0 - 32768) // np.int16(b * 0 - 1)

    out = np.zeros(8, np.int64)
    k[1, 1](out, np.int8(-7), np.int8(2))
    assert out[0] == out[1] == -4
    assert out[2] == out[3] == 2
    assert out[4] == out[5] == 4
    assert out[6] == out[7]
