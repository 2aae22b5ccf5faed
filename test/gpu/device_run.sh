#!/usr/bin/env bash
# device_run.sh — everything kfront checks and measures on a GPU machine, in one command (the lead runs it
# through the device tool with a staged build: bench/stage_gpu.sh build build/gpu; carry build/gpu):
#   1. the GPU suite: test/gpu/run_gpu_tests.sh (seed launches vs NumPy, IndexError, context survives, cache),
#      then test/gpu/backend_gpu.c (op semantics on the GPU through both backends, the error record)
#   2. every `ptx` row of the seed manifest compiled by kfront and loaded by the driver (cuModuleLoadData via
#      CuPy), with the kernel's register count
#   3. the benchmarks against Numba: bench/run_gpu_bench.sh
#   test/gpu/device_run.sh [STAGED_DIR]        (default build/gpu)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
stage=${1:-build/gpu}
case $stage in /*) ;; *) stage=$root/$stage ;; esac
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
log=${OUT:+$OUT/gpu_tests.log}
log=${log:-/dev/null}
{
  echo "=== $(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
  echo "=== 1. GPU suite"
  KFRONT=$stage/bin/kfront test/gpu/run_gpu_tests.sh "$stage"
  echo "=== 1b. backend on the GPU (test/gpu/backend_gpu.c)"
  # the failures (the first 40), the op-semantics report (libm differences in ulps) and the summary
  "$stage/bin/backend_gpu" | grep -E '^FAIL|^op semantics|^backend |check\(s\)' | head -n 80
  echo "=== 2. seed kernels: PTX loaded by the driver"
  seeds=test/acceptance/seeds
  manifest=$seeds/manifest.tsv
  tmp=$(mktemp -d)
  n=0
  grep -v '^#' "$manifest" | while IFS=$'\t' read -r file func sig expect; do
    [ "$expect" = ptx ] || continue
    n=$((n + 1))
    out=$tmp/$n.ptx
    if ! "$stage/bin/kfront" compile "$seeds/$file" -k "$func" --sig "$sig" --emit=ptx -o "$out"; then
      echo "FAIL load $file $func $sig: compile failed"; continue
    fi
    python3 - "$out" "$file" "$func" "$sig" <<'PY'
import sys, re, cupy
ptx_path, file, func, sig = sys.argv[1:5]
ptx = open(ptx_path).read()
entries = re.findall(r"\.entry\s+([A-Za-z0-9_$]+)\(", ptx)
try:
    mod = cupy.RawModule(code=ptx, backend="nvcc") if False else cupy.RawModule(path=ptx_path)
    regs = []
    for e in entries:
        f = mod.get_function(e)
        regs.append(f"{e}: {f.num_regs} regs")
    print(f"PASS load {file} {func} {sig} ({'; '.join(regs)})")
except Exception as ex:
    print(f"FAIL load {file} {func} {sig}: {ex}")
PY
  done
  rm -rf "$tmp"
  echo "=== 3. benchmarks"
  bench/run_gpu_bench.sh "$stage"
} 2>&1 | tee "$log"
