"""numba-cuda's memory objects and its External Memory Management (EMM) plugin interface, over kfront's runtime
(numba-cuda's documentation, "External Memory Management (EMM) Plugin interface", is the spec).

Memory pointers, what a context's memalloc / memhostalloc / mempin / memallocmanaged give:
  MemoryPointer     device memory at `device_pointer` (an int; `handle` the same, `device_pointer_value` None for
                    0), `size` bytes, with an optional finalizer called once when the object goes or `free()` is
                    called; `view(start, stop=None)`, `memset(byte, count=None, stream=0)`, `own()`, `refct`
  AutoFreePointer   a MemoryPointer freed when the last of its owned references (`own()`, views) goes
  MappedMemory      pinned host memory mapped into the device's address space (`host_pointer`, `device_pointer`)
  PinnedMemory      pinned host memory (`host_pointer`)
  ManagedMemory     managed memory, one address for the host and the device
  OwnedPointer      a counted reference to one of them (MappedOwnedPointer, ManagedOwnedPointer: the same, of
                    mapped and managed memory); attributes are the referenced pointer's
Host memory objects (PinnedMemory, MappedMemory's and ManagedMemory's owned pointers) export their bytes through
the buffer protocol where Python has `__buffer__` (3.12 and later): `np.ndarray(n, np.uint8, buffer=mem)`.

The plugin interface: BaseCUDAMemoryManager (abstract: memalloc, memhostalloc, mempin, initialize,
get_ipc_handle, get_memory_info, reset, defer_cleanup, interface_version), HostOnlyCUDAMemoryManager (host
allocations done by kfront, for plugins that allocate only device memory), GetIpcHandleMixin (get_ipc_handle
through the driver), set_memory_manager(cls) (checks the interface version: 1). KfrontMemoryManager is kfront's
own (numba-cuda's NumbaCUDAMemoryManager): device memory from kfront's runtime, freed through its pending
deallocations. A context whose memory_manager is a plugin has every device array of its device allocated by the
plugin's memalloc. config.CUDA_MEMORY_MANAGER names a module whose `_numba_memory_manager` is the plugin class
("default": kfront's). On the simulator every allocation is simulator memory (host memory standing in for the
device's); a plugin allocates what it likes.
"""
import abc
import contextlib
import ctypes
import importlib
import weakref
from collections import namedtuple

from kfront import _kfront, config
from kfront.cuda import _runtime

SUPPORTED_EMM_INTERFACE_VERSION = 1

MemoryInfo = namedtuple("MemoryInfo", "free,total")
MemoryInfo.__doc__ = "Free and total memory of a device, in bytes (numba-cuda's MemoryInfo)."


def _address(pointer):
    """An address given as an int, a ctypes pointer (c_void_p, c_size_t) or an object with a `value`."""
    if pointer is None:
        return 0
    if isinstance(pointer, int):
        return pointer
    value = getattr(pointer, "value", pointer)
    return int(value or 0)


def _runtime_of(context):
    return _runtime.runtime(context.device.id) if context is not None else _runtime.runtime()


class _HostBytes(_kfront.HostBytes):
    """Host memory objects: their bytes (`_bufptr_`, `_buflen_`) through the buffer protocol, on every Python
    (np.ndarray(n, dtype, buffer=mem), memoryview(mem)), as kfront._kfront.HostBytes exports them."""


class MemoryPointer:
    """Device memory that an optional finalizer frees: called once, when the object goes or at free()."""

    __cuda_memory__ = True

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.context = context
        self.device_pointer = _address(pointer)
        self.size = size
        self._cuda_memsize_ = size
        self.is_managed = finalizer is not None
        self.refct = 1
        self.handle = self.device_pointer
        self._owner = owner
        if finalizer is not None:
            self._finalizer = weakref.finalize(self, finalizer)

    @property
    def owner(self):
        return self if self._owner is None else self._owner

    def own(self):
        return OwnedPointer(weakref.proxy(self))

    def free(self):
        """Frees the memory now (its finalizer runs); RuntimeError when it was freed already."""
        if self.is_managed:
            if not self._finalizer.alive:
                raise RuntimeError("Freeing dead memory")
            self._finalizer()

    def memset(self, byte, count=None, stream=0):
        count = self.size if count is None else count
        if count:
            _runtime_of(self.context).memset(self.device_pointer, byte, count, _runtime.stream_arg(stream))

    def view(self, start, stop=None):
        """The memory from byte start to stop (the end by default), keeping this memory alive."""
        size = (self.size if stop is None else stop) - start
        if not self.device_pointer:
            if size != 0:
                raise RuntimeError("non-empty slice into empty slice")
            view = self
        else:
            if size < 0:
                raise RuntimeError("size cannot be negative")
            view = MemoryPointer(self.context, self.device_pointer + start, size, owner=self.owner)
        if isinstance(self.owner, (MemoryPointer, OwnedPointer)):
            return OwnedPointer(weakref.proxy(self.owner), view)
        return view

    @property
    def device_ctypes_pointer(self):
        return ctypes.c_size_t(self.device_pointer)

    @property
    def device_pointer_value(self):
        return self.device_pointer or None

    def __eq__(self, other):
        """The same memory: the same address and size (a device array's gpu_data is made on each request)."""
        if not isinstance(other, (MemoryPointer, OwnedPointer)):
            return NotImplemented
        return (self.device_pointer, self.size) == (other.device_pointer, other.size)

    def __hash__(self):
        return hash((self.device_pointer, self.size))

    def __repr__(self):
        return "<kfront %s %#x, %d bytes>" % (type(self).__name__, self.device_pointer, self.size)


class AutoFreePointer(MemoryPointer):
    """A MemoryPointer freed when the last of its owned references goes (its own reference is not counted)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.refct -= 1


class MappedMemory(AutoFreePointer):
    """Pinned host memory at `host_pointer`, mapped into the device's address space at `device_pointer`."""

    __cuda_memory__ = True

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.owned = owner
        self.host_pointer = _address(pointer)
        devptr = _runtime_of(context).host_device_pointer(self.host_pointer) if self.host_pointer else 0
        super().__init__(context, devptr, size, finalizer=finalizer)
        self.handle = self.host_pointer
        self._bufptr_, self._buflen_ = self.host_pointer, size

    def own(self):
        return MappedOwnedPointer(weakref.proxy(self))


class PinnedMemory(_HostBytes):
    """Pinned (page-locked) host memory at `host_pointer`; its finalizer runs when the object goes."""

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.context = context
        self.owned = owner
        self.size = size
        self.host_pointer = _address(pointer)
        self.is_managed = finalizer is not None
        self.handle = self.host_pointer
        self._bufptr_, self._buflen_ = self.host_pointer, size
        if finalizer is not None:
            weakref.finalize(self, finalizer)

    def own(self):
        return self


class ManagedMemory(AutoFreePointer):
    """Managed memory: the host and the device use the same address, `device_pointer`."""

    __cuda_memory__ = True

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.owned = owner
        super().__init__(context, pointer, size, finalizer=finalizer)
        self._bufptr_, self._buflen_ = self.device_pointer, size

    def own(self):
        return ManagedOwnedPointer(weakref.proxy(self))


class OwnedPointer:
    """A counted reference to a memory pointer (`view`: a view of it, which is what is used): the memory's refct
    counts it, and the memory is freed when an AutoFreePointer's count reaches 0."""

    def __init__(self, memptr, view=None):
        self._mem = memptr
        self._view = self._mem if view is None else view
        mem = self._mem

        def release():
            try:
                mem.refct -= 1
                if mem.refct == 0:
                    mem.free()
            except ReferenceError:  # the memory itself is gone already
                pass

        self._mem.refct += 1
        weakref.finalize(self, release)
        self.device_ctypes_pointer = self._view.device_ctypes_pointer

    def __getattr__(self, name):
        return getattr(self._view, name)

    def __eq__(self, other):
        if not isinstance(other, (MemoryPointer, OwnedPointer)):
            return NotImplemented
        return (self.device_pointer, self.size) == (other.device_pointer, other.size)

    def __hash__(self):
        return hash((self.device_pointer, self.size))


class MappedOwnedPointer(OwnedPointer, _HostBytes):
    pass


class ManagedOwnedPointer(OwnedPointer, _HostBytes):
    pass


# ---- the EMM plugin interface -------------------------------------------------------------------------------

class BaseCUDAMemoryManager(metaclass=abc.ABCMeta):
    """The abstract base of EMM plugins: made with `context=` the context whose memory it manages."""

    def __init__(self, *args, **kwargs):
        if "context" not in kwargs:
            raise RuntimeError("Memory manager requires a context")
        self.context = kwargs.pop("context")

    @abc.abstractmethod
    def memalloc(self, size):
        """Device memory of size bytes: a MemoryPointer (or an owned reference to one) that owns it."""

    @abc.abstractmethod
    def memhostalloc(self, size, mapped, portable, wc):
        """Pinned host memory: MappedMemory when mapped into the device's address space, else PinnedMemory."""

    @abc.abstractmethod
    def mempin(self, owner, pointer, size, mapped):
        """Pins size bytes of host memory at pointer, which owner owns: MappedMemory or PinnedMemory."""

    @abc.abstractmethod
    def initialize(self):
        """Readies the plugin for use (called whenever its context is made current; may be called again)."""

    @abc.abstractmethod
    def get_ipc_handle(self, memory):
        """An IpcHandle of the allocation of a MemoryPointer."""

    @abc.abstractmethod
    def get_memory_info(self):
        """(free, total) bytes of the context's device, a MemoryInfo; may raise NotImplementedError."""

    @abc.abstractmethod
    def reset(self):
        """Frees all the memory the plugin allocated in its context."""

    @abc.abstractmethod
    def defer_cleanup(self):
        """A context manager during which no memory is freed."""

    @property
    @abc.abstractmethod
    def interface_version(self):
        """The version of the plugin interface it implements: 1."""


class HostOnlyCUDAMemoryManager(BaseCUDAMemoryManager):
    """The base of plugins that allocate only device memory: pinned, mapped and managed memory are kfront's (its
    runtime's, freed through its pending deallocations). A subclass that overrides reset or defer_cleanup calls
    these too (super())."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.allocations = {}   # memory by address, as numba-cuda keeps it: what owned references are to
        # kfront's pending deallocations of the device (the context's: its Buffers wait there)
        self.deallocations = self.context.deallocations if self.context is not None else None

    def _rt(self):
        return _runtime_of(self.context)

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        buf = self._rt().host_alloc(size, bool(mapped))
        release = _Release(buf)
        if mapped:
            mem = MappedMemory(_weak(self.context), buf.ptr, size, finalizer=_forgetting(self, buf.ptr,
                                                                                                 release))
            self.allocations[buf.ptr] = mem
            return mem.own()
        return PinnedMemory(_weak(self.context), buf.ptr, size, finalizer=release)

    def mempin(self, owner, pointer, size, mapped=False):
        rt = self._rt()
        pointer = _address(pointer)
        rt.host_register(pointer, size, bool(mapped))
        unpin = _Unpin(rt, pointer)  # at once when the memory goes, as numba-cuda: the memory may be pinned again
        if mapped:
            mem = MappedMemory(_weak(self.context), pointer, size, owner=owner,
                               finalizer=_forgetting(self, pointer, unpin))
            self.allocations[pointer] = mem
            return mem.own()
        return PinnedMemory(_weak(self.context), pointer, size, owner=owner, finalizer=unpin)

    def memallocmanaged(self, size, attach_global=True):
        buf = self._rt().managed_alloc(size, bool(attach_global))
        mem = ManagedMemory(_weak(self.context), buf.ptr, size,
                            finalizer=_forgetting(self, buf.ptr, _Release(buf)))
        self.allocations[buf.ptr] = mem
        return mem.own()

    def reset(self):
        self.allocations.clear()
        if self.deallocations is not None:
            self.deallocations.clear()

    @contextlib.contextmanager
    def defer_cleanup(self):
        if self.deallocations is None:
            yield
            return
        with self.deallocations.disable():
            yield


class GetIpcHandleMixin:
    """get_ipc_handle through the driver: the handle of the allocation the memory lies in (cuIpcGetMemHandle), and
    the memory's offset into it."""

    def get_ipc_handle(self, memory):
        from kfront.cuda import ipc
        return ipc.ipc_handle_of(memory, self.context)


class KfrontMemoryManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
    """kfront's own memory manager (numba-cuda's NumbaCUDAMemoryManager): device memory from kfront's runtime,
    which waits among the pending deallocations (`deallocations`) when its last user goes."""

    def initialize(self):
        pass

    def memalloc(self, size):
        buf = self._rt().alloc(size)
        key = buf.ptr if size else id(buf)
        mem = AutoFreePointer(_weak(self.context), buf.ptr, size,
                              finalizer=_forgetting(self, key, _Release(buf)))
        self.allocations[key] = mem  # (what keeps it alive: its owned references hold weak ones)
        return mem.own()

    def get_memory_info(self):
        return _runtime.memory_info(self.context.device.id)

    @property
    def interface_version(self):
        return SUPPORTED_EMM_INTERFACE_VERSION

    def __repr__(self):
        return "<kfront memory manager of device %d>" % self.context.device.id


def _weak(obj):
    """A weak proxy of obj, or obj itself where it is one already (a plugin may be given its context as a proxy,
    and a proxy of a proxy cannot be made)."""
    return obj if isinstance(obj, weakref.ProxyTypes) else weakref.proxy(obj)


class _Release:
    """A finalizer that lets go of a runtime Buffer: its memory then waits among the pending deallocations."""

    def __init__(self, buf):
        self.buf = buf

    def __call__(self):
        self.buf = None


class _Unpin:
    def __init__(self, rt, pointer):
        self.rt, self.pointer = rt, pointer

    def __call__(self):
        self.rt.host_unregister(self.pointer)


def _forgetting(manager, key, finalize):
    """finalize, after the manager's record of the allocation at key is dropped."""
    allocations = manager.allocations

    def forget():
        allocations.pop(key, None)
        finalize()

    return forget


# ---- which manager contexts get ----------------------------------------------------------------------------

_manager_class = None


def set_memory_manager(mm_plugin):
    """Makes contexts made from now on use the EMM plugin class mm_plugin; RuntimeError when it implements another
    version of the interface than 1."""
    global _manager_class
    version = mm_plugin(context=None).interface_version
    if version != SUPPORTED_EMM_INTERFACE_VERSION:
        raise RuntimeError("EMM Plugin interface has version %d - version %d required"
                           % (version, SUPPORTED_EMM_INTERFACE_VERSION))
    _manager_class = mm_plugin


def manager_class():
    """The class of the memory manager a new context gets: set_memory_manager's, else config.CUDA_MEMORY_MANAGER's
    module's `_numba_memory_manager`, else kfront's."""
    global _manager_class
    if _manager_class is None:
        name = config.CUDA_MEMORY_MANAGER
        if name == "default":
            return KfrontMemoryManager
        try:
            set_memory_manager(importlib.import_module(name)._numba_memory_manager)
        except Exception as e:
            raise RuntimeError("Failed to use memory manager from %s" % name) from e
    return _manager_class


def is_kfront_manager(manager):
    """Whether a context's memory manager is kfront's own (its device arrays then allocate from the runtime)."""
    return type(manager) is KfrontMemoryManager


def plugin_allocation(context, nbytes):
    """(address, owner) of device memory a plugin's memalloc gives (the owner keeps it alive). On the simulator,
    whose device memory is host memory, the block is registered with it while the owner lives: the simulator
    refuses addresses that no allocation of its own or registration holds."""
    mem = context.memory_manager.memalloc(nbytes)
    address = _address(getattr(mem, "device_pointer", 0))
    rt = _runtime.runtime()
    if rt.mode == "sim" and address and nbytes:
        rt.host_register(address, nbytes)
        weakref.finalize(mem, rt.host_unregister, address)
    return address, mem

