#!/usr/bin/env python3
"""tiling_probe.py — the naive matmul (float32 accumulator, `return` guard) through kfront pipelines that differ only
in the tiling options, timed on one GPU, each result compared bit for bit with the untiled compile; then the
paths the default compile can take at run time.

usage: PYTHONPATH=<staged>/python bench/tiling_probe.py [--n N] [--reps R] [--only NAME,NAME]

Rows (N x N float32, CUDA events, median of R launches after a warm-up, 16x16 blocks unless said): the untiled
compile (canonicalize,cse,bce,dce: the reference), then canonicalize,cse,bce,tile-shared{OPTIONS},cse,hoist-checks,unroll,dce
for each OPTIONS below (the default pipeline's are the defaults: rx=4,ry=4,prefetch=1,uniform=1,wide=1,
min-blocks=2,unroll=1), each compared bit for bit with the reference; then the default compile launched with 32x8 and 32x32 blocks
(the kernel itself, not the variant) and with C passed as A (overlapping arrays: the kernel itself)."""
import argparse
import linecache
import os
import statistics
import sys

import numpy as np

np.row_stack = np.vstack

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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", help="comma-separated names of the variants to run (default: all)")
    args = ap.parse_args()
    from kfront import cuda, float32
    if not cuda.is_available():
        print("tiling_probe: no GPU: skipped")
        return 0
    import cupy as cp
    fn = "<tiling-probe>"
    linecache.cache[fn] = (len(KERNEL), None, KERNEL.splitlines(True), fn)
    g = {"cuda": cuda, "float32": float32}
    exec(compile(KERNEL, fn, "exec"), g)
    k = g["matmul_f32acc"]
    n = args.n
    rng = np.random.default_rng(1)
    A = cp.asarray(rng.random((n, n), dtype=np.float32))
    B = cp.asarray(rng.random((n, n), dtype=np.float32))
    C = cp.zeros((n, n), dtype=cp.float32)
    A2 = A.copy()

    def timed(launch):
        launch()
        cp.cuda.Device().synchronize()
        times = []
        for _ in range(args.reps):
            s, e = cp.cuda.Event(), cp.cuda.Event()
            s.record()
            launch()
            e.record()
            e.synchronize()
            times.append(cp.cuda.get_elapsed_time(s, e))
        return statistics.median(times)

    g16 = ((n + 15) // 16, (n + 15) // 16)
    from kfront import _kfront
    inputs = k._frozen() if hasattr(k, "_frozen") else None
    if inputs is None:
        k[g16, (16, 16)](A, B, C)
        inputs = k._frozen()

    def compiled(pipeline):
        return _kfront.Program(cuda._runtime.runtime(), inputs.sources, inputs.binding_list(), inputs.specs,
                               pipeline=pipeline).function("matmul_f32acc").configure(g16, (16, 16))

    ref = cp.zeros((n, n), dtype=cp.float32)
    untiled = compiled("canonicalize,cse,bce,dce")
    rows = [("untiled", untiled, ref)]
    variants = (
        ("plain 16x16, no prefetch", "rx=1,ry=1,prefetch=0"),
        ("plain 16x16", "rx=1,ry=1"),
        ("4x4, as before (no prefetch/uniform/wide, no register cap)", "prefetch=0,uniform=0,wide=0,min-blocks=0"),
        ("4x4 default", ""),
        ("4x4 prefetch=0", "prefetch=0"),
        ("4x4 uniform=0", "uniform=0"),
        ("4x4 wide=0", "wide=0"),
        ("4x4 unroll=0", "unroll=0"),
        ("4x4 double=1", "double=1"),
        ("4x4 double=1 prefetch=0", "double=1,prefetch=0"),
        ("4x4 min-blocks=0", "min-blocks=0"),
        ("4x4 min-blocks=1", "min-blocks=1"),
        ("4x4 depth=32", "depth=32"),
        ("2x2", "rx=2,ry=2"),
        ("8x4", "rx=8,ry=4"),
        ("8x4 min-blocks=1", "rx=8,ry=4,min-blocks=1"),
        ("4x8 min-blocks=1", "rx=4,ry=8,min-blocks=1"),
        ("8x8 min-blocks=1", "rx=8,ry=8,min-blocks=1"),
        ("8x8 min-blocks=1 prefetch=0", "rx=8,ry=8,min-blocks=1,prefetch=0"),
        ("8x8 min-blocks=1 double=1", "rx=8,ry=8,min-blocks=1,double=1"),
        ("8x8 min-blocks=1 double=1 prefetch=0", "rx=8,ry=8,min-blocks=1,double=1,prefetch=0"),
    )
    if args.only:
        keep = args.only.split(",")
        variants = tuple(v for v in variants if any(v[0] == k for k in keep))
    for name, opts in variants:
        pipe = "tile-shared%s,cse,hoist-checks,unroll,dce" % ("{%s}" % opts if opts else "")
        try:
            rows.append((name, compiled("canonicalize,cse,bce," + pipe), cp.zeros((n, n), dtype=cp.float32)))
        except Exception as e:  # noqa: BLE001
            print("%-28s compile failed: %s" % (name, e))
    for name, launch, out in rows:
        ms = timed(lambda: launch(A, B, out))
        same = "" if out is ref else ("  bit-identical to untiled: %s" % bool(cp.array_equal(out, ref)))
        print("%-58s %9.3f ms  %6.2f TFLOP/s%s" % (name, ms, 2.0 * n ** 3 / ms / 1e9, same), flush=True)
    for name, launch in (("default, C is A", lambda: k[g16, (16, 16)](A2, B, A2)),
                         ("default, 32x8 block", lambda: k[((n + 31) // 32, (n + 7) // 8), (32, 8)](A, B, C)),
                         ("default, 32x32 block", lambda: k[((n + 31) // 32, (n + 31) // 32), (32, 32)](A, B, C))):
        ms = timed(launch)
        print("%-58s %9.3f ms  %6.2f TFLOP/s" % (name, ms, 2.0 * n ** 3 / ms / 1e9), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
