# raise and assert as numba-cuda compiles them. With debug=True the thread raises: check.raise records the
# exception's class and message (str() of its constant arguments) in the kernel's error record, and the host
# raises it after the launch; without, a raise ends the thread silently and an assert is not compiled. A raise
# leaves the function as a return does. Device functions raise too: under a debug kernel their instances are
# compiled apart (__dbg). What kfront does not support is a located error.
# RUN: kfront compile %s -k checked --sig 'void(int64[:])' --emit=kir --mlir-print-debuginfo | FileCheck %s --check-prefix=DEBUG
# RUN: kfront compile %s -k unchecked --sig 'void(int64[:])' --emit=kir | FileCheck %s --check-prefix=QUIET
# RUN: kfront compile %s -k plain_kernel -k debug_kernel --emit=kir | FileCheck %s --check-prefix=DEV
# RUN: kfront compile %s -k messages --sig 'void(int64[:])' --emit=kir | FileCheck %s --check-prefix=MSG
# RUN: kfront compile %s -k checked --sig 'void(int64[:])' --emit=ptx --arch=sm_90 -o %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o /dev/null
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: kfront compile %s -k divides --sig 'void(float64[:], int64)' --emit=kir | FileCheck %s --check-prefix=ZDIV
# RUN: kfront compile %s -k divides_quietly --sig 'void(float64[:], int64)' --emit=kir | FileCheck %s --check-prefix=NOZDIV
# RUN: kfront compile %s -k bare --sig 'void(int64[:])' --emit=kir | FileCheck %s --check-prefix=BARE
# RUN: not kfront compile %s -k chained --sig 'void(int64[:])' 2>&1 | FileCheck %s --check-prefix=FROM
# RUN: not kfront compile %s -k dynamic --sig 'void(int64[:])' 2>&1 | FileCheck %s --check-prefix=DYN
# RUN: not kfront compile %s -k not_a_class --sig 'void(int64[:])' 2>&1 | FileCheck %s --check-prefix=NOTCLS
# RUN: not kfront compile %s -k in_variable --sig 'void(int64[:])' 2>&1 | FileCheck %s --check-prefix=VAR
# RUN: kfront compile %s -k instance_in_variable --sig 'void(int64[:])' --emit=kir | FileCheck %s --check-prefix=INST
from numba import cuda

LIMIT = 100
WHY = "over the limit"


class TooBig(ValueError):
    pass


@cuda.jit(debug=True)
def checked(a):
    i = cuda.grid(1)
    # DEBUG: check.raise() {exception = "ValueError: negative input"} : () -> () loc("{{.*}}raise.py":[[@LINE+2]]:9)
    if a[i] < 0:
        raise ValueError("negative input")
    # a class of the module, a module-level message
    # DEBUG: check.raise() {exception = "TooBig: over the limit"}
    if a[i] > LIMIT:
        raise TooBig(WHY)
    # DEBUG: check.raise(%{{.*}}) {exception = "AssertionError: seven"} : (i1) -> () loc("{{.*}}raise.py":[[@LINE+1]]:5)
    assert a[i] != 7, "seven"
    # a raise in a loop leaves it (and the kernel) as a return does
    # DEBUG: scf.while
    # DEBUG: check.raise() {exception = "IndexError"}
    for k in range(a[i]):
        if k == 50:
            raise IndexError
    a[i] = 2 * a[i]


@cuda.jit
def unchecked(a):
    i = cuda.grid(1)
    # QUIET: check.raise() {exception = "ValueError: negative input", silent}
    if a[i] < 0:
        raise ValueError("negative input")
    # QUIET-NOT: AssertionError
    assert a[i] != 7, "seven"
    a[i] = 2 * a[i]


@cuda.jit(device=True)
def positive(x):
    if x <= 0:
        raise ValueError("must be positive")
    return x


@cuda.jit("void(int64[:])")
def plain_kernel(a):
    a[0] = positive(a[0])


@cuda.jit("void(int64[:])", debug=True)
def debug_kernel(a):
    a[0] = positive(a[0])


# one device function, two instances: silent under plain_kernel, recorded under debug_kernel
# DEV: check.raise() {exception = "ValueError: must be positive", silent}
# DEV: {sym_name = @positive__i64, function_type = (i64) -> (i64), device
# DEV: {sym_name = @plain_kernel,
# DEV: check.raise() {exception = "ValueError: must be positive"} : () -> ()
# DEV: {sym_name = @positive__i64__dbg, function_type = (i64) -> (i64), device
# DEV: {sym_name = @debug_kernel,


@cuda.jit(debug=True)
def messages(a):
    i = cuda.grid(1)
    # MSG: check.raise() {exception = "RuntimeError: (1, 'two', 3.5, None, True, \"it's\")"}
    if i == 1:
        raise RuntimeError(1, "two", 3.5, None, True, "it's")
    # MSG: check.raise() {exception = "ZeroDivisionError: 1e-05"}
    if i == 2:
        raise ZeroDivisionError(0.00001)
    # MSG: check.raise() {exception = "OverflowError: 1e+16"}
    if i == 3:
        raise OverflowError(1e16)
    # MSG: check.raise() {exception = "KeyError: 100.0"}
    if i == 4:
        raise KeyError(100.0)
    # MSG: check.raise() {exception = "NotImplementedError: "}
    if i == 5:
        raise NotImplementedError("")


@cuda.jit(debug=True)
def divides(a, n):
    # debug=True is Numba's Python error model: a division by zero raises ZeroDivisionError
    # ZDIV: check.raise(%{{.*}}) {exception = "ZeroDivisionError: integer division by zero"}
    a[0] = 10 // n
    # ZDIV: check.raise(%{{.*}}) {exception = "ZeroDivisionError: integer modulo by zero"}
    a[1] = 10 % n
    # ZDIV: check.raise(%{{.*}}) {exception = "ZeroDivisionError: division by zero"}
    a[2] = a[0] / a[1]
    # a divisor known not to be zero: no check
    # ZDIV-NOT: check.raise
    a[3] = a[0] / 2.0


@cuda.jit
def divides_quietly(a, n):
    # NOZDIV-NOT: check.raise
    a[0] = 10 // n
    a[2] = a[0] / a[1]


# PTX: .visible .entry checked(
# PTX: atom.global.cas.b32


# A bare raise has no active exception to re-raise in a kernel (no try statements): RuntimeError, as in Python.
# BARE: check.raise() {exception = "RuntimeError: No active exception to reraise"}
# BARE-NOT: mem.store
@cuda.jit(debug=True)
def bare(a):
    raise
    a[0] = 1


@cuda.jit(debug=True)
def chained(a):
    # FROM: raise.py:[[@LINE+1]]:32: error: raise ... from ...: multiple argument raise is not supported (Numba refuses it; raise the exception alone)
    raise ValueError("x") from TooBig("y")


@cuda.jit(debug=True)
def dynamic(a):
    # DYN: raise.py:[[@LINE+1]]:29: error: the arguments of a raised exception must be compile-time constants: this one is int64, known only at run time (numba-cuda cannot raise exceptions with dynamic arguments on CUDA)
    raise ValueError("bad", a[0])


@cuda.jit(debug=True)
def not_a_class(a):
    # NOTCLS: raise.py:[[@LINE+1]]:11: error: 'LIMIT' is int64, not an exception class kfront can raise
    raise LIMIT


@cuda.jit(debug=True)
def in_variable(a):
    e = 1
    # VAR: raise.py:[[@LINE+1]]:11: error: 'e' is int64, not an exception kfront can raise
    raise e


# An instance made with constant arguments and kept in a variable is raised as Numba infers it (RewriteConstRaises)
# INST: check.raise({{.*}}) {exception = "ValueError: ('bad', 3)"}
# INST: check.raise({{.*}}) {exception = "KeyError"}
@cuda.jit(debug=True)
def instance_in_variable(a):
    e = ValueError("bad", 3)
    cls = KeyError
    if a[0] < 0:
        raise e
    if a[0] > 9:
        raise cls
