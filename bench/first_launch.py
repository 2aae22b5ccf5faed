#!/usr/bin/env python3
"""first_launch.py — the first launch in a fresh process: `kfront run` (disk cache empty, then warm) against a
fresh Python process that imports numba.cuda, defines the same kernel and calls it once.

usage: bench/first_launch.py [--reps N] [--n ELEMS] [--json FILE] [--allow-sim]

The workload: s001 `double` on ELEMS (default 2^20, a multiple of 128: the kernel has no guard) float64 from .npy files, 128 threads per block, host arrays
(copied to the device and back, as both tools do with NumPy arrays). Results are checked: kfront's by one more
(untimed) run with -o DIR, Numba's inside its process after the timed call.
  kfront cold  `kfront run s001_kernels.py -k double --grid G --block 128 in.npy out.npy -v` with
               KFRONT_CACHE_DIR set to a new empty directory (nothing compiled is found: frontend, passes,
               libNVVM, driver JIT of the PTX)
  kfront warm  the same command again with that cache directory (the kernel comes from the disk cache)
  numba        `python3 script.py`: import numpy and numba.cuda, np.load the same inputs, define `double` with
               @cuda.jit, call it once with the host arrays, cuda.synchronize(), compare with NumPy
Each is a fresh process, REPS times (default 3), medians. "process" is the wall time from spawning the process
to its exit, measured by this script; "first call" is, for Numba, the time from just before the call to just
after synchronize (compile, context, load, copies, launch) and, for kfront, its -v report's "ready in" (compile
or cache, load) + "launched in" (copies, launch, synchronize). The runtime's cuInit/context creation happens in
kfront before "ready in" is measured and in Numba inside the first call, so compare the process totals.
The CUDA driver keeps its own disk cache of PTX it has compiled to machine code (~/.nv/ComputeCache); the
untimed runs first fill it for both tools' PTX, so the rows above measure kfront's and Numba's own work with the
driver's cache warm. Two more rows repeat kfront cold and Numba with CUDA_CACHE_DISABLE=1 (every PTX JIT-compiled
by the driver: a first-ever run). A bare `python3 -c pass` and `python3 -c "import numpy"` are timed too.
Without a GPU: "no GPU: skipped" (exit 0); --allow-sim runs the kfront part on the simulator anyway.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kfront_ctypes  # noqa: E402
import seedmods  # noqa: E402

NUMBA_SCRIPT = r'''
import sys, time, json
t_start = time.perf_counter()
import numpy as np
np.row_stack = np.vstack  # numba-cuda 0.30.4 on NumPy 2
from numba import cuda
t_import = time.perf_counter()
a = np.load(sys.argv[1])
out = np.load(sys.argv[2])


@cuda.jit
def double(input_array, output_array):
    i = cuda.grid(1)
    output_array[i] = input_array[i] * 2


threads = 128
blocks = (a.shape[0] + threads - 1) // threads
t0 = time.perf_counter()
double[blocks, threads](a, out)
cuda.synchronize()
t1 = time.perf_counter()
ok = bool((out == a * 2).all())
print(json.dumps({"import_ms": (t_import - t_start) * 1e3, "first_call_ms": (t1 - t0) * 1e3, "ok": ok}))
'''


def timed(cmd, env=None, cwd=None):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)
    return (time.perf_counter() - t0) * 1e3, r


def med(xs):
    xs = [x for x in xs if isinstance(x, (int, float))]
    return statistics.median(xs) if xs else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--n", type=int, default=1 << 20)
    ap.add_argument("--json")
    ap.add_argument("--allow-sim", action="store_true")
    args = ap.parse_args()
    if args.n % 128:
        ap.error("--n must be a multiple of 128: the seed's kernel has no bounds guard")
    import numpy as np

    kfront = kfront_ctypes.find_tool("kfront")
    if not kfront:
        print("first_launch: no kfront binary (searched %s)" % ", ".join(kfront_ctypes.build_dirs()))
        return 1
    seeds = seedmods.seeds_dir()
    seed = os.path.join(seeds, "s001_kernels.py")
    tmp = tempfile.mkdtemp(prefix="kf-first-")
    try:
        rng = np.random.default_rng(2026)
        a = rng.random(args.n)
        inp, outp = os.path.join(tmp, "random_array.npy"), os.path.join(tmp, "output.npy")
        np.save(inp, a)
        np.save(outp, np.zeros_like(a))
        grid = (args.n + 127) // 128

        def kfront_run(cache_dir, tag, check=False, extra_env=None):
            outdir = os.path.join(tmp, "out-" + tag)
            env = dict(os.environ, KFRONT_CACHE_DIR=cache_dir, **(extra_env or {}))
            env.pop("KFRONT_NO_CACHE", None)
            env.pop("KFRONT_SIM", None)
            cmd = [kfront, "run", seed, "-k", "double", "--grid", str(grid), "--block", "128", inp, outp, "-v"]
            if check:
                cmd += ["-o", outdir]
            if args.allow_sim and not gpu:
                cmd.insert(2, "--sim")
            wall, r = timed(cmd, env=env)
            if r.returncode != 0:
                raise RuntimeError("kfront run failed (exit %d):\n%s" % (r.returncode, r.stderr[-2000:]))
            if check and not (np.load(os.path.join(outdir, "output.npy")) == a * 2).all():
                raise RuntimeError("kfront run: wrong output")
            m1 = re.search(r"ready in ([0-9.]+) ms", r.stderr)
            m2 = re.search(r"launched .* in ([0-9.]+) ms", r.stderr)
            cache = re.search(r"^cache: (.*)$", r.stderr, re.M)
            return {"process_ms": wall, "ready_ms": float(m1.group(1)) if m1 else None,
                    "launched_ms": float(m2.group(1)) if m2 else None,
                    "cache": cache.group(1) if cache else None, "stderr": r.stderr}

        # is there a GPU? (kfront's own answer: the first line of a verbose run)
        probe = subprocess.run([kfront, "run", seed, "-k", "double", "--grid", "1", "--block", "1", "-v",
                                "--no-cache", inp, outp], capture_output=True, text=True, timeout=300)
        m = re.search(r"kfront run: (GPU.*|simulator.*)", probe.stderr)
        device = m.group(1) if m else "unknown (%s)" % probe.stderr.strip()[-300:]
        gpu = device.startswith("GPU")
        print("first_launch: kfront runs on %s" % device)
        if not gpu and not args.allow_sim:
            print("first_launch: no GPU: skipped")
            return 0

        results = {"device": device, "n": args.n}
        for label, cmd in (("python", [sys.executable, "-c", "pass"]),
                           ("python_numpy", [sys.executable, "-c", "import numpy"])):
            results[label + "_ms"] = med([timed(cmd)[0] for _ in range(args.reps)])

        # the result, once (untimed: -o writes every array argument back to .npy files)
        kfront_run(os.path.join(tmp, "cache-check"), "check", check=True)
        cold, warm, nojit = [], [], []
        for i in range(args.reps):
            cache_dir = os.path.join(tmp, "cache-%d" % i)
            c = kfront_run(cache_dir, "cold%d" % i)
            if gpu and c["cache"] != "miss":
                raise RuntimeError("expected a cache miss with an empty cache, got %r" % c["cache"])
            cold.append(c)
            w = kfront_run(cache_dir, "warm%d" % i)
            if gpu and w["cache"] != "hit (disk)":
                raise RuntimeError("expected a disk cache hit, got %r" % w["cache"])
            warm.append(w)
            if gpu:
                nojit.append(kfront_run(os.path.join(tmp, "cache-nojit-%d" % i), "nojit%d" % i,
                                        extra_env={"CUDA_CACHE_DISABLE": "1"}))
        for tag, runs in (("kfront_cold", cold), ("kfront_warm", warm), ("kfront_cold_nojit", nojit)):
            if not runs:
                continue
            results[tag] = {k: med([r[k] for r in runs]) for k in ("process_ms", "ready_ms", "launched_ms")}
            fc = [r["ready_ms"] + r["launched_ms"] for r in runs if r["ready_ms"] is not None and
                  r["launched_ms"] is not None]
            results[tag]["first_call_ms"] = med(fc)
        print("first_launch: kfront -v output of the last cold run:")
        for line in cold[-1]["stderr"].splitlines():
            print("    " + line)

        if gpu:
            script = os.path.join(tmp, "numba_first.py")
            with open(script, "w") as f:
                f.write(NUMBA_SCRIPT)
            # one untimed run first, so that both tools start with their files in the page cache (the probe
            # above did it for kfront)
            subprocess.run([sys.executable, script, inp, outp], capture_output=True, cwd=tmp, timeout=300)
            for tag, extra in (("numba", {}), ("numba_nojit", {"CUDA_CACHE_DISABLE": "1"})):
                runs = []
                for i in range(args.reps):
                    env = dict(os.environ, **extra)
                    wall, r = timed([sys.executable, script, inp, outp], env=env, cwd=tmp)
                    if r.returncode != 0:
                        results["numba_error"] = r.stderr[-2000:]
                        break
                    d = json.loads(r.stdout.strip().splitlines()[-1])
                    if not d.get("ok"):
                        results["numba_error"] = "wrong output"
                        break
                    d["process_ms"] = wall
                    runs.append(d)
                if runs:
                    results[tag] = {k: med([r[k] for r in runs]) for k in ("process_ms", "import_ms",
                                                                            "first_call_ms")}
        print_table(results, args)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=1)
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def fmt(v, spec="%.1f"):
    return spec % v if isinstance(v, (int, float)) else "-"


def print_table(res, args):
    print()
    print("first launch of s001 double on %d float64 (host arrays), fresh process each, medians of %d (ms)" % (
        res["n"], args.reps))
    hdr = "%-34s %11s %11s %11s %11s" % ("", "process", "first call", "ready", "launched")
    print(hdr)
    print("-" * len(hdr))
    for tag, label in (("kfront_cold", "kfront run, empty disk cache"), ("kfront_warm", "kfront run, warm disk cache"),
                       ("numba", "python + numba.cuda, first call"),
                       ("kfront_cold_nojit", "kfront run, empty cache, no drv JIT$"),
                       ("numba_nojit", "numba, no driver JIT cache")):
        r = res.get(tag)
        if not r:
            continue
        print("%-34s %11s %11s %11s %11s" % (label, fmt(r.get("process_ms")), fmt(r.get("first_call_ms")),
                                              fmt(r.get("ready_ms")), fmt(r.get("launched_ms"))))
    if "numba" in res:
        print("  (numba's process includes importing numpy + numba.cuda: %.1f ms)" % res["numba"]["import_ms"])
    if "kfront_cold_nojit" in res:
        print("  (no drv JIT$ = CUDA_CACHE_DISABLE=1: the driver's own cache of PTX compiled to machine code off too)")
    print("  (for scale: python3 -c pass %.1f ms, python3 -c 'import numpy' %.1f ms)" % (
        res["python_ms"], res["python_numpy_ms"]))
    if "numba_error" in res:
        print("  numba failed: " + res["numba_error"].strip().splitlines()[-1])
    lines = []
    if "numba" in res:
        c, w, n = res["kfront_cold"]["process_ms"], res["kfront_warm"]["process_ms"], res["numba"]["process_ms"]
        lines.append("first launch (process totals): kfront cold %.0f ms, warm %.0f ms; numba %.0f ms "
                     "(numba/kfront: cold %.1fx, warm %.1fx)" % (c, w, n, n / c, n / w))
    if "numba_nojit" in res and "kfront_cold_nojit" in res:
        c, n = res["kfront_cold_nojit"]["process_ms"], res["numba_nojit"]["process_ms"]
        lines.append("first launch, driver JIT cache off: kfront cold %.0f ms, numba %.0f ms (%.1fx)" % (c, n, n / c))
    res["lines"] = lines
    print()
    for line in lines:
        print(line)


if __name__ == "__main__":
    sys.exit(main())
