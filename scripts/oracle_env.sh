#!/usr/bin/env bash
# oracle_env.sh — the test oracle: numba-cuda 0.30.4 from PyPI (with numba and a NumPy it accepts) in a virtual
# environment of its own, build/oracle-venv, apart from the Python that runs kfront. Its CUDA simulator
# (NUMBA_ENABLE_CUDASIM=1) runs kernels with Python's semantics on any machine; the differential fuzzer
# (test/difftest) and the conformance gauge (test/conformance) compare kfront with it. None of its code is in
# this repository: it is fetched here, at test time.
# Prints the oracle's interpreter on its last line. Idempotent.
#   KFRONT_ORACLE_PYTHON=/path/to/python   use that interpreter (it must import numba.cuda; the conformance gauge needs pytest too) instead
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${KFRONT_ORACLE_PYTHON:-}" ]; then
  "$KFRONT_ORACLE_PYTHON" -c 'import numba.cuda' && echo "$KFRONT_ORACLE_PYTHON"
  exit
fi
venv=build/oracle-venv
py="$PWD/$venv/bin/python"
# pytest runs numba-cuda's own test modules under the oracle (test/conformance)
if ! "$py" -c 'import numba.cuda, numba_cuda, pytest; assert numba_cuda.__version__ == "0.30.4"' 2>/dev/null; then
  mkdir -p build
  python3 -m venv "$venv" >&2
  "$py" -m pip install -q --disable-pip-version-check 'numba-cuda==0.30.4' 'numpy<2.5' 'pytest==9.2.0' >&2
fi
echo "$py"
