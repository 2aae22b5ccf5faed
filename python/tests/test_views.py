"""Slicing and views in kernels (on the simulator in CI, on the GPU in the GPU suite), checked against NumPy: rows
and columns (a[i, :], a[:, j]), slices with steps (negative too) and clamped bounds, views of views, new axes and
ellipses, m.T and transpose(axes), iteration and len over views, a scalar stored into a slice, views passed to and
returned from device functions and carried around loops, views of shared and local arrays, strides/itemsize/
nbytes, tuples sliced; an access through a view out of its extent raises IndexError at the kernel's line; slice
steps known at run time (a zero step raising ValueError); arrays, views and tuples assigned to slices with Numba's
broadcasting and errors, overlapping sources copied in place where that is safe."""
import linecache

import numpy as np
import pytest

from kfront import cuda, errors, float32, int32, void


@cuda.jit
def row_sums(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        row = a[i, :]
        s = 0.0
        for j in range(row.shape[0]):
            s += row[j]
        out[i] = s


@cuda.jit
def col_sums(a, out):
    j = cuda.grid(1)
    if j < a.shape[1]:
        s = 0.0
        for v in a[:, j]:
            s += v
        out[j] = s


def test_rows_and_columns():
    a = np.arange(35, dtype=np.float64).reshape(5, 7) ** 1.5
    out = np.zeros(5)
    row_sums[1, 8](a, out)
    np.testing.assert_allclose(out, a.sum(axis=1), rtol=1e-14)
    out = np.zeros(7)
    col_sums[1, 8](a, out)
    np.testing.assert_allclose(out, a.sum(axis=0), rtol=1e-14)
    # a Fortran-ordered and a strided argument take their own specialisations
    out = np.zeros(5)
    row_sums[1, 8](np.asfortranarray(a), out)
    np.testing.assert_allclose(out, a.sum(axis=1), rtol=1e-14)
    out = np.zeros(3)
    row_sums[1, 8](a[::2, 1::2], out)
    np.testing.assert_allclose(out, a[::2, 1::2].sum(axis=1), rtol=1e-14)


@cuda.jit
def copy_slice_1d(a, out, start, stop):
    v = a[start:stop]
    for k in range(len(v)):
        out[k] = v[k]
    out[out.size - 1] = len(v)


@pytest.mark.parametrize("start, stop", [(1, -1), (-3, 100), (-100, 2), (5, 2), (0, 10), (10, 20), (-1, -2)])
def test_clamped_bounds(start, stop):
    a = np.arange(10, dtype=np.int64) * 3
    out = np.full(11, -1, dtype=np.int64)
    copy_slice_1d[1, 1](a, out, start, stop)
    want = a[start:stop]
    assert out[-1] == len(want)
    np.testing.assert_array_equal(out[:len(want)], want)


@cuda.jit
def stepped(a, out):
    # the constant steps of every slice below, into consecutive parts of out
    k = 0
    for x in a[::2]:
        out[k] = x
        k += 1
    for x in a[::-1]:
        out[k] = x
        k += 1
    for x in a[7:1:-3]:
        out[k] = x
        k += 1
    for x in a[-2::-4]:
        out[k] = x
        k += 1
    for x in a[1:8:3][::-1]:
        out[k] = x
        k += 1
    out[out.size - 1] = k


def test_steps():
    a = np.arange(10, dtype=np.float32) + 0.5
    want = np.concatenate([a[::2], a[::-1], a[7:1:-3], a[-2::-4], a[1:8:3][::-1]])
    out = np.zeros(len(want) + 1, dtype=np.float32)
    stepped[1, 1](a, out)
    assert out[-1] == len(want)
    np.testing.assert_array_equal(out[:-1], want)


@cuda.jit
def block_2d(m, out):
    # a 2-d view with steps on both axes, its transpose, and a view of the view
    v = m[1::2, ::-2]
    t = v.T
    for i in range(t.shape[0]):
        for j in range(t.shape[1]):
            out[i, j] = t[i, j]
    w = v[1:, 1]
    for k in range(w.size):
        out[t.shape[0], k] = w[k]


def test_2d_views():
    m = np.arange(48, dtype=np.int32).reshape(6, 8)
    v = m[1::2, ::-2]
    out = np.zeros((v.shape[1] + 1, v.shape[0]), dtype=np.int32)
    block_2d[1, 1](m, out)
    np.testing.assert_array_equal(out[:-1], v.T)
    w = v[1:, 1]
    np.testing.assert_array_equal(out[-1, :len(w)], w)


@cuda.jit
def axes(a, out, info):
    n = a[None, 1, ...]
    info[0] = n.ndim
    info[1] = n.shape[0]
    info[2] = n.shape[1]
    info[3] = n.shape[2]
    e = a[..., 2]
    for i in range(e.shape[0]):
        for j in range(e.shape[1]):
            out[i, j] = e[i, j]
    p = a.transpose(2, 0, 1)
    info[4] = p.shape[0]
    info[5] = p[3, 1, 2] * 1000 + p[0, 1, 2]
    q = a.transpose((1, 2, 0))
    info[6] = q[2, 3, 1]
    info[7] = a[1, ...][2, 3] + a[1, 2, ...][3]


def test_new_axes_ellipses_transposes():
    a = np.arange(2 * 3 * 4, dtype=np.int64).reshape(2, 3, 4)
    out = np.zeros((2, 3), dtype=np.int64)
    info = np.zeros(8, dtype=np.int64)
    axes[1, 1](a, out, info)
    assert tuple(info[:4]) == (3,) + a[None, 1, ...].shape
    np.testing.assert_array_equal(out, a[..., 2])
    p = a.transpose(2, 0, 1)
    assert info[4] == p.shape[0] and info[5] == p[3, 1, 2] * 1000 + p[0, 1, 2]
    assert info[6] == a.transpose((1, 2, 0))[2, 3, 1]
    assert info[7] == 2 * a[1, 2, 3]


@cuda.jit
def attrs(a, info):
    v = a[:, 1::2]
    s = v.strides
    info[0] = s[0]
    info[1] = s[1]
    info[2] = v.itemsize
    info[3] = v.nbytes
    info[4] = v.size
    info[5] = v.ndim
    t = a.T
    info[6] = t.strides[0]
    info[7] = t.strides[1]


def test_strides_itemsize_nbytes():
    a = np.zeros((4, 6), dtype=np.float32)
    info = np.zeros(8, dtype=np.int64)
    attrs[1, 1](a, info)
    v = a[:, 1::2]
    assert tuple(info) == v.strides + (v.itemsize, v.nbytes, v.size, v.ndim) + a.T.strides


@cuda.jit
def fill(m, x):
    m[1, :] = x
    m[:, -1] = -1
    m[2:, :2] = 5
    m[::3, 1] = 9.5


def test_scalar_into_slices():
    m = np.zeros((4, 5), dtype=np.float32)
    fill[1, 1](m, 7)
    want = np.zeros((4, 5), dtype=np.float32)
    want[1, :] = 7
    want[:, -1] = -1
    want[2:, :2] = 5
    want[::3, 1] = 9.5
    np.testing.assert_array_equal(m, want)


@cuda.jit("void(int32[:], int32[:])", device=True)
def copy_row(inp, out):
    for i in range(out.shape[0]):
        out[i] = inp[i]


@cuda.jit("void(int32[:,:], int32[:,:])")
def copy_rows(inp, out):
    i = cuda.grid(1)
    copy_row(inp[i, :], out[i, :])


def test_slices_as_device_function_arguments():
    # numba-cuda's test_slicing.test_slice_as_arg
    inp = np.arange(100, dtype=np.int32).reshape(10, 10)
    out = np.zeros_like(inp)
    copy_rows[1, 10](inp, out)
    np.testing.assert_array_equal(out, inp)


@cuda.jit(device=True)
def middle(a):
    return a[1:-1]


@cuda.jit
def returned_and_carried(a, out):
    v = middle(a)
    w = middle(v)
    out[0] = v[0] + w[0] * 100
    # a view carried around a loop: each iteration drops the first element
    c = a[:]
    for k in range(3):
        c = c[1:]
        out[1 + k] = c[0]


def test_views_returned_and_carried():
    a = np.arange(10, dtype=np.float64) + 1
    out = np.zeros(4)
    returned_and_carried[1, 1](a, out)
    assert out[0] == a[1] + a[2] * 100
    np.testing.assert_array_equal(out[1:], a[1:4])


@cuda.jit
def shared_rows(out):
    s = cuda.shared.array((4, 8), dtype=float32)
    loc = cuda.local.array(8, dtype=int32)
    t = cuda.threadIdx.x
    for j in range(8):
        s[t, j] = t * 10 + j
        loc[j] = j
    cuda.syncthreads()
    row = s[3 - t, ::2]
    acc = 0.0
    for x in row:
        acc += x
    for x in loc[::-3]:
        acc += x * 1000
    out[t] = acc


def test_views_of_shared_and_local_arrays():
    out = np.zeros(4, dtype=np.float32)
    shared_rows[1, 4](out)
    s = np.arange(8)[None, :] + 10 * np.arange(4)[:, None]
    want = [s[3 - t, ::2].sum() + np.arange(8)[::-3].sum() * 1000 for t in range(4)]
    np.testing.assert_array_equal(out, want)


@cuda.jit
def view_oob(a, out):
    i = cuda.grid(1)
    row = a[i, 1:]
    out[i] = row[a.shape[1] - 1]


def test_index_error_through_a_view():
    a = np.zeros((3, 4))
    with pytest.raises(IndexError) as e:
        view_oob[1, 3](a, np.zeros(3))
    msg = str(e.value)
    assert "index 3 is out of bounds for axis 0 with size 3" in msg and "view_oob" in msg
    assert e.value.line == view_oob.py_func.__code__.co_firstlineno + 4


@cuda.jit
def tuple_slices(out):
    t = (1, 2, 3, 4, 5)
    u = t[1:4]
    w = t[::-2]
    out[0] = u[0] * 100 + u[2] * 10 + len(u)
    out[1] = w[0] * 100 + w[1] * 10 + w[2]


def test_tuple_slices():
    out = np.zeros(2, dtype=np.int64)
    tuple_slices[1, 1](out)
    assert list(out) == [243, 531]


def test_unsupported_forms_are_located_errors():
    @cuda.jit
    def copies(a):
        b = a.copy()
        a[0] = b[0]

    with pytest.raises(errors.TypingError) as e:
        copies[1, 1](np.zeros(3))
    assert "copy() of array(float64, 1d, C): kfront makes a copy as a thread-local array" in str(e.value)
    assert e.value.line == copies.py_func.__code__.co_firstlineno + 2

    for method in ("flatten()", "astype(np.float32)"):
        src = "def allocates(a):\n    b = a.%s\n    a[0] = b[0]\n" % method
        fname = "<allocates %s>" % method
        linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
        scope = {"np": np}
        exec(compile(src, fname, "exec"), scope)
        with pytest.raises(errors.TypingError, match=r"makes a new array, which a kernel cannot allocate .*NRT") as e:
            cuda.jit(scope["allocates"])[1, 1](np.zeros(3))
        assert e.value.line == 2


@cuda.jit
def reshape_2d(arr, rows, got):
    y = arr.reshape(rows, -1)
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            got[i, j] = y[i, j]


@cuda.jit
def reshape_3d(arr, got):
    y = arr.reshape((2, -1, 3))
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            for k in range(y.shape[2]):
                got[i, j, k] = y[i, j, k]


@cuda.jit
def ravel_it(arr, got):
    r = arr.ravel()
    for i in range(r.size):
        got[i] = r[i]


def test_reshape_and_ravel():
    # as numba-cuda's test_array_reshape: C-contiguous arrays, an inferred extent
    arr = np.arange(24)
    for rows in (4, 8, 2):
        got = np.zeros((rows, 24 // rows), dtype=arr.dtype)
        reshape_2d[1, 1](arr, rows, got)
        np.testing.assert_array_equal(got, arr.reshape(rows, -1))
    got = np.zeros((2, 4, 3), dtype=arr.dtype)
    reshape_3d[1, 1](arr.reshape(1, 8, 1, 1, 3, 1), got)
    np.testing.assert_array_equal(got, arr.reshape(2, -1, 3))
    got = np.zeros(24, dtype=arr.dtype)
    ravel_it[1, 1](arr.reshape(4, 6), got)
    np.testing.assert_array_equal(got, arr)
    # an F array reshapes in F order, as Numba does it
    f = np.asfortranarray(arr.reshape(4, 6))
    got = np.zeros((3, 8), dtype=arr.dtype)
    reshape_2d[1, 1](f, 3, got)
    np.testing.assert_array_equal(got, f.reshape(3, 8, order="F"))
    # empty
    got = np.zeros((0, 5), dtype=np.float64)
    reshape_2d[1, 1](np.array([]), 0, got)


def test_reshape_of_the_wrong_size_raises_value_error():
    got = np.zeros((5, 5))
    with pytest.raises(ValueError) as e:
        reshape_2d[1, 1](np.arange(24.0), 5, got)
    assert "total size of new array must be unchanged" in str(e.value)
    assert e.value.kernel == "reshape_2d"
    assert e.value.exception == "ValueError: total size of new array must be unchanged"
    assert e.value.line == reshape_2d.py_func.__code__.co_firstlineno + 2
    # the module stays usable
    got = np.zeros((4, 6))
    reshape_2d[1, 1](np.arange(24.0), 4, got)
    np.testing.assert_array_equal(got, np.arange(24.0).reshape(4, 6))

    @cuda.jit
    def two_unknown(arr, got):
        y = arr.reshape(-1, -1)
        got[0] = y[0, 0]

    with pytest.raises(ValueError) as e:
        two_unknown[1, 1](np.arange(4.0), np.zeros(1))
    assert "multiple negative shape values" in str(e.value)


@cuda.jit
def reinterpret_array_type(byte_arr, start, stop, output):
    # numba-cuda's test_array_methods.reinterpret_array_type
    val = byte_arr[start:stop].view(np.int32)[0]
    output[0] = val


@cuda.jit
def views_of_dtypes(f, out):
    w = f.view(np.uint16)
    out[0] = w.shape[0]
    out[1] = w[1]
    d = f.view(np.int64)
    out[2] = d.shape[0]
    out[3] = d[1]


def test_view_dtype():
    byte_arr = np.arange(256, dtype=np.uint8)
    for start in range(0, 256, 4):
        output = np.zeros(1, dtype=np.int32)
        reinterpret_array_type[1, 1](byte_arr, start, start + 4, output)
        assert output[0] == byte_arr[start:start + 4].view(np.int32)[0]
    f = np.arange(4, dtype=np.float32)
    out = np.zeros(4, dtype=np.int64)
    views_of_dtypes[1, 1](f, out)
    assert list(out) == [8, f.view(np.uint16)[1], 2, f.view(np.int64)[1]]
    with pytest.raises(ValueError) as e:
        views_of_dtypes[1, 1](np.arange(3, dtype=np.float32), out)
    assert "new type not compatible with array" in str(e.value)
    with pytest.raises(ValueError):
        reinterpret_array_type[1, 1](byte_arr, 0, 3, np.zeros(1, dtype=np.int32))


@cuda.jit
def only_item(a, out):
    out[0] = a[1:2, ::-1][:, 2:3].item()


def test_item():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    out = np.zeros(1)
    only_item[1, 1](a, out)
    assert out[0] == a[1:2, ::-1][:, 2:3].item()
    with pytest.raises(ValueError) as e:
        only_item[1, 1](np.zeros((3, 2)), out)  # the view has no element
    assert "item(): can only convert an array of size 1 to a Python scalar" in str(e.value)


# ---- slice steps known at run time -------------------------------------------------------------------------------

@cuda.jit
def runtime_step(a, out, start, stop, step):
    v = a[start:stop:step]
    for k in range(len(v)):
        out[k] = v[k]
    out[out.size - 1] = len(v)


@cuda.jit
def runtime_step_open(a, out, step):
    v = a[::step]
    w = v[1::step]  # a view of the view
    for k in range(len(v)):
        out[k] = v[k]
    out[out.size - 2] = len(v)
    out[out.size - 1] = len(w)


@pytest.mark.parametrize("start, stop, step", [(0, 10, 3), (9, 0, -2), (-1, -11, -1), (2, 100, 4), (5, 5, -1),
                                               (-100, 100, 7), (8, -100, -3), (3, 7, 100), (7, 3, -100),
                                               (0, 10, -1), (10, 0, 1)])
def test_runtime_steps(start, stop, step):
    a = np.arange(10, dtype=np.float32) * 1.5
    out = np.full(12, -1, dtype=np.float32)
    runtime_step[1, 1](a, out, start, stop, step)
    want = a[start:stop:step]
    assert out[-1] == len(want)
    np.testing.assert_array_equal(out[:len(want)], want)


@pytest.mark.parametrize("step", [1, 2, 3, -1, -2, -4, 11, -11])
def test_runtime_steps_open(step):
    a = np.arange(10, dtype=np.int64)
    out = np.full(13, -1, dtype=np.int64)
    runtime_step_open[1, 1](a, out, step)
    v = a[::step]
    assert (out[-2], out[-1]) == (len(v), len(v[1::step]))
    np.testing.assert_array_equal(out[:len(v)], v)


@cuda.jit
def runtime_step_2d(m, out, s0, s1):
    v = m[::s0, 1::s1]
    for i in range(v.shape[0]):
        for j in range(v.shape[1]):
            out[i, j] = v[i, j]


def test_runtime_steps_2d():
    m = np.arange(42, dtype=np.float64).reshape(6, 7)
    for s0, s1 in [(2, 3), (-1, 2), (-4, -1), (5, -5)]:
        want = m[::s0, 1::s1]
        out = np.zeros((6, 7))
        runtime_step_2d[1, 1](m, out, s0, s1)
        np.testing.assert_array_equal(out[:want.shape[0], :want.shape[1]], want)


def test_zero_step_raises_value_error():
    with pytest.raises(ValueError, match="slice step cannot be zero") as e:
        runtime_step[1, 1](np.zeros(4, dtype=np.float32), np.zeros(5, dtype=np.float32), 0, 4, 0)
    assert e.value.line == runtime_step.py_func.__code__.co_firstlineno + 2


@cuda.jit
def stepped_oob(a, out, step):
    v = a[::step]
    out[0] = v[len(v)]


def test_index_error_through_a_stepped_view():
    with pytest.raises(IndexError) as e:
        stepped_oob[1, 1](np.zeros(10), np.zeros(1), -3)
    assert "index 4 is out of bounds for axis 0 with size 4" in str(e.value)
    assert e.value.line == stepped_oob.py_func.__code__.co_firstlineno + 3


# ---- arrays, views and tuples assigned to slices ---------------------------------------------------------------

@cuda.jit
def assign_slices(a, b, m, r, t):
    a[1:5] = b            # an array (float64 into float32)
    m[1, :] = r           # a row from another array
    m[2] = r[::-1]        # a[i] of a 2-d array is its row
    m[3] = 7              # a scalar fills it
    m[0, 1:] = (1, 2, 3)  # a homogeneous tuple into a 1-d slice of its length
    m[4:, :] = r          # a row broadcast over two rows
    m[:, 0] = m[:, 3]     # a column into another (the same array: no overlap)
    t[:, :] = r[None, ::2]  # a leading axis of extent 1 broadcast, a strided source
    t[1:, 1] = 5


def test_assign_arrays_to_slices():
    a = np.zeros(8, dtype=np.float32)
    b = np.arange(4.0) + 0.5
    m = np.zeros((6, 4), np.float32)
    r = np.arange(4, dtype=np.int64) * 10
    t = np.zeros((3, 2), np.int32)
    assign_slices[1, 1](a, b, m, r, t)
    A, M, T = np.zeros(8, np.float32), np.zeros((6, 4), np.float32), np.zeros((3, 2), np.int32)
    A[1:5] = b
    M[1, :] = r
    M[2] = r[::-1]
    M[3] = 7
    M[0, 1:] = (1, 2, 3)
    M[4:, :] = r
    M[:, 0] = M[:, 3]
    T[:, :] = r[None, ::2]
    T[1:, 1] = 5
    np.testing.assert_array_equal(a, A)
    np.testing.assert_array_equal(m, M)
    np.testing.assert_array_equal(t, T)


@cuda.jit
def assign_mismatch(a, b):
    a[1:4] = b


@cuda.jit
def assign_unbroadcastable(a, m):
    a[:] = m


@cuda.jit
def assign_tuple(a, n):
    a[:n] = (1.0, 2.0)


def test_assign_shape_errors():
    with pytest.raises(ValueError, match="cannot assign slice from input of different size") as e:
        assign_mismatch[1, 1](np.zeros(8), np.zeros(5))
    assert e.value.line == assign_mismatch.py_func.__code__.co_firstlineno + 2
    with pytest.raises(ValueError, match="cannot broadcast source array for assignment"):
        assign_unbroadcastable[1, 1](np.zeros(4), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="cannot assign slice from input of different size"):
        assign_tuple[1, 1](np.zeros(4), 3)
    a = np.zeros(4)
    assign_unbroadcastable[1, 1](a, np.ones((1, 1, 4)))  # leading axes of extent 1 are dropped
    np.testing.assert_array_equal(a, np.ones(4))
    assign_tuple[1, 1](a, 2)
    np.testing.assert_array_equal(a, [1, 2, 1, 1])


OVERLAPS = ["m[1:, :] = m[:-1, :]", "m[:-1, :] = m[1:, :]", "m[:, 1:] = m[:, :-1]", "m[:-1, :-1] = m[1:, 1:]",
            "m[::-1][:-1, :] = m[::-1][1:, :]", "m[1:, :] = m[0]", "m[1::2] = m[:-1:2]", "m[0, 1:] = m[0, :-1]",
            "m[0, ::-1][1:] = m[0, ::-1][:-1]", "m[:, :] = m"]


@pytest.mark.parametrize("stmt", OVERLAPS)
def test_overlapping_sources_copied_in_place(stmt):
    src = "def overlap(m):\n    %s\n" % stmt
    fname = "<overlap %s>" % stmt
    linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
    scope = {}
    exec(compile(src, fname, "exec"), scope)
    m = np.arange(30.0).reshape(5, 6)
    want = m.copy()
    exec(stmt, {"m": want})  # NumPy copies an overlapping source first
    cuda.jit(scope["overlap"])[1, 1](m)
    np.testing.assert_array_equal(m, want)


@pytest.mark.parametrize("stmt", ["m[:, :] = m[:, ::-1]", "m[:, :] = m.T", "m[0, ::-1] = m[0]"])
def test_other_overlaps_raise(stmt):
    src = "def overlap(m):\n    %s\n" % stmt
    fname = "<overlap %s>" % stmt
    linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
    scope = {}
    exec(compile(src, fname, "exec"), scope)
    with pytest.raises(NotImplementedError, match="overlaps its destination") as e:
        cuda.jit(scope["overlap"])[1, 1](np.zeros((4, 4)))
    assert e.value.line == 2
