"""kfront.config: numba's settings and kfront's from the environment, the simulator switch, assignments
accepted for settings and refused for other names, cache_dir, reload_config."""
import importlib
import os

import pytest

import kfront.config as config

_VARS = ("NUMBA_ENABLE_CUDASIM", "KFRONT_SIM", "NUMBA_OPT", "NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS",
         "NUMBA_CUDA_ENABLE_PYNVJITLINK", "NUMBA_FORCE_CUDA_CC", "NUMBA_DUMP_ANNOTATION", "KFRONT_CACHE_DIR",
         "KFRONT_NO_CACHE", "XDG_CACHE_HOME", "KFRONT_BACKEND", "KFRONT_NO_GRID_STRIDE", "KFRONT_SIM_WORKERS",
         "CUDA_HOME", "KFRONT_LIBNVVM", "KFRONT_NVVM_VERIFY")


@pytest.fixture
def env(monkeypatch):
    """A clean environment for the settings; the module is read again from it by reload(env)."""
    for var in _VARS:
        monkeypatch.delenv(var, raising=False)

    def reload(**values):
        for k, v in values.items():
            monkeypatch.setenv(k, v)
        importlib.reload(config)
        return config
    yield reload
    monkeypatch.undo()
    importlib.reload(config)


def test_defaults(env):
    c = env()
    assert c.ENABLE_CUDASIM == 0 and c.CUDA_ENABLE_PYNVJITLINK == 0 and c.CUDA_LOW_OCCUPANCY_WARNINGS == 1
    assert c.OPT == 3 and c.DISABLE_JIT == 0 and c.FORCE_CUDA_CC is None and c.CUDA_DEFAULT_PTX_CC == (5, 2)
    assert c.KFRONT_BACKEND == "auto" and c.KFRONT_GRID_STRIDE is True and c.KFRONT_SIM_WORKERS == 1
    assert c.CUDA_HOME is None and c.KFRONT_LIBNVVM is None and c.KFRONT_NVVM_VERIFY is False
    assert c.MACHINE_BITS in (32, 64) and "ENABLE_CUDASIM" in c.SETTINGS


def test_numba_variables(env):
    c = env(NUMBA_OPT="0", NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS="0", NUMBA_CUDA_ENABLE_PYNVJITLINK="1",
            NUMBA_FORCE_CUDA_CC="8.0", NUMBA_DUMP_ANNOTATION="1")
    assert (c.OPT, c.CUDA_LOW_OCCUPANCY_WARNINGS, c.CUDA_ENABLE_PYNVJITLINK) == (0, 0, 1)
    assert c.FORCE_CUDA_CC == (8, 0) and c.ANNOTATE == 1


def test_unparsable_variable_warns_and_keeps_the_default(env):
    with pytest.warns(RuntimeWarning, match="NUMBA_OPT"):
        c = env(NUMBA_OPT="fast")
    assert c.OPT == 3


@pytest.mark.parametrize("values,sim", [
    ({"NUMBA_ENABLE_CUDASIM": "1"}, 1), ({"KFRONT_SIM": "1"}, 1), ({"KFRONT_SIM": "yes"}, 1),
    ({"KFRONT_SIM": "0", "NUMBA_ENABLE_CUDASIM": "1"}, 0), ({"KFRONT_SIM": "", "NUMBA_ENABLE_CUDASIM": "1"}, 1),
    ({"NUMBA_ENABLE_CUDASIM": "0"}, 0), ({}, 0),
])
def test_simulator_switch(env, values, sim):
    assert env(**values).ENABLE_CUDASIM == sim


def test_kfront_variables(env):
    c = env(KFRONT_BACKEND="llvm", KFRONT_NO_GRID_STRIDE="1", KFRONT_SIM_WORKERS="4", CUDA_HOME="/opt/cuda",
            KFRONT_LIBNVVM="/x/libnvvm.so", KFRONT_NVVM_VERIFY="1")
    assert (c.KFRONT_BACKEND, c.KFRONT_GRID_STRIDE, c.KFRONT_SIM_WORKERS) == ("llvm", False, 4)
    assert (c.CUDA_HOME, c.KFRONT_LIBNVVM, c.KFRONT_NVVM_VERIFY) == ("/opt/cuda", "/x/libnvvm.so", True)
    with pytest.warns(RuntimeWarning):
        assert env(KFRONT_BACKEND="ptx").KFRONT_BACKEND == "auto"


def test_cache_dir(env, monkeypatch):
    assert env(KFRONT_CACHE_DIR="/tmp/kc").cache_dir() == "/tmp/kc"
    monkeypatch.delenv("KFRONT_CACHE_DIR")
    assert env(XDG_CACHE_HOME="/tmp/xdg").cache_dir() == os.path.join("/tmp/xdg", "kfront")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", "/home/someone")
    assert env().cache_dir() == "/home/someone/.cache/kfront"
    assert env(KFRONT_NO_CACHE="1").cache_dir() is None


def test_assignments(env):
    c = env()
    c.CUDA_ENABLE_PYNVJITLINK = True
    c.ENABLE_CUDASIM = 1
    assert c.CUDA_ENABLE_PYNVJITLINK is True and c.ENABLE_CUDASIM == 1
    with pytest.raises(AttributeError, match="kfront: numba.config has no setting 'CUDA_ENABLE_PYNVJITLNK'.*"
                                             "did you mean CUDA_ENABLE_PYNVJITLINK"):
        c.CUDA_ENABLE_PYNVJITLNK = True
    with pytest.raises(AttributeError, match="'made_up'"):
        c.made_up = 1
    assert not hasattr(c, "CUDA_ENABLE_PYNVJITLNK") and not hasattr(c, "made_up")


def test_reload_config_reads_changed_variables(env, monkeypatch):
    c = env()
    c.ENABLE_CUDASIM = 1
    c.reload_config()                      # nothing changed: the assignment stays
    assert c.ENABLE_CUDASIM == 1
    monkeypatch.setenv("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
    c.reload_config()
    assert c.CUDA_LOW_OCCUPANCY_WARNINGS == 0 and c.ENABLE_CUDASIM == 0


def test_opt_is_numbas_opt_level(env):
    assert repr(env().OPT) == "_OptLevel(3)"
    c = env(NUMBA_OPT="max")
    assert isinstance(c.OPT, c._OptLevel) and c.OPT == 3 and c.OPT.is_opt_max and repr(c.OPT) == "_OptLevel('max')"
    c = env(NUMBA_OPT="2")
    assert c.OPT == 2 and not c.OPT.is_opt_max and repr(c.OPT) == "_OptLevel(2)"
    assert c._OptLevel(0) == 0 and not c._OptLevel(0)
