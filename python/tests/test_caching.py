"""cuda.jit(cache=True) as numba-cuda's on-disk cache (kfront.cuda.caching): an index and a data file per
signature in the source file's __pycache__ (or NUMBA_CACHE_DIR), reused by other processes with the globals they
recorded, made stale by an edit of the file, replaced by recompile(); Dispatcher.stats counts hits and misses.
Each process here is a fresh interpreter on the simulator, as a second run of a user's program is."""
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from kfront import cuda

PYTHON_DIR = str(pathlib.Path(cuda.__file__).parent.parent.parent)

MODULE = """
import numpy as np
from kfront import cuda

@cuda.jit(cache=True)
def add(r, x, y):
    r[0] = x[0] + y[0] + Z

@cuda.jit
def add_uncached(r, x, y):
    r[0] = x[0] + y[0] + Z

def make(c):
    @cuda.jit(cache=True)
    def closure(r, y):
        r[0] = c + y[0]
    return closure

Z = 1

def run(kernel, *args):
    r = np.zeros(1, dtype=np.asarray(args[0]).dtype)
    kernel[1, 1](r, *[np.array([a]) for a in args])
    return r[0].item()

def report(kernel):
    s = kernel.stats
    return sum(s.cache_hits.values()), sum(s.cache_misses.values())
"""


def _python(tmp_path, code, **env):
    env = dict({k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}, KFRONT_SIM="1",
               PYTHONPATH=os.pathsep.join([PYTHON_DIR, str(tmp_path)]), **env)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                       timeout=120, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


@pytest.fixture
def module(tmp_path):
    (tmp_path / "cachemod.py").write_text(MODULE)
    return tmp_path


def _entries(folder):
    return sorted(n for n in os.listdir(folder) if not n.endswith(".pyc")) if os.path.isdir(folder) else []


def test_an_index_and_a_data_file_per_signature_beside_the_source(module):
    out = _python(module, """
        import cachemod as m
        print(m.run(m.add, 2, 3), m.run(m.add, 2.5, 3), m.run(m.add, 2, 3), *m.report(m.add))
        print(m.add.stats.cache_path)
    """)
    assert out == ["6", "6.5", "6", "0", "2", str(module / "__pycache__")]
    assert _entries(module / "__pycache__") == ["cachemod.add-5.py%d%d.%d.nbc" % (sys.version_info[:2] + (i,))
                                                for i in (1, 2)] + ["cachemod.add-5.py%d%d.nbi" % sys.version_info[:2]]


def test_another_process_hits_and_keeps_the_globals_recorded(module):
    _python(module, "import cachemod as m; m.run(m.add, 2, 3)")
    mtimes = {n: os.path.getmtime(module / "__pycache__" / n) for n in _entries(module / "__pycache__")}
    # numba-cuda's semantics: a cached kernel keeps the values its globals had when it was cached
    out = _python(module, """
        import cachemod as m
        m.Z = 10
        print(m.run(m.add, 2, 3), *m.report(m.add), m.run(m.add_uncached, 2, 3))
    """)
    assert out == ["6", "1", "0", "15"]
    assert {n: os.path.getmtime(module / "__pycache__" / n) for n in _entries(module / "__pycache__")} == mtimes


def test_recompile_freezes_the_globals_again_and_replaces_the_entries(module):
    _python(module, "import cachemod as m; m.run(m.add, 2, 3)")
    out = _python(module, """
        import cachemod as m
        m.Z = 10
        print(m.run(m.add, 2, 3))
        m.add.recompile()
        print(m.run(m.add, 2, 3), *m.report(m.add))
    """)
    assert out == ["6", "15", "1", "1"]
    assert _python(module, "import cachemod as m; print(m.run(m.add, 2, 3), *m.report(m.add))") == ["15", "1", "0"]


def test_an_edited_source_file_makes_the_index_stale(module):
    _python(module, "import cachemod as m; m.run(m.add, 2, 3)")
    with open(module / "cachemod.py", "a") as f:
        f.write("\nZ = 100\n")
    assert _python(module, "import cachemod as m; print(m.run(m.add, 2, 3), *m.report(m.add))") == ["105", "0", "1"]


def test_closures_share_an_index_one_data_file_each(module):
    code = """
        import cachemod as m
        ks = [m.make(c) for c in (3, 5, 7)]
        print(*[m.run(k, 1) for k in ks], *[sum(m.report(k)[:1]) for k in ks])
    """
    assert _python(module, code) == ["4", "6", "8", "0", "0", "0"]
    assert len(_entries(module / "__pycache__")) == 4
    assert _python(module, code) == ["4", "6", "8", "1", "1", "1"]  # each closure finds its own entry


def test_numba_cache_dir_takes_the_files(module, tmp_path_factory):
    where = tmp_path_factory.mktemp("numba_cache")
    out = _python(module, "import cachemod as m; m.run(m.add, 2, 3); print(m.add.stats.cache_path)",
                  NUMBA_CACHE_DIR=str(where))
    assert out[0].startswith(str(where)) and len(_entries(out[0])) == 2
    assert _entries(module / "__pycache__") == []


def test_without_cache_nothing_is_written_and_stats_counts_compiles(module):
    out = _python(module, """
        import cachemod as m
        m.run(m.add_uncached, 2, 3); m.run(m.add_uncached, 2, 3)
        print(m.add_uncached.stats.cache_path, *m.report(m.add_uncached))
    """)
    assert out == ["None", "0", "1"]
    assert _entries(module / "__pycache__") == []


def test_a_function_with_no_place_for_a_cache_is_numba_cudas_runtime_error():
    ns = {"cuda": cuda}
    with pytest.raises(RuntimeError, match="cannot cache function 'k': no locator available for file '<string>'"):
        exec(compile("@cuda.jit(cache=True)\ndef k(a):\n    a[0] = 1\n", "<string>", "exec"), ns)


def test_a_cached_kernel_raising_a_user_exception_after_a_hit(module):
    (module / "raiser.py").write_text(textwrap.dedent("""
        from kfront import cuda
        class Oops(Exception):
            pass
        @cuda.jit(cache=True, debug=True, opt=False)
        def k(a):
            if a[0] > 0:
                raise Oops("positive")
    """))
    code = """
        import numpy as np, raiser
        try:
            raiser.k[1, 1](np.ones(1))
        except raiser.Oops as e:
            print(type(e).__name__, sum(raiser.k.stats.cache_hits.values()))
    """
    assert _python(module, code) == ["Oops", "0"]
    assert _python(module, code) == ["Oops", "1"]
