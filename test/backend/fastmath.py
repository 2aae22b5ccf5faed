# numba-cuda's fastmath (cudapy/test_fastmath.py): in a function compiled with fastmath, a float32 division is
# libdevice's __nv_fast_fdividef, sin, cos, tan, exp, log, log2, log10 and pow (math.pow and **) their __nv_fast_*
# forms, tanh tanh.approx.f32 from sm_75; the choice is each function's own, while ftz, -prec-div=0 and
# -prec-sqrt=0 are the compile's (--fastmath, or the kernels' own fastmath=True; the kernel's option in the runtime
# and compile_ptx).
# (sm_70 through LLVM's NVPTX: libNVVM of CUDA 13 compiles for sm_75 and later only.)
# RUN: kfront compile %s -k fast --sig 'void(float32[::1], float32, float32)' --fastmath -o %t.fast.ptx
# RUN: FileCheck %s --check-prefix=FAST < %t.fast.ptx
# RUN: %ptxas -arch=sm_90 %t.fast.ptx -o %t.fast.cubin
# RUN: kfront compile %s -k fast --sig 'void(float32[::1], float32, float32)' --fastmath --backend=llvm -o %t.fast2.ptx
# RUN: FileCheck %s --check-prefix=FAST < %t.fast2.ptx
# RUN: %ptxas -arch=sm_90 %t.fast2.ptx -o %t.fast2.cubin
# The kernel's own option gives the compile's flags too, without --fastmath, as in the runtime:
# RUN: kfront compile %s -k fast --sig 'void(float32[::1], float32, float32)' -o %t.own.ptx
# RUN: FileCheck %s --check-prefix=FAST < %t.own.ptx
# RUN: kfront compile %s -k precise --sig 'void(float32[::1], float32, float32)' -o %t.prec.ptx
# RUN: FileCheck %s --check-prefix=PREC < %t.prec.ptx
# RUN: kfront compile %s -k fast --sig 'void(float32[::1], float32, float32)' --fastmath --arch=sm_70 --backend=llvm -o %t.sm70.ptx
# RUN: FileCheck %s --check-prefix=SM70 < %t.sm70.ptx
# RUN: kfront compile %s -k fast_exp --sig 'void(float32[::1], float32)' --fastmath -o %t.exp.ptx
# RUN: FileCheck %s --check-prefix=EXP < %t.exp.ptx
# RUN: kfront compile %s -k fast_calls_precise --sig 'void(float32[::1], float32, float32)' --fastmath -o %t.fp.ptx
# RUN: FileCheck %s --check-prefix=FASTCALLSPREC < %t.fp.ptx
# RUN: kfront compile %s -k precise_calls_fast --sig 'void(float32[::1], float32, float32)' -o %t.pf.ptx
# RUN: FileCheck %s --check-prefix=PRECCALLSFAST < %t.pf.ptx
# RUN: kfront compile %s -k narrowed --sig 'void(float32[::1], float32)' --fastmath -o %t.narrow.ptx
# RUN: FileCheck %s --check-prefix=NARROW < %t.narrow.ptx
# RUN: kfront compile %s -k narrowed --sig 'void(float32[::1], float32)' --fastmath --backend=llvm -o %t.narrow2.ptx
# RUN: FileCheck %s --check-prefix=NARROW < %t.narrow2.ptx
# RUN: kfront compile %s -k flags --sig 'void(float32[::1], float32, float32)' --fastmath -o %t.flags.ptx
# RUN: FileCheck %s --check-prefix=FLAGS < %t.flags.ptx
import math
from numba import cuda, float32, float64

# FAST-LABEL: .entry fast(
# FAST-DAG: div.approx.ftz.f32
# FAST-DAG: sin.approx.ftz.f32
# FAST-DAG: cos.approx.ftz.f32
# FAST-DAG: lg2.approx.ftz.f32
# FAST-DAG: ex2.approx.ftz.f32
# FAST-DAG: tanh.approx.f32
# FAST-NOT: div.rn
# FAST-NOT: div.full
# PREC-LABEL: .entry precise(
# PREC-NOT: {{(sin|cos|lg2|tanh)\.approx}}
# PREC-NOT: div.approx
# PREC: div.rn.f32
# PREC-NOT: {{(sin|cos|lg2|tanh)\.approx}}
# PREC-NOT: div.approx
# PREC: ret;
# SM70-LABEL: .entry fast(
# SM70-NOT: tanh.approx
# SM70: ret;
@cuda.jit(fastmath=True)
def fast(r, x, y):
    r[0] = x / y
    r[1] = math.sin(x)
    r[2] = math.cos(x)
    r[3] = math.tan(x)
    r[4] = math.exp(x)
    r[5] = math.log(x)
    r[6] = math.log2(x)
    r[7] = math.log10(x)
    r[8] = math.pow(x, y)
    r[9] = x ** y
    r[10] = math.tanh(x)


@cuda.jit
def precise(r, x, y):
    r[0] = x / y
    r[1] = math.sin(x)
    r[2] = math.cos(x)
    r[3] = math.tan(x)
    r[4] = math.exp(x)
    r[5] = math.log(x)
    r[6] = math.log2(x)
    r[7] = math.log10(x)
    r[8] = math.pow(x, y)
    r[9] = x ** y
    r[10] = math.tanh(x)


# __nv_fast_expf: ex2.approx.ftz of x * log2(e), none of __nv_expf's fma.rn range reduction
# EXP-LABEL: .entry fast_exp(
# EXP-NOT: fma.rn
# EXP: ex2.approx.ftz.f32
# EXP-NOT: fma.rn
# EXP: ret;
@cuda.jit(fastmath=True)
def fast_exp(r, x):
    r[0] = math.exp(x)


@cuda.jit(device=True)
def quotient(x, y):
    return x / y


@cuda.jit(device=True, fastmath=True)
def fast_quotient(x, y):
    return x / y


# The device function's own choice: precise in a fastmath kernel (fdiv under -prec-div=0 -ftz=1), fast in a
# precise one (div.approx without ftz), as numba-cuda 0.30.4 compiles them.
# FASTCALLSPREC-LABEL: .entry fast_calls_precise(
# FASTCALLSPREC: div.full.ftz.f32
# FASTCALLSPREC-NOT: div.approx
# PRECCALLSFAST-LABEL: .entry precise_calls_fast(
# PRECCALLSFAST: div.approx.f32
# PRECCALLSFAST-NOT: div.rn
@cuda.jit(fastmath=True)
def fast_calls_precise(r, x, y):
    r[0] = quotient(x, y)


@cuda.jit
def precise_calls_fast(r, x, y):
    r[0] = fast_quotient(x, y)


# float64 arithmetic narrowed to float32 (passes/canonicalize.c) stays correctly rounded, as numba-cuda's float64
# division and sqrt are under fastmath: div.rn.ftz and sqrt.rn.ftz, not the approximations of -prec-div=0.
# NARROW-LABEL: .entry narrowed(
# NARROW-DAG: div.rn.ftz.f32
# NARROW-DAG: sqrt.rn.ftz.f32
# NARROW-NOT: div.approx
# NARROW-NOT: div.full
# NARROW-NOT: sqrt.approx
# NARROW-NOT: rcp.approx
@cuda.jit(fastmath=True)
def narrowed(r, x):
    r[0] = 1.0 / x
    r[1] = math.sqrt(float64(x))
    r[2] = float64(x) / 3.0


# A set or dict of LLVM flags is fastmath=True for numba-cuda 0.30.4, whatever the flags.
# FLAGS-LABEL: .entry flags(
# FLAGS: div.approx.ftz.f32
@cuda.jit(fastmath={'arcp'})
def flags(r, x, y):
    r[0] = x / y
