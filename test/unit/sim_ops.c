/* sim_ops.c — the simulator against C, op by op: every math op in f64 and f32 (f32 computed in float),
 * float arithmetic and every cmpf predicate (with NaN), every integer op on i32, u32, i8 and i64 operands,
 * conversions, each atomic kind, and the complex dialect (through lower-complex). Kernels are generated as kir text from the tables below: one thread
 * stores one result per op into an output array, compared with the same computation in C. */
#include <stdint.h>

#include "sim_test.h"

/* ---- math ---------------------------------------------------------------------------------------- */

typedef struct {
  const char *name;
  double (*d)(double);
  float (*f)(float);
  double x;
} Math1;

static double rint_d(double x) { return rint(x); }
static float rint_f(float x) { return rintf(x); }

static const Math1 MATH1[] = {
    {"sqrt", sqrt, sqrtf, 0.7},     {"exp", exp, expf, 0.7},        {"exp2", exp2, exp2f, 0.7},
    {"expm1", expm1, expm1f, 1e-5}, {"log", log, logf, 0.7},        {"log2", log2, log2f, 0.7},
    {"log10", log10, log10f, 0.7},  {"log1p", log1p, log1pf, 1e-5}, {"sin", sin, sinf, 0.7},
    {"cos", cos, cosf, 0.7},        {"tan", tan, tanf, 0.7},        {"asin", asin, asinf, 0.7},
    {"acos", acos, acosf, 0.7},     {"atan", atan, atanf, 0.7},     {"sinh", sinh, sinhf, 0.7},
    {"cosh", cosh, coshf, 0.7},     {"tanh", tanh, tanhf, 0.7},     {"asinh", asinh, asinhf, 0.7},
    {"acosh", acosh, acoshf, 1.7},  {"atanh", atanh, atanhf, 0.7},  {"erf", erf, erff, 0.7},
    {"erfc", erfc, erfcf, 0.7},     {"gamma", tgamma, tgammaf, 2.5}, {"lgamma", lgamma, lgammaf, 2.5},
    {"floor", floor, floorf, -2.5}, {"ceil", ceil, ceilf, -2.5},    {"trunc", trunc, truncf, -2.7},
    {"round", rint_d, rint_f, 2.5}, {"fabs", fabs, fabsf, -0.7},
};

typedef struct {
  const char *name;
  double (*d)(double, double);
  float (*f)(float, float);
  double x, y;
} Math2;

static const Math2 MATH2[] = {
    {"pow", pow, powf, 1.7, 2.3},        {"atan2", atan2, atan2f, -0.7, -0.2}, {"hypot", hypot, hypotf, 3.0, 4.1},
    {"copysign", copysign, copysignf, 2.0, -0.0}, {"fmod", fmod, fmodf, -7.5, 2.0},
};

#define NM1 (sizeof MATH1 / sizeof MATH1[0])
#define NM2 (sizeof MATH2 / sizeof MATH2[0])

/* A float literal kir reads as a float (always with a '.' or an exponent). */
static const char *flit(double x, bool f32, char *buf, size_t n) {
  snprintf(buf, n, f32 ? "%.9g" : "%.17g", x);
  if (!strpbrk(buf, ".en")) strncat(buf, ".0", n - strlen(buf) - 1);
  return buf;
}

static void gen_store(StrBuf *t, const char *val, const char *ty, const char *arr, unsigned idx) {
  sb_printf(t, "  %%k%s_%u = arith.constant() {value = %u} : () -> (i64)\n", arr, idx, idx);
  sb_printf(t, "  mem.store(%s, %%%s, %%k%s_%u) : (%s, array<%s, 1, C>, i64) -> ()\n", val, arr, arr, idx, ty, ty);
}

static void test_math(void) {
  StrBuf t;
  sb_init(&t);
  sb_puts(&t, "func.func() ({\n^bb0(%o64: array<f64, 1, C>, %o32: array<f32, 1, C>):\n");
  unsigned n = 0;
  for (unsigned i = 0; i < NM1; i++, n++) {
    char lb[64];
    sb_printf(&t, "  %%x%u = arith.constant() {value = %s} : () -> (f64)\n", n, flit(MATH1[i].x, false, lb, sizeof lb));
    sb_printf(&t, "  %%y%u = math.%s(%%x%u) : (f64) -> (f64)\n", n, MATH1[i].name, n);
    sb_printf(&t, "  %%xf%u = arith.constant() {value = %s : f32} : () -> (f32)\n", n, flit((float)MATH1[i].x, true, lb, sizeof lb));
    sb_printf(&t, "  %%yf%u = math.%s(%%xf%u) : (f32) -> (f32)\n", n, MATH1[i].name, n);
    char v[32];
    snprintf(v, sizeof v, "%%y%u", n);
    gen_store(&t, v, "f64", "o64", n);
    snprintf(v, sizeof v, "%%yf%u", n);
    gen_store(&t, v, "f32", "o32", n);
  }
  for (unsigned i = 0; i < NM2; i++, n++) {
    char lb[64];
    sb_printf(&t, "  %%x%u = arith.constant() {value = %s} : () -> (f64)\n", n, flit(MATH2[i].x, false, lb, sizeof lb));
    sb_printf(&t, "  %%z%u = arith.constant() {value = %s} : () -> (f64)\n", n, flit(MATH2[i].y, false, lb, sizeof lb));
    sb_printf(&t, "  %%y%u = math.%s(%%x%u, %%z%u) : (f64, f64) -> (f64)\n", n, MATH2[i].name, n, n);
    sb_printf(&t, "  %%xf%u = arith.constant() {value = %s : f32} : () -> (f32)\n", n, flit((float)MATH2[i].x, true, lb, sizeof lb));
    sb_printf(&t, "  %%zf%u = arith.constant() {value = %s : f32} : () -> (f32)\n", n, flit((float)MATH2[i].y, true, lb, sizeof lb));
    sb_printf(&t, "  %%yf%u = math.%s(%%xf%u, %%zf%u) : (f32, f32) -> (f32)\n", n, MATH2[i].name, n, n);
    char v[32];
    snprintf(v, sizeof v, "%%y%u", n);
    gen_store(&t, v, "f64", "o64", n);
    snprintf(v, sizeof v, "%%yf%u", n);
    gen_store(&t, v, "f32", "o32", n);
  }
  /* powi, isnan/isinf/isfinite */
  sb_puts(&t, "  %pb = arith.constant() {value = 1.5} : () -> (f64)\n"
              "  %pe = arith.constant() {value = -3} : () -> (i64)\n"
              "  %pw = math.powi(%pb, %pe) : (f64, i64) -> (f64)\n"
              "  %zero = arith.constant() {value = 0.0} : () -> (f64)\n"
              "  %nan = arith.divf(%zero, %zero) : (f64, f64) -> (f64)\n"
              "  %one = arith.constant() {value = 1.0} : () -> (f64)\n"
              "  %inf = arith.divf(%one, %zero) : (f64, f64) -> (f64)\n"
              "  %isn = math.isnan(%nan) : (f64) -> (i1)\n"
              "  %isi = math.isinf(%inf) : (f64) -> (i1)\n"
              "  %isf = math.isfinite(%inf) : (f64) -> (i1)\n"
              "  %isn2 = math.isnan(%one) : (f64) -> (i1)\n"
              "  %b1 = arith.uitofp(%isn) : (i1) -> (f64)\n"
              "  %b2 = arith.uitofp(%isi) : (i1) -> (f64)\n"
              "  %b3 = arith.uitofp(%isf) : (i1) -> (f64)\n"
              "  %b4 = arith.uitofp(%isn2) : (i1) -> (f64)\n");
  gen_store(&t, "%pw", "f64", "o64", n);
  gen_store(&t, "%b1", "f64", "o64", n + 1);
  gen_store(&t, "%b2", "f64", "o64", n + 2);
  gen_store(&t, "%b3", "f64", "o64", n + 3);
  gen_store(&t, "%b4", "f64", "o64", n + 4);
  sb_puts(&t, "  func.return() : () -> ()\n}) {sym_name = @math, function_type = (array<f64, 1, C>, array<f32, 1, C>) -> (), "
              "kernel} : () -> ()\n");
  Kir k;
  bool ok = kir_load(&k, sb_cstr(&t));
  sb_free(&t);
  if (!ok) return;
  double o64[64] = {0};
  float o32[64] = {0};
  SimArg args[2] = {arr_c(&k, o64, "f64", 1, 64, 0), arr_c(&k, o32, "f32", 1, 64, 0)};
  SimResult r;
  CHECK(kir_launch(&k, "math", 1, 1, 1, 1, 0, args, 2, NULL, &r));
  for (unsigned i = 0; i < NM1; i++) {
    double e = MATH1[i].d(MATH1[i].x);
    float ef = MATH1[i].f((float)MATH1[i].x);
    if (o64[i] != e || o32[i] != ef)
      fprintf(stderr, "math.%s: %.17g vs %.17g, %.9g vs %.9g\n", MATH1[i].name, o64[i], e, o32[i], ef);
    CHECK(o64[i] == e);
    CHECK(o32[i] == ef);
  }
  for (unsigned i = 0; i < NM2; i++) {
    double e = MATH2[i].d(MATH2[i].x, MATH2[i].y);
    float ef = MATH2[i].f((float)MATH2[i].x, (float)MATH2[i].y);
    if (o64[NM1 + i] != e || o32[NM1 + i] != ef) fprintf(stderr, "math.%s differs\n", MATH2[i].name);
    CHECK(o64[NM1 + i] == e);
    CHECK(o32[NM1 + i] == ef);
  }
  CHECK(o64[n] == pow(1.5, -3.0));
  CHECK(o64[n + 1] == 1 && o64[n + 2] == 1 && o64[n + 3] == 0 && o64[n + 4] == 0);
  kir_free(&k);
}

/* ---- float arithmetic and comparisons --------------------------------------------------------------- */

static const char *FARITH[] = {"addf", "subf", "mulf", "divf", "remf", "floordivf", "floormodf", "minf", "maxf"};
static const char *FPRED[] = {"oeq", "one", "olt", "ole", "ogt", "oge", "ord", "une", "ult", "ule", "ugt", "uge", "uno"};

static double py_floordiv(double a, double b) { return floor(a / b); } /* fine for the operands below */
static double py_mod(double a, double b) {
  double m = fmod(a, b);
  if (m != 0 && ((b < 0) != (m < 0))) m += b;
  return m;
}

static double farith_ref(unsigned op, double a, double b) {
  switch (op) {
  case 0: return a + b;
  case 1: return a - b;
  case 2: return a * b;
  case 3: return a / b;
  case 4: return fmod(a, b);
  case 5: return py_floordiv(a, b);
  case 6: return py_mod(a, b);
  case 7: return b < a ? b : a;
  default: return b > a ? b : a;
  }
}

static bool fpred_ref(unsigned p, double a, double b) {
  bool u = isnan(a) || isnan(b);
  switch (p) {
  case 0: return !u && a == b;
  case 1: return !u && a != b;
  case 2: return !u && a < b;
  case 3: return !u && a <= b;
  case 4: return !u && a > b;
  case 5: return !u && a >= b;
  case 6: return !u;
  case 7: return u || a != b;
  case 8: return u || a < b;
  case 9: return u || a <= b;
  case 10: return u || a > b;
  case 11: return u || a >= b;
  default: return u;
  }
}

static void test_float_ops(void) {
  static const double pairs[][2] = {{7.5, -2.0}, {-7.5, 2.0}, {3.0, 3.0}, {-0.5, 4.0}, {1.0, NAN}};
  enum { NP = 5, NA = 9, NPR = 13 };
  StrBuf t;
  sb_init(&t);
  sb_puts(&t, "func.func() ({\n^bb0(%in: array<f64, 1, C>, %o: array<f64, 1, C>, %c: array<i8, 1, C>):\n");
  unsigned n = 0, nc = 0;
  for (unsigned p = 0; p < NP; p++) {
    sb_printf(&t, "  %%ia%u = arith.constant() {value = %u} : () -> (i64)\n", p, 2 * p);
    sb_printf(&t, "  %%ib%u = arith.constant() {value = %u} : () -> (i64)\n", p, 2 * p + 1);
    sb_printf(&t, "  %%a%u = mem.load(%%in, %%ia%u) : (array<f64, 1, C>, i64) -> (f64)\n", p, p);
    sb_printf(&t, "  %%b%u = mem.load(%%in, %%ib%u) : (array<f64, 1, C>, i64) -> (f64)\n", p, p);
    for (unsigned op = 0; op < NA; op++, n++) {
      char v[32];
      sb_printf(&t, "  %%r%u = arith.%s(%%a%u, %%b%u) : (f64, f64) -> (f64)\n", n, FARITH[op], p, p);
      snprintf(v, sizeof v, "%%r%u", n);
      gen_store(&t, v, "f64", "o", n);
    }
    for (unsigned pr = 0; pr < NPR; pr++, nc++) {
      char v[32];
      sb_printf(&t, "  %%q%u = arith.cmpf(%%a%u, %%b%u) {pred = \"%s\"} : (f64, f64) -> (i1)\n", nc, p, p, FPRED[pr]);
      sb_printf(&t, "  %%qi%u = arith.extui(%%q%u) : (i1) -> (i8)\n", nc, nc);
      snprintf(v, sizeof v, "%%qi%u", nc);
      gen_store(&t, v, "i8", "c", nc);
    }
  }
  /* select, negf, f32 <-> f64, fptoui, uitofp of u64, bitcast of f16 */
  sb_puts(&t, "  %sel = arith.select(%q0, %a0, %b0) : (i1, f64, f64) -> (f64)\n"
              "  %neg = arith.negf(%a0) : (f64) -> (f64)\n"
              "  %tf = arith.truncf(%a3) : (f64) -> (f32)\n"
              "  %bk = arith.extf(%tf) : (f32) -> (f64)\n"
              "  %m1 = arith.constant() {value = -1.0} : () -> (f64)\n"
              "  %ui = arith.fptoui(%m1) : (f64) -> (u32)\n"
              "  %uif = arith.uitofp(%ui) : (u32) -> (f64)\n"
              "  %big = arith.constant() {value = 18446744073709551615 : u64} : () -> (u64)\n"
              "  %bigf = arith.uitofp(%big) : (u64) -> (f64)\n"
              "  %hbits = arith.constant() {value = 15360 : i16} : () -> (i16)\n"
              "  %h = arith.bitcast(%hbits) : (i16) -> (f16)\n"
              "  %hf = arith.extf(%h) : (f16) -> (f64)\n"
              "  %h3 = arith.truncf(%m1) : (f64) -> (f16)\n"
              "  %hb = arith.bitcast(%h3) : (f16) -> (i16)\n"
              "  %hbf = arith.sitofp(%hb) : (i16) -> (f64)\n");
  gen_store(&t, "%sel", "f64", "o", n);
  gen_store(&t, "%neg", "f64", "o", n + 1);
  gen_store(&t, "%bk", "f64", "o", n + 2);
  gen_store(&t, "%uif", "f64", "o", n + 3);
  gen_store(&t, "%bigf", "f64", "o", n + 4);
  gen_store(&t, "%hf", "f64", "o", n + 5);
  gen_store(&t, "%hbf", "f64", "o", n + 6);
  sb_puts(&t, "  func.return() : () -> ()\n}) {sym_name = @fops, function_type = (array<f64, 1, C>, array<f64, 1, C>, "
              "array<i8, 1, C>) -> (), kernel} : () -> ()\n");
  Kir k;
  bool ok = kir_load(&k, sb_cstr(&t));
  sb_free(&t);
  if (!ok) return;
  double in[2 * NP], o[NP * NA + 8];
  int8_t c[NP * NPR];
  for (unsigned p = 0; p < NP; p++) in[2 * p] = pairs[p][0], in[2 * p + 1] = pairs[p][1];
  SimArg args[3] = {arr_c(&k, in, "f64", 1, 2 * NP, 0), arr_c(&k, o, "f64", 1, NP * NA + 8, 0),
                    arr_c(&k, c, "i8", 1, NP * NPR, 0)};
  SimResult r;
  CHECK(kir_launch(&k, "fops", 1, 1, 1, 1, 0, args, 3, NULL, &r));
  for (unsigned p = 0; p < NP; p++) {
    for (unsigned op = 0; op < NA; op++) {
      double e = farith_ref(op, pairs[p][0], pairs[p][1]), got = o[p * NA + op];
      bool same = (isnan(e) && isnan(got)) || e == got;
      if (!same) fprintf(stderr, "arith.%s(%g, %g) = %g, expected %g\n", FARITH[op], pairs[p][0], pairs[p][1], got, e);
      CHECK(same);
    }
    for (unsigned pr = 0; pr < NPR; pr++) {
      bool e = fpred_ref(pr, pairs[p][0], pairs[p][1]);
      if (c[p * NPR + pr] != e) fprintf(stderr, "cmpf %s(%g, %g) = %d\n", FPRED[pr], pairs[p][0], pairs[p][1], c[p * NPR + pr]);
      CHECK(c[p * NPR + pr] == e);
    }
  }
  unsigned n0 = NP * NA;
  CHECK(o[n0] == -2.0);                 /* select(oeq(7.5, -2) = false, 7.5, -2) */
  CHECK(o[n0 + 1] == -7.5);
  CHECK(o[n0 + 2] == -0.5);
  CHECK(o[n0 + 3] == 0.0);              /* fptoui(-1.0) saturates to 0 */
  CHECK(o[n0 + 4] == 18446744073709551615.0);
  CHECK(o[n0 + 5] == 1.0);              /* 0x3c00 */
  CHECK(o[n0 + 6] == (double)(int16_t)0xbc00);
  kir_free(&k);
}

/* ---- integer ops on several widths ------------------------------------------------------------------ */

static const char *IBIN[] = {"addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "floordivsi", "floormodsi",
                             "minsi", "maxsi", "minui", "maxui", "ipow", "shli", "shrsi", "shrui", "andi", "ori", "xori"};
static const char *IUN[] = {"absi", "popc", "clz", "ffs", "brev"};
static const char *IPRED[] = {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};

/* The reference: values as `bits`-wide two's complement patterns. */
static uint64_t mask_of(unsigned bits) { return bits == 64 ? ~0ull : (1ull << bits) - 1; }
static int64_t as_s(uint64_t v, unsigned bits) { return bits == 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits); }
static uint64_t as_u(uint64_t v, unsigned bits) { return v & mask_of(bits); }

static uint64_t ibin_ref(unsigned op, uint64_t a, uint64_t b, unsigned bits, bool sgn) {
  int64_t x = as_s(a, bits), y = as_s(b, bits);
  uint64_t ux = as_u(a, bits), uy = as_u(b, bits), r = 0;
  switch (op) {
  case 0: r = ux + uy; break;
  case 1: r = ux - uy; break;
  case 2: r = ux * uy; break;
  case 3: r = y == 0 ? 0 : y == -1 ? 0 - (uint64_t)x : (uint64_t)(x / y); break;
  case 4: r = uy == 0 ? 0 : ux / uy; break;
  case 5: r = y == 0 || y == -1 ? 0 : (uint64_t)(x % y); break;
  case 6: r = uy == 0 ? 0 : ux % uy; break;
  case 7: {
    if (y == 0) r = 0;
    else if (y == -1) r = 0 - (uint64_t)x;
    else {
      int64_t q = x / y;
      if ((x % y != 0) && ((x < 0) != (y < 0))) q--;
      r = (uint64_t)q;
    }
    break;
  }
  case 8: {
    if (y == 0 || y == -1) r = 0;
    else {
      int64_t m = x % y;
      if (m != 0 && ((m < 0) != (y < 0))) m += y;
      r = (uint64_t)m;
    }
    break;
  }
  case 9: r = (uint64_t)(x < y ? x : y); break;
  case 10: r = (uint64_t)(x > y ? x : y); break;
  case 11: r = ux < uy ? ux : uy; break;
  case 12: r = ux > uy ? ux : uy; break;
  case 13: { /* a ** b by squaring; a negative signed exponent gives 0 */
    r = 1;
    if (sgn && y < 0) r = 0;
    else
      for (uint64_t e = uy, base = ux; e; e >>= 1, base *= base)
        if (e & 1) r *= base;
    break;
  }
  case 14: r = uy >= bits ? 0 : ux << uy; break;
  case 15: r = uy >= bits ? (uint64_t)(x < 0 ? -1 : 0) : (uint64_t)(x >> uy); break;
  case 16: r = uy >= bits ? 0 : ux >> uy; break;
  case 17: r = ux & uy; break;
  case 18: r = ux | uy; break;
  default: r = ux ^ uy; break;
  }
  return as_u(r, bits);
}

static uint64_t iun_ref(unsigned op, uint64_t a, unsigned bits) {
  uint64_t u = as_u(a, bits), r = 0;
  switch (op) {
  case 0: r = as_s(a, bits) < 0 ? 0 - (uint64_t)as_s(a, bits) : u; break;
  case 1: r = (uint64_t)__builtin_popcountll(u); break;
  case 2: r = u ? (uint64_t)(__builtin_clzll(u) - (64 - (int)bits)) : bits; break;
  case 3: r = (uint64_t)__builtin_ffsll((long long)u); break;
  default:
    for (unsigned i = 0; i < bits; i++)
      if (u >> i & 1) r |= 1ull << (bits - 1 - i);
    break;
  }
  return as_u(r, bits);
}

static bool ipred_ref(unsigned p, uint64_t a, uint64_t b, unsigned bits) {
  int64_t x = as_s(a, bits), y = as_s(b, bits);
  uint64_t ux = as_u(a, bits), uy = as_u(b, bits);
  switch (p) {
  case 0: return ux == uy;
  case 1: return ux != uy;
  case 2: return x < y;
  case 3: return x <= y;
  case 4: return x > y;
  case 5: return x >= y;
  case 6: return ux < uy;
  case 7: return ux <= uy;
  case 8: return ux > uy;
  default: return ux >= uy;
  }
}

static void int_ops_for(const char *ty, unsigned bits, bool sgn, const uint64_t (*pairs)[2], unsigned np) {
  enum { NB = 20, NU = 5, NPR = 10 };
  StrBuf t;
  sb_init(&t);
  sb_printf(&t, "func.func() ({\n^bb0(%%in: array<%s, 1, C>, %%o: array<%s, 1, C>, %%c: array<i8, 1, C>):\n", ty, ty);
  unsigned n = 0, nc = 0;
  for (unsigned p = 0; p < np; p++) {
    sb_printf(&t, "  %%ia%u = arith.constant() {value = %u} : () -> (i64)\n", p, 2 * p);
    sb_printf(&t, "  %%ib%u = arith.constant() {value = %u} : () -> (i64)\n", p, 2 * p + 1);
    sb_printf(&t, "  %%a%u = mem.load(%%in, %%ia%u) : (array<%s, 1, C>, i64) -> (%s)\n", p, p, ty, ty);
    sb_printf(&t, "  %%b%u = mem.load(%%in, %%ib%u) : (array<%s, 1, C>, i64) -> (%s)\n", p, p, ty, ty);
    for (unsigned op = 0; op < NB; op++, n++) {
      char v[32];
      sb_printf(&t, "  %%r%u = arith.%s(%%a%u, %%b%u) : (%s, %s) -> (%s)\n", n, IBIN[op], p, p, ty, ty, ty);
      snprintf(v, sizeof v, "%%r%u", n);
      gen_store(&t, v, ty, "o", n);
    }
    for (unsigned op = 0; op < NU; op++, n++) {
      char v[32];
      sb_printf(&t, "  %%r%u = arith.%s(%%a%u) : (%s) -> (%s)\n", n, IUN[op], p, ty, ty);
      snprintf(v, sizeof v, "%%r%u", n);
      gen_store(&t, v, ty, "o", n);
    }
    for (unsigned pr = 0; pr < NPR; pr++, nc++) {
      char v[32];
      sb_printf(&t, "  %%q%u = arith.cmpi(%%a%u, %%b%u) {pred = \"%s\"} : (%s, %s) -> (i1)\n", nc, p, p, IPRED[pr], ty, ty);
      sb_printf(&t, "  %%qi%u = arith.extui(%%q%u) : (i1) -> (i8)\n", nc, nc);
      snprintf(v, sizeof v, "%%qi%u", nc);
      gen_store(&t, v, "i8", "c", nc);
    }
  }
  sb_printf(&t, "  func.return() : () -> ()\n}) {sym_name = @iops, function_type = (array<%s, 1, C>, array<%s, 1, C>, "
                "array<i8, 1, C>) -> (), kernel} : () -> ()\n", ty, ty);
  Kir k;
  bool ok = kir_load(&k, sb_cstr(&t));
  sb_free(&t);
  if (!ok) return;
  unsigned es = bits / 8;
  unsigned char *in = calloc(2 * np, es), *o = calloc(np * (NB + NU), es);
  int8_t *c = calloc(np * NPR, 1);
  for (unsigned p = 0; p < np; p++) {
    memcpy(in + (2 * p) * es, &pairs[p][0], es); /* little endian: the low bytes */
    memcpy(in + (2 * p + 1) * es, &pairs[p][1], es);
  }
  SimArg args[3] = {arr_c(&k, in, ty, 1, 2 * np, 0), arr_c(&k, o, ty, 1, np * (NB + NU), 0), arr_c(&k, c, "i8", 1, np * NPR, 0)};
  SimResult r;
  CHECK(kir_launch(&k, "iops", 1, 1, 1, 1, 0, args, 3, NULL, &r));
  for (unsigned p = 0; p < np; p++) {
    uint64_t a = pairs[p][0], b = pairs[p][1];
    for (unsigned op = 0; op < NB + NU; op++) {
      uint64_t got = 0, e = op < NB ? ibin_ref(op, a, b, bits, sgn) : iun_ref(op - NB, a, bits);
      memcpy(&got, o + (p * (NB + NU) + op) * es, es);
      if (got != e)
        fprintf(stderr, "%s arith.%s(%lld, %lld) = %llu, expected %llu\n", ty, op < NB ? IBIN[op] : IUN[op - NB],
                (long long)as_s(a, bits), (long long)as_s(b, bits), (unsigned long long)got, (unsigned long long)e);
      CHECK(got == e);
    }
    for (unsigned pr = 0; pr < NPR; pr++) {
      bool e = ipred_ref(pr, a, b, bits);
      if (c[p * NPR + pr] != e) fprintf(stderr, "%s cmpi %s(%lld, %lld) wrong\n", ty, IPRED[pr], (long long)as_s(a, bits), (long long)as_s(b, bits));
      CHECK(c[p * NPR + pr] == e);
    }
  }
  free(in);
  free(o);
  free(c);
  kir_free(&k);
}

static void test_int_ops(void) {
  static const uint64_t p32[][2] = {{(uint64_t)-7, 3}, {7, (uint64_t)-3}, {0x80000000u, (uint64_t)-1}, {5, 0},
                                    {0xfffffff0u, 4}, {3, 33}, {12345, 7}, {(uint64_t)-1, 31}};
  static const uint64_t p8[][2] = {{(uint64_t)-128, (uint64_t)-1}, {100, 3}, {(uint64_t)-7, 2}, {0x81, 7}, {1, 8}};
  static const uint64_t p64[][2] = {{(uint64_t)INT64_MIN, (uint64_t)-1}, {(uint64_t)-9, 4}, {3, 40},
                                    {0xffffffffffffffffull, 63}, {1ull << 40, 64}, {123456789012345ull, 1000},
                                    {3, 0xffffffffffffffffull}};
  int_ops_for("i32", 32, true, p32, sizeof p32 / sizeof p32[0]);
  int_ops_for("u32", 32, false, p32, sizeof p32 / sizeof p32[0]);
  int_ops_for("i8", 8, true, p8, sizeof p8 / sizeof p8[0]);
  int_ops_for("u8", 8, false, p8, sizeof p8 / sizeof p8[0]);
  int_ops_for("i16", 16, true, p8, sizeof p8 / sizeof p8[0]);
  int_ops_for("i64", 64, true, p64, sizeof p64 / sizeof p64[0]);
  int_ops_for("u64", 64, false, p64, sizeof p64 / sizeof p64[0]);
}

/* ---- each atomic kind ------------------------------------------------------------------------------ */

static const char *ATOMIC_KINDS =
    "func.func() ({\n"
    "^bb0(%a: array<i32, 1, C>, %u: array<u32, 1, C>, %f: array<f64, 1, C>, %old: array<i32, 1, C>):\n"
    "  %k0 = arith.constant() {value = 0} : () -> (i64)\n"
    "  %k1 = arith.constant() {value = 1} : () -> (i64)\n"
    "  %k2 = arith.constant() {value = 2} : () -> (i64)\n"
    "  %k3 = arith.constant() {value = 3} : () -> (i64)\n"
    "  %k4 = arith.constant() {value = 4} : () -> (i64)\n"
    "  %k5 = arith.constant() {value = 5} : () -> (i64)\n"
    "  %k6 = arith.constant() {value = 6} : () -> (i64)\n"
    "  %v5 = arith.constant() {value = 5 : i32} : () -> (i32)\n"
    "  %vm3 = arith.constant() {value = -3 : i32} : () -> (i32)\n"
    "  %v12 = arith.constant() {value = 12 : i32} : () -> (i32)\n"
    "  %o0 = gpu.atomic_rmw(%a, %k0, %v5) {kind = \"sub\"} : (array<i32, 1, C>, i64, i32) -> (i32)\n"
    "  %o1 = gpu.atomic_rmw(%a, %k1, %v12) {kind = \"and\"} : (array<i32, 1, C>, i64, i32) -> (i32)\n"
    "  %o2 = gpu.atomic_rmw(%a, %k2, %v12) {kind = \"or\"} : (array<i32, 1, C>, i64, i32) -> (i32)\n"
    "  %o3 = gpu.atomic_rmw(%a, %k3, %v12) {kind = \"xor\"} : (array<i32, 1, C>, i64, i32) -> (i32)\n"
    "  %o4 = gpu.atomic_rmw(%a, %k4, %vm3) {kind = \"min\"} : (array<i32, 1, C>, i64, i32) -> (i32)\n"
    "  %o5 = gpu.atomic_rmw(%a, %k5, %vm3) {kind = \"exch\"} : (array<i32, 1, C>, i64, i32) -> (i32)\n"
    "  %o6 = gpu.atomic_cas(%a, %k6, %v12, %v5) : (array<i32, 1, C>, i64, i32, i32) -> (i32)\n"
    "  mem.store(%o0, %old, %k0) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "  mem.store(%o4, %old, %k1) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "  mem.store(%o6, %old, %k2) : (i32, array<i32, 1, C>, i64) -> ()\n"
    "  %u3 = arith.constant() {value = 3 : u32} : () -> (u32)\n"
    "  %d0 = gpu.atomic_rmw(%u, %k0, %u3) {kind = \"dec\"} : (array<u32, 1, C>, i64, u32) -> (u32)\n"
    "  %d1 = gpu.atomic_rmw(%u, %k1, %u3) {kind = \"dec\"} : (array<u32, 1, C>, i64, u32) -> (u32)\n"
    "  %d2 = gpu.atomic_rmw(%u, %k2, %u3) {kind = \"dec\"} : (array<u32, 1, C>, i64, u32) -> (u32)\n"
    "  %d3 = gpu.atomic_rmw(%u, %k3, %u3) {kind = \"max\"} : (array<u32, 1, C>, i64, u32) -> (u32)\n"
    "  %x = arith.constant() {value = 2.5} : () -> (f64)\n"
    "  %f0 = gpu.atomic_rmw(%f, %k0, %x) {kind = \"sub\"} : (array<f64, 1, C>, i64, f64) -> (f64)\n"
    "  %f1 = gpu.atomic_rmw(%f, %k1, %x) {kind = \"min\"} : (array<f64, 1, C>, i64, f64) -> (f64)\n"
    "  %f2 = gpu.atomic_rmw(%f, %k2, %x) {kind = \"max\"} : (array<f64, 1, C>, i64, f64) -> (f64)\n"
    "  %f3 = gpu.atomic_rmw(%f, %k3, %x) {kind = \"exch\"} : (array<f64, 1, C>, i64, f64) -> (f64)\n"
    "  %z = arith.constant() {value = 0.0} : () -> (f64)\n"
    "  %nan = arith.divf(%z, %z) : (f64, f64) -> (f64)\n"
    "  %f4 = gpu.atomic_rmw(%f, %k4, %nan) {kind = \"max\"} : (array<f64, 1, C>, i64, f64) -> (f64)\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @akinds, function_type = (array<i32, 1, C>, array<u32, 1, C>, array<f64, 1, C>, array<i32, 1, C>) -> (), "
    "kernel} : () -> ()\n"
    "func.func() ({\n"
    "^bb0(%h: array<f16, 1, C>):\n"
    "  %k0 = arith.constant() {value = 0} : () -> (i64)\n"
    "  %x = arith.constant() {value = 0.5 : f16} : () -> (f16)\n"
    "  %o = gpu.atomic_rmw(%h, %k0, %x) {kind = \"add\"} : (array<f16, 1, C>, i64, f16) -> (f16)\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @akinds16, function_type = (array<f16, 1, C>) -> (), kernel} : () -> ()\n";

static void test_atomic_kinds(void) {
  Kir k;
  if (!kir_load(&k, ATOMIC_KINDS)) return;
  int32_t a[7] = {10, 10, 10, 10, 10, 10, 12}, old[3] = {0};
  uint32_t u[4] = {0, 2, 7, 1};
  double f[5] = {1.0, 1.0, 1.0, 1.0, 1.0};
  SimArg args[4] = {arr_c(&k, a, "i32", 1, 7, 0), arr_c(&k, u, "u32", 1, 4, 0), arr_c(&k, f, "f64", 1, 5, 0),
                    arr_c(&k, old, "i32", 1, 3, 0)};
  SimResult r;
  CHECK(kir_launch(&k, "akinds", 1, 1, 1, 1, 0, args, 4, NULL, &r));
  CHECK_EQ_INT(a[0], 5);
  CHECK_EQ_INT(a[1], 10 & 12);
  CHECK_EQ_INT(a[2], 10 | 12);
  CHECK_EQ_INT(a[3], 10 ^ 12);
  CHECK_EQ_INT(a[4], -3);
  CHECK_EQ_INT(a[5], -3);
  CHECK_EQ_INT(a[6], 5);
  CHECK(old[0] == 10 && old[1] == 10 && old[2] == 12);
  CHECK_EQ_INT(u[0], 3); /* dec: 0 -> val */
  CHECK_EQ_INT(u[1], 1); /* 2 -> 1 */
  CHECK_EQ_INT(u[2], 3); /* 7 > val -> val */
  CHECK_EQ_INT(u[3], 3);
  CHECK(f[0] == -1.5 && f[1] == 1.0 && f[2] == 2.5 && f[3] == 2.5);
  CHECK(f[4] == 1.0); /* max(old, NaN) keeps old, as Python's max and Numba's atomic.max */
  uint16_t h[1] = {0x3c00}; /* 1.0 + 0.5 from each of 4 threads = 3.0 */
  SimArg hargs[1] = {arr_c(&k, h, "f16", 1, 1, 0)};
  CHECK(kir_launch(&k, "akinds16", 1, 1, 4, 1, 0, hargs, 1, NULL, &r));
  CHECK_EQ_INT(h[0], 0x4200);
  kir_free(&k);
}

/* ---- complex: the complex dialect through lower-complex (which sim_launch runs), against C ---------------- */

static const char *K_COMPLEX =
    "func.func() ({\n"
    "^bb0(%x: array<complex<f64>, 1, C>, %y: array<complex<f64>, 1, C>, %out: array<complex<f64>, 2, C>, %outf: array<f64, 2, C>):\n"
    "  %tx = gpu.thread_id() {dim = 0} : () -> (i32)\n"
    "  %i = arith.extsi(%tx) : (i32) -> (i64)\n"
    "  %n = mem.dim(%x) {axis = 0} : (array<complex<f64>, 1, C>) -> (i64)\n"
    "  %in = arith.cmpi(%i, %n) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  cf.cond_br(%in) [^bb1, ^bb2] : (i1) -> ()\n"
    "^bb1:\n"
    "  %a = mem.load(%x, %i) : (array<complex<f64>, 1, C>, i64) -> (complex<f64>)\n"
    "  %b = mem.load(%y, %i) : (array<complex<f64>, 1, C>, i64) -> (complex<f64>)\n"
    "  %c0 = arith.constant() {value = 0} : () -> (i64)\n"
    "  %c1 = arith.constant() {value = 1} : () -> (i64)\n"
    "  %c2 = arith.constant() {value = 2} : () -> (i64)\n"
    "  %c3 = arith.constant() {value = 3} : () -> (i64)\n"
    "  %c4 = arith.constant() {value = 4} : () -> (i64)\n"
    "  %c5 = arith.constant() {value = 5} : () -> (i64)\n"
    "  %c6 = arith.constant() {value = 6} : () -> (i64)\n"
    "  %f0 = arith.constant() {value = 0.0} : () -> (f64)\n"
    "  %f1 = arith.constant() {value = 1.0} : () -> (f64)\n"
    "  %r0 = complex.add(%a, %b) : (complex<f64>, complex<f64>) -> (complex<f64>)\n"
    "  mem.store(%r0, %out, %i, %c0) : (complex<f64>, array<complex<f64>, 2, C>, i64, i64) -> ()\n"
    "  %r1 = complex.sub(%a, %b) : (complex<f64>, complex<f64>) -> (complex<f64>)\n"
    "  mem.store(%r1, %out, %i, %c1) : (complex<f64>, array<complex<f64>, 2, C>, i64, i64) -> ()\n"
    "  %r2 = complex.mul(%a, %b) : (complex<f64>, complex<f64>) -> (complex<f64>)\n"
    "  mem.store(%r2, %out, %i, %c2) : (complex<f64>, array<complex<f64>, 2, C>, i64, i64) -> ()\n"
    "  %r3 = complex.div(%a, %b) : (complex<f64>, complex<f64>) -> (complex<f64>)\n"
    "  mem.store(%r3, %out, %i, %c3) : (complex<f64>, array<complex<f64>, 2, C>, i64, i64) -> ()\n"
    "  %r4 = complex.neg(%a) : (complex<f64>) -> (complex<f64>)\n"
    "  mem.store(%r4, %out, %i, %c4) : (complex<f64>, array<complex<f64>, 2, C>, i64, i64) -> ()\n"
    "  %r5 = complex.conj(%a) : (complex<f64>) -> (complex<f64>)\n"
    "  mem.store(%r5, %out, %i, %c5) : (complex<f64>, array<complex<f64>, 2, C>, i64, i64) -> ()\n"
    "  %r6 = complex.pow(%a, %b) : (complex<f64>, complex<f64>) -> (complex<f64>)\n"
    "  mem.store(%r6, %out, %i, %c6) : (complex<f64>, array<complex<f64>, 2, C>, i64, i64) -> ()\n"
    "  %h = complex.abs(%a) : (complex<f64>) -> (f64)\n"
    "  mem.store(%h, %outf, %i, %c0) : (f64, array<f64, 2, C>, i64, i64) -> ()\n"
    "  %eq = complex.eq(%a, %b) : (complex<f64>, complex<f64>) -> (i1)\n"
    "  %eqf = arith.select(%eq, %f1, %f0) : (i1, f64, f64) -> (f64)\n"
    "  mem.store(%eqf, %outf, %i, %c1) : (f64, array<f64, 2, C>, i64, i64) -> ()\n"
    "  %ne = complex.ne(%a, %b) : (complex<f64>, complex<f64>) -> (i1)\n"
    "  %nef = arith.select(%ne, %f1, %f0) : (i1, f64, f64) -> (f64)\n"
    "  mem.store(%nef, %outf, %i, %c2) : (f64, array<f64, 2, C>, i64, i64) -> ()\n"
    "  %re = complex.re(%a) : (complex<f64>) -> (f64)\n"
    "  %im = complex.im(%b) : (complex<f64>) -> (f64)\n"
    "  %mk = complex.create(%im, %re) : (f64, f64) -> (complex<f64>)\n"
    "  %mkr = complex.re(%mk) : (complex<f64>) -> (f64)\n"
    "  mem.store(%mkr, %outf, %i, %c3) : (f64, array<f64, 2, C>, i64, i64) -> ()\n"
    "  cf.br() [^bb2] : () -> ()\n"
    "^bb2:\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @pycomplex, function_type = (array<complex<f64>, 1, C>, array<complex<f64>, 1, C>, array<complex<f64>, 2, C>, array<f64, 2, C>) -> (), kernel} : () -> ()\n"
    "func.func() ({\n"
    "^bb0(%z: complex<f64>, %w: complex<f64>, %n: i64):\n"
    "  %lb = arith.constant() {value = 0 : i64} : () -> (i64)\n"
    "  %st = arith.constant() {value = 1 : i64} : () -> (i64)\n"
    "  %r = scf.for(%lb, %n, %st, %z) ({\n"
    "  ^bb0(%i: i64, %acc: complex<f64>):\n"
    "    %s = complex.mul(%acc, %w) : (complex<f64>, complex<f64>) -> (complex<f64>)\n"
    "    %t = complex.add(%s, %z) : (complex<f64>, complex<f64>) -> (complex<f64>)\n"
    "    scf.yield(%t) : (complex<f64>) -> ()\n"
    "  }) : (i64, i64, i64, complex<f64>) -> (complex<f64>)\n"
    "  func.return(%r) : (complex<f64>) -> ()\n"
    "}) {sym_name = @horner, function_type = (complex<f64>, complex<f64>, i64) -> (complex<f64>)} : () -> ()\n"
    "func.func() ({\n"
    "^bb0(%x: array<complex<f64>, 1, C>, %y: array<complex<f64>, 1, C>, %out: array<complex<f64>, 1, C>):\n"
    "  %tx = gpu.thread_id() {dim = 0} : () -> (i32)\n"
    "  %i = arith.extsi(%tx) : (i32) -> (i64)\n"
    "  %a = mem.load(%x, %i) : (array<complex<f64>, 1, C>, i64) -> (complex<f64>)\n"
    "  %b = mem.load(%y, %i) : (array<complex<f64>, 1, C>, i64) -> (complex<f64>)\n"
    "  %n = arith.constant() {value = 3 : i64} : () -> (i64)\n"
    "  %h = func.call(%a, %b, %n) {callee = @horner} : (complex<f64>, complex<f64>, i64) -> (complex<f64>)\n"
    "  mem.store(%h, %out, %i) : (complex<f64>, array<complex<f64>, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @loops, function_type = (array<complex<f64>, 1, C>, array<complex<f64>, 1, C>, array<complex<f64>, 1, C>) -> (), kernel} : () -> ()\n";

static void cquot(double ar, double ai, double br, double bi, double *rr, double *ri) { /* CPython's _Py_c_quot */
  if (fabs(br) >= fabs(bi)) {
    if (br == 0) { *rr = *ri = NAN; return; }
    double ratio = bi / br, denom = br + bi * ratio;
    *rr = (ar + ai * ratio) / denom, *ri = (ai - ar * ratio) / denom;
  } else if (fabs(bi) >= fabs(br)) {
    double ratio = br / bi, denom = br * ratio + bi;
    *rr = (ar * ratio + ai) / denom, *ri = (ai * ratio - ar) / denom;
  } else {
    *rr = *ri = NAN;
  }
}

static void cpow_nb(double ar, double ai, double br, double bi, double *rr, double *ri) { /* numba-cuda's cpow */
  if (br == 0 && bi == 0) { *rr = 1, *ri = 0; return; }
  if (ar == 0 && br == 0) { *rr = 0, *ri = 0; return; }
  double vabs = hypot(ar, ai), len = pow(vabs, br), at = atan2(ai, ar), phase = at * br;
  if (bi != 0) len /= exp(at * bi), phase += bi * log(vabs);
  double s = sin(phase), c = cos(phase), tr = s * 0.0 - 0.0 * 1.0, ti = s * 1.0 + 0.0 * 0.0;
  double ur = c + tr, ui = 0.0 + ti;
  *rr = len * ur - 0.0 * ui, *ri = len * ui + 0.0 * ur;
}

static bool same_bits(double a, double b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0; }

static void test_complex(void) {
  static const double xr[] = {1.0, -2.5, 0.0, -0.0, 3.0, INFINITY, NAN, 1e300, 0.5, -1.0, 2.0, 0.0};
  static const double xi[] = {2.0, 0.5, 0.0, 1.0, -4.0, 0.0, 1.0, 1e300, -0.25, 0.0, 0.0, -0.0};
  static const double yr[] = {3.0, 0.0, 2.0, 1.5, 3.0, 1.0, 2.0, 2.0, 0.5, 0.5, 0.0, 1.0};
  static const double yi[] = {-1.0, -2.0, 0.0, -0.0, -4.0, 1.0, 0.0, 0.0, 1.5, 0.0, 0.0, 0.25};
  enum { N = sizeof xr / sizeof xr[0] };
  Kir k;
  if (!kir_load(&k, K_COMPLEX)) return;
  double x[N][2], y[N][2], out[N][7][2], outf[N][4], h[N][2];
  for (int i = 0; i < N; i++) x[i][0] = xr[i], x[i][1] = xi[i], y[i][0] = yr[i], y[i][1] = yi[i];
  memset(out, 0, sizeof out);
  memset(outf, 0, sizeof outf);
  SimArg args[4] = {arr_c(&k, x, "complex<f64>", 1, N, 0), arr_c(&k, y, "complex<f64>", 1, N, 0),
                    arr_c(&k, out, "complex<f64>", 2, N, 7), arr_c(&k, outf, "f64", 2, N, 4)};
  SimResult r;
  CHECK(kir_launch(&k, "pycomplex", 1, 1, 32, 1, 0, args, 4, NULL, &r));
  for (int i = 0; i < N; i++) {
    double ar = xr[i], ai = xi[i], br = yr[i], bi = yi[i], w[7][2];
    w[0][0] = ar + br, w[0][1] = ai + bi;
    w[1][0] = ar - br, w[1][1] = ai - bi;
    w[2][0] = ar * br - ai * bi, w[2][1] = ar * bi + ai * br;
    cquot(ar, ai, br, bi, &w[3][0], &w[3][1]);
    w[4][0] = -ar, w[4][1] = -ai;
    w[5][0] = ar, w[5][1] = -ai;
    cpow_nb(ar, ai, br, bi, &w[6][0], &w[6][1]);
    for (int c = 0; c < 7; c++)
      for (int p = 0; p < 2; p++) {
        CHECK(same_bits(out[i][c][p], w[c][p]));
        if (!same_bits(out[i][c][p], w[c][p]))
          fprintf(stderr, "  op %d of (%g%+gj, %g%+gj) part %d: %.17g, want %.17g\n", c, ar, ai, br, bi, p, out[i][c][p], w[c][p]);
      }
    CHECK(same_bits(outf[i][0], hypot(ar, ai)));
    CHECK(outf[i][1] == ((ar == br && ai == bi) ? 1.0 : 0.0));
    CHECK(outf[i][2] == ((ar != br || ai != bi) ? 1.0 : 0.0));
    CHECK(same_bits(outf[i][3], bi));
  }
  /* a complex value carried by a loop and passed to and returned from a device function */
  SimArg args2[3] = {arr_c(&k, x, "complex<f64>", 1, N, 0), arr_c(&k, y, "complex<f64>", 1, N, 0),
                     arr_c(&k, h, "complex<f64>", 1, N, 0)};
  CHECK(kir_launch(&k, "loops", 1, 1, N, 1, 0, args2, 3, NULL, &r));
  for (int i = 0; i < N; i++) {
    double accr = xr[i], acci = xi[i];
    for (int j = 0; j < 3; j++) {
      double sr = accr * yr[i] - acci * yi[i], si = accr * yi[i] + acci * yr[i];
      accr = sr + xr[i], acci = si + xi[i];
    }
    CHECK(same_bits(h[i][0], accr) && same_bits(h[i][1], acci));
  }
  kir_free(&k);
}

int main(void) {
  RUN(test_math);
  RUN(test_float_ops);
  RUN(test_int_ops);
  RUN(test_atomic_kinds);
  RUN(test_complex);
  return sim_test_summary("sim_ops");
}
