#!/usr/bin/env python3
"""sim_vs_numba.py — runs kernels with kfront (its simulator) and with numba-cuda's CUDA simulator
(NUMBA_ENABLE_CUDASIM=1, pure Python) and compares the outputs: Python's // and % signs, negative
indices, range steps, break/continue/else, unification, bit operations, chained comparisons, device
functions, shared-memory reductions, atomics, warp shuffles.

    python3 test/frontend/sim_vs_numba.py [KFRONT]      (default: build/bin/kfront)

Needs numpy and numba-cuda (`pip install numba numba-cuda`); prints one line per case and exits 1 on a
difference. Not part of ctest (CI machines need not have numba).
"""
import importlib.util
import os
import subprocess
import sys
import tempfile

import numpy as np

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

HERE = os.path.dirname(os.path.abspath(__file__))
KFRONT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "../../build/bin/kfront")
failures = 0


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "Inputs", name + ".py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def kfront(tmp, module, kernel, grid, block, args, name):
    out = os.path.join(tmp, "out")
    r = subprocess.run([KFRONT, "run", os.path.join(HERE, "Inputs", module + ".py"), "-k", kernel, "--grid", grid,
                        "--block", block, "--sim", "-o", out] + args, capture_output=True, text=True)
    if r.returncode:
        print(r.stdout + r.stderr)
        return None
    return np.load(os.path.join(out, name + ".npy"))


def check(label, got, want, tol=1e-9):
    global failures
    ok = got is not None and got.shape == want.shape and np.allclose(got, want, rtol=tol, atol=tol)
    print(f"{'PASS' if ok else 'FAIL'} {label}")
    if not ok:
        failures += 1
        print("  kfront:", got)
        print("  numba: ", want)


def save(tmp, name, a):
    p = os.path.join(tmp, name + ".npy")
    np.save(p, a)
    return p


def main():
    with tempfile.TemporaryDirectory() as tmp:
        sem = load("semantics_kernels")
        a = np.array([1.5, 7.9, 2.6, -0.3, 4.0])
        want = np.zeros(64)
        sem.sem[1, 1](a, want)
        check("semantics", kfront(tmp, "semantics_kernels", "sem", "1", "1", [save(tmp, "a", a), "out:f64[64]"], "out"),
              want)
        ex = load("example_kernels")
        rng = np.random.default_rng(1)
        st = rng.random((12, 10)).astype(np.float32)
        want = np.zeros_like(st)
        ex.stencil[(2, 2), (8, 8)](st, want)
        check("stencil", kfront(tmp, "example_kernels", "stencil", "2,2", "8,8", [save(tmp, "st", st), "out:f32[12,10]"],
                                "out"), want, 1e-6)
        want = np.zeros((9, 11), dtype=np.int32)
        ex.mandel[(2, 2), (8, 8)](want, 50)
        check("mandel", kfront(tmp, "example_kernels", "mandel", "2,2", "8,8", ["out:i32[9,11]", "50"], "out"), want)
        x = rng.random(300).astype(np.float32)
        want = np.zeros(7, dtype=np.int32)
        ex.histogram[2, 32](x, np.float32(0.0), np.float32(1.0), want)
        check("histogram", kfront(tmp, "example_kernels", "histogram", "2", "32",
                                  [save(tmp, "x", x), "0.0:f32", "1.0:f32", "histogram_out:i32[7]"], "histogram_out"), want)
        s = rng.random(256)
        want = np.zeros(1)
        ex.sum_reduce[2, 128](s, want)
        check("sum_reduce", kfront(tmp, "example_kernels", "sum_reduce", "2", "128", [save(tmp, "s", s), "out:f64[1]"],
                                   "out"), want, 1e-12)
        n = 100
        S, X, T = (rng.random(n) * 10 + 1), (rng.random(n) * 10 + 1), (rng.random(n) + 0.1)
        call, put = np.zeros(n), np.zeros(n)
        ex.black_scholes_cuda[1, 128](call, put, S, X, T, 0.02, 0.3)
        got = kfront(tmp, "example_kernels", "black_scholes_cuda", "1", "128",
                     ["callResult:f64[100]", "putResult:f64[100]", save(tmp, "S", S), save(tmp, "X", X),
                      save(tmp, "T", T), "0.02", "0.3"], "callResult")
        check("black_scholes", got, call, 1e-12)
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
