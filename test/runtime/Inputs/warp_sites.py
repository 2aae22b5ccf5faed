# Warp ops at different sites, for test/runtime/warp-sites.test: PTX (sm_70 on) matches them among the lanes the
# mask names whatever instruction each lane executes, when the ops agree (kind, mode, mask).
from numba import cuda
import numpy as np


@cuda.jit
def swap_halves(out, mask_lo, mask_hi):
    # each half shuffles at its own site: lane t gets lane t ^ 16's value
    t = cuda.threadIdx.x
    if t % 32 < 16:
        out[t] = cuda.shfl_xor_sync(mask_lo, t * 10, 16)
    else:
        out[t] = cuda.shfl_xor_sync(mask_hi, t * 10 + 1, 16)


@cuda.jit
def ballot_halves(out):
    t = cuda.threadIdx.x
    if t < 16:
        out[t] = cuda.ballot_sync(0xFFFFFFFF, t % 3 == 0)
    else:
        out[t] = cuda.ballot_sync(0xFFFFFFFF, t % 5 == 0)


@cuda.jit
def mirror_halves(out):
    # syncwarp at two sites orders the halves' shared-memory stores before the loads
    t = cuda.threadIdx.x
    sm = cuda.shared.array(32, np.int32)
    if t < 16:
        sm[t] = t + 100
        cuda.syncwarp()
        out[t] = sm[31 - t]
    else:
        sm[t] = t + 200
        cuda.syncwarp()
        out[t] = sm[31 - t]


@cuda.jit
def vote_kinds(out):
    t = cuda.threadIdx.x
    if t < 16:
        out[t] = cuda.all_sync(0xFFFFFFFF, True)
    else:
        out[t] = cuda.any_sync(0xFFFFFFFF, True)
