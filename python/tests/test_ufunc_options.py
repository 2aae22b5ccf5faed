"""@vectorize and @guvectorize (target="cuda") as numba-cuda 0.30.4's decorators and builders take them: their
option errors (guvectorize's "nopython flag must be True", "The following target options are not supported", a
signature with a return type; vectorize's KeyError for an unknown option and RuntimeWarning for the redundant
nopython), numba-cuda's cast of gufunc inputs (the first signature whose input types cast safely to the inputs'
dtypes, an int64 scalar taken as int32; a device array cannot be cast: its TypeError), and the low-occupancy
NumbaPerformanceWarning of a call that launches fewer than 128 blocks."""
import warnings

import numpy as np
import pytest

from kfront import config, cuda, errors
from kfront.cuda import guvectorize, vectorize
from kfront.types import float32, int32, void


def _noop(a, b):
    pass


def test_guvectorize_option_errors():
    guvectorize([void(float32[:], float32[:])], "(x)->(x)", target="cuda", nopython=True)(_noop)
    with pytest.raises(TypeError, match="^nopython flag must be True$"):
        guvectorize([void(float32[:], float32[:])], "(x)->(x)", target="cuda", nopython=False)(_noop)
    with pytest.raises(TypeError, match="^The following target options are not supported: 'what1', 'ever2'$"):
        guvectorize([void(float32[:], float32[:])], "(x)->(x)", target="cuda", what1=True, ever2=False)(_noop)
    with pytest.raises(TypeError, match="guvectorized functions cannot return values: .* specifies int32 return type"):
        guvectorize([int32(int32[:], int32[:])], "(m)->(m)", target="cuda")(_noop)


def test_vectorize_option_errors_and_warnings():
    with pytest.raises(KeyError, match="Unrecognized options"):
        vectorize([float32(float32, float32)], target="cuda", nonexistent=2)(lambda a, b: a + b)
    with pytest.warns(RuntimeWarning, match="nopython kwarg for cuda target is redundant"):
        f = vectorize([float32(float32, float32)], target="cuda", nopython=True)(lambda a, b: a + b)
    np.testing.assert_equal(f(np.ones(2, np.float32), np.ones(2, np.float32)), [2, 2])


def test_gufunc_inputs_cast_as_numba_cudas():
    @guvectorize(["void(int32, int32[:], int32[:])"], "(),(t)->(t)", target="cuda")
    def scale(a, b, out):
        for i in range(b.size):
            out[i] = a * b[i]

    b = np.arange(10, dtype=np.int32)
    np.testing.assert_equal(scale(np.int64(2), b), 2 * b)
    np.testing.assert_equal(scale(3, b), 3 * b)
    with pytest.raises(TypeError, match="compatible signature is possible by casting but .* does not support "
                                        r"\.astype\(\)"):
        scale(cuda.to_device(np.array(np.int64(2))), b)

    @guvectorize(["void(int32, int32[:])"], "()->()", target="cuda")
    def twice(x, out):
        out[0] = x * 2

    assert twice(10) == 20


def test_small_ufunc_and_gufunc_calls_warn_of_low_occupancy():
    @guvectorize(["void(float32[:], float32[:], float32[:])"], "(n),(n)->(n)", target="cuda")
    def mul(a, b, out):
        for i in range(a.shape[0]):
            out[i] = a[i] * b[i]

    add = vectorize(["float32(float32)"], target="cuda")(lambda x: x + 1)
    config.CUDA_LOW_OCCUPANCY_WARNINGS = 1
    a = np.ones(1024, np.float32)
    with pytest.warns(errors.PerformanceWarning, match="Grid size 1 will likely result in GPU under-utilization"):
        mul(a, a, np.zeros_like(a))   # one gufunc iteration: one block
    with pytest.warns(errors.PerformanceWarning, match="Grid size 4 "):
        add(a)                        # 1024 elements: 4 blocks of 256
    big = np.ones((128 * 256, 2), np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mul(big, big, np.zeros_like(big))
        add(np.ones(128 * 256, np.float32))
