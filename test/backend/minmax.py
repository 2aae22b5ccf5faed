# max / min of exactly two float32 or float64 values are numba-cuda's (its cudaimpl): libdevice's fmaxf / fmin ...,
# PTX max.f32 / min.f64 (a NaN operand gives the other value), a float32 beside a float64 in float64; three values,
# a tuple and a float beside an integer keep Python's algorithm (a compare and a select).
# RUN: kfront compile %s -k mm --sig 'void(float32[::1], float64[::1], float32, float32, float64)' --emit=kir | FileCheck %s --check-prefix=KIR
# RUN: kfront compile %s -k mm --sig 'void(float32[::1], float64[::1], float32, float32, float64)' --emit=ptx -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
from numba import cuda


# KIR: math.libdevice(%{{.*}}, %{{.*}}) {name = "__nv_fmaxf"} : (f32, f32) -> (f32)
# KIR: math.libdevice(%{{.*}}, %{{.*}}) {name = "__nv_fminf"} : (f32, f32) -> (f32)
# KIR: math.libdevice(%{{.*}}, %{{.*}}) {name = "__nv_fmax"} : (f64, f64) -> (f64)
# KIR-COUNT-3: arith.maxf
# KIR-NOT: arith.maxf
# PTX-DAG: max.f32
# PTX-DAG: min.f32
# PTX-DAG: max.f64
@cuda.jit
def mm(f, d, x, y, z):
    f[0] = max(x, y)
    f[1] = min(x, y)
    d[0] = max(x, z)
    f[2] = max(x, y, y)
    f[3] = max((x, y))
    d[1] = max(z, 1)
