"""The process's kfront runtime, devices, streams and events — numba.cuda's `synchronize`, `stream`,
`default_stream`, `external_stream`, `event`, `event_elapsed_time`, `is_available`, `detect`, `gpus`,
`select_device`, `get_current_device`, `current_context`, `close`.

One `kfront._kfront.Runtime` per process, made on first use from kfront.config (GPU when a CUDA driver and a
device are found, else the simulator; `KFRONT_SIM=1` or `NUMBA_ENABLE_CUDASIM=1` force the simulator). The
library reads no environment: this module reads it (kfront.config) and passes options.
"""
import contextlib
import threading

from kfront import _kfront, config, errors

_lock = threading.Lock()
_runtime = None


def runtime():
    """The process's runtime (created on first use)."""
    rt = _runtime
    if rt is None:
        rt = _create()
    return rt


def _create():
    global _runtime
    with _lock:
        if _runtime is None:
            errors.register()
            _kfront.configure_toolkit(config.CUDA_HOME, config.KFRONT_LIBNVVM, config.KFRONT_LIBDEVICE)
            mode = "sim" if config.ENABLE_CUDASIM else "auto"
            _runtime = _kfront.Runtime(mode=mode, cache_dir=config.cache_dir(), backend=config.KFRONT_BACKEND,
                                       libcuda=config.KFRONT_LIBCUDA, grid_stride=config.KFRONT_GRID_STRIDE,
                                       sim_workers=config.KFRONT_SIM_WORKERS)
        return _runtime


def close():
    """Releases the runtime (numba.cuda.close): every kernel, program and allocation made so far must not be
    used afterwards; the next use makes a new runtime."""
    global _runtime
    with _lock:
        rt, _runtime = _runtime, None
    if rt is not None:
        rt.synchronize()
    from kfront.cuda import dispatcher
    dispatcher._forget_programs()


def synchronize():
    """Waits for all work on the device; raises a pending IndexError of an asynchronous launch."""
    runtime().synchronize()


def is_available():
    """Whether kernels run on a GPU (False on the simulator, as numba.cuda.is_available() is False without a
    GPU)."""
    try:
        return runtime().mode == "gpu"
    except errors.KfrontError:
        return False


def detect():
    """Prints what runs the kernels and returns True when it is a GPU."""
    rt = runtime()
    info = rt.device_info()
    print("Found 1 CUDA devices" if rt.mode == "gpu" else "kfront simulator (no CUDA device used)")
    cc = info["compute_capability"]
    print("id 0    %s    [SUPPORTED]\n                      Compute Capability: %d.%d" % (info["name"], cc[0], cc[1]))
    print("Summary:\n\t1/1 devices are supported")
    return rt.mode == "gpu"


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
    """A device as numba.cuda's Device: `id`, `name` (bytes, as Numba gives it), `compute_capability`, and the
    driver's attributes by name (MAX_THREADS_PER_BLOCK, MULTIPROCESSOR_COUNT, WARP_SIZE, ...)."""

    def __init__(self, devnum=0):
        self.id = devnum

    @property
    def _info(self):
        return runtime().device_info()

    @property
    def name(self):
        return self._info["name"].encode()

    @property
    def compute_capability(self):
        return tuple(self._info["compute_capability"])

    @property
    def uuid(self):
        return "GPU-kfront-%d" % self.id

    def __getattr__(self, attr):
        if attr not in _ATTRIBUTES:
            raise AttributeError("kfront: the device has no attribute %r" % attr)
        info = self._info
        if attr == "COMPUTE_CAPABILITY_MAJOR":
            return info["compute_capability"][0]
        if attr == "COMPUTE_CAPABILITY_MINOR":
            return info["compute_capability"][1]
        key = _ATTRIBUTES[attr]
        return info[key[0]][key[1]] if isinstance(key, tuple) else info[key]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def reset(self):
        close()

    def __repr__(self):
        return "<kfront Device %d '%s'>" % (self.id, self._info["name"])


class _MemoryInfo(tuple):
    @property
    def free(self):
        return self[0]

    @property
    def total(self):
        return self[1]


class Context:
    """numba.cuda's current_context(): memory information and synchronisation."""

    def __init__(self, device):
        self.device = device

    def get_memory_info(self):
        free, total = runtime().memory_info()
        return _MemoryInfo((free, total))

    def synchronize(self):
        synchronize()

    def reset(self):
        close()


class _Gpus:
    """numba.cuda.gpus: the devices kfront drives (one: the runtime's)."""

    def __len__(self):
        return 1

    def __getitem__(self, i):
        if i not in (0, -1):
            raise IndexError("kfront: there is 1 device; device %r does not exist" % (i,))
        return Device(0)

    def __iter__(self):
        yield Device(0)

    @property
    def current(self):
        return Device(0)


gpus = _Gpus()


def get_current_device():
    return Device(0)


def select_device(device_id):
    if device_id != 0:
        raise ValueError("kfront drives one device (device 0); device %r cannot be selected" % (device_id,))
    return Device(0)


def current_context(devnum=None):
    return Context(Device(0))


def list_devices():
    return [Device(0)]


# ---- streams -----------------------------------------------------------------------------------------------

class Stream:
    """A CUDA stream (numba.cuda.stream()): `synchronize()`, `auto_synchronize()`, `handle`. The default
    stream is `default_stream()`; `external_stream(ptr)` wraps a CUstream made elsewhere (CuPy, PyTorch)."""

    def __init__(self, inner):
        self._stream = inner

    @property
    def handle(self):
        return self._stream.handle if self._stream is not None else 0

    def __int__(self):
        return self.handle

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
        return "<kfront Stream %#x>" % self.handle if self._stream is not None else "<kfront default stream>"


def stream():
    return Stream(runtime().stream())


def default_stream():
    return Stream(None)


legacy_default_stream = default_stream
per_thread_default_stream = default_stream


def external_stream(ptr):
    return Stream(runtime().external_stream(int(ptr)))


def stream_arg(stream):
    """The C layer's stream for a numba-style stream argument (0, None, a Stream)."""
    if stream is None or (isinstance(stream, int) and stream == 0):
        return None
    if isinstance(stream, Stream):
        return stream._stream
    raise TypeError("kfront: a stream must be a stream from cuda.stream(), 0 or None, not %r" % (stream,))


# ---- events ---------------------------------------------------------------------------------------------

class Event:
    """numba.cuda.event(): record on a stream, synchronize, and the elapsed time between two events."""

    def __init__(self, timing=True):
        self._event = runtime().event()
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
