import cmath
from numba import cuda


@cuda.jit
def csq(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = cmath.sqrt(a[i]) * 1j


@cuda.jit("void(complex64[::1], float32[::1])")
def cabs(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = abs(a[i]) + a[i].imag


@cuda.jit
def scale(a, z, x):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * z + x
