#!/usr/bin/env bash
# python_env.sh — the Python that builds and tests kfront: the project's virtual environment, build/venv. A
# distribution's Python (Debian 12's among them: PEP 668, "externally-managed-environment") refuses `pip install`
# outside a virtual environment, so every pip install of the build and the tests goes into this one. It is made
# from the python3 on PATH with that Python's packages visible (--system-site-packages: what it already has, a CI
# image's packages or Debian's python3-numpy, is used as it is, not fetched again); what is missing is installed
# into it. Idempotent; prints the venv's interpreter on its last line.
#   scripts/setup.sh runs it; scripts/build.sh and scripts/test.sh then put build/venv/bin first on PATH.
#   By hand (cmake, ctest, pytest, pip install .): `. build/venv/bin/activate` first.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build/venv
py="$PWD/$venv/bin/python"
if ! "$py" -c 'import sys; sys.exit(sys.prefix == sys.base_prefix)' 2>/dev/null; then
  mkdir -p build
  python3 -m venv --system-site-packages "$venv" >&2 || {
    echo "python_env: python3 -m venv failed: on Debian, install python3-venv (scripts/setup.sh does)" >&2
    exit 1
  }
fi
pip_install() { "$py" -m pip install -q --disable-pip-version-check "$@" 2>&1 | grep -v "Running pip as the 'root' user" >&2 || true; }
# the Python module: numpy and pytest for its tests, scikit-build-core for `pip install .` (pyproject.toml), mpmath
# for the tests' reference values (libdevice's erfinv, sinpi, ...), ml_dtypes for bfloat16 host arrays in tests
if ! "$py" -c 'import numpy, pytest, scikit_build_core, mpmath, ml_dtypes' 2>/dev/null; then
  pip_install numpy pytest 'scikit-build-core>=0.8' mpmath ml_dtypes
fi
# IPython, ipykernel, nbclient and nbformat: the tests that run kernels in IPython's magics and a notebook in a
# Jupyter kernel (python/tests/test_notebook.py)
if ! "$py" -c 'import IPython, ipykernel, nbclient, nbformat' 2>/dev/null; then
  pip_install ipython ipykernel nbclient nbformat
fi
# cuda-core: its Buffer and StridedMemoryView as kernel arguments (python/tests/test_cuda_core_args.py; no driver is
# needed to make a Buffer)
if ! "$py" -c 'import cuda.core' 2>/dev/null; then
  pip_install cuda-core "cuda-bindings>=13,<14"
fi
"$py" -c 'import numpy, pytest, scikit_build_core, mpmath, ml_dtypes, IPython, ipykernel, nbclient, nbformat, cuda.core' || {
  echo "python_env: the packages above did not install into $venv" >&2
  exit 1
}
echo "$py"
