"""Configured launches (kernel[griddim, blockdim, ...]) as numba-cuda 0.30.4's _LaunchConfiguration: griddim,
blockdim, sharedmem and stream; pre_launch_callbacks, called as callback(kernel, config) just before each launch of
that configuration, its own list (a later kernel[...] of the same configuration has none); pickling, as the
dispatcher and configuration (refused, with numba-cuda's PicklingError, for one with callbacks); and a
@vectorize(target="cuda") of a local function pickled by value, as dispatchers are."""
import pickle

import numpy as np
import pytest

from kfront import cuda
from kfront.cuda import vectorize


@cuda.jit
def bump(arr):
    arr[0] += 1


def test_configuration_reports_its_dimensions():
    cfg = bump[5, (8, 2), 0, 16]
    assert cfg.griddim == (5, 1, 1)
    assert cfg.blockdim == (8, 2, 1)
    assert cfg.sharedmem == 16
    assert cfg.stream == 0


def test_pre_launch_callbacks_run_before_each_launch_with_the_kernel_and_configuration():
    cfg = bump[1, 1]
    seen = []
    cfg.pre_launch_callbacks.append(lambda kernel, config: seen.append((kernel.signature, config)))
    arr = np.zeros(1, dtype=np.int64)
    cfg(arr)
    cfg(arr)
    assert arr[0] == 2
    assert seen == [("void(int64[::1])", cfg)] * 2


def test_callbacks_are_one_configurations_own():
    cfg = bump[1, 1]
    calls = []
    cfg.pre_launch_callbacks.append(lambda kernel, config: calls.append(1))
    other = bump[1, 1]
    assert other is not cfg and other.pre_launch_callbacks == []
    other(np.zeros(1, dtype=np.int64))
    assert calls == []


def test_a_callbacks_exception_stops_the_launch():
    cfg = bump[1, 1]

    def refuse(kernel, config):
        raise RuntimeError("not now")

    cfg.pre_launch_callbacks.append(refuse)
    arr = np.zeros(1, dtype=np.int64)
    with pytest.raises(RuntimeError, match="not now"):
        cfg(arr)
    assert arr[0] == 0


def test_a_configuration_pickles_as_its_dispatcher_and_configuration():
    @cuda.jit
    def add_one(arr):
        cuda.atomic.add(arr, 0, 1)

    cfg = pickle.loads(pickle.dumps(add_one[5, 8]))
    assert cfg.griddim == (5, 1, 1) and cfg.blockdim == (8, 1, 1)
    arr = np.zeros(1, dtype=np.int64)
    pickle.loads(pickle.dumps(add_one))[1, 1](arr)
    cfg(arr)
    assert arr[0] == 1 + 40


def test_a_configuration_with_callbacks_does_not_pickle():
    cfg = bump[5, 8]
    cfg.pre_launch_callbacks.append(print)
    with pytest.raises(pickle.PicklingError, match="Cannot pickle configured launches with pre-launch callbacks"):
        pickle.dumps(cfg)


def test_a_debug_kernels_configuration_pickles_and_reports():
    @cuda.jit(debug=True, opt=False)
    def debug_bump(arr):
        cuda.atomic.add(arr, 0, 1)

    cfg = pickle.loads(pickle.dumps(debug_bump[2, 3]))
    assert cfg.griddim == (2, 1, 1)
    arr = np.zeros(1, dtype=np.int64)
    cfg(arr)
    assert arr[0] == 6


def test_a_vectorize_of_a_local_function_pickles_by_value():
    @vectorize(["int64(int64)", "float64(float64)"], target="cuda")
    def twice(x):
        return x * 2

    ary = np.arange(10, dtype=np.int64)
    again = pickle.loads(pickle.dumps(pickle.loads(pickle.dumps(twice))))
    np.testing.assert_equal(again(ary), ary * 2)
    np.testing.assert_equal(again(ary.astype(np.float64)), ary * 2.0)
