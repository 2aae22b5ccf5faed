/* op_semantics.c — the evaluations of kir's pure scalar ops and the table ir_op_sem (see op_semantics.h).
 *
 * One row per op, in ops.def order. Each evaluation works on normalised values (integers in their type's normal
 * form, f16 as a binary16 value in a float) and leaves its result normalised; it calls the inline kernels of
 * op_semantics.h, which the simulator's fast instructions call too. */
#include "ir/op_semantics.h"

#include <string.h>

#include "ir/libdevice.h"

/* ---- signatures ---------------------------------------------------------------------------------------- */

SemTy sem_ty(const Type *t) {
  SemTy s = {0, 0, false, false};
  if (t->kind == TY_BOOL) {
    s.bits = 1;
    s.sh = 63;
  } else if (t->kind == TY_INT) {
    s.bits = (uint8_t)t->bits;
    s.sh = (uint8_t)(64 - t->bits);
    s.sgn = !t->is_unsigned;
  } else if (t->kind == TY_FLOAT) {
    s.bits = (uint8_t)t->bits;
    s.is_float = true;
    s.bf = t->bfloat;
  }
  return s;
}

bool sem_sig_of(const Op *op, SemSig *s) {
  if (op->nresults != 1 || op->noperands > 3 || op->nregions) return false;
  memset(s, 0, sizeof *s);
  s->kind = (uint16_t)op->kind;
  s->n = (uint8_t)op->noperands;
  s->pred = -1;
  s->r = sem_ty(op_result(op, 0)->type);
  if (!s->r.bits) return false;
  for (unsigned i = 0; i < op->noperands; i++) {
    const Value *v = op_operand(op, i);
    if (!v) return false;
    s->a[i] = sem_ty(v->type);
    if (!s->a[i].bits) return false;
  }
  if (op->kind == OP_CMPI || op->kind == OP_CMPF) {
    s->pred = (int8_t)ir_op_enum_attr(op, ir_cmp_pred_enum((OpKind)op->kind));
    if (s->pred < 0) return false;
  }
  if (op->kind == OP_LIBDEVICE) {
    const char *name = ir_op_attr_str(op, "name");
    const LibdeviceFn *f = name && strncmp(name, "__nv_", 5) == 0 ? ir_libdevice_lookup(name + 5) : NULL;
    if (!f) return false;
    s->fn = (uint16_t)(1 + ir_libdevice_index(f));
    s->pred = (int8_t)ir_op_attr_int(op, "part", 0);
  }
  if (op->kind == OP_TRUNCF || op->kind == OP_SITOFP || op->kind == OP_UITOFP) {
    s->pred = (int8_t)(ir_op_attr_str(op, "round") ? ir_op_round_mode(op) : IR_ROUND_RN);
    if (s->pred < 0) return false;
  }
  if (op->kind == OP_TO_FP8 || op->kind == OP_FROM_FP8) {
    const char *f = ir_op_attr_str(op, "format");
    TyStorage fmt = f ? ty_fp8_format_parse(f, strlen(f)) : TS_NONE;
    if (fmt == TS_NONE) return false;
    s->pred = (int8_t)(fmt | (ir_op_attr(op, "satfinite") ? SEM_FP8_SATFINITE : 0) |
                       (ir_op_round_mode(op) == IR_ROUND_RU ? SEM_FP8_RU : 0));
  }
  return true;
}

/* ---- conversions ------------------------------------------------------------------------------------------ */

uint64_t sem_float_to_int(double v, unsigned bits, bool sgn) {
  if (isnan(v)) return 0;
  if (sgn) {
    double lo = -ldexp(1.0, (int)bits - 1), hi = ldexp(1.0, (int)bits - 1);
    if (v <= lo) return (uint64_t)(bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1)));
    if (v >= hi) return bits == 64 ? (uint64_t)INT64_MAX : ((uint64_t)1 << (bits - 1)) - 1;
    return (uint64_t)(int64_t)v;
  }
  double hi = ldexp(1.0, (int)bits);
  if (v <= -1.0) return 0;
  if (v >= hi) return bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
  return (uint64_t)v;
}

bool sem_float_to_int_in_range(double v, unsigned bits, bool sgn) {
  if (isnan(v)) return false;
  double t = trunc(v), span = ldexp(1.0, (int)bits - (sgn ? 1 : 0));
  return sgn ? t >= -span && t < span : t >= 0 && t < span;
}

/* On the bits of x (the backend's lowering, backend/lower_llvm_arith.c round_bits, does the same steps): x's significand
 * sig (the implicit bit included) has its leading place at exponent e; the result's last place is at te - mbits,
 * te = max(e, the format's smallest normal exponent); the `shift` bits of sig below it decide the rounding. */
uint32_t sem_round_bits(double x, SemFormat f, unsigned mode) {
  uint64_t b;
  memcpy(&b, &x, 8);
  bool neg = b >> 63;
  uint32_t sign = neg ? 1u << (f.ebits + f.mbits) : 0;
  uint32_t inf = ((1u << f.ebits) - 1) << f.mbits;
  int exp = (int)((b >> 52) & 0x7ff);
  uint64_t mant = b & ((1ull << 52) - 1);
  if (exp == 0x7ff) {
    if (!mant) return sign | inf;
    return f.ebits == 5 ? sign | inf | (1u << (f.mbits - 1)) : inf | ((1u << f.mbits) - 1);
  }
  int emin = 2 - (1 << (f.ebits - 1));
  uint64_t sig = mant | (exp ? 1ull << 52 : 0);
  int e = exp ? exp - 1023 : -1022;
  int te = e > emin ? e : emin;
  int shift = te - e + 52 - (int)f.mbits; /* >= 52 - mbits > 0 */
  uint64_t q = 0;
  bool above = false, tie = false, inexact = sig != 0;
  if (shift < 64) {
    uint64_t rest = sig & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    q = sig >> shift;
    above = rest > half;
    tie = rest == half;
    inexact = rest != 0;
  }
  bool up = mode == IR_ROUND_RN ? above || (tie && (q & 1)) : mode == IR_ROUND_RD ? inexact && neg : mode == IR_ROUND_RU && inexact && !neg;
  /* a normal value's leading bit (q >= 2^mbits) lands in the exponent field: bits = (te - emin) << mbits + q */
  uint64_t bits = ((uint64_t)(te - emin) << f.mbits) + q + up;
  if (bits >= inf) {
    bool to_inf = mode == IR_ROUND_RN || (mode == IR_ROUND_RD && neg) || (mode == IR_ROUND_RU && !neg);
    bits = to_inf ? inf : inf - 1;
  }
  return sign | (uint32_t)bits;
}

double sem_int_to_double(int64_t sx, uint64_t zx, bool sgn) {
  bool neg = sgn && sx < 0;
  uint64_t m = neg ? 0 - (uint64_t)sx : sgn ? (uint64_t)sx : zx;
  double d = m >> 53 ? (double)((m >> 11) | ((m & 0x7ff) != 0)) * 2048.0 : (double)m;
  return neg ? -d : d;
}

double sem_f16_value(uint16_t h) {
  int exp = (h >> 10) & 31, mant = h & 1023;
  double v = exp == 0 ? ldexp(mant, -24) : exp == 31 ? (mant ? NAN : INFINITY) : ldexp(mant | 1024, exp - 25);
  return h & 0x8000 ? -v : v;
}

SemVal sem_from_bits(uint64_t bits, SemTy t) {
  SemVal v;
  v.u = sem_norm(bits, t.sh, t.sgn);
  return v;
}

SemVal sem_from_double(double d, SemTy t) {
  SemVal v;
  v.u = 0;
  if (!t.is_float) v.u = sem_norm(sem_float_to_int(d, t.bits, t.sgn), t.sh, t.sgn);
  else if (t.bits == 64) v.d = d;
  else if (t.bits == 32) v.f = (float)d;
  else v.f = sem_narrow_round(t, d);
  return v;
}

double sem_to_double(SemVal v, SemTy t) { return t.bits == 64 ? v.d : (double)v.f; }

/* A float result of type t computed in float (f16, bf16: rounded to binary16, bfloat16). */
static inline float f_res(SemTy t, float x) { return t.bits == 16 ? sem_narrow_round(t, x) : x; }

/* ---- integers --------------------------------------------------------------------------------------------- */

#define SX(k) sem_sext(x[k].u, s->a[k].sh)
#define ZX(k) sem_zext(x[k].u, s->a[k].sh)
#define RES(v) (r->u = sem_norm((v), s->r.sh, s->r.sgn))

static bool eval_addi(const SemSig *s, const SemVal *x, SemVal *r) { RES(x[0].u + x[1].u); return true; }
static bool eval_subi(const SemSig *s, const SemVal *x, SemVal *r) { RES(x[0].u - x[1].u); return true; }
static bool eval_muli(const SemSig *s, const SemVal *x, SemVal *r) { RES(x[0].u * x[1].u); return true; }
/* division and remainder by zero: 0, not folded (Python raises there: the program may never run it) */
static bool eval_divsi(const SemSig *s, const SemVal *x, SemVal *r) { RES(sem_divsi(SX(0), SX(1))); return SX(1) != 0; }
static bool eval_divui(const SemSig *s, const SemVal *x, SemVal *r) { RES(sem_divui(ZX(0), ZX(1))); return ZX(1) != 0; }
static bool eval_remsi(const SemSig *s, const SemVal *x, SemVal *r) { RES(sem_remsi(SX(0), SX(1))); return SX(1) != 0; }
static bool eval_remui(const SemSig *s, const SemVal *x, SemVal *r) { RES(sem_remui(ZX(0), ZX(1))); return ZX(1) != 0; }
static bool eval_floordivsi(const SemSig *s, const SemVal *x, SemVal *r) { RES(sem_floordivsi(SX(0), SX(1))); return true; }
static bool eval_floormodsi(const SemSig *s, const SemVal *x, SemVal *r) { RES(sem_floormodsi(SX(0), SX(1))); return true; }
static bool eval_minsi(const SemSig *s, const SemVal *x, SemVal *r) { RES(SX(1) < SX(0) ? x[1].u : x[0].u); return true; }
static bool eval_maxsi(const SemSig *s, const SemVal *x, SemVal *r) { RES(SX(1) > SX(0) ? x[1].u : x[0].u); return true; }
static bool eval_minui(const SemSig *s, const SemVal *x, SemVal *r) { RES(ZX(1) < ZX(0) ? x[1].u : x[0].u); return true; }
static bool eval_maxui(const SemSig *s, const SemVal *x, SemVal *r) { RES(ZX(1) > ZX(0) ? x[1].u : x[0].u); return true; }
static bool eval_ipow(const SemSig *s, const SemVal *x, SemVal *r) {
  RES(sem_ipow(x[0].u, ZX(1), s->a[1].sgn && SX(1) < 0, s->r.bits));
  return true;
}
static bool eval_absi(const SemSig *s, const SemVal *x, SemVal *r) { RES(sem_absi(SX(0))); return true; }
/* a shift by the width or more (or by a negative amount of a signed type): defined, not folded (LLVM's shifts
 * leave it undefined; the backend clamps) */
static bool shift_in_range(const SemSig *s, const SemVal *x) { return !(s->a[1].sgn && SX(1) < 0) && ZX(1) < s->r.bits; }
static bool eval_shli(const SemSig *s, const SemVal *x, SemVal *r) { RES(sem_shl(x[0].u, ZX(1), s->r.bits)); return shift_in_range(s, x); }
static bool eval_shrsi(const SemSig *s, const SemVal *x, SemVal *r) { RES(sem_shrs(SX(0), ZX(1), s->r.bits)); return shift_in_range(s, x); }
static bool eval_shrui(const SemSig *s, const SemVal *x, SemVal *r) { RES(sem_shru(ZX(0), ZX(1), s->r.bits)); return shift_in_range(s, x); }
static bool eval_andi(const SemSig *s, const SemVal *x, SemVal *r) { RES(x[0].u & x[1].u); return true; }
static bool eval_ori(const SemSig *s, const SemVal *x, SemVal *r) { RES(x[0].u | x[1].u); return true; }
static bool eval_xori(const SemSig *s, const SemVal *x, SemVal *r) { RES(x[0].u ^ x[1].u); return true; }
static bool eval_popc(const SemSig *s, const SemVal *x, SemVal *r) { RES(sem_popc(ZX(0))); return true; }
static bool eval_clz(const SemSig *s, const SemVal *x, SemVal *r) { RES(sem_clz(ZX(0), s->a[0].bits)); return true; }
static bool eval_ffs(const SemSig *s, const SemVal *x, SemVal *r) { RES(sem_ffs(ZX(0))); return true; }
static bool eval_brev(const SemSig *s, const SemVal *x, SemVal *r) { RES(sem_brev(ZX(0), s->a[0].bits)); return true; }
static bool eval_cmpi(const SemSig *s, const SemVal *x, SemVal *r) {
  r->u = sem_cmpi((unsigned)s->pred, SX(0), SX(1), ZX(0), ZX(1));
  return true;
}
static bool eval_select(const SemSig *s, const SemVal *x, SemVal *r) {
  (void)s;
  *r = x[0].u ? x[1] : x[2];
  return true;
}

/* ---- floats ----------------------------------------------------------------------------------------------- */

/* A binary float op: in double for f64, in float (rounded to binary16 for f16) otherwise. */
#define FLOAT2(name, F, D, FOLD)                                                     \
  static bool eval_##name(const SemSig *s, const SemVal *x, SemVal *r) {            \
    if (s->r.bits == 64) {                                                           \
      double a = x[0].d, b = x[1].d;                                                 \
      r->d = D;                                                                      \
      return FOLD;                                                                   \
    }                                                                                \
    float a = x[0].f, b = x[1].f;                                                    \
    r->f = f_res(s->r, F);                                                           \
    return FOLD;                                                                     \
  }
/* fmod / Python's % and // by zero or of an infinity: defined (NaN, a / 0, ...), not folded */
#define FINITE_DIVISOR (b != 0 && isfinite(a) && isfinite(b))
/* Python's min / max with a NaN or two zeros of different signs: defined by the operand order, not folded */
#define ORDERED_DISTINCT (!isnan(a) && !isnan(b) && !(a == b && signbit(a) != signbit(b)))
FLOAT2(addf, a + b, a + b, true)
FLOAT2(subf, a - b, a - b, true)
FLOAT2(mulf, a * b, a * b, true)
FLOAT2(divf, a / b, a / b, true)
FLOAT2(remf, fmodf(a, b), fmod(a, b), FINITE_DIVISOR)
FLOAT2(floordivf, sem_floordiv_f(a, b), sem_floordiv_d(a, b), FINITE_DIVISOR)
FLOAT2(floormodf, sem_floormod_f(a, b), sem_floormod_d(a, b), FINITE_DIVISOR)
FLOAT2(minf, sem_min_f(a, b), sem_min_d(a, b), ORDERED_DISTINCT)
FLOAT2(maxf, sem_max_f(a, b), sem_max_d(a, b), ORDERED_DISTINCT)

static bool eval_negf(const SemSig *s, const SemVal *x, SemVal *r) {
  if (s->r.bits == 64) r->d = -x[0].d;
  else r->f = -x[0].f;
  return true;
}

static bool eval_cmpf(const SemSig *s, const SemVal *x, SemVal *r) {
  r->u = sem_cmpf((unsigned)s->pred, sem_to_double(x[0], s->a[0]), sem_to_double(x[1], s->a[1]));
  return true;
}

/* A libm function of the row (f1/d1, f2/d2): in float for f32 and f16 (rounded), in double for f64. */
static bool eval_math1(const SemSig *s, const SemVal *x, SemVal *r) {
  const OpSem *o = &ir_op_sem[s->kind];
  if (s->r.bits == 64) r->d = o->d1(x[0].d);
  else r->f = f_res(s->r, o->f1(x[0].f));
  return true;
}

static bool eval_math2(const SemSig *s, const SemVal *x, SemVal *r) {
  const OpSem *o = &ir_op_sem[s->kind];
  if (s->r.bits == 64) r->d = o->d2(x[0].d, x[1].d);
  else r->f = f_res(s->r, o->f2(x[0].f, x[1].f));
  return true;
}

/* math.fmod: C's fmod; by zero or of an infinity not folded (as arith.remf) */
static bool eval_fmod(const SemSig *s, const SemVal *x, SemVal *r) {
  eval_math2(s, x, r);
  double a = sem_to_double(x[0], s->a[0]), b = sem_to_double(x[1], s->a[1]);
  return FINITE_DIVISOR;
}

/* math.powi: x ** n by squaring in the op's precision (each product of an f16 rounded to binary16, as the GPU
 * multiplies halves) */
static bool eval_powi(const SemSig *s, const SemVal *x, SemVal *r) {
  bool neg = s->a[1].sgn && SX(1) < 0;
  uint64_t e = neg ? 0 - (uint64_t)SX(1) : ZX(1);
  if (s->r.bits == 64) {
    r->d = sem_powi_d(x[0].d, e, neg);
  } else if (s->r.bits == 32) {
    r->f = sem_powi_f(x[0].f, e, neg);
  } else if (s->r.bf) { /* bf16: in f32, rounded once (as the backend computes bf16 ops) */
    r->f = sem_bf16_round(sem_powi_f(x[0].f, e, neg));
  } else {
    float b = x[0].f, p = 1;
    for (; e; e >>= 1, b = sem_f16_round(b * b))
      if (e & 1) p = sem_f16_round(p * b);
    r->f = neg ? sem_f16_round(1 / p) : p;
  }
  return true;
}

/* math.remainder: IEEE's, exact; by zero or of an infinity (NaN) not folded */
static bool eval_remainder(const SemSig *s, const SemVal *x, SemVal *r) {
  eval_math2(s, x, r);
  double a = sem_to_double(x[0], s->a[0]), b = sem_to_double(x[1], s->a[1]);
  return FINITE_DIVISOR;
}

static bool eval_nextafter(const SemSig *s, const SemVal *x, SemVal *r) {
  if (s->r.bits == 64) r->d = nextafter(x[0].d, x[1].d);
  else r->f = nextafterf(x[0].f, x[1].f); /* the verifier allows f32 and f64 only */
  return true;
}

/* f16 and bf16: a * b is exact in f64 (22 or 16 bits); the sum p + c rounded to odd (TwoSum's error or'ed into
 * the last place) keeps enough bits (53 > 11 + 2) to round to the 16-bit format once, as fma.rn.f16 and
 * fma.rn.bf16 do: the correctly rounded a * b + c (rounding the sum to nearest in f64 or f32 first could round
 * twice) */
static float narrow_fma(SemTy t, float a, float b, float c) {
  double p = (double)a * (double)b, s = p + (double)c;
  if (isfinite(s)) {
    double bb = s - p, err = (p - (s - bb)) + ((double)c - bb);
    uint64_t u;
    memcpy(&u, &s, 8);
    if (err != 0 && !(u & 1)) u += (err > 0) == (s > 0) ? 1 : -1; /* toward the exact sum: odd */
    memcpy(&s, &u, 8);
  }
  return sem_narrow_round(t, s);
}

static bool eval_fma(const SemSig *s, const SemVal *x, SemVal *r) {
  if (s->r.bits == 64) r->d = sem_fma_d(x[0].d, x[1].d, x[2].d);
  else if (s->r.bits == 32) r->f = sem_fma_f(x[0].f, x[1].f, x[2].f);
  else r->f = narrow_fma(s->r, x[0].f, x[1].f, x[2].f);
  return true;
}

static bool eval_ldexp(const SemSig *s, const SemVal *x, SemVal *r) {
  int n = (int)x[1].i;
  if (s->r.bits == 64) r->d = ldexp(x[0].d, n);
  else r->f = f_res(s->r, ldexpf(x[0].f, n)); /* f16: exact in f32, rounded once */
  return true;
}

/* frexp of x (f16 exactly as an f32): 0, infinities and NaN give (x, 0), as libdevice */
static double frexp_of(const SemSig *s, const SemVal *x, int *e) {
  double v = sem_to_double(x[0], s->a[0]);
  *e = 0;
  if (v == 0 || !isfinite(v)) return v;
  return s->a[0].bits == 64 ? frexp(v, e) : (double)frexpf((float)v, e);
}

static bool eval_frexp_mant(const SemSig *s, const SemVal *x, SemVal *r) {
  int e;
  *r = sem_from_double(frexp_of(s, x, &e), s->r);
  return true;
}

static bool eval_frexp_exp(const SemSig *s, const SemVal *x, SemVal *r) {
  int e;
  frexp_of(s, x, &e);
  RES((uint64_t)(int64_t)e);
  return true;
}

/* math.libdevice: the function's definition (ir/libdevice.c), result number `part`; folded when exact */
static bool eval_libdevice(const SemSig *s, const SemVal *x, SemVal *r) {
  const LibdeviceFn *f = ir_libdevice_at(s->fn - 1);
  LdEval ev = f ? ir_libdevice_eval(f) : NULL;
  r->u = 0;
  if (!ev) return false;
  SemVal out[LD_MAX_RESULTS];
  memset(out, 0, sizeof out);
  ev(x, out);
  *r = out[s->pred >= 0 && s->pred < LD_MAX_RESULTS ? s->pred : 0];
  if (!s->r.is_float) RES(r->u);
  return ir_libdevice_kind(f) == LD_EXACT;
}

static bool eval_isnan(const SemSig *s, const SemVal *x, SemVal *r) { r->u = isnan(sem_to_double(x[0], s->a[0])) != 0; return true; }
static bool eval_isinf(const SemSig *s, const SemVal *x, SemVal *r) { r->u = isinf(sem_to_double(x[0], s->a[0])) != 0; return true; }
static bool eval_isfinite(const SemSig *s, const SemVal *x, SemVal *r) { r->u = isfinite(sem_to_double(x[0], s->a[0])) != 0; return true; }

/* ---- casts ------------------------------------------------------------------------------------------------ */

static bool eval_extsi(const SemSig *s, const SemVal *x, SemVal *r) { RES((uint64_t)SX(0)); return true; }
static bool eval_extui(const SemSig *s, const SemVal *x, SemVal *r) { RES(ZX(0)); return true; }
static bool eval_trunci(const SemSig *s, const SemVal *x, SemVal *r) { RES(x[0].u); return true; }

/* d (exact, or rounded to odd) rounded to float type t by mode */
static bool eval_round_to(SemTy t, double d, unsigned mode, SemVal *r) {
  r->u = 0;
  if (t.bits == 64) {
    r->d = d; /* the integers and floats converted by mode are exact in f64 */
  } else if (t.bits == 32) {
    uint32_t b = sem_round_bits(d, SEM_FMT_F32, mode);
    memcpy(&r->f, &b, 4);
  } else {
    r->f = sem_narrow_value(t, (uint16_t)sem_round_bits(d, t.bf ? SEM_FMT_BF16 : SEM_FMT_F16, mode));
  }
  return true;
}

/* to nearest (the default), or by attr round: through sem_int_to_double, exact or rounded to odd */
static bool eval_itofp(const SemSig *s, const SemVal *x, SemVal *r, bool sgn) {
  if (s->pred > IR_ROUND_RN) {
    double d = sem_int_to_double(SX(0), ZX(0), sgn);
    return eval_round_to(s->r, d, (unsigned)s->pred, r);
  }
  if (s->r.bits == 64) r->d = sgn ? (double)SX(0) : (double)ZX(0);
  else if (s->r.bits == 32) r->f = sgn ? (float)SX(0) : (float)ZX(0);
  else r->f = sem_narrow_round(s->r, sem_int_to_double(SX(0), ZX(0), sgn));
  return true;
}
static bool eval_sitofp(const SemSig *s, const SemVal *x, SemVal *r) { return eval_itofp(s, x, r, true); }
static bool eval_uitofp(const SemSig *s, const SemVal *x, SemVal *r) { return eval_itofp(s, x, r, false); }

/* out of range or NaN: saturated (0 for NaN), not folded */
static bool eval_fptoi(const SemSig *s, const SemVal *x, SemVal *r, bool sgn) {
  double v = sem_to_double(x[0], s->a[0]);
  RES(sem_float_to_int(v, s->r.bits, sgn));
  return sem_float_to_int_in_range(v, s->r.bits, sgn);
}
static bool eval_fptosi(const SemSig *s, const SemVal *x, SemVal *r) { return eval_fptoi(s, x, r, true); }
static bool eval_fptoui(const SemSig *s, const SemVal *x, SemVal *r) { return eval_fptoi(s, x, r, false); }

/* arith.extf / truncf: exact widening; narrowing rounds to nearest even (f64 -> f16 once, not through f32), or
 * by attr round */
static bool eval_fconvert(const SemSig *s, const SemVal *x, SemVal *r) {
  if (s->kind == OP_TRUNCF && s->pred > IR_ROUND_RN) return eval_round_to(s->r, sem_to_double(x[0], s->a[0]), (unsigned)s->pred, r);
  *r = sem_from_double(sem_to_double(x[0], s->a[0]), s->r);
  return true;
}

/* arith.bitcast: the same bits (f16 as its binary16 bits); a float NaN's payload does not survive kir's text
 * form: not folded */
static bool eval_bitcast(const SemSig *s, const SemVal *x, SemVal *r) {
  SemTy from = s->a[0], to = s->r;
  uint64_t bits = x[0].u;
  bool fold = true;
  if (from.is_float) {
    if (from.bits == 64) memcpy(&bits, &x[0].d, 8);
    else if (from.bits == 32) {
      uint32_t b32;
      memcpy(&b32, &x[0].f, 4);
      bits = b32;
    } else {
      bits = sem_narrow_bits(from, x[0].f);
    }
    fold = !isnan(sem_to_double(x[0], from));
  }
  if (!to.is_float) {
    RES(bits);
  } else if (to.bits == 64) {
    memcpy(&r->d, &bits, 8);
  } else if (to.bits == 32) {
    uint32_t b32 = (uint32_t)bits;
    r->u = 0;
    memcpy(&r->f, &b32, 4);
  } else {
    r->u = 0;
    r->f = sem_narrow_value(to, (uint16_t)bits);
  }
  return fold;
}

/* ---- FP8 (cuda_fp8.h) ---------------------------------------------------------------------------------------- */

/* |x| rounded to nearest even in a format of mbits fraction bits whose normal exponents start at emin: scaled by
 * the power of two of its last place, which is exact, and rounded by rint (the host's default mode: to nearest
 * even). Then encoded with exponent bias bias; *over when the result is above maxv. */
static unsigned fp8_round_magnitude(double a, int mbits, int emin, int bias, double maxv, bool *over) {
  int e;
  frexp(a, &e);
  e -= 1; /* a = 1.f * 2^e */
  if (e < emin) e = emin;
  double v = ldexp(rint(ldexp(a, mbits - e)), e - mbits);
  *over = v > maxv;
  if (v == 0 || *over) return 0;
  frexp(v, &e);
  e -= 1;
  if (e < emin) return (unsigned)ldexp(v, mbits - emin); /* subnormal: the fraction in units of the last place */
  return (unsigned)(e + bias) << mbits | ((unsigned)ldexp(v, mbits - e) & ((1u << mbits) - 1));
}

uint8_t sem_fp8_from_double(double x, TyStorage f, bool satfinite, bool nan_payload) {
  bool e4m3 = f == TS_E4M3;
  uint64_t b = sem_f64_to_bits(x);
  uint8_t sign = (uint8_t)(b >> 63 << 7);
  if (isnan(x)) {
    if (!nan_payload) return 0x7f;
    return (uint8_t)(sign | (e4m3 ? 0x7f : 0x7e | (unsigned)(b >> 50 & 3)));
  }
  bool over;
  unsigned r = e4m3 ? fp8_round_magnitude(fabs(x), 3, -6, 7, 448.0, &over)
                    : fp8_round_magnitude(fabs(x), 2, -14, 15, 57344.0, &over);
  if (over) r = satfinite ? (e4m3 ? 0x7e : 0x7b) : (e4m3 ? 0x7f : 0x7c);
  return (uint8_t)(sign | r);
}

uint8_t sem_e8m0_from_bf16_bits(uint16_t b, bool satfinite, bool ru) {
  unsigned mag = b & 0x7fffu;
  unsigned r = mag >> 7;
  if (ru && (b & 0x7f) && mag > 0x40 && mag < 0x7f80) r++;
  if (satfinite && mag <= 0x7f80 && r == 0xff) r = 0xfe;
  return (uint8_t)r;
}

uint8_t sem_e8m0_from_float(float x, bool satfinite, bool ru) {
  uint32_t u = sem_f32_to_bits(x);
  uint16_t h;
  if (!ru) {
    h = isnan(x) ? 0x7fff : (uint16_t)(u >> 16);
  } else {
    u &= 0x7fffffffu; /* |x| */
    h = isnan(x) ? 0x7fff : (uint16_t)((u >> 16) + (u < 0x7f800000u && (u & 0xffffu) ? 1 : 0));
  }
  return sem_e8m0_from_bf16_bits(h, satfinite, ru);
}

uint8_t sem_e8m0_from_double(double x, bool satfinite, bool ru) {
  float f = (float)x; /* to nearest, subnormals kept */
  double d = (double)f;
  uint32_t u = sem_f32_to_bits(f);
  bool not_nan = (uint32_t)(u << 1) <= 0xff000000u;
  if ((x > 0 && d > x) || (x < 0 && d < x)) u--;
  if (d != x && not_nan) u |= 1;
  return sem_e8m0_from_float(sem_bits_to_f32(u), satfinite, ru);
}

uint16_t sem_fp8_to_f16_bits(uint8_t b, TyStorage f) {
  uint16_t sign = (uint16_t)((b & 0x80u) << 8);
  if (f == TS_E5M2) return (b & 0x7f) > 0x7c ? 0x7fff : (uint16_t)(b << 8); /* binary16's upper byte */
  if ((b & 0x7f) == 0x7f) return 0x7fff;
  unsigned e = (b >> 3) & 0xf, m = b & 7;
  if (e == 0) { /* a subnormal of E4M3 (m * 2^-9) is a normal binary16 */
    if (m == 0) return sign;
    unsigned p = m >= 4 ? 2 : m >= 2 ? 1 : 0; /* m * 2^-9 = 1.f * 2^(p - 9) */
    return (uint16_t)(sign | (p - 9 + 15) << 10 | ((m << (3 - p)) & 7) << 7);
  }
  return (uint16_t)(sign | (e - 7 + 15) << 10 | m << 7);
}

uint16_t sem_e8m0_to_bf16_bits(uint8_t b) { return b == 0xff ? 0x7fff : b == 0 ? 0x0040 : (uint16_t)(b << 7); }

/* arith.to_fp8: by the operand's type, as cuda_fp8.h converts each (the f16, bf16 and f32 paths through the
 * float's exact double; E8M0 from bf16 directly on its bits) */
static bool eval_to_fp8(const SemSig *s, const SemVal *x, SemVal *r) {
  TyStorage f = (TyStorage)(s->pred & 3);
  bool sat = s->pred & SEM_FP8_SATFINITE, ru = s->pred & SEM_FP8_RU;
  SemTy a = s->a[0];
  double v = sem_to_double(x[0], a);
  uint8_t bits;
  if (f != TS_E8M0) bits = sem_fp8_from_double(v, f, sat, a.bits == 64);
  else if (a.bits == 64) bits = sem_e8m0_from_double(v, sat, ru);
  else if (a.bf) bits = sem_e8m0_from_bf16_bits(sem_bf16_bits(v), sat, ru);
  else bits = sem_e8m0_from_float((float)v, sat, ru);
  RES(bits);
  return true;
}

/* arith.from_fp8: E4M3 / E5M2 through their binary16 value, E8M0 through its bfloat16 (cuda_fp8.h's operators:
 * f32 exact, f64 its f32 widened, bf16 from the f32 toward zero, f16 from E8M0's f32 to nearest). A NaN result is,
 * as the H200 gives it (numba-cuda's and kfront's code, 2026-12-02): to f32 the canonical 0x7fffffff (E8M0: the
 * bfloat16 bits 0x7fff widened, 0x7fff0000), to f64 that f32 widened with its payload (0x7fffffffe0000000, E8M0
 * 0x7fffe00000000000), to f16 0x7fff. */
static bool eval_from_fp8(const SemSig *s, const SemVal *x, SemVal *r) {
  TyStorage f = (TyStorage)(s->pred & 3);
  uint8_t b = (uint8_t)x[0].u;
  SemTy t = s->r;
  float v;
  if (f == TS_E8M0) {
    uint16_t h = sem_e8m0_to_bf16_bits(b);
    if (t.bf) {
      r->u = 0;
      r->f = sem_bf16_value(h);
      return true;
    }
    v = sem_bits_to_f32((uint32_t)h << 16);
  } else {
    uint16_t h = sem_fp8_to_f16_bits(b, f);
    if (t.bits == 16 && !t.bf) {
      r->u = 0;
      r->f = (float)sem_f16_value(h);
      return true;
    }
    v = (h & 0x7fffu) > 0x7c00u ? sem_bits_to_f32(0x7fffffffu) : (float)sem_f16_value(h);
  }
  r->u = 0;
  if (t.bits == 64) { /* widened bit by bit: a NaN keeps its payload (cvt.f64.f32), whatever the host's conversion */
    uint32_t u;
    memcpy(&u, &v, 4);
    r->d = isnan(v) ? sem_bits_to_f64(((uint64_t)(u >> 31) << 63) | (0x7ffull << 52) | ((uint64_t)(u & 0x7fffffu) << 29))
                    : (double)v;
  }
  else if (t.bits == 32) r->f = v;
  else if (t.bf) return eval_round_to(t, (double)v, IR_ROUND_RZ, r);
  else r->f = sem_f16_round(v);
  return true;
}

/* ---- libm wrappers (functions whose address the table takes) ---------------------------------------------- */

static float rint_f(float x) { return rintf(x); }
static double rint_d(double x) { return rint(x); }

/* ---- the table -------------------------------------------------------------------------------------------- */

/* A libm function: f32/f64 host functions and the libdevice name (LIBM: may differ from libdevice's last place). */
#define MATH1(Id, F, D, name, fl) [OP_##Id] = {eval_math1, fl, name, F, D, NULL, NULL}
#define MATH2(Id, F, D, name, fl) [OP_##Id] = {eval_math2, fl, name, NULL, NULL, F, D}
#define EVAL(Id, fn) [OP_##Id] = {fn, 0, NULL, NULL, NULL, NULL, NULL}
#define LIBM SEM_LIBM
#define EXACT 0

const OpSem ir_op_sem[OP__COUNT] = {
    EVAL(ADDI, eval_addi),
    EVAL(SUBI, eval_subi),
    EVAL(MULI, eval_muli),
    EVAL(DIVSI, eval_divsi),
    EVAL(DIVUI, eval_divui),
    EVAL(REMSI, eval_remsi),
    EVAL(REMUI, eval_remui),
    EVAL(FLOORDIVSI, eval_floordivsi),
    EVAL(FLOORMODSI, eval_floormodsi),
    EVAL(MINSI, eval_minsi),
    EVAL(MAXSI, eval_maxsi),
    EVAL(MINUI, eval_minui),
    EVAL(MAXUI, eval_maxui),
    EVAL(IPOW, eval_ipow),
    EVAL(ABSI, eval_absi),
    EVAL(SHLI, eval_shli),
    EVAL(SHRSI, eval_shrsi),
    EVAL(SHRUI, eval_shrui),
    EVAL(ANDI, eval_andi),
    EVAL(ORI, eval_ori),
    EVAL(XORI, eval_xori),
    EVAL(POPC, eval_popc),
    EVAL(CLZ, eval_clz),
    EVAL(FFS, eval_ffs),
    EVAL(BREV, eval_brev),
    EVAL(ADDF, eval_addf),
    EVAL(SUBF, eval_subf),
    EVAL(MULF, eval_mulf),
    EVAL(DIVF, eval_divf),
    EVAL(REMF, eval_remf),
    EVAL(FLOORDIVF, eval_floordivf),
    EVAL(FLOORMODF, eval_floormodf),
    EVAL(MINF, eval_minf),
    EVAL(MAXF, eval_maxf),
    EVAL(NEGF, eval_negf),
    EVAL(CMPI, eval_cmpi),
    EVAL(CMPF, eval_cmpf),
    EVAL(SELECT, eval_select),
    EVAL(EXTSI, eval_extsi),
    EVAL(EXTUI, eval_extui),
    EVAL(TRUNCI, eval_trunci),
    EVAL(SITOFP, eval_sitofp),
    EVAL(UITOFP, eval_uitofp),
    EVAL(FPTOSI, eval_fptosi),
    EVAL(FPTOUI, eval_fptoui),
    EVAL(EXTF, eval_fconvert),
    EVAL(TRUNCF, eval_fconvert),
    EVAL(BITCAST, eval_bitcast),
    EVAL(TO_FP8, eval_to_fp8),
    EVAL(FROM_FP8, eval_from_fp8),
    /* correctly rounded (sqrt) or exact in IEEE arithmetic on the host and the GPU alike: folded */
    MATH1(SQRT, sqrtf, sqrt, "sqrt", EXACT),
    MATH1(EXP, expf, exp, "exp", LIBM),
    MATH1(EXP2, exp2f, exp2, "exp2", LIBM),
    MATH1(EXPM1, expm1f, expm1, "expm1", LIBM),
    MATH1(LOG, logf, log, "log", LIBM),
    MATH1(LOG2, log2f, log2, "log2", LIBM),
    MATH1(LOG10, log10f, log10, "log10", LIBM),
    MATH1(LOG1P, log1pf, log1p, "log1p", LIBM),
    MATH1(SIN, sinf, sin, "sin", LIBM),
    MATH1(COS, cosf, cos, "cos", LIBM),
    MATH1(TAN, tanf, tan, "tan", LIBM),
    MATH1(ASIN, asinf, asin, "asin", LIBM),
    MATH1(ACOS, acosf, acos, "acos", LIBM),
    MATH1(ATAN, atanf, atan, "atan", LIBM),
    MATH1(SINH, sinhf, sinh, "sinh", LIBM),
    MATH1(COSH, coshf, cosh, "cosh", LIBM),
    MATH1(TANH, tanhf, tanh, "tanh", LIBM),
    MATH1(ASINH, asinhf, asinh, "asinh", LIBM),
    MATH1(ACOSH, acoshf, acosh, "acosh", LIBM),
    MATH1(ATANH, atanhf, atanh, "atanh", LIBM),
    MATH1(ERF, erff, erf, "erf", LIBM),
    MATH1(ERFC, erfcf, erfc, "erfc", LIBM),
    MATH1(GAMMA, tgammaf, tgamma, "tgamma", LIBM),
    MATH1(LGAMMA, lgammaf, lgamma, "lgamma", LIBM),
    MATH1(FLOOR, floorf, floor, "floor", EXACT),
    MATH1(CEIL, ceilf, ceil, "ceil", EXACT),
    MATH1(TRUNC, truncf, trunc, "trunc", EXACT),
    MATH1(ROUND, rint_f, rint_d, "rint", EXACT), /* Python's round(): half to even */
    MATH1(FABS, fabsf, fabs, "fabs", EXACT),
    MATH2(POW, powf, pow, "pow", LIBM),
    MATH2(ATAN2, atan2f, atan2, "atan2", LIBM),
    MATH2(HYPOT, hypotf, hypot, "hypot", LIBM),
    MATH2(COPYSIGN, copysignf, copysign, "copysign", EXACT),
    [OP_FMOD] = {eval_fmod, EXACT, "fmod", NULL, NULL, fmodf, fmod},
    EVAL(POWI, eval_powi),
    EVAL(ISNAN, eval_isnan),
    EVAL(ISINF, eval_isinf),
    EVAL(ISFINITE, eval_isfinite),
    MATH1(CBRT, cbrtf, cbrt, "cbrt", LIBM),
    [OP_REMAINDER] = {eval_remainder, EXACT, "remainder", NULL, NULL, remainderf, remainder},
    [OP_NEXTAFTER] = {eval_nextafter, EXACT, "nextafter", NULL, NULL, NULL, NULL},
    [OP_FMA] = {eval_fma, EXACT, "fma", NULL, NULL, NULL, NULL},
    [OP_LDEXP] = {eval_ldexp, EXACT, "ldexp", NULL, NULL, NULL, NULL},
    EVAL(FREXP_MANT, eval_frexp_mant), /* backend: __nv_frexp (lower_frexp) */
    EVAL(FREXP_EXP, eval_frexp_exp),
    EVAL(LIBDEVICE, eval_libdevice), /* backend: a call of __nv_<name> (lower_libdevice) */
};
