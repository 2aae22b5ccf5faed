# Tuples as kernel arguments: a UniTuple or Tuple parameter is its elements, flattened in order (nested tuples too),
# as Numba passes them; the kernel records the arguments' own types (arg_types) for the runtime's signature.
# RUN: kfront compile %s -k nested --sig 'void(Tuple((int64, UniTuple(float32, 2))), float64[:])' --emit=kir | FileCheck %s --check-prefix=NESTED
# RUN: kfront compile %s -k arrays --sig 'void(UniTuple(float32[::1], 2), Tuple((float32, int64)))' --emit=kir | FileCheck %s --check-prefix=ARRAYS
# RUN: kfront compile %s -k nested --sig 'void(Tuple((int64, UniTuple(float32, 2))), float64[:])' --emit=ptx -o %t.nested.ptx && %ptxas -arch=sm_90 %t.nested.ptx -o %t.nested.cubin
# RUN: kfront compile %s -k arrays --sig 'void(UniTuple(float32[::1], 2), Tuple((float32, int64)))' --emit=ptx -o %t.arrays.ptx && %ptxas -arch=sm_90 %t.arrays.ptx -o %t.arrays.cubin
# RUN: kfront compile %s -k nested --sig 'void(Tuple((int64, UniTuple(float32, 2))), float64[:])' --emit=ptx | FileCheck %s --check-prefix=PTX
# RUN: not kfront compile %s -k nested --sig 'void(UniTuple(int64, 2), float64[:])' 2>&1 | FileCheck %s --check-prefix=BAD
# Enum members inside tuple arguments (as Numba types them): the members' dtypes are the parameters, the kernel is
# typed on the enum member types (t[0] is an IntEnum member: an integer where one is wanted)
# RUN: kfront compile %s -k nested --sig 'void(Tuple((IntEnumMember("m.Color", int64), UniTuple(float32, 2))), float64[:])' --emit=kir | FileCheck %s --check-prefix=ENUM
# ENUM: ^bb0(%0: i64, %1: f32, %2: f32, %3: array<f64, 1, A>):
# ENUM: arg_types = [tuple<i64, tuple<f32, f32>>, array<f64, 1, A>]
# RUN: not kfront compile %s -k enum_in_tuple --sig 'void(UniTuple(EnumMember("m.Color", int64), 2), float64[:])' 2>&1 | FileCheck %s --check-prefix=ENUMOP
from numba import cuda


@cuda.jit
def nested(t, out):
    # NESTED: ^bb0(%0: i64, %1: f32, %2: f32, %3: array<f64, 1, A>):
    # NESTED: arith.mulf(%1, %2) : (f32, f32) -> (f32)
    # NESTED: arg_names = ["t.0", "t.1.0", "t.1.1", "out"], arg_types = [tuple<i64, tuple<f32, f32>>, array<f64, 1, A>]
    a, (b, c) = t
    # BAD: tuple_args.py:[[@LINE+1]]:14: error: int64 is not subscriptable (only arrays and tuples are)
    out[0] = t[1][0] * c + a + b


@cuda.jit
def enum_in_tuple(t, out):
    # ENUMOP: tuple_args.py:[[@LINE+1]]:19: error: unsupported operand types for '+': Enum<int64>(m.Color) and Enum<int64>(m.Color)
    out[0] = t[0] + t[1]


@cuda.jit
def arrays(arrs, k):
    # ARRAYS: ^bb0(%0: array<f32, 1, C>, %1: array<f32, 1, C>, %2: f32, %3: i64):
    # ARRAYS: mem.load(%0
    # ARRAYS: mem.store({{.*}}, %1
    src, dst = arrs
    i = cuda.grid(1)
    if i < src.size and i < dst.size:
        dst[i] = src[i] * k[0] + k[1]


# the PTX parameters: the elements, then the array's data, shape and stride
# PTX: .visible .entry nested(
# PTX-NEXT: .param .u64 nested_param_0,
# PTX-NEXT: .param .f32 nested_param_1,
# PTX-NEXT: .param .f32 nested_param_2,
# PTX-NEXT: .param .u64 nested_param_3,
