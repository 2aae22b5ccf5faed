# Numba's Optional(T) (frontend/optional.c): a device function returning a value on some paths and None on the
# others returns the value and an i1 "present" flag (kir has no Optional type: the frontend flattens it, as tuples);
# `is None` tests the flag; a use as the value checks it (check.raise of numba-cuda's TypeError, silent without
# debug=True); a variable None on one path is the same pair, merged by scf.if and carried around loops.
from numba import cuda


@cuda.jit(device=True)
def find(a, v):
    for i in range(a.shape[0]):
        if a[i] == v:
            return i
    return None


@cuda.jit
def use(a, out):
    r = find(a, 3)
    if r is None:
        out[0] = -1
    out[1] = r + 1


# RUN: kfront compile %s -k use --sig 'void(int64[:], int64[:])' --emit=kir | FileCheck %s
# The callee's result: the index and the flag, the flag false (and the index zero) after the loop
# CHECK: }) : (i1, i64, i64) -> (i1, i64, i64)
# CHECK-NEXT: %[[IDX:[0-9]+]], %[[FLAG:[0-9]+]] = scf.if(%{{[0-9]+}}) ({
# CHECK-NEXT: %[[TRUE:[0-9]+]] = arith.constant() {value = 1 : i1} : () -> (i1)
# CHECK-NEXT: scf.yield(%{{[0-9]+}}, %[[TRUE]]) : (i64, i1) -> ()
# CHECK-NEXT: }, {
# CHECK-NEXT: scf.yield(%{{[0-9]+}}, %{{[0-9]+}}) : (i64, i1) -> ()
# CHECK-NEXT: }) : (i1) -> (i64, i1)
# CHECK-NEXT: func.return(%[[IDX]], %[[FLAG]]) : (i64, i1) -> ()
# CHECK-NEXT: sym_name = @find, function_type = (array<i64, 1, A>, i64) -> (i64, i1), device, {{.*}}result_type = optional<i64>
# The caller: `r is None` is the flag's negation; r + 1 raises where it is None
# CHECK: %[[R:[0-9]+]], %[[P:[0-9]+]] = func.call(%0, %{{[0-9]+}}) {callee = @find} : (array<i64, 1, A>, i64) -> (i64, i1)
# CHECK: %[[NONE:[0-9]+]] = arith.xori(%[[P]], %{{[0-9]+}}) : (i1, i1) -> (i1)
# CHECK: scf.if(%[[NONE]])
# CHECK: check.raise(%{{[0-9]+}}) {exception = "TypeError: expected int64, got None", silent}
# CHECK: arith.addi(%[[R]], %{{[0-9]+}})

@cuda.jit
def carried(a, out):
    y = None
    for i in range(a.shape[0]):
        if a[i] > 3:
            y = i
    if y is not None:
        out[0] = y


# RUN: kfront compile %s -k carried --sig 'void(int64[:], int64[:])' --emit=kir | FileCheck %s --check-prefix=LOOP
# LOOP: %[[FALSE:[0-9]+]] = arith.constant() {value = 0 : i1} : () -> (i1)
# LOOP: = scf.for(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[FALSE]]) ({
# LOOP: : (i64, i64, i64, i64, i1) -> (i64, i1)

# RUN: kfront compile %s -k use --sig 'void(int64[:], int64[:])' --emit=ptx --arch=sm_90 -o %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o /dev/null
