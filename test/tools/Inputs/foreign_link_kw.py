from numba import cuda

mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)", link="foreign_mul.cu")


@cuda.jit("void(float32[::1], float32[::1], float32[::1])")
def multiply(r, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = mul(x[i], y[i])
