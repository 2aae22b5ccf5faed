"""numba-cuda 0.30.4's public module layout under kfront's alias (docs/numba-cuda-layout.md): each module and name a
numba-cuda program imports (`from numba.cuda import float32`, numba.cuda.types, numba.cuda.config,
numba.cuda.core.errors, numba.cuda.np.numpy_support, numba.cuda.vectorize, numba.cuda.cudadrv.driver.Stream, ...)
resolves, and does what numba-cuda's does, on the simulator. The alias is installed with scope "numba" (the whole
of numba kfront's), as where numba is absent; the names under numba.cuda are the same in the cuda-only scope
(test_alias.py runs them beside a real numba). One test compares the type names with the oracle's numba-cuda."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import kfront.config
import kfront.cuda
import kfront.errors
import kfront.types
from kfront._alias import install_numba_alias, uninstall_numba_alias

ROOT = Path(__file__).resolve().parents[2]
# numba-cuda 0.30.4's numba.cuda.types.__all__ (test_type_names_match_the_oracle checks it), which numba.cuda
# re-exports, less the types kfront does not have
KFRONT_LACKS = {"deferred_type", "ffi", "ffi_forced_object", "Dim3", "dim3", "GridGroup", "grid_group"}
CUDA_TYPE_NAMES = {
    "b1", "bfloat16", "bool", "bool_", "boolean", "byte", "c16", "c8", "char", "complex128", "complex64", "double",
    "f4", "f8", "float32", "float64", "i1", "i2", "i4", "i8", "int16", "int32", "int64", "int8", "int_", "intc",
    "intp", "long_", "longlong", "none", "optional", "short", "size_t", "ssize_t", "u1", "u2", "u4", "u8", "uchar", "uint",
    "uint16", "uint32", "uint64", "uint8", "uintc", "uintp", "ulong", "ulonglong", "ushort", "void"}


@pytest.fixture
def numba():
    saved = {k: v for k, v in sys.modules.items() if k == "numba" or k.startswith(("numba.", "numba_cuda"))}
    yield install_numba_alias(scope="numba")
    uninstall_numba_alias()
    sys.modules.update(saved)


def test_numba_cuda_reexports_the_type_names(numba):
    from numba.cuda import float32, int32, void, boolean, float64, uint8, intp, bfloat16  # noqa: F401
    from numba import cuda
    assert float32 is kfront.types.float32 and void is kfront.types.none and int32 is kfront.types.int32
    assert cuda.bool is kfront.types.boolean and bfloat16 is kfront.types.bfloat16
    assert kfront.cuda.float32 is float32  # kfront.cuda itself has them (from kfront import cuda)
    ns = {}
    exec("from numba.cuda.types import *", ns)
    assert set(ns) - {"__builtins__"} == CUDA_TYPE_NAMES
    for name in CUDA_TYPE_NAMES:
        assert getattr(cuda, name) is getattr(kfront.types, name)
    # float16 is in numba.cuda.types but not re-exported by numba.cuda, as in numba-cuda
    import numba.cuda.types as T
    assert T.float16 is kfront.types.float16 and not hasattr(cuda, "float16")

    @cuda.jit(void(float32[:], int32))
    def scale(out, n):
        i = cuda.grid(1)
        tmp = cuda.local.array(2, float32)
        if i < n:
            tmp[0] = float32(i) * float32(1.5)
            out[i] = tmp[0]

    out = np.zeros(8, np.float32)
    scale[1, 8](out, 6)
    assert out.tolist() == [0, 1.5, 3, 4.5, 6, 7.5, 0, 0]


def test_numba_cuda_types_in_kernels(numba):
    from numba import cuda
    from numba.cuda import types

    @cuda.jit
    def k(out, x):
        out[0] = types.int32(x[0]) + types.int32(1)   # cast to int32: the fraction goes
        s = cuda.shared.array(4, dtype=types.float64)
        s[0] = x[0]
        out[1] = s[0] * 2

    out = np.zeros(2, np.float64)
    k[1, 1](out, np.array([2.75]))
    assert out.tolist() == [3.0, 5.5]

    from numba.cuda.types import bfloat16  # numba-cuda's own type (numba.types has no bfloat16)

    @cuda.jit
    def b(out, x):
        out[0] = types.float32(bfloat16(x[0]) * bfloat16(2))

    out = np.zeros(1, np.float32)
    b[1, 1](out, np.array([1.5], np.float32))
    assert out.tolist() == [3.0]
    assert types.Array(types.float32, 2, "C") is types.float32[:, ::1]
    assert types is sys.modules["numba.cuda.types"] and cuda.types is types


def test_numba_cuda_config(numba, monkeypatch):
    from numba.cuda import config
    import numba.cuda.core.config as core_config
    from numba import cuda
    assert config is core_config is cuda.config is cuda.core.config
    assert config.ENABLE_CUDASIM == kfront.config.ENABLE_CUDASIM
    monkeypatch.setattr(kfront.config, "CUDA_LOW_OCCUPANCY_WARNINGS", kfront.config.CUDA_LOW_OCCUPANCY_WARNINGS)
    config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    assert kfront.config.CUDA_LOW_OCCUPANCY_WARNINGS == 0


def test_numba_cuda_core_errors(numba):
    from numba.cuda.core.errors import NumbaError, TypingError, NumbaPerformanceWarning, NumbaWarning
    from numba.cuda.core import errors
    from numba import cuda
    assert TypingError is kfront.errors.TypingError and errors.UnsupportedError is kfront.errors.UnsupportedError
    assert issubclass(TypingError, NumbaError) and issubclass(NumbaPerformanceWarning, NumbaWarning)

    @cuda.jit
    def bad(out):
        out[0] = out  # an array stored into an element

    with pytest.raises(TypingError):
        bad[1, 1](np.zeros(1))


def test_numba_cuda_np_numpy_support(numba):
    from numba.cuda.np import numpy_support
    from numba.cuda.np.numpy_support import as_dtype, from_dtype
    from numba.cuda import float32, int16
    assert numpy_support.from_dtype is from_dtype
    assert from_dtype(np.dtype(np.float32)) is float32 and from_dtype(np.int16) is int16
    assert as_dtype(float32) == np.dtype(np.float32)
    rec = from_dtype(np.dtype([("a", np.int32), ("b", np.float64)]))
    assert as_dtype(rec) == np.dtype([("a", np.int32), ("b", np.float64)])


def test_numba_cuda_vectorize_and_guvectorize_target_cuda_by_default(numba):
    from numba import cuda
    from numba.cuda import float32, float64, guvectorize, vectorize

    @vectorize([float32(float32, float32)])
    def axpy(a, b):
        return 2 * a + b

    @cuda.vectorize(["float64(float64)"])
    def half(a):
        return a / 2

    @guvectorize([(float64[:], float64[:])], "(n)->(n)")
    def total(a, out):
        acc = 0.0
        for i in range(a.shape[0]):
            acc += a[i]
            out[i] = acc

    x = np.arange(6, dtype=np.float32)
    assert axpy(x, x).tolist() == (3 * x).tolist()
    assert half(np.array([3.0])).tolist() == [1.5]
    assert total(np.arange(8.0).reshape(2, 4)).tolist() == [[0, 1, 3, 6], [4, 9, 15, 22]]
    assert isinstance(axpy, kfront.cuda.ufuncs.CUDAUFunc) and isinstance(total, kfront.cuda.ufuncs.CUDAGUFunc)
    with pytest.raises(kfront.errors.UnsupportedError, match="target=\"cuda\" only"):
        vectorize(["float32(float32)"], target="cpu")


def test_numba_cuda_cudadrv(numba):
    from numba import cuda
    from numba.cuda.cudadrv.driver import Context, Device, Event, Stream, CudaAPIError
    from numba.cuda.cudadrv.devicearray import DeviceNDArray, MappedNDArray
    from numba.cuda.cudadrv import devices
    import numba.cuda.cudadrv.driver as driver
    assert isinstance(cuda.stream(), Stream) and isinstance(cuda.default_stream(), driver.Stream)
    assert isinstance(cuda.event(), Event) and isinstance(cuda.get_current_device(), Device)
    assert isinstance(cuda.current_context(), Context) and CudaAPIError is kfront.errors.CudaDriverError
    assert isinstance(cuda.to_device(np.zeros(3)), DeviceNDArray)
    assert isinstance(cuda.mapped_array(3), MappedNDArray)
    assert devices.gpus is cuda.gpus and isinstance(devices.gpus, devices._DeviceList)
    assert isinstance(cuda.gpus[0], devices._DeviceContextManager)
    assert isinstance(devices.get_context(), Context)
    with pytest.raises(AttributeError):
        devices._runtime  # private names only where numba-cuda documents them


def test_numba_cuda_dispatcher_random_cg_and_numba_cuda_package(numba):
    from numba import cuda
    from numba.cuda.dispatcher import CUDADispatcher
    from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32
    import numba.cuda.cg
    import numba_cuda

    @cuda.jit
    def draw(states, out):
        i = cuda.grid(1)
        g = numba.cuda.cg.this_grid()
        out[i] = xoroshiro128p_uniform_float32(states, i)
        g.sync()

    assert isinstance(draw, CUDADispatcher)
    out = np.zeros(16, np.float32)
    draw[2, 8](create_xoroshiro128p_states(16, seed=1), out)
    assert ((0 <= out) & (out < 1)).all() and len(set(out.tolist())) == 16
    assert numba_cuda.__version__ == "0.30.4" and cuda.HAS_NUMBA is False


def test_type_names_match_the_oracle():
    """CUDA_TYPE_NAMES is numba-cuda 0.30.4's numba.cuda.types.__all__ less the types kfront does not have."""
    r = subprocess.run(["bash", str(ROOT / "scripts" / "oracle_env.sh")], capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        pytest.fail("the oracle (scripts/oracle_env.sh) is not available: %s" % r.stderr[-2000:])
    oracle = r.stdout.strip().splitlines()[-1]
    out = subprocess.run([oracle, "-c", "import numba.cuda.types as t; print(' '.join(sorted(t.__all__)))"],
                         capture_output=True, text=True, timeout=300, env={"NUMBA_ENABLE_CUDASIM": "1", "PATH": ""})
    assert out.returncode == 0, out.stderr
    assert set(out.stdout.split()) - KFRONT_LACKS == CUDA_TYPE_NAMES


def test_numba_cuda_args_holds_the_argument_hints(numba):
    from numba.cuda.args import ArgHint, In, InOut, Out, wrap_arg
    from numba import cuda
    import kfront.cuda.args
    assert (In, Out, InOut, ArgHint, wrap_arg) == (kfront.cuda.args.In, kfront.cuda.args.Out, kfront.cuda.args.InOut,
                                                   kfront.cuda.args.ArgHint, kfront.cuda.args.wrap_arg)
    assert cuda.In is In and cuda.InOut is InOut and cuda.args.Out is Out
    ns = {}
    exec("from numba.cuda.args import *", ns)
    assert set(ns) - {"__builtins__"} == {"ArgHint", "In", "InOut", "Out", "wrap_arg"}


def test_numba_cuda_typing_has_signature_and_typeof(numba):
    from numba.cuda.typing import Signature, signature
    from numba.cuda.typing.typeof import typeof
    from numba.cuda import types
    sig = signature(types.void, types.int32, types.float32[::1])
    assert isinstance(sig, Signature) and sig == kfront.types.void(types.int32, types.float32[::1])
    assert typeof(np.zeros((2, 3), dtype=np.float32, order="F")) == types.float32[::1, :]
    assert typeof(np.int16(3)) is types.int16
    with pytest.raises(AttributeError, match="numba.cuda.typing.templates is not supported"):
        import numba.cuda.typing as typing
        typing.templates


def test_numba_cuda_numpy_support_has_numpy_version_carray_and_farray(numba):
    import ctypes
    from numba.cuda.np.numpy_support import carray, farray, numpy_version
    assert numpy_version == tuple(int(p) for p in np.__version__.split(".")[:2])
    host = np.arange(6, dtype=np.int32)
    ptr = host.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
    c = carray(ptr, (2, 3))
    assert c.dtype == np.int32 and c.flags.c_contiguous and c.tolist() == [[0, 1, 2], [3, 4, 5]]
    f = farray(ptr, (3, 2))
    assert f.flags.f_contiguous and f.tolist() == [[0, 3], [1, 4], [2, 5]]
    c[0, 0] = 42  # a view of the memory, not a copy
    assert host[0] == 42
    void = ctypes.c_void_p(host.ctypes.data)
    assert carray(void, 6, dtype=np.int32).tolist() == host.tolist()
    with pytest.raises(TypeError, match="explicit dtype required"):
        carray(void, 6)
    with pytest.raises(TypeError, match="mismatching dtype"):
        carray(ptr, 6, dtype=np.float32)
    with pytest.raises(TypeError, match="expected a ctypes pointer"):
        carray(host.ctypes.data, 6, dtype=np.int32)


def test_numba_cuda_launchconfig(numba):
    # kfront runs no user code while it compiles, so no launch configuration is ever current where one can ask
    from numba.cuda import launchconfig
    from numba import cuda

    @cuda.jit
    def k(a):
        a[0] = 1

    assert launchconfig.current_launch_config() is None
    k[1, 1](np.zeros(1))
    assert launchconfig.current_launch_config() is None
    with pytest.raises(RuntimeError, match="No launch config set for this thread"):
        launchconfig.ensure_current_launch_config()


def test_libdevicefuncs(numba):
    from numba.cuda.libdevicefuncs import functions, create_signature
    import numba.cuda.libdevicefuncs as ldf
    import kfront.cuda.libdevicefuncs
    assert functions is kfront.cuda.libdevicefuncs.functions and ldf.arg is kfront.cuda.libdevicefuncs.arg
    from numba import cuda
    assert cuda.libdevicefuncs is ldf
    sig = create_signature(*functions["__nv_frexp"])
    assert sig.return_type == kfront.types.Tuple((kfront.types.float64, kfront.types.int32))


def test_numba_cuda_api_holds_the_host_api(numba):
    import numba.cuda.api as api
    from numba.cuda.api import is_fp8_supported, to_device, detect
    assert is_fp8_supported is kfront.cuda.is_fp8_supported and to_device is kfront.cuda.to_device
    assert detect is kfront.cuda.detect and api.device_array_like is kfront.cuda.device_array_like
    assert is_fp8_supported() == (kfront.cuda.get_current_device().compute_capability >= (8, 9))
    assert api.managed_array is kfront.cuda.managed_array


def test_numba_cuda_internal_cuda_bf16_in_kernels(numba):
    from numba.cuda._internal.cuda_bf16 import nv_bfloat16, htrunc, __hadd
    from numba import cuda

    @cuda.jit
    def k(out):
        a = nv_bfloat16(3.75)
        out[0] = kfront.types.float32(htrunc(a))
        out[1] = kfront.types.float32(__hadd(a, nv_bfloat16(1)))

    out = np.zeros(2, np.float32)
    k[1, 1](out)
    assert list(out) == [3.0, 4.75]
    from numba.cuda._internal.cuda_fp8 import fp8_e4m3, cvt_float_to_fp8, saturation_t, fp8_interpretation_t
    from kfront.cuda import fp8 as kfront_fp8
    assert fp8_e4m3 is kfront_fp8.fp8_e4m3 and fp8_e4m3.__name__ == "fp8_e4m3"
    assert saturation_t is kfront_fp8.saturation_t and int(fp8_interpretation_t.E5M2) == 1

    @cuda.jit
    def f(out, x):
        out[0] = cvt_float_to_fp8(x[0], saturation_t.SATFINITE, fp8_interpretation_t.E4M3)
        out[1] = kfront.types.uint8(fp8_e4m3(x[0]))

    out = np.zeros(2, np.uint8)
    f[1, 1](out, np.array([1e9], np.float32))
    assert list(out) == [0x7E, 255]  # 448, saturated to 255 as an unsigned char


def test_numba_cuda_utils_and_kernels(numba):
    from numba.cuda.utils import PYVERSION, MACHINE_BITS
    from numba.cuda.kernels.transpose import transpose
    import kfront.cuda.kernels
    assert PYVERSION == sys.version_info[:2] and MACHINE_BITS == 64
    assert transpose is kfront.cuda.kernels.transpose
