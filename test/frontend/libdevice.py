# cuda.libdevice.NAME from Python source to kir: numba-cuda's ConcreteTemplate of each function (the arguments that
# are no pointers converted to its types), each result a math.libdevice op naming __nv_NAME (part: the result's
# number, the return value first, then what the function stores through its pointers, as a tuple): remquo's
# (remainder, quotient bits), sincospi's (sin, cos), the approximate fast_* functions as the others; a call with
# arguments of the wrong kind is a located error.
# RUN: kfront compile %s -k ld --sig 'void(float64[::1], int64[::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=LD
# RUN: kfront compile %s -k fast --sig 'void(float32[::1], int64[::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=FAST
# RUN: not kfront check %s -k bad_arg --sig 'void(float64[::1])' 2>&1 | FileCheck %s --check-prefix=ERR2
import numpy as np
from numba import cuda


@cuda.jit
def ld(d, i):
    # LD-LABEL: func.func
    d[0] = cuda.libdevice.sin(d[1])
    # LD: math.libdevice(%{{[0-9]+}}) {name = "__nv_sin"} : (f64) -> (f64)
    s, c = cuda.libdevice.sincosf(d[1])
    # LD: arith.truncf(%{{[0-9]+}}) : (f64) -> (f32)
    # LD: math.libdevice(%{{[0-9]+}}) {name = "__nv_sincosf"} : (f32) -> (f32)
    # LD: math.libdevice(%{{[0-9]+}}) {name = "__nv_sincosf", part = 1} : (f32) -> (f32)
    d[2] = s + c
    m, e = cuda.libdevice.frexp(d[1])
    # LD: math.libdevice(%{{[0-9]+}}) {name = "__nv_frexp"} : (f64) -> (f64)
    # LD: math.libdevice(%{{[0-9]+}}) {name = "__nv_frexp", part = 1} : (f64) -> (i32)
    i[0] = e + cuda.libdevice.popcll(i[1])
    # LD: math.libdevice(%{{[0-9]+}}) {name = "__nv_popcll"} : (i64) -> (i32)
    d[3] = cuda.libdevice.dadd_ru(m, 1.0) + cuda.libdevice.ll2double_rd(i[1])
    # LD: math.libdevice(%{{[0-9]+}}, %{{[0-9]+}}) {name = "__nv_dadd_ru"} : (f64, f64) -> (f64)
    # LD: math.libdevice(%{{[0-9]+}}) {name = "__nv_ll2double_rd"} : (i64) -> (f64)
    i[2] = cuda.libdevice.byte_perm(i[0], i[1], 0x3210)
    # LD: arith.trunci(%{{[0-9]+}}) : (i64) -> (i32)
    # LD: math.libdevice(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {name = "__nv_byte_perm"} : (i32, i32, i32) -> (i32)


@cuda.jit
def fast(f, i):
    # FAST-LABEL: func.func
    f[0] = cuda.libdevice.fast_expf(f[1]) + cuda.libdevice.fast_fdividef(f[2], f[3])
    # FAST: math.libdevice(%{{[0-9]+}}) {name = "__nv_fast_expf"} : (f32) -> (f32)
    # FAST: math.libdevice(%{{[0-9]+}}, %{{[0-9]+}}) {name = "__nv_fast_fdividef"} : (f32, f32) -> (f32)
    r, q = cuda.libdevice.remquof(f[1], f[2])
    # FAST: math.libdevice(%{{[0-9]+}}, %{{[0-9]+}}) {name = "__nv_remquof"} : (f32, f32) -> (f32)
    # FAST: math.libdevice(%{{[0-9]+}}, %{{[0-9]+}}) {name = "__nv_remquof", part = 1} : (f32, f32) -> (i32)
    f[4] = r
    i[0] = q
    s, c = cuda.libdevice.sincospif(f[5])
    # FAST: math.libdevice(%{{[0-9]+}}) {name = "__nv_sincospif"} : (f32) -> (f32)
    # FAST: math.libdevice(%{{[0-9]+}}) {name = "__nv_sincospif", part = 1} : (f32) -> (f32)
    f[6] = s + c + cuda.libdevice.erfcinvf(f[7])
    # FAST: math.libdevice(%{{[0-9]+}}) {name = "__nv_erfcinvf"} : (f32) -> (f32)


@cuda.jit
def bad_arg(d):
    d[0] = cuda.libdevice.sin(d)
    # ERR2: libdevice.py:[[@LINE-1]]:31: error: cuda.libdevice.sin() needs f64 arguments, not array(float64, 1d, C)
