#!/usr/bin/env python3
"""launch_args.py — the host cost of a launch from Python by the kinds of its arguments (issue 24, item 6: a launch
with 16 scalars should cost no more than raw cuLaunchKernel plus about 1 µs), kfront against numba-cuda in one
process on one GPU, and CuPy's RawKernel where CuPy is installed.

usage: bench/launch_args.py [--reps N] [--json FILE] [--allow-sim]

Rows (a one-thread kernel, so that the GPU's work is nothing beside the launch):
  2 arrays + int      k(out, b, 3)             out, b device arrays (numba: its DeviceNDArray, kfront: its own)
  16 np.float32       k(out, *sixteen)         NumPy float32 scalars
  16 Python floats    k(out, *sixteen)         float (typed float64 by both)
  16 int              k(out, *sixteen)         Python ints (int64)
Each row: launches in a loop of N (default 20000) without synchronising (the launch's host cost: the driver queues
the work), then one synchronize, the mean per launch in µs; the fastest of 5 such loops. "sync" rows add a
synchronize after every launch (host cost plus the GPU's round trip). The kernels are compiled (and launched once)
before timing. Without a GPU: "no GPU: skipped" (exit 0); --allow-sim times kfront's simulator (host cost plus the
simulated one-thread kernel).
"""
import argparse
import json
import os
import sys
import time

import numpy as np


def _timed(fn, reps, sync):
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        best = min(best, (time.perf_counter() - t0) / reps * 1e6)
    return best


def _rows(cuda, reps, label):
    @cuda.jit
    def k16(out, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15):
        out[0] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13 + a14 + a15

    @cuda.jit
    def k2(out, b, n):
        out[0] = b[0] + n

    out = cuda.device_array(1, np.float64)
    b = cuda.to_device(np.ones(1, np.float64))
    cases = {"2 arrays + int": (k2, (out, b, 3)),
             "16 np.float32": (k16, (out,) + tuple(np.float32(i) for i in range(16))),
             "16 Python floats": (k16, (out,) + tuple(float(i) for i in range(16))),
             "16 int": (k16, (out,) + tuple(range(16)))}
    results = {}
    for name, (k, args) in cases.items():
        launch = k[1, 1]
        launch(*args)
        cuda.synchronize()
        results[name] = _timed(lambda: launch(*args), reps, cuda.synchronize)
        results[name + ", sync"] = _timed(lambda: (launch(*args), cuda.synchronize()), max(reps // 10, 100),
                                          cuda.synchronize)
    return {label: results}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20000)
    ap.add_argument("--json")
    ap.add_argument("--allow-sim", action="store_true")
    opts = ap.parse_args()
    import warnings
    warnings.simplefilter("ignore")  # the one-block launches' occupancy warnings
    from kfront import cuda as kcuda
    on_gpu = not kcuda.is_simulator() if hasattr(kcuda, "is_simulator") else os.environ.get("KFRONT_SIM") != "1"
    try:
        on_gpu = on_gpu and kcuda.is_available()
    except Exception:
        on_gpu = False
    if not on_gpu and not opts.allow_sim:
        print("no GPU: skipped")
        return 0
    table = _rows(kcuda, opts.reps, "kfront" if on_gpu else "kfront (simulator)")
    if on_gpu:
        np.row_stack = np.vstack  # numba-cuda 0.30.4 on NumPy 2
        from numba import cuda as ncuda
        table.update(_rows(ncuda, opts.reps, "numba-cuda"))
    names = list(next(iter(table.values())))
    print("| launch (µs per launch, fastest of 5 loops) | " + " | ".join(table) + " |")
    print("|---|" + "---|" * len(table))
    for n in names:
        print("| %s | %s |" % (n, " | ".join("%.2f" % table[t][n] for t in table)))
    if "numba-cuda" in table:
        for n in names:
            print("  %s: kfront %.2fx faster than numba-cuda" % (n, table["numba-cuda"][n] / table["kfront"][n]))
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump(table, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
