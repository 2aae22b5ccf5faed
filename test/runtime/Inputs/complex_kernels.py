import cmath
import numpy as np
from numba import cuda

Z = 1.5 - 2j
ZT = (Z * 2, -1j / Z)
ZA = np.array([[1 + 2j, -0.5j], [3, 4j]], dtype=np.complex64)


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


@cuda.jit
def consts(out, o64):
    out[0] = Z
    out[1] = ZT[0] + ZT[1]
    c = cuda.const.array_like(ZA)
    for i in range(2):
        for j in range(2):
            o64[i * 2 + j] = c[i, j] * ZA[j, i]
