"""@guvectorize arguments of no core dimensions typed as 1-d arrays, as numba-cuda accepts them ("scalar as
array": '(n)->()' with 'void(int32[:], int32[:])'): the generated kernel takes such an argument 1-d (the loop
dimension alone) and the function sees a one-element array at its index, a[i:i + 1], as numba-cuda's gufunc
kernels pass it (deviceufunc's _gen_src_index). The cases and expected values are numba-cuda's own tests'
(cudapy/test_gufunc_scalar.py, test_gufunc.py, test_cuda_array_interface.py: NumPy's results), which the simulator
of numba-cuda cannot run (its gufuncs are GPU-only)."""
import numpy as np

from kfront import cuda, float64, guvectorize, types


@guvectorize(["void(int32[:], int32[:])"], "(n)->()", target="cuda")
def sum_row(inp, out):
    tmp = 0.0
    for i in range(inp.shape[0]):
        tmp += inp[i]
    out[0] = tmp


def test_scalar_output_typed_as_array():
    inp = np.arange(300, dtype=np.int32).reshape(100, 3)
    d_out = cuda.to_device(np.empty(100, dtype=np.int32), copy=False)
    sum_row(cuda.to_device(inp), out=d_out)
    assert (d_out.copy_to_host() == inp.sum(axis=1)).all()
    assert (sum_row(inp) == inp.sum(axis=1)).all()


def test_scalar_input_and_output():
    @guvectorize(["void(int32, int32[:])"], "()->()", target="cuda")
    def twice(inp, out):
        out[0] = inp * 2

    assert twice(np.int32(10)) == 20
    arg = np.arange(10).astype(np.int32)
    got = twice(arg)
    assert got.dtype == np.int32 and got.tolist() == (arg * 2).tolist()


def test_scalar_input_typed_as_array():
    @guvectorize(["void(int32[:], int32[:], int32[:])"], "(n),()->(n)", target="cuda")
    def add_first(x, y, res):
        for i in range(x.shape[0]):
            res[i] = x[i] + y[0]

    a = np.array([1, 2, 3, 4], dtype=np.int32)
    res = np.zeros(4, dtype=np.int32)
    add_first(a, np.array([2], dtype=np.int32), out=res)
    assert res.tolist() == [3, 4, 5, 6]
    a = np.array([1, 2, 3, 4] * 2, dtype=np.int32).reshape(2, 4)
    res = np.zeros((2, 4), dtype=np.int32)
    add_first(a, np.array([2, 10], dtype=np.int32), out=res)
    assert res.tolist() == [[3, 4, 5, 6], [11, 12, 13, 14]]


def test_reduction_of_tuples_of_arrays():
    @guvectorize([(float64[:], float64[:], float64[:])], "(n),(n)->()", target="cuda")
    def dot(x, y, r):
        s = 0
        for i in range(len(x)):
            s += x[i] * y[i]
        r[0] = s

    a = (np.asarray((1.0, 2.0, 3.0)), np.asarray((4.0, 5.0, 6.0)))
    b = (np.asarray((1.5, 2.5, 3.5)), np.asarray((4.5, 5.5, 6.5)))
    assert dot(a, b).tolist() == np.sum(np.asarray(a) * np.asarray(b), axis=1).tolist()


def test_two_scalars_into_an_array_output_on_the_device():
    @guvectorize(["(f8, f8, f8[:])"], "(),()->()", target="cuda")
    def vadd(inp, val, out):
        out[0] = inp + val

    h = np.linspace(0.0, 1.0, 10)
    out = vadd(cuda.to_device(h), np.float64(7))
    assert out.copy_to_host().tolist() == (h + 7).tolist()


def test_datetime_scalars_into_a_timedelta_output():
    # numba-cuda's test_datetime.py test_gufunc: datetime64[D] scalars in, a '()' timedelta64[D] output typed [:]
    datetime_t = types.from_dtype(np.dtype("datetime64[D]"))
    timedelta_t = types.from_dtype(np.dtype("timedelta64[D]"))

    @guvectorize([(datetime_t, datetime_t, timedelta_t[:])], "(),()->()", target="cuda")
    def timediff(start, end, out):
        out[0] = end - start

    arr1 = np.arange("2005-02", "2006-02", dtype="datetime64[D]")
    arr2 = arr1 + np.arange(arr1.size) * 37 % 10000
    delta = timediff(arr1, arr2)
    assert delta.dtype == np.dtype("m8[D]") and (delta == arr2 - arr1).all()
