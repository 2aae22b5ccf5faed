#!/usr/bin/env bash
# run_compute_sanitizer.sh — a chosen set of the Python module's GPU tests under NVIDIA's compute-sanitizer, once
# per tool: memcheck (out-of-bounds and misaligned device accesses, leaks of device memory at exit), racecheck
# (shared-memory hazards between the threads of a block) and initcheck (device reads of global memory never
# written). On the GPU machine (through the device tool), with the folder bench/stage_gpu.sh made:
#
#   test/gpu/run_compute_sanitizer.sh DEST [TEST_FILE...]
#
# DEST/python goes on PYTHONPATH. The default files launch many small kernels of different kinds: the hostile-use
# table (its simulator-only rows skip themselves on a GPU), device memory and copies, the host API, barriers after
# exited threads (shared memory: racecheck's subject) and warp operations at different sites; pass others to run
# them instead. KFRONT_SANITIZER_TOOLS (default "memcheck racecheck initcheck") picks the tools,
# KFRONT_SANITIZER_EXTRA adds options to every tool's command line, KFRONT_SANITIZER_TIMEOUT (seconds per tool, default 180) bounds each run (the device tool allows 600 s a call:
# run one tool a call when the set is larger). Processes the tests start (fork, interpreter shutdown) are checked
# too (--target-processes all). Each tool's full log is sanitizer_<tool>.log under $OUT (or a temporary folder);
# the output is, per tool, compute-sanitizer's ERROR SUMMARY, the first reports, and pytest's totals, then one
# line per tool; the exit status is 0 only when every tool reported 0 errors and every test passed or skipped.
set -uo pipefail
dest=$(cd "${1:?usage: run_compute_sanitizer.sh DEST [TEST_FILE...]}" && pwd)
shift
cd "$(dirname "$0")/../.."
sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
[ -x "$sanitizer" ] || { echo "no compute-sanitizer ($sanitizer)"; exit 2; }
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(python/tests/test_hostile.py python/tests/test_cuda_memory.py
                                  test/gpu/python/test_host_api_gpu.py
                                  test/gpu/python/test_exited_barriers_vs_numba.py
                                  test/gpu/python/test_warp_sites_vs_numba.py)
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
# numba-cuda on NumPy 2. memcheck's leak report also counts numba-cuda's device memory alive at exit (the oracle's
# arrays in the *_vs_numba and host-API tests): test_host_api_gpu.py leaves 2 allocations (128 + 16 bytes) that a
# numba-cuda-only program leaves too, with nothing pending in its deallocation queue (test/gpu/probe/leakprobe.sh,
# probe2.sh; test/gpu/RESULTS.md 2026-12-02); test/gpu/run_memcheck_per_file.sh attributes leaks to a file.
printf 'import numpy as np\nnp.row_stack = np.vstack\n' > "$site/sitecustomize.py"
export PYTHONPATH="$dest/python:$site" KFRONT_TEST_GPU=1 KFRONT_CACHE_DIR="$site/cache"
unset KFRONT_SIM NUMBA_ENABLE_CUDASIM
if [ -z "${KFRONT_ORACLE_PYTHON:-}" ] && python3 -c 'import numba.cuda' 2>/dev/null; then
  export KFRONT_ORACLE_PYTHON=$(command -v python3)
fi
logdir=${OUT:-$site}
tools=${KFRONT_SANITIZER_TOOLS:-memcheck racecheck initcheck}
limit=${KFRONT_SANITIZER_TIMEOUT:-180}
echo "compute-sanitizer: $("$sanitizer" --version | grep -m1 -i version)"
echo "files: ${files[*]}"
summary=() status=0
for tool in $tools; do
  log=$logdir/sanitizer_$tool.log
  extra=()
  # memcheck: the driver-API errors of the other libraries in the process (numba-cuda's cuda-python probes
  # cuGetProcAddress for entry points this driver lacks) are not reported: kfront checks each of its own calls.
  # initcheck: the IPC test's child reads memory the parent process initialised, which initcheck (one process's
  # view) takes for uninitialised: deselected there.
  # memcheck: --show-backtrace device, as the host backtraces it saves at each allocation for its leak report keep
  # the Python frames of that moment alive (compute-sanitizer 2025.3 resolves Python frames): each frame's locals,
  # the device arrays among them, then outlive the frame, so memory is never freed and finalizers never run (the
  # flat-memory test of test_host_api_gpu.py failed so, test/gpu/RESULTS.md 2026-12-02). Errors still name the
  # kernel and the device-side location.
  [ "$tool" = memcheck ] && extra=(--leak-check full --report-api-errors no --show-backtrace device)
  # KFRONT_SANITIZER_EXTRA: more options for every tool (e.g. "--show-backtrace device")
  [ -n "${KFRONT_SANITIZER_EXTRA:-}" ] && read -r -a more <<<"$KFRONT_SANITIZER_EXTRA" && extra+=("${more[@]}")
  deselect=()
  [ "$tool" = initcheck ] && deselect=(--deselect
                                      test/gpu/python/test_host_api_gpu.py::test_ipc_array_written_in_a_spawned_process)
  start=$(date +%s)
  timeout -k 10 "$limit" "$sanitizer" --tool "$tool" "${extra[@]}" --target-processes all --print-limit 50 \
    --error-exitcode 86 python3 -m pytest -q -rfE -p no:cacheprovider "${deselect[@]}" "${files[@]}" >"$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  errors=$(grep -hoE 'ERROR SUMMARY: [0-9]+ errors?' "$log" | grep -oE '[0-9]+' | awk '{s += $1} END {print s + 0}')
  totals=$(grep -E '\b(passed|failed|error|errors|no tests ran)\b.* in [0-9.]+s' "$log" | tail -n1 | tr -d '=')
  echo "=== $tool (${secs}s, exit $rc): $errors error(s); pytest:${totals:- no summary}"
  # the first reports (each "=========     Invalid __global__ read ..." block's first lines) and failed tests
  grep -E '^========= +[A-Z]|^(FAILED|ERROR) ' "$log" | grep -v 'ERROR SUMMARY\|COMPUTE-SANITIZER' | head -n 30
  verdict=clean
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    verdict="timed out after ${limit}s (KFRONT_SANITIZER_TIMEOUT)"
  elif [ "$errors" -ne 0 ]; then
    verdict="$errors error(s)"
  elif [ "$rc" -ne 0 ] || [ -z "$totals" ] || echo "$totals" | grep -qE '[0-9]+ (failed|errors?)'; then
    verdict="tests failed (exit $rc)"
  fi
  [ "$verdict" = clean ] || status=1
  summary+=("$tool: $verdict;${totals:- no pytest summary}")
done
echo "=== summary"
printf '%s\n' "${summary[@]}"
exit $status
