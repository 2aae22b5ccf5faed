"""fma_count.py — counts the fused multiply-adds (PTX fma.rn.*) kfront emits for a corpus of kernels, to compare two
kfront builds (before and after a change to contraction: passes/contract.c).

The corpus: every row of the acceptance seeds' manifest that compiles to PTX (test/acceptance/seeds, or
KFRONT_SEEDS), the kernels of examples/ and bench/tiling_vs_numba.py listed below (EXTRA), and every
`kfront compile FILE -k K --sig S` line of the lit tests under test/.

  python3 bench/fma_count.py --kfront build/bin/kfront [--before OTHER/bin/kfront] [--backend nvvm|llvm] [--all]

prints, per group, the kernels compiled and their fma.rn count (and the before count and the difference with
--before); --all lists every kernel, else the seeds', examples' and benchmarks' and the lit tests' whose counts
differ. Needs libNVVM for --backend nvvm (the default), as `kfront compile --emit=ptx` does; kernels that do not
compile are counted apart, not as zero.
"""
import argparse
import ast
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# examples/ and bench/ kernels (file relative to ROOT, kernel, signature), the signatures their runs use
EXTRA = [
    ("examples/multigpu_allreduce.py", "partial_matvec", "void(float64[:, ::1], float64[::1], float64[::1])"),
    ("bench/tiling_vs_numba.py", "matmul_f64acc", "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])"),
    ("bench/tiling_vs_numba.py", "matmul_f32acc", "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])"),
    ("bench/tiling_vs_numba.py", "stencil3", "void(float32[::1], float32[::1])"),
    ("bench/tiling_vs_numba.py", "jacobi5", "void(float32[:, ::1], float32[:, ::1])"),
]


def seeds_dir():
    env = os.environ.get("KFRONT_SEEDS")
    for d in ([env] if env else []) + [os.path.join(ROOT, "test", "acceptance", "seeds")]:
        if d and os.path.exists(os.path.join(d, "manifest.tsv")):
            return os.path.abspath(d)
    return None


def kernel_lines(text, name):
    """The source lines of the top-level function name (decorators included) of text, or of a module-level string
    holding kernel source (bench/tiling_vs_numba.py's NAIVE)."""
    tree = ast.parse(text)
    texts = [text] + [n.value.value for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
                      and isinstance(n.value.value, str) and "@cuda.jit" in n.value.value]
    for t in texts:
        for n in ast.parse(t).body:
            if isinstance(n, ast.FunctionDef) and n.name == name:
                return t.splitlines()[n.decorator_list[0].lineno - 1:n.end_lineno]
    raise SystemExit("fma_count: no kernel %s" % name)


def corpus():
    groups = {"seeds": [], "examples+bench": [], "lit tests": []}
    sd = seeds_dir()
    if sd:
        for line in open(os.path.join(sd, "manifest.tsv")):
            if line.startswith("#") or not line.strip():
                continue
            f = line.rstrip("\n").split("\t")
            if len(f) >= 4 and f[3] == "ptx":
                groups["seeds"].append((os.path.join(sd, f[0]), f[1], f[2]))
    tmp = tempfile.mkdtemp(prefix="fma_count")
    for f, k, s in EXTRA:  # the kernel alone, importing from numba (the CLI reads `from numba import cuda`)
        path = os.path.join(ROOT, f)
        lines = kernel_lines(open(path).read(), k)
        src = os.path.join(tmp, "%s_%s.py" % (os.path.basename(f)[:-3], k))
        with open(src, "w") as out:
            out.write("from numba import cuda, float32, float64\nimport numpy as np\n\n\n" + "\n".join(lines) + "\n")
        groups["examples+bench"].append((src, k, s))
    seen = set()
    for path in sorted(glob.glob(os.path.join(ROOT, "test", "**", "*"), recursive=True)):
        if not os.path.isfile(path) or "/gpu/" in path or "/fuzz/" in path:
            continue
        try:
            text = open(path, encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        for m in re.finditer(r"RUN: kfront compile (.*)", text):
            try:
                args = shlex.split(m.group(1).split("|")[0])
            except ValueError:
                continue
            src = args[0].replace("%s", path).replace("%S", os.path.dirname(path))
            if "-k" not in args or "--sig" not in args or not os.path.exists(src):
                continue
            key = (src, args[args.index("-k") + 1], args[args.index("--sig") + 1])
            if key not in seen:
                seen.add(key)
                groups["lit tests"].append(key)
    return groups


def count(kfront, backend, src, kernel, sig):
    cmd = [kfront, "compile", src, "-k", kernel, "--sig", sig, "--emit=ptx"]
    if backend == "llvm":
        cmd.append("--backend=llvm")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        return None
    return len(re.findall(r"^\s*fma\.rn\.", r.stdout, re.M))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kfront", default=os.path.join(ROOT, "build", "bin", "kfront"))
    ap.add_argument("--before")
    ap.add_argument("--backend", default="nvvm", choices=["nvvm", "llvm"])
    ap.add_argument("--all", action="store_true")
    a = ap.parse_args()
    total = {}
    for group, items in corpus().items():
        n = failed = after_sum = before_sum = 0
        for src, k, s in items:
            after = count(a.kfront, a.backend, src, k, s)
            before = count(a.before, a.backend, src, k, s) if a.before else after
            if after is None or before is None:
                failed += 1
                continue
            n += 1
            after_sum += after
            before_sum += before
            if a.all or after != before or group != "lit tests":
                rel = os.path.relpath(src, ROOT) if src.startswith(ROOT) else os.path.basename(src)
                print("  %-44s %-28s %5s %5d %+4d" % (rel[-44:], k[:28], before if a.before else "", after, after - before))
        total[group] = (n, failed, before_sum, after_sum)
    print("%-16s %8s %8s %8s %8s" % ("group", "kernels", "failed", "before", "after"))
    for g, (n, failed, b, af) in total.items():
        print("%-16s %8d %8d %8s %8d" % (g, n, failed, b if a.before else "", af))
    return 0


if __name__ == "__main__":
    sys.exit(main())
