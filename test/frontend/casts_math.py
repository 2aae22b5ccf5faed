# Casts and math functions with Numba's types: int() of an int keeps its type, of a float is int64;
# float() of an int is float64, of a float32 stays float32; float32(x), np.float32(x), numba.int32(x)
# cast; math.* of an int is float64, of a float32 stays float32 (math.floor too, in numba-cuda); abs keeps
# the type; min/max unify their arguments; round() of a float is int64.
# RUN: kfront compile %s -k casts --sig 'void(int32[:], float32[:], float64[:])' --emit=kir --pass-pipeline= | FileCheck %s
# RUN: kfront compile %s -k maths --sig 'void(int32[:], float32[:], float64[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=MATH
import math

import numba
import numpy as np
from numba import cuda, float32


@cuda.jit
def casts(i, f, out):
    # CHECK-LABEL: func.func
    # CHECK: arith.fptosi({{.*}}) : (f32) -> (i64)
    a = int(f[0])
    # CHECK: arith.sitofp({{.*}}) : (i32) -> (f64)
    b = float(i[0])
    # CHECK: arith.sitofp({{.*}}) : (i32) -> (f32)
    c = float32(i[0])
    # CHECK: arith.sitofp({{.*}}) : (i32) -> (f32)
    d = np.float32(i[0])
    # CHECK: arith.fptosi({{.*}}) : (f32) -> (i32)
    e = numba.int32(f[0])
    # CHECK: arith.cmpi({{.*}}) {pred = "ne"} : (i32, i32) -> (i1)
    g = bool(i[0])
    # int(int32) is the same int32 value: no op
    h = int(i[1])
    out[0] = a + b + c + d + e + g + h


@cuda.jit
def maths(i, f, out):
    # MATH-LABEL: func.func
    # MATH: math.sqrt({{.*}}) : (f32) -> (f32)
    a = math.sqrt(f[0])
    # MATH: arith.extsi({{.*}}) : (i32) -> (i64)
    # MATH: arith.sitofp({{.*}}) : (i64) -> (f64)
    # MATH: math.sin({{.*}}) : (f64) -> (f64)
    b = math.sin(i[0])
    # MATH: math.floor({{.*}}) : (f32) -> (f32)
    c = math.floor(f[0])
    # MATH: math.atan2({{.*}}) : (f32, f32) -> (f32)
    d = math.atan2(f[0], f[1])
    # MATH: math.isnan({{.*}}) : (f32) -> (i1)
    e = math.isnan(f[0])
    # MATH: arith.absi({{.*}}) : (i32) -> (i32)
    g = abs(i[0])
    # MATH: math.fabs({{.*}}) : (f32) -> (f32)
    h = abs(f[0])
    # min(int32, int64 literal) unifies to int64
    # MATH: arith.minsi({{.*}}) : (i64, i64) -> (i64)
    k = min(i[0], 3)
    # max(float32, int64) unifies to float64
    # MATH: arith.maxf({{.*}}) : (f64, f64) -> (f64)
    m = max(f[0], 1)
    # MATH: math.round({{.*}}) : (f32) -> (f32)
    # MATH: arith.fptosi({{.*}}) : (f32) -> (i64)
    n = round(f[0])
    # MATH: arith.mulf({{.*}}) : (f64, f64) -> (f64)
    p = math.pi * 2.0 * b
    out[0] = a + b + c + d + e + g + h + k + m + n + p
