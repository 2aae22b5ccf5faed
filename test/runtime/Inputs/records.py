import numpy as np
from numba import cuda

PT = np.dtype([("x", np.float32), ("n", np.int32)], align=True)


@cuda.jit
def bump(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i].x + a[i].y + a[i].v[0]
        a[i].y += 1
        a[i].r.q = a[i].v[2] * 2


@cuda.jit
def single(r, out):
    out[0] = r.x
    r.y = -r.y


@cuda.jit
def stage(a):
    tile = cuda.shared.array(8, dtype=PT)
    t = cuda.threadIdx.x
    tile[t].x = a[t]
    tile[t].n = t
    cuda.syncthreads()
    a[t] = tile[7 - t].x * tile[7 - t].n
