#!/usr/bin/env python3
"""matmul_variants.py — the naive matmul a Numba user writes, compiled through kfront pipelines that differ only in
the tiling's options (issue 24: "matmul >= 30 TFLOP/s at every size from 1000^2 to 8192^2"), timed at every size on
one GPU in one process, each result compared bit for bit with kfront's untiled compile and against NumPy.

usage: PYTHONPATH=<staged>/python bench/matmul_variants.py [--sizes 1000,2048,3000,4096,8192] [--reps R]
       [--only NAME,NAME] [--list] [--json FILE] [--peak TFLOPS]

Workload and method as bench/matmul_sizes.py (whose helpers it reuses): C = A @ B, N x N float32, A and B uniform in
[0, 1), CuPy arrays, `matmul_f32acc` launched 16x16 on ceil(N/16)^2 blocks as the user wrote it; CUDA events around
each launch, the median of R launches after one warm-up; TFLOP/s = 2 N^3 / time and its fraction of the FP32 peak.
Each variant is the default pipeline with tile-shared's options (and, for the 8x8 register tiles, the unroll pass's
op limit: at its default 4096 the whole tile's loop of 64 virtual threads' bodies stays a loop) replaced; the
registers, spills and shared memory ptxas gives each (sm_90) are in bench/README.md ("Matmul variants").
Correctness: every variant's C bit for bit equal to the untiled compile's (matmul_sizes.UNTILED, one launch),
and within 1e-4 relative of NumPy's float32 product (computed on the host, the sum orders differ; above
--numpy-max, 4096, of cuBLAS SGEMM's with TF32 off, so that a slow host BLAS cannot stretch the run). Exit status 1
when a result differs. About a minute on an H200 (the untiled reference is ~1 s a launch at 8192^2).
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("CUPY_TF32", "0")
import numpy as np  # noqa: E402

from matmul_sizes import KERNEL, NAME, UNTILED, module_from_text  # noqa: E402

HEAD = "canonicalize,cse,bce,pad-shared,"
TAIL = ",thread-map,cse,hoist-checks,%s,privatize-atomics,dce"
BIG_UNROLL = "unroll{max-ops=20000}"

# (name, tile-shared options, unroll pass): the default first
VARIANTS = [
    ("default-4x4", "", "unroll"),
    ("4x4-double", "double=1", "unroll"),
    ("4x4-depth8", "depth=8", "unroll"),
    ("4x4-mb3", "min-blocks=3", "unroll"),
    ("2x4", "rx=2,ry=4", "unroll"),
    ("4x8-mb1-double", "rx=4,ry=8,min-blocks=1,double=1", "unroll"),
    ("8x8-mb1-double", "rx=8,ry=8,min-blocks=1,double=1", "unroll"),
    ("8x8-mb1-double-unrolled", "rx=8,ry=8,min-blocks=1,double=1", BIG_UNROLL),
    ("8x8-mb1-unrolled", "rx=8,ry=8,min-blocks=1", BIG_UNROLL),
    ("8x8-mb1-double-depth8", "rx=8,ry=8,min-blocks=1,double=1,depth=8", "unroll"),
]


def pipeline(opts, unroll):
    ts = "tile-shared{%s}" % opts if opts else "tile-shared"
    return HEAD + ts + TAIL % unroll


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,2048,3000,4096,8192")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", help="comma-separated variant names (default: all)")
    ap.add_argument("--list", action="store_true", help="print the variants' pipelines and exit")
    ap.add_argument("--peak", type=float, default=66.9, help="FP32 peak in TFLOP/s (an H200's by default)")
    ap.add_argument("--numpy-max", type=int, default=4096,
                    help="the largest N checked against NumPy's product (above: against cuBLAS SGEMM, TF32 off)")
    ap.add_argument("--json")
    args = ap.parse_args()
    variants = VARIANTS
    if args.only:
        want = set(args.only.split(","))
        variants = [v for v in VARIANTS if v[0] in want]
        unknown = want - {v[0] for v in VARIANTS}
        if unknown:
            print("matmul_variants: unknown variant(s): %s" % ", ".join(sorted(unknown)))
            return 2
    if args.list:
        for name, opts, unroll in variants:
            print("%-26s %s" % (name, pipeline(opts, unroll)))
        return 0

    from kfront import cuda as kc, float32 as kf32, _kfront
    if not kc.is_available():
        print("matmul_variants: no GPU: skipped (%s)" % kc._runtime.runtime().describe())
        return 0
    import cupy as cp

    kk = module_from_text(KERNEL, "kfront", cuda=kc, float32=kf32)[NAME]
    fin = kk._frozen()
    programs = {}

    def program(pipe):
        if pipe not in programs:
            programs[pipe] = _kfront.Program(kc._runtime.runtime(), fin.sources, fin.binding_list(), fin.specs,
                                             pipeline=pipe).function(NAME)
        return programs[pipe]

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

    sizes = [int(s) for s in args.sizes.split(",") if s]
    results = {"peak_tflops": args.peak, "variants": {v[0]: pipeline(v[1], v[2]) for v in variants}, "sizes": {}}
    rng = np.random.default_rng(1)
    ok = True
    print("%-6s %-26s %9s %8s %7s  %s" % ("N", "variant", "ms", "TFLOP/s", "% peak", "bit-identical / max rel err"))
    for n in sizes:
        a = rng.random((n, n), dtype=np.float32)
        b = rng.random((n, n), dtype=np.float32)
        A, B = cp.asarray(a), cp.asarray(b)
        # the reference: NumPy's product up to --numpy-max (the host's BLAS may be slow), cuBLAS's above
        want = a @ b if n <= args.numpy_max else cp.asnumpy(cp.matmul(A, B))
        scale = float(np.max(np.abs(want)))
        blocks, threads = ((n + 15) // 16, (n + 15) // 16), (16, 16)
        Cu = cp.zeros((n, n), dtype=cp.float32)
        untiled = program(UNTILED).configure(blocks, threads)
        untiled(A, B, Cu)
        cp.cuda.Device().synchronize()
        rows = {}
        for name, opts, unroll in variants:
            C = cp.zeros((n, n), dtype=cp.float32)
            launch = program(pipeline(opts, unroll)).configure(blocks, threads)
            t = timed(lambda: launch(A, B, C), args.reps)
            same = bool(cp.array_equal(C, Cu))
            err = float(np.max(np.abs(cp.asnumpy(C) - want)) / scale)
            good = same and err < 1e-4
            ok &= good
            tflops = 2.0 * n ** 3 / t / 1e12
            rows[name] = {"ms": t * 1e3, "tflops": tflops, "of_peak": tflops / args.peak,
                          "bit_identical_to_untiled": same, "max_rel_err_vs_numpy": err}
            print("%-6d %-26s %9.3f %8.2f %6.1f%%  %s / %.1e%s" % (n, name, t * 1e3, tflops, 100 * tflops / args.peak,
                                                                 same, err, "" if good else "  WRONG"))
            sys.stdout.flush()
            del C
        results["sizes"][str(n)] = dict(rows, reference="numpy" if n <= args.numpy_max else "cuBLAS")
        del A, B, Cu
        cp.get_default_memory_pool().free_all_blocks()
    print("%-26s %s" % ("variant", " ".join("%8d" % n for n in sizes)) + "   (TFLOP/s)")
    for name, _, _ in variants:
        print("%-26s %s" % (name, " ".join("%8.2f" % results["sizes"][str(n)][name]["tflops"] for n in sizes)))
    print("every variant bit-identical to the untiled compile and close to NumPy: %s" % ok)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
