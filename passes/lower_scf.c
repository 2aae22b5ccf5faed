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
 *   - scf.for:   B ends in cf.br [header(lb, inits)]; the header block has the induction variable and
 *                the carried values as arguments (the body's entry arguments are replaced by them) and
 *                ends in cf.cond_br(cond) [body, cont]; the loop's results are the header's carried
 *                arguments; cond follows Python's range: iv < ub
 *                for a step > 0, iv > ub for a step < 0; with a constant step that compare, else
 *                (iv ^ f) < (ub ^ f) with f = step >> 63 (all ones counting down: ~iv < ~ub is iv > ub;
 *                f and ub ^ f computed once in B). A step of 0 runs while iv < ub, without end. Each
 *                scf.yield becomes iv + step and cf.br [header(next iv, values)].
 *   - scf.while: B ends in cf.br [before(inits)]; scf.condition(c, v) becomes cf.cond_br(c)
 *                [after(v), cont(v)] and the after-region's scf.yield(v) becomes cf.br [before(v)]; with
 *                one scf.condition (the usual case), after and cont take no arguments: v replaces them.
 * Branch targets are never a region's entry block (the verifier forbids it): B, or a block before it,
 * stays the entry. */
#include <stdlib.h>

#include "passes.h"
#include "utils/mem.h"

typedef struct Lower {
  Module *m;
  IrBuilder b;
  Op **ops;
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

/* Replaces the scf.yield ending each block of r with cf.br [dest(iv + step, yielded)] (for a loop: step
 * non-NULL) or cf.br [dest(yielded)]. */
static void yields_to_br(Lower *L, Region *r, Block *dest, Value *iv, Value *step) {
  for (Block *b = r->first; b; b = b->next) {
    Op *y = b->last;
    if (!y || y->kind != OP_YIELD) continue;
    unsigned extra = step ? 1 : 0, n = y->noperands + extra;
    Value **args = ARENA_ARRAY(&L->m->arena, Value *, n ? n : 1);
    if (step) {
      ib_set_before(&L->b, y);
      L->b.loc = y->loc;
      args[0] = ib_binary(&L->b, OP_ADDI, iv, step);
    }
    for (unsigned i = 0; i < y->noperands; i++) args[extra + i] = op_operand(y, i);
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
  yields_to_br(L, &op->regions[0], cont, NULL, NULL);
  yields_to_br(L, &op->regions[1], cont, NULL, NULL);
  Block *last = move_blocks(&op->regions[0], r, b);
  move_blocks(&op->regions[1], r, last);
  Value *cond = op_operand(op, 0);
  SrcLoc loc = op->loc;
  ir_op_erase(op);
  emit_cond_br(L, b, loc, cond, then_entry ? then_entry : cont, 0, NULL, else_entry ? else_entry : cont, 0, NULL);
}

static void lower_for(Lower *L, Op *op) {
  Block *b = op->block;
  Region *r = b->region;
  SrcLoc loc = op->loc;
  Value *lb = op_operand(op, 0), *ub = op_operand(op, 1), *step = op_operand(op, 2);
  unsigned ncarried = op->noperands - 3;
  Value **inits = operands_from(L, op, 3);
  Block *body = op->regions[0].first;

  /* header(iv, carried...) takes the place of the body's entry arguments and of the loop's results */
  Block *header = ir_block_new(L->m);
  Value **hargs = ARENA_ARRAY(&L->m->arena, Value *, ncarried + 1);
  hargs[0] = ir_block_add_arg(L->m, header, lb->type);
  for (unsigned i = 0; i < ncarried; i++) hargs[1 + i] = ir_block_add_arg(L->m, header, inits[i]->type);
  Block *cont = split_after(L, op, hargs + 1);
  ir_region_insert_block_after(r, b, header);
  for (unsigned i = 0; i < body->nargs && i <= ncarried; i++) ir_value_replace_all_uses(body->args[i], hargs[i]);
  while (body->nargs) ir_block_erase_arg(body, body->nargs - 1);
  yields_to_br(L, &op->regions[0], header, hargs[0], step);
  move_blocks(&op->regions[0], r, header);
  ir_op_erase(op);

  /* B: the loop's direction (when the step is not constant), then into the header */
  L->b.loc = loc;
  ib_set_end(&L->b, b);
  int64_t st;
  bool const_step = value_const_int(step, &st);
  Value *flip = NULL, *ub_flipped = NULL;
  if (!const_step) {
    /* all ones counting down, else 0: iv > ub is ~iv < ~ub, so one compare serves both directions */
    flip = ib_binary(&L->b, OP_SHRSI, step, ib_const_int(&L->b, step->type, (int64_t)step->type->bits - 1));
    ub_flipped = ib_binary(&L->b, OP_XORI, ub, flip);
  }
  Value **entry_args = ARENA_ARRAY(&L->m->arena, Value *, ncarried + 1);
  entry_args[0] = lb;
  for (unsigned i = 0; i < ncarried; i++) entry_args[1 + i] = inits[i];
  emit_br(L, b, loc, header, ncarried + 1, entry_args);

  /* header: iv < ub (counting up) or iv > ub (counting down) */
  ib_set_end(&L->b, header);
  Value *cond;
  if (const_step) cond = ib_cmpi(&L->b, st > 0 ? "slt" : "sgt", hargs[0], ub);
  else cond = ib_cmpi(&L->b, "slt", ib_binary(&L->b, OP_XORI, hargs[0], flip), ub_flipped);
  emit_cond_br(L, header, loc, cond, body, 0, NULL, cont, 0, NULL);
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
  yields_to_br(L, &op->regions[1], before, NULL, NULL);
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
  for (size_t i = 0; i < L.n; i++) {
    Op *op = L.ops[i];
    if (op->kind == OP_IF) lower_if(&L, op);
    else if (op->kind == OP_FOR) lower_for(&L, op);
    else lower_while(&L, op);
  }
  mem_free(L.ops);
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
  PassContext pc = {diag, options};
  if (cplx && !pass_lower_complex(c, &pc)) { /* complex values first: lower-complex works on scf */
    ir_module_free(c);
    return NULL;
  }
  if (found) pass_lower_scf(c, &pc);
  pass_contract(c, &pc); /* last: it sees the complex arithmetic as floats, and the blocks the backend compiles */
  return c;
}
