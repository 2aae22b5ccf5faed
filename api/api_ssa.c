/* api_ssa.c — the builder's variables turned into SSA values (include/kfront/kir.h's kf_var_*), after Braun,
 * Buchwald, Hack, Leißa, Mallon and Zwinkau, "Simple and Efficient Construction of Static Single Assignment
 * Form" (CC 2013): a read looks the variable up in its node, else asks the node's predecessors, placing a phi
 * where they may disagree; a phi of a node whose predecessors are not all known yet (unsealed) is completed when
 * it is sealed; a phi all of whose operands are one value (or itself) is trivial and replaced by that value,
 * recursively through the phis that used it.
 *
 * kir has no phi op: a phi is a block argument, its operands those the branches to the block pass (NODE_BLOCK),
 * or a structured value (api_builder.h): an scf.if's result, an scf.for's carried value (the body's argument,
 * the loop's initial operand, the body's scf.yield operand and the loop's result), an scf.while's carried value
 * (a before-region argument) or the value its scf.condition passes on (an after-region argument and a result).
 * Structured phis are decided when their construct ends (ssa_finish_if, ssa_finish_for, ssa_finish_while), when
 * every write inside it is known: a variable is a result or carried exactly when its value at the end of a region
 * differs from its value before (for scf.while, ssa_finish_while says more). All of this runs under the entry
 * point's guard (api_builder.c). */
#include <string.h>

#include "api/api_builder.h"

Value api_ssa_undef;
#define UNDEF (&api_ssa_undef)

SsaNode *ssa_node_new(kf_builder *b, NodeKind kind, Block *block, SsaNode *pred) {
  /* the table first, so that a node made is a node kept (it belongs to no guard) */
  api_build_grow(b, (void **)&b->nodes, &b->nodes_cap, b->nnodes + 1, sizeof *b->nodes);
  SsaNode *n = mem_calloc_like(b, 1, sizeof *n);
  n->id = b->nnodes;
  n->kind = kind;
  n->block = block;
  n->pred = pred;
  n->sealed = kind == NODE_SCF;
  b->nodes[b->nnodes++] = n;
  if (kind == NODE_BLOCK) ptrmap_put(&b->block_nodes, block, n);
  return n;
}

kf_status ssa_write(kf_builder *b, kf_var *v, SsaNode *n, Value *val) {
  if (v->id >= n->ndefs) {
    unsigned cap = n->ndefs, need = v->id + 1;
    api_build_grow(b, (void **)&n->defs, &cap, need < b->nvars ? b->nvars : need, sizeof *n->defs);
    memset(n->defs + n->ndefs, 0, sizeof *n->defs * (cap - n->ndefs));
    n->ndefs = cap;
  }
  n->defs[v->id] = val;
  return KF_OK;
}

static Value *def_of(const SsaNode *n, const kf_var *v) { return v->id < n->ndefs ? n->defs[v->id] : NULL; }

/* ---- branch operands ------------------------------------------------------------------------- */

/* Inserts val as the last operand of successor e->succ of its branch. */
static void edge_append(kf_builder *b, const SsaEdge *e, Value *val) {
  Op *op = e->branch;
  unsigned at = op_succ_operand_start(op, e->succ) + op->succ_operand_count[e->succ], n = op->noperands + 1;
  Value **vals = mem_alloc(sizeof *vals * n);
  for (unsigned i = 0, j = 0; i < n; i++) vals[i] = i == at ? val : op_operand(op, j++);
  ir_op_set_operands(b->km->ir, op, n, vals);
  op->succ_operand_count[e->succ]++;
  mem_free(vals);
}

/* Removes the operand successor e->succ passes to its argument i. */
static void edge_remove(kf_builder *b, const SsaEdge *e, unsigned i) {
  Op *op = e->branch;
  unsigned at = op_succ_operand_start(op, e->succ) + i, n = op->noperands - 1;
  Value **vals = mem_alloc(sizeof *vals * (n ? n : 1));
  for (unsigned k = 0, j = 0; k < op->noperands; k++)
    if (k != at) vals[j++] = op_operand(op, k);
  ir_op_set_operands(b->km->ir, op, n, vals);
  op->succ_operand_count[e->succ]--;
  mem_free(vals);
}

static Value *edge_operand(const SsaEdge *e, unsigned i) {
  return op_operand(e->branch, op_succ_operand_start(e->branch, e->succ) + i);
}

kf_status ssa_add_edge(kf_builder *b, SsaNode *to, Op *branch, unsigned succ) {
  api_build_grow(b, (void **)&to->edges, &to->edges_cap, to->nedges + 1, sizeof *to->edges);
  to->edges[to->nedges++] = (SsaEdge){b->cur, branch, succ};
  return KF_OK;
}

/* ---- phis ------------------------------------------------------------------------------------ */

static Value *new_phi(kf_builder *b, SsaNode *n, kf_var *v) {
  Value *phi = ir_block_add_arg(b->km->ir, n->block, v->type);
  ptrmap_put(&b->phis, phi, n);
  return phi;
}

/* Every table entry naming from names to instead (a phi replaced by the value it stands for). */
static void replace_defs(kf_builder *b, Value *from, Value *to) {
  for (unsigned k = 0; k < b->nnodes; k++) {
    SsaNode *n = b->nodes[k];
    for (unsigned i = 0; i < n->ndefs; i++)
      if (n->defs[i] == from) n->defs[i] = to;
  }
}

/* Replaces the phi (an argument of a NODE_BLOCK's block) by `same` everywhere and removes it. */
static void remove_phi(kf_builder *b, SsaNode *n, Value *phi, Value *same) {
  for (unsigned e = 0; e < n->nedges; e++) edge_remove(b, &n->edges[e], phi->index);
  ir_value_replace_all_uses(phi, same);
  replace_defs(b, phi, same);
  ptrmap_put(&b->phis, phi, NULL);
  ir_block_erase_arg(n->block, phi->index);
}

/* Braun's tryRemoveTrivialPhi for a NODE_BLOCK phi; returns the value that stands for it. */
static Value *try_remove_trivial(kf_builder *b, SsaNode *n, Value *phi) {
  Value *same = NULL;
  for (unsigned e = 0; e < n->nedges; e++) {
    Value *op = edge_operand(&n->edges[e], phi->index);
    if (op == same || op == phi) continue;
    if (same) return phi;
    same = op;
  }
  if (!same) return phi; /* only itself: a block no path from the entry reaches */
  /* the phis that use this one may become trivial in turn */
  unsigned nusers = 0;
  for (Use *u = phi->uses; u; u = u->next) nusers++;
  Value **users = mem_alloc(sizeof *users * (nusers ? nusers : 1));
  unsigned k = 0;
  for (Use *u = phi->uses; u; u = u->next) {
    Op *op = u->user;
    for (unsigned s = 0; s < op->nsuccessors; s++) {
      unsigned start = op_succ_operand_start(op, s);
      if (u->index >= start && u->index < start + op->succ_operand_count[s]) {
        Value *arg = op->successors[s]->args[u->index - start];
        if (arg != phi && ptrmap_get(&b->phis, arg)) users[k++] = arg;
      }
    }
  }
  remove_phi(b, n, phi, same);
  for (unsigned i = 0; i < k; i++) {
    SsaNode *un = ptrmap_get(&b->phis, users[i]);
    if (un && un->kind == NODE_BLOCK) try_remove_trivial(b, un, users[i]);
  }
  mem_free(users);
  return same;
}

static kf_status undefined(kf_builder *b, kf_var *v, SrcLoc loc) {
  return api_build_error_at(b, loc, "variable '%s' may be read before it is assigned", v->name);
}

bool ssa_maybe_undefined(kf_builder *b, const Value *val) { return ptrmap_get(&b->maybe_undef, val) != NULL; }

/* What a phi gets from a predecessor where v has no value (Braun's undef): for a scalar, a 0 of v's type made
 * once at the start of the function; for any other type, the phi itself (the function is then invalid, and every
 * read that may see it is reported). The phi becomes maybe-undefined. */
static Value *undef_operand(kf_builder *b, kf_var *v, Value *phi) {
  ptrmap_put(&b->maybe_undef, phi, phi);
  if (!ty_is_scalar(v->type)) return phi;
  if (!v->undef) {
    IrBuilder at = b->ib;
    Block *entry = ir_func_entry(v->func);
    at.block = entry;
    at.before = entry->first;
    v->undef = ty_is_float(v->type) ? ib_const_float(&at, v->type, 0.0) : ib_const_int(&at, v->type, 0);
    ptrmap_put(&b->maybe_undef, v->undef, v->undef);
  }
  return v->undef;
}

/* Gives phi (of NODE_BLOCK n) its operands from every predecessor. */
static void add_phi_operands(kf_builder *b, kf_var *v, SsaNode *n, Value *phi) {
  for (unsigned e = 0; e < n->nedges; e++) {
    Value *val = ssa_read(b, v, n->edges[e].from);
    if (!val) val = undef_operand(b, v, phi);
    else if (ssa_maybe_undefined(b, val)) ptrmap_put(&b->maybe_undef, phi, phi);
    edge_append(b, &n->edges[e], val);
  }
}

static Value *read_recursive(kf_builder *b, kf_var *v, SsaNode *n) {
  Value *val;
  if (!n->sealed) {
    val = new_phi(b, n, v);
    api_build_grow(b, (void **)&n->incomplete, &n->incomplete_cap, n->nincomplete + 1, sizeof *n->incomplete);
    n->incomplete[n->nincomplete++] = (SsaPhi){v, val, b->ib.loc, b->quiet};
  } else if (n->kind != NODE_BLOCK) {
    val = n->pred ? ssa_read(b, v, n->pred) : NULL;
  } else if (n->nedges == 0) {
    val = NULL;
  } else if (n->nedges == 1) {
    val = ssa_read(b, v, n->edges[0].from);
  } else {
    Value *phi = new_phi(b, n, v);
    ssa_write(b, v, n, phi); /* breaks cycles through loops */
    add_phi_operands(b, v, n, phi);
    val = try_remove_trivial(b, n, phi);
  }
  ssa_write(b, v, n, val ? val : UNDEF);
  return val;
}

Value *ssa_read(kf_builder *b, kf_var *v, SsaNode *n) {
  Value *d = def_of(n, v);
  if (d) return d == UNDEF ? NULL : d;
  return read_recursive(b, v, n);
}

kf_status ssa_read_checked(kf_builder *b, kf_var *v, Value **out) {
  Value *val = ssa_read(b, v, b->cur);
  if (!val || ssa_maybe_undefined(b, val)) return undefined(b, v, b->ib.loc);
  *out = val;
  return KF_OK;
}

kf_status ssa_seal(kf_builder *b, SsaNode *n) {
  kf_status st = KF_OK;
  for (unsigned i = 0; i < n->nincomplete; i++) {  /* the list may grow while it is completed */
    SsaPhi p = n->incomplete[i];
    add_phi_operands(b, p.var, n, p.arg);
    if (ssa_maybe_undefined(b, p.arg) && !p.quiet) st = undefined(b, p.var, p.loc);
    try_remove_trivial(b, n, p.arg);
  }
  n->nincomplete = 0;
  n->sealed = true;
  return st;
}

/* ---- structured constructs ------------------------------------------------------------------- */

/* The variables with a table entry in a node made since `first` (those the construct may have assigned); each
 * once, in variable order. */
static unsigned touched_vars(kf_builder *b, const SsaNode *first, kf_var **out) {
  unsigned n = 0;
  for (unsigned i = 0; i < b->nvars; i++)
    for (unsigned k = first->id; k < b->nnodes; k++)
      if (def_of(b->nodes[k], b->vars[i])) {
        out[n++] = b->vars[i];
        break;
      }
  return n;
}

/* The value of v at the end of n for a construct's own bookkeeping (no read of the embedder's: nothing is
 * reported); NULL also where it may be unset. */
static Value *probe(kf_builder *b, kf_var *v, SsaNode *n) {
  bool quiet = b->quiet;
  b->quiet = true;
  Value *val = ssa_read(b, v, n);
  b->quiet = quiet;
  return val && !ssa_maybe_undefined(b, val) ? val : NULL;
}

/* Replaces the op `old` (no results, regions already filled) by a new one of its kind with these operands and
 * results, its regions and attributes moved over; returns it. */
static Op *rebuild(kf_builder *b, Op *old, unsigned noperands, Value *const *operands, unsigned nresults,
                   Type *const *types) {
  Module *m = b->km->ir;
  Op *op = ir_op_create(m, old->kind, old->loc, noperands, operands, nresults, types, old->nregions);
  for (unsigned r = 0; r < old->nregions; r++) {
    op->regions[r].first = old->regions[r].first;
    op->regions[r].last = old->regions[r].last;
    for (Block *blk = op->regions[r].first; blk; blk = blk->next) blk->region = &op->regions[r];
    old->regions[r].first = old->regions[r].last = NULL;
  }
  op->nattrs = old->nattrs;
  op->attrs = old->attrs;
  ir_op_insert_before(old, op);
  ir_op_erase(old);
  return op;
}

static void yield_at_end(kf_builder *b, Block *blk, unsigned n, Value *const *vals, SrcLoc loc) {
  ir_block_append(blk, ir_op_create(b->km->ir, OP_YIELD, loc, n, vals, 0, NULL, 0));
}

/* Back in the construct's outer block, after its op, at a new node whose predecessor is the one before it. */
static SsaNode *leave(kf_builder *b, const OpenConstruct *c) {
  SsaNode *join = ssa_node_new(b, NODE_SCF, NULL, c->pre);
  b->ib.block = c->outer;
  b->ib.before = c->outer_before;
  b->cur = join;
  ptrmap_put(&b->block_nodes, c->outer, join);
  return join;
}

kf_status ssa_finish_if(kf_builder *b, Op **out) {
  OpenConstruct c = b->open[--b->nopen];
  SsaNode *else_end = c.has_else ? b->cur : c.pre, *then_end = c.has_else ? c.then_end : b->cur;
  unsigned cap = b->nvars ? b->nvars : 1;
  kf_var **vars = mem_alloc(sizeof *vars * cap);
  Value **tv = mem_alloc(sizeof *tv * cap), **ev = mem_alloc(sizeof *ev * cap), **after = mem_alloc(sizeof *after * cap);
  Type **types = mem_alloc(sizeof *types * cap);
  unsigned nv = touched_vars(b, c.first, vars), nres = 0;
  for (unsigned i = 0; i < nv; i++) {
    Value *t = probe(b, vars[i], then_end), *e = probe(b, vars[i], else_end);
    if (t == e) {
      after[i] = t ? t : UNDEF;
    } else if (!t || !e) {
      after[i] = UNDEF;  /* unset on one side: unset after the if */
    } else {
      after[i] = NULL;   /* a result */
      tv[nres] = t;
      ev[nres] = e;
      types[nres++] = vars[i]->type;
    }
  }
  yield_at_end(b, c.placeholder->regions[0].first, nres, tv, c.placeholder->loc);
  yield_at_end(b, c.placeholder->regions[1].first, nres, ev, c.placeholder->loc);
  Value *cond = op_operand(c.placeholder, 0);
  Op *op = rebuild(b, c.placeholder, 1, &cond, nres, types);
  SsaNode *join = leave(b, &c);
  for (unsigned i = 0, r = 0; i < nv; i++) ssa_write(b, vars[i], join, after[i] ? after[i] : op_result(op, r++));
  mem_free(vars);
  mem_free(tv);
  mem_free(ev);
  mem_free(after);
  mem_free(types);
  if (out) *out = op;
  return KF_OK;
}

/* A variable the loop body may assign: its phi (the body argument a read made, or NULL), its value before the
 * loop and at the end of the body. */
typedef struct Carried {
  kf_var *var;
  Value *phi, *init, *yield;
  SrcLoc read_at;
  bool quiet;
} Carried;

static void substitute(Carried *cs, unsigned n, Value *from, Value *to) {
  for (unsigned i = 0; i < n; i++) {
    if (cs[i].init == from) cs[i].init = to;
    if (cs[i].yield == from) cs[i].yield = to;
  }
}

kf_status ssa_finish_for(kf_builder *b, Op **out) {
  OpenConstruct c = b->open[--b->nopen];
  SsaNode *body = c.first, *end = b->cur;
  Block *blk = body->block;
  unsigned cap = b->nvars ? b->nvars : 1;
  kf_var **vars = mem_alloc(sizeof *vars * cap);
  Carried *cs = mem_calloc(cap, sizeof *cs);
  unsigned nv = touched_vars(b, body, vars);
  kf_status st = KF_OK;
  for (unsigned i = 0; i < nv; i++) {
    cs[i].var = vars[i];
    cs[i].read_at = b->ib.loc;
    cs[i].quiet = true;
    for (unsigned k = 0; k < body->nincomplete; k++)
      if (body->incomplete[k].var == vars[i]) {
        cs[i].phi = body->incomplete[k].arg;
        cs[i].read_at = body->incomplete[k].loc;
        cs[i].quiet = body->incomplete[k].quiet;
      }
  }
  for (unsigned i = 0; i < nv; i++) {
    cs[i].yield = probe(b, vars[i], end);
    cs[i].init = probe(b, vars[i], c.pre);
  }
  /* phis the body never assigns (its value at the end is the phi, or the value from before) stand for the value
   * from before: replaced, until none is left (a replacement can make another one so) */
  for (bool changed = true; changed;) {
    changed = false;
    for (unsigned i = 0; i < nv; i++) {
      Carried *k = &cs[i];
      if (!k->phi || !k->init || (k->yield != k->phi && k->yield != k->init)) continue;
      Value *phi = k->phi;
      ir_value_replace_all_uses(phi, k->init);
      replace_defs(b, phi, k->init);
      substitute(cs, nv, phi, k->init);
      ptrmap_put(&b->phis, phi, NULL);
      ir_block_erase_arg(blk, phi->index);
      k->phi = NULL;
      changed = true;
    }
  }
  for (unsigned i = 0; i < nv; i++) {
    Carried *k = &cs[i];
    if (k->phi && !k->init && !k->quiet) st = undefined(b, k->var, k->read_at); /* read before any assignment */
    if (!k->phi && k->init && k->yield && k->yield != k->init) k->phi = new_phi(b, body, k->var);
  }
  body->nincomplete = 0;
  body->sealed = true;
  /* the carried values, in body-argument order */
  unsigned ncarried = blk->nargs - 1;
  Value **operands = mem_alloc(sizeof *operands * (3 + ncarried));
  Value **ys = mem_alloc(sizeof *ys * (ncarried ? ncarried : 1));
  Type **types = mem_alloc(sizeof *types * (ncarried ? ncarried : 1));
  Carried **order = mem_alloc(sizeof *order * (ncarried ? ncarried : 1));
  for (unsigned k = 0; k < 3; k++) operands[k] = op_operand(c.placeholder, k);
  for (unsigned a = 1; a < blk->nargs; a++) {
    Carried *k = NULL;
    for (unsigned i = 0; i < nv && !k; i++)
      if (cs[i].phi == blk->args[a]) k = &cs[i];
    order[a - 1] = k;
    /* a phi without a value before the loop (reported) passes itself: the function is invalid */
    operands[2 + a] = k && k->init ? k->init : blk->args[a];
    ys[a - 1] = k && k->yield ? k->yield : blk->args[a];
    types[a - 1] = blk->args[a]->type;
  }
  yield_at_end(b, blk, ncarried, ys, c.placeholder->loc);
  Op *op = rebuild(b, c.placeholder, 3 + ncarried, operands, ncarried, types);
  SsaNode *join = leave(b, &c);
  for (unsigned i = 0; i < nv; i++) {
    Carried *k = &cs[i];
    if (!k->phi) ssa_write(b, k->var, join, k->init && k->yield == k->init ? k->init : UNDEF);
  }
  for (unsigned a = 0; a < ncarried; a++) {
    ptrmap_put(&b->phis, blk->args[a + 1], NULL);
    if (order[a]) ssa_write(b, order[a]->var, join, order[a]->init ? op_result(op, a) : UNDEF);
  }
  mem_free(vars);
  mem_free(cs);
  mem_free(operands);
  mem_free(ys);
  mem_free(types);
  mem_free(order);
  if (out) *out = op;
  return st;
}

/* A variable an scf.while may carry: the phis of its before-region (bphi: the carried value, from before the loop
 * and from the after-region's yield) and of its after-region (aphi: what scf.condition passes on, also the loop's
 * result), its value before the loop, at the end of the before-region (cond) and at the end of the after-region
 * (yield). */
typedef struct WhileVar {
  kf_var *var;
  Value *bphi, *aphi, *init, *cond, *yield;
  SsaPhi bread, aread; /* where the phis were made (quiet: by the builder's own probes) */
  bool invariant;
} WhileVar;

static void while_substitute(WhileVar *ws, unsigned n, Value *from, Value *to) {
  for (unsigned i = 0; i < n; i++) {
    if (ws[i].init == from) ws[i].init = to;
    if (ws[i].cond == from) ws[i].cond = to;
    if (ws[i].yield == from) ws[i].yield = to;
  }
}

/* The phi replaced by `to` everywhere (the builder's tables too) and erased from its block. */
static void drop_phi(kf_builder *b, WhileVar *ws, unsigned n, Value *phi, Value *to) {
  ir_value_replace_all_uses(phi, to);
  replace_defs(b, phi, to);
  while_substitute(ws, n, phi, to);
  ptrmap_put(&b->phis, phi, NULL);
  ir_block_erase_arg(phi->block, phi->index);
}

static SsaPhi *incomplete_of(SsaNode *n, kf_var *v) {
  for (unsigned k = 0; k < n->nincomplete; k++)
    if (n->incomplete[k].var == v) return &n->incomplete[k];
  return NULL;
}

/* Every variable the loop touched: a variable the loop never assigns (its values at the ends of both regions are
 * its phis or its value from before) is not carried, its phis replaced by that value; any other is carried
 * through the before-region when that region reads it before assigning it (a phi there), and passed on by
 * scf.condition (to the after-region and the loop's results) when it has a value at the condition. */
kf_status ssa_finish_while(kf_builder *b, Op **out) {
  OpenConstruct c = b->open[--b->nopen];
  SsaNode *before = c.first, *after = c.after, *after_end = b->cur;
  Block *bblk = before->block, *ablk = after->block;
  unsigned cap = b->nvars ? b->nvars : 1;
  kf_var **vars = mem_alloc(sizeof *vars * cap);
  WhileVar *ws = mem_calloc(cap, sizeof *ws);
  unsigned nv = touched_vars(b, before, vars);
  kf_status st = KF_OK;
  for (unsigned i = 0; i < nv; i++) {  /* the probes first: they may make (quiet) phis */
    ws[i].var = vars[i];
    ws[i].init = probe(b, vars[i], c.pre);
    ws[i].cond = probe(b, vars[i], c.then_end);
    ws[i].yield = probe(b, vars[i], after_end);
  }
  for (unsigned i = 0; i < nv; i++) {
    SsaPhi *p = incomplete_of(before, vars[i]), *q = incomplete_of(after, vars[i]);
    if (p) ws[i].bphi = p->arg, ws[i].bread = *p;
    if (q) ws[i].aphi = q->arg, ws[i].aread = *q;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (unsigned i = 0; i < nv; i++) {
      WhileVar *w = &ws[i];
      if (w->invariant || !w->init || (w->cond != w->bphi && w->cond != w->init) ||
          (w->yield != w->aphi && w->yield != w->init))
        continue;
      if (w->bphi) drop_phi(b, ws, nv, w->bphi, w->init);
      if (w->aphi) drop_phi(b, ws, nv, w->aphi, w->init);
      w->bphi = w->aphi = NULL;
      w->invariant = changed = true;
    }
  }
  for (unsigned i = 0; i < nv; i++) {
    WhileVar *w = &ws[i];
    if (w->invariant) continue;
    if (w->bphi && !w->init && w->bread.quiet && !w->bphi->uses) {
      /* only the builder's probe asked for it (a variable of the body alone): unset at the condition */
      if (w->cond == w->bphi) w->cond = NULL;
      replace_defs(b, w->bphi, UNDEF);
      ptrmap_put(&b->phis, w->bphi, NULL);
      ir_block_erase_arg(bblk, w->bphi->index);
      w->bphi = NULL;
    }
    /* read in the before-region before any assignment, with no value from before the loop; or read in the body
     * before any assignment where the condition has no value */
    if (w->bphi && !w->init && !w->bread.quiet) st = undefined(b, w->var, w->bread.loc);
    else if (w->aphi && !w->cond && !w->aread.quiet) st = undefined(b, w->var, w->aread.loc);
    if (w->cond && !w->aphi) w->aphi = new_phi(b, after, w->var);
  }
  before->nincomplete = after->nincomplete = 0;
  before->sealed = after->sealed = true;
  /* the carried values in before-argument order, those passed on in after-argument order */
  unsigned nb = bblk->nargs, na = ablk->nargs;
  Value **inits = mem_alloc(sizeof *inits * (nb ? nb : 1)), **ys = mem_alloc(sizeof *ys * (nb ? nb : 1));
  Value **conds = mem_alloc(sizeof *conds * (na + 1));
  Type **types = mem_alloc(sizeof *types * (na ? na : 1));
  WhileVar **order = mem_alloc(sizeof *order * (na ? na : 1));
  for (unsigned a = 0; a < nb; a++) {
    WhileVar *w = NULL;
    for (unsigned i = 0; i < nv && !w; i++)
      if (ws[i].bphi == bblk->args[a]) w = &ws[i];
    /* a phi without a value before the loop (reported, or never read) passes itself: the function is invalid */
    inits[a] = w && w->init ? w->init : bblk->args[a];
    ys[a] = w && w->yield ? w->yield : bblk->args[a];
  }
  conds[0] = op_operand(c.condition, 0);
  for (unsigned a = 0; a < na; a++) {
    WhileVar *w = NULL;
    for (unsigned i = 0; i < nv && !w; i++)
      if (ws[i].aphi == ablk->args[a]) w = &ws[i];
    order[a] = w;
    conds[1 + a] = w && w->cond ? w->cond : ablk->args[a];
    types[a] = ablk->args[a]->type;
  }
  ir_op_set_operands(b->km->ir, c.condition, 1 + na, conds);
  yield_at_end(b, ablk, nb, ys, c.placeholder->loc);
  Op *op = rebuild(b, c.placeholder, nb, inits, na, types);
  SsaNode *join = leave(b, &c);
  for (unsigned i = 0; i < nv; i++)
    if (ws[i].invariant || !ws[i].aphi) ssa_write(b, ws[i].var, join, ws[i].invariant ? ws[i].init : UNDEF);
  for (unsigned a = 0; a < nb; a++) ptrmap_put(&b->phis, bblk->args[a], NULL);
  for (unsigned a = 0; a < na; a++) {
    ptrmap_put(&b->phis, ablk->args[a], NULL);
    WhileVar *w = order[a];
    if (w) ssa_write(b, w->var, join, w->cond && !(w->cond == w->bphi && !w->init) ? op_result(op, a) : UNDEF);
  }
  mem_free(vars);
  mem_free(ws);
  mem_free(inits);
  mem_free(ys);
  mem_free(conds);
  mem_free(types);
  mem_free(order);
  if (out) *out = op;
  return st;
}
