#!/usr/bin/env python3
"""atomics_vs_numba.py — histograms and other atomic updates of few bins (passes/privatize_atomics.c, issue 24
item 4): kfront's Python module against numba-cuda, the same kernels as a Numba user writes them, on the same GPU
in the same run. Each row: kfront's and Numba's GPU time per launch and the ratio Numba/kfront (>1: kfront
faster); every result is checked against NumPy (exact: integer bins) before it is timed.

usage: [PYTHONPATH=<build>/python] bench/atomics_vs_numba.py [--n N] [--reps R] [--json FILE] [--only NAME,...]

Rows (N = 64M float32 values in [0, 1) by default, 256 threads per block):
  hist256_once    cuda.atomic.add(bins, int(x[i] * 256), 1), one thread per element (the runtime's grid-stride
                  rewrite puts it in a loop, which privatize-atomics then privatises)
  hist256_loop    the same as a grid-stride loop of the user's, SMs*8 blocks
  hist4096_loop   4096 bins (the default bound: 16 KiB of shared memory per block)
  hist65536_loop  65536 bins: over the bound, the original path (kfront should match Numba here)
  hist256_loop_tpb64  256 bins, grid-stride loop, SMs*32 blocks of 64 threads (the static copy's occupancy cost)
  minmax64_loop   cuda.atomic.min and max of int64 values into 64 keys
Timing: the launch batch (BATCH launches, then one synchronize) over perf_counter, median of REPS batches after a
warm-up; a launch of these sizes takes milliseconds, so the host's launch cost is in the noise.

Without a GPU (or with KFRONT_SIM=1): runs each row's kfront kernel once on the simulator in a small form
(N = 20000), checks it against NumPy, and prints "simulator: checked, not timed" (numba-cuda is not needed);
exits 0.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

np.row_stack = np.vstack  # numba-cuda 0.30.4 on NumPy 2 (before numba.cuda is first used)

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import kfront  # noqa: F401  (PYTHONPATH=<build>/python)
except ImportError:  # else the build's, as the other scripts find it: $KFRONT_BUILD, build, build-bench
    for b in (os.environ.get("KFRONT_BUILD"), os.path.join(HERE, "..", "build"), os.path.join(HERE, "..", "build-bench")):
        if b and os.path.isdir(os.path.join(b, "python", "kfront")):
            sys.path.insert(0, os.path.join(b, "python"))
            break

SRC = '''
def hist_once(x, bins):
    i = cuda.grid(1)
    if i < x.shape[0]:
        cuda.atomic.add(bins, int(x[i] * bins.shape[0]), 1)


def hist_loop(x, bins):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        cuda.atomic.add(bins, int(x[i] * bins.shape[0]), 1)


def minmax_loop(key, val, lo, hi):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, key.shape[0], stride):
        cuda.atomic.min(lo, key[i], val[i])
        cuda.atomic.max(hi, key[i], val[i])
'''


def exec_source(text, name, **glb):
    """Runs source text as a module whose lines Python's linecache knows (kfront reads a kernel's source)."""
    import linecache
    filename = "<bench-%s>" % name
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), glb)
    return glb


def kernels(cuda_mod):
    g = exec_source(SRC, "atomics-" + cuda_mod.__name__, cuda=cuda_mod)
    return {k: cuda_mod.jit(g[k]) for k in ("hist_once", "hist_loop", "minmax_loop")}


def rows(n, sms):
    """name -> (kernel name, inputs (host arrays), outputs' initial values, grid, block, reference outputs)."""
    rng = np.random.default_rng(0)
    x = rng.random(n, dtype=np.float32)
    out = {}
    tpb = 256
    for nbins, form in ((256, "once"), (256, "loop"), (4096, "loop"), (65536, "loop")):
        want = np.bincount((x.astype(np.float64) * nbins).astype(np.int64), minlength=nbins).astype(np.int32)
        grid = (n + tpb - 1) // tpb if form == "once" else sms * 8
        out["hist%d_%s" % (nbins, form)] = ("hist_" + form, [x], [np.zeros(nbins, np.int32)], grid, tpb, [want])
    # small blocks: the static 16 KiB copy limits the blocks per SM (13 of 64 threads on an H200, not 32)
    want = out["hist256_loop"][5]
    out["hist256_loop_tpb64"] = ("hist_loop", [x], [np.zeros(256, np.int32)], sms * 32, 64, want)
    key = rng.integers(0, 64, n).astype(np.int64)
    val = rng.integers(-10**15, 10**15, n).astype(np.int64)
    lo0 = np.full(64, np.iinfo(np.int64).max, np.int64)
    hi0 = np.full(64, np.iinfo(np.int64).min, np.int64)
    wlo, whi = lo0.copy(), hi0.copy()
    np.minimum.at(wlo, key, val)
    np.maximum.at(whi, key, val)
    out["minmax64_loop"] = ("minmax_loop", [key, val], [lo0, hi0], sms * 8, tpb, [wlo, whi])
    return out


def run_once(cuda_mod, kern, inputs, outs0, grid, block):
    d_in = [cuda_mod.to_device(a) for a in inputs]
    d_out = [cuda_mod.to_device(a) for a in outs0]
    kern[grid, block](*d_in, *d_out)
    cuda_mod.synchronize()
    return d_in, d_out, [d.copy_to_host() for d in d_out]


def check(name, who, got, want):
    for g, w in zip(got, want):
        if not np.array_equal(g, w):
            raise SystemExit("%s: %s's result differs from NumPy's" % (name, who))


def time_batch(cuda_mod, kern, args, grid, block, batch, reps):
    kern[grid, block](*args)
    cuda_mod.synchronize()
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(batch):
            kern[grid, block](*args)
        cuda_mod.synchronize()
        samples.append((time.perf_counter() - t0) / batch)
    return statistics.median(samples)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=64 << 20)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--batch", type=int, default=10)
    ap.add_argument("--json")
    ap.add_argument("--only")
    args = ap.parse_args()

    from kfront import cuda as kc
    only = set(args.only.split(",")) if args.only else None
    sim = os.environ.get("KFRONT_SIM") == "1" or not kc.is_available()
    if sim:
        kk = kernels(kc)
        for name, (k, inputs, outs0, grid, block, want) in rows(20000, 2).items():
            if only and name not in only:
                continue
            _, _, got = run_once(kc, kk[k], inputs, outs0, grid, block)
            check(name, "kfront", got, want)
            print("%-16s simulator: checked, not timed" % name)
        print("atomics_vs_numba: no GPU: timing skipped (%s)" % kc._runtime.runtime().describe())
        return 0

    from numba import cuda as nc
    sms = nc.get_current_device().MULTIPROCESSOR_COUNT
    kk, nk = kernels(kc), kernels(nc)
    results = {}
    for name, (k, inputs, outs0, grid, block, want) in rows(args.n, sms).items():
        if only and name not in only:
            continue
        times = {}
        for who, mod, ks in (("kfront", kc, kk), ("numba", nc, nk)):
            d_in, d_out, got = run_once(mod, ks[k], inputs, outs0, grid, block)
            check(name, who, got, want)
            times[who] = time_batch(mod, ks[k], d_in + d_out, grid, block, args.batch, args.reps)
        results[name] = {"kfront_ms": times["kfront"] * 1e3, "numba_ms": times["numba"] * 1e3,
                         "numba_over_kfront": times["numba"] / times["kfront"], "n": args.n}
        print("%-16s kfront %8.3f ms   numba %8.3f ms   numba/kfront %.2fx" % (
            name, times["kfront"] * 1e3, times["numba"] * 1e3, times["numba"] / times["kfront"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
