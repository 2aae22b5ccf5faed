# Generated kernels (compile.h describes how the host launches them):
#  - @vectorize: the scalar function as a device function name__core, and a kernel `name` over 1-D arrays
#    (inputs, then the output) with a grid-stride loop over the output's length;
#  - @guvectorize: the function as a device function taking its core arrays as views (array + leading
#    index), and a kernel whose arguments have one more leading (loop) dimension, one thread per index;
#  - @cuda.reduce: the binary function as a device function, and a kernel reducing `inp` into one partial
#    result per block (grid-stride accumulation, then a tree in shared memory with barriers).
# RUN: kfront compile %s -k vec --sig 'float32(float32, int32)' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=VEC
# RUN: kfront compile %s -k gu --sig 'void(float32[:], float32, float32[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=GU
# RUN: kfront compile %s -k red --sig 'float64(float64, float64)' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=RED
# RUN: kfront compile %s --emit=kir | FileCheck %s --check-prefix=EAGER
# The kernel's own arguments are accepted as the signature too (what a runtime launching it knows):
# RUN: kfront compile %s -k red --sig 'void(float32[::1], float32[::1])' --emit=kir | FileCheck %s --check-prefix=KSIG
# KSIG: sym_name = @red__core, function_type = (f32, f32) -> (f32), device
# KSIG: sym_name = @red, function_type = (array<f32, 1, C>, array<f32, 1, C>) -> (), kernel
# RUN: kfront compile %s -k gu --sig 'void(float32[:, ::1], float32[::1], float32[:, ::1])' --emit=kir | FileCheck %s --check-prefix=KSIGGU
# KSIGGU: sym_name = @gu, function_type = (array<f32, 2, C>, array<f32, 1, C>, array<f32, 2, C>) -> (), kernel
import numba
from numba import cuda, float32, guvectorize, vectorize


@vectorize(["float32(float32, int32)", "float64(float64, int32)"], target="cuda")
def vec(x, n):
    return x * n


@guvectorize(["void(float32[:], float32, float32[:])"], "(n),()->(n)", target="cuda")
def gu(x, s, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * s


@cuda.reduce
def red(a, b):
    return max(a, b)


@numba.vectorize(["float32(float32)"])
def cpu_only(x):
    return x


# VEC: sym_name = @vec__core, function_type = (f32, i32) -> (f32), device
# VEC: ^bb0(%0: array<f32, 1, A>, %1: array<i32, 1, A>, %2: array<f32, 1, A>):
# VEC: scf.for
# VEC: func.call({{.*}}) {callee = @vec__core} : (f32, i32) -> (f32)
# VEC: mem.store
# VEC: sym_name = @vec, {{.*}}, kernel, py_name = "vec", generated = "vectorize"

# GU: sym_name = @gu__core, function_type = (array<f32, 2, A>, i64, f32, array<f32, 2, A>, i64) -> (), device
# GU: ^bb0(%0: array<f32, 2, A>, %1: array<f32, 1, A>, %2: array<f32, 2, A>):
# GU: mem.load(%1, {{.*}}) : (array<f32, 1, A>, i64) -> (f32)
# GU: func.call(%0, {{.*}}, {{.*}}, %2, {{.*}}) {callee = @gu__core}
# GU: generated = "guvectorize", gu_layout = "(n),()->(n)"

# RED: mem.global() {sym_name = @red__sm, type = array<f64, 1, C>, shape = [256], space = "shared"}
# RED: sym_name = @red__core, function_type = (f64, f64) -> (f64), device
# RED: ^bb0(%0: array<f64, 1, A>, %1: array<f64, 1, A>):
# RED: scf.while
# RED: func.call({{.*}}) {callee = @red__core}
# RED: gpu.barrier()
# RED: scf.while
# RED: gpu.barrier()
# RED: mem.store
# RED: generated = "reduce"

# Without -k: the eager signatures of vectorize and guvectorize (@cuda.reduce is lazy; CPU ufuncs are host code).
# EAGER-DAG: sym_name = @vec__f32__i32, {{.*}}, kernel, py_name = "vec"
# EAGER-DAG: sym_name = @vec__f64__i32, {{.*}}, kernel, py_name = "vec"
# EAGER-DAG: sym_name = @gu, {{.*}}, kernel, py_name = "gu"
# EAGER-NOT: cpu_only
