"""kfront.cuda on the simulator (KFRONT_SIM=1 in the test command; on the GPU by test/gpu/run_python_gpu.sh):
values real numba-cuda code reads that issue 22 found missing — attributes of the program's own modules,
tuple(...), namedtuple arguments, 0-d arrays, global device arrays. Expected values are numba-cuda 0.30.4's (its
simulator, NUMBA_ENABLE_CUDASIM=1, run on the same kernels), written as literals or computed with NumPy where
exact; what numba-cuda refuses is a TypingError located at the use."""
import numpy as np
import pytest

import langvalues_config as config
import langvalues_config as cfg
import langvalues_pkg as pkg
from kfront import cuda, errors
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
