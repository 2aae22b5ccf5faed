#!/usr/bin/env python3
"""check_row.py — one row of the seed manifest (test/acceptance/seeds/manifest.tsv) as a test.

usage: check_row.py KFRONT SEEDS_DIR FILE FUNCTION SIGNATURE EXPECTED

EXPECTED is `ptx`: `kfront compile FILE -k FUNCTION --sig SIGNATURE --emit=ptx` must succeed, print no
error, and `ptxas -arch=sm_90` must accept the PTX (ptxas from $CUDA_HOME/bin or /usr/local/cuda/bin; a
missing ptxas fails the test: it is part of what this row checks).
EXPECTED is `error:TEXT`: kfront must exit 1 with a located diagnostic (`FILE:LINE:COL: error: ...`
followed by the source line and a caret) whose message contains TEXT.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def find_ptxas():
    for base in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if base and os.path.exists(os.path.join(base, "bin", "ptxas")):
            return os.path.join(base, "bin", "ptxas")
    return shutil.which("ptxas")


def main():
    kfront, seeds, fname, func, sig, expected = sys.argv[1:7]
    src = os.path.join(seeds, fname)
    with tempfile.TemporaryDirectory() as tmp:
        ptx = os.path.join(tmp, "out.ptx")
        cmd = [kfront, "compile", src, "-k", func, "--sig", sig, "--emit=ptx", "-o", ptx]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        print("$ " + " ".join(cmd))
        print(r.stderr, end="")
        if expected == "ptx":
            if r.returncode != 0 or "error:" in r.stderr:
                print(f"FAIL: kfront exited {r.returncode}")
                return 1
            ptxas = find_ptxas()
            if not ptxas:
                print("FAIL: ptxas not found (CUDA_HOME or /usr/local/cuda)")
                return 1
            p = subprocess.run([ptxas, "-arch=sm_90", ptx, "-o", os.path.join(tmp, "out.cubin")],
                               capture_output=True, text=True, timeout=120)
            print(p.stdout + p.stderr, end="")
            if p.returncode != 0:
                print("FAIL: ptxas rejected the PTX")
                return 1
            print("PASS")
            return 0
        assert expected.startswith("error:"), expected
        want = expected[len("error:"):]
        if r.returncode != 1:
            print(f"FAIL: expected exit status 1, got {r.returncode}")
            return 1
        lines = r.stderr.splitlines()
        located = re.compile(re.escape(src) + r":(\d+):(\d+): error: (.*)")
        for i, line in enumerate(lines):
            m = located.match(line)
            if m and want in m.group(3):
                # the source line, then a caret under the column
                if i + 2 < len(lines) and lines[i + 2].strip() == "^" and \
                        len(lines[i + 2]) - 1 == int(m.group(2)) - 1:
                    print("PASS")
                    return 0
                print("FAIL: the diagnostic lacks the source line and a caret at its column")
                return 1
        print(f"FAIL: no located error containing {want!r}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
