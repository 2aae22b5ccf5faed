"""cuda.libdevice.NAME on the simulator (the GPU suite runs the same functions through libdevice itself): the
functions numba-cuda exposes, typed as its ConcreteTemplates (the arguments that are no pointers; the return value
and the pointed-to values as a tuple), against exact references (directed-rounding arithmetic and conversions
rounded here from Python's Fractions, integer functions computed in Python) and against NumPy within a few ulps
for the functions the host's libm computes. The functions the simulator cannot compute are located errors."""
import math
from fractions import Fraction

import numpy as np
import pytest

from kfront import cuda, errors

libdevice = cuda.libdevice

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


def test_unsupported_functions_are_located_errors():
    @cuda.jit
    def fast(out, x):
        out[0] = libdevice.fast_sinf(x[0])

    with pytest.raises(errors.UnsupportedError, match=r"cuda.libdevice.fast_sinf\(\) is not supported: an approximate "
                                                      r"hardware instruction") as e:
        fast[1, 1](np.zeros(1, np.float32), np.zeros(1, np.float32))
    assert "test_libdevice.py" in str(e.value)

    @cuda.jit
    def inverse(out, x):
        out[0] = libdevice.erfinv(x[0])

    with pytest.raises(errors.UnsupportedError, match=r"erfinv\(\) is not supported: no function of the host"):
        inverse[1, 1](np.zeros(1), np.zeros(1))

    @cuda.jit
    def quotient(out, x):
        r, q = libdevice.remquo(x[0], x[1])
        out[0] = r

    with pytest.raises(errors.UnsupportedError, match=r"remquo\(\) is not supported: the quotient bits"):
        quotient[1, 1](np.zeros(1), np.ones(2))

    @cuda.jit
    def arity(out, x):
        out[0] = libdevice.sin(x[0], x[1])

    with pytest.raises(errors.TypingError, match=r"cuda.libdevice.sin\(\) takes 1 argument but 2 were given"):
        arity[1, 1](np.zeros(1), np.ones(2))
