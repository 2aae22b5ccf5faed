/* backend_api.c — the code generation API (kf_module_emit_llvm/ptx) and the kernel ABI (kfront/abi.h):
 * parameter layout and names, the error record's layout and string table, options (arch, -O, fastmath),
 * errors (libNVVM's log, an unsupported module), and concurrent compiles from several threads.
 * ptxas and libNVVM: see backend_codegen.c (KFRONT_REQUIRE_PTXAS=1 makes their absence a failure). */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kfront/abi.h"
#include "kfront/kfront.h"
#include "backend_test.h"

_Static_assert(sizeof(kf_error_record) == 40, "kf_error_record is 40 bytes");
_Static_assert(offsetof(kf_error_record, flag) == 0, "flag at 0");
_Static_assert(offsetof(kf_error_record, kernel_id) == 4, "kernel_id at 4");
_Static_assert(offsetof(kf_error_record, line) == 8, "line at 8");
_Static_assert(offsetof(kf_error_record, col) == 12, "col at 12");
_Static_assert(offsetof(kf_error_record, axis) == 16, "axis at 16");
_Static_assert(offsetof(kf_error_record, file_id) == 20, "file_id at 20");
_Static_assert(offsetof(kf_error_record, index) == 24, "index at 24");
_Static_assert(offsetof(kf_error_record, extent) == 32, "extent at 32");

static int failures;
static bool have_nvvm = true;

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      printf("FAIL %s:%d: ", __func__, __LINE__);          \
      printf(__VA_ARGS__);                                 \
      printf("\n");                                        \
      failures++;                                          \
    }                                                      \
  } while (0)

static kf_module *parse(kf_context *ctx, const char *text) {
  kf_module *m = NULL;
  if (kf_module_parse(ctx, "api.kir", text, strlen(text), &m) != KF_OK) {
    printf("FAIL: parse:\n%s\n", kf_context_diagnostics(ctx));
    failures++;
    return NULL;
  }
  return m;
}

static const char *ABI_KERNEL =
    "func.func() ({\n"
    "^bb0(%a: array<f32, 2, A>, %flag: i1, %h: f16, %s: i16, %u: u64, %v: array<i1, 1, C>):\n"
    "  %c0 = arith.constant() {value = 0} : () -> (i64)\n"
    "  %x = mem.load(%a, %c0, %c0) : (array<f32, 2, A>, i64, i64) -> (f32)\n"
    "  %hx = arith.extf(%h) : (f16) -> (f32)\n"
    "  %y = arith.addf(%x, %hx) : (f32, f32) -> (f32)\n"
    "  %z = arith.divf(%y, %x) : (f32, f32) -> (f32)\n"
    "  mem.store(%z, %a, %c0, %c0) : (f32, array<f32, 2, A>, i64, i64) -> ()\n"
    "  mem.store(%flag, %v, %c0) : (i1, array<i1, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @abi, function_type = (array<f32, 2, A>, i1, f16, i16, u64, array<i1, 1, C>) -> (), kernel,"
    " arg_names = [\"a\", \"flag\", \"h\", \"s\", \"u\", \"v\"]} : () -> ()\n";

static void test_error_strings(void) {
  static const char table[] = "k0\0k1\0\0dir/f.py\0\0";
  size_t len = sizeof table - 1;
  const char *s = kf_error_string(table, len, KF_ERROR_STRINGS_KERNELS, 0);
  CHECK(s && strcmp(s, "k0") == 0, "kernel 0");
  s = kf_error_string(table, len, KF_ERROR_STRINGS_KERNELS, 1);
  CHECK(s && strcmp(s, "k1") == 0, "kernel 1");
  CHECK(!kf_error_string(table, len, KF_ERROR_STRINGS_KERNELS, 2), "no kernel 2");
  s = kf_error_string(table, len, KF_ERROR_STRINGS_FILES, 0);
  CHECK(s && strcmp(s, "dir/f.py") == 0, "file 0");
  CHECK(!kf_error_string(table, len, KF_ERROR_STRINGS_FILES, 1), "no file 1");
  CHECK(!kf_error_string("abc", 3, KF_ERROR_STRINGS_KERNELS, 0), "unterminated table");
  CHECK(kf_abi_param_count(0) == 1 && kf_abi_param_count(1) == 3 && kf_abi_param_count(3) == 7, "param counts");
}

/* Number of parameters of the PTX .entry `name`. */
static int ptx_entry_params(const char *ptx, const char *name) {
  char head[128];
  snprintf(head, sizeof head, ".entry %s(", name);
  const char *p = strstr(ptx, head);
  if (!p) return -1;
  const char *end = strchr(p, ')');
  int n = 0;
  char pat[128];
  snprintf(pat, sizeof pat, "%s_param_", name);
  for (const char *q = strstr(p, pat); q && q < end; q = strstr(q + 1, pat)) n++;
  return n;
}

static void test_abi_layout(void) {
  kf_context *ctx = kf_context_create();
  kf_module *m = parse(ctx, ABI_KERNEL);
  if (!m) goto out;
  char *ir = NULL;
  CHECK(kf_module_emit_llvm(m, NULL, &ir, NULL) == KF_OK, "emit llvm: %s", kf_context_diagnostics(ctx));
  if (ir) {
    CHECK(strstr(ir, "define void @abi(float* %a_data, i64 %a_shape0, i64 %a_shape1, i64 %a_stride0, i64 %a_stride1, "
                     "i8 %flag, half %h, i16 %s, i64 %u, i8* %v_data, i64 %v_shape0, i64 %v_stride0)"),
          "kernel signature:\n%s", ir);
    CHECK(
        strstr(ir, "!{void (float*, i64, i64, i64, i64, i8, half, i16, i64, i8*, i64, i64)* @abi, !\"kernel\", i32 1}"),
        "nvvm.annotations");
    CHECK(!strstr(ir, "__kf_error"), "a module without checks has no error record");
  }
  kf_free(ir);
  unsigned expect = kf_abi_param_count(2) + 4 + kf_abi_param_count(1);
  for (int backend = 0; backend < 2; backend++) {
    kf_codegen_options o;
    kf_codegen_options_init(&o);
    o.backend = backend ? KF_BACKEND_LLVM : KF_BACKEND_NVVM;
    char *ptx = NULL;
    kf_status st = kf_module_emit_ptx(m, &o, &ptx, NULL);
    if (!backend && st == KF_ERROR_NOT_FOUND) {
      have_nvvm = false;
      continue;
    }
    CHECK(st == KF_OK, "emit ptx (backend %d): %s", backend, kf_context_diagnostics(ctx));
    if (ptx)
      CHECK(ptx_entry_params(ptx, "abi") == (int)expect, "PTX entry has %d params, want %u",
            ptx_entry_params(ptx, "abi"), expect);
    kf_free(ptx);
  }
out:
  kf_module_destroy(m);
  kf_context_destroy(ctx);
}

static void test_options(void) {
  kf_context *ctx = kf_context_create();
  kf_module *m = parse(ctx, ABI_KERNEL);
  if (!m) goto out;
  for (int backend = 0; backend < 2; backend++) {
    if (!backend && !have_nvvm) continue;
    kf_codegen_options o;
    kf_codegen_options_init(&o);
    o.backend = backend ? KF_BACKEND_LLVM : KF_BACKEND_NVVM;
    o.arch = 80;
    char *ptx = NULL;
    CHECK(kf_module_emit_ptx(m, &o, &ptx, NULL) == KF_OK, "sm_80: %s", kf_context_diagnostics(ctx));
    if (ptx) CHECK(strstr(ptx, ".target sm_80"), "sm_80 target (backend %d)", backend);
    if (ptx) CHECK(strstr(ptx, "div.rn.f32"), "IEEE division without fastmath (backend %d)", backend);
    kf_free(ptx);
    o.arch = 90;
    o.fastmath = 1;
    CHECK(kf_module_emit_ptx(m, &o, &ptx, NULL) == KF_OK, "fastmath: %s", kf_context_diagnostics(ctx));
    if (ptx)
      CHECK(strstr(ptx, ".ftz.f32") && !strstr(ptx, "div.rn.f32"), "fastmath: ftz, no IEEE division (backend %d)",
            backend);
    kf_free(ptx);
    o.fastmath = 0;
    o.opt_level = 0;
    CHECK(kf_module_emit_ptx(m, &o, &ptx, NULL) == KF_OK, "-O0: %s", kf_context_diagnostics(ctx));
    kf_free(ptx);
  }
  if (have_nvvm) {
    /* libNVVM's own log reaches the diagnostics */
    kf_codegen_options o;
    kf_codegen_options_init(&o);
    o.arch = 52;
    char *ptx = NULL;
    kf_context_clear_diagnostics(ctx);
    CHECK(kf_module_emit_ptx(m, &o, &ptx, NULL) == KF_ERROR_BACKEND, "compute_52 must fail in libNVVM");
    CHECK(strstr(kf_context_diagnostics(ctx), "libNVVM") && strstr(kf_context_diagnostics(ctx), "compute_52"),
          "libNVVM's log in the diagnostics: %s", kf_context_diagnostics(ctx));
    CHECK(ptx == NULL, "no output on failure");
  }
out:
  kf_module_destroy(m);
  kf_context_destroy(ctx);
}

static void test_unsupported(void) {
  kf_context *ctx = kf_context_create();
  kf_module *m = parse(ctx,
                       "func.func() ({\n^bb0(%t: tuple<i64, f32>):\n  func.return() : () -> ()\n"
                       "}) {sym_name = @tup, function_type = (tuple<i64, f32>) -> (), kernel} : () -> ()\n");
  if (m) {
    char *out = NULL;
    CHECK(kf_module_emit_llvm(m, NULL, &out, NULL) == KF_ERROR_UNSUPPORTED, "tuple parameter is unsupported");
    CHECK(strstr(kf_context_diagnostics(ctx), "backend: "), "diagnostic: %s", kf_context_diagnostics(ctx));
    kf_codegen_options o;
    kf_codegen_options_init(&o);
    o.backend = KF_BACKEND_LLVM;
    CHECK(kf_module_emit_ptx(m, &o, &out, NULL) == KF_ERROR_UNSUPPORTED, "tuple parameter is unsupported (ptx)");
    CHECK(out == NULL, "no output on failure");
  }
  kf_module_destroy(m);
  kf_context_destroy(ctx);
}

/* ---- concurrency: every thread compiles the same module in its own context --------------------- */
typedef struct Job {
  int backend;
  char *ptx;
  int ok;
} Job;

static const char *CONC_KERNEL =
    "func.func() ({\n"
    "^bb0(%a: array<f64, 1, C>):\n"
    "  %tx = gpu.thread_id() {dim = 0} : () -> (i32)\n"
    "  %i = arith.extsi(%tx) : (i32) -> (i64)\n"
    "  %n = mem.dim(%a) {axis = 0} : (array<f64, 1, C>) -> (i64)\n"
    "  check.bounds(%i, %n) {axis = 0} : (i64, i64) -> ()\n"
    "  %x = mem.load(%a, %i) : (array<f64, 1, C>, i64) -> (f64)\n"
    "  %y = math.sin(%x) : (f64) -> (f64)\n"
    "  mem.store(%y, %a, %i) : (f64, array<f64, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @conc, function_type = (array<f64, 1, C>) -> (), kernel} : () -> ()\n";

/* LLVM's NVPTX numbers call sequences with a process-wide counter (`// callseq N` comments): blank them. */
static void normalize_ptx(char *ptx) {
  char *w = ptx;
  for (const char *r = ptx; *r;) {
    if (strncmp(r, "callseq ", 8) == 0) {
      memmove(w, r, 8);
      w += 8;
      r += 8;
      while (*r >= '0' && *r <= '9') r++;
    } else {
      *w++ = *r++;
    }
  }
  *w = 0;
}

static void *compile_job(void *arg) {
  Job *j = arg;
  for (int rep = 0; rep < 4; rep++) {
    kf_context *ctx = kf_context_create();
    kf_module *m = NULL;
    if (kf_module_parse(ctx, "conc.kir", CONC_KERNEL, strlen(CONC_KERNEL), &m) == KF_OK) {
      kf_codegen_options o;
      kf_codegen_options_init(&o);
      o.backend = j->backend ? KF_BACKEND_LLVM : KF_BACKEND_NVVM;
      char *ptx = NULL;
      j->ok = kf_module_emit_ptx(m, &o, &ptx, NULL) == KF_OK;
      if (!j->ok) printf("thread error: %s\n", kf_context_diagnostics(ctx));
      if (ptx) normalize_ptx(ptx);
      if (j->ptx && ptx && strcmp(j->ptx, ptx) != 0) {
        j->ok = 0;
        printf("thread PTX differs:\n%s\n----\n%s\n", j->ptx, ptx);
      }
      if (!j->ptx) j->ptx = ptx;
      else kf_free(ptx);
    }
    kf_module_destroy(m);
    kf_context_destroy(ctx);
    if (!j->ok) break;
  }
  return NULL;
}

static void test_concurrency(void) {
  enum { N = 6 };
  Job jobs[N];
  pthread_t th[N];
  for (int i = 0; i < N; i++) {
    jobs[i] = (Job){.backend = i % 2, .ok = 0};
    if (!have_nvvm) jobs[i].backend = 1;
    pthread_create(&th[i], NULL, compile_job, &jobs[i]);
  }
  for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < N; i++) {
    CHECK(jobs[i].ok, "thread %d (backend %d) failed or gave a different PTX", i, jobs[i].backend);
    for (int k = 0; k < i; k++)
      if (jobs[k].backend == jobs[i].backend && jobs[k].ptx && jobs[i].ptx)
        CHECK(strcmp(jobs[k].ptx, jobs[i].ptx) == 0, "threads %d and %d disagree", k, i);
  }
  for (int i = 0; i < N; i++) kf_free(jobs[i].ptx);
}

/* Not a timed test: prints how long the pieces take for a small kernel. */
static void report_timing(void) {
  kf_context *ctx = kf_context_create();
  kf_module *m = parse(ctx, CONC_KERNEL);
  if (!m) goto out;
  for (int what = 0; what < 3; what++) {
    if (what == 1 && !have_nvvm) continue;
    kf_codegen_options o;
    kf_codegen_options_init(&o);
    o.backend = what == 2 ? KF_BACKEND_LLVM : KF_BACKEND_NVVM;
    enum { REPS = 20 };
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int r = 0; r < REPS; r++) {
      char *out = NULL;
      if (what == 0) kf_module_emit_llvm(m, &o, &out, NULL);
      else kf_module_emit_ptx(m, &o, &out, NULL);
      kf_free(out);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = ((double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6) / REPS;
    static const char *names[] = {"kir -> NVVM IR text", "kir -> PTX (libNVVM)", "kir -> PTX (LLVM NVPTX)"};
    printf("time: %-24s %8.3f ms per compile\n", names[what], ms);
  }
out:
  kf_module_destroy(m);
  kf_context_destroy(ctx);
}

int main(void) {
  test_error_strings();
  test_abi_layout();
  if (!have_nvvm) {
    printf("%s: libNVVM not found; libNVVM paths not checked\n", bt_require() ? "FAIL" : "SKIP");
    if (bt_require()) failures++;
  }
  test_options();
  test_unsupported();
  test_concurrency();
  report_timing();
  printf("%s: %d failure(s)\n", failures ? "FAILED" : "OK", failures);
  return failures ? 1 : 0;
}
