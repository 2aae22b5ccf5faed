# Slice objects (Numba's slice2_type and slice3_type): slice(...) holds start, stop and step as int64, omitted ones
# filled in as Numba's constructor fills them; a[s] is the view a[start:stop:step] (a slice2 keeps a C array C,
# a slice3 makes it A whatever its step, as Numba lays them out); a slice object passes to device functions as its
# three fields (s.start, s.stop, s.step); s.indices(n) raises ValueError for n < 0 or a step of 0. What Numba
# refuses is a located error.
# RUN: kfront compile %s -k views --sig 'void(float64[::1], float64[::1], int64, int64)' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=VIEWS
# RUN: kfront compile %s -k views --sig 'void(float64[::1], float64[::1], int64, int64)' -o %t.views.ptx && %ptxas -arch=sm_90 %t.views.ptx -o %t.views.cubin
# RUN: kfront compile %s -k attrs --sig 'void(int64[::1], int64)' --emit=kir | FileCheck %s --check-prefix=ATTRS
# RUN: kfront compile %s -k attrs --sig 'void(int64[::1], int64)' -o %t.attrs.ptx && %ptxas -arch=sm_90 %t.attrs.ptx -o %t.attrs.cubin
# RUN: kfront compile %s -k module_level --sig 'void(float64[::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=MODULE
# RUN: not kfront compile %s -k floats --sig 'void(int64[::1])' --emit=kir 2>&1 | FileCheck %s --check-prefix=FLOAT
# RUN: not kfront compile %s -k kinds --sig 'void(int64[::1], int64)' --emit=kir 2>&1 | FileCheck %s --check-prefix=KINDS
# RUN: not kfront compile %s -k tuple_rt --sig 'void(int64[::1], int64)' --emit=kir 2>&1 | FileCheck %s --check-prefix=TUPLE
# RUN: not kfront compile %s -k unknown --sig 'void(int64[::1])' --emit=kir 2>&1 | FileCheck %s --check-prefix=ATTR
# RUN: not kfront compile %s -k compare --sig 'void(int64[::1])' --emit=kir 2>&1 | FileCheck %s --check-prefix=CMP
from numba import cuda

# module-level slices are constants, typed as Numba's typeof types a slice value: a step of None or 1 is a slice2
TAIL = slice(1, None, 1)
EVERY_OTHER = slice(None, None, 2)


@cuda.jit(device=True)
def total(a, s):
    t = 0.0
    for v in a[s]:
        t += v
    return t


@cuda.jit
def views(a, out, n, st):
    # VIEWS: func.func() ({
    # VIEWS: mem.subview({{.*}}) {dims = [0]} : (array<f64, 1, C>, i64, i64, i64) -> (array<f64, 1, C>)
    # VIEWS: }) {sym_name = @total, function_type = (array<f64, 1, C>, i64, i64, i64) -> (f64), device, py_name = "total", arg_names = ["a", "s.start", "s.stop", "s.step"]}
    s = slice(1, n)
    # VIEWS: mem.subview({{.*}}) {dims = [0]} : (array<f64, 1, C>, i64, i64, i64) -> (array<f64, 1, C>)
    r = a[s]
    # a run-time step: the defaults chosen by its sign, the step checked (ValueError) when the view is made
    # VIEWS: %[[NEG:.*]] = arith.cmpi(%3, {{.*}}) {pred = "slt"}
    # VIEWS: arith.select(%[[NEG]], {{.*}}) : (i1, i64, i64) -> (i64)
    # VIEWS: check.raise({{.*}}) {exception = "ValueError: slice step cannot be zero"}
    # VIEWS: mem.subview({{.*}}, %3) {dims = [0]} : (array<f64, 1, C>, i64, i64, i64) -> (array<f64, 1, A>)
    w = a[slice(None, None, st)]
    # a slice3 of step 1 is still strided (layout A), as Numba types it
    # VIEWS: mem.subview({{.*}}) {dims = [0]} : (array<f64, 1, C>, i64, i64, i64) -> (array<f64, 1, A>)
    q = a[slice(0, n, 1)]
    # VIEWS: func.call(%0, {{.*}}, %2, {{.*}}) {callee = @total} : (array<f64, 1, C>, i64, i64, i64) -> (f64)
    out[0] = r[0] + w[0] + q[0] + total(a, s)


@cuda.jit
def attrs(out, n):
    # constants fold: slice(n).start is 0, its step 1; a negative step's defaults are INT64_MAX and INT64_MIN
    # ATTRS: %[[Z:.*]] = arith.constant() {value = 0} : () -> (i64)
    # ATTRS: mem.store(%[[Z]]
    # ATTRS: mem.store(%1
    # ATTRS: %[[MAX:.*]] = arith.constant() {value = 9223372036854775807} : () -> (i64)
    # ATTRS: mem.store(%[[MAX]]
    # ATTRS: %[[MIN:.*]] = arith.constant() {value = -9223372036854775808} : () -> (i64)
    # ATTRS: mem.store(%[[MIN]]
    s = slice(n)
    out[0] = s.start
    out[1] = s.stop
    t = slice(None, None, -1)
    out[2] = t.start
    out[3] = t.stop
    # (the step is the constant 2: its check folds away)
    # ATTRS: check.raise({{.*}}) {exception = "ValueError: length should not be negative"}
    # ATTRS-NOT: slice step cannot be zero
    i, j, k = slice(-3, None, 2).indices(n)
    out[4] = i + j + k


@cuda.jit
def module_level(a):
    # MODULE: %[[T:.*]] = mem.subview({{.*}}) {dims = [0]} : (array<f64, 1, C>, i64, i64, i64) -> (array<f64, 1, C>)
    # MODULE: %[[E:.*]] = mem.subview({{.*}}) {dims = [0]} : (array<f64, 1, C>, i64, i64, i64) -> (array<f64, 1, A>)
    # (the step, a constant, folds into the sum)
    # MODULE: arith.constant() {value = 2.0} : () -> (f64)
    t = a[TAIL]
    e = a[EVERY_OTHER]
    a[0] = t[0] + e[0] + EVERY_OTHER.step


@cuda.jit
def floats(out):
    s = slice(0, 1.5)
    # FLOAT: slice_objects.py:[[@LINE-1]]:18: error: slice() takes integers or None, not float64


@cuda.jit
def kinds(out, c):
    if c > 0:
        s = slice(0, 2)
    else:
        s = slice(0, 2, 1)
    # KINDS: slice_objects.py:[[@LINE-4]]:5: error: cannot unify slice<a:b> and slice<a:b:c> for 's'
    out[0] = s.stop


@cuda.jit
def tuple_rt(out, n):
    t = (1, 2, 3)
    u = t[slice(0, n)]
    # TUPLE: slice_objects.py:[[@LINE-1]]:11: error: a tuple is sliced with a slice of constants, not one whose stop is known only at run time


@cuda.jit
def unknown(out):
    out[0] = slice(1).end
    # ATTR: slice_objects.py:[[@LINE-1]]:23: error: unknown attribute 'end' of slice<a:b> (a slice has start, stop, step and indices())


@cuda.jit
def compare(out):
    out[0] = slice(1) == slice(1)
    # CMP: slice_objects.py:[[@LINE-1]]:23: error: unsupported operand types for '==': slice<a:b> and slice<a:b>
