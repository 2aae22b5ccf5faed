"""cuda.jit options as numba-cuda 0.30 reads them: launch_bounds (the PTX's .maxntid / .minnctapersm /
.maxclusterrank, a launch of more threads per block refused on the simulator as the CUDA driver refuses it on a
GPU, checked with numba-cuda's messages), and the defaults of debug and opt with numba-cuda's
NumbaInvalidConfigWarning of debug=True with opt=True."""
import pickle
import re
import sys
import types as pytypes
import warnings

import numpy as np
import pytest

from kfront import config, cuda, errors


def _ptx_directives(ptx):
    return [line.strip() for line in ptx.splitlines()
            if line.strip().startswith((".maxntid", ".minnctapersm", ".maxclusterrank", ".reqntid"))]


@cuda.jit(launch_bounds=(128, 2))
def fill(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = i


def test_launch_at_the_bound_runs_above_it_is_refused():
    x = np.zeros(256, np.int32)
    fill[2, 128](x)
    assert (x == np.arange(256)).all()
    with pytest.raises(errors.LaunchError, match="above this kernel's limit of 128 threads per block.*"
                                                 "CUDA_ERROR_INVALID_VALUE") as e:
        fill[1, 256](x)
    assert isinstance(e.value, ValueError)
    with pytest.raises(errors.LaunchError, match="limit of 128 threads"):
        fill[1, (16, 16)](x)  # the bound is on the block's size, whatever its shape (numba-cuda's maxntidx)
    fill[1, (16, 8)](x)
    assert fill.get_max_threads_per_block(fill.signatures[0]) == 128


def test_launch_bounds_in_the_ptx():
    sig = "void(int32[::1])"
    assert _ptx_directives(fill.inspect_asm(sig)) == [".maxntid 128, 1, 1", ".minnctapersm 2"]
    assert "launch_bounds = [128, 2, 0]" in fill.inspect_kir(sig)
    for bounds, expected in [(64, [".maxntid 64, 1, 1"]), ((64,), [".maxntid 64, 1, 1"]), ([32, 4], [
            ".maxntid 32, 1, 1", ".minnctapersm 4"]), ((), []), (None, []), ((96, 0), [".maxntid 96, 1, 1"])]:
        ptx, _ = cuda.compile_ptx(fill.py_func, sig, launch_bounds=bounds)
        assert _ptx_directives(ptx) == expected, bounds
    ptx, _ = cuda.compile_ptx(fill.py_func, sig, cc=(9, 0), launch_bounds=(128, 2, 4))
    assert _ptx_directives(ptx) == [".maxntid 128, 1, 1", ".minnctapersm 2", ".maxclusterrank 4"]


def test_bad_launch_bounds_raise_numba_cudas_errors():
    """More than three: numba-cuda's ValueError, at decoration when a signature is declared (numba-cuda compiles
    then), else at the first launch; what numba-cuda would hand to NVVM as nonsense is refused too."""
    with pytest.raises(ValueError, match=re.escape(
            "Got 4 launch bounds: (128, 2, 4, 8). A maximum of three are supported: (max_threads_per_block, "
            "min_blocks_per_sm, max_blocks_per_cluster)")):
        cuda.jit("void()", launch_bounds=(128, 2, 4, 8))(lambda: None)
    lazy = cuda.jit(launch_bounds=[1, 2, 3, 4])(lambda: None)
    with pytest.raises(ValueError, match=re.escape("Got 4 launch bounds: [1, 2, 3, 4].")):
        lazy[1, 1]()
    for bad, cls in [(0, ValueError), (-1, ValueError), ((2 ** 31,), ValueError), ((128, -1), ValueError),
                     (128.0, TypeError), ("128", TypeError), (True, TypeError), ((128, 2.5), TypeError)]:
        with pytest.raises(cls, match="launch_bounds"):
            cuda.jit("void()", launch_bounds=bad)(lambda: None)
    assert cuda.jit(launch_bounds=np.int64(64))(lambda: None).targetoptions["launch_bounds"] == (64,)


def test_launch_bounds_travel_with_the_dispatcher():
    x = cuda.to_device(np.zeros(64, np.int32))
    assert fill.targetoptions["launch_bounds"] == (128, 2)
    spec = fill.specialize(x)
    with pytest.raises(errors.LaunchError, match="limit of 128 threads"):
        spec[1, 192](x)
    again = pickle.loads(pickle.dumps(fill))
    assert again.targetoptions["launch_bounds"] == (128, 2)
    with pytest.raises(errors.LaunchError, match="limit of 128 threads"):
        again[1, 192](x)


def test_a_device_functions_launch_bounds_are_ignored():
    """As numba-cuda's: only a kernel's compile sets them."""
    @cuda.jit(device=True, launch_bounds=32)
    def one():
        return 1

    @cuda.jit
    def k(x):
        x[cuda.grid(1)] = one()

    x = np.zeros(64, np.int32)
    k[1, 64](x)
    assert (x == 1).all()
    assert _ptx_directives(k.inspect_asm(k.signatures[0])) == []


def test_a_refused_launch_is_cuda_cores_cudaerror_once_imported(monkeypatch):
    """numba-cuda 0.30 launches through cuda.core: a program that imported its CUDAError catches the refusal."""
    core = pytypes.ModuleType("cuda.core._utils.cuda_utils")

    class CUDAError(Exception):
        pass

    core.CUDAError = CUDAError
    monkeypatch.setitem(sys.modules, "cuda.core._utils.cuda_utils", core)
    with pytest.raises(CUDAError, match="CUDA_ERROR_INVALID_VALUE") as e:
        fill[1, 256](np.zeros(4, np.int32))
    assert isinstance(e.value, errors.LaunchError) and isinstance(e.value, ValueError)


def test_debug_with_opt_warns_as_numba_cuda():
    with pytest.warns(errors.InvalidConfigWarning, match="not supported by CUDA"):
        cuda.jit(debug=True, opt=True)
    with pytest.warns(errors.InvalidConfigWarning, match="not supported by CUDA"):
        cuda.jit(debug=True)  # opt defaults to config.OPT != 0
    with pytest.warns(errors.InvalidConfigWarning, match="mutually exclusive"):
        cuda.jit(debug=True, opt=False, lineinfo=True)
    with pytest.warns(errors.InvalidConfigWarning, match="not supported by CUDA"):
        cuda.compile_ptx(fill.py_func, "void(int32[::1])", debug=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cuda.jit(debug=True, opt=False)
        cuda.jit()
        saved = config.CUDA_DEBUGINFO_DEFAULT, config.OPT
        try:
            config.CUDA_DEBUGINFO_DEFAULT, config.OPT = 1, config._OptLevel(0)
            d = cuda.jit(lambda: None)  # debug from NUMBA_CUDA_DEBUGINFO, opt from NUMBA_OPT: no warning
            assert d.targetoptions["debug"] and d.targetoptions["opt"] == 0
        finally:
            config.CUDA_DEBUGINFO_DEFAULT, config.OPT = saved
    for level in (1, 2, 3, "max"):
        saved = config.OPT
        try:
            config.OPT = config._OptLevel(level)
            with pytest.warns(errors.InvalidConfigWarning, match="not supported by CUDA"):
                cuda.jit(debug=True)
        finally:
            config.OPT = saved


def test_opt_level_is_numba_cudas():
    level = config._OptLevel("max")
    assert level == 3 and level.is_opt_max and repr(level) == "_OptLevel('max')"
    assert config._OptLevel(2) == 2 and not config._OptLevel(2).is_opt_max and repr(config._OptLevel(2)) == "_OptLevel(2)"
    assert isinstance(config.OPT, config._OptLevel)
