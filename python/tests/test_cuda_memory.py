"""kfront.cuda's memory, streams and events on the simulator: device arrays (views by slicing, reshape,
ravel, transpose, item access and assignment, copies both ways and between device arrays, the CUDA array
interface), pinned and mapped host memory, DLPack export and import, streams, events, device facts."""
import numpy as np
import pytest

from kfront import cuda


@cuda.jit
def add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def test_views_and_item_access():
    h = np.arange(24, dtype=np.float32).reshape(4, 6)
    d = cuda.to_device(h)
    assert d[1, 2] == h[1, 2]
    np.testing.assert_array_equal(d[1].copy_to_host(), h[1])
    np.testing.assert_array_equal(d[:, 3].copy_to_host(), h[:, 3])
    with pytest.raises(NotImplementedError):  # numba-cuda's: no D->H copy of a negative stride
        d[::-1, 1:5:2].copy_to_host()
    np.testing.assert_array_equal(d[:, 1:5:2].copy_to_host()[::-1], h[::-1, 1:5:2])
    np.testing.assert_array_equal(d.T.copy_to_host(), h.T)
    np.testing.assert_array_equal(d.reshape(6, 4).copy_to_host(), h.reshape(6, 4))
    np.testing.assert_array_equal(d.ravel().copy_to_host(), h.ravel())
    d[2, :] = 7
    h[2, :] = 7
    d[0, 0] = -1
    h[0, 0] = -1
    np.testing.assert_array_equal(d.copy_to_host(), h)
    with pytest.raises(IndexError):
        d[4, 0]
    with pytest.raises(TypeError):
        d[[0, 1]]


def test_assigning_a_strided_view_keeps_the_elements_between():
    # a view's byte span holds other elements of its array: a source of the same strides (a host view, a device
    # view) gives only its own elements, not its neighbours
    h = np.arange(30.0).reshape(3, 10)
    other = -np.arange(30.0).reshape(3, 10)
    d = cuda.to_device(h)
    d[:, 3] = other[:, 3]
    d[1:3, 7] = cuda.to_device(other)[0:2, 1]
    expect = h.copy()
    expect[:, 3] = other[:, 3]
    expect[1:3, 7] = other[0:2, 1]
    np.testing.assert_array_equal(d.copy_to_host(), expect)
    t = cuda.to_device(h)[:, ::2]  # a device view of other strides into a view with gaps
    # (copy_to_device is one range of bytes, as numba-cuda's: refused for a view with gaps; setitem assigns it)
    with pytest.raises(ValueError, match="non-contiguous buffer"):
        t.copy_to_device(cuda.to_device(other[:, :5]))
    t[...] = cuda.to_device(other[:, :5])
    expect = h.copy()
    expect[:, ::2] = other[:, :5]
    np.testing.assert_array_equal(t.copy_to_host(), expect[:, ::2])


def test_kernel_on_a_view_writes_through():
    d = cuda.to_device(np.zeros(10, dtype=np.int64))
    add_one[1, 16](d[2:6])
    np.testing.assert_array_equal(d.copy_to_host(), [0, 0, 1, 1, 1, 1, 0, 0, 0, 0])


def test_copies():
    a = cuda.device_array((3, 4), dtype=np.int32)
    a.copy_to_device(np.arange(12, dtype=np.int32).reshape(3, 4))
    b = cuda.device_array_like(a)
    b.copy_to_device(a)
    out = np.empty((3, 4), dtype=np.int32)
    b.copy_to_host(out)
    np.testing.assert_array_equal(out, np.arange(12).reshape(3, 4))
    f = cuda.to_device(np.asfortranarray(np.arange(6.0).reshape(2, 3)))
    assert f.is_f_contiguous() and not f.is_c_contiguous()
    np.testing.assert_array_equal(f.copy_to_host(), np.arange(6.0).reshape(2, 3))
    cai = a.__cuda_array_interface__
    assert cai["shape"] == (3, 4) and cai["typestr"] == "<i4" and cai["version"] == 3
    again = cuda.as_cuda_array(a)
    assert again is a
    wrapped = cuda.from_cuda_array_interface(cai, owner=a)
    np.testing.assert_array_equal(wrapped.copy_to_host(), out)


def test_pinned_and_mapped():
    p = cuda.pinned_array(16, dtype=np.float64)
    p[:] = 1
    d = cuda.to_device(p)
    add_one[1, 16](d)
    np.testing.assert_array_equal(d.copy_to_host(), 2)
    m = cuda.mapped_array(8, dtype=np.int64)
    m[:] = 5
    add_one[1, 8](m)
    cuda.synchronize()  # the launch is asynchronous (as numba-cuda's): the host reads mapped memory after it ends
    np.testing.assert_array_equal(m, 6)
    h = np.zeros(4)
    with cuda.pinned(h):
        add_one[1, 4](h)
    np.testing.assert_array_equal(h, 1)


def test_dlpack_round_trip():
    d = cuda.to_device(np.arange(6, dtype=np.float32).reshape(2, 3))
    back = cuda.from_dlpack(d)
    np.testing.assert_array_equal(back.copy_to_host(), np.arange(6).reshape(2, 3))
    assert back._ptr == d._ptr
    assert d.__dlpack_device__()[0] in (1, 2)

    class DLPackOnly:  # a producer without __cuda_array_interface__: as_cuda_array takes it through DLPack
        def __dlpack__(self, stream=None):
            return d.__dlpack__()

        def __dlpack_device__(self):
            return d.__dlpack_device__()

    np.testing.assert_array_equal(cuda.as_cuda_array(DLPackOnly()).copy_to_host(), np.arange(6).reshape(2, 3))


def test_streams_and_events():
    s = cuda.stream()
    d = cuda.to_device(np.zeros(32), stream=s)
    start, end = cuda.event(), cuda.event()
    start.record(s)
    add_one[1, 32, s](d)
    end.record(s)
    end.synchronize()
    s.synchronize()
    assert cuda.event_elapsed_time(start, end) >= 0
    with s.auto_synchronize():
        add_one[1, 32, s](d)
    np.testing.assert_array_equal(d.copy_to_host(stream=s), 2)
    cuda.synchronize()
    assert cuda.default_stream().handle == 0


def test_device_facts():
    dev = cuda.get_current_device()
    assert isinstance(dev.name, str) and len(dev.compute_capability) == 2
    assert dev.MAX_THREADS_PER_BLOCK >= 1024 and dev.WARP_SIZE == 32
    free, total = cuda.current_context().get_memory_info()
    assert 0 < free <= total
    assert len(cuda.gpus) == 1 and cuda.gpus[0].id == 0
    assert cuda.is_available() in (True, False)


class _Foreign:
    """A producer exporting a device array through __cuda_array_interface__ v3 with a stream."""

    def __init__(self, arr, stream):
        self.arr = arr
        self.__cuda_array_interface__ = dict(arr.__cuda_array_interface__, stream=stream)


def test_foreign_array_with_a_stream():
    d = cuda.to_device(np.zeros(8, dtype=np.int64))
    producer = cuda.stream()               # a real stream (the driver takes the handle on trust)
    add_one[1, 8](_Foreign(d, producer.handle or 7))  # not a default stream: waited for, then used
    add_one[1, 8](_Foreign(d, 1))          # the legacy default stream: nothing to wait for
    add_one[1, 8](_Foreign(d, None))
    np.testing.assert_array_equal(d.copy_to_host(), 3)
    with pytest.raises(ValueError):
        add_one[1, 8](_Foreign(d, 0))      # 0 is disallowed by the interface


def _synchronised_streams(monkeypatch):
    """The handles of the streams Stream.synchronize is called on from now on (numba-cuda's tests mock it)."""
    handles = []
    from kfront.cuda._runtime import Stream  # numba.cuda.cudadrv.driver.Stream in the drop-in
    real = Stream.synchronize
    monkeypatch.setattr(Stream, "synchronize",
                        lambda self: (handles.append(self.handle.value if hasattr(self.handle, "value")
                                                     else self.handle), real(self))[1])
    return handles


@pytest.mark.parametrize("setting", [1, 0])
def test_a_launch_synchronises_each_producers_stream_unless_config_says_not(monkeypatch, setting):
    """CUDA array interface v3, as numba-cuda: a launch (a ufunc, a gufunc) synchronises the stream each foreign
    argument names, through Stream.synchronize, once per argument; config.CUDA_ARRAY_INTERFACE_SYNC = 0 turns it
    off, for cuda.as_cuda_array too"""
    from kfront import config
    monkeypatch.setattr(config, "CUDA_ARRAY_INTERFACE_SYNC", setting)
    d1, d2 = cuda.to_device(np.zeros(8, dtype=np.int64)), cuda.to_device(np.zeros(8, dtype=np.int64))
    s1, s2 = cuda.stream(), cuda.stream()
    h1, h2 = [s.handle.value if hasattr(s.handle, "value") else s.handle for s in (s1, s2)]
    handles = _synchronised_streams(monkeypatch)

    @cuda.jit
    def add_both(a, b):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1
            b[i] += 2

    add_both[1, 8](_Foreign(d1, h1), _Foreign(d2, h2))
    cuda.as_cuda_array(_Foreign(d1, h1))
    assert sorted(handles) == (sorted([h1, h2, h1]) if setting else [])
    np.testing.assert_array_equal(d1.copy_to_host(), 1)
    np.testing.assert_array_equal(d2.copy_to_host(), 2)


def test_a_gufunc_takes_foreign_arrays_as_inputs_and_outputs():
    """numba-cuda's GUFunc takes another library's device arrays (cuda.as_cuda_array): the result of out= is a
    device array over the memory given"""
    from kfront import guvectorize

    @guvectorize(["(f8, f8, f8[:])"], "(),()->()", target="cuda")
    def vadd(inp, val, out):
        out[0] = inp + val

    h = np.arange(10.0)
    got = vadd(_Foreign(cuda.to_device(h), None), np.float64(7))
    np.testing.assert_array_equal(got.copy_to_host(), h + 7)
    out = cuda.device_array(10)
    returned = vadd(h, np.float64(1), out=_Foreign(out, None))
    assert returned.device_ctypes_pointer.value == out.device_ctypes_pointer.value
    np.testing.assert_array_equal(out.copy_to_host(), h + 1)


def test_copy_to_host_of_a_negative_stride_is_numba_cudas_not_implemented():
    """numba-cuda refuses D->H copies of views with negative strides; kfront's own copies of them work"""
    d = cuda.to_device(np.arange(10.0))
    with pytest.raises(NotImplementedError, match=r"D->H copy not implemented for negative strides: \(-8,\)"):
        d[::-1].copy_to_host()
    e = cuda.device_array(10)
    e[:] = d[::-1]  # a setitem from such a view copies it
    np.testing.assert_array_equal(e.copy_to_host(), np.arange(10.0)[::-1])


@pytest.mark.parametrize("make", [cuda.device_array_like, cuda.pinned_array_like, cuda.mapped_array_like])
def test_array_like_keeps_shape_dtype_and_the_order_of_dimensions_in_memory(make):
    # numba-cuda's *_array_like: C order unless F-contiguous only; an array that is neither (a transposed view
    # of a 3-d array, a strided slice) gets contiguous strides in the order of its own (NumPy's empty_like)
    for host in (np.zeros((3, 4), dtype=np.float32), np.zeros((3, 4), order="F"), np.zeros(5, dtype=np.int16)):
        like = make(host)
        assert (like.shape, like.strides, like.dtype) == (host.shape, host.strides, host.dtype)
    t = np.zeros((2, 3, 4), dtype=np.float64).transpose(1, 0, 2)
    assert make(t).strides == np.empty_like(t).strides == (32, 96, 8)
    s = np.zeros((6, 8), dtype=np.int32)[::2, ::2]
    assert make(s).strides == np.empty_like(s).strides == (16, 4)
    assert make(cuda.device_array((6, 8), dtype=np.int32)[::2, ::2]).strides == (16, 4)


def test_devicearray_helpers_as_numba_cudas():
    from kfront.cuda import devicearray as da
    # is_contiguous ignores broadcast and 1-long dimensions; array_core drops the broadcast ones
    b = np.broadcast_to(np.arange(4.0), (3, 4))
    assert da.is_contiguous(b) and da.array_core(b).shape == (4,)
    assert not da.is_contiguous(np.zeros((4, 4))[:, ::2]) and da.is_contiguous(np.zeros((1, 4)))
    d = cuda.device_array((10, 12), order="F")
    assert da.is_contiguous(d) == da.array_core(d).flags["C_CONTIGUOUS"] == False  # noqa: E712
    with pytest.raises(ValueError) as e:
        da.sentry_contiguous(np.zeros(10)[::2])
    assert str(e.value) == da.errmsg_contiguous_buffer
    with pytest.raises(TypeError, match="incompatible dtype"):
        da.check_array_compatibility(np.zeros(3), np.zeros(3, dtype=np.int32))
    with pytest.raises(ValueError, match="incompatible shape"):
        da.check_array_compatibility(np.zeros(3), np.zeros(4))
    da.verify_cuda_ndarray_interface(cuda.to_device(np.asarray(1.5)))
    with pytest.raises(ValueError, match="require an cuda ndarray"):
        da.verify_cuda_ndarray_interface(np.zeros(2))
    assert da.is_cuda_ndarray(d) and not da.is_cuda_ndarray(np.zeros(2))


def test_auto_device():
    from kfront.cuda.devicearray import auto_device, errmsg_contiguous_buffer
    d, made = auto_device(2)
    assert made and d.shape == () and d.copy_to_host() == 2
    d2, made = auto_device(d)
    assert d2 is d and not made
    h = np.arange(4.0)
    e, made = auto_device(h, copy=False)
    assert made and e.shape == (4,)
    np.testing.assert_array_equal(auto_device(h)[0].copy_to_host(), h)
    with pytest.raises(ValueError) as err:
        auto_device(h[::2])
    assert str(err.value) == errmsg_contiguous_buffer


def test_view_to_a_dtype_of_another_size_as_numba_cuda():
    h = np.arange(12, dtype=np.int16).reshape(3, 4)
    d = cuda.to_device(h)
    for dt in ("i1", "i4", "u4", "i8", "f8"):
        np.testing.assert_array_equal(d.view(dt).copy_to_host(), h.view(dt))
    assert d.view("i8").shape == (3, 1) and d.view("i1").strides == (8, 1)
    with pytest.raises(ValueError) as e:
        cuda.to_device(np.arange(12, dtype=np.int16).reshape(4, 3)).view("i4")
    assert str(e.value) == ("When changing to a larger dtype, its size must be a divisor of the total size in bytes "
                            "of the last axis of the array.")
    strided = cuda.to_device(np.arange(32, dtype=np.int16).reshape(4, 8))[:, ::2]
    np.testing.assert_array_equal(strided.view("u2").copy_to_host(),
                                  np.arange(32, dtype=np.int16).reshape(4, 8)[:, ::2].view("u2"))
    with pytest.raises(ValueError, match="To change to a dtype of a different size, the array must be C-contiguous"):
        strided.view("i4")


def test_transpose_as_numba_cudas():
    """numba-cuda's DeviceNDArray.transpose: a 2-D array's is a new C-contiguous array (a copy, not a view), the
    identity permutation the array itself, another rank NotImplementedError; axes must be a permutation"""
    h = np.arange(120, dtype=np.int64).reshape(10, 12)
    d = cuda.to_device(h)
    t = d[::2, ::2].T
    assert (t.shape, t.strides) == ((6, 5), (40, 8)) and t.is_c_contiguous()
    np.testing.assert_array_equal(t.copy_to_host(), h[::2, ::2].T)
    np.testing.assert_array_equal(d.transpose((1, 0)).copy_to_host(), h.T)
    t[0, 0] = -1  # a copy: the array transposed is unchanged
    assert d[0, 0] == 0
    assert d.transpose((0, 1)) is d
    for axes in ((0, 0), (0, 2)):
        with pytest.raises(ValueError, match=r"invalid axes list \(0, "):
            d.transpose(axes)
    for shape in ((24,), (2, 3, 4)):
        with pytest.raises(NotImplementedError, match="transposing a non-2D DeviceNDArray isn't supported"):
            cuda.device_array(shape).T
    d3 = cuda.device_array((2, 3, 4))
    assert d3.transpose((0, 1, 2)) is d3


def test_ravel_of_a_non_contiguous_array_is_numba_cudas_not_implemented():
    d = cuda.to_device(np.arange(60))
    strided = d[::2]
    assert strided.device_ctypes_pointer.value == d.device_ctypes_pointer.value  # a view, no copy
    with pytest.raises(NotImplementedError, match="operation requires copying"):
        strided.ravel()
    f = cuda.to_device(np.asfortranarray(np.arange(12).reshape(3, 4)))
    np.testing.assert_array_equal(f.ravel(order="F").copy_to_host(), np.arange(12).reshape(3, 4).ravel(order="F"))
    np.testing.assert_array_equal(f.ravel(order="A").copy_to_host(), np.arange(12).reshape(3, 4).ravel(order="F"))
    with pytest.raises(NotImplementedError):
        f.ravel()  # C order of an F-contiguous 2-D array would need a copy
    np.testing.assert_array_equal(d.ravel().copy_to_host(), np.arange(60))


def test_contiguity_flags_as_numpys():
    # NumPy's flags ignore the strides of 1-long dimensions: a (1, 4) or (4, 1) array is both C and F contiguous
    for shape in ((1, 4), (4, 1), (3, 4), (0, 5), (1,)):
        for order in "CF":
            h = np.ndarray(shape, order=order)
            d = cuda.to_device(h)
            assert d.flags == {"C_CONTIGUOUS": h.flags.c_contiguous, "F_CONTIGUOUS": h.flags.f_contiguous}, (shape, order)
    d = cuda.device_array((4, 6))[:, ::2]
    assert d.flags == {"C_CONTIGUOUS": False, "F_CONTIGUOUS": False}


def test_shapes_must_be_integers():
    for shape in (np.array([1.1]), [1.1], (1.1,), (2, 2.0)):
        with pytest.raises(TypeError):
            cuda.device_array(shape=shape)
    assert cuda.device_array(shape=np.array([10, 10]), dtype=np.bool_).shape == (10, 10)


def test_setitem_shapes_as_numba_cuda():
    d = cuda.to_device(np.arange(35))
    with pytest.raises(ValueError, match="Can't assign 3-D array to 1-D self"):
        d[:] = np.ones((1, 2, 3))
    with pytest.raises(ValueError, match="Can't copy sequence with size 2 to array axis 0 with dimension 5"):
        d[:5] = [1, 3]
    m = cuda.to_device(np.zeros((3, 4)))
    m[:] = [1, 2, 3, 4]                                      # broadcast over the rows
    m[1] = cuda.to_device(np.full(4, 7.0))                   # a device value of the target's shape
    m[2:] = cuda.to_device(np.array([[9.0]]))               # a device value broadcast (1, 1) -> (1, 4)
    np.testing.assert_array_equal(m.copy_to_host(), [[1, 2, 3, 4], [7, 7, 7, 7], [9, 9, 9, 9]])


def test_kernels_transpose_of_host_and_device_arrays_records_and_bools():
    from kfront.cuda.kernels import transpose
    for rows, cols, dtype in ((5, 6, np.float64), (33, 17, np.complex128), (16, 40, np.bool_)):
        x = (np.arange(rows * cols) % 5).astype(dtype).reshape(rows, cols)
        d = transpose(cuda.to_device(x))  # b allocated: C-contiguous, of the transposed shape
        assert d.shape == (cols, rows) and d.strides == (rows * x.itemsize, x.itemsize)
        np.testing.assert_array_equal(d.copy_to_host(), x.T)
        out = cuda.device_array((cols, rows), dtype=dtype)
        assert transpose(x, out) is out  # a host array in, b given
        np.testing.assert_array_equal(out.copy_to_host(), x.T)
    rec = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])  # numba-cuda's test_transpose_record dtype
    arr = np.zeros((3, 5), rec)
    arr["i"] = np.arange(15).reshape(3, 5)
    arr["j"] = np.arange(90, dtype=np.float32).reshape(3, 5, 3, 2)
    d_t = cuda.device_array_like(arr.T)
    transpose(cuda.to_device(arr), d_t)
    np.testing.assert_array_equal(d_t.copy_to_host(), arr.T)
    with pytest.raises(ValueError, match="needs b of shape"):
        transpose(np.zeros((2, 3)), cuda.device_array((2, 3)))
    with pytest.raises(ValueError, match="takes a 2-D array"):
        transpose(np.zeros(3))


def test_from_array_like_makes_an_array_of_the_same_layout():
    from kfront.cuda.devicearray import from_array_like
    host = np.zeros((4, 6), dtype=np.int16)[:, ::2]
    d = from_array_like(host)
    assert (d.shape, d.strides, d.dtype) == (host.shape, host.strides, host.dtype)
    assert not d.is_c_contiguous()  # a strided layout, as host's
    other = from_array_like(np.ones((2, 2)), gpu_data=cuda.to_device(np.full(4, 7.0)).gpu_data)
    np.testing.assert_array_equal(other.copy_to_host(), np.full((2, 2), 7.0))  # over the given memory


def test_host_memory_objects_export_their_bytes_on_every_python():
    # numba-cuda's cudadrv/test_host_alloc.py::test_host_alloc_driver: np.ndarray(buffer=) of memhostalloc's memory
    # (kfront._kfront.HostBytes: the buffer protocol from C, so Python 3.10 and 3.11 have it too)
    from kfront.cuda import driver

    ctx = cuda.current_context()
    n = 32
    mapped = ctx.memhostalloc(n, mapped=True)
    ary = np.ndarray(shape=n, dtype=np.uint8, buffer=mapped)
    driver.device_memset(mapped, 0xAB, n)
    assert (ary == 0xAB).all()
    ary.fill(n)
    recv = np.empty_like(ary)
    driver.device_to_host(recv, mapped, ary.size)
    assert (recv == n).all()
    pinned = ctx.memhostalloc(16)
    view = memoryview(pinned)
    assert view.nbytes == 16 and not view.readonly
    np.ndarray(4, np.float32, buffer=pinned)[:] = 1.5
    assert np.frombuffer(bytes(view), np.float32).tolist() == [1.5] * 4
    managed = ctx.memallocmanaged(8)
    np.ndarray(1, np.int64, buffer=managed)[0] = 7
    assert np.frombuffer(managed, np.int64)[0] == 7
    assert memoryview(ctx.memhostalloc(0)).nbytes == 0
