/* test_affine.c — the test pass of the affine analysis (passes/affine.c): a note at every mem.load,
 * mem.store and check.bounds giving the affine form of each index ("not affine" where there is none).
 * With option ranges=1 (default) the forms are exact (wrap-around ruled out by the range analysis, with
 * the facts of the enclosing scf.if and scf.for); ranges=0 classifies modulo wrap-around.
 * Requires: valid IR. Changes nothing. */
#include "passes.h"
#include "passes/affine.h"

typedef struct TestAffine {
  Diag *diag;
  RangeAnalysis *ra;
} TestAffine;

static bool note_indices(Op *op, void *user) {
  TestAffine *t = user;
  unsigned first;
  switch (op->kind) {
  case OP_LOAD: first = 1; break;
  case OP_STORE: first = 2; break;
  case OP_BOUNDS: first = 0; break;
  default: return true;
  }
  unsigned last = op->kind == OP_BOUNDS ? 1 : op->noperands;
  RangeMark mk = {0};
  if (t->ra) {
    mk = range_scope_open(t->ra);
    range_assume_context(t->ra, op);
  }
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "%s:", op_name(op));
  for (unsigned i = first; i < last; i++) {
    Affine f;
    sb_printf(&sb, "%s [%u] ", i > first ? ";" : "", i - first);
    if (affine_of(t->ra, op_operand(op, i), &f)) affine_print(&f, &sb);
    else sb_puts(&sb, "not affine");
  }
  if (t->ra) range_scope_close(t->ra, mk);
  diag_remark(t->diag, op->loc, "%s", sb_cstr(&sb));
  sb_free(&sb);
  return true;
}

bool pass_test_affine(Module *m, const PassContext *pc) {
  TestAffine t = {pc->diag, pc->options[0] ? range_analysis_new(m) : NULL};
  ir_walk_module(m, note_indices, &t);
  range_analysis_free(t.ra);
  return true;
}
