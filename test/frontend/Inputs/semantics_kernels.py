# Kernels run both by kfront (simulator) and by numba-cuda's CUDA simulator; see ../sim_vs_numba.py.
import math
from numba import cuda

@cuda.jit(device=True)
def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x

@cuda.jit
def sem(a, out):
    t = cuda.threadIdx.x
    n = a.shape[0]
    k = 0
    out[k] = -7 // 2; k += 1
    out[k] = -7 % 3; k += 1
    v = int(a[1])
    out[k] = v // -3; k += 1
    out[k] = v % -3; k += 1
    out[k] = a[2] // 0.75; k += 1
    out[k] = a[2] % -0.75; k += 1
    out[k] = a[-1]; k += 1
    out[k] = a[-n]; k += 1
    out[k] = 2 ** 10; k += 1
    out[k] = v ** 3; k += 1
    out[k] = a[1] ** 2; k += 1
    out[k] = abs(-v); k += 1
    out[k] = min(a[0], a[1], a[2]); k += 1
    out[k] = max(v, 2); k += 1
    out[k] = round(a[2]); k += 1
    out[k] = math.floor(a[2]); k += 1
    out[k] = clamp(a[3], 0.0, 1.0); k += 1
    s = 0
    for i in range(10, 0, -3):
        s += i
    out[k] = s; k += 1
    s = 0
    j = 0
    while True:
        j += 1
        if j % 2 == 0:
            continue
        if j > 9:
            break
        s += j
    out[k] = s; k += 1
    s = 0
    for i in range(n):
        if a[i] < 0:
            break
        s += 1
    else:
        s = 100
    out[k] = s; k += 1
    x = 0
    for i in range(5):
        x = x + 0.5
    out[k] = x; k += 1
    c = 0
    for i in range(4):
        for q in range(4):
            if q > i:
                break
            c += q
    out[k] = c; k += 1
    out[k] = 1 if a[0] > 0 and a[1] > 0 else -1; k += 1
    out[k] = (a[0] > 0) + (a[1] < 0); k += 1
    out[k] = v << 3; k += 1
    out[k] = -v >> 1; k += 1
    out[k] = v ^ 5; k += 1
    out[k] = ~v; k += 1
    out[k] = 3 < v <= 10; k += 1
    tot = 0.0
    for e in a:
        tot += e
    out[k] = tot; k += 1
    out[k] = k
