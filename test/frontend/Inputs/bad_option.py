# An unknown cuda.jit option (diag_decorators.py).
from numba import cuda


@cuda.jit("void(float32[:])", fast_math=True)
def k(a):
    a[0] = 1
