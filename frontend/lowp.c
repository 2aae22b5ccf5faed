/* lowp.c — numba-cuda's low-precision intrinsics: cuda.fp16 (float16) and cuda.bf16 (bfloat16).
 *
 * One table for both modules (numba/cuda/fp16.py and bf16.py, which bind cuda_fp16.h's and cuda_bf16.h's
 * functions): arithmetic (hadd, hadd_rn, hadd_sat, hfma, hfma_relu, ...), comparisons (heq ... and the unordered
 * hequ ...), hmax/hmin, the math functions (hsin, hexp, hsqrt, ...) and the conversions with their rounding modes
 * (float2bfloat16_rz, int2half_rd, bfloat162int_ru, ...) and bit casts (bfloat16_as_short, ...). The generic entries
 * work on the module's type (f16 or bf16); a conversion names its other type. Each is built from kir ops, whose
 * semantics ir/op_semantics.h defines once: arithmetic computes in f32 and rounds once (math.fma of bf16 rounds the
 * exact result once), a conversion to the narrow type is arith.truncf / sitofp / uitofp with attr round, one from it
 * math.round / trunc / floor / ceil then the saturating arith.fptosi / fptoui (NaN gives 0: PTX's cvt.rni.sat ...).
 *
 * Names: numba.cuda.fp16 spells them with and without __ (__hadd and hadd); numba.cuda.bf16 without (hadd,
 * float2bfloat16_rn) and with its NumPy-style aliases (float32_to_bfloat16_rn, bfloat16_to_int32_rz, ...);
 * numba.cuda._internal.cuda_bf16 as cuda_bf16.h does (__hadd, htrunc). The GPU's approximate instructions
 * (hexp, hsqrt, hrcp, hrsqrt, htanh ... use ex2.approx, sqrt.approx, rcp.approx, tanh.approx) may differ from the
 * correctly rounded f32 result kfront rounds, in the last place of the narrow type (docs/numeric.md). */
#include <string.h>

#include "frontend/fe.h"
#include "ir/op_semantics.h"

typedef enum {
  H_BINARY,   /* h x h -> h: LowpFn.op */
  H_BINARY_RN, /* h x h -> h: LowpFn.op marked nocontract (never fused into an fma: passes/contract.c) */
  H_UNARY,    /* h -> h: LowpFn.op */
  H_CMP,      /* h x h -> bool: LowpFn.pred (a cmpf predicate) */
  H_CMP_UEQ,  /* h x h -> bool: unordered or equal */
  H_FMA, H_NEG, H_RCP, H_RSQRT, H_EXP10, H_MAX, H_MIN, H_MAX_NAN, H_MIN_NAN, H_ISNAN, H_ISINF,
  H_SAT,      /* LowpFn.op (addf, subf, mulf, fma) clamped to [+0, 1], NaN giving +0 (PTX's .sat) */
  H_RELU,     /* fma with negative results +0 (PTX's fma.relu) */
  H_TO,       /* a value of kind LowpFn.kind -> h, rounded by LowpFn.op (an IrRoundMode) */
  H_FROM,     /* h -> kind LowpFn.kind: float exact; integer rounded by LowpFn.op then saturated */
  H_AS,       /* the bits of h as kind LowpFn.kind (16-bit integer) */
  H_AS_H,     /* a 16-bit integer's bits as h */
} LowpImpl;

enum {
  LP_F16 = 1,   /* in numba.cuda.fp16 */
  LP_BF16 = 2,  /* in numba.cuda.bf16 and numba.cuda._internal.cuda_bf16 */
  LP_UNDER = 4, /* cuda_fp16.h / cuda_bf16.h spell it with __ (__hadd; not hsin) */
};

typedef struct LowpFn {
  const char *name;  /* without __ */
  const char *alias; /* numba.cuda.bf16's NumPy-style alias (NULL, or unused for float16's) */
  unsigned nargs;
  LowpImpl impl;
  int op;            /* an OpKind, or an IrRoundMode for H_TO / H_FROM */
  IrCmpFPred pred;   /* H_CMP: the comparison */
  int kind;          /* H_TO, H_FROM, H_AS, H_AS_H: the other type (NB_*) */
  unsigned mods;
} LowpFn;

#define BOTH (LP_F16 | LP_BF16)
#define G(name, n, impl, op, pred, mods) {name, NULL, n, impl, op, pred, -1, mods}
/* conversions: T the other type's kind, M the rounding mode */
#define CV(name, alias, impl, T, M, mods) {name, alias, 1, impl, M, IR_CMPF_INVALID, T, mods}
/* an integer family's four rounding modes, to and from h */
#define TO4(c, np, T, h, hname, mods)                                                                             \
  CV(c "2" h "_rn", np "_to_" hname "_rn", H_TO, T, IR_ROUND_RN, mods),                                                \
  CV(c "2" h "_rz", np "_to_" hname "_rz", H_TO, T, IR_ROUND_RZ, mods),                                                \
  CV(c "2" h "_rd", np "_to_" hname "_rd", H_TO, T, IR_ROUND_RD, mods),                                                \
  CV(c "2" h "_ru", np "_to_" hname "_ru", H_TO, T, IR_ROUND_RU, mods)
#define FROM4(c, np, T, h, hname, mods)                                                                           \
  CV(h "2" c "_rn", hname "_to_" np "_rn", H_FROM, T, IR_ROUND_RN, mods),                                              \
  CV(h "2" c "_rz", hname "_to_" np "_rz", H_FROM, T, IR_ROUND_RZ, mods),                                              \
  CV(h "2" c "_rd", hname "_to_" np "_rd", H_FROM, T, IR_ROUND_RD, mods),                                              \
  CV(h "2" c "_ru", hname "_to_" np "_ru", H_FROM, T, IR_ROUND_RU, mods)
#define INTS(h, hname, mods)                                                                                      \
  TO4("int", "int32", NB_I32, h, hname, mods), FROM4("int", "int32", NB_I32, h, hname, mods),                    \
  TO4("short", "int16", NB_I16, h, hname, mods), FROM4("short", "int16", NB_I16, h, hname, mods),                \
  TO4("ushort", "uint16", NB_U16, h, hname, mods), FROM4("ushort", "uint16", NB_U16, h, hname, mods),            \
  TO4("uint", "uint32", NB_U32, h, hname, mods), FROM4("uint", "uint32", NB_U32, h, hname, mods),                \
  TO4("ll", "int64", NB_I64, h, hname, mods), FROM4("ll", "int64", NB_I64, h, hname, mods),                      \
  TO4("ull", "uint64", NB_U64, h, hname, mods), FROM4("ull", "uint64", NB_U64, h, hname, mods),                  \
  CV(h "2char_rz", hname "_to_int8_rz", H_FROM, NB_I8, IR_ROUND_RZ, mods),                                             \
  CV(h "2uchar_rz", hname "_to_uint8_rz", H_FROM, NB_U8, IR_ROUND_RZ, mods)

static const LowpFn LOWP[] = {
    /* arithmetic */
    G("hadd", 2, H_BINARY, OP_ADDF, IR_CMPF_INVALID, BOTH | LP_UNDER), G("hsub", 2, H_BINARY, OP_SUBF, IR_CMPF_INVALID, BOTH | LP_UNDER),
    G("hmul", 2, H_BINARY, OP_MULF, IR_CMPF_INVALID, BOTH | LP_UNDER), G("hdiv", 2, H_BINARY, OP_DIVF, IR_CMPF_INVALID, BOTH | LP_UNDER),
    /* _rn: never contracted into an fma (hadd ... are contracted as + - * are: passes/contract.c) */
    G("hadd_rn", 2, H_BINARY_RN, OP_ADDF, IR_CMPF_INVALID, BOTH | LP_UNDER), G("hsub_rn", 2, H_BINARY_RN, OP_SUBF, IR_CMPF_INVALID, BOTH | LP_UNDER),
    G("hmul_rn", 2, H_BINARY_RN, OP_MULF, IR_CMPF_INVALID, BOTH | LP_UNDER),
    G("hadd_sat", 2, H_SAT, OP_ADDF, IR_CMPF_INVALID, BOTH | LP_UNDER), G("hsub_sat", 2, H_SAT, OP_SUBF, IR_CMPF_INVALID, BOTH | LP_UNDER),
    G("hmul_sat", 2, H_SAT, OP_MULF, IR_CMPF_INVALID, BOTH | LP_UNDER), G("hfma_sat", 3, H_SAT, OP_FMA, IR_CMPF_INVALID, BOTH | LP_UNDER),
    G("hfma", 3, H_FMA, 0, IR_CMPF_INVALID, BOTH | LP_UNDER), G("hfma_relu", 3, H_RELU, 0, IR_CMPF_INVALID, BOTH | LP_UNDER),
    G("hneg", 1, H_NEG, 0, IR_CMPF_INVALID, BOTH | LP_UNDER), G("habs", 1, H_UNARY, OP_FABS, IR_CMPF_INVALID, BOTH | LP_UNDER),
    /* comparisons: ordered (false for NaN), and the unordered ones (true for NaN) */
    G("heq", 2, H_CMP, 0, IR_CMPF_OEQ, BOTH | LP_UNDER), G("hne", 2, H_CMP, 0, IR_CMPF_ONE, BOTH | LP_UNDER),
    G("hlt", 2, H_CMP, 0, IR_CMPF_OLT, BOTH | LP_UNDER), G("hle", 2, H_CMP, 0, IR_CMPF_OLE, BOTH | LP_UNDER),
    G("hgt", 2, H_CMP, 0, IR_CMPF_OGT, BOTH | LP_UNDER), G("hge", 2, H_CMP, 0, IR_CMPF_OGE, BOTH | LP_UNDER),
    G("hequ", 2, H_CMP_UEQ, 0, IR_CMPF_INVALID, BOTH | LP_UNDER), G("hneu", 2, H_CMP, 0, IR_CMPF_UNE, BOTH | LP_UNDER),
    G("hltu", 2, H_CMP, 0, IR_CMPF_ULT, BOTH | LP_UNDER), G("hleu", 2, H_CMP, 0, IR_CMPF_ULE, BOTH | LP_UNDER),
    G("hgtu", 2, H_CMP, 0, IR_CMPF_UGT, BOTH | LP_UNDER), G("hgeu", 2, H_CMP, 0, IR_CMPF_UGE, BOTH | LP_UNDER),
    G("hmax", 2, H_MAX, 0, IR_CMPF_INVALID, BOTH | LP_UNDER), G("hmin", 2, H_MIN, 0, IR_CMPF_INVALID, BOTH | LP_UNDER),
    G("hmax_nan", 2, H_MAX_NAN, 0, IR_CMPF_INVALID, BOTH | LP_UNDER), G("hmin_nan", 2, H_MIN_NAN, 0, IR_CMPF_INVALID, BOTH | LP_UNDER),
    G("hisnan", 1, H_ISNAN, 0, IR_CMPF_INVALID, BOTH | LP_UNDER), G("hisinf", 1, H_ISINF, 0, IR_CMPF_INVALID, BOTH | LP_UNDER),
    /* math */
    G("hsin", 1, H_UNARY, OP_SIN, IR_CMPF_INVALID, BOTH), G("hcos", 1, H_UNARY, OP_COS, IR_CMPF_INVALID, BOTH),
    G("hexp", 1, H_UNARY, OP_EXP, IR_CMPF_INVALID, BOTH), G("hexp2", 1, H_UNARY, OP_EXP2, IR_CMPF_INVALID, BOTH),
    G("hexp10", 1, H_EXP10, 0, IR_CMPF_INVALID, BOTH), G("hlog", 1, H_UNARY, OP_LOG, IR_CMPF_INVALID, BOTH),
    G("hlog2", 1, H_UNARY, OP_LOG2, IR_CMPF_INVALID, BOTH), G("hlog10", 1, H_UNARY, OP_LOG10, IR_CMPF_INVALID, BOTH),
    G("hsqrt", 1, H_UNARY, OP_SQRT, IR_CMPF_INVALID, BOTH), G("hrsqrt", 1, H_RSQRT, 0, IR_CMPF_INVALID, BOTH),
    G("hrcp", 1, H_RCP, 0, IR_CMPF_INVALID, BOTH), G("hceil", 1, H_UNARY, OP_CEIL, IR_CMPF_INVALID, BOTH),
    G("hfloor", 1, H_UNARY, OP_FLOOR, IR_CMPF_INVALID, BOTH), G("htrunc", 1, H_UNARY, OP_TRUNC, IR_CMPF_INVALID, BOTH),
    G("hrint", 1, H_UNARY, OP_ROUND, IR_CMPF_INVALID, BOTH), G("htanh", 1, H_UNARY, OP_TANH, IR_CMPF_INVALID, BOTH),
    G("htanh_approx", 1, H_UNARY, OP_TANH, IR_CMPF_INVALID, BOTH),
    /* float16 conversions (cuda_fp16.h's __float2half_rz, __half2int_rd, ...) */
    CV("float2half", NULL, H_TO, NB_F32, IR_ROUND_RN, LP_F16 | LP_UNDER),
    CV("float2half_rn", NULL, H_TO, NB_F32, IR_ROUND_RN, LP_F16 | LP_UNDER),
    CV("float2half_rz", NULL, H_TO, NB_F32, IR_ROUND_RZ, LP_F16 | LP_UNDER),
    CV("float2half_rd", NULL, H_TO, NB_F32, IR_ROUND_RD, LP_F16 | LP_UNDER),
    CV("float2half_ru", NULL, H_TO, NB_F32, IR_ROUND_RU, LP_F16 | LP_UNDER),
    CV("double2half", NULL, H_TO, NB_F64, IR_ROUND_RN, LP_F16 | LP_UNDER),
    CV("half2float", NULL, H_FROM, NB_F32, IR_ROUND_RN, LP_F16 | LP_UNDER),
    INTS("half", "", LP_F16 | LP_UNDER),
    CV("half_as_short", NULL, H_AS, NB_I16, 0, LP_F16 | LP_UNDER), CV("half_as_ushort", NULL, H_AS, NB_U16, 0, LP_F16 | LP_UNDER),
    CV("short_as_half", NULL, H_AS_H, NB_I16, 0, LP_F16 | LP_UNDER), CV("ushort_as_half", NULL, H_AS_H, NB_U16, 0, LP_F16 | LP_UNDER),
    /* bfloat16 conversions (cuda_bf16.h's names, numba.cuda.bf16's NumPy-style aliases) */
    CV("float2bfloat16", "float32_to_bfloat16", H_TO, NB_F32, IR_ROUND_RN, LP_BF16 | LP_UNDER),
    CV("float2bfloat16_rn", "float32_to_bfloat16_rn", H_TO, NB_F32, IR_ROUND_RN, LP_BF16 | LP_UNDER),
    CV("float2bfloat16_rz", "float32_to_bfloat16_rz", H_TO, NB_F32, IR_ROUND_RZ, LP_BF16 | LP_UNDER),
    CV("float2bfloat16_rd", "float32_to_bfloat16_rd", H_TO, NB_F32, IR_ROUND_RD, LP_BF16 | LP_UNDER),
    CV("float2bfloat16_ru", "float32_to_bfloat16_ru", H_TO, NB_F32, IR_ROUND_RU, LP_BF16 | LP_UNDER),
    CV("double2bfloat16", "float64_to_bfloat16", H_TO, NB_F64, IR_ROUND_RN, LP_BF16 | LP_UNDER),
    CV("bfloat162float", "bfloat16_to_float32", H_FROM, NB_F32, IR_ROUND_RN, LP_BF16 | LP_UNDER),
    INTS("bfloat16", "bfloat16", LP_BF16 | LP_UNDER),
    CV("bfloat16_as_short", "bfloat16_as_int16", H_AS, NB_I16, 0, LP_BF16 | LP_UNDER),
    CV("bfloat16_as_ushort", "bfloat16_as_uint16", H_AS, NB_U16, 0, LP_BF16 | LP_UNDER),
    CV("short_as_bfloat16", "int16_as_bfloat16", H_AS_H, NB_I16, 0, LP_BF16 | LP_UNDER),
    CV("ushort_as_bfloat16", "uint16_as_bfloat16", H_AS_H, NB_U16, 0, LP_BF16 | LP_UNDER),
};
enum { NLOWP = sizeof LOWP / sizeof *LOWP };
_Static_assert(FE_FP16_BASE + NLOWP <= FE_VECTOR_BASE && FE_BF16_BASE + NLOWP <= FE_LIBDEVICE_BASE,
               "cuda.fp16's and cuda.bf16's ids fit their ranges");

int num_lowp_lookup(LowpModule m, const char *name) {
  bool under = name[0] == '_' && name[1] == '_';
  const char *bare = under ? name + 2 : name;
  unsigned want = m == LOWP_FP16 ? LP_F16 : LP_BF16;
  for (int k = 0; k < NLOWP; k++) {
    const LowpFn *f = &LOWP[k];
    if (!(f->mods & want)) continue;
    bool by_name = strcmp(bare, f->name) == 0;
    switch (m) {
    case LOWP_FP16: /* __hadd and hadd alike */
      if (by_name && (!under || (f->mods & LP_UNDER))) return k;
      break;
    case LOWP_BF16: /* without __, or the NumPy-style alias */
      if (!under && (by_name || (f->alias && strcmp(name, f->alias) == 0))) return k;
      break;
    case LOWP_BF16_INTERNAL: /* as cuda_bf16.h spells it */
      if (by_name && under == ((f->mods & LP_UNDER) != 0)) return k;
      break;
    }
  }
  return -1;
}

const char *num_lowp_name(int k) { return k >= 0 && k < NLOWP ? LOWP[k].name : "?"; }
unsigned num_lowp_nargs(int k) { return LOWP[k].nargs; }

Type *num_lowp_arg_type(IrContext *ctx, int k, Type *h) {
  const LowpFn *f = &LOWP[k];
  return f->impl == H_TO || f->impl == H_AS_H ? nb_type(ctx, f->kind) : h;
}

/* x clamped to [+0, 1], NaN and -0 giving +0 */
static Value *saturate(IrBuilder *b, Value *x) {
  Type *h = x->type;
  Value *zero = ib_unary(b, OP_TRUNCF, ib_const_float(b, ty_f32(b->ctx), 0.0), h);
  Value *one = ib_unary(b, OP_TRUNCF, ib_const_float(b, ty_f32(b->ctx), 1.0), h);
  Value *pos = ib_select(b, ib_cmpf(b, IR_CMPF_OGT, x, zero), x, zero);
  return ib_select(b, ib_cmpf(b, IR_CMPF_OLT, pos, one), pos, one);
}

/* A conversion to a float type by a rounding mode (attr round; none for the default, to nearest). */
static Value *convert_rounded(IrBuilder *b, Value *x, Type *to, int mode) {
  Value *r = ib_cast(b, x, to);
  if (mode != IR_ROUND_RN && r->def) ir_op_set_round_mode(b->m, r->def, (IrRoundMode)mode);
  return r;
}

/* x (f16 or bf16) as the integer type `to`, rounded by mode (an IrRoundMode): PTX's cvt.rni / rzi / rmi / rpi with
 * saturation, the rounded value converted saturating; NaN gives 0, but INT64_MIN to a 64-bit integer, as
 * numba-cuda's conversions gave on the H200 (__half2ll_rn). numba-cuda's cast of a float16 to an integer
 * (np.int8(h), int(h), a float16 stored to an integer array) is this to nearest (its cvt.rni.sN.f16). */
Value *num_lowp_to_int(IrBuilder *b, Value *x, Type *to, int mode) {
  static const OpKind round_op[] = {[IR_ROUND_RN] = OP_ROUND, [IR_ROUND_RD] = OP_FLOOR, [IR_ROUND_RU] = OP_CEIL};
  Value *r = mode == IR_ROUND_RZ ? x : ib_unary(b, round_op[mode], x, NULL);
  Value *c = ib_cast(b, r, to);
  if (to->bits != 64) return c;
  return ib_select(b, ib_unary(b, OP_ISNAN, x, ty_bool(b->ctx)), ib_const_int(b, to, INT64_MIN), c);
}

Value *num_lowp_emit(IrBuilder *b, int k, Type *h, Value *const *in) {
  const LowpFn *f = &LOWP[k];
  Value *x = in[0], *y = f->nargs > 1 ? in[1] : NULL;
  Type *f32 = ty_f32(b->ctx), *i1 = ty_bool(b->ctx);
  switch (f->impl) {
  case H_BINARY: return ib_binary(b, (OpKind)f->op, x, y);
  case H_BINARY_RN: {
    Value *r = ib_binary(b, (OpKind)f->op, x, y);
    if (r->def && r->def->kind == (OpKind)f->op) ir_op_set_attr(b->m, r->def, "nocontract", attr_unit());
    return r;
  }
  case H_UNARY: return ib_unary(b, (OpKind)f->op, x, NULL);
  case H_CMP: return ib_cmpf(b, f->pred, x, y);
  case H_CMP_UEQ: {
    Value *uno = ib_cmpf(b, IR_CMPF_UNO, x, y);
    return ib_binary(b, OP_ORI, uno, ib_cmpf(b, IR_CMPF_OEQ, x, y));
  }
  case H_FMA:
  case H_RELU:
  case H_SAT: {
    Value *r;
    if (f->impl == H_SAT && f->op != OP_FMA) {
      r = ib_binary(b, (OpKind)f->op, x, y);
    } else {
      Value *ops[3] = {x, y, in[2]};
      r = op_result(ib_op(b, OP_FMA, 3, ops, 1, &h, 0), 0);
    }
    if (f->impl == H_SAT) return saturate(b, r);
    if (f->impl == H_RELU) {
      Value *zero = ib_unary(b, OP_TRUNCF, ib_const_float(b, f32, 0.0), h);
      return ib_select(b, ib_cmpf(b, IR_CMPF_OLT, r, zero), zero, r);
    }
    return r;
  }
  case H_NEG: return ib_unary(b, OP_NEGF, x, NULL);
  case H_RCP: return ib_cast(b, ib_binary(b, OP_DIVF, ib_const_float(b, f32, 1.0), ib_cast(b, x, f32)), h);
  case H_RSQRT:
    return ib_cast(b, ib_binary(b, OP_DIVF, ib_const_float(b, f32, 1.0), ib_unary(b, OP_SQRT, ib_cast(b, x, f32), NULL)), h);
  case H_EXP10: return ib_cast(b, ib_binary(b, OP_POW, ib_const_float(b, f32, 10.0), ib_cast(b, x, f32)), h);
  /* __hmax / __hmin: the other value when one is NaN (fmax); the _nan forms propagate NaN (maximum) */
  case H_MAX: return num_float_minmax(b, x, y, true, false);
  case H_MIN: return num_float_minmax(b, x, y, false, false);
  case H_MAX_NAN: return num_float_minmax(b, x, y, true, true);
  case H_MIN_NAN: return num_float_minmax(b, x, y, false, true);
  case H_ISNAN: return ib_unary(b, OP_ISNAN, x, i1);
  case H_ISINF: {
    /* __hisinf: 1 for +inf, -1 for -inf, else 0 (int32) */
    Type *i32 = ty_i32(b->ctx);
    Value *inf = ib_unary(b, OP_ISINF, x, i1), *neg = ib_cmpf(b, IR_CMPF_OLT, x, ib_unary(b, OP_TRUNCF, ib_const_float(b, f32, 0.0), h));
    Value *sgn = ib_select(b, neg, ib_const_int(b, i32, -1), ib_const_int(b, i32, 1));
    return ib_select(b, inf, sgn, ib_const_int(b, i32, 0));
  }
  case H_TO: return convert_rounded(b, x, h, f->op);
  case H_FROM: {
    Type *to = nb_type(b->ctx, f->kind);
    if (to->kind == TY_FLOAT) return ib_cast(b, x, to);
    return num_lowp_to_int(b, x, to, f->op);
  }
  case H_AS: return ib_unary(b, OP_BITCAST, x, nb_type(b->ctx, f->kind));
  case H_AS_H: return ib_unary(b, OP_BITCAST, x, h);
  }
  return x;
}
