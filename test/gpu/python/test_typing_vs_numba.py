"""GPU machine only: kfront's typing against numba-cuda's, expression by expression (run by test/gpu/run_python_gpu.sh
where numba-cuda is installed; its compile_ptx needs no GPU, only the machine's toolkit).

Each case is a device function of one expression (an operator, a builtin, a math or cmath function, a NumPy ufunc
on scalars, a CUDA intrinsic, an operator-module function, a CUDA vector type's field) compiled by both for the same argument types with compile_ptx(..., device=True); the
return types must be equal. A case numba-cuda refuses is not compared (kfront may accept more); a case kfront
refuses and numba-cuda accepts is a failure. The cases are the product of the expression families below with
argument types chosen per family (every pair of scalar types for +, / and **, smaller sets elsewhere): about 2,000
cases, a few minutes of numba-cuda's compiles."""
import itertools
import linecache
import os

import numba.cuda as ncuda  # the GPU machine has numba-cuda: missing, the suite fails (it is not skipped)
import numba
import numpy as np
import pytest

from kfront import cuda as kcuda
from kfront import errors as kerrors

os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
SCALARS = ["boolean"] + INTS + FLOATS
SMALL = ["boolean", "int8", "int64", "uint64", "float16", "float64"]
# mixed pairs: each left type with each right type of another kind and width
MIXED = list(itertools.product(["boolean", "int64", "uint64", "float32"], ["int8", "uint32", "float16", "float64"]))

BINARY_OPERATORS = ["a + b", "a - b", "a * b", "a / b", "a // b", "a % b", "a ** b", "a < b", "a == b", "a & b",
                    "a | b", "a ^ b", "a << b", "a >> b"]
UNARY = ["-a", "+a", "~a", "not a", "abs(a)", "int(a)", "float(a)", "bool(a)", "round(a)", "round(a, 1)", "a.real",
         "a.imag", "a.conjugate()"]
BUILTIN2 = ["min(a, b)", "max(a, b)", "pow(a, b)", "divmod(a, b)", "(a, b)"]
MATH1 = ["math.sqrt(a)", "math.floor(a)", "math.ceil(a)", "math.trunc(a)", "math.fabs(a)", "math.exp(a)",
         "math.log(a)", "math.sin(a)", "math.tanh(a)", "math.erf(a)", "math.gamma(a)", "math.isnan(a)",
         "math.isinf(a)", "math.frexp(a)", "math.modf(a)", "math.degrees(a)"]
MATH2 = ["math.pow(a, b)", "math.atan2(a, b)", "math.hypot(a, b)", "math.copysign(a, b)", "math.fmod(a, b)",
         "math.ldexp(a, 2)", "math.remainder(a, b)", "math.nextafter(a, b)"]
CMATH = ["cmath.exp(a)", "cmath.log(a)", "cmath.sqrt(a)", "cmath.sin(a)", "cmath.phase(a)", "cmath.polar(a)",
         "cmath.isnan(a)", "cmath.rect(abs(a), 0.5)"]
UFUNC1 = ["np.sin(a)", "np.sqrt(a)", "np.floor(a)", "np.sign(a)", "np.absolute(a)", "np.negative(a)",
          "np.isnan(a)", "np.logical_not(a)", "np.invert(a)", "np.exp2(a)", "np.reciprocal(a)", "np.cbrt(a)"]
UFUNC2 = ["np.add(a, b)", "np.true_divide(a, b)", "np.floor_divide(a, b)", "np.power(a, b)", "np.maximum(a, b)",
          "np.fmin(a, b)", "np.arctan2(a, b)", "np.greater(a, b)", "np.left_shift(a, b)", "np.logical_and(a, b)",
          "np.hypot(a, b)", "np.remainder(a, b)"]
INTRINSIC1 = ["cuda.popc(a)", "cuda.clz(a)", "cuda.ffs(a)", "cuda.brev(a)", "cuda.cbrt(a)"]
INTRINSIC3 = ["cuda.fma(a, b, b)", "cuda.selp(a > 0, a, b)"]
OPERATOR1 = ["operator.neg(a)", "operator.pos(a)", "operator.invert(a)", "operator.not_(a)", "operator.truth(a)",
             "operator.abs(a)"]
OPERATOR2 = ["operator.add(a, b)", "operator.truediv(a, b)", "operator.floordiv(a, b)", "operator.pow(a, b)",
             "operator.ilshift(a, b)", "operator.and_(a, b)", "operator.ne(a, b)", "operator.ge(a, b)",
             "operator.imod(a, b)", "operator.getitem((a, b), 1)"]
# the complex loops of NumPy's ufuncs (numba-cuda compiles those of its CUDA table; the rest it types and cannot lower)
CUFUNC1 = ["np.sinh(a)", "np.cosh(a)", "np.tanh(a)", "np.arccosh(a)", "np.arcsinh(a)", "np.log2(a)", "np.log10(a)",
           "np.exp2(a)", "np.expm1(a)", "np.log1p(a)", "np.sign(a)", "np.rint(a)", "np.isinf(a)", "np.isfinite(a)"]
CUFUNC2 = ["np.maximum(a, b)", "np.minimum(a, b)", "np.fmax(a, b)", "np.fmin(a, b)", "np.greater(a, b)",
           "np.less_equal(a, b)", "np.power(a, b)", "np.float_power(a, b)", "np.logical_xor(a, b)"]
VECTOR2 = ["cuda.float32x2(a, b).y", "cuda.int16x3(a, cuda.int16x2(b, a)).z", "cuda.uint8x4(cuda.uint8x1(a), b, a, b).w",
           "cuda.float64x2(a, b).x + cuda.double1(b).x", "cuda.long3(a, b, a).y"]


def cases():
    for e in BINARY_OPERATORS:
        pairs = itertools.product(SCALARS, SCALARS) if e in ("a + b", "a / b", "a ** b") else \
            itertools.product(SMALL, SMALL)
        for p in pairs:
            yield e, p
    for e in UNARY:
        for t in SCALARS + COMPLEX:
            yield e, (t,)
    for e in BUILTIN2 + MATH2 + UFUNC2 + INTRINSIC3 + OPERATOR2 + VECTOR2:
        for p in MIXED + [(t, t) for t in SMALL]:
            yield e, p
    for e in MATH1 + UFUNC1 + INTRINSIC1 + OPERATOR1:
        for t in SCALARS:
            yield e, (t,)
    for e in CMATH:
        for t in ["int64", "float32", "float64"] + COMPLEX:
            yield e, (t,)
    for e in ["a + b", "a * b", "a / b", "a ** b", "a == b", "np.add(a, b)", "np.power(a, b)"]:
        for p in itertools.product(COMPLEX, ["int32", "float32", "float64"] + COMPLEX):
            yield e, p
    for e in CUFUNC1:
        for t in COMPLEX:
            yield e, (t,)
    for e in CUFUNC2:
        for p in itertools.product(COMPLEX, ["int32", "float32"] + COMPLEX):
            yield e, p


def device_function(module, expr, nargs):
    params = ", ".join("ab"[:nargs])
    src = "def f(%s):\n    return %s\n" % (params, expr)
    fname = "<typing %s %s>" % (module.__name__, expr)
    linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
    import cmath
    import math
    import operator
    scope = {"cuda": module, "np": np, "math": math, "cmath": cmath, "operator": operator}
    exec(compile(src, fname, "exec"), scope)
    return scope["f"]


def canon(t):
    """A comparable form of a Numba or kfront type: tuples by their elements, scalars by name."""
    elems = getattr(t, "types", None)
    if elems is not None and not isinstance(t, str):
        return tuple(canon(e) for e in elems)
    name = str(t)
    return {"bool": "boolean"}.get(name, name)


def numba_type(name):
    return getattr(numba.types, name)


def kfront_type(name):
    from kfront import types
    return getattr(types, name)


def test_typing_matches_numba():
    compared, numba_refused, mismatches, refused = 0, 0, [], []
    for expr, argtypes in cases():
        nargs = len(argtypes)
        try:
            _, nres = ncuda.compile_ptx(device_function(ncuda, expr, nargs),
                                        tuple(numba_type(t) for t in argtypes), device=True)
        except Exception:
            numba_refused += 1
            continue
        try:
            _, kres = kcuda.compile_ptx(device_function(kcuda, expr, nargs),
                                        tuple(kfront_type(t) for t in argtypes), device=True)
        except (kerrors.KfrontError, AttributeError, TypeError, ValueError) as e:
            refused.append("%s on %s: %s" % (expr, argtypes, str(e).splitlines()[0][:160]))
            continue
        compared += 1
        if canon(nres) != canon(kres):
            mismatches.append("%s on %s: numba-cuda %s, kfront %s" % (expr, argtypes, nres, kres))
    print("typing: %d cases compared, %d refused by numba-cuda, %d refused by kfront only, %d differ"
          % (compared, numba_refused, len(refused), len(mismatches)))
    for line in mismatches + refused:
        print("  " + line)
    assert compared > 1000
    assert not mismatches, "%d typing differences, first: %s" % (len(mismatches), mismatches[:10])
    assert not refused, "%d cases kfront refuses and numba-cuda compiles, first: %s" % (len(refused), refused[:10])
