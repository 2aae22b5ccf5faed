"""kfront.cuda.kernels — numba-cuda's ready-made kernels (numba.cuda.kernels.transpose under the drop-in).

transpose(a, b=None) writes the transpose of the 2-D array a (a host array or a device array) into b, a device array
of the transposed shape (allocated, C-contiguous, when not given) and returns b. It runs on a's stream where a has
one. Each block moves one tile through shared memory — read along a's rows, written along b's rows, so both sides
are coalesced — with the tile's rows one element longer than the tile is wide, so that the transposed reads from
the tile fall in different shared-memory banks. The tile is the largest square of a power of two the device's
threads per block allow (32 x 32 for 1024). One kernel per element dtype and tile size is compiled, on first use.
"""
import math

import numpy as np

from kfront import types
from kfront.cuda import _runtime

_KERNELS = {}  # (dtype, tile shape) -> the transpose kernel for them


def _tile_kernel(dt, tile_shape):
    from kfront import cuda

    def transpose_tile(src, dst):
        tile = cuda.shared.array(shape=tile_shape, dtype=dt)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        col0 = cuda.blockIdx.x * cuda.blockDim.x  # the tile's first column of src (row of dst)
        row0 = cuda.blockIdx.y * cuda.blockDim.y  # the tile's first row of src (column of dst)
        if row0 + ty < src.shape[0] and col0 + tx < src.shape[1]:
            tile[ty, tx] = src[row0 + ty, col0 + tx]
        cuda.syncthreads()
        if col0 + ty < dst.shape[0] and row0 + tx < dst.shape[1]:
            dst[col0 + ty, row0 + tx] = tile[tx, ty]

    return cuda.jit(transpose_tile)


def transpose(a, b=None):
    """numba.cuda.kernels.transpose.transpose: the transpose of the 2-D array a stored into b (a device array of
    shape a.shape[::-1], allocated when None) on a's stream; returns b."""
    from kfront import cuda
    if len(a.shape) != 2:
        raise ValueError("kfront: transpose() takes a 2-D array, not one of shape %s" % (tuple(a.shape),))
    stream = getattr(a, "stream", 0)
    rows, cols = a.shape
    if b is None:
        b = cuda.device_array((cols, rows), dtype=a.dtype, stream=stream)
    elif tuple(b.shape) != (cols, rows):
        raise ValueError("kfront: transpose() of an array of shape %s needs b of shape %s, not %s"
                         % ((rows, cols), (cols, rows), tuple(b.shape)))
    # the largest square tile of a power of two the device's threads per block allow
    tile = 1 << (int(math.log2(_runtime.get_current_device().MAX_THREADS_PER_BLOCK)) // 2)
    key = (np.dtype(a.dtype), tile)
    kernel = _KERNELS.get(key)
    if kernel is None:
        kernel = _KERNELS[key] = _tile_kernel(types.from_dtype(np.dtype(a.dtype)), (tile, tile + 1))
    kernel[((cols + tile - 1) // tile, (rows + tile - 1) // tile), (tile, tile), stream](a, b)
    return b
