/* api_threads.c — compiling is thread-safe: several threads, each with its own kf_context, compile the seed
 * kernels from Python source to kir and to PTX (libNVVM) at the same time, and every result must equal the one
 * compiled alone on the main thread first. Prints "N passed, N failed". Run from test/ (ctest does). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/kfront.h"

enum { NTHREADS = 4, ROUNDS = 3 };

typedef struct {
  const char *file, *func, *sig;
} Case;

static const Case cases[] = {
    {"s000_kernels.py", "add", "void(int64[:], int64[:], int64[:])"},
    {"s001_kernels.py", "double", "void(float64[:], float64[:])"},
    {"s002_kernels.py", "fast_matmul", "void(float32[:, :], float32[:, :], float32[:, :])"},
    {"s002_kernels.py", "increment_a_2D_array", "void(float32[:, :])"},
    {"s003_kernels.py", "reduce_gpu", "float32(float32, float32)"},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

static char *sources[NCASES];
static size_t source_len[NCASES];
static char *expect_kir[NCASES], *expect_ptx[NCASES];
static int have_ptx; /* libNVVM found */

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  *len = fread(buf, 1, (size_t)n, f);
  buf[*len] = 0;
  fclose(f);
  return buf;
}

/* Compiles case i in ctx; *kir and *ptx (NULL when libNVVM is missing) are the caller's. */
static int compile_case(kf_context *ctx, int i, char **kir, char **ptx) {
  kf_compile_options o;
  kf_compile_options_init(&o);
  o.kernels = &cases[i].func;
  o.nkernels = 1;
  o.signatures = &cases[i].sig;
  o.nsignatures = 1;
  kf_module *m = NULL;
  *kir = *ptx = NULL;
  if (kf_compile_source(ctx, cases[i].file, sources[i], source_len[i], &o, &m) != KF_OK) return 1;
  kf_module_print(m, 0, kir, NULL);
  kf_status st = kf_module_emit_ptx(m, NULL, ptx, NULL);
  kf_module_destroy(m);
  return st == KF_OK || st == KF_ERROR_NOT_FOUND ? 0 : 1;
}

static void *worker(void *arg) {
  intptr_t id = (intptr_t)arg;
  intptr_t mismatches = 0;
  kf_context *ctx = kf_context_create();
  for (int r = 0; r < ROUNDS; r++)
    for (int k = 0; k < NCASES; k++) {
      int i = (int)((k + id) % NCASES); /* threads start on different kernels */
      char *kir, *ptx;
      if (compile_case(ctx, i, &kir, &ptx) || strcmp(kir, expect_kir[i]) != 0 ||
          (have_ptx && (!ptx || strcmp(ptx, expect_ptx[i]) != 0))) {
        mismatches++;
        fprintf(stderr, "thread %d: %s differs or failed\n%s", (int)id, cases[i].func, kf_context_diagnostics(ctx));
      }
      kf_free(kir);
      kf_free(ptx);
      kf_context_clear_diagnostics(ctx);
    }
  kf_context_destroy(ctx);
  return (void *)mismatches;
}

int main(void) {
  const char *dirs[] = {getenv("KFRONT_SEEDS"), "acceptance/seeds"};
  int passed = 0, failed = 0;
  for (int i = 0; i < NCASES; i++) {
    for (unsigned d = 0; d < sizeof dirs / sizeof *dirs && !sources[i]; d++) {
      if (!dirs[d]) continue;
      char path[1024];
      snprintf(path, sizeof path, "%s/%s", dirs[d], cases[i].file);
      sources[i] = read_file(path, &source_len[i]);
    }
    if (!sources[i]) {
      printf("FAIL: cannot read %s (run from test/)\n", cases[i].file);
      printf("0 passed, 1 failed\n");
      return 1;
    }
  }
  kf_context *ctx = kf_context_create();
  for (int i = 0; i < NCASES; i++) {
    if (compile_case(ctx, i, &expect_kir[i], &expect_ptx[i])) {
      printf("FAIL: %s does not compile alone:\n%s", cases[i].func, kf_context_diagnostics(ctx));
      failed++;
    }
    if (expect_ptx[i]) have_ptx = 1;
  }
  kf_context_destroy(ctx);
  if (failed) {
    printf("0 passed, %d failed\n", failed);
    return 1;
  }
  if (!have_ptx) {
    const char *require = getenv("KFRONT_REQUIRE_PTXAS");
    printf("%s: libNVVM not found: the threads compare kir only\n", require && *require == '1' ? "FAIL" : "note");
    if (require && *require == '1') failed++;
  }
  pthread_t th[NTHREADS];
  for (intptr_t t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, worker, (void *)t);
  for (int t = 0; t < NTHREADS; t++) {
    void *mismatches;
    pthread_join(th[t], &mismatches);
    if (mismatches) failed++;
    else passed++;
  }
  printf("%d threads x %d rounds x %d kernels compiled concurrently (kir%s): %d passed, %d failed\n", NTHREADS, ROUNDS,
         NCASES, have_ptx ? " and PTX" : "", passed, failed);
  for (int i = 0; i < NCASES; i++) {
    free(sources[i]);
    kf_free(expect_kir[i]);
    kf_free(expect_ptx[i]);
  }
  return failed ? 1 : 0;
}
