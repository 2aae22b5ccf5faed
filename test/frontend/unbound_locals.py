# Locals bound on some paths only, as Numba accepts them: assigned in both branches of an if (no check), or
# in one branch and read only there (no check); read where they may be unbound (after an if that binds them
# on one branch, after a loop that may not run, in a loop before the assignment of the previous iteration):
# an i1 says whether they are bound, merged like any variable, and the read raises UnboundLocalError
# (check.raise, through the kernel's error record) when they are not. A read where the local is unbound on
# every path is a compile-time error. An array (a view, a[i] of a matrix, too) unbound on a path takes an empty
# array there (mem.reinterpret of a one-element local array to no elements: even an unchecked read stays in its
# memory), and arrays of one element type and rank but other layouts meet as layout A. With run-time checks
# off (--bounds-check=off) every local counts as bound, and such a read gives zero as in Numba.
# RUN: kfront compile %s -k both_arms --sig 'void(float64[:], int64)' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=BOTH
# RUN: kfront compile %s -k read_inside --sig 'void(float64[:], int64)' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=INSIDE
# RUN: kfront compile %s -k read_after --sig 'void(float64[:], int64)' --emit=kir --pass-pipeline= --mlir-print-debuginfo | FileCheck %s --check-prefix=AFTER
# RUN: kfront compile %s -k after_loop --sig 'void(float64[:], int64)' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=LOOP
# RUN: kfront compile %s -k previous --sig 'void(float64[:], int64)' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=PREV
# RUN: kfront compile %s -k read_after --sig 'void(float64[:], int64)' --emit=kir --bounds-check=off | FileCheck %s --check-prefix=OFF
# RUN: not kfront compile %s -k never --sig 'void(float64[:], int64)' 2>&1 | FileCheck %s --check-prefix=NEVER
# RUN: kfront compile %s -k other_arm --sig 'void(float64[:], int64)' --emit=kir --pass-pipeline= 2>&1 >/dev/null | FileCheck %s --check-prefix=OTHERW
# RUN: kfront compile %s -k other_arm --sig 'void(float64[:], int64)' --emit=kir --pass-pipeline= 2>/dev/null | FileCheck %s --check-prefix=OTHER
# RUN: kfront compile %s -k array_one_path --sig 'void(float64[:], float64[::1], int64)' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=ARRAY
# RUN: kfront compile %s -k array_one_path --sig 'void(float64[:], float64[::1], int64)' --emit=ptx --arch=sm_90 -o %t.array.ptx
# RUN: %ptxas -arch=sm_90 %t.array.ptx -o /dev/null
# RUN: kfront compile %s -k row_one_path --sig 'void(float64[:], float64[:, ::1], int64)' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=ROW
# RUN: kfront compile %s -k read_after --sig 'void(float64[:], int64)' --emit=ptx --arch=sm_90 -o %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o /dev/null
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
from numba import cuda


@cuda.jit
def both_arms(a, n):
    # BOTH-NOT: check.raise
    # BOTH: }) : (i1) -> (f64)
    if n > 0:
        x = 1.0
    else:
        x = 2.0
    a[0] = x


@cuda.jit
def read_inside(a, n):
    # INSIDE-NOT: check.raise
    # INSIDE: func.return
    if n > 0:
        y = 3.0
        a[0] = y


@cuda.jit
def read_after(a, n):
    # AFTER: %{{.*}}, %[[B:.*]] = scf.if
    # AFTER: arith.constant() {value = 1 : i1}
    # AFTER: }, {
    # AFTER: arith.constant() {value = 0.0}
    # AFTER-NEXT: arith.constant() {value = 0 : i1}
    # AFTER: }) : (i1) -> (f64, i1)
    # AFTER: %[[U:.*]] = arith.xori(%[[B]], {{.*}}) : (i1, i1) -> (i1)
    # AFTER: check.raise(%[[U]]) {exception = "UnboundLocalError: cannot access local variable 'z' where it is not associated with a value"} : (i1) -> () loc("{{.*}}unbound_locals.py":[[@LINE+5]]:12)
    # only once: the read that passed the check leaves z bound
    # AFTER-NOT: check.raise
    if n > 0:
        z = 3.0
    a[0] = z
    a[1] = z + 1
    # OFF-NOT: check.raise
    # OFF: func.return


@cuda.jit
def after_loop(a, n):
    # the loop may run zero times: w's flag goes around it
    # LOOP: scf.for(
    # LOOP-NEXT: ^bb{{.*}}(%{{.*}}: i64, %{{.*}}: f64, %{{.*}}: i1):
    # LOOP: }) : (i64, i64, i64, f64, i1) -> (f64, i1)
    # LOOP: check.raise
    for i in range(n):
        w = i * 2.0
    a[0] = w


@cuda.jit
def previous(a, n):
    # prev is read in the iteration after the one that binds it: checked in the loop, bound after its first
    # iteration; the guard i > 0 keeps every read bound
    # PREV: scf.for
    # PREV: scf.if
    # PREV: check.raise({{.*}}) {exception = "UnboundLocalError: cannot access local variable 'prev' {{.*}}"}
    for i in range(n):
        if i > 0:
            a[i] = prev
        prev = i * 1.5


@cuda.jit
def never(a, n):
    # NEVER: unbound_locals.py:[[@LINE+1]]:12: error: local variable 'q' is referenced before assignment
    a[0] = q
    q = 1.0


# A read where the local is unbound on every path compiles (as in Numba) when the function gives it a number
# elsewhere: a warning, and the read raises UnboundLocalError when it runs (its value: zero of that type).
# OTHER: scf.if
# OTHER: }, {
# OTHER-NEXT: arith.constant() {value = 1 : i1}
# OTHER-NEXT: check.raise(%{{.*}}) {exception = "UnboundLocalError: cannot access local variable 'c' where it is not associated with a value"}
@cuda.jit
def other_arm(a, n):
    if n > 0:
        c = 2.0
        a[0] = c
    else:
        # OTHERW: unbound_locals.py:[[@LINE+1]]:16: warning: Detected uninitialized variable c: no path to this read assigns it
        a[0] = c + 1.0


@cuda.jit
def array_one_path(a, b, n):
    # ARRAY: ^bb0(%0: array<f64, 1, A>, %1: array<f64, 1, C>, %2: i64):
    # ARRAY-NEXT: %[[ONE:[0-9]+]] = mem.alloca() {shape = [1]} : () -> (array<f64, 1, C>)
    # ARRAY: scf.if
    # ARRAY: scf.yield(%1, %{{[0-9]+}}) : (array<f64, 1, C>, i1) -> ()
    # ARRAY: mem.reinterpret(%[[ONE]], %{{[0-9]+}}, %{{[0-9]+}}) : (array<f64, 1, C>, i64, i64) -> (array<f64, 1, C>)
    # ARRAY: }) : (i1) -> (array<f64, 1, C>, i1)
    # ARRAY: check.raise
    # ARRAY-SAME: UnboundLocalError: cannot access local variable 'c'
    if n > 0:
        c = b
    a[0] = c[0]


@cuda.jit
def row_one_path(a, m, n):
    # a view a[i] bound on one path: the row's array (its subview) there
    # ROW: scf.if
    # ROW: mem.subview
    # ROW: }) : (i1) -> (array<f64, 1, C>, i1)
    if n > 0:
        r = m[n]
    a[0] = r[0]

# The raising thread writes the record (flag 2, KF_ERROR_RAISE) and ends; the exception is named in the
# third section of __kf_error_strings ("UnboundLocalError: ...": 85 = 'U').
# PTX: .visible .global .align 1 .b8 __kf_error_strings[{{[0-9]+}}] = {{{.*}}, 0, 0, 85, 110, 98, 111, 117, 110, 100,
# PTX: .visible .entry read_after(
# PTX: atom.global.cas.b32
