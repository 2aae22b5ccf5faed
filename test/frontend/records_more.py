# Records beyond the basics: complex fields (complex64/128 and nested arrays of them, read and written as their two
# floats; in a packed record of odd itemsize each part accessed with alignment 1, as the record's other fields are),
# through kir, LLVM and ptxas.
# RUN: kfront compile %s -k cfields --sig 'void(Record(z[type=complex128;offset=0],c[type=complex64;offset=16],h[type=nestedarray(complex64, (2,));offset=24];40;True)[::1], float64[::1])' --emit=kir | FileCheck %s --check-prefix=CKIR
# RUN: kfront compile %s -k cfields --sig 'void(Record(z[type=complex128;offset=0],c[type=complex64;offset=16],h[type=nestedarray(complex64, (2,));offset=24],t[type=int8;offset=40];41;False)[::1], float64[::1])' --emit=llvm | FileCheck %s --check-prefix=CPACKED
# RUN: kfront compile %s -k cfields --sig 'void(Record(z[type=complex128;offset=0],c[type=complex64;offset=16],h[type=nestedarray(complex64, (2,));offset=24],t[type=int8;offset=40];41;False)[::1], float64[::1])' -o %t.c.ptx && %ptxas -arch=sm_90 %t.c.ptx -o %t.c.cubin
# RUN: kfront compile %s -k cfields --sig 'void(Record(z[type=complex128;offset=0],c[type=complex64;offset=16],h[type=nestedarray(complex64, (2,));offset=24];40;True)[::1], float64[::1])' --backend=llvm -o %t.cl.ptx && %ptxas -arch=sm_90 %t.cl.ptx -o %t.cl.cubin
from numba import cuda


@cuda.jit
def cfields(a, out):
    # CKIR: mem.field(%0) {name = "c"} : (array<record<z: complex<f64> @0, c: complex<f32> @16, h: complex<f32>[2] @24; size 40, align 8, aligned>, 1, C>) -> (array<complex<f32>, 1, A>)
    # CKIR: mem.load(%{{.*}}, %{{.*}}) : (array<complex<f32>, 1, A>, i64) -> (complex<f32>)
    # CKIR: mem.field(%0) {name = "h"} : {{.*}} -> (array<complex<f32>, 2, A>)
    # CPACKED-COUNT-2: load double, double addrspace(1)* %{{.*}}, align 1
    # CPACKED: store float %{{.*}}, float addrspace(1)* %{{.*}}, align 1
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i].z.real + a[i].c.imag
        a[i].c = a[i].c * 2 + a[i]['z']
        a[i].h[1] = a[i].h[0].conjugate()
