"""kfront.cuda.driver — numba-cuda's numba.cuda.cudadrv.driver host API over kfront's runtime (what the alias
gives as that module, with kfront.cuda.memory's memory objects and EMM plugin interface, and the devices,
contexts, streams and events of kfront.cuda._runtime):

  driver                      the Driver: is_available, initialization_error, get_device(n), get_device_count(),
                              list_devices(), reset(), cuMemGetInfo() (the current device's (free, total)).
                              kfront's runtime calls the CUDA driver in C: the driver's other functions (cuMemAlloc,
                              ...) are not attributes of it (AttributeError names them)
  host_to_device(dst, src, size, stream=0), device_to_host(dst, src, size, stream=0),
  device_to_device(dst, src, size, stream=0), device_memset(dst, val, size, stream=0)
                              copies and memset of `size` bytes between device memory (any object with
                              __cuda_memory__ and device_ctypes_pointer: memory pointers, device arrays) and host
                              memory (an address, or any object of the buffer protocol); asynchronous on a stream
  host_pointer(obj), host_memory_extents(obj), host_memory_size(obj), memory_size_from_info(shape, strides,
  itemsize), device_pointer(obj), device_ctypes_pointer(obj), device_extents(obj), device_memory_size(obj),
  is_device_memory(obj), require_device_memory(obj), device_memory_depends(devmem, *objs)

On the simulator every device address is simulator memory (host memory standing in for the device's).
"""
import ctypes

import numpy as np

from kfront import _kfront, errors
from kfront.cuda import _runtime
from kfront.cuda._runtime import Context, Device, Event, Stream, event_elapsed_time  # noqa: F401 (the module's names)
from kfront.cuda.ipc import IpcHandle  # noqa: F401
from kfront.cuda.memory import (AutoFreePointer, BaseCUDAMemoryManager, GetIpcHandleMixin,  # noqa: F401
                                HostOnlyCUDAMemoryManager, ManagedMemory, ManagedOwnedPointer, MappedMemory,
                                MappedOwnedPointer, MemoryInfo, MemoryPointer, OwnedPointer, PinnedMemory,
                                set_memory_manager)
from kfront.cuda.memory import KfrontMemoryManager as NumbaCUDAMemoryManager  # noqa: F401

CudaAPIError = CudaDriverError = errors.CudaDriverError
CudaSupportError = errors.CudaSupportError

_HTOD, _DTOH, _DTOD = 0, 1, 2


class Driver:
    """The CUDA driver as kfront uses it (numba-cuda's cudadrv.driver.driver), one per process."""

    _singleton = None

    def __new__(cls):
        if cls._singleton is None:
            cls._singleton = object.__new__(cls)
        return cls._singleton

    @property
    def initialization_error(self):
        """Why no device can be used (text), or None."""
        try:
            _runtime.runtime()
        except errors.KfrontError as e:
            return str(e)
        return None

    @property
    def is_available(self):
        return self.initialization_error is None

    def get_device(self, devnum=0):
        return _runtime.gpus[devnum]

    def get_device_count(self):
        return _runtime.device_count()

    def list_devices(self):
        return list(_runtime.gpus)

    def reset(self):
        for dev in _runtime.gpus:
            dev.reset()

    def cuMemGetInfo(self):
        """(free, total) bytes of the current device (the simulator's: infinite, as numba-cuda's simulator says)."""
        return tuple(_runtime.memory_info(_runtime.get_current_device().id))

    def __getattr__(self, name):
        if name.startswith("cu"):
            raise AttributeError("kfront: the CUDA driver's %s is not exposed (kfront's runtime calls the driver in "
                                 "C; kfront.cuda's host API does what it is used for)" % name)
        raise AttributeError(name)


driver = Driver()


def cuda_error():
    """numba.cuda.cuda_error(): None when devices can be used, else why not (text)."""
    return driver.initialization_error


# ---- addresses and sizes ---------------------------------------------------------------------------------

def is_device_memory(obj):
    """Whether obj is CUDA memory: it has __cuda_memory__ set (memory pointers, device arrays)."""
    return bool(getattr(obj, "__cuda_memory__", False))


def require_device_memory(obj):
    if not is_device_memory(obj):
        raise Exception("Not a CUDA memory object.")


def device_ctypes_pointer(obj):
    """The device address of CUDA memory, as a ctypes object (c_void_p(0) for None)."""
    if obj is None:
        return ctypes.c_void_p(0)
    require_device_memory(obj)
    return obj.device_ctypes_pointer


def device_pointer(obj):
    """The device address of CUDA memory, an int (None for 0)."""
    return device_ctypes_pointer(obj).value


def device_extents(devmem):
    """(start, end) of the whole allocation devmem lies in (not only of devmem): the driver's
    cuMemGetAddressRange; on the simulator, of kfront's own allocations only."""
    ptr = device_pointer(devmem) or 0
    owner = getattr(devmem, "_owner", None)
    if isinstance(owner, _kfront.Buffer):
        return owner.ptr, owner.ptr + owner.nbytes
    rt = _runtime.runtime()
    if rt.mode == "sim":
        raise errors.NotOnSimulatorError("kfront: the simulator cannot tell which allocation %#x lies in (its "
                                         "device memory is this process's host memory)" % ptr)
    base, size = rt.pointer_range(ptr)
    return base, base + size


def device_memory_size(devmem):
    """The size of device memory in bytes: its own record of it (_cuda_memsize_), else its allocation's."""
    size = getattr(devmem, "_cuda_memsize_", None)
    if size is None:
        start, end = device_extents(devmem)
        size = devmem._cuda_memsize_ = end - start
    return size


def device_memory_depends(devmem, *objs):
    """Keeps objs alive as long as devmem (structures in device memory that point at other device memory)."""
    depends = getattr(devmem, "_depends_", None)
    if depends is None:
        depends = devmem._depends_ = []
    depends.extend(objs)


def _host_buffer(obj):
    """obj as a NumPy array over its own bytes (datetime64 and timedelta64 as int64, which the buffer protocol
    takes; a record as its bytes)."""
    if isinstance(obj, np.void):
        return np.frombuffer(obj, dtype=np.uint8)
    if isinstance(obj, np.ndarray):
        return obj.view(np.int64) if obj.dtype.char in "Mm" else obj
    if isinstance(obj, np.generic):
        return np.asarray(obj)
    return np.frombuffer(memoryview(obj).cast("B"), dtype=np.uint8)


def host_pointer(obj, readonly=False):
    """The host address of obj's bytes (an int is an address already). The memory must stay as it is until an
    asynchronous copy from or to it is complete."""
    if isinstance(obj, int):
        return obj
    return _host_buffer(obj).__array_interface__["data"][0]


def memory_size_from_info(shape, strides, itemsize):
    """The bytes an array of shape, strides and itemsize spans."""
    if any(n == 0 for n in shape):
        return 0
    lo = hi = 0
    for n, s in zip(shape, strides):
        if s >= 0:
            hi += (n - 1) * s
        else:
            lo += (n - 1) * s
    return hi + itemsize - lo


def host_memory_extents(obj):
    """(start, end) of the host memory obj spans (half open)."""
    ary = _host_buffer(obj)
    start = ary.__array_interface__["data"][0]
    lo = sum((n - 1) * s for n, s in zip(ary.shape, ary.strides) if s < 0) if ary.size else 0
    return start + lo, start + lo + memory_size_from_info(ary.shape, ary.strides, ary.itemsize)


def host_memory_size(obj):
    start, end = host_memory_extents(obj)
    return end - start


# ---- copies ----------------------------------------------------------------------------------------------

def _copy(kind, dst, src, size, stream):
    if size:
        _runtime.runtime().memcpy(kind, dst, src, size, _runtime.stream_arg(stream))


def host_to_device(dst, src, size, stream=0):
    """size bytes from host memory src to device memory dst (asynchronous on a stream)."""
    _copy(_HTOD, device_pointer(dst), host_pointer(src, readonly=True), size, stream)


def device_to_host(dst, src, size, stream=0):
    """size bytes from device memory src to host memory dst (asynchronous on a stream)."""
    _copy(_DTOH, host_pointer(dst), device_pointer(src), size, stream)


def device_to_device(dst, src, size, stream=0):
    """size bytes from device memory src to device memory dst (asynchronous on a stream)."""
    _copy(_DTOD, device_pointer(dst), device_pointer(src), size, stream)


def device_memset(dst, val, size, stream=0):
    """size bytes of device memory dst set to the byte val (asynchronous on a stream)."""
    if size:
        _runtime.runtime().memset(device_pointer(dst), val, size, _runtime.stream_arg(stream))
