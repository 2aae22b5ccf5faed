# A kernel that calls into libdevice (math.sin): compiling it to PTX needs libNVVM and libdevice both.
import math

from numba import cuda


@cuda.jit("void(float64[:])")
def sines(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = math.sin(a[i])
