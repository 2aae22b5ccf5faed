"""native_forms.py — kernels and reference values for the operations kfront compiles to numba-cuda's own PTX forms,
shared by test_native_forms.py (kfront, on the simulator and on the GPU) and test/gpu/python/
test_native_forms_vs_numba.py (the same kernels compiled by numba-cuda too, on the GPU):

- float16 arithmetic in half (add.f16, sub.f16, mul.f16, neg.f16, abs.f16, setp.<cmp>.f16): IEEE binary16, each
  operation rounded once (NumPy's float16 operations compute that: through float32, which is wide enough for one
  rounding to be exact);
- numba-cuda's casts between float16 and the integers (its cvt.rni.<int>.f16 and cvt.rn.f16.<int>): a float16 to
  an integer rounds to nearest even (not toward zero: numba-cuda's simulator, NumPy, truncates) and saturates at the
  type's limits; NaN gives 0, but 2**63 in the bits of a 64-bit integer (INT64_MIN; what the H200 gave);
- max(x, y) / min(x, y) of two float32 or float64 values, which numba-cuda lowers to libdevice's fmax / fmin (PTX
  max.f32 ...: a NaN operand gives the other, -0 orders below +0) where its simulator runs Python's max (the first
  of two equal zeros; NaN first wins); of three values, a tuple, float16 or a float beside an integer, Python's.

Each SOURCE is compiled with `cuda` and `np` bound, by compile_source(cuda_module, SOURCE, name)."""
import linecache
import math

import numpy as np

import fused

FP16_ARITH = """
def fp16_arith(out, flags, a, b, n):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = x + y
        out[i, 1] = x - y
        out[i, 2] = x * y
        out[i, 3] = -x
        out[i, 4] = abs(x)
        out[i, 5] = np.float16(n[i])
        out[i, 6] = x * y + b[a.size - 1 - i]
        flags[i, 0] = x > y
        flags[i, 1] = x >= y
        flags[i, 2] = x < y
        flags[i, 3] = x <= y
        flags[i, 4] = x == y
        flags[i, 5] = x != y
        flags[i, 6] = x > n[i]
"""

# one kind of operation per kernel: the forms without a rounding modifier (nothing to fuse them with)
FP16_SUM_ALONE = """
def fp16_sum_alone(out, a, b):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] + b[i]
        out[i, 1] = a[i] - b[i]
"""

FP16_PRODUCT_ALONE = """
def fp16_product_alone(out, a, b):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * b[i]
"""

FP16_CASTS = """
def fp16_casts(ints, halves, h, i8, u8, i16, u32, i64, u64):
    i = cuda.grid(1)
    if i < h.size:
        x = h[i]
        ints[i, 0] = np.int8(x)
        ints[i, 1] = np.uint8(x)
        ints[i, 2] = np.int16(x)
        ints[i, 3] = np.uint16(x)
        ints[i, 4] = np.int32(x)
        ints[i, 5] = np.uint32(x)
        ints[i, 6] = np.int64(x)
        ints[i, 7] = np.uint64(x)
        ints[i, 8] = int(x)
        halves[i, 0] = np.float16(i8[i])
        halves[i, 1] = np.float16(u8[i])
        halves[i, 2] = np.float16(i16[i])
        halves[i, 3] = np.float16(u32[i])
        halves[i, 4] = np.float16(i64[i])
        halves[i, 5] = np.float16(u64[i])
"""
FP16_CAST_TYPES = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.int64)

MINMAX = """
def minmax(out, a, b):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = max(x, y)
        out[i, 1] = min(x, y)
        out[i, 2] = max(np.float32(x), np.float32(y))
        out[i, 3] = min(np.float32(x), np.float32(y))
        out[i, 4] = max(np.float32(x), y)
        out[i, 5] = max(x, y, y)
        out[i, 6] = min((x, y))
        out[i, 7] = min(x, 1)
"""

MINMAX_HALF = """
def minmax_half(out, h, g):
    i = cuda.grid(1)
    if i < h.size:
        out[i, 0] = max(h[i], g[i])
        out[i, 1] = min(h[i], g[i])
"""


def minmax_operands():
    """Every pair of NaN, infinities, signed zeros and a few values."""
    edge = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 2.5, 1e-310, 3e38]
    a = np.array([p for p in edge for _ in edge], np.float64)
    b = np.array([q for _ in edge for q in edge], np.float64)
    with np.errstate(all="ignore"):
        return a, b, a.astype(np.float16), b.astype(np.float16)


def ieee_max(x, y, is_max=True):
    """PTX's max / min (libdevice's fmax, fmin): a NaN operand gives the other; -0 orders below +0."""
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    if x == y == 0:
        neg = math.copysign(1, x) < 0 or math.copysign(1, y) < 0
        pos = math.copysign(1, x) > 0 or math.copysign(1, y) > 0
        return (0.0 if pos else -0.0) if is_max else (-0.0 if neg else 0.0)
    return max(x, y) if is_max else min(x, y)


def minmax_reference(a, b):
    """minmax's out: numba-cuda's max / min of exactly two float32 or float64 values is fmax / fmin (its cudaimpl);
    of three values, a tuple or a float beside an integer Python's algorithm."""
    rows = []
    with np.errstate(all="ignore"):
        for x, y in zip(a, b):
            x32, y32 = float(np.float32(x)), float(np.float32(y))
            rows.append([ieee_max(x, y), ieee_max(x, y, False), np.float32(ieee_max(x32, y32)),
                         np.float32(ieee_max(x32, y32, False)), ieee_max(x32, y), max(x, y, y), min((x, y)),
                         min(x, 1.0)])
    return np.array(rows, np.float64)


def minmax_half_reference(h, g):
    """minmax_half's out: float16's max / min is Python's algorithm (numba-cuda's do_minmax)."""
    return np.array([[max(p, q), min(p, q)] for p, q in zip(h, g)], np.float16)


def compile_source(cuda, src, name):
    fname = "<native-forms %s %s>" % (name, cuda.__name__)
    linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
    scope = {"cuda": cuda, "np": np, "math": math}
    exec(compile(src, fname, "exec"), scope)
    return cuda.jit(scope[name])


def half_operands(n=600, seed=5):
    """Pairs of float16 values: every pair of edge values (zeros, subnormals, the largest finite, infinities, NaN,
    values whose sum or product rounds) and random ones of several magnitudes."""
    edge = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 3.0, 65504.0, -65504.0, 6e-8, -6e-8, 6.1e-5, 1e-4, 1024.5,
            2049.0, 0.333, 255.5, 300.0, math.inf, -math.inf, math.nan]
    pairs = np.array([(p, q) for p in edge for q in edge], np.float64)
    rng = np.random.default_rng(seed)
    rand = rng.standard_normal((n, 2)) * (2.0 ** rng.integers(-14, 15, (n, 2)))
    with np.errstate(all="ignore"):
        v = np.concatenate([pairs, rand]).astype(np.float16)
    return np.ascontiguousarray(v[:, 0]), np.ascontiguousarray(v[:, 1])


def int8_operands(size, seed=6):
    return np.random.default_rng(seed).integers(-128, 128, size).astype(np.int8)


def fp16_arith_reference(a, b, n):
    """out (7 columns of float16) and flags (7 columns of bool) of fp16_arith (x * y + z contracted: one fma)."""
    with np.errstate(all="ignore"):
        fma = np.array([fused.fma(x, y, z, np.float16) for x, y, z in zip(a, b, b[::-1])], np.float16)
        out = np.stack([a + b, a - b, a * b, -a, np.abs(a), n.astype(np.float16), fma], axis=1)
        nh = n.astype(np.float16)
        flags = np.stack([a > b, a >= b, a < b, a <= b, a == b, a != b, a > nh], axis=1)
    return out, flags


def cast_half_to_int(x, t):
    """numba-cuda's cast of the float16 x to the NumPy integer type t: cvt.rni with saturation."""
    x = float(x)
    info = np.iinfo(t)
    if math.isnan(x):
        return t(0) if info.bits < 64 else np.array(2 ** 63, np.uint64).astype(t)
    r = round(x) if math.isfinite(x) else x  # Python's round: half to even
    r = min(max(r, info.min), info.max)
    return t(int(r))


def fp16_casts_reference(h, i8, u8, i16, u32, i64, u64):
    ints = np.array([[cast_half_to_int(x, t) for t in FP16_CAST_TYPES] for x in h], dtype=object)
    with np.errstate(all="ignore"):
        halves = np.stack([i8.astype(np.float16), u8.astype(np.float16), i16.astype(np.float16),
                           u32.astype(np.float16), np.array([int_to_half(int(v)) for v in i64], np.float16),
                           np.array([int_to_half(int(v)) for v in u64], np.float16)], axis=1)
    return ints, halves


def int_to_half(v):
    """The integer v rounded once to float16, to nearest even: from 65520 on infinity (NumPy would round a 64-bit
    integer to float64 first)."""
    if abs(v) >= 65520:
        return np.float16(math.copysign(math.inf, v))
    return np.float16(float(v))  # exact in float64, then one rounding


def same_bits(got, want):
    """Elementwise: the same value with the same sign, or both NaN (a NaN's payload and sign aside)."""
    got, want = np.asarray(got), np.asarray(want)
    return ((got == want) & (np.signbit(got) == np.signbit(want))) | (np.isnan(got) & np.isnan(want))
