#!/usr/bin/env python3
"""check_device_attributes.py — runtime/device_attributes.def's values are cuda.h's: every
DEVICE_ATTRIBUTE(NAME, VALUE, SIM) row has CU_DEVICE_ATTRIBUTE_NAME = VALUE in the toolkit's cuda.h, and every
attribute of cuda.h is in the table (so that numba.cuda's Device attributes by name all resolve).

usage: check_device_attributes.py SOURCE_DIR [CUDA_H]   (CUDA_H: $CUDA_HOME/include/cuda.h, /usr/local/cuda/...)"""
import os
import re
import sys


def main():
    src = sys.argv[1]
    cuda_h = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                                                                "include", "cuda.h")
    if not os.path.exists(cuda_h):
        print("check_device_attributes: no %s (the CUDA toolkit the build needs)" % cuda_h)
        return 1
    want = {}
    for name, value in re.findall(r"CU_DEVICE_ATTRIBUTE_([A-Z0-9_]+)\s*=\s*([0-9]+)", open(cuda_h).read()):
        if not name.endswith("_MAX"):
            want.setdefault(name, int(value))
    rows = re.findall(r"^DEVICE_ATTRIBUTE\(([A-Z0-9_]+), ([0-9]+), ",
                      open(os.path.join(src, "runtime", "device_attributes.def")).read(), re.M)
    bad = ["%s = %s, cuda.h says %s" % (n, v, want.get(n)) for n, v in rows if want.get(n) != int(v)]
    missing = sorted(set(want) - {n for n, _ in rows})
    for b in bad:
        print("device_attributes.def: " + b)
    for m in missing:
        print("device_attributes.def: no row for CU_DEVICE_ATTRIBUTE_%s" % m)
    print("%d attributes checked against %s" % (len(rows), cuda_h))
    return 1 if bad or missing or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
