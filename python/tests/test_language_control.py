"""kfront.cuda on the simulator (KFRONT_SIM=1 in the test command; on the GPU by test/gpu/run_python_gpu.sh):
the control side of Numba's CUDA language (issue 12) — locals bound on some paths only (UnboundLocalError
where one is read unbound); enums as constants and arguments (numba-cuda's test_enums cases); recursion,
self and mutual (numba-cuda's test_recursion cases); raise and assert with Numba's semantics (numba-cuda's
test_exception cases: the exception class and message on the host with debug=True, nothing without), each
leaving the module usable."""
import enum

import numpy as np
import pytest

from kfront import cuda, errors, types


# ---- locals bound on some paths ------------------------------------------------------------------------


@cuda.jit
def bound_on_one_path(a, n):
    i = cuda.grid(1)
    if i < a.size:
        if i < n:
            z = 3 * i
        a[i] = z


@cuda.jit
def bound_in_both_arms(a, n):
    i = cuda.grid(1)
    if i < a.size:
        if i < n:
            z = 3 * i
        else:
            z = -1
        a[i] = z


@cuda.jit(boundscheck=False)
def unchecked_one_path(a, n):
    i = cuda.grid(1)
    if i < a.size:
        if i < n:
            z = 3 * i
        a[i] = z


def test_bound_where_read():
    a = np.zeros(16, dtype=np.int64)
    bound_on_one_path[2, 8](a, 16)
    np.testing.assert_array_equal(a, 3 * np.arange(16))
    bound_in_both_arms[2, 8](a, 10)
    np.testing.assert_array_equal(a, np.where(np.arange(16) < 10, 3 * np.arange(16), -1))


def test_read_where_unbound_raises_unbound_local_error():
    a = np.zeros(16, dtype=np.int64)
    with pytest.raises(UnboundLocalError) as e:
        bound_on_one_path[2, 8](a, 11)
    exc = e.value
    first = bound_on_one_path.py_func.__code__.co_firstlineno
    assert exc.kind == errors.KIND_RAISED
    assert exc.line == first + 6 and exc.col == 16
    assert exc.kernel == "bound_on_one_path"
    assert exc.exception == "UnboundLocalError: cannot access local variable 'z' where it is not associated with a value"
    assert exc.thread == (3, 0, 0) and exc.block == (1, 0, 0)  # i = 11: the first unbound read
    assert "a[i] = z" in str(exc)
    # the module keeps working
    test_bound_where_read()


def test_without_checks_an_unbound_read_gives_zero_as_numba():
    a = np.full(8, 7, dtype=np.int64)
    unchecked_one_path[1, 8](a, 5)
    np.testing.assert_array_equal(a, [0, 3, 6, 9, 12, 0, 0, 0])


# ---- enums (the cases of numba-cuda's tests/cudapy/test_enums.py, with its enum_usecases classes) ---------


class Color(enum.Enum):
    red = 1
    green = 2
    blue = 3


class Shape(enum.IntEnum):
    circle = 2
    square = 500


class RequestError(enum.IntEnum):
    dummy = 2
    not_found = 404
    internal_error = 500


class IntEnumWithNegatives(enum.IntEnum):
    one = 1
    two = 2
    too = 2
    three = 3
    negone = -1


RED = Color.red


def _compare(a, b, out):
    out[0] = a == b
    out[1] = a != b
    out[2] = a is b
    out[3] = a is not b


def test_enum_compare_arguments():
    cuda_f = cuda.jit(_compare)
    pairs = [(Color.red, Color.red), (Color.red, Color.green), (Shape.circle, IntEnumWithNegatives.two),
             (IntEnumWithNegatives.two, IntEnumWithNegatives.too), (Shape.circle, Shape.square)]
    for a, b in pairs:
        got = np.zeros(4, dtype=np.bool_)
        expected = got.copy()
        cuda_f[1, 1](a, b, got)
        _compare(a, b, expected)
        np.testing.assert_array_equal(got, expected, err_msg="%r %r" % (a, b))
    # one specialisation per pair of member types (Color twice is one of them)
    sigs = list(cuda_f.overloads)
    assert len(sigs) == 4 and any(types.EnumMember(Color, types.int64) in s for s in sigs)


def test_enum_getattr_getitem():
    @cuda.jit
    def f(out):
        out[0] = Color.red == Color.green
        out[1] = Color["red"] == Color["green"]
        out[2] = RED is Color.red
        out[3] = Color.blue.value

    got = np.zeros(4, dtype=np.int64)
    f[1, 1](got)
    np.testing.assert_array_equal(got, [False, False, True, 3])


def test_enum_return_from_device_function():
    @cuda.jit(device=True)
    def inner(pred):
        return Color.red if pred else Color.green

    @cuda.jit
    def f(pred, out):
        out[0] = inner(pred) == Color.red
        out[1] = inner(not pred) == Color.green

    got = np.zeros(2, dtype=np.bool_)
    f[1, 1](True, got)
    np.testing.assert_array_equal(got, [True, True])


def test_int_enum_coerce_and_cast():
    from kfront import int16, int32

    def coerce(x, out):
        if x > RequestError.internal_error:
            out[0] = x - RequestError.not_found
        else:
            out[0] = x + Shape.circle

    def cast(x, out):
        if x > int16(RequestError.internal_error):
            out[0] = x - int32(RequestError.not_found)
        else:
            out[0] = x + int16(Shape.circle)

    for fn in (coerce, cast):
        cuda_f = cuda.jit(fn)
        for x in [300, 450, 550]:
            got = np.zeros(1, dtype=np.int32)
            expected = got.copy()
            cuda_f[1, 1](x, got)
            fn(x, expected)
            np.testing.assert_array_equal(got, expected)


def test_enum_member_argument_value():
    @cuda.jit
    def f(c, out):
        out[0] = c.value
        out[1] = c is Color.blue

    got = np.zeros(2, dtype=np.int64)
    f[1, 1](Color.blue, got)
    np.testing.assert_array_equal(got, [3, 1])
    f[1, 1](Color.green, got)
    np.testing.assert_array_equal(got, [2, 0])


def test_enum_types_typeof_and_specialize():

    t = types.typeof(Color.red)
    assert t == types.EnumMember(Color, types.int64) and str(t) == 'EnumMember("%s.Color", int64)' % __name__
    assert types.typeof(Shape.circle) is types.IntEnumMember(Shape, types.int64)

    @cuda.jit
    def value_of(c, out):
        out[0] = c.value

    d = value_of.specialize(Color.green, np.zeros(1, dtype=np.int64))
    assert d.signatures == [(t, types.int64[::1])]
    out = np.zeros(1, dtype=np.int64)
    d[1, 1](Color.blue, out)
    assert out[0] == 3


def test_enum_in_vectorize():
    from kfront import vectorize

    def f(x):
        if x != RequestError.not_found:
            return RequestError["internal_error"]
        else:
            return RequestError.dummy

    cuda_func = vectorize("int64(int64)", target="cuda")(f)
    arr = np.array([2, 404, 500, 404], dtype=np.int64)
    np.testing.assert_array_equal(cuda_func(arr), [f(x) for x in arr])


def test_enum_errors_are_compile_errors():
    @cuda.jit
    def plus(out):
        out[0] = Color.red + 1

    @cuda.jit
    def against_int(c, out):
        out[0] = c == 1

    with pytest.raises(errors.CompilerError, match=r"unsupported operand types for '\+': Enum<int64>\(\w+\.Color\)"):
        plus[1, 1](np.zeros(1, dtype=np.int64))
    with pytest.raises(errors.TypingError, match="no implementation of '=='"):
        against_int[1, 1](Color.red, np.zeros(1, dtype=np.int64))

    class Planet(enum.Enum):
        EARTH = (5.976e24, 6.37814e6)

    @cuda.jit
    def planet(out):
        out[0] = Planet.EARTH == Planet.EARTH

    out = np.zeros(1, dtype=np.int64)  # tuple values: Numba's EnumMember of a UniTuple (test_firstclass.py)
    planet[1, 1](out)
    assert out[0] == 1


# ---- recursion (numba-cuda's tests/cudapy/test_recursion.py and recursion_usecases.py) --------------------


@cuda.jit("i8(i8)", device=True)
def fib1(n):
    if n < 2:
        return n
    return fib1(n - 1) + fib1(n - 2)


def make_fib2():
    @cuda.jit("i8(i8)", device=True)
    def fib2(n):
        if n < 2:
            return n
        return fib2(n - 1) + fib2(n - 2)

    return fib2


fib2 = make_fib2()


@cuda.jit(device=True)
def fib3(n):
    if n < 2:
        return n
    return fib3(n - 1) + fib3(n - 2)


@cuda.jit(device=True)
def runaway_self(x):
    return runaway_self(x)


# lazy: as numba-cuda's, a device function given a signature compiles at its decoration, when is_odd does not
# exist yet (test_decoration_compile.py: that is a TypingError)
@cuda.jit(device=True)
def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


@cuda.jit(device=True)
def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


def _check_fib(cfunc):
    @cuda.jit
    def kernel(r, x):
        r[0] = cfunc(x[0])

    x = np.asarray([10], dtype=np.int64)
    r = np.zeros_like(x)
    kernel[1, 1](r, x)
    assert r[0] == 55


def test_recursion_global_explicit_signature():
    _check_fib(fib1)


def test_recursion_inner_explicit_signature():
    _check_fib(fib2)


def test_recursion_global_implicit_signature():
    _check_fib(fib3)


def test_mutual_recursion():
    @cuda.jit
    def kernel(r):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = is_even(i) * 10 + is_odd(i)

    r = np.zeros(7, dtype=np.int64)
    kernel[1, 8](r)
    np.testing.assert_array_equal(r, [10, 1, 10, 1, 10, 1, 10])


def test_runaway_recursion_is_a_typing_error():
    with pytest.raises(errors.TypingError, match="cannot type infer runaway recursion"):
        @cuda.jit("void()")  # as numba-cuda's: the declared signature compiles, and fails, at decoration
        def kernel():
            runaway_self(1)


# ---- raise and assert (numba-cuda's tests/cudapy/test_exception.py) ---------------------------------------


class TooBig(ValueError):
    pass


def test_user_raise_with_debug():
    @cuda.jit(debug=True, opt=False)
    def foo(do_raise):
        if do_raise:
            raise ValueError

    foo[1, 1](False)
    with pytest.raises(ValueError) as e:
        foo[1, 1](True)
    assert e.value.exception == "ValueError" and e.value.kind == errors.KIND_RAISED
    assert e.value.line == foo.py_func.__code__.co_firstlineno + 3


def test_raise_message_class_and_position():
    @cuda.jit(debug=True)
    def check(a):
        i = cuda.grid(1)
        if a[i] < 0:
            raise ValueError("negative input", 7)
        if a[i] > 100:
            raise TooBig("too big")
        a[i] = 2 * a[i]

    a = np.arange(64)
    a[40] = -1
    with pytest.raises(ValueError) as e:
        check[2, 32](a)
    exc = e.value
    assert type(exc) is ValueError and exc.exception == "ValueError: ('negative input', 7)"
    assert exc.thread == (8, 0, 0) and exc.block == (1, 0, 0) and exc.kernel == "check"
    assert "ValueError: ('negative input', 7) (kernel check" in str(exc)
    assert "raise ValueError" in str(exc)  # the source line
    # a class of the user's module comes back as itself
    a = np.arange(64)
    a[40] = 1000
    with pytest.raises(TooBig, match="too big") as e:
        check[2, 32](a)
    assert e.value.exception == "%s.TooBig: too big" % __name__
    a = np.arange(64)
    check[2, 32](a)
    np.testing.assert_array_equal(a, 2 * np.arange(64))


def test_raise_without_debug_ends_the_thread_silently():
    @cuda.jit
    def check(a):
        i = cuda.grid(1)
        if a[i] < 0:
            raise ValueError("negative input")
        a[i] = 2 * a[i]

    a = np.arange(8)
    a[3] = -5
    check[1, 8](a)  # no exception on the host, as numba-cuda without debug=True
    np.testing.assert_array_equal(a, [0, 2, 4, -5, 8, 10, 12, 14])


def test_assert_with_and_without_debug():
    def body(a):
        i = cuda.grid(1)
        assert a[i] != 3, "three is not allowed"
        a[i] = a[i] + 1

    a = np.arange(6)
    cuda.jit(body)[1, 6](a)  # not compiled without debug=True
    np.testing.assert_array_equal(a, [1, 2, 3, 4, 5, 6])
    a = np.arange(6)
    with pytest.raises(AssertionError, match="three is not allowed") as e:
        cuda.jit(debug=True)(body)[1, 6](a)
    assert e.value.thread == (3, 0, 0)


def test_no_zero_division_error_without_debug():
    @cuda.jit
    def f(r, x, y):
        r[0] = y[0] / x[0]
        r[1] = y[0]

    r = np.zeros(2)
    f[1, 1](r, np.zeros(1), np.ones(1))
    assert np.isinf(r[0]) and r[1] == 1.0  # the NumPy error model: inf, and execution goes on


def test_zero_division_error_in_debug():
    @cuda.jit(debug=True, opt=False)
    def f(r, x, y):
        r[0] = y[0] / x[0]
        r[1] = y[0]

    @cuda.jit(debug=True)
    def g(r, a, b):
        r[0] = a // b
        r[1] = a % b

    r = np.zeros(2)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        f[1, 1](r, np.zeros(1), np.ones(1))
    assert r[0] == 0 and r[1] == 0  # the thread stopped at the division
    ri = np.zeros(2, dtype=np.int64)
    with pytest.raises(ZeroDivisionError, match="integer division by zero"):
        g[1, 1](ri, 7, 0)
    g[1, 1](ri, 7, 2)
    np.testing.assert_array_equal(ri, [3, 1])


def test_raise_in_device_function():
    msg = "Device Function Error"

    @cuda.jit(device=True)
    def f():
        raise ValueError(msg)

    @cuda.jit(debug=True, opt=False)
    def kernel():
        f()

    with pytest.raises(ValueError) as raises:
        kernel[1, 1]()
    assert msg in str(raises.value)


@cuda.jit(device=True)
def raise_self(x):
    if x == 1:
        raise ValueError("raise_self")
    elif x > 0:
        return raise_self(x - 1)
    else:
        return 1


@cuda.jit(debug=True, opt=False)
def raise_self_kernel(x):
    raise_self(x)


def test_raise_in_recursive_device_function():
    with pytest.raises(ValueError, match="raise_self"):
        raise_self_kernel[1, 1](3)
    raise_self_kernel[1, 1](0)


def test_raise_forms():
    # numba-cuda cannot lower a raise with run-time arguments (no dynamic exceptions on CUDA): refused, located
    @cuda.jit(debug=True)
    def dynamic(a):
        raise ValueError("bad", a[0])

    @cuda.jit(debug=True)
    def bare(a):
        if a[0] < 0:
            raise  # no active exception in a kernel: RuntimeError, as in Python
        a[0] = 1

    @cuda.jit(debug=True)
    def chained(a):
        raise ValueError("x") from KeyError("y")

    with pytest.raises(errors.CompilerError, match=r":\d+:33: error: the arguments of a raised exception must be "
                                                   r"compile-time constants: this one is float64"):
        dynamic[1, 1](np.zeros(1))
    with pytest.raises(RuntimeError, match="No active exception to reraise"):
        bare[1, 1](-np.ones(1))
    a = np.zeros(1)
    bare[1, 1](a)
    assert a[0] == 1
    with pytest.raises(errors.CompilerError, match="multiple argument raise is not supported"):
        chained[1, 1](np.zeros(1))

    # an instance kept in a variable, or a class: raised as Numba infers the constant it was assigned
    @cuda.jit(debug=True)
    def in_variable(a):
        e = ValueError("bad", 3)
        cls = KeyError
        if a[0] < 0:
            raise e
        if a[0] > 9:
            raise cls
        a[0] = 1

    with pytest.raises(ValueError, match=r"ValueError: \('bad', 3\)"):
        in_variable[1, 1](-np.ones(1))
    with pytest.raises(KeyError):
        in_variable[1, 1](np.full(1, 10.0))
    a = np.zeros(1)
    in_variable[1, 1](a)
    assert a[0] == 1


# ---- a read where the local is unbound on every path (numba-cuda's test_ssa shapes) ---------------------------

def test_read_unbound_on_every_path_compiles_and_raises_when_run():
    import warnings

    @cuda.jit
    def foo(result, n):
        if n:
            if n > 0:
                c = 0
            result[0] = c
        else:
            c += 1  # no path here assigns c
            result[0] = c

    r = np.zeros(1)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        foo[1, 1](r, 1)
    assert r[0] == 0
    assert any("Detected uninitialized variable c" in str(x.message) for x in w)
    with pytest.raises(UnboundLocalError, match="cannot access local variable 'c'"):
        foo[1, 1](r, 0)
        cuda.synchronize()


def test_local_first_bound_in_a_later_iteration_is_carried():
    @cuda.jit
    def foo(result, x, v, n):
        for i in range(n):
            if i == 0:
                if i == x:
                    pass
                else:
                    problematic = v
            else:
                if i == x:
                    pass
                else:
                    problematic = problematic + v
        result[0] = problematic

    def py(x, v, n):
        r = np.zeros(1, np.int64)
        foo.py_func(r, x, v, n)
        return r[0]

    for args in [(1, 5, 3), (7, 2, 6), (2, 3, 4)]:
        r = np.zeros(1, np.int64)
        foo[1, 1](r, *args)
        assert r[0] == py(*args), args
