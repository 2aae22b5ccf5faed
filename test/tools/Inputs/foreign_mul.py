# A kernel calling a foreign device function declared at module level (numba-cuda's cuda.declare_device), whose code
# the compiler is given with --link (test/unit/Inputs/foreign_mul.cu).
from numba import cuda

mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)")


@cuda.jit("void(float32[::1], float32[::1], float32[::1])")
def multiply(r, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = mul(x[i], y[i])
