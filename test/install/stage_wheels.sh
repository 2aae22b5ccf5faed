#!/usr/bin/env bash
# stage_wheels.sh — prepares issue 27's GPU acceptance (test/install/run_wheel_gpu.sh) for the device tool, whose
# calls carry at most 64 MiB: kfront's wheel (built here unless given), NVIDIA's CUDA 13.0 wheels that `[cu13]` pulls
# (cuda-toolkit with nvvm and nvrtc, nvjitlink: 13.0 to match the GPU machine's driver) and NumPy for the machine's
# Python 3.12, all from PyPI, in one tar cut into parts of 50 MB under DEST (default .stage, which .gitignore
# ignores, so it travels only when carried), with its SHA-256. Prints the device calls to make, one part each,
# back to back (the machine stays warm 30 s after a call), the last one joining, checking and running the test.
#
#   test/install/stage_wheels.sh [DEST] [WHEEL]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
dest=${1:-$src/.stage}
case $dest in /*) ;; *) dest=$PWD/$dest ;; esac
wheel=${2:-}
python=${PYTHON:-$src/build/venv/bin/python}
[ -x "$python" ] || python=python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/w"
if [ -z "$wheel" ]; then
  echo "== building kfront's wheel (scripts/build_wheel.sh: manylinux_2_28)"
  wheel=$(PYTHON=$python bash "$src/scripts/build_wheel.sh" "$src/build/dist" | tee /dev/stderr | tail -n1)
fi
cp "$wheel" "$tmp/w/"
echo "== NVIDIA's CUDA 13.0 wheels and NumPy for CPython 3.12 (manylinux)"
"$python" -m pip download -q --disable-pip-version-check --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d "$tmp/w" "cuda-toolkit[nvvm,nvrtc]==13.0.*" "nvidia-nvjitlink>=13,<13.1" \
  "numpy>=1.24"
(cd "$tmp/w" && sha256sum ./*.whl >SHA256SUMS)
rm -rf "$dest"
mkdir -p "$dest"
tar -C "$tmp" -cf "$tmp/wheels.tar" w
(cd "$tmp" && sha256sum wheels.tar >"$dest/wheels.sha")
split -b 50000000 -d -a 1 "$tmp/wheels.tar" "$dest/p"
parts=$(cd "$dest" && ls p? | tr '\n' ' ')
rel=${dest#"$src"/}
echo "== $(du -sh "$dest" | cut -f1) in $rel: $parts"
echo "device calls (kind nvidia-h200), one after the other:"
last=${parts% }
last=${last##* }
for p in $parts; do
  if [ "$p" != "$last" ]; then
    echo "  carry [\"$rel/$p\"]: mkdir -p /tmp/kfst && cp $rel/$p /tmp/kfst/"
  else
    echo "  carry [\"$rel/$p\", \"$rel/wheels.sha\"]: cd /tmp/kfst && cp \"\$OLDPWD/$rel/$p\" \"\$OLDPWD/$rel/wheels.sha\" ." \
         "&& cat p? > wheels.tar && sha256sum -c wheels.sha && tar -xf wheels.tar && (cd w && sha256sum -c SHA256SUMS)" \
         "&& cd \"\$OLDPWD\" && bash test/install/run_wheel_gpu.sh /tmp/kfst/w"
  fi
done
