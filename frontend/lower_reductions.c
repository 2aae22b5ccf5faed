/* lower_reductions.c — the calls of NumPy's whole-array reductions (np.sum, a.mean(), ...): typed here, computed
 * by the kernel-language functions of reductions.c, called as device functions. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lower.h"

/* ---- NumPy's whole-array reductions (numba-cuda's np/arraymath.py; the loops are reductions.c's source) ----------
 * np.sum, np.prod (of integers and booleans: int64, of unsigned integers: uint64, as NumPy's default accumulator),
 * np.min/amin and np.max/amax (ValueError on an empty array; a NaN is the answer), np.all, np.any, np.mean (the
 * sum in float64 for integers and booleans, else in the dtype, divided in float64: a float32 array's mean is
 * float64, as numba-cuda's overload returns it), np.var and np.std (float64), np.count_nonzero (int64), np.nansum
 * and np.nanprod (int64 for integers), np.nanmin/np.nanmax (ValueError on an empty array), np.nanmean, np.nanvar,
 * np.nanstd (float64, complex128 for nanmean of complex; NaN when no element counts), and the array methods sum,
 * prod, min, max, all, any, mean, var, std. Whole arrays only: an axis (or any other argument) is refused, as are
 * min/max/nanmin/nanmax of complex. `nargs` is how many of the call's positional arguments are the array (1 for
 * np.NAME(a), 0 for a.NAME()). */
static FeVal reduction_call(Lower *L, const char *name, FeVal *args, unsigned n, const PyExpr *e) {
  FeFunc *f = fe_reduce_function(L->fe, name, args[0].type->rank);
  if (!f) return lw_lerr(L, e->loc, "internal error: no reduction source for %s", name);
  FeVal r = lw_instantiate_and_call(L, f, e, args, n);
  if (r.kind != FV_POISON) at(L, e->loc);
  return r;
}

bool lw_is_zero_d_view(const FeVal *v) {
  return v->kind == FV_VIEW && v->type && v->type->kind == TY_ARRAY && v->type->rank == 0 && v->tup.n >= 1 &&
         v->tup.elems[0].v && v->tup.n - 1 == v->tup.elems[0].v->type->rank;
}

FeVal lw_zero_d_as_array_of_one(Lower *L, const FeVal *view) {
  const FeVal *base = &view->tup.elems[0];
  Value **idx = ARENA_ARRAY(&L->fe->arena, Value *, view->tup.n);
  for (unsigned j = 1; j < view->tup.n; j++) idx[j - 1] = lw_mat(L, &view->tup.elems[j]);
  FeVal x = lw_load_element(L, base->v, idx);
  Type *t = ty_array(L->ctx, view->type->elem, 1, LAYOUT_C);
  Attr one = attr_int(ty_i64(L->ctx), 1);
  Op *alloca = ir_op_create(L->m, OP_ALLOCA, L->b.loc, 0, NULL, 1, &t, 0); /* at the entry, as lw_local_array's */
  ir_op_set_attr(L->m, alloca, "shape", attr_array(L->m, 1, &one));
  ir_block_prepend(ir_func_entry(L->func_op), alloca);
  Value *zero = ib_const_int(&L->b, ty_i64(L->ctx), 0);
  lw_store_element(L, op_result(alloca, 0), &zero, lw_mat(L, &x));
  return val(t, op_result(alloca, 0));
}

FeVal lower_reduction(Lower *L, const char *name, const char *fname, FeVal arr, const PyExpr *e, unsigned nargs) {
  for (unsigned k = 0; k < e->call.nkeywords; k++) {
    const PyKeyword *kw = e->call.keywords[k];
    if (kw->arg && strcmp(kw->arg, "axis") == 0)
      return lw_lerr(L, kw->loc, "%s(): the axis argument is not supported by kfront (whole-array reductions only)", fname);
    return lw_lerr(L, kw->loc, "%s() takes no keyword arguments in kfront", fname);
  }
  if (e->call.args.n > nargs)
    return lw_lerr(L, arg_loc(e, nargs), "%s(): the axis argument is not supported by kfront (whole-array reductions only)",
                   fname);
  if (lw_is_zero_d_view(&arr)) {
    at(L, e->loc);
    arr = lw_zero_d_as_array_of_one(L, &arr);
  } else if (arr.kind == FV_VIEW) { /* a[i] of an array of higher rank */
    arr = lw_view_value(L, &arr);
  }
  if (arr.kind != FV_VAL || arr.type->kind != TY_ARRAY)
    return lw_lerr(L, nargs ? arg_loc(e, 0) : e->loc, "%s() of %s is not supported by kfront (an array only)", fname,
                   lw_vname(L, &arr));
  Type *et = arr.type->elem, *i64 = ty_i64(L->ctx), *f64 = ty_f64(L->ctx);
  bool nan = strncmp(name, "nan", 3) == 0;
  const char *base = nan ? name + 3 : name; /* nanmin -> min */
  bool minmax = strcmp(base, "min") == 0 || strcmp(base, "max") == 0;
  bool number = et->kind == TY_INT || et->kind == TY_BOOL || (et->kind == TY_FLOAT && et->bits >= 32) ||
                (et->kind == TY_COMPLEX && !minmax);
  if (!number)
    return lw_lerr(L, nargs ? arg_loc(e, 0) : e->loc, "%s() of an array of %s is not supported by kfront", fname,
                   tname(L, et));
  bool exact = et->kind == TY_INT || et->kind == TY_BOOL;
  at(L, e->loc);
  FeVal a[3] = {arr};
  if (minmax) { /* the first element starts it */
    Value *size = op_result(ib_op(&L->b, OP_SIZE, 1, (Value *const *)&arr.v, 1, &i64, 0), 0);
    view_value_check(&L->b, ib_cmpi(&L->b, IR_CMPI_NE, size, ib_const_int(&L->b, i64, 0)),
                     nan ? "zero-size array to reduction operation not possible"
                     : base[1] == 'i' ? "zero-size array to reduction operation minimum which has no identity"
                                      : "zero-size array to reduction operation maximum which has no identity");
    Value *idx[8];
    for (unsigned d = 0; d < arr.type->rank; d++) idx[d] = ib_const_int(&L->b, i64, 0);
    a[1] = lw_load_element(L, arr.v, idx);
    FeVal r = reduction_call(L, name, a, 2, e);
    return r.kind == FV_POISON ? r : lw_conv(L, r, et);
  }
  if (strcmp(name, "all") == 0 || strcmp(name, "any") == 0) {
    FeVal r = reduction_call(L, name, a, 1, e);
    return r.kind == FV_POISON ? r : lw_conv(L, r, ty_bool(L->ctx));
  }
  if (strcmp(name, "sum") == 0 || strcmp(name, "prod") == 0 || strcmp(name, "count_nonzero") == 0) {
    Type *t = et; /* numba's result type, the accumulator's */
    if (exact) t = et->kind == TY_INT && et->is_unsigned ? ty_int(L->ctx, 64, true) : i64;
    if (name[0] == 'c') t = i64;
    a[1] = lw_conv(L, cint(i64, name[0] == 'p'), t);
    FeVal r = reduction_call(L, name, a, 2, e);
    return r.kind == FV_POISON ? r : lw_conv(L, r, t);
  }
  if (strcmp(name, "nansum") == 0 || strcmp(name, "nanprod") == 0) {
    /* integers and booleans: numba's intp result. Of uint64 elements numba-cuda 0.30.4 computes on the H200 the
     * 64-bit wrapping sum (product) and returns its bits as int64 (test_reductions_vs_numba.py): accumulated in
     * uint64 here, then converted */
    Type *t = et->kind == TY_INT && et->is_unsigned && et->bits == 64 ? et : exact ? i64 : et;
    a[1] = lw_conv(L, cint(i64, name[3] == 'p'), t);
    FeVal r = reduction_call(L, name, a, 2, e);
    return r.kind == FV_POISON || !exact ? r : lw_conv(L, r, i64);
  }
  /* mean, nanmean and the variances: the mean accumulates in float64 for integers (numba's nanmean always starts
   * from 0.0, so complex in complex128) */
  Type *acc = exact ? f64 : et;
  if (nan) acc = et->kind == TY_COMPLEX ? ty_complex(L->ctx, f64) : f64;
  a[1] = lw_conv(L, cint(i64, 0), acc);
  FeVal m = reduction_call(L, nan ? "nanmean" : "mean", a, 2, e);
  if (m.kind == FV_POISON || strcmp(base, "mean") == 0) return m;
  a[1] = m;
  a[2] = cfloat(f64, 0.0);
  return reduction_call(L, name, a, 3, e);
}
