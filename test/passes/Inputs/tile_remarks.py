from numba import cuda, float32


@cuda.jit('void(float32[:,:], float32[:,:], float32[:,:])')
def matmul(A, B, C):
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        acc = float32(0)
        for k in range(A.shape[1]):
            acc += A[i, k] * B[k, j]
        C[i, j] = acc


@cuda.jit('void(float32[:], float32[:])')
def stencil3(a, b):
    i = cuda.grid(1)
    if i >= 1 and i < a.shape[0] - 1:
        b[i] = float32(0.25) * a[i - 1] + float32(0.5) * a[i] + float32(0.25) * a[i + 1]


@cuda.jit('void(float32[:,:], float32[:,:])')
def jacobi5(u, v):
    i, j = cuda.grid(2)
    if i >= 1 and i < u.shape[0] - 1 and j >= 1 and j < u.shape[1] - 1:
        v[i, j] = float32(0.25) * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
