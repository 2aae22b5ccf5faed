# thread-map (passes/thread_map.c): in a kernel whose threads do not cooperate and whose accesses are contiguous
# along threadIdx.y rather than threadIdx.x (`x, y = cuda.grid(2); a[x, y]` of a C-order array), consecutive lanes
# run consecutive threadIdx.y: every gpu.thread_id is replaced by the logical one (an exchange in a square block,
# l / blockDim.y and l % blockDim.y otherwise), blockIdx and blockDim untouched. A note says why any other kernel
# is left alone. The PTX goes through ptxas.
# RUN: kfront compile %s --emit=kir --pass-pipeline='canonicalize,cse,bce,thread-map{report=1},cse,dce' -o %t.kir 2>&1 | FileCheck %s --check-prefix=NOTE --implicit-check-not=note:
# RUN: FileCheck %s < %t.kir
# --remarks=tmap turns the report on in the default pipeline (after tile-shared, whose tiled variant it declines):
# RUN: kfront compile %s -k jacobi --emit=kir --remarks=tmap -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEFAULT --implicit-check-not=note:
# RUN: kfront compile %s --emit=ptx -o %t.ptx && %ptxas -arch=sm_90 %t.ptx -o %t.cubin
from numba import cuda, float32


# The seeds' 2-D pattern: remapped.
# NOTE: thread-map.py:[[#@LINE+15]]:1: note: kernel 'inc' thread-mapped: consecutive lanes run consecutive threadIdx.y {{.*}} accesses contiguous along threadIdx.y weigh 2, along threadIdx.x 0
# CHECK-LABEL: ^bb0(%0: array<f32, 2, C>):
# CHECK-NEXT: %[[PX:[0-9]+]] = gpu.thread_id() {dim = 0}
# CHECK-NEXT: %[[PY:[0-9]+]] = gpu.thread_id() {dim = 1}
# CHECK-NEXT: %[[BX:[0-9]+]] = gpu.block_dim() {dim = 0}
# CHECK-NEXT: %[[BY:[0-9]+]] = gpu.block_dim() {dim = 1}
# CHECK-NEXT: %[[SQ:[0-9]+]] = arith.cmpi(%[[BX]], %[[BY]]) {pred = "eq"}
# CHECK-NEXT: %[[LX:[0-9]+]], %[[LY:[0-9]+]] = scf.if(%[[SQ]])
# CHECK-NEXT: scf.yield(%[[PY]], %[[PX]])
# CHECK: %[[L:[0-9]+]] = arith.addi(%{{[0-9]+}}, %[[PX]])
# CHECK-NEXT: arith.divui(%[[L]], %[[BY]])
# CHECK-NEXT: arith.remui(%[[L]], %[[BY]])
# CHECK-NOT: gpu.thread_id
# CHECK: kernel, {{.*}}thread_map
@cuda.jit("void(float32[:, ::1])")
def inc(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


# A 5-point stencil: every access contiguous along y (the negative-index selects decided by the guards).
# NOTE: thread-map.py:[[#@LINE+4]]:1: note: kernel 'jacobi' thread-mapped: {{.*}} weigh 5, along threadIdx.x 0
# DEFAULT: thread-map.py:[[#@LINE+3]]:1: note: kernel 'jacobi' thread-mapped: {{.*}} weigh 5, along threadIdx.x 0
# DEFAULT: thread-map.py:[[#@LINE+2]]:1: note: kernel 'jacobi__tiled' not thread-mapped: shared memory (its threads cooperate)
@cuda.jit("void(float32[:, ::1], float32[:, ::1])")
def jacobi(a, b):
    i, j = cuda.grid(2)
    if 0 < i < a.shape[0] - 1 and 0 < j < a.shape[1] - 1:
        b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])


# Declined: F order is contiguous along x already; so is `y, x = cuda.grid(2)` of C order.
# NOTE: thread-map.py:[[#@LINE+2]]:1: note: kernel 'inc_f' not thread-mapped: accesses contiguous along threadIdx.x weigh 2, along threadIdx.y 0
@cuda.jit("void(float32[::1, :])")
def inc_f(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


# NOTE: thread-map.py:[[#@LINE+2]]:1: note: kernel 'swapped' not thread-mapped: accesses contiguous along threadIdx.x weigh 2, along threadIdx.y 0
@cuda.jit("void(float32[:, ::1])")
def swapped(a):
    y, x = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


# Declined: a transpose has one side contiguous along each (no mapping coalesces both).
# NOTE: thread-map.py:[[#@LINE+2]]:1: note: kernel 'transpose' not thread-mapped: accesses contiguous along threadIdx.x weigh 1, along threadIdx.y 1
@cuda.jit("void(float32[:, ::1], float32[:, ::1])")
def transpose(a, b):
    i, j = cuda.grid(2)
    if i < b.shape[0] and j < b.shape[1]:
        b[i, j] = a[j, i]


# Declined: layout A (a strided view): the strides are known only at launch.
# NOTE: thread-map.py:[[#@LINE+2]]:1: note: kernel 'inc_any' not thread-mapped: its arrays' strides are known only at launch (layout A, 'a')
@cuda.jit("void(float32[:, :])")
def inc_any(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


# Declined: a 1-D kernel reads no threadIdx.y.
# NOTE: thread-map.py:[[#@LINE+2]]:1: note: kernel 'one_d' not thread-mapped: it reads no threadIdx.y (nothing to exchange)
@cuda.jit("void(float32[::1])")
def one_d(a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] += 1


# Declined: threads that cooperate or whose physical thread shows.
# NOTE: thread-map.py:[[#@LINE+2]]:1: note: kernel 'with_shared' not thread-mapped: shared memory (its threads cooperate)
@cuda.jit("void(float32[:, ::1])")
def with_shared(a):
    s = cuda.shared.array((16, 16), float32)
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        s[cuda.threadIdx.x, cuda.threadIdx.y] = a[x, y]
        a[x, y] = s[cuda.threadIdx.x, cuda.threadIdx.y] + 1


# NOTE: thread-map.py:[[#@LINE+2]]:1: note: kernel 'with_barrier' not thread-mapped: a barrier or warp-level operation (its threads cooperate)
@cuda.jit("void(float32[:, ::1])")
def with_barrier(a):
    x, y = cuda.grid(2)
    cuda.syncthreads()
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


# NOTE: thread-map.py:[[#@LINE+2]]:1: note: kernel 'with_shfl' not thread-mapped: a barrier or warp-level operation (its threads cooperate)
@cuda.jit("void(int32[:, ::1])")
def with_shfl(a):
    x, y = cuda.grid(2)
    v = cuda.shfl_down_sync(0xffffffff, x, 1)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += v


# NOTE: thread-map.py:[[#@LINE+2]]:1: note: kernel 'with_lane' not thread-mapped: it reads the lane id (the physical thread)
@cuda.jit("void(int32[:, ::1])")
def with_lane(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] = cuda.laneid


# NOTE: thread-map.py:[[#@LINE+2]]:1: note: kernel 'with_atomic' not thread-mapped: atomics (the order of the threads' updates would change)
@cuda.jit("void(float32[:, ::1], int32[::1])")
def with_atomic(a, c):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1
        cuda.atomic.add(c, 0, 1)


# NOTE: thread-map.py:[[#@LINE+2]]:1: note: kernel 'with_print' not thread-mapped: print (the order of the lines would change)
@cuda.jit("void(float32[:, ::1])")
def with_print(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1
        print(x, y)


@cuda.jit(device=True)
def tid_y():
    return cuda.threadIdx.y


# NOTE: thread-map.py:[[#@LINE+2]]:1: note: kernel 'with_callee' not thread-mapped: a device function reads threadIdx
@cuda.jit("void(float32[:, ::1])")
def with_callee(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += tid_y()


# NOTE: thread-map.py:[[#@LINE+2]]:1: note: kernel 'with_assert' not thread-mapped: a raise or assert (its error record names the physical thread)
@cuda.jit("void(float32[:, ::1])", debug=True, opt=False)
def with_assert(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        assert a[x, y] >= 0
        a[x, y] += 1
