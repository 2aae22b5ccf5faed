#!/usr/bin/env bash
# probe2.sh — numba-cuda's device memory alive at exit is not in its deferred-deallocation queue: the two
# temporaries of leakprobe.sh in a numba-cuda program, the queue's length printed, then flushed now, at exit, or not
# at all, each under memcheck's leak check. On the GPU machine: test/gpu/probe/probe2.sh DEST (bench/stage_gpu.sh's).
# (2026-12-02 19:20, H200, numba-cuda 0.30.4: the queue is empty, and 128 + 16 bytes leak in all three cases.)
set -u
dest=$(cd "${1:?usage: probe2.sh DEST}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PYTHONPATH="$dest/python"
cat > "$tmp/p2.py" <<'PY'
import atexit
import sys
import numpy as np
np.row_stack = np.vstack
from numba import cuda


@cuda.jit
def k(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = 1


k[1, 32](cuda.device_array(32, np.float32))
cuda.synchronize()
d = cuda.device_array(2)
del d
ctx = cuda.current_context()
dl = ctx.deallocations if hasattr(ctx, "deallocations") else ctx.memory_manager.deallocations
print("pending", len(dl._cons), type(ctx.memory_manager).__name__, "disabled", dl.is_disabled)
if sys.argv[1] == "now":
    dl.clear()
    print("after clear", len(dl._cons))
elif sys.argv[1] == "atexit":
    atexit.register(lambda: (dl.clear(), print("atexit cleared", len(dl._cons))))
PY
for mode in none now atexit; do
  echo "## $mode"
  compute-sanitizer --tool memcheck --leak-check full --show-backtrace device python3 "$tmp/p2.py" "$mode" 2>&1 |
    grep -E "Leaked|LEAK SUMMARY|pending|clear|rror"
done
