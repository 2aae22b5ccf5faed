"""kfront.types: Numba's type names, array types by slicing, signatures and their canonical text, dtypes,
typeof of kernel arguments. Where a kfront binary is at hand (KFRONT_BIN, or build/bin/kfront of the
repository) the canonical texts are also fed to its signature parser."""
import os
import pickle
import struct
import subprocess
import sys

import numpy as np
import pytest

from kfront import errors
from kfront import types as t
from kfront.types import (Array, Signature, Tuple, UniTuple, boolean, float16, float32, float64, int8, int16,
                          int32, int64, none, normalize_signature, parse_signature, typeof, uint8, uint16, uint32,
                          uint64, void)

SCALARS = [boolean, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64]


def test_scalar_names_are_numbas():
    assert [str(s) for s in SCALARS] == ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                         "uint64", "float16", "float32", "float64"]
    assert t.bool_ is t.b1 is boolean
    assert t.byte is t.u1 is uint8 and t.uchar is uint8 and t.char is int8
    assert t.double is t.f8 is float64 and t.f4 is float32 and t.f2 is float16
    assert t.i1 is int8 and t.i2 is int16 and t.i4 is int32 and t.i8 is int64
    assert t.u2 is uint16 and t.u4 is uint32 and t.u8 is uint64
    assert void is none and str(void) == "none"
    bits = struct.calcsize("P") * 8
    assert t.intp is (int64 if bits == 64 else int32) and t.uintp is (uint64 if bits == 64 else uint32)
    assert t.intc.bitwidth == 8 * struct.calcsize("i") and t.longlong is int64 and t.ulonglong is uint64
    assert t.short is int16 and t.ushort is uint16
    assert int8.signed and not uint64.signed and uint64.bitwidth == 64 and float16.bitwidth == 16


def test_numpy_version_dependent_names():
    major = int(np.__version__.split(".")[0])
    if major >= 2:
        assert t.bool is boolean
        with pytest.raises(AttributeError):
            t.float_
    else:
        assert t.float_ is float32
        with pytest.raises(AttributeError):
            t.bool


def test_arrays_by_slicing():
    a = float32[:]
    assert isinstance(a, Array) and (a.dtype, a.ndim, a.layout) == (float32, 1, "A") and not a.readonly
    assert str(a) == "float32[:]"
    assert (float32[::1].layout, str(float32[::1])) == ("C", "float32[::1]")
    assert (float32[:, ::1].layout, str(float32[:, ::1])) == ("C", "float32[:, ::1]")
    assert (float32[::1, :].layout, str(float32[::1, :])) == ("F", "float32[::1, :]")
    assert (float32[:, :].layout, str(float32[:, :])) == ("A", "float32[:, :]")
    assert str(int64[:, :, ::1]) == "int64[:, :, ::1]" and str(boolean[::1, :, :]) == "bool[::1, :, :]"
    assert float32[:, ::1].is_c_contig and float32[::1].is_f_contig and not float32[:].is_contig


def test_arrays_equal_hash_and_intern():
    assert float32[:] == float32[:] and hash(float32[:]) == hash(float32[:])
    assert Array(float32, 2, "C") is float32[:, ::1]
    assert Array(float32, 2, "F") == float32[::1, :]
    assert float32[:] != float64[:] and float32[:] != float32[::1] and float32[:] != float32[:, :]
    assert len({float32[:], float32[:], Array(float32, 1, "A")}) == 1


def test_readonly_arrays():
    ro = Array(float32, 1, "C", readonly=True)
    assert ro.readonly and not ro.mutable and ro != float32[::1]
    # the slice syntax has no readonly arrays: str() is the constructor, which both signature parsers read back
    assert str(ro) == "Array(float32, 1, 'C', readonly=True)" and repr(ro) == "readonly float32[::1]"
    assert parse_signature(str(void(ro, UniTuple(ro, 2))))[0] == (ro, UniTuple(ro, 2))
    assert ro.copy(readonly=False) is float32[::1] and float32[::1].copy(readonly=True) is ro
    assert Array(float32, 1, "C", True) is ro


@pytest.mark.parametrize("make", [
    lambda: float32[1:], lambda: float32[:5], lambda: float32[::2], lambda: float32[:, ::1, :],
    lambda: float32[::1, ::1], lambda: float32[0], lambda: float32["x"],
])
def test_bad_array_slices(make):
    with pytest.raises(TypeError, match="kfront"):
        make()


def test_bad_array_types():
    with pytest.raises(TypeError):
        Array(float32[:], 1, "C")
    with pytest.raises(ValueError):
        Array(float32, -1, "C")
    with pytest.raises(ValueError):
        Array(float32, 1, "X")
    assert float32[()] is Array(float32, 0, "A") is Array(float32, 0, "C")  # a 0-d array is C, spelt float32[()]
    assert str(float32[()]) == "float32[()]"


def test_signatures_by_calling_types():
    s = void(float32[:], int64)
    assert isinstance(s, Signature) and s.return_type is none and s.args == (float32[:], int64)
    assert str(s) == "void(float32[:], int64)"
    assert str(float32(float32, float32)) == "float32(float32, float32)"
    assert str(void()) == "void()" and str(float32[::1](float32[::1])) == "float32[::1](float32[::1])"
    assert s == void(float32[:], int64) and hash(s) == hash(void(float32[:], int64)) and s != void(float32[:])
    assert t.signature(none, float32[:], int64) == s
    with pytest.raises(TypeError):
        void(none)
    with pytest.raises(AttributeError):
        s.args = ()


def test_casts():
    x = float32(1.5)
    assert type(x) is np.float32 and x == 1.5
    assert type(int16(3)) is np.int16 and boolean(2) is True and boolean(0) is False


def test_tuples():
    assert Tuple((int64, int64)) is UniTuple(int64, 2)
    assert str(UniTuple(int32, 3)) == "UniTuple(int32, 3)" and len(UniTuple(int32, 3)) == 3
    mixed = Tuple((int32, float64))
    assert isinstance(mixed, Tuple) and str(mixed) == "Tuple((int32, float64))" and mixed[1] is float64
    assert str(Tuple(())) == "Tuple(())"


@pytest.mark.parametrize("text,canonical", [
    ("void(float32[:], int64)", "void(float32[:], int64)"),
    ("void(float32[:],int64)", "void(float32[:], int64)"),
    ("  none(f4[::1], double, boolean, b1)", "void(float32[::1], float64, bool, bool)"),
    ("float32(float32, float32)", "float32(float32, float32)"),
    ("void(float32[:, ::1], float32[::1, :], float32[:, :])", "void(float32[:, ::1], float32[::1, :], float32[:, :])"),
    ("void(numba.float32[:], nb.types.int64, np.uint8)", "void(float32[:], int64, uint8)"),
    ("(float32[:, :], float32[:, :])", "(float32[:, :], float32[:, :])"),
    ("(float32[:],)", "(float32[:],)"),
    ("()", "()"),
    ("void(UniTuple(int32, 3), Tuple((int32, float64)), Tuple([int8, int8]))",
     "void(UniTuple(int32, 3), Tuple((int32, float64)), UniTuple(int8, 2))"),
    ("void(Array(float32, 2, 'C'), Array(int8, 1, 'A'))", "void(float32[:, ::1], int8[:])"),
    ("void(half, single, bool, float_)", "void(float16, float32, bool, float32)"),
    ("void(intp)", "void(%s)" % t.intp),
    ("None(int8)", "void(int8)"),
])
def test_normalize_signature_strings(text, canonical):
    assert normalize_signature(text) == canonical


def test_normalize_signature_objects_and_tuples():
    assert normalize_signature(void(float32[:], int64)) == "void(float32[:], int64)"
    assert normalize_signature((float32[:, :], float32[:, :])) == "(float32[:, :], float32[:, :])"
    assert normalize_signature((float32[:],)) == "(float32[:],)"
    assert normalize_signature(()) == "()"
    assert t.parse_signature("float32(int32)") == ((int32,), float32)
    assert t.parse_signature((int32, int64)) == ((int32, int64), None)
    assert t.return_type("void(int32)") is none and t.return_type("int8(int8)") is int8
    assert t.return_type((int8,)) is None


@pytest.mark.parametrize("bad", [
    "void(float33[:])", "void(float32[1:])", "void(float32[::2])", "void(float32[:, ::1, :])", "float32[:]",
    "void(float32[:]", "void(x=float32)", "void(none)", "__import__('os').system('true')", "void(1)",
    "float32[:][:]", "void(float32[:, ::1.0])", "lambda: 0", "(float32, 3)", "void(None)",
])
def test_bad_signature_strings(bad):
    with pytest.raises(TypeError, match="kfront: invalid signature"):
        normalize_signature(bad)


@pytest.mark.parametrize("bad", [float32[:], [float32], 3, None, (float32, "x")])
def test_bad_signature_objects(bad):
    with pytest.raises(TypeError, match="kfront"):
        normalize_signature(bad)


def test_pickle():
    for x in SCALARS + [none, float32[:, ::1], Array(int8, 3, "F", readonly=True), UniTuple(int8, 2),
                        Tuple((int8, float32))]:
        assert pickle.loads(pickle.dumps(x)) is x
    s = void(float32[:], int64)
    assert pickle.loads(pickle.dumps(s)) == s


def test_dtypes_round_trip():
    for s in SCALARS:
        dt = t.as_dtype(s)
        assert isinstance(dt, np.dtype) and t.from_dtype(dt) is s
    assert t.from_dtype(np.float32) is float32 and t.from_dtype("f8") is float64 and t.from_dtype(bool) is boolean
    with pytest.raises(TypeError):
        t.as_dtype(float32[:])


def test_complex_dtypes():
    assert t.from_dtype("c8") is t.complex64 and t.from_dtype(np.complex128) is t.complex128
    assert t.as_dtype(t.complex64) == np.complex64 and t.complex128.underlying_float is t.float64
    assert str(t.complex64[:, ::1]) == "complex64[:, ::1]"


@pytest.mark.parametrize("dt", ["S0", "O", "m8[5s]", ">f4" if sys.byteorder == "little" else "<f4"])
def test_unsupported_dtypes(dt):
    with pytest.raises(errors.UnsupportedError, match="kfront: dtype"):
        t.from_dtype(np.dtype(dt))


def test_typeof_python_and_numpy_scalars():
    assert typeof(True) is boolean and typeof(np.bool_(False)) is boolean
    assert typeof(1) is int64 and typeof(-(2 ** 63)) is int64 and typeof(2 ** 63) is uint64
    assert typeof(1.0) is float64
    for s in SCALARS:
        assert typeof(t.as_dtype(s).type(1)) is s
    with pytest.raises(ValueError):
        typeof(2 ** 64)
    assert typeof(1j) is t.complex128 and typeof(np.complex64(1)) is t.complex64
    assert typeof((1, 2)) == UniTuple(int64, 2) and typeof((1, 2.5)) == Tuple((int64, float64))
    assert typeof((1, (2.5, np.zeros(3, np.float32)))) == Tuple((int64, Tuple((float64, float32[::1]))))
    assert typeof(()) == Tuple(())
    with pytest.raises(ValueError, match="kfront: cannot determine"):
        typeof("text")


def test_typeof_arrays():
    a = np.zeros((3, 4), dtype=np.float32)
    assert typeof(a) is float32[:, ::1]
    assert typeof(np.asfortranarray(a)) is float32[::1, :]
    assert typeof(a[:, ::2]) is float32[:, :]
    assert typeof(np.zeros(5, np.int16)) is int16[::1]
    assert typeof(np.zeros(5)[::2]) is float64[:]
    assert typeof(np.zeros((4, 1), np.uint8)[:, 0]) is uint8[::1]
    ro = np.zeros(3, np.float16)
    ro.flags.writeable = False
    assert typeof(ro) is Array(float16, 1, "C", readonly=True)
    assert typeof(np.broadcast_to(np.zeros(3), (2, 3))) == Array(float64, 2, "A", readonly=True)
    assert typeof(np.zeros(())) is float64[()]  # a 0-d array (numba: array(float64, 0d, C)); np.float64 a scalar
    assert typeof(np.float64(1.0)) is float64
    assert typeof(np.zeros(3, np.complex128)) is t.complex128[::1]


class FakeDeviceArray:
    def __init__(self, shape, typestr, strides=None, readonly=False, mask=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "strides": strides,
                                         "data": (0x1000, readonly), "version": 3, "mask": mask}


def test_typeof_cuda_array_interface():
    f4 = np.dtype(np.float32).str
    assert typeof(FakeDeviceArray((3, 4), f4)) is float32[:, ::1]
    assert typeof(FakeDeviceArray((3, 4), f4, (16, 4))) is float32[:, ::1]
    assert typeof(FakeDeviceArray((3, 4), f4, (4, 12))) is float32[::1, :]
    assert typeof(FakeDeviceArray((3, 4), f4, (32, 4))) is float32[:, :]
    assert typeof(FakeDeviceArray((3, 4), f4, (0, 4))) is float32[:, :]  # broadcast
    assert typeof(FakeDeviceArray((5,), "|b1")) is boolean[::1]
    assert typeof(FakeDeviceArray((5,), "|u1", (2,))) is uint8[:]
    assert typeof(FakeDeviceArray((2, 2), np.dtype(np.int64).str, None, True)) is Array(int64, 2, "C", readonly=True)
    with pytest.raises(errors.UnsupportedError):
        typeof(FakeDeviceArray((2,), f4, mask=object()))
    assert typeof(FakeDeviceArray((), f4)) is float32[()]


def test_typeof_numba_type_attribute():
    class Dev:
        _numba_type_ = float32[:, ::1]
    assert typeof(Dev()) is float32[:, ::1]


def _kfront_binary():
    env = os.environ.get("KFRONT_BIN")
    if env:
        return env
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(root, "build", "bin", "kfront")
    return path if os.path.exists(path) else None


KERNELS = """
from numba import cuda

@cuda.jit
def k2(a, b):
    pass

@cuda.jit
def k1(a):
    pass
"""


@pytest.mark.skipif(_kfront_binary() is None, reason="no kfront binary (set KFRONT_BIN or build the repository)")
@pytest.mark.parametrize("sig,kernel", [
    (void(float32[:, ::1], int64), "k2"), (void(float32[::1, :], boolean), "k2"),
    (void(float16[:, :, :], uint8), "k2"), ((float32[:], float32[::1]), "k2"), ((int8[:],), "k1"),
    (void(Array(float64, 1, "C", readonly=True)), "k1"), ("void(double[:], intp)", "k2"),
    (void(t.CPointer(t.int32), t.CPointer(t.uint8)), "k2"), ("void(float64 *)", "k1"),
])
def test_canonical_text_is_what_kfront_parses(tmp_path, sig, kernel):
    src = tmp_path / "kernels.py"
    src.write_text(KERNELS)
    r = subprocess.run([_kfront_binary(), "check", str(src), "-k", kernel, "--sig", normalize_signature(sig)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def _device_function(source, name):
    scope = {}
    exec(compile(source, "<result-types>", "exec"), scope)
    return scope[name]


def test_result_types_come_from_the_compiled_function():
    """A device function's result type, as the C library reads it from its compiled kir (kf_module_function_result):
    scalars, tuples (a function returning a tuple returns its elements), arrays, Optional (its result_type), none."""
    from kfront import cuda
    cases = [
        ("def f(a, b):\n    return a * b + 1\n", (int32, float32), "float64"),
        ("def f(a, b):\n    return a // 2, b\n", (int16, float32), "Tuple((int64, float32))"),
        ("def f(a):\n    return a, a\n", (int8,), "UniTuple(int8, 2)"),
        ("def f(a):\n    return a[1:]\n", (float32[::1],), "float32[::1]"),
        ("def f(a):\n    a[0] = 1\n", (float32[:],), "none"),
        ("def f(x):\n    if x > 0:\n        return x\n    return None\n", (int64,), "OptionalType(int64)"),
    ]
    for source, args, expected in cases:
        d = cuda.jit(device=True)(_device_function(source, "f"))
        assert str(d.compile_device(args).return_type) == expected, source


def test_parse_signature_asks_the_c_parser():
    """_kfront.parse_signature gives the C parser's tree: nested tuples of str, int, bool and None."""
    from kfront import _kfront
    assert _kfront.parse_signature("void(float32[:], int64)") == (
        "signature", ("none",), (("array", ("scalar", "float32"), 1, "A", False), ("scalar", "int64")))
    assert _kfront.parse_signature("(f8[::1, :],)") == ("signature", None, (("array", ("scalar", "float64"), 2, "F",
                                                                             False),))
    assert _kfront.parse_signature("int8(Array(int8, 1, 'C', readonly=True), CPointer(int32), optional(f4))") == (
        "signature", ("scalar", "int8"), (("array", ("scalar", "int8"), 1, "C", True),
                                          ("pointer", ("scalar", "int32")), ("optional", ("scalar", "float32"))))
    assert _kfront.parse_signature("void(NamedTuple(\"m.P\", (\"x\",), (int64,)), IntEnumMember(\"m.C\", int32))") == (
        "signature", ("none",), (("namedtuple", "m.P", ("x",), (("scalar", "int64"),)),
                                 ("enum", "m.C", True, ("scalar", "int32"), False)))
    with pytest.raises(Exception) as e:
        _kfront.parse_signature("void(float33)")
    assert e.value.kind == errors.KIND_TYPING and e.value.col == 6 and e.value.message == "unknown type 'float33'"


@pytest.mark.parametrize("text, expected", [
    # what only the C parser read before: records, numba's spelling of bytes / str items, complex names
    ("void(Record(x[type=float32;offset=0],y[type=int64;offset=8];16;True)[:])",
     "void(Record(x[type=float32;offset=0],y[type=int64;offset=8];16;True)[:])"),
    ("void([char x 12][::1], [unichr x 3][:])", "void([char x 12][::1], [unichr x 3][:])"),
    ("complex_(csingle, cdouble)", "complex128(complex64, complex128)"),
    # what only the Python parser read before, now read by the C one too
    ("void(CharSeq(4)[:], UnicodeCharSeq(2), float_)", "void([char x 4][:], [unichr x 2], float32)"),
    ("void(NPDatetime(), NPTimedelta('s'), datetime64[D][::1])",
     "void(NPDatetime(''), timedelta64[s], datetime64[D][::1])"),
    ("void(EnumMember(\"m.Color\", int64), Tuple((IntEnumMember(\"m.Flag\", int8), float32)))",
     "void(EnumMember(\"m.Color\", int64), Tuple((IntEnumMember(\"m.Flag\", int8), float32)))"),
    ("void(UniTuple(Array(float32, 1, 'A', readonly=True), 2))", "void(UniTuple(Array(float32, 1, 'A', readonly=True), 2))"),
    ("OptionalType(int64)(int64)", "OptionalType(int64)(int64)"),
])
def test_signature_texts_both_parsers_differed_on(text, expected):
    assert normalize_signature(text) == expected


def test_bad_signature_text_is_located():
    with pytest.raises(TypeError) as e:
        normalize_signature("void(int32, flaot32[:])")
    assert "unknown type 'flaot32'" in str(e.value) and "\n    void(int32, flaot32[:])\n                ^" in str(e.value)
    with pytest.raises(TypeError, match="does not parse"):
        normalize_signature("void(int32")
    with pytest.raises(TypeError, match="CharSeq needs a count of 1 or more"):
        normalize_signature("void(CharSeq(0))")
    with pytest.raises(errors.UnsupportedError, match="readonly array here is not supported"):
        normalize_signature("Array(float32, 1, 'C', readonly=True)(int32)")


def test_number_domains_are_numbas():
    # numba.types.signed_domain and the other sets (numba-cuda's test_ufuncs branch on them)
    assert t.signed_domain == {t.int8, t.int16, t.int32, t.int64}
    assert t.unsigned_domain == {t.uint8, t.uint16, t.uint32, t.uint64}
    assert t.integer_domain == t.signed_domain | t.unsigned_domain
    assert t.real_domain == {t.float32, t.float64}
    assert t.complex_domain == {t.complex64, t.complex128}
    assert t.number_domain == t.real_domain | t.integer_domain | t.complex_domain
    assert t.intp in t.signed_domain and t.float16 not in t.real_domain


def test_a_type_subclass_made_numbas_way_is_named():
    # numba's extension API defines types as Type subclasses calling Type.__init__(self, name)
    class StructType(t.Type):
        def __init__(self):
            super().__init__(name="StructType")

    struct = StructType()
    assert struct.name == "StructType" and str(struct) == "StructType"
    assert struct == StructType() and hash(struct) == hash(StructType())
    assert t.int32 is t.Integer("int32") and t.int32.name == "int32"
    with pytest.raises(TypeError):
        t.Type.__init__(struct)  # Type.__init__ needs the name


def test_cpointer_is_named_and_spelt_in_signatures():
    p = t.CPointer(t.int32)
    assert str(p) == "int32*" and p is t.CPointer(t.int32) and p != t.CPointer(t.int64)
    assert pickle.loads(pickle.dumps(p)) is p
    assert t.normalize_signature(t.void(p, t.int32)) == "void(int32*, int32)"
    # numba's spelling in a signature's text, and the call that makes it
    assert t.parse_signature("void(int32*, float64 *, uint8)") == ((p, t.CPointer(t.float64), t.uint8), t.none)
    assert t.parse_signature("float32(CPointer(float32), int32)") == ((t.CPointer(t.float32), t.int32), t.float32)
    with pytest.raises(TypeError, match=r"invalid signature .*'\*' follows no type"):
        t.parse_signature("void(*int32)")
    # the C parser refuses a pointer to what is not a number as it reads it (Python's read it, then refused it)
    for text in ("void(uint8**)", "void(CPointer(complex64))", "void(CPointer(int32[:]))"):
        with pytest.raises(errors.UnsupportedError, match=r"pointer types \(.*\) are not supported"):
            t.parse_signature(text)
    # pointers to numbers only
    for bad in (t.CPointer(t.CPointer(t.int32)), t.CPointer(t.int32, 1), t.CPointer(t.complex64)):
        with pytest.raises(errors.UnsupportedError, match=r"pointer types \(.*\) are not supported"):
            t.normalize_signature(t.void(bad))
    with pytest.raises(TypeError):
        t.CPointer("int32")


def test_voidptr_is_numbas_raw_pointer_named_and_refused_in_signatures():
    assert str(t.voidptr) == "void*" and t.voidptr is t.RawPointer("void*") and isinstance(t.voidptr, t.Opaque)
    assert pickle.loads(pickle.dumps(t.voidptr)) is t.voidptr and t.voidptr != t.CPointer(t.none)
    for sig in (t.void(t.voidptr, t.voidptr), "void(voidptr)"):  # numba-cuda's test_compiler wrapper signature
        with pytest.raises(errors.UnsupportedError, match=r"pointer types \(void\*\) are not supported"):
            t.normalize_signature(sig)
