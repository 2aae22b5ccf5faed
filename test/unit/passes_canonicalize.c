/* passes_canonicalize.c — randomized tests of canonicalize's constant folding against direct C evaluation.
 *
 * Each case is a function `() -> (T)` that applies one op to constant operands and returns the result.
 * Thousands of cases go into one module, canonicalize runs once over it, and each function's returned
 * value must then be a constant holding exactly what C computes with the native types of that width
 * and signedness (int8_t ... uint64_t, float, double) — or, where the fold must not happen (division by
 * zero, shift by the width or more, fptosi of NaN or out of range, ...), still the op itself. The module
 * must verify afterwards (so every folded constant is in canonical form).
 * Operands come from edge values (0, ±1, MIN, MAX, ...) and random bits. The seed is fixed; set
 * KF_SEED to try others. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "passes/passes.h"

static int failures;
static unsigned long long checked, unfolded;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
  uint64_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return rng_state = x;
}

static uint64_t mask_of(unsigned w) { return w >= 64 ? ~0ull : (1ull << w) - 1; }

/* An interesting w-bit pattern: edge values half of the time, random bits otherwise. */
static uint64_t pick_int(unsigned w) {
  uint64_t m = mask_of(w), min = 1ull << (w - 1);
  switch (rnd() % 12) {
  case 0: return 0;
  case 1: return 1;
  case 2: return m;              /* -1 */
  case 3: return min;            /* signed minimum */
  case 4: return min - 1;        /* signed maximum */
  case 5: return (min + 1) & m;
  case 6: return (rnd() % 21 - 10) & m;
  case 7: return 2;
  default: return rnd() & m;
  }
}

static double pick_double(void) {
  static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e300, -1e-300, 4.9e-324,
                                   INFINITY, -INFINITY, NAN, 9007199254740993.0, 2147483647.5, -2147483648.9,
                                   9.3e18, -9.3e18, 1.8e19, 255.9, -0.9};
  uint64_t r = rnd();
  if (r % 3 == 0) return special[rnd() % (sizeof special / sizeof special[0])];
  if (r % 3 == 1) return (double)(int64_t)(rnd() % 2000001) / 1000.0 - 1000.0;
  double d;
  uint64_t bits = rnd();
  memcpy(&d, &bits, sizeof d);
  return d;
}

static float pick_float(void) {
  if (rnd() % 2) return (float)pick_double();
  uint32_t bits = (uint32_t)rnd();
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* ---- reference evaluation with the native C types ------------------------------------------------ */

static const OpKind int_binary_ops[] = {OP_ADDI, OP_SUBI, OP_MULI, OP_DIVSI, OP_DIVUI, OP_REMSI, OP_REMUI,
                                        OP_FLOORDIVSI, OP_FLOORMODSI, OP_MINSI, OP_MAXSI, OP_MINUI, OP_MAXUI,
                                        OP_IPOW, OP_SHLI, OP_SHRSI, OP_SHRUI, OP_ANDI, OP_ORI, OP_XORI};
static const OpKind int_unary_ops[] = {OP_ABSI, OP_POPC, OP_CLZ, OP_FFS, OP_BREV};
static const char *const cmpi_preds[] = {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};

/* REF(W, ST, UT) defines ref_binary_W, ref_unary_W and ref_cmp_W over the native types ST / UT of width W.
 * Each returns false when the fold must not happen; results are the W-bit pattern. Wrapping arithmetic
 * is done in unsigned types (no undefined behaviour), signed division in __int128. */
#define REF(W, ST, UT)                                                                                   \
  static bool ref_binary_##W(OpKind k, bool type_unsigned, uint64_t ua, uint64_t ub, uint64_t *out) {  \
    UT a = (UT)ua, b = (UT)ub;                                                                           \
    ST sa = (ST)a, sb = (ST)b;                                                                           \
    __int128 A = sa, B = sb;                                                                             \
    UT r;                                                                                                \
    switch (k) {                                                                                         \
    case OP_ADDI: r = (UT)((uint64_t)a + b); break;                                                      \
    case OP_SUBI: r = (UT)((uint64_t)a - b); break;                                                      \
    case OP_MULI: r = (UT)((uint64_t)a * b); break;                                                      \
    case OP_ANDI: r = a & b; break;                                                                      \
    case OP_ORI: r = a | b; break;                                                                       \
    case OP_XORI: r = a ^ b; break;                                                                      \
    case OP_DIVUI: if (!b) return false; r = a / b; break;                                               \
    case OP_REMUI: if (!b) return false; r = a % b; break;                                               \
    case OP_DIVSI: if (!sb) return false; r = (UT)(unsigned __int128)(A / B); break;                     \
    case OP_REMSI: if (!sb) return false; r = (UT)(unsigned __int128)(A % B); break;                     \
    case OP_FLOORDIVSI:                                                                                  \
    case OP_FLOORMODSI: {                                                                                \
      if (!sb) { r = 0; break; }                                                                         \
      __int128 m = ((A % B) + B) % B; /* Python's a % b */                                              \
      r = (UT)(unsigned __int128)(k == OP_FLOORMODSI ? m : (A - m) / B);                                 \
      break;                                                                                             \
    }                                                                                                    \
    case OP_MINSI: r = sa < sb ? a : b; break;                                                           \
    case OP_MAXSI: r = sa > sb ? a : b; break;                                                           \
    case OP_MINUI: r = a < b ? a : b; break;                                                             \
    case OP_MAXUI: r = a > b ? a : b; break;                                                             \
    case OP_IPOW: {                                                                                      \
      if (!type_unsigned && sb < 0) { /* Numba's int_power: 1, +-1, the minimum for 0, else 0 */          \
        r = sa == 1 ? 1 : sa == -1 ? (UT)((b & 1) ? -1 : 1) : sa == 0 ? (UT)((UT)1 << (W - 1)) : 0;       \
        break;                                                                                           \
      }                                                                                                  \
      if (b > 200) return false; /* the generator keeps exponents small */                              \
      uint64_t p = 1;                                                                                    \
      for (UT i = 0; i < b; i++) p *= a;                                                                 \
      r = (UT)p;                                                                                         \
      break;                                                                                             \
    }                                                                                                    \
    case OP_SHLI:                                                                                        \
    case OP_SHRSI:                                                                                       \
    case OP_SHRUI:                                                                                       \
      if ((!type_unsigned && sb < 0) || b >= W) return false;                                            \
      r = k == OP_SHLI ? (UT)((uint64_t)a << b) : k == OP_SHRUI ? (UT)(a >> b) : (UT)(sa >> b);          \
      break;                                                                                             \
    default: return false;                                                                               \
    }                                                                                                    \
    *out = r;                                                                                            \
    return true;                                                                                         \
  }                                                                                                      \
  static bool ref_unary_##W(OpKind k, uint64_t ua, uint64_t *out) {                                      \
    UT a = (UT)ua, r = 0;                                                                                \
    switch (k) {                                                                                         \
    case OP_ABSI: r = (ST)a < 0 ? (UT)(0 - (uint64_t)a) : a; break;                                      \
    case OP_POPC: for (UT x = a; x; x &= (UT)(x - 1)) r++; break;                                        \
    case OP_CLZ: r = W; for (UT x = a; x; x >>= 1) r--; break;                                           \
    case OP_FFS: if (a) { r = 1; for (UT x = a; !(x & 1); x >>= 1) r++; } break;                         \
    case OP_BREV: for (int i = 0; i < W; i++) if (a & ((UT)1 << i)) r |= (UT)1 << (W - 1 - i); break;    \
    default: return false;                                                                               \
    }                                                                                                    \
    *out = r;                                                                                            \
    return true;                                                                                         \
  }                                                                                                      \
  static bool ref_cmp_##W(int p, uint64_t ua, uint64_t ub) {                                             \
    UT a = (UT)ua, b = (UT)ub;                                                                           \
    ST sa = (ST)a, sb = (ST)b;                                                                           \
    switch (p) {                                                                                         \
    case 0: return a == b;                                                                               \
    case 1: return a != b;                                                                               \
    case 2: return sa < sb;                                                                              \
    case 3: return sa <= sb;                                                                             \
    case 4: return sa > sb;                                                                              \
    case 5: return sa >= sb;                                                                             \
    case 6: return a < b;                                                                                \
    case 7: return a <= b;                                                                               \
    case 8: return a > b;                                                                                \
    default: return a >= b;                                                                              \
    }                                                                                                    \
  }
REF(8, int8_t, uint8_t)
REF(16, int16_t, uint16_t)
REF(32, int32_t, uint32_t)
REF(64, int64_t, uint64_t)

static bool ref_binary(unsigned w, OpKind k, bool u, uint64_t a, uint64_t b, uint64_t *r) {
  switch (w) {
  case 8: return ref_binary_8(k, u, a, b, r);
  case 16: return ref_binary_16(k, u, a, b, r);
  case 32: return ref_binary_32(k, u, a, b, r);
  default: return ref_binary_64(k, u, a, b, r);
  }
}
static bool ref_unary(unsigned w, OpKind k, uint64_t a, uint64_t *r) {
  switch (w) {
  case 8: return ref_unary_8(k, a, r);
  case 16: return ref_unary_16(k, a, r);
  case 32: return ref_unary_32(k, a, r);
  default: return ref_unary_64(k, a, r);
  }
}
static bool ref_cmp(unsigned w, int p, uint64_t a, uint64_t b) {
  switch (w) {
  case 8: return ref_cmp_8(p, a, b);
  case 16: return ref_cmp_16(p, a, b);
  case 32: return ref_cmp_32(p, a, b);
  default: return ref_cmp_64(p, a, b);
  }
}

static int64_t sext(uint64_t u, unsigned w) { return w < 64 && ((u >> (w - 1)) & 1) ? (int64_t)(u | ~mask_of(w)) : (int64_t)u; }

/* ---- cases ------------------------------------------------------------------------------------------ */

typedef enum { EXPECT_INT, EXPECT_FLOAT, EXPECT_NO_FOLD } Expect;

typedef struct Case {
  char what[160];
  Expect expect;
  uint64_t bits;      /* EXPECT_INT: the result's bit pattern */
  double f;           /* EXPECT_FLOAT: the value (NaN: any NaN) */
  OpKind kind;        /* the op (still there when not folded) */
  Op *ret;            /* the function's func.return */
} Case;

typedef struct Batch {
  IrContext *ctx;
  Module *m;
  IrBuilder b;
  Case *cases;
  unsigned n, cap;
} Batch;

static Case *new_case(Batch *bt) {
  if (bt->n == bt->cap) {
    bt->cap = bt->cap ? bt->cap * 2 : 1024;
    bt->cases = realloc(bt->cases, bt->cap * sizeof *bt->cases);
  }
  Case *c = &bt->cases[bt->n++];
  memset(c, 0, sizeof *c);
  return c;
}

/* Emits `fn() -> (rt) { return op(constants...) }` for case c; operands are made by the caller's consts. */
static void emit(Batch *bt, Case *c, OpKind k, unsigned n, Value *const *opnds, Type *rt, const char *pred) {
  Value *ops[3];
  memcpy(ops, opnds, n * sizeof *ops);
  Op *op = ib_op(&bt->b, k, n, ops, 1, &rt, 0);
  if (pred) ir_op_set_attr(bt->m, op, "pred", attr_str(bt->m, pred));
  Value *r = op_result(op, 0);
  c->kind = k;
  c->ret = ib_op(&bt->b, OP_FUNC_RETURN, 1, &r, 0, NULL, 0);
}

static void begin_func(Batch *bt, Type *rt) {
  char name[32];
  snprintf(name, sizeof name, "c%u", bt->n);
  Op *fn = ir_func_create(bt->m, name, ty_func(bt->ctx, 0, NULL, 1, &rt), srcloc("t.kir", bt->n + 1, 1));
  ib_set_end(&bt->b, ir_func_entry(fn));
}

static Type *int_type(Batch *bt, unsigned w, bool u) { return ty_int(bt->ctx, w, u); }

static void type_name(const Type *t, char *buf, size_t n) {
  StrBuf sb;
  sb_init(&sb);
  ty_print(t, &sb);
  snprintf(buf, n, "%s", sb_cstr(&sb));
  sb_free(&sb);
}

static void add_int_binary(Batch *bt, OpKind k, unsigned w, bool u) {
  Type *t = int_type(bt, w, u);
  uint64_t a = pick_int(w), b = pick_int(w);
  /* exponents: small, or negative for a signed type (which gives 0) */
  if (k == OP_IPOW && (rnd() % 4 || u || sext(b, w) >= 0)) b = (rnd() % 70) & mask_of(w);
  if ((k == OP_SHLI || k == OP_SHRSI || k == OP_SHRUI) && rnd() % 4) b = rnd() % (w + 2);
  uint64_t r = 0;
  begin_func(bt, t);
  Case *c = new_case(bt);
  char tn[16];
  type_name(t, tn, sizeof tn);
  snprintf(c->what, sizeof c->what, "%s(%llu, %llu) : %s", ir_op_info[k].name, (unsigned long long)a,
           (unsigned long long)b, tn);
  c->expect = ref_binary(w, k, u, a, b, &r) ? EXPECT_INT : EXPECT_NO_FOLD;
  c->bits = r & mask_of(w);
  Value *ops[2] = {ib_const_int(&bt->b, t, (int64_t)a), ib_const_int(&bt->b, t, (int64_t)b)};
  emit(bt, c, k, 2, ops, t, NULL);
}

static void add_int_unary(Batch *bt, OpKind k, unsigned w, bool u) {
  Type *t = int_type(bt, w, u);
  uint64_t a = pick_int(w), r = 0;
  begin_func(bt, t);
  Case *c = new_case(bt);
  snprintf(c->what, sizeof c->what, "%s(%llu) : %s%u", ir_op_info[k].name, (unsigned long long)a, u ? "u" : "i", w);
  c->expect = ref_unary(w, k, a, &r) ? EXPECT_INT : EXPECT_NO_FOLD;
  c->bits = r & mask_of(w);
  Value *x = ib_const_int(&bt->b, t, (int64_t)a);
  emit(bt, c, k, 1, &x, t, NULL);
}

static void add_cmpi(Batch *bt, unsigned w, bool u) {
  Type *t = int_type(bt, w, u), *i1 = ty_bool(bt->ctx);
  uint64_t a = pick_int(w), b = rnd() % 4 ? pick_int(w) : a;
  int p = (int)(rnd() % 10);
  begin_func(bt, i1);
  Case *c = new_case(bt);
  snprintf(c->what, sizeof c->what, "cmpi %s(%llu, %llu) : %s%u", cmpi_preds[p], (unsigned long long)a, (unsigned long long)b, u ? "u" : "i", w);
  c->expect = EXPECT_INT;
  c->bits = ref_cmp(w, p, a, b);
  Value *ops[2] = {ib_const_int(&bt->b, t, (int64_t)a), ib_const_int(&bt->b, t, (int64_t)b)};
  emit(bt, c, OP_CMPI, 2, ops, i1, cmpi_preds[p]);
}

/* extsi / extui / trunci / bitcast between integer widths and signedness. */
static void add_int_cast(Batch *bt) {
  static const unsigned widths[] = {8, 16, 32, 64};
  unsigned w1 = widths[rnd() % 4], w2 = widths[rnd() % 4];
  bool u1 = rnd() % 2, u2 = rnd() % 2;
  OpKind k = w2 > w1 ? (rnd() % 2 ? OP_EXTSI : OP_EXTUI) : w2 < w1 ? OP_TRUNCI : OP_BITCAST;
  if (k == OP_BITCAST && u1 == u2) u2 = !u2;
  Type *from = int_type(bt, w1, u1), *to = int_type(bt, w2, u2);
  uint64_t a = pick_int(w1);
  begin_func(bt, to);
  Case *c = new_case(bt);
  snprintf(c->what, sizeof c->what, "%s %llu : %s%u -> %s%u", ir_op_info[k].name, (unsigned long long)a, u1 ? "u" : "i", w1, u2 ? "u" : "i", w2);
  c->expect = EXPECT_INT;
  /* C's conversions: to a wider signed type from the signed view, from the unsigned view for extui */
  if (k == OP_EXTSI) c->bits = (uint64_t)sext(a, w1) & mask_of(w2);
  else c->bits = a & mask_of(w2);
  Value *x = ib_const_int(&bt->b, from, (int64_t)a);
  emit(bt, c, k, 1, &x, to, NULL);
}

/* sitofp / uitofp to f32 and f64; fptosi / fptoui from f64. */
static void add_fp_cast(Batch *bt) {
  static const unsigned widths[] = {8, 16, 32, 64};
  unsigned w = widths[rnd() % 4];
  bool to_f32 = rnd() % 2;
  Type *it = int_type(bt, w, false), *ut = int_type(bt, w, true), *ft = ty_float(bt->ctx, to_f32 ? 32 : 64);
  Case *c;
  switch (rnd() % 4) {
  case 0:
  case 1: {
    bool s = rnd() % 2;
    uint64_t a = pick_int(w);
    begin_func(bt, ft);
    c = new_case(bt);
    snprintf(c->what, sizeof c->what, "%s %llu : %u -> f%d", s ? "sitofp" : "uitofp", (unsigned long long)a, w, to_f32 ? 32 : 64);
    c->expect = EXPECT_FLOAT;
    int64_t sv = sext(a, w);
    c->f = to_f32 ? (double)(s ? (float)sv : (float)a) : (s ? (double)sv : (double)a);
    Value *x = ib_const_int(&bt->b, s ? it : ut, (int64_t)a);
    emit(bt, c, s ? OP_SITOFP : OP_UITOFP, 1, &x, ft, NULL);
    return;
  }
  default: {
    bool s = rnd() % 2;
    double d = pick_double();
    if (rnd() % 2) d = ldexp((double)(int64_t)(rnd() % 2001 - 1000), (int)(rnd() % (w + 3))) / 7.0;
    Type *f64 = ty_f64(bt->ctx), *to = s ? it : ut;
    begin_func(bt, to);
    c = new_case(bt);
    snprintf(c->what, sizeof c->what, "%s %.17g -> %s%u", s ? "fptosi" : "fptoui", d, s ? "i" : "u", w);
    double t = trunc(d);
    bool in_range = !isnan(d) && (s ? t >= -ldexp(1, (int)w - 1) && t < ldexp(1, (int)w - 1) : t >= 0 && t < ldexp(1, (int)w));
    c->expect = in_range ? EXPECT_INT : EXPECT_NO_FOLD;
    if (in_range) c->bits = (s ? (uint64_t)(int64_t)t : (uint64_t)t) & mask_of(w);
    Value *x = ib_const_float(&bt->b, f64, d);
    emit(bt, c, s ? OP_FPTOSI : OP_FPTOUI, 1, &x, to, NULL);
    return;
  }
  }
}

/* addf / subf / mulf / divf / remf in f32 (C float arithmetic) and f64. */
static void add_float_binary(Batch *bt) {
  static const OpKind ops[] = {OP_ADDF, OP_SUBF, OP_MULF, OP_DIVF, OP_REMF};
  OpKind k = ops[rnd() % 5];
  bool f32 = rnd() % 2;
  Type *t = ty_float(bt->ctx, f32 ? 32 : 64);
  double a, b, r;
  if (f32) {
    float fa = pick_float(), fb = pick_float(), fr;
    switch (k) {
    case OP_ADDF: fr = fa + fb; break;
    case OP_SUBF: fr = fa - fb; break;
    case OP_MULF: fr = fa * fb; break;
    case OP_DIVF: fr = fa / fb; break;
    default: fr = fmodf(fa, fb); break;
    }
    a = fa, b = fb, r = fr;
  } else {
    a = pick_double(), b = pick_double();
    switch (k) {
    case OP_ADDF: r = a + b; break;
    case OP_SUBF: r = a - b; break;
    case OP_MULF: r = a * b; break;
    case OP_DIVF: r = a / b; break;
    default: r = fmod(a, b); break;
    }
  }
  begin_func(bt, t);
  Case *c = new_case(bt);
  snprintf(c->what, sizeof c->what, "%s(%.17g, %.17g) : f%d", ir_op_info[k].name, a, b, f32 ? 32 : 64);
  bool fold = k != OP_REMF || (b != 0 && isfinite(a) && isfinite(b));
  c->expect = fold ? EXPECT_FLOAT : EXPECT_NO_FOLD;
  c->f = r;
  Value *opnds[2] = {ib_const_float(&bt->b, t, a), ib_const_float(&bt->b, t, b)};
  emit(bt, c, k, 2, opnds, t, NULL);
}

/* ---- running and checking ---------------------------------------------------------------------------- */

static void check_batch(Batch *bt) {
  Diag d;
  diag_init(&d);
  int64_t options[PASS_MAX_OPTIONS] = {1};
  PassContext pc = {&d, options};
  if (!pass_canonicalize(bt->m, &pc)) {
    fprintf(stderr, "canonicalize failed:\n%s", diag_text(&d));
    failures++;
  }
  if (!ir_verify_module(bt->m, &d)) {
    fprintf(stderr, "the folded module does not verify:\n%s", diag_text(&d));
    failures++;
  }
  diag_free(&d);
  for (unsigned i = 0; i < bt->n; i++) {
    Case *c = &bt->cases[i];
    Value *v = op_operand(c->ret, 0);
    Op *def = v->def;
    checked++;
    if (c->expect == EXPECT_NO_FOLD) {
      unfolded++;
      if (!def || def->kind != c->kind) {
        fprintf(stderr, "%s: must not be folded, but was\n", c->what);
        failures++;
      }
      continue;
    }
    if (!def || def->kind != OP_CONSTANT) {
      fprintf(stderr, "%s: not folded\n", c->what);
      failures++;
      continue;
    }
    if (c->expect == EXPECT_INT) {
      int64_t got;
      unsigned w = v->type->kind == TY_BOOL ? 1 : v->type->bits;
      if (!value_const_int(v, &got)) {
        fprintf(stderr, "%s: folded to a non-integer constant\n", c->what);
        failures++;
      } else if (((uint64_t)got & mask_of(w)) != c->bits) {
        fprintf(stderr, "%s: got %llu, want %llu\n", c->what, (unsigned long long)((uint64_t)got & mask_of(w)),
                (unsigned long long)c->bits);
        failures++;
      }
    } else {
      double got;
      if (!value_const_float(v, &got)) {
        fprintf(stderr, "%s: folded to a non-float constant\n", c->what);
        failures++;
      } else if (!(isnan(c->f) ? isnan(got) : memcmp(&got, &c->f, sizeof got) == 0)) {
        fprintf(stderr, "%s: got %.17g, want %.17g\n", c->what, got, c->f);
        failures++;
      }
    }
  }
}

static void batch_init(Batch *bt) {
  memset(bt, 0, sizeof *bt);
  bt->ctx = ir_context_new();
  bt->m = ir_module_new(bt->ctx, "fold");
  ib_init(&bt->b, bt->m);
}

static void batch_free(Batch *bt) {
  ir_module_free(bt->m);
  ir_context_free(bt->ctx);
  free(bt->cases);
}

/* The fact narrow_float_op relies on: for f32 x, y, rounding x op y to f64 and then to f32 equals the f32
 * op (+, -, *, /, sqrt), over edge values (zeros, subnormals, huge, infinities, NaN) and random bits. */
static float f32_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static bool same_f32(float a, float b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0; }

static void check_double_rounding(void) {
  static const uint32_t edges[] = {0, 0x80000000u, 1, 0x80000001u, 0x007fffffu, 0x00800000u, 0x3f800000u,
                                   0x3f800001u, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                   0x33800000u, 0x4b000000u, 0x4b000001u};
  unsigned n = sizeof edges / sizeof edges[0];
  for (unsigned i = 0; i < 400000; i++) {
    float x = f32_bits(i < n * n ? edges[i / n] : (uint32_t)rnd());
    float y = f32_bits(i < n * n ? edges[i % n] : (uint32_t)rnd());
    volatile double dx = x, dy = y;
    float via[5] = {(float)(dx + dy), (float)(dx - dy), (float)(dx * dy), (float)(dx / dy), (float)sqrt(dx)};
    volatile float fx = x, fy = y;
    float direct[5] = {fx + fy, fx - fy, fx * fy, fx / fy, sqrtf(fx)};
    for (int k = 0; k < 5; k++) {
      checked++;
      if (!same_f32(via[k], direct[k])) {
        failures++;
        printf("FAIL double rounding, op %d on %a, %a: via f64 %a, f32 %a\n", k, x, y, via[k], direct[k]);
        return;
      }
    }
  }
}

int main(void) {
  const char *seed = getenv("KF_SEED");
  if (seed) rng_state = strtoull(seed, NULL, 0) | 1;
  static const unsigned widths[] = {8, 16, 32, 64};
  for (int round = 0; round < 20; round++) {
    Batch bt;
    batch_init(&bt);
    for (unsigned wi = 0; wi < 4; wi++)
      for (int u = 0; u < 2; u++) {
        for (unsigned k = 0; k < sizeof int_binary_ops / sizeof int_binary_ops[0]; k++)
          for (int rep = 0; rep < 8; rep++) add_int_binary(&bt, int_binary_ops[k], widths[wi], u);
        for (unsigned k = 0; k < sizeof int_unary_ops / sizeof int_unary_ops[0]; k++)
          for (int rep = 0; rep < 4; rep++) add_int_unary(&bt, int_unary_ops[k], widths[wi], u);
        for (int rep = 0; rep < 20; rep++) add_cmpi(&bt, widths[wi], u);
      }
    for (int rep = 0; rep < 200; rep++) add_int_cast(&bt);
    for (int rep = 0; rep < 200; rep++) add_fp_cast(&bt);
    for (int rep = 0; rep < 300; rep++) add_float_binary(&bt);
    check_batch(&bt);
    batch_free(&bt);
  }
  check_double_rounding();
  printf("passes_canonicalize: %llu folds checked (%llu that must not fold), %d failure%s\n", checked, unfolded,
         failures, failures == 1 ? "" : "s");
  return failures ? 1 : 0;
}
