# The typing and kir of math.frexp / ldexp / modf / remainder, cuda.fma / cbrt / selp and NumPy's ufuncs with
# scalar arguments, as numba-cuda types them: a ufunc's first NumPy loop the arguments convert to safely (no
# float16 loops; integers convert to any float when mixed with floats), each computed from kir ops.
# RUN: kfront compile %s -k mathfns --sig 'void(float64[::1], float32[::1], int64[::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=MATH
# RUN: kfront compile %s -k ufuncs --sig 'void(float64[::1], float32[::1], int32[::1], uint64[::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=UF
# RUN: kfront compile %s -k arrays --sig 'void(float64[:, ::1], float32[::1], float64[:, ::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=ARR
# RUN: kfront compile %s -k half --sig 'void(float16[::1], float32[::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=FP16
# RUN: not kfront check %s -k bad_frexp --sig 'void(float64[::1])' 2>&1 | FileCheck %s --check-prefix=ERR1
# RUN: not kfront check %s -k bad_selp --sig 'void(float64[::1], float32[::1])' 2>&1 | FileCheck %s --check-prefix=ERR2
# RUN: not kfront check %s -k bad_out --sig 'void(float64[::1])' 2>&1 | FileCheck %s --check-prefix=ERR3
# RUN: not kfront check %s -k bad_types --sig 'void(float64[::1])' 2>&1 | FileCheck %s --check-prefix=ERR4
import math

import numpy as np
from numba import cuda


@cuda.jit
def mathfns(d, f, i):
    # MATH-LABEL: func.func
    # MATH: %[[M:[0-9]+]] = math.frexp_mant(%{{[0-9]+}}) : (f64) -> (f64)
    # MATH-NEXT: %[[E:[0-9]+]] = math.frexp_exp(%{{[0-9]+}}) : (f64) -> (i32)
    m, e = math.frexp(d[0])
    # MATH: math.ldexp(%[[M]], %[[E]]) : (f64, i32) -> (f64)
    d[1] = math.ldexp(m, e)
    # modf of a float32: (fraction with the sign, truncation), zero for infinities
    # MATH: math.trunc(%{{[0-9]+}}) : (f32) -> (f32)
    # MATH: arith.subf
    # MATH: math.isinf
    # MATH: arith.select
    # MATH: math.copysign(%{{[0-9]+}}, %{{[0-9]+}}) : (f32, f32) -> (f32)
    fr, ip = math.modf(f[0])
    f[1] = fr + ip
    # an int64 argument is converted to float64 (math.remainder has float cases only)
    # MATH: arith.sitofp(%{{[0-9]+}}) : (i64) -> (f64)
    # MATH: math.remainder(%{{[0-9]+}}, %{{[0-9]+}}) : (f64, f64) -> (f64)
    d[2] = math.remainder(i[0], 4.0)
    # MATH: math.fma(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (f32, f32, f32) -> (f32)
    f[2] = cuda.fma(f[0], f[1], f[2])
    # MATH: math.cbrt(%{{[0-9]+}}) : (f64) -> (f64)
    d[3] = cuda.cbrt(d[0])
    # MATH: arith.select(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (i1, i64, i64) -> (i64)
    i[1] = cuda.selp(i[0] > 2, i[0], i[2])


@cuda.jit
def ufuncs(d, f, i, u):
    # UF-LABEL: func.func
    # np.sin of an int32: the float64 loop (d->d)
    # UF: arith.sitofp(%{{[0-9]+}}) : (i32) -> (f64)
    # UF-NEXT: math.sin(%{{[0-9]+}}) : (f64) -> (f64)
    d[0] = np.sin(i[0])
    # of a float32: the float32 loop
    # UF: math.sin(%{{[0-9]+}}) : (f32) -> (f32)
    f[0] = np.sin(f[1])
    # int32 and float32 mixed: any integer converts to a float, so the ff->f loop
    # UF: arith.sitofp(%{{[0-9]+}}) : (i32) -> (f32)
    # UF-NEXT: arith.addf(%{{[0-9]+}}, %{{[0-9]+}}) : (f32, f32) -> (f32)
    f[1] = np.add(i[1], f[2])
    # int32 + int32 stays int32 (Python's + would give int64)
    # UF: arith.addi(%{{[0-9]+}}, %{{[0-9]+}}) : (i32, i32) -> (i32)
    i[2] = np.add(i[0], i[1])
    # maximum propagates NaN: compares and selects
    # UF: arith.cmpf(%{{[0-9]+}}, %{{[0-9]+}}) {pred = "uno"}
    # UF: arith.cmpf(%{{[0-9]+}}, %{{[0-9]+}}) {pred = "oge"}
    # UF: arith.select
    d[1] = np.maximum(d[2], d[3])
    # int64 against uint64: NumPy's qQ loop (a negative int64 is less than every uint64)
    # UF: arith.cmpi(%{{[0-9]+}}, %{{[0-9]+}}) {pred = "slt"} : (i64, i64) -> (i1)
    # UF: arith.bitcast(%{{[0-9]+}}) : (i64) -> (u64)
    # UF: arith.cmpi(%{{[0-9]+}}, %{{[0-9]+}}) {pred = "ult"} : (u64, u64) -> (i1)
    i[3] = np.less(np.int64(i[0]), u[0])
    # np.isnan of an integer is False; of a float, math.isnan
    # UF: math.isnan(%{{[0-9]+}}) : (f64) -> (i1)
    i[4] = np.isnan(i[0]) + np.isnan(d[0])
    # floor_divide on floats: Python's (NumPy's) floor division
    # UF: arith.floordivf(%{{[0-9]+}}, %{{[0-9]+}}) : (f64, f64) -> (f64)
    d[4] = np.floor_divide(d[0], d[1])
    # the aliases: np.abs is np.absolute, np.acos is np.arccos
    # UF: arith.absi(%{{[0-9]+}}) : (i32) -> (i32)
    # UF: math.acos(%{{[0-9]+}}) : (f64) -> (f64)
    d[5] = np.abs(i[0]) + np.acos(d[0])


@cuda.jit
def bad_frexp(d):
    m, e = np.frexp(d[0])
    d[0] = m

# ERR1: numeric.py:[[# @LINE - 3]]:12: error: numpy.frexp() is not supported in kernels


@cuda.jit
def bad_selp(d, f):
    d[0] = cuda.selp(d[0] > 0, d[0], f[0])

# ERR2: error: no implementation of cuda.selp() for float64 and float32


@cuda.jit
def bad_out(d):
    d[0] = np.sin(d)[0]

# ERR3: numeric.py:[[# @LINE - 2]]:12: error: numpy.sin() of arrays needs its output array (numpy.sin(x, out)): kernels cannot allocate arrays


@cuda.jit
def bad_types(d):
    d[0] = np.left_shift(d[0], 2)

# ERR4: numeric.py:[[# @LINE - 2]]:12: error: no implementation of numpy.left_shift() for argument types (float64, int64)


@cuda.jit
def arrays(x, y, out):
    # ARR-LABEL: func.func
    # a loop nest over the output's extents; y (1-d) broadcast along the last axis, float32 converted to the
    # float64 loop; the result stored into out
    # ARR: %[[N0:[0-9]+]] = mem.dim(%2) {axis = 0}
    # ARR: %[[N1:[0-9]+]] = mem.dim(%2) {axis = 1}
    # ARR: scf.for(%{{[0-9]+}}, %[[N0]], %{{[0-9]+}}) ({
    # ARR: scf.for(%{{[0-9]+}}, %[[N1]], %{{[0-9]+}}) ({
    # ARR: mem.load(%0,
    # ARR: mem.dim(%1) {axis = 0}
    # ARR: arith.select
    # ARR: mem.load(%1,
    # ARR: arith.extf(%{{[0-9]+}}) : (f32) -> (f64)
    # ARR: arith.addf(%{{[0-9]+}}, %{{[0-9]+}}) : (f64, f64) -> (f64)
    # ARR: mem.store(%{{[0-9]+}}, %2,
    np.add(x, y, out)


@cuda.jit
def half(h, f):
    # FP16-LABEL: func.func
    # cuda.fp16's intrinsics are f16 ops; a float32 argument is converted to float16
    # FP16: %[[A:[0-9]+]] = mem.load(%0, %{{[0-9]+}}) : (array<f16, 1, C>, i64) -> (f16)
    # FP16: %[[B:[0-9]+]] = arith.truncf(%{{[0-9]+}}) : (f32) -> (f16)
    # FP16-NEXT: arith.addf(%[[A]], %[[B]]) : (f16, f16) -> (f16)
    h[0] = cuda.fp16.hadd(h[1], f[0])
    # FP16: math.fma(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (f16, f16, f16) -> (f16)
    h[1] = cuda.fp16.hfma(h[0], h[1], h[2])
    # FP16: arith.cmpf(%{{[0-9]+}}, %{{[0-9]+}}) {pred = "olt"} : (f16, f16) -> (i1)
    if cuda.fp16.hlt(h[0], h[1]):
        # FP16: math.sin(%{{[0-9]+}}) : (f16) -> (f16)
        h[2] = cuda.fp16.hsin(h[0])
