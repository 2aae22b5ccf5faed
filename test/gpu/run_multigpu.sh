#!/usr/bin/env bash
# run_multigpu.sh — the checks and measurements of several GPUs (issue 14), on a machine with 2 or more GPUs
# (through the device tool, with a staged build: bench/stage_gpu.sh build-bench build-bench/gpu; carry that):
#
#   test/gpu/run_multigpu.sh [DEST]        (DEST: the folder bench/stage_gpu.sh made; default build-bench/gpu)
#
#   1. DEST/bin/unit_runtime_devices --auto: the C API's multi-device checks on the real GPUs (a runtime per device,
#      the thread's current device, wrong-device arrays and streams refused, copies between devices)
#   2. python/tests/test_cuda_devices.py and test_examples.py on the GPUs (cuda.gpus, select_device, per-thread
#      selection, arrays per device, peer copies, caches per device, DLPack's device id)
#   3. examples/multigpu_allreduce.py under torchrun with 2 processes (checked against NumPy), and with 1 process
#      on the same total work (the scaling of the example: its kernel and all-reduce times)
#   4. bench/multigpu.py: 2 GPUs against 1 on one process, and the copy between GPUs against CuPy's
# Prints the date, the GPUs, their topology, PASS/FAIL per step, then "N passed, N failed"; the output goes to
# $OUT/multigpu.log too when $OUT is set (and the benchmark's JSON to $OUT/multigpu.json). With fewer than 2 GPUs
# it says NOT RUN and exits with status 2, running nothing.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
dest=${1:-build-bench/gpu}
case $dest in /*) ;; *) dest=$root/$dest ;; esac
log=${OUT:+$OUT/multigpu.log}
log=${log:-/dev/null}
limit() { if command -v timeout >/dev/null; then timeout "$@"; else shift; "$@"; fi; }

ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
if [ "${ngpu:-0}" -lt 2 ]; then
  echo "run_multigpu: NOT RUN: needs 2 GPUs, this machine has ${ngpu:-0} (nothing was checked or measured)" | tee "$log"
  exit 2
fi
if [ ! -x "$dest/bin/unit_runtime_devices" ] || [ ! -d "$dest/python/kfront" ]; then
  echo "run_multigpu: no staged build at $dest (bench/stage_gpu.sh BUILD DEST makes one)" | tee "$log"
  echo "0 passed, 1 failed"
  exit 1
fi
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
printf 'import numpy as np\nnp.row_stack = np.vstack\n' > "$site/sitecustomize.py"
export PYTHONPATH="$dest/python:$site" KFRONT_CACHE_DIR="$site/cache" KFRONT_TEST_GPU=1
[ -z "${CUDA_HOME:-}" ] && [ -d /usr/local/cuda ] && export CUDA_HOME=/usr/local/cuda
unset KFRONT_SIM NUMBA_ENABLE_CUDASIM KFRONT_SIM_DEVICES

passed=0 failed=0
step() {  # NAME COMMAND...: runs it, PASS when it exits 0
  local name=$1; shift
  echo "--- $name"
  if "$@"; then echo "PASS $name"; passed=$((passed + 1)); else echo "FAIL $name (exit $?)"; failed=$((failed + 1)); fi
}
[ "$log" = /dev/null ] || exec > >(tee "$log") 2>&1  # (a pipe into tee would run the steps in a subshell)
echo "=== run_multigpu $(date -u '+%Y-%m-%d %H:%M UTC') $(hostname)"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
nvidia-smi topo -m 2>/dev/null | head -n $((ngpu + 2))
python3 -c "import torch; print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version())" 2>&1 | tail -n 1
step "C API on the GPUs (unit_runtime_devices --auto)" limit 300 "$dest/bin/unit_runtime_devices" --auto
step "python/tests/test_cuda_devices.py + test_examples.py on the GPUs" limit 300 \
  python3 -m pytest -q -rs -p no:cacheprovider python/tests/test_cuda_devices.py python/tests/test_examples.py
step "examples/multigpu_allreduce.py, 2 processes (torchrun, NCCL)" limit 300 \
  python3 -m torch.distributed.run --standalone --nproc_per_node=2 examples/multigpu_allreduce.py --repeat 20
step "examples/multigpu_allreduce.py, 1 process (the same total work)" limit 300 \
  python3 -m torch.distributed.run --standalone --nproc_per_node=1 examples/multigpu_allreduce.py --repeat 20
step "bench/multigpu.py (2 GPUs vs 1; copy between GPUs vs CuPy)" limit 300 \
  python3 bench/multigpu.py --reps 20 ${OUT:+--json "$OUT/multigpu.json"}
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
