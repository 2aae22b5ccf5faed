# Slices with a step known only at run time (Python's slice arithmetic for both signs, selected by the step's sign,
# after Numba's ValueError for a zero step) and assignments to a slice of an array or a view (Numba's setitem:
# a scalar fills it, an array is broadcast onto it after Numba's ValueErrors for a source that cannot be, a
# homogeneous tuple fills a 1-d slice of its length); an overlapping source is copied in place in address order
# or refused at run time (NotImplementedError: Numba copies it with its NRT, which kfront has not).
# RUN: kfront compile %s -k steps --sig 'void(float32[::1], int64, float32[::1])' --emit=kir --pass-pipeline=canonicalize | FileCheck %s --check-prefix=STEPS
# RUN: kfront compile %s -k assign --sig 'void(float32[:, ::1], float64[::1], float32[::1])' --emit=kir --pass-pipeline=canonicalize | FileCheck %s --check-prefix=ASSIGN
# RUN: kfront compile %s -k steps --sig 'void(float32[::1], int64, float32[::1])' --emit=ptx -o %t.steps.ptx && %ptxas -arch=sm_90 %t.steps.ptx -o %t.steps.cubin
# RUN: kfront compile %s -k assign --sig 'void(float32[:, ::1], float64[::1], float32[::1])' --emit=ptx -o %t.assign.ptx && %ptxas -arch=sm_90 %t.assign.ptx -o %t.assign.cubin
# RUN: not kfront compile %s -k refused --sig 'void(float32[:, ::1], float32[::1], int64)' 2>&1 | FileCheck %s --check-prefix=ERR
import numpy as np
from numba import cuda


@cuda.jit
def steps(a, n, out):
    # STEPS: %[[ZERO:.*]] = arith.cmpi(%1, %{{.*}}) {pred = "eq"}
    # STEPS: check.raise(%[[ZERO]]) {exception = "ValueError: slice step cannot be zero"}
    # STEPS: %[[NEG:.*]] = arith.cmpi(%1, %{{.*}}) {pred = "slt"}
    # STEPS: arith.divsi
    # STEPS: mem.subview(%0, %{{.*}}, %{{.*}}, %1) {dims = [0]} : (array<f32, 1, C>, i64, i64, i64) -> (array<f32, 1, A>)
    # an access through the view is checked against its extent
    # STEPS: check.bounds
    v = a[1::n]
    out[0] = v[2]


@cuda.jit
def assign(m, row, t):
    # ASSIGN: check.raise(%{{.*}}) {exception = "ValueError: cannot assign slice from input of different size"}
    # ASSIGN: mem.addr
    # ASSIGN: check.raise(%{{.*}}) {exception = "NotImplementedError: kfront: the source of this slice assignment overlaps
    # ASSIGN: scf.for
    # ASSIGN: mem.load
    # ASSIGN: arith.truncf
    # ASSIGN: mem.store
    m[1, :] = row
    # the tuple's length checked, then its elements stored
    # ASSIGN: check.raise(%{{.*}}) {exception = "ValueError: cannot assign slice from input of different size"}
    # ASSIGN-COUNT-3: mem.store
    t[1:4] = (1.0, 2.5, 3.0)


@cuda.jit
def refused(m, v, i):
    # ERR: slice_assign.py:[[@LINE+1]]:15: error: cannot store array(float32, 1d, C) into an element of array(float32, 2d, C)
    m[0, 1] = v
    # ERR: slice_assign.py:[[@LINE+1]]:17: error: a tuple is assigned to a 1-d slice only, and only a homogeneous one (Numba's UniTuple), not UniTuple(int64 x 2) to array(float32, 2d, A)
    m[1:3, :] = (1, 2)
    # ERR: slice_assign.py:[[@LINE+1]]:13: error: slice indices must be integers or None, not float64
    w = v[::2.0]
    # ERR: slice_assign.py:[[@LINE+1]]:9: error: flatten() makes a new array, which a kernel cannot allocate (Numba's CUDA target allows it only with its NRT enabled; kfront does not)
    f = m.flatten()
    # ERR: slice_assign.py:[[@LINE+1]]:9: error: astype() makes a new array, which a kernel cannot allocate (Numba's CUDA target allows it only with its NRT enabled; kfront does not)
    g = v.astype(np.float64)
    # ERR: slice_assign.py:[[@LINE+1]]:11: error: augmented assignment to a slice of an array is not supported in kernels (it is an array expression)
    v[1:] += v[:-1]
