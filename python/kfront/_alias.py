"""kfront._alias — the drop-in: numba's CUDA modules (or the whole of `numba`) resolve to kfront for the rest of
the process.

Two scopes (install_numba_alias's `scope`; "auto" picks "cuda" where numba is installed, else "numba"):
  - "cuda": beside a real numba. kfront replaces `numba.cuda`, the modules numba-cuda provides beneath it and
    numba-cuda's `numba_cuda` package; numba's CPU side (njit, jit, prange, vectorize(target="cpu"), numba.typed,
    numba.core, numba.types, numba.config) stays numba's. The real numba is imported and its `cuda` attribute is
    set to the alias, so `import numba; numba.cuda.jit` is kfront's too. kfront takes numba's own objects where a
    program hands them over (kfront._numba_interop: numba's types in signatures and kernels, numba.jit functions
    called from kernels), and numba's vectorize(target="cuda") finds kfront's builders in numba.cuda.vectorizers.
  - "numba": no real numba. kfront provides `numba` itself with the names numba-cuda programs use.

install_numba_alias() puts a thin module object under each replaced name of the table below into sys.modules,
replacing (and keeping, for uninstall_numba_alias) any such module already imported, and puts a finder first on
sys.meta_path. Entries of sys.modules are found before any finder, so the aliases win over numba-cuda's import
hook that redirects `numba.cuda`; the finder answers the replaced imports the table does not cover
(`import numba.cuda.simulator.kernel`; in scope "numba" also `import numba.typed`, `from numba import cfunc`) with an
ImportError saying "kfront: numba.typed is not supported (...)", and a later importlib.reload() of an alias with
the same alias. A module that bound numba-cuda's modules before the install keeps them: a KfrontWarning names
each such global.

The alias modules (AliasModule, a types.ModuleType) hold nothing themselves: an attribute is looked up,
at its first access, in the kfront module it forwards to (imported then, by name: importing `numba` or
`numba.cuda` imports no kfront module), and kept in the alias for the next access (the config modules excepted:
they forward every read and every assignment to kfront.config). What each alias forwards (docs/numba-cuda-layout.md
has the table with what is deliberately left out):

  both scopes
    numba.cuda                     every public name of kfront.cuda (with numba.cuda.types' type names,
                                   vectorize and guvectorize of target "cuda"), bool, HAS_NUMBA (scope "cuda");
                                   the submodules types, config, core, np, cudadrv, dispatcher, random, cg, fp16,
                                   bf16, libdevice, libdevicefuncs, misc, vectorizers, args, typing,
                                   launchconfig, compiler, extending, driver, devices, devicearray (cudadrv's),
                                   cudaimpl, cgutils, api, _internal, vector_types, simulator, utils, kernels
    numba.cuda.types               every public name of kfront.types; __all__ as numba-cuda's (the type names)
    numba.cuda.core.config         kfront.config, reads and assignments (also as numba.cuda.config); _OptLevel
    numba.cuda.core.errors         kfront.errors.NUMBA_ERRORS: TypingError, NumbaError, NumbaPerformanceWarning...
                                   (scope "cuda": these classes are also subclasses of numba.core.errors' classes of
                                   those names, kfront.errors.derive_from_numba, until uninstall_numba_alias)
    numba.cuda.np.numpy_support    from_dtype, as_dtype (kfront.types); numpy_version, carray, farray
                                   (kfront.numpy_support)
    numba.cuda.misc.special        literal_unroll (kfront.cuda; also numba.literal_unroll)
    numba.cuda.random              every public name of kfront.cuda.random (xoroshiro128+ generators)
    numba.cuda.args                In, Out, InOut, ArgHint, wrap_arg (kfront.cuda.args: kernel argument hints)
    numba.cuda.typing              signature, Signature (kfront.types); numba.cuda.typing.typeof: typeof
    numba.cuda.extending           overload, register_jitable, ... (kfront.extending: the high-level extension API;
                                   the low-level one's names say that kfront has none where they are used)
    numba.cuda.cudaimpl            registry, lower, lower_attr, ... (kfront.cuda.cudaimpl: numba-cuda's lowering
                                   registry, recorded; a kernel using what it registered is told kfront has none)
    numba.cuda.cgutils             numba-cuda's LLVM IR helpers' names (kfront.cuda.cgutils: UnsupportedErrors)
    numba.cuda.api                 the host API functions numba-cuda's api module defines (kfront.cuda's)
    numba.cuda.kernels.transpose   transpose (kfront.cuda.kernels: a tiled shared-memory transpose kernel)
    numba.cuda.utils               PYVERSION, MACHINE_BITS (kfront.config's)
    numba.cuda.vector_types        vector_types: name -> VectorType (kfront.cuda.vector_types; also as
                                   numba.cuda.simulator.vector_types, the one name of numba.cuda.simulator)
    numba.cuda._internal.cuda_bf16 the cuda_bf16.h bindings' kernel-side names (nv_bfloat16, __hadd, htrunc, ...)
    numba.cuda.launchconfig        current_launch_config, ensure_current_launch_config (kfront.cuda.launchconfig)
    numba.cuda.fp16 / bf16 / libdevice / cg   the kernel-side names of kfront.cuda's namespaces (hadd, this_grid...)
    numba.cuda.libdevicefuncs      functions, create_signature, arg (kfront.cuda.libdevicefuncs: libdevice's signatures)
    numba.cuda.compiler            compile, compile_all, compile_for_current_device, compile_ptx,
                                   compile_ptx_for_current_device (kfront.cuda.compiler; numba.cuda's too)
    numba.cuda.cudadrv.driver      every public name of kfront.cuda.driver (also as numba.cuda.driver): driver,
                                   Device, Context, Event, Stream, the memory pointers and the EMM plugin classes
                                   (kfront.cuda.memory), host_to_device and the other copies, device_memset,
                                   host_memory_extents, ...; CudaAPIError, CudaDriverError; _have_nvjitlink
                                   (False: kfront links no kernel with nvJitLink)
    numba.cuda.cudadrv.error       CudaDriverError, CudaSupportError (kfront.errors)
    numba.cuda.cudadrv.devicearray DeviceNDArray, DeviceRecord, MappedNDArray, ManagedNDArray; auto_device,
                                   from_record_like, array_core, ... (kfront.cuda.devicearray); IpcArrayHandle
                                   (also as numba.cuda.devicearray)
    numba.cuda.cudadrv.devices     gpus, get_context (current_context), require_context, _DeviceList,
                                   _DeviceContextManager (also as numba.cuda.devices)
    numba.cuda.dispatcher          CUDADispatcher (kfront.cuda.Dispatcher)
    numba.cuda.vectorizers         CUDAVectorize, CUDAGUFuncVectorize (kfront.cuda.vectorizers)
    numba_cuda                     __version__: the numba-cuda release kfront follows (NUMBA_CUDA_VERSION)
  scope "numba" only
    numba                          vectorize, guvectorize, jit, njit, __version__ (kfront); typeof, from_dtype and
                                   the type names (kfront.types); numba.core.errors' names (kfront.errors);
                                   the submodules cuda, core, np, config, types, errors
    numba.core.config              kfront.config, as numba.cuda.core.config (also as numba.config)
    numba.core.types               every public name of kfront.types (also as numba.types)
    numba.core.errors              as numba.cuda.core.errors
    numba.np.numpy_support         as numba.cuda.np.numpy_support

A name an alias does not have raises AttributeError("kfront: numba.X is not supported (why)"). The
`targets` argument of install_numba_alias maps kfront module names to others (tests use a fake kfront.cuda).
"""
import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

from kfront import types as kftypes

_MISSING = object()


class _Names:
    """Explicit names: numba name -> (kfront module, attribute)."""

    def __init__(self, names):
        self.table = names

    def lookup(self, alias, name):
        where = self.table.get(name)
        if where is None:
            return _MISSING
        return getattr(alias._kfront_target(where[0], name), where[1], _MISSING)

    def names(self, alias):
        return [n for n in self.table if not n.startswith("_")]


class _Star:
    """Every public attribute of a kfront module (modules among them only if they are its own submodules)."""

    def __init__(self, module):
        self.module = module

    def _ok(self, mod, value):
        return not isinstance(value, types.ModuleType) or value.__name__.startswith(mod.__name__ + ".")

    def lookup(self, alias, name):
        if name.startswith("_"):
            return _MISSING
        mod = alias._kfront_target(self.module, name)
        value = getattr(mod, name, _MISSING)
        return value if value is _MISSING or self._ok(mod, value) else _MISSING

    def names(self, alias):
        mod = alias._kfront_target(self.module, "__all__")
        return [n for n in dir(mod) if not n.startswith("_") and self._ok(mod, getattr(mod, n, None))]


class _TypeNames:
    """The type objects of kfront.types (numba's top level has every type name)."""

    def lookup(self, alias, name):
        if name.startswith("_"):
            return _MISSING
        mod = alias._kfront_target("kfront.types", name)
        value = getattr(mod, name, _MISSING)
        return value if isinstance(value, mod.Type) else _MISSING

    def names(self, alias):
        mod = alias._kfront_target("kfront.types", "__all__")
        return [n for n in dir(mod) if not n.startswith("_") and isinstance(getattr(mod, n), mod.Type)]


class _ErrorNames:
    """numba's error and warning classes, as kfront.errors.NUMBA_ERRORS maps them (`only`: a subset)."""

    def __init__(self, only=None):
        self.only = only

    def lookup(self, alias, name):
        if self.only is not None and name not in self.only:
            return _MISSING
        return alias._kfront_target("kfront.errors", name).NUMBA_ERRORS.get(name, _MISSING)

    def names(self, alias):
        table = alias._kfront_target("kfront.errors", "__all__").NUMBA_ERRORS
        return [n for n in table if self.only is None or n in self.only]


class _KernelNamespace:
    """The kernel-side names of a namespace of kfront.cuda (fp16, bf16, libdevice: KernelOnly objects), as the
    numba-cuda module of that name has them (`from numba.cuda.bf16 import hadd`)."""

    def __init__(self, name):
        self.name = name

    def lookup(self, alias, name):
        if name.startswith("__") and name.endswith("__"):
            return _MISSING
        namespace = alias._kfront_target("kfront.cuda", name)
        for part in self.name.split("."):  # "_internal.cuda_bf16": kfront.cuda._internal.cuda_bf16
            namespace = getattr(namespace, part)
        return getattr(namespace, name)

    def names(self, alias):
        return []


class _StateValues:
    """Names whose values depend on the installed alias (numba.cuda.HAS_NUMBA: a real numba is beside it)."""

    def lookup(self, alias, name):
        if name == "HAS_NUMBA":
            return alias.__dict__["_kfront_state"].scope == "cuda"
        return _MISSING

    def names(self, alias):
        return ["HAS_NUMBA"]


class _RealNumbaNames:
    """Names that are numba's own objects where a real numba is beside the alias (scope "cuda"), as numba-cuda
    takes them from numba when it is installed (numba.cuda.types.NPDatetime is numba.np.types.NPDatetime);
    without numba, the next provider's (kfront's)."""

    def __init__(self, modules, names):
        self.modules = modules  # where numba has them, newest numba first
        self.table = names

    def lookup(self, alias, name):
        if name not in self.table or alias.__dict__["_kfront_state"].scope != "cuda":
            return _MISSING
        for module in self.modules:
            try:
                return getattr(importlib.import_module(module), name)
            except (ImportError, AttributeError):
                continue
        return _MISSING

    def names(self, alias):
        return []


class _Constants:
    """Fixed values: name -> value."""

    def __init__(self, table):
        self.table = table

    def lookup(self, alias, name):
        return self.table.get(name, _MISSING)

    def names(self, alias):
        return [n for n in self.table if not n.startswith("_")]


class _Spec:
    def __init__(self, providers=(), children=None, forward_set=None, exports=None, kernel_path=None):
        self.providers = providers
        self.children = children or {}
        self.forward_set = forward_set        # a kfront module that assignments go to (and nothing is cached)
        self.exports = exports                # __all__, where numba-cuda's module has one
        self.kernel_path = kernel_path        # the module's path in kernels, where it is not its name

    def explicit(self, name):
        """Whether a provider names `name` itself (a private name is looked up only then)."""
        return any(isinstance(p, _KernelNamespace) or name in getattr(p, "table", ()) for p in self.providers)


# the numba-cuda release whose API kfront follows: numba_cuda.__version__ under the alias
NUMBA_CUDA_VERSION = "0.30.4"
_FROM_TO_DTYPE = {"from_dtype": ("kfront.types", "from_dtype"), "as_dtype": ("kfront.types", "as_dtype")}
_NUMPY_SUPPORT = {name: ("kfront.numpy_support", name) for name in ("numpy_version", "carray", "farray")}
_CONFIG = dict(providers=(_Star("kfront.config"), _Names({"_OptLevel": ("kfront.config", "_OptLevel")})),
               forward_set="kfront.config")  # (numba's config.OPT is an _OptLevel; tests make them)

# numba.cuda._internal.cuda_fp8's __all__ (numba-cuda's, but its numba type objects _type_fp8_e5m2 ...)
_FP8_EXPORTS = ("fp8_e5m2", "fp8x2_e5m2", "fp8x4_e5m2", "fp8_e4m3", "fp8x2_e4m3", "fp8x4_e4m3", "fp8_e8m0",
                "fp8x2_e8m0", "fp8x4_e8m0", "cvt_double_to_fp8", "cvt_double2_to_fp8x2", "cvt_float_to_fp8",
                "cvt_float2_to_fp8x2", "cvt_bfloat16raw_to_fp8", "cvt_bfloat16raw_to_e8m0", "cvt_float_to_e8m0",
                "cvt_float2_to_e8m0x2", "cvt_double_to_e8m0", "cvt_double2_to_e8m0x2", "cvt_e8m0_to_bf16raw",
                "saturation_t", "fp8_interpretation_t")

# numba-cuda's numba.cuda.api: the host API functions numba.cuda re-exports (those kfront.cuda has)
_API_NAMES = (
    "require_context", "current_context", "gpus", "from_cuda_array_interface", "as_cuda_array", "is_cuda_array",
    "is_float16_supported", "is_bfloat16_supported", "is_fp8_supported", "to_device", "device_array",
    "managed_array", "pinned_array", "mapped_array", "open_ipc_array", "synchronize", "device_array_like",
    "mapped_array_like", "pinned_array_like", "stream", "default_stream", "legacy_default_stream",
    "per_thread_default_stream", "external_stream", "pinned", "mapped", "event", "event_elapsed_time",
    "select_device", "get_current_device", "list_devices", "close", "detect", "defer_cleanup", "profiling",
    "profile_start", "profile_stop")

# numba.cuda and what numba-cuda provides beneath it (both scopes of the alias)
_CUDA_MODULES = {
    "numba.cuda": _Spec(
        (_Star("kfront.cuda"), _Names({"bool": ("kfront.types", "bool")}), _StateValues()),
        {"cudadrv": "numba.cuda.cudadrv", "random": "numba.cuda.random", "fp16": "numba.cuda.fp16",
         "bf16": "numba.cuda.bf16", "libdevice": "numba.cuda.libdevice", "misc": "numba.cuda.misc",
         "cg": "numba.cuda.cg", "types": "numba.cuda.types", "config": "numba.cuda.core.config",
         "core": "numba.cuda.core", "np": "numba.cuda.np", "dispatcher": "numba.cuda.dispatcher",
         "vectorizers": "numba.cuda.vectorizers", "args": "numba.cuda.args", "typing": "numba.cuda.typing",
         "launchconfig": "numba.cuda.launchconfig", "libdevicefuncs": "numba.cuda.libdevicefuncs",
         "compiler": "numba.cuda.compiler", "extending": "numba.cuda.extending",
         "driver": "numba.cuda.cudadrv.driver", "devices": "numba.cuda.cudadrv.devices",
         "devicearray": "numba.cuda.cudadrv.devicearray", "cudaimpl": "numba.cuda.cudaimpl",
         "cgutils": "numba.cuda.cgutils", "api": "numba.cuda.api", "_internal": "numba.cuda._internal",
         "vector_types": "numba.cuda.vector_types", "simulator": "numba.cuda.simulator",
         "utils": "numba.cuda.utils", "kernels": "numba.cuda.kernels"}),
    "numba.cuda.types": _Spec((_RealNumbaNames(("numba.np.types", "numba.core.types"),
                                               ("NPDatetime", "NPTimedelta")),
                               _Star("kfront.types")), exports=kftypes.CUDA_TYPE_NAMES, kernel_path="numba.types"),
    "numba.cuda.core": _Spec((), {"config": "numba.cuda.core.config", "errors": "numba.cuda.core.errors"}),
    "numba.cuda.core.config": _Spec(**_CONFIG),
    "numba.cuda.core.errors": _Spec((_ErrorNames(),)),
    "numba.cuda.np": _Spec((), {"numpy_support": "numba.cuda.np.numpy_support"}),
    "numba.cuda.np.numpy_support": _Spec((_Names(_FROM_TO_DTYPE), _Names(_NUMPY_SUPPORT))),
    "numba.cuda.misc": _Spec((), {"special": "numba.cuda.misc.special"}),
    "numba.cuda.misc.special": _Spec((_Names({"literal_unroll": ("kfront.cuda", "literal_unroll")}),)),
    "numba.cuda.random": _Spec((_Star("kfront.cuda.random"),)),
    "numba.cuda.args": _Spec((_Star("kfront.cuda.args"),)),
    "numba.cuda.launchconfig": _Spec((_Star("kfront.cuda.launchconfig"),)),
    "numba.cuda.typing": _Spec((_Names({"signature": ("kfront.types", "signature"),
                                        "Signature": ("kfront.types", "Signature")}),),
                               {"typeof": "numba.cuda.typing.typeof"}),
    "numba.cuda.typing.typeof": _Spec((_Names({"typeof": ("kfront.types", "typeof")}),)),
    "numba.cuda.extending": _Spec((_Star("kfront.extending"),
                                   _Names({"_Intrinsic": ("kfront.extending", "_Intrinsic")}))),
    "numba.cuda._internal": _Spec((), {"cuda_bf16": "numba.cuda._internal.cuda_bf16",
                                       "cuda_fp8": "numba.cuda._internal.cuda_fp8"}),
    "numba.cuda._internal.cuda_fp8": _Spec((_Star("kfront.cuda.fp8"),
                                            _Names({"cudaRoundMode": ("kfront.cuda.fp8", "cudaRoundMode")})),
                                           exports=_FP8_EXPORTS),
    "numba.cuda._internal.cuda_bf16": _Spec((_KernelNamespace("_internal.cuda_bf16"),)),
    "numba.cuda.api": _Spec((_Names({name: ("kfront.cuda", name) for name in _API_NAMES}),)),
    "numba.cuda.kernels": _Spec((), {"transpose": "numba.cuda.kernels.transpose"}),
    "numba.cuda.kernels.transpose": _Spec((_Names({"transpose": ("kfront.cuda.kernels", "transpose")}),)),
    "numba.cuda.utils": _Spec((_Names({"PYVERSION": ("kfront.config", "PYVERSION"),
                                       "MACHINE_BITS": ("kfront.config", "MACHINE_BITS")}),)),
    "numba.cuda.vector_types": _Spec((_Star("kfront.cuda.vector_types"),)),
    "numba.cuda.simulator": _Spec((), {"vector_types": "numba.cuda.simulator.vector_types"}),
    "numba.cuda.simulator.vector_types": _Spec((_Star("kfront.cuda.vector_types"),)),
    "numba.cuda.cudaimpl": _Spec((_Star("kfront.cuda.cudaimpl"),)),
    "numba.cuda.cgutils": _Spec((_Star("kfront.cuda.cgutils"),)),
    "numba.cuda.fp16": _Spec((_KernelNamespace("fp16"),)),
    "numba.cuda.bf16": _Spec((_KernelNamespace("bf16"),)),
    "numba.cuda.libdevice": _Spec((_KernelNamespace("libdevice"),)),
    "numba.cuda.libdevicefuncs": _Spec((_Star("kfront.cuda.libdevicefuncs"),)),
    "numba.cuda.compiler": _Spec((_Names({name: ("kfront.cuda.compiler", name) for name in (
        "compile", "compile_all", "compile_for_current_device", "compile_ptx", "compile_ptx_for_current_device")}),)),
    "numba.cuda.cg": _Spec((_KernelNamespace("cg"),)),
    "numba.cuda.dispatcher": _Spec((_Names({"CUDADispatcher": ("kfront.cuda", "Dispatcher")}),)),
    "numba.cuda.vectorizers": _Spec((_Names({"CUDAVectorize": ("kfront.cuda.vectorizers", "CUDAVectorize"),
                                             "CUDAGUFuncVectorize": ("kfront.cuda.vectorizers",
                                                                     "CUDAGUFuncVectorize")}),)),
    "numba.cuda.cudadrv": _Spec((), {"driver": "numba.cuda.cudadrv.driver",
                                     "devicearray": "numba.cuda.cudadrv.devicearray",
                                     "devices": "numba.cuda.cudadrv.devices", "error": "numba.cuda.cudadrv.error",
                                     "linkable_code": "numba.cuda.cudadrv.linkable_code",
                                     "nvrtc": "numba.cuda.cudadrv.nvrtc"}),
    "numba.cuda.cudadrv.nvrtc": _Spec((_Star("kfront.cuda.nvrtc"),
                                       _Names({"_get_nvrtc_version": ("kfront.cuda.nvrtc", "_get_nvrtc_version")}))),
    "numba.cuda.cudadrv.linkable_code": _Spec((_Names({name: ("kfront.cuda.linking", name) for name in (
        "LinkableCode", "PTXSource", "CUSource", "Fatbin", "Cubin", "Archive", "Object", "LTOIR")}),)),
    "numba.cuda.cudadrv.driver": _Spec((_Star("kfront.cuda.driver"),
                                        _Names({"_have_nvjitlink": ("kfront.cuda._runtime", "have_nvjitlink")}))),
    "numba.cuda.cudadrv.error": _Spec((_Names({name: ("kfront.errors", name)
                                               for name in ("CudaDriverError", "CudaSupportError", "NvrtcError",
                                                            "NvrtcCompilationError", "NvrtcSupportError",
                                                            "CCSupportError")}),)),
    "numba.cuda.cudadrv.devicearray": _Spec((_Names({name: ("kfront.cuda", name) for name in (
                                                 "DeviceNDArray", "DeviceRecord", "MappedNDArray", "ManagedNDArray")}),
                                             _Names({name: ("kfront.cuda.devicearray", name) for name in (
                                                 "auto_device", "from_record_like", "from_array_like", "array_core",
                                                 "is_contiguous", "sentry_contiguous", "errmsg_contiguous_buffer",
                                                 "check_array_compatibility", "is_cuda_ndarray",
                                                 "verify_cuda_ndarray_interface", "require_cuda_ndarray")}),
                                             _Names({"IpcArrayHandle": ("kfront.cuda.ipc", "IpcArrayHandle")}))),
    "numba.cuda.cudadrv.devices": _Spec((_Names({"gpus": ("kfront.cuda", "gpus"),
                                                 "get_context": ("kfront.cuda", "current_context"),
                                                 "require_context": ("kfront.cuda", "require_context"),
                                                 "_DeviceList": ("kfront.cuda._runtime", "_Gpus"),
                                                 "_DeviceContextManager": ("kfront.cuda._runtime", "Device")}),)),
    "numba_cuda": _Spec((_Constants({"__version__": NUMBA_CUDA_VERSION}),)),
}
# numba itself, where kfront replaces the whole of it (no real numba beside)
_NUMBA_MODULES = {
    "numba": _Spec(
        (_Names({"vectorize": ("kfront", "vectorize"), "guvectorize": ("kfront", "guvectorize"),
                 "jit": ("kfront", "jit"), "njit": ("kfront", "njit"),
                 "__version__": ("kfront", "__version__"), "typeof": ("kfront.types", "typeof"),
                 "from_dtype": ("kfront.types", "from_dtype"),
                 "literal_unroll": ("kfront.cuda", "literal_unroll")}),
         _TypeNames(), _ErrorNames()),
        {"cuda": "numba.cuda", "core": "numba.core", "np": "numba.np", "config": "numba.core.config",
         "types": "numba.core.types", "errors": "numba.core.errors"}),
    "numba.core": _Spec((), {"config": "numba.core.config", "types": "numba.core.types",
                             "errors": "numba.core.errors"}),
    "numba.core.config": _Spec(**_CONFIG),
    "numba.core.types": _Spec((_Star("kfront.types"),)),
    "numba.core.errors": _Spec((_ErrorNames(),)),
    "numba.np": _Spec((), {"numpy_support": "numba.np.numpy_support"}),
    "numba.np.numpy_support": _Spec((_Names(_FROM_TO_DTYPE), _Names(_NUMPY_SUPPORT))),
}
_MODULES = dict(_CUDA_MODULES, **_NUMBA_MODULES)
# further sys.modules names of the same alias objects, as numba has them (scope "numba")
_SHARED = {"numba.config": "numba.core.config", "numba.types": "numba.core.types"}


def _in_cuda_scope(fullname):
    """Whether the module `fullname` is one the cuda-only alias replaces: numba.cuda, what is beneath it, numba_cuda."""
    return any(fullname == root or fullname.startswith(root + ".") for root in ("numba.cuda", "numba_cuda"))


_JIT = ("kfront compiles CUDA kernels only: numba.cuda.jit for kernels; numba.jit/njit functions run as plain "
        "Python on the host and as device functions in kernels")
_HINTS = {
    "numba.generated_jit": _JIT, "numba.cfunc": _JIT,
    "numba.jit_module": _JIT, "numba.stencil": _JIT,
    "numba.prange": "CPU parallel loops are not part of kfront", "numba.objmode": "object mode is not part of kfront",
    "numba.typed": "typed containers are not part of kfront",
    "numba.extending": "numba's extension API is not part of kfront",
    "numba.cuda.simulator": "kfront has its own simulator: set KFRONT_SIM=1 or NUMBA_ENABLE_CUDASIM=1; of numba-cuda's "
                            "simulator modules kfront has only vector_types, the same table as numba.cuda.vector_types",
}
_DEFAULT_HINT = ("kfront's drop-in provides numba.cuda's kernel API, numba.types, numba.config, vectorize and "
                 "guvectorize")


def _unsupported(fullname):
    """The text of the error for a name the alias does not have: the hint of the name or of its nearest enclosing
    module in _HINTS (numba.cuda.simulator.kernel: numba.cuda.simulator's), else the default one."""
    name = fullname
    while name not in _HINTS and "." in name:
        name = name.rsplit(".", 1)[0]
    return "kfront: %s is not supported (%s)" % (fullname, _HINTS.get(name, _DEFAULT_HINT))


class AliasModule(types.ModuleType):
    """A numba module under kfront's drop-in: forwards attribute reads (and, for numba.config, assignments)
    to kfront's modules, as _MODULES says."""

    def __init__(self, name, spec, state):
        super().__init__(name)
        d = self.__dict__
        d["__kfront_alias__"] = spec.kernel_path or name  # the module's path in kernels (kfront._source)
        d["_kfront_spec"] = spec
        d["_kfront_state"] = state
        d["_kfront_cached"] = set()
        modspec = importlib.util.spec_from_loader(name, state.loader, is_package=True)
        d["__spec__"] = modspec
        d["__loader__"] = state.loader
        d["__package__"] = name
        d["__path__"] = []  # a package: imports of its submodules go to the finder

    def _kfront_target(self, module, name):
        """The kfront module `module` (as remapped by install_numba_alias's targets), imported."""
        real = self.__dict__["_kfront_state"].targets.get(module, module)
        try:
            return importlib.import_module(real)
        except ImportError as e:
            raise ImportError("kfront: %s.%s needs %s, which could not be imported: %s" %
                              (self.__name__, name, real, e)) from e

    def __getattr__(self, name):
        d = self.__dict__
        spec = d["_kfront_spec"]
        child = spec.children.get(name)
        if child is not None:
            value = sys.modules.get(child)
            if value is None:
                value = importlib.import_module(child)
        elif name == "__all__":
            return list(spec.exports) if spec.exports else sorted(set(self._kfront_names()) - {"__all__"})
        elif (name.startswith("_") and not (name.startswith("__") and name.endswith("__")) and
              not spec.explicit(name)):  # (cuda.fp16 has __hadd; cudadrv.devices _DeviceList)
            raise AttributeError("module %r has no attribute %r" % (self.__name__, name))
        else:
            value = _MISSING
            for p in spec.providers:
                value = p.lookup(self, name)
                if value is not _MISSING:
                    break
            if value is _MISSING:
                if name.startswith("__"):
                    raise AttributeError("module %r has no attribute %r" % (self.__name__, name))
                raise AttributeError(_unsupported("%s.%s" % (self.__name__, name)))
        if spec.forward_set is None:
            d[name] = value
            d["_kfront_cached"].add(name)
        return value

    def __setattr__(self, name, value):
        target = self.__dict__["_kfront_spec"].forward_set
        if target is not None and not name.startswith("_"):
            setattr(self._kfront_target(target, name), name, value)
        else:
            super().__setattr__(name, value)

    def _kfront_names(self):
        spec = self.__dict__["_kfront_spec"]
        names = set(spec.children)
        for p in spec.providers:
            names.update(p.names(self))
        return names

    def __dir__(self):
        try:
            provided = self._kfront_names()
        except ImportError:
            provided = set(self.__dict__["_kfront_spec"].children)
        return sorted(set(self.__dict__) | provided)

    def __repr__(self):
        return "<module %r (kfront's drop-in for numba)>" % self.__name__

    def _kfront_reset(self):
        """Forgets what was forwarded (importlib.reload)."""
        d = self.__dict__
        for name in d["_kfront_cached"]:
            d.pop(name, None)
        d["_kfront_cached"].clear()
        d["__path__"] = []
        d["__kfront_alias__"] = d["_kfront_spec"].kernel_path or self.__name__


class _Loader(importlib.abc.Loader):
    def __init__(self, state):
        self.state = state

    def create_module(self, spec):
        return self.state.modules[_SHARED.get(spec.name, spec.name)]

    def exec_module(self, module):
        if isinstance(module, AliasModule):
            module._kfront_reset()


class _Finder(importlib.abc.MetaPathFinder):
    """First on sys.meta_path: every module the alias replaces is an alias, or an import error naming it; in the
    cuda-only scope, the other numba modules are left to the finders after it (numba's own)."""

    def __init__(self, state):
        self.state = state

    def find_spec(self, fullname, path=None, target=None):
        if not self.state.replaces(fullname):
            return None
        if _SHARED.get(fullname, fullname) in self.state.modules:
            return importlib.util.spec_from_loader(fullname, self.state.loader, is_package=True)
        # not ModuleNotFoundError(name=fullname): `from numba import njit` would swallow that one
        raise ModuleNotFoundError(_unsupported(fullname))


class _State:
    def __init__(self, targets, scope):
        self.targets = targets
        self.scope = scope                    # "numba": all of numba is kfront's; "cuda": numba.cuda only
        self.loader = _Loader(self)
        self.finder = _Finder(self)
        self.saved = {}                       # the modules set aside, by sys.modules name
        self.modules = {}
        self.numba = None                     # the real numba (scope "cuda"), whose `cuda` attribute is the alias
        self.numba_cuda_attr = _MISSING       # what that attribute was before

    def replaces(self, fullname):
        if self.scope == "cuda":
            return _in_cuda_scope(fullname)
        return fullname == "numba" or fullname.startswith("numba.") or _in_cuda_scope(fullname)


_state = None
_SCOPES = ("auto", "numba", "cuda")


def _real_numba():
    """numba's own top-level module, imported (None where numba is not installed); the alias must not be installed."""
    if "numba" in sys.modules:
        return sys.modules["numba"]
    if importlib.util.find_spec("numba") is None:
        return None
    return importlib.import_module("numba")


def _resolve_scope(scope):
    """(scope, the real numba module or None) for install_numba_alias's `scope` argument."""
    if scope == "numba":
        return scope, None
    try:
        numba = _real_numba()
    except ImportError as e:
        if scope == "cuda":
            raise ImportError("kfront: install_numba_alias(scope='cuda') needs numba, which could not be imported: "
                              "%s" % e) from e
        warnings.warn("kfront: numba is installed but could not be imported (%s); kfront replaces the whole of "
                      "numba" % e, _kfront_warning(), stacklevel=4)
        return "numba", None
    if numba is None:
        if scope == "cuda":
            raise ImportError("kfront: install_numba_alias(scope='cuda') needs numba, which is not installed")
        return "numba", None
    return "cuda", numba


def _derive_errors_from_numba():
    """Beside a real numba: kfront's errors become subclasses of numba.core.errors' classes too
    (kfront.errors.derive_from_numba), so that `except numba.core.errors.TypingError` catches kfront's."""
    from kfront import errors
    try:
        numba_errors = importlib.import_module("numba.core.errors")
    except ImportError:
        return  # a numba without numba.core.errors has no classes to catch kfront's by
    errors.derive_from_numba(numba_errors)


def _kfront_warning():
    from kfront.errors import KfrontWarning
    return KfrontWarning


def _stale_references(saved):
    """'module.name' for each global of an imported module that holds one of the numba modules the alias set
    aside (`from numba import cuda` run before install_numba_alias)."""
    set_aside = {id(m) for m in saved.values()  # (numba-cuda keeps other modules under its names too)
                 if _in_cuda_scope(getattr(m, "__name__", "")) or getattr(m, "__name__", "") == "numba"}
    found, seen = [], set()
    for modname, mod in list(sys.modules.items()):
        if mod is None or id(mod) in seen or modname == "numba" or modname.startswith(("numba.", "numba_cuda",
                                                                                        "kfront")):
            continue
        seen.add(id(mod))
        try:
            items = list(vars(mod).items())
        except TypeError:
            continue
        found.extend("%s.%s" % (modname, k) for k, v in items if id(v) in set_aside and not k.startswith("__"))
    return sorted(found)


def install_numba_alias(targets=None, scope="auto"):
    """Makes numba's CUDA modules resolve to kfront for the rest of the process: `from numba import cuda`,
    `import numba.cuda`, `from numba.cuda import float32, types, config`, numba.cuda.core.errors, ... give
    kfront's objects, even where numba-cuda is installed or already imported (its modules are set aside).

    scope "auto" (the default): "cuda" where numba is installed, else "numba".
    scope "cuda": kfront replaces numba.cuda, the modules beneath it and numba_cuda; the rest of numba is numba's
    own (njit, prange, vectorize(target="cpu"), numba.typed, numba.types, numba.config), which kfront's
    kernels, signatures and ufuncs accept (numba's types, numba.jit functions called from kernels,
    numba.vectorize(target="cuda")). The real numba is imported, and its `cuda` attribute is the alias.
    scope "numba": kfront replaces the whole of numba (numba, numba.types, numba.config, numba.core.errors, ...),
    numba's CPU names absent or kfront's (numba.jit functions run as plain Python on the host).

    Call it before the program imports numba.cuda: names bound to numba-cuda's modules before stay numba-cuda's
    (a KfrontWarning lists them). Idempotent. `targets` maps kfront module names to the modules to use instead
    ({"kfront.cuda": "mypkg.cuda"}). Returns the `numba` module: the alias (scope "numba") or numba's own."""
    global _state
    if scope not in _SCOPES:
        raise ValueError("kfront: install_numba_alias(scope=%r): the scope is one of %s" % (scope, ", ".join(_SCOPES)))
    targets = dict(targets or {})
    state = _state
    if state is not None and (state.targets != targets or scope not in ("auto", state.scope)):
        uninstall_numba_alias()
        state = None
    if state is None:
        resolved, numba = _resolve_scope(scope)
        state = _State(targets, resolved)
        for key in list(sys.modules):
            if state.replaces(key):
                state.saved[key] = sys.modules.pop(key)
        for name, spec in _MODULES.items():
            if state.replaces(name):
                state.modules[name] = AliasModule(name, spec, state)
        if numba is not None:
            state.numba = numba
            state.numba_cuda_attr = numba.__dict__.get("cuda", _MISSING)
            _derive_errors_from_numba()
        _state = state
        stale = _stale_references(state.saved)
        if stale:
            warnings.warn("kfront: numba.cuda was imported before install_numba_alias(): %s still refer%s to "
                          "numba-cuda's modules, not kfront's; install the alias (or run under python -m kfront) "
                          "before the program imports numba.cuda" % (", ".join(stale), "s" if len(stale) == 1 else ""),
                          _kfront_warning(), stacklevel=2)
    for name, module in state.modules.items():
        sys.modules[name] = module
    if state.scope == "numba":
        for key, name in _SHARED.items():
            sys.modules[key] = state.modules[name]
    else:
        setattr(state.numba, "cuda", state.modules["numba.cuda"])
    if state.finder in sys.meta_path:
        sys.meta_path.remove(state.finder)
    sys.meta_path.insert(0, state.finder)
    return state.modules["numba"] if state.scope == "numba" else state.numba


def uninstall_numba_alias():
    """Undoes install_numba_alias: removes the aliases and the finder, puts back the modules that were imported
    before and the real numba's `cuda` attribute."""
    global _state
    state = _state
    if state is None:
        return
    while state.finder in sys.meta_path:
        sys.meta_path.remove(state.finder)
    for key in list(sys.modules):
        if state.replaces(key) and isinstance(sys.modules[key], AliasModule):
            del sys.modules[key]
    for key, module in state.saved.items():
        sys.modules.setdefault(key, module)
    if state.numba is not None:
        from kfront import errors
        errors.underive_from_numba()
        if state.numba_cuda_attr is _MISSING:
            state.numba.__dict__.pop("cuda", None)
        else:
            state.numba.cuda = state.numba_cuda_attr
    _state = None


def alias_scope():
    """The scope of the installed alias ("numba" or "cuda"), or None when none is installed."""
    return None if _state is None else _state.scope
