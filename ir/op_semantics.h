/* op_semantics.h — what each pure scalar op of kir computes: the one definition of its results.
 *
 * Constant folding (passes/canonicalize.c) and the simulator (runtime/sim/) evaluate ops through this file
 * alone; the backend (backend/lower_llvm.c) implements the same results on the GPU, calling libdevice by the
 * name this table gives where the op is a library function, and test/gpu/ checks on the GPU that the two
 * agree. Adding a pure scalar op means: its line in ops.def, its row in ir_op_sem (op_semantics.c), its LLVM
 * lowering (none when the row names a libdevice function) and its tests. The simulator runs every op that has
 * an evaluation here without knowing it (a generic instruction calls the row's eval); canonicalize folds it.
 *
 * Values (SemVal): an integer is kept normalised to its type — a signed type's value sign-extended to 64 bits,
 * an unsigned type's and i1's zero-extended (the form of integer constants' attributes and of the simulator's
 * registers); an f64 in d; an f32 in f; an f16 in f, holding a binary16 value: f16 ops compute in f32 and
 * round the result to binary16 (for +, -, *, /, sqrt that is the correctly rounded binary16 result, as on the
 * GPU: f32 has more than 2 * 11 + 2 bits); a bf16 in f, holding a bfloat16 value, the same way (f32 has more
 * than 2 * 8 + 2 bits). math.fma of either is rounded once from the exact a * b + c (fma.rn.f16 / .bf16), and
 * of f32 and f64 too. The inline kernels below are the definitions the simulator's own
 * fast instructions call; the evaluations in op_semantics.c call the same kernels.
 *
 * Where Python raises (an integer division by zero, ...) or C leaves a case undefined, kfront defines a result
 * and every implementation gives it: integer division and remainder by zero are 0 (x // 0 and x % 0 too, as
 * Numba); INT_MIN / -1 wraps; a shift by the width or more gives 0 (arithmetic right shift: the sign); a
 * negative integer exponent gives 0; float to integer truncates toward zero and saturates, NaN giving 0 (PTX
 * cvt.rzi.sat). An evaluation returns false for such an input when folding must keep the op (the cases a
 * program may never reach: see each row). */
#ifndef KF_IR_OP_SEMANTICS_H
#define KF_IR_OP_SEMANTICS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ir/ir.h"

/* A scalar value (see above). p is no scalar: it lets the simulator keep an array in a register of the same
 * union; no op here reads or writes it. */
typedef union SemVal {
  int64_t i;
  uint64_t u;
  double d;
  float f;
  void *p;
} SemVal;

/* A scalar type as the evaluations need it. */
typedef struct SemTy {
  uint8_t bits;   /* 1 (i1), 8, 16, 32, 64; floats 16, 32, 64; 0: not a scalar */
  uint8_t sh;     /* integers: 64 - bits; a value's normal form is (v << sh) >> sh */
  bool is_float;
  bool sgn;       /* integers: a signed type (normalised by sign extension) */
  bool bf;        /* a 16-bit float that is bfloat16 (not binary16) */
} SemTy;

/* One op's types: its result and operands, and its predicate (arith.cmpi / cmpf). */
typedef struct SemSig {
  uint16_t kind;  /* OpKind */
  uint8_t n;      /* operands */
  int8_t pred;    /* IrCmpIPred / IrCmpFPred, -1 for none; for arith.truncf / sitofp / uitofp the IrRoundMode of attr round;
                   * for math.libdevice its attr part */
  uint16_t fn;    /* math.libdevice: 1 + the function's row of ir/libdevice.def; 0 for other ops */
  SemTy r, a[3];
} SemSig;

SemTy sem_ty(const Type *t);
/* op's signature; false when op is not a scalar op of at most three operands and one result (arrays, ...)
 * or its predicate is unknown. */
bool sem_sig_of(const Op *op, SemSig *s);

/* ---- the kernels: integers (operands as noted; results still to normalise to the result type) ------------ */

static inline int64_t sem_sext(uint64_t v, unsigned sh) { return (int64_t)(v << sh) >> sh; }
static inline uint64_t sem_zext(uint64_t v, unsigned sh) { return (v << sh) >> sh; }
static inline uint64_t sem_norm(uint64_t v, unsigned sh, bool sgn) { return sgn ? (uint64_t)sem_sext(v, sh) : sem_zext(v, sh); }

/* arith.divsi / remsi: C's division toward zero of the signed values; by 0: 0; INT_MIN / -1 wraps */
static inline uint64_t sem_divsi(int64_t x, int64_t y) { return y == 0 ? 0 : y == -1 ? 0 - (uint64_t)x : (uint64_t)(x / y); }
static inline uint64_t sem_remsi(int64_t x, int64_t y) { return y == 0 || y == -1 ? 0 : (uint64_t)(x % y); }
/* arith.floordivsi / floormodsi: Python's // and % (toward negative infinity); by 0: 0 */
static inline uint64_t sem_floordivsi(int64_t x, int64_t y) {
  if (y == 0) return 0;
  if (y == -1) return 0 - (uint64_t)x;
  return (uint64_t)(x / y - ((x % y != 0) && ((x < 0) != (y < 0))));
}
static inline uint64_t sem_floormodsi(int64_t x, int64_t y) {
  if (y == 0 || y == -1) return 0;
  int64_t r = x % y;
  return (uint64_t)(r != 0 && ((r < 0) != (y < 0)) ? r + y : r);
}
/* arith.divui / remui of the zero-extended values; by 0: 0 */
static inline uint64_t sem_divui(uint64_t x, uint64_t y) { return y ? x / y : 0; }
static inline uint64_t sem_remui(uint64_t x, uint64_t y) { return y ? x % y : 0; }
/* arith.ipow of a bits-wide base (normalised) by e (its bits; e_neg: a negative exponent): base ** e by squaring
 * (wrapping); for a negative exponent as Numba's int_power: 1 for base 1, -1 or 1 (e odd or even) for base -1,
 * the type's minimum for base 0, else 0. */
static inline uint64_t sem_ipow(uint64_t base, uint64_t e, bool e_neg, unsigned bits) {
  if (e_neg) return base == 1 ? 1 : base == ~0ull ? ((e & 1) ? ~0ull : 1) : base == 0 ? 1ull << (bits - 1) : 0;
  uint64_t r = 1;
  for (; e; e >>= 1, base *= base)
    if (e & 1) r *= base;
  return r;
}
/* arith.shli / shrsi / shrui by s (the zero-extended amount) on a bits-wide value */
static inline uint64_t sem_shl(uint64_t x, uint64_t s, unsigned bits) { return s >= bits ? 0 : x << s; }
static inline uint64_t sem_shrs(int64_t sx, uint64_t s, unsigned bits) { return (uint64_t)(s >= bits ? (sx < 0 ? -1 : 0) : sx >> s); }
static inline uint64_t sem_shru(uint64_t zx, uint64_t s, unsigned bits) { return s >= bits ? 0 : zx >> s; }
static inline uint64_t sem_absi(int64_t sx) { return sx < 0 ? 0 - (uint64_t)sx : (uint64_t)sx; }
/* arith.popc / clz / ffs / brev of the zero-extended bits-wide value */
static inline uint64_t sem_popc(uint64_t zx) { return (uint64_t)__builtin_popcountll(zx); }
static inline uint64_t sem_clz(uint64_t zx, unsigned bits) { return zx ? (uint64_t)(__builtin_clzll(zx) - (64 - (int)bits)) : bits; }
static inline uint64_t sem_ffs(uint64_t zx) { return (uint64_t)__builtin_ffsll((long long)zx); }
static inline uint64_t sem_brev(uint64_t zx, unsigned bits) {
  uint64_t x = zx;
  x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
  x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
  x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
  return __builtin_bswap64(x) >> (64 - bits);
}
static inline bool sem_cmpi(unsigned pred, int64_t sx, int64_t sy, uint64_t zx, uint64_t zy) {
  switch (pred) {
  case IR_CMPI_EQ: return zx == zy;
  case IR_CMPI_NE: return zx != zy;
  case IR_CMPI_SLT: return sx < sy;
  case IR_CMPI_SLE: return sx <= sy;
  case IR_CMPI_SGT: return sx > sy;
  case IR_CMPI_SGE: return sx >= sy;
  case IR_CMPI_ULT: return zx < zy;
  case IR_CMPI_ULE: return zx <= zy;
  case IR_CMPI_UGT: return zx > zy;
  default: return zx >= zy;
  }
}

/* ---- the kernels: floats (f16 as f32, rounded by the caller) --------------------------------------------- */

static inline bool sem_cmpf(unsigned pred, double x, double y) {
  bool uno = isnan(x) || isnan(y);
  switch (pred) {
  case IR_CMPF_OEQ: return !uno && x == y;
  case IR_CMPF_ONE: return !uno && x != y;
  case IR_CMPF_OLT: return !uno && x < y;
  case IR_CMPF_OLE: return !uno && x <= y;
  case IR_CMPF_OGT: return !uno && x > y;
  case IR_CMPF_OGE: return !uno && x >= y;
  case IR_CMPF_ORD: return !uno;
  case IR_CMPF_UNE: return uno || x != y;
  case IR_CMPF_ULT: return uno || x < y;
  case IR_CMPF_ULE: return uno || x <= y;
  case IR_CMPF_UGT: return uno || x > y;
  case IR_CMPF_UGE: return uno || x >= y;
  default: return uno;
  }
}

/* Per precision (suffix f: float, d: double):
 *   sem_floordiv / sem_floormod: Python's float // and % (CPython's float_divmod, which Numba follows); by 0:
 *     a / 0 and fmod(a, 0), as NumPy;
 *   sem_min / sem_max: Python's min(a, b) / max(a, b): b when b < a (b > a), else a (NaN and signed zeros by
 *     that rule);
 *   sem_powi: x ** n for an integer n by squaring (as Numba and the GPU code: r = 1; while n: if n & 1: r *= x;
 *     x *= x; n >>= 1), 1 / r for a negative n (neg, magnitude e);
 *   sem_fma: math.fma, a * b + c rounded once (C's fma, fma.rn on the GPU; f16 and bf16: op_semantics.c). */
#define SEM_FLOAT_KERNELS(T, S, FMOD, FLOOR, COPYSIGN, FMA)             \
  static inline T sem_floordiv_##S(T a, T b) {                          \
    if (b == 0) return a / b;                                           \
    T mod = FMOD(a, b), div = (a - mod) / b;                            \
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;                   \
    if (div != 0) {                                                     \
      T fd = FLOOR(div);                                                \
      return div - fd > (T)0.5 ? fd + 1 : fd;                           \
    }                                                                   \
    return COPYSIGN((T)0, a / b);                                       \
  }                                                                     \
  static inline T sem_floormod_##S(T a, T b) {                          \
    T mod = FMOD(a, b);                                                 \
    if (b == 0) return mod;                                             \
    if (mod != 0) return (b < 0) != (mod < 0) ? mod + b : mod;          \
    return COPYSIGN((T)0, b);                                           \
  }                                                                     \
  static inline T sem_min_##S(T a, T b) { return b < a ? b : a; }       \
  static inline T sem_max_##S(T a, T b) { return b > a ? b : a; }       \
  static inline T sem_fma_##S(T a, T b, T c) { return FMA(a, b, c); }   \
  static inline T sem_powi_##S(T x, uint64_t e, bool neg) {             \
    T r = 1;                                                            \
    for (; e; e >>= 1, x *= x)                                          \
      if (e & 1) r *= x;                                                \
    return neg ? 1 / r : r;                                             \
  }
SEM_FLOAT_KERNELS(float, f, fmodf, floorf, copysignf, fmaf)
SEM_FLOAT_KERNELS(double, d, fmod, floor, copysign, fma)
#undef SEM_FLOAT_KERNELS

/* ---- conversions ------------------------------------------------------------------------------------------ */

/* arith.fptosi / fptoui: v toward zero as an integer of `bits` bits, signed or not, saturated at the type's
 * limits, NaN 0 (PTX cvt.rzi.sat); the result's bits zero-extended. */
uint64_t sem_float_to_int(double v, unsigned bits, bool sgn);
/* Whether v converts without saturating (not NaN, its truncation within the type's range). */
bool sem_float_to_int_in_range(double v, unsigned bits, bool sgn);
/* A binary float format narrower than f64: exponent and fraction bits. */
typedef struct SemFormat {
  unsigned ebits, mbits;
} SemFormat;
#define SEM_FMT_F16 ((SemFormat){5, 10})
#define SEM_FMT_BF16 ((SemFormat){8, 7})
#define SEM_FMT_F32 ((SemFormat){8, 23})
/* The bits of x rounded to format f by mode (IrRoundMode): IEEE's rounding, subnormals kept; a value beyond the
 * largest finite one gives infinity or the largest finite value as the mode says (rz: the largest; rd: -inf
 * below, the largest above; ru the other way). NaN gives the format's NaN: binary16 a quiet NaN of x's sign
 * (0x7e00), bfloat16 and f32 the canonical NaN (0x7fff, 0x7fffffff) as PTX's cvt writes them. x must be the exact
 * value or one rounded to odd with at least mbits + 3 bits (sem_int_to_double). */
uint32_t sem_round_bits(double x, SemFormat f, unsigned mode);
/* The bits of a float32 / float64 and back (NaN payloads kept). */
static inline uint32_t sem_f32_to_bits(float x) {
  uint32_t b;
  memcpy(&b, &x, 4);
  return b;
}
static inline float sem_bits_to_f32(uint32_t b) {
  float x;
  memcpy(&x, &b, 4);
  return x;
}
static inline uint64_t sem_f64_to_bits(double x) {
  uint64_t b;
  memcpy(&b, &x, 8);
  return b;
}
static inline double sem_bits_to_f64(uint64_t b) {
  double x;
  memcpy(&x, &b, 8);
  return x;
}
/* binary16: x rounded to the nearest (ties to even; beyond the largest finite value to infinity; NaN stays a
 * quiet NaN), and a binary16 value exactly. */
static inline uint16_t sem_f16_bits(double x) { return (uint16_t)sem_round_bits(x, SEM_FMT_F16, IR_ROUND_RN); }
double sem_f16_value(uint16_t h);
static inline float sem_f16_round(double x) { return (float)sem_f16_value(sem_f16_bits(x)); }
/* bfloat16: the same (NaN: 0x7fff); a bfloat16 value is the f32 of its bits << 16. */
static inline uint16_t sem_bf16_bits(double x) { return (uint16_t)sem_round_bits(x, SEM_FMT_BF16, IR_ROUND_RN); }
static inline float sem_bf16_value(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline float sem_bf16_round(double x) { return sem_bf16_value(sem_bf16_bits(x)); }
/* A 16-bit float of type t (f16 or bf16): x rounded, its bits, and the value of bits. */
static inline float sem_narrow_round(SemTy t, double x) { return t.bf ? sem_bf16_round(x) : sem_f16_round(x); }
static inline uint16_t sem_narrow_bits(SemTy t, double x) { return t.bf ? sem_bf16_bits(x) : sem_f16_bits(x); }
static inline float sem_narrow_value(SemTy t, uint16_t h) { return t.bf ? sem_bf16_value(h) : (float)sem_f16_value(h); }
/* An integer (signed: sx, else zx) as a double: exact below 2^53, else rounded to odd (the bits shifted out
 * or'ed into the last place kept), from which any narrower format rounds correctly by any mode. */
double sem_int_to_double(int64_t sx, uint64_t zx, bool sgn);

/* ---- FP8: cuda_fp8.h's conversions (arith.to_fp8 / from_fp8) ------------------------------------------------ */
/* What CUDA 12/13's cuda_fp8.h computes, bit for bit, in its own software paths (which the PTX instructions it uses
 * on sm_89+, cvt.rn.satfinite.e4m3x2.f32 and friends, compute too). Formats are TyStorage's TS_E4M3 .. TS_E8M0.
 *
 * E4M3 / E5M2 from a double (__nv_cvt_double_to_fp8): rounded to nearest even, subnormals kept; beyond the largest
 * finite value (448, 57344; a tie above it rounds away) the largest finite value with satfinite, else NaN (E4M3:
 * 0x7f) or infinity (E5M2: 0x7c), with x's sign (infinities too); NaN gives 0x7f with x's sign (E4M3) or
 * 0x7e | the two leading fraction bits of x with its sign (E5M2) when nan_payload, else 0x7f (from f32, f16 and
 * bf16, whose NaNs cuda_fp8.h first makes the canonical 0x7fffffff). */
uint8_t sem_fp8_from_double(double x, TyStorage f, bool satfinite, bool nan_payload);
/* E8M0 from a bfloat16's bits (__nv_cvt_bfloat16raw_to_e8m0): the exponent field of |x| (so toward zero), plus one
 * for ru when the fraction is not zero, |x| above 2^-127 and finite; a result of 0xff (NaN) from a number that
 * is no NaN becomes 0xfe (2^127) with satfinite. NaN: 0xff. */
uint8_t sem_e8m0_from_bf16_bits(uint16_t b, bool satfinite, bool ru);
/* E8M0 from a float (__nv_cvt_float_to_e8m0): rz through x's bfloat16 truncated, ru through |x|'s bfloat16 rounded
 * up (NaN: 0x7fff); and from a double (__nv_cvt_double_to_e8m0): through the float nearest x with a sticky last
 * bit (below |x|'s float when that rounded away from zero, the last bit set when inexact). */
uint8_t sem_e8m0_from_float(float x, bool satfinite, bool ru);
uint8_t sem_e8m0_from_double(double x, bool satfinite, bool ru);
/* The binary16 bits of an E4M3 or E5M2 value (exact; NaN: 0x7fff, its sign dropped), and the bfloat16 bits of an
 * E8M0 value (x << 7; 0: 0x0040, 2^-127; 0xff: 0x7fff). */
uint16_t sem_fp8_to_f16_bits(uint8_t b, TyStorage f);
uint16_t sem_e8m0_to_bf16_bits(uint8_t b);
/* arith.to_fp8's and from_fp8's SemSig.pred: the format (TyStorage), | 4 for satfinite, | 8 for round ru. */
enum { SEM_FP8_SATFINITE = 4, SEM_FP8_RU = 8 };

/* A value of type t made from an integer's bits (normalised) or from a double (rounded to t's precision; for
 * an integer type converted as arith.fptosi/fptoui), and a float value as a double. */
SemVal sem_from_bits(uint64_t bits, SemTy t);
SemVal sem_from_double(double d, SemTy t);
double sem_to_double(SemVal v, SemTy t);

/* ---- the table ------------------------------------------------------------------------------------------ */

/* Evaluates the op of s on x[0 .. s->n - 1] into *r (always set). Returns whether the result is one constant
 * folding may use (false: the op must stay, see each row). */
typedef bool (*SemEvalFn)(const SemSig *s, const SemVal *x, SemVal *r);

enum {
  /* computed by the host's libm here and by libdevice on the GPU, which may differ in the last place: never
   * folded; the simulator's answer is documented as within libdevice's error bounds (test/gpu/ measures it) */
  SEM_LIBM = 1u << 0,
};

typedef struct OpSem {
  SemEvalFn eval;         /* NULL: not a pure scalar op evaluated here */
  unsigned flags;         /* SEM_* */
  /* a float function of libm / libdevice: the host functions (f32 and f64) and libdevice's name, __nv_<name>
   * for f64 and __nv_<name>f for f32 (f16 computes in f32) */
  const char *libdevice;
  float (*f1)(float);
  double (*d1)(double);
  float (*f2)(float, float);
  double (*d2)(double, double);
} OpSem;

extern const OpSem ir_op_sem[OP__COUNT];

/* Evaluates op (of signature s) when a row has an evaluation; false when there is none. */
static inline bool sem_eval(const SemSig *s, const SemVal *x, SemVal *r, bool *foldable) {
  SemEvalFn f = ir_op_sem[s->kind].eval;
  if (!f) return false;
  bool ok = f(s, x, r);
  if (foldable) *foldable = ok && !(ir_op_sem[s->kind].flags & SEM_LIBM);
  return true;
}

#endif
