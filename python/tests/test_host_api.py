"""numba-cuda 0.30.4's host API where kfront had it wrong or lacked it (issue 22's "host API and behaviour gaps"):
`is_available` and `detect`, dispatchers' `overloads` keyed by argument-type tuples and `compile`, kernel
attributes, ufunc and gufunc `out=`, `is_float16_supported`, pending deallocations, `forceinline`, IPC handles,
NumbaPerformanceWarning, and the `tid=[..] ctaid=[..]` prefix of exceptions raised in kernels. Each expectation
is what numba-cuda 0.30.4 gives (its simulator where kfront runs on the simulator, except where numba-cuda's
simulator differs from the GPU only for being a simulator; the tests say where)."""
import io
import contextlib
import re

import numpy as np
import pytest

from kfront import config, cuda, errors, types


SIM = bool(config.ENABLE_CUDASIM)


# ---- is_available, detect, devices ---------------------------------------------------------------------

def test_is_available_is_true_where_kernels_run():
    # numba-cuda's simulator says True (libraries branch on it to take their CUDA path); so does a GPU
    assert cuda.is_available() is True


def test_detect_prints_numba_cudas_summary_and_returns_true():
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        found = cuda.detect()
    out = buf.getvalue().splitlines()
    assert found is True
    assert out[0] == "Found %d CUDA devices" % len(cuda.gpus)
    dev = cuda.gpus[0]
    assert re.match(r"id 0 +%s +\[SUPPORTED\]$" % re.escape(dev.name.decode()), out[1])
    cc = "%d.%d" % dev.compute_capability
    assert "%40s: %s" % ("Compute Capability", cc) in out
    assert "%40s: %s" % ("FP16 Support", "Yes") in out
    assert out[-2:] == ["Summary:", "\t%d/%d devices are supported" % (len(cuda.gpus), len(cuda.gpus))]


def test_devices_as_numba_cuda_lists_them():
    dev = cuda.get_current_device()
    assert dev == cuda.gpus[0] and dev in cuda.list_devices() and len(cuda.gpus) >= 1
    assert cuda.gpus.current == dev
    assert isinstance(dev.uuid, str) and dev.uuid.startswith("GPU-")
    assert dev.supports_float16 is (dev.compute_capability >= (5, 3))
    assert dev.supports_bfloat16 is (dev.compute_capability >= (8, 0))
    assert dev.supports_fp8 is (dev.compute_capability >= (8, 9))


def test_low_precision_support_queries():
    assert cuda.is_float16_supported() is True
    dev = cuda.get_current_device()
    assert cuda.is_bfloat16_supported() is dev.supports_bfloat16
    assert cuda.is_fp8_supported() is dev.supports_fp8
    if SIM:  # the simulator is of compute capability 9.0 and computes in bfloat16 (numba-cuda's simulator cannot)
        assert cuda.is_bfloat16_supported() is True


# ---- forceinline --------------------------------------------------------------------------------------

@cuda.jit(device=True, forceinline=True)
def _triple_plus_one(x):
    return x * 3 + 1


@cuda.jit(forceinline=True)  # accepted on kernels too, as numba-cuda's jit accepts it
def _apply_triple(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = _triple_plus_one(a[i])


def test_forceinline_device_function_is_alwaysinline():
    a = np.arange(4, dtype=np.float32)
    _apply_triple[1, 4](a)
    assert list(a) == [1, 4, 7, 10]
    assert _triple_plus_one.targetoptions["forceinline"] is True
    llvm = _apply_triple.inspect_llvm((types.float32[::1],))
    group = re.search(r"define internal \S+ @_triple_plus_one\([^)]*\) #(\d+)", llvm).group(1)
    assert re.search(r"attributes #%s = \{[^}]*\balwaysinline\b" % group, llvm)


def test_forceinline_of_a_kernel_in_compile_ptx_is_numba_cudas_value_error():
    def kern(a):
        a[0] = 1
    with pytest.raises(ValueError, match="Cannot force-inline kernels"):
        cuda.compile_ptx(kern, (types.float32[::1],), forceinline=True)
    ptx, resty = cuda.compile_ptx(_triple_plus_one.py_func, (types.float32,), device=True, forceinline=True)
    assert resty == types.float64 and ".func" in ptx


# ---- overloads keyed by argument types, compile ----------------------------------------------------------

@cuda.jit
def _put(a, n):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = n


def test_overloads_and_signatures_are_argument_type_tuples():
    _put[1, 4](np.zeros(4, np.float32), 3)
    key = (types.float32[::1], types.int64)
    assert key in _put.overloads and key in _put.signatures
    assert all(isinstance(k, tuple) for k in _put.overloads)
    assert _put.overloads[key] is _put.overloads["void(float32[::1], int64)"]  # text still looked up
    assert _put.overloads[types.void(types.float32[::1], types.int64)] is _put.overloads[key]
    assert types.void(types.float32[::1], types.int64) in _put.nopython_signatures
    ptx = _put.inspect_ptx(key)
    assert ".visible .entry" in ptx and _put.inspect_asm(key) == ptx
    assert "define" in _put.inspect_llvm(key)
    assert set(_put.inspect_ptx()) == set(_put.overloads)  # every signature, keyed as overloads
    buf = io.StringIO()
    _put.inspect_types(file=buf, signature=key)
    assert buf.getvalue().startswith("_put (float32[::1], int64)\n" + "-" * 80)


def test_compile_returns_the_kernel_of_overloads():
    @cuda.jit
    def fill(a, v):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = v

    key = (types.float64[::1], types.float64)
    kernel = fill.compile(key)  # compiled now, before any launch
    assert fill.signatures == [key] and fill.overloads[key] is kernel
    assert fill.compile(types.void(*key)) is kernel and fill.compile("void(float64[::1], float64)") is kernel
    a = np.zeros(3)
    fill[1, 3](a, 2.5)
    assert list(a) == [2.5] * 3 and len(fill.overloads) == 1
    with pytest.raises(TypeError, match="void"):
        fill.compile(types.float64(types.float64[::1], types.float64))

    @cuda.jit("void(float32[::1], float32)")
    def eager(a, v):
        a[0] = v

    # numba-cuda: a dispatcher of one declared signature is specialized; compile() gives its kernel
    assert eager.compile((types.float64[::1], types.float64)) is eager.overloads[(types.float32[::1], types.float32)]


# ---- NumbaPerformanceWarning ------------------------------------------------------------------------------

@cuda.jit
def _touch(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


@pytest.fixture
def warnings_on():
    saved = config.CUDA_LOW_OCCUPANCY_WARNINGS, config.CUDA_WARN_ON_IMPLICIT_COPY, config.DISABLE_PERFORMANCE_WARNINGS
    config.CUDA_LOW_OCCUPANCY_WARNINGS, config.CUDA_WARN_ON_IMPLICIT_COPY, config.DISABLE_PERFORMANCE_WARNINGS = 1, 1, 0
    yield
    config.CUDA_LOW_OCCUPANCY_WARNINGS, config.CUDA_WARN_ON_IMPLICIT_COPY, config.DISABLE_PERFORMANCE_WARNINGS = saved


def _performance_warnings(launch):
    import warnings
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        launch()
    return [str(w.message) for w in got if issubclass(w.category, errors.PerformanceWarning)]


LOW = "Grid size %d will likely result in GPU under-utilization due to low occupancy."
COPY = "Host array used in CUDA kernel will incur copy overhead to/from device."


def test_performance_warnings_as_numba_cuda_gives_them(warnings_on):
    from kfront import _alias  # noqa: F401  (numba.core.errors.NumbaPerformanceWarning is this class)
    assert errors.NUMBA_ERRORS["NumbaPerformanceWarning"] is errors.PerformanceWarning
    assert (config.CUDA_LOW_OCCUPANCY_WARNINGS, config.CUDA_WARN_ON_IMPLICIT_COPY) == (1, 1)  # numba-cuda's defaults
    host = np.zeros(256, dtype=np.float32)
    dev = cuda.to_device(host)
    # a grid of fewer than 128 blocks, at each kernel[...] (the launcher cached or not)
    assert _performance_warnings(lambda: _touch[2, 128](dev)) == [LOW % 2]
    assert _performance_warnings(lambda: _touch[2, 128](dev)) == [LOW % 2]
    assert _performance_warnings(lambda: _touch[(2, 2), 32](dev)) == [LOW % 4]
    assert _performance_warnings(lambda: _touch[[1, 2], 32](dev)) == [LOW % 2]  # an unhashable configuration
    assert _performance_warnings(lambda: _touch[128, 2](dev)) == []
    # each host array a launch copies in and back, tuples' items too; device arrays are used in place
    assert _performance_warnings(lambda: _touch[128, 2](host)) == [COPY]

    @cuda.jit
    def pair(t):
        t[0][0] = t[1][0]

    assert _performance_warnings(lambda: pair[128, 1]((host, host))) == [COPY, COPY]
    assert _performance_warnings(lambda: pair[128, 1]((dev, dev))) == []


def test_performance_warnings_follow_the_config(warnings_on):
    host = np.zeros(4, dtype=np.float32)
    config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    assert _performance_warnings(lambda: _touch[1, 4](host)) == [COPY]
    config.CUDA_LOW_OCCUPANCY_WARNINGS, config.CUDA_WARN_ON_IMPLICIT_COPY = 1, 0
    assert _performance_warnings(lambda: _touch[1, 4](host)) == [LOW % 1]
    config.CUDA_WARN_ON_IMPLICIT_COPY, config.DISABLE_PERFORMANCE_WARNINGS = 1, 1
    assert _performance_warnings(lambda: _touch[1, 4](host)) == []


def test_performance_warning_as_error_stops_the_launch(warnings_on):
    import warnings
    host = np.zeros(4, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", errors.PerformanceWarning)
        with pytest.raises(errors.PerformanceWarning, match="copy overhead"):
            _touch[128, 4](host)
    assert list(host) == [0, 0, 0, 0]
    _touch[128, 4](host)  # the module works on
    assert list(host) == [1, 1, 1, 1]


# ---- exceptions raised in kernels -----------------------------------------------------------------------

def test_raised_exception_has_numba_cudas_thread_prefix_then_kfronts_location():
    @cuda.jit(debug=True, opt=False)
    def raiser(a):
        if cuda.threadIdx.x == 1 and cuda.blockIdx.x == 2:
            raise ValueError("bad value")
        if cuda.threadIdx.y == 1:
            raise KeyError

    with pytest.raises(ValueError) as info:
        raiser[3, 2](np.zeros(2))
    text = str(info.value)
    first, located = text.split("\n", 1)
    assert first == "tid=[1, 0, 0] ctaid=[2, 0, 0]: bad value"  # numba-cuda's simulator's words
    assert re.match(r".*test_host_api\.py:\d+:\d+: error: ValueError: bad value \(kernel raiser", located)
    assert info.value.thread == (1, 0, 0) and info.value.block == (2, 0, 0)
    with pytest.raises(KeyError) as info:
        raiser[1, (1, 2)](np.zeros(2))
    assert info.value.args[0].split("\n")[0] == "tid=[0, 1, 0] ctaid=[0, 0, 0]"  # raised without arguments


# ---- ufuncs and gufuncs with out= -------------------------------------------------------------------------

def test_gufunc_out_keyword_and_outputs_returned_as_numba_cuda_does():
    from kfront import guvectorize, vectorize

    @guvectorize(["void(float32[:], float32[:])"], "(n)->(n)", target="cuda")
    def twice(a, out):
        for i in range(a.shape[0]):
            out[i] = 2 * a[i]

    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    out = np.zeros((2, 4), np.float32)
    assert twice(a, out=out) is out
    np.testing.assert_array_equal(out, 2 * a)
    out2 = np.zeros((2, 4), np.float32)
    assert twice(a, out2) is out2  # outputs given positionally are returned too
    dev = cuda.device_array((2, 4), np.float32)
    assert twice(a, out=dev) is dev
    np.testing.assert_array_equal(dev.copy_to_host(), 2 * a)
    with pytest.raises(ValueError, match="cannot specify argument 'out' as both positional and keyword"):
        twice(a, out, out=out)
    with pytest.raises(ValueError, match="output shape mismatch"):
        twice(a, out=np.zeros(4, np.float32))
    with pytest.raises(TypeError, match=r"This gufunc accepts 1 positional argument \(when providing input only\) "
                                        r"or 2 positional arguments \(when providing input and output\)\. Got 3"):
        twice(a, a, a)

    @vectorize(["float32(float32, float32)"], target="cuda")
    def add(x, y):
        return x + y

    s = cuda.stream()
    res = cuda.device_array(4, np.float32)
    x = np.arange(4, dtype=np.float32)
    assert add(cuda.to_device(x), cuda.to_device(x), out=res, stream=s) is res
    s.synchronize()
    np.testing.assert_array_equal(res.copy_to_host(), 2 * x)
    host = np.zeros(4, np.float32)
    assert add(x, x, out=host) is host and list(host) == [0, 2, 4, 6]
