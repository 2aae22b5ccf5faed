"""numba-cuda's driver-side host API under kfront, on the simulator: a context's memalloc / memhostalloc / mempin /
memallocmanaged and their memory pointers (views, owned references, finalizers), the External Memory Management
plugin interface (a plugin's memalloc allocating every device array, the interface version check), the copies of
cudadrv.driver, managed arrays used in place by kernels, device records, setitem on a stream, streams of the CUDA
stream protocol, and the alias's cudadrv modules. What only a GPU shows (managed memory and IPC through the
driver) is test/gpu/python/test_driver_api_gpu.py's."""
import ctypes
import gc
import re
import weakref

import numpy as np
import pytest

from kfront import cuda, errors
from kfront.cuda import devicearray, driver


@pytest.fixture
def ctx():
    c = cuda.current_context()
    yield c
    c.reset()


def test_context_is_the_devices_one(ctx):
    assert cuda.current_context() is ctx
    assert ctx.device.get_primary_context() is ctx
    ctx.reset()
    assert cuda.current_context() is ctx  # (reset keeps it; close() drops it)


def test_memalloc_views_and_reference_counts(ctx):
    m = ctx.memalloc(1024)
    assert driver.is_device_memory(m)
    assert isinstance(m.device_ctypes_pointer, ctypes.c_size_t)
    assert m.refct == 1 and m.size == 1024
    v1 = m.view(16)
    assert int(v1.handle) - 16 == int(m.handle) and int(v1.owner.handle) == int(m.handle)
    assert m.refct == 2 and v1.size == 1008
    v2 = v1.view(16, 32)
    assert int(v2.handle) == int(m.handle) + 32 and v2.size == 16 and m.refct == 3
    del v2, v1
    assert m.refct == 1
    # the memory goes to the pending deallocations when the last owned reference goes
    ctx.deallocations.clear()
    del m
    gc.collect()
    assert len(ctx.deallocations) == 1


def test_memory_pointer_finalizer(ctx):
    calls = []
    ptr = driver.MemoryPointer(context=ctx, pointer=ctypes.c_void_p(0xDEADBEEF), size=40,
                               finalizer=lambda: calls.append(1))
    assert ptr.device_pointer_value == 0xDEADBEEF
    owned = ptr.own()
    del owned
    assert calls == []      # a plain MemoryPointer's owned references do not free it
    del ptr
    assert calls == [1]
    ptr = driver.MemoryPointer(context=ctx, pointer=1, size=8, finalizer=lambda: calls.append(2))
    ptr.free()
    assert calls == [1, 2]
    with pytest.raises(RuntimeError, match="Freeing dead memory"):
        ptr.free()


def test_copies_and_memset_through_driver_functions(ctx):
    host = np.arange(100, dtype=np.uint32)
    back = np.empty_like(host)
    dev1, dev2 = ctx.memalloc(host.nbytes), ctx.memalloc(host.nbytes)
    driver.host_to_device(dev1, host, host.nbytes)
    driver.device_to_device(dev2, dev1, host.nbytes)
    driver.device_to_host(back, dev2, host.nbytes)
    np.testing.assert_array_equal(back, host)
    driver.device_memset(dev2, 0xAB, 40)
    driver.device_to_host(back, dev2, host.nbytes)
    assert list(back[:11]) == [0xABABABAB] * 10 + [10]
    s = cuda.stream()
    dev1.memset(0, stream=s)
    s.synchronize()
    driver.device_to_host(back, dev1, host.nbytes)
    assert not back.any()
    with pytest.raises(Exception, match="Not a CUDA memory object"):
        driver.device_pointer(np.zeros(3))


def test_host_memory_extents_and_sizes():
    a = np.asfortranarray(np.arange(100).reshape(2, 50))
    start, end = driver.host_memory_extents(a)
    assert start == a.ctypes.data and end - start == a.nbytes
    assert driver.host_memory_size(np.asarray(np.uint32(7))) == 4

    class Pair(ctypes.Structure):
        _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int)]

    assert driver.host_memory_size(Pair(1, 2)) == ctypes.sizeof(Pair)
    assert driver.host_memory_size(ctypes.c_double(1.0)) == 8
    rev = np.arange(10)[::-1]
    assert driver.host_memory_extents(rev) == (rev.ctypes.data - 72, rev.ctypes.data + 8)


def test_pinned_mapped_and_managed_memory(ctx):
    pinned = ctx.memhostalloc(64)
    assert isinstance(pinned, driver.PinnedMemory) and pinned.host_pointer
    mapped = ctx.memhostalloc(64, mapped=True)
    assert driver.is_device_memory(mapped) and mapped.device_pointer  # (the simulator: the host address)
    ary = np.arange(8)
    pin = ctx.mempin(ary, ary.ctypes.data, ary.nbytes, mapped=True)
    assert pin.size == ary.nbytes and driver.is_device_memory(pin)
    managed = ctx.memallocmanaged(32)
    driver.device_memset(managed, 7, 32)
    assert bytes((ctypes.c_uint8 * 32).from_address(managed.device_pointer)) == b"\x07" * 32
    del pinned, mapped, pin, managed


@cuda.jit
def _fill_ones(x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] = 1.0


def test_managed_array_is_used_in_place():
    ary = cuda.managed_array(100, dtype=np.float64)
    assert isinstance(ary, cuda.ManagedNDArray) and isinstance(ary, np.ndarray)
    ary.fill(123.456)
    assert ary.__cuda_array_interface__["data"][0] == ary.ctypes.data
    assert ary.__cuda_array_interface__["stream"] is None
    _fill_ones[10, 10](ary)
    cuda.synchronize()
    assert (ary == 1.0).all()
    s = cuda.stream()
    assert cuda.managed_array(4, stream=s).__cuda_array_interface__["stream"] == s.handle
    assert cuda.managed_array(4, stream=s)[1:].stream is s


class _CountingPlugin(cuda.HostOnlyCUDAMemoryManager):
    """A device-only plugin whose 'memory' is host memory of its own (the simulator's device memory is host memory),
    counting what kfront asks of it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.initialized = False
        self.live = {}
        self.reset_called = False

    def memalloc(self, size):
        if not self.initialized:
            raise RuntimeError("memalloc called before initialize")
        block = np.zeros(max(size, 1), dtype=np.uint8)
        key = block.ctypes.data
        self.live[key] = block
        live = self.live
        # (the array holds the pointer: its going frees the block)
        return driver.AutoFreePointer(weakref.proxy(self.context), key, size, finalizer=lambda: live.pop(key))

    def initialize(self):
        self.initialized = True

    def reset(self):
        super().reset()
        self.reset_called = True

    def get_memory_info(self):
        return cuda.MemoryInfo(free=32, total=64)

    def get_ipc_handle(self, memory):
        return "handle of %#x" % memory.device_pointer

    @property
    def interface_version(self):
        return 1


@pytest.fixture
def plugin():
    ctx = cuda.current_context()
    saved = ctx.memory_manager
    ctx.memory_manager = _CountingPlugin(context=ctx)
    yield cuda.current_context().memory_manager
    ctx.memory_manager = saved


@pytest.mark.simulator_only("the plugin's 'device' memory is host memory, which only the simulator can use")
def test_plugin_allocates_device_arrays(plugin):
    assert plugin.initialized
    d = cuda.to_device(np.arange(10))
    assert len(plugin.live) == 1 and d.gpu_data.device_pointer in plugin.live
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(10))
    out = cuda.device_array(10, dtype=np.float64)
    _fill_ones[1, 16](out)
    np.testing.assert_array_equal(out.copy_to_host(), np.ones(10))
    assert len(plugin.live) == 2
    del d, out
    gc.collect()
    assert plugin.live == {}
    assert cuda.current_context().get_memory_info() == (32, 64)
    handle = cuda.device_array(2).get_ipc_handle()
    assert handle._ipc_handle.startswith("handle of ")
    cuda.current_context().reset()
    assert plugin.reset_called


def test_plugin_version_check():
    class Version2(_CountingPlugin):
        @property
        def interface_version(self):
            return 2

    with pytest.raises(RuntimeError, match="version 2 - version 1 required"):
        cuda.set_memory_manager(Version2)
    with pytest.raises(TypeError):
        cuda.BaseCUDAMemoryManager(context=None)  # abstract
    with pytest.raises(RuntimeError, match="requires a context"):
        _CountingPlugin()


def test_kfront_manager_is_the_default(ctx):
    assert type(ctx.memory_manager).__name__ == "KfrontMemoryManager"
    assert ctx.memory_manager.interface_version == 1
    assert ctx.memory_manager.deallocations is ctx.deallocations


def test_manager_given_its_context_as_a_proxy(ctx):
    """A plugin made with context=weakref.proxy(ctx) (test/gpu/python/test_driver_api_gpu.py's does so) allocates:
    kfront's managers do not take a proxy of a proxy."""
    import weakref
    manager = type(ctx.memory_manager)(context=weakref.proxy(ctx))
    mem = manager.memalloc(64)
    assert mem.device_pointer_value and mem.size == 64
    pinned = manager.memhostalloc(64)
    assert pinned.size == 64


_record = np.dtype([("a", np.int32), ("b", np.float32), ("h", np.float32, 2)], align=True)


def test_device_records():
    host = np.zeros(1, _record)[0]
    host["a"], host["b"] = 10, 11.0
    rec, made = devicearray.auto_device(host)
    assert made and isinstance(rec, cuda.DeviceRecord)
    assert rec.shape == () and rec.strides == () and rec.alloc_size == _record.itemsize
    back = np.zeros(1, _record)[0].copy()
    rec.copy_to_host(back)
    assert back["a"] == 10 and back["b"] == 11.0
    assert rec["a"] == 10
    rec["b"] = 2.5
    rec["h"][1] = 4.0
    assert rec["b"] == 2.5 and rec["h"][1] == 4.0
    arr = cuda.device_array(3, dtype=_record)
    assert isinstance(arr[1], cuda.DeviceRecord)
    arr[2]["a"] = 7
    assert arr.copy_to_host()["a"][2] == 7


def test_setitem_synchronises_only_without_a_stream(monkeypatch):
    calls = []
    monkeypatch.setattr(cuda.Stream, "synchronize", lambda self: calls.append(self))
    d = cuda.to_device(np.arange(5))
    d[0] = 10
    assert len(calls) == 1
    d.setitem(1, 11, stream=cuda.stream())
    d.setitem(2, 12, stream=cuda.default_stream())
    cuda.to_device(np.arange(5), stream=cuda.stream())[0] = 1
    assert len(calls) == 1
    np.testing.assert_array_equal(d.copy_to_host(), [10, 11, 12, 3, 4])


class _ProtocolStream:
    """A stream of the CUDA stream protocol (as cuda.core's Stream)."""

    def __init__(self, handle):
        self.handle = handle

    def __cuda_stream__(self):
        return (0, self.handle)


def test_streams_of_the_protocol_and_from_array_interfaces():
    s = cuda.stream()
    assert s.__cuda_stream__() == (0, s.handle) and not s.external
    d = cuda.device_array(10, stream=s)
    assert d.__cuda_array_interface__["stream"] == s.handle
    imported = cuda.as_cuda_array(type("Foreign", (), {"__cuda_array_interface__": d.__cuda_array_interface__})())
    assert imported.stream.external and imported.stream.handle == s.handle
    start, end = cuda.event(), cuda.event()
    start.record(_ProtocolStream(s.handle))
    end.record(_ProtocolStream(0))
    end.synchronize()
    assert start.elapsed_time(end) >= 0
    out = cuda.to_device(np.zeros(4), stream=_ProtocolStream(s.handle))
    assert out.copy_to_host(stream=_ProtocolStream(s.handle)).tolist() == [0.0] * 4


@pytest.mark.simulator_only('what the simulator refuses')
def test_context_streams_events_and_ipc_on_the_simulator(ctx):
    assert isinstance(ctx.create_stream(), cuda.Stream)
    assert ctx.create_external_stream(0x1234).external
    with pytest.raises(TypeError, match="must be an int"):
        ctx.create_external_stream("x")
    ev = ctx.create_event()
    ev.record()
    ev.synchronize()
    with pytest.raises(errors.NotOnSimulatorError):
        ctx.get_ipc_handle(cuda.device_array(4).gpu_data)
    with pytest.raises(errors.NotOnSimulatorError):
        driver.device_extents(driver.MemoryPointer(ctx, 0x1000, 8))


def test_gpu_data_is_the_arrays_memory():
    d = cuda.to_device(np.arange(10, dtype=np.int64))
    assert d.gpu_data == d.gpu_data and d.gpu_data == d.view(np.float64).gpu_data
    tail = d[3:]
    assert tail.gpu_data.device_pointer == d.gpu_data.device_pointer + 24 and tail.gpu_data.size == 56
    assert driver.device_memory_size(tail.gpu_data) == 56
    assert driver.device_extents(tail.gpu_data) == (d.gpu_data.device_pointer, d.gpu_data.device_pointer + 80)


def test_alias_cudadrv_modules():
    from kfront import _alias
    _alias.install_numba_alias()
    try:
        from numba import cuda as ncuda
        from numba.cuda.cudadrv import driver as ndriver
        from numba.cuda.cudadrv.devicearray import DeviceRecord, from_record_like  # noqa: F401
        from numba.cuda.cudadrv.error import CudaSupportError
        assert ncuda.driver is ndriver and ncuda.devices.get_context() is cuda.current_context()
        assert ndriver.driver.is_available and ndriver.driver.get_device_count() >= 1
        assert getattr(ndriver.driver, "cuMemcpyHtoD", None) is None
        with pytest.raises(AttributeError, match="not exposed"):
            ndriver.driver.cuMemAlloc
        assert issubclass(CudaSupportError, ImportError) and ncuda.cuda_error() is None
        assert ndriver.HostOnlyCUDAMemoryManager is ncuda.HostOnlyCUDAMemoryManager
    finally:
        _alias.uninstall_numba_alias()


def test_copy_to_device_is_one_range_of_bytes():
    d = cuda.to_device(np.arange(20))
    with pytest.raises(ValueError, match="non-contiguous buffer"):
        d.copy_to_device(cuda.to_device(np.arange(20))[::2])
    c = np.arange(125).reshape(5, 5, 5)
    f = np.array(c, order="F")
    with pytest.raises(ValueError, match=re.escape("incompatible strides: %s vs. %s" % (c.strides, f.strides))):
        cuda.to_device(c).copy_to_device(cuda.to_device(f))
    row = cuda.to_device(np.arange(25).reshape(5, 5, order="F"))[2]
    with pytest.raises(ValueError, match="non-contiguous buffer"):
        row.copy_to_device(np.full(5, 5))
    row[:] = np.full(5, 5)  # (setitem assigns any view)
    assert row.copy_to_host().tolist() == [5] * 5


def test_broadcast_arrays_keep_their_strides():
    d = cuda.to_device(np.broadcast_to(np.array([3]), (10,)))
    assert d.strides == (0,) and d._numba_type_.layout == "A" and d.alloc_size == 8
    out = cuda.device_array(10, dtype=np.int64)
    _double[1, 16](d, out)
    assert out.copy_to_host().tolist() == [6] * 10


@cuda.jit
def _double(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = 2 * x[i]


def test_array_conversion_squeeze_and_host_device_arrays():
    d = cuda.to_device(np.arange(3.0).reshape(1, 3, 1))
    with pytest.raises(ValueError, match="`copy=False` is not supported"):
        np.array(d, copy=False)
    assert np.asarray(d, dtype=np.float32).dtype == np.float32
    assert d.squeeze().shape == (3,) and d.squeeze(axis=2).shape == (1, 3)
    with pytest.raises(ValueError):
        d.squeeze(axis=1)
    mapped = cuda.mapped_array(10, dtype=np.uint32)
    mapped.fill(123)
    assert driver.is_device_memory(mapped) and driver.device_memory_size(mapped) == 40
    driver.device_memset(mapped, 0, driver.device_memory_size(mapped))
    assert not mapped.any()


def test_ufunc_into_a_foreign_array_returns_a_device_array():
    @cuda.vectorize(["f8(f8, f8)"])
    def add(a, b):
        return a + b

    target = cuda.device_array(4)
    foreign = type("Foreign", (), {"__cuda_array_interface__": target.__cuda_array_interface__})()
    got = add(np.arange(4.0), 6.0, out=foreign)
    assert isinstance(got, cuda.DeviceNDArray) and got.copy_to_host().tolist() == [6.0, 7.0, 8.0, 9.0]


@pytest.mark.parametrize("simulator", ["0", "1"])
def test_numba_disable_cuda(simulator):
    """NUMBA_DISABLE_CUDA=1, as numba-cuda: the first CUDA operation raises CudaSupportError with numba-cuda's
    text, which cuda_error() then gives; is_available() is False. The simulator is unaffected."""
    import os
    import subprocess
    import sys
    code = ("from kfront import cuda\n"
            "try:\n"
            "    cuda.device_array(1)\n"
            "    print('ran')\n"
            "except cuda.CudaSupportError as e:\n"
            "    print(e.msg)\n"
            "print(cuda.cuda_error(), cuda.is_available())\n")
    python_dir = os.path.dirname(os.path.dirname(os.path.dirname(cuda.__file__)))
    env = dict(os.environ, NUMBA_DISABLE_CUDA="1", KFRONT_SIM=simulator, PYTHONPATH=python_dir)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    if simulator == "1":
        assert r.stdout.split("\n")[:2] == ["ran", "None True"]
    else:
        disabled = ("CUDA is disabled due to setting NUMBA_DISABLE_CUDA=1 in the environment, or because CUDA is "
                    "unsupported on 32-bit systems.")
        assert r.stdout.split("\n")[:2] == [disabled, disabled + " False"]
