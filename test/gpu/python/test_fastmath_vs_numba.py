"""GPU-only: fastmath's fast forms (docs/numeric.md, fastmath) against numba-cuda and against their documented error.

The same kernels compiled with fastmath=True by numba-cuda and by kfront call the same libdevice functions
(__nv_fast_fdividef, __nv_fast_sinf ... __nv_fast_powf, tanh.approx.f32) under the same -ftz=1 -prec-div=0
-prec-sqrt=0: their results must be equal bit for bit (NaN: any NaN). kfront's are also held to the CUDA C++
Programming Guide's bounds for the intrinsics (and PTX's for tanh.approx.f32) around the exact value, which the
simulator computes (python/tests/test_fastmath.py): the largest error of each is printed.
Run: test/gpu/run_python_gpu.sh DEST (or python3 -m pytest -q test/gpu/python/test_fastmath_vs_numba.py with
kfront and numba-cuda importable, on a GPU)."""
import math

import numba.cuda as ncuda  # the GPU machine has numba-cuda: missing, the suite fails (it is not skipped)
import numpy as np

from kfront import cuda as kcuda

np.row_stack = np.vstack  # numba-cuda 0.30.4 on NumPy 2

SRC = """
import math
def fm(r, x, y):
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        w = y[i]
        r[i, 0] = v / w
        r[i, 1] = math.sin(v)
        r[i, 2] = math.cos(v)
        r[i, 3] = math.tan(v)
        r[i, 4] = math.exp(v)
        r[i, 5] = math.log(w)
        r[i, 6] = math.log2(w)
        r[i, 7] = math.log10(w)
        r[i, 8] = math.pow(w, v)
        r[i, 9] = w ** v
        r[i, 10] = math.tanh(v)
"""
COLUMNS = ["x / y", "sin", "cos", "tan", "exp", "log", "log2", "log10", "pow", "**", "tanh"]


def compile_with(module):
    scope = {"cuda": module}
    exec(compile(SRC, "<fastmath-vs-numba %s>" % module.__name__, "exec"), scope)
    return module.jit(fastmath=True)(scope["fm"])


def operands(n=1 << 16, seed=5):
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.uniform(-math.pi, math.pi, n // 2), rng.uniform(-20, 20, n // 2)]).astype(np.float32)
    y = np.exp2(rng.uniform(-20, 20, n)).astype(np.float32)  # positive, normal, within 2^-126 <= |y| <= 2^126
    y[: n // 8] = rng.uniform(0.5, 2.0, n // 8).astype(np.float32)  # the absolute-error range of the logarithms
    return x, y


def run(kernel, x, y):
    r = np.zeros((x.size, len(COLUMNS)), np.float32)
    kernel[(x.size + 255) // 256, 256](r, x, y)
    return r


def test_fast_forms_equal_numba_cudas():
    x, y = operands()
    kf, nb = run(compile_with(kcuda), x, y), run(compile_with(ncuda), x, y)
    for j, name in enumerate(COLUMNS):
        a, b = kf[:, j], nb[:, j]
        same = (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))
        assert same.all(), "%s: %d of %d differ, first at x=%r y=%r: kfront %r numba-cuda %r" % (
            name, (~same).sum(), same.size, x[~same][0], y[~same][0], a[~same][0], b[~same][0])


def ulps(got, ref):
    """How many float32 values lie between got and ref (float64) rounded to float32: the Programming Guide's ulp
    errors count whole ulps from the correctly rounded result (a result 2 ulps from it is within a bound of 2 even
    where it is 2.03 ulps from the infinitely precise value, as __expf's and __log2f's results on an H200 are)."""
    def ordered(a):
        i = a.astype(np.float32).view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFF), i)
    return np.abs(ordered(got) - ordered(ref)).astype(np.float64)


def test_fast_forms_within_documented_bounds():
    x, y = operands()
    r = run(compile_with(kcuda), x, y)
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    inpi = np.abs(xd) <= math.pi
    near1 = (yd >= 0.5) & (yd <= 2.0)
    checks = [  # (column, exact values, where, absolute bound or None, ulp bound (array or scalar) or None)
        (0, xd / yd, np.ones_like(inpi), None, 2),
        (1, np.sin(xd), inpi, 2.0 ** -21.41, None),
        (2, np.cos(xd), inpi, 2.0 ** -21.19, None),
        (4, np.exp(xd), np.ones_like(inpi), None, 2 + np.floor(np.abs(1.173 * xd))),
        (5, np.log(yd), near1, 2.0 ** -21.41, None),
        (5, np.log(yd), ~near1, None, 3),
        (6, np.log2(yd), near1, 2.0 ** -22, None),
        (6, np.log2(yd), ~near1, None, 2),
        (7, np.log10(yd), near1, 2.0 ** -24, None),
        (7, np.log10(yd), ~near1, None, 3),
    ]
    failures = []
    for j, ref, where, abs_bound, ulp_bound in checks:
        got = r[:, j]
        if abs_bound is not None:
            err = np.abs(got.astype(np.float64) - ref)
            bad = where & ~(err <= abs_bound)
            worst = err[where].max()
            print("%-6s absolute error at most %.3g (bound %.3g)" % (COLUMNS[j], worst, abs_bound))
        else:
            err = ulps(got, ref)
            bound = np.broadcast_to(ulp_bound, err.shape)
            bad = where & ~(err <= bound)
            print("%-6s at most %.2f ulps (bound %s)" % (COLUMNS[j], err[where].max(),
                                                      "2 + floor(|1.173 x|)" if j == 4 else ulp_bound))
        if bad.any():
            failures.append("%s: %d outside the bound, first at x=%r y=%r: %r" % (COLUMNS[j], bad.sum(), x[bad][0],
                                                                                 y[bad][0], got[bad][0]))
    # tanh.approx.f32: PTX documents a maximum relative error of 2^-10.987 (subnormal results aside)
    ref = np.tanh(xd)
    big = np.abs(ref) > 2.0 ** -100
    rel = np.abs(r[:, 10].astype(np.float64) - ref)[big] / np.abs(ref[big])
    print("tanh   relative error at most %.3g (bound %.3g)" % (rel.max(), 2.0 ** -10.987))
    if not (rel <= 2.0 ** -10.987).all():
        failures.append("tanh: relative error %.3g" % rel.max())
    assert not failures, failures
