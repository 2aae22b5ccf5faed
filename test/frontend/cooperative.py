# cuda.cg: this_grid() gives the grid group (a compile-time object), its sync() the grid barrier (int32 0, as
# numba-cuda's); the group passes to and returns from device functions (a compile-time value, no parameter), whose
# g.sync() makes them and their callers cooperative; what kfront refuses is located.
# RUN: kfront compile %s -k ok --sig 'void(int32[:])' --emit=kir --pass-pipeline= | FileCheck %s
# RUN: not kfront compile %s -k bad_attr --sig 'void(int32[:])' --emit=kir 2>&1 | FileCheck %s --check-prefix=ATTR
# RUN: not kfront compile %s -k bad_args --sig 'void(int32[:])' --emit=kir 2>&1 | FileCheck %s --check-prefix=ARGS
# RUN: kfront compile %s -k pass_group --sig 'void(int32[:])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=PASS
# RUN: kfront compile %s -k pass_group --sig 'void(int32[:])' -o %t.pass.ptx && %ptxas -arch=sm_90 %t.pass.ptx -o %t.pass.cubin
# RUN: not kfront compile %s -k declared_ret --sig 'void(int32[:])' --emit=kir 2>&1 | FileCheck %s --check-prefix=DECL
# RUN: not kfront compile %s -k call_group --sig 'void(int32[:])' --emit=kir 2>&1 | FileCheck %s --check-prefix=CALL
from numba import cuda
from numba.cuda import cg


@cuda.jit(device=True)
def dev(g):
    g.sync()


@cuda.jit(device=True)
def group():
    return cuda.cg.this_grid()


@cuda.jit("int32()", device=True)
def group_as_int():
    return cuda.cg.this_grid()
    # DECL: cooperative.py:[[@LINE-1]]:5: error: cannot unify GridGroup and int32 for '<return value>'


@cuda.jit
def ok(A):
    # CHECK-LABEL: func.func
    g = cg.this_grid()
    # CHECK: gpu.grid_sync() : () -> ()
    r = g.sync()
    # CHECK: %[[Z:.*]] = arith.constant() {value = 0 : i32} : () -> (i32)
    # CHECK: mem.store(%[[Z]], %0
    A[0] = r
    # CHECK: gpu.grid_sync() : () -> ()
    cuda.cg.this_grid().sync()
    # CHECK: {sym_name = @ok, {{.*}}cooperative}


@cuda.jit
def bad_attr(A):
    g = cuda.cg.this_grid()
    g.size
    # ATTR: cooperative.py:[[@LINE-1]]:7: error: unknown attribute 'size' of GridGroup (numba-cuda's grid group has only sync())


@cuda.jit
def bad_args(A):
    cuda.cg.this_grid(1)
    # ARGS: cooperative.py:[[@LINE-1]]:23: error: cuda.cg.this_grid() takes 0 arguments but 1 were given


@cuda.jit
def pass_group(A):
    # the callees first: group() and dev(g) take and give no values, and are cooperative
    # PASS: func.func() ({
    # PASS-NEXT: func.return() : () -> ()
    # PASS-NEXT: }) {sym_name = @{{.*}}group{{.*}}, function_type = () -> (), device, {{.*}}cooperative}
    # PASS: func.func() ({
    # PASS-NEXT: gpu.grid_sync() : () -> ()
    # PASS: }) {sym_name = @{{.*}}dev{{.*}}, function_type = () -> (), device, {{.*}}cooperative}
    # PASS: ^bb0(%0: array<i32, 1, A>):
    # PASS-NEXT: func.call() {callee = @{{.*}}group
    # PASS-NEXT: func.call() {callee = @{{.*}}dev
    # PASS: {sym_name = @pass_group, {{.*}}cooperative}
    dev(group())


@cuda.jit
def declared_ret(A):
    A[0] = group_as_int()


@cuda.jit
def call_group(A):
    cuda.cg.this_grid()()
    # CALL: cooperative.py:[[@LINE-1]]:5: error: a GridGroup is not callable
