"""Multiply-add contraction (passes/contract.c) on the simulator: x * y + z computed as one fma where the rule says,
bit for bit as fused.py defines it (the GPU gives the same values: test/gpu/python/test_contract_vs_numba.py runs
the same kernels there), and nowhere else: a product of another block (carried to the next iteration), hmul_rn /
hadd_rn. The operands include edge values where one rounding differs from two, and each test checks that they do,
so an unfused simulator fails it."""
import itertools
import math

import numpy as np
import pytest

import fused
from kfront import cuda


@cuda.jit
def madd(out, x, y, z, w):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i, 0] = x[i] * y[i] + z[i]
        out[i, 1] = x[i] * y[i] - z[i]
        out[i, 2] = z[i] - x[i] * y[i]
        out[i, 3] = x[i] * y[i] + z[i] * w[i]  # two products: the first fused, the second rounded
        p = x[i] * y[i]
        out[i, 4] = p + z[i]  # a product with another use: fused here ...
        out[i, 5] = p * w[i]  # ... and rounded for this one
        out[i, 6] = p - w[i]


def operands(f, n=400, seed=11):
    rng = np.random.default_rng(seed)
    fi = np.finfo(f)
    edge = [1.0, -1.0, 3.0, 1.0 / 3.0, float(fi.max), -float(fi.max), float(fi.tiny), float(fi.smallest_subnormal),
            0.0, -0.0, math.inf, -math.inf, math.nan, float(fi.eps), 1.0 + float(fi.eps)]
    combos = np.array(list(itertools.product(edge, repeat=4)), np.float64)
    combos = combos[rng.permutation(len(combos))[:n]]
    rand = rng.standard_normal((n, 4)) * (2.0 ** rng.integers(-8, 8, (n, 4)))
    with np.errstate(all="ignore"):
        vals = np.concatenate([combos, rand]).astype(f)
    return [np.ascontiguousarray(vals[:, j]) for j in range(4)]


def same(a, b):
    """Bit for bit, NaN matching any NaN."""
    a, b = np.asarray(a), np.asarray(b)
    return ((a == b) & (np.signbit(a) == np.signbit(b))) | (np.isnan(a) & np.isnan(b))


@pytest.mark.parametrize("f", [np.float32, np.float64])
def test_madd(f):
    x, y, z, w = operands(f)
    out = np.zeros((x.size, 7), f)
    madd[(x.size + 127) // 128, 128](out, x, y, z, w)

    def rnd(v):
        with np.errstate(all="ignore"):
            return f(v)

    with np.errstate(all="ignore"):
        want = {
            0: [fused.fma(a, b, c, f) for a, b, c in zip(x, y, z)],
            1: [fused.fma(a, b, -c, f) for a, b, c in zip(x, y, z)],
            2: [fused.fma(-a, b, c, f) for a, b, c in zip(x, y, z)],
            3: [fused.fma(a, b, rnd(c * d), f) for a, b, c, d in zip(x, y, z, w)],
            4: [fused.fma(a, b, c, f) for a, b, c in zip(x, y, z)],
            5: [rnd(rnd(a * b) * d) for a, b, d in zip(x, y, w)],
            6: [fused.fma(a, b, -d, f) for a, b, d in zip(x, y, w)],
        }
        unfused0 = (x * y).astype(f) + z
    for col, values in want.items():
        ok = same(out[:, col], np.array(values, f))
        assert ok.all(), (f.__name__, col, x[~ok][:3], y[~ok][:3], z[~ok][:3], out[~ok, col][:3])
    assert not same(out[:, 0], unfused0).all()  # the operands reach one rounding against two


@cuda.jit
def dot(out, a, b):
    s = out[0]  # 0, of a's type
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    out[0] = s


@cuda.jit
def carried(out, a, b):
    # p is made after the addition and reaches it in the next iteration, through the loop's block argument:
    # another block's product, never fused
    s = out[0]
    p = out[0]
    for i in range(a.shape[0]):
        s = s + p
        p = a[i] * b[i]
    out[0] = s + p


@pytest.mark.parametrize("f", [np.float32, np.float64])
def test_loop_accumulation_and_carried_product(f):
    rng = np.random.default_rng(5)
    a = (rng.standard_normal(300) * 3).astype(f)
    b = (rng.standard_normal(300) / 3).astype(f)
    out = np.zeros(1, f)
    dot[1, 1](out, a, b)
    s = f(0)
    for u, v in zip(a, b):
        s = fused.fma(u, v, s, f)
    assert same(out[0], s), (out[0], s)
    t = f(0)
    for u, v in zip(a, b):
        t = f(t + f(u * v))
    assert t != s  # the data tells a fused accumulation from an unfused one
    out[0] = 0
    carried[1, 1](out, a, b)
    assert same(out[0], t), (out[0], t)


@cuda.jit
def halves(out, x, y, z):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i, 0] = x[i] * y[i] + z[i]
        out[i, 1] = cuda.fp16.hadd_rn(cuda.fp16.hmul_rn(x[i], y[i]), z[i])  # nocontract: two roundings
        out[i, 2] = cuda.fp16.hadd(cuda.fp16.hmul(x[i], y[i]), z[i])  # contracted as the operators are


def test_float16_rn_never_contracted():
    x, y, z, _ = operands(np.float16)
    out = np.zeros((x.size, 3), np.float16)
    halves[(x.size + 127) // 128, 128](out, x, y, z)
    with np.errstate(all="ignore"):
        once = np.array([fused.fma(a, b, c, np.float16) for a, b, c in zip(x, y, z)], np.float16)
        twice = (x * y).astype(np.float16) + z
    assert same(out[:, 0], once).all()
    assert same(out[:, 2], once).all()
    assert same(out[:, 1], twice).all()
    assert not same(once, twice).all()


def _madd_noopt(out, x, y, z):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] * y[i] + z[i]


@pytest.mark.parametrize("f", [np.float32, np.float64])
def test_opt_false_contracts_nothing(f):
    """cuda.jit(opt=False) is numba-cuda's -opt=0, under which libNVVM fuses nothing: x * y + z rounds twice."""
    x, y, z, _ = operands(f)
    noopt, opt = np.zeros(x.size, f), np.zeros(x.size, f)
    cuda.jit(opt=False)(_madd_noopt)[(x.size + 127) // 128, 128](noopt, x, y, z)
    cuda.jit(_madd_noopt)[(x.size + 127) // 128, 128](opt, x, y, z)
    with np.errstate(all="ignore"):
        unfused = (x * y).astype(f) + z
    assert same(noopt, unfused).all()
    assert same(opt, np.array([fused.fma(a, b, c, f) for a, b, c in zip(x, y, z)], f)).all()
    assert not same(opt, noopt).all()
