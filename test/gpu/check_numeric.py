#!/usr/bin/env python3
"""check_numeric.py — checks the outputs of test/gpu/numeric_kernels.py's kernel (run by run_gpu_tests.sh).

    check_numeric.py make DIR            writes the inputs (float64 and float32, 256 values each — the script launches
                                         8 x 32 threads —: edge values and random) to DIR/f64
                                         and DIR/f32 (x.npy, y.npy, out.npy, ints.npy)
    check_numeric.py numpy IN OUT        OUT's outputs against NumPy (and Python's math), on IN's inputs
    check_numeric.py same IN OUT1 OUT2   two runs against each other (the GPU's and the simulator's)

Results are bit for bit but for the libm functions (host libm on the simulator, libdevice on the GPU, NumPy's
own code): within ULPS units in the last place. Exit status 0 when every column matches."""
import math
import os
import sys

import numpy as np

ULPS = 8
# (name, reference(a, b) on arrays of the input type, libm?) in the order of the kernel's columns
COLUMNS = [
    ("sin", lambda a, b: np.sin(a), True), ("cos", lambda a, b: np.cos(a), True),
    ("exp", lambda a, b: np.exp(a), True), ("log", lambda a, b: np.log(a), True),
    ("arctan2", np.arctan2, True), ("hypot", np.hypot, True), ("power", np.power, True),
    ("logaddexp", np.logaddexp, True), ("cbrt", lambda a, b: np.cbrt(a), True), ("tanh", lambda a, b: np.tanh(a), True),
    ("maximum", np.maximum, False), ("fmin", np.fmin, False), ("floor_divide", np.floor_divide, False),
    ("remainder", np.remainder, False), ("fmod", np.fmod, False), ("nextafter", np.nextafter, False),
    ("spacing", lambda a, b: np.spacing(a), False), ("copysign", np.copysign, False), ("sign", lambda a, b: np.sign(a), False),
    ("rint", lambda a, b: np.rint(a), False), ("sqrt", lambda a, b: np.sqrt(a), False),
    ("floor", lambda a, b: np.floor(a), False),
    ("math.remainder", lambda a, b: np.array([math.remainder(x, y) if math.isfinite(x) and y != 0 and not math.isnan(y)
                                              else (x if math.isfinite(x) and math.isinf(y) else math.nan)
                                              for x, y in zip(a.tolist(), b.tolist())], dtype=a.dtype), False),
    ("cuda.fma", None, False),
    ("frexp.m", lambda a, b: np.where(np.isfinite(a), np.frexp(a)[0], a), False),
    ("ldexp", lambda a, b: np.ldexp(a, 5), False),
    ("modf.frac", lambda a, b: np.modf(a)[0], False), ("modf.int", lambda a, b: np.modf(a)[1], False),
]


def make(d):
    rng = np.random.default_rng(11)
    edge = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -3.5, 7.0, 0.1, 1e-310, 5e-324, -1e-300, 1e300, 1.7e308, np.inf,
            -np.inf, np.nan, 3.0, 100.0, -7.25, 1e-40]
    for dt, name in ((np.float64, "f64"), (np.float32, "f32")):
        with np.errstate(all="ignore"):  # float32 of 1e300: infinite
            x = np.concatenate([np.array(edge), rng.standard_normal(200) * 10, rng.random(34) * 1e6]).astype(dt)
            y = np.concatenate([np.roll(x[:x.size // 2], 5), rng.standard_normal(x.size - x.size // 2)]).astype(dt)
        os.makedirs(os.path.join(d, name), exist_ok=True)
        np.save(os.path.join(d, name, "x.npy"), x)
        np.save(os.path.join(d, name, "y.npy"), y)
        np.save(os.path.join(d, name, "out.npy"), np.zeros((x.size, len(COLUMNS)), dtype=dt))
        np.save(os.path.join(d, name, "ints.npy"), np.zeros((x.size, 2), dtype=np.int64))


def ulps(a, b):
    a = np.asarray(a)
    b = np.asarray(b, dtype=a.dtype)
    it = np.int64 if a.dtype == np.float64 else np.int32
    ia, ib = a.view(it).astype(np.int64), b.view(it).astype(np.int64)
    top = np.int64(np.iinfo(it).min)
    ia = np.where(ia < 0, top - ia, ia)
    ib = np.where(ib < 0, top - ib, ib)
    d = np.abs(ia - ib).astype(np.float64)
    d = np.where(np.isnan(a) & np.isnan(b), 0, d)
    d = np.where(np.isnan(a) != np.isnan(b), np.inf, d)
    return d


def compare(name, got, want, tol):
    d = ulps(got, want)
    bad = np.nonzero(d > tol)[0]
    if bad.size:
        print(f"    | {name}: {bad.size} values differ, e.g. at {bad[:3]}: got {got[bad[:3]]} want {want[bad[:3]]}")
    return bad.size == 0


def fma_exact(p, q, r):
    """p * q + r rounded once to float64 (infinite beyond its range)."""
    from fractions import Fraction
    if not (math.isfinite(p) and math.isfinite(q) and math.isfinite(r)):
        return p * q + r
    v = Fraction(p) * Fraction(q) + Fraction(r)
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def reference(x, y):
    with np.errstate(all="ignore"):
        cols = []
        for name, f, _ in COLUMNS:
            if name == "cuda.fma":
                # exact for finite values: a * b + a rounded once (float64: through Python's exact fractions)
                cols.append(np.array([fma_exact(p, q, p) for p, q in zip(x.tolist(), y.tolist())]).astype(x.dtype))
            else:
                cols.append(np.asarray(f(x, y), dtype=x.dtype))
        e = np.where(np.isfinite(x), np.frexp(x)[1], 0)
        flags = (np.isnan(x) + 2 * np.isinf(x) + 4 * np.signbit(x) + 8 * np.greater(x, y) + 16 * np.logical_and(x, y))
        return cols, np.stack([e, flags], axis=1).astype(np.int64)


def main():
    mode = sys.argv[1]
    if mode == "make":
        make(sys.argv[2])
        return 0
    ok = True
    for name in ("f64", "f32"):
        x = np.load(os.path.join(sys.argv[2], name, "x.npy"))
        y = np.load(os.path.join(sys.argv[2], name, "y.npy"))
        out = np.load(os.path.join(sys.argv[3], name, "out.npy"))
        ints = np.load(os.path.join(sys.argv[3], name, "ints.npy"))
        if mode == "numpy":
            cols, want_ints = reference(x, y)
            for k, (cname, _, libm) in enumerate(COLUMNS):
                # float32 fma through float64 rounds twice: compare where that is exact
                mask = np.ones(x.size, bool)
                if cname == "cuda.fma" and x.dtype == np.float32:
                    with np.errstate(all="ignore"):
                        exact = x.astype(np.float64) * y.astype(np.float64) + x.astype(np.float64)
                    mask = exact.astype(np.float32).astype(np.float64) == exact
                ok &= compare(f"{name} {cname}", out[mask, k], cols[k][mask], ULPS if libm else 0)
            if not np.array_equal(ints, want_ints):
                bad = np.nonzero((ints != want_ints).any(axis=1))[0]
                print(f"    | {name} frexp exponent / predicates differ at {bad[:5]}: {ints[bad[:3]]} vs {want_ints[bad[:3]]}")
                ok = False
        else:
            out2 = np.load(os.path.join(sys.argv[4], name, "out.npy"))
            ints2 = np.load(os.path.join(sys.argv[4], name, "ints.npy"))
            for k, (cname, _, libm) in enumerate(COLUMNS):
                ok &= compare(f"{name} {cname} (GPU vs simulator)", out[:, k], out2[:, k], ULPS if libm else 0)
            ok &= bool(np.array_equal(ints, ints2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
