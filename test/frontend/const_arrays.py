# Module-level NumPy arrays of constants (np.array / np.asarray of nested lists, dtype inferred as NumPy
# does or given) are constants in kernels, as Numba freezes global arrays: a mem.global in space "const"
# with the values, read through cuda.const.array_like(ARR) or the name itself.
# RUN: kfront compile %s -k k --sig 'void(float32[:])' --emit=kir --pass-pipeline= | FileCheck %s
import numpy as np
from numba import cuda

COEF = np.array([1.0, 2.0, 3.0], dtype=np.float32)
GRID = np.asarray([[1, 2], [3, 4]])
FLAGS = np.array([True, False])

# CHECK-DAG: mem.global() {sym_name = @k__COEF, type = array<f32, 1, C>, shape = [3], space = "const", value = [1.0 : f32, 2.0 : f32, 3.0 : f32]}
# CHECK-DAG: mem.global() {sym_name = @k__GRID, type = array<i64, 2, C>, shape = [2, 2], space = "const", value = [1, 2, 3, 4]}
# CHECK-DAG: mem.global() {sym_name = @k__FLAGS, type = array<i1, 1, C>, shape = [2], space = "const", value = [1 : i1, 0 : i1]}


@cuda.jit
def k(out):
    # CHECK: mem.global_ref() {name = @k__COEF} : () -> (array<f32, 1, C>)
    c = cuda.const.array_like(COEF)
    i = cuda.threadIdx.x
    # CHECK: mem.global_ref() {name = @k__GRID} : () -> (array<i64, 2, C>)
    # CHECK: mem.load({{.*}}) : (array<i64, 2, C>, i64, i64) -> (i64)
    out[i] = c[i % 3] + GRID[1, 0] + FLAGS[0]
