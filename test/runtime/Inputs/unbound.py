from numba import cuda


@cuda.jit("void(float64[:], int64)")
def read_after(a, n):
    i = cuda.grid(1)
    if i < a.shape[0]:
        if i < n:
            z = 2.0 * i
        a[i] = z


@cuda.jit("void(float64[:], int64)")
def last_of_loop(a, n):
    i = cuda.grid(1)
    if i < a.shape[0]:
        for k in range(n - i):
            w = k + 0.5
        a[i] = w


@cuda.jit("void(float64[:], int64)")
def previous(a, n):
    for i in range(n):
        if i > 0:
            a[i] = prev
        prev = i * 1.5
