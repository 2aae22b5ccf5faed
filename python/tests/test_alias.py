"""kfront._alias: `numba` resolving to kfront. The aliases are tested against a small fake kfront (a package
made in tmp_path, mapped in with install_numba_alias's targets) and a fake installed numba with an import
hook like numba-cuda's; one test uses the real kfront.cuda where it can be imported."""
import importlib
import importlib.abc
import importlib.util
import sys
import textwrap

import pytest

import kfront.config
import kfront.errors
import kfront.types
from kfront._alias import AliasModule, install_numba_alias, uninstall_numba_alias

FAKE_INIT = """
__version__ = "0.0-fake"
def vectorize(*args, **kwargs):
    return ("vectorize", args, kwargs)
def guvectorize(*args, **kwargs):
    return ("guvectorize", args, kwargs)
def jit(*args, **kwargs):
    return ("host jit", args, kwargs)
njit = jit
"""
FAKE_CUDA = """
import math
from fakekf.cuda import intrinsics
def jit(fn=None, **options):
    return ("jit", fn, options)
def grid(n):
    return n
def literal_unroll(container):
    return container
class DeviceNDArray:
    pass
_private = 1
"""


def _drop_modules(*prefixes):
    for key in list(sys.modules):
        if any(key == p or key.startswith(p + ".") for p in prefixes):
            del sys.modules[key]


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """A fake kfront (fakekf, fakekf.cuda) on sys.path; the alias installed over it; all undone after."""
    pkg = tmp_path / "fakekf"
    (pkg / "cuda").mkdir(parents=True)
    (pkg / "__init__.py").write_text(FAKE_INIT)
    (pkg / "cuda" / "__init__.py").write_text(FAKE_CUDA)
    (pkg / "cuda" / "intrinsics.py").write_text("KERNEL_NAMES = ()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    saved = {k: v for k, v in sys.modules.items() if k == "numba" or k.startswith("numba.")}
    yield lambda **targets: install_numba_alias({"kfront": "fakekf", "kfront.cuda": "fakekf.cuda", **targets})
    uninstall_numba_alias()
    _drop_modules("fakekf", "numba")
    sys.modules.update(saved)


def test_names_resolve_to_kfront(fake):
    fake()
    import numba
    from numba import config, cuda, float32, guvectorize, types, vectorize
    import fakekf
    import fakekf.cuda
    assert isinstance(numba, AliasModule) and isinstance(cuda, AliasModule)
    assert cuda.jit is fakekf.cuda.jit and cuda.grid is fakekf.cuda.grid and cuda.intrinsics is fakekf.cuda.intrinsics
    assert vectorize is fakekf.vectorize and guvectorize is fakekf.guvectorize and numba.__version__ == "0.0-fake"
    assert float32 is kfront.types.float32 and numba.int64 is kfront.types.int64 and numba.void is kfront.types.none
    assert numba.typeof is kfront.types.typeof and numba.from_dtype is kfront.types.from_dtype
    assert types is sys.modules["numba.core.types"] is sys.modules["numba.types"]
    assert types.float32[:, ::1] is kfront.types.float32[:, ::1] and types.Array is kfront.types.Array
    assert config is sys.modules["numba.core.config"] is sys.modules["numba.config"]
    assert numba.TypingError is kfront.errors.TypingError
    assert numba.NumbaPerformanceWarning is kfront.errors.PerformanceWarning


def test_imports_of_submodules(fake):
    fake()
    import numba.cuda
    import numba.core.errors
    from numba.core.errors import NumbaError, TypingError
    from numba.cuda.cudadrv.devicearray import DeviceNDArray
    from numba.cuda.cudadrv.driver import CudaAPIError, CudaDriverError
    from numba.np.numpy_support import as_dtype, from_dtype
    import fakekf.cuda
    assert numba.cuda.jit is fakekf.cuda.jit
    assert TypingError is kfront.errors.TypingError and NumbaError is kfront.errors.CompilerError
    assert numba.core.errors.UnsupportedError is kfront.errors.UnsupportedError
    assert CudaAPIError is CudaDriverError is kfront.errors.CudaDriverError
    assert DeviceNDArray is fakekf.cuda.DeviceNDArray
    assert from_dtype is kfront.types.from_dtype and as_dtype is kfront.types.as_dtype
    # literal_unroll: numba-cuda's numba.cuda.misc.special, also numba's top level
    import numba
    from numba.cuda.misc.special import literal_unroll
    assert literal_unroll is numba.literal_unroll is numba.cuda.literal_unroll is fakekf.cuda.literal_unroll


def test_targets_are_imported_lazily_and_cached(fake):
    fake()
    import numba
    from numba import cuda
    assert "fakekf.cuda" not in sys.modules
    jit = cuda.jit
    assert "fakekf.cuda" in sys.modules and cuda.__dict__["jit"] is jit
    assert "float32" not in numba.__dict__
    numba.float32
    assert numba.__dict__["float32"] is kfront.types.float32


def test_config_reads_and_assignments_go_to_kfront_config(fake, monkeypatch):
    fake()
    from numba import config as numba_config
    monkeypatch.setattr(kfront.config, "CUDA_ENABLE_PYNVJITLINK", kfront.config.CUDA_ENABLE_PYNVJITLINK)
    numba_config.CUDA_ENABLE_PYNVJITLINK = True
    assert kfront.config.CUDA_ENABLE_PYNVJITLINK is True and numba_config.CUDA_ENABLE_PYNVJITLINK is True
    kfront.config.CUDA_ENABLE_PYNVJITLINK = False
    assert numba_config.CUDA_ENABLE_PYNVJITLINK is False  # nothing cached
    assert numba_config.ENABLE_CUDASIM == kfront.config.ENABLE_CUDASIM
    with pytest.raises(AttributeError, match="kfront: numba.config has no setting 'NO_SUCH_SETTING'"):
        numba_config.NO_SUCH_SETTING = 1
    with pytest.raises(AttributeError, match="kfront: numba.core.config.NO_SUCH_SETTING is not supported"):
        numba_config.NO_SUCH_SETTING


def test_unsupported_names_say_so(fake):
    fake()
    import numba
    with pytest.raises(AttributeError, match=r"^kfront: numba.cfunc is not supported \(kfront compiles CUDA kernels"):
        numba.cfunc
    with pytest.raises(ImportError, match=r"kfront: numba.cfunc is not supported"):
        exec("from numba import cfunc", {})
    with pytest.raises(ModuleNotFoundError, match=r"kfront: numba.cuda.simulator is not supported \(kfront has its own"):
        exec("import numba.cuda.simulator", {})
    with pytest.raises(ImportError, match=r"kfront: numba.typed is not supported"):
        exec("import numba.typed", {})
    with pytest.raises(AttributeError, match=r"kfront: numba.cuda.no_such_thing is not supported \(kfront's drop-in"):
        numba.cuda.no_such_thing
    assert numba.complex64 is numba.types.complex64
    with pytest.raises(AttributeError, match=r"kfront: numba.float128 is not supported"):
        numba.float128
    assert not hasattr(numba, "cfunc")
    with pytest.raises(AttributeError) as e:
        numba.cuda._private
    assert "kfront" not in str(e.value)
    with pytest.raises(AttributeError):
        numba.__file__


def test_star_import_and_dir(fake):
    fake()
    import numba
    ns = {}
    exec("from numba.cuda import *", ns)
    assert {"jit", "grid", "DeviceNDArray", "intrinsics"} <= set(ns) and "math" not in ns and "_private" not in ns
    ns = {}
    exec("from numba import *", ns)
    assert {"cuda", "float32", "vectorize", "typeof", "TypingError", "config"} <= set(ns)
    assert {"cuda", "float32", "vectorize", "core"} <= set(dir(numba))


def test_reload_keeps_the_alias(fake):
    fake()
    import numba
    import numba.cuda
    jit = numba.cuda.jit
    assert importlib.reload(numba) is numba and isinstance(sys.modules["numba"], AliasModule)
    assert importlib.reload(numba.cuda) is numba.cuda and "jit" not in numba.cuda.__dict__
    assert numba.cuda.jit is jit and numba.float32 is kfront.types.float32


def test_install_is_idempotent_and_uninstall_restores(fake):
    before = sys.modules.get("numba")  # a real numba imported earlier in the session (the GPU suite's) comes back
    first = fake()
    assert fake() is first
    uninstall_numba_alias()
    assert sys.modules.get("numba") is before
    assert not any(isinstance(f, importlib.abc.MetaPathFinder) and type(f).__module__ == "kfront._alias"
                   for f in sys.meta_path)


def test_missing_target_is_a_clear_import_error(fake):
    fake(**{"kfront.cuda": "no_such_kfront_cuda_module"})
    from numba import cuda  # the alias itself imports nothing
    with pytest.raises(ImportError, match="kfront: numba.cuda.jit needs no_such_kfront_cuda_module, which could not "
                                          "be imported"):
        cuda.jit


class _RedirectingFinder(importlib.abc.MetaPathFinder):
    """Like numba-cuda's _numba_cuda_redirector: numba.cuda* from another directory."""

    def __init__(self, root):
        self.root = root

    def find_spec(self, name, path, target=None):
        if name == "numba.cuda":
            return importlib.util.spec_from_file_location(
                name, str(self.root / "numba_cuda" / "numba" / "cuda" / "__init__.py"),
                submodule_search_locations=[])
        return None


def test_wins_over_an_installed_numba_and_numba_cudas_hook(fake, tmp_path, monkeypatch):
    site = tmp_path / "site"
    for d in ("numba", "numba/core", "numba_cuda/numba/cuda"):
        (site / d).mkdir(parents=True)
    (site / "numba" / "__init__.py").write_text("REAL = 'numba'\n")
    (site / "numba" / "core" / "__init__.py").write_text("REAL = 'numba.core'\n")
    (site / "numba_cuda" / "numba" / "cuda" / "__init__.py").write_text("REAL = 'numba-cuda'\n")
    monkeypatch.syspath_prepend(str(site))
    finder = _RedirectingFinder(site)
    monkeypatch.setattr(sys, "meta_path", [finder] + sys.meta_path)
    _drop_modules("numba")
    import numba
    import numba.core
    import numba.cuda
    assert (numba.REAL, numba.cuda.REAL) == ("numba", "numba-cuda")  # the fakes work without the alias
    real_numba, real_core = numba, numba.core

    fake()
    assert sys.meta_path[1] is finder
    import numba
    import numba.cuda
    import fakekf.cuda
    assert isinstance(numba, AliasModule) and numba.cuda.jit is fakekf.cuda.jit
    assert not hasattr(numba, "REAL") and not hasattr(numba.cuda, "REAL")
    assert sys.modules["numba.core"] is not real_core

    uninstall_numba_alias()
    assert sys.modules["numba"] is real_numba and sys.modules["numba.core"] is real_core


def test_real_kfront_cuda():
    cuda_mod = pytest.importorskip("kfront.cuda")
    saved = {k: v for k, v in sys.modules.items() if k == "numba" or k.startswith("numba.")}
    try:
        install_numba_alias()
        from numba import cuda
        assert cuda.jit is cuda_mod.jit and cuda.to_device is cuda_mod.to_device
    finally:
        uninstall_numba_alias()
        sys.modules.update(saved)


def test_python_m_kfront_program(tmp_path):
    # the whole path once, as a user runs it (more in test_main.py)
    prog = tmp_path / "prog.py"
    prog.write_text(textwrap.dedent("""
        from numba import config as numba_config, float32
        numba_config.CUDA_ENABLE_PYNVJITLINK = True
        print(float32[:, ::1], numba_config.CUDA_ENABLE_PYNVJITLINK)
    """))
    import os
    import subprocess
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(kfront.types.__file__))] +
                                                      os.environ.get("PYTHONPATH", "").split(os.pathsep)))
    r = subprocess.run([sys.executable, "-m", "kfront", str(prog)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "float32[:, ::1] True\n"
