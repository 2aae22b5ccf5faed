/* dce.c — dead-code elimination: erases pure ops whose results have no uses.
 *
 * Requires: valid IR. Preserves: everything else. Walks each block backwards so that a chain of
 * dead ops (a -> b -> unused) goes in one sweep; nested regions are visited before their parent op
 * so that, e.g., an scf.if whose only uses vanished can itself be judged afterwards (ops with regions
 * are never erased here: their bodies may have side effects). */
#include "passes.h"

static unsigned dce_region(Region *r);

static unsigned dce_block(Block *b) {
  unsigned erased = 0;
  for (Op *op = b->last, *prev; op; op = prev) {
    prev = op->prev;
    for (unsigned i = 0; i < op->nregions; i++) erased += dce_region(&op->regions[i]);
    if (op_is_trivially_dead(op)) {
      ir_op_erase(op);
      erased++;
    }
  }
  return erased;
}

static unsigned dce_region(Region *r) {
  unsigned erased = 0;
  for (Block *b = r->first; b; b = b->next) erased += dce_block(b);
  return erased;
}

bool pass_dce(Module *m, const PassContext *pc) {
  (void)pc;
  /* Erasing an op can make an op earlier in another block dead (cf form); iterate to a fixed point. */
  while (dce_block(ir_module_body(m)) > 0) {}
  return true;
}
