"""Hostile or mistaken uses of kfront.cuda on the simulator, one row each (issue 28): what it does, the exception
class it must raise (None: it must work) and the words its message must contain; after each row the module must
still work (a launch, a copy, a synchronisation give the right answer). The classes are numba-cuda's where it has
one for the case (TypeError for argument counts and launch dimensions of the wrong type, TypingError for what its
typing refuses, IndexError for bounds, MemoryError for memory running out, KeyboardInterrupt for Ctrl-C);
otherwise kfront's documented class (kfront.errors). Uses that need a process of their own (fork, interpreter
shutdown with live device memory and streams, another device count) run one."""
import gc
import os
import pickle
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from kfront import config, cuda, float64
from kfront.errors import CudaDriverError, LaunchError, TypingError, UnsupportedError

pytestmark = [pytest.mark.filterwarnings("ignore::kfront.errors.PerformanceWarning"),
              pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")]


# ---- kernels the rows use -------------------------------------------------------------------------------------

@cuda.jit
def inc(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] + 1


@cuda.jit
def copy1(src, dst):
    dst[0] = src[0]


@cuda.jit
def store(a, x):
    a[0] = x


@cuda.jit
def store_row(a):
    a[0][0] = 1


@cuda.jit
def oob(a):
    a[5] = 1


@cuda.jit
def oob_axis0(a):
    a[2, 0] = 1


@cuda.jit
def oob_axis1(a):
    a[0, 5] = 1


@cuda.jit
def before_start(a):
    a[-4] = 1


@cuda.jit(boundscheck=True)
def before_start_checked(a):
    a[-4] = 1


@cuda.jit
def load_past_end(a, out):
    out[0] = a[10]


@cuda.jit
def past_slice_end(a):
    a[1:10][5] = 1


@cuda.jit
def static_shared_200k(a):
    s = cuda.shared.array(25000, float64)
    s[0] = 1
    a[0] = s[0]


@cuda.jit
def static_shared_8m(a):
    s = cuda.shared.array(1 << 20, float64)
    s[0] = 1
    a[0] = s[0]


@cuda.jit
def local_2_40(a):
    x = cuda.local.array(1 << 40, float64)
    x[0] = 1
    a[0] = x[0]


@cuda.jit
def local_runtime_shape(a, n):
    x = cuda.local.array(n, float64)
    a[0] = x[0]


@cuda.jit
def spin(a):
    while a[0] == 0:
        pass


@cuda.jit(device=True)
def runaway(n):
    return runaway(n + 1) + 1


@cuda.jit
def calls_runaway(a):
    a[0] = runaway(0)


@cuda.jit("int64(int64)", device=True)
def deep(n):
    return deep(n + 1) + 1 if n < 100000 else n


@cuda.jit
def calls_deep(a):
    a[0] = deep(0)


@cuda.jit(device=True)
def ping(n):
    return pong(n - 1)


@cuda.jit(device=True)
def pong(n):
    return ping(n - 1)


@cuda.jit
def calls_ping(a):
    a[0] = ping(3)


@cuda.jit(device=True)
def even_steps(n):
    if n > 0:
        return odd_steps(n - 1) + 1
    return 0


@cuda.jit(device=True)
def odd_steps(n):
    return even_steps(n - 1)


def _mutual_recursion_with_a_base():
    @cuda.jit
    def k(a):
        a[0] = even_steps(3)

    a = np.zeros(1, np.int64)
    k[1, 1](a)
    assert a[0] == 2


inc_f32 = cuda.jit("void(float32[::1])")(inc.py_func)
read_readonly = cuda.jit("void(Array(float64, 1, 'C', readonly=True), float64[::1])")(copy1.py_func)


def _read_declared_readonly():
    out = np.zeros(1)
    read_readonly[1, 1](readonly(np.full(1, 3.0)), out)
    assert out[0] == 3


def works():
    """The module still works: a launch, copies and a synchronisation give the right answer."""
    a = np.arange(8, dtype=np.float64)
    inc[1, 8](a)
    d = cuda.to_device(a)
    inc[2, 4](d)
    cuda.synchronize()
    assert d.copy_to_host().tolist() == [float(i + 2) for i in range(8)]


def readonly(a):
    a = np.array(a)
    a.flags.writeable = False
    return a


class CAI:
    """A device array of someone else's, through __cuda_array_interface__ only."""

    def __init__(self, ptr, shape=(4,), typestr="<f8", ro=False, strides=None, **extra):
        self.__cuda_array_interface__ = dict({"shape": shape, "typestr": typestr, "data": (ptr, ro), "version": 3,
                                              "strides": strides}, **extra)


class AI:
    """A host array through __array_interface__ only."""

    def __init__(self, a, ro=False):
        self.a = a
        d = dict(a.__array_interface__)
        d["data"] = (d["data"][0], ro)
        self.__array_interface__ = d


def raising_interface(name, exc):
    """An object whose __cuda_array_interface__ (or __array_interface__) property raises exc: the error is the
    caller's (numba-cuda's getattr(obj, "__cuda_array_interface__", None) lets it through); an AttributeError says
    there is none."""
    def get(self):
        raise exc
    return type("RaisingInterface", (), {name: property(get)})()


def freed_pointer():
    d = cuda.to_device(np.zeros(4))
    ptr = d.__cuda_array_interface__["data"][0]
    del d
    cuda.current_context().deallocations.clear()
    return ptr


def device_ptr(d):
    return d.__cuda_array_interface__["data"][0]


_DEVICE = cuda.to_device(np.zeros(4))  # a live allocation foreign views are made of


def _with_limit(name, value, fn):
    setattr(config, name, value)
    try:
        fn()
    finally:
        setattr(config, name, 0)


def _interrupt_spin():
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        _with_limit("KFRONT_SIM_MAX_SECONDS", 30.0, lambda: spin[1, 1](np.zeros(1)))
    finally:
        timer.join()


class _LaunchesWhenCollected:
    def __init__(self, out):
        self.out = out

    def __del__(self):
        inc[1, 1](self.out)


def _launch_from_del():
    out = np.zeros(1)
    _LaunchesWhenCollected(out)
    gc.collect()
    assert out[0] == 1


class _LaunchingExtension:
    """A cuda.jit(extensions=[...]) argument extension whose prepare_args launches another kernel (re-entrant)."""

    def __init__(self):
        self.side = np.zeros(1)

    def prepare_args(self, ty, val, stream=0, retr=None):
        inc[1, 1](self.side)
        return ty, val


def _launch_from_callback():
    ext = _LaunchingExtension()
    k = cuda.jit(extensions=[ext])(inc.py_func)
    a = np.zeros(2)
    k[1, 2](a)
    assert a.tolist() == [1, 1] and ext.side[0] == 1


def _many_specialisations():
    dtypes = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float32,
              np.float64]
    n = 0
    for dt in dtypes:
        for shape in [(2,), (2, 2)[:1], (3,)]:
            for make in [lambda x: x, lambda x: x[::-1], lambda x: cuda.to_device(x)]:
                a = make(np.zeros(shape, dt))
                inc[1, 4](a)
                n += 1
    return n


def _thousand_kernels():
    for i in range(1000):
        k = cuda.jit(store.py_func)
        k[1, 1](np.zeros(1), float(i))


def _subprocess(code, timeout=120):
    env = dict(os.environ, KFRONT_SIM="1", PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env)


_PRELUDE = ("import warnings; warnings.simplefilter('ignore'); import numpy as np; from kfront import cuda\n"
            "@cuda.jit\ndef inc(a):\n    i = cuda.grid(1)\n    if i < a.size:\n        a[i] += 1\n")


def _shutdown_with_live_objects():
    r = _subprocess(_PRELUDE + "d = cuda.to_device(np.zeros(4)); s = cuda.stream(); e = cuda.event()\n"
                    "inc[1, 4, s](d); e.record(s); m = cuda.mapped_array(3); p = cuda.pinned_array(3)\n"
                    "import kfront; kfront._keep = (d, s, e, m, p)\nprint('done')\n")
    assert r.returncode == 0 and r.stdout.strip() == "done", r.stderr


def _fork_after_use():
    r = _subprocess(_PRELUDE + "import os\na = np.zeros(4); inc[1, 4](a)\npid = os.fork()\n"
                    "if pid == 0:\n    b = np.zeros(4); inc[1, 4](b); os._exit(0 if b.sum() == 4 else 3)\n"
                    "_, status = os.waitpid(pid, 0)\ninc[1, 4](a)\nprint(os.waitstatus_to_exitcode(status), a.sum())\n")
    assert r.returncode == 0 and r.stdout.split() == ["0", "8.0"], (r.stdout, r.stderr)


def _other_device_array():
    r = _subprocess("import os; os.environ['KFRONT_SIM_DEVICES'] = '2'\n" + _PRELUDE +
                    "with cuda.gpus[1]:\n    d = cuda.to_device(np.zeros(4))\n"
                    "try:\n    inc[1, 4](d)\nexcept TypeError as e:\n    print(type(e).__name__, e)\n")
    assert r.returncode == 0 and "is an array on device 1" in r.stdout, (r.stdout, r.stderr)


def _stream_of_another_device():
    r = _subprocess("import os; os.environ['KFRONT_SIM_DEVICES'] = '2'\n" + _PRELUDE +
                    "with cuda.gpus[1]:\n    s = cuda.stream()\n"
                    "try:\n    inc[1, 4, s](cuda.to_device(np.zeros(4)))\nexcept TypeError as e:\n    print(e)\n"
                    "a = np.zeros(4); inc[1, 4](a); print(a.sum())\n")
    assert r.returncode == 0 and "the stream belongs to device 1, but this runs on device 0" in r.stdout, (r.stdout,
                                                                                                         r.stderr)
    assert r.stdout.split()[-1] == "4.0", r.stdout


def _select_device_with_live_arrays():
    r = _subprocess("import os; os.environ['KFRONT_SIM_DEVICES'] = '2'\n" + _PRELUDE +
                    "d0 = cuda.to_device(np.zeros(4))\ncuda.select_device(1)\nd1 = cuda.to_device(np.zeros(4))\n"
                    "inc[1, 4](d1)\ncuda.select_device(0)\ninc[1, 4](d0); inc[1, 4](d0)\n"
                    "print(d0.copy_to_host().sum(), d1.copy_to_host().sum())\n")
    assert r.returncode == 0 and r.stdout.split() == ["8.0", "4.0"], (r.stdout, r.stderr)


def _copy_after_close():
    d = cuda.to_device(np.arange(4.0))
    cuda.close()
    assert d.copy_to_host().tolist() == [0, 1, 2, 3]


def _matrix_written():
    m = np.matrix([[0.0, 2.0]])
    store_row[1, 1](m)
    assert m.tolist() == [[1.0, 2.0]]


def _interrupt_in_subprocess():
    r = _subprocess(_PRELUDE + "import os, signal, threading, time\n"
                    "@cuda.jit\ndef spin(a):\n    while a[0] == 0:\n        pass\n"
                    "threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()\nt = time.time()\n"
                    "try:\n    spin[1, 1](np.zeros(1))\nexcept KeyboardInterrupt:\n    print('interrupted', time.time() - t < 3)\n")
    assert r.stdout.split() == ["interrupted", "True"], (r.stdout, r.stderr)


# ---- the table -----------------------------------------------------------------------------------------------

NO_DTYPE = "kfront does not support arrays of dtype"
NOT_PASSABLE = "kfront cannot pass an object of type"
READONLY = "Cannot modify readonly array of type: readonly array"
NOT_DEVICE_MEMORY = "not memory of the simulated device"

ROWS = [
    # dtypes
    ("object array", lambda: inc[1, 1](np.array([1, None], dtype=object)), TypeError, [NO_DTYPE, "'|O'"]),
    ("longdouble array", lambda: inc[1, 1](np.zeros(2, np.longdouble)), TypeError, [NO_DTYPE]),
    ("clongdouble array", lambda: inc[1, 1](np.zeros(2, np.clongdouble)), TypeError, [NO_DTYPE]),
    ("plain void array", lambda: inc[1, 1](np.zeros(2, "V8")), TypeError, [NO_DTYPE, "'|V8'"]),
    ("big-endian float32", lambda: inc[1, 1](np.zeros(2, ">f4")), TypeError, ["big-endian", "'>f4'"]),
    ("big-endian int64", lambda: inc[1, 1](np.zeros(2, ">i8")), TypeError, ["big-endian", "'>i8'"]),
    ("big-endian complex", lambda: inc[1, 1](np.zeros(2, ">c16")), TypeError, ["big-endian"]),
    ("object array to_device", lambda: cuda.to_device(np.array([None])), TypeError, [NO_DTYPE]),
    ("object device_array", lambda: cuda.device_array(3, dtype=object), TypeError, [NO_DTYPE]),
    ("complex stored into float", lambda: copy1[1, 1](np.zeros(1, np.complex128), np.zeros(1)), TypingError,
     ["cannot convert complex128 to float64"]),
    ("bool array", lambda: inc[1, 2](np.zeros(2, bool)), None, []),
    ("float16 array", lambda: inc[1, 2](np.zeros(2, np.float16)), None, []),
    ("datetime64 array stored", lambda: copy1[1, 1](np.zeros(1, "M8[s]"), np.zeros(1, "M8[s]")), None, []),
    ("record array", lambda: copy1[1, 1](np.zeros(1, [("x", "f4")]), np.zeros(1, [("x", "f4")])), None, []),
    # ranks and layouts
    ("9-d array", lambda: inc[1, 1](np.zeros((1,) * 9)), ValueError, ["at most 8 dimensions, not 9"]),
    ("0-d array indexed", lambda: inc[1, 1](np.zeros(())), TypingError, ["too many indices for array(float64, 0d, C)"]),
    ("negative strides", lambda: inc[1, 4](np.zeros(4)[::-1]), None, []),
    ("zero-size array", lambda: inc[1, 4](np.zeros(0)), None, []),
    ("zero-size 2-d array indexed", lambda: store_row[1, 1](np.zeros((0, 3))), IndexError, ["with size 0"]),
    ("strided view", lambda: inc[1, 4](np.zeros(8)[::2]), None, []),
    ("transposed view", lambda: store_row[1, 1](np.zeros((2, 3)).T), None, []),
    ("Fortran array", lambda: store_row[1, 1](np.asfortranarray(np.zeros((2, 2)))), None, []),
    ("broadcast view (readonly)", lambda: inc[1, 4](np.broadcast_to(np.zeros(1), (4,))), TypingError, [READONLY]),
    ("masked array", lambda: inc[1, 2](np.ma.array([1.0, 2.0], mask=[0, 1])), TypingError,
     ["Unsupported array type: numpy.ma.MaskedArray."]),
    ("NumPy matrix", _matrix_written, None, []),
    # read-only memory
    ("NumPy not writeable", lambda: inc[1, 1](readonly(np.zeros(2))), TypingError, [READONLY, "float64, 1d, C"]),
    ("row of a readonly 2-d array", lambda: store_row[1, 1](readonly(np.zeros((2, 2)))), TypingError,
     [READONLY, "float64, 1d, C"]),
    ("__array_interface__ read-only", lambda: inc[1, 1](AI(np.zeros(2), ro=True)), TypingError, [READONLY]),
    ("__cuda_array_interface__ read-only", lambda: inc[1, 1](CAI(device_ptr(_DEVICE), ro=True)), TypingError,
     [READONLY]),
    ("readonly array read", lambda: copy1[1, 1](readonly(np.ones(1)), np.zeros(1)), None, []),
    ("as_cuda_array of a NumPy array", lambda: cuda.as_cuda_array(np.zeros(3)), TypeError,
     ["doesn't implement the cuda array interface"]),
    ("as_cuda_array of a pinned NumPy array", lambda: cuda.as_cuda_array(cuda.pinned_array(3)), TypeError,
     ["doesn't implement the cuda array interface"]),
    ("as_cuda_array of a list", lambda: cuda.as_cuda_array([1.0, 2.0]), TypeError,
     ["doesn't implement the cuda array interface"]),
    ("from_dlpack of a NumPy array", lambda: cuda.from_dlpack(np.zeros(3)), TypeError,
     ["not kfront's" if not config.ENABLE_CUDASIM else "host memory, not the simulated device's"]),
    ("copy_to_host into readonly", lambda: _DEVICE.copy_to_host(readonly(np.zeros(4))), ValueError, ["read-only"]),
    # foreign memory
    ("made-up CAI pointer launched", lambda: inc[1, 1](CAI(0x1000)), CudaDriverError, [NOT_DEVICE_MEMORY, "0x1000"]),
    ("made-up CAI pointer copied", lambda: cuda.as_cuda_array(CAI(0xDEAD0000)).copy_to_host(), CudaDriverError,
     [NOT_DEVICE_MEMORY]),
    ("made-up CAI pointer written", lambda: cuda.as_cuda_array(CAI(0xDEAD0000)).copy_to_device(np.zeros(4)),
     CudaDriverError, [NOT_DEVICE_MEMORY]),
    ("wrapping CAI pointer", lambda: inc[1, 1](CAI((1 << 64) - 16)), CudaDriverError, [NOT_DEVICE_MEMORY]),
    ("freed CAI pointer", lambda: inc[1, 1](CAI(freed_pointer())), CudaDriverError, [NOT_DEVICE_MEMORY]),
    ("freed CAI pointer copied", lambda: cuda.as_cuda_array(CAI(freed_pointer())).copy_to_host(), CudaDriverError,
     [NOT_DEVICE_MEMORY]),
    ("CAI past its allocation", lambda: inc[1, 1](CAI(device_ptr(_DEVICE) + 8)), CudaDriverError,
     [NOT_DEVICE_MEMORY, "32 bytes"]),
    ("CAI inside its allocation", lambda: inc[1, 3](CAI(device_ptr(_DEVICE) + 8, (3,))), None, []),
    ("CAI null pointer, empty", lambda: inc[1, 1](CAI(0, (0,))), None, []),
    ("CAI with a mask", lambda: inc[1, 1](CAI(device_ptr(_DEVICE), mask=np.zeros(4))), TypeError,
     ["masked arrays are not supported"]),
    ("CAI without data", lambda: inc[1, 1](type("X", (), {"__cuda_array_interface__": {"shape": (1,),
                                                                                         "typestr": "<f8",
                                                                                         "version": 3}})()),
     TypeError, ["lacks shape, typestr or data"]),
    ("CAI stream 0", lambda: inc[1, 1](CAI(device_ptr(_DEVICE), stream=0)), ValueError, ["stream is 0"]),
    ("CAI strides miscounted", lambda: inc[1, 1](CAI(device_ptr(_DEVICE), strides=(8, 8))), ValueError,
     ["2 strides for 1 dimensions"]),
    ("CAI dtype no one has", lambda: inc[1, 1](CAI(device_ptr(_DEVICE), typestr="<f3")), TypeError,
     [NO_DTYPE, "'<f3'"]),
    ("CAI negative extent", lambda: inc[1, 1](CAI(device_ptr(_DEVICE), shape=(-1,))), TypeError,
     ["negative extent -1 in axis 0"]),
    ("CAI shape a list", lambda: inc[1, 1](CAI(device_ptr(_DEVICE), shape=[4])), TypeError, ["shape must be a tuple"]),
    ("CAI data not a tuple", lambda: inc[1, 1](type("X", (), {"__cuda_array_interface__": {
        "shape": (1,), "typestr": "<f8", "data": device_ptr(_DEVICE), "version": 3}})()), TypeError,
     ["data must be a (pointer, read-only) tuple"]),
    ("CAI not a dict", lambda: inc[1, 1](type("X", (), {"__cuda_array_interface__": 5})()), TypeError,
     ["the array interface is not a dict"]),
    ("CAI of 9 dimensions", lambda: inc[1, 1](CAI(device_ptr(_DEVICE), shape=(1,) * 9)), ValueError,
     ["at most 8 dimensions"]),
    ("CAI pointer a string", lambda: inc[1, 1](CAI("abc")), TypeError, ["an integer is required"]),
    ("CAI pointer negative", lambda: inc[1, 1](CAI(-5)), OverflowError, ["negative"]),
    ("CAI property raising", lambda: inc[1, 1](raising_interface("__cuda_array_interface__", RuntimeError("CAI boom"))),
     RuntimeError, ["CAI boom"]),
    ("CAI property raising, in a tuple", lambda: inc[1, 1]((raising_interface("__cuda_array_interface__",
                                                                              KeyError("gone")), 1)), KeyError,
     ["gone"]),
    ("__array_interface__ property raising", lambda: inc[1, 1](raising_interface("__array_interface__",
                                                                                 ValueError("AI boom"))),
     ValueError, ["AI boom"]),
    ("CAI property raising AttributeError (none)", lambda: inc[1, 1](raising_interface("__cuda_array_interface__",
                                                                                       AttributeError("no"))),
     TypeError, [NOT_PASSABLE]),
    ("as_cuda_array of a raising CAI", lambda: cuda.as_cuda_array(raising_interface("__cuda_array_interface__",
                                                                                    RuntimeError("CAI boom"))),
     RuntimeError, ["CAI boom"]),
    # launch configurations
    ("grid 0", lambda: inc[0, 1](np.zeros(1)), LaunchError, ["grid dimension x is 0"]),
    ("block 0", lambda: inc[1, 0](np.zeros(1)), LaunchError, ["block dimension x is 0"]),
    ("grid -1", lambda: inc[-1, 1](np.zeros(1)), ValueError, ["-1 is not a valid launch dimension"]),
    ("block -1", lambda: inc[1, -1](np.zeros(1)), ValueError, ["-1 is not a valid launch dimension"]),
    ("block 2048", lambda: inc[1, 2048](np.zeros(1)), LaunchError, ["block dimension x is 2048", "limit of 1024"]),
    ("block z 128", lambda: inc[1, (1, 1, 128)](np.zeros(1)), LaunchError, ["block dimension z is 128"]),
    ("block 33x33", lambda: inc[1, (33, 33)](np.zeros(1)), LaunchError, ["1089"]),
    ("grid 2^40", lambda: inc[2 ** 40, 1](np.zeros(1)), ValueError, ["not a valid launch dimension"]),
    ("grid y 2^20", lambda: inc[(1, 2 ** 20), 1](np.zeros(1)), LaunchError, ["grid dimension y is 1048576"]),
    ("dynamic shared 1e9", lambda: inc[1, 1, 0, 10 ** 9](np.zeros(1)), LaunchError,
     ["1000000000 bytes of dynamic shared memory", "limit"]),
    ("dynamic shared one byte over the limit", lambda: inc[1, 1, 0, 232449](np.zeros(1)), LaunchError,
     ["232449 bytes of dynamic shared memory", "limit of 232448 bytes"]),
    ("static plus dynamic shared over the limit", lambda: static_shared_200k[1, 1, 0, 40000](np.zeros(1)), LaunchError,
     ["40000 bytes of dynamic shared memory plus 200000 bytes of static shared memory"]),
    ("static shared array of 8 MiB", lambda: static_shared_8m[1, 1](np.zeros(1)), LaunchError,
     ["8388608 bytes of static shared memory"]),
    ("local array of 2**40 elements", lambda: local_2_40[1, 1](np.zeros(1)), CudaDriverError,
     ["mem.alloca with a bad extent"]),
    ("local array of a run-time shape", lambda: local_runtime_shape[1, 1](np.zeros(1), 3), TypingError,
     ["the shape of cuda.local.array must be a constant integer"]),
    ("grid y 0", lambda: inc[(1, 0), 1](np.zeros(1)), LaunchError, ["grid dimension y is 0"]),
    ("block 1024x2", lambda: inc[1, (1024, 2)](np.zeros(1)), LaunchError, ["2048 threads", "limit of 1024"]),
    ("NumPy integers as launch dimensions", lambda: inc[np.int64(1), np.int32(4)](np.zeros(4)), None, []),
    ("stream of another device", _stream_of_another_device, None, []),
    ("dynamic shared -1", lambda: inc[1, 1, 0, -1](np.zeros(1)), ValueError, ["negative dynamic shared memory"]),
    ("one-item configuration", lambda: inc[1](np.zeros(1)), ValueError, ["launch configuration is kernel[griddim"]),
    ("five-item configuration", lambda: inc[1, 1, 0, 0, 0](np.zeros(1)), ValueError, ["launch configuration"]),
    ("float grid", lambda: inc[1.5, 1](np.zeros(1)), TypeError, ["griddim must be a sequence of integers"]),
    ("string grid", lambda: inc["a", 1](np.zeros(1)), TypeError, ["griddim must be a sequence of integers"]),
    ("4-d grid", lambda: inc[(1, 1, 1, 1), 1](np.zeros(1)), ValueError, ["sequence of 1, 2 or 3 integers"]),
    ("4-d block", lambda: inc[1, (1, 1, 1, 1)](np.zeros(1)), ValueError, ["sequence of 1, 2 or 3 integers"]),
    ("no configuration", lambda: inc(np.zeros(1)), ValueError, ["launch configuration was not specified"]),
    ("string stream", lambda: inc[1, 1, "s"](np.zeros(1)), TypeError, ["a stream must be"]),
    ("launching a device function", lambda: runaway[1, 1](1), RuntimeError,
     ["Cannot compile a device function as a kernel", "is a device function"]),
    # argument counts and kinds
    ("no arguments", lambda: store[1, 1](), TypeError, ["not enough arguments: expected 2, got 0"]),
    ("too few arguments", lambda: store[1, 1](np.zeros(1)), TypeError, ["not enough arguments: expected 2, got 1"]),
    ("too many arguments", lambda: store[1, 1](np.zeros(1), 1, 2), TypeError, ["too many arguments: expected 2, got 3"]),
    ("keyword arguments", lambda: inc[1, 1](a=np.zeros(1)), TypeError, ["takes no keyword arguments"]),
    ("specialize too few", lambda: store.specialize(np.zeros(1)), TypeError, ["not enough arguments"]),
    ("integer past uint64", lambda: store[1, 1](np.zeros(1), 2 ** 70), OverflowError, ["does not fit in int64"]),
    ("negative past int64", lambda: store[1, 1](np.zeros(1), -2 ** 64), OverflowError, ["does not fit"]),
    ("list argument", lambda: inc[1, 1]([1, 2]), TypeError, [NOT_PASSABLE, "list"]),
    ("dict argument", lambda: inc[1, 1]({}), TypeError, [NOT_PASSABLE, "dict"]),
    ("set argument", lambda: inc[1, 1]({1}), TypeError, [NOT_PASSABLE, "set"]),
    ("bytes argument", lambda: inc[1, 1](b"ab"), TypeError, [NOT_PASSABLE, "bytes"]),
    ("object() argument", lambda: inc[1, 1](object()), TypeError, [NOT_PASSABLE, "object"]),
    ("function argument", lambda: inc[1, 1](len), TypeError, [NOT_PASSABLE]),
    # numba-cuda's typeof cannot type these: ValueError "Cannot determine Numba type of <class 'generator'>"
    ("generator argument", lambda: inc[1, 1](x for x in range(3)), ValueError, [NOT_PASSABLE, "generator"]),
    ("iterator argument", lambda: inc[1, 1](iter([1.0])), ValueError, [NOT_PASSABLE, "list_iterator"]),
    ("range argument", lambda: inc[1, 1](range(3)), ValueError, [NOT_PASSABLE, "range"]),
    ("float64 array for a float32 signature", lambda: inc_f32[1, 1](np.zeros(2)), TypeError,
     ["No matching definition for argument type(s) float64[::1]", "kernel inc has no signature that matches",
      "void(float32[::1])"]),
    ("int32 array for a float32 signature", lambda: inc_f32[1, 1](np.zeros(2, np.int32)), TypeError,
     ["argument type(s) int32[::1]"]),
    ("2-d array for a 1-d signature", lambda: inc_f32[1, 1](np.zeros((2, 2), np.float32)), TypeError,
     ["argument type(s) float32[:, ::1]"]),
    ("strided array for a C signature", lambda: inc_f32[1, 1](np.zeros(4, np.float32)[::2]), TypeError,
     ["argument type(s) float32[:]:"]),
    ("readonly array read through a declared readonly signature", _read_declared_readonly, None, []),
    ("int stored into an int array", lambda: store[1, 1](np.zeros(1, np.int32), 7), None, []),
    ("complex scalar into float", lambda: store[1, 1](np.zeros(1), 1j), TypingError, ["cannot convert complex128"]),
    ("tuple stored into a float", lambda: store[1, 1](np.zeros(1), (1, 2)), TypingError,
     ["cannot store UniTuple(int64 x 2) into an element of array(float64, 1d, C)"]),
    ("None passed", lambda: store[1, 1](np.zeros(1), None), TypeError, [NOT_PASSABLE, "NoneType"]),
    ("str passed", lambda: store[1, 1](np.zeros(1), "x"), TypeError, [NOT_PASSABLE, "str"]),
    ("NumPy str scalar stored into a float", lambda: store[1, 1](np.zeros(1), np.str_("a")), TypingError,
     ["cannot store [unichr x 1]"]),
    ("datetime64 stored into a float", lambda: store[1, 1](np.zeros(1), np.datetime64(1, "s")), TypingError,
     ["cannot convert datetime64[s] to float64"]),
    ("signature of an unknown type", lambda: cuda.jit("void(floaty[:])")(inc.py_func), TypeError,
     ["unknown type 'floaty'"]),
    # device arrays used wrongly
    ("device array index past the end", lambda: _DEVICE[5], IndexError, ["index 5 is out of bounds"]),
    ("device array setitem past the end", lambda: _DEVICE.__setitem__(5, 1), IndexError, ["out of bounds"]),
    ("device array bad reshape", lambda: _DEVICE.reshape(3, 3), ValueError, ["cannot reshape"]),
    ("copy_to_host wrong shape", lambda: _DEVICE.copy_to_host(np.zeros(5)), ValueError, ["must have shape (4,)"]),
    ("copy_to_device wrong shape", lambda: _DEVICE.copy_to_device(np.zeros(5)), ValueError,
     ["incompatible shape: (4,) vs. (5,)"]),
    ("copy_to_device of another dtype", lambda: _DEVICE.copy_to_device(np.zeros(4, np.float32)), TypeError,
     ["incompatible dtype: float64 vs. float32"]),
    ("copy_to_host into another dtype", lambda: _DEVICE.copy_to_host(np.zeros(4, np.float32)), TypeError,
     ["incompatible dtype: float64 vs. float32"]),
    ("device to device copy of another dtype", lambda: _DEVICE.copy_to_device(cuda.to_device(np.zeros(4, np.int64))),
     TypeError, ["incompatible dtype: float64 vs. int64"]),
    ("copy_to_host into a strided host array", lambda: _DEVICE.copy_to_host(np.zeros(8)[::2]), None, []),
    ("device array view index past the end", lambda: _DEVICE[1:3][2], IndexError,
     ["index 2 is out of bounds for axis 0 with size 2"]),
    ("reshape with two unknown dimensions", lambda: _DEVICE.reshape(-1, -1), ValueError,
     ["can only specify one unknown dimension"]),
    ("view as a dtype that does not divide", lambda: _DEVICE.view("V24"), ValueError,
     ["When changing to a larger dtype, its size must be a divisor"]),
    ("setitem of a longer sequence", lambda: _DEVICE.__setitem__(slice(0, 2), np.zeros(3)), ValueError,
     ["Can't copy sequence with size 3 to array axis 0 with dimension 2"]),
    ("setitem of a 2-d array into a 1-d slice", lambda: _DEVICE.__setitem__(slice(0, 2), np.zeros((2, 2))),
     ValueError, ["Can't assign 2-D array to 1-D self"]),
    ("pickling a device array", lambda: pickle.dumps(_DEVICE), TypeError, ["cannot pickle 'DeviceNDArray' object"]),
    ("device array used after cuda.close()", _copy_after_close, None, []),
    ("select_device while device arrays live", _select_device_with_live_arrays, None, []),
    ("negative device_array", lambda: cuda.device_array(-1), ValueError, ["negative"]),
    ("device_array of an unknown dtype", lambda: cuda.device_array(3, dtype="foo"), TypeError,
     ["data type 'foo' not understood"]),
    ("device_array of a float shape", lambda: cuda.device_array(2.5), TypeError, ["not iterable"]),
    ("to_device of an object", lambda: cuda.to_device(object()), TypeError, [NO_DTYPE]),
    ("copy_to_host on a string stream", lambda: _DEVICE.copy_to_host(stream="x"), TypeError, ["a stream must be"]),
    ("select device 99", lambda: cuda.select_device(99), IndexError, ["device 99 does not exist"]),
    # memory running out
    ("device memory 32 TiB", lambda: cuda.device_array(1 << 45, np.uint8), MemoryError, ["out of memory allocating"]),
    ("device memory of a huge shape", lambda: cuda.device_array((1 << 29, 1 << 29)), MemoryError, ["out of memory"]),
    ("device memory past the address space", lambda: cuda.device_array((1 << 30, 1 << 30)), ValueError,
     ["array is too big"]),
    # out-of-bounds accesses, then a good launch (works() after each row)
    ("store past the end", lambda: oob[1, 1](np.zeros(3)), IndexError, ["index 5 is out of bounds for axis 0 with size 3"]),
    ("store past the end, device array", lambda: oob[1, 1](cuda.to_device(np.zeros(3))), IndexError, ["index 5"]),
    ("store past the end, 0 elements", lambda: oob[1, 1](np.zeros(0)), IndexError, ["with size 0"]),
    ("store past the end, 2-d axis 0", lambda: oob_axis0[1, 1](np.zeros((2, 2))), IndexError,
     ["index 2 is out of bounds for axis 0 with size 2"]),
    ("store past the end, 2-d axis 1", lambda: oob_axis1[1, 1](np.zeros((2, 2))), IndexError,
     ["index 5 is out of bounds for axis 1 with size 2"]),
    # (numba-cuda checks the index after wrapping a negative one: -4 of 3 elements is -1)
    ("store before the start", lambda: before_start[1, 1](np.zeros(3)), IndexError,
     ["index -1 is out of bounds for axis 0 with size 3"]),
    ("store before the start, boundscheck=True", lambda: before_start_checked[1, 1](np.zeros(3)), IndexError,
     ["index -1 is out of bounds for axis 0 with size 3"]),
    ("load past the end", lambda: load_past_end[1, 1](np.zeros(3), np.zeros(1)), IndexError,
     ["index 10 is out of bounds for axis 0 with size 3"]),
    ("store past the end of a slice", lambda: past_slice_end[1, 1](cuda.to_device(np.zeros(3))), IndexError,
     ["index 5 is out of bounds for axis 0 with size 2"]),
    # kernels that never end
    ("step limit from Python", lambda: _with_limit("KFRONT_SIM_MAX_STEPS", 100000, lambda: spin[1, 1](np.zeros(1))),
     CudaDriverError, ["simulation step limit exceeded", "KFRONT_SIM_MAX_STEPS"]),
    ("time limit from Python", lambda: _with_limit("KFRONT_SIM_MAX_SECONDS", 0.2, lambda: spin[1, 1](np.zeros(1))),
     CudaDriverError, ["simulation time limit exceeded", "KFRONT_SIM_MAX_SECONDS"]),
    ("step limit, many blocks", lambda: _with_limit("KFRONT_SIM_MAX_STEPS", 100000,
                                                    lambda: spin[64, 32](np.zeros(1))),
     CudaDriverError, ["simulation step limit exceeded"]),
    ("Ctrl-C", _interrupt_spin, KeyboardInterrupt, []),
    ("Ctrl-C in a process of its own", _interrupt_in_subprocess, None, []),
    # recursion
    ("runaway recursion typed", lambda: calls_runaway[1, 1](np.zeros(1, np.int64)), TypingError,
     ["runaway recursion"]),
    ("mutual runaway recursion", lambda: calls_ping[1, 1](np.zeros(1, np.int64)), TypingError,
     ["cannot type infer runaway recursion"]),
    ("mutual recursion with a base case", _mutual_recursion_with_a_base, None, []),
    ("recursion past the call depth", lambda: calls_deep[1, 1](np.zeros(1, np.int64)), CudaDriverError,
     ["depth"]),
    # many compiles and specialisations, re-entrancy, processes
    ("thirty specialisations of one kernel", _many_specialisations, None, []),
    ("a thousand dispatchers of one function", _thousand_kernels, None, []),
    ("launch from __del__", _launch_from_del, None, []),
    ("launch from an extension's callback", _launch_from_callback, None, []),
    ("fork after use", _fork_after_use, None, []),
    ("interpreter shutdown with live device objects", _shutdown_with_live_objects, None, []),
    ("array of another device", _other_device_array, None, []),
]


# Rows whose outcome is the simulator's own check: on a GPU a kernel given a made-up or freed pointer faults and leaves
# the process's CUDA context unusable (numba-cuda does not check these either), and the spinning kernels of the step
# and time limits and of Ctrl-C would run until the driver's watchdog; recursion past the simulator's call depth
# overflows the GPU thread's stack, a fault too; a static shared array over the device's limit and a local array of
# 2**40 elements are refused by the GPU's compiler or loader first, in its own words, and 200,000 bytes of static
# shared memory are more than a GPU compile keeps (48 KiB; the H200 run of 2026-12-02: its one element was kept in a
# register, the launch ran). They are skipped on a GPU, saying so.
SIMULATOR_ONLY = {
    "made-up CAI pointer launched", "made-up CAI pointer copied", "made-up CAI pointer written", "wrapping CAI pointer",
    "freed CAI pointer", "freed CAI pointer copied", "CAI past its allocation", "step limit from Python",
    "time limit from Python", "step limit, many blocks", "Ctrl-C", "Ctrl-C in a process of its own",
    "recursion past the call depth", "static shared array of 8 MiB", "local array of 2**40 elements",
    "static plus dynamic shared over the limit",
}
_ON_GPU = pytest.mark.simulator_only("the simulator's own check: on a GPU it faults the context or spins (see "
                                     "SIMULATOR_ONLY)")


@pytest.mark.parametrize("fn, exc, words", [pytest.param(f, e, w, id=name, marks=[_ON_GPU] if name in SIMULATOR_ONLY
                                                         else []) for name, f, e, w in ROWS])
def test_hostile_use(fn, exc, words):
    if exc is None:
        fn()
        cuda.synchronize()
    else:
        with pytest.raises(exc) as info:
            fn()
            cuda.synchronize()
        text = " ".join(str(info.value).split())
        for w in words:
            assert w in text, (w, text)
    works()


def test_table_size():
    assert len(ROWS) >= 150  # issue 28's table
    assert len(ROWS) == len({r[0] for r in ROWS})  # names unique
    assert SIMULATOR_ONLY <= {r[0] for r in ROWS}
