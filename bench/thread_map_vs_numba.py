#!/usr/bin/env python3
"""thread_map_vs_numba.py — 2-D kernels as Numba users write them, `i, j = cuda.grid(2)` over C-order arrays, whose
lanes stride by a whole row unless the threads are remapped (passes/thread_map.c, issue 24 item 1): kfront's Python
module against numba-cuda, the same kernels on the same GPU in the same run. Each row: kfront's and Numba's GPU
time per launch (CUDA events), each as a fraction of the device's copy bandwidth (a device-to-device copy of the
same array, timed the same way), and the ratio Numba/kfront (>1: kfront faster). Every result is checked against
NumPy before it is timed.

usage: [PYTHONPATH=<build>/python] bench/thread_map_vs_numba.py [--n N] [--reps R] [--json FILE] [--only NAME,...]
       (KFRONT_NO_THREAD_MAP=1: kfront without thread-map, for the before/after)

Rows (N x N float32, N = 8192 by default, 16x16 blocks):
  inc           x, y = cuda.grid(2); a[x, y] += 1          (the seeds' 2-D pattern: 8 bytes per element moved)
  inc_swapped   y, x = cuda.grid(2); a[x, y] += 1          (what a user could write instead: the reference)
  jacobi        i, j = cuda.grid(2); b[i, j] = 0.25 * (four neighbours of a)  (8 bytes per element: a read once
                from DRAM, b written)
  inc_32x8      inc with 32x8 blocks (thread-map's general, non-square path)
Timing: CUDA events around a batch of BATCH launches, the median of REPS batches after a warm-up.

Without a GPU (or with KFRONT_SIM=1): runs each row's kfront kernel once on the simulator in a small form (N = 200),
checks it against NumPy, and prints "simulator: checked, not timed" (numba-cuda is not needed); exits 0.
"""
import argparse
import json
import os
import statistics
import sys

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
def inc(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


def inc_swapped(a):
    y, x = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


def jacobi(a, b):
    i, j = cuda.grid(2)
    if 0 < i < a.shape[0] - 1 and 0 < j < a.shape[1] - 1:
        b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])
'''


def exec_source(text, name, **glb):
    """Runs source text as a module whose lines Python's linecache knows (kfront reads a kernel's source)."""
    import linecache
    filename = "<bench-%s>" % name
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), glb)
    return glb


def kernels(cuda_mod):
    g = exec_source(SRC, "thread-map-" + cuda_mod.__name__, cuda=cuda_mod)
    return {k: cuda_mod.jit(g[k]) for k in ("inc", "inc_swapped", "jacobi")}


def grid_of(n, block):
    return ((n + block[0] - 1) // block[0], (n + block[1] - 1) // block[1])


def rows(n):
    """name -> (kernel name, inputs, block, reference outputs (None: an input is not an output), bytes moved)."""
    a = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    want_inc = a + np.float32(1)
    want_j = np.zeros_like(a)
    want_j[1:-1, 1:-1] = np.float32(0.25) * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
    moved = 2 * a.nbytes
    return {
        "inc": ("inc", [a], (16, 16), [want_inc], moved),
        "inc_swapped": ("inc_swapped", [a], (16, 16), [want_inc], moved),
        "jacobi": ("jacobi", [a, np.zeros_like(a)], (16, 16), [None, want_j], moved),
        "inc_32x8": ("inc", [a], (32, 8), [want_inc], moved),
    }


def check(name, who, got, want):
    for g, w in zip(got, want):
        if w is not None and not np.allclose(g, w, rtol=1e-5, atol=1e-6):
            raise SystemExit("%s: %s's result differs from NumPy's" % (name, who))


def run_once(cuda_mod, kern, inputs, block):
    d = [cuda_mod.to_device(x) for x in inputs]
    kern[grid_of(inputs[0].shape[0], block), block](*d)
    cuda_mod.synchronize()
    return d, [x.copy_to_host() for x in d]


def time_events(cuda_mod, launch, batch, reps):
    """Seconds per call of launch(), by CUDA events around batches."""
    launch()
    cuda_mod.synchronize()
    samples = []
    for _ in range(reps):
        start, end = cuda_mod.event(), cuda_mod.event()
        start.record()
        for _ in range(batch):
            launch()
        end.record()
        end.synchronize()
        samples.append(cuda_mod.event_elapsed_time(start, end) / 1e3 / batch)
    return statistics.median(samples)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=8192)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--batch", type=int, default=20)
    ap.add_argument("--json")
    ap.add_argument("--only")
    args = ap.parse_args()

    from kfront import cuda as kc
    only = set(args.only.split(",")) if args.only else None
    sim = os.environ.get("KFRONT_SIM") == "1" or not kc.is_available()
    if sim:
        kk = kernels(kc)
        for name, (k, inputs, block, want, _) in rows(200).items():
            if only and name not in only:
                continue
            _, got = run_once(kc, kk[k], inputs, block)
            check(name, "kfront", got, want)
            print("%-12s simulator: checked, not timed" % name)
        print("thread_map_vs_numba: no GPU: timing skipped (%s)" % kc._runtime.runtime().describe())
        return 0

    from numba import cuda as nc
    kk, nk = kernels(kc), kernels(nc)
    # the roofline: a device-to-device copy of one N x N float32 array (reads and writes 2 * nbytes)
    src = kc.to_device(np.ones((args.n, args.n), np.float32))
    dst = kc.device_array_like(src)
    copy_s = time_events(kc, lambda: dst.copy_to_device(src), args.batch, args.reps)
    copy_bw = 2 * src.nbytes / copy_s
    print("copy bandwidth %.0f GB/s (device-to-device copy of %dx%d float32)" % (copy_bw / 1e9, args.n, args.n))
    results = {"copy_GBps": copy_bw / 1e9, "thread_map": os.environ.get("KFRONT_NO_THREAD_MAP") != "1"}
    for name, (k, inputs, block, want, moved) in rows(args.n).items():
        if only and name not in only:
            continue
        times = {}
        for who, mod, ks in (("kfront", kc, kk), ("numba", nc, nk)):
            d, got = run_once(mod, ks[k], inputs, block)
            check(name, who, got, want)
            kern, grid = ks[k], grid_of(args.n, block)
            times[who] = time_events(mod, lambda: kern[grid, block](*d), args.batch, args.reps)
        frac = {w: moved / t / copy_bw for w, t in times.items()}
        results[name] = {"kfront_ms": times["kfront"] * 1e3, "numba_ms": times["numba"] * 1e3,
                         "kfront_of_copy_bw": frac["kfront"], "numba_of_copy_bw": frac["numba"],
                         "numba_over_kfront": times["numba"] / times["kfront"], "n": args.n, "block": block}
        print("%-12s kfront %7.3f ms (%3.0f%% of copy bw)   numba %7.3f ms (%3.0f%%)   numba/kfront %.2fx" % (
            name, times["kfront"] * 1e3, 100 * frac["kfront"], times["numba"] * 1e3, 100 * frac["numba"],
            times["numba"] / times["kfront"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
