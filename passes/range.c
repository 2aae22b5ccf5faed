/* range.c — the value-range analysis (range.h): signed intervals of integer values, computed on demand,
 * narrowed by a stack of facts "a + k <= b" that the client pushes as it walks.
 *
 * All reasoning is about the mathematical values of integers (the bits read as a signed number; an i1 is
 * 0 or 1), so a fact about an i32 holds for its extsi. Two kinds of knowledge:
 *   - ranges: a signed interval per integer value, computed on demand from its definition — constants,
 *     gpu ids within CUDA's launch limits (thread_id in [0, 1023], block_id in [0, 2^31-2], block_dim in
 *     [1, 1024], grid_dim in [1, 2^31-1]), mem.dim/mem.size (>= 0, or the shape of a mem.alloca or
 *     mem.global), ext/trunc/bitcast, add/sub/mul when no wrap-around is possible (else the full range),
 *     min/max, div/rem/floormod by a divisor of known sign, and/or/xor/shifts of non-negative values,
 *     select and scf.if results (each arm under its condition), comparisons the facts decide, the
 *     induction variable of scf.for — then narrowed by the facts about the value where it is asked.
 *     Ranges are cached per value and per state of the fact stack;
 *   - facts "a + k <= b" (a, b values or 0, k a constant) on a stack: the condition of an enclosing scf.if
 *     (negated in the else region; through andi when true, ori when false, xori with true; cmpi of every
 *     predicate, an unsigned one when the bounding side is known non-negative: x <u n with n >= 0 means
 *     0 <= x < n), the bounds of an enclosing scf.for (step > 0: lb <= iv and iv + 1 <= ub; step < 0:
 *     ub + 1 <= iv and iv <= lb), and whatever the client assumes (bce: the condition of a cf.cond_br on the
 *     only edge into a block, each check already passed). Each side is reduced to a base plus a constant
 *     through extsi, extui of a non-negative value, and add/sub of a constant that cannot wrap around (so
 *     `i + 1 < n` is i + 2 <= n); a fact about minsi(x, y) on the right also holds for x and for y (and
 *     maxsi on the left). Facts are chained per term and side; a term is a value, except that mem.dim of
 *     one array and axis, and mem.size of a rank-1 array (axis 0), are one term: the same extent.
 * A query "a + k <= b" is reduced the same way, then holds by ranges (hi(a) + k <= lo(b)), by a fact on
 * the same terms with a constant >= k, by the shape of a or b (min/max, select and scf.if results in each
 * arm under its condition, x + y or x - y without wrap-around, x % d <= d - 1 for d >= 1 and <= x for
 * x >= 0, x / d, x & m and x >> c <= x for x >= 0), or by up to two steps of transitivity through the
 * newest facts on a or b. Queries have a depth limit and each a work budget (and the fact chains looked at
 * are bounded), so a query costs at most a constant.
 *
 * Per value the analysis keeps a record (found through a pointer map): its memo and its term. Terms index
 * the heads of the fact chains.
 *
 * Semantics relied on (ops.def): scf.for is Python's range — the body sees lb <= iv < ub for step > 0
 * (ub < iv <= lb for step < 0) and the induction variable never wraps around; floordivsi and floormodsi
 * by zero give 0; divsi/remsi/divui/remui by a divisor that may be zero give no range at all. */
#include "passes/range.h"

#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"
#include "utils/mem.h"
#include "utils/ptrmap.h"

enum {
  MAX_DEPTH = 24,     /* nesting of range and proof queries */
  MAX_BUDGET = 4000,  /* range computations and proof steps per query */
  MAX_CHAIN = 64,     /* facts (the newest) looked at on one term and side */
  MAX_TRANS = 8,      /* facts (the newest) tried for a step of transitivity (two steps at most) */
  MAX_COND_DEPTH = 6, /* andi/ori/xori levels looked through for facts */
};

/* a + k <= b; a or b NULL stands for 0. Facts are chained per term of each side (newest first). */
typedef struct Fact {
  Value *a, *b;
  i128 k;
  unsigned ta, tb;        /* the terms of a and b */
  size_t prev_a, prev_b;  /* the previous fact with the same term on that side, or NONE */
} Fact;

#define NONE ((size_t)-1)

typedef struct Memo {
  uint64_t gen;       /* the fact-stack state r was computed in */
  Range r;
  bool valid, busy;
} Memo;

typedef struct Info {
  Memo memo;
  unsigned term;
} Info;

struct RangeAnalysis {
  Module *m;
  Fact *facts;
  size_t nfacts, cap;
  uint64_t gen, next_gen;  /* each distinct fact-stack state has its own generation */
  PtrMap index;            /* Value * -> 1 + its record's index in infos */
  Info *infos;
  unsigned ninfos, infos_cap;
  PtrMap extents;          /* array Value * -> unsigned[rank]: 1 + the term of each axis' extent, or 0 */
  size_t *head_a, *head_b; /* per term: the newest fact with it on the left / right, or NONE */
  unsigned nterms, terms_cap; /* term 0 is the constant 0 (a NULL side) */
  unsigned depth;
  unsigned trans;          /* steps of transitivity in the proof under way */
  int budget;
};

/* Passes run under a guard (utils/mem.h): an allocation failure unwinds to it and never returns NULL here. */
static void *xrealloc(void *p, size_t size) { return mem_realloc(p, size ? size : 1); }

/* ---- ranges --------------------------------------------------------------------------------- */

static Range rng(i128 lo, i128 hi) { return (Range){lo, hi}; }
static bool is_empty(Range r) { return r.lo > r.hi; }
static i128 min128(i128 a, i128 b) { return a < b ? a : b; }
static i128 max128(i128 a, i128 b) { return a > b ? a : b; }

static bool is_intlike(const Type *t) { return t->kind == TY_INT || t->kind == TY_BOOL; }

static Range type_range(const Type *t) {
  if (t->kind == TY_BOOL) return rng(0, 1);
  if (t->kind == TY_INT) {
    i128 h = ((i128)1 << (t->bits - 1)) - 1;
    return rng(-h - 1, h);
  }
  return rng(INT64_MIN, INT64_MAX); /* not asked for */
}

static Range meet(Range a, Range b) { return rng(max128(a.lo, b.lo), min128(a.hi, b.hi)); }

static Range hull(Range a, Range b) {
  if (is_empty(a)) return b;
  if (is_empty(b)) return a;
  return rng(min128(a.lo, b.lo), max128(a.hi, b.hi));
}

/* r if it lies within t's range (the operation did not wrap around), else all of t. */
static Range fit(Range r, const Type *t) {
  Range f = type_range(t);
  return is_empty(r) || (r.lo >= f.lo && r.hi <= f.hi) ? r : f;
}

/* The (mathematical) value of an integer or i1 constant. */
static bool const_value(const Value *v, i128 *out) {
  uint64_t bits;
  if (!is_intlike(v->type) || !value_const_bits(v, &bits)) return false;
  *out = v->type->kind == TY_BOOL ? (i128)bits : (i128)int_sext(bits, v->type->bits);
  return true;
}

/* ---- the fact stack ----------------------------------------------------------------------------- */

static void new_gen(RangeAnalysis *s) { s->gen = ++s->next_gen; }

static RangeMark scope_open(RangeAnalysis *s) {
  RangeMark mk = {s->nfacts, s->gen};
  new_gen(s);
  return mk;
}

static void scope_close(RangeAnalysis *s, RangeMark mk) {
  while (s->nfacts > mk.nfacts) {
    const Fact *f = &s->facts[--s->nfacts];
    s->head_a[f->ta] = f->prev_a;
    s->head_b[f->tb] = f->prev_b;
  }
  s->gen = mk.gen;
}

static Range range_of(RangeAnalysis *s, Value *v);
static bool prove(RangeAnalysis *s, Value *a, Value *b, i128 k);
static void assume(RangeAnalysis *s, Value *c, bool truth, unsigned depth);

/* The array extent v stands for: mem.dim(a){axis}, or mem.size(a) of a rank-1 array (axis 0). */
static bool extent_of(const Value *v, const Value **array, int64_t *axis) {
  const Op *d = v ? v->def : NULL;
  if (!d) return false;
  if (d->kind == OP_DIM) {
    *array = op_operand(d, 0);
    *axis = ir_op_attr_int(d, "axis", -1);
    return true;
  }
  if (d->kind == OP_SIZE && ty_is_array(op_operand(d, 0)->type) && op_operand(d, 0)->type->rank == 1) {
    *array = op_operand(d, 0);
    *axis = 0;
    return true;
  }
  return false;
}

/* The record of v (created on first sight): its memo and its term. NULL has no record. */
static unsigned info_of(RangeAnalysis *s, const Value *v);

/* The term a value stands for (values of one term always have the same value): NULL (0) is term 0. */
static unsigned term_of(RangeAnalysis *s, const Value *v) {
  if (!v) return 0;
  unsigned idx = info_of(s, v); /* first: it may move infos */
  return s->infos[idx].term;
}

static bool same_term(RangeAnalysis *s, const Value *a, const Value *b) {
  if (a == b) return true;
  return term_of(s, a) == term_of(s, b);
}

/* Reduces v to base + *off (the base NULL for a constant) through extsi, extui of a non-negative value,
 * integer bitcasts, and add/sub of a constant that cannot wrap around. */
static Value *normalize(RangeAnalysis *s, Value *v, i128 *off) {
  *off = 0;
  for (unsigned steps = 0; v && steps < 16; steps++) {
    i128 c;
    if (const_value(v, &c)) {
      *off += c;
      return NULL;
    }
    Op *d = v->def;
    if (!d || v->type->kind != TY_INT) break;
    Value *x = d->noperands ? op_operand(d, 0) : NULL;
    if ((d->kind == OP_EXTSI || d->kind == OP_BITCAST) && x->type->kind == TY_INT) {
      v = x;
    } else if (d->kind == OP_EXTUI && x->type->kind == TY_INT && range_of(s, x).lo >= 0) {
      v = x;
    } else if ((d->kind == OP_ADDI || d->kind == OP_SUBI) && (const_value(op_operand(d, 1), &c) ||
                                                             (d->kind == OP_ADDI && const_value(x, &c)))) {
      Value *y = const_value(op_operand(d, 1), &c) ? x : op_operand(d, 1);
      if (d->kind == OP_SUBI) c = -c;
      Range r = range_of(s, y), t = type_range(v->type);
      if (is_empty(r) || r.lo + c < t.lo || r.hi + c > t.hi) break;
      *off += c;
      v = y;
    } else {
      break;
    }
  }
  return v;
}

static void push_fact(RangeAnalysis *s, Value *a, Value *b, i128 k) {
  if (s->nfacts == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    s->facts = xrealloc(s->facts, s->cap * sizeof *s->facts);
  }
  unsigned ta = term_of(s, a), tb = term_of(s, b);
  s->facts[s->nfacts] = (Fact){a, b, k, ta, tb, s->head_a[ta], s->head_b[tb]};
  s->head_a[ta] = s->head_b[tb] = s->nfacts++;
  new_gen(s);
}

/* Records a + k <= b (a, b values or NULL), reduced, and through minsi on the right and maxsi on the
 * left. */
static void add_fact(RangeAnalysis *s, Value *a, Value *b, i128 k, unsigned depth) {
  if ((a && !is_intlike(a->type)) || (b && !is_intlike(b->type))) return;
  i128 ao = 0, bo = 0;
  if (a) a = normalize(s, a, &ao);
  if (b) b = normalize(s, b, &bo);
  k += ao - bo;
  if (same_term(s, a, b)) return; /* trivial (or a contradiction: the code is dead; nothing to gain) */
  push_fact(s, a, b, k);
  if (depth >= 3) return;
  if (b && b->def && b->def->kind == OP_MINSI) {
    add_fact(s, a, op_operand(b->def, 0), k, depth + 1);
    add_fact(s, a, op_operand(b->def, 1), k, depth + 1);
  }
  if (a && a->def && a->def->kind == OP_MAXSI) {
    add_fact(s, op_operand(a->def, 0), b, k, depth + 1);
    add_fact(s, op_operand(a->def, 1), b, k, depth + 1);
  }
}

/* The predicate that holds when p does not: the negation of x <p> y. */
static const IrCmpIPred pred_negated[] = {
    [IR_CMPI_EQ] = IR_CMPI_NE,   [IR_CMPI_NE] = IR_CMPI_EQ,   [IR_CMPI_SLT] = IR_CMPI_SGE, [IR_CMPI_SLE] = IR_CMPI_SGT,
    [IR_CMPI_SGT] = IR_CMPI_SLE, [IR_CMPI_SGE] = IR_CMPI_SLT, [IR_CMPI_ULT] = IR_CMPI_UGE, [IR_CMPI_ULE] = IR_CMPI_UGT,
    [IR_CMPI_UGT] = IR_CMPI_ULE, [IR_CMPI_UGE] = IR_CMPI_ULT};

/* Facts of x <pred> y. An unsigned comparison says something about signed values when the side that
 * bounds the other is known non-negative: x <u y with y >= 0 means 0 <= x < y. */
static void add_cmp_facts(RangeAnalysis *s, IrCmpIPred p, Value *x, Value *y) {
  switch (p) {
  case IR_CMPI_EQ: add_fact(s, x, y, 0, 0); add_fact(s, y, x, 0, 0); break;
  case IR_CMPI_SLT: add_fact(s, x, y, 1, 0); break;
  case IR_CMPI_SLE: add_fact(s, x, y, 0, 0); break;
  case IR_CMPI_SGT: add_fact(s, y, x, 1, 0); break;
  case IR_CMPI_SGE: add_fact(s, y, x, 0, 0); break;
  case IR_CMPI_ULT:
  case IR_CMPI_ULE:
    if (range_of(s, y).lo >= 0) {
      add_fact(s, NULL, x, 0, 0);
      add_fact(s, x, y, p == IR_CMPI_ULT, 0);
    }
    break;
  case IR_CMPI_UGT:
  case IR_CMPI_UGE:
    if (range_of(s, x).lo >= 0) {
      add_fact(s, NULL, y, 0, 0);
      add_fact(s, y, x, p == IR_CMPI_UGT, 0);
    }
    break;
  default: break;
  }
}

/* Records that the i1 value c is `truth`, and what that says about the values it compares. */
static void assume(RangeAnalysis *s, Value *c, bool truth, unsigned depth) {
  if (!ty_is_bool(c->type)) return;
  if (truth) push_fact(s, NULL, c, 1); /* 1 <= c */
  else push_fact(s, c, NULL, 0);       /* c <= 0 */
  Op *d = c->def;
  if (!d || depth >= MAX_COND_DEPTH) return;
  i128 k;
  switch (d->kind) {
  case OP_CMPI: {
    IrCmpIPred p = ir_op_cmpi_pred(d);
    if (p != IR_CMPI_INVALID && !ty_is_bool(op_operand(d, 0)->type))
      add_cmp_facts(s, truth ? p : pred_negated[p], op_operand(d, 0), op_operand(d, 1));
    break;
  }
  case OP_ANDI:
    if (truth) {
      assume(s, op_operand(d, 0), true, depth + 1);
      assume(s, op_operand(d, 1), true, depth + 1);
    }
    break;
  case OP_ORI:
    if (!truth) {
      assume(s, op_operand(d, 0), false, depth + 1);
      assume(s, op_operand(d, 1), false, depth + 1);
    }
    break;
  case OP_XORI: /* not c */
    if (const_value(op_operand(d, 1), &k)) assume(s, op_operand(d, 0), truth != (k != 0), depth + 1);
    else if (const_value(op_operand(d, 0), &k)) assume(s, op_operand(d, 1), truth != (k != 0), depth + 1);
    break;
  default: break;
  }
}

/* ---- value ranges ----------------------------------------------------------------------------- */

/* 1 or 0 if the i1 value c is known, else -1. */
static int decided(RangeAnalysis *s, Value *c) {
  Range r = range_of(s, c);
  if (r.lo == r.hi) return r.lo != 0;
  return -1;
}

/* The range of v in the current context with c assumed to be `truth`. */
static Range range_assuming(RangeAnalysis *s, Value *c, bool truth, Value *v) {
  RangeMark mk = scope_open(s);
  assume(s, c, truth, 0);
  Range r = range_of(s, v);
  scope_close(s, mk);
  return r;
}

/* The value yielded for result `index` by region r of an scf.if, or NULL. */
static Value *yielded(Region *r, unsigned index) {
  Block *b = r->first;
  if (!b || b != r->last || !b->last || b->last->kind != OP_YIELD || index >= b->last->noperands) return NULL;
  return op_operand(b->last, index);
}

static Range arm_range(RangeAnalysis *s, Op *ifop, unsigned arm, unsigned index, const Type *t) {
  Value *v = yielded(&ifop->regions[arm], index);
  return v ? range_assuming(s, op_operand(ifop, 0), arm == 0, v) : type_range(t);
}

static Range extent_range(RangeAnalysis *s, Op *d) {
  const Attr *shape = value_static_shape(s->m, op_operand(d, 0));
  Range any = rng(0, INT64_MAX);
  if (!shape) return any;
  if (d->kind == OP_DIM) {
    int64_t axis = ir_op_attr_int(d, "axis", -1);
    if (axis < 0 || (uint64_t)axis >= shape->arr.n) return any;
    return rng(shape->arr.elems[axis].i, shape->arr.elems[axis].i);
  }
  i128 n = 1;
  for (unsigned i = 0; i < shape->arr.n && n <= INT64_MAX; i++) n *= shape->arr.elems[i].i;
  return n <= INT64_MAX ? rng(n, n) : any;
}

/* Division of a range by a range of positive divisors; floor or toward zero (monotone in both). */
static i128 div128(i128 a, i128 b, bool floor) {
  i128 q = a / b;
  if (floor && a % b != 0 && (a < 0) != (b < 0)) q--;
  return q;
}

static Range div_range(Range x, Range d, bool floor) {
  i128 c[4] = {div128(x.lo, d.lo, floor), div128(x.lo, d.hi, floor), div128(x.hi, d.lo, floor),
               div128(x.hi, d.hi, floor)};
  Range r = rng(c[0], c[0]);
  for (int i = 1; i < 4; i++) r = hull(r, rng(c[i], c[i]));
  return r;
}

/* 2^k - 1 for the smallest k with 2^k - 1 >= v (v >= 0): a bound on or/xor of values in [0, v]. */
static i128 bit_ceiling(i128 v) {
  i128 m = 0;
  while (m < v) m = m * 2 + 1;
  return m;
}

/* The range of the induction variable of an scf.for: between lb and ub (exclusive), either way. */
static Range iv_range(RangeAnalysis *s, Op *loop) {
  Range lb = range_of(s, op_operand(loop, 0)), ub = range_of(s, op_operand(loop, 1));
  Range st = range_of(s, op_operand(loop, 2));
  if (is_empty(lb) || is_empty(ub) || is_empty(st)) return rng(1, 0);
  if (st.lo >= 1) return rng(lb.lo, ub.hi - 1);
  if (st.hi <= -1) return rng(ub.lo + 1, lb.hi);
  return rng(min128(lb.lo, ub.lo + 1), max128(lb.hi, ub.hi - 1));
}

static int cmp_decide(RangeAnalysis *s, int p, Value *x, Value *y);

/* The range of v from its definition (and, through range_of, the ranges of its operands). */
static Range def_range(RangeAnalysis *s, Value *v) {
  const Type *t = v->type;
  Range full = type_range(t);
  i128 c;
  if (const_value(v, &c)) return rng(c, c);
  Op *d = v->def;
  if (!d) {
    Op *parent = ir_block_parent_op(v->block);
    if (parent && parent->kind == OP_FOR && v->index == 0 && v->block == parent->regions[0].first)
      return iv_range(s, parent);
    return full;
  }
  switch (d->kind) { /* the ops whose range does not come from their operands' ranges */
  case OP_THREAD_ID: return rng(0, 1023);
  case OP_BLOCK_ID: return rng(0, INT32_MAX - 1);
  case OP_BLOCK_DIM: return rng(1, 1024);
  case OP_GRID_DIM: return rng(1, INT32_MAX);
  case OP_LANE_ID: return rng(0, 31);
  case OP_WARP_SIZE: return rng(32, 32);
  case OP_DIM:
  case OP_SIZE: return extent_range(s, d);
  case OP_CMPI: {
    IrCmpIPred p = ir_op_cmpi_pred(d);
    int r = p == IR_CMPI_INVALID ? -1 : cmp_decide(s, p, op_operand(d, 0), op_operand(d, 1));
    return r < 0 ? full : rng(r, r);
  }
  case OP_SELECT: {
    Value *cond = op_operand(d, 0);
    int k = decided(s, cond);
    if (k >= 0) return range_of(s, op_operand(d, k ? 1 : 2));
    return hull(range_assuming(s, cond, true, op_operand(d, 1)), range_assuming(s, cond, false, op_operand(d, 2)));
  }
  case OP_IF: {
    int k = decided(s, op_operand(d, 0));
    if (k >= 0) return arm_range(s, d, k ? 0 : 1, v->index, t);
    return hull(arm_range(s, d, 0, v->index, t), arm_range(s, d, 1, v->index, t));
  }
  default: break;
  }
  if (!op_has(d, OPT_PURE) || d->noperands < 1 || d->noperands > 2 || d->nresults != 1) return full;
  for (unsigned i = 0; i < d->noperands; i++)
    if (!is_intlike(op_operand(d, i)->type)) return full;
  Range x = range_of(s, op_operand(d, 0)), y = d->noperands == 2 ? range_of(s, op_operand(d, 1)) : x;
  if (is_empty(x) || is_empty(y)) return rng(1, 0);
  bool boolean = t->kind == TY_BOOL;
  switch (d->kind) {
  case OP_EXTSI:
    if (op_operand(d, 0)->type->kind == TY_BOOL) return rng(x.hi == 0 ? 0 : -1, x.lo == 0 ? 0 : -1);
    return x;
  case OP_EXTUI: {
    if (op_operand(d, 0)->type->kind == TY_BOOL || x.lo >= 0) return x;
    i128 span = (i128)1 << op_operand(d, 0)->type->bits;
    if (x.hi < 0) return rng(x.lo + span, x.hi + span);
    return rng(0, span - 1);
  }
  case OP_TRUNCI: return boolean ? full : fit(x, t);
  case OP_BITCAST: return is_intlike(op_operand(d, 0)->type) && !boolean ? x : full;
  case OP_ADDI:
    if (boolean) return full;
    return fit(rng(x.lo + y.lo, x.hi + y.hi), t);
  case OP_SUBI:
    if (boolean) return full;
    return fit(rng(x.lo - y.hi, x.hi - y.lo), t);
  case OP_MULI: {
    if (boolean) return full;
    i128 p[4] = {x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi}; /* |p| < 2^126 */
    Range r = rng(p[0], p[0]);
    for (int i = 1; i < 4; i++) r = hull(r, rng(p[i], p[i]));
    return fit(r, t);
  }
  case OP_MINSI: return rng(min128(x.lo, y.lo), min128(x.hi, y.hi));
  case OP_MAXSI: return rng(max128(x.lo, y.lo), max128(x.hi, y.hi));
  case OP_MINUI:
    if (x.lo >= 0 && y.lo >= 0) return rng(min128(x.lo, y.lo), min128(x.hi, y.hi));
    if (x.lo >= 0) return rng(0, x.hi); /* the other is huge as unsigned */
    if (y.lo >= 0) return rng(0, y.hi);
    return full;
  case OP_MAXUI:
    if (x.lo >= 0 && y.lo >= 0) return rng(max128(x.lo, y.lo), max128(x.hi, y.hi));
    return full;
  case OP_DIVSI:
    if (y.lo >= 1) return fit(div_range(x, y, false), t);
    return full;
  case OP_FLOORDIVSI:
    if (y.lo >= 1) return fit(div_range(x, y, true), t);
    if (y.lo >= 0 && y.hi >= 1) return fit(hull(div_range(x, rng(1, y.hi), true), rng(0, 0)), t); /* x // 0 = 0 */
    return full;
  case OP_DIVUI:
    if (x.lo >= 0 && y.lo >= 1) return div_range(x, y, false);
    return full;
  case OP_REMSI:
    if (y.lo >= 1 || y.hi <= -1) {
      i128 m = max128(y.lo < 0 ? -y.lo : y.lo, y.hi < 0 ? -y.hi : y.hi) - 1; /* |x % y| <= m */
      if (x.lo >= 0) return rng(0, min128(x.hi, m));
      if (x.hi <= 0) return rng(max128(x.lo, -m), 0);
      return rng(-m, m);
    }
    return full;
  case OP_REMUI:
    if (y.lo >= 1) return rng(0, x.lo >= 0 ? min128(x.hi, y.hi - 1) : y.hi - 1);
    return full;
  case OP_FLOORMODSI:
    if (y.lo >= 0) { /* x % 0 = 0 */
      Range r = rng(0, max128(y.hi - 1, 0));
      if (x.lo >= 0) r.hi = min128(r.hi, x.hi);
      return r;
    }
    if (y.hi <= 0) return rng(min128(y.lo + 1, 0), 0);
    return rng(y.lo + 1, y.hi - 1);
  case OP_ANDI:
    if (boolean) return rng(min128(x.lo, y.lo), min128(x.hi, y.hi));
    if (x.lo >= 0 && y.lo >= 0) return rng(0, min128(x.hi, y.hi));
    if (x.lo >= 0) return rng(0, x.hi);
    if (y.lo >= 0) return rng(0, y.hi);
    return full;
  case OP_ORI:
    if (boolean) return rng(max128(x.lo, y.lo), max128(x.hi, y.hi));
    if (x.lo >= 0 && y.lo >= 0) return rng(max128(x.lo, y.lo), bit_ceiling(max128(x.hi, y.hi)));
    return full;
  case OP_XORI:
    if (boolean) return x.lo == x.hi && y.lo == y.hi ? rng(x.lo ^ y.lo, x.lo ^ y.lo) : full;
    if (x.lo >= 0 && y.lo >= 0) return rng(0, bit_ceiling(max128(x.hi, y.hi)));
    return full;
  case OP_SHLI:
    if (!boolean && x.lo >= 0 && y.lo >= 0 && y.hi < (i128)t->bits)
      return fit(rng(x.lo << (int)y.lo, x.hi << (int)y.hi), t);
    return full;
  case OP_SHRSI:
    if (!boolean && y.lo >= 0 && y.hi < (i128)t->bits)
      return rng(x.lo >= 0 ? x.lo >> (int)y.hi : x.lo >> (int)y.lo, x.hi >= 0 ? x.hi >> (int)y.lo : x.hi >> (int)y.hi);
    return full;
  case OP_SHRUI:
    if (!boolean && x.lo >= 0 && y.lo >= 0 && y.hi < (i128)t->bits) return rng(x.lo >> (int)y.hi, x.hi >> (int)y.lo);
    if (!boolean && y.lo >= 1 && y.hi < (i128)t->bits) return rng(0, (((i128)1 << t->bits) - 1) >> (int)y.lo);
    return full;
  case OP_ABSI:
    if (x.lo >= 0) return x;
    if (x.lo == full.lo) return full;
    if (x.hi <= 0) return rng(-x.hi, -x.lo);
    return rng(0, max128(-x.lo, x.hi));
  case OP_POPC:
  case OP_CLZ:
  case OP_FFS: return boolean ? full : rng(0, t->bits);
  default: return full;
  }
}

/* Narrows r, the range of v, by the facts that bound v itself. */
static Range refine(RangeAnalysis *s, Value *v, Range r) {
  unsigned t = term_of(s, v), n = 0;
  /* copies, not pointers: range_of below may push facts (and move the array); it pops them again */
  for (size_t i = s->head_a[t]; i != NONE && !is_empty(r) && n < MAX_CHAIN; i = s->facts[i].prev_a, n++) {
    Fact f = s->facts[i]; /* v + k <= b: v <= hi(b) - k */
    r.hi = min128(r.hi, (f.b ? range_of(s, f.b).hi : 0) - f.k);
  }
  n = 0;
  for (size_t i = s->head_b[t]; i != NONE && !is_empty(r) && n < MAX_CHAIN; i = s->facts[i].prev_b, n++) {
    Fact f = s->facts[i]; /* a + k <= v: v >= lo(a) + k */
    r.lo = max128(r.lo, (f.a ? range_of(s, f.a).lo : 0) + f.k);
  }
  return r;
}

static Range range_of(RangeAnalysis *s, Value *v) {
  Range full = type_range(v->type);
  if (!is_intlike(v->type)) return full;
  unsigned idx = info_of(s, v);
  Memo *e = &s->infos[idx].memo;
  if (e->valid && e->gen == s->gen) return e->r;
  if (e->busy || s->depth >= MAX_DEPTH || s->budget <= 0) return full;
  s->budget--;
  s->depth++;
  e->busy = true;
  uint64_t gen = s->gen;
  Range r = refine(s, v, meet(full, def_range(s, v)));
  e = &s->infos[idx].memo; /* infos may have moved */
  e->busy = false;
  s->depth--;
  /* the stack is back in the state r was computed in (assumptions made on the way were undone) */
  if (s->gen == gen) {
    e->gen = gen;
    e->r = r;
    e->valid = true;
  }
  return r;
}

/* ---- proofs ------------------------------------------------------------------------------------- */

/* 1 if x <p> y is known true, 0 if known false, -1 if unknown. */
static int cmp_decide(RangeAnalysis *s, int p, Value *x, Value *y) {
  if (p >= IR_CMPI_ULT) { /* the same order as signed when both sides have the same sign */
    Range rx = range_of(s, x), ry = range_of(s, y);
    bool same_sign = (rx.lo >= 0 && ry.lo >= 0) || (rx.hi < 0 && ry.hi < 0);
    if (!same_sign) return -1;
    p = p - IR_CMPI_ULT + IR_CMPI_SLT;
  }
  switch (p) {
  case IR_CMPI_EQ:
  case IR_CMPI_NE: {
    int eq = -1;
    if (same_term(s, x, y)) eq = 1;
    else if (prove(s, x, y, 1) || prove(s, y, x, 1)) eq = 0;
    else {
      Range rx = range_of(s, x), ry = range_of(s, y);
      if (rx.lo == rx.hi && ry.lo == ry.hi) eq = rx.lo == ry.lo;
    }
    return eq < 0 ? -1 : p == IR_CMPI_EQ ? eq : !eq;
  }
  case IR_CMPI_SLT: return prove(s, x, y, 1) ? 1 : prove(s, y, x, 0) ? 0 : -1;
  case IR_CMPI_SLE: return prove(s, x, y, 0) ? 1 : prove(s, y, x, 1) ? 0 : -1;
  case IR_CMPI_SGT: return prove(s, y, x, 1) ? 1 : prove(s, x, y, 0) ? 0 : -1;
  case IR_CMPI_SGE: return prove(s, y, x, 0) ? 1 : prove(s, x, y, 1) ? 0 : -1;
  default: return -1;
  }
}

/* prove a + k <= b with c assumed to be `truth`. */
static bool prove_assuming(RangeAnalysis *s, Value *c, bool truth, Value *a, Value *b, i128 k) {
  RangeMark mk = scope_open(s);
  assume(s, c, truth, 0);
  bool ok = prove(s, a, b, k);
  scope_close(s, mk);
  return ok;
}

/* Whether x + y (or x - y) of the op d cannot wrap around. */
static bool no_wrap(RangeAnalysis *s, Op *d) {
  Range x = range_of(s, op_operand(d, 0)), y = range_of(s, op_operand(d, 1)), t = type_range(op_result(d, 0)->type);
  Range r = d->kind == OP_ADDI ? rng(x.lo + y.lo, x.hi + y.hi) : rng(x.lo - y.hi, x.hi - y.lo);
  return !is_empty(x) && !is_empty(y) && r.lo >= t.lo && r.hi <= t.hi;
}

/* a + k <= b by the shape of a's definition (a a reduced base, not NULL). */
static bool prove_by_lhs(RangeAnalysis *s, Op *d, Value *b, i128 k) {
  Value *x = d->noperands >= 1 ? op_operand(d, 0) : NULL, *y = d->noperands >= 2 ? op_operand(d, 1) : NULL;
  switch (d->kind) {
  case OP_MINSI: return prove(s, x, b, k) || prove(s, y, b, k);
  case OP_MAXSI: return prove(s, x, b, k) && prove(s, y, b, k);
  case OP_SELECT: {
    int c = decided(s, x);
    if (c >= 0) return prove(s, op_operand(d, c ? 1 : 2), b, k);
    return prove_assuming(s, x, true, y, b, k) && prove_assuming(s, x, false, op_operand(d, 2), b, k);
  }
  case OP_ADDI: {
    if (!no_wrap(s, d)) return false;
    /* x + y + k <= b: from y against b (i + n < n when i < 0), or from the range of the other addend */
    if (same_term(s, y, b) && prove(s, x, NULL, k)) return true;
    if (same_term(s, x, b) && prove(s, y, NULL, k)) return true;
    Range rx = range_of(s, x), ry = range_of(s, y);
    return prove(s, x, b, k + ry.hi) || prove(s, y, b, k + rx.hi);
  }
  case OP_SUBI: {
    if (!no_wrap(s, d)) return false;
    return prove(s, x, b, k - range_of(s, y).lo);
  }
  case OP_REMSI:
  case OP_REMUI:
  case OP_FLOORMODSI:
    /* x % y <= y - 1 when y >= 1 (each of the three), and x % y <= x when also x >= 0 */
    if (prove(s, NULL, y, 1)) {
      if (prove(s, y, b, k - 1)) return true;
      return range_of(s, x).lo >= 0 && prove(s, x, b, k);
    }
    return false;
  case OP_DIVSI:
  case OP_DIVUI:
  case OP_FLOORDIVSI: /* x / y <= x when x >= 0 and y >= 1 */
    return range_of(s, x).lo >= 0 && range_of(s, y).lo >= 1 && prove(s, x, b, k);
  case OP_SHRSI:
  case OP_SHRUI: {
    Range ry = range_of(s, y);
    return range_of(s, x).lo >= 0 && ry.lo >= 0 && ry.hi < (i128)x->type->bits && prove(s, x, b, k);
  }
  case OP_ANDI: /* x & y <= x when x >= 0 */
    if (x->type->kind != TY_INT) return false;
    return (range_of(s, x).lo >= 0 && prove(s, x, b, k)) || (range_of(s, y).lo >= 0 && prove(s, y, b, k));
  default: return false;
  }
}

/* a + k <= b by the shape of b's definition (b a reduced base, not NULL). */
static bool prove_by_rhs(RangeAnalysis *s, Value *a, Op *d, i128 k) {
  Value *x = d->noperands >= 1 ? op_operand(d, 0) : NULL, *y = d->noperands >= 2 ? op_operand(d, 1) : NULL;
  switch (d->kind) {
  case OP_MINSI: return prove(s, a, x, k) && prove(s, a, y, k);
  case OP_MAXSI: return prove(s, a, x, k) || prove(s, a, y, k);
  case OP_SELECT: {
    int c = decided(s, x);
    if (c >= 0) return prove(s, a, op_operand(d, c ? 1 : 2), k);
    return prove_assuming(s, x, true, a, y, k) && prove_assuming(s, x, false, a, op_operand(d, 2), k);
  }
  case OP_ADDI: {
    if (!no_wrap(s, d)) return false;
    Range rx = range_of(s, x), ry = range_of(s, y);
    return prove(s, a, x, k - ry.lo) || prove(s, a, y, k - rx.lo);
  }
  case OP_SUBI: {
    /* a + k <= x - y: for a = 0 from y + k <= x (0 <= n - 1 - i), else from the range of y */
    if (!no_wrap(s, d)) return false;
    if (!a && prove(s, y, x, k)) return true;
    return prove(s, a, x, k + range_of(s, y).hi);
  }
  default: return false;
  }
}

/* a + k <= b where a (lhs) or b is a result of an scf.if: in each arm that may run, under its condition. */
static bool prove_if_arms(RangeAnalysis *s, Value *a, Value *b, i128 k, bool lhs) {
  Value *v = lhs ? a : b, *c = op_operand(v->def, 0);
  int taken = decided(s, c);
  for (unsigned arm = 0; arm < 2; arm++) {
    if (taken >= 0 && taken != (arm == 0)) continue;
    Value *w = yielded(&v->def->regions[arm], v->index);
    if (!w || !prove_assuming(s, c, arm == 0, lhs ? w : a, lhs ? b : w, k)) return false;
  }
  return true;
}

/* a + k <= b, a and b values or NULL. */
static bool prove(RangeAnalysis *s, Value *a, Value *b, i128 k) {
  if ((a && !is_intlike(a->type)) || (b && !is_intlike(b->type))) return false;
  if (s->depth >= MAX_DEPTH || s->budget <= 0) return false;
  s->budget--;
  s->depth++;
  bool ok = false;
  i128 ao = 0, bo = 0;
  if (a) a = normalize(s, a, &ao);
  if (b) b = normalize(s, b, &bo);
  k += ao - bo;
  if (same_term(s, a, b)) {
    ok = k <= 0;
    goto done;
  }
  Range ra = a ? range_of(s, a) : rng(0, 0), rb = b ? range_of(s, b) : rng(0, 0);
  if (is_empty(ra) || is_empty(rb) || ra.hi + k <= rb.lo) {
    ok = true;
    goto done;
  }
  /* a fact with the same terms, found along the chain of the side that is not 0 */
  unsigned ta = term_of(s, a), tb = term_of(s, b);
  unsigned n = 0;
  if (a) {
    for (size_t i = s->head_a[ta]; i != NONE && !ok && n < MAX_CHAIN; i = s->facts[i].prev_a, n++)
      ok = s->facts[i].tb == tb && s->facts[i].k >= k;
  } else {
    for (size_t i = s->head_b[tb]; i != NONE && !ok && n < MAX_CHAIN; i = s->facts[i].prev_b, n++)
      ok = s->facts[i].ta == ta && s->facts[i].k >= k;
  }
  if (ok) goto done;
  /* the shape of a's or b's definition */
  if (a && a->def) ok = a->def->kind == OP_IF ? prove_if_arms(s, a, b, k, true) : prove_by_lhs(s, a->def, b, k);
  if (!ok && b && b->def) ok = b->def->kind == OP_IF ? prove_if_arms(s, a, b, k, false) : prove_by_rhs(s, a, b->def, k);
  /* up to two steps of transitivity through the newest facts on a or on b:
   * a + f.k <= f.b and f.b + (k - f.k) <= b, or a + (k - f.k) <= f.a and f.a + f.k <= b */
  if (!ok && s->trans < 2) {
    s->trans++;
    n = 0;
    for (size_t i = s->head_a[ta]; i != NONE && !ok && n < MAX_TRANS; i = s->facts[i].prev_a, n++) {
      Fact f = s->facts[i];
      if (f.b && f.tb != tb) ok = prove(s, f.b, b, k - f.k);
    }
    n = 0;
    for (size_t i = s->head_b[tb]; i != NONE && !ok && n < MAX_TRANS; i = s->facts[i].prev_b, n++) {
      Fact f = s->facts[i];
      if (f.a && f.ta != ta) ok = prove(s, a, f.a, k - f.k);
    }
    s->trans--;
  }
done:
  s->depth--;
  return ok;
}

/* ---- records and terms ------------------------------------------------------------------------ */

static unsigned new_term(RangeAnalysis *s) {
  if (s->nterms == s->terms_cap) {
    s->terms_cap = s->terms_cap ? s->terms_cap * 2 : 64;
    s->head_a = xrealloc(s->head_a, s->terms_cap * sizeof *s->head_a);
    s->head_b = xrealloc(s->head_b, s->terms_cap * sizeof *s->head_b);
  }
  s->head_a[s->nterms] = s->head_b[s->nterms] = NONE;
  return s->nterms++;
}

/* Every value its own term, but the extents of one array axis share one. */
static unsigned term_for(RangeAnalysis *s, const Value *v) {
  const Value *array;
  int64_t axis;
  if (!extent_of(v, &array, &axis) || !ty_is_array(array->type) || axis < 0 || axis >= (int64_t)array->type->rank)
    return new_term(s);
  unsigned *terms = ptrmap_get(&s->extents, array);
  if (!terms) {
    terms = xrealloc(NULL, array->type->rank * sizeof *terms);
    memset(terms, 0, array->type->rank * sizeof *terms);
    ptrmap_put(&s->extents, array, terms);
  }
  if (!terms[axis]) terms[axis] = new_term(s) + 1;
  return terms[axis] - 1;
}

static unsigned info_of(RangeAnalysis *s, const Value *v) {
  uintptr_t x = (uintptr_t)ptrmap_get(&s->index, v);
  if (x) return (unsigned)(x - 1);
  if (s->ninfos == s->infos_cap) {
    s->infos_cap = s->infos_cap ? s->infos_cap * 2 : 64;
    s->infos = xrealloc(s->infos, s->infos_cap * sizeof *s->infos);
  }
  unsigned term = term_for(s, v), idx = s->ninfos++;
  memset(&s->infos[idx], 0, sizeof s->infos[idx]);
  s->infos[idx].term = term;
  ptrmap_put(&s->index, v, (void *)(uintptr_t)(idx + 1));
  return idx;
}

/* ---- the public queries ---------------------------------------------------------------------- */

RangeAnalysis *range_analysis_new(Module *m) {
  RangeAnalysis *s = xrealloc(NULL, sizeof *s);
  memset(s, 0, sizeof *s);
  s->m = m;
  new_term(s); /* term 0: the constant 0 */
  return s;
}

void range_analysis_free(RangeAnalysis *s) {
  if (!s) return;
  for (size_t i = 0; i < s->extents.cap; i++)
    if (s->extents.keys && s->extents.keys[i]) mem_free(s->extents.vals[i]);
  ptrmap_free(&s->extents);
  ptrmap_free(&s->index);
  mem_free(s->infos);
  mem_free(s->head_a);
  mem_free(s->head_b);
  mem_free(s->facts);
  mem_free(s);
}

/* Each public call is one query: a fresh budget. */
static void begin(RangeAnalysis *s) { s->budget = MAX_BUDGET; }

RangeMark range_scope_open(RangeAnalysis *s) { return scope_open(s); }
void range_scope_close(RangeAnalysis *s, RangeMark mk) { scope_close(s, mk); }

void range_assume(RangeAnalysis *s, Value *c, bool truth) {
  begin(s);
  assume(s, c, truth, 0);
}

void range_assume_le(RangeAnalysis *s, Value *a, Value *b, i128 k) {
  begin(s);
  add_fact(s, a, b, k, 0);
}

void range_assume_in_bounds(RangeAnalysis *s, Value *i, Value *n) {
  begin(s);
  add_fact(s, NULL, i, 0, 0);
  add_fact(s, i, n, 1, 0);
}

void range_enter_region(RangeAnalysis *s, Op *op, unsigned ri) {
  begin(s);
  if (op->kind == OP_IF) {
    assume(s, op_operand(op, 0), ri == 0, 0);
  } else if (op->kind == OP_FOR && op->noperands >= 3 && op->regions[0].first && op->regions[0].first->nargs) {
    Value *lb = op_operand(op, 0), *ub = op_operand(op, 1), *iv = op->regions[0].first->args[0];
    Range st = range_of(s, op_operand(op, 2));
    if (st.lo >= 1) {
      add_fact(s, lb, iv, 0, 0);
      add_fact(s, iv, ub, 1, 0);
    } else if (st.hi <= -1) {
      add_fact(s, iv, lb, 0, 0);
      add_fact(s, ub, iv, 1, 0);
    }
  }
}

void range_assume_context(RangeAnalysis *s, Op *op) {
  Block *b = op->block;
  Op *parent = b ? ir_block_parent_op(b) : NULL;
  if (!parent || parent->kind == OP_FUNC_FUNC) return;
  range_assume_context(s, parent);
  for (unsigned ri = 0; ri < parent->nregions; ri++)
    if (b->region == &parent->regions[ri]) range_enter_region(s, parent, ri);
}

Range range_of_value(RangeAnalysis *s, Value *v) {
  begin(s);
  return range_of(s, v);
}

bool range_prove_le(RangeAnalysis *s, Value *a, Value *b, i128 k) {
  begin(s);
  return prove(s, a, b, k);
}

Value *range_reduce(RangeAnalysis *s, Value *v, i128 *off) {
  begin(s);
  return normalize(s, v, off);
}

Range range_of_type(const Type *t) { return type_range(t); }
