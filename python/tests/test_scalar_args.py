"""Scalar kernel arguments through the launch's fast path (python/ext/convert.c, ext_scalar_fast): Python floats and
ints, and NumPy scalars of every number type, whose value is read from the object once its type's layout was
checked (probe_layout) — each value arrives exactly, the first of its type (learned through the array interface)
and the next ones (read directly) alike, also inside tuples."""
import math

import numpy as np
import pytest

from kfront import cuda


@cuda.jit
def store(out, a):
    out[0] = a


@cuda.jit
def store_pair(out, t):
    out[0] = t[1]


EDGES = {
    np.bool_: [True, False, True],
    np.int8: [-128, 127, -1],
    np.int16: [-32768, 32767, 5],
    np.int32: [-2**31, 2**31 - 1, 7],
    np.int64: [-2**63, 2**63 - 1, -3],
    np.uint8: [255, 0, 3],
    np.uint16: [65535, 1, 9],
    np.uint32: [2**32 - 1, 0, 11],
    np.uint64: [2**64 - 1, 2**63, 1],
    np.float16: [65504.0, -0.0, 2.0**-24],
    np.float32: [3.4028235e38, -1.5, 1e-45],
    np.float64: [-0.0, 1.7976931348623157e308, 5e-324],
}


@pytest.mark.parametrize("t", list(EDGES), ids=lambda t: t.__name__)
def test_numpy_scalars_exact(t):
    for v in EDGES[t] + [EDGES[t][0]]:
        x = t(v)
        out = np.zeros(1, dtype=t)
        store[1, 1](out, x)
        assert out.tobytes() == np.array([x], dtype=t).tobytes(), (t, v)


def test_numpy_nan_and_tuple_items():
    out = np.zeros(1, dtype=np.float32)
    for v in (np.float32(2.5), np.float32("nan"), np.float32(-7.25)):
        store[1, 1](out, v)
        assert out.tobytes() == np.array([v]).tobytes()
        store_pair[1, 1](out, (1, v))
        assert out.tobytes() == np.array([v]).tobytes()


def test_python_numbers():
    out = np.zeros(1, dtype=np.float64)
    for v in (0.1, -0.0, math.inf, 1e-310):
        store[1, 1](out, v)
        assert out.tobytes() == np.array([v]).tobytes()
    outi = np.zeros(1, dtype=np.int64)
    for v in (-2**63, 2**63 - 1, 0, True):
        store[1, 1](outi, v)
        assert outi[0] == v
    outu = np.zeros(1, dtype=np.uint64)
    store[1, 1](outu, 2**64 - 1)  # beyond int64: uint64, through the general path
    assert outu[0] == 2**64 - 1
    with pytest.raises(OverflowError):
        store[1, 1](outu, 2**64)
