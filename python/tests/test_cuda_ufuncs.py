"""@cuda.reduce, vectorize and guvectorize with target="cuda" on the simulator, on host and device arrays,
against NumPy."""
import numpy as np
import pytest

from kfront import cuda, errors, float32, float64, guvectorize, int64, vectorize


@cuda.reduce
def sum_reduce(a, b):
    return a + b


@cuda.reduce
def max_reduce(a, b):
    return max(a, b)


@vectorize([float32(float32, float32), float64(float64, float64)], target="cuda")
def hypot2(x, y):
    return x * x + y * y


@guvectorize([(float64[:, :], float64[:], float64[:])], "(m,n),(n)->(m)", target="cuda")
def matvec(a, x, out):
    for i in range(a.shape[0]):
        acc = 0.0
        for j in range(a.shape[1]):
            acc += a[i, j] * x[j]
        out[i] = acc


def test_reduce_host_and_device():
    a = np.arange(1000, dtype=np.float64)
    assert sum_reduce(a) == a.sum()
    assert sum_reduce(cuda.to_device(a)) == a.sum()
    assert sum_reduce(a, size=10) == a[:10].sum()
    assert sum_reduce(a, init=5) == a.sum() + 5
    assert max_reduce(-np.arange(1, 10.0), init=-100.0) == -1.0
    big = np.arange(300_000, dtype=np.int64)  # more partial results than a block has threads
    assert sum_reduce(big) == big.sum() and sum_reduce(cuda.to_device(big)) == big.sum()
    res = cuda.device_array(1, dtype=np.float64)
    sum_reduce(a, res=res)
    assert res.copy_to_host()[0] == a.sum()


def test_vectorize_host_device_broadcast_out():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    y = np.arange(4, dtype=np.float32)
    r = hypot2(x, y)
    assert isinstance(r, np.ndarray) and r.dtype == np.float32
    np.testing.assert_array_equal(r, x * x + y * y)
    dr = hypot2(cuda.to_device(x), cuda.to_device(y))
    assert isinstance(dr, cuda.DeviceNDArray)
    np.testing.assert_array_equal(dr.copy_to_host(), x * x + y * y)
    out = np.zeros((3, 4), dtype=np.float64)
    hypot2(x.astype(np.float64), y.astype(np.float64), out=out)
    np.testing.assert_array_equal(out, x * x + y * y)


def test_guvectorize():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = np.arange(4.0)
    r = matvec(a, x)
    np.testing.assert_allclose(r, a @ x)
    out = cuda.device_array((2, 3))
    matvec(cuda.to_device(a), cuda.to_device(x), out)
    np.testing.assert_allclose(out.copy_to_host(), a @ x)


def test_gufunc_called_from_a_kernel_is_an_untyped_global():
    """A kernel cannot call a gufunc: numba-cuda's words (Untyped global name), located at the call"""
    @cuda.jit
    def calls_gufunc(a, x, out):
        matvec(a, x, out)

    with pytest.raises(errors.TypingError) as e:
        calls_gufunc[1, 1](np.zeros((2, 2)), np.zeros(2), np.zeros(2))
    msg = str(e.value)
    assert "Untyped global name 'matvec': CUDAGUFunc" in msg, msg
    assert "test_cuda_ufuncs.py:%d:9: error: " % (calls_gufunc.py_func.__code__.co_firstlineno + 2) in msg, msg


def test_bad_calls():
    with pytest.raises(TypeError) as e:
        hypot2(np.zeros(3, dtype=np.int8), np.zeros(3, dtype=np.int8))
    assert "no signature matches" in str(e.value)
    with pytest.raises(errors.UnsupportedError):
        vectorize([int64(int64)], target="parallel")
    with pytest.raises(errors.KernelArgumentError) as e:  # a TypeError (Numba raises ValueError here)
        hypot2(np.zeros(3, dtype=np.float32), np.zeros(4, dtype=np.float32))
    assert "broadcast" in str(e.value)


def test_vectorize_signatures_of_argument_types_alone():
    # numba's vectorize takes [(args...)] too, the return type being what typing the function gives (numba-cuda's
    # test_datetime test_ufunc: datetime64[D] - datetime64[D] is timedelta64[D])
    from kfront.types import from_dtype
    datetime_t = from_dtype(np.dtype("datetime64[D]"))

    @vectorize([(datetime_t, datetime_t)], target="cuda")
    def timediff(start, end):
        return end - start

    arr1 = np.arange("2005-02", "2006-02", dtype="datetime64[D]")
    arr2 = arr1 + np.arange(arr1.size) * 7
    delta = timediff(arr1, arr2)
    assert delta.dtype == np.dtype("timedelta64[D]") and (delta == arr2 - arr1).all()

    @vectorize([(float32, float32)], target="cuda")
    def add(a, b):
        return a + b

    r = add(np.ones(4, np.float32), np.full(4, 2, np.float32))
    assert r.dtype == np.float32 and r.tolist() == [3.0] * 4


# ---- ufunc.reduce of a @vectorize function (numba-cuda's DeviceVectorize.reduce; test_vectorize's test_reduce) --
from kfront import int32  # noqa: E402

_HOMOGENEOUS = [int32(int32, int32), float32(float32, float32), float64(float64, float64)]


@pytest.mark.parametrize("n", (8, 100, 2**10 + 1))
@pytest.mark.parametrize("dtype", (np.int32, np.float32, np.float64))
def test_vectorize_reduce_host_and_device(n, dtype):
    @vectorize(_HOMOGENEOUS, target="cuda")
    def vector_add(a, b):
        return a + b
    x = np.arange(n, dtype=dtype)
    actual = vector_add.reduce(x)
    np.testing.assert_allclose(actual, np.add.reduce(x))
    assert actual.dtype == dtype  # the input's dtype, not NumPy's int64 of an int add.reduce
    stream = cuda.stream()
    actual = vector_add.reduce(cuda.to_device(x, stream), stream=stream)
    np.testing.assert_allclose(actual, np.add.reduce(x))
    assert actual.dtype == dtype


def test_vectorize_reduce_combines_the_elements_only():
    # no init of 0 joins them (as @cuda.reduce's default would): a product, a max of negative numbers
    @vectorize(_HOMOGENEOUS, target="cuda")
    def mul(a, b):
        return a * b

    @vectorize(_HOMOGENEOUS, target="cuda")
    def biggest(a, b):
        return max(a, b)
    assert mul.reduce(np.arange(1, 8, dtype=np.int32)) == 5040
    assert biggest.reduce(-np.arange(3, 50, dtype=np.float64)) == -3.0
    one = mul.reduce(np.array([7], dtype=np.int32))
    assert one == 7 and one.dtype == np.int32


def test_vectorize_reduce_refusals_as_numba_cuda():
    @vectorize(_HOMOGENEOUS, target="cuda")
    def vector_add(a, b):
        return a + b
    with pytest.raises(TypeError, match="Reduction on an empty array."):
        vector_add.reduce(np.zeros(0, dtype=np.int32))
    with pytest.raises(AssertionError, match="must use 1d array"):
        vector_add.reduce(np.zeros((2, 2), dtype=np.int32))
    with pytest.raises(TypeError, match=r"vector_add.reduce of an array of int64 needs a signature "
                                        r"int64\(int64, int64\)"):
        vector_add.reduce(np.arange(4))

    @vectorize([float64(float64)], target="cuda")
    def neg(a):
        return -a
    with pytest.raises(AssertionError, match="must be a binary ufunc"):
        neg.reduce(np.arange(4.0))
