"""kfront.cuda on the simulator (KFRONT_SIM=1 in the test command): Numba's Optional(T) (frontend/optional.c) — device
functions that return a value on some paths and None on others (a bare return, `return None`, the end of the body),
variables None on one path and a value on another (around loops too), conditional expressions of None and a value;
`is None` / `is not None`, Optional arguments (the callee re-specialised), Optional signatures; a use as a T raising
TypeError("expected int64, got None") where it is None, as numba-cuda's optional_to_any. The expected values are
numba-cuda 0.30.4's simulator's (the oracle), written in as literals; where its simulator runs Python (None + 1,
`x == None`, `if x:`), numba-cuda's compiled semantics are the spec, checked with its compiler (typing) and its
lowering (numba/cuda/core/optional.py, cpython/builtins.py's none_equality), as each test says."""
import numpy as np
import pytest

from kfront import cuda, errors, types


@cuda.jit(device=True)
def find(a, v):  # an index or None: the loop's return, then None after it
    for i in range(a.shape[0]):
        if a[i] == v:
            return i
    return None


@cuda.jit(device=True)
def positive(x):  # falls off the end where x <= 0
    if x > 0:
        return x


@cuda.jit(device=True)
def bare(x):  # a bare return on one path
    if x > 5:
        return
    return x * 2


@cuda.jit(device=True)
def int_float_or_none(x):  # Optional(float64): numba unifies int64, float64 and none
    if x > 2:
        return 1
    if x > 1:
        return 2.5
    return None


@cuda.jit(device=True)
def inc_or_zero(r):  # specialised on Optional(int64), int64 and none
    if r is None:
        return 0
    return r + 1


@cuda.jit(device=True)
def pass_through(r):
    return r


def test_results_of_device_functions():
    @cuda.jit
    def k(a, out, x):
        r = find(a, 3)
        out[0] = -1 if r is None else r
        out[1] = find(a, 99) is None
        out[2] = positive(x) is not None
        out[3] = bare(x) is None
        m = int_float_or_none(x)
        out[4] = -1 if m is None else m * 2
        p = positive(x)
        if p is not None:
            out[5] = p + 1
        q = bare(x)
        if q is not None:
            out[6] = q

    a = np.array([1, 2, 3, 4, 5], np.int64)
    expected = {3: [2, 1, 1, 0, 2, 4, 6], 2: [2, 1, 1, 0, 5, 3, 4], 7: [2, 1, 1, 1, 2, 8, 0],
                -1: [2, 1, 0, 0, -1, 0, -2]}  # the oracle's outputs
    for x, want in expected.items():
        out = np.zeros(7, np.float64)
        k[1, 1](a, out, x)
        assert out.tolist() == want, x


def test_variables_none_on_one_path():
    @cuda.jit
    def k(a, out, x):
        y = None
        if x > 1:
            y = 5
        out[0] = -7 if y is None else y
        z = 3 if x > 1 else None  # a conditional expression of None and a value
        out[1] = -5 if z is None else z
        w = None
        i = 0
        while i < 5:  # around a while loop
            if a[i] > x:
                w = a[i]
            i += 1
        out[2] = -1 if w is None else w
        v = None
        for j in range(4):  # around a for loop, read in it
            if v is None:
                v = j
            else:
                v = v + j
        out[3] = v
        t = (positive(x), 1)  # a tuple holding an Optional
        out[4] = t[1] if t[0] is None else t[0] + t[1]

    a = np.array([1, 2, 3, 4, 5], np.int64)
    for x, want in {3: [5, 3, 5, 6, 4], 0: [-7, -5, 5, 6, 1], 9: [5, 3, -1, 6, 10]}.items():  # the oracle's
        out = np.zeros(5, np.int64)
        k[1, 1](a, out, x)
        assert out.tolist() == want, x


def test_optional_arguments_respecialise_the_callee():
    @cuda.jit
    def k(out, x):
        r = positive(x)
        out[0] = inc_or_zero(r)       # Optional(int64)
        out[1] = inc_or_zero(None)    # none
        out[2] = inc_or_zero(x)       # int64
        p = pass_through(r)           # an Optional returned as it is
        out[3] = 1 if p is None else p * 10
        n = 0
        while r is not None:          # carried around the loop
            n += r
            r = positive(r - 1)
        out[4] = n

    for x, want in {4: [5, 0, 5, 40, 10], -2: [0, 0, -1, 1, 0]}.items():  # the oracle's
        out = np.zeros(5, np.int64)
        k[1, 1](out, x)
        assert out.tolist() == want, x


@cuda.jit("optional(int64)(int64)", device=True)
def declared_optional(x):
    if x > 0:
        return x
    return None


@cuda.jit("int64(int64)", device=True)
def twice(x):
    return 2 * x


def test_signatures():
    # numba accepts optional(int64) in a signature (numba.types.optional); an Optional argument of a signature that
    # takes its T converts to it (Optional.can_convert_to), checked
    @cuda.jit
    def k(out, x):
        r = declared_optional(x)
        out[0] = -1 if r is None else r
        out[1] = twice(positive(x + 10))

    out = np.zeros(2, np.int64)
    k[1, 1](out, 3)
    assert out.tolist() == [3, 26]  # the oracle's
    k[1, 1](out, -3)
    assert out.tolist() == [-1, 14]
    assert cuda.jit(types.optional(types.int64)(types.int64), device=True) is not None
    assert str(types.optional(types.int64)) == "OptionalType(int64)"  # numba's name
    _, rt = cuda.compile_ptx(positive.py_func, (types.int32,), device=True)
    assert rt == types.Optional(types.int32)  # numba-cuda's compile_ptx gives OptionalType(int32)


@cuda.jit(device=True)
def array_or_none(a, x):
    if x > 0:
        return a
    return None


@cuda.jit(device=True)
def tuple_or_none(x):
    if x > 0:
        return (x, x * 2)
    return None


@cuda.jit(device=True)
def record_or_none(r, x):
    if x > 0:
        return r[0]
    return None


@cuda.jit(device=True)
def vector_or_none(x):
    if x > 0:
        return cuda.float32x2(1.5, 2.5)
    return None


def test_non_scalar_payloads():
    # numba types each of these Optional (OptionalType(array(float64, 1d, C)), OptionalType(UniTuple(int64 x 2)),
    # OptionalType(Record(...)), OptionalType(float32x2))
    @cuda.jit
    def k(a, recs, out, x):
        b = array_or_none(a, x)
        if b is not None:
            out[0] = b[1]
        t = tuple_or_none(x)
        if t is not None:
            out[1] = t[0] + t[1]
        r = record_or_none(recs, x)
        if r is not None:
            out[2] = r.v
        v = vector_or_none(x)
        if v is not None:
            out[3] = v.y

    a = np.array([1.0, 2.0, 3.0])
    recs = np.zeros(2, np.dtype([("k", np.int32), ("v", np.float64)], align=True))
    recs[0]["v"] = 4.5
    out = np.zeros(4)
    k[1, 1](a, recs, out, 3)
    assert out.tolist() == [2.0, 9.0, 4.5, 2.5]  # the oracle's
    out = np.zeros(4)
    k[1, 1](a, recs, out, -3)
    assert out.tolist() == [0.0, 0.0, 0.0, 0.0]


def test_uses_as_the_value():
    # arithmetic, +=, builtins, int(), a call taking the value, not: each unwraps (numba-cuda types them with the
    # Optional's type; its optional_to_any casts)
    @cuda.jit
    def k(out, x):
        r = positive(x)
        out[0] = r * 3
        s = positive(x)
        s += 1
        out[1] = s
        out[2] = abs(positive(x)) + min(positive(x), 2) + int(positive(x))
        out[3] = not positive(x)
        out[4] = positive(x) < 5
        t = tuple_or_none(x)
        a, b = t  # unpacked, iterated, measured: the tuple's
        s = 0
        for v in tuple_or_none(x):
            s += v
        out[5] = a + b + s + len(t)

    out = np.zeros(6, np.int64)
    k[1, 1](out, 3)
    assert out.tolist() == [9, 4, 8, 0, 1, 20]  # the oracle's


def test_a_none_used_as_its_value_raises_type_error():
    @cuda.jit(debug=True, opt=False)
    def k(out, x):
        r = positive(x)
        out[0] = r + 1

    out = np.zeros(1, np.int64)
    k[1, 1](out, 2)
    assert out[0] == 3
    # numba-cuda's optional_to_any: TypeError("expected int64, got None"), at the use
    with pytest.raises(TypeError) as e:
        k[1, 1](out, -2)
    assert e.value.exception == "TypeError: expected int64, got None"
    assert e.value.line == k.py_func.__code__.co_firstlineno + 3

    @cuda.jit
    def quiet(out, x):  # without debug=True the thread ends at the use, as numba-cuda's
        out[1] = 5
        y = None
        if x > 0:
            y = 1.5
        out[0] = y
        out[1] = 6

    out = np.zeros(2)
    quiet[1, 1](out, 1)
    assert out.tolist() == [1.5, 6.0]
    out = np.zeros(2)
    quiet[1, 1](out, 0)
    assert out.tolist() == [0.0, 5.0]


def test_kir_of_a_use_checks_the_flag():
    @cuda.jit
    def k(out, x):
        out[0] = positive(x) + 1

    kir = k.inspect_kir("void(int64[:], int64)")
    assert "(i64) -> (i64, i1)" in kir and 'exception = "TypeError: expected int64, got None"' in kir


def test_equality_with_none_is_by_type():
    # numba-cuda's none_equality (cpython/builtins.py) for an Optional and None: == is False and != True whatever the
    # value, decided by the types (its simulator, running Python, would say r == None is True where r is None)
    @cuda.jit
    def k(out, x):
        r = positive(x)
        out[0] = r == None  # noqa: E711
        out[1] = r != None  # noqa: E711
        out[2] = None == r  # noqa: E711

    out = np.full(3, 7, np.int64)
    k[1, 1](out, -1)
    assert out.tolist() == [0, 1, 0]


def test_refusals():
    # numba-cuda: bool(OptionalType(int64)) has no implementation (a TypingError); `if not x:` unwraps (not_ does)
    @cuda.jit
    def truth(out, x):
        if positive(x):
            out[0] = 1

    with pytest.raises(errors.TypingError, match=r"bool\(OptionalType\(int64\)\)"):
        truth[1, 1](np.zeros(1, np.int64), 1)

    @cuda.jit
    def two(out, x):
        out[0] = positive(x) is positive(x + 1)

    with pytest.raises(errors.UnsupportedError, match=r"'is' between OptionalType\(int64\) and OptionalType\(int64\)"):
        two[1, 1](np.zeros(1, np.int64), 1)

    # a declared non-optional result and a path returning None: numba's "No conversion from none to int64"
    with pytest.raises(errors.TypingError, match=r"No conversion from none to int64"):
        @cuda.jit("int64(int64)", device=True)
        def declared(x):
            if x > 0:
                return x

    # Optional(slice): kfront's own refusal, located
    @cuda.jit
    def slice_or_none(out, x):
        s = None
        if x > 0:
            s = slice(1, 2)
        if s is not None:
            out[0] = 1

    with pytest.raises(errors.UnsupportedError, match=r"OptionalType\(slice<a:b>\) is not supported by kfront"):
        slice_or_none[1, 1](np.zeros(1, np.int64), 1)


def test_c_abi_wrapper_of_an_optional_result():
    # numba-cuda's test_compiler.test_compile_cabi_calling_device_function_returning_optional: a C-ABI int32(int32)
    # whose body returns an Optional(int64), converted (checked) to int32
    def wrapper(x):
        return positive(x + 1)

    ptx, rt = cuda.compile(wrapper, types.int32(types.int32), abi="c", output="ptx")
    assert rt == types.int32 and ".func" in ptx


@cuda.jit("optional(int64)(int64)", device=True)
def declared_recursive(n):
    if n <= 0:
        return None
    r = declared_recursive(n - 1)
    if r is None:
        return n
    return r + n


@cuda.jit("int64(optional(int64))", device=True)
def takes_optional(r):  # numba converts None, an int64, a float64 (unsafe) and an Optional to the parameter
    if r is None:
        return 0
    return r + 1


def test_recursion_and_optional_parameters():
    @cuda.jit
    def k(out, x):
        r = declared_recursive(x)
        out[0] = -1 if r is None else r
        out[1] = takes_optional(x)
        out[2] = takes_optional(None)
        out[3] = takes_optional(x * 1.5)
        out[4] = takes_optional(positive(x))

        def inner(v):  # a closure specialised on the Optional too
            return 0 if v is None else v
        out[5] = inner(positive(x))

    for x, want in {4: [10, 5, 0, 7, 5, 4], 0: [-1, 1, 0, 1, 0, 0], -3: [-1, -2, 0, -3, 0, 0]}.items():  # the oracle's
        out = np.zeros(6, np.int64)
        k[1, 1](out, x)
        assert out.tolist() == want, x

    # without a signature numba-cuda cannot type the recursion ("compiler re-entrant to the same function signature")
    @cuda.jit(device=True)
    def undeclared(n):
        if n <= 0:
            return None
        r = undeclared(n - 1)
        return n if r is None else r + n

    @cuda.jit
    def call_undeclared(out):
        out[0] = undeclared(3)

    with pytest.raises(errors.TypingError, match=r"compiler re-entrant to the same function signature: 'undeclared'"):
        call_undeclared[1, 1](np.zeros(1, np.int64))


def test_while_true_returns_no_optional():
    # `while True:` without break is left only by its return: no implicit None after it (numba: int64)
    def first_positive(a):
        i = 0
        while True:
            if a[i] > 0:
                return i
            i += 1

    assert cuda.compile_ptx(first_positive, (types.int64[:],), device=True)[1] == types.int64


def test_an_optional_readonly_array_stays_readonly():
    # numba unifies a readonly array with none into an Optional of the readonly array: a store through it is refused
    with pytest.raises(errors.TypingError, match=r"Cannot modify readonly array of type: readonly array\(float64, 1d, C\)"):
        @cuda.jit("void(Array(float64, 1, 'C', readonly=True), int64)")
        def store(a, x):
            b = array_or_none(a, x)
            b[0] = 1.0

    with pytest.raises(errors.TypingError, match=r"Cannot modify readonly array"):
        @cuda.jit("void(Array(float64, 1, 'C', readonly=True), int64)")
        def store_merged(a, x):
            c = None
            if x > 0:
                c = a
            c[0] = 1.0
