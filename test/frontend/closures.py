# Closures and first-class values (issue 12). An inner def or a lambda is a device function of its own whose
# captured variables (free names that are locals of the enclosing function) are parameters after its own: called
# where it is defined, it gets their values at the call. Passed to a device function it goes with its captured
# constants, and the callee is specialised on it; so are device functions, intrinsics (cuda.atomic.add) and Numba
# types passed as arguments (no kir parameter: the value is in the instance's key and symbol). A constant
# argument the callee cannot be typed without (cuda.shared.array(n, dtype)) is passed as a literal.
# RUN: kfront compile %s -k capture --sig 'void(float64[:], float64)' --emit=kir | FileCheck %s --check-prefix=CAPTURE
# RUN: kfront compile %s -k passed --sig 'void(float64[:])' --emit=kir | FileCheck %s --check-prefix=PASSED
# RUN: kfront compile %s -k intrinsic --sig 'void(float64[:])' --emit=kir | FileCheck %s --check-prefix=INTRINSIC
# RUN: kfront compile %s -k literal --sig 'void(float64[:])' --emit=kir | FileCheck %s --check-prefix=LITERAL
# RUN: kfront compile %s -k passed --sig 'void(float64[:])' --emit=ptx --arch=sm_90 -o %t.passed.ptx
# RUN: %ptxas -arch=sm_90 %t.passed.ptx -o /dev/null
# RUN: kfront compile %s -k intrinsic --sig 'void(float64[:])' --emit=ptx --arch=sm_90 -o %t.intrinsic.ptx
# RUN: %ptxas -arch=sm_90 %t.intrinsic.ptx -o /dev/null
# RUN: FileCheck %s --check-prefix=PTX < %t.intrinsic.ptx
# RUN: kfront compile %s -k capture --sig 'void(float64[:], float64)' --emit=ptx --arch=sm_90 -o %t.capture.ptx
# RUN: %ptxas -arch=sm_90 %t.capture.ptx -o /dev/null
# RUN: kfront compile %s -k literal --sig 'void(float64[:])' --emit=ptx --arch=sm_90 -o %t.literal.ptx
# RUN: %ptxas -arch=sm_90 %t.literal.ptx -o /dev/null
# RUN: kfront compile %s -k star --sig 'void(float64[:])' --emit=kir | FileCheck %s --check-prefix=STAR
# RUN: kfront compile %s -k star --sig 'void(float64[:])' --emit=ptx --arch=sm_90 -o %t.star.ptx
# RUN: %ptxas -arch=sm_90 %t.star.ptx -o /dev/null
# RUN: not kfront compile %s -k escapes_nonconst --sig 'void(float64[:], float64)' 2>&1 | FileCheck %s --check-prefix=NONCONST
# RUN: not kfront compile %s -k escapes_failed_def --sig 'void(float64[:], int64)' 2>&1 | FileCheck %s --check-prefix=FAILEDDEF
# RUN: not kfront compile %s -k escapes_multidef --sig 'void(float64[:], int64)' 2>&1 | FileCheck %s --check-prefix=MULTIDEF
# RUN: not kfront compile %s -k free_unbound --sig 'void(float64[:])' 2>&1 | FileCheck %s --check-prefix=UNBOUND
# RUN: not kfront compile %s -k decorated_inner --sig 'void(float64[:])' 2>&1 | FileCheck %s --check-prefix=DECORATED
# RUN: kfront compile %s -k loop_bound --sig 'void(float64[:], int64)' --emit=kir | FileCheck %s --check-prefix=LOOPBOUND
# RUN: kfront compile %s -k loop_bound --sig 'void(float64[:], int64)' --emit=ptx --arch=sm_90 -o %t.loop_bound.ptx
# RUN: %ptxas -arch=sm_90 %t.loop_bound.ptx -o /dev/null
# RUN: kfront compile %s -k per_branch --sig 'void(float64[:], int64)' --emit=kir | FileCheck %s --check-prefix=PERBRANCH
# RUN: not kfront compile %s -k chosen_at_run_time --sig 'void(float64[:], int64)' 2>&1 | FileCheck %s --check-prefix=CHOSEN
# RUN: not kfront compile %s -k chosen_in_loop --sig 'void(float64[:], int64)' 2>&1 | FileCheck %s --check-prefix=CHOSENLOOP
# RUN: not kfront compile %s -k self_recursive --sig 'void(float64[:], int64)' 2>&1 | FileCheck %s --check-prefix=SELFREC
# RUN: not kfront compile %s -k kwonly_inner --sig 'void(float64[:])' 2>&1 | FileCheck %s --check-prefix=KWONLY
# RUN: not kfront compile %s -k kwonly_device --sig 'void(float64[:])' 2>&1 | FileCheck %s --check-prefix=KWONLYDEV
# RUN: not kfront compile %s -k varkw_device --sig 'void(float64[:])' 2>&1 | FileCheck %s --check-prefix=VARKWDEV
# RUN: kfront compile %s -k keywords --sig 'void(float64[:])' --emit=kir | FileCheck %s --check-prefix=KEYWORDS
# RUN: not kfront compile %s -k mutual_inner --sig 'void(float64[:], int64)' 2>&1 | FileCheck %s --check-prefix=MUTUAL
# RUN: not kfront compile %s -k lambda_self --sig 'void(float64[:], int64)' 2>&1 | FileCheck %s --check-prefix=LAMBDASELF
# RUN: kfront compile %s -k positional_only --sig 'void(float64[:])' --emit=kir | FileCheck %s --check-prefix=POSONLY
# RUN: not kfront compile %s -k posonly_keyword --sig 'void(float64[:])' 2>&1 | FileCheck %s --check-prefix=POSONLYKW
# RUN: not kfront compile %s -k mapping_call --sig 'void(float64[:], UniTuple(float64, 1))' 2>&1 | FileCheck %s --check-prefix=MAPPING
from numba import cuda
import numpy as np


@cuda.jit(device=True)
def apply(f, x):
    return f(x)


@cuda.jit(device=True)
def twice(x):
    return 2 * x


# CAPTURE: func.func()
# CAPTURE-NEXT: ^bb0(%0: f64, %1: array<f64, 1, A>, %2: f64):
# CAPTURE: arith.mulf(%0, %2)
# CAPTURE: sym_name = @capture__scale, function_type = (f64, array<f64, 1, A>, f64) -> (f64), device, py_name = "scale", arg_names = ["v", "a", "s"]
# CAPTURE: func.call(%4, %0, %1) {callee = @capture__scale}
@cuda.jit
def capture(a, s):
    def scale(v):
        return v * s + a[0]
    a[1] = scale(a[2])


# PASSED-DAG: sym_name = @passed__lambda, function_type = (f64, f64) -> (f64), device, py_name = "<lambda>", arg_names = ["v", "t"]
# PASSED-DAG: sym_name = @apply__Cpassed__lambda_cf64x4008000000000000__f64, function_type = (f64) -> (f64)
# PASSED-DAG: sym_name = @apply__Ftwice__f64, function_type = (f64) -> (f64)
# PASSED-DAG: sym_name = @apply__Nf32__f64, function_type = (f64) -> (f32)
@cuda.jit
def passed(a):
    t = 3.0
    a[0] = apply(lambda v: v + t, a[1])
    a[1] = apply(twice, a[2])
    a[2] = apply(np.float32, a[3])


@cuda.jit(device=True)
def accumulate(op, arr, v):
    op(arr, 0, v)


# INTRINSIC-DAG: gpu.atomic_rmw(%0, %2, %1) {kind = "add"}
# INTRINSIC-DAG: sym_name = @accumulate__Batomic_add__f64_1A__f64, function_type = (array<f64, 1, A>, f64) -> ()
# INTRINSIC-DAG: gpu.atomic_rmw(%0, %2, %1) {kind = "max"}
# INTRINSIC-DAG: sym_name = @accumulate__Batomic_max__f64_1A__f64
# PTX-DAG: atom.global.add.f64
# PTX-DAG: atom.global.cas.b64
@cuda.jit
def intrinsic(a):
    accumulate(cuda.atomic.add, a, 1.0)
    accumulate(cuda.atomic.max, a, 2.0)


@cuda.jit(device=True)
def make_shared(n, dtype):
    sm = cuda.shared.array(n, dtype)
    sm[0] = 1
    return sm[0]


# LITERAL: sym_name = @make_shared, function_type = () -> (f32), device, py_name = "make_shared", arg_names = []
# LITERAL: mem.global() {sym_name = @make_shared__sm, type = array<f32, 1, C>, shape = [16], space = "shared"}
@cuda.jit
def literal(a):
    a[0] = make_shared(16, np.float32)


@cuda.jit(device=True)
def forward(func, *args):
    return func(*args)


# STAR: sym_name = @forward__Ftwice__T1_f64_E, function_type = (f64) -> (f64), device, py_name = "forward", arg_names = ["args.0"]
# STAR: sym_name = @forward__Cstar__add3__T3_f64_i64_i64_E, function_type = (f64, i64, i64) -> (f64), device, py_name = "forward", arg_names = ["args.0", "args.1", "args.2"]
@cuda.jit
def star(a):
    def add3(x, y, z):
        return x + y + z
    a[0] = forward(twice, a[1])
    t = (1, 2)
    a[1] = forward(add3, a[2], *t)


@cuda.jit
def escapes_nonconst(a, s):
    def g(v):
        return v + s
    # NONCONST: closures.py:[[@LINE+1]]:18: error: Cannot capture the non-constant value associated with variable 's' in a function that may escape ('g' is passed to another function)
    a[0] = apply(g, 1.0)


# a captured variable whose definition failed is no constant either: numba-cuda, which checks captures before typing,
# says so (test_make_function_to_jit_function's test_non_const_in_escapee), after kfront's own error
@cuda.jit
def escapes_failed_def(a, n):
    # FAILEDDEF: closures.py:[[@LINE+1]]:12: error: module 'numpy' has no attribute 'arange' that kfront knows
    z = np.arange(n)
    def g(v):
        return v + z[0]
    # FAILEDDEF: closures.py:[[@LINE+1]]:18: error: Cannot capture the non-constant value associated with variable 'z' in a function that may escape ('g' is passed to another function)
    a[0] = apply(g, 1.0)


@cuda.jit
def escapes_multidef(a, c):
    x = 3
    if c:
        x = 6

    def g(v):
        return v + x
    # MULTIDEF: closures.py:[[@LINE+1]]:18: error: Cannot capture a constant value for variable 'x' as there are multiple definitions present
    a[0] = apply(g, 1.0)


# Numba makes a closure's cells where it is defined, from the variables stored so far (in the order Python compiles
# the body): reading one assigned only later is refused, a self-recursive inner def included.
@cuda.jit
def free_unbound(a):
    # UNBOUND: closures.py:[[@LINE+1]]:9: error: 'g' reads 'y', which is assigned only after it is defined here: not supported (numba-cuda: Unsupported use of cell variable encountered)
    def g():
        return y
    a[0] = g()
    y = 2.0


@cuda.jit
def decorated_inner(a):
    # DECORATED: closures.py:[[@LINE+1]]:6: error: a decorated function cannot be defined inside a kernel or device function
    @cuda.jit(device=True)
    def g(v):
        return v
    a[0] = g(1.0)


# A closure bound on some paths only (in a loop that may not run, in one branch) is read where it is bound, as
# Numba inlines it (a run-time UnboundLocalError where it may not be): here after the loop, reading the loop
# variable's last value as Python's cell would.
# LOOPBOUND: sym_name = @loop_bound__lambda, function_type = (f64, i64) -> (f64), device, py_name = "<lambda>", arg_names = ["x", "i"]
# LOOPBOUND: check.raise(%{{[0-9]+}}) {exception = "UnboundLocalError: cannot access local variable 'f' where it is not associated with a value"}
# LOOPBOUND: func.call(%{{[0-9]+}}, %{{[0-9]+}}) {callee = @loop_bound__lambda}
@cuda.jit
def loop_bound(a, n):
    for i in range(n):
        f = lambda x: x + i
    a[0] = f(1.0)


# Redefined in each branch and called there: each call is its own function's (Numba: each make_function becomes
# a function of its own).
# PERBRANCH-DAG: sym_name = @per_branch__f, function_type = (f64, i64) -> (f64), device
# PERBRANCH-DAG: arith.addf
# PERBRANCH-DAG: arith.subf
@cuda.jit
def per_branch(a, c):
    if c:
        def f(x):
            return x + c
        a[0] = f(3.0)
    else:
        def f(x):
            return x - c
        a[0] = f(3.0)


# A different function on each path, called where they meet, is a first-class function value: numba-cuda types it
# (UndefinedFunctionType) but cannot lower it on CUDA.
@cuda.jit
def chosen_at_run_time(a, c):
    # CHOSEN: closures.py:[[@LINE+1]]:5: error: 'f' holds function 'f' (defined at line [[@LINE+2]]) on one path and function 'f' (defined at line [[@LINE+5]]) on another: a function chosen at run time is a first-class function value, which is not supported on CUDA
    if c:
        def f(x):
            return x + 1
    else:
        def f(x):
            return x + 2
    a[0] = f(3.0)


@cuda.jit
def chosen_in_loop(a, n):
    f = twice
    # CHOSENLOOP: closures.py:[[@LINE+1]]:5: error: 'f' holds function 'twice' on one path and function '<lambda>' (defined at line [[@LINE+2]]) on another
    for i in range(n):
        f = lambda x: x + 1
    a[0] = f(3.0)


@cuda.jit
def self_recursive(a, n):
    # SELFREC: closures.py:[[@LINE+1]]:9: error: a self-recursive inner function is not supported: 'fact' reads its own name, which is not yet bound where it is defined (numba-cuda: Unsupported use of cell variable encountered)
    def fact(k):
        if k <= 1:
            return 1
        return k * fact(k - 1)
    a[0] = fact(n)


# numba-cuda refuses keyword-only and **kwargs parameters (op_MAKE_FUNCTION with kwdefaults is not implemented;
# its dispatcher's argument folding fails on them); calls with keyword arguments bind as Python binds them.
@cuda.jit
def kwonly_inner(a):
    # KWONLY: closures.py:[[@LINE+1]]:17: error: 'y' is a keyword-only parameter: they are not supported in device functions, as numba-cuda's dispatcher cannot bind them; make it a positional parameter (keyword arguments and defaults are supported)
    def f(x, *, y=3.0):
        return x + y
    a[0] = f(1.0)


# KWONLYDEV: closures.py:[[@LINE+2]]:20: error: 'y' is a keyword-only parameter: they are not supported in device functions
@cuda.jit(device=True)
def d_kwonly(x, *, y):
    return x + y


@cuda.jit
def kwonly_device(a):
    a[0] = d_kwonly(1.0, y=2.0)


# VARKWDEV: closures.py:[[@LINE+2]]:18: error: **kw: **kwargs parameters are not supported in device functions, as Numba supports no explicit **kwargs; name the parameters (keyword arguments and defaults are supported)
@cuda.jit(device=True)
def d_varkw(x, **kw):
    return x


@cuda.jit
def varkw_device(a):
    a[0] = d_varkw(1.0)


@cuda.jit(device=True)
def d_pos(x, y=1.0, z=2.0):
    return x - y * z


# Keyword arguments to a device function and to an inner def bind by name, defaults filling the rest (numba-cuda
# folds them for a device function; for an inner def its inliner drops them, computing 3.0 for f(5.0, z=10.0)).
# KEYWORDS: %[[FIVE:[0-9]+]] = arith.constant() {value = 5.0}
# KEYWORDS-NEXT: %[[ONE:[0-9]+]] = arith.constant() {value = 1.0}
# KEYWORDS-NEXT: %[[TEN:[0-9]+]] = arith.constant() {value = 1e+01}
# KEYWORDS-NEXT: func.call(%[[FIVE]], %[[ONE]], %[[TEN]]) {callee = @keywords__f}
# KEYWORDS: %[[THREE:[0-9]+]] = arith.constant() {value = 3.0}
# KEYWORDS-NEXT: %[[FOUR:[0-9]+]] = arith.constant() {value = 4.0}
# KEYWORDS-NEXT: func.call(%[[THREE]], %[[FOUR]], %[[ONE]]) {callee = @keywords__f}
# KEYWORDS: func.call(%[[FIVE]], %[[ONE]], %[[TEN]]) {callee = @d_pos}
@cuda.jit
def keywords(a):
    def f(x, y=1.0, z=2.0):
        return x - y * z
    a[0] = f(5.0, z=10.0)
    a[1] = f(z=1.0, y=4.0, x=3.0)
    a[2] = d_pos(5.0, z=10.0)


# Inner defs calling each other: the first one's closure needs the second's cell before it is bound, which
# numba-cuda's interpreter refuses as it refuses a self-recursive inner def (LOAD_CLOSURE of an unbound cell).
@cuda.jit
def mutual_inner(a, n):
    # MUTUAL: closures.py:[[@LINE+1]]:9: error: 'ev' reads 'od', which is assigned only after it is defined here: not supported (numba-cuda: Unsupported use of cell variable encountered)
    def ev(k):
        return True if k == 0 else od(k - 1)
    def od(k):
        return False if k == 0 else ev(k - 1)
    a[0] = ev(n)


@cuda.jit
def lambda_self(a, n):
    # LAMBDASELF: closures.py:[[@LINE+1]]:9: error: '<lambda>' reads 'f', which is assigned only after it is defined here
    f = lambda k: 1 if k <= 1 else k * f(k - 1)
    a[0] = f(n)


# Positional-only parameters (before '/') bind positionally; a keyword naming one is Python's TypeError.
# POSONLY: %[[ONE:[0-9]+]] = arith.constant() {value = 1.0}
# POSONLY-NEXT: %[[TWO:[0-9]+]] = arith.constant() {value = 2.0}
# POSONLY-NEXT: %[[FIVE:[0-9]+]] = arith.constant() {value = 5.0}
# POSONLY-NEXT: func.call(%[[ONE]], %[[TWO]], %[[FIVE]]) {callee = @positional_only__f}
@cuda.jit
def positional_only(a):
    def f(x, y=2.0, /, z=3.0):
        return x * 100.0 + y * 10.0 + z
    a[0] = f(1.0, z=5.0)


@cuda.jit
def posonly_keyword(a):
    def f(x, /, y):
        return x - y
    # POSONLYKW: closures.py:[[@LINE+1]]:14: error: f() got some positional-only arguments passed as keyword arguments: 'x'
    a[0] = f(x=1.0, y=5.0)


@cuda.jit
def mapping_call(a, t):
    # MAPPING: closures.py:[[@LINE+1]]:23: error: **mapping in a call is not supported: kernels have no dicts (Numba: CALL_FUNCTION_EX with **kwargs not supported)
    a[0] = d_pos(1.0, **t)
