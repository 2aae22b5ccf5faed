/* clone.c — copying ops with their regions (for versioning: a pass keeps the original of what it rewrites).
 *
 * ir_op_clone copies an op of module m, and everything nested in its regions, into new unlinked IR of the
 * same module: attributes (the list copied, the values shared: attributes are immutable once set),
 * locations, result and block-argument types, successors. Operands are remapped through a map from old
 * values to new ones: values defined inside the clone map to their copies (the map records them), values
 * from outside are looked up in the map the caller passes (and stay themselves when absent). Successor
 * blocks inside the clone map to their copies; those outside stay.
 *
 * ir_module_clone copies a whole module this way (into a new module of the same context).
 *
 * Two steps, so that forward references (cf form: a block using a value defined in a block after it, or
 * branching to a later block) resolve: first the structure (ops, results, regions, blocks and their
 * arguments, all recorded in the map), then the operands and successors. */
#include "ir/ir.h"

#include <string.h>

static Op *copy_structure(Module *m, const Op *op, PtrMap *map) {
  Type **rtypes = op->nresults ? ARENA_ARRAY(&m->arena, Type *, op->nresults) : NULL;
  for (unsigned i = 0; i < op->nresults; i++) rtypes[i] = op->results[i].type;
  Op *c = ir_op_create(m, op->kind, op->loc, 0, NULL, op->nresults, rtypes, op->nregions);
  for (unsigned i = 0; i < op->nresults; i++) ptrmap_put(map, &op->results[i], &c->results[i]);
  if (op->nattrs) {
    c->attrs = ARENA_ARRAY(&m->arena, NamedAttr, op->nattrs);
    memcpy(c->attrs, op->attrs, sizeof(NamedAttr) * op->nattrs);
    c->nattrs = op->nattrs;
  }
  for (unsigned r = 0; r < op->nregions; r++) {
    for (Block *b = op->regions[r].first; b; b = b->next) {
      Block *nb = ir_block_new(m);
      ir_region_append_block(&c->regions[r], nb);
      ptrmap_put(map, b, nb);
      for (unsigned i = 0; i < b->nargs; i++) ptrmap_put(map, b->args[i], ir_block_add_arg(m, nb, b->args[i]->type));
      for (const Op *o = b->first; o; o = o->next) ir_block_append(nb, copy_structure(m, o, map));
    }
  }
  return c;
}

static Value *mapped(PtrMap *map, Value *v) {
  Value *to = v ? ptrmap_get(map, v) : NULL;
  return to ? to : v;
}

static void copy_uses(Module *m, const Op *op, Op *c, PtrMap *map) {
  if (op->noperands) {
    Value **opnds = ARENA_ARRAY(&m->arena, Value *, op->noperands);
    for (unsigned i = 0; i < op->noperands; i++) opnds[i] = mapped(map, op_operand(op, i));
    ir_op_set_operands(m, c, op->noperands, opnds);
  }
  if (op->nsuccessors) {
    Block **succs = ARENA_ARRAY(&m->arena, Block *, op->nsuccessors);
    for (unsigned s = 0; s < op->nsuccessors; s++) {
      Block *to = ptrmap_get(map, op->successors[s]);
      succs[s] = to ? to : op->successors[s];
    }
    ir_op_set_successors(m, c, op->nsuccessors, succs, op->succ_operand_count);
  }
  for (unsigned r = 0; r < op->nregions; r++) {
    Block *nb = c->regions[r].first;
    for (Block *b = op->regions[r].first; b; b = b->next, nb = nb->next) {
      Op *no = nb->first;
      for (const Op *o = b->first; o; o = o->next, no = no->next) copy_uses(m, o, no, map);
    }
  }
}

Op *ir_op_clone(Module *m, const Op *op, PtrMap *map) {
  PtrMap local = {0};
  PtrMap *mp = map ? map : &local;
  Op *c = copy_structure(m, op, mp);
  copy_uses(m, op, c, mp);
  ptrmap_free(&local);
  return c;
}

Module *ir_module_clone(Module *src) {
  Module *m = ir_module_new(src->ctx, src->name);
  if (!m) return NULL;
  for (const Op *op = ir_module_body(src)->first; op; op = op->next) {
    Op *c = ir_op_clone(m, op, NULL);
    ir_block_append(ir_module_body(m), c);
    if (ir_op_attr(c, "sym_name")) ir_module_add_symbol(m, c);
  }
  return m;
}
