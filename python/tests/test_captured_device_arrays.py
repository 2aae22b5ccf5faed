"""Global device arrays read and written by kernels, as numba-cuda captures them: the array's address (with its
shape and strides) is taken when the kernel is compiled, so a later write to the array's memory is seen by the next
launch, while rebinding the name is not (the global is frozen at the first compile, as every global is). The kernel
reads and writes that memory in place (any strides, through device functions too); a kernel that captures one is
never put in a cache (its code holds this process's addresses), and cache=True is numba-cuda's PicklingError. Host
NumPy globals stay constant arrays. Expected values are numba-cuda's simulator's (NUMBA_ENABLE_CUDASIM=1,
numba-cuda 0.30.4; doc_examples/test_globals.py's example), which these kernels were run on."""
import pickle

import numpy as np
import pytest

from kfront import cuda, errors

PRICES = cuda.to_device(np.array([10.0, 25.0, 5.0, 15.0, 30.0], dtype=np.float32))
FULL = cuda.to_device(np.zeros((3, 4), np.int32))
EVERY_OTHER = FULL[:, ::2]
HOST = np.array([1.0, 2.0, 3.0], dtype=np.float32)


def test_a_launch_sees_the_captured_arrays_memory_as_it_is_then():
    @cuda.jit
    def totals_of(quantities, totals):
        i = cuda.grid(1)
        if i < totals.size:
            totals[i] = quantities[i] * PRICES[i]

    q = cuda.to_device(np.array([1.0, 2.0, 1.0, 1.0, 1.0], dtype=np.float32))
    t = cuda.device_array(5, dtype=np.float32)
    totals_of[1, 32](q, t)
    assert t.copy_to_host().tolist() == [10.0, 50.0, 5.0, 15.0, 30.0]
    PRICES.copy_to_device(np.array([20.0, 50.0, 10.0, 30.0, 60.0], dtype=np.float32))
    totals_of[1, 32](q, t)
    assert t.copy_to_host().tolist() == [20.0, 100.0, 10.0, 30.0, 60.0]


def test_a_strided_capture_is_written_in_place():
    @cuda.jit
    def fill():
        i, j = cuda.grid(2)
        if i < EVERY_OTHER.shape[0] and j < EVERY_OTHER.shape[1]:
            EVERY_OTHER[i, j] = i * 10 + j

    fill[1, (4, 4)]()
    assert FULL.copy_to_host().tolist() == [[0, 0, 1, 0], [10, 0, 11, 0], [20, 0, 21, 0]]


def test_captured_through_device_functions_and_frozen_at_the_first_compile():
    scale = cuda.to_device(np.array([2.0, 3.0, 4.0]))
    offset = cuda.to_device(np.array([0.5, 0.25, 0.125]))

    @cuda.jit(device=True)
    def term(i):
        return scale[i] * 10 + offset[i]

    @cuda.jit
    def kernel(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = term(i)

    out = np.zeros(3)
    kernel[1, 3](out)
    assert out.tolist() == [20.5, 30.25, 40.125]
    scale = cuda.to_device(np.array([100.0, 100.0, 100.0]))  # noqa: F841 (rebinding: the kernel keeps its capture)
    kernel[1, 3](out)
    assert out.tolist() == [20.5, 30.25, 40.125]


class Foreign:
    """An object with only __cuda_array_interface__ (numba-cuda's tests' ForeignArray)."""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


def test_a_foreign_device_array_is_captured_too():
    foreign = Foreign(cuda.to_device(np.array([7, 8, 9], dtype=np.int64)))

    @cuda.jit
    def kernel(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = foreign[i] + 1
            foreign[i] = 0

    out = np.zeros(3, np.int64)
    kernel[1, 3](out)
    assert out.tolist() == [8, 9, 10] and foreign._arr.copy_to_host().tolist() == [0, 0, 0]


def test_cache_true_is_numba_cudas_pickling_error():
    @cuda.jit(cache=True)
    def cached(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = PRICES[i] * 2.0

    with pytest.raises(pickle.PicklingError, match="global device arrays"):
        cached[1, 3](cuda.device_array(3, dtype=np.float32))


def test_a_host_global_stays_a_constant_array():
    @cuda.jit
    def writes_host_global():
        HOST[0] = 5.0

    with pytest.raises(errors.TypingError):
        writes_host_global[1, 1]()

    @cuda.jit
    def const_of_device():
        c = cuda.const.array_like(PRICES)
        PRICES[0] = c[0]

    with pytest.raises(errors.TypingError, match="cuda.const.array_like"):
        const_of_device[1, 1]()


# ---- 0-d device arrays (numba-cuda's test_device_array_capture test_zero_dimensional) ------------------------------
_global_0d = None


@pytest.mark.parametrize("dtype", (np.float32, np.int64, np.complex128))
def test_zero_dimensional_device_array_read_and_written(dtype):
    global _global_0d
    _global_0d = cuda.to_device(np.array(42, dtype=dtype))

    @cuda.jit
    def kernel_0d(output, info):
        output[()] = _global_0d[()] * 2
        info[0] = _global_0d.ndim
        info[1] = _global_0d.size

    @cuda.jit
    def write_0d(v):
        _global_0d[()] = v

    output = cuda.device_array((), dtype=dtype)
    info = np.zeros(2, dtype=np.int64)
    kernel_0d[1, 1](output, info)
    assert output.copy_to_host() == 84 and output.copy_to_host().dtype == dtype
    assert info.tolist() == [0, 1]
    write_0d[1, 1](7)
    host = _global_0d.copy_to_host()
    assert host.shape == () and host == 7  # the kernel wrote the captured memory in place


G0_FLOAT = np.array(7.5)  # a 0-d NumPy array bound as a global: a constant, as numba-cuda makes it


def test_zero_dimensional_constant_globals():
    # numba-cuda's test_zero_dimensional (its host half): a global 0-d NumPy array is a constant 0-d array
    @cuda.jit
    def k(out):
        out[0] = G0_FLOAT[()]
        out[1] = G0_FLOAT.ndim
        out[2] = G0_FLOAT.size

    out = np.zeros(3)
    k[1, 1](out)
    assert out.tolist() == [7.5, 0.0, 1.0]

    @cuda.jit
    def store(out):
        G0_FLOAT[()] = 1.0

    with pytest.raises(errors.TypingError, match="cannot assign to an element of a constant array"):
        store[1, 1](out)
