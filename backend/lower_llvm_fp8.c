/* lower_llvm_fp8.c — the kir-to-LLVM lowering of arith.to_fp8 and arith.from_fp8 (lower_llvm_internal.h): what
 * cuda_fp8.h computes (ir/op_semantics.h defines it), on the GPU as the header does it there.
 *
 * Where cuda_fp8.h uses a PTX instruction, so does this, under the same conditions: E4M3 / E5M2 from f32 (and
 * bf16, through its f32) and from f16 with satfinite by cvt.rn.satfinite.{e4m3,e5m2}x2.{f32,f16x2}, and E4M3 /
 * E5M2 to f16 by cvt.rn.f16x2.{e4m3,e5m2}x2, on sm_89 and later through libNVVM (LLVM's NVPTX target here writes
 * PTX 7.5, which has no FP8). Everything else is the header's integer algorithm, branch-free (selects): the
 * rounding of a double to E4M3 / E5M2, the E8M0 conversions through bfloat16 bits, and the decoding of E4M3 /
 * E5M2 to binary16 elsewhere. */
#include "backend/lower_llvm_internal.h"

static LLVMValueRef k8(Lower *L, uint64_t v) { return LLVMConstInt(L->t_i8, v, 0); }
static LLVMValueRef k16(Lower *L, uint64_t v) { return LLVMConstInt(L->t_i16, v, 0); }
static LLVMValueRef k32(Lower *L, uint64_t v) { return LLVMConstInt(L->t_i32, v, 0); }
static LLVMValueRef k64(Lower *L, uint64_t v) { return LLVMConstInt(L->t_i64, v, 0); }

static LLVMValueRef sel(Lower *L, LLVMValueRef c, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildSelect(L->b, c, a, b, ""); }
static LLVMValueRef icmp(Lower *L, LLVMIntPredicate p, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildICmp(L->b, p, a, b, ""); }

static bool ptx_fp8(Lower *L) { return L->nvvm && (L->o->arch ? L->o->arch : 90) >= 89; }

/* __nv_cvt_double_to_fp8 on the bits of x: E4M3 (e4m3) or E5M2, NaN 0x7f unless nan_payload (the header's f32, f16
 * and bf16 paths make NaN canonical first) */
static LLVMValueRef fp8_of_double(Lower *L, LLVMValueRef x, bool e4m3, bool satfinite, bool nan_payload) {
  LLVMBuilderRef b = L->b;
  const uint64_t sig_bits = e4m3 ? 4 : 3, mant_mask = e4m3 ? 7 : 3, bias = e4m3 ? 7 : 15;
  const uint64_t min_denorm_o2 = e4m3 ? 0x3F50000000000000ull : 0x3EE0000000000000ull;
  const uint64_t overflow = e4m3 ? 0x407D000000000000ull : 0x40EE000000000000ull - 1;
  const uint64_t min_norm = e4m3 ? 0x3F90000000000000ull : 0x3F10000000000000ull;
  const uint64_t maxnorm = e4m3 ? 0x7E : 0x7B, half_ulp = 1ull << (53 - sig_bits - 1);
  LLVMValueRef xb = LLVMBuildBitCast(b, x, L->t_i64, "");
  LLVMValueRef sign = LLVMBuildShl(b, LLVMBuildLShr(b, xb, k64(L, 63), ""), k64(L, 7), "");
  /* the exponent in the target's bias (signed: at most 0 in the subnormal range) */
  LLVMValueRef exp = LLVMBuildSub(b, LLVMBuildAnd(b, LLVMBuildLShr(b, xb, k64(L, 52), ""), k64(L, 0x7FF), ""), k64(L, 1023 - bias), "");
  LLVMValueRef mant = LLVMBuildAnd(b, LLVMBuildLShr(b, xb, k64(L, 53 - sig_bits), ""), k64(L, mant_mask), "");
  LLVMValueRef absx = LLVMBuildAnd(b, xb, k64(L, 0x7FFFFFFFFFFFFFFFull), "");
  /* normal: exponent and truncated fraction, plus one by round-to-nearest-even on the bits shifted out */
  LLVMValueRef norm = LLVMBuildOr(b, LLVMBuildShl(b, exp, k64(L, sig_bits - 1), ""), mant, "");
  LLVMValueRef round = LLVMBuildAnd(b, xb, k64(L, (half_ulp << 1) - 1), "");
  LLVMValueRef up = LLVMBuildOr(b, icmp(L, LLVMIntUGT, round, k64(L, half_ulp)),
                                LLVMBuildAnd(b, icmp(L, LLVMIntEQ, round, k64(L, half_ulp)),
                                             LLVMBuildTrunc(b, mant, L->t_i1, ""), ""), "");
  norm = LLVMBuildAdd(b, norm, LLVMBuildZExt(b, up, L->t_i64, ""), "");
  /* subnormal: the significand (implicit bit included) shifted right by 1 - exp, rounded the same way */
  LLVMValueRef shift = LLVMBuildSub(b, k64(L, 1), exp, "");
  shift = sel(L, icmp(L, LLVMIntSLT, shift, k64(L, 0)), k64(L, 0), sel(L, icmp(L, LLVMIntSGT, shift, k64(L, 8)), k64(L, 8), shift));
  LLVMValueRef full = LLVMBuildOr(b, mant, k64(L, 1ull << (sig_bits - 1)), "");
  LLVMValueRef sub = LLVMBuildLShr(b, full, shift, "");
  LLVMValueRef half_at = LLVMBuildShl(b, k64(L, half_ulp), shift, "");
  LLVMValueRef sround = LLVMBuildAnd(b, LLVMBuildOr(b, xb, k64(L, 1ull << 52), ""),
                                     LLVMBuildSub(b, LLVMBuildShl(b, half_at, k64(L, 1), ""), k64(L, 1), ""), "");
  LLVMValueRef sup = LLVMBuildOr(b, icmp(L, LLVMIntUGT, sround, half_at),
                                 LLVMBuildAnd(b, icmp(L, LLVMIntEQ, sround, half_at), LLVMBuildTrunc(b, sub, L->t_i1, ""), ""), "");
  sub = LLVMBuildAdd(b, sub, LLVMBuildZExt(b, sup, L->t_i64, ""), "");
  LLVMValueRef nan = e4m3 ? k64(L, 0x7F) : LLVMBuildOr(b, k64(L, 0x7E), mant, "");
  LLVMValueRef over = k64(L, satfinite ? maxnorm : e4m3 ? 0x7F : 0x7C);
  LLVMValueRef r = sel(L, icmp(L, LLVMIntUGE, absx, k64(L, min_norm)), norm, sub);
  r = sel(L, icmp(L, LLVMIntUGT, absx, k64(L, overflow)), over, r);
  r = sel(L, icmp(L, LLVMIntUGT, absx, k64(L, 0x7FF0000000000000ull)), nan, r);
  r = sel(L, icmp(L, LLVMIntULE, absx, k64(L, min_denorm_o2)), k64(L, 0), r);
  r = LLVMBuildTrunc(b, LLVMBuildOr(b, r, sign, ""), L->t_i8, "");
  if (!nan_payload) r = sel(L, icmp(L, LLVMIntUGT, absx, k64(L, 0x7FF0000000000000ull)), k8(L, 0x7F), r);
  return r;
}

/* a bfloat16's bits (i16) as the f32 they widen to, exactly */
static LLVMValueRef bf16_bits_to_f32(Lower *L, LLVMValueRef h) {
  return LLVMBuildBitCast(L->b, LLVMBuildShl(L->b, LLVMBuildZExt(L->b, h, L->t_i32, ""), k32(L, 16), ""), L->t_f32, "");
}

/* __nv_cvt_bfloat16raw_to_e8m0 on a bfloat16's bits */
static LLVMValueRef e8m0_of_bf16(Lower *L, LLVMValueRef h, bool satfinite, bool ru) {
  LLVMBuilderRef b = L->b;
  LLVMValueRef mag = LLVMBuildAnd(b, h, k16(L, 0x7FFF), "");
  LLVMValueRef r = LLVMBuildLShr(b, mag, k16(L, 7), "");
  if (ru) {
    LLVMValueRef frac = icmp(L, LLVMIntNE, LLVMBuildAnd(b, h, k16(L, 0x7F), ""), k16(L, 0));
    LLVMValueRef c = LLVMBuildAnd(b, frac, LLVMBuildAnd(b, icmp(L, LLVMIntUGT, mag, k16(L, 0x40)),
                                                         icmp(L, LLVMIntULT, mag, k16(L, 0x7F80)), ""), "");
    r = LLVMBuildAdd(b, r, LLVMBuildZExt(b, c, L->t_i16, ""), "");
  }
  if (satfinite)
    r = sel(L, LLVMBuildAnd(b, icmp(L, LLVMIntULE, mag, k16(L, 0x7F80)), icmp(L, LLVMIntEQ, r, k16(L, 0xFF)), ""), k16(L, 0xFE), r);
  return LLVMBuildTrunc(b, r, L->t_i8, "");
}

/* __nv_cvt_float_to_e8m0: through x's bfloat16 toward zero (rz) or |x|'s rounded up (ru); NaN 0x7fff */
static LLVMValueRef e8m0_of_float(Lower *L, LLVMValueRef x, bool satfinite, bool ru) {
  LLVMBuilderRef b = L->b;
  LLVMValueRef u = LLVMBuildBitCast(b, x, L->t_i32, "");
  LLVMValueRef isnan = LLVMBuildFCmp(b, LLVMRealUNO, x, x, "");
  if (ru) u = LLVMBuildAnd(b, u, k32(L, 0x7FFFFFFF), "");
  LLVMValueRef h = LLVMBuildLShr(b, u, k32(L, 16), "");
  if (ru) {
    LLVMValueRef inexact = LLVMBuildAnd(b, icmp(L, LLVMIntULT, u, k32(L, 0x7F800000)),
                                        icmp(L, LLVMIntNE, LLVMBuildAnd(b, u, k32(L, 0xFFFF), ""), k32(L, 0)), "");
    h = LLVMBuildAdd(b, h, LLVMBuildZExt(b, inexact, L->t_i32, ""), "");
  }
  h = LLVMBuildTrunc(b, sel(L, isnan, k32(L, 0x7FFF), h), L->t_i16, "");
  return e8m0_of_bf16(L, h, satfinite, ru);
}

/* __nv_cvt_double_to_e8m0: through the f32 nearest x with a sticky last bit (cvt instructions as the header's, which
 * no flush-to-zero option touches) */
static LLVMValueRef e8m0_of_double(Lower *L, LLVMValueRef x, bool satfinite, bool ru) {
  LLVMBuilderRef b = L->b;
  LLVMValueRef f = inline_asm(L, L->t_f32, "cvt.rn.f32.f64 $0, $1;", "=f,d", false, &x, 1);
  LLVMValueRef d = inline_asm(L, L->t_f64, "cvt.f64.f32 $0, $1;", "=d,f", false, &f, 1);
  LLVMValueRef u = LLVMBuildBitCast(b, f, L->t_i32, "");
  LLVMValueRef not_nan = icmp(L, LLVMIntULE, LLVMBuildShl(b, u, k32(L, 1), ""), k32(L, 0xFF000000));
  LLVMValueRef zero = LLVMConstReal(L->t_f64, 0.0);
  LLVMValueRef away = LLVMBuildOr(b, LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOGT, x, zero, ""), LLVMBuildFCmp(b, LLVMRealOGT, d, x, ""), ""),
                                  LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOLT, x, zero, ""), LLVMBuildFCmp(b, LLVMRealOLT, d, x, ""), ""), "");
  u = LLVMBuildSub(b, u, LLVMBuildZExt(b, away, L->t_i32, ""), "");
  LLVMValueRef sticky = LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealUNE, d, x, ""), not_nan, "");
  u = LLVMBuildOr(b, u, LLVMBuildZExt(b, sticky, L->t_i32, ""), "");
  return e8m0_of_float(L, LLVMBuildBitCast(b, u, L->t_f32, ""), satfinite, ru);
}

/* E4M3 / E5M2 bits to binary16 bits (i16): cvt.rn.f16x2 where the header uses it, else its decoding */
static LLVMValueRef fp8_to_f16_bits(Lower *L, LLVMValueRef x, bool e4m3) {
  LLVMBuilderRef b = L->b;
  if (ptx_fp8(L)) {
    LLVMValueRef in = LLVMBuildZExt(b, x, L->t_i16, "");
    LLVMValueRef r = inline_asm(L, L->t_i32, e4m3 ? "cvt.rn.f16x2.e4m3x2 $0, $1;" : "cvt.rn.f16x2.e5m2x2 $0, $1;", "=r,h", false, &in, 1);
    return LLVMBuildTrunc(b, r, L->t_i16, "");
  }
  LLVMValueRef w = LLVMBuildZExt(b, x, L->t_i16, "");
  if (!e4m3) {
    LLVMValueRef ur = LLVMBuildShl(b, w, k16(L, 8), "");
    return sel(L, icmp(L, LLVMIntUGT, LLVMBuildAnd(b, ur, k16(L, 0x7FFF), ""), k16(L, 0x7C00)), k16(L, 0x7FFF), ur);
  }
  LLVMValueRef sign = LLVMBuildShl(b, LLVMBuildAnd(b, w, k16(L, 0x80), ""), k16(L, 8), "");
  LLVMValueRef e = LLVMBuildAnd(b, LLVMBuildLShr(b, w, k16(L, 3), ""), k16(L, 0xF), "");
  LLVMValueRef m = LLVMBuildAnd(b, w, k16(L, 7), "");
  LLVMValueRef normal = LLVMBuildOr(b, LLVMBuildShl(b, LLVMBuildAdd(b, e, k16(L, 8), ""), k16(L, 10), ""),
                                    LLVMBuildShl(b, m, k16(L, 7), ""), "");
  /* a subnormal m * 2^-9 = 1.f * 2^(p - 9), p the place of m's leading bit */
  LLVMValueRef p = sel(L, icmp(L, LLVMIntUGE, m, k16(L, 4)), k16(L, 2), sel(L, icmp(L, LLVMIntUGE, m, k16(L, 2)), k16(L, 1), k16(L, 0)));
  LLVMValueRef frac = LLVMBuildAnd(b, LLVMBuildShl(b, m, LLVMBuildSub(b, k16(L, 3), p, ""), ""), k16(L, 7), "");
  LLVMValueRef subn = LLVMBuildOr(b, LLVMBuildShl(b, LLVMBuildAdd(b, p, k16(L, 6), ""), k16(L, 10), ""),
                                  LLVMBuildShl(b, frac, k16(L, 7), ""), "");
  subn = sel(L, icmp(L, LLVMIntEQ, m, k16(L, 0)), k16(L, 0), subn);
  LLVMValueRef r = LLVMBuildOr(b, sign, sel(L, icmp(L, LLVMIntEQ, e, k16(L, 0)), subn, normal), "");
  return sel(L, icmp(L, LLVMIntEQ, LLVMBuildAnd(b, w, k16(L, 0x7F), ""), k16(L, 0x7F)), k16(L, 0x7FFF), r);
}

static bool lower_to_fp8(Lower *L, Op *op, TyStorage f, bool sat, bool ru) {
  LLVMBuilderRef b = L->b;
  Type *at = op_operand(op, 0)->type;
  LLVMValueRef x = operand(L, op, 0), r;
  if (!x) return false;
  if (f == TS_E8M0) {
    if (at->bits == 64) r = e8m0_of_double(L, x, sat, ru);
    else if (ty_is_bf16(at)) r = e8m0_of_bf16(L, x, sat, ru);
    else r = e8m0_of_float(L, at->bits == 16 ? LLVMBuildFPExt(b, x, L->t_f32, "") : x, sat, ru);
  } else {
    bool e4m3 = f == TS_E4M3;
    if (ty_is_bf16(at)) x = bf16_bits_to_f32(L, x);
    if (at->bits == 64) {
      r = fp8_of_double(L, x, e4m3, sat, true);
    } else if (sat && ptx_fp8(L) && at->bits == 16 && !at->bfloat) {
      LLVMValueRef in = LLVMBuildZExt(b, LLVMBuildBitCast(b, x, L->t_i16, ""), L->t_i32, "");
      r = inline_asm(L, L->t_i16, e4m3 ? "cvt.rn.satfinite.e4m3x2.f16x2 $0, $1;" : "cvt.rn.satfinite.e5m2x2.f16x2 $0, $1;",
                     "=h,r", false, &in, 1);
      r = LLVMBuildTrunc(b, r, L->t_i8, "");
    } else if (sat && ptx_fp8(L)) {
      LLVMValueRef args[2] = {x, LLVMConstReal(L->t_f32, 0.0)};
      r = inline_asm(L, L->t_i16, e4m3 ? "cvt.rn.satfinite.e4m3x2.f32 $0, $2, $1;" : "cvt.rn.satfinite.e5m2x2.f32 $0, $2, $1;",
                     "=h,f,f", false, args, 2);
      r = LLVMBuildTrunc(b, r, L->t_i8, "");
    } else {
      r = fp8_of_double(L, LLVMBuildFPExt(b, x, L->t_f64, ""), e4m3, sat, false);
    }
  }
  set(L, &op->results[0], r);
  return true;
}

static bool lower_from_fp8(Lower *L, Op *op, TyStorage f) {
  LLVMBuilderRef b = L->b;
  Type *rt = op->results[0].type;
  LLVMValueRef x = operand(L, op, 0), r;
  if (!x) return false;
  if (f == TS_E8M0) {
    LLVMValueRef w = LLVMBuildZExt(b, x, L->t_i16, "");
    LLVMValueRef h = sel(L, icmp(L, LLVMIntEQ, x, k8(L, 0xFF)), k16(L, 0x7FFF),
                         sel(L, icmp(L, LLVMIntEQ, x, k8(L, 0)), k16(L, 0x40), LLVMBuildShl(b, w, k16(L, 7), "")));
    if (ty_is_bf16(rt)) {
      r = h;
    } else {
      LLVMValueRef v = bf16_bits_to_f32(L, h);
      if (rt->bits == 64) r = inline_asm(L, L->t_f64, "cvt.f64.f32 $0, $1;", "=d,f", false, &v, 1);
      else if (rt->bits == 32) r = v;
      else /* NaN: 0x7fff, as numba-cuda's on the H200 (cvt.rn.f16.f32 of 0x7fff0000 would keep its payload) */
        r = sel(L, LLVMBuildFCmp(b, LLVMRealUNO, v, v, ""), LLVMBuildBitCast(b, k16(L, 0x7FFF), L->t_f16, ""),
                LLVMBuildFPTrunc(b, v, L->t_f16, ""));
    }
  } else {
    LLVMValueRef h = LLVMBuildBitCast(b, fp8_to_f16_bits(L, x, f == TS_E4M3), L->t_f16, "");
    if (rt->bits == 16 && !rt->bfloat) {
      r = h;
    } else {
      LLVMValueRef v = LLVMBuildFPExt(b, h, L->t_f32, "");
      if (rt->bits == 64) { /* through f32 as the header does, kept apart (one fpext to f64 would be cvt.f64.f16, which
                             * keeps a NaN's f16 payload; cvt.f32.f16 gives the canonical 0x7fffffff that numba-cuda's
                             * f64 widens) */
        r = inline_asm(L, L->t_f64, "cvt.f64.f32 $0, $1;", "=d,f", false, &v, 1);
      } else if (rt->bits == 32) {
        r = v;
      } else { /* __float2bfloat16_rz of a value bfloat16 holds exactly: its upper bits; NaN 0x7fff */
        LLVMValueRef u = LLVMBuildTrunc(b, LLVMBuildLShr(b, LLVMBuildBitCast(b, v, L->t_i32, ""), k32(L, 16), ""), L->t_i16, "");
        r = sel(L, LLVMBuildFCmp(b, LLVMRealUNO, v, v, ""), k16(L, 0x7FFF), u);
      }
    }
  }
  set(L, &op->results[0], r);
  return true;
}

bool ll_lower_fp8(Lower *L, Op *op) {
  SemSig s;
  if (!sem_sig_of(op, &s)) return fail(L, op, "'%s' without a known format", op_name(op));
  TyStorage f = (TyStorage)(s.pred & 3);
  if (op->kind == OP_TO_FP8) return lower_to_fp8(L, op, f, s.pred & SEM_FP8_SATFINITE, s.pred & SEM_FP8_RU);
  return lower_from_fp8(L, op, f);
}
