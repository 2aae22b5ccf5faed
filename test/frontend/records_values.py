# Records as values (Numba's Record: a reference to one record): a record that differs between branches, loops and
# conditional expressions is carried as its array of one record (array<record, 1, A>); a device function returns
# one the same way; a.x / a['x'] of an array of records is the field's array (layout A, the nested dims after the
# array's); dynamic shared arrays of records; atomics on record fields; fields with NumPy titles (Numba's Record has
# an entry by the name and one by the title, both spelt ';title=t', kir's `@0 title t`, which kfront-opt reads back).
# kir, LLVM, ptxas, and the refusals (located).
# RUN: kfront compile %s -k paths --sig 'void(Record(x[type=float32;offset=0],n[type=int32;offset=4];8;True)[::1], boolean, float64[::1])' --emit=kir | FileCheck %s --check-prefix=PATHS
# RUN: kfront compile %s -k paths --sig 'void(Record(x[type=float32;offset=0],n[type=int32;offset=4];8;True)[::1], boolean, float64[::1])' -o %t.paths.ptx && %ptxas -arch=sm_90 %t.paths.ptx -o %t.paths.cubin
# RUN: kfront compile %s -k returned --sig 'void(Record(x[type=float32;offset=0],n[type=int32;offset=4];8;True)[::1], float64[::1])' --emit=kir | FileCheck %s --check-prefix=RET
# RUN: kfront compile %s -k returned --sig 'void(Record(x[type=float32;offset=0],n[type=int32;offset=4];8;True)[::1], float64[::1])' --backend=llvm -o %t.ret.ptx && %ptxas -arch=sm_90 %t.ret.ptx -o %t.ret.cubin
# RUN: kfront compile %s -k fieldarrays --sig 'void(Record(g[type=int32;offset=0],h[type=nestedarray(float32, (2,));offset=4];12;True)[:, :], float64[:, ::1])' --emit=kir | FileCheck %s --check-prefix=FARR
# RUN: kfront compile %s -k fieldarrays --sig 'void(Record(g[type=int32;offset=0],h[type=nestedarray(float32, (2,));offset=4];12;True)[:, :], float64[:, ::1])' -o %t.farr.ptx && %ptxas -arch=sm_90 %t.farr.ptx -o %t.farr.cubin
# RUN: kfront compile %s -k packedfield --sig 'void(Record(a[type=int32;offset=0],b[type=float64;offset=4];12;False)[::1], float64[::1])' --emit=llvm | FileCheck %s --check-prefix=PACKED
# RUN: kfront compile %s -k dynshared --sig 'void(Record(x[type=float32;offset=0],n[type=int32;offset=4];8;True)[::1], float64[::1])' --emit=kir | FileCheck %s --check-prefix=DYN
# RUN: kfront compile %s -k dynshared --sig 'void(Record(x[type=float32;offset=0],n[type=int32;offset=4];8;True)[::1], float64[::1])' -o %t.dyn.ptx && %ptxas -arch=sm_90 %t.dyn.ptx -o %t.dyn.cubin
# RUN: kfront compile %s -k atomics --sig 'void(Record(g[type=int32;offset=0],h[type=nestedarray(float32, (2,));offset=4];12;True)[::1], Record(g[type=int32;offset=0],h[type=nestedarray(float32, (2,));offset=4];12;True))' --emit=kir | FileCheck %s --check-prefix=ATOM
# RUN: kfront compile %s -k atomics --sig 'void(Record(g[type=int32;offset=0],h[type=nestedarray(float32, (2,));offset=4];12;True)[::1], Record(g[type=int32;offset=0],h[type=nestedarray(float32, (2,));offset=4];12;True))' -o %t.atom.ptx && %ptxas -arch=sm_90 %t.atom.ptx -o %t.atom.cubin
# RUN: not kfront compile %s -k same --sig 'void(Record(x[type=float32;offset=0],n[type=int32;offset=4];8;True)[::1], float64[::1])' 2>&1 | FileCheck %s --check-prefix=SAME
# RUN: not kfront compile %s -k compared --sig 'void(Record(x[type=float32;offset=0],n[type=int32;offset=4];8;True)[::1], float64[::1])' 2>&1 | FileCheck %s --check-prefix=CMP
# RUN: not kfront compile %s -k packedatomic --sig 'void(Record(a[type=int32;offset=0],b[type=float64;offset=4];12;False)[::1], float64[::1])' 2>&1 | FileCheck %s --check-prefix=PATOM
# RUN: not kfront compile %s -k nofield --sig 'void(Record(x[type=float32;offset=0],n[type=int32;offset=4];8;True)[::1], float64[::1])' 2>&1 | FileCheck %s --check-prefix=NOFIELD
# RUN: kfront compile %s -k titled --sig 'void(Record(n[type=int32;offset=0;title=t],t[type=int32;offset=0;title=t],b[type=float64;offset=8];16;True)[::1], float64[::1])' --emit=kir | FileCheck %s --check-prefix=TITLE
# RUN: kfront compile %s -k titled --sig 'void(Record(n[type=int32;offset=0;title=t],t[type=int32;offset=0;title=t],b[type=float64;offset=8];16;True)[::1], float64[::1])' --emit=kir | kfront-opt - | FileCheck %s --check-prefix=TITLE
# RUN: kfront compile %s -k titled --sig 'void(Record(n[type=int32;offset=0;title=t],t[type=int32;offset=0;title=t],b[type=float64;offset=8];16;True)[::1], float64[::1])' -o %t.title.ptx && %ptxas -arch=sm_90 %t.title.ptx -o %t.title.cubin
# RUN: not kfront compile %s -k titled --sig 'void(Record(n[type=int32;offset=0;title=my title];4;True)[::1], float64[::1])' 2>&1 | FileCheck %s --check-prefix=BADTITLE
import numpy as np
from numba import cuda

PT = np.dtype([("x", np.float32), ("n", np.int32)], align=True)


@cuda.jit
def paths(a, c, out):
    # PATHS: scf.if
    # PATHS: mem.subview(%{{.*}}, %{{.*}}) {{.*}} -> (array<record<x: f32 @0, n: i32 @4; size 8, align 4, aligned>, 1, A>)
    # PATHS: scf.yield
    # PATHS: scf.for
    # PATHS-NEXT: ^bb{{[0-9]+}}(%{{[0-9]+}}: i64, %{{[0-9]+}}: array<record<x: f32 @0, n: i32 @4; size 8, align 4, aligned>, 1, A>):
    if c:
        r = a[0]
    else:
        r = a[1]
    out[0] = r.x
    r.n = 7
    for i in range(a.shape[0]):
        if a[i].x > r.x:
            r = a[i]
    s = a[0] if out[0] > 1 else a[1]
    out[1] = r.x + s.n


@cuda.jit(device=True)
def largest(a):
    best = a[0]
    for i in range(1, a.shape[0]):
        if a[i].x > best.x:
            best = a[i]
    return best


@cuda.jit
def returned(a, out):
    # RET: func.call
    # RET-SAME: -> (array<record<x: f32 @0, n: i32 @4; size 8, align 4, aligned>, 1, A>)
    r = largest(a)
    out[0] = r.x
    r.n += 1
    a[0] = largest(a)


@cuda.jit
def fieldarrays(a, out):
    # FARR: mem.field(%0) {name = "g"} : {{.*}} -> (array<i32, 2, A>)
    # FARR: mem.field(%0) {name = "h"} : {{.*}} -> (array<f32, 3, A>)
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        g = a.g
        h = a['h']
        out[i, j] = g[i, j] + h[i, j, 1] + h.ndim
        a.g[i, j] = j
        a[i]['h'][j, 0] = i


@cuda.jit
def packedfield(a, out):
    # PACKED: load double, double addrspace(1)* %{{.*}}, align 1
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a.b[i]


@cuda.jit
def dynshared(a, out):
    # DYN: mem.dynamic_shared() : () -> (array<u8, 1, C>)
    # DYN: arith.divui
    # DYN: mem.reinterpret
    # DYN-SAME: -> (array<record<x: f32 @0, n: i32 @4; size 8, align 4, aligned>, 1, C>)
    s = cuda.shared.array(0, dtype=PT)
    t = cuda.threadIdx.x
    s[t] = a[t]
    cuda.syncthreads()
    out[t] = s[len(s) - 1 - t].x


@cuda.jit
def atomics(a, r):
    # ATOM: gpu.atomic_rmw({{.*}}) {kind = "{{add|max}}"} : (array<{{f32|i32}}, {{1|2}}, A>, 
    # ATOM: gpu.atomic_rmw({{.*}}) {kind = "{{add|max}}"} : (array<{{f32|i32}}, {{1|2}}, A>, 
    # ATOM: gpu.atomic_rmw({{.*}}) {kind = "{{add|max}}"} : (array<{{f32|i32}}, {{1|2}}, A>, 
    i = cuda.grid(1)
    if i < a.shape[0]:
        cuda.atomic.add(a[i].h, 1, 2.0)
        cuda.atomic.add(r.h, 0, 1.0)
        cuda.atomic.max(a.g, i, 5)


@cuda.jit
def same(a, out):
    # SAME: records_values.py:[[@LINE+1]]:19: error: no default 'is' implementation for records
    out[0] = a[0] is a[1]


@cuda.jit
def compared(a, out):
    # CMP: records_values.py:[[@LINE+1]]:19: error: no implementation of '==' for {{.*}} (Numba does not compare records; compare their fields)
    out[0] = a[0] == a[1]


@cuda.jit
def packedatomic(a, out):
    # PATOM: records_values.py:[[@LINE+1]]:5: error: cuda.atomic.add() on a field of packed records
    cuda.atomic.add(a.b, 0, 1.0)


@cuda.jit
def nofield(a, out):
    # NOFIELD: records_values.py:[[@LINE+1]]:16: error: record has no field 'z' (its fields: x, n)
    out[0] = a['z'][0]


@cuda.jit
def titled(a, out):
    # TITLE: mem.field(%0) {name = "t"} : (array<record<n: i32 @0 title t, t: i32 @0 title t, b: f64 @8; size 16, align 8, aligned>, 1, C>) -> (array<i32, 1, A>)
    # BADTITLE: error: {{.*}}record field titles must be identifiers
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i].n + a[i].t * 10
        a[i].t = i
