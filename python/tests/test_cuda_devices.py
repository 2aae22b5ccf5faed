"""Several devices in kfront.cuda, as numba-cuda has them: `cuda.gpus` (len, iteration, indexing, `current`),
`select_device`, `with cuda.gpus[i]:` (nested, per thread), `get_current_device`, device arrays bound to their
device (copies from any current device, a kernel on another device refusing them with a clear error), copies
between devices (peer pairs and staged ones), a kernel and a @vectorize function compiled and cached per device,
launchers used on several devices, streams of another device refused, DLPack's device and foreign arrays' device,
`cuda.close()` and `Device.reset()` per device.

On the simulator (KFRONT_SIM=1) every test runs with 2 and with 3 virtual devices (KFRONT_SIM_DEVICES); on a GPU
machine with the GPUs there are (test/gpu/run_multigpu.sh), skipped where there are fewer than a test needs."""
import threading

import numpy as np
import pytest

from kfront import config, cuda, errors, types, vectorize
from kfront.cuda import _runtime


@cuda.jit
def scale(a, k):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * k


@vectorize(["float32(float32)"], target="cuda")
def twice(x):
    return x * 2


@pytest.fixture(params=[2, 3] if config.ENABLE_CUDASIM else [None], ids=lambda n: "%s-devices" % (n or "gpu"))
def ndev(request):
    """The number of devices: the simulator presents 2, then 3; a GPU machine has what it has (at least 2)."""
    saved = config.KFRONT_SIM_DEVICES
    if request.param is not None:
        config.KFRONT_SIM_DEVICES = request.param
    cuda.close()
    try:
        n = len(cuda.gpus)
        need(2, n)  # every test here is about several devices: a 1-GPU machine reports them skipped
        yield n
    finally:
        cuda.close()
        config.KFRONT_SIM_DEVICES = saved


def need(n, have):
    if have < n:
        pytest.skip("needs %d devices, this machine has %d" % (n, have))


def test_gpus_list(ndev):
    assert len(cuda.gpus) == ndev
    ids = [d.id for d in cuda.gpus]
    assert ids == list(range(ndev))
    assert cuda.gpus[-1].id == ndev - 1 and cuda.gpus[1] is cuda.gpus[1]
    assert [d.id for d in cuda.gpus[0:2]] == [0, 1]
    assert [d.id for d in cuda.list_devices()] == ids
    for d in cuda.gpus:
        assert d.compute_capability >= (5, 0) and isinstance(d.name, str)
        assert d.MAX_THREADS_PER_BLOCK == 1024
    with pytest.raises(IndexError, match="device %d does not exist \\(there are %d" % (ndev, ndev)):
        cuda.gpus[ndev]
    with pytest.raises(IndexError):
        cuda.select_device(ndev + 3)
    assert cuda.gpus.current.id == 0


def test_select_device_and_with(ndev):
    assert cuda.get_current_device().id == 0
    dev = cuda.select_device(1)
    assert dev.id == 1 and cuda.get_current_device().id == 1 and cuda.gpus.current.id == 1
    with cuda.gpus[0]:
        assert cuda.get_current_device().id == 0
        with cuda.gpus[ndev - 1] as inner:
            assert inner.id == ndev - 1 and cuda.get_current_device().id == ndev - 1
        assert cuda.get_current_device().id == 0
    assert cuda.get_current_device().id == 1  # back to what select_device chose
    assert cuda.current_context().device.id == 1
    cuda.close()
    assert cuda.get_current_device().id == 0
    with pytest.raises(RuntimeError, match="not the innermost device"):
        cuda.gpus[1].__exit__(None, None, None)


def test_selection_is_per_thread(ndev):
    cuda.select_device(1)
    seen = {}

    def work(i):
        seen[i, "start"] = cuda.get_current_device().id  # a new thread starts on device 0
        with cuda.gpus[i]:
            a = cuda.to_device(np.arange(100, dtype=np.float32))
            scale[1, 128](a, 2.0)
            seen[i] = (cuda.get_current_device().id, a._device, a.copy_to_host())

    threads = [threading.Thread(target=work, args=(i,)) for i in range(ndev)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(ndev):
        assert seen[i, "start"] == 0
        dev, on, out = seen[i]
        assert dev == i and on == i
        np.testing.assert_array_equal(out, 2 * np.arange(100, dtype=np.float32))
    assert cuda.get_current_device().id == 1  # the threads' selections were theirs


def test_arrays_are_bound_to_their_device(ndev):
    h = np.arange(1000, dtype=np.float32)
    d0 = cuda.to_device(h)
    with cuda.gpus[1]:
        d1 = cuda.to_device(h + 1)
        assert d1._device == 1 and d1[2:5]._device == 1 and d1.reshape(10, 100).T._device == 1
        np.testing.assert_array_equal(d0.copy_to_host(), h)  # read from any current device
        scale[4, 256](d1, 3.0)
    assert d0._device == 0
    np.testing.assert_array_equal(d1.copy_to_host(), 3 * (h + 1))
    assert d1[7] == 3 * (h[7] + 1)
    assert "on device 1" in repr(d1)

    # device 1's array given to a kernel on device 0: refused, nothing runs, the array is unchanged
    with pytest.raises(errors.KernelArgumentError) as e:
        scale[4, 256](d1, 5.0)
    assert isinstance(e.value, TypeError)
    assert ("scale runs on device 0, but its argument 1 is an array on device 1: copy the array to device 0 "
            "first, or run scale on device 1") in str(e.value)
    np.testing.assert_array_equal(d1.copy_to_host(), 3 * (h + 1))
    # host arrays go to whichever device runs the kernel
    out = h.copy()
    with cuda.gpus[ndev - 1]:
        scale[4, 256](out, 2.0)
    np.testing.assert_array_equal(out, 2 * h)


def test_one_launcher_on_several_devices(ndev):
    launch = scale[4, 256]
    arrays = []
    for i in range(ndev):
        with cuda.gpus[i]:
            a = cuda.to_device(np.full(1000, i + 1, dtype=np.float64))
            assert scale[4, 256] is launch  # the cached launcher, made on device 0
            launch(a, 10.0)
            arrays.append(a)
    for i, a in enumerate(arrays):
        np.testing.assert_array_equal(a.copy_to_host(), np.full(1000, 10.0 * (i + 1)))
    launch(arrays[0], 0.5)
    np.testing.assert_array_equal(arrays[0].copy_to_host(), np.full(1000, 5.0))


def test_programs_and_caches_per_device(ndev):
    @cuda.jit
    def fill(a, v):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = v

    a0 = cuda.device_array(64, dtype=np.int32)
    fill[1, 64](a0, 1)
    fill[1, 64](a0, 2)
    stats0 = _runtime.runtime(0).stats()
    key = (types.int32[::1], types.int64)
    assert list(fill.overloads) == [key]
    with cuda.gpus[1]:
        assert fill.overloads == {}  # nothing compiled for device 1 yet
        before = _runtime.runtime(1).stats()
        a1 = cuda.device_array(64, dtype=np.int32)
        fill[1, 64](a1, 3)
        after = _runtime.runtime(1).stats()
        # device 1's own program made the kernel: compiled, or (GPUs of one kind share disk-cache entries, as on
        # the 2-GPU machine) read from the disk cache device 0's compile wrote
        made = lambda s: s["compiles"] + s["cache_disk_hits"]  # noqa: E731
        assert made(after) > made(before) and after["launches"] == before["launches"] + 1
        assert list(fill.overloads) == [key]
    assert _runtime.runtime(0).stats()["compiles"] == stats0["compiles"]  # device 0 compiled nothing more
    np.testing.assert_array_equal(a0.copy_to_host(), 2)
    np.testing.assert_array_equal(a1.copy_to_host(), 3)


def test_copies_between_devices(ndev):
    h = np.arange(300000, dtype=np.float64).reshape(600, 500)
    d0 = cuda.to_device(h)
    for target in range(1, ndev):  # 0 -> 1: the simulator's peers; 0 -> 2: staged through host memory
        with cuda.gpus[target]:
            d = cuda.to_device(d0)  # a copy on the current device
            assert d._device == target
            np.testing.assert_array_equal(d.copy_to_host(), h)
            e = cuda.device_array_like(d)
            e.copy_to_device(d0)
            np.testing.assert_array_equal(e.copy_to_host(), h)
            e[3:5, 7] = d0[0:2, 1]  # a view of device 0 assigned into device `target`'s array
            expect = h.copy()
            expect[3:5, 7] = h[0:2, 1]
            np.testing.assert_array_equal(e.copy_to_host(), expect)
    with cuda.gpus[1]:
        back = cuda.device_array_like(d0)
    back.copy_to_device(d0)
    d0.copy_to_device(cuda.to_device(np.zeros_like(h)))
    np.testing.assert_array_equal(d0.copy_to_host(), 0)
    np.testing.assert_array_equal(back.copy_to_host(), h)
    if config.ENABLE_CUDASIM:
        assert cuda.gpus[0].can_access_peer(cuda.gpus[1])
        assert not cuda.gpus[0].can_access_peer(cuda.gpus[0])
        if ndev == 3:
            assert not cuda.gpus[0].can_access_peer(2) and not cuda.gpus[2].can_access_peer(cuda.gpus[1])


def test_streams_and_ufuncs_per_device(ndev):
    h = np.arange(50, dtype=np.float32)
    with cuda.gpus[1]:
        s1 = cuda.stream()
        d1 = cuda.to_device(h, stream=s1)
        out1 = twice(d1, stream=s1)
        s1.synchronize()
        assert out1._device == 1
        np.testing.assert_array_equal(out1.copy_to_host(), 2 * h)
    d0 = cuda.to_device(h)
    with pytest.raises(errors.KernelArgumentError, match="the stream belongs to device 1, but this runs on device 0"):
        scale[1, 64, s1](d0, 2.0)
    with pytest.raises(errors.KernelArgumentError, match="twice runs on device 0, but its argument 1 is an array "
                                                         "on device 1"):
        twice(d1)
    np.testing.assert_array_equal(twice(d0).copy_to_host(), 2 * h)


def test_dlpack_and_foreign_devices(ndev):
    with cuda.gpus[1]:
        d = cuda.to_device(np.arange(6, dtype=np.int32))
    kind, dev = d.__dlpack_device__()
    if config.ENABLE_CUDASIM:
        assert (kind, dev) == (1, 0)  # host memory on the simulator
    else:
        assert (kind, dev) == (2, 1)
    again = cuda.from_dlpack(d)
    assert again._device == (-1 if config.ENABLE_CUDASIM else 1)
    np.testing.assert_array_equal(again.copy_to_host(), np.arange(6))

    class Foreign:  # another library's array: the CUDA array interface names no device
        __cuda_array_interface__ = d.__cuda_array_interface__

    f = cuda.as_cuda_array(Foreign())
    assert f._device == (-1 if config.ENABLE_CUDASIM else 1)  # a GPU's driver knows whose memory it is
    np.testing.assert_array_equal(f.copy_to_host(), np.arange(6))


def test_close_and_reset_per_device(ndev):
    with cuda.gpus[1]:
        d1 = cuda.to_device(np.ones(8))
        scale[1, 8](d1, 4.0)
        rt1 = _runtime.runtime()
    rt0 = _runtime.runtime(0)
    cuda.gpus[1].reset()  # device 1's runtime released; device 0's kept
    assert _runtime.runtime(0) is rt0 and _runtime.runtime(1) is not rt1
    np.testing.assert_array_equal(d1.copy_to_host(), 4.0)  # its memory lives as long as the array
    with cuda.gpus[1]:
        assert scale.overloads == {}
        d = cuda.to_device(np.ones(8))
        scale[1, 8](d, 2.0)
        np.testing.assert_array_equal(d.copy_to_host(), 2.0)
    cuda.select_device(1)
    cuda.close()
    assert cuda.get_current_device().id == 0 and _runtime.runtime(0) is not rt0


def test_driver_attributes_by_name():
    """numba-cuda's Device gives every CU_DEVICE_ATTRIBUTE_* by name; on the simulator the modelled ones (the launch
    limits, multiprocessors, compute capability), AttributeError for the rest and for names that are none."""
    dev = cuda.get_current_device()
    assert dev.WARP_SIZE == 32 and dev.MAX_BLOCK_DIM_X >= 1024
    assert dev.COMPUTE_CAPABILITY_MAJOR == dev.compute_capability[0]
    assert dev.SHARED_MEMORY_PER_BLOCK == dev.MAX_SHARED_MEMORY_PER_BLOCK  # cuda.h's alias
    assert dev.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN >= dev.MAX_SHARED_MEMORY_PER_BLOCK
    if config.ENABLE_CUDASIM:
        with pytest.raises(AttributeError, match="'CLOCK_RATE'"):
            dev.CLOCK_RATE
        assert not hasattr(dev, "L2_CACHE_SIZE")
    else:  # the driver's
        assert dev.CLOCK_RATE > 0 and dev.L2_CACHE_SIZE > 0 and dev.MAX_THREADS_PER_MULTIPROCESSOR >= 1024
    with pytest.raises(AttributeError, match="'NOT_AN_ATTRIBUTE'"):
        dev.NOT_AN_ATTRIBUTE
    with pytest.raises(AttributeError):
        dev.clock_rate  # numba-cuda's are upper case only
