#!/usr/bin/env bash
# run_all_checks.sh — every GPU check of the suite, benchmarks aside, in one command on the GPU machine (the
# device tool; carry the folder bench/stage_gpu.sh made):
#   test/gpu/run_all_checks.sh DEST [PART...]      PART: c, backend, python, difftest (default: all four)
#   c         test/gpu/run_gpu_tests.sh (seed launches against NumPy, IndexError, context, cache)
#   backend   DEST/bin/backend_gpu (op semantics on the GPU through both backends)
#   python    test/gpu/run_python_gpu.sh (python/tests and test/gpu/python, numba-cuda beside)
#   difftest  test/gpu/run_difftest_gpu.sh (generated programs: kfront on the GPU, its simulator, numba-cuda)
# Each part runs under its own time limit (KFRONT_GPU_PART_LIMIT seconds, default 420; the difftest part
# KFRONT_DIFFTEST_COUNT programs, default 2000) so one that hangs does not take the others' time; its log goes to
# $OUT/<part>.log where the device tool's $OUT is set. The last lines say what each part gave.
set -uo pipefail
dest=$(cd "${1:?usage: run_all_checks.sh DEST [PART...]}" && pwd)
shift
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(c backend python difftest)
cd "$(dirname "$0")/../.."
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda} PYTHONUNBUFFERED=1
out=${OUT:-$(mktemp -d)}
limit=${KFRONT_GPU_PART_LIMIT:-420}
echo "=== $(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
summary=()
for part in "${parts[@]}"; do
  log=$out/$part.log
  start=$(date +%s)
  case $part in
    c) KFRONT=$dest/bin/kfront timeout "$limit" test/gpu/run_gpu_tests.sh "$dest" >"$log" 2>&1 ;;
    backend) timeout "$limit" "$dest/bin/backend_gpu" >"$log" 2>&1 ;;
    python) timeout "$limit" test/gpu/run_python_gpu.sh "$dest" >"$log" 2>&1 ;;
    difftest) timeout "$limit" test/gpu/run_difftest_gpu.sh "$dest" "${KFRONT_DIFFTEST_COUNT:-2000}" >"$log" 2>&1 ;;
    *) echo "run_all_checks: unknown part $part" >"$log"; false ;;
  esac
  rc=$?
  echo "=== $part: rc $rc, $(($(date +%s) - start)) s"
  case $part in
    backend) grep -E '^FAIL|^op semantics|^backend |check\(s\)' "$log" | head -n 40 ;;
    python) grep -E '^(FAILED|ERROR) ' "$log" | head -n 60; tail -n 3 "$log" ;;
    *) grep -E 'FAIL|differ|mismatch' "$log" | head -n 40; tail -n 3 "$log" ;;
  esac
  summary+=("$part rc=$rc")
done
echo "=== summary: ${summary[*]}"
