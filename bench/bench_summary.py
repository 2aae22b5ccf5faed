#!/usr/bin/env python3
"""bench_summary.py DIR — the short summary table of a run_gpu_bench.sh run, from the files its steps left in
DIR: compile.json (compile_vs_numba.py), launch.txt (launch_overhead), first.json (first_launch.py),
kernels.json (kernels_vs_numba.py). A missing or failed step shows as such."""
import json
import os
import re
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main():
    d = sys.argv[1]
    rows = []  # (benchmark, kfront, numba, ratio, aim)
    c = load(os.path.join(d, "compile.json"))
    if c and c["summary"].get("compared"):
        s = c["summary"]
        rows.append(("compile src->PTX (median of rows)", "%.2f ms" % s["kfront_median_ms"],
                     "%.2f ms" % s["numba_median_ms"], "nb/kf geo %.1fx, min %.1fx" % (s["geomean_ratio"], s["min_ratio"]),
                     ">= 3x every row: %d/%d" % (s["rows_at_least_3x"], s["compared"])))
        rows.append(("compile: kfront's own share (max)", "%.3f ms" % s["max_own_ms"], "", "", "< 1 ms"))
        if "first_kfront_ms" in s:
            rows.append(("compile: first in fresh process", "%.1f ms" % s["first_kfront_ms"],
                         "%.1f ms" % s["first_numba_ms"], "nb/kf %.1fx" % (s["first_numba_ms"] / s["first_kfront_ms"]), ""))
    else:
        rows.append(("compile src->PTX", "failed or missing", "", "", ""))
    try:
        text = open(os.path.join(d, "launch.txt")).read()
    except OSError:
        text = ""
    m = re.search(r"RESULT launch_overhead kfront_us=([0-9.]+) raw_us=([0-9.]+) ratio=([0-9.]+)", text)
    if m:
        rows.append(("launch overhead (us/launch)", "%s us" % m.group(1), "raw %s us" % m.group(2),
                     "kf/raw %sx" % m.group(3), "< 1.2x"))
    elif "no GPU" in text:
        rows.append(("launch overhead", "skipped: no GPU", "", "", ""))
    else:
        rows.append(("launch overhead", "failed or missing", "", "", ""))
    f = load(os.path.join(d, "first.json"))
    if f and "kfront_cold" in f:
        for tag, label, ntag in (("kfront_cold", "first launch, process (cold cache)", "numba"),
                                 ("kfront_warm", "first launch, process (warm cache)", "numba"),
                                 ("kfront_cold_nojit", "first launch, cold, no driver JIT cache", "numba_nojit")):
            if tag not in f:
                continue
            k = f[tag]["process_ms"]
            n = f.get(ntag, {}).get("process_ms")
            rows.append((label, "%.0f ms" % k, "%.0f ms" % n if n else "-", "nb/kf %.1fx" % (n / k) if n else "", "report"))
    else:
        rows.append(("first launch", "failed, skipped or missing", "", "", ""))
    k = load(os.path.join(d, "kernels.json"))
    if k:
        for r in k["rows"]:
            if "kfront_cupy_ms" in r and "numba_ms" in r:
                rows.append(("kernel %s (%.0f%% of copy BW)" % (r["name"], 100 * r.get("kfront_cupy_frac", 0)),
                             "%.4f ms" % r["kfront_cupy_ms"], "%.4f ms" % r["numba_ms"], "nb/kf %.2fx" % r["ratio"],
                             ">= 1.0x"))
            else:
                rows.append(("kernel %s" % r["name"], "failed", "", "", ""))
        rows.append(("device copy bandwidth", "%.0f GB/s" % k["copy_gbs"], "", "", ""))
    else:
        rows.append(("kernels", "failed, skipped or missing", "", "", ""))
    w = [max(len(r[i]) for r in rows) for i in range(5)]
    hdr = ("benchmark", "kfront", "numba (or raw)", "ratio", "aim")
    w = [max(a, len(b)) for a, b in zip(w, hdr)]
    line = "  ".join("%-*s" % (w[i], hdr[i]) for i in range(5))
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join("%-*s" % (w[i], r[i]) for i in range(5)))


if __name__ == "__main__":
    main()
