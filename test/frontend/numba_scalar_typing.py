#!/usr/bin/env python3
"""numba_scalar_typing.py — dumps numba-cuda's typing of scalar operators and functions.

Writes one line per (operation, argument types): `OP A [B] -> RESULT ARG0 [ARG1]` (the signature numba
picks, with the types the arguments are converted to), `-` when numba has no implementation, and
`unify A B -> T` for numba's unify_types. test/unit/frontend_typing.c checks kfront's tables against the
output, kept in Inputs/numba_scalar_typing.txt. Regenerate with:

    python3 test/frontend/numba_scalar_typing.py > test/frontend/Inputs/numba_scalar_typing.txt

(needs `pip install numba numba-cuda`; typing runs on the CPU, no GPU or driver is used).
"""
import contextlib
import math
import operator
import sys

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

from numba.cuda import types  # noqa: E402
from numba.cuda.descriptor import cuda_target  # noqa: E402
from numba.cuda import cudadecl  # noqa: E402,F401
from numba.cuda import fp16  # noqa: E402,F401  (its @overloads: math.tanh of a float16 is a float16, as compiling shows)

SCALARS = [types.boolean, types.int8, types.int16, types.int32, types.int64, types.uint8, types.uint16,
           types.uint32, types.uint64, types.float16, types.float32, types.float64, types.complex64, types.complex128]

BINARY = [("add", operator.add), ("sub", operator.sub), ("mul", operator.mul), ("truediv", operator.truediv),
          ("floordiv", operator.floordiv), ("mod", operator.mod), ("pow", operator.pow),
          ("lshift", operator.lshift), ("rshift", operator.rshift), ("and", operator.and_),
          ("or", operator.or_), ("xor", operator.xor), ("lt", operator.lt), ("le", operator.le),
          ("eq", operator.eq), ("ne", operator.ne), ("math.atan2", math.atan2), ("math.hypot", math.hypot),
          ("math.copysign", math.copysign), ("math.fmod", math.fmod), ("math.pow", math.pow)]
UNARY = [("neg", operator.neg), ("pos", operator.pos), ("invert", operator.invert), ("not", operator.not_),
         ("abs", abs), ("round", round), ("math.sqrt", math.sqrt), ("math.floor", math.floor),
         ("math.sin", math.sin), ("math.tanh", math.tanh), ("math.isnan", math.isnan)]


def name(t):
    return str(t)


def cuda_local_target():
    """Type as inside a CUDA compile: where numba proper is installed beside numba-cuda, its function types order
    the templates by the *local* target (the CPU outside a compile), so an @overload(..., target="cuda") comes after
    the generic templates (math.tanh of a float16 would read float32; compiling gives float16)."""
    try:
        from numba.core.target_extension import target_override
    except ImportError:  # numba-cuda alone: its own ordering puts the CUDA templates first already
        return contextlib.nullcontext()
    return target_override("cuda")


def main():
    with cuda_local_target():
        dump()


def dump():
    ctx = cuda_target.typing_context
    ctx.refresh()
    out = sys.stdout
    for op, fn in UNARY:
        for a in SCALARS:
            try:
                sig = ctx.resolve_function_type(fn, (a,), {})
            except Exception:
                sig = None
            if sig is None:
                out.write(f"{op} {name(a)} -> -\n")
            else:
                out.write(f"{op} {name(a)} -> {name(sig.return_type)} {name(sig.args[0])}\n")
    for op, fn in BINARY:
        for a in SCALARS:
            for b in SCALARS:
                try:
                    sig = ctx.resolve_function_type(fn, (a, b), {})
                except Exception:
                    sig = None
                if sig is None:
                    out.write(f"{op} {name(a)} {name(b)} -> -\n")
                else:
                    out.write(f"{op} {name(a)} {name(b)} -> {name(sig.return_type)} "
                              f"{name(sig.args[0])} {name(sig.args[1])}\n")
    for a in SCALARS:
        for b in SCALARS:
            out.write(f"unify {name(a)} {name(b)} -> {name(ctx.unify_types(a, b))}\n")


if __name__ == "__main__":
    main()
