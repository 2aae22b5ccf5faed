"""IPC handles, as numba-cuda has them ("Sharing CUDA Memory"): device memory of one process opened in another of
the same machine. `devary.get_ipc_handle()` gives an IpcArrayHandle (it pickles: send it to the other process),
whose `open()` there gives a DeviceNDArray over the same memory and `close()` unmaps it (also as a context
manager); `cuda.open_ipc_array(handle, shape, dtype, strides=None, offset=0)` opens the raw handle (the 64 bytes,
`IpcHandle.handle.reserved`) as an array, as a context manager; `current_context().get_ipc_handle(memory)` gives the
IpcHandle of any device memory (a device array's gpu_data, a MemoryPointer): the handle of the allocation it lies
in (cuMemGetAddressRange finds it; on the simulator only kfront's own allocations are known) and its offset. The memory stays its own process's: it must outlive every
use elsewhere. On a GPU through the driver's cuIpcGetMemHandle / cuIpcOpenMemHandle / cuIpcCloseMemHandle
(kf_ipc_*); the simulator's device memory is this process's host memory, which no other process can open:
kfront.errors.NotOnSimulatorError (an AttributeError, as numba-cuda's simulator has no IPC)."""
import contextlib

import numpy as np

from kfront import _kfront, errors
from kfront.cuda import _runtime


def gpu_runtime(devnum=None):
    rt = _runtime.runtime(devnum)
    if rt.mode == "sim":
        raise errors.NotOnSimulatorError("kfront: IPC handles need a GPU: the simulator's device memory is this "
                                         "process's host memory, which other processes cannot open")
    return rt


class _OpenedMemory:
    """Memory of another process mapped into this one (what a DeviceNDArray opened from a handle keeps alive)."""

    def __init__(self, rt, ptr, size):
        self.runtime, self.ptr, self.size = rt, ptr, size


class IpcMemHandle(bytes):
    """The driver's IPC handle of an allocation (its 64 bytes), with `reserved`, the bytes, as cuda-python's
    CUipcMemHandle has them."""

    @property
    def reserved(self):
        return bytes(self)


class IpcHandle:
    """numba-cuda's IpcHandle: the driver's handle (`handle`, an IpcMemHandle) of an allocation, the `size` of the
    shared memory, its `offset` into the allocation and `source_info` (the device it is on). It pickles; `open()`
    maps the memory into this process (not the one that made the handle: ValueError, as numba-cuda's), `close()`
    unmaps it; `open_staged(context)` gives a copy of the memory in context's device instead."""

    def __init__(self, base, handle, size, source_info=None, offset=0):
        self.base = base  # the allocation, in the process that made the handle (keeps it alive); None elsewhere
        self.handle = IpcMemHandle(handle)
        self.size = size
        self.source_info = source_info
        self.offset = offset
        self._opened = None

    def open(self, context=None):
        """Maps the memory into this process: the address of the shared memory (its offset included)."""
        if self.base is not None:
            raise ValueError("opening IpcHandle from original process")
        if self._opened is not None:
            raise ValueError("IpcHandle is already opened")
        devnum = context.device.id if context is not None else None
        rt = gpu_runtime(devnum)
        ptr = rt.ipc_open_handle(self.handle)
        self._opened = _OpenedMemory(rt, ptr, self.offset + self.size)
        return ptr + self.offset

    def open_array(self, context, shape, dtype, strides=None):
        """open(), as a DeviceNDArray of shape, dtype and strides (None: 1-D contiguous, numba-cuda's default)."""
        from kfront.cuda.devicearray import DeviceNDArray
        dtype = np.dtype(dtype)
        if strides is None:
            strides = dtype.itemsize
        if isinstance(strides, (int, np.integer)):
            strides = (int(strides),)
        ptr = self.open(context)
        return DeviceNDArray(shape, strides, dtype, gpu_data=(ptr, self._opened), device=self._opened.runtime.device)

    def open_staged(self, context):
        """The shared memory copied into a new allocation of context's device (numba-cuda's staged opening, for a
        device that cannot read the source device's memory): opened on the source device, copied device to
        device, and closed again; returns the copy (a MemoryPointer), which close() lets go."""
        if self.base is not None:
            raise ValueError("opening IpcHandle from original process")
        if self._opened is not None:
            raise ValueError("IpcHandle is already opened")
        source = (self.source_info or {}).get("device", context.device.id)
        src_rt = gpu_runtime(source)
        ptr = src_rt.ipc_open_handle(self.handle)
        try:
            copy = context.memalloc(self.size)
            if self.size:
                dst_rt = gpu_runtime(context.device.id)
                if dst_rt is src_rt:
                    dst_rt.memcpy(2, copy.device_pointer, ptr + self.offset, self.size, None)
                else:
                    dst_rt.memcpy_peer(copy.device_pointer, src_rt, ptr + self.offset, self.size, None)
        finally:
            src_rt.ipc_close_handle(ptr)
        self._opened = _OpenedMemory(None, copy, self.size)
        return copy

    def close(self):
        if self._opened is None:
            raise ValueError("IpcHandle not opened")
        if self._opened.runtime is not None:  # (a staged copy is only let go)
            self._opened.runtime.ipc_close_handle(self._opened.ptr)
        self._opened = None

    def __reduce__(self):
        return (_rebuild_ipc_handle, (self.handle, self.size, self.source_info, self.offset))


def _rebuild_ipc_handle(handle, size, source_info, offset):
    return IpcHandle(None, handle, size, source_info, offset)


class IpcArrayHandle:
    """numba-cuda's IpcArrayHandle, what devary.get_ipc_handle() gives: pickle it to another process of the machine;
    there `open()` gives a DeviceNDArray over the same memory and `close()` releases it; `with handle as ary:` does
    both."""

    def __init__(self, ipc_handle, array_desc):
        self._ipc_handle = ipc_handle
        self._array_desc = array_desc

    def open(self):
        d = self._array_desc
        return self._ipc_handle.open_array(None, d["shape"], d["dtype"], d["strides"])

    def close(self):
        self._ipc_handle.close()

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()
        return False


def ipc_handle_of(memory, context):
    """The IpcHandle of device memory (an object with device_pointer and size: a MemoryPointer, a device array's
    gpu_data) of context's device: the handle of the allocation it lies in (the driver's cuMemGetAddressRange, or
    the kfront Buffer that owns it) and the memory's offset into that allocation."""
    rt = gpu_runtime(context.device.id)
    ptr, size = int(memory.device_pointer), int(memory.size)
    owner = getattr(memory, "_owner", None)
    if isinstance(owner, _kfront.Buffer):
        base = owner.ptr
    else:
        base, _ = rt.pointer_range(ptr)
    handle = rt.ipc_get_handle(base)
    return IpcHandle(memory, handle, size, {"device": rt.device}, offset=ptr - base)


def get_ipc_handle(ary):
    """The IpcArrayHandle of a DeviceNDArray: its memory's IpcHandle (its context's get_ipc_handle: the memory
    manager's) and its shape, strides and dtype."""
    context = _runtime.context_of(ary._rt().device)
    ipch = context.get_ipc_handle(ary.gpu_data)
    return IpcArrayHandle(ipch, dict(shape=ary.shape, strides=ary.strides, dtype=ary.dtype))


@contextlib.contextmanager
def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """numba.cuda.open_ipc_array: the memory of an IPC handle (its 64 bytes: bytes, or a sequence of ints) as a
    device array of shape, dtype and strides (None: 1-D contiguous), offset bytes into the allocation; closed when
    the block ends."""
    dtype = np.dtype(dtype)
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(n) for n in shape)
    size = int(np.prod(shape)) * dtype.itemsize
    ipch = IpcHandle(None, bytes(bytearray(handle)), size, offset=offset)
    ary = ipch.open_array(None, shape, dtype, strides)
    try:
        yield ary
    finally:
        ipch.close()
