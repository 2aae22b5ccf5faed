"""cuda.declare_device and cuda.jit(link=...) (kfront.cuda.linking): a foreign device function typed by its signature
and called with numba-cuda's ABI (`extern "C" __device__ int f(T *ret, args...)`) or, with abi="c", as a C function.
Compiling works everywhere (compile_ptx's PTX declares and calls it); on a GPU the runtime links the link items in
with nvJitLink (test/gpu/python/test_linking_gpu.py runs them there); on the simulator a launch of a kernel calling
one raises, naming the function and saying it needs a GPU. The link items are checked at declaration."""
import re

import numpy as np
import pytest

from kfront import config, cuda, errors
from kfront.types import float32

mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)")


def multiply(r, x, y):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = mul(x[i], y[i])


def test_compile_ptx_declares_and_calls_it():
    ptx, _ = cuda.compile_ptx(multiply, (float32[::1], float32[::1], float32[::1]))
    assert re.search(r"\.extern \.func\s+\(\.param \.b32 func_retval0\) mul_f32_f32", ptx)
    assert re.search(r"call\.uni\s+\(retval0\),\s+mul_f32_f32,", ptx)


def test_wrong_argument_count_is_a_located_typing_error():
    def bad(r, x):
        r[0] = mul(x[0])

    with pytest.raises(errors.TypingError) as e:
        cuda.compile_ptx(bad, (float32[::1], float32[::1]))
    assert "mul_f32_f32" in str(e.value) or "argument" in str(e.value)


@pytest.mark.skipif(not config.ENABLE_CUDASIM, reason="the simulator's message (a GPU says it cannot link yet)")
def test_simulator_says_it_needs_a_gpu():
    k = cuda.jit(multiply)
    x = np.arange(4, dtype=np.float32)
    r = np.zeros_like(x)
    with pytest.raises(errors.KfrontError, match="foreign device function .*simulator cannot run.*needs a GPU"):
        k[1, 4](r, x, x)
    y = np.zeros_like(x)   # the module still works after it

    @cuda.jit
    def copy(a, b):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = b[i]

    copy[1, 4](y, x)
    assert (y == x).all()


def test_c_abi_calls_it_as_a_c_function():
    twice = cuda.declare_device("twice_c", "int32(int32)", abi="c")
    consume = cuda.declare_device("consume_c", "void(int32)", abi="c")

    def k(r, x):
        consume(x[0])
        r[0] = twice(x[0])

    from kfront.types import int32
    ptx, _ = cuda.compile_ptx(k, (int32[::1], int32[::1]))
    assert re.search(r"\.extern \.func\s+\(\.param \.b32 func_retval0\)\s+twice_c\s*\(\s*\.param \.b32 "
                     r"twice_c_param_0\s*\)", ptx)  # the value itself returned, one parameter
    assert re.search(r"\.extern \.func\s+consume_c\s*\(", ptx)  # no return value, no status


def test_unknown_abi_is_numba_cudas_not_implemented_error():
    with pytest.raises(NotImplementedError, match="Unsupported ABI: fortran"):
        cuda.declare_device("f", "int32(int32)", abi="fortran")


def test_link_items_are_checked_when_given(tmp_path):
    with pytest.raises(FileNotFoundError):
        cuda.declare_device("f", "int32(int32)", link=str(tmp_path / "missing.cu"))
    bad = tmp_path / "code.xyz"
    bad.write_text("")
    with pytest.raises(RuntimeError, match="Don't know how to link file with extension .xyz"):
        cuda.jit(link=[str(bad)])(multiply)
    with pytest.raises(TypeError, match="a link item is a path or a cuda.LinkableCode"):
        cuda.jit(link=[42])(multiply)


def test_cache_with_links_is_numba_cudas_runtime_error():
    code = cuda.CUSource('extern "C" __device__ int f(int *r) { *r = 1; return 0; }')
    with pytest.raises(RuntimeError, match="Cannot pickle CUDACodeLibrary with linking files"):
        cuda.jit("void(float32[::1])", cache=True, link=[code])(lambda r: None)
    declared = cuda.declare_device("mul_f32_f32", "float32(float32, float32)", link=code)

    def uses(r, x):
        r[0] = declared(x[0], x[0])

    with pytest.raises(RuntimeError, match="Cannot pickle CUDACodeLibrary with linking files"):
        cuda.jit("void(float32[::1], float32[::1])", cache=True)(uses)


@pytest.mark.simulator_only("a kernel given link= runs on the simulator when it calls no foreign function")
def test_links_of_a_kernel_calling_nothing_foreign_run_on_the_simulator():
    code = cuda.CUSource('extern "C" __device__ int f(int *r) { *r = 1; return 0; }')

    @cuda.jit(link=[code])
    def fill(a):
        a[cuda.grid(1)] = 5

    a = np.zeros(4, np.int32)
    fill[1, 4](a)
    assert (a == 5).all()


def test_use_cooperative_makes_its_callers_cooperative():
    # numba-cuda's test_external_cooperative_func: a foreign function declared use_cooperative=True synchronises the
    # grid, so a kernel calling it (directly or through a device function) is launched cooperatively
    # (defined, so that the GPU's link step finds them; the flag is what is tested, not the grid sync)
    defs = cuda.CUSource('extern "C" __device__ int grid_sync_c(int *r, int x) { *r = x; return 0; }\n'
                         'extern "C" __device__ int plain_c(int *r, int x) { *r = x; return 0; }\n')
    sync = cuda.declare_device("grid_sync_c", "int32(int32)", use_cooperative=True, link=[defs])
    plain = cuda.declare_device("plain_c", "int32(int32)", link=[defs])

    @cuda.jit(device=True)
    def through(x):
        return sync(x)

    def direct(a):
        a[0] = sync(a[0])

    def indirect(a):
        a[0] = through(a[0])

    def neither(a):
        a[0] = plain(a[0])

    for fn, cooperative in ((direct, True), (indirect, True), (neither, False)):
        k = cuda.jit("void(int32[::1])")(fn)
        (kernel,) = k.overloads.values()
        assert kernel.cooperative is cooperative, fn.__name__
