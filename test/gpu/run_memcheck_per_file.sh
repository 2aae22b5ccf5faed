#!/usr/bin/env bash
# run_memcheck_per_file.sh — compute-sanitizer's memcheck (with its leak check) once per test file, in a process
# of its own each, so that device memory still allocated at exit is attributed to the file (and the process:
# --target-processes all follows the processes a test starts) that left it. On the GPU machine, with the folder
# bench/stage_gpu.sh made:
#
#   test/gpu/run_memcheck_per_file.sh DEST [TEST_FILE...]      (default: run_compute_sanitizer.sh's files)
#
# Prints, per file: memcheck's verdict line (from run_compute_sanitizer.sh), each "Leaked N bytes" report and
# each LEAK/ERROR SUMMARY with the process it belongs to; the logs are memcheck_<file>.log under $OUT. The exit
# status is 0 only when every file ran clean (no error, no leak, every test passed or skipped).
set -uo pipefail
dest=$(cd "${1:?usage: run_memcheck_per_file.sh DEST [TEST_FILE...]}" && pwd)
shift
cd "$(dirname "$0")/../.."
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(python/tests/test_hostile.py python/tests/test_cuda_memory.py
                                  test/gpu/python/test_host_api_gpu.py
                                  test/gpu/python/test_exited_barriers_vs_numba.py
                                  test/gpu/python/test_warp_sites_vs_numba.py)
out=${OUT:-$(mktemp -d)}
status=0
for f in "${files[@]}"; do
  name=$(basename "$f" .py)
  dir=$(mktemp -d)
  echo "### $f"
  OUT=$dir KFRONT_SANITIZER_TOOLS=memcheck KFRONT_SANITIZER_TIMEOUT=${KFRONT_SANITIZER_TIMEOUT:-150} \
    test/gpu/run_compute_sanitizer.sh "$dest" "$f" >"$dir/summary.txt" || status=1
  grep -E '^=== memcheck|^memcheck:' "$dir/summary.txt"
  log=$dir/sanitizer_memcheck.log
  cp "$log" "$out/memcheck_$name.log" 2>/dev/null
  # compute-sanitizer names each process it follows in its reports' first lines ("Process ID"/"pid")
  grep -nE 'Leaked [0-9]+ bytes|LEAK SUMMARY|ERROR SUMMARY|Process|COMPUTE-SANITIZER$' "$log" | grep -v '^$' | head -n 40
  grep -qE 'Leaked [0-9]+ bytes' "$log" && status=1
  rm -rf "$dir"
done
exit $status
