from numba import cuda


@cuda.jit
def hello(a):
    i = cuda.grid(1)
    print(i, "of", cuda.blockIdx.x, a[i] > 1.5, a[i])
    if i == 0:
        print("done")
