"""kfront._alias: `numba` resolving to kfront. The aliases are tested against a small fake kfront (a package
made in tmp_path, mapped in with install_numba_alias's targets) and a fake installed numba with an import
hook like numba-cuda's; one test uses the real kfront.cuda where it can be imported."""
import importlib
import importlib.abc
import importlib.util
import os
import re
import subprocess
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
    yield lambda scope="numba", **targets: install_numba_alias({"kfront": "fakekf", "kfront.cuda": "fakekf.cuda",
                                                                **targets}, scope=scope)
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
    with pytest.raises(ModuleNotFoundError, match=r"kfront: numba.cuda.simulator.kernel is not supported \(kfront has "
                                                  r"its own simulator"):
        exec("import numba.cuda.simulator.kernel", {})
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
    # beside a real numba (the GPU machine) numba's float32 and config are numba's own
    real = importlib.util.find_spec("numba") is not None
    assert r.stdout == ("array(float32, 2d, C) True\n" if real else "float32[:, ::1] True\n")


# ---- the two scopes: beside a real numba (the oracle's numba 0.68 + numba-cuda 0.30.4), and without numba ----

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KFRONT_DIR = os.path.dirname(os.path.dirname(kfront.types.__file__))


@pytest.fixture(scope="module")
def oracle_python():
    """The interpreter of the oracle venv (a real numba and numba-cuda; kfront is not installed there)."""
    r = subprocess.run(["bash", os.path.join(ROOT, "scripts", "oracle_env.sh")], capture_output=True, text=True,
                       timeout=900)
    if r.returncode != 0:
        pytest.fail("the oracle (scripts/oracle_env.sh) is not available: %s" % r.stderr[-2000:])
    return r.stdout.strip().splitlines()[-1]


def _run(python, program, tmp_path, *args, sim="KFRONT_SIM"):
    """Runs program (a file in tmp_path) with `python` and kfront's package on its path; (returncode, out, err)."""
    prog = tmp_path / "prog.py"
    prog.write_text(textwrap.dedent(program))
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp"), sim: "1",
           "PYTHONPATH": KFRONT_DIR, "KFRONT_CACHE_DIR": str(tmp_path / "cache"),
           # these programs launch one-block grids on host arrays: numba-cuda's performance warnings (errors under their
           # filters) are not what they check
           "NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS": "0", "NUMBA_CUDA_WARN_ON_IMPLICIT_COPY": "0"}
    r = subprocess.run([python, *args, str(prog)], capture_output=True, text=True, env=env, timeout=300)
    return r.returncode, r.stdout, r.stderr


def test_cuda_only_scope_leaves_numbas_cpu_jit_to_numba(oracle_python, tmp_path):
    rc, out, err = _run(oracle_python, """
        import sys, warnings
        warnings.simplefilter("error")
        import kfront
        from kfront._alias import AliasModule, alias_scope
        kfront.install_numba_alias()
        import numpy as np
        from numba import cuda, njit, prange, typed, vectorize
        import numba, numba.core.types, numba.cuda.types
        assert alias_scope() == "cuda" and not isinstance(numba, AliasModule)
        assert isinstance(cuda, AliasModule) and numba.cuda is cuda is sys.modules["numba.cuda"]
        assert cuda.jit is kfront.cuda.jit and cuda.HAS_NUMBA is True
        assert numba.types is numba.core.types and numba.cuda.types is not numba.types

        @njit(parallel=True)
        def total(a):
            s = 0.0
            for i in prange(a.size):
                s += a[i]
            return s

        @vectorize(["float64(float64)"], target="cpu")
        def twice(x):
            return 2 * x

        lst = typed.List([1, 2, 3])
        x = np.arange(10.0)
        print(type(total).__module__, total(x), len(total.signatures))
        print(type(twice).__name__, twice(x).sum(), type(lst).__module__, sum(lst))

        @cuda.jit
        def k(out, x):
            i = cuda.grid(1)
            if i < x.size:
                out[i] = x[i] + 1

        out = np.zeros_like(x)
        k[1, 16](out, x)
        print(type(k).__module__, out.sum())
        import numba_cuda
        print(numba_cuda.__version__, isinstance(numba_cuda, AliasModule))
    """, tmp_path)
    assert rc == 0, err
    assert out.splitlines() == ["numba.core.registry 45.0 1", "DUFunc 90.0 numba.typed.typedlist 6",
                                "kfront.cuda.dispatcher 55.0", "0.30.4 True"]


# numba's own objects handed to kfront beside a real numba: numba's types in cuda.jit signatures and as kernel
# globals, a numba.jit function called from a kernel (numba-cuda's documented CPU/GPU reuse). The same program
# runs on numba-cuda's simulator (the oracle) and under `python -m kfront` (the cuda-only alias); outputs compared.
NUMBA_OBJECTS_PROGRAM = """
    import math
    import numpy as np
    import numba
    from numba import cuda, float32, float64, int32, void

    @numba.jit
    def business_logic(x, y, z):
        return 4 * z * (2 * x - (4 * y) / 2 * math.pi)

    @numba.njit
    def clamp(v, lo, hi):
        return min(max(v, lo), hi)

    @numba.njit(parallel=True)
    def host_total(a):
        s = 0.0
        for i in numba.prange(a.size):
            s += a[i]
        return s

    rec = np.dtype([("a", np.int32), ("b", np.float64)], align=True)

    @cuda.jit(void(float64[:], float64[:], float64[:], float64[:]))
    def f(res, xs, ys, zs):
        i = cuda.grid(1)
        if i < xs.size:
            res[i] = clamp(business_logic(xs[i], ys[i], zs[i]), -1e6, 1e6)

    @cuda.jit((numba.types.float32[:, ::1], int32))
    def g(out, n):
        i, j = cuda.grid(2)
        tmp = cuda.local.array(3, float32)
        tmp[0] = float32(i) + numba.float32(0.5)
        tmp[1] = numba.types.float32(j)
        if i < n and j < out.shape[1]:
            out[i, j] = tmp[0] * tmp[1]

    @cuda.jit(void(float64[:], numba.from_dtype(rec)[:]))
    def h(out, recs):
        i = cuda.grid(1)
        if i < recs.size:
            out[i] = recs[i].a + recs[i].b

    xs = np.array([1.0, 10.0, 234.0]); ys = np.array([2.0, 2.0, 4014.0]); zs = np.array([3.0, 14.0, 2211.0])
    res = np.zeros(3)
    f[1, 32](res, xs, ys, zs)
    print([round(v, 6) for v in res.tolist()], round(business_logic(1.0, 2.0, 3.0), 6))
    out = np.zeros((4, 3), np.float32)
    g[(1, 1), (4, 4)](out, 3)
    print(out.tolist())
    recs = np.zeros(4, rec); recs["a"] = [1, 2, 3, 4]; recs["b"] = 0.25
    o = np.zeros(4)
    h[1, 4](o, recs)
    print(o.tolist(), host_total(o))

    # numba-cuda takes NPDatetime and NPTimedelta from numba where numba is installed: one class for both
    print(cuda.types.NPDatetime is numba.types.NPDatetime, cuda.types.NPTimedelta is numba.types.NPTimedelta)

    @cuda.jit(void(cuda.types.NPDatetime("s")[:], numba.types.NPTimedelta("s")[:]))
    def later(when, by):
        i = cuda.grid(1)
        if i < when.size:
            when[i] += by[i]

    when = np.array(["2020-01-01", "2021-06-30T12:00"], dtype="M8[s]"); by = np.array([5, 3600], dtype="m8[s]")
    later[1, 2](when, by)
    print([str(v) for v in when])
"""


def test_numba_objects_in_kernels_match_numba_cudas_simulator(oracle_python, tmp_path):
    rc, expect, err = _run(oracle_python, NUMBA_OBJECTS_PROGRAM, tmp_path, sim="NUMBA_ENABLE_CUDASIM")
    assert rc == 0, err
    rc, out, err = _run(oracle_python, NUMBA_OBJECTS_PROGRAM, tmp_path, "-m", "kfront")
    assert rc == 0, err
    assert out == expect and len(expect.splitlines()) == 5


def test_numba_jit_function_given_signatures_is_refused_in_kernels_as_numba_cuda(oracle_python, tmp_path):
    # numba-cuda's test_device_func test_cpu_dispatcher_invalid: numba.jit given signatures disables compilation,
    # for the device too: numba-cuda's TypingError "Untyped global name 'add': ... using cpu function on device"
    rc, out, err = _run(oracle_python, """
        import re
        import numpy as np
        from numba import cuda, jit
        from numba.core.errors import TypingError

        @jit("(i4, i4)")
        def add(a, b):
            return a + b

        @jit
        def add_any(a, b):
            return a + b

        def kernel_of(fn):
            @cuda.jit
            def k(ary):
                i = cuda.grid(1)
                ary[i] = fn(ary[i], 1)
            return k

        ary = np.arange(4)
        try:
            kernel_of(add)[1, 4](ary)
        except TypingError as e:
            print(bool(re.search("Untyped global name 'fn':.*using cpu function on device", str(e))))
            print(str(e).splitlines()[0])
        kernel_of(add_any)[1, 4](ary)
        print(ary.tolist())
    """, tmp_path, "-m", "kfront")
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == "True" and lines[2:] == ["[1, 2, 3, 4]"], out
    assert re.search(r"prog\.py:19:18: error: Untyped global name 'fn': CPUDispatcher, using cpu function on device "
                     r"but its compilation is disabled", lines[1]), lines[1]


def test_numbas_vectorize_target_cuda_builds_kfront_ufuncs(oracle_python, tmp_path):
    # (numba-cuda 0.30.4's simulator cannot run these: its FakeOverload has no signature; compared with NumPy)
    rc, out, err = _run(oracle_python, """
        import numpy as np
        import numba
        from numba import cuda, float32, guvectorize, vectorize

        @vectorize([float32(float32, float32), "float64(float64, float64)"], target="cuda")
        def axpy(a, b):
            return 2 * a + b

        @guvectorize([(numba.float64[:], numba.float64[:])], "(n)->(n)", target="cuda")
        def cumsum(a, out):
            acc = 0.0
            for i in range(a.shape[0]):
                acc += a[i]
                out[i] = acc

        x = np.arange(5, dtype=np.float32)
        print(vectorize.__module__, guvectorize.__module__)
        print(type(axpy).__name__, axpy(x, x).tolist(), axpy(np.ones(2), np.ones(2)).dtype)
        print(type(cumsum).__name__, cumsum(np.arange(6.0).reshape(2, 3)).tolist())
        d = cuda.to_device(x)
        print(axpy(d, d).copy_to_host().tolist())
        try:
            vectorize(["float32(float32)"], target="cuda", cache=True)(lambda a: a)
        except TypeError as e:
            print("TypeError", e)
    """, tmp_path, "-m", "kfront")
    assert rc == 0, err
    assert out.splitlines() == ["numba.np.ufunc.decorators numba.np.ufunc.decorators",
                                "CUDAUFunc [0.0, 3.0, 6.0, 9.0, 12.0] float64",
                                "CUDAGUFunc [[0.0, 1.0, 3.0], [3.0, 7.0, 12.0]]", "[0.0, 3.0, 6.0, 9.0, 12.0]",
                                "TypeError caching is not supported"]


def test_numba_cuda_imported_before_install_is_named_and_restored(oracle_python, tmp_path):
    rc, out, err = _run(oracle_python, """
        import warnings
        from numba import cuda as early
        import numba
        real = numba.cuda
        import kfront
        from kfront._alias import uninstall_numba_alias
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            kfront.install_numba_alias()
        head, stale = str(w[0].message).split(": ")[1:3]
        print(len(w), w[0].category.__name__, head)
        print(stale.split(" still refer")[0])
        from numba import cuda
        print(cuda is not early, numba.cuda is cuda, early is real)
        uninstall_numba_alias()
        import numba.cuda
        print(numba.cuda is real, __import__("sys").modules["numba.cuda"] is real)
    """, tmp_path, sim="NUMBA_ENABLE_CUDASIM")
    assert rc == 0, err
    assert out.splitlines() == [
        "1 KfrontWarning numba.cuda was imported before install_numba_alias()", "__main__.early, __main__.real",
        "True True True", "True True"]


def test_cuda_scope_errors_are_numbas_classes(oracle_python, tmp_path):
    """Beside a real numba, kfront's errors are caught by numba.core.errors' classes (numba-cuda's tests import
    TypingError from there where HAS_NUMBA) and still by kfront's and numba.cuda.core.errors' names; the raises
    of the C extension (typing) and of kfront's Python (dtypes, warnings) alike. Uninstalling takes numba's
    classes out of kfront's bases again."""
    rc, out, err = _run(oracle_python, """
        import warnings
        import numpy as np
        import kfront
        from kfront import errors as kf
        from kfront._alias import uninstall_numba_alias
        kfront.install_numba_alias()
        import numba.core.errors as ne
        from numba import cuda
        from numba.cuda.core import errors as ce
        from numba.cuda.np import numpy_support

        def nonliteral_grid(x):
            cuda.grid(x)

        try:
            cuda.jit("void(int32)")(nonliteral_grid)
        except ne.TypingError as e:
            print("typing", isinstance(e, kf.TypingError), isinstance(e, ce.TypingError), isinstance(e, ne.NumbaError),
                  "RequireLiteralValue: int32" in str(e), e.line)
        try:
            numpy_support.from_dtype(np.dtype(">i4"))
        except ne.UnsupportedError as e:
            print("unsupported", isinstance(e, kf.UnsupportedError), isinstance(e, ne.TypingError))
        for cls in (ne.NumbaError, kf.CompilerError, ce.NumbaError):
            try:
                cuda.jit("void(int32)")(nonliteral_grid)
            except cls:
                print("caught by", cls.__module__)
        with warnings.catch_warnings():
            warnings.simplefilter("error", ne.NumbaInvalidConfigWarning)
            try:
                cuda.jit(debug=True, opt=True)(nonliteral_grid)
            except ne.NumbaWarning as w:
                print("warning", type(w).__name__, isinstance(w, ce.NumbaInvalidConfigWarning))
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            warnings.warn(kf.PerformanceWarning("low occupancy"))
        print("category", issubclass(got[0].category, ne.NumbaPerformanceWarning))
        uninstall_numba_alias()
        print("after", issubclass(kf.TypingError, ne.NumbaError), issubclass(kf.PerformanceWarning, ne.NumbaWarning))
    """, tmp_path)
    assert rc == 0, err
    assert out.splitlines() == ["typing True True True True 14", "unsupported True False",
                                "caught by numba.core.errors", "caught by kfront.errors", "caught by kfront.errors",
                                "warning InvalidConfigWarning True", "category True", "after False False"]


def test_scope_numba_where_numba_is_absent(fake, monkeypatch):
    # sys.modules["numba"] = None is Python's own "no such module": `import numba` raises ImportError
    monkeypatch.setitem(sys.modules, "numba", None)
    with pytest.raises(ImportError, match="scope='cuda'\\) needs numba, which is not installed"):
        install_numba_alias(scope="cuda")
    numba = fake(scope="auto")
    from kfront._alias import alias_scope
    assert alias_scope() == "numba" and isinstance(numba, AliasModule) and numba.cuda.HAS_NUMBA is False
    with pytest.raises(ValueError, match="the scope is one of auto, numba, cuda"):
        install_numba_alias(scope="everything")


def test_scope_cuda_beside_an_installed_numba(fake, tmp_path, monkeypatch):
    """auto picks "cuda" where a numba is installed (a fake one here): numba stays numba's, numba.cuda is kfront's."""
    site = tmp_path / "site"
    (site / "numba").mkdir(parents=True)
    (site / "numba" / "__init__.py").write_text("REAL = 'numba'\ndef njit(f):\n    return ('numba njit', f)\n")
    monkeypatch.syspath_prepend(str(site))
    _drop_modules("numba")
    numba = fake(scope="auto")
    import fakekf.cuda
    from kfront._alias import alias_scope
    assert alias_scope() == "cuda" and numba.REAL == "numba" and not isinstance(numba, AliasModule)
    from numba import cuda, njit
    import numba.cuda.cudadrv.driver
    assert isinstance(cuda, AliasModule) and numba.cuda is cuda and cuda.jit is fakekf.cuda.jit
    assert njit(len) == ("numba njit", len) and cuda.HAS_NUMBA is True
    with pytest.raises(ModuleNotFoundError, match="kfront: numba.cuda.simulator.kernel is not supported"):
        exec("import numba.cuda.simulator.kernel", {})
    uninstall_numba_alias()
    assert "cuda" not in vars(numba) and "numba.cuda" not in sys.modules
