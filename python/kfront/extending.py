"""kfront.extending — numba-cuda's high-level extension API (numba.cuda.extending under the drop-in).

`@overload(func)` registers a typing function for `func`, a plain Python function: when a kernel or device function
calls `func`, the compiler calls the typing function with the types of the call's arguments (kfront.types objects,
numba's classes: `isinstance(x, types.Array)`), at compile time, once per distinct argument types; it returns the
implementation, a Python function (or a @cuda.jit one) that kfront compiles as a device function for those types and
calls in place of `func`, or None for "not for these types" (the next registered typing function is tried; when none
fits, the call is a TypingError). numba-cuda's targets: "generic" and "cuda" overloads are used in kernels (a "cuda"
one before a "generic" one of the same function, as numba-cuda prefers its target's), "cpu" ones are not.

`register_jitable(fn)` makes fn callable from kernels as it is (an overload whose implementation is fn itself); fn
stays a plain function on the host.

How it reaches the compiler: a function with overloads is bound in the kernel's program as ('overload', path)
(kfront.cuda.dispatcher), and the C frontend calls `resolve` (set as the process's overload resolver) with the path,
the argument types as signature text and the keywords' names; resolve answers with the implementation's sources,
bindings and function specs (kfront.cuda.dispatcher's _Inputs of a device dispatcher over it). Paths carry a token of
this process, so no compiled-code cache entry made with one overload's implementation is ever found by another
process, whose typing functions may differ.

numba's low-level extension API (intrinsic, lower_builtin, type_callable, typeof_impl, register_model, models,
make_attribute_wrapper, box/unbox, ...) builds LLVM IR through numba's code generator, which kfront does not have. Its
decorators here accept the registration (so a module that registers a type for numba still imports) and remember
what was registered; a kernel that then uses such an object gets an UnsupportedError naming the API, and calling what
only numba can run (an intrinsic, a model's constructor) raises it at once. overload_method and overload_attribute
extend numba's own types through numba's templates: kfront raises UnsupportedError when they are applied.
"""
import functools
import inspect
import secrets
import types as pytypes
import weakref

from kfront import errors, types

__all__ = ["overload", "register_jitable", "overload_method", "overload_attribute", "intrinsic", "lower_builtin",
           "lower_cast", "lower_getattr", "lower_setattr", "type_callable", "typeof_impl", "register_model",
           "models", "core_models", "make_attribute_wrapper", "NativeValue", "box", "unbox", "as_numba_type", "lower_getattr_generic",
           "lower_setattr_generic",
           "_Intrinsic", "get_cython_function_address", "include_path", "sentry_literal_args", "SentryLiteralArgs",
           "is_jitted", "literal_unroll"]

_TOKEN = secrets.token_hex(8)  # this process's: see the module's docstring
_KERNEL_TARGETS = ("cuda", "gpu", "generic")


class _Template:
    __slots__ = ("typing", "target", "strict", "jit_options", "prefer_literal", "inline")

    def __init__(self, typing, target, strict, jit_options, prefer_literal, inline):
        self.typing, self.target, self.strict = typing, target, strict
        self.jit_options, self.prefer_literal, self.inline = jit_options, prefer_literal, inline


class _Overloaded:
    """A function with overloads: its typing functions, in the order kernels try them, and the device dispatchers
    made of the implementations they returned (one per implementation function)."""

    def __init__(self, func, path):
        self.func = func
        self.path = path
        self.templates = []
        self.dispatchers = weakref.WeakKeyDictionary()


_BY_ID = {}    # id(func) -> _Overloaded, for the functions kernels may call (kept alive by _Overloaded.func)
_BY_PATH = {}  # path -> _Overloaded


def overloaded_path(value):
    """The path under which a function with overloads is bound in kernels, or None for any other value."""
    ov = _BY_ID.get(id(value))
    return ov.path if ov is not None and ov.func is value else None


def _overloaded(func):
    ov = _BY_ID.get(id(func))
    if ov is None or ov.func is not func:
        name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or type(func).__name__
        path = "%s.%s#%s:%d" % (getattr(func, "__module__", None) or "?", name, _TOKEN, len(_BY_PATH))
        ov = _BY_ID[id(func)] = _BY_PATH[path] = _Overloaded(func, path)
    return ov


def overload(func, jit_options=None, strict=True, inline="never", prefer_literal=False, target="generic",
             **kwargs):
    """numba.cuda.extending.overload: a decorator of the typing function of `func` (see the module's docstring).
    jit_options are the implementation's @cuda.jit options (fastmath, debug, lineinfo, opt, forceinline, ...); inline
    is cuda.jit's ("always": its calls inlined before libNVVM; "never": called, libNVVM inlining as it likes);
    prefer_literal is accepted (kfront passes non-literal types, numba's first try)."""
    if kwargs:
        raise TypeError("kfront: overload() got unexpected keyword argument(s) %s" % ", ".join(sorted(kwargs)))
    if not callable(func):
        raise TypeError("kfront: overload() takes the function to overload, not %r" % (func,))
    if inline not in ("never", "always") and not callable(inline):
        raise ValueError("kfront: overload(inline=%r): expected 'never', 'always' or a callable" % (inline,))
    options = dict(jit_options or {})
    unknown = set(options) - {"fastmath", "debug", "lineinfo", "opt", "boundscheck", "forceinline", "inline",
                              "nopython", "no_cpython_wrapper", "cache"}
    if unknown:
        raise TypeError("kfront: overload(jit_options=...) got unknown option(s) %s" % ", ".join(sorted(unknown)))

    def decorate(typing_func):
        if not callable(typing_func):
            raise TypeError("kfront: @overload decorates a typing function, not %r" % (typing_func,))
        template = _Template(typing_func, str(target).lower(), strict, options, prefer_literal, inline)
        ov = _overloaded(func)
        # a target's own overloads are tried before the generic ones (numba-cuda's order of preference)
        if template.target != "generic":
            at = next((i for i, t in enumerate(ov.templates) if t.target == "generic"), len(ov.templates))
            ov.templates.insert(at, template)
        else:
            ov.templates.append(template)
        return typing_func

    return decorate


def register_jitable(*args, **kwargs):
    """numba.cuda.extending.register_jitable: fn callable from kernels as it is (compiled as a device function for
    each call's types); on the host fn stays the plain function. Also @register_jitable(**jit_options)."""
    def wrap(fn):
        inline = kwargs.pop("inline", "never")

        @overload(fn, jit_options=kwargs, strict=False, inline=inline)
        def ov_wrap(*args, **kwargs):
            return fn
        return fn

    if kwargs:
        return wrap
    return wrap(*args)


def is_jitted(function):
    """Whether function is a @cuda.jit (or numba.jit) function."""
    from kfront.cuda.dispatcher import Dispatcher
    return isinstance(function, Dispatcher)


# ---- the resolver the C frontend calls ---------------------------------------------------------------------------

class _ResolutionError(Exception):
    """Why no implementation fits: its text is the TypingError at the call."""


def _parse_type(text):
    """A type as kfront's C frontend spells an overloaded call's argument (kfront.h, kf_overload_resolver)."""
    if text.startswith("function(") and text.endswith(")"):
        return types.Dispatcher(text[9:-1])
    if text.startswith("opaque(") and text.endswith(")"):
        return types.Opaque(text[7:-1])
    if text == "none":
        return types.none
    return types.parse_signature("(%s,)" % text)[0][0]


def _describe_call(ov, argtys, kwtys):
    parts = [str(t) for t in argtys] + ["%s=%s" % kv for kv in kwtys.items()]
    name = getattr(ov.func, "__name__", ov.path)
    return "%s(%s)" % (name, ", ".join(parts))


def _implementation(ov, template, argtys, kwtys):
    """The implementation the typing function gives for these types, None for none."""
    try:
        impl = template.typing(*argtys, **kwtys)
    except errors.KfrontError:
        raise
    except Exception as e:
        raise _ResolutionError("the typing function %s of %s raised %s: %s" % (
            getattr(template.typing, "__qualname__", template.typing), getattr(ov.func, "__name__", ov.path),
            type(e).__name__, e)) from e
    if impl is None:
        return None
    if not (isinstance(impl, pytypes.FunctionType) or is_jitted(impl)):
        raise _ResolutionError("Implementation function returned by `@overload` has an unexpected type. Got %r"
                               % (impl,))
    if template.strict and isinstance(impl, pytypes.FunctionType):
        _check_signatures(template.typing, impl)
    return impl


def _check_signatures(typing_func, impl):
    """numba's strict check: the implementation takes the typing function's parameters (names, kinds, order)."""
    try:
        a = inspect.signature(typing_func).parameters
        b = inspect.signature(impl).parameters
    except (TypeError, ValueError):
        return
    if [(p.name, p.kind) for p in a.values()] != [(p.name, p.kind) for p in b.values()]:
        raise _ResolutionError("Typing and implementation arguments differ in the parameters: the typing function "
                               "takes (%s) and the implementation (%s)" % (", ".join(a), ", ".join(b)))


def _dispatcher(ov, template, impl):
    from kfront.cuda.dispatcher import Dispatcher
    if isinstance(impl, Dispatcher):
        return impl
    d = ov.dispatchers.get(impl)
    if d is None:
        o = template.jit_options
        d = Dispatcher(impl, None, device=True, fastmath=o.get("fastmath", False), debug=o.get("debug", False),
                       lineinfo=o.get("lineinfo", False), opt=o.get("opt", True), inline=template.inline,
                       forceinline=bool(o.get("forceinline", False)))
        ov.dispatchers[impl] = d
    return d


def resolve(path, arg_types, keywords):
    """The overload resolver (see the module's docstring): (sources, bindings, functions, name) of the implementation
    of the overloaded function `path` for these argument types; raises with the reason (its str() the whole text of
    the TypingError the call gets) when there is none."""
    try:
        return _resolve(path, arg_types, keywords)
    except _ResolutionError:
        raise
    except Exception as e:  # the implementation's source or globals, say: said with its class
        raise _ResolutionError("%s: %s" % (type(e).__name__, str(e).removeprefix("kfront: "))) from e


def _resolve(path, arg_types, keywords):
    from kfront.cuda.dispatcher import implementation_inputs
    ov = _BY_PATH.get(path)
    if ov is None:
        raise _ResolutionError("no overloads are registered under %r" % path)
    nargs = len(arg_types) - len(keywords)
    parsed = [_parse_type(t) for t in arg_types]
    argtys, kwtys = parsed[:nargs], dict(zip(keywords, parsed[nargs:]))
    for template in ov.templates:
        if template.target not in _KERNEL_TARGETS:
            continue
        impl = _implementation(ov, template, argtys, kwtys)
        if impl is not None:
            return implementation_inputs(_dispatcher(ov, template, impl))
    raise _ResolutionError("No implementation of function %s found for signature: %s (%d overload%s tried)" % (
        getattr(ov.func, "__name__", ov.path), _describe_call(ov, argtys, kwtys),
        sum(t.target in _KERNEL_TARGETS for t in ov.templates),
        "" if sum(t.target in _KERNEL_TARGETS for t in ov.templates) == 1 else "s"))


def install():
    """Sets `resolve` as the process's overload resolver (once the C extension is loaded)."""
    from kfront import _kfront
    _kfront.set_overload_resolver(resolve)


# ---- what kfront does not have ------------------------------------------------------------------------------------

_LOW_LEVEL = ("numba's low-level extension API, which builds LLVM IR through numba's code generator; kfront compiles "
              "the kernel language in its C frontend and has none: write the function in Python and register it with "
              "@overload or @register_jitable")
_REGISTERED = weakref.WeakValueDictionary()  # id(object) -> object registered through the low-level API
_REGISTERED_API = {}                         # id(object) -> the API's name


def low_level_registration(value):
    """The name of the low-level API value, or the class of value (a types.Type subclass given to register_model),
    was registered with (typeof_impl.register, register_model, cudaimpl.lower, ...), or None."""
    for registered in (value, type(value)):
        api = _REGISTERED_API.get(id(registered))
        if api is not None and _REGISTERED.get(id(registered)) is registered:
            return api
    return None


def _record(value, api):
    try:
        _REGISTERED[id(value)] = value
        _REGISTERED_API[id(value)] = api
    except TypeError:  # not weakly referable (a types.Type instance may be): nothing to say later
        pass
    return value


def unsupported(api, module="numba.cuda.extending"):
    """The UnsupportedError for using `module.api`, a name of numba's low-level extension API."""
    return errors.UnsupportedError("kfront: %s.%s is %s" % (module, api, _LOW_LEVEL))


class _Registrar:
    """A low-level registration decorator (lower_builtin(func, *types), register_model(Type), ...): it remembers what
    it was given and returns the decorated object unchanged."""

    def __init__(self, api):
        self.api = api

    def __call__(self, *keys, **kwargs):
        for key in keys:
            _record(key, self.api)

        def decorate(obj):
            return obj
        return decorate

    def register(self, *keys):  # typeof_impl.register(cls)
        return _Registrar(self.api + ".register")(*keys)

    def __repr__(self):
        return "<kfront: numba.cuda.extending.%s (not supported: %s)>" % (self.api, _LOW_LEVEL)


class Registry:
    """numba's lowering registry (numba.cuda.core.imputils.Registry; numba.cuda.cudaimpl's `registry`): its
    decorators return the implementation unchanged and append the registration to the lists numba's have —
    functions (impl, func, argtys), getattrs and setattrs (impl, attr, (ty,): numba's setattr entries add its
    types.Any, which kfront's types do not have), casts (impl, (fromty, toty)), constants (impl, (ty,)) — and
    remember the key (func, or the type) so that a kernel using it is told kfront runs no such lowering. kfront calls
    none of the implementations: they build LLVM IR through numba's code generator."""

    def __init__(self, name="unspecified", api_names=None):
        self.name = name
        self.functions = []
        self.getattrs = []
        self.setattrs = []
        self.casts = []
        self.constants = []
        self._api_names = api_names or {}  # decorator -> the name a user knows it by, for the messages

    def _decorator(self, entries, entry, key, method):
        _record(key, self._api_names.get(method, "%s.%s" % (self.name, method)))

        def decorate(impl):
            entries.append(entry(impl))
            return impl
        return decorate

    def lower(self, func, *argtys):
        return self._decorator(self.functions, lambda impl: (impl, func, argtys), func, "lower")

    def lower_getattr(self, ty, attr):
        return self._decorator(self.getattrs, lambda impl: (impl, attr, (ty,)), ty, "lower_getattr")

    def lower_getattr_generic(self, ty):
        return self.lower_getattr(ty, None)

    def lower_setattr(self, ty, attr):
        return self._decorator(self.setattrs, lambda impl: (impl, attr, (ty,)), ty, "lower_setattr")

    def lower_setattr_generic(self, ty):
        return self.lower_setattr(ty, None)

    def lower_cast(self, fromty, toty):
        return self._decorator(self.casts, lambda impl: (impl, (fromty, toty)), fromty, "lower_cast")

    def lower_constant(self, ty):
        return self._decorator(self.constants, lambda impl: (impl, (ty,)), ty, "lower_constant")

    def __repr__(self):
        return "Lowering Registry<%s>" % self.name


builtin_registry = Registry("builtin_registry", {"lower": "lower_builtin"})  # lower_builtin & co. register here
lower_builtin = builtin_registry.lower
lower_cast = builtin_registry.lower_cast
lower_getattr = builtin_registry.lower_getattr
lower_getattr_generic = builtin_registry.lower_getattr_generic
lower_setattr = builtin_registry.lower_setattr
lower_setattr_generic = builtin_registry.lower_setattr_generic
type_callable = _Registrar("type_callable")
typeof_impl = _Registrar("typeof_impl")
register_model = _Registrar("register_model")
box = _Registrar("box")
unbox = _Registrar("unbox")


def make_attribute_wrapper(typeclass, struct_attr, python_attr):
    """numba's make_attribute_wrapper: remembered only (see the module's docstring)."""
    _record(typeclass, "make_attribute_wrapper")


class _Intrinsic:
    """numba's @intrinsic function: its typing and lowering are numba's; calling it (in a kernel or on the host)
    raises UnsupportedError."""

    def __init__(self, name, defn, prefer_literal=False, **kwargs):
        self._name = name
        self._defn = defn
        functools.update_wrapper(self, defn)
        _record(self, "intrinsic")

    def __call__(self, *args, **kwargs):
        raise unsupported("intrinsic (%s)" % self._name)


def intrinsic(*args, **kwargs):
    """numba's @intrinsic: see _Intrinsic."""
    def wrap(defn):
        return _Intrinsic(getattr(defn, "__name__", "intrinsic"), defn, **kwargs)
    if args and callable(args[0]) and not kwargs:
        return wrap(args[0])
    return wrap


class _NumbaModel:
    """The base of numba's data models (models.StructModel, ...): a subclass may be defined (and registered); making
    one, which only numba's lowering does, raises UnsupportedError."""

    def __init__(self, *args, **kwargs):
        raise unsupported("models.%s" % type(self).__name__)


class _Models(pytypes.ModuleType):
    """numba's models module (numba.cuda.extending.models / core_models): its model classes as _NumbaModel's."""

    _NAMES = ("StructModel", "PrimitiveModel", "OpaqueModel", "ArrayModel", "PointerModel", "UniTupleModel",
              "CompositeModel", "DataModel", "EnumModel", "IntegerModel", "FloatModel", "BooleanModel")

    def __init__(self, name):
        super().__init__(name)
        for model in self._NAMES:
            setattr(self, model, type(model, (_NumbaModel,), {"__module__": name}))
        self.register_default = _Registrar("models.register_default")


models = core_models = _Models("kfront.extending.models")


class NativeValue:
    """numba's NativeValue (what an unbox function returns): only numba's lowering makes one."""

    def __init__(self, *args, **kwargs):
        raise unsupported("NativeValue")


def _not_supported_function(api):
    def f(*args, **kwargs):
        raise unsupported(api)
    f.__name__ = api
    return f


as_numba_type = _not_supported_function("as_numba_type")
get_cython_function_address = _not_supported_function("get_cython_function_address")
include_path = _not_supported_function("include_path")
sentry_literal_args = _not_supported_function("sentry_literal_args")
SentryLiteralArgs = _not_supported_function("SentryLiteralArgs")


def _numba_templates(api):
    def decorate_maker(typ, attr, **kwargs):
        raise errors.UnsupportedError(
            "kfront: numba.cuda.extending.%s extends numba's types through numba's typing templates, which kfront "
            "does not have (its types' attributes and methods are its C frontend's); write a function and "
            "@overload it" % api)
    decorate_maker.__name__ = api
    return decorate_maker


overload_method = _numba_templates("overload_method")
overload_attribute = _numba_templates("overload_attribute")


def __getattr__(name):
    if name == "literal_unroll":
        from kfront.cuda import literal_unroll
        return literal_unroll
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
