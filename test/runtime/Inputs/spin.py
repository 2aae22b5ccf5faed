# A kernel that never ends (the simulator's limits stop it), and a kernel over any grid.
from numba import cuda


@cuda.jit
def spin(a):
    i = 0
    while a[0] >= 0:
        i += 1
    a[0] = i


@cuda.jit
def fill(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = i
