"""worker — runs difftest programs for the driver (driver.py), one JSON object a line on stdin, one answer a line
on stdout, so that one slow-starting interpreter (numba's simulator takes seconds to import) runs many programs.

    python worker.py MODE      MODE one of:
      kfront     kfront's `cuda` (KFRONT_SIM=1 in the environment for its simulator, unset for the GPU)
      numba      numba-cuda (NUMBA_ENABLE_CUDASIM=1 for its simulator: the oracle), under the oracle interpreter
      cpython    plain CPython: `cuda.jit` is the identity and a launch calls the kernel once (the programs the
                 generator marks pure: one thread, no cuda.* call in the kernel)

A request: {"id", "source", "grid", "block", "args": [array {"dtype", "shape", "hex"} | scalar {"type", "value"}]}
(kgen.Program.to_json). The answer: {"id", "status": "ok", "arrays": [hex of every array argument after the
launch]} or {"id", "status": "error", "error": "ExceptionType: message"}. The source is exec'd under a file name
of its own registered in linecache (kfront compiles from source lines). In the oracle modes NumPy's overflow and
invalid-operation warnings are errors: a program that overflows a NumPy scalar is not defined alike on both sides,
and the driver counts it as invalid instead of comparing it.
"""
import json
import linecache
import math
import sys
import traceback
import warnings

import numpy as np

MODE = sys.argv[1]
STRICT = MODE in ("numba", "cpython")

if MODE == "kfront":
    from kfront import cuda
elif MODE == "numba":
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack      # numba-cuda 0.30 on NumPy 2.4 still names it
    from numba import cuda
elif MODE == "cpython":
    class _Launch:
        def __init__(self, fn):
            self.fn = fn

        def __getitem__(self, config):
            return self.fn

    class cuda:  # noqa: N801 — stands in for the module
        @staticmethod
        def jit(fn=None, device=False):
            if fn is None:
                return lambda f: f if device else _Launch(f)
            return _Launch(fn)
else:
    sys.exit("worker: unknown mode %r" % MODE)

if STRICT:
    warnings.simplefilter("error")
    if MODE == "numba":  # numba-cuda on a GPU warns of small grids and host copies: advice, not an outcome (its
        # own warning class, numba.cuda.core.errors', not numba.core.errors': the message is what both share)
        warnings.filterwarnings("ignore", message=r".*(under-utilization due to low occupancy|will incur copy overhead)")
else:
    warnings.simplefilter("ignore")   # kfront's PerformanceWarning (low occupancy) on every small launch
    np.seterr(over="raise", invalid="raise", divide="raise", under="ignore")


def build_args(specs):
    args = []
    for s in specs:
        if s["kind"] == "array":
            a = np.frombuffer(bytes.fromhex(s["hex"]), dtype=s["dtype"]).reshape(s["shape"]).copy()
            args.append(a)
        else:
            t, v = s["type"], s["value"]
            if t == "pyint":
                args.append(int(v))
            elif t == "pyfloat":
                args.append(float.fromhex(v))
            elif t.startswith("float"):
                args.append(np.dtype(t).type(float.fromhex(v)))
            else:
                args.append(np.dtype(t).type(v))
    return args


def run(req):
    filename = "<difftest-%s>" % req["id"]
    source = req["source"]
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    ns = {"np": np, "math": math, "cuda": cuda, "__name__": "difftest_%s" % req["id"]}
    try:
        exec(compile(source, filename, "exec"), ns)
        args = build_args(req["args"])
        ns["kernel"][req["grid"], req["block"]](*args)
        if MODE == "kfront" or MODE == "numba":
            cuda.synchronize()
        arrays = [a.tobytes().hex() for a in args if isinstance(a, np.ndarray)]
        return {"id": req["id"], "status": "ok", "arrays": arrays}
    except BaseException as e:  # noqa: B902 — every failure is an answer
        if isinstance(e, KeyboardInterrupt):
            raise
        text = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0][:400] if str(e).strip() else "")
        tail = traceback.format_exc().splitlines()[-6:]
        return {"id": req["id"], "status": "error", "error": text, "trace": "\n".join(tail)}
    finally:
        linecache.cache.pop(filename, None)


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        answer = run(json.loads(line))
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
