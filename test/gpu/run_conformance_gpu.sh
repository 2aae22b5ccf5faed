#!/usr/bin/env bash
# run_conformance_gpu.sh — the conformance gauge on the GPU machine: numba-cuda 0.30.4's own tests (cudapy,
# cudadrv, nocuda, doc_examples) run by numba-cuda on the GPU (the baseline) and by kfront on the GPU, then the
# report (test/conformance/RESULTS.md, CLASSIFICATION.md, classification-gpu.tsv):
#   test/gpu/run_conformance_gpu.sh STAGED PREPARED [--module M ...] [--jobs N]
#   (8 modules at a time by default, KFRONT_CONFORMANCE_JOBS: both targets in about 5 minutes on 16 cores;
#   KFRONT_CONFORMANCE_TARGETS=kfront runs kfront only, against the committed numba-cuda-gpu baseline)
#     STAGED    the folder bench/stage_gpu.sh made (STAGED/python holds the kfront package)
#     PREPARED  made here by `test/conformance/conformance.py prepare --dest build/conformance/prepared-gpu
#               --with-pytest --for-python 3.12` (numba-cuda's tests, pytest, filecheck and the tests' binary
#               dependencies for the GPU machine's Python): the GPU machine has no package registry
# The machine's python3 must have numba-cuda 0.30.4 (and numba); NumPy 2.5's missing np.row_stack is set by
# test/conformance/boot/conformance_boot.py. Results go to test/conformance/results/{numba-cuda,kfront}-gpu and,
# where the device tool's $OUT is set, them in $OUT/conformance.tgz (bring it back, unpack it at the root, commit)
# and the logs in $OUT/conformance_logs.tgz. Prints one summary line per target and the report's totals.
set -uo pipefail
staged=$(cd "${1:?usage: run_conformance_gpu.sh STAGED PREPARED [--module M ...]}" && pwd)
prepared=$(cd "${2:?usage: run_conformance_gpu.sh STAGED PREPARED [--module M ...]}" && pwd)
shift 2
cd "$(dirname "$0")/../.."
py=${KFRONT_CONFORMANCE_PYTHON:-python3}
unset KFRONT_SIM NUMBA_ENABLE_CUDASIM
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda} KFRONT_CACHE_DIR=$(mktemp -d)
"$py" -c 'import numba_cuda; assert numba_cuda.__version__ == "0.30.4", numba_cuda.__version__' ||
  { echo "run_conformance_gpu: $py has no numba-cuda 0.30.4"; exit 1; }
rc=0
for target in ${KFRONT_CONFORMANCE_TARGETS:-numba-cuda kfront}; do
  "$py" test/conformance/conformance.py run --gpu --target "$target" --python "$py" --tests "$prepared/tests" \
    --kfront "$staged/python" --jobs "${KFRONT_CONFORMANCE_JOBS:-8}" "$@" | tail -n 1 || rc=1
done
"$py" test/conformance/conformance.py report || rc=1
sed -n '/^## Totals/,/^## Per folder/p' test/conformance/RESULTS.md | grep '^|'
grep -A2 '^## gpu' test/conformance/CLASSIFICATION.md | tail -n 1
if [ -n "${OUT:-}" ]; then  # one archive: the device tool brings back a few files, not folders of them
  tar -czf "$OUT/conformance.tgz" test/conformance/results/numba-cuda-gpu test/conformance/results/kfront-gpu \
    test/conformance/RESULTS.md test/conformance/CLASSIFICATION.md test/conformance/classification-gpu.tsv
  tar -czf "$OUT/conformance_logs.tgz" -C build/conformance/work numba-cuda-gpu kfront-gpu 2>/dev/null
fi
exit $rc
