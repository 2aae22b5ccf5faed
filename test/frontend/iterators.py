# zip() and enumerate(): one counter k from 0 to the number of items (zip: the least of its iterables' lengths, a
# range's computed from its bounds), each item computed from k: an array's a[k], a range's start + k * step,
# enumerate's (start + k, item). bce proves the accesses (k < min(len x, len y) <= len x); tuples only are zipped
# at compile time and the loop unrolled.
# RUN: kfront compile %s -k zipped --sig 'void(float32[::1], int32[::1], float64[::1])' --emit=kir --pass-pipeline=canonicalize | FileCheck %s --check-prefix=ZIP
# RUN: kfront compile %s -k zipped --sig 'void(float32[::1], int32[::1], float64[::1])' --emit=kir --pass-pipeline=canonicalize,cse,bce | FileCheck %s --check-prefix=BCE
# RUN: kfront compile %s -k ranged --sig 'void(int64[::1])' --emit=kir --pass-pipeline=canonicalize | FileCheck %s --check-prefix=RANGE
# RUN: kfront compile %s -k unrolled --sig 'void(float64[::1])' --emit=kir | FileCheck %s --check-prefix=UNROLL
# RUN: kfront compile %s -k zipped --sig 'void(float32[::1], int32[::1], float64[::1])' --emit=ptx -o %t.zip.ptx && %ptxas -arch=sm_90 %t.zip.ptx -o %t.zip.cubin
# RUN: kfront compile %s -k ranged --sig 'void(int64[::1])' --emit=ptx -o %t.range.ptx && %ptxas -arch=sm_90 %t.range.ptx -o %t.range.cubin
# RUN: not kfront compile %s -k not_iterable --sig 'void(float32[::1])' 2>&1 | FileCheck %s --check-prefix=NOTIT
from numba import cuda


@cuda.jit
def zipped(x, y, out):
    # ZIP: %[[NX:.*]] = mem.dim(%0) {axis = 0}
    # ZIP: %[[NY:.*]] = mem.dim(%1) {axis = 0}
    # ZIP: %[[N:.*]] = arith.minsi(%[[NX]], %[[NY]])
    # ZIP: scf.for(%{{.*}}, %[[N]], %{{.*}}, %{{.*}}) ({
    # ZIP: ^bb{{[0-9]+}}(%[[K:.*]]: i64, %{{.*}}: f64):
    # the count of enumerate from its start, 3, then the items
    # ZIP: arith.addi(%[[K]], %{{.*}})
    # ZIP: mem.load(%0, %[[K]])
    # ZIP: mem.load(%1, %[[K]])
    # BCE-LABEL: func.func
    # BCE: scf.for
    # BCE-NOT: check.bounds
    # BCE: scf.yield
    s = 0.0
    for i, (a, b) in enumerate(zip(x, y), 3):
        s += i * a + b
    out[0] = s


@cuda.jit
def ranged(out):
    # zip(range(2, 20, 3), out): range's items 2 + k * 3; its length (20 - 2 + 3 - 1) // 3 folded to 6
    # RANGE: %[[SIX:.*]] = arith.constant() {value = 6} : () -> (i64)
    # RANGE: arith.minsi(%{{.*}}, %[[SIX]])
    # RANGE: arith.muli(%{{.*}}, %{{.*}})
    for r, o in zip(range(2, 20, 3), out):
        out[0] += r + o


@cuda.jit
def unrolled(out):
    # UNROLL-NOT: scf.for
    # 1 * 1.0 * 10 + 2 * 2.0 * 50 + 2.0
    # UNROLL: arith.constant() {value = 212.0} : () -> (f64)
    acc = 0.0
    for i, (a, b) in enumerate(zip((1.0, 2.0), (10, 50, 70))):
        acc += (i + 1) * a * b
    out[0] = acc + 2.0


@cuda.jit
def not_iterable(x):
    # NOTIT: iterators.py:[[@LINE+1]]:24: error: kfront can iterate over range(), arrays, tuples, zip() and enumerate(), not float32
    for a, b in zip(x, x[0]):
        x[0] = a
