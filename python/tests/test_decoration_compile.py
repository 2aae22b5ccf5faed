"""cuda.jit given signatures compiles them at decoration, as numba-cuda's does (its decorator compiles each
signature, then disables compiling others): the globals and closure variables a kernel or device function reads
are frozen then, and a typing error is raised then, located at the function. Bare @cuda.jit stays lazy: it
freezes and compiles at its first launch."""
import pickle

import numpy as np
import pytest

from kfront import cuda, errors, from_dtype, void

N = 10


@cuda.jit("void(int64[:])")
def read_n_declared(a):
    a[0] = N


@cuda.jit
def read_n_lazy(a):
    a[0] = N


N = 20  # after both decorations, before any launch


def test_a_declared_kernel_reads_the_global_as_it_was_at_decoration():
    a = np.zeros(1, np.int64)
    read_n_declared[1, 1](a)
    assert a[0] == 10


def test_a_bare_kernel_reads_the_global_as_it_is_at_its_first_launch():
    a = np.zeros(1, np.int64)
    read_n_lazy[1, 1](a)
    assert a[0] == 20


def test_a_closure_variable_is_frozen_at_decoration():
    def make():
        step = 3

        @cuda.jit("void(int64[:])")
        def k(a):
            a[0] = step

        step = 4
        return k

    a = np.zeros(1, np.int64)
    make()[1, 1](a)
    assert a[0] == 3


M = 1


@cuda.jit(device=True)
def read_m(x):
    return x + M


@cuda.jit("int64(int64)", device=True)
def add_m_declared(x):
    return read_m(x) * 10 + M  # M read by it and by the device function it calls


M = 2


def test_a_declared_device_function_and_its_callees_read_globals_as_at_its_decoration():
    @cuda.jit
    def k(a):
        a[0] = add_m_declared(1)

    a = np.zeros(1, np.int64)
    k[1, 1](a)
    assert a[0] == (1 + 1) * 10 + 1


def test_several_signatures_all_compile_at_decoration():
    with pytest.raises(errors.TypingError, match=r"test_decoration_compile\.py:\d+:\d+: error"):
        @cuda.jit(["void(int64[:])", "void(int64)"])  # the second cannot index its argument
        def k(a):
            a[0] = N

    @cuda.jit(["void(int64[:])", "void(float32[:])"])
    def both(a):
        a[0] = N

    N_after = 30  # a local: both signatures read the module's N (20) as it was when decorated
    ints, floats = np.zeros(1, np.int64), np.zeros(1, np.float32)
    both[1, 1](ints)
    both[1, 1](floats)
    assert ints[0] == floats[0] == 20 != N_after
    assert len(both.overloads) == 2


def test_a_typing_error_is_raised_at_decoration_located_at_the_kernel():
    # numba-cuda's RequireLiteralValue: cuda.grid's count of dimensions must be a constant
    with pytest.raises(errors.TypingError, match=r"test_decoration_compile\.py:\d+:\d+: error: cuda\.grid\(\)"):
        @cuda.jit("void(int32[:])")
        def k(a):
            a[0] = cuda.grid(a[0])

    @cuda.jit  # lazily, the same function decorates, and fails at its first launch
    def lazy(a):
        a[0] = cuda.grid(a[0])

    with pytest.raises(errors.TypingError):
        lazy[1, 1](np.zeros(1, np.int32))


def test_a_device_function_typing_error_is_raised_at_decoration():
    with pytest.raises(errors.TypingError, match="unknown attribute 'nonexistent' of int32"):
        @cuda.jit("int32(int32)", device=True)
        def f(x):
            return x.nonexistent


def _plus_one(x):
    return x + 1


def test_a_function_called_before_it_exists_fails_at_decoration_as_in_numba_cuda():
    with pytest.raises(errors.TypingError, match="name 'later_helper' is not defined"):
        @cuda.jit("void(int64[:])")
        def k(a):
            a[0] = later_helper(a[0])

    @cuda.jit  # bare: it is typed at its first launch, when the helper exists
    def lazy(a):
        a[0] = later_helper(a[0])

    globals()["later_helper"] = cuda.jit(device=True)(_plus_one)
    try:
        a = np.ones(1, np.int64)
        lazy[1, 1](a)
        assert a[0] == 2
    finally:
        del globals()["later_helper"]


def test_a_record_signature_is_typed_at_decoration_and_runs():
    rec = np.dtype([("x", np.float32), ("y", np.int64)], align=True)
    sig = void(from_dtype(rec)[::1])  # a signature kfront.types cannot read back as text: the compiler reads it

    @cuda.jit(sig)
    def k(r):
        r[0].y = N

    r = np.zeros(1, rec)
    k[1, 1](r)
    assert r[0]["y"] == 20
    with pytest.raises(errors.TypingError):
        @cuda.jit(sig)
        def bad(r):
            r[0].z = 1


def test_options_and_pickling_of_a_declared_kernel():
    @cuda.jit("void(int64[:])", debug=True, opt=False, lineinfo=False)
    def k(a):
        a[0] = N

    a = np.zeros(1, np.int64)
    k[1, 1](a)
    assert a[0] == 20
    again = pickle.loads(pickle.dumps(k))  # numba-cuda's: the function and options travel; it compiles again
    a[0] = 0
    again[1, 1](a)
    assert a[0] == 20


def test_a_kernel_declared_to_return_a_value_is_refused_at_decoration():
    with pytest.raises(TypeError, match="CUDA kernel must have void return type."):
        @cuda.jit("int32(int32)")
        def k(x):
            pass


def test_a_bfloat16_signature_is_built_at_decoration_and_runs():
    from kfront import types
    x = np.zeros(3, types.as_dtype(types.bfloat16))
    x[1] = 1.5

    @cuda.jit("void(bfloat16[:])")
    def k(a):
        a[0] = a[1] + a[1]

    k[1, 1](x)
    assert float(x[0]) == 3.0
