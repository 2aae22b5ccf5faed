/* sim_opsem.c — the simulator runs every op as ir/op_semantics.h defines it: for each op of ir_op_sem with an
 * evaluation and each type signature the verifier accepts (every scalar type; each predicate of the
 * comparisons), a kernel applies the op to operands loaded from arrays (edge values and random bits) and
 * stores the result; the stored values must be bit for bit what the row's evaluation computes on the same
 * operands (NaN: any NaN). The simulator's own fast instructions (arith.addi, cmpf, powi, ...) and its generic
 * SEM instruction are both checked against the one definition. The seed is fixed; KF_SEED picks another. */
#include "ir/op_semantics.h"
#include "sim_test.h"

enum { N = 96 };

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static const char *const TYPE_NAMES[] = {"i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64"};
enum { NTYPES = sizeof TYPE_NAMES / sizeof *TYPE_NAMES };

/* An operand value of type t, normalised: edge values a third of the time, small ones, else random bits. */
static SemVal pick(SemTy t) {
  static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.5, 1e300, -1e-300, 4.9e-324, 65504.0,
                                   INFINITY, -INFINITY, NAN, 2147483647.5, -2147483648.9, 9.3e18, 1.8e19, -0.9};
  uint64_t r = rnd();
  if (!t.is_float) {
    uint64_t v;
    switch (r % 6) {
    case 0: v = rnd() % 5 - 2; break;                    /* -2 .. 2 */
    case 1: v = (1ull << (t.bits - 1)) - (rnd() % 2); break; /* the signed minimum, maximum */
    case 2: v = rnd() % 70; break;                       /* shift amounts, exponents */
    default: v = rnd(); break;
    }
    return sem_from_bits(v, t);
  }
  double d;
  if (r % 3 == 0) d = special[rnd() % (sizeof special / sizeof *special)];
  else if (r % 3 == 1) d = (double)(int64_t)(rnd() % 20001 - 10000) / 64.0;
  else {
    uint64_t b = rnd();
    if (t.bits == 16) d = sem_f16_value((uint16_t)b);
    else if (t.bits == 32) {
      uint32_t b32 = (uint32_t)b;
      float f;
      memcpy(&f, &b32, 4);
      d = f;
    } else {
      memcpy(&d, &b, 8);
    }
  }
  return sem_from_double(d, t);
}

/* v stored as an element of type t (what the simulator loads), and read back. */
static void put(void *base, unsigned i, SemTy t, SemVal v) {
  char *p = (char *)base + (size_t)i * (t.bits == 1 ? 1 : t.bits / 8);
  if (t.is_float && t.bits == 16) {
    uint16_t h = sem_f16_bits(v.f);
    memcpy(p, &h, 2);
  } else if (t.is_float && t.bits == 32) {
    memcpy(p, &v.f, 4);
  } else {
    memcpy(p, &v.u, t.bits == 1 ? 1 : t.bits / 8); /* little-endian: the low bytes */
  }
}

static SemVal get(const void *base, unsigned i, SemTy t) {
  const char *p = (const char *)base + (size_t)i * (t.bits == 1 ? 1 : t.bits / 8);
  SemVal v;
  v.u = 0;
  if (t.is_float && t.bits == 16) {
    uint16_t h;
    memcpy(&h, p, 2);
    v.f = (float)sem_f16_value(h);
  } else if (t.is_float && t.bits == 32) {
    memcpy(&v.f, p, 4);
  } else if (t.is_float) {
    memcpy(&v.d, p, 8);
  } else {
    uint64_t raw = 0;
    memcpy(&raw, p, t.bits == 1 ? 1 : t.bits / 8);
    v = sem_from_bits(raw, t);
  }
  return v;
}

static bool same(SemVal a, SemVal b, SemTy t) {
  if (!t.is_float) return a.u == b.u;
  double x = sem_to_double(a, t), y = sem_to_double(b, t);
  if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
  return memcmp(&x, &y, sizeof x) == 0;
}

static unsigned kernels, values;

/* One kernel: op k over operand types ops[0..n-1] to result type rt (with predicate pred, or NULL). Skipped
 * when the verifier refuses the signature. */
static void check_signature(OpKind k, unsigned n, const char *const *ops, const char *rt, const char *pred) {
  StrBuf t;
  sb_init(&t);
  sb_puts(&t, "func.func() ({\n^bb0(");
  for (unsigned i = 0; i < n; i++) sb_printf(&t, "%%in%u: array<%s, 1, C>, ", i, ops[i]);
  sb_printf(&t, "%%out: array<%s, 1, C>):\n", rt);
  sb_puts(&t, KIR_GRID1);
  StrBuf types;
  sb_init(&types);
  for (unsigned i = 0; i < n; i++) {
    sb_printf(&t, "  %%x%u = mem.load(%%in%u, %%i) : (array<%s, 1, C>, i64) -> (%s)\n", i, i, ops[i], ops[i]);
    sb_printf(&types, "%s%s", i ? ", " : "", ops[i]);
  }
  sb_printf(&t, "  %%r = %s(", ir_op_info[k].name);
  for (unsigned i = 0; i < n; i++) sb_printf(&t, "%s%%x%u", i ? ", " : "", i);
  sb_puts(&t, ")");
  if (pred) sb_printf(&t, " {pred = \"%s\"}", pred);
  sb_printf(&t, " : (%s) -> (%s)\n", sb_cstr(&types), rt);
  sb_printf(&t, "  mem.store(%%r, %%out, %%i) : (%s, array<%s, 1, C>, i64) -> ()\n", rt, rt);
  sb_puts(&t, "  func.return() : () -> ()\n}) {sym_name = @k, function_type = (");
  for (unsigned i = 0; i < n; i++) sb_printf(&t, "array<%s, 1, C>, ", ops[i]);
  sb_printf(&t, "array<%s, 1, C>) -> (), kernel} : () -> ()\n", rt);
  sb_free(&types);

  /* refused signatures are no test: parse and verify quietly first */
  IrContext *ctx = ir_context_new();
  Diag quiet;
  diag_init(&quiet);
  Module *m = ir_parse_module(ctx, &quiet, "t.kir", sb_cstr(&t), t.len);
  bool valid = m && ir_verify_module(m, &quiet);
  if (m) ir_module_free(m);
  diag_remove_source(&quiet, sb_cstr(&t));
  diag_free(&quiet);
  ir_context_free(ctx);
  if (!valid) {
    sb_free(&t);
    return;
  }
  Kir kir;
  if (!kir_load(&kir, sb_cstr(&t))) {
    sb_free(&t);
    return;
  }
  /* the op's signature, from the module */
  Op *f = ir_module_lookup(kir.m, "k");
  Op *op = NULL;
  for (Op *o = ir_func_entry(f)->first; o; o = o->next)
    if (o->kind == k) op = o;
  SemSig sig;
  CHECK(op && sem_sig_of(op, &sig));
  if (!op || !sem_sig_of(op, &sig)) {
    kir_free(&kir);
    sb_free(&t);
    return;
  }
  static uint64_t in[3][N], out[N];
  SemVal x[3][N];
  SimArg args[4];
  for (unsigned i = 0; i < n; i++) {
    for (unsigned j = 0; j < N; j++) put(in[i], j, sig.a[i], x[i][j] = pick(sig.a[i]));
    args[i] = arr_c(&kir, in[i], ops[i], 1, N, 0);
  }
  memset(out, 0, sizeof out);
  args[n] = arr_c(&kir, out, rt, 1, N, 0);
  SimResult res;
  bool ok = kir_launch(&kir, "k", 1, 1, N, 1, 0, args, n + 1, NULL, &res);
  CHECK(ok);
  int reported = 0;
  for (unsigned j = 0; ok && j < N; j++) {
    SemVal a[3], want;
    for (unsigned i = 0; i < n; i++) a[i] = x[i][j];
    bool foldable;
    CHECK(sem_eval(&sig, a, &want, &foldable));
    /* the stored result: what the simulator computed, in its element form */
    SemVal got = get(out, j, sig.r);
    SemVal want_stored;
    put(&want_stored.u, 0, sig.r, want);
    want_stored = get(&want_stored.u, 0, sig.r);
    values++;
    if (!same(got, want_stored, sig.r) && reported++ < 3) {
      fprintf(stderr, "%s(", ir_op_info[k].name);
      for (unsigned i = 0; i < n; i++)
        fprintf(stderr, "%s%s 0x%llx", i ? ", " : "", ops[i], (unsigned long long)a[i].u);
      fprintf(stderr, ")%s%s -> %s: simulator 0x%llx, op_semantics 0x%llx\n", pred ? " " : "", pred ? pred : "", rt,
              (unsigned long long)got.u, (unsigned long long)want_stored.u);
      st_failures++;
    }
  }
  kernels++;
  kir_free(&kir);
  sb_free(&t);
}

static void test_every_op(void) {
  for (int k = 0; k < OP__COUNT; k++) {
    if (!ir_op_sem[k].eval) continue;
    int n = ir_op_info[k].noperands;
    if (n < 1 || n > 3) continue;
    const char *const *preds = k == OP_CMPI ? sem_cmpi_names : k == OP_CMPF ? sem_cmpf_names : NULL;
    for (unsigned a = 0; a < NTYPES; a++) {
      const char *ops[3] = {TYPE_NAMES[a], TYPE_NAMES[a], TYPE_NAMES[a]};
      if (k == OP_SELECT) ops[0] = "i1";
      for (unsigned r = 0; r < NTYPES; r++) {
        /* every result type for one operand; the operand's own and i1 otherwise (powi: every exponent type) */
        if (n > 1 && r != a && strcmp(TYPE_NAMES[r], "i1") != 0 && k != OP_POWI) continue;
        if (k == OP_POWI) {
          ops[1] = TYPE_NAMES[r];
          check_signature((OpKind)k, 2, ops, TYPE_NAMES[a], NULL);
          continue;
        }
        if (preds)
          for (unsigned p = 0; preds[p]; p++) check_signature((OpKind)k, (unsigned)n, ops, TYPE_NAMES[r], preds[p]);
        else
          check_signature((OpKind)k, (unsigned)n, ops, TYPE_NAMES[r], NULL);
      }
    }
  }
  /* every op with an evaluation was run in some signature */
  CHECK(kernels > 100);
}

int main(void) {
  const char *seed = getenv("KF_SEED");
  if (seed) rng = strtoull(seed, NULL, 0) | 1;
  RUN(test_every_op);
  printf("sim_opsem: %u kernels, %u values checked\n", kernels, values);
  return sim_test_summary("sim_opsem");
}
