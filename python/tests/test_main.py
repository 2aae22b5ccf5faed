"""python -m kfront: runs a program as __main__ with the numba alias installed, with its arguments, and exits
as python would. The alias's scope is the interpreter's: where numba is installed (the GPU machine), only
numba.cuda is kfront's and numba's other names stay numba's; where it is not (CI), kfront is the whole of numba.
Each test checks the scope it runs under (test_alias.py runs both scopes on purpose)."""
import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

import kfront.types

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(kfront.types.__file__)))
REAL_NUMBA = importlib.util.find_spec("numba") is not None  # the subprocesses run this same interpreter


def run(args, cwd, **env):
    full = dict(os.environ)
    for var in ("NUMBA_ENABLE_CUDASIM", "KFRONT_SIM"):
        full.pop(var, None)
    full.update(env)
    full["PYTHONPATH"] = os.pathsep.join([PYTHON_DIR] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                                         if p])
    return subprocess.run([sys.executable, "-m", "kfront"] + args, cwd=str(cwd), capture_output=True, text=True,
                          env=full)


def write(path, text):
    path.write_text(textwrap.dedent(text))
    return path


def test_runs_the_program_as_main_with_its_arguments(tmp_path):
    (tmp_path / "helper.py").write_text("VALUE = 42\n")
    write(tmp_path / "prog.py", """
        import os, sys
        import numba
        import helper                      # the program's directory is on sys.path
        from numba import cuda, float32
        print(__name__, os.path.basename(__file__), os.path.isabs(__file__), sys.argv[1:], helper.VALUE)
        print(type(numba).__name__, numba.__name__, cuda.__name__, float32)
    """)
    r = run(["prog.py", "a", "--flag", "b c"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["__main__ prog.py True ['a', '--flag', 'b c'] 42",
                                     ("module" if REAL_NUMBA else "AliasModule") + " numba numba.cuda float32"]


def test_exit_status_of_sys_exit(tmp_path):
    write(tmp_path / "prog.py", "import sys\nprint('before')\nsys.exit(3)\n")
    r = run(["prog.py"], cwd=tmp_path)
    assert r.returncode == 3 and r.stdout == "before\n"
    write(tmp_path / "msg.py", "import sys\nsys.exit('fatal: no device')\n")
    r = run(["msg.py"], cwd=tmp_path)
    assert r.returncode == 1 and r.stderr.strip() == "fatal: no device"


def test_uncaught_exception_prints_the_programs_traceback(tmp_path):
    write(tmp_path / "prog.py", """
        def fail():
            raise ValueError("boom")
        fail()
    """)
    r = run(["prog.py"], cwd=tmp_path)
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):" and lines[-1] == "ValueError: boom"
    assert 'prog.py", line 4, in <module>' in r.stderr and 'prog.py", line 3, in fail' in r.stderr
    assert "runpy" not in r.stderr and "__main__.py" not in r.stderr


def test_syntax_error_in_the_program(tmp_path):
    write(tmp_path / "prog.py", "def broken(:\n    pass\n")
    r = run(["prog.py"], cwd=tmp_path)
    assert r.returncode == 1 and "SyntaxError" in r.stderr and "prog.py" in r.stderr


def test_unsupported_numba_name_fails_clearly(tmp_path):
    write(tmp_path / "prog.py", "from numba import cfunc\n")
    r = run(["prog.py"], cwd=tmp_path)
    if REAL_NUMBA:  # numba's own cfunc, beside kfront's numba.cuda
        assert r.returncode == 0, r.stderr
    else:
        assert r.returncode == 1 and "Error: kfront: numba.cfunc is not supported (kfront compiles CUDA" in r.stderr


@pytest.mark.parametrize("env,sim", [({"NUMBA_ENABLE_CUDASIM": "1"}, "1"), ({"KFRONT_SIM": "1"}, "1"), ({}, "0")])
def test_simulator_from_the_environment(tmp_path, env, sim):
    # numba.config is kfront's where kfront is the whole of numba, numba's own beside a real numba: there kfront's
    # settings are numba.cuda.config, as numba-cuda 0.30's
    src = "from numba.cuda import config\n" if REAL_NUMBA else "from numba import config\n"
    write(tmp_path / "prog.py", src + "print(config.ENABLE_CUDASIM)\n")
    r = run(["prog.py"], cwd=tmp_path, **env)
    assert r.returncode == 0 and r.stdout.strip() == sim, r.stderr


def test_module_mode(tmp_path):
    pkg = tmp_path / "app"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    write(pkg / "__main__.py", "import sys, numba\nprint(__name__, sys.argv[1:], type(numba).__name__)\n")
    r = run(["-m", "app", "x"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "__main__ ['x'] " + ("module" if REAL_NUMBA else "AliasModule")


def test_command_line_errors(tmp_path):
    r = run([], cwd=tmp_path)
    assert r.returncode == 2 and "usage: python -m kfront" in r.stderr
    r = run(["--help"], cwd=tmp_path)
    assert r.returncode == 0 and "usage: python -m kfront" in r.stdout
    r = run(["missing.py"], cwd=tmp_path)
    assert r.returncode == 2 and "can't open file" in r.stderr and "missing.py" in r.stderr
    r = run(["-m"], cwd=tmp_path)
    assert r.returncode == 2
    r = run(["--bogus", "prog.py"], cwd=tmp_path)
    assert r.returncode == 2 and "unknown option --bogus" in r.stderr
