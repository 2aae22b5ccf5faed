# `from math import *` binds every name of math the frontend knows (not a list of its own): here remainder,
# nextafter, frexp and tau, which an earlier list missed; math.tanh of a float16 stays float16 as numba-cuda's
# overload (cuda.fp16.htanh) types it.
# RUN: kfront compile %s -k star --sig 'void(float64[:], int32[:], float16[:])' --emit=kir --pass-pipeline= | FileCheck %s
from math import *

from numba import cuda


@cuda.jit
def star(x, e, h):
    x[0] = remainder(x[1], tau)
    x[2] = nextafter(x[3], inf)
    m, e[0] = frexp(x[4])
    h[0] = tanh(h[1])


# CHECK: math.remainder
# CHECK: math.nextafter
# CHECK: math.frexp
# CHECK: %[[H:.*]] = mem.load({{.*}}) : (array<f16, 1, A>, i64) -> (f16)
# CHECK-NEXT: math.tanh(%[[H]]) : (f16) -> (f16)
