/* libdevice.c — what each function of cuda.libdevice computes (see libdevice.h): one row per function of the
 * generated ir/libdevice.def, its implementation found by name in IMPLS below. Values are SemVals of the row's
 * types (int16 / int32 / int64 in i, sign-extended; float32 in f; float64 in d); the caller normalises the
 * results to their types.
 *
 * Directed-rounding arithmetic (dadd_rd, fmul_rz, fsqrt_ru, ...) runs on the host's FPU in that rounding mode
 * (fesetround around the one operation, which a compiler barrier keeps inside); directed conversions use
 * sem_round_bits (ir/op_semantics.c) and the saturating sem_float_to_int, as PTX's cvt, and 64-bit integers to
 * floats exact integer arithmetic (int_float_bits), whatever the host compiler. */
#define _GNU_SOURCE /* exp10 */
#include "ir/libdevice.h"

#include <fenv.h>
#include <math.h>
#include <string.h>

#include "ir/ir.h"

/* ---- helpers ------------------------------------------------------------------------------------------------- */

#define BARRIER(v) __asm__ volatile("" : "+m"(v))

/* a op b in the host's rounding mode `mode` (FE_*): the operands and the result pass through memory barriers so
 * that the operation happens while the mode is set */
#define DIRECTED(T, NAME, EXPR)                                      \
  static T NAME(T a, T b, T c, int mode) {                         \
    int old = fegetround();                                        \
    fesetround(mode);                                              \
    BARRIER(a);                                                    \
    BARRIER(b);                                                    \
    BARRIER(c);                                                    \
    T r = EXPR;                                                    \
    BARRIER(r);                                                    \
    fesetround(old);                                               \
    return r;                                                      \
  }
DIRECTED(double, d_add, a + b)
DIRECTED(double, d_mul, a * b)
DIRECTED(double, d_div, a / b)
DIRECTED(double, d_sqrt, sqrt(a))
DIRECTED(double, d_fma, fma(a, b, c))
DIRECTED(float, f_add, a + b)
DIRECTED(float, f_sub, a - b)
DIRECTED(float, f_mul, a * b)
DIRECTED(float, f_div, a / b)
DIRECTED(float, f_sqrt, sqrtf(a))
DIRECTED(float, f_fma, fmaf(a, b, c))
#undef DIRECTED

/* The bits of the binary float with `frac` fraction bits (52: float64, 23: float32) nearest, in rounding mode m
 * (IrRoundMode), to the integer of magnitude mag and sign neg: PTX's cvt.rX.f64.s64 / .u64, in integer arithmetic.
 * Not the host's conversion under fesetround: its instruction sequence is the compiler's (clang's u64 -> f64
 * subtracts a magic number, giving -0.0 for 0 under round-down), and through double first a float32 result would
 * be rounded twice. Integers convert to +0.0, never -0.0. */
static uint64_t int_float_bits(uint64_t mag, bool neg, unsigned frac, unsigned m) {
  if (!mag) return 0;
  unsigned top = 63u - (unsigned)__builtin_clzll(mag); /* the value is in [2^top, 2^(top+1)) */
  uint64_t mant;
  if (top > frac) {
    unsigned shift = top - frac;
    uint64_t rem = mag & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    mant = mag >> shift;
    bool up = m == IR_ROUND_RN   ? rem > half || (rem == half && (mant & 1))
              : m == IR_ROUND_RZ ? false
              : m == IR_ROUND_RU ? rem && !neg   /* toward +inf: a positive value's magnitude grows */
                            : rem && neg;   /* toward -inf: a negative value's */
    if (up && ++mant == 1ull << (frac + 1)) {
      mant >>= 1;
      top++;
    }
  } else {
    mant = mag << (frac - top);
  }
  unsigned bias = frac == 52 ? 1023 : 127, sign_bit = frac == 52 ? 63 : 31;
  return (uint64_t)neg << sign_bit | (uint64_t)(top + bias) << frac | (mant & ((1ull << frac) - 1));
}
static uint64_t magnitude(int64_t v) { return v < 0 ? 0 - (uint64_t)v : (uint64_t)v; }

/* a double (exact or rounded to odd) to float32 by a IrRoundMode mode */
static float to_f32(double d, unsigned mode) { return sem_bits_to_f32(sem_round_bits(d, SEM_FMT_F32, mode)); }
/* a float rounded to an integer by mode, then to an integer of `bits` bits saturating (NaN 0), as cvt.rni ... */
/* libdevice's conversions are PTX's cvt.rXi, whose NaN result the H200 showed: 0 from a float32 to a 32-bit integer
 * (to_int_f32), else the bit pattern 1 << (bits - 1) whatever the signedness (INT_MIN; 0x80000000 as a uint32).
 * kfront's own arith.fptosi selects 0 for every NaN instead. */
static int64_t to_int(double v, unsigned mode, unsigned bits, bool sgn) {
  if (isnan(v)) return bits == 64 ? INT64_MIN : INT32_MIN;
  double r = mode == IR_ROUND_RN ? rint(v) : mode == IR_ROUND_RD ? floor(v) : mode == IR_ROUND_RU ? ceil(v) : trunc(v);
  uint64_t u = sem_float_to_int(r, bits, sgn);
  return bits == 64 ? (int64_t)u : sgn ? sem_sext(u, 64 - bits) : (int64_t)u;
}
static int64_t to_int_f32(float v, unsigned mode, unsigned bits, bool sgn) {
  return isnan(v) && bits == 32 ? 0 : to_int(v, mode, bits, sgn);
}
static int32_t i32(const SemVal *x, int k) { return (int32_t)x[k].i; }
static uint32_t u32(const SemVal *x, int k) { return (uint32_t)x[k].u; }

/* ---- the implementations --------------------------------------------------------------------------------------- */

#define EV(name) static void ld_##name(const SemVal *x, SemVal *r)
/* libm: the host function of the same name, float64 and float32 */
#define LIBM1(n)                        \
  EV(n) { r[0].d = n(x[0].d); }          \
  EV(n##f) { r[0].f = n##f(x[0].f); }
#define LIBM2(n)                              \
  EV(n) { r[0].d = n(x[0].d, x[1].d); }        \
  EV(n##f) { r[0].f = n##f(x[0].f, x[1].f); }
LIBM1(acos) LIBM1(acosh) LIBM1(asin) LIBM1(asinh) LIBM1(atan) LIBM1(atanh) LIBM1(cbrt) LIBM1(cos) LIBM1(cosh)
LIBM1(erf) LIBM1(erfc) LIBM1(exp) LIBM1(exp10) LIBM1(exp2) LIBM1(expm1) LIBM1(lgamma) LIBM1(log) LIBM1(log10)
LIBM1(log1p) LIBM1(log2) LIBM1(sin) LIBM1(sinh) LIBM1(tan) LIBM1(tanh) LIBM1(tgamma) LIBM1(j0) LIBM1(j1) LIBM1(y0)
LIBM1(y1) LIBM1(ceil) LIBM1(fabs) LIBM1(floor) LIBM1(logb) LIBM1(nearbyint) LIBM1(rint) LIBM1(round) LIBM1(sqrt)
LIBM1(trunc)
LIBM2(atan2) LIBM2(hypot) LIBM2(pow) LIBM2(copysign) LIBM2(fdim) LIBM2(fmod) LIBM2(nextafter) LIBM2(remainder)
/* fmax/fmin: the PTX max/min instructions libdevice uses: a NaN operand yields the other, and -0 orders below +0
 * (C leaves the sign of fmax(-0, +0) open; the host's libm and the H200 differ there) */
#define MINMAX(T, S)                                                                                            \
  static T max_##S(T a, T b) { return isnan(a) ? b : isnan(b) ? a : a == b ? (signbit(a) ? b : a) : a > b ? a : b; } \
  static T min_##S(T a, T b) { return isnan(a) ? b : isnan(b) ? a : a == b ? (signbit(a) ? a : b) : a < b ? a : b; }
MINMAX(double, d)
MINMAX(float, f)
#undef MINMAX
EV(fmax) { r[0].d = max_d(x[0].d, x[1].d); }
EV(fmaxf) { r[0].f = max_f(x[0].f, x[1].f); }
EV(fmin) { r[0].d = min_d(x[0].d, x[1].d); }
EV(fminf) { r[0].f = min_f(x[0].f, x[1].f); }
EV(fma) { r[0].d = fma(x[0].d, x[1].d, x[2].d); }
EV(fmaf) { r[0].f = fmaf(x[0].f, x[1].f, x[2].f); }
EV(jn) { r[0].d = jn(i32(x, 0), x[1].d); }
EV(jnf) { r[0].f = jnf(i32(x, 0), x[1].f); }
EV(yn) { r[0].d = yn(i32(x, 0), x[1].d); }
EV(ynf) { r[0].f = ynf(i32(x, 0), x[1].f); }
EV(ldexp) { r[0].d = ldexp(x[0].d, i32(x, 1)); }
EV(ldexpf) { r[0].f = ldexpf(x[0].f, i32(x, 1)); }
EV(scalbn) { r[0].d = scalbn(x[0].d, i32(x, 1)); }
EV(scalbnf) { r[0].f = scalbnf(x[0].f, i32(x, 1)); }
EV(powi) { r[0].d = pow(x[0].d, (double)i32(x, 1)); }
/* the exponent in a double, exactly: (float)n rounds an odd n past 2**24 to an even one, flipping the sign of a
 * negative base's power (the H200 run) */
EV(powif) { r[0].f = (float)pow((double)x[0].f, (double)i32(x, 1)); }
/* ilogb: 0 and NaN INT_MIN, infinities INT_MAX (CUDA's, and glibc's on x86) */
EV(ilogb) { r[0].i = isnan(x[0].d) || x[0].d == 0 ? INT32_MIN : isinf(x[0].d) ? INT32_MAX : ilogb(x[0].d); }
EV(ilogbf) { r[0].i = isnan(x[0].f) || x[0].f == 0 ? INT32_MIN : isinf(x[0].f) ? INT32_MAX : ilogbf(x[0].f); }
EV(rsqrt) { r[0].d = 1.0 / sqrt(x[0].d); }
EV(rsqrtf) { r[0].f = (float)(1.0 / sqrt((double)x[0].f)); }
EV(frsqrt_rn) { r[0].f = (float)(1.0 / sqrt((double)x[0].f)); }
EV(rcbrt) { r[0].d = 1.0 / cbrt(x[0].d); }
EV(rcbrtf) { r[0].f = (float)(1.0 / cbrt((double)x[0].f)); }
EV(normcdf) { r[0].d = 0.5 * erfc(-x[0].d * M_SQRT1_2); }
EV(normcdff) { r[0].f = (float)(0.5 * erfc(-(double)x[0].f * M_SQRT1_2)); }
EV(sincos) { r[0].d = sin(x[0].d); r[1].d = cos(x[0].d); }
EV(sincosf) { r[0].f = sinf(x[0].f); r[1].f = cosf(x[0].f); }
/* frexp of 0, infinities and NaN: (x, 0), as math.frexp */
EV(frexp) {
  int e = 0;
  r[0].d = x[0].d == 0 || !isfinite(x[0].d) ? x[0].d : frexp(x[0].d, &e);
  r[1].i = e;
}
EV(frexpf) {
  int e = 0;
  r[0].f = x[0].f == 0 || !isfinite(x[0].f) ? x[0].f : frexpf(x[0].f, &e);
  r[1].i = e;
}
EV(modf) { r[0].d = modf(x[0].d, &r[1].d); }
EV(modff) { r[0].f = modff(x[0].f, &r[1].f); }
EV(llrint) { r[0].i = to_int(x[0].d, IR_ROUND_RN, 64, true); }
EV(llrintf) { r[0].i = to_int(x[0].f, IR_ROUND_RN, 64, true); }
EV(llround) { r[0].i = isnan(x[0].d) ? INT64_MIN : (int64_t)sem_float_to_int(round(x[0].d), 64, true); }
EV(llroundf) { r[0].i = isnan(x[0].f) ? INT64_MIN : (int64_t)sem_float_to_int(roundf(x[0].f), 64, true); }
EV(saturatef) { r[0].f = !(x[0].f > 0) ? 0.0f : x[0].f < 1 ? x[0].f : 1.0f; }
/* predicates: 1 or 0 */
EV(isnand) { r[0].i = isnan(x[0].d) != 0; }
EV(isnanf) { r[0].i = isnan(x[0].f) != 0; }
EV(isinfd) { r[0].i = isinf(x[0].d) != 0; }
EV(isinff) { r[0].i = isinf(x[0].f) != 0; }
EV(isfinited) { r[0].i = isfinite(x[0].d) != 0; }
EV(finitef) { r[0].i = isfinite(x[0].f) != 0; }
EV(signbitd) { r[0].i = signbit(x[0].d) != 0; }
EV(signbitf) { r[0].i = signbit(x[0].f) != 0; }

/* integers (int32 arguments of an unsigned function are their bits) */
EV(abs) { r[0].i = (int32_t)(i32(x, 0) < 0 ? 0u - u32(x, 0) : u32(x, 0)); }
EV(llabs) { r[0].i = (int64_t)(x[0].i < 0 ? 0 - x[0].u : x[0].u); }
EV(brev) { r[0].i = (int32_t)sem_brev(u32(x, 0), 32); }
EV(brevll) { r[0].i = (int64_t)sem_brev(x[0].u, 64); }
EV(clz) { r[0].i = (int64_t)sem_clz(u32(x, 0), 32); }
EV(clzll) { r[0].i = (int64_t)sem_clz(x[0].u, 64); }
EV(ffs) { r[0].i = (int64_t)sem_ffs(u32(x, 0)); }
EV(ffsll) { r[0].i = (int64_t)sem_ffs(x[0].u); }
EV(popc) { r[0].i = (int64_t)sem_popc(u32(x, 0)); }
EV(popcll) { r[0].i = (int64_t)sem_popc(x[0].u); }
/* __byte_perm(x, y, s): byte k of the result is byte (s >> 4k) & 7 of the eight bytes y:x */
EV(byte_perm) {
  uint64_t both = ((uint64_t)u32(x, 1) << 32) | u32(x, 0);
  uint32_t s = u32(x, 2), v = 0;
  for (int k = 0; k < 4; k++) v |= (uint32_t)((both >> (8 * ((s >> (4 * k)) & 7))) & 0xff) << (8 * k);
  r[0].i = (int32_t)v;
}
EV(hadd) { r[0].i = (int32_t)(((int64_t)i32(x, 0) + i32(x, 1)) >> 1); }
EV(rhadd) { r[0].i = (int32_t)(((int64_t)i32(x, 0) + i32(x, 1) + 1) >> 1); }
EV(uhadd) { r[0].i = (int32_t)(uint32_t)(((uint64_t)u32(x, 0) + u32(x, 1)) >> 1); }
EV(urhadd) { r[0].i = (int32_t)(uint32_t)(((uint64_t)u32(x, 0) + u32(x, 1) + 1) >> 1); }
EV(max) { r[0].i = i32(x, 0) > i32(x, 1) ? i32(x, 0) : i32(x, 1); }
EV(min) { r[0].i = i32(x, 0) < i32(x, 1) ? i32(x, 0) : i32(x, 1); }
EV(umax) { r[0].i = (int32_t)(u32(x, 0) > u32(x, 1) ? u32(x, 0) : u32(x, 1)); }
EV(umin) { r[0].i = (int32_t)(u32(x, 0) < u32(x, 1) ? u32(x, 0) : u32(x, 1)); }
EV(llmax) { r[0].i = x[0].i > x[1].i ? x[0].i : x[1].i; }
EV(llmin) { r[0].i = x[0].i < x[1].i ? x[0].i : x[1].i; }
EV(ullmax) { r[0].u = x[0].u > x[1].u ? x[0].u : x[1].u; }
EV(ullmin) { r[0].u = x[0].u < x[1].u ? x[0].u : x[1].u; }
/* mul24: the low 32 bits of the product of the low 24 bits (signed / unsigned) */
EV(mul24) { r[0].i = (int32_t)(uint32_t)((uint64_t)(sem_sext(u32(x, 0), 40) * sem_sext(u32(x, 1), 40))); }
EV(umul24) { r[0].i = (int32_t)(uint32_t)((uint64_t)(u32(x, 0) & 0xffffff) * (u32(x, 1) & 0xffffff)); }
EV(mulhi) { r[0].i = (int32_t)(((int64_t)i32(x, 0) * i32(x, 1)) >> 32); }
EV(umulhi) { r[0].i = (int32_t)(uint32_t)(((uint64_t)u32(x, 0) * u32(x, 1)) >> 32); }
EV(mul64hi) { r[0].i = (int64_t)(((__int128)x[0].i * x[1].i) >> 64); }
EV(umul64hi) { r[0].u = (uint64_t)(((unsigned __int128)x[0].u * x[1].u) >> 64); }
/* sad: |x - y| + z */
EV(sad) {
  int64_t d = (int64_t)i32(x, 0) - i32(x, 1);
  r[0].i = (int32_t)(uint32_t)((uint64_t)(d < 0 ? -d : d) + u32(x, 2));
}
EV(usad) {
  uint32_t a = u32(x, 0), b = u32(x, 1);
  r[0].i = (int32_t)((a > b ? a - b : b - a) + u32(x, 2));
}

/* bits */
EV(double2hiint) { r[0].i = (int32_t)(sem_f64_to_bits(x[0].d) >> 32); }
EV(double2loint) { r[0].i = (int32_t)(uint32_t)sem_f64_to_bits(x[0].d); }
EV(hiloint2double) { r[0].d = sem_bits_to_f64(((uint64_t)u32(x, 0) << 32) | u32(x, 1)); }
EV(double_as_longlong) { r[0].i = (int64_t)sem_f64_to_bits(x[0].d); }
EV(longlong_as_double) { r[0].d = sem_bits_to_f64(x[0].u); }
EV(float_as_int) { r[0].i = (int32_t)sem_f32_to_bits(x[0].f); }
EV(int_as_float) { r[0].f = sem_bits_to_f32(u32(x, 0)); }
/* cvt.rn.f16.f32: a NaN becomes the canonical 0x7fff on the GPU (not the quiet NaN 0x7e00 of sem_f16_bits) */
EV(float2half_rn) { r[0].i = isnan(x[0].f) ? 0x7fff : (int16_t)sem_f16_bits(x[0].f); }
EV(half2float) { r[0].f = (float)sem_f16_value((uint16_t)x[0].u); }

/* the four rounding modes of an arithmetic or a conversion: NAME_rn, _rz, _rd, _ru */
#define MODES(NAME, BODY)                                  \
  EV(NAME##_rn) { const unsigned m = IR_ROUND_RN; BODY; }        \
  EV(NAME##_rz) { const unsigned m = IR_ROUND_RZ; BODY; }        \
  EV(NAME##_rd) { const unsigned m = IR_ROUND_RD; BODY; }        \
  EV(NAME##_ru) { const unsigned m = IR_ROUND_RU; BODY; }
static const int fe_mode[] = {[IR_ROUND_RN] = FE_TONEAREST, [IR_ROUND_RZ] = FE_TOWARDZERO, [IR_ROUND_RD] = FE_DOWNWARD,
                              [IR_ROUND_RU] = FE_UPWARD};
MODES(dadd, r[0].d = d_add(x[0].d, x[1].d, 0, fe_mode[m]))
MODES(dmul, r[0].d = d_mul(x[0].d, x[1].d, 0, fe_mode[m]))
MODES(ddiv, r[0].d = d_div(x[0].d, x[1].d, 0, fe_mode[m]))
MODES(drcp, r[0].d = d_div(1.0, x[0].d, 0, fe_mode[m]))
MODES(dsqrt, r[0].d = d_sqrt(x[0].d, 0, 0, fe_mode[m]))
MODES(fma, r[0].d = d_fma(x[0].d, x[1].d, x[2].d, fe_mode[m]))
MODES(fadd, r[0].f = f_add(x[0].f, x[1].f, 0, fe_mode[m]))
MODES(fsub, r[0].f = f_sub(x[0].f, x[1].f, 0, fe_mode[m]))
MODES(fmul, r[0].f = f_mul(x[0].f, x[1].f, 0, fe_mode[m]))
MODES(fdiv, r[0].f = f_div(x[0].f, x[1].f, 0, fe_mode[m]))
MODES(frcp, r[0].f = f_div(1.0f, x[0].f, 0, fe_mode[m]))
MODES(fsqrt, r[0].f = f_sqrt(x[0].f, 0, 0, fe_mode[m]))
MODES(fmaf, r[0].f = f_fma(x[0].f, x[1].f, x[2].f, fe_mode[m]))
MODES(double2float, r[0].f = to_f32(x[0].d, m))
MODES(double2int, r[0].i = to_int(x[0].d, m, 32, true))
MODES(double2uint, r[0].i = (int32_t)(uint32_t)to_int(x[0].d, m, 32, false))
MODES(double2ll, r[0].i = to_int(x[0].d, m, 64, true))
MODES(double2ull, r[0].i = to_int(x[0].d, m, 64, false))
MODES(float2int, r[0].i = to_int_f32(x[0].f, m, 32, true))
MODES(float2uint, r[0].i = (int32_t)(uint32_t)to_int_f32(x[0].f, m, 32, false))
MODES(float2ll, r[0].i = to_int(x[0].f, m, 64, true))
MODES(float2ull, r[0].i = to_int(x[0].f, m, 64, false))
MODES(int2float, r[0].f = to_f32((double)i32(x, 0), m))
MODES(uint2float, r[0].f = to_f32((double)u32(x, 0), m))
MODES(ll2float, r[0].f = sem_bits_to_f32((uint32_t)int_float_bits(magnitude(x[0].i), x[0].i < 0, 23, m)))
MODES(ull2float, r[0].f = sem_bits_to_f32((uint32_t)int_float_bits(x[0].u, false, 23, m)))
MODES(ll2double, r[0].d = sem_bits_to_f64(int_float_bits(magnitude(x[0].i), x[0].i < 0, 52, m)))
MODES(ull2double, r[0].d = sem_bits_to_f64(int_float_bits(x[0].u, false, 52, m)))
EV(int2double_rn) { r[0].d = (double)i32(x, 0); }
EV(uint2double_rn) { r[0].d = (double)u32(x, 0); }

/* ---- the functions no host library has ------------------------------------------------------------------------
 * Computed in long double (x86's 64-bit significand) and rounded once to the result's type: within one ulp of the
 * exact value, inside libdevice's documented bounds (the CUDA C++ Programming Guide's tables: sinpi/cospi 1 ulp
 * (f32) and 2 (f64); erfinv 2 / 5, erfcinv 4 / 6, normcdfinv 5 / 8, erfcx 4 / 4; remquo exact). The special values
 * are libdevice's, as its code (libdevice.10.bc) computes them. */

/* sin(pi r) or cos(pi r) for |r| <= 1/4, in long double */
static long double sinpi_small(long double r) { return sinl(3.14159265358979323846264338327950288L * r); }
static long double cospi_small(long double r) { return cosl(3.14159265358979323846264338327950288L * r); }

/* sinpi / cospi of a finite x: x = n/2 + r with n = rint(2x) (2x exact), |r| <= 1/4 exact; the quadrant n mod 4
 * picks sin or cos of pi r and its sign. Integers give sinpi x * 0 (the sign of x), half-integers cospi +0 (as
 * libdevice: its negations are 0 - v); |x| at or past 2^53 (2^24 for float32) is an even integer. */
static void sincospi_ld(double x, long double *s, long double *c) {
  if (!isfinite(x)) {
    *s = *c = NAN;
    return;
  }
  double n = rint(2 * x), r = x - n / 2; /* exact: r is x minus the nearest multiple of 1/2 */
  int q = (int)fmod(fabs(n), 4.0);
  if (n < 0) q = (4 - q) & 3;
  long double sv = sinpi_small(r), cv = cospi_small(r);
  long double sin_v = q == 0 ? sv : q == 1 ? cv : q == 2 ? -sv : -cv;
  long double cos_v = q == 0 ? cv : q == 1 ? -sv : q == 2 ? -cv : sv;
  if (x == trunc(x)) sin_v = x * 0.0; /* +-0 by the sign of x */
  if (cos_v == 0) cos_v = 0.0L;        /* +0 at half-integers */
  *s = sin_v;
  *c = cos_v;
}
EV(sinpi) { long double s, c; sincospi_ld(x[0].d, &s, &c); r[0].d = (double)s; }
EV(cospi) { long double s, c; sincospi_ld(x[0].d, &s, &c); r[0].d = (double)c; }
EV(sincospi) { long double s, c; sincospi_ld(x[0].d, &s, &c); r[0].d = (double)s; r[1].d = (double)c; }
EV(sinpif) { long double s, c; sincospi_ld(x[0].f, &s, &c); r[0].f = (float)s; }
EV(cospif) { long double s, c; sincospi_ld(x[0].f, &s, &c); r[0].f = (float)c; }
EV(sincospif) { long double s, c; sincospi_ld(x[0].f, &s, &c); r[0].f = (float)s; r[1].f = (float)c; }

/* remquo: the IEEE remainder (exact) and the low three bits of the magnitude of the integral quotient (x/y
 * rounded to nearest even), negated when the signs of x and y differ; 0 where the remainder is NaN. libdevice
 * keeps exactly three bits (its __nv_remquo and __nv_remquof mask the quotient with 7); the host's remquo gives
 * at least three, which is all that is kept of them. */
static int quo_bits(int q, bool neg, bool nan) { return nan ? 0 : neg ? -((q < 0 ? -q : q) & 7) : (q < 0 ? -q : q) & 7; }
EV(remquo) {
  int q = 0;
  r[0].d = remquo(x[0].d, x[1].d, &q);
  r[1].i = quo_bits(q, signbit(x[0].d) != signbit(x[1].d), isnan(r[0].d));
}
EV(remquof) {
  int q = 0;
  r[0].f = remquof(x[0].f, x[1].f, &q);
  r[1].i = quo_bits(q, signbit(x[0].f) != signbit(x[1].f), isnan(r[0].f));
}

/* The root of F(t) = target on [lo, hi] where F is monotonic with derivative dF: Newton's steps kept inside the
 * bracket (a bisection where a step would leave it), to long double precision. */
typedef long double (*LdFn)(long double);
static long double solve_ld(LdFn F, LdFn dF, bool increasing, long double target, long double lo, long double hi,
                            long double t) {
  for (int it = 0; it < 200; it++) {
    long double f = F(t) - target;
    if (f == 0) return t;
    if ((f < 0) == increasing) lo = t;
    else hi = t;
    long double d = dF(t), next = d != 0 ? t - f / d : (lo + hi) / 2;
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    if (fabsl(next - t) <= fabsl(t) * 0x1p-66L || next == t) return next;
    t = next;
  }
  return t;
}
static long double erf_ld(long double t) { return erfl(t); }
static long double erfc_ld(long double t) { return erfcl(t); }
static long double derf_ld(long double t) { return 1.12837916709551257389615890312154517L * expl(-t * t); }
static long double derfc_ld(long double t) { return -derf_ld(t); }

/* erfinv of y in [0, 1/2] (erf's slope keeps Newton fast there) and the inverse of erfc at c in (0, 1/2]; the
 * starting points are the leading terms of the series and of erfc's asymptotic expansion */
static long double erfinv_small(long double y) {
  if (y == 0) return y;
  return solve_ld(erf_ld, derf_ld, true, y, 0, 0.5L, y * 0.886226925452758013649L);
}
static long double erfcinv_tail(long double c) {
  long double w = -logl(c), t = sqrtl(w);
  for (int k = 0; k < 3; k++) t = sqrtl(fmaxl(w - logl(t * 1.77245385090551602729816748334L), 0.2L));
  return solve_ld(erfc_ld, derfc_ld, false, c, 0.47L, 110.0L, t);
}
/* erfinv(y) for y in [-1, 1]: the odd function; past 1/2 through erfc with 1 - |y| (exact) */
static long double erfinv_ld(double y) {
  if (isnan(y) || fabs(y) > 1) return NAN;
  if (fabs(y) == 1) return copysign(INFINITY, y);
  long double a = fabs(y) <= 0.5 ? erfinv_small(fabs(y)) : erfcinv_tail(1 - fabs(y));
  return signbit(y) ? -a : a;
}
/* erfcinv(z) for z in [0, 2]: erfinv(1 - z) from 1/2 on (1 - z exact), the tail below */
static long double erfcinv_ld(double z) {
  if (isnan(z) || z < 0 || z > 2) return NAN;
  if (z == 0) return INFINITY;
  if (z == 2) return -INFINITY;
  return z >= 0.5 ? erfinv_ld(1 - z) : erfcinv_tail(z);
}
EV(erfinv) { r[0].d = (double)erfinv_ld(x[0].d); }
EV(erfinvf) { r[0].f = (float)erfinv_ld(x[0].f); }
EV(erfcinv) { r[0].d = (double)erfcinv_ld(x[0].d); }
EV(erfcinvf) { r[0].f = (float)erfcinv_ld(x[0].f); }
/* normcdfinv(p) = -sqrt(2) erfcinv(2p) (2p exact), p in [0, 1] */
static long double normcdfinv_ld(double p) {
  if (isnan(p) || p < 0 || p > 1) return NAN;
  return -1.41421356237309504880168872420969808L * erfcinv_ld(2 * p) + 0.0L; /* +0 at 1/2, as libdevice's */
}
EV(normcdfinv) { r[0].d = (double)normcdfinv_ld(x[0].d); }
EV(normcdfinvf) { r[0].f = (float)normcdfinv_ld(x[0].f); }

/* erfcx(x) = exp(x^2) erfc(x): directly while erfc stays inside long double's range (x^2 split into a rounded
 * part and its exact residue), else erfc's asymptotic series 1/(x sqrt(pi)) sum (-1)^n (2n-1)!! / (2x^2)^n; for
 * x < 0, 2 exp(x^2) - erfcx(-x), overflowing to +inf */
static long double erfcx_ld(double x) {
  if (isnan(x)) return x;
  if (x == INFINITY) return 0;
  if (x == -INFINITY) return INFINITY;
  long double t = x, hi = t * t, lo = fmal(t, t, -hi);
  if (x < 0) {
    if (x < -107) return INFINITY;
    return 2 * expl(hi) * (1 + lo) - erfcx_ld(-x);
  }
  if (x < 100) return expl(hi) * (1 + lo) * erfcl(t);
  long double v = 1 / (2 * hi), term = 1, sum = 1;
  for (int n = 1; n < 12; n++) {
    term *= -(2 * n - 1) * v;
    sum += term;
  }
  return sum / (t * 1.77245385090551602729816748334L);
}
EV(erfcx) { r[0].d = (double)erfcx_ld(x[0].d); }
EV(erfcxf) { r[0].f = (float)erfcx_ld(x[0].f); }

/* ---- the approximate functions (fast_*) -----------------------------------------------------------------------
 * libdevice builds them from PTX's approximate instructions (ex2.approx, lg2.approx, sin.approx, cos.approx,
 * div.approx; the .ftz forms under fastmath), whose results the PTX ISA bounds but does not define. The
 * simulator's definition: libdevice's composition with each approximate instruction replaced by the correctly
 * rounded float32 value of what it approximates, the rest (the float32 multiplications by log2(e), log10(2), ...)
 * as libdevice computes it: __expf(x) = ex2(x * 0x1.715476p0f), __logf(x) = lg2(x) * 0x1.62e430p-1f,
 * __powf(x, y) = ex2(y * lg2(x)), __tanf(x) = div(sin(x), cos(x)), __fdividef(x, y) = x / y but 0 (NaN for an
 * infinite x) where 2^126 < |y| < 2^128, as div.approx gives. The GPU differential (test/gpu/backend_gpu.c) holds
 * the GPU to the CUDA C++ Programming Guide's bounds for the intrinsics (ir_libdevice_accuracy). */
static float cr_f(double v) { return (float)v; } /* a double result (exact to 2^-53 or better) rounded once */
static float ex2_f(float a) { return cr_f(exp2((double)a)); }
static float lg2_f(float a) { return cr_f(log2((double)a)); }
static float sin_f(float a) { return cr_f(sin((double)a)); }
static float cos_f(float a) { return cr_f(cos((double)a)); }
static float div_f(float a, float b) {
  if (fabsf(b) > 0x1p126f && isfinite(b) && !isnan(a)) return isinf(a) ? NAN : copysignf(0.0f, a) * copysignf(1.0f, b);
  return a / b;
}
static float mul_f(float a, float b) {
  float v = a * b;
  BARRIER(v);
  return v;
}
EV(fast_expf) { r[0].f = ex2_f(mul_f(x[0].f, 0x1.715476p0f)); }
EV(fast_exp10f) { r[0].f = ex2_f(mul_f(x[0].f, 0x1.a934f0p1f)); }
EV(fast_log2f) { r[0].f = lg2_f(x[0].f); }
EV(fast_logf) { r[0].f = mul_f(lg2_f(x[0].f), 0x1.62e430p-1f); }
EV(fast_log10f) { r[0].f = mul_f(0x1.344136p-2f, lg2_f(x[0].f)); }
EV(fast_powf) { r[0].f = ex2_f(mul_f(x[1].f, lg2_f(x[0].f))); }
EV(fast_sinf) { r[0].f = sin_f(x[0].f); }
EV(fast_cosf) { r[0].f = cos_f(x[0].f); }
EV(fast_sincosf) { r[0].f = sin_f(x[0].f); r[1].f = cos_f(x[0].f); }
EV(fast_tanf) { r[0].f = div_f(sin_f(x[0].f), cos_f(x[0].f)); }
EV(fast_fdividef) { r[0].f = div_f(x[0].f, x[1].f); }

/* ---- the table ------------------------------------------------------------------------------------------------- */

typedef struct Impl {
  const char *name;
  LdKind kind;
  LdEval eval;
  const char *why;
  LdAccuracy acc; /* for LD_LIBM and LD_APPROX (all zero: none recorded, the GPU suite's default) */
} Impl;

#define X(n) {#n, LD_EXACT, ld_##n, NULL, {0}}
#define XF(n) X(n), X(n##f)
#define L(n) {#n, LD_LIBM, ld_##n, NULL, {0}}
#define LF(n) L(n), L(n##f)
/* a libm function with libdevice's documented bound (ulps) for float32 and float64 */
#define LU(n, uf, ud)                                                                      \
  {#n, LD_LIBM, ld_##n, NULL, {.ulps = ud, .lo = -INFINITY, .hi = INFINITY}},              \
  {#n "f", LD_LIBM, ld_##n##f, NULL, {.ulps = uf, .lo = -INFINITY, .hi = INFINITY}}
#define LOOSE(n) {#n, LD_LOOSE, ld_##n, NULL, {0}}, {#n "f", LD_LOOSE, ld_##n##f, NULL, {0}}
#define X4(n) X(n##_rn), X(n##_rz), X(n##_rd), X(n##_ru)
#define NO(n, why) {#n, LD_UNSUPPORTED, NULL, why, {0}}
/* an approximate function and the CUDA C++ Programming Guide's bound for its intrinsic (__expf, __sinf, ...) */
#define AP(n, ...) {#n, LD_APPROX, ld_##n, NULL, {__VA_ARGS__}}
#define PI_F 3.14159274f /* [-pi, pi] as float32 bounds it */

static const Impl IMPLS[] = {
    LF(acos), LF(acosh), LF(asin), LF(asinh), LF(atan), LF(atanh), LF(atan2), LF(cbrt), LF(cos), LF(cosh), LF(erf),
    LF(erfc), LF(exp), LF(exp10), LF(exp2), LF(expm1), LF(hypot), LF(log), LF(log10), LF(log1p), LF(log2), LF(pow),
    LF(sin), LF(sinh), LF(tan), LF(tanh), LF(rsqrt), LF(rcbrt), LF(powi), LF(sincos), L(frsqrt_rn),
    LU(sinpi, 1, 2), LU(cospi, 1, 2), LU(sincospi, 1, 2), LU(erfinv, 2, 5), LU(erfcinv, 4, 6), LU(normcdfinv, 5, 8),
    LU(erfcx, 4, 4),
    LOOSE(normcdf), /* far in the tails the host's erfc and libdevice differ by hundreds of ulps (H200) */
    LOOSE(lgamma), LOOSE(tgamma), LOOSE(j0), LOOSE(j1), LOOSE(jn), LOOSE(y0), LOOSE(y1), LOOSE(yn),
    XF(ceil), XF(copysign), XF(fabs), XF(fdim), XF(floor), XF(fma), XF(fmax), XF(fmin), XF(fmod), XF(ilogb),
    XF(ldexp), XF(logb), XF(nearbyint), XF(nextafter), XF(remainder), XF(rint), XF(round), XF(scalbn), XF(sqrt),
    XF(trunc), XF(frexp), XF(modf), XF(llrint), XF(llround), XF(remquo), X(saturatef), X(isnand), X(isnanf), X(isinfd),
    X(isinff), X(isfinited), X(finitef), X(signbitd), X(signbitf),
    X(abs), X(llabs), X(brev), X(brevll), X(clz), X(clzll), X(ffs), X(ffsll), X(popc), X(popcll), X(byte_perm),
    X(hadd), X(rhadd), X(uhadd), X(urhadd), X(max), X(min), X(umax), X(umin), X(llmax), X(llmin), X(ullmax),
    X(ullmin), X(mul24), X(umul24), X(mulhi), X(umulhi), X(mul64hi), X(umul64hi), X(sad), X(usad),
    X(double2hiint), X(double2loint), X(hiloint2double), X(double_as_longlong), X(longlong_as_double),
    X(float_as_int), X(int_as_float), X(float2half_rn), X(half2float),
    X4(dadd), X4(dmul), X4(ddiv), X4(drcp), X4(dsqrt), X4(fma), X4(fadd), X4(fsub), X4(fmul), X4(fdiv), X4(frcp),
    X4(fsqrt), X4(fmaf), X4(double2float), X4(double2int), X4(double2uint), X4(double2ll), X4(double2ull),
    X4(float2int), X4(float2uint), X4(float2ll), X4(float2ull), X4(int2float), X4(uint2float), X4(ll2float),
    X4(ull2float), X4(ll2double), X4(ull2double), X(int2double_rn), X(uint2double_rn),
    /* __expf: 2 + floor(|1.173 x|) ulps; __exp10f: 2 + floor(|2.97 x|) */
    AP(fast_expf, .ulps = 2, .ulps_per_arg = 1.173, .lo = -INFINITY, .hi = INFINITY),
    AP(fast_exp10f, .ulps = 2, .ulps_per_arg = 2.97, .lo = -INFINITY, .hi = INFINITY),
    /* __logf, __log2f, __log10f: an absolute error in [0.5, 2] (2^-21.41, 2^-22, 2^-24), else 3, 2, 3 ulps */
    AP(fast_logf, .ulps = 3, .abs_err = 0x1.8p-22 /* 2^-21.41 */, .abs_lo = 0.5, .abs_hi = 2, .lo = -INFINITY, .hi = INFINITY),
    AP(fast_log2f, .ulps = 2, .abs_err = 0x1p-22, .abs_lo = 0.5, .abs_hi = 2, .lo = -INFINITY, .hi = INFINITY),
    AP(fast_log10f, .ulps = 3, .abs_err = 0x1p-24, .abs_lo = 0.5, .abs_hi = 2, .lo = -INFINITY, .hi = INFINITY),
    /* __sinf, __cosf: 2^-21.41 and 2^-21.19 absolute in [-pi, pi], "larger otherwise" (unbounded) */
    AP(fast_sinf, .abs_err = 0x1.8p-22, .abs_lo = -PI_F, .abs_hi = PI_F, .lo = -PI_F, .hi = PI_F),
    AP(fast_cosf, .abs_err = 0x1.c4p-22 /* 2^-21.19 */, .abs_lo = -PI_F, .abs_hi = PI_F, .lo = -PI_F, .hi = PI_F),
    AP(fast_sincosf, .abs_err = 0x1.c4p-22, .abs_lo = -PI_F, .abs_hi = PI_F, .lo = -PI_F, .hi = PI_F),
    /* __tanf and __powf: "derived from" __sinf / __cosf and __log2f / exp2: no bound of their own */
    AP(fast_tanf, .lo = 1, .hi = 0), AP(fast_powf, .lo = 1, .hi = 0),
    /* __fdividef: 2 ulps for 2^-126 <= |y| <= 2^126 */
    AP(fast_fdividef, .ulps = 2, .arg = 1, .lo = 0x1p-126, .hi = 0x1p126, .abs_of_arg = true),
};

static const Impl *impl_of(const char *name) {
  for (size_t i = 0; i < sizeof IMPLS / sizeof *IMPLS; i++)
    if (strcmp(IMPLS[i].name, name) == 0) return &IMPLS[i];
  return NULL;
}

static const LibdeviceFn ROWS[] = {
#define LD(name, sig, params) {#name, sig, params},
#include "ir/libdevice.def"
#undef LD
};
enum { NROWS = sizeof ROWS / sizeof *ROWS };

unsigned ir_libdevice_count(void) { return NROWS; }
const LibdeviceFn *ir_libdevice_at(int k) { return k >= 0 && k < NROWS ? &ROWS[k] : NULL; }
int ir_libdevice_index(const LibdeviceFn *f) { return f ? (int)(f - ROWS) : -1; }

const LibdeviceFn *ir_libdevice_lookup(const char *name) {
  for (int k = 0; k < NROWS; k++)
    if (strcmp(ROWS[k].name, name) == 0) return &ROWS[k];
  return NULL;
}

/* A row's implementation, found by name at its first use and kept (atomically: threads compile concurrently;
 * each finds the same one). */
static const Impl *impl(const LibdeviceFn *f) {
  static const Impl *cache[NROWS];
  static const Impl none = {NULL, LD_UNSUPPORTED, NULL, "kfront has no definition of it", {0}};
  int k = ir_libdevice_index(f);
  const Impl *im = __atomic_load_n(&cache[k], __ATOMIC_ACQUIRE);
  if (!im) {
    im = impl_of(f->name);
    if (!im) im = &none;
    __atomic_store_n(&cache[k], im, __ATOMIC_RELEASE);
  }
  return im;
}

LdKind ir_libdevice_kind(const LibdeviceFn *f) { return impl(f)->kind; }
const LdAccuracy *ir_libdevice_accuracy(const LibdeviceFn *f) { return &impl(f)->acc; }
LdEval ir_libdevice_eval(const LibdeviceFn *f) { return impl(f)->eval; }
const char *ir_libdevice_why(const LibdeviceFn *f) { return impl(f)->why; }

void ir_libdevice_shape(const LibdeviceFn *f, LdShape *out) {
  memset(out, 0, sizeof *out);
  const char *s = f->sig;
  out->ret = s[0];
  if (out->ret != 'v') out->results[out->nresults++] = out->ret;
  for (s += 2; *s; s++) {
    bool ptr = *s == '*';
    if (ptr) s++;
    if (out->nproto < LD_MAX_ARGS + LD_MAX_RESULTS) out->proto[out->nproto++] = ptr ? (char)(*s - 'a' + 'A') : *s;
    if (ptr && out->nresults < LD_MAX_RESULTS) out->results[out->nresults++] = *s;
    else if (!ptr && out->nargs < LD_MAX_ARGS) out->args[out->nargs++] = *s;
  }
}

Type *ir_libdevice_type(IrContext *ctx, char letter) {
  switch (letter) {
  case 'h': return ty_int(ctx, 16, false);
  case 'i': return ty_i32(ctx);
  case 'l': return ty_i64(ctx);
  case 'f': return ty_f32(ctx);
  case 'd': return ty_f64(ctx);
  default: return NULL;
  }
}

bool ir_libdevice_type_is(const Type *t, char letter) {
  switch (letter) {
  case 'h': case 'i': case 'l':
    return t->kind == TY_INT && !t->is_unsigned && t->bits == (letter == 'h' ? 16u : letter == 'i' ? 32u : 64u);
  case 'f': case 'd': return t->kind == TY_FLOAT && !t->bfloat && t->bits == (letter == 'f' ? 32u : 64u);
  default: return false;
  }
}

const char *ir_libdevice_type_name(char letter) {
  switch (letter) {
  case 'h': return "i16";
  case 'i': return "i32";
  case 'l': return "i64";
  case 'f': return "f32";
  case 'd': return "f64";
  default: return "void";
  }
}
