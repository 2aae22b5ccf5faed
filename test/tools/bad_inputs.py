# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t %S/../runtime/Inputs/kernels.py
"""Bad inputs, one table: source, kir, command lines, launch configurations and arrays, each given to kfront,
kfront run or kfront-opt as a careless or hostile user would. Every row says the exit status (1 for bad input,
2 for a usage error; never a crash, a signal or 0) and a part of the message (a regular expression); a row
marked LOCATED also wants the error located: `FILE:LINE:COL: error: ...`, then the source line, then a caret.

Cases run by this script (a lit test: `%python bad_inputs.py WORKDIR KERNELS.PY`); `-v` prints every output."""
import os
import re
import subprocess
import sys

work, kernels = sys.argv[1], sys.argv[2]
verbose = "-v" in sys.argv

KERNEL_HEAD = "from numba import cuda\n\n@cuda.jit(\"void(float64[:], float64)\")\ndef k(a, x):\n"


def npy(descr, shape, data, magic=b"\x93NUMPY\x01\x00"):
    header = ("{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)).encode()
    header = header.ljust(64 - 10 - 1) + b"\n"
    return magic + len(header).to_bytes(2, "little") + header + data


LOCATED = True
# (name, tool and arguments ({in}: the input file, {k}: test/runtime/Inputs/kernels.py, {w}: a work folder),
#  input (text or bytes; None: no input file), suffix, exit status, message, located)
CASES = [
    # ---- Python source -------------------------------------------------------------------------------
    ("missing colon", "kfront check {in}", "def k(a)\n    pass\n", ".py", 1, r"expected ':'", LOCATED),
    ("unclosed bracket", "kfront check {in}", "x = (1,\n\ny = 2\n", ".py", 1, r"'\(' was never closed", LOCATED),
    ("unexpected indent", "kfront check {in}", "x = 1\n    y = 2\n", ".py", 1, r"unexpected indent", LOCATED),
    ("NUL byte", "kfront check {in}", b"x = 1 \x00 2\n", ".py", 1, r"U\+0000\nx = 1 \\x00 2\n      \^", LOCATED),
    ("invalid UTF-8", "kfront check {in}", b"x = 1 \xff\n", ".py", 1, r"invalid UTF-8 byte 0xFF", LOCATED),
    ("invalid UTF-8 in a string", "kfront check {in}", b"x = '\xc3('\n", ".py", 1, r":1:6: error: invalid UTF-8 byte 0xC3", LOCATED),
    ("invalid UTF-8 in a comment", "kfront check {in}", b"x = 1  # \xff\n", ".py", 1, r":1:10: error: invalid UTF-8 byte 0xFF", LOCATED),
    ("tab/space mix", "kfront check {in}", "if x:\n\tif y:\n        z = 1\n", ".py", 1, r"(inconsistent use of tabs|indent)", LOCATED),
    ("undefined name", "kfront check {in}", KERNEL_HEAD + "    a[0] = nope\n", ".py", 1, r"nope", LOCATED),
    ("array plus tuple", "kfront check {in}", KERNEL_HEAD + "    a[0] = a + (1, 2)\n", ".py", 1, r"unsupported operand types for '\+'", LOCATED),
    ("lambda with **kwargs in a kernel", "kfront check {in}", KERNEL_HEAD + "    f = lambda **y: y\n", ".py", 1, r"\*\*kwargs parameters are not supported", LOCATED),
    ("string in arithmetic", "kfront check {in}", KERNEL_HEAD + "    a[0] = x + 'a'\n", ".py", 1, r"unsupported operand types", LOCATED),
    ("integer literal too large", "kfront check {in}", KERNEL_HEAD + "    a[0] = 123456789012345678901234567890\n", ".py", 1, r"too large for 64 bits", LOCATED),
    ("index with a float", "kfront check {in}", KERNEL_HEAD + "    a[x] = 1.0\n", ".py", 1, r"(index|integer)", LOCATED),
    ("too many indices", "kfront check {in}", KERNEL_HEAD + "    a[0, 1] = 1.0\n", ".py", 1, r"(too many indices|2 indices|rank)", LOCATED),
    ("assign to a tuple item", "kfront check {in}", KERNEL_HEAD + "    t = (1, 2)\n    t[0] = 3\n", ".py", 1, r"tuples are immutable", LOCATED),
    ("return a value from a kernel", "kfront check {in}", KERNEL_HEAD + "    return 1\n", ".py", 1, r"(return|kernel)", LOCATED),
    ("runaway recursive device function", "kfront check {in}",
     "from numba import cuda\n\n@cuda.jit(device=True)\ndef f(n):\n    return f(n - 1)\n\n"
     "@cuda.jit(\"void(int64[:])\")\ndef k(a):\n    a[0] = f(3)\n", ".py", 1, r"runaway recursion", LOCATED),
    ("device function called with too many arguments", "kfront check {in}",
     "from numba import cuda\n\n@cuda.jit(device=True)\ndef f(n):\n    return n\n\n"
     "@cuda.jit(\"void(int64[:])\")\ndef k(a):\n    a[0] = f(1, 2)\n", ".py", 1, r"takes .*1 argument but 2 were given", LOCATED),
    ("100000-term power chain", "kfront check {in}", KERNEL_HEAD + "    a[0] = " + " ** ".join(["x"] * 100000) + "\n", ".py", 1, r"nested too deeply", LOCATED),
    ("tuple nested 100 deep", "kfront check {in}", KERNEL_HEAD + "    t = (x,)\n" + "    t = (t,)\n" * 100 + "    a[0] = 1\n", ".py", 1, r"nested more than 64 deep", LOCATED),
    ("300-branch elif chain", "kfront check {in}", KERNEL_HEAD + "    if x < 0:\n        a[0] = 0\n" +
     "".join("    elif x < %d:\n        a[0] = %d\n" % (i, i) for i in range(300)), ".py", 1, r"nested more than 256 deep", LOCATED),
    ("bad signature", "kfront compile {in} -k k --sig 'void(floot32[:])'", KERNEL_HEAD + "    a[0] = x\n", ".py", 1, r"<signature>:1:\d+: error: .*floot32", False),
    ("lazy kernel without a signature", "kfront compile {in} -k foo_grid", "from numba import cuda\n\n@cuda.jit\ndef foo_grid(a):\n    a[0] = 1\n", ".py", 1, r"kernel 'foo_grid' is lazy .*give one with --sig", LOCATED),
    ("no such kernel", "kfront compile {k} -k fo_grid --sig 'void(float32[:], float32[:])'", None, "", 1, r"no kernel or device function named 'fo_grid' \(did you mean 'foo_grid'\?\)", False),
    ("input is a directory", "kfront compile {w}", None, "", 1, r"cannot read '.*': it is a directory", False),
    ("input is missing", "kfront check {w}/missing.py", None, "", 1, r"cannot read '.*missing.py': No such file or directory", False),
    # ---- kir (kfront-opt) -----------------------------------------------------------------------------
    ("unknown op", "kfront-opt {in}", "func.func() ({\n  arith.frobnicate() : () -> ()\n}) {sym_name = @f, function_type = () -> ()} : () -> ()\n", ".kir", 1, r"arith.frobnicate", LOCATED),
    ("undefined value", "kfront-opt {in}", "func.func() ({\n  %1 = arith.addi(%0, %0) : (i64, i64) -> (i64)\n  func.return() : () -> ()\n}) {sym_name = @f, function_type = () -> ()} : () -> ()\n", ".kir", 1, r"%0", LOCATED),
    ("operand type mismatch", "kfront-opt {in}", "func.func() ({\n^bb0(%0: i64, %1: f32):\n  %2 = arith.addi(%0, %1) : (i64, f32) -> (i64)\n  func.return() : () -> ()\n}) {sym_name = @f, function_type = (i64, f32) -> ()} : () -> ()\n", ".kir", 1, r"'arith.addi' op", LOCATED),
    ("missing terminator", "kfront-opt {in}", "func.func() ({\n^bb0(%0: i64):\n  %1 = arith.addi(%0, %0) : (i64, i64) -> (i64)\n}) {sym_name = @f, function_type = (i64) -> ()} : () -> ()\n", ".kir", 1, r"terminator", LOCATED),
    ("truncated kir", "kfront-opt {in}", "func.func() ({\n^bb0(%0: i64):\n  %1 = arith.addi(%0,", ".kir", 1, r"error", LOCATED),
    ("constant out of range", "kfront-opt {in}", "func.func() ({\n  %0 = arith.constant() {value = 99999999999999999999 : i64} : () -> (i64)\n  func.return() : () -> ()\n}) {sym_name = @f, function_type = () -> ()} : () -> ()\n", ".kir", 1, r"out of range", LOCATED),
    ("regions nested 300 deep", "kfront-opt {in}", "func.func() ({\n^bb0(%c: i1):\n" + "scf.if(%c) ({\n" * 300 + "x\n", ".kir", 1, r"nesting too deep", LOCATED),
    ("types nested 100 deep", "kfront-opt {in}", "func.func() ({\n^bb0(%0: " + "tuple<" * 100 + "i64" + ">" * 100 + "):\n  func.return() : () -> ()\n}) {sym_name = @f, function_type = () -> ()} : () -> ()\n", ".kir", 1, r"error", LOCATED),
    ("unknown pass", "kfront-opt {in} --pass-pipeline=canonicalize,frobnicate", "", ".kir", 1, r"unknown pass 'frobnicate'", False),
    ("NUL in kir", "kfront-opt {in}", b"func.func() ({\n  func.return() \x00 : () -> ()\n}) {sym_name = @f, function_type = () -> ()} : () -> ()\n", ".kir", 1, r"\\x00", LOCATED),
    # ---- command lines --------------------------------------------------------------------------------
    ("unknown command", "kfront frobnicate", None, "", 2, r"unknown command 'frobnicate'", False),
    ("compile without input", "kfront compile", None, "", 2, r"no input file", False),
    ("bad --emit", "kfront compile {k} --emit=wat", None, "", 2, r"--emit must be kir, llvm, ptx or ltoir, not 'wat'", False),
    ("bad --arch", "kfront compile {k} --arch=sm_9", None, "", 2, r"--arch must look like sm_90", False),
    ("--sig without -k", "kfront compile {k} --sig 'void()'", None, "", 2, r"--sig needs -k NAME", False),
    ("kfront-opt unknown option", "kfront-opt --frobnicate", None, "", 2, r"unknown option '--frobnicate'", False),
    ("run without a kernel", "kfront run {k} --grid 1 --block 1", None, "", 2, r"no kernel given", False),
    ("run with a bad grid", "kfront run {k} -k foo_grid --grid 1,x --block 1", None, "", 2, r"bad --grid '1,x'", False),
    ("run with a step limit of 0", "kfront run {k} -k foo_grid --grid 1 --block 1 --sim-max-steps 0", None, "", 2, r"bad --sim-max-steps '0'", False),
    ("a float as an int64", "kfront run {k} -k axpy --grid 1 --block 1 out:f64[4] 1e400:i64 x:f64[4] y:f64[4]", None, "", 2, r"'1e400' is not an int64", False),
    ("uint8 out of range", "kfront run {k} -k axpy --grid 1 --block 1 out:f64[4] 300:u8 x:f64[4] y:f64[4]", None, "", 2, r"'300' is out of range for uint8", False),
    ("integer out of range", "kfront run {k} -k axpy --grid 1 --block 1 out:f64[4] 18446744073709551616 x:f64[4] y:f64[4]", None, "", 2, r"out of range for int64", False),
    ("unknown dtype", "kfront run {k} -k axpy --grid 1 --block 1 out:f99[4] 2.0 x:f64[4] y:f64[4]", None, "", 2, r"unknown dtype 'f99'", False),
    # ---- launch configurations ------------------------------------------------------------------------
    ("2048 threads per block", "kfront run {k} -k axpy --grid 1 --block 2048 --sim out:f64[4] 2.0 x:f64[4] y:f64[4]", None, "", 1, r"(1024 threads|block)", False),
    ("a grid of 0 blocks", "kfront run {k} -k axpy --grid 0 --block 32 --sim out:f64[4] 2.0 x:f64[4] y:f64[4]", None, "", 1, r"grid", False),
    ("block z of 65", "kfront run {k} -k transpose --grid 1 --block 1,1,65 --sim s:f32[4,4] d:f32[4,4]", None, "", 1, r"block", False),
    ("grid y of 65536", "kfront run {k} -k transpose --grid 1,65536 --block 1 --sim s:f32[4,4] d:f32[4,4]", None, "", 1, r"grid", False),
    ("too much shared memory", "kfront run {k} -k axpy --grid 1 --block 32 --shared 4000000000 --sim out:f64[4] 2.0 x:f64[4] y:f64[4]", None, "", 1, r"shared", False),
    ("out of bounds (IndexError)", "kfront run {k} -k foo_grid --grid 1 --block 32 --sim i:i64[10] o:f64[10]", None, "", 1, r"kernels.py:\d+:\d+: error: IndexError: index 10 is out of bounds for axis 0 with size 10", False),
    ("too many arguments", "kfront run {k} -k scale --grid 1 --block 32 --sim a:f32[4] 3 4", None, "", 1,
     r"No matching definition for argument type\(s\) float32\[::1\], int64, int64: kernel scale has no signature that matches them; its signatures are:\n  void\(float32\[:\], int32\)", False),
    ("a never-ending launch", "kfront run {w}/spin.py -k spin --grid 1 --block 1 --sim --sim-max-steps 10000 a:i64[4]", None, "", 1, r"simulation step limit exceeded", False),
    # ---- arrays -----------------------------------------------------------------------------------------
    ("missing .npy", "kfront run {k} -k foo_grid --grid 1 --block 1 {w}/missing.npy o:f64[1]", None, "", 1, r"missing.npy: error: cannot open: No such file or directory", False),
    ("big-endian .npy", "kfront run {k} -k foo_grid --grid 1 --block 1 {in} o:f64[3]", npy(">f8", "(3,)", bytes(24)), ".npy", 1, r"big-endian", False),
    ("truncated .npy", "kfront run {k} -k foo_grid --grid 1 --block 1 {in} o:f64[3]", npy("<f8", "(3,)", bytes(10)), ".npy", 1, r"truncated data", False),
    ("structured .npy", "kfront run {k} -k foo_grid --grid 1 --block 1 {in} o:f64[3]", npy("[('x', '<i4')]", "(3,)", bytes(12)), ".npy", 1, r"(dtype|structured)", False),
    ("not a .npy", "kfront run {k} -k foo_grid --grid 1 --block 1 {in} o:f64[3]", b"PK\x03\x04 zip, not npy", ".npy", 1, r"(magic|not a \.npy)", False),
    (".npy that is a directory", "kfront run {k} -k foo_grid --grid 1 --block 1 {w}/dir.npy o:f64[3]", None, "", 1, r"dir.npy: error: cannot read: it is a directory", False),
    ("dtype not in the signature", "kfront run {k} -k scale --grid 1 --block 32 a:f64[4] 3", None, "", 1, r"kernel scale has no signature that matches", False),
    ("rank not in the signature", "kfront run {k} -k scale --grid 1 --block 32 a:f32[2,2] 3", None, "", 1, r"kernel scale has no signature that matches", False),
    ("negative extent", "kfront run {k} -k axpy --grid 1 --block 1 out:f64[-1] 2.0 x:f64[4] y:f64[4]", None, "", 2, r"bad shape", False),
    ("array too large", "kfront run {k} -k axpy --grid 1 --block 1 out:f64[4000000000000,4000000000000] 2.0 x:f64[4] y:f64[4]", None, "", 2, r"too large", False),
]

os.makedirs(os.path.join(work, "dir.npy"), exist_ok=True)
with open(os.path.join(work, "spin.py"), "w") as f:
    f.write("from numba import cuda\n\n@cuda.jit\ndef spin(a):\n    while a[0] >= 0:\n        a[1] += 1\n")

failures = 0
env = dict(os.environ, KFRONT_SIM="1", KFRONT_NO_CACHE="1")
for i, (name, cmd, text, suffix, want_status, message, located) in enumerate(CASES):
    path = os.path.join(work, "case%02d%s" % (i, suffix))
    if text is not None:
        with open(path, "wb") as f:
            f.write(text if isinstance(text, bytes) else text.encode())
    args = cmd.replace("{in}", path).replace("{k}", kernels).replace("{w}", work)
    p = subprocess.run(["bash", "-c", args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out = p.stderr.decode("utf-8", "replace")
    problems = []
    if p.returncode != want_status:
        problems.append("exit status %d, expected %d" % (p.returncode, want_status))
    if not re.search(message, out):
        problems.append("no match for /%s/" % message)
    if located:
        base = re.escape(os.path.basename(path))
        m = re.search(r"^[^\n]*" + base + r":(\d+):(\d+): error: [^\n]*\n([^\n]*)\n( *)\^\n", out, re.M)
        if not m:
            problems.append("not located (FILE:LINE:COL: error:, the source line, a caret)")
    if problems or verbose:
        print("%s %s: %s\n  $ %s\n%s" % ("FAIL" if problems else "ok", name, "; ".join(problems) or "as expected",
                                        args[:300], "".join("  | " + l + "\n" for l in out[:1500].splitlines())))
    failures += bool(problems)

print("%d cases, %d failed" % (len(CASES), failures))
sys.exit(1 if failures else 0)
