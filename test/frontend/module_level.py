# Module reading: import aliases (numba.cuda as cu, numpy as np, from numba import float32 as f32),
# constants computed with Python's semantics (stored here into a float64 array, so folded to float64) (TILE + 1, floats, tuples, np.float32 scalars, math.pi),
# names defined under `if __name__ == "__main__":`; host code (classes, comprehensions, f-strings, CPU
# @numba.jit functions) is never rejected.
# RUN: kfront compile %s -k consts --sig 'void(float64[:])' --emit=kir --pass-pipeline= | FileCheck %s
import math

import numba
import numba.cuda as cu
import numpy as np
from numba import float32 as f32

TILE = 8
TILE_PAD = TILE + 1
SCALE = 1.5
PAIR = (2, TILE_PAD)
HALF = np.float32(0.5)
TWO_PI = 2 * math.pi
FLAG = TILE > 4 and SCALE < 2


class Host:
    values = [i * i for i in range(10)]


@numba.jit(nopython=True)
def on_the_cpu(x):
    return x + 1


@cu.jit
def consts(out):
    # CHECK: arith.constant() {value = 9.0} : () -> (f64)
    out[0] = TILE_PAD
    # CHECK: arith.constant() {value = 1.5} : () -> (f64)
    out[1] = SCALE
    # CHECK: arith.constant() {value = 18.0} : () -> (f64)
    out[2] = PAIR[0] * PAIR[1]
    # np.float32 constants are float32: HALF * HALF is a float32 product
    # CHECK: arith.mulf({{.*}}) : (f32, f32) -> (f32)
    out[3] = HALF * HALF
    # CHECK: arith.constant() {value = 6.28318
    out[4] = TWO_PI
    # True, stored as 1.0
    # CHECK: arith.constant() {value = 1.0} : () -> (f64)
    out[5] = FLAG
    # CHECK: arith.sitofp({{.*}}) : (i32) -> (f32)
    out[6] = f32(cu.threadIdx.x)
    # CHECK: arith.constant() {value = 4.0} : () -> (f64)
    out[7] = MAIN_ONLY


if __name__ == "__main__":
    MAIN_ONLY = 4
    print(f"{Host.values}")
