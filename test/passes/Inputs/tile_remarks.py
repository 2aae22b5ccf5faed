from numba import cuda, float32


@cuda.jit('void(float32[:,:], float32[:,:], float32[:,:])')
def matmul(A, B, C):
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        acc = float32(0)
        for k in range(A.shape[1]):
            acc += A[i, k] * B[k, j]
        C[i, j] = acc
