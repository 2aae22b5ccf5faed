#!/usr/bin/env bash
# run_gpu_bench.sh — every kfront-vs-Numba benchmark in one go, on the GPU machine, from the repository root:
#
#   bench/run_gpu_bench.sh [BUILD_DIR]      (default: build; needs BUILD_DIR/bin/kfront,
#                                            BUILD_DIR/bin/bench_dispatch, BUILD_DIR/lib/libkfront.so:
#                                            bench/stage_gpu.sh makes such a folder small enough to carry)
#
# Runs bench/compile_vs_numba.py, BUILD_DIR/bin/bench_dispatch, bench/first_launch.py,
# bench/kernels_vs_numba.py and bench/linking_vs_numba.py (each under a time limit; about 2-3 minutes in all on
# an H100), after the GPU's name, driver, the date and the tool versions. The full output goes to $OUT/bench.log when $OUT is set (and the steps'
# JSON results to $OUT/bench/); a short summary table is printed last. Builds nothing.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${1:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
export KFRONT_BUILD=$build
[ -z "${CUDA_HOME:-}" ] && [ -d /usr/local/cuda ] && export CUDA_HOME=/usr/local/cuda
if [ -n "${OUT:-}" ]; then
  res=$OUT/bench
  log=$OUT/bench.log
else
  res=$(mktemp -d "${TMPDIR:-/tmp}/kfront-bench.XXXXXX")
  log=/dev/null
fi
mkdir -p "$res"
: >"$log" 2>/dev/null || log=/dev/null
limit() { if command -v timeout >/dev/null; then timeout "$@"; else shift; "$@"; fi; }

{
  echo "=== kfront GPU benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), $(hostname)"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm,power.limit --format=csv
  else
    echo "no nvidia-smi"
  fi
  echo "build: $build"
  ls -la "$build/bin/kfront" "$build/bin/bench_dispatch" "$build/lib/libkfront.so" 2>&1
  python3 - <<'EOF'
import sys
from importlib.metadata import version
out = ["python " + sys.version.split()[0]]
for p in ("numpy", "numba", "numba-cuda", "cupy", "cupy-cuda12x", "cupy-cuda13x"):
    try:
        out.append("%s %s" % (p, version(p)))
    except Exception:
        pass
print(", ".join(out))
EOF
  echo
  echo "=== 1. compile time: kfront vs numba compile_ptx (bench/compile_vs_numba.py)"
  limit 150 python3 bench/compile_vs_numba.py --reps 15 --json "$res/compile.json"
  echo "(exit $?)"
  echo
  echo "=== 2. launch overhead: kf_launch vs raw cuLaunchKernel ($build/bin/bench_dispatch)"
  limit 90 "$build/bin/bench_dispatch" 10000 9 2>&1 | tee "$res/launch.txt"
  echo "(exit ${PIPESTATUS[0]})"
  echo
  echo "=== 3. first launch in a fresh process (bench/first_launch.py)"
  limit 150 python3 bench/first_launch.py --reps 3 --json "$res/first.json"
  echo "(exit $?)"
  echo
  echo "=== 4. kernel time: kfront vs numba (bench/kernels_vs_numba.py)"
  limit 150 python3 bench/kernels_vs_numba.py --reps 20 --json "$res/kernels.json"
  echo "(exit $?)"
  echo
  echo "=== 5. foreign code linked, LTO on and off: kfront vs numba-cuda (bench/linking_vs_numba.py)"
  limit 150 python3 bench/linking_vs_numba.py --json "$res/linking.json"
  echo "(exit $?)"
  echo
  echo "=== 6. histograms and atomics into few bins: kfront vs numba-cuda (bench/atomics_vs_numba.py)"
  limit 300 python3 bench/atomics_vs_numba.py --reps 7 --json "$res/atomics.json"
  echo "(exit $?)"
  echo
  echo "=== summary ($(date -u '+%Y-%m-%d %H:%M UTC'); full output above${OUT:+ and in $OUT/bench.log})"
  python3 bench/bench_summary.py "$res"
} 2>&1 | tee -a "$log"
