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


@pytest.mark.simulator_only("the simulator's step and time limits: the kernel spins on a GPU")
def test_step_limit_set_from_python_and_named(limits):
    config.KFRONT_SIM_MAX_STEPS = 100000
    with pytest.raises(CudaDriverError, match=r"simulation step limit exceeded \(100000 ops in the launch; "
                                              r"kfront.config.KFRONT_SIM_MAX_STEPS or \$KFRONT_SIM_MAX_STEPS\)"):
        spin[1, 1](np.zeros(1))
    a = np.zeros(1)
    store[1, 1](a, 1.0)
    assert a[0] == 1.0


@pytest.mark.simulator_only("the simulator's step and time limits: the kernel spins on a GPU")
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


class ForeignDeviceArray:
    """A device array of someone else's, through __cuda_array_interface__ only: any pointer, made up or not."""

    def __init__(self, ptr, n=4, dtype="<f8"):
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": dtype, "data": (ptr, False), "version": 3,
                                         "strides": None}


@cuda.jit
def set_first(a):
    a[0] = 1


NOT_DEVICE_MEMORY = r"not memory of the simulated device \(never allocated by kfront, or freed already\)"


@pytest.mark.parametrize("ptr", [0x1000, 0xDEADBEEF000, (1 << 64) - 16])
@pytest.mark.simulator_only("the simulator's pointer registry: on a GPU the kernel faults, as numba-cuda's does")
@pytest.mark.parametrize("use", ["launch", "copy_to_host", "copy_to_device", "setitem"])
def test_made_up_device_pointer_is_refused_not_dereferenced(ptr, use):
    foreign = ForeignDeviceArray(ptr)
    with pytest.raises(CudaDriverError, match=NOT_DEVICE_MEMORY):
        if use == "launch":
            set_first[1, 1](foreign)
        elif use == "copy_to_host":
            cuda.as_cuda_array(foreign).copy_to_host()
        elif use == "copy_to_device":
            cuda.as_cuda_array(foreign).copy_to_device(np.zeros(4))
        else:
            cuda.as_cuda_array(foreign)[0] = 1.0
    d = cuda.to_device(np.zeros(4))
    set_first[1, 1](d)
    assert d.copy_to_host().tolist() == [1, 0, 0, 0]


@pytest.mark.simulator_only("the simulator's pointer registry: on a GPU the kernel faults, as numba-cuda's does")
def test_freed_device_pointer_is_refused():
    d = cuda.to_device(np.zeros(4))
    ptr = d.__cuda_array_interface__["data"][0]
    del d
    cuda.current_context().deallocations.clear()
    with pytest.raises(CudaDriverError, match=NOT_DEVICE_MEMORY):
        set_first[1, 1](ForeignDeviceArray(ptr))
    with pytest.raises(CudaDriverError, match=NOT_DEVICE_MEMORY):
        cuda.as_cuda_array(ForeignDeviceArray(ptr)).copy_to_host()


@pytest.mark.simulator_only("the simulator's pointer registry: on a GPU the kernel faults, as numba-cuda's does")
def test_foreign_view_inside_an_allocation_is_used_and_one_past_it_refused():
    d = cuda.to_device(np.zeros(4))
    ptr = d.__cuda_array_interface__["data"][0]
    set_first[1, 1](ForeignDeviceArray(ptr + 8, 3))
    assert d.copy_to_host().tolist() == [0, 1, 0, 0]
    with pytest.raises(CudaDriverError, match=r"the 32 bytes at 0x%x are not memory" % (ptr + 8)):
        set_first[1, 1](ForeignDeviceArray(ptr + 8, 4))
    assert cuda.as_cuda_array(ForeignDeviceArray(ptr, 4)).copy_to_host().tolist() == [0, 1, 0, 0]


@pytest.mark.simulator_only("the simulator's registry of host memory")
def test_pinned_and_mapped_memory_are_device_memory_of_the_simulator():
    m = cuda.mapped_array(4)
    m[:] = 0
    set_first[1, 1](m)
    cuda.synchronize()
    assert m.tolist() == [1, 0, 0, 0]
    p = cuda.pinned_array(4)
    p[:] = 5
    assert cuda.to_device(p).copy_to_host().tolist() == [5, 5, 5, 5]


# ---- long simulator launches: other threads run, Ctrl-C ends them ------------------------------------------

@cuda.jit
def wait_for_flag(flag, out):
    n = 0
    while flag[0] == 0:
        n += 1
    out[0] = n


@pytest.mark.simulator_only("on a GPU nothing makes the kernel read the flag again (the language has no volatile "
                             "loads): it may spin")
def test_other_threads_run_during_a_launch(limits):
    # the launch waits for a flag another Python thread sets: it ends only if that thread runs meanwhile (the GIL
    # released around the launch); the time limit ends it otherwise
    config.KFRONT_SIM_MAX_SECONDS = 20.0
    flag = cuda.mapped_array(1, dtype=np.int32)
    flag[0] = 0
    out = cuda.to_device(np.zeros(1, np.int64))
    ticks = []

    def other():
        for _ in range(30):
            ticks.append(time.monotonic())
            time.sleep(0.01)
        flag[0] = 1

    import threading
    th = threading.Thread(target=other)
    t = time.monotonic()
    th.start()
    wait_for_flag[1, 1](flag, out)
    cuda.synchronize()
    th.join()
    assert time.monotonic() - t < 10 and len(ticks) == 30 and out.copy_to_host()[0] > 0


@pytest.mark.simulator_only('a never-ending launch ends only on the simulator')
def test_ctrl_c_ends_a_never_ending_launch(limits):
    import os
    import signal
    import threading
    config.KFRONT_SIM_MAX_SECONDS = 30.0  # (a safety: the test fails rather than hangs)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    t = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        spin[1, 1](np.zeros(1))
    took = time.monotonic() - t
    timer.join()
    assert 0.4 < took < 2.5
    a = np.ones(1)
    spin[1, 1](a)  # the module still works
    store[1, 1](a, 4.0)
    assert a[0] == 4.0


def test_ctrl_c_handler_restored_after_launches():
    import signal
    before = signal.getsignal(signal.SIGINT)
    store[1, 1](np.zeros(1), 1.0)
    assert signal.getsignal(signal.SIGINT) is before
