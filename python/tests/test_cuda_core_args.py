"""cuda.core's memory objects as kernel arguments (kfront/cuda/_cuda_core.py), on the simulator: a Buffer over
device memory kfront allocated is a uint8[::1] array (numba-cuda's typing), written through in place; a Buffer
over an address the simulated device never allocated is refused, never dereferenced. (StridedMemoryView needs a
driver to be made: test/gpu/python/test_cuda_core_gpu.py.)"""
import numpy as np
import pytest

from kfront import cuda, errors

core = pytest.importorskip("cuda.core")  # scripts/python_env.sh installs it into the test venv


@cuda.jit
def length_and_mark(buf, n):
    n[0] = len(buf)
    buf[1] = 7


def test_buffer_is_a_uint8_array_over_its_bytes():
    d = cuda.to_device(np.zeros(10, np.uint8))
    out = cuda.to_device(np.zeros(1, np.uint64))
    buf = core.Buffer.from_handle(d.device_ctypes_pointer.value, size=10)
    length_and_mark[1, 1](buf, out)
    assert out.copy_to_host()[0] == 10
    assert d.copy_to_host().tolist() == [0, 7, 0, 0, 0, 0, 0, 0, 0, 0]
    assert str(length_and_mark.signatures[-1][0]) == "uint8[::1]"


@pytest.mark.simulator_only("the simulator's registry of device memory; a GPU would fault (an illegal address)")
def test_buffer_over_memory_the_device_never_allocated_is_refused():
    out = cuda.to_device(np.zeros(1, np.uint64))
    with pytest.raises(errors.CudaDriverError, match="not memory of the simulated device"):
        length_and_mark[1, 1](core.Buffer.from_handle(0x3039, size=10), out)


def test_other_objects_are_still_refused():
    with pytest.raises(TypeError, match="kfront cannot pass an object of type <class 'object'>"):
        length_and_mark[1, 1](object(), np.zeros(1, np.uint64))
