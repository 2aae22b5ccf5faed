"""NumPy's bytes (S) and str (U) arrays and record fields in kernels, as numba-cuda types and compiles them (its
CharSeq / UnicodeCharSeq and cpython/charseq.py): kernel arguments, assignment of constants (truncated or nulled to
the item's count) and of items of the same type, len (NumPy's: trailing nulls do not count), comparisons within a
kind, truth, a bytes item's s[i] (the code, IndexError past its length), names bound to items (a copy, as
numba-cuda loads the item), and numba-cuda's TypingErrors for the rest. Expected values from NumPy and Python on the
host, which numba-cuda's simulator (the oracle) gives for the same kernels; the index errors are numba-cuda's
compiled code's (its simulator, which runs Python, wraps negative indices)."""
import numpy as np
import pytest

from kfront import cuda, errors, types

WORDS = ["ab", "hello", "", "xyz", "a\x00b", "b", "abc"]


def test_types_of_bytes_and_str_dtypes():
    assert types.from_dtype(np.dtype("S12")) == types.CharSeq(12)
    assert types.from_dtype(np.dtype("<U5")) == types.UnicodeCharSeq(5)
    assert str(types.CharSeq(12)) == "[char x 12]" and str(types.UnicodeCharSeq(3)) == "[unichr x 3]"
    assert types.as_dtype(types.UnicodeCharSeq(5)) == np.dtype("U5")
    assert types.typeof(np.zeros(3, "S4")) == types.CharSeq(4)[::1]
    rec = types.from_dtype(np.dtype([("x", np.int32), ("y", "U12")]))
    assert str(rec.typeof("y")) == "[unichr x 12]" and rec.offset("y") == 4
    assert types.parse_signature("void([char x 12][::1], [unichr x 3][:])")[0] == (
        types.CharSeq(12)[::1], types.UnicodeCharSeq(3)[:])


@pytest.mark.parametrize("dt", ["S6", "U6"])
def test_len_compare_truth_of_items(dt):
    @cuda.jit
    def measure(a, b, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            out[i, 0] = len(a[i])
            out[i, 1] = a[i] == b[i]
            out[i, 2] = a[i] != b[i]
            out[i, 3] = a[i] < b[i]
            out[i, 4] = a[i] <= b[i]
            out[i, 5] = a[i] > b[i]
            out[i, 6] = a[i] >= b[i]
            out[i, 7] = 1 if a[i] else 0
            out[i, 8] = not a[i]

    a = np.array(WORDS, dtype=dt)
    b = np.array(WORDS[::-1], dtype="%s3" % dt[0])  # another count: compared as numba-cuda compares them
    out = np.zeros((len(WORDS), 9), np.int64)
    measure[1, 8](a, b, out)
    for i, (x, y) in enumerate(zip(a, b)):
        assert out[i].tolist() == [len(x), x == y, x != y, x < y, x <= y, x > y, x >= y, bool(x), not x], (x, y)


def test_compare_with_constants():
    @cuda.jit
    def with_bytes(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            out[i] = (a[i] == b"abc") + 2 * (a[i] < b"ab") + 4 * (b"b" == a[i]) + 8 * (a[i] >= b"hello")

    @cuda.jit
    def with_str(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            out[i] = (a[i] == "abc") + 2 * (a[i] < "ab") + 4 * ("b" == a[i]) + 8 * (a[i] >= "hello")

    for dt, kernel, conv in (("S5", with_bytes, lambda s: s.encode()), ("U5", with_str, str)):
        a = np.array(WORDS, dtype=dt)
        out = np.zeros(len(WORDS), np.int64)
        kernel[1, 8](a, out)
        want = [(x == conv("abc")) + 2 * (x < conv("ab")) + 4 * (conv("b") == x) + 8 * (x >= conv("hello")) for x in a]
        assert out.tolist() == want


def test_assign_constants_and_items():
    @cuda.jit
    def fill(a, src, u):
        a[0] = b"XYZ"
        a[1] = b"ABCDEFGHIJ"  # truncated to the count
        a[2] = b""
        a[3] = src[1]
        u[0] = "\u00e9t\u00e9"  # code points, not UTF-8 bytes
        u[1] = "ABCDEFGHIJ"

    a = np.array(["ab", "hello", "qq", "zz"], dtype="S5")
    u = np.array(["x", "y"], dtype="U4")
    src = np.array(["one", "three"], dtype="S5")
    fill[1, 1](a, src, u)
    assert a.tolist() == [b"XYZ", b"ABCDE", b"", b"three"]
    assert u.tolist() == ["\u00e9t\u00e9", "ABCD"]


def test_record_fields():
    @cuda.jit
    def f(a, out):
        a[0]["x"] = 1
        a[0]["y"] = "ABC"
        a[1].y = a[0].y
        a[2]["y"] = "XYZ"
        out[0] = len(a[1]["y"])
        out[1] = a[2].y > a[1].y

    dt = np.dtype([("x", np.int32), ("y", np.dtype("<U12"))])
    a = np.zeros(3, dt)
    out = np.zeros(2, np.int64)
    f[1, 1](a, out)
    assert a.tolist() == [(1, "ABC"), (0, "ABC"), (0, "XYZ")]
    assert out.tolist() == [3, 1]


def test_a_bound_item_is_a_copy():
    @cuda.jit
    def swap(a, out):
        x = a[0]
        a[0] = a[1]
        a[1] = x
        out[0] = len(x)

    a = np.array(["hello", "ab"], dtype="S5")
    out = np.zeros(1, np.int64)
    swap[1, 1](a, out)
    assert a.tolist() == [b"ab", b"hello"] and out[0] == 5


def test_bytes_item_index_and_its_errors():
    @cuda.jit
    def code(a, i, out):
        out[0] = a[0][i]

    a = np.array([b"hey"], dtype="S5")
    out = np.zeros(1, np.int64)
    for i in range(3):
        code[1, 1](a, i, out)
        assert out[0] == b"hey"[i]

    @cuda.jit(debug=True, opt=False)
    def code_checked(a, i, out):
        out[0] = a[0][i]

    # numba-cuda's charseq_getitem: no wrap of negative indices; a null character is out of range too
    for i, words in ((3, "index out of range"), (5, r"index out of range \[0, 4\]"), (-1, r"\[0, 4\]")):
        with pytest.raises(IndexError, match=words):
            code_checked[1, 1](a, i, out)


def test_constants_measured():
    @cuda.jit
    def f(out):
        out[0] = len(b"hello")
        out[1] = len("h\u00e9llo")

    out = np.zeros(2, np.int64)
    f[1, 1](out)
    assert out.tolist() == [5, 5]


def test_numba_cuda_typing_errors():
    s = np.zeros(2, "S4")
    u = np.zeros(2, "U4")

    def fails(kernel, *args, words):
        with pytest.raises(errors.TypingError, match=words):
            cuda.jit(kernel)[1, 1](*args)

    def str_index(u, out):
        out[0] = u[0][0]

    def mixed_kinds(s, u, out):
        out[0] = s[0] == u[0]

    def wrong_constant(s):
        s[0] = "AB"

    def other_count(s, t):
        s[0] = t[0]

    def set_char(s):
        s[0][0] = 65

    def store_int(s):
        s[0] = 5

    out = np.zeros(1, np.int64)
    fails(str_index, u, out, words=r"getitem\(\[unichr x 4\], int64\)")
    fails(mixed_kinds, s, u, out, words="bytes compare with bytes, str with str")
    fails(wrong_constant, s, words=r"cannot assign unicode_type to an item of type \[char x 4\]")
    fails(other_count, s, np.zeros(2, "S3"), words=r"cannot assign \[char x 3\] to an item of type \[char x 4\]")
    fails(set_char, s, words="does not support item assignment")
    fails(store_int, s, words=r"cannot assign int64 to an item of type \[char x 4\]")


# ---- string constants passed to device functions (numba-cuda types them as their literal) ----------------------

@cuda.jit(device=True, forceinline=True)
def _load(gmem, value):  # numba-cuda's test_errors.TestStringArgCompileTime kernel (its issue 755)
    if value == "1":
        gmem[cuda.threadIdx.x] = 1.0
    else:
        gmem[cuda.threadIdx.x] = 0.0


@cuda.jit(device=True)
def _code(mode, x):
    if mode == "double":
        return x * 2
    if mode == "negate":
        return -x
    return x + len(mode)


@cuda.jit(device=True)
def _twice(mode, x):  # the constant passed on through another device function
    return _code(mode, _code(mode, x))


def test_string_constants_passed_to_device_functions():
    @cuda.jit
    def kernel(buff, out):
        _load(buff, "1")
        if cuda.threadIdx.x == 0:
            out[0] = _code("double", 5)
            out[1] = _code("negate", 5)
            out[2] = _code("other", 5)
            out[3] = _twice("double", 3)
            out[4] = _twice("", 7)

    buff = cuda.to_device(np.zeros(32, dtype=np.float32))
    out = np.zeros(5, np.int64)
    kernel[1, 32](buff, out)
    assert (buff.copy_to_host() == 1.0).all()
    assert out.tolist() == [10, -5, 10, 12, 7]
