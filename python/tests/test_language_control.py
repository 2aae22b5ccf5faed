"""kfront.cuda on the simulator (KFRONT_SIM=1 in the test command; on the GPU by test/gpu/run_python_gpu.sh):
the control side of Numba's CUDA language (issue 12) — locals bound on some paths only (UnboundLocalError
where one is read unbound), each leaving the module usable."""
import numpy as np
import pytest

from kfront import cuda, errors


# ---- locals bound on some paths ------------------------------------------------------------------------


@cuda.jit
def bound_on_one_path(a, n):
    i = cuda.grid(1)
    if i < a.size:
        if i < n:
            z = 3 * i
        a[i] = z


@cuda.jit
def bound_in_both_arms(a, n):
    i = cuda.grid(1)
    if i < a.size:
        if i < n:
            z = 3 * i
        else:
            z = -1
        a[i] = z


@cuda.jit(boundscheck=False)
def unchecked_one_path(a, n):
    i = cuda.grid(1)
    if i < a.size:
        if i < n:
            z = 3 * i
        a[i] = z


def test_bound_where_read():
    a = np.zeros(16, dtype=np.int64)
    bound_on_one_path[2, 8](a, 16)
    np.testing.assert_array_equal(a, 3 * np.arange(16))
    bound_in_both_arms[2, 8](a, 10)
    np.testing.assert_array_equal(a, np.where(np.arange(16) < 10, 3 * np.arange(16), -1))


def test_read_where_unbound_raises_unbound_local_error():
    a = np.zeros(16, dtype=np.int64)
    with pytest.raises(UnboundLocalError) as e:
        bound_on_one_path[2, 8](a, 11)
    exc = e.value
    first = bound_on_one_path.py_func.__code__.co_firstlineno
    assert exc.kind == errors.KIND_RAISED
    assert exc.line == first + 6 and exc.col == 16
    assert exc.kernel == "bound_on_one_path"
    assert exc.exception == "UnboundLocalError: cannot access local variable 'z' where it is not associated with a value"
    assert exc.thread == (3, 0, 0) and exc.block == (1, 0, 0)  # i = 11: the first unbound read
    assert "a[i] = z" in str(exc)
    # the module keeps working
    test_bound_where_read()


def test_without_checks_an_unbound_read_gives_zero_as_numba():
    a = np.full(8, 7, dtype=np.int64)
    unchecked_one_path[1, 8](a, 5)
    np.testing.assert_array_equal(a, [0, 3, 6, 9, 12, 0, 0, 0])
