"""fused.py — reference values for kfront's multiply-add contraction (passes/contract.c), for the tests here and in
test/gpu/python: x * y + z is one fma, rounded once, where the contract pass fuses it, so the simulator and the GPU
give these values bit for bit. fma() is exact (rational arithmetic, rounded once to the format); cmul / cdiv / cpow
are the complex operations as lower-complex expands them, with the products fused as the pass fuses them:
  complex product  re = fma(a.re, b.re, -(a.im * b.im)),  im = fma(a.re, b.im, a.im * b.re)
  (the first product of each sum is fused, the second rounded: both have one use, and on a tie the first operand).
"""
import math
import struct
from fractions import Fraction

import numpy as np


def _round_to(q, f):
    """The rational q rounded to nearest (even) in the NumPy float type f, once."""
    try:
        d = float(q)  # correctly rounded to binary64 (CPython's int / int)
    except OverflowError:
        return f(math.inf if q > 0 else -math.inf)
    if f is np.float64:
        return f(d)
    if Fraction(d) != q:  # to odd: the sticky bit keeps the one rounding to the narrower format right
        u = struct.unpack("<q", struct.pack("<d", d))[0]
        if not u & 1:
            u += 1 if (Fraction(d) < q) == (d > 0) else -1
            d = struct.unpack("<d", struct.pack("<q", u))[0]
    with np.errstate(all="ignore"):
        return f(d)


def fma(x, y, z, f=np.float64):
    """x * y + z rounded once in the NumPy float type f (float16, float32, float64), as math.fma / fma.rn."""
    x, y, z = float(f(x)), float(f(y)), float(f(z))
    if math.isnan(x) or math.isnan(y) or math.isnan(z):
        return f(math.nan)
    if math.isinf(x) or math.isinf(y):
        if x == 0 or y == 0:
            return f(math.nan)
        p = math.copysign(math.inf, x) * math.copysign(1.0, y)
        return f(math.nan) if math.isinf(z) and z != p else f(p)
    if math.isinf(z):
        return f(z)
    q = Fraction(x) * Fraction(y) + Fraction(z)
    if q == 0:  # an exact zero: -0 only when the product and z are both -0 (or negative zeros), else +0
        neg_p = math.copysign(1.0, x) * math.copysign(1.0, y) < 0
        return f(-0.0) if x * y == 0 and neg_p and math.copysign(1.0, z) < 0 else f(0.0)
    return _round_to(q, f)


def _mul(x, y, f):
    with np.errstate(all="ignore"):
        return f(f(x) * f(y))


def cmul(a, b, f=np.float64):
    """The complex product (parts of type f) as kfront computes it, as numba-cuda's on the H200: fma(a, c, -(b*d)) and
    fma(b, c, a*d) (numba-cuda's ad + bc has its second product fused there)."""
    ar, ai, br, bi = f(a.real), f(a.imag), f(b.real), f(b.imag)
    return complex(fma(ar, br, -_mul(ai, bi, f), f), fma(ai, br, _mul(ar, bi, f), f))


def cdiv(a, b, f=np.float64):
    """CPython's _Py_c_quot (numba-cuda's complex division) as lower-complex expands it, contracted."""
    ar, ai, br, bi = f(a.real), f(a.imag), f(b.real), f(b.imag)
    with np.errstate(all="ignore"):
        if abs(br) >= abs(bi):
            if br == 0:
                return complex(math.nan, math.nan)
            r = f(bi / br)
            d = fma(bi, r, br, f)
            return complex(f(fma(ai, r, ar, f) / d), f(fma(-ar, r, ai, f) / d))
        if bi == 0:  # |b.re| < |b.im|, or a NaN part
            return complex(math.nan, math.nan)
        r = f(br / bi)
        d = fma(br, r, bi, f)
        return complex(f(fma(ar, r, ai, f) / d), f(fma(ai, r, -ar, f) / d))


def np_cdiv(a, b, f=np.float64):
    """NumPy's complex division (np.divide's complex loop, numba-cuda's np_complex_div_impl), contracted."""
    ar, ai, br, bi = f(a.real), f(a.imag), f(b.real), f(b.imag)
    with np.errstate(all="ignore"):
        if abs(br) >= abs(bi):
            if br == 0 and bi == 0:
                return complex(f(ar / abs(br)), f(ai / abs(bi)))
            rat = f(bi / br)
            scl = f(f(1) / fma(bi, rat, br, f))
            return complex(f(fma(ai, rat, ar, f) * scl), f(fma(-ar, rat, ai, f) * scl))
        rat = f(br / bi)
        scl = f(f(1) / fma(br, rat, bi, f))
        return complex(f(fma(ar, rat, ai, f) * scl), f(fma(ai, rat, -ar, f) * scl))


def np_crecip(a, f=np.float64):
    """NumPy's complex reciprocal (np.reciprocal's complex loop, numba-cuda's np_complex_reciprocal_impl), contracted."""
    r, i = f(a.real), f(a.imag)
    with np.errstate(all="ignore"):
        if abs(i) <= abs(r):
            r1 = f(i / r)
            inv = f(f(1) / fma(i, r1, r, f))
            return complex(inv, f(f(f(0) - r1) * inv))
        r2 = f(r / i)
        inv = f(f(1) / fma(r, r2, i, f))
        return complex(f(r2 * inv), f(f(0) - inv))


def cpow(a, b):
    """numba-cuda's complex power (mathimpl.py cpow_implement) in IEEE doubles as lower-complex expands it,
    contracted: the complex128 reference (the math functions are the host's, as the simulator's)."""
    f = np.float64
    ar, ai, br, bi = f(a.real), f(a.imag), f(b.real), f(b.imag)
    if br == 0.0 and bi == 0.0:
        return 1 + 0j
    if ar == 0.0 and br == 0.0:
        return 0j
    with np.errstate(all="ignore"):
        vabs = np.hypot(ar, ai)
        length = np.power(vabs, br)
        at = np.arctan2(ai, ar)
        phase = at * br
        if bi != 0.0:
            length = length / np.exp(at * bi)
            phase = fma(bi, np.log(vabs), phase)
        s, c = np.sin(phase), np.cos(phase)
        zero, one = f(0.0), f(1.0)
        t_re, t_im = fma(s, zero, -(zero * one)), fma(s, one, zero * zero)
        u_re, u_im = c + t_re, zero + t_im
        return complex(fma(length, u_re, -(zero * u_im)), fma(length, u_im, zero * u_re))
