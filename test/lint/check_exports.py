#!/usr/bin/env python3
"""check_exports.py NM LIBKFRONT.a LIBKFRONT.so HEADER... — the libraries export the public API and nothing else.

The defined global symbols of libkfront.a (nm -g --defined-only: one object whose other globals are local,
cmake/public_archive.sh) and the dynamic ones of libkfront.so (nm -D --defined-only) must be exactly the functions
the public headers declare with KF_API: an internal name (sha256_init, an LLVM symbol) exported is a clash with an
embedder's own; a KF_API function missing is a broken build. Fast: nm over the built files."""
import re
import subprocess
import sys


def defined(nm, args, path):
    out = subprocess.run([nm, *args, path], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] not in ("U", "w", "v"):
            names.add(parts[2].split("@")[0])
    return names


def declared(headers):
    names = set()
    for h in headers:
        text = "\n".join(l for l in open(h).read().splitlines() if not l.lstrip().startswith("#"))
        for decl in re.findall(r"\bKF_API\b([^;{]*?)\(", text, flags=re.S):
            m = re.search(r"(\w+)\s*$", decl)
            if m:
                names.add(m.group(1))
    return names


def main():
    nm, static, shared, *headers = sys.argv[1:]
    api = declared(headers)
    if len(api) < 100:
        sys.exit(f"check_exports: only {len(api)} KF_API functions found in {headers}")
    bad = 0
    for path, args in ((static, ["-g", "--defined-only"]), (shared, ["-D", "--defined-only"])):
        got = defined(nm, args, path)
        extra, missing = sorted(got - api), sorted(api - got)
        if extra:
            bad += 1
            print(f"{path}: {len(extra)} exported symbols that are not the public API, e.g. {', '.join(extra[:20])}")
        if missing:
            bad += 1
            print(f"{path}: {len(missing)} KF_API functions not exported: {', '.join(missing[:20])}")
        if not extra and not missing:
            print(f"{path}: exports the {len(got)} KF_API functions, nothing else")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
