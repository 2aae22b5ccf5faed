"""GPU-only: kfront against numba-cuda on the same kernels and inputs (run by test/gpu/run_python_gpu.sh on the GPU
machine, where both are installed): closures and first-class values (issue 12) — inner defs and lambdas called
where they are defined (Numba inlines them), closures passed to device functions with their constant captures and
defaults (numba-cuda's test_make_function_to_jit_function cases), and numba-cuda's test_atomics helpers, which take
the dtype, the array size, the atomic op and a cast function as arguments. The same text is compiled by each (its
decorators included); enums whose members are floats (Numba types them float64) as constants and arguments, in tuples too; array
variables (slices, rows) bound on some paths only, read where bound; inner defs redefined per branch and lambdas
bound in loops, keyword arguments to device functions, enums of tuple and str values (members of enums of tuples
as kernel arguments too), dispatcher.signatures after lazy launches, positional-only parameters, literal_unroll, global tuples of functions and arrays, enum
classes passed to device functions, and the recursive
inner defs, keyword-only and **kwargs parameters numba-cuda refuses, refused."""
import enum
import linecache
import os

import numba
import numba.cuda as ncuda  # the GPU machine has numba-cuda: missing, the suite fails (it is not skipped)
import numpy as np
import pytest

from kfront import cuda as kcuda
from kfront import types as ktypes

os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")

CLOSURES = """
@cuda.jit
def closures(out, a):
    s = 3.0

    def scale(v):
        return v * s + a[0]

    g = lambda v: v + 2.0
    out[0] = scale(1.0)
    out[1] = g(5.0)
    base = 100.0

    def outer(x):
        def inner(y):
            return y + base
        return inner(x) * 2.0

    out[2] = outer(1.0)

    def store(i, v):
        a[i] = v

    store(1, 42.0)
    out[3] = a[1]
"""

ESCAPES = """
@cuda.jit(device=True)
def consumer(func, *args):
    return func(*args)


@cuda.jit(device=True)
def consumer_kw(func, x, y, z):
    return func(x, y, z, mydefault1=1000)


@cuda.jit
def escapes(out, x):
    t = 12

    def inner(a, b, c, mydefault1=123, mydefault2=456):
        z = 4
        return mydefault1 + mydefault2 + z + t + a + b + c

    out[0] = inner(1, 2, 5, 91, 53)
    out[1] = consumer(inner, 1, 2, 3, 73)
    out[2] = consumer_kw(inner, 1, 2, x)
    out[3] = inner(1, 2, 4)
"""

ATOMICS = """
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
def atomic_add(ary):
    atomic_binary_1dim_shared(ary, ary, 1, types.uint32, 32, cuda.atomic.add, atomic_cast_none, 0, False)


@cuda.jit
def atomic_sub2(ary):
    atomic_binary_2dim_shared(ary, 1, types.uint32, (4, 8), cuda.atomic.sub, atomic_cast_none, False)


@cuda.jit
def atomic_max_float(ary, idx):
    atomic_binary_1dim_shared(ary, idx, 1.5, types.float64, 32, cuda.atomic.max, atomic_cast_none, 0.0, True)
"""


def compile_both(src, name, tag):
    kernels = []
    for module, types in ((ncuda, numba.types), (kcuda, ktypes)):
        fname = "<vs-numba %s %s>" % (tag, module.__name__)
        linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
        scope = {"cuda": module, "np": np, "types": types}
        exec(compile(src, fname, "exec"), scope)
        kernels.append(scope[name])
    return kernels


def test_closures_match_numba():
    outs = []
    for k in compile_both(CLOSURES, "closures", "closures"):
        out = np.zeros(4)
        a = np.array([0.5, 0.0])
        k[1, 1](out, a)
        outs.append((out, a))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_array_equal(outs[0][1], outs[1][1])
    np.testing.assert_array_equal(outs[1][0], [3.5, 7.0, 202.0, 42.0])


def test_escaping_closures_match_numba():
    outs = []
    for k in compile_both(ESCAPES, "escapes", "escapes"):
        out = np.zeros(4, np.int64)
        k[1, 1](out, 11)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])


def test_atomic_helpers_match_numba():
    rng = np.random.default_rng(5)
    ary = rng.integers(0, 32, size=32).astype(np.uint32)
    a2 = rng.integers(1, 32, size=(4, 8)).astype(np.uint32)
    fl = rng.random(32)
    idx = rng.integers(-32, 32, size=32)
    kernels = [compile_both(ATOMICS, name, name) for name in ("atomic_add", "atomic_sub2", "atomic_max_float")]
    res = []
    for which in (0, 1):  # numba-cuda, kfront
        add, sub2, fmax = (k[which] for k in kernels)
        x, y, z = ary.copy(), a2.copy(), fl.copy()
        add[1, 32](x)
        sub2[1, (4, 8)](y)
        fmax[1, 32](z, idx)
        res.append((x, y, z))
    for a, b in zip(res[0], res[1]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(res[1][0], np.bincount(ary, minlength=32))
    np.testing.assert_array_equal(res[1][1], a2 - 1)


class Scale(enum.Enum):
    SMALL = 0.5
    LARGE = 2.5


ENUMS = """
@cuda.jit(device=True)
def scaled(s, x):
    return s.value * x


@cuda.jit
def enums(out, s, pair):
    out[0] = Scale.LARGE.value
    out[1] = scaled(s, 4.0)
    if s == Scale.SMALL:
        out[2] = 1.0
    t = (Scale.SMALL, Scale.LARGE)
    out[3] = t[0].value + t[1].value
    out[4] = pair[0].value * pair[1].value
"""


def test_float_enums_match_numba():
    outs = []
    for module in (ncuda, kcuda):
        fname = "<vs-numba enums %s>" % module.__name__
        linecache.cache[fname] = (len(ENUMS), None, ENUMS.splitlines(True), fname)
        scope = {"cuda": module, "Scale": Scale}
        exec(compile(ENUMS, fname, "exec"), scope)
        for s in (Scale.SMALL, Scale.LARGE):
            out = np.zeros(5)
            scope["enums"][1, 1](out, s, (s, Scale.LARGE))
            outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[2])
    np.testing.assert_array_equal(outs[1], outs[3])
    np.testing.assert_array_equal(outs[2], [2.5, 2.0, 1.0, 3.0, 1.25])


ARRAYS = """
@cuda.jit
def arrays(out, a, b, m, n):
    i = cuda.grid(1)
    if i < out.shape[0]:
        if i < n:
            src = a
        elif i < 2 * n:
            src = b[1:]
        if i < n:
            row = m[i]
        else:
            row = m[0, ::2]
        if i < 2 * n:
            out[i, 0] = src[i % 3]
        out[i, 1] = row[1]
        for j in range(i):
            last = a[j % 3:]
        if i > 0:
            out[i, 2] = last[0]
"""


def test_arrays_bound_on_some_paths_match_numba():
    a = np.arange(3.0)
    b = np.arange(10.0, 14.0)
    m = np.arange(32.0).reshape(8, 4)
    outs = []
    for k in compile_both(ARRAYS, "arrays", "arrays"):
        out = np.zeros((8, 3))
        k[1, 8](out, a, b, m, 3)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])


REDEFINED = """
@cuda.jit(device=True)
def d_pos(x, y=1.0, z=2.0):
    return x - y * z


@cuda.jit
def redefined(out, c, n):
    if c:
        def f(x):
            return x + 1.0
        out[0] = f(3.0)
    else:
        def f(x):
            return x - 10.0
        out[0] = f(3.0)
    for i in range(n):
        g = lambda x: x + i
    out[1] = g(1.0)
    acc = 0.0
    for i in range(n):
        h = lambda x: x * i
        acc += h(2.0)
    out[2] = acc
    out[3] = d_pos(5.0, z=10.0)
    out[4] = d_pos(z=1.0, x=2.0)
    out[5] = d_pos(1.0, 2.0)
"""


def test_closures_redefined_in_branches_and_loops_match_numba():
    """Inner defs redefined per branch and called there (numba-cuda makes each a function of its own), a lambda
    bound in a loop and called after it (numba-cuda inlines it, reading the loop variable's last value), keyword
    arguments to a device function (folded by numba-cuda's dispatcher)."""
    outs = []
    for k in compile_both(REDEFINED, "redefined", "redefined"):
        for c, n in ((1, 4), (0, 3)):
            out = np.zeros(6)
            k[1, 1](out, c, n)
            outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[2])
    np.testing.assert_array_equal(outs[1], outs[3])
    np.testing.assert_array_equal(outs[2], [4.0, 4.0, 12.0, -5.0, 1.0, -3.0])
    np.testing.assert_array_equal(outs[3], [-7.0, 3.0, 6.0, -5.0, 1.0, -3.0])


class Planet(enum.Enum):
    EARTH = (5.976e24, 6.37814e6)
    MARS = (6.421e23, 3.3972e6)


class Grid(enum.Enum):
    SMALL = ((2, 2), (1, 1))
    LARGE = ((8, 4), (2, 2))


class Letter(enum.Enum):
    A = "a"
    BEE = "bee"


VALUED = """
@cuda.jit(device=True)
def radius(p):
    return p.value[1]


@cuda.jit
def valued(out, n):
    p = Planet.EARTH
    if n > 0:
        p = Planet.MARS
    out[0] = p.value[0] / 1e23
    out[1] = radius(p)
    out[2] = p == Planet.MARS
    out[3] = len(Letter.BEE.value)
    s = Letter.A
    if n > 0:
        s = Letter.BEE
    out[4] = s == Letter.BEE
    g = Grid.SMALL
    if n > 1:
        g = Grid.LARGE
    shape, step = g.value
    out[5] = shape[0] * shape[1] + step[0]
    v = s.value
    out[6] = len(v)
    out[7] = v == "bee"
"""


def test_tuple_and_str_enums_match_numba():
    """Enums whose values are tuples (numba-cuda: EnumMember of a UniTuple) or strings (of unicode_type): members
    chosen at run time, their tuple values, a device function taking a member, len() of a constant member's string,
    len() and == of a string chosen at run time (numba-cuda's unicode_type; kfront chooses among the members')."""
    outs = []
    for module in (ncuda, kcuda):
        fname = "<vs-numba valued %s>" % module.__name__
        linecache.cache[fname] = (len(VALUED), None, VALUED.splitlines(True), fname)
        scope = {"cuda": module, "Planet": Planet, "Grid": Grid, "Letter": Letter}
        exec(compile(VALUED, fname, "exec"), scope)
        for n in (0, 2):
            out = np.zeros(8)
            scope["valued"][1, 1](out, n)
            outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[2])
    np.testing.assert_array_equal(outs[1], outs[3])
    np.testing.assert_allclose(outs[2], [59.76, 6.37814e6, 0, 3, 0, 5, 1, 0])
    np.testing.assert_allclose(outs[3], [6.421, 3.3972e6, 1, 3, 1, 34, 3, 1])


MEMBER_ARGS = """
@cuda.jit
def compare(a, b, out):
    out[0] = a == b
    out[1] = a != b
    out[2] = a is b
    out[3] = a is not b


@cuda.jit
def member_args(out, p, t):
    out[0] = p.value[0] / 1e23
    out[1] = radius(p)
    out[2] = p == Planet.MARS
    g, k = t
    shape, step = g.value
    out[3] = shape[0] * shape[1] + step[1] * k


@cuda.jit(device=True)
def radius(p):
    return p.value[1]
"""


def test_members_of_enums_of_tuples_as_kernel_arguments_match_numba():
    """Members of enums of tuples as kernel arguments (numba-cuda passes the value, typed EnumMember of the tuple;
    kfront the member's index), alone and inside a tuple; numba-cuda's test_enums.test_compare pairs."""
    outs = []
    for module in (ncuda, kcuda):
        fname = "<vs-numba member args %s>" % module.__name__
        linecache.cache[fname] = (len(MEMBER_ARGS), None, MEMBER_ARGS.splitlines(True), fname)
        scope = {"cuda": module, "Planet": Planet, "Grid": Grid}
        exec(compile(MEMBER_ARGS, fname, "exec"), scope)
        for a, b in [(Planet.EARTH, Planet.EARTH), (Planet.EARTH, Planet.MARS), (Grid.SMALL, Grid.LARGE)]:
            got = np.zeros(4, np.bool_)
            scope["compare"][1, 1](a, b, got)
            outs.append(got)
        for p, t in [(Planet.MARS, (Grid.LARGE, 3)), (Planet.EARTH, (Grid.SMALL, 1))]:
            out = np.zeros(4)
            scope["member_args"][1, 1](out, p, t)
            outs.append(out)
    half = len(outs) // 2
    for x, y in zip(outs[:half], outs[half:]):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_allclose(outs[half + 3], [6.421, 3.3972e6, 1, 38])


REFUSED = """
@cuda.jit
def self_recursive(out, n):
    def fact(k):
        return 1 if k <= 1 else k * fact(k - 1)
    out[0] = fact(n)


@cuda.jit
def mutual_inner(out, n):
    def ev(k):
        return True if k == 0 else od(k - 1)
    def od(k):
        return False if k == 0 else ev(k - 1)
    out[0] = ev(n)


@cuda.jit
def kwonly_inner(out, n):
    def f(x, *, y=3.0):
        return x + y
    out[0] = f(1.0)


@cuda.jit(device=True)
def d_kwonly(x, *, y):
    return x + y


@cuda.jit
def kwonly_device(out, n):
    out[0] = d_kwonly(1.0, y=2.0)


@cuda.jit(device=True)
def d_varkw(x, **kw):
    return x


@cuda.jit
def varkw_device(out, n):
    out[0] = d_varkw(1.0)
"""

# what numba-cuda 0.30.4 says (read from its sources: the interpreter's LOAD_CLOSURE of a cell not yet bound,
# op_MAKE_FUNCTION with kwdefaults, fold_arguments on keyword-only and **kwargs parameters) and kfront's refusal
REFUSALS = [
    ("self_recursive", "Unsupported use of cell variable encountered", "a self-recursive inner function is not supported"),
    ("mutual_inner", "Unsupported use of cell variable encountered", "'ev' reads 'od', which is assigned only after"),
    ("kwonly_inner", "op_MAKE_FUNCTION with kwdefaults is not implemented", "'y' is a keyword-only parameter"),
    ("kwonly_device", "", "'y' is a keyword-only parameter"),
    ("varkw_device", "", "kwargs parameters are not supported in device functions"),
]


@pytest.mark.parametrize("name,numba_says,kfront_says", REFUSALS)
def test_recursive_inner_defs_keyword_only_and_kwargs_refused_as_numba_refuses(name, numba_says, kfront_says):
    """Self- and mutually recursive inner defs, keyword-only and **kwargs parameters: numba-cuda refuses them (an
    empty numba_says: its failure is internal, an IndexError or AssertionError in its argument folding, so only the
    refusal is checked), and so does kfront, with a located error saying why."""
    nk, kk = compile_both(REFUSED, name, "refused " + name)
    with pytest.raises(Exception) as e:
        nk[1, 1](np.zeros(1), 3)
    assert numba_says in str(e.value)
    with pytest.raises(Exception, match=kfront_says):
        kk[1, 1](np.zeros(1), 3)


def test_positional_only_and_keyword_arguments_to_device_functions_match_numba():
    src = """
@cuda.jit(device=True)
def d(x, y=2.0, /, z=3.0):
    return x * 100.0 + y * 10.0 + z


@cuda.jit
def posonly(out):
    out[0] = d(1.0, z=5.0)
    out[1] = d(1.0, 4.0)
    out[2] = d(1.0, 4.0, 6.0)
"""
    outs = []
    for k in compile_both(src, "posonly", "posonly"):
        out = np.zeros(3)
        k[1, 1](out)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[1], [125.0, 143.0, 146.0])


UNROLLED = """
@cuda.jit(device=True)
def square(x):
    return x * x


@cuda.jit(device=True)
def negate(x):
    return -x


FUNCTIONS = (square, negate)
WEIGHTED = ((square, 1.0), (negate, 2.0))
CASES = (np.arange(4.0), np.ones((2, 3), np.int32), np.float32([[1.5]]))


@cuda.jit
def unrolled(out, x, t):
    acc = 0.0
    for f in cuda.literal_unroll((square, negate)):
        acc += f(x)
    out[0] = acc
    acc = 0.0
    for f in cuda.literal_unroll(FUNCTIONS):
        acc += f(x)
    out[1] = acc
    for p in cuda.literal_unroll(WEIGHTED):
        out[2] += p[0](x) * p[1]
    i = 3
    for v in cuda.literal_unroll(t):
        out[i] = v
        i += 1
    for c in cuda.literal_unroll([0.5, 2]):
        out[9] += c
    for case in cuda.literal_unroll(CASES):
        out[i] = case.size
        i += 1
"""


def test_literal_unroll_beyond_numba():
    """literal_unroll over tuples of device functions (written in the loop, module-level, (function, weight)
    pairs), a mixed-type tuple argument, a list of constants and a module-level tuple of arrays: kfront runs the body
    once per item. numba-cuda 0.30.4 exports cuda.literal_unroll, but its CUDA pipeline types no heterogeneous
    tuple there (on the H200: "Invalid use of getiter with parameters (Tuple(int64, float64, bool))")."""
    nk, kk = compile_both(UNROLLED, "unrolled", "unrolled")
    with pytest.raises(Exception, match="getiter"):
        nk[1, 1](np.zeros(10), 3.0, (1, 2.5, True))
    out = np.zeros(10)
    kk[1, 1](out, 3.0, (1, 2.5, True))
    np.testing.assert_array_equal(out, [6.0, 6.0, 3.0, 1.0, 2.5, 1.0, 4.0, 6.0, 1.0, 2.5])


GLOBAL_TUPLES = """
@cuda.jit(device=True)
def square(x):
    return x * x


@cuda.jit(device=True)
def negate(x):
    return -x


FUNCTIONS = (square, negate)
CASES = (np.arange(4.0), np.ones((2, 3), np.int32), np.float32([[1.5]]))


@cuda.jit
def global_tuples(out, x):
    out[0] = FUNCTIONS[0](x) + FUNCTIONS[1](x)
    out[1] = CASES[0].size * 100 + CASES[1].size * 10 + CASES[2].size
    out[2] = CASES[0][3] + CASES[1][1, 2] + CASES[2][0, 0]
"""


def test_global_tuples_of_functions_and_arrays_match_numba():
    """Module-level tuples of device functions (numba-cuda: a Tuple of Dispatcher types) and of arrays of different
    ranks and dtypes (constant arrays), indexed."""
    outs = []
    for k in compile_both(GLOBAL_TUPLES, "global_tuples", "global tuples"):
        out = np.zeros(3)
        k[1, 1](out, 3.0)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[1], [6.0, 461.0, 5.5])


class Hue(enum.Enum):
    RED = 7
    GREEN = 8


ENUM_CLASSES = """
@cuda.jit(device=True)
def red_value(cls):
    return cls.RED.value


@cuda.jit
def enum_classes(out, c):
    out[0] = red_value(Hue)
    out[1] = red_value(Scale2)
    out[2] = c == Hue.GREEN
"""


class Scale2(enum.Enum):
    RED = 2.5
    BLUE = 0.5


def test_enum_classes_passed_to_device_functions_match_numba():
    """An enum class as a device function's argument (numba-cuda's EnumClass, an opaque value): one
    specialisation per class."""
    outs = []
    for module in (ncuda, kcuda):
        fname = "<vs-numba enum classes %s>" % module.__name__
        linecache.cache[fname] = (len(ENUM_CLASSES), None, ENUM_CLASSES.splitlines(True), fname)
        scope = {"cuda": module, "Hue": Hue, "Scale2": Scale2}
        exec(compile(ENUM_CLASSES, fname, "exec"), scope)
        out = np.zeros(3)
        scope["enum_classes"][1, 1](out, Hue.GREEN)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[1], [7.0, 2.5, 1.0])


def test_signatures_after_lazy_launches_match_numba():
    """dispatcher.signatures lists what the launches compiled, in order, as numba-cuda's does: a tuple of argument
    types each (kfront's types print as signature text, float32[::1]; numba's as array(float32, 1d, C))."""
    src = """
@cuda.jit
def put(a, x):
    a[0] = x
"""
    sigs = []
    for k in compile_both(src, "put", "signatures"):
        assert k.signatures == []
        k[1, 1](np.zeros(2), 1.5)
        k[1, 1](np.zeros(2, np.float32), 2)
        k[1, 1](np.zeros(2), 2.5)
        assert list(k.signatures) == list(k.overloads)
        sigs.append(k.signatures)
    assert [len(s) for s in sigs[0]] == [2, 2] and len(sigs[1]) == 2
    assert [[str(t) for t in s] for s in sigs[0]] == [["array(float64, 1d, C)", "float64"],
                                                      ["array(float32, 1d, C)", "int64"]]
    assert [[str(t) for t in s] for s in sigs[1]] == [["float64[::1]", "float64"], ["float32[::1]", "int64"]]
