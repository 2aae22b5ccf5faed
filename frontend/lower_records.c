/* lower_records.c — NumPy structured dtypes (Numba's Record types) in kernels: record references, fields (scalars,
 * nested arrays, nested records) read and assigned, and the copy of a whole record or nested array. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lower.h"

/* ---- records (NumPy structured dtypes) -----------------------------------------------------------------------
 * A record is reached as FV_RECORD: the array of records it is in and its (checked) index per axis. A field is
 * the mem.field view of that array at the same indices: a scalar field is loaded or stored there, a nested record
 * is an FV_RECORD of the field view, a nested array the FV_VIEW of the field view with the record's indices fixed
 * (r.v[j] is then checked against the nested extent as any view access). Assigning a whole record, or a whole
 * nested array, copies it value by value. */

enum { MAX_RECORD_COPY = 4096 };

FeVal lw_record_ref(Lower *L, Value *arr, Value *const *idx) {
  unsigned rank = arr->type->rank;
  FeVal r = {.kind = FV_RECORD, .type = arr->type->elem};
  r.tup.n = 1 + rank;
  r.tup.elems = ARENA_ARRAY(&L->fe->arena, FeVal, 1 + rank);
  r.tup.elems[0] = val(arr->type, arr);
  for (unsigned k = 0; k < rank; k++) r.tup.elems[1 + k] = val(ty_i64(L->ctx), idx[k]);
  return r;
}

/* The array of the field k of every record of arr (mem.field). */
Value *lw_field_array(Lower *L, Value *arr, unsigned k) {
  Type *rec = arr->type->elem;
  const RecordField *f = &rec->fields[k];
  Type *t = ty_array(L->ctx, rec->elems[k], arr->type->rank + f->ndims, LAYOUT_A);
  Op *op = ib_op(&L->b, OP_FIELD, 1, &arr, 1, &t, 0);
  ir_op_set_attr(L->m, op, "name", attr_str(L->m, f->name));
  return op_result(op, 0);
}

const char *lw_record_fields_list(Lower *L, const Type *rec) {
  StrBuf b;
  sb_init(&b);
  for (unsigned i = 0; i < rec->n; i++) sb_printf(&b, "%s%s", i ? ", " : "", rec->fields[i].name);
  const char *s = arena_strdup(&L->fe->arena, sb_cstr(&b));
  sb_free(&b);
  return s;
}

/* Field k of the record r: a scalar field as val(type, NULL) with *base and idx (the record's indices) where it
 * is; a nested record as FV_RECORD; a nested array as FV_VIEW. */
static FeVal record_field_at(Lower *L, const FeVal *r, unsigned k, SrcLoc loc, Value **base, Value **idx) {
  Value *arr = r->tup.elems[0].v;
  unsigned rank = r->tup.n - 1;
  /* as Numba's CUDA target (strict alignment): a field must sit at a multiple of its type's alignment in its
   * record (a packed record's fields are then read a byte at a time when its itemsize does not keep them aligned) */
  const RecordField *rf = &r->type->fields[k];
  if (rf->offset % ty_align(r->type->elems[k]))
    return lw_lerr(L, loc, "%s.%s of type %s is not aligned", tname(L, r->type), rf->name, tname(L, r->type->elems[k]));
  at(L, loc);
  Value *fa = lw_field_array(L, arr, k);
  const RecordField *f = &r->type->fields[k];
  Value *ridx[32];
  for (unsigned i = 0; i < rank; i++) ridx[i] = idx[i] = r->tup.elems[1 + i].v;
  if (f->ndims) {
    FeVal v = {.kind = FV_VIEW};
    v.type = ty_array(L->ctx, fa->type->elem, f->ndims, LAYOUT_C);
    v.tup.n = 1 + rank;
    v.tup.elems = ARENA_ARRAY(&L->fe->arena, FeVal, 1 + rank);
    v.tup.elems[0] = val(fa->type, fa);
    for (unsigned i = 0; i < rank; i++) v.tup.elems[1 + i] = val(ty_i64(L->ctx), ridx[i]);
    return v;
  }
  if (ty_is_record(fa->type->elem)) return lw_record_ref(L, fa, ridx);
  *base = fa;
  return val(fa->type->elem, NULL);
}

/* r.name or r['name']. */
FeVal lw_record_field(Lower *L, const FeVal *r, const char *name, size_t len, SrcLoc loc, Value **base,
                      Value **idx) {
  if (lw_is_charseq(r)) return lw_lerr(L, loc, "unknown attribute '%.*s' of %s", (int)len, name, tname(L, r->type));
  int k = ty_record_field(r->type, name, len);
  if (k < 0)
    return lw_lerr(L, loc, "record has no field '%.*s' (its fields: %s)", (int)len, name, lw_record_fields_list(L, r->type));
  return record_field_at(L, r, (unsigned)k, loc, base, idx);
}

/* r[index]: a field by name (a constant string) or by position (a constant integer), as Numba allows. */
FeVal lw_record_item(Lower *L, const FeVal *r, const PyExpr *ie, Value **base, Value **idx) {
  FeVal i = lower_expr(L, ie);
  if (i.kind == FV_POISON) return i;
  if (i.kind == FV_STR) return lw_record_field(L, r, i.str.s, i.str.len, ie->loc, base, idx);
  if (is_const_int(&i) && i.type->kind == TY_INT) {
    int64_t k = i.c.i < 0 ? i.c.i + (int64_t)r->type->n : i.c.i;
    if (k < 0 || k >= (int64_t)r->type->n)
      return lw_lerr(L, ie->loc, "record field index %lld is out of range for a record of %u fields", (long long)i.c.i,
                     r->type->n);
    return record_field_at(L, r, (unsigned)k, ie->loc, base, idx);
  }
  /* r[()] of a record parameter: a kernel's argument of a 0-d array of records (numba's array(Record, 0d, C)),
   * which kfront takes as that record (as it does a NumPy record scalar, which numba-cuda does not index by ()) */
  const Value *arr = r->tup.elems[0].v;
  if (i.kind == FV_TUPLE && i.tup.n == 0 && arr && arr->def && arr->def->kind == OP_RECORD_ARRAY) return *r;
  return lw_lerr(L, ie->loc, "a record is indexed by a field name or a constant integer, not %s", lw_vname(L, &i));
}

/* The nested shape of the field array that an FV_VIEW of a nested-array field walks (its trailing axes). */
unsigned lw_nested_dims(const FeVal *v, unsigned *dims) {
  Value *fa = v->tup.elems[0].v;
  const Op *d = fa->def;
  if (!d || d->kind != OP_FIELD) return 0;
  Type *rec = op_operand(d, 0)->type->elem;
  const char *name = ir_op_attr_str(d, "name");
  int k = name ? ty_record_field(rec, name, strlen(name)) : -1;
  if (k < 0) return 0;
  for (unsigned i = 0; i < rec->fields[k].ndims; i++) dims[i] = rec->fields[k].dims[i];
  return rec->fields[k].ndims;
}

/* Copies element by element: every value of the record (elem a record) or scalar at src[sidx] to dst[didx]. */
static bool copy_values(Lower *L, Value *dst, Value **didx, Value *src, Value **sidx, unsigned *budget, SrcLoc loc) {
  Type *et = dst->type->elem;
  if (!ty_is_record(et)) {
    if ((*budget)-- == 0) {
      lw_lerr(L, loc, "kfront copies records and nested arrays value by value, at most %d values in one assignment",
              MAX_RECORD_COPY);
      return false;
    }
    FeVal x = lw_load_element(L, src, sidx);
    lw_store_element(L, dst, didx, x.v);
    return true;
  }
  unsigned rank = dst->type->rank, srank = src->type->rank;
  for (unsigned k = 0; k < et->n; k++) {
    const RecordField *f = &et->fields[k];
    Value *fd = lw_field_array(L, dst, k), *fs = lw_field_array(L, src, k);
    Value *di[40], *si[40];
    for (unsigned i = 0; i < rank; i++) di[i] = didx[i];
    for (unsigned i = 0; i < srank; i++) si[i] = sidx[i];
    unsigned count = ty_field_count(f);
    for (unsigned e = 0; e < count; e++) {
      unsigned rest = e;
      for (unsigned d = f->ndims; d-- > 0;) {
        Value *c = ib_const_int(&L->b, ty_i64(L->ctx), rest % f->dims[d]);
        di[rank + d] = si[srank + d] = c;
        rest /= f->dims[d];
      }
      if (!copy_values(L, fd, di, fs, si, budget, loc)) return false;
    }
  }
  return true;
}

/* target = v where target is a whole record (FV_RECORD) or nested array (an FV_VIEW of a nested-array field). */
void lw_assign_composite(Lower *L, const FeVal *target, FeVal v, SrcLoc tloc, SrcLoc vloc) {
  if (v.kind == FV_POISON) return;
  unsigned budget = MAX_RECORD_COPY;
  at(L, tloc);
  if (lw_is_charseq(target) && !(v.kind == FV_RECORD && v.type == target->type)) {
    lw_charseq_assign(L, target, v, tloc, vloc); /* a constant into a bytes or str item */
    return;
  }
  if (target->kind == FV_RECORD) {
    if (v.kind != FV_RECORD || v.type != target->type) {
      lw_lerr(L, vloc, "cannot assign %s to a record of type %s", lw_vname(L, &v), tname(L, target->type));
      return;
    }
    Value *di[32], *si[32];
    for (unsigned i = 0; i + 1 < target->tup.n; i++) di[i] = target->tup.elems[1 + i].v;
    for (unsigned i = 0; i + 1 < v.tup.n; i++) si[i] = v.tup.elems[1 + i].v;
    copy_values(L, target->tup.elems[0].v, di, v.tup.elems[0].v, si, &budget, vloc);
    return;
  }
  /* a nested array, from a nested array of the same shape or from an array of its shape (checked at run time:
   * ValueError otherwise) */
  unsigned dims[TY_MAX_FIELD_DIMS], nd = lw_nested_dims(target, dims);
  Value *dst = target->tup.elems[0].v;
  unsigned fixed = target->tup.n - 1;
  Value *src;
  unsigned sfixed = 0;
  Value *si[40], *di[40];
  for (unsigned i = 0; i < fixed; i++) di[i] = target->tup.elems[1 + i].v;
  if (is_nested_view(&v)) {
    unsigned sd[TY_MAX_FIELD_DIMS], snd = lw_nested_dims(&v, sd);
    bool same = snd == nd && v.tup.elems[0].v->type->elem == dst->type->elem;
    for (unsigned i = 0; same && i < nd; i++) same = sd[i] == dims[i];
    if (!same) {
      lw_lerr(L, vloc, "cannot assign %s to a nested array of type %s", lw_vname(L, &v), tname(L, target->type));
      return;
    }
    src = v.tup.elems[0].v;
    sfixed = v.tup.n - 1;
    for (unsigned i = 0; i < sfixed; i++) si[i] = v.tup.elems[1 + i].v;
  } else if (is_array(&v) && v.type->rank == nd && !ty_is_record(v.type->elem) && !ty_is_record(dst->type->elem)) {
    src = v.v;
    Value *ok = ib_const_bool(&L->b, true);
    for (unsigned d = 0; d < nd; d++) {
      Value *eq = ib_cmpi(&L->b, IR_CMPI_EQ, ib_dim(&L->b, src, d), ib_const_int(&L->b, ty_i64(L->ctx), dims[d]));
      ok = ib_binary(&L->b, OP_ANDI, ok, eq);
    }
    Value *bad = ib_binary(&L->b, OP_XORI, ok, ib_const_bool(&L->b, true));
    lw_emit_raise(L, bad, "ValueError: cannot assign an array of another shape to a nested array", tloc);
  } else {
    lw_lerr(L, vloc, "cannot assign %s to a nested array of type %s (kfront assigns a nested array of the same shape or "
                  "an array of that shape)", lw_vname(L, &v), tname(L, target->type));
    return;
  }
  unsigned count = 1;
  for (unsigned d = 0; d < nd; d++) count *= dims[d];
  for (unsigned e = 0; e < count; e++) {
    unsigned rest = e;
    for (unsigned d = nd; d-- > 0;) {
      Value *c = ib_const_int(&L->b, ty_i64(L->ctx), rest % dims[d]);
      di[fixed + d] = si[sfixed + d] = c;
      rest /= dims[d];
    }
    Value *sv = src;
    if (sv->type->elem != dst->type->elem && !ty_is_record(dst->type->elem)) { /* an array of another dtype */
      FeVal x = lw_load_element(L, src, si);
      lw_store_element(L, dst, di, conv_v(L, x, dst->type->elem));
      continue;
    }
    if (!copy_values(L, dst, di, sv, si, &budget, vloc)) return;
  }
}
