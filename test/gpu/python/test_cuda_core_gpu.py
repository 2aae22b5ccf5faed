"""cuda.core's Buffer and StridedMemoryView as kernel arguments on the GPU (kfront/cuda/_cuda_core.py), as
numba-cuda's TestCoreContiguous has them, plus an F-ordered view (its strides, in elements, become bytes)."""
import cupy as cp
import numpy as np
from cuda.core import Buffer
from cuda.core.utils import StridedMemoryView

from kfront import cuda


@cuda.jit
def length(buf, n):
    n[0] = len(buf)


@cuda.jit
def add_index(a):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] += i * 10 + j


def test_buffer():
    view = cp.ones(10, dtype="uint8")
    out = cp.zeros(1, dtype="uint64")
    length[1, 1](Buffer.from_handle(view.data.ptr, size=10), out)
    assert int(out[0]) == 10


def test_strided_memory_view_c_and_f():
    for order in "CF":
        a = cp.zeros((5, 7), dtype=cp.float32, order=order)
        smv = StridedMemoryView.from_cuda_array_interface(a, stream_ptr=a.__cuda_array_interface__["stream"])
        add_index[(1, 1), (8, 8)](smv)
        cp.cuda.Device().synchronize()
        expected = np.add.outer(np.arange(5) * 10, np.arange(7)).astype(np.float32)
        np.testing.assert_array_equal(cp.asnumpy(a), expected)
    out = cp.zeros(1, dtype="uint64")
    v = cp.ones(10, dtype="int64")
    length[1, 1](StridedMemoryView.from_cuda_array_interface(v, stream_ptr=v.__cuda_array_interface__["stream"]), out)
    assert int(out[0]) == 10
