/* affine.c — the affine analysis (affine.h): integer indices as sums of constant multiples of threadIdx,
 * blockIdx*blockDim, loop induction variables and loop-invariant symbols.
 *
 * affine_of walks v's definition: constants; extsi, and extui of a value known non-negative (a gpu id, or
 * by the range analysis); addi, subi; muli and shli by a constant; muli of blockIdx.d and blockDim.d (through
 * extsi/extui, either order) is the term bbase.d; gpu.thread_id is tid.d; an scf.for's induction variable
 * is iv; an arith.select whose condition the range analysis decides is the operand it picks (Python's
 * negative-index wrap-around, `i - 1 < 0 ? i - 1 + n : i - 1`, under a guard i >= 1); any other invariant
 * value (affine_is_invariant) is a symbol — so is an invariant add/mul that could wrap around. Anything else
 * (loads, other selects, divisions of thread-dependent values, region results) is not affine. Terms with equal (kind, dim, value) are merged; coefficients that would overflow an int64
 * make the value not affine. Depth-limited (a deep chain is not affine); no state, no IR changes. */
#include "passes/affine.h"

#include <string.h>

#include "passes/passes.h"

enum { AFF_MAX_DEPTH = 32 };

static bool is_gpu_id(const Value *v) {
  Op *d = v->def;
  return d && (d->kind == OP_THREAD_ID || d->kind == OP_BLOCK_ID || d->kind == OP_BLOCK_DIM ||
               d->kind == OP_GRID_DIM || d->kind == OP_LANE_ID || d->kind == OP_WARP_SIZE);
}

static bool is_loop_iv(const Value *v) {
  if (v->def || !v->block || v->index != 0) return false;
  Op *p = ir_block_parent_op(v->block);
  return p && p->kind == OP_FOR && v->block == p->regions[0].first;
}

static bool invariant(Value *v, unsigned depth) {
  if (depth > AFF_MAX_DEPTH) return false;
  Op *d = v->def;
  if (!d) { /* a block argument: only the function's parameters */
    Op *p = ir_block_parent_op(v->block);
    return p && p->kind == OP_FUNC_FUNC && v->block == p->regions[0].first;
  }
  switch (d->kind) {
  case OP_THREAD_ID: case OP_LANE_ID: case OP_LANEMASK_LT: return false;
  case OP_BLOCK_ID: case OP_BLOCK_DIM: case OP_GRID_DIM: case OP_WARP_SIZE: case OP_CONSTANT: return true;
  default: break;
  }
  if (!op_has(d, OPT_PURE) || d->nregions) return false;
  for (unsigned i = 0; i < d->noperands; i++)
    if (!invariant(op_operand(d, i), depth + 1)) return false;
  return true;
}

bool affine_is_invariant(Value *v) { return invariant(v, 0); }

/* Through extsi, and extui of a non-negative value. */
static Value *strip_ext(RangeAnalysis *ra, Value *v) {
  for (;;) {
    Op *d = v->def;
    if (!d || (d->kind != OP_EXTSI && d->kind != OP_EXTUI)) return v;
    Value *x = op_operand(d, 0);
    if (!ty_is_int(x->type)) return v;
    if (d->kind == OP_EXTUI && !is_gpu_id(x) && !(ra && range_of_value(ra, x).lo >= 0)) return v;
    v = x;
  }
}

static bool add_term(Affine *f, AffKind kind, unsigned dim, Value *v, int64_t coef) {
  for (unsigned i = 0; i < f->n; i++) {
    AffTerm *t = &f->t[i];
    if (t->kind != kind || t->dim != dim || t->v != v) continue;
    if (__builtin_add_overflow(t->coef, coef, &t->coef)) return false;
    if (t->coef == 0) {
      memmove(t, t + 1, (f->n - i - 1) * sizeof *t);
      f->n--;
    }
    return true;
  }
  if (coef == 0) return true;
  if (f->n == AFF_MAX_TERMS) return false;
  f->t[f->n++] = (AffTerm){kind, dim, v, coef};
  return true;
}

/* f += scale * g */
static bool add_scaled(Affine *f, const Affine *g, int64_t scale) {
  int64_t c;
  if (__builtin_mul_overflow(g->c, scale, &c) || __builtin_add_overflow(f->c, c, &f->c)) return false;
  for (unsigned i = 0; i < g->n; i++) {
    int64_t k;
    if (__builtin_mul_overflow(g->t[i].coef, scale, &k) || !add_term(f, g->t[i].kind, g->t[i].dim, g->t[i].v, k))
      return false;
  }
  return true;
}

/* Whether the op's integer result cannot wrap around (unknown without a range analysis: assumed). */
static bool fits(RangeAnalysis *ra, Op *d) {
  if (!ra) return true;
  Range x = range_of_value(ra, op_operand(d, 0)), y = range_of_value(ra, op_operand(d, 1));
  Range t = range_of_type(op_result(d, 0)->type), r;
  if (range_is_empty(x) || range_is_empty(y)) return false;
  switch (d->kind) {
  case OP_ADDI: r = (Range){x.lo + y.lo, x.hi + y.hi}; break;
  case OP_SUBI: r = (Range){x.lo - y.hi, x.hi - y.lo}; break;
  case OP_MULI: {
    /* |values| < 2^64 each: the products fit an i128 */
    i128 p[4] = {x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi};
    r = (Range){p[0], p[0]};
    for (int i = 1; i < 4; i++) {
      if (p[i] < r.lo) r.lo = p[i];
      if (p[i] > r.hi) r.hi = p[i];
    }
    break;
  }
  default: return false;
  }
  return r.lo >= t.lo && r.hi <= t.hi;
}

static bool const_of(Value *v, int64_t *c) {
  uint64_t bits;
  if (!ty_is_int(v->type) || !value_const_bits(v, &bits)) return false;
  *c = int_sext(bits, v->type->bits);
  return true;
}

static bool gpu_dim_of(Value *v, OpKind kind, unsigned *dim) {
  Op *d = v->def;
  if (!d || d->kind != kind) return false;
  *dim = (unsigned)ir_op_attr_int(d, "dim", 0);
  return *dim <= 2;
}

static bool form(RangeAnalysis *ra, Value *v, Affine *f, unsigned depth);

/* v is an invariant value that is not looked into: a symbol (constants fold into f->c). */
static bool symbol(Value *v, Affine *f) {
  int64_t c;
  if (const_of(v, &c)) {
    f->c = c;
    return true;
  }
  return add_term(f, AFF_SYM, 0, v, 1);
}

static bool form(RangeAnalysis *ra, Value *v, Affine *f, unsigned depth) {
  memset(f, 0, sizeof *f);
  if (!ty_is_int(v->type) || depth > AFF_MAX_DEPTH) return false;
  int64_t c;
  if (const_of(v, &c)) {
    f->c = c;
    return true;
  }
  v = strip_ext(ra, v);
  if (is_loop_iv(v)) return add_term(f, AFF_IV, 0, v, 1);
  unsigned dim;
  if (gpu_dim_of(v, OP_THREAD_ID, &dim)) return add_term(f, AFF_TID, dim, NULL, 1);
  Op *d = v->def;
  bool inv = invariant(v, 0);
  if (ra && d && d->kind == OP_SELECT) { /* a select the ranges decide (Python's negative-index wrap-around) */
    Range c = range_of_value(ra, op_operand(d, 0));
    if (c.lo == c.hi && (c.lo == 0 || c.lo == 1)) return form(ra, op_operand(d, c.lo ? 1 : 2), f, depth + 1);
  }
  if (!d || d->nresults != 1 || d->noperands != 2) return inv && symbol(v, f);
  Value *x = op_operand(d, 0), *y = op_operand(d, 1);
  Affine a, b;
  switch (d->kind) {
  case OP_ADDI:
  case OP_SUBI:
    if (!fits(ra, d) || !form(ra, x, &a, depth + 1) || !form(ra, y, &b, depth + 1)) break;
    *f = a;
    if (add_scaled(f, &b, d->kind == OP_ADDI ? 1 : -1)) return true;
    break;
  case OP_MULI: {
    Value *sx = strip_ext(ra, x), *sy = strip_ext(ra, y);
    unsigned dx, dy;
    if (((gpu_dim_of(sx, OP_BLOCK_ID, &dx) && gpu_dim_of(sy, OP_BLOCK_DIM, &dy)) ||
         (gpu_dim_of(sx, OP_BLOCK_DIM, &dx) && gpu_dim_of(sy, OP_BLOCK_ID, &dy))) && dx == dy)
      return add_term(f, AFF_BBASE, dx, NULL, 1); /* < 2^31 * 2^10: never wraps in i64 */
    int64_t k;
    Value *other = const_of(y, &k) ? x : const_of(x, &k) ? y : NULL;
    if (!other || !fits(ra, d) || !form(ra, other, &a, depth + 1)) break;
    if (add_scaled(f, &a, k)) return true;
    break;
  }
  case OP_SHLI: {
    int64_t k;
    if (!const_of(y, &k) || k < 0 || k > 62 || !form(ra, x, &a, depth + 1)) break;
    if (ra) { /* x << k is x * 2^k when that fits */
      Range r = range_of_value(ra, x), t = range_of_type(v->type);
      if (range_is_empty(r) || r.lo * ((i128)1 << k) < t.lo || r.hi * ((i128)1 << k) > t.hi) break;
    }
    if (add_scaled(f, &a, (int64_t)1 << k)) return true;
    break;
  }
  default:
    break;
  }
  memset(f, 0, sizeof *f);
  return inv && symbol(v, f);
}

bool affine_of(RangeAnalysis *ra, Value *v, Affine *out) { return form(ra, v, out, 0); }

int64_t affine_coef(const Affine *f, AffKind kind, unsigned dim, const Value *v) {
  for (unsigned i = 0; i < f->n; i++)
    if (f->t[i].kind == kind && f->t[i].dim == dim && f->t[i].v == v) return f->t[i].coef;
  return 0;
}

static void print_loc(const Op *op, StrBuf *out) {
  if (op && op->loc.line) sb_printf(out, "@%u", op->loc.line);
}

void affine_print(const Affine *f, StrBuf *out) {
  static const char xyz[] = "xyz";
  for (unsigned i = 0; i < f->n; i++) {
    const AffTerm *t = &f->t[i];
    sb_printf(out, "%s%lld*", i ? " + " : "", (long long)t->coef);
    switch (t->kind) {
    case AFF_TID: sb_printf(out, "tid.%c", xyz[t->dim]); break;
    case AFF_BBASE: sb_printf(out, "bbase.%c", xyz[t->dim]); break;
    case AFF_IV:
      sb_puts(out, "iv");
      print_loc(ir_block_parent_op(t->v->block), out);
      break;
    case AFF_SYM:
      sb_puts(out, "sym(");
      if (!t->v->def) sb_printf(out, "arg %u", t->v->index);
      else {
        sb_puts(out, op_name(t->v->def));
        print_loc(t->v->def, out);
      }
      sb_putc(out, ')');
      break;
    }
  }
  if (f->c || !f->n) sb_printf(out, "%s%lld", f->n ? " + " : "", (long long)f->c);
}
