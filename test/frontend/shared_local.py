# cuda.shared.array with a constant shape (an int, a tuple of module constants, keyword or positional
# arguments, dtype a numba or numpy type) is a module-level mem.global in space "shared" named after the
# kernel and the variable, read with mem.global_ref; shape 0 is the dynamic shared array; cuda.local.array
# is a mem.alloca in the entry block (once per call site, as Numba allocates it).
# RUN: kfront compile %s -k arrays --sig 'void(float32[:])' --emit=kir --pass-pipeline= | FileCheck %s
import numpy as np
from numba import cuda, float32, int32

TPB = 16
TILE = 8
TILE_PAD = TILE + 1
SHAPE = (2, TPB)

# CHECK-DAG: mem.global() {sym_name = @arrays__tile, type = array<f32, 2, C>, shape = [16, 9], space = "shared"}
# CHECK-DAG: mem.global() {sym_name = @arrays__acc, type = array<f64, 1, C>, shape = [16], space = "shared"}
# CHECK-DAG: mem.global() {sym_name = @arrays__pair, type = array<i32, 2, C>, shape = [2, 16], space = "shared"}
# CHECK-LABEL: func.func


@cuda.jit
def arrays(a):
    # CHECK: mem.alloca() {shape = [4]} : () -> (array<i32, 1, C>)
    # CHECK: mem.global_ref() {name = @arrays__tile} : () -> (array<f32, 2, C>)
    tile = cuda.shared.array(shape=(TPB, TILE_PAD), dtype=float32)
    # CHECK: mem.global_ref() {name = @arrays__acc} : () -> (array<f64, 1, C>)
    acc = cuda.shared.array(TPB, np.float64)
    # CHECK: mem.global_ref() {name = @arrays__pair} : () -> (array<i32, 2, C>)
    pair = cuda.shared.array(SHAPE, dtype=int32)
    # CHECK: mem.dynamic_shared() : () -> (array<f32, 1, C>)
    dyn = cuda.shared.array(0, dtype=float32)
    loc = cuda.local.array(4, int32)
    t = cuda.threadIdx.x
    for k in range(4):
        loc[k] = k
    tile[t, 0] = a[t]
    acc[t] = 1
    pair[0, t] = 2
    dyn[t] = 3
    cuda.syncthreads()
    a[t] = tile[t, 0] + acc[t] + pair[0, t] + dyn[t] + loc[3]
