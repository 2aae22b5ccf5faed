# Slicing and views: a basic index with slices, None or an ellipsis is a view, a mem.subview of the array with
# the layout Numba gives it (get_array_index_type: C stays C while the slices keep the array contiguous, a[:, j]
# is A, a step makes A, m.T of C is F); integer indices in it are wrapped and checked against their axis; slice
# bounds are wrapped and clamped as Python clamps them (so a view never reaches outside its array); an access
# through a view is checked against the view's extents, and a loop bounded by them needs no check after bce.
# RUN: kfront compile %s -k rows --sig 'void(float64[:, ::1], float64[::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=ROWS
# RUN: kfront compile %s -k rows --sig 'void(float64[:, ::1], float64[::1])' --emit=kir | FileCheck %s --check-prefix=ROWS-BCE
# RUN: kfront compile %s -k layouts --sig 'void(float32[:, ::1], float32[::1, :], float32[:, :], float32[::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=LAYOUT
# RUN: kfront compile %s -k bounds --sig 'void(int32[::1], int64, int64)' --emit=kir --pass-pipeline=canonicalize | FileCheck %s --check-prefix=BOUNDS
# RUN: kfront compile %s -k inner --sig 'void(float32[::1], float32[::1])' --emit=kir | FileCheck %s --check-prefix=INNER
# RUN: kfront compile %s -k fill --sig 'void(float32[:, ::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=FILL
# RUN: kfront compile %s -k tuples --sig 'void(int64[::1])' --emit=kir | FileCheck %s --check-prefix=TUPLES
# PTX of each through ptxas:
# RUN: kfront compile %s -k rows --sig 'void(float64[:, ::1], float64[::1])' --emit=ptx -o %t.rows.ptx && %ptxas -arch=sm_90 %t.rows.ptx -o %t.rows.cubin
# RUN: kfront compile %s -k layouts --sig 'void(float32[:, ::1], float32[::1, :], float32[:, :], float32[::1])' --emit=ptx -o %t.layouts.ptx && %ptxas -arch=sm_90 %t.layouts.ptx -o %t.layouts.cubin
# RUN: kfront compile %s -k fill --sig 'void(float32[:, ::1])' --emit=ptx -o %t.fill.ptx && %ptxas -arch=sm_90 %t.fill.ptx -o %t.fill.cubin
# RUN: kfront compile %s -k inner --sig 'void(float32[::1], float32[::1])' --emit=ptx | FileCheck %s --check-prefix=PTX
from numba import cuda


@cuda.jit
def rows(a, out):
    i = cuda.grid(1)
    if i < a.shape[0] and i < out.shape[0]:
        # a[i, :]: the row, C like a (an integer, then a whole axis); i checked on axis 0; no arithmetic for the
        # whole axis
        # ROWS: scf.if
        # ROWS: check.bounds(%[[I:.*]], %{{.*}}) {axis = 0}
        # ROWS: %[[N:.*]] = mem.dim(%0) {axis = 1}
        # ROWS: %[[ROW:.*]] = mem.subview(%0, %[[I]], %{{.*}}, %[[N]], %{{.*}}) {dims = [1]} : (array<f64, 2, C>, i64, i64, i64, i64) -> (array<f64, 1, C>)
        row = a[i, :]
        s = 0.0
        # the access through the view is checked against the view's extent
        # ROWS: scf.for
        # ROWS: %[[E:.*]] = mem.dim(%[[ROW]]) {axis = 0}
        # ROWS-NEXT: check.bounds(%{{.*}}, %[[E]]) {axis = 0}
        # ROWS: mem.load(%[[ROW]], %{{.*}}) : (array<f64, 1, C>, i64) -> (f64)
        for j in range(row.shape[0]):
            s += row[j]
        out[i] = s
    # after the default pipeline no check is left: not in the loop over the row, nor the row's index
    # ROWS-BCE-LABEL: func.func
    # ROWS-BCE: mem.subview
    # ROWS-BCE-NOT: check.bounds
    # ROWS-BCE: scf.for
    # ROWS-BCE-NOT: check.bounds
    # ROWS-BCE: }) {sym_name = @rows


@cuda.jit
def layouts(c, f, a, out):
    # LAYOUT: -> (array<f32, 1, C>)
    x = c[0, :]
    # LAYOUT: {dims = [0]} : {{.*}} -> (array<f32, 1, A>)
    y = c[:, 0]
    # a[1:3] of a 2-d C array stays C (the rows are contiguous), a[1:3, :] is A as Numba types it
    # LAYOUT: {dims = [0, 1]} : {{.*}} -> (array<f32, 2, C>)
    z = c[1:3]
    # LAYOUT: {dims = [0, 1]} : {{.*}} -> (array<f32, 2, A>)
    w = c[1:3, :]
    # a step makes A, even 1
    # LAYOUT: {dims = [0]} : {{.*}} -> (array<f32, 1, A>)
    s = out[::1]
    # F: a column is F, a row A
    # LAYOUT: {dims = [0]} : (array<f32, 2, F>, {{.*}} -> (array<f32, 1, F>)
    fc = f[:, 1]
    # LAYOUT: {dims = [1]} : (array<f32, 2, F>, {{.*}} -> (array<f32, 1, A>)
    fr = f[1, :]
    # a new axis, an ellipsis
    # LAYOUT: {dims = [-1, 0]} : {{.*}} -> (array<f32, 2, A>)
    n = out[None, :]
    # LAYOUT: {dims = [1]} : (array<f32, 2, A>, {{.*}} -> (array<f32, 1, A>)
    e = a[0, ...]
    # m.T: C gives F, F gives C, A stays A; transpose(axes) is A
    # LAYOUT: {dims = [1, 0]} : (array<f32, 2, C>, {{.*}} -> (array<f32, 2, F>)
    t = c.T
    # LAYOUT: {dims = [1, 0]} : (array<f32, 2, F>, {{.*}} -> (array<f32, 2, C>)
    ft = f.T
    # LAYOUT: {dims = [0, 1]} : (array<f32, 2, C>, {{.*}} -> (array<f32, 2, A>)
    p = c.transpose((0, 1))
    out[0] = x[0] + y[0] + z[0, 0] + w[0, 0] + s[0] + fc[0] + fr[0] + n[0, 0] + e[0] + t[0, 0] + ft[0, 0] + p[0, 0]


@cuda.jit
def bounds(a, i, j):
    # a[i:j]: each bound wrapped when negative, then clamped to [0, n]; the length max(stop - start, 0)
    # BOUNDS: %[[N:.*]] = mem.dim(%0) {axis = 0}
    # BOUNDS: %[[NEG:.*]] = arith.cmpi(%1, %{{.*}}) {pred = "slt"}
    # BOUNDS: %[[W:.*]] = arith.addi(%1, %[[N]])
    # BOUNDS: %[[S:.*]] = arith.select(%[[NEG]], %[[W]], %1)
    # BOUNDS: %[[LO:.*]] = arith.maxsi(%[[S]], %{{.*}})
    # BOUNDS: %[[START:.*]] = arith.minsi(%[[LO]], %[[N]])
    # BOUNDS: %[[STOP:.*]] = arith.minsi(
    # BOUNDS: %[[D:.*]] = arith.subi(%[[STOP]], %[[START]])
    # BOUNDS: %[[LEN:.*]] = arith.maxsi(%[[D]], %{{.*}})
    # BOUNDS: mem.subview(%0, %[[START]], %[[LEN]], %{{.*}}) {dims = [0]}
    v = a[i:j]
    # a[::-3]: from n - 1 down, (n - 1 - -1 + 2) // 3 elements
    # BOUNDS: %[[N2:.*]] = mem.dim(%0) {axis = 0}
    # BOUNDS: %[[LAST:.*]] = arith.addi(%[[N2]], %{{.*}})
    # BOUNDS: arith.divsi
    # BOUNDS: mem.subview(%0, %[[LAST]], %{{.*}}, %{{.*}}) {dims = [0]} : {{.*}} -> (array<i32, 1, A>)
    r = a[::-3]
    v[0] = r[0]


@cuda.jit
def inner(a, out):
    # a[1:-1] and a loop over it with `for x in v` and len(v): no check left
    # INNER-LABEL: func.func
    # INNER-NOT: check.bounds
    # INNER: }) {sym_name = @inner
    v = a[1:-1]
    s = 0.0
    for x in v:
        s += x
    for j in range(len(v)):
        v[j] = 0
    if out.size > 0:
        out[0] = s


@cuda.jit
def fill(a):
    # a[1, :] = 7 and a[:, 0] = -1: a loop over the view's elements storing the converted scalar
    # FILL: %[[V:.*]] = mem.subview
    # FILL: scf.for
    # FILL: mem.store(%{{.*}}, %[[V]], %{{.*}}) : (f32, array<f32, 1, C>, i64) -> ()
    a[1, :] = 7
    a[:, 0] = -1


@cuda.jit
def tuples(out):
    # tuples slice at compile time
    t = (1, 2, 3, 4, 5)
    # 2 * 100 + 4 * 10 + 3 + 5 * 3 + 1 + 0 + 0
    # TUPLES-DAG: arith.constant() {value = 259} : () -> (i64)
    # TUPLES-DAG: arith.constant() {value = 4} : () -> (i64)
    u = t[1:4]
    w = t[::-2]
    out[0] = u[0] * 100 + u[2] * 10 + len(u) + w[0] * w[1] + w[2] + len(t[9:]) + len(t[:-9])
    out[1] = len(w) + 1


# PTX: ld.global.f32
# PTX: st.global.f32
