# pad-shared (passes/pad_shared.c): a static shared array that the threads of a warp access down a column
# gets one element of padding per row; its shape as the kernel sees it stays (mem.dim, mem.size constants).
# RUN: kfront compile %s --emit=kir --pass-pipeline='canonicalize,cse,bce,pad-shared{report=1}' -o %t.kir 2>&1 | FileCheck %s --check-prefix=NOTE --implicit-check-not=note:
# RUN: FileCheck %s < %t.kir
# mem.dim and mem.size of a padded array (the frontend folds them for Python code) become its shape's constants:
# RUN: kfront-opt %S/Inputs/pad_shared_dims.kir --pass-pipeline=pad-shared | FileCheck %S/Inputs/pad_shared_dims.kir
import numpy as np
from numba import cuda, float32, float64, int16

TPB = 16


# The seed's fast_matmul pattern: sA[tx, ty] stored, sA[tx, j] read (tx moves a row index): padded; the shape
# the kernel reads is still (16, 16).
# NOTE: pad-shared.py:[[#@LINE+7]]:10: note: shared array @column__sA padded: rows of 17 elements instead of 16
# NOTE: pad-shared.py:[[#@LINE+7]]:10: note: shared array @column__sB padded: rows of 17 elements instead of 16
# CHECK: mem.global() {sym_name = @column__sA, type = array<f32, 2, C>, shape = [16, 17], space = "shared"}
# CHECK: mem.global() {sym_name = @column__sB, type = array<f64, 2, C>, shape = [16, 17], space = "shared"}
# CHECK: arith.constant() {value = 256.0} : () -> (f64)
@cuda.jit('void(float32[:,:], float64[:])')
def column(a, out):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array((TPB, TPB), float64)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    sA[tx, ty] = a[tx, ty]
    sB[tx, ty] = 1.0
    cuda.syncthreads()
    acc = 0.0
    for j in range(TPB):
        acc += sA[tx, j] * sB[j, ty]
    out[0] = acc + sA.size + sA.shape[1]


# Along a row (threadIdx.x in the last index): consecutive threads hit consecutive banks already.
# NOTE: pad-shared.py:[[#@LINE+4]]:9: note: shared array @row__t not padded: threads of a warp access it along a row
# CHECK: mem.global() {sym_name = @row__t, type = array<f32, 2, C>, shape = [16, 16], space = "shared"}
@cuda.jit('void(float32[:,:])')
def row(a):
    t = cuda.shared.array((TPB, TPB), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    t[ty, tx] = a[ty, tx]
    cuda.syncthreads()
    a[tx, ty] = t[tx, ty]


# No warp access down a column (threadIdx.x in no index); an index that is not affine; an odd row; a 1-D
# array; 2-byte elements: left alone.
# NOTE: pad-shared.py:[[#@LINE+13]]:10: note: shared array @others__bc not padded: no warp accesses it down a column
# NOTE: pad-shared.py:[[#@LINE+13]]:10: note: shared array @others__na not padded: an index of it is not affine
# CHECK: shape = [8, 16], space = "shared"}
# CHECK-NEXT: {{^$}}
# CHECK-NEXT: shape = [16, 16], space = "shared"}
# CHECK-NEXT: {{^$}}
# CHECK-NEXT: shape = [16, 15], space = "shared"}
# CHECK-NEXT: {{^$}}
# CHECK-NEXT: shape = [32], space = "shared"}
# CHECK-NEXT: {{^$}}
# CHECK-NEXT: shape = [16, 16], space = "shared"}
@cuda.jit('void(float32[:], int64)')
def others(a, n):
    bc = cuda.shared.array((8, 16), float32)
    na = cuda.shared.array((16, 16), float32)
    odd = cuda.shared.array((16, 15), float32)
    one = cuda.shared.array(32, float32)
    half = cuda.shared.array((16, 16), int16)
    tx = cuda.threadIdx.x
    bc[cuda.threadIdx.y, 0] = a[0]
    na[tx * tx, 0] = a[1]
    odd[tx, 0] = a[2]
    one[tx] = a[3]
    half[tx, 0] = 1
    cuda.syncthreads()
    a[tx] = bc[0, 0] + na[1, 0] + odd[tx, 1] + one[tx] + half[tx, 1]
