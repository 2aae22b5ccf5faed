/* lower_values.c — the lowering's core: diagnostics, FeVal values (constants, conversions, tuples, flattening to
 * and from kir values), liveness, environments, and the structured if that merges the environments of its
 * branches (lower.h describes the scheme); the read-before-assigned analysis liveness and loops share. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lower.h"
#include "ir/op_semantics.h"

/* ---- diagnostics and locations ------------------------------------------------------------------------ */

FeVal lw_lerr(Lower *L, SrcLoc loc, const char *fmt, ...) {
  if (L->quiet) {
    L->suppressed++;
    return poison();
  }
  va_list ap;
  va_start(ap, fmt);
  diag_report(L->fe->diag, DIAG_ERROR, user_loc(L, loc), fmt, ap);
  va_end(ap);
  L->errors++;
  return poison();
}

/* The thread's stack is nearly exhausted (stack.h) at `what` (nested blocks, brackets or calls): a located error,
 * once per function — every statement after it would say the same. */
FeVal lw_out_of_stack(Lower *L, SrcLoc loc, const char *what) {
  if (L->out_of_stack) return poison();
  if (!L->quiet) L->out_of_stack = true; /* a quiet attempt is made again aloud */
  return lw_lerr(L, loc, "%s nested too deeply for the thread's stack", what);
}

/* A value's description for diagnostics: its Numba type, or what kind of object it is. */
const char *lw_vname(Lower *L, const FeVal *v) {
  switch (v->kind) {
  case FV_VAL: return v->enumc ? fe_enum_type_name(L->fe, v->enumc) : tname(L, v->type);
  case FV_TUPLE: {
    if (v->type) return tname(L, v->type);
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "tuple(");
    for (unsigned i = 0; i < v->tup.n; i++) {
      if (i) sb_puts(&b, ", ");
      sb_puts(&b, lw_vname(L, &v->tup.elems[i]));
    }
    sb_putc(&b, ')');
    const char *s = arena_strdup(&L->fe->arena, sb_cstr(&b));
    sb_free(&b);
    return s;
  }
  case FV_VIEW:
  case FV_RECORD:
  case FV_VECTOR:
  case FV_OPTIONAL: return tname(L, v->type);
  case FV_PATH: return arena_printf(&L->fe->arena, "module '%s'", v->str.s);
  case FV_BUILTIN:
    if (v->builtin == BI_GRID_GROUP) return "GridGroup";
    return arena_printf(&L->fe->arena, "function '%s'", sema_builtin_name(v->builtin));
  case FV_NTYPE: return arena_printf(&L->fe->arena, "class(%s)", tname(L, v->type));
  case FV_FUNC: case FV_PYFUNC: return arena_printf(&L->fe->arena, "function '%s'", v->func->name);
  case FV_CLOSURE: return arena_printf(&L->fe->arena, "function '%s'", v->clo->fn->name);
  case FV_EXCINST: return "an exception instance";
  case FV_EXCEPTION: return arena_printf(&L->fe->arena, "exception class '%s'", v->str.s);
  case FV_NONE: return "none";
  case FV_STR: return "unicode_type";
  case FV_BYTES: return "readonly bytes(uint8, 1d, C)";
  case FV_CTYPES: return arena_printf(&L->fe->arena, "ArrayCTypes(dtype=%s, ndim=%u)", tname(L, v->type->elem), v->type->rank);
  case FV_HOST: return "a host object";
  case FV_CONSTARR: return arena_printf(&L->fe->arena, "a constant %s", tname(L, v->carr->type));
  case FV_NAMESPACE:
    if (v->ns->module) return arena_printf(&L->fe->arena, "Module(<module '%s'>)", v->ns->module);
    return arena_printf(&L->fe->arena, "namespace '%s'", v->ns->name);
  case FV_METHOD: return arena_printf(&L->fe->arena, "method '%s' of %s", lw_method_names[v->builtin], tname(L, v->type));
  case FV_UNDEF: return "undefined";
  default: return "?";
  }
}

/* Records a local's type for the on_type hook (tests compare it with Numba's typemap); the records of a
 * loop body lowered speculatively are dropped with it, the rest are reported when the function is done. */
void lw_note_type(Lower *L, unsigned i, const FeVal *v) {
  if (i < L->fn->nlocals && v->kind == FV_VAL && !v->enumc && (ty_is_number(v->type) || v->type->kind == TY_BOOL))
    L->seen_types[i] = v->type;
  const FeOptions *o = L->fe->opts;
  if (!o->on_type || i >= L->fn->nlocals || L->fn->kind == FN_TEMPLATE) return;
  if (v->kind != FV_VAL && v->kind != FV_TUPLE && v->kind != FV_VIEW && v->kind != FV_RECORD && v->kind != FV_VECTOR &&
      v->kind != FV_OPTIONAL)
    return;
  if (L->nnotes == L->notes_cap) {
    L->notes_cap = L->notes_cap ? 2 * L->notes_cap : 32;
    Note *n = ARENA_ARRAY(&L->fe->arena, Note, L->notes_cap);
    if (L->nnotes) memcpy(n, L->notes, sizeof *n * L->nnotes);
    L->notes = n;
  }
  L->notes[L->nnotes++] = (Note){i, lw_vname(L, v)};
}

void lw_report_notes(Lower *L) {
  const FeOptions *o = L->fe->opts;
  if (!o->on_type) return;
  for (unsigned k = 0; k < L->nnotes; k++)
    o->on_type(o->on_type_user, L->fn->py_name ? L->fn->py_name : L->fn->name, L->fn->locals[L->notes[k].var].name,
               L->notes[k].type);
}

/* ---- values ------------------------------------------------------------------------------------------------ */

Value *lw_mat(Lower *L, const FeVal *x) {
  if (x->v) return x->v;
  Type *t = x->type;
  if (t->kind == TY_COMPLEX) { /* a zero (zero_of): complex values are otherwise never constants in kernels */
    Value *re = ib_const_float(&L->b, t->elem, x->c.f), *im = ib_const_float(&L->b, t->elem, x->im);
    return complex_make(L, re, im, t);
  }
  if (t->kind == TY_FLOAT) {
    if (t->bits == 16) return ib_unary(&L->b, OP_TRUNCF, ib_const_float(&L->b, ty_f32(L->ctx), x->c.f), t);
    return ib_const_float(&L->b, t, x->c.f);
  }
  return ib_const_int(&L->b, t, x->c.i);
}

FeVal lw_conv(Lower *L, FeVal x, Type *t) {
  if (x.kind != FV_VAL || x.type == t) return x;
  if (t->kind == TY_COMPLEX || x.type->kind == TY_COMPLEX) return lw_conv_complex(L, x, t);
  /* numba-cuda casts a float16 to an integer rounding to nearest, not toward zero (cvt.rni.sN.f16) */
  if (ty_is_f16(x.type) && t->kind == TY_INT) return val(t, num_lowp_to_int(&L->b, lw_mat(L, &x), t, IR_ROUND_RN));
  if (x.is_const && !(t->kind == TY_FLOAT && t->bits == 16)) {
    bool from_float = x.type->kind == TY_FLOAT;
    double f = from_float ? x.c.f : x.type->is_unsigned ? (double)(uint64_t)x.c.i : (double)x.c.i;
    if (t->kind == TY_FLOAT) return cfloat(t, t->bits == 32 ? (double)(float)f : f);
    if (t->kind == TY_BOOL) return cint(t, from_float ? f != 0 : x.c.i != 0);
    /* folded as the op computes it at run time (ir/op_semantics: arith.fptosi/fptoui saturate, arith.trunci and
     * the extensions keep the low bits), held sign- or zero-extended from the type's width */
    uint64_t bits = from_float ? sem_float_to_int(f, t->bits, !t->is_unsigned) : (uint64_t)x.c.i;
    FeVal r = cint(t, (int64_t)sem_norm(bits, 64 - t->bits, !t->is_unsigned));
    if (t->is_unsigned) r.nonneg = true;
    return r;
  }
  FeVal r = val(t, ib_cast(&L->b, lw_mat(L, &x), t));
  r.nonneg = x.nonneg && t->kind == TY_INT && x.type->kind != TY_FLOAT &&
             (t->bits > x.type->bits || (t->bits == x.type->bits && t->is_unsigned == x.type->is_unsigned));
  return r;
}

/* Python truth of a value as i1 (FeVal, possibly constant). */
FeVal lw_truth(Lower *L, FeVal x, SrcLoc loc) {
  switch (x.kind) {
  case FV_POISON: return x;
  case FV_NONE: return cbool(L, false);
  case FV_OPTIONAL: return lw_optional_truth(L, &x, loc);
  case FV_TUPLE: return cbool(L, x.tup.n != 0);
  case FV_RECORD:
    if (lw_is_charseq(&x)) return lw_charseq_truth(L, &x, loc);
    return lw_lerr(L, loc, "%s has no truth value in a kernel", lw_vname(L, &x));
  case FV_VAL:
    if (is_enum_only(&x)) return lw_lerr(L, loc, "the truth value of %s is not supported", lw_vname(L, &x));
    if (is_time(&x))
      return lw_lerr(L, loc, "%s has no truth value (numba-cuda has no bool() of datetime64 or timedelta64)",
                     tname(L, x.type));
    if (ty_is_storage(x.type))
      return lw_lerr(L, loc, "%s has no truth value (numba-cuda has no lowering of bool() for it; compare its "
                     "float32() instead)", tname(L, x.type));
    if (ty_is_number(x.type)) return lw_conv(L, x, ty_bool(L->ctx));
    return lw_lerr(L, loc, "the truth value of an array (%s) is ambiguous", tname(L, x.type));
  default: return lw_lerr(L, loc, "%s has no truth value in a kernel", lw_vname(L, &x));
  }
}

/* The runtime type of a value (tuples as tuple types), or NULL. */
Type *lw_fv_type(Lower *L, const FeVal *v) {
  if (v->kind == FV_VAL || v->kind == FV_VECTOR || v->kind == FV_OPTIONAL) return v->type;
  if (v->kind == FV_RECORD) return v->type; /* a reference to a record: carried as its array of one (flat_types) */
  if (v->kind == FV_TUPLE) {
    if (v->type) return v->type;
    if (v->tup.n > MAX_FLAT) return NULL;
    Type **elems = ARENA_ARRAY(&L->fe->arena, Type *, v->tup.n ? v->tup.n : 1);
    for (unsigned i = 0; i < v->tup.n; i++)
      if (!(elems[i] = lw_fv_type(L, &v->tup.elems[i]))) return NULL;
    return ty_tuple(L->ctx, v->tup.n, elems);
  }
  return NULL;
}

FeVal lw_make_tuple(Lower *L, unsigned n, const FeVal *elems) {
  FeVal t = {.kind = FV_TUPLE};
  t.tup.n = n;
  t.tup.elems = ARENA_ARRAY(&L->fe->arena, FeVal, n ? n : 1);
  if (n) memcpy(t.tup.elems, elems, sizeof(FeVal) * n);
  t.type = lw_fv_type(L, &t);
  return t;
}

FeVal lw_make_tuple_like(Lower *L, const Type *like, unsigned n, const FeVal *elems) {
  FeVal t = lw_make_tuple(L, n, elems);
  if (!like || like->kind != TY_TUPLE || !like->tclass || like->n != n || !t.type) return t;
  t.type = ty_named_tuple(L->ctx, like->tclass, (const char *const *)like->names, n, t.type->elems);
  return t;
}

/* A vector value of type t from its fields (FV_VAL scalars of its base type; the array is kept). */
FeVal lw_make_vector(Type *t, FeVal *fields) {
  FeVal v = {.kind = FV_VECTOR, .type = t};
  v.tup.n = t->n;
  v.tup.elems = fields;
  return v;
}

/* A tuple the kernel builds (a literal, a concatenation): at most MAX_FLAT values, nested ones counted, and
 * FE_MAX_NESTING levels, else a located error. Other tuples are made from these or from their types. */
FeVal lw_user_tuple(Lower *L, unsigned n, const FeVal *elems, SrcLoc loc) {
  for (unsigned i = 0; i < n; i++)
    if (elems[i].kind == FV_POISON) return poison();
  FeVal t = {.kind = FV_TUPLE, .tup = {.n = n, .elems = (FeVal *)elems}};
  if (!fe_tuple_fits(&t, MAX_FLAT))
    return lw_lerr(L, loc, "tuples of more than %d values (nested ones included) or nested more than %d deep are not "
                        "supported", MAX_FLAT, FE_MAX_NESTING);
  return lw_make_tuple(L, n, elems);
}

/* " (defined at line N)" for an inner def or lambda, to tell apart functions of one name; else "". */
static const char *def_line(Lower *L, const FeVal *v) {
  if (v->kind != FV_CLOSURE) return "";
  return arena_printf(&L->fe->arena, " (defined at line %u)", v->clo->fn->loc.line);
}

bool lw_fv_same(const FeVal *a, const FeVal *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case FV_VAL:
    if (a->type != b->type || a->enumc != b->enumc) return false;
    if (a->v || b->v) return a->v == b->v;
    return a->is_const && b->is_const && a->c.i == b->c.i;
  case FV_TUPLE:
  case FV_VIEW:
  case FV_RECORD:
  case FV_VECTOR:
  case FV_OPTIONAL:
    if (a->tup.n != b->tup.n || ((a->kind == FV_VECTOR || a->kind == FV_OPTIONAL) && a->type != b->type)) return false;
    for (unsigned i = 0; i < a->tup.n; i++)
      if (!lw_fv_same(&a->tup.elems[i], &b->tup.elems[i])) return false;
    return true;
  case FV_PATH:
  case FV_STR:
  case FV_BYTES: return a->str.len == b->str.len && memcmp(a->str.s, b->str.s, a->str.len) == 0;
  case FV_BUILTIN: return a->builtin == b->builtin;
  case FV_NTYPE: return a->type == b->type;
  case FV_FUNC:
  case FV_PYFUNC: return a->func == b->func;
  case FV_NAMESPACE: return a->ns == b->ns;
  case FV_METHOD: return a->builtin == b->builtin && a->v == b->v;
  case FV_CTYPES: return a->v == b->v;
  case FV_CLOSURE: {
    const FeClosure *x = a->clo, *y = b->clo;
    if (x == y) return true;
    if (x->fn != y->fn || !x->captured != !y->captured) return false;
    const PyParams *ps = &x->fn->def->funcdef.params;
    for (unsigned i = 0; i < ps->n; i++)
      if (!lw_fv_same(&x->defaults[i], &y->defaults[i])) return false;
    for (unsigned i = 0; x->captured && i < x->fn->ncaptures; i++)
      if (!lw_fv_same(&x->captured[i], &y->captured[i])) return false;
    return true;
  }
  default: return true;
  }
}

unsigned lw_type_slots(const Type *t) {
  if (t->kind != TY_TUPLE) return 1;
  unsigned n = 0;
  for (unsigned i = 0; i < t->n; i++) n += lw_type_slots(t->elems[i]);
  return n;
}

void lw_flat_types(IrContext *ctx, const Type *t, Type **out, unsigned *n) {
  if (t->kind != TY_TUPLE) {
    if (*n < MAX_FLAT) out[*n] = t->kind == TY_RECORD ? record_ref_type(ctx, (Type *)t) : (Type *)t;
    (*n)++;
    return;
  }
  for (unsigned i = 0; i < t->n; i++) lw_flat_types(ctx, t->elems[i], out, n);
}

/* The value an array variable has on a path where it is unbound (its bound flag says so: a read there raises
 * UnboundLocalError, "unbound locals" below): an empty array of type t, a view of no elements of a local array of
 * one (made at the function's entry), so that even an unchecked read is reported by the simulator. */
static Value *empty_array(Lower *L, Type *t) {
  Type *base = ty_array(L->ctx, t->elem, 1, LAYOUT_C);
  Op *alloca = ir_op_create(L->m, OP_ALLOCA, L->b.loc, 0, NULL, 1, &base, 0);
  Attr one = attr_int(ty_i64(L->ctx), 1);
  ir_op_set_attr(L->m, alloca, "shape", attr_array(L->m, 1, &one));
  ir_block_prepend(ir_func_entry(L->func_op), alloca);
  Value *ops[1 + 16];
  ops[0] = op_result(alloca, 0);
  Value *z = ib_const_int(&L->b, ty_i64(L->ctx), 0);
  for (unsigned d = 0; d < 2 * t->rank; d++) ops[1 + d] = z;
  return op_result(ib_op(&L->b, OP_REINTERPRET, 1 + 2 * t->rank, ops, 1, &t, 0), 0);
}

/* The record r as the array of it alone (record_ref_type): a view of its one element. */
Value *lw_record_as_array(Lower *L, const FeVal *r) {
  Value *arr = r->tup.elems[0].v;
  ViewItem items[9];
  unsigned n = 0;
  for (unsigned k = 1; k < r->tup.n && n < 8; k++)
    items[n++] = (ViewItem){.kind = VI_INT, .index = lw_mat(L, &r->tup.elems[k]), .axis = (int)k - 1};
  items[n++] = (ViewItem){.kind = VI_NEWAXIS, .axis = -1};
  return view_build(&L->b, arr, items, n, record_ref_type(L->ctx, r->type));
}

bool lw_flatten_to(Lower *L, const FeVal *x, Type *t, Value **out, unsigned *n, Value *const *fallback,
                   SrcLoc loc, const char *var) {
  if (x->kind == FV_POISON || x->kind == FV_UNDEF) {
    unsigned k = lw_type_slots(t);
    Type **ft = ARENA_ARRAY(&L->fe->arena, Type *, k > MAX_FLAT ? k : MAX_FLAT);
    unsigned nt = 0;
    lw_flat_types(L->ctx, t, ft, &nt);
    for (unsigned i = 0; i < k; i++) {
      Value *v = fallback ? fallback[i] : NULL;
      if (!v) {
        if (ft[i]->kind == TY_ARRAY) {
          if (x->kind != FV_UNDEF) return false;
          v = empty_array(L, ft[i]);
        } else {
          FeVal z = zero_of(ft[i]);
          v = lw_mat(L, &z);
        }
      }
      out[(*n)++] = v;
    }
    return true;
  }
  if (ty_is_optional(t)) return lw_flatten_optional(L, x, t, out, n, loc, var);
  if (x->kind == FV_OPTIONAL) { /* an optional where its T is wanted (a declared result type): its value, checked */
    FeVal v = lw_unwrap(L, *x, loc);
    return lw_flatten_to(L, &v, t, out, n, fallback, loc, var);
  }
  if (t->kind == TY_TUPLE) {
    if (ty_is_struct_tuple(t) ? x->kind != FV_VECTOR || x->type != t : x->kind != FV_TUPLE || x->tup.n != t->n) {
      lw_lerr(L, loc, "cannot unify %s and %s for '%s'", lw_vname(L, x), tname(L, t), var);
      return false;
    }
    for (unsigned i = 0; i < t->n; i++) {
      unsigned before = *n;
      if (!lw_flatten_to(L, &x->tup.elems[i], t->elems[i], out, n, fallback ? fallback + before : NULL, loc, var))
        return false;
    }
    return true;
  }
  if (t->kind == TY_RECORD || x->kind == FV_RECORD) {
    if (x->kind != FV_RECORD || x->type != t) {
      lw_lerr(L, loc, "cannot unify %s and %s for '%s'", lw_vname(L, x), tname(L, t), var);
      return false;
    }
    out[(*n)++] = lw_record_as_array(L, x);
    return true;
  }
  if (x->kind != FV_VAL) {
    lw_lerr(L, loc, "cannot unify %s and %s for '%s'", lw_vname(L, x), tname(L, t), var);
    return false;
  }
  if (t->kind == TY_ARRAY || x->type->kind == TY_ARRAY) {
    if (x->type != t && t->kind == TY_ARRAY && x->type->kind == TY_ARRAY && t->layout == LAYOUT_A &&
        x->type->elem == t->elem && x->type->rank == t->rank) {
      out[(*n)++] = view_build(&L->b, x->v, NULL, 0, t); /* a C or F array where layouts meet: as A (Numba's unify) */
      return true;
    }
    if (x->type != t) {
      lw_lerr(L, loc, "cannot unify %s and %s for '%s'", tname(L, x->type), tname(L, t), var);
      return false;
    }
    out[(*n)++] = x->v;
    return true;
  }
  const char *what = strcmp(var, "<return value>") == 0 ? " to return it" : arena_printf(&L->fe->arena, " for '%s'", var);
  if (lw_implicit_conv_error(L, x, t, loc, what)) return false;
  out[(*n)++] = conv_v(L, *x, t);
  return true;
}

FeVal lw_unflatten(Lower *L, Type *t, Value *const *vals, unsigned *pos) {
  if (t->kind == TY_RECORD) return record_of_array(L, vals[(*pos)++]);
  if (t->kind != TY_TUPLE) return val(t, vals[(*pos)++]);
  if (ty_is_optional(t)) return lw_unflatten_optional(L, t, vals, pos);
  FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, t->n ? t->n : 1);
  for (unsigned i = 0; i < t->n; i++) elems[i] = lw_unflatten(L, t->elems[i], vals, pos);
  return ty_is_struct_tuple(t) ? lw_make_vector(t, elems) : lw_make_tuple_like(L, t, t->n, elems);
}

/* The type a variable gets where two paths meet, or NULL (error already reported unless quiet). */
static Type *merge_type(Lower *L, const FeVal *a, const FeVal *b, SrcLoc loc, const char *var, bool *fail) {
  *fail = false;
  if (a->kind == FV_POISON || b->kind == FV_POISON) {
    *fail = true;
    return NULL;
  }
  Type *ta = a->kind == FV_UNDEF ? NULL : lw_fv_type(L, a), *tb = b->kind == FV_UNDEF ? NULL : lw_fv_type(L, b);
  if ((a->kind != FV_UNDEF && !ta) || (b->kind != FV_UNDEF && !tb)) {
    *fail = true;
    if (a->kind == FV_VIEW || b->kind == FV_VIEW)
      lw_lerr(L, loc, "'%s' holds an array view (a[i] of an array of higher rank) that differs between paths; "
               "index the array directly", var);
    else if (a->kind == FV_STR || b->kind == FV_STR)
      lw_lerr(L, loc, "'%s' holds a different string on each path: a string chosen at run time is not supported, but "
                   "for the value of a member of one enum of strings chosen at run time (choose the member)", var);
    else
      lw_lerr(L, loc, "cannot unify %s and %s for '%s'", lw_vname(L, a), lw_vname(L, b), var);
    return NULL;
  }
  if (!ta) return tb;
  if (!tb) return ta;
  Type *u = nb_unify(L->ctx, ta, tb);
  if (!u) {
    *fail = true;
    lw_lerr(L, loc, "cannot unify %s and %s for '%s'", tname(L, ta), tname(L, tb), var);
  }
  return u;
}

/* A compile-time value (a function, a closure, a Numba type, None: is_static) where two paths meet: the value
 * bound on both, or on the one path that binds it (its bound flag, merged like any variable, says where: "unbound
 * locals"). Two different functions would make a first-class function value, which numba-cuda cannot lower on
 * CUDA (a function pointer: "Cannot cast type(CUDADispatcher) to FunctionType"): an error, as is a static value
 * meeting a run-time one. 0 when neither is static; 1 with *out set, or -1 after a located error. */
int lw_merge_static(Lower *L, const FeVal *a, const FeVal *b, SrcLoc loc, const char *var, FeVal *out) {
  if (!is_static(a) && !is_static(b)) return 0;
  if (a->kind == FV_POISON || b->kind == FV_POISON) return -1;
  if (a->kind == FV_UNDEF || b->kind == FV_UNDEF || lw_fv_same(a, b)) {
    *out = a->kind == FV_UNDEF ? *b : *a;
    return 1;
  }
  if (a->kind == FV_CLOSURE && b->kind == FV_CLOSURE && a->clo->fn == b->clo->fn)
    lw_lerr(L, loc, "'%s' holds %s with default values (or captured constants) that differ between paths: not "
                 "supported (kfront keeps one value of each, evaluated where the function is defined)", var,
            lw_vname(L, a));
  else if (is_static(a) && is_static(b) && a->kind != FV_NONE && b->kind != FV_NONE)
    lw_lerr(L, loc, "'%s' holds %s%s on one path and %s%s on another: a function chosen at run time is a first-class "
                 "function value, which is not supported on CUDA (numba-cuda: Cannot cast type(CUDADispatcher) to "
                 "FunctionType); call each function on its own path", var, lw_vname(L, a), def_line(L, a), lw_vname(L, b),
         def_line(L, b));
  else
    lw_lerr(L, loc, "cannot unify %s and %s for '%s'", lw_vname(L, a), lw_vname(L, b), var);
  return -1;
}

/* The enum member type a variable keeps where two paths meet: the one class on both (or on the one path that
 * binds it); an IntEnum member meeting an integer or another IntEnum becomes that integer, as Numba unifies
 * them; an Enum member meeting anything else is an error (false, reported). */
bool lw_merge_enum(Lower *L, const FeVal *a, const FeVal *b, SrcLoc loc, const char *var, const FeEnum **out) {
  *out = NULL;
  bool ua = a->kind == FV_UNDEF, ub = b->kind == FV_UNDEF;
  const FeEnum *ea = a->kind == FV_VAL ? a->enumc : NULL, *eb = b->kind == FV_VAL ? b->enumc : NULL;
  if (ua || ub || ea == eb) {
    *out = ua ? eb : ea;
    return true;
  }
  if ((ea && !ea->is_int) || (eb && !eb->is_int)) {
    lw_lerr(L, loc, "cannot unify %s and %s for '%s'", lw_vname(L, a), lw_vname(L, b), var);
    return false;
  }
  return true;
}

const char *lw_var_name(Lower *L, unsigned i) {
  if (i < L->fn->nlocals) return L->fn->locals[i].name;
  if (i == L->v_ret) return "<returned>";
  if (i == L->v_rv) return "<return value>";
  if (i == L->v_brk) return "<break>";
  if (i == L->v_cont) return "<continue>";
  if (i >= L->v_bound0) return arena_printf(&L->fe->arena, "<%s is bound>", L->fn->locals[i - L->v_bound0].name);
  return "<loop counter>";
}

/* ---- liveness ----------------------------------------------------------------------------------------------
 * A variable that differs between the branches of an if, or is assigned in a loop, only becomes a result
 * (or a loop-carried value) if it may be read afterwards. The statements being lowered form a stack of
 * frames (statement lists and the index in each); a variable is live after statement k of a frame if the
 * rest of that list reads it before assigning it on some path, else (when the rest does not assign it on
 * every path) if the frame is a loop body and the loop reads it before assigning it (next iteration), or
 * if it is live after the statement that holds the frame in the enclosing frame (after the enclosing frame's
 * last statement, where the frame holds the enclosing one's rest: Frame.holds_rest). A break or continue on the
 * way skips the rest of every list up to the loop's body: where the rest of a list (or the statement at hand,
 * whose results are merged after any break in it has set its flag) may leave the iteration, the variable is
 * also live if it is live at the end of the innermost loop body (its next iteration, or what follows the
 * loop), whatever the lists in between assign. The read-before-assigned and assigned-on-every-path sets of
 * every suffix of a list, and whether it may leave the iteration, are computed once per list, backwards. */

typedef struct Suffix {
  PyStmt *const *list;
  unsigned n;
  bool *ue, *def; /* (n + 1) rows of nlocals: read-before-assigned / assigned-on-every-path, from index k on */
  bool *leaves;   /* n + 1: whether the statements from index k on may break or continue the loop around them */
} Suffix;

static const Suffix *suffix_of(Lower *L, PyStmt *const *list, unsigned n) {
  for (unsigned i = 0; i < L->nsuffixes; i++)
    if (L->suffixes[i].list == list && L->suffixes[i].n == n) return &L->suffixes[i];
  if (L->nsuffixes == L->suffixes_cap) {
    L->suffixes_cap = L->suffixes_cap ? 2 * L->suffixes_cap : 16;
    Suffix *ns = ARENA_ARRAY(&L->fe->arena, Suffix, L->suffixes_cap);
    if (L->nsuffixes) memcpy(ns, L->suffixes, sizeof *ns * L->nsuffixes);
    L->suffixes = ns;
  }
  unsigned nl = L->fn->nlocals ? L->fn->nlocals : 1;
  Suffix *sx = &L->suffixes[L->nsuffixes++];
  sx->list = list;
  sx->n = n;
  sx->ue = ARENA_ARRAY(&L->fe->arena, bool, (size_t)(n + 1) * nl);
  sx->def = ARENA_ARRAY(&L->fe->arena, bool, (size_t)(n + 1) * nl);
  sx->leaves = ARENA_ARRAY(&L->fe->arena, bool, (size_t)n + 1);
  bool *u1 = ARENA_ARRAY(&L->fe->arena, bool, nl), *d1 = ARENA_ARRAY(&L->fe->arena, bool, nl);
  for (unsigned k = n; k-- > 0;) {
    memset(u1, 0, nl);
    memset(d1, 0, nl);
    PyStmtList one = {(PyStmt **)&list[k], 1};
    lw_ue_stmts(L, &one, d1, u1);
    sx->leaves[k] = sx->leaves[k + 1] || sema_leaves_iteration(&list[k], 1);
    bool *ue = sx->ue + (size_t)k * nl, *def = sx->def + (size_t)k * nl;
    const bool *ue_next = ue + nl, *def_next = def + nl;
    for (unsigned v = 0; v < nl; v++) {
      ue[v] = u1[v] || (ue_next[v] && !d1[v]);
      def[v] = d1[v] || def_next[v];
    }
  }
  return sx;
}

/* Whether local v may be read after position `from` of the innermost frame. Two paths are followed outwards at
 * once: falling through (live while no list assigns v first), and leaving the iteration by a break or continue
 * (pending from the first list whose rest may, it rejoins the first at the end of the loop's body). */
static bool live_from(Lower *L, unsigned v, unsigned from) {
  unsigned nl = L->fn->nlocals;
  bool through = true, leaving = false;
  if (!L->frame) return false;
  unsigned leaves_from = from < L->frame->k ? from : L->frame->k; /* the statement at hand may break, too */
  for (Frame *f = L->frame; f; f = f->outer) {
    const Suffix *sx = suffix_of(L, f->s, f->n);
    if (through) {
      if (leaves_from < f->n && sx->leaves[leaves_from]) leaving = true;
      if (from < f->n) {
        if (sx->ue[(size_t)from * nl + v]) return true;
        if (sx->def[(size_t)from * nl + v]) through = false;
      }
    }
    if (f->loop_ue) { /* the end of a loop body: the next iteration and, through the loop, what follows it */
      through = through || leaving;
      leaving = false;
      if (through && f->loop_ue[v]) return true;
    }
    if (!through && !leaving) return false;
    if (!f->outer) return false;
    from = leaves_from = f->holds_rest ? f->outer->n : f->outer->k + 1;
  }
  return false;
}

/* Whether variable i may be read after position `after` of the innermost frame. */
bool lw_var_live(Lower *L, unsigned i, unsigned after) {
  if (i == L->v_rv) return true;
  if (i == L->v_ret) return L->pending_fn > 0 || L->loop != NULL || L->value_returns;
  if (i == L->v_brk) return L->loop != NULL;
  if (i == L->v_cont) return L->pending_loop > 0;
  if (i >= L->v_bound0) i -= L->v_bound0;
  else if (i >= L->fn->nlocals) return true;
  if (L->fn->captured[i]) return true; /* read by an inner def or lambda, wherever it is called */
  return live_from(L, i, after);
}

/* ---- environments -------------------------------------------------------------------------------------- */

FeVal *lw_env_copy(Lower *L) {
  FeVal *e = ARENA_ARRAY(&L->fe->arena, FeVal, L->nvars);
  memcpy(e, L->env, sizeof(FeVal) * L->nvars);
  return e;
}

/* ---- structured if with environment merge ------------------------------------------------------------- */

/* refine: bit set of pseudo-variables known true in the then-branch (when one bit) and false in the else. */
void lw_emit_if(Lower *L, Value *cond, unsigned refine_mask, unsigned after, SrcLoc loc, BranchFn fthen, void *athen,
                BranchFn felse, void *aelse) {
  unsigned nv = L->nvars;
  FeVal *e0 = lw_env_copy(L);
  at(L, loc);
  Op *tmp = ib_op(&L->b, OP_IF, 1, &cond, 0, NULL, 2);
  Block *bt = ir_block_new(L->m), *be = ir_block_new(L->m);
  ir_region_append_block(&tmp->regions[0], bt);
  ir_region_append_block(&tmp->regions[1], be);
  IrBuilder saved = L->b;
  unsigned nbits = (unsigned)__builtin_popcount(refine_mask);

  ib_set_end(&L->b, bt);
  if (nbits == 1)
    for (unsigned i = L->fn->nlocals; i < L->v_iv0; i++)
      if ((refine_mask >> (i - L->fn->nlocals)) & 1) L->env[i] = cbool(L, true);
  if (fthen) fthen(L, athen);
  FeVal *e1 = lw_env_copy(L);

  env_set(L, e0);
  ib_set_end(&L->b, be);
  for (unsigned i = L->fn->nlocals; i < L->v_iv0; i++)
    if ((refine_mask >> (i - L->fn->nlocals)) & 1) L->env[i] = cbool(L, false);
  if (felse) felse(L, aelse);
  FeVal *e2 = lw_env_copy(L);

  /* merge */
  FeVal *merged = L->env;
  Type **types = ARENA_ARRAY(&L->fe->arena, Type *, nv);
  unsigned nres = 0;
  for (unsigned i = 0; i < nv; i++) {
    types[i] = NULL;
    if (lw_fv_same(&e1[i], &e2[i])) {
      merged[i] = e1[i];
      continue;
    }
    if (!lw_var_live(L, i, after)) {
      merged[i] = (FeVal){.kind = FV_UNDEF};
      continue;
    }
    /* a view a[i] that differs between the branches (or is bound on one only): the array it stands for, made in
     * its branch */
    if (lw_holds_view(&e1[i]) || lw_holds_view(&e2[i])) {
      ib_set_end(&L->b, bt);
      e1[i] = lw_views_as_arrays(L, &e1[i]);
      ib_set_end(&L->b, be);
      e2[i] = lw_views_as_arrays(L, &e2[i]);
      L->b = saved;
    }
    Type *ot;
    if (lw_optional_merge(L, &e1[i], &e2[i], loc, lw_var_name(L, i), &ot)) { /* None and a value: Optional */
      if (!ot) {
        merged[i] = poison();
        continue;
      }
      types[i] = ot;
      nres += lw_type_slots(ot);
      continue;
    }
    int st = lw_merge_static(L, &e1[i], &e2[i], loc, lw_var_name(L, i), &merged[i]);
    if (st) {
      if (st < 0) merged[i] = poison();
      continue;
    }
    bool fail;
    Type *t = merge_type(L, &e1[i], &e2[i], loc, lw_var_name(L, i), &fail);
    if (!t) {
      merged[i] = fail ? poison() : (FeVal){.kind = FV_UNDEF};
      continue;
    }
    const FeEnum *en;
    if (!lw_merge_enum(L, &e1[i], &e2[i], loc, lw_var_name(L, i), &en)) {
      merged[i] = poison();
      continue;
    }
    types[i] = t;
    nres += lw_type_slots(t);
  }
  Value **v1 = ARENA_ARRAY(&L->fe->arena, Value *, nres ? nres : 1);
  Value **v2 = ARENA_ARRAY(&L->fe->arena, Value *, nres ? nres : 1);
  Type **rt = ARENA_ARRAY(&L->fe->arena, Type *, nres ? nres : 1);
  unsigned n1 = 0, n2 = 0, nt = 0;
  bool ok = true;
  for (unsigned i = 0; i < nv; i++) {
    if (!types[i]) continue;
    lw_flat_types(L->ctx, types[i], rt, &nt);
    ib_set_end(&L->b, bt);
    ok = lw_flatten_to(L, &e1[i], types[i], v1, &n1, NULL, loc, lw_var_name(L, i)) && ok;
    ib_set_end(&L->b, be);
    ok = lw_flatten_to(L, &e2[i], types[i], v2, &n2, NULL, loc, lw_var_name(L, i)) && ok;
    if (!ok) break;
  }
  if (!ok) {
    for (unsigned i = 0; i < nv; i++)
      if (types[i]) merged[i] = poison();
    nres = 0;
  }
  ib_set_end(&L->b, bt);
  ib_op(&L->b, OP_YIELD, nres, v1, 0, NULL, 0);
  ib_set_end(&L->b, be);
  ib_op(&L->b, OP_YIELD, nres, v2, 0, NULL, 0);
  L->b = saved;
  at(L, loc);
  Op *op = ir_op_create(L->m, OP_IF, L->b.loc, 1, &cond, nres, rt, 2);
  ir_op_insert_before(tmp, op);
  ir_block_unlink(bt);
  ir_block_unlink(be);
  ir_region_append_block(&op->regions[0], bt);
  ir_region_append_block(&op->regions[1], be);
  ir_op_erase(tmp);
  unsigned pos = 0;
  Value **results = ARENA_ARRAY(&L->fe->arena, Value *, nres ? nres : 1);
  for (unsigned i = 0; i < nres; i++) results[i] = op_result(op, i);
  for (unsigned i = 0; i < nv && nres; i++) {
    if (!types[i]) continue;
    FeVal m = lw_unflatten(L, types[i], results, &pos);
    if (m.kind == FV_VAL && m.type->kind == TY_INT)
      m.nonneg = (e1[i].kind == FV_UNDEF || e1[i].nonneg) && (e2[i].kind == FV_UNDEF || e2[i].nonneg);
    if (m.kind == FV_VAL) lw_merge_enum(L, &e1[i], &e2[i], loc, lw_var_name(L, i), &m.enumc);
    lw_merge_readonly(L, &m, &e1[i], &e2[i]);
    merged[i] = m;
    lw_note_type(L, i, &m);
  }
}

/* An expression evaluated only when a condition holds: lowered into a detached block first; if every op
 * in it is pure it is spliced in place (and the caller may use arith.andi/select), else the block becomes
 * a region of an scf.if. */
Block *lw_scratch_begin(Lower *L, IrBuilder *saved) {
  Block *blk = ir_block_new(L->m);
  *saved = L->b;
  ib_set_end(&L->b, blk);
  return blk;
}

bool lw_block_pure(const Block *blk) {
  for (Op *op = blk->first; op; op = op->next)
    if (!op_has(op, OPT_PURE) || op->nregions) return false;
  return true;
}

void lw_splice_block(Lower *L, Block *blk) {
  for (Op *op = blk->first, *next; op; op = next) {
    next = op->next;
    ir_op_unlink(op);
    ib_insert(&L->b, op);
  }
}

/* scf.if(cond) { then-block ...; yield tv } else { else-block ...; yield ev } -> one result of type t. Either
 * block may be NULL (then a fresh one). */
Value *lw_if_value(Lower *L, Value *cond, Block *bt, Value *tv, Block *be, Value *ev, Type *t) {
  IrBuilder saved = L->b;
  if (!bt) bt = ir_block_new(L->m);
  if (!be) be = ir_block_new(L->m);
  ib_set_end(&L->b, bt);
  ib_op(&L->b, OP_YIELD, 1, &tv, 0, NULL, 0);
  ib_set_end(&L->b, be);
  ib_op(&L->b, OP_YIELD, 1, &ev, 0, NULL, 0);
  L->b = saved;
  Op *op = ib_op(&L->b, OP_IF, 1, &cond, 1, &t, 2);
  ir_region_append_block(&op->regions[0], bt);
  ir_region_append_block(&op->regions[1], be);
  return op_result(op, 0);
}

/* ---- loop analysis ------------------------------------------------------------------------------------------ */

static void ue_operands(Lower *L, const PyExpr *e, const bool *def, bool *ue);

/* Marks in ue the locals e reads that def does not hold. The order of the reads does not matter (def is not
 * changed), so chains (ast_chain_next) are followed by the loop, not by recursion. */
void lw_ue_expr(Lower *L, const PyExpr *e, const bool *def, bool *ue) {
  if (e && stack_exhausted()) {
    lw_out_of_stack(L, e->loc, "expression");
    return;
  }
  for (; e; e = ast_chain_next(e)) ue_operands(L, e, def, ue);
}

/* What ue_expr marks for e's operands but the one continuing its chain. */
typedef struct UeWalk {
  Lower *L;
  const bool *def;
  bool *ue;
} UeWalk;

static void ue_operand(const PyExpr *e, void *arg) {
  const UeWalk *w = arg;
  lw_ue_expr(w->L, e, w->def, w->ue);
}

static void ue_operands(Lower *L, const PyExpr *e, const bool *def, bool *ue) {
  if (e->kind == EX_NAME) {
    int i = sema_local_index(L->fn, e->name);
    if (i >= 0 && !def[i]) ue[i] = true;
    return;
  }
  UeWalk w = {L, def, ue};
  ast_expr_operands(e, ue_operand, &w);
}

void lw_ue_target(Lower *L, const PyExpr *t, bool *def, bool *ue) {
  switch (t->kind) {
  case EX_NAME: {
    int i = sema_local_index(L->fn, t->name);
    if (i >= 0) def[i] = true;
    break;
  }
  case EX_TUPLE:
  case EX_LIST:
    for (unsigned i = 0; i < t->elts.n; i++) lw_ue_target(L, t->elts.items[i], def, ue);
    break;
  case EX_STARRED: lw_ue_target(L, t->value, def, ue); break;
  default: lw_ue_expr(L, t, def, ue); break;
  }
}

bool *lw_bools(Lower *L, const bool *src) {
  unsigned n = L->fn->nlocals ? L->fn->nlocals : 1;
  bool *b = ARENA_ARRAY(&L->fe->arena, bool, n);
  if (src) memcpy(b, src, n);
  return b;
}

/* Marks in ue the locals read in l before any assignment on the path to the read. */
void lw_ue_stmts(Lower *L, const PyStmtList *l, bool *def, bool *ue) {
  unsigned n = L->fn->nlocals;
  for (unsigned k = 0; k < l->n; k++) {
    const PyStmt *s = l->items[k];
    switch (s->kind) {
    case ST_EXPR: lw_ue_expr(L, s->expr, def, ue); break;
    case ST_ASSIGN:
      lw_ue_expr(L, s->assign.value, def, ue);
      for (unsigned t = 0; t < s->assign.targets.n; t++) lw_ue_target(L, s->assign.targets.items[t], def, ue);
      break;
    case ST_AUGASSIGN:
      lw_ue_expr(L, s->augassign.value, def, ue);
      lw_ue_expr(L, s->augassign.target, def, ue);
      lw_ue_target(L, s->augassign.target, def, ue);
      break;
    case ST_ANNASSIGN:
      if (s->annassign.value) {
        lw_ue_expr(L, s->annassign.value, def, ue);
        lw_ue_target(L, s->annassign.target, def, ue);
      }
      break;
    case ST_RETURN: lw_ue_expr(L, s->value, def, ue); break;
    case ST_IF: {
      lw_ue_expr(L, s->if_.test, def, ue);
      bool *d1 = lw_bools(L, def), *d2 = lw_bools(L, def);
      lw_ue_stmts(L, &s->if_.body, d1, ue);
      lw_ue_stmts(L, &s->if_.orelse, d2, ue);
      for (unsigned i = 0; i < n; i++) def[i] = d1[i] && d2[i];
      break;
    }
    case ST_FOR: {
      lw_ue_expr(L, s->for_.iter, def, ue);
      bool *d = lw_bools(L, def);
      lw_ue_target(L, s->for_.target, d, ue);
      lw_ue_stmts(L, &s->for_.body, d, ue);
      lw_ue_stmts(L, &s->for_.orelse, lw_bools(L, def), ue);
      break;
    }
    case ST_WHILE: {
      lw_ue_expr(L, s->while_.test, def, ue);
      lw_ue_stmts(L, &s->while_.body, lw_bools(L, def), ue);
      lw_ue_stmts(L, &s->while_.orelse, lw_bools(L, def), ue);
      break;
    }
    default: break;
    }
  }
}

void lw_assigned_target(Lower *L, const PyExpr *t, bool *a) {
  if (t->kind == EX_NAME) {
    int i = sema_local_index(L->fn, t->name);
    if (i >= 0) a[i] = true;
  } else if (t->kind == EX_TUPLE || t->kind == EX_LIST) {
    for (unsigned i = 0; i < t->elts.n; i++) lw_assigned_target(L, t->elts.items[i], a);
  } else if (t->kind == EX_STARRED) {
    lw_assigned_target(L, t->value, a);
  }
}

void lw_assigned_in(Lower *L, const PyStmtList *l, bool *a) {
  for (unsigned k = 0; k < l->n; k++) {
    const PyStmt *s = l->items[k];
    switch (s->kind) {
    case ST_ASSIGN:
      for (unsigned t = 0; t < s->assign.targets.n; t++) lw_assigned_target(L, s->assign.targets.items[t], a);
      break;
    case ST_AUGASSIGN: lw_assigned_target(L, s->augassign.target, a); break;
    case ST_ANNASSIGN:
      if (s->annassign.value) lw_assigned_target(L, s->annassign.target, a);
      break;
    case ST_IF: lw_assigned_in(L, &s->if_.body, a); lw_assigned_in(L, &s->if_.orelse, a); break;
    case ST_FOR:
      lw_assigned_target(L, s->for_.target, a);
      lw_assigned_in(L, &s->for_.body, a);
      lw_assigned_in(L, &s->for_.orelse, a);
      break;
    case ST_WHILE: lw_assigned_in(L, &s->while_.body, a); lw_assigned_in(L, &s->while_.orelse, a); break;
    default: break;
    }
  }
}
