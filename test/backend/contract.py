# Multiply-add contraction is kfront's (passes/contract.c, run on the copy the backend compiles, as the simulator
# runs it): each kir math.fma is one fma.rn, and every other float +, -, * is the .rn instruction, which neither
# libNVVM (-fma=1, as numba-cuda runs it, for libdevice's sake) nor ptxas fuses: no fma appears that kir did not
# make, with either backend. f16 too (fma.rn.f16, rounded once); the _rn intrinsics are never fused.
# RUN: kfront compile %s -k k --sig 'void(float32[::1], float64[::1], float16[::1], complex64[::1])' -o %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %s -k k --sig 'void(float32[::1], float64[::1], float16[::1], complex64[::1])' --backend=llvm -o %t.llvm.ptx
# RUN: FileCheck %s < %t.llvm.ptx
# RUN: %ptxas -arch=sm_90 %t.llvm.ptx -o %t.llvm.cubin
# RUN: kfront compile %s -k k --sig 'void(float32[::1], float64[::1], float16[::1], complex64[::1])' --fastmath -o %t.fast.ptx
# RUN: FileCheck %s --check-prefix=FAST < %t.fast.ptx
# RUN: kfront compile %s -k k --sig 'void(float32[::1], float64[::1], float16[::1], complex64[::1])' --fastmath --backend=llvm -o %t.fast2.ptx
# RUN: FileCheck %s --check-prefix=FAST < %t.fast2.ptx
# RUN: kfront compile %s -k dot --sig 'void(float32[::1], float32[::1], float32[::1])' -o %t.dot.ptx
# RUN: FileCheck %s --check-prefix=DOT < %t.dot.ptx
# RUN: kfront compile %s -k q --sig 'void(float32[::1])' --fastmath --backend=llvm -o %t.q.ptx
# RUN: FileCheck %s --check-prefix=QUOT < %t.q.ptx
from numba import cuda, float32
from numba.cuda import fp16

# CHECK-LABEL: .entry k(
# f32: a0 * a1 + a2 fused; p * a3 (p has another use, outside any addition) a product
# CHECK-COUNT-1: fma.rn.f32
# CHECK-NOT: fma.rn.f32
# CHECK: mul.rn.f32
# f64: a0 * a1 - a2 = fma(a0, a1, -a2)
# CHECK: fma.rn.f64
# f16: rounded once as fma.rn.f16; hmul_rn + hadd_rn stay two roundings
# CHECK: fma.rn.f16
# CHECK: mul.rn.f16
# CHECK: add.rn.f16
# complex64 product: re = fma(a, c, -(b*d)), im = fma(b, c, a*d)
# CHECK-COUNT-2: fma.rn.f32
# CHECK-NOT: {{^[[:space:]]*(fma|mad)\.}}
# CHECK-NOT: {{^[[:space:]]*(add|sub|mul)\.(f16|f32|f64)}}
# CHECK: ret;
# FAST: fma.rn.ftz.f32
# FAST-NOT: {{^[[:space:]]*(add|sub|mul)(\.ftz)?\.(f32|f64)}}
@cuda.jit
def k(a, d, h, c):
    p = a[0] * a[1]
    a[4] = p + a[2]
    a[5] = p * a[3]
    d[3] = d[0] * d[1] - d[2]
    h[3] = h[0] * h[1] + h[2]
    h[4] = fp16.hadd_rn(fp16.hmul_rn(h[0], h[1]), h[2])
    c[2] = c[0] * c[1]


# The accumulation of a dot product: one fma.rn per iteration.
# DOT-LABEL: .entry dot(
# DOT: fma.rn.f32
@cuda.jit
def dot(a, b, out):
    s = float32(0)
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    out[0] = s


# fastmath through LLVM's NVPTX without unsafe-fp-math (which only allowed contraction there): the f32 division is
# what it was with it, div.rn.ftz.
# QUOT-LABEL: .entry q(
# QUOT: div.rn.ftz.f32
@cuda.jit
def q(a):
    a[2] = a[0] / a[1]
