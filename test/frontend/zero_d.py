# 0-d array parameters (numba's array(float64, 0d, C), spelt float64[()]): passed as their array of one, presented
# to the kernel as the 0-d array x[()] reads and writes; shape (), ndim 0, size 1; passed to device functions; the
# kernel's arg_types keep the 0-d type. Indexing one with an index is a located error.
# RUN: kfront compile %s -k k --sig 'void(float64[()], float64[()], int64[::1])' --emit=kir | FileCheck %s
# RUN: not kfront compile %s -k indexed --sig 'void(float64[()])' 2>&1 | FileCheck %s --check-prefix=INDEX
from numba import cuda


# CHECK: ^bb0(%[[A:[0-9]+]]: array<f64, 1, C>, %[[I:[0-9]+]]: i64):
# CHECK-NEXT: mem.load(%[[A]], %[[I]])
@cuda.jit(device=True)
def get(a):
    return a[()] * 2


# CHECK: ^bb0(%[[R:[0-9]+]]: array<f64, 1, C>, %[[X:[0-9]+]]: array<f64, 1, C>, %{{[0-9]+}}: array<i64, 1, C>):
# CHECK: %[[Z:[0-9]+]] = arith.constant() {value = 0} : () -> (i64)
# CHECK: mem.load(%[[X]], %[[Z]])
# CHECK: func.call(%[[X]], %[[Z]]) {callee = @get}
# CHECK: mem.store({{.*}}, %[[R]], %[[Z]])
# CHECK: arg_types = [array<f64, 0, C>, array<f64, 0, C>, array<i64, 1, C>]
@cuda.jit
def k(r, x, out):
    r[()] = x[()] + get(x)
    out[0] = r.ndim + r.size * 10 + len(x.shape) * 100


@cuda.jit
def indexed(r):
    # INDEX: zero_d.py:[[@LINE+1]]:5: error: too many indices for array(float64, 0d, C): 1 given
    r[0] = 1.0
