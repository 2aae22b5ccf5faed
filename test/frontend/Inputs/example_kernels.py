# Classic Numba CUDA examples (Black-Scholes, histogram, reductions, stencil, Mandelbrot, warp sums) run both
# by kfront (simulator) and by numba-cuda's CUDA simulator; see ../sim_vs_numba.py.
import math
import numpy as np
from numba import cuda, float32, int32, float64

RISKFREE = 0.02
VOLATILITY = 0.30
A1 = 0.31938153
A2 = -0.356563782
A3 = 1.781477937
A4 = -1.821255978
A5 = 1.330274429
RSQRT2PI = 0.39894228040143267793994605993438

@cuda.jit(device=True)
def cnd_cuda(d):
    K = 1.0 / (1.0 + 0.2316419 * math.fabs(d))
    ret_val = (RSQRT2PI * math.exp(-0.5 * d * d) *
               (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5))))))
    if d > 0:
        ret_val = 1.0 - ret_val
    return ret_val

@cuda.jit
def black_scholes_cuda(callResult, putResult, S, X, T, R, V):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if i >= S.shape[0]:
        return
    sqrtT = math.sqrt(T[i])
    d1 = (math.log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrtT)
    d2 = d1 - V * sqrtT
    cndd1 = cnd_cuda(d1)
    cndd2 = cnd_cuda(d2)
    expRT = math.exp((-1. * R) * T[i])
    callResult[i] = (S[i] * cndd1 - X[i] * expRT * cndd2)
    putResult[i] = (X[i] * expRT * (1.0 - cndd2) - S[i] * (1.0 - cndd1))

@cuda.jit
def histogram(x, xmin, xmax, histogram_out):
    nbins = histogram_out.shape[0]
    bin_width = (xmax - xmin) / nbins
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        bin_number = np.int32((x[i] - xmin) / bin_width)
        if bin_number >= 0 and bin_number < histogram_out.shape[0]:
            cuda.atomic.add(histogram_out, bin_number, 1)

@cuda.jit
def sum_reduce(a, out):
    s = cuda.shared.array(128, float64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    s[tid] = a[i] if i < a.shape[0] else 0.0
    cuda.syncthreads()
    step = cuda.blockDim.x // 2
    while step > 0:
        if tid < step:
            s[tid] += s[tid + step]
        cuda.syncthreads()
        step //= 2
    if tid == 0:
        cuda.atomic.add(out, 0, s[0])

@cuda.jit
def stencil(a, out):
    i, j = cuda.grid(2)
    n, m = a.shape
    if 0 < i < n - 1 and 0 < j < m - 1:
        out[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

@cuda.jit
def mandel(out, max_iter):
    x, y = cuda.grid(2)
    h, w = out.shape
    if x < h and y < w:
        cr = -2.0 + 3.0 * y / w
        ci = -1.5 + 3.0 * x / h
        zr = 0.0
        zi = 0.0
        it = 0
        while it < max_iter and zr * zr + zi * zi < 4.0:
            zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci
            it += 1
        out[x, y] = it

@cuda.jit
def warp_sum(a, out):
    i = cuda.grid(1)
    v = a[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        cuda.atomic.add(out, 0, v)
