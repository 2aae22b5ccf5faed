"""kfront.types — Numba's type objects, for the types kfront compiles, and the signatures made of them.

What numba.types gives a numba-cuda program, for kfront's types:
  - the scalars, under every name numba.types has for them: boolean (bool_, b1, and bool with NumPy 2),
    int8..int64, uint8..uint64 (byte), float16, float32, float64 (double; float_ = float32 with NumPy 1),
    i1..i8, u1..u8, f2..f8, intp/uintp, intc/uintc, ssize_t/size_t, char/uchar, short/ushort, int_/uint,
    long_/ulong, longlong/ulonglong (the platform's C sizes), and none (void);
  - arrays by slicing a scalar type: float32[:] (layout A), float32[::1] (C), float32[:, ::1] (C),
    float32[::1, :] (F), float32[:, :] (A); or Array(float32, 2, 'C'), Array(float32, 1, 'C', readonly=True);
  - tuples: UniTuple(int64, 2), Tuple((int64, float32));
  - signatures by calling a type: void(float32[:], int64), float32(float32, float32); a tuple of argument
    types (float32[:, :], float32[:, :]) is a signature without return type, as @guvectorize takes it.
Types compare and hash as Numba's do (float32[:] == float32[:]; equal types are the same object).

str() of a type or signature is its spelling in kfront's (and Numba's) signature syntax, which kfront's
signature parser reads back: "void(float32[:], int64)", "float32[:, ::1]", "float32[::1, :]", "bool",
"UniTuple(int64, 2)", "Tuple((int64, float32))". A read-only array, which the slice syntax cannot spell, is spelt by
its constructor, "Array(float32, 1, 'C', readonly=True)" (so a signature keeps it); its repr says "readonly".

Functions: normalize_signature(sig) -> the canonical string of a signature given as a string, a
Signature or a tuple of argument types; parse_signature(sig) -> (argument types, return type or None);
return_type(sig); from_dtype(dtype) / as_dtype(type) between NumPy dtypes and scalar types; typeof(value)
-> the type of a kernel argument as Numba's typeof gives it (bool, int, float, NumPy scalars and arrays,
objects with __cuda_array_interface__ or a _numba_type_).

Differences from Numba: only kfront's scalar types exist (datetime64 and timedelta64 as NPDatetime and NPTimedelta; NumPy's
bytes and str items as CharSeq and UnicodeCharSeq, array elements and record fields); array
types by slicing accept only ':' and '::1' with '::1' first (F) or last (C), as kfront's signature
parser does (Numba silently makes float32[::2] or float32[:, ::1, :] layout A); arrays have 1 or more
dimensions. NumPy is imported only when a function needs it (from_dtype, as_dtype, casts such as
float32(1.5), typeof of a NumPy value).
"""
import functools
import struct
import sys

from kfront import errors

__all__ = [
    "Type", "Number", "Integer", "Float", "Complex", "Boolean", "NoneType", "Array", "BaseTuple", "UniTuple", "Tuple",
    "NamedTuple",
    "Signature", "signature", "normalize_signature", "parse_signature", "return_type", "from_dtype",
    "as_dtype", "typeof", "Record", "NestedArray", "CPointer", "RawPointer", "voidptr", "NPDatetime", "NPTimedelta",
    "CharSeq", "UnicodeCharSeq", "Optional", "optional",
    "boolean", "bool_", "b1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128", "c8", "c16", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8",
    "byte", "double", "intp", "uintp", "intc", "uintc", "ssize_t", "size_t", "char", "uchar", "short",
    "ushort", "int_", "uint", "long_", "ulong", "longlong", "ulonglong", "none", "void",
    "signed_domain", "unsigned_domain", "integer_domain", "real_domain", "complex_domain", "number_domain",
]


class Type:
    """A Numba type. Equal types are one object (interned by class and key); they compare and hash by
    class and key. Calling a type with types makes a Signature (float32(float32, float32)); calling a
    scalar type with a value casts it (float32(1.5) -> numpy.float32(1.5))."""

    _interned = {}

    def __init__(self, *args, **kwargs):
        # kfront's own types are made whole by their __new__ (interned); a subclass that has none is made numba's
        # way, Type.__init__(self, name) (numba's extension API's types: kfront can name them, not compile them)
        if type(self).__new__ is object.__new__:
            self._init_named(*args, **kwargs)

    def _init_named(self, name):
        self.name = name

    @classmethod
    def _intern(cls, key, init):
        t = Type._interned.get((cls, key))
        if t is None:
            t = object.__new__(cls)
            init(t)
            Type._interned[(cls, key)] = t
        return t

    @property
    def key(self):
        return self.name

    def __eq__(self, other):
        return self is other or (self.__class__ is other.__class__ and self.key == other.key)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self.key)

    def __str__(self):
        return self.name

    def __repr__(self):
        return self.name

    def __reduce__(self):
        return self._reduce()

    def __call__(self, *args):
        if len(args) == 1 and not isinstance(args[0], Type):
            return self.cast_python_value(args[0])
        return Signature(self, args)

    def cast_python_value(self, value):
        raise TypeError("kfront: %s cannot convert a Python value" % self)


class Number(Type):
    """Integer and Float."""


def _np():
    import numpy
    return numpy


class _Scalar:
    """What the scalar types share: arrays by slicing, casts of Python values."""

    def __getitem__(self, index):
        ndim, layout = _array_spec(index)
        return Array(self, ndim, layout)

    def cast_python_value(self, value):
        return getattr(_np(), self.name)(value)


class Integer(_Scalar, Number):
    """int8..int64, uint8..uint64."""

    def __new__(cls, name):
        def init(t):
            t.name = name
            t.signed = not name.startswith("u")
            t.bitwidth = int(name[3 if t.signed else 4:])
        return cls._intern(name, init)

    def _reduce(self):
        return (Integer, (self.name,))


class Float(_Scalar, Number):
    """float16, float32, float64, and bfloat16 (numba-cuda's; its NumPy dtype is ml_dtypes.bfloat16)."""

    def __new__(cls, name):
        def init(t):
            t.name = name
            t.bitwidth = int(name[-2:])
        return cls._intern(name, init)

    def cast_python_value(self, value):
        return _bfloat16_dtype().type(value) if self.name == "bfloat16" else getattr(_np(), self.name)(value)

    def _reduce(self):
        return (Float, (self.name,))


class Complex(_Scalar, Number):
    """complex64, complex128: two floats (underlying_float) as NumPy lays them out."""

    def __new__(cls, name):
        def init(t):
            t.name = name
            t.bitwidth = int(name[7:])
        return cls._intern(name, init)

    @property
    def underlying_float(self):
        return float32 if self.bitwidth == 64 else float64

    def _reduce(self):
        return (Complex, (self.name,))


class Boolean(_Scalar, Type):
    """boolean (Numba's name for it, and its spelling, is "bool")."""

    def __new__(cls, name="bool"):
        def init(t):
            t.name = name
            t.bitwidth = 8
        return cls._intern(name, init)

    def cast_python_value(self, value):
        return not not value

    def _reduce(self):
        return (Boolean, (self.name,))


class NoneType(Type):
    """none, also called void: the return type of kernels."""

    def __new__(cls, name="none"):
        def init(t):
            t.name = name
        return cls._intern(name, init)

    def _reduce(self):
        return (NoneType, (self.name,))


class _NPDatetimeBase(_Scalar, Type):
    """NPDatetime(unit) and NPTimedelta(unit): NumPy's datetime64 and timedelta64 of a unit ('D', 's', ... or ''
    for the generic unit), 64-bit values whose minimum is NaT. str() is the signature spelling: datetime64[D],
    and NPTimedelta('') / NPDatetime('as') for the units that are no Python name (Numba's names: timedelta64[],
    datetime64[as])."""

    def __new__(cls, unit=""):
        if unit not in _TIME_UNITS:
            raise ValueError("kfront: %r is not a unit of %s (Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as or '')" %
                             (unit, cls.type_name))

        def init(t):
            t.unit, t.bitwidth = unit, 64
            t.name = ("%s('%s')" % (cls.__name__, unit) if unit in ("", "as") else
                      "%s[%s]" % (cls.type_name, unit))
        return cls._intern(unit, init)

    def cast_python_value(self, value):
        cls = getattr(_np(), self.type_name)
        return cls(value, self.unit) if self.unit else cls(value)

    def _reduce(self):
        return (type(self), (self.unit,))


class NPDatetime(_NPDatetimeBase):
    type_name = "datetime64"


class NPTimedelta(_NPDatetimeBase):
    type_name = "timedelta64"


_TIME_UNITS = ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "")


def _is_scalar(t):
    return isinstance(t, (Integer, Float, Complex, Boolean, _NPDatetimeBase))


def _array_dims(ndim, layout):
    if ndim == 0:  # a 0-d array (numba's array(float64, 0d, C)): kfront spells it float64[()]
        return "[()]"
    dims = []
    for i in range(ndim):
        unit = (layout == "C" and i == ndim - 1) or (layout == "F" and i == 0)
        dims.append("::1" if unit else ":")
    return "[" + ", ".join(dims) + "]"


# ---- bytes and str items (NumPy's S and U dtypes) -------------------------------------------------------------


class _CharSeqBase(Type):
    """CharSeq(count) and UnicodeCharSeq(count): an item of a NumPy bytes (S) or str (U, UCS-4) array or record field
    of count characters, as Numba names them: [char x 12], [unichr x 12]. Slicing makes an array type."""
    _word, _kind = "", ""

    def __new__(cls, count):
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError("kfront: %s needs a count of 1 or more characters, not %r" % (cls.__name__, count))

        def init(t):
            t.count = count
            t.name = "[%s x %d]" % (cls._word, count)
        return cls._intern(count, init)

    @property
    def key(self):
        return self.count

    def __getitem__(self, index):
        ndim, layout = _array_spec(index)
        return Array(self, ndim, layout)

    @property
    def dtype(self):
        return as_dtype(self)

    def _reduce(self):
        return (type(self), (self.count,))


class CharSeq(_CharSeqBase):
    """A NumPy bytes item (dtype S<count>), Numba's CharSeq."""
    _word, _kind = "char", "S"


class UnicodeCharSeq(_CharSeqBase):
    """A NumPy str item (dtype U<count>), Numba's UnicodeCharSeq."""
    _word, _kind = "unichr", "U"

    def __repr__(self):
        return "UnicodeCharSeq(%d)" % self.count


# ---- records (NumPy structured dtypes) -------------------------------------------------------------


class NestedArray(Type):
    """The type of a record field that is an array of fixed shape (NumPy's subarray, ('v', np.float32, (3,))):
    nestedarray(float32, (3,)), as Numba spells it."""

    def __new__(cls, dtype, shape):
        shape = tuple(int(n) for n in shape)

        def init(t):
            t.dtype, t.shape, t.ndim = dtype, shape, len(shape)
            t.name = "nestedarray(%s, %s)" % (dtype, shape)
        return cls._intern((dtype, shape), init)

    @property
    def key(self):
        return (self.dtype, self.shape)

    def _reduce(self):
        return (NestedArray, (self.dtype, self.shape))


class Record(Type):
    """A record type (a NumPy structured dtype): Record(fields, size, aligned) with fields a list of (name, type,
    offset) — each type a scalar, a Record or a NestedArray — the itemsize, and whether NumPy laid it out with
    align=True. str() is Numba's spelling, which kfront's signatures, C API and kernel signatures share:
    Record(x[type=float32;offset=0],y[type=int64;offset=8];16;True). Slicing makes an array type (rec[:])."""

    def __new__(cls, fields, size, aligned):
        # (name, type, offset[, title]); a titled NumPy field is two entries, by its name and by its title, as Numba's
        fields = tuple(sorted(((str(f[0]), f[1], int(f[2]), None if len(f) < 4 or f[3] is None else str(f[3]))
                              for f in fields), key=lambda f: (f[2], f[0])))

        def init(t):
            t.fields = {n: (ft, o) for n, ft, o, _ in fields}
            t.titles = {n: title for n, _, _, title in fields if title is not None}
            t.members = [(n, ft) for n, ft, o, _ in fields]
            t.size, t.aligned = int(size), bool(aligned)
            t.bitwidth = 8 * t.size
            t.name = "Record(%s;%d;%s)" % (",".join("%s[type=%s;offset=%d%s]" % (n, ft, o, "" if title is None else
                                                                                 ";title=%s" % title)
                                                    for n, ft, o, title in fields), t.size, t.aligned)
        return cls._intern((fields, int(size), bool(aligned)), init)

    @property
    def key(self):
        return self.name

    def offset(self, name):
        return self.fields[name][1]

    def typeof(self, name):
        return self.fields[name][0]

    def __len__(self):
        return len(self.fields)

    def __getitem__(self, index):
        ndim, layout = _array_spec(index)
        return Array(self, ndim, layout)

    @property
    def dtype(self):
        return as_dtype(self)

    def _reduce(self):
        return (Record, ([(n, ft, o, self.titles.get(n)) for n, (ft, o) in self.fields.items()], self.size,
                         self.aligned))


def _record_field_type(dt):
    if dt.subdtype is not None:
        base, shape = dt.subdtype
        return NestedArray(_element_type(base), shape)
    return _element_type(dt)


def _element_type(dt):
    if dt.fields is not None:
        return _record_of_dtype(dt)
    return from_dtype(dt)


def _record_of_dtype(dt):
    fields = []
    for name, info in dt.fields.items():  # a titled field is here by its name and by its title, as in Numba's
        title = info[2] if len(info) > 2 else None
        if not isinstance(name, str) or not name.isidentifier():
            raise errors.UnsupportedError("kfront: record field names%s must be identifiers, not %r" %
                                          (" and titles" if title is not None else "", name))
        fields.append((name, _record_field_type(info[0]), info[1], title))
    if not fields:
        raise errors.UnsupportedError("kfront: a record dtype needs at least one field")
    return Record(fields, dt.itemsize, dt.isalignedstruct)


def _dtype_of_element(t):
    if isinstance(t, (Record, _CharSeqBase)):
        return as_dtype(t)
    if isinstance(t, NestedArray):
        return _np().dtype((_dtype_of_element(t.dtype), t.shape))
    return _np().dtype(t.name)


def record_spelling(dtype):
    """Numba's spelling of a structured dtype's Record type (what kfront's C layer takes as a record dtype)."""
    return _record_of_dtype(dtype).name


def dtype_typestr(dtype):
    """What kfront's C layer takes as an array's element type: NumPy's typestr, a record's spelling."""
    return record_spelling(dtype) if dtype.fields is not None else "bfloat16" if _is_bfloat16_dtype(dtype) else dtype.str


class Array(Type):
    """An array type: Array(dtype, ndim, layout, readonly=False). dtype is the element's Numba type, ndim
    >= 0, layout 'C', 'F' or 'A' (any strides; a 0-d array is C). str() is the slice spelling: float32[:, ::1],
    float32[()] for a 0-d array; a readonly array's is its constructor's, Array(float32, 2, 'C', readonly=True)."""

    def __new__(cls, dtype, ndim, layout, readonly=False, aligned=True):
        if not _is_scalar(dtype) and not isinstance(dtype, (Record, _CharSeqBase)):
            raise TypeError("kfront: array elements must be scalar, record, bytes or str types, not %r" % (dtype,))
        if isinstance(ndim, bool) or not isinstance(ndim, int) or ndim < 0:
            raise ValueError("kfront: an array type needs 0 or more dimensions, not %r" % (ndim,))
        if ndim == 0:
            layout = "C"  # (numba's 0-d arrays are C)
        if layout not in ("C", "F", "A"):
            raise ValueError("kfront: an array's layout is 'C', 'F' or 'A', not %r" % (layout,))
        mutable = not readonly
        aligned = not not aligned

        def init(t):
            t.dtype, t.ndim, t.layout, t.mutable, t.aligned = dtype, ndim, layout, mutable, aligned
            text = str(dtype) + _array_dims(ndim, layout)
            t._text = text if mutable else "Array(%s, %d, '%s', readonly=True)" % (dtype, ndim, layout)
            t.name = ("" if mutable else "readonly ") + ("" if aligned else "unaligned ") + text
        return cls._intern((dtype, ndim, layout, mutable, aligned), init)

    @property
    def key(self):
        return (self.dtype, self.ndim, self.layout, self.mutable, self.aligned)

    @property
    def readonly(self):
        return not self.mutable

    @property
    def is_c_contig(self):
        return self.layout == "C" or (self.ndim == 1 and self.layout in "CF")

    @property
    def is_f_contig(self):
        return self.layout == "F" or (self.ndim == 1 and self.layout in "CF")

    @property
    def is_contig(self):
        return self.layout in "CF"

    def copy(self, dtype=None, ndim=None, layout=None, readonly=None):
        return Array(self.dtype if dtype is None else dtype, self.ndim if ndim is None else ndim,
                     self.layout if layout is None else layout,
                     self.readonly if readonly is None else readonly, self.aligned)

    def __str__(self):
        return self._text

    def _reduce(self):
        return (Array, (self.dtype, self.ndim, self.layout, self.readonly, self.aligned))


class BaseTuple(Type):
    """UniTuple and Tuple: `types` holds the element types."""

    def __len__(self):
        return len(self.types)

    def __iter__(self):
        return iter(self.types)

    def __getitem__(self, i):
        return self.types[i]


def _check_element(t):
    if not isinstance(t, Type) or isinstance(t, NoneType):
        raise TypeError("kfront: a tuple's elements must be types, not %r" % (t,))


class UniTuple(BaseTuple):
    """UniTuple(dtype, count): count elements of one type."""

    def __new__(cls, dtype, count):
        _check_element(dtype)
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError("kfront: a UniTuple's count must be an int >= 0, not %r" % (count,))

        def init(t):
            t.dtype, t.count, t.types = dtype, count, (dtype,) * count
            t.name = "UniTuple(%s, %d)" % (dtype, count)
        return cls._intern((dtype, count), init)

    @property
    def key(self):
        return (self.dtype, self.count)

    def _reduce(self):
        return (UniTuple, (self.dtype, self.count))


class Tuple(BaseTuple):
    """Tuple((t1, t2, ...)): a tuple of element types; one of a single repeated type is a UniTuple."""

    def __new__(cls, types):
        types = tuple(types)
        for t in types:
            _check_element(t)
        if types and all(t == types[0] for t in types):
            return UniTuple(types[0], len(types))

        def init(t):
            t.types = types
            t.count = len(types)
            t.name = "Tuple((%s))" % ", ".join(str(x) for x in types)  # never one element: that is a UniTuple
        return cls._intern(types, init)

    @property
    def key(self):
        return self.types

    def _reduce(self):
        return (Tuple, (self.types,))


class NamedTuple(BaseTuple):
    """NamedTuple(cls, fields, types): the instances of a namedtuple class (collections.namedtuple, typing.NamedTuple),
    numba.types.NamedTuple and NamedUniTuple in one: cls is the class or its name as kfront names it
    ("module.QualName", with "#k" after it for the k-th distinct class of one name), fields its field names, types
    theirs. Two classes are two types, as in Numba. Its str() is what kfront's signatures read:
    NamedTuple("module.QualName", ("x", "y"), (int64, int64))."""

    def __new__(cls, tuple_class, fields, types):
        if isinstance(tuple_class, str):
            name = tuple_class
        else:
            from kfront._source import namedtuple_class
            name = namedtuple_class(tuple_class)[0]
        fields, types = tuple(fields), tuple(types)
        if len(fields) != len(types) or not all(isinstance(f, str) and f for f in fields):
            raise TypeError("kfront: a NamedTuple needs a field name (a str) per element type")
        for t in types:
            _check_element(t)

        def init(t):
            t.class_name, t.fields, t.types, t.count = name, fields, types, len(types)
            one = "," if len(types) == 1 else ""
            t.name = 'NamedTuple("%s", (%s%s), (%s%s))' % (name, ", ".join('"%s"' % f for f in fields), one,
                                                            ", ".join(str(x) for x in types), one)
        return cls._intern((name, fields, types), init)

    @property
    def key(self):
        return (self.class_name, self.fields, self.types)

    def _reduce(self):
        return (NamedTuple, (self.class_name, self.fields, self.types))


class EnumMember(Type):
    """EnumMember(cls, dtype): the type of an enum class's members, numba.types.EnumMember (IntEnumMember: of
    an IntEnum's or IntFlag's, which convert to integers); cls is the class or its "module.QualName". Its str()
    is what kfront's signatures read: EnumMember("module.QualName", int64)."""

    _kind = "EnumMember"

    def __new__(cls, enum_class, dtype):
        name = enum_class if isinstance(enum_class, str) else "%s.%s" % (enum_class.__module__,
                                                                         enum_class.__qualname__)
        if not isinstance(dtype, (Integer, Float, Boolean)) or (cls._kind == "IntEnumMember" and
                                                               not isinstance(dtype, Integer)):
            raise TypeError("kfront: an enum's members must be numbers or booleans (IntEnum: integers), not %r" %
                            (dtype,))

        def init(t):
            t.class_name, t.dtype = name, dtype
            t.name = '%s("%s", %s)' % (cls._kind, name, dtype)
        return cls._intern((name, dtype), init)

    @property
    def key(self):
        return (self.class_name, self.dtype)

    def _reduce(self):
        return (type(self), (self.class_name, self.dtype))


class IntEnumMember(EnumMember):
    """numba.types.IntEnumMember: see EnumMember."""

    _kind = "IntEnumMember"


class CPointer(Type):
    """numba.types.CPointer(dtype): a C pointer to dtype, spelt "int32*" as numba spells it (a signature's text may
    spell it so too). Kernels and device functions take and pass pointers to numbers (p[i] reads and writes the
    element i past the one it points to; a launch passes an integer address); any other pointer (to a record, in an
    address space of its own) is an UnsupportedError when its signature is compiled."""

    def __new__(cls, dtype, addrspace=None):
        if not isinstance(dtype, Type):
            raise TypeError("kfront: CPointer needs a type, not %r" % (dtype,))

        def init(t):
            t.dtype, t.addrspace = dtype, addrspace
            t.name = "%s*" % dtype if addrspace is None else "%s addrspace(%d)*" % (dtype, addrspace)
        return cls._intern((dtype, addrspace), init)

    @property
    def key(self):
        return (self.dtype, self.addrspace)

    def _reduce(self):
        return (CPointer, (self.dtype, self.addrspace))


class Optional(Type):
    """numba.types.Optional(type) (numba.types.optional): a value of `type` or None, what Numba types a variable or a
    device function's result that is None on some paths as (OptionalType(int64)). Signatures may declare it
    ("optional(int64)(int64)"); the C signature parser reads its name."""

    def __new__(cls, type):
        if isinstance(type, Optional):
            return type
        if not isinstance(type, Type) or isinstance(type, NoneType):
            raise TypeError("kfront: Optional needs a type other than none, not %r" % (type,))

        def init(t):
            t.type = type
            t.name = "OptionalType(%s)" % type
        return cls._intern(type, init)

    @property
    def key(self):
        return self.type

    def _reduce(self):
        return (Optional, (self.type,))


optional = Optional


class Dispatcher(Type):
    """numba's Dispatcher type, as the typing function of an overload sees a function passed to the overloaded one (a
    @cuda.jit function, an inner def or lambda): each function its own type, named by the function (kfront compiles
    the call of it, not a pointer to it)."""

    def __new__(cls, name):
        def init(t):
            t.function_name = name
            t.name = "Dispatcher(%s)" % name
        return cls._intern(name, init)

    @property
    def key(self):
        return self.function_name

    def _reduce(self):
        return (Dispatcher, (self.function_name,))


class Opaque(Type):
    """numba's Opaque type: a value an overload's typing function sees with no type kfront spells for it (a record,
    a CUDA vector, a slice object); named by what it is."""

    def __new__(cls, name):
        def init(t):
            t.name = name
        return cls._intern(name, init)

    def _reduce(self):
        return (Opaque, (self.name,))


class RawPointer(Opaque):
    """numba's RawPointer: an untyped pointer, voidptr ("void*") the one numba names. kfront names it (FFI
    declarations use it) but compiles no untyped pointer: a signature with one is an UnsupportedError."""

    def _reduce(self):
        return (RawPointer, (self.name,))


voidptr = RawPointer("void*")


class Signature:
    """A function's signature: `return_type` (None when only argument types were given, as for
    @guvectorize) and `args`, a tuple of types. str() is "void(float32[:], int64)", or
    "(float32[:], float32[:])" without return type."""

    __slots__ = ("return_type", "args")

    def __init__(self, return_type, args):
        args = tuple(args)
        if return_type is not None and not isinstance(return_type, Type):
            raise TypeError("kfront: a signature's return type must be a type, not %r" % (return_type,))
        for a in args:
            if not isinstance(a, Type):
                raise TypeError("kfront: a signature's arguments must be types, not %r" % (a,))
            if isinstance(a, NoneType):
                raise TypeError("kfront: an argument cannot be of type none")
        object.__setattr__(self, "return_type", return_type)
        object.__setattr__(self, "args", args)

    def __setattr__(self, name, value):
        raise AttributeError("kfront: signatures are immutable")

    recvr = None
    pysig = None

    def __eq__(self, other):
        return isinstance(other, Signature) and self.args == other.args and self.return_type == other.return_type

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((self.args, self.return_type))

    def __str__(self):
        args = ", ".join(str(a) for a in self.args)
        if self.return_type is None:
            return "(%s,)" % args if len(self.args) == 1 else "(%s)" % args
        ret = "void" if isinstance(self.return_type, NoneType) else str(self.return_type)
        return "%s(%s)" % (ret, args)

    def __repr__(self):
        return str(self)

    def __reduce__(self):
        return (Signature, (self.return_type, self.args))


def signature(return_type, *args):
    """numba.core.typing.signature: Signature(return_type, args)."""
    return Signature(return_type, args)


# ---- the names ------------------------------------------------------------------------------------

boolean = bool_ = b1 = Boolean("bool")
int8 = i1 = Integer("int8")
int16 = i2 = Integer("int16")
int32 = i4 = Integer("int32")
int64 = i8 = Integer("int64")
uint8 = u1 = byte = Integer("uint8")
uint16 = u2 = Integer("uint16")
uint32 = u4 = Integer("uint32")
uint64 = u8 = Integer("uint64")
float16 = f2 = Float("float16")
bfloat16 = Float("bfloat16")
float32 = f4 = Float("float32")
float64 = f8 = double = Float("float64")
complex64 = c8 = Complex("complex64")
complex128 = c16 = Complex("complex128")
none = void = NoneType("none")

_SIGNED = {1: int8, 2: int16, 4: int32, 8: int64}
_UNSIGNED = {1: uint8, 2: uint16, 4: uint32, 8: uint64}
intp, uintp = _SIGNED[struct.calcsize("P")], _UNSIGNED[struct.calcsize("P")]
intc, uintc = _SIGNED[struct.calcsize("i")], _UNSIGNED[struct.calcsize("I")]
ssize_t, size_t = _SIGNED[struct.calcsize("n")], _UNSIGNED[struct.calcsize("N")]
char, uchar = int8, uint8
short, ushort = _SIGNED[struct.calcsize("h")], _UNSIGNED[struct.calcsize("H")]
int_, uint = intp, uintp
long_, ulong = _SIGNED[struct.calcsize("l")], _UNSIGNED[struct.calcsize("L")]
longlong, ulonglong = _SIGNED[struct.calcsize("q")], _UNSIGNED[struct.calcsize("Q")]


def _numpy_major():
    try:
        return int(_np().__version__.split(".")[0])
    except ImportError:
        return 2


def __getattr__(name):
    # numba.types has `bool` with NumPy 2 and `float_` (float32) with NumPy 1 only
    if name == "bool" and _numpy_major() >= 2:
        return boolean
    if name == "float_" and _numpy_major() < 2:
        return float32
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


# numba's sets of number types (numba.types.signed_domain, ...), as numba-cuda 0.30's numba.cuda.types has them
signed_domain = frozenset([int8, int16, int32, int64])
unsigned_domain = frozenset([uint8, uint16, uint32, uint64])
integer_domain = signed_domain | unsigned_domain
real_domain = frozenset([float32, float64])
complex_domain = frozenset([complex64, complex128])
number_domain = real_domain | integer_domain | complex_domain

# numba-cuda 0.30's numba.cuda.types.__all__, the type names numba.cuda re-exports (`from numba.cuda import float32`),
# less the types kfront does not have (deferred_type, ffi, ffi_forced_object, Dim3, dim3, GridGroup,
# grid_group)
CUDA_TYPE_NAMES = (
    "b1", "bfloat16", "bool", "bool_", "boolean", "byte", "c16", "c8", "char", "complex128", "complex64", "double",
    "f4", "f8", "float32", "float64", "i1", "i2", "i4", "i8", "int16", "int32", "int64", "int8", "int_", "intc",
    "intp", "long_", "longlong", "none", "optional", "short", "size_t", "ssize_t", "u1", "u2", "u4", "u8", "uchar", "uint",
    "uint16", "uint32", "uint64", "uint8", "uintc", "uintp", "ulong", "ulonglong", "ushort", "void")

# ---- array specs ----------------------------------------------------------------------------------


def _array_spec(index):
    """(ndim, layout) of the subscript of a scalar type: ':' per dimension, '::1' on the first (F) or
    last (C) one; float32[::1] is C."""
    items = index if isinstance(index, tuple) else (index,)
    if not items:  # float32[()]: a 0-d array
        return 0, "C"
    unit = -1
    for i, s in enumerate(items):
        if not isinstance(s, slice) or s.start is not None or s.stop is not None or s.step not in (None, 1):
            raise TypeError("kfront: array types are written with ':' or '::1' per dimension "
                            "(float32[:], float32[:, ::1]), not %r" % (s,))
        if s.step == 1:
            if unit >= 0:
                raise TypeError("kfront: only one dimension of an array type may be '::1'")
            unit = i
    n = len(items)
    if unit < 0:
        return n, "A"
    if unit == n - 1:
        return n, "C"
    if unit == 0:
        return n, "F"
    raise TypeError("kfront: '::1' must be the first (F order) or last (C order) dimension of an array type")


# ---- signatures -----------------------------------------------------------------------------------
# A signature's text is read by kfront's C frontend, the one grammar of Numba's signature syntax
# (kfront._kfront.parse_signature: kfront.h's kf_signature_parse), which gives it as a tree of tuples; _from_tree
# makes its types. The result types of compiled functions come in the same form (compile(emit="result")).


def _from_tree(node):
    """The type of a type tree's node: ("scalar", "float32"), ("array", dtype, ndim, layout, readonly), ... (kfront.h
    lists the forms)."""
    tag = node[0]
    if tag == "none":
        return none
    if tag == "scalar":
        return _SCALARS_BY_NAME[node[1]]
    if tag == "datetime64":
        return NPDatetime(node[1])
    if tag == "timedelta64":
        return NPTimedelta(node[1])
    if tag == "charseq":
        return CharSeq(node[1])
    if tag == "unicharseq":
        return UnicodeCharSeq(node[1])
    if tag == "array":
        return Array(_from_tree(node[1]), node[2], node[3], readonly=node[4])
    if tag == "tuple":
        return Tuple([_from_tree(e) for e in node[1]])
    if tag == "namedtuple":
        return NamedTuple(node[1], node[2], [_from_tree(e) for e in node[3]])
    if tag == "record":
        return Record([(name, _from_tree(ft), offset, title) for name, ft, offset, title in node[1]], node[2], node[3])
    if tag == "nestedarray":
        return NestedArray(_from_tree(node[1]), node[2])
    if tag == "pointer":
        return CPointer(_from_tree(node[1]))
    if tag == "optional":
        return Optional(_from_tree(node[1]))
    if tag == "enum":
        if node[4]:
            raise TypeError("kfront: kfront.types has no EnumMember of an enum of tuples or strings (%s)" % node[1])
        return (IntEnumMember if node[2] else EnumMember)(node[1], _from_tree(node[3]))
    raise ValueError("kfront: unknown type tree node %r" % (node,))


_SCALARS_BY_NAME = {str(t): t for t in (boolean, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16,
                                         bfloat16, float32, float64, complex64, complex128)}


def _ext():
    from kfront import _kfront
    return _kfront


@functools.lru_cache(maxsize=1024)
def _parse_text(text):
    """(argument types, return type or None) of a signature's text, read by kfront's C signature parser. TypeError
    for text that is no signature, errors.UnsupportedError for a type numba has and kfront does not compile."""
    try:
        tree = _ext().parse_signature(text)
    except Exception as e:  # the C parser's error: its kind, message and column
        kind, message, col = getattr(e, "kind", None), getattr(e, "message", None), getattr(e, "col", 0)
        if message is None:
            raise
        where = "\n    %s\n    %s^" % (text, " " * (col - 1)) if col and "\n" not in text else ""
        if kind == errors.KIND_UNSUPPORTED:
            raise errors.UnsupportedError("kfront: %s" % message) from None  # numba's type, not kfront's: as before
        detail = "it does not parse (%s)" % message if kind == errors.KIND_SYNTAX else message
        raise TypeError("kfront: invalid signature %r: %s%s" % (text, detail, where)) from None
    _, ret, args = tree
    return tuple(_from_tree(a) for a in args), None if ret is None else _from_tree(ret)


def parse_signature(sig):
    """(argument types, return type) of a signature given as a string ("void(float32[:], int64)",
    "(float32[:, :], float32[:, :])"), a Signature, or a tuple of argument types. The return type is
    None when only argument types are given. TypeError for anything else, with the reason (errors.UnsupportedError
    for text naming a type numba has and kfront does not compile: a pointer to what is not a number, voidptr). Text is
    read by kfront's C signature parser, the compiler's own. numba's own signature objects and types (beside a real
    numba: kfront._numba_interop) are taken as kfront's."""
    if not isinstance(sig, (Signature, str)) and "numba" in sys.modules:
        from kfront import _numba_interop
        foreign = _numba_interop.foreign_type(sig)
        if foreign is not None:
            sig = foreign
        elif isinstance(sig, tuple):
            sig = tuple(_numba_interop.foreign_type(a) or a for a in sig)
    if isinstance(sig, Signature):
        return sig.args, sig.return_type
    if isinstance(sig, tuple):
        if not all(isinstance(a, Type) for a in sig):
            raise TypeError("kfront: a signature tuple must hold argument types, not %r" % (sig,))
        return Signature(None, sig).args, None
    if not isinstance(sig, str):
        raise TypeError("kfront: expected a signature such as 'void(float32[:], int64)', a signature object or a "
                        "tuple of argument types, not %r" % (sig,))
    return _parse_text(sig.strip())


def normalize_signature(sig):
    """The canonical text of a signature (see parse_signature for what it takes): "void(float32[:], int64)",
    "float32(float32, float32)", "(float32[:, :], float32[:, :])"; the text kfront's signature parser
    reads, with every type under its Numba name (double -> float64, boolean -> bool, f4[::1] ->
    float32[::1]) and void for a none return type."""
    args, ret = parse_signature(sig)
    pointer = next((t for t in (ret,) + tuple(args) if _unsupported_pointer(t)), None)
    if pointer is not None:
        raise errors.UnsupportedError("kfront: pointer types (%s) are not supported in signatures: kernels and "
                                      "device functions take pointers to numbers (CPointer(float32), float32*) and "
                                      "arrays" % pointer)
    return str(Signature(ret, args))


def _unsupported_pointer(t):
    """Whether t is a pointer kfront compiles no parameter or result of: an untyped one (voidptr), one in an address
    space of its own, one to anything but a number (numba-cuda's CPointer(float32) is supported)."""
    if isinstance(t, RawPointer):
        return True
    if not isinstance(t, CPointer):
        return False
    return t.addrspace is not None or not isinstance(t.dtype, (Boolean, Integer, Float))


def return_type(sig):
    """The return type of a signature (see parse_signature): a type, none for void, or None when only
    argument types were given."""
    return parse_signature(sig)[1]


# ---- NumPy dtypes ---------------------------------------------------------------------------------

_BY_KIND = {("b", 1): boolean, ("i", 1): int8, ("i", 2): int16, ("i", 4): int32, ("i", 8): int64,
            ("u", 1): uint8, ("u", 2): uint16, ("u", 4): uint32, ("u", 8): uint64,
            ("f", 2): float16, ("f", 4): float32, ("f", 8): float64, ("c", 8): complex64, ("c", 16): complex128}

_SUPPORTED = ("bool, int8..int64, uint8..uint64, float16, float32, float64, complex64, complex128, datetime64, "
              "timedelta64, bytes (S) and str (U), and records of them")


def _is_bfloat16_dtype(dt):
    """ml_dtypes.bfloat16's dtype (told by its scalar type, so that ml_dtypes need not be importable)"""
    return getattr(dt.type, "__module__", None) == "ml_dtypes" and dt.type.__name__ == "bfloat16"


def _bfloat16_dtype():
    """NumPy's dtype for bfloat16: ml_dtypes', which numba-cuda also takes (an UnsupportedError without it)"""
    try:
        import ml_dtypes
    except ImportError:
        raise errors.UnsupportedError("kfront: bfloat16 arrays on the host need ml_dtypes (pip install ml_dtypes), "
                                      "whose bfloat16 dtype numba-cuda takes too") from None
    return _np().dtype(ml_dtypes.bfloat16)


def from_dtype(dtype):
    """The Numba type of a NumPy dtype (or of anything numpy.dtype() takes: numpy.float32, 'f4'): a scalar type, or
    for a structured dtype its Record. UnsupportedError for dtypes kfront has no type for (complex, strings,
    non-native byte order, records with such fields or with field names or titles that are not identifiers)."""
    np = _np()
    dt = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
    if dt.fields is not None:
        return _record_of_dtype(dt)
    if _is_bfloat16_dtype(dt):
        return bfloat16
    if dt.kind in "Mm":  # datetime64 / timedelta64 of a unit (multiples of units are not Numba types)
        unit, count = np.datetime_data(dt)
        if count != 1 or not dt.isnative:
            raise errors.UnsupportedError("kfront: dtype %s is not supported (%s)" % (
                dt, "non-native byte order" if count == 1 else "Numba has no types for multiples of a unit"))
        return (NPDatetime if dt.kind == "M" else NPTimedelta)("" if unit == "generic" else unit)
    if dt.kind in "SU" and dt.itemsize:  # bytes / str items (numba's CharSeq / UnicodeCharSeq; S0 has no type)
        if not dt.isnative:
            raise errors.UnsupportedError("kfront: dtype %s is not supported (non-native byte order)" % (dt.str,))
        return CharSeq(dt.itemsize) if dt.kind == "S" else UnicodeCharSeq(dt.itemsize // 4)
    t = _BY_KIND.get((dt.kind, dt.itemsize)) if dt.fields is None else None
    if t is None:
        raise errors.UnsupportedError("kfront: dtype %s is not supported (kfront supports %s)" % (dt, _SUPPORTED))
    if not dt.isnative:
        raise errors.UnsupportedError("kfront: dtype %s is not supported (non-native byte order)" % (dt.str,))
    return t


def as_dtype(t):
    """The NumPy dtype of a scalar or record type."""
    if isinstance(t, Record):
        names = [n for n, _ in t.members if t.titles.get(n) != n]  # a title's own entry comes with its field
        return _np().dtype({"names": names, "formats": [_dtype_of_element(t.fields[n][0]) for n in names],
                            "offsets": [t.fields[n][1] for n in names], "titles": [t.titles.get(n) for n in names],
                            "itemsize": t.size, "aligned": t.aligned})
    if isinstance(t, _CharSeqBase):
        return _np().dtype("%s%d" % (t._kind, t.count))
    if not _is_scalar(t):
        raise TypeError("kfront: %r has no NumPy dtype (only scalar types have one)" % (t,))
    if isinstance(t, _NPDatetimeBase):
        return _np().dtype("%s8%s" % ("M" if isinstance(t, NPDatetime) else "m", "[%s]" % t.unit if t.unit else ""))
    return _bfloat16_dtype() if t is bfloat16 else _np().dtype(t.name)


# typestrs of __cuda_array_interface__ in this machine's byte order
_ORDER = "<" if sys.byteorder == "little" else ">"
_TYPESTRS = {}
for (_kind, _size), _t in _BY_KIND.items():
    for _o in ("|", "=", _ORDER) if _size == 1 else ("=", _ORDER):
        _TYPESTRS["%s%s%d" % (_o, _kind, _size)] = _t


def _from_typestr(typestr):
    t = _TYPESTRS.get(typestr)
    return t if t is not None else from_dtype(typestr)


# ---- typeof ---------------------------------------------------------------------------------------


def _layout(shape, strides, itemsize):
    """'C', 'F' or 'A' of an array's shape and byte strides (None: C-contiguous), as NumPy's flags say
    (extents of 1 do not matter; empty arrays are both) and kfront's runtime decides."""
    if strides is None:
        return "C"

    def contiguous(order):
        want = itemsize
        dims = range(len(shape)) if order == "F" else range(len(shape) - 1, -1, -1)
        for d in dims:
            if shape[d] == 1:
                continue
            if strides[d] != want:
                return False
            want *= shape[d]
        return True

    for n in shape:
        if n == 0:
            return "C"
    return "C" if contiguous("C") else "F" if contiguous("F") else "A"


def _typeof_int(value):
    if -(1 << 63) <= value < (1 << 63):
        return int64
    if 0 <= value < (1 << 64):
        return uint64
    raise ValueError("kfront: the integer %d does not fit in int64 or uint64" % value)


def _typeof_cai(cai, owner=None):
    if cai.get("mask") is not None:
        raise errors.UnsupportedError("kfront: masked arrays (__cuda_array_interface__ with a mask) are not supported")
    shape = tuple(cai["shape"])
    owner_dtype = getattr(owner, "dtype", None)
    if cai["typestr"].startswith("|V") and getattr(owner_dtype, "fields", None) is not None:
        dtype = from_dtype(owner_dtype)  # a structured dtype (numba-cuda's arrays give no descr): the owner's record
    else:
        dtype = _from_typestr(cai["typestr"])
    if not shape:  # a 0-d device array: array(dtype, 0d, C)
        return Array(dtype, 0, "C", readonly=not not cai["data"][1])
    strides = cai.get("strides")
    layout = _layout(shape, strides, dtype.bitwidth // 8)
    readonly = not not cai["data"][1]
    return Array(dtype, len(shape), layout, readonly=readonly)


def _typeof_ndarray(arr):
    flags = arr.flags
    layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
    return Array(from_dtype(arr.dtype), arr.ndim, layout, readonly=not flags.writeable)


_PY_SCALARS = {bool: boolean, float: float64, complex: complex128}


def typeof(value, purpose=None):
    """The Numba type of a kernel argument, as numba.typeof gives it for the arguments kfront takes:
    bool -> boolean, int -> int64 (uint64 beyond), float -> float64, NumPy scalars their dtype's type,
    NumPy arrays Array(dtype, ndim, layout, readonly=not writeable) with layout C, F or A as NumPy's flags
    say, objects with __cuda_array_interface__ likewise from its typestr, shape, strides and read-only
    flag, objects with a _numba_type_ that type, tuples UniTuple or Tuple of their elements' types (a namedtuple
    NamedTuple of its class).
    UnsupportedError for values Numba types but kfront does not take (complex, None, other dtypes);
    ValueError for the rest. `purpose` is
    accepted for numba.typeof's signature and ignored."""
    cls = type(value)
    t = _PY_SCALARS.get(cls)
    if t is not None:
        return t
    if cls is int:
        return _typeof_int(value)
    try:
        nt = getattr(value, "_numba_type_", None)
    except Exception:
        nt = None
    if isinstance(nt, Type):
        return nt
    np = sys.modules.get("numpy")  # a NumPy value means NumPy is loaded
    if np is not None:
        if isinstance(value, np.ndarray):
            return _typeof_ndarray(value)
        if isinstance(value, np.generic):
            return from_dtype(value.dtype)  # a record (np.void, np.record): its Record type
    try:
        cai = getattr(value, "__cuda_array_interface__", None)
    except Exception:
        cai = None
    if cai is not None:
        return _typeof_cai(cai, value)
    from kfront._source import is_enum_member
    if is_enum_member(value):  # an enum member (cuda.bindings' FastEnum too): its class's member type
        if isinstance(value, int):
            return IntEnumMember(cls, int64)
        from kfront._source import enum_dtype
        return EnumMember(cls, enum_dtype(cls))
    if isinstance(value, bool):
        return boolean
    if isinstance(value, int):
        return _typeof_int(int(value))
    if isinstance(value, float):
        return float64
    if isinstance(value, complex):
        return complex128
    if isinstance(value, tuple):
        from kfront._source import is_namedtuple_class
        if is_namedtuple_class(cls):  # Numba's NamedTuple / NamedUniTuple of its class
            return NamedTuple(cls, cls._fields, tuple(typeof(v) for v in value))
        return Tuple(tuple(typeof(v) for v in value))  # UniTuple when every element has one type, as in Numba
    if value is None:
        raise errors.UnsupportedError("kfront: None cannot be a kernel argument")
    raise ValueError("kfront: cannot determine the Numba type of %r (kernels take arrays, device arrays, numbers and "
                     "NumPy scalars)" % (cls,))
