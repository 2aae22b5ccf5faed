"""isinstance() in kernels, as numba-cuda types it (numba/cuda/cpython/builtins.py ol_isinstance): a constant decided
from the value's type at compile time, so `if isinstance(x, T):` keeps one branch. A class stands for one Numba
type matched exactly (int is int64, float float64, complex complex128, bool boolean: an int32 is no int); a Numba
type (float32, nv_bfloat16) is itself; tuple is any tuple. The expected values are numba's (njit of the same
function gives them)."""
import numpy as np
import pytest

from kfront import cuda, errors
from kfront.types import float32, int32


@cuda.jit(device=True)
def describe(x):
    if isinstance(x, int):
        return 1
    elif isinstance(x, float):
        return 2
    elif isinstance(x, (complex, tuple)):
        return 3
    elif isinstance(x, bool):
        return 4
    return 0


@cuda.jit
def describe_all(out, i64, i32, f64, f32, c128, b):
    out[0] = describe(i64)
    out[1] = describe(i32)
    out[2] = describe(f64)
    out[3] = describe(f32)
    out[4] = describe(c128)
    out[5] = describe(b)
    out[6] = describe((1, 2.0))
    out[7] = isinstance(f32, float32)
    out[8] = isinstance(i32, (float32, int32))
    out[9] = isinstance(i64, int32)


def test_classes_are_numbas_types_matched_exactly():
    out = np.zeros(10, np.int64)
    describe_all[1, 1](out, 3, np.int32(3), 2.5, np.float32(2.5), 1j, True)
    assert out.tolist() == [1, 0, 2, 0, 3, 4, 3, 1, 1, 0]


def test_the_branch_not_taken_is_not_typed():
    @cuda.jit
    def k(out, x):
        if isinstance(x, float):
            out[0] = x * 2
        else:
            out[0] = x.real  # a float has .real too; a tuple here would not type
        if isinstance(x, tuple):
            out[1] = x[5]    # never typed: x is not a tuple
    out = np.zeros(2)
    k[1, 1](out, 1.5)
    assert out[0] == 3.0


def test_bfloat16():
    # numba-cuda's test_bfloat16_bindings test_check_bfloat16_type (its nv_bfloat16 is numba.cuda.types.bfloat16)
    from kfront.types import bfloat16 as nv_bfloat16

    @cuda.jit
    def k(arr):
        x = nv_bfloat16(3.14)
        if isinstance(x, nv_bfloat16):
            arr[0] = float32(x)
        else:
            arr[0] = float32(0.0)
    arr = np.zeros(1, np.float32)
    k[1, 1](arr)
    np.testing.assert_allclose(arr, [3.14], atol=1e-2)


def test_not_a_class_is_a_located_error():
    @cuda.jit
    def k(out):
        out[0] = isinstance(out[0], 3)
    with pytest.raises(errors.TypingError, match=r"isinstance\(\) takes a class or a tuple of classes .* not int64"):
        k[1, 1](np.zeros(1, np.int64))
