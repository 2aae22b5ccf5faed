#!/usr/bin/env python3
"""compile_vs_numba.py — source -> PTX time per seed kernel: kfront (in-process, libkfront through ctypes)
against numba-cuda's compile_ptx, in the same run. Needs no GPU (libNVVM only, for both).

usage: bench/compile_vs_numba.py [--reps N] [--no-cold] [--json FILE] [--only FUNC[,FUNC...]]

Rows: every `ptx` row of the seeds' manifest.tsv (seeds: $KFRONT_SEEDS, else test/acceptance/seeds);
they cover every kernel of the seed files (checked: a decorated function no row names is reported).

kfront, per repetition, on one kf_context: kf_compile_source (frontend, lowering, the default pass pipeline,
verification after each pass: what `kfront compile` does) -> kf_module_emit_llvm -> kf_module_emit_ptx (libNVVM,
sm_90, -O3). "kfront ms" = compile_source + emit_ptx (emit_ptx redoes the LLVM IR emission itself);
"own ms" = compile_source + emit_llvm: kfront's share, everything but libNVVM.
Numba: compile_ptx(py_func, signature, cc=(9, 0)) for @cuda.jit kernels; for @cuda.reduce, @vectorize and
@guvectorize the kernel Numba itself generates (see seedmods.py), built from scratch each time.
Warm: one untimed compile of each side first, then REPS repetitions alternating kfront and Numba; medians of
wall time (the table), and of the thread's CPU time (time.thread_time, in the JSON and a summary line: what a
loaded machine does not inflate; libNVVM and Numba both run on the calling thread).
Cold: the first compile of each row in a fresh process per side (`--child`), rows in manifest order, so the
first row also pays each side's one-time start-up (dlopen of libNVVM, Numba's lazy initialisation); Python
imports (numba.cuda, the seed modules) and loading libkfront are outside the timings.
"""
import argparse
import ast
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import seedmods  # noqa: E402
import kfront_ctypes  # noqa: E402


def rows_and_sources(seeds, only):
    rows = seedmods.manifest_rows(seeds)
    if only:
        rows = [r for r in rows if r[1] in only]
    sources = {}
    for f, _, _ in rows:
        if f not in sources:
            with open(os.path.join(seeds, f), "rb") as fh:
                sources[f] = fh.read()
    return rows, sources


def uncovered_kernels(seeds, rows):
    """Decorated functions of the rows' files that no row names."""
    named = {(f, k) for f, k, _ in rows}
    out = []
    for f in sorted({f for f, _, _ in rows}):
        tree = ast.parse(open(os.path.join(seeds, f)).read())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.decorator_list and (f, node.name) not in named:
                out.append("%s:%s" % (f, node.name))
    return out


def row_key(r):
    return "%s:%s:%s" % r


# ---- one compile of each side -------------------------------------------------------------------------

class KfrontSide:
    def __init__(self, seeds, sources):
        self.kf = kfront_ctypes.Compiler(kfront_ctypes.load())
        self.seeds, self.sources = seeds, sources
        self.opts = {}

    def once(self, row):
        """(total ms, own ms, frontend ms) of one compile of row."""
        f, k, sig = row
        opts = self.opts.get(row)
        if opts is None:
            opts = self.opts[row] = self.kf.options(k, sig)
        path = os.path.join(self.seeds, f)
        kf = self.kf
        c0 = time.thread_time()
        t0 = time.perf_counter()
        m = kf.compile(path, self.sources[f], k, sig, opts=opts)
        t1 = time.perf_counter()
        c1 = time.thread_time()
        kf.emit_llvm(m)
        c2 = time.thread_time()
        t2 = time.perf_counter()
        ptx = kf.emit_ptx(m)
        t3 = time.perf_counter()
        c3 = time.thread_time()
        kf.destroy(m)
        if ".entry" not in ptx:
            raise kfront_ctypes.KfrontError("no .entry in kfront's PTX for %s" % row_key(row))
        self.cpu_ms = ((c1 - c0) + (c3 - c2)) * 1e3
        self.cpu_own_ms = ((c1 - c0) + (c2 - c1)) * 1e3
        return ((t1 - t0) + (t3 - t2)) * 1e3, ((t1 - t0) + (t2 - t1)) * 1e3, (t1 - t0) * 1e3


class NumbaSide:
    def __init__(self, seeds, rows):
        seedmods.import_numba()
        self.objs = {}
        for f, k, _ in rows:
            mod = seedmods.import_seed(os.path.join(seeds, f))
            self.objs[(f, k)] = getattr(mod, k)

    def once(self, row):
        f, k, sig = row
        c0 = time.thread_time()
        t0 = time.perf_counter()
        ptx = seedmods.numba_kernel_ptx(self.objs[(f, k)], sig)
        t1 = time.perf_counter()
        self.cpu_ms = (time.thread_time() - c0) * 1e3
        if ".entry" not in ptx:
            raise RuntimeError("no .entry in Numba's PTX for %s" % row_key(row))
        return (t1 - t0) * 1e3


def child(which, seeds, only):
    """Cold compiles in this fresh process; prints JSON {row key: ms or error}."""
    rows, sources = rows_and_sources(seeds, only)
    side = KfrontSide(seeds, sources) if which == "kfront" else NumbaSide(seeds, rows)
    out = {}
    for r in rows:
        try:
            v = side.once(r)
            out[row_key(r)] = v[0] if isinstance(v, tuple) else v
        except Exception as e:  # noqa: BLE001 - reported in the table
            out[row_key(r)] = "error: %s" % str(e).splitlines()[0]
    print(json.dumps(out))


def run_child(which, args):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", which]
    if args.only:
        cmd += ["--only", args.only]
    env = dict(os.environ, CUDA_HOME=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if r.returncode != 0:
        print("cold %s run failed (exit %d):\n%s" % (which, r.returncode, r.stderr[-2000:]))
        return {}
    return json.loads(r.stdout.strip().splitlines()[-1])


def fmt(v, spec="%.2f"):
    return spec % v if isinstance(v, (int, float)) else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--no-cold", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--only", help="comma-separated function names")
    ap.add_argument("--child", choices=["kfront", "numba"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.environ.setdefault("CUDA_HOME", "/usr/local/cuda")
    seeds = seedmods.seeds_dir()
    only = set(args.only.split(",")) if args.only else None
    if args.child:
        child(args.child, seeds, only)
        return 0

    rows, sources = rows_and_sources(seeds, only)
    lib = kfront_ctypes.find_library()
    print("compile_vs_numba: %d manifest rows (%s), seeds from %s" % (len(rows), seedmods.manifest_path(seeds), seeds))
    print("compile_vs_numba: kfront %s (%s), numba-cuda %s, python %s" % (
        kfront_ctypes.load().kf_version().decode(), lib, numba_cuda_version(), sys.version.split()[0]))
    missing = uncovered_kernels(seeds, rows) if not only else []
    if missing:
        print("compile_vs_numba: decorated functions no manifest row names (not timed): " + ", ".join(missing))

    cold_k = cold_n = {}
    if not args.no_cold:
        cold_k = run_child("kfront", args)
        cold_n = run_child("numba", args)

    ks, ns = KfrontSide(seeds, sources), NumbaSide(seeds, rows)
    results = []
    for r in rows:
        res = {"file": r[0], "kernel": r[1], "signature": r[2], "cold_kfront_ms": cold_k.get(row_key(r)),
               "cold_numba_ms": cold_n.get(row_key(r))}
        try:
            ks.once(r)
            kt, ko, kfe, kc, kco = [], [], [], [], []
            for _ in range(args.reps):
                a, b, c = ks.once(r)
                kt.append(a)
                ko.append(b)
                kfe.append(c)
                kc.append(ks.cpu_ms)
                kco.append(ks.cpu_own_ms)
            res.update(kfront_ms=statistics.median(kt), kfront_own_ms=statistics.median(ko),
                       kfront_frontend_ms=statistics.median(kfe), kfront_min_ms=min(kt),
                       kfront_cpu_ms=statistics.median(kc), kfront_own_cpu_ms=statistics.median(kco))
        except Exception as e:  # noqa: BLE001
            res["kfront_error"] = str(e).strip()
        try:
            ns.once(r)
            nt, nc = [], []
            for _ in range(args.reps):
                nt.append(ns.once(r))
                nc.append(ns.cpu_ms)
            res.update(numba_ms=statistics.median(nt), numba_min_ms=min(nt), numba_cpu_ms=statistics.median(nc))
        except Exception as e:  # noqa: BLE001
            res["numba_error"] = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
        if "kfront_ms" in res and "numba_ms" in res:
            res["ratio"] = res["numba_ms"] / res["kfront_ms"]
            res["ratio_cpu"] = res["numba_cpu_ms"] / res["kfront_cpu_ms"]
        results.append(res)

    print()
    print("source -> PTX, sm_90, warm medians of %d (ms); ratio = numba / kfront" % args.reps)
    print("own = kfront without libNVVM (fe = its frontend + passes part); cold = first compile in a fresh process")
    hdr = "%-23s %-48s %8s %7s %7s %8s %6s %8s %8s" % ("kernel", "signature", "kfront", "own", "fe", "numba", "ratio",
                                                       "cold kf", "cold nb")
    print(hdr)
    print("-" * len(hdr))
    for res in results:
        print("%-23s %-48s %8s %7s %7s %8s %6s %8s %8s" % (
            res["kernel"], res["signature"], fmt(res.get("kfront_ms")), fmt(res.get("kfront_own_ms"), "%.3f"),
            fmt(res.get("kfront_frontend_ms"), "%.3f"), fmt(res.get("numba_ms")), fmt(res.get("ratio"), "%.1fx"),
            fmt(res.get("cold_kfront_ms"), "%.1f"), fmt(res.get("cold_numba_ms"), "%.1f")))
    for res in results:
        for side in ("kfront", "numba"):
            if side + "_error" in res:
                print("  %s %s: %s" % (side, res["kernel"], res[side + "_error"].splitlines()[0]))
                for line in res[side + "_error"].splitlines()[1:6]:
                    print("      " + line)
    summary = summarize(results)
    print()
    for line in summary["lines"]:
        print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": results, "summary": summary, "reps": args.reps}, f, indent=1)
    return 0


def summarize(results):
    ok = [r for r in results if "ratio" in r]
    lines = []
    s = {"rows": len(results), "compared": len(ok)}
    if ok:
        ratios = [r["ratio"] for r in ok]
        geo = statistics.geometric_mean(ratios)
        worst = min(ok, key=lambda r: r["ratio"])
        own = max(ok, key=lambda r: r["kfront_own_ms"])
        s.update(geomean_ratio=geo, min_ratio=worst["ratio"], min_ratio_kernel=worst["kernel"],
                 max_own_ms=own["kfront_own_ms"], max_own_kernel=own["kernel"],
                 kfront_median_ms=statistics.median(r["kfront_ms"] for r in ok),
                 numba_median_ms=statistics.median(r["numba_ms"] for r in ok),
                 rows_at_least_3x=sum(1 for x in ratios if x >= 3))
        lines.append("compile: %d/%d rows compared; numba/kfront geomean %.1fx, min %.1fx (%s); %d/%d rows >= 3x "
                     "(aim: all)" % (len(ok), len(results), geo, worst["ratio"], worst["kernel"],
                                     s["rows_at_least_3x"], len(ok), ))
        lines.append("compile: kfront's own share (no libNVVM) max %.3f ms (%s) (aim: < 1 ms)" % (
            own["kfront_own_ms"], own["kernel"]))
        cr = [r["ratio_cpu"] for r in ok]
        s.update(geomean_ratio_cpu=statistics.geometric_mean(cr), min_ratio_cpu=min(cr),
                 max_own_cpu_ms=max(r["kfront_own_cpu_ms"] for r in ok))
        lines.append("compile: in thread CPU time (immune to other load): geomean %.1fx, min %.1fx; own share max "
                     "%.3f ms" % (s["geomean_ratio_cpu"], s["min_ratio_cpu"], s["max_own_cpu_ms"]))
    first = results[0] if results else None
    if first and isinstance(first.get("cold_kfront_ms"), (int, float)) and \
            isinstance(first.get("cold_numba_ms"), (int, float)):
        s.update(first_kfront_ms=first["cold_kfront_ms"], first_numba_ms=first["cold_numba_ms"])
        lines.append("compile: first compile in a fresh process (%s): kfront %.1f ms, numba %.1f ms" % (
            first["kernel"], first["cold_kfront_ms"], first["cold_numba_ms"]))
    failed = [r["kernel"] for r in results if "ratio" not in r]
    if failed:
        lines.append("compile: not compared (an error above): " + ", ".join(failed))
    s["lines"] = lines
    return s


def numba_cuda_version():
    try:
        from importlib.metadata import version
        return version("numba-cuda")
    except Exception:  # noqa: BLE001
        return "?"


if __name__ == "__main__":
    sys.exit(main())
