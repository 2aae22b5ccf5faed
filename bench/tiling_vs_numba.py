#!/usr/bin/env python3
"""tiling_vs_numba.py — the naive matmul a Numba user writes, through kfront's default pipeline (tile-shared tiles
it) against Numba's naive kernel, Numba's and kfront's compiles of the seed's hand-tiled `fast_matmul`, and
cuBLAS SGEMM through CuPy (CUPY_TF32=0: no TF32); then a 3-point 1-D stencil and a 5-point 2-D Jacobi step
through kfront (its default: the cost model leaves them untiled; and tiled, halo-min-reuse=0) against Numba, as
a fraction of the bandwidth of a device-to-device copy of the same bytes; all in one process on one GPU.

usage: PYTHONPATH=<staged>/python bench/tiling_vs_numba.py [--n N] [--reps R] [--json FILE] [--stencil-n S]

Workload: C = A @ B, N x N float32 (default N = 4096), A and B uniform in [0, 1), CuPy arrays passed to every
kernel (__cuda_array_interface__), launched 16x16 on a grid of ceil(N/16)^2 blocks as the user wrote it. Two
naive kernels: `acc = 0.0` (a float64 accumulator, what `0.0` means in Numba) and `acc = float32(0)`. Time:
CUDA events around each launch on the default stream, median of R launches after one warm-up; TFLOP/s = 2 N^3 /
time. Correctness: kfront's tiled result is compared bit for bit with kfront's untiled compile of the same kernel
(the default pipeline without tile-shared) and with Numba's naive result; all against CuPy's within 1e-3
relative. `fast_matmul` (seed 002) needs N a multiple of 16; kfront's is also compiled without pad-shared.
Also the kfront matmul launched with 32x32 blocks (the kernel itself, not the 16x16 variant).

Stencils: float32, a[i-1], a[i], a[i+1] over S = 2^26 elements (256 threads a block) and u[i+-1, j], u[i, j+-1]
over sqrt(S) x sqrt(S) (16x16), each output written once; the effective bandwidth counts the input read once
and the output written once (8 S bytes) over the time, next to cp.copyto of S floats (read + write). kfront's
default compile (tile-shared's cost model decides: it leaves the 1-D stencil to L1 and tiles the Jacobi step,
whose warps read down columns), its compile without tile-shared and with it told to tile (halo-min-reuse=0),
and Numba; all outputs compared bit for bit.
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

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

NAIVE = '''
@cuda.jit
def matmul_f64acc(A, B, C):
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        acc = 0.0
        for k in range(A.shape[1]):
            acc += A[i, k] * B[k, j]
        C[i, j] = acc


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

STENCILS = '''
@cuda.jit
def stencil3(a, b):
    i = cuda.grid(1)
    if i >= 1 and i < a.shape[0] - 1:
        b[i] = float32(0.25) * a[i - 1] + float32(0.5) * a[i] + float32(0.25) * a[i + 1]


@cuda.jit
def jacobi5(u, v):
    i, j = cuda.grid(2)
    if i >= 1 and i < u.shape[0] - 1 and j >= 1 and j < u.shape[1] - 1:
        v[i, j] = float32(0.25) * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
'''


def module_from_text(text, name, **glb):
    """Runs source text as a module whose lines linecache knows (kfront reads kernels' source)."""
    filename = "<tiling-bench-%s>" % name
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), glb)
    return glb


def seed_fast_matmul_source():
    for base in (os.environ.get("KFRONT_ACCEPTANCE_DIR"), os.path.join(ROOT, "test", "acceptance")):
        if base and os.path.exists(os.path.join(base, "seeds", "s002_kernels.py")):
            with open(os.path.join(base, "seeds", "s002_kernels.py")) as f:
                return f.read()
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--json")
    ap.add_argument("--stencil-n", type=int, default=1 << 26)
    args = ap.parse_args()

    from kfront import cuda as kc, float32 as kf32, _kfront
    if not kc.is_available():
        print("tiling_vs_numba: no GPU: skipped (%s)" % kc._runtime.runtime().describe())
        return 0
    import cupy as cp
    import numba
    from numba import cuda as nc

    n, reps = args.n, args.reps
    rng = np.random.default_rng(1)
    A = cp.asarray(rng.random((n, n), dtype=np.float32))
    B = cp.asarray(rng.random((n, n), dtype=np.float32))
    ref = A @ B
    cp.cuda.Device().synchronize()
    blocks = ((n + 15) // 16, (n + 15) // 16)
    results = {}

    def timed(launch):
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

    def row(name, seconds, out=None):
        tflops = 2.0 * n ** 3 / seconds / 1e12
        err = None if out is None else float(cp.max(cp.abs(out - ref)) / cp.max(cp.abs(ref)))
        results[name] = {"ms": seconds * 1e3, "tflops": tflops, "max_rel_err_vs_cublas": err}
        print("%-34s %9.3f ms  %7.2f TFLOP/s%s" % (name, seconds * 1e3, tflops,
                                                   "" if err is None else "  (max rel err %.1e)" % err))

    kmods = module_from_text(NAIVE, "kfront", cuda=kc, float32=kf32)
    nmods = module_from_text(NAIVE, "numba", cuda=nc, float32=numba.float32)
    for name in ("matmul_f64acc", "matmul_f32acc"):
        kk, nk = kmods[name], nmods[name]
        Ck, Cn = cp.zeros((n, n), dtype=cp.float32), cp.zeros((n, n), dtype=cp.float32)
        row("kfront %s (tiled)" % name, timed(lambda: kk[blocks, (16, 16)](A, B, Ck)), Ck)
        row("numba  %s" % name, timed(lambda: nk[blocks, (16, 16)](A, B, Cn)), Cn)
        # kfront's untiled compile of the same kernel: the default pipeline without tile-shared
        inputs = kk._frozen()
        untiled = _kfront.Program(kc._runtime.runtime(), inputs.sources, inputs.binding_list(), inputs.specs,
                                  pipeline="canonicalize,cse,bce,dce,grid-stride").function(name)
        Cu = cp.zeros((n, n), dtype=cp.float32)
        launch_u = untiled.configure(blocks, (16, 16))
        row("kfront %s (untiled)" % name, timed(lambda: launch_u(A, B, Cu)), Cu)
        same_untiled = bool(cp.array_equal(Ck, Cu))
        same_numba = bool(cp.array_equal(Ck, Cn))
        results["kfront %s (tiled)" % name].update(bit_identical_to_untiled=same_untiled,
                                                    bit_identical_to_numba=same_numba)
        print("    tiled == untiled bit for bit: %s; == numba's naive: %s" % (same_untiled, same_numba))
        C32 = cp.zeros((n, n), dtype=cp.float32)
        b32 = ((n + 31) // 32, (n + 31) // 32)
        row("kfront %s (32x32: the kernel)" % name, timed(lambda: kk[b32, (32, 32)](A, B, C32)), C32)
        results["kfront %s (32x32: the kernel)" % name]["bit_identical_to_untiled"] = bool(cp.array_equal(C32, Cu))

    src = seed_fast_matmul_source()
    if src is not None and n % 16 == 0:
        ksrc = src.replace("from numba import cuda, float32", "from kfront import cuda, float32")
        kfm = module_from_text(ksrc, "seed-kfront", __name__="seed002k")["fast_matmul"]
        nfm = module_from_text(src, "seed-numba", __name__="seed002n")["fast_matmul"]
        Ck, Cn = cp.zeros((n, n), dtype=cp.float32), cp.zeros((n, n), dtype=cp.float32)
        row("kfront fast_matmul (seed 002)", timed(lambda: kfm[blocks, (16, 16)](A, B, Ck)), Ck)
        row("numba  fast_matmul (seed 002)", timed(lambda: nfm[blocks, (16, 16)](A, B, Cn)), Cn)
        fin = kfm._frozen()
        unpadded = _kfront.Program(kc._runtime.runtime(), fin.sources, fin.binding_list(), fin.specs,
                                   pipeline="canonicalize,cse,bce,tile-shared,cse,hoist-checks,unroll,dce,grid-stride"
                                   ).function("fast_matmul").configure(blocks, (16, 16))
        Cp = cp.zeros((n, n), dtype=cp.float32)
        row("kfront fast_matmul without pad-shared", timed(lambda: unpadded(A, B, Cp)), Cp)
        print("    padded == unpadded == numba bit for bit: %s" % (bool(cp.array_equal(Ck, Cp))
                                                                  and bool(cp.array_equal(Ck, Cn))))
    C = cp.zeros((n, n), dtype=cp.float32)
    row("cuBLAS SGEMM (CuPy, TF32 off)", timed(lambda: cp.matmul(A, B, out=C)), C)
    del A, B, C

    # ---- stencils, against the bandwidth of a copy
    S = args.stencil_n
    side = int(S ** 0.5)
    ks = module_from_text(STENCILS, "stencils-kfront", cuda=kc, float32=kf32)
    ns = module_from_text(STENCILS, "stencils-numba", cuda=nc, float32=numba.float32)
    src = cp.asarray(rng.random(S, dtype=np.float32))
    dst = cp.empty_like(src)
    copy_s = timed(lambda: cp.copyto(dst, src))
    copy_bw = 8.0 * S / copy_s / 1e9
    results["copy"] = {"ms": copy_s * 1e3, "GB/s": copy_bw}
    print("%-34s %9.3f ms  %7.1f GB/s (read + write of %d floats)" % ("cp.copyto", copy_s * 1e3, copy_bw, S))

    def srow(name, seconds, elems):
        bw = 8.0 * elems / seconds / 1e9
        results[name] = {"ms": seconds * 1e3, "GB/s": bw, "of_copy": bw / copy_bw}
        print("%-34s %9.3f ms  %7.1f GB/s  %5.1f%% of copy" % (name, seconds * 1e3, bw, 100 * bw / copy_bw))

    tiled_pipe = "canonicalize,cse,bce,pad-shared,tile-shared{halo-min-reuse=0},cse,hoist-checks,unroll,dce,grid-stride"
    untiled_pipe = "canonicalize,cse,bce,pad-shared,cse,hoist-checks,unroll,dce,grid-stride"
    for name, shape, block, arr in (("stencil3", (S,), (256,), src), ("jacobi5", (side, side), (16, 16),
                                                                       src[:side * side].reshape(side, side))):
        grid = tuple((d + b - 1) // b for d, b in zip(shape, block))
        kk, nk = ks[name], ns[name]
        outs = {}
        fin = kk._frozen()

        def program(pipe):
            return _kfront.Program(kc._runtime.runtime(), fin.sources, fin.binding_list(), fin.specs,
                                   pipeline=pipe).function(name).configure(grid, block)

        for label, launch in (("kfront %s (default compile)" % name, kk[grid, block]),
                              ("kfront %s (untiled)" % name, program(untiled_pipe)),
                              ("kfront %s (tiled, halo)" % name, program(tiled_pipe)),
                              ("numba  %s" % name, nk[grid, block])):
            out = cp.zeros(shape, dtype=cp.float32)
            srow(label, timed(lambda: launch(arr, out)), arr.size)
            outs[label] = out
        first = next(iter(outs.values()))
        same = all(bool(cp.array_equal(first, o)) for o in outs.values())
        results["kfront %s (tiled, halo)" % name]["bit_identical"] = same
        print("    default == untiled == tiled == numba bit for bit: %s" % same)

    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
