/* canonicalize.c — constant folding, algebraic identities and structural clean-ups, to a fixed point.
 *
 * Requires: valid IR, structured (scf) or cf form. Preserves: validity and the meaning of the program;
 * changes only what it folds. It keeps no analysis valid (ops are erased, created and moved).
 *
 * A worklist driver: every op is queued once, in program order (pre-order, so definitions before
 * uses); an op that changes queues the users of its results, and an op erased queues the definitions
 * of its operands (which may have become dead). No full re-sweeps. Each op is visited by:
 *   - erasing it when it is dead: pure with unused results, or an scf.if / scf.for whose results are
 *     unused and whose regions hold only pure ops (a Python range loop always ends);
 *   - putting the constant operand of a commutative op on the right (arith.cmpi/cmpf swap their
 *     predicate), and reassociating op(op(x, c1), c2) to op(x, c1 op c2) for add/mul/and/or/xor;
 *   - folding it to a constant when its operands are constants, or to one of its operands by an
 *     algebraic identity (x+0, x*1, x&x, x^x = 0, select(c, x, x), trunci(extsi x) = x, ...);
 *   - mem.dim / mem.size of an array of static shape (mem.alloca, mem.global_ref) to the extent, of a
 *     mem.subview or mem.reinterpret to the extent it was given (mem.stride of a mem.reinterpret to its stride);
 *   - truncf(op(extf x, extf y)) to op on the narrow type for +, -, *, /, sqrt from f64 to f32 (exact:
 *     see narrow_float_op; the narrowed / and sqrt are marked `correctly_rounded`, which fastmath keeps);
 *   - check.raise of a constant false condition is erased;
 *   - scf.if on a constant condition: the taken region is inlined in place of the op, its results
 *     become the values it yielded; scf.for with a zero trip count: its results become the inits.
 *
 * Folding: an op whose operands are all constants becomes the constant its row of ir_op_sem
 * (ir/op_semantics.h) computes — the one definition of what each op computes, which the simulator runs and
 * the GPU is checked against — unless that row says the result is not one to fold: a division or remainder by
 * zero, a shift by the width or more, fptosi/fptoui of NaN or out of range, fmod / Python's // and % by zero or
 * of an infinity, min/max of a NaN or of two zeros of different signs, the bits of a NaN (the cases a program
 * may never reach, kept as written), and the libm functions (exp, sin, ...: the host's libm and libdevice may
 * differ in the last place). f16 ops compute in f32 and round, exactly as on the GPU.
 * Float identities only where exact for every input: x + -0.0, x - 0.0, x * 1.0, x / 1.0, -(-x);
 * never x * 0.0 or x - x (NaN, infinities, signed zeros).
 * New constants are created right before the op they replace, so they dominate its uses; a constant
 * op is never changed in place (it may have other users).
 *
 * Option region-simplify (default 1): 0 leaves scf.if / scf.for alone (no inlining, no erasing). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/op_semantics.h"
#include "passes.h"
#include "utils/mem.h"

/* Op.id scratch bits during this pass. */
enum { Q_QUEUED = 1u, Q_ERASED = 2u };

typedef struct Canon {
  Module *m;
  bool region_simplify; /* option region-simplify */
  IrBuilder b;
  Op **list;
  size_t n, cap;
} Canon;

/* ---- worklist ------------------------------------------------------------------------------- */

static void wl_push(Canon *c, Op *op) {
  if (!op || (op->id & (Q_QUEUED | Q_ERASED))) return;
  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 256;
    c->list = mem_realloc(c->list, c->cap * sizeof *c->list);  /* under a guard (mem.h): never NULL */
  }
  op->id |= Q_QUEUED;
  c->list[c->n++] = op;
}

static bool collect_op(Op *op, void *user) {
  Canon *c = user;
  op->id = 0;
  wl_push(c, op);
  return true;
}

static bool mark_erased(Op *op, void *user) {
  (void)user;
  op->id |= Q_ERASED;
  return true;
}

static bool push_operand_defs(Op *op, void *user) {
  for (unsigned i = 0; i < op->noperands; i++) {
    Value *v = op_operand(op, i);
    if (v && v->def) wl_push(user, v->def);
  }
  return true;
}

/* Erases op (and whatever its regions hold); queues the definitions of the values it used. */
static void erase_op(Canon *c, Op *op) {
  ir_walk_pre(op, mark_erased, NULL);
  ir_walk_pre(op, push_operand_defs, c);
  ir_op_erase(op);
}

/* Queues the users of op's results (after op changed in place: their patterns may match now). */
static void push_users(Canon *c, Op *op) {
  for (unsigned i = 0; i < op->nresults; i++)
    for (Use *u = op->results[i].uses; u; u = u->next) wl_push(c, u->user);
}

/* Replaces every use of from with to, queueing the users. */
static void replace_value(Canon *c, Value *from, Value *to) {
  for (Use *u = from->uses; u; u = u->next) wl_push(c, u->user);
  ir_value_replace_all_uses(from, to);
}

static void replace_op(Canon *c, Op *op, Value *v) {
  replace_value(c, op_result(op, 0), v);
  erase_op(c, op);
}

/* ---- values and constants ------------------------------------------------------------------- */

static bool is_const(const Value *v) { return v->def && op_has(v->def, OPT_CONST); }

static bool const_is(const Value *v, uint64_t want) {
  uint64_t u;
  return value_const_bits(v, &u) && u == (want & int_mask(ty_int_width(v->type)));
}

static bool const_f_is(const Value *v, double want) {
  double d;
  return value_const_float(v, &d) && d == want && signbit(d) == signbit(want);
}

static Value *make_int(Canon *c, Op *at, Type *t, uint64_t raw) {
  ib_set_before(&c->b, at);
  c->b.loc = at->loc;
  return ib_const_int(&c->b, t, (int64_t)raw);
}

static Value *make_float(Canon *c, Op *at, Type *t, double v) {
  ib_set_before(&c->b, at);
  c->b.loc = at->loc;
  return ib_const_float(&c->b, t, v);
}

/* A new op of kind k before `at`, with at's location; queued for a visit. */
static Value *make_op(Canon *c, Op *at, OpKind k, unsigned n, Value *const *operands, Type *result) {
  ib_set_before(&c->b, at);
  c->b.loc = at->loc;
  Op *op = ib_op(&c->b, k, n, operands, 1, &result, 0);
  wl_push(c, op);
  return op_result(op, 0);
}

/* ---- constant operands --------------------------------------------------------------------------- */

/* The value of constant v as a SemVal of type t. */
static bool const_val(const Value *v, SemTy t, SemVal *out) {
  uint64_t u;
  double d;
  if (!t.is_float) {
    if (!value_const_bits(v, &u)) return false;
    *out = sem_from_bits(u, t);
    return true;
  }
  if (!value_const_float(v, &d)) return false;
  *out = sem_from_double(d, t);
  return true;
}

/* op evaluated by its row of ir_op_sem (ir/op_semantics.h) when every operand is a constant and the result is
 * one to fold; NULL otherwise. */
static Value *fold_const(Canon *c, Op *op) {
  SemSig s;
  if (!ir_op_sem[op->kind].eval || !sem_sig_of(op, &s)) return NULL;
  SemVal x[3], r;
  for (unsigned i = 0; i < s.n; i++)
    if (!const_val(op_operand(op, i), s.a[i], &x[i])) return NULL;
  bool foldable = false;
  if (!sem_eval(&s, x, &r, &foldable) || !foldable) return NULL;
  Type *t = op_result(op, 0)->type;
  return s.r.is_float ? make_float(c, op, t, sem_to_double(r, s.r)) : make_int(c, op, t, r.u);
}

/* ---- narrowing float arithmetic ------------------------------------------------------------------ */

/* Numba computes float32 + int literal (and float32 + float64 constant) in float64 and stores the result
 * into a float32 array: truncf(addf(extf x, 1.0)). Rounding a +, -, *, / or sqrt to a format of p' >= 2p + 2
 * bits and then to p bits gives the correctly rounded p-bit result (double rounding is innocuous; Figueroa,
 * 1995), so the op can run in the narrow type with bit-identical results: f64 (p' = 53) over f32 (p = 24).
 * An operand qualifies if it is extf of a narrow value or a constant the narrow type holds exactly. */
static bool narrowable_operand(const Value *v, const Type *to) {
  double f;
  if (v->def && v->def->kind == OP_EXTF) return op_operand(v->def, 0)->type == to;
  return value_const_float(v, &f) && (isnan(f) || (double)(float)f == f);
}

static Value *narrow_float_op(Canon *c, Op *trunc, Type *to) {
  Op *d = op_operand(trunc, 0)->def;
  if (!d || to->bits != 32 || op_operand(trunc, 0)->type->bits != 64 || !value_has_one_use(op_result(d, 0)))
    return NULL;
  if (d->kind != OP_ADDF && d->kind != OP_SUBF && d->kind != OP_MULF && d->kind != OP_DIVF && d->kind != OP_SQRT)
    return NULL;
  for (unsigned i = 0; i < d->noperands; i++)
    if (!narrowable_operand(op_operand(d, i), to)) return NULL;
  Value *narrow[2];
  for (unsigned i = 0; i < d->noperands; i++) {
    Value *v = op_operand(d, i);
    double f = 0;
    if (v->def->kind == OP_EXTF) {
      narrow[i] = op_operand(v->def, 0);
    } else {
      value_const_float(v, &f);
      narrow[i] = make_float(c, trunc, to, f);
    }
  }
  Value *r = make_op(c, trunc, d->kind, d->noperands, narrow, to);
  /* the f64 division and sqrt stay correctly rounded under fastmath's -prec-div=0 / -prec-sqrt=0: so must these
   * (backend/lower_llvm_arith.c) */
  if (d->kind == OP_DIVF || d->kind == OP_SQRT) ir_op_set_attr(c->m, r->def, "correctly_rounded", attr_unit());
  return r;
}

/* Cast of a cast, and casts that change nothing. */
static Value *fold_cast_identity(Canon *c, Op *op) {
  Value *x = op_operand(op, 0);
  Type *to = op_result(op, 0)->type;
  if (x->type == to && (op->kind == OP_BITCAST)) return x;
  Op *d = x->def;
  if (!d) return NULL;
  Value *y = d->noperands ? op_operand(d, 0) : NULL;
  switch (op->kind) {
  case OP_EXTSI:
    /* extsi(extsi y) = extsi y; extsi(extui y) = extui y (the top bit of a zero-extension is 0) */
    if (d->kind == OP_EXTSI || d->kind == OP_EXTUI) return make_op(c, op, d->kind, 1, &y, to);
    return NULL;
  case OP_EXTUI:
    if (d->kind == OP_EXTUI) return make_op(c, op, OP_EXTUI, 1, &y, to);
    return NULL;
  case OP_EXTF:
    if (d->kind == OP_EXTF) return make_op(c, op, OP_EXTF, 1, &y, to);
    return NULL;
  case OP_TRUNCF:
    return narrow_float_op(c, op, to);
  case OP_TRUNCI:
    if (d->kind == OP_TRUNCI) return y->type == to ? y : make_op(c, op, OP_TRUNCI, 1, &y, to);
    if (d->kind == OP_EXTSI || d->kind == OP_EXTUI) {
      /* the truncation takes back (part of) what the extension added */
      unsigned wy = ty_int_width(y->type), wt = ty_int_width(to);
      if (y->type == to) return y;
      if (wy > wt) return make_op(c, op, OP_TRUNCI, 1, &y, to);
      if (wy < wt && to->kind == TY_INT) return make_op(c, op, d->kind, 1, &y, to);
      if (wy == wt && y->type->kind == TY_INT && to->kind == TY_INT) return make_op(c, op, OP_BITCAST, 1, &y, to);
    }
    return NULL;
  case OP_BITCAST:
    if (d->kind == OP_BITCAST) return y->type == to ? y : make_op(c, op, OP_BITCAST, 1, &y, to);
    return NULL;
  default: return NULL;
  }
}

/* ---- static array shapes ------------------------------------------------------------------------ */

/* mem.dim of a mem.subview or mem.reinterpret is the extent it was given (so is mem.size of one of rank 1), and
 * mem.stride of a mem.reinterpret the stride. */
static Value *fold_view_query(Op *op) {
  Op *v = op_operand(op, 0)->def;
  Type *t = op_result(v, 0)->type;
  unsigned first = v->kind == OP_SUBVIEW ? 1 + op_operand(v, 0)->type->rank : 1;
  int64_t axis = op->kind != OP_SIZE ? ir_op_attr_int(op, "axis", -1) : t->rank == 1 ? 0 : -1;
  if (axis < 0 || axis >= (int64_t)t->rank || v->noperands != first + 2 * t->rank) return NULL;
  if (op->kind == OP_STRIDE) return v->kind == OP_REINTERPRET ? op_operand(v, first + t->rank + (unsigned)axis) : NULL;
  return op_operand(v, v->kind == OP_SUBVIEW ? first + 2 * (unsigned)axis : first + (unsigned)axis);
}

/* mem.dim and mem.stride of a mem.field: along the array's axes the array's (the same query of the array), along
 * a nested array's axes its constant extent and C-contiguous stride; of a mem.record_array: its one record. */
static Value *fold_field_query(Canon *c, Op *op) {
  Op *d = op_operand(op, 0)->def;
  Type *t = op_result(op, 0)->type;
  if (d->kind == OP_RECORD_ARRAY) {
    Type *rec = op_operand(d, 0)->type;
    return make_int(c, op, t, op->kind == OP_STRIDE ? rec->size : 1);
  }
  Value *base = op_operand(d, 0);
  Type *rec = base->type->elem;
  const char *name = ir_op_attr_str(d, "name");
  int k = name && ty_is_record(rec) ? ty_record_field(rec, name, strlen(name)) : -1;
  if (k < 0 || op->kind == OP_SIZE) return NULL;
  int64_t axis = ir_op_attr_int(op, "axis", -1);
  unsigned rank = base->type->rank;
  const RecordField *f = &rec->fields[k];
  if (axis < 0 || axis >= (int64_t)(rank + f->ndims)) return NULL;
  if (axis < (int64_t)rank) {
    Value *r = make_op(c, op, op->kind, 1, &base, t);
    ir_op_set_attr(c->m, r->def, "axis", attr_int(ty_i64(c->m->ctx), axis));
    return r;
  }
  if (op->kind == OP_DIM) return make_int(c, op, t, f->dims[axis - rank]);
  uint64_t stride = ty_size(rec->elems[k]);
  for (unsigned i = (unsigned)(axis - rank) + 1; i < f->ndims; i++) stride *= f->dims[i];
  return make_int(c, op, t, stride);
}

static Value *fold_array_query(Canon *c, Op *op) {
  Op *d = op_operand(op, 0)->def;
  if (d && (d->kind == OP_SUBVIEW || d->kind == OP_REINTERPRET)) return fold_view_query(op);
  if (d && (d->kind == OP_FIELD || d->kind == OP_RECORD_ARRAY)) return fold_field_query(c, op);
  if (op->kind == OP_STRIDE) return NULL;
  const Attr *shape = value_static_shape(c->m, op_operand(op, 0));
  if (!shape) return NULL;
  Type *t = op_result(op, 0)->type;
  if (op->kind == OP_DIM) {
    int64_t axis = ir_op_attr_int(op, "axis", -1);
    if (axis < 0 || (uint64_t)axis >= shape->arr.n) return NULL;
    return make_int(c, op, t, (uint64_t)shape->arr.elems[axis].i);
  }
  int64_t n = 1;
  for (unsigned i = 0; i < shape->arr.n; i++)
    if (__builtin_mul_overflow(n, shape->arr.elems[i].i, &n)) return NULL;
  return make_int(c, op, t, (uint64_t)n);
}

/* ---- the per-op rules --------------------------------------------------------------------------- */

/* Puts a commutative op's constant operand on the right (comparisons swap their predicate). */
static bool order_operands(Canon *c, Op *op) {
  bool comm = op_has(op, OPT_COMM), cmp = op->kind == OP_CMPI || op->kind == OP_CMPF;
  if ((!comm && !cmp) || op->noperands != 2) return false;
  Value *x = op_operand(op, 0), *y = op_operand(op, 1);
  if (!is_const(x) || is_const(y)) return false;
  if (cmp) {
    IrAttrEnum e = ir_cmp_pred_enum(op->kind);
    int p = ir_op_enum_attr(op, e);
    if (p < 0) return false;
    ir_op_set_enum_attr(c->m, op, e, op->kind == OP_CMPI ? (int)ir_cmpi_pred_swapped((IrCmpIPred)p)
                                                         : (int)ir_cmpf_pred_swapped((IrCmpFPred)p));
  }
  ir_op_set_operand(op, 0, y);
  ir_op_set_operand(op, 1, x);
  return true;
}

/* op(op(x, c1), c2) -> op(x, c1 op c2) for the associative and commutative integer ops, in place. */
static bool reassociate(Canon *c, Op *op) {
  if (op->kind != OP_ADDI && op->kind != OP_MULI && op->kind != OP_ANDI && op->kind != OP_ORI && op->kind != OP_XORI)
    return false;
  Value *inner = op_operand(op, 0);
  Op *d = inner->def;
  SemSig s;
  SemVal k[2], v;
  if (!d || d->kind != op->kind || is_const(op_operand(d, 0)) || !sem_sig_of(op, &s) ||
      !const_val(op_operand(d, 1), s.a[0], &k[0]) || !const_val(op_operand(op, 1), s.a[1], &k[1]))
    return false;
  bool foldable = false;
  if (!sem_eval(&s, k, &v, &foldable) || !foldable) return false;
  Op *old_const = op_operand(op, 1)->def;
  ir_op_set_operand(op, 0, op_operand(d, 0));
  ir_op_set_operand(op, 1, make_int(c, op, inner->type, v.u));
  wl_push(c, d);
  wl_push(c, old_const);
  return true;
}

static Value *fold_int_binary(Canon *c, Op *op) {
  Value *x = op_operand(op, 0), *y = op_operand(op, 1);
  Type *t = op_result(op, 0)->type;
  unsigned w = ty_int_width(t);
  uint64_t a = 0, b = 0, ones = int_mask(w);
  bool ca = value_const_bits(x, &a), cb = value_const_bits(y, &b);
  switch (op->kind) {
  case OP_ADDI:
  case OP_ORI:
  case OP_XORI:
    if (cb && b == 0) return x;
    if (op->kind == OP_XORI && x == y) return make_int(c, op, t, 0);
    if (op->kind == OP_ORI && x == y) return x;
    if (op->kind == OP_ORI && cb && b == ones) return y;
    if (op->kind == OP_XORI && cb && x->def && x->def->kind == OP_XORI && const_is(op_operand(x->def, 1), b))
      return op_operand(x->def, 0); /* (z ^ k) ^ k */
    return NULL;
  case OP_SUBI:
    if (cb && b == 0) return x;
    if (x == y) return make_int(c, op, t, 0);
    if (ca && a == 0 && y->def && y->def->kind == OP_SUBI && const_is(op_operand(y->def, 0), 0))
      return op_operand(y->def, 1); /* 0 - (0 - z) */
    return NULL;
  case OP_MULI:
    if (cb && b == 1) return x;
    if (cb && b == 0) return y;
    return NULL;
  case OP_ANDI:
    if (cb && b == 0) return y;
    if (cb && b == ones) return x;
    if (x == y) return x;
    return NULL;
  case OP_DIVSI:
  case OP_DIVUI:
  case OP_FLOORDIVSI:
    if (cb && b == 1) return x;
    return NULL;
  case OP_REMSI:
  case OP_REMUI:
  case OP_FLOORMODSI:
    if (cb && (b == 1 || (op->kind != OP_REMUI && b == ones))) return make_int(c, op, t, 0);
    return NULL;
  case OP_SHLI:
  case OP_SHRSI:
  case OP_SHRUI:
    if (cb && b == 0) return x;
    return NULL;
  case OP_MINSI:
  case OP_MAXSI:
  case OP_MINUI:
  case OP_MAXUI:
    if (x == y) return x;
    return NULL;
  case OP_IPOW:
    if (cb && b == 1) return x;
    if (cb && b == 0) return make_int(c, op, t, 1);
    return NULL;
  default: return NULL;
  }
}

static Value *fold_cmpi(Canon *c, Op *op) {
  Value *x = op_operand(op, 0), *y = op_operand(op, 1);
  Type *i1 = op_result(op, 0)->type;
  IrCmpIPred p = ir_op_cmpi_pred(op);
  if (p == IR_CMPI_INVALID) return NULL;
  uint64_t b = 0;
  bool cb = value_const_bits(y, &b);
  if (x == y) return make_int(c, op, i1, p == IR_CMPI_EQ || p == IR_CMPI_SLE || p == IR_CMPI_SGE || p == IR_CMPI_ULE || p == IR_CMPI_UGE);
  if (cb && ty_is_bool(x->type) && ((p == IR_CMPI_NE && b == 0) || (p == IR_CMPI_EQ && b == 1))) return x;
  /* Python truth of a widened bool: (extui b) != 0 is b */
  if (cb && b == 0 && p == IR_CMPI_NE && x->def && x->def->kind == OP_EXTUI && ty_is_bool(op_operand(x->def, 0)->type))
    return op_operand(x->def, 0);
  return NULL;
}

static Value *fold_select(Canon *c, Op *op) {
  Value *cond = op_operand(op, 0), *x = op_operand(op, 1), *y = op_operand(op, 2);
  uint64_t cv;
  if (value_const_bits(cond, &cv)) return cv ? x : y;
  if (x == y) return x;
  if (ty_is_bool(x->type) && const_is(x, 1) && const_is(y, 0)) return cond;
  return NULL;
}

/* Float identities exact for every input (a NaN's sign and payload aside, which kfront does not define). */
static Value *fold_float(Canon *c, Op *op) {
  Value *x = op_operand(op, 0), *y = op->noperands > 1 ? op_operand(op, 1) : NULL;
  switch (op->kind) {
  case OP_NEGF: return x->def && x->def->kind == OP_NEGF ? op_operand(x->def, 0) : NULL;
  case OP_ROUND: case OP_FLOOR: case OP_CEIL: case OP_TRUNC: /* of a value already integral (or inf or NaN): itself */
    return x->def && (x->def->kind == OP_ROUND || x->def->kind == OP_FLOOR || x->def->kind == OP_CEIL ||
                      x->def->kind == OP_TRUNC) ? x : NULL;
  case OP_ADDF: return const_f_is(y, -0.0) ? x : NULL;
  case OP_SUBF: return const_f_is(y, 0.0) ? x : NULL;
  case OP_MULF: /* x * -1.0 is -x exactly, as LLVM's instcombine (numba-cuda's) writes it: one product less */
    if (const_f_is(y, -1.0)) return make_op(c, op, OP_NEGF, 1, &x, op->results[0].type);
    return const_f_is(y, 1.0) ? x : NULL;
  case OP_DIVF: return const_f_is(y, 1.0) ? x : NULL;
  default: return NULL;
  }
}

/* A replacement for the single result of op, or NULL: its value when its operands are constants, else an
 * identity. */
static Value *fold(Canon *c, Op *op) {
  Value *k = fold_const(c, op);
  if (k) return k;
  switch (op->kind) {
  case OP_ADDI: case OP_SUBI: case OP_MULI: case OP_DIVSI: case OP_DIVUI: case OP_REMSI: case OP_REMUI:
  case OP_FLOORDIVSI: case OP_FLOORMODSI: case OP_MINSI: case OP_MAXSI: case OP_MINUI: case OP_MAXUI:
  case OP_IPOW: case OP_SHLI: case OP_SHRSI: case OP_SHRUI: case OP_ANDI: case OP_ORI: case OP_XORI:
    return fold_int_binary(c, op);
  case OP_CMPI: return fold_cmpi(c, op);
  case OP_SELECT: return fold_select(c, op);
  case OP_EXTSI: case OP_EXTUI: case OP_TRUNCI: case OP_SITOFP: case OP_UITOFP: case OP_FPTOSI: case OP_FPTOUI:
  case OP_EXTF: case OP_TRUNCF: case OP_BITCAST: return fold_cast_identity(c, op);
  case OP_ADDF: case OP_SUBF: case OP_MULF: case OP_DIVF: case OP_NEGF:
  case OP_ROUND: case OP_FLOOR: case OP_CEIL: case OP_TRUNC: return fold_float(c, op);
  case OP_POWI: return const_is(op_operand(op, 1), 1) ? op_operand(op, 0) : NULL;
  case OP_DIM:
  case OP_STRIDE:
  case OP_SIZE: return fold_array_query(c, op);
  default: return NULL;
  }
}

/* ---- structured control flow ------------------------------------------------------------------- */

static bool region_is_pure(const Region *r);

/* True if op may vanish when its results are unused: pure, a terminator of a structured region, or an
 * scf.if / scf.for made of such ops. */
static bool op_is_removable(const Op *op) {
  if (op->kind == OP_YIELD) return true;
  if (op->kind == OP_IF || op->kind == OP_FOR) {
    for (unsigned i = 0; i < op->nregions; i++)
      if (!region_is_pure(&op->regions[i])) return false;
    return true;
  }
  return op_has(op, OPT_PURE) && !op->nregions;
}

static bool region_is_pure(const Region *r) {
  for (const Block *b = r->first; b; b = b->next)
    for (const Op *o = b->first; o; o = o->next)
      if (!op_is_removable(o)) return false;
  return true;
}

static bool results_unused(const Op *op) {
  for (unsigned i = 0; i < op->nresults; i++)
    if (value_has_uses(&op->results[i])) return false;
  return true;
}

/* scf.if on a constant condition: inline the taken region. */
static bool fold_if(Canon *c, Op *op) {
  uint64_t cv;
  if (!value_const_bits(op_operand(op, 0), &cv)) return false;
  Region *r = &op->regions[cv ? 0 : 1];
  Block *blk = r->first;
  if (!blk || blk != r->last) return false;
  Op *y = ir_block_terminator(blk);
  if (!y || y->kind != OP_YIELD || y->noperands != op->nresults) return false;
  for (Op *o = blk->first, *next; o != y; o = next) {
    next = o->next;
    ir_op_unlink(o);
    ir_op_insert_before(op, o);
    wl_push(c, o);
  }
  for (unsigned i = 0; i < op->nresults; i++) replace_value(c, op_result(op, i), op_operand(y, i));
  erase_op(c, op);
  return true;
}

/* scf.for whose constant bounds give no iteration: its results are its initial values. */
static bool fold_for(Canon *c, Op *op) {
  int64_t lb, ub, step;
  if (!value_const_int(op_operand(op, 0), &lb) || !value_const_int(op_operand(op, 1), &ub) ||
      !value_const_int(op_operand(op, 2), &step) || step == 0)
    return false;
  if (step > 0 ? lb < ub : lb > ub) return false;
  for (unsigned i = 0; i < op->nresults; i++) replace_value(c, op_result(op, i), op_operand(op, 3 + i));
  erase_op(c, op);
  return true;
}

static void visit(Canon *c, Op *op) {
  if (op_is_trivially_dead(op)) {
    erase_op(c, op);
    return;
  }
  if (op->kind == OP_RAISE && op->noperands == 1 && const_is(op_operand(op, 0), 0)) { /* a raise that never happens */
    erase_op(c, op);
    return;
  }
  if (op->kind == OP_IF || op->kind == OP_FOR) {
    if (!c->region_simplify) return;
    if (results_unused(op) && op_is_removable(op)) erase_op(c, op);
    else if (op->kind == OP_IF) fold_if(c, op);
    else fold_for(c, op);
    return;
  }
  if (op->nresults != 1 || op->nregions || op_has(op, OPT_CONST)) return;
  bool swapped = order_operands(c, op);
  if (reassociate(c, op)) {
    wl_push(c, op);
    push_users(c, op);
    return;
  }
  Value *v = fold(c, op);
  if (v) replace_op(c, op, v);
  else if (swapped) push_users(c, op);
}

bool pass_canonicalize(Module *m, const PassContext *pc) {
  Canon c = {.m = m, .region_simplify = pc->options[0] != 0};
  ib_init(&c.b, m);
  for (Op *f = ir_module_body(m)->first; f; f = f->next) ir_walk_pre(f, collect_op, &c);
  /* the list is a stack: reverse it so that ops come off in program order */
  for (size_t i = 0, j = c.n; i + 1 < j; i++, j--) {
    Op *t = c.list[i];
    c.list[i] = c.list[j - 1];
    c.list[j - 1] = t;
  }
  while (c.n) {
    Op *op = c.list[--c.n];
    op->id &= ~Q_QUEUED;
    if (op->id & Q_ERASED || !op->block) continue;
    visit(&c, op);
  }
  mem_free(c.list);
  return true;
}
