"""`numba.cuda.testing` under the conformance shim: CUDATestCase and the skip decorators numba-cuda's tests use,
written for the project from their documented behaviour and working over whichever `numba.cuda`
conformance_boot installed.

A test is skipped here exactly when its own decorator says so: skip_on_cudasim on a simulator (kfront's, with
KFRONT_SIM=1, is one; so is numba-cuda's), the toolkit checks (nvdisasm, nvJitLink, the CUDA headers,
cudadevrt) as numba-cuda's simulator answers them on a simulator (no toolkit: nvdisasm, nvJitLink and the
headers are missing, cudadevrt is not needed) and by looking for the toolkit's files on a GPU, compute
capability checks by the current device (always met on a simulator), skip_on_standalone_numba_cuda unless
numba itself is installed beside numba.cuda.
"""
import os
import platform
import shutil
import unittest
from io import StringIO
from pathlib import Path

import numpy as np

import conformance_boot
from numba.cuda.tests.support import TestCase, cuda_config

config = cuda_config()
test_data_dir = Path(conformance_boot.TESTS_DIR) / "data"
HAS_NUMBA = bool(conformance_boot.REAL_NUMBA)


def _on_simulator():
    return bool(config.ENABLE_CUDASIM)


# the performance warnings CUDATestCase turns off while a test runs
_SETTINGS_OFF = ("CUDA_LOW_OCCUPANCY_WARNINGS", "CUDA_WARN_ON_IMPLICIT_COPY")


class CUDATestCase(TestCase):
    """A test that uses a CUDA device: numba-cuda's performance warnings (low occupancy, implicit copies) are
    off while it runs; assertFileCheck* check text (a kernel's assembly or LLVM IR, or any string) against
    FileCheck patterns."""

    FLOAT16_RTOL = np.finfo(np.float16).eps

    # (a module constant, not a class attribute: numba-cuda's tests call CUDATestCase.setUp(self) with a self of
    # another TestCase class, as test_caching's CUDACachingTest does)
    def setUp(self):
        self._saved_settings = {name: getattr(config, name) for name in _SETTINGS_OFF if hasattr(config, name)}
        for name in self._saved_settings:
            setattr(config, name, 0)

    def tearDown(self):
        for name, value in self._saved_settings.items():
            setattr(config, name, value)

    def _ir_texts(self, ir, signature):
        if isinstance(ir, str):
            assert signature is None, "Cannot use signature because the kernel was only compiled for one signature"
            return [ir]
        return list(ir.values()) if signature is None else [ir[signature]]

    def _check_dispatcher(self, texts, dispatcher, check_prefixes, options):
        assert texts, "No output found for the given signature."
        assert dispatcher.__doc__ is not None, \
            "Kernel docstring is required. To pass checks explicitly, use assertFileCheckMatches."
        for text in texts:
            assert text, "IR content is empty for the given signature."
            self.assertFileCheckMatches(text, dispatcher.__doc__, check_prefixes, **options)

    def assertFileCheckAsm(self, dispatcher, signature=None, check_prefixes=("ASM",), **options):
        """The kernel's assembly (inspect_asm) matches the FileCheck checks of its docstring."""
        self._check_dispatcher(self._ir_texts(dispatcher.inspect_asm(), signature), dispatcher, check_prefixes,
                               options)

    def assertFileCheckLLVM(self, dispatcher, signature=None, check_prefixes=("LLVM",), **options):
        """The kernel's LLVM IR (inspect_llvm) matches the FileCheck checks of its docstring."""
        self._check_dispatcher(self._ir_texts(dispatcher.inspect_llvm(), signature), dispatcher, check_prefixes,
                               options)

    def assertFileCheckMatches(self, ir_content, check_patterns, check_prefixes=("CHECK",), **options):
        """`ir_content` matches the FileCheck checks in `check_patterns` (the filecheck package's matcher)."""
        from filecheck.finput import FInput
        from filecheck.matcher import Matcher
        from filecheck.options import Options
        from filecheck.parser import Parser, pattern_for_opts
        opts = Options(match_filename="-", check_prefixes=list(check_prefixes), **options)
        parser = Parser(opts, StringIO(check_patterns), *pattern_for_opts(opts))
        matcher = Matcher(opts, FInput(fname="-", content=ir_content), parser)
        matcher.stderr = StringIO()
        if matcher.run() != 0:
            self.fail("FileCheck failed:\n%s" % matcher.stderr.getvalue())


def skip_on_cudasim(reason):
    """Skips the test on a simulator."""
    assert isinstance(reason, str)
    return unittest.skipIf(_on_simulator(), reason)


def skip_unless_cudasim(reason):
    """Skips the test on a GPU."""
    assert isinstance(reason, str)
    return unittest.skipUnless(_on_simulator(), reason)


def xfail_unless_cudasim(fn):
    """An expected failure on a GPU; an ordinary test on a simulator."""
    return fn if _on_simulator() else unittest.expectedFailure(fn)


skip_on_standalone_numba_cuda = unittest.skipUnless(HAS_NUMBA, "requires base numba install")


def _toolkit_roots():
    roots = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")] + ["/usr/local/cuda"]
    return [r for r in roots if r and os.path.isdir(r)]


def _toolkit_file(*names):
    """The first of `names` (paths relative to a CUDA toolkit root) that exists, or None."""
    for root in _toolkit_roots():
        for name in names:
            path = os.path.join(root, name)
            if os.path.exists(path):
                return path
    return None


def _nvdisasm():
    return None if _on_simulator() else (shutil.which("nvdisasm") or _toolkit_file("bin/nvdisasm"))


def _have_nvjitlink():
    if _on_simulator():
        return False
    try:
        from cuda.bindings import nvjitlink
        nvjitlink.version()
        return True
    except Exception:
        return _toolkit_file("lib64/libnvJitLink.so", "lib/libnvJitLink.so") is not None


def _cuda_header(name):
    return None if _on_simulator() else _toolkit_file(os.path.join("include", name))


def _cudadevrt_missing():
    return not _on_simulator() and _toolkit_file("lib64/libcudadevrt.a", "lib/libcudadevrt.a") is None


def skip_unless_conda_cudatoolkit(reason):
    """Skips the test unless the CUDA toolkit came from conda (the active conda environment has it)."""
    assert isinstance(reason, str)
    prefix = os.environ.get("CONDA_PREFIX")
    meta = os.path.join(prefix, "conda-meta") if prefix else None
    found = bool(meta and os.path.isdir(meta) and
                 any(f.startswith(("cudatoolkit-", "cuda-nvcc-", "cuda-cudart-")) for f in os.listdir(meta)))
    return unittest.skipUnless(found, reason)


def skip_if_external_memmgr(reason):
    """Skips the test when an external memory manager (EMM plugin) is configured."""
    assert isinstance(reason, str)
    return unittest.skipIf(getattr(config, "CUDA_MEMORY_MANAGER", "default") != "default", reason)


def skip_under_cuda_memcheck(reason):
    assert isinstance(reason, str)
    return unittest.skipIf(os.environ.get("CUDA_MEMCHECK") is not None, reason)


def skip_without_nvdisasm(reason):
    assert isinstance(reason, str)
    return unittest.skipIf(_nvdisasm() is None, reason)


def skip_with_nvdisasm(reason):
    assert isinstance(reason, str)
    return unittest.skipIf(_nvdisasm() is not None, reason)


def skip_on_arm(reason):
    assert isinstance(reason, str)
    return unittest.skipIf(platform.processor().startswith(("arm", "aarch")) or
                           platform.machine().startswith(("arm", "aarch")), reason)


def skip_on_wsl2(reason):
    assert isinstance(reason, str)
    return unittest.skipIf("wsl2" in platform.release().lower(), reason)


def skip_if_cuda_includes_missing(fn):
    return unittest.skipIf(_cuda_header("cuda.h") is None, "CUDA include dir not available on this system")(fn)


def skip_if_curand_kernel_missing(fn):
    return unittest.skipIf(_cuda_header("curand_kernel.h") is None,
                           "curand_kernel.h not available on this system")(fn)


def skip_if_cudadevrt_missing(fn):
    return unittest.skipIf(_cudadevrt_missing(), "cudadevrt missing")(fn)


def skip_if_nvjitlink_missing(reason):
    assert isinstance(reason, str)
    return unittest.skipIf(not _have_nvjitlink(), reason)


def skip_on_nvjitlink_13_1_sm_120(reason):
    """Skips the test with nvJitLink 13.1 on a device of compute capability 12.0 (it fails to link there)."""
    assert isinstance(reason, str)
    hit = False
    if not _on_simulator():
        try:
            from cuda.bindings import nvjitlink
            hit = tuple(nvjitlink.version()[:2]) == (13, 1) and _device_cc() == (12, 0)
        except Exception:
            hit = False
    return unittest.skipIf(hit, reason)


def _device_cc():
    from numba import cuda
    return tuple(cuda.get_current_device().compute_capability)


def cc_X_or_above(major, minor):
    """Whether the current device's compute capability is at least major.minor (always, on a simulator)."""
    return True if _on_simulator() else _device_cc() >= (major, minor)


def _skip_unless_cc(major, minor):
    def decorate(fn):
        return unittest.skipUnless(cc_X_or_above(major, minor), "requires cc >= %d.%d" % (major, minor))(fn)
    return decorate


skip_unless_cc_50 = _skip_unless_cc(5, 0)
skip_unless_cc_53 = _skip_unless_cc(5, 3)
skip_unless_cc_60 = _skip_unless_cc(6, 0)
skip_unless_cc_75 = _skip_unless_cc(7, 5)
skip_unless_cc_90 = _skip_unless_cc(9, 0)


class ForeignArray:
    """An array of another library as the CUDA Array Interface shows it: wraps a device array, exposing only
    its __cuda_array_interface__."""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__
