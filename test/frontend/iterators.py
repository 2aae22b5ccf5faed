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
# RUN: kfront compile %s -k unrolled_literally --sig 'void(float64[::1], Tuple((int64, float64)))' --emit=kir | FileCheck %s --check-prefix=LITERAL
# RUN: kfront compile %s -k unrolled_literally --sig 'void(float64[::1], Tuple((int64, float64)))' --emit=ptx -o %t.lit.ptx && %ptxas -arch=sm_90 %t.lit.ptx -o %t.lit.cubin
# RUN: not kfront compile %s -k unroll_array --sig 'void(float64[::1])' 2>&1 | FileCheck %s --check-prefix=UNROLLARRAY
# RUN: not kfront compile %s -k unroll_list --sig 'void(float64[::1], float64)' 2>&1 | FileCheck %s --check-prefix=UNROLLLIST
# RUN: not kfront compile %s -k unroll_two --sig 'void(float64[::1])' 2>&1 | FileCheck %s --check-prefix=UNROLLTWO
from numba import cuda, literal_unroll
from numba.cuda.misc.special import literal_unroll as special_unroll


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


# literal_unroll(t), numba-cuda's: t itself (a list of constants as the tuple of them); a loop over it runs its body
# once per item, each item typed on its own (an int64 then a float64 here: one store of each type).
# LITERAL-NOT: scf.for
# LITERAL: ^bb0(%0: array<f64, 1, C>, %1: i64, %2: f64):
# LITERAL: arith.sitofp(%1)
# LITERAL: mem.store
# LITERAL: mem.store(%2,
# LITERAL: arith.constant() {value = 2.5}
# LITERAL: arith.constant() {value = 9.5}
@cuda.jit
def unrolled_literally(out, t):
    i = 0
    for v in literal_unroll(t):
        out[i] = v
        i += 1
    acc = 0.0
    for c in special_unroll([2, 0.5]):
        acc += c
    out[2] = acc
    for j, c in enumerate(cuda.literal_unroll((3, 4.0))):
        acc += c
    out[3] = acc


@cuda.jit
def unroll_array(out):
    # UNROLLARRAY: iterators.py:[[@LINE+1]]:29: error: Invalid use of literal_unroll, argument should be a tuple or a list of constant values, not array(float64, 1d, C)
    for v in literal_unroll(out):
        out[0] = v


@cuda.jit
def unroll_list(out, x):
    # UNROLLLIST: iterators.py:[[@LINE+1]]:33: error: Found non-constant value at position 1 in a list argument to literal_unroll
    for v in literal_unroll([1, x]):
        out[0] = v


@cuda.jit
def unroll_two(out):
    # UNROLLTWO: iterators.py:[[@LINE+1]]:14: error: literal_unroll takes one argument, found 2
    for v in literal_unroll((1, 2), (3,)):
        out[0] = v
