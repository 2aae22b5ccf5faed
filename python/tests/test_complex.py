"""complex64 / complex128 in kernels on the simulator (the GPU run of this suite checks the same; test/gpu/python/
test_complex_vs_numba.py compares with numba-cuda itself): arrays of complex through the module, literals,
arithmetic with Numba's promotions, comparisons, abs, .real/.imag/.conjugate(), complex(), casts, truth values, the
cmath functions over edge values (signed zeros, infinities, NaN, large and subnormal parts), local arrays and device
functions of complex values; against Python's complex arithmetic and cmath, and hand-derived values where numba-cuda's
algorithms answer differently from CPython (NaN parts). What Numba refuses raises a located TypingError."""
import cmath
import itertools
import math
import os

import numpy as np
import pytest

from kfront import cuda, errors

import fused  # the contracted references (x * y + z as one fma, as the simulator and the GPU compute it)

REALS = [-0.0, 0.0, 1.0, -1.0, 1.5, -3.5, math.pi, -math.inf, math.inf, 1e300, -2e-310, 3.0e38]
VALUES = np.array([complex(x, y) for x, y in itertools.product(REALS, REALS)])
NAN_REALS = [0.0, -1.0, math.inf, math.nan]
NAN_VALUES = np.array([complex(x, y) for x, y in itertools.product(NAN_REALS, NAN_REALS)])
ON_GPU = os.environ.get("KFRONT_TEST_GPU") == "1"  # test/gpu/run_python_gpu.sh: libdevice computes the math
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's casts of the large values to complex64


def close(got, want, ulps=4, sign_of_zero=True, of_abs=False):
    """Parts equal to a few units in the last place (NaN matches NaN, infinities and zeros by sign); of_abs: units
    in the last place of |want| (a part much smaller than the other carries the absolute error of the larger)."""
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        if math.isnan(w) or math.isnan(g):
            if not (math.isnan(w) and math.isnan(g)):
                return False
            continue
        if w == 0 or math.isinf(w) or g == 0 or math.isinf(g):
            if g != w or (sign_of_zero and math.copysign(1, g) != math.copysign(1, w)):
                return False
            continue
        scale = max(abs(g), abs(w), abs(want) if of_abs and math.isfinite(abs(want)) else 0)
        if abs(g - w) > ulps * math.ulp(scale) and abs(g - w) > ulps * 5e-324:
            return False
    return True


def run(kernel, *args):
    n = max(a.shape[0] for a in args)
    kernel[(n + 63) // 64, 64](*args)


# ---- arrays, literals, arithmetic --------------------------------------------------------------------------------

@cuda.jit
def arith(out, a, b):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i, 0] = a[i] + b[i]
        out[i, 1] = a[i] - b[i]
        out[i, 2] = a[i] * b[i]
        out[i, 3] = -a[i]
        out[i, 4] = +a[i]
        out[i, 5] = a[i].conjugate()


@cuda.jit
def divide(out, a, b):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i] / b[i]


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_arithmetic_matches_python(dt):
    a = np.repeat(VALUES, len(VALUES)).astype(dt)
    b = np.tile(VALUES, len(VALUES)).astype(dt)
    out = np.zeros((len(a), 6), dt)
    run(arith, out, a, b)
    f = np.float32 if dt == np.complex64 else np.float64
    differ = 0
    for i in range(len(a)):
        x, y = complex(a[i]), complex(b[i])
        prod = fused.cmul(x, y, f)  # (ac - bd) + (bc + ad)j with ac and bc fused: fma(a, c, -bd), fma(b, c, ad)
        with np.errstate(all="ignore"):
            unfused = complex(f(f(x.real) * f(y.real)) - f(f(x.imag) * f(y.imag)),
                              f(f(x.real) * f(y.imag)) + f(f(x.imag) * f(y.real)))
        differ += not close(prod, unfused, ulps=0)
        want = [x + y, x - y, prod, -x, x, x.conjugate()]
        for j, w in enumerate(want):
            if dt == np.complex64:
                with np.errstate(all="ignore"):
                    w = complex(dt(w))
            assert close(complex(out[i, j]), w, ulps=0), (x, y, j, complex(out[i, j]), w)
    # the edge values do reach products where one rounding differs from two (an overflowing or subnormal part:
    # (inf - inf j) fused where unfused gives (inf + nan j), ...)
    assert differ > 10, differ


def test_division_is_cpython_quotient_and_zero_ends_the_thread():
    a = np.repeat(VALUES, len(VALUES))
    b = np.tile(VALUES, len(VALUES))
    out = np.full(len(a), 7 + 7j)
    run(divide, out, a, b)
    for i in range(len(a)):
        x, y = complex(a[i]), complex(b[i])
        if y == 0:
            assert out[i] == 7 + 7j  # ZeroDivisionError: the thread ends (numba-cuda's kernels return), as without debug
            continue
        # CPython's algorithm, its products fused: exactly; CPython's own quotient within 2 ulps where no part is
        # tiny, infinite or NaN (where the one rounding can change the result beyond a few ulps)
        want = fused.cdiv(x, y)
        assert close(complex(out[i]), want, ulps=0), (x, y, out[i], want)
        q = x / y  # CPython's own quotient: near, relative to its modulus, where nothing overflows or underflows
        if all(math.isfinite(v) and (v == 0 or abs(v) > 1e-290) for v in (q.real, q.imag, x.real, x.imag, y.real, y.imag)):
            assert abs(complex(out[i]) - q) <= 4 * 2.0 ** -52 * abs(q), (x, y, out[i], q)


@cuda.jit
def mixed(out, f32, f64, i64, c64):
    i = cuda.grid(1)
    if i < f32.shape[0]:
        out[i, 0] = f32[i] * c64[i]      # complex64
        out[i, 1] = f64[i] + c64[i]      # complex128
        out[i, 2] = i64[i] - c64[i]      # complex128 (unified as NumPy: int64 with complex64)
        out[i, 3] = c64[i] * 1j          # 1j is complex128
        out[i, 4] = complex(f32[i], f32[i])
        out[i, 5] = complex(f64[i])
        out[i, 6] = 2 + 3j


def test_promotions_and_literals():
    f32 = np.array([0.5, -1.25, 3.0], np.float32)
    f64 = np.array([0.1, 2.0, -7.5])
    i64 = np.array([3, -4, 5])
    c64 = np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j], np.complex64)
    out = np.zeros((3, 7), np.complex128)
    run(mixed, out, f32, f64, i64, c64)
    for i in range(3):
        assert out[i, 0] == complex(np.complex64(f32[i] * c64[i]))
        assert out[i, 1] == f64[i] + complex(c64[i])
        assert out[i, 2] == i64[i] - complex(c64[i])
        assert out[i, 3] == complex(c64[i]) * 1j
        assert out[i, 4] == complex(f32[i], f32[i])
        assert out[i, 5] == complex(f64[i])
        assert out[i, 6] == 2 + 3j


@cuda.jit
def parts(out, a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        z = a[i]
        out[i, 0] = z.real
        out[i, 1] = z.imag
        out[i, 2] = abs(z)
        out[i, 3] = 1.0 if z else 0.0
        out[i, 4] = 1.0 if z == z.conjugate() else 0.0
        out[i, 5] = 1.0 if z != 0 else 0.0
        out[i, 6] = z.real.real + z.real.imag  # .real / .imag of a float: itself and 0


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_parts_abs_truth_comparisons(dt):
    a = np.concatenate([VALUES, NAN_VALUES]).astype(dt)
    ft = np.float32 if dt == np.complex64 else np.float64
    out = np.zeros((len(a), 7), ft)
    run(parts, out, a)
    for i, z in enumerate(a):
        z = complex(z)
        assert close(complex(out[i, 0]), complex(ft(z.real))) and close(complex(out[i, 1]), complex(ft(z.imag)))
        want_abs = ft(math.hypot(z.real, z.imag)) if dt == np.complex128 else np.hypot(ft(z.real), ft(z.imag))
        assert close(complex(out[i, 2]), complex(want_abs), ulps=1), (z, out[i, 2])
        assert out[i, 3] == bool(z)
        assert out[i, 4] == (z == z.conjugate())
        assert out[i, 5] == (z != 0)


# ---- ** : numba-cuda's translation of CPython's _Py_c_pow ----------------------------------------------------------

@cuda.jit
def power(out, a, b):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i] ** b[i]


def test_power():
    vals = [complex(x, y) for x, y in itertools.product([0.0, 1.0, -1.5, 2.0, 0.5], [0.0, 1.0, -0.75])]
    a = np.array([x for x in vals for _ in vals])
    b = np.array([y for _ in vals for y in vals])
    out = np.zeros(len(a), np.complex128)
    run(power, out, a, b)
    for i in range(len(a)):
        want = fused.cpow(complex(a[i]), complex(b[i]))  # numba-cuda's cpow, its sums of products fused
        # on a GPU libdevice's pow, exp, log, atan2, sin and cos (a few ulps from the host's): relative to |want|
        assert close(complex(out[i]), want, ulps=8, of_abs=ON_GPU), (a[i], b[i], out[i], want)


# ---- cmath ------------------------------------------------------------------------------------------------------

CMATH = ["exp", "log", "log10", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
         "acosh", "atanh"]


@cuda.jit
def cmath_all(out, a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        z = a[i]
        out[i, 0] = cmath.exp(z)
        out[i, 1] = cmath.log(z)
        out[i, 2] = cmath.log10(z)
        out[i, 3] = cmath.sqrt(z)
        out[i, 4] = cmath.sin(z)
        out[i, 5] = cmath.cos(z)
        out[i, 6] = cmath.tan(z)
        out[i, 7] = cmath.asin(z)
        out[i, 8] = cmath.acos(z)
        out[i, 9] = cmath.atan(z)
        out[i, 10] = cmath.sinh(z)
        out[i, 11] = cmath.cosh(z)
        out[i, 12] = cmath.tanh(z)
        out[i, 13] = cmath.asinh(z)
        out[i, 14] = cmath.acosh(z)
        out[i, 15] = cmath.atanh(z)


def test_cmath_complex128_matches_cpython():
    out = np.zeros((len(VALUES), len(CMATH)), np.complex128)
    run(cmath_all, out, VALUES)
    for i, z in enumerate(VALUES):
        for j, name in enumerate(CMATH):
            try:
                want = getattr(cmath, name)(complex(z))
            except (ValueError, OverflowError):
                continue  # CPython raises (math domain error, overflow); numba-cuda's tests skip these too
            sign = name not in ("tan", "tanh", "atanh")  # numba-cuda's tests ignore the sign of zero there
            # CPython rescales subnormal parts first; numba-cuda's algorithms do not (their subnormal intermediate
            # steps lose bits): relatively close there
            got = complex(out[i, j])
            if 0 < min(abs(z.real) or 1, abs(z.imag) or 1) < 1e-300:
                assert close(got, want, ulps=4, sign_of_zero=sign) or abs(got - want) <= 1e-12 * abs(want), \
                    (name, z, got, want)
                continue
            assert close(got, want, ulps=4, sign_of_zero=sign), (name, z, got, want)


def test_cmath_complex64_close_to_cpython():
    vals = np.array([complex(x, y) for x, y in itertools.product([-0.0, 0.0, 1.0, -1.0, 1.5, -3.5, 0.25], repeat=2)],
                    np.complex64)
    out = np.zeros((len(vals), len(CMATH)), np.complex64)
    run(cmath_all, out, vals)
    for i, z in enumerate(vals):
        for j, name in enumerate(CMATH):
            try:
                want = getattr(cmath, name)(complex(z))
            except (ValueError, OverflowError):
                continue
            got = complex(out[i, j])
            assert (abs(got - want) <= 4e-6 * max(1.0, abs(want)) or close(got, complex(np.complex64(want)))), \
                (name, z, got, want)


# numba-cuda's algorithms where a part is NaN (they answer differently from CPython's special-value tables there),
# derived by hand from numba/cuda/cpython/cmathimpl.py
NAN = math.nan
NAN_CASES = [
    ("sin", complex(0.0, NAN), (NAN, NAN)),         # sinh(nan + 0j) = (cos 0 * sinh nan, sin 0 * cosh nan)
    ("cos", complex(0.0, NAN), (NAN, NAN)),
    ("atan", complex(1.0, NAN), (math.pi / 2, NAN)),  # atanh(nan + 1j): the large branch, imag = pi/2
    ("atan", complex(-1.0, NAN), (-math.pi / 2, NAN)),
    ("exp", complex(NAN, 0.0), (NAN, 0.0)),          # nan + 0j keeps the zero
    ("exp", complex(NAN, 1.0), (NAN, NAN)),
    ("exp", complex(math.inf, 0.0), (math.inf, 0.0)),
    ("exp", complex(-math.inf, math.inf), (0.0, 0.0)),
    ("sqrt", complex(NAN, math.inf), (math.inf, math.inf)),
    ("sqrt", complex(-math.inf, NAN), (NAN, math.inf)),  # |b - b| is NaN, copysign(-inf, +nan) is +inf
    ("cosh", complex(math.inf, NAN), (math.inf, NAN)),
    ("tanh", complex(math.inf, NAN), (1.0, 0.0)),
]


@cuda.jit
def cmath_one(out, a, which):
    i = cuda.grid(1)
    if i < a.shape[0]:
        z = a[i]
        w = which[i]
        if w == 0:
            out[i] = cmath.sin(z)
        elif w == 1:
            out[i] = cmath.cos(z)
        elif w == 2:
            out[i] = cmath.atan(z)
        elif w == 3:
            out[i] = cmath.exp(z)
        elif w == 4:
            out[i] = cmath.sqrt(z)
        elif w == 5:
            out[i] = cmath.cosh(z)
        else:
            out[i] = cmath.tanh(z)


def test_cmath_nan_parts_as_numba_cuda():
    index = {"sin": 0, "cos": 1, "atan": 2, "exp": 3, "sqrt": 4, "cosh": 5, "tanh": 6}
    a = np.array([z for _, z, _ in NAN_CASES])
    which = np.array([index[n] for n, _, _ in NAN_CASES])
    out = np.zeros(len(a), np.complex128)
    run(cmath_one, out, a, which)
    for i, (name, z, want) in enumerate(NAN_CASES):
        assert close(complex(out[i]), complex(*want), ulps=2), (name, z, out[i], want)


@cuda.jit
def cmath_misc(out, flags, a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        z = a[i]
        flags[i, 0] = cmath.isnan(z)
        flags[i, 1] = cmath.isinf(z)
        flags[i, 2] = cmath.isfinite(z)
        out[i, 0] = cmath.phase(z)
        r, p = cmath.polar(z)
        out[i, 1] = r
        out[i, 2] = p
        w = cmath.rect(z.real, z.imag)
        out[i, 3] = w.real
        out[i, 4] = w.imag
        v = cmath.log(z, 2 + 0j)
        out[i, 5] = v.real


def test_cmath_predicates_phase_polar_rect():
    a = np.concatenate([VALUES, NAN_VALUES])
    flags = np.zeros((len(a), 3), np.bool_)
    out = np.zeros((len(a), 6))
    run(cmath_misc, out, flags, a)
    for i, z in enumerate(a):
        z = complex(z)
        assert list(flags[i]) == [cmath.isnan(z), cmath.isinf(z), cmath.isfinite(z)]
        assert close(complex(out[i, 0]), complex(math.atan2(z.imag, z.real)), ulps=1)  # cmath.phase, without its raise
        assert close(complex(out[i, 1]), complex(math.hypot(z.real, z.imag)), ulps=1)
        assert close(complex(out[i, 2]), complex(math.atan2(z.imag, z.real)), ulps=1)
        if math.isfinite(z.real) and math.isfinite(z.imag) and abs(z.real) < 1e300:
            w = cmath.rect(z.real, z.imag)
            assert close(complex(out[i, 3], out[i, 4]), w, ulps=2), (z, out[i, 3:5], w)
        if z != 0 and math.isfinite(z.real) and math.isfinite(z.imag):
            assert close(complex(out[i, 5]), complex((cmath.log(z) / cmath.log(2)).real), ulps=4)


# ---- local arrays, device functions, loops ----------------------------------------------------------------------

@cuda.jit(device=True)
def twice_minus_sqrt(z, w):
    return z * w - cmath.sqrt(z)


@cuda.jit
def composite(out, a):
    i = cuda.grid(1)
    sh = cuda.shared.array(64, np.complex128)
    loc = cuda.local.array(2, np.complex64)
    if i < a.shape[0]:
        z = a[i]
        acc = 0j
        for _ in range(3):
            acc += twice_minus_sqrt(z, z)
        loc[0] = z
        loc[1] = loc[0] * 2
        sh[cuda.threadIdx.x] = acc
    cuda.syncthreads()
    if i < a.shape[0]:
        out[i] = sh[cuda.threadIdx.x] + loc[1]


def test_device_functions_local_and_shared_arrays():
    a = np.array([1 + 2j, -3 + 0.5j, 0.25 - 1j], np.complex64)
    out = np.zeros(3, np.complex128)
    run(composite, out, a)
    for i, z in enumerate(a):
        z64 = np.complex64(z)
        step = np.complex64(z64 * z64 - np.complex64(cmath.sqrt(complex(z64))))
        acc = 0j
        for _ in range(3):
            acc += complex(step)
        want = acc + complex(np.complex64(z64 * np.complex64(2)))
        assert abs(out[i] - want) < 1e-5 * abs(want), (out[i], want)


# ---- what Numba refuses ---------------------------------------------------------------------------------------------

@cuda.jit
def refuse_order(out, a, f):
    out[0] = 1.0 if a[0] < a[1] else 0.0


@cuda.jit
def refuse_floordiv(out, a, f):
    out[0] = a[0] // a[1]


@cuda.jit
def refuse_store_real(out, a, f):
    f[0] = a[0]


@cuda.jit
def refuse_float(out, a, f):
    f[0] = float(a[0])


@cuda.jit
def refuse_cosh_real(out, a, f):
    out[0] = cmath.cosh(1.0)


@cuda.jit
def refuse_rect_ints(out, a, f):
    out[0] = cmath.rect(1, 2)


@cuda.jit
def refuse_complex_parts(out, a, f):
    out[0] = complex(a[0], a[1])


@cuda.jit
def refuse_atomic(out, a, f):
    cuda.atomic.add(out, 0, a[0])


@cuda.jit
def refuse_slice_of_real(out, a, f):
    f[0:2] = a[0]


@cuda.jit
def refuse_augassign_real(out, a, f):
    f[0] += a[0]


@cuda.jit
def refuse_array_into_real(out, a, f):
    f[:] = a


@cuda.jit
def refuse_tuple_into_real(out, a, f):
    f[0:2] = (a[0], a[1])


@cuda.jit("float64(float64)", device=True)
def real_param(x):
    return x * 2


@cuda.jit
def refuse_complex_for_real_param(out, a, f):
    f[0] = real_param(a[0])


@pytest.mark.parametrize("kernel,match", [
    (refuse_complex_for_real_param, "no signature of 'real_param' matches the argument types of this call"),
    (refuse_slice_of_real, r":\d+:14: error: cannot convert complex128 to float64 to store it into the elements of a slice"),
    (refuse_augassign_real, r":\d+:10: error: cannot convert complex128 to float64 to store it into an element"),
    (refuse_array_into_real, r"cannot assign array\(complex128, 1d, C\) to a slice of array\(float64, 1d, C\)"),
    (refuse_tuple_into_real, "cannot convert complex128 to float64 to store it into the elements of a slice"),
    (refuse_order, "unsupported operand types for '<'"),
    (refuse_floordiv, "unsupported operand types for '//'"),
    (refuse_store_real, "cannot convert complex128 to float64"),
    (refuse_float, "float\\(\\) only supports real numbers"),
    (refuse_cosh_real, "takes a complex number"),
    (refuse_rect_ints, "takes two floats"),
    (refuse_complex_parts, "two real numbers"),
    (refuse_atomic, "complex"),
])
def test_refusals(kernel, match):
    with pytest.raises(errors.CompilerError, match=match):
        kernel[1, 1](np.zeros(2, np.complex128), np.ones(2, np.complex128), np.zeros(2))


def test_complex_returned_as_real_is_refused_at_decoration():
    # a declared signature compiles when cuda.jit is given it, as numba-cuda's: the error is raised there
    with pytest.raises(errors.TypingError, match=r":\d+:13: error: cannot convert complex128 to float64 to return it"):
        @cuda.jit("float64(complex128)", device=True)
        def returns_complex_as_real(z):
            return z


# ---- NumPy's ufuncs: their complex loops (numba-cuda's ufunc_db), scalars and arrays with out ----------------------

@cuda.jit
def ufuncs_scalar(out, flags, f, a, b):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i, 0] = np.add(a[i], b[i])
        out[i, 1] = np.subtract(a[i], b[i])
        out[i, 2] = np.multiply(a[i], b[i])
        out[i, 3] = np.divide(a[i], b[i])
        out[i, 4] = np.negative(a[i])
        out[i, 5] = np.conjugate(a[i])
        out[i, 6] = np.reciprocal(a[i])
        out[i, 7] = np.square(a[i])
        out[i, 8] = np.exp(a[i])
        out[i, 9] = np.log(a[i])
        out[i, 10] = np.sqrt(a[i])
        out[i, 11] = np.sin(a[i])
        out[i, 12] = np.arctan(a[i])
        f[i] = np.absolute(a[i])
        flags[i, 0] = np.isnan(a[i])
        flags[i, 1] = np.isinf(a[i])
        flags[i, 2] = np.isfinite(a[i])
        flags[i, 3] = np.equal(a[i], b[i])
        flags[i, 4] = np.not_equal(a[i], b[i])
        flags[i, 5] = np.logical_and(a[i], b[i])


def test_ufunc_complex_loops_match_numpy():
    vals = [complex(x, y) for x, y in itertools.product([0.0, -1.0, 2.5, -0.5], repeat=2)]
    a = np.array([x for x in vals for _ in vals])
    b = np.array([y for _ in vals for y in vals])
    out = np.zeros((len(a), 13), np.complex128)
    flags = np.zeros((len(a), 6), np.bool_)
    f = np.zeros(len(a))
    run(ufuncs_scalar, out, flags, f, a, b)
    with np.errstate(all="ignore"):
        want = [np.add(a, b), np.subtract(a, b), np.multiply(a, b), np.divide(a, b), np.negative(a), np.conjugate(a),
                np.reciprocal(a), np.square(a), np.exp(a), np.log(a), np.sqrt(a), np.sin(a), np.arctan(a)]
        wflags = [np.isnan(a), np.isinf(a), np.isfinite(a), np.equal(a, b), np.not_equal(a, b), np.logical_and(a, b)]
    # multiply, divide, reciprocal and square as kfront contracts them, exactly (NumPy's own within 4 ulps above)
    for j in (2, 3, 6, 7):
        for i in range(len(a)):
            if all(math.isfinite(v) and v != 0 for v in (want[j][i].real, want[j][i].imag)):
                assert abs(complex(out[i, j]) - complex(want[j][i])) <= 8 * 2.0 ** -52 * abs(complex(want[j][i])), (j, i)
    want[2] = [fused.cmul(x, y) for x, y in zip(a, b)]
    want[3] = [fused.np_cdiv(x, y) for x, y in zip(a, b)]
    want[6] = [fused.np_crecip(x) for x in a]
    want[7] = [fused.cmul(x, x) for x in a]
    for j, w in enumerate(want):
        for i in range(len(a)):
            ulps = 0 if j in (2, 3, 6, 7) else 4
            assert close(complex(out[i, j]), complex(w[i]), ulps=ulps, sign_of_zero=j not in (6, 12)), (j, a[i], b[i], out[i, j], w[i])
    for j, w in enumerate(wflags):
        assert (flags[:, j] == w).all(), j
    assert np.allclose(f, np.abs(a), rtol=1e-15)


@cuda.jit
def ufunc_arrays(a, b, o, r):
    np.multiply(a, b, o)
    np.sqrt(a, r)


def test_ufunc_complex_arrays_with_out():
    a = (np.arange(12).reshape(3, 4) + 1j * np.arange(12)[::-1].reshape(3, 4)).astype(np.complex64)
    b = np.array([1 - 1j, 2j, -0.5, 3 + 0.25j], np.complex64)  # broadcast along the rows
    o = np.zeros((3, 4), np.complex64)
    r = np.zeros((3, 4), np.complex128)  # complex64 results stored into complex128 (same kind)
    ufunc_arrays[1, 1](a, b, o, r)
    assert np.allclose(o, a * b, rtol=1e-6)
    assert np.allclose(r, np.sqrt(a), rtol=1e-6)


@cuda.jit
def ufunc_bad_out(a, f):
    np.add(a, a, f)


def test_ufunc_complex_result_into_real_array_refused():
    with pytest.raises(errors.CompilerError, match="cannot be stored to an array of float64"):
        ufunc_bad_out[1, 1](np.zeros(2, np.complex128), np.zeros(2))


# ---- complex scalars as kernel arguments (two parameters each: abi.h) ----------------------------------------------

@cuda.jit
def axpy_c(out, a, z, x):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i] * z + x


@cuda.jit("void(complex64[::1], complex64, float64)")
def axpy_c64(a, z, x):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] = a[i] * z + x


def test_complex_scalar_arguments():
    a = np.array([1 + 2j, -0.5j, 3.0])
    out = np.zeros(3, np.complex128)
    axpy_c[1, 3](out, a, 2 - 1j, 0.25)           # a Python complex: complex128
    assert (out == a * (2 - 1j) + 0.25).all()
    axpy_c[1, 3](out, a, np.complex64(1j), 1j)  # NumPy's complex64 scalar; a complex where a float went before
    assert (out == a * 1j + 1j).all()
    b = a.astype(np.complex64)
    axpy_c64[1, 3](b, 3, 0.5)                    # an int converted to the complex64 parameter
    assert (b == (a * 3 + 0.5).astype(np.complex64)).all()
    with pytest.raises(Exception, match="complex"):
        axpy_c64[1, 3](np.zeros(3, np.float32), 1j, 0.5)


# ---- .real / .imag of arrays, np.real / np.imag ---------------------------------------------------------------------

@cuda.jit
def array_parts(a, b, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i, 0] = a.real[i]
        out[i, 1] = a.imag[i]
        out[i, 2] = np.real(a)[i] + np.imag(a[i])
        a.imag[i] = -a.imag[i]             # writes the imaginary parts in place
        np.real(a)[i] += 1.0
        b.real[i, ::-1] = a.imag[i]        # a stepped view of the parts, a scalar broadcast into it
        out[i, 3] = a[1:].real.shape[0] + b.T.imag.strides[0]


def test_array_parts_are_views():
    a = np.array([1 + 2j, -3.5 - 0.25j, 0.5j], np.complex64)
    b = (np.arange(9).reshape(3, 3) + 1j * np.arange(9, 18).reshape(3, 3)).astype(np.complex128)
    a0, b0 = a.copy(), b.copy()
    out = np.zeros((3, 4))
    array_parts[1, 3](a, b, out)
    assert (out[:, 0] == a0.real).all() and (out[:, 1] == a0.imag).all()
    assert (out[:, 2] == a0.real + a0.imag).all()
    want = a0.copy()
    want.imag = -want.imag
    want.real += 1
    assert (a == want).all()
    wb = b0.copy()
    wb.real = -a0.imag[:, None]
    assert (b == wb).all()
    assert (out[:, 3] == 2 + b0.T.imag.strides[0]).all()  # NumPy's strides: the complex array's


@cuda.jit
def atomic_parts(a, n):
    i = cuda.grid(1)
    if i < n:
        cuda.atomic.add(a.real, i % 2, 1.0)
        cuda.atomic.add(a.imag, i % 2, -2.0)


def test_atomics_on_array_parts():
    a = np.zeros(2, np.complex64)
    atomic_parts[2, 32](a, 64)
    assert (a == np.array([32 - 64j, 32 - 64j], np.complex64)).all()


@cuda.jit
def real_of_real(f, out):
    out[0] = f.real[1] + np.real(f)[0] + np.imag(f[0]) + f[0].imag


@cuda.jit
def imag_of_real_array(f, out):
    out[0] = f.imag[0]


@cuda.jit
def parts_of_bool_array(f, out):
    out[0] = f.real[0]


CONST_F = np.array([1.5, 2.0])


@cuda.jit
def store_to_const_part(f, out):
    c = cuda.const.array_like(CONST_F)
    c.real[0] = 1.0


def test_parts_of_real_arrays_and_refusals():
    out = np.zeros(1)
    real_of_real[1, 1](np.array([1.5, 2.0]), out)  # .real of a real array is the array itself, .imag of a number 0
    assert out[0] == 3.5
    with pytest.raises(errors.CompilerError, match=r"\.imag of array\(float64, 1d, C\) makes a new array of zeros"):
        imag_of_real_array[1, 1](np.zeros(2), out)
    with pytest.raises(errors.CompilerError, match=r"cannot access \.real of array of bool"):
        parts_of_bool_array[1, 1](np.zeros(2, np.bool_), out)
    with pytest.raises(errors.CompilerError, match="read-only"):
        store_to_const_part[1, 1](np.zeros(2), out)


# ---- complex constants: globals and closure variables frozen as numba-cuda freezes them ------------------------------

GC = 1 + 2j
GT = (GC, 3.5 - 1j, (-0.0 - 2j, 1))
G64 = np.complex64(0.1 + 0.2j)
G128 = np.complex128(-1.5 + 0.25j)
GA = np.array([[1 + 2j, 3], [0.5j, -1]], dtype=np.complex64)
GB = np.array([1j, 2, -3.5 - 4j])[::2]  # strided: its elements are copied in order


@cuda.jit
def complex_globals(out, o64):
    out[0] = GC
    out[1] = GT[1]
    out[2] = GT[2][0] + GT[2][1]
    out[3] = G128 * GC
    out[4] = GB[0] + GB[1]
    c = cuda.const.array_like(GA)
    o64[0] = G64
    o64[1] = c[1, 0] + GA[0, 1]
    o64[2] = G64 * GA[0, 0]  # complex64 throughout, as Numba types it
    s = 0j
    for z in GT[:2]:
        s += z
    out[5] = s


def test_complex_globals():
    out, o64 = np.zeros(6, np.complex128), np.zeros(3, np.complex64)
    complex_globals[1, 1](out, o64)
    assert (out == [GC, GT[1], GT[2][0] + GT[2][1], G128 * GC, GB[0] + GB[1], GT[0] + GT[1]]).all(), out
    assert np.signbit(out[2].real) is np.False_ and out[2] == 1 - 2j
    assert (o64 == np.array([G64, GA[1, 0] + GA[0, 1], G64 * GA[0, 0]], np.complex64)).all(), o64


def test_complex_closure_variable_and_types():
    w = np.complex64(2 - 1j)
    z = complex(-0.0, 0.0)

    @cuda.jit
    def closure(out, f):
        out[0] = w * 2  # complex64 * int64: complex128, as Numba unifies them
        out[1] = z
        f[0] = w.real + abs(w)

    out, f = np.zeros(2, np.complex128), np.zeros(1, np.float32)
    closure[1, 1](out, f)
    assert out[0] == 4 - 2j and np.signbit(out[1].real) and not np.signbit(out[1].imag)
    assert f[0] == np.float32(2 + np.sqrt(np.float32(5)))


@cuda.jit
def store_to_complex_global(out):
    GA[0, 0] = 1j


def test_complex_global_array_is_read_only():
    with pytest.raises(errors.CompilerError, match="read-only"):
        store_to_complex_global[1, 1](np.zeros(1))


@cuda.jit("void(complex64[:, ::1], complex64[:, ::1], complex64[:, ::1])")
def complex_matmul(a, b, c):
    i, j = cuda.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        s = 0j
        for k in range(a.shape[1]):
            s += a[i, k] * b[k, j]
        c[i, j] = s


@cuda.jit
def complex_sum_by_iteration(a, out):
    s = 0j
    for z in a:
        s += z
    out[0] = s


def test_tiled_complex_loops():
    # tile-shared stages complex tiles (zeros past the edges: extents that are not multiples of the tile)
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((37, 29)) + 1j * rng.standard_normal((37, 29))).astype(np.complex64)
    b = (rng.standard_normal((29, 41)) + 1j * rng.standard_normal((29, 41))).astype(np.complex64)
    c = np.zeros((37, 41), np.complex64)
    complex_matmul[(3, 3), (16, 16)](a, b, c)
    assert np.allclose(c, a.astype(np.complex128) @ b, rtol=1e-5, atol=1e-5)
    out = np.zeros(1, np.complex128)
    complex_sum_by_iteration[1, 1](np.array([1j, 2, -0.5 + 3j]), out)
    assert out[0] == 1.5 + 4j


@cuda.jit
def complex_slices(a, b, c):
    a[1:3] = b[:2]           # arrays of complex into a slice
    a[3:] = b[0] * 1j        # a complex number into each element
    b[1:] = b[:-1]           # overlapping: copied from the end
    c[:, 0] = a[:2]          # complex64 from complex128
    c[:, 1] = (1j, -2.5 + 0j)  # a tuple of complex numbers
    c[0, 0] += 0.5j


def test_slice_stores_of_complex():
    a, b, c = np.zeros(5, np.complex128), np.array([1j, 2, 3 + 3j]), np.zeros((2, 2), np.complex64)
    complex_slices[1, 1](a, b, c)
    assert (a == [0, 1j, 2, -1, -1]).all(), a
    assert (b == [1j, 1j, 2]).all(), b
    assert (c == np.array([[0.5j, 1j], [1j, -2.5]], np.complex64)).all(), c
