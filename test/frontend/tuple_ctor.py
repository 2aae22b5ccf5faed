# tuple(...) as numba-cuda's TupleConstructor types it: tuple() is the empty tuple, tuple(t) of a tuple is t itself
# (a.shape too); anything else (an array, a range) is a located error. Module-level tuple() and tuple(t) fold.
# RUN: kfront compile %s -k k --sig 'void(int64[::1], float64[:, :], UniTuple(int64, 2))' --emit=kir | FileCheck %s
# RUN: not kfront compile %s -k of_array --sig 'void(int64[::1])' --emit=kir 2>&1 | FileCheck %s --check-prefix=ARRAY
from numba import cuda

EMPTY = tuple()
PAIR = tuple((3, 4))


# CHECK: ^bb0({{.*}}: array<f64, 2, A>, {{.*}}: i64, %[[T1:[0-9]+]]: i64):
# CHECK: %[[Z:[0-9]+]] = arith.constant() {value = 0} : () -> (i64)
# CHECK: mem.store(%[[T1]],
# CHECK: %[[D1:[0-9]+]] = mem.dim({{.*}}) {axis = 1}
# CHECK: mem.store(%[[D1]],
# CHECK: mem.store(%[[Z]],
# CHECK: arith.constant() {value = 4}
# CHECK-NEXT: mem.store(
@cuda.jit
def k(out, a, t):
    u = tuple(t)
    out[0] = u[1]
    out[1] = tuple(a.shape)[1]
    out[2] = len(tuple()) + len(EMPTY)
    out[3] = PAIR[1]


@cuda.jit
def of_array(out):
    # ARRAY: tuple_ctor.py:[[@LINE+1]]:20: error: no implementation of tuple() for array(int64, 1d, C)
    out[0] = tuple(out)[0]
