#!/usr/bin/env python3
"""matmul_sizes.py — the naive matmul a Numba user writes, auto-tiled by kfront's default pipeline, at sizes that are
and are not multiples of the tile (issue 24, "tiling at any size"), against kfront's untiled compile (bit for bit),
the tiled compile with the edge blocks' old path (tile-shared{speculate=0}), numba-cuda's naive kernel and cuBLAS
SGEMM through CuPy; all in one process on one GPU.

usage: PYTHONPATH=<staged>/python bench/matmul_sizes.py [--sizes 1000,2048,3000,4096,8192] [--reps R] [--json FILE]
       [--peak TFLOPS]

Workload: C = A @ B, N x N float32, A and B uniform in [0, 1), CuPy arrays passed to every kernel, launched 16x16 on
a grid of ceil(N/16)^2 blocks as the user wrote it (`matmul_f32acc`: float32 accumulator, `return` guard). Time: CUDA
events around each launch on the default stream, the median of R launches after one warm-up (the untiled and
Numba kernels, ~1 s a launch at 8192^2: one warm-up and one timed launch at N >= 4096, so that the whole run
stays under ~2 minutes); TFLOP/s = 2 N^3 / time, and its fraction of the FP32 peak (--peak, 66.9 TFLOP/s: an
H200's). Correctness: the tiled results (default and speculate=0) compared bit for bit with kfront's untiled
compile (canonicalize,cse,bce,dce,grid-stride) and with Numba's naive result; all against cuBLAS within 1e-3
relative. CUPY_TF32=0: cuBLAS without TF32.

Also printed: the tiled variant's registers, local (spill) memory and static shared memory per thread/block and
the blocks of 256 threads per SM the driver's occupancy calculator gives (kfront's PTX loaded through CuPy).
"""
import argparse
import json
import linecache
import os
import statistics
import sys

os.environ.setdefault("CUPY_TF32", "0")
import numpy as np  # noqa: E402

np.row_stack = np.vstack  # numba-cuda 0.30.4 on NumPy 2

KERNEL = '''
@cuda.jit
def matmul_f32acc(A, B, C):
    i, j = cuda.grid(2)
    if i >= C.shape[0] or j >= C.shape[1]:
        return
    acc = float32(0)
    for k in range(A.shape[1]):
        acc += A[i, k] * B[k, j]
    C[i, j] = acc
'''

NAME = "matmul_f32acc"
UNTILED = "canonicalize,cse,bce,dce,grid-stride"
OLD_EDGE = ("canonicalize,cse,bce,pad-shared,tile-shared{speculate=0},cse,hoist-checks,unroll,privatize-atomics,dce,"
            "grid-stride,privatize-atomics")


def module_from_text(text, name, **glb):
    """Runs source text as a module whose lines linecache knows (kfront reads kernels' source)."""
    filename = "<matmul-sizes-%s>" % name
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), glb)
    return glb


def variant_resources(kernel, cp):
    """The tiled variant's registers, spill bytes, static shared memory and blocks of 256 threads per SM: its PTX
    (kfront's, both entries) loaded by the driver through CuPy, as the runtime loads it."""
    asm = kernel.inspect_asm()
    ptx = next(iter(asm.values())) if isinstance(asm, dict) else asm
    mod = cp.cuda.function.Module()
    mod.load(ptx.encode())
    out = {}
    for entry in (NAME + "__tiled", NAME):
        try:
            f = mod.get_function(entry)
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            out[entry] = {"error": str(e)}
            continue
        r = {"registers": f.num_regs, "local_bytes": f.local_size_bytes, "shared_bytes": f.shared_size_bytes,
             "max_threads_per_block": f.max_threads_per_block}
        try:
            r["blocks_per_sm_256"] = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(f.ptr, 256, 0)
            r["occupancy"] = r["blocks_per_sm_256"] * 256 / 2048.0
        except Exception as e:  # noqa: BLE001
            r["blocks_per_sm_256"] = "n/a (%s)" % e
        out[entry] = r
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,2048,3000,4096,8192")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--peak", type=float, default=66.9, help="FP32 peak in TFLOP/s (an H200's by default)")
    ap.add_argument("--json")
    args = ap.parse_args()

    from kfront import cuda as kc, float32 as kf32, _kfront
    if not kc.is_available():
        print("matmul_sizes: no GPU: skipped (%s)" % kc._runtime.runtime().describe())
        return 0
    import cupy as cp
    import numba
    from numba import cuda as nc

    kk = module_from_text(KERNEL, "kfront", cuda=kc, float32=kf32)[NAME]
    nk = module_from_text(KERNEL, "numba", cuda=nc, float32=numba.float32)[NAME]
    sizes = [int(s) for s in args.sizes.split(",") if s]
    results = {"peak_tflops": args.peak, "sizes": {}}

    def timed(launch, reps):
        launch()
        cp.cuda.Device().synchronize()
        times = []
        for _ in range(reps):
            s, e = cp.cuda.Event(), cp.cuda.Event()
            s.record()
            launch()
            e.record()
            e.synchronize()
            times.append(cp.cuda.get_elapsed_time(s, e) / 1e3)
        return statistics.median(times)

    programs = {}

    def program(pipe):
        if pipe not in programs:
            fin = kk._frozen()
            programs[pipe] = _kfront.Program(kc._runtime.runtime(), fin.sources, fin.binding_list(), fin.specs,
                                             pipeline=pipe).function(NAME)
        return programs[pipe]

    rng = np.random.default_rng(1)
    print("%-6s %-28s %9s %8s %7s  %s" % ("N", "kernel", "ms", "TFLOP/s", "% peak", "notes"))
    for n in sizes:
        A = cp.asarray(rng.random((n, n), dtype=np.float32))
        B = cp.asarray(rng.random((n, n), dtype=np.float32))
        blocks, threads = ((n + 15) // 16, (n + 15) // 16), (16, 16)
        slow_reps = 1 if n >= 4096 else 3
        rows = {}

        def row(name, seconds, out=None, note=""):
            tflops = 2.0 * n ** 3 / seconds / 1e12
            rows[name] = {"ms": seconds * 1e3, "tflops": tflops, "of_peak": tflops / args.peak}
            if out is not None:
                rows[name]["max_rel_err_vs_cublas"] = float(cp.max(cp.abs(out - ref)) / cp.max(cp.abs(ref)))
            print("%-6d %-28s %9.3f %8.2f %6.1f%%  %s" % (n, name, seconds * 1e3, tflops, 100 * tflops / args.peak, note))

        ref = cp.zeros((n, n), dtype=cp.float32)
        t_cublas = timed(lambda: cp.matmul(A, B, out=ref), args.reps)
        Ct = cp.zeros((n, n), dtype=cp.float32)
        t_tiled = timed(lambda: kk[blocks, threads](A, B, Ct), args.reps)
        Cu = cp.zeros((n, n), dtype=cp.float32)
        launch_u = program(UNTILED).configure(blocks, threads)
        t_untiled = timed(lambda: launch_u(A, B, Cu), slow_reps)
        Co = cp.zeros((n, n), dtype=cp.float32)
        launch_o = program(OLD_EDGE).configure(blocks, threads)
        t_old = timed(lambda: launch_o(A, B, Co), args.reps)
        Cn = cp.zeros((n, n), dtype=cp.float32)
        t_numba = timed(lambda: nk[blocks, threads](A, B, Cn), slow_reps)
        same_u, same_n = bool(cp.array_equal(Ct, Cu)), bool(cp.array_equal(Ct, Cn))
        same_o = bool(cp.array_equal(Co, Cu))
        row("kfront tiled (default)", t_tiled, Ct, "bit-identical to untiled: %s, to numba: %s; %.1f%% of cuBLAS"
            % (same_u, same_n, 100 * t_cublas / t_tiled))
        row("kfront tiled, speculate=0", t_old, Co, "the edge blocks' old path; bit-identical to untiled: %s" % same_o)
        row("kfront untiled", t_untiled, Cu)
        row("numba-cuda naive", t_numba, Cn)
        row("cuBLAS SGEMM (TF32 off)", t_cublas)
        rows["kfront tiled (default)"].update(bit_identical_to_untiled=same_u, bit_identical_to_numba=same_n)
        rows["kfront tiled, speculate=0"]["bit_identical_to_untiled"] = same_o
        results["sizes"][str(n)] = rows
        del A, B, ref, Ct, Cu, Co, Cn
        cp.get_default_memory_pool().free_all_blocks()

    try:
        res = variant_resources(kk, cp)
    except Exception as e:  # noqa: BLE001 - the timings above stand without it
        res = {"error": "%s: %s" % (type(e).__name__, e)}
    results["resources"] = res
    for entry, r in res.items():
        print("resources %s: %s" % (entry, r))
    ok = all(r["kfront tiled (default)"]["bit_identical_to_untiled"] and
             r["kfront tiled, speculate=0"]["bit_identical_to_untiled"] for r in results["sizes"].values())
    print("every tiled result bit-identical to the untiled compile: %s" % ok)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
