"""The numeric breadth of kernels on the simulator (the GPU run of this suite checks the same), against NumPy
and Python: math.frexp / ldexp / modf / remainder, cuda.fma / cbrt / selp, and NumPy's ufuncs called with
scalar arguments, typed as numba-cuda types them (NumPy's loop order, no float16 loops, any integer to any
float when integers and floats are mixed), over edge values (zeros of both signs, infinities, NaN, subnormals,
the largest values, the integer extremes). Results are compared bit for bit, but for the libm functions
(host libm on the simulator, libdevice on the GPU, NumPy's own SIMD code for the reference): within a few
units in the last place. Unsupported forms raise a located error (TypingError, UnsupportedError)."""
import importlib.util
import math
import sys
from fractions import Fraction
from math import nextafter

import numpy as np

import fused  # contracted references (x * y + z as one fma)
import pytest

from kfront import cuda, errors

F64 = np.array([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -3.5, 7.0, 0.3, -2.0, 1e-310, 5e-324, -1e-300, 1e300, 1.7e308,
                -1.7e308, np.inf, -np.inf, np.nan, 3.0, 100.0, -7.25, 0.1])
F32 = np.array([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -3.5, 7.0, 0.3, -2.0, 1e-40, 1e-45, -1e-30, 1e30, 3.4e38,
                -3.4e38, np.inf, -np.inf, np.nan, 3.0, 100.0, -7.25, 0.1], dtype=np.float32)
INTS = [0, 1, -1, 2, -3, 7, 100, -128, 127, 5, -7, 3, 64, 63, 31, -2]


def int_values(dt):
    info = np.iinfo(dt)
    v = [x for x in INTS if info.min <= x <= info.max] + [info.min, info.max, info.min + 1, info.max - 1]
    return np.array(v[:24], dtype=dt)


def values(dt):
    dt = np.dtype(dt)
    if dt == np.float64:
        return F64.copy()
    if dt == np.float32:
        return F32.copy()
    if dt == np.bool_:
        return np.arange(24) % 3 == 0
    return int_values(dt)


def ulps(a, b):
    """Distance in units in the last place, elementwise (0 for two NaNs, inf for NaN against a number)."""
    a = np.asarray(a)
    b = np.asarray(b)
    out = np.zeros(a.shape)
    for i, (x, y) in enumerate(zip(a.ravel(), b.ravel())):
        if np.isnan(x) or np.isnan(y):
            out[i] = 0 if np.isnan(x) and np.isnan(y) else np.inf
        elif x == y:
            out[i] = 0 if (np.signbit(x) == np.signbit(y) or x != 0) else 1
        else:
            it = np.int64 if a.dtype == np.float64 else np.int32
            ix, iy = int(np.array(x, a.dtype).view(it)), int(np.array(y, a.dtype).view(it))
            top = -(1 << (a.dtype.itemsize * 8 - 1))
            ix = top - ix if ix < 0 else ix
            iy = top - iy if iy < 0 else iy
            out[i] = abs(ix - iy)
    return out


def assert_same(got, want, tol_ulps=0, what=""):
    assert got.dtype == want.dtype, what
    if got.dtype.kind == "f":
        d = ulps(got, want)
        bad = np.nonzero(d > tol_ulps)[0]
        assert bad.size == 0, f"{what}: at {bad[:5]} got {got[bad[:5]]} want {want[bad[:5]]} ({d[bad[:5]]} ulps)"
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


# ---- math and cuda intrinsics --------------------------------------------------------------------------------------

@cuda.jit
def math_more(x, out, e):
    i = cuda.grid(1)
    if i < x.size:
        m, ex = math.frexp(x[i])
        out[i, 0] = m
        e[i] = ex
        fr, ip = math.modf(x[i])
        out[i, 1] = fr
        out[i, 2] = ip
        out[i, 3] = math.ldexp(x[i], 3)
        out[i, 4] = math.ldexp(x[i], -1074)
        out[i, 5] = math.remainder(x[i], 1.5)
        out[i, 6] = math.remainder(x[i], x[(i + 1) % x.size])


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_math_frexp_ldexp_modf_remainder(dt):
    x = values(dt)
    out = np.zeros((x.size, 7), dtype=dt)
    e = np.zeros(x.size, dtype=np.int32)
    math_more[1, 32](x, out, e)
    for i, v in enumerate(x):
        fv = float(v)
        if math.isfinite(fv):
            m, ex = math.frexp(fv)
        else:
            m, ex = fv, 0
        with np.errstate(all="ignore"):
            want = [m, *math.modf(fv), np.ldexp(v, 3), np.ldexp(v, -1074)]  # each rounded once in dt
        y = float(x[(i + 1) % x.size])
        for d in (1.5, y):
            ok = math.isfinite(fv) and d != 0 and not math.isnan(d)
            want.append(math.remainder(fv, d) if ok else (fv if math.isfinite(fv) and math.isinf(d) else math.nan))
        want = np.array(want).astype(dt)  # exact values (ldexp's already rounded in dt)
        assert_same(out[i], want, 0, f"x = {v!r}")
        assert e[i] == ex, f"frexp({v!r}) exponent"


@cuda.jit
def nextafter_tanh16(x, out, h, hout):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = math.nextafter(x[i], x[(i + 1) % x.size])
        out[i, 1] = nextafter(x[i], -x[i])  # from math import nextafter
    if i < h.size:
        hout[i] = math.tanh(h[i])  # numba-cuda's float16 overload: float16 in, float16 out


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_math_nextafter_and_float16_tanh(dt):
    x = values(dt)
    out = np.zeros((x.size, 2), dtype=dt)
    h = np.array([0.5, -2.0, 0.0, -0.0, 10.0, np.inf, -np.inf, np.nan, 6e-8, 1e-3], dtype=np.float16)
    hout = np.zeros(h.size, dtype=np.float16)
    nextafter_tanh16[1, 64](x, out, h, hout)
    assert_same(out[:, 0], np.nextafter(x, np.roll(x, -1)), 0, "math.nextafter")
    assert_same(out[:, 1], np.nextafter(x, -x), 0, "from math import nextafter")
    assert_same(hout, np.tanh(h.astype(np.float32)).astype(np.float16), 1, "math.tanh(float16)")


@cuda.jit
def intrinsics(x, y, z, out, bits, sel):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = cuda.fma(x[i], y[i], z[i])
        out[i, 1] = cuda.cbrt(x[i])
        out[i, 2] = cuda.selp(x[i] > y[i], x[i], y[i])
        b = bits[i]
        sel[i, 0] = cuda.popc(b)
        sel[i, 1] = cuda.clz(b)
        sel[i, 2] = cuda.ffs(b)
        sel[i, 3] = cuda.brev(b)


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_cuda_fma_cbrt_selp_bits(dt):
    rng = np.random.default_rng(7)
    x = np.concatenate([values(dt), (rng.standard_normal(40) * 100).astype(dt)])
    y = np.roll(x, 3)
    z = np.roll(x, 7)
    bits = rng.integers(0, 2**32, x.size, dtype=np.uint64).astype(np.uint32)
    bits[:3] = [0, 1, 0xFFFFFFFF]
    out = np.zeros((x.size, 3), dtype=dt)
    sel = np.zeros((x.size, 4), dtype=np.uint32)
    intrinsics[2, 32](x, y, z, out, bits, sel)
    for i in range(x.size):
        a, b, c = float(x[i]), float(y[i]), float(z[i])
        if all(map(math.isfinite, (a, b, c))):
            exact = Fraction(a) * Fraction(b) + Fraction(c)
            # the exact value rounded once to dt (through float64 only where that is exact for f32 too)
            want = np.array(float(exact), dtype=dt) if dt == np.float64 else np.float32(float(exact))
            if dt == np.float64 or Fraction(float(exact)) == exact:
                assert_same(out[i, 0:1], np.array([want], dtype=dt), 0, f"fma{(a, b, c)}")
        else:
            assert_same(out[i, 0:1], np.array([a * b + c], dtype=dt), 0, f"fma{(a, b, c)}")
    assert_same(out[:, 1], np.cbrt(x), 2, "cbrt")
    assert_same(out[:, 2], np.where(x > y, x, y), 0, "selp")
    bb = [int(v) for v in bits]
    np.testing.assert_array_equal(sel[:, 0], [bin(v).count("1") for v in bb])
    np.testing.assert_array_equal(sel[:, 1], [32 - v.bit_length() for v in bb])
    np.testing.assert_array_equal(sel[:, 2], [(v & -v).bit_length() for v in bb])
    np.testing.assert_array_equal(sel[:, 3], [int(f"{v:032b}"[::-1], 2) for v in bb])


# ---- NumPy ufuncs with scalar arguments -------------------------------------------------------------------------------

UNARY = ["negative", "positive", "absolute", "sign", "rint", "exp", "exp2", "log", "log2", "log10", "expm1", "log1p",
         "sqrt", "square", "cbrt", "reciprocal", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh",
         "tanh", "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg", "degrees", "radians", "floor", "ceil", "trunc",
         "fabs", "isnan", "isinf", "isfinite", "signbit", "spacing", "logical_not", "invert", "conjugate", "abs",
         "bitwise_not"]
BINARY = ["add", "subtract", "multiply", "true_divide", "divide", "floor_divide", "remainder", "mod", "fmod",
          "logaddexp", "logaddexp2", "power", "float_power", "arctan2", "hypot", "copysign", "nextafter", "greater",
          "greater_equal", "less", "less_equal", "equal", "not_equal", "logical_and", "logical_or", "logical_xor",
          "maximum", "minimum", "fmax", "fmin", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
          "right_shift", "ldexp", "gcd", "lcm"]
# host libm (simulator) / libdevice (GPU) against NumPy's own code: a few ulps
LIBM = {"exp", "exp2", "log", "log2", "log10", "expm1", "log1p", "cbrt", "sin", "cos", "tan", "arcsin", "arccos",
        "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "logaddexp", "logaddexp2", "power",
        "float_power", "arctan2", "hypot"}
LETTERS = "?bBhHiIlLqQfd"


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    """One kernel per ufunc, `out[i] = np.<name>(x[i], ...)`, in a module written for the occasion."""
    src = ["import numpy as np", "from kfront import cuda", ""]
    for n in UNARY:
        src += ["@cuda.jit", f"def k_{n}(x, out):", "    i = cuda.grid(1)", "    if i < x.size:",
                f"        out[i] = np.{n}(x[i])", ""]
    for n in BINARY:
        src += ["@cuda.jit", f"def k_{n}(x, y, out):", "    i = cuda.grid(1)", "    if i < x.size:",
                f"        out[i] = np.{n}(x[i], y[i])", ""]
    src += ["@cuda.jit", "def k_divmod(x, y, q, r):", "    i = cuda.grid(1)", "    if i < x.size:",
            "        q[i], r[i] = np.divmod(x[i], y[i])", ""]
    path = tmp_path_factory.mktemp("ufuncs") / "ufunc_kernels.py"
    path.write_text("\n".join(src))
    spec = importlib.util.spec_from_file_location("ufunc_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["ufunc_kernels"] = mod
    spec.loader.exec_module(mod)
    return mod


def numba_loop(uf, dtypes):
    """The loop numba-cuda picks: NumPy's order, float16 (and other) loops skipped, inputs cast safely (any
    integer to any float when integers and floats are mixed)."""
    mixed = any(np.dtype(d).kind in "iu" for d in dtypes) and any(np.dtype(d).kind == "f" for d in dtypes)
    for loop in uf.types:
        ins, outs = loop.split("->")
        if any(c not in LETTERS for c in ins + outs):
            continue
        if all((mixed and np.dtype(d).kind in "iu" and np.dtype(c).kind == "f") or np.can_cast(d, c, "safe")
               for d, c in zip(dtypes, ins)):
            return [np.dtype(c) for c in ins], [np.dtype(c) for c in outs]
    return None


def check_ufunc(kernels, name, dtypes):
    uf = getattr(np, name)
    loop = numba_loop(uf, dtypes)
    assert loop, (name, dtypes)
    ins, outs = loop
    args = [values(d) for d in dtypes]
    n = min(a.size for a in args)
    args = [a[:n] for a in args]
    if len(args) == 2:
        args[1] = args[1][::-1].copy()
        if name == "ldexp":
            args[1] = (np.arange(args[0].size) - 12).astype(dtypes[1])
        if name in ("power",) and ins[1].kind in "iu":
            args[1] = np.abs(args[1].astype(np.int64)).astype(dtypes[1]) % 9  # NumPy refuses negative powers
        if name in ("left_shift", "right_shift"):
            args[1] = (np.abs(args[1].astype(np.int64)) % ins[1].itemsize).astype(dtypes[1])
    if name == "reciprocal" and ins[0].kind in "iub":
        args[0] = np.where(args[0] == 0, 3, args[0]).astype(dtypes[0])  # 1 // 0: NumPy's is the host's cast
    with np.errstate(all="ignore"):
        want = uf(*[a.astype(c) for a, c in zip(args, ins)], dtype=outs[0] if len(outs) == 1 else None)
    out = np.zeros(args[0].size, dtype=outs[0])
    getattr(kernels, "k_" + name)[1, 32](*args, out)
    assert_same(out, np.asarray(want, dtype=outs[0]), 4 if name in LIBM else 0, f"np.{name}{tuple(map(str, dtypes))}")


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int64, np.int32, np.uint16, np.bool_])
def test_unary_ufuncs(kernels, name, dt):
    if numba_loop(getattr(np, name), [dt]) is None:
        pytest.skip(f"NumPy has no loop of np.{name} for {np.dtype(dt)}")
    check_ufunc(kernels, name, [dt])


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dts", [(np.float64, np.float64), (np.float32, np.float32), (np.int64, np.int64),
                                 (np.int32, np.int32), (np.uint32, np.uint32), (np.bool_, np.bool_),
                                 (np.int32, np.float32), (np.int64, np.uint64), (np.int8, np.uint8)])
def test_binary_ufuncs(kernels, name, dts):
    if name == "ldexp":
        dts = (dts[0], np.int32) if np.dtype(dts[0]).kind == "f" else dts
    if numba_loop(getattr(np, name), list(dts)) is None:
        pytest.skip(f"NumPy has no loop of np.{name} for {dts}")
    check_ufunc(kernels, name, list(dts))


@pytest.mark.parametrize("dt", [np.float64, np.int32, np.uint8])
def test_divmod_ufunc(kernels, dt):
    x = values(dt)
    y = x[::-1].copy()
    q = np.zeros(x.size, dtype=dt)
    r = np.zeros(x.size, dtype=dt)
    kernels.k_divmod[1, 32](x, y, q, r)
    with np.errstate(all="ignore"):
        wq, wr = np.divmod(x, y)
    assert_same(q, wq, 0, "quotient")
    assert_same(r, wr, 0, "remainder")


# ---- NumPy ufuncs over arrays, with their outputs given ----------------------------------------------------------

@cuda.jit
def ufunc_arrays(x, y, out, s, q, r):
    np.add(x, y, out)                 # (3, 4) + (4,): broadcast
    np.sin(x, s)                      # float64 -> float32 output ('same_kind')
    np.divmod(x, 2.5, q, r)           # a scalar input, two outputs


@cuda.jit
def ufunc_rows(m, out):
    i = cuda.grid(1)
    if i < m.shape[0]:
        np.multiply(m[i], m[i], out[i])  # views: one row per thread


def test_ufuncs_over_arrays():
    x = np.arange(-6, 6, dtype=np.float64).reshape(3, 4)
    y = np.array([0.5, -1.0, 2.0, np.nan])
    out = np.zeros((3, 4))
    s = np.zeros((3, 4), dtype=np.float32)
    q = np.zeros((3, 4))
    r = np.zeros((3, 4))
    ufunc_arrays[1, 1](x, y, out, s, q, r)
    np.testing.assert_array_equal(out, x + y)
    assert_same(s.ravel(), np.sin(x).astype(np.float32).ravel(), 1, "sin into float32")
    wq, wr = np.divmod(x, 2.5)
    np.testing.assert_array_equal(q, wq)
    np.testing.assert_array_equal(r, wr)
    m = np.arange(20, dtype=np.int32).reshape(4, 5)
    o = np.zeros((4, 5), dtype=np.int64)
    ufunc_rows[1, 8](m, o)
    np.testing.assert_array_equal(o, m * m)
    # shapes that do not broadcast: an IndexError at the call, and the module keeps working
    with pytest.raises(IndexError):
        ufunc_arrays[1, 1](x, np.zeros(3), out, s, q, r)
    ufunc_rows[1, 8](m, o)


@cuda.jit
def rounding(x, n, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = round(x[i], n[i])


def round_ndigits(x, n):
    """numba-cuda's round(x, ndigits): CPython's fallback double_round, in float64."""
    if math.isinf(x) or math.isnan(x):
        return x
    if n >= 0:
        pow1, pow2 = (10.0 ** (n - 22), 1e22) if n > 22 else (10.0 ** n, 1.0)
        try:
            y = (x * pow1) * pow2
        except OverflowError:
            return x
        if math.isinf(y):
            return x
        return (round(y) / pow2) / pow1
    pow1 = 10.0 ** -n if -n <= 308 else math.inf
    y = x / pow1
    z = float(round(y)) if math.isfinite(y) else y
    return z * pow1


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_round_ndigits(dt):
    with np.errstate(over="ignore"):  # 1e300 as a float32: infinite
        x = np.array([2.675, 1.5, 2.5, -2.5, 0.125, 123456.789, 1e300, -1e-300, np.inf, np.nan, 1.005, 0.5, 12345.0,
                      3.14159, 1e-20, 7.0], dtype=dt)
    n = np.array([2, 0, 0, 0, 2, -2, 2, 5, 1, 1, 2, 0, -3, 30, 25, -3])
    out = np.zeros_like(x)
    rounding[1, 32](x, n, out)
    with np.errstate(all="ignore"):
        want = np.array([round_ndigits(float(a), int(k)) for a, k in zip(x, n)]).astype(dt)
    assert_same(out, want, 0, "round(x, n)")
    # where the fallback agrees with CPython's correctly rounded round()
    assert out[1] == 2.0 and out[2] == 2.0 and out[3] == -2.0 and out[12] == 12000.0


@cuda.jit
def nan_atomics(a, b, v, old):
    i = cuda.grid(1)
    if i < v.size:
        old[i, 0] = cuda.atomic.nanmax(a, i, v[i])
        old[i, 1] = cuda.atomic.nanmin(b, i, v[i])


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int32, np.uint64])
def test_atomic_nanmin_nanmax(dt):
    if np.dtype(dt).kind == "f":
        a = np.array([1.0, np.nan, 3.0, np.nan, 2.0, -0.0], dtype=dt)
        v = np.array([2.0, 5.0, np.nan, np.nan, 1.0, 0.0], dtype=dt)
    else:
        a = np.array([1, 5, 3, 0, 9, 7], dtype=dt)
        v = np.array([4, 2, 3, 1, 0, 8], dtype=dt)
    b = a.copy()
    old = np.zeros((a.size, 2), dtype=dt)
    nan_atomics[1, 8](a, b, v, old)
    a0 = old[:, 0]
    # NaN is a missing value: a NaN value keeps the old one, a NaN old value is replaced
    np.testing.assert_array_equal(a, np.fmax(a0, v))
    np.testing.assert_array_equal(b, np.fmin(old[:, 1], v))
    np.testing.assert_array_equal(old[:, 0], old[:, 1])


# ---- float16: cuda.fp16's intrinsics and float16 arithmetic ---------------------------------------------------------

@cuda.jit
def half(a, b, c, out, flags):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = cuda.fp16.hadd(x, y)
        out[i, 1] = cuda.fp16.hsub(x, y)
        out[i, 2] = cuda.fp16.hmul(x, y)
        out[i, 3] = cuda.fp16.hdiv(x, y)
        out[i, 4] = cuda.fp16.hfma(x, y, c[i])
        out[i, 5] = cuda.fp16.hneg(x)
        out[i, 6] = cuda.fp16.habs(x)
        out[i, 7] = cuda.fp16.hmax(x, y)
        out[i, 8] = cuda.fp16.hmin(x, y)
        out[i, 9] = cuda.fp16.hsqrt(x)
        out[i, 10] = cuda.fp16.hfloor(x)
        out[i, 11] = cuda.fp16.hrint(x)
        out[i, 12] = cuda.fp16.hsin(x)
        out[i, 13] = cuda.fp16.hexp(x)
        out[i, 14] = x * y + c[i]      # float16 operators (numba-cuda's float16 templates)
        out[i, 15] = math.sqrt(x)      # math.* of a float16 is float16
        flags[i, 0] = cuda.fp16.hlt(x, y)
        flags[i, 1] = cuda.fp16.heq(x, y)
        flags[i, 2] = cuda.fp16.hge(x, y)
        flags[i, 3] = cuda.fp16.hisnan(x)
        flags[i, 4] = cuda.fp16.hisinf(x)


def test_float16():
    rng = np.random.default_rng(3)
    edge = [1.5, -2.25, 0.1, 65504, np.nan, np.inf, -np.inf, 4.0, -0.0, 6e-8, 1e-4, 0.5]
    a = np.concatenate([edge, rng.standard_normal(52) * 4]).astype(np.float16)
    b = np.concatenate([[2.0, 3.0, -0.1, 2.0, 1.0, 1.0, 2.0, np.nan, 0.0, 1e-4, -6e-8, 0.5],
                        rng.standard_normal(52)]).astype(np.float16)
    c = rng.standard_normal(a.size).astype(np.float16)
    out = np.zeros((a.size, 16), dtype=np.float16)
    flags = np.zeros((a.size, 5), dtype=np.int32)
    half[2, 32](a, b, c, out, flags)
    a64, b64, c64 = (v.astype(np.float64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        fma16 = np.array([fused.fma(x, y, z, np.float16) for x, y, z in zip(a, b, c)], np.float16)
        exact = [a + b, a - b, a * b, a / b, fma16, -a, np.abs(a), np.fmax(a, b),
                 np.fmin(a, b), np.sqrt(a), np.floor(a), np.rint(a)]
        for k, want in enumerate(exact):
            assert_same(out[:, k].astype(np.float64), np.asarray(want, dtype=np.float16).astype(np.float64), 0, f"column {k}")
        # sin and exp: float32 libm / libdevice rounded to float16 (the GPU's approximations: within an ulp)
        for k, f in ((12, np.sin), (13, np.exp)):
            want = f(a.astype(np.float32)).astype(np.float16)
            d = np.abs(out[:, k].view(np.int16).astype(np.int64) - want.view(np.int16).astype(np.int64))
            assert ((d <= 1) | (np.isnan(out[:, k]) & np.isnan(want))).all(), k
        # x * y + c is contracted (passes/contract.c): one rounding, as hfma; the values include products where two
        # roundings differ from one
        assert_same(out[:, 14].astype(np.float64), fma16.astype(np.float64), 0, "x * y + c")
        assert ((a * b).astype(np.float16) + c != fma16).any()
        assert_same(out[:, 15].astype(np.float64), np.sqrt(a).astype(np.float64), 0, "math.sqrt")
    np.testing.assert_array_equal(flags[:, 0], a < b)
    np.testing.assert_array_equal(flags[:, 1], a == b)
    np.testing.assert_array_equal(flags[:, 2], a >= b)
    np.testing.assert_array_equal(flags[:, 3], np.isnan(a))
    np.testing.assert_array_equal(flags[:, 4], np.where(np.isinf(a), np.sign(a), 0))


@cuda.jit
def ufunc_types(out):
    # np.sin of an int64 is float64; of a float32, float32; np.add(int32, float32) computes in float32;
    # np.greater of int64 and uint64 compares the values (NumPy's qQ loop)
    out[0] = np.sin(np.float32(1.0)) == np.float32(np.sin(np.float32(1.0)))
    out[1] = np.add(np.int32(16777217), np.float32(0.0)) == np.float32(16777216.0)
    out[2] = np.greater(np.int64(-1), np.uint64(18446744073709551615))
    out[3] = np.less(np.int64(-1), np.uint64(0))


def test_ufunc_typing():
    out = np.zeros(4, dtype=np.bool_)
    ufunc_types[1, 1](out)
    assert out.tolist() == [True, True, False, True]


@cuda.jit
def unsupported_frexp(x):
    m, e = np.frexp(x[0])
    x[0] = m


@cuda.jit
def ufunc_no_out(x, out):
    out[0] = np.sin(x)[0]


@cuda.jit
def ufunc_bad_cast(x, out):
    np.sin(x, out)


@cuda.jit
def selp_mismatch(x, y):
    x[0] = cuda.selp(x[0] > 0, x[0], y[0])


def test_unsupported_forms_are_located_errors():
    x = np.zeros(4)
    with pytest.raises(errors.UnsupportedError, match=r"numpy.frexp\(\) is not supported in kernels") as e:
        unsupported_frexp[1, 1](x)
    assert e.value.file.endswith("test_numeric.py") and e.value.line > 0 and "^" in str(e.value)
    with pytest.raises(errors.CompilerError, match=r"numpy.sin\(\) of arrays needs its output array"):
        ufunc_no_out[1, 1](x, x)
    with pytest.raises(errors.CompilerError, match=r"cannot be stored to an array of int32 \(casting 'same_kind'\)"):
        ufunc_bad_cast[1, 1](x, np.zeros(4, dtype=np.int32))
    with pytest.raises(errors.TypingError, match=r"no implementation of cuda.selp\(\)"):
        selp_mismatch[1, 1](x, np.zeros(4, dtype=np.float32))
    # the module stays usable
    out = np.zeros(4, dtype=np.bool_)
    ufunc_types[1, 1](out)
    assert out.all() == False  # noqa: E712 (element 2 is False)


# ---- int.bit_count() (numba-cuda: cuda.popc of the integer, its type) ---------------------------------------------

@cuda.jit
def bit_count(out, a, b, c, d):
    out[0] = a.bit_count()
    out[1] = b.bit_count()
    out[2] = c.bit_count()
    out[3] = d.bit_count()
    out[4] = (a & 0xF).bit_count()


def test_int_bit_count():
    out = np.zeros(5, np.int64)
    bit_count[1, 1](out, np.uint8(0xFF), np.int16(-1), np.uint64(0xFFFFFFFFFFFFFFFF), np.int32(0x12345678))
    assert out.tolist() == [8, 16, 64, bin(0x12345678).count("1"), 4]


def test_bit_count_of_a_float_is_an_error():
    @cuda.jit
    def bad(out, x):
        out[0] = x.bit_count()

    with pytest.raises(errors.TypingError, match=r"unknown attribute 'bit_count' of float64"):
        bad[1, 1](np.zeros(1), 1.5)
