"""The process's kfront runtimes, devices, streams and events — numba.cuda's `synchronize`, `stream`,
`default_stream`, `external_stream`, `event`, `event_elapsed_time`, `is_available`, `detect`, `gpus`,
`select_device`, `get_current_device`, `current_context` (numba-cuda's Context: `deallocations`, `memory_manager`,
`defer_cleanup`, `get_memory_info`, memalloc / memhostalloc / mempin / memallocmanaged, get_ipc_handle /
open_ipc_handle, create_stream / create_external_stream / create_event, the default streams, reset, push, pop),
`defer_cleanup`, `list_devices`, `close`, `is_float16_supported`, `is_bfloat16_supported`, `is_fp8_supported`.

Contexts, as numba-cuda's primary contexts: one Context object per device, made on first use with a memory
manager of the class kfront.cuda.memory.manager_class() gives (kfront's own, or an EMM plugin); Context.reset()
keeps it (its memory manager reset); cuda.close() and Device.reset() drop it, and the next use makes a new one.

Pending deallocations, as numba-cuda's: device memory (and pinned host memory) whose last array goes waits in its
runtime's queue (kf_device_free_deferred) and is freed with the others when more than config.CUDA_DEALLOCS_COUNT
blocks, or more than config.CUDA_DEALLOCS_RATIO of the device's memory, wait (read when a runtime is made and
whenever they are assigned), on `deallocations.clear()`, or when an allocation finds the device full; never while
`defer_cleanup()` is active. A flush first waits for the device's work, so memory a kernel may still use on some
stream is never freed under it.

One `kfront._kfront.Runtime` per device, made on first use from kfront.config (the GPUs when a CUDA driver and at
least one device are found, else the simulator, which presents KFRONT_SIM_DEVICES devices; `KFRONT_SIM=1` or
`NUMBA_ENABLE_CUDASIM=1` force it). The library reads no environment: this module reads it (kfront.config) and
passes options.

Devices, as numba-cuda's cudadrv/devices.py has them: each host thread has a current device (the C library's,
`_kfront.current_device()`: 0 until the thread selects one; a new thread starts on 0), which kernels, device
arrays, streams and events made on that thread use. `select_device(i)` and `with cuda.gpus[i]:` push device i on
the thread's stack of selections (the `with` pops it again, back to the device before); on a GPU they also make
the device's primary context the thread's current CUDA context, so CuPy and PyTorch calls that follow use it.
`close()` empties the thread's stack and, on the main thread, releases every device's runtime.
"""
import contextlib
import functools
import threading

from kfront import _kfront, config, errors
from kfront.cuda._cuda_core import cuda_array_interface_of

# objects without an array interface of their own (cuda.core's Buffer, StridedMemoryView) as kernel arguments
_kfront.set_interface_adapter(cuda_array_interface_of)

_lock = threading.RLock()
_runtimes = {}          # device ordinal -> _kfront.Runtime
_contexts = {}          # device ordinal -> Context (numba-cuda's primary context of the device)
_tls = threading.local()  # .stack: the devices this thread selected, innermost last
_count = None           # (options, how many devices they give)


def _options():
    return {"mode": "sim" if config.ENABLE_CUDASIM else "auto", "libcuda": config.KFRONT_LIBCUDA,
            "sim_devices": config.KFRONT_SIM_DEVICES}


def configure_cuda_paths():
    """Tells the C library where to look for libNVVM, libdevice, NVRTC and nvJitLink (config.cuda_search_paths()):
    before a runtime is made or a kernel compiled; the first call's settings stay."""
    _kfront.configure_cuda_paths(**config.cuda_search_paths())


def runtime(devnum=None):
    """The runtime of device `devnum` (None: the calling thread's current device), made on first use."""
    d = _kfront.current_device() if devnum is None else devnum
    rt = _runtimes.get(d)
    if rt is None:
        rt = _create(d)
    return rt


# numba-cuda's text of NUMBA_DISABLE_CUDA=1 (its driver's initialisation error)
CUDA_DISABLED = ("CUDA is disabled due to setting NUMBA_DISABLE_CUDA=1 in the environment, or because CUDA is "
                 "unsupported on 32-bit systems.")


def _create(devnum):
    with _lock:
        rt = _runtimes.get(devnum)
        if rt is None:
            errors.register()
            o = _options()
            if config.DISABLE_CUDA and o["mode"] != "sim":  # as numba-cuda's, the simulator is unaffected
                raise errors.CudaSupportError(CUDA_DISABLED)
            configure_cuda_paths()
            rt = _kfront.Runtime(mode=o["mode"], cache_dir=config.cache_dir(), backend=config.KFRONT_BACKEND,
                                 libcuda=o["libcuda"], grid_stride=config.KFRONT_GRID_STRIDE,
                                 thread_map=(2 if config.KFRONT_THREAD_MAP and config.KFRONT_BLOCK_PAIR
                                             else int(config.KFRONT_THREAD_MAP)),
                                 sim_workers=config.KFRONT_SIM_WORKERS, device=devnum,
                                 sim_devices=o["sim_devices"])
            _runtimes[devnum] = rt
            _apply_deallocation_limits(rt)
            _apply_sim_limits(rt)
        return rt


def _apply_deallocation_limits(rt):
    """numba-cuda's limits of the pending deallocations (config.CUDA_DEALLOCS_COUNT, CUDA_DEALLOCS_RATIO) on rt."""
    total = rt.memory_info()[1]
    rt.set_deallocation_limits(max(0, int(config.CUDA_DEALLOCS_COUNT)),
                               max(0, int(total * float(config.CUDA_DEALLOCS_RATIO))))


def _apply_sim_limits(rt):
    """kfront's limits of a simulator launch (config.KFRONT_SIM_MAX_STEPS, KFRONT_SIM_MAX_SECONDS) on rt, whose
    messages then name those settings."""
    if rt.mode != "sim":
        return
    rt.set_sim_limits(max(0, int(config.KFRONT_SIM_MAX_STEPS)), max(0.0, float(config.KFRONT_SIM_MAX_SECONDS)),
                      "kfront.config.KFRONT_SIM_MAX_STEPS or $KFRONT_SIM_MAX_STEPS",
                      "kfront.config.KFRONT_SIM_MAX_SECONDS or $KFRONT_SIM_MAX_SECONDS")


def _deallocation_limits_changed(name):
    if name in ("CUDA_DEALLOCS_COUNT", "CUDA_DEALLOCS_RATIO"):
        for rt in list(_runtimes.values()):
            _apply_deallocation_limits(rt)
    if name in ("KFRONT_SIM_MAX_STEPS", "KFRONT_SIM_MAX_SECONDS"):
        for rt in list(_runtimes.values()):
            _apply_sim_limits(rt)


config.add_listener(_deallocation_limits_changed)


def device_count():
    """How many devices kfront uses: the GPUs, or the simulator's KFRONT_SIM_DEVICES."""
    global _count
    o = _options()
    key = tuple(sorted(o.items()))
    if _count is None or _count[0] != key:
        errors.register()
        _count = (key, _kfront.device_count(**o))
    return _count[1]


def _check_device(devnum):
    """devnum as a device ordinal that exists; IndexError (as numba's cuda.gpus[devnum]) otherwise."""
    try:
        d = int(devnum)
    except (TypeError, ValueError):
        raise TypeError("kfront: a device is given by its number, not %r" % (devnum,)) from None
    n = device_count()
    if d < 0:
        d += n
    if not 0 <= d < n:
        raise IndexError("kfront: device %r does not exist (there %s %d: %s; the simulator presents "
                         "KFRONT_SIM_DEVICES of them)" % (devnum, "is" if n == 1 else "are", n,
                                                          "0" if n == 1 else "0 to %d" % (n - 1)))
    return d


def _stack():
    st = getattr(_tls, "stack", None)
    if st is None:
        st = _tls.stack = []
    return st


def _activate(devnum):
    """Makes devnum the thread's current device (its runtime made if need be: as numba makes the context)."""
    runtime(devnum).make_current()


def _push(devnum):
    d = _check_device(devnum)
    _activate(d)
    _stack().append(d)
    return d


def _pop(devnum=None):
    """Undoes the innermost selection (of devnum, when given): back to the device selected before, else 0."""
    st = _stack()
    if not st or (devnum is not None and st[-1] != devnum):
        raise RuntimeError("kfront: device %s is not the innermost device selected on this thread" % (
            devnum if devnum is not None else "(any)"))
    st.pop()
    prev = st[-1] if st else 0
    rt = _runtimes.get(prev)
    if rt is not None:
        rt.make_current()
    else:
        _kfront.set_current_device(prev)


def _release_runtime(devnum):
    """Releases one device's runtime: its kernels are compiled again, and its memory freed once nothing holds it."""
    with _lock:
        rt = _runtimes.pop(devnum, None)
    if rt is not None:
        rt.synchronize()
    from kfront.cuda import dispatcher
    dispatcher._forget_programs(devnum)


def _reset_device(devnum):
    """Device.reset(): the device's context is dropped (the next use makes a new one) and its runtime released."""
    with _lock:
        _contexts.pop(devnum, None)
    _release_runtime(devnum)


def close():
    """numba.cuda.close(): clears the calling thread's device selections (its current device is 0 again) and, on
    the main thread, releases every device's runtime: kernels, programs and allocations made so far must not be
    used afterwards; the next use makes new runtimes."""
    _stack().clear()
    _kfront.set_current_device(0)
    if threading.current_thread() is not threading.main_thread():
        return
    with _lock:
        rts = list(_runtimes.values())
        _runtimes.clear()
        _contexts.clear()
    for rt in rts:
        rt.synchronize()
    from kfront.cuda import dispatcher
    dispatcher._forget_programs()


def synchronize():
    """Waits for all work on the current device; raises a pending IndexError of an asynchronous launch."""
    runtime().synchronize()


@functools.cache
def have_nvjitlink():
    """numba-cuda's cudadrv.driver._have_nvjitlink: whether nvJitLink can link kernels (found where kfront's C library
    looks for it, kf_cuda_library_find, and of CUDA 12.3 or later, as numba-cuda asks). kfront links with it the GPU
    modules of kernels that call foreign code (cuda.jit(link=...), cuda.declare_device(..., link=...)), with
    link-time optimisation by default when it is found (cuda.jit's lto), and inspect_lto_ptx asks it for the PTX
    of that link (which needs no GPU: also on the simulator)."""
    configure_cuda_paths()
    info = _kfront.cuda_library("nvjitlink")
    return info["path"] is not None and tuple(info["version"] or (0, 0)) >= (12, 3)


def is_available():
    """Whether kernels can run: True on a GPU and on kfront's simulator (as numba-cuda's simulator says True, so
    code that branches on it takes its CUDA path); False only when kfront can make no runtime at all."""
    try:
        runtime()
        return True
    except errors.KfrontError:
        return False


def detect():
    """Prints the devices in numba-cuda's format ("Found N CUDA devices", a line per device with its attributes,
    the summary) and returns whether any is supported (compute capability 3.5 or above). On the simulator the
    devices are the simulated ones, named "kfront simulator" (numba-cuda's simulator names its one device
    SIMULATOR, and returns None: kfront returns the bool that numba-cuda's detect() documents)."""
    devs = list(gpus)
    print("Found %d CUDA devices" % len(devs))
    supported = 0
    for dev in devs:
        cc = dev.compute_capability
        attrs = [("Compute Capability", "%d.%d" % cc), ("UUID", dev.uuid),
                 ("FP16 Support", "Yes" if dev.supports_float16 else "No"),
                 ("BF16 Support", "Yes" if dev.supports_bfloat16 else "No"),
                 ("FP8 Support", "Yes" if dev.supports_fp8 else "No")]
        if cc < (3, 5):
            support = "[NOT SUPPORTED: CC < 3.5]"
        else:
            support = "[SUPPORTED (DEPRECATED)]" if cc < (5, 0) else "[SUPPORTED]"
            supported += 1
        print("id %d    %20s %40s" % (dev.id, dev.name, support))
        for key, val in attrs:
            print("%40s: %s" % (key, val))
    print("Summary:")
    print("\t%d/%d devices are supported" % (supported, len(devs)))
    return supported > 0


def is_float16_supported():
    """numba-cuda's: float16 is always supported (kfront's kernels compute in float16 on every device)."""
    return True


def is_bfloat16_supported():
    """Whether the current device computes in bfloat16 (compute capability 8.0 or above, as numba-cuda says; kfront's
    simulator, of compute capability 9.0, simulates it — numba-cuda's simulator says False, having no bfloat16)."""
    return get_current_device().supports_bfloat16


def is_fp8_supported():
    """Whether the current device has FP8 (compute capability 8.9 or above, as numba-cuda says)."""
    return get_current_device().supports_fp8

# ---- devices and contexts --------------------------------------------------------------------------------

_ATTRIBUTES = {
    "MAX_THREADS_PER_BLOCK": "max_threads_per_block",
    "MULTIPROCESSOR_COUNT": "multiprocessors",
    "WARP_SIZE": "warp_size",
    "MAX_SHARED_MEMORY_PER_BLOCK": "max_shared_per_block",
    "COMPUTE_CAPABILITY_MAJOR": None,
    "COMPUTE_CAPABILITY_MINOR": None,
    "MAX_BLOCK_DIM_X": ("max_block_dim", 0), "MAX_BLOCK_DIM_Y": ("max_block_dim", 1),
    "MAX_BLOCK_DIM_Z": ("max_block_dim", 2), "MAX_GRID_DIM_X": ("max_grid_dim", 0),
    "MAX_GRID_DIM_Y": ("max_grid_dim", 1), "MAX_GRID_DIM_Z": ("max_grid_dim", 2),
}


class Device:
    """A device as numba.cuda's Device and the context manager cuda.gpus[i] gives: `id`, `name` (a str, as
    numba-cuda 0.30's, from cuda.core's Device; Numba's old CUDA target gave bytes), `compute_capability`, the
    driver's attributes by name (MAX_THREADS_PER_BLOCK, ...), read without making a context; `with device:` runs
    the block with it as the thread's current device; `reset()` releases its runtime."""

    def __init__(self, devnum=0):
        self.id = devnum

    @property
    def _info(self):
        info = getattr(self, "_info_cache", None)
        if info is None:
            errors.register()
            info = self._info_cache = _kfront.device_info(self.id, **_options())
        return info

    @property
    def name(self):
        return self._info["name"]

    @property
    def compute_capability(self):
        return tuple(self._info["compute_capability"])

    @property
    def uuid(self):
        return "GPU-kfront-%d" % self.id

    @property
    def supports_float16(self):
        """numba-cuda's: compute capability 5.3 or above."""
        return self.compute_capability >= (5, 3)

    @property
    def supports_bfloat16(self):
        """numba-cuda's: compute capability 8.0 or above."""
        return self.compute_capability >= (8, 0)

    @property
    def supports_fp8(self):
        """numba-cuda's: compute capability 8.9 or above."""
        return self.compute_capability >= (8, 9)

    def __getattr__(self, attr):
        if attr not in _ATTRIBUTES:
            # the rest of the driver's attributes by name (CLOCK_RATE, L2_CACHE_SIZE, ...), as numba-cuda's Device
            value = (_kfront.device_attribute(self.id, attr, **_options())
                     if attr.isupper() and not attr.startswith("_") else None)
            if value is None:
                raise AttributeError("kfront: the device has no attribute %r (the simulator has only the launch "
                                     "limits, the multiprocessors and the compute capability)" % attr)
            return value
        info = self._info
        if attr == "COMPUTE_CAPABILITY_MAJOR":
            return info["compute_capability"][0]
        if attr == "COMPUTE_CAPABILITY_MINOR":
            return info["compute_capability"][1]
        key = _ATTRIBUTES[attr]
        return info[key[0]][key[1]] if isinstance(key, tuple) else info[key]

    def get_primary_context(self):
        return device_context(self.id)

    @property
    def primary_context(self):
        return device_context(self.id)

    def can_access_peer(self, peer_device):
        """Whether this device reads the other's memory directly (peer access); else copies are staged."""
        peer = peer_device.id if isinstance(peer_device, Device) else _check_device(peer_device)
        return peer != self.id and runtime(self.id).can_access_peer(runtime(peer))

    def __enter__(self):
        _push(self.id)
        return self

    def __exit__(self, *exc):
        _pop(self.id)
        return False

    def reset(self):
        _reset_device(self.id)

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(("kfront-device", self.id))

    def __repr__(self):
        return "<kfront Device %d '%s'>" % (self.id, self._info["name"])

    __str__ = __repr__


def memory_info(devnum):
    """(free, total) device memory in bytes, a MemoryInfo; on the simulator numba-cuda's simulator's answer,
    infinite memory (its device memory is host memory, of no fixed size)."""
    from kfront.cuda.memory import MemoryInfo
    rt = runtime(devnum)
    if rt.mode == "sim":
        return MemoryInfo(float("inf"), float("inf"))
    return MemoryInfo(*rt.memory_info())


class PendingDeallocations:
    """numba-cuda's pending deallocations of a device (cudadrv/driver.py's _PendingDeallocs): device and pinned
    memory whose last user let go, waiting to be freed together. `len()` is how many wait; `clear()` frees them now
    (after the device's work; nothing while deferred); `disable()` is a context manager, nested, during which
    nothing is freed (cuda.defer_cleanup()); `is_disabled`; `memory_capacity`, the device's memory the ratio limit
    is taken of."""

    def __init__(self, devnum):
        self._devnum = devnum

    def _state(self):
        return runtime(self._devnum).deallocations()

    def __len__(self):
        return self._state()["pending"]

    def clear(self):
        runtime(self._devnum).flush_deallocations()

    @contextlib.contextmanager
    def disable(self):
        rt = runtime(self._devnum)
        rt.defer_deallocations(True)
        try:
            yield
        finally:
            rt.defer_deallocations(False)

    @property
    def is_disabled(self):
        return self._state()["deferring"] > 0

    @property
    def memory_capacity(self):
        return runtime(self._devnum).memory_info()[1]

    @property
    def _max_pending_bytes(self):
        return self._state()["max_bytes"]

    @property
    def _size(self):
        return self._state()["pending_bytes"]

    def __repr__(self):
        return "<kfront pending deallocations of device %d: %d>" % (self._devnum, len(self))


def device_context(devnum):
    """The Context of device devnum (made on first use)."""
    ctx = _contexts.get(devnum)
    if ctx is None:
        with _lock:
            ctx = _contexts.get(devnum)
            if ctx is None:
                ctx = _contexts[devnum] = Context(gpus[devnum])
    return ctx


class Context:
    """numba.cuda's Context of a device (its primary context): memory (through `memory_manager`, kfront's own or an
    EMM plugin), pending deallocations, streams and events, synchronisation, reset, push/pop. `deallocations` is
    the device's pending memory deallocations, the queue kfront's memory manager keeps (`memory_manager.deallocations`,
    the same object): numba-cuda's context keeps a second one for streams, events and modules, which kfront releases
    at once (cuStreamDestroy and cuEventDestroy neither free memory in use nor synchronise)."""

    def __init__(self, device):
        from kfront.cuda import memory
        self.device = device
        self.deallocations = PendingDeallocations(device.id)
        self.memory_manager = memory.manager_class()(context=self)
        self.extras = {}

    def prepare_for_use(self):
        """Readies the context (its memory manager's initialize()); done whenever it is made current."""
        self.memory_manager.initialize()

    def get_memory_info(self):
        """(free, total) bytes, a MemoryInfo: the memory manager's answer."""
        return self.memory_manager.get_memory_info()

    # -- memory (numba-cuda's, through the memory manager) ---------------------------------------------
    def memalloc(self, bytesize):
        """bytesize bytes of device memory: an owned reference to an AutoFreePointer (freed when the last goes)."""
        return self.memory_manager.memalloc(bytesize)

    def memallocmanaged(self, bytesize, attach_global=True):
        """Managed memory (the host and the device use one address), attached to every stream or to the host."""
        return self.memory_manager.memallocmanaged(bytesize, attach_global)

    def memhostalloc(self, bytesize, mapped=False, portable=False, wc=False):
        """Pinned host memory (PinnedMemory), or pinned memory mapped into the device's space (MappedMemory)."""
        return self.memory_manager.memhostalloc(bytesize, mapped, portable, wc)

    def mempin(self, owner, pointer, size, mapped=False):
        """Pins size bytes of host memory at pointer (owned by owner) until the returned object goes."""
        return self.memory_manager.mempin(owner, pointer, size, mapped)

    def get_ipc_handle(self, memory):
        """An IpcHandle (kfront.cuda.ipc) of device memory (a MemoryPointer, a device array's gpu_data)."""
        return self.memory_manager.get_ipc_handle(memory)

    def open_ipc_handle(self, handle, size):
        """The memory of another process's IPC handle (its 64 bytes), mapped into this one: a MemoryPointer whose
        going closes it."""
        from kfront.cuda import ipc, memory
        rt = ipc.gpu_runtime(self.device.id)
        ptr = rt.ipc_open_handle(bytes(getattr(handle, "reserved", handle)))
        return memory.MemoryPointer(self, ptr, size, finalizer=lambda: rt.ipc_close_handle(ptr))

    def can_access_peer(self, peer_device):
        return self.device.can_access_peer(peer_device)

    # -- streams and events ----------------------------------------------------------------------------
    def create_stream(self):
        return Stream(runtime(self.device.id).stream())

    def create_external_stream(self, ptr):
        if not isinstance(ptr, int):
            raise TypeError("ptr for external stream must be an int")
        return Stream(runtime(self.device.id).external_stream(ptr), external=True)

    def create_event(self, timing=True):
        return Event(timing, devnum=self.device.id)

    def get_default_stream(self):
        return default_stream()

    def get_legacy_default_stream(self):
        return legacy_default_stream()

    def get_per_thread_default_stream(self):
        return per_thread_default_stream()

    # -- the rest ---------------------------------------------------------------------------------------
    def defer_cleanup(self):
        """A context manager during which no pending deallocation is done (nested; numba-cuda's)."""
        return self._deferred_cleanup()

    @contextlib.contextmanager
    def _deferred_cleanup(self):
        with self.memory_manager.defer_cleanup():
            with self.deallocations.disable():
                yield

    def synchronize(self):
        runtime(self.device.id).synchronize()

    def reset(self):
        """Frees what the context's memory manager allocated (its reset()) and releases the device's runtime (its
        kernels are compiled again); the context stays the device's."""
        self.memory_manager.reset()
        _release_runtime(self.device.id)

    def push(self):
        _push(self.device.id)
        self.prepare_for_use()

    def pop(self):
        _pop(self.device.id)

    def __eq__(self, other):
        return isinstance(other, Context) and other.device == self.device

    def __hash__(self):
        return hash(("kfront-context", self.device.id))

    def __repr__(self):
        return "<kfront context of device %d>" % self.device.id


@contextlib.contextmanager
def defer_cleanup():
    """numba.cuda.defer_cleanup(): memory whose last array goes during the block is not freed before it ends (nor
    any other pending deallocation); it is freed at the next flush after it. Nestable."""
    with current_context().defer_cleanup():
        yield


class _Gpus:
    """numba.cuda.gpus: the devices (iterable, indexable, len); `current` is the thread's current device."""

    def _devices(self):
        n = device_count()
        devs = getattr(self, "_list", None)
        if devs is None or len(devs) != n:
            devs = self._list = [Device(i) for i in range(n)]
        return devs

    def __len__(self):
        return device_count()

    def __getitem__(self, devnum):
        if isinstance(devnum, slice):
            return self._devices()[devnum]
        return self._devices()[_check_device(devnum)]

    def __iter__(self):
        return iter(self._devices())

    @property
    def current(self):
        return self._devices()[_kfront.current_device()] if _kfront.current_device() < device_count() else None

    def __str__(self):
        return ", ".join(str(d) for d in self._devices())


gpus = _Gpus()


def get_current_device():
    """The thread's current device (its runtime made, as numba's makes the context)."""
    d = _kfront.current_device()
    runtime(d)
    return gpus[d]


def select_device(device_id):
    """numba.cuda.select_device: device_id becomes the calling thread's current device (pushed on its stack of
    selections, which cuda.close() empties); returns the Device."""
    return gpus[_push(device_id)]


def context_of(devnum):
    """The Context of device devnum, ready for use, without selecting the device."""
    ctx = device_context(devnum)
    ctx.prepare_for_use()
    return ctx


def current_context(devnum=None):
    """The context of the current device (devnum given: that device's, selected as numba selects it), ready for
    use (its memory manager initialised)."""
    ctx = device_context((select_device(devnum) if devnum is not None else get_current_device()).id)
    ctx.prepare_for_use()
    return ctx


def list_devices():
    return list(gpus)


def require_context(fn):
    """numba-cuda's decorator: fn runs with the current device's context made (and ready) first."""
    @functools.wraps(fn)
    def with_context(*args, **kwargs):
        current_context()
        return fn(*args, **kwargs)
    return with_context


# ---- streams -----------------------------------------------------------------------------------------------

class Stream:
    """A CUDA stream (numba.cuda.stream()): `synchronize()`, `auto_synchronize()`, `handle` (the CUstream, an
    int; 0 for the default stream), `external` (made elsewhere: `external_stream(ptr)` wraps a CuPy or PyTorch
    CUstream), and the CUDA stream protocol, `__cuda_stream__()` -> (0, handle), that cuda.core takes. Wherever
    kfront takes a stream it also takes any object with `__cuda_stream__` (a cuda.core Stream)."""

    def __init__(self, inner, external=False):
        self._stream = inner
        self.external = external

    @property
    def handle(self):
        return self._stream.handle if self._stream is not None else 0

    def __int__(self):
        return self.handle

    def __cuda_stream__(self):
        return (0, self.handle)

    def synchronize(self):
        if self._stream is None:
            synchronize()
        else:
            self._stream.synchronize()

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self
        self.synchronize()

    def __repr__(self):
        if self._stream is None:
            return "<Default CUDA stream>"
        return "<%s CUDA stream %d>" % ("External" if self.external else "kfront", self.handle)


def stream():
    return Stream(runtime().stream())


def default_stream():
    return Stream(None)


legacy_default_stream = default_stream
per_thread_default_stream = default_stream


def external_stream(ptr):
    return Stream(runtime().external_stream(int(ptr)), external=True)


def wait_for_producer(handle):
    """The CUDA array interface's synchronisation, as numba-cuda's launches do it: before a launch (or a ufunc or
    reduction) uses an argument another library made on a stream (its __cuda_array_interface__'s "stream"), that
    stream is synchronised through Stream.synchronize, unless config.CUDA_ARRAY_INTERFACE_SYNC is 0. The extension
    (ext/program.c) calls it, for a stream other than the one the work goes on."""
    if config.CUDA_ARRAY_INTERFACE_SYNC:
        external_stream(handle).synchronize()


# the CUstream handles that name a default stream: CU_STREAM_LEGACY, CU_STREAM_PER_THREAD (and 0)
_DEFAULT_STREAM_HANDLES = (0, 1, 2)


def stream_arg(stream):
    """The C layer's stream for a numba-style stream argument: 0, None, a Stream, or an object of the CUDA stream
    protocol (`__cuda_stream__()` -> (version, CUstream): a cuda.core Stream, used as an external stream)."""
    if stream is None or (isinstance(stream, int) and stream == 0):
        return None
    if isinstance(stream, Stream):
        return stream._stream
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        handle = int(protocol()[1])
        return None if handle in _DEFAULT_STREAM_HANDLES else runtime().external_stream(handle)
    raise TypeError("kfront: a stream must be a stream from cuda.stream(), an object with __cuda_stream__ (a "
                    "cuda.core Stream), 0 or None, not %r" % (stream,))


# ---- events ---------------------------------------------------------------------------------------------

class Event:
    """numba.cuda.event(): record on a stream, synchronize, and the elapsed time between two events."""

    def __init__(self, timing=True, devnum=None):
        self._event = runtime(devnum).event()
        self._recorded = False

    def record(self, stream=0):
        self._event.record(stream_arg(stream))
        self._recorded = True

    def synchronize(self):
        self._event.synchronize()

    def wait(self, stream=0):
        # the launches of a stream run in order and kfront's streams do not run concurrently with the default
        # stream: waiting on the host is the conservative equivalent
        self._event.synchronize()

    def query(self):
        self._event.synchronize()
        return True

    def elapsed_time(self, evtend):
        return self._event.elapsed_ms(evtend._event)


def event(timing=True):
    return Event(timing)


def event_elapsed_time(evtstart, evtend):
    return evtstart.elapsed_time(evtend)
