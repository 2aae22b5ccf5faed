# Pointer parameters (numba-cuda's CPointer, spelt int32* in a signature's text): p[i] is mem.ptr_load / mem.ptr_store
# with the index as an i64 (no wrapping, no bounds check: C's p[i]), a pointer passes on to a device function as
# itself, and the PTX takes the pointer as one 64-bit parameter.
# RUN: kfront compile %s -k axpy --sig 'void(int32*, int32, CPointer(int32), uint32)' --emit=kir | FileCheck %s --check-prefix=KIR
# RUN: kfront compile %s -k axpy --sig 'void(int32*, int32, CPointer(int32), uint32)' --emit=ptx -o %t.ptx && %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: not kfront compile %s -k bad --sig 'void(float32*)' 2>&1 | FileCheck %s --check-prefix=ERR
# RUN: not kfront compile %s -k axpy --sig 'void(*int32, int32, int32*, uint32)' 2>&1 | FileCheck %s --check-prefix=STAR
from numba import cuda


@cuda.jit(device=True)
def load(p, i):
    # KIR: ^bb0(%0: ptr<i32, 0>, %1: i64):
    # KIR-NEXT: mem.ptr_load(%0, %1) : (ptr<i32, 0>, i64) -> (i32)
    return p[i]


@cuda.jit
def axpy(r, a, x, n):
    # KIR: ^bb0(%0: ptr<i32, 0>, %1: i32, %2: ptr<i32, 0>, %3: u32):
    # KIR: func.call(%2, %{{.*}}) {callee = @load} : (ptr<i32, 0>, i64) -> (i32)
    # KIR: mem.ptr_load(%0, %{{.*}}) : (ptr<i32, 0>, i64) -> (i32)
    # KIR: mem.ptr_store(%{{.*}}, %0, %{{.*}}) : (i32, ptr<i32, 0>, i64) -> ()
    # KIR-NOT: check.bounds
    # PTX: .param .u64 axpy_param_0
    # PTX: ld.global.u32
    # PTX: st.global.u32
    i = cuda.grid(1)
    if i < n:
        r[i] = a * load(x, i) + r[i]


@cuda.jit
def bad(p):
    # ERR: pointers.py:[[@LINE+1]]:14: error: float32* is indexed by one integer (p[i]), not sliced or indexed by several
    p[0] = p[1:2]
# STAR: error: '*' follows no type (a pointer type is spelt int32*)
# RUN: kfront compile %s -k view --sig 'void(float64*, int64)' --emit=kir | FileCheck %s --check-prefix=VIEW
# RUN: kfront compile %s -k view --sig 'void(float64*, int64)' --emit=ptx -o %t.view.ptx && %ptxas -arch=sm_90 %t.view.ptx -o %t.view.cubin
from numba.cuda.np.numpy_support import carray, farray


@cuda.jit
def view(p, n):
    # the strides in bytes: C (32, 8) for (n, 4), F (8, 32) for (4, n)
    # VIEW-DAG: %[[EIGHT:[0-9]+]] = arith.constant() {value = 8}
    # VIEW-DAG: %[[ROW:[0-9]+]] = arith.constant() {value = 32}
    # VIEW-DAG: %[[FOUR:[0-9]+]] = arith.constant() {value = 4}
    # VIEW: mem.ptr_array(%0, %1, %[[FOUR]], %[[ROW]], %[[EIGHT]]) : (ptr<f64, 0>, i64, i64, i64, i64) -> (array<f64, 2, C>)
    # VIEW: mem.ptr_array(%0, %[[FOUR]], %1, %[[EIGHT]], %[[ROW]]) : (ptr<f64, 0>, i64, i64, i64, i64) -> (array<f64, 2, F>)
    c = carray(p, (n, 4))
    f = farray(p, (4, n))
    c[0, 1] = f[1, 0]
