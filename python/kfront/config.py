"""kfront.config — numba.config's settings, and kfront's own, read from the environment at import.

This module is what `numba.config` (and numba.core.config) is under kfront's drop-in. It holds every
setting numba and numba-cuda define (CUDA_ENABLE_PYNVJITLINK, CUDA_LOW_OCCUPANCY_WARNINGS, ENABLE_CUDASIM,
DISABLE_JIT, OPT, ...), each read from its NUMBA_* environment variable as numba reads it, and accepts
assignments to them (`numba.config.CUDA_ENABLE_PYNVJITLINK = True`), which it records. Assigning a name
that is no setting raises AttributeError naming it. kfront acts on ENABLE_CUDASIM (the simulator) and on
CUDA_LOW_OCCUPANCY_WARNINGS, CUDA_WARN_ON_IMPLICIT_COPY and DISABLE_PERFORMANCE_WARNINGS (numba-cuda's performance
warnings, read at each launch), and CUDA_DEALLOCS_COUNT and CUDA_DEALLOCS_RATIO (the pending deallocations' limits,
applied when assigned); the other numba settings are recorded and have no effect.

The simulator: ENABLE_CUDASIM is what KFRONT_SIM says when it is set and not empty (on unless "0": 1 or 0),
else NUMBA_ENABLE_CUDASIM's value (default 0); so KFRONT_SIM=0 turns it off whatever NUMBA_ENABLE_CUDASIM says.

kfront's settings, from the variables kfront's tools read (tools/tool_env.c):
    KFRONT_LIBNVVM, KFRONT_LIBDEVICE, KFRONT_LIBNVRTC, KFRONT_LIBNVJITLINK
                                                   each CUDA library's file or folder (None: search)
    CUDA_HOME (else CUDA_PATH), CONDA_PREFIX, KFRONT_SITE_PACKAGES, KFRONT_SYSTEM_TOOLKIT
                                                   where else to search: a toolkit, conda's prefix, more folders
                                                   holding NVIDIA's pip wheels (the interpreter's site-packages are
                                                   searched anyway: cuda_search_paths()), the system toolkit's root
                                                   (None: /usr/local/cuda)
    KFRONT_NVVM_VERIFY                             libNVVM verifies its input first (bool)
    KFRONT_BACKEND                                 'auto' (libNVVM when it loads, else LLVM), 'nvvm' or 'llvm'
    KFRONT_LIBCUDA                                 the CUDA driver library (None: libcuda.so.1)
    KFRONT_GRID_STRIDE                             the runtime's grid-stride rewriting (False with
                                                   KFRONT_NO_GRID_STRIDE=1)
    KFRONT_THREAD_MAP                              the runtime's thread mapping for coalescing (thread-map; False
                                                   with KFRONT_NO_THREAD_MAP=1)
    KFRONT_BLOCK_PAIR                              block-pair's launch variants too (passes/block_pair.c; off
                                                   by default, on with KFRONT_BLOCK_PAIR=1)
    KFRONT_SIM_WORKERS                             the simulator's worker threads (default 1)
    KFRONT_SIM_DEVICES                             how many devices the simulator presents (default 1):
                                                   cuda.gpus, select_device, ... without a GPU
    KFRONT_SIM_MAX_STEPS, KFRONT_SIM_MAX_SECONDS   a simulator launch's limits: ops executed (0, the default: 1e10
                                                   for the launch, 1e9 for one thread) and wall-clock seconds (0,
                                                   the default: none); a launch past one stops with "simulation
                                                   step (time) limit exceeded"; applied when assigned
    KFRONT_CACHE_DIR, KFRONT_NO_CACHE              the disk cache (see cache_dir())

reload_config() reads the environment again when a NUMBA_* or KFRONT_* variable changed since the last
read (as numba.core.config.reload_config does), overwriting the settings.
"""
import difflib
import os
import struct
import sys
import types
import warnings


def _on(value):
    return bool(value) and value != "0"


def _flag(value):
    return int(value)


def _optional_str(value):
    return value or None


def _cc(value):  # "8.0" -> (8, 0)
    major, minor = value.split(".")
    return int(major), int(minor)


class _OptLevel(int):
    """numba's optimisation level (config.OPT, from NUMBA_OPT): an int, 3 for "max", which it remembers
    (is_opt_max); repr _OptLevel('max') or _OptLevel(2), as numba's."""

    def __new__(cls, value):
        level = super().__new__(cls, 3 if value == "max" else int(value))
        level._raw_value = value if value == "max" else int(level)
        return level

    @property
    def is_opt_max(self):
        return self._raw_value == "max"

    def __repr__(self):
        return "_OptLevel(%r)" % (self._raw_value,)


def _opt(value):
    if value not in ("0", "1", "2", "3", "max"):
        raise ValueError("supported values are 0, 1, 2, 3 and 'max'")
    return _OptLevel(value)


def _str_list(value):
    return [s.strip() for s in value.split(",") if s.strip()]


def _positive(value):
    n = int(value)
    if n < 1:
        raise ValueError("expected a number of 1 or more")
    return n


def _backend(value):
    if value not in ("auto", "nvvm", "llvm"):
        raise ValueError("expected auto, nvvm or llvm")
    return value


_CPUS = os.cpu_count() or 1

# name -> (environment variable, parser, default): numba's and numba-cuda's settings (numba/core/config.py,
# numba_cuda/numba/cuda/core/config.py, and those numba-cuda has had: CUDA_ENABLE_PYNVJITLINK, ...)
_NUMBA = {
    "DEVELOPER_MODE": (int, 0), "DISABLE_PERFORMANCE_WARNINGS": (int, 0), "FULL_TRACEBACKS": (int, 0),
    "SHOW_HELP": (int, 0), "COLOR_SCHEME": (str, "no_color"), "BOUNDSCHECK": (int, None),
    "ALWAYS_WARN_UNINIT_VAR": (int, 0), "DEBUG": (int, 0), "DEBUG_PRINT_AFTER": (str, "none"),
    "DEBUG_PRINT_BEFORE": (str, "none"), "DEBUG_PRINT_WRAP": (str, "none"), "HIGHLIGHT_DUMPS": (int, 0),
    "DEBUG_JIT": (int, 0), "DEBUG_FRONTEND": (int, 0), "DEBUG_NRT": (int, 0), "DEBUG_NRT_STACK_LIMIT": (int, 0),
    "NRT_STATS": (int, 0), "FUNCTION_CACHE_SIZE": (int, 128), "PARFOR_MAX_TUPLE_SIZE": (int, 100),
    "DEBUG_CACHE": (int, 0), "CACHE_DIR": (str, ""), "CACHE_LOCATOR_CLASSES": (_str_list, None),
    "TRACE": (int, 0), "CHROME_TRACE": (str, ""), "DEBUG_TYPEINFER": (int, 0),
    "DISABLE_TYPEINFER_FAIL_CACHE": (int, 0), "CPU_NAME": (_optional_str, None),
    "CPU_FEATURES": (_optional_str, None), "OPT": (_opt, _OptLevel(3)), "DUMP_BYTECODE": (int, 0), "DUMP_CFG": (int, 0),
    "DUMP_IR": (int, 0), "DUMP_SSA": (int, 0), "DEBUG_ARRAY_OPT": (int, 0), "DEBUG_ARRAY_OPT_RUNTIME": (int, 0),
    "DEBUG_ARRAY_OPT_STATS": (int, 0), "PARALLEL_DIAGNOSTICS": (int, 0), "DEBUG_INLINE_CLOSURE": (int, 0),
    "DUMP_LLVM": (int, 0), "DUMP_FUNC_OPT": (int, 0), "DUMP_OPTIMIZED": (int, 0), "LOOP_VECTORIZE": (int, 1),
    "SLP_VECTORIZE": (int, 0), "DUMP_ASSEMBLY": (int, 0), "ANNOTATE": (int, 0), "DIFF_IR": (int, 0),
    "HTML": (_optional_str, None), "ENABLE_AVX": (int, 1), "DISABLE_INTEL_SVML": (int, 0), "DISABLE_JIT": (int, 0),
    "THREADING_LAYER_PRIORITY": (_str_list, ["tbb", "omp", "workqueue"]), "THREADING_LAYER": (str, "default"),
    "CUDA_WARN_ON_IMPLICIT_COPY": (int, 1), "FORCE_CUDA_CC": (_cc, None), "CUDA_DEFAULT_PTX_CC": (_cc, (5, 2)),
    "DISABLE_CUDA": (int, 0), "CUDA_LOG_LEVEL": (str, ""), "CUDA_LOG_API_ARGS": (int, 0),
    "CUDA_DEALLOCS_COUNT": (int, 10), "CUDA_DEALLOCS_RATIO": (float, 0.2), "CUDA_ARRAY_INTERFACE_SYNC": (int, 1),
    "CUDA_DRIVER": (str, ""), "CUDA_LOG_SIZE": (int, 1024), "CUDA_VERBOSE_JIT_LOG": (int, 1),
    "CUDA_PER_THREAD_DEFAULT_STREAM": (int, 0), "CUDA_INCLUDE_PATH": (str, ""),
    "CUDA_LOW_OCCUPANCY_WARNINGS": (int, 1), "CUDA_USE_NVIDIA_BINDING": (int, 0),
    "CUDA_ENABLE_MINOR_VERSION_COMPATIBILITY": (int, 0), "CUDA_ENABLE_PYNVJITLINK": (int, 0),
    "CUDA_ENABLE_NRT": (int, 0), "CUDA_NRT_STATS": (int, 0), "CUDA_NVRTC_EXTRA_SEARCH_PATHS": (str, ""),
    "CUDA_MEMORY_MANAGER": (str, "default"), "NUMBA_NUM_THREADS": (int, _CPUS), "ENABLE_SYS_MONITORING": (int, 0),
    "ENABLE_PROFILING": (int, 0), "DEBUGINFO_DEFAULT": (int, 0), "CUDA_DEBUGINFO_DEFAULT": (int, 0),
    "EXTEND_VARIABLE_LIFETIMES": (int, 0), "GDB_BINARY": (str, "gdb"), "LLVM_REFPRUNE_PASS": (int, 1),
    "LLVM_REFPRUNE_FLAGS": (str, ""), "USE_LLVMLITE_MEMORY_MANAGER": (int, None), "LLVM_PASS_TIMINGS": (int, 0),
    "JIT_COVERAGE": (int, 0),
}
# settings whose variable is not NUMBA_<name>
_ENV = {"ANNOTATE": "NUMBA_DUMP_ANNOTATION", "HTML": "NUMBA_DUMP_HTML", "NUMBA_NUM_THREADS": "NUMBA_NUM_THREADS",
        "CUDA_DEBUGINFO_DEFAULT": "NUMBA_CUDA_DEBUGINFO", "DEBUGINFO_DEFAULT": "NUMBA_DEBUGINFO"}
# kfront's own: name -> (variable, parser, default)
_KFRONT = {
    "CUDA_HOME": ("CUDA_HOME", _optional_str, None), "CUDA_PATH": ("CUDA_PATH", _optional_str, None),
    "CONDA_PREFIX": ("CONDA_PREFIX", _optional_str, None),
    "KFRONT_SITE_PACKAGES": ("KFRONT_SITE_PACKAGES", _optional_str, None),
    "KFRONT_SYSTEM_TOOLKIT": ("KFRONT_SYSTEM_TOOLKIT", _optional_str, None),
    "KFRONT_LIBNVVM": ("KFRONT_LIBNVVM", _optional_str, None),
    "KFRONT_LIBDEVICE": ("KFRONT_LIBDEVICE", _optional_str, None),
    "KFRONT_LIBNVRTC": ("KFRONT_LIBNVRTC", _optional_str, None),
    "KFRONT_LIBNVJITLINK": ("KFRONT_LIBNVJITLINK", _optional_str, None),
    "KFRONT_NVVM_VERIFY": ("KFRONT_NVVM_VERIFY", _on, False), "KFRONT_BACKEND": ("KFRONT_BACKEND", _backend, "auto"),
    "KFRONT_LIBCUDA": ("KFRONT_LIBCUDA", _optional_str, None),
    "KFRONT_GRID_STRIDE": ("KFRONT_NO_GRID_STRIDE", lambda v: not _on(v), True),
    "KFRONT_THREAD_MAP": ("KFRONT_NO_THREAD_MAP", lambda v: not _on(v), True),
    "KFRONT_BLOCK_PAIR": ("KFRONT_BLOCK_PAIR", _on, False),
    "KFRONT_SIM_WORKERS": ("KFRONT_SIM_WORKERS", int, 1),
    "KFRONT_SIM_MAX_STEPS": ("KFRONT_SIM_MAX_STEPS", int, 0),
    "KFRONT_SIM_MAX_SECONDS": ("KFRONT_SIM_MAX_SECONDS", float, 0.0),
    "KFRONT_SIM_DEVICES": ("KFRONT_SIM_DEVICES", _positive, 1),
    "KFRONT_CACHE_DIR": ("KFRONT_CACHE_DIR", _optional_str, None), "KFRONT_NO_CACHE": ("KFRONT_NO_CACHE", _on, False),
}

# numba.config's constants
MACHINE_BITS = struct.calcsize("P") * 8
IS_32BITS = MACHINE_BITS == 32
IS_WIN32 = sys.platform.startswith("win32")
IS_OSX = sys.platform.startswith("darwin")
PYVERSION = sys.version_info[:2]
NUMBA_DEFAULT_NUM_THREADS = _CPUS
RUNNING_UNDER_PROFILER = False

SETTINGS = frozenset(_NUMBA) | frozenset(_KFRONT) | {
    "ENABLE_CUDASIM", "MACHINE_BITS", "IS_32BITS", "IS_WIN32", "IS_OSX", "PYVERSION", "NUMBA_DEFAULT_NUM_THREADS",
    "RUNNING_UNDER_PROFILER"}

_read_environ = None


def _read(environ, var, parse, default):
    value = environ.get(var)
    if value is None:
        return default
    try:
        return parse(value)
    except Exception as e:
        warnings.warn("Environment variable '%s' is defined but its value %r could not be parsed (%s); using %r" %
                      (var, value, e, default), RuntimeWarning, stacklevel=3)
        return default


def _process(environ):
    g = globals()
    for name, (parse, default) in _NUMBA.items():
        g[name] = _read(environ, _ENV.get(name, "NUMBA_" + name), parse, default)
    for name, (var, parse, default) in _KFRONT.items():
        g[name] = _read(environ, var, parse, default)
    if environ.get("KFRONT_SIM"):
        g["ENABLE_CUDASIM"] = 1 if _on(environ["KFRONT_SIM"]) else 0
    else:
        g["ENABLE_CUDASIM"] = _read(environ, "NUMBA_ENABLE_CUDASIM", int, 0)
    g["RUNNING_UNDER_PROFILER"] = "VS_PROFILER" in environ


def _relevant(environ):
    return {k: v for k, v in environ.items()
            if k.startswith(("NUMBA_", "KFRONT_")) or k in ("CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX", "VS_PROFILER")}


def reload_config():
    """Reads the environment again if a NUMBA_*, KFRONT_*, CUDA_HOME, CUDA_PATH or CONDA_PREFIX variable changed since the last read,
    overwriting every setting with what the environment says."""
    global _read_environ
    env = _relevant(os.environ)
    if env != _read_environ:
        _process(os.environ)
        _read_environ = env
        for name in SETTINGS:
            _notify(name)


def cache_dir():
    """The disk cache's directory: None when KFRONT_NO_CACHE is on (no disk cache), else KFRONT_CACHE_DIR,
    else $XDG_CACHE_HOME/kfront, else ~/.cache/kfront (None when HOME is unknown too)."""
    if KFRONT_NO_CACHE:
        return None
    if KFRONT_CACHE_DIR:
        return KFRONT_CACHE_DIR
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return os.path.join(xdg, "kfront")
    home = os.environ.get("HOME")
    return os.path.join(home, ".cache", "kfront") if home else None


def cuda_search_paths():
    """Where the C library looks for the CUDA libraries (kf_configure_cuda_paths), as keywords of
    _kfront.configure_cuda_paths: the settings above, and as site-packages folders for NVIDIA's pip wheels
    KFRONT_SITE_PACKAGES's, then the folder kfront is installed in, the interpreter's site-packages and the user's
    (where `pip install kfront-cuda[cu13]` puts nvidia/cu13/...)."""
    import site
    folders = (KFRONT_SITE_PACKAGES or "").split(os.pathsep)
    folders.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        folders += site.getsitepackages()
    except AttributeError:  # a virtualenv's old site module
        pass
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    unique = []
    for f in folders:
        if f and f not in unique:
            unique.append(f)
    return dict(cuda_home=CUDA_HOME or CUDA_PATH, conda_prefix=CONDA_PREFIX, site_packages=os.pathsep.join(unique),
                system_toolkit=KFRONT_SYSTEM_TOOLKIT, libnvvm=KFRONT_LIBNVVM, libdevice=KFRONT_LIBDEVICE,
                libnvrtc=KFRONT_LIBNVRTC, libnvjitlink=KFRONT_LIBNVJITLINK, verify=KFRONT_NVVM_VERIFY)


_listeners = globals().get("_listeners", [])  # kept when the module is reloaded (importlib.reload)


def add_listener(fn):
    """fn(name) is called after each assignment to a setting and for every setting reload_config() reads anew
    (kfront.cuda applies CUDA_DEALLOCS_COUNT and CUDA_DEALLOCS_RATIO to its runtimes so)."""
    _listeners.append(fn)


def _notify(name):
    for fn in _listeners:
        fn(name)


class _ConfigModule(types.ModuleType):
    """Assignments to names that are not settings (nor already attributes of the module) are errors; listeners
    hear of the settings assigned."""

    def __setattr__(self, name, value):
        if name in SETTINGS or name.startswith("_") or name in self.__dict__:
            super().__setattr__(name, value)
            if name in SETTINGS:
                _notify(name)
            return
        close = difflib.get_close_matches(name, sorted(SETTINGS), n=1)
        hint = " (did you mean %s?)" % close[0] if close else ""
        raise AttributeError("kfront: numba.config has no setting %r%s; kfront.config lists numba's and kfront's "
                             "settings in SETTINGS" % (name, hint))


reload_config()
sys.modules[__name__].__class__ = _ConfigModule
