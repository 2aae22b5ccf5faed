"""The distribution's metadata (pyproject.toml): its own PyPI name (kfront belongs to someone else), NumPy required
(kfront.cuda imports it at module level, as numba-cuda requires it), the [cu12]/[cu13] extras naming NVIDIA's
wheels as numba-cuda 0.30.4's do, the license file; and `import kfront.cuda` working with NumPy present."""
import os
import subprocess
import sys

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _project():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def test_distribution_name_and_license():
    p = _project()
    assert p["name"] == "kfront-cuda"
    assert os.path.isfile(os.path.join(ROOT, p["license"]["file"]))


def test_numpy_is_required():
    assert any(d.replace(" ", "").startswith("numpy>=") for d in _project()["dependencies"])
    r = subprocess.run([sys.executable, "-c", "import kfront.cuda, numpy; print(kfront.cuda.to_device(numpy.arange(3)).copy_to_host().sum())"],
                       env=dict(os.environ, KFRONT_SIM="1"), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "3", r.stderr


def test_cuda_extras_name_nvidias_wheels():
    extras = _project()["optional-dependencies"]
    assert extras["cu13"] == ["cuda-toolkit[nvvm,nvrtc]==13.*", "nvidia-nvjitlink>=13,<14"]
    assert extras["cu12"] == ["cuda-toolkit[nvcc,nvrtc]==12.*", "nvidia-nvjitlink-cu12>=12.3,<13"]
