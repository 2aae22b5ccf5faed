"""inst_count.py — kfront's and numba-cuda's instruction counts, PTX and SASS, for the classic Numba examples
(test/frontend/Inputs/example_kernels.py: Black-Scholes, histogram, reductions, stencil, Mandelbrot, warp sums),
to find where kfront's code is longer than Numba's (issue 24, item 5). No GPU is needed.

  ORACLE=/path/to/oracle-venv/bin/python
  python3 bench/inst_count.py [--kfront build/bin/kfront] [--numba-python $ORACLE] [--arch sm_90]
                              [-k KERNEL] [--ops] [--keep DIR]
  python3 bench/inst_count.py --check FILE.ptx [--max N] [--expect OPCODE=N ...]

(--check: test/backend/black_scholes.py's pin: FILE's PTX instruction count at most N and each OPCODE's count
exactly N, or exit 1 with the counts.)

For each kernel it prints the PTX instructions (every statement of the entry's body: labels, directives and
`{`/`}` are not counted), the SASS instructions of the kernel's own code and of the out-of-line slow paths ptxas
adds (`$__internal_*`: the full division, the sqrt and reciprocal slow paths; NOPs not counted) and the registers
ptxas gives, for kfront as `kfront compile` writes it ("kfront"), for kfront as the runtime launches a
one-thread-per-element 1-D kernel ("kfront+gs": the default pipeline with grid-stride appended) and for
numba-cuda's compile_ptx ("numba"). --ops also lists, per kernel, the opcodes whose counts differ (PTX opcodes
with their type suffixes, SASS opcodes without their modifiers).

SASS needs ptxas (KFRONT_PTXAS, else $CUDA_HOME/bin, /usr/local/cuda/bin, PATH) and a disassembler: cuobjdump
-sass or nvdisasm (KFRONT_NVDISASM, else beside ptxas, else PATH; pip's nvidia-cuda-nvdisasm ships one, under
site-packages/nvidia/cu13/bin). Without them the SASS columns are empty. numba-cuda's PTX comes from
--numba-python (default $KFRONT_ORACLE_PYTHON, else build/oracle-venv/bin/python) running bench/seedmods.py's
import_numba(), which lets Numba compile device functions for sm_90 without a GPU.
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "test", "frontend", "Inputs", "example_kernels.py")
GRID_STRIDE_PIPELINE = "canonicalize,cse,bce,pad-shared,tile-shared,cse,hoist-checks,unroll,dce,grid-stride"

# (kernel, signature): the types test/frontend/sim_vs_numba.py launches them with (Numba's float64 promotion in
# Black-Scholes); grid_stride: whether the runtime compiles it with grid-stride (a 1-D kernel without barriers,
# shared memory, warp ops or gridDim)
KERNELS = [
    ("black_scholes_cuda", "void(float64[::1], float64[::1], float64[::1], float64[::1], float64[::1], float64, "
                           "float64)", True),
    ("histogram", "void(float32[::1], float32, float32, int32[::1])", False),
    ("sum_reduce", "void(float64[::1], float64[::1])", False),
    ("stencil", "void(float32[:, ::1], float32[:, ::1])", False),
    ("mandel", "void(int32[:, ::1], int64)", False),
    ("warp_sum", "void(float64[::1], float64[::1])", False),
]

NUMBA_SCRIPT = r"""
import importlib.util, json, sys
sys.path.insert(0, %(bench)r)
import seedmods
nb = seedmods.import_numba()
spec = importlib.util.spec_from_file_location("example_kernels", %(src)r)
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
out = {}
for k, sig in json.loads(sys.argv[1]):
    try:
        out[k] = nb.cuda.compile_ptx(getattr(m, k).py_func, sig, cc=(%(cc)s))[0]
    except Exception as e:
        out[k] = None
        print("numba: %%s: %%s" %% (k, e), file=sys.stderr)
json.dump(out, sys.stdout)
"""


def ptx_ops(text):
    """Counter of the PTX opcodes (guard predicates dropped) in the body of text's entry functions."""
    c = collections.Counter()
    depth = 0
    for line in text.splitlines():
        s = line.split("//")[0].strip()
        if not s:
            continue
        if s.startswith("{"):
            depth += 1
            continue
        if s.startswith("}"):
            depth -= 1
            continue
        if depth == 0 or s.endswith(":") or s.startswith("."):
            continue
        if s.startswith("@"):
            s = s.split(None, 1)[1]
        c[s.split()[0].rstrip(";")] += 1
    return c


def find_tool(names, env):
    if os.environ.get(env):
        return os.environ[env]
    dirs = [os.path.join(os.environ[v], "bin") for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    dirs.append("/usr/local/cuda/bin")
    for n in names:
        for d in dirs:
            if os.path.exists(os.path.join(d, n)):
                return os.path.join(d, n)
        if shutil.which(n):
            return shutil.which(n)
    return None


def sass(ptx, arch, tmp, tag, tools):
    """(Counter of the kernel's own SASS opcodes, Counter of its slow paths', registers), or (None, None, None)."""
    ptxas, dis = tools
    if not ptxas:
        return None, None, None
    p, cubin = os.path.join(tmp, tag + ".ptx"), os.path.join(tmp, tag + ".cubin")
    with open(p, "w") as f:
        f.write(ptx)
    r = subprocess.run([ptxas, "-arch=" + arch, "-v", p, "-o", cubin], capture_output=True, text=True)
    if r.returncode:
        return None, None, None
    m = re.search(r"Used (\d+) registers", r.stderr + r.stdout)
    regs = int(m.group(1)) if m else None
    if not dis:
        return None, None, regs
    cmd = [dis, "-sass", cubin] if os.path.basename(dis).startswith("cuobjdump") else [dis, cubin]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        return None, None, regs
    own, slow = collections.Counter(), collections.Counter()
    cur, in_text = None, cmd[0].endswith("cuobjdump") or "-sass" in cmd
    for line in r.stdout.splitlines():
        s = line.strip()
        if s.startswith(".section"):
            in_text = ".text." in s
            continue
        if s.startswith("Function :"):
            cur, in_text = own, True
            continue
        m = re.match(r"^([$\w.]+):$", s)
        if m and in_text and not m.group(1).startswith(".L"):
            cur = slow if "internal" in m.group(1) else own
            continue
        m = re.match(r"^/\*[0-9a-f]{4}\*/\s+(?:@!?U?P[T\d]\s+)?([A-Z][A-Z0-9_]*)", s)
        if m and in_text and cur is not None and m.group(1) != "NOP":
            cur[m.group(1)] += 1
    return own, slow, regs


def kfront_ptx(kfront, kernel, sig, arch, pipeline=None):
    cmd = [kfront, "compile", EXAMPLES, "-k", kernel, "--sig", sig, "--emit=ptx", "--arch=" + arch]
    if pipeline:
        cmd.append("--pass-pipeline=" + pipeline)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode:
        print("kfront: %s: %s" % (kernel, r.stderr.strip()), file=sys.stderr)
        return None
    return r.stdout


def numba_ptx(python, kernels, arch):
    if not python or not os.path.exists(python):
        print("numba-cuda not found (--numba-python): numba's columns are empty", file=sys.stderr)
        return {}
    cc = "%s, %s" % (arch[3:-1], arch[-1])
    script = NUMBA_SCRIPT % {"bench": os.path.join(ROOT, "bench"), "src": EXAMPLES, "cc": cc}
    r = subprocess.run([python, "-c", script, json.dumps([(k, s) for k, s, _ in kernels])], capture_output=True,
                       text=True, timeout=600)
    if r.returncode:
        print("numba: " + r.stderr.strip()[-2000:], file=sys.stderr)
        return {}
    sys.stderr.write(r.stderr)
    return json.loads(r.stdout)


def diff_ops(label, cols):
    keys = sorted(set().union(*[c for c in cols if c]), key=lambda k: -sum(c[k] for c in cols if c))
    rows = [k for k in keys if len({c[k] for c in cols if c is not None}) > 1]
    if rows:
        print("    %s opcodes that differ:" % label)
        for k in rows:
            print("      %-26s" % k + "".join("%8s" % (c[k] if c is not None else "-") for c in cols))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kfront", default=os.path.join(ROOT, "build", "bin", "kfront"))
    ap.add_argument("--numba-python", default=os.environ.get("KFRONT_ORACLE_PYTHON",
                                                             os.path.join(ROOT, "build", "oracle-venv", "bin", "python")))
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("-k", "--kernel", action="append")
    ap.add_argument("--ops", action="store_true")
    ap.add_argument("--keep")
    ap.add_argument("--check")
    ap.add_argument("--max", type=int)
    ap.add_argument("--expect", action="append", default=[])
    a = ap.parse_args()
    if a.check:
        c = ptx_ops(open(a.check).read())
        bad = ["%d instructions, more than %d" % (sum(c.values()), a.max)] if a.max and sum(c.values()) > a.max else []
        for e in a.expect:
            op, n = e.rsplit("=", 1)
            if c[op] != int(n):
                bad.append("%s: %d, expected %s" % (op, c[op], n))
        print("%d PTX instructions; %s" % (sum(c.values()), ", ".join("%s %d" % kv for kv in c.most_common(12))))
        for b in bad:
            print("inst_count: " + b)
        return 1 if bad else 0
    kernels = [k for k in KERNELS if not a.kernel or k[0] in a.kernel]
    ptxas = find_tool(["ptxas"], "KFRONT_PTXAS")
    dis = find_tool(["cuobjdump", "nvdisasm"], "KFRONT_NVDISASM")
    if not dis and ptxas and os.path.exists(os.path.join(os.path.dirname(ptxas), "nvdisasm")):
        dis = os.path.join(os.path.dirname(ptxas), "nvdisasm")
    tmp = a.keep or tempfile.mkdtemp(prefix="inst_count")
    os.makedirs(tmp, exist_ok=True)
    nb = numba_ptx(a.numba_python, kernels, a.arch)
    print("SASS: %s" % (("%s, %s" % (ptxas, dis)) if dis else "no disassembler found: registers only"))
    print("%-20s %-10s %6s %8s %9s %5s" % ("kernel", "compiler", "PTX", "SASS", "slowpath", "regs"))
    for k, sig, gs in kernels:
        cols = [("kfront", kfront_ptx(a.kfront, k, sig, a.arch))]
        if gs:
            cols.append(("kfront+gs", kfront_ptx(a.kfront, k, sig, a.arch, GRID_STRIDE_PIPELINE)))
        cols.append(("numba", nb.get(k)))
        ptx_counts, sass_counts = [], []
        for tag, ptx in cols:
            if ptx is None:
                print("%-20s %-10s %6s" % (k, tag, "-"))
                ptx_counts.append(None)
                sass_counts.append(None)
                continue
            pc = ptx_ops(ptx)
            own, slow, regs = sass(ptx, a.arch, tmp, "%s_%s" % (k, tag.replace("+", "_")), (ptxas, dis))
            ptx_counts.append(pc)
            sass_counts.append(own)
            print("%-20s %-10s %6d %8s %9s %5s" % (k, tag, sum(pc.values()), sum(own.values()) if own else "-",
                                                  sum(slow.values()) if slow is not None else "-",
                                                  regs if regs is not None else "-"))
        if a.ops:
            print("    %-26s" % "" + "".join("%8s" % t for t, _ in cols))
            diff_ops("PTX", ptx_counts)
            diff_ops("SASS", sass_counts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
