"""kfront.cuda on the simulator (KFRONT_SIM=1 in the test command; test/gpu/python/test_control_vs_numba.py runs
the same kernels on the GPU): every range() loop runs Python's number of items, near the ends of its type too,
where iv + step wraps (range(MAX - 1, MAX, 5) has one item: the loop must not step past it into MIN). Plain
loops (lower-scf's scf.for), loops with break (the frontend's while form), enumerate() of a range (its length),
int64, int32 and uint64 ranges (numba's range types), constant and run-time steps of both signs; a run-time
step of 0 raises ValueError, as in Python and Numba."""
import numpy as np
import pytest

from kfront import cuda, errors

MAX, MIN = 2**63 - 1, -(2**63)
UMAX = 2**64 - 1


@cuda.jit
def count_rt(out, a, b, st):
    n = 0
    last = b - b
    for i in range(a, b, st):
        n += 1
        last = i
    out[0] = n
    out[1] = last


@cuda.jit
def count_break(out, a, b, st):
    n = 0
    last = b - b
    for i in range(a, b, st):
        if n == 1000:
            break
        n += 1
        last = i
    out[0] = n
    out[1] = last


@cuda.jit
def count_enumerate(out, a, b, st):
    n = 0
    last = b - b
    for k, i in enumerate(range(a, b, st)):
        n = k + 1
        last = i
    out[0] = n
    out[1] = last


@cuda.jit
def count_up5(out, a, b):
    n = 0
    last = b - b
    for i in range(a, b, 5):
        n += 1
        last = i
    out[0] = n
    out[1] = last


@cuda.jit
def count_down5(out, a, b):
    n = 0
    last = b - b
    for i in range(a, b, -5):
        n += 1
        last = i
    out[0] = n
    out[1] = last


@cuda.jit
def count_up1(out, a, b):
    n = 0
    last = b - b
    for i in range(a, b):
        n += 1
        last = i
    out[0] = n
    out[1] = last


@cuda.jit
def count_edges_const(out):
    # constant bounds at the ends of int64 (the limit folds at compile time)
    n = 0
    for i in range(9223372036854775806, 9223372036854775807, 5):
        n += 1
    out[0] = n
    n = 0
    for i in range(-9223372036854775807, -9223372036854775808, -5):
        n += 1
    out[1] = n
    n = 0
    for i in range(-9223372036854775808, -9223372036854775807, -5):
        n += 1
    out[2] = n


def python_answer(a, b, st, cap=None):
    r = range(a, b, st)
    n = len(r) if cap is None else min(len(r), cap)
    return [n, r[n - 1] if n else 0]


INT64_CASES = [
    (MAX - 1, MAX, 5), (MIN, MIN + 1, -5), (MIN + 1, MIN, -5), (MAX - 10, MAX, 3), (MIN, MAX, 2**62),
    (MAX, MIN, -(2**62)), (MAX, MIN, MIN), (MIN, MAX, MAX), (MAX - 2, MAX, 1), (MIN + 2, MIN, -1),
    (0, 10, 1), (10, 0, -1), (5, 5, 1), (0, 10, -1), (-7, 20, 4), (20, -7, -4), (MAX, MAX - 1, -1),
]


@pytest.mark.parametrize("a,b,st", INT64_CASES)
def test_int64_run_time_step(a, b, st):
    for kernel, cap in ((count_rt, None), (count_break, 1000), (count_enumerate, None)):
        out = np.zeros(2, np.int64)
        kernel[1, 1](out, np.int64(a), np.int64(b), np.int64(st))
        assert out.tolist() == python_answer(a, b, st, cap), kernel.__name__


@pytest.mark.parametrize("a,b", [(MAX - 1, MAX), (MAX - 6, MAX), (MAX - 5, MAX), (MIN, MIN + 3), (MAX, MIN), (0, 23)])
def test_int64_constant_step_up(a, b):
    out = np.zeros(2, np.int64)
    count_up5[1, 1](out, np.int64(a), np.int64(b))
    assert out.tolist() == python_answer(a, b, 5)
    count_up1[1, 1](out, np.int64(a), np.int64(b))
    assert out.tolist() == python_answer(a, b, 1) if b - a < 100 else True


@pytest.mark.parametrize("a,b", [(MIN + 1, MIN), (MIN + 6, MIN), (MIN + 5, MIN), (MAX, MAX - 3), (MIN, MAX), (23, 0)])
def test_int64_constant_step_down(a, b):
    out = np.zeros(2, np.int64)
    count_down5[1, 1](out, np.int64(a), np.int64(b))
    assert out.tolist() == python_answer(a, b, -5)


def test_int64_constant_bounds_at_the_edges():
    out = np.zeros(3, np.int64)
    count_edges_const[1, 1](out)
    assert out.tolist() == [1, 1, 0]


@pytest.mark.parametrize("a,b,st", [(UMAX - 2, UMAX, 1), (2**63 - 2, 2**63 + 2, 1), (0, UMAX, 2**63), (0, UMAX, 2**62),
                                    (UMAX - 9, UMAX, 4), (5, 3, 1), (0, UMAX, UMAX), (3, UMAX, 2**63 + 1),
                                    (UMAX - 1, UMAX, 5)])
def test_uint64_ranges(a, b, st):
    """uint64 ranges (numba's unsigned_range_state64): unsigned order and steps, however large."""
    for kernel, cap in ((count_rt, None), (count_break, 1000), (count_enumerate, None)):
        out = np.zeros(2, np.uint64)
        kernel[1, 1](out, np.uint64(a), np.uint64(b), np.uint64(st))
        assert [int(x) for x in out] == python_answer(a, b, st, cap), kernel.__name__
    if st == 1:
        out = np.zeros(2, np.uint64)
        count_up1[1, 1](out, np.uint64(a), np.uint64(b))
        assert [int(x) for x in out] == python_answer(a, b, 1)
    if st == 5:
        out = np.zeros(2, np.uint64)
        count_up5[1, 1](out, np.uint64(a), np.uint64(b))
        assert [int(x) for x in out] == python_answer(a, b, 5)


@pytest.mark.parametrize("a,b", [(2**31 - 2, 2**31 - 1), (2**31 - 12, 2**31 - 1), (-(2**31), -(2**31) + 1)])
def test_int32_ranges_near_the_edges(a, b):
    out = np.zeros(2, np.int64)
    count_up5[1, 1](out, np.int32(a), np.int32(b))
    assert out.tolist() == python_answer(a, b, 5)
    count_down5[1, 1](out, np.int32(b), np.int32(a))
    assert out.tolist() == python_answer(b, a, -5)
    count_rt[1, 1](out, np.int32(a), np.int32(b), np.int32(3))
    assert out.tolist() == python_answer(a, b, 3)


@pytest.mark.parametrize("kernel", [count_rt, count_break, count_enumerate])
def test_run_time_zero_step_raises(kernel):
    out = np.zeros(2, np.int64)
    with pytest.raises(ValueError, match="range\\(\\) arg 3 must not be zero"):
        kernel[1, 1](out, np.int64(0), np.int64(5), np.int64(0))
    kernel[1, 1](out, np.int64(0), np.int64(5), np.int64(2))  # the module stays usable
    assert out.tolist() == [3, 4]


def test_constant_zero_step_is_refused():
    def zero(out):
        for i in range(0, 5, 0):
            out[0] = i

    with pytest.raises(errors.TypingError, match="range\\(\\) arg 3 must not be zero") as e:
        cuda.jit(zero)[1, 1](np.zeros(1, np.int64))
    assert "test_range_edges.py" in str(e.value)


@cuda.jit
def swap_carried(out, a, b, st):
    # carried values that trade places each iteration, read after the loop (the simulator moves a loop's
    # values before its latch's compare only when the exit does not read what they overwrite)
    x = 1
    y = 2
    z = 0
    for i in range(a, b, st):
        x, y, z = y, x + i, z * 3 + x
    out[0] = x
    out[1] = y
    out[2] = z


@cuda.jit
def swap_carried5(out, a, b):
    x = 1
    y = 2
    z = 0
    for i in range(a, b, 5):
        x, y, z = y, x + i, z * 3 + x
    out[0] = x
    out[1] = y
    out[2] = z


def swap_python(a, b, st):
    x, y, z = 1, 2, 0
    for i in range(a, b, st):
        x, y, z = y, x + i, z * 3 + x
    return [x, y, z]


@pytest.mark.parametrize("a,b,st", [(0, 23, 5), (0, 23, 1), (23, 0, -5), (MAX - 11, MAX, 5), (5, 5, 5), (0, 1, 5)])
def test_carried_values_trade_places(a, b, st):
    wrap = lambda v: (v + 2**63) % 2**64 - 2**63  # noqa: E731 (int64 arithmetic)
    out = np.zeros(3, np.int64)
    swap_carried[1, 1](out, np.int64(a), np.int64(b), np.int64(st))
    assert out.tolist() == [wrap(v) for v in swap_python(a, b, st)]
    if st == 5:
        swap_carried5[1, 1](out, np.int64(a), np.int64(b))
        assert out.tolist() == [wrap(v) for v in swap_python(a, b, st)]
