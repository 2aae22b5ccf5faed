# numeric_kernels.py — NumPy ufuncs, math functions and CUDA intrinsics in one kernel per float type, for
# test/gpu/run_gpu_tests.sh (checked by test/gpu/check_numeric.py against NumPy; on a GPU also against the
# simulator). The columns of `out` and `ints` are listed, in order, in check_numeric.py's COLUMNS.
import math

import numpy as np
from numba import cuda


@cuda.jit
def numeric(x, y, out, ints):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]
        b = y[i]
        out[i, 0] = np.sin(a)
        out[i, 1] = np.cos(a)
        out[i, 2] = np.exp(a)
        out[i, 3] = np.log(a)
        out[i, 4] = np.arctan2(a, b)
        out[i, 5] = np.hypot(a, b)
        out[i, 6] = np.power(a, b)
        out[i, 7] = np.logaddexp(a, b)
        out[i, 8] = np.cbrt(a)
        out[i, 9] = np.tanh(a)
        out[i, 10] = np.maximum(a, b)
        out[i, 11] = np.fmin(a, b)
        out[i, 12] = np.floor_divide(a, b)
        out[i, 13] = np.remainder(a, b)
        out[i, 14] = np.fmod(a, b)
        out[i, 15] = np.nextafter(a, b)
        out[i, 16] = np.spacing(a)
        out[i, 17] = np.copysign(a, b)
        out[i, 18] = np.sign(a)
        out[i, 19] = np.rint(a)
        out[i, 20] = np.sqrt(a)
        out[i, 21] = np.floor(a)
        out[i, 22] = math.remainder(a, b)
        out[i, 23] = cuda.fma(a, b, a)
        m, e = math.frexp(a)
        out[i, 24] = m
        ints[i, 0] = e
        out[i, 25] = math.ldexp(a, 5)
        fr, ip = math.modf(a)
        out[i, 26] = fr
        out[i, 27] = ip
        ints[i, 1] = np.isnan(a) + 2 * np.isinf(a) + 4 * np.signbit(a) + 8 * np.greater(a, b) + 16 * np.logical_and(a, b)
