"""kfront.cuda.nvrtc (numba.cuda.cudadrv.nvrtc under the alias): CUDA C/C++ compiled by the NVRTC kfront's C library
finds, to PTX and LTO-IR, with the include folders of config; the compute capabilities it compiles for; numba-cuda's
error classes. NVRTC runs on the host: no GPU is needed (CI has the toolkit)."""
import pytest

from kfront import config, errors
from kfront.cuda import nvrtc

SRC = 'extern "C" __device__ int times2(int *r, int a) { *r = 2 * a; return 0; }\n'


def test_ptx_and_ltoir():
    ptx, log = nvrtc.compile(SRC, "times2.cu", (9, 0))
    assert isinstance(ptx, str) and ".visible .func" in ptx and "times2" in ptx and ".target sm_90" in ptx
    ltoir, _ = nvrtc.compile(SRC.encode(), "times2.cu", (9, 0), ltoir=True)
    assert isinstance(ltoir, bytes) and len(ltoir) > 64 and ltoir != ptx.encode()  # (NVVM bitcode, not text)


def test_errors_are_located_and_numba_cudas_class():
    with pytest.raises(errors.NvrtcCompilationError) as e:
        nvrtc.compile('extern "C" __device__ int f(int *r) {\n  return missing_name;\n}\n', "bad.cu", (9, 0))
    assert "bad.cu:2:10:" in str(e.value) and "missing_name" in str(e.value)
    assert isinstance(e.value, errors.NvrtcError)


def test_include_folders_from_config(tmp_path, monkeypatch):
    (tmp_path / "twice.h").write_text("#define TWICE(a) (2 * (a))\n")
    src = '#include "twice.h"\nextern "C" __device__ int f(int *r, int a) { *r = TWICE(a); return 0; }\n'
    with pytest.raises(errors.NvrtcCompilationError, match="twice.h"):
        nvrtc.compile(src, "inc.cu", (9, 0))
    monkeypatch.setattr(config, "CUDA_NVRTC_EXTRA_SEARCH_PATHS", str(tmp_path))
    ptx, _ = nvrtc.compile(src, "inc.cu", (9, 0))
    assert "shl.b32" in ptx or "add.s32" in ptx or "mul" in ptx


def test_compute_capabilities():
    ccs = nvrtc.get_supported_ccs()
    assert ccs == sorted(ccs) and (9, 0) in ccs and nvrtc.get_lowest_supported_cc() == ccs[0]
    assert nvrtc.get_arch_option(9, 1) == "compute_90"  # numba-cuda's test_nvrtc's cases
    assert nvrtc.get_arch_option(1000, 0) == "compute_%d%d" % ccs[-1]
    for cc in ccs:
        assert nvrtc.get_arch_option(*cc) == "compute_%d%d" % cc
    assert nvrtc.find_closest_arch((8, 7)) == max(c for c in ccs if c <= (8, 7))
    with pytest.raises(errors.CCSupportError, match="is not supported"):
        nvrtc.find_closest_arch((1, 0))
    with pytest.raises(ValueError, match="Can't use arch-specific compute_91a"):
        nvrtc.get_arch_option(9, 1, "a")
    major, minor = nvrtc._get_nvrtc_version()
    assert major >= 12


def test_an_unsupported_capability_warns_and_uses_the_closest():
    with pytest.warns(UserWarning, match="Device compute capability 9.1 is not supported by NVRTC"):
        ptx, _ = nvrtc.compile(SRC, "times2.cu", (9, 1))
    assert ".target sm_90" in ptx


def test_cuda_headers_that_include_cccl_compile():
    # curand_kernel.h includes <cuda/std/type_traits>, which CUDA 13 keeps in include/cccl (numba-cuda adds it too:
    # its test_device_func's test_include_cuda_header)
    src = ('#include <curand_kernel.h>\n'
           'extern "C" __device__ int random_number(unsigned int *out, unsigned long long seed) {\n'
           '  curandStateXORWOW_t state;\n  curand_init(seed, 1, 0, &state);\n  *out = curand(&state);\n'
           '  return 0;\n}\n')
    ptx, _ = nvrtc.compile(src, "rng.cu", (9, 0))
    assert "random_number" in ptx
