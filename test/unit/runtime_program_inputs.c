/* runtime_program_inputs.c — programs built the way the Python module builds them, on the simulator: a main
 * source that is one function's lines at their true line (an IndexError names that line), names bound by the
 * embedder (a scalar, a constant array, a device function of another source), a function spec instead of a
 * decorator; everything deep-copied at kf_program_create (the caller's buffers are overwritten before the
 * first compile); the cache key changes with a bound value, an extra source's text, the first line, and
 * only with them; bad embedder input is refused at kf_program_create. */
#include <stdlib.h>
#include <string.h>

#include "kfront/kfront.h"
#include "runtime/rt.h"
#include "runtime_test.h"

static kf_context *ctx;
static kf_runtime *rt;

/* `scale` sits at line 30 of its file, indented as if nested in a function. */
static const char MAIN[] =
    "    def scale(out, x):\n"
    "        i = cuda.grid(1)\n"
    "        if i < out.size:\n"
    "            out[i] = helper(x[i]) * FACTOR + TABLE[i % 3]\n"
    "        if i == 0:\n"
    "            out[out.size] = 1.0\n";
static const char HELPER[] =
    "@cuda.jit(device=True)\n"
    "def helper(v):\n"
    "    return v + 1.0\n";

static kf_arg f64_array(double *data, int64_t n) {
  kf_array a;
  kf_array_init(&a, data, KF_MEMORY_HOST, KF_FLOAT64, 1, &n, 'C');
  return kf_arg_array(&a);
}

typedef struct Inputs {
  char main_text[sizeof MAIN], helper_text[sizeof HELPER];
  char factor_name[16], table_name[16], helper_name[16], spec_name[16], sig[64];
  double table[3];
  kf_source sources[2];
  kf_binding bindings[4];
  kf_function_spec spec;
  const char *sigs[1];
  kf_compile_options opts;
} Inputs;

/* Everything in caller-owned buffers, so that the test can overwrite them after kf_program_create. */
static void inputs_init(Inputs *in, int64_t factor, unsigned first_line) {
  memset(in, 0, sizeof *in);
  memcpy(in->main_text, MAIN, sizeof MAIN);
  memcpy(in->helper_text, HELPER, sizeof HELPER);
  strcpy(in->factor_name, "FACTOR");
  strcpy(in->table_name, "TABLE");
  strcpy(in->helper_name, "helper");
  strcpy(in->spec_name, "scale");
  strcpy(in->sig, "void(float64[::1], float64[::1])");
  in->table[0] = 100, in->table[1] = 200, in->table[2] = 300;
  in->sources[0] = (kf_source){"app.py", in->main_text, sizeof MAIN - 1, first_line};
  in->sources[1] = (kf_source){"helpers.py", in->helper_text, sizeof HELPER - 1, 1};
  int64_t three = 3;
  in->bindings[0] = (kf_binding){"cuda", {.kind = KF_VALUE_MODULE, .path = "numba.cuda"}};
  in->bindings[1] = (kf_binding){in->factor_name, {.kind = KF_VALUE_INT, .dtype = KF_INT64, .scalar.i = factor}};
  in->bindings[2] = (kf_binding){in->table_name, {.kind = KF_VALUE_ARRAY}};
  kf_array_init(&in->bindings[2].value.array, in->table, KF_MEMORY_HOST, KF_FLOAT64, 1, &three, 'C');
  in->bindings[3] = (kf_binding){in->helper_name, {.kind = KF_VALUE_FUNCTION, .source = 1, .function = in->helper_name}};
  in->sigs[0] = in->sig;
  in->spec = (kf_function_spec){.name = in->spec_name, .source = 0, .kind = KF_FUNCTION_KERNEL,
                                .signatures = in->sigs, .nsignatures = 1, .opt = -1};
  kf_compile_options_init(&in->opts);
  in->opts.bindings = in->bindings;
  in->opts.nbindings = 4;
  in->opts.functions = &in->spec;
  in->opts.nfunctions = 1;
}

static void scribble(Inputs *in) {
  memset(in->main_text, '#', sizeof MAIN - 1);
  memset(in->helper_text, '#', sizeof HELPER - 1);
  strcpy(in->factor_name, "X");
  strcpy(in->table_name, "Y");
  strcpy(in->helper_name, "Z");
  strcpy(in->spec_name, "W");
  strcpy(in->sig, "void()");
  in->table[0] = in->table[1] = in->table[2] = -1;
  in->bindings[1].value.scalar.i = -7;
}

static void test_inputs_run(void) {
  Inputs *in = malloc(sizeof *in);
  inputs_init(in, 2, 30);
  kf_program *p = NULL;
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_program_create_sources(rt, in->sources, 2, &in->opts, &p) == KF_OK);
  scribble(in);  /* the program copied what it keeps */
  double x[6] = {0, 1, 2, 3, 4, 5}, out[6] = {0};
  kf_arg args[2] = {f64_array(out, 5), f64_array(x, 5)};  /* out[5] is written past the extent: IndexError */
  kf_function *f = NULL;
  CHECK(kf_program_get_function(p, "scale", &f) == KF_OK);
  unsigned g[3] = {1, 1, 1}, b[3] = {32, 1, 1};
  kf_status st = f ? kf_function_launch(f, g, b, 0, NULL, args, 2) : KF_ERROR_INTERNAL;
  CHECK(st == KF_ERROR_OUT_OF_BOUNDS);
  if (st != KF_ERROR_OUT_OF_BOUNDS) fprintf(stderr, "%s", kf_context_diagnostics(ctx));
  for (int i = 0; i < 5; i++) CHECK(out[i] == (x[i] + 1.0) * 2 + 100.0 * (1 + i % 3));
  CHECK(out[5] == 0);
  kf_error_info e;
  CHECK(kf_context_first_error(ctx, &e) == KF_OK);
  CHECK(e.kind == KF_ERRKIND_OUT_OF_BOUNDS && e.file && strcmp(e.file, "app.py") == 0 && e.line == 35);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "app.py:35:");
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "out[out.size] = 1.0");
  kf_program_destroy(p);
  free(in);
}

/* The key of `scale` for one set of inputs. */
static void key_of(int64_t factor, unsigned first_line, bool edit_helper, double table0, RtCacheKey *key) {
  Inputs *in = malloc(sizeof *in);
  inputs_init(in, factor, first_line);
  in->table[0] = table0;
  if (edit_helper) in->helper_text[strlen(in->helper_text) - 2] = '2';  /* v + 1.0 -> v + 1.2 */
  kf_program *p = NULL;
  CHECK(kf_program_create_sources(rt, in->sources, 2, &in->opts, &p) == KF_OK);
  memset(key, 0, sizeof *key);
  if (p) rt_program_cache_key((RtProgram *)p, "scale", "void(float64[::1], float64[::1])", key);
  kf_program_destroy(p);
  free(in);
}

static void test_cache_keys(void) {
  RtCacheKey base, same, k;
  key_of(2, 30, false, 100, &base);
  key_of(2, 30, false, 100, &same);
  CHECK(memcmp(&base, &same, sizeof base) == 0);
  key_of(3, 30, false, 100, &k);
  CHECK(memcmp(&base, &k, sizeof base) != 0);
  key_of(2, 31, false, 100, &k);
  CHECK(memcmp(&base, &k, sizeof base) != 0);
  key_of(2, 30, true, 100, &k);
  CHECK(memcmp(&base, &k, sizeof base) != 0);
  key_of(2, 30, false, 101, &k);
  CHECK(memcmp(&base, &k, sizeof base) != 0);
}

static void test_bad_inputs(void) {
  Inputs *in = malloc(sizeof *in);
  inputs_init(in, 2, 1);
  kf_program *p = (kf_program *)in;  /* must come back NULL */
  in->bindings[1].name = NULL;
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_program_create_sources(rt, in->sources, 2, &in->opts, &p) == KF_ERROR_INVALID_INPUT && !p);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "cannot be read");
  inputs_init(in, 2, 1);
  in->bindings[2].value.array.memory = KF_MEMORY_DEVICE;  /* a device array is captured at its address, not copied */
  CHECK(kf_program_create_sources(rt, in->sources, 2, &in->opts, &p) == KF_OK && p);
  kf_program_destroy(p);
  p = (kf_program *)in;
  /* an array of records spells its record dtype in path (kf_value): missing or another spelling is refused */
  inputs_init(in, 2, 1);
  kf_dtype rec;
  const char *spelling = "Record(x[type=float64;offset=0];8;False)";
  CHECK(kf_dtype_record(ctx, spelling, &rec) == KF_OK);
  int64_t three = 3;
  kf_array_init(&in->bindings[2].value.array, in->table, KF_MEMORY_HOST, rec, 1, &three, 'C');
  CHECK(kf_program_create_sources(rt, in->sources, 2, &in->opts, &p) == KF_ERROR_INVALID_INPUT && !p);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "array of records whose path is not its record dtype's spelling");
  in->bindings[2].value.path = "Record(x[type=float32;offset=0];4;False)";
  CHECK(kf_program_create_sources(rt, in->sources, 2, &in->opts, &p) == KF_ERROR_INVALID_INPUT && !p);
  in->bindings[2].value.path = spelling;  /* spelt: TABLE is a constant array of records (TABLE[i] a record) */
  CHECK(kf_program_create_sources(rt, in->sources, 2, &in->opts, &p) == KF_OK && p);
  kf_program_destroy(p);
  inputs_init(in, 2, 1);
  in->opts.nbindings = 4;
  in->opts.bindings = NULL;
  CHECK(kf_program_create_sources(rt, in->sources, 2, &in->opts, &p) == KF_ERROR_INVALID_INPUT && !p);
  inputs_init(in, 2, 1);
  in->sources[1].text = NULL;
  CHECK(kf_program_create_sources(rt, in->sources, 2, &in->opts, &p) == KF_ERROR_INVALID_INPUT && !p);
  CHECK(kf_program_create_sources(rt, NULL, 0, &in->opts, &p) == KF_ERROR_INVALID_INPUT && !p);
  /* a name the source uses but nobody binds: the compile reports it where it is used, at its true line */
  inputs_init(in, 2, 30);
  in->opts.nbindings = 3;  /* helper unbound */
  CHECK(kf_program_create_sources(rt, in->sources, 2, &in->opts, &p) == KF_OK);
  kf_function *f = NULL;
  double x[4] = {0}, out[4] = {0};
  kf_arg args[2] = {f64_array(out, 4), f64_array(x, 4)};
  unsigned g[3] = {1, 1, 1}, b[3] = {4, 1, 1};
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_program_get_function(p, "scale", &f) == KF_OK);
  CHECK(f && kf_function_launch(f, g, b, 0, NULL, args, 2) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "app.py:33:");
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "helper");
  kf_program_destroy(p);
  free(in);
}

int main(void) {
  ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_SIM;
  if (kf_runtime_create(ctx, &o, &rt) != KF_OK) {
    fprintf(stderr, "%s", kf_context_diagnostics(ctx));
    return 1;
  }
  test_inputs_run();
  test_cache_keys();
  test_bad_inputs();
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
  return test_result("runtime_program_inputs");
}
