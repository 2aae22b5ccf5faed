# Python's operator module used as functions (operator.add(a, b), operator.__mul__, from operator import iadd...):
# each lowers through the same typing and lowering as the syntax it stands for, so a kernel written with the
# functions gives exactly the kir of the same kernel written with operators (diffed below, symbol names aside).
# RUN: kfront compile %s -k syntax --sig 'void(int64[::1], float32[::1], int32, uint8, float32)' --emit=kir | sed 's/syntax/KERNEL/g' > %t.syntax
# RUN: kfront compile %s -k functions --sig 'void(int64[::1], float32[::1], int32, uint8, float32)' --emit=kir | sed 's/functions/KERNEL/g' > %t.functions
# RUN: diff %t.syntax %t.functions
# RUN: FileCheck %s --check-prefix=KIR < %t.functions
# RUN: kfront compile %s -k functions --sig 'void(int64[::1], float32[::1], int32, uint8, float32)' --emit=ptx -o %t.ptx && %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %s -k half --sig 'void(float16[::1], float16)' --emit=kir | FileCheck %s --check-prefix=HALF
# RUN: not kfront compile %s -k refused --sig 'void(int64[::1], int64)' 2>&1 | FileCheck %s --check-prefix=ERR
import operator
from operator import iadd, not_, __mul__ as mul
from numba import cuda


@cuda.jit
def syntax(out, f, i, u, x):
    out[0] = i + u
    out[1] = i - u * i
    out[2] = i // u
    out[3] = i % u
    out[4] = i ** 2
    out[5] = (i << u) | (i >> 1)
    out[6] = (i & u) ^ ~u
    out[7] = (i < u) + (i <= u) + (i > u) + (i >= u) + (i == u) + (i != u)
    out[8] = -i + +u
    out[9] = not i
    f[0] = x / i
    f[1] = x ** i
    f[2] = f[i]
    f[3] = i + u


@cuda.jit
def functions(out, f, i, u, x):
    # KIR: arith.addi
    # KIR: arith.floordivsi
    # KIR: }) {sym_name = @KERNEL
    operator.setitem(out, 0, operator.add(i, u))
    out[1] = operator.sub(i, mul(u, i))
    out[2] = operator.floordiv(i, u)
    out[3] = operator.mod(i, u)
    out[4] = operator.pow(i, 2)
    out[5] = operator.or_(operator.lshift(i, u), operator.__rshift__(i, 1))
    out[6] = operator.xor(operator.and_(i, u), operator.invert(u))
    out[7] = operator.lt(i, u) + operator.le(i, u) + operator.gt(i, u) + operator.ge(i, u) + operator.eq(i, u) + operator.ne(i, u)
    out[8] = iadd(operator.neg(i), operator.pos(u))
    out[9] = not_(i)
    f[0] = operator.truediv(x, i)
    f[1] = operator.ipow(x, i)
    f[2] = operator.getitem(f, i)
    operator.setitem(f, 3, operator.iadd(i, u))


@cuda.jit
def half(h, x):
    # numba-cuda's float16 operator.abs (its only type for it)
    # HALF: math.fabs(%{{.*}}) : (f16) -> (f16)
    h[0] = operator.abs(x)


@cuda.jit
def refused(out, i):
    # ERR: operator_functions.py:[[@LINE+1]]:29: error: operator.truth() of int64 is not supported (numba-cuda types it for booleans only)
    out[0] = operator.truth(i)
    # ERR: operator_functions.py:[[@LINE+1]]:27: error: operator.abs() of int64 is not supported (numba-cuda types it for float16 only; use abs())
    out[1] = operator.abs(i)
    # ERR: operator_functions.py:[[@LINE+1]]:14: error: operator.index() is not supported in kernels (numba-cuda does not type it)
    out[2] = operator.index(i)
    # ERR: operator_functions.py:[[@LINE+1]]:14: error: unsupported operand types for '+': int64 and array(int64, 1d, C)
    out[3] = operator.add(i, out)
    # ERR: operator_functions.py:[[@LINE+1]]:14: error: operator.getitem() takes 2 positional arguments
    out[4] = operator.getitem(out)
