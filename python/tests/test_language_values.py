"""kfront.cuda on the simulator (KFRONT_SIM=1 in the test command; on the GPU by test/gpu/run_python_gpu.sh):
values real numba-cuda code reads that issue 22 found missing — attributes of the program's own modules,
tuple(...), namedtuple arguments, 0-d arrays, global device arrays. Expected values are numba-cuda 0.30.4's (its
simulator, NUMBA_ENABLE_CUDASIM=1, run on the same kernels), written as literals or computed with NumPy where
exact; what numba-cuda refuses is a TypingError located at the use."""
import typing
from collections import namedtuple

import numpy as np
import pytest

import langvalues_config as config
import langvalues_config as cfg
import langvalues_pkg as pkg
from kfront import cuda, errors
from kfront import types as kftypes
from langvalues_pkg import kernels as pkg_kernels


def run(kernel, *args, n=1):
    kernel[1, n](*args)
    return args


# ---- attributes of the program's own modules ------------------------------------------------------------------


@cuda.jit
def module_attributes(out):
    out[0] = config.THRESHOLD
    out[1] = config.SCALE
    out[2] = config.LIMITS[1]
    out[3] = config.WEIGHTS[2]
    out[4] = config.Color.GREEN
    out[5] = config.scaled(3)           # a @cuda.jit device function through the module
    out[6] = pkg.sub.CONST              # a submodule's constant
    out[7] = cfg.THRESHOLD + len(config.LIMITS)  # the module under another name
    out[8] = config.np.float32(1.5)     # a module the module imported (import numpy as np)


def test_module_attributes():
    out = np.zeros(9)
    run(module_attributes, out)
    # numba-cuda 0.30.4's simulator: [5, 2.5, 2, 30, 2, 15, 7, 8, 1.5]
    assert out.tolist() == [5, 2.5, 2, 30, 2, 15, 7, 8, 1.5]


def test_relative_import():
    out = np.zeros(1)
    run(pkg_kernels.add_offset, out)
    assert out[0] == 101  # numba-cuda: 101


@cuda.jit
def reads_threshold(out):
    out[0] = config.THRESHOLD


def test_module_attributes_frozen_at_first_compile(monkeypatch):
    out = np.zeros(1)
    run(reads_threshold, out)
    monkeypatch.setattr(config, "THRESHOLD", 50)
    run(reads_threshold, out)
    assert out[0] == 5  # frozen as globals are (numba-cuda: 5 after the change too)


@cuda.jit
def reads_list(out):
    out[0] = config.NAMES[0]


@cuda.jit
def reads_missing(out):
    out[0] = config.MISSING


@cuda.jit
def calls_plain(out):
    out[0] = config.plain(1)


@cuda.jit
def reads_too_big(out):
    out[0] = config.TOO_BIG


@pytest.mark.parametrize("kernel, message", [
    (reads_list, "'config.NAMES': a Python list, which kernels cannot use"),
    (reads_missing, "module 'langvalues_config' has no attribute 'MISSING'"),
    (calls_plain, "'config.plain': a Python function that is not a @cuda.jit device function"),
    (reads_too_big, "fits in neither int64 nor uint64"),
])
def test_module_attribute_errors(kernel, message):
    with pytest.raises(errors.TypingError) as e:
        run(kernel, np.zeros(1))
    assert message in str(e.value)
    assert "test_language_values.py:%d:" % (kernel.py_func.__code__.co_firstlineno + 2) in str(e.value)


# ---- tuple(...) ---------------------------------------------------------------------------------------------


@cuda.jit
def tuple_calls(out, a, t):
    u = tuple(t)
    out[0] = u[1]
    s = tuple(a.shape)
    out[1] = s[0] * 10 + s[1]
    e = tuple()
    out[2] = len(e)
    out[3] = len(tuple(()))


def test_tuple_calls():
    out = np.zeros(4)
    run(tuple_calls, out, np.zeros((2, 3)), (4, 5))
    assert out.tolist() == [5, 23, 0, 0]  # numba-cuda: [5, 23, 0, 0]


@cuda.jit
def tuple_of_array(out):
    out[0] = tuple(out)[0]


@cuda.jit
def tuple_of_range(out):
    out[0] = tuple(range(3))[0]


@pytest.mark.parametrize("kernel, message", [
    (tuple_of_array, "no implementation of tuple() for array(float64, 1d, C)"),
    (tuple_of_range, "range()"),
])
def test_tuple_refused(kernel, message):
    # numba-cuda's TupleConstructor takes a tuple or nothing: tuple(array) and tuple(range(3)) are TypingErrors
    with pytest.raises(errors.TypingError) as e:
        run(kernel, np.zeros(1))
    assert message in str(e.value)


# ---- namedtuples ------------------------------------------------------------------------------------------------

Point = namedtuple("Point", ["x", "y"])
Other = namedtuple("Other", ["x", "y"])  # the same fields: another type
Points = namedtuple("Points", ["xs", "ys"])


class Mixed(typing.NamedTuple):
    i: int
    f: float


ORIGIN = Point(3, 4)


@cuda.jit(device=True)
def point_sum(p):
    return p.x + p.y


@cuda.jit(device=True)
def make_point(a):
    return Point(a, y=a * 2)


@cuda.jit
def namedtuple_reads(out, p):
    out[0] = p.x
    out[1] = p[1]
    a, b = p
    out[2] = a * 10 + b
    out[3] = len(p)
    s = 0
    for v in p:
        s += v
    out[4] = s
    out[5] = point_sum(p)


@pytest.mark.parametrize("arg, expected", [
    (Point(2, 5), [2, 5, 25, 2, 7, 7]),        # numba-cuda: [2, 5, 25, 2, 7, 7]
    (Other(3, 4), [3, 4, 34, 2, 7, 7]),        # numba-cuda: [3, 4, 34, 2, 7, 7]
    (Point(2.5, 1.0), [2.5, 1, 26, 2, 3.5, 3.5]),  # numba-cuda: [2.5, 1, 26, 2, 3.5, 3.5]
])
def test_namedtuple_argument(arg, expected):
    out = np.zeros(6)
    run(namedtuple_reads, out, arg)
    assert out.tolist() == expected


@cuda.jit
def namedtuple_made(out, m, pts):
    q = make_point(3)
    out[0] = q.x
    out[1] = q.y
    out[2] = m.i
    out[3] = m.f
    t = Point(x=1.5, y=2)
    out[4] = t.x + t.y
    out[5] = ORIGIN.x * ORIGIN.y
    i = cuda.grid(1)
    if i < pts.xs.size:
        pts.ys[i] = pts.xs[i] * 2
    out[6] = Mixed(7, 0.5).f + Mixed(i=1, f=2.0).i


def test_namedtuple_made_in_kernels():
    out = np.zeros(7)
    xs, ys = np.arange(4.0), np.zeros(4)
    run(namedtuple_made, out, Mixed(4, 2.5), Points(xs, ys), n=4)
    # numba-cuda 0.30.4's simulator: [3, 6, 4, 2.5, 3.5, 12, 1.5] and ys [0, 2, 4, 6]
    assert out.tolist() == [3, 6, 4, 2.5, 3.5, 12, 1.5]
    assert ys.tolist() == [0, 2, 4, 6]


@cuda.jit
def namedtuple_nested(out, t):
    out[0] = t[0].x + t[1].i
    out[1] = t[1].f


def test_tuple_of_namedtuples():
    out = np.zeros(2)
    run(namedtuple_nested, out, (Point(1, 2), Mixed(3, 4.5)))
    assert out.tolist() == [4, 4.5]  # numba-cuda: [4, 4.5]


@cuda.jit
def first_item(out, p):
    out[0] = p[0]


def test_namedtuple_classes_are_types():
    out = np.zeros(1)
    for arg in (Point(1, 2), Other(1, 2), (1, 2), Point(5, 6)):
        run(first_item, out, arg)
    # as numba types them: Point(int64 x 2), Other(int64 x 2) and UniTuple(int64 x 2) are three types
    assert [str(s[1]) for s in first_item.signatures] == [
        'NamedTuple("test_language_values.Point", ("x", "y"), (int64, int64))',
        'NamedTuple("test_language_values.Other", ("x", "y"), (int64, int64))', "UniTuple(int64, 2)"]
    assert out[0] == 5

    def make():
        return namedtuple("Point", ["x", "y"])
    a, b = make(), make()  # two classes of one name: two types
    run(first_item, out, a(1, 2))
    run(first_item, out, b(7, 2))
    assert len(first_item.signatures) == 5 and out[0] == 7
    assert kftypes.typeof(Point(1, 2)) != kftypes.typeof(Other(1, 2))


@cuda.jit
def namedtuple_or_tuple(out, p, q):
    t = p if out[0] > 0 else q
    out[1] = t[0]


@cuda.jit
def namedtuple_missing_field(out, p):
    out[0] = p.z


@cuda.jit
def namedtuple_missing_argument(out, p):
    out[0] = Point(1).x


@pytest.mark.parametrize("kernel, message", [
    # numba: Cannot unify Point(int64 x 2) and UniTuple(int64 x 2)
    (namedtuple_or_tuple, "cannot unify Point(int64 x 2) and UniTuple(int64 x 2)"),
    # numba: Unknown attribute 'z' of type Point(int64 x 2)
    (namedtuple_missing_field, "unknown attribute 'z' of Point(int64 x 2)"),
    # numba types Point(1) and then fails to lower the default it lacks; kfront says what is missing
    (namedtuple_missing_argument, "Point() missing required argument 'y'"),
])
def test_namedtuple_refused(kernel, message):
    with pytest.raises(errors.TypingError) as e:
        run(kernel, np.zeros(2), Point(1, 2), (1, 2)) if kernel is namedtuple_or_tuple else run(
            kernel, np.zeros(2), Point(1, 2))
    assert message in str(e.value)


# ---- 0-d arrays -------------------------------------------------------------------------------------------------


@cuda.jit(device=True)
def doubled_element(a):
    return a[()] * 2


@cuda.jit
def zero_d(r, x, s, out):
    r[()] = x[()] + doubled_element(x) + s
    x[()] = 7.0
    out[0] = r.ndim
    out[1] = r.size
    out[2] = len(x.shape)
    out[3] = x.shape == ()


def test_zero_d_host_arrays():
    r, x, out = np.zeros(()), np.array(1.5), np.zeros(4)
    run(zero_d, r, x, np.float64(0.25), out)  # np.float64(0.25) a scalar, np.array(1.5) a 0-d array
    # numba-cuda 0.30.4's simulator: 4.75 7.0 [0, 1, 0, 1]
    assert (r[()], x[()], out.tolist()) == (4.75, 7.0, [0, 1, 0, 1])
    assert [str(t) for t in zero_d.signatures[0]] == ["float64[()]", "float64[()]", "float64", "float64[::1]"]


def test_zero_d_device_arrays():
    r, x, out = cuda.to_device(np.zeros(())), cuda.to_device(np.array(2.0)), np.zeros(4)
    run(zero_d, r, x, 1.0, out)
    assert (r.copy_to_host()[()], x.copy_to_host()[()]) == (7.0, 7.0)  # numba-cuda: 7.0 7.0


@cuda.jit("void(float64[()], float64[()])")
def zero_d_eager(r, x):
    r[()] = x[()] * 3


def test_zero_d_eager_signature():
    r = np.zeros(())
    run(zero_d_eager, r, np.array(2.0))
    assert r[()] == 6.0


@cuda.jit
def zero_d_indexed(r):
    r[0] = 1.0


def test_zero_d_indexed_refused():
    # numba-cuda: No implementation of function setitem(array(float64, 0d, C), int64, float64)
    with pytest.raises(errors.TypingError, match=r"too many indices for array\(float64, 0d, C\): 1 given"):
        run(zero_d_indexed, np.zeros(()))


def test_zero_d_integer_array_as_an_index():
    # numba's typing takes a 0-d integer array as an integer index (numba-cuda's cache_usecases.record_return,
    # called with np.asarray(i))
    @cuda.jit
    def pick(r, ary, i):
        r[()] = ary[i]

    @cuda.jit
    def pick2(r, ary, i):
        r[0] = ary[i, i]

    ary = np.arange(5.0)
    r = np.zeros(())
    for i in (3, -1):
        pick[1, 1](r, ary, np.asarray(i))
        assert r == ary[i]
    r2 = np.zeros(1)
    pick2[1, 1](r2, np.arange(9.0).reshape(3, 3), np.asarray(2, np.int32))
    assert r2[0] == 8.0
