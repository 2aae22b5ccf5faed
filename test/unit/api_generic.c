/* api_generic.c — generic programs (kfront.h's kf_program_create_generic): kernels an embedder builds with kir.h's
 * builder for each argument-type fingerprint, on the simulator.
 *  - one generic saxpy (out[i] = a * x[i] + y[i] for i < n, its element type and n's integer type open) launched
 *    with f32 arrays and an int32 n, then f64 arrays and an int64 n, then mixed: each result checked exactly, the
 *    callback called once per fingerprint (counted: launches and kf_function_specialize of seen types call it no
 *    more), the parameter types it is given checked, the kernels listed by kf_function_kernels;
 *  - refusals: the callback's own (integer arrays: its located diagnostic is the launch's error, KF_ERROR_INVALID_INPUT),
 *    a refusal with no reason (the runtime's diagnostic), a module without the kernel, a module that does not verify,
 *    a kernel its arguments do not fit, a wrong argument count (refused before the callback), an unknown kernel name,
 *    bad options; after each the program still launches;
 *  - 8 threads launching one new fingerprint at the same moment: compiled once, every result right. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/kir.h"
#include "runtime_test.h"

/* What the callback builds: saxpy as asked, or one of the faulty modules. */
typedef enum { BUILD_OK, BUILD_WRONG_NAME, BUILD_UNVERIFIED, BUILD_F32_ONLY, BUILD_SILENT_REFUSAL } BuildMode;

typedef struct {
  pthread_mutex_t lock;  /* calls are serialised by the runtime's lock: this only makes the count's reads safe */
  unsigned calls;
  BuildMode mode;
  char last_types[256];  /* the parameter types of the last call, printed */
} Gen;

#define TRY(call)                        \
  do {                                   \
    if ((st = (call)) != KF_OK) goto out; \
  } while (0)

static kf_status build_saxpy(void *user, kf_context *ctx, const char *kernel, kf_type *const *types, unsigned n,
                             kf_module **out) {
  Gen *g = user;
  pthread_mutex_lock(&g->lock);
  g->calls++;
  g->last_types[0] = 0;
  for (unsigned i = 0; i < n; i++) {
    char *text = NULL;
    if (kf_type_print(ctx, types[i], &text) == KF_OK) {
      size_t at = strlen(g->last_types);
      snprintf(g->last_types + at, sizeof g->last_types - at, "%s%s", i ? ", " : "", text);
    }
    kf_free(text);
  }
  BuildMode mode = g->mode;
  pthread_mutex_unlock(&g->lock);
  *out = NULL;
  if (mode == BUILD_SILENT_REFUSAL) return KF_ERROR_UNSUPPORTED;
  /* saxpy(a: S, x: T[], y: T[], out: T[], n: I) with T a float type */
  kf_location here = {"saxpy.gen", 3, 7};
  kf_type *elem = NULL, *f32 = NULL, *i64 = NULL;
  if (n != 5) return KF_ERROR_UNSUPPORTED; /* the program declares 5 parameters: not reached */
  kf_status st = kf_type_scalar(ctx, KF_FLOAT32, &f32);
  if (st == KF_OK) st = kf_type_scalar(ctx, KF_INT64, &i64);
  if (st != KF_OK) return st;
  char *x_text = NULL;
  if ((st = kf_type_print(ctx, types[1], &x_text)) != KF_OK) return st;
  bool f64 = strncmp(x_text, "array<f64", 9) == 0, flt = f64 || strncmp(x_text, "array<f32", 9) == 0;
  kf_free(x_text);
  if (!flt) {
    kf_context_report(ctx, 0, KF_ERRKIND_TYPING, here, "saxpy takes arrays of f32 or f64");
    return KF_ERROR_UNSUPPORTED;
  }
  if ((st = kf_type_scalar(ctx, f64 ? KF_FLOAT64 : KF_FLOAT32, &elem)) != KF_OK) return st;
  kf_type *params[5];
  memcpy(params, types, sizeof params);
  if (mode == BUILD_F32_ONLY) { /* parameters of f32 whatever the arguments: they fit only f32 arrays */
    kf_type *arr = NULL;
    if ((st = kf_type_array(ctx, f32, 1, 'C', &arr)) != KF_OK) return st;
    params[1] = params[2] = params[3] = arr;
  }
  kf_type *fn = NULL;
  kf_module *m = NULL;
  kf_builder *b = NULL;
  TRY(kf_type_function(ctx, 5, params, 0, NULL, &fn));
  TRY(kf_module_create(ctx, "saxpy.gen", &m));
  TRY(kf_builder_create(m, &b));
  TRY(kf_builder_set_location(b, here));
  kf_op *func = NULL;
  TRY(kf_build_function(b, mode == BUILD_WRONG_NAME ? "other" : kernel, fn, KF_FUNCTION_FLAG_KERNEL, &func));
  kf_block *entry = kf_function_entry(func);
  kf_ir_value *arg[5];
  for (unsigned i = 0; i < 5; i++) arg[i] = kf_block_arg(entry, i);
  kf_ir_value *bid, *bdim, *tid, *t, *i, *i_64, *n_64, *in;
  TRY(kf_build_gpu_index(b, "gpu.block_id", 0, &bid));
  TRY(kf_build_gpu_index(b, "gpu.block_dim", 0, &bdim));
  TRY(kf_build_gpu_index(b, "gpu.thread_id", 0, &tid));
  TRY(kf_build_simple(b, "arith.muli", 2, (kf_ir_value *[]){bid, bdim}, NULL, &t));
  TRY(kf_build_simple(b, "arith.addi", 2, (kf_ir_value *[]){t, tid}, NULL, &i));
  TRY(kf_build_cast(b, i, i64, &i_64));
  TRY(kf_build_cast(b, arg[4], i64, &n_64));
  TRY(kf_build_compare(b, "slt", i_64, n_64, &in));
  TRY(kf_build_if_begin(b, in));
  kf_ir_value *a, *xv, *yv, *ax, *r;
  TRY(kf_build_cast(b, arg[0], mode == BUILD_F32_ONLY ? f32 : elem, &a));
  TRY(kf_build_load(b, arg[1], 1, &i_64, &xv));
  TRY(kf_build_load(b, arg[2], 1, &i_64, &yv));
  TRY(kf_build_simple(b, "arith.mulf", 2, (kf_ir_value *[]){a, xv}, NULL, &ax));
  /* an unverifiable module: an addf of f32 and i64 (the builder checks counts; the verifier, types) */
  TRY(kf_build_simple(b, "arith.addf", 2, (kf_ir_value *[]){ax, mode == BUILD_UNVERIFIED ? i_64 : yv}, NULL, &r));
  TRY(kf_build_store(b, r, arg[3], 1, &i_64));
  TRY(kf_build_if_end(b, NULL));
  TRY(kf_build_return(b, 0, NULL));
  TRY(kf_builder_finish(b));
out:
  kf_builder_destroy(b);
  if (st != KF_OK) {
    kf_module_destroy(m);
    return st;
  }
  *out = m;
  return KF_OK;
}

static unsigned calls(Gen *g) {
  pthread_mutex_lock(&g->lock);
  unsigned n = g->calls;
  pthread_mutex_unlock(&g->lock);
  return n;
}

enum { N = 300 };

/* Launches saxpy(1.5, x, y, out, N) over N elements of dtype with n of ndtype; 1 when the result is exact. */
static kf_status run_saxpy(kf_function *f, kf_dtype dtype, kf_dtype ndtype, kf_dtype adtype, int *exact) {
  static _Thread_local double xd[N], yd[N], od[N];
  static _Thread_local float xf[N], yf[N], of[N];
  int64_t n = N;
  bool f64 = dtype == KF_FLOAT64;
  for (int k = 0; k < N; k++) {
    xd[k] = k * 0.5 + 1e-9 * f64, yd[k] = k % 7, od[k] = -1;
    xf[k] = (float)k * 0.5f, yf[k] = (float)(k % 7), of[k] = -1;
  }
  kf_array x, y, o;
  kf_array_init(&x, f64 ? (void *)xd : (void *)xf, KF_MEMORY_HOST, dtype, 1, &n, 'C');
  kf_array_init(&y, f64 ? (void *)yd : (void *)yf, KF_MEMORY_HOST, dtype, 1, &n, 'C');
  kf_array_init(&o, f64 ? (void *)od : (void *)of, KF_MEMORY_HOST, dtype, 1, &n, 'C');
  kf_arg args[5] = {kf_arg_float(adtype, 1.5), kf_arg_array(&x), kf_arg_array(&y), kf_arg_array(&o),
                    kf_arg_int(ndtype, N)};
  if (adtype == KF_INT32) args[0] = kf_arg_int(KF_INT32, 3);
  unsigned grid[3] = {(N + 63) / 64, 1, 1}, block[3] = {64, 1, 1};
  kf_status st = kf_function_launch(f, grid, block, 0, NULL, args, 5);
  *exact = 1;
  for (int k = 0; st == KF_OK && k < N; k++) {
    double a = adtype == KF_INT32 ? 3 : 1.5;
    if (f64) *exact &= od[k] == a * xd[k] + yd[k];
    else *exact &= of[k] == (float)a * xf[k] + yf[k];
  }
  return st;
}

typedef struct {
  kf_function *f;
  pthread_barrier_t *start;
  kf_status st;
  int exact;
} Worker;

static void *worker(void *p) {
  Worker *w = p;
  pthread_barrier_wait(w->start);
  w->st = run_saxpy(w->f, KF_FLOAT64, KF_INT32, KF_FLOAT32, &w->exact);
  return NULL;
}

static kf_error_info first_error(kf_context *ctx) {
  kf_error_info e;
  memset(&e, 0, sizeof e);
  kf_context_first_error(ctx, &e);
  return e;
}

int main(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options ro;
  kf_runtime_options_init(&ro);
  ro.mode = KF_RUNTIME_SIM;
  ro.disk_cache = 0;
  kf_runtime *rt = NULL;
  CHECK(kf_runtime_create(ctx, &ro, &rt) == KF_OK);
  if (!rt) return test_result("api_generic");

  Gen g = {PTHREAD_MUTEX_INITIALIZER, 0, BUILD_OK, ""};
  kf_generic_kernel kernels[1] = {{"saxpy", 5}};
  kf_generic_options go;
  kf_generic_options_init(&go);
  go.kernels = kernels;
  go.nkernels = 1;
  go.specialize = build_saxpy;
  go.user_data = &g;
  kf_program *p = NULL;
  CHECK_MSG(kf_program_create_generic(rt, &go, &p) == KF_OK, "%s", kf_context_diagnostics(ctx));
  CHECK(g.calls == 0); /* nothing is built until a launch */
  kf_function *f = NULL;
  CHECK(kf_program_get_function(p, "saxpy", &f) == KF_OK && f);
  kf_function_info info;
  CHECK(f && kf_function_get_info(f, &info) == KF_OK && info.kind == KF_FUNCTION_KERNEL);
  kf_function *none = NULL;
  CHECK(kf_program_get_function(p, "saxpyy", &none) == KF_ERROR_NOT_FOUND && !none);
  CHECK(first_error(ctx).kind == KF_ERRKIND_NOT_FOUND);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "no kernel named 'saxpyy'");
  kf_context_clear_diagnostics(ctx);
  if (!f) return test_result("api_generic");

  /* f32 arrays and an int32 n, then f64 arrays and an int64 n: two kernels, each exact */
  int exact = 0;
  CHECK_MSG(run_saxpy(f, KF_FLOAT32, KF_INT32, KF_FLOAT32, &exact) == KF_OK && exact, "%s", kf_context_diagnostics(ctx));
  CHECK(calls(&g) == 1);
  CHECK_MSG(strcmp(g.last_types, "f32, array<f32, 1, C>, array<f32, 1, C>, array<f32, 1, C>, i32") == 0, "%s",
            g.last_types);
  CHECK_MSG(run_saxpy(f, KF_FLOAT64, KF_INT64, KF_FLOAT64, &exact) == KF_OK && exact, "%s", kf_context_diagnostics(ctx));
  CHECK(calls(&g) == 2);
  CHECK_MSG(strcmp(g.last_types, "f64, array<f64, 1, C>, array<f64, 1, C>, array<f64, 1, C>, i64") == 0, "%s",
            g.last_types);
  /* seen fingerprints: lookups only */
  CHECK(run_saxpy(f, KF_FLOAT32, KF_INT32, KF_FLOAT32, &exact) == KF_OK && exact);
  CHECK(run_saxpy(f, KF_FLOAT64, KF_INT64, KF_FLOAT64, &exact) == KF_OK && exact);
  CHECK(calls(&g) == 2);
  /* f32 arrays with an int64 n and an int32 a: a third */
  CHECK_MSG(run_saxpy(f, KF_FLOAT32, KF_INT64, KF_INT32, &exact) == KF_OK && exact, "%s", kf_context_diagnostics(ctx));
  CHECK(calls(&g) == 3);
  kf_kernel *ks[8];
  CHECK(kf_function_kernels(f, ks, 8) == 3);
  CHECK_CONTAINS(kf_kernel_signature(ks[1]), "float64[::1]");
  /* kf_function_specialize goes through the same table */
  float fx[4] = {0};
  int64_t four = 4;
  kf_array a4;
  kf_array_init(&a4, fx, KF_MEMORY_HOST, KF_FLOAT32, 1, &four, 'C');
  kf_arg sargs[5] = {kf_arg_float(KF_FLOAT32, 1), kf_arg_array(&a4), kf_arg_array(&a4), kf_arg_array(&a4),
                     kf_arg_int(KF_INT32, 4)};
  kf_kernel *k = NULL;
  CHECK(kf_function_specialize(f, sargs, 5, &k) == KF_OK && k == ks[0]);
  CHECK(calls(&g) == 3);

  /* the callback's refusal: integer arrays; its located diagnostic is the launch's error */
  int32_t ix[4] = {0};
  kf_array i4;
  kf_array_init(&i4, ix, KF_MEMORY_HOST, KF_INT32, 1, &four, 'C');
  kf_arg iargs[5] = {kf_arg_int(KF_INT32, 1), kf_arg_array(&i4), kf_arg_array(&i4), kf_arg_array(&i4),
                     kf_arg_int(KF_INT32, 4)};
  unsigned grid[3] = {1, 1, 1}, block[3] = {4, 1, 1};
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_function_launch(f, grid, block, 0, NULL, iargs, 5) == KF_ERROR_INVALID_INPUT);
  kf_error_info e = first_error(ctx);
  CHECK(e.kind == KF_ERRKIND_TYPING && e.file && strcmp(e.file, "saxpy.gen") == 0 && e.line == 3 && e.col == 7);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "saxpy.gen:3:7: error: saxpy takes arrays of f32 or f64");
  CHECK(calls(&g) == 4);
  /* refused again: nothing was kept for those types */
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_function_launch(f, grid, block, 0, NULL, iargs, 5) == KF_ERROR_INVALID_INPUT);
  CHECK(calls(&g) == 5);

  /* a refusal without a reason: the runtime's diagnostic names the kernel and the types */
  kf_arg f4args[5] = {kf_arg_float(KF_FLOAT64, 1), kf_arg_array(&a4), kf_arg_array(&a4), kf_arg_array(&a4),
                      kf_arg_int(KF_INT16, 4)};
  g.mode = BUILD_SILENT_REFUSAL;
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_function_launch(f, grid, block, 0, NULL, f4args, 5) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "the specialisation callback of kernel saxpy refused the argument types "
                                              "(it reported no reason) for void(float64, float32[::1]");
  /* a module without the kernel, one that does not verify, one whose kernel the arguments do not fit */
  g.mode = BUILD_WRONG_NAME;
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_function_launch(f, grid, block, 0, NULL, f4args, 5) == KF_ERROR_INVALID_INPUT);
  CHECK(first_error(ctx).kind == KF_ERRKIND_INVALID_IR);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "has no kernel named 'saxpy'");
  g.mode = BUILD_UNVERIFIED;
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_function_launch(f, grid, block, 0, NULL, f4args, 5) == KF_ERROR_INVALID_INPUT);
  e = first_error(ctx);
  CHECK_MSG(e.kind == KF_ERRKIND_INVALID_IR && e.file && strcmp(e.file, "saxpy.gen") == 0, "%s",
            kf_context_diagnostics(ctx));
  g.mode = BUILD_F32_ONLY;
  double dx[4] = {0};
  kf_array d4;
  kf_array_init(&d4, dx, KF_MEMORY_HOST, KF_FLOAT64, 1, &four, 'C');
  kf_arg dargs[5] = {kf_arg_float(KF_FLOAT64, 1), kf_arg_array(&d4), kf_arg_array(&d4), kf_arg_array(&d4),
                     kf_arg_int(KF_INT16, 4)};
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_function_launch(f, grid, block, 0, NULL, dargs, 5) == KF_ERROR_INVALID_INPUT);
  CHECK(first_error(ctx).kind == KF_ERRKIND_ARGUMENT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "No matching definition");
  g.mode = BUILD_OK;
  unsigned before = calls(&g);
  /* a wrong argument count: refused before the callback */
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_function_launch(f, grid, block, 0, NULL, dargs, 4) == KF_ERROR_INVALID_INPUT);
  CHECK(first_error(ctx).kind == KF_ERRKIND_ARGUMENT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "kernel saxpy takes 5 arguments, not 4");
  CHECK(calls(&g) == before);
  /* and the program still works, for the types refused before */
  kf_context_clear_diagnostics(ctx);
  CHECK_MSG(kf_function_launch(f, grid, block, 0, NULL, dargs, 5) == KF_OK, "%s", kf_context_diagnostics(ctx));
  CHECK(calls(&g) == before + 1);

  /* 8 threads, one new fingerprint (f64 arrays, int32 n, f32 a) at the same moment: built once */
  enum { T = 8 };
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, T);
  pthread_t th[T];
  Worker w[T];
  before = calls(&g);
  for (int i = 0; i < T; i++) {
    w[i] = (Worker){f, &start, KF_ERROR_INTERNAL, 0};
    pthread_create(&th[i], NULL, worker, &w[i]);
  }
  for (int i = 0; i < T; i++) {
    pthread_join(th[i], NULL);
    CHECK_MSG(w[i].st == KF_OK && w[i].exact, "thread %d: %s", i, kf_context_diagnostics(ctx));
  }
  CHECK(calls(&g) == before + 1);
  pthread_barrier_destroy(&start);

  /* options refused */
  kf_program *bad = NULL;
  kf_generic_options no_fn = go;
  no_fn.specialize = NULL;
  CHECK(kf_program_create_generic(rt, &no_fn, &bad) == KF_ERROR_INVALID_INPUT && !bad);
  kf_generic_kernel twice[2] = {{"saxpy", 5}, {"saxpy", -1}};
  kf_generic_options dup = go;
  dup.kernels = twice;
  dup.nkernels = 2;
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_program_create_generic(rt, &dup, &bad) == KF_ERROR_INVALID_INPUT && !bad);
  CHECK(first_error(ctx).kind == KF_ERRKIND_INVALID_ARGUMENT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "kernel 1 is named twice");
  kf_generic_options unsized = go;
  unsized.struct_size = 0;
  CHECK(kf_program_create_generic(rt, &unsized, &bad) == KF_ERROR_INVALID_INPUT && !bad);

  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
  return test_result("api_generic");
}
