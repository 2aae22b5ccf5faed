# privatize-atomics (passes/privatize_atomics.c): a kernel that updates a small global array only by atomics of
# one associative and commutative kind gets a per-block shared copy (zeroed, barrier, shared atomics, barrier,
# one global atomic per nonzero bin), behind a run-time test of the extent; a note says why any other is not.
# RUN: kfront compile %s --emit=kir --pass-pipeline='canonicalize,cse,bce,privatize-atomics{report=1},dce' -o %t.kir 2>&1 | FileCheck %s --check-prefix=NOTE --implicit-check-not=note:
# RUN: FileCheck %s < %t.kir
# RUN: kfront compile %s -k hist --emit=kir --pass-pipeline='privatize-atomics{report=1,max-bytes=64}' -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROOM
# RUN: kfront compile %s -k hist_once --emit=kir --pass-pipeline='privatize-atomics{report=1,require-loop=0}' -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONCE
# --remarks=atomics turns the report on in the default pipeline:
# RUN: kfront compile %s -k hist --emit=kir --remarks=atomics -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTE1
import numpy as np
from numba import cuda, float32


# The histogram as a grid-stride loop: privatised (4096 i32 bins, 16 KiB).
# NOTE: privatize-atomics.py:[[#@LINE+22]]:9: note: atomics into 'bins' privatised: 1 atomic of kind add to a shared copy when its extent is at most 4096, one global atomic per nonzero bin per block at the end
# NOTE1: privatize-atomics.py:[[#@LINE+21]]:9: note: atomics into 'bins' privatised
# ROOM: note: atomics into 'bins' not privatised: no room for a copy in shared memory
# CHECK: mem.global() {sym_name = @__kf_priv_hist_1, type = array<i32, 1, C>, shape = [4096], space = "shared"}
# CHECK: mem.global() {sym_name = @__kf_priv_hist_counter, type = array<i32, 1, C>, shape = [1], space = "shared"}
# CHECK-LABEL: ^bb0(%0: array<f32, 1, C>, %1: array<i32, 1, C>):
# CHECK: %[[N:[0-9]+]] = mem.dim(%1) {axis = 0}
# CHECK: %[[FAST:[0-9]+]] = arith.cmpi(%[[N]], %{{[0-9]+}}) {pred = "sle"}
# CHECK: %[[S:[0-9]+]] = mem.global_ref() {name = @__kf_priv_hist_1}
# CHECK: scf.if(%[[FAST]])
# CHECK: gpu.barrier()
# CHECK: check.bounds
# CHECK: scf.if(%[[FAST]])
# CHECK-NEXT: gpu.atomic_rmw(%[[S]], {{.*}} {kind = "add"}
# CHECK: gpu.atomic_rmw(%1, {{.*}} {kind = "add"}
# CHECK: gpu.barrier()
# CHECK: scf.while()
# CHECK: gpu.atomic_rmw(%1, {{.*}} {kind = "add"}
# CHECK: privatized_atomics
@cuda.jit('void(float32[::1], int32[::1])')
def hist(x, bins):
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        cuda.atomic.add(bins, int(x[i] * bins.shape[0]), 1)


# One update per thread: not privatised by default (the runtime's grid-stride loop makes it privatisable).
# NOTE: privatize-atomics.py:[[#@LINE+6]]:9: note: atomics into 'bins' not privatised: no atomic on it is inside a loop: each thread updates it once, privatising would not pay
# ONCE: note: atomics into 'bins' privatised
@cuda.jit('void(float32[::1], int32[::1])')
def hist_once(x, bins):
    i = cuda.grid(1)
    if i < x.shape[0]:
        cuda.atomic.add(bins, int(x[i] * 256), 1)


# min into 64-bit bins, the value's sign kept: privatised; the copy starts at the type's maximum.
# NOTE: privatize-atomics.py:[[#@LINE+5]]:9: note: atomics into 'lo' privatised: 1 atomic of kind min to a shared copy when its extent is at most 2048
# CHECK: arith.constant() {value = 9223372036854775807} : () -> (i64)
@cuda.jit('void(int64[::1], int64[::1])')
def lowest(x, lo):
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        cuda.atomic.min(lo, x[i] % 16, x[i])


# add and sub mix (both flush as add); float add under fastmath.
# NOTE: privatize-atomics.py:[[#@LINE+5]]:9: note: atomics into 'net' privatised: 2 atomics of kind add
# NOTE: privatize-atomics.py:[[#@LINE+6]]:9: note: atomics into 'acc' privatised: 1 atomic of kind add
@cuda.jit('void(int64[::1], int32[::1], float32[::1])', fastmath=True)
def mixed(x, net, acc):
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        cuda.atomic.add(net, x[i] % 8, 3)
        cuda.atomic.sub(net, (x[i] + 1) % 8, 1)
        cuda.atomic.add(acc, x[i] % 4, float32(0.5))


# Declined, each for its reason.
# NOTE: privatize-atomics.py:[[#@LINE+4]]:9: note: atomics into 'acc' not privatised: float additions in another order round differently (allowed with fastmath=True)
@cuda.jit('void(int64[::1], float32[::1])')
def float_sum(x, acc):
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        cuda.atomic.add(acc, x[i] % 4, float32(0.5))


# NOTE: privatize-atomics.py:[[#@LINE+5]]:9: note: atomics into 'bins' not privatised: the kernel has a barrier, a warp op or a grid sync
@cuda.jit('void(int64[::1], int32[::1])')
def with_barrier(x, bins):
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        cuda.syncthreads()
        cuda.atomic.add(bins, x[i] % 8, 1)


# NOTE: privatize-atomics.py:[[#@LINE+4]]:18: note: atomics into 'bins' not privatised: the old value an atomic returns is used
@cuda.jit('void(int64[::1], int32[::1], int32[::1])')
def old_used(x, bins, out):
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        out[i] = cuda.atomic.add(bins, x[i] % 8, 1)


# NOTE: privatize-atomics.py:[[#@LINE+4]]:9: note: atomics into 'bins' not privatised: it is read or written other than by atomics
@cuda.jit('void(int64[::1], int32[::1])')
def also_read(x, bins):
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        cuda.atomic.add(bins, x[i] % 8, 1)
        x[i] = bins[0]


# NOTE: privatize-atomics.py:[[#@LINE+4]]:9: note: atomics into 'bins' not privatised: its atomics are of different kinds
@cuda.jit('void(int64[::1], int32[::1])')
def two_kinds(x, bins):
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        cuda.atomic.add(bins, x[i] % 8, 1)
        cuda.atomic.max(bins, x[i] % 8, 5)


# NOTE: privatize-atomics.py:[[#@LINE+4]]:9: note: atomics into 'bins' not privatised: its atomics are not of an associative and commutative kind (add, sub, and, or, xor, min, max)
@cuda.jit('void(int64[::1], int32[::1])')
def exchange(x, bins):
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        cuda.atomic.exch(bins, x[i] % 8, 1)


# NOTE: privatize-atomics.py:[[#@LINE+4]]:9: note: atomics into 'bins' not privatised: it is not one-dimensional
@cuda.jit('void(int64[::1], int32[:, ::1])')
def two_d(x, bins):
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        cuda.atomic.add(bins, (x[i] % 4, 0), 1)


@cuda.jit(device=True)
def bump(bins, j):
    cuda.atomic.add(bins, j, 1)


# NOTE: privatize-atomics.py:[[#@LINE+4]]:9: note: atomics into 'bins' not privatised: it is passed to a device function
@cuda.jit('void(int64[::1], int32[::1])')
def via_call(x, bins):
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        cuda.atomic.add(bins, x[i] % 8, 1)
        bump(bins, 0)


# NOTE: privatize-atomics.py:[[#@LINE+5]]:9: note: atomics into 'bins' not privatised: the kernel uses dynamic shared memory
@cuda.jit('void(int64[::1], int32[::1])')
def dyn_shared(x, bins):
    s = cuda.shared.array(0, np.int64)
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        cuda.atomic.add(bins, x[i] % 8, 1)
        s[0] = 1
