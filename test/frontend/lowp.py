# bfloat16 (numba-cuda's cuda.bf16), cuda.fp16's conversions by a rounding mode and int.bit_count(), from Python
# source to kir: bf16 values and ops with numba-cuda's typing (bfloat16 + bfloat16 is bfloat16, with a float32 it
# is float32), the intrinsics as kir ops on bf16, conversions as arith.truncf / sitofp with attr round, from bf16 to
# integers as math.round / floor / ceil then the saturating fptosi; bit_count() as arith.popc of the integer's type.
# RUN: kfront compile %s -k bf --sig 'void(float32[::1], int32[::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=BF
# RUN: kfront compile %s -k half --sig 'void(float16[::1], int64[::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=FP16
# RUN: kfront compile %s -k bits --sig 'void(int64[::1], uint8, int32)' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=BITS
# RUN: not kfront check %s -k bad_bool --sig 'void(float32[::1])' 2>&1 | FileCheck %s --check-prefix=ERR1
# RUN: not kfront check %s -k bad_float_bits --sig 'void(int64[::1], float64)' 2>&1 | FileCheck %s --check-prefix=ERR2
# RUN: not kfront check %s -k bad_name --sig 'void(float32[::1])' 2>&1 | FileCheck %s --check-prefix=ERR3
import math

import numpy as np
from numba import cuda
from numba.cuda import bf16


@cuda.jit
def bf(f, i):
    # BF-LABEL: func.func
    a = bf16.float32_to_bfloat16(f[0])
    # BF: arith.truncf(%{{[0-9]+}}) : (f32) -> (bf16)
    b = bf16.bfloat16(2.5)
    # BF: arith.truncf(%{{[0-9]+}}) : (f64) -> (bf16)
    c = a * b + a
    # BF: arith.mulf(%{{[0-9]+}}, %{{[0-9]+}}) : (bf16, bf16) -> (bf16)
    # BF: arith.addf(%{{[0-9]+}}, %{{[0-9]+}}) : (bf16, bf16) -> (bf16)
    f[1] = c + f[0]
    # BF: arith.extf(%{{[0-9]+}}) : (bf16) -> (f32)
    # BF: arith.addf(%{{[0-9]+}}, %{{[0-9]+}}) : (f32, f32) -> (f32)
    f[2] = bf16.bfloat16_to_float32(bf16.hfma(c, b, a))
    # BF: math.fma(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (bf16, bf16, bf16) -> (bf16)
    f[3] = bf16.bfloat16_to_float32(bf16.float32_to_bfloat16_rz(f[0]))
    # BF: arith.truncf(%{{[0-9]+}}) {round = "rz"} : (f32) -> (bf16)
    i[0] = bf16.bfloat16_to_int32_rd(c)
    # BF: math.floor(%{{[0-9]+}}) : (bf16) -> (bf16)
    # BF: arith.fptosi(%{{[0-9]+}}) : (bf16) -> (i32)
    i[1] = bf16.int64_to_bfloat16_ru(i[0]) < a
    # BF: arith.sitofp(%{{[0-9]+}}) {round = "ru"} : (i64) -> (bf16)
    # BF: arith.cmpf(%{{[0-9]+}}, %{{[0-9]+}}) {pred = "olt"} : (bf16, bf16) -> (i1)
    f[4] = math.sin(c)
    # BF: math.sin(%{{[0-9]+}}) : (bf16) -> (bf16)
    i[2] = bf16.bfloat16_as_int16(bf16.hadd_sat(a, c))
    # BF: arith.bitcast(%{{[0-9]+}}) : (bf16) -> (i16)
    f[5] = math.log2(c)
    # BF: arith.extf(%{{[0-9]+}}) : (bf16) -> (f32)
    # BF-NEXT: math.log2(%{{[0-9]+}}) : (f32) -> (f32)


@cuda.jit
def half(h, i):
    # FP16-LABEL: func.func
    h[0] = cuda.fp16.__float2half_rd(np.float32(h[1]))
    # FP16: arith.truncf(%{{[0-9]+}}) {round = "rd"} : (f32) -> (f16)
    i[0] = cuda.fp16.__half2ll_ru(h[0])
    # FP16: math.ceil(%{{[0-9]+}}) : (f16) -> (f16)
    # FP16: arith.fptosi(%{{[0-9]+}}) : (f16) -> (i64)
    i[1] = cuda.fp16.__hequ(h[0], h[1])
    # FP16: arith.cmpf(%{{[0-9]+}}, %{{[0-9]+}}) {pred = "uno"} : (f16, f16) -> (i1)
    # FP16: arith.cmpf(%{{[0-9]+}}, %{{[0-9]+}}) {pred = "oeq"} : (f16, f16) -> (i1)
    # FP16: arith.ori


@cuda.jit
def bits(out, u, v):
    # BITS-LABEL: func.func
    out[0] = u.bit_count()
    # BITS: arith.popc(%1) : (u8) -> (u8)
    out[1] = v.bit_count()
    # BITS: arith.popc(%2) : (i32) -> (i32)


@cuda.jit
def bad_bool(f):
    f[0] = bf16.bfloat16_to_float32(bf16.hneg(True))
    # ERR1: lowp.py:[[@LINE-1]]:47: error: cuda.bf16.hneg() needs bfloat16 arguments, not bool


@cuda.jit
def bad_float_bits(out, x):
    out[0] = x.bit_count()
    # ERR2: lowp.py:[[@LINE-1]]:16: error: unknown attribute 'bit_count' of float64


@cuda.jit
def bad_name(f):
    f[0] = bf16.hadd_rz(f[0], f[1])
    # ERR3: lowp.py:[[@LINE-1]]:17: error: module 'numba.cuda.bf16' has no attribute 'hadd_rz' that kfront knows
