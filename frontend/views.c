/* views.c — array views in the frontend: Numba's typing of basic indexing (which axes a[...] keeps and the
 * layout of the result, as numba's get_array_index_type decides it), Python's slice arithmetic (bounds
 * wrapped and clamped, the length of a stepped slice) and the mem.subview that makes the view; transposes.
 *
 * lower.c lowers the index expressions (and checks the integer ones against their axis: view_type says
 * which); this file turns them into the view. Views are arrays like any other kir value: indexing one is
 * checked against the view's own extents, and canonicalize folds mem.dim of a view to the extent computed
 * here, so a loop bounded by it proves the checks in its body. */
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
  Value *neg = ib_cmpi(b, "slt", x, ib_const_int(b, i64, 0));
  Value *w = ib_select(b, neg, ib_binary(b, OP_ADDI, x, n), x);
  return ib_binary(b, OP_MINSI, ib_binary(b, OP_MAXSI, w, lo), hi);
}

/* start:stop:step of an axis of extent n as Python computes it: the first index (*origin; for an empty slice it
 * may be n or -1, never used) and the number of indices (*len). */
static void slice_bounds(IrBuilder *b, Value *n, const ViewItem *it, Value **origin, Value **len) {
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
      step[r] = ib_const_int(b, i64, it->step);
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
