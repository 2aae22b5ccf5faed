#!/usr/bin/env bash
# run_python_gpu.sh — the Python module's GPU suite, on the GPU machine (through the device tool):
#   test/gpu/run_python_gpu.sh DEST          (DEST: the folder bench/stage_gpu.sh made; DEST/python on PYTHONPATH)
# 1. python/tests (the simulator suite of CI) on the GPU; 2. every acceptance program, gpu+cupy ones included
#    (KFRONT_TEST_GPU=1); 3. test/gpu/python (CuPy and PyTorch interop, streams, events, asynchronous errors;
#    managed and mapped memory, IPC handles of views and foreign arrays, EMM plugins (test_driver_api_gpu.py);
#    views, tuple arguments, zip/enumerate and print(), vector types, operator functions, run-time slice steps and
#    slice assignment, conditional values of tuples, slice objects and grid groups in device functions
#    (test_control_vs_numba.py), tuple comparisons and run-time tuple indices (test_tuples_vs_numba.py), barriers,
#    grid barriers and warp ops after threads exited (test_exited_barriers_vs_numba.py), namedtuple arguments and
#    0-d arrays (test_language_values_vs_numba.py), warp ops at different sites (test_warp_sites_vs_numba.py)
#    against numba-cuda on the same kernels; the return types of about 2,000 expressions
#    against numba-cuda's typing, test_typing_vs_numba.py).
# numba-cuda needs np.row_stack on NumPy 2: sitecustomize in a temporary folder sets it for every process.
set -uo pipefail
dest=$(cd "${1:?usage: run_python_gpu.sh DEST}" && pwd)
cd "$(dirname "$0")/../.."
site=$(mktemp -d)
printf 'import numpy as np\nnp.row_stack = np.vstack\n' > "$site/sitecustomize.py"
export PYTHONPATH="$dest/python:$site" KFRONT_TEST_GPU=1 KFRONT_CACHE_DIR="$site/cache" KFRONT_BIN="$dest/bin/kfront"
unset KFRONT_SIM NUMBA_ENABLE_CUDASIM
# the oracle (scripts/oracle_env.sh) is the machine's own numba-cuda: there is no package registry to make a venv from
if [ -z "${KFRONT_ORACLE_PYTHON:-}" ] && python3 -c 'import numba.cuda' 2>/dev/null; then
  export KFRONT_ORACLE_PYTHON=$(command -v python3)
fi
# Every test file runs in a pytest process of its own, KFRONT_GPU_PYTEST_JOBS (default 4) at a time, largest first
# (KFRONT_GPU_PYTEST_FILES, space-separated paths, runs only those):
# a kernel fault leaves a process's CUDA context unusable, and this way it fails only its own file's later tests (and
# the suite, too long for one device call serially, fits in one). Each file's log is logs/<file>.log under $OUT
# (where the device tool's $OUT is set; all of them also in python_gpu_logs.tgz, which comes back as one file) and
# python_gpu.log is their concatenation; the output keeps every failure's and skip's summary line (-rfEs), each
# file's counts and the totals.
logdir=${OUT:-$site}
mkdir -p "$logdir/logs"
jobs=${KFRONT_GPU_PYTEST_JOBS:-4}
# KFRONT_GPU_PYTEST_DEADLINE=S (seconds, default none) stops the files still running then, so that the logs, the
# archive and the summary still come back within a device call (a file stopped so has "no summary")
deadline=${KFRONT_GPU_PYTEST_DEADLINE:-0}
ls -S ${KFRONT_GPU_PYTEST_FILES:-python/tests/test_*.py test/gpu/python/test_*.py} |
  LOGDIR=$logdir/logs timeout --kill-after=10 "$deadline" xargs -P "$jobs" -I{} sh -c \
    'python3 -m pytest -q -rfEs -p no:cacheprovider "$1" >"$LOGDIR/$(basename "$1" .py).log" 2>&1' _ {}
cat "$logdir"/logs/*.log >"$logdir/python_gpu.log"
tar -czf "$logdir/python_gpu_logs.tgz" -C "$logdir" logs
grep -hE '^(FAILED|ERROR|SKIPPED) ' "$logdir"/logs/*.log | head -80
python3 - "$logdir/logs" <<'PY'
import os, re, sys
total, bad = {}, []
for name in sorted(os.listdir(sys.argv[1])):
    text = open(os.path.join(sys.argv[1], name), errors="replace").read()
    lines = [l for l in text.splitlines() if re.search(r"\b(passed|failed|skipped|error|errors|no tests ran)\b.* in [0-9.]+s", l)]
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)", lines[-1])} \
        if lines else {}
    counts["errors"] = counts.pop("error", 0) + counts.get("errors", 0)
    if not lines or counts.get("failed") or counts["errors"]:
        bad.append("%s: %s" % (name[:-4], lines[-1].strip("= ") if lines else "no summary (crashed or killed)"))
    for k, v in counts.items():
        total[k] = total.get(k, 0) + v
print("\n".join(bad))
print(", ".join("%d %s" % (v, k) for k, v in sorted(total.items()) if v) + " (%d files)" % len(os.listdir(sys.argv[1])))
sys.exit(1 if bad else 0)
PY
