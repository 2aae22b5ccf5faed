"""Low precision in kernels on the simulator (the GPU run of this suite checks the same): numba-cuda's bfloat16
(`cuda.bf16`: the type, its operators with numba-cuda's typing, the intrinsics, the conversions with their rounding
modes), and cuda.fp16's conversions with rounding modes and its saturating / relu / unordered intrinsics. Results are compared bit for bit with an exact reference written here (Python's Fraction: each
value rounded to the format by the mode, IEEE's rules), over edge values: NaN, infinities, zeros of both signs,
subnormals of the narrow formats, rounding ties, values that round differently through an intermediate format, and
overflow to infinity or the largest finite value as each mode says."""
import math
import re
from fractions import Fraction

import numpy as np
import pytest

from kfront import cuda, errors

bf16 = cuda.bf16
fp16 = cuda.fp16

# ---- the reference: IEEE rounding of an exact value to a binary format ----------------------------------------------

BF16 = (8, 7)   # exponent bits, fraction bits
F16 = (5, 10)


def round_bits(x, fmt, mode="rn"):
    """The bits of x (a float or an int, taken exactly) rounded to fmt by mode: rn (nearest even), rz, rd, ru."""
    ebits, mbits = fmt
    total = 1 + ebits + mbits
    inf = ((1 << ebits) - 1) << mbits
    if isinstance(x, float) and math.isnan(x):
        return None  # NaN: any NaN
    neg = (x < 0) or (isinstance(x, float) and x == 0 and math.copysign(1, x) < 0)
    sign = 1 << (total - 1) if neg else 0
    if isinstance(x, float) and math.isinf(x):
        return sign | inf
    v = abs(Fraction(x))
    emin = 2 - (1 << (ebits - 1))
    if v == 0:
        return sign
    e = v.numerator.bit_length() - v.denominator.bit_length()
    while Fraction(2) ** e > v:
        e -= 1
    while Fraction(2) ** (e + 1) <= v:
        e += 1
    te = max(e, emin)
    units = v / Fraction(2) ** (te - mbits)  # v in units of the last place
    q = units.numerator // units.denominator
    rest = units - q
    if mode == "rn":
        up = rest > Fraction(1, 2) or (rest == Fraction(1, 2) and q % 2 == 1)
    elif mode == "rz":
        up = False
    elif mode == "rd":
        up = rest > 0 and neg
    else:
        up = rest > 0 and not neg
    bits = ((te - emin) << mbits) + q + int(up)
    if bits >= inf:
        to_inf = mode == "rn" or (mode == "rd" and neg) or (mode == "ru" and not neg)
        bits = inf if to_inf else inf - 1
    return sign | bits


def bf16_value(bits):
    """The float of a bfloat16's bits."""
    return float(np.array([bits << 16], np.uint32).view(np.float32)[0])


def f16_value(bits):
    return float(np.array([bits], np.uint16).view(np.float16)[0])


def to_bf16(x):
    return bf16_value(round_bits(x, BF16)) if not (isinstance(x, float) and math.isnan(x)) else math.nan


def same_bits(got, want, what):
    """got: uint16 bits; want: reference bits (None: any NaN)."""
    bad = []
    for i, (g, w) in enumerate(zip(got, want)):
        if w is None:
            g = int(g)
            exp_all = (g & 0x7F80) == 0x7F80 if what.startswith("bf16") else (g & 0x7C00) == 0x7C00
            frac = g & (0x7F if what.startswith("bf16") else 0x3FF)
            if not (exp_all and frac):
                bad.append((i, hex(g), "NaN"))
        elif int(g) != w:
            bad.append((i, hex(int(g)), hex(w)))
    assert not bad, "%s: %s" % (what, bad[:8])


def test_reference_against_numpy_float16():
    """The reference agrees with NumPy's float16 rounding (to nearest even) on the edge values."""
    for x in [0.1, 65504.0, 65520.0, 65519.99, 6e-8, 3e-8, 2.98e-8, 1e-4, -2.5, 1 + 2 ** -11, 1 + 3 * 2 ** -11]:
        assert round_bits(x, F16) == int(np.array([x]).astype(np.float16).view(np.uint16)[0]), x


# ---- edge values --------------------------------------------------------------------------------------------------

def f32_edges():
    b = [0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00008000, 0x00018000, 0x00010000, 0x00008001,
         0x3F808000, 0x3F818000, 0x3F808001, 0x3F80FFFF, 0x7F7FFFFF, 0x7F7F7FFF, 0x7F7F8000, 0xFF7F8000, 0x7F800000,
         0xFF800000, 0x7FC00000, 0x3FC90FDB, 0xC0490FDB, 0x00800000, 0x007FFFFF, 0x33800000, 0x7F7F7F7F]
    rng = np.random.default_rng(11)
    b += [int(v) for v in rng.integers(0, 2 ** 32, 40, dtype=np.uint64)]
    return np.array(b, np.uint32).view(np.float32)


MODES = ["rn", "rz", "rd", "ru"]


@cuda.jit
def f32_to_bf16(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = bf16.bfloat16_as_uint16(bf16.float32_to_bfloat16_rn(v))
        out[i, 1] = bf16.bfloat16_as_uint16(bf16.float32_to_bfloat16_rz(v))
        out[i, 2] = bf16.bfloat16_as_uint16(bf16.float32_to_bfloat16_rd(v))
        out[i, 3] = bf16.bfloat16_as_uint16(bf16.float32_to_bfloat16_ru(v))
        out[i, 4] = bf16.bfloat16_as_uint16(bf16.float32_to_bfloat16(v))
        out[i, 5] = bf16.bfloat16_as_uint16(bf16.float2bfloat16_rz(v))
        out[i, 6] = bf16.bfloat16_as_uint16(bf16.bfloat16(v))


def test_float32_to_bfloat16_every_mode():
    x = f32_edges()
    out = np.zeros((x.size, 7), np.uint16)
    f32_to_bf16[3, 32](x, out)
    for k, mode in enumerate(MODES):
        same_bits(out[:, k], [round_bits(float(v), BF16, mode) for v in x], "bf16 " + mode)
    same_bits(out[:, 4], [round_bits(float(v), BF16) for v in x], "bf16 float32_to_bfloat16")
    same_bits(out[:, 5], [round_bits(float(v), BF16, "rz") for v in x], "bf16 float2bfloat16_rz")
    same_bits(out[:, 6], [round_bits(float(v), BF16) for v in x], "bf16 bfloat16()")


@cuda.jit
def f64_to_bf16(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = bf16.bfloat16_as_uint16(bf16.float64_to_bfloat16(x[i]))


def test_float64_to_bfloat16_rounds_once():
    # 1 + 2^-8 + 2^-40: through float32 it is a tie (1 + 2^-8) and rounds to 1; once, it rounds up to 1 + 2^-7
    x = np.array([1 + 2 ** -8 + 2 ** -40, 1 + 2 ** -8, -(1 + 2 ** -8 + 2 ** -60), 3.3961e38, 3.39e38, 1e-300, -1e-300,
                  5e-324, 9.2e-41, 9.18e-41, 1e300, np.nan, -np.inf, math.pi, -0.0], np.float64)
    out = np.zeros(x.size, np.uint16)
    f64_to_bf16[1, 32](x, out)
    same_bits(out, [round_bits(float(v), BF16) for v in x], "bf16 from float64")
    assert out[0] == 0x3F81


INT_CASES = {
    np.int16: [0, 1, -1, 255, 256, 257, 383, 384, 385, 32767, -32768, -129, 789],
    np.uint16: [0, 1, 255, 257, 65535, 384, 385, 789],
    np.int32: [0, -1, 16777217, 2 ** 31 - 1, -2 ** 31, 33554435, -33554435, 789, 0x01808000],
    np.uint32: [0, 2 ** 32 - 1, 16777217, 0x80800001, 789],
    np.int64: [0, -1, 2 ** 63 - 1, -2 ** 63, 2 ** 53 + 1, (2 ** 60) + (2 ** 52) + 1, -((2 ** 62) + (2 ** 54)), 789],
    np.uint64: [0, 2 ** 64 - 1, 2 ** 63 + 2 ** 55, 2 ** 63 + 2 ** 55 + 1, 2 ** 56 - 1, 789],
}


def int_kernel(to_bf16_fns):
    rn, rz, rd, ru = to_bf16_fns

    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            out[i, 0] = bf16.bfloat16_as_uint16(rn(v))
            out[i, 1] = bf16.bfloat16_as_uint16(rz(v))
            out[i, 2] = bf16.bfloat16_as_uint16(rd(v))
            out[i, 3] = bf16.bfloat16_as_uint16(ru(v))
    return k


INT_TO_BF16 = {
    np.int16: int_kernel((bf16.int16_to_bfloat16_rn, bf16.int16_to_bfloat16_rz, bf16.int16_to_bfloat16_rd,
                          bf16.int16_to_bfloat16_ru)),
    np.uint16: int_kernel((bf16.uint16_to_bfloat16_rn, bf16.uint16_to_bfloat16_rz, bf16.uint16_to_bfloat16_rd,
                           bf16.uint16_to_bfloat16_ru)),
    np.int32: int_kernel((bf16.int32_to_bfloat16_rn, bf16.int32_to_bfloat16_rz, bf16.int32_to_bfloat16_rd,
                          bf16.int32_to_bfloat16_ru)),
    np.uint32: int_kernel((bf16.uint32_to_bfloat16_rn, bf16.uint32_to_bfloat16_rz, bf16.uint32_to_bfloat16_rd,
                           bf16.uint32_to_bfloat16_ru)),
    np.int64: int_kernel((bf16.int64_to_bfloat16_rn, bf16.int64_to_bfloat16_rz, bf16.int64_to_bfloat16_rd,
                          bf16.int64_to_bfloat16_ru)),
    np.uint64: int_kernel((bf16.uint64_to_bfloat16_rn, bf16.uint64_to_bfloat16_rz, bf16.uint64_to_bfloat16_rd,
                           bf16.uint64_to_bfloat16_ru)),
}


@pytest.mark.parametrize("dt", list(INT_CASES), ids=lambda t: np.dtype(t).name)
def test_integers_to_bfloat16_every_mode(dt):
    x = np.array(INT_CASES[dt], dt)
    out = np.zeros((x.size, 4), np.uint16)
    INT_TO_BF16[dt][1, 32](x, out)
    for k, mode in enumerate(MODES):
        same_bits(out[:, k], [round_bits(int(v), BF16, mode) for v in x], "bf16 from %s %s" % (np.dtype(dt), mode))


def sat_int(v, dt, mode):
    """v (a float) rounded to an integer by mode, saturated to dt's range (PTX's cvt.rni.sat ...); NaN 0, but to a
    64-bit integer 1 << 63, as numba-cuda's __half2ll_rn gave on the H200."""
    if math.isnan(v):
        return np.array(1 << 63, np.uint64).astype(dt) if np.dtype(dt).itemsize == 8 else 0
    info = np.iinfo(dt)
    if math.isinf(v):
        return info.max if v > 0 else info.min
    f = Fraction(v)
    r = {"rn": round(f), "rz": int(f), "rd": math.floor(f), "ru": math.ceil(f)}[mode]
    return min(max(r, info.min), info.max)


@cuda.jit
def bf16_to_ints(bits, o8, ou8, o16, ou16, o32, ou32, o64, ou64):
    i = cuda.grid(1)
    if i < bits.size:
        a = bf16.uint16_as_bfloat16(bits[i])
        o8[i] = bf16.bfloat16_to_int8_rz(a)
        ou8[i] = bf16.bfloat16_to_uint8_rz(a)
        o16[i, 0] = bf16.bfloat16_to_int16_rn(a)
        o16[i, 1] = bf16.bfloat16_to_int16_rz(a)
        o16[i, 2] = bf16.bfloat16_to_int16_rd(a)
        o16[i, 3] = bf16.bfloat16_to_int16_ru(a)
        ou16[i, 0] = bf16.bfloat16_to_uint16_rn(a)
        ou16[i, 1] = bf16.bfloat16_to_uint16_rz(a)
        ou16[i, 2] = bf16.bfloat16_to_uint16_rd(a)
        ou16[i, 3] = bf16.bfloat16_to_uint16_ru(a)
        o32[i, 0] = bf16.bfloat16_to_int32_rn(a)
        o32[i, 1] = bf16.bfloat16_to_int32_rz(a)
        o32[i, 2] = bf16.bfloat16_to_int32_rd(a)
        o32[i, 3] = bf16.bfloat16_to_int32_ru(a)
        ou32[i, 0] = bf16.bfloat16_to_uint32_rn(a)
        ou32[i, 1] = bf16.bfloat16_to_uint32_rz(a)
        ou32[i, 2] = bf16.bfloat16_to_uint32_rd(a)
        ou32[i, 3] = bf16.bfloat16_to_uint32_ru(a)
        o64[i, 0] = bf16.bfloat16_to_int64_rn(a)
        o64[i, 1] = bf16.bfloat16_to_int64_rz(a)
        o64[i, 2] = bf16.bfloat16_to_int64_rd(a)
        o64[i, 3] = bf16.bfloat16_to_int64_ru(a)
        ou64[i, 0] = bf16.bfloat16_to_uint64_rn(a)
        ou64[i, 1] = bf16.bfloat16_to_uint64_rz(a)
        ou64[i, 2] = bf16.bfloat16_to_uint64_rd(a)
        ou64[i, 3] = bf16.bfloat16_to_uint64_ru(a)


def test_bfloat16_to_integers_every_mode():
    # 1.5 (numba-cuda's test: 2 1 1 2), 2.5 (a tie to even), -1.5, -0.5, big values that saturate, NaN, infinities
    vals = [1.5, 2.5, -1.5, -0.5, 0.5, -2.5, 127.5, 200.0, -200.0, 3.0e4, 7e4, -7e4, 3e9, 5e18, 1e19, 2e19, -1e19,
            math.inf, -math.inf, math.nan, 0.0, -0.0, 1e-40, 255.5, 65280.0]
    bits = np.array([round_bits(v, BF16) if not math.isnan(v) else 0x7FC0 for v in vals], np.uint16)
    outs = [np.zeros(bits.size, np.int8), np.zeros(bits.size, np.uint8)]
    outs += [np.zeros((bits.size, 4), t) for t in (np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)]
    bf16_to_ints[1, 32](bits, *outs)
    exact = [bf16_value(int(b)) for b in bits]
    np.testing.assert_array_equal(outs[0], [sat_int(v, np.int8, "rz") for v in exact])
    np.testing.assert_array_equal(outs[1], [sat_int(v, np.uint8, "rz") for v in exact])
    for out, dt in zip(outs[2:], (np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)):
        for k, mode in enumerate(MODES):
            np.testing.assert_array_equal(out[:, k], np.array([sat_int(v, dt, mode) for v in exact], dt),
                                          err_msg="%s %s" % (np.dtype(dt), mode))
    assert list(outs[4][0]) == [2, 1, 1, 2]


# ---- arithmetic, comparisons and the intrinsics ---------------------------------------------------------------------

def bf16_bits_array(vals):
    return np.array([round_bits(float(v), BF16) if not math.isnan(v) else 0x7FC0 for v in vals], np.uint16)


@cuda.jit
def bf16_arith(xb, yb, zb, out, flags):
    i = cuda.grid(1)
    if i < xb.size:
        x = bf16.uint16_as_bfloat16(xb[i])
        y = bf16.uint16_as_bfloat16(yb[i])
        z = bf16.uint16_as_bfloat16(zb[i])
        out[i, 0] = bf16.bfloat16_as_uint16(x + y)
        out[i, 1] = bf16.bfloat16_as_uint16(x - y)
        out[i, 2] = bf16.bfloat16_as_uint16(x * y)
        out[i, 3] = bf16.bfloat16_as_uint16(x / y)
        out[i, 4] = bf16.bfloat16_as_uint16(bf16.hfma(x, y, z))
        out[i, 5] = bf16.bfloat16_as_uint16(-x)
        out[i, 6] = bf16.bfloat16_as_uint16(bf16.habs(x))
        out[i, 7] = bf16.bfloat16_as_uint16(bf16.hadd(x, y))
        out[i, 8] = bf16.bfloat16_as_uint16(bf16.hsub_rn(x, y))
        out[i, 9] = bf16.bfloat16_as_uint16(bf16.hmul_rn(x, y))
        out[i, 10] = bf16.bfloat16_as_uint16(bf16.hdiv(x, y))
        out[i, 11] = bf16.bfloat16_as_uint16(bf16.hadd_sat(x, y))
        out[i, 12] = bf16.bfloat16_as_uint16(bf16.hsub_sat(x, y))
        out[i, 13] = bf16.bfloat16_as_uint16(bf16.hmul_sat(x, y))
        out[i, 14] = bf16.bfloat16_as_uint16(bf16.hfma_sat(x, y, z))
        out[i, 15] = bf16.bfloat16_as_uint16(bf16.hfma_relu(x, y, z))
        out[i, 16] = bf16.bfloat16_as_uint16(bf16.hmax(x, y))
        out[i, 17] = bf16.bfloat16_as_uint16(bf16.hmin(x, y))
        out[i, 18] = bf16.bfloat16_as_uint16(bf16.hmax_nan(x, y))
        out[i, 19] = bf16.bfloat16_as_uint16(bf16.hmin_nan(x, y))
        out[i, 20] = bf16.bfloat16_as_uint16(bf16.hneg(x))
        a = x
        a += y
        a *= z
        out[i, 21] = bf16.bfloat16_as_uint16(a)
        flags[i, 0] = x < y
        flags[i, 1] = x == y
        flags[i, 2] = x != y
        flags[i, 3] = x >= y
        flags[i, 4] = bf16.hlt(x, y)
        flags[i, 5] = bf16.hne(x, y)
        flags[i, 6] = bf16.hequ(x, y)
        flags[i, 7] = bf16.hneu(x, y)
        flags[i, 8] = bf16.hltu(x, y)
        flags[i, 9] = bf16.hgeu(x, y)
        flags[i, 10] = bf16.hisnan(x)
        flags[i, 11] = bf16.hisinf(x)
        flags[i, 12] = bf16.hgt(x, y)
        flags[i, 13] = bf16.hle(x, y)


def exact(v):
    return Fraction(v)


def op_ref(f, *args):
    """f on the exact values, rounded once to bfloat16 (None: NaN)."""
    if any(math.isnan(a) for a in args):
        return None
    try:
        r = f(*args)
    except (ZeroDivisionError, OverflowError, ValueError):
        return None
    return None if isinstance(r, float) and math.isnan(r) else round_bits(r, BF16)


def exact_or_float(f):
    """f on Fractions where the arguments are finite, else in float64 (infinities: IEEE's rules)."""
    def g(*a):
        if all(math.isfinite(v) for v in a):
            return f(*[Fraction(v) for v in a])
        with np.errstate(all="ignore"):
            r = f(*[np.float64(v) for v in a])
        return float(r)
    return g


def sat_ref(bits):
    if bits is None:
        return 0
    v = bf16_value(bits)
    return 0 if not v > 0 else (bits if v < 1 else 0x3F80)


def test_bfloat16_arithmetic_and_intrinsics():
    rng = np.random.default_rng(5)
    xs = [1.25, -2.5, 1.0, 1.0, 3.0, 0.5, 1e38, -1e38, 3.3e38, 0.0, -0.0, 1e-39, 9.2e-41, math.inf, -math.inf,
          math.nan, 1.0, 2.0, 0.75, -1.5, 256.0, 1.0078125, 1.0625, 1.0625]
    ys = [-2.5, 1.25, 2 ** -8, 2 ** -9 + 2 ** -16, 3.0, 0.5, 1e38, 1e38, 3.3e38, -0.0, 0.0, -1e-39, 9.2e-41, -math.inf,
          math.inf, 1.0, math.nan, 0.5, 0.75, 2.0, 1.0, 1.0078125, 1.0625, -1.0625]
    zs = [-2.5, 1.0, 1.0, 1.0, -9.0, 0.25, -1e38, 1.0, 1.0, 0.0, 0.0, 1e-39, -9.2e-41, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5,
          2.0, -65536.0, -1.015625, 2.0 ** -30, 2.0 ** -30]
    # (the last two: 1.0625 * 1.0625 = 1.125 + 2^-8 is a tie; with +-2^-30 rounded once it is not, through a
    # float32 fma it would be)
    n = 40
    xs += list(rng.standard_normal(n) * 10)
    ys += list(rng.standard_normal(n) * 10)
    zs += list(rng.standard_normal(n) * 100)
    xb, yb, zb = bf16_bits_array(xs), bf16_bits_array(ys), bf16_bits_array(zs)
    out = np.zeros((xb.size, 22), np.uint16)
    flags = np.zeros((xb.size, 14), np.int32)
    bf16_arith[3, 32](xb, yb, zb, out, flags)
    X = [bf16_value(int(b)) for b in xb]
    Y = [bf16_value(int(b)) for b in yb]
    Z = [bf16_value(int(b)) for b in zb]
    add = exact_or_float(lambda a, b: a + b)
    sub = exact_or_float(lambda a, b: a - b)
    mul = exact_or_float(lambda a, b: a * b)
    fma = exact_or_float(lambda a, b, c: a * b + c)

    def div(a, b):
        if b == 0 or not (math.isfinite(a) and math.isfinite(b)):
            with np.errstate(all="ignore"):
                return float(np.float64(a) / np.float64(b))
        return Fraction(a) / Fraction(b)

    def signed_zero(r, a, b, op):
        # an exact zero result: IEEE's sign (x + -x is +0 to nearest; the product's sign for * and /)
        return r

    cols = {0: [op_ref(add, a, b) for a, b in zip(X, Y)], 1: [op_ref(sub, a, b) for a, b in zip(X, Y)],
            2: [op_ref(mul, a, b) for a, b in zip(X, Y)], 3: [op_ref(div, a, b) for a, b in zip(X, Y)],
            4: [op_ref(fma, a, b, c) for a, b, c in zip(X, Y, Z)]}
    # zero results carry IEEE's sign, which Fractions lose: take it from float64 (exact for these zeros)
    for k, f in ((0, np.add), (1, np.subtract), (2, np.multiply), (3, np.divide)):
        for i, (a, b) in enumerate(zip(X, Y)):
            with np.errstate(all="ignore"):
                r = f(np.float64(a), np.float64(b))
            if r == 0 and cols[k][i] is not None:
                cols[k][i] = round_bits(float(r), BF16)
    for i, (a, b, c) in enumerate(zip(X, Y, Z)):
        with np.errstate(all="ignore"):
            r = np.float64(a) * np.float64(b) + np.float64(c)
        if r == 0 and cols[4][i] is not None and (Fraction(a) * Fraction(b) + Fraction(c) if all(map(math.isfinite, (a, b, c))) else 1) == 0:
            cols[4][i] = round_bits(float(r), BF16)
    for k, name in ((0, "+"), (1, "-"), (2, "*"), (3, "/"), (4, "hfma")):
        same_bits(out[:, k], cols[k], "bf16 " + name)
    assert out[len(zs) - 2 - n, 4] == 0x3F91 and out[len(zs) - 1 - n, 4] == 0xBF90
    same_bits(out[:, 7], cols[0], "bf16 hadd")
    same_bits(out[:, 8], cols[1], "bf16 hsub_rn")
    same_bits(out[:, 9], cols[2], "bf16 hmul_rn")
    same_bits(out[:, 10], cols[3], "bf16 hdiv")
    for k, c in ((11, 0), (12, 1), (13, 2), (14, 4)):
        same_bits(out[:, k], [sat_ref(b) for b in cols[c]], "bf16 sat %d" % k)
    relu = [b if b is None or not bf16_value(b) < 0 else 0 for b in cols[4]]
    same_bits(out[:, 15], relu, "bf16 hfma_relu")
    neg = [int(b) ^ 0x8000 for b in xb]
    same_bits(out[:, 5], [None if math.isnan(a) else b for a, b in zip(X, neg)], "bf16 -x")
    same_bits(out[:, 20], [None if math.isnan(a) else b for a, b in zip(X, neg)], "bf16 hneg")
    same_bits(out[:, 6], [None if math.isnan(a) else int(b) & 0x7FFF for a, b in zip(X, xb)], "bf16 habs")

    def fmax(a, b, nan_wins, is_max):
        if math.isnan(a) or math.isnan(b):
            if nan_wins:
                return None
            return None if math.isnan(a) and math.isnan(b) else round_bits(b if math.isnan(a) else a, BF16)
        return round_bits((a if a >= b else b) if is_max else (a if a <= b else b), BF16)
    for k, nw, mx in ((16, False, True), (17, False, False), (18, True, True), (19, True, False)):
        same_bits(out[:, k], [fmax(a, b, nw, mx) for a, b in zip(X, Y)], "bf16 max/min %d" % k)
    acc = [op_ref(mul, bf16_value(s) if s is not None else math.nan, c) if s is not None else None
           for s, c in zip(cols[0], Z)]
    same_bits(out[:, 21], acc, "bf16 += *=")
    with np.errstate(invalid="ignore"):
        x64, y64 = np.array(X), np.array(Y)
        uno = np.isnan(x64) | np.isnan(y64)
        want = [x64 < y64, x64 == y64, x64 != y64, x64 >= y64, x64 < y64, (x64 != y64) & ~uno, uno | (x64 == y64),
                x64 != y64, uno | (x64 < y64), uno | (x64 >= y64), np.isnan(x64),
                np.where(np.isinf(x64), np.sign(x64), 0), x64 > y64, x64 <= y64]
    for k, w in enumerate(want):
        np.testing.assert_array_equal(flags[:, k], np.asarray(w, np.int32), err_msg="flag %d" % k)


@cuda.jit
def bf16_math(xb, out):
    i = cuda.grid(1)
    if i < xb.size:
        x = bf16.uint16_as_bfloat16(xb[i])
        out[i, 0] = bf16.bfloat16_as_uint16(bf16.hsqrt(x))
        out[i, 1] = bf16.bfloat16_as_uint16(bf16.htrunc(x))
        out[i, 2] = bf16.bfloat16_as_uint16(bf16.hceil(x))
        out[i, 3] = bf16.bfloat16_as_uint16(bf16.hfloor(x))
        out[i, 4] = bf16.bfloat16_as_uint16(bf16.hrint(x))
        out[i, 5] = bf16.bfloat16_as_uint16(bf16.hsin(x))
        out[i, 6] = bf16.bfloat16_as_uint16(bf16.hcos(x))
        out[i, 7] = bf16.bfloat16_as_uint16(bf16.hexp(x))
        out[i, 8] = bf16.bfloat16_as_uint16(bf16.hexp2(x))
        out[i, 9] = bf16.bfloat16_as_uint16(bf16.hexp10(x))
        out[i, 10] = bf16.bfloat16_as_uint16(bf16.hlog(x))
        out[i, 11] = bf16.bfloat16_as_uint16(bf16.hlog2(x))
        out[i, 12] = bf16.bfloat16_as_uint16(bf16.hlog10(x))
        out[i, 13] = bf16.bfloat16_as_uint16(bf16.htanh(x))
        out[i, 14] = bf16.bfloat16_as_uint16(bf16.htanh_approx(x))
        out[i, 15] = bf16.bfloat16_as_uint16(bf16.hrcp(x))
        out[i, 16] = bf16.bfloat16_as_uint16(bf16.hrsqrt(x))
        # numba-cuda's bf16.py: math.sin ... of a bfloat16 are its bfloat16 intrinsics
        out[i, 17] = bf16.bfloat16_as_uint16(math.sin(x))
        out[i, 18] = bf16.bfloat16_as_uint16(math.sqrt(x))
        out[i, 19] = bf16.bfloat16_as_uint16(math.floor(x))
        out[i, 20] = bf16.bfloat16_as_uint16(math.exp(x))


def ulp16(a, b):
    def rank(u):
        return u + 0x8000 if u < 0x8000 else 0x8000 - (u - 0x8000)
    return abs(rank(a) - rank(b))


def test_bfloat16_add_sub_mul_are_native_on_sm_90():
    """bf16 +, - and * are sm_90's add.rn.bf16, sub.rn.bf16 and mul.rn.bf16 (libNVVM; the bits of the float32 result
    rounded, which test_bfloat16_arithmetic_and_intrinsics checks on a GPU), computed in float32 before sm_90 and
    under fastmath (whose float32 ops flush subnormals)."""
    sig = "void(uint16[::1], uint16[::1], uint16[::1], uint16[:, ::1], int32[:, ::1])"
    native = r"\b(add|sub|mul)\.rn\.bf16\b"

    def ptx(kernel, arch):
        return kernel._compile_text("ptx", sig, **dict(kernel._codegen(), arch=arch))

    assert set(re.findall(native, ptx(bf16_arith, 90))) == {"add", "sub", "mul"}
    assert set(re.findall(native, ptx(bf16_arith, 100))) == {"add", "sub", "mul"}
    assert not re.findall(native, ptx(bf16_arith, 80))
    assert not re.findall(native, ptx(cuda.jit(fastmath=True)(bf16_arith.py_func), 90))


def test_bfloat16_math():
    vals = [3.14, 0.5, 2.0, 1.0, -1.0, 0.0, -0.0, 100.0, -3.5, 2.5, 1.5, 1e-38, 9.2e-41, 88.0, -90.0, 1e30, math.inf,
            -math.inf, math.nan, 0.1, 10.0, 7.5]
    xb = bf16_bits_array(vals)
    out = np.zeros((xb.size, 21), np.uint16)
    bf16_math[1, 32](xb, out)
    x32 = np.array([bf16_value(int(b)) for b in xb], np.float32)
    with np.errstate(all="ignore"):
        refs = {0: np.sqrt(x32), 1: np.trunc(x32), 2: np.ceil(x32), 3: np.floor(x32), 4: np.rint(x32),
                5: np.sin(x32), 6: np.cos(x32), 7: np.exp(x32), 8: np.exp2(x32),
                9: np.power(np.float32(10), x32), 10: np.log(x32), 11: np.log2(x32), 12: np.log10(x32),
                13: np.tanh(x32), 14: np.tanh(x32), 15: np.float32(1) / x32, 16: np.float32(1) / np.sqrt(x32),
                17: np.sin(x32), 18: np.sqrt(x32), 19: np.floor(x32), 20: np.exp(x32)}
    exact_cols = {0, 1, 2, 3, 4, 15, 16, 18, 19}
    for k, r in refs.items():
        want = [None if math.isnan(v) else round_bits(float(v), BF16) for v in r]
        if k in exact_cols:
            same_bits(out[:, k], want, "bf16 math %d" % k)
        else:  # float32 libm, rounded: within one bfloat16 ulp of NumPy's float32 result rounded
            for i, w in enumerate(want):
                g = int(out[i, k])
                if w is None:
                    assert (g & 0x7F80) == 0x7F80 and g & 0x7F, (k, i)
                else:
                    assert ulp16(g, w) <= 1, (k, i, vals[i], hex(g), hex(w))


# ---- numba-cuda's typing of bfloat16 ---------------------------------------------------------------------------------

@cuda.jit
def bf16_typing(out):
    a = bf16.bfloat16(1.0)
    tiny = bf16.bfloat16(2.0 ** -8)
    out[0] = a + tiny                         # bfloat16 + bfloat16 is bfloat16: 1 + 2^-8 rounds to 1 (a tie, even)
    out[1] = a + np.float32(2.0 ** -8)        # with a float32: float32
    out[2] = a + 2.0 ** -8                    # with a float literal: float64
    out[3] = a + np.int8(1)                   # an int8 converts to bfloat16 safely: bfloat16
    out[4] = a * 3                            # an int64 does not: float64
    out[5] = math.log2(bf16.bfloat16(8.0))    # no bfloat16 overload of log2: float32
    out[6] = bf16.bfloat16(3.7)               # float64 -> bfloat16 -> float64: 3.703125
    b = bf16.bfloat16(0.0)
    for _ in range(3):
        b += tiny * bf16.bfloat16(300.0)      # stays bfloat16 across the loop
    out[7] = b


def test_bfloat16_typing():
    out = np.zeros(8)
    bf16_typing[1, 1](out)
    assert out[0] == 1.0
    assert out[1] == np.float32(1 + 2 ** -8)
    assert out[2] == 1 + 2 ** -8
    assert out[3] == 2.0
    assert out[4] == 3.0
    assert out[5] == 3.0
    assert out[6] == 3.703125
    t = to_bf16(2.0 ** -8 * 300.0)
    assert out[7] == to_bf16(to_bf16(t + t) + t)


@cuda.jit(device=True)
def add_bf16(a, b):
    return a + b


@cuda.jit
def bf16_device(out, v):
    a = bf16.bfloat16(v)
    b = bf16.bfloat16(5)
    out[0] = bf16.bfloat16_to_float32(bf16.hfloor(add_bf16(a, b)))
    out[1] = np.float32(a)
    out[2] = np.int16(a)
    out[3] = np.uint64(bf16.bfloat16(-3.9))   # saturates at 0
    out[4] = bf16.bfloat16(np.float16(9))


def test_bfloat16_in_device_functions_and_casts():
    out = np.zeros(5, np.float32)
    bf16_device[1, 1](out, 3.14)
    assert out.tolist() == [8.0, 3.140625, 3.0, 0.0, 9.0]


def test_bfloat16_errors_are_located():
    @cuda.jit
    def bad(out):
        out[0] = bf16.hadd(True, bf16.bfloat16(1.0))

    with pytest.raises(errors.TypingError, match=r"cuda.bf16.hadd\(\) needs bfloat16 arguments, not bool") as e:
        bad[1, 1](np.zeros(1, np.float32))
    assert "test_lowp.py" in str(e.value)

    @cuda.jit
    def no_name(out):
        out[0] = bf16.float32_to_bfloat16_rx(1.0)

    with pytest.raises(errors.TypingError, match=r"float32_to_bfloat16_rx"):
        no_name[1, 1](np.zeros(1, np.float32))


# ---- cuda.fp16: conversions with rounding modes, saturating and unordered intrinsics ----------------------------------

@cuda.jit
def fp16_convert(x, d, i32, i64, u16, hb, out, ints):
    k = cuda.grid(1)
    if k < x.size:
        out[k, 0] = fp16.half_as_ushort(fp16.__float2half_rn(x[k]))
        out[k, 1] = fp16.half_as_ushort(fp16.__float2half_rz(x[k]))
        out[k, 2] = fp16.half_as_ushort(fp16.__float2half_rd(x[k]))
        out[k, 3] = fp16.half_as_ushort(fp16.__float2half_ru(x[k]))
        out[k, 4] = fp16.__half_as_ushort(fp16.__double2half(d[k]))
        out[k, 5] = fp16.__half_as_ushort(fp16.__int2half_rz(i32[k]))
        out[k, 6] = fp16.__half_as_ushort(fp16.__int2half_ru(i32[k]))
        out[k, 7] = fp16.__half_as_ushort(fp16.__ll2half_rd(i64[k]))
        out[k, 8] = fp16.__half_as_ushort(fp16.__ushort2half_rn(u16[k]))
        h = fp16.__ushort_as_half(hb[k])
        ints[k, 0] = fp16.__half2int_rn(h)
        ints[k, 1] = fp16.__half2int_rz(h)
        ints[k, 2] = fp16.__half2int_rd(h)
        ints[k, 3] = fp16.__half2int_ru(h)
        ints[k, 4] = fp16.__half2char_rz(h)
        ints[k, 5] = fp16.__half2uchar_rz(h)
        ints[k, 6] = fp16.__half2ushort_rn(h)
        ints[k, 7] = fp16.__half2ll_rd(h)
        out[k, 9] = fp16.__half_as_ushort(fp16.__hadd_sat(h, h))
        out[k, 10] = fp16.__half_as_ushort(fp16.__hfma_relu(h, h, fp16.__float2half(-1.0)))
        ints[k, 8] = fp16.__hequ(h, h)
        ints[k, 9] = fp16.__hltu(h, fp16.__float2half(1.0))
        out[k, 11] = fp16.__half_as_ushort(fp16.__hsub_sat(h, fp16.__float2half(0.25)))


def test_float16_conversions_every_mode():
    x = np.array([0.1, 65504.0, 65520.0, 70000.0, -70000.0, 6e-8, 2.9e-8, -2.9e-8, 1 + 2 ** -11, 1 + 3 * 2 ** -11,
                  np.nan, np.inf, -np.inf, -0.0, -1.0000001, 1e-45, 3.14159] + [0.5] * 7, np.float32)
    d = np.array([1 + 2 ** -11 + 2 ** -40, 65519.99999, 1e-300, -0.1] + [0.0] * 20)
    i32 = np.array([2049, 2051, -2049, 65520, 100000, -100000, 7, 0, 2 ** 31 - 1, -2 ** 31] + [1] * 14, np.int32)
    i64 = np.array([2049, -2049, 2 ** 62 + 1, -(2 ** 62), 65535, -65536] + [3] * 18, np.int64)
    u16 = np.array([2049, 2051, 65535, 65519, 65520, 4097] + [0] * 18, np.uint16)
    hvals = [1.5, 2.5, -1.5, -0.5, 0.75, 300.0, -300.0, 65504.0, -65504.0, np.inf, -np.inf, np.nan, 0.0, -0.0, 6e-8,
             1.0, 0.5, 200.5, -128.5, 255.5, 0.25, 1.25, 0.625, -0.25]
    hb = np.array(hvals, np.float16).view(np.uint16)
    out = np.zeros((x.size, 12), np.uint16)
    ints = np.zeros((x.size, 10), np.int64)
    fp16_convert[1, 32](x, d, i32, i64, u16, hb, out, ints)
    for k, mode in enumerate(MODES):
        same_bits(out[:, k], [round_bits(float(v), F16, mode) for v in x], "f16 " + mode)
    same_bits(out[:, 4], [round_bits(float(v), F16) for v in d], "f16 from float64")
    same_bits(out[:, 5], [round_bits(int(v), F16, "rz") for v in i32], "f16 int rz")
    same_bits(out[:, 6], [round_bits(int(v), F16, "ru") for v in i32], "f16 int ru")
    same_bits(out[:, 7], [round_bits(int(v), F16, "rd") for v in i64], "f16 ll rd")
    same_bits(out[:, 8], [round_bits(int(v), F16, "rn") for v in u16], "f16 ushort rn")
    h = [float(v) for v in np.array(hvals, np.float16)]
    for k, (dt, mode) in enumerate([(np.int32, "rn"), (np.int32, "rz"), (np.int32, "rd"), (np.int32, "ru"),
                                    (np.int8, "rz"), (np.uint8, "rz"), (np.uint16, "rn"), (np.int64, "rd")]):
        np.testing.assert_array_equal(ints[:, k], [sat_int(v, dt, mode) for v in h], err_msg="%d" % k)

    def sat16(v):
        return 0 if not v > 0 else round_bits(min(v, 1.0), F16)
    same_bits(out[:, 9], [sat16(float(np.float16(v) + np.float16(v))) for v in h], "f16 hadd_sat")
    same_bits(out[:, 11], [sat16(float(np.float16(v) - np.float16(0.25))) for v in h], "f16 hsub_sat")
    with np.errstate(all="ignore"):
        relu = [None if math.isnan(v) else round_bits(max(float(np.float16(v * v - 1)), 0.0) if v * v - 1 >= 0 else 0.0, F16)
                for v in h]
    same_bits(out[:, 10], relu, "f16 hfma_relu")
    np.testing.assert_array_equal(ints[:, 8], [1] * len(h))
    np.testing.assert_array_equal(ints[:, 9], [int(math.isnan(v) or v < 1) for v in h])


@cuda.jit
def to_unsigned(hb, bb, ints):
    k = cuda.grid(1)
    if k < hb.size:
        h = fp16.__ushort_as_half(hb[k])
        ints[k, 0] = fp16.__half2ushort_rn(h)
        ints[k, 1] = fp16.__half2ushort_rz(h)
        ints[k, 2] = fp16.__half2ushort_rd(h)
        ints[k, 3] = fp16.__half2ushort_ru(h)
        ints[k, 4] = fp16.__half2uint_rn(h)
        ints[k, 5] = fp16.__half2uint_rz(h)
        ints[k, 6] = fp16.__half2uint_rd(h)
        ints[k, 7] = fp16.__half2uint_ru(h)
        ints[k, 8] = fp16.__half2ull_rn(h)
        ints[k, 9] = fp16.__half2ull_rz(h)
        ints[k, 10] = fp16.__half2ull_rd(h)
        ints[k, 11] = fp16.__half2ull_ru(h)
        ints[k, 12] = fp16.__half2uchar_rz(h)
        b = bf16.uint16_as_bfloat16(bb[k])
        ints[k, 13] = bf16.bfloat16_to_uint16_ru(b)
        ints[k, 14] = bf16.bfloat16_to_uint32_rd(b)
        ints[k, 15] = bf16.bfloat16_to_uint64_rn(b)
        ints[k, 16] = bf16.bfloat16_to_uint8_rz(b)


def test_conversions_to_unsigned_nan_negative_overflow():
    """cuda.fp16's and cuda.bf16's conversions to unsigned integers as PTX's cvt.rni / rzi / rmi / rpi .u16 / .u32 /
    .u64 / .u8 compute them: saturating (a negative value 0, past the maximum the maximum, +inf the maximum), NaN 0
    but 1 << 63 for a 64-bit result (the H200's cvt to 64 bits, as numba-cuda's __half2ll_rn showed)"""
    vals = [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, -0.4, -0.5, -0.6, -1.5, -300.0, 0.5, 1.5, 2.5, 255.5, 256.0,
            65504.0, -65504.0, 6e-8, 0.99]
    hb = np.array(vals, np.float16).view(np.uint16)
    bvals = vals[:16] + [3.0e38, 65536.0, 1e20, 300.0]
    bb = (np.array(bvals, np.float32).view(np.uint32) >> 16).astype(np.uint16)  # exact in bfloat16 (or NaN / inf)
    ints = np.zeros((len(vals), 17), np.uint64)
    to_unsigned[1, 32](hb, bb, ints)
    h = [float(v) for v in np.array(vals, np.float16)]
    b = [float(np.array([x << 16], np.uint32).view(np.float32)[0]) for x in bb.tolist()]
    cols = [(h, np.uint16, m) for m in MODES] + [(h, np.uint32, m) for m in MODES] + [(h, np.uint64, m) for m in MODES]
    cols += [(h, np.uint8, "rz"), (b, np.uint16, "ru"), (b, np.uint32, "rd"), (b, np.uint64, "rn"), (b, np.uint8, "rz")]
    for k, (src, dt, mode) in enumerate(cols):
        want = [int(sat_int(v, dt, mode)) for v in src]
        assert ints[:, k].tolist() == want, (k, dt, mode, ints[:, k].tolist(), want)
    # the NaN rows, spelled out: 0 below 64 bits, 1 << 63 at 64
    assert ints[0, :8].tolist() == [0] * 8 and ints[0, 8:12].tolist() == [1 << 63] * 4 and ints[0, 12] == 0


def test_numba_cuda_bf16_fp16_libdevice_modules_under_the_drop_in():
    """`from numba.cuda.bf16 import hadd`, `from numba.cuda.fp16 import __float2half_rd`, `import numba.cuda.bf16`
    as numba-cuda's programs write them, under kfront's drop-in (install_numba_alias)."""
    from kfront._alias import install_numba_alias, uninstall_numba_alias
    install_numba_alias()
    try:
        from numba import cuda as ncuda
        from numba.cuda.bf16 import bfloat16, hadd, float32_to_bfloat16_rz, bfloat16_to_float32
        from numba.cuda.fp16 import __float2half_rd as f2h_rd
        from numba.cuda import libdevice
        import numba.cuda.bf16 as B

        @ncuda.jit
        def k(out, x):
            a = hadd(bfloat16(x[0]), B.bfloat16(1.0))
            out[0] = bfloat16_to_float32(a) + bfloat16_to_float32(float32_to_bfloat16_rz(x[1]))
            out[1] = np.float32(f2h_rd(x[1]))
            out[2] = libdevice.fsqrt_rd(x[0])

        out = np.zeros(3, np.float32)
        k[1, 1](out, np.array([2.0, 0.1], np.float32))
    finally:
        uninstall_numba_alias()
    assert out[0] == np.float32(3.0 + bf16_value(round_bits(float(np.float32(0.1)), BF16, "rz")))
    assert out[1] == f16_value(round_bits(float(np.float32(0.1)), F16, "rd"))
    assert out[2] == np.float32(1.4142135)


@cuda.jit
def copy_first(out, x):
    out[0] = x[0]


def test_arrays_of_unsupported_dtypes_are_errors():
    # a plain 2-byte void (ml_dtypes' bfloat16 has the same typestr; its dtype tells them apart)
    with pytest.raises(TypeError, match=r"kfront does not support arrays of dtype '\|V2' \(a 2-byte void: bfloat16"):
        copy_first[1, 1](np.zeros(1, np.float32), np.zeros(4, "V2"))
    # a dtype after the table's last row (bfloat16's, which is never matched) is refused, not a crash
    with pytest.raises(TypeError, match=r"kfront does not support arrays of dtype '\|O'"):
        copy_first[1, 1](np.zeros(1, np.float32), np.zeros(4, "O"))


# ---- bfloat16 host arrays (ml_dtypes, as numba-cuda takes them), and what numba-cuda's bf16 does not have --------

@cuda.jit
def bf16_arrays(a, out, widened):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * bf16.bfloat16(3.0) + a[a.size - 1 - i]
        widened[i] = np.float32(a[i])


def test_bfloat16_host_and_device_arrays():
    """ml_dtypes.bfloat16 NumPy arrays as kernel arguments (copied in and back), through cuda.to_device /
    device_array / copy_to_host, typed bfloat16[::1] as numba-cuda types them; a[i] * 3 + b contracted into one
    fma, the exact value rounded to bfloat16 once (passes/contract.c, as numba-cuda on the H200)"""
    import ml_dtypes
    from kfront import types
    a = np.array([1.5, -2.25, 3.0, 1e30, -0.0, np.inf, np.nan, 0.1, 255.0, -7.0], ml_dtypes.bfloat16)
    out = np.zeros(a.size, ml_dtypes.bfloat16)
    widened = np.zeros(a.size, np.float32)
    bf16_arrays[1, 32](a, out, widened)
    af = a.astype(np.float32)
    fused = [Fraction(float(x)) * 3 + Fraction(float(y)) if math.isfinite(x) and math.isfinite(y) else float(x) * 3 + float(y)
             for x, y in zip(af, af[::-1])]
    nan = np.isnan(af) | np.isnan(af[::-1])
    np.testing.assert_array_equal(out.view(np.uint16)[~nan], [round_bits(f, BF16) for f, n in zip(fused, nan) if not n])
    assert np.isnan(out.astype(np.float32)[nan]).all()
    np.testing.assert_array_equal(widened.view(np.uint32), af.view(np.uint32))
    d, o = cuda.to_device(a), cuda.device_array(a.size, ml_dtypes.bfloat16)
    bf16_arrays[1, 32](d, o, cuda.device_array(a.size, np.float32))
    back = o.copy_to_host()
    assert back.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(back.view(np.uint16), out.view(np.uint16))
    assert str(types.typeof(a)) == "bfloat16[::1]" and types.from_dtype(a.dtype) is types.bfloat16
    assert types.as_dtype(types.bfloat16) == np.dtype(ml_dtypes.bfloat16)
    # a plain 2-byte void array is no bfloat16
    with pytest.raises(TypeError, match="2-byte void"):
        bf16_arrays[1, 32](np.zeros(3, "V2"), out, widened)


@cuda.jit
def bf16_scalar(s, out):
    out[0] = s * bf16.bfloat16(3.0)


def test_bfloat16_scalar_argument():
    """an ml_dtypes.bfloat16 scalar is a bfloat16 kernel argument (its 0-d array interface, typed by its dtype)"""
    import ml_dtypes
    out = np.zeros(1, ml_dtypes.bfloat16)
    bf16_scalar[1, 1](ml_dtypes.bfloat16(1.5), out)
    assert out.view(np.uint16)[0] == np.array([4.5], ml_dtypes.bfloat16).view(np.uint16)[0]
    bf16_scalar[1, 1](ml_dtypes.bfloat16(1.0 + 2 ** -7), out)  # 3 + 3 * 2**-7 rounds to nearest even bfloat16
    assert out.view(np.uint16)[0] == np.array([3.0 + 3 * 2 ** -7], np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)[0]


def test_bfloat16_atomics_and_vectors_are_located_errors():
    """numba-cuda's cuda.atomic takes no bfloat16 (nor float16) arrays, and numba.cuda.bf16 has no vector type"""
    import ml_dtypes

    @cuda.jit
    def add(a):
        cuda.atomic.add(a, 0, bf16.bfloat16(1.0))

    with pytest.raises(errors.TypingError, match=r"cuda.atomic.add\(\) does not support arrays of bfloat16: numba-cuda") as e:
        add[1, 1](np.zeros(2, ml_dtypes.bfloat16))
    assert "test_lowp.py" in str(e.value)

    @cuda.jit
    def pair(a):
        v = bf16.bfloat162(a[0], a[1])  # noqa: F841

    with pytest.raises(errors.UnsupportedError, match=r"numba.cuda.bf16 has no vector type") as e:
        pair[1, 1](np.zeros(2, ml_dtypes.bfloat16))
    assert "test_lowp.py" in str(e.value)


def test_cuda_bfloat16_constructor(capfd):
    # numba-cuda's cuda.bfloat16 (its test_print test_bfloat16): the bfloat16 type, called in kernels
    @cuda.jit
    def k(out):
        a = cuda.bfloat16(0.9375)
        out[0] = np.float32(a)
        print(a, a, a)

    out = np.zeros(1, np.float32)
    k[1, 1](out)
    cuda.synchronize()
    assert out[0] == 0.9375
    assert capfd.readouterr().out.strip().endswith("0.937500 0.937500 0.937500")


def test_ml_dtypes_bfloat16_class_in_kernels():
    # numba-cuda's test_cupy_bfloat16_interop: ml_dtypes.bfloat16(3.0) in a kernel is the bfloat16 constructor (the
    # class is a NumPy scalar type whose dtype is numba-cuda's bfloat16)
    ml_dtypes = pytest.importorskip("ml_dtypes")

    @cuda.jit
    def k(arr_in, arr_in2, arr_out):
        tid = cuda.grid(1)
        if tid < arr_in.size:
            arr_out[tid] = 2 * arr_in[tid] + 4 * arr_in2[tid] + ml_dtypes.bfloat16(3.0)

    a = np.asarray([1, 2, 3, 4, 5], dtype=ml_dtypes.bfloat16)
    b = np.arange(5)
    out = np.empty(5, dtype=ml_dtypes.bfloat16)
    k[1, 32](a, b, out)
    assert (out == 2 * a + 4 * b + 3.0).all()
