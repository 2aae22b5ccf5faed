# CUDA vector types (numba-cuda's float32x4, int16x2, ... and aliases float4, short2): constructors from scalars
# (converted to the base type) and from smaller vectors, .x .y .z .w, vectors passed to and returned from device
# functions as their fields (one kir value each: vectors never reach kir ops), carried around loops, in tuples;
# numba-cuda's errors (immutable fields, no overload, no operators).
# RUN: kfront compile %s -k basic --sig 'void(float64[::1])' --emit=kir | FileCheck %s --check-prefix=BASIC
# RUN: kfront compile %s -k calls --sig 'void(float32[::1], float32)' --emit=kir | FileCheck %s --check-prefix=CALLS
# RUN: kfront compile %s -k calls --sig 'void(float32[::1], float32)' --emit=ptx -o %t.calls.ptx && %ptxas -arch=sm_90 %t.calls.ptx -o %t.calls.cubin
# RUN: kfront compile %s -k basic --sig 'void(float64[::1])' --emit=ptx -o %t.basic.ptx && %ptxas -arch=sm_90 %t.basic.ptx -o %t.basic.cubin
# RUN: not kfront compile %s -k immutable --sig 'void(float32[::1])' 2>&1 | FileCheck %s --check-prefix=IMM
# RUN: not kfront compile %s -k no_overload --sig 'void(float32[::1])' 2>&1 | FileCheck %s --check-prefix=OVL
# RUN: not kfront compile %s -k no_ops --sig 'void(float32[::1])' 2>&1 | FileCheck %s --check-prefix=OPS
from numba import cuda
from numba.cuda import float32x3, uint8x4


@cuda.jit
def basic(res):
    # the fields are the constants, converted as the constructor converts them and folded
    # BASIC: func.func()
    # BASIC-NOT: func.call
    # BASIC: arith.constant() {value = 7.0} : () -> (f64)
    # BASIC: arith.constant() {value = 1e+01} : () -> (f64)
    # BASIC: arith.constant() {value = 2.5} : () -> (f64)
    # BASIC: arith.constant() {value = 44.0} : () -> (f64)
    # BASIC: }) {sym_name = @basic
    v1 = cuda.float64x4(1.0, 3.0, 5.0, 7.0)
    v2 = cuda.short2(10, 11)
    res[0] = v1.w
    res[1] = v2.x
    f3 = float32x3(cuda.float32x1(2.5), cuda.float2(1, 2))
    res[2] = f3.x
    u = uint8x4(300, 1, 2, 3)  # converted as numba converts int64 to uint8: 300 -> 44
    res[3] = u.x


@cuda.jit(device=True)
def scale(v, s):
    return cuda.float32x2(v.x * s, v.y * s)


@cuda.jit
def calls(out, s):
    # CALLS: ^bb0(%[[VX:.*]]: f32, %[[VY:.*]]: f32, %[[S:.*]]: f32):
    # CALLS: arith.mulf(%[[VX]], %[[S]])
    # CALLS: func.return(%{{.*}}, %{{.*}}) : (f32, f32) -> ()
    # CALLS: function_type = (f32, f32, f32) -> (f32, f32), device, py_name = "scale", arg_names = ["v.x", "v.y", "s"]
    # CALLS: %{{.*}}, %{{.*}} = func.call(%{{.*}}, %{{.*}}, %{{.*}}) {callee = @scale} : (f32, f32, f32) -> (f32, f32)
    # CALLS: scf.for
    # CALLS: func.call
    v = cuda.float32x2(1.5, 2)
    w = scale(v, s)
    out[0] = w.x
    out[1] = w.y
    acc = cuda.float2(0, 0)
    for i in range(4):
        acc = scale(cuda.float2(acc.x + i, acc.y + 1), s)
    pair = (acc, w)
    for p in pair:
        out[2] += p.x + p.y


@cuda.jit
def immutable(out):
    v = cuda.float32x2(1, 2)
    # IMM: vector_types.py:[[@LINE+1]]:7: error: the fields of float32x2 are immutable: cannot assign to '.y'
    v.y = 3.0
    # IMM: vector_types.py:[[@LINE+1]]:16: error: float32x2 has no attribute 'z' (its fields are .x and .y)
    out[0] = v.z


@cuda.jit
def no_overload(out):
    v = cuda.float32x2(1, 2)
    # OVL: vector_types.py:[[@LINE+1]]:9: error: no overload of cuda.float32x4() for (float32x2, int64): the arguments' fields must add up to the vector's
    w = cuda.float32x4(v, 1)
    # OVL: vector_types.py:[[@LINE+1]]:9: error: no overload of cuda.int32x2() for (float32x2): a vector argument must have the base type of the result
    i = cuda.int2(v)
    # OVL: vector_types.py:[[@LINE+1]]:9: error: cuda.float32x1() takes 1 field (scalars and vectors of float32), not 2 arguments
    x = cuda.float1(1, 2)


@cuda.jit
def no_ops(out):
    v = cuda.float32x2(1, 2)
    # OPS: vector_types.py:[[@LINE+1]]:11: error: unsupported operand types for '+': float32x2 and float32x2
    w = v + v
    # OPS: vector_types.py:[[@LINE+1]]:14: error: float32x2 is not subscriptable
    out[0] = v[0]
