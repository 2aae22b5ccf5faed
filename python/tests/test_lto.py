"""Link-time optimisation of kernels that link foreign code (cuda.jit(lto=...), numba-cuda's; issue 23): on by default
where nvJitLink is found and debug is off, numba-cuda's RuntimeError for lto=True without it; inspect_lto_ptx gives
the PTX nvJitLink's LTO makes of kfront's LTO-IR and the linked code (a .cu compiled by NVRTC to LTO-IR, .ltoir),
the small foreign function inlined into the kernel, and the PTX of a kernel linking nothing; links that cannot be
optimised are left out with a warning. NVRTC, libNVVM and nvJitLink run without a GPU: these run on the simulator
too (the launches are test/gpu/python/test_linking_gpu.py's)."""
import re

import numpy as np
import pytest

from kfront import cuda, errors
from kfront.cuda import _runtime, nvrtc
from kfront.types import CPointer, float16, float32

needs_nvjitlink = pytest.mark.skipif(not _runtime.have_nvjitlink(), reason="nvJitLink is required for LTO")

MUL = 'extern "C" __device__ int mul_f32_f32(float *ret, float x, float y) { *ret = x * y; return 0; }'
SIG = "void(float32[::1], float32[::1], float32[::1])"
ARGS = (float32[::1], float32[::1], float32[::1])


def _multiply(mul):
    def multiply(r, x, y):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = mul(x[i], y[i])
    return multiply


def _calls(ptx):
    return re.findall(r"^\s*call(?:\.uni)?\b", ptx, re.M)


@needs_nvjitlink
def test_the_foreign_function_is_inlined_with_lto_and_called_without():
    mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)", link=cuda.CUSource(MUL))
    lto = cuda.jit(_multiply(mul))  # the default: on (nvJitLink is found, debug off)
    ptx = lto.inspect_lto_ptx(ARGS)
    assert ".visible .entry multiply(" in ptx and re.search(r"\bmul(\.rn)?\.f32\b", ptx)
    assert not _calls(ptx) and "mul_f32_f32" not in ptx  # its body inlined: no call, no function of its own
    assert ptx != lto.inspect_asm(ARGS)  # inspect_asm is kfront's own PTX, calling it
    plain = cuda.jit(_multiply(mul), lto=False)
    asm = plain.inspect_asm(SIG)
    assert _calls(asm) and re.search(r"\.extern \.func\s+\(\.param \.b32 func_retval0\) mul_f32_f32", asm)
    with pytest.raises(RuntimeError, match="LTO is not enabled"):
        plain.inspect_lto_ptx(ARGS)


@needs_nvjitlink
def test_overloads_give_the_lto_ptx_of_their_cc():
    mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)", link=cuda.CUSource(MUL))
    k = cuda.jit(SIG)(_multiply(mul))
    kernel = k.overloads[ARGS]
    assert kernel.inspect_lto_ptx() == k.inspect_lto_ptx(ARGS)
    ptx = kernel.inspect_lto_ptx((8, 0))
    assert ".target sm_80" in ptx and not _calls(ptx)


@needs_nvjitlink
def test_numba_cudas_inspect_lto_asm():
    """numba-cuda's cudapy/test_inspect.py::TestInspect::test_inspect_lto_asm: add.f16 of the CUDA C++ inlined."""
    ffi = pytest.importorskip("cffi").FFI()  # (in the test venv here; the GPU machine has none)
    ext = cuda.CUSource("""
        #include <cuda_fp16.h>
        extern "C"
        __device__ int add_f2_f2(__half * res, __half * a, __half *b) {
            *res = *a + *b;
            return 0;
        }
        """)
    add = cuda.declare_device("add_f2_f2", float16(CPointer(float16), CPointer(float16)), link=ext)

    def k(arr):
        local_arr = cuda.local.array(shape=1, dtype=np.float16)
        local_arr2 = cuda.local.array(shape=1, dtype=np.float16)
        local_arr[0] = 1
        local_arr2[0] = 2
        ptr = ffi.from_buffer(local_arr)
        ptr2 = ffi.from_buffer(local_arr2)
        arr[0] = add(ptr, ptr2)

    for lto in (True, False):
        kernel = cuda.jit(lto=lto)(k)
        kernel.compile((float16[::1],))
        if lto:
            ptx = kernel.inspect_lto_ptx()[(float16[::1],)]
            assert "add.f16" in ptx and not _calls(ptx)
        else:
            assert _calls(kernel.inspect_asm((float16[::1],)))


@needs_nvjitlink
@pytest.mark.parametrize("kind", ["ltoir", "ptx"])
def test_ltoir_links_are_optimised_ptx_ones_left_out(kind):
    code, _ = nvrtc.compile(MUL, "mul.cu", (9, 0), ltoir=kind == "ltoir")
    item = cuda.LTOIR(code) if kind == "ltoir" else cuda.PTXSource(code.encode())
    mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)", link=item)
    k = cuda.jit(_multiply(mul))
    if kind == "ltoir":
        assert not _calls(k.inspect_lto_ptx(ARGS))
        return
    # nvJitLink gives PTX of LTO-IR only: numba-cuda's get_lto_ptx leaves the PTX out (its UserWarning), the call
    # stays
    with pytest.warns(UserWarning, match=r"Not adding .*\(PTX\) .*it is not optimizable at link time, and "
                                         r"`ignore_nonlto == True`"):
        ptx = k.inspect_lto_ptx(ARGS)
    assert _calls(ptx) and ".extern .func" in ptx


@needs_nvjitlink
def test_dump_assembly_of_a_linked_kernel_is_after_lto(monkeypatch, capsys):
    """numba-cuda's NUMBA_DUMP_ASSEMBLY of a kernel linked under LTO: the LTO PTX, as "ASSEMBLY (AFTER LTO) name"
    (its cudadrv/test_nvjitlink.py's TestLinkerDumpAssembly); without LTO kfront's PTX as "ASSEMBLY name"."""
    from kfront import config
    mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)", link=cuda.CUSource(MUL))
    monkeypatch.setattr(config, "DUMP_ASSEMBLY", True)
    for lto in (True, False):
        k = cuda.jit(_multiply(mul), lto=lto)
        k._dump(SIG)
        out = capsys.readouterr().out
        banner = out.splitlines()[0]
        if lto:
            assert banner == ("ASSEMBLY (AFTER LTO) %s" % k.__qualname__).center(80, "-") and not _calls(out)
        else:
            assert banner == ("ASSEMBLY %s" % k.__qualname__).center(80, "-") and _calls(out)
        assert ".visible .entry multiply(" in out and out.splitlines()[-1] == "=" * 80


def test_a_kernel_linking_nothing_gives_its_own_ptx():
    @cuda.jit(lto=_runtime.have_nvjitlink())
    def scale(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= 2

    if not _runtime.have_nvjitlink():
        with pytest.raises(RuntimeError, match="LTO is not enabled"):
            scale.inspect_lto_ptx((float32[::1],))
        return
    assert scale.inspect_lto_ptx((float32[::1],)) == scale.inspect_asm((float32[::1],))


def test_the_default_is_numba_cudas(monkeypatch):
    def f(a):
        a[0] = 1

    assert cuda.jit(f).targetoptions["lto"] is _runtime.have_nvjitlink()
    assert cuda.jit(debug=True, opt=False)(f).targetoptions["lto"] is False  # not when debugging
    assert cuda.jit(lto=False)(f).targetoptions["lto"] is False
    monkeypatch.setattr(_runtime, "have_nvjitlink", lambda: False)
    assert cuda.jit(f).targetoptions["lto"] is False
    with pytest.raises(RuntimeError, match="LTO requires nvjitlink"):  # numba-cuda's, at decoration
        cuda.jit(lto=True)(f)
    with pytest.raises(RuntimeError, match="LTO is not enabled"):
        cuda.jit("void(int32[::1])")(f).inspect_lto_ptx()


@needs_nvjitlink
def test_specialize_and_pickling_keep_it():
    import pickle
    mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)", link=cuda.CUSource(MUL))
    k = cuda.jit(_multiply(mul), lto=False)
    x = np.ones(4, np.float32)
    assert k.specialize(x, x, x).targetoptions["lto"] is False
    assert pickle.loads(pickle.dumps(cuda.jit(lto=False)(_scale))).targetoptions["lto"] is False


def _scale(a):
    a[0] *= 2
