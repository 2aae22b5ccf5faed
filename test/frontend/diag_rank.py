# kir arrays have at most 8 dimensions (Numba allows 32): deeper arrays are refused where they are written,
# not lowered to kir that no longer parses or overruns the simulator's shape arrays (found by fuzzing).
from numba import cuda, float32, guvectorize


# RUN: not kfront compile %s -k shared10 --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=SHARED
@cuda.jit
def shared10(a):
    # SHARED: diag_rank.py:[[@LINE+1]]:27: error: cuda.shared.array supports at most 8 dimensions in kfront, not 10
    s = cuda.shared.array((2, 2, 2, 2, 2, 2, 2, 2, 2, 2), float32)
    a[0] = s[0, 0, 0, 0, 0, 0, 0, 0, 0, 1]


# RUN: not kfront compile %s -k local9 --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=LOCAL
@cuda.jit
def local9(a):
    # LOCAL: diag_rank.py:[[@LINE+1]]:26: error: cuda.local.array supports at most 8 dimensions in kfront, not 9
    s = cuda.local.array((1, 1, 1, 1, 1, 1, 1, 1, 2), float32)
    a[0] = s[0, 0, 0, 0, 0, 0, 0, 0, 1]


# RUN: not kfront compile %s -k local8 --sig 'void(float32[:,:,:,:,:,:,:,:,:])' 2>&1 | FileCheck %s --check-prefix=SIG
# SIG: <signature>:1:14: error: an array type needs between 1 and 8 dimensions (kfront supports at most 8), not 9
# RUN: kfront compile %s -k local8 --sig 'void(float32[:,:,:,:,:,:,:,::1])' --emit=kir | FileCheck %s --check-prefix=OK8
# OK8: mem.alloca() {shape = [1, 1, 1, 1, 1, 1, 1, 2]} : () -> (array<f32, 8, C>)
@cuda.jit
def local8(a):
    s = cuda.local.array((1, 1, 1, 1, 1, 1, 1, 2), float32)
    s[0, 0, 0, 0, 0, 0, 0, 1] = 1
    a[0, 0, 0, 0, 0, 0, 0, 0] = s[0, 0, 0, 0, 0, 0, 0, 1]


# RUN: not kfront compile %s -k gu8 2>&1 | FileCheck %s --check-prefix=GU
# GU: diag_rank.py:[[@LINE+1]]:62: error: argument 1 has 8 dimensions: with the loop dimension the kernel would need 9 (kfront supports at most 8)
@guvectorize(["void(float32[:,:,:,:,:,:,:,:], float32[:])"], "(a,b,c,d,e,f,g,h)->()", target="cuda")
def gu8(x, out):
    out[0] = x[0, 0, 0, 0, 0, 0, 0, 0]
