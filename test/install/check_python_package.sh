#!/usr/bin/env bash
# check_python_package.sh — checks an installed kfront Python package and its console command `kfront`, on the
# simulator (run by run_python_install_test.sh, ctest's install/python, and by run_wheel_test.sh on a built wheel):
#
#   test/install/check_python_package.sh PYTHON KFRONT SITE
#   (PYTHON imports the installed kfront; KFRONT is its console command; SITE the folder the package is in)
#
# 1. `kfront --version` names the package's version;
# 2. the command finds NVIDIA's pip wheels beside the package (a fake CUDA 13 wheel in SITE: symlinks to the
#    system toolkit's libraries, the toolkit itself hidden) and compiles a seed kernel to PTX with its libNVVM;
# 3. the seed programs' launches through `kfront run`, checked against NumPy (test/gpu/run_gpu_tests.sh);
# 4. a seed program run unchanged by `python -m kfront`.
# Any failure fails the check (never a skip); ends "python package: ok".
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 PYTHON KFRONT SITE" >&2; exit 2; }
python=$1 kfront=$2 site=$3
src=$(cd "$(dirname "$0")/../.." && pwd)
seeds=$src/test/acceptance/seeds
toolkit=${CUDA_HOME:-/usr/local/cuda}
export KFRONT_SIM=1
export PATH="$(dirname "$python"):$PATH"    # run_gpu_tests.sh's python3 (NumPy) is the package's
fail() { echo "python package: FAIL: $*" >&2; exit 1; }

echo "== 1. kfront --version"
version=$("$python" -c 'import kfront; print(kfront.__version__)') || fail "$python cannot import kfront"
out=$("$kfront" --version) || fail "kfront --version exited $?"
echo "$out"
[ "$(echo "$out" | head -n1)" = "kfront $version" ] || fail "kfront --version does not say 'kfront $version'"

echo "== 2. NVIDIA's wheels beside the package found by the console command"
[ -f "$toolkit/lib64/libnvvm.so" ] && [ -f "$toolkit/nvvm/libdevice/libdevice.10.bc" ] ||
  fail "no CUDA toolkit at $toolkit to make a fake wheel from (set CUDA_HOME)"
fake=$site/nvidia/cu13
[ ! -e "$site/nvidia" ] || fail "$site/nvidia exists already: not a scratch installation"
mkdir -p "$fake/lib" "$fake/nvvm/libdevice"
trap 'rm -rf "$site/nvidia"' EXIT
ln -s "$toolkit/lib64/libnvvm.so" "$fake/lib/"
ln -s "$toolkit/nvvm/libdevice/libdevice.10.bc" "$fake/nvvm/libdevice/"
hidden=(env -u CUDA_HOME -u CUDA_PATH -u CONDA_PREFIX -u KFRONT_LIBNVVM -u KFRONT_LIBDEVICE -u KFRONT_SITE_PACKAGES
        KFRONT_SYSTEM_TOOLKIT=/nonexistent)
out=$("${hidden[@]}" "$kfront" --version) || fail "kfront --version exited $?"
echo "$out" | grep -q "^libNVVM .*: $fake/lib/libnvvm.so$" || { echo "$out"; fail "libNVVM not found in $fake/lib"; }
ptx=$("${hidden[@]}" "$kfront" compile "$seeds/s000_kernels.py" -k add --sig 'void(int64[:], int64[:], int64[:])' \
      --emit=ptx -o -) || fail "kfront compile exited $?"
echo "$ptx" | grep -q '^.visible .entry' || fail "kfront compile wrote no kernel"
echo "  libNVVM from $fake/lib; s000_kernels.py add compiled to PTX ($(echo "$ptx" | wc -l) lines)"
rm -rf "$site/nvidia"

echo "== 3. the seed launches through kfront run (simulator)"
# (no build tree given: its two C unit-test cases, not the package's, are skipped there)
KFRONT=$kfront bash "$src/test/gpu/run_gpu_tests.sh" "$site/no-build-tree" || fail "the seed launches"

echo "== 4. a seed program through python -m kfront (simulator)"
(cd "$seeds" && "$python" -m kfront s000_kernels.py) || fail "python -m kfront s000_kernels.py exited $?"
echo "python package: ok"
