/* bce.c — bounds-check elimination: erases each check.bounds(%i, %n) that can be proven never to fail.
 *
 * Requires: valid IR. Works best on structured form after canonicalize and cse (constants and static
 * extents folded, equal mem.dim ops merged); on cf form it uses the conditions of dominating branches but
 * knows nothing of loop induction variables (block arguments), nor does it use scf.while's condition.
 * Preserves: validity, block structure, every op but the erased checks (they have no results), hence
 * dominance and every fact about values. Uses Block.id as scratch.
 * Option report (default 0): 1 puts a note at each check that stays, saying what could not be proven.
 *
 * A check goes when both 0 <= i and i + 1 <= n are proven at its position. The proofs are the range
 * analysis's (passes/range.c: value ranges and facts "a + k <= b"); this pass is the walk that tells it
 * what holds where, one scope per region: the condition of an enclosing scf.if (negated in the else
 * region), the bounds of an enclosing scf.for, the condition of a cf.cond_br on the only edge into a block
 * (for every block that block dominates), and each check already passed (0 <= i and i + 1 <= n: a failed
 * check ends the thread). */
#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "passes/range.h"
#include "utils/mem.h"

typedef struct Bce {
  Module *m;
  Diag *diag;
  bool report;
  RangeAnalysis *ra;
  Op *func;               /* the function being walked */
} Bce;

/* Passes run under a guard (mem.h): an allocation failure unwinds to it, never returns NULL here. */
static void *xrealloc(void *p, size_t size) { return mem_realloc(p, size ? size : 1); }

/* ---- the walk ------------------------------------------------------------------------------------ */

static void print_range(StrBuf *sb, Range r, const Type *t) {
  Range f = range_of_type(t);
  if (range_is_empty(r) || range_is_full(r, t)) return;
  if (r.lo > f.lo && r.hi < f.hi) sb_printf(sb, "; index in [%lld, %lld]", (long long)r.lo, (long long)r.hi);
  else if (r.lo > f.lo) sb_printf(sb, "; index >= %lld", (long long)r.lo);
  else sb_printf(sb, "; index <= %lld", (long long)r.hi);
}

static void report_kept(Bce *s, Op *op, bool lower, bool upper) {
  StrBuf sb;
  sb_init(&sb);
  Value *i = op_operand(op, 0);
  sb_printf(&sb, "bounds check on axis %lld kept: cannot prove ", (long long)ir_op_attr_int(op, "axis", 0));
  if (!lower && !upper) sb_puts(&sb, "0 <= index < extent");
  else if (!lower) sb_puts(&sb, "index >= 0");
  else sb_puts(&sb, "index < extent (no dominating guard or loop bound relates them)");
  print_range(&sb, range_of_value(s->ra, i), i->type);
  i128 off;
  Value *base = range_reduce(s->ra, i, &off);
  if (base && !base->def && base->block == ir_func_entry(s->func) && !ir_op_attr(s->func, "kernel"))
    sb_printf(&sb, "; the index is an argument of device function @%s, of which nothing is known here",
              ir_func_name(s->func));
  diag_remark(s->diag, op->loc, "%s", sb_cstr(&sb));
  sb_free(&sb);
}

static void visit_check(Bce *s, Op *op) {
  Value *i = op_operand(op, 0), *n = op_operand(op, 1);
  bool lower = range_prove_le(s->ra, NULL, i, 0);
  bool upper = range_prove_le(s->ra, i, n, 1);
  if (lower && upper) ir_op_erase(op);
  else if (s->report) report_kept(s, op, lower, upper);
  /* past the check, it held (a failed check ends the thread) */
  range_assume_in_bounds(s->ra, i, n);
}

static void walk_region(Bce *s, Region *r);

static void walk_block(Bce *s, Block *b) {
  for (Op *op = b->first, *next; op; op = next) {
    next = op->next;
    if (op->kind == OP_BOUNDS) {
      visit_check(s, op);
      continue;
    }
    for (unsigned ri = 0; ri < op->nregions; ri++) {
      RangeMark mk = range_scope_open(s->ra);
      range_enter_region(s->ra, op, ri);
      walk_region(s, &op->regions[ri]);
      range_scope_close(s->ra, mk);
    }
  }
}

/* A region of several blocks (cf form): walk its dominator tree, one scope per block; a block entered
 * only through one edge of a cf.cond_br learns that edge's condition. Uses Block.id as scratch. */
static void walk_cfg(Bce *s, Region *r) {
  /* per block: the number of in-region edges into it, and the source and successor slot of the last */
  unsigned nb = 0;
  for (Block *b = r->first; b; b = b->next) b->id = nb++;
  unsigned *npred = xrealloc(NULL, nb * sizeof *npred), *pslot = xrealloc(NULL, nb * sizeof *pslot);
  Block **pred = xrealloc(NULL, nb * sizeof *pred);
  memset(npred, 0, nb * sizeof *npred);
  for (Block *b = r->first; b; b = b->next) {
    Op *t = b->last;
    for (unsigned k = 0; t && k < t->nsuccessors; k++) {
      Block *to = t->successors[k];
      if (!to || to->region != r) continue;
      npred[to->id]++;
      pred[to->id] = b;
      pslot[to->id] = k;
    }
  }

  DomTree *dt = dom_compute(r);
  unsigned n;
  Block *const *order = dom_preorder(dt, &n);
  Block **open = xrealloc(NULL, n * sizeof *open); /* the blocks whose scopes are open, innermost last */
  RangeMark *marks = xrealloc(NULL, n * sizeof *marks);
  unsigned sp = 0;
  for (unsigned k = 0; k < n; k++) {
    Block *b = order[k], *idom = dom_idom(dt, b);
    while (sp && open[sp - 1] != idom) range_scope_close(s->ra, marks[--sp]);
    open[sp] = b;
    marks[sp++] = range_scope_open(s->ra);
    if (idom && npred[b->id] == 1) {
      Op *t = pred[b->id]->last;
      if (t->kind == OP_COND_BR && t->successors[0] != t->successors[1]) {
        range_assume(s->ra, op_operand(t, 0), pslot[b->id] == 0);
      }
    }
    walk_block(s, b);
  }
  while (sp) range_scope_close(s->ra, marks[--sp]);
  /* unreachable blocks never run; walk them for the report, with what holds around the region */
  for (Block *b = r->first; b; b = b->next) {
    if (dom_block_reachable(dt, b)) continue;
    RangeMark mk = range_scope_open(s->ra);
    walk_block(s, b);
    range_scope_close(s->ra, mk);
  }

  dom_free(dt);
  mem_free(marks);
  mem_free(open);
  mem_free(pred);
  mem_free(pslot);
  mem_free(npred);
}

static void walk_region(Bce *s, Region *r) {
  if (!r->first) return;
  if (r->first != r->last) walk_cfg(s, r);
  else walk_block(s, r->first);
}

/* ---- the pass -------------------------------------------------------------------------------------- */

bool pass_bce(Module *m, const PassContext *pc) {
  Bce s = {0};
  s.m = m;
  s.diag = pc->diag;
  s.report = pc->options[0] != 0;
  s.ra = range_analysis_new(m);
  for (Op *f = ir_module_body(m)->first; f; f = f->next) {
    if (f->kind != OP_FUNC_FUNC) continue;
    s.func = f;
    RangeMark mk = range_scope_open(s.ra);
    walk_region(&s, &f->regions[0]);
    range_scope_close(s.ra, mk);
  }
  range_analysis_free(s.ra);
  return true;
}
