# Arithmetic typing and promotion as Numba types it (numba/cuda/typing/builtins.py): integers are at least
# int64 (int32 + int32 is int64), uint32 op uint32 is uint64, int64 op uint64 is int64, float32 with an
# int64 (a literal) is float64, float32 op float32 stays float32; literal-only expressions are folded by
# Python (2 ** -1 is 0.5).
# RUN: kfront compile %s -k promote --sig 'void(float32[:], int32[:], uint32[:], float64[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=PROMOTE
# RUN: kfront compile %s -k bits --sig 'void(int32[:], uint8[:], int64[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=BITS
# RUN: kfront compile %s -k unary --sig 'void(int32[:], uint8[:], float32[:], int64[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=UNARY
# RUN: kfront compile %s -k powers --sig 'void(int64[:], float32[:], float64[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=POW
from numba import cuda


@cuda.jit
def promote(f, i, u, out):
    # PROMOTE-LABEL: func.func
    # PROMOTE: %[[I0:.*]] = mem.load({{.*}}) : (array<i32, 1, A>, i64) -> (i32)
    # PROMOTE: %[[I1:.*]] = mem.load({{.*}}) : (array<i32, 1, A>, i64) -> (i32)
    # PROMOTE: %[[A:.*]] = arith.extsi(%[[I0]]) : (i32) -> (i64)
    # PROMOTE: %[[B:.*]] = arith.extsi(%[[I1]]) : (i32) -> (i64)
    # PROMOTE: arith.addi(%[[A]], %[[B]]) : (i64, i64) -> (i64)
    a = i[0] + i[1]
    # PROMOTE: arith.extui({{.*}}) : (u32) -> (u64)
    # PROMOTE: arith.extui({{.*}}) : (u32) -> (u64)
    # PROMOTE: arith.muli({{.*}}) : (u64, u64) -> (u64)
    b = u[0] * u[1]
    # float32 * 2 (an int64 literal) is float64
    # PROMOTE: arith.extf({{.*}}) : (f32) -> (f64)
    # PROMOTE: arith.constant() {value = 2.0} : () -> (f64)
    # PROMOTE: arith.mulf({{.*}}) : (f64, f64) -> (f64)
    c = f[0] * 2
    # PROMOTE: arith.addf({{.*}}) : (f32, f32) -> (f32)
    d = f[0] + f[1]
    # int64 op uint64 is int64 in Numba (not float64 as in NumPy)
    # PROMOTE: arith.subi({{.*}}) : (i64, i64) -> (i64)
    e = a - b
    # true division of integers is float64
    # PROMOTE: arith.sitofp({{.*}}) : (i64) -> (f64)
    # PROMOTE: arith.constant() {value = 3.0} : () -> (f64)
    # PROMOTE: arith.divf({{.*}}) : (f64, f64) -> (f64)
    g = a / 3
    # folded by Python before Numba sees it: 2 ** -1 is 0.5, 7 // 2 is 3
    # PROMOTE: arith.constant() {value = 0.5} : () -> (f64)
    h = 2 ** -1
    # PROMOTE: arith.constant() {value = 3.0} : () -> (f64)
    k = 7 // 2
    out[0] = a + b + c + d + e + g + h + k


@cuda.jit
def bits(a, u8, out):
    # BITS-LABEL: func.func
    # shifts: the result is the left operand widened to (u)int64
    # BITS: arith.shli({{.*}}) : (i64, i64) -> (i64)
    x = a[0] << 3
    # BITS: arith.shrui({{.*}}) : (u64, u64) -> (u64)
    y = u8[0] >> 1
    # BITS: arith.andi({{.*}}) : (i64, i64) -> (i64)
    z = a[0] & 0xFF
    # BITS: arith.xori({{.*}}) : (i64, i64) -> (i64)
    w = a[0] ^ a[1]
    # uint8 | int8 literal: (uint64, int64) -> int64
    # BITS: arith.ori({{.*}}) : (i64, i64) -> (i64)
    v = u8[0] | 1
    out[0] = x + y + z + w + v


@cuda.jit
def unary(a, u8, f, out):
    # UNARY-LABEL: func.func
    # -int32 is int64
    # UNARY: arith.extsi({{.*}}) : (i32) -> (i64)
    # UNARY: arith.subi({{.*}}) : (i64, i64) -> (i64)
    x = -a[0]
    # ~uint8 is computed in 8 bits, then widened to uint64 (~uint8(0) is 255)
    # UNARY: %[[M:.*]] = arith.constant() {value = 255 : u8} : () -> (u8)
    # UNARY: %[[I:.*]] = arith.xori({{.*}}, %[[M]]) : (u8, u8) -> (u8)
    # UNARY: arith.extui(%[[I]]) : (u8) -> (u64)
    y = ~u8[0]
    # UNARY: arith.negf({{.*}}) : (f32) -> (f32)
    z = -f[0]
    # not x: x != 0, inverted
    # UNARY: arith.cmpi({{.*}}) {pred = "ne"} : (i32, i32) -> (i1)
    # UNARY: arith.xori({{.*}}) : (i1, i1) -> (i1)
    w = not a[1]
    out[0] = x + y + z + w


@cuda.jit
def powers(a, f, out):
    # POW-LABEL: func.func
    # POW: arith.ipow({{.*}}) : (i64, i64) -> (i64)
    x = a[0] ** a[1]
    # float32 ** int: float32 with an integer exponent
    # POW: math.powi({{.*}}) : (f32, i64) -> (f32)
    y = f[0] ** 2
    # POW: math.pow({{.*}}) : (f64, f64) -> (f64)
    z = f[0] ** 2.5
    out[0] = x + y + z
