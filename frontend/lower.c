/* lower.c — the walk: lowers one Python function to kir, statement by statement and expression by expression.
 *
 * Names (locals, globals frozen at the first compile, suggestions for misspelt ones), unbound locals, attributes,
 * expressions (lower_expr dispatches each kind to its construct's file), assignment, the statements (if, return,
 * the statement list with its exits) and lower_function, which sets up a Lower for one function and runs the
 * walk. How values, control flow and arrays are lowered is described in lower.h; each construct's lowering is
 * in its own lower_*.c file. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lower.h"

/* ---- names ---------------------------------------------------------------------------------------------- */

static bool near_name(const char *want, const char *cand) {
  size_t n = strlen(want), m = strlen(cand);
  if (strcmp(want, cand) == 0 || m == 0) return false;
  unsigned limit = (unsigned)(n / 3 > 1 ? n / 3 : 1);
  if (n >= 3 && sema_edit_distance(want, cand) <= limit) return true;
  /* x -> x_array, array -> an_array */
  if (m > n + 1 && strncmp(cand, want, n) == 0 && cand[n] == '_') return true;
  if (m > n + 1 && strcmp(cand + m - n, want) == 0 && cand[m - n - 1] == '_') return true;
  return false;
}

static void consider(const char *want, const char *cand, const char **best, unsigned *bestd) {
  if (!cand || cand[0] == '_' || !near_name(want, cand)) return;
  unsigned d = sema_edit_distance(want, cand);
  if (d < *bestd) {
    *bestd = d;
    *best = cand;
  }
}

static const char *suggest(Lower *L, const char *name) {
  const char *best = NULL;
  unsigned bestd = UINT32_MAX;
  for (unsigned i = 0; i < L->fn->nlocals; i++) consider(name, L->fn->locals[i].name, &best, &bestd);
  const StrMap *maps[2] = {&L->fn->src->globals, &L->fe->bindings};
  for (unsigned k = 0; k < 2; k++)
    for (size_t i = 0; i < maps[k]->cap; i++) {
      const StrMapEntry *e = &maps[k]->slots[i];
      if (e->key && ((FeVal *)e->value)->kind != FV_HOST) consider(name, e->key, &best, &bestd);
    }
  static const char *const builtins[] = {"range", "len", "min", "max", "abs", "int", "float", "bool", "round"};
  for (unsigned i = 0; i < sizeof builtins / sizeof *builtins; i++) consider(name, builtins[i], &best, &bestd);
  return best;
}

/* Whether constant tuple v holds a constant array (at any depth). */
static bool holds_const_array(const FeVal *v, unsigned depth) {
  if (v->kind == FV_CONSTARR) return true;
  if (v->kind != FV_TUPLE || depth > FE_MAX_NESTING) return false;
  for (unsigned k = 0; k < v->tup.n; k++)
    if (holds_const_array(&v->tup.elems[k], depth + 1)) return true;
  return false;
}

/* A global tuple as a kernel reads it: its constant arrays referenced as a global array is (their symbols named
 * after the tuple and the item, hint_0_1), the rest as it is. */
static FeVal global_tuple(Lower *L, const FeVal *g, const char *hint, unsigned depth) {
  if (g->kind == FV_CONSTARR) return lw_const_array_ref(L, g->carr, hint);
  if (g->kind != FV_TUPLE || !holds_const_array(g, depth)) return *g;
  FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, g->tup.n);
  for (unsigned k = 0; k < g->tup.n; k++)
    elems[k] = global_tuple(L, &g->tup.elems[k], arena_printf(&L->fe->arena, "%s_%u", hint, k), depth + 1);
  return lw_make_tuple_like(L, g->type, g->tup.n, elems);
}

static bool has_complex_constant(const FeVal *v) {
  if (v->kind == FV_VAL) return v->is_const && v->type->kind == TY_COMPLEX;
  if (v->kind != FV_TUPLE) return false;
  for (unsigned i = 0; i < v->tup.n; i++)
    if (has_complex_constant(&v->tup.elems[i])) return true;
  return false;
}

/* A global's complex constants (itself, or items of a tuple) as the kernel's values, made where it is read: in
 * kernels complex values are never constants (numba-cuda freezes them as constants of their type). */
static FeVal complex_constants(Lower *L, FeVal v, SrcLoc loc) {
  if (v.kind == FV_VAL && v.is_const && v.type->kind == TY_COMPLEX) {
    at(L, loc);
    Type *t = v.type;
    Value *re = ib_const_float(&L->b, t->elem, v.c.f), *im = ib_const_float(&L->b, t->elem, v.im);
    return val(t, complex_make(L, re, im, t));
  }
  if (v.kind != FV_TUPLE || !has_complex_constant(&v)) return v;
  FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, v.tup.n);
  for (unsigned i = 0; i < v.tup.n; i++) elems[i] = complex_constants(L, v.tup.elems[i], loc);
  return lw_make_tuple_like(L, v.type, v.tup.n, elems);
}

/* The value of a global (a module-level name, a binding, a namespace member) as a kernel reads it; name
 * says which in diagnostics, hint names the symbol of a constant array. */
static FeVal global_value(Lower *L, const FeVal *g, const char *name, const char *hint, SrcLoc loc) {
  if (g->kind == FV_HOST)
    return lw_lerr(L, loc, "global name '%s' is not a compile-time constant: a kernel can read module constants "
                        "(numbers, tuples of them), modules, types and functions",
                   name);
  if (g->kind == FV_INVALID) /* a name kernels cannot use is, in numba-cuda's words, an untyped global: "'x': why" */
    return lw_lerr(L, loc, "%s'%s': %s%s", strchr(name, '.') ? "" : "Untyped global name ", name, g->str.s,
                   strmap_get(&L->fe->bindings, name) ? " (bound by the embedder)" : "");
  if (g->kind == FV_CONSTARR) { /* a global NumPy array is a constant, as in Numba */
    at(L, loc);
    return lw_const_array_ref(L, g->carr, hint);
  }
  if (g->kind == FV_TUPLE && holds_const_array(g, 0)) { /* (a, b): the arrays as the globals they would be */
    at(L, loc);
    return complex_constants(L, global_tuple(L, g, hint, 0), loc);
  }
  FeVal v = *g;
  v.literal = false;
  return complex_constants(L, v, loc);
}

/* A name that is not a local: the template's own scope (generated kernels see only it and the builtins),
 * else the embedder's bindings and the function's source (fe_lookup), else Python's builtins. */
static FeVal lookup_global(Lower *L, const char *name, SrcLoc loc) {
  FeVal *g = L->fn->scope ? strmap_get(L->fn->scope, name) : fe_lookup(L->fe, L->fn->src, name);
  if (g) return global_value(L, g, name, name, loc);
  char buf[80];
  if (strlen(name) < 60) {
    snprintf(buf, sizeof buf, "builtins.%s", name);
    int bi = sema_lookup_path(L->fe, buf);
    if (bi >= 0) return (FeVal){.kind = FV_BUILTIN, .builtin = bi};
  }
  if (fe_builtin_exception(name)) { /* ValueError(...): an instance to raise */
    FeVal x = {.kind = FV_EXCEPTION};
    x.str.s = name;
    x.str.len = strlen(name);
    return x;
  }
  const char *s = suggest(L, name); /* numba-cuda's words: the NameError its bytecode interpreter raises */
  if (s) return lw_lerr(L, loc, "NameError: name '%s' is not defined (did you mean '%s'?)", name, s);
  return lw_lerr(L, loc, "NameError: name '%s' is not defined", name);
}

/* ---- unbound locals ------------------------------------------------------------------------------------------
 * A local bound on some paths only (assigned in one branch of an if, in a loop that may not run) may be read
 * where it is bound on every path that reaches the read, as in Numba. Each local has a pseudo-variable
 * (v_bound0 + i) saying whether it is bound: a constant where that is known, else an i1 merged at if and
 * loop joins like any variable (liveness keeps it only where the local may be read). A read where the local
 * may be unbound is checked at run time: the thread raises UnboundLocalError, located, through the kernel's error
 * record (check.raise). A read where it is unbound on every path (`else: c += 1` where only the other branch
 * assigns c) compiles, as in Numba, when the local is given a number or boolean elsewhere in the function (its
 * type is that one's): the read raises UnboundLocalError when it runs, and a warning says so at compile time
 * (numba's "Detected uninitialized variable"); with no type known it is a compile-time error. With run-time
 * checks off (--bounds-check=off, boundscheck=False) every local counts as bound and such a read gives zero,
 * as Numba's does. */

/* The read of local i (bound on some path): checked when it may be unbound here; bound after the check. */
void lw_check_bound(Lower *L, unsigned i, SrcLoc loc) {
  FeVal *b = &L->env[bound_slot(L, i)];
  if (b->kind != FV_VAL || (b->is_const && b->c.i)) return;
  at(L, loc);
  Value *unbound = b->is_const ? ib_const_bool(&L->b, true) : ib_binary(&L->b, OP_XORI, b->v, ib_const_bool(&L->b, true));
  Op *c = ib_op(&L->b, OP_RAISE, 1, &unbound, 0, NULL, 0);
  const char *text = arena_printf(&L->fe->arena, "UnboundLocalError: cannot access local variable '%s' where it is "
                                  "not associated with a value", L->fn->locals[i].name);
  ir_op_set_attr(L->m, c, "exception", attr_str(L->m, text));
  *b = cbool(L, true);
}

static FeVal lower_name(Lower *L, const PyExpr *e) {
  int i = sema_local_index(L->fn, e->name);
  if (i < 0) return lookup_global(L, e->name, e->loc);
  FeVal v = L->env[i];
  if (v.kind == FV_UNDEF && L->seen_types[i]) { /* unbound on every path here: raises when it runs */
    if (L->quiet) L->suppressed++; /* (the warning is given by the loud attempt a loop then makes) */
    else
      diag_warning(L->fe->diag, user_loc(L, e->loc), "Detected uninitialized variable %s: no path to this read "
                   "assigns it, so the read raises UnboundLocalError when it runs", e->name);
    if (L->fe->opts->compile->bounds_check) { /* (checks off: zero, as Numba's) */
      L->env[bound_slot(L, (unsigned)i)] = cbool(L, false);
      lw_check_bound(L, (unsigned)i, e->loc);
    }
    return zero_of(L->seen_types[i]);
  }
  if (v.kind == FV_UNDEF) {
    if (L->quiet) return lw_lerr(L, e->loc, "undefined");
    return lw_lerr(L, e->loc, "local variable '%s' is referenced before assignment", e->name);
  }
  lw_check_bound(L, (unsigned)i, e->loc);
  v.literal = false;
  return v;
}

/* ---- attributes -------------------------------------------------------------------------------------------- */

static FeVal builtin_value(Lower *L, int bi) {
  Type *f64 = ty_f64(L->ctx);
  switch (bi) {
  case BI_MATH_PI: return cfloat(f64, M_PI);
  case BI_MATH_E: return cfloat(f64, M_E);
  case BI_MATH_TAU: return cfloat(f64, 2 * M_PI);
  case BI_MATH_INF: return cfloat(f64, INFINITY);
  case BI_MATH_NAN: return cfloat(f64, NAN);
  case BI_LANEID:
  case BI_WARPSIZE: {
    Type *i32 = ty_i32(L->ctx);
    FeVal r = val(i32, op_result(ib_op(&L->b, bi == BI_LANEID ? OP_LANE_ID : OP_WARP_SIZE, 0, NULL, 1, &i32, 0), 0));
    r.nonneg = true;
    return r;
  }
  default: return (FeVal){.kind = FV_BUILTIN, .builtin = bi};
  }
}

static FeVal path_attr(Lower *L, const FeVal *v, const char *attr, SrcLoc loc) {
  char *p = arena_printf(&L->fe->arena, "%s.%s", v->str.s, attr);
  FeVal r;
  if (fe_random_path(L->fe, p, &r)) return r.kind == FV_INVALID ? lw_lerr(L, loc, "'%s': %s", p, r.str.s) : r;
  Type *t = sema_path_type(L->fe, p);
  if (t) return (FeVal){.kind = FV_NTYPE, .type = t};
  int bi = sema_lookup_path(L->fe, p);
  if (bi >= 0) return builtin_value(L, bi);
  if (sema_is_prefix(L->fe, p)) {
    FeVal r = {.kind = FV_PATH};
    r.str.s = p;
    r.str.len = strlen(p);
    return r;
  }
  if (strstr(p, "bf16.") && (strstr(attr, "bfloat162") || (strlen(attr) > 2 && attr[strlen(attr) - 1] == '2' &&
                                                             strchr("hH_", attr[attr[0] == '_' ? 2 : 0]))))
    return lw_lerr(L, loc, "'%s' is not supported: numba-cuda's numba.cuda.bf16 has no vector type (its internal "
                   "cuda_bf16 bindings' __nv_bfloat162 and the h...2 intrinsics on it are not part of kfront)", p);
  return lw_lerr(L, loc, "module '%s' has no attribute '%s' that kfront knows", v->str.s, attr);
}

static FeVal dims_tuple(Lower *L, Value *arr, unsigned first, unsigned rank) {
  FeVal elems[32];
  for (unsigned k = first; k < rank && k - first < 32; k++) {
    elems[k - first] = val(ty_i64(L->ctx), ib_dim(&L->b, arr, k));
    elems[k - first].nonneg = true;
  }
  return lw_make_tuple(L, rank - first, elems);
}

static bool same_string(const FeVal *a, const char *s, size_t n) {
  return a->kind == FV_STR && a->str.len == n && memcmp(a->str.s, s, n) == 0;
}

/* len() of a run-time string: its candidates' lengths in code points, chosen by its index. */
FeVal lw_run_time_string_len(Lower *L, const FeVal *v, SrcLoc loc) {
  const FeEnum *en = v->enumc;
  at(L, loc);
  Type *i64 = ty_i64(L->ctx);
  Value *idx = lw_mat(L, v), *r = NULL;
  for (unsigned k = en->nvalues; k-- > 0;) {
    int64_t n = 0;
    for (size_t i = 0; i < en->values[k].str.len; i++) n += ((unsigned char)en->values[k].str.s[i] & 0xC0) != 0x80;
    Value *c = ib_const_int(&L->b, i64, n);
    r = r ? ib_select(&L->b, ib_cmpi(&L->b, IR_CMPI_EQ, idx, ib_const_int(&L->b, i64, k)), c, r) : c;
  }
  FeVal out = val(i64, r);
  out.nonneg = true;
  return out;
}

/* a == b or a != b where one is a run-time string and the other a string (constant or of the same enum): true
 * with *out set; false when neither is a run-time string. */
bool lw_run_time_string_compare(Lower *L, PyCmpOp op, const FeVal *a, const FeVal *b, SrcLoc loc, FeVal *out) {
  if (!is_run_time_string(a) && !is_run_time_string(b)) return false;
  const FeVal *x = is_run_time_string(a) ? a : b, *y = x == a ? b : a;
  if (op != CMP_EQ && op != CMP_NE) {
    *out = lw_lerr(L, loc, "'%s' between strings chosen at run time is not supported (kfront compares them with == and "
                        "!=)", ast_cmpop_str(op));
    return true;
  }
  at(L, loc);
  Value *idx = lw_mat(L, x), *eq;
  Type *i64 = ty_i64(L->ctx);
  if (is_run_time_string(y) && y->enumc == x->enumc) {
    eq = ib_cmpi(&L->b, IR_CMPI_EQ, idx, lw_mat(L, y)); /* distinct members have distinct strings (equal ones are aliases) */
  } else if (y->kind == FV_STR) {
    eq = ib_const_bool(&L->b, false);
    const FeEnum *en = x->enumc;
    for (unsigned k = 0; k < en->nvalues; k++)
      if (same_string(&en->values[k], y->str.s, y->str.len))
        eq = ib_binary(&L->b, OP_ORI, eq, ib_cmpi(&L->b, IR_CMPI_EQ, idx, ib_const_int(&L->b, i64, k)));
  } else {
    *out = lw_lerr(L, loc, "no implementation of '%s' for %s and %s", ast_cmpop_str(op), lw_vname(L, a), lw_vname(L, b));
    return true;
  }
  if (op == CMP_NE) eq = ib_binary(&L->b, OP_XORI, eq, ib_const_bool(&L->b, true));
  *out = val(ty_bool(L->ctx), eq);
  return true;
}

/* The value of a member of a valued enum (tuples or strings as values: the member is their index): a constant
 * member's value itself; a run-time member's tuple chosen element by element (arith.select over the members), its
 * string a run-time string (above). */
static FeVal member_tuple(Lower *L, const FeEnum *en, Value *idx, const FeVal *const *vals, unsigned depth) {
  const FeVal *first = vals[0];
  if (first->kind == FV_TUPLE) {
    FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, first->tup.n);
    const FeVal **sub = ARENA_ARRAY(&L->fe->arena, const FeVal *, en->nvalues);
    for (unsigned i = 0; i < first->tup.n; i++) {
      for (unsigned k = 0; k < en->nvalues; k++) sub[k] = &vals[k]->tup.elems[i];
      elems[i] = member_tuple(L, en, idx, sub, depth + 1);
    }
    return lw_make_tuple(L, first->tup.n, elems);
  }
  Value *r = lw_mat(L, vals[en->nvalues - 1]);
  for (unsigned k = en->nvalues - 1; k-- > 0;) {
    Value *is_k = ib_cmpi(&L->b, IR_CMPI_EQ, idx, ib_const_int(&L->b, ty_i64(L->ctx), k));
    r = ib_select(&L->b, is_k, lw_mat(L, vals[k]), r);
  }
  return val(first->type, r);
}

static FeVal valued_member_value(Lower *L, const FeVal *m, SrcLoc loc) {
  const FeEnum *en = m->enumc;
  if (m->is_const && m->c.i >= 0 && (uint64_t)m->c.i < en->nvalues) {
    FeVal r = en->values[m->c.i];
    r.literal = false;
    return r;
  }
  if (en->values[0].kind == FV_STR) { /* its string: the member's index, tagged as the strings of the enum */
    FeVal r = *m;
    r.enumc = fe_enum_strings(L->fe, en);
    r.literal = false;
    return r;
  }
  const FeVal **vals = ARENA_ARRAY(&L->fe->arena, const FeVal *, en->nvalues);
  for (unsigned k = 0; k < en->nvalues; k++) vals[k] = &en->values[k];
  at(L, loc);
  return member_tuple(L, en, lw_mat(L, m), vals, 0);
}

/* e.attr, given the value v of e (lowered by lower_expr's loop over the chain). */
static FeVal attribute_of(Lower *L, const PyExpr *e, FeVal v) {
  const char *a = e->attribute.attr;
  SrcLoc aloc = e->attribute.attr_loc;
  at(L, e->loc);
  switch (v.kind) {
  case FV_POISON: return v;
  case FV_PATH: return path_attr(L, &v, a, aloc);
  case FV_NAMESPACE:
    for (unsigned i = 0; i < v.ns->n; i++)
      if (strcmp(v.ns->names[i], a) == 0)
        return global_value(L, &v.ns->vals[i], arena_printf(&L->fe->arena, "%s.%s", v.ns->name, a),
                            arena_printf(&L->fe->arena, "%s__%s", v.ns->name, a), aloc);
    if (v.ns->module) return lw_lerr(L, aloc, "module '%s' has no attribute '%s'", v.ns->module, a);
    return lw_lerr(L, aloc, "namespace '%s' has no attribute '%s'", v.ns->name, a);
  case FV_BUILTIN:
    if (v.builtin == BI_THREADIDX || v.builtin == BI_BLOCKIDX || v.builtin == BI_BLOCKDIM || v.builtin == BI_GRIDDIM) {
      if ((a[0] == 'x' || a[0] == 'y' || a[0] == 'z') && !a[1]) {
        static const OpKind ops[] = {OP_THREAD_ID, OP_BLOCK_ID, OP_BLOCK_DIM, OP_GRID_DIM};
        FeVal r = val(ty_i32(L->ctx), ib_gpu_id(&L->b, ops[v.builtin - BI_THREADIDX], (unsigned)(a[0] - 'x')));
        r.nonneg = true;
        return r;
      }
      return lw_lerr(L, aloc, "'%s' has no attribute '%s' (use .x, .y or .z)", sema_builtin_name(v.builtin), a);
    }
    if (v.builtin == BI_GRID_GROUP) {
      if (strcmp(a, "sync") == 0) return (FeVal){.kind = FV_BUILTIN, .builtin = BI_GRID_SYNC};
      return lw_lerr(L, aloc, "unknown attribute '%s' of GridGroup (numba-cuda's grid group has only sync())", a);
    }
    return lw_lerr(L, aloc, "unknown attribute '%s' of %s", a, lw_vname(L, &v));
  case FV_VECTOR: {
    if (is_slice_obj(&v)) return lw_slice_attr(L, &v, a, aloc);
    int k = vec_field(v.type, a);
    if (k < 0)
      return lw_lerr(L, aloc, "%s has no attribute '%s' (its fields are %s)", lw_vname(L, &v), a,
                     (const char *const[]){".x", ".x and .y", ".x, .y and .z", ".x, .y, .z and .w"}[v.tup.n - 1]);
    FeVal r = v.tup.elems[k];
    r.literal = false;
    return r;
  }
  case FV_VAL:
  case FV_VIEW: {
    if (is_run_time_string(&v))
      return lw_lerr(L, aloc, "attribute '%s' of a string chosen at run time is not supported (kfront takes len(), == and "
                           "!= of such strings)", a);
    if (v.kind == FV_VAL && ty_is_storage(v.type)) return lw_storage_attr(L, &v, a, aloc);
    if (v.kind == FV_VAL && v.enumc) { /* an enum member: .value is its value */
      if (strcmp(a, "value") == 0 && v.enumc->values) return valued_member_value(L, &v, aloc);
      if (strcmp(a, "value") == 0) {
        v.enumc = NULL;
        return v;
      }
      return lw_lerr(L, aloc, "unknown attribute '%s' of %s (Numba's enum members have .value only%s)", a, lw_vname(L, &v),
                     strcmp(a, "name") == 0 ? ": its CUDA target has no strings to give .name as" : "");
    }
    /* int.bit_count() (numba-cuda: cuda.popc of the integer) */
    if (v.kind == FV_VAL && v.type->kind == TY_INT && strcmp(a, "bit_count") == 0)
      return (FeVal){.kind = FV_METHOD, .type = v.type, .v = lw_mat(L, &v), .builtin = M_INT_BIT_COUNT};
    if (v.kind == FV_VAL && v.type->kind != TY_ARRAY) {
      /* .real, .imag and .conjugate() of numbers (numba-cuda: of complex, float and integer values) */
      bool num = ty_is_number(v.type) && v.type->kind != TY_BOOL;
      if (num && (strcmp(a, "real") == 0 || strcmp(a, "imag") == 0)) {
        bool im = a[0] == 'i';
        if (v.type->kind == TY_COMPLEX) return val(v.type->elem, complex_part(L, lw_mat(L, &v), im));
        if (!im) return (v.literal = false, v);
        return zero_of(v.type);
      }
      if (num && strcmp(a, "conjugate") == 0) return (FeVal){.kind = FV_METHOD, .type = v.type, .v = lw_mat(L, &v), .builtin = M_CONJUGATE};
      return lw_lerr(L, aloc, "unknown attribute '%s' of %s", a, tname(L, v.type));
    }
    Value *arr = v.kind == FV_VIEW ? v.tup.elems[0].v : v.v;
    unsigned first = v.kind == FV_VIEW ? v.tup.n - 1 : 0;
    unsigned rank = arr->type->rank;
    if (strcmp(a, "shape") == 0) return dims_tuple(L, arr, first, rank);
    if (strcmp(a, "ndim") == 0) return cint(ty_i64(L->ctx), rank - first);
    if (strcmp(a, "dtype") == 0) return (FeVal){.kind = FV_NTYPE, .type = arr->type->elem};
    if (strcmp(a, "size") == 0) {
      Type *i64 = ty_i64(L->ctx);
      FeVal r;
      if (first == 0) {
        r = val(i64, op_result(ib_op(&L->b, OP_SIZE, 1, &arr, 1, &i64, 0), 0));
      } else if (first == rank) { /* a 0-d array (or view): one element */
        r = cint(i64, 1);
      } else {
        Value *n = ib_dim(&L->b, arr, first);
        for (unsigned k = first + 1; k < rank; k++) n = ib_binary(&L->b, OP_MULI, n, ib_dim(&L->b, arr, k));
        r = val(i64, n);
      }
      r.nonneg = true;
      return r;
    }
    return lw_array_attribute(L, &v, a, aloc);
  }
  case FV_TUPLE: { /* a named tuple's field (Numba's NamedTuple: its fields are its only attributes) */
    int k = v.type ? ty_tuple_field(v.type, a, strlen(a)) : -1;
    if (k < 0) return lw_lerr(L, aloc, "unknown attribute '%s' of %s", a, lw_vname(L, &v));
    FeVal r = v.tup.elems[k];
    r.literal = false;
    return r;
  }
  case FV_CTYPES: return lw_ctypes_attribute(L, &v, a, aloc);
  case FV_RECORD: {
    Value *base, *idx[32];
    FeVal r = lw_record_field(L, &v, a, strlen(a), aloc, &base, idx);
    if (r.kind != FV_VAL || r.v) return r;
    return lw_load_element(L, base, idx);
  }
  default: return lw_lerr(L, aloc, "unknown attribute '%s' of %s", a, lw_vname(L, &v));
  }
}

/* ---- expressions ----------------------------------------------------------------------------------------------- */

/* (a, b, ...) and [a, b, ...]: a tuple of values (the elements' array in the arena, off the recursion's frames). */
static FeVal lower_tuple(Lower *L, const PyExpr *e) {
  if (e->elts.n > MAX_FLAT) return lw_lerr(L, e->loc, "tuples of more than %d elements are not supported", MAX_FLAT);
  FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, e->elts.n ? e->elts.n : 1);
  for (unsigned i = 0; i < e->elts.n; i++) {
    if (e->elts.items[i]->kind == EX_STARRED) return lw_lerr(L, e->elts.items[i]->loc, "starred expressions are not supported in kernels");
    elems[i] = lw_lower_expr_opt(L, e->elts.items[i]); /* an Optional element stays one, as Numba's tuples hold it */
    if (elems[i].kind == FV_POISON) return poison();
    elems[i].literal = false;
  }
  return lw_user_tuple(L, e->elts.n, elems, e->loc);
}

/* One link of a chain (ast_chain_next), given the value of its first operand. */
static FeVal chain_link(Lower *L, const PyExpr *e, FeVal first) {
  at(L, e->loc);
  switch (e->kind) {
  case EX_BINARY: {
    FeVal b = lower_expr(L, e->binary.rhs);
    return lw_binop(L, e->binary.op, first, b, e->binary.op_loc);
  }
  case EX_ATTRIBUTE: return attribute_of(L, e, first);
  case EX_SUBSCRIPT: return lw_subscript_of(L, e, first);
  default: return lw_call_of(L, e, first);
  }
}

static FeVal lower_leaf(Lower *L, const PyExpr *e);

/* An expression. Chains (ast_chain_next) are walked by a loop, so `1 + 1 + ... + 1` of any length takes no
 * stack; the remaining recursion (right operands, arguments, brackets) is bounded by the parser's depth limit,
 * and by the thread's stack (stack.h): near its end, a located error. */
FeVal lw_lower_expr_opt(Lower *L, const PyExpr *e) {
  if (stack_exhausted()) return lw_out_of_stack(L, e->loc, "expression");
  if (!ast_chain_next(e)) return lower_leaf(L, e);
  size_t n;
  const PyExpr **chain = ast_chain(&L->fe->arena, e, &n);
  if (!chain) return lw_lerr(L, e->loc, "out of memory");
  const PyExpr *first = ast_chain_next(chain[n - 1]);
  FeVal v = lower_leaf(L, first);
  while (n) { /* an operand that may be None used as its value (x + 1, x.real, x[0]) */
    v = lw_unwrap(L, v, first->loc);
    first = chain[--n];
    v = chain_link(L, first, v);
  }
  return v;
}

FeVal lower_expr(Lower *L, const PyExpr *e) {
  FeVal v = lw_lower_expr_opt(L, e);
  return v.kind == FV_OPTIONAL ? lw_unwrap(L, v, e->loc) : v;
}

/* An expression that continues no chain. */
static FeVal lower_leaf(Lower *L, const PyExpr *e) {
  at(L, e->loc);
  switch (e->kind) {
  case EX_NAME: return lower_name(L, e);
  case EX_INT: {
    if (e->intlit.big == 2) return lw_lerr(L, e->loc, "integer literal %.*s is too large for 64 bits", (int)e->intlit.len, e->intlit.text);
    FeVal v = cint(e->intlit.big ? ty_int(L->ctx, 64, true) : ty_i64(L->ctx), e->intlit.value);
    v.nonneg = e->intlit.big || e->intlit.value >= 0;
    v.literal = true;
    return v;
  }
  case EX_FLOAT: {
    FeVal v = cfloat(ty_f64(L->ctx), e->fval);
    v.literal = true;
    return v;
  }
  case EX_BOOL: {
    FeVal v = cbool(L, e->bval);
    v.literal = true;
    return v;
  }
  case EX_NONE: return (FeVal){.kind = FV_NONE};
  case EX_STR: {
    FeVal v = {.kind = e->str.bytes ? FV_BYTES : FV_STR};
    v.str.s = e->str.s;
    v.str.len = e->str.len;
    return v;
  }
  case EX_COMPLEX: { /* an imaginary literal: complex128, real part +0.0 */
    at(L, e->loc);
    Type *t = ty_complex(L->ctx, ty_f64(L->ctx));
    return val(t, complex_make(L, ib_const_float(&L->b, t->elem, 0), ib_const_float(&L->b, t->elem, e->fval), t));
  }
  case EX_UNARY: {
    FeVal a = lower_expr(L, e->unary.operand);
    return lw_unop(L, e->unary.op, a, e->loc);
  }
  case EX_BOOLOP: return lower_boolop(L, e);
  case EX_COMPARE: return lower_compare(L, e);
  case EX_IFEXP: return lower_ifexp(L, e);
  case EX_TUPLE:
  case EX_LIST: return lower_tuple(L, e);
  case EX_SLICE: return lw_lerr(L, e->loc, "a slice can only index an array");
  case EX_FSTRING: return lw_lerr(L, e->loc, "f-strings are not supported in kernels");
  case EX_LAMBDA: return lower_lambda(L, e);
  default:
    return lw_lerr(L, e->loc, "%s is not supported in kernels", ast_expr_kind_name(e->kind));
  }
}

/* ---- assignment ------------------------------------------------------------------------------------------------- */

/* The element a subscript target `a[i, ...]` names (assignment and augmented assignment): its array and i64
 * indices, wrapped and bounds-checked by index_array; *array is the subscripted value. With sub, fewer indices than
 * the rank give the sub-array (*sub an FV_VIEW; else FV_NONE); without, they are an error. False after a located
 * error. */
static bool item_target(Lower *L, const PyExpr *t, FeVal *array, Value **base, Value **idx, FeVal *sub,
                        bool partial_ok) {
  sub->kind = FV_NONE;
  FeVal a = *array = lower_expr(L, t->subscript.value);
  if (a.kind == FV_POISON) return false;
  if (a.kind == FV_TUPLE) {
    lw_lerr(L, t->loc, "tuples are immutable: cannot assign to an element");
    return false;
  }
  if (lw_is_charseq(&a)) { /* numba-cuda has no setitem of CharSeq / UnicodeCharSeq */
    lw_lerr(L, t->loc, "%s does not support item assignment", tname(L, a.type));
    return false;
  }
  if (a.kind == FV_RECORD) { /* r['x'] (or r[0]): a scalar field, else a whole nested record or array */
    FeVal f = lw_record_item(L, &a, t->subscript.index, base, idx);
    if (f.kind == FV_POISON) return false;
    if (f.kind != FV_VAL) *sub = f;
    return true;
  }
  if (is_pointer(&a)) return lw_pointer_item(L, &a, t->subscript.index, t->loc, base, idx);
  if (!is_array(&a) && a.kind != FV_VIEW) {
    lw_lerr(L, t->loc, "%s does not support item assignment", lw_vname(L, &a));
    return false;
  }
  if (lw_refuse_readonly_store(L, a.kind == FV_VIEW ? a.tup.elems[0].v : a.v, a.type, t->loc)) return false;
  FeVal ix[32];
  unsigned n;
  bool views;
  if (!lw_gather_indices(L, t->subscript.index, ix, &n, &views)) return false;
  if (views) { /* a[s] of a slice object s: the element, or the view (to store into, not augmented) */
    FeVal r = lw_index_view_values(L, a, ix, n, t->subscript.index, t->loc, base, idx);
    if (r.kind != FV_VAL) return false;
    if (r.v && !partial_ok) {
      lw_lerr(L, t->loc, "augmented assignment to a slice of an array is not supported in kernels (it is an array "
                      "expression)");
      return false;
    }
    if (r.v) *sub = r;
    else if (ty_is_record((*base)->type->elem)) *sub = lw_record_ref(L, *base, idx);
    return true;
  }
  FeVal r = lw_index_array(L, &a, ix, n, t->loc, !partial_ok, base, idx);
  if (r.kind == FV_VIEW) { /* a[i] of a 2-d a: the sub-array */
    *sub = r;
    return true;
  }
  if (r.kind != FV_VAL) return false;
  if (ty_is_record((*base)->type->elem)) *sub = lw_record_ref(L, *base, idx); /* a[i] = record */
  return true;
}

/* The field a target `r.name` names (assignment and augmented assignment), as item_target does. */
static bool field_target(Lower *L, const PyExpr *t, Value **base, Value **idx, FeVal *composite) {
  composite->kind = FV_NONE;
  FeVal r = lower_expr(L, t->attribute.value);
  if (r.kind == FV_POISON) return false;
  if (r.kind == FV_VECTOR) {
    lw_lerr(L, t->attribute.attr_loc, "the fields of %s are immutable: cannot assign to '.%s' (numba-cuda's vector "
                                   "types are read-only after construction)", lw_vname(L, &r), t->attribute.attr);
    return false;
  }
  if (r.kind != FV_RECORD) {
    lw_lerr(L, t->attribute.attr_loc, "cannot assign to attribute '%s' of %s in a kernel", t->attribute.attr, lw_vname(L, &r));
    return false;
  }
  FeVal f = lw_record_field(L, &r, t->attribute.attr, strlen(t->attribute.attr), t->attribute.attr_loc, base, idx);
  if (f.kind == FV_POISON) return false;
  if (f.kind != FV_VAL) *composite = f;
  return true;
}

void lw_assign(Lower *L, const PyExpr *t, FeVal v, SrcLoc vloc) {
  if (t->kind != EX_NAME) v = lw_unwrap(L, v, vloc); /* an Optional unpacked or stored: its value */
  switch (t->kind) {
  case EX_NAME: {
    int i = sema_local_index(L->fn, t->name);
    v.literal = false;
    if (lw_is_charseq(&v)) v = lw_charseq_copy(L, &v, vloc); /* a bytes or str item is loaded, as numba-cuda's */
    if (i >= 0) {
      L->env[i] = v;
      L->env[bound_slot(L, (unsigned)i)] = cbool(L, true);
      lw_note_type(L, (unsigned)i, &v);
    }
    return;
  }
  case EX_TUPLE:
  case EX_LIST: {
    if (v.kind == FV_POISON) {
      for (unsigned k = 0; k < t->elts.n; k++) lw_assign(L, t->elts.items[k], v, vloc);
      return;
    }
    for (unsigned k = 0; k < t->elts.n; k++)
      if (t->elts.items[k]->kind == EX_STARRED) {
        lw_lerr(L, t->elts.items[k]->loc, "starred assignment targets are not supported in kernels");
        return;
      }
    if (v.kind != FV_TUPLE) {
      lw_lerr(L, t->loc, "cannot unpack %s into %u values", lw_vname(L, &v), t->elts.n);
      for (unsigned k = 0; k < t->elts.n; k++) lw_assign(L, t->elts.items[k], poison(), vloc);
      return;
    }
    if (v.tup.n != t->elts.n) {
      if (v.tup.n > t->elts.n) lw_lerr(L, t->loc, "too many values to unpack (expected %u, got %u)", t->elts.n, v.tup.n);
      else lw_lerr(L, t->loc, "not enough values to unpack (expected %u, got %u)", t->elts.n, v.tup.n);
      for (unsigned k = 0; k < t->elts.n; k++) lw_assign(L, t->elts.items[k], poison(), vloc);
      return;
    }
    for (unsigned k = 0; k < t->elts.n; k++) lw_assign(L, t->elts.items[k], v.tup.elems[k], vloc);
    return;
  }
  case EX_SUBSCRIPT: {
    if (lw_is_view_index(t->subscript.index)) {
      lw_assign_view(L, t, v, vloc);
      return;
    }
    FeVal a, sub;
    Value *base, *idx[32];
    if (!item_target(L, t, &a, &base, idx, &sub, true) || v.kind == FV_POISON) return;
    if (sub.kind == FV_RECORD || is_nested_view(&sub)) { /* a whole record, or a record's nested array */
      lw_assign_composite(L, &sub, v, t->loc, vloc);
      return;
    }
    if (sub.kind == FV_VIEW || is_array(&sub)) { /* a[i] = row of a 2-d a, a[s] = x: the sub-array as a view */
      at(L, t->loc);
      FeVal dst = lw_view_value(L, &sub);
      lw_store_into(L, dst.v, v, vloc);
      return;
    }
    if (!is_scalar(&v)) {
      lw_lerr(L, vloc, "cannot store %s into an element of %s", lw_vname(L, &v), tname(L, a.type));
      return;
    }
    if (lw_implicit_conv_error(L, &v, base->type->elem, vloc, " to store it into an element")) return;
    at(L, t->loc);
    lw_store_element(L, base, idx, conv_v(L, v, base->type->elem));
    return;
  }
  case EX_ATTRIBUTE: { /* a field of a record (a CUDA vector's are read-only) */
    FeVal whole;
    Value *base, *idx[32];
    if (!field_target(L, t, &base, idx, &whole) || v.kind == FV_POISON) return;
    if (whole.kind != FV_NONE) {
      lw_assign_composite(L, &whole, v, t->loc, vloc);
      return;
    }
    if (!is_scalar(&v)) {
      lw_lerr(L, vloc, "cannot store %s into a field of type %s", lw_vname(L, &v), tname(L, base->type->elem));
      return;
    }
    if (lw_implicit_conv_error(L, &v, base->type->elem, vloc, " to store it into a field")) return;
    at(L, t->loc);
    lw_store_element(L, base, idx, conv_v(L, v, base->type->elem));
    return;
  }
  case EX_STARRED: lw_lerr(L, t->loc, "starred assignment targets are not supported in kernels"); return;
  default: lw_lerr(L, t->loc, "cannot assign to %s", ast_expr_kind_name(t->kind)); return;
  }
}

static void lower_augassign(Lower *L, const PyStmt *s) {
  const PyExpr *t = s->augassign.target;
  if (t->kind == EX_NAME) {
    FeVal cur = lw_unwrap(L, lower_name(L, t), t->loc); /* x += 1 of an Optional x: of its value */
    FeVal rhs = lower_expr(L, s->augassign.value);
    FeVal r = lw_binop(L, s->augassign.op, cur, rhs, s->augassign.op_loc);
    lw_assign(L, t, r, s->augassign.value->loc);
    return;
  }
  if (t->kind == EX_SUBSCRIPT || t->kind == EX_ATTRIBUTE) {
    FeVal a = poison(), whole = {.kind = FV_NONE};
    Value *base, *idx[32];
    if (t->kind == EX_ATTRIBUTE) {
      if (!field_target(L, t, &base, idx, &whole)) return;
      a = val(base->type, base);
    } else if (lw_is_view_index(t->subscript.index)) {
      a = lower_expr(L, t->subscript.value);
      if (a.kind == FV_POISON) return;
      if (!is_array(&a) && a.kind != FV_VIEW) {
        lw_lerr(L, t->loc, "%s does not support item assignment", lw_vname(L, &a));
        return;
      }
      if (lw_refuse_readonly_store(L, a.kind == FV_VIEW ? a.tup.elems[0].v : a.v, a.type, t->loc)) return;
      FeVal r = lw_index_view(L, a, t->subscript.index, t->loc, &base, idx);
      if (r.kind != FV_VAL) return;
      if (r.v) {
        lw_lerr(L, s->augassign.op_loc, "augmented assignment to a slice of an array is not supported in kernels (it is an "
                                     "array expression)");
        return;
      }
    } else if (!item_target(L, t, &a, &base, idx, &whole, false)) {
      return;
    }
    if (whole.kind != FV_NONE) {
      lw_lerr(L, s->augassign.op_loc, "invalid augmented assignment: %s is a record or nested array, not a number",
              lw_vname(L, &whole));
      return;
    }
    FeVal old = lw_load_element(L, base, idx);
    FeVal rhs = lower_expr(L, s->augassign.value);
    FeVal nv = lw_binop(L, s->augassign.op, old, rhs, s->augassign.op_loc);
    if (nv.kind == FV_POISON) return;
    if (!is_scalar(&nv)) {
      lw_lerr(L, s->augassign.value->loc, "cannot store %s into an element of %s", lw_vname(L, &nv), tname(L, a.type));
      return;
    }
    if (lw_implicit_conv_error(L, &nv, base->type->elem, s->augassign.op_loc, " to store it into an element")) return;
    at(L, t->loc);
    lw_store_element(L, base, idx, conv_v(L, nv, base->type->elem));
    return;
  }
  lw_lerr(L, t->loc, "cannot assign to %s", ast_expr_kind_name(t->kind));
}

/* ---- statements --------------------------------------------------------------------------------------------------- */

static StmtSeq concat(Lower *L, const PyStmtList *a, PyStmt *const *b, unsigned nb) {
  if (!nb) return (StmtSeq){a->items, a->n};
  PyStmt **s = ARENA_ARRAY(&L->fe->arena, PyStmt *, a->n + nb);
  if (a->n) memcpy(s, a->items, sizeof *s * a->n);
  memcpy(s + a->n, b, sizeof *s * nb);
  return (StmtSeq){s, a->n + nb};
}

/* rest_in: 0 none; 1 the statements after the if go into its then-branch; 2 into its else-branch. */
static void lower_if(Lower *L, const PyStmt *s, PyStmt *const *rest, unsigned nrest, int rest_in) {
  FeVal c = lower_cond(L, s->if_.test);
  if (c.kind == FV_POISON) return;
  StmtSeq bt = concat(L, &s->if_.body, rest, rest_in == 1 ? nrest : 0);
  StmtSeq be = concat(L, &s->if_.orelse, rest, rest_in == 2 ? nrest : 0);
  bt.holds_rest = be.holds_rest = nrest > 0; /* the if and the rest make up the frame's remaining statements */
  if (c.is_const) {
    seq_fn(L, c.c.i ? &bt : &be);
    return;
  }
  lw_emit_if(L, c.v, 0, nrest ? L->frame->n : L->frame->k + 1, s->loc, seq_fn, &bt, seq_fn, &be);
}

static void lower_return(Lower *L, const PyStmt *s) {
  if (s->value && s->value->kind != EX_NONE) {
    const PyExpr *outer = L->returning;
    L->returning = s->value;
    FeVal v = lw_lower_expr_opt(L, s->value);
    L->returning = outer;
    if (L->kernel) {
      lw_lerr(L, s->value->loc, "a kernel cannot return a value: '%s' is a kernel (use @cuda.jit(device=True) for a "
                             "device function)",
              L->fn->user ? L->fn->user->name : L->fn->name);
    } else if (v.kind != FV_POISON) {
      v.literal = false;
      if (!lw_fv_type(L, &v) && !is_grid_group(&v)) {
        lw_lerr(L, s->value->loc, "a device function can return scalars, arrays, records, grid groups and tuples of them, "
                               "not %s", lw_vname(L, &v));
        v = poison();
      } else if (lw_holds_copy(L, &v)) {
        lw_lerr(L, s->value->loc, "a device function cannot return an array its copy() made: kfront's copy is a "
                               "thread-local array of the call, gone when it returns (Numba's, made with its NRT, "
                               "outlives it); pass in an array to copy into");
        v = poison();
      }
      if (!L->has_value_return) L->first_value_return = s->loc;
      L->has_value_return = true;
      L->env[L->v_rv] = v;
      lw_note_return_type(L, &v);
    }
  } else {
    L->has_bare_return = true;
    L->env[L->v_rv] = (FeVal){.kind = FV_NONE}; /* where a value is returned on other paths: Optional */
  }
  L->env[L->v_ret] = cbool(L, true);
}

static void unsupported_stmt(Lower *L, const PyStmt *s) {
  lw_lerr(L, s->loc, "%s is not supported in kernels", ast_stmt_kind_name(s->kind));
}
static void lower_stmt(Lower *L, const PyStmt *s) {
  if (stack_exhausted()) {
    lw_out_of_stack(L, s->loc, "statement");
    return;
  }
  at(L, s->loc);
  switch (s->kind) {
  case ST_EXPR:
    if (s->expr->kind == EX_STR) return; /* docstring */
    lower_expr(L, s->expr);
    return;
  case ST_ASSIGN: {
    const PyExprList *t = &s->assign.targets;
    L->assign_hint = t->n == 1 && t->items[0]->kind == EX_NAME ? t->items[0]->name : NULL;
    FeVal v = lw_lower_expr_opt(L, s->assign.value);
    L->assign_hint = NULL;
    for (unsigned i = 0; i < t->n; i++) lw_assign(L, t->items[i], v, s->assign.value->loc);
    return;
  }
  case ST_ANNASSIGN:
    if (s->annassign.value) {
      L->assign_hint = s->annassign.target->kind == EX_NAME ? s->annassign.target->name : NULL;
      FeVal v = lw_lower_expr_opt(L, s->annassign.value);
      L->assign_hint = NULL;
      lw_assign(L, s->annassign.target, v, s->annassign.value->loc);
    }
    return;
  case ST_AUGASSIGN: lower_augassign(L, s); return;
  case ST_IF: lower_if(L, s, NULL, 0, 0); return;
  case ST_FOR: lower_for(L, s); return;
  case ST_WHILE: lower_while(L, s); return;
  case ST_BREAK:
  case ST_CONTINUE:
    if (!L->loop) {
      lw_lerr(L, s->loc, "'%s' outside a loop", s->kind == ST_BREAK ? "break" : "continue");
      return;
    }
    L->env[s->kind == ST_BREAK ? L->v_brk : L->v_cont] = cbool(L, true);
    return;
  case ST_RETURN: lower_return(L, s); return;
  case ST_PASS: return;
  case ST_ASSERT: lower_assert(L, s); return;
  case ST_RAISE: lower_raise(L, s); return;
  case ST_IMPORT:
  case ST_IMPORTFROM: lw_lerr(L, s->loc, "import inside a kernel is not supported (import at module level)"); return;
  case ST_FUNCDEF: lower_funcdef(L, s); return;
  case ST_MATCH: { /* one match_rewrite_function left: a pattern numba-cuda's bytecode front end refuses */
    SrcLoc where;
    const char *opcode = match_refused(s, &where);
    if (opcode)
      lw_lerr(L, where, "Use of unsupported opcode (%s) found: numba-cuda compiles match statements whose patterns "
                        "are literals, dotted names, captures, the wildcard, or- and as-patterns, not %s patterns",
              opcode, strcmp(opcode, "MATCH_SEQUENCE") == 0 ? "sequence" : strcmp(opcode, "MATCH_MAPPING") == 0 ? "mapping" : "class");
    else
      unsupported_stmt(L, s);
    return;
  }
  default: unsupported_stmt(L, s); return;
  }
}
static unsigned flag_bit(Lower *L, unsigned var) { return 1u << (var - L->fn->nlocals); }
/* The condition "some statement before has returned / broken / continued": NULL when none may have;
 * *dead when one certainly has. */
static Value *exit_cond(Lower *L, bool *dead, unsigned *mask) {
  unsigned flags[3] = {L->v_ret, L->v_brk, L->v_cont};
  Value *c = NULL;
  *dead = false;
  *mask = 0;
  for (unsigned k = 0; k < 3; k++) {
    FeVal *f = &L->env[flags[k]];
    if (f->kind != FV_VAL) continue;
    if (f->is_const) {
      if (f->c.i) *dead = true;
      continue;
    }
    *mask |= flag_bit(L, flags[k]);
    c = c ? ib_binary(&L->b, OP_ORI, c, f->v) : f->v;
  }
  return c;
}
static void lower_stmts_in(Lower *L, PyStmt *const *s, unsigned n);
void lower_stmts(Lower *L, PyStmt *const *s, unsigned n) {
  Frame f = {L->frame, s, n, 0, L->next_loop_ue, L->next_holds_rest};
  L->next_loop_ue = NULL;
  L->next_holds_rest = false;
  L->frame = &f;
  lower_stmts_in(L, s, n);
  L->frame = f.outer;
}
static void lower_stmts_in(Lower *L, PyStmt *const *s, unsigned n) {
  for (unsigned k = 0; k < n; k++) {
    L->frame->k = k;
    const PyStmt *st = s[k];
    bool more = k + 1 < n;
    if (more && st->kind == ST_IF) {
      ExitKind eb = sema_exits((const PyStmt *const *)st->if_.body.items, st->if_.body.n);
      ExitKind eo = sema_exits((const PyStmt *const *)st->if_.orelse.items, st->if_.orelse.n);
      if ((eb == EXIT_ALWAYS && eo == EXIT_NEVER) || (eo == EXIT_ALWAYS && eb == EXIT_NEVER)) {
        at(L, st->loc);
        lower_if(L, st, s + k + 1, n - k - 1, eb == EXIT_ALWAYS ? 2 : 1);
        return;
      }
    }
    if (more) {
      L->pending_fn++;
      L->pending_loop++;
    }
    lower_stmt(L, st);
    if (more) {
      L->pending_fn--;
      L->pending_loop--;
    }
    if (!more) return;
    bool dead;
    unsigned mask;
    at(L, st->loc);
    Value *c = exit_cond(L, &dead, &mask);
    if (dead) return;
    if (c) {
      StmtSeq rest = {s + k + 1, n - k - 1, true};
      lw_emit_if(L, c, mask, n, s[k + 1]->loc, NULL, NULL, seq_fn, &rest);
      return;
    }
  }
}
/* ---- functions ----------------------------------------------------------------------------------------------------- */

static void param_names(Lower *L, const char *name, const FeVal *shape, Attr *out, unsigned *n) {
  if (shape->kind == FV_VAL && shape->is_const) return; /* a literal argument: no parameter */
  if (shape->kind == FV_VAL) {
    out[(*n)++] = attr_str(L->m, name);
    return;
  }
  if (!has_fields(shape)) return; /* a compile-time value: no parameter */
  for (unsigned i = 0; i < shape->tup.n; i++) {
    const char *sub = shape->kind == FV_VIEW || shape->kind == FV_RECORD
                          ? (i == 0 ? name : arena_printf(&L->fe->arena, "%s.i%u", name, i - 1))
                      : is_slice_obj(shape) ? arena_printf(&L->fe->arena, "%s.%s", name,
                                                           (const char *const[]){"start", "stop", "step"}[i])
                      : shape->kind == FV_VECTOR ? arena_printf(&L->fe->arena, "%s.%c", name, "xyzw"[i])
                                                 : arena_printf(&L->fe->arena, "%s.%u", name, i);
    param_names(L, sub, &shape->tup.elems[i], out, n);
  }
}

/* lower_function with, for a second attempt, the return type its recursive calls take (ret_hint: learnt from a
 * first attempt in which a recursive call came before any value return). */
static FeInst *lower_function_hint(FeCtx *fe, FeFunc *fn, const FeVal *params, unsigned nparams, const char *sym,
                                   bool kernel, bool quiet, const FeSig *declared, Type *ret_hint,
                                   const FeEnum *enum_hint);

FeInst *lower_function(FeCtx *fe, FeFunc *fn, const FeVal *params, unsigned nparams, const char *sym, bool kernel,
                       bool quiet, const FeSig *declared) {
  FeInst *inst = lower_function_hint(fe, fn, params, nparams, sym, kernel, quiet, declared, NULL, NULL);
  if (!inst->rec_unknown) return inst;
  /* a recursive call came before any value return (raise_self: `if x == 1: raise ...; elif x > 0: return
   * raise_self(x - 1); else: return 1`): lowered again, the call taking the type the returns gave */
  Type *hint = inst->ret_so_far;
  const FeEnum *ehint = inst->ret_enum;
  bool top = inst->op && !fe->cur_top;
  for (FeInst **p = &fn->insts; *p; p = &(*p)->next)
    if (*p == inst) {
      *p = inst->next;
      break;
    }
  if (inst->op) {
    ir_op_drop_uses(inst->op);
    ir_op_unlink(inst->op);
  }
  (void)top;
  return lower_function_hint(fe, fn, params, nparams, sym, kernel, quiet, declared, hint, ehint);
}

static FeInst *lower_function_hint(FeCtx *fe, FeFunc *fn, const FeVal *params, unsigned nparams, const char *sym,
                                   bool kernel, bool quiet, const FeSig *declared, Type *ret_hint,
                                   const FeEnum *enum_hint) {
  sema_analyse_function(fe, fn);
  FeInst *inst = ARENA_NEW(&fe->arena, FeInst);
  inst->ret_so_far = ret_hint;
  inst->ret_enum = enum_hint;
  inst->retry = ret_hint != NULL;
  inst->fn = fn;
  inst->nparams = nparams;
  inst->params = ARENA_ARRAY(&fe->arena, FeVal, nparams ? nparams : 1);
  if (nparams) memcpy(inst->params, params, sizeof(FeVal) * nparams);
  StrBuf key;
  sb_init(&key);
  for (unsigned i = 0; i < nparams; i++) {
    if (i) sb_puts(&key, "__");
    lw_shape_key(&params[i], &key);
  }
  if (!kernel && fe->cur_top && debug_mode(fe)) sb_puts(&key, "__dbg"); /* raises differ under a debug kernel */
  inst->key = arena_strdup(&fe->arena, sb_cstr(&key));
  sb_free(&key);
  FeInst **tail = &fn->insts;
  while (*tail) tail = &(*tail)->next;
  *tail = inst;
  inst->in_progress = true;

  Lower L;
  memset(&L, 0, sizeof L);
  L.fe = fe;
  L.ctx = fe->ctx;
  L.m = fe->m;
  L.fn = fn;
  L.inst = inst;
  L.sym = sym;
  L.kernel = kernel;
  L.quiet = quiet ? 1 : 0;
  unsigned nl = fn->nlocals;
  L.v_ret = nl;
  L.v_rv = nl + 1;
  L.v_brk = nl + 2;
  L.v_cont = nl + 3;
  L.v_iv0 = nl + 4;
  L.v_bound0 = nl + 4 + MAX_HIDDEN_IV;
  L.nvars = L.v_bound0 + nl;
  L.env = ARENA_ARRAY(&fe->arena, FeVal, L.nvars);
  L.seen_types = ARENA_ARRAY(&fe->arena, Type *, nl ? nl : 1);
  memset(L.seen_types, 0, sizeof *L.seen_types * (nl ? nl : 1));
  for (unsigned i = 0; i < L.nvars; i++) L.env[i] = (FeVal){.kind = FV_UNDEF};
  L.env[L.v_ret] = L.env[L.v_brk] = L.env[L.v_cont] = cbool(&L, false);
  L.value_returns = !kernel && lw_value_returns(&fn->def->funcdef.body) > 0;
  bool checked = fe->opts->compile->bounds_check != 0;
  for (unsigned i = 0; i < nl; i++) L.env[L.v_bound0 + i] = cbool(&L, i < nparams || !checked);
  ib_init(&L.b, fe->m);

  Type **pt = ARENA_ARRAY(&fe->arena, Type *, MAX_FLAT);
  unsigned np = 0;
  for (unsigned i = 0; i < nparams; i++) lw_flatten_shape_types(&params[i], pt, &np);
  if (np > MAX_FLAT) {
    lw_lerr(&L, fn->loc, "too many parameters");
    inst->failed = true;
    inst->in_progress = false;
    return inst;
  }
  SrcLoc floc = user_loc(&L, fn->loc);
  floc.file = fn->src->mfile;
  Op *f = ir_func_create(fe->m, sym, ty_func(fe->ctx, np, pt, 0, NULL), floc);
  bool top = fe->cur_top == NULL;
  if (!top) {
    ir_op_unlink(f);
    ir_op_insert_before(fe->cur_top, f);
  } else {
    fe->cur_top = f;
  }
  inst->op = f;
  L.func_op = f;
  Module *m = fe->m;
  ir_op_set_attr(m, f, kernel ? "kernel" : "device", attr_unit());
  const char *pyname = fn->user ? fn->user->name : fn->py_name ? fn->py_name : fn->name;
  ir_op_set_attr(m, f, "py_name", attr_str(m, pyname));
  if (fn->user) {
    const char *gen = fn->user->kind == FN_REDUCE ? "reduce" : fn->user->kind == FN_VECTORIZE ? "vectorize" : "guvectorize";
    ir_op_set_attr(m, f, "generated", attr_str(m, gen));
    if (fn->user->kind == FN_GUVECTORIZE && fn->user->gu_layout)
      ir_op_set_attr(m, f, "gu_layout", attr_str(m, fn->user->gu_layout));
  }
  Attr *names = ARENA_ARRAY(&fe->arena, Attr, MAX_FLAT);
  unsigned nn = 0;
  for (unsigned i = 0; i < nparams; i++) param_names(&L, fn->locals[i].name, &params[i], names, &nn);
  ir_op_set_attr(m, f, "arg_names", attr_array(m, nn, names));
  /* a kernel's array parameters its signature makes readonly (Array(..., readonly=True)), by kir parameter: the
   * runtime passes a readonly array only to those (rt_readonly_fits), as Numba's typing matches readonly */
  if (kernel) {
    Attr *ro = ARENA_ARRAY(&fe->arena, Attr, MAX_FLAT);
    unsigned nro = 0, at = 0;
    for (unsigned i = 0; i < nparams; i++) lw_readonly_params(&L, &params[i], &at, ro, &nro);
    if (nro) ir_op_set_attr(m, f, "readonly_params", attr_array(m, nro, ro));
  }
  /* a kernel taking tuples (their elements are its parameters, flattened): the arguments' own types */
  bool tuples = false;
  for (unsigned i = 0; i < nparams; i++) tuples |= params[i].kind == FV_TUPLE || params[i].kind == FV_VIEW;
  if (kernel && tuples) { /* (and 0-d arrays: their parameter is their array of one) */
    Attr *ats = ARENA_ARRAY(&fe->arena, Attr, nparams);
    for (unsigned i = 0; i < nparams; i++)
      ats[i] = attr_type(params[i].kind == FV_VIEW ? params[i].type : lw_fv_type(&L, &params[i]));
    ir_op_set_attr(m, f, "arg_types", attr_array(m, nparams, ats));
  }
  const FeFunc *opts = fn->user ? fn->user : fn;
  if (opts->fastmath == 1) ir_op_set_attr(m, f, "fastmath", attr_unit());
  if (opts->debug == 1) ir_op_set_attr(m, f, "debug", attr_unit());
  if (opts->lineinfo == 1) ir_op_set_attr(m, f, "lineinfo", attr_unit());
  if (opts->opt >= 0) ir_op_set_attr(m, f, "opt", attr_int(ty_i64(fe->ctx), opts->opt));
  if (opts->inline_opt) ir_op_set_attr(m, f, "inline", attr_str(m, opts->inline_opt));
  if (opts->forceinline) ir_op_set_attr(m, f, "forceinline", attr_unit());
  if (kernel && !fn->user && opts->launch_bounds[0]) { /* [max threads per block, min blocks per SM, max per cluster] */
    Attr bounds[3];
    for (unsigned i = 0; i < 3; i++) bounds[i] = attr_int(ty_i64(fe->ctx), opts->launch_bounds[i]);
    ir_op_set_attr(m, f, "launch_bounds", attr_array(m, 3, bounds));
  }

  /* a device function declared with signatures returns the declared type */
  if (!kernel && declared && declared->has_ret) {
    L.has_declared_ret = true;
    L.declared_ret = declared->ret;
  } else if (!kernel) {
    for (unsigned s = 0; s < fn->nsigs; s++) {
      const FeSig *sig = &fn->sigs[s];
      bool match = sig->nargs == nparams && sig->has_ret;
      for (unsigned i = 0; i < nparams && match; i++)
        match = (params[i].kind == FV_VAL || params[i].kind == FV_TUPLE || params[i].kind == FV_OPTIONAL) &&
                lw_fv_type(&L, &params[i]) == sig->args[i];
      if (match) {
        L.has_declared_ret = true;
        L.declared_ret = sig->ret;
        break;
      }
    }
  }

  inst->has_decl_ret = L.has_declared_ret;
  inst->decl_ret = L.declared_ret;
  Block *entry = ir_func_entry(f);
  unsigned pos = 0;
  for (unsigned i = 0; i < nparams; i++) {
    L.env[i] = lw_from_shape(&L, &params[i], entry->args, &pos);
    lw_note_type(&L, i, &L.env[i]);
  }
  ib_set_end(&L.b, entry);
  at(&L, fn->loc);
  for (unsigned i = 0; i < nparams; i++) {
    if (L.env[i].kind != FV_VAL || !ty_is_record(L.env[i].type)) continue;
    /* a record parameter: the record it refers to, element 0 of its array of one */
    Type *t = ty_array(fe->ctx, L.env[i].type, 1, LAYOUT_C);
    Value *rv = L.env[i].v, *zero[1];
    Value *arr = op_result(ib_op(&L.b, OP_RECORD_ARRAY, 1, &rv, 1, &t, 0), 0);
    zero[0] = ib_const_int(&L.b, ty_i64(fe->ctx), 0);
    L.env[i] = lw_record_ref(&L, arr, zero);
  }
  for (unsigned i = 0; i < nparams; i++) /* a 0-d array parameter: the view x[0] of its array of one */
    if (L.env[i].kind == FV_VIEW && L.env[i].tup.n == 2 && L.env[i].tup.elems[1].is_const) {
      FeVal *elems = ARENA_ARRAY(&fe->arena, FeVal, 2);
      elems[0] = L.env[i].tup.elems[0];
      elems[1] = val(ty_i64(fe->ctx), ib_const_int(&L.b, ty_i64(fe->ctx), 0));
      L.env[i].tup.elems = elems;
    }
  if (kernel)
    for (unsigned i = 0; i < nparams; i++) lw_check_member_index(&L, &L.env[i]);
  const PyStmtList *body = &fn->def->funcdef.body;
  if (fn->def->funcdef.is_async) lw_lerr(&L, fn->loc, "async functions cannot be kernels");
  lower_stmts(&L, body->items, body->n);

  ib_set_end(&L.b, entry);
  at(&L, fn->loc);
  Type **rts = ARENA_ARRAY(&fe->arena, Type *, MAX_FLAT);
  unsigned nr = 0;
  Value **rvals = ARENA_ARRAY(&fe->arena, Value *, MAX_FLAT);
  unsigned nrv = 0;
  inst->ret = (FeVal){.kind = FV_NONE};
  if (!kernel && L.has_value_return && L.has_declared_ret && !L.declared_ret) {
    lw_lerr(&L, L.first_value_return, "'%s' is declared to return void but returns a value", fn->name);
  } else if (!kernel && (L.has_value_return || (L.has_declared_ret && L.declared_ret))) {
    FeVal rv = L.env[L.v_rv];
    bool decl = L.has_declared_ret && L.declared_ret;
    /* None on some paths (a bare return, the end of the body): Optional, as Numba unifies none with the values */
    if (L.has_value_return && rv.kind != FV_POISON) rv = lw_optional_result(&L, rv, L.env[L.v_ret], L.first_value_return);
    Type *rt = decl ? L.declared_ret : lw_fv_type(&L, &rv);
    if (!L.has_value_return) {
      lw_lerr(&L, fn->loc, "'%s' is declared to return %s but has no return statement", fn->name, tname(&L, L.declared_ret));
    } else if (decl && !ty_is_optional(L.declared_ret) && (L.has_bare_return || !is_true(&L.env[L.v_ret]))) {
      lw_lerr(&L, L.first_value_return, "'%s' is declared to return %s but returns None on some paths (a bare return or "
              "the end of its body): No conversion from none to %s", fn->name, tname(&L, L.declared_ret),
              tname(&L, L.declared_ret));
    } else if (is_grid_group(&rv) && !(L.has_declared_ret && L.declared_ret)) {
      inst->ret = rv; /* a compile-time value: no results (the callee's this_grid() made it cooperative) */
    } else if (rt && rv.kind != FV_POISON) {
      lw_flat_types(L.ctx, rt, rts, &nr);
      if (lw_flatten_to(&L, &rv, rt, rvals, &nrv, NULL, L.first_value_return, "<return value>")) {
        inst->ret = lw_shape_of_type(&L, rt);
        if (!(L.has_declared_ret && L.declared_ret)) {
          lw_copy_enums(&inst->ret, &rv);
          lw_copy_readonly(&L, &inst->ret, &rv);
        }
      } else
        nr = nrv = 0;
    }
  }
  ib_op(&L.b, OP_FUNC_RETURN, nrv, rvals, 0, NULL, 0);
  bool none_too = L.value_returns && (L.has_bare_return || !is_true(&L.env[L.v_ret]));
  if ((inst->rec_unknown || inst->rec_called) && none_too && !L.has_declared_ret) {
    /* an Optional result of a function calling itself: numba-cuda's typing of the call re-enters its own compile */
    inst->rec_unknown = false;
    lw_lerr(&L, inst->rec_loc, "compiler re-entrant to the same function signature: '%s' calls itself and returns None "
                            "on some paths (an Optional result), which numba-cuda cannot type; declare its signature "
                            "(e.g. @cuda.jit(\"optional(int64)(int64)\", device=True))", fn->name);
  } else if (inst->rec_unknown && (L.errors || inst->retry || !inst->ret_so_far)) {
    /* a recursive call no return statement typed, and none to learn from: runaway recursion */
    inst->rec_unknown = false;
    lw_lerr(&L, inst->rec_loc, "cannot type infer runaway recursion: '%s' calls itself and no return statement gives its "
                            "result type; declare its signature (e.g. @cuda.jit(\"int64(int64)\", device=True))",
            fn->name);
  }
  if (!L.errors && !inst->rec_unknown) lw_check_recursive_return(&L, inst->ret.kind == FV_NONE ? NULL : lw_fv_type(&L, &inst->ret));
  if (nr) {
    ir_op_set_attr(m, f, "function_type", attr_type(ty_func(fe->ctx, np, pt, nr, rts)));
    /* an Optional result, flattened to its value and flag: its type (the embedder's return type, compile()'s) */
    if (inst->ret.kind == FV_OPTIONAL) ir_op_set_attr(m, f, "result_type", attr_type(inst->ret.type));
    inst->nresults = nr;
  }
  inst->in_progress = false;
  if (top) fe->cur_top = NULL;
  if (inst->tainted && !inst->rec_unknown) { /* lowered again with the instance it depends on: dropped quietly */
    inst->failed = true;
    ir_op_drop_uses(f);
    ir_op_unlink(f);
    inst->op = NULL;
    return inst;
  }
  if (!L.errors && !(quiet && L.suppressed) && !inst->rec_unknown) {
    lw_report_notes(&L);
    lw_report_raw_prints(&L);
  }
  if (L.errors || (quiet && L.suppressed)) {
    inst->failed = true;
    if (quiet || !top) {
      ir_op_drop_uses(f);
      ir_op_unlink(f);
      inst->op = NULL;
    }
  }
  return inst;
}
