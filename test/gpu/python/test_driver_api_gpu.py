"""GPU machine only (test/gpu/run_python_gpu.sh): numba-cuda's driver-side host API under kfront where only a GPU
shows it — managed memory (cuMemAllocManaged: one address for the host and kernels), mapped memory a kernel writes,
the allocation an address lies in (cuMemGetAddressRange: device_extents, the IPC handle of a view and of a foreign
array, opened in a spawned process), an EMM plugin's memory used by kernels, and cuda.core streams taken as
streams. kfront's simulator tests of the same API are python/tests/test_cuda_driver_api.py."""
import pickle
import subprocess
import sys
import weakref

import numpy as np
import pytest

from kfront import cuda
from kfront.cuda import driver


@cuda.jit
def _add(a, v):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += v


def test_on_a_gpu():
    assert cuda.current_context().device.compute_capability >= (6, 0)
    from kfront.cuda import _runtime
    assert _runtime.runtime().mode == "gpu"


def test_managed_memory_is_the_hosts_and_the_kernels():
    ctx = cuda.current_context()
    for attach_global in (True, False):
        mem = ctx.memallocmanaged(4096, attach_global=attach_global)
        driver.device_memset(mem, 0xAB, 4096)
        ctx.synchronize()
        if sys.version_info >= (3, 12):  # (the buffer protocol of Python objects)
            ary = np.ndarray(4096, dtype=np.uint8, buffer=mem)
            assert (ary == 0xAB).all()
    ary = cuda.managed_array(1000, dtype=np.float64)
    ary.fill(1.5)
    _add[8, 128](ary, 2.0)
    cuda.synchronize()
    assert (ary == 3.5).all()   # written in place: no copy back


def test_mapped_memory_written_by_a_kernel():
    ctx = cuda.current_context()
    mem = ctx.memhostalloc(256 * 4, mapped=True)
    assert mem.device_pointer and mem.host_pointer
    ary = cuda.mapped_array(256, dtype=np.float32)
    ary[:] = 1
    _add[2, 128](ary, 1.0)
    cuda.synchronize()
    assert (ary == 2).all()


class _Foreign:
    """Device memory of someone else (as CuPy's arrays), by the CUDA array interface only."""

    def __init__(self, arr):
        self.arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


def test_device_extents_are_the_allocations():
    d = cuda.to_device(np.arange(100, dtype=np.int64))
    base = d.gpu_data.device_pointer
    view = cuda.as_cuda_array(_Foreign(d[10:20]))  # memory kfront did not allocate, as far as it knows
    assert driver.device_extents(view.gpu_data) == (base, base + 800)
    assert driver.device_memory_size(d[10:20].gpu_data) == 80


IPC_CHILD = """
import pickle, sys
import numpy as np
from kfront import cuda
with open(sys.argv[1], "rb") as f:
    handles = pickle.load(f)
for h in handles:
    d = h.open_array(cuda.current_context(), shape=h.size // 8, dtype=np.int64)
    print(d.copy_to_host().tolist())
    h.close()
"""


def test_ipc_handles_of_views_and_foreign_arrays(tmp_path):
    d = cuda.to_device(np.arange(10, dtype=np.int64))
    ctx = cuda.current_context()
    handles = [ctx.get_ipc_handle(d.gpu_data), ctx.get_ipc_handle(d[3:8].gpu_data),
               ctx.get_ipc_handle(cuda.as_cuda_array(_Foreign(d[4:])).gpu_data)]
    assert [h.offset for h in handles] == [0, 24, 32] and len(handles[0].handle.reserved) == 64
    (tmp_path / "child.py").write_text(IPC_CHILD)
    with open(tmp_path / "handles.pkl", "wb") as f:
        pickle.dump(handles, f)
    r = subprocess.run([sys.executable, str(tmp_path / "child.py"), str(tmp_path / "handles.pkl")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:3] == [str(list(range(10))), str([3, 4, 5, 6, 7]), str([4, 5, 6, 7, 8, 9])]


class _CountingPlugin(cuda.GetIpcHandleMixin, cuda.HostOnlyCUDAMemoryManager):
    """A plugin allocating device memory through kfront's own manager, counting its allocations."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        from kfront.cuda.memory import KfrontMemoryManager
        self.inner = KfrontMemoryManager(context=self.context)
        self.count = 0

    def memalloc(self, size):
        self.count += 1
        return self.inner.memalloc(size)

    def initialize(self):
        pass

    def get_memory_info(self):
        return self.inner.get_memory_info()

    @property
    def interface_version(self):
        return 1


def test_plugin_memory_in_kernels():
    ctx = cuda.current_context()
    saved = ctx.memory_manager
    ctx.memory_manager = plugin = _CountingPlugin(context=weakref.proxy(ctx))
    try:
        d = cuda.to_device(np.zeros(512, dtype=np.float32))
        _add[4, 128](d, 3.0)
        assert (d.copy_to_host() == 3).all() and plugin.count == 1
        assert ctx.get_memory_info().total > 0
    finally:
        ctx.memory_manager = saved


def test_cuda_core_streams_are_streams():
    core = pytest.importorskip("cuda.core.experimental")
    dev = core.Device()
    dev.set_current()
    s = dev.create_stream()
    start, end = cuda.event(), cuda.event()
    d = cuda.to_device(np.zeros(1 << 20, dtype=np.float32), stream=s)
    start.record(s)
    _add[1 << 12, 256, s](d, 1.0)
    end.record(s)
    end.synchronize()
    assert start.elapsed_time(end) > 0
    assert (d.copy_to_host(stream=s) == 1).all()
