# Module-level constant arrays holding values a float32 cannot hold (they become inf) and NaN, read on the
# simulator (which once converted every element to an integer too: undefined behaviour for inf).
import numpy as np
from numba import cuda

BIG = np.array([1.0, 1e300, -1e300, np.nan], dtype=np.float32)
INTS = np.array([3, -4], dtype=np.int16)


@cuda.jit
def read_const(out):
    i = cuda.grid(1)
    if i < BIG.size:
        out[i] = BIG[i] + INTS[i % 2]
