from numba import cuda, float64


@cuda.jit("int64(int64)", device=True)
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@cuda.jit("int64(int64)", device=True)
def is_even(n):
    if n == 0:
        return 1
    return is_odd(n - 1)


@cuda.jit("int64(int64)", device=True)
def is_odd(n):
    if n == 0:
        return 0
    return is_even(n - 1)


@cuda.jit(device=True)
def total(a, lo, hi):
    # the sum of a[lo:hi], halving the range
    if hi - lo == 1:
        return a[lo]
    mid = (lo + hi) // 2
    return total(a, lo, mid) + total(a, mid, hi)


@cuda.jit("void(int64[:], int64[:])")
def per_thread(out, parity):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = fib(i)
        parity[i] = is_even(i)


@cuda.jit("void(float64[:], float64[:])")
def block_sums(a, sums):
    # static shared memory and a recursive device function in one kernel
    tile = cuda.shared.array(8, dtype=float64)
    t = cuda.threadIdx.x
    tile[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    if t == 0:
        sums[cuda.blockIdx.x] = total(tile, 0, 8)


@cuda.jit(device=True)
def depth(n):
    if n == 0:
        return 0
    return depth(n - 1) + 1


@cuda.jit("void(int64[:], int64)")
def too_deep(out, n):
    out[0] = depth(n)
