"""kfront.cuda on the simulator (KFRONT_SIM=1 in the test command; test/gpu/python/test_control_vs_numba.py runs
the same kernels against numba-cuda): conditional expressions whose two values are tuples (Numba unifies them
element by element: (int64, float64) and (float64, int64) meet as UniTuple(float64 x 2)), nested tuples, tuples
holding arrays, arrays of different layouts (meeting as layout A), with pure and impure branches; tuples of
different lengths are refused, as Numba refuses them."""
import numpy as np
import pytest

from kfront import cuda, errors


@cuda.jit
def swap_pair(out, a, b, c):
    t = (a, b) if c > 0 else (b, a)
    out[0] = t[0]
    out[1] = t[1]


@cuda.jit
def mixed_types(out, i, x, c):
    t = (i, x) if c > 0 else (x, i)  # (int64, float64) / (float64, int64): UniTuple(float64 x 2)
    out[0] = t[0] / 2
    out[1] = t[1] / 2


@cuda.jit
def nested(out, a, b, c):
    u = (a, (b, 1.5)) if c > 1 else (b, (a, 2.5))
    p, (q, r) = u
    out[0] = p
    out[1] = q
    out[2] = r


@cuda.jit
def with_arrays(out, x, y, c):
    # tuples holding arrays, their branches reading memory (impure: an scf.if yields them)
    arr, k = (x, x[0]) if c > 0 else (y, y[1])
    out[0] = arr[2] + k


@cuda.jit
def layouts(out, m, c):
    # a C row and a column of a matrix meet as one array of layout A
    v = m[0] if c > 0 else m[:, 1]
    s = 0.0
    for e in v:
        s += e
    out[0] = s


@cuda.jit
def rows_in_tuples(out, m, c):
    # tuples holding rows m[i] of a matrix, from a conditional expression and from an if/else
    k, w = (m[0, 0], m[1]) if c > 0 else (m[0, 1], m[2])
    if c > 1:
        p = (m[2], 1)
    else:
        p = (m[0], 2)
    out[0] = k + w[3] + p[0][1] * p[1]


@cuda.jit
def in_a_loop(out, n):
    t = (0, 1)
    for i in range(n):
        t = (t[1], t[0] + t[1]) if i % 2 == 0 else (t[1], t[0] + t[1] + 1)
    out[0] = t[0]
    out[1] = t[1]


def loop_python(n):
    t = (0, 1)
    for i in range(n):
        t = (t[1], t[0] + t[1]) if i % 2 == 0 else (t[1], t[0] + t[1] + 1)
    return list(t)


@pytest.mark.parametrize("c", [1, -1])
def test_swap_pair(c):
    out = np.zeros(2)
    swap_pair[1, 1](out, 1.5, 2.5, c)
    assert out.tolist() == ([1.5, 2.5] if c > 0 else [2.5, 1.5])


@pytest.mark.parametrize("c", [1, -1])
def test_mixed_element_types_unify(c):
    out = np.zeros(2)
    mixed_types[1, 1](out, 3, 5.0, c)
    assert out.tolist() == ([1.5, 2.5] if c > 0 else [2.5, 1.5])


@pytest.mark.parametrize("c", [2, 0])
def test_nested_tuples(c):
    out = np.zeros(3)
    nested[1, 1](out, 1.0, 2.0, c)
    assert out.tolist() == ([1.0, 2.0, 1.5] if c > 1 else [2.0, 1.0, 2.5])


@pytest.mark.parametrize("c", [1, 0])
def test_tuples_holding_arrays(c):
    x = np.arange(4.0)
    y = np.arange(4.0) * 10
    out = np.zeros(1)
    with_arrays[1, 1](out, x, y, c)
    assert out[0] == (x[2] + x[0] if c > 0 else y[2] + y[1])


@pytest.mark.parametrize("c", [1, 0])
def test_arrays_of_different_layouts(c):
    m = np.arange(12.0).reshape(3, 4)
    out = np.zeros(1)
    layouts[1, 1](out, m, c)
    assert out[0] == (m[0].sum() if c > 0 else m[:, 1].sum())


@pytest.mark.parametrize("c", [2, 1, 0])
def test_rows_in_tuples(c):
    m = np.arange(12.0).reshape(3, 4)
    out = np.zeros(1)
    rows_in_tuples[1, 1](out, m, c)
    k, w = (m[0, 0], m[1]) if c > 0 else (m[0, 1], m[2])
    p = (m[2], 1) if c > 1 else (m[0], 2)
    assert out[0] == k + w[3] + p[0][1] * p[1]


def test_carried_around_a_loop():
    out = np.zeros(2, np.int64)
    in_a_loop[1, 1](out, 9)
    assert out.tolist() == loop_python(9)


def test_tuples_of_different_lengths_are_refused():
    def bad(out, c):
        t = (1, 2) if c > 0 else (1, 2, 3)
        out[0] = t[0]

    with pytest.raises(errors.TypingError, match="cannot unify") as e:
        cuda.jit(bad)[1, 1](np.zeros(1, np.int64), 1)
    assert "test_conditional_values.py" in str(e.value)
