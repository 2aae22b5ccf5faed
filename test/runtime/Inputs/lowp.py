# A bfloat16 scalar argument (kfront run: 2.5:bf16, passed as its bits).
from numba import cuda
from numba.cuda import bf16


@cuda.jit
def scale(x, out):
    out[0] = bf16.bfloat16_to_float32(x * bf16.bfloat16(2.0))
    print(x, out[0])
