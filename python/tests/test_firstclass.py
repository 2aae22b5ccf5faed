"""kfront.cuda on the simulator (KFRONT_SIM=1 in the test command; on the GPU by test/gpu/run_python_gpu.sh):
closures and first-class values of Numba's CUDA language (issue 12) — inner defs and lambdas that capture the
enclosing function's variables (called where defined, or passed on to device functions as Numba's
MakeFunctionToJitFunction allows), device functions, intrinsics (cuda.atomic.add) and Numba types passed to
device functions (one specialisation per value), constant arguments a callee needs as literals (numba-cuda's
test_atomics helpers), `is` between such values; enums of float and bool members (typed as Numba's typeof types
them), members in tuples; array variables (slices, rows a[i]) bound on some paths only; and what Numba refuses,
refused located. Results are hand-computed."""
import enum

import numpy as np
import pytest

from kfront import cuda, errors, types

# ---- closures and inner defs -----------------------------------------------------------------------------


@cuda.jit(device=True)
def apply(f, x):
    return f(x)


@cuda.jit(device=True)
def twice(x):
    return 2 * x


@cuda.jit
def closures(out, a):
    s = 3.0

    def scale(v):  # captures s and the array a
        return v * s + a[0]

    g = lambda v, w=2: v + w  # noqa: E731 (a lambda bound to a name, with a default)
    out[0] = scale(1.0)
    out[1] = g(5)
    out[2] = g(5, w=10)
    base = 100

    def outer(x):
        def inner(y):  # nested: base comes through outer
            return y + base

        return inner(x) * 2

    out[3] = outer(1)
    acc = 0
    for m in range(4):
        def add_m(v):  # defined in the loop, captures the loop variable
            return v + m

        acc += add_m(10)
    out[4] = acc
    x = 1

    def read_x():
        return x

    x = 5
    out[5] = read_x()  # the value at the call, as Python reads a cell

    def store(i, v):  # writes through a captured array
        a[i] = v

    store(1, 42.0)


def test_inner_defs_and_lambdas_capture_the_enclosing_variables():
    out = np.zeros(6)
    a = np.array([0.5, 0.0])
    closures[1, 1](out, a)
    np.testing.assert_array_equal(out, [3.5, 7, 15, 202, 46, 5])
    assert a[1] == 42.0


@cuda.jit(device=True)
def dev_with_closure(a, n):
    t = 0

    def body(j):
        return a[j] * n

    for j in range(a.size):
        t += body(j)
    return t


@cuda.jit
def closure_in_device_function(out, a):
    out[0] = dev_with_closure(a, 3)


def test_inner_def_in_a_device_function():
    out = np.zeros(1, np.int64)
    closure_in_device_function[1, 1](out, np.arange(5, dtype=np.int64))
    assert out[0] == 30


@cuda.jit(device=True)
def consumer(func, x, y):
    return func(x, y)


@cuda.jit
def escapes(out, x):
    t = 12

    def inner(a, b, k=4):  # passed on: its constant captures and defaults go with it
        return a + b + k + t

    out[0] = consumer(inner, 1, 2)
    out[1] = consumer(lambda p, q: p * q, x, 3)
    out[2] = apply(twice, x)
    out[3] = inner(1, 2, 5)


def test_closures_and_functions_passed_to_device_functions():
    out = np.zeros(4, np.int64)
    escapes[1, 1](out, 7)
    np.testing.assert_array_equal(out, [19, 21, 14, 20])
    # one instance per function value
    kir = escapes.inspect_kir()
    text = "\n".join(kir.values()) if isinstance(kir, dict) else kir
    assert text.count('py_name = "consumer"') == 2


K = 7


@cuda.jit(device=True)
def call_with(func1, func2):
    return func2(func1)


@cuda.jit
def functions_in_tuples(out, x):
    acc = 0.0
    for f in (square, negate):  # a tuple of device functions, unrolled
        acc += f(x)
    out[0] = acc

    def g(v):
        return v + K  # a module constant

    fs = (g, lambda v: v * 2)
    out[1] = fs[0](1) + fs[1](3)

    def inner():
        return 10

    def call(q):
        return q()

    out[2] = call_with(inner, call)  # numba-cuda's test_nested_escape
    out[3] = (lambda: 5)()


def test_functions_in_tuples_and_closures_taking_closures():
    out = np.zeros(4)
    functions_in_tuples[1, 1](out, 3.0)
    np.testing.assert_array_equal(out, [6, 14, 10, 5])


@cuda.jit(device=True)
def forward(func, *args):
    return func(*args)


@cuda.jit(device=True)
def total(*xs):
    s = 0
    for x in xs:
        s += x
    return s + len(xs)


@cuda.jit
def star_args(out, x):
    t = 12

    def inner(a, b, c, d1=123, d2=456):  # numba-cuda's test_escape_with_kwargs
        z = 4
        return d1 + d2 + z + t + a + b + c

    out[0] = forward(inner, 1, 2, 3, 73)
    out[1] = forward(inner, 1, 2, 3)
    out[2] = total(1, 2, 3)
    out[3] = total()
    args = (4, 5)
    out[4] = total(*args, 1)

    def callinner(*z):  # numba-cuda's test_with_overload
        if len(z) == 1:
            tmp = z[0]
        else:
            tmp = z[0] + z[1]
        return 10 + tmp

    out[5] = forward(callinner, x) + forward(callinner, x, x)


def test_star_args_in_device_functions_and_calls():
    out = np.zeros(6, np.int64)
    star_args[1, 1](out, 5)
    np.testing.assert_array_equal(out, [551, 601, 9, 0, 13, 35])

    def kwargs_param(out):
        f = lambda **kw: 1  # noqa: E731
        out[0] = f()

    with pytest.raises(errors.UnsupportedError, match=r"\*\*kwargs parameters are not supported in device functions"):
        cuda.jit(kwargs_param)[1, 1](np.zeros(1))


def test_what_numba_refuses_with_closures():
    def nonconst(out, n):
        def g(v):
            return v + n

        out[0] = apply(g, 1)

    with pytest.raises(errors.TypingError, match="Cannot capture the non-constant value associated with variable 'n'"):
        cuda.jit(nonconst)[1, 1](np.zeros(1), 3)

    def multidef(out, c):
        x = 3
        if c:
            x = 6

        def g(v):
            return v + x

        out[0] = apply(g, 1)

    with pytest.raises(errors.TypingError, match="Cannot capture a constant value for variable 'x' as there are multiple"):
        cuda.jit(multidef)[1, 1](np.zeros(1), 1)

    def unbound_free(out):
        def g():
            return y

        out[0] = g()
        y = 2

    with pytest.raises(errors.TypingError, match="free variable 'y' referenced before assignment"):
        cuda.jit(unbound_free)[1, 1](np.zeros(1))

    def uses_nonlocal(out):
        x = 1

        def g():
            nonlocal x
            x = 2

        g()
        out[0] = x

    with pytest.raises(errors.UnsupportedError, match="nonlocal statement is not supported"):
        cuda.jit(uses_nonlocal)[1, 1](np.zeros(1))

    @cuda.jit(device=True)
    def make():
        def g(v):
            return v

        return g

    def returns_closure(out):
        out[0] = make()(1)

    with pytest.raises(errors.TypingError, match="a device function can return scalars, arrays, records, grid groups "
                                                 "and tuples of them, not function 'g'"):
        cuda.jit(returns_closure)[1, 1](np.zeros(1))

    def decorated(out):
        @cuda.jit(device=True)
        def g(v):
            return v

        out[0] = g(1)

    with pytest.raises(errors.TypingError, match="a decorated function cannot be defined inside a kernel"):
        cuda.jit(decorated)[1, 1](np.zeros(1))
    # the module keeps working
    out = np.zeros(6)
    closures[1, 1](out, np.array([0.5, 0.0]))
    assert out[0] == 3.5


# ---- functions, intrinsics and Numba types as values ----------------------------------------------------


@cuda.jit(device=True)
def accumulate(op, arr, v):
    op(arr, 0, v)


@cuda.jit(device=True)
def fill_as(dtype, x):
    tmp = cuda.local.array(4, dtype)
    for j in range(4):
        tmp[j] = dtype(x) + j
    return tmp[0] + tmp[3]


@cuda.jit(device=True)
def both(fs, x):
    return fs[0](x) + fs[1](x)


@cuda.jit(device=True)
def square(x):
    return x * x


@cuda.jit(device=True)
def negate(x):
    return -x


@cuda.jit(device=True)
def maybe(f, x):
    if f is None:
        return x
    return f(x)


@cuda.jit
def values(out, acc, top):
    i = cuda.grid(1)
    accumulate(cuda.atomic.add, acc, 1.0)
    accumulate(cuda.atomic.max, top, i)
    if i == 0:
        out[0] = fill_as(types.float32, 2.7)
        out[1] = fill_as(np.int64, 2.7)
        out[2] = both((square, negate), 3.0)
        h = square
        out[3] = h(4.0)
        out[4] = 1 if h is square else 0
        out[5] = 1 if h is not negate else 0
        out[6] = maybe(None, 5.0) + maybe(negate, 5.0)


def test_functions_intrinsics_and_types_passed_to_device_functions():
    out = np.zeros(7)
    acc = np.zeros(1)
    top = np.zeros(1, np.int64)
    values[2, 32](out, acc, top)
    assert acc[0] == 64 and top[0] == 63
    np.testing.assert_allclose(out, [np.float32(2.7) * 2 + 3, 7, 6, 16, 1, 1, 0], rtol=1e-6)
    assert out[0] == float(np.float32(np.float32(2.7) + np.float32(np.float32(2.7) + 3)))


# numba-cuda's test_atomics helpers: the dtype, the size (a constant: a literal where the callee needs one), the
# atomic op and a cast function are all arguments of the device function
@cuda.jit(device=True)
def atomic_cast_none(num):
    return num


@cuda.jit(device=True)
def atomic_binary_1dim_shared(ary, idx, op2, ary_dtype, ary_nelements, binop_func, cast_func, initializer, neg_idx):
    tid = cuda.threadIdx.x
    sm = cuda.shared.array(ary_nelements, ary_dtype)
    sm[tid] = initializer
    cuda.syncthreads()
    bin = cast_func(idx[tid] % ary_nelements)
    if neg_idx:
        bin = bin % ary_nelements
    binop_func(sm, bin, op2)
    cuda.syncthreads()
    ary[tid] = sm[tid]


@cuda.jit(device=True)
def atomic_binary_2dim_shared(ary, op2, ary_dtype, ary_shape, binop_func, y_cast_func, neg_idx):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    sm = cuda.shared.array(ary_shape, ary_dtype)
    sm[tx, ty] = ary[tx, ty]
    cuda.syncthreads()
    bin = (tx, y_cast_func(ty))
    if neg_idx:
        bin = (bin[0] % ary_shape[0], bin[1] % ary_shape[1])
    binop_func(sm, bin, op2)
    cuda.syncthreads()
    ary[tx, ty] = sm[tx, ty]


@cuda.jit
def atomic_add_1d(ary):
    atomic_binary_1dim_shared(ary, ary, 1, types.uint32, 32, cuda.atomic.add, atomic_cast_none, 0, False)


@cuda.jit
def atomic_sub_2d(ary):
    atomic_binary_2dim_shared(ary, 1, types.uint32, (4, 8), cuda.atomic.sub, atomic_cast_none, False)


def test_numba_cuda_atomic_helpers_take_the_op_the_dtype_and_the_size():
    rng = np.random.default_rng(3)
    ary = rng.integers(0, 32, size=32).astype(np.uint32)
    gold = np.bincount(ary, minlength=32).astype(np.uint32)
    atomic_add_1d[1, 32](ary)
    np.testing.assert_array_equal(ary, gold)
    a2 = rng.integers(1, 32, size=(4, 8)).astype(np.uint32)
    orig = a2.copy()
    atomic_sub_2d[1, (4, 8)](a2)
    np.testing.assert_array_equal(a2, orig - 1)


def test_a_function_value_that_cannot_be_called_so_is_located():
    def bad(out):
        out[0] = apply(np.float32, out)  # float32(an array), located in apply

    with pytest.raises(errors.TypingError, match=r"test_firstclass.py:\d+:\d+: error: cannot convert array\(float64, "
                                                 r"1d, C\) to float32"):
        cuda.jit(bad)[1, 1](np.zeros(1))


# ---- enums beyond integers; members in tuples ------------------------------------------------------------


class Scale(enum.Enum):
    SMALL = 0.5
    LARGE = 2.5


class Switch(enum.Enum):
    ON = True
    OFF = False


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 10


@cuda.jit(device=True)
def scaled(s, x):
    return s.value * x


@cuda.jit
def non_integer_enums(out, s, sw):
    out[0] = Scale.LARGE.value
    out[1] = scaled(s, 4.0)  # the device function specialised on Enum<float64>(Scale)
    if s == Scale.SMALL:
        out[2] = 1
    if sw is Switch.ON and sw.value:
        out[3] = 1
    t = (Scale.SMALL, Level.HIGH, Switch.OFF)
    out[4] = t[0].value + t[1]
    acc = 0.0
    for m in (Level.LOW, Level.HIGH):
        acc += m
    out[5] = acc


def test_float_and_bool_enums_and_members_in_tuples():
    out = np.zeros(6)
    non_integer_enums[1, 1](out, Scale.SMALL, Switch.ON)
    np.testing.assert_array_equal(out, [2.5, 2.0, 1, 1, 10.5, 11])
    out = np.zeros(6)
    non_integer_enums[1, 1](out, Scale.LARGE, Switch.OFF)
    np.testing.assert_array_equal(out, [2.5, 10.0, 0, 0, 10.5, 11])
    assert str(types.typeof(Scale.SMALL)) == 'EnumMember("%s.Scale", float64)' % __name__
    assert str(types.typeof(Switch.ON)) == 'EnumMember("%s.Switch", bool)' % __name__


@cuda.jit(device=True)
def pair_with_high(m):
    return (m, Level.HIGH)  # a tuple of enum members returned: its members stay enum members


@cuda.jit
def enums_in_tuple_arguments(out, t):
    out[0] = t[0].value + t[1]  # (Enum<float64>(Scale), IntEnum<int64>(Level))
    out[1] = 1 if t[0] is Scale.SMALL else 0
    p = pair_with_high(t[0])
    out[2] = p[0].value * p[1]


def test_enum_members_inside_tuple_arguments():
    out = np.zeros(3)
    enums_in_tuple_arguments[1, 1](out, (Scale.SMALL, Level.HIGH))
    np.testing.assert_array_equal(out, [10.5, 1, 5])
    enums_in_tuple_arguments[1, 1](out, (Scale.LARGE, Level.LOW))
    np.testing.assert_array_equal(out, [3.5, 0, 25])
    with pytest.raises(errors.TypingError, match="unknown attribute 'value' of float64"):
        enums_in_tuple_arguments[1, 1](out, (0.5, 10))  # plain numbers: another specialisation, typed on its own


def test_enums_numba_cannot_type():
    class Mixed(enum.Enum):
        ONE = 1
        HALF = 0.5

    def mixed(out):
        out[0] = Mixed.ONE.value

    with pytest.raises(errors.UnsupportedError, match="Cannot type heterogeneous enum Mixed: got value types float64, "
                                                      "int64"):
        cuda.jit(mixed)[1, 1](np.zeros(1))

    def name(out):
        out[0] = Level.LOW.name == "LOW"

    with pytest.raises(errors.TypingError, match="unknown attribute 'name' of IntEnum<int64>.*enum members have .value "
                                                 "only"):
        cuda.jit(name)[1, 1](np.zeros(1))


# ---- arrays bound on some paths only -------------------------------------------------------------------


@cuda.jit
def arrays_on_some_paths(out, a, b, m, n):
    i = cuda.grid(1)
    if i < out.shape[0]:
        if i < n:
            src = a
        elif i < 2 * n:
            src = b[1:]
        if i < n:
            row = m[i]  # a view a[i] of a matrix, bound on one path
        else:
            row = m[0, ::2]
        if i < 2 * n:
            out[i, 0] = src[i % 3]  # read where it is bound
        out[i, 1] = row[1]
        for j in range(i):
            last = a[j % 3:]  # bound only if the loop runs
        if i > 0:
            out[i, 2] = last[0]


@cuda.jit
def array_read_unbound(out, a, n):
    i = cuda.grid(1)
    if i < out.size:
        if i < n:
            src = a[::2]
        out[i] = src[0]


def test_array_variables_bound_on_some_paths():
    out = np.zeros((8, 3))
    a = np.arange(3.0)
    b = np.arange(10.0, 14.0)
    m = np.arange(32.0).reshape(8, 4)
    arrays_on_some_paths[1, 8](out, a, b, m, 3)
    expect = np.zeros((8, 3))
    for i in range(8):
        if i < 6:
            expect[i, 0] = (a if i < 3 else b[1:])[i % 3]
        expect[i, 1] = m[i][1] if i < 3 else m[0, ::2][1]
        if i > 0:
            expect[i, 2] = a[(i - 1) % 3:][0]
    np.testing.assert_array_equal(out, expect)


def test_an_array_read_where_unbound_raises_unbound_local_error():
    out = np.zeros(8)
    with pytest.raises(UnboundLocalError, match=r"test_firstclass.py:\d+:\d+: error: UnboundLocalError: cannot access "
                                                r"local variable 'src'"):
        array_read_unbound[1, 8](out, np.arange(6.0), 3)
    array_read_unbound[1, 8](out, np.arange(6.0), 8)
    np.testing.assert_array_equal(out, np.zeros(8))
