"""numba-cuda's kernel argument hints and argument extensions: cuda.In / cuda.Out / cuda.InOut (numba.cuda.args)
say which way a host array is copied around a launch, and cuda.jit(extensions=[...]) maps each argument of a
launch through objects' prepare_args. Expectations are numba-cuda 0.30.4's (numba/cuda/args.py and its
dispatcher's _prepare_args)."""
import numpy as np
import pytest

from kfront import cuda, types
from kfront.cuda import args as cuda_args


@cuda.jit
def add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


@cuda.jit
def copy_into(src, dst):
    i = cuda.grid(1)
    if i < src.size:
        dst[i] = src[i] * 2


@cuda.jit
def tuple_sum(pair, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = pair[0][i] + pair[1][i]


def test_in_copies_to_the_device_and_not_back():
    a = np.arange(8, dtype=np.int32)
    dst = np.zeros(8, dtype=np.int32)
    copy_into[1, 8](cuda.In(a), dst)
    np.testing.assert_array_equal(dst, np.arange(8) * 2)
    add_one[1, 8](cuda.In(a))
    np.testing.assert_array_equal(a, np.arange(8))  # the kernel's writes stay on the device


def test_out_copies_back_and_not_in():
    dst = np.full(8, 7, dtype=np.int32)
    copy_into[1, 8](np.arange(8, dtype=np.int32), cuda.Out(dst))
    np.testing.assert_array_equal(dst, np.arange(8) * 2)


def test_out_does_not_fill_the_device_copy_from_the_host():
    # Out's device array is not written from the host before the kernel: what add_one reads there is not the
    # host's 100 (numba-cuda allocates it without a copy); a kernel that writes every element sees it back
    dst = np.full(4, 100, dtype=np.int64)
    copy_into[1, 4](np.array([1, 2, 3, 4], dtype=np.int64), cuda.Out(dst))
    np.testing.assert_array_equal(dst, [2, 4, 6, 8])


def test_inout_copies_both_ways():
    a = np.arange(5, dtype=np.float64)
    add_one[1, 8](cuda.InOut(a))
    np.testing.assert_array_equal(a, np.arange(5) + 1)


def test_hints_around_device_arrays_pass_them_in_place():
    d = cuda.to_device(np.zeros(4, dtype=np.int32))
    add_one[1, 4](cuda.In(d))
    add_one[1, 4](cuda.Out(d))
    np.testing.assert_array_equal(d.copy_to_host(), [2, 2, 2, 2])


def test_hints_inside_tuples():
    a = np.ones(4, dtype=np.int32)
    b = np.arange(4, dtype=np.int32)
    out = np.zeros(4, dtype=np.int32)
    tuple_sum[1, 4]((cuda.In(a), cuda.In(b)), cuda.Out(out))
    np.testing.assert_array_equal(out, [1, 2, 3, 4])


def test_record_arrays_follow_the_hint():
    rec = np.dtype([("b", np.int32)], align=True)

    @cuda.jit
    def set_three(r):
        r[0]["b"] = 3

    host = np.zeros(1, dtype=rec)
    set_three[1, 1](cuda.In(host))
    assert host[0]["b"] == 0
    set_three[1, 1](cuda.InOut(host))
    assert host[0]["b"] == 3


def test_a_hint_of_a_value_kfront_cannot_pass_is_a_type_error():
    class Nothing(cuda_args.ArgHint):
        def to_device(self, retr, stream=0):
            return object()

    with pytest.raises(TypeError, match="cannot pass an object"):
        add_one[1, 1](Nothing(np.zeros(1)))


def test_wrap_arg_and_the_module_names():
    a = np.zeros(2)
    assert isinstance(cuda_args.wrap_arg(a), cuda.InOut)
    assert isinstance(cuda_args.wrap_arg(a, default=cuda.In), cuda.In)
    hint = cuda.Out(a)
    assert cuda_args.wrap_arg(hint) is hint
    assert issubclass(cuda.InOut, cuda.Out) and issubclass(cuda.In, cuda_args.ArgHint)
    assert cuda.In(a)._numba_type_ == types.float64[::1]


class DefaultIn:
    """An extension: host arrays go to the device only (numba-cuda's test of the idea)."""

    def __init__(self, seen):
        self.seen = seen

    def prepare_args(self, ty, val, **kwargs):
        self.seen.append((ty, sorted(kwargs)))
        return ty, cuda_args.wrap_arg(val, default=cuda.In)


def test_extensions_map_every_argument_and_see_later_appends():
    kernel = cuda.jit(add_one.py_func)
    a = np.zeros(3, dtype=np.int64)
    kernel[1, 3](a)
    np.testing.assert_array_equal(a, [1, 1, 1])
    seen = []
    kernel.extensions.append(DefaultIn(seen))  # after the first launch: numba-cuda keeps the list itself
    kernel[1, 3](a)
    np.testing.assert_array_equal(a, [1, 1, 1])
    assert seen == [(types.int64[::1], ["retr", "stream"])]
    assert kernel.targetoptions["extensions"] is kernel.extensions


class Record:
    def __init__(self, log, name):
        self.log, self.name = log, name

    def prepare_args(self, ty, val, stream=0, retr=None):
        self.log.append(self.name)
        retr.append(lambda: self.log.append(self.name + " after"))
        return ty, val


def test_extensions_run_last_to_first_and_their_writebacks_after_the_launch():
    log = []
    kernel = cuda.jit(add_one.py_func, extensions=[Record(log, "first"), Record(log, "second")])
    kernel[1, 1](np.zeros(1))
    assert log == ["second", "first", "second after", "first after"]
