#!/usr/bin/env bash
# leakprobe.sh — which library leaves device memory allocated at exit: the same two temporaries (a launch's
# device_array(32, float32), a device_array(2) deleted) in a program of kfront.cuda and one of numba.cuda, each
# under compute-sanitizer's memcheck with its leak check. On the GPU machine, with the folder bench/stage_gpu.sh
# made (its python/ on PYTHONPATH):   test/gpu/probe/leakprobe.sh DEST
# (2026-12-02: kfront 0 bytes; numba-cuda 128 + 16 bytes: its deferred deallocations are not flushed at exit.)
set -u
dest=$(cd "${1:?usage: leakprobe.sh DEST}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PYTHONPATH="$dest/python"
for lib in kfront numba; do
  cat > "$tmp/probe_$lib.py" <<PY
import numpy as np
np.row_stack = np.vstack
from $lib import cuda

@cuda.jit
def k(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = 1

k[1, 32](cuda.device_array(32, np.float32))
cuda.synchronize()
d = cuda.device_array(2)
del d
print("$lib: done")
PY
  compute-sanitizer --tool memcheck --leak-check full --show-backtrace device python3 "$tmp/probe_$lib.py" 2>&1 |
    grep -E "Leaked|LEAK SUMMARY|done|rror"
done
