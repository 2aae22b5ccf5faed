"""kfront beside a real numba (the cuda-only alias, kfront._alias): numba's own objects where kfront takes its.

Under the cuda-only alias `numba`, `numba.types` and `numba.jit` are numba's, so a program hands kfront numba's
type objects (`from numba import float32, void`; `cuda.jit(void(float32[:]))`, `cuda.local.array(4, float32)`)
and numba's CPU-jitted functions (a `@numba.jit` function called from a kernel, as numba-cuda's documentation
shows). This module turns them into kfront's:

    foreign_type(value)        a numba type or signature -> the kfront type or kfront.types.Signature;
                               None for anything else; UnsupportedError for a numba type kfront has not
    device_function(value)     a numba CPU dispatcher (numba.jit / njit) -> the kfront device function of its
                               Python function (one per dispatcher), which the kernel calls; None otherwise
                               (and for one whose compilation is disabled: see unusable_reason)
    unusable_reason(value)     why kernels cannot call numba's CPU dispatcher `value` (numba-cuda's words), or None

Nothing here imports numba: a value is numba's when numba's modules, already imported by the program, say so.
Where numba is absent, both functions answer None.
"""
import sys
import weakref

from kfront import errors
from kfront import types as kftypes


def _real(modname):
    """The numba module `modname` if it is imported and is numba's own (not one of kfront's alias modules)."""
    mod = sys.modules.get(modname)
    if mod is None or "__kfront_alias__" in vars(mod):
        return None
    return mod


def _convert(t):
    if isinstance(t, kftypes.Type):  # kfront's own, inside one of numba's signatures (numba.core.typing.signature)
        return t
    nt = _real("numba.core.types")
    if isinstance(t, nt.Array):
        return kftypes.Array(_convert(t.dtype), t.ndim, t.layout, readonly=not t.mutable, aligned=t.aligned)
    if isinstance(t, nt.BaseTuple):
        return kftypes.Tuple([_convert(item) for item in t.types])
    if isinstance(t, nt.NoneType):
        return kftypes.none
    if isinstance(t, nt.Optional):
        return kftypes.Optional(_convert(t.type))
    if isinstance(t, nt.CPointer):
        return kftypes.CPointer(_convert(t.dtype), t.addrspace)
    datetime_types = tuple(c for c in (getattr(nt, "NPDatetime", None), getattr(nt, "NPTimedelta", None)) if c)
    if isinstance(t, (nt.Boolean, nt.Integer, nt.Float, nt.Complex, nt.Record) + datetime_types):
        numpy_support = _real("numba.np.numpy_support")
        if numpy_support is not None:
            return kftypes.from_dtype(numpy_support.as_dtype(t))
    raise errors.UnsupportedError("kfront: numba's type %s has no kfront equivalent (kfront takes numba's scalar, "
                                  "datetime, record, array, tuple and CPointer types)" % (t,))


def foreign_type(value):
    """value as a kfront type or Signature, when it is one of numba's (see the module's docstring)."""
    abstract = _real("numba.core.types.abstract")
    if abstract is None:
        return None
    if isinstance(value, abstract.Type):
        return _convert(value)
    templates = _real("numba.core.typing.templates")
    if templates is not None and isinstance(value, templates.Signature):
        ret = None if value.return_type is None else _convert(value.return_type)
        return kftypes.Signature(ret, [_convert(a) for a in value.args])
    return None


_device_functions = weakref.WeakKeyDictionary()  # numba CPU dispatcher -> kfront HostJit


def device_function(value):
    """The kfront device function a kernel calls for numba's CPU dispatcher `value` (see the module's docstring)."""
    dispatcher = _real("numba.core.registry")
    if dispatcher is None or not isinstance(value, dispatcher.CPUDispatcher) or unusable_reason(value):
        return None
    fn = _device_functions.get(value)
    if fn is None:
        from kfront.cuda.dispatcher import HostJit
        fastmath = value.targetoptions.get("fastmath", False)
        fn = _device_functions[value] = HostJit(value.py_func, None, device=True, fastmath=bool(fastmath))
    return fn


def unusable_reason(value):
    """numba-cuda's reason for refusing numba's CPU dispatcher `value` in a kernel, or None where kernels call it:
    one given explicit signatures (numba.jit("(i4, i4)")) has its compilation disabled, and numba-cuda compiles a
    CPU function for the device only where its dispatcher may compile."""
    dispatcher = _real("numba.core.registry")
    if dispatcher is None or not isinstance(value, dispatcher.CPUDispatcher) or getattr(value, "_can_compile", True):
        return None
    return "using cpu function on device but its compilation is disabled (numba.jit was given signatures)"
