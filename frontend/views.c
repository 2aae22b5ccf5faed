/* views.c — array views in the frontend: Numba's typing of basic indexing (which axes a[...] keeps and the
 * layout of the result, as numba's get_array_index_type decides it), Python's slice arithmetic (bounds
 * wrapped and clamped, the length of a stepped slice) and the mem.subview that makes the view; transposes.
 *
 * lower_arrays.c lowers the index expressions (and checks the integer ones against their axis: view_type says
 * which); this file turns them into the view. Views are arrays like any other kir value: indexing one is
 * checked against the view's own extents, and canonicalize folds mem.dim of a view to the extent computed
 * here, so a loop bounded by it proves the checks in its body. */
#include <stdio.h>
#include <string.h>

#include "frontend/fe.h"

/* The constant an arith.constant makes, if v is one. */
static bool const_of(const Value *v, int64_t *out) {
  const Op *d = v ? v->def : NULL;
  const Attr *a = d && d->kind == OP_CONSTANT ? ir_op_attr(d, "value") : NULL;
  if (!a || a->kind != ATTR_INT) return false;
  *out = a->i;
  return true;
}

/* ---- typing -------------------------------------------------------------------------------------------- */

/* Whether an index keeps an array contiguous along its axis (numba: an integer or the ellipsis, or, innermost,
 * a slice written without a step). */
static bool keeps_contiguity(const ViewItem *it, bool innermost) {
  return it->kind == VI_INT || it->kind == VI_ELLIPSIS || (innermost && it->kind == VI_SLICE && !it->has_step);
}

/* Whether the indices, from the outermost physical axis inwards, keep the array contiguous. */
static bool check_contiguity(const ViewItem *const *outer, unsigned n) {
  for (unsigned k = 0; k + 1 < n; k++)
    if (!keeps_contiguity(outer[k], false)) return false;
  return n == 0 || keeps_contiguity(outer[n - 1], true);
}

Type *view_type(IrContext *ctx, const Type *arr, ViewItem *items, unsigned n, const char **why) {
  unsigned ints = 0, newaxes = 0, ellipses = 0;
  for (unsigned k = 0; k < n; k++) {
    ints += items[k].kind == VI_INT;
    newaxes += items[k].kind == VI_NEWAXIS;
    ellipses += items[k].kind == VI_ELLIPSIS;
  }
  if (ellipses > 1) return *why = "an index can only have a single ellipsis ('...')", NULL;
  unsigned given = n - ellipses - newaxes; /* the indices that take an axis */
  if (given > arr->rank) return *why = "too many indices for the array", NULL;
  /* the axis each item indexes */
  unsigned pos = 0;
  for (unsigned k = 0; k < n; k++) {
    items[k].axis = -1;
    if (items[k].kind == VI_ELLIPSIS) pos += arr->rank - given;
    else if (items[k].kind != VI_NEWAXIS) items[k].axis = (int)pos++;
  }
  unsigned ndim = arr->rank - ints + newaxes;
  if (ndim == 0) return arr->elem;
  if (ndim > 8) return *why = "arrays of more than 8 dimensions are not supported by kfront", NULL;
  /* the indices before the ellipsis (all of them when there is none, or when every axis is indexed) and after */
  const ViewItem *left[40], *right[40];
  unsigned nl = 0, nr = 0;
  bool after = false;
  for (unsigned k = 0; k < n && k < 40; k++) {
    if (items[k].kind == VI_ELLIPSIS && !after) {
      after = true;
      continue; /* (numba drops the ellipsis itself from the right-hand list) */
    }
    if (after) right[nr++] = &items[k];
    else left[nl++] = &items[k];
  }
  char layout = arr->layout;
  if (layout == LAYOUT_C) {
    if (given == arr->rank) {
      for (unsigned k = 0; k < nr; k++) left[nl++] = right[k];
      nr = 0;
    }
    if (nr || !check_contiguity(left, nl)) layout = LAYOUT_A;
  } else if (layout == LAYOUT_F) {
    if (given == arr->rank) {
      for (unsigned k = 0; k < nr; k++) left[nl++] = right[k];
      for (unsigned k = 0; k < nl; k++) right[k] = left[nl - 1 - k]; /* reversed: innermost (F: first) last */
      nr = nl;
      nl = 0;
    } else {
      for (unsigned k = 0; k < nr / 2; k++) {
        const ViewItem *t = right[k];
        right[k] = right[nr - 1 - k];
        right[nr - 1 - k] = t;
      }
    }
    if (nl || !check_contiguity(right, nr)) layout = LAYOUT_A;
  }
  return ty_array(ctx, arr->elem, ndim, layout);
}

/* ---- building -------------------------------------------------------------------------------------------- */

/* A slice bound x of an axis of extent n, wrapped (x < 0: x + n) and clamped to [lo, hi] (lo, hi: values). */
static Value *clamp_bound(IrBuilder *b, Value *x, Value *n, Value *lo, Value *hi) {
  int64_t c;
  if (const_of(x, &c) && c >= 0) return ib_binary(b, OP_MINSI, x, hi);
  if (const_of(x, &c)) return ib_binary(b, OP_MAXSI, ib_binary(b, OP_ADDI, x, n), lo);
  Type *i64 = ty_i64(b->ctx);
  Value *neg = ib_cmpi(b, IR_CMPI_SLT, x, ib_const_int(b, i64, 0));
  Value *w = ib_select(b, neg, ib_binary(b, OP_ADDI, x, n), x);
  return ib_binary(b, OP_MINSI, ib_binary(b, OP_MAXSI, w, lo), hi);
}

static void raise_when(IrBuilder *b, Value *bad, const char *msg);

/* slice_bounds with a step known only at run time (it->step_v): both of Python's cases (step > 0, step < 0) selected
 * by its sign, after the check that it is not 0 (Numba's ValueError). */
static void slice_bounds_dynamic(IrBuilder *b, Value *n, const ViewItem *it, Value **origin, Value **len) {
  Type *i64 = ty_i64(b->ctx);
  Value *st = it->step_v, *zero = ib_const_int(b, i64, 0), *one = ib_const_int(b, i64, 1);
  Value *m1 = ib_const_int(b, i64, -1);
  Value *is_zero = ib_cmpi(b, IR_CMPI_EQ, st, zero);
  raise_when(b, is_zero, "slice step cannot be zero");
  Value *neg = ib_cmpi(b, IR_CMPI_SLT, st, zero);
  Value *lo = ib_select(b, neg, m1, zero), *hi = ib_select(b, neg, ib_binary(b, OP_ADDI, n, m1), n);
  Value *s = it->start ? clamp_bound(b, it->start, n, lo, hi) : ib_select(b, neg, hi, lo);
  Value *e = it->stop ? clamp_bound(b, it->stop, n, lo, hi) : ib_select(b, neg, lo, hi);
  Value *span = ib_select(b, neg, ib_binary(b, OP_SUBI, s, e), ib_binary(b, OP_SUBI, e, s));
  Value *mag = ib_select(b, neg, ib_binary(b, OP_SUBI, zero, st), st);
  mag = ib_select(b, is_zero, one, mag); /* (never divides by 0, even where the check above is not reached first) */
  Value *d = ib_binary(b, OP_MAXSI, span, zero);
  *origin = s;
  *len = ib_binary(b, OP_DIVSI, ib_binary(b, OP_ADDI, d, ib_binary(b, OP_SUBI, mag, one)), mag);
}

/* start:stop:step of an axis of extent n as Python computes it: the first index (*origin; for an empty slice it
 * may be n or -1, never used) and the number of indices (*len). */
static void slice_bounds(IrBuilder *b, Value *n, const ViewItem *it, Value **origin, Value **len) {
  if (it->step_v) {
    slice_bounds_dynamic(b, n, it, origin, len);
    return;
  }
  Type *i64 = ty_i64(b->ctx);
  int64_t step = it->step;
  Value *zero = ib_const_int(b, i64, 0), *s, *e, *d;
  if (step > 0) {
    s = it->start ? clamp_bound(b, it->start, n, zero, n) : zero;
    e = it->stop ? clamp_bound(b, it->stop, n, zero, n) : n;
    d = it->start || it->stop ? ib_binary(b, OP_MAXSI, ib_binary(b, OP_SUBI, e, s), zero) : n;
  } else {
    Value *m1 = ib_const_int(b, i64, -1), *last = ib_binary(b, OP_ADDI, n, m1);
    s = it->start ? clamp_bound(b, it->start, n, m1, last) : last;
    e = it->stop ? clamp_bound(b, it->stop, n, m1, last) : m1;
    d = ib_binary(b, OP_MAXSI, ib_binary(b, OP_SUBI, s, e), zero);
  }
  int64_t mag = step > 0 ? step : -step;
  if (mag != 1) d = ib_binary(b, OP_DIVSI, ib_binary(b, OP_ADDI, d, ib_const_int(b, i64, mag - 1)), ib_const_int(b, i64, mag));
  *origin = s;
  *len = d;
}

static Value *mem_reinterpret(IrBuilder *b, Value *arr, Value *const *ext, Value *const *stride, Type *result);

static Value *subview(IrBuilder *b, Value *arr, Value *const *origin, Value *const *ext, Value *const *step,
                      const int *dims, Type *result) {
  unsigned rb = arr->type->rank, r = result->rank;
  Value *ops[1 + 8 + 16];
  Attr da[8];
  ops[0] = arr;
  for (unsigned k = 0; k < rb; k++) ops[1 + k] = origin[k];
  for (unsigned d = 0; d < r; d++) {
    ops[1 + rb + 2 * d] = ext[d];
    ops[2 + rb + 2 * d] = step[d];
    da[d] = attr_int(ty_i64(b->ctx), dims[d]);
  }
  Op *op = ib_op(b, OP_SUBVIEW, 1 + rb + 2 * r, ops, 1, &result, 0);
  ir_op_set_attr(b->m, op, "dims", attr_array(b->m, r, da));
  return op_result(op, 0);
}

Value *view_build(IrBuilder *b, Value *arr, const ViewItem *items, unsigned n, Type *result) {
  Type *i64 = ty_i64(b->ctx);
  unsigned rb = arr->type->rank, given = 0, r = 0, pos = 0;
  for (unsigned k = 0; k < n; k++) given += items[k].kind == VI_INT || items[k].kind == VI_SLICE;
  Value *origin[8], *ext[8], *step[8], *zero = ib_const_int(b, i64, 0), *one = ib_const_int(b, i64, 1);
  int dims[8];
  /* a whole axis: a[:] */
#define WHOLE()                                 \
  do {                                          \
    origin[pos] = zero;                         \
    ext[r] = ib_dim(b, arr, pos);               \
    step[r] = one;                              \
    dims[r++] = (int)pos++;                     \
  } while (0)
  for (unsigned k = 0; k < n; k++) {
    const ViewItem *it = &items[k];
    switch (it->kind) {
    case VI_INT: origin[pos++] = it->index; break;
    case VI_SLICE:
      slice_bounds(b, ib_dim(b, arr, pos), it, &origin[pos], &ext[r]);
      step[r] = it->step_v ? it->step_v : ib_const_int(b, i64, it->step);
      dims[r++] = (int)pos++;
      break;
    case VI_NEWAXIS:
      ext[r] = one;
      step[r] = one;
      dims[r++] = -1;
      break;
    case VI_ELLIPSIS:
      for (unsigned j = given; j < rb; j++) WHOLE();
      break;
    }
  }
  while (pos < rb) WHOLE();
#undef WHOLE
  return subview(b, arr, origin, ext, step, dims, result);
}

/* ---- transposes -------------------------------------------------------------------------------------------- */

Type *view_transpose_type(IrContext *ctx, const Type *arr, bool permuted) {
  if (arr->rank <= 1 && !permuted) return (Type *)arr;
  char layout = permuted ? LAYOUT_A : arr->layout == LAYOUT_C ? LAYOUT_F : arr->layout == LAYOUT_F ? LAYOUT_C : LAYOUT_A;
  return ty_array(ctx, arr->elem, arr->rank, layout);
}

Value *view_transpose(IrBuilder *b, Value *arr, const unsigned *perm, Type *result) {
  Type *i64 = ty_i64(b->ctx);
  unsigned r = arr->type->rank;
  Value *origin[8], *ext[8], *step[8], *zero = ib_const_int(b, i64, 0), *one = ib_const_int(b, i64, 1);
  int dims[8];
  for (unsigned d = 0; d < r; d++) {
    unsigned k = perm ? perm[d] : r - 1 - d;
    origin[d] = zero;
    ext[d] = ib_dim(b, arr, k);
    step[d] = one;
    dims[d] = (int)k;
  }
  return subview(b, arr, origin, ext, step, dims, result);
}

/* ---- .real / .imag of complex arrays ---------------------------------------------------------------------- */

Value *view_complex_part(IrBuilder *b, Value *arr, bool imag, Type *result) {
  Type *i64 = ty_i64(b->ctx), *t = arr->type;
  unsigned r = t->rank;
  /* the elements as (re, im) pairs: a trailing axis of 2 floats, then that axis fixed at 0 or 1 */
  Value *ext[9], *stride[9];
  for (unsigned d = 0; d < r; d++) {
    ext[d] = ib_dim(b, arr, d);
    stride[d] = op_result(ib_op(b, OP_STRIDE, 1, &arr, 1, &i64, 0), 0);
    ir_op_set_attr(b->m, stride[d]->def, "axis", attr_int(i64, d));
  }
  ext[r] = ib_const_int(b, i64, 2);
  stride[r] = ib_const_int(b, i64, ty_size(result->elem));
  Value *pairs = mem_reinterpret(b, arr, ext, stride, ty_array(b->ctx, result->elem, r + 1, LAYOUT_A));
  Value *origin[9], *step[8], *zero = ib_const_int(b, i64, 0), *one = ib_const_int(b, i64, 1);
  int dims[8];
  for (unsigned d = 0; d < r; d++) {
    origin[d] = zero;
    step[d] = one;
    dims[d] = (int)d;
  }
  origin[r] = imag ? one : zero;
  return subview(b, pairs, origin, ext, step, dims, result);
}

/* ---- reshape, view(dtype) ---------------------------------------------------------------------------------- */

/* The thread raises ValueError(msg) when bad (i1) holds (view_value_check). */
static void raise_when(IrBuilder *b, Value *bad, const char *msg) {
  Op *c = ib_op(b, OP_RAISE, 1, &bad, 0, NULL, 0);
  char text[256];
  snprintf(text, sizeof text, "ValueError: %s", msg);
  ir_op_set_attr(b->m, c, "exception", attr_str(b->m, text));
}

void view_value_check(IrBuilder *b, Value *ok, const char *msg) {
  raise_when(b, ib_binary(b, OP_XORI, ok, ib_const_bool(b, true)), msg);
}

static void value_check(IrBuilder *b, Value *ok, const char *msg) { view_value_check(b, ok, msg); }

static Value *mem_reinterpret(IrBuilder *b, Value *arr, Value *const *ext, Value *const *stride, Type *result) {
  unsigned r = result->rank;
  Value *ops[1 + 16];
  ops[0] = arr;
  for (unsigned d = 0; d < r; d++) {
    ops[1 + d] = ext[d];
    ops[1 + r + d] = stride[d];
  }
  return op_result(ib_op(b, OP_REINTERPRET, 1 + 2 * r, ops, 1, &result, 0), 0);
}

/* Strides in bytes of a contiguous array of the given extents (layout C: the last axis innermost; F: the first). */
static void contiguous_strides(IrBuilder *b, Value *const *ext, unsigned r, char layout, int64_t esize, Value **out) {
  Value *s = ib_const_int(b, ty_i64(b->ctx), esize);
  for (unsigned k = 0; k < r; k++) {
    unsigned d = layout == LAYOUT_F ? k : r - 1 - k;
    out[d] = s;
    if (k + 1 < r) s = ib_binary(b, OP_MULI, s, ext[d]);
  }
}

Value *view_reshape(IrBuilder *b, Value *arr, Value *const *dims, unsigned n, Type *result) {
  IrContext *ctx = b->ctx;
  Type *i64 = ty_i64(ctx);
  Value *zero = ib_const_int(b, i64, 0), *one = ib_const_int(b, i64, 1);
  Value *size = op_result(ib_op(b, OP_SIZE, 1, &arr, 1, &i64, 0), 0);
  /* numba's normalize_reshape_value: one negative extent is inferred from the others */
  Value *known = one, *negs = zero, *neg[8];
  for (unsigned d = 0; d < n; d++) {
    neg[d] = ib_cmpi(b, IR_CMPI_SLT, dims[d], zero);
    known = ib_binary(b, OP_MULI, known, ib_select(b, neg[d], one, dims[d]));
    negs = ib_binary(b, OP_ADDI, negs, ib_cast(b, neg[d], i64));
  }
  Value *known_zero = ib_cmpi(b, IR_CMPI_EQ, known, zero);
  Value *divisor = ib_select(b, known_zero, one, known);
  Value *inferred = ib_select(b, known_zero, zero, ib_binary(b, OP_DIVSI, size, divisor));
  Value *exact = ib_select(b, known_zero, ib_cmpi(b, IR_CMPI_EQ, size, zero),
                           ib_cmpi(b, IR_CMPI_EQ, ib_binary(b, OP_REMSI, size, divisor), zero));
  value_check(b, ib_cmpi(b, IR_CMPI_SLE, negs, one), "multiple negative shape values");
  value_check(b, ib_select(b, ib_cmpi(b, IR_CMPI_EQ, negs, zero), ib_cmpi(b, IR_CMPI_EQ, size, known), exact),
              "total size of new array must be unchanged");
  Value *ext[8], *stride[8];
  for (unsigned d = 0; d < n; d++) ext[d] = ib_select(b, neg[d], inferred, dims[d]);
  contiguous_strides(b, ext, n, result->layout, ty_size(result->elem), stride);
  return mem_reinterpret(b, arr, ext, stride, result);
}

Value *view_dtype(IrBuilder *b, Value *arr, Type *result) {
  IrContext *ctx = b->ctx;
  Type *i64 = ty_i64(ctx), *t = arr->type;
  unsigned r = t->rank;
  int64_t old = ty_size(t->elem), nw = ty_size(result->elem);
  Value *ext[8], *stride[8];
  for (unsigned d = 0; d < r; d++) {
    ext[d] = ib_dim(b, arr, d);
    stride[d] = op_result(ib_op(b, OP_STRIDE, 1, &arr, 1, &i64, 0), 0);
    ir_op_set_attr(b->m, stride[d]->def, "axis", attr_int(i64, d));
  }
  if (old == nw) return mem_reinterpret(b, arr, ext, stride, result);
  Value *ok = ib_const_bool(b, true);
  /* numba's _change_dtype: the innermost axis (the last of C, the first of F; of A, the one whose stride is the
   * element size, the last preferred) takes the difference */
  Value *oldv = ib_const_int(b, i64, old), *newv = ib_const_int(b, i64, nw), *zero = ib_const_int(b, i64, 0);
  Value *inner_last, *inner_first;
  if (t->layout == LAYOUT_C) {
    inner_last = ib_const_bool(b, true);
    inner_first = ib_const_bool(b, false);
  } else if (t->layout == LAYOUT_F) {
    inner_last = ib_const_bool(b, false);
    inner_first = ib_const_bool(b, true);
  } else {
    inner_last = ib_cmpi(b, IR_CMPI_EQ, stride[r - 1], oldv);
    inner_first = ib_binary(b, OP_ANDI, ib_cmpi(b, IR_CMPI_EQ, stride[0], oldv),
                            ib_binary(b, OP_XORI, inner_last, ib_const_bool(b, true)));
    ok = ib_binary(b, OP_ORI, inner_last, inner_first);
  }
  for (unsigned d = 0; d < r; d++) {
    Value *here = d == r - 1 && d == 0 ? ib_binary(b, OP_ORI, inner_last, inner_first)
                  : d == r - 1         ? inner_last
                  : d == 0             ? inner_first
                                       : NULL;
    if (!here) continue;
    Value *n;
    if (nw < old) { /* (element sizes are powers of two: old is a multiple of nw) */
      n = ib_binary(b, OP_MULI, ext[d], ib_const_int(b, i64, old / nw));
    } else {
      Value *bytes = ib_binary(b, OP_MULI, ext[d], oldv);
      Value *fits = ib_cmpi(b, IR_CMPI_EQ, ib_binary(b, OP_REMSI, bytes, newv), zero);
      ok = ib_binary(b, OP_ANDI, ok, ib_select(b, here, fits, ib_const_bool(b, true)));
      n = ib_binary(b, OP_DIVSI, bytes, newv);
    }
    ext[d] = ib_select(b, here, n, ext[d]);
    stride[d] = ib_select(b, here, newv, stride[d]);
  }
  value_check(b, ok, "new type not compatible with array");
  return mem_reinterpret(b, arr, ext, stride, result);
}

Value *view_ravel(IrBuilder *b, Value *arr, Type *result) {
  Type *i64 = ty_i64(b->ctx);
  Value *size = op_result(ib_op(b, OP_SIZE, 1, &arr, 1, &i64, 0), 0);
  Value *stride = ib_const_int(b, i64, ty_size(result->elem));
  return mem_reinterpret(b, arr, &size, &stride, result);
}
