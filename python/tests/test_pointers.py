"""Pointer types in kernels, as numba-cuda has them: CPointer(T) / "T*" in kernel, device-function and declare_device
signatures; p[i] loads and stores (getitem / setitem of a CPointer: one integer index, C's meaning, no bounds); a
pointer passed on to device functions and foreign ones; a launch passing an integer address for a pointer parameter
(numba-cuda's dispatcher passes the value as it is); the simulator's refusal of an address no allocation holds; cache
hints through pointers; carray / farray (arrays over a pointer); and cffi's ffi.from_buffer (a pointer to an array's
data)."""
import numpy as np
import pytest

from kfront import cuda, errors
from kfront import float32, float64, int32, int64, uint8, uint32, void
from kfront.cuda import types


def _address(devary):
    return devary.__cuda_array_interface__["data"][0]


def test_cpointer_kernel_arguments_axpy():
    # numba-cuda's test_dispatcher_cpointer_arguments
    ptr = types.CPointer(types.int32)

    @cuda.jit(void(ptr, int32, ptr, ptr, uint32))
    def axpy(r, a, x, y, n):
        i = cuda.grid(1)
        if i < n:
            r[i] = a * x[i] + y[i]

    hx = np.arange(10, dtype=np.int32)
    hy = np.arange(10, dtype=np.int32) * 2
    dx, dy = cuda.to_device(hx), cuda.to_device(hy)
    dr = cuda.device_array_like(dx)
    axpy[1, 32](_address(dr), 5, _address(dx), _address(dy), 10)
    np.testing.assert_equal(dr.copy_to_host(), 5 * hx + hy)


def test_pointer_signature_text_and_augmented_store():
    # numba-cuda's doc example ex_cpointer, its signature written as numba spells the type
    @cuda.jit("void(uint8*, uint32)")
    def add_one(x, n):
        i = cuda.grid(1)
        if i < n:
            x[i] += 1

    x = cuda.to_device(np.arange(10, dtype=np.uint8))
    add_one[1, 32](_address(x), len(x))
    np.testing.assert_equal(x.copy_to_host(), np.arange(1, 11, dtype=np.uint8))
    assert add_one.signatures == [(types.CPointer(uint8), uint32)]


def test_index_is_c_semantics_any_integer_type_and_sign():
    @cuda.jit((types.CPointer(types.float64), types.CPointer(types.float64)))
    def shift(out, p):  # p points at element 1 of its array: p[-1] is element 0 (no wrapping, as in C)
        out[0] = p[-1]
        out[1] = p[np.uint8(2)]
        out[2] = p[np.int16(0)]
        out[3] = p[True + 0]

    src = cuda.to_device(np.array([10.0, 11.0, 12.0, 13.0]))
    out = cuda.device_array(4, np.float64)
    shift[1, 1](_address(out), _address(src) + 8)
    np.testing.assert_equal(out.copy_to_host(), [10.0, 13.0, 11.0, 12.0])


def test_pointers_passed_to_device_functions_and_merged():
    @cuda.jit("float32(float32*, int64)", device=True)
    def twice(p, i):
        return p[i] * 2

    @cuda.jit(device=True)
    def put(p, i, v):
        p[i] = v

    @cuda.jit("void(float32*, float32*, int32)")
    def k(dst, src, n):
        i = cuda.grid(1)
        if i < n:
            q = src
            if i % 2:
                q = dst
            put(dst, i, twice(src, i) + q[i])

    src = cuda.to_device(np.arange(8, dtype=np.float32))
    dst = cuda.to_device(np.full(8, 100, np.float32))
    k[1, 8](_address(dst), _address(src), 8)
    expect = np.where(np.arange(8) % 2, 2 * np.arange(8) + 100, 3 * np.arange(8))
    np.testing.assert_equal(dst.copy_to_host(), expect.astype(np.float32))


def test_device_function_returns_a_pointer():
    @cuda.jit(device=True)
    def same(p):
        return p

    @cuda.jit("void(int32*, int32)")
    def k(p, v):
        same(p)[1] = v

    x = cuda.to_device(np.zeros(2, np.int32))
    k[1, 1](_address(x), 5)
    np.testing.assert_equal(x.copy_to_host(), [0, 5])
    _, restype = cuda.compile_ptx(same.py_func, (types.CPointer(int32),), device=True)
    assert restype == types.CPointer(int32)


def test_pointer_ptx_loads_and_stores_through_the_parameter():
    def k(p, n):
        p[n] = p[n + 1] + np.int32(1)

    ptx, _ = cuda.compile_ptx(k, "void(int32*, int64)")
    assert ".param .u64 k_param_0" in ptx
    assert "ld.global.u32" in ptx and "st.global.u32" in ptx


def test_declare_device_takes_pointers():
    reduce = cuda.declare_device("sum_reduce", "float32(CPointer(float32), int32)")
    plain = cuda.declare_device("sum_c", float32(types.CPointer(float32), int32), abi="c")

    def k(p, out, n):
        out[0] = reduce(p, n) + plain(p, n)

    ptx, _ = cuda.compile_ptx(k, (types.CPointer(float32), float32[:], int32))
    # numba-cuda's ABI: the return slot's pointer, then the declared pointer and int; abi="c": the two alone
    assert "sum_reduce\n(\n\t.param .b64 sum_reduce_param_0,\n\t.param .b64 sum_reduce_param_1,\n\t.param .b32" in ptx
    assert "sum_c\n(\n\t.param .b64 sum_c_param_0,\n\t.param .b32 sum_c_param_1\n)" in ptx

    def array_for_pointer(p, out, n):
        out[0] = reduce(out, n)

    with pytest.raises(errors.TypingError, match=r"argument 1 of the foreign function 'sum_reduce' .* must be "
                                                 r"float32\*, not array\(float32, 1d, A\)"):
        cuda.compile_ptx(array_for_pointer, (types.CPointer(float32), float32[:], int32))

    def other_pointer(p, out, n):
        out[0] = reduce(p, n)

    with pytest.raises(errors.TypingError, match=r"must be float32\*, not float64\*"):
        cuda.compile_ptx(other_pointer, (types.CPointer(float64), float32[:], int32))


@pytest.mark.parametrize("body, message", [
    ("p[1.5] = 0", r"No implementation of getitem\(int32\*, float64\): a pointer is indexed by an integer"),
    ("x = p[0:2]", r"int32\* is indexed by one integer \(p\[i\]\), not sliced"),
    ("x = p[0, 1]", r"int32\* is indexed by one integer"),
])
def test_pointer_index_errors_are_located(tmp_path, body, message):
    src = tmp_path / "kern.py"
    src.write_text("from kfront import cuda\n\n@cuda.jit('void(int32*)')\ndef k(p):\n    %s\n" % body)
    import importlib.util
    spec = importlib.util.spec_from_file_location("kern_%d" % abs(hash(body)), src)
    with pytest.raises(errors.TypingError, match=r"kern\.py:5:\d+: error: " + message):
        spec.loader.exec_module(importlib.util.module_from_spec(spec))


@pytest.mark.parametrize("sig", ["void(voidptr)", void(types.CPointer(types.CPointer(int32))),
                                 void(types.CPointer(types.complex64)), void(types.CPointer(int32, 1))])
def test_unsupported_pointer_signatures_keep_their_error(sig):
    with pytest.raises(errors.UnsupportedError, match=r"pointer types \(.*\) are not supported in signatures"):
        @cuda.jit(sig)
        def k(p):
            pass


def test_launch_takes_an_integer_address_for_a_pointer_parameter():
    @cuda.jit("void(int32*, int64)")
    def k(p, i):
        p[i] = 7

    x = cuda.to_device(np.zeros(4, np.int32))
    k[1, 1](np.uint64(_address(x)), 1)  # a NumPy integer as well as a Python int
    k[1, 1](_address(x), 3)
    np.testing.assert_equal(x.copy_to_host(), [0, 7, 0, 7])
    for arg in (x, 1.5, True):  # numba-cuda passes the value as it is: an array or a float is no address
        with pytest.raises(errors.KernelArgumentError, match="No matching definition"):
            k[1, 1](arg, 0)


@pytest.mark.simulator_only("a GPU faults on these addresses (an illegal or misaligned address)")
@pytest.mark.parametrize("where, message", [
    ("past", r"writes the 4 bytes at 0x[0-9a-f]+, which no allocation holds"),
    ("null", r"writes the 4 bytes at 0x0, which no allocation holds"),
    ("freed", r"which no allocation holds"),
    ("misaligned", r"writes the 4 bytes at 0x[0-9a-f]+ \(a GPU would fault with a misaligned address\)"),
])
def test_simulator_refuses_a_pointer_outside_every_allocation(where, message):
    @cuda.jit("void(int32*, int64)")
    def k(p, i):
        p[i] = 7

    x = cuda.to_device(np.zeros(4, np.int32))
    addr, index = _address(x), 0
    if where == "past":
        index = 4
    elif where == "null":
        addr = 0
    elif where == "freed":
        y = cuda.device_array(1000, np.int32)
        addr = _address(y)
        del y
        cuda.current_context().deallocations.clear()
    else:
        addr += 2
    with pytest.raises(errors.CudaDriverError, match=r"memory access through a pointer .*in kernel k at .*" + message):
        k[1, 1](addr, index)
    np.testing.assert_equal(x.copy_to_host(), [0, 0, 0, 0])


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.float16, np.float32, np.int64, np.float64])
def test_cache_hints_on_pointers(dtype):
    # numba-cuda's test_cache_hints (its cpointer subtests): ld.global.<op> / st.global.<op> of the address
    nt = types.from_dtype(np.dtype(dtype))
    bits = np.dtype(dtype).itemsize * 8
    for operator, modifier in ((cuda.ldca, "ca"), (cuda.ldcg, "cg"), (cuda.ldcs, "cs"), (cuda.ldlu, "lu"),
                               (cuda.ldcv, "cv")):
        def f_ptr(ptr, r, n):
            for i in range(n):
                r[i] = operator(ptr, i)

        ptx, _ = cuda.compile_ptx(f_ptr, (types.CPointer(nt), nt[:], types.intp))
        assert "ld.global.%s.b%d" % (modifier, bits) in ptx
    for operator, modifier in ((cuda.stcg, "cg"), (cuda.stcs, "cs"), (cuda.stwb, "wb"), (cuda.stwt, "wt")):
        def g_ptr(ptr, values, n):
            for i in range(n):
                operator(ptr, i, values[i])

        ptx, _ = cuda.compile_ptx(g_ptr, (types.CPointer(nt), nt[:], types.intp))
        assert "st.global.%s.b%d" % (modifier, bits) in ptx


def test_cache_hints_on_pointers_run_and_check_their_index():
    @cuda.jit("void(int32*, int32[:])")
    def k(p, r):
        r[0] = cuda.ldcg(p, 1)
        cuda.stwt(p, np.uint8(0), 42)

    x = cuda.to_device(np.array([1, 2], np.int32))
    r = cuda.device_array(1, np.int32)
    k[1, 1](_address(x), r)
    np.testing.assert_equal(r.copy_to_host(), [2])
    np.testing.assert_equal(x.copy_to_host(), [42, 2])

    def tuple_index(p, r):
        r[0] = cuda.ldca(p, (0, 1))

    with pytest.raises(errors.TypingError, match="Pointers only support scalar indexing, got tuple of 2"):
        cuda.compile_ptx(tuple_index, (types.CPointer(int32), int32[:]))

    def float_index(p, r):
        r[0] = cuda.ldca(p, 1.0)

    with pytest.raises(errors.TypingError, match="float64 is not a valid index"):
        cuda.compile_ptx(float_index, (types.CPointer(int32), int32[:]))


# ---- carray / farray: arrays over a pointer -------------------------------------------------------------------------

from kfront.numpy_support import carray, farray  # noqa: E402 (numba.cuda.np.numpy_support's, under the alias)


@pytest.mark.parametrize("cfarray", [carray, farray])
def test_cfarray_over_a_pointer_argument(cfarray):
    # numba-cuda's test_array _test_cfarray
    @cuda.jit(types.void(types.CPointer(types.float32)))
    def add(a_ptr):
        a = cfarray(a_ptr, (1,), dtype=cuda.float32)
        a[0] += 1.2

    a = cuda.to_device(np.array([0.0], dtype=np.float32))
    add[1, 1](int(a.gpu_data.device_pointer))
    cuda.synchronize()
    assert a.copy_to_host()[0] == np.float32(1.2)


def test_cfarray_layouts_shapes_known_at_run_time_and_attributes():
    @cuda.jit("void(int32*, int64, int64, int32[:, :], int32[:, :], int64[:])")
    def k(p, m, n, oc, of, info):
        c = carray(p, (m, n))
        f = farray(p, (m, n), np.int32)
        for i in range(m):
            for j in range(n):
                oc[i, j] = c[i, j]
                of[i, j] = f[i, j]
        info[0], info[1] = c.shape
        info[2], info[3] = c.strides
        info[4], info[5] = f.strides
        info[6] = carray(p, n).size
        f[1, 2] = -1  # a store through the view writes the pointer's memory

    x = np.arange(6, dtype=np.int32)
    d = cuda.to_device(x)
    oc, of = cuda.device_array((2, 3), np.int32), cuda.device_array((2, 3), np.int32)
    info = cuda.device_array(7, np.int64)
    k[1, 1](_address(d), 2, 3, oc, of, info)
    np.testing.assert_equal(oc.copy_to_host(), x.reshape(2, 3))
    np.testing.assert_equal(of.copy_to_host(), x.reshape(2, 3, order="F"))
    np.testing.assert_equal(info.copy_to_host(), [2, 3, 12, 4, 4, 8, 3])
    np.testing.assert_equal(d.copy_to_host(), [0, 1, 2, 3, 4, -1])
    ptx, _ = cuda.compile_ptx(k.py_func, "void(int32*, int64, int64, int32[:, :], int32[:, :], int64[:])")
    assert ".param .u64 k_param_0" in ptx


@pytest.mark.parametrize("call, message", [
    ("carray(x, 3)", r"pointer argument expected, got 'array\(float32, 1d, C\)'"),
    ("carray(p, 3, dtype=np.float64)", r"mismatching dtype 'float64' for pointer type 'float32\*'"),
    ("farray(p, 2.5)", r"invalid shape 'float64'"),
    ("carray(p, (2, 1.5))", r"invalid shape"),
])
def test_cfarray_typing_errors(call, message):
    src = "def k(p, x, out):\n    a = %s\n    out[0] = a[0]\n" % call
    scope = {"carray": carray, "farray": farray, "np": np}
    exec(compile(src, "<cfarray %s>" % call, "exec"), scope)
    with pytest.raises(errors.TypingError, match=message):
        cuda.compile_ptx(scope["k"], (types.CPointer(float32), float32[::1], float32[::1]))


@pytest.mark.simulator_only("a GPU faults on memory no allocation holds (an illegal address)")
def test_simulator_refuses_a_cfarray_past_its_allocation():
    @cuda.jit("void(int32*, int64)")
    def k(p, n):
        a = carray(p, (n, 3))
        if n:
            a[0, 0] = 1

    d = cuda.to_device(np.zeros(6, np.int32))
    k[1, 1](_address(d), 2)
    with pytest.raises(errors.CudaDriverError, match=r"in kernel k at .*: thread \(0,0,0\) of block \(0,0,0\) views the "
                                                     r"36 bytes at 0x[0-9a-f]+, which no allocation holds"):
        k[1, 1](_address(d), 3)
    k[1, 1](0, 0)  # an empty array over any pointer is fine (no element to touch)
    np.testing.assert_equal(d.copy_to_host(), [1, 0, 0, 0, 0, 0])


# ---- ffi.from_buffer: a pointer to an array's data ------------------------------------------------------------------

try:
    import cffi
except ImportError:  # (numba-cuda's tests of it skip without it too)
    cffi = None
needs_cffi = pytest.mark.skipif(cffi is None, reason="cffi is not installed")
_ffi = cffi.FFI() if cffi else None  # bound as a global, as numba-cuda's test_cffi binds it (a closure variable too)


@needs_cffi
def test_ffi_from_buffer_points_at_the_arrays_data():
    @cuda.jit
    def k(x, out):
        p = _ffi.from_buffer(x)
        out[0] = p[1] + p[2]
        p[0] = 7

    x = np.arange(4, dtype=np.float64)
    out = np.zeros(1)
    k[1, 1](x, out)  # a host array: the pointer is to the memory the launch hands the kernel
    np.testing.assert_equal(out, [3.0])
    np.testing.assert_equal(x, [7.0, 1.0, 2.0, 3.0])
    d = cuda.to_device(np.arange(4, dtype=np.float64))
    k[1, 1](d, out)
    np.testing.assert_equal(d.copy_to_host(), [7.0, 1.0, 2.0, 3.0])

    ffi = cffi.FFI()

    @cuda.jit
    def closure(y):
        carray(ffi.from_buffer(y), 2)[1] = 5  # a 2-d C array's pointer too, viewed again

    y = np.zeros((2, 2), np.int32)
    closure[1, 1](y)
    np.testing.assert_equal(y, [[0, 5], [0, 0]])


@needs_cffi
def test_ffi_from_buffer_of_local_and_shared_arrays():
    @cuda.jit(device=True)
    def put(p, i, v):
        p[i] = v

    @cuda.jit
    def k(out):
        loc = cuda.local.array(4, int32)
        sh = cuda.shared.array(8, int32)
        dyn = cuda.shared.array(0, int32)
        i = cuda.threadIdx.x
        put(_ffi.from_buffer(loc), 1, i + 10)  # the pointer passed to a device function: the caller's local array
        put(_ffi.from_buffer(sh), i, i * 2)
        put(_ffi.from_buffer(dyn), i, i * 3)
        cuda.syncthreads()
        out[i] = loc[1] + sh[(i + 1) % 4] + dyn[(i + 2) % 4]

    out = np.zeros(4, np.int32)
    k[1, 4, 0, 64](out)
    np.testing.assert_equal(out, [i + 10 + (i + 1) % 4 * 2 + (i + 2) % 4 * 3 for i in range(4)])


@needs_cffi
def test_ffi_from_buffer_passes_to_a_foreign_function():
    # numba-cuda's test_cffi test_from_buffer and doc example ex_from_buffer, their PTX (the simulator runs no foreign code)
    array_mutator = cuda.declare_device("array_mutator", types.void(types.CPointer(types.int32)))
    sum_reduce = cuda.declare_device("sum_reduce", "float32(CPointer(float32), int32)")

    def mutate_array(x):
        array_mutator(_ffi.from_buffer(x))

    def reduction_caller(result, array):
        array_ptr = _ffi.from_buffer(array)
        result[()] = sum_reduce(array_ptr, len(array))

    ptx, _ = cuda.compile_ptx(mutate_array, (int32[::1],))
    assert "call.uni (retval0), \n\tarray_mutator," in ptx
    ptx, _ = cuda.compile_ptx(reduction_caller, (types.Array(float32, 0, "C"), float32[::1]))
    assert "sum_reduce" in ptx


@needs_cffi
@pytest.mark.parametrize("arg, error, message", [
    ("x[::2]", errors.UnsupportedError, r"from_buffer\(\) unsupported on non-contiguous buffers \(got array\(float64, 1d, A\)\)"),
    ("x.reshape(2, 2).T", errors.TypingError,
     r"from_buffer\(\) only supports multidimensional arrays with C layout \(got array\(float64, 2d, F\)\)"),
    ("1.0", errors.TypingError, r"from_buffer\(\) expected a buffer object, got float64"),
])
def test_ffi_from_buffer_errors(arg, error, message):
    src = "def b(x, out):\n    p = ffi.from_buffer(%s)\n" % arg
    scope = {"ffi": _ffi}
    exec(compile(src, "<from_buffer %s>" % arg, "exec"), scope)
    with pytest.raises(error, match=r"<from_buffer .*>:2:25: error: " + message):
        cuda.compile_ptx(scope["b"], (float64[::1], float64[::1]))


def test_foreign_functions_return_pointers():
    # numba-cuda's test_external_cooperative_func declares `signature(CPointer(int32))` (numba's ABI: the pointer
    # comes back through the return slot); abi="c" returns it in its return value
    from kfront.types import signature
    from kfront.types import CPointer, int32
    # (defined, so that the GPU's link step finds them)
    defs = cuda.CUSource('extern "C" __device__ int cta_barrier_ptr(int **r) { *r = 0; return 0; }\n'
                         'extern "C" __device__ int *get_ptr_c(int *p) { return p; }\n')
    barrier = cuda.declare_device("cta_barrier_ptr", sig=signature(CPointer(int32)), use_cooperative=True,
                                  link=[defs])
    get = cuda.declare_device("get_ptr_c", "int32*(int32*)", abi="c", link=[defs])

    @cuda.jit("void()")
    def k():
        barrier()

    @cuda.jit("void(int32*)")
    def k2(p):
        q = get(p)
        q[0] = 5

    assert k.overloads[()].cooperative
    ptx = k2.inspect_asm()[(CPointer(int32),)]
    assert "get_ptr_c" in ptx and "st.u32" in ptx
