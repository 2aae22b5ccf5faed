# A while loop that carries no variable: its body block has no arguments (lower_loop once took an offset of a
# NULL argument array for it, undefined behaviour that clang's UBSan stops in the sanitizer build).
# RUN: kfront compile %s -k store --sig 'void(float64[:], float64)' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=STORE
# RUN: kfront compile %s -k never --sig 'void(float64[:])' --emit=kir | FileCheck %s --check-prefix=NEVER
from numba import cuda


@cuda.jit
def store(a, x):
    # STORE: scf.while() ({
    # STORE: scf.condition(%{{.*}}) : (i1) -> ()
    # STORE: }, {
    # STORE: mem.store
    # STORE: scf.yield() : () -> ()
    # STORE: }) : () -> ()
    while x > 100.0:
        a[0] = 1.0


@cuda.jit
def never(a):
    # NEVER: scf.while() ({
    # NEVER-NEXT: arith.constant() {value = 0 : i1}
    # NEVER-NEXT: scf.condition
    # NEVER: mem.store
    # NEVER: func.return
    while False:
        pass
    a[0] = 2.0
