"""GPU-only: multiply-add contraction (passes/contract.c) on the GPU, against its definition and against numba-cuda.

kfront fuses x * y + z into one fma in kir, by one rule, and the backend fuses nothing else, so its GPU results are
the definition's bit for bit (python/tests/fused.py computes it exactly; the simulator suite checks the simulator
against the same references). numba-cuda leaves contraction to libNVVM (-fma=1); kfront's rule is LLVM's NVPTX
combiner's, so the two agree where libNVVM fuses as LLVM does: x * y + z, x * y - z, z - x * y and the complex
product are asserted equal. Where an addition has two products (x * y + z * w), or a product several uses,
compilers may choose differently: numba-cuda's result must be one of the possible contractions, and the test prints
which it chose where it is not kfront's.

Values: random ones, and edge values where one rounding differs from two (products that overflow, cancel exactly
or are subnormal)."""
import itertools
import linecache
import math
import os
import sys

import numba.cuda as ncuda  # the GPU machine has numba-cuda: missing, the suite fails (it is not skipped)
import numpy as np

from kfront import cuda as kcuda

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python", "tests"))
import fused  # noqa: E402

os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
np.row_stack = np.vstack  # numba-cuda 0.30.4 on NumPy 2


def compile_both(src, name):
    kernels = []
    for module in (ncuda, kcuda):
        fname = "<contract-vs-numba %s %s>" % (name, module.__name__)
        text = src
        linecache.cache[fname] = (len(text), None, text.splitlines(True), fname)
        scope = {"cuda": module, "np": np}
        exec(compile(text, fname, "exec"), scope)
        kernels.append(module.jit(scope[name]))
    return kernels


MADD = """
def madd(out, x, y, z, w):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i, 0] = x[i] * y[i] + z[i]
        out[i, 1] = x[i] * y[i] - z[i]
        out[i, 2] = z[i] - x[i] * y[i]
        out[i, 3] = x[i] * y[i] + z[i] * w[i]
        p = x[i] * y[i]
        out[i, 4] = p + z[i]
        out[i, 5] = p * w[i]
"""


def operands(f, n=512, seed=7):
    rng = np.random.default_rng(seed)
    fi = np.finfo(f)
    edge = [1.0, -1.0, 3.0, 1.0 / 3.0, float(fi.max), -float(fi.max), float(fi.tiny), float(fi.smallest_subnormal),
            0.0, -0.0, math.inf, -math.inf, math.nan, float(fi.eps), 1.0 + float(fi.eps)]
    combos = np.array(list(itertools.product(edge, repeat=4)), np.float64)
    combos = combos[rng.permutation(len(combos))[:n]]
    rand = rng.standard_normal((n, 4)) * np.array([1, 1, 1, 1]) * (2.0 ** rng.integers(-8, 8, (n, 4)))
    with np.errstate(all="ignore"):
        vals = np.concatenate([combos, rand]).astype(f)
    return [np.ascontiguousarray(vals[:, j]) for j in range(4)]


def same(a, b):
    """Bit for bit, NaN matching any NaN."""
    a, b = np.asarray(a), np.asarray(b)
    return (a == b) & (np.signbit(a) == np.signbit(b)) | (np.isnan(a) & np.isnan(b))


def run_madd(f):
    nk, kk = compile_both(MADD, "madd")
    x, y, z, w = operands(f)
    outs = []
    for k in (nk, kk):
        out = np.zeros((x.size, 6), f)
        k[(x.size + 127) // 128, 128](out, x, y, z, w)
        outs.append(out)
    return (x, y, z, w), outs[0], outs[1]


def check_madd(f):
    (x, y, z, w), numba_out, kf_out = run_madd(f)
    rnd = lambda v: f(v)  # noqa: E731
    with np.errstate(all="ignore"):
        defs = {
            0: [fused.fma(a, b, c, f) for a, b, c in zip(x, y, z)],
            1: [fused.fma(a, b, -c, f) for a, b, c in zip(x, y, z)],
            2: [fused.fma(-a, b, c, f) for a, b, c in zip(x, y, z)],
            3: [fused.fma(a, b, rnd(c * d), f) for a, b, c, d in zip(x, y, z, w)],
            4: [fused.fma(a, b, c, f) for a, b, c in zip(x, y, z)],
            5: [rnd(rnd(a * b) * d) for a, b, d in zip(x, y, w)],
        }
        others = {3: [[fused.fma(c, d, rnd(a * b), f) for a, b, c, d in zip(x, y, z, w)],
                      [rnd(rnd(a * b) + rnd(c * d)) for a, b, c, d in zip(x, y, z, w)]],
                  4: [[rnd(rnd(a * b) + c) for a, b, c in zip(x, y, z)]]}
    # the definition, bit for bit (the simulator gives the same: python/tests)
    for col, want in defs.items():
        ok = same(kf_out[:, col], np.array(want, f))
        assert ok.all(), (f.__name__, col, np.argwhere(~ok)[:5].ravel(), kf_out[~ok, col][:5], np.array(want, f)[~ok][:5])
    # the edge values reach cases where one rounding differs from two
    with np.errstate(all="ignore"):
        assert not same(kf_out[:, 0], (x * y).astype(f) + z).all()
    # numba-cuda: the single-product columns equal; the others one of the possible contractions
    for col in (0, 1, 2, 5):
        ok = same(numba_out[:, col], kf_out[:, col])
        assert ok.all(), (f.__name__, col, np.argwhere(~ok)[:5].ravel())
    for col, alts in others.items():
        choices = [same(numba_out[:, col], kf_out[:, col])] + [same(numba_out[:, col], np.array(a, f)) for a in alts]
        assert np.logical_or.reduce(choices).all(), (f.__name__, col)
        if not choices[0].all():
            print("contract-vs-numba: %s column %d: numba-cuda contracts differently from kfront in %d of %d values "
                  "(other choice: %s)" % (f.__name__, col, (~choices[0]).sum(), x.size,
                                           [int(c.sum()) for c in choices[1:]]))


def test_madd_float32():
    check_madd(np.float32)


def test_madd_float64():
    check_madd(np.float64)


HMADD = """
def hmadd(out, x, y, z):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] * y[i] + z[i]
"""


def test_madd_float16():
    nk, kk = compile_both(HMADD, "hmadd")
    x, y, z, _ = operands(np.float16)
    outs = []
    for k in (nk, kk):
        out = np.zeros(x.size, np.float16)
        k[(x.size + 127) // 128, 128](out, x, y, z)
        outs.append(out)
    want = np.array([fused.fma(a, b, c, np.float16) for a, b, c in zip(x, y, z)], np.float16)
    ok = same(outs[1], want)
    assert ok.all(), np.argwhere(~ok)[:5].ravel()  # fma.rn.f16: rounded once
    ok = same(outs[0], outs[1])
    assert ok.all(), np.argwhere(~ok)[:5].ravel()  # numba-cuda's libNVVM fuses the half product too


CMUL = """
def cmul(out, a, b):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i, 0] = a[i] * b[i]
        out[i, 1] = a[i] / b[i]
"""


def test_complex_product_and_quotient():
    reals = [-0.0, 0.0, 1.0, -1.5, math.pi, math.inf, -math.inf, math.nan, 1e300, -2e-310, 3.0e38, 1e-40]
    values = [complex(p, q) for p, q in itertools.product(reals, repeat=2)]
    a = np.array([u for u in values for _ in values])
    b = np.array([v for _ in values for v in values])
    nk, kk = compile_both(CMUL, "cmul")
    for dt, f in ((np.complex64, np.float32), (np.complex128, np.float64)):
        with np.errstate(all="ignore"):
            ad, bd = a.astype(dt), b.astype(dt)
        nonzero = bd != 0  # a zero divisor raises ZeroDivisionError in both: left out
        ad, bd = ad[nonzero], bd[nonzero]
        outs = []
        for k in (nk, kk):
            out = np.zeros((ad.size, 2), dt)
            k[(ad.size + 127) // 128, 128](out, ad, bd)
            outs.append(out)
        numba_out, kf_out = outs
        want = np.array([fused.cmul(complex(u), complex(v), f) for u, v in zip(ad, bd)], dt)
        wantq = np.array([fused.cdiv(complex(u), complex(v), f) for u, v in zip(ad, bd)], dt)
        for col, w in ((0, want), (1, wantq)):
            for part in (np.real, np.imag):
                ok = same(part(kf_out[:, col]), part(w))
                assert ok.all(), (dt.__name__, col, ad[~ok][:3], bd[~ok][:3], kf_out[~ok, col][:3], w[~ok][:3])
        # numba-cuda's product: fma(a, c, -(b * d)) and fma(b, c, a * d) too (its ad + bc fused at bc on the H200)
        for part in (np.real, np.imag):
            ok = same(part(numba_out[:, 0]), part(kf_out[:, 0]))
            assert ok.all(), (dt.__name__, ad[~ok][:3], bd[~ok][:3], numba_out[~ok, 0][:3], kf_out[~ok, 0][:3])
        # the quotient: numba-cuda's own code (CPython's algorithm), fused by libNVVM: printed where it differs
        diff = ~(same(np.real(numba_out[:, 1]), np.real(kf_out[:, 1])) & same(np.imag(numba_out[:, 1]), np.imag(kf_out[:, 1])))
        if diff.any():
            print("contract-vs-numba: %s quotient: numba-cuda differs from kfront in %d of %d values, e.g. %s / %s: %s, %s"
                  % (dt.__name__, diff.sum(), ad.size, ad[diff][0], bd[diff][0], numba_out[diff, 1][0], kf_out[diff, 1][0]))
