# Device functions are typed at each call site from the argument types and compiled once per distinct
# argument types (a function compiled for several gets mangled names: name__f32__f64); tuple results are
# several results of func.func; arrays are passed as arrays; a @cuda.jit function without device=True is
# callable too (as in numba-cuda); keyword and default arguments bind as in Python; device=True with a
# signature converts the arguments and the result to it.
# RUN: kfront compile %s -k caller --sig 'void(float32[:], float64[:])' --emit=kir --pass-pipeline= | FileCheck %s
from numba import cuda


@cuda.jit(device=True)
def pair(x, y):
    return x + y, x * y


@cuda.jit(device=True)
def first(v, i=0):
    return v[i]


@cuda.jit
def twice(x):
    return x * 2


@cuda.jit("float32(float32)", device=True)
def half(x):
    return x / 2


# CHECK-DAG: sym_name = @pair__f32__f64, function_type = (f32, f64) -> (f64, f64), device
# CHECK-DAG: sym_name = @pair__i64__i64, function_type = (i64, i64) -> (i64, i64), device
# CHECK-DAG: sym_name = @first, function_type = (array<f32, 1, A>, i64) -> (f32), device
# CHECK-DAG: sym_name = @twice, function_type = (f32) -> (f64), device
# the declared float32 result: x / 2 (float64) converted back
# CHECK-DAG: arith.truncf({{.*}}) : (f64) -> (f32)
# CHECK-DAG: sym_name = @half, function_type = (f32) -> (f32), device
# CHECK-LABEL: ^bb0(%0: array<f32, 1, A>, %1: array<f64, 1, A>):


@cuda.jit
def caller(a, out):
    i = cuda.grid(1)
    # CHECK: %[[S:.*]], %[[P:.*]] = func.call({{.*}}) {callee = @pair__f32__f64} : (f32, f64) -> (f64, f64)
    s, p = pair(a[i], 2.0)
    # CHECK: func.call({{.*}}) {callee = @pair__i64__i64} : (i64, i64) -> (i64, i64)
    t = pair(i, 3)
    # CHECK: func.call(%0, {{.*}}) {callee = @first} : (array<f32, 1, A>, i64) -> (f32)
    f = first(a)
    # CHECK: func.call(%0, {{.*}}) {callee = @first}
    g = first(i=1, v=a)
    # CHECK: func.call({{.*}}) {callee = @twice} : (f32) -> (f64)
    h = twice(a[i])
    # an int64 argument converted to the signature's float32
    # CHECK: arith.sitofp({{.*}}) : (i64) -> (f32)
    # CHECK: func.call({{.*}}) {callee = @half} : (f32) -> (f32)
    k = half(i)
    out[i] = s + p + t[0] + t[1] + f + g + h + k
