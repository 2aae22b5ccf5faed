# From Python source through libNVVM (and LLVM's NVPTX) to PTX: FileCheck on the LLVM IR and the PTX of one
# kernel per op family, as kfront compile writes them.
# RUN: kfront compile %s -k tile --sig 'void(float32[:, ::1], float32[:, ::1])' --emit=llvm | FileCheck %s --check-prefix=TILE-LL
# RUN: kfront compile %s -k tile --sig 'void(float32[:, ::1], float32[:, ::1])' --emit=ptx --arch=sm_90 | FileCheck %s --check-prefix=TILE-PTX
# RUN: kfront compile %s -k atomics --sig 'void(float32[::1], int32[::1], float32[::1])' --emit=ptx --arch=sm_90 | FileCheck %s --check-prefix=ATOM
# RUN: kfront compile %s -k transcendental --sig 'void(float64[::1])' --emit=llvm | FileCheck %s --check-prefix=MATH-LL
# RUN: kfront compile %s -k transcendental --sig 'void(float64[::1])' --emit=ptx --arch=sm_90 | FileCheck %s --check-prefix=MATH-PTX
# RUN: kfront compile %s -k warp_sum --sig 'void(float32[::1], float32[::1])' --emit=ptx --arch=sm_90 | FileCheck %s --check-prefix=WARP
# RUN: kfront compile %s -k unguarded --sig 'void(float64[::1])' --emit=ptx --arch=sm_90 | FileCheck %s --check-prefix=OOB
# RUN: kfront compile %s -k guarded --sig 'void(float64[::1])' --emit=ptx --arch=sm_90 | FileCheck %s --check-prefix=SAFE
# RUN: kfront compile %s -k tile --sig 'void(float32[:, ::1], float32[:, ::1])' --emit=ptx --backend=llvm | FileCheck %s --check-prefix=NVPTX
import math
from numba import cuda, float32

TPB = 16


@cuda.jit
def tile(a, out):
    # shared memory, barriers, 2-D indexing
    t = cuda.shared.array((TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    if x < a.shape[0] and y < a.shape[1]:
        t[tx, ty] = a[x, y]
    cuda.syncthreads()
    if x < a.shape[0] and y < a.shape[1]:
        out[x, y] = t[tx, ty] * 2

# The kernel is a void function listed in !nvvm.annotations, with named parameters (data, shape, strides).
# (pad-shared pads the 16x16 array, written and read down a column: 16 rows of 17)
# TILE-LL: @tile__t = internal addrspace(3) global [272 x float]
# TILE-LL: define void @tile(float* %a_data, i64 %a_shape0, i64 %a_shape1, i64 %a_stride0, i64 %a_stride1,
# TILE-LL: call void @llvm.nvvm.barrier0()
# TILE-LL: !nvvm.annotations = !{![[K:[0-9]+]]}
# TILE-LL: !nvvmir.version
# TILE-LL: ![[K]] = !{void (float*, {{.*}})* @tile, !"kernel", i32 1}
# TILE-PTX: .visible .entry tile(
# TILE-PTX: .shared .align {{[0-9]+}} .b8
# TILE-PTX: st.shared.f32
# TILE-PTX: bar.sync 0;
# TILE-PTX: ld.shared.f32
# TILE-PTX: st.global.f32
# NVPTX: .target sm_{{[0-9]+}}
# NVPTX: .visible .entry tile(
# NVPTX: bar.sync 0;


@cuda.jit
def atomics(f, i, old):
    k = cuda.grid(1)
    if k < old.size:
        old[k] = cuda.atomic.add(f, 0, 1.5)
        cuda.atomic.max(i, 0, k)

# ATOM: atom.global.add.f32
# ATOM: atom.global.max.s32


@cuda.jit
def transcendental(a):
    k = cuda.grid(1)
    if k < a.size:
        a[k] = math.sin(a[k]) + math.exp(a[k])

# MATH-LL: call double @__nv_sin(double
# MATH-LL: call double @__nv_exp(double
# MATH-LL: declare double @__nv_sin(double)
# libdevice is linked lazily by libNVVM: no call remains in the PTX
# MATH-PTX: .visible .entry transcendental(
# MATH-PTX-NOT: call{{.*}}__nv_sin


@cuda.jit
def warp_sum(a, out):
    k = cuda.grid(1)
    v = a[k] if k < a.size else float32(0)
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xffffffff, v, off)
        off //= 2
    if cuda.laneid == 0 and k < a.size:
        out[k // 32] = v

# WARP: shfl.sync.down.b32


@cuda.jit
def unguarded(a):
    a[cuda.grid(1)] = 1.0

# A check that stays: one compare, the failure path records the first failure with a CAS and returns; no trap.
# OOB: setp.lt.u64
# OOB: atom.global.cas.b32
# OOB-NOT: trap


@cuda.jit
def guarded(a):
    k = cuda.grid(1)
    if k < a.size:
        a[k] = 1.0

# Proven in bounds (bce): no failure path at all.
# SAFE-NOT: __kf_error
# SAFE: st.global.{{[fu]}}64
# SAFE-NOT: atom.global.cas
