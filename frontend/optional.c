/* optional.c — Numba's Optional(T) in kernels: a value that is None on some paths and a T on others, as Numba
 * unifies none with T (a device function that returns a value on some paths and None, a bare return or the end of
 * its body on others; a variable that holds None on one path and a value on another, around loops too; a
 * conditional expression of None and a value). Its type is ty_optional(T), its value an FV_OPTIONAL: the value
 * (zeros where it is None) and an i1 "present" flag, flattened as a tuple is (the payload's values, then the flag),
 * so kir sees only those (call results, parameters, scf.if and loop results).
 *
 * Uses, as numba-cuda has them: `x is None`, `x is not None` (and None on the left) test the flag; `x == None` is
 * False and `x != None` True whatever x holds (numba-cuda's none_equality for an Optional and None); it is assigned,
 * returned, passed to a device function (re-specialised on Optional(T)) and put in tuples as it is. Anywhere else it
 * is used as a T (lower_expr unwraps it: arithmetic, conversions, array stores, arguments of builtins): where it is
 * None that raises TypeError("expected int64, got None") at the use, numba-cuda's optional_to_any (with debug=True
 * the host raises it; without, the thread ends there). Its truth (`if x:`) is numba-cuda's TypingError: bool() has
 * no implementation for an Optional. Nothing is narrowed: inside `if x is not None:` each use unwraps again (the
 * check is folded away where the flag is a constant). */
#include <string.h>

#include "frontend/lower.h"

/* Whether kfront can carry a T that may be None: numbers, booleans, datetime64/timedelta64, arrays, records (by
 * reference), CUDA vectors, and plain tuples of them. */
static bool payload_ok(const Type *t) {
  if (t->kind == TY_ARRAY || (t->kind == TY_RECORD && !t->chars)) return true;
  if (t->kind == TY_TUPLE) {
    if (t->vector) return true;
    if (t->slice || ty_is_optional(t)) return false;
    for (unsigned i = 0; i < t->n; i++)
      if (!payload_ok(t->elems[i])) return false;
    return true;
  }
  return (ty_is_number(t) || t->kind == TY_BOOL) && !ty_is_storage(t);
}

Type *fe_optional_type(FeCtx *fe, Type *t, SrcLoc loc) {
  if (ty_is_optional(t)) return t;
  if (payload_ok(t)) return ty_optional(fe->ctx, t);
  fe_error(fe, loc, "OptionalType(%s) is not supported by kfront: a value that may be None must be a number, a "
                    "boolean, a datetime64/timedelta64, an array, a record, a CUDA vector or a tuple of them", nb_type_str(&fe->arena, t));
  return NULL;
}

/* Optional(t) for the value being lowered (a located error as lw_lerr's, quiet in speculative passes). */
static Type *optional_of(Lower *L, Type *t, SrcLoc loc) {
  if (ty_is_optional(t)) return t;
  if (payload_ok(t)) return ty_optional(L->ctx, t);
  lw_lerr(L, loc, "OptionalType(%s) is not supported by kfront: a value that may be None must be a number, a "
                  "boolean, a datetime64/timedelta64, an array, a record, a CUDA vector or a tuple of them", tname(L, t));
  return NULL;
}

FeVal lw_make_optional(Lower *L, Type *t, FeVal payload, FeVal present) {
  FeVal r = {.kind = FV_OPTIONAL, .type = t};
  r.tup.n = 2;
  r.tup.elems = ARENA_ARRAY(&L->fe->arena, FeVal, 2);
  r.tup.elems[0] = payload;
  r.tup.elems[1] = present;
  return r;
}

FeVal lw_unwrap(Lower *L, FeVal v, SrcLoc loc) {
  if (v.kind != FV_OPTIONAL) return v;
  FeVal present = v.tup.elems[1];
  if (!(present.is_const && present.c.i)) {
    at(L, loc);
    Value *none = present.is_const ? NULL : ib_binary(&L->b, OP_XORI, present.v, ib_const_bool(&L->b, true));
    lw_emit_raise(L, none, arena_printf(&L->fe->arena, "TypeError: expected %s, got None", tname(L, v.type->elems[0])),
                  loc);
  }
  FeVal r = v.tup.elems[0];
  r.literal = false;
  return r;
}

bool lw_optional_merge(Lower *L, const FeVal *a, const FeVal *b, SrcLoc loc, const char *var, Type **out) {
  bool an = a->kind == FV_NONE, bn = b->kind == FV_NONE;
  bool ao = a->kind == FV_OPTIONAL, bo = b->kind == FV_OPTIONAL;
  if (!(an || bn || ao || bo) || (an && bn)) return false;
  if (a->kind == FV_POISON || b->kind == FV_POISON) {
    *out = NULL;
    return true;
  }
  if ((an && b->kind == FV_UNDEF) || (bn && a->kind == FV_UNDEF)) return false; /* None where bound (lw_merge_static) */
  const FeVal *x = an ? b : bn ? a : NULL; /* the other side of a None */
  Type *tx = x ? lw_fv_type(L, x) : NULL;
  if (x && !tx) {
    if (!is_static(x) && x->kind != FV_UNDEF)
      lw_lerr(L, loc, "cannot unify none and %s for '%s': OptionalType(%s) is not supported by kfront", lw_vname(L, x),
              var, lw_vname(L, x));
    else
      return false; /* a function or a type meeting None: lw_merge_static's error */
    *out = NULL;
    return true;
  }
  if (x) {
    *out = optional_of(L, tx, loc);
    return true;
  }
  /* an optional meeting another value (or nothing, on a path where the variable is unbound) */
  Type *ta = a->kind == FV_UNDEF ? NULL : lw_fv_type(L, a), *tb = b->kind == FV_UNDEF ? NULL : lw_fv_type(L, b);
  if ((a->kind != FV_UNDEF && !ta) || (b->kind != FV_UNDEF && !tb)) {
    lw_lerr(L, loc, "cannot unify %s and %s for '%s'", lw_vname(L, a), lw_vname(L, b), var);
    *out = NULL;
    return true;
  }
  Type *u = !ta ? tb : !tb ? ta : nb_unify(L->ctx, ta, tb);
  if (!u) lw_lerr(L, loc, "cannot unify %s and %s for '%s'", tname(L, ta), tname(L, tb), var);
  *out = u && !ty_is_optional(u) ? optional_of(L, u, loc) : u;
  return true;
}

/* The values of an optional of value type t where it is None: zeros, an empty array, and for a record a local one
 * (its reference must index: the record of a local array of one, made at the function's entry). */
static bool flatten_none(Lower *L, Type *t, Value **out, unsigned *n, SrcLoc loc, const char *var) {
  if (t->kind == TY_RECORD) {
    Type *c = ty_array(L->ctx, t, 1, LAYOUT_C);
    Op *alloca = ir_op_create(L->m, OP_ALLOCA, L->b.loc, 0, NULL, 1, &c, 0);
    Attr one = attr_int(ty_i64(L->ctx), 1);
    ir_op_set_attr(L->m, alloca, "shape", attr_array(L->m, 1, &one));
    ir_block_prepend(ir_func_entry(L->func_op), alloca);
    out[(*n)++] = view_build(&L->b, op_result(alloca, 0), NULL, 0, record_ref_type(L->ctx, t));
    return true;
  }
  if (t->kind == TY_TUPLE && !ty_is_struct_tuple(t)) {
    for (unsigned i = 0; i < t->n; i++)
      if (!flatten_none(L, t->elems[i], out, n, loc, var)) return false;
    return true;
  }
  FeVal none = {.kind = FV_UNDEF};
  return lw_flatten_to(L, &none, t, out, n, NULL, loc, var);
}

bool lw_flatten_optional(Lower *L, const FeVal *x, Type *t, Value **out, unsigned *n, SrcLoc loc, const char *var) {
  Type *pt = t->elems[0];
  FeVal present;
  if (x->kind == FV_NONE) {
    if (!flatten_none(L, pt, out, n, loc, var)) return false;
    present = cbool(L, false);
  } else if (x->kind == FV_OPTIONAL) {
    if (!lw_flatten_to(L, &x->tup.elems[0], pt, out, n, NULL, loc, var)) return false;
    present = x->tup.elems[1];
  } else {
    if (!lw_flatten_to(L, x, pt, out, n, NULL, loc, var)) return false;
    present = cbool(L, true);
  }
  out[(*n)++] = lw_mat(L, &present);
  return true;
}

FeVal lw_unflatten_optional(Lower *L, Type *t, Value *const *vals, unsigned *pos) {
  FeVal payload = lw_unflatten(L, t->elems[0], vals, pos);
  FeVal present = val(ty_bool(L->ctx), vals[(*pos)++]);
  return lw_make_optional(L, t, payload, present);
}

bool lw_optional_compare(Lower *L, PyCmpOp op, const FeVal *a, const FeVal *b, SrcLoc loc, FeVal *out) {
  if (a->kind != FV_OPTIONAL && b->kind != FV_OPTIONAL) return false;
  const FeVal *o = a->kind == FV_OPTIONAL ? a : b, *other = a->kind == FV_OPTIONAL ? b : a;
  if (other->kind == FV_NONE && (op == CMP_IS || op == CMP_ISNOT)) {
    FeVal present = o->tup.elems[1];
    if (op == CMP_ISNOT) *out = present;
    else if (present.is_const) *out = cbool(L, !present.c.i);
    else {
      at(L, loc);
      *out = val(ty_bool(L->ctx), ib_binary(&L->b, OP_XORI, present.v, ib_const_bool(&L->b, true)));
    }
    return true;
  }
  if (other->kind == FV_NONE && (op == CMP_EQ || op == CMP_NE)) { /* numba-cuda's none_equality: by type, not value */
    *out = cbool(L, op == CMP_NE);
    return true;
  }
  if (op == CMP_IS || op == CMP_ISNOT) {
    *out = lw_lerr(L, loc, "'%s' between %s and %s is not supported: compare an Optional with None", ast_cmpop_str(op),
                   lw_vname(L, a), lw_vname(L, b));
    return true;
  }
  return false; /* compared as its value (lower_compare unwrapped it) */
}

FeVal lw_optional_truth(Lower *L, const FeVal *v, SrcLoc loc) {
  return lw_lerr(L, loc, "No implementation of function Function(<class 'bool'>) found for signature: bool(%s) "
                         "(numba-cuda gives an Optional no truth value: test `is not None`)", lw_vname(L, v));
}

FeVal lw_optional_result(Lower *L, FeVal rv, FeVal returned, SrcLoc loc) {
  if (returned.kind != FV_VAL || (returned.is_const && returned.c.i)) return rv; /* (not merged: an error was said) */
  Type *t = lw_fv_type(L, &rv);
  if (!t) return rv;
  Type *ot = optional_of(L, t, loc);
  if (!ot) return poison();
  if (rv.kind == FV_OPTIONAL) {
    FeVal present = rv.tup.elems[1];
    if (returned.is_const) present = cbool(L, false);
    else if (!(present.is_const && present.c.i))
      present = val(ty_bool(L->ctx), ib_binary(&L->b, OP_ANDI, lw_mat(L, &present), returned.v));
    else present = returned;
    return lw_make_optional(L, ot, rv.tup.elems[0], present);
  }
  return lw_make_optional(L, ot, rv, returned);
}
