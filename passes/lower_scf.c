/* lower_scf.c — lowers structured control flow (scf.if, scf.for, scf.while) to blocks and cf.br /
 * cf.cond_br in the enclosing func.func's region.
 *
 * Requires: valid IR. Preserves: validity and meaning; every op other than scf.* and their terminators
 * is kept (moved between blocks). Breaks: structure — afterwards no scf op remains, functions are CFGs.
 *
 * The scf ops are collected in post-order and lowered innermost first (and, among the ops of one block,
 * the last first, which keeps the splitting of blocks linear), so when an op is lowered its
 * regions already hold plain blocks (several, if something nested was lowered) whose exits end in the
 * op's own scf.yield / scf.condition. Each op is rewritten in place in its block B:
 *   - the ops after it move to a new continuation block (ir_block_splice_tail); the op's results become
 *     its arguments, or, where one branch alone enters it (a loop's exit), that branch's values directly
 *     (the block it leaves dominates the continuation), so no values move on the way out;
 *   - its regions' blocks move into B's region, between B and the continuation;
 *   - scf.if:    B ends in cf.cond_br(c) [then, else]; each scf.yield becomes cf.br [cont(values)].
 *   - scf.for:   rotated, so that no step is taken past the range (Python's trip count, never a wrapped
 *                iv + step near INT64_MAX): B computes the loop's limits once (ib_range_init, ir/builder.c,
 *                the one definition of the tests) and ends in cf.cond_br(lb in range) [body(lb, inits),
 *                cont(inits)]; the body's entry block keeps its arguments (iv, carried...); each scf.yield
 *                becomes cf.cond_br(iv + step in range, tested on iv as iv < ub - step, saturated, or, for a
 *                step of 1 or -1, on iv + step) [body(iv + step, values), cont(values)]; cont's arguments
 *                are the loop's results. A step known only at run time (of a sign the value ranges,
 *                passes/range.h, do not know) is tested in the flipped order
 *                ((x ^ f) < (y ^ f), f = step >> 63: one compare for both directions). A step of 0 runs
 *                while lb < ub, without end (range() refuses it before).
 *   - scf.while: B ends in cf.br [before(inits)]; scf.condition(c, v) becomes cf.cond_br(c)
 *                [after(v), cont(v)] and the after-region's scf.yield(v) becomes cf.br [before(v)]; with
 *                one scf.condition (the usual case), after and cont take no arguments: v replaces them.
 * Branch targets are never a region's entry block (the verifier forbids it): B, or a block before it,
 * stays the entry. */
#include <stdlib.h>

#include "passes.h"
#include "passes/range.h"
#include "utils/mem.h"

typedef struct Lower {
  Module *m;
  IrBuilder b;
  Op **ops;
  signed char *dirs; /* per scf.for in ops: its step's sign where the value ranges know it (1, -1), else 0 */
  size_t n, cap;
} Lower;

static void push_op(Lower *L, Op *op) {
  if (L->n == L->cap) {
    L->cap = L->cap ? L->cap * 2 : 64;
    L->ops = mem_realloc(L->ops, L->cap * sizeof *L->ops);  /* under a guard (mem.h): never NULL */
  }
  L->ops[L->n++] = op;
}

/* Collects the scf ops under b: those nested in an op before the op, and the ops of a block from its
 * last to its first. Lowering a later op first means that splitting a block at an earlier op moves only
 * the ops up to the later op's branch, so every op is moved once: linear time. */
static void collect_block(Lower *L, Block *b) {
  for (Op *op = b->last; op; op = op->prev) {
    for (unsigned r = 0; r < op->nregions; r++)
      for (Block *nb = op->regions[r].first; nb; nb = nb->next) collect_block(L, nb);
    if (op->kind == OP_IF || op->kind == OP_FOR || op->kind == OP_WHILE) push_op(L, op);
  }
}

/* ---- building blocks and branches --------------------------------------------------------------- */

/* A new block after op's block holding the ops after op. op's results are replaced by `values` when given
 * (what the one branch into the block carries), else by new arguments of the block. */
static Block *split_after(Lower *L, Op *op, Value *const *values) {
  Block *b = op->block, *cont = ir_block_new(L->m);
  ir_region_insert_block_after(b->region, b, cont);
  if (op->next) ir_block_splice_tail(cont, op->next);
  for (unsigned i = 0; i < op->nresults; i++) {
    Value *v = values ? values[i] : ir_block_add_arg(L->m, cont, op->results[i].type);
    ir_value_replace_all_uses(op_result(op, i), v);
  }
  return cont;
}

/* Moves every block of `from` into `to` after `after`; returns the last block moved (or `after`). */
static Block *move_blocks(Region *from, Region *to, Block *after) {
  for (Block *b = from->first, *next; b; b = next) {
    next = b->next;
    ir_block_unlink(b);
    ir_region_insert_block_after(to, after, b);
    after = b;
  }
  return after;
}

/* Appends cf.br [dest(args)] to block b. */
static void emit_br(Lower *L, Block *b, SrcLoc loc, Block *dest, unsigned n, Value *const *args) {
  Op *br = ir_op_create(L->m, OP_BR, loc, n, args, 0, NULL, 0);
  ir_op_set_successors(L->m, br, 1, &dest, &n);
  ir_block_append(b, br);
}

/* Appends cf.cond_br(cond) [t(targs), f(fargs)] to block b. */
static void emit_cond_br(Lower *L, Block *b, SrcLoc loc, Value *cond, Block *t, unsigned nt, Value *const *targs,
                         Block *f, unsigned nf, Value *const *fargs) {
  unsigned n = 1 + nt + nf;
  Value **ops = ARENA_ARRAY(&L->m->arena, Value *, n);
  ops[0] = cond;
  for (unsigned i = 0; i < nt; i++) ops[1 + i] = targs[i];
  for (unsigned i = 0; i < nf; i++) ops[1 + nt + i] = fargs[i];
  Op *br = ir_op_create(L->m, OP_COND_BR, loc, n, ops, 0, NULL, 0);
  Block *succs[2] = {t, f};
  unsigned counts[2] = {nt, nf};
  ir_op_set_successors(L->m, br, 2, succs, counts);
  ir_block_append(b, br);
}

/* The operands of op from `start` on, copied (op is about to lose them). */
static Value **operands_from(Lower *L, Op *op, unsigned start) {
  unsigned n = op->noperands - start;
  Value **v = ARENA_ARRAY(&L->m->arena, Value *, n ? n : 1);
  for (unsigned i = 0; i < n; i++) v[i] = op_operand(op, start + i);
  return v;
}

/* Replaces the scf.yield ending each block of r with cf.br [dest(yielded)]. */
static void yields_to_br(Lower *L, Region *r, Block *dest) {
  for (Block *b = r->first; b; b = b->next) {
    Op *y = b->last;
    if (!y || y->kind != OP_YIELD) continue;
    Value **args = operands_from(L, y, 0);
    unsigned n = y->noperands;
    SrcLoc loc = y->loc;
    ir_op_erase(y);
    emit_br(L, b, loc, dest, n, args);
  }
}

/* ---- the three ops -------------------------------------------------------------------------------- */

static void lower_if(Lower *L, Op *op) {
  Block *b = op->block;
  Region *r = b->region;
  Block *cont = split_after(L, op, NULL);
  Block *then_entry = op->regions[0].first, *else_entry = op->regions[1].first;
  yields_to_br(L, &op->regions[0], cont);
  yields_to_br(L, &op->regions[1], cont);
  Block *last = move_blocks(&op->regions[0], r, b);
  move_blocks(&op->regions[1], r, last);
  Value *cond = op_operand(op, 0);
  SrcLoc loc = op->loc;
  ir_op_erase(op);
  emit_cond_br(L, b, loc, cond, then_entry ? then_entry : cont, 0, NULL, else_entry ? else_entry : cont, 0, NULL);
}

static void lower_for(Lower *L, Op *op, int dir) {
  Block *b = op->block;
  Region *r = b->region;
  SrcLoc loc = op->loc;
  Value *lb = op_operand(op, 0), *ub = op_operand(op, 1), *step = op_operand(op, 2);
  unsigned ncarried = op->noperands - 3;
  Value **inits = operands_from(L, op, 3);
  Block *body = op->regions[0].first;
  Block *cont = split_after(L, op, NULL); /* its arguments: the loop's results */

  /* B: what the tests need (ib_range_init), then into the body with (lb, inits) or out with inits */
  L->b.loc = loc;
  ib_set_end(&L->b, b);
  IbRange range = ib_range_init(&L->b, ub, step, dir);
  Value *enter = ib_range_in(&L->b, &range, lb);
  Value **entry_args = ARENA_ARRAY(&L->m->arena, Value *, ncarried + 1);
  entry_args[0] = lb;
  for (unsigned i = 0; i < ncarried; i++) entry_args[1 + i] = inits[i];

  /* each latch: iv + step, and back to the body with it when it is still an item (tested on iv, before the
   * step: no overflow), else out with the carried values */
  Value *iv = body->args[0];
  for (Block *blk = op->regions[0].first; blk; blk = blk->next) {
    Op *y = blk->last;
    if (!y || y->kind != OP_YIELD) continue;
    unsigned n = y->noperands;
    Value **vals = operands_from(L, y, 0);
    Value **back = ARENA_ARRAY(&L->m->arena, Value *, n + 1);
    SrcLoc yloc = y->loc;
    ir_op_erase(y);
    L->b.loc = yloc;
    ib_set_end(&L->b, blk);
    Value *more = ib_range_step(&L->b, &range, iv, &back[0]);
    for (unsigned i = 0; i < n; i++) back[1 + i] = vals[i];
    emit_cond_br(L, blk, yloc, more, body, n + 1, back, cont, n, vals);
  }
  move_blocks(&op->regions[0], r, b);
  ir_op_erase(op);
  emit_cond_br(L, b, loc, enter, body, ncarried + 1, entry_args, cont, ncarried, inits);
}

static void lower_while(Lower *L, Op *op) {
  Block *b = op->block;
  Region *r = b->region;
  SrcLoc loc = op->loc;
  unsigned ninit = op->noperands;
  Value **inits = operands_from(L, op, 0);
  Block *before = op->regions[0].first, *after = op->regions[1].first;

  /* with one scf.condition, its values stand for the after-region's arguments and the loop's results */
  Op *only = NULL;
  unsigned nconditions = 0;
  for (Block *blk = op->regions[0].first; blk; blk = blk->next)
    if (blk->last && blk->last->kind == OP_CONDITION) {
      only = blk->last;
      nconditions++;
    }
  Value **direct = nconditions == 1 ? operands_from(L, only, 1) : NULL;
  Block *cont = split_after(L, op, direct);
  if (direct && after) {
    for (unsigned i = 0; i < after->nargs; i++) ir_value_replace_all_uses(after->args[i], direct[i]);
    while (after->nargs) ir_block_erase_arg(after, after->nargs - 1);
  }

  for (Block *blk = op->regions[0].first; blk; blk = blk->next) {
    Op *t = blk->last;
    if (!t || t->kind != OP_CONDITION) continue;
    Value *c = op_operand(t, 0);
    unsigned n = direct ? 0 : t->noperands - 1;
    Value **vals = operands_from(L, t, 1);
    SrcLoc tloc = t->loc;
    ir_op_erase(t);
    emit_cond_br(L, blk, tloc, c, after, n, vals, cont, n, vals);
  }
  yields_to_br(L, &op->regions[1], before);
  Block *last = move_blocks(&op->regions[0], r, b);
  move_blocks(&op->regions[1], r, last);
  ir_op_erase(op);
  emit_br(L, b, loc, before, ninit, inits);
}

bool pass_lower_scf(Module *m, const PassContext *pc) {
  (void)pc;
  Lower L = {.m = m};
  ib_init(&L.b, m);
  collect_block(&L, ir_module_body(m));
  /* the sign of each run-time step the value ranges know (a grid-stride loop's), asked while all is structured:
   * one compare per iteration instead of the flipped order's two ops */
  L.dirs = mem_alloc(L.n ? L.n : 1);
  RangeAnalysis *ra = NULL;
  for (size_t i = 0; i < L.n; i++) {
    Op *op = L.ops[i];
    int64_t st;
    L.dirs[i] = 0;
    if (op->kind != OP_FOR || value_const_int(op_operand(op, 2), &st)) continue;
    if (!ra) ra = range_analysis_new(m);
    RangeMark mk = range_scope_open(ra);
    range_assume_context(ra, op);
    Range r = range_of_value(ra, op_operand(op, 2));
    range_scope_close(ra, mk);
    L.dirs[i] = (signed char)(r.lo >= 1 ? 1 : r.hi <= -1 ? -1 : 0);
  }
  if (ra) range_analysis_free(ra);
  for (size_t i = 0; i < L.n; i++) {
    Op *op = L.ops[i];
    if (op->kind == OP_IF) lower_if(&L, op);
    else if (op->kind == OP_FOR) lower_for(&L, op, L.dirs[i]);
    else lower_while(&L, op);
  }
  mem_free(L.ops);
  mem_free(L.dirs);
  return true;
}

static bool find_scf(Op *op, void *found) {
  if (op->kind != OP_IF && op->kind != OP_FOR && op->kind != OP_WHILE) return true;
  *(bool *)found = true;
  return false;
}

Module *lower_for_execution(Module *m, Diag *diag) {
  bool found = false, cplx = pass_module_has_complex(m);
  ir_walk_module(m, find_scf, &found);
  if (!found && !cplx && !pass_module_has_contractible(m)) return m;
  Module *c = ir_module_clone(m);
  int64_t options[PASS_MAX_OPTIONS] = {0};
  TargetFacts target = target_facts(90);  /* (neither pass plans with the target) */
  PassContext pc = {diag, options, &target};
  if (cplx && !pass_lower_complex(c, &pc)) { /* complex values first: lower-complex works on scf */
    ir_module_free(c);
    return NULL;
  }
  if (found) pass_lower_scf(c, &pc);
  pass_contract(c, &pc); /* last: it sees the complex arithmetic as floats, and the blocks the backend compiles */
  return c;
}
