/* lower_operators.c — Python's operators in kernels, with Numba's typing: arithmetic (binop/unop, integer folds,
 * zero-division checks), complex numbers (values of the complex dialect), comparisons (chained, of tuples, of enum
 * members, `in` of tuples), `and`/`or`/`not`, conditions, and conditional expressions. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lower.h"
#include "ir/op_semantics.h"

/* ---- operators ------------------------------------------------------------------------------------------------ */

static bool want_scalars(Lower *L, const FeVal *a, const FeVal *b, const char *op, SrcLoc loc) {
  if (is_scalar(a) && (!b || is_scalar(b))) return true;
  const FeVal *bad = !is_scalar(a) ? a : b;
  if (bad->kind == FV_VIEW || (bad->kind == FV_VAL && bad->type->kind == TY_ARRAY))
    lw_lerr(L, loc, "unsupported operand type%s for %s: %s%s%s (array expressions are not supported in kernels; "
                 "operate on elements)",
            b ? "s" : "", op, lw_vname(L, a), b ? " and " : "", b ? lw_vname(L, b) : "");
  else
    lw_lerr(L, loc, "unsupported operand type%s for %s: %s%s%s", b ? "s" : "", op, lw_vname(L, a), b ? " and " : "",
            b ? lw_vname(L, b) : "");
  return false;
}

/* ---- complex numbers: values of the complex dialect (lower-complex defines what its ops compute) ---------------
 * As numba-cuda: 1j is complex128; arithmetic and ==, != promote as Numba's templates (float32 with complex64 is
 * complex64, an int64 with complex64 complex128 by unification, ...); a complex converts to no real type (only to
 * bool, by its truth value); `/` by 0 + 0j raises ZeroDivisionError (a thread without debug=True just ends, as
 * numba-cuda's kernels return); `**` is numba-cuda's _Py_c_pow translation (complex.pow). */

/* Numba's casts to and from complex: a real to its complex (imaginary part 0), complex to complex part by part,
 * complex to bool its truth (a part != 0, unordered). Any other target is not a conversion Numba has: the callers
 * refuse it first (implicit_conv_error); the real part converted here is never reached by a typed program. */
FeVal lw_conv_complex(Lower *L, FeVal x, Type *t) {
  if (x.type->kind == TY_COMPLEX) {
    Value *z = lw_mat(L, &x);
    if (t->kind == TY_COMPLEX) {
      Value *re = ib_cast(&L->b, complex_part(L, z, false), t->elem), *im = ib_cast(&L->b, complex_part(L, z, true), t->elem);
      return val(t, complex_make(L, re, im, t));
    }
    Value *re = complex_part(L, z, false), *im = complex_part(L, z, true);
    if (t->kind == TY_BOOL) {
      Value *zero = ib_const_float(&L->b, re->type, 0);
      Value *a = ib_cmpf(&L->b, IR_CMPF_UNE, re, zero), *b = ib_cmpf(&L->b, IR_CMPF_UNE, im, zero);
      return val(t, ib_binary(&L->b, OP_ORI, a, b));
    }
    return val(t, ib_cast(&L->b, re, t));
  }
  FeVal re = lw_conv(L, x, t->elem);
  Value *rv = lw_mat(L, &re);
  return val(t, complex_make(L, rv, ib_const_float(&L->b, t->elem, 0), t));
}

/* Whether a value of type from may become a t where Numba converts implicitly (a complex to a real: never). */
bool lw_implicit_conv_error(Lower *L, const FeVal *v, Type *t, SrcLoc loc, const char *what) {
  if (lw_time_conversion_error(L, v, t, loc, what)) return true;
  if (lw_storage_conversion_error(L, v, t, loc, what)) return true;
  if (!is_complex(v) || t->kind == TY_COMPLEX) return false;
  lw_lerr(L, loc, "cannot convert %s to %s%s (Numba converts a complex number to no real type; take .real, .imag or "
               "abs())", tname(L, v->type), tname(L, t), what);
  return true;
}

static FeVal complex_binop(Lower *L, PyBinOp op, FeVal x, FeVal y, Type *rt, SrcLoc loc) {
  Value *xv = conv_v(L, x, rt), *yv = conv_v(L, y, rt), *ops[2] = {xv, yv};
  OpKind k;
  switch (op) {
  case BIN_ADD: k = OP_COMPLEX_ADD; break;
  case BIN_SUB: k = OP_COMPLEX_SUB; break;
  case BIN_MUL: k = OP_COMPLEX_MUL; break;
  case BIN_POW: k = OP_COMPLEX_POW; break;
  case BIN_DIV: {
    k = OP_COMPLEX_DIV;
    Value *zero = ib_const_float(&L->b, rt->elem, 0);
    Value *re0 = ib_cmpf(&L->b, IR_CMPF_OEQ, complex_part(L, yv, false), zero);
    Value *im0 = ib_cmpf(&L->b, IR_CMPF_OEQ, complex_part(L, yv, true), zero);
    lw_emit_raise(L, ib_binary(&L->b, OP_ANDI, re0, im0), "ZeroDivisionError: complex division by zero", loc);
    at(L, loc);
    break;
  }
  default: return lw_lerr(L, loc, "unsupported operand types for '%s': %s and %s", ast_binop_str(op), tname(L, x.type), tname(L, y.type));
  }
  return val(rt, op_result(ib_op(&L->b, k, 2, ops, 1, &rt, 0), 0));
}

/* Folds an integer operation at the width of t (wrapping) as the op computes it (ir/op_semantics), for constants
 * that are not literals. */
static bool fold_int(PyBinOp op, Type *t, int64_t x, int64_t y, int64_t *out) {
  uint64_t ux = (uint64_t)x, uy = (uint64_t)y, r;
  bool u = t->is_unsigned;
  switch (op) {
  case BIN_ADD: r = ux + uy; break;
  case BIN_SUB: r = ux - uy; break;
  case BIN_MUL: r = ux * uy; break;
  case BIN_BITAND: r = ux & uy; break;
  case BIN_BITOR: r = ux | uy; break;
  case BIN_BITXOR: r = ux ^ uy; break;
  case BIN_FLOORDIV: r = u ? sem_divui(ux, uy) : sem_floordivsi(x, y); break;
  case BIN_MOD: r = u ? sem_remui(ux, uy) : sem_floormodsi(x, y); break;
  default: return false;
  }
  *out = (int64_t)sem_norm(r, 64 - t->bits, !u);
  return true;
}

/* Under debug=True, Numba's Python error model: a division or modulo by zero raises ZeroDivisionError (with
 * Numba's messages) instead of giving inf, nan or 0. y is the divisor, already of the operation's type. */
static void zero_division_check(Lower *L, PyBinOp op, FeVal y, SrcLoc loc) {
  bool is_int = y.type->kind != TY_FLOAT;
  if (y.is_const && (is_int ? y.c.i != 0 : y.c.f != 0)) return;
  const char *msg = op == BIN_DIV ? "division by zero" : op == BIN_MOD ? (is_int ? "integer modulo by zero" : "modulo by zero")
                    : is_int ? "integer division by zero" : "division by zero";
  at(L, loc);
  Value *yv = lw_mat(L, &y);
  Value *zero = is_int ? ib_const_int(&L->b, y.type, 0) : ib_const_float(&L->b, y.type, 0);
  Value *is_zero = is_int ? ib_cmpi(&L->b, IR_CMPI_EQ, yv, zero) : ib_cmpf(&L->b, IR_CMPF_OEQ, yv, zero);
  Op *c = ib_op(&L->b, OP_RAISE, 1, &is_zero, 0, NULL, 0);
  ir_op_set_attr(L->m, c, "exception", attr_str(L->m, arena_printf(&L->fe->arena, "ZeroDivisionError: %s", msg)));
}

FeVal lw_binop(Lower *L, PyBinOp op, FeVal a, FeVal b, SrcLoc loc) {
  if (a.kind == FV_POISON || b.kind == FV_POISON) return poison();
  if (a.literal && b.literal) {
    FeVal r;
    if (sema_py_binop(L->ctx, op, &a, &b, &r)) return r;
  }
  if (op == BIN_ADD && a.kind == FV_TUPLE && b.kind == FV_TUPLE) {
    FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, a.tup.n + b.tup.n + 1);
    unsigned n = 0;
    for (unsigned i = 0; i < a.tup.n; i++) elems[n++] = a.tup.elems[i];
    for (unsigned i = 0; i < b.tup.n; i++) elems[n++] = b.tup.elems[i];
    return lw_user_tuple(L, n, elems, loc);
  }
  if (is_time(&a) || is_time(&b)) return lw_time_binop(L, op, a, b, loc);
  char opname[8];
  snprintf(opname, sizeof opname, "'%s'", ast_binop_str(op));
  if (op == BIN_MATMUL) return lw_lerr(L, loc, "the '@' operator is not supported in kernels");
  if (!want_scalars(L, &a, &b, opname, loc)) return poison();
  int kinds[2] = {nb_kind(a.type), nb_kind(b.type)};
  const NbCase *c = sema_op_case(NBF_BINOP, op, kinds, 2);
  if (!c) return lw_lerr(L, loc, "unsupported operand types for %s: %s and %s", opname, tname(L, a.type), tname(L, b.type));
  Type *ta = nb_type(L->ctx, c->args[0]), *tb = nb_type(L->ctx, c->args[1]), *rt = nb_type(L->ctx, c->ret);
  at(L, loc);
  FeVal x = lw_conv(L, a, ta), y = lw_conv(L, b, tb);
  if (rt->kind == TY_COMPLEX) return complex_binop(L, op, x, y, rt, loc);
  bool nonneg_in = x.nonneg && y.nonneg;
  /* constants that are not literals (module constants): fold integer arithmetic */
  if (x.is_const && y.is_const && rt->kind == TY_INT && (op != BIN_POW && op != BIN_LSHIFT && op != BIN_RSHIFT)) {
    FeVal xr = lw_conv(L, x, rt), yr = lw_conv(L, y, rt);
    int64_t r;
    if (fold_int(op, rt, xr.c.i, yr.c.i, &r)) return cint(rt, r);
  }
  FeVal res;
  Value *xv, *yv;
  /* (a float32 division under fastmath is libdevice's fast one, unchecked: lower_math.c) */
  bool fast_div = op == BIN_DIV && lw_fastmath_f32(L, rt);
  if ((op == BIN_DIV || op == BIN_FLOORDIV || op == BIN_MOD) && debug_mode(L->fe) && !fast_div)
    zero_division_check(L, op, y, loc);
  switch (op) {
  case BIN_ADD:
  case BIN_SUB:
  case BIN_MUL: {
    bool f = rt->kind == TY_FLOAT;
    OpKind k = op == BIN_ADD ? (f ? OP_ADDF : OP_ADDI) : op == BIN_SUB ? (f ? OP_SUBF : OP_SUBI) : (f ? OP_MULF : OP_MULI);
    xv = conv_v(L, x, rt);
    yv = conv_v(L, y, rt);
    res = val(rt, ib_binary(&L->b, k, xv, yv));
    res.nonneg = !f && op != BIN_SUB && nonneg_in;
    return res;
  }
  case BIN_DIV:
    xv = conv_v(L, x, rt);
    yv = conv_v(L, y, rt);
    return val(rt, lw_fastmath_op(L, ib_binary(&L->b, OP_DIVF, xv, yv)));
  case BIN_FLOORDIV:
  case BIN_MOD: {
    xv = conv_v(L, x, rt);
    yv = conv_v(L, y, rt);
    OpKind k;
    if (rt->kind == TY_FLOAT) k = op == BIN_FLOORDIV ? OP_FLOORDIVF : OP_FLOORMODF;
    else if (rt->is_unsigned) k = op == BIN_FLOORDIV ? OP_DIVUI : OP_REMUI;
    else k = op == BIN_FLOORDIV ? OP_FLOORDIVSI : OP_FLOORMODSI;
    res = val(rt, ib_binary(&L->b, k, xv, yv));
    bool pos_divisor = y.is_const && rt->kind == TY_INT && y.c.i > 0;
    res.nonneg = rt->kind == TY_INT && ((op == BIN_MOD && pos_divisor) || (op == BIN_FLOORDIV && x.nonneg && pos_divisor));
    return res;
  }
  case BIN_POW:
    if (rt->kind == TY_INT) {
      xv = conv_v(L, x, rt);
      yv = conv_v(L, y, rt);
      return val(rt, ib_binary(&L->b, OP_IPOW, xv, yv));
    }
    xv = conv_v(L, x, rt);
    if (tb->kind == TY_INT) {
      yv = lw_mat(L, &y);
      Value *ops[2] = {xv, yv};
      return val(rt, op_result(ib_op(&L->b, OP_POWI, 2, ops, 1, &rt, 0), 0));
    }
    yv = conv_v(L, y, rt);
    return val(rt, lw_fastmath_op(L, ib_binary(&L->b, OP_POW, xv, yv)));
  case BIN_LSHIFT:
  case BIN_RSHIFT:
    xv = conv_v(L, x, rt);
    yv = conv_v(L, y, rt);
    res = val(rt, ib_binary(&L->b, op == BIN_LSHIFT ? OP_SHLI : rt->is_unsigned ? OP_SHRUI : OP_SHRSI, xv, yv));
    res.nonneg = op == BIN_RSHIFT && x.nonneg;
    return res;
  case BIN_BITAND:
  case BIN_BITOR:
  case BIN_BITXOR: {
    xv = conv_v(L, x, rt);
    yv = conv_v(L, y, rt);
    OpKind k = op == BIN_BITAND ? OP_ANDI : op == BIN_BITOR ? OP_ORI : OP_XORI;
    res = val(rt, ib_binary(&L->b, k, xv, yv));
    res.nonneg = rt->kind == TY_BOOL || (op == BIN_BITAND ? (x.nonneg || y.nonneg) : nonneg_in);
    return res;
  }
  default: return lw_lerr(L, loc, "unsupported operator %s", opname);
  }
}

FeVal lw_unop(Lower *L, PyUnaryOp op, FeVal a, SrcLoc loc) {
  if (a.kind == FV_POISON) return a;
  if (a.literal) {
    FeVal r;
    if (sema_py_unary(L->ctx, op, &a, &r)) return r;
  }
  if (is_time(&a)) return lw_time_unop(L, op, a, loc);
  at(L, loc);
  if (op == UN_NOT) {
    FeVal t = lw_truth(L, a, loc);
    if (t.kind == FV_POISON) return t;
    if (t.is_const) return cbool(L, !t.c.i);
    return val(t.type, ib_binary(&L->b, OP_XORI, t.v, ib_const_bool(&L->b, true)));
  }
  char opname[8];
  snprintf(opname, sizeof opname, "'%s'", ast_unaryop_str(op));
  if (!want_scalars(L, &a, NULL, opname, loc)) return poison();
  int kind = nb_kind(a.type);
  const NbCase *c = sema_op_case(NBF_UNARY, op, &kind, 1);
  if (!c) return lw_lerr(L, loc, "unsupported operand type for unary %s: %s", opname, tname(L, a.type));
  Type *ta = nb_type(L->ctx, c->args[0]), *rt = nb_type(L->ctx, c->ret);
  FeVal x = lw_conv(L, a, ta);
  if (op == UN_POS) return lw_conv(L, x, rt);
  if (op == UN_NEG && rt->kind == TY_COMPLEX)
    return val(rt, op_result(ib_op(&L->b, OP_COMPLEX_NEG, 1, (Value *[]){lw_mat(L, &x)}, 1, &rt, 0), 0));
  if (op == UN_NEG) {
    FeVal xr = lw_conv(L, x, rt);
    if (xr.is_const && rt->kind == TY_INT) return cint(rt, (int64_t)(0 - (uint64_t)xr.c.i));
    if (xr.is_const && rt->kind == TY_FLOAT && rt->bits > 16) return cfloat(rt, -xr.c.f);
    if (rt->kind == TY_FLOAT) return val(rt, ib_unary(&L->b, OP_NEGF, lw_mat(L, &xr), NULL));
    return val(rt, ib_binary(&L->b, OP_SUBI, ib_const_int(&L->b, rt, 0), lw_mat(L, &xr)));
  }
  /* invert: at the operand's own width, then widened (~uint8(0) is 255) */
  if (ta->kind == TY_BOOL) {
    if (x.is_const) return cbool(L, !x.c.i);
    return val(ta, ib_binary(&L->b, OP_XORI, lw_mat(L, &x), ib_const_bool(&L->b, true)));
  }
  if (x.is_const) return lw_conv(L, cint(ta, ~x.c.i), rt);
  Value *inv = ib_binary(&L->b, OP_XORI, lw_mat(L, &x), ib_const_int(&L->b, ta, -1));
  return lw_conv(L, val(ta, inv), rt);
}

/* The predicate of comparison op (==, !=, <, <=, >, >=) on integers of type t (signed or unsigned order). */
static IrCmpIPred int_cmp_pred(PyCmpOp op, Type *t) {
  static const IrCmpIPred s[] = {IR_CMPI_EQ, IR_CMPI_NE, IR_CMPI_SLT, IR_CMPI_SLE, IR_CMPI_SGT, IR_CMPI_SGE};
  static const IrCmpIPred u[] = {IR_CMPI_EQ, IR_CMPI_NE, IR_CMPI_ULT, IR_CMPI_ULE, IR_CMPI_UGT, IR_CMPI_UGE};
  return t->is_unsigned ? u[op] : s[op];
}
/* ... and on floats (ordered; != unordered, true for a NaN) */
static IrCmpFPred float_cmp_pred(PyCmpOp op) {
  static const IrCmpFPred f[] = {IR_CMPF_OEQ, IR_CMPF_UNE, IR_CMPF_OLT, IR_CMPF_OLE, IR_CMPF_OGT, IR_CMPF_OGE};
  return f[op];
}

/* One comparison a <op> b -> bool. */
/* ---- enums (types of enums.c): as Numba types EnumMember and IntEnumMember. Two members of one class compare
 * (==, !=, is, is not) by value; `is` between values of different types is False; an IntEnum member is an
 * integer wherever a number is wanted (arithmetic, ordering, ==, indexing, conversions); an Enum member is not a
 * number (is_scalar is false for it), and == between it and anything but its own class is a typing error; .value
 * is the member's value. */

/* A comparison with an enum member: *out the result when it is decided here (true); false to go on as a
 * comparison of numbers (*a and *b then IntEnum members turned into their integers). */
static bool enum_compare(Lower *L, PyCmpOp op, FeVal *a, FeVal *b, SrcLoc loc, FeVal *out) {
  const FeEnum *ea = a->kind == FV_VAL ? a->enumc : NULL, *eb = b->kind == FV_VAL ? b->enumc : NULL;
  bool same = ea && ea == eb;
  if (op == CMP_IS || op == CMP_ISNOT) {
    if (!same) {
      *out = cbool(L, op == CMP_ISNOT);
      return true;
    }
    op = op == CMP_IS ? CMP_EQ : CMP_NE;
  } else if (op == CMP_EQ || op == CMP_NE) {
    if (!same && (is_enum_only(a) || is_enum_only(b))) {
      *out = lw_lerr(L, loc, "no implementation of '%s' for %s and %s", ast_cmpop_str(op), lw_vname(L, a), lw_vname(L, b));
      return true;
    }
  } else if (is_enum_only(a) || is_enum_only(b)) {
    return false; /* ordering an Enum member: want_scalars says what is wrong */
  }
  a->enumc = b->enumc = NULL;
  if (same && (op == CMP_EQ || op == CMP_NE)) {
    *out = lw_compare2(L, op, *a, *b, loc);
    return true;
  }
  return false;
}

/* c ? x : y of booleans, folded when c is a constant. */
static FeVal bool_select(Lower *L, FeVal c, FeVal x, FeVal y) {
  if (c.is_const) return c.c.i ? x : y;
  return val(ty_bool(L->ctx), ib_select(&L->b, c.v, lw_mat(L, &x), lw_mat(L, &y)));
}

/* x and y of booleans (constants folded). */
static FeVal bool_and(Lower *L, FeVal x, FeVal y) {
  if (x.is_const) return x.c.i ? y : x;
  if (y.is_const) return y.c.i ? x : y;
  return val(ty_bool(L->ctx), ib_binary(&L->b, OP_ANDI, x.v, y.v));
}

/* x or y of booleans (constants folded). */
static FeVal bool_or(Lower *L, FeVal x, FeVal y) {
  if (x.is_const) return x.c.i ? x : y;
  if (y.is_const) return y.c.i ? y : x;
  return val(ty_bool(L->ctx), ib_binary(&L->b, OP_ORI, x.v, y.v));
}

/* x in t / x not in t of a tuple t, as Numba's in_seq for its homogeneous tuples (a UniTuple is a Sequence: some
 * element == x) and its empty tuple (False); a tuple of elements of several types has no `in` in Numba. */
static FeVal tuple_contains(Lower *L, PyCmpOp op, FeVal x, FeVal t, SrcLoc loc) {
  Type *tt = lw_fv_type(L, &t);
  for (unsigned i = 1; tt && i < tt->n; i++)
    if (tt->elems[i] != tt->elems[0])
      return lw_lerr(L, loc, "'%s' of %s: Numba has it for tuples of one element type only", ast_cmpop_str(op),
                     lw_vname(L, &t));
  FeVal r = cbool(L, false);
  for (unsigned i = 0; i < t.tup.n; i++) {
    FeVal e = lw_compare2(L, CMP_EQ, t.tup.elems[i], x, loc);
    if (e.kind == FV_POISON) return e;
    r = bool_or(L, r, e);
  }
  if (op == CMP_IN || r.is_const) return op == CMP_IN ? r : cbool(L, !r.c.i);
  at(L, loc);
  return val(ty_bool(L->ctx), ib_binary(&L->b, OP_XORI, r.v, ib_const_bool(&L->b, true)));
}

/* a OP b where a or b is a tuple, as Numba's tuple comparisons (cpython/tupleobj.py): both must be tuples; == is
 * the elements' == and-ed (False for tuples of different lengths), != its negation; an ordering is decided by the
 * first pair of elements that are != (their ordering), else by the lengths (Python's rule) -- a select chain over
 * the pairs, all compared (pure). Each pair goes through compare2 (Numba's promotions, nested tuples recursively),
 * so a pair Numba cannot compare is compare2's located error, as Numba types each pair of the shorter length. */
static FeVal compare_tuples(Lower *L, PyCmpOp op, FeVal a, FeVal b, SrcLoc loc) {
  if (a.kind != FV_TUPLE || b.kind != FV_TUPLE)
    return lw_lerr(L, loc, "no implementation of '%s' for %s and %s (Numba compares a tuple only with a tuple)",
                   ast_cmpop_str(op), lw_vname(L, &a), lw_vname(L, &b));
  unsigned n = a.tup.n < b.tup.n ? a.tup.n : b.tup.n;
  if (op == CMP_EQ || op == CMP_NE) {
    FeVal r = cbool(L, true);
    for (unsigned i = 0; i < n; i++) {
      FeVal e = lw_compare2(L, CMP_EQ, a.tup.elems[i], b.tup.elems[i], loc);
      if (e.kind == FV_POISON) return e;
      r = bool_and(L, r, e);
    }
    if (a.tup.n != b.tup.n) r = cbool(L, false);
    if (op == CMP_EQ || r.is_const) return op == CMP_EQ ? r : cbool(L, !r.c.i);
    at(L, loc);
    return val(ty_bool(L->ctx), ib_binary(&L->b, OP_XORI, r.v, ib_const_bool(&L->b, true)));
  }
  bool by_length;
  switch (op) {
  case CMP_LT: by_length = a.tup.n < b.tup.n; break;
  case CMP_LE: by_length = a.tup.n <= b.tup.n; break;
  case CMP_GT: by_length = a.tup.n > b.tup.n; break;
  default: by_length = a.tup.n >= b.tup.n; break;
  }
  FeVal *ordered = ARENA_ARRAY(&L->fe->arena, FeVal, n ? n : 1), *differ = ARENA_ARRAY(&L->fe->arena, FeVal, n ? n : 1);
  for (unsigned i = 0; i < n; i++) {
    ordered[i] = lw_compare2(L, op, a.tup.elems[i], b.tup.elems[i], loc);
    if (ordered[i].kind == FV_POISON) return ordered[i];
    differ[i] = lw_compare2(L, CMP_NE, a.tup.elems[i], b.tup.elems[i], loc);
    if (differ[i].kind == FV_POISON) return differ[i];
  }
  at(L, loc);
  FeVal r = cbool(L, by_length);
  for (unsigned i = n; i-- > 0;) r = bool_select(L, differ[i], ordered[i], r);
  return r;
}

FeVal lw_compare2(Lower *L, PyCmpOp op, FeVal a, FeVal b, SrcLoc loc) {
  if (a.kind == FV_POISON || b.kind == FV_POISON) return poison();
  {
    FeVal r;
    if (lw_run_time_string_compare(L, op, &a, &b, loc, &r)) return r;
    if ((lw_is_charseq(&a) || lw_is_charseq(&b)) && op != CMP_IS && op != CMP_ISNOT)
      return lw_charseq_compare(L, op, a, b, loc);
    if (a.kind == FV_STR && b.kind == FV_STR && (op == CMP_EQ || op == CMP_NE)) /* constants: folded, as Numba's */
      return cbool(L, (a.str.len == b.str.len && memcmp(a.str.s, b.str.s, a.str.len) == 0) == (op == CMP_EQ));
  }
  if ((a.kind == FV_VAL && a.enumc) || (b.kind == FV_VAL && b.enumc)) {
    FeVal r;
    if (enum_compare(L, op, &a, &b, loc, &r)) return r;
  }
  if ((is_time(&a) || is_time(&b)) && op != CMP_IS && op != CMP_ISNOT) return lw_time_compare(L, op, a, b, loc);
  if (op == CMP_IS || op == CMP_ISNOT) {
    /* None, functions and types are compile-time values: `is` compares them (a runtime value is none of them) */
    if (is_static(&a) || is_static(&b)) {
      bool same = lw_fv_same(&a, &b);
      return cbool(L, op == CMP_IS ? same : !same);
    }
    if (a.kind == FV_RECORD || b.kind == FV_RECORD) { /* as Numba: values of two types are never the same; records
                                                           * are mutable, with no default `is` between two of one type */
      if (a.kind == FV_RECORD && b.kind == FV_RECORD && a.type == b.type)
        return lw_lerr(L, loc, "no default '%s' implementation for records (%s and %s)", ast_cmpop_str(op),
                       lw_vname(L, &a), lw_vname(L, &b));
      return cbool(L, op == CMP_ISNOT);
    }
    /* numba-cuda's bool_is_impl: booleans (True, False and bool values alike) are the same when equal; a boolean
     * is never a number of another type (generic_is: values of two types) */
    bool abool = a.kind == FV_VAL && ty_is_bool(a.type), bbool = b.kind == FV_VAL && ty_is_bool(b.type);
    if (abool && bbool) return lw_compare2(L, op == CMP_IS ? CMP_EQ : CMP_NE, a, b, loc);
    if ((abool && b.kind == FV_VAL && ty_is_scalar(b.type)) || (bbool && a.kind == FV_VAL && ty_is_scalar(a.type)))
      return cbool(L, op == CMP_ISNOT);
    return lw_lerr(L, loc, "'%s' is only supported with None and booleans in kernels", ast_cmpop_str(op));
  }
  if (a.kind == FV_RECORD || b.kind == FV_RECORD) /* Numba types no comparison of records: compare their fields */
    return lw_lerr(L, loc, "no implementation of '%s' for %s and %s (Numba does not compare records; compare their "
                        "fields)", ast_cmpop_str(op), lw_vname(L, &a), lw_vname(L, &b));
  if ((op == CMP_IN || op == CMP_NOTIN) && b.kind == FV_TUPLE) return tuple_contains(L, op, a, b, loc);
  if (op == CMP_IN || op == CMP_NOTIN)
    return lw_lerr(L, loc, "'%s' is supported in kernels for tuples only", ast_cmpop_str(op));
  if (a.literal && b.literal) {
    FeVal r;
    if (sema_py_compare(L->ctx, op, &a, &b, &r)) return r;
  }
  char opname[8];
  snprintf(opname, sizeof opname, "'%s'", ast_cmpop_str(op));
  if (a.kind == FV_TUPLE || b.kind == FV_TUPLE) return compare_tuples(L, op, a, b, loc);
  if (!want_scalars(L, &a, &b, opname, loc)) return poison();
  int kinds[2] = {nb_kind(a.type), nb_kind(b.type)};
  const NbCase *c = sema_op_case(NBF_CMP, op, kinds, 2);
  if (!c) return lw_lerr(L, loc, "unsupported operand types for %s: %s and %s", opname, tname(L, a.type), tname(L, b.type));
  Type *t = nb_type(L->ctx, c->args[0]);
  at(L, loc);
  FeVal x = lw_conv(L, a, t), y = lw_conv(L, b, t);
  if (x.is_const && y.is_const && t->kind != TY_FLOAT) {
    bool r;
    uint64_t ux = (uint64_t)x.c.i, uy = (uint64_t)y.c.i;
    bool lt = t->is_unsigned ? ux < uy : x.c.i < y.c.i;
    switch (op) {
    case CMP_EQ: r = x.c.i == y.c.i; break;
    case CMP_NE: r = x.c.i != y.c.i; break;
    case CMP_LT: r = lt; break;
    case CMP_LE: r = lt || x.c.i == y.c.i; break;
    case CMP_GT: r = !lt && x.c.i != y.c.i; break;
    default: r = !lt; break;
    }
    return cbool(L, r);
  }
  if (t->kind == TY_BOOL && op != CMP_EQ && op != CMP_NE) {
    t = ty_int(L->ctx, 8, true);
    x = lw_conv(L, x, t);
    y = lw_conv(L, y, t);
  }
  Value *xv = lw_mat(L, &x), *yv = lw_mat(L, &y);
  if (t->kind == TY_COMPLEX) {
    Type *b1 = ty_bool(L->ctx);
    Value *ops[2] = {xv, yv};
    return val(b1, op_result(ib_op(&L->b, op == CMP_EQ ? OP_COMPLEX_EQ : OP_COMPLEX_NE, 2, ops, 1, &b1, 0), 0));
  }
  Value *r = t->kind == TY_FLOAT ? ib_cmpf(&L->b, float_cmp_pred(op), xv, yv) : ib_cmpi(&L->b, int_cmp_pred(op, t), xv, yv);
  return val(ty_bool(L->ctx), r);
}

FeVal lw_lazy_and(Lower *L, FeVal c, LazyFn fn, void *arg, bool is_or, SrcLoc loc) {
  if (c.kind == FV_POISON) return c;
  if (c.is_const) {
    if (is_or ? c.c.i : !c.c.i) return c;
    return fn(L, arg);
  }
  IrBuilder saved;
  Block *blk = lw_scratch_begin(L, &saved);
  FeVal r = fn(L, arg);
  Value *rv = r.kind == FV_VAL ? lw_mat(L, &r) : NULL;
  L->b = saved;
  if (!rv) return r.kind == FV_POISON ? r : lw_lerr(L, loc, "expected a condition");
  at(L, loc);
  if (lw_block_pure(blk)) {
    lw_splice_block(L, blk);
    return val(ty_bool(L->ctx), ib_binary(&L->b, is_or ? OP_ORI : OP_ANDI, c.v, rv));
  }
  Value *k = ib_const_bool(&L->b, is_or);
  Type *i1 = ty_bool(L->ctx);
  if (is_or) return val(i1, lw_if_value(L, c.v, NULL, k, blk, rv, i1));
  return val(i1, lw_if_value(L, c.v, blk, rv, NULL, k, i1));
}

typedef struct ChainArg {
  const PyExpr *e;
  unsigned k;     /* next comparison */
  FeVal left;     /* its left operand (already evaluated) */
} ChainArg;

static FeVal chain_rest(Lower *L, void *arg);

/* One comparison of operands lowered as they are: an Optional compared with None by its flag (optional.c), else
 * compared as its value. */
static FeVal compare_opt(Lower *L, PyCmpOp op, FeVal a, FeVal b, SrcLoc loc) {
  FeVal r;
  if (lw_optional_compare(L, op, &a, &b, loc, &r)) return r;
  return lw_compare2(L, op, lw_unwrap(L, a, loc), lw_unwrap(L, b, loc), loc);
}

static FeVal chain_step(Lower *L, ChainArg *ca) {
  const PyExpr *e = ca->e;
  FeVal right = lw_lower_expr_opt(L, e->compare.comparators.items[ca->k]);
  FeVal r = compare_opt(L, e->compare.ops[ca->k], ca->left, right, e->compare.op_locs[ca->k]);
  r = lw_truth(L, r, e->loc);
  if (ca->k + 1 < e->compare.comparators.n && r.kind != FV_POISON) {
    ChainArg next = {e, ca->k + 1, right};
    return lw_lazy_and(L, r, chain_rest, &next, false, e->loc);
  }
  return r;
}

static FeVal chain_rest(Lower *L, void *arg) { return chain_step(L, arg); }

FeVal lower_compare(Lower *L, const PyExpr *e) {
  FeVal left = lw_lower_expr_opt(L, e->compare.left);
  ChainArg ca = {e, 0, left};
  if (e->compare.comparators.n == 1) {
    FeVal right = lw_lower_expr_opt(L, e->compare.comparators.items[0]);
    return compare_opt(L, e->compare.ops[0], left, right, e->compare.op_locs[0]);
  }
  return chain_step(L, &ca);
}

static FeVal cond_of(Lower *L, void *arg) { return lower_cond(L, arg); }

FeVal lower_cond(Lower *L, const PyExpr *e) {
  if (e->kind == EX_BOOLOP) {
    bool is_or = e->boolop.op == BOOL_OR;
    FeVal c = lower_cond(L, e->boolop.values.items[0]);
    for (unsigned i = 1; i < e->boolop.values.n && c.kind != FV_POISON; i++)
      c = lw_lazy_and(L, c, cond_of, (void *)e->boolop.values.items[i], is_or, e->loc);
    return c;
  }
  if (e->kind == EX_UNARY && e->unary.op == UN_NOT) {
    const PyExpr *o = e->unary.operand;
    /* `not x` of an Optional: of its value (numba-cuda's not_ unwraps it), unlike `if x:` */
    FeVal c = o->kind == EX_BOOLOP || (o->kind == EX_UNARY && o->unary.op == UN_NOT) ? lower_cond(L, o)
                                                                                     : lw_truth(L, lower_expr(L, o), o->loc);
    if (c.kind == FV_POISON || c.is_const) return c.kind == FV_POISON ? c : cbool(L, !c.c.i);
    at(L, e->loc);
    return val(c.type, ib_binary(&L->b, OP_XORI, c.v, ib_const_bool(&L->b, true)));
  }
  FeVal v = lw_lower_expr_opt(L, e);
  at(L, e->loc);
  return lw_truth(L, v, e->loc);
}

/* select_value of values of aggregate type u (Numba's unification of the two sides' types: tuples element by
 * element, arrays of one dtype and rank as layout A): each side's values converted to u's flat values in its own
 * block, then chosen one by one (a select where both blocks are pure and no array is among them, else one scf.if
 * yielding them all), and made into a value of u again. */
static FeVal select_flat(Lower *L, FeVal c, Block *bt, FeVal tv, Block *be, FeVal ev, Type *u, SrcLoc loc) {
  unsigned k = lw_type_slots(u);
  if (k > MAX_FLAT) return lw_lerr(L, loc, "a conditional value of more than %d scalars and arrays is not supported", MAX_FLAT);
  Type **ft = ARENA_ARRAY(&L->fe->arena, Type *, MAX_FLAT);
  Value **tvals = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT), **evals = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT);
  unsigned nft = 0, nt = 0, ne = 0;
  lw_flat_types(L->ctx, u, ft, &nft);
  IrBuilder saved = L->b;
  ib_set_end(&L->b, bt);
  bool ok = lw_flatten_to(L, &tv, u, tvals, &nt, NULL, loc, "the conditional value");
  ib_set_end(&L->b, be);
  ok = ok && lw_flatten_to(L, &ev, u, evals, &ne, NULL, loc, "the conditional value");
  L->b = saved;
  if (!ok) return poison();
  at(L, loc);
  Value **vals = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT);
  bool arrays = false;
  for (unsigned i = 0; i < k; i++) arrays |= ft[i]->kind == TY_ARRAY;
  if (c.is_const) {
    lw_splice_block(L, c.c.i ? bt : be);
    memcpy(vals, c.c.i ? tvals : evals, sizeof *vals * k);
  } else if (!arrays && lw_block_pure(bt) && lw_block_pure(be)) {
    lw_splice_block(L, bt);
    lw_splice_block(L, be);
    for (unsigned i = 0; i < k; i++) vals[i] = ib_select(&L->b, c.v, tvals[i], evals[i]);
  } else {
    IrBuilder at_if = L->b;
    ib_set_end(&L->b, bt);
    ib_op(&L->b, OP_YIELD, k, tvals, 0, NULL, 0);
    ib_set_end(&L->b, be);
    ib_op(&L->b, OP_YIELD, k, evals, 0, NULL, 0);
    L->b = at_if;
    Op *op = ib_op(&L->b, OP_IF, 1, &c.v, k, ft, 2);
    ir_region_append_block(&op->regions[0], bt);
    ir_region_append_block(&op->regions[1], be);
    for (unsigned i = 0; i < k; i++) vals[i] = op_result(op, i);
  }
  unsigned pos = 0;
  return lw_unflatten(L, u, vals, &pos);
}

/* x if c else y, and the values of `a and b` / `a or b` (Python gives back an operand, not a bool), of the type
 * Numba unifies tv's and ev's to. */
static FeVal select_unified(Lower *L, FeVal c, Block *bt, FeVal tv, Block *be, FeVal ev, SrcLoc loc) {
  if (tv.kind == FV_POISON || ev.kind == FV_POISON) return poison();
  if ((lw_holds_view(&tv) || lw_holds_view(&ev)) && !(lw_fv_same(&tv, &ev) && lw_block_pure(bt) && lw_block_pure(be))) {
    /* rows a[i] of arrays of higher rank (also in tuples): as arrays, each made in its own branch */
    IrBuilder saved = L->b;
    ib_set_end(&L->b, bt);
    tv = lw_views_as_arrays(L, &tv);
    ib_set_end(&L->b, be);
    ev = lw_views_as_arrays(L, &ev);
    L->b = saved;
  }
  Type *ta = lw_fv_type(L, &tv), *tb = lw_fv_type(L, &ev);
  if (lw_fv_same(&tv, &ev) && lw_block_pure(bt) && lw_block_pure(be)) return tv;
  if (is_enum_only(&tv) || is_enum_only(&ev)) { /* only with its own class: a select of the values */
    const FeEnum *en;
    if (!lw_merge_enum(L, &tv, &ev, loc, "the conditional value", &en)) return poison();
  }
  if (tv.kind == FV_VECTOR && ta == tb && (c.is_const || (lw_block_pure(bt) && lw_block_pure(be)))) {
    /* two vectors of one type (Numba unifies them): a select per field */
    at(L, loc);
    if (c.is_const) {
      lw_splice_block(L, c.c.i ? bt : be);
      return c.c.i ? tv : ev;
    }
    lw_splice_block(L, bt);
    lw_splice_block(L, be);
    FeVal *fields = ARENA_ARRAY(&L->fe->arena, FeVal, ta->n);
    for (unsigned i = 0; i < ta->n; i++)
      fields[i] = val(ta->elems[0], ib_select(&L->b, c.v, lw_mat(L, &tv.tup.elems[i]), lw_mat(L, &ev.tup.elems[i])));
    return lw_make_vector(ta, fields);
  }
  if (tv.kind == FV_RECORD || ev.kind == FV_RECORD) { /* two records of one type: the one chosen, by reference */
    if (ta != tb) return lw_lerr(L, loc, "cannot unify %s and %s", lw_vname(L, &tv), lw_vname(L, &ev));
    IrBuilder saved = L->b;
    ib_set_end(&L->b, bt);
    Value *tvv = lw_record_as_array(L, &tv);
    ib_set_end(&L->b, be);
    Value *evv = lw_record_as_array(L, &ev);
    L->b = saved;
    at(L, loc);
    if (c.is_const) {
      lw_splice_block(L, c.c.i ? bt : be);
      return record_of_array(L, c.c.i ? tvv : evv);
    }
    return record_of_array(L, lw_if_value(L, c.v, bt, tvv, be, evv, tvv->type));
  }
  if (!ta || !tb || ty_is_struct_tuple(ta) || ty_is_struct_tuple(tb)) {
    return lw_lerr(L, loc, "a conditional value must be a scalar, an array or a tuple of them, not %s / %s",
                   lw_vname(L, &tv), lw_vname(L, &ev));
  }
  Type *u = nb_unify(L->ctx, ta, tb);
  if (!u) return lw_lerr(L, loc, "cannot unify %s and %s", tname(L, ta), tname(L, tb));
  if (u->kind == TY_TUPLE || (u->kind == TY_ARRAY && (ta != u || tb != u)))
    return select_flat(L, c, bt, tv, be, ev, u, loc);
  IrBuilder saved = L->b;
  ib_set_end(&L->b, bt);
  Value *tvv = u->kind == TY_ARRAY ? tv.v : conv_v(L, tv, u);
  ib_set_end(&L->b, be);
  Value *evv = u->kind == TY_ARRAY ? ev.v : conv_v(L, ev, u);
  L->b = saved;
  at(L, loc);
  FeVal r;
  if (c.is_const) {
    lw_splice_block(L, c.c.i ? bt : be);
    r = val(u, c.c.i ? tvv : evv);
  } else if (u->kind != TY_ARRAY && lw_block_pure(bt) && lw_block_pure(be)) {
    lw_splice_block(L, bt);
    lw_splice_block(L, be);
    r = val(u, ib_select(&L->b, c.v, tvv, evv));
  } else {
    r = val(u, lw_if_value(L, c.v, bt, tvv, be, evv, u));
  }
  r.nonneg = tv.nonneg && ev.nonneg && u->kind == TY_INT;
  if (!lw_merge_enum(L, &tv, &ev, loc, "the conditional value", &r.enumc)) return poison();
  return r;
}

/* select_unified's value, readonly where tv's or ev's array is (Numba's unified type is). */
static FeVal select_value(Lower *L, FeVal c, Block *bt, FeVal tv, Block *be, FeVal ev, SrcLoc loc) {
  FeVal r = select_unified(L, c, bt, tv, be, ev, loc);
  lw_merge_readonly(L, &r, &tv, &ev);
  return r;
}

FeVal lower_ifexp(Lower *L, const PyExpr *e) {
  FeVal c = lower_cond(L, e->ifexp.test);
  if (c.kind == FV_POISON) return c;
  if (c.is_const) {
    FeVal r = lw_lower_expr_opt(L, c.c.i ? e->ifexp.body : e->ifexp.orelse);
    r.literal = false;
    return r;
  }
  IrBuilder saved;
  Block *bt = lw_scratch_begin(L, &saved);
  FeVal tv = lw_lower_expr_opt(L, e->ifexp.body);
  L->b = saved;
  Block *be = lw_scratch_begin(L, &saved);
  FeVal ev = lw_lower_expr_opt(L, e->ifexp.orelse);
  L->b = saved;
  Type *ot;
  if (!(tv.kind == FV_NONE && ev.kind == FV_NONE) &&
      lw_optional_merge(L, &tv, &ev, e->loc, "the conditional value", &ot)) { /* None and a value: Optional */
    if (!ot) return poison();
    FeVal r = select_flat(L, c, bt, tv, be, ev, ot, e->loc);
    lw_merge_readonly(L, &r, &tv, &ev);
    return r;
  }
  return select_value(L, c, bt, tv, be, ev, e->loc);
}

FeVal lower_boolop(Lower *L, const PyExpr *e) {
  bool is_or = e->boolop.op == BOOL_OR;
  FeVal res = lower_expr(L, e->boolop.values.items[0]);
  for (unsigned i = 1; i < e->boolop.values.n; i++) {
    if (res.kind == FV_POISON) return res;
    FeVal t = lw_truth(L, res, e->loc);
    if (t.kind == FV_POISON) return t;
    if (t.is_const) {
      if (is_or ? t.c.i : !t.c.i) return res;
      res = lower_expr(L, e->boolop.values.items[i]);
      continue;
    }
    IrBuilder saved;
    Block *bn = lw_scratch_begin(L, &saved);
    FeVal next = lower_expr(L, e->boolop.values.items[i]);
    L->b = saved;
    if (res.kind == FV_VAL && next.kind == FV_VAL && res.type->kind == TY_BOOL && next.type->kind == TY_BOOL &&
        lw_block_pure(bn)) {
      /* two bools: the value is the logic operation itself */
      lw_splice_block(L, bn);
      at(L, e->loc);
      res = val(res.type, ib_binary(&L->b, is_or ? OP_ORI : OP_ANDI, t.v, lw_mat(L, &next)));
      continue;
    }
    Block *bo = ir_block_new(L->m);
    /* and: lw_truth(res) ? next : res;  or: lw_truth(res) ? res : next */
    res = is_or ? select_value(L, t, bo, res, bn, next, e->loc) : select_value(L, t, bn, next, bo, res, e->loc);
  }
  return res;
}
