# Conditional expressions whose values are tuples or arrays of differing layout: Numba unifies the two sides'
# types (tuples element by element, arrays of one dtype and rank as layout A); kfront converts each side to the
# unified type in its own branch, then selects element by element (both branches pure, no arrays) or yields
# them all from one scf.if. Tuples of different lengths stay a located "cannot unify".
# RUN: kfront compile %s -k tup --sig 'void(float64[:], int64, float64, int64)' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=TUP
# RUN: kfront compile %s -k arrays --sig 'void(float64[:], float64[:, ::1], int64)' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=ARR
# RUN: kfront compile %s -k arrays --sig 'void(float64[:], float64[:, ::1], int64)' -o %t.arrays.ptx && %ptxas -arch=sm_90 %t.arrays.ptx -o %t.arrays.cubin
# RUN: kfront compile %s -k tup --sig 'void(float64[:], int64, float64, int64)' -o %t.tup.ptx && %ptxas -arch=sm_90 %t.tup.ptx -o %t.tup.cubin
# RUN: not kfront compile %s -k lengths --sig 'void(int64[:], int64)' --emit=kir 2>&1 | FileCheck %s --check-prefix=LEN
from numba import cuda


@cuda.jit
def tup(out, a, b, c):
    # (int64, float64) / (float64, int64) meet as UniTuple(float64 x 2): each int converted, then two selects
    # TUP: %[[C:.*]] = arith.cmpi({{.*}}) {pred = "sgt"}
    # TUP: arith.sitofp(%1) : (i64) -> (f64)
    # TUP: %[[T0:.*]] = arith.select(%[[C]], {{.*}}) : (i1, f64, f64) -> (f64)
    # TUP: %[[T1:.*]] = arith.select(%[[C]], {{.*}}) : (i1, f64, f64) -> (f64)
    t = (a, b) if c > 0 else (b, a)
    # TUP: mem.store(%[[T0]]
    out[0] = t[0]
    # TUP: mem.store(%[[T1]]
    out[1] = t[1]


@cuda.jit
def arrays(out, m, c):
    # a C row and an A column of a C matrix: one array of layout A from an scf.if, each view made in its branch
    # ARR: scf.if({{.*}}) ({
    # ARR: mem.subview
    # ARR: scf.yield({{.*}}) : (array<f64, 1, A>) -> ()
    # ARR: }, {
    # ARR: mem.subview
    # ARR: scf.yield({{.*}}) : (array<f64, 1, A>) -> ()
    # ARR: }) : (i1) -> (array<f64, 1, A>)
    v = m[0] if c > 0 else m[:, 1]
    k, w = (v[0], m[1]) if c > 1 else (v[1], m[2])
    out[0] = v[1] + k + w[0]


@cuda.jit
def lengths(out, c):
    t = (1, 2) if c > 0 else (1, 2, 3)
    # LEN: conditional_values.py:[[@LINE-1]]:9: error: cannot unify UniTuple(int64 x 2) and UniTuple(int64 x 3)
    out[0] = t[0]
