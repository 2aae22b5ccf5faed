#!/usr/bin/env python3
"""suite_vs_numba.py — issue 24's workload suite: kernels written as Numba users write them (tutorials, the seeds,
Stack Overflow answers: one thread per element, `i, j = cuda.grid(2)`, a thread per row, shared-memory block
reductions, atomics into few bins), each compiled by kfront and by numba-cuda from the same source, run on the same
GPU in the same process, every result checked against NumPy before it is timed, and reported as milliseconds, the
ratio numba/kfront (> 1: kfront faster) and a fraction of the device's limit: the copy bandwidth measured in the
same run for memory-bound rows, the FP32 peak (SMs x 128 lanes x 2 x clock) for compute-bound ones. Where CuPy
does the same thing (cuBLAS matmul and matvec, its transpose copy, sum, an elementwise saxpy) its time is a row of
its own.

usage: [PYTHONPATH=<build>/python] bench/suite_vs_numba.py [--reps R] [--only NAME,...] [--json FILE]
                                                           [--block-pair off|on|both]

--block-pair (passes/block_pair.c, issue 24): on runs kfront with block-pair's launch variants (KFRONT_BLOCK_PAIR=1,
off by default); both runs the suite twice, each in a child process (off, then on), and prints each row's kfront
time and fraction of its limit without and with them side by side (with --json: both runs' results, "off", "on").

Method. Each module launches on its own device arrays (inputs copied once; outputs start at zero, the value the
elements a kernel leaves alone keep, and none of the references is zero where the kernel writes); the first launch's result is compared with NumPy's (exact for integer and copy kernels; floats to a
tolerance that says how the order of operations may differ: float64 accumulation against NumPy's pairwise sum,
atomics' order); then the module's CUDA events around REPS back-to-back launches after a warm-up, best of 3
batches, per launch. Launches are asynchronous, and every kernel here takes longer than either module's host
cost per launch, so the host side is hidden (bench/launch_args.py measures it). Bytes are the fewest a kernel
must move (each input read once, each output written once: in-place arrays twice); flops as counted in each
row's note. The copy bandwidth is a 1 GiB device-to-device copy (read + written bytes over time, best of 10).

Without a GPU (or KFRONT_SIM=1): every row's kfront kernel runs once on the simulator in a small form (sizes of a
few thousand elements), checked against NumPy; prints "simulator: checked, not timed" and
exits 0 (numba-cuda is not needed). python/tests/test_bench_suite.py runs that form.
"""
import argparse
import json
import linecache
import math
import os
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

# The kernels, one module text compiled by both libraries (`cuda`, `float32`, `math` are the module's globals).
SRC = '''
def inc2d(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


def inc2d_yx(a):
    y, x = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


def jacobi5(u, v):
    i, j = cuda.grid(2)
    if i >= 1 and i < u.shape[0] - 1 and j >= 1 and j < u.shape[1] - 1:
        v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])


def blur3(img, out):
    i, j = cuda.grid(2)
    h, w = img.shape
    if i >= 1 and i < h - 1 and j >= 1 and j < w - 1:
        s = float32(0)
        for di in range(-1, 2):
            for dj in range(-1, 2):
                s += img[i + di, j + dj]
        out[i, j] = s / float32(9)


def transpose(a, b):
    i, j = cuda.grid(2)
    if i < b.shape[0] and j < b.shape[1]:
        b[i, j] = a[j, i]


def grayscale(rgb, gray):
    i, j = cuda.grid(2)
    if i < gray.shape[0] and j < gray.shape[1]:
        gray[i, j] = 0.299 * rgb[i, j, 0] + 0.587 * rgb[i, j, 1] + 0.114 * rgb[i, j, 2]


def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def matvec(A, x, y):
    i = cuda.grid(1)
    if i < A.shape[0]:
        s = 0.0
        for k in range(A.shape[1]):
            s += A[i, k] * x[k]
        y[i] = s


def softmax_rows(x, y):
    i = cuda.grid(1)
    if i < x.shape[0]:
        m = x[i, 0]
        for j in range(1, x.shape[1]):
            m = max(m, x[i, j])
        s = float32(0)
        for j in range(x.shape[1]):
            s += math.exp(x[i, j] - m)
        for j in range(x.shape[1]):
            y[i, j] = math.exp(x[i, j] - m) / s


def block_sum(x, out):
    tmp = cuda.shared.array(256, float32)
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    tmp[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    s = 128
    while s > 0:
        if t < s:
            tmp[t] += tmp[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        cuda.atomic.add(out, 0, tmp[0])


def histogram(x, bins):
    i = cuda.grid(1)
    if i < x.shape[0]:
        cuda.atomic.add(bins, int(x[i] * bins.shape[0]), 1)


def matmul(A, B, C):
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        acc = float32(0)
        for k in range(A.shape[1]):
            acc += A[i, k] * B[k, j]
        C[i, j] = acc


def nbody(pos, acc, eps2):
    i = cuda.grid(1)
    if i < pos.shape[0]:
        xi = pos[i, 0]
        yi = pos[i, 1]
        zi = pos[i, 2]
        ax = float32(0)
        ay = float32(0)
        az = float32(0)
        for j in range(pos.shape[0]):
            dx = pos[j, 0] - xi
            dy = pos[j, 1] - yi
            dz = pos[j, 2] - zi
            d2 = dx * dx + dy * dy + dz * dz + eps2
            inv = float32(1) / math.sqrt(d2)
            s = pos[j, 3] * inv * inv * inv
            ax += dx * s
            ay += dy * s
            az += dz * s
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az


def cnd(d):
    A1 = 0.31938153
    A2 = -0.356563782
    A3 = 1.781477937
    A4 = -1.821255978
    A5 = 1.330274429
    RSQRT2PI = 0.39894228040143267793994605993438
    K = 1.0 / (1.0 + 0.2316419 * math.fabs(d))
    ret_val = (RSQRT2PI * math.exp(-0.5 * d * d) *
               (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5))))))
    if d > 0:
        ret_val = 1.0 - ret_val
    return ret_val


def black_scholes(callResult, putResult, S, X, T, R, V):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if i >= S.shape[0]:
        return
    sqrtT = math.sqrt(T[i])
    d1 = (math.log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrtT)
    d2 = d1 - V * sqrtT
    cndd1 = cnd(d1)
    cndd2 = cnd(d2)
    expRT = math.exp((-1. * R) * T[i])
    callResult[i] = (S[i] * cndd1 - X[i] * expRT * cndd2)
    putResult[i] = (X[i] * expRT * (1.0 - cndd2) - S[i] * (1.0 - cndd1))
'''
DEVICE_FUNCTIONS = ("cnd",)
KERNELS = ("inc2d", "inc2d_yx", "jacobi5", "blur3", "transpose", "grayscale", "saxpy", "matvec", "softmax_rows",
           "block_sum", "histogram", "matmul", "nbody", "black_scholes")


def compile_module(cuda_mod):
    """The kernels of SRC, jitted by `cuda_mod` (kfront.cuda or numba.cuda); source lines known to linecache."""
    filename = "<bench-suite-%s>" % cuda_mod.__name__
    linecache.cache[filename] = (len(SRC), None, SRC.splitlines(True), filename)
    glb = {"cuda": cuda_mod, "math": math, "float32": np.float32}
    exec(compile(SRC, filename, "exec"), glb)
    for name in DEVICE_FUNCTIONS:
        glb[name] = cuda_mod.jit(device=True)(glb[name])
    return {k: cuda_mod.jit(glb[k]) for k in KERNELS}


def grid2(shape, block=(16, 16)):
    return ((shape[0] + block[0] - 1) // block[0], (shape[1] + block[1] - 1) // block[1]), block


def grid1(n, block=256):
    return ((n + block - 1) // block,), (block,)


class Row:
    """One workload: kernel, host inputs (outputs included, at their initial values), which arguments are outputs,
    launch configuration, the NumPy reference of the outputs, how to compare, and what bounds it."""

    def __init__(self, name, kernel, args, outs, launch, want, *, nbytes=0, flops=0, rtol=0.0, atol=0.0,
                 note="", cupy=None):
        self.name, self.kernel, self.args, self.outs, self.launch, self.want = name, kernel, args, outs, launch, want
        self.nbytes, self.flops, self.rtol, self.atol, self.note, self.cupy = nbytes, flops, rtol, atol, note, cupy


def rows(small, cp=None):
    rng = np.random.default_rng(0)
    f32 = np.float32
    out = []

    def add(*a, **k):
        out.append(Row(*a, **k))

    n2 = 96 if small else 8192                        # 2-D images: 8192^2 float32 = 256 MiB each
    a = rng.random((n2, n2), dtype=f32)
    add("inc2d", "inc2d", [a.copy()], [0], grid2(a.shape), [a + f32(1)], nbytes=2 * a.nbytes,
        note="x, y = cuda.grid(2); a[x, y] += 1 (lanes stride a row)")
    add("inc2d_yx", "inc2d_yx", [a.copy()], [0], grid2(a.shape), [a + f32(1)], nbytes=2 * a.nbytes,
        note="the same written y, x = cuda.grid(2): coalesced as written")
    v0 = np.zeros_like(a)
    jac = v0.copy()
    jac[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1].astype(np.float64) + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
    add("jacobi5", "jacobi5", [a, v0.copy()], [1], grid2(a.shape), [jac], nbytes=2 * a.nbytes, rtol=1e-6,
        note="5-point stencil, i, j = cuda.grid(2), float64 arithmetic (0.25 is a float64)")
    blur = v0.copy()
    acc = np.zeros((n2 - 2, n2 - 2), f32)
    for di in range(3):
        for dj in range(3):
            acc += a[di:n2 - 2 + di, dj:n2 - 2 + dj]
    blur[1:-1, 1:-1] = acc / f32(9)
    add("blur3", "blur3", [a, v0.copy()], [1], grid2(a.shape), [blur], nbytes=2 * a.nbytes, rtol=1e-6,
        note="3x3 box filter, float32")
    add("transpose", "transpose", [a, v0.copy()], [1], grid2(a.shape), [a.T.copy()], nbytes=2 * a.nbytes,
        note="b[i, j] = a[j, i] (one side strided)",
        cupy=(lambda d: cp.ascontiguousarray(d[0].T)) if cp is not None else None)
    rgb = rng.integers(0, 256, (n2, n2, 3), dtype=np.uint8)
    gray = (0.299 * rgb[:, :, 0] + 0.587 * rgb[:, :, 1] + 0.114 * rgb[:, :, 2]).astype(f32)
    add("grayscale", "grayscale", [rgb, np.zeros((n2, n2), f32)], [1], grid2(gray.shape), [gray],
        nbytes=rgb.nbytes + gray.nbytes, rtol=1e-6, note="uint8 RGB (H, W, 3) to float32")

    n1 = 4000 if small else 64 << 20                 # 1-D: 64M float32
    x = rng.random(n1, dtype=f32)
    y = rng.random(n1, dtype=f32)
    add("saxpy", "saxpy", [f32(2.5), x, y, np.zeros_like(x)], [3], grid1(n1), [f32(2.5) * x + y],
        nbytes=3 * x.nbytes, rtol=1e-6, note="a * x[i] + y[i], float32 (both compilers fuse it into an fma)",
        cupy=(lambda d: _cupy_saxpy(cp)(f32(2.5), d[1], d[2], d[3])) if cp is not None else None)
    bsum = np.zeros(1, f32)
    add("block_sum", "block_sum", [x, bsum], [1], grid1(n1), [np.array([x.astype(np.float64).sum()], f32)],
        nbytes=x.nbytes, rtol=1e-4, note="shared-memory tree per block, one float32 atomic per block",
        cupy=(lambda d: cp.sum(d[0])) if cp is not None else None)
    bins = np.bincount((x.astype(np.float64) * 256).astype(np.int64), minlength=256).astype(np.int32)
    add("histogram", "histogram", [x, np.zeros(256, np.int32)], [1], grid1(n1), [bins], nbytes=x.nbytes,
        note="cuda.atomic.add(bins, int(x[i] * 256), 1), one thread per element")

    nb = 4000 if small else 1 << 24                  # Black-Scholes: 16M float64 options
    S, X, T = rng.uniform(5, 30, nb), rng.uniform(1, 100, nb), rng.uniform(0.25, 10, nb)
    call, put = _black_scholes_ref(S, X, T, 0.02, 0.30)
    add("black_scholes", "black_scholes", [np.zeros(nb), np.zeros(nb), S, X, T, 0.02, 0.30], [0, 1],
        grid1(nb, 128), [call, put], nbytes=5 * S.nbytes, rtol=1e-9, atol=1e-9,
        note="float64 (Numba's promotion), 128 threads per block")

    nm = 96 if small else 16384                      # matrix-vector: 16384^2 float32
    A = rng.random((nm, nm), dtype=f32)
    xv = rng.random(nm, dtype=f32)
    add("matvec", "matvec", [A, xv, np.zeros(nm, f32)], [2], grid1(nm),
        [(A.astype(np.float64) @ xv.astype(np.float64)).astype(f32)], nbytes=A.nbytes + xv.nbytes + 4 * nm,
        rtol=1e-6, note="one thread per row, float64 accumulator (s = 0.0)",
        cupy=(lambda d: d[0] @ d[1]) if cp is not None else None)
    ns = (64, 48) if small else (1 << 16, 512)       # softmax over rows: 65536 x 512 float32
    xs = rng.standard_normal(ns, dtype=f32)
    e = np.exp(xs - xs.max(axis=1, keepdims=True))
    add("softmax_rows", "softmax_rows", [xs, np.zeros_like(xs)], [1], grid1(ns[0]),
        [(e / e.sum(axis=1, keepdims=True)).astype(f32)], nbytes=2 * xs.nbytes, rtol=1e-5, atol=1e-7,
        note="one thread per row, three passes over the row")

    for nmm in ((48, 40) if small else (4096, 3000)):  # naive matmul, float32 accumulator
        Am = rng.random((nmm, nmm), dtype=f32)
        Bm = rng.random((nmm, nmm), dtype=f32)
        add("matmul%d" % nmm, "matmul", [Am, Bm, np.zeros((nmm, nmm), f32)], [2], grid2((nmm, nmm)),
            [(Am.astype(np.float64) @ Bm).astype(f32)], flops=2 * nmm ** 3, rtol=1e-4,
            note="C[i, j] = sum_k A[i, k] * B[k, j], float32 accumulator",
            cupy=(lambda d: d[0] @ d[1]) if cp is not None else None)
    nn = 256 if small else 1 << 15                   # n-body: 32768 bodies, all pairs
    pos = np.concatenate([rng.standard_normal((nn, 3), dtype=f32), rng.random((nn, 1), dtype=f32)], axis=1)
    add("nbody", "nbody", [pos, np.zeros((nn, 3), f32), f32(0.01)], [1], grid1(nn), [_nbody_ref(pos, 0.01)],
        flops=20 * nn * nn, rtol=1e-3, atol=1e-3, note="all pairs, float32, 20 flops a pair")
    return out


def _cupy_saxpy(cp, cache={}):
    if "k" not in cache:
        cache["k"] = cp.ElementwiseKernel("float32 a, float32 x, float32 y", "float32 out", "out = a * x + y",
                                          "suite_saxpy")
    return cache["k"]


def _black_scholes_ref(S, X, T, R, V):
    def cnd(d):
        K = 1.0 / (1.0 + 0.2316419 * np.abs(d))
        r = 0.39894228040143267793994605993438 * np.exp(-0.5 * d * d) * (
            K * (0.31938153 + K * (-0.356563782 + K * (1.781477937 + K * (-1.821255978 + K * 1.330274429)))))
        return np.where(d > 0, 1.0 - r, r)
    sqrtT = np.sqrt(T)
    d1 = (np.log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrtT)
    d2 = d1 - V * sqrtT
    expRT = np.exp(-R * T)
    return S * cnd(d1) - X * expRT * cnd(d2), X * expRT * (1.0 - cnd(d2)) - S * (1.0 - cnd(d1))


def _nbody_ref(pos, eps2):
    p = pos.astype(np.float64)
    out = np.zeros((len(p), 3))
    for i0 in range(0, len(p), 1024):
        d = p[None, :, :3] - p[i0:i0 + 1024, None, :3]
        inv = 1.0 / np.sqrt((d * d).sum(axis=2) + eps2)
        out[i0:i0 + 1024] = (d * (p[None, :, 3] * inv ** 3)[:, :, None]).sum(axis=1)
    return out.astype(np.float32)


def check(row, who, got):
    for g, w in zip(got, row.want):
        ok = np.array_equal(g, w) if row.rtol == 0 and row.atol == 0 else np.allclose(g, w, rtol=row.rtol,
                                                                                        atol=row.atol)
        if not ok:
            bad = np.argwhere(~np.isclose(g, w, rtol=row.rtol, atol=row.atol) if g.dtype.kind == "f"
                              else g != w)
            raise SystemExit("%s: %s's result differs from NumPy's (%d elements, first at %s: %r against %r)"
                             % (row.name, who, len(bad), tuple(bad[0]), g[tuple(bad[0])], w[tuple(bad[0])]))


def run_checked(cuda_mod, kern, row):
    dev = [cuda_mod.to_device(a) if isinstance(a, np.ndarray) else a for a in row.args]
    grid, block = row.launch
    kern[grid, block](*dev)
    cuda_mod.synchronize()
    check(row, cuda_mod.__name__.split(".")[0], [dev[i].copy_to_host() for i in row.outs])
    return dev


def time_events(cuda_mod, fn, reps):
    fn()
    cuda_mod.synchronize()
    best = float("inf")
    for _ in range(3):
        start, end = cuda_mod.event(), cuda_mod.event()
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        end.synchronize()
        best = min(best, cuda_mod.event_elapsed_time(start, end) / reps)
    return best


def copy_bandwidth(cuda_mod):
    n = 1 << 28  # 1 GiB of float32
    src = cuda_mod.device_array(n, np.float32)
    dst = cuda_mod.device_array(n, np.float32)
    ms = time_events(cuda_mod, lambda: dst.copy_to_device(src), 10)
    return 2 * 4 * n / (ms * 1e-3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--only")
    ap.add_argument("--json")
    ap.add_argument("--block-pair", choices=("off", "on", "both"), default=None)
    args = ap.parse_args()
    if args.block_pair == "both":
        return block_pair_both(args)
    if args.block_pair is not None:  # before kfront's runtime starts (its pipeline is chosen then)
        os.environ["KFRONT_BLOCK_PAIR"] = "1" if args.block_pair == "on" else "0"
        import kfront.config
        kfront.config.reload_config()
    from kfront import cuda as kc
    only = set(args.only.split(",")) if args.only else None
    sim = os.environ.get("KFRONT_SIM") == "1" or not kc.is_available()
    if not sim:
        from numba import cuda as nc
    if sim:
        import warnings
        warnings.filterwarnings("ignore", message="Grid size")  # the small forms' grids
        kk = compile_module(kc)
        for row in rows(True):
            if only and row.name not in only:
                continue
            run_checked(kc, kk[row.kernel], row)
            print("%-14s simulator: checked, not timed" % row.name)
        print("suite_vs_numba: no GPU: timing skipped")
        return 0

    try:
        import cupy as cp
    except ImportError:
        cp = None
    dev = kc.get_current_device()
    peak = dev.MULTIPROCESSOR_COUNT * 128 * 2 * dev.CLOCK_RATE * 1e3  # FP32 lanes per SM on sm_90: 128
    bw = copy_bandwidth(kc)
    print("device: %s, copy bandwidth %.2f TB/s (measured), FP32 peak %.1f TFLOP/s (SMs x 128 x 2 x clock)"
          % (dev.name, bw / 1e12, peak / 1e12))
    kk, nk = compile_module(kc), compile_module(nc)
    results = {"copy_bw": bw, "fp32_peak": peak, "block_pair": os.environ.get("KFRONT_BLOCK_PAIR") == "1", "rows": {}}
    print("%-14s %10s %10s %9s %8s %8s %10s  %s" % ("workload", "kfront ms", "numba ms", "numba/kf", "kf roof",
                                                      "nb roof", "cupy ms", "what"))
    for row in rows(False, cp):
        if only and row.name not in only:
            continue
        t = {}
        for who, mod, ks in (("kfront", kc, kk), ("numba", nc, nk)):
            d = run_checked(mod, ks[row.kernel], row)
            grid, block = row.launch
            launch = ks[row.kernel][grid, block]
            t[who] = time_events(mod, lambda: launch(*d), args.reps)
            del d
        cupy_ms = None
        if row.cupy is not None:
            d = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in row.args]
            start, end = cp.cuda.Event(), cp.cuda.Event()
            row.cupy(d)
            best = float("inf")
            for _ in range(3):
                start.record()
                for _ in range(args.reps):
                    row.cupy(d)
                end.record()
                end.synchronize()
                best = min(best, cp.cuda.get_elapsed_time(start, end) / args.reps)
            cupy_ms = best
            del d
        if row.flops:
            roof = [row.flops / (t[w] * 1e-3) / peak for w in ("kfront", "numba")]
            unit = "of FP32 peak"
        else:
            roof = [row.nbytes / (t[w] * 1e-3) / bw for w in ("kfront", "numba")]
            unit = "of copy bw"
        results["rows"][row.name] = {"kfront_ms": t["kfront"], "numba_ms": t["numba"], "cupy_ms": cupy_ms,
                                     "numba_over_kfront": t["numba"] / t["kfront"], "kfront_roof": roof[0],
                                     "numba_roof": roof[1], "roof": unit, "bytes": row.nbytes, "flops": row.flops,
                                     "note": row.note}
        print("%-14s %10.3f %10.3f %8.2fx %7.1f%% %7.1f%% %10s  %s (%s)" % (
            row.name, t["kfront"], t["numba"], t["numba"] / t["kfront"], 100 * roof[0], 100 * roof[1],
            "%.3f" % cupy_ms if cupy_ms is not None else "-", unit, row.note), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


def block_pair_both(args):
    """The suite without and with block-pair's variants, each in a child process (the runtime's pipeline is chosen
    when it starts), then the rows side by side."""
    import subprocess
    import tempfile
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("off", "on"):
            out = os.path.join(tmp, mode + ".json")
            cmd = [sys.executable, os.path.abspath(__file__), "--reps", str(args.reps), "--json", out,
                   "--block-pair", mode]
            if args.only:
                cmd += ["--only", args.only]
            env = {k: v for k, v in os.environ.items() if k != "KFRONT_BLOCK_PAIR"}
            if mode == "on":
                env["KFRONT_BLOCK_PAIR"] = "1"
            print("== block-pair %s" % mode, flush=True)
            r = subprocess.run(cmd, env=env)
            if r.returncode != 0:
                return r.returncode
            if os.path.exists(out):  # the simulator's form writes none
                with open(out) as f:
                    res[mode] = json.load(f)
    if len(res) < 2:
        return 0
    print("\n== block-pair off vs on (kfront ms; fraction of the row's limit; off/on > 1: the variant faster)")
    print("%-14s %10s %10s %8s %8s %8s %10s" % ("workload", "off ms", "on ms", "off/on", "off roof", "on roof",
                                                 "numba ms"))
    for name, off in res["off"]["rows"].items():
        on = res["on"]["rows"].get(name)
        if not on:
            continue
        print("%-14s %10.3f %10.3f %7.2fx %7.1f%% %7.1f%% %10.3f" % (
            name, off["kfront_ms"], on["kfront_ms"], off["kfront_ms"] / on["kfront_ms"], 100 * off["kfront_roof"],
            100 * on["kfront_roof"], on["numba_ms"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
