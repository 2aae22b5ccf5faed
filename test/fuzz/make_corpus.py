#!/usr/bin/env python3
"""make_corpus.py — writes the fuzz harnesses' seed corpora and dictionaries from the tests.

    python3 test/fuzz/make_corpus.py        (from anywhere; rewrites test/fuzz/corpus/ and test/fuzz/*.dict)

corpus/python: every Python test input (test/frontend, its Inputs, test/runtime/Inputs, test/acceptance/seeds,
  test/backend), once per `kfront compile -k NAME --sig SIG` RUN line with the `#@ NAME SIG` directives the
  harnesses read (fuzz_common.h), and once as it is (its eager kernels).
corpus/kir: every kir test (test/ir, test/passes, test/backend/Inputs), one seed per `// -----` case, with the
  file's `--pass-pipeline=` kept on a first comment line; FileCheck lines are dropped.
corpus/npy: .npy images NumPy writes (every dtype kfront reads, ranks 0 to 3, C and Fortran order, empty
  arrays, format 2.0) and a few it refuses (big-endian, a structured dtype, truncated).
python.dict, kir.dict, npy.dict: libFuzzer dictionaries of Python, kir (every op of ir/ops.def, every pass of
  passes/passes.def) and .npy header tokens.
"""
import glob
import hashlib
import io
import os
import re
import shutil

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FUZZ = os.path.join(ROOT, "test", "fuzz")


def write_seed(folder, data):
    """Seeds are named by their SHA-1, as libFuzzer names corpus files."""
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(folder, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def python_corpus(folder):
    skip = {"numba_types.py", "numba_scalar_typing.py", "sim_vs_numba.py"}  # scripts, not kernels
    files = []
    for pattern in ("test/frontend/*.py", "test/frontend/Inputs/*.py", "test/runtime/Inputs/*.py",
                    "test/acceptance/seeds/*.py", "test/backend/*.py"):
        files += sorted(glob.glob(os.path.join(ROOT, pattern)))
    run = re.compile(r"kfront (?:compile|check|run) %s((?: -k \S+)+)((?: --sig '[^']*')*)")
    for path in files:
        if os.path.basename(path) in skip:
            continue
        text = open(path, encoding="utf-8").read()
        write_seed(folder, text)
        for m in run.finditer(text):
            names = re.findall(r"-k (\S+)", m.group(1))
            sigs = re.findall(r"--sig '([^']*)'", m.group(2))
            if not sigs:
                continue
            lines = ["#@ %s %s" % (n, s) for n in names for s in sigs][:8]
            write_seed(folder, "\n".join(lines) + "\n" + text)


def kir_corpus(folder):
    files = []
    for pattern in ("test/ir/*.kir", "test/passes/*.kir", "test/backend/Inputs/*.kir"):
        files += sorted(glob.glob(os.path.join(ROOT, pattern)))
    for path in files:
        text = open(path, encoding="utf-8", errors="replace").read()
        m = re.search(r"--pass-pipeline=('[^']*'|\S+)", text)
        pipeline = m.group(1).strip("'") if m else ""
        for case in re.split(r"^// -----$", text, flags=re.M):
            body = [l for l in case.splitlines() if not l.lstrip().startswith("//")]
            if not any(l.strip() for l in body):
                continue
            head = "// --pass-pipeline=%s\n" % pipeline if pipeline else ""
            write_seed(folder, head + "\n".join(body) + "\n")


def npy_corpus(folder):
    import numpy as np
    arrays = [
        np.arange(6, dtype=np.float32), np.arange(12, dtype=np.float64).reshape(3, 4),
        np.asfortranarray(np.arange(12, dtype=np.int32).reshape(3, 4)), np.array(7, dtype=np.int64),
        np.zeros((2, 0, 3), dtype=np.int16), np.array([True, False, True]), np.arange(5, dtype=np.uint8),
        np.arange(4, dtype=np.int8), np.arange(3, dtype=np.uint16), np.arange(3, dtype=np.uint32),
        np.arange(3, dtype=np.uint64), np.arange(4, dtype=np.float16), np.arange(24, dtype=np.int64).reshape(2, 3, 4),
    ]
    for a in arrays:
        b = io.BytesIO()
        np.save(b, a)
        write_seed(folder, b.getvalue())
    b = io.BytesIO()
    np.lib.format.write_array(b, np.arange(5, dtype=np.float32), version=(2, 0))
    write_seed(folder, b.getvalue())
    for a in (np.arange(3, dtype=">f8"), np.zeros(2, dtype=[("x", "<i4"), ("y", "<f4")])):
        b = io.BytesIO()
        np.save(b, a)
        write_seed(folder, b.getvalue())
    b = io.BytesIO()
    np.save(b, np.arange(10, dtype=np.float64))
    write_seed(folder, b.getvalue()[:100])  # truncated


PYTHON_TOKENS = """
def return if elif else for in range while break continue and or not is None True False lambda import from as
with global nonlocal pass class try except raise yield assert del async await
+ - * / // % ** << >> & | ^ ~ < > <= >= == != = += -= *= /= //= %= **= >>= <<= &= |= ^= := : , . ( ) [ ] { } @ -> ...
@cuda.jit @cuda.jit( device=True fastmath=True debug=True lineinfo=True opt=False @cuda.reduce @vectorize( @guvectorize(
target='cuda' from\\x20numba\\x20import\\x20cuda import\\x20numpy\\x20as\\x20np import\\x20math
cuda.grid(1) cuda.grid(2) cuda.grid(3) cuda.gridsize(1) cuda.threadIdx.x cuda.threadIdx.y cuda.blockIdx.x cuda.blockIdx.y
cuda.blockDim.x cuda.blockDim.y cuda.gridDim.x cuda.shared.array( cuda.local.array( cuda.const.array_like(
cuda.syncthreads() cuda.syncthreads_count( cuda.syncthreads_and( cuda.threadfence() cuda.syncwarp(
cuda.atomic.add( cuda.atomic.sub( cuda.atomic.max( cuda.atomic.min( cuda.atomic.exch( cuda.atomic.cas( cuda.atomic.compare_and_swap(
cuda.shfl_sync( cuda.shfl_down_sync( cuda.shfl_up_sync( cuda.shfl_xor_sync( cuda.all_sync( cuda.any_sync( cuda.ballot_sync(
cuda.laneid cuda.warpsize cuda.popc( cuda.clz( cuda.ffs( cuda.fma( cuda.selp(
math.sqrt( math.exp( math.log( math.sin( math.cos( math.floor( math.ceil( math.pow( math.inf math.pi math.isnan( math.fabs(
min( max( abs( int( float( bool( len( range( round(
.shape .size .ndim .dtype .shape[0] .x .y .z
float16 float32 float64 int8 int16 int32 int64 uint8 uint16 uint32 uint64 boolean
np.float32 np.float64 np.int32 np.int64 np.array( np.uint8 dtype=
float32[:] float64[:] int32[:] int64[:] float32[:,\\x20:] float64[:,\\x20:] float32[::1] int64[:,\\x20::1] float32[:,\\x20:,\\x20:]
void( "void(float32[:])" "void(float64[:],\\x20float64)" "float32(float32,\\x20float32)" #@\\x20
\\x0a \\x0a\\x20\\x20\\x20\\x20 \\x0a\\x20\\x20\\x20\\x20\\x20\\x20\\x20\\x20 \\x09 0 1 -1 2 32 1024 0x7fffffff 9223372036854775807 1e308 0.5 1j
"""

KIR_TOKENS = """
func.func() ({ ^bb0( ^bb1 %0 %1 %2 %a %b %c : () -> () ) -> ( }) }, { ({ })
{sym_name\\x20=\\x20@f,\\x20function_type\\x20=\\x20()\\x20->\\x20()} kernel device callee\\x20=\\x20@f
i1 i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 index
array<f32,\\x201,\\x20A> array<f64,\\x202,\\x20C> array<i64,\\x201,\\x20F> array<i32,\\x203,\\x20A> ptr<f32,\\x203> tuple<i64,\\x20f32>
{value\\x20=\\x201\\x20:\\x20i64} {value\\x20=\\x200.5} {pred\\x20=\\x20"slt"} {pred\\x20=\\x20"olt"} {axis\\x20=\\x200} {dim\\x20=\\x200}
loc("f.py":1:1) // -----  --pass-pipeline= true false 0 1 -1 2 1e308 nan inf 0x7fc00000
"""

NPY_TOKENS = """
\\x93NUMPY \\x01\\x00 \\x02\\x00 \\x03\\x00 {'descr':\\x20 'fortran_order':\\x20 'shape':\\x20 True False () (3,) (2,\\x203) (0,)
'<f4' '<f8' '<f2' '<i1' '<i2' '<i4' '<i8' '|u1' '<u2' '<u4' '<u8' '|b1' '|i1' '>f8' '<c8' '|O' '<U4' ,\\x20} \\x0a
"""


def write_dict(path, tokens, comment):
    with open(path, "w") as f:
        f.write("# %s (written by make_corpus.py)\n" % comment)
        seen = set()
        for t in tokens:
            if t in seen:
                continue
            seen.add(t)
            t = t.strip('"') if t.startswith('"') and t.endswith('"') and len(t) > 1 else t
            f.write('"%s"\n' % t.replace('"', '\\"'))


def main():
    corpus = os.path.join(FUZZ, "corpus")
    for name, fn in (("python", python_corpus), ("kir", kir_corpus), ("npy", npy_corpus)):
        folder = os.path.join(corpus, name)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        fn(folder)
        print("corpus/%s: %d seeds" % (name, len(os.listdir(folder))))
    ops = re.findall(r'^OP\(\w+,\s*"([a-z_.0-9]+)"', open(os.path.join(ROOT, "ir", "ops.def")).read(), re.M)
    passes = re.findall(r'^PASS\(\w+,\s*"([a-z-]+)"', open(os.path.join(ROOT, "passes", "passes.def")).read(), re.M)
    write_dict(os.path.join(FUZZ, "python.dict"), PYTHON_TOKENS.split(), "Python and Numba-CUDA tokens")
    write_dict(os.path.join(FUZZ, "kir.dict"), KIR_TOKENS.split() + ops + passes, "kir tokens: syntax, types, ops, passes")
    write_dict(os.path.join(FUZZ, "npy.dict"), NPY_TOKENS.split(), ".npy header tokens")
    print("dictionaries: %d ops, %d passes in kir.dict" % (len(ops), len(passes)))


if __name__ == "__main__":
    main()
