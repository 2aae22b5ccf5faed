"""The acceptance programs (test/acceptance/programs/manifest.tsv): every program marked `any` runs
unchanged (`from numba import cuda`) through `python -m kfront` and exits 0 — on the simulator in CI. The GPU
suite (test/gpu/run_python_gpu.sh) sets KFRONT_TEST_GPU=1: then every program runs, those marked `gpu+cupy`
included, on the GPU."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the repository's copy of the acceptance programs (test/acceptance/README.md), or where KFRONT_ACCEPTANCE_DIR says
ACCEPTANCE = os.environ.get("KFRONT_ACCEPTANCE_DIR") or os.path.join(ROOT, "test", "acceptance")
PROGRAMS = os.path.join(ACCEPTANCE, "programs")
MANIFEST = os.path.join(PROGRAMS, "manifest.tsv")


def _rows():
    rows = []
    with open(MANIFEST) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            program, needs, what = line.rstrip("\n").split("\t")[:3]
            rows.append((program, needs, what))
    return rows


def test_manifest_lists_programs():
    rows = _rows()
    assert sum(1 for r in rows if r[1] == "any") >= 5


ON_GPU = os.environ.get("KFRONT_TEST_GPU") == "1"


@pytest.mark.parametrize("program", [r[0] for r in _rows() if r[1] == "any" or ON_GPU])
def test_program_runs_unchanged(program):
    path = os.path.normpath(os.path.join(PROGRAMS, program))
    env = dict(os.environ) if ON_GPU else dict(os.environ, KFRONT_SIM="1")
    r = subprocess.run([sys.executable, "-m", "kfront", path], cwd=os.path.dirname(path), env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, "%s failed (%d):\n%s\n%s" % (program, r.returncode, r.stdout[-4000:], r.stderr[-4000:])
