/* hoist_checks.c — loop-invariant code motion for bounds checks: the check.bounds ops at the top of an scf.for
 * body that every iteration would repeat are done once, before the loop.
 *
 * Requires: valid structured IR (scf.for; checks in cf form are left alone), best after bce (what it proves is
 * gone). Preserves: validity, every thread's results and the IndexError it reports (the same check, source
 * location, axis, index and extent, and only where the loop would have reached it). Uses the range analysis
 * (passes/range.c) and the affine analysis (passes/affine.c).
 *
 * The prefix of a loop L's body: its ops from the top up to the first one that may have an effect or stop the
 * thread other than a check this pass can move (a store, an atomic, a call, a barrier, an op with regions, a
 * check whose extent changes in L or whose index is neither invariant in L nor L's variable plus an invariant).
 * Pure ops and loads do not end it; a check of the prefix that repeats an earlier one (the same index, extent
 * and axis values) goes. For each check of the prefix, in order, its first iteration's instance
 * (index and extent computed with L's variable := the lower bound) goes before L: since the prefix does
 * nothing observable before its checks, the first iteration fails there exactly when the original fails in
 * its first iteration, with the same check. A check whose index is invariant in L then leaves L (it passes in
 * every iteration once it has passed in the first).
 *
 * A check whose index is L's variable plus an invariant, exactly (affine.h: no wrap-around), step 1: its
 * indices over the loop are the interval [first, last], last computed with L's variable := ub - 1. It leaves L
 * too, replaced by check.bounds(min(last, n), n) after the first iterations' checks, when nothing in the loop
 * can be observed before it fails: L's body (nested regions included) has no store, atomic, call, barrier,
 * scf.while or other check left, and this is the only such check of L. Past the first instance (0 <= first <
 * n), the original fails first at the iteration whose index is n, reporting n; min(last, n) is n exactly when
 * that iteration exists, and an index that passes otherwise.
 *
 * The moved checks go before L when the range analysis proves that L runs at least once, else in an
 * scf.if(lb < ub) there. Loops are visited innermost first, so a check moved out of an inner loop can leave
 * the loop around it too. In the tiled matmul (tile-shared) the checks on i and j leave the loop over a tile,
 * and the one on k (B's rows, which nothing relates to A's columns) is done once per tile on min(k0 + 15, n). */
#include <stdlib.h>

#include "passes.h"
#include "passes/affine.h"
#include "passes/range.h"
#include "utils/mem.h"

enum { HC_MAX_CHECKS = 256 };

typedef struct Hc {
  Module *m;
  RangeAnalysis *ra;
  Op *loop;
  Value *iv;
} Hc;

/* Whether v is computed inside L (an op in it or an argument of one of its blocks). */
static bool inside(Hc *h, Value *v) {
  if (v->def) return ir_op_is_ancestor(h->loop, v->def);
  Op *p = ir_block_parent_op(v->block);
  return p && ir_op_is_ancestor(h->loop, p);
}

/* How v varies in L: 0 invariant (defined outside L, or by pure ops without regions in L from such values),
 * 1 also through L's variable, -1 otherwise (a load, a carried value, a region's result ...). */
static int variance(Hc *h, Value *v, unsigned depth) {
  if (v == h->iv) return 1;
  if (!inside(h, v)) return 0;
  Op *d = v->def;
  if (!d || d->nregions || !op_has(d, OPT_PURE) || depth > 32) return -1;
  int r = 0;
  for (unsigned i = 0; i < d->noperands; i++) {
    int o = variance(h, op_operand(d, i), depth + 1);
    if (o < 0) return -1;
    if (o > r) r = o;
  }
  return r;
}

/* v's computation cloned at b with L's variable := k (values defined outside L used as they are). Only for
 * values of variance >= 0. */
static Value *materialize(Hc *h, IrBuilder *b, Value *v, Value *k, PtrMap *memo) {
  if (v == h->iv) return k;
  if (!inside(h, v)) return v;
  Value *done = ptrmap_get(memo, v);
  if (done) return done;
  Op *d = v->def;
  PtrMap map = {0};
  for (unsigned i = 0; i < d->noperands; i++)
    ptrmap_put(&map, op_operand(d, i), materialize(h, b, op_operand(d, i), k, memo));
  Op *c = ir_op_clone(h->m, d, &map);
  ptrmap_free(&map);
  ib_insert(b, c);
  Value *r = op_result(c, v->index);
  ptrmap_put(memo, v, r);
  return r;
}

/* Whether idx is exactly L's variable plus terms invariant in L (no wrap-around, as affine_of proves). */
static bool iv_plus_invariant(Hc *h, Op *check, Value *idx) {
  RangeMark mk = range_scope_open(h->ra);
  range_assume_context(h->ra, check);
  Affine f;
  bool ok = affine_of(h->ra, idx, &f) && affine_coef(&f, AFF_IV, 0, h->iv) == 1;
  range_scope_close(h->ra, mk);
  return ok;
}

typedef struct Effects {
  Op *skip;          /* the varying check, leaving L */
  bool any;
} Effects;

static bool scan_effects(Op *op, void *user) {
  Effects *e = user;
  if (op == e->skip || op_has(op, OPT_PURE) || op->kind == OP_LOAD || op->kind == OP_FOR || op->kind == OP_IF ||
      op->kind == OP_YIELD)
    return true;
  e->any = true; /* a store, atomic, call, barrier, check, scf.while, return ... */
  return false;
}

/* Whether anything in L's body but the checks leaving it (hoisted[0..n) and vary) can be observed. */
static bool body_observable(Hc *h, Op *const *hoisted, unsigned n, Op *vary) {
  Effects e = {vary, false};
  for (Op *op = h->loop->regions[0].first->first; op && !e.any; op = op->next) {
    bool leaves = false;
    for (unsigned i = 0; i < n; i++) leaves |= op == hoisted[i];
    if (!leaves) ir_walk_pre(op, scan_effects, &e);
  }
  return e.any;
}

/* Whether check repeats one of earlier[0..n): the same index, extent and axis. */
static bool same_as_earlier(Op *check, Op *const *earlier, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    if (op_operand(earlier[i], 0) == op_operand(check, 0) && op_operand(earlier[i], 1) == op_operand(check, 1) &&
        ir_op_attr_int(earlier[i], "axis", 0) == ir_op_attr_int(check, "axis", 0))
      return true;
  return false;
}

static void hoist_loop(Hc *h, Op *L) {
  int64_t step;
  Block *body = L->regions[0].first;
  if (L->kind != OP_FOR || L->noperands < 3 || !body || !body->nargs || !value_const_int(op_operand(L, 2), &step) ||
      step < 1)
    return;
  h->loop = L;
  h->iv = body->args[0];
  /* the prefix's checks, in order */
  Op *checks[HC_MAX_CHECKS], *invariant[HC_MAX_CHECKS], *vary = NULL;
  unsigned n = 0, ninv = 0, nvary = 0;
  for (Op *op = body->first, *next; op && n < HC_MAX_CHECKS; op = next) {
    next = op->next;
    if (op->kind == OP_BOUNDS && same_as_earlier(op, checks, n)) {
      ir_op_erase(op); /* the earlier one passed, in this iteration, on the same values */
      continue;
    }
    if (op->kind == OP_BOUNDS) {
      int vi = variance(h, op_operand(op, 0), 0), vn = variance(h, op_operand(op, 1), 0);
      if (vn != 0 || vi < 0 || (vi == 1 && !iv_plus_invariant(h, op, op_operand(op, 0)))) break;
      checks[n++] = op;
      if (vi == 0) invariant[ninv++] = op;
      else {
        vary = op;
        nvary++;
      }
      continue;
    }
    if (op->nregions || !(op_has(op, OPT_PURE) || op->kind == OP_LOAD)) break;
  }
  if (!n) return;
  /* the varying check leaves L too when it is the only one and nothing else in L can be observed */
  bool whole = nvary == 1 && step == 1 && !body_observable(h, invariant, ninv, vary);
  IrBuilder b;
  ib_init(&b, h->m);
  b.loc = L->loc;
  ib_set_before(&b, L);
  Value *lb = op_operand(L, 0), *ub = op_operand(L, 1);
  RangeMark mk = range_scope_open(h->ra);
  range_assume_context(h->ra, L);
  bool runs = range_prove_le(h->ra, lb, ub, 1);
  range_scope_close(h->ra, mk);
  if (!runs) { /* scf.if(lb < ub) { the checks } */
    Value *c = ib_cmpi(&b, IR_CMPI_SLT, lb, ub);
    Op *g = ib_op(&b, OP_IF, 1, &c, 0, NULL, 2);
    Block *yes = ir_block_new(h->m), *no = ir_block_new(h->m);
    ir_region_append_block(&g->regions[0], yes);
    ir_region_append_block(&g->regions[1], no);
    ib_set_end(&b, no);
    ib_op(&b, OP_YIELD, 0, NULL, 0, NULL, 0);
    ib_set_end(&b, yes);
    Op *y = ib_op(&b, OP_YIELD, 0, NULL, 0, NULL, 0);
    ib_set_before(&b, y);
  }
  PtrMap first = {0};
  for (unsigned i = 0; i < n; i++) {
    Value *ops[2] = {materialize(h, &b, op_operand(checks[i], 0), lb, &first),
                     materialize(h, &b, op_operand(checks[i], 1), lb, &first)};
    PtrMap map = {0};
    ptrmap_put(&map, op_operand(checks[i], 0), ops[0]);
    ptrmap_put(&map, op_operand(checks[i], 1), ops[1]);
    ib_insert(&b, ir_op_clone(h->m, checks[i], &map));
    ptrmap_free(&map);
  }
  ptrmap_free(&first);
  if (whole) {
    PtrMap lastm = {0};
    Value *k = ib_binary(&b, OP_SUBI, ub, ib_const_int(&b, ub->type, 1));
    Value *ext = materialize(h, &b, op_operand(vary, 1), k, &lastm);
    Value *idx = ib_binary(&b, OP_MINSI, materialize(h, &b, op_operand(vary, 0), k, &lastm), ext);
    PtrMap map = {0};
    ptrmap_put(&map, op_operand(vary, 0), idx);
    ptrmap_put(&map, op_operand(vary, 1), ext);
    ib_insert(&b, ir_op_clone(h->m, vary, &map));
    ptrmap_free(&map);
    ptrmap_free(&lastm);
    ir_op_erase(vary);
  }
  for (unsigned i = 0; i < ninv; i++) ir_op_erase(invariant[i]);
}

static bool collect_loops(Op *op, void *user) {
  Op ***list = user;
  if (op->kind == OP_FOR) *(*list)++ = op;
  return true;
}

static bool count_loops(Op *op, void *user) {
  if (op->kind == OP_FOR) ++*(size_t *)user;
  return true;
}

bool pass_hoist_checks(Module *m, const PassContext *pc) {
  (void)pc;
  Hc h = {.m = m, .ra = range_analysis_new(m)};
  for (Op *f = ir_module_body(m)->first; f; f = f->next) {
    if (f->kind != OP_FUNC_FUNC) continue;
    size_t nloops = 0;
    ir_walk_post(f, count_loops, &nloops);
    if (!nloops) continue;
    Op **loops = mem_alloc(nloops * sizeof *loops), **end = loops;  /* under the pipeline's guard: never NULL */
    ir_walk_post(f, collect_loops, &end); /* innermost first */
    for (size_t i = 0; i < nloops; i++) hoist_loop(&h, loops[i]);
    mem_free(loops);
  }
  range_analysis_free(h.ra);
  return true;
}
