# Device functions that return arrays (an argument as it is, as Numba allows, and a view of one): the array is
# returned as its data pointer, shape and strides in one struct, as a parameter passes it; both backends, ptxas.
# RUN: kfront compile %s -k through --sig 'void(float64[:], float64[:])' --emit=llvm | FileCheck %s --check-prefix=LL
# RUN: kfront compile %s -k through --sig 'void(float64[:], float64[:])' --emit=ptx -o %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %s -k through --sig 'void(float64[:], float64[:])' --emit=ptx --backend=llvm -o %t.llvm.ptx
# RUN: %ptxas -arch=sm_90 %t.llvm.ptx -o %t.llvm.cubin
# RUN: kfront compile %s -k view2d --sig 'void(float32[:, ::1], float32[:])' --emit=llvm | FileCheck %s --check-prefix=LL2
# RUN: kfront compile %s -k view2d --sig 'void(float32[:, ::1], float32[:])' --emit=ptx -o %t.2.ptx
# RUN: %ptxas -arch=sm_90 %t.2.ptx -o %t.2.cubin
from numba import cuda


@cuda.jit(device=True)
def same(a):
    return a


@cuda.jit(device=True)
def middle(a):
    return a[1:-1]


@cuda.jit(device=True)
def row_and_first(m, i):
    return m[i, :], m[i, 0]


@cuda.jit
def through(a, out):
    v = middle(same(a))
    out[0] = v[0] + len(v)


@cuda.jit
def view2d(m, out):
    r, x = row_and_first(m, 1)
    out[0] = r[1] + x


# LL: define internal { double*, i64, i64 } @same(double* %a_data, i64 %a_shape0, i64 %a_stride0)
# LL: define internal { double*, i64, i64 } @middle(
# LL: define void @through(
# LL: call { double*, i64, i64 } @same(
# LL: call { double*, i64, i64 } @middle(
# LL2: define internal { float*, i64, i64, float } @row_and_first(
# LL2: call { float*, i64, i64, float } @row_and_first(
