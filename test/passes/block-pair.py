# block-pair (passes/block_pair.c): in a 2-D/3-D kernel whose threads do not cooperate (thread-map's eligibility),
# each physical block runs two of the user's blocks side by side along the axis whose threadIdx is contiguous in
# memory: the user's grid as 3 hidden parameters, launch_grid_divisor halving that axis, the body in a loop of two
# logical threads under the guard of an odd grid's last pair. A note says why any other kernel is left alone.
# RUN: kfront compile %s --emit=kir --pass-pipeline='canonicalize,cse,bce,block-pair{report=1},cse,dce' -o %t.kir 2>&1 | FileCheck %s --check-prefix=NOTE --implicit-check-not=note:
# RUN: FileCheck %s < %t.kir
# variant=1 (the runtime's pipeline under kf_runtime_options.thread_map = 2): the kernel stays, NAME__bp after it;
# thread-map, after it, remaps the plain kernel and leaves the variant alone.
# RUN: kfront compile %s -k inc --emit=kir --pass-pipeline='canonicalize,cse,bce,block-pair{variant=1},thread-map{report=1},dce' -o %t.var.kir 2>&1 | FileCheck %s --check-prefix=VNOTE
# RUN: FileCheck %s --check-prefix=VAR < %t.var.kir
# RUN: kfront compile %s --emit=ptx --pass-pipeline='canonicalize,cse,bce,block-pair,cse,dce' -o %t.ptx && %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# NOTE: note: kernel 'inc' block-paired: {{.*}} along blockIdx.y {{.*}} along threadIdx.x weigh 0, along threadIdx.y 2
# NOTE: note: kernel 'jacobi' block-paired: {{.*}} along blockIdx.y {{.*}} along threadIdx.y 5
# NOTE: note: kernel 'inc_f' block-paired: {{.*}} along blockIdx.x {{.*}} along threadIdx.x weigh 2, along threadIdx.y 0
# NOTE: note: kernel 'swapped' block-paired: {{.*}} along blockIdx.x {{.*}} along threadIdx.x weigh 2, along threadIdx.y 0
# NOTE: note: kernel 'transpose' not block-paired: accesses contiguous along threadIdx.x and along threadIdx.y weigh the same (1)
# NOTE: note: kernel 'inc_any' not block-paired: accesses contiguous along threadIdx.x and along threadIdx.y weigh the same (0)
# NOTE: note: kernel 'one_d' not block-paired: it reads no blockIdx.y or .z (a 1-D kernel: left to grid-stride)
# NOTE: note: kernel 'with_shared' not block-paired: shared memory (its threads cooperate)
# NOTE: note: kernel 'with_barrier' not block-paired: a barrier or warp-level operation (its threads cooperate)
# NOTE: note: kernel 'with_shfl' not block-paired: a barrier or warp-level operation (its threads cooperate)
# NOTE: note: kernel 'with_lane' not block-paired: it reads the lane id (the physical thread)
# NOTE: note: kernel 'with_atomic' not block-paired: atomics (the order of the threads' updates would change)
# NOTE: note: kernel 'with_print' not block-paired: print (the order of the lines would change)
# NOTE: note: kernel 'with_callee' not block-paired: a device function reads threadIdx
# NOTE: note: kernel 'with_assert' not block-paired: a raise or assert (its error record names the physical thread)
# NOTE: note: kernel 'callee_block' not block-paired: a device function reads blockIdx or gridDim
# NOTE: note: kernel 'no_block_y' not block-paired: it reads no blockIdx.y (the axis to pair along)
#
# inc: the rewrite.
# CHECK-LABEL: ^bb0(%0: array<f32, 2, C>, %1: i32, %2: i32, %3: i32):
# CHECK-NEXT: %[[TX:[0-9]+]] = gpu.thread_id() {dim = 0}
# CHECK-NEXT: %[[TY:[0-9]+]] = gpu.thread_id() {dim = 1}
# CHECK-NEXT: %[[BKX:[0-9]+]] = gpu.block_id() {dim = 0}
# CHECK-NEXT: %[[BKY:[0-9]+]] = gpu.block_id() {dim = 1}
# CHECK-NEXT: %[[BX:[0-9]+]] = gpu.block_dim() {dim = 0}
# CHECK-NEXT: %[[BY:[0-9]+]] = gpu.block_dim() {dim = 1}
# CHECK-NEXT: %[[S:[0-9]+]] = arith.muli(%[[BX]], %[[BY]])
# CHECK-NEXT: %[[M:[0-9]+]] = arith.muli(%[[TY]], %[[BX]])
# CHECK-NEXT: %[[P:[0-9]+]] = arith.addi(%[[M]], %[[TX]])
# CHECK-NEXT: %[[TWO:[0-9]+]] = arith.constant() {value = 2 : i32}
# CHECK-NEXT: %[[W:[0-9]+]] = arith.muli(%[[BY]], %[[TWO]])
# CHECK-NEXT: %[[BASE:[0-9]+]] = arith.muli(%[[BKY]], %[[TWO]])
# CHECK: scf.for(
# CHECK-NEXT: ^bb1(%[[K:[0-9]+]]: i64):
# CHECK-NEXT: %[[K32:[0-9]+]] = arith.trunci(%[[K]])
# CHECK-NEXT: %[[KS:[0-9]+]] = arith.muli(%[[K32]], %[[S]])
# CHECK-NEXT: %[[Q:[0-9]+]] = arith.addi(%[[KS]], %[[P]])
# CHECK-NEXT: %[[C16:[0-9]+]] = arith.constant() {value = 16 : i32}
# CHECK-NEXT: %[[EQ16:[0-9]+]] = arith.cmpi(%[[BY]], %[[C16]]) {pred = "eq"}
# CHECK-NEXT: %[[LX:[0-9]+]], %[[LY:[0-9]+]], %[[H:[0-9]+]] = scf.if(%[[EQ16]])
# CHECK-NEXT: %[[C32:[0-9]+]] = arith.constant() {value = 32 : i32}
# CHECK-NEXT: %[[R16:[0-9]+]] = arith.remui(%[[Q]], %[[C32]])
# CHECK-NEXT: %[[X16:[0-9]+]] = arith.divui(%[[Q]], %[[C32]])
# CHECK-NEXT: %[[Y16:[0-9]+]] = arith.remui(%[[R16]], %[[C16]])
# CHECK-NEXT: %[[H16:[0-9]+]] = arith.divui(%[[R16]], %[[C16]])
# CHECK-NEXT: scf.yield(%[[X16]], %[[Y16]], %[[H16]])
# CHECK: arith.cmpi(%[[BY]], %{{[0-9]+}}) {pred = "eq"}
# CHECK: %[[R:[0-9]+]] = arith.remui(%[[Q]], %[[W]])
# CHECK-NEXT: %[[GX:[0-9]+]] = arith.divui(%[[Q]], %[[W]])
# CHECK-NEXT: %[[GY:[0-9]+]] = arith.remui(%[[R]], %[[BY]])
# CHECK-NEXT: %[[GH:[0-9]+]] = arith.divui(%[[R]], %[[BY]])
# CHECK-NEXT: scf.yield(%[[GX]], %[[GY]], %[[GH]])
# CHECK: %[[LBY:[0-9]+]] = arith.addi(%[[BASE]], %[[H]])
# CHECK-NEXT: %[[IN:[0-9]+]] = arith.cmpi(%[[LBY]], %2) {pred = "slt"}
# CHECK-NEXT: scf.if(%[[IN]])
# CHECK-NOT: gpu.thread_id
# CHECK-NOT: gpu.grid_dim
# CHECK: arg_names = ["a", "__kf_grid_x", "__kf_grid_y", "__kf_grid_z"], launch_grid_divisor = [1, 2, 1], block_pair, thread_map}
# jacobi: gridDim and blockIdx.x read the physical values nowhere.
# CHECK-LABEL: sym_name = @jacobi
# inc_f: paired along x.
# CHECK: launch_grid_divisor = [2, 1, 1]
# VNOTE: note: kernel 'inc' thread-mapped
# VNOTE-NOT: note:
# VAR: sym_name = @inc, {{.*}}tiled_variant = @inc__bp, thread_map}
# VAR: sym_name = @inc__bp, {{.*}}variant_of = @inc, {{.*}}launch_grid_divisor = [1, 2, 1], block_pair, thread_map}
from numba import cuda, float32


# The seeds' 2-D pattern: paired along y.
@cuda.jit("void(float32[:, ::1])")
def inc(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


# A 5-point stencil: every access contiguous along y (the negative-index selects decided by the guards): paired
# along y (in the runtime's pipeline tile-shared leaves it to thread-map, its column=2: no tiled variant).
@cuda.jit("void(float32[:, ::1], float32[:, ::1])")
def jacobi(a, b):
    i, j = cuda.grid(2)
    if 0 < i < a.shape[0] - 1 and 0 < j < a.shape[1] - 1:
        b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])


# Paired along x: F order is contiguous along x; so is `y, x = cuda.grid(2)` of C order.
@cuda.jit("void(float32[::1, :])")
def inc_f(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


@cuda.jit("void(float32[:, ::1])")
def swapped(a):
    y, x = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


# Declined: a transpose has one side contiguous along each (no mapping coalesces both).
@cuda.jit("void(float32[:, ::1], float32[:, ::1])")
def transpose(a, b):
    i, j = cuda.grid(2)
    if i < b.shape[0] and j < b.shape[1]:
        b[i, j] = a[j, i]


# Declined: layout A (a strided view): the strides are known only at launch.
@cuda.jit("void(float32[:, :])")
def inc_any(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


# Declined: a 1-D kernel (left to grid-stride).
@cuda.jit("void(float32[::1])")
def one_d(a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] += 1


# Declined: threads that cooperate or whose physical thread shows.
@cuda.jit("void(float32[:, ::1])")
def with_shared(a):
    s = cuda.shared.array((16, 16), float32)
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        s[cuda.threadIdx.x, cuda.threadIdx.y] = a[x, y]
        a[x, y] = s[cuda.threadIdx.x, cuda.threadIdx.y] + 1


@cuda.jit("void(float32[:, ::1])")
def with_barrier(a):
    x, y = cuda.grid(2)
    cuda.syncthreads()
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1


@cuda.jit("void(int32[:, ::1])")
def with_shfl(a):
    x, y = cuda.grid(2)
    v = cuda.shfl_down_sync(0xffffffff, x, 1)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += v


@cuda.jit("void(int32[:, ::1])")
def with_lane(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] = cuda.laneid


@cuda.jit("void(float32[:, ::1], int32[::1])")
def with_atomic(a, c):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1
        cuda.atomic.add(c, 0, 1)


@cuda.jit("void(float32[:, ::1])")
def with_print(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1
        print(x, y)


@cuda.jit(device=True)
def tid_y():
    return cuda.threadIdx.y


@cuda.jit("void(float32[:, ::1])")
def with_callee(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += tid_y()


@cuda.jit("void(float32[:, ::1])", debug=True, opt=False)
def with_assert(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        assert a[x, y] >= 0
        a[x, y] += 1


@cuda.jit(device=True)
def block_y():
    return cuda.blockIdx.y


# Declined: a device function reads blockIdx (it would see the physical one).
@cuda.jit("void(float32[:, ::1])")
def callee_block(a):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] = block_y()


# Declined: contiguous along threadIdx.y but no blockIdx.y to pair (the y axis is one block).
@cuda.jit("void(float32[:, ::1])")
def no_block_y(a):
    x = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    y = cuda.threadIdx.y + cuda.blockIdx.z
    if x < a.shape[0] and y < a.shape[1]:
        a[x, y] += 1
