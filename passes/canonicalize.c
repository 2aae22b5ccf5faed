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
 *     see narrow_float_op);
 *   - check.valid of a constant true condition is erased;
 *   - scf.if on a constant condition: the taken region is inlined in place of the op, its results
 *     become the values it yielded; scf.for with a zero trip count: its results become the inits.
 *
 * Folding rules worth knowing (no undefined behaviour in the compiler: integer folds work on the raw
 * bits in uint64_t, masked to the type's width; the type's signedness only picks the stored form):
 *   - divsi/remsi/divui/remui by zero: not folded. floordivsi/floormodsi by zero: 0 (ops.def, Numba).
 *     INT_MIN / -1 wraps to INT_MIN, INT_MIN % -1 is 0 (also for the floor variants).
 *   - shifts by a negative amount or by >= the width: not folded (LLVM leaves them poison).
 *   - ipow with a negative exponent: 0 (ops.def).
 *   - float ops in the op's precision: f32 through C float. f16 arithmetic is not folded (no exact
 *     host half type); only the exact ops (negf, fabs, floor, ceil, trunc, round, copysign, compares,
 *     predicates, extf) fold at every width.
 *   - fptosi/fptoui: not folded for NaN or a truncated value outside the target's range.
 *   - math.*: only the correctly rounded or exact ones (sqrt, floor, ceil, trunc, round, fabs, copysign,
 *     fmod, isnan, isinf, isfinite); exp, sin, ... stay, since libm and libdevice may differ in an ulp.
 *   - float identities only where exact for every input: x + -0.0, x - 0.0, x * 1.0, x / 1.0, -(-x);
 *     never x * 0.0 or x - x (NaN, infinities, signed zeros).
 * New constants are created right before the op they replace, so they dominate its uses; a constant
 * op is never changed in place (it may have other users).
 *
 * Option region-simplify (default 1): 0 leaves scf.if / scf.for alone (no inlining, no erasing). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- integer evaluation ----------------------------------------------------------------------- */

/* Integer binary op k over w-bit raw operands; false when it must not be folded. type_unsigned: the
 * operands' type is unsigned (decides whether a shift amount or exponent can be negative). */
static bool eval_int_binary(OpKind k, unsigned w, bool type_unsigned, uint64_t a, uint64_t b, uint64_t *r) {
  uint64_t m = int_mask(w);
  int64_t sa = int_sext(a, w), sb = int_sext(b, w);
  uint64_t v;
  switch (k) {
  case OP_ADDI: v = a + b; break;
  case OP_SUBI: v = a - b; break;
  case OP_MULI: v = a * b; break;
  case OP_ANDI: v = a & b; break;
  case OP_ORI: v = a | b; break;
  case OP_XORI: v = a ^ b; break;
  case OP_DIVUI:
    if (b == 0) return false;
    v = a / b;
    break;
  case OP_REMUI:
    if (b == 0) return false;
    v = a % b;
    break;
  case OP_DIVSI:
    if (sb == 0) return false;
    v = sb == -1 ? 0 - a : (uint64_t)(sa / sb);
    break;
  case OP_REMSI:
    if (sb == 0) return false;
    v = sb == -1 ? 0 : (uint64_t)(sa % sb);
    break;
  case OP_FLOORDIVSI:
    if (sb == 0) v = 0;
    else if (sb == -1) v = 0 - a;
    else {
      int64_t q = sa / sb;
      if (sa % sb != 0 && (sa < 0) != (sb < 0)) q--;
      v = (uint64_t)q;
    }
    break;
  case OP_FLOORMODSI:
    if (sb == 0 || sb == -1) v = 0;
    else {
      int64_t rem = sa % sb;
      if (rem != 0 && (rem < 0) != (sb < 0)) rem += sb;
      v = (uint64_t)rem;
    }
    break;
  case OP_MINSI: v = sa < sb ? a : b; break;
  case OP_MAXSI: v = sa > sb ? a : b; break;
  case OP_MINUI: v = a < b ? a : b; break;
  case OP_MAXUI: v = a > b ? a : b; break;
  case OP_IPOW:
    if (!type_unsigned && sb < 0) {
      v = 0;
      break;
    }
    v = 1;
    for (uint64_t base = a, e = b; e; e >>= 1, base *= base)
      if (e & 1) v *= base;
    break;
  case OP_SHLI:
  case OP_SHRSI:
  case OP_SHRUI:
    if ((!type_unsigned && sb < 0) || b >= w) return false;
    v = k == OP_SHLI ? a << b : k == OP_SHRUI ? a >> b : (uint64_t)(sa >> b);
    break;
  default: return false;
  }
  *r = v & m;
  return true;
}

static bool eval_int_unary(OpKind k, unsigned w, uint64_t a, uint64_t *r) {
  uint64_t v = 0;
  switch (k) {
  case OP_ABSI: v = int_sext(a, w) < 0 ? 0 - a : a; break;
  case OP_POPC: v = (uint64_t)__builtin_popcountll(a); break;
  case OP_CLZ: v = a ? (uint64_t)(__builtin_clzll(a) - (64 - (int)w)) : w; break;
  case OP_FFS: v = a ? (uint64_t)__builtin_ctzll(a) + 1 : 0; break;
  case OP_BREV:
    for (unsigned i = 0; i < w; i++)
      if ((a >> i) & 1) v |= 1ull << (w - 1 - i);
    break;
  default: return false;
  }
  *r = v & int_mask(w);
  return true;
}

/* ---- comparisons ------------------------------------------------------------------------------ */

enum { P_EQ, P_NE, P_SLT, P_SLE, P_SGT, P_SGE, P_ULT, P_ULE, P_UGT, P_UGE };
static const char *const cmpi_preds[] = {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge", NULL};
/* the predicate with its operands swapped */
static const char *const cmpi_swapped[] = {"eq", "ne", "sgt", "sge", "slt", "sle", "ugt", "uge", "ult", "ule"};

enum { F_OEQ, F_ONE, F_OLT, F_OLE, F_OGT, F_OGE, F_ORD, F_UNE, F_ULT, F_ULE, F_UGT, F_UGE, F_UNO };
static const char *const cmpf_preds[] = {"oeq", "one", "olt", "ole", "ogt", "oge", "ord",
                                         "une", "ult", "ule", "ugt", "uge", "uno", NULL};
static const char *const cmpf_swapped[] = {"oeq", "one", "ogt", "oge", "olt", "ole", "ord",
                                           "une", "ugt", "uge", "ult", "ule", "uno"};

static int pred_index(const Op *op, const char *const *preds) {
  const char *p = ir_op_attr_str(op, "pred");
  if (!p) return -1;
  for (int i = 0; preds[i]; i++)
    if (strcmp(p, preds[i]) == 0) return i;
  return -1;
}

static bool eval_cmpi(int p, unsigned w, uint64_t a, uint64_t b) {
  int64_t sa = int_sext(a, w), sb = int_sext(b, w);
  switch (p) {
  case P_EQ: return a == b;
  case P_NE: return a != b;
  case P_SLT: return sa < sb;
  case P_SLE: return sa <= sb;
  case P_SGT: return sa > sb;
  case P_SGE: return sa >= sb;
  case P_ULT: return a < b;
  case P_ULE: return a <= b;
  case P_UGT: return a > b;
  default: return a >= b;
  }
}

static bool eval_cmpf(int p, double a, double b) {
  bool uno = isnan(a) || isnan(b);
  switch (p) {
  case F_OEQ: return !uno && a == b;
  case F_ONE: return !uno && a != b;
  case F_OLT: return !uno && a < b;
  case F_OLE: return !uno && a <= b;
  case F_OGT: return !uno && a > b;
  case F_OGE: return !uno && a >= b;
  case F_ORD: return !uno;
  case F_UNE: return uno || a != b;
  case F_ULT: return uno || a < b;
  case F_ULE: return uno || a <= b;
  case F_UGT: return uno || a > b;
  case F_UGE: return uno || a >= b;
  default: return uno;
  }
}

/* ---- float evaluation ------------------------------------------------------------------------- */

/* Python's float // and % (CPython's float_divmod, which Numba follows), in one precision. */
#define DEFINE_PY_DIVMOD(name, T, FMOD, FLOOR, COPYSIGN)        \
  static void name(T a, T b, T *div, T *mod) {                   \
    T m = FMOD(a, b), d = (a - m) / b;                           \
    if (m != 0) {                                                \
      if ((b < 0) != (m < 0)) {                                  \
        m += b;                                                  \
        d -= 1;                                                  \
      }                                                          \
    } else {                                                     \
      m = COPYSIGN((T)0, b);                                     \
    }                                                            \
    T fd;                                                        \
    if (d != 0) {                                                \
      fd = FLOOR(d);                                             \
      if (d - fd > (T)0.5) fd += 1;                              \
    } else {                                                     \
      fd = COPYSIGN((T)0, a / b);                                \
    }                                                            \
    *div = fd;                                                   \
    *mod = m;                                                    \
  }
DEFINE_PY_DIVMOD(py_divmod_f64, double, fmod, floor, copysign)
DEFINE_PY_DIVMOD(py_divmod_f32, float, fmodf, floorf, copysignf)

/* Float binary op k in `bits` precision (32 or 64); false when it must not be folded. */
static bool eval_float_binary(OpKind k, unsigned bits, double a, double b, double *r) {
  if (k == OP_COPYSIGN) {
    *r = copysign(a, b); /* exact at every width */
    return true;
  }
  if (k == OP_MINF || k == OP_MAXF) {
    /* Python min/max: the NaN and signed-zero cases depend on the operand order; leave them */
    if (isnan(a) || isnan(b) || (a == b && signbit(a) != signbit(b))) return false;
    *r = k == OP_MINF ? (a <= b ? a : b) : (a >= b ? a : b);
    return true;
  }
  if (bits != 32 && bits != 64) return false;
  bool finite = isfinite(a) && isfinite(b);
  if (bits == 32) {
    float fa = (float)a, fb = (float)b, v, mod;
    switch (k) {
    case OP_ADDF: v = fa + fb; break;
    case OP_SUBF: v = fa - fb; break;
    case OP_MULF: v = fa * fb; break;
    case OP_DIVF: v = fa / fb; break;
    case OP_REMF:
    case OP_FMOD:
      if (fb == 0 || !finite) return false;
      v = fmodf(fa, fb);
      break;
    case OP_FLOORDIVF:
    case OP_FLOORMODF:
      if (fb == 0 || !finite) return false;
      py_divmod_f32(fa, fb, &v, &mod);
      if (k == OP_FLOORMODF) v = mod;
      break;
    default: return false;
    }
    *r = v;
    return true;
  }
  double v, mod;
  switch (k) {
  case OP_ADDF: v = a + b; break;
  case OP_SUBF: v = a - b; break;
  case OP_MULF: v = a * b; break;
  case OP_DIVF: v = a / b; break;
  case OP_REMF:
  case OP_FMOD:
    if (b == 0 || !finite) return false;
    v = fmod(a, b);
    break;
  case OP_FLOORDIVF:
  case OP_FLOORMODF:
    if (b == 0 || !finite) return false;
    py_divmod_f64(a, b, &v, &mod);
    if (k == OP_FLOORMODF) v = mod;
    break;
  default: return false;
  }
  *r = v;
  return true;
}

static bool eval_float_unary(OpKind k, unsigned bits, double a, double *r) {
  switch (k) {
  /* exact at every width: the result of a representable value is representable */
  case OP_NEGF: *r = -a; return true;
  case OP_FABS: *r = fabs(a); return true;
  case OP_FLOOR: *r = floor(a); return true;
  case OP_CEIL: *r = ceil(a); return true;
  case OP_TRUNC: *r = trunc(a); return true;
  case OP_ROUND: *r = rint(a); return true; /* round half to even in the default rounding mode */
  case OP_SQRT: /* correctly rounded in IEEE arithmetic, as on the GPU */
    if (bits == 32) *r = sqrtf((float)a);
    else if (bits == 64) *r = sqrt(a);
    else return false;
    return true;
  default: return false;
  }
}

/* ---- casts ------------------------------------------------------------------------------------ */

static Value *fold_cast_const(Canon *c, Op *op) {
  Value *x = op_operand(op, 0);
  Type *from = x->type, *to = op_result(op, 0)->type;
  uint64_t u;
  double d;
  switch (op->kind) {
  case OP_EXTSI:
    if (!value_const_bits(x, &u)) return NULL;
    return make_int(c, op, to, (uint64_t)int_sext(u, ty_int_width(from)));
  case OP_EXTUI:
  case OP_TRUNCI:
    if (!value_const_bits(x, &u)) return NULL;
    return make_int(c, op, to, u);
  case OP_SITOFP:
  case OP_UITOFP: {
    if (!value_const_bits(x, &u)) return NULL;
    bool s = op->kind == OP_SITOFP;
    int64_t sv = int_sext(u, ty_int_width(from));
    if (to->bits == 32) return make_float(c, op, to, s ? (float)sv : (float)u);
    if (to->bits == 64) return make_float(c, op, to, s ? (double)sv : (double)u);
    return NULL;
  }
  case OP_FPTOSI:
  case OP_FPTOUI: {
    if (!value_const_float(x, &d) || isnan(d) || to->kind != TY_INT) return NULL;
    double t = trunc(d), span = ldexp(1.0, (int)to->bits - (op->kind == OP_FPTOSI ? 1 : 0));
    if (op->kind == OP_FPTOSI) {
      if (!(t >= -span && t < span)) return NULL;
      return make_int(c, op, to, (uint64_t)(int64_t)t);
    }
    if (!(t >= 0 && t < span)) return NULL;
    return make_int(c, op, to, (uint64_t)t);
  }
  case OP_EXTF:
    if (!value_const_float(x, &d)) return NULL;
    return make_float(c, op, to, d); /* exact: the narrower value is representable */
  case OP_TRUNCF:
    if (!value_const_float(x, &d) || to->bits != 32) return NULL;
    return make_float(c, op, to, (float)d);
  case OP_BITCAST:
    if (from->kind == TY_INT && to->kind == TY_INT) {
      if (!value_const_bits(x, &u)) return NULL;
      return make_int(c, op, to, u);
    }
    if (from->kind == TY_INT && to->kind == TY_FLOAT) {
      if (!value_const_bits(x, &u)) return NULL;
      if (to->bits == 32) {
        uint32_t b32 = (uint32_t)u;
        float f;
        memcpy(&f, &b32, sizeof f);
        return make_float(c, op, to, f);
      }
      if (to->bits == 64) {
        memcpy(&d, &u, sizeof d);
        return make_float(c, op, to, d);
      }
      return NULL;
    }
    if (from->kind == TY_FLOAT && to->kind == TY_INT) {
      if (!value_const_float(x, &d)) return NULL;
      /* NaN payloads do not survive the text form; leave NaNs alone */
      if (isnan(d)) return NULL;
      if (from->bits == 32) {
        float f = (float)d;
        uint32_t b32;
        memcpy(&b32, &f, sizeof b32);
        return make_int(c, op, to, b32);
      }
      if (from->bits == 64) {
        memcpy(&u, &d, sizeof u);
        return make_int(c, op, to, u);
      }
    }
    return NULL;
  default: return NULL;
  }
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
  return make_op(c, trunc, d->kind, d->noperands, narrow, to);
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

static Value *fold_array_query(Canon *c, Op *op) {
  Op *d = op_operand(op, 0)->def;
  if (d && (d->kind == OP_SUBVIEW || d->kind == OP_REINTERPRET)) return fold_view_query(op);
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
    int p = op->kind == OP_CMPI ? pred_index(op, cmpi_preds) : pred_index(op, cmpf_preds);
    if (p < 0) return false;
    const char *swapped = op->kind == OP_CMPI ? cmpi_swapped[p] : cmpf_swapped[p];
    ir_op_set_attr(c->m, op, "pred", attr_str(c->m, swapped));
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
  uint64_t c1, c2, v;
  Op *d = inner->def;
  if (!d || d->kind != op->kind || !value_const_bits(op_operand(op, 1), &c2) || !value_const_bits(op_operand(d, 1), &c1) ||
      is_const(op_operand(d, 0)))
    return false;
  Type *t = inner->type;
  if (!eval_int_binary(op->kind, ty_int_width(t), t->is_unsigned, c1, c2, &v)) return false;
  Op *old_const = op_operand(op, 1)->def;
  ir_op_set_operand(op, 0, op_operand(d, 0));
  ir_op_set_operand(op, 1, make_int(c, op, t, v));
  wl_push(c, d);
  wl_push(c, old_const);
  return true;
}

static Value *fold_int_binary(Canon *c, Op *op) {
  Value *x = op_operand(op, 0), *y = op_operand(op, 1);
  Type *t = op_result(op, 0)->type;
  unsigned w = ty_int_width(t);
  uint64_t a = 0, b = 0, r, ones = int_mask(w);
  bool ca = value_const_bits(x, &a), cb = value_const_bits(y, &b);
  if (ca && cb) return eval_int_binary(op->kind, w, t->kind == TY_INT && t->is_unsigned, a, b, &r) ? make_int(c, op, t, r) : NULL;
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
  int p = pred_index(op, cmpi_preds);
  if (p < 0) return NULL;
  unsigned w = ty_int_width(x->type);
  uint64_t a = 0, b = 0;
  bool cb = value_const_bits(y, &b);
  if (value_const_bits(x, &a) && cb) return make_int(c, op, i1, eval_cmpi(p, w, a, b));
  if (x == y) return make_int(c, op, i1, p == P_EQ || p == P_SLE || p == P_SGE || p == P_ULE || p == P_UGE);
  if (cb && ty_is_bool(x->type) && ((p == P_NE && b == 0) || (p == P_EQ && b == 1))) return x;
  /* Python truth of a widened bool: (extui b) != 0 is b */
  if (cb && b == 0 && p == P_NE && x->def && x->def->kind == OP_EXTUI && ty_is_bool(op_operand(x->def, 0)->type))
    return op_operand(x->def, 0);
  return NULL;
}

static Value *fold_cmpf(Canon *c, Op *op) {
  double a, b;
  int p = pred_index(op, cmpf_preds);
  if (p < 0 || !value_const_float(op_operand(op, 0), &a) || !value_const_float(op_operand(op, 1), &b)) return NULL;
  return make_int(c, op, op_result(op, 0)->type, eval_cmpf(p, a, b));
}

static Value *fold_select(Canon *c, Op *op) {
  Value *cond = op_operand(op, 0), *x = op_operand(op, 1), *y = op_operand(op, 2);
  uint64_t cv;
  if (value_const_bits(cond, &cv)) return cv ? x : y;
  if (x == y) return x;
  if (ty_is_bool(x->type) && const_is(x, 1) && const_is(y, 0)) return cond;
  return NULL;
}

static Value *fold_float(Canon *c, Op *op) {
  Type *t = op_result(op, 0)->type;
  Value *x = op_operand(op, 0);
  double a, b, r;
  if (op->noperands == 1) {
    if (op->kind == OP_ISNAN || op->kind == OP_ISINF || op->kind == OP_ISFINITE) {
      if (!value_const_float(x, &a)) return NULL;
      bool v = op->kind == OP_ISNAN ? isnan(a) : op->kind == OP_ISINF ? isinf(a) : isfinite(a);
      return make_int(c, op, t, v);
    }
    if (op->kind == OP_NEGF && x->def && x->def->kind == OP_NEGF) return op_operand(x->def, 0);
    if (value_const_float(x, &a) && eval_float_unary(op->kind, t->bits, a, &r)) return make_float(c, op, t, r);
    return NULL;
  }
  Value *y = op_operand(op, 1);
  if (value_const_float(x, &a) && value_const_float(y, &b) && eval_float_binary(op->kind, t->bits, a, b, &r))
    return make_float(c, op, t, r);
  switch (op->kind) {
  case OP_ADDF: return const_f_is(y, -0.0) ? x : NULL;
  case OP_SUBF: return const_f_is(y, 0.0) ? x : NULL;
  case OP_MULF:
  case OP_DIVF: return const_f_is(y, 1.0) ? x : NULL;
  default: return NULL;
  }
}

/* A replacement for the single result of op, or NULL. */
static Value *fold(Canon *c, Op *op) {
  switch (op->kind) {
  case OP_ADDI: case OP_SUBI: case OP_MULI: case OP_DIVSI: case OP_DIVUI: case OP_REMSI: case OP_REMUI:
  case OP_FLOORDIVSI: case OP_FLOORMODSI: case OP_MINSI: case OP_MAXSI: case OP_MINUI: case OP_MAXUI:
  case OP_IPOW: case OP_SHLI: case OP_SHRSI: case OP_SHRUI: case OP_ANDI: case OP_ORI: case OP_XORI:
    return fold_int_binary(c, op);
  case OP_ABSI: case OP_POPC: case OP_CLZ: case OP_FFS: case OP_BREV: {
    uint64_t a, r;
    Type *t = op_result(op, 0)->type;
    if (!value_const_bits(op_operand(op, 0), &a) || !eval_int_unary(op->kind, ty_int_width(op_operand(op, 0)->type), a, &r))
      return NULL;
    return make_int(c, op, t, r);
  }
  case OP_CMPI: return fold_cmpi(c, op);
  case OP_CMPF: return fold_cmpf(c, op);
  case OP_SELECT: return fold_select(c, op);
  case OP_EXTSI: case OP_EXTUI: case OP_TRUNCI: case OP_SITOFP: case OP_UITOFP: case OP_FPTOSI: case OP_FPTOUI:
  case OP_EXTF: case OP_TRUNCF: case OP_BITCAST: {
    Value *v = fold_cast_const(c, op);
    return v ? v : fold_cast_identity(c, op);
  }
  case OP_ADDF: case OP_SUBF: case OP_MULF: case OP_DIVF: case OP_REMF: case OP_FLOORDIVF: case OP_FLOORMODF:
  case OP_MINF: case OP_MAXF: case OP_NEGF: case OP_SQRT: case OP_FLOOR: case OP_CEIL: case OP_TRUNC:
  case OP_ROUND: case OP_FABS: case OP_COPYSIGN: case OP_FMOD: case OP_ISNAN: case OP_ISINF: case OP_ISFINITE:
    return fold_float(c, op);
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
  if (op->kind == OP_VALID && const_is(op_operand(op, 0), 1)) { /* a check that always holds */
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
