# Kernels for the kfront run tests: lazy and eager, 1-D and 2-D, a scalar parameter.
import numpy as np
from numba import cuda


@cuda.jit
def foo_grid(input_array, output_array):
    i = cuda.grid(1)
    output_array[i] = input_array[i]


@cuda.jit("void(float32[:], int32)")
def scale(a, s):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= s


@cuda.jit
def axpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def transpose(src, dst):
    x, y = cuda.grid(2)
    if x < src.shape[0] and y < src.shape[1]:
        dst[y, x] = src[x, y]
