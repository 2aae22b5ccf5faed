"""cuda.jit: kernels and device functions as numba.cuda's Dispatcher.

A dispatcher takes its function's source text when it is made (kfront._capture: the text Python compiled it
from, checked exactly; true line numbers in every diagnostic), so an edited file or a text Python keeps nowhere
changes nothing. At its first compile it freezes what its function reads, as Numba freezes globals and closure
variables at the first compile: at decoration when cuda.jit is given signatures (numba-cuda compiles each then; see
Dispatcher._compile_declared), else at the first launch (or specialize / inspect_* call): the values of the
globals and closure variables it names (numbers, tuples, arrays as constant arrays, enums, modules and numba objects
by path), and the device functions it calls (their sources and what they read in turn). These become one kfront program (kfront._kfront.Program) in
which the runtime specialises the kernel per argument types — a lock-free lookup by type fingerprint on every
launch, a compile on a new fingerprint. `kernel[griddim, blockdim, stream, sharedmem](*args)` is a launcher
object per launch configuration (cached), whose call goes straight to the C launch path.

Several devices: the program is made per device, on the runtime of the thread's current device when the kernel is
first used there (each device has its own specialisations and in-memory cache; the disk cache is shared by
devices of one compute capability). A launcher belongs to the device it was made on; called while another device
is current, it launches through that device's launcher of the same configuration.
"""
import collections
import functools
import inspect
import math
import operator
import pickle
import sys
import threading
import warnings
import weakref

import numpy as np

from kfront import _capture, _kfront, _numba_interop, _pickle, _source, errors, extending, types
from kfront import config as _config  # (kernel[...] calls its launch configuration `config`)
from kfront.cuda import _runtime, caching, linking

_dispatchers = weakref.WeakSet()
extending.install()  # the compiler asks kfront.extending for the implementations of overloaded functions


def _forget_programs(devnum=None):
    """After cuda.close() (devnum None: every device) or a device's reset: every dispatcher compiles again for that
    device on its next use there."""
    for d in list(_dispatchers):
        kernel_objects = getattr(d, "_kernel_objects", {})  # (what holds the programs' functions: dispatchers')
        if devnum is None:
            d._functions.clear()
            kernel_objects.clear()
        else:
            d._functions.pop(devnum, None)
            kernel_objects.pop(devnum, None)
        d._launchers.clear()


# held while a dispatcher makes its program for a device (Dispatcher._fn): one per device, whichever thread is first
_program_lock = threading.RLock()

# numba-cuda warns of a launch of fewer blocks than this (its fixed threshold: about 2 x the SMs of a large GPU)
_MIN_GRID_SIZE = 128


def _performance_warnings(setting):
    return bool(getattr(_config, setting)) and not _config.DISABLE_PERFORMANCE_WARNINGS


def _small_grid(grid):
    """grid when it has fewer blocks than numba-cuda's threshold, else None."""
    return grid if math.prod(grid) < _MIN_GRID_SIZE else None


def _warn_low_occupancy(grid, stacklevel=3):
    """numba-cuda's warning, at kernel[griddim, blockdim], of a grid of fewer than 128 blocks (governed by
    config.CUDA_LOW_OCCUPANCY_WARNINGS and DISABLE_PERFORMANCE_WARNINGS)."""
    if _performance_warnings("CUDA_LOW_OCCUPANCY_WARNINGS"):
        size = math.prod(grid)
        warnings.warn(errors.PerformanceWarning(
            "Grid size %d will likely result in GPU under-utilization due to low occupancy." % size),
            stacklevel=stacklevel)


def warn_implicit_copies(count):
    """numba-cuda's warning for each host (NumPy) array a launch copies to the device and back (governed by
    config.CUDA_WARN_ON_IMPLICIT_COPY and DISABLE_PERFORMANCE_WARNINGS); the launcher (ext/program.c) calls it."""
    if _performance_warnings("CUDA_WARN_ON_IMPLICIT_COPY"):
        # the launch's line in the user's code: past kfront's own launch wrappers (_FollowedLauncher, ...)
        stacklevel, frame = 2, sys._getframe(1)
        while frame is not None and frame.f_globals.get("__name__", "").startswith("kfront."):
            stacklevel, frame = stacklevel + 1, frame.f_back
        for _ in range(count):
            warnings.warn(errors.PerformanceWarning(
                "Host array used in CUDA kernel will incur copy overhead to/from device."), stacklevel=stacklevel)


def read_launch_bounds(value):
    """cuda.jit(launch_bounds=...) as a tuple of up to three ints (max threads per block, min blocks per
    multiprocessor, max blocks per cluster), read as numba-cuda reads it: None or () for none, an integer for the
    first alone, a tuple or list; more than three is numba-cuda's ValueError. kfront also refuses what numba-cuda
    would pass on to NVVM as nonsense: a value that is no integer (TypeError), a first bound below 1 or any above
    2**31-1 (ValueError); 0 for the second or third is no bound."""
    if value is None:
        return ()
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        value = (value,)
    if not isinstance(value, (tuple, list)):
        raise TypeError("launch_bounds must be an integer or a tuple of up to three integers, not %r" % (value,))
    if len(value) > 3:
        raise ValueError("Got %d launch bounds: %s. A maximum of three are supported: (max_threads_per_block, "
                         "min_blocks_per_sm, max_blocks_per_cluster)" % (len(value), value))
    names = ("max_threads_per_block", "min_blocks_per_sm", "max_blocks_per_cluster")
    bounds = []
    for i, v in enumerate(value):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise TypeError("launch_bounds must be integers: %s is %r" % (names[i], v))
        if not (1 if i == 0 else 0) <= v <= 2 ** 31 - 1:
            raise ValueError("launch_bounds: %s is %d; it must be from %d to 2**31-1" % (names[i], v, i == 0))
        bounds.append(int(v))
    return tuple(bounds)


_CARVEOUTS = {"default": -1, "maxl1": 0, "maxshared": 100}


def read_carveout(value):
    """cuda.jit(shared_memory_carveout=...) checked as numba-cuda checks it at decoration (its messages): None, an
    int from -1 to 100 (percent of the unified L1/shared memory; -1 the driver's default), or "default", "MaxL1",
    "MaxShared" in any case (-1, 0, 100). Returns the percent, or None."""
    if value is None:
        return None
    if isinstance(value, str):
        if value.lower() not in _CARVEOUTS:
            raise ValueError("Invalid carveout value: %s. Must be -1 to 100 or one of %s" % (value, list(_CARVEOUTS)))
        return _CARVEOUTS[value.lower()]
    if isinstance(value, int) and not isinstance(value, bool):
        if not -1 <= value <= 100:
            raise ValueError("Carveout must be between -1 and 100")
        return value
    raise TypeError("shared_memory_carveout must be str or int, got %s" % type(value).__name__)


def _debug_and_opt(debug, opt, lineinfo):
    """numba-cuda's defaults of cuda.jit's debug (config.CUDA_DEBUGINFO_DEFAULT, i.e. NUMBA_CUDA_DEBUGINFO) and opt
    (config.OPT != 0), and its warnings (NumbaInvalidConfigWarning) of debug with opt and of debug with lineinfo, at
    the call of cuda.jit or compile_ptx, as numba-cuda gives them."""
    debug = _config.CUDA_DEBUGINFO_DEFAULT if debug is None else debug
    opt = (_config.OPT != 0) if opt is None else opt
    if debug and opt:
        warnings.warn(errors.InvalidConfigWarning(
            "debug=True with opt=True is not supported by CUDA. This may result in a crash - set debug=False or "
            "opt=False."), stacklevel=3)
    if debug and lineinfo:
        warnings.warn(errors.InvalidConfigWarning(
            "debug and lineinfo are mutually exclusive. Use debug to get full debug info (this disables some "
            "optimizations), or lineinfo for line info only with code generation unaffected."), stacklevel=3)
    return debug, opt


def _redirect(ref, config):
    """A launcher's way to the current device: the launcher of `config` for it (see Launcher in ext/program.c)."""
    d = ref()
    if d is None:
        raise RuntimeError("kfront: the kernel this launcher belonged to is gone")
    return d._configure(config, redirect=False)


def launcher_claimed(launcher, redirect, callbacks):
    """A launcher's pre_launch_callbacks were asked for (ext/program.c): as numba-cuda's kernel[...] makes a new
    launch configuration each time, later kernel[...] of this configuration must not share the list, so the
    dispatcher forgets the launcher it cached for it."""
    d = redirect.args[0]() if redirect is not None else None
    if d is not None:
        config = redirect.args[1]
        d._launchers.pop(config, None)
        d._small_grids.pop(config, None)


def reduce_launcher(launcher, redirect, callbacks):
    """A launcher pickles as its dispatcher and configuration (numba-cuda's _LaunchConfiguration does, refusing
    one with pre-launch callbacks); loaded, it is dispatcher[configuration]."""
    if callbacks:
        raise pickle.PicklingError("Cannot pickle configured launches with pre-launch callbacks")
    d = redirect.args[0]() if redirect is not None else None
    if d is None:
        raise pickle.PicklingError("kfront: cannot pickle a launcher whose kernel is gone")
    return operator.getitem, (d, redirect.args[1])


def _dim(value, what):
    """A launch dimension as ints, as numba-cuda's normalize_kernel_dimensions takes it (with its messages): an
    integer, or a tuple or list of up to 3 integers (NumPy integers accepted; () is 1)."""
    if value is None:
        raise ValueError(MISSING_LAUNCH_CONFIG)
    dims = list(value) if isinstance(value, (tuple, list)) else [value]
    if len(dims) > 3:
        raise ValueError("%s must be a sequence of 1, 2 or 3 integers, got %r" % (what, dims))
    try:
        return tuple(operator.index(v) for v in dims) or (1,)
    except TypeError:
        raise TypeError("%s must be a sequence of integers, got %r" % (what, dims)) from None


# numba-cuda's text for a kernel called without a launch configuration (numba.cuda.errors.missing_launch_config_msg)
MISSING_LAUNCH_CONFIG = """
Kernel launch configuration was not specified. Use the syntax:

kernel_function[blockspergrid, threadsperblock](arg0, arg1, ..., argn)

See https://numba.readthedocs.io/en/stable/cuda/kernels.html#kernel-invocation for help.

"""


def _example(t):
    """A host value of type t (values never matter), to compile a declared signature before any launch: arrays of
    its dtype, rank and layout (A: strided) and writeability, scalars, tuples of them."""
    if isinstance(t, types.Array):
        a = np.zeros((3,) * t.ndim, dtype=types.as_dtype(t.dtype))
        if t.layout == "F":
            a = np.asfortranarray(a)
        elif t.layout == "A" and t.ndim:
            a = a[(slice(None, None, 2),) * t.ndim]
        a.flags.writeable = t.mutable
        return a
    if isinstance(t, types.BaseTuple):
        return tuple(_example(e) for e in t)
    return types.as_dtype(t).type(0)


def _examples(argtypes):
    """Host values of these argument types (see _example), or None where one has none (a pointer, say)."""
    try:
        return [_example(t) for t in argtypes]
    except (TypeError, ValueError, errors.UnsupportedError):
        return None


def _buildable_before_launch(sig):
    """Whether a kernel of declared signature sig can be built before a launch: host values stand for its
    arguments (_examples; a pointer or a record argument has none: that kernel is typed at decoration and built at
    its first launch)."""
    try:
        argtypes, _ = types.parse_signature(types.normalize_signature(sig))
    except TypeError:
        return False
    return _examples(argtypes) is not None


def _sig_strings(sigs):
    if sigs is None:
        return []
    if not isinstance(sigs, (str, list, tuple, types.Signature)):
        sigs = _numba_interop.foreign_type(sigs) or sigs  # numba's signature object, beside a real numba
    if isinstance(sigs, (str, types.Signature)) or (isinstance(sigs, tuple) and not
                                                    any(isinstance(s, (str, types.Signature, tuple)) for s in sigs)):
        sigs = [sigs]
    return [types.normalize_signature(s) for s in sigs]


class _Inputs:
    """What a dispatcher's program is compiled from: sources, bindings and function specs (the formats
    kfront._kfront.Program takes)."""

    def __init__(self, root):
        self.sources = []
        self.bindings = {}
        self.specs = []
        self._index = {}
        self._registry = _registry()
        # id(dispatcher) -> [(name, frozen value or None, value)]: the names each function of the program reads
        self.frozen = {}
        self.links = []  # (extension, name, bytes): the code every kernel of the program is linked with
        self.link_items = []  # the link items themselves (each once): their setup and teardown callbacks
        self.exceptions = []  # (name, class): the exception classes its kernels raise, registered by name
        # a cache=True kernel's (kfront.cuda.caching): this state's pickle and its digest, and the
        # (signature, target) pairs whose cache entries record it
        self.cache_blob = self.cache_digest = None
        self.cached_signatures = set()
        self._add(root)
        if getattr(root, "_options", {}).get("cache") and self.links:  # a device function's or a declared one's
            raise RuntimeError("Cannot pickle CUDACodeLibrary with linking files")  # numba-cuda's words
        if getattr(root, "_options", {}).get("cache") and any(_captures_device_array(f) for f in self.bindings.values()):
            raise pickle.PicklingError("Cannot serialize kernels or device functions referencing global device arrays. "
                                       "Pass the array(s) as arguments to the kernel instead.")  # numba-cuda's words

    def state(self):
        """What a cache entry records of the program (kfront.cuda.caching): what it is compiled from."""
        return {"sources": self.sources, "bindings": self.bindings, "specs": self.specs, "links": self.links,
                "exceptions": self.exceptions}

    @classmethod
    def restored(cls, state, blob, cached_signatures):
        """The inputs a cache entry recorded (state()), its exception classes registered again."""
        self = cls.__new__(cls)
        self.sources, self.bindings, self.specs = state["sources"], state["bindings"], state["specs"]
        self.links, self.exceptions = state["links"], state["exceptions"]
        self.link_items = []  # (a cached kernel links nothing)
        self.frozen = {}
        self.cache_blob, self.cache_digest = blob, caching.digest(blob)
        self.cached_signatures = set(cached_signatures)
        for name, cls_ in self.exceptions:
            _kfront.register_exception(name, cls_)
        return self

    def _register_exception(self, name, cls_):
        _kfront.register_exception(name, cls_)
        self.exceptions.append((name, cls_))

    def _freeze_names(self, d, text):
        """[(name, frozen value or None, value)]: the globals and closure variables d's function reads, frozen now
        (None: a value kernels cannot use)."""
        fn = d.py_func
        globals_, closure = _source.referenced_names(fn, text)
        attrs = _source.attribute_names(fn.__code__)  # what it may read of the program's own modules
        names = []
        for name, value in list(globals_.items()) + list(closure.items()):
            if value is d and name == _capture.compiled_name(fn):
                continue  # recursion: the function's own name is defined in its own source
            frozen = _source.freeze_value(name, value, self._registry, attrs)
            if frozen is not None and frozen[0] == "exception":  # raised by a kernel, it comes back by this name
                self._register_exception(frozen[1], frozen[2])
                frozen = frozen[:2]
            names.append((name, frozen, value))
        return names

    def _add(self, d):
        index = len(self.sources)
        self._index[id(d)] = index
        fn = d.py_func
        self.sources.append(taken_source(d))
        spec = {"name": _capture.compiled_name(fn), "source": index, "kind": d._kind, "signatures": d._sigs}
        spec.update(d._spec_options())
        self.specs.append(spec)
        self._add_links(getattr(d, "_link", ()))
        if d._inputs is not None and d._inputs is not self and d._compiled_at_decoration:
            for key, names in d._inputs.frozen.items():  # what it and its callees read, frozen at its decoration
                self.frozen.setdefault(key, names)
        names = self.frozen.get(id(d))
        if names is None:
            names = self.frozen[id(d)] = self._freeze_names(d, self.sources[index][1])
        for name, frozen, value in names:
            if isinstance(value, linking.ForeignFunction):  # cuda.declare_device(..., link=...): its code
                self._add_links(value.link)
            if frozen is not None:
                frozen = self._functions_bound(frozen)
            # a value kernels cannot use: the compiler says what it is where a kernel reads the name
            self._bind(name, frozen if frozen is not None else ("unsupported", _source.describe_unusable(value, self._registry)))

    def _add_links(self, items):
        for item in items:
            if not any(item is known for known in self.link_items):
                self.link_items.append(item)
            code = linking.link_input(item)
            if code not in self.links:
                self.links.append(code)

    def _functions_bound(self, frozen):
        """frozen with each device function in it (itself, or an item of a tuple) as ('function', source index,
        name), its source added; None when one is a function that is not a @cuda.jit one."""
        if frozen[0] == "tuple":
            items = [self._functions_bound(item) for item in frozen[1]]
            return None if None in items else ("tuple", items) + tuple(frozen[2:])  # a namedtuple's class
        if frozen[0] == "pymodule":  # its device functions (mod.f(x)); another function is one kernels cannot use
            members = {}
            for attr, item in frozen[2].items():
                if item[0] == "exception":  # raised by a kernel as mod.MyError, it comes back by its name
                    self._register_exception(item[1], item[2])
                    item = item[:2]
                bound = self._functions_bound(item)
                members[attr] = bound if bound is not None else ("unsupported", (
                    _source.describe_unusable(item[1], self._registry) if item[0] == "function" else
                    "a tuple holding a Python function that is not a @cuda.jit device function"))
            return ("pymodule", frozen[1], members)
        if frozen[0] != "function":
            return frozen
        dep = frozen[1]
        if not isinstance(dep, Dispatcher):
            dep = _numba_interop.device_function(dep)  # numba's @jit function beside a real numba, or None
            if dep is None:
                return None
        if id(dep) not in self._index:
            self._add(dep)
        return ("function", self._index[id(dep)], _capture.compiled_name(dep.py_func))

    def _bind(self, name, frozen):
        old = self.bindings.get(name)
        if old is not None and old[0] == frozen[0] == "pymodule" and old[1] == frozen[1]:
            frozen = _merged_module(old, frozen)  # one module read by several functions: the attributes of each
        if old is not None and not _same(old, frozen):
            raise errors.UnsupportedError(
                "kfront: the name %r means different things in the functions of one kernel (%s and %s); kfront "
                "binds each global once per kernel" % (name, _describe(old), _describe(frozen)))
        self.bindings[name] = frozen

    def binding_list(self):
        return list(self.bindings.items())


def implementation_inputs(d):
    """(sources, bindings, functions, name): device dispatcher d as a program of its own (the implementation of an
    overload, kfront.extending.resolve)."""
    inputs = d._frozen()
    return inputs.sources, inputs.binding_list(), inputs.specs, _capture.compiled_name(d.py_func)


def _merged_module(a, b):
    members = dict(a[2])
    for attr, d in b[2].items():
        old = members.get(attr)
        members[attr] = _merged_module(old, d) if old is not None and old[0] == d[0] == "pymodule" else d
    return ("pymodule", a[1], members)


def _captures_device_array(frozen):
    """Whether a bound value is (or holds) a device array, which the kernel captures by its address."""
    if frozen[0] == "array":
        return not isinstance(frozen[1], np.ndarray)
    if frozen[0] == "tuple":
        return any(_captures_device_array(item) for item in frozen[1])
    if frozen[0] == "pymodule":
        return any(_captures_device_array(item) for item in frozen[2].values())
    return False


def _same(a, b):
    if a[0] != b[0]:
        return False
    if a[0] == "array" and not (isinstance(a[1], np.ndarray) and isinstance(b[1], np.ndarray)):
        return a[1] is b[1]  # a captured device array: the one object (its address)
    if a[0] == "array":
        return a[1].dtype == b[1].dtype and a[1].shape == b[1].shape and np.array_equal(a[1], b[1])
    if a[0] in ("tuple", "slice"):
        return len(a[1]) == len(b[1]) and all(_same(x, y) for x, y in zip(a[1], b[1])) and a[2:] == b[2:]
    if a[0] == "namespace":
        return a[1].keys() == b[1].keys() and all(_same(a[1][k], b[1][k]) for k in a[1]) and a[2:] == b[2:]
    if a[0] == "pymodule":
        return a[1] == b[1] and a[2].keys() == b[2].keys() and all(_same(a[2][k], b[2][k]) for k in a[2])
    if a[0] == "scalar":
        return type(a[1]) is type(b[1]) and a[1] == b[1] and a[2:] == b[2:]
    return a[1:] == b[1:]


def _describe(frozen):
    return frozen[0] if frozen[0] in ("array", "namespace", "tuple", "pymodule") else "%s %r" % (frozen[0], frozen[1])


_TYPE_PATHS = None


def _registry():
    """id(object) -> numba path, for the objects a kernel may name: numba's types (computed once) and
    kfront.cuda's kernel-side names, with the attribute chains reached so far (cuda.shared.array, ...)."""
    global _TYPE_PATHS
    from kfront import cuda
    if _TYPE_PATHS is None:
        names = [n for n in dir(types) if not n.startswith("_") and isinstance(getattr(types, n), types.Type)]
        paths = {}
        # a type's own name first (float64 rather than its alias double), then the aliases
        for name in sorted(names, key=lambda n: str(getattr(types, n)) != n):
            paths.setdefault(id(getattr(types, name)), "numba." + name)
        paths[id(types.bfloat16)] = "numba.cuda.types.bfloat16"  # numba-cuda's only (numba.types has none)
        paths[id(cuda)] = "numba.cuda"
        paths[id(cuda.random)] = "numba.cuda.random"
        paths[id(cuda.literal_unroll)] = "numba.cuda.literal_unroll"
        from kfront import numpy_support  # carray / farray over a pointer, in kernels as on the host
        paths[id(numpy_support.carray)] = "numba.cuda.np.numpy_support.carray"
        paths[id(numpy_support.farray)] = "numba.cuda.np.numpy_support.farray"
        _TYPE_PATHS = paths
    reg = dict(_TYPE_PATHS)
    for name in cuda.intrinsics.KERNEL_NAMES + cuda.intrinsics.VECTOR_TYPES:
        for obj, path in getattr(cuda, name).walk():
            reg[id(obj)] = path
    for name in cuda.random.DEVICE_FUNCTIONS:
        reg[id(getattr(cuda.random, name))] = "numba.cuda.random." + name
    fp8 = sys.modules.get("kfront.cuda.fp8")  # numba.cuda._internal.cuda_fp8's names, once something imported them
    if fp8 is not None:
        for obj, path in fp8.kernel_objects():
            reg[id(obj)] = path
    return reg


class _FollowedLauncher:
    """A launcher with work after each launch: a kernel compiled with debug=True waits for the kernel and raises
    what it raised (an exception of `raise`, an IndexError), as numba-cuda's, instead of at the next
    synchronisation; a cache=True kernel's new specialisations go into its on-disk cache (kfront.cuda.caching), and
    with config.DUMP_LLVM / DUMP_ASSEMBLY a kernel compiled by the launch prints its dumps (Dispatcher._dump)."""
    __slots__ = ("_launch", "_sync", "_dispatcher")

    def __init__(self, launch, sync, dispatcher):
        self._launch = launch
        self._sync = sync
        self._dispatcher = dispatcher  # a weak reference to the cache=True dispatcher, or None

    def __call__(self, *args):
        result = self._launch(*args)
        d = self._dispatcher() if self._dispatcher is not None else None
        if d is not None:
            d._note_kernels()
        if self._sync:
            _runtime.synchronize()
        return result

    def __getattr__(self, name):  # the launch configuration's griddim, blockdim, pre_launch_callbacks, ...
        if name == "_launch":
            raise AttributeError(name)
        return getattr(self._launch, name)

    def __reduce__(self):  # loaded, dispatcher[configuration] is a _FollowedLauncher again
        return self._launch.__reduce__()


def _no_launch(*args):
    """forall(0)'s launcher: no task, so no launch (numba-cuda's ForAll returns before launching)."""


class _ExtendedLauncher:
    """A launch of a dispatcher with extensions (numba-cuda's cuda.jit(extensions=[...])): each argument, and each
    item of a tuple argument, goes through every extension's prepare_args, from the last to the first, before the
    launch (`ty` is kfront.types.typeof of the value, None where kfront types none); the functions they appended
    to `retr` are called after it."""

    def __init__(self, launcher, extensions, stream):
        self._launcher = launcher
        self._extensions = list(extensions)
        self._stream = stream

    def _prepare(self, value, retr):
        try:
            ty = types.typeof(value)
        except (ValueError, errors.UnsupportedError):
            ty = None  # a value only an extension turns into a kernel argument
        for extension in reversed(self._extensions):
            ty, value = extension.prepare_args(ty, value, stream=self._stream, retr=retr)
        if isinstance(value, tuple):
            value = tuple(self._prepare(item, retr) for item in value)
        return value

    def __call__(self, *args):
        retr = []
        self._launcher(*(self._prepare(a, retr) for a in args))
        for writeback in retr:
            writeback()

    def __getattr__(self, name):  # the launch configuration's griddim, blockdim, pre_launch_callbacks, ...
        if name == "_launcher":
            raise AttributeError(name)
        return getattr(self._launcher, name)

    def __reduce__(self):  # loaded, dispatcher[configuration] is an _ExtendedLauncher again
        return self._launcher.__reduce__()


# the words of the warning for each link that inspect_lto_ptx leaves out (backend/link.c's), numba-cuda's
_NOT_OPTIMIZABLE = "it is not optimizable at link time, and `ignore_nonlto == True`"

# cuda.jit's inline= values (numba-cuda's; a bool as numba-cuda maps it) -> kf_function_spec's inline_mode
_INLINE_MODES = {"always": 1, True: 1, "never": 2, False: 2}


class Dispatcher:
    """A @cuda.jit function: a kernel (launched as kernel[griddim, blockdim, stream, sharedmem](*args)) or a
    device function (device=True, called by kernels)."""

    def __init__(self, py_func, sigs=None, device=False, fastmath=False, debug=False, lineinfo=False, opt=True,
                 cache=False, inline="never", forceinline=False, source=None, launch_bounds=None,
                 shared_memory_carveout=None, **extra):
        unknown = set(extra) - {"link", "max_registers", "boundscheck", "lto", "extensions"}
        if unknown:
            raise TypeError("kfront: cuda.jit() got unknown option(s) %s" % ", ".join(sorted(unknown)))
        self._link = linking.link_items(extra.get("link"))  # each readable and of a kind nvJitLink links
        if self._link and cache:  # numba-cuda's words: its cache pickles the code library, links and all
            raise RuntimeError("Cannot pickle CUDACodeLibrary with linking files")
        self.py_func = py_func
        self.__name__ = getattr(py_func, "__name__", "kernel")
        self.__qualname__ = getattr(py_func, "__qualname__", self.__name__)
        self.__doc__ = getattr(py_func, "__doc__", None)
        self.__module__ = getattr(py_func, "__module__", None)
        self.__wrapped__ = py_func
        self._kind = "device" if device else "kernel"
        self._sigs = _sig_strings(sigs)
        # numba-cuda's specialized launch: one signature declared alone (not in a list) launches its one kernel
        # without typing the arguments, so an integer array of the parameter's width is read as its integer type
        self._launch_untyped = len(self._sigs) == 1 and not isinstance(sigs, list) and not (
            isinstance(sigs, tuple) and any(isinstance(s, (str, types.Signature, tuple)) for s in sigs))
        self._options = dict(fastmath=bool(fastmath), debug=bool(debug), lineinfo=bool(lineinfo),
                             opt=(3 if opt is True or opt is None else 0 if opt is False else int(opt)),
                             inline=_INLINE_MODES.get(inline) if not callable(inline) else None,
                             cache=bool(cache))
        if self._options["inline"] is None and not callable(inline):
            raise ValueError("kwarg 'inline' must be one of the strings 'always' or 'never', or it can be a "
                             "callable that returns True/False. Found value %s" % (inline,))
        # numba-cuda's inline= (each call inlined before libNVVM sees the IR; a bool is "always"/"never", as
        # numba-cuda maps it) and forceinline= (the device function is LLVM alwaysinline: libNVVM inlines it)
        self._inline = "always" if inline is True else "never" if inline is False else inline
        self._forceinline = bool(forceinline)
        # as numba-cuda, bad launch bounds are an error of the kernel's first compile: at once when signatures are
        # declared (numba-cuda compiles them at decoration), else at the first launch or compile (_frozen raises it)
        try:
            self._launch_bounds = read_launch_bounds(launch_bounds)
        except (TypeError, ValueError) as e:
            if self._sigs and not device:
                raise
            self._launch_bounds = e
        self._bounds_check = extra.get("boundscheck") is not False
        self._carveout = read_carveout(shared_memory_carveout)  # the percent its kernels prefer on a GPU, or None
        # numba-cuda's argument extensions: objects whose prepare_args(ty, val, stream=, retr=) -> (ty, val) maps
        # each argument of a launch, last to first (the list given is kept: appending to it later counts)
        extensions = extra.get("extensions")
        self.extensions = extensions if extensions is not None else []
        self._source = source_now(py_func) if source is None else source
        self._inputs = None
        self._compiled_at_decoration = False  # cuda.jit given signatures: see _compile_declared
        self._functions = {}   # device ordinal -> its _kfront.Function (of a program on that device's runtime)
        self._launchers = {}
        self._specialized = {}     # (compute capability, signature) -> the dispatcher specialize() made for it
        # numba-cuda's lto: a kernel linked with foreign code (link=, declare_device's link=) is link-time optimised
        # with it by nvJitLink (kf_compile_options.lto); None: when nvJitLink is found and debug is off (decided at
        # the first use: _lto); True without nvJitLink is numba-cuda's RuntimeError, at once
        lto = extra.get("lto")
        if lto is not None and lto and not _runtime.have_nvjitlink():
            raise RuntimeError("LTO requires nvjitlink, which is not availableor not sufficiently recent (>=12.3)")
        self._lto_option = None if lto is None else bool(lto)
        self._small_grids = {}     # launch configuration -> its grid, for those numba-cuda warns of (low occupancy)
        self._kernel_objects = {}  # device ordinal -> (its _kfront.Function, {signature: Kernel}): one object each
        self._device_results = {}  # argument-type tuple -> DeviceCompileResult (compile_device, of a device function)
        # numba-cuda's on-disk cache of cache=True (kfront.cuda.caching; numba-cuda's RuntimeError at decoration
        # where the function has no place for one), and its counts of each new specialisation, Dispatcher.stats
        self._cache = caching.Cache(self) if cache and not device else None
        self._cache_hits, self._cache_misses = collections.Counter(), collections.Counter()
        self._noted = {}  # device ordinal -> the signatures counted in stats so far
        _dispatchers.add(self)

    @property
    def _lto(self):
        """Whether kernels are link-time optimised with the code they link (numba-cuda's lto; None given: nvJitLink
        found and not debug, numba-cuda's default)."""
        if self._lto_option is None:
            self._lto_option = _runtime.have_nvjitlink() and not self._options["debug"]
        return self._lto_option

    @property
    def targetoptions(self):
        bounds = self._launch_bounds if isinstance(self._launch_bounds, tuple) else None
        return dict(self._options, inline=self._inline, device=self._kind == "device", forceinline=self._forceinline,
                    extensions=self.extensions, launch_bounds=bounds or None, lto=self._lto,
                    shared_memory_carveout=self._carveout)

    def _spec_options(self):
        o = self._options
        spec = {"fastmath": o["fastmath"], "debug": o["debug"], "lineinfo": o["lineinfo"], "opt": o["opt"],
                "inline": self._inline_mode(), "forceinline": int(self._forceinline), "cache": o["cache"]}
        if self._kind == "kernel" and self._launch_bounds:  # a device function's are ignored, as numba-cuda's
            spec["launch_bounds"] = self._launch_bounds
        return spec

    def _inline_mode(self):
        """kf_function_spec's inline_mode: 1 "always", 2 "never". A cost model (numba's inline=callable) is asked
        once, at the first compile that includes this function, whether its calls are inlined: kfront has no numba
        IR to give it, so it is called as cost_model(None, None, None) (one answer for every call site)."""
        if self._options["inline"] is None:
            try:
                answer = self._inline(None, None, None)
            except Exception as e:
                raise TypeError("kfront: the inline cost model %r of %s raised %s: %s (kfront calls it with None for "
                                "expr, caller_info and callee_info: it has no numba IR to give it)"
                                % (self._inline, self.__qualname__, type(e).__name__, e)) from e
            self._options["inline"] = 1 if answer else 2
        return self._options["inline"]

    # -- compiling --------------------------------------------------------------------------------------
    def _frozen(self):
        if isinstance(self._launch_bounds, Exception) and self._kind == "kernel":
            raise self._launch_bounds.with_traceback(None)
        if self._inputs is None:
            restored = self._cache.restore() if self._cache is not None else None
            self._inputs = _Inputs.restored(*restored) if restored is not None else _Inputs(self)
            if self._cache is not None:
                self._cache.adopt(self._inputs)
        return self._inputs

    def _note_kernels(self):
        """Counts each specialisation made since the last call on the current device (Dispatcher.stats): a cache
        hit when a cache=True kernel's entry recorded it, else a miss, whose entry is written now."""
        dev = _kfront.current_device()
        f = self._functions.get(dev)
        if f is None or self._kind != "kernel":
            return
        seen = self._noted.setdefault(dev, set())
        kernels = f.kernels()
        if len(kernels) == len(seen):
            return
        target = None
        for k in kernels:
            if k.signature in seen:
                continue
            seen.add(k.signature)
            self._dump(k.signature)
            hit = False
            if self._cache is not None and self._cache.enabled:
                if target is None:
                    target = "sim" if _runtime.runtime(dev).mode == "sim" else "sm_%d%d" % get_current_cc()
                hit = self._cache.note(k.signature, target, self._inputs)
            (self._cache_hits if hit else self._cache_misses)[signature_key(k.signature)] += 1

    def _dump(self, signature):
        """numba-cuda's NUMBA_DUMP_LLVM and NUMBA_DUMP_ASSEMBLY (config.DUMP_LLVM, config.DUMP_ASSEMBLY): a kernel
        just compiled prints its LLVM IR (the NVVM IR given to libNVVM) and its PTX on stdout, each under
        numba-cuda's banner ("LLVM DUMP name" and "ASSEMBLY name" centred in dashes, then a line of '='); a kernel
        linked with foreign code under LTO prints the PTX of that link instead, as "ASSEMBLY (AFTER LTO) name"."""
        after_lto = self._lto and bool(self._frozen().links)
        asm = ("ASSEMBLY (AFTER LTO)", self.inspect_lto_ptx) if after_lto else ("ASSEMBLY", self.inspect_asm)
        for enabled, title, text in ((_config.DUMP_LLVM, "LLVM DUMP", self.inspect_llvm),
                                     (_config.DUMP_ASSEMBLY,) + asm):
            if enabled:
                print(("%s %s" % (title, self.__qualname__)).center(80, "-"))
                print(text(signature))
                print("=" * 80)

    @property
    def stats(self):
        """numba-cuda's: (cache_path, cache_hits, cache_misses), the counters keyed by argument-type tuple; the path
        None without cache=True."""
        self._note_kernels()
        path = self._cache.cache_path if self._cache is not None else None
        return caching.CompileStats(path, self._cache_hits, self._cache_misses)

    def enable_caching(self):
        """numba-cuda's: cache this kernel's compilations on disk from now on, as cache=True does."""
        if self._kind == "kernel" and self._cache is None:
            self._cache = caching.Cache(self)
            if self._inputs is not None:
                self._cache.adopt(self._inputs)

    def recompile(self):
        """numba-cuda's: every signature compiled so far compiled afresh, the globals and closure variables frozen
        anew, and (cache=True) the cache's entries replaced."""
        sigs = self.signatures
        if self._cache is not None:
            self._cache.flush()
        self._inputs = None
        self._compiled_at_decoration = False
        for store in (self._functions, self._launchers, self._small_grids, self._kernel_objects, self._noted):
            store.clear()
        if self._kind == "kernel":
            for sig in sigs:
                self.compile(sig)

    def _compile_declared(self):
        """As numba-cuda's cuda.jit given signatures: each is compiled at decoration, so the globals and closure
        variables the function reads (and those of the device functions it calls) are frozen now, a typing error
        is raised now, and a kernel is built for the current device (the simulator's, or the GPU's: PTX, loaded,
        or taken from the disk cache). A device function is typed for each signature (kfront compiles it inside
        the kernels that call it, which take what it read as frozen here). A kernel signature no host value can
        stand for (a record argument, a pointer) is typed now and built at the first launch."""
        inputs = self._frozen()
        self._compiled_at_decoration = True
        errors.register()  # typing needs no runtime, but its errors are raised as kfront.errors' classes
        for sig in self._sigs:
            try:
                argtypes, restype = types.parse_signature(sig)
            except TypeError:  # one kfront.types cannot read back (a record, a heterogeneous tuple): the compiler can
                argtypes = restype = None
            if self._kind == "kernel" and restype not in (None, types.none):
                raise TypeError("CUDA kernel must have void return type.")  # numba-cuda's, at its decorator
            examples = _examples(argtypes) if self._kind == "kernel" and argtypes is not None else None
            if examples is not None:
                self._fn().specialize(*examples)
                self._note_kernels()
            else:
                _kfront.compile(inputs.sources, inputs.binding_list(), inputs.specs,
                                [_capture.compiled_name(self.py_func)], [sig], emit="kir",
                                bounds_check=self._bounds_check)

    def _fn(self):
        """The function on the calling thread's current device (a program per device: its own specialisations)."""
        dev = _kfront.current_device()
        f = self._functions.get(dev)
        if f is None:
            with _program_lock:  # one program per device, however many threads ask for it first
                f = self._functions.get(dev)
                if f is None:
                    f = self._new_fn(dev)
        return f

    def _new_fn(self, dev):
        """A new program of this dispatcher on device dev, and its function (kept in _functions)."""
        inputs = self._frozen()
        program = _kfront.Program(_runtime.runtime(dev), inputs.sources, inputs.binding_list(), inputs.specs,
                                  bounds_check=self._bounds_check, links=inputs.links,
                                  include_dirs=linking.include_dirs() if inputs.links else (),
                                  module_callback=linking.module_callbacks(inputs.link_items),
                                  lto=self._lto)
        f = program.function(_capture.compiled_name(self.py_func))
        if self._carveout is not None and self._kind == "kernel":
            f.set_shared_memory_carveout(self._carveout)
        if self._launch_untyped and self._kind == "kernel":
            f.set_specialized(True)
        code = getattr(self.py_func, "__code__", None)
        if self._kind == "kernel" and code is not None and not code.co_flags & inspect.CO_VARARGS:
            f.set_parameters(code.co_argcount, tuple(self.py_func.__defaults__ or ()))
        self._functions[dev] = f
        return f

    # -- launching --------------------------------------------------------------------------------------
    def __getitem__(self, config):
        hashable = _hashable(config)
        launcher = self._launchers.get(config) if hashable else None
        if launcher is None:
            launcher = self._configure(config)
        grid = self._small_grids.get(config) if hashable else _small_grid(_dim(config[0], "griddim"))
        if grid is not None:
            _warn_low_occupancy(grid)
        if self.extensions:
            return _ExtendedLauncher(launcher, self.extensions, config[2] if len(config) > 2 else 0)
        return launcher

    def _configure(self, config, redirect=True):
        if self._kind == "device":  # numba-cuda's RuntimeError, then kfront's words
            raise RuntimeError("Cannot compile a device function as a kernel: %s is a device function "
                               "(device=True), which kernels call" % self.__name__)
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise ValueError("kfront: a launch configuration is kernel[griddim, blockdim], with optional stream "
                             "and dynamic shared memory bytes, not %r" % (config,))
        grid = _dim(config[0], "griddim")
        block = _dim(config[1], "blockdim")
        stream = _runtime.stream_arg(config[2] if len(config) > 2 else 0)
        shared = operator.index(config[3]) if len(config) > 3 else 0
        # the launcher is the current device's; called on another current device it launches there through the
        # launcher `_redirect` makes for it (kept by the launcher: no lookup on the one-device path)
        back = functools.partial(_redirect, weakref.ref(self), config) if redirect else None
        launcher = self._fn().configure(grid, block, stream, shared, back)
        if not redirect:
            return launcher
        dumps = _config.DUMP_LLVM or _config.DUMP_ASSEMBLY  # a launch that compiles prints them (_dump)
        if self._options["debug"] or self._cache is not None or dumps:
            # the outer launcher: a launch redirected to another device returns through it
            launcher = _FollowedLauncher(launcher, self._options["debug"],
                                         weakref.ref(self) if self._cache is not None or dumps else None)
        if _hashable(config) and not dumps:
            if len(self._launchers) > 256:
                self._launchers.clear()
                self._small_grids.clear()
            if _small_grid(grid) is not None:
                self._small_grids[config] = grid
            self._launchers[config] = launcher
        return launcher

    def configure(self, griddim, blockdim, stream=0, sharedmem=0):
        return self[griddim, blockdim, stream, sharedmem]

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launcher over ntasks threads (1-D), tpb threads per block (0: kfront picks 256); as numba-cuda's
        ForAll, a negative count is a ValueError and no task launches nothing."""
        ntasks = operator.index(ntasks)
        if ntasks < 0:
            raise ValueError("Can't create ForAll with negative task count: %s" % ntasks)
        if ntasks == 0:
            return _no_launch
        tpb = operator.index(tpb) or 256
        return self[(ntasks + tpb - 1) // tpb, tpb, stream, sharedmem]

    def __call__(self, *args, **kwargs):
        if self._kind == "device":
            raise TypeError("kfront: %s is a device function (device=True): it can only be called from a kernel"
                            % self.__name__)
        raise ValueError(MISSING_LAUNCH_CONFIG)

    # -- specialisations ------------------------------------------------------------------------------
    def specialize(self, *args):
        """A dispatcher fixed to the argument types of args (values, or the types themselves: float32[::1]),
        compiled now, one per compute capability and argument types (specializations); a specialized dispatcher (one declared signature, or one specialize() made) cannot
        be specialized again: numba-cuda's RuntimeError."""
        if self.specialized:
            raise RuntimeError("Dispatcher already specialized")
        # as numba-cuda's (typeof_pyval of each argument), a type stands for the values of that type
        args = [_numba_interop.foreign_type(a) or a for a in args]
        kernel = self._fn().specialize(*[_example(a) if isinstance(a, types.Type) else a for a in args])
        self._note_kernels()
        sig = kernel.signature
        key = (get_current_cc(), sig)
        d = self._specialized.get(key)
        if d is None:
            d = Dispatcher(self.py_func, [sig], device=self._kind == "device", boundscheck=self._bounds_check,
                           source=self._source, lto=self._lto, link=self._link,
                           **{k: v for k, v in self._options.items() if k != "inline"},
                           inline=self._inline, forceinline=self._forceinline,
                           launch_bounds=self._launch_bounds, shared_memory_carveout=self._carveout)
            d._inputs = self._frozen()
            self._specialized[key] = d
        return d

    @property
    def specializations(self):
        """As numba-cuda's: {(compute capability, argument-type tuple): the dispatcher specialize() made}."""
        return {(cc, signature_key(sig)): d for (cc, sig), d in self._specialized.items()}

    @property
    def specialized(self):
        return len(self._sigs) == 1

    @property
    def signatures(self):
        """As numba-cuda's: list(overloads), the argument-type tuples compiled so far on the current device (the
        declared ones first, then one per new argument-type signature a launch, compile() or specialize() compiled),
        e.g. (float32[::1], int64). A device function lists its declared signatures (kfront compiles it inside the
        kernels that call it)."""
        keys = [signature_key(s) for s in self._sigs]
        f = self._functions.get(_kfront.current_device())
        if f is not None and self._kind == "kernel":
            keys += [signature_key(k.signature) for k in f.kernels()]
        return list(dict.fromkeys(keys))

    @property
    def nopython_signatures(self):
        """numba's nopython_signatures: a Signature object (return type, argument types) per compiled signature."""
        out = {}
        for s in self._sigs + [k.signature for k in self._kernels()]:
            args, restype = types.parse_signature(s)
            out.setdefault(tuple(args), types.Signature(restype if restype is not None else types.none, args))
        return list(out.values())

    def _kernels(self):
        """The current device's compiled kernels (CompiledKernel), oldest first, each the same object every time it
        is asked for."""
        dev = _kfront.current_device()
        f = self._functions.get(dev)
        if f is None or self._kind != "kernel":
            return []
        seen = self._kernel_objects.get(dev)
        if seen is None or seen[0] is not f:
            seen = self._kernel_objects[dev] = (f, {})
        out = []
        for k in f.kernels():
            held = seen[1].get(k.signature)
            if held is None:
                held = seen[1][k.signature] = CompiledKernel(k, self)
            out.append(held)
        return out

    @property
    def overloads(self):
        """As numba-cuda's: argument-type tuple -> compiled kernel (CompiledKernel: `signature`, `params`,
        `cooperative`, inspect_llvm() ...), for every specialisation made so far on the current device (declared signatures are compiled
        at decoration, as numba-cuda does, and for another current device when this is first read there). Keys are tuples of kfront.types
        ((float32[::1], int64)); a lookup also takes a signature as text or a Signature ("void(float32[::1],
        int64)")."""
        if self._kind == "device":  # a device function's: what compile_device compiled
            return Overloads(self._device_results)
        if self._kind == "kernel" and self._sigs:
            for sig in self._sigs:  # as numba-cuda, a kernel's declared signatures are there before any launch
                if _buildable_before_launch(sig):  # (one with a pointer or a record is built at its first launch)
                    self.compile(sig)
        return Overloads((signature_key(k.signature), k) for k in self._kernels())

    def compile(self, sig):
        """numba-cuda's Dispatcher.compile: the kernel specialised for sig (a tuple of argument types, a Signature
        or its text, whose return type must be void), compiled now on the current device if it is not yet; a key
        of `overloads` from then on. A specialized dispatcher (one declared signature) returns its kernel."""
        if self._kind == "device":
            raise TypeError("kfront: %s is a device function (device=True): kfront compiles it inside the kernels "
                            "that call it" % self.__name__)
        if self.specialized:  # numba-cuda: a dispatcher of one declared signature compiles that one only
            sig = self._sigs[0]
        argtypes, restype = types.parse_signature(types.normalize_signature(sig))
        if restype is not None and restype != types.none:
            raise TypeError("kfront: a kernel returns nothing: its signature's return type must be void, not %s"
                            % restype)
        f = self._fn()
        key = tuple(argtypes)
        for _ in range(2):
            for k in self._kernels():
                if signature_key(k.signature) == key:
                    return k
            f.specialize(*[_example(a) for a in argtypes])
            self._note_kernels()
        raise errors.CompilerError("kfront: compiling %s for %s gave another signature" % (self.__name__, key))

    def compile_device(self, args, return_type=None):
        """numba-cuda's compile_device: the device function compiled for the argument types args (a tuple of types),
        returning return_type (None: the type its typing infers), once per args: a DeviceCompileResult, a key of
        `overloads` from then on. A typing error raises as a launch's would."""
        if self._kind != "device":
            raise TypeError("kfront: %s is a kernel: compile_device compiles device functions (device=True); "
                            "compile(sig) compiles a kernel" % self.__name__)
        args = tuple(args)
        result = self._device_results.get(args)
        if result is not None:
            return result
        from kfront.cuda.compiler import _inferred_return_type
        if return_type is None:
            return_type = _inferred_return_type(self.py_func, args)
        else:  # typed with the return type given (the result converted to it, as a declared signature's)
            self._compile_text("kir", types.Signature(return_type, args))
        result = self._device_results[args] = DeviceCompileResult(self.py_func, _capture.compiled_name(self.py_func),
                                                                  args, return_type)
        return result

    def _kernel_attribute(self, name, signature):
        """numba-cuda's get_<attribute>(signature=None): the attribute of the kernel compiled for signature (a
        Signature, an argument-type tuple or a signature's text), of the one kernel of a specialized dispatcher, or
        else {argument-type tuple: value} over every kernel compiled so far."""
        overloads = self.overloads
        if signature is not None:
            return getattr(overloads[signature], name)
        if self.specialized:
            return getattr(next(iter(overloads.values())), name)
        return {sig: getattr(k, name) for sig, k in overloads.items()}

    def get_regs_per_thread(self, signature=None):
        """Registers each thread of the kernel uses on the current device (the driver's count; on the simulator,
        which runs kfront's IR, kfront.errors.NotOnSimulatorError, an AttributeError as in numba-cuda's)."""
        return self._kernel_attribute("regs_per_thread", signature)

    def get_const_mem_size(self, signature=None):
        """Bytes of constant memory the kernel uses (its constant arrays)."""
        return self._kernel_attribute("const_mem_size", signature)

    def get_shared_mem_per_block(self, signature=None):
        """Bytes of static shared memory per block (cuda.shared.array of a constant shape)."""
        return self._kernel_attribute("shared_mem_per_block", signature)

    def get_max_threads_per_block(self, signature=None):
        """The most threads per block the kernel can be launched with on the current device."""
        return self._kernel_attribute("max_threads_per_block", signature)

    def get_local_mem_per_thread(self, signature=None):
        """Bytes of local memory per thread (the driver's; NotOnSimulatorError on the simulator)."""
        return self._kernel_attribute("local_mem_per_thread", signature)

    def _signature_for(self, signature):
        """The signatures (texts) to compile for an inspect_* call: the one given, else every compiled one."""
        if signature is not None:
            return [types.normalize_signature(signature)]
        sigs = {}
        for s in self._sigs + [sig for _, sig in self._specialized] + [k.signature for k in self.overloads.values()]:
            sigs.setdefault(signature_key(s), s)
        if not sigs:
            raise ValueError("kfront: %s has no compiled signature yet: give one (inspect_ptx(signature)), or "
                             "declare it in cuda.jit" % self.__name__)
        return list(sigs.values())

    def _compile_text(self, emit, signature, **codegen):
        """The text (kir, LLVM IR, PTX) of the signature given, else {argument-type tuple: text} for every compiled
        signature, as numba-cuda's inspect_* return them; emit "result": the compiled function's result type as a
        type tree (types._from_tree reads it)."""
        errors.register()  # compiling needs no runtime, but its errors are raised as kfront.errors' classes
        _runtime.configure_cuda_paths()
        if emit not in ("kir", "result"):  # KFRONT_BACKEND=llvm: LLVM's NVPTX target, as for launches ('auto' and 'nvvm': libNVVM)
            codegen.setdefault("backend", "llvm" if _config.KFRONT_BACKEND == "llvm" else "nvvm")
        inputs = self._frozen()
        name = _capture.compiled_name(self.py_func)
        out = {}
        for sig in self._signature_for(signature):
            out[signature_key(sig)] = _kfront.compile(inputs.sources, inputs.binding_list(), inputs.specs, [name],
                                                      [sig], emit=emit, bounds_check=self._bounds_check, **codegen)
        return out[signature_key(signature)] if signature is not None else out

    def _codegen(self):
        """The inspect_* methods' code generation: the current device's, and the passes its runtime makes kernels with
        (Runtime.kernel_pipeline: thread-map or not, as the runtime's options say), so that the text is that of the
        kernel a launch of it runs (the runtime may launch its grid-stride variant NAME__gs in its place, which this
        leaves out; cuda.compile_ptx, which launches nothing, compiles with kf_default_pipeline's)."""
        cc = get_current_cc()
        return dict(arch=cc[0] * 10 + cc[1], opt=self._options["opt"], fastmath=self._options["fastmath"],
                    lineinfo=self._options["lineinfo"], debuginfo=bool(self._options["debug"]),
                    pipeline=_runtime.runtime().kernel_pipeline)

    def inspect_kir(self, signature=None):
        """kfront's typed IR (kir) after the runtime's pass pipeline (that of what a launch runs), per signature."""
        return self._compile_text("kir", signature, pipeline=_runtime.runtime().kernel_pipeline)

    def inspect_llvm(self, signature=None):
        return self._compile_text("llvm", signature, **self._codegen())

    def inspect_asm(self, signature=None):
        return self._compile_text("ptx", signature, **self._codegen())

    inspect_ptx = inspect_asm

    def inspect_sass(self, signature=None):
        """numba-cuda's inspect_sass: a device function's is refused with its RuntimeError; a kernel's SASS needs a
        disassembler (numba-cuda runs nvdisasm on the cubin), which kfront does not have."""
        if self._kind == "device":
            raise RuntimeError("Cannot inspect SASS of a device function")
        raise errors.UnsupportedError("kfront: inspect_sass is not supported (kfront does not disassemble cubins; "
                                      "inspect_asm gives the PTX)")

    def inspect_sass_cfg(self, signature=None):
        """numba-cuda's inspect_sass_cfg: refused for a device function with its RuntimeError; see inspect_sass."""
        if self._kind == "device":
            raise RuntimeError("Cannot get the CFG of a device function")
        raise errors.UnsupportedError("kfront: inspect_sass_cfg is not supported (kfront does not disassemble "
                                      "cubins; inspect_asm gives the PTX)")

    def inspect_lto_ptx(self, signature=None):
        """numba-cuda's PTX after link-time optimisation, per signature as inspect_asm, of a dispatcher with lto on
        (RuntimeError "LTO is not enabled" otherwise): for a kernel linked with foreign code, the PTX nvJitLink's
        link-time optimisation gives of kfront's LTO-IR with the linked code (a .cu compiled to LTO-IR, .ltoir), a
        small foreign function inlined into the kernel; .ptx and .cubin links cannot be optimised and are left out,
        with a warning, as numba-cuda leaves them out. A kernel linking nothing is kfront's PTX (inspect_asm): kfront
        compiles it and every device function it calls as one NVVM module, already optimised together."""
        return self._lto_ptx(signature, self._codegen())

    def _lto_ptx(self, signature, codegen):
        if not self._lto:
            raise RuntimeError("LTO is not enabled")
        links = self._frozen().links
        if not links:
            return self._compile_text("ptx", signature, **codegen)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            ptx = self._compile_text("lto_ptx", signature, links=links, include_dirs=linking.include_dirs(),
                                     **codegen)
        for w in seen:  # a link left out of the optimised PTX: numba-cuda's UserWarning, the others as they came
            left_out = issubclass(w.category, errors.KfrontWarning) and _NOT_OPTIMIZABLE in str(w.message)
            warnings.warn(w.message if not left_out else str(w.message), UserWarning if left_out else w.category,
                          stacklevel=3)
        return ptx

    def inspect_types(self, file=None, signature=None, pretty=False, style="default", **kwargs):
        """numba's inspect_types: per compiled signature (or the one given), its name and signature, then the typed
        code — kfront's typed IR (kir) — between rules, as numba prints its type annotations."""
        if pretty:
            raise errors.UnsupportedError("kfront: inspect_types(pretty=True) is not supported (kfront annotates "
                                          "its typed IR, kir, as text)")
        sigs = [signature_key(signature)] if signature is not None else self.signatures
        file = file or sys.stdout
        for sig in sigs:
            print("%s %s" % (self.py_func.__name__, sig), file=file)
            print("-" * 80, file=file)
            print(self.inspect_kir(sig), file=file)
            print("=" * 80, file=file)

    def __repr__(self):
        return "<kfront %s %s>" % ("device function" if self._kind == "device" else "kernel", self.__qualname__)

    # -- pickling (kfront._pickle) --------------------------------------------------------------------------
    def __reduce__(self):
        o = self._options
        options = dict(device=self._kind == "device", fastmath=o["fastmath"], debug=o["debug"],
                       lineinfo=o["lineinfo"], opt=o["opt"], cache=o["cache"],
                       inline=self._inline, forceinline=self._forceinline,
                       boundscheck=self._bounds_check, shared_memory_carveout=self._carveout,
                       launch_bounds=self._launch_bounds if isinstance(self._launch_bounds, tuple) else None,
                       lto=self._lto_option)
        source = None if isinstance(self._source, BaseException) else self._source
        return (_pickle.new_dispatcher, (type(self),),
                {"function": _pickle.function_state(self.py_func, _registry(), source and source[1]),
                 "signatures": list(self._sigs),
                 "options": options, "source": source})

    def __setstate__(self, state):
        # as numba-cuda's rebuilt dispatchers, one loaded where its function has no cache folder runs uncached
        options = dict(state["options"], cache=False)
        Dispatcher.__init__(self, _pickle.rebuild_function(state["function"]), state["signatures"] or None,
                            source=state["source"], **options)
        if state["options"]["cache"] and not options["device"]:
            self._options["cache"] = True
            self._cache = caching.Cache(self, raising=False)


class HostJit(Dispatcher):
    """numba.jit / numba.njit under kfront: called from Python, the function runs as plain Python (kfront
    compiles CUDA code only); called from a kernel, it is compiled as a device function, as Numba's CUDA target
    compiles @njit functions that kernels call."""

    def __call__(self, *args, **kwargs):
        return self.py_func(*args, **kwargs)

    def __getitem__(self, config):
        raise TypeError("kfront: %s is a @jit function, not a kernel: it cannot be launched" % self.__name__)


_HOST_JIT_OPTIONS = {"nopython", "nogil", "cache", "parallel", "fastmath", "error_model", "boundscheck", "forceobj",
                     "looplift", "inline", "locals", "target", "debug", "no_cpython_wrapper", "no_cfunc_wrapper"}


def host_jit(signature_or_function=None, **options):
    """numba.jit / numba.njit: see HostJit."""
    unknown = set(options) - _HOST_JIT_OPTIONS
    if unknown:
        raise TypeError("kfront: jit() got unknown option(s) %s" % ", ".join(sorted(unknown)))
    if options.get("target") not in (None, "cpu", "cuda"):
        raise errors.UnsupportedError("kfront: jit(target=%r) is not supported" % (options["target"],))
    fastmath = bool(options.get("fastmath", False))
    if callable(signature_or_function) and not isinstance(signature_or_function, (types.Type, types.Signature)):
        return HostJit(signature_or_function, None, device=True, fastmath=fastmath)
    sigs = signature_or_function
    return lambda fn: HostJit(fn, sigs, device=True, fastmath=fastmath)


def signature_key(sig):
    """The argument-type tuple of a signature given as text, a Signature or a tuple of types: numba-cuda's key of
    Dispatcher.overloads. A kernel's signature text that kfront.types cannot read back (a record array argument,
    an enum member whose values are tuples) is its own key."""
    if isinstance(sig, tuple) and all(isinstance(t, types.Type) for t in sig):
        return sig
    try:
        return tuple(types.parse_signature(types.normalize_signature(sig))[0])
    except TypeError:
        if isinstance(sig, str):
            return sig
        raise


FunctionDescriptor = collections.namedtuple("FunctionDescriptor", "mangled_name llvm_func_name qualname modname "
                                                                  "argtypes restype")
FunctionDescriptor.__doc__ = """numba's function descriptor, of a compiled device function: mangled_name and
llvm_func_name its symbol in the LLVM IR and the PTX kfront gives for it (inspect_llvm / inspect_asm)."""


class CompiledKernel:
    """A compiled kernel as `overloads` holds it (numba-cuda's _Kernel): kfront._kfront.Kernel's `signature`,
    `params`, `cooperative`, `cache_source`, the driver's attributes (`regs_per_thread`, `shared_mem_per_block`, ...)
    and `max_cooperative_grid_blocks`, with numba-cuda's inspect_llvm(), inspect_asm(cc) and inspect_lto_ptx(cc) of
    its own signature."""

    __slots__ = ("_kernel", "_dispatcher")

    def __init__(self, kernel, dispatcher):
        self._kernel = kernel
        self._dispatcher = dispatcher

    def __getattr__(self, name):
        return getattr(self._kernel, name)

    def _codegen(self, cc):
        codegen = self._dispatcher._codegen()
        if cc is not None:
            codegen["arch"] = int(cc[0]) * 10 + int(cc[1])
        return codegen

    def inspect_llvm(self):
        """The NVVM IR kfront hands libNVVM for this kernel (as its dispatcher's inspect_llvm(signature))."""
        return self._dispatcher._compile_text("llvm", self._kernel.signature, **self._codegen(None))

    def inspect_asm(self, cc=None):
        """The kernel's PTX for cc ((major, minor); the current device's when None)."""
        return self._dispatcher._compile_text("ptx", self._kernel.signature, **self._codegen(cc))

    def inspect_lto_ptx(self, cc=None):
        """numba-cuda's _Kernel.inspect_lto_ptx: as the dispatcher's, for this kernel's signature and cc."""
        return self._dispatcher._lto_ptx(self._kernel.signature, self._codegen(cc))

    def __repr__(self):
        return "<kfront compiled kernel %s %s>" % (self._dispatcher.__name__, self._kernel.signature)


class DeviceCompileResult:
    """numba-cuda's CompileResult of Dispatcher.compile_device, as far as kfront has one: signature (return type and
    argument types), argtypes, return_type, py_func and fndesc (FunctionDescriptor). kfront compiles a device
    function into the kernels that call it: this result holds its typing, no code."""

    def __init__(self, py_func, symbol, argtypes, return_type):
        self.py_func = py_func
        self.argtypes = tuple(argtypes)
        self.return_type = return_type
        self.signature = types.Signature(return_type, self.argtypes)
        self.fndesc = FunctionDescriptor(symbol, symbol, py_func.__qualname__, py_func.__module__, self.argtypes,
                                         return_type)

    def __repr__(self):
        return "<kfront compiled device function %s %s>" % (self.fndesc.qualname, self.signature)


class Overloads(dict):
    """A dispatcher's overloads: argument-type tuple -> compiled kernel, as numba-cuda keys them; `[sig]`, `in` and
    `get` also take a signature as text or a Signature, read as its argument types."""

    def _key(self, sig):
        try:
            return signature_key(sig)
        except (TypeError, ValueError):
            return sig

    def __getitem__(self, sig):
        return dict.__getitem__(self, self._key(sig))

    def __contains__(self, sig):
        return dict.__contains__(self, self._key(sig))

    def get(self, sig, default=None):
        return dict.get(self, self._key(sig), default)


def source_now(py_func):
    """py_func's source as it is now (kfront._capture.function_source, searching from the first frame outside
    kfront), or the error saying why there is none, which taken_source raises at the first compile: as
    numba-cuda's, a decoration never fails for want of source."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("kfront."):
        frame = frame.f_back
    try:
        return _capture.function_source(py_func, frame)
    except (errors.KfrontError, TypeError) as e:
        return e


def taken_source(d):
    """(filename, text, first line) of a dispatcher's function as source_now took it when the dispatcher was made,
    or the error saying why there was none."""
    if isinstance(d._source, BaseException):
        raise d._source.with_traceback(None)
    return d._source


def _hashable(config):
    try:
        hash(config)
        return True
    except TypeError:
        return False


def get_current_cc():
    try:
        return tuple(_runtime.runtime().device_info()["compute_capability"])
    except errors.KfrontError:
        return (9, 0)


def jit(func_or_sig=None, device=False, debug=None, opt=None, lineinfo=False, **options):
    """numba.cuda.jit: bare (@cuda.jit), with options (@cuda.jit(device=True, fastmath=True)), or with a
    signature or a list of them (@cuda.jit("void(float32[:])")). debug and opt default as numba-cuda's (see
    _debug_and_opt), which warns here of debug=True with opt=True."""
    debug, opt = _debug_and_opt(debug, opt, lineinfo)
    options.update(debug=debug, opt=opt, lineinfo=lineinfo)
    if callable(func_or_sig) and not isinstance(func_or_sig, (types.Type, types.Signature)):
        return Dispatcher(func_or_sig, None, device=device, **options)
    sigs = func_or_sig

    def decorate(fn):
        d = Dispatcher(fn, sigs, device=device, **options)
        if d._sigs:
            d._compile_declared()
        return d

    return decorate
