"""GPU-only: foreign device code linked into kernels (issue 23): cuda.declare_device(..., link=...) and
cuda.jit(link=...) with CUDA C++ compiled by NVRTC (in memory and on disk, with include folders), PTX and LTO-IR made
by kfront's own cuda.compile, numba-cuda's ABI and the C ABI, a declared function called from a device function, and
the errors (a symbol no input defines, a .cu that does not compile) — each followed by a launch that works; a link
item's setup callback setting a global of the module through its CUlibrary handle; the same
kernels run by numba-cuda give the same results; link-time optimisation (cuda.jit(lto=...), on by default) and
without it give the same results, the foreign function inlined with it (inspect_lto_ptx), a failed bounds check of
an optimised kernel still raising its located IndexError; without nvJitLink, the driver's linker.
Run: test/gpu/run_python_gpu.sh DEST (or python3 -m pytest -q test/gpu/python/test_linking_gpu.py on a GPU)."""
import numpy as np
import pytest

from kfront import config, cuda, errors
from kfront.types import int32

np.row_stack = np.vstack  # numba-cuda 0.30.4 on NumPy 2

TIMES2 = 'extern "C" __device__ int times2(int *out, int a) { *out = a * 2; return 0; }'
TIMES4 = ('extern "C" __device__ int times2(int *out, int a);\n'
          'extern "C" __device__ int times4(int *out, int a) { int t; times2(&t, a); *out = t * 2; return 0; }')
TIMES2_C = 'extern "C" __device__ int times2c(int a) { return a * 2; }'
SAXPY = ('#include "scale.h"\n'
         'extern "C" __device__ int saxpy(float *r, float a, float x, float y) { *r = SCALE(a, x) + y; return 0; }')


def _x():
    return np.arange(64, dtype=np.int32)


def _run(kernel, x):
    r = np.zeros_like(x)
    kernel[1, 64](r, x)
    return r


def _map_kernel(fn):
    @cuda.jit
    def k(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = fn(x[i])
    return k


def test_cu_source_in_memory():
    times2 = cuda.declare_device("times2", "int32(int32)", link=cuda.CUSource(TIMES2))
    assert (_run(_map_kernel(times2), _x()) == _x() * 2).all()


@pytest.mark.parametrize("container", [list, tuple, set])
def test_several_sources(container):
    link = container([cuda.CUSource(TIMES2, name="times2.cu"), cuda.CUSource(TIMES4, name="times4.cu")])
    times4 = cuda.declare_device("times4", "int32(int32)", link=link)
    assert (_run(_map_kernel(times4), _x()) == _x() * 4).all()


def test_cu_file_with_include_folders(tmp_path, monkeypatch):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "scale.h").write_text("#define SCALE(a, x) ((a) * (x))\n")
    cu = tmp_path / "saxpy.cu"
    cu.write_text(SAXPY)
    monkeypatch.setattr(config, "CUDA_NVRTC_EXTRA_SEARCH_PATHS", str(inc))
    saxpy = cuda.declare_device("saxpy", "float32(float32, float32, float32)", link=str(cu))

    @cuda.jit
    def k(a, x, y, r):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = saxpy(a, x[i], y[i])

    x = np.arange(100, dtype=np.float32)
    r = np.zeros_like(x)
    k[1, 128](np.float32(3.0), x, np.ones_like(x), r)
    assert (r == 3 * x + 1).all()


def test_an_edited_cu_file_is_linked_anew(tmp_path):
    """The .cu's text is read when the kernel is compiled, and a kernel made after the file changed links the new
    text (no cache answers with the old code: a linked program's key holds every input's contents)."""
    cu = tmp_path / "scale.cu"
    for factor in (2, 5):
        cu.write_text('extern "C" __device__ int scale(int *out, int a) { *out = a * %d; return 0; }\n' % factor)
        scale = cuda.declare_device("scale", "int32(int32)", link=str(cu))
        assert (_run(_map_kernel(scale), _x()) == _x() * factor).all()


# ---- every kind of link input, built by the toolkit's nvcc from one .cu --------------------------------------------

TIMES7 = 'extern "C" __device__ int times7(int *out, int a) { *out = 7 * a; return 0; }\n'
KINDS = {"cubin": ["-rdc=true", "-cubin"], "fatbin": ["-rdc=true", "-fatbin"], "o": ["-rdc=true", "-c"],
         "lto.fatbin": ["-rdc=true", "-fatbin"]}  # (the last for lto_XY: a fatbin holding LTO-IR)


def _nvcc():
    import os
    import shutil
    for home in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if home and os.path.exists(os.path.join(home, "bin", "nvcc")):
            return os.path.join(home, "bin", "nvcc")
    return shutil.which("nvcc")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """times7 as a cubin, a fatbin, a host object (.o), an archive (.a) and a fatbin of LTO-IR, for this GPU."""
    import subprocess
    nvcc = _nvcc()
    if not nvcc:
        pytest.skip("no nvcc (the CUDA toolkit's) to build the inputs with")
    d = tmp_path_factory.mktemp("kinds")
    (d / "times7.cu").write_text(TIMES7)
    cc = "%d%d" % cuda.get_current_device().compute_capability
    for ext, flags in KINDS.items():
        arch = ("-arch=lto_" if ext == "lto.fatbin" else "-arch=sm_") + cc
        subprocess.run([nvcc, arch, *flags, "-o", str(d / ("times7." + ext)), str(d / "times7.cu")], check=True)
    subprocess.run([nvcc, "-lib", "-o", str(d / "times7.a"), str(d / "times7.o")], check=True)
    return d


@pytest.mark.parametrize("ext", ["cubin", "fatbin", "o", "a", "lto.fatbin"])
@pytest.mark.parametrize("lto", [True, False])
def test_each_kind_of_input_links(built, ext, lto):
    times7 = cuda.declare_device("times7", "int32(int32)", link=str(built / ("times7." + ext)))

    def k(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = times7(x[i])
    assert (_run(cuda.jit(lto=lto)(k), _x()) == _x() * 7).all()


def test_c_abi():
    times2 = cuda.declare_device("times2c", "int32(int32)", link=cuda.CUSource(TIMES2_C), abi="c")
    assert (_run(_map_kernel(times2), _x()) == _x() * 2).all()


def test_called_from_a_device_function_and_linked_by_the_kernel():
    times2 = cuda.declare_device("times2", "int32(int32)")  # its code comes with the kernel's link=

    @cuda.jit(device=True)
    def plus_twice(v):
        return times2(v) + 1

    @cuda.jit(link=[cuda.CUSource(TIMES2)])
    def k(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = plus_twice(x[i])

    assert (_run(k, _x()) == _x() * 2 + 1).all()


@pytest.mark.parametrize("output", ["ptx", "ltoir"])
def test_code_compiled_by_kfront_itself(output):
    def times3(a):
        return a * 3

    code, _ = cuda.compile(times3, int32(int32), device=True, abi="c", abi_info={"abi_name": "times3"},
                           output=output)
    item = cuda.PTXSource(code) if output == "ptx" else cuda.LTOIR(code)
    f = cuda.declare_device("times3", "int32(int32)", link=item, abi="c")
    assert (_run(_map_kernel(f), _x()) == _x() * 3).all()


def _still_works():
    @cuda.jit
    def copy(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = x[i]
    assert (_run(copy, _x()) == _x()).all()


def test_a_symbol_no_input_defines_is_named():
    missing = cuda.declare_device("nowhere", "int32(int32)", link=cuda.CUSource(TIMES2))
    with pytest.raises(errors.KfrontError) as e:
        _run(_map_kernel(missing), _x())
    assert "nowhere" in str(e.value) and "defined by none of the linked files" in str(e.value)
    _still_works()


def test_a_cu_that_does_not_compile_is_located():
    bad = cuda.CUSource('extern "C" __device__ int broken(int *r) {\n  return undeclared_name;\n}\n', name="bad.cu")
    broken = cuda.declare_device("broken", "int32()", link=bad)

    @cuda.jit
    def k(r):
        r[0] = broken()

    with pytest.raises(errors.KfrontError) as e:
        k[1, 1](np.zeros(1, np.int32))
    assert "bad.cu:2:10:" in str(e.value) and "undeclared_name" in str(e.value)
    _still_works()


def test_same_results_as_numba_cuda():
    import numba.cuda as ncuda
    results = []
    for mod in (cuda, ncuda):
        times2 = mod.declare_device("times2", "int32(int32)", link=mod.CUSource(TIMES2))

        @mod.jit
        def k(r, x):
            i = mod.grid(1)
            if i < r.size:
                r[i] = times2(x[i]) - 7

        r = np.zeros_like(_x())
        k[1, 64](r, _x())
        results.append(r)
    assert (results[0] == results[1]).all() and (results[0] == _x() * 2 - 7).all()


NUM = ('__device__ int num = 0;\n'
       'extern "C" __device__ int get_num(int *out) { *out = num; return 0; }')


def _set_global(handle, name, value):
    """Sets the int32 global `name` of the library `handle` through the driver (as numba-cuda's test does with
    cuda.bindings' cuLibraryGetGlobal and cuMemcpyHtoD)."""
    import ctypes
    cu = ctypes.CDLL("libcuda.so.1")
    ptr, size = ctypes.c_uint64(0), ctypes.c_size_t(0)
    rc = cu.cuLibraryGetGlobal(ctypes.byref(ptr), ctypes.byref(size), ctypes.c_void_p(handle), name)
    assert rc == 0 and size.value == 4
    value = ctypes.c_int32(value)
    assert cu.cuMemcpyHtoD_v2(ptr, ctypes.byref(value), ctypes.c_size_t(4)) == 0


@pytest.mark.parametrize("where", ["declare_device", "jit"])
def test_setup_callback_initialises_a_global_of_the_module(where):
    seen = []

    def setup(module):
        seen.append(module.handle)
        _set_global(module.handle, b"num", 42)

    lib = cuda.CUSource(NUM, setup_callback=setup)
    get_num = cuda.declare_device("get_num", "int32()", link=[lib] if where == "declare_device" else None)

    @cuda.jit(link=[lib] if where == "jit" else None)
    def k(a):
        a[0] = get_num()

    a = np.zeros(1, np.int32)
    k[1, 1](a)
    assert a[0] == 42 and len(seen) == 1
    k[1, 1](a)
    assert len(seen) == 1
    cuda.current_context().reset()


AXPY = 'extern "C" __device__ int axpy(float *r, float a, float x, float y) { *r = a * x + y; return 0; }'


@pytest.mark.parametrize("item", ["cu", "ltoir"])
def test_lto_on_and_off_give_the_same_results(item):
    from kfront.cuda import nvrtc
    if item == "cu":
        code = cuda.CUSource(AXPY)
    else:
        cc = cuda.get_current_device().compute_capability
        code = cuda.LTOIR(nvrtc.compile(AXPY, "axpy.cu", cc, ltoir=True)[0])
    axpy = cuda.declare_device("axpy", "float32(float32, float32, float32)", link=code)

    def k(r, a, x, y):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = axpy(a, x[i], y[i])

    # a * x + y exact in float32 (integers, a = 1.5): the same whether or not the multiply-add is fused
    x = np.arange(-500, 500, dtype=np.float32)
    y = np.arange(1000, dtype=np.float32)[::-1].copy()
    expected = np.float32(1.5) * x + y
    for lto in (True, False):
        kernel = cuda.jit(k, lto=lto)
        r = np.zeros_like(x)
        kernel[8, 128](r, np.float32(1.5), x, y)
        np.testing.assert_array_equal(r, expected)
        if lto:  # the foreign function inlined: no call left in the link-time optimised PTX
            ptxes = kernel.inspect_lto_ptx()
            assert len(ptxes) == 1 and all(".entry" in p and "call" not in p for p in ptxes.values())
    assert cuda.jit(k).targetoptions["lto"] is True  # the default where nvJitLink is found (and not debug)


def test_a_failed_bounds_check_of_an_lto_kernel_is_its_index_error():
    times2 = cuda.declare_device("times2", "int32(int32)", link=cuda.CUSource(TIMES2))

    @cuda.jit(lto=True)
    def oob(r, x):
        i = cuda.grid(1)
        r[i] = times2(x[i])  # 64 threads, 63 elements: thread 63 is out of bounds

    x = np.arange(63, dtype=np.int32)
    with pytest.raises(IndexError) as e:
        oob[1, 64](np.zeros_like(x), x)
        cuda.synchronize()
    assert "index 63 is out of bounds for axis 0 with size 63" in str(e.value)
    assert e.value.line == oob.py_func.__code__.co_firstlineno + 3
    _still_works()


# Without nvJitLink (KFRONT_LIBNVJITLINK naming a missing file: nothing else is searched) the driver's linker links
# a .cu (NVRTC's PTX), kfront's own PTX, a cubin, a fatbin, a host object and an archive; an LTO-IR item is refused
# by name. A process of its own: the libraries are looked for once.
DRIVER_LINKER = r'''
import numpy as np
from kfront import cuda, errors
from kfront.types import int32
from kfront.cuda import _runtime
assert not _runtime.have_nvjitlink()
TIMES2 = 'extern "C" __device__ int times2(int *out, int a) { *out = a * 2; return 0; }'
def run(fn):
    @cuda.jit
    def k(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = fn(x[i])
    x = np.arange(64, dtype=np.int32)
    r = np.zeros_like(x)
    k[1, 64](r, x)
    return r, x
r, x = run(cuda.declare_device("times2", "int32(int32)", link=cuda.CUSource(TIMES2)))
assert (r == x * 2).all()
def times3(a):
    return a * 3
ptx, _ = cuda.compile(times3, int32(int32), device=True, abi="c", abi_info={"abi_name": "times3"}, output="ptx")
r, x = run(cuda.declare_device("times3", "int32(int32)", link=cuda.PTXSource(ptx), abi="c"))
assert (r == x * 3).all()
import sys
for path in sys.argv[1:]:
    r, x = run(cuda.declare_device("times7", "int32(int32)", link=path))
    assert (r == x * 7).all(), path
lto, _ = cuda.compile(times3, int32(int32), device=True, abi="c", abi_info={"abi_name": "times3l"}, output="ltoir")
try:
    run(cuda.declare_device("times3l", "int32(int32)", link=cuda.LTOIR(lto), abi="c"))
    raise SystemExit("LTO-IR linked without nvJitLink")
except errors.KfrontError as e:
    assert "holds LTO-IR, which only nvJitLink links" in str(e), str(e)
print("driver linker ok")
'''


def test_without_nvjitlink_the_drivers_linker_links(tmp_path, built):
    import os
    import subprocess
    import sys
    env = dict(os.environ, KFRONT_LIBNVJITLINK=str(tmp_path / "missing" / "libnvJitLink.so"),
               KFRONT_CACHE_DIR=str(tmp_path / "cache"))
    inputs = [str(built / ("times7." + ext)) for ext in ("cubin", "fatbin", "o", "a")]
    r = subprocess.run([sys.executable, "-c", DRIVER_LINKER, *inputs], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and "driver linker ok" in r.stdout, r.stdout + r.stderr
