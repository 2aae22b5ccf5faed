"""a.copy() in kernels, as numba-cuda types it (numba's array_copy: a new writable C-contiguous array of a's dtype and
shape, a constant's copy too). kfront has no allocator in kernels: its copy is a thread-local array, so it copies
arrays whose shape the kernel fixes (module-level NumPy arrays, local and shared arrays of constant shape) and refuses
the rest, a copy in a loop and a device function's returned copy with located TypingErrors. Expected values are
numba-cuda's simulator's (NUMBA_ENABLE_CUDASIM=1, numba-cuda 0.30.4), which these kernels were run on."""
import numpy as np
import pytest

from kfront import cuda, errors

REVERSED = np.array([1, 2, 3])[::-1]
TRANSPOSED = np.arange(6, dtype=np.float32).reshape(2, 3).T
RECORDS = np.array([(1, 2.5), (3, 4.5)], dtype=np.dtype([("a", np.int32), ("b", np.float64)], align=True))


def test_copy_of_a_global_is_writable_and_leaves_the_global():
    @cuda.jit
    def kernel(out):
        q = REVERSED.copy()
        q[0] = 10
        for i in range(len(out)):
            out[i] = q[i] + REVERSED[i]

    out = np.zeros(3)
    kernel[1, 1](out)
    assert out.tolist() == [13.0, 4.0, 2.0]


def test_copy_of_a_strided_global_keeps_its_shape():
    @cuda.jit
    def kernel(out, shape):
        q = TRANSPOSED.copy()
        shape[0] = q.shape[0]
        shape[1] = q.shape[1]
        shape[2] = q.strides[0]
        for i in range(q.shape[0]):
            for j in range(q.shape[1]):
                out[i, j] = q[i, j]

    out = np.zeros((3, 2), np.float32)
    shape = np.zeros(3, np.int64)
    kernel[1, 1](out, shape)
    assert out.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert shape.tolist() == [3, 2, 8]  # C-contiguous: NumPy's strides of the copy


def test_copy_of_a_local_array_is_a_snapshot():
    @cuda.jit
    def kernel(out):
        loc = cuda.local.array((2, 2), np.int64)
        loc[0, 0] = 1
        loc[0, 1] = 2
        loc[1, 0] = 3
        loc[1, 1] = 4
        c = loc.copy()
        loc[0, 0] = 100
        out[0] = c[0, 0] + c[1, 1] * 10 + loc[0, 0] * 100

    out = np.zeros(1, np.int64)
    kernel[1, 1](out)
    assert out.tolist() == [10041]


def test_copy_of_records():
    @cuda.jit
    def kernel(out):
        r = RECORDS.copy()
        r[0]["a"] = 7
        out[0] = r[0]["a"] + r[1]["a"] + RECORDS[0]["a"]
        out[1] = r[1]["b"]

    out = np.zeros(2)
    kernel[1, 1](out)
    assert out.tolist() == [11.0, 4.5]


def test_copy_per_thread():
    @cuda.jit
    def kernel(out):
        q = REVERSED.copy()
        i = cuda.grid(1)
        q[0] = i
        cuda.syncthreads()
        out[i] = q[0] * 10 + q[2]

    out = np.zeros(8, np.int64)
    kernel[2, 4](out)
    assert out.tolist() == [10 * i + 1 for i in range(8)]


def _refused(kernel, args, text):
    with pytest.raises(errors.TypingError, match=text) as e:
        kernel[1, 1](*args)
    return e.value


def test_copies_kfront_cannot_make_are_located_errors():
    @cuda.jit
    def of_argument(a, out):
        q = a.copy()
        out[0] = q[0]

    e = _refused(of_argument, (np.zeros(3), np.zeros(1)), r"copy\(\) of array\(float64, 1d, C\): kfront makes a copy "
                 r"as a thread-local array, which needs a shape known at compile time")
    assert e.line == of_argument.py_func.__code__.co_firstlineno + 2

    @cuda.jit
    def in_loop(out):
        for i in range(2):
            q = REVERSED.copy()
            out[i] = q[i]

    e = _refused(in_loop, (np.zeros(2),), r"copy\(\) in a loop")
    assert e.line == in_loop.py_func.__code__.co_firstlineno + 3

    @cuda.jit(device=True)
    def returns_copy():
        q = REVERSED.copy()
        return q

    @cuda.jit
    def caller(out):
        out[0] = returns_copy()[0]

    _refused(caller, (np.zeros(1),), r"a device function cannot return an array its copy\(\) made")
