# Variable types unify where paths meet, as in Numba: `tmp = 0.` then `tmp += float32` stays float64; an
# int reassigned a float in a loop is float64 around the loop (the body is typed again with the wider type);
# defined on one path only gives a zero on the other, and its read there raises UnboundLocalError. Tuple unpacking, ternaries (select when both sides are
# pure, scf.if otherwise), augmented assignment of an element (load, operation, conversion to the dtype,
# store, the index computed once).
# RUN: kfront compile %s -k loops --sig 'void(float32[:], float64[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=LOOP
# RUN: kfront compile %s -k branch --sig 'void(float32[:], float64[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=BRANCH
# RUN: kfront compile %s -k assigns --sig 'void(int32[:], float32[:, :])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=ASSIGN
from numba import cuda


@cuda.jit
def loops(a, out):
    # LOOP: %[[Z:.*]] = arith.constant() {value = 0.0} : () -> (f64)
    # LOOP: scf.for({{.*}}, %[[Z]]) ({
    # LOOP: ^bb{{.*}}(%{{.*}}: i64, %[[T:.*]]: f64):
    # LOOP: arith.extf({{.*}}) : (f32) -> (f64)
    # LOOP: arith.addf(%[[T]], {{.*}}) : (f64, f64) -> (f64)
    # LOOP: }) : (i64, i64, i64, f64) -> (f64)
    tmp = 0.
    for k in range(a.shape[0]):
        tmp += a[k]
    # x starts as an int64 0 and becomes float64 in the loop: the carried value is float64 from the start
    # LOOP: %[[X0:.*]] = arith.constant() {value = 0.0} : () -> (f64)
    # LOOP: scf.for({{.*}}, %[[X0]]) ({
    # LOOP: arith.addf
    # LOOP: }) : (i64, i64, i64, f64) -> (f64)
    x = 0
    for k in range(4):
        x = x + 0.5
    out[0] = tmp + x


@cuda.jit
def branch(a, out):
    i = cuda.grid(1)
    # y only defined when i > 2: 0 on the other path, float32, with an i1 saying whether it is bound
    # BRANCH: scf.if({{.*}}) ({
    # BRANCH: mem.load
    # BRANCH: scf.yield({{.*}}) : (f32, i1) -> ()
    # BRANCH: }, {
    # BRANCH-NEXT: arith.constant() {value = 0.0 : f32}
    # BRANCH-NEXT: arith.constant() {value = 0 : i1}
    # BRANCH: }) : (i1) -> (f32, i1)
    if i > 2:
        y = a[i]
    # a ternary of two pure values: select
    # BRANCH: arith.select({{.*}}) : (i1, f64, f64) -> (f64)
    z = 1 if i > 3 else 2.5
    # a ternary that loads: scf.if
    # BRANCH: scf.if
    # BRANCH: mem.load
    # BRANCH: }) : (i1) -> (f32)
    w = a[i] if i < a.shape[0] else a[0]
    # the read of y where it may be unbound is checked
    # BRANCH: check.raise({{.*}}) {exception = "UnboundLocalError: cannot access local variable 'y' where it is not associated with a value"} : (i1) -> ()
    out[i] = y + z + w


@cuda.jit
def assigns(a, m):
    # unpacking of a tuple expression and of a device-side tuple (grid)
    x, y = cuda.grid(2)
    p, q = x + 1, y + 1
    p, q = q, p
    # ASSIGN: mem.load(%1, {{.*}}) : (array<f32, 2, A>, i64, i64) -> (f32)
    # ASSIGN: arith.extf({{.*}}) : (f32) -> (f64)
    # ASSIGN: arith.mulf({{.*}}) : (f64, f64) -> (f64)
    # ASSIGN: arith.truncf({{.*}}) : (f64) -> (f32)
    # ASSIGN: mem.store({{.*}}) : (f32, array<f32, 2, A>, i64, i64) -> ()
    m[x, y] *= 2
    # int32 element += float: computed in float64, stored as int32
    # ASSIGN: arith.sitofp({{.*}}) : (i32) -> (f64)
    # ASSIGN: arith.addf
    # ASSIGN: arith.fptosi({{.*}}) : (f64) -> (i32)
    a[x] += 1.5
    # chained assignment: both names get the value
    b = c = p * q
    # ASSIGN: arith.muli
    # ASSIGN: arith.addi
    a[0] = b + c
