#!/usr/bin/env python3
"""multigpu.py — two GPUs against one, and a copy between them, through kfront's Python module:

usage: bench/multigpu.py [--reps N] [--rows R] [--cols C] [--mb MB] [--json FILE] [--allow-sim]
(the kfront module on PYTHONPATH: BUILD/python, or the folder bench/stage_gpu.sh made, DEST/python)

1. scaling: examples/multigpu_allreduce.py's kernel (y = A @ x by columns, float64, A R x C, default
   16384 x 8192 = 1 GiB) on GPU 0 over all the columns, against GPUs 0 and 1 each over half of them: the two
   launches made back to back from one thread (kfront's launches on device arrays are asynchronous, so both GPUs
   run at once), then both synchronised; "with combine" adds GPU 1's part to GPU 0's (a copy between the
   devices and a vectorized add on GPU 0). Medians of N runs (default 20) after one untimed run; every result
   checked against NumPy. (The example under torchrun measures the same with NCCL's all-reduce: run_multigpu.sh.)
2. copy between devices: a DeviceNDArray of MB MiB (default 1024) on GPU 0 copied into one on GPU 1
   (`dst.copy_to_device(src)`: peer access when the GPUs have it, else staged through host memory), against
   CuPy's copy of its arrays between the same GPUs (MemoryPointer.copy_from_device: cudaMemcpyPeer), each timed
   to completion on the host; GB/s = bytes / median time. CuPy missing: its row says so.
Prints a table and writes JSON (--json). With fewer than 2 GPUs: "NOT RUN: needs 2 GPUs" and exit status 2;
--allow-sim runs it on 2 simulated devices instead (checks the script; the times mean nothing there).
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def load_example():
    import importlib.util
    path = os.path.join(HERE, "..", "examples", "multigpu_allreduce.py")
    spec = importlib.util.spec_from_file_location("multigpu_allreduce", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def timed(fn, reps):
    fn()  # untimed: compiles, warms
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(out), out


def scaling(cuda, vectorize, args):
    ex = load_example()
    rng = np.random.default_rng(3)
    a = rng.standard_normal((args.rows, args.cols))
    x = rng.standard_normal(args.cols)
    want = a @ x
    threads = 128
    blocks = (args.rows + threads - 1) // threads

    @vectorize(["float64(float64, float64)"], target="cuda")
    def add(p, q):
        return p + q

    def shard(dev, cols):
        with cuda.gpus[dev]:
            return (cuda.to_device(np.ascontiguousarray(a[:, cols].T)), cuda.to_device(x[cols]),
                    cuda.device_array(args.rows))

    one = shard(0, slice(0, args.cols))
    half = args.cols // 2
    two = [shard(0, slice(0, half)), shard(1, slice(half, args.cols))]
    with cuda.gpus[0]:
        part1_on0 = cuda.device_array(args.rows)
        total = cuda.device_array(args.rows)

    def run_one():
        ex.partial_matvec[blocks, threads](*one)
        cuda.synchronize()

    def run_two(combine=False):
        for dev, (at, xs, y) in enumerate(two):
            with cuda.gpus[dev]:
                ex.partial_matvec[blocks, threads](at, xs, y)
        for dev in (1, 0):
            with cuda.gpus[dev]:
                cuda.synchronize()
        if combine:
            with cuda.gpus[0]:
                part1_on0.copy_to_device(two[1][2])
                add(two[0][2], part1_on0, out=total)
                cuda.synchronize()

    t1, _ = timed(run_one, args.reps)
    got1 = one[2].copy_to_host()
    t2, _ = timed(run_two, args.reps)
    got2 = two[0][2].copy_to_host() + two[1][2].copy_to_host()
    t2c, _ = timed(lambda: run_two(True), args.reps)
    got2c = total.copy_to_host()
    ok = all(np.allclose(g, want, rtol=1e-9, atol=1e-9) for g in (got1, got2, got2c))
    gib = a.nbytes / 2 ** 30
    return {"rows": args.rows, "cols": args.cols, "gib": gib, "one_gpu_ms": t1, "two_gpus_ms": t2,
            "two_gpus_with_combine_ms": t2c, "speedup": t1 / t2, "speedup_with_combine": t1 / t2c, "correct": ok}


def peer_copy(cuda, args):
    n = args.mb * 2 ** 20 // 8
    with cuda.gpus[0]:
        src = cuda.to_device(np.arange(n, dtype=np.float64))
    with cuda.gpus[1]:
        dst = cuda.device_array(n)

    def kfront_copy():
        dst.copy_to_device(src)
        with cuda.gpus[1]:
            cuda.synchronize()

    tk, _ = timed(kfront_copy, args.reps)
    probe = np.unique(np.r_[0, n // 3, n - 1])
    ok = all(dst[int(i)] == float(i) for i in probe)
    out = {"mib": args.mb, "peer_access": cuda.gpus[0].can_access_peer(cuda.gpus[1]),
           "kfront_ms": tk, "kfront_gbs": n * 8 / tk / 1e6, "kfront_correct": bool(ok)}
    try:
        import cupy
    except ImportError:
        out["cupy"] = "not installed"
        return out
    with cupy.cuda.Device(0):
        csrc = cupy.arange(n, dtype=cupy.float64)
    with cupy.cuda.Device(1):
        cdst = cupy.empty(n, dtype=cupy.float64)

    def cupy_copy():
        with cupy.cuda.Device(1):
            cdst.data.copy_from_device(csrc.data, n * 8)
            cupy.cuda.Device(1).synchronize()

    tc, _ = timed(cupy_copy, args.reps)
    out.update({"cupy_ms": tc, "cupy_gbs": n * 8 / tc / 1e6, "cupy_version": cupy.__version__,
                "cupy_correct": bool(float(cdst[n - 1].get()) == float(n - 1))})
    return out


def main():
    ap = argparse.ArgumentParser(description="two GPUs against one; copies between GPUs against CuPy")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--rows", type=int, default=16384)
    ap.add_argument("--cols", type=int, default=8192)
    ap.add_argument("--mb", type=int, default=1024)
    ap.add_argument("--json")
    ap.add_argument("--allow-sim", action="store_true")
    args = ap.parse_args()
    if args.allow_sim:
        os.environ.setdefault("KFRONT_SIM_DEVICES", "2")
    from kfront import config, cuda, vectorize
    if args.allow_sim:
        config.KFRONT_SIM_DEVICES = max(2, config.KFRONT_SIM_DEVICES)
    n = len(cuda.gpus)
    gpu = cuda.is_available()
    if n < 2 or not (gpu or args.allow_sim):
        print("multigpu: NOT RUN: needs 2 GPUs, this machine has %d %s (--allow-sim: 2 simulated devices)"
              % (n if gpu else 0, "GPU" if n == 1 and gpu else "GPUs"))
        return 2
    names = [d.name.decode() for d in list(cuda.gpus)[:2]]
    print("multigpu: %s, devices 0 and 1: %s" % ("GPU" if gpu else "SIMULATOR (times mean nothing)", names))
    res = {"devices": names, "gpu": gpu, "scaling": scaling(cuda, vectorize, args), "copy": peer_copy(cuda, args)}
    s, c = res["scaling"], res["copy"]
    print("scaling: A %dx%d float64 (%.2f GiB), y = A @ x by columns" % (s["rows"], s["cols"], s["gib"]))
    print("  1 GPU                  %9.3f ms" % s["one_gpu_ms"])
    print("  2 GPUs                 %9.3f ms   speedup %.2fx" % (s["two_gpus_ms"], s["speedup"]))
    print("  2 GPUs + combine       %9.3f ms   speedup %.2fx" % (s["two_gpus_with_combine_ms"],
                                                                 s["speedup_with_combine"]))
    print("  results %s" % ("match NumPy" if s["correct"] else "WRONG"))
    print("copy GPU 0 -> GPU 1, %d MiB (peer access: %s)" % (c["mib"], "yes" if c["peer_access"] else "no"))
    print("  kfront copy_to_device  %9.3f ms   %7.1f GB/s%s" % (c["kfront_ms"], c["kfront_gbs"],
                                                                 "" if c["kfront_correct"] else "  WRONG"))
    if "cupy_ms" in c:
        print("  cupy copy_from_device  %9.3f ms   %7.1f GB/s%s   (CuPy %s)" % (
            c["cupy_ms"], c["cupy_gbs"], "" if c["cupy_correct"] else "  WRONG", c["cupy_version"]))
    else:
        print("  cupy: %s" % c["cupy"])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0 if s["correct"] and c["kfront_correct"] and c.get("cupy_correct", True) else 1


if __name__ == "__main__":
    sys.exit(main())
