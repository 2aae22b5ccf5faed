# Structured control flow. `if c: return` at the top of a kernel is a plain scf.if whose else region holds
# the rest of the kernel (no flag); a return inside a loop makes the loop an scf.while that stops on a
# "returned" flag and guards what follows. for/range with 1-3 arguments and negative steps is scf.for
# (lb, ub, step); loops with break become scf.while with the flag and the counter carried; continue skips
# the rest of the body; while/for ... else runs the else clause unless the loop broke.
# RUN: kfront compile %s -k early --sig 'void(float32[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=EARLY
# RUN: kfront compile %s -k nested_return --sig 'void(float32[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=NESTED
# RUN: kfront compile %s -k ranges --sig 'void(float32[:], int64[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=RANGE
# RUN: kfront compile %s -k breaks --sig 'void(float32[:], int64[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=BREAK
# RUN: kfront compile %s -k elifs --sig 'void(float32[:], float64[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=ELIF
from numba import cuda


@cuda.jit
def early(a):
    i = cuda.grid(1)
    # EARLY: %[[C:.*]] = arith.cmpi({{.*}}) {pred = "sge"}
    # EARLY-NEXT: scf.if(%[[C]]) ({
    # EARLY-NEXT: scf.yield() : () -> ()
    # EARLY-NEXT: }, {
    # EARLY: mem.store
    # EARLY: scf.yield() : () -> ()
    # EARLY-NEXT: }) : (i1) -> ()
    # EARLY-NEXT: func.return()
    if i >= a.shape[0]:
        return
    a[i] = 1


@cuda.jit
def nested_return(a):
    i = cuda.grid(1)
    # NESTED: %[[F:.*]] = arith.constant() {value = 0 : i1}
    # NESTED: %[[RET:.*]], %{{.*}} = scf.while(%[[F]], {{.*}}) ({
    # NESTED: ^bb{{.*}}(%[[R:.*]]: i1, %[[K:.*]]: i64):
    # NESTED: arith.xori(%[[R]]
    # NESTED: arith.cmpi(%[[K]]
    # NESTED: scf.condition
    # NESTED: }) : (i1, i64) -> (i1, i64)
    # NESTED-NEXT: scf.if(%[[RET]]) ({
    # NESTED-NEXT: scf.yield() : () -> ()
    # NESTED-NEXT: }, {
    # NESTED: mem.store
    for k in range(a.shape[0]):
        if a[k] < 0:
            return
    a[i] = 2


@cuda.jit
def ranges(a, out):
    s = 0
    # RANGE: %[[Z:.*]] = arith.constant() {value = 0} : () -> (i64)
    # RANGE: %[[TEN:.*]] = arith.constant() {value = 10} : () -> (i64)
    # RANGE: %[[ONE:.*]] = arith.constant() {value = 1} : () -> (i64)
    # RANGE: %[[S0:.*]] = arith.constant() {value = 0} : () -> (i64)
    # RANGE: %[[S1:.*]] = scf.for(%[[Z]], %[[TEN]], %[[ONE]], %[[S0]]) ({
    for k in range(10):
        s += k
    # RANGE: %[[TWO:.*]] = arith.constant() {value = 2} : () -> (i64)
    # RANGE: %[[S2:.*]] = scf.for(%[[TWO]], {{.*}}, {{.*}}, %[[S1]])
    for k in range(2, 10):
        s += k
    # RANGE: %[[M2:.*]] = arith.constant() {value = -2} : () -> (i64)
    # RANGE: scf.for({{.*}}, {{.*}}, %[[M2]], %[[S2]])
    for k in range(10, 0, -2):
        s += k
    # a range over an int32 gives int32 values
    # RANGE: scf.for
    # RANGE: arith.trunci({{.*}}) : (i64) -> (i32)
    for k in range(cuda.threadIdx.x):
        s += k
    # RANGE: mem.store
    out[0] = s


@cuda.jit
def breaks(a, out):
    s = 0
    n = a.shape[0]
    j = 0
    # BREAK: scf.while({{.*}}) ({
    # BREAK: ^bb{{.*}}(%{{.*}}: i64, %{{.*}}: i64, %[[B:.*]]: i1):
    # BREAK: arith.xori(%[[B]],
    # BREAK: scf.condition
    # BREAK: }) : (i64, i64, i1) -> (i64, i64, i1)
    while j < n:
        if a[j] == 0:
            j += 1
            continue
        if a[j] < 0:
            break
        s += j
        j += 1
    else:
        s = -1
    # the else clause: when the loop did not break
    # BREAK: scf.if
    # BREAK: arith.constant() {value = -1}
    # BREAK: scf.while
    for k in range(n):
        if a[k] > 5:
            break
    else:
        s += 100
    # BREAK: arith.constant() {value = 100}
    out[0] = s


@cuda.jit
def elifs(a, out):
    i = cuda.grid(1)
    x = a[i]
    # y is int64 on three paths and float64 on one: float64 after the if
    # ELIF: %[[Y:.*]] = scf.if
    # ELIF-NEXT: arith.constant() {value = 1.0} : () -> (f64)
    # ELIF: arith.constant() {value = 2.5}
    # ELIF: }) : (i1) -> (i64)
    # ELIF-NEXT: arith.sitofp({{.*}}) : (i64) -> (f64)
    # ELIF: }) : (i1) -> (f64)
    # ELIF: mem.store(%[[Y]], {{.*}}) : (f64, array<f64, 1, A>, i64) -> ()
    if x > 3:
        y = 1
    elif x > 2:
        y = 2.5
    elif x > 1:
        y = 3
    else:
        y = 4
    out[i] = y
