# reshape, ravel and view(dtype): the new extents and strides as a mem.reinterpret of the array, after the
# check.raise ops of Numba's run-time conditions (ValueError: at most one negative extent, the size unchanged;
# for view, the innermost axis's bytes divide); checks of constant conditions fold away.
# RUN: kfront compile %s -k shapes --sig 'void(float32[::1], int64, float32[:, ::1])' --emit=kir --pass-pipeline=canonicalize | FileCheck %s --check-prefix=SHAPES
# RUN: kfront compile %s -k fixed --sig 'void(float32[:, ::1], float32[::1])' --emit=kir | FileCheck %s --check-prefix=FIXED
# RUN: kfront compile %s -k views --sig 'void(uint8[::1], int32[::1])' --emit=kir --pass-pipeline=canonicalize | FileCheck %s --check-prefix=VIEWS
# RUN: kfront compile %s -k shapes --sig 'void(float32[::1], int64, float32[:, ::1])' --emit=ptx -o %t.shapes.ptx && %ptxas -arch=sm_90 %t.shapes.ptx -o %t.shapes.cubin
# RUN: kfront compile %s -k views --sig 'void(uint8[::1], int32[::1])' --emit=ptx -o %t.views.ptx && %ptxas -arch=sm_90 %t.views.ptx -o %t.views.cubin
# RUN: not kfront compile %s -k not_contiguous --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=NC
# RUN: not kfront compile %s -k float_shape --sig 'void(float32[::1])' 2>&1 | FileCheck %s --check-prefix=FS
# RUN: not kfront compile %s -k ravel_f --sig 'void(float32[::1, :])' 2>&1 | FileCheck %s --check-prefix=RF
import numpy as np
from numba import cuda


@cuda.jit
def shapes(a, n, out):
    # SHAPES: %[[SIZE:.*]] = mem.size(%0)
    # SHAPES: check.raise(%{{.*}}) {exception = "ValueError: multiple negative shape values"}
    # SHAPES: check.raise(%{{.*}}) {exception = "ValueError: total size of new array must be unchanged"}
    # SHAPES: mem.reinterpret(%0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (array<f32, 1, C>, i64, i64, i64, i64) -> (array<f32, 2, C>)
    m = a.reshape(n, -1)
    out[0, 0] = m[0, 0]


@cuda.jit
def fixed(m, out):
    # a C array to its size: no check left (the size is the size), the strides constant
    # FIXED-NOT: check.raise
    # FIXED: mem.reinterpret(%0, %{{.*}}, %{{.*}}) : (array<f32, 2, C>, i64, i64) -> (array<f32, 1, C>)
    # FIXED-NOT: check.raise
    # FIXED: }) {sym_name = @fixed
    r = m.ravel()
    out[0] = r[0]


@cuda.jit
def views(b, out):
    # a C array of bytes as int32: its last axis's bytes must divide by 4
    # VIEWS: arith.remsi
    # VIEWS: check.raise(%{{.*}}) {exception = "ValueError: new type not compatible with array"}
    # VIEWS: mem.reinterpret(%0, %{{.*}}, %{{.*}}) : (array<u8, 1, C>, i64, i64) -> (array<i32, 1, C>)
    v = b.view(np.int32)
    out[0] = v[0]


@cuda.jit
def not_contiguous(a):
    # NC: reshape.py:[[@LINE+1]]:9: error: reshape() supports contiguous array only, not array(float32, 1d, A)
    m = a.reshape(2, 2)


@cuda.jit
def float_shape(a):
    # FS: reshape.py:[[@LINE+1]]:19: error: reshape() arg cannot be float64
    m = a.reshape(2.0, 2)


@cuda.jit
def ravel_f(a):
    # RF: reshape.py:[[@LINE+1]]:9: error: ravel() of array(float32, 2d, F) copies it into a new array, which a kernel cannot allocate
    r = a.ravel()
