"""cuda.libdevice.NAME on the simulator (the GPU suite runs the same functions through libdevice itself): the
functions numba-cuda exposes, typed as its ConcreteTemplates (the arguments that are no pointers; the return value
and the pointed-to values as a tuple), against exact references (directed-rounding arithmetic and conversions
rounded here from Python's Fractions, integer functions computed in Python) and against NumPy within a few ulps
for the functions the host's libm computes; the functions no host library has (sinpi, cospi, sincospi, erfinv, erfcinv,
normcdfinv, erfcx, remquo: ir/libdevice.c computes them in long double) against mpmath, and the approximate fast_*
functions against the simulator's definition (libdevice's composition of approximate instructions, each replaced by
the correctly rounded value, computed here with NumPy)."""
import math
import os
from fractions import Fraction

import numpy as np
import pytest

from kfront import cuda, errors

libdevice = cuda.libdevice
# test/gpu/run_python_gpu.sh runs this file on a GPU too: there libdevice itself computes, within its documented bounds
ON_GPU = os.environ.get("KFRONT_TEST_GPU") == "1"

F64 = (11, 52)
F32 = (8, 23)


def round_bits(x, fmt, mode):
    """The bits of the exact x rounded to fmt by mode (rn, rz, rd, ru); None for NaN."""
    ebits, mbits = fmt
    inf = ((1 << ebits) - 1) << mbits
    if isinstance(x, float) and math.isnan(x):
        return None
    neg = x < 0 or (isinstance(x, float) and x == 0 and math.copysign(1, x) < 0)
    sign = 1 << (ebits + mbits) if neg else 0
    if isinstance(x, float) and math.isinf(x):
        return sign | inf
    v = abs(Fraction(x))
    if v == 0:
        return sign
    emin = 2 - (1 << (ebits - 1))
    e = v.numerator.bit_length() - v.denominator.bit_length()
    while Fraction(2) ** e > v:
        e -= 1
    while Fraction(2) ** (e + 1) <= v:
        e += 1
    te = max(e, emin)
    units = v / Fraction(2) ** (te - mbits)
    q = units.numerator // units.denominator
    rest = units - q
    up = {"rn": rest > Fraction(1, 2) or (rest == Fraction(1, 2) and q % 2 == 1), "rz": False,
          "rd": rest > 0 and neg, "ru": rest > 0 and not neg}[mode]
    bits = ((te - emin) << mbits) + q + int(up)
    if bits >= inf:
        bits = inf if mode == "rn" or (mode == "rd" and neg) or (mode == "ru" and not neg) else inf - 1
    return sign | bits


def f64_bits(v):
    return int(np.array([v], np.float64).view(np.uint64)[0])


def f32_bits(v):
    return int(np.array([v], np.float32).view(np.uint32)[0])


MODES = ["rn", "rz", "rd", "ru"]


@cuda.jit
def directed(x, y, d, f):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]
        b = y[i]
        d[i, 0] = libdevice.dadd_rn(a, b)
        d[i, 1] = libdevice.dadd_rz(a, b)
        d[i, 2] = libdevice.dadd_rd(a, b)
        d[i, 3] = libdevice.dadd_ru(a, b)
        d[i, 4] = libdevice.dmul_rd(a, b)
        d[i, 5] = libdevice.ddiv_ru(a, b)
        d[i, 6] = libdevice.dsqrt_rd(abs(a))
        d[i, 7] = libdevice.fma_rz(a, b, a)
        fa = np.float32(a)
        fb = np.float32(b)
        f[i, 0] = libdevice.fadd_rd(fa, fb)
        f[i, 1] = libdevice.fsub_ru(fa, fb)
        f[i, 2] = libdevice.fmul_rz(fa, fb)
        f[i, 3] = libdevice.fdiv_rd(fa, fb)
        f[i, 4] = libdevice.fsqrt_ru(abs(fa))
        f[i, 5] = libdevice.frcp_rz(fa)
        f[i, 6] = libdevice.fmaf_ru(fa, fb, fa)
        f[i, 7] = libdevice.double2float_rd(a)
        f[i, 8] = libdevice.double2float_ru(a)


def exact_op(f, *args):
    if not all(math.isfinite(v) for v in args):
        return None
    try:
        return f(*[Fraction(v) for v in args])
    except ZeroDivisionError:
        return None


def sqrt_bits(v, fmt, mode):
    """sqrt rounded by mode: the exact root bracketed by bisection on the format's values."""
    if v == 0:
        return round_bits(v, fmt, mode)
    f = Fraction(v)
    lo, hi = 0.0, max(1.0, float(v))
    # the float64 root and its neighbours decide: compare squares exactly
    r = math.sqrt(v)
    cands = sorted({r, math.nextafter(r, 0), math.nextafter(r, math.inf)})
    below = max(c for c in cands if Fraction(c) ** 2 <= f)
    exact = Fraction(below) ** 2 == f
    if exact:
        return round_bits(below, fmt, mode)
    # between below and its successor: any value strictly inside rounds as a value just above below
    return round_bits(Fraction(below) + Fraction(1, 2 ** 1100), fmt, mode)


def test_directed_rounding_arithmetic_and_conversions():
    x = np.array([1.0, 0.1, -0.1, 1e308, 3.0, 2.0, -1.0, 1e-310, 7.0, 1.5, 2.0 ** 60, 0.3])
    y = np.array([1e-20, 0.2, 0.2, 1e308, 7.0, 3.0, 3.0, 1e-310, -3.0, 2.0 ** -60, 1.0, 1e-30])
    d = np.zeros((x.size, 8))
    f = np.zeros((x.size, 9), np.float32)
    directed[1, 32](x, y, d, f)
    for i, (a, b) in enumerate(zip(x.tolist(), y.tolist())):
        for k, mode in enumerate(MODES):
            assert f64_bits(d[i, k]) == round_bits(exact_op(lambda p, q: p + q, a, b), F64, mode), (i, mode)
        assert f64_bits(d[i, 4]) == round_bits(exact_op(lambda p, q: p * q, a, b), F64, "rd"), i
        assert f64_bits(d[i, 5]) == round_bits(exact_op(lambda p, q: p / q, a, b), F64, "ru"), i
        assert f64_bits(d[i, 6]) == sqrt_bits(abs(a), F64, "rd"), i
        want = exact_op(lambda p, q: p * q + p, a, b)
        if want is not None and abs(want) < 1e308:
            assert f64_bits(d[i, 7]) == round_bits(want, F64, "rz"), i
        assert f32_bits(f[i, 7]) == round_bits(a, F32, "rd"), i
        assert f32_bits(f[i, 8]) == round_bits(a, F32, "ru"), i
        with np.errstate(over="ignore"):
            fa, fb = float(np.float32(a)), float(np.float32(b))
        if not (math.isfinite(fa) and math.isfinite(fb)):
            continue
        for k, (fn, mode) in enumerate([(lambda p, q: p + q, "rd"), (lambda p, q: p - q, "ru"),
                                        (lambda p, q: p * q, "rz"), (lambda p, q: p / q, "rd")]):
            w = exact_op(fn, fa, fb)
            if w is not None:
                assert f32_bits(f[i, k]) == round_bits(w, F32, mode), (i, k)
        assert f32_bits(f[i, 4]) == sqrt_bits(abs(fa), F32, "ru"), i
        if fa != 0:
            assert f32_bits(f[i, 5]) == round_bits(1 / Fraction(fa), F32, "rz"), i
        assert f32_bits(f[i, 6]) == round_bits(Fraction(fa) * Fraction(fb) + Fraction(fa), F32, "ru"), i


@cuda.jit
def conversions(x, n, u, ints, fl, dd):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        ints[i, 0] = libdevice.double2int_rn(v)
        ints[i, 1] = libdevice.double2int_rz(v)
        ints[i, 2] = libdevice.double2int_rd(v)
        ints[i, 3] = libdevice.double2int_ru(v)
        ints[i, 4] = libdevice.double2uint_ru(v)
        ints[i, 5] = libdevice.double2ll_rd(v)
        ints[i, 6] = libdevice.double2ull_rn(v)
        ints[i, 7] = libdevice.float2int_ru(np.float32(v))
        ints[i, 8] = libdevice.llrint(v)
        ints[i, 9] = libdevice.llround(v)
        fl[i, 0] = libdevice.ll2float_rd(n[i])
        fl[i, 1] = libdevice.ll2float_ru(n[i])
        fl[i, 2] = libdevice.ull2float_rz(u[i])
        fl[i, 3] = libdevice.int2float_rn(np.int32(n[i] & 0x7FFFFFFF))
        fl[i, 4] = libdevice.uint2float_rd(np.int32(n[i] & 0xFFFFFFFF))
        dd[i, 0] = libdevice.ll2double_ru(n[i])
        dd[i, 1] = libdevice.ull2double_rd(u[i])
        dd[i, 2] = libdevice.uint2double_rn(np.int32(n[i] & 0xFFFFFFFF))


def sat(v, lo, hi, mode, nan=None):
    """libdevice's conversion of v (cvt.rXi): saturated, and NaN to the pattern 1 << (bits - 1) (INT_MIN; 2**31 as a
    uint32), as the H200 gives it (llround's too); a float32's NaN to a 32-bit integer is 0 (nan=0)."""
    if math.isnan(v):
        return nan if nan is not None else lo if lo < 0 else (hi + 1) // 2
    if math.isinf(v):
        return hi if v > 0 else lo
    f = Fraction(v)
    r = {"rn": round(f), "rz": int(f), "rd": math.floor(f), "ru": math.ceil(f)}[mode]
    return min(max(r, lo), hi)


def test_conversions_every_mode():
    x = np.array([1.5, 2.5, -1.5, -2.5, 0.5, 3e9, -3e9, 1e19, 2e19, -1e19, np.nan, np.inf, -np.inf, 4294967295.5,
                  -0.7, 1e-300])
    n = np.array([2 ** 53 + 1, -(2 ** 53 + 1), 2 ** 62 + 2 ** 39 + 1, -1, 0, 16777217, 0x7FFFFFFF, -2 ** 63,
                  2 ** 63 - 1, 33554435, 1 << 40, 5, 0xFFFFFFFF, 0x80000001, 3, 2], np.int64)
    u = np.array([2 ** 64 - 1, 2 ** 63 + 1, 2 ** 53 + 1, 0, 1, 2 ** 64 - 2 ** 11, 2 ** 40 + 1, 7, 8, 9, 10, 11, 12,
                  13, 14, 15], np.uint64)
    ints = np.zeros((x.size, 10), np.int64)
    fl = np.zeros((x.size, 5), np.float32)
    dd = np.zeros((x.size, 3))
    conversions[1, 32](x, n, u, ints, fl, dd)
    I32 = (-2 ** 31, 2 ** 31 - 1)
    for i, v in enumerate(x.tolist()):
        for k, mode in enumerate(MODES):
            assert ints[i, k] == sat(v, *I32, mode), (i, mode)
        assert ints[i, 4] == np.int32(np.uint32(sat(v, 0, 2 ** 32 - 1, "ru"))), i
        assert ints[i, 5] == sat(v, -2 ** 63, 2 ** 63 - 1, "rd"), i
        assert ints[i, 6] == np.int64(np.uint64(sat(v, 0, 2 ** 64 - 1, "rn"))), i
        assert ints[i, 7] == sat(float(np.float32(v)), *I32, "ru", nan=0), i
        assert ints[i, 8] == sat(v, -2 ** 63, 2 ** 63 - 1, "rn"), i
        rnd = math.nan if math.isnan(v) else (v if math.isinf(v) else float(math.floor(abs(v) + 0.5)) * math.copysign(1, v))
        assert ints[i, 9] == sat(rnd, -2 ** 63, 2 ** 63 - 1, "rz"), i
    for i, (a, b) in enumerate(zip(n.tolist(), u.tolist())):
        assert f32_bits(fl[i, 0]) == round_bits(a, F32, "rd"), i
        assert f32_bits(fl[i, 1]) == round_bits(a, F32, "ru"), i
        assert f32_bits(fl[i, 2]) == round_bits(b, F32, "rz"), i
        assert f32_bits(fl[i, 3]) == round_bits(a & 0x7FFFFFFF, F32, "rn"), i
        assert f32_bits(fl[i, 4]) == round_bits(a & 0xFFFFFFFF, F32, "rd"), i
        assert f64_bits(dd[i, 0]) == round_bits(a, F64, "ru"), i
        assert f64_bits(dd[i, 1]) == round_bits(b, F64, "rd"), i
        assert dd[i, 2] == float(a & 0xFFFFFFFF), i


@cuda.jit
def integers(a, b, c, out, big, bout):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = libdevice.byte_perm(x, y, c[i])
        out[i, 1] = libdevice.mul24(x, y)
        out[i, 2] = libdevice.umul24(x, y)
        out[i, 3] = libdevice.mulhi(x, y)
        out[i, 4] = libdevice.umulhi(x, y)
        out[i, 5] = libdevice.hadd(x, y)
        out[i, 6] = libdevice.rhadd(x, y)
        out[i, 7] = libdevice.uhadd(x, y)
        out[i, 8] = libdevice.sad(x, y, c[i])
        out[i, 9] = libdevice.usad(x, y, c[i])
        out[i, 10] = libdevice.brev(x)
        out[i, 11] = libdevice.clz(x)
        out[i, 12] = libdevice.ffs(x)
        out[i, 13] = libdevice.popc(x)
        out[i, 14] = libdevice.umax(x, y)
        out[i, 15] = libdevice.abs(x)
        bout[i, 0] = libdevice.mul64hi(big[i], big[i] - 3)
        bout[i, 1] = libdevice.umul64hi(big[i], big[i] - 3)
        bout[i, 2] = libdevice.clzll(big[i])
        bout[i, 3] = libdevice.brevll(big[i])
        bout[i, 4] = libdevice.llabs(big[i])


def s32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


def s64(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def test_integer_functions():
    a = np.array([0, 1, -1, 0x12345678, -0x7FFFFFFF - 1, 0x7FFFFFFF, 0x00FFFFFF, -5, 1 << 23, 77], np.int32)
    b = np.array([0, -1, -1, 0x0BADF00D, -0x7FFFFFFF - 1, 2, 0x00800000, 3, 1 << 23, -77], np.int32)
    c = np.array([0x3210, 0x7654, 0x0123, 0x4567, 0x1111, 0x7777, 0x5140, 0x3333, 0x2103, 0x6420], np.int32)
    big = np.array([1, -1, 2 ** 62 + 12345, -(2 ** 62), 2 ** 63 - 1, -2 ** 63, 1 << 40, 3, 0x0123456789ABCDEF, -7],
                   np.int64)
    out = np.zeros((a.size, 16), np.int32)
    bout = np.zeros((a.size, 5), np.int64)
    integers[1, 16](a, b, c, out, big, bout)
    for i in range(a.size):
        x, y, s = int(a[i]), int(b[i]), int(c[i])
        ux, uy = x & 0xFFFFFFFF, y & 0xFFFFFFFF
        both = (uy << 32) | ux
        perm = 0
        for k in range(4):
            perm |= ((both >> (8 * ((s >> (4 * k)) & 7))) & 0xFF) << (8 * k)
        x24 = (x & 0xFFFFFF) - ((x & 0x800000) << 1)
        y24 = (y & 0xFFFFFF) - ((y & 0x800000) << 1)
        brev = int("{:032b}".format(ux)[::-1], 2)
        want = [s32(perm), s32(x24 * y24), s32((ux & 0xFFFFFF) * (uy & 0xFFFFFF)), s32((x * y) >> 32),
                s32((ux * uy) >> 32), s32((x + y) >> 1), s32((x + y + 1) >> 1), s32((ux + uy) >> 1),
                s32(abs(x - y) + (s & 0xFFFFFFFF)), s32(abs(ux - uy) + (s & 0xFFFFFFFF)), s32(brev),
                32 - ux.bit_length(), (ux & -ux).bit_length(), bin(ux).count("1"), s32(max(ux, uy)), s32(abs(x))]
        assert out[i].tolist() == want, (i, out[i].tolist(), want)
        v = int(big[i])
        uv, uw = v & ((1 << 64) - 1), (v - 3) & ((1 << 64) - 1)
        bwant = [s64((v * s64(v - 3)) >> 64), s64((uv * uw) >> 64), 64 - uv.bit_length(),
                 s64(int("{:064b}".format(uv)[::-1], 2)), s64(abs(v))]
        assert bout[i].tolist() == bwant, (i, bout[i].tolist(), bwant)


@cuda.jit
def libm_and_tuples(x, out, e):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = libdevice.sin(v)
        out[i, 1] = libdevice.exp(v)
        out[i, 2] = libdevice.erf(v)
        out[i, 3] = libdevice.cbrt(v)
        out[i, 4] = libdevice.hypot(v, 2.0)
        s, c = libdevice.sincos(v)
        out[i, 5] = s
        out[i, 6] = c
        m, ex = libdevice.frexp(v)
        out[i, 7] = m
        e[i, 0] = ex
        fr, ip = libdevice.modf(v)
        out[i, 8] = fr
        out[i, 9] = ip
        out[i, 10] = libdevice.fmax(v, np.nan)
        out[i, 11] = libdevice.nextafter(v, np.inf)
        out[i, 12] = libdevice.ldexp(v, np.int32(3))
        e[i, 1] = libdevice.ilogb(v)
        e[i, 2] = libdevice.isnand(v)
        e[i, 3] = libdevice.signbitd(v)
        out[i, 13] = libdevice.sinf(np.float32(v))
        out[i, 14] = libdevice.saturatef(np.float32(v))
        out[i, 15] = libdevice.jn(np.int32(2), v)


def ulps64(a, b):
    if math.isnan(a) or math.isnan(b):
        return 0 if math.isnan(a) and math.isnan(b) else math.inf
    if a == b:
        return 0

    def rank(v):
        i = f64_bits(v)
        return i if i < 1 << 63 else (1 << 63) - i
    return abs(rank(a) - rank(b))


def test_libm_functions_and_tuples():
    x = np.array([0.5, -2.5, 3.0, 1e-300, -0.0, 0.0, 100.0, np.inf, -np.inf, np.nan, 1e300, 0.75, -1e-310])
    out = np.zeros((x.size, 16))
    e = np.zeros((x.size, 4), np.int64)
    libm_and_tuples[1, 16](x, out, e)
    with np.errstate(all="ignore"):
        refs = [np.sin(x), np.exp(x), [math.erf(v) if not math.isnan(v) else math.nan for v in x], np.cbrt(x),
                np.hypot(x, 2.0), np.sin(x), np.cos(x)]
    for k, r in enumerate(refs):
        for i, (g, w) in enumerate(zip(out[:, k].tolist(), list(r))):
            assert ulps64(g, float(w)) <= 2, (k, i, g, w)
    for i, v in enumerate(x.tolist()):
        if v == 0 or not math.isfinite(v):
            assert (out[i, 7] == v or (math.isnan(v) and math.isnan(out[i, 7]))) and e[i, 0] == 0
        else:
            m, ex = math.frexp(v)
            assert (out[i, 7], e[i, 0]) == (m, ex)
        if math.isnan(v):
            assert math.isnan(out[i, 8]) and math.isnan(out[i, 9])
        else:
            fr, ip = math.modf(v)
            assert (out[i, 8], out[i, 9]) == (fr, ip) and math.copysign(1, out[i, 8]) == math.copysign(1, fr)
        assert out[i, 10] == v or math.isnan(v)
        assert f64_bits(out[i, 11]) == f64_bits(np.nextafter(v, np.inf)) or math.isnan(v)
        assert out[i, 12] == math.ldexp(v, 3) if math.isfinite(v) else (out[i, 12] == v or math.isnan(v))
        want_ilogb = -2 ** 31 if v == 0 or math.isnan(v) else 2 ** 31 - 1 if math.isinf(v) else math.frexp(v)[1] - 1
        assert e[i, 1] == want_ilogb, i
        assert e[i, 2] == int(math.isnan(v)) and e[i, 3] == int(math.copysign(1, v) < 0)
        f = float(np.float32(v))
        assert out[i, 14] == (0.0 if not f > 0 else min(f, 1.0))


def test_argument_errors_are_located():
    @cuda.jit
    def arity(out, x):
        out[0] = libdevice.sin(x[0], x[1])

    with pytest.raises(errors.TypingError, match=r"cuda.libdevice.sin\(\) takes 1 argument but 2 were given"):
        arity[1, 1](np.zeros(1), np.ones(2))


# ---- the functions no host library has, against mpmath (installed by scripts/setup.sh) --------------------------

import mpmath  # noqa: E402


def mp_ref(name, v):
    """The exact value of libdevice's function `name` at v, rounded to a float64 (NaN where it is undefined)."""
    if math.isnan(v):
        return math.nan
    with mpmath.workprec(300):
        x = mpmath.mpf(v)
        if name in ("sinpi", "cospi"):
            if not math.isfinite(v):
                return math.nan
            r = float(mpmath.sinpi(x) if name == "sinpi" else mpmath.cospi(x))
            return r if r != 0 else (math.copysign(0.0, v) if name == "sinpi" else 0.0)
        if name == "erfinv":
            return math.nan if abs(v) > 1 else math.copysign(math.inf, v) if abs(v) == 1 else \
                math.copysign(float(mpmath.erfinv(x)), v)
        if name == "erfcinv":
            return math.nan if not 0 <= v <= 2 else math.inf if v == 0 else -math.inf if v == 2 else float(mp_erfcinv(x))
        if name == "normcdfinv":
            return math.nan if not 0 <= v <= 1 else -math.inf if v == 0 else math.inf if v == 1 else \
                float(-mpmath.sqrt(2) * mp_erfcinv(2 * x)) + 0.0
        if name == "erfcx":
            if math.isinf(v):
                return 0.0 if v > 0 else math.inf
            if v > 1e10:
                return float(1 / (x * mpmath.sqrt(mpmath.pi)) * (1 - 1 / (2 * x * x)))
            r = mpmath.exp(x * x) * mpmath.erfc(x)
            return math.inf if r > 1.8e308 else float(r)
    raise KeyError(name)


def mp_erfcinv(x):
    """erfcinv(x) for 0 < x < 2, through erfinv near 1 and a root of log(erfc) in the tail"""
    if x >= 0.5:
        return mpmath.erfinv(1 - x)
    v = float(x)
    return mpmath.findroot(lambda t: mpmath.log(mpmath.erfc(t)) - mpmath.log(x), math.sqrt(-math.log(v)) if v < 0.3 else 0.5)


def ulps_f32(a, b):
    if math.isnan(a) or math.isnan(b):
        return 0 if math.isnan(a) and math.isnan(b) else 1 << 40
    if a == b:
        return 0 if math.copysign(1, a) == math.copysign(1, b) else 1

    def rank(v):
        i = f32_bits(v)
        return i if i < 1 << 31 else (1 << 31) - i
    return abs(rank(a) - rank(b))


@cuda.jit
def no_host_f64(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = libdevice.sinpi(v)
        out[i, 1] = libdevice.cospi(v)
        s, c = libdevice.sincospi(v)
        out[i, 2] = s
        out[i, 3] = c
        out[i, 4] = libdevice.erfinv(v)
        out[i, 5] = libdevice.erfcinv(v)
        out[i, 6] = libdevice.normcdfinv(v)
        out[i, 7] = libdevice.erfcx(v)


@cuda.jit
def no_host_f32(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = libdevice.sinpif(v)
        out[i, 1] = libdevice.cospif(v)
        s, c = libdevice.sincospif(v)
        out[i, 2] = s
        out[i, 3] = c
        out[i, 4] = libdevice.erfinvf(v)
        out[i, 5] = libdevice.erfcinvf(v)
        out[i, 6] = libdevice.normcdfinvf(v)
        out[i, 7] = libdevice.erfcxf(v)


NO_HOST = ["sinpi", "cospi", "sinpi", "cospi", "erfinv", "erfcinv", "normcdfinv", "erfcx"]
# the CUDA Math API's maximum ulp errors (float32, float64), which the GPU's libdevice keeps (ir/libdevice.c's table)
NO_HOST_ULPS = {"sinpi": (1, 2), "cospi": (1, 2), "erfinv": (2, 5), "erfcinv": (4, 6), "normcdfinv": (5, 8),
                "erfcx": (4, 4)}


def no_host_inputs(dtype):
    rng = np.random.default_rng(11)
    edges = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, 2.0, -3.0, 0.25, -0.75, 1e-30, 1e30, np.inf, -np.inf, np.nan,
             0.9999999, 1.9999999, 1e-7, 16777217.0, 2.0 ** 60, -26.5, 26.5, 9.5, -9.5, 120.0, -0.999, 3.3e-10, 1e-38]
    if dtype == np.float64:
        edges += [1e-300, 5e-324, 1e300, 1 - 2 ** -53, 2 - 2 ** -52, 4503599627370497.0, 2.0 ** 52 + 0.5, -107.0]
    lo = 1e-300 if dtype == np.float64 else 1e-37
    return np.concatenate([edges, rng.uniform(-1, 1, 50), rng.uniform(0, 2, 40), rng.standard_normal(40) * 10,
                           10.0 ** rng.uniform(math.log10(lo), 0, 30), rng.uniform(-1e6, 1e6, 10)]).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_functions_no_host_has_against_mpmath(dtype):
    """Within one ulp of the exact value on the simulator (on a GPU within libdevice's documented bounds, 1 to 8),
    libdevice's special values: sinpi of an integer a zero of the integer's sign, cospi of a half-integer +0,
    normcdfinv(0.5) +0"""
    x = no_host_inputs(dtype)
    out = np.zeros((x.size, 8), dtype)
    (no_host_f64 if dtype == np.float64 else no_host_f32)[(x.size + 63) // 64, 64](x, out)
    for i, v in enumerate(x.tolist()):
        for k, name in enumerate(NO_HOST):
            want = mp_ref(name, v)
            got = float(out[i, k])
            if dtype == np.float32:
                with np.errstate(over="ignore"):
                    d = ulps_f32(got, float(np.float32(want)))
            else:
                d = ulps64(got, want)
            bound = NO_HOST_ULPS[name][dtype == np.float64] if ON_GPU else 1
            assert d <= bound, (name, v, got, want)
            if want == 0:
                assert math.copysign(1, got) == math.copysign(1, want), (name, v, got, want)


@cuda.jit
def remquos(x, y, out, q, outf, qf):
    i = cuda.grid(1)
    if i < x.size:
        r, n = libdevice.remquo(x[i], y[i])
        out[i] = r
        q[i, 0] = n
        rf, nf = libdevice.remquof(np.float32(x[i]), np.float32(y[i]))
        outf[i] = rf
        q[i, 1] = nf


def test_remquo_quotient_bits():
    """the IEEE remainder and the low three bits of |x/y rounded to nearest even|, negative where the signs of x and
    y differ, 0 where the remainder is NaN (libdevice masks its quotient with 7)"""
    x = np.array([7.0, -7.0, 7.0, 10.5, 1e300, 3.0, -0.0, 5.0, np.inf, 5.0, np.nan, 1e-310, 123456789.0, 2.5, 7.5, 0.0])
    y = np.array([2.0, 2.0, -2.0, 1.0, 3.0, 0.0, 1.0, np.inf, 1.0, np.nan, 1.0, 3e-311, 0.0078125, -1.0, 1.0, -2.0])
    out, outf = np.zeros(x.size), np.zeros(x.size, np.float32)
    q = np.zeros((x.size, 2), np.int32)
    remquos[1, 32](x, y, out, q, outf, np.zeros(1))
    for col, dt in ((0, np.float64), (1, np.float32)):
        for i in range(x.size):
            a, b = float(dt(x[i])), float(dt(y[i]))
            got = float((out if col == 0 else outf)[i])
            if math.isnan(a) or math.isnan(b) or math.isinf(a) or b == 0:
                assert math.isnan(got) and q[i, col] == 0, (i, col)
                continue
            n = 0 if math.isinf(b) else round(Fraction(a) / Fraction(b))  # Python's round: half to even
            rem = Fraction(a) - (n * Fraction(b) if n else 0)
            assert got == float(rem) and (rem != 0 or math.copysign(1, got) == math.copysign(1, a)), (i, col, got)
            neg = math.copysign(1, a) != math.copysign(1, b)
            assert q[i, col] == (-1 if neg else 1) * (abs(n) % 8), (i, col, q[i, col], n)


@cuda.jit
def fast_fns(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = libdevice.fast_expf(v)
        out[i, 1] = libdevice.fast_exp10f(v)
        out[i, 2] = libdevice.fast_logf(v)
        out[i, 3] = libdevice.fast_log2f(v)
        out[i, 4] = libdevice.fast_log10f(v)
        out[i, 5] = libdevice.fast_sinf(v)
        out[i, 6] = libdevice.fast_cosf(v)
        s, c = libdevice.fast_sincosf(v)
        out[i, 7] = s
        out[i, 8] = c
        out[i, 9] = libdevice.fast_tanf(v)
        out[i, 10] = libdevice.fast_powf(v, y[i])
        out[i, 11] = libdevice.fast_fdividef(v, y[i])


def test_fast_functions_defined_values():
    """fast_*: libdevice's composition of approximate instructions (ex2, lg2, sin, cos, div .approx), each replaced
    by the correctly rounded float32 value; the float32 products by libdevice's constants as it computes them;
    __fdividef's 0 (NaN for an infinite dividend) where 2**126 < |y| < 2**128; on a GPU the instructions' own
    results, within the bounds fast_within checks"""
    f = np.float32
    x = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.14159, -20.0, 88.0, -100.0, 1e-40, np.inf, -np.inf, np.nan, 7.5,
                  1e30, 0.3, 1.5, 40.0, np.inf], f)
    y = np.array([3.0, 2.0, 0.5, -1.5, 2.0 ** 127, -2.0 ** 127, 0.0, 1e-45, 7.0, np.inf, 3.0, 2.0, 2.0 ** 127, 1.0,
                  -0.25, 2.0, np.nan, 1e38, 3.0, -2.0 ** 127], f)
    out = np.zeros((x.size, 12), f)
    fast_fns[1, 32](x, y, out)
    with np.errstate(all="ignore"):
        xd = x.astype(np.float64)
        ex2 = lambda t: np.exp2(t.astype(np.float64)).astype(f)  # noqa: E731
        lg2 = np.log2(xd).astype(f)
        sin, cos = np.sin(xd).astype(f), np.cos(xd).astype(f)
        big = (np.abs(y) > f(2.0 ** 126)) & np.isfinite(y) & ~np.isnan(x)
        div = np.where(big, np.where(np.isinf(x), np.nan, np.copysign(f(0), x) * np.copysign(f(1), y)), x / y).astype(f)
        want = [ex2(x * f(float.fromhex("0x1.715476p0"))), ex2(x * f(float.fromhex("0x1.a934f0p1"))), lg2 * f(float.fromhex("0x1.62e430p-1")), lg2,
                f(float.fromhex("0x1.344136p-2")) * lg2, sin, cos, sin, cos, sin / cos, ex2(y * lg2), div]
    for k, w in enumerate(want):
        w = np.asarray(w, f)
        same = (out[:, k].view(np.uint32) == w.view(np.uint32)) | (np.isnan(out[:, k]) & np.isnan(w))
        if ON_GPU:  # the approximate instructions themselves: within the CUDA Math API's bounds of the intrinsics
            same |= fast_within(k, x, y, out[:, k], w)
        assert same.all(), (k, x[~same], out[~same, k], w[~same])


def fast_within(k, x, y, got, want):
    """Where got (the GPU's column k of fast_fns) lies within the CUDA Math API's bounds of the intrinsic around
    want (its composition with correctly rounded steps): __expf 2 + floor(|1.173 x|) ulps, __exp10f 2 + floor(|2.97 x|),
    the logarithms 2**-21.41 absolute on [0.5, 2] else 3 ulps, __sinf/__cosf 2**-21.41 absolute on [-pi, pi] (beyond
    it only a value in [-1, 1]), __tanf as their quotient, __powf as __exp2f of y * __log2f(x), __fdividef 2 ulps;
    infinities and NaNs exactly where want has them"""
    with np.errstate(all="ignore"):
        g, w, xd = got.astype(np.float64), want.astype(np.float64), x.astype(np.float64)
        finite = np.isfinite(g) & np.isfinite(w)
        d = np.array([ulps_f32(float(a), float(b)) for a, b in zip(got, want)], np.float64)
        err = np.abs(g - w)
        if k in (0, 1):
            ok = d <= 2 + np.floor(np.abs((1.173 if k == 0 else 2.97) * xd))
        elif k in (2, 3, 4):
            ok = np.where((xd >= 0.5) & (xd <= 2), err <= 2.0 ** -21.41, d <= 3)
        elif k in (5, 6, 7, 8):
            ok = np.where(np.abs(xd) <= np.pi, err <= 2.0 ** -21.41, np.abs(g) <= 1)
        elif k == 9:
            ok = np.where(np.abs(xd) <= np.pi, err <= 2.0 ** -20 * (1 + w * w) / np.abs(np.cos(xd)), True)
        elif k == 10:
            ok = d <= 2 + np.floor(np.abs(2 * y.astype(np.float64) * np.log2(np.abs(xd))))
        else:
            ok = d <= 2
        return finite & ok
