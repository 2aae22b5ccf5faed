# Records (NumPy structured dtypes): the kir of field reads and writes (mem.field views of the array of records,
# loaded and stored at the record's indices; a nested array's index checked against its extent; a record parameter
# as its array of one record), the PTX through ptxas, and the diagnostics, each located.
# RUN: kfront compile %s -k fields --sig 'void(Record(x[type=float32;offset=0],y[type=int64;offset=8],v[type=nestedarray(float32, (3,));offset=16];32;True)[::1], float64[::1])' --emit=kir | FileCheck %s --check-prefix=FIELDS
# RUN: kfront compile %s -k single --sig 'void(Record(x[type=float32;offset=0],y[type=int64;offset=8],v[type=nestedarray(float32, (3,));offset=16];32;True), float64[::1])' --emit=kir | FileCheck %s --check-prefix=SINGLE
# RUN: kfront compile %s -k fields --sig 'void(Record(x[type=float32;offset=0],y[type=int64;offset=8],v[type=nestedarray(float32, (3,));offset=16];32;True)[::1], float64[::1])' -o %t.fields.ptx && %ptxas -arch=sm_90 %t.fields.ptx -o %t.fields.cubin
# RUN: kfront compile %s -k single --sig 'void(Record(x[type=float32;offset=0],y[type=int64;offset=8],v[type=nestedarray(float32, (3,));offset=16];32;True), float64[::1])' -o %t.single.ptx && %ptxas -arch=sm_90 %t.single.ptx -o %t.single.cubin
# RUN: kfront compile %s -k packed --sig 'void(Record(d[type=float64;offset=0],s[type=int16;offset=8],b[type=bool;offset=10];11;False)[::1])' --emit=llvm | FileCheck %s --check-prefix=PACKED
# RUN: kfront compile %s -k packed --sig 'void(Record(d[type=float64;offset=0],s[type=int16;offset=8],b[type=bool;offset=10];11;False)[::1])' -o %t.packed.ptx && %ptxas -arch=sm_90 %t.packed.ptx -o %t.packed.cubin
# RUN: kfront compile %s -k copy --sig 'void(Record(a[type=int32;offset=0],r[type=Record(p[type=int16;offset=0],q[type=float64;offset=8];16;True);offset=8];24;True)[:, :])' --emit=kir | FileCheck %s --check-prefix=COPY
# RUN: kfront compile %s -k shared --sig 'void(float32[::1])' -o %t.shared.ptx && %ptxas -arch=sm_90 %t.shared.ptx -o %t.shared.cubin
# RUN: not kfront compile %s -k nofield --sig 'void(Record(x[type=float32;offset=0];4;False)[::1])' 2>&1 | FileCheck %s --check-prefix=NOFIELD
# RUN: not kfront compile %s -k misaligned --sig 'void(Record(a[type=int32;offset=0],b[type=float64;offset=4];12;False)[::1])' 2>&1 | FileCheck %s --check-prefix=MISALIGNED
# RUN: not kfront compile %s -k fields --sig 'void(Record(x[type=float64;offset=4];8;False)[::1], float64[::1])' 2>&1 | FileCheck %s --check-prefix=FIT
import numpy as np
from numba import cuda

PT = np.dtype([("x", np.float32), ("n", np.int32)], align=True)


@cuda.jit
def fields(a, out):
    # FIELDS: %[[X:.*]] = mem.field(%0) {name = "x"} : (array<record<x: f32 @0, y: i64 @8, v: f32[3] @16; size 32, align 8, aligned>, 1, C>) -> (array<f32, 1, A>)
    # FIELDS: mem.load(%[[X]], %{{.*}}) : (array<f32, 1, A>, i64) -> (f32)
    # FIELDS: %[[V:.*]] = mem.field(%0) {name = "v"} : {{.*}} -> (array<f32, 2, A>)
    # the nested extent is the record type's: the constant index needs no check (bce removes it); the guard covers a[i]
    # FIELDS-NOT: check.bounds(%{{.*}}, %{{.*}}) {axis = 1}
    # FIELDS: mem.load(%[[V]], %{{.*}}, %{{.*}}) : (array<f32, 2, A>, i64, i64) -> (f32)
    # FIELDS: mem.store(%{{.*}}, %{{.*}}, %{{.*}}) : (i64, array<i64, 1, A>, i64) -> ()
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i].x + a[i].v[2]
        a[i]['y'] += 1


@cuda.jit
def single(r, out):
    # SINGLE: ^bb0(%0: record<x: f32 @0, y: i64 @8, v: f32[3] @16; size 32, align 8, aligned>, %1: array<f64, 1, C>):
    # SINGLE: %[[A:.*]] = mem.record_array(%0) : (record<{{.*}}>) -> (array<record<{{.*}}>, 1, C>)
    # SINGLE: mem.field(%[[A]]) {name = "y"}
    out[0] = r.y
    r.x = 2.5


@cuda.jit
def packed(a):
    # a packed record of 11 bytes: its fields are accessed with the alignment 1 that record i guarantees
    # PACKED: load double, double addrspace(1)* %{{.*}}, align 1
    # PACKED: store i16 %{{.*}}, i16 addrspace(1)* %{{.*}}, align 1
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i].s = a[i].d
        a[i].b = a[i].s > 3


@cuda.jit
def copy(a):
    # a whole record copied field by field, the nested record's too
    # COPY-COUNT-3: mem.store
    a[0, 0] = a[1, 1]


@cuda.jit
def shared(out):
    tile = cuda.shared.array(16, dtype=PT)
    t = cuda.threadIdx.x
    tile[t].x = out[t]
    tile[t].n = t
    cuda.syncthreads()
    out[t] = tile[15 - t].x + tile[15 - t].n


@cuda.jit
def nofield(a):
    # NOFIELD: records.py:[[@LINE+1]]:10: error: record has no field 'y' (its fields: x)
    a[0].y = 1


@cuda.jit
def misaligned(a):
    # MISALIGNED: records.py:[[@LINE+1]]:19: error: Record(a[type=int32;offset=0],b[type=float64;offset=4];12;False).b of type float64 is not aligned
    a[0].a = a[0].b

# FIT: error: a record field does not fit in the record's size
