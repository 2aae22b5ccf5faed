/* lower_math.c — math in kernels: Numba-typed builtins by case lists (math.*), frexp/ldexp/modf and cuda.fma/cbrt/
 * selp, round(x, n), NumPy's ufuncs (numeric.c's loops), cuda.fp16/bf16 (lowp.c), cuda.libdevice, min/max, cmath
 * (cmath.c's functions) and abs(). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lower.h"

/* ---- fastmath ------------------------------------------------------------------------------------------------
 *
 * numba-cuda's fastmath=True (or any non-empty set or dict of LLVM flags: numba-cuda 0.30.4 treats them all as
 * True) chooses, in the function compiled with it, libdevice's fast forms for float32 division (__nv_fast_fdividef,
 * with no division-by-zero check under debug), sin, cos, tan, exp, log, log2, log10 and pow (math.pow and **)
 * (__nv_fast_*), and tanh.approx.f32 for tanh on sm_75 and later. The choice is the function's own (a device
 * function without fastmath keeps the precise forms in a fastmath kernel, and the reverse), so it is carried by
 * the op: the unit attribute `fastmath`, which the backend reads (the simulator computes the op exactly, within
 * the fast form's documented error: docs/numeric.md). ftz, -prec-div=0, -prec-sqrt=0 follow the kernel's option
 * (backend/nvvm.c). */

/* Whether an op of float type t in the function being lowered takes numba-cuda's fast form. */
bool lw_fastmath_f32(Lower *L, const Type *t) {
  return t->kind == TY_FLOAT && t->bits == 32 && L->func_op && ir_op_attr(L->func_op, "fastmath");
}

/* v, with the op that made it marked `fastmath` where it is one of those with a fast form and lw_fastmath_f32
 * says. */
Value *lw_fastmath_op(Lower *L, Value *v) {
  OpKind k = v->def ? v->def->kind : OP__COUNT;
  bool has_fast_form = k == OP_DIVF || k == OP_SIN || k == OP_COS || k == OP_TAN || k == OP_EXP || k == OP_LOG ||
                       k == OP_LOG2 || k == OP_LOG10 || k == OP_POW || k == OP_TANH;
  if (has_fast_form && lw_fastmath_f32(L, v->type)) ir_op_set_attr(L->m, v->def, "fastmath", attr_unit());
  return v;
}

/* ---- calls: Numba-typed builtins (case lists) ---------------------------------------------------------------- */

const NbCase *lw_resolve_fn(Lower *L, int bi, const FeVal *args, unsigned n, const char *fname, SrcLoc loc) {
  int kinds[4] = {0};
  for (unsigned i = 0; i < n; i++) {
    if (!is_scalar(&args[i])) {
      lw_lerr(L, loc, "%s() does not accept %s", fname, lw_vname(L, &args[i]));
      return NULL;
    }
    kinds[i] = nb_kind(args[i].type);
  }
  const NbCase *c = sema_builtin_case(bi, kinds, n);
  if (!c) {
    StrBuf b;
    sb_init(&b);
    for (unsigned i = 0; i < n; i++) {
      if (i) sb_puts(&b, ", ");
      nb_type_name(args[i].type, &b);
    }
    lw_lerr(L, loc, "no implementation of %s() for argument types (%s)", fname, sb_cstr(&b));
    sb_free(&b);
  }
  return c;
}

FeVal lower_math(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  const LwBuiltin *b = lw_builtin(bi);
  const char *fname = b->call;
  unsigned n = b->nmax;
  const NbCase *c = lw_resolve_fn(L, bi, a, n, fname, e->loc);
  if (!c) return poison();
  at(L, e->loc);
  Type *rt = nb_type(L->ctx, c->ret);
  Type *t0 = nb_type(L->ctx, c->args[0]);
  if (bi == BI_MATH_ISNAN || bi == BI_MATH_ISINF || bi == BI_MATH_ISFINITE) {
    if (t0->kind == TY_INT) return cbool(L, bi == BI_MATH_ISFINITE);
    Value *x = conv_v(L, a[0], t0);
    return val(rt, ib_unary(&L->b, (OpKind)b->op, x, rt));
  }
  Value *x = conv_v(L, lw_conv(L, a[0], t0), rt);
  if (bi == BI_MATH_DEGREES || bi == BI_MATH_RADIANS) {
    double k = bi == BI_MATH_DEGREES ? 180.0 / M_PI : M_PI / 180.0;
    return val(rt, ib_binary(&L->b, OP_MULF, x, ib_const_float(&L->b, rt, k)));
  }
  if (n == 1) return val(rt, lw_fastmath_op(L, ib_unary(&L->b, (OpKind)b->op, x, NULL)));
  Type *t1 = nb_type(L->ctx, c->args[1]);
  if (bi == BI_MATH_POW && t1->kind == TY_INT) {
    Value *ops[2] = {x, conv_v(L, a[1], t1)};
    return val(rt, op_result(ib_op(&L->b, OP_POWI, 2, ops, 1, &rt, 0), 0));
  }
  Value *y = conv_v(L, lw_conv(L, a[1], t1), rt);
  return val(rt, lw_fastmath_op(L, ib_binary(&L->b, (OpKind)b->op, x, y)));
}

/* ---- calls: math.frexp / ldexp / modf, cuda.fma / cbrt / selp (numba-cuda's cudamath.py and cudadecl.py) ---- */

/* math.modf(x) as (x - trunc(x) with x's sign, trunc(x)); an infinite x gives (+-0.0, x), NaN (NaN, NaN). */
static FeVal modf_of(Lower *L, Value *x, Type *t) {
  IrBuilder *b = &L->b;
  Value *ip = ib_unary(b, OP_TRUNC, x, NULL);
  Value *frac = ib_binary(b, OP_SUBF, x, ip);
  Value *zero = ib_const_float(b, t, 0.0);
  if (t->bits == 16) zero = ib_unary(b, OP_TRUNCF, ib_const_float(b, ty_f32(L->ctx), 0.0), t);
  frac = ib_select(b, ib_unary(b, OP_ISINF, x, ty_bool(L->ctx)), zero, frac);
  frac = ib_binary(b, OP_COPYSIGN, frac, x);
  FeVal parts[2] = {val(t, frac), val(t, ip)};
  return lw_make_tuple(L, 2, parts);
}

FeVal lower_numeric_fn(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  const char *fname = lw_builtin(bi)->call;
  unsigned n = lw_builtin(bi)->nmax;
  if (bi == BI_SELP) {
    /* numba-cuda's Cuda_selp: the two values of one type among f64, f32, (u)int16, (u)int32, (u)int64 */
    if (!is_scalar(&a[1]) || !is_scalar(&a[2]) || a[1].type != a[2].type || a[1].type->kind == TY_BOOL ||
        (a[1].type->kind == TY_INT && a[1].type->bits < 16) || (a[1].type->kind == TY_FLOAT && a[1].type->bits < 32))
      return lw_lerr(L, e->loc, "no implementation of cuda.selp() for %s and %s (two values of one type: float64, "
                     "float32 or a 16-, 32- or 64-bit integer)", lw_vname(L, &a[1]), lw_vname(L, &a[2]));
    at(L, e->loc);
    FeVal c = lw_truth(L, a[0], arg_loc(e, 0));
    if (c.kind == FV_POISON) return c;
    Type *t = a[1].type;
    return val(t, ib_select(&L->b, lw_mat(L, &c), lw_mat(L, &a[1]), lw_mat(L, &a[2])));
  }
  const NbCase *c = lw_resolve_fn(L, bi, a, n, fname, e->loc);
  if (!c) return poison();
  at(L, e->loc);
  Type *t = nb_type(L->ctx, c->ret);
  Value *x = conv_v(L, a[0], t);
  switch (bi) {
  case BI_MATH_FREXP: {
    FeVal parts[2] = {val(t, ib_unary(&L->b, OP_FREXP_MANT, x, NULL)),
                      val(ty_i32(L->ctx), ib_unary(&L->b, OP_FREXP_EXP, x, ty_i32(L->ctx)))};
    return lw_make_tuple(L, 2, parts);
  }
  case BI_MATH_MODF: return modf_of(L, x, t);
  case BI_MATH_LDEXP: {
    Value *ops[2] = {x, conv_v(L, a[1], ty_i32(L->ctx))};
    return val(t, op_result(ib_op(&L->b, OP_LDEXP, 2, ops, 1, &t, 0), 0));
  }
  case BI_CBRT: return val(t, ib_unary(&L->b, OP_CBRT, x, NULL));
  default: { /* BI_FMA */
    Value *ops[3] = {x, conv_v(L, a[1], t), conv_v(L, a[2], t)};
    return val(t, op_result(ib_op(&L->b, OP_FMA, 3, ops, 1, &t, 0), 0));
  }
  }
}

/* round(x, ndigits) of a float (numba-cuda's cudaimpl round_to_impl: CPython's fallback double_round, in
 * float64): x scaled by 10**ndigits (as two factors beyond 22 digits, x itself when that overflows), rounded half
 * to even, scaled back; infinities and NaN are themselves. Built from selects: every branch is computed. It can
 * differ from CPython's correctly rounded round() in the last digit (round(2.675, 2) is 2.68) and in the sign of
 * a zero (numba-cuda rounds through an int64). */
FeVal lw_round_ndigits(Lower *L, const FeVal *a, const PyExpr *e) {
  const NbCase *c = lw_resolve_fn(L, BI_ROUND, a, 2, "round", e->loc);
  if (!c) return poison();
  at(L, e->loc);
  IrBuilder *b = &L->b;
  Type *f64 = ty_f64(L->ctx), *i64 = ty_i64(L->ctx), *i1 = ty_bool(L->ctx);
  Value *x = conv_v(L, a[0], f64), *n = conv_v(L, a[1], i64);
  Value *ten = ib_const_float(b, f64, 10.0), *one = ib_const_float(b, f64, 1.0), *k22 = ib_const_int(b, i64, 22);
  Value *nonneg = ib_cmpi(b, IR_CMPI_SGE, n, ib_const_int(b, i64, 0)), *big = ib_cmpi(b, IR_CMPI_SGT, n, k22);
  Value *ops[2] = {ten, ib_select(b, big, ib_binary(b, OP_SUBI, n, k22), n)};
  Value *pow_pos = op_result(ib_op(b, OP_POWI, 2, ops, 1, &f64, 0), 0);
  ops[1] = ib_binary(b, OP_SUBI, ib_const_int(b, i64, 0), n);
  Value *pow_neg = op_result(ib_op(b, OP_POWI, 2, ops, 1, &f64, 0), 0);
  Value *pow1 = ib_select(b, nonneg, pow_pos, pow_neg);
  Value *pow2 = ib_select(b, big, ib_const_float(b, f64, 1e22), one);
  Value *y = ib_select(b, nonneg, ib_binary(b, OP_MULF, ib_binary(b, OP_MULF, x, pow1), pow2), ib_binary(b, OP_DIVF, x, pow1));
  /* numba-cuda rounds to an int64 (a zero loses its sign): + 0.0 does that to the float */
  Value *z = ib_binary(b, OP_ADDF, ib_unary(b, OP_ROUND, y, NULL), ib_const_float(b, f64, 0.0));
  z = ib_select(b, nonneg, ib_binary(b, OP_DIVF, ib_binary(b, OP_DIVF, z, pow2), pow1), ib_binary(b, OP_MULF, z, pow1));
  Value *keep = ib_binary(b, OP_ORI, ib_unary(b, OP_ISINF, x, i1), ib_unary(b, OP_ISNAN, x, i1));
  keep = ib_binary(b, OP_ORI, keep, ib_binary(b, OP_ANDI, nonneg, ib_unary(b, OP_ISINF, y, i1)));
  Type *rt = nb_type(L->ctx, c->ret);
  return lw_conv(L, val(f64, ib_select(b, keep, x, z)), rt);
}

/* ---- calls: NumPy's ufuncs (numeric.c) ------------------------------------------------------------------------- */

/* An array argument of a ufunc call (an array or a view of one): its rank and element type. */
static bool ufunc_array(const FeVal *v, unsigned *rank, Type **elem) {
  if (is_array(v)) {
    *rank = v->type->rank;
    *elem = v->type->elem;
    return true;
  }
  if (v->kind == FV_VIEW) {
    *rank = v->type->rank;
    *elem = v->type->elem;
    return true;
  }
  return false;
}

static FeVal cmath_call(Lower *L, const char *name, FeVal z, const PyExpr *e);

/* A complex loop's call of a cmath.c function (NumCmath): at the ufunc call's expression. */
typedef struct UfuncCmath {
  Lower *L;
  const PyExpr *e;
} UfuncCmath;

static Value *ufunc_cmath_call(void *ctx, const char *name, Value *z) {
  UfuncCmath *c = ctx;
  FeVal r = cmath_call(c->L, name, val(z->type, z), c->e);
  return r.kind == FV_VAL ? lw_mat(c->L, &r) : NULL;
}

/* One application of a ufunc's loop (num_ufunc_emit's; a complex loop may call kfront's cmath functions). */
static bool ufunc_emit(Lower *L, int u, const NumLoop *loop, Value *const *in, Value **out, const PyExpr *e) {
  UfuncCmath c = {L, e};
  NumCmath cm = {ufunc_cmath_call, &c};
  unsigned errors = diag_errors(L->fe->diag);
  if (num_ufunc_emit(&L->b, u, loop, in, out, &cm)) return true;
  if (diag_errors(L->fe->diag) == errors)
    lw_lerr(L, e->loc, "internal error: numpy.%s has no implementation of its loop for these types", num_ufunc_name(u));
  return false;
}

/* A ufunc over arrays with its outputs given (np.add(a, b, out)): a loop nest over the first output's shape;
 * each input broadcast against it as NumPy broadcasts (axes aligned on the right; an axis of extent 1 repeats),
 * an extent that neither matches nor is 1 an IndexError (with bounds checks on); each result converted to its
 * output's type and stored. Returns the output (a tuple of them for divmod). */
static FeVal ufunc_loops(Lower *L, int u, const char *fname, const NumLoop *loop, FeVal *a, const PyExpr *e) {
  unsigned nin = loop->nin, nout = loop->nout, rank = 0, r = 0;
  Type *et = NULL;
  for (unsigned i = 0; i < nin + nout; i++)
    if (ufunc_array(&a[i], &r, &et) && r > rank) rank = r;
  for (unsigned i = nin; i < nin + nout; i++) {
    ufunc_array(&a[i], &r, &et);
    if (r != rank)
      return lw_lerr(L, arg_loc(e, i), "%s(): the output has %u dimension%s, the broadcast inputs %u", fname, r,
                     r == 1 ? "" : "s", rank);
    if (!num_can_cast_same_kind(loop->out[i - nin], nb_kind(et)))
      return lw_lerr(L, arg_loc(e, i), "%s(): the loop's %s result cannot be stored to an array of %s (casting "
                     "'same_kind')", fname, tname(L, nb_type(L->ctx, loop->out[i - nin])), tname(L, et));
  }
  if (rank > 8) return lw_lerr(L, e->loc, "%s() over more than 8 dimensions is not supported", fname);
  at(L, e->loc);
  IrBuilder *b = &L->b;
  Type *i64 = ty_i64(L->ctx);
  /* scalar inputs are converted once, outside the loops */
  Value *scalar_in[2] = {NULL, NULL};
  for (unsigned i = 0; i < nin; i++)
    if (is_scalar(&a[i])) scalar_in[i] = conv_v(L, a[i], nb_type(L->ctx, loop->in[i]));
  /* the loop nest over the first output's extents */
  const FeVal *out0 = &a[nin];
  Value *out0_arr = out0->kind == FV_VIEW ? out0->tup.elems[0].v : out0->v;
  unsigned out0_fixed = out0->kind == FV_VIEW ? out0->tup.n - 1 : 0;
  Value *zero = ib_const_int(b, i64, 0), *one = ib_const_int(b, i64, 1), *ext[8], *iv[8];
  for (unsigned k = 0; k < rank; k++) ext[k] = ib_dim(b, out0_arr, out0_fixed + k);
  IrBuilder outer = *b;
  for (unsigned k = 0; k < rank; k++) {
    Value *ops[3] = {zero, ext[k], one};
    Op *f = ib_op(b, OP_FOR, 3, ops, 0, NULL, 1);
    Block *body = ir_block_new(L->m);
    ir_region_append_block(&f->regions[0], body);
    iv[k] = ir_block_add_arg(L->m, body, i64);
    ib_set_end(b, body);
    ib_set_before(b, ib_op(b, OP_YIELD, 0, NULL, 0, NULL, 0));
  }
  bool checks = L->fe->opts->compile->bounds_check != 0;
  Value *in[2], *res[2];
  for (unsigned i = 0; i < nin; i++) {
    if (scalar_in[i]) {
      in[i] = scalar_in[i];
      continue;
    }
    ufunc_array(&a[i], &r, &et);
    Value *arr = a[i].kind == FV_VIEW ? a[i].tup.elems[0].v : a[i].v;
    unsigned fixed = a[i].kind == FV_VIEW ? a[i].tup.n - 1 : 0;
    FeVal ix[8];
    for (unsigned j = 0; j < r; j++) {
      unsigned k = rank - r + j;
      Value *d = ib_dim(b, arr, fixed + j);
      Value *unit = ib_cmpi(b, IR_CMPI_EQ, d, one);
      if (checks) {
        /* an extent that is neither the output's nor 1 does not broadcast: d - 1 < the output's extent fails */
        Value *ops[2] = {ib_select(b, unit, zero, ib_binary(b, OP_SUBI, d, one)), ext[k]};
        Op *c = ib_op(b, OP_BOUNDS, 2, ops, 0, NULL, 0);
        ir_op_set_attr(L->m, c, "axis", attr_int(i64, fixed + j));
      }
      ix[j] = val(i64, ib_select(b, unit, zero, iv[k]));
      ix[j].nonneg = true;
    }
    Value *base, *idx[33];
    FeVal el = lw_index_array(L, &a[i], ix, r, e->loc, false, &base, idx);
    if (el.kind != FV_VAL) return el;
    FeVal x = lw_load_element(L, base, idx);
    in[i] = conv_v(L, x, nb_type(L->ctx, loop->in[i]));
  }
  if (!ufunc_emit(L, u, loop, in, res, e)) {
    *b = outer;
    return poison();
  }
  for (unsigned o = 0; o < nout; o++) {
    FeVal ix[8];
    for (unsigned k = 0; k < rank; k++) {
      ix[k] = val(i64, iv[k]);
      ix[k].nonneg = true;
    }
    Value *base, *idx[33];
    FeVal el = lw_index_array(L, &a[nin + o], ix, rank, e->loc, true, &base, idx);
    if (el.kind != FV_VAL) return el;
    lw_store_element(L, base, idx, conv_v(L, val(nb_type(L->ctx, loop->out[o]), res[o]), base->type->elem));
  }
  *b = outer;
  if (nout == 1) return a[nin];
  return lw_make_tuple(L, nout, &a[nin]);
}

/* cuda.fp16.hadd(a, b), cuda.bf16.float2bfloat16_rz(x), ...: the arguments converted to the intrinsic's types
 * (numba-cuda's bindings are ConcreteTemplates of __half / __nv_bfloat16 and C's integer and float types). */
FeVal lower_lowp(Lower *L, bool bf16, int k, const PyExpr *e) {
  const char *fname = arena_printf(&L->fe->arena, "cuda.%s.%s", bf16 ? "bf16" : "fp16", num_lowp_name(k));
  unsigned n = num_lowp_nargs(k);
  FeVal a[3];
  if (!lw_positional(L, e, fname, n, n, a)) return poison();
  Type *h = bf16 ? ty_bf16(L->ctx) : ty_float(L->ctx, 16), *t = num_lowp_arg_type(L->ctx, k, h);
  for (unsigned i = 0; i < n; i++) {
    if (a[i].kind == FV_POISON) return a[i];
    if (!is_scalar(&a[i]) || a[i].type->kind == TY_BOOL)
      return lw_lerr(L, arg_loc(e, i), "%s() needs %s arguments, not %s", fname, tname(L, t), lw_vname(L, &a[i]));
  }
  at(L, e->loc);
  Value *in[3];
  for (unsigned i = 0; i < n; i++) in[i] = conv_v(L, a[i], t);
  Value *r = num_lowp_emit(&L->b, k, h, in);
  return val(r->type, r);
}

/* cuda.libdevice.NAME(args): numba-cuda's ConcreteTemplate of the function (the arguments that are no pointers,
 * converted to its types); the return value followed by what it stores through its pointers, a tuple when more
 * than one. Each result is a math.libdevice op (a call of __nv_NAME on the GPU). */
FeVal lower_libdevice(Lower *L, int k, const PyExpr *e) {
  const LibdeviceFn *f = ir_libdevice_at(k);
  const char *fname = arena_printf(&L->fe->arena, "cuda.libdevice.%s", f->name);
  if (ir_libdevice_kind(f) == LD_UNSUPPORTED)
    return lw_lerr(L, e->loc, "%s() is not supported: %s", fname, ir_libdevice_why(f));
  LdShape sh;
  ir_libdevice_shape(f, &sh);
  FeVal a[LD_MAX_ARGS];
  if (!lw_positional(L, e, fname, sh.nargs, sh.nargs, a)) return poison();
  for (unsigned i = 0; i < sh.nargs; i++) {
    if (a[i].kind == FV_POISON) return a[i];
    if (!is_scalar(&a[i]) || ty_is_bf16(a[i].type))
      return lw_lerr(L, arg_loc(e, i), "%s() needs %s arguments, not %s", fname, ir_libdevice_type_name(sh.args[i]),
                     lw_vname(L, &a[i]));
  }
  at(L, e->loc);
  Value *in[LD_MAX_ARGS];
  for (unsigned i = 0; i < sh.nargs; i++) in[i] = conv_v(L, a[i], ir_libdevice_type(L->ctx, sh.args[i]));
  FeVal parts[LD_MAX_RESULTS];
  const char *cname = arena_printf(&L->fe->arena, "__nv_%s", f->name);
  for (unsigned p = 0; p < sh.nresults; p++) {
    Type *rt = ir_libdevice_type(L->ctx, sh.results[p]);
    Op *op = ib_op(&L->b, OP_LIBDEVICE, sh.nargs, in, 1, &rt, 0);
    ir_op_set_attr(L->m, op, "name", attr_str(L->m, cname));
    if (p) ir_op_set_attr(L->m, op, "part", attr_int(ty_i64(L->ctx), p));
    parts[p] = val(rt, op_result(op, 0));
  }
  return sh.nresults == 1 ? parts[0] : lw_make_tuple(L, sh.nresults, parts);
}

FeVal lower_ufunc(Lower *L, int u, const PyExpr *e) {
  const char *fname = arena_printf(&L->fe->arena, "numpy.%s", num_ufunc_name(u));
  unsigned nin = num_ufunc_nin(u), nout = num_ufunc_nout(u);
  if (!num_ufunc_supported(u)) return lw_lerr(L, e->loc, "%s() is not supported in kernels", fname);
  FeVal a[4];
  if (!lw_positional(L, e, fname, nin, nin + nout, a)) return poison();
  bool arrays = false, outs = a[nin].kind != FV_UNDEF;
  unsigned r = 0;
  Type *et = NULL;
  for (unsigned i = nin; i < nin + nout; i++) {
    if (outs && a[i].kind == FV_POISON) return a[i];
    if (outs && !ufunc_array(&a[i], &r, &et))
      return lw_lerr(L, arg_loc(e, i), "%s(): the output must be an array (%u output%s), not %s", fname, nout,
                     nout == 1 ? "" : "s", a[i].kind == FV_UNDEF ? "missing" : lw_vname(L, &a[i]));
  }
  int kinds[2];
  for (unsigned i = 0; i < nin; i++) {
    if (a[i].kind == FV_POISON) return a[i];
    if ((is_time(&a[i]) || (ufunc_array(&a[i], &r, &et) && ty_is_time(et))))
      return lw_lerr(L, arg_loc(e, i), "no implementation of %s() for %s (numba-cuda's CUDA target fails to compile "
                     "the ufuncs of datetime64 and timedelta64)", fname, lw_vname(L, &a[i]));
    if (ufunc_array(&a[i], &r, &et)) {
      arrays = true;
      kinds[i] = nb_kind(et);
    } else if (is_scalar(&a[i])) {
      kinds[i] = nb_kind(a[i].type);
    } else {
      return lw_lerr(L, arg_loc(e, i), "%s() does not accept %s", fname, lw_vname(L, &a[i]));
    }
  }
  if (arrays && !outs)
    return lw_lerr(L, e->loc, "%s() of arrays needs its output array (%s(x, out)): kernels cannot allocate arrays", fname,
                   fname);
  NumLoop loop;
  if (!num_ufunc_loop(u, kinds, nin, &loop)) {
    StrBuf b;
    sb_init(&b);
    for (unsigned i = 0; i < nin; i++) {
      if (i) sb_puts(&b, ", ");
      nb_type_name(a[i].type, &b);
    }
    FeVal r = lw_lerr(L, e->loc, "no implementation of %s() for argument types (%s)", fname, sb_cstr(&b));
    sb_free(&b);
    return r;
  }
  if (outs) return ufunc_loops(L, u, fname, &loop, a, e);
  at(L, e->loc);
  Value *in[2], *out[2];
  for (unsigned i = 0; i < nin; i++) in[i] = conv_v(L, a[i], nb_type(L->ctx, loop.in[i]));
  if (!ufunc_emit(L, u, &loop, in, out, e)) return poison();
  if (nout == 1) return val(nb_type(L->ctx, loop.out[0]), out[0]);
  FeVal parts[2];
  for (unsigned i = 0; i < nout; i++) parts[i] = val(nb_type(L->ctx, loop.out[i]), out[i]);
  return lw_make_tuple(L, nout, parts);
}

/* max(a, b) / min(a, b) of two float32 or float64 values: numba-cuda's cudaimpl lowers exactly these (not three
 * values, a tuple, float16, or a float beside an integer, which take Python's algorithm below) to libdevice's
 * fmaxf / fmin ... (PTX max.f32 / min.f64): a NaN operand gives the other one, -0 orders below +0. Its simulator
 * runs Python's max instead (max(nan, 1.0) is nan there, 1.0 on its GPU): kfront follows the GPU. */
static bool libdevice_minmax(const FeVal *items, unsigned n) {
  if (n != 2) return false;
  for (unsigned i = 0; i < 2; i++)
    if (items[i].type->kind != TY_FLOAT || (items[i].type->bits != 32 && items[i].type->bits != 64)) return false;
  return true;
}

static FeVal emit_libdevice_minmax(Lower *L, bool is_max, FeVal x, FeVal y, Type *u) {
  bool f32 = u->bits == 32;
  const char *name = is_max ? (f32 ? "__nv_fmaxf" : "__nv_fmax") : (f32 ? "__nv_fminf" : "__nv_fmin");
  Value *in[2] = {lw_mat(L, &x), lw_mat(L, &y)};
  Op *op = ib_op(&L->b, OP_LIBDEVICE, 2, in, 1, &u, 0);
  ir_op_set_attr(L->m, op, "name", attr_str(L->m, name));
  return val(u, op_result(op, 0));
}

FeVal lower_minmax(Lower *L, int bi, const PyExpr *e, FeVal *unbound) {
  (void)unbound;
  bool is_max = bi == BI_MAX;
  FeVal args[16];
  const char *fname = lw_builtin(bi)->call;
  unsigned n = e->call.args.n;
  if (n > 16) return lw_lerr(L, e->loc, "%s() with more than 16 arguments is not supported", fname);
  if (!lw_positional(L, e, fname, 1, n ? n : 1, args)) return poison();
  FeVal *items = args;
  if (n == 1) {
    if (args[0].kind != FV_TUPLE) return lw_lerr(L, e->loc, "%s() of a single %s is not supported", fname, lw_vname(L, &args[0]));
    items = args[0].tup.elems;
    n = args[0].tup.n;
    if (n == 0) return lw_lerr(L, e->loc, "%s() argument is an empty tuple", fname);
  }
  Type *u = NULL;
  for (unsigned i = 0; i < n; i++)
    if (is_time(&items[i])) return lw_time_minmax(L, is_max, items, n, e->loc);
  for (unsigned i = 0; i < n; i++) {
    if (!is_scalar(&items[i])) return lw_lerr(L, e->loc, "%s() does not accept %s", fname, lw_vname(L, &items[i]));
    u = u ? nb_unify(L->ctx, u, items[i].type) : items[i].type;
  }
  at(L, e->loc);
  if (n == e->call.args.n && libdevice_minmax(items, n))
    return emit_libdevice_minmax(L, is_max, lw_conv(L, items[0], u), lw_conv(L, items[1], u), u);
  FeVal r = lw_conv(L, items[0], u);
  for (unsigned i = 1; i < n; i++) {
    FeVal x = lw_conv(L, items[i], u);
    bool nonneg = is_max ? (r.nonneg || x.nonneg) : (r.nonneg && x.nonneg);
    if (r.is_const && x.is_const && u->kind == TY_INT) {
      bool lt = u->is_unsigned ? (uint64_t)x.c.i < (uint64_t)r.c.i : x.c.i < r.c.i;
      if (is_max ? (!lt && x.c.i != r.c.i) : lt) r = x;
      continue;
    }
    OpKind k;
    if (u->kind == TY_FLOAT) k = is_max ? OP_MAXF : OP_MINF;
    else if (u->kind == TY_BOOL) k = is_max ? OP_ORI : OP_ANDI;
    else if (u->is_unsigned) k = is_max ? OP_MAXUI : OP_MINUI;
    else k = is_max ? OP_MAXSI : OP_MINSI;
    r = val(u, ib_binary(&L->b, k, lw_mat(L, &r), lw_mat(L, &x)));
    r.nonneg = nonneg && u->kind == TY_INT;
  }
  return r;
}

/* ---- calls: cmath (numba-cuda's cmathdecl.py and cmathimpl.py) ----------------------------------------------
 * acos, asin, asinh, atan, atanh, cos, exp, sin, sqrt, tan, log (one or two arguments), isnan, isinf, isfinite are
 * typed on complex64 / complex128 (a real argument converts); acosh, cosh, sinh, tanh, log10, phase and polar are
 * numba-cuda overloads that take a complex argument only, rect two floats. The predicates, phase and polar are
 * built here; the rest are the Python of cmath.c, compiled as device functions, their result converted to the
 * argument's type as numba-cuda returns it. */

FeVal lower_cmath(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  const char *fname = lw_builtin(bi)->call, *name = fname + strlen("cmath.");
  if (bi == BI_CMATH_RECT) {
    for (unsigned i = 0; i < 2; i++)
      if (!is_scalar(&a[i]) || a[i].type->kind != TY_FLOAT)
        return lw_lerr(L, arg_loc(e, i), "%s() takes two floats, not %s", fname, lw_vname(L, &a[i]));
    at(L, e->loc);
    return lw_instantiate_and_call(L, fe_cmath_function(L->fe, "rect"), e, a, 2);
  }
  bool overload = bi == BI_CMATH_ACOSH || bi == BI_CMATH_COSH || bi == BI_CMATH_SINH || bi == BI_CMATH_TANH ||
                  bi == BI_CMATH_LOG10 || bi == BI_CMATH_PHASE || bi == BI_CMATH_POLAR;
  unsigned n = bi == BI_CMATH_LOG && a[1].kind != FV_UNDEF ? 2 : 1;
  for (unsigned i = 0; i < n; i++)
    if (!is_scalar(&a[i]) || (overload && !is_complex(&a[i])))
      return lw_lerr(L, arg_loc(e, i), "%s() takes %s, not %s", fname, overload ? "a complex number" : "a number",
                     lw_vname(L, &a[i]));
  Type *t = a[0].type;
  if (!overload) {
    static const NbCase cases1[] = {{NB_C64, 1, {NB_C64}}, {NB_C128, 1, {NB_C128}}};
    static const NbCase cases2[] = {{NB_C64, 2, {NB_C64, NB_C64}}, {NB_C128, 2, {NB_C128, NB_C128}}};
    int kinds[2] = {nb_kind(a[0].type), n == 2 ? nb_kind(a[1].type) : -1};
    const NbCase *c = nb_resolve(n == 2 ? cases2 : cases1, 2, kinds, n, true);
    if (!c) return lw_lerr(L, e->loc, "%s() does not take %s", fname, lw_vname(L, &a[0]));
    t = nb_type(L->ctx, c->ret);
  }
  at(L, e->loc);
  for (unsigned i = 0; i < n; i++) a[i] = lw_conv(L, a[i], t);
  Value *z = lw_mat(L, &a[0]), *re = complex_part(L, z, false), *im = complex_part(L, z, true);
  Type *b1 = ty_bool(L->ctx);
  switch (bi) {
  case BI_CMATH_ISNAN: return val(b1, ib_cmpf(&L->b, IR_CMPF_UNO, re, im));
  case BI_CMATH_ISINF:
  case BI_CMATH_ISFINITE: {
    OpKind k = bi == BI_CMATH_ISINF ? OP_ISINF : OP_ISFINITE;
    Value *x = ib_unary(&L->b, k, re, b1), *y = ib_unary(&L->b, k, im, b1);
    return val(b1, ib_binary(&L->b, bi == BI_CMATH_ISINF ? OP_ORI : OP_ANDI, x, y));
  }
  case BI_CMATH_PHASE: return val(t->elem, ib_binary(&L->b, OP_ATAN2, im, re));
  case BI_CMATH_POLAR: {
    FeVal parts[2] = {val(t->elem, ib_binary(&L->b, OP_HYPOT, re, im)), val(t->elem, ib_binary(&L->b, OP_ATAN2, im, re))};
    return lw_make_tuple(L, 2, parts);
  }
  default: break;
  }
  if (n == 2) {
    FeVal r = lw_instantiate_and_call(L, fe_cmath_function(L->fe, "log_base"), e, a, 2);
    if (r.kind == FV_POISON) return r;
    at(L, e->loc);
    return lw_conv(L, r, t);
  }
  return cmath_call(L, name, a[0], e);
}

/* cmath.<name>(z) of a complex z, from kfront's cmath source, its result converted to z's type (as numba-cuda's
 * compile_internal returns it). */
static FeVal cmath_call(Lower *L, const char *name, FeVal z, const PyExpr *e) {
  Type *t = z.type;
  FeVal a[2] = {z};
  unsigned np = 1;
  if (strcmp(name, "sqrt") == 0) /* its overflow threshold, numba-cuda's FLT_MAX or DBL_MAX / (1 + sqrt(2)) */
    a[np++] = cfloat(t->elem, t->elem->bits == 32 ? (double)(float)1.4094955303793193e+38 : 7.446288774449766e+307);
  FeFunc *f = fe_cmath_function(L->fe, name);
  if (!f) return lw_lerr(L, e->loc, "internal error: no cmath source for cmath.%s", name);
  FeVal r = lw_instantiate_and_call(L, f, e, a, np);
  if (r.kind == FV_POISON) return r;
  at(L, e->loc);
  return lw_conv(L, r, t);
}

/* abs(x) (and cuda_fp16's operator.abs), by Numba's case list of abs. */
FeVal lw_abs_of(Lower *L, FeVal a, const char *fname, SrcLoc loc) {
  if (is_time(&a)) return lw_time_abs(L, a, loc);
  const NbCase *c = lw_resolve_fn(L, BI_ABS, &a, 1, fname, loc);
  if (!c) return poison();
  at(L, loc);
  Type *t = nb_type(L->ctx, c->args[0]);
  FeVal x = lw_conv(L, a, t);
  if (t->kind == TY_COMPLEX)
    return val(t->elem, op_result(ib_op(&L->b, OP_COMPLEX_ABS, 1, (Value *[]){lw_mat(L, &x)}, 1, &t->elem, 0), 0));
  if (t->kind == TY_INT && t->is_unsigned) return x;
  if (x.is_const && t->kind == TY_INT) return cint(t, x.c.i < 0 ? (int64_t)(0 - (uint64_t)x.c.i) : x.c.i);
  if (x.is_const && t->kind == TY_FLOAT && t->bits > 16) return cfloat(t, fabs(x.c.f));
  FeVal r = val(t, ib_unary(&L->b, t->kind == TY_FLOAT ? OP_FABS : OP_ABSI, lw_mat(L, &x), NULL));
  r.nonneg = t->kind == TY_INT;
  return r;
}
