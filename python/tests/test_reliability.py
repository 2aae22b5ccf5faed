"""Errors of numba-cuda's class for mistaken uses of the Python module, and the simulator's launch limits set from
Python (issue 28): argument counts (numba-cuda's dispatcher, find_named_args: TypeError "not enough arguments:
expected 2, got 1"; kernel defaults fill the missing ones), the simulated device out of memory (a MemoryError, as
numba-cuda's simulator's NumPy allocation; also kfront's CudaDriverError, numba-cuda's CudaAPIError on a GPU), and
the step and time limits (kfront.config.KFRONT_SIM_MAX_STEPS / KFRONT_SIM_MAX_SECONDS, named in their messages)."""
import time

import numpy as np
import pytest

from kfront import config, cuda
from kfront.errors import CudaDriverError, OutOfMemoryError

pytestmark = pytest.mark.filterwarnings("ignore::kfront.errors.PerformanceWarning")


@cuda.jit
def store(a, x):
    a[0] = x


@cuda.jit
def store_default(a, x=7):
    a[0] = x


@cuda.jit
def spin(a):
    while a[0] == 0:
        pass


@pytest.mark.parametrize("args, message", [
    ((), "not enough arguments: expected 2, got 0"),
    ((1,), "not enough arguments: expected 2, got 1"),
    ((1, 2, 3), "too many arguments: expected 2, got 3"),
])
def test_argument_count_is_numba_cudas_type_error(args, message):
    args = tuple(np.zeros(1) if i == 0 else v for i, v in enumerate(args))
    with pytest.raises(TypeError) as e:
        store[1, 1](*args)
    assert str(e.value) == message and type(e.value) is TypeError
    with pytest.raises(TypeError, match=message):
        store.specialize(*args) if len(args) else store.specialize()
    a = np.zeros(1)
    store[1, 1](a, 2.0)  # still works
    assert a[0] == 2.0


def test_kernel_defaults_fill_missing_arguments():
    a = np.zeros(1)
    store_default[1, 1](a)
    assert a[0] == 7
    store_default[1, 1](a, 3)
    assert a[0] == 3
    with pytest.raises(TypeError, match="not enough arguments: expected at least 1, got 0"):
        store_default[1, 1]()
    with pytest.raises(TypeError, match="too many arguments: expected 2, got 3"):
        store_default[1, 1](a, 1, 2)


def test_device_out_of_memory_is_a_memory_error():
    with pytest.raises(MemoryError, match="out of memory allocating 35184372088832 bytes") as e:
        cuda.device_array(1 << 45, np.uint8)
    assert isinstance(e.value, OutOfMemoryError) and isinstance(e.value, CudaDriverError)
    assert cuda.to_device(np.arange(3)).copy_to_host().tolist() == [0, 1, 2]


@pytest.fixture
def limits():
    yield
    config.KFRONT_SIM_MAX_STEPS = 0
    config.KFRONT_SIM_MAX_SECONDS = 0.0


def test_step_limit_set_from_python_and_named(limits):
    config.KFRONT_SIM_MAX_STEPS = 100000
    with pytest.raises(CudaDriverError, match=r"simulation step limit exceeded \(100000 ops in the launch; "
                                              r"kfront.config.KFRONT_SIM_MAX_STEPS or \$KFRONT_SIM_MAX_STEPS\)"):
        spin[1, 1](np.zeros(1))
    a = np.zeros(1)
    store[1, 1](a, 1.0)
    assert a[0] == 1.0


def test_time_limit_set_from_python_and_named(limits):
    config.KFRONT_SIM_MAX_SECONDS = 0.2
    t = time.monotonic()
    with pytest.raises(CudaDriverError, match=r"simulation time limit exceeded \(0.2 s; "
                                              r"kfront.config.KFRONT_SIM_MAX_SECONDS or \$KFRONT_SIM_MAX_SECONDS\)"):
        spin[1, 1](np.zeros(1))
    assert time.monotonic() - t < 5
    config.KFRONT_SIM_MAX_SECONDS = 0.0
    a = np.ones(1)
    spin[1, 1](a)  # ends at once
