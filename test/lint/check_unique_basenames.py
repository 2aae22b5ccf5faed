#!/usr/bin/env python3
"""check_unique_basenames.py — no two library sources share a file name.

libkfront_internal.a names its members by file name alone, so two sources of one name (frontend/random.c and
runtime/random.c) become two members `random.c.o` that `ar x` extracts over each other: bench/stage_gpu.sh's
relink of the library, which extracts them, then falls back to a copy of the shared library whose SONAME the
staged tools cannot find on the GPU machine. Usage: check_unique_basenames.py SOURCE_ROOT. Exit 1, listing each
shared name, on any."""
import os
import sys

LIB_DIRS = ["api", "frontend", "ir", "passes", "backend", "runtime", "utils"]


def main():
    root = sys.argv[1]
    seen = {}
    for d in LIB_DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for f in files:
                if f.endswith(".c"):
                    seen.setdefault(f, []).append(os.path.relpath(os.path.join(dirpath, f), root))
    clashes = {name: paths for name, paths in seen.items() if len(paths) > 1}
    for name, paths in sorted(clashes.items()):
        print("check_unique_basenames: %s: %s" % (name, ", ".join(sorted(paths))))
    return 1 if clashes else 0


if __name__ == "__main__":
    sys.exit(main())
