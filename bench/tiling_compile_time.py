#!/usr/bin/env python3
"""tiling_compile_time.py — the compile time the tiling passes (pad-shared, tile-shared, unroll) add, on the
CPU machine: every `ptx` row of the seed manifest, and the naive matmuls of bench/tiling_vs_numba.py.

usage: bench/tiling_compile_time.py [--kfront BUILD/bin/kfront] [--reps R]

For each kernel: `kfront compile --emit=ptx` (the whole compile: frontend, passes, libNVVM) with the default
pipeline and with the same pipeline less pad-shared, tile-shared and unroll, each the least CPU time (user +
system) of R runs of the process (wall clock on a shared machine measures the other users); and the passes' own time from
`kfront-opt --time-passes` over the kernel's kir after canonicalize,cse,bce (the rest of the default pipeline,
median of R; --time-passes reports tenths of a millisecond). Prints one row per kernel and the totals.
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

NAIVE = '''from numba import cuda, float32


@cuda.jit('void(float32[:,:], float32[:,:], float32[:,:])')
def matmul_f64acc(A, B, C):
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        acc = 0.0
        for k in range(A.shape[1]):
            acc += A[i, k] * B[k, j]
        C[i, j] = acc


@cuda.jit('void(float32[:,:], float32[:,:], float32[:,:])')
def matmul_f32acc(A, B, C):
    i, j = cuda.grid(2)
    if i >= C.shape[0] or j >= C.shape[1]:
        return
    acc = float32(0)
    for k in range(A.shape[1]):
        acc += A[i, k] * B[k, j]
    C[i, j] = acc
'''


def seed_rows():
    for base in (os.environ.get("KFRONT_ACCEPTANCE_DIR"), os.path.join(ROOT, "test", "acceptance")):
        if base and os.path.exists(os.path.join(base, "seeds", "manifest.tsv")):
            seeds = os.path.join(base, "seeds")
            break
    else:
        return
    with open(os.path.join(seeds, "manifest.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            file, func, sig, expect = line.rstrip("\n").split("\t")
            if expect == "ptx":
                yield os.path.join(seeds, file), func, sig


def min_time(cmd, reps):
    """The least CPU time (user + system) of the process over reps runs."""
    times = []
    for _ in range(reps):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(times)


def pass_times(opt, kir, pipeline, reps):
    """The median over reps of each named pass's time in kfront-opt --time-passes (seconds)."""
    runs = {}
    for _ in range(reps):
        out = subprocess.run([opt, kir, "--pass-pipeline=" + pipeline, "--time-passes", "-o", os.devnull],
                             check=True, capture_output=True, text=True).stderr
        seen = {}
        for m in re.finditer(r"^\s+([0-9.]+) \(\s*[0-9.]+%\)\s+(\S+)$", out, re.M):
            seen[m.group(2)] = seen.get(m.group(2), 0.0) + float(m.group(1))
        for k, v in seen.items():
            runs.setdefault(k, []).append(v)
    return {k: statistics.median(v) for k, v in runs.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kfront", default=os.path.join(ROOT, "build", "bin", "kfront"))
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    kfront = args.kfront
    opt = os.path.join(os.path.dirname(kfront), "kfront-opt")
    full = "canonicalize,cse,bce,pad-shared,tile-shared,cse,hoist-checks,unroll,dce"
    without = "canonicalize,cse,bce,cse,hoist-checks,dce"
    tmp = tempfile.mkdtemp()
    naive = os.path.join(tmp, "naive.py")
    with open(naive, "w") as f:
        f.write(NAIVE)
    rows = list(seed_rows()) + [(naive, "matmul_f64acc", None), (naive, "matmul_f32acc", None)]
    print("%-44s %10s %10s %8s %9s %9s %9s" % ("kernel", "ptx cpu ms", "untiled", "added", "pad ms", "tile ms", "unroll"))
    tot = [0.0] * 6
    for path, func, sig in rows:
        base = [kfront, "compile", path, "-k", func, "--emit=ptx", "--arch=sm_90", "-o", os.devnull]
        if sig:
            base += ["--sig", sig]
        t_full = min_time(base + ["--pass-pipeline=" + full], args.reps)
        t_without = min_time(base + ["--pass-pipeline=" + without], args.reps)
        kir = os.path.join(tmp, "k.kir")
        pre = [kfront, "compile", path, "-k", func, "--emit=kir", "--pass-pipeline=canonicalize,cse,bce", "-o", kir]
        subprocess.run(pre + (["--sig", sig] if sig else []), check=True, capture_output=True)
        pt = pass_times(opt, kir, "pad-shared,tile-shared,cse,hoist-checks,unroll,dce", args.reps)
        vals = (t_full, t_without, t_full - t_without, pt.get("pad-shared", 0.0), pt.get("tile-shared", 0.0),
                pt.get("unroll", 0.0))
        tot = [a + b for a, b in zip(tot, vals)]
        name = "%s %s" % (os.path.basename(path), func) + (" " + sig if sig else "")
        print("%-44s %10.1f %10.1f %+8.1f %9.3f %9.3f %9.3f" % (name[:44], vals[0] * 1e3, vals[1] * 1e3,
                                                             vals[2] * 1e3, vals[3] * 1e3, vals[4] * 1e3,
                                                             vals[5] * 1e3))
    print("%-44s %10.1f %10.1f %+8.1f %9.3f %9.3f %9.3f" % ("total", *(x * 1e3 for x in tot)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
