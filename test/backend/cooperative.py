# cuda.cg grid barriers from Python source to kir, LLVM IR and PTX through ptxas (both backends): the kernel (and a
# device function that synchronises the grid, and every caller of one) carries `cooperative`; the barrier is the
# cooperative-groups sequence (block barrier, thread 0 adds to the grid workspace's barrier word read from
# %envreg1/%envreg2 and spins, fences, block barrier), no cudadevrt call; the spin also stops, and every thread
# ends after the barrier, once the error record's flag is set (a block ended by an IndexError never arrives).
# RUN: kfront compile %s -k grid_sum --sig 'void(float64[::1], float64[::1], float64[::1])' --emit=kir | FileCheck %s --check-prefix=KIR
# RUN: kfront compile %s -k grid_sum --sig 'void(float64[::1], float64[::1], float64[::1])' --emit=llvm | FileCheck %s --check-prefix=LL
# RUN: kfront compile %s -k grid_sum --sig 'void(float64[::1], float64[::1], float64[::1])' --emit=ptx --arch=sm_90 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %s -k grid_sum --sig 'void(float64[::1], float64[::1], float64[::1])' --emit=ptx --backend=llvm -o %t.llvm.ptx
# RUN: %ptxas -arch=sm_90 %t.llvm.ptx -o %t.llvm.cubin
# RUN: kfront compile %s -k only_this_grid --sig 'void(int32[::1])' --emit=kir | FileCheck %s --check-prefix=THIS
# RUN: kfront compile %s -k plain --sig 'void(int32[::1])' --emit=kir | FileCheck %s --check-prefix=PLAIN
# RUN: kfront compile %s -k coop_matmul --sig 'void(float32[:, ::1], float32[:, ::1], float32[:, ::1])' --emit=kir | FileCheck %s --check-prefix=NOTILE
from numba import cuda, float64
from numba.cuda import cg


@cuda.jit(device=True)
def block_sums(x, partial):
    sm = cuda.shared.array(64, float64)
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    sm[t] = x[i] if i < x.shape[0] else 0.0
    cuda.syncthreads()
    if t == 0:
        s = 0.0
        for k in range(cuda.blockDim.x):
            s += sm[k]
        partial[cuda.blockIdx.x] = s
    cg.this_grid().sync()


@cuda.jit
def grid_sum(x, partial, out):
    block_sums(x, partial)
    g = cuda.cg.this_grid()
    total = 0.0
    for b in range(cuda.gridDim.x):
        total += partial[b]
    g.sync()
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = total

# KIR-LABEL: func.func
# KIR: gpu.grid_sync() : () -> ()
# KIR: {sym_name = @block_sums{{.*}}cooperative}
# KIR-LABEL: func.func
# KIR: func.call
# KIR: gpu.grid_sync() : () -> ()
# KIR: {sym_name = @grid_sum, {{.*}}kernel{{.*}}cooperative}

# LL: call i32 asm sideeffect "mov.u32 $0, %envreg2;", "=r"()
# LL: call i32 asm sideeffect "mov.u32 $0, %envreg1;", "=r"()
# LL: call void @llvm.nvvm.membar.gl()
# LL: atomicrmw add i32*
# LL: load volatile i32, i32*
# LL: call void @llvm.nvvm.barrier0()

# PTX-LABEL: .entry grid_sum(
# PTX: bar.sync 0;
# PTX: mov.u32 %r{{[0-9]+}}, %envreg2;
# PTX: mov.u32 %r{{[0-9]+}}, %envreg1;
# PTX: membar.gl;
# PTX: atom.add.u32
# PTX: ld.volatile.u32
# PTX: ld.volatile.global.u32 {{.*}}[__kf_error];
# PTX: membar.gl;
# PTX: bar.sync 0;
# PTX-NEXT: ld.volatile.global.u32 {{.*}}[__kf_error];
# PTX-NOT: cudaCG


@cuda.jit
def only_this_grid(A):
    # numba-cuda marks a kernel that only calls this_grid() cooperative too
    cuda.cg.this_grid()
    A[0] = 1

# THIS: {sym_name = @only_this_grid, {{.*}}cooperative}


@cuda.jit
def plain(A):
    A[0] = cuda.grid(1)

# PLAIN-NOT: cooperative


@cuda.jit
def coop_matmul(A, B, C):
    # a cooperative kernel keeps the user's grid: no tiled variant (it would divide the grid), no grid-stride
    cuda.cg.this_grid()
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        acc = 0.0
        for k in range(A.shape[1]):
            acc += A[i, k] * B[k, j]
        C[i, j] = acc

# NOTILE: {sym_name = @coop_matmul, {{.*}}cooperative}
# NOTILE-NOT: __tiled
