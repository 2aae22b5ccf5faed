#!/usr/bin/env bash
# run_wheel_test.sh — the wheel as a user gets it: checked portable (check_portable.sh: glibc 2.28's symbol
# versions, no libstdc++ needed) and tagged manylinux_2_28, installed with pip into a fresh virtual environment
# (NumPy from the package index), then check_python_package.sh on its console command `kfront` and its Python, on
# the simulator. Not in ctest (building the wheel takes minutes); run by hand or on a fresh machine:
#
#   test/install/run_wheel_test.sh [WHEEL]      (without WHEEL: scripts/build_wheel.sh builds one, into build/dist)
#   (env: PYTHON, the interpreter the venv is made from, default python3)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
python=${PYTHON:-python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kfront-wheel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
wheel=${1:-}
if [ -z "$wheel" ]; then
  echo "== building the wheel (scripts/build_wheel.sh)"
  wheel=$(PYTHON=$python bash "$src/scripts/build_wheel.sh" "$src/build/dist" | tee /dev/stderr | tail -n1)
fi
wheel=$(cd "$(dirname "$wheel")" && pwd)/$(basename "$wheel")
case $(basename "$wheel") in
  *-manylinux_2_28_x86_64.whl) ;;
  *) echo "wheel: FAIL: $(basename "$wheel") is not tagged manylinux_2_28_x86_64 (scripts/build_wheel.sh)" >&2; exit 1 ;;
esac
bash "$src/test/install/check_portable.sh" "$wheel"
echo "== installing $wheel into a fresh venv"
"$python" -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel"
site=$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
[ -x "$tmp/venv/bin/kfront" ] || { echo "wheel: FAIL: pip installed no console command kfront" >&2; exit 1; }
cd "$tmp"   # the installed package, not the source tree's python/
bash "$src/test/install/check_python_package.sh" "$tmp/venv/bin/python" "$tmp/venv/bin/kfront" "$site"
