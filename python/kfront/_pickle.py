"""kfront._pickle — @cuda.jit dispatchers pickled by value, rebuilt in another process (multiprocessing with spawn,
Dask or Ray workers) that needs neither the function's file nor its module.

As numba-cuda's (its serialize module: the Python function and the options, through cloudpickle, which pickles a
decorated function by value since its module's name holds the dispatcher), a dispatcher pickles as its function
and options, and what it had compiled is not kept: the rebuilt one compiles at its first use. kfront pickles the
function itself, with no cloudpickle: its code (marshal: one Python version, as multiprocessing's workers are),
name, qualified name, module name, defaults, docstring, the values of its closure cells and of the globals it
reads (kfront._source.referenced_names) — and the source text the dispatcher took when it was made (file name,
text, first line), so the loading process compiles the same function without any file. In what travels:

    modules                      by name, imported where loaded (numba alias modules of kfront's drop-in as
                                 aliases: loading one installs the drop-in there, as the pickling process had it)
    kfront's kernel-side objects (cuda.grid, cuda.shared.array, numba.float32, ...) by their numba path, resolved
                                 to kfront's same objects
    @cuda.jit functions          as dispatchers in turn (a function that calls itself, or functions that call
                                 each other, included)
    device arrays                refused with numba-cuda's PicklingError: their memory is the process's own
    other values                 by pickle (arrays, numbers, enum classes by reference, ...)
"""
import builtins
import importlib
import marshal
import pickle
import sys
import types as pytypes

from kfront import _source


class _EmptyCell:
    """The value of a closure cell not yet assigned."""

    def __reduce__(self):
        return "EMPTY_CELL"


EMPTY_CELL = _EmptyCell()


def _import_module(name, alias):
    if alias:
        module = sys.modules.get(name)
        if getattr(module, "__kfront_alias__", None) == name:
            return module
        from kfront._alias import install_numba_alias
        install_numba_alias()
    return importlib.import_module(name)


def _resolve_path(path):
    """kfront's object of a numba path: numba.cuda.X.Y from kfront.cuda, numba.X from kfront.types."""
    from kfront import cuda, types
    parts = path.split(".")
    if parts[:2] == ["numba", "cuda"]:
        obj, rest = cuda, parts[2:]
    elif parts[0] == "numba":
        obj, rest = types, parts[1:]
    else:
        raise pickle.UnpicklingError("kfront: no kfront object for %r" % path)
    for part in rest:
        obj = getattr(obj, part)
    return obj


class _ModuleRef:
    def __init__(self, module):
        self.name = module.__name__
        self.alias = isinstance(module.__dict__.get("__kfront_alias__"), str)

    def __reduce__(self):
        return _import_module, (self.name, self.alias)


class _PathRef:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return _resolve_path, (self.path,)


def _portable(value, registry):
    """value as it travels (see the module's docstring)."""
    if isinstance(value, pytypes.ModuleType):
        return _ModuleRef(value)
    if isinstance(value, tuple) and type(value) is tuple:
        return tuple(_portable(item, registry) for item in value)
    path = registry.get(id(value))
    if path is not None:
        return _PathRef(path)
    if not isinstance(value, type) and getattr(value, "__cuda_array_interface__", None) is not None:
        raise pickle.PicklingError("Cannot serialize kernels or device functions referencing global device arrays. "
                                   "Pass the array(s) as arguments to the kernel instead.")
    return value


def portable_cells(fn, registry):
    """The values of fn's closure cells as they travel (EMPTY_CELL for one not yet assigned)."""
    cells = []
    for cell in fn.__closure__ or ():
        try:
            cells.append(_portable(cell.cell_contents, registry))
        except ValueError:
            cells.append(EMPTY_CELL)
    return cells


def function_state(fn, registry, text=None):
    """What rebuilds the Python function fn (rebuild_function); text its source, when taken."""
    globals_, _ = _source.referenced_names(fn, text)
    return {"code": marshal.dumps(fn.__code__), "name": fn.__name__, "qualname": fn.__qualname__,
            "module": fn.__module__, "doc": fn.__doc__, "defaults": fn.__defaults__,
            "kwdefaults": fn.__kwdefaults__, "closure": portable_cells(fn, registry),
            "globals": {name: _portable(value, registry) for name, value in globals_.items()}}


def rebuild_function(state):
    """The Python function function_state described: its code with the globals it reads and its closure cells."""
    globals_ = {"__builtins__": builtins, "__name__": state["module"]}
    globals_.update(state["globals"])
    closure = tuple(pytypes.CellType() if v is EMPTY_CELL else pytypes.CellType(v) for v in state["closure"])
    fn = pytypes.FunctionType(marshal.loads(state["code"]), globals_, state["name"], state["defaults"],
                              closure or None)
    fn.__qualname__ = state["qualname"]
    fn.__module__ = state["module"]
    fn.__doc__ = state["doc"]
    fn.__kwdefaults__ = state["kwdefaults"]
    return fn


def new_dispatcher(cls):
    """An empty dispatcher of class cls, which its state (Dispatcher.__setstate__) fills: made first, so that
    functions that call it (itself among them) can hold it while its state is loaded."""
    return cls.__new__(cls)
