from numba import cuda


@cuda.jit
def nested(t, out):
    a, (b, c) = t
    out[0] = a + b * c


@cuda.jit
def axpy(arrays, coeffs):
    x, y = arrays
    i = cuda.grid(1)
    if i < x.size:
        y[i] = coeffs[0] * x[i] + coeffs[1]
