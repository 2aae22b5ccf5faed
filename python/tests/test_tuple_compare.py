"""Tuple comparisons as numba-cuda's (cpython/tupleobj.py), on the simulator in CI and checked against numba-cuda
itself in test/gpu/python/test_tuples_vs_numba.py: ==, != and the orderings of two tuples (lexicographic, each pair
of elements compared with Numba's promotions, tuples of different lengths by Python's rule). Python computes the
expected values."""
import itertools
import operator

import numpy as np
import pytest

from kfront import cuda, errors

OPS = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]


@cuda.jit
def compare_pairs(a, b, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        u = (a[i, 0], a[i, 1])
        v = (b[i, 0], b[i, 1])
        out[i, 0] = u == v
        out[i, 1] = u != v
        out[i, 2] = u < v
        out[i, 3] = u <= v
        out[i, 4] = u > v
        out[i, 5] = u >= v


def test_same_length_lexicographic_with_nan():
    vals = [-1.0, 0.0, 2.5, np.nan]
    rows = list(itertools.product(vals, repeat=4))
    a = np.array([r[:2] for r in rows])
    b = np.array([r[2:] for r in rows])
    out = np.zeros((len(rows), 6), dtype=np.bool_)
    compare_pairs[(len(rows) + 63) // 64, 64](a, b, out)
    # Numba: the first pair that is != decides (NaN != anything, and NaN orders as false), as Python's floats
    # do without Python's identity shortcut (fresh float objects here, so that no NaN is its own pair)
    for k, r in enumerate(rows):
        u, v = tuple(float(str(x)) for x in r[:2]), tuple(float(str(x)) for x in r[2:])
        assert list(out[k]) == [op(u, v) for op in OPS], (u, v)


@cuda.jit
def mixed_kinds(x, y, out):
    out[0] = (x, y) == (x, 1.5)          # int64 and float64 promoted per pair
    out[1] = (x, y) < (x, y, 0)          # a prefix orders first
    out[2] = (x, y, 0) > (x, y)
    out[3] = (x,) == (x, y)              # different lengths are never equal
    out[4] = (x,) != (x, y)
    out[5] = (x, (y, True)) == (x, (y, 1))   # nested tuples, a bool against an int
    out[6] = (x, (y, 2)) >= (x, (y, 3))
    out[7] = () == ()
    out[8] = () < (x,)
    out[9] = (x, y) <= (x, y)


@pytest.mark.parametrize("x,y", [(3, 1.5), (3, 2.0), (-7, -0.5)])
def test_lengths_promotions_nesting(x, y):
    out = np.zeros(10, dtype=np.bool_)
    mixed_kinds[1, 1](x, y, out)
    expected = [(x, y) == (x, 1.5), (x, y) < (x, y, 0), (x, y, 0) > (x, y), (x,) == (x, y), (x,) != (x, y),
                (x, (y, True)) == (x, (y, 1)), (x, (y, 2)) >= (x, (y, 3)), True, True, True]
    assert list(out) == expected


def test_uncomparable_pairs_are_located_errors():
    @cuda.jit
    def complex_order(out, z):
        out[0] = (1, z) < (1, z)

    with pytest.raises(errors.CompilerError, match="unsupported operand types for '<'"):
        complex_order[1, 1](np.zeros(1, dtype=np.bool_), 1j)

    @cuda.jit
    def tuple_vs_int(out, x):
        out[0] = (x, x) == x

    with pytest.raises(errors.CompilerError, match="Numba compares a tuple only with a tuple") as e:
        tuple_vs_int[1, 1](np.zeros(1, dtype=np.bool_), 1)
    assert e.value.line == tuple_vs_int.py_func.__code__.co_firstlineno + 2


@cuda.jit
def membership(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        out[i, 0] = v in (1.0, 2.5, -3.0)
        out[i, 1] = v not in (1.0, 2.5, -3.0)
        out[i, 2] = v in (1, 7)  # int64 elements against a float64: Numba's promotion, as ==
        out[i, 3] = v in ()


def test_in_and_not_in_of_homogeneous_tuples():
    """x in t as numba-cuda's in_seq of a UniTuple (some element == x; NaN is in no tuple), the empty tuple False"""
    x = np.array([1.0, 2.5, -3.0, 7.0, 0.0, np.nan, 1.0000001])
    out = np.zeros((x.size, 4), np.bool_)
    membership[1, 32](x, out)
    for i, v in enumerate(x.tolist()):
        want = [v in (1.0, 2.5, -3.0), v not in (1.0, 2.5, -3.0), v in (1, 7), False]
        assert out[i].tolist() == want, (v, out[i])


def test_in_of_mixed_tuples_and_other_containers_are_located_errors():
    def mixed(out):
        out[0] = 1 in (1, 2.5)

    def in_array(out, a):
        out[0] = 2.0 in a  # numba-cuda has it (np/arraymath.py); kfront not yet

    with pytest.raises(errors.TypingError, match="tuples of one element type only"):
        cuda.jit(mixed)[1, 1](np.zeros(1, np.bool_))
    with pytest.raises(errors.TypingError, match="supported in kernels for tuples only"):
        cuda.jit(in_array)[1, 1](np.zeros(1, np.bool_), np.arange(3.0))
