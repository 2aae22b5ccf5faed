/* builder.c — IrBuilder: creates ops at an insertion point with the builder's current location,
 * plus shorthands for constants, arithmetic, comparisons and Numba-style scalar casts. */
#include "ir.h"

void ib_init(IrBuilder *b, Module *m) {
  b->m = m;
  b->ctx = m->ctx;
  b->block = NULL;
  b->before = NULL;
  b->loc = (SrcLoc){0};
}

void ib_set_end(IrBuilder *b, Block *block) {
  b->block = block;
  b->before = NULL;
}

void ib_set_before(IrBuilder *b, Op *op) {
  b->block = op->block;
  b->before = op;
}

void ib_set_after(IrBuilder *b, Op *op) {
  b->block = op->block;
  b->before = op->next;
}

Op *ib_insert(IrBuilder *b, Op *op) {
  if (b->before) ir_op_insert_before(b->before, op);
  else ir_block_append(b->block, op);
  return op;
}

Op *ib_op(IrBuilder *b, OpKind kind, unsigned noperands, Value *const *operands, unsigned nresults,
          Type *const *result_types, unsigned nregions) {
  return ib_insert(b, ir_op_create(b->m, kind, b->loc, noperands, operands, nresults, result_types, nregions));
}

Value *ib_const_int(IrBuilder *b, Type *t, int64_t v) {
  Op *op = ib_op(b, OP_CONSTANT, 0, NULL, 1, &t, 0);
  if (t->kind == TY_BOOL) v = v != 0;
  else if (t->bits < 64) {
    /* keep the attribute canonical: the value as the type holds it */
    uint64_t mask = (1ull << t->bits) - 1, u = (uint64_t)v & mask;
    v = t->is_unsigned || !(u >> (t->bits - 1)) ? (int64_t)u : (int64_t)(u | ~mask);
  }
  ir_op_set_attr(b->m, op, "value", attr_int(t, v));
  return op_result(op, 0);
}

Value *ib_const_float(IrBuilder *b, Type *t, double v) {
  Op *op = ib_op(b, OP_CONSTANT, 0, NULL, 1, &t, 0);
  if (t->bits == 32) v = (float)v;
  ir_op_set_attr(b->m, op, "value", attr_float(t, v));
  return op_result(op, 0);
}

Value *ib_const_bool(IrBuilder *b, bool v) { return ib_const_int(b, ty_bool(b->ctx), v); }

Value *ib_unary(IrBuilder *b, OpKind kind, Value *a, Type *result) {
  Type *t = result ? result : a->type;
  return op_result(ib_op(b, kind, 1, &a, 1, &t, 0), 0);
}

Value *ib_binary(IrBuilder *b, OpKind kind, Value *x, Value *y) {
  Value *ops[2] = {x, y};
  return op_result(ib_op(b, kind, 2, ops, 1, &x->type, 0), 0);
}

static Value *cmp(IrBuilder *b, OpKind kind, int pred, Value *x, Value *y) {
  Value *ops[2] = {x, y};
  Type *i1 = ty_bool(b->ctx);
  Op *op = ib_op(b, kind, 2, ops, 1, &i1, 0);
  ir_op_set_enum_attr(b->m, op, ir_cmp_pred_enum(kind), pred);
  return op_result(op, 0);
}

Value *ib_cmpi(IrBuilder *b, IrCmpIPred pred, Value *x, Value *y) { return cmp(b, OP_CMPI, pred, x, y); }
Value *ib_cmpf(IrBuilder *b, IrCmpFPred pred, Value *x, Value *y) { return cmp(b, OP_CMPF, pred, x, y); }

Value *ib_select(IrBuilder *b, Value *c, Value *x, Value *y) {
  Value *ops[3] = {c, x, y};
  return op_result(ib_op(b, OP_SELECT, 3, ops, 1, &x->type, 0), 0);
}

Value *ib_cast(IrBuilder *b, Value *v, Type *to) {
  Type *from = v->type;
  if (from == to) return v;
  if (to->kind == TY_BOOL) {
    /* Python truth: x != 0 */
    if (from->kind == TY_FLOAT) return ib_cmpf(b, IR_CMPF_UNE, v, ib_const_float(b, from, 0.0));
    return ib_cmpi(b, IR_CMPI_NE, v, ib_const_int(b, from, 0));
  }
  if (from->kind == TY_BOOL) {
    if (to->kind == TY_FLOAT) return ib_unary(b, OP_UITOFP, v, to);
    return ib_unary(b, OP_EXTUI, v, to);
  }
  if (from->kind == TY_INT && to->kind == TY_INT) {
    if (from->bits == to->bits) return ib_unary(b, OP_BITCAST, v, to);
    if (from->bits > to->bits) return ib_unary(b, OP_TRUNCI, v, to);
    return ib_unary(b, from->is_unsigned ? OP_EXTUI : OP_EXTSI, v, to);
  }
  if (from->kind == TY_INT && to->kind == TY_FLOAT) return ib_unary(b, from->is_unsigned ? OP_UITOFP : OP_SITOFP, v, to);
  if (from->kind == TY_FLOAT && to->kind == TY_INT) return ib_unary(b, to->is_unsigned ? OP_FPTOUI : OP_FPTOSI, v, to);
  if (from->kind == TY_FLOAT && to->kind == TY_FLOAT)
    return ib_unary(b, from->bits < to->bits ? OP_EXTF : OP_TRUNCF, v, to);
  return v; /* not a scalar conversion: callers check types before asking */
}

Value *ib_gpu_id(IrBuilder *b, OpKind kind, unsigned dim) {
  Type *i32 = ty_i32(b->ctx);
  Op *op = ib_op(b, kind, 0, NULL, 1, &i32, 0);
  ir_op_set_attr(b->m, op, "dim", attr_int(ty_i64(b->ctx), dim));
  return op_result(op, 0);
}

Value *ib_dim(IrBuilder *b, Value *array, unsigned axis) {
  Type *i64 = ty_i64(b->ctx);
  Op *op = ib_op(b, OP_DIM, 1, &array, 1, &i64, 0);
  ir_op_set_attr(b->m, op, "axis", attr_int(i64, axis));
  return op_result(op, 0);
}

/* ---- counted loops: Python's range without overflow (ir.h, IbRange) ------------------------------------------- */

static bool const_int_of(const Value *v, int64_t *out) {
  if (!v->def || v->def->kind != OP_CONSTANT) return false;
  Attr *a = ir_op_attr(v->def, "value");
  if (!a || a->kind != ATTR_INT) return false;
  *out = a->i;
  return true;
}

IbRange ib_range_init(IrBuilder *b, Value *ub, Value *step, int dir) {
  Type *t = ub->type;
  IbRange r = {.dir = dir, .ub = ub, .step = step};
  int64_t st, u;
  bool cst = const_int_of(step, &st), cub = const_int_of(ub, &u);
  if (cst) r.dir = st < 0 ? -1 : 1;
  r.unit = cst && (st == 1 || st == -1);
  if (r.unit) return r; /* iv + 1 < ub is tested on the step itself: iv < ub <= MAX, so it cannot wrap */
  if (r.dir > 0 || r.dir < 0) {
    /* up: lim = max(ub, MIN + step) - step; down: lim = min(ub, MAX + step) - step (each bound in range) */
    int64_t edge = r.dir > 0 ? INT64_MIN : INT64_MAX;
    if (cst && cub) {
      int64_t lim = (r.dir > 0 ? u < edge + st : u > edge + st) ? edge : (int64_t)((uint64_t)u - (uint64_t)st);
      r.lim = ib_const_int(b, t, lim);
      return r;
    }
    Value *e = cst ? ib_const_int(b, t, edge + st) : ib_binary(b, OP_ADDI, ib_const_int(b, t, edge), step);
    r.lim = ib_binary(b, OP_SUBI, ib_binary(b, r.dir > 0 ? OP_MAXSI : OP_MINSI, ub, e), step);
    return r;
  }
  /* flipped, every range counts up by |step| = (step ^ f) - f (2^63 for MIN, as an unsigned amount; MIN + it
   * is 0, in range) */
  r.flip = ib_binary(b, OP_SHRSI, step, ib_const_int(b, t, (int64_t)t->bits - 1));
  Value *mag = ib_binary(b, OP_SUBI, ib_binary(b, OP_XORI, step, r.flip), r.flip);
  r.ub = ib_binary(b, OP_XORI, ub, r.flip);
  Value *edge = ib_binary(b, OP_ADDI, ib_const_int(b, t, INT64_MIN), mag);
  r.lim = ib_binary(b, OP_SUBI, ib_binary(b, OP_MAXSI, r.ub, edge), mag);
  return r;
}

static Value *range_cmp(IrBuilder *b, const IbRange *r, Value *x, Value *bound) {
  if (r->dir) return ib_cmpi(b, r->dir > 0 ? IR_CMPI_SLT : IR_CMPI_SGT, x, bound);
  return ib_cmpi(b, IR_CMPI_SLT, ib_binary(b, OP_XORI, x, r->flip), bound);
}

Value *ib_range_in(IrBuilder *b, const IbRange *r, Value *iv) { return range_cmp(b, r, iv, r->ub); }

Value *ib_range_step(IrBuilder *b, const IbRange *r, Value *iv, Value **next) {
  if (r->unit) {
    *next = ib_binary(b, OP_ADDI, iv, r->step);
    return range_cmp(b, r, *next, r->ub);
  }
  Value *more = range_cmp(b, r, iv, r->lim);
  Op *at = b->before;
  ib_set_before(b, more->def); /* the step right before the compare (the simulator fuses the two) */
  *next = ib_binary(b, OP_ADDI, iv, r->step);
  b->before = at;
  return more;
}
