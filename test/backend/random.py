# numba.cuda.random's device functions (kfront's prelude, frontend/random.c) in a kernel: compiled as device
# functions of the module, through both backends and ptxas, on numba-cuda's state array (xoroshiro128p_dtype
# records: fields s0, s1 read through mem.field); names kfront does not have, and a state array of another type,
# are located errors.
# RUN: kfront compile %s -k draw --sig 'void(Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)[::1], float32[::1], float64[::1])' --emit=kir | FileCheck %s --check-prefix=KIR
# RUN: kfront compile %s -k draw --sig 'void(Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)[::1], float32[::1], float64[::1])' --emit=ptx --arch=sm_90 -o %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %s -k draw --sig 'void(Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)[::1], float32[::1], float64[::1])' --emit=ptx --backend=llvm -o %t.llvm.ptx
# RUN: %ptxas -arch=sm_90 %t.llvm.ptx -o %t.llvm.cubin
# RUN: not kfront compile %s -k host_in_kernel --sig 'void(Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)[::1])' --emit=kir 2>&1 | FileCheck %s --check-prefix=HOST
# RUN: not kfront compile %s -k draw --sig 'void(uint64[:, ::1], float32[::1], float64[::1])' --emit=kir 2>&1 | FileCheck %s --check-prefix=ROWS
# RUN: not kfront compile %s -k unknown --sig 'void(Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)[::1])' --emit=kir 2>&1 | FileCheck %s --check-prefix=UNKNOWN
import numba.cuda.random
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_normal_float64, xoroshiro128p_uniform_float32


@cuda.jit(device=True)
def rotl(x):
    # the user's own rotl keeps its symbol; the prelude's is kfront_random__rotl
    return x + 1


@cuda.jit
def draw(states, u, z):
    i = cuda.grid(1)
    if i < states.shape[0]:
        u[i] = xoroshiro128p_uniform_float32(states, i)
        # ROWS: random.py:[[@LINE-1]]:46: error: xoroshiro128p_uniform_float32() takes numba.cuda.random's state array, a 1-D array of xoroshiro128p_dtype records (as create_xoroshiro128p_states makes it), not array(uint64, 2d, C)
        z[i] = xoroshiro128p_normal_float64(states, i)
        cuda.random.xoroshiro128p_jump(states, rotl(i))

# KIR-DAG: sym_name = @kfront_random__xoroshiro128p_uniform_float32, function_type = (array<record<s0: u64 @0, s1: u64 @8; size 16, align 8, aligned>, 1, C>, i64) -> (f32)
# KIR-DAG: sym_name = @kfront_random__xoroshiro128p_normal_float64, function_type = (array<record<s0: u64 @0, s1: u64 @8; size 16, align 8, aligned>, 1, C>, i64) -> (f64)
# KIR-DAG: sym_name = @kfront_random__xoroshiro128p_next, function_type = (array<record<s0: u64 @0, s1: u64 @8; size 16, align 8, aligned>, 1, C>, i64) -> (u64)
# KIR-DAG: sym_name = @kfront_random__rotl, function_type = (u64, u32) -> (u64)
# KIR-DAG: sym_name = @rotl, function_type = (i64) -> (i64)
# KIR-DAG: sym_name = @kfront_random__xoroshiro128p_jump, function_type = (array<record<s0: u64 @0, s1: u64 @8; size 16, align 8, aligned>, 1, C>, i64) -> ()
# KIR-DAG: mem.field(%{{.*}}) {name = "s0"} : (array<record<s0: u64 @0, s1: u64 @8; size 16, align 8, aligned>, 1, C>) -> (array<u64, 1, A>)
# KIR-DAG: mem.field(%{{.*}}) {name = "s1"}
# KIR-DAG: math.log({{.*}}) : (f32) -> (f32)
# KIR-DAG: math.cos({{.*}}) : (f64) -> (f64)


@cuda.jit
def host_in_kernel(states):
    create_xoroshiro128p_states(4, 1)
    # HOST: random.py:[[@LINE-1]]:5: error: Untyped global name 'create_xoroshiro128p_states': numba.cuda.random's host function cannot be used in a kernel: call it on the host and pass the states it returns
    cuda.random.init_xoroshiro128p_states(states, 1)
    # HOST: random.py:[[@LINE-1]]:17: error: 'numba.cuda.random.init_xoroshiro128p_states': numba.cuda.random's host function cannot be used in a kernel: call it on the host and pass the states it returns


@cuda.jit
def unknown(states):
    numba.cuda.random.xoroshiro128p_uniform_float16(states, 0)
    # UNKNOWN: random.py:[[@LINE-1]]:23: error: module 'numba.cuda.random' has no attribute 'xoroshiro128p_uniform_float16' that kfront knows
