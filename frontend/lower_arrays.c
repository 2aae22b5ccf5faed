/* lower_arrays.c — arrays in kernels: element access (indices wrapped and bounds-checked, lower.h), views (slices,
 * new axes, transposes: views.c types them), slice objects, assignment to a view, array attributes and methods,
 * transpose/reshape, and subscripts of arrays and tuples. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lower.h"

const char *const lw_method_names[] = {
#define X(id, name) name,
    ARRAY_METHODS(X)
#undef X
    "bit_count", "indices",
};
/* ---- array elements ---------------------------------------------------------------------------------------- */

/* One index of axis `axis` as i64: negative indices wrap as in Numba (unless the index is unsigned or known
 * to be >= 0), then check.bounds. */
static Value *index_i64(Lower *L, Value *arr, unsigned axis, FeVal idx) {
  Type *i64 = ty_i64(L->ctx);
  bool is_unsigned = idx.type->kind == TY_INT && idx.type->is_unsigned;
  FeVal i = lw_conv(L, idx, i64);
  Value *n = NULL, *iv;
  bool wrap = !is_unsigned && !idx.nonneg;
  if (i.is_const) {
    if (i.c.i < 0 && !is_unsigned) {
      n = ib_dim(&L->b, arr, axis);
      iv = ib_binary(&L->b, OP_ADDI, n, lw_mat(L, &i));
    } else {
      iv = lw_mat(L, &i);
    }
    wrap = false;
  } else {
    iv = i.v;
  }
  if (wrap) {
    n = ib_dim(&L->b, arr, axis);
    Value *neg = ib_cmpi(&L->b, IR_CMPI_SLT, iv, ib_const_int(&L->b, i64, 0));
    Value *w = ib_binary(&L->b, OP_ADDI, iv, n);
    iv = ib_select(&L->b, neg, w, iv);
  }
  if (L->fe->opts->compile->bounds_check) {
    if (!n) n = ib_dim(&L->b, arr, axis);
    Value *ops[2] = {iv, n};
    Op *c = ib_op(&L->b, OP_BOUNDS, 2, ops, 0, NULL, 0);
    ir_op_set_attr(L->m, c, "axis", attr_int(i64, axis));
  }
  return iv;
}

/* The index values of a subscript ie whose parts are lowered to vals[0..count) (a tuple value as one part
 * spreads): integers, and slice objects or None, which make the index a view (*views). False after a located
 * error when one is neither. */
static bool index_values(Lower *L, const PyExpr *ie, const FeVal *vals, unsigned count, FeVal *out, unsigned *n,
                         bool *views) {
  *n = 0;
  *views = false;
  for (unsigned k = 0; k < count; k++) {
    FeVal v = vals[k];
    if (v.kind == FV_POISON) return false;
    if (v.kind == FV_TUPLE && count == 1) {
      for (unsigned j = 0; j < v.tup.n && *n < 32; j++) out[(*n)++] = v.tup.elems[j];
    } else if (*n < 32) {
      out[(*n)++] = v;
    }
  }
  for (unsigned k = 0; k < *n; k++) {
    if (is_slice_obj(&out[k]) || out[k].kind == FV_NONE) {
      *views = true;
      continue;
    }
    /* a 0-d integer array (a view of its array of one: FV_VIEW, every axis fixed) is its element, as Numba's typing
     * takes it as an integer index */
    const FeVal *x = &out[k];
    if (x->kind == FV_VIEW && x->type && x->type->kind == TY_ARRAY && x->type->rank == 0 && is_int_type(x->type->elem) &&
        x->tup.n >= 1 && x->tup.elems[0].v && x->tup.n - 1 == x->tup.elems[0].v->type->rank) {
      Value *idx[32];
      for (unsigned j = 1; j < x->tup.n; j++) idx[j - 1] = lw_mat(L, &x->tup.elems[j]);
      out[k] = lw_load_element(L, x->tup.elems[0].v, idx);
    }
    if (out[k].kind != FV_VAL || !is_int_type(out[k].type) || is_enum_only(&out[k])) {
      lw_lerr(L, ie->loc, "array index must be an integer, not %s", lw_vname(L, &out[k]));
      return false;
    }
  }
  return true;
}

/* The index values of a subscript: a[i], a[i, j], a[t] with t a tuple (index_values). */
bool lw_gather_indices(Lower *L, const PyExpr *ie, FeVal *out, unsigned *n, bool *views) {
  const PyExpr *const *items = &ie;
  unsigned count = 1;
  if (ie->kind == EX_TUPLE) {
    items = (const PyExpr *const *)ie->elts.items;
    count = ie->elts.n;
  }
  FeVal vals[32];
  for (unsigned k = 0; k < count && k < 32; k++)
    if ((vals[k] = lower_expr(L, items[k])).kind == FV_POISON) return false;
  return index_values(L, ie, vals, count < 32 ? count : 32, out, n, views);
}

/* a[ix...] of an array or a view. Full indexing fills base/idx and returns a FV_VAL placeholder of the
 * element type; partial indexing returns a view (not for stores). */
FeVal lw_index_array(Lower *L, const FeVal *a, const FeVal *ix, unsigned n, SrcLoc loc, bool store,
                     Value **base, Value **idx) {
  const FeVal *b = a->kind == FV_VIEW ? &a->tup.elems[0] : a;
  unsigned fixed = a->kind == FV_VIEW ? a->tup.n - 1 : 0;
  Type *arrt = b->type;
  unsigned total = fixed + n;
  if (total > arrt->rank)
    return lw_lerr(L, loc, "too many indices for %s: %u given", tname(L, a->type), n);
  *base = b->v;
  for (unsigned k = 0; k < fixed; k++) idx[k] = a->tup.elems[1 + k].v;
  at(L, loc);
  for (unsigned k = 0; k < n; k++) idx[fixed + k] = index_i64(L, b->v, fixed + k, ix[k]);
  if (total == arrt->rank) return val(arrt->elem, NULL);
  if (store)
    return lw_lerr(L, loc, "cannot assign to a sub-array: %s needs %u indices, %u given", tname(L, a->type),
                   arrt->rank - fixed, n);
  FeVal v = {.kind = FV_VIEW};
  v.type = ty_array(L->ctx, arrt->elem, arrt->rank - total, arrt->layout == LAYOUT_C ? LAYOUT_C : LAYOUT_A);
  v.tup.n = 1 + total;
  v.tup.elems = ARENA_ARRAY(&L->fe->arena, FeVal, 1 + total);
  v.tup.elems[0] = *b;
  for (unsigned k = 0; k < total; k++) v.tup.elems[1 + k] = val(ty_i64(L->ctx), idx[k]);
  return v;
}

/* numba-cuda's getitem / setitem of a CPointer: one integer index of either sign (its normalize_1d_index: signed
 * to intp, unsigned to uintp), no wrapping and no bounds (a pointer has none), the element that far from the one
 * the pointer points to. */
bool lw_pointer_item(Lower *L, const FeVal *p, const PyExpr *ie, SrcLoc loc, Value **base, Value **idx) {
  if (lw_is_view_index(ie) || ie->kind == EX_TUPLE) {
    lw_lerr(L, ie->loc, "%s is indexed by one integer (p[i]), not sliced or indexed by several", tname(L, p->type));
    return false;
  }
  FeVal i = lower_expr(L, ie);
  if (i.kind == FV_POISON) return false;
  if (!is_scalar(&i) || i.type->kind != TY_INT || i.type->time || i.type->storage) {
    lw_lerr(L, ie->loc, "No implementation of getitem(%s, %s): a pointer is indexed by an integer", tname(L, p->type),
            lw_vname(L, &i));
    return false;
  }
  at(L, loc);
  *base = p->v;
  idx[0] = conv_v(L, i, ty_i64(L->ctx));
  return true;
}

/* base[idx...]: its value (a scalar), or a reference to it (a record). */
FeVal lw_load_element(Lower *L, Value *base, Value **idx) {
  if (base->type->kind == TY_PTR) {
    Value *ops[2] = {base, idx[0]};
    Type *et = base->type->elem;
    return val(et, op_result(ib_op(&L->b, OP_PTR_LOAD, 2, ops, 1, &et, 0), 0));
  }
  if (ty_is_record(base->type->elem)) return lw_record_ref(L, base, idx);
  unsigned rank = base->type->rank;
  Value *ops[33];
  ops[0] = base;
  for (unsigned k = 0; k < rank; k++) ops[1 + k] = idx[k];
  Type *et = base->type->elem;
  return val(et, op_result(ib_op(&L->b, OP_LOAD, 1 + rank, ops, 1, &et, 0), 0));
}

/* The array a view (slice, transpose, reshape, field of records) is made of: the next one up, or NULL. */
static const Value *view_source(const Value *arr) {
  return arr->def && (arr->def->kind == OP_SUBVIEW || arr->def->kind == OP_REINTERPRET || arr->def->kind == OP_FIELD)
             ? op_operand(arr->def, 0)
             : NULL;
}

/* Whether arr is (a view of) a constant array: cuda.const.array_like's, in read-only constant memory. */
static bool in_const_memory(Lower *L, const Value *arr) {
  for (const Value *up; (up = view_source(arr));) arr = up;
  if (!arr->def || arr->def->kind != OP_GLOBAL_REF) return false;
  const char *name = ir_op_attr_str(arr->def, "name");
  Op *g = name ? ir_module_lookup(L->m, name) : NULL;
  const char *space = g ? ir_op_attr_str(g, "space") : NULL;
  return space && strcmp(space, "const") == 0;
}

bool lw_array_readonly(Lower *L, const Value *arr) {
  if (!arr || !ty_is_array(arr->type)) return false;
  for (const Value *a = arr; a; a = view_source(a))
    for (unsigned i = 0; i < L->nreadonly_arrays; i++)
      if (L->readonly_arrays[i] == a) return true;
  return false;
}

void lw_add_readonly_array(Lower *L, Value *arr) {
  if (lw_array_readonly(L, arr)) return;
  if (L->nreadonly_arrays == L->readonly_arrays_cap) {
    unsigned cap = L->readonly_arrays_cap ? 2 * L->readonly_arrays_cap : 4;
    Value **r = ARENA_ARRAY(&L->fe->arena, Value *, cap);
    if (L->nreadonly_arrays) memcpy(r, L->readonly_arrays, sizeof *r * L->nreadonly_arrays);
    L->readonly_arrays = r;
    L->readonly_arrays_cap = cap;
  }
  L->readonly_arrays[L->nreadonly_arrays++] = arr;
}

bool lw_fv_readonly(Lower *L, const FeVal *v) {
  if (v->kind == FV_VAL) return lw_array_readonly(L, v->v);
  if (v->kind == FV_VIEW) return lw_array_readonly(L, v->tup.elems[0].v);
  return false;
}

void lw_merge_readonly(Lower *L, const FeVal *merged, const FeVal *a, const FeVal *b) {
  if (merged->kind == FV_VAL) {
    if (merged->v && ty_is_array(merged->type) && (lw_fv_readonly(L, a) || lw_fv_readonly(L, b)))
      lw_add_readonly_array(L, merged->v);
    return;
  }
  static const FeVal none = {.kind = FV_UNDEF};
  if (merged->kind == FV_OPTIONAL) { /* an Optional array: readonly where a value merged into it is */
    lw_merge_readonly(L, &merged->tup.elems[0], a->kind == FV_OPTIONAL ? &a->tup.elems[0] : a->kind == FV_NONE ? &none : a,
                      b->kind == FV_OPTIONAL ? &b->tup.elems[0] : b->kind == FV_NONE ? &none : b);
    return;
  }
  if (merged->kind != FV_TUPLE) return;
  for (unsigned i = 0; i < merged->tup.n; i++)
    lw_merge_readonly(L, &merged->tup.elems[i], a->kind == FV_TUPLE && i < a->tup.n ? &a->tup.elems[i] : &none,
                      b->kind == FV_TUPLE && i < b->tup.n ? &b->tup.elems[i] : &none);
}

bool lw_refuse_readonly_store(Lower *L, const Value *arr, const Type *type, SrcLoc loc) {
  if (!lw_array_readonly(L, arr)) return false;
  lw_lerr(L, loc, "Cannot modify readonly array of type: readonly %s", tname(L, type ? type : arr->type));
  return true;
}

void lw_store_element(Lower *L, Value *base, Value **idx, Value *v) {
  if (base->type->kind == TY_PTR) {
    Value *ops[3] = {v, base, idx[0]};
    ib_op(&L->b, OP_PTR_STORE, 3, ops, 0, NULL, 0);
    return;
  }
  if (in_const_memory(L, base)) {
    lw_lerr(L, L->b.loc, "cannot assign to an element of a constant array (cuda.const.array_like): constant memory is "
                      "read-only in kernels");
    return;
  }
  unsigned rank = base->type->rank;
  Value *ops[34];
  ops[0] = v;
  ops[1] = base;
  for (unsigned k = 0; k < rank; k++) ops[2 + k] = idx[k];
  ib_op(&L->b, OP_STORE, 2 + rank, ops, 0, NULL, 0);
}

/* ---- views: slices, new axes, transposes (views.c builds them) ---------------------------------------------- */

/* Whether a subscript's index holds a slice, None or an ellipsis: a view (or a[i, ...]). */
bool lw_is_view_index(const PyExpr *ie) {
  if (ie->kind == EX_SLICE || ie->kind == EX_NONE || ie->kind == EX_ELLIPSIS) return true;
  if (ie->kind != EX_TUPLE) return false;
  for (unsigned k = 0; k < ie->elts.n; k++) {
    PyExprKind x = ie->elts.items[k]->kind;
    if (x == EX_SLICE || x == EX_NONE || x == EX_ELLIPSIS) return true;
  }
  return false;
}

/* An array value for v: an FV_VIEW (a[i] of an array of higher rank, kept as the array and its leading indices so
 * that a[i][j] is the access a[i, j]) becomes the mem.subview it stands for; other values are themselves. */
FeVal lw_view_value(Lower *L, const FeVal *v) {
  if (v->kind != FV_VIEW) return *v;
  const FeVal *b = &v->tup.elems[0];
  unsigned n = v->tup.n - 1;
  ViewItem items[32];
  for (unsigned k = 0; k < n && k < 32; k++) items[k] = (ViewItem){.kind = VI_INT, .index = v->tup.elems[1 + k].v};
  const char *why = NULL;
  Type *t = view_type(L->ctx, b->type, items, n, &why); /* (a[i] of rank > 1 always fits) */
  return val(t, view_build(&L->b, b->v, items, n, t));
}

/* Whether v is or holds (in a tuple) an FV_VIEW. */
bool lw_holds_view(const FeVal *v) {
  if (v->kind == FV_VIEW) return true;
  if (v->kind != FV_TUPLE) return false;
  for (unsigned i = 0; i < v->tup.n; i++)
    if (lw_holds_view(&v->tup.elems[i])) return true;
  return false;
}

/* v with each FV_VIEW in it (itself or its tuples' elements) made the array it stands for (view_value). */
FeVal lw_views_as_arrays(Lower *L, const FeVal *v) {
  if (v->kind == FV_VIEW) return lw_view_value(L, v);
  if (!lw_holds_view(v)) return *v;
  FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, v->tup.n);
  for (unsigned i = 0; i < v->tup.n; i++) elems[i] = lw_views_as_arrays(L, &v->tup.elems[i]);
  return lw_make_tuple(L, v->tup.n, elems);
}

/* ---- slice objects (Numba's slice2_type and slice3_type) ------------------------------------------------------
 * slice(stop), slice(start, stop[, step]) of integers or None: an FV_VECTOR of a ty_slice (slice3 when three
 * arguments are given, as Numba types it) holding start, stop and step as int64, the omitted ones filled in as
 * Numba's constructor fills them (step 1; start 0 and stop INT64_MAX for a positive step, start INT64_MAX and stop
 * INT64_MIN for a negative one), so that .start, .stop and .step read what numba-cuda reads. A slice object passes
 * to and returns from device functions, sits in tuples and is carried around loops as its three fields. An array
 * indexed with one (a[s], a[s, i], a[t] with t = (s, i)) is the view a[start:stop:step] (view_item_of; a slice3 is
 * strided whatever its step, as Numba lays it out); a tuple indexed with one of constants is sliced at compile
 * time. s.indices(n) is Python's (ValueError for n < 0 or a step of 0, at run time as in Numba). */

/* A slice object's step: a slice2's is the constant 1 (as numba-cuda's .step of one), wherever it came from. */
static FeVal slice_step(Lower *L, const FeVal *s) {
  return s->type->slice == 2 ? cint(ty_i64(L->ctx), 1) : s->tup.elems[2];
}

FeVal lower_slice_ctor(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  (void)bi;
  unsigned n = e->call.args.n;
  Type *i64 = ty_i64(L->ctx);
  FeVal f[3] = {{.kind = FV_NONE}, {.kind = FV_NONE}, {.kind = FV_NONE}}; /* start, stop, step */
  for (unsigned k = 0; k < n; k++) {
    if (a[k].kind == FV_NONE) continue;
    if (!is_scalar(&a[k]) || !is_int_type(a[k].type))
      return lw_lerr(L, arg_loc(e, k), "slice() takes integers or None, not %s", lw_vname(L, &a[k]));
    at(L, e->loc);
    FeVal x = lw_conv(L, a[k], i64);
    x.literal = false;
    x.enumc = NULL;
    f[n == 1 ? 1 : k] = x;
  }
  at(L, e->loc);
  if (f[2].kind == FV_NONE) f[2] = cint(i64, 1);
  if (f[2].is_const) {
    bool neg = f[2].c.i < 0;
    if (f[0].kind == FV_NONE) f[0] = cint(i64, neg ? INT64_MAX : 0);
    if (f[1].kind == FV_NONE) f[1] = cint(i64, neg ? INT64_MIN : INT64_MAX);
  } else {
    Value *neg = ib_cmpi(&L->b, IR_CMPI_SLT, f[2].v, ib_const_int(&L->b, i64, 0));
    if (f[0].kind == FV_NONE)
      f[0] = val(i64, ib_select(&L->b, neg, ib_const_int(&L->b, i64, INT64_MAX), ib_const_int(&L->b, i64, 0)));
    if (f[1].kind == FV_NONE)
      f[1] = val(i64, ib_select(&L->b, neg, ib_const_int(&L->b, i64, INT64_MIN), ib_const_int(&L->b, i64, INT64_MAX)));
  }
  FeVal *fields = ARENA_ARRAY(&L->fe->arena, FeVal, 3);
  memcpy(fields, f, sizeof f);
  return lw_make_vector(ty_slice(L->ctx, n == 3), fields);
}

/* s.start, s.stop, s.step (int64) and s.indices of a slice object s. */
FeVal lw_slice_attr(Lower *L, const FeVal *s, const char *a, SrcLoc aloc) {
  static const char *const names[] = {"start", "stop", "step"};
  for (unsigned k = 0; k < 3; k++)
    if (strcmp(a, names[k]) == 0) return k == 2 ? slice_step(L, s) : s->tup.elems[k];
  if (strcmp(a, "indices") == 0) {
    FeVal *recv = ARENA_NEW(&L->fe->arena, FeVal);
    *recv = *s;
    return (FeVal){.kind = FV_METHOD, .type = s->type, .recv = recv, .builtin = M_SLICE_INDICES};
  }
  return lw_lerr(L, aloc, "unknown attribute '%s' of %s (a slice has start, stop, step and indices())", a, lw_vname(L, s));
}

/* s.indices(n): (start, stop, step) of s applied to a sequence of length n, as Python's slice.indices and
 * numba-cuda's (its fix_slice: a bound < 0 has n added, then is clamped to [0, n], or [-1, n - 1] for a negative
 * step); n < 0 or a step of 0 raise ValueError. */
FeVal lw_slice_indices(Lower *L, const FeVal *s, const PyExpr *e) {
  FeVal n;
  if (!lw_positional(L, e, "indices", 1, 1, &n)) return poison();
  if (!is_scalar(&n) || !is_int_type(n.type))
    return lw_lerr(L, arg_loc(e, 0), "'%s' object cannot be interpreted as an integer", lw_vname(L, &n));
  at(L, e->loc);
  Type *i64 = ty_i64(L->ctx);
  Value *len = conv_v(L, n, i64), *zero = ib_const_int(&L->b, i64, 0), *m1 = ib_const_int(&L->b, i64, -1);
  view_value_check(&L->b, ib_cmpi(&L->b, IR_CMPI_SGE, len, zero), "length should not be negative");
  FeVal st = slice_step(L, s);
  Value *step = lw_mat(L, &st);
  view_value_check(&L->b, ib_cmpi(&L->b, IR_CMPI_NE, step, zero), "slice step cannot be zero");
  Value *neg = ib_cmpi(&L->b, IR_CMPI_SLT, step, zero);
  Value *lo = ib_select(&L->b, neg, m1, zero), *hi = ib_select(&L->b, neg, ib_binary(&L->b, OP_ADDI, len, m1), len);
  FeVal *out = ARENA_ARRAY(&L->fe->arena, FeVal, 3);
  for (unsigned k = 0; k < 2; k++) {
    Value *b = lw_mat(L, &s->tup.elems[k]);
    Value *w = ib_select(&L->b, ib_cmpi(&L->b, IR_CMPI_SLT, b, zero), ib_binary(&L->b, OP_ADDI, b, len), b);
    Value *clamped = ib_select(&L->b, ib_cmpi(&L->b, IR_CMPI_SLT, w, zero), lo, ib_select(&L->b, ib_cmpi(&L->b, IR_CMPI_SGE, w, len), hi, w));
    out[k] = val(i64, clamped);
  }
  out[2] = val(i64, step);
  return lw_make_tuple(L, 3, out);
}

/* A bound of a slice: an integer as i64, or NULL for None. False (reported) for anything else. */
static bool slice_bound(Lower *L, const PyExpr *x, Value **out) {
  *out = NULL;
  if (!x) return true;
  FeVal v = lower_expr(L, x);
  if (v.kind == FV_POISON) return false;
  if (v.kind == FV_NONE) return true;
  if (!is_scalar(&v) || !is_int_type(v.type)) {
    lw_lerr(L, x->loc, "slice indices must be integers or None, not %s", lw_vname(L, &v));
    return false;
  }
  at(L, x->loc);
  *out = conv_v(L, v, ty_i64(L->ctx));
  return true;
}

/* One item of an index given as a value: an integer (VI_INT, wrapped against its axis later), a slice object
 * (VI_SLICE of its start, stop and step; a step of 0, constant or not, raises ValueError at run time as Numba's
 * does) or None (a new axis). False when it is none of those. */
static bool view_item_of(Lower *L, const FeVal *v, ViewItem *it, SrcLoc loc) {
  *it = (ViewItem){.kind = VI_INT, .step = 1};
  if (v->kind == FV_NONE) {
    it->kind = VI_NEWAXIS;
    return true;
  }
  if (is_slice_obj(v)) {
    at(L, loc);
    it->kind = VI_SLICE;
    it->has_step = v->type->slice == 3;
    it->start = lw_mat(L, &v->tup.elems[0]);
    it->stop = lw_mat(L, &v->tup.elems[1]);
    FeVal st = slice_step(L, v);
    if (st.is_const && st.c.i != 0) it->step = st.c.i;
    else it->step_v = lw_mat(L, &st);
    return true;
  }
  return is_scalar(v) && is_int_type(v->type);
}

/* a[items] of an array or FV_VIEW a, the items' kinds known and their slices lowered, ints[k] the value of each
 * VI_INT item: the view (an FV_VAL array), or, when no axis is left (a[i, j, ...]), an FV_VAL placeholder of the
 * element type with the element's array and indices in *base and idx. Integer indices are wrapped and checked
 * against their axis as everywhere; slices are clamped as Python clamps them, so a view never reaches outside its
 * array. */
static FeVal view_of_items(Lower *L, FeVal a, ViewItem *items, const FeVal *ints, unsigned n, SrcLoc iloc,
                           SrcLoc loc, Value **base, Value **idx) {
  a = lw_view_value(L, &a);
  const char *why = NULL;
  Type *t = view_type(L->ctx, a.type, items, n, &why);
  if (!t) return lw_lerr(L, iloc, "cannot index %s with this index: %s", tname(L, a.type), why);
  at(L, loc);
  for (unsigned k = 0; k < n; k++)
    if (items[k].kind == VI_INT) items[k].index = index_i64(L, a.v, (unsigned)items[k].axis, ints[k]);
  if (t->kind != TY_ARRAY) { /* no axis left: the element */
    *base = a.v;
    for (unsigned k = 0; k < n; k++)
      if (items[k].kind == VI_INT) idx[items[k].axis] = items[k].index;
    return val(t, NULL);
  }
  return val(t, view_build(&L->b, a.v, items, n, t));
}

/* a[index] where the index holds slices, None or an ellipsis (is_view_index): its items lowered left to right
 * (slices written in it, and values: integers, slice objects, None), then view_of_items. */
FeVal lw_index_view(Lower *L, FeVal a, const PyExpr *ie, SrcLoc loc, Value **base, Value **idx) {
  const PyExpr *const *x = &ie;
  unsigned n = 1;
  if (ie->kind == EX_TUPLE) {
    x = (const PyExpr *const *)ie->elts.items;
    n = ie->elts.n;
  }
  if (n > 32) return lw_lerr(L, ie->loc, "an index of more than 32 items is not supported");
  ViewItem items[32];
  FeVal ints[32];
  for (unsigned k = 0; k < n; k++) {
    ViewItem *it = &items[k];
    *it = (ViewItem){.kind = VI_INT, .step = 1};
    if (x[k]->kind == EX_SLICE) {
      const PyExpr *sl = x[k];
      it->kind = VI_SLICE;
      it->has_step = sl->slice.step != NULL;
      if (!slice_bound(L, sl->slice.lower, &it->start) || !slice_bound(L, sl->slice.upper, &it->stop)) return poison();
      if (sl->slice.step) {
        FeVal st = lower_expr(L, sl->slice.step);
        if (st.kind == FV_POISON) return st;
        if (st.kind != FV_NONE && is_scalar(&st) && is_int_type(st.type) && !st.is_const) {
          at(L, loc);
          it->step_v = conv_v(L, st, ty_i64(L->ctx)); /* (view_build checks it is not 0) */
        } else if (st.kind != FV_NONE) {
          if (!is_const_int(&st) || st.type->kind == TY_BOOL)
            return lw_lerr(L, sl->slice.step->loc, "slice indices must be integers or None, not %s", lw_vname(L, &st));
          if (st.c.i == 0) return lw_lerr(L, sl->slice.step->loc, "slice step cannot be zero");
          if (st.type->is_unsigned && st.c.i < 0)
            return lw_lerr(L, sl->slice.step->loc, "slice step %llu is too large", (unsigned long long)st.c.i);
          it->step = st.c.i;
        }
      }
    } else if (x[k]->kind == EX_NONE) {
      it->kind = VI_NEWAXIS;
    } else if (x[k]->kind == EX_ELLIPSIS) {
      it->kind = VI_ELLIPSIS;
    } else {
      FeVal v = lower_expr(L, x[k]);
      if (v.kind == FV_POISON) return v;
      if (!view_item_of(L, &v, it, loc)) {
        if (x[k]->kind == EX_STARRED || v.kind == FV_TUPLE)
          return lw_lerr(L, x[k]->loc, "an index holding slices takes integers, slices, None and '...', not %s",
                         lw_vname(L, &v));
        return lw_lerr(L, x[k]->loc, "array index must be an integer, not %s", lw_vname(L, &v));
      }
      ints[k] = v;
    }
  }
  return view_of_items(L, a, items, ints, n, ie->loc, loc, base, idx);
}

/* a[ix] where the values gathered (gather_indices) hold slice objects or None: view_of_items. */
FeVal lw_index_view_values(Lower *L, FeVal a, const FeVal *ix, unsigned n, const PyExpr *ie, SrcLoc loc,
                           Value **base, Value **idx) {
  ViewItem items[32];
  for (unsigned k = 0; k < n; k++) view_item_of(L, &ix[k], &items[k], loc); /* (gather_indices checked them) */
  return view_of_items(L, a, items, ix, n, ie->loc, loc, base, idx);
}

/* Nested loops over every element of the array value arr (scf.for per axis, outermost first); at the innermost,
 * body(L, arg, indices). */
typedef void (*ElementFn)(Lower *L, void *arg, Value **idx);
static void each_element(Lower *L, Value *arr, ElementFn body, void *arg) {
  Type *i64 = ty_i64(L->ctx);
  Value *idx[8];
  IrBuilder saved = L->b;
  unsigned r = arr->type->rank;
  for (unsigned d = 0; d < r; d++) {
    Value *ops[3] = {ib_const_int(&L->b, i64, 0), ib_dim(&L->b, arr, d), ib_const_int(&L->b, i64, 1)};
    Op *loop = ib_op(&L->b, OP_FOR, 3, ops, 0, NULL, 1);
    Block *blk = ir_block_new(L->m);
    ir_region_append_block(&loop->regions[0], blk);
    idx[d] = ir_block_add_arg(L->m, blk, i64);
    ib_set_end(&L->b, blk);
    ib_op(&L->b, OP_YIELD, 0, NULL, 0, NULL, 0);
    ib_set_before(&L->b, blk->last);
  }
  body(L, arg, idx);
  SrcLoc loc = L->b.loc;
  L->b = saved;
  L->b.loc = loc;
}

static void store_scalar_fn(Lower *L, void *arg, Value **idx) {
  Value **pair = arg; /* the value, the array */
  lw_store_element(L, pair[1], idx, pair[0]);
}

/* ---- assigning to a view: dst[...] = scalar, array or tuple (Numba's setitem_array / fancy_setslice) ---------- */

/* The bytes [*lo, *hi) an array value's elements span, from its address (i64; for a non-empty array). */
static void memory_extent(Lower *L, Value *arr, Value **lo, Value **hi) {
  Type *i64 = ty_i64(L->ctx), *u64 = ty_int(L->ctx, 64, true);
  Value *zero = ib_const_int(&L->b, i64, 0), *one = ib_const_int(&L->b, i64, 1);
  Value *addr = ib_cast(&L->b, op_result(ib_op(&L->b, OP_ADDR, 1, &arr, 1, &u64, 0), 0), i64);
  Value *down = zero, *up = ib_const_int(&L->b, i64, ty_size(arr->type->elem));
  for (unsigned d = 0; d < arr->type->rank; d++) {
    Value *stride = op_result(ib_op(&L->b, OP_STRIDE, 1, &arr, 1, &i64, 0), 0);
    ir_op_set_attr(L->m, stride->def, "axis", attr_int(i64, d));
    Value *span = ib_binary(&L->b, OP_MULI, ib_binary(&L->b, OP_SUBI, ib_dim(&L->b, arr, d), one), stride);
    down = ib_binary(&L->b, OP_ADDI, down, ib_binary(&L->b, OP_MINSI, span, zero));
    up = ib_binary(&L->b, OP_ADDI, up, ib_binary(&L->b, OP_MAXSI, span, zero));
  }
  *lo = ib_binary(&L->b, OP_ADDI, addr, down);
  *hi = ib_binary(&L->b, OP_ADDI, addr, up);
}

typedef struct CopyArg {
  Value *dst, *src;
  unsigned skip;      /* the source's leading axes of extent 1 beyond the destination's rank */
  int shift;          /* source axis of destination axis d: d - shift (< 0: a new axis of the source, index 0) */
  Value *bcast[8];    /* per destination axis: the source's extent there is 1 (broadcast: index 0) */
  Value *reverse[8];  /* per destination axis: walk it from its last index (an overlapping copy, see copy_into) */
} CopyArg;

static void copy_element_fn(Lower *L, void *arg, Value **idx) {
  CopyArg *c = arg;
  Type *i64 = ty_i64(L->ctx);
  Value *zero = ib_const_int(&L->b, i64, 0), *one = ib_const_int(&L->b, i64, 1), *di[8], *si[8];
  unsigned r = c->dst->type->rank;
  for (unsigned d = 0; d < r; d++) {
    Value *last = ib_binary(&L->b, OP_SUBI, ib_dim(&L->b, c->dst, d), one);
    di[d] = ib_select(&L->b, c->reverse[d], ib_binary(&L->b, OP_SUBI, last, idx[d]), idx[d]);
  }
  for (unsigned k = 0; k < c->skip; k++) si[k] = zero;
  for (unsigned d = 0; d < r; d++)
    if ((int)d - c->shift >= 0) si[c->skip + d - (unsigned)c->shift] = ib_select(&L->b, c->bcast[d], zero, di[d]);
  if (ty_is_record(c->dst->type->elem)) { /* a record (or bytes / str item) of the one type: its values */
    FeVal to = lw_record_ref(L, c->dst, di);
    lw_assign_composite(L, &to, lw_record_ref(L, c->src, si), L->b.loc, L->b.loc);
    return;
  }
  FeVal x = lw_load_element(L, c->src, si);
  lw_store_element(L, c->dst, di, conv_v(L, x, c->dst->type->elem));
}

static Value *stride_of(Lower *L, Value *arr, unsigned axis) {
  Type *i64 = ty_i64(L->ctx);
  Value *s = op_result(ib_op(&L->b, OP_STRIDE, 1, &arr, 1, &i64, 0), 0);
  ir_op_set_attr(L->m, s->def, "axis", attr_int(i64, axis));
  return s;
}

/* dst = src, src an array broadcast onto dst as Numba broadcasts it (extra leading source axes of extent 1 dropped,
 * missing ones added, axes of extent 1 repeated; else ValueError at run time, Numba's messages).
 * Overlap: Numba copies a source whose memory overlaps dst's into a new array first (its NRT). kfront has no
 * allocator; it copies in place when the two walk their elements alike (the same element size and strides: a
 * shifted view, a[1:] = a[:-1], m[1:, :] = m[:-1, :]) with strides nested as in a C or F array (each axis's
 * stride longer than the span of the axes inside it), visiting the elements in decreasing address order when the
 * destination lies above the source and in increasing order otherwise (as memmove does), so each source element
 * is read before it is overwritten; any other overlap raises NotImplementedError at the statement's line. */
static void copy_into(Lower *L, Value *dst, Value *src) {
  Type *i64 = ty_i64(L->ctx);
  IrBuilder *b = &L->b;
  unsigned r = dst->type->rank, rs = src->type->rank;
  Value *one = ib_const_int(b, i64, 1), *zero = ib_const_int(b, i64, 0), *yes = ib_const_bool(b, true);
  CopyArg c = {.dst = dst, .src = src, .skip = rs > r ? rs - r : 0, .shift = rs < r ? (int)(r - rs) : 0};
  if (c.skip) {
    Value *ok = yes;
    for (unsigned k = 0; k < c.skip; k++) ok = ib_binary(b, OP_ANDI, ok, ib_cmpi(b, IR_CMPI_EQ, ib_dim(b, src, k), one));
    view_value_check(b, ok, "cannot broadcast source array for assignment");
  }
  Value *fits = yes;
  for (unsigned d = 0; d < r; d++) {
    if ((int)d < c.shift) {
      c.bcast[d] = yes;
      continue;
    }
    Value *se = ib_dim(b, src, c.skip + d - (unsigned)c.shift), *de = ib_dim(b, dst, d);
    c.bcast[d] = ib_cmpi(b, IR_CMPI_EQ, se, one);
    fits = ib_binary(b, OP_ANDI, fits, ib_binary(b, OP_ORI, c.bcast[d], ib_cmpi(b, IR_CMPI_EQ, se, de)));
  }
  view_value_check(b, fits, "cannot assign slice from input of different size");
  /* overlap: both non-empty and their bytes intersect */
  Value *dlo, *dhi, *slo, *shi;
  memory_extent(L, dst, &dlo, &dhi);
  memory_extent(L, src, &slo, &shi);
  Value *dsize = op_result(ib_op(b, OP_SIZE, 1, &dst, 1, &i64, 0), 0);
  Value *ssize = op_result(ib_op(b, OP_SIZE, 1, &src, 1, &i64, 0), 0);
  Value *overlap = ib_binary(b, OP_ANDI, ib_cmpi(b, IR_CMPI_SLT, slo, dhi), ib_cmpi(b, IR_CMPI_SLT, dlo, shi));
  overlap = ib_binary(b, OP_ANDI, overlap, ib_binary(b, OP_ANDI, ib_cmpi(b, IR_CMPI_SGT, dsize, zero),
                                                     ib_cmpi(b, IR_CMPI_SGT, ssize, zero)));
  /* whether an in-place copy in address order is safe: same element size, same strides (on axes of extent > 1),
   * all multiples of the element size as is the distance between the two, nested strides */
  int64_t esize = ty_size(dst->type->elem);
  Value *ev = ib_const_int(b, i64, esize);
  Value *safe = ib_const_bool(b, esize == (int64_t)ty_size(src->type->elem));
  Value *apart = ib_binary(b, OP_SUBI, dlo, slo);
  safe = ib_binary(b, OP_ANDI, safe, ib_cmpi(b, IR_CMPI_EQ, ib_binary(b, OP_REMSI, apart, ev), zero));
  Value *backwards = ib_cmpi(b, IR_CMPI_SGT, dlo, slo), *inner = zero, *dstr[8];
  for (unsigned k = r; k-- > 0;) {
    dstr[k] = stride_of(L, dst, k);
    Value *ext = ib_dim(b, dst, k), *sstr = zero;
    if ((int)k >= c.shift) sstr = ib_select(b, c.bcast[k], zero, stride_of(L, src, c.skip + k - (unsigned)c.shift));
    Value *trivial = ib_cmpi(b, IR_CMPI_SLE, ext, one);
    Value *mag = ib_select(b, ib_cmpi(b, IR_CMPI_SLT, dstr[k], zero), ib_binary(b, OP_SUBI, zero, dstr[k]), dstr[k]);
    Value *ok = ib_binary(b, OP_ANDI, ib_cmpi(b, IR_CMPI_EQ, dstr[k], sstr), ib_cmpi(b, IR_CMPI_SGT, mag, inner));
    ok = ib_binary(b, OP_ANDI, ok, ib_cmpi(b, IR_CMPI_EQ, ib_binary(b, OP_REMSI, dstr[k], ev), zero));
    safe = ib_binary(b, OP_ANDI, safe, ib_binary(b, OP_ORI, trivial, ok));
    Value *span = ib_binary(b, OP_MULI, mag, ib_binary(b, OP_SUBI, ext, one));
    inner = ib_select(b, trivial, inner, ib_binary(b, OP_ADDI, inner, span));
    /* decreasing addresses along a positive stride: from the last index */
    c.reverse[k] = ib_binary(b, OP_ANDI, overlap, ib_binary(b, OP_XORI, backwards, ib_cmpi(b, IR_CMPI_SLT, dstr[k], zero)));
  }
  Value *bad = ib_binary(b, OP_ANDI, overlap, ib_binary(b, OP_XORI, safe, yes));
  Op *raise = ib_op(b, OP_RAISE, 1, &bad, 0, NULL, 0);
  ir_op_set_attr(L->m, raise, "exception",
                 attr_str(L->m, "NotImplementedError: kfront: the source of this slice assignment overlaps its "
                                "destination in a way only a copy into a new array handles (Numba makes one with its "
                                "NRT; kfront has no allocator in kernels)"));
  each_element(L, dst, copy_element_fn, &c);
}

/* dst = v for an array value dst (a view): a scalar stored into each element, an array broadcast onto it
 * (copy_into), a homogeneous tuple into a 1-d dst of its length (Numba's sequence case; no NRT needed). */
void lw_store_into(Lower *L, Value *dst, FeVal v, SrcLoc vloc) {
  if (is_scalar(&v)) {
    if (lw_implicit_conv_error(L, &v, dst->type->elem, vloc, " to store it into the elements of a slice")) return;
    Value *pair[2] = {conv_v(L, v, dst->type->elem), dst};
    each_element(L, dst, store_scalar_fn, pair);
    return;
  }
  if (is_array(&v) || v.kind == FV_VIEW) {
    FeVal src = lw_view_value(L, &v);
    Type *se = src.type->elem;
    if (se->kind == TY_TUPLE || (!ty_is_scalar(se) && se->kind != TY_COMPLEX)) {
      lw_lerr(L, vloc, "cannot assign %s to a slice of %s", lw_vname(L, &v), tname(L, dst->type));
      return;
    }
    if (se->kind == TY_COMPLEX && dst->type->elem->kind != TY_COMPLEX) { /* as element stores: never to a real */
      lw_lerr(L, vloc, "cannot assign %s to a slice of %s (Numba converts a complex number to no real type; take .real, "
                    ".imag or abs())", lw_vname(L, &v), tname(L, dst->type));
      return;
    }
    copy_into(L, dst, src.v);
    return;
  }
  if (v.kind == FV_TUPLE) {
    bool uni = v.type && v.type->kind == TY_TUPLE && !ty_is_struct_tuple(v.type) && v.tup.n > 0;
    for (unsigned i = 0; uni && i < v.tup.n; i++)
      uni = is_scalar(&v.tup.elems[i]) && v.type->elems[i] == v.type->elems[0];
    if (!uni || dst->type->rank != 1) {
      lw_lerr(L, vloc, "a tuple is assigned to a 1-d slice only, and only a homogeneous one (Numba's UniTuple), not %s "
                    "to %s", lw_vname(L, &v), tname(L, dst->type));
      return;
    }
    Type *i64 = ty_i64(L->ctx);
    view_value_check(&L->b, ib_cmpi(&L->b, IR_CMPI_EQ, ib_dim(&L->b, dst, 0), ib_const_int(&L->b, i64, v.tup.n)),
                     "cannot assign slice from input of different size");
    if (lw_implicit_conv_error(L, &v.tup.elems[0], dst->type->elem, vloc, " to store it into the elements of a slice"))
      return;
    for (unsigned i = 0; i < v.tup.n; i++) {
      Value *k = ib_const_int(&L->b, i64, i);
      lw_store_element(L, dst, &k, conv_v(L, v.tup.elems[i], dst->type->elem));
    }
    return;
  }
  lw_lerr(L, vloc, "cannot assign %s to a slice of %s", lw_vname(L, &v), tname(L, dst->type));
}

/* a[index] = v where the index makes a view (or, with only integers, a sub-array: a[i] of a 2-d a): store_into. */
void lw_assign_view(Lower *L, const PyExpr *t, FeVal v, SrcLoc vloc) {
  FeVal a = lower_expr(L, t->subscript.value);
  if (a.kind == FV_POISON || v.kind == FV_POISON) return;
  if (!is_array(&a) && a.kind != FV_VIEW) {
    lw_lerr(L, t->loc, "%s does not support item assignment", lw_vname(L, &a));
    return;
  }
  if (lw_refuse_readonly_store(L, a.kind == FV_VIEW ? a.tup.elems[0].v : a.v, a.type, t->loc)) return;
  Value *base, *idx[32];
  FeVal r = lw_index_view(L, a, t->subscript.index, t->loc, &base, idx);
  if (r.kind != FV_VAL) return;
  at(L, t->loc);
  if (!r.v) {
    if (!is_scalar(&v)) {
      lw_lerr(L, vloc, "cannot store %s into an element of %s", lw_vname(L, &v), tname(L, base->type));
      return;
    }
    if (lw_implicit_conv_error(L, &v, base->type->elem, vloc, " to store it into an element")) return;
    lw_store_element(L, base, idx, conv_v(L, v, base->type->elem));
    return;
  }
  lw_store_into(L, r.v, v, vloc);
}

/* a.x or a['x'] of an array (or view) of records: field x of every record, an array of layout A of the array's rank
 * plus the field's nested dimensions, as Numba's (which, unlike a record's field, it does not refuse when the field
 * is misaligned: the elements are then accessed as packed). */
static FeVal records_field_array(Lower *L, const FeVal *v, const char *name, size_t len, SrcLoc loc) {
  const Type *rec = (v->kind == FV_VIEW ? v->tup.elems[0].type : v->type)->elem;
  int k = ty_record_field(rec, name, len);
  if (k < 0)
    return lw_lerr(L, loc, "record has no field '%.*s' (its fields: %s)", (int)len, name, lw_record_fields_list(L, rec));
  FeVal arr = lw_view_value(L, v);
  at(L, loc);
  Value *fa = lw_field_array(L, arr.v, (unsigned)k);
  return val(fa->type, fa);
}

/* a.T, a.strides, a.itemsize, a.nbytes, a method (a.transpose), of an array or FV_VIEW v. */
FeVal lw_array_attribute(Lower *L, const FeVal *v, const char *a, SrcLoc aloc) {
  Type *at_ = v->type; /* (an FV_VIEW's own array type) */
  for (unsigned m = 0; m < M__COUNT; m++)
    if (strcmp(a, lw_method_names[m]) == 0) {
      bool reduction = m == M_SUM || m == M_PROD || m == M_MIN || m == M_MAX || m == M_ALL || m == M_ANY ||
                       m == M_MEAN || m == M_VAR || m == M_STD;
      FeVal arr = reduction && lw_is_zero_d_view(v) ? lw_zero_d_as_array_of_one(L, v) : lw_view_value(L, v);
      return (FeVal){.kind = FV_METHOD, .type = arr.type, .v = arr.v, .builtin = (int)m};
    }
  Type *i64 = ty_i64(L->ctx);
  int64_t esize = ty_size(at_->elem);
  if (strcmp(a, "itemsize") == 0) return cint(i64, esize);
  if (strcmp(a, "real") == 0 || strcmp(a, "imag") == 0) {
    /* numba-cuda's array_complex_attr: a complex array's parts as a float view (A); a real array's .real is itself,
     * its .imag a new read-only array of zeros (its NRT) */
    bool im = a[0] == 'i';
    FeVal arr = lw_view_value(L, v);
    if (arr.type->elem->kind == TY_COMPLEX) {
      if (arr.type->rank >= 8)
        return lw_lerr(L, aloc, ".%s of %s: kfront makes it as an array of one more axis, and arrays of more than 8 "
                             "dimensions are not supported", a, tname(L, arr.type));
      Type *t = ty_array(L->ctx, arr.type->elem->elem, arr.type->rank, LAYOUT_A);
      return val(t, view_complex_part(&L->b, arr.v, im, t));
    }
    bool number = ty_is_number(arr.type->elem) && arr.type->elem->kind != TY_BOOL; /* numba's number_domain */
    if (number && !im) return arr;
    if (number)
      return lw_lerr(L, aloc, ".imag of %s makes a new array of zeros, which a kernel cannot allocate (Numba's CUDA "
                           "target allows it only with its NRT enabled; kfront does not)", tname(L, arr.type));
    return lw_lerr(L, aloc, "cannot access .%s of array of %s", a, tname(L, arr.type->elem));
  }
  if (strcmp(a, "T") == 0) {
    FeVal arr = lw_view_value(L, v);
    Type *t = view_transpose_type(L->ctx, arr.type, false);
    return arr.type->rank <= 1 ? arr : val(t, view_transpose(&L->b, arr.v, NULL, t));
  }
  if (strcmp(a, "strides") == 0) {
    FeVal arr = lw_view_value(L, v);
    FeVal elems[8];
    for (unsigned k = 0; k < arr.type->rank && k < 8; k++)
      elems[k] = val(i64, op_result(ib_op(&L->b, OP_STRIDE, 1, &arr.v, 1, &i64, 0), 0));
    for (unsigned k = 0; k < arr.type->rank && k < 8; k++) ir_op_set_attr(L->m, elems[k].v->def, "axis", attr_int(i64, k));
    return lw_make_tuple(L, arr.type->rank, elems);
  }
  if (strcmp(a, "ctypes") == 0) { /* numba's ArrayCTypes: .data (lw_ctypes_attribute) */
    FeVal arr = lw_view_value(L, v);
    return (FeVal){.kind = FV_CTYPES, .type = arr.type, .v = arr.v};
  }
  if (strcmp(a, "nbytes") == 0) {
    FeVal arr = lw_view_value(L, v);
    Value *n = op_result(ib_op(&L->b, OP_SIZE, 1, &arr.v, 1, &i64, 0), 0);
    FeVal r = val(i64, ib_binary(&L->b, OP_MULI, n, ib_const_int(&L->b, i64, esize)));
    r.nonneg = true;
    return r;
  }
  if (ty_is_record(at_->elem)) return records_field_array(L, v, a, strlen(a), aloc); /* a.x: a field, or no such */
  return lw_lerr(L, aloc, "unknown attribute '%s' of %s (kfront supports shape, size, ndim, dtype, strides, itemsize, "
                       "nbytes, T, real, imag, ctypes and the methods transpose, reshape, ravel, view and item)", a,
                 tname(L, at_));
}

/* a.ctypes.data: the address of a's first element as a uintp, as numba-cuda's ptrtoint of the data pointer (for a
 * shared or local array its generic address); .data is the only attribute numba-cuda's ArrayCTypes types. */
FeVal lw_ctypes_attribute(Lower *L, const FeVal *ct, const char *a, SrcLoc aloc) {
  if (strcmp(a, "data") != 0)
    return lw_lerr(L, aloc, "unknown attribute '%s' of %s (numba-cuda's has only .data)", a, lw_vname(L, ct));
  Type *u64 = ty_int(L->ctx, 64, true);
  Value *arr = ct->v;
  FeVal r = val(u64, op_result(ib_op(&L->b, OP_ADDR, 1, &arr, 1, &u64, 0), 0));
  r.nonneg = true;
  return r;
}

/* a.transpose(), a.transpose(axes) and a.transpose(*axes) with constant axes. */
static FeVal lower_transpose(Lower *L, const FeVal *m, const PyExpr *e) {
  unsigned r = m->type->rank;
  FeVal args[8], ax[8];
  unsigned nax = 0;
  if (!lw_positional(L, e, "transpose", 0, 8, args)) return poison();
  for (unsigned i = 0; i < 8 && args[i].kind != FV_UNDEF; i++) {
    FeVal x = args[i];
    if (i == 0 && e->call.args.n == 1 && x.kind == FV_NONE) break;
    if (i == 0 && e->call.args.n == 1 && x.kind == FV_TUPLE) {
      if (x.tup.n > 8) return lw_lerr(L, arg_loc(e, 0), "axes don't match array");
      for (unsigned k = 0; k < x.tup.n; k++) ax[nax++] = x.tup.elems[k];
    } else {
      ax[nax++] = x;
    }
  }
  if (nax == 0) {
    Type *t = view_transpose_type(L->ctx, m->type, false);
    return r <= 1 ? val(m->type, m->v) : val(t, view_transpose(&L->b, m->v, NULL, t));
  }
  if (nax != r) return lw_lerr(L, e->loc, "axes don't match array: %u given for %s", nax, tname(L, m->type));
  unsigned perm[8];
  bool seen[8] = {false};
  for (unsigned k = 0; k < nax; k++) {
    if (!is_const_int(&ax[k]) || ax[k].type->kind == TY_BOOL)
      return lw_lerr(L, e->loc, "transpose() axes must be constant integers in kfront, not %s", lw_vname(L, &ax[k]));
    int64_t i = ax[k].c.i < 0 && !ax[k].type->is_unsigned ? ax[k].c.i + (int64_t)r : ax[k].c.i;
    if (i < 0 || i >= (int64_t)r) return lw_lerr(L, e->loc, "axis %lld is out of bounds for array of dimension %u", (long long)ax[k].c.i, r);
    if (seen[i]) return lw_lerr(L, e->loc, "repeated axis in transpose");
    seen[i] = true;
    perm[k] = (unsigned)i;
  }
  if (r == 1) return val(m->type, m->v);
  Type *t = view_transpose_type(L->ctx, m->type, true);
  return val(t, view_transpose(&L->b, m->v, perm, t));
}

/* a.reshape(shape) and a.reshape(d0, d1, ...) of a contiguous array, with integer extents (a negative one inferred);
 * extents that do not keep the size raise ValueError in the kernel, as in Numba. */
static FeVal lower_reshape(Lower *L, const FeVal *m, const PyExpr *e) {
  FeVal args[8], dims[8];
  unsigned n = 0;
  if (!lw_positional(L, e, "reshape", 1, 8, args)) return poison();
  if (m->type->layout != LAYOUT_C && m->type->layout != LAYOUT_F)
    return lw_lerr(L, e->loc, "reshape() supports contiguous array only, not %s", tname(L, m->type));
  if (e->call.args.n == 1 && args[0].kind == FV_TUPLE) {
    if (args[0].tup.n > 8) return lw_lerr(L, arg_loc(e, 0), "arrays of more than 8 dimensions are not supported by kfront");
    for (unsigned k = 0; k < args[0].tup.n; k++) dims[n++] = args[0].tup.elems[k];
  } else {
    for (unsigned k = 0; k < 8 && args[k].kind != FV_UNDEF; k++) dims[n++] = args[k];
  }
  if (n == 0) return lw_lerr(L, e->loc, "reshape() to a 0-d array is not supported by kfront");
  Value *ext[8];
  for (unsigned k = 0; k < n; k++) {
    if (!is_scalar(&dims[k]) || !is_int_type(dims[k].type))
      return lw_lerr(L, e->call.args.n == 1 ? arg_loc(e, 0) : arg_loc(e, k), "reshape() arg cannot be %s", lw_vname(L, &dims[k]));
    at(L, e->loc);
    ext[k] = conv_v(L, dims[k], ty_i64(L->ctx));
  }
  at(L, e->loc);
  Type *t = ty_array(L->ctx, m->type->elem, n, m->type->layout);
  return val(t, view_reshape(&L->b, m->v, ext, n, t));
}

/* The extents of arr when the kernel's code fixes them (a module-level NumPy array, a local or shared array of constant
 * shape: the array itself, not a view of it), into dims; false otherwise. */
static bool compile_time_shape(Lower *L, const Value *arr, int64_t *dims) {
  const Op *d = arr->def;
  unsigned r = arr->type->rank;
  if (d && d->kind == OP_REINTERPRET && d->noperands == 1 + 2 * r) { /* a constant array of records over its bytes */
    for (unsigned k = 0; k < r; k++) {
      const Value *x = op_operand(d, 1 + k);
      Attr *c = x->def && x->def->kind == OP_CONSTANT ? ir_op_attr(x->def, "value") : NULL;
      if (!c || c->kind != ATTR_INT) return false;
      dims[k] = c->i;
    }
    return true;
  }
  if (d && d->kind == OP_GLOBAL_REF) d = ir_module_lookup(L->m, ir_op_attr_str(d, "name"));
  else if (!d || d->kind != OP_ALLOCA) return false;
  Attr *shape = d ? ir_op_attr(d, "shape") : NULL;
  if (!shape || shape->kind != ATTR_ARRAY || shape->arr.n != r) return false;
  for (unsigned k = 0; k < r; k++) {
    if (shape->arr.elems[k].kind != ATTR_INT || shape->arr.elems[k].i <= 0) return false;
    dims[k] = shape->arr.elems[k].i;
  }
  return true;
}

/* a.copy(): numba-cuda's array_copy, a new writable C-contiguous array of a's dtype and shape holding its elements
 * (a constant array's copy is writable too). numba-cuda allocates it with its NRT; kfront has no allocator in
 * kernels and makes it a thread-local array (as cuda.local.array), one per call site, so it needs a's shape at
 * compile time and refuses a copy in a loop (where a later pass would overwrite an earlier copy still held). */
static FeVal lower_array_copy(Lower *L, const FeVal *m, const PyExpr *e) {
  FeVal none[1];
  if (!lw_positional(L, e, "copy", 0, 0, none)) return poison();
  int64_t dims[8];
  if (!compile_time_shape(L, m->v, dims))
    return lw_lerr(L, e->loc, "copy() of %s: kfront makes a copy as a thread-local array, which needs a shape known at "
                           "compile time (a module-level NumPy array, or a local or shared array of constant shape); "
                           "Numba's CUDA target allocates others with its NRT, which kfront has not", tname(L, m->type));
  if (L->loop)
    return lw_lerr(L, e->loc, "copy() in a loop: kfront's copy is one thread-local array per call site, which a later "
                           "iteration would overwrite (copy before the loop, or copy into a cuda.local.array)");
  Type *t = ty_array(L->ctx, m->type->elem, m->type->rank, LAYOUT_C);
  CopyArg c = {.dst = lw_local_array(L, e, t, dims), .src = m->v};
  Value *no = ib_const_bool(&L->b, false);
  for (unsigned k = 0; k < t->rank; k++) c.bcast[k] = c.reverse[k] = no;
  each_element(L, c.dst, copy_element_fn, &c);
  return val(t, c.dst);
}

bool lw_holds_copy(Lower *L, const FeVal *v) {
  if (v->kind == FV_TUPLE) {
    for (unsigned k = 0; k < v->tup.n; k++)
      if (lw_holds_copy(L, &v->tup.elems[k])) return true;
    return false;
  }
  const Value *arr = v->kind == FV_VIEW || v->kind == FV_RECORD ? v->tup.elems[0].v : is_array(v) ? v->v : NULL;
  while (arr && arr->def && (arr->def->kind == OP_SUBVIEW || arr->def->kind == OP_REINTERPRET || arr->def->kind == OP_FIELD))
    arr = op_operand(arr->def, 0);
  if (!arr || !arr->def || arr->def->kind != OP_ALLOCA) return false;
  for (unsigned i = 0; i < L->nmemo; i++) /* the site of the thread-local array: a call of a method copy */
    if (L->memo[i].op == arr->def) {
      const PyExpr *site = L->memo[i].key;
      return site->kind == EX_CALL && site->call.func->kind == EX_ATTRIBUTE &&
             strcmp(site->call.func->attribute.attr, "copy") == 0;
    }
  return false;
}

/* A call of an array method (or of an integer's: bit_count). */
FeVal lower_method(Lower *L, const FeVal *m, const PyExpr *e) {
  at(L, e->loc);
  switch (m->builtin) {
  case M_TRANSPOSE: return lower_transpose(L, m, e);
  case M_CONJUGATE: {
    FeVal none[1];
    if (!lw_positional(L, e, "conjugate", 0, 0, none)) return poison();
    if (m->type->kind == TY_ARRAY)
      return lw_lerr(L, e->loc, "conjugate() of an array makes a new array, which a kernel cannot allocate; conjugate its "
                             "elements");
    if (m->type->kind != TY_COMPLEX) return val(m->type, m->v);
    return val(m->type, op_result(ib_op(&L->b, OP_COMPLEX_CONJ, 1, (Value *const *)&m->v, 1, (Type *const *)&m->type, 0), 0));
  }
  case M_RESHAPE: return lower_reshape(L, m, e);
  case M_RAVEL: {
    FeVal none[1];
    if (!lw_positional(L, e, "ravel", 0, 0, none)) return poison();
    if (m->type->layout != LAYOUT_C)
      return lw_lerr(L, e->loc, "ravel() of %s copies it into a new array, which a kernel cannot allocate (Numba's CUDA "
                             "target allows it only with its NRT enabled; kfront does not)", tname(L, m->type));
    Type *t = ty_array(L->ctx, m->type->elem, 1, LAYOUT_C);
    return m->type->rank == 1 ? val(m->type, m->v) : val(t, view_ravel(&L->b, m->v, t));
  }
  case M_VIEW: {
    FeVal d;
    if (!lw_positional(L, e, "view", 1, 1, &d)) return poison();
    Type *dt = lw_dtype_of(L, &d, arg_loc(e, 0));
    if (!dt) return poison();
    Type *t = ty_array(L->ctx, dt, m->type->rank, m->type->layout);
    return val(t, view_dtype(&L->b, m->v, t));
  }
  case M_ITEM: {
    /* the only element of an array of size 1 (else ValueError, as Numba raises it) */
    FeVal none[1];
    if (!lw_positional(L, e, "item", 0, 0, none)) return poison();
    Type *i64 = ty_i64(L->ctx);
    Value *size = op_result(ib_op(&L->b, OP_SIZE, 1, (Value *const *)&m->v, 1, &i64, 0), 0);
    Value *ok = ib_cmpi(&L->b, IR_CMPI_EQ, size, ib_const_int(&L->b, i64, 1));
    view_value_check(&L->b, ok, "item(): can only convert an array of size 1 to a Python scalar");
    Value *idx[8];
    for (unsigned d = 0; d < m->type->rank; d++) idx[d] = ib_const_int(&L->b, i64, 0);
    return lw_load_element(L, m->v, idx);
  }
  case M_SUM:
  case M_PROD:
  case M_MIN:
  case M_MAX:
  case M_ALL:
  case M_ANY:
  case M_MEAN:
  case M_VAR:
  case M_STD: {
    const char *name = lw_method_names[m->builtin];
    return lower_reduction(L, name, name, val(m->type, m->v), e, 0);
  }
  case M_SLICE_INDICES: return lw_slice_indices(L, m->recv, e);
  case M_INT_BIT_COUNT: {
    /* numba-cuda's overload: cuda.popc(i), the integer's type */
    FeVal none[1];
    if (!lw_positional(L, e, "bit_count", 0, 0, none)) return poison();
    return val(m->type, ib_unary(&L->b, OP_POPC, m->v, NULL));
  }
  case M_COPY: return lower_array_copy(L, m, e);
  case M_FLATTEN:
  case M_ASTYPE:
    return lw_lerr(L, e->loc, "%s() makes a new array, which a kernel cannot allocate (Numba's CUDA target allows it only "
                           "with its NRT enabled; kfront does not)", lw_method_names[m->builtin]);
  default: return lw_lerr(L, e->loc, "internal error: an unknown array method");
  }
}
/* t[start:stop:step] of a tuple, with constant bounds (Numba slices tuples at compile time). */
static FeVal slice_tuple_by(Lower *L, const FeVal *t, const bool *given, const int64_t *c, SrcLoc step_loc);
/* t[lower:upper:step] of a tuple t, written with constant bounds. */
static FeVal slice_tuple(Lower *L, const FeVal *t, const PyExpr *sl) {
  const PyExpr *part[3] = {sl->slice.lower, sl->slice.upper, sl->slice.step};
  int64_t c[3];
  bool given[3];
  for (unsigned k = 0; k < 3; k++) {
    given[k] = false;
    if (!part[k]) continue;
    FeVal x = lower_expr(L, part[k]);
    if (x.kind == FV_POISON) return x;
    if (x.kind == FV_NONE) continue;
    if (!is_const_int(&x) || x.type->is_unsigned)
      return lw_lerr(L, part[k]->loc, "a tuple is sliced with constant integers (or None), not %s", lw_vname(L, &x));
    c[k] = x.c.i;
    given[k] = true;
  }
  return slice_tuple_by(L, t, given, c, part[2] ? part[2]->loc : sl->loc);
}
/* t[start:stop:step] of a tuple t, each bound a constant when given[k]: a tuple (Python's clamping). */
static FeVal slice_tuple_by(Lower *L, const FeVal *t, const bool *given, const int64_t *c, SrcLoc step_loc) {
  int64_t n = t->tup.n, step = given[2] ? c[2] : 1;
  if (step == 0) return lw_lerr(L, step_loc, "slice step cannot be zero");
  int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? n : n - 1, b[2];
  for (unsigned k = 0; k < 2; k++) {
    if (!given[k]) {
      b[k] = (k == 0) == (step > 0) ? lo : hi;
      continue;
    }
    int64_t x = c[k] < 0 ? c[k] + n : c[k];
    b[k] = x < lo ? lo : x > hi ? hi : x;
  }
  FeVal *elems = ARENA_ARRAY(&L->fe->arena, FeVal, t->tup.n ? t->tup.n : 1);
  unsigned m = 0;
  for (int64_t i = b[0]; step > 0 ? i < b[1] : i > b[1];) {
    elems[m++] = t->tup.elems[i];
    /* the next index, unless it passes the stop (a step near INT64_MAX must not overflow i) */
    uint64_t left = step > 0 ? (uint64_t)b[1] - (uint64_t)i : (uint64_t)i - (uint64_t)b[1];
    if (left <= (step > 0 ? (uint64_t)step : 0 - (uint64_t)step)) break;
    i += step;
  }
  return lw_make_tuple(L, m, elems);
}
/* t[i] with i an integer known only at run time, for a tuple whose elements are scalars of one type (Numba's
 * getitem of a UniTuple, cpython/tupleobj.py getitem_unituple): a negative i counts from the end, an i out of range
 * raises IndexError("tuple index out of range") at the user's line; the element is chosen by a select chain. Other
 * tuples (heterogeneous, of arrays, tuples or records, or empty) are refused as Numba refuses them. */
static FeVal tuple_item_at_run_time(Lower *L, const FeVal *t, FeVal i, SrcLoc loc) {
  if (i.kind != FV_VAL || is_enum_only(&i) || !is_int_type(i.type))
    return lw_lerr(L, loc, "a tuple index must be an integer, not %s", lw_vname(L, &i));
  const FeVal *el = t->tup.elems;
  bool uniform = t->tup.n > 0;
  for (unsigned k = 0; k < t->tup.n && uniform; k++)
    uniform = is_scalar(&el[k]) && !el[k].enumc && el[k].type == el[0].type;
  if (!uniform)
    return lw_lerr(L, loc, "a tuple indexed with an integer known only at run time must have elements of one scalar type "
                        "(Numba's UniTuple); %s is not (index it with a constant)", lw_vname(L, t));
  at(L, loc);
  Type *i64 = ty_i64(L->ctx);
  int64_t n = (int64_t)t->tup.n;
  FeVal wide = lw_conv(L, i, i64);
  Value *raw = lw_mat(L, &wide);
  Value *neg = ib_cmpi(&L->b, IR_CMPI_SLT, raw, ib_const_int(&L->b, i64, 0));
  Value *k = ib_select(&L->b, neg, ib_binary(&L->b, OP_ADDI, raw, ib_const_int(&L->b, i64, n)), raw);
  lw_emit_raise(L, ib_cmpi(&L->b, IR_CMPI_UGE, k, ib_const_int(&L->b, i64, n)), "IndexError: tuple index out of range", loc);
  Value *r = lw_mat(L, &el[n - 1]);
  for (int64_t j = n - 1; j-- > 0;)
    r = ib_select(&L->b, ib_cmpi(&L->b, IR_CMPI_EQ, k, ib_const_int(&L->b, i64, j)), lw_mat(L, &el[j]), r);
  return val(el[0].type, r);
}
/* e[index], given the value v of e (lowered by lower_expr's loop over the chain). */
FeVal lw_subscript_of(Lower *L, const PyExpr *e, FeVal v) {
  if (v.kind == FV_POISON) return v;
  if (v.kind == FV_TUPLE) {
    if (e->subscript.index->kind == EX_SLICE) return slice_tuple(L, &v, e->subscript.index);
    FeVal i = lower_expr(L, e->subscript.index);
    if (i.kind == FV_POISON) return i;
    if (is_slice_obj(&i)) { /* a slice object of constants, as Numba folds `t[s]` to a static getitem */
      bool given[3] = {true, true, true};
      int64_t c[3];
      for (unsigned k = 0; k < 3; k++) {
        if (!is_const_int(&i.tup.elems[k]))
          return lw_lerr(L, e->subscript.index->loc, "a tuple is sliced with a slice of constants, not one whose %s is "
                         "known only at run time", (const char *const[]){"start", "stop", "step"}[k]);
        c[k] = i.tup.elems[k].c.i;
      }
      return slice_tuple_by(L, &v, given, c, e->subscript.index->loc);
    }
    if (!is_const_int(&i)) return tuple_item_at_run_time(L, &v, i, e->subscript.index->loc);
    int64_t k = i.c.i < 0 ? i.c.i + (int64_t)v.tup.n : i.c.i;
    if (k < 0 || k >= (int64_t)v.tup.n)
      return lw_lerr(L, e->subscript.index->loc, "tuple index %lld is out of range for a tuple of %u", (long long)i.c.i,
                     v.tup.n);
    FeVal r = v.tup.elems[k];
    r.literal = false;
    return r;
  }
  if (is_array(&v) || v.kind == FV_VIEW) {
    Value *base, *idx[32];
    if (lw_is_view_index(e->subscript.index)) {
      FeVal r = lw_index_view(L, v, e->subscript.index, e->loc, &base, idx);
      if (r.kind != FV_VAL || r.v) return r;
      if (ty_is_record(base->type->elem)) return lw_record_ref(L, base, idx);
      return lw_load_element(L, base, idx);
    }
    const PyExpr *ie = e->subscript.index;
    FeVal ix[32];
    unsigned n;
    bool views;
    if (ie->kind != EX_TUPLE && ty_is_record((v.kind == FV_VIEW ? v.tup.elems[0].type : v.type)->elem)) {
      FeVal i = lower_expr(L, ie); /* a['x'] of an array of records is a.x */
      if (i.kind == FV_STR) return records_field_array(L, &v, i.str.s, i.str.len, ie->loc);
      if (!index_values(L, ie, &i, 1, ix, &n, &views)) return poison();
    } else if (!lw_gather_indices(L, ie, ix, &n, &views)) {
      return poison();
    }
    FeVal r = views ? lw_index_view_values(L, v, ix, n, ie, e->loc, &base, idx)
                    : lw_index_array(L, &v, ix, n, e->loc, false, &base, idx);
    if (r.kind != FV_VAL || (views && r.v)) return r;
    if (r.kind != FV_VAL) return r;
    if (ty_is_record(base->type->elem)) return lw_record_ref(L, base, idx);
    return lw_load_element(L, base, idx);
  }
  if (is_pointer(&v)) {
    Value *base, *idx[1];
    if (!lw_pointer_item(L, &v, e->subscript.index, e->loc, &base, idx)) return poison();
    return lw_load_element(L, base, idx);
  }
  if (lw_is_charseq(&v)) return lw_charseq_item(L, &v, e->subscript.index, e->loc);
  if (v.kind == FV_RECORD) {
    Value *base, *idx[32];
    FeVal r = lw_record_item(L, &v, e->subscript.index, &base, idx);
    if (r.kind != FV_VAL || r.v) return r;
    return lw_load_element(L, base, idx);
  }
  if (v.kind == FV_NAMESPACE && v.ns->enumc) { /* Color["RED"]: the member of that name */
    FeVal i = lower_expr(L, e->subscript.index);
    if (i.kind == FV_POISON) return i;
    if (i.kind != FV_STR) return lw_lerr(L, e->subscript.index->loc, "an enum class is indexed by a member's name, not %s", lw_vname(L, &i));
    for (unsigned k = 0; k < v.ns->n; k++)
      if (strlen(v.ns->names[k]) == i.str.len && memcmp(v.ns->names[k], i.str.s, i.str.len) == 0) return v.ns->vals[k];
    return lw_lerr(L, e->subscript.index->loc, "enum class '%s' has no member '%.*s'", v.ns->name, (int)i.str.len, i.str.s);
  }
  if (v.kind == FV_NTYPE) return lw_lerr(L, e->loc, "array types such as %s[:] are not values in a kernel", tname(L, v.type));
  return lw_lerr(L, e->loc, "%s is not subscriptable (only arrays and tuples are)", lw_vname(L, &v));
}
