#!/usr/bin/env python3
"""linking_vs_numba.py — a kernel calling a small foreign device function (CUDA C++ compiled by NVRTC, linked by
nvJitLink: cuda.declare_device(..., link=cuda.CUSource(...))), with link-time optimisation and without, kfront
against numba-cuda (CUDA_ENABLE_PYNVJITLINK on) in one process on one GPU. Needs a GPU and numba-cuda; without a
GPU it prints "no GPU: skipped" and exits 0.

usage: bench/linking_vs_numba.py [--n N] [--reps R] [--json FILE]

The kernel, the same source for both (numba-cuda's ABI: the result through a pointer, a status returned):
    r[i] = poly(x[i])      poly: 4 fused multiply-adds (Horner), extern "C" __device__ in a .cu
over N float32 (default 2^28: 1 GiB in, 1 GiB out), 256 threads per block, one thread per element.
Four variants: kfront lto=True and lto=False, numba-cuda lto=True and lto=False.

Timing (GPU time of the kernel): each variant warmed up by one launch (which compiles and links it), then R
batches of 10 launches, each batch timed on the host with a synchronisation after it (perf_counter): at ~0.5 ms a
launch, the host's launch cost (5-40 us) is hidden behind the GPU's queue. Time per launch = the median batch time
/ 10. Bandwidth: 8 bytes per element (one read, one write) over that time, as a fraction of a device-to-device copy
of 1 GiB (read + written bytes over its time, median of 10) measured by kfront in the same run.
First call: the wall time of the first launch and synchronisation of a freshly made kernel (its compile, NVRTC's
compile of the .cu, the link, the module load and one launch), median of 3 fresh kernels (a new source text each,
so no cache answers: kfront never caches linked kernels on disk, numba-cuda compiles anew per dispatcher).
Each variant's output is checked against NumPy (float32 Horner, rtol 1e-6) before timing.
"""
import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("NUMBA_CUDA_ENABLE_PYNVJITLINK", "1")

POLY = ('extern "C" __device__ int poly%d(float *r, float x) {\n'
        '  *r = fmaf(fmaf(fmaf(fmaf(0.25f, x, -0.5f), x, 1.5f), x, -2.0f), x, %d.0f);\n'
        '  return 0;\n'
        '}\n')


def poly_ref(np, x, k):
    f = np.float32
    r = f(0.25) * x + f(-0.5)
    r = r * x + f(1.5)
    r = r * x + f(-2.0)
    return r * x + f(k)


def no_gpu(reason):
    print("linking_vs_numba: no GPU: skipped (%s)" % reason)
    sys.exit(0)


def make_kernel(cuda, k, lto):
    """A fresh kernel calling poly<k> (a new symbol, so nothing is cached)."""
    poly = cuda.declare_device("poly%d" % k, "float32(float32)", link=cuda.CUSource(POLY % (k, k)))

    def kernel(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = poly(x[i])
    return cuda.jit(lto=lto)(kernel)


def run_variant(name, cuda, np, d_x, x, n, reps, counter):
    tpb = 256
    blocks = (n + tpb - 1) // tpb
    lto = name.endswith("lto")
    firsts = []
    for _ in range(3):
        k = next(counter)
        kernel = make_kernel(cuda, k, lto)
        d_r = cuda.device_array(n, dtype=np.float32)
        t0 = time.perf_counter()
        kernel[blocks, tpb](d_r, d_x)
        cuda.synchronize()
        firsts.append(time.perf_counter() - t0)
    r = d_r.copy_to_host()
    if not np.allclose(r, poly_ref(np, x, k), rtol=1e-6, atol=1e-6):
        raise SystemExit("%s: wrong result" % name)
    batches = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(10):
            kernel[blocks, tpb](d_r, d_x)
        cuda.synchronize()
        batches.append((time.perf_counter() - t0) / 10)
    return {"kernel_ms": statistics.median(batches) * 1e3, "first_call_ms": statistics.median(firsts) * 1e3}


def copy_bandwidth(cuda, np):
    n = 1 << 28  # 1 GiB of float32
    a = cuda.device_array(n, dtype=np.float32)
    b = cuda.device_array(n, dtype=np.float32)
    times = []
    for _ in range(11):
        cuda.synchronize()
        t0 = time.perf_counter()
        b.copy_to_device(a)
        cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return 2 * 4 * n / statistics.median(times[1:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 28)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--json")
    args = ap.parse_args()
    import itertools
    import numpy as np
    np.row_stack = np.vstack  # numba-cuda 0.30.4 on NumPy 2
    try:
        from kfront import cuda as kcuda
        if not kcuda.is_available():
            no_gpu("kfront finds no GPU")
    except ImportError as e:
        no_gpu("cannot import kfront: %s" % e)
    try:
        from numba import cuda as ncuda
        ncuda.current_context()
    except Exception as e:  # noqa: BLE001
        no_gpu("numba-cuda: %s" % e)
    x = np.linspace(-2, 2, args.n, dtype=np.float32)
    counter = itertools.count(1)
    results = {}
    bw = copy_bandwidth(kcuda, np)
    kx = kcuda.to_device(x)
    for name in ("kfront lto", "kfront nolto"):
        results[name] = run_variant(name, kcuda, np, kx, x, args.n, args.reps, counter)
    del kx
    nx = ncuda.to_device(x)
    for name in ("numba lto", "numba nolto"):
        results[name] = run_variant(name, ncuda, np, nx, x, args.n, args.reps, counter)
    print("n = %d float32, copy bandwidth %.0f GB/s (1 GiB device-to-device)" % (args.n, bw / 1e9))
    print("%-14s %10s %8s %12s" % ("variant", "kernel ms", "of copy", "first call"))
    for name, r in results.items():
        frac = 8 * args.n / (r["kernel_ms"] / 1e3) / bw
        r["fraction_of_copy_bw"] = frac
        print("%-14s %10.3f %7.0f%% %9.1f ms" % (name, r["kernel_ms"], 100 * frac, r["first_call_ms"]))
    k, nb = results["kfront lto"], results["numba lto"]
    print("kfront/numba with LTO: kernel %.2fx faster, first call %.2fx faster; kfront LTO vs no LTO: %.2fx" % (
        nb["kernel_ms"] / k["kernel_ms"], nb["first_call_ms"] / k["first_call_ms"],
        results["kfront nolto"]["kernel_ms"] / k["kernel_ms"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"n": args.n, "copy_bw": bw, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
