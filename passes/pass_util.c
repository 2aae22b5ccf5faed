/* pass_util.c — small queries shared by the passes: constants, trivially dead ops. */
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
