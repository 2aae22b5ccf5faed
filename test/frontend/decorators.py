# Decorator forms. @cuda.jit("sig") and @cuda.jit(["sig1", "sig2"]) are eager: compiled without -k, one
# func.func per signature (mangled names when there are several, py_name the Python name); a signature
# can be written as an expression (void(float32[:])); keyword options become function attributes; lazy
# @cuda.jit kernels and device functions are only compiled on demand; --sig replaces the eager signatures.
# RUN: kfront compile %s --emit=kir --pass-pipeline= | FileCheck %s
# RUN: kfront compile %s -k scale --sig 'void(float64[::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=SIG
# RUN: kfront compile %s -k lazy --sig 'void(float32[:, ::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=LAZY
import numba
from numba import cuda, float32, void

# CHECK-NOT: sym_name = @lazy
# CHECK-DAG: sym_name = @scale__f32_1A, {{.*}}, kernel, py_name = "scale"
# CHECK-DAG: sym_name = @scale__f64_1C, {{.*}}, kernel, py_name = "scale"
# CHECK-DAG: sym_name = @one, function_type = (array<f32, 1, A>) -> (), kernel, py_name = "one", {{.*}}, fastmath, debug, lineinfo, opt = 2
# CHECK-DAG: sym_name = @typed, function_type = (array<f32, 1, A>, i32) -> (), kernel
# CHECK-DAG: sym_name = @dev, function_type = (f32) -> (f32), device, py_name = "dev", arg_names = ["x"], inline = "always"
# SIG: sym_name = @scale, function_type = (array<f64, 1, C>) -> ()
# LAZY: sym_name = @lazy, function_type = (array<f32, 2, C>) -> ()


@cuda.jit(["void(float32[:])", "void(float64[::1])"])
def scale(a):
    a[0] *= 2


@cuda.jit("void(float32[:])", fastmath=True, debug=True, lineinfo=True, opt=2)
def one(a):
    a[0] = 1


@cuda.jit(void(float32[:], numba.int32))
def typed(a, n):
    a[0] = n


@cuda.jit("float32(float32)", device=True, inline="always")
def dev(x):
    return x + 1


@cuda.jit
def lazy(a):
    a[0, 0] = 3
