# Array element access: mem.dim + check.bounds + mem.load/mem.store with i64 indices. A signed index not
# known to be >= 0 wraps first (i < 0 ? i + n : i), as Numba does; thread ids, cuda.grid(), range()
# counters with a non-negative start, and sums and products of those need no wrap; a negative constant
# becomes n + c; unsigned indices never wrap. a[i] of a 2-D array is a view: a[i][j] is a[i, j].
# RUN: kfront compile %s -k index --sig 'void(float32[:], float32[:, :], int64[:], uint32[:])' --emit=kir --pass-pipeline= | FileCheck %s
# RUN: kfront compile %s -k index --sig 'void(float32[:], float32[:, :], int64[:], uint32[:])' --bounds-check=off --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=OFF
from numba import cuda


@cuda.jit
def index(a, m, k, u):
    # CHECK-LABEL: func.func
    # OFF-NOT: check.bounds
    i = cuda.grid(1)
    # a[i] with i from cuda.grid: no wrap
    # CHECK: %[[N:.*]] = mem.dim(%0) {axis = 0}
    # CHECK-NEXT: check.bounds(%[[I:.*]], %[[N]]) {axis = 0} : (i64, i64) -> ()
    # CHECK-NEXT: mem.load(%0, %[[I]]) : (array<f32, 1, A>, i64) -> (f32)
    x = a[i]
    # a[-1]: n - 1
    # CHECK: %[[N2:.*]] = mem.dim(%0) {axis = 0}
    # CHECK-NEXT: %[[M1:.*]] = arith.constant() {value = -1} : () -> (i64)
    # CHECK-NEXT: %[[L:.*]] = arith.addi(%[[N2]], %[[M1]])
    # CHECK-NEXT: check.bounds(%[[L]], %[[N2]])
    y = a[-1]
    # a[k[0]]: an index of unknown sign wraps
    # CHECK: %[[J:.*]] = mem.load(%2
    # CHECK: %[[NA:.*]] = mem.dim(%0) {axis = 0}
    # CHECK: %[[NEG:.*]] = arith.cmpi(%[[J]], {{.*}}) {pred = "slt"}
    # CHECK: %[[W:.*]] = arith.addi(%[[J]], %[[NA]])
    # CHECK: %[[S:.*]] = arith.select(%[[NEG]], %[[W]], %[[J]])
    # CHECK: check.bounds(%[[S]], %[[NA]])
    z = a[k[0]]
    # an unsigned index: zero-extended, never wrapped
    # CHECK: %[[U:.*]] = mem.load(%3
    # CHECK: %[[U64:.*]] = arith.extui(%[[U]]) : (u32) -> (i64)
    # CHECK-NOT: arith.select
    # CHECK: check.bounds(%[[U64]]
    w = a[u[0]]
    # m[i, 0] and m[i][0] are the same access
    # CHECK: mem.load(%1, {{.*}}, {{.*}}) : (array<f32, 2, A>, i64, i64) -> (f32)
    # CHECK: mem.load(%1, {{.*}}, {{.*}}) : (array<f32, 2, A>, i64, i64) -> (f32)
    v = m[i, 0] + m[i][0]
    # a store converts to the element type
    # CHECK: arith.truncf({{.*}}) : (f64) -> (f32)
    # CHECK: mem.store({{.*}}) : (f32, array<f32, 1, A>, i64) -> ()
    a[i] = x + y + z + w + v + 0.5
