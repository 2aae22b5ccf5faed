/* pass_util.c — small queries shared by the passes: constants, trivially dead ops, static shapes. */
#include "passes.h"

bool op_is_trivially_dead(const Op *op) {
  if (!op_has(op, OPT_PURE) || op->nregions) return false;
  for (unsigned i = 0; i < op->nresults; i++)
    if (value_has_uses(&op->results[i])) return false;
  return true;
}

bool value_const_int(const Value *v, int64_t *out) {
  if (!v->def || v->def->kind != OP_CONSTANT) return false;
  Attr *a = ir_op_attr(v->def, "value");
  if (!a || a->kind != ATTR_INT) return false;
  *out = a->i;
  return true;
}

bool value_const_float(const Value *v, double *out) {
  if (!v->def || v->def->kind != OP_CONSTANT) return false;
  Attr *a = ir_op_attr(v->def, "value");
  if (!a || a->kind != ATTR_FLOAT) return false;
  *out = a->f;
  return true;
}

unsigned ty_int_width(const Type *t) { return t->kind == TY_BOOL ? 1 : t->bits; }

uint64_t int_mask(unsigned bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

int64_t int_sext(uint64_t u, unsigned bits) {
  if (bits < 64 && ((u >> (bits - 1)) & 1)) u |= ~int_mask(bits);
  return (int64_t)u;
}

bool value_const_bits(const Value *v, uint64_t *out) {
  int64_t i;
  if (!value_const_int(v, &i)) return false;
  *out = (uint64_t)i & int_mask(ty_int_width(v->type));
  return true;
}

const Attr *value_static_shape(Module *m, const Value *v) {
  Op *d = v->def;
  const Attr *a = NULL;
  if (!d || !ty_is_array(v->type)) return NULL;
  if (d->kind == OP_ALLOCA) {
    a = ir_op_attr(d, "shape");
  } else if (d->kind == OP_GLOBAL_REF) {
    const char *name = ir_op_attr_str(d, "name");
    Op *g = name ? ir_module_lookup(m, name) : NULL;
    if (g && g->kind == OP_GLOBAL) a = ir_op_attr(g, "shape");
  }
  if (!a || a->kind != ATTR_ARRAY || a->arr.n != v->type->rank) return NULL;
  for (unsigned i = 0; i < a->arr.n; i++)
    if (a->arr.elems[i].kind != ATTR_INT || a->arr.elems[i].i < 0) return NULL;
  return a;
}
