# NumPy's whole-array reductions, typed as numba types them and compiled from kfront's kernel-language source
# (reductions.c) as device functions, one loop per axis: sums of int8 accumulate in int64, of uint16 in uint64, the
# mean of integers is float64 (the var/std/nan* ones below), min/max start from the first element after a size check raising ValueError,
# all/any/count_nonzero return bool/bool/int64; an axis is refused at its token. The PTX goes through ptxas.
# RUN: kfront compile %s -k red --sig 'void(int8[:, :], uint16[::1], float32[:, :, ::1], float64[::1], boolean[::1])' --emit=kir --pass-pipeline= | FileCheck %s
# RUN: kfront compile %s -k red --sig 'void(int8[:, :], uint16[::1], float32[:, :, ::1], float64[::1], boolean[::1])' --emit=ptx --arch=sm_90 -o %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %s -k spread --sig 'void(float32[:, ::1], uint64[::1], complex64[::1], float64[::1], complex128[::1])' --emit=ptx --arch=sm_90 -o %t.spread.ptx
# RUN: %ptxas -arch=sm_90 %t.spread.ptx -o %t.spread.cubin
# RUN: kfront compile %s -k spread --sig 'void(float32[:, ::1], uint64[::1], complex64[::1], float64[::1], complex128[::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=SPREAD
# RUN: not kfront check %s -k bad_axis --sig 'void(float32[:, :])' 2>&1 | FileCheck %s --check-prefix=AXIS
# RUN: not kfront check %s -k bad_axis_pos --sig 'void(float32[:, :])' 2>&1 | FileCheck %s --check-prefix=AXIS2
# RUN: not kfront check %s -k bad_complex --sig 'void(complex64[:])' 2>&1 | FileCheck %s --check-prefix=CPLX
import numpy as np
from numba import cuda

# CHECK: mem.load(%{{.*}}, %{{.*}}, %{{.*}}) : (array<i8, 2, A>, i64, i64) -> (i8)
# CHECK-NEXT: arith.extsi(%{{.*}}) : (i8) -> (i64)
# CHECK-NEXT: arith.addi(%{{.*}}, %{{.*}}) : (i64, i64) -> (i64)
# CHECK: sym_name = @numpy__sum_2, function_type = (array<i8, 2, A>, i64) -> (i64), device, py_name = "numpy.sum"
# CHECK: arith.extui(%{{.*}}) : (u16) -> (u64)
# CHECK-NEXT: arith.muli(%{{.*}}, %{{.*}}) : (u64, u64) -> (u64)
# CHECK: sym_name = @numpy__prod_1, function_type = (array<u16, 1, C>, u64) -> (u64)
# CHECK: arith.addf(%{{.*}}, %{{.*}}) : (f32, f32) -> (f32)
# CHECK: arith.divf(%{{.*}}, %{{.*}}) : (f64, f64) -> (f64)
# CHECK: sym_name = @numpy__mean_3, function_type = (array<f32, 3, C>, f32) -> (f64)
# CHECK: sym_name = @numpy__mean_2, function_type = (array<i8, 2, A>, f64) -> (f64)
# CHECK: sym_name = @numpy__min_1, function_type = (array<f64, 1, C>, f64) -> (f64)
# CHECK: sym_name = @numpy__max_2, function_type = (array<i8, 2, A>, i8) -> (i8)
# CHECK: sym_name = @numpy__all_1, function_type = (array<i1, 1, C>) -> (i1)
# CHECK: sym_name = @numpy__any_3, function_type = (array<f32, 3, C>) -> (i1)
# CHECK: sym_name = @numpy__count_nonzero_1, function_type = (array<i1, 1, C>, i64) -> (i64)
# CHECK: check.raise(%{{.*}}) {exception = "ValueError: zero-size array to reduction operation minimum which has no identity"
# CHECK: check.raise(%{{.*}}) {exception = "ValueError: zero-size array to reduction operation maximum which has no identity"
# CHECK: sym_name = @red, function_type
@cuda.jit
def red(a, b, c, d, e):
    d[0] = np.sum(a)
    d[1] = b.prod()
    d[2] = c.mean()
    d[3] = np.mean(a)
    d[4] = np.amin(d)
    d[5] = a.max()
    e[0] = e.all()
    e[1] = np.any(c)
    d[6] = np.count_nonzero(e)


# the mean of float32 is float64 (numba-cuda's overload divides by the size in float64), var/std float64 from a
# float64 mean; nanmean starts from 0.0 (complex128 for complex); nansum/nanprod of uint64 wrap in 64 bits and give
# int64, as numba-cuda on the H200; nanmin/nanmax check the size with their own message.
# SPREAD: sym_name = @numpy__mean_2, function_type = (array<f32, 2, C>, f32) -> (f64)
# SPREAD: arith.mulf(%{{.*}}, %{{.*}}) : (f64, f64) -> (f64)
# SPREAD: sym_name = @numpy__var_2, function_type = (array<f32, 2, C>, f64, f64) -> (f64)
# SPREAD: sym_name = @numpy__std_2, function_type = (array<f32, 2, C>, f64, f64) -> (f64)
# SPREAD: sym_name = @numpy__nansum_1, function_type = (array<u64, 1, C>, u64) -> (u64)
# SPREAD: sym_name = @numpy__nanprod_1, function_type = (array<u64, 1, C>, u64) -> (u64)
# SPREAD: sym_name = @numpy__nanmean_1, function_type = (array<complex<f32>, 1, C>, complex<f64>) -> (complex<f64>)
# SPREAD: sym_name = @numpy__nanvar_1, function_type = (array<complex<f32>, 1, C>, complex<f64>, f64) -> (f64)
# SPREAD: sym_name = @numpy__nanstd_1, function_type = (array<f64, 1, C>, f64, f64) -> (f64)
# SPREAD: sym_name = @numpy__nanmin_1, function_type = (array<f64, 1, C>, f64) -> (f64)
# SPREAD: check.raise(%{{.*}}) {exception = "ValueError: zero-size array to reduction operation not possible"
@cuda.jit
def spread(a, u, c, d, z):
    d[0] = a.mean()
    d[1] = np.var(a)
    d[2] = a.std()
    d[3] = np.nansum(u)
    d[4] = np.nanprod(u)
    z[0] = np.nanmean(c)
    d[5] = np.nanvar(c)
    d[6] = np.nanstd(d)
    d[7] = np.nanmin(d)


@cuda.jit
def bad_axis(a):
    # AXIS: reductions.py:[[@LINE+1]]:16: error: mean(): the axis argument is not supported by kfront (whole-array reductions only)
    x = a.mean(axis=1)


@cuda.jit
def bad_axis_pos(a):
    # AXIS2: reductions.py:[[@LINE+1]]:19: error: np.sum(): the axis argument is not supported by kfront (whole-array reductions only)
    x = np.sum(a, 0)


@cuda.jit
def bad_complex(a):
    # CPLX: reductions.py:[[@LINE+1]]:16: error: np.max() of an array of complex64 is not supported by kfront
    x = np.max(a)
