# A decorator signature with a misspelt type (diag_decorators.py).
from numba import cuda


@cuda.jit("void(int32, flot32[:])")
def k(n, a):
    a[0] = n
