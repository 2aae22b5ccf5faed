#!/usr/bin/env python3
"""check_no_libc_alloc.py — the library allocates only through utils/mem.h and never ends the process.

No library file (api/ frontend/ ir/ passes/ backend/ runtime/ utils/) may call malloc, calloc, realloc, strdup,
strndup, free, the other C allocators, or abort/exit; utils/mem.c alone calls the C library's allocator. Comments
and string literals are ignored; calls through a member (`ops->free(`, `.free =`) are not libc's. Tools and
tests may use libc directly. Usage: check_no_libc_alloc.py SOURCE_ROOT. Exit 1, listing each call, on any."""
import os
import re
import sys

LIB_DIRS = ["api", "frontend", "ir", "passes", "backend", "runtime", "utils"]
ALLOWED = {os.path.join("utils", "mem.c")}
FORBIDDEN = ["malloc", "calloc", "realloc", "reallocarray", "strdup", "strndup", "free", "aligned_alloc",
             "posix_memalign", "memalign", "valloc", "pvalloc", "asprintf", "vasprintf", "open_memstream",
             "getline", "getdelim", "realpath", "abort", "exit", "_exit", "_Exit", "quick_exit"]
CALL = re.compile(r"(?<![\w.>])(" + "|".join(FORBIDDEN) + r")\s*\(")


def strip(text):
    """Blanks out comments, string and character literals, keeping line numbers."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    bad, seen = [], 0
    for d in LIB_DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for f in sorted(files):
                if not f.endswith((".c", ".h", ".def")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                seen += 1
                if rel in ALLOWED:
                    continue
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = strip(fh.read())
                for no, line in enumerate(text.split("\n"), 1):
                    for m in CALL.finditer(line):
                        bad.append(f"{rel}:{no}: calls {m.group(1)}() (use utils/mem.h; the library never exits)")
    if seen < 50:
        print(f"check_no_libc_alloc: only {seen} library files found under {root}: wrong root?")
        return 1
    for b in bad:
        print(b)
    print(f"check_no_libc_alloc: {seen} files, {len(bad)} forbidden calls")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
