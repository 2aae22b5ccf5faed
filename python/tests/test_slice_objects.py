"""Slice objects in kernels on the simulator (KFRONT_SIM=1 in the test command; test/gpu/python/test_control_vs_numba.py
runs the same kinds of kernels against numba-cuda): slice(...) and its start/stop/step as Numba fills them in,
s.indices(n) against Python's, arrays indexed with slice objects against NumPy (reads, stores, mixed with integers,
tuples of slices), slice objects passed to and returned from device functions, in tuples, chosen by conditions,
carried around loops; the run-time ValueErrors and the located refusals."""
import numpy as np
import pytest

from kfront import cuda, errors

INT64_MAX = 2**63 - 1
INT64_MIN = -2**63


def numba_fields(start, stop, step):
    """start, stop, step as Numba's slice constructor fills them in."""
    step = 1 if step is None else step
    if start is None:
        start = INT64_MAX if step < 0 else 0
    if stop is None:
        stop = INT64_MIN if step < 0 else INT64_MAX
    return [start, stop, step]


@cuda.jit
def fields(out, n, st):
    a = slice(n)
    b = slice(None)
    c = slice(2, None)
    d = slice(None, None, st)
    e = slice(-1, n, st)
    k = 0
    for s in (a, b, c):
        out[k] = s.start
        out[k + 1] = s.stop
        out[k + 2] = s.step
        k += 3
    for s in (d, e):
        out[k] = s.start
        out[k + 1] = s.stop
        out[k + 2] = s.step
        k += 3


@pytest.mark.parametrize("st", [1, 3, -1, -2])
def test_fields_as_numba_fills_them(st):
    out = np.zeros(15, np.int64)
    fields[1, 1](out, 7, st)
    want = (numba_fields(None, 7, None) + numba_fields(None, None, None) + numba_fields(2, None, None)
            + numba_fields(None, None, st) + numba_fields(-1, 7, st))
    assert out.tolist() == want


@cuda.jit
def indices(out, start, stop, step, n):
    i, j, k = slice(start, stop, step).indices(n)
    out[0] = i
    out[1] = j
    out[2] = k
    p, q, r = slice(None, None, step).indices(n)
    out[3] = p
    out[4] = q
    out[5] = r


@pytest.mark.parametrize("start,stop,step,n", [(1, 5, 1, 10), (-3, 100, 2, 7), (-100, 100, -1, 7), (5, -20, -3, 6),
                                               (0, 0, 1, 0), (3, 1, 1, 4), (-1, -1, -1, 3)])
def test_indices_match_python(start, stop, step, n):
    out = np.zeros(6, np.int64)
    indices[1, 1](out, start, stop, step, n)
    assert out.tolist() == list(slice(start, stop, step).indices(n)) + list(slice(None, None, step).indices(n))


def test_indices_raise_value_error():
    with pytest.raises(ValueError, match="length should not be negative"):
        indices[1, 1](np.zeros(6, np.int64), 0, 1, 1, -1)
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        indices[1, 1](np.zeros(6, np.int64), 0, 1, 0, 3)


@cuda.jit(device=True)
def window(lo, hi, st):
    return slice(lo, hi, st)


@cuda.jit(device=True)
def sum_of(a, s):
    t = 0.0
    for v in a[s]:
        t += v
    return t


@cuda.jit
def read_views(m, out, lo, hi, st):
    s = window(lo, hi, st)          # returned from a device function
    row = m[1, s]                   # mixed with an integer
    for i in range(len(row)):
        out[0, i] = row[i]
    col = m[s, 2]
    for i in range(len(col)):
        out[1, i] = col[i]
    t = (slice(1, 3), s)            # a tuple of slices as the index
    sub = m[t]
    for i in range(sub.shape[0]):
        for j in range(sub.shape[1]):
            out[2 + i, j] = sub[i, j]
    out[4, 0] = sum_of(m[0], s)     # passed to a device function
    out[4, 1] = len(m[0][slice(None, None, -1)])


@pytest.mark.parametrize("lo,hi,st", [(0, 6, 1), (1, 5, 2), (-1, None, -1), (None, -7, -2), (4, 1, 1)])
def test_read_views_match_numpy(lo, hi, st):
    m = np.arange(36.0).reshape(6, 6)
    out = np.zeros((5, 6))
    s = slice(lo, hi, st)
    f = numba_fields(lo, hi, st)  # (None is not a kernel argument: the value Numba fills in instead)
    read_views[1, 1](m, out, f[0], f[1], f[2])
    want = np.zeros((5, 6))
    want[0, :len(m[1, s])] = m[1, s]
    want[1, :len(m[s, 2])] = m[s, 2]
    sub = m[1:3, s]
    want[2:4, :sub.shape[1]] = sub
    want[4, 0] = m[0][s].sum()
    want[4, 1] = 6
    np.testing.assert_array_equal(out, want)


@cuda.jit
def write_views(m, c, st):
    s = slice(1, None, st) if c > 0 else slice(None, 2, st)   # chosen by a condition
    m[0, s] = 5.0                                            # a scalar fills the view
    m[s, 0] = m[s, 1]                                        # an array copied into it
    r = slice(2, 4)
    m[3, r] = (7.0, 8.0)                                     # a tuple into a 1-d view
    m[r][0, 5] += 100.0                                      # an element of a view, augmented
    m[(slice(5, 6), slice(None))] = -1.0


@pytest.mark.parametrize("c,st", [(1, 1), (1, 2), (0, -1), (0, 1)])
def test_write_views_match_numpy(c, st):
    m = np.arange(36.0).reshape(6, 6)
    want = m.copy()
    write_views[1, 1](m, c, st)
    s = slice(1, None, st) if c > 0 else slice(None, 2, st)
    want[0, s] = 5.0
    want[s, 0] = want[s, 1]
    want[3, 2:4] = (7.0, 8.0)
    want[2:4][0, 5] += 100.0
    want[5:6, :] = -1.0
    np.testing.assert_array_equal(m, want)


@cuda.jit
def carried(a, out, n):
    s = slice(0, 1)
    for i in range(n):
        s = slice(s.start + 1, s.stop + 2)
    v = a[s]
    out[0] = s.start
    out[1] = s.stop
    out[2] = v[0]
    out[3] = len(v)


def test_carried_around_a_loop():
    a = np.arange(20.0)
    out = np.zeros(4)
    carried[1, 1](a, out, 3)
    assert out.tolist() == [3, 7, 3, 4]


@cuda.jit
def tuple_slices(out):
    t = (1, 2, 3, 4, 5)
    u = t[slice(None, None, -2)]
    out[0] = u[0]
    out[1] = u[1]
    out[2] = u[2]
    out[3] = len(t[slice(1, 3)])
    out[4] = len(t[slice(1, None, 9223372036854775807)]) * 10 + t[1::9223372036854775807][0]
    out[5] = t[slice(3, None, -9223372036854775808)][0]


def test_tuples_sliced_by_constant_slices():
    out = np.zeros(6, np.int64)
    tuple_slices[1, 1](out)
    t = (1, 2, 3, 4, 5)
    assert out.tolist() == [5, 3, 1, 2, len(t[1::2**63 - 1]) * 10 + t[1::2**63 - 1][0], t[3::-2**63][0]]


@cuda.jit
def zero_step(a, z):
    v = a[slice(0, 4, z)]
    a[0] = len(v)


def test_zero_step_raises_value_error():
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        zero_step[1, 1](np.zeros(5), 0)


def test_out_of_range_access_through_a_slice_view_is_located():
    @cuda.jit
    def oob(a):
        v = a[slice(2, None)]
        v[3] = 1.0

    with pytest.raises(IndexError) as e:
        oob[1, 1](np.zeros(5))
    assert e.value.line == oob.py_func.__code__.co_firstlineno + 3


def refused(fn, *args):
    with pytest.raises(errors.TypingError) as e:
        cuda.jit(fn)[1, 1](*args)
    assert "test_slice_objects.py" in str(e.value)
    return str(e.value)


def test_refusals_are_located():
    def floats(out):
        s = slice(0, 1.5)

    def kinds(out, c):
        if c > 0:
            s = slice(0, 2)
        else:
            s = slice(0, 2, 1)
        out[0] = s.stop

    def runtime_tuple_slice(out, n):
        t = (1, 2, 3)
        out[0] = t[slice(0, n)][0]

    def unknown(out):
        out[0] = slice(1).end

    out = np.zeros(2, np.int64)
    assert "slice() takes integers or None, not float64" in refused(floats, out)
    assert "cannot unify slice<a:b> and slice<a:b:c> for 's'" in refused(kinds, out, 1)
    assert "a tuple is sliced with a slice of constants" in refused(runtime_tuple_slice, out, 2)
    assert "unknown attribute 'end' of slice<a:b>" in refused(unknown, out)


EVERY_OTHER = slice(None, None, 2)
TAIL = slice(1, None, 1)  # a step of 1: Numba's typeof makes it a slice2 (the view stays C)
BAD = slice(0.5, 2)


@cuda.jit
def globals_and_closures(a, out):
    v = a[EVERY_OTHER]
    w = a[TAIL]
    out[0] = len(v)
    out[1] = v[1]
    out[2] = w[0]
    out[3] = EVERY_OTHER.start + EVERY_OTHER.step * 10 + TAIL.step * 100


def test_global_slices_as_numba_freezes_them():
    a = np.arange(9.0)
    out = np.zeros(4)
    globals_and_closures[1, 1](a, out)
    assert out.tolist() == [5, 2, 1, 120]


def test_closure_slices_and_refusals():
    s = slice(-3, None)

    @cuda.jit
    def tail(a, out):
        out[0] = a[s][0] + s.start

    out = np.zeros(1)
    tail[1, 1](np.arange(9.0), out)
    assert out[0] == 6 - 3

    @cuda.jit
    def bad(out):
        out[0] = BAD.stop

    with pytest.raises(errors.UnsupportedError, match="kfront takes slices of int64 integers and None"):
        bad[1, 1](np.zeros(1))


def test_slice_objects_are_not_kernel_arguments():
    # numba-cuda cannot pass one either (its kernel argument packing has no slice case)
    @cuda.jit
    def k(out, s):
        out[0] = s.start

    with pytest.raises(TypeError, match="cannot pass an object of type <class 'slice'>"):
        k[1, 1](np.zeros(1, np.int64), slice(1, 2))
