/* sim_test.h — what the simulator's unit tests share: kernels written as kir text are parsed, verified
 * and launched; each test is a function, counted as passed when none of its CHECKs fail. main ends with
 * sim_test_summary(), which prints `N passed, N failed` and gives the exit status. */
#ifndef KF_TEST_SIM_TEST_H
#define KF_TEST_SIM_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "passes/passes.h"
#include "runtime/sim/sim.h"

static int st_failures, st_passed, st_failed;
static const char *st_current;

#define CHECK(cond)                                                                        \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      fprintf(stderr, "%s:%d: [%s] check failed: %s\n", __FILE__, __LINE__, st_current, #cond); \
      st_failures++;                                                                       \
    }                                                                                      \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                                 \
  do {                                                                                     \
    long long a_ = (long long)(a), b_ = (long long)(b);                                    \
    if (a_ != b_) {                                                                        \
      fprintf(stderr, "%s:%d: [%s] %s == %lld, expected %lld\n", __FILE__, __LINE__, st_current, #a, a_, b_); \
      st_failures++;                                                                       \
    }                                                                                      \
  } while (0)

#define CHECK_STR(text, expected)                                                          \
  do {                                                                                     \
    const char *t_ = (text), *e_ = (expected);                                             \
    if (strcmp(t_, e_) != 0) {                                                             \
      fprintf(stderr, "%s:%d: [%s] got\n  %s\nexpected\n  %s\n", __FILE__, __LINE__, st_current, t_, e_); \
      st_failures++;                                                                       \
    }                                                                                      \
  } while (0)

#define CHECK_CONTAINS(text, part)                                                         \
  do {                                                                                     \
    const char *t_ = (text);                                                               \
    if (!strstr(t_, (part))) {                                                             \
      fprintf(stderr, "%s:%d: [%s] expected \"%s\" in:\n  %s\n", __FILE__, __LINE__, st_current, (part), t_); \
      st_failures++;                                                                       \
    }                                                                                      \
  } while (0)

static inline void st_run(const char *name, void (*fn)(void)) {
  st_current = name;
  int before = st_failures;
  fn();
  if (st_failures == before) st_passed++;
  else {
    st_failed++;
    fprintf(stderr, "FAIL: %s\n", name);
  }
}
#define RUN(fn) st_run(#fn, fn)

static inline int sim_test_summary(const char *file) {
  printf("%s: %d passed, %d failed\n", file, st_passed, st_failed);
  return st_failed ? 1 : 0;
}

/* ---- kernels from kir text ---------------------------------------------------------------------- */

typedef struct Kir {
  IrContext *ctx;
  Diag diag;
  Module *m;
  char *text;
} Kir;

/* Parses and verifies text; on failure prints the diagnostics and counts a failure (k->m stays NULL). */
static inline bool kir_load(Kir *k, const char *text) {
  memset(k, 0, sizeof *k);
  k->ctx = ir_context_new();
  diag_init(&k->diag);
  k->text = strdup(text);
  k->m = ir_parse_module(k->ctx, &k->diag, "test.kir", k->text, strlen(k->text));
  if (k->m && !ir_verify_module(k->m, &k->diag)) {
    ir_module_free(k->m);
    k->m = NULL;
  }
  if (!k->m) {
    fprintf(stderr, "[%s] kir did not load:\n%s\n", st_current, diag_text(&k->diag));
    st_failures++;
  }
  return k->m != NULL;
}

/* Runs a pass pipeline over the module (e.g. "lower-scf"); false (printed) on failure. */
static inline bool kir_pipeline(Kir *k, const char *text) {
  Pipeline p = {0};
  PassManagerOptions o = {.verify_each = true};
  bool ok = pipeline_parse(&p, text, &k->diag) && pipeline_run(&p, k->m, &o, &k->diag);
  pipeline_free(&p);
  if (!ok) {
    fprintf(stderr, "[%s] pipeline %s failed:\n%s\n", st_current, text, diag_text(&k->diag));
    st_failures++;
  }
  return ok;
}

static inline bool count_scf(Op *op, void *user) {
  if (op->kind == OP_IF || op->kind == OP_FOR || op->kind == OP_WHILE) ++*(unsigned *)user;
  return true;
}

/* Number of scf.if/for/while ops left in the module (0 after lower-scf). */
static inline unsigned kir_scf_ops(Kir *k) {
  unsigned n = 0;
  ir_walk_module(k->m, count_scf, &n);
  return n;
}

static inline void kir_free(Kir *k) {
  if (k->m) ir_module_free(k->m);
  diag_remove_source(&k->diag, k->text);
  diag_free(&k->diag);
  ir_context_free(k->ctx);
  free(k->text);
}

static inline Type *kir_type(Kir *k, const char *text) {
  size_t pos = 0;
  return ty_parse(k->ctx, text, strlen(text), &pos);
}

/* Launches kernel `name`; returns sim_launch's result. Setup errors are printed. */
static inline bool kir_launch(Kir *k, const char *name, uint32_t gx, uint32_t gy, uint32_t bx, uint32_t by, size_t dyn,
                       const SimArg *args, unsigned nargs, const SimOptions *opts, SimResult *r) {
  Op *f = ir_module_lookup(k->m, name);
  if (!f) {
    fprintf(stderr, "[%s] no kernel %s\n", st_current, name);
    st_failures++;
    return false;
  }
  uint32_t grid[3] = {gx, gy, 1}, block[3] = {bx, by, 1};
  bool ok = sim_launch(k->m, f, grid, block, dyn, args, nargs, opts, r, &k->diag);
  if (r->status == SIM_ERR_SETUP) fprintf(stderr, "[%s] launch setup failed:\n%s\n", st_current, diag_text(&k->diag));
  return ok;
}

/* C-contiguous array argument of element type `ty` (kir syntax). */
static inline SimArg arr_c(Kir *k, void *data, const char *ty, unsigned rank, int64_t d0, int64_t d1) {
  int64_t shape[2] = {d0, d1};
  return sim_arg_array_c(data, kir_type(k, ty), rank, shape);
}

/* The global linear index i = blockIdx.x * blockDim.x + threadIdx.x as %i (i64); also %tx (i32). */
#define KIR_GRID1                                                               \
  "  %tx = gpu.thread_id() {dim = 0} : () -> (i32)\n"                           \
  "  %bx = gpu.block_id() {dim = 0} : () -> (i32)\n"                            \
  "  %bw = gpu.block_dim() {dim = 0} : () -> (i32)\n"                           \
  "  %g0 = arith.muli(%bx, %bw) : (i32, i32) -> (i32)\n"                        \
  "  %g1 = arith.addi(%g0, %tx) : (i32, i32) -> (i32)\n"                        \
  "  %i = arith.extsi(%g1) : (i32) -> (i64)\n"

#endif
