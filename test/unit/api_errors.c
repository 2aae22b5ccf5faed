/* api_errors.c — structured errors (kf_context_first_error) through the public API on the simulator: each
 * kind an embedder maps to its own exception — syntax, typing, unsupported, argument, launch configuration,
 * out of bounds (with kernel, axis, index, extent and the source location), not found — is the first error's
 * kind with its location and message; clearing forgets it; a later error of another kind is not the first. */
#include <string.h>

#include "kfront/kfront.h"
#include "runtime_test.h"

static const char GOOD[] =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit\n"
    "def store(a, i):\n"
    "    a[i] = 1.0\n";

typedef struct Case {
  const char *name, *source, *kernel;
  kf_error_kind kind;
  const char *message_part;
  unsigned line, col;  /* 0: not checked */
} Case;

static kf_runtime *make_runtime(kf_context *ctx) {
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_SIM;
  kf_runtime *rt = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
  return rt;
}

/* Compiles `kernel` of source for (float64[::1], int64) and reports the first error. */
static void compile_case(const Case *c) {
  kf_context *ctx = kf_context_create();
  kf_runtime *rt = make_runtime(ctx);
  kf_program *p = NULL;
  CHECK(kf_program_create(rt, "e.py", c->source, strlen(c->source), NULL, &p) == KF_OK);
  double a[4];
  int64_t n = 4;
  kf_array arr;
  kf_array_init(&arr, a, KF_MEMORY_HOST, KF_FLOAT64, 1, &n, 'C');
  kf_arg args[2] = {kf_arg_array(&arr), kf_arg_int(KF_INT64, 0)};
  kf_kernel *k = NULL;
  CHECK(kf_program_get_kernel(p, c->kernel, args, 2, &k) != KF_OK);
  kf_error_info e;
  CHECK(kf_context_first_error(ctx, &e) == KF_OK);
  if (e.kind != c->kind) fprintf(stderr, "%s: kind %d, expected %d\n%s", c->name, e.kind, c->kind, kf_context_diagnostics(ctx));
  CHECK(e.kind == c->kind);
  CHECK_CONTAINS(e.message, c->message_part);
  if (c->line) {
    CHECK(e.file && strcmp(e.file, "e.py") == 0);
    CHECK(e.line == c->line && e.col == c->col);
  }
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
}

static void test_compile_errors(void) {
  static const Case cases[] = {
      {"syntax", "from numba import cuda\n@cuda.jit\ndef k(a, i:\n    pass\n", "k", KF_ERRKIND_SYNTAX, "", 3, 0},
      {"typing", "from numba import cuda\n@cuda.jit\ndef k(a, i):\n    a[i] = undefined_name\n", "k",
       KF_ERRKIND_TYPING, "undefined_name", 4, 12},
      {"unsupported", "from numba import cuda\n@cuda.jit\ndef k(a, i):\n    b = a[i] @ a[i]\n", "k",
       KF_ERRKIND_UNSUPPORTED, "not supported", 4, 0},
      {"not found", GOOD, "nope", KF_ERRKIND_NOT_FOUND, "nope", 0, 0},
  };
  for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
    Case c = cases[i];
    if (c.kind == KF_ERRKIND_SYNTAX || c.kind == KF_ERRKIND_UNSUPPORTED) {
      /* the column is the parser's: check the line only */
      Case l = c;
      l.line = 0;
      compile_case(&l);
    } else {
      compile_case(&c);
    }
  }
}

static void test_runtime_errors(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime *rt = make_runtime(ctx);
  kf_program *p = NULL;
  CHECK(kf_program_create(rt, "good.py", GOOD, sizeof GOOD - 1, NULL, &p) == KF_OK);
  kf_error_info e;
  CHECK(kf_context_first_error(ctx, &e) == KF_ERROR_NOT_FOUND && e.kind == KF_ERRKIND_NONE);
  double a[4] = {0};
  int64_t n = 4;
  kf_array arr;
  kf_array_init(&arr, a, KF_MEMORY_HOST, KF_FLOAT64, 1, &n, 'C');
  kf_arg args[2] = {kf_arg_array(&arr), kf_arg_int(KF_INT64, 7)};
  kf_kernel *k = NULL;
  CHECK(kf_program_get_kernel(p, "store", args, 2, &k) == KF_OK && k);
  unsigned g[3] = {1, 1, 1}, b[3] = {1, 1, 1}, huge[3] = {2048, 1, 1};

  /* out of bounds: a[7] of 4 elements */
  CHECK(kf_launch(k, g, b, 0, NULL, args, 2) == KF_ERROR_OUT_OF_BOUNDS);
  CHECK(kf_context_first_error(ctx, &e) == KF_OK && e.kind == KF_ERRKIND_OUT_OF_BOUNDS);
  CHECK(e.kernel && strcmp(e.kernel, "store") == 0);
  CHECK(e.index == 7 && e.extent == 4 && e.axis == 0);
  CHECK(e.file && strcmp(e.file, "good.py") == 0 && e.line == 5 && e.col > 0);
  CHECK_CONTAINS(e.message, "IndexError: index 7 is out of bounds for axis 0 with size 4");
  /* a later error of another kind is not the first */
  CHECK(kf_launch(k, g, huge, 0, NULL, args, 2) == KF_ERROR_INVALID_INPUT);
  CHECK(kf_context_first_error(ctx, &e) == KF_OK && e.kind == KF_ERRKIND_OUT_OF_BOUNDS);
  kf_context_clear_diagnostics(ctx);

  CHECK(kf_launch(k, g, huge, 0, NULL, args, 2) == KF_ERROR_INVALID_INPUT);
  CHECK(kf_context_first_error(ctx, &e) == KF_OK && e.kind == KF_ERRKIND_LAUNCH_CONFIG && !e.file);
  CHECK_CONTAINS(e.message, "invalid launch of kernel store");
  kf_context_clear_diagnostics(ctx);

  kf_arg wrong[2] = {kf_arg_int(KF_INT64, 1), kf_arg_int(KF_INT64, 1)};
  CHECK(kf_launch(k, g, b, 0, NULL, wrong, 2) == KF_ERROR_INVALID_INPUT);
  CHECK(kf_context_first_error(ctx, &e) == KF_OK && e.kind == KF_ERRKIND_ARGUMENT);
  kf_context_clear_diagnostics(ctx);

  kf_array bad = arr;
  bad.shape[0] = -3;
  kf_arg neg[2] = {kf_arg_array(&bad), args[1]};
  CHECK(kf_launch(k, g, b, 0, NULL, neg, 2) == KF_ERROR_INVALID_INPUT);
  CHECK(kf_context_first_error(ctx, &e) == KF_OK && e.kind == KF_ERRKIND_ARGUMENT);
  CHECK_CONTAINS(e.message, "negative extent");
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_context_first_error(ctx, &e) == KF_ERROR_NOT_FOUND);

  /* the context goes on working */
  args[1] = kf_arg_int(KF_INT64, 3);
  CHECK(kf_launch(k, g, b, 0, NULL, args, 2) == KF_OK && a[3] == 1.0);
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
}

int main(void) {
  test_compile_errors();
  test_runtime_errors();
  return test_result("api_errors");
}
