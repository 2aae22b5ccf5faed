"""The complex loops of NumPy's ufuncs that numba-cuda's ufunc_db has beyond the arithmetic (test_complex.py):
sinh, cosh, tanh, arccosh, log2, log10, exp2, expm1, log1p, sign, rint, power, float_power, maximum, minimum,
fmax, fmin and the ordering comparisons, over edge values (signed zeros, infinities, NaN parts, subnormal and large
parts), complex64 and complex128, on the simulator (and the GPU when the suite runs there).

Each loop computes numba-cuda's algorithm (numba/cuda/np/npyfuncs.py, ufuncs.py): the expected values below are
that algorithm evaluated step by step in the loop's float type (NumPy scalars; the real functions from the C
library, as the simulator calls them), or, for the loops numba-cuda builds on its cmath functions, those functions
as kfront's cmath computes them (test_complex.py checks them against CPython). Where an algorithm is NumPy's, the
results also match NumPy's own ufunc; where numba-cuda's formula has no special cases (sinh, cosh, tanh at
infinite parts, arccosh and sign at infinities, log2 / log10 near |z| = 1) the differences from NumPy are the
documented ones (docs/numeric.md). Finite parts are compared to a few ulps of the terms they are computed from
(the GPU may contract a product and a sum into one fma, and its libdevice differs from the C library in the last
places); NaN, infinities and zeros exactly."""
import cmath
import ctypes
import ctypes.util
import itertools
import linecache
import math

import numpy as np
import pytest

from kfront import cuda, errors

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

REALS = [-0.0, 0.0, 1.0, -1.0, 0.5, -3.5, math.pi, math.inf, -math.inf, math.nan, 7e-3, 30.0, 1e30, 3e300, 1e-40,
         1e-310]
DTYPES = [np.complex64, np.complex128]


def values(dt):
    """The edge values representable in dt (1e30 stays in complex64 range, 3e300 does not)."""
    ft = np.float32 if dt == np.complex64 else np.float64
    reals = [x for x in REALS if not (math.isfinite(x) and x != 0 and (abs(x) > np.finfo(ft).max or
                                                                       abs(x) < np.finfo(ft).smallest_subnormal))]
    return np.array([complex(x, y) for x, y in itertools.product(reals, reals)], dt)


_libm = ctypes.CDLL(ctypes.util.find_library("m"))


class Model:
    """numba-cuda's steps in the float type ft: NumPy scalar arithmetic, the C library's functions."""

    def __init__(self, dt):
        self.dt = dt
        self.ft = np.float32 if dt == np.complex64 else np.float64
        self.eps = float(np.finfo(self.ft).eps)
        c = ctypes.c_float if self.ft == np.float32 else ctypes.c_double
        suffix = "f" if self.ft == np.float32 else ""
        for name, nargs in (("sin", 1), ("cos", 1), ("sinh", 1), ("cosh", 1), ("exp", 1), ("log", 1), ("rint", 1),
                            ("hypot", 2), ("atan2", 2), ("fma", 3)):
            fn = getattr(_libm, name + suffix)
            fn.restype, fn.argtypes = c, [c] * nargs
            setattr(self, name, (lambda f: lambda *a: self.ft(f(*(float(x) for x in a))))(fn))

    def f(self, x):
        return self.ft(x)

    def cx(self, re, im):
        z = np.zeros(1, self.dt)
        z.real, z.imag = re, im
        return z[0]


def close(got, want, scale, eps, ulps=8):
    """Parts equal: NaN, infinities and zeros exactly (zeros with their sign), the rest within ulps of scale."""
    for g, w, s in ((got.real, want.real, scale[0]), (got.imag, want.imag, scale[1])):
        g, w = float(g), float(w)
        if math.isnan(w) or math.isnan(g):
            if math.isnan(w) != math.isnan(g):
                return False
            continue
        if math.isinf(w) or math.isinf(g) or w == 0 or g == 0:
            if g != w or math.copysign(1, g) != math.copysign(1, w):
                if not (math.isfinite(g) and math.isfinite(w) and abs(g - w) <= ulps * eps * s):
                    return False
            continue
        if abs(g - w) > ulps * eps * max(abs(w), s):
            return False
    return True


def check(name, a, got, want, scales, eps, extra=()):
    bad = [(a[i], got[i], want[i]) for i in range(len(a)) if not close(got[i], want[i], scales[i], eps)]
    assert not bad, (name, len(bad), bad[:4]) + tuple(extra)


# ---- the unary loops ---------------------------------------------------------------------------------------------

@cuda.jit
def unary(out, a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        z = a[i]
        out[i, 0] = np.sinh(z)
        out[i, 1] = np.cosh(z)
        out[i, 2] = np.tanh(z)
        out[i, 3] = np.expm1(z)
        out[i, 4] = np.log1p(z)
        out[i, 5] = np.rint(z)
        out[i, 6] = np.log2(z)
        out[i, 7] = np.log10(z)
        out[i, 8] = np.exp2(z)
        out[i, 9] = np.arccosh(z)
        out[i, 10] = np.sign(z)


@cuda.jit
def cmath_ref(out, a):
    """kfront's cmath functions (the ones numba-cuda's loops are built on), in a's type."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i, 0] = cmath.exp(a[i])
        out[i, 1] = cmath.log(a[i])
        out[i, 2] = cmath.sqrt(a[i])


def cmath_of(a):
    out = np.zeros((len(a), 3), a.dtype)
    cmath_ref[(len(a) + 63) // 64, 64](out, a)
    return out


def model_unary(m, z):
    """numba-cuda's sinh, cosh, tanh (ufuncs.py), expm1, log1p, rint (npyfuncs.py) of z, and the scale of each
    part's terms."""
    f, xr, xi = m.f, m.f(z.real), m.f(z.imag)
    s, c, sh, ch = m.sin(xi), m.cos(xi), m.sinh(xr), m.cosh(xr)
    res = {}
    res["sinh"] = (m.cx(c * sh, s * ch), None)
    res["cosh"] = (m.cx(c * ch, s * sh), None)
    rs, is_, rc, ic = c * sh, s * ch, c * ch, s * sh
    d = rc * rc + ic * ic
    inv_d = f(1) / d
    numr, numi = rs * rc + is_ * ic, is_ * rc - rs * ic
    res["tanh"] = (m.cx(numr * inv_d, numi * inv_d),
                   ((abs(rs * rc) + abs(is_ * ic)) * abs(inv_d), (abs(is_ * rc) + abs(rs * ic)) * abs(inv_d)))
    a = m.exp(xr)
    res["expm1"] = (m.cx(a * m.cos(xi) + f(-1), a * m.sin(xi)), (abs(a * m.cos(xi)) + 1, 0))
    r1 = xr + f(1)
    res["log1p"] = (m.cx(m.log(m.hypot(r1, xi)), m.atan2(xi, r1)), (1, 0))
    res["rint"] = (m.cx(m.rint(xr), m.rint(xi)), None)
    return res


def cscale(m, w, k):
    return m.cx(m.f(k) * m.f(w.real), m.f(k) * m.f(w.imag))


def cmul(m, x, y):
    """numba's complex_mul_impl: (ac - bd) + (ad + bc)j, and the scale of its terms."""
    a, b, c, d = m.f(x.real), m.f(x.imag), m.f(y.real), m.f(y.imag)
    return m.cx(a * c - b * d, a * d + b * c), (abs(a * c) + abs(b * d), abs(a * d) + abs(b * c))


def cmul_contracted(m, x, y):
    """cmul as the simulator and the GPU compute it after contraction (passes/contract.c: of two products of one
    use each the first is fused): fma(a, c, -(b d)) + fma(a, d, b c) j."""
    a, b, c, d = m.f(x.real), m.f(x.imag), m.f(y.real), m.f(y.imag)
    return m.cx(m.fma(a, c, -(b * d)), m.fma(a, d, b * c)), (abs(a * c) + abs(b * d), abs(a * d) + abs(b * c))


def cdiv_by_real(m, z, r):
    """numba's complex_div_impl (CPython's _Py_c_quot) of z by r + 0j, r finite or infinite, not 0."""
    f = m.f
    ratio = f(0) / r
    denom = r + f(0) * ratio
    return m.cx((f(z.real) + f(z.imag) * ratio) / denom, (f(z.imag) - f(z.real) * ratio) / denom)


@pytest.mark.parametrize("dt", DTYPES)
def test_unary_loops_follow_numba_cuda(dt):
    a = values(dt)
    m = Model(dt)
    out = np.zeros((len(a), 11), dt)
    unary[(len(a) + 63) // 64, 64](out, a)
    ref = cmath_of(a)
    with np.errstate(all="ignore"):
        models = [model_unary(m, z) for z in a]
        for j, name in enumerate(["sinh", "cosh", "tanh", "expm1", "log1p", "rint"]):
            want = [mz[name][0] for mz in models]
            scales = [mz[name][1] or (abs(w.real), abs(w.imag)) for mz, w in zip(models, want)]
            check(name, a, out[:, j], want, scales, m.eps)
        # log2, log10: kfront's cmath.log (numba-cuda's np_complex_log_impl) scaled by NumPy's log2(e), log10(e)
        for j, (name, k) in enumerate([("log2", 1.442695040888963407), ("log10", 0.434294481903251827)]):
            want = [cscale(m, w, k) for w in ref[:, 1]]
            check(name, a, out[:, 6 + j], want, [(abs(w.real), abs(w.imag)) for w in want], m.eps)
        # exp2: cmath.exp of log(2) z, the scaling in the float type
        scaled = np.array([cscale(m, z, 0.693147180559945309) for z in a], dt)
        want = cmath_of(scaled)[:, 0]
        check("exp2", a, out[:, 8], want, [(abs(w.real), abs(w.imag)) for w in want], m.eps)
        # arccosh: log(z + sqrt(z + 1) sqrt(z - 1)) of numba-cuda's complex + and * and cmath's sqrt and log
        one = dt(1)
        sp, sm = cmath_of((a + one).astype(dt))[:, 2], cmath_of((a - one).astype(dt))[:, 2]
        prods = [cmul(m, x, y) for x, y in zip(sp, sm)]
        arg = np.array([m.cx(m.f(z.real) + m.f(p.real), m.f(z.imag) + m.f(p.imag)) for z, (p, _) in zip(a, prods)], dt)
        want = cmath_of(arg)[:, 1]
        check("arccosh", a, out[:, 9], want, [(max(abs(w.real), 1), max(abs(w.imag), 1)) for w in want], m.eps)
        # sign: NumPy 2's z / |z| as numba-cuda computes it (0 for 0, a NaN part NaN, numba's complex division)
        want = []
        for z in a:
            r = m.hypot(z.real, z.imag)
            want.append(m.cx(0, 0) if r == 0 else m.cx(math.nan, math.nan) if math.isnan(r) else cdiv_by_real(m, z, r))
        check("sign", a, out[:, 10], want, [(abs(w.real), abs(w.imag)) for w in want], m.eps)


@pytest.mark.parametrize("dt", DTYPES)
def test_unary_loops_match_numpy_on_regular_values(dt):
    """Away from infinities, NaN and the ill-conditioned spots of numba-cuda's formulas, NumPy's own answers."""
    vals = [complex(x, y) for x, y in itertools.product([-2.5, -1.0, -0.25, 0.0, 0.5, 1.5, 3.0], repeat=2)]
    a = np.array(vals, dt)
    out = np.zeros((len(a), 11), dt)
    unary[(len(a) + 63) // 64, 64](out, a)
    eps = float(np.finfo(np.float32 if dt == np.complex64 else np.float64).eps)
    names = ["sinh", "cosh", "tanh", "expm1", "log1p", "rint", "log2", "log10", "exp2", "arccosh", "sign"]
    for j, name in enumerate(names):
        with np.errstate(all="ignore"):
            want = getattr(np, name)(a)
        # log2 / log10 take log(hypot(...)), expm1 exp(x) cos(y) - 1 (numba-cuda): cancellation near |z| = 1 / z = 0
        tol = 64 if name in ("log2", "log10", "expm1", "log1p", "arccosh") else 8
        for i in range(len(a)):
            if name == "log1p" and a[i] == -1:
                continue  # log(0): -inf in both, the imaginary part atan2(0, 0) = 0 vs NumPy's 0
            scale = (max(abs(want[i]), 1.0), max(abs(want[i]), 1.0))
            assert close(out[i, j], want[i], scale, eps, ulps=tol), (name, a[i], out[i, j], want[i])


def test_where_numba_cuda_differs_from_numpy():
    """numba-cuda's formulas without NumPy's special cases (docs/numeric.md), by hand."""
    inf, nan = math.inf, math.nan
    a = np.array([complex(inf, 0), complex(1000, 0), complex(0, inf), complex(1e30, 0)], np.complex128)
    out = np.zeros((len(a), 11), np.complex128)
    unary[1, len(a)](out, a)
    # sinh(inf + 0j): cos(0) sinh(inf) + sin(0) cosh(inf) j = inf + (0 * inf = nan) j; NumPy: inf + 0j
    assert out[0, 0].real == inf and math.isnan(out[0, 0].imag)
    # tanh(1000 + 0j): cosh(1000) overflows, (inf * inf) / (inf * inf): nan; NumPy: 1
    assert math.isnan(out[1, 2].real)
    # sign(infj): infj / inf is (0 + inf * 0) / inf: nan + nanj; NumPy 2: 1j
    assert math.isnan(out[2, 10].real) and math.isnan(out[2, 10].imag)
    # exp2(1e30): numba-cuda's cmath exp: exp(x) cos(0) + exp(x) sin(0) j = inf + nanj; NumPy: inf + 0j
    assert out[3, 8].real == inf and math.isnan(out[3, 8].imag)
    assert np.sinh(a[0]) == complex(inf, 0) and np.tanh(a[1]) == 1  # (NumPy's)


# ---- the binary loops --------------------------------------------------------------------------------------------

@cuda.jit
def binary(out, flags, a, b):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i, 0] = np.maximum(a[i], b[i])
        out[i, 1] = np.minimum(a[i], b[i])
        out[i, 2] = np.fmax(a[i], b[i])
        out[i, 3] = np.fmin(a[i], b[i])
        out[i, 4] = np.power(a[i], b[i])
        flags[i, 0] = np.greater(a[i], b[i])
        flags[i, 1] = np.greater_equal(a[i], b[i])
        flags[i, 2] = np.less(a[i], b[i])
        flags[i, 3] = np.less_equal(a[i], b[i])


@cuda.jit
def pow_ref(out, a, b):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i] ** b[i]


def lexicographic(x, y, op):
    """NumPy's CGT / CGE / CLT / CLE."""
    xr, xi, yr, yi = x.real, x.imag, y.real, y.imag
    ordered = not (math.isnan(xi) or math.isnan(yi))
    first = (xr > yr if op in ">>=" and op[0] == ">" else xr < yr) and ordered
    second = xr == yr and {">": xi > yi, ">=": xi >= yi, "<": xi < yi, "<=": xi <= yi}[op]
    return first or second


def same_complex(x, y):
    return all((math.isnan(p) and math.isnan(q)) or (p == q and math.copysign(1, p) == math.copysign(1, q))
               for p, q in ((x.real, y.real), (x.imag, y.imag)))


@pytest.mark.parametrize("dt", DTYPES)
def test_order_and_extrema_follow_numpy(dt):
    v = values(dt)[::3]
    a, b = np.repeat(v, len(v)), np.tile(v, len(v))
    out = np.zeros((len(a), 5), dt)
    flags = np.zeros((len(a), 4), np.bool_)
    binary[(len(a) + 127) // 128, 128](out, flags, a, b)
    for j, op in enumerate([">", ">=", "<", "<="]):
        want = np.array([lexicographic(x, y, op) for x, y in zip(a, b)])
        assert (flags[:, j] == want).all(), (op, np.flatnonzero(flags[:, j] != want)[:5])
    with np.errstate(all="ignore"):
        assert (flags[:, 0] == np.greater(a, b)).all() and (flags[:, 3] == np.less_equal(a, b)).all()
        for j, name in enumerate(["maximum", "minimum", "fmax", "fmin"]):
            want = getattr(np, name)(a, b)
            bad = [(a[i], b[i], out[i, j], want[i]) for i in range(len(a)) if not same_complex(out[i, j], want[i])]
            assert not bad, (name, bad[:4])


@pytest.mark.parametrize("dt", DTYPES)
def test_power_squares_an_exponent_of_two_else_is_star_star(dt):
    m = Model(dt)
    v = values(dt)[::5]
    a = np.concatenate([v, v, np.repeat(v[:40], 8)])
    b = np.concatenate([np.full(len(v), 2, dt), np.full(len(v), complex(2, -0.0), dt), np.resize(v[::7], 8 * len(v[:40]))])
    out = np.zeros((len(a), 5), dt)
    flags = np.zeros((len(a), 4), np.bool_)
    binary[(len(a) + 127) // 128, 128](out, flags, a, b)
    star = np.zeros(len(a), dt)
    pow_ref[(len(a) + 127) // 128, 128](star, a, b)
    with np.errstate(all="ignore"):
        for i in range(len(a)):
            if b[i] == 2:  # numba's complex_power_impl: the product, contracted (fma) as on the GPU
                want, scale = cmul_contracted(m, a[i], a[i])
            else:
                want, scale = star[i], (abs(star[i].real), abs(star[i].imag))
            assert close(out[i, 4], want, scale, m.eps), (a[i], b[i], out[i, 4], want)
    # where NumPy's power is a product too, it is NumPy's
    reg = np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j], dt)
    out = np.zeros((3, 5), dt)
    binary[1, 3](out, np.zeros((3, 4), np.bool_), reg, np.full(3, 2, dt))
    assert np.allclose(out[:, 4], np.power(reg, 2), rtol=4 * m.eps, atol=0)


@cuda.jit
def float_power(out, a, b):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = np.float_power(a[i], b[i])


def test_float_power_is_complex128():
    a = np.array([1 + 1j, -2 + 0.5j, 0.25j], np.complex64)
    b = np.array([2, 0.5 - 1j, 3], np.complex64)
    out = np.zeros(3, np.complex128)  # NumPy's float_power has the DD->D loop only: complex64 computes in complex128
    float_power[1, 3](out, a, b)
    star = np.zeros(3, np.complex128)
    pow_ref[1, 3](star, a.astype(np.complex128), b.astype(np.complex128))
    assert out[0] == complex(1 + 1j) * complex(1 + 1j)
    assert (out[1:] == star[1:]).all()
    assert np.allclose(out, np.float_power(a, b), rtol=1e-14)


# ---- over arrays, and typing -----------------------------------------------------------------------------------

@cuda.jit
def arrays(a, b, o, f):
    np.tanh(a, o)
    np.less(a, b, f)


def test_loops_over_arrays_with_out():
    a = (np.linspace(-2, 2, 12) + 1j * np.linspace(1, -1, 12)).reshape(3, 4).astype(np.complex64)
    b = np.array([0.5 + 1j, -2 + 0j, 0.25j, 1 - 1j], np.complex64)  # broadcast along the rows
    o = np.zeros((3, 4), np.complex128)
    f = np.zeros((3, 4), np.bool_)
    arrays[1, 1](a, b, o, f)
    assert np.allclose(o, np.tanh(a), rtol=1e-5, atol=1e-6)
    assert (f == np.less(a, b)).all()


@cuda.jit
def bad_floor(a):
    a[0] = np.floor(a[1])


@cuda.jit
def bad_arctan2(a):
    a[0] = np.arctan2(a[1], a[2])


@pytest.mark.parametrize("kernel,match", [
    (bad_floor, r"no implementation of numpy.floor\(\) for argument types \(complex128\)"),
    (bad_arctan2, r"no implementation of numpy.arctan2\(\) for argument types \(complex128, complex128\)"),
])
def test_loops_numba_cuda_lacks_are_refused(kernel, match):
    with pytest.raises(errors.CompilerError, match=match):
        kernel[1, 1](np.zeros(3, np.complex128))


def test_typing_as_numba_cuda():
    """A ufunc's loop is NumPy's first whose inputs the arguments cast to safely, an integer to any complex when it
    meets a complex (numba's ufunc_can_cast: mixed kinds); float_power has only complex128 (test/gpu/python/
    test_typing_vs_numba.py compares these with numba-cuda's compile_ptx)."""
    from kfront import types

    def typed(expr, *argtypes):
        ns = {"np": np}
        src = "def f(%s):\n    return %s\n" % (", ".join("ab"[:len(argtypes)]), expr)
        name = "<complex-ufunc-typing %s>" % expr
        linecache.cache[name] = (len(src), None, src.splitlines(True), name)
        exec(compile(src, name, "exec"), ns)
        return str(cuda.compile_ptx(ns["f"], argtypes, device=True)[1])

    c64, c128, i32, f64 = types.complex64, types.complex128, types.int32, types.float64
    assert typed("np.maximum(a, b)", c64, i32) == "complex64"
    assert typed("np.less(a, b)", c64, i32) == "bool"
    assert typed("np.power(a, b)", c64, i32) == "complex64"
    assert typed("np.power(a, b)", c64, f64) == "complex128"
    assert typed("np.float_power(a, b)", c64, c64) == "complex128"
    assert typed("np.sinh(a)", c64) == "complex64"
    assert typed("np.sign(a)", c128) == "complex128"
