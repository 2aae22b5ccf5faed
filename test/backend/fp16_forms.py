# float16 arithmetic, comparisons and conversions in numba-cuda's PTX forms (its cuda_fp16.py and cuda_fp16.h):
# neg.f16, abs.f16, setp.<cmp>.f16 of the operands in their order, one cvt between f16 and an integer of any width
# (cvt.rni for numba-cuda's cast to an integer, which rounds to nearest; cvt.rzi / rmi / rpi for truncation, floor
# and ceil), and add.f16 / sub.f16 / mul.f16 without a rounding modifier where the module has nothing ptxas could
# fuse them with (no f16 product beside a sum, no f16 sum beside a product), the .rn forms elsewhere.
# RUN: kfront compile %s -k alone_sum --sig 'void(float16[::1], float16, float16)' --emit=ptx -o %t.sum.ptx
# RUN: FileCheck %s --check-prefix=SUM < %t.sum.ptx
# RUN: %ptxas -arch=sm_90 %t.sum.ptx -o %t.sum.cubin
# RUN: kfront compile %s -k alone_product --sig 'void(float16[::1], float16, float16)' --emit=ptx | FileCheck %s --check-prefix=PRODUCT
# RUN: kfront compile %s -k both --sig 'void(float16[::1], float16, float16, float16)' --emit=ptx -o %t.both.ptx
# RUN: FileCheck %s --check-prefix=BOTH < %t.both.ptx
# RUN: %ptxas -arch=sm_90 %t.both.ptx -o %t.both.cubin
# RUN: kfront compile %s -k unary_compare --sig 'void(float16[::1], boolean[::1], float16, int8)' --emit=ptx -o %t.cmp.ptx
# RUN: FileCheck %s --check-prefix=CMP < %t.cmp.ptx
# RUN: %ptxas -arch=sm_90 %t.cmp.ptx -o %t.cmp.cubin
# RUN: kfront compile %s -k casts --sig 'void(int64[:, ::1], float16[:, ::1], float16, int8, uint8, int16, uint32, int64, uint64)' --emit=ptx -o %t.cast.ptx
# RUN: FileCheck %s --check-prefix=CAST < %t.cast.ptx
# RUN: %ptxas -arch=sm_90 %t.cast.ptx -o %t.cast.cubin
# RUN: kfront compile %s -k casts --sig 'void(int64[:, ::1], float16[:, ::1], float16, int8, uint8, int16, uint32, int64, uint64)' --emit=ptx --backend=llvm -o %t.cast.llvm.ptx
# RUN: FileCheck %s --check-prefix=CAST < %t.cast.llvm.ptx
# RUN: %ptxas -arch=sm_90 %t.cast.llvm.ptx -o %t.cast.llvm.cubin
import math

import numpy as np
from numba import cuda


# SUM-LABEL: .entry alone_sum(
# SUM: add.f16
# SUM: sub.f16
# SUM-NOT: .rn.f16
@cuda.jit
def alone_sum(out, a, b):
    out[0] = a + b
    out[1] = a - b


# PRODUCT-LABEL: .entry alone_product(
# PRODUCT: mul.f16
# PRODUCT-NOT: mul.rn.f16
@cuda.jit
def alone_product(out, a, b):
    out[0] = a * b


# a product and a sum in one module: ptxas would fuse plain mul.f16 and add.f16 into one fma (contract-fused ones
# are fma.rn.f16 already, and those leave no sum behind)
# BOTH-LABEL: .entry both(
# BOTH-DAG: mul.rn.f16
# BOTH-DAG: add.rn.f16
# BOTH-DAG: sub.rn.f16
# BOTH-DAG: fma.rn.f16
@cuda.jit
def both(out, a, b, c):
    out[0] = a * b
    out[1] = b + c
    out[2] = c - a
    out[3] = a * b + c


# CMP-LABEL: .entry unary_compare(
# CMP-DAG: neg.f16
# CMP-DAG: abs.f16
# CMP-DAG: cvt.rn.f16.s8
# CMP-DAG: setp.gt.f16
# CMP-DAG: setp.ge.f16
# CMP-DAG: setp.lt.f16
# CMP-DAG: setp.le.f16
# CMP-DAG: setp.eq.f16
# CMP-DAG: setp.neu.f16
# CMP-NOT: cvt.f32.f16
@cuda.jit
def unary_compare(out, flags, a, n):
    out[0] = -a
    out[1] = abs(a)
    flags[0] = a > n
    flags[1] = a >= n
    flags[2] = a < n
    flags[3] = a <= n
    flags[4] = a == n
    flags[5] = a != n


# CAST-LABEL: .entry casts(
# CAST-DAG: cvt.rni.s8.f16
# CAST-DAG: cvt.rni.u8.f16
# CAST-DAG: cvt.rni.s16.f16
# CAST-DAG: cvt.rni.u32.f16
# CAST-DAG: cvt.rni.s64.f16
# CAST-DAG: cvt.rni.u64.f16
# CAST-DAG: cvt.rzi.s32.f16
# CAST-DAG: cvt.rmi.s64.f16
# CAST-DAG: cvt.rpi.s64.f16
# CAST-DAG: cvt.rn.f16.s8
# CAST-DAG: cvt.rn.f16.u8
# CAST-DAG: cvt.rn.f16.s16
# CAST-DAG: cvt.rn.f16.u32
# CAST-DAG: cvt.rn.f16.s64
# CAST-DAG: cvt.rn.f16.u64
@cuda.jit
def casts(ints, halves, h, i8, u8, i16, u32, i64, u64):
    ints[0, 0] = np.int8(h)
    ints[0, 1] = np.uint8(h)
    ints[0, 2] = np.int16(h)
    ints[0, 3] = np.uint32(h)
    ints[0, 4] = int(h)
    ints[0, 5] = np.uint64(h)
    ints[0, 6] = cuda.fp16.__half2int_rz(h)
    ints[0, 7] = math.floor(h)
    ints[0, 8] = math.ceil(h)
    halves[0, 0] = np.float16(i8)
    halves[0, 1] = np.float16(u8)
    halves[0, 2] = np.float16(i16)
    halves[0, 3] = np.float16(u32)
    halves[0, 4] = np.float16(i64)
    halves[0, 5] = np.float16(u64)
