#!/usr/bin/env bash
# run_difftest_gpu.sh — the differential fuzzer's programs (test/difftest) on the GPU machine: each generated
# kernel runs with kfront on the GPU and on kfront's simulator, outputs compared exactly (and with numba-cuda on
# the GPU too where it imports there); one summary line at the end, rc 0 when nothing differs.
#   test/gpu/run_difftest_gpu.sh DEST [COUNT] [START]
# DEST: the folder bench/stage_gpu.sh made (DEST/python on PYTHONPATH), or build/ of a local build.
# COUNT programs from seed START (defaults 2000 and 0; the bounded ctest range is 0..219).
set -uo pipefail
dest=$(cd "${1:?usage: run_difftest_gpu.sh DEST [COUNT] [START]}" && pwd)
count=${2:-2000}
start=${3:-0}
cd "$(dirname "$0")/../.."
export PYTHONPATH="$dest/python"
unset KFRONT_SIM NUMBA_ENABLE_CUDASIM
numba=()
if python3 -c 'import numpy as np; np.row_stack = np.vstack; from numba import cuda; assert cuda.is_available()' \
    2>/dev/null; then
  numba=(--numba-gpu)
  echo "difftest-gpu: numba-cuda imports here: its GPU results are compared too"
else
  echo "difftest-gpu: numba-cuda not importable here: kfront GPU against kfront's simulator only"
fi
log=${OUT:-/tmp}/difftest_gpu.jsonl
python3 test/difftest/difftest.py --kfront-gpu "${numba[@]}" --seed-start "$start" --count "$count" \
  --jobs "$(nproc 2>/dev/null | awk '{print ($1 > 8) ? 8 : $1}')" --out "$log"
