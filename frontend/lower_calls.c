/* lower_calls.c — calls: binding arguments (positional, keywords, defaults), device functions (instantiated per
 * argument shape, flattened to kir values), recursion (self and mutual, with the declared or inferred return
 * type), and closures (inner defs and lambdas, their captured values). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lower.h"

/* ---- calls: arguments ---------------------------------------------------------------------------------------- */

/* Lowers a call's arguments once: the positional ones (`*t` of a tuple passes its elements) and the keyword ones,
 * in the order written. keep_optional: Optional arguments go as they are (a device function or closure is specialised
 * on them), else as their values (lw_unwrap). False after a located error. */
static bool lower_call_args(Lower *L, const PyExpr *e, LwCallArgs *ca, bool keep_optional) {
  const PyExprList *args = &e->call.args;
  ca->pos = ARENA_ARRAY(&L->fe->arena, FeVal, MAX_FLAT);
  ca->pos_loc = ARENA_ARRAY(&L->fe->arena, SrcLoc, MAX_FLAT);
  ca->npos = 0;
  ca->nkw = e->call.nkeywords;
  ca->kw = ARENA_ARRAY(&L->fe->arena, FeVal, ca->nkw ? ca->nkw : 1);
  bool ok = true;
  for (unsigned i = 0; i < args->n; i++) {
    const PyExpr *a = args->items[i];
    const PyExpr *ae = a->kind == EX_STARRED ? a->value : a;
    FeVal v = keep_optional && a->kind != EX_STARRED ? lw_lower_expr_opt(L, ae) : lower_expr(L, ae);
    if (v.kind == FV_POISON) {
      ok = false;
      continue;
    }
    unsigned n = a->kind == EX_STARRED ? v.tup.n : 1;
    if (a->kind == EX_STARRED && v.kind != FV_TUPLE) {
      lw_lerr(L, a->loc, "*%s in a call: kernels unpack tuples only", lw_vname(L, &v));
      return false;
    }
    if (ca->npos + n > MAX_FLAT) {
      lw_lerr(L, a->loc, "more than %d arguments in a call", MAX_FLAT);
      return false;
    }
    for (unsigned k = 0; k < n; k++) {
      ca->pos_loc[ca->npos] = a->loc;
      ca->pos[ca->npos] = a->kind == EX_STARRED ? v.tup.elems[k] : v;
      ca->pos[ca->npos++].literal = a->kind == EX_STARRED ? false : v.literal;
    }
  }
  for (unsigned k = 0; k < ca->nkw; k++) {
    const PyKeyword *kw = e->call.keywords[k];
    if (!kw->arg) {
      lw_lerr(L, kw->loc, "**mapping in a call is not supported: kernels have no dicts (Numba: CALL_FUNCTION_EX with "
                       "**kwargs not supported)");
      return false;
    }
    ca->kw[k] = keep_optional ? lw_lower_expr_opt(L, kw->value) : lower_expr(L, kw->value);
    if (ca->kw[k].kind == FV_POISON) ok = false;
  }
  return ok;
}

bool lw_lower_call_args(Lower *L, const PyExpr *e, LwCallArgs *ca) { return lower_call_args(L, e, ca, false); }

/* Binds a call's lowered arguments to parameter names (positional first, then keywords); a missing optional
 * parameter stays FV_UNDEF. rest (a device function's *args parameter): where positional arguments beyond nmax go,
 * as a tuple; NULL: they are an error. The first nposonly parameters are positional-only (before '/'): a keyword
 * naming one is an error, as in Python. */
bool lw_bind_lowered_args(Lower *L, const PyExpr *e, const LwCallArgs *ca, const char *fname,
                          const char *const *names, unsigned nmin, unsigned nmax, unsigned nposonly, FeVal *out,
                          FeVal *rest) {
  for (unsigned i = 0; i < nmax; i++) out[i] = (FeVal){.kind = FV_UNDEF};
  unsigned npos = ca->npos;
  if (npos > nmax && !rest) {
    lw_lerr(L, ca->pos_loc[nmax], "%s() takes %s%u argument%s but %u were given", fname, nmin == nmax ? "" : "at most ",
            nmax, nmax == 1 ? "" : "s", npos);
    return false;
  }
  for (unsigned i = 0; i < npos && i < nmax; i++) out[i] = ca->pos[i];
  if (rest) *rest = lw_make_tuple(L, npos > nmax ? npos - nmax : 0, ca->pos + nmax);
  for (unsigned k = 0; k < ca->nkw; k++) {
    const PyKeyword *kw = e->call.keywords[k];
    unsigned i = 0;
    while (i < nmax && strcmp(names[i], kw->arg) != 0) i++;
    if (i == nmax) {
      lw_lerr(L, kw->loc, "%s() got an unexpected keyword argument '%s'", fname, kw->arg);
      return false;
    }
    if (i < nposonly) {
      lw_lerr(L, kw->loc, "%s() got some positional-only arguments passed as keyword arguments: '%s'", fname, kw->arg);
      return false;
    }
    if (out[i].kind != FV_UNDEF) {
      lw_lerr(L, kw->loc, "%s() got multiple values for argument '%s'", fname, kw->arg);
      return false;
    }
    out[i] = ca->kw[k];
  }
  for (unsigned i = 0; i < nmin; i++) {
    if (out[i].kind == FV_UNDEF) {
      lw_lerr(L, e->loc, "%s() missing required argument '%s'", fname, names[i]);
      return false;
    }
  }
  return true;
}

bool lw_bind_args_rest(Lower *L, const PyExpr *e, const char *fname, const char *const *names, unsigned nmin,
                       unsigned nmax, unsigned nposonly, FeVal *out, FeVal *rest) {
  LwCallArgs ca;
  return lw_lower_call_args(L, e, &ca) && lw_bind_lowered_args(L, e, &ca, fname, names, nmin, nmax, nposonly, out, rest);
}

bool lw_positional(Lower *L, const PyExpr *e, const char *fname, unsigned nmin, unsigned nmax, FeVal *out) {
  static const char *const names[] = {"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"};
  if (e->call.nkeywords) {
    lw_lerr(L, e->call.keywords[0]->loc, "%s() takes no keyword arguments", fname);
    return false;
  }
  if (e->call.args.n < nmin) {
    lw_lerr(L, e->loc, "%s() takes %s%u argument%s but %u were given", fname, nmin == nmax ? "" : "at least ", nmin,
            nmin == 1 ? "" : "s", e->call.args.n);
    return false;
  }
  return bind_args(L, e, fname, names, nmin, nmax, out);
}

bool lw_want_int(Lower *L, const FeVal *v, const char *what, SrcLoc loc) {
  if (v->kind == FV_VAL && is_int_type(v->type)) return true;
  lw_lerr(L, loc, "%s must be an integer, not %s", what, lw_vname(L, v));
  return false;
}

/* ---- calls: device functions --------------------------------------------------------------------------------- */

static bool closure_snapshot(Lower *L, const FeVal *v, FeVal *out, SrcLoc loc);

/* The key of a constant scalar (a closure's captured value or default): type and bits, symbol characters only. */
static void const_key(const FeVal *v, StrBuf *out) {
  nb_mangle(v->type, out);
  uint64_t bits;
  if (v->type->kind == TY_FLOAT) memcpy(&bits, &v->c.f, sizeof bits);
  else bits = (uint64_t)v->c.i;
  sb_printf(out, "x%llx", (unsigned long long)bits);
}

static void static_key(const FeVal *s, StrBuf *out) {
  switch (s->kind) {
  case FV_FUNC: sb_printf(out, "F%s", s->func->sym); break;
  case FV_BUILTIN:
    sb_putc(out, 'B');
    for (const char *c = sema_builtin_name(s->builtin); *c; c++) sb_putc(out, *c == '.' ? '_' : *c);
    break;
  case FV_NTYPE: sb_putc(out, 'N'); nb_mangle(s->type, out); break;
  case FV_NAMESPACE: sb_printf(out, "K%u", s->ns->enumc->id); break; /* an enum class (arg_shape) */
  case FV_NONE: sb_puts(out, "None"); break;
  case FV_STR: /* a string constant: its bytes in hex (symbol characters only) */
    sb_printf(out, "S%zu_", s->str.len);
    for (size_t i = 0; i < s->str.len; i++) sb_printf(out, "%02x", (unsigned char)s->str.s[i]);
    break;
  case FV_CLOSURE: {
    const FeClosure *c = s->clo;
    sb_printf(out, "C%s", c->fn->sym);
    const PyParams *ps = &c->fn->def->funcdef.params;
    for (unsigned i = 0; i < ps->n; i++)
      if (c->defaults[i].kind != FV_UNDEF) {
        sb_puts(out, "_d");
        lw_shape_key(&c->defaults[i], out);
      }
    for (unsigned i = 0; i < c->fn->ncaptures; i++) {
      sb_puts(out, "_c");
      lw_shape_key(&c->captured[i], out);
    }
    break;
  }
  default: break;
  }
}

/* The shape of an argument passed to a device function (types only: constants are not specialised on, except
 * compile-time values, which are the shape themselves: a string constant among them, as numba-cuda types it as its
 * literal, so that the callee's `value == "1"` is decided at compile time). */
static bool arg_shape(Lower *L, const FeVal *v, FeVal *out, SrcLoc loc) {
  switch (v->kind) {
  case FV_FUNC:
    if (v->func->kind != FN_DEVICE && v->func->kind != FN_KERNEL) break;
    *out = *v;
    return true;
  case FV_BUILTIN: /* intrinsics, and a GridGroup: g.sync() in the callee makes it (and its callers) cooperative */
    *out = *v;
    return true;
  case FV_NTYPE:
  case FV_STR:
  case FV_NONE: *out = *v; return true;
  case FV_NAMESPACE: /* an enum class: numba-cuda's EnumClass, a compile-time value as a type is */
    if (!v->ns->enumc || v->ns->enumc->strings_of) break;
    *out = *v;
    return true;
  case FV_CLOSURE: return closure_snapshot(L, v, out, loc);
  case FV_VAL:
    *out = val(v->type, NULL);
    out->enumc = v->enumc;
    out->readonly = lw_array_readonly(L, v->v);
    return true;
  case FV_TUPLE:
  case FV_VECTOR: {
    FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, v->tup.n ? v->tup.n : 1);
    for (unsigned i = 0; i < v->tup.n; i++)
      if (!arg_shape(L, &v->tup.elems[i], &elems[i], loc)) return false;
    *out = v->kind == FV_VECTOR ? lw_make_vector(v->type, elems) : lw_make_tuple_like(L, v->type, v->tup.n, elems);
    return true;
  }
  case FV_OPTIONAL: { /* Optional(T): the callee is specialised on it (its value's shape and the flag) */
    FeVal payload;
    if (!arg_shape(L, &v->tup.elems[0], &payload, loc)) return false;
    *out = lw_make_optional(L, v->type, payload, val(ty_bool(L->ctx), NULL));
    return true;
  }
  case FV_VIEW:
  case FV_RECORD: {
    *out = *v;
    out->tup.elems = ARENA_ARRAY(&L->fe->arena, FeVal, v->tup.n);
    out->tup.elems[0] = val(v->tup.elems[0].type, NULL);
    out->tup.elems[0].readonly = lw_array_readonly(L, v->tup.elems[0].v);
    for (unsigned i = 1; i < v->tup.n; i++) out->tup.elems[i] = val(ty_i64(L->ctx), NULL);
    return true;
  }
  case FV_POISON: return false;
  default: break;
  }
  lw_lerr(L, loc, "cannot pass %s to a device function", lw_vname(L, v));
  return false;
}

void lw_shape_key(const FeVal *s, StrBuf *out) {
  if (s->kind == FV_VAL || s->kind == FV_VECTOR) {
    if (s->kind == FV_VAL && s->is_const) const_key(s, out); /* a closure's captured constant (arguments' shapes have none) */
    else nb_mangle(s->type, out);
    if (s->enumc) sb_printf(out, "E%u", s->enumc->id);
    if (s->readonly) sb_putc(out, 'R');
  } else if (s->kind == FV_VIEW || s->kind == FV_RECORD) {
    sb_printf(out, "%c%u_", s->kind == FV_VIEW ? 'V' : 'Q', s->tup.n - 1);
    nb_mangle(s->tup.elems[0].type, out);
    if (s->tup.elems[0].readonly) sb_putc(out, 'R');
  } else if (s->kind == FV_OPTIONAL) {
    sb_putc(out, 'O');
    lw_shape_key(&s->tup.elems[0], out);
  } else if (s->kind == FV_TUPLE) {
    nb_mangle_tuple_class(s->type, out);
    sb_printf(out, "T%u", s->tup.n);
    for (unsigned i = 0; i < s->tup.n; i++) {
      sb_putc(out, '_');
      lw_shape_key(&s->tup.elems[i], out);
    }
    sb_puts(out, "_E");
  } else {
    static_key(s, out);
  }
}

void lw_flatten_shape_types(const FeVal *s, Type **out, unsigned *n) {
  if (s->kind == FV_VAL && s->is_const) return; /* a literal argument */
  if (s->kind == FV_VAL) {
    if (*n < MAX_FLAT) out[*n] = s->type;
    (*n)++;
  } else if (has_fields(s)) {
    for (unsigned i = 0; i < s->tup.n; i++) lw_flatten_shape_types(&s->tup.elems[i], out, n);
  }
}

void lw_readonly_params(Lower *L, const FeVal *s, unsigned *at, Attr *out, unsigned *n) {
  if (s->kind == FV_VAL && s->is_const) return;
  if (s->kind == FV_VAL) {
    if (s->readonly && s->type->kind == TY_ARRAY && *n < MAX_FLAT) out[(*n)++] = attr_int(ty_i64(L->ctx), *at);
    (*at)++;
  } else if (has_fields(s)) {
    for (unsigned i = 0; i < s->tup.n; i++) lw_readonly_params(L, &s->tup.elems[i], at, out, n);
  }
}

FeVal lw_shape_of_type(Lower *L, Type *t) {
  if (t->kind == TY_RECORD) { /* a returned record: its array of one (from_shape makes the record of it) */
    FeVal r = {.kind = FV_RECORD, .type = t};
    r.tup.n = 1;
    r.tup.elems = ARENA_NEW(&L->fe->arena, FeVal);
    r.tup.elems[0] = val(record_ref_type(L->ctx, t), NULL);
    return r;
  }
  if (t->kind != TY_TUPLE) return val(t, NULL);
  if (ty_is_optional(t)) return lw_make_optional(L, t, lw_shape_of_type(L, t->elems[0]), val(ty_bool(L->ctx), NULL));
  FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, t->n ? t->n : 1);
  for (unsigned i = 0; i < t->n; i++) elems[i] = lw_shape_of_type(L, t->elems[i]);
  return ty_is_struct_tuple(t) ? lw_make_vector(t, elems) : lw_make_tuple_like(L, t, t->n, elems);
}

/* The enum member types of v's members, onto the shape of its type (a returned tuple's members stay enum members). */
void lw_copy_enums(FeVal *shape, const FeVal *v) {
  if (shape->kind == FV_VAL && v->kind == FV_VAL) shape->enumc = v->enumc;
  if (shape->kind == FV_TUPLE && v->kind == FV_TUPLE && shape->tup.n == v->tup.n)
    for (unsigned i = 0; i < v->tup.n; i++) lw_copy_enums(&shape->tup.elems[i], &v->tup.elems[i]);
}

void lw_copy_readonly(Lower *L, FeVal *shape, const FeVal *v) {
  if (shape->kind == FV_VAL) shape->readonly = lw_fv_readonly(L, v);
  if (shape->kind == FV_OPTIONAL && v->kind == FV_OPTIONAL) lw_copy_readonly(L, &shape->tup.elems[0], &v->tup.elems[0]);
  if (shape->kind == FV_TUPLE && v->kind == FV_TUPLE && shape->tup.n == v->tup.n)
    for (unsigned i = 0; i < v->tup.n; i++) lw_copy_readonly(L, &shape->tup.elems[i], &v->tup.elems[i]);
}

FeVal lower_param_shape(FeCtx *fe, Type *t) {
  if (t->kind == TY_ARRAY && t->rank == 0) { /* a 0-d array: the view x[0] of its array of one (rt_flatten_args) */
    FeVal v = {.kind = FV_VIEW, .type = t};
    v.tup.n = 2;
    v.tup.elems = ARENA_ARRAY(&fe->arena, FeVal, 2);
    v.tup.elems[0] = (FeVal){.kind = FV_VAL, .type = ty_array(fe->ctx, t->elem, 1, LAYOUT_C)};
    v.tup.elems[1] = fe_const_int(fe, ty_int(fe->ctx, 64, false), 0);
    return v;
  }
  if (t->kind != TY_TUPLE) return (FeVal){.kind = FV_VAL, .type = t};
  FeVal v = {.kind = ty_is_optional(t) ? FV_OPTIONAL : ty_is_struct_tuple(t) ? FV_VECTOR : FV_TUPLE, .type = t};
  v.tup.n = t->n;
  v.tup.elems = ARENA_ARRAY(&fe->arena, FeVal, t->n ? t->n : 1);
  for (unsigned i = 0; i < t->n; i++) v.tup.elems[i] = lower_param_shape(fe, t->elems[i]);
  return v;
}

void lower_shape_set_readonly(FeVal *shape) {
  if (shape->kind == FV_VAL) shape->readonly = ty_is_array(shape->type);
  else if (shape->kind == FV_VIEW) shape->tup.elems[0].readonly = true; /* a 0-d array: its array of one */
}

/* Values of an argument, flattened like its shape. */
static void flatten_arg(Lower *L, const FeVal *v, Value **out, unsigned *n) {
  if (v->kind == FV_VAL) {
    if (*n < MAX_FLAT) out[*n] = lw_mat(L, v);
    (*n)++;
  } else if (has_fields(v)) {
    for (unsigned i = 0; i < v->tup.n; i++) flatten_arg(L, &v->tup.elems[i], out, n);
  }
}

/* Rebuilds a value of the given shape from flattened values (parameters, call results). */
FeVal lw_from_shape(Lower *L, const FeVal *s, Value *const *vals, unsigned *pos) {
  if (s->kind == FV_VAL && s->is_const) return *s; /* a literal argument */
  if (s->kind == FV_VAL) {
    FeVal v = val(s->type, vals[(*pos)++]);
    v.enumc = s->enumc;
    if (s->readonly) lw_add_readonly_array(L, v.v);
    return v;
  }
  if (!has_fields(s)) return *s; /* a compile-time value */
  if (s->kind == FV_RECORD && s->tup.n == 1) return record_of_array(L, vals[(*pos)++]); /* shape_of_type's */
  FeVal r = *s;
  r.tup.elems = ARENA_ARRAY(&L->fe->arena, FeVal, s->tup.n ? s->tup.n : 1);
  for (unsigned i = 0; i < s->tup.n; i++) r.tup.elems[i] = lw_from_shape(L, &s->tup.elems[i], vals, pos);
  return r;
}

/* A default argument value of a device function of source src (a literal or a module-level constant). */
static FeVal const_default(Lower *L, const FeSource *src, const PyExpr *d) {
  if (d->kind == EX_INT || d->kind == EX_FLOAT || d->kind == EX_BOOL || d->kind == EX_NONE ||
      (d->kind == EX_UNARY && (d->unary.operand->kind == EX_INT || d->unary.operand->kind == EX_FLOAT)))
    return lower_expr(L, d);
  if (d->kind == EX_NAME) {
    FeVal *g = fe_lookup(L->fe, src, d->name);
    if (g && g->kind == FV_VAL && g->is_const) return *g;
  }
  return lw_lerr(L, d->loc, "default argument values of device functions must be constants");
}

static const char *sym_for(Lower *L, FeFunc *f, const char *key) {
  bool taken = false;
  Op *o = ir_module_lookup(L->m, f->sym);
  taken = o && o->block;
  if (!taken) return f->sym;
  const char *base = arena_printf(&L->fe->arena, "%s__%s", f->sym, key);
  const char *s = base;
  for (unsigned k = 1; (o = ir_module_lookup(L->m, s)) && o->block; k++) s = arena_printf(&L->fe->arena, "%s_%u", base, k);
  return s;
}

/* ---- recursion ----------------------------------------------------------------------------------------------
 * A device function may call itself, directly or through others (self and mutual recursion), as numba-cuda
 * types it: the call of an instance still being lowered (same function, same argument types) returns the
 * instance's declared type (a signature), else the type of the value returns lowered before the call (fib's
 * `if n < 2: return n`); with neither, the call cannot be typed (runaway recursion, a located error). The
 * instance's final return type must be the one the call took. A call with other argument types makes another
 * instance (bounded: argument types that keep changing are an error). */

enum { MAX_RECURSIVE_INSTANCES = 8 };

/* A value return of the function being lowered: what a recursive call of it returns so far. */
void lw_note_return_type(Lower *L, const FeVal *v) {
  FeInst *in = L->inst;
  if (in->has_decl_ret) return;
  Type *t = lw_fv_type(L, v);
  if (!t) return;
  Type *u = in->ret_so_far ? nb_unify(L->ctx, in->ret_so_far, t) : t;
  if (u) in->ret_so_far = u;
  in->ret_enum = v->kind == FV_VAL && (!in->ret_so_far || in->ret_enum == v->enumc || t == u) ? v->enumc : NULL;
}

unsigned lw_value_returns(const PyStmtList *l) {
  unsigned n = 0;
  for (unsigned i = 0; i < l->n; i++) {
    const PyStmt *s = l->items[i];
    switch (s->kind) {
    case ST_RETURN:
      if (s->value && s->value->kind != EX_NONE) n++;
      break;
    case ST_IF: n += lw_value_returns(&s->if_.body) + lw_value_returns(&s->if_.orelse); break;
    case ST_FOR: n += lw_value_returns(&s->for_.body) + lw_value_returns(&s->for_.orelse); break;
    case ST_WHILE: n += lw_value_returns(&s->while_.body) + lw_value_returns(&s->while_.orelse); break;
    default: break;
    }
  }
  return n;
}

/* Whether `call` is an element of the tuple display `e`, or of a tuple display among its elements. */
static bool tuple_display_holds(const PyExpr *e, const PyExpr *call) {
  if (!e || e->kind != EX_TUPLE) return false;
  for (unsigned i = 0; i < e->elts.n; i++)
    if (e->elts.items[i] == call || tuple_display_holds(e->elts.items[i], call)) return true;
  return false;
}

/* The call of `active`, an instance of f being lowered, from inside itself (or a function it calls). */
static FeVal recursive_call(Lower *L, FeFunc *f, FeInst *active, const PyExpr *e, FeVal *args, unsigned np) {
  if (L->inst == active && !active->has_decl_ret && tuple_display_holds(L->returning, e) &&
      lw_value_returns(&f->def->funcdef.body) == 1)
    /* `if n <= 0: return None` and `return (n, f(n - 1))`: the result type T would be an optional tuple holding T,
     * which no finite type is; numba-cuda retypes the call with each new return type (none, then the optional tuple
     * of it, ...) until it gives up (CallFrame.add_return_type). Other value returns make numba unify their types
     * with the tuple's, an error of its own (Can't unify return type), which kfront's checks below report. */
    return lw_lerr(L, e->loc, "Return type of recursive function does not converge: '%s' returns a tuple holding its "
                   "own result, so each typing of the call gives the function a deeper tuple type", f->name);
  Type *rt = NULL;
  const FeEnum *ren = NULL;
  if (active->has_decl_ret) {
    rt = active->decl_ret;
  } else if (active->ret_so_far) {
    rt = active->ret_so_far;
    ren = active->ret_enum;
  } else if (lw_value_returns(&f->def->funcdef.body)) {
    /* no type yet: the instance is lowered again once its returns have given one (lower_function); the
     * functions between it and this call are typed on this poison, so they go with its first attempt */
    if (!active->rec_unknown) active->rec_loc = e->loc;
    active->rec_unknown = true;
    if (L->inst != active) L->inst->tainted = true;
    return poison();
  }
  if (!active->rec_called) {
    active->rec_called = true;
    active->rec_type = rt;
    active->rec_loc = e->loc;
  }
  at(L, e->loc);
  Value **vals = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT);
  unsigned nv = 0;
  for (unsigned i = 0; i < np; i++) flatten_arg(L, &args[i], vals, &nv);
  Type **rts = ARENA_ARRAY(&L->fe->arena, Type *, MAX_FLAT);
  unsigned nr = 0;
  if (rt) lw_flat_types(L->ctx, rt, rts, &nr);
  if (nr > MAX_FLAT || nv > MAX_FLAT) return lw_lerr(L, e->loc, "too many values in a recursive call");
  Op *call = ib_op(&L->b, OP_FUNC_CALL, nv, vals, nr, rts, 0);
  ir_op_set_attr(L->m, call, "callee", attr_sym(L->m, ir_func_name(active->op)));
  if (!rt) return (FeVal){.kind = FV_NONE};
  Value **res = ARENA_ARRAY(&L->fe->arena, Value *, nr ? nr : 1);
  for (unsigned i = 0; i < nr; i++) res[i] = op_result(call, i);
  unsigned pos = 0;
  FeVal r = lw_unflatten(L, rt, res, &pos);
  if (r.kind == FV_VAL) r.enumc = ren;
  return r;
}

/* At the end of an instance that was called recursively: the call must have returned what the function does. */
void lw_check_recursive_return(Lower *L, Type *final) {
  FeInst *in = L->inst;
  if (!in->rec_called || in->rec_type == final) return;
  lw_lerr(L, in->rec_loc, "the recursive call of '%s' was typed as returning %s, but '%s' returns %s: declare its "
                       "signature (e.g. @cuda.jit(\"int64(int64)\", device=True))", L->fn->name,
          in->rec_type ? tname(L, in->rec_type) : "none", L->fn->name, final ? tname(L, final) : "none");
}

/* Whether a device function's or closure's parameters are of kinds numba-cuda binds: positional ones (with
 * defaults, positional-only ones too) and a final *args. Keyword-only parameters are not: numba-cuda's dispatcher
 * folds them as trailing positional arguments (fold_arguments), which no call binds as Python does, and an inner def
 * with keyword-only defaults stops its interpreter (op_MAKE_FUNCTION with kwdefaults); nor is **kwargs (Numba:
 * "Explicit **kwargs are not supported"). False after a located error. */
static bool params_supported(Lower *L, const PyParams *ps) {
  for (unsigned i = 0; i < ps->n; i++) {
    const PyParam *p = ps->items[i];
    if (p->kind == PARAM_VARKW) {
      lw_lerr(L, p->loc, "**%s: **kwargs parameters are not supported in device functions, as Numba supports no "
                      "explicit **kwargs; name the parameters (keyword arguments and defaults are supported)",
              p->name);
      return false;
    }
    if (p->kind == PARAM_KWONLY) {
      lw_lerr(L, p->loc, "'%s' is a keyword-only parameter: they are not supported in device functions, as numba-cuda's "
                      "dispatcher cannot bind them; make it a positional parameter (keyword arguments and defaults are "
                      "supported)", p->name);
      return false;
    }
  }
  return true;
}

/* The parameters of a device function or closure: their names, the index of a final *args parameter (np when
 * there is none) and how many are positional-only; false after a located error (params_supported). */
static bool param_names_of(Lower *L, const PyParams *ps, const char **names, unsigned *varargs, unsigned *nposonly) {
  if (!params_supported(L, ps)) return false;
  *varargs = ps->n;
  *nposonly = 0;
  for (unsigned i = 0; i < ps->n; i++) {
    names[i] = ps->items[i]->name;
    if (ps->items[i]->kind == PARAM_VARARGS) *varargs = i;
    if (ps->items[i]->kind == PARAM_POSONLY) *nposonly = i + 1;
  }
  return true;
}

/* A call of device function f: its arguments bound from ca (lowered by the caller: an overload's implementation), or
 * lowered from e's (ca NULL). */
static FeVal call_device_with(Lower *L, FeFunc *f, const PyExpr *e, const LwCallArgs *ca) {
  const PyParams *ps = &f->def->funcdef.params;
  unsigned np = ps->n, va, npo;
  if (np > 64) return lw_lerr(L, e->loc, "device functions with more than 64 parameters are not supported");
  const char **names = ARENA_ARRAY(&L->fe->arena, const char *, 64);
  if (!param_names_of(L, ps, names, &va, &npo)) return poison();
  if (va < np && f->nsigs) return lw_lerr(L, e->loc, "'%s' takes *args: it cannot have declared signatures", f->name);
  FeVal *args = ARENA_ARRAY(&L->fe->arena, FeVal, 64);
  unsigned nreq = 0;
  for (unsigned i = 0; i < va; i++)
    if (!ps->items[i]->defval) nreq = i + 1;
  LwCallArgs own;
  if (!ca && !lower_call_args(L, e, &own, true)) return poison();
  if (!lw_bind_lowered_args(L, e, ca ? ca : &own, f->name, names, 0, va, npo, args, va < np ? &args[va] : NULL))
    return poison();
  for (unsigned i = 0; i < np; i++) {
    if (args[i].kind != FV_UNDEF) continue;
    if (i < nreq || !ps->items[i]->defval) return lw_lerr(L, e->loc, "%s() missing required argument '%s'", f->name, names[i]);
    args[i] = const_default(L, f->src, ps->items[i]->defval);
    if (args[i].kind == FV_POISON) return poison();
  }
  /* numba.cuda.random's device functions index numba-cuda's state array: another argument is refused at the call */
  if (f->src->prelude && np && strcmp(names[0], "states") == 0) {
    const Type *t = args[0].kind == FV_VAL || args[0].kind == FV_VIEW ? args[0].type : NULL;
    if (!t || t->kind != TY_ARRAY || t->rank != 1 || !ty_is_record(t->elem) ||
        ty_record_field(t->elem, "s0", 2) < 0 || ty_record_field(t->elem, "s1", 2) < 0)
      return lw_lerr(L, arg_loc(e, 0),
                     "%s() takes numba.cuda.random's state array, a 1-D array of xoroshiro128p_dtype records (as "
                     "create_xoroshiro128p_states makes it), not %s", f->name, lw_vname(L, &args[0]));
  }
  /* a device function declared with signatures: the best one for the arguments (as numba's overloads) */
  const FeSig *sig = NULL;
  if (f->nsigs) {
    unsigned best_rate[3] = {UINT32_MAX, 0, 0};
    for (unsigned s = 0; s < f->nsigs; s++) {
      const FeSig *cand = &f->sigs[s];
      if (cand->nargs != np) continue;
      unsigned rate[3] = {0, 0, 0};
      bool ok = true;
      for (unsigned i = 0; i < np && ok; i++) {
        Type *want = cand->args[i];
        if (ty_is_optional(want)) { /* an Optional parameter: None, or what converts to its T (Optional.can_convert_from) */
          const FeVal *x = args[i].kind == FV_OPTIONAL ? &args[i].tup.elems[0] : &args[i];
          Type *pt = want->elems[0];
          if (args[i].kind == FV_NONE) {
            rate[2]++;
          } else if (is_scalar(x) && ty_is_number(pt) && !ty_is_time(pt) && !ty_is_time(x->type)) {
            int c = nb_can_convert(nb_kind(x->type), nb_kind(pt));
            if (c == CONV_NONE) ok = false;
            else if (c == CONV_UNSAFE) rate[0]++;
            else if (c == CONV_SAFE) rate[1]++;
            else rate[2]++;
          } else {
            Type *t = lw_fv_type(L, x);
            ok = t && t == pt;
          }
          continue;
        }
        if (args[i].kind == FV_OPTIONAL && !ty_is_optional(want)) { /* Optional(T) converts to what T does */
          FeVal payload = args[i].tup.elems[0];
          if (is_scalar(&payload) && ty_is_number(want) && !ty_is_time(want) && !ty_is_time(payload.type)) {
            int c = nb_can_convert(nb_kind(payload.type), nb_kind(want));
            if (c == CONV_NONE) ok = false;
            else if (c == CONV_UNSAFE) rate[0]++;
            else rate[1]++; /* at least safe, as Numba's Optional.can_convert_to */
          } else {
            ok = payload.kind == FV_VAL && payload.type == want;
          }
          continue;
        }
        /* numbers convert; a datetime64 / timedelta64 argument is its parameter's type exactly (kfront converts no
         * unit into another at a call) */
        if (is_scalar(&args[i]) && ty_is_number(want) && !ty_is_time(want) && !ty_is_time(args[i].type)) {
          int c = nb_can_convert(nb_kind(args[i].type), nb_kind(want));
          if (c == CONV_NONE) ok = false; /* a complex argument for a real parameter: no conversion, as Numba */
          else if (c == CONV_UNSAFE) rate[0]++;
          else if (c == CONV_SAFE) rate[1]++;
          else if (c == CONV_PROMOTE) rate[2]++;
        } else {
          Type *t = args[i].kind == FV_VIEW ? args[i].type : lw_fv_type(L, &args[i]);
          ok = t && (t == want || (t->kind == TY_ARRAY && want->kind == TY_ARRAY && want->layout == LAYOUT_A &&
                                   t->elem == want->elem && t->rank == want->rank));
        }
      }
      if (!ok) continue;
      bool better = best_rate[0] == UINT32_MAX;
      for (unsigned i = 0; i < 3 && !better; i++) {
        if (rate[i] < best_rate[i]) better = true;
        if (rate[i] != best_rate[i]) break;
      }
      if (better) {
        sig = cand;
        memcpy(best_rate, rate, sizeof rate);
      }
    }
    if (!sig) { /* kfront's words, then numba's (its typing error names the dispatcher's type and the arguments') */
      StrBuf params;
      sb_init(&params);
      for (unsigned i = 0; i < np; i++) sb_printf(&params, "%s%s", i ? ", " : "", lw_vname(L, &args[i]));
      FeVal r = lw_lerr(L, e->loc, "no signature of '%s' matches the argument types of this call: Invalid use of "
                        "type(CUDADispatcher(%s)) with parameters (%s)", f->name, f->name, sb_cstr(&params));
      sb_free(&params);
      return r;
    }
    for (unsigned i = 0; i < np; i++) {
      if (ty_is_optional(sig->args[i])) { /* made the parameter's Optional: its values (zeros for None) and flag */
        Value **vals = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT);
        unsigned nv = 0, pos = 0;
        at(L, arg_loc(e, i));
        if (lw_type_slots(sig->args[i]) > MAX_FLAT ||
            !lw_flatten_to(L, &args[i], sig->args[i], vals, &nv, NULL, arg_loc(e, i), names[i]))
          return poison();
        args[i] = lw_unflatten(L, sig->args[i], vals, &pos);
        continue;
      }
      if (args[i].kind == FV_OPTIONAL) args[i] = lw_unwrap(L, args[i], arg_loc(e, i));
      if (is_scalar(&args[i])) args[i] = lw_conv(L, args[i], sig->args[i]);
    }
  }
  /* the callee's lowering starts here: it needs room of its own beyond the reserve */
  if (stack_left() < 2 * STACK_RESERVE) return lw_out_of_stack(L, e->loc, "device function calls");
  return lw_instantiate_and_call(L, f, e, args, np);
}

static FeVal call_device(Lower *L, FeFunc *f, const PyExpr *e) { return call_device_with(L, f, e, NULL); }

FeVal lw_call_device_lowered(Lower *L, FeFunc *f, const PyExpr *e, const LwCallArgs *ca) {
  return call_device_with(L, f, e, ca);
}

/* The call of f with its bound arguments: the instance for their shapes (lowered now if new), and the
 * func.call. Apart from call_device's frame, which stays on the stack while arguments are lowered. */
/* The instance key of argument shapes (as lower_function keys it). */
static const char *shapes_key(Lower *L, const FeVal *shapes, unsigned np) {
  StrBuf key;
  sb_init(&key);
  for (unsigned i = 0; i < np; i++) {
    if (i) sb_puts(&key, "__");
    lw_shape_key(&shapes[i], &key);
  }
  if (debug_mode(L->fe)) sb_puts(&key, "__dbg");
  const char *k = arena_strdup(&L->fe->arena, sb_cstr(&key));
  sb_free(&key);
  return k;
}

/* The literal shape of an argument: a constant number (or a tuple holding one) is kept as its value, as Numba
 * types a constant argument Literal[int](32) when the callee cannot be typed without (cuda.shared.array(n, ...)
 * with n a parameter). True when some constant was kept. */
static bool literal_shape(Lower *L, const FeVal *arg, FeVal *shape) {
  if (arg->kind == FV_VAL && arg->is_const && !arg->enumc) {
    *shape = *arg;
    shape->v = NULL;
    shape->literal = false;
    return true;
  }
  if (arg->kind != FV_TUPLE || shape->kind != FV_TUPLE) return false;
  bool any = false;
  FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, arg->tup.n ? arg->tup.n : 1);
  for (unsigned i = 0; i < arg->tup.n; i++) {
    elems[i] = shape->tup.elems[i];
    any |= literal_shape(L, &arg->tup.elems[i], &elems[i]);
  }
  if (any) {
    *shape = lw_make_tuple(L, arg->tup.n, elems);
    shape->type = NULL;
  }
  return any;
}

/* Values of an argument, flattened as the callee's parameter shape takes them (literals and compile-time values
 * take no parameter). */
static void flatten_arg_as(Lower *L, const FeVal *v, const FeVal *shape, Value **out, unsigned *n) {
  if (shape->kind == FV_VAL) {
    if (shape->is_const) return;
    if (*n < MAX_FLAT) out[*n] = lw_mat(L, v);
    (*n)++;
  } else if (has_fields(shape)) {
    for (unsigned i = 0; i < v->tup.n; i++) flatten_arg_as(L, &v->tup.elems[i], &shape->tup.elems[i], out, n);
  }
}

/* The lowered instance of f for these shapes and key, if any. */
static FeInst *find_inst(FeFunc *f, const char *k) {
  for (FeInst *in = f->insts; in; in = in->next)
    if (!in->failed && !in->in_progress && in->op && !ir_op_attr(in->op, "kernel") && strcmp(in->key, k) == 0)
      return in;
  return NULL;
}

/* The call at loc of device function f, whose typing for these argument shapes failed (its errors reported):
 * a note there in numba-cuda's words, its typing context for an error inside a callee. */
static void note_callee_failed(Lower *L, const FeFunc *f, SrcLoc loc, const FeVal *shapes, unsigned np) {
  StrBuf params;
  sb_init(&params);
  for (unsigned i = 0; i < np; i++) sb_printf(&params, "%s%s", i ? ", " : "", lw_vname(L, &shapes[i]));
  diag_note(L->fe->diag, user_loc(L, loc), "During: resolving callee type: type(CUDADispatcher(<function %s>)): "
            "typing device function '%s' for (%s) failed at the error above", f->name, f->name,
            sb_failed(&params) ? "..." : sb_cstr(&params));
  sb_free(&params);
  L->errors++; /* the caller fails with it: no value to go on with (else its callers report what that leads to) */
}

__attribute__((noinline)) FeVal lw_instantiate_and_call(Lower *L, FeFunc *f, const PyExpr *e, FeVal *args,
                                                        unsigned np) {
  FeVal shapes[64] = {{0}}, lits[64];
  bool any_literal = false;
  for (unsigned i = 0; i < np; i++) {
    if (!arg_shape(L, &args[i], &shapes[i], arg_loc(e, i))) return poison();
    lits[i] = shapes[i];
    any_literal |= literal_shape(L, &args[i], &lits[i]);
  }
  const char *k = shapes_key(L, shapes, np);
  FeInst *inst = NULL, *active = NULL;
  unsigned in_progress = 0;
  for (FeInst *in = f->insts; in; in = in->next) {
    bool device = in->op && !ir_op_attr(in->op, "kernel");
    if (in->in_progress && device) {
      in_progress++;
      if (strcmp(in->key, k) == 0) active = in;
    }
    if (!in->failed && device && strcmp(in->key, k) == 0) inst = in;
  }
  if (active) return recursive_call(L, f, active, e, args, np);
  if (in_progress >= MAX_RECURSIVE_INSTANCES)
    return lw_lerr(L, e->loc, "'%s' calls itself with argument types that keep changing (%u instances deep): declare its "
                           "signature", f->name, in_progress);
  /* constant arguments: the instance for their types, else (when that cannot be typed) one for their values */
  const char *lk = any_literal && !in_progress ? shapes_key(L, lits, np) : NULL; /* not within recursion */
  if (!inst && lk && (inst = find_inst(f, lk))) memcpy(shapes, lits, sizeof(FeVal) * np);
  if (!inst && lk) {
    inst = lower_function(L->fe, f, shapes, np, sym_for(L, f, k), false, true, NULL);
    if (inst->failed && !inst->tainted) {
      inst = lower_function(L->fe, f, lits, np, sym_for(L, f, lk), false, true, NULL);
      if (!inst->failed) memcpy(shapes, lits, sizeof(FeVal) * np);
      else if (!inst->tainted) inst = NULL; /* reported below as the types' instance */
    }
  }
  if (!inst) {
    inst = lower_function(L->fe, f, shapes, np, sym_for(L, f, k), false, L->quiet > 0, NULL);
    if (L->quiet && inst->failed) L->suppressed++;
    else if (inst->failed && !inst->tainted) note_callee_failed(L, f, e->loc, shapes, np);
  }
  if (inst->tainted) {
    /* typed on a recursive call of an enclosing instance's first attempt: so is this one, unless that instance is
     * this one (f calls g calls f: lowered again with the type its returns give, or its runaway recursion reported) */
    if (!L->inst->rec_unknown) L->inst->tainted = true;
    return poison();
  }
  if (!inst->op) return poison();
  at(L, e->loc);
  Value **vals = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT);
  unsigned nv = 0;
  for (unsigned i = 0; i < np; i++) {
    if (args[i].kind == FV_VAL && shapes[i].kind == FV_VAL && args[i].type != shapes[i].type) {
      /* a C array passed where the signature says A: same data, the callee reads the layout it was given */
      if (args[i].type->kind == TY_ARRAY) return lw_lerr(L, arg_loc(e, i), "array layouts differ: %s given, %s expected",
                                                         tname(L, args[i].type), tname(L, shapes[i].type));
    }
    flatten_arg_as(L, &args[i], &shapes[i], vals, &nv);
  }
  Type **rts = ARENA_ARRAY(&L->fe->arena, Type *, MAX_FLAT);
  unsigned nr = 0;
  if (inst->ret.kind != FV_NONE) lw_flatten_shape_types(&inst->ret, rts, &nr);
  Op *call = ib_op(&L->b, OP_FUNC_CALL, nv, vals, nr, rts, 0);
  ir_op_set_attr(L->m, call, "callee", attr_sym(L->m, ir_func_name(inst->op)));
  if (ir_op_attr(inst->op, "cooperative")) mark_cooperative(L);
  if (inst->ret.kind == FV_NONE) return (FeVal){.kind = FV_NONE};
  Value **res = ARENA_ARRAY(&L->fe->arena, Value *, MAX_FLAT);
  for (unsigned i = 0; i < nr; i++) res[i] = op_result(call, i);
  unsigned pos = 0;
  return lw_from_shape(L, &inst->ret, res, &pos);
}

/* A kernel argument that is a member of an enum of tuples or strings is its index (kf_arg): one that names no
 * member raises ValueError, as Python's Color(value) would, through the kernel's error record. */
void lw_check_member_index(Lower *L, const FeVal *v) {
  if (v->kind == FV_TUPLE) {
    for (unsigned i = 0; i < v->tup.n; i++) lw_check_member_index(L, &v->tup.elems[i]);
    return;
  }
  if (v->kind != FV_VAL || !v->enumc || !v->enumc->values || v->is_const) return;
  Value *bad = ib_cmpi(&L->b, IR_CMPI_UGE, v->v, ib_const_int(&L->b, ty_i64(L->ctx), v->enumc->nvalues));
  Op *c = ib_op(&L->b, OP_RAISE, 1, &bad, 0, NULL, 0);
  ir_op_set_attr(L->m, c, "exception", attr_str(L->m, arena_printf(&L->fe->arena, "ValueError: an argument of %s that is "
                                                                   "not the index of one of its %u members",
                                                                   lw_vname(L, v), v->enumc->nvalues)));
}

/* ---- closures ----------------------------------------------------------------------------------------------
 * An inner def or a lambda is a device function of its own (FN_DEVICE, `outer` the function it is defined in),
 * specialised per call like any other, whose captured variables (its free names that are locals of the enclosing
 * function) are extra parameters after its own. Called where it is defined, it gets their values at the call,
 * as Python reads cells (Numba inlines such calls, reading the variables there). Passed to another function it
 * escapes: as Numba's MakeFunctionToJitFunction, each captured variable must then have one definition, a
 * constant, which goes with it (part of the callee's specialisation). Its default values are evaluated where it
 * is defined. Numba refuses `nonlocal` (the statement stays unsupported) and functions as results. */

/* The function an inner def (or a lambda's synthetic def) of L's function defines, made once per definition. */
static FeFunc *inner_func(Lower *L, const void *key, const PyStmt *def, const char *name) {
  FeFunc *f = ptrmap_get(&L->fe->inner_funcs, key);
  if (f) return f;
  f = ARENA_NEW(&L->fe->arena, FeFunc);
  const FeFunc *o = L->fn;
  f->def = def;
  f->name = name;
  f->py_name = name;
  f->sym = arena_printf(&L->fe->arena, "%s__%s", o->sym, def->kind == ST_FUNCDEF && key == def ? name : "lambda");
  f->src = o->src;
  f->kind = FN_DEVICE;
  f->loc = f->deco_loc = def->loc;
  f->lazy = true;
  f->fastmath = o->fastmath;
  f->debug = o->debug;
  f->lineinfo = o->lineinfo;
  f->opt = o->opt;
  f->cache = -1;
  f->inline_opt = "always"; /* numba inlines a closure's calls in its IR (InlineClosureCallPass) */
  f->outer = L->fn;
  const char **free;
  unsigned nfree = sema_free_names(L->fe, def, &free);
  f->captures = ARENA_ARRAY(&L->fe->arena, const char *, nfree ? nfree : 1);
  for (unsigned i = 0; i < nfree; i++)
    if (sema_local_index(L->fn, free[i]) >= 0) f->captures[f->ncaptures++] = free[i];
  ptrmap_put(&L->fe->inner_funcs, key, f);
  return f;
}

/* The closure value of an inner def or lambda, its defaults evaluated here. */
static FeVal make_closure(Lower *L, FeFunc *f) {
  const PyParams *ps = &f->def->funcdef.params;
  FeClosure *c = ARENA_NEW(&L->fe->arena, FeClosure);
  c->fn = f;
  FeVal *defaults = ARENA_ARRAY(&L->fe->arena, FeVal, ps->n ? ps->n : 1);
  if (!params_supported(L, ps)) return poison();
  for (unsigned i = 0; i < ps->n; i++) {
    const PyParam *p = ps->items[i];
    defaults[i] = (FeVal){.kind = FV_UNDEF};
    if (!p->defval) continue;
    defaults[i] = lower_expr(L, p->defval);
    if (defaults[i].kind == FV_POISON) return poison();
    defaults[i].literal = false;
  }
  c->defaults = defaults;
  return (FeVal){.kind = FV_CLOSURE, .clo = c};
}

/* Numba makes a closure's cells where it is defined, from the variables stored so far (in the order Python compiles
 * the body): one that reads a variable assigned only later, itself included (a self-recursive inner def), is
 * refused as numba-cuda's interpreter refuses it. False after a located error. */
static bool cells_bound(Lower *L, const FeFunc *f, const void *site, SrcLoc loc) {
  for (unsigned k = 0; k < f->ncaptures; k++) {
    const char *name = f->captures[k];
    if (sema_bound_before(L->fn, name, site)) continue;
    if (site == f->def && strcmp(name, f->name) == 0)
      lw_lerr(L, loc, "a self-recursive inner function is not supported: '%s' reads its own name, which is not yet bound "
                   "where it is defined (numba-cuda: Unsupported use of cell variable encountered); define it at "
                   "module level with @cuda.jit(device=True)", f->name);
    else
      lw_lerr(L, loc, "'%s' reads '%s', which is assigned only after it is defined here: not supported (numba-cuda: "
                   "Unsupported use of cell variable encountered); assign '%s' before defining '%s'", f->name, name,
              name, f->name);
    return false;
  }
  return true;
}

void lower_funcdef(Lower *L, const PyStmt *s) {
  if (s->funcdef.decorators.n) {
    lw_lerr(L, s->funcdef.decorators.items[0]->loc, "a decorated function cannot be defined inside a kernel or device "
                                                 "function: define it at module level (an undecorated inner def is "
                                                 "compiled with the function that defines it)");
    PyExpr target = {.kind = EX_NAME, .loc = s->funcdef.name_loc, .name = s->funcdef.name};
    lw_assign(L, &target, poison(), s->loc);
    return;
  }
  if (s->funcdef.is_async) {
    lw_lerr(L, s->loc, "async functions are not supported in kernels");
    return;
  }
  FeFunc *f = inner_func(L, s, s, s->funcdef.name);
  FeVal v = cells_bound(L, f, s, s->funcdef.name_loc) ? make_closure(L, f) : poison();
  PyExpr target = {.kind = EX_NAME, .loc = s->funcdef.name_loc, .name = s->funcdef.name};
  lw_assign(L, &target, v, s->loc);
}

/* A lambda: the closure of a def made of it (`def <lambda>(params): return body`), made once per lambda. */
FeVal lower_lambda(Lower *L, const PyExpr *e) {
  FeFunc *f = ptrmap_get(&L->fe->inner_funcs, e);
  if (!f) {
    PyStmt *ret = ARENA_NEW(&L->fe->arena, PyStmt);
    ret->kind = ST_RETURN;
    ret->loc = e->lambda.body->loc;
    ret->end_line = ret->loc.line;
    ret->value = e->lambda.body;
    PyStmt *def = ARENA_NEW(&L->fe->arena, PyStmt);
    def->kind = ST_FUNCDEF;
    def->loc = e->loc;
    def->end_line = e->loc.line;
    def->funcdef.name = "<lambda>";
    def->funcdef.name_loc = e->loc;
    def->funcdef.params = e->lambda.params;
    def->funcdef.body.items = ARENA_ARRAY(&L->fe->arena, PyStmt *, 1);
    def->funcdef.body.items[0] = ret;
    def->funcdef.body.n = 1;
    f = inner_func(L, e, def, "<lambda>");
  }
  if (!cells_bound(L, f, e, e->loc)) return poison();
  return make_closure(L, f);
}

/* The values of a closure's captured variables at a call in the function that defines it (their current values:
 * Python's cells); false after a located error. */
static bool captured_here(Lower *L, const FeClosure *c, const PyExpr *e, FeVal *out) {
  for (unsigned k = 0; k < c->fn->ncaptures; k++) {
    const char *name = c->fn->captures[k];
    int i = sema_local_index(L->fn, name);
    if (i < 0 || L->env[i].kind == FV_UNDEF) {
      lw_lerr(L, e->loc, "free variable '%s' referenced before assignment in enclosing scope (it is read by '%s')", name,
              c->fn->name);
      return false;
    }
    if (L->env[i].kind == FV_POISON) return false;
    lw_check_bound(L, (unsigned)i, e->loc);
    out[k] = L->env[i];
    out[k].literal = false;
  }
  return true;
}

/* A closure passed to another function: its captured variables' values go with it, constants with one definition
 * each (Numba's conditions for a function that may escape), as do its defaults. */
static bool closure_snapshot(Lower *L, const FeVal *v, FeVal *out, SrcLoc loc) {
  const FeClosure *c = v->clo;
  FeFunc *f = c->fn;
  const PyParams *ps = &f->def->funcdef.params;
  for (unsigned i = 0; i < ps->n; i++) {
    const FeVal *d = &c->defaults[i];
    if (d->kind != FV_UNDEF && !is_static(d) && !(d->kind == FV_VAL && d->is_const)) {
      lw_lerr(L, ps->items[i]->defval->loc, "the default value of '%s' of '%s' must be a constant: '%s' is passed to "
                                         "another function (it may escape)", ps->items[i]->name, f->name, f->name);
      return false;
    }
  }
  if (c->captured) {
    *out = *v;
    return true;
  }
  if (L->fn != f->outer) {
    lw_lerr(L, loc, "cannot pass %s here", lw_vname(L, v));
    return false;
  }
  FeVal *cap = ARENA_ARRAY(&L->fe->arena, FeVal, f->ncaptures ? f->ncaptures : 1);
  for (unsigned k = 0; k < f->ncaptures; k++) {
    const char *name = f->captures[k];
    int i = sema_local_index(L->fn, name);
    if (sema_definitions(L->fn, name) > 1) {
      lw_lerr(L, loc, "Cannot capture a constant value for variable '%s' as there are multiple definitions present "
                   "('%s' is passed to another function: it may escape)", name, f->name);
      return false;
    }
    const FeVal *x = &L->env[i];
    /* a definition that failed (poison, already reported) was no constant either: numba-cuda, which checks this
     * before typing, says so first */
    bool param = (unsigned)i < L->fn->def->funcdef.params.n || (unsigned)i < L->inst->nparams;
    if (param || !(x->kind == FV_VAL && x->is_const)) {
      lw_lerr(L, loc, "Cannot capture the non-constant value associated with variable '%s' in a function that may "
                   "escape ('%s' is passed to another function)", name, f->name);
      return false;
    }
    cap[k] = *x;
    cap[k].literal = false;
  }
  FeClosure *snap = ARENA_NEW(&L->fe->arena, FeClosure);
  *snap = *c;
  snap->captured = cap;
  *out = (FeVal){.kind = FV_CLOSURE, .clo = snap};
  return true;
}

/* A call of a closure: its parameters bound as a device function's, then its captured variables' values. */
static FeVal call_closure(Lower *L, const FeClosure *c, const PyExpr *e) {
  FeFunc *f = c->fn;
  const PyParams *ps = &f->def->funcdef.params;
  unsigned np = ps->n, nc = f->ncaptures, va, npo;
  if (np + nc > 64) return lw_lerr(L, e->loc, "device functions with more than 64 parameters are not supported");
  const char **names = ARENA_ARRAY(&L->fe->arena, const char *, 64);
  if (!param_names_of(L, ps, names, &va, &npo)) return poison();
  FeVal *args = ARENA_ARRAY(&L->fe->arena, FeVal, 64);
  const char *fname = f->name;
  LwCallArgs ca; /* Optional arguments as they are: the closure is specialised on them */
  if (!lower_call_args(L, e, &ca, true) ||
      !lw_bind_lowered_args(L, e, &ca, fname, names, 0, va, npo, args, va < np ? &args[va] : NULL))
    return poison();
  for (unsigned i = 0; i < va; i++) {
    if (args[i].kind != FV_UNDEF) continue;
    if (c->defaults[i].kind == FV_UNDEF) return lw_lerr(L, e->loc, "%s() missing required argument '%s'", fname, names[i]);
    args[i] = c->defaults[i];
  }
  if (c->captured) {
    for (unsigned k = 0; k < nc; k++) args[np + k] = c->captured[k];
  } else if (L->fn == f->outer) {
    if (!captured_here(L, c, e, args + np)) return poison();
  } else {
    return lw_lerr(L, e->loc, "'%s' cannot be called here", fname);
  }
  if (stack_left() < 2 * STACK_RESERVE) return lw_out_of_stack(L, e->loc, "device function calls");
  return lw_instantiate_and_call(L, f, e, args, np + nc);
}

/* Point(1, y=2.0) of a named tuple class, as Numba's NamedTupleClass call: the arguments bound to the fields as the
 * class's constructor binds them, every field given (numba-cuda cannot lower a field's default value), the tuple
 * typed by its class and the arguments' types. */
static FeVal construct_named_tuple(Lower *L, const FeNamespace *cls, const PyExpr *e) {
  StrBuf b;
  sb_init(&b);
  nb_tuple_class_name(cls->tclass, &b);
  const char *fname = arena_strdup(&L->fe->arena, sb_cstr(&b));
  sb_free(&b);
  unsigned n = cls->nfields;
  FeVal *items = ARENA_ARRAY(&L->fe->arena, FeVal, n ? n : 1);
  if (!lw_bind_args_rest(L, e, fname, cls->fields, n, n, 0, items, NULL)) return poison();
  Type **types = ARENA_ARRAY(&L->fe->arena, Type *, n ? n : 1);
  for (unsigned i = 0; i < n; i++) {
    if (items[i].kind == FV_UNDEF)
      return lw_lerr(L, e->loc, "%s() missing required argument '%s' (numba-cuda lowers no default values of named "
                             "tuple fields)", fname, cls->fields[i]);
    items[i].literal = false;
  }
  FeVal t = lw_user_tuple(L, n, items, e->loc);
  if (t.kind != FV_TUPLE) return t;
  for (unsigned i = 0; i < n; i++)
    if (!(types[i] = lw_fv_type(L, &t.tup.elems[i])))
      return lw_lerr(L, arg_loc(e, i), "field '%s' of %s() cannot hold %s", cls->fields[i], fname,
                     lw_vname(L, &t.tup.elems[i]));
  t.type = ty_named_tuple(L->ctx, cls->tclass, cls->fields, n, types);
  return t;
}

/* A call, given the value f of its callee (lowered by lower_expr's loop over the chain, or by lower_for). */
FeVal lw_call_of(Lower *L, const PyExpr *e, FeVal f) {
  switch (f.kind) {
  case FV_POISON: return f;
  case FV_BUILTIN: return lower_builtin_call(L, f.builtin, e);
  case FV_NTYPE: {
    FeVal a;
    const char *fname = tname(L, f.type);
    if (ty_is_storage(f.type)) return lw_storage_construct(L, f.type, e);
    if (!lw_positional(L, e, fname, 1, 1, &a)) return poison();
    if (a.kind == FV_VAL && ty_is_storage(a.type)) return lw_storage_cast(L, a, f.type, e->loc);
    if (!is_scalar(&a)) return lw_lerr(L, arg_loc(e, 0), "cannot convert %s to %s", lw_vname(L, &a), fname);
    if (lw_implicit_conv_error(L, &a, f.type, arg_loc(e, 0), "")) return poison();
    at(L, e->loc);
    a.enumc = NULL; /* int32(an IntEnum member): its value */
    FeVal r = lw_conv(L, a, f.type);
    r.literal = false;
    return r;
  }
  case FV_FUNC:
    if (f.func->kind == FN_KERNEL || f.func->kind == FN_DEVICE) return call_device(L, f.func, e);
    return lw_lerr(L, e->loc, "'%s' (a @%s function) cannot be called from a kernel", f.func->name,
                   f.func->kind == FN_REDUCE ? "cuda.reduce" : f.func->kind == FN_VECTORIZE ? "vectorize" : "guvectorize");
  case FV_PYFUNC:
    return lw_lerr(L, e->loc, "'%s' is not a device function: decorate it with @cuda.jit(device=True)", f.func->name);
  case FV_METHOD: return lower_method(L, &f, e);
  case FV_CLOSURE: return call_closure(L, f.clo, e);
  case FV_OVERLOAD: return lw_call_overload(L, f.str.s, e);
  case FV_FOREIGN: return lw_call_foreign(L, &f, e);
  case FV_NAMESPACE:
    if (f.ns->tclass) return construct_named_tuple(L, f.ns, e);
    return lw_lerr(L, e->loc, "%s is not callable", lw_vname(L, &f));
  case FV_EXCEPTION: { /* an exception instance, to raise (its arguments constants, as Numba infers them) */
    const char *text = lw_exception_text(L, f.str.s, e, e->loc);
    if (!text) return poison();
    FeVal x = {.kind = FV_EXCINST};
    x.str.s = text;
    x.str.len = strlen(text);
    return x;
  }
  default: return lw_lerr(L, e->loc, "%s is not callable", lw_vname(L, &f));
  }
}
