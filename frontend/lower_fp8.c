/* lower_fp8.c — numba-cuda's FP8 bindings (numba.cuda._internal.cuda_fp8, over CUDA's cuda_fp8.h) in kernels.
 *
 * Types: fp8_e4m3, fp8_e5m2, fp8_e8m0 and their x2 / x4 forms are kir storage types (ty_storage: an unsigned
 * integer of 8, 16 or 32 bits with the format in the type), as is cuda_bf16's __nv_bfloat16_raw (unnamed1405307,
 * bf16raw). They have no arithmetic, no implicit conversion and no attributes but bf16raw's .x, as numba-cuda's.
 *
 * Construction, as cuda_fp8.h's constructors (the case numba-cuda's ConcreteTemplate picks for the argument):
 * fp8_X() is 0; from float16, bfloat16, float32, float64 arith.to_fp8 with satfinite (E8M0: round ru); from an
 * integer through float32 (int16 ... uint64; E8M0: (u)int16 through float32, (u)int32 through float64, (u)int64
 * through its bfloat16 rounded to nearest, one place up where that fell short of the integer's magnitude). The x2
 * and x4 forms from float32x2 / float64x2 (float32x4 / float64x4), the first field in the low byte.
 *
 * Conversions, as cuda_fp8.h's operators: float16, bfloat16, float32, float64 by arith.from_fp8; integers as
 * cuda_fp8.h converts (uint8 / int8 from the float value, truncated and saturated, NaN 0; the wider ones through
 * __half2*_rz of the binary16 value (E8M0: __bfloat162*_rz of the bfloat16 one), lowp.c's conversions, whose NaN
 * gives INT64_MIN at 64 bits as on the H200); boolean: the value is not zero (E8M0: always true). Python's bool(),
 * int(), float() and truth tests of an FP8 value are errors, as numba-cuda has no lowering for them.
 *
 * Intrinsics: cvt_float_to_fp8, cvt_double_to_fp8, cvt_bfloat16raw_to_fp8 (-> uint8) and the x2 forms (-> uint16)
 * take a saturation_t and an fp8_interpretation_t member; the e8m0 ones a saturation_t and a cudaRoundMode
 * (cuda.bindings.runtime's, or kfront's own copy), cudaRoundZero or cudaRoundPosInf (cuda_fp8.h asserts so:
 * another constant mode is an error here; a mode chosen at run time that is not cudaRoundZero rounds up, as the
 * header after its assert); cvt_e8m0_to_bf16raw (uint8 -> bf16raw). A member chosen at run time selects between
 * the conversions of every member. */
#include <string.h>

#include "frontend/lower.h"

/* the enum classes whose members the intrinsics take, as the embedder names them (kfront.cuda.fp8, cuda.bindings) */
static const char *const SATURATION_ENUMS[] = {"kfront.cuda.fp8.saturation_t", NULL};
static const char *const INTERPRETATION_ENUMS[] = {"kfront.cuda.fp8.fp8_interpretation_t", NULL};
static const char *const ROUND_ENUMS[] = {"cuda.bindings.runtime.cudaRoundMode", "kfront.cuda.fp8.cudaRoundMode", NULL};
enum { SAT_NOSAT = 0, SAT_SATFINITE = 1, INTERP_E4M3 = 0, INTERP_E5M2 = 1, ROUND_ZERO = 1, ROUND_POSINF = 2 };

static const char *const FP8_PREFIX = "numba.cuda._internal.cuda_fp8.";

Type *fe_fp8_path_type(IrContext *ctx, const char *path) {
  static const char *const raw_paths[] = {"numba.cuda._internal.cuda_bf16.unnamed1405307",
                                          "numba.cuda._internal.cuda_bf16.__nv_bfloat16_raw"};
  for (unsigned i = 0; i < 2; i++)
    if (strcmp(path, raw_paths[i]) == 0) return ty_storage(ctx, TS_BF16RAW, 1);
  size_t n = strlen(FP8_PREFIX);
  if (strncmp(path, FP8_PREFIX, n) != 0) return NULL;
  const char *name = path + n;
  unsigned count = 1;
  if (strncmp(name, "fp8x2_", 6) == 0 || strncmp(name, "fp8x4_", 6) == 0) {
    count = name[4] - '0';
    name += 6;
  } else if (strncmp(name, "fp8_", 4) == 0) {
    name += 4;
  } else {
    return NULL;
  }
  TyStorage f = strlen(name) == 4 ? ty_fp8_format_parse(name, 4) : TS_NONE;
  return f == TS_NONE ? NULL : ty_storage(ctx, f, count);
}

void fe_storage_name(const Type *t, StrBuf *out) {
  if (t->storage == TS_BF16RAW) sb_puts(out, "unnamed1405307"); /* numba-cuda's name of __nv_bfloat16_raw */
  else sb_printf(out, "fp8%s_%s", t->bits == 8 ? "" : t->bits == 16 ? "x2" : "x4", ty_fp8_format_name((TyStorage)t->storage));
}

/* ---- the kir of the conversions ---------------------------------------------------------------------------- */

static Value *to_fp8(Lower *L, Value *x, TyStorage f, bool satfinite, bool ru, Type *rt) {
  Op *op = ib_op(&L->b, OP_TO_FP8, 1, &x, 1, &rt, 0);
  ir_op_set_attr(L->m, op, "format", attr_str(L->m, ty_fp8_format_name(f)));
  if (satfinite) ir_op_set_attr(L->m, op, "satfinite", attr_unit());
  if (f == TS_E8M0) ir_op_set_round_mode(L->m, op, ru ? IR_ROUND_RU : IR_ROUND_RZ);
  return op_result(op, 0);
}

static Value *from_fp8(Lower *L, Value *bits, TyStorage f, Type *rt) {
  Op *op = ib_op(&L->b, OP_FROM_FP8, 1, &bits, 1, &rt, 0);
  ir_op_set_attr(L->m, op, "format", attr_str(L->m, ty_fp8_format_name(f)));
  return op_result(op, 0);
}

/* E8M0 of a 64-bit integer: its bfloat16 to nearest, one place further from zero when that fell short */
static Value *e8m0_of_int64(Lower *L, Value *v, Type *rt) {
  IrBuilder *b = &L->b;
  Type *bf = ty_bf16(L->ctx), *u16 = ty_int(L->ctx, 16, true);
  bool sgn = !v->type->is_unsigned;
  Value *rn = ib_cast(b, v, bf), *back = ib_cast(b, rn, v->type), *zero = ib_const_int(b, v->type, 0);
  Value *short_of = sgn ? ib_binary(b, OP_ORI, ib_binary(b, OP_ANDI, ib_cmpi(b, IR_CMPI_SGT, v, zero), ib_cmpi(b, IR_CMPI_SLT, back, v)),
                                    ib_binary(b, OP_ANDI, ib_cmpi(b, IR_CMPI_SLT, v, zero), ib_cmpi(b, IR_CMPI_SGT, back, v)))
                        : ib_cmpi(b, IR_CMPI_ULT, back, v);
  Value *raw = ib_unary(b, OP_BITCAST, rn, u16);
  raw = ib_select(b, short_of, ib_binary(b, OP_ADDI, raw, ib_const_int(b, u16, 1)), raw);
  return to_fp8(L, ib_unary(b, OP_BITCAST, raw, bf), TS_E8M0, true, true, rt);
}

/* One FP8 value of format f from a scalar x already converted to the constructor case's type (NB_*). */
static Value *construct_one(Lower *L, Value *x, TyStorage f, Type *rt) {
  IrBuilder *b = &L->b;
  Type *t = x->type;
  if (t->kind == TY_INT) {
    if (f != TS_E8M0 || t->bits == 16) x = ib_cast(b, x, ty_f32(L->ctx));
    else if (t->bits == 32) x = ib_cast(b, x, ty_f64(L->ctx));
    else return e8m0_of_int64(L, x, rt);
  }
  return to_fp8(L, x, f, true, true, rt);
}

/* the constructor cases of cuda_fp8.py's fp8_X (after the one without arguments), in its order */
static const NbCase CTOR_CASES[] = {
    {NB_U8, 1, {NB_F16}}, {NB_U8, 1, {NB_BF16}}, {NB_U8, 1, {NB_F32}}, {NB_U8, 1, {NB_F64}}, {NB_U8, 1, {NB_U16}},
    {NB_U8, 1, {NB_U32}}, {NB_U8, 1, {NB_U64}}, {NB_U8, 1, {NB_I16}}, {NB_U8, 1, {NB_I32}}, {NB_U8, 1, {NB_I64}}};

static FeVal construct_vector(Lower *L, Type *t, const FeVal *a, const PyExpr *e) {
  unsigned n = t->bits / 8;
  const char *fname = tname(L, t);
  if (a->kind != FV_VECTOR || a->tup.n != n || !(a->type->elems[0]->kind == TY_FLOAT && a->type->elems[0]->bits >= 32))
    return lw_lerr(L, arg_loc(e, 0), "%s() takes a float32x%u or float64x%u, not %s", fname, n, n, lw_vname(L, a));
  IrBuilder *b = &L->b;
  Type *u8 = ty_int(L->ctx, 8, true), *wide = ty_int(L->ctx, t->bits, true);
  Value *acc = ib_const_int(b, wide, 0);
  for (unsigned i = 0; i < n; i++) {
    Value *byte = ib_cast(b, construct_one(L, lw_mat(L, &a->tup.elems[i]), (TyStorage)t->storage, u8), wide);
    acc = ib_binary(b, OP_ORI, acc, i ? ib_binary(b, OP_SHLI, byte, ib_const_int(b, wide, 8 * i)) : byte);
  }
  return val(t, ib_unary(b, OP_BITCAST, acc, t));
}

FeVal lw_storage_construct(Lower *L, Type *t, const PyExpr *e) {
  const char *fname = tname(L, t);
  if (t->storage == TS_BF16RAW)
    return lw_lerr(L, e->loc, "%s cannot be constructed in a kernel (numba-cuda's cuda_bf16 has no constructor for it)", fname);
  FeVal a;
  if (!lw_positional(L, e, fname, 0, 1, &a)) return poison();
  at(L, e->loc);
  if (e->call.args.n == 0) return val(t, ib_const_int(&L->b, t, 0)); /* value-initialised: 0 */
  if (t->bits > 8) return construct_vector(L, t, &a, e);
  int k = a.kind == FV_VAL && !is_enum_only(&a) ? nb_kind(a.type) : -1;
  const NbCase *c = k >= 0 ? nb_resolve(CTOR_CASES, sizeof CTOR_CASES / sizeof *CTOR_CASES, &k, 1, true) : NULL;
  if (!c)
    return lw_lerr(L, arg_loc(e, 0), "No implementation of function %s found for signature %s(%s) (numba-cuda's cases: "
                   "float16, bfloat16, float32, float64 and the integers of 16 to 64 bits)", fname, fname, lw_vname(L, &a));
  a.enumc = NULL;
  FeVal x = lw_conv(L, a, nb_type(L->ctx, c->args[0]));
  return val(t, construct_one(L, lw_mat(L, &x), (TyStorage)t->storage, t));
}

/* the index of name in lowp.c's table of module m (a conversion numba-cuda's cuda_fp16 / cuda_bf16 bind) */
static Value *lowp_conversion(Lower *L, LowpModule m, const char *name, Value *x) {
  int k = num_lowp_lookup(m, name);
  return num_lowp_emit(&L->b, k, x->type, &x);
}

FeVal lw_storage_cast(Lower *L, FeVal x, Type *to, SrcLoc loc) {
  const Type *t = x.type;
  if (t->storage == TS_BF16RAW || t->bits != 8)
    return lw_lerr(L, loc, "cannot convert %s to %s (numba-cuda converts only the single FP8 types)", tname(L, t), tname(L, to));
  TyStorage f = (TyStorage)t->storage;
  IrBuilder *b = &L->b;
  at(L, loc);
  Value *bits = lw_mat(L, &x);
  if (to->kind == TY_FLOAT) return val(to, from_fp8(L, bits, f, to));
  if (to->kind == TY_BOOL) {
    if (f == TS_E8M0) return cint(to, 1);
    Type *u8 = ty_int(L->ctx, 8, true);
    Value *mag = ib_binary(b, OP_ANDI, ib_unary(b, OP_BITCAST, bits, u8), ib_const_int(b, u8, 0x7f));
    return val(to, ib_cmpi(b, IR_CMPI_NE, mag, ib_const_int(b, u8, 0)));
  }
  if (to->kind != TY_INT || ty_is_storage(to) || ty_is_time(to))
    return lw_lerr(L, loc, "cannot convert %s to %s", tname(L, t), tname(L, to));
  if (to->bits == 8) /* operator (unsigned / signed) char: the float value truncated, saturated, NaN 0 */
    return val(to, ib_cast(b, from_fp8(L, bits, f, ty_f32(L->ctx)), to));
  /* operator (unsigned) short / int / long long: __half2*_rz (E8M0: __bfloat162*_rz) */
  static const char *const names[2][4] = {{"short", "int", "", "ll"}, {"ushort", "uint", "", "ull"}};
  const char *c = names[to->is_unsigned][to->bits / 16 - 1];
  bool e8m0 = f == TS_E8M0;
  Value *h = from_fp8(L, bits, f, e8m0 ? ty_bf16(L->ctx) : ty_float(L->ctx, 16));
  const char *name = arena_printf(&L->fe->arena, "%s2%s_rz", e8m0 ? "bfloat16" : "half", c);
  return val(to, lowp_conversion(L, e8m0 ? LOWP_BF16 : LOWP_FP16, name, h));
}

bool lw_storage_conversion_error(Lower *L, const FeVal *v, Type *t, SrcLoc loc, const char *what) {
  bool from = v->kind == FV_VAL && ty_is_storage(v->type), to = ty_is_storage(t);
  if ((!from && !to) || (v->kind == FV_VAL && v->type == t)) return false;
  if (from)
    lw_lerr(L, loc, "cannot convert %s to %s%s implicitly (numba-cuda converts FP8 values only explicitly: %s(x))",
            tname(L, v->type), tname(L, t), what, tname(L, t));
  else
    lw_lerr(L, loc, "cannot convert %s to %s%s implicitly (construct it: %s(x))", lw_vname(L, v), tname(L, t), what, tname(L, t));
  return true;
}

FeVal lw_storage_attr(Lower *L, const FeVal *v, const char *attr, SrcLoc loc) {
  if (v->type->storage == TS_BF16RAW && strcmp(attr, "x") == 0) {
    at(L, loc);
    Type *u16 = ty_int(L->ctx, 16, true);
    return val(u16, ib_unary(&L->b, OP_BITCAST, lw_mat(L, v), u16));
  }
  return lw_lerr(L, loc, "%s has no attribute '%s'%s", tname(L, v->type), attr,
                 v->type->storage == TS_BF16RAW ? " (its one field is .x, uint16)"
                 : v->type->bits > 8 ? " (numba-cuda cannot read the __x of an FP8 vector either)" : "");
}

/* ---- the cvt_* intrinsics ---------------------------------------------------------------------------------- */

/* An enum member argument of one of the classes: its value when constant (*c), else its i64 value (*v). */
static bool enum_arg(Lower *L, const FeVal *a, const char *const *classes, const char *what, const char *fname,
                     SrcLoc loc, int64_t *c, Value **v) {
  bool ok = a->kind == FV_VAL && a->enumc && a->enumc->is_int;
  for (unsigned i = 0; ok && classes[i]; i++)
    if (strcmp(a->enumc->name, classes[i]) == 0) {
      *v = a->is_const ? NULL : ib_cast(&L->b, lw_mat(L, a), ty_i64(L->ctx));
      *c = a->is_const ? a->c.i : 0;
      return true;
    }
  lw_lerr(L, loc, "%s() takes a member of %s here, not %s", fname, what, lw_vname(L, a));
  return false;
}

typedef struct Fp8Mode {
  int64_t sat, mode;  /* constants, or -1 when chosen at run time */
  Value *sat_v, *mode_v;
} Fp8Mode;

/* the conversion of one float x by a constant (sat, mode): mode an fp8_interpretation_t, or for e8m0 a cudaRoundMode */
static Value *cvt_const(Lower *L, Value *x, bool e8m0, int64_t sat, int64_t mode, Type *u8) {
  if (e8m0) return to_fp8(L, x, TS_E8M0, sat == SAT_SATFINITE, mode != ROUND_ZERO, u8);
  return to_fp8(L, x, mode == INTERP_E5M2 ? TS_E5M2 : TS_E4M3, sat == SAT_SATFINITE, false, u8);
}

/* the conversion of x by modes known at compile time or selected among at run time */
static Value *cvt_moded(Lower *L, Value *x, bool e8m0, const Fp8Mode *m, Type *u8) {
  IrBuilder *b = &L->b;
  int64_t modes[2] = {e8m0 ? ROUND_ZERO : INTERP_E4M3, e8m0 ? ROUND_POSINF : INTERP_E5M2};
  Value *by_sat[2];
  for (int s = 0; s < 2; s++) {
    if (m->sat >= 0 && m->sat != s) continue;
    Value *r = cvt_const(L, x, e8m0, s, m->mode >= 0 ? m->mode : modes[0], u8);
    if (m->mode < 0) { /* chosen at run time: the second mode when it is that one (e8m0: any but cudaRoundZero) */
      Value *second = cvt_const(L, x, e8m0, s, modes[1], u8);
      Value *is_first = ib_cmpi(b, IR_CMPI_EQ, m->mode_v, ib_const_int(b, ty_i64(L->ctx), modes[0]));
      r = ib_select(b, is_first, r, second);
    }
    by_sat[s] = r;
  }
  if (m->sat >= 0) return by_sat[m->sat];
  return ib_select(b, ib_cmpi(b, IR_CMPI_EQ, m->sat_v, ib_const_int(b, ty_i64(L->ctx), SAT_SATFINITE)), by_sat[1], by_sat[0]);
}

typedef enum { CV_DOUBLE, CV_FLOAT, CV_DOUBLE2, CV_FLOAT2, CV_BF16RAW } CvtSource;

static FeVal lower_cvt(Lower *L, const PyExpr *e, FeVal *a, const char *fname, CvtSource src, bool e8m0) {
  Fp8Mode m;
  Value *sv, *mv;
  int64_t sc, mc;
  if (!enum_arg(L, &a[1], SATURATION_ENUMS, "saturation_t", fname, arg_loc(e, 1), &sc, &sv) ||
      !enum_arg(L, &a[2], e8m0 ? ROUND_ENUMS : INTERPRETATION_ENUMS, e8m0 ? "cudaRoundMode" : "fp8_interpretation_t",
                fname, arg_loc(e, 2), &mc, &mv))
    return poison();
  m = (Fp8Mode){sv ? -1 : sc, mv ? -1 : mc, sv, mv};
  if (e8m0 && !mv && mc != ROUND_ZERO && mc != ROUND_POSINF && src != CV_BF16RAW)
    return lw_lerr(L, arg_loc(e, 2), "%s() rounds toward zero or up only: cudaRoundZero or cudaRoundPosInf (cuda_fp8.h "
                   "asserts so)", fname);
  if (e8m0 && !mv && src == CV_BF16RAW && mc != ROUND_POSINF) m.mode = ROUND_ZERO; /* the header: rz unless PosInf */
  at(L, e->loc);
  IrBuilder *b = &L->b;
  Type *u8 = ty_int(L->ctx, 8, true), *u16 = ty_int(L->ctx, 16, true);
  if (src == CV_DOUBLE2 || src == CV_FLOAT2) {
    unsigned bits = src == CV_FLOAT2 ? 32 : 64;
    if (a[0].kind != FV_VECTOR || a[0].tup.n != 2 || a[0].type->elems[0] != ty_float(L->ctx, bits))
      return lw_lerr(L, arg_loc(e, 0), "%s() takes a float%ux2, not %s", fname, bits, lw_vname(L, &a[0]));
    Value *lo = ib_cast(b, cvt_moded(L, lw_mat(L, &a[0].tup.elems[0]), e8m0, &m, u8), u16);
    Value *hi = ib_cast(b, cvt_moded(L, lw_mat(L, &a[0].tup.elems[1]), e8m0, &m, u8), u16);
    return val(u16, ib_binary(b, OP_ORI, lo, ib_binary(b, OP_SHLI, hi, ib_const_int(b, u16, 8))));
  }
  Value *x;
  if (src == CV_BF16RAW) {
    if (!(a[0].kind == FV_VAL && a[0].type->storage == TS_BF16RAW))
      return lw_lerr(L, arg_loc(e, 0), "%s() takes a __nv_bfloat16_raw (unnamed1405307), not %s", fname, lw_vname(L, &a[0]));
    x = ib_unary(b, OP_BITCAST, lw_mat(L, &a[0]), ty_bf16(L->ctx));
  } else {
    Type *ft = ty_float(L->ctx, src == CV_FLOAT ? 32 : 64);
    if (!is_scalar(&a[0]) || a[0].type->kind == TY_COMPLEX || ty_is_storage(a[0].type) || ty_is_time(a[0].type))
      return lw_lerr(L, arg_loc(e, 0), "%s() takes a %s, not %s", fname, tname(L, ft), lw_vname(L, &a[0]));
    a[0].enumc = NULL;
    FeVal c = lw_conv(L, a[0], ft);
    x = lw_mat(L, &c);
  }
  return val(u8, cvt_moded(L, x, e8m0, &m, u8));
}

FeVal lower_fp8_builtin(Lower *L, int bi, const PyExpr *e, FeVal *a) {
  const char *fname = lw_builtin(bi)->call;
  switch (bi) {
  case BI_FP8_CVT_DOUBLE_TO_FP8: return lower_cvt(L, e, a, fname, CV_DOUBLE, false);
  case BI_FP8_CVT_FLOAT_TO_FP8: return lower_cvt(L, e, a, fname, CV_FLOAT, false);
  case BI_FP8_CVT_DOUBLE2_TO_FP8X2: return lower_cvt(L, e, a, fname, CV_DOUBLE2, false);
  case BI_FP8_CVT_FLOAT2_TO_FP8X2: return lower_cvt(L, e, a, fname, CV_FLOAT2, false);
  case BI_FP8_CVT_BFLOAT16RAW_TO_FP8: return lower_cvt(L, e, a, fname, CV_BF16RAW, false);
  case BI_FP8_CVT_BFLOAT16RAW_TO_E8M0: return lower_cvt(L, e, a, fname, CV_BF16RAW, true);
  case BI_FP8_CVT_FLOAT_TO_E8M0: return lower_cvt(L, e, a, fname, CV_FLOAT, true);
  case BI_FP8_CVT_DOUBLE_TO_E8M0: return lower_cvt(L, e, a, fname, CV_DOUBLE, true);
  case BI_FP8_CVT_FLOAT2_TO_E8M0X2: return lower_cvt(L, e, a, fname, CV_FLOAT2, true);
  case BI_FP8_CVT_DOUBLE2_TO_E8M0X2: return lower_cvt(L, e, a, fname, CV_DOUBLE2, true);
  case BI_FP8_CVT_E8M0_TO_BF16RAW: {
    FeVal x = a[0];
    if (!is_scalar(&x) || !is_int_type(x.type) || ty_is_storage(x.type))
      return lw_lerr(L, arg_loc(e, 0), "%s() takes a uint8, not %s", fname, lw_vname(L, &x));
    at(L, e->loc);
    x.enumc = NULL;
    FeVal c = lw_conv(L, x, ty_int(L->ctx, 8, true));
    Type *raw = ty_storage(L->ctx, TS_BF16RAW, 1);
    Value *bf = from_fp8(L, lw_mat(L, &c), TS_E8M0, ty_bf16(L->ctx));
    return val(raw, ib_unary(&L->b, OP_BITCAST, bf, raw));
  }
  default: return lw_lerr(L, e->loc, "'%s' is not callable", fname);
  }
}
