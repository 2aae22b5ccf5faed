"""Readonly arrays (Numba's `readonly array(float32, 1d, C)`): a NumPy array whose flags.writeable is False, an
__array_interface__ or __cuda_array_interface__ whose data tuple says read-only. Kernels read them; a subscript
assignment to one (or to a view of one, or in a device function it is passed to) is numba-cuda's TypingError
"Cannot modify readonly array of type: readonly array(...)" (numba/cuda/typing/arraydecl.py, SetItemBuffer), and
the array is left as it was. The readonly flag is part of the specialisation: the same kernel still writes
writeable arrays."""
import numpy as np
import pytest

from kfront import cuda
from kfront.errors import TypingError

pytestmark = pytest.mark.filterwarnings("ignore::kfront.errors.PerformanceWarning")


def readonly(a):
    a = np.array(a)
    a.flags.writeable = False
    return a


class HostInterface:
    """A host array through __array_interface__ only, marked read-only."""

    def __init__(self, a, ro=True):
        self.a = a
        d = dict(a.__array_interface__)
        d["data"] = (d["data"][0], ro)
        self.__array_interface__ = d


class DeviceInterface:
    """A device array through __cuda_array_interface__ only, marked read-only."""

    def __init__(self, d, ro=True):
        self.d = d
        cai = dict(d.__cuda_array_interface__)
        cai["data"] = (cai["data"][0], ro)
        self.__cuda_array_interface__ = cai


@cuda.jit
def store0(a, x):
    a[0] = x


def refused(kernel, *args, type_="readonly array(float32, 1d, C)"):
    with pytest.raises(TypingError, match=r"Cannot modify readonly array of type: " + type_.replace("(", r"\(")
                       .replace(")", r"\)")):
        kernel[1, 1](*args)


def test_numpy_not_writeable_is_refused_and_left_unchanged():
    b = readonly(np.arange(3, dtype=np.float32))
    refused(store0, b, 7.0)
    assert b.tolist() == [0, 1, 2]


def test_same_kernel_still_writes_writeable_arrays():
    a = np.zeros(3, np.float32)
    store0[1, 1](a, 1.0)
    refused(store0, readonly(np.zeros(3, np.float32)), 2.0)
    store0[1, 1](a, 3.0)
    assert a[0] == 3.0


def test_reading_a_readonly_array():
    @cuda.jit
    def copy(src, dst):
        i = cuda.grid(1)
        if i < src.size:
            dst[i] = src[i] * 2

    src = readonly(np.arange(5, dtype=np.float64))
    dst = np.zeros(5)
    copy[1, 8](src, dst)
    assert dst.tolist() == [0, 2, 4, 6, 8]


def test_array_interface_marked_readonly():
    a = np.zeros(3, np.float32)
    refused(store0, HostInterface(a), 1.0)
    assert a[0] == 0
    store0[1, 1](HostInterface(a, ro=False), 4.0)
    assert a[0] == 4.0


def test_cuda_array_interface_marked_readonly():
    d = cuda.to_device(np.zeros(3, np.float32))
    refused(store0, DeviceInterface(d), 1.0)
    store0[1, 1](DeviceInterface(d, ro=False), 5.0)
    assert d.copy_to_host()[0] == 5.0


def test_broadcast_view_is_readonly():
    refused(store0, np.broadcast_to(np.float32(1), (4,)), 1.0, type_="readonly array(float32, 1d, A)")


@pytest.mark.parametrize("body", ["a[1:][0] = 1", "a[::2][0] = 1", "a[:] = 1", "a[0] += 1", "a[1:3] = 0",
                                  "a.T[0] = 1", "a.reshape((3, 1))[0, 0] = 1"])
def test_views_and_augmented_assignment_are_refused(body):
    ns = {"cuda": cuda}
    exec(f"@cuda.jit\ndef k(a):\n    {body}\n", ns)
    with pytest.raises(TypingError, match="Cannot modify readonly array of type: readonly array"):
        ns["k"][1, 1](readonly(np.zeros(3, np.float32)))


def test_row_of_a_2d_readonly_array_names_the_row_type():
    @cuda.jit
    def k(a):
        a[0][1] = 1

    refused(k, readonly(np.zeros((2, 2))), type_="readonly array(float64, 1d, C)")


def test_device_function_specialised_on_readonly():
    @cuda.jit(device=True)
    def put(a, i):
        a[i] = 5

    @cuda.jit
    def k(a):
        put(a, 1)

    a = np.zeros(3, np.float32)
    k[1, 1](a)
    refused(k, readonly(np.zeros(3, np.float32)))
    k[1, 1](a)
    assert a[1] == 5


def test_zero_d_readonly_array():
    @cuda.jit
    def k(a):
        a[()] = 1

    refused(k, readonly(np.float32(0).reshape(())), type_="readonly array(float32, 0d, C)")


def test_record_field_of_readonly_array_numba_allows():
    # numba-cuda's setattr of a Record (a[0].x = v) does not look at the array's mutability; neither does kfront
    rec = np.dtype([("x", np.float32), ("y", np.int32)])

    @cuda.jit
    def k(a):
        a[0].x = 3

    a = np.zeros(2, rec)
    k[1, 1](a)
    assert a[0]["x"] == 3


# ---- readonly through tuples, merges, loops, returns and signatures (numba-cuda types each readonly: Array.unify of a
# readonly and a mutable array is readonly, a tuple's item keeps its type, a returned array its type) -------------

def _kernel(body, params="a, b, c"):
    ns = {"cuda": cuda}
    exec("def k(%s):\n    %s\n" % (params, body.replace("\n", "\n    ")), ns)
    return cuda.jit(ns["k"])


@pytest.mark.parametrize("body, args", [
    ("x = a if c else b\nx[0] = 1", lambda: (readonly(np.zeros(2)), np.zeros(2), True)),
    ("x = a if c else b\nx[0] = 1", lambda: (np.zeros(2), readonly(np.zeros(2)), True)),  # the branch not taken
    ("if c:\n    x = a\nelse:\n    x = b\nx[0] = 1", lambda: (readonly(np.zeros(2)), np.zeros(2), True)),
    ("if c:\n    x = b\nelse:\n    x = a[1:]\nx[0] = 1", lambda: (readonly(np.zeros(3)), np.zeros(2), True)),
    ("x = a[0] if c else b\nx[0] = 1", lambda: (readonly(np.zeros((2, 2))), np.zeros(2), True)),  # a row
    ("t = (a, b) if c else (b, a)\nt[0][0] = 1", lambda: (readonly(np.zeros(2)), np.zeros(2), True)),
    ("x = b\nfor i in range(2):\n    x[0] = 1\n    x = a", lambda: (readonly(np.zeros(2)), np.zeros(2), 2)),
    ("x = a\nwhile c > 0:\n    x[0] = 1\n    c -= 1", lambda: (readonly(np.zeros(2)), np.zeros(2), 2)),
    ("a[0][0] = 1", lambda: ((readonly(np.zeros(2)), np.zeros(2)), 0, 0)),  # a tuple argument
    ("a[1][0][0] = 1", lambda: ((np.zeros(2), (readonly(np.zeros(2)), 1)), 0, 0)),  # nested
])
def test_readonly_through_merges_loops_and_tuples_is_refused(body, args):
    values = args()
    with pytest.raises(TypingError, match=r"Cannot modify readonly array of type: readonly array\(float64, 1d"):
        _kernel(body)[1, 1](*values)
    for v in values:
        assert not isinstance(v, np.ndarray) or not v.any()


def test_merged_readonly_arrays_are_read_and_the_writeable_items_of_a_tuple_written():
    k = _kernel("x = a if c else b\nb[1] = x[0] + 1\nt = (a, b)\nt[1][0] = t[0][0] + 2")
    a, b = readonly(np.full(2, 5.0)), np.zeros(2)
    k[1, 1](a, b, True)
    assert b.tolist() == [7, 6]
    k2 = _kernel("a[1][0] = a[0][0] + 1", "a")
    b = np.zeros(2)
    k2[1, 1]((a, b))
    assert b.tolist() == [6, 0]


def test_device_function_returning_a_readonly_array():
    @cuda.jit(device=True)
    def same(x):
        return x

    @cuda.jit
    def k(a):
        same(a)[0] = 1

    refused(k, readonly(np.zeros(2, np.float32)))
    a = np.zeros(2, np.float32)
    k[1, 1](a)
    assert a[0] == 1


@pytest.mark.parametrize("sig", [
    "void(Array(float64, 1, 'C', readonly=True))",
    "void(UniTuple(Array(float64, 1, 'C', readonly=True), 2))",
    "void(Tuple((float64[::1], Array(float64, 1, 'C', readonly=True))))",
])
def test_declared_readonly_signature_refuses_at_decoration(sig):
    from kfront import types
    last = "a[-1][0] = 1" if "Tuple" in sig else "a[0] = 1"
    with pytest.raises(TypingError, match="Cannot modify readonly array"):
        cuda.jit(sig)(_kernel(last, "a").py_func)
    # a signature object keeps the flag through its text
    ro = types.Array(types.float64, 1, "C", readonly=True)
    with pytest.raises(TypingError, match="Cannot modify readonly array"):
        cuda.jit(types.void(ro))(_kernel("a[0] = 1", "a").py_func)


def test_readonly_array_to_a_kernel_declared_writeable_is_no_matching_definition():
    # numba-cuda's typing: a readonly array matches no writeable signature (the kernel would write it)
    @cuda.jit("void(float64[::1])")
    def write(a):
        a[0] = 1.0

    a = np.zeros(2)
    a.flags.writeable = False
    with pytest.raises(TypeError, match="No matching definition for argument type\\(s\\) Array\\(float64, 1, 'C', "
                                        "readonly=True\\)"):
        write[1, 1](a)
    assert a[0] == 0


def test_writeable_and_readonly_signatures_of_one_kernel_pick_the_exact_one():
    @cuda.jit(["void(float64[::1], float64[::1])", "void(Array(float64, 1, 'C', readonly=True), float64[::1])"])
    def copy(a, b):
        b[0] = a[0] + 1

    x, out = np.ones(2), np.zeros(2)
    copy[1, 1](x, out)  # writeable: the first, exactly (the readonly one would be a safe conversion)
    x.flags.writeable = False
    copy[1, 1](x, out)  # readonly: only the second fits
    assert out[0] == 2 and len(copy.overloads) == 2
