#!/usr/bin/env bash
# run_python_install_test.sh — ctest's install/python: the Python package as `pip install .` lays it out, from a
# built tree and in seconds (the wheel itself: run_wheel_test.sh).
#
#   test/install/run_python_install_test.sh BUILD_DIR PYTHON
#
# `cmake --install BUILD_DIR --component python` (what scikit-build-core installs into the wheel: the package's
# Python files, the extension, kfront/_bin/kfront) into a fresh folder, a console command `kfront` made as pip
# makes it from pyproject.toml's [project.scripts] entry, then check_python_package.sh on the two.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR PYTHON" >&2; exit 2; }
build=$(cd "$1" && pwd)
python=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kfront-python-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
site=$tmp/site-packages

"${CMAKE:-cmake}" --install "$build" --component python --prefix "$site" >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log" >&2; echo "install/python: FAIL: cmake --install --component python" >&2; exit 1; }
for f in kfront/__init__.py kfront/_cli.py kfront/_kfront.abi3.so kfront/_bin/kfront; do
  [ -e "$site/$f" ] || { echo "install/python: FAIL: the install has no $f" >&2; exit 1; }
done
# the entry point as pyproject.toml declares it, in the script pip writes for a console entry
entry=$(sed -n '/^\[project.scripts\]/,/^\[/s/^kfront = "\(.*\)"$/\1/p' "$here/../../pyproject.toml")
[ -n "$entry" ] || { echo "install/python: FAIL: pyproject.toml's [project.scripts] has no kfront" >&2; exit 1; }
module=${entry%%:*} func=${entry#*:}
mkdir -p "$tmp/bin"
printf '#!%s\nimport sys\nfrom %s import %s\nsys.exit(%s())\n' "$python" "$module" "$func" "$func" >"$tmp/bin/kfront"
chmod +x "$tmp/bin/kfront"
export PYTHONPATH=$site
bash "$here/check_python_package.sh" "$python" "$tmp/bin/kfront" "$site"
