# Recursion as numba-cuda types it: a device function that calls itself, or functions that call each other
# (mutual recursion), with a declared signature or with a value return before the recursive call (fib's
# `if n < 2: return n`); the call of an instance still being lowered returns that type, and is a func.call of
# the function itself. The backend calls recursive functions (noinline) instead of inlining them; every walk
# over callees (the module's tidying, grid-stride, the static shared-memory size) ends on the cycle.
# RUN: kfront compile %s -k kernel --sig 'void(int64[:], int64[:])' --emit=kir | FileCheck %s --check-prefix=KIR
# RUN: kfront compile %s -k kernel --sig 'void(int64[:], int64[:])' --emit=llvm | FileCheck %s --check-prefix=LLVM
# RUN: kfront compile %s -k kernel --sig 'void(int64[:], int64[:])' --emit=ptx --arch=sm_90 -o %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o /dev/null
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: kfront compile %s -k kernel --sig 'void(int64[:], int64[:])' --emit=ptx --backend=llvm --arch=sm_90 -o %t.llvm.ptx
# RUN: %ptxas -arch=sm_90 %t.llvm.ptx -o /dev/null
# RUN: kfront compile %s -k kernel --sig 'void(int64[:], int64[:])' --emit=kir --pass-pipeline=canonicalize,cse,bce,dce,grid-stride | FileCheck %s --check-prefix=GS
# RUN: kfront compile %s -k late --sig 'void(int64[:])' --emit=kir | FileCheck %s --check-prefix=LATE
# RUN: not kfront compile %s -k runaway --sig 'void(int64[:])' 2>&1 | FileCheck %s --check-prefix=RUNAWAY
# RUN: not kfront compile %s -k widening --sig 'void(float64[:])' 2>&1 | FileCheck %s --check-prefix=WIDEN
# RUN: not kfront compile %s -k growing --sig 'void(int64[:])' 2>&1 | FileCheck %s --check-prefix=GROW
from numba import cuda


@cuda.jit("int64(int64)", device=True)
def fib1(n):
    if n < 2:
        return n
    return fib1(n - 1) + fib1(n - 2)


@cuda.jit(device=True)
def fib3(n):
    # no signature: the first return gives int64
    if n < 2:
        return n
    return fib3(n - 1) + fib3(n - 2)


@cuda.jit("int64(int64)", device=True)
def is_even(n):
    if n == 0:
        return 1
    return is_odd(n - 1)


@cuda.jit("int64(int64)", device=True)
def is_odd(n):
    if n == 0:
        return 0
    return is_even(n - 1)


@cuda.jit(device=True)
def fill(a, lo, hi):
    # returns nothing: divide and conquer over a[lo:hi]
    if hi - lo == 1:
        a[lo] = lo * lo
        return
    mid = (lo + hi) // 2
    fill(a, lo, mid)
    fill(a, mid, hi)


@cuda.jit
def kernel(r, x):
    # KIR: func.call({{.*}}) {callee = @fib1} : (i64) -> (i64)
    # KIR: func.call({{.*}}) {callee = @fib1} : (i64) -> (i64)
    # KIR: }) {sym_name = @fib1, function_type = (i64) -> (i64), device
    # KIR: func.call({{.*}}) {callee = @fib3}
    # KIR: }) {sym_name = @fib3
    # KIR: func.call({{.*}}) {callee = @is_odd}
    # KIR: }) {sym_name = @is_even
    # KIR: func.call({{.*}}) {callee = @is_even}
    # KIR: }) {sym_name = @is_odd
    # KIR: func.call({{.*}}) {callee = @fill} : (array<i64, 1, A>, i64, i64) -> ()
    # KIR: }) {sym_name = @fill
    # LLVM: define internal i64 @fib1(i64 %n) noinline nounwind {
    # LLVM: call i64 @fib1(
    # LLVM: define void @kernel(
    # PTX: .func  (.param .b64 func_retval0) fib1(
    # PTX: call.uni (retval0),
    # PTX-NEXT: fib1,
    i = cuda.grid(1)
    if i == 0:
        r[0] = fib1(x[0])
        r[1] = fib3(x[0])
        r[2] = is_even(x[0])
        r[3] = is_odd(x[0])
        fill(r, 4, r.shape[0])
    # grid-stride rewrites a kernel whose callees recurse (its callee walk ends on the cycles)
    # GS: }) {sym_name = @kernel, {{.*}}grid_stride


@cuda.jit(device=True)
def countdown(n):
    # the recursive call comes first; the function is typed again once `return 0` has given int64
    # LATE: func.call({{.*}}) {callee = @countdown} : (i64) -> (i64)
    # LATE: }) {sym_name = @countdown, function_type = (i64) -> (i64)
    r = countdown(n - 1) if n > 0 else 0
    if n <= 0:
        return 0
    return r + 1


@cuda.jit
def late(a):
    a[0] = countdown(5)


@cuda.jit(device=True)
def runaway_self(x):
    # RUNAWAY: recursion.py:[[@LINE+1]]:12: error: cannot type infer runaway recursion: 'runaway_self' calls itself and no return statement gives its result type; declare its signature (e.g. @cuda.jit("int64(int64)", device=True))
    return runaway_self(x)


@cuda.jit
def runaway(a):
    a[0] = runaway_self(1)


@cuda.jit(device=True)
def halve(x):
    if x < 1:
        return 0
    # WIDEN: recursion.py:[[@LINE+1]]:12: error: the recursive call of 'halve' was typed as returning int64, but 'halve' returns float64: declare its signature
    return halve(x / 2) + 0.5


@cuda.jit
def widening(a):
    a[0] = halve(a[0])


@cuda.jit(device=True)
def nest(t, n):
    if n == 0:
        return 0
    # GROW: error: 'nest' calls itself with argument types that keep changing (8 instances deep): declare its signature
    return nest((t, t), n - 1)


@cuda.jit
def growing(a):
    a[0] = nest(1, 3)
