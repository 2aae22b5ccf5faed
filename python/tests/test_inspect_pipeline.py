"""inspect_kir / inspect_asm / inspect_llvm show the kernel a launch runs: compiled with the passes the runtime makes
kernels with (Runtime.kernel_pipeline, kf_runtime_pipeline(rt, 0)), so thread-mapped or not as the runtime's options
say (KFRONT_NO_THREAD_MAP), without the grid-stride launch variant the whole pipeline (Runtime.pipeline) adds beside
it; cuda.compile_ptx, which launches nothing, keeps kf_default_pipeline's. A child process runs the same checks with
thread-map (and grid-stride) off."""
import json
import os
import subprocess
import sys

import numpy as np

from kfront import cuda
from kfront.cuda import _runtime


@cuda.jit
def inc2d(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


@cuda.jit
def double(a, b):
    i = cuda.grid(1)
    if i < a.size:
        b[i] = a[i] * 2


SIG2 = "void(float32[:, ::1])"
SIG1 = "void(float64[::1], float64[::1])"


def observed():
    """What this process's inspect_* and compile_ptx show."""
    kir2 = inc2d.inspect_kir(SIG2)
    kir1 = double.inspect_kir(SIG1)
    ptx1 = double.inspect_asm(SIG1)
    ptx_plain, _ = cuda.compile_ptx(double.py_func, SIG1)
    a = np.zeros((5, 7), np.float32)  # and the launches run (the kernels inspected are those launched)
    inc2d[(1, 1), (8, 8)](a)
    b = np.zeros(40)
    double[2, 32](np.arange(40.0), b)
    rt = _runtime.runtime()
    return {"pipeline": rt.pipeline, "kernel_pipeline": rt.kernel_pipeline,
            "thread_map": ", thread_map" in kir2,
            "gs_kir": "sym_name = @" in kir1 and "__gs," in kir1,
            "gs_ptx": ".entry" in ptx1 and "__gs" in ptx1,
            "gs_compile_ptx": "__gs" in ptx_plain,
            "right": bool((a == 1).all() and (b == 2 * np.arange(40.0)).all())}


def _child():
    env = dict(os.environ, KFRONT_NO_THREAD_MAP="1", KFRONT_NO_GRID_STRIDE="1")
    out = subprocess.run([sys.executable, __file__], env=env, check=True, timeout=600, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_inspect_shows_the_runtime_pipeline():
    here = observed()
    assert here["right"]
    assert ",thread-map," in here["pipeline"] and "grid-stride{variant=1}" in here["pipeline"]
    assert here["pipeline"].startswith(here["kernel_pipeline"] + ",")
    assert here["thread_map"], "inc2d's kir is thread-mapped, as the runtime compiles it"
    assert not here["gs_kir"] and not here["gs_ptx"] and not here["gs_compile_ptx"], "no launch variant shown"


def test_inspect_follows_the_runtime_options():
    there = _child()
    assert there["right"]
    assert "thread-map" not in there["pipeline"] and "grid-stride" not in there["pipeline"]
    assert there["kernel_pipeline"] == there["pipeline"]
    assert not there["thread_map"], "KFRONT_NO_THREAD_MAP: inc2d's kir as the runtime then compiles it, not remapped"
    assert not there["gs_kir"] and not there["gs_ptx"] and not there["gs_compile_ptx"]


if __name__ == "__main__":
    print(json.dumps(observed()))
