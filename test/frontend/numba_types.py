#!/usr/bin/env python3
"""numba_types.py — prints numba-cuda's types of the variables of kernels.

For every row of a manifest (test/acceptance/seeds/manifest.tsv: FILE, FUNCTION, SIGNATURE, `ptx`;
or Inputs/typing_rows.tsv, the same columns for the kernels of Inputs/typing_kernels.py), types the
function with numba-cuda for the row's signature and prints one line per variable:

    FILE|FUNCTION|SIGNATURE|VARIABLE|TYPE[, TYPE...]

(all the types the variable's SSA versions take, sorted; Literal[int](n) is int64 and Literal[bool] bool,
as they behave). test/unit/frontend_typing.c checks kfront's types against this output, kept in
Inputs/numba_seed_types.txt and Inputs/numba_kernel_types.txt. Regenerate with

    python3 test/frontend/numba_types.py test/acceptance/seeds/manifest.tsv > test/frontend/Inputs/numba_seed_types.txt
    python3 test/frontend/numba_types.py test/frontend/Inputs/typing_rows.tsv > test/frontend/Inputs/numba_kernel_types.txt

Needs `pip install numba numba-cuda` (typing runs on the CPU; no GPU or driver is used: the decorators
that would compile at import time are replaced by the identity while the module is loaded).
"""
import os
import re
import sys
import types as pytypes

os.environ.setdefault("CUDA_HOME", "/usr/local/cuda")
import numpy as np  # noqa: E402

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

import numba  # noqa: E402
from numba import cuda  # noqa: E402
import numba.cuda.dispatcher as _disp  # noqa: E402
from numba.core import sigutils  # noqa: E402
from numba.cuda.compiler import compile_cuda  # noqa: E402


class _FakeDevice:  # device functions compiled during typing want a compute capability
    compute_capability = (9, 0)


_disp.get_current_device = lambda: _FakeDevice()


def _identity_decorator(*args, **kwargs):
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda f: f


def load(path):
    saved = (numba.vectorize, numba.guvectorize, cuda.reduce)
    numba.vectorize = numba.guvectorize = cuda.reduce = _identity_decorator
    try:
        mod = pytypes.ModuleType("seed")
        mod.__file__ = path
        with open(path) as f:
            code = compile(f.read(), path, "exec")
        exec(code, mod.__dict__)
    finally:
        numba.vectorize, numba.guvectorize, cuda.reduce = saved
    return mod


def normalise(t):
    s = str(t)
    s = re.sub(r"Literal\[int\]\(-?\d+\)", "int64", s)
    s = re.sub(r"Literal\[bool\]\((True|False)\)", "bool", s)
    return s


def main():
    manifest = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "../acceptance/seeds/manifest.tsv")
    seeds = os.path.dirname(manifest)
    rows = []
    with open(manifest) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fname, func, sig, expected = line.rstrip("\n").split("\t")
            if expected == "ptx":
                rows.append((fname, func, sig))
    modules = {}
    for fname, func, sig in rows:
        if fname not in modules:
            modules[fname] = load(os.path.join(seeds, fname))
        pyfunc = getattr(modules[fname], func)
        pyfunc = getattr(pyfunc, "py_func", pyfunc)
        args, ret = sigutils.normalize_signature(sig)
        cres = compile_cuda(pyfunc, ret, args, cc=(9, 0))
        by_var = {}
        for name, t in cres.fndesc.typemap.items():
            if "$" in name or name.startswith("arg."):
                continue
            base = name.split(".")[0]
            by_var.setdefault(base, set()).add(normalise(t))
        for var in sorted(by_var):
            print(f"{fname}|{func}|{sig}|{var}|{', '.join(sorted(by_var[var]))}")


if __name__ == "__main__":
    main()
