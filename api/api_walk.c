/* api_walk.c — include/kfront/kir.h's walking and mutation: a module's functions, a block's ops, an op's parts
 * (operands, results, regions, successors, attributes), attribute values, a value's definition and uses, the walk
 * over nested ops, and the changes an embedder pass makes (replacing uses, setting an operand, erasing, moving).
 * Everything is a thin layer over ir/: the walk is ir_walk, the use lists ir.c's, moving ir_op_unlink and
 * ib_insert; what is added here is the checks of the input and their located diagnostics. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/api_builder.h"

#define OP(o) ((Op *)(o))
#define VAL(v) ((Value *)(v))
#define ATTR(a) ((const Attr *)(a))

/* An error located at loc, of kind invalid IR (the embedder's change would leave the module unusable). */
static kf_status walk_error(kf_module *m, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static kf_status walk_error(kf_module *m, SrcLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_report_ex(&m->ctx->diag, DIAG_ERROR, DIAG_KIND_INVALID_IR, loc, 0, true, fmt, ap);
  va_end(ap);
  return KF_ERROR_INVALID_INPUT;
}

/* ---- the module, functions, blocks --------------------------------------------------------------- */

kf_block *kf_module_body(kf_module *m) { return m ? (kf_block *)ir_module_body(m->ir) : NULL; }

static Op *function_from(Op *op) {
  while (op && op->kind != OP_FUNC_FUNC) op = op->next;
  return op;
}

kf_op *kf_module_first_function(kf_module *m) { return m ? (kf_op *)function_from(ir_module_body(m->ir)->first) : NULL; }
kf_op *kf_function_next(kf_op *func) { return func ? (kf_op *)function_from(OP(func)->next) : NULL; }
kf_op *kf_module_lookup(kf_module *m, const char *sym) { return m && sym ? (kf_op *)ir_module_lookup(m->ir, sym) : NULL; }

const char *kf_function_name(const kf_op *func) {
  return func && OP(func)->kind == OP_FUNC_FUNC ? ir_func_name(OP(func)) : NULL;
}
kf_type *kf_function_type(const kf_op *func) {
  return func && OP(func)->kind == OP_FUNC_FUNC ? (kf_type *)ir_func_type(OP(func)) : NULL;
}
unsigned kf_function_flags(const kf_op *func) {
  if (!func || OP(func)->kind != OP_FUNC_FUNC) return 0;
  return (ir_op_attr(OP(func), "kernel") ? KF_FUNCTION_FLAG_KERNEL : 0u) |
         (ir_op_attr(OP(func), "device") ? KF_FUNCTION_FLAG_DEVICE : 0u) |
         (ir_op_attr(OP(func), "foreign") ? KF_FUNCTION_FLAG_EXTERN : 0u);
}

kf_op *kf_block_first_op(kf_block *block) { return block ? (kf_op *)((Block *)block)->first : NULL; }
kf_op *kf_block_last_op(kf_block *block) { return block ? (kf_op *)((Block *)block)->last : NULL; }
kf_op *kf_op_next(kf_op *op) { return op ? (kf_op *)OP(op)->next : NULL; }
kf_op *kf_op_prev(kf_op *op) { return op ? (kf_op *)OP(op)->prev : NULL; }
kf_op *kf_block_terminator(kf_block *block) { return block ? (kf_op *)ir_block_terminator((Block *)block) : NULL; }
kf_region *kf_block_region(kf_block *block) { return block ? (kf_region *)((Block *)block)->region : NULL; }
kf_op *kf_block_parent_op(kf_block *block) { return block ? (kf_op *)ir_block_parent_op((Block *)block) : NULL; }
kf_op *kf_region_parent_op(kf_region *r) { return r ? (kf_op *)((Region *)r)->parent : NULL; }

/* ---- ops ------------------------------------------------------------------------------------------- */

kf_block *kf_op_block(kf_op *op) { return op ? (kf_block *)OP(op)->block : NULL; }
kf_op *kf_op_parent_op(kf_op *op) { return op && OP(op)->block ? (kf_op *)ir_block_parent_op(OP(op)->block) : NULL; }
kf_op *kf_op_parent_function(kf_op *op) {
  if (!op || !OP(op)->block) return NULL;
  Op *p = ir_block_parent_op(OP(op)->block);
  return p ? (kf_op *)(p->kind == OP_FUNC_FUNC ? p : ir_op_parent_func(p)) : NULL;
}
kf_location kf_op_location(const kf_op *op) {
  if (!op || !OP(op)->loc.file) return (kf_location){NULL, 0, 0};
  return (kf_location){OP(op)->loc.file, OP(op)->loc.line, OP(op)->loc.col};
}
unsigned kf_op_num_operands(const kf_op *op) { return op ? OP(op)->noperands : 0; }
kf_ir_value *kf_op_operand(kf_op *op, unsigned i) {
  return op && i < OP(op)->noperands ? (kf_ir_value *)op_operand(OP(op), i) : NULL;
}
unsigned kf_op_num_regions(const kf_op *op) { return op ? OP(op)->nregions : 0; }
unsigned kf_op_num_successors(const kf_op *op) { return op ? OP(op)->nsuccessors : 0; }
kf_block *kf_op_successor(kf_op *op, unsigned i) {
  return op && i < OP(op)->nsuccessors ? (kf_block *)OP(op)->successors[i] : NULL;
}
unsigned kf_op_num_attrs(const kf_op *op) { return op ? OP(op)->nattrs : 0; }
kf_attr *kf_op_attr_at(kf_op *op, unsigned i, const char **name) {
  if (name) *name = NULL;
  if (!op || i >= OP(op)->nattrs) return NULL;
  if (name) *name = OP(op)->attrs[i].name;
  return (kf_attr *)&OP(op)->attrs[i].value;
}
kf_attr *kf_op_attr(kf_op *op, const char *name) { return op && name ? (kf_attr *)ir_op_attr(OP(op), name) : NULL; }

/* ---- attribute values ------------------------------------------------------------------------------ */

kf_attr_kind kf_attr_get_kind(const kf_attr *a) {
  if (!a) return KF_ATTR_UNIT;
  switch (ATTR(a)->kind) {
  case ATTR_UNIT: return KF_ATTR_UNIT;
  case ATTR_BOOL: return KF_ATTR_BOOL;
  case ATTR_INT: return KF_ATTR_INT;
  case ATTR_FLOAT: return KF_ATTR_FLOAT;
  case ATTR_STR: return KF_ATTR_STRING;
  case ATTR_SYM: return KF_ATTR_SYMBOL;
  case ATTR_TYPE: return KF_ATTR_TYPE;
  case ATTR_ARRAY: return KF_ATTR_ARRAY;
  }
  return KF_ATTR_UNIT;
}
int64_t kf_attr_get_int(const kf_attr *a) {
  if (!a) return 0;
  return ATTR(a)->kind == ATTR_INT ? ATTR(a)->i : ATTR(a)->kind == ATTR_BOOL ? ATTR(a)->b : 0;
}
double kf_attr_get_float(const kf_attr *a) { return a && ATTR(a)->kind == ATTR_FLOAT ? ATTR(a)->f : 0; }
const char *kf_attr_get_string(const kf_attr *a) {
  return a && (ATTR(a)->kind == ATTR_STR || ATTR(a)->kind == ATTR_SYM) ? ATTR(a)->s : NULL;
}
kf_type *kf_attr_get_type(const kf_attr *a) { return a && ATTR(a)->kind == ATTR_TYPE ? (kf_type *)ATTR(a)->type : NULL; }
unsigned kf_attr_array_size(const kf_attr *a) { return a && ATTR(a)->kind == ATTR_ARRAY ? ATTR(a)->arr.n : 0; }
kf_attr *kf_attr_array_elem(kf_attr *a, unsigned i) {
  return a && ATTR(a)->kind == ATTR_ARRAY && i < ATTR(a)->arr.n ? (kf_attr *)&ATTR(a)->arr.elems[i] : NULL;
}

/* ---- values ------------------------------------------------------------------------------------------ */

kf_op *kf_value_defining_op(kf_ir_value *v) { return v ? (kf_op *)VAL(v)->def : NULL; }
kf_block *kf_value_owner_block(kf_ir_value *v) {
  if (!v) return NULL;
  return (kf_block *)(VAL(v)->def ? VAL(v)->def->block : VAL(v)->block);
}
unsigned kf_value_index(const kf_ir_value *v) { return v ? VAL(v)->index : 0; }
int kf_value_is_block_arg(const kf_ir_value *v) { return v && !VAL(v)->def; }
unsigned kf_value_num_uses(const kf_ir_value *v) { return v ? ir_value_num_uses(VAL(v)) : 0; }
kf_status kf_value_use(kf_ir_value *v, unsigned i, kf_op **user, unsigned *operand) {
  if (user) *user = NULL;
  if (operand) *operand = 0;
  if (!v) return KF_ERROR_INVALID_INPUT;
  Use *u = VAL(v)->uses;
  for (unsigned k = 0; u && k < i; k++) u = u->next;
  if (!u) return KF_ERROR_INVALID_INPUT;
  if (user) *user = (kf_op *)u->user;
  if (operand) *operand = u->index;
  return KF_OK;
}

/* ---- the walk ---------------------------------------------------------------------------------------- */

typedef struct ApiWalk {
  kf_walk_fn fn;
  void *user;
} ApiWalk;

static IrWalkStep api_step(Op *op, void *user) {
  ApiWalk *w = user;
  switch (w->fn((kf_op *)op, w->user)) {
  case KF_WALK_ADVANCE: return IR_WALK_ADVANCE;
  case KF_WALK_SKIP: return IR_WALK_SKIP;
  default: return IR_WALK_INTERRUPT;  /* KF_WALK_INTERRUPT, and any value that is none of the three */
  }
}

kf_walk_result kf_op_walk(kf_op *op, kf_walk_order order, kf_walk_fn fn, void *user) {
  if (!op || !fn) return KF_WALK_ADVANCE;
  ApiWalk w = {fn, user};
  return ir_walk(OP(op), order == KF_WALK_POST_ORDER ? IR_WALK_POST : IR_WALK_PRE, api_step, &w) == IR_WALK_INTERRUPT
             ? KF_WALK_INTERRUPT
             : KF_WALK_ADVANCE;
}

kf_walk_result kf_module_walk(kf_module *m, kf_walk_order order, kf_walk_fn fn, void *user) {
  if (!m || !fn) return KF_WALK_ADVANCE;
  for (Op *o = ir_module_body(m->ir)->first, *next; o; o = next) {
    next = o->next;
    if (kf_op_walk((kf_op *)o, order, fn, user) == KF_WALK_INTERRUPT) return KF_WALK_INTERRUPT;
  }
  return KF_WALK_ADVANCE;
}

/* ---- mutation ------------------------------------------------------------------------------------------ */

/* The location of a value for diagnostics: its defining op's, or its block's parent op's. */
static SrcLoc value_loc(const Value *v) {
  if (v->def) return v->def->loc;
  Op *p = v->block ? ir_block_parent_op(v->block) : NULL;
  return p ? p->loc : (SrcLoc){0};
}

static char *type_text(const Type *t, char *buf, size_t n) {
  StrBuf sb;
  sb_init(&sb);
  ty_print(t, &sb);
  snprintf(buf, n, "%s", sb.failed || !sb.data ? "?" : sb.data);
  sb_free(&sb);
  return buf;
}

kf_status kf_value_replace_all_uses(kf_module *m, kf_ir_value *from, kf_ir_value *to) {
  if (!m) return KF_ERROR_INVALID_INPUT;
  API_CONTEXT(m->ctx);
  if (!from || !to)
    return walk_error(m, (SrcLoc){0}, "kf_value_replace_all_uses: %s is NULL", from ? "the new value" : "the value replaced");
  if (VAL(from)->type != VAL(to)->type) {
    char a[96], b[96];
    return walk_error(m, value_loc(VAL(from)), "kf_value_replace_all_uses: the new value is of type %s, the value "
                      "replaced of type %s", type_text(VAL(to)->type, a, sizeof a), type_text(VAL(from)->type, b, sizeof b));
  }
  if (from != to) ir_value_replace_all_uses(VAL(from), VAL(to));
  return KF_OK;
}

kf_status kf_op_set_operand(kf_module *m, kf_op *op, unsigned i, kf_ir_value *value) {
  if (!m) return KF_ERROR_INVALID_INPUT;
  API_CONTEXT(m->ctx);
  if (!op || !value) return walk_error(m, (SrcLoc){0}, "kf_op_set_operand: %s is NULL", op ? "the value" : "the op");
  Op *o = OP(op);
  if (i >= o->noperands)
    return walk_error(m, o->loc, "kf_op_set_operand: %s has %u operands, not an operand %u", op_name(o), o->noperands, i);
  Value *old = op_operand(o, i);
  if (old && old->type != VAL(value)->type) {
    char a[96], b[96];
    return walk_error(m, o->loc, "kf_op_set_operand: operand %u of %s is of type %s, the new value of type %s", i,
                      op_name(o), type_text(old->type, a, sizeof a), type_text(VAL(value)->type, b, sizeof b));
  }
  ir_op_set_operand(o, i, VAL(value));
  return KF_OK;
}

/* The erase check: the first use, outside the op being erased, of a value defined by it or inside it. */
typedef struct OutsideUse {
  Op *root;
  Use *use;
} OutsideUse;

static Use *outside_use_of(Value *v, Op *root) {
  for (Use *u = v->uses; u; u = u->next)
    if (u->user != root && !ir_op_is_ancestor(root, u->user)) return u;
  return NULL;
}

static IrWalkStep find_outside_use(Op *op, void *user) {
  OutsideUse *o = user;
  for (unsigned i = 0; i < op->nresults && !o->use; i++) o->use = outside_use_of(op_result(op, i), o->root);
  for (unsigned r = 0; r < op->nregions && !o->use; r++)
    for (Block *b = op->regions[r].first; b && !o->use; b = b->next)
      for (unsigned a = 0; a < b->nargs && !o->use; a++) o->use = outside_use_of(b->args[a], o->root);
  return o->use ? IR_WALK_INTERRUPT : IR_WALK_ADVANCE;
}

kf_status kf_op_erase(kf_module *m, kf_op *op) {
  if (!m) return KF_ERROR_INVALID_INPUT;
  API_CONTEXT(m->ctx);
  if (!op) return walk_error(m, (SrcLoc){0}, "kf_op_erase: the op is NULL");
  Op *o = OP(op);
  if (!o->block) return walk_error(m, o->loc, "kf_op_erase: the %s is in no block (erased already?)", op_name(o));
  OutsideUse found = {o, NULL};
  ir_walk(o, IR_WALK_PRE, find_outside_use, &found);
  if (found.use) {
    Op *user = found.use->user;
    const Value *v = found.use->value;
    const char *what = v->def == o ? "its result" : "a value defined inside it";
    kf_status st = walk_error(m, o->loc, "kf_op_erase: the %s cannot be erased while %s is used (operand %u of %s)",
                              op_name(o), what, found.use->index, op_name(user));
    diag_note(&m->ctx->diag, user->loc, "the use is here");
    return st;
  }
  if (o->block == ir_module_body(m->ir)) {  /* a top-level op: its symbol goes too (an update: no allocation) */
    const char *sym = ir_op_attr_str(o, "sym_name");
    if (sym && ir_module_lookup(m->ir, sym) == o) strmap_put(&m->ir->symbols, sym, NULL);
  }
  ir_op_erase(o);
  return KF_OK;
}

kf_status kf_op_remove_attr(kf_module *m, kf_op *op, const char *name) {
  if (!m) return KF_ERROR_INVALID_INPUT;
  API_CONTEXT(m->ctx);
  if (!op || !name) return walk_error(m, (SrcLoc){0}, "kf_op_remove_attr: %s is NULL", op ? "the name" : "the op");
  Op *o = OP(op);
  if (o->kind == OP_FUNC_FUNC && strcmp(name, "sym_name") == 0)
    return walk_error(m, o->loc, "kf_op_remove_attr: a function's sym_name is its name and stays");
  ir_op_remove_attr(o, name);
  return KF_OK;
}

kf_status kf_builder_insert_op(kf_builder *b, kf_op *op) {
  if (!b) return KF_ERROR_INVALID_INPUT;
  if (b->spent) return KF_ERROR_OUT_OF_MEMORY;
  kf_module *m = b->km;
  API_CONTEXT(m->ctx);
  if (!op) return walk_error(m, b->ib.loc, "kf_builder_insert_op: the op is NULL");
  Op *o = OP(op);
  Block *dest = b->ib.block;
  if (!dest) return walk_error(m, o->loc, "kf_builder_insert_op: the builder has no insertion point");
  if (!o->block) return walk_error(m, o->loc, "kf_builder_insert_op: the %s is in no block (erased?)", op_name(o));
  Module *body_of = m->ir;
  if (o->block == ir_module_body(body_of) || dest == ir_module_body(body_of))
    return walk_error(m, o->loc, "kf_builder_insert_op: a function or global stays where it is, and ops go into "
                      "functions");
  Op *dest_parent = ir_block_parent_op(dest);
  if (dest_parent && (dest_parent == o || ir_op_is_ancestor(o, dest_parent)))
    return walk_error(m, o->loc, "kf_builder_insert_op: the insertion point is inside the %s moved", op_name(o));
  if (b->ib.before == o) return KF_OK;  /* already there */
  ir_op_unlink(o);
  ib_insert(&b->ib, o);
  return KF_OK;
}
