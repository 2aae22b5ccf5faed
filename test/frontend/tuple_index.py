# A tuple indexed with an integer known only at run time, as numba-cuda's getitem_unituple: for a tuple whose
# elements share one scalar type, a negative index counts from the end, an index out of range raises
# IndexError("tuple index out of range") at the user's line, and the element is chosen by a select chain; any other
# tuple indexed at run time is a located error, as Numba refuses it.
# RUN: kfront compile %s -k pick --sig 'void(float32[::1], float32[::1])' --emit=kir --pass-pipeline= --mlir-print-debuginfo | FileCheck %s
# RUN: kfront compile %s -k pick --sig 'void(float32[::1], float32[::1])' -o %t.ptx && %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %s -k pick --sig 'void(complex128[::1], complex128[::1])' -o %t.c.ptx && %ptxas -arch=sm_90 %t.c.ptx -o %t.c.cubin
# RUN: kfront compile %s -k unsigned_index --sig 'void(int64[::1], uint8)' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=UNSIGNED
# RUN: not kfront compile %s -k hetero --sig 'void(float64[::1], int64)' --emit=kir 2>&1 | FileCheck %s --check-prefix=HETERO
# RUN: not kfront compile %s -k float_index --sig 'void(float64[::1], float64)' --emit=kir 2>&1 | FileCheck %s --check-prefix=FLOAT
from numba import cuda


@cuda.jit
def pick(a, out):
    t = (a[0], a[1], a[2])
    for i in range(-3, 3):
        # CHECK: scf.for
        # CHECK: ^bb1(%[[I:.*]]: i64):
        # CHECK: %[[NEG:.*]] = arith.cmpi(%[[I]], {{.*}}) {pred = "slt"}
        # CHECK: %[[W:.*]] = arith.addi(%[[I]], {{.*}}) :
        # CHECK: %[[K:.*]] = arith.select(%[[NEG]], %[[W]], %[[I]])
        # CHECK: %[[N:.*]] = arith.constant() {value = 3}
        # CHECK: %[[BAD:.*]] = arith.cmpi(%[[K]], %[[N]]) {pred = "uge"}
        # CHECK: check.raise(%[[BAD]]) {exception = "IndexError: tuple index out of range", silent} {{.*}}loc("{{.*}}tuple_index.py":[[@LINE+4]]:
        # CHECK: %[[S1:.*]] = arith.select({{.*}}) : (i1, f32, f32) -> (f32)
        # CHECK: %[[S0:.*]] = arith.select({{.*}}, %[[S1]]) : (i1, f32, f32) -> (f32)
        # CHECK: mem.store(%[[S0]]
        out[i + 3] = t[i]


@cuda.jit
def unsigned_index(out, i):
    # UNSIGNED: %[[WIDE:.*]] = arith.extui(%1) : (u8) -> (i64)
    # UNSIGNED: arith.cmpi(%[[WIDE]], {{.*}}) {pred = "slt"}
    out[0] = (10, 20, 30)[i]


@cuda.jit
def hetero(out, i):
    t = (1, 2.5)
    # HETERO: tuple_index.py:[[@LINE+3]]:16: error: a tuple indexed with an integer known only at run time must have elements of one scalar type (Numba's UniTuple); Tuple(int64, float64) is not (index it with a constant)
    # HETERO-NEXT: out[0] = t[i]
    # HETERO-NEXT: ^
    out[0] = t[i]


@cuda.jit
def float_index(out, x):
    # FLOAT: tuple_index.py:[[@LINE+1]]:25: error: a tuple index must be an integer, not float64
    out[0] = (1.0, 2.0)[x]
