"""kfront._source — what the compiler needs to know about a Python function, as plain data.

kfront compiles a function from its source text, not its bytecode (kfront._capture takes that text when
@cuda.jit runs); `referenced_names` lists the globals and closure variables the function reads, and
`freeze_value` turns each value into the description of a bound value that kfront's C layer takes (kf_value of
kfront.h), frozen as Numba freezes globals and closure variables at the first compile.

Descriptions made by freeze_value (tagged tuples):

    ('scalar', v)              v a Python bool, int, float or complex, or a NumPy scalar of a kfront dtype (its
                               dtype is kept: numpy.float32(0.5) stays float32, numpy.complex64 complex64)
    ('scalar', v, t)           an enum member: v its int value, t its type (enum_spelling of its class)
    ('tuple', [d, ...])        a tuple (nested allowed; namedtuples too), each item a description
    ('array', ndarray)         a read-only copy of a NumPy array, in native byte order, strides as the
                               original's (order 'K'); it becomes a constant array
    ('array', device array)    an object with __cuda_array_interface__ (a DeviceNDArray, a foreign array), itself:
                               captured by its address, as numba-cuda captures a global device array's pointer
    ('namespace', {m: d}, t)   an enum class (IntEnum, Enum, IntFlag...): member name -> ('scalar', int value, t),
                               aliases included; t the members' type (enum_spelling)
    ('module', 'dotted.name')  a module kfront knows: numba, numba.cuda, math, numpy, cmath, operator, ...
    ('pymodule', name, {a: d}) a module of the program's own (`import config`, `from . import config`), bound by
                               the attributes the function reads (attribute_names): attribute -> its
                               description (freeze_value's, or ('unsupported', what it is)); a submodule is a
                               'pymodule' in turn; a module is never walked whole
    ('path', 'dotted.name')    a known object: numba.float32, numba.cuda.grid, math.sqrt, numpy.float32, ...
    ('str', s)                 a str (an exception's message, a dtype name)
    ('slice', [d, d, d])       a slice: its start, stop and step, each ('scalar', int) or ('none', None)
    ('exception', name, cls)   an exception class that is not one of Python's builtins (a builtin one is a
                               'path'): kernels may raise it; name (module.qualname) is how a raise of it
                               comes back from the C layer, and the caller registers cls under it
    ('foreign', name, sig, abi, use_cooperative)
                               a foreign device function (cuda.declare_device): its symbol, signature text, ABI
                               ("numba" or "c") and whether it synchronises the grid
    ('function', obj)          a @cuda.jit dispatcher (an object with a `py_func` Python function); the
                               caller turns it into another source
    None                       anything else: the caller leaves the name unbound and the compiler reports
                               it where the kernel uses it

Values kfront's C layer cannot represent at all raise UnsupportedError naming the variable (integers
beyond int64/uint64, arrays and NumPy scalars of other dtypes, enums with non-integer
values); values it can represent but may refuse (an empty or 0-d array, an array in a tuple) are passed
on, and the compiler reports them located at their use.
"""
import dis
import enum
import sys
import types as pytypes

from kfront import _numba_interop, errors
from kfront import types as kftypes


# ---- names a function reads -----------------------------------------------------------------------------

_GLOBAL_LOADS = frozenset(("LOAD_GLOBAL", "LOAD_NAME", "LOAD_FROM_DICT_OR_GLOBALS"))


def _global_names(code, out):
    for ins in dis.get_instructions(code):
        if ins.opname in _GLOBAL_LOADS:
            out.setdefault(ins.argval, None)
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType):  # comprehensions (before 3.12), inner functions, lambdas
            _global_names(const, out)
    return out


_ATTRIBUTE_LOADS = frozenset(("LOAD_ATTR", "LOAD_METHOD"))


def attribute_names(code, out=None):
    """The attribute names a function's code reads (`config.THRESHOLD`, `mod.f(x)`: THRESHOLD, f), in its own code
    and its nested code objects: the attributes of the program's modules that are bound for it."""
    out = set() if out is None else out
    for ins in dis.get_instructions(code):
        if ins.opname in _ATTRIBUTE_LOADS:
            out.add(ins.argval)
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType):
            attribute_names(const, out)
    return out


def _local_names(code, out):
    out.update(code.co_varnames, code.co_cellvars, code.co_freevars)
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType):
            _local_names(const, out)
    return out


def _names_only_source_reads(fn, text):
    """the names fn's source text reads that are none of its code's locals: beside the bytecode's globals, the
    ones of code CPython's compiler dropped as unreachable (the body of `while c and False:` or
    `if c and False:`), which the frontend, compiling the text, still types"""
    import ast
    import textwrap
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError:
        return []
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not defs:
        return []
    local = _local_names(fn.__code__, set())
    seen = {}
    for stmt in defs[0].body:       # the body only: decorators and defaults are not the kernel's reads
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in local:
                seen.setdefault(node.id, None)
    return list(seen)


def referenced_names(fn, text=None):
    """(globals, closure) a function reads, each a dict name -> value in the order the function first
    names them. globals: the base names it loads as globals (in its own code and in nested code objects:
    comprehensions, inner functions, lambdas; `np.float32` names np only) that fn.__globals__ holds, then,
    given its source text, the names the text reads that its code does not (code CPython dropped as
    unreachable, which the frontend still types: difftest finding 1); builtins and names bound nowhere are
    left out. closure: its free variables with their cells' values
    (a cell not yet assigned is left out)."""
    code = fn.__code__
    g = fn.__globals__
    globals_ = {name: g[name] for name in _global_names(code, {}) if name in g}
    for name in _names_only_source_reads(fn, text) if text is not None else ():
        if name in g and name not in globals_:
            globals_[name] = g[name]
    closure = {}
    for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            closure[name] = cell.cell_contents
        except ValueError:
            pass
    return globals_, closure


# ---- freezing values ------------------------------------------------------------------------------------

# kfront's modules under the numba names kfront's frontend knows them by
_KFRONT_MODULES = {"kfront": "numba", "kfront.cuda": "numba.cuda", "kfront.types": "numba.types"}
_STD_MODULES = ("builtins", "math", "cmath", "operator")
_std_paths = {}          # id(object) -> (kind, dotted path), for the standard modules and their attributes
_std_loaded = set()


def _add_module_paths(modname, mod):
    table = {id(mod): ("module", modname)}
    for attr, obj in sorted(vars(mod).items()):  # not getattr: numpy imports submodules on first access
        if attr.startswith("_"):
            continue
        if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
            continue  # values are frozen as values
        kind = "module" if isinstance(obj, pytypes.ModuleType) else "path"
        path = obj.__name__ if kind == "module" else "%s.%s" % (modname, attr)
        # an object under several names keeps the one it calls itself (numpy.float64, not numpy.double)
        if id(obj) not in table or getattr(obj, "__name__", None) == attr:
            table[id(obj)] = (kind, path)
    for key, value in table.items():
        _std_paths.setdefault(key, value)
    _std_loaded.add(modname)


def _std_lookup(value):
    if len(_std_loaded) < len(_STD_MODULES):
        for modname in _STD_MODULES:
            if modname not in _std_loaded:
                _add_module_paths(modname, __import__(modname))
    if "numpy" not in _std_loaded and "numpy" in sys.modules:  # numpy's objects exist once numpy is loaded
        _add_module_paths("numpy", sys.modules["numpy"])
    return _std_paths.get(id(value))


def _fast_enum():
    """cuda.bindings' FastEnum, the base of its enums (cudaRoundMode, ...), which numba-cuda types as IntEnums; None
    unless cuda.bindings has loaded it (kfront never imports it)."""
    return getattr(sys.modules.get("cuda.bindings._internal._fast_enum"), "FastEnum", None)


def is_enum_member(value):
    """Whether value is a member of an enum class Numba types (enum.Enum, or cuda.bindings' FastEnum)."""
    fast = _fast_enum()
    return isinstance(value, enum.Enum) or (fast is not None and isinstance(value, fast))


def is_enum_class(value):
    """Whether value is an enum class Numba types (enum.Enum's subclasses, cuda.bindings' FastEnum ones)."""
    fast = _fast_enum()
    return isinstance(value, type) and (issubclass(value, enum.Enum) or (fast is not None and issubclass(value, fast)))


def _check_int(name, value):
    if not -(1 << 63) <= value < (1 << 64):
        raise errors.UnsupportedError("kfront: the global '%s' is the integer %d, which fits in neither int64 nor "
                                      "uint64" % (name, value))
    return value


def enum_spelling(cls):
    """The type of an enum class's members as kfront spells it (Numba's EnumMember / IntEnumMember of the
    class): IntEnumMember("module.Qual.Name", int64) for IntEnum and IntFlag (members that are integers),
    EnumMember("module.Qual.Name", dtype) for others, dtype the members' values' type as Numba's typeof finds it
    (int64, float64, bool)."""
    if issubclass(cls, int):
        return str(kftypes.IntEnumMember(cls, kftypes.int64))
    valued = _valued_spelling(cls)
    if valued is not None:
        if any(isinstance(m.value, str) for m in cls.__members__.values()):
            raise errors.UnsupportedError(
                "kfront: the members of %s have string values: as kernel arguments (or bound alone) they are not "
                "supported, as numba-cuda cannot pass a unicode_type to a kernel; use them through their class in "
                "the kernel (%s.%s)" % (cls.__name__, cls.__name__, next(iter(cls.__members__))))
        return valued
    return str(kftypes.EnumMember(cls, enum_dtype(cls)))


_tuple_class_names = {}   # namedtuple class -> its name for kfront ("mod.Point", "mod.Point#2": another of that name)
_tuple_classes_named = {}  # "mod.Point" -> how many classes have had that name


def is_namedtuple_class(cls):
    """Whether cls is a collections.namedtuple or typing.NamedTuple class (a tuple subclass with its _fields of
    names), as Numba's typeof finds a NamedTuple."""
    fields = getattr(cls, "_fields", None) if isinstance(cls, type) and issubclass(cls, tuple) else None
    return isinstance(fields, tuple) and all(isinstance(f, str) for f in fields)


def namedtuple_class(cls):
    """(name, fields) of a namedtuple class for kfront: its module and qualified name, with "#k" after it for the k-th
    distinct class of one name (a class made again, in a function), so that two classes are two types as in Numba;
    and its field names."""
    name = _tuple_class_names.get(cls)
    if name is None:
        base = "%s.%s" % (cls.__module__, cls.__qualname__)
        k = _tuple_classes_named.get(base, 0) + 1
        _tuple_classes_named[base] = k
        name = base if k == 1 else "%s#%d" % (base, k)
        _tuple_class_names[cls] = name
    return name, tuple(cls._fields)


def namedtuple_spelling(cls):
    """A namedtuple class and its fields as a kernel argument's type names them (kf_arg.type):
    '"mod.Point", ("x", "y")'; None for a tuple subclass that is no namedtuple (a plain tuple then)."""
    if not is_namedtuple_class(cls):
        return None
    name, fields = namedtuple_class(cls)
    names = ", ".join('"%s"' % f for f in fields)
    return '"%s", (%s%s)' % (name, names, "," if len(fields) == 1 else "")


def _value_dtype(value):
    np = sys.modules.get("numpy")
    if isinstance(value, bool) or (np is not None and isinstance(value, np.bool_)):
        return kftypes.boolean
    if isinstance(value, int) or (np is not None and isinstance(value, np.integer)):
        return kftypes.int64
    if isinstance(value, float) or (np is not None and isinstance(value, np.floating)):
        return kftypes.float64
    return None


def enum_dtype(cls):
    """The type of an Enum class's member values, as Numba's typeof of the class: one type for all of them (int64,
    float64 or bool here), else UnsupportedError (Numba: "Cannot type heterogeneous enum"). A class of tuple or str
    values has no such type (_valued_spelling)."""
    dtypes = {_value_dtype(m.value) for m in cls.__members__.values()}
    if None in dtypes:
        bad = next(m for m in cls.__members__.values() if _value_dtype(m.value) is None)
        raise errors.UnsupportedError("kfront: %s has the value %r: kfront takes enums whose members are numbers "
                                      "or booleans" % (bad, bad.value))
    if len(dtypes) > 1:
        raise errors.UnsupportedError("kfront: Cannot type heterogeneous enum %s: got value types %s" % (
            cls.__name__, ", ".join(sorted(str(t) for t in dtypes))))
    return dtypes.pop() if dtypes else kftypes.int64


def _valued_type(value, spelt=False):
    """The name of the type of an enum member's value that is a tuple of numbers (nested ones included) or a string,
    as Numba's typeof names it (UniTuple(int64, 2), Tuple(int64, float64), unicode_type), or with spelt=True as a
    signature spells it (Tuple((int64, float64))); None for anything else."""
    if isinstance(value, str):
        return None if "\0" in value else "unicode_type"
    if isinstance(value, tuple) and value:
        names = []
        for item in value:
            t = _value_dtype(item)
            name = str(t) if t is not None else _valued_type(item, spelt) if isinstance(item, tuple) else None
            if name is None:
                return None
            names.append(name)
        if len(set(names)) == 1:
            return "UniTuple(%s, %d)" % (names[0], len(names))
        return ("Tuple((%s))" if spelt else "Tuple(%s)") % ", ".join(names)
    return None


def _spelt_value(v):
    """An enum member's value (a number, a string, a tuple of them) as Python source kfront reads back exactly."""
    if isinstance(v, tuple):
        return "(%s%s)" % (", ".join(_spelt_value(x) for x in v), "," if len(v) == 1 else "")
    if isinstance(v, str):
        return repr(v)
    t = _value_dtype(v)
    if t is kftypes.boolean:
        return "True" if v else "False"
    if t is kftypes.int64:
        return str(int(v))
    v = float(v)
    if v != v:
        raise errors.UnsupportedError("kfront: an enum value holding a NaN is not supported")
    return repr(v) if v not in (float("inf"), float("-inf")) else ("1e999" if v > 0 else "-1e999")


def _valued_spelling(cls):
    """The member type of an Enum class whose members' values are tuples or strings (Numba: EnumMember of a tuple
    or unicode_type), with the values of its members in order, aliases included (what kfront reads them from):
    EnumMember("module.QualName", UniTuple(int64, 2), ((1, 2), (3, 4))). None when its values are numbers."""
    members = list(cls.__members__.values())
    if not members or issubclass(cls, int) or not any(isinstance(m.value, (tuple, str)) for m in members):
        return None
    kinds = {_valued_type(m.value) for m in members}
    if None in kinds:
        bad = next(m for m in members if _valued_type(m.value) is None)
        raise errors.UnsupportedError("kfront: %s has the value %r: kfront takes enums whose members are numbers, "
                                      "booleans, tuples of numbers or strings" % (bad, bad.value))
    if len(kinds) > 1:
        raise errors.UnsupportedError("kfront: Cannot type heterogeneous enum %s: got value types %s" % (
            cls.__name__, ", ".join(sorted(kinds))))
    return 'EnumMember("%s.%s", %s, %s)' % (cls.__module__, cls.__qualname__, _valued_type(members[0].value, True),
                                            _spelt_value(tuple(m.value for m in members)))


def _valued_enum(cls):
    """An Enum class of tuple or str values bound: ('namespace', {member: its value frozen}, its spelling), or None
    when its values are numbers."""
    spelling = _valued_spelling(cls)
    if spelling is None:
        return None
    return ("namespace", {name: freeze_value("%s.%s" % (cls.__name__, name), m.value)
                          for name, m in cls.__members__.items()}, spelling)


def enum_index(member):
    """A member of an enum of tuple or str values as kfront passes it: the index of its first name in its class's
    members (an alias's is its member's), which the kernel maps to the value."""
    for i, m in enumerate(type(member).__members__.values()):
        if m is member:
            return i
    raise ValueError("kfront: %r is not a member of its class" % (member,))


def _enum_value(name, member):
    if not isinstance(member, int) and _valued_spelling(type(member)) is not None:
        return ("scalar", enum_index(member), enum_spelling(type(member)))
    value = member.value
    dtype = kftypes.int64 if isinstance(member, int) else enum_dtype(type(member))
    if dtype is kftypes.boolean:
        return ("scalar", bool(value), enum_spelling(type(member)))
    if dtype is kftypes.float64:
        return ("scalar", float(value), enum_spelling(type(member)))
    if isinstance(value, bool) or _value_dtype(value) is not kftypes.int64:
        raise errors.UnsupportedError(
            "kfront: %s has the value %r: kfront takes IntEnum members that are integers" % (name, value))
    value = int(value)
    if not -(1 << 63) <= value < (1 << 63):
        raise errors.UnsupportedError("kfront: %s has the value %d, which does not fit in int64" % (name, value))
    return ("scalar", value, enum_spelling(type(member)))


def describe_unusable(value, registry=None, depth=0):
    """What a global or closure value freeze_value cannot bind is, for the error where a kernel reads it: "a Python
    list", "a Python function that is not a @cuda.jit device function", "a tuple holding a Python list" (its
    first item that kernels cannot use)."""
    if isinstance(value, tuple) and depth < 8:
        for item in value:
            if freeze_value("", item, registry) is None or (
                    isinstance(getattr(item, "py_func", None), pytypes.FunctionType) and not hasattr(item, "_kind")):
                return "a tuple holding %s" % describe_unusable(item, registry, depth + 1)
        return "a tuple holding strings, enum classes or exception classes"
    from kfront import extending
    api = extending.low_level_registration(value)
    if api is not None:
        return "%s, registered with numba's low-level extension API (%s), which kfront does not have" % (
            ("the class %s" % value.__qualname__) if isinstance(value, type) else "a %s" % type(value).__name__, api)
    if isinstance(value, (pytypes.FunctionType, pytypes.BuiltinFunctionType, pytypes.MethodType)):
        return "a Python function that is not a @cuda.jit device function (%s)" % getattr(value, "__qualname__", value)
    refused = _numba_interop.unusable_reason(value)  # numba's CPU function, its compilation disabled
    if refused is not None:
        return "%s, %s" % (type(value).__name__, refused)
    if hasattr(value, "py_func"):  # a jitted function of another kind (numba's njit, ...)
        return "%s, not a kfront @cuda.jit function" % type(value).__name__
    if isinstance(value, type):
        return "the class %s" % value.__qualname__
    return "a Python %s" % type(value).__name__


# the roots of the modules kfront's frontend knows by name; any other module is the program's own
_KNOWN_MODULE_ROOTS = frozenset(("numba", "numpy", "math", "cmath", "operator", "builtins", "kfront"))


def _program_module(name, module, attrs, registry, depth):
    """A module of the program's own as the attributes in attrs that it has (the others are left out: reading one
    is "module ... has no attribute" where the kernel reads it), each frozen as a global is; one kernels cannot
    use is ('unsupported', what it is), said where a kernel reads it."""
    members = {}
    for attr in sorted(attrs):
        try:
            value = getattr(module, attr)
        except Exception:  # AttributeError, or a module __getattr__ that fails: not an attribute kernels can read
            continue
        where = "%s.%s" % (name, attr)
        if isinstance(value, pytypes.ModuleType) and depth < 8:
            members[attr] = freeze_value(where, value, registry, attrs, depth + 1)
            continue
        try:
            d = freeze_value(where, value, registry)
        except errors.UnsupportedError as e:
            d = ("unsupported", str(e).removeprefix("kfront: "))
        members[attr] = d if d is not None else ("unsupported", describe_unusable(value, registry))
    return ("pymodule", module.__name__, members)


def _is_device_array(value):
    """Whether value is a device array: an object (not a module or a class) with a __cuda_array_interface__."""
    if isinstance(value, (pytypes.ModuleType, type)):
        return False
    try:
        return getattr(value, "__cuda_array_interface__", None) is not None
    except Exception:  # a property that fails: not an array kernels can capture
        return False


def freeze_value(name, value, registry=None, attrs=(), depth=0):
    """How the global or closure variable `name` with this value is bound (the descriptions are listed in
    the module's docstring). `registry` maps id(object) -> dotted numba path for the objects the caller
    knows (kfront.cuda's kernel-side names, ...); it is consulted before the standard modules (builtins,
    math, cmath, operator, numpy), which are recognised by identity. attrs: the attribute names the function
    reads (attribute_names), those of a module of the program's own that are bound."""
    cls = type(value)
    if value is None:  # Numba's none type: `x is None` and None arguments of device functions
        return ("none", None)
    if cls is bool or cls is float or cls is complex:
        return ("scalar", value)
    if cls is int:
        return ("scalar", _check_int(name, value))
    if is_enum_member(value):
        return _enum_value("%s (%s)" % (name, value), value)
    if isinstance(value, bool):
        return ("scalar", not not value)
    if isinstance(value, int):
        return ("scalar", _check_int(name, int(value)))
    if isinstance(value, float):
        return ("scalar", float(value))
    if isinstance(value, complex):  # numpy.complex128 too (numpy.complex64 is a NumPy scalar below)
        return ("scalar", complex(value))
    if cls is str:
        if "\0" in value:
            raise errors.UnsupportedError("kfront: the global '%s' is a string with a NUL character" % name)
        return ("str", value)
    np = sys.modules.get("numpy")  # a NumPy value means NumPy is loaded
    if np is not None:
        if isinstance(value, np.ndarray):
            try:
                kftypes.from_dtype(value.dtype.newbyteorder("="))
            except errors.UnsupportedError as e:
                raise errors.UnsupportedError("kfront: the global '%s' is an array of dtype %s, which kfront cannot "
                                              "make a constant of (%s)" % (name, value.dtype, e)) from None
            arr = np.array(value, dtype=value.dtype.newbyteorder("="), copy=True, order="K", subok=False)
            arr.flags.writeable = False
            return ("array", arr)
        if isinstance(value, np.generic):
            if isinstance(value, np.number) or isinstance(value, np.bool_):
                try:
                    kftypes.from_dtype(value.dtype)
                except errors.UnsupportedError as e:
                    raise errors.UnsupportedError("kfront: the global '%s' is a NumPy %s: %s" %
                                                  (name, value.dtype, e)) from None
                return ("scalar", value)
            return None
    if _is_device_array(value):  # captured by its address, as numba-cuda captures a global device array
        return ("array", value)
    if cls is slice:
        fields = []
        for part in ("start", "stop", "step"):
            x = getattr(value, part)
            if x is None:
                fields.append(("none", None))
            elif isinstance(x, int) and not isinstance(x, bool) and -(1 << 63) <= x < (1 << 63):
                fields.append(("scalar", int(x)))
            else:
                raise errors.UnsupportedError("kfront: the global '%s' is %r: kfront takes slices of int64 integers "
                                              "and None" % (name, value))
        return ("slice", fields)
    if isinstance(value, tuple):
        items = []
        for i, item in enumerate(value):
            d = freeze_value("%s[%d]" % (name, i), item, registry)
            if d is None or d[0] in ("str", "namespace", "exception"):  # kfront's constant tuples hold numbers,
                return None                                               # arrays, functions and tuples of them
            items.append(d)
        if is_namedtuple_class(cls):  # a namedtuple: its class and fields travel with it (Numba's NamedTuple)
            return ("tuple", items) + namedtuple_class(cls)
        return ("tuple", items)
    if is_namedtuple_class(value):  # a namedtuple class: kernels construct it
        return ("tuple_class",) + namedtuple_class(value)
    path = registry.get(id(value)) if registry else None
    if path is not None:
        return ("module" if isinstance(value, pytypes.ModuleType) else "path", path)
    if is_enum_class(value):
        valued = _valued_enum(value)
        if valued is not None:
            return valued
        return ("namespace", {member: _enum_value("%s.%s" % (value.__name__, member), m)
                              for member, m in value.__members__.items()}, enum_spelling(value))
    if isinstance(value, pytypes.ModuleType):
        alias = value.__dict__.get("__kfront_alias__")  # a numba alias module (kfront._alias)
        if isinstance(alias, str):
            return ("module", alias)
        modname = value.__name__
        if modname.partition(".")[0] not in _KNOWN_MODULE_ROOTS:
            return _program_module(name, value, attrs, registry, depth)
        return ("module", _KFRONT_MODULES.get(modname, modname))
    if isinstance(value, (kftypes.Integer, kftypes.Float, kftypes.Boolean)):
        return ("path", "numba." + str(value))
    if isinstance(value, kftypes.Record):  # a record type (numba.from_dtype(dt)): its spelling, as a dtype
        return ("str", str(value))
    if np is not None and isinstance(value, np.dtype):
        try:
            t = kftypes.from_dtype(value)
        except errors.UnsupportedError:
            return None
        # a structured dtype is passed as its Record type's spelling, which kernels take as a dtype
        return ("str", str(t)) if isinstance(t, kftypes.Record) else ("path", "numpy." + str(t))
    std = _std_lookup(value)
    if std is not None:
        return std
    if np is not None and isinstance(value, type) and issubclass(value, np.generic):
        # a NumPy scalar class of another package (ml_dtypes.bfloat16): the Numba type of its dtype, as numba-cuda
        # types it in a kernel (a constructor of that type)
        try:
            t = kftypes.from_dtype(np.dtype(value))
        except (TypeError, errors.UnsupportedError):
            t = None
        if t is kftypes.bfloat16:
            return ("path", "numba.cuda.types.bfloat16")
        if isinstance(t, (kftypes.Integer, kftypes.Float, kftypes.Boolean, kftypes.Complex)):
            return ("path", "numpy." + str(t))
    cffi = sys.modules.get("cffi")  # a cffi.FFI object (numba's types.ffi): kernels call its from_buffer
    if cffi is not None and isinstance(value, cffi.FFI):
        return ("module", "cffi.FFI")
    if isinstance(value, type) and issubclass(value, BaseException):
        return ("exception", "%s.%s" % (value.__module__, value.__qualname__), value)
    from kfront.cuda import linking
    if isinstance(value, linking.ForeignFunction):  # cuda.declare_device's: its symbol and signature
        return ("foreign", value.name, value.signature_text, value.abi, value.use_cooperative)
    try:
        py_func = None if isinstance(value, type) else getattr(value, "py_func", None)
    except Exception:
        py_func = None
    if isinstance(py_func, pytypes.FunctionType):
        return ("function", value)
    if callable(value):
        from kfront import extending
        path = extending.overloaded_path(value)  # a function with @overload typing functions (or register_jitable)
        if path is not None:
            return ("overload", path)
    try:
        foreign = _numba_interop.foreign_type(value)  # one of numba's types, beside a real numba
    except errors.UnsupportedError:
        return None
    if foreign is not None and not isinstance(foreign, kftypes.Signature):
        return freeze_value(name, foreign, registry)
    return None
