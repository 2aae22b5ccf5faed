/* ir_libdevice.c — unit tests of the libdevice functions ir/libdevice.c computes where no host library has them
 * (sinpi, cospi, sincospi, erfinv, erfcinv, normcdfinv, erfcx and their float forms: within one ulp of the exact
 * value, the REF_* tables below computed with mpmath at 300 bits and rounded to float64), their special values as
 * libdevice's code gives them, remquo's remainder and quotient bits, the approximate fast_* functions' defined
 * values (libdevice's composition, each approximate instruction replaced by the correctly rounded value), and the
 * table's kinds: every row computed (none unsupported), remquo exact, fast_* approximate with bounds; every row
 * names each of its parameters. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ir/libdevice.h"
#include "runtime_test.h"

typedef struct Ref {
  double x, y;
} Ref;

static const Ref REF_SINPI[] = {{0x1.999999999999ap-4, 0x1.3c6ef372fe950p-2}, {0x1.5555555555555p-2, 0x1.bb67ae8584caap-1}, {0x1.4000000000000p+0, -0x1.6a09e667f3bcdp-1}, {-0x1.6000000000000p+1, -0x1.6a09e667f3bcdp-1}, {0x1.79ca10c924223p-67, 0x1.28b70caa3e9f8p-65}, {0x1.e240c9fbe76c9p+16, 0x1.3b13ec1c8e465p-1}, {0x1.fffffffffffffp+51, -0x1.0000000000000p+0}, {-0x1.ffffffffffffep-2, -0x1.0000000000000p+0}, {0x1.c000000000001p+2, -0x1.921fb54442d18p-49}};
static const Ref REF_COSPI[] = {{0x1.999999999999ap-4, 0x1.e6f0e134454ffp-1}, {0x1.5555555555555p-2, 0x1.0000000000000p-1}, {0x1.4000000000000p+0, -0x1.6a09e667f3bcdp-1}, {-0x1.6000000000000p+1, -0x1.6a09e667f3bcdp-1}, {0x1.79ca10c924223p-67, 0x1.0000000000000p+0}, {0x1.e240c9fbe76c9p+16, -0x1.93924eb2ceff4p-1}, {0x1.fffffffffffffp+51, 0x0.0p+0}, {0x1.ffffffffffffep-2, 0x1.921fb54442d18p-52}, {0x1.c000000000001p+2, -0x1.0000000000000p+0}};
static const Ref REF_ERFINV[] = {{0x1.0000000000000p-1, 0x1.e861fbb24c00ap-2}, {-0x1.0000000000000p-1, -0x1.e861fbb24c00ap-2}, {0x1.999999999999ap-4, 0x1.6bf442539fd74p-4}, {0x1.56e1fc2f8f359p-997, 0x1.2fdf36bf69b9fp-997}, {0x1.fffffffffffffp-1, 0x1.7744f8f74e94ap+2}, {-0x1.ffffde7210be9p-1, -0x1.babd964830d58p+1}, {0x1.8000000000000p-1, 0x1.a07890f6b2ba1p-1}, {0x0.0000000000001p-1022, 0x0.0000000000001p-1022}, {0x1.3333333333333p-2, 0x1.1700774485ed2p-2}};
static const Ref REF_ERFCINV[] = {{0x1.0000000000000p-1, 0x1.e861fbb24c00ap-2}, {0x1.8000000000000p+0, -0x1.e861fbb24c00ap-2}, {0x1.56e1fc2f8f359p-997, 0x1.a359fd2c5e942p+4}, {0x0.0000000000001p-1022, 0x1.b369a6244e684p+4}, {0x1.fffffffffffffp+0, -0x1.73856d153f081p+2}, {0x1.0624dd2f1a9fcp-10, 0x1.29d311405cdb4p+1}, {0x1.b7cdfd9d7bdbbp-34, 0x1.24a92a0d51497p+2}, {0x1.ccccccccccccdp-1, 0x1.6bf442539fd73p-4}, {0x1.0000000000001p+0, -0x1.c5bf891b4ef6bp-53}};
static const Ref REF_NORMCDFINV[] = {{0x1.999999999999ap-6, -0x1.f5c0331eeff85p+0}, {0x1.f333333333333p-1, 0x1.f5c0331eeff83p+0}, {0x1.56e1fc2f8f359p-997, -0x1.286074064c26ep+5}, {0x1.0000000000001p-1, 0x1.40d931ff62706p-52}, {0x1.fffffffffffffp-1, 0x1.06b48528cea52p+3}, {0x1.3333333333333p-2, -0x1.0c7e39582c5fbp-1}, {0x1.79ca10c924223p-67, -0x1.2865170b43a4cp+3}, {0x0.0000000000001p-1022, -0x1.33bd3f27fcd03p+5}, {0x1.6666666666666p-1, 0x1.0c7e39582c5fap-1}};
static const Ref REF_ERFCX[] = {{0x0.0p+0, 0x1.0000000000000p+0}, {0x1.0000000000000p+0, 0x1.b5d8780f956b2p-2}, {-0x1.0000000000000p+0, 0x1.409321304c1fep+2}, {0x1.4000000000000p+3, 0x1.cbe831f997124p-5}, {0x1.a000000000000p+4, 0x1.63438bf2c3ee9p-6}, {-0x1.a000000000000p+4, 0x1.32f288d4422dap+976}, {0x1.86a0000000000p+16, 0x1.7a9f084b432a7p-18}, {0x1.2c00000000000p+7, 0x1.ecfc44def529bp-9}, {0x1.0624dd2f1a9fcp-10, 0x1.ff6c3b683c9c1p-1}, {-0x1.0000000000000p-1, 0x1.f3cde5a30aa93p+0}, {0x1.12e0be826d695p-31, 0x1.fffffffb27558p-1}};

static SemVal run(const char *name, double a, double b, unsigned part) {
  const LibdeviceFn *f = ir_libdevice_lookup(name);
  CHECK(f && ir_libdevice_eval(f));
  SemVal x[LD_MAX_ARGS], r[LD_MAX_RESULTS];
  memset(x, 0, sizeof x);
  memset(r, 0, sizeof r);
  LdShape sh;
  ir_libdevice_shape(f, &sh);
  if (sh.args[0] == 'f') x[0].f = (float)a, x[1].f = (float)b;
  else x[0].d = a, x[1].d = b;
  if (f && ir_libdevice_eval(f)) ir_libdevice_eval(f)(x, r);
  return r[part];
}
static double d_of(const char *name, double a, unsigned part) { return run(name, a, 0, part).d; }
static float f_of(const char *name, double a, unsigned part) { return run(name, a, 0, part).f; }

static int64_t rank64(double v) {
  int64_t i;
  memcpy(&i, &v, 8);
  return i < 0 ? INT64_MIN - i : i;
}
static uint64_t ulps64(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
  int64_t x = rank64(a), y = rank64(b);
  return x > y ? (uint64_t)x - (uint64_t)y : (uint64_t)y - (uint64_t)x;
}
static uint64_t ulps32(float a, float b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
  int32_t x, y;
  memcpy(&x, &a, 4);
  memcpy(&y, &b, 4);
  int64_t rx = x < 0 ? (int64_t)INT32_MIN - x : x, ry = y < 0 ? (int64_t)INT32_MIN - y : y;
  return (uint64_t)(rx > ry ? rx - ry : ry - rx);
}
/* the same value and the same sign (NaN: any NaN) */
static bool same(double a, double b) { return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b)); }

/* each reference within one ulp, in float64 and (the reference rounded) float32; part picks sincospi's result */
static void check_refs(const char *name, const char *f32name, const char *pair, unsigned part, const Ref *refs,
                       size_t n) {
  char fpair[32];
  snprintf(fpair, sizeof fpair, "%sf", pair ? pair : "");
  for (size_t i = 0; i < n; i++) {
    double got = d_of(name, refs[i].x, 0);
    if (ulps64(got, refs[i].y) > 1) {
      fprintf(stderr, "%s(%a) = %a, want %a\n", name, refs[i].x, got, refs[i].y);
      test_failures++;
    }
    if (pair && ulps64(d_of(pair, refs[i].x, part), refs[i].y) > 1) {
      fprintf(stderr, "%s(%a) part %u = %a, want %a\n", pair, refs[i].x, part, d_of(pair, refs[i].x, part), refs[i].y);
      test_failures++;
    }
    float xf = (float)refs[i].x;
    if ((double)xf != refs[i].x) continue; /* the float32 forms only where the argument is a float32 */
    float gf = f_of(f32name, xf, 0);
    if (ulps32(gf, (float)refs[i].y) > 1 || (pair && ulps32(f_of(fpair, xf, part), (float)refs[i].y) > 1)) {
      fprintf(stderr, "%s(%a) = %a, want %a\n", f32name, (double)xf, (double)gf, (double)(float)refs[i].y);
      test_failures++;
    }
  }
}
#define REFS(name, pair, part, table) check_refs(name, name "f", pair, part, table, sizeof table / sizeof *table)

static void test_special_values(void) {
  /* sinpi of an integer: a zero of its sign; cospi of a half-integer: +0; past 2^53 every double is even */
  CHECK(same(d_of("sinpi", 0.0, 0), 0.0) && same(d_of("sinpi", -0.0, 0), -0.0));
  CHECK(same(d_of("sinpi", 2.0, 0), 0.0) && same(d_of("sinpi", -3.0, 0), -0.0) && same(d_of("sinpi", 0x1p60, 0), 0.0));
  CHECK(same(d_of("cospi", 0.5, 0), 0.0) && same(d_of("cospi", -1.5, 0), 0.0) && same(d_of("cospi", 0x1p60, 0), 1.0));
  CHECK(same(d_of("cospi", 1.0, 0), -1.0) && same(d_of("cospi", -0.0, 0), 1.0) && same(d_of("sinpi", 0.5, 0), 1.0));
  CHECK(isnan(d_of("sinpi", INFINITY, 0)) && isnan(d_of("cospi", -INFINITY, 0)) && isnan(d_of("sincospi", NAN, 1)));
  CHECK(same(f_of("sinpif", -4.0, 0), -0.0) && same(f_of("cospif", 2.5, 0), 0.0) && same(f_of("cospif", 0x1p30, 0), 1.0));
  CHECK(same(f_of("sincospif", 0.25, 0), (float)M_SQRT1_2) && same(f_of("sincospif", 0.25, 1), (float)M_SQRT1_2));
  /* the inverse error functions at and past their ends */
  CHECK(same(d_of("erfinv", 1.0, 0), INFINITY) && same(d_of("erfinv", -1.0, 0), -INFINITY));
  CHECK(isnan(d_of("erfinv", 1.5, 0)) && same(d_of("erfinv", -0.0, 0), -0.0) && same(f_of("erfinvf", 0.0, 0), 0.0f));
  CHECK(same(d_of("erfcinv", 0.0, 0), INFINITY) && same(d_of("erfcinv", 2.0, 0), -INFINITY));
  CHECK(isnan(d_of("erfcinv", -1.0, 0)) && isnan(d_of("erfcinv", 2.5, 0)) && same(d_of("erfcinv", 1.0, 0), 0.0));
  CHECK(same(d_of("normcdfinv", 0.5, 0), 0.0) && same(f_of("normcdfinvf", 0.5, 0), 0.0f)); /* +0: libdevice adds 0 */
  CHECK(same(d_of("normcdfinv", 0.0, 0), -INFINITY) && same(d_of("normcdfinv", 1.0, 0), INFINITY));
  CHECK(isnan(d_of("normcdfinv", 1.5, 0)) && isnan(f_of("normcdfinvf", NAN, 0)));
  /* erfcx: 0 at +inf, overflowing below about -26.6 (float64) and -9.4 (float32) */
  CHECK(same(d_of("erfcx", INFINITY, 0), 0.0) && same(d_of("erfcx", -INFINITY, 0), INFINITY));
  CHECK(same(d_of("erfcx", -27.0, 0), INFINITY) && same(f_of("erfcxf", -9.5, 0), INFINITY) && isnan(d_of("erfcx", NAN, 0)));
  CHECK(ulps64(d_of("erfcx", 1e300, 0), 1 / (1e300 * sqrt(M_PI))) <= 1 && same(f_of("erfcxf", 0.0, 0), 1.0f));
}

/* remquo: remainder(x, y) and the low three bits of |x/y rounded to nearest even|, negative where the signs differ,
 * 0 where the remainder is NaN */
static void test_remquo(void) {
  static const struct {
    double x, y, r;
    int q;
  } cases[] = {{7, 2, -1, 4},    {-7, 2, 1, -4},    {7, -2, -1, -4}, {10.5, 1, 0.5, 2}, {11.5, 1, -0.5, 4},
               {100, 3, 1, 1},    {-0.0, 1, -0.0, 0}, {5, INFINITY, 5, 0}, {0x1p60, 3, 1, 5} /* (2^60 - 1) / 3 = 5 mod 8 */, {2.5, 0.5, 0, 5},
               {INFINITY, 1, NAN, 0}, {5, 0, NAN, 0}, {NAN, 1, NAN, 0}, {1, NAN, NAN, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    SemVal r = run("remquo", cases[i].x, cases[i].y, 0), q = run("remquo", cases[i].x, cases[i].y, 1);
    SemVal rf = run("remquof", cases[i].x, cases[i].y, 0), qf = run("remquof", cases[i].x, cases[i].y, 1);
    if (!same(r.d, cases[i].r) || q.i != cases[i].q || !same(rf.f, (float)cases[i].r) || qf.i != cases[i].q) {
      fprintf(stderr, "remquo(%g, %g) = (%g, %lld) / (%g, %lld), want (%g, %d)\n", cases[i].x, cases[i].y, r.d,
              (long long)q.i, (double)rf.f, (long long)qf.i, cases[i].r, cases[i].q);
      test_failures++;
    }
  }
}

/* fast_*: libdevice's composition with the approximate instructions replaced by correctly rounded values */
static void test_fast(void) {
  static const float xs[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 3.0f, -20.0f, 88.0f, 1e-40f, 7.25f, 1e30f, INFINITY, -INFINITY, NAN};
  for (size_t i = 0; i < sizeof xs / sizeof *xs; i++) {
    float x = xs[i];
    volatile float e = x * 0x1.715476p0f, t = x * 0x1.a934f0p1f, lg = (float)log2((double)x);
    volatile float ln = lg * 0x1.62e430p-1f, lt = 0x1.344136p-2f * lg, p = 2.5f * lg;
    float s = (float)sin((double)x), c = (float)cos((double)x);
    CHECK(same(f_of("fast_expf", x, 0), (float)exp2((double)e)));
    CHECK(same(f_of("fast_exp10f", x, 0), (float)exp2((double)t)));
    CHECK(same(f_of("fast_log2f", x, 0), lg) && same(f_of("fast_logf", x, 0), ln) && same(f_of("fast_log10f", x, 0), lt));
    CHECK(same(f_of("fast_sinf", x, 0), s) && same(f_of("fast_cosf", x, 0), c));
    CHECK(same(f_of("fast_sincosf", x, 0), s) && same(f_of("fast_sincosf", x, 1), c));
    CHECK(same(f_of("fast_tanf", x, 0), s / c));
    CHECK(same(run("fast_powf", x, 2.5, 0).f, (float)exp2((double)p)));
    CHECK(same(run("fast_fdividef", x, 3.0, 0).f, x / 3.0f));
  }
  /* __fdividef past 2^126: 0, NaN for an infinite dividend */
  CHECK(same(run("fast_fdividef", 5.0, 0x1p127, 0).f, 0.0f) && same(run("fast_fdividef", -5.0, 0x1p127, 0).f, -0.0f));
  CHECK(isnan(run("fast_fdividef", INFINITY, -0x1p127, 0).f) && isnan(run("fast_fdividef", NAN, 0x1p127, 0).f));
  CHECK(same(run("fast_fdividef", 5.0, INFINITY, 0).f, 0.0f));
}

/* 64-bit integers to floats in the four rounding modes: exact and host-compiler independent (+0.0 for 0 in every
 * mode: clang's u64 -> f64 sequence gave -0.0 under round-down), float32 results rounded once (not through double) */
static SemVal of_int(const char *name, int64_t v) {
  const LibdeviceFn *f = ir_libdevice_lookup(name);
  SemVal x[LD_MAX_ARGS], r[LD_MAX_RESULTS];
  memset(x, 0, sizeof x);
  memset(r, 0, sizeof r);
  x[0].i = v;
  CHECK(f && ir_libdevice_eval(f));
  if (f && ir_libdevice_eval(f)) ir_libdevice_eval(f)(x, r);
  return r[0];
}

static uint64_t dbits(double d) {
  uint64_t b;
  memcpy(&b, &d, 8);
  return b;
}

static void test_int_conversions(void) {
  static const char *const modes[] = {"rn", "rz", "rd", "ru"};
  static const char *const fns[] = {"ll2double", "ull2double", "ll2float", "ull2float"};
  char name[32];
  for (unsigned f = 0; f < 4; f++)
    for (unsigned m = 0; m < 4; m++) {
      snprintf(name, sizeof name, "%s_%s", fns[f], modes[m]);
      SemVal r = of_int(name, 0);
      if (f < 2) CHECK(dbits(r.d) == 0);
      else CHECK(same(r.f, 0.0f) && !signbit(r.f));
      r = of_int(name, 12345); /* exact */
      CHECK(f < 2 ? r.d == 12345.0 : r.f == 12345.0f);
    }
  int64_t big = (int64_t)((1ull << 60) + 1); /* between two floats of both widths */
  CHECK(of_int("ll2double_rn", big).d == 0x1p60 && of_int("ll2double_rz", big).d == 0x1p60);
  CHECK(of_int("ll2double_rd", big).d == 0x1p60 && of_int("ll2double_ru", big).d == 0x1p60 + 0x1p8);
  CHECK(of_int("ll2double_rd", -big).d == -0x1p60 - 0x1p8 && of_int("ll2double_ru", -big).d == -0x1p60);
  CHECK(of_int("ll2double_rz", -big).d == -0x1p60 && of_int("ll2double_rn", INT64_MIN).d == -0x1p63);
  /* through double (rounded to nearest: 2^60) then up to float32 would give 2^60: the float above is right */
  CHECK(of_int("ll2float_ru", big).f == 0x1p60f + 0x1p37f && of_int("ll2float_rd", big).f == 0x1p60f);
  CHECK(of_int("ll2float_rd", -big).f == -0x1p60f - 0x1p37f && of_int("ll2float_rz", -big).f == -0x1p60f);
  CHECK(of_int("ull2double_ru", -1).d == 0x1p64 && of_int("ull2double_rz", -1).d == 0x1p64 - 0x1p11);
  CHECK(of_int("ull2double_rn", -1).d == 0x1p64 && of_int("ull2float_rd", -1).f == 0x1p64f - 0x1p40f);
  /* ties to even: 2^53 + 1 (a tie) stays at 2^53, 2^53 + 3 goes up to 2^53 + 4 */
  CHECK(of_int("ull2double_rn", (int64_t)((1ull << 53) + 1)).d == 0x1p53);
  CHECK(of_int("ull2double_rn", (int64_t)((1ull << 53) + 3)).d == 0x1p53 + 4);
}

static void test_kinds(void) {
  for (unsigned k = 0; k < ir_libdevice_count(); k++) {
    const LibdeviceFn *f = ir_libdevice_at((int)k);
    if (ir_libdevice_kind(f) == LD_UNSUPPORTED || !ir_libdevice_eval(f)) {
      fprintf(stderr, "libdevice %s has no definition: %s\n", f->name, ir_libdevice_why(f));
      test_failures++;
    }
    if (strncmp(f->name, "fast_", 5) == 0) CHECK(ir_libdevice_kind(f) == LD_APPROX);
    /* one parameter name per libdevice parameter (numba.cuda.libdevicefuncs' arg names) */
    LdShape shape;
    ir_libdevice_shape(f, &shape);
    unsigned names = *f->params ? 1 : 0;
    for (const char *p = f->params; *p; p++) names += *p == ',';
    CHECK(names == shape.nproto);
  }
  CHECK(strcmp(ir_libdevice_lookup("sincosf")->params, "x,sptr,cptr") == 0);
  CHECK(ir_libdevice_kind(ir_libdevice_lookup("remquo")) == LD_EXACT);
  CHECK(ir_libdevice_kind(ir_libdevice_lookup("erfinv")) == LD_LIBM);
  const LdAccuracy *a = ir_libdevice_accuracy(ir_libdevice_lookup("erfcinvf"));
  CHECK(a->ulps == 4 && a->lo == -INFINITY && a->hi == INFINITY);
  a = ir_libdevice_accuracy(ir_libdevice_lookup("sin")); /* none recorded: all zero */
  CHECK(a->ulps == 0 && a->abs_err == 0 && a->lo == 0 && a->hi == 0);
  a = ir_libdevice_accuracy(ir_libdevice_lookup("fast_expf"));
  CHECK(a->ulps == 2 && a->ulps_per_arg == 1.173 && a->lo == -INFINITY);
  a = ir_libdevice_accuracy(ir_libdevice_lookup("fast_fdividef"));
  CHECK(a->arg == 1 && a->abs_of_arg && a->hi == 0x1p126);
}

int main(void) {
  REFS("sinpi", "sincospi", 0, REF_SINPI);
  REFS("cospi", "sincospi", 1, REF_COSPI);
  REFS("erfinv", NULL, 0, REF_ERFINV);
  REFS("erfcinv", NULL, 0, REF_ERFCINV);
  REFS("normcdfinv", NULL, 0, REF_NORMCDFINV);
  REFS("erfcx", NULL, 0, REF_ERFCX);
  test_special_values();
  test_remquo();
  test_fast();
  test_int_conversions();
  test_kinds();
  return test_result("ir_libdevice");
}
