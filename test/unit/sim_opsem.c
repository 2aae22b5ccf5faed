/* sim_opsem.c — the simulator runs every op as ir/op_semantics.h defines it: for each op of ir_op_sem with an
 * evaluation and each type signature the verifier accepts (every scalar type; each predicate of the
 * comparisons), a kernel applies the op to operands loaded from arrays (edge values and random bits) and
 * stores the result; the stored values must be bit for bit what the row's evaluation computes on the same
 * operands (NaN: any NaN). The simulator's own fast instructions (arith.addi, cmpf, powi, ...) and its generic
 * SEM instruction are both checked against the one definition. The seed is fixed; KF_SEED picks another. */
#include "opsem_cases.h"
#include "sim_test.h"

enum { N = 96 };

static unsigned kernels, values;

/* One case (opsem_cases.h): skipped when the verifier refuses the signature. */
static void check_case(OpKind k, unsigned n, const char *const *ops, const char *rt, const char *pred, void *user) {
  (void)user;
  StrBuf t;
  sb_init(&t);
  opsem_kernel_text(&t, "k", k, n, ops, rt, pred);

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
  /* the op's signature, from the module, is the case's */
  Op *f = ir_module_lookup(kir.m, "k");
  Op *op = NULL;
  for (Op *o = ir_func_entry(f)->first; o; o = o->next)
    if (o->kind == k) op = o;
  SemSig sig = opsem_sig(k, n, ops, rt, pred), from_op;
  CHECK(op && sem_sig_of(op, &from_op) && memcmp(&from_op, &sig, sizeof sig) == 0);
  static uint64_t in[3][N], out[N];
  SemVal x[3][N];
  SimArg args[4];
  for (unsigned i = 0; i < n; i++) {
    for (unsigned j = 0; j < N; j++) opsem_put(in[i], j, sig.a[i], x[i][j] = opsem_pick(sig.a[i]));
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
    SemVal got = opsem_get(out, j, sig.r), want_stored = opsem_stored(want, sig.r);
    values++;
    if (opsem_ulps(got, want_stored, sig.r) != 0 && reported++ < 3) {
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
  opsem_for_each_case(check_case, NULL);
  CHECK(kernels > 100);
}

/* math.fma of f16 rounds a * b + c once (fma.rn.f16): cases where rounding the sum to f32 first (fmaf) and then to
 * binary16 gives another value (the f32 sum lands on a binary16 tie, or is rounded to the midpoint) */
static void test_f16_fma_rounds_once(void) {
  static const struct {
    uint16_t a, b, c, once, twice;
  } cases[] = {
      {0x4ddc, 0xe300, 0x89a1, 0xf521, 0xf520}, /* 23.4375 * -896 - 0.0001718: -21000.0001718, past the tie */
      {0xb4c9, 0xbeb0, 0x659c, 0x659d, 0x659c},
      {0x48b0, 0x5c60, 0x0626, 0x6921, 0x6920},
      {0x0c1a, 0x5dda, 0xd54d, 0xd54b, 0xd54c},
  };
  SemSig sig = {.kind = OP_FMA, .n = 3, .pred = -1};
  sig.r = sig.a[0] = sig.a[1] = sig.a[2] = (SemTy){.bits = 16, .is_float = true};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    SemVal x[3] = {{.f = (float)sem_f16_value(cases[i].a)}, {.f = (float)sem_f16_value(cases[i].b)},
                   {.f = (float)sem_f16_value(cases[i].c)}};
    SemVal r = {0};
    CHECK(sem_eval(&sig, x, &r, NULL));
    uint16_t got = sem_f16_bits(r.f);
    CHECK(got == cases[i].once);
    /* the case is one: rounding through f32 differs */
    CHECK(sem_f16_bits(fmaf(x[0].f, x[1].f, x[2].f)) == cases[i].twice && cases[i].twice != cases[i].once);
  }
}

int main(void) {
  const char *seed = getenv("KF_SEED");
  if (seed) opsem_rng = strtoull(seed, NULL, 0) | 1;
  RUN(test_f16_fma_rounds_once);
  RUN(test_every_op);
  printf("sim_opsem: %u kernels, %u values checked\n", kernels, values);
  return sim_test_summary("sim_opsem");
}
