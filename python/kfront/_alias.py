"""kfront._alias — the drop-in: `numba` resolves to kfront for the rest of the process.

install_numba_alias() puts a thin module object under each name of the table below into sys.modules
(`numba`, `numba.cuda`, `numba.core.config`, ...), replacing (and keeping, for uninstall_numba_alias) any
numba module already imported, and puts a finder first on sys.meta_path. Entries of sys.modules are found
before any finder, so the aliases win over a real numba and over numba-cuda's import hook that redirects
`numba.cuda`; the finder answers the imports the table does not cover (`import numba.typed`,
`from numba import cfunc`) with an ImportError saying "kfront: numba.typed is not supported (...)",
and a later importlib.reload() of an alias with the same alias.

The alias modules (AliasModule, a types.ModuleType) hold nothing themselves: an attribute is looked up,
at its first access, in the kfront module it forwards to (imported then, by name: importing `numba` or
`numba.cuda` imports no kfront module), and kept in the alias for the next access (numba.config excepted:
it forwards every read and every assignment to kfront.config). What each alias forwards:

    numba                          vectorize, guvectorize, __version__ (kfront); typeof, from_dtype and the
                                   type names (kfront.types); numba.core.errors' names (kfront.errors);
                                   the submodules cuda, core, np, config, types, errors
    numba.cuda                     every public name of kfront.cuda; the submodules cudadrv, random, fp16, bf16,
                                   libdevice, misc
    numba.cuda.misc.special        literal_unroll (kfront.cuda; also numba.literal_unroll)
    numba.cuda.random              every public name of kfront.cuda.random (xoroshiro128+ generators)
    numba.cuda.fp16 / bf16 / libdevice   the kernel-side names of kfront.cuda.fp16 / bf16 / libdevice (hadd, ...)
    numba.cuda.cudadrv.driver      CudaAPIError, CudaDriverError (kfront.errors.CudaDriverError)
    numba.cuda.cudadrv.devicearray DeviceNDArray (kfront.cuda)
    numba.core.config              kfront.config, reads and assignments (also as numba.config)
    numba.core.types               every public name of kfront.types (also as numba.types)
    numba.core.errors              kfront.errors.NUMBA_ERRORS: TypingError, NumbaError, NumbaPerformanceWarning...
    numba.np.numpy_support         from_dtype, as_dtype (kfront.types)

A name an alias does not have raises AttributeError("kfront: numba.X is not supported (why)"). The
`targets` argument of install_numba_alias maps kfront module names to others (tests use a fake kfront.cuda).
"""
import importlib
import importlib.abc
import importlib.util
import sys
import types

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
        return getattr(getattr(alias._kfront_target("kfront.cuda", name), self.name), name)

    def names(self, alias):
        return []


class _Spec:
    def __init__(self, providers=(), children=None, forward_set=None):
        self.providers = providers
        self.children = children or {}
        self.forward_set = forward_set        # a kfront module that assignments go to (and nothing is cached)


_MODULES = {
    "numba": _Spec(
        (_Names({"vectorize": ("kfront", "vectorize"), "guvectorize": ("kfront", "guvectorize"),
                 "jit": ("kfront", "jit"), "njit": ("kfront", "njit"),
                 "__version__": ("kfront", "__version__"), "typeof": ("kfront.types", "typeof"),
                 "from_dtype": ("kfront.types", "from_dtype"),
                 "literal_unroll": ("kfront.cuda", "literal_unroll")}),
         _TypeNames(), _ErrorNames()),
        {"cuda": "numba.cuda", "core": "numba.core", "np": "numba.np", "config": "numba.core.config",
         "types": "numba.core.types", "errors": "numba.core.errors"}),
    "numba.cuda": _Spec((_Star("kfront.cuda"),), {"cudadrv": "numba.cuda.cudadrv", "random": "numba.cuda.random",
                                                  "fp16": "numba.cuda.fp16", "bf16": "numba.cuda.bf16",
                                                  "libdevice": "numba.cuda.libdevice", "misc": "numba.cuda.misc"}),
    "numba.cuda.misc": _Spec((), {"special": "numba.cuda.misc.special"}),
    "numba.cuda.misc.special": _Spec((_Names({"literal_unroll": ("kfront.cuda", "literal_unroll")}),)),
    "numba.cuda.random": _Spec((_Star("kfront.cuda.random"),)),
    "numba.cuda.fp16": _Spec((_KernelNamespace("fp16"),)),
    "numba.cuda.bf16": _Spec((_KernelNamespace("bf16"),)),
    "numba.cuda.libdevice": _Spec((_KernelNamespace("libdevice"),)),
    "numba.cuda.cudadrv": _Spec((), {"driver": "numba.cuda.cudadrv.driver",
                                     "devicearray": "numba.cuda.cudadrv.devicearray"}),
    "numba.cuda.cudadrv.driver": _Spec((_ErrorNames(("CudaAPIError", "CudaDriverError")),)),
    "numba.cuda.cudadrv.devicearray": _Spec((_Names({"DeviceNDArray": ("kfront.cuda", "DeviceNDArray")}),)),
    "numba.core": _Spec((), {"config": "numba.core.config", "types": "numba.core.types",
                             "errors": "numba.core.errors"}),
    "numba.core.config": _Spec((_Star("kfront.config"),), forward_set="kfront.config"),
    "numba.core.types": _Spec((_Star("kfront.types"),)),
    "numba.core.errors": _Spec((_ErrorNames(),)),
    "numba.np": _Spec((), {"numpy_support": "numba.np.numpy_support"}),
    "numba.np.numpy_support": _Spec((_Names({"from_dtype": ("kfront.types", "from_dtype"),
                                             "as_dtype": ("kfront.types", "as_dtype")}),)),
}
# further sys.modules names of the same alias objects, as numba has them
_SHARED = {"numba.config": "numba.core.config", "numba.types": "numba.core.types"}

_JIT = ("kfront compiles CUDA kernels only: numba.cuda.jit for kernels; numba.jit/njit functions run as plain "
        "Python on the host and as device functions in kernels")
_HINTS = {
    "numba.generated_jit": _JIT, "numba.cfunc": _JIT,
    "numba.jit_module": _JIT, "numba.stencil": _JIT,
    "numba.prange": "CPU parallel loops are not part of kfront", "numba.objmode": "object mode is not part of kfront",
    "numba.typed": "typed containers are not part of kfront",
    "numba.extending": "numba's extension API is not part of kfront",
    "numba.cuda.simulator": "kfront has its own simulator: set KFRONT_SIM=1 or NUMBA_ENABLE_CUDASIM=1",
}
_DEFAULT_HINT = ("kfront's drop-in provides numba.cuda's kernel API, numba.types, numba.config, vectorize and "
                 "guvectorize")


def _unsupported(fullname):
    return "kfront: %s is not supported (%s)" % (fullname, _HINTS.get(fullname, _DEFAULT_HINT))


class AliasModule(types.ModuleType):
    """A numba module under kfront's drop-in: forwards attribute reads (and, for numba.config, assignments)
    to kfront's modules, as _MODULES says."""

    def __init__(self, name, spec, state):
        super().__init__(name)
        d = self.__dict__
        d["__kfront_alias__"] = name
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
            return sorted(set(self._kfront_names()) - {"__all__"})
        elif (name.startswith("_") and not (name.startswith("__") and name.endswith("__")) and
              not any(isinstance(p, _KernelNamespace) for p in spec.providers)):  # (cuda.fp16 has __hadd)
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
        d["__kfront_alias__"] = self.__name__


class _Loader(importlib.abc.Loader):
    def __init__(self, state):
        self.state = state

    def create_module(self, spec):
        return self.state.modules[_SHARED.get(spec.name, spec.name)]

    def exec_module(self, module):
        if isinstance(module, AliasModule):
            module._kfront_reset()


class _Finder(importlib.abc.MetaPathFinder):
    """First on sys.meta_path: every numba module is an alias, or an import error naming it."""

    def __init__(self, state):
        self.state = state

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "numba" and not fullname.startswith("numba."):
            return None
        if _SHARED.get(fullname, fullname) in _MODULES:
            return importlib.util.spec_from_loader(fullname, self.state.loader, is_package=True)
        # not ModuleNotFoundError(name=fullname): `from numba import njit` would swallow that one
        raise ModuleNotFoundError(_unsupported(fullname))


class _State:
    def __init__(self, targets):
        self.targets = targets
        self.loader = _Loader(self)
        self.finder = _Finder(self)
        self.saved = {}
        self.modules = {}


_state = None


def install_numba_alias(targets=None):
    """Makes `import numba`, `from numba import cuda, float32, vectorize, config, types`, `import numba.cuda`,
    numba.config, numba.types, numba.core.errors, ... resolve to kfront for the rest of the process, even
    where numba and numba-cuda are installed or already imported (their modules are set aside). Call it
    before the program imports numba. Idempotent. `targets` maps kfront module names to the modules to
    use instead ({"kfront.cuda": "mypkg.cuda"}). Returns the `numba` alias module."""
    global _state
    targets = dict(targets or {})
    state = _state
    if state is not None and state.targets != targets:
        uninstall_numba_alias()
        state = None
    if state is None:
        state = _State(targets)
        for key in list(sys.modules):
            if key == "numba" or key.startswith("numba."):
                state.saved[key] = sys.modules.pop(key)
        for name, spec in _MODULES.items():
            state.modules[name] = AliasModule(name, spec, state)
        _state = state
    for name, module in state.modules.items():
        sys.modules[name] = module
    for key, name in _SHARED.items():
        sys.modules[key] = state.modules[name]
    if state.finder in sys.meta_path:
        sys.meta_path.remove(state.finder)
    sys.meta_path.insert(0, state.finder)
    return state.modules["numba"]


def uninstall_numba_alias():
    """Undoes install_numba_alias: removes the aliases and the finder and puts back the numba modules that
    were imported before."""
    global _state
    state = _state
    if state is None:
        return
    while state.finder in sys.meta_path:
        sys.meta_path.remove(state.finder)
    for key in list(sys.modules):
        if (key == "numba" or key.startswith("numba.")) and isinstance(sys.modules[key], AliasModule):
            del sys.modules[key]
    for key, module in state.saved.items():
        sys.modules.setdefault(key, module)
    _state = None
