#!/usr/bin/env bash
# run_in_one_call.sh — the GPU checks of a session in one device call (the device tool gives a session one or two
# calls of at most 600 s), run side by side on the GPU machine's 16 cores and stopped at a deadline, so that what
# ran comes back as a few files (the tool returns about eight):
#
#   test/gpu/run_in_one_call.sh DEST PREPARED [SECONDS] [DIFFTEST_SEED...]
#
#   DEST       the folder bench/stage_gpu.sh made; PREPARED the conformance tests prepared for the GPU machine
#              (test/gpu/run_conformance_gpu.sh says how)
#   SECONDS    the deadline of the long parts (default 330)
#   DIFFTEST_SEED  programs of the differential fuzzer whose numba-cuda GPU result differed: each is minimised
#              with kfront on the GPU, its simulator and numba-cuda on the GPU (difftest.py --minimize)
#
# Into $OUT: system.txt (kfront -s), c.txt (test/gpu/run_gpu_tests.sh), python.txt and python_gpu_logs.tgz
# (test/gpu/run_python_gpu.sh, 8 files at a time), conf.txt, conformance.tgz and conformance_logs.tgz
# (run_conformance_gpu.sh, kfront against the committed numba-cuda baseline), minimize.txt.
set -uo pipefail
dest=$(cd "${1:?usage: run_in_one_call.sh DEST PREPARED [SECONDS] [SEED...]}" && pwd)
prepared=$(cd "${2:?usage: run_in_one_call.sh DEST PREPARED [SECONDS] [SEED...]}" && pwd)
deadline=${3:-330}
shift $(($# > 2 ? 3 : 2))
cd "$(dirname "$0")/../.."
out=${OUT:?run_in_one_call.sh writes into OUT, the device tool folder}
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; "$dest/bin/kfront" -s; } \
  >"$out/system.txt" 2>&1
(KFRONT="$dest/bin/kfront" timeout "$deadline" test/gpu/run_gpu_tests.sh "$dest" >"$out/c.txt" 2>&1
 echo "rc=$?" >>"$out/c.txt") &
(KFRONT_GPU_PYTEST_JOBS=8 KFRONT_GPU_PYTEST_DEADLINE=$deadline test/gpu/run_python_gpu.sh "$dest" \
   >"$out/python.txt" 2>&1; echo "rc=$?" >>"$out/python.txt") &
(KFRONT_CONFORMANCE_TARGETS=kfront KFRONT_CONFORMANCE_JOBS=6 timeout "$deadline" test/gpu/run_conformance_gpu.sh \
   "$dest" "$prepared" >"$out/conf.txt" 2>&1; echo "rc=$?" >>"$out/conf.txt") &
(for seed in "$@"; do
   echo "=== seed $seed"
   PYTHONPATH="$dest/python" timeout $((deadline / 2)) python3 test/difftest/difftest.py --kfront-gpu --numba-gpu \
     --minimize "$seed"
 done >"$out/minimize.txt" 2>&1) &
wait
rm -rf "$out/logs" "$out/python_gpu.log"  # (in python_gpu_logs.tgz)
for f in system c python conf minimize; do echo "== $f"; tail -n 12 "$out/$f.txt"; done
