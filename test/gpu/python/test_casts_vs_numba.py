"""GPU machine only (test/gpu/run_python_gpu.sh, numba-cuda installed): float-to-integer casts in kernels against
numba-cuda on the same GPU. For a value the type holds, both must agree, folded and at run time. Out of the type's
range and for NaN, numba-cuda's conversion is LLVM's fptosi/fptoui, whose result is poison (any value): on the H200
(2026-12-01) it gave np.int8(300.0) = 0 folded but 44 at run time, and NaN the type's minimum at run time, 0
folded. kfront defines those cases (ir/op_semantics: saturating, NaN 0, as PTX's cvt.rzi.sat) and folds a constant
as its run time computes it, so np.int8(300.0) is 127 both ways: there numba-cuda's answers are printed, not
compared, and kfront's literal must equal its run time."""
import math

import numba.cuda as ncuda  # the GPU machine has numba-cuda: missing, the suite fails (it is not skipped)
import numpy as np
import pytest

from kfront import cuda as kcuda

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = [300.0, -300.0, 1e10, -1e10, 1e30, -1e30, 2.0**63, -(2.0**63), 2.0**64, 127.9, -128.9, 255.5, -0.9, -1.0,
          math.inf, -math.inf, math.nan, 0.0, 65535.7, 4294967295.5, 3.7, -3.7]


def literal(v):
    return "math.nan" if math.isnan(v) else "math.inf" if v == math.inf else "-math.inf" if v == -math.inf else repr(v)


def in_range(v, dtype):
    info = np.iinfo(dtype)
    return not math.isnan(v) and info.min - 1 < v < info.max + 1


@pytest.mark.parametrize("dtype", INTS)
def test_casts_vs_numba(dtype, tmp_path):
    for n, v in enumerate(FLOATS):
        src = (f"import math\nimport numpy as np\n"
               f"def k(out, x):\n"
               f"    out[0] = np.{dtype}({literal(v)})\n"
               f"    out[1] = np.{dtype}(x)\n")
        path = tmp_path / f"cast_{dtype}_{n}.py"
        path.write_text(src)
        ns = {}
        exec(compile(src, str(path), "exec"), ns)
        kout = np.zeros(2, dtype)
        kcuda.jit(ns["k"])[1, 1](kout, v)
        nout = np.zeros(2, dtype)
        ncuda.jit(ns["k"])[1, 1](nout, v)
        assert kout[0] == kout[1], ("kfront's literal against its run time", dtype, v, kout)
        if in_range(v, dtype):
            assert kout[1] == nout[1], ("run time", dtype, v, kout, nout)
            assert kout[0] == nout[0], ("literal", dtype, v, kout, nout)
        elif (nout != kout).any():
            print(f"numba-cuda's np.{dtype}({literal(v)}) = {nout[0]} folded, {nout[1]} at run time (LLVM poison); "
                  f"kfront's {kout[0]}")
