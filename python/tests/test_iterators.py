"""zip() and enumerate() in kernels (on the simulator in CI, on the GPU in the GPU suite): numba-cuda's
test_iterators kernels, zips ending with their shortest iterable, ranges and views among the iterables, a start for
enumerate, break in such loops, tuples zipped and enumerated at compile time; the forms kfront refuses, located."""
import numpy as np
import pytest

from kfront import cuda, errors


# ---- numba-cuda's test_iterators ----

@cuda.jit
def enumerator(x, error):
    count = 0
    for i, v in enumerate(x):
        if count != i:
            error[0] = 1
        if v != x[i]:
            error[0] = 2
        count += 1
    if count != len(x):
        error[0] = 3


@cuda.jit
def zipper(x, y, error):
    i = 0
    for xv, yv in zip(x, y):
        if xv != x[i]:
            error[0] = 1
        if yv != y[i]:
            error[0] = 2
        i += 1
    if i != len(x):
        error[0] = 3


@cuda.jit
def enumerator_zipper(x, y, error):
    count = 0
    for i, (xv, yv) in enumerate(zip(x, y)):
        if i != count:
            error[0] = 1
        if xv != x[i]:
            error[0] = 2
        if yv != y[i]:
            error[0] = 3
        count += 1
    if count != len(x):
        error[0] = 4


@cuda.jit
def zipper_enumerator(x, y, error):
    count = 0
    for (i, xv), yv in zip(enumerate(x), y):
        if i != count:
            error[0] = 1
        if xv != x[i]:
            error[0] = 2
        if yv != y[i]:
            error[0] = 3
        count += 1
    if count != len(x):
        error[0] = 4


def test_numba_iterators():
    x = np.asarray((10, 9, 8, 7, 6))
    y = np.asarray((1, 2, 3, 4, 5))
    error = np.zeros(1, dtype=np.int32)
    enumerator[1, 1](x, error)
    assert error[0] == 0
    for f in (zipper, enumerator_zipper, zipper_enumerator):
        error = np.zeros(1, dtype=np.int32)
        f[1, 1](x, y, error)
        assert error[0] == 0, f


# ---- more forms ----

@cuda.jit
def shortest(a, b, out):
    # zip of three, one a range with a step, ends with the shortest
    n = 0
    for k, (x, y) in enumerate(zip(a, b), 10):
        out[n] = k * 1000 + x * 10 + y
        n += 1
    for r, x, y in zip(range(100, 0, -7), a, b[1:]):
        out[n] = r + x * y
        n += 1
    out[out.size - 1] = n


def test_shortest_start_ranges_views():
    a = np.arange(6, dtype=np.int64)
    b = np.arange(4, dtype=np.int64) + 1
    want = [k * 1000 + x * 10 + y for k, (x, y) in enumerate(zip(a, b), 10)]
    want += [r + x * y for r, x, y in zip(range(100, 0, -7), a, b[1:])]
    out = np.zeros(len(want) + 1, dtype=np.int64)
    shortest[1, 1](a, b, out)
    assert out[-1] == len(want)
    np.testing.assert_array_equal(out[:-1], want)


@cuda.jit
def rows_and_break(m, v, out):
    # zip over a 2-d array gives its rows (views); break leaves the loop
    for i, (row, w) in enumerate(zip(m, v)):
        if w < 0:
            break
        s = 0.0
        for x in row:
            s += x
        out[i] = s * w


def test_rows_and_break():
    m = np.arange(12, dtype=np.float64).reshape(4, 3)
    v = np.array([1.0, 2.0, -1.0, 4.0])
    out = np.zeros(4)
    rows_and_break[1, 1](m, v, out)
    np.testing.assert_array_equal(out, [3.0, 24.0, 0.0, 0.0])


@cuda.jit
def static_tuples(out):
    # tuples zipped and enumerated at compile time (the loop is unrolled)
    t = (1, 2.5, 3)
    u = (10, 20)
    acc = 0.0
    for i, (a, b) in enumerate(zip(t, u)):
        acc += i * 100 + a * b
    for i, a in enumerate(t, 1):
        acc += i * a
    out[0] = acc


def test_static_tuples():
    out = np.zeros(1)
    static_tuples[1, 1](out)
    want = sum(i * 100 + a * b for i, (a, b) in enumerate(zip((1, 2.5, 3), (10, 20))))
    want += sum(i * a for i, a in enumerate((1, 2.5, 3), 1))
    assert out[0] == want


@cuda.jit
def zero_step(a, step, out):
    n = 0
    for i, x in zip(range(0, 10, step), a):
        n += 1
    out[0] = n


def test_range_step_zero_raises():
    out = np.zeros(1, dtype=np.int64)
    zero_step[1, 1](np.zeros(4), 3, out)
    assert out[0] == 4
    with pytest.raises(ValueError) as e:
        zero_step[1, 1](np.zeros(4), 0, out)
    assert "range() arg 3 must not be zero" in str(e.value)


def test_refused_forms():
    @cuda.jit
    def keyword(a):
        for i, x in enumerate(a, start=1):
            a[0] = x

    with pytest.raises(errors.TypingError) as e:
        keyword[1, 1](np.zeros(3))
    assert "enumerate() takes no keyword arguments" in str(e.value)
    assert e.value.line == keyword.py_func.__code__.co_firstlineno + 2

    @cuda.jit
    def mixed(a):
        for x, y in zip((1, 2), a):
            a[0] = x

    with pytest.raises(errors.UnsupportedError) as e:
        mixed[1, 1](np.zeros(3))
    assert "zip() of tuples and of arrays or ranges together is not supported" in str(e.value)

    @cuda.jit
    def as_value(a):
        z = zip(a, a)

    with pytest.raises(errors.TypingError) as e:
        as_value[1, 1](np.zeros(3))
    assert "zip() can only be used as the iterable of a for loop" in str(e.value)
