"""Checks the examples of docs/kir.md against kfront-opt, so that the documented text format cannot drift.

Every ```kir block must parse and verify, and print to text that reads back to itself (print -> parse -> print
byte-stable), with and without locations. Every ```kir-error block must be refused, its first line
`// error: MESSAGE` naming the message kfront-opt reports (as `<file>:line:col: error: MESSAGE`).
Usage: kir_doc_check.py KFRONT_OPT DOC WORKDIR
"""
import os
import re
import subprocess
import sys


def blocks(text):
    """(kind, first line number, body) of each fenced kir / kir-error block."""
    for m in re.finditer(r"^```(kir|kir-error)\n(.*?)^```$", text, re.M | re.S):
        yield m.group(1), text.count("\n", 0, m.start()) + 2, m.group(2)


def run(opt, path, *flags):
    return subprocess.run([opt, path, *flags], capture_output=True, text=True)


def main():
    opt, doc, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    failures, counts = [], {"kir": 0, "kir-error": 0}
    for kind, line, body in blocks(open(doc, encoding="utf-8").read()):
        counts[kind] += 1
        where = f"{doc}:{line}"
        src = os.path.join(work, f"example-{line}.kir")
        with open(src, "w", encoding="utf-8") as f:
            f.write(body)
        if kind == "kir":
            for flags in ((), ("--mlir-print-debuginfo",)):
                first = run(opt, src, *flags)
                if first.returncode != 0:
                    failures.append(f"{where}: kfront-opt refused the example:\n{first.stderr}")
                    break
                again = os.path.join(work, f"example-{line}.printed.kir")
                with open(again, "w", encoding="utf-8") as f:
                    f.write(first.stdout)
                second = run(opt, again, *flags)
                if second.returncode != 0 or second.stdout != first.stdout:
                    failures.append(f"{where}: the printed form {' '.join(flags)} does not read back to itself:\n"
                                    f"{first.stdout}\n---\n{second.stdout}{second.stderr}")
        else:
            m = re.match(r"// error: (.*)\n", body)
            if not m:
                failures.append(f"{where}: a kir-error block must start with '// error: MESSAGE'")
                continue
            res = run(opt, src)
            if res.returncode == 0 or f"error: {m.group(1)}" not in res.stderr:
                failures.append(f"{where}: expected 'error: {m.group(1)}', got (exit {res.returncode}):\n{res.stderr}")
    if not counts["kir"] or not counts["kir-error"]:
        failures.append(f"{doc}: no examples found ({counts})")
    for f in failures:
        print(f, file=sys.stderr)
    print(f"kir_doc_check: {counts['kir']} examples, {counts['kir-error']} error examples, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
