#!/usr/bin/env bash
# build.sh — the main job on a fresh machine: installs what is missing, builds kfront (Release-with-debug-info,
# LLVM linked statically), installs its Python module (pip install .) into the project's virtual environment
# build/venv (scripts/python_env.sh), compiles every seed kernel of the manifest to PTX, and runs the seed
# programs' launches with `kfront run` — on the GPU when a CUDA driver and device are present, on the simulator
# otherwise — checking each result against NumPy.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
# the project's virtual environment first on PATH (scripts/python_env.sh): every python3 and pip below is its own
py=$(./scripts/python_env.sh | tail -n1)
. "$(dirname "$py")/activate"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPython3_EXECUTABLE="$py" -DPYTHON3="$py" >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)"
echo "== installing the Python module into build/venv (python3 -m pip install .; its build folder build/python-wheel is kept) =="
python3 -m pip install -q --no-build-isolation . 2>&1 | grep -v "Running pip as the 'root' user" || true
python3 -c 'import kfront.cuda, sys; print("  kfront", kfront.__version__, "for Python", sys.version.split()[0])'

seeds=test/acceptance/seeds
echo "== compiling the seed kernels to PTX (build/seeds-ptx/) =="
mkdir -p build/seeds-ptx
grep -v '^#' "$seeds/manifest.tsv" | while IFS=$'\t' read -r file func sig expect; do
  [ "$expect" = ptx ] || continue
  out="build/seeds-ptx/${func}-$(echo "$sig" | tr -c 'a-z0-9' '_' | cut -c1-40).ptx"
  build/bin/kfront compile "$seeds/$file" -k "$func" --sig "$sig" --emit=ptx -o "$out"
  echo "  $file $func $sig -> $out"
done
echo "== running the seed launches (kfront run) =="
test/gpu/run_gpu_tests.sh "$PWD/build"
