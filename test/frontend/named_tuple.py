# Named tuple parameters (Numba's NamedTuple and NamedUniTuple), as the runtime spells a namedtuple argument:
# NamedTuple("module.Class", (fields...), (types...)). Fields are read by name, index, unpacking and iteration; they
# pass to device functions as their elements; the kernel's arg_types keep the class; a named tuple unifies only
# with its own type, and an unknown field is a located error.
# RUN: kfront compile %s -k k --sig 'void(float64[::1], NamedTuple("m.P", ("x", "y"), (int64, int64)), NamedTuple("m.Q", ("r",), (float64,)))' --emit=kir | FileCheck %s
# RUN: not kfront compile %s -k bad_field --sig 'void(float64[::1], NamedTuple("m.P", ("x", "y"), (int64, int64)))' 2>&1 | FileCheck %s --check-prefix=FIELD
# RUN: not kfront compile %s -k bad_unify --sig 'void(float64[::1], NamedTuple("m.P", ("x", "y"), (int64, int64)), UniTuple(int64, 2))' 2>&1 | FileCheck %s --check-prefix=UNIFY
# RUN: not kfront compile %s -k k --sig 'void(float64[::1], NamedTuple("m.P", ("x", "x"), (int64, int64)), int64)' 2>&1 | FileCheck %s --check-prefix=DUP
from numba import cuda


# CHECK: func.func
# CHECK: ^bb0(%[[X:[0-9]+]]: i64, %[[Y:[0-9]+]]: i64):
# CHECK-NEXT: arith.addi(%[[X]], %[[Y]])
# CHECK: sym_name = @total
@cuda.jit(device=True)
def total(p):
    return p.x + p.y


# CHECK: ^bb0(%{{[0-9]+}}: array<f64, 1, C>, %[[PX:[0-9]+]]: i64, %[[PY:[0-9]+]]: i64, %[[QR:[0-9]+]]: f64):
# CHECK: arith.sitofp(%[[PX]])
# CHECK: arith.sitofp(%[[PY]])
# CHECK: arith.muli(%[[PX]], %[[PY]])
# CHECK: func.call(%[[PX]], %[[PY]]) {callee = @total}
# CHECK: arith.addf({{.*}}, %[[QR]])
# CHECK: arg_types = [array<f64, 1, C>, namedtuple<"m.P", x: i64, y: i64>, namedtuple<"m.Q", r: f64>]
@cuda.jit
def k(out, p, q):
    out[0] = p.x
    out[1] = p[1]
    a, b = p
    out[2] = a * b + len(p)
    s = 0.0
    for v in p:
        s += v
    out[3] = s + total(p) + q.r


@cuda.jit
def bad_field(out, p):
    # FIELD: named_tuple.py:[[@LINE+1]]:16: error: unknown attribute 'z' of P(int64 x 2)
    out[0] = p.z


@cuda.jit
def bad_unify(out, p, q):
    # UNIFY: named_tuple.py:[[@LINE+1]]:9: error: cannot unify P(int64 x 2) and UniTuple(int64 x 2)
    t = p if out[0] > 0 else q
    out[1] = t[0]

# DUP: error: the named tuple has two fields named 'x'
