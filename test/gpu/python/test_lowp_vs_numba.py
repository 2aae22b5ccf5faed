"""GPU-only: kfront against numba-cuda on the same kernels and inputs (run by test/gpu/run_python_gpu.sh on the GPU
machine, where both are installed): bfloat16 (cuda.bf16: conversions by every rounding mode, arithmetic, the
intrinsics, numba-cuda's typing, ml_dtypes.bfloat16 host arrays), cuda.fp16's conversions by a rounding mode (to
unsigned integers on NaN, negative values and overflow too) and its saturating / relu / unordered intrinsics,
cuda.libdevice's functions (sinpi ... remquo and the approximate fast_* among them) and int.bit_count(). The results must be numba-cuda's bit for bit (NaN: any
NaN; +0 and -0 alike where PTX's max/min leave the sign of a zero open), but where numba-cuda's bindings use
approximate instructions (hdiv's div.approx.f32, hsqrt's sqrt.approx.f32, hexp's ex2.approx.f32, ... : kfront rounds
the correctly rounded float32 result): there within one unit in the last place of the narrow type."""
import importlib
import linecache
import math
import os

import numba.cuda as ncuda  # the GPU machine has numba-cuda: missing, the suite fails (it is not skipped)
import numpy as np
import pytest

from kfront import cuda as kcuda

os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")


def submodule(cuda, name):
    mod = getattr(cuda, name, None)
    return mod if mod is not None else importlib.import_module(cuda.__name__ + "." + name)


def compile_both(src, name):
    kernels = []
    for module in (ncuda, kcuda):
        fname = "<vs-numba lowp %s %s>" % (name, module.__name__)
        linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
        scope = {"cuda": module, "np": np, "math": math, "bf16": submodule(module, "bf16"),
                 "fp16": submodule(module, "fp16"), "libdevice": submodule(module, "libdevice")}
        exec(compile(src, fname, "exec"), scope)
        kernels.append(module.jit(scope[name]))
    return kernels


def run_both(src, name, grid, block, make_args):
    """Runs the kernel compiled by numba-cuda and by kfront on fresh copies of the arguments; the outputs."""
    outs = []
    for k in compile_both(src, name):
        args = make_args()
        k[grid, block](*args)
        outs.append(args)
    return outs


def narrow_nan(bits, bf):
    bits = np.asarray(bits).astype(np.int64) & 0xFFFF
    return ((bits & 0x7F80) == 0x7F80) & ((bits & 0x7F) != 0) if bf else ((bits & 0x7C00) == 0x7C00) & ((bits & 0x3FF) != 0)


def rank16(bits):
    b = np.asarray(bits).astype(np.int64) & 0xFFFF
    return np.where(b < 0x8000, b + 0x8000, 0x10000 - b)


def assert_bits(got, want, bf=True, ulps=0, zero_sign=True, what=""):
    """16-bit float bits equal (NaN: both NaN), or within ulps; zero_sign False: +0 and -0 alike."""
    got, want = np.asarray(got), np.asarray(want)
    gn, wn = narrow_nan(got, bf), narrow_nan(want, bf)
    assert (gn == wn).all(), "%s: NaN at %s" % (what, np.nonzero(gn != wn)[0][:8])
    g, w = got[~gn].astype(np.int64) & 0xFFFF, want[~wn].astype(np.int64) & 0xFFFF
    if not zero_sign:
        g = np.where((g & 0x7FFF) == 0, 0, g)
        w = np.where((w & 0x7FFF) == 0, 0, w)
    d = np.abs(rank16(g) - rank16(w))
    assert (d <= ulps).all(), "%s: %s" % (what, [(hex(int(a)), hex(int(b))) for a, b in zip(g[d > ulps], w[d > ulps])][:8])


def f32_edges():
    b = [0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00008000, 0x00018000, 0x00010000, 0x00008001, 0x3F808000,
         0x3F818000, 0x3F808001, 0x3F80FFFF, 0x7F7FFFFF, 0x7F7F7FFF, 0x7F7F8000, 0xFF7F8000, 0x7F800000, 0xFF800000,
         0x7FC00000, 0x3FC90FDB, 0xC0490FDB, 0x00800000, 0x007FFFFF, 0x33800000, 0x7F7F7F7F, 0x477FF000, 0x477FE000,
         0x33000000, 0xB3000001]
    rng = np.random.default_rng(21)
    b += [int(v) for v in rng.integers(0, 2 ** 32, 99, dtype=np.uint64)]
    return np.array(b, np.uint32).view(np.float32)


# ---- bfloat16 ------------------------------------------------------------------------------------------------

BF16_CONVERT = """
def bf16_convert(x, d, n, u, out, ints):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = bf16.bfloat16_as_uint16(bf16.float32_to_bfloat16_rn(v))
        out[i, 1] = bf16.bfloat16_as_uint16(bf16.float32_to_bfloat16_rz(v))
        out[i, 2] = bf16.bfloat16_as_uint16(bf16.float32_to_bfloat16_rd(v))
        out[i, 3] = bf16.bfloat16_as_uint16(bf16.float32_to_bfloat16_ru(v))
        out[i, 4] = bf16.bfloat16_as_uint16(bf16.float64_to_bfloat16(d[i]))
        out[i, 5] = bf16.bfloat16_as_uint16(bf16.int64_to_bfloat16_rn(n[i]))
        out[i, 6] = bf16.bfloat16_as_uint16(bf16.int64_to_bfloat16_rd(n[i]))
        out[i, 7] = bf16.bfloat16_as_uint16(bf16.uint64_to_bfloat16_ru(u[i]))
        out[i, 8] = bf16.bfloat16_as_uint16(bf16.int32_to_bfloat16_rz(np.int32(n[i] >> 33)))
        out[i, 9] = bf16.bfloat16_as_uint16(bf16.uint16_to_bfloat16_ru(np.uint16(u[i] & 0xFFFF)))
        a = bf16.float32_to_bfloat16(v)
        ints[i, 0] = bf16.bfloat16_to_int32_rn(a)
        ints[i, 1] = bf16.bfloat16_to_int32_rz(a)
        ints[i, 2] = bf16.bfloat16_to_int32_rd(a)
        ints[i, 3] = bf16.bfloat16_to_int32_ru(a)
        ints[i, 4] = bf16.bfloat16_to_int64_rn(a)
        ints[i, 5] = bf16.bfloat16_to_uint64_ru(a)
        ints[i, 6] = bf16.bfloat16_to_int16_rd(a)
        ints[i, 7] = bf16.bfloat16_to_uint16_rz(a)
        ints[i, 8] = bf16.bfloat16_to_int8_rz(a)
        ints[i, 9] = bf16.bfloat16_to_uint8_rz(a)
        f = bf16.bfloat16_to_float32(a)
        ints[i, 10] = np.int64(f == v)
"""


def test_bfloat16_conversions_match_numba():
    x = f32_edges()
    rng = np.random.default_rng(4)
    d = np.concatenate([[1 + 2 ** -8 + 2 ** -40, -(1 + 2 ** -8 + 2 ** -60), 3.3961e38, 1e-300, 5e-324, 1e300, np.nan],
                        rng.standard_normal(x.size - 7) * 1e3])
    n = np.concatenate([[2 ** 53 + 1, -(2 ** 53 + 1), 2 ** 62 + 2 ** 39 + 1, -2 ** 63, 2 ** 63 - 1, 789, 0, -1],
                        rng.integers(-2 ** 62, 2 ** 62, x.size - 8)]).astype(np.int64)
    u = rng.integers(0, 2 ** 63, x.size, dtype=np.uint64) * np.uint64(2) + np.uint64(1)

    def args():
        return [x.copy(), d.copy(), n.copy(), u.copy(), np.zeros((x.size, 10), np.uint16), np.zeros((x.size, 11), np.int64)]
    (nb, kf) = run_both(BF16_CONVERT, "bf16_convert", 2, 64, args)
    for k in range(10):
        assert_bits(kf[4][:, k], nb[4][:, k], what="bf16 conversion %d" % k)
    np.testing.assert_array_equal(kf[5], nb[5])


BF16_ARITH = """
def bf16_arith(xb, yb, zb, out, flags):
    i = cuda.grid(1)
    if i < xb.size:
        x = bf16.uint16_as_bfloat16(xb[i])
        y = bf16.uint16_as_bfloat16(yb[i])
        z = bf16.uint16_as_bfloat16(zb[i])
        out[i, 0] = bf16.bfloat16_as_uint16(x + y)
        out[i, 1] = bf16.bfloat16_as_uint16(x - y)
        out[i, 2] = bf16.bfloat16_as_uint16(x * y)
        out[i, 3] = bf16.bfloat16_as_uint16(bf16.hfma(x, y, z))
        out[i, 4] = bf16.bfloat16_as_uint16(bf16.hadd_rn(x, y))
        out[i, 5] = bf16.bfloat16_as_uint16(bf16.hmul_rn(x, y))
        out[i, 6] = bf16.bfloat16_as_uint16(-x)
        out[i, 7] = bf16.bfloat16_as_uint16(bf16.habs(x))
        out[i, 8] = bf16.bfloat16_as_uint16(bf16.hmax(x, y))
        out[i, 9] = bf16.bfloat16_as_uint16(bf16.hmin(x, y))
        out[i, 10] = bf16.bfloat16_as_uint16(bf16.hmax_nan(x, y))
        out[i, 11] = bf16.bfloat16_as_uint16(bf16.hmin_nan(x, y))
        out[i, 12] = bf16.bfloat16_as_uint16(bf16.hadd_sat(x, y))
        out[i, 13] = bf16.bfloat16_as_uint16(bf16.hmul_sat(x, y))
        out[i, 14] = bf16.bfloat16_as_uint16(bf16.hfma_sat(x, y, z))
        out[i, 15] = bf16.bfloat16_as_uint16(bf16.hfma_relu(x, y, z))
        out[i, 16] = bf16.bfloat16_as_uint16(x / y)
        out[i, 17] = bf16.bfloat16_as_uint16(bf16.hsqrt(x))
        out[i, 18] = bf16.bfloat16_as_uint16(bf16.hexp(x))
        out[i, 19] = bf16.bfloat16_as_uint16(bf16.hsin(x))
        out[i, 20] = bf16.bfloat16_as_uint16(bf16.hlog2(x))
        out[i, 21] = bf16.bfloat16_as_uint16(bf16.hrcp(x))
        out[i, 22] = bf16.bfloat16_as_uint16(bf16.htrunc(x))
        out[i, 23] = bf16.bfloat16_as_uint16(bf16.hrint(x))
        out[i, 24] = bf16.bfloat16_as_uint16(math.floor(x))
        out[i, 25] = bf16.bfloat16_as_uint16(math.cos(x))
        flags[i, 0] = x < y
        flags[i, 1] = x == y
        flags[i, 2] = x != y
        flags[i, 3] = bf16.hequ(x, y)
        flags[i, 4] = bf16.hltu(x, y)
        flags[i, 5] = bf16.hge(x, y)
        flags[i, 6] = bf16.hisnan(x)
        flags[i, 7] = bf16.hisinf(x) != 0
"""


def bf16_bits(v):
    return (np.asarray(v, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def test_bfloat16_arithmetic_matches_numba():
    rng = np.random.default_rng(9)
    edge_x = [1.25, -2.5, 1.0, 3.0, 0.5, 1e38, -1e38, 3.3e38, 0.0, 1e-39, 9.2e-41, np.inf, -np.inf, np.nan, 1.0625, 1.0625]
    edge_y = [-2.5, 1.25, 2 ** -8, 3.0, 0.5, 1e38, 1e38, 3.3e38, 1.0, -1e-39, 9.2e-41, -np.inf, 1.0, 1.0, 1.0625, -1.0625]
    edge_z = [-2.5, 1.0, 1.0, -9.0, 0.25, -1e38, 1.0, 1.0, 0.0, 1e-39, -9.2e-41, 1.0, 1.0, 1.0, 2.0 ** -30, 2.0 ** -30]
    n = 240
    xb = bf16_bits(np.concatenate([edge_x, rng.standard_normal(n) * 10]))
    yb = bf16_bits(np.concatenate([edge_y, rng.standard_normal(n) * 10]))
    zb = bf16_bits(np.concatenate([edge_z, rng.standard_normal(n) * 100]))

    def args():
        return [xb.copy(), yb.copy(), zb.copy(), np.zeros((xb.size, 26), np.uint16), np.zeros((xb.size, 8), np.int32)]
    nb, kf = run_both(BF16_ARITH, "bf16_arith", 4, 64, args)
    for k in range(8):
        assert_bits(kf[3][:, k], nb[3][:, k], what="bf16 op %d" % k)
    for k in range(8, 16):  # max/min (a zero's sign), saturation and relu (max.bf16 of -0): values
        assert_bits(kf[3][:, k], nb[3][:, k], zero_sign=False, what="bf16 op %d" % k)
    for k in range(16, 22):  # numba-cuda's approximate div, sqrt, ex2, sin (through float32), lg2, rcp
        assert_bits(kf[3][:, k], nb[3][:, k], ulps=1, what="bf16 approx op %d" % k)
    for k in range(22, 25):
        assert_bits(kf[3][:, k], nb[3][:, k], what="bf16 op %d" % k)
    assert_bits(kf[3][:, 25], nb[3][:, 25], ulps=1, what="bf16 math.cos")
    np.testing.assert_array_equal(kf[4], nb[4])


BF16_TYPING = """
def bf16_typing(out):
    a = bf16.bfloat16(1.0)
    tiny = bf16.bfloat16(2.0 ** -8)
    out[0] = a + tiny
    out[1] = a + np.float32(2.0 ** -8)
    out[2] = a + 2.0 ** -8
    out[3] = a - bf16.bfloat16(0.5)  # (not a + np.int8(1): numba-cuda 0.30.4 types it but cannot lower it)
    out[4] = a * 3
    out[5] = bf16.bfloat16(3.7)
    out[6] = np.float32(bf16.bfloat16(-3.9))
    out[7] = np.int16(bf16.bfloat16(-3.9))
"""


def test_bfloat16_typing_matches_numba():
    nb, kf = run_both(BF16_TYPING, "bf16_typing", 1, 1, lambda: [np.zeros(8)])
    np.testing.assert_array_equal(kf[0], nb[0])


# ---- cuda.fp16 -----------------------------------------------------------------------------------------------

FP16_CONVERT = """
def fp16_convert(x, d, n, hb, out, ints):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = fp16.__half_as_ushort(fp16.__float2half_rn(x[i]))
        out[i, 1] = fp16.__half_as_ushort(fp16.__float2half_rz(x[i]))
        out[i, 2] = fp16.__half_as_ushort(fp16.__float2half_rd(x[i]))
        out[i, 3] = fp16.__half_as_ushort(fp16.__float2half_ru(x[i]))
        out[i, 4] = fp16.__half_as_ushort(fp16.__double2half(d[i]))
        out[i, 5] = fp16.__half_as_ushort(fp16.__ll2half_rd(n[i]))
        out[i, 6] = fp16.__half_as_ushort(fp16.__int2half_ru(np.int32(n[i] >> 40)))
        out[i, 7] = fp16.__half_as_ushort(fp16.__ushort2half_rz(np.uint16(n[i] & 0xFFFF)))
        h = fp16.__ushort_as_half(hb[i])
        g = fp16.__ushort_as_half(hb[hb.size - 1 - i])
        out[i, 8] = fp16.__half_as_ushort(fp16.__hadd_sat(h, g))
        out[i, 9] = fp16.__half_as_ushort(fp16.__hfma_relu(h, g, h))
        out[i, 10] = fp16.__half_as_ushort(fp16.__hsub_rn(h, g))
        ints[i, 0] = fp16.__half2int_rn(h)
        ints[i, 1] = fp16.__half2int_rz(h)
        ints[i, 2] = fp16.__half2int_rd(h)
        ints[i, 3] = fp16.__half2int_ru(h)
        ints[i, 4] = fp16.__half2ll_rn(h)
        ints[i, 5] = fp16.__half2ushort_ru(h)
        ints[i, 6] = fp16.__half2char_rz(h)
        ints[i, 7] = fp16.__half2uchar_rz(h)
        ints[i, 8] = fp16.__hequ(h, g)
        ints[i, 9] = fp16.__hgtu(h, g)
"""


def test_float16_conversions_match_numba():
    x = f32_edges()
    rng = np.random.default_rng(6)
    d = np.concatenate([[1 + 2 ** -11 + 2 ** -40, 65519.99999, 1e-300, -0.1, 6e-8], rng.standard_normal(x.size - 5) * 100])
    n = rng.integers(-2 ** 62, 2 ** 62, x.size).astype(np.int64)
    hvals = np.concatenate([[1.5, 2.5, -1.5, -0.5, 300.0, 65504.0, np.inf, -np.inf, np.nan, 0.0, -0.0, 6e-8, 255.5],
                            rng.standard_normal(x.size - 13) * 50]).astype(np.float16)
    hb = hvals.view(np.uint16)

    def args():
        return [x.copy(), d.copy(), n.copy(), hb.copy(), np.zeros((x.size, 11), np.uint16), np.zeros((x.size, 10), np.int64)]
    nb, kf = run_both(FP16_CONVERT, "fp16_convert", 2, 64, args)
    for k in range(11):
        assert_bits(kf[4][:, k], nb[4][:, k], bf=False, zero_sign=k not in (8, 9), what="fp16 %d" % k)
    np.testing.assert_array_equal(kf[5], nb[5])


# ---- cuda.libdevice and int.bit_count() -------------------------------------------------------------------------

LIBDEVICE = """
def libdev(x, n, out, iout):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = libdevice.sin(v)
        s, c = libdevice.sincos(v)
        out[i, 1] = s
        out[i, 2] = c
        m, e = libdevice.frexp(v)
        out[i, 3] = m
        iout[i, 0] = e
        fr, ip = libdevice.modf(v)
        out[i, 4] = fr
        out[i, 5] = ip
        out[i, 6] = libdevice.dadd_rd(v, 1e-20)
        out[i, 7] = libdevice.ddiv_ru(v, 3.0)
        out[i, 8] = libdevice.fmaf_rz(np.float32(v), np.float32(1.1), np.float32(1e-9))
        out[i, 9] = libdevice.double2float_ru(v)
        out[i, 10] = libdevice.erf(v)
        out[i, 11] = libdevice.cbrt(v)
        out[i, 12] = libdevice.ll2double_rd(n[i])
        out[i, 13] = libdevice.ull2float_ru(n[i])
        iout[i, 1] = libdevice.double2int_rd(v)
        iout[i, 2] = libdevice.float2ull_rn(np.float32(v))
        iout[i, 3] = libdevice.llrint(v)
        iout[i, 4] = libdevice.popcll(n[i])
        iout[i, 5] = libdevice.clzll(n[i])
        iout[i, 6] = libdevice.mul64hi(n[i], n[i] >> 3)
        iout[i, 7] = libdevice.byte_perm(np.int32(n[i]), np.int32(n[i] >> 32), np.int32(0x5140))
        iout[i, 8] = libdevice.mulhi(np.int32(n[i]), np.int32(n[i] >> 32))
        iout[i, 9] = libdevice.isnand(v)
        iout[i, 10] = libdevice.signbitd(v)
        iout[i, 11] = libdevice.ilogb(v)
        iout[i, 12] = n[i].bit_count()
        iout[i, 13] = np.uint16(n[i] & 0xFFFF).bit_count()
"""


def test_libdevice_and_bit_count_match_numba():
    rng = np.random.default_rng(12)
    x = np.concatenate([[0.5, -2.5, 3.0, 1e-300, -0.0, 0.0, 100.0, np.inf, -np.inf, np.nan, 1e300, 4e9, -7e18, 1e19],
                        rng.standard_normal(114) * 50])
    n = np.concatenate([[2 ** 53 + 1, -1, 0, -2 ** 63, 2 ** 63 - 1], rng.integers(-2 ** 62, 2 ** 62, x.size - 5)]).astype(np.int64)

    def args():
        return [x.copy(), n.copy(), np.zeros((x.size, 14)), np.zeros((x.size, 14), np.int64)]
    nb, kf = run_both(LIBDEVICE, "libdev", 2, 64, args)
    # both call libdevice: every result is the same bits (NaN: any NaN)
    a, b = kf[2], nb[2]
    same = (a.view(np.int64) == b.view(np.int64)) | (np.isnan(a) & np.isnan(b))
    assert same.all(), [(k, a[np.nonzero(~same[:, k])[0][:3], k], b[np.nonzero(~same[:, k])[0][:3], k])
                        for k in range(a.shape[1]) if not same[:, k].all()]
    np.testing.assert_array_equal(kf[3], nb[3])


LIBDEVICE_NO_HOST = """
def libdev_more(x, y, out, iout, fout):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        f = np.float32(v)
        out[i, 0] = libdevice.sinpi(v)
        out[i, 1] = libdevice.cospi(v)
        s, c = libdevice.sincospi(v)
        out[i, 2] = s
        out[i, 3] = c
        out[i, 4] = libdevice.erfinv(y[i])
        out[i, 5] = libdevice.erfcinv(y[i] + 1.0)
        out[i, 6] = libdevice.normcdfinv(y[i] * 0.5 + 0.5)
        out[i, 7] = libdevice.erfcx(v)
        r, q = libdevice.remquo(v, y[i])
        out[i, 8] = r
        iout[i, 0] = q
        rf, qf = libdevice.remquof(f, np.float32(y[i]))
        fout[i, 0] = rf
        iout[i, 1] = qf
        fout[i, 1] = libdevice.sinpif(f)
        fout[i, 2] = libdevice.cospif(f)
        fout[i, 3] = libdevice.erfinvf(np.float32(y[i]))
        fout[i, 4] = libdevice.erfcxf(f)
        fout[i, 5] = libdevice.fast_expf(f)
        fout[i, 6] = libdevice.fast_logf(f)
        fout[i, 7] = libdevice.fast_sinf(f)
        s2, c2 = libdevice.fast_sincosf(f)
        fout[i, 8] = c2
        fout[i, 9] = libdevice.fast_tanf(f)
        fout[i, 10] = libdevice.fast_powf(f, np.float32(y[i]))
        fout[i, 11] = libdevice.fast_fdividef(f, np.float32(y[i]))
        fout[i, 12] = libdevice.fast_exp10f(f)
        fout[i, 13] = libdevice.fast_log2f(f)
        fout[i, 14] = libdevice.fast_log10f(f)
"""


def test_libdevice_functions_no_host_has_match_numba():
    """sinpi ... remquo and the approximate fast_* functions: kfront's GPU kernel calls libdevice as numba-cuda's
    does, so the bits are numba-cuda's (the simulator's values for these are checked against mpmath and against
    the GPU within libdevice's bounds by python/tests/test_libdevice.py and test/gpu/backend_gpu.c)"""
    rng = np.random.default_rng(13)
    x = np.concatenate([[0.5, -2.5, 3.0, 1e-300, -0.0, 0.0, 100.0, np.inf, -np.inf, np.nan, 1e300, 4e9, -30.0, 1.25],
                        rng.standard_normal(114) * 20])
    y = np.concatenate([[0.5, -0.5, 0.999, -1.0, 1.0, 0.0, -0.0, 0.375, np.nan, 2.0, 1e-300, -0.1, 0.75, 1e-20],
                        rng.uniform(-1, 1, 114)])

    def args():
        return [x.copy(), y.copy(), np.zeros((x.size, 9)), np.zeros((x.size, 2), np.int64),
                np.zeros((x.size, 15), np.float32)]
    nb, kf = run_both(LIBDEVICE_NO_HOST, "libdev_more", 2, 64, args)
    for a, b, wide in ((kf[2], nb[2], np.int64), (kf[4], nb[4], np.int32)):
        same = (a.view(wide) == b.view(wide)) | (np.isnan(a) & np.isnan(b))
        assert same.all(), [(k, a[np.nonzero(~same[:, k])[0][:3], k], b[np.nonzero(~same[:, k])[0][:3], k])
                            for k in range(a.shape[1]) if not same[:, k].all()]
    np.testing.assert_array_equal(kf[3], nb[3])


TO_UNSIGNED = """
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
        ints[k, 17] = bf16.bfloat16_to_uint16_rn(b)
        ints[k, 18] = bf16.bfloat16_to_uint32_ru(b)
"""


def test_conversions_to_unsigned_match_numba():
    """__half2ushort_* / __half2uint_* / __half2ull_* / __half2uchar_rz and bfloat16's to unsigned integers on NaN,
    negative values, past the maximum and +-inf: PTX's cvt.r?i.u16/u32/u64/u8 as numba-cuda's bindings emit them,
    against kfront's saturating conversions (NaN 0, but 1 << 63 to 64 bits)"""
    vals = [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, -0.4, -0.5, -0.6, -1.5, -300.0, 0.5, 1.5, 2.5, 255.5, 256.0,
            65504.0, -65504.0, 6e-8, 0.99] + list(np.random.default_rng(7).standard_normal(44) * 300)
    hb = np.array(vals, np.float16).view(np.uint16)
    bb = (np.array(vals[:60] + [3.0e38, 65536.0, 1e20, 5e9], np.float32).view(np.uint32) >> 16).astype(np.uint16)

    def args():
        return [hb.copy(), bb.copy(), np.zeros((len(vals), 19), np.uint64)]
    nb, kf = run_both(TO_UNSIGNED, "to_unsigned", 1, 64, args)
    np.testing.assert_array_equal(kf[2], nb[2])


BF16_ARRAYS = """
def bf16_arrays(a, out, widened):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * bf16.bfloat16(3.0) + a[a.size - 1 - i]
        widened[i] = np.float32(a[i])
"""


def test_bfloat16_host_arrays_match_numba():
    """ml_dtypes.bfloat16 arrays as kernel arguments: kfront takes the NumPy arrays themselves (copied in and back).
    numba-cuda 0.30.4 types them bfloat16 (numba/cuda/np/numpy_support.py) but cannot copy them (on the H200, a host
    array raises cuda.core's DLPack BufferError and cuda.to_device "cannot include dtype 'E' in a buffer"): its
    device arrays of bfloat16, filled and read through uint16 views, run the same kernel"""
    import ml_dtypes
    bf = ml_dtypes.bfloat16
    rng = np.random.default_rng(17)
    a = np.concatenate([[1.5, -2.25, 3.0, 1e30, -0.0, np.inf, 0.1, 255.0], rng.standard_normal(120) * 100]).astype(bf)
    nbk, kfk = compile_both(BF16_ARRAYS, "bf16_arrays")
    kf = [a.copy(), np.zeros(a.size, bf), np.zeros(a.size, np.float32)]
    kfk[2, 64](*kf)
    d_a, d_out = ncuda.device_array(a.size, bf), ncuda.device_array(a.size, bf)
    d_a.view(np.uint16).copy_to_device(a.view(np.uint16))
    d_out.view(np.uint16).copy_to_device(np.zeros(a.size, np.uint16))
    d_wide = ncuda.to_device(np.zeros(a.size, np.float32))
    nbk[2, 64](d_a, d_out, d_wide)
    assert_bits(kf[1].view(np.uint16), d_out.view(np.uint16).copy_to_host(), what="bf16 arrays")
    np.testing.assert_array_equal(kf[2].view(np.uint32), d_wide.copy_to_host().view(np.uint32))
    with pytest.raises((ValueError, BufferError)):  # what kfront adds over numba-cuda 0.30.4
        ncuda.to_device(a)
