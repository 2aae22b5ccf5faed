# tile-shared on arrays of complex elements: the tile's loads past an array's edge yield a complex zero (a
# complex.create of two float zeros: an arith.constant cannot be complex), the tiled variant verifies and both
# backends' PTX goes through ptxas. The simulator runs the variant in python/tests/test_complex.py.
# RUN: kfront compile %s --emit=kir --remarks=tile -o %t.kir 2>&1 | FileCheck %s --check-prefix=NOTE --implicit-check-not=note:
# RUN: FileCheck %s < %t.kir
# RUN: kfront compile %s --emit=ptx -o %t.ptx && %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %s --emit=ptx --backend=llvm -o %t.llvm.ptx && %ptxas -arch=sm_90 %t.llvm.ptx -o %t.llvm.cubin
from numba import cuda


@cuda.jit("void(complex64[:, ::1], complex64[:, ::1], complex64[:, ::1])")
def cmatmul(a, b, c):
    i, j = cuda.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        s = 0j
        # NOTE: tile-shared-complex.py:[[@LINE+1]]:9: note: loop tiled for blocks of (16, 16, 1)
        for k in range(a.shape[1]):
            s += a[i, k] * b[k, j]
        c[i, j] = s

# the tile loads (in the tiled variant, after the kernel itself):
# CHECK: sym_name = @cmatmul,
# CHECK: %[[Z:.*]] = arith.constant() {value = 0.0 : f32} : () -> (f32)
# CHECK-NEXT: complex.create(%[[Z]], %[[Z]]) : (f32, f32) -> (complex<f32>)
# CHECK: sym_name = @cmatmul__tiled
