#!/usr/bin/env python3
"""black_scholes_vs_numba.py — the classic Numba Black-Scholes kernel (test/frontend/Inputs/example_kernels.py,
float64 as Numba promotes it) on one GPU: kfront.cuda against numba.cuda, same process, same inputs (issue 24,
item 5: kfront was 0.89x numba-cuda's speed).

usage: bench/black_scholes_vs_numba.py [--n ELEMS] [--reps N]

Each library compiles the same Python source (the file is imported twice, once with `numba` aliased to kfront)
and launches it on its own device arrays, 128 threads per block. Timing: the library's CUDA events around REPS
launches after a warm-up, the best of 5 batches, per launch. Rows: kfront as its runtime launches it (the
grid-stride form where the pass applies), kfront with KFRONT_NO_GRID_STRIDE=1 (the kernel as compiled: set in a
child process, as the runtime reads it at start), numba-cuda. Results are compared with numba-cuda's (relative
error below 1e-12). Without a GPU: "no GPU: skipped".
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "..", "test", "frontend", "Inputs", "example_kernels.py")


def _load(use_kfront):
    if use_kfront:  # `from numba import cuda` in the file gives kfront's
        import kfront
        kfront.install_numba_alias()
    spec = importlib.util.spec_from_file_location("example_kernels_%d" % use_kfront, KERNELS)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _inputs(n):
    rng = np.random.default_rng(1)
    return (rng.uniform(5, 30, n), rng.uniform(1, 100, n), rng.uniform(0.25, 10, n))


def _time(cuda, kernel, n, reps):
    S, X, T = (cuda.to_device(a) for a in _inputs(n))
    call, put = cuda.device_array(n), cuda.device_array(n)
    blocks = (n + 127) // 128
    launch = kernel[blocks, 128]
    launch(call, put, S, X, T, 0.02, 0.30)
    cuda.synchronize()
    best = float("inf")
    for _ in range(5):
        start, end = cuda.event(), cuda.event()
        start.record()
        for _ in range(reps):
            launch(call, put, S, X, T, 0.02, 0.30)
        end.record()
        end.synchronize()
        best = min(best, cuda.event_elapsed_time(start, end) / reps)
    return best, call.copy_to_host(), put.copy_to_host()


def child(args):
    """The kfront rows, in a process of their own (KFRONT_NO_GRID_STRIDE as the parent set it)."""
    from kfront import cuda
    mod = _load(True)
    ms, call, put = _time(cuda, mod.black_scholes_cuda, args.n, args.reps)
    np.save(args.child + ".call.npy", call)
    np.save(args.child + ".put.npy", put)
    with open(args.child + ".json", "w") as f:
        json.dump({"ms": ms}, f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--child")
    args = ap.parse_args()
    if args.child:
        return child(args)
    if os.environ.get("KFRONT_SIM") == "1":
        print("no GPU: skipped")
        return 0
    np.row_stack = np.vstack  # numba-cuda 0.30.4 on NumPy 2
    from numba import cuda as ncuda
    if not ncuda.is_available():
        print("no GPU: skipped")
        return 0
    mod = _load(False)
    nms, ncall, nput = _time(ncuda, mod.black_scholes_cuda, args.n, args.reps)
    rows = [("numba-cuda", nms)]
    import tempfile
    tmp = tempfile.mkdtemp()
    for label, env in (("kfront", {}), ("kfront, KFRONT_NO_GRID_STRIDE=1", {"KFRONT_NO_GRID_STRIDE": "1"})):
        base = os.path.join(tmp, str(len(rows)))
        r = subprocess.run([sys.executable, __file__, "--n", str(args.n), "--reps", str(args.reps), "--child", base],
                           env=dict(os.environ, **env), capture_output=True, text=True)
        if r.returncode:
            print("%s failed:\n%s" % (label, r.stderr[-3000:]))
            continue
        ms = json.load(open(base + ".json"))["ms"]
        for name, ref in (("call", ncall), ("put", nput)):
            got = np.load(base + ".%s.npy" % name)
            err = np.max(np.abs(got - ref) / np.maximum(np.abs(ref), 1e-300))
            if err > 1e-12:
                print("%s: %s differs from numba-cuda's (relative error %.3g)" % (label, name, err))
        rows.append((label, ms))
    gb = args.n * 8 * 5 / 1e9  # three arrays read, two written
    print("| Black-Scholes, %d float64 | ms per launch | GB/s | vs numba-cuda |" % args.n)
    print("|---|---|---|---|")
    for label, ms in rows:
        print("| %s | %.4f | %.0f | %.2fx |" % (label, ms, gb / (ms / 1e3), nms / ms))
    return 0


if __name__ == "__main__":
    sys.exit(main())
