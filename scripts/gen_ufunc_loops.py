#!/usr/bin/env python3
"""gen_ufunc_loops.py — prints, for each ufunc of frontend/numeric.c, the loops of the installed NumPy's
ufunc.types that numba-cuda lowers in kernels, in NumPy's order, as numeric.c's table writes them (bool '?' as
'^'). numba-cuda's ufunc_db (numba/cuda/np/ufunc_db.py) lowers, for these ufuncs, the loops of the letters
?bBhHiIlLqQfd but for the exceptions below, and the complex loops (letters F, D) of the ufuncs in COMPLEX; typing
skips float16 loops. Rerun after a NumPy upgrade and compare
with the table (a NumPy that adds or reorders loops changes which loop a call takes).

    python3 scripts/gen_ufunc_loops.py
"""
import numpy as np

LETTERS = set("?bBhHiIlLqQfd")
# (ufunc, loop) that NumPy has and numba-cuda's ufunc_db does not lower
NOT_LOWERED = {("negative", "??->?"), ("negative", "?->?"), ("positive", "?->?"), ("subtract", "??->?"),
               ("conjugate", "?->?"), ("sign", "?->?"), ("square", "?->?"), ("reciprocal", "?->?")}
# the ufuncs whose complex loops ("F->F", "FF->?", ...) numba-cuda's ufunc_db lowers
COMPLEX = {"absolute", "add", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "conjugate", "cos", "cosh",
           "equal", "exp", "exp2", "expm1", "float_power", "fmax", "fmin", "greater", "greater_equal", "isfinite",
           "isinf", "isnan", "less", "less_equal", "log", "log10", "log1p", "log2", "logical_and", "logical_not",
           "logical_or", "logical_xor", "maximum", "minimum", "multiply", "negative", "not_equal", "positive",
           "power", "reciprocal", "rint", "sign", "sin", "sinh", "sqrt", "square", "subtract", "tan", "tanh",
           "true_divide"}
UFUNCS = ["absolute", "add", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "bitwise_and",
          "bitwise_or", "bitwise_xor", "cbrt", "ceil", "conjugate", "copysign", "cos", "cosh", "deg2rad", "degrees",
          "divmod", "equal", "exp", "exp2", "expm1", "fabs", "float_power", "floor", "floor_divide", "fmax", "fmin",
          "fmod", "greater", "greater_equal", "hypot", "invert", "isfinite", "isinf", "isnan", "ldexp",
          "left_shift", "less", "less_equal", "log", "log10", "log1p", "log2", "logaddexp", "logaddexp2",
          "logical_and", "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "multiply", "negative",
          "nextafter", "not_equal", "positive", "power", "rad2deg", "radians", "reciprocal", "remainder",
          "right_shift", "rint", "sign", "signbit", "sin", "sinh", "spacing", "sqrt", "square", "subtract", "tan",
          "tanh", "true_divide", "trunc"]


def main():
    print(f"# NumPy {np.__version__}")
    for name in UFUNCS:
        uf = getattr(np, name)
        loops = []
        for loop in uf.types:
            letters = LETTERS | set("FD") if name in COMPLEX else LETTERS
            if set(loop.replace("->", "")) <= letters and (name, loop) not in NOT_LOWERED and loop not in loops:
                loops.append(loop)
        print(f'{name:15s} nin={uf.nin} nout={uf.nout} "{" ".join(loops).replace("?", "^")}"')


if __name__ == "__main__":
    main()
