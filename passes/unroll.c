/* unroll.c — full unrolling of the scf.for loops marked `unroll` (tile-shared marks the loop over a whole tile:
 * a constant trip count, run after hoist-checks has taken the checks out of it).
 *
 * Requires: valid structured IR. Preserves: validity and every thread's results (the body runs for the same
 * values of the induction variable in the same order; only the loop's bookkeeping goes).
 * Options: max-ops (the most ops the copies may add; a larger loop stays, its attribute dropped).
 *
 * A marked scf.for whose lower bound, upper bound and step are integer constants (step > 0) becomes, in
 * place, one copy of its body per iteration: the induction variable the iteration's constant, the carried
 * values the previous copy's yields (the loop's initial values for the first); the loop's results are the
 * last copy's yields (its initial values when it runs no iteration). Loops are visited innermost first, so a
 * marked loop inside a marked loop is unrolled in each copy. */
#include "passes.h"

typedef struct Unroll {
  Module *m;
  int64_t max_ops;
  Op **loops;
  size_t n, cap;
} Unroll;

static bool collect(Op *op, void *user) {
  Unroll *u = user;
  if (op->kind != OP_FOR || !ir_op_attr(op, "unroll")) return true;
  if (u->n == u->cap) {
    size_t cap = u->cap ? 2 * u->cap : 16;
    Op **l = ARENA_ARRAY(&u->m->arena, Op *, cap);
    for (size_t i = 0; i < u->n; i++) l[i] = u->loops[i];
    u->loops = l;
    u->cap = cap;
  }
  u->loops[u->n++] = op;
  return true;
}

static void unroll_loop(Unroll *u, Op *L) {
  int64_t lb, ub, step;
  if (!value_const_int(op_operand(L, 0), &lb) || !value_const_int(op_operand(L, 1), &ub) ||
      !value_const_int(op_operand(L, 2), &step) || step <= 0) {
    ir_op_remove_attr(L, "unroll");
    return;
  }
  /* Python's count, in unsigned arithmetic (ub - lb may exceed INT64_MAX) */
  uint64_t trips = ub > lb ? ((uint64_t)ub - (uint64_t)lb - 1) / (uint64_t)step + 1 : 0;
  Block *body = L->regions[0].first;
  size_t body_ops = ir_count_ops(L);
  if (trips > (uint64_t)u->max_ops || (uint64_t)body_ops * trips > (uint64_t)u->max_ops) {
    ir_op_remove_attr(L, "unroll");
    return;
  }
  unsigned nc = L->noperands - 3;
  Value **vals = ARENA_ARRAY(&u->m->arena, Value *, nc ? nc : 1);
  for (unsigned i = 0; i < nc; i++) vals[i] = op_operand(L, 3 + i);
  Op *term = ir_block_terminator(body);
  IrBuilder b;
  ib_init(&b, u->m);
  b.loc = L->loc;
  ib_set_before(&b, L);
  Type *ivt = body->args[0]->type;
  for (uint64_t k = 0; k < trips; k++) {
    PtrMap map = {0};
    ptrmap_put(&map, body->args[0], ib_const_int(&b, ivt, (int64_t)((uint64_t)lb + k * (uint64_t)step)));
    for (unsigned i = 0; i < nc; i++) ptrmap_put(&map, body->args[1 + i], vals[i]);
    for (Op *op = body->first; op != term; op = op->next) ib_insert(&b, ir_op_clone(u->m, op, &map));
    for (unsigned i = 0; i < nc; i++) {
      Value *y = ptrmap_get(&map, op_operand(term, i));
      vals[i] = y ? y : op_operand(term, i);
    }
    ptrmap_free(&map);
  }
  for (unsigned i = 0; i < nc; i++) ir_value_replace_all_uses(op_result(L, i), vals[i]);
  ir_op_erase(L);
}

bool pass_unroll(Module *m, const PassContext *pc) {
  Unroll u = {.m = m, .max_ops = pc->options[0]};
  for (Op *o = ir_module_body(m)->first; o; o = o->next) ir_walk_post(o, collect, &u); /* inner loops first */
  for (size_t i = 0; i < u.n; i++) unroll_loop(&u, u.loops[i]);
  return true;
}
