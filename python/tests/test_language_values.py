"""kfront.cuda on the simulator (KFRONT_SIM=1 in the test command; on the GPU by test/gpu/run_python_gpu.sh):
values real numba-cuda code reads that issue 22 found missing — attributes of the program's own modules,
tuple(...), namedtuple arguments, 0-d arrays, global device arrays. Expected values are numba-cuda 0.30.4's (its
simulator, NUMBA_ENABLE_CUDASIM=1, run on the same kernels), written as literals or computed with NumPy where
exact; what numba-cuda refuses is a TypingError located at the use."""
import numpy as np
import pytest

from kfront import cuda, errors


def run(kernel, *args, n=1):
    kernel[1, n](*args)
    return args


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
