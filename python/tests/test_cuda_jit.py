"""kfront.cuda.jit on the simulator (KFRONT_SIM=1 in the test command): launches with host and device arrays,
globals and closures frozen at the first compile, device functions, eager signatures, specialize, inspect_*,
forall, and the errors (TypingError located at the kernel's true line, IndexError, a bad launch
configuration, wrong argument types), each leaving the module usable."""
import os
import subprocess
import sys
import math
import enum

import numpy as np
import pytest

from kfront import cuda, errors, float32, float64, int32, void

SCALE = 3
TABLE = np.array([1.0, 10.0, 100.0])
PAIR = (2, 0.5)


class Color(enum.IntEnum):
    RED = 1
    GREEN = 2


@cuda.jit
def axpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit(device=True)
def twice(v):
    return 2 * v


@cuda.jit
def uses_globals(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = twice(i) * SCALE + TABLE[i % 3] + PAIR[0] * PAIR[1] + Color.GREEN


def test_host_arrays_copied_in_and_back():
    x = np.arange(100, dtype=np.float32)
    y = np.ones(100, dtype=np.float32)
    out = np.zeros(100, dtype=np.float32)
    axpy[4, 32](out, 2.0, x, y)
    np.testing.assert_array_equal(out, 2 * x + 1)


def test_device_arrays():
    x = np.arange(1000, dtype=np.float64)
    dx = cuda.to_device(x)
    dout = cuda.device_array_like(dx)
    axpy[(1000 + 127) // 128, 128](dout, 0.5, dx, dx)
    np.testing.assert_array_equal(dout.copy_to_host(), 1.5 * x)
    assert dout.shape == (1000,) and dout.dtype == np.float64 and dout.size == 1000 and dout.nbytes == 8000
    assert cuda.is_cuda_array(dout) and dout.is_c_contiguous()


def test_globals_device_functions_frozen_at_first_compile():
    global SCALE
    out = np.zeros(6)
    uses_globals[1, 32](out)
    i = np.arange(6)
    expect = 2 * i * 3 + TABLE[i % 3] + 1.0 + 2
    np.testing.assert_array_equal(out, expect)
    SCALE = 1000  # frozen: the kernel keeps the value of its first compile, as in Numba
    try:
        out2 = np.zeros(6)
        uses_globals[1, 32](out2)
        np.testing.assert_array_equal(out2, expect)
    finally:
        SCALE = 3


def test_kernel_defined_in_a_function_with_closure():
    def make(k):
        @cuda.jit
        def scale(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] *= k
        return scale

    a = np.arange(10, dtype=np.int64)
    make(7)[1, 16](a)
    np.testing.assert_array_equal(a, np.arange(10) * 7)


def test_eager_overloads_before_any_launch():
    # numba-cuda compiles declared signatures at once: overloads[sig] is there before the first launch
    def g(a, x, t):
        i = cuda.grid(1)
        if i < a.shape[0]:
            a[i] = x + t[0]

    k = cuda.jit(["void(float32[::1], float32, UniTuple(int64, 2))", "void(float32[:], float64, UniTuple(int64, 2))",
                  "void(float64[::1], int32, Tuple((float32, int64)))"])(g)
    from kfront import types
    # keyed by argument-type tuples, as numba-cuda's; a lookup also takes the signature's text
    assert set(k.overloads) == {(float32[:], float64, types.UniTuple(types.int64, 2)),
                                (float32[::1], float32, types.UniTuple(types.int64, 2)),
                                (float64[::1], int32, types.Tuple((float32, types.int64)))}
    assert k.overloads["void(float32[:], float64, UniTuple(int64, 2))"].params[0][3] == "A"
    assert k.overloads[(float32[:], float64, types.UniTuple(types.int64, 2))].params[0][3] == "A"


def test_eager_signature_and_specialize():
    @cuda.jit(void(float32[:], float32))
    def fill(a, v):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = v

    a = np.zeros(8, dtype=np.float32)
    fill[1, 8](a, 2.5)
    assert (a == 2.5).all()
    assert list(fill.overloads) == [(float32[:], float32)]
    a64 = np.zeros(3)
    axpy[1, 4](a64, 1.0, a64, a64)  # a new argument-type signature: a new overload
    assert "void(float64[::1], float64, float64[::1], float64[::1])" in axpy.overloads
    b = cuda.to_device(np.zeros(4))
    spec = axpy.specialize(b, 1.0, b, b)
    assert spec.signatures == [(float64[::1], float64, float64[::1], float64[::1])]


def test_inspect_kir_and_ptx():
    kir = axpy.inspect_kir("void(float32[:], float32, float32[:], float32[:])")
    assert "func.func" in kir and "arith.mulf" in kir
    ptx = axpy.inspect_ptx("void(float32[:], float32, float32[:], float32[:])")
    assert ".visible .entry" in ptx
    ptx, resty = cuda.compile_ptx(twice.py_func, "float64(float64)", device=True)
    assert ".func" in ptx and str(resty) == "float64"


def test_signatures_list_what_lazy_launches_compiled():
    """As numba-cuda's dispatcher: signatures (and nopython_signatures) grow with each new argument-type signature a
    launch compiles, each a key of overloads; inspect_types prints each with its typed code."""
    import io

    from kfront import types

    @cuda.jit
    def put(a, x):
        a[0] = x

    assert put.signatures == [] and put.nopython_signatures == []
    put[1, 1](np.zeros(2), 1.5)
    put[1, 1](np.zeros(2, np.float32), 2)
    put[1, 1](np.zeros(2), 2.5)  # seen before: nothing new
    assert put.signatures == [(types.float64[::1], types.float64), (types.float32[::1], types.int64)]
    assert put.signatures == list(put.overloads)
    assert put.nopython_signatures == [types.void(types.float64[::1], types.float64),
                                       types.void(types.float32[::1], types.int64)]
    buf = io.StringIO()
    put.inspect_types(file=buf)
    text = buf.getvalue()
    assert text.count("-" * 80) == 2 and text.count("=" * 80) == 2
    assert text.startswith("put (float64[::1], float64)\n" + "-" * 80 + "\nfunc.func")
    assert "put (float32[::1], int64)\n" in text and "arith.sitofp" in text
    buf = io.StringIO()
    put.inspect_types(file=buf, signature=(types.float32[::1], types.int64))
    assert buf.getvalue().count("=" * 80) == 1
    with pytest.raises(errors.UnsupportedError, match="pretty=True"):
        put.inspect_types(pretty=True)

    @cuda.jit("void(float32[:], float32)")
    def eager(a, x):
        a[0] = x

    assert eager.signatures == [(float32[:], float32)]
    eager[1, 1](np.zeros(2, np.float32), 1.0)  # converted to the declared signature: nothing new
    assert eager.signatures == [(float32[:], float32)]


def test_compile_ptx_infers_the_return_type():
    """Argument types only: the return type is the one kfront's typing gives, as numba-cuda's compile_ptx does."""
    def mixed(a, b):
        return a * b + 1

    def pair(a, b):
        return a // 2, b

    def store(x, v):
        x[0] = v

    assert str(cuda.compile_ptx(mixed, "(int32, float32)", device=True)[1]) == "float64"
    assert str(cuda.compile_ptx(mixed, "(int32, uint8)", device=True)[1]) == "int64"
    assert str(cuda.compile_ptx(pair, "(int16, float32)", device=True)[1]) == "Tuple((int64, float32))"
    assert str(cuda.compile_ptx(store, "(float32[:], float32)", device=True)[1]) == "none"
    assert str(cuda.compile_ptx(store, "(float32[:], float32)")[1]) == "none"


def test_compile_ptx_raises_typing_errors_without_a_runtime(tmp_path):
    """compile_ptx needs no runtime; its errors are kfront.errors' classes all the same (a fresh process)."""
    prog = tmp_path / "prog.py"
    prog.write_text("from kfront import cuda, errors\n"
                    "def f(a):\n    return a.no_such_attribute\n"
                    "try:\n    cuda.compile_ptx(f, '(int32,)', device=True)\n"
                    "except errors.TypingError as e:\n    print('TypingError', e.line)\n")
    out = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True, env=os.environ)
    assert out.stdout.strip() == "TypingError 3", out.stderr


def test_forall():
    a = np.zeros(1000, dtype=np.float32)
    x = np.arange(1000, dtype=np.float32)
    axpy.forall(1000)(a, 1.0, x, x)
    np.testing.assert_array_equal(a, 2 * x)


def test_forall_of_no_task_launches_nothing_and_of_a_negative_count_is_an_error():
    a = np.full(4, 5, dtype=np.float32)
    assert axpy.forall(0)(a, 1.0, a, a) is None  # numba-cuda's ForAll returns before launching
    np.testing.assert_array_equal(a, 5)
    with pytest.raises(ValueError, match="Can't create ForAll with negative task count: -1"):
        axpy.forall(-1)


def test_typing_error_is_located_and_module_stays_usable():
    @cuda.jit
    def bad(a):
        i = cuda.grid(1)
        a[i] = undefined_name + 1  # noqa: F821

    line = bad.py_func.__code__.co_firstlineno + 3
    with pytest.raises(errors.TypingError) as e:
        bad[1, 1](np.zeros(1))
    assert ":%d:" % line in str(e.value) and "undefined_name" in str(e.value) and "^" in str(e.value)
    assert e.value.line == line
    test_host_arrays_copied_in_and_back()


def test_index_error_names_kernel_and_line():
    @cuda.jit
    def over(a):
        i = cuda.grid(1)
        a[i] = 1.0

    with pytest.raises(IndexError) as e:
        over[1, 16](np.zeros(8))
    assert "over" in str(e.value)
    assert e.value.line == over.py_func.__code__.co_firstlineno + 3
    test_host_arrays_copied_in_and_back()


def test_bad_launch_configuration():
    with pytest.raises(errors.LaunchError):
        axpy[1, 4096](np.zeros(4), 1.0, np.zeros(4), np.zeros(4))
    with pytest.raises(errors.LaunchError):
        axpy[0, 32](np.zeros(4), 1.0, np.zeros(4), np.zeros(4))
    with pytest.raises((ValueError, TypeError)):
        axpy[1](np.zeros(4))
    test_host_arrays_copied_in_and_back()


def test_wrong_argument_types():
    @cuda.jit("void(float32[:])")
    def only_f32(a):
        a[0] = 1

    with pytest.raises(TypeError):
        only_f32[1, 1](np.zeros(4, dtype=np.int8))
    with pytest.raises(TypeError):
        axpy[1, 1]("not an array", 1.0, np.zeros(1), np.zeros(1))
    test_host_arrays_copied_in_and_back()


def test_device_function_cannot_be_launched():
    with pytest.raises(RuntimeError, match="Cannot compile a device function as a kernel"):  # numba-cuda's
        twice[1, 1](1.0)
    with pytest.raises(TypeError):
        twice(1.0)


def test_shared_memory_and_syncthreads():
    @cuda.jit
    def reverse(a):
        s = cuda.shared.array(32, dtype=float64)
        t = cuda.threadIdx.x
        s[t] = a[t]
        cuda.syncthreads()
        a[t] = s[31 - t]

    a = np.arange(32, dtype=np.float64)
    reverse[1, 32](a)
    np.testing.assert_array_equal(a, np.arange(32)[::-1])


def test_math_and_int32():
    @cuda.jit
    def roots(out, n):
        i = cuda.grid(1)
        if i < n:
            out[i] = math.sqrt(float(i))

    out = np.zeros(9)
    roots[1, 16](out, np.int32(9))
    np.testing.assert_allclose(out, np.sqrt(np.arange(9)))
    assert int32 is not None


def test_njit_functions_run_on_the_host_and_in_kernels():
    from kfront import njit

    @njit
    def clamp(v, lo, hi):
        return min(max(v, lo), hi)

    assert clamp(5, 0, 3) == 3  # plain Python on the host

    @cuda.jit
    def clamp_all(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = clamp(a[i], 0.0, 1.0)

    a = np.array([-1.0, 0.5, 2.0])
    clamp_all[1, 4](a)
    np.testing.assert_array_equal(a, [0.0, 0.5, 1.0])
    with pytest.raises(TypeError):
        clamp[1, 1](a)


CONSTANTS = np.arange(4.0)


@cuda.jit
def writes_a_constant_array(out):
    c = cuda.const.array_like(CONSTANTS)
    c[0] = 1.0
    out[0] = c[1]


@cuda.jit
def updates_a_constant_view(out):
    c = cuda.const.array_like(CONSTANTS)[1:]
    c[0] += 2.0
    out[0] = c[0]


def test_stores_to_constant_arrays_are_located_errors():
    """cuda.const.array_like's array lives in read-only constant memory: a store to it, or to a view of it, is refused
    where it is written (the simulator would fail at run time, the GPU fault)."""
    for kernel, line in ((writes_a_constant_array, "c[0] = 1.0"), (updates_a_constant_view, "c[0] += 2.0")):
        with pytest.raises(errors.TypingError, match="cannot assign to an element of a constant array") as e:
            kernel[1, 1](np.zeros(2))
        assert line in str(e.value)


def _add_into(r, x, y):
    r[0] = x + y


@pytest.mark.parametrize("order", [1, -1])
def test_explicit_signatures_resolve_as_numba_rates_the_conversions(order):
    # numba's resolve_overload: the signature needing the fewest unsafe, then safe, then promoting conversions,
    # whatever the order of the list (the first that fit had been taken: float32 for float64 arguments)
    sigs = ["void(float64[::1], float32, float32)", "void(float64[::1], float64, float64)"][::order]
    f = cuda.jit(sigs)(_add_into)
    expect = {(1, 2.0 ** -25): 1.0000000298023224,                    # int64, float64: the float64 one
              (np.float32(1), np.float32(2.0 ** -25)): 1.0,           # exact: float32
              (np.int32(1), np.float32(2.0 ** -25)): 1.0000000298023224,  # int32 -> float32 is unsafe
              (1, np.float32(2.0 ** -25)): 1.0000000298023224,        # int64 -> float32 is unsafe
              (np.float32(1), 2.0 ** -25): 1.0000000298023224}        # float64 -> float32 is unsafe
    for args, value in expect.items():
        r = np.zeros(1)
        f[1, 1](r, *args)
        assert r[0] == value, args


def test_a_tie_between_explicit_signatures_is_numbas_ambiguous_overloading():
    f = cuda.jit(["void(float64[::1], float32, float64)", "void(float64[::1], float64, float32)"])(_add_into)
    with pytest.raises(TypeError, match="Ambiguous overloading for <function _add_into at "):
        f[1, 1](np.zeros(1), np.int8(1), np.int8(2))
    r = np.zeros(1)
    f[1, 1](r, np.float32(1), 2.0)  # exact for one of them
    assert r[0] == 3.0


def test_an_array_prefers_the_signature_of_its_own_layout():
    @cuda.jit(["void(float64[:], float64)", "void(float64[::1], int64)"])
    def store(r, x):
        r[0] = x

    r = np.zeros(1)
    store[1, 1](r, 3)  # C array and int: exact for the second (the first needs two safe conversions)
    assert r[0] == 3.0


def _noop(x):
    pass


def test_launch_configuration_errors_are_numba_cudas():
    k = cuda.jit(_noop)
    with pytest.raises(ValueError, match=r"griddim must be a sequence of 1, 2 or 3 integers, got \[1, 2, 3, 4\]"):
        k[(1, 2, 3, 4), (5, 6)]
    with pytest.raises(ValueError, match=r"blockdim must be a sequence of 1, 2 or 3 integers, got \[3, 4, 5, 6\]"):
        k[(1, 2), [3, 4, 5, 6]]
    with pytest.raises(TypeError, match=r"griddim must be a sequence of integers, got \[2.0\]"):
        k[2.0, 3]
    with pytest.raises(TypeError, match=r"blockdim must be a sequence of integers, got \[1, 'a'\]"):
        k[2, (1, "a")]
    for unconfigured in (lambda: k(0), lambda: k[None, 32], lambda: cuda.jit("void(int32)")(_noop)(0)):
        with pytest.raises(ValueError, match="Kernel launch configuration was not specified"):
            unconfigured()
    k[(), np.int64(2)](0)  # () is one block, as numba-cuda has it
