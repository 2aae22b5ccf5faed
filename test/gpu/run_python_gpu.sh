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
[ -d "$dest/acceptance" ] && export KFRONT_ACCEPTANCE_DIR="$dest/acceptance"
unset KFRONT_SIM NUMBA_ENABLE_CUDASIM
# the whole log goes to $OUT/python_gpu.log where the device tool's $OUT is set; the output keeps every failure's
# and skip's summary line (-rfEs) and the end
log=${OUT:-$site}/python_gpu.log
python3 -m pytest -q -rfEs -p no:cacheprovider python/tests test/gpu/python >"$log" 2>&1
rc=$?
grep -E '^(FAILED|ERROR|SKIPPED) ' "$log" | head -60
tail -5 "$log"
exit $rc
