/* api_pass.c — embedder passes (kir.h's kf_pass_register):
 *
 *  pipeline  a pass that rewrites every arith.mulf into an arith.addf of the same operands (kir.h's walk and
 *            mutation), named between kfront's passes in kf_module_run_pipeline: the printed module has the
 *            addition, its user data saw each op; kf_pipeline_normalize knows the name;
 *  runtime   the same pass in a runtime program's pipeline (kf_compile_options.pipeline), on the simulator: the
 *            kernel's x * 3.0 computes x + 3.0;
 *  failing   a pass that refuses an op with kf_op_report: the diagnostic at the op's line and column, the pipeline
 *            stopped (the pass after it not run); a pass that fails without saying why; a pass that leaves the
 *            module invalid (a use before its definition): the verifier's error and "after embedder pass"
 *            (kind KF_ERRKIND_INVALID_IR), with verify_each off too;
 *  register  refusals: a bad name, kfront's pass name, a name taken, no run function. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/kir.h"
#include "runtime_test.h"

#define OK(call) CHECK((call) == KF_OK)

static char diags[8192];
static void on_diag(void *user, int level, const char *text) {
  (void)user;
  (void)level;
  strncat(diags, text, sizeof diags - strlen(diags) - 1);
}

static const char *src =
    "func.func() ({\n"
    "^bb0(%a: array<f32, 1, C>, %i: i64):\n"
    "  %three = arith.constant() {value = 3.0 : f32} : () -> (f32)\n"
    "  %x = mem.load(%a, %i) : (array<f32, 1, C>, i64) -> (f32)\n"
    "  %y = arith.mulf(%x, %three) : (f32, f32) -> (f32)\n"
    "  mem.store(%y, %a, %i) : (f32, array<f32, 1, C>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @k, function_type = (array<f32, 1, C>, i64) -> (), kernel} : () -> ()\n";

/* ---- the passes ------------------------------------------------------------------------------------ */

typedef struct MulToAdd {
  kf_module *m;
  kf_builder *b;
  unsigned seen, rewritten;
  kf_status st;
} MulToAdd;

static kf_walk_result mul_to_add_op(kf_op *op, void *user) {
  MulToAdd *w = user;
  w->seen++;
  if (strcmp(kf_op_name(op), "arith.mulf") != 0) return KF_WALK_ADVANCE;
  kf_ir_value *ops[2] = {kf_op_operand(op, 0), kf_op_operand(op, 1)}, *sum = NULL;
  if ((w->st = kf_builder_set_insertion_before(w->b, op)) != KF_OK ||
      (w->st = kf_builder_set_location(w->b, kf_op_location(op))) != KF_OK ||
      (w->st = kf_build_simple(w->b, "arith.addf", 2, ops, NULL, &sum)) != KF_OK ||
      (w->st = kf_value_replace_all_uses(w->m, kf_op_result(op, 0), sum)) != KF_OK ||
      (w->st = kf_op_erase(w->m, op)) != KF_OK)
    return KF_WALK_INTERRUPT;
  w->rewritten++;
  return KF_WALK_ADVANCE;
}

static unsigned total_rewritten, total_runs;

static kf_status mul_to_add(kf_module *m, void *user) {
  CHECK(user == &total_runs);
  total_runs++;
  MulToAdd w = {m, NULL, 0, 0, KF_OK};
  kf_status st = kf_builder_create(m, &w.b);
  if (st != KF_OK) return st;
  kf_module_walk(m, KF_WALK_POST_ORDER, mul_to_add_op, &w);  /* post-order: the walk allows erasing the op */
  kf_builder_destroy(w.b);
  total_rewritten += w.rewritten;
  return w.st;
}

/* Refuses the first mem.store, located at it. */
static kf_walk_result find_store(kf_op *op, void *user) {
  if (strcmp(kf_op_name(op), "mem.store") != 0) return KF_WALK_ADVANCE;
  *(kf_op **)user = op;
  return KF_WALK_INTERRUPT;
}

static kf_status no_stores(kf_module *m, void *user) {
  (void)user;
  kf_op *store = NULL;
  kf_module_walk(m, KF_WALK_PRE_ORDER, find_store, &store);
  if (!store) return KF_OK;
  kf_op_report(m, store, 0, "no-stores: this kernel writes memory");
  return KF_ERROR_INVALID_INPUT;
}

static kf_status silent_failure(kf_module *m, void *user) {
  (void)m;
  (void)user;
  return KF_ERROR_INTERNAL;
}

/* Moves the mem.store to the top of the kernel, before the value it stores is defined. */
static kf_status breaks_dominance(kf_module *m, void *user) {
  (void)user;
  kf_op *store = NULL, *k = kf_module_first_function(m);
  kf_module_walk(m, KF_WALK_PRE_ORDER, find_store, &store);
  kf_builder *b = NULL;
  kf_status st = kf_builder_create(m, &b);
  if (st == KF_OK) st = kf_builder_set_insertion_before(b, kf_block_first_op(kf_function_entry(k)));
  if (st == KF_OK) st = kf_builder_insert_op(b, store);
  kf_builder_destroy(b);
  return st;
}

static unsigned counted;
static kf_status count_runs(kf_module *m, void *user) {
  (void)m;
  (void)user;
  counted++;
  return KF_OK;
}

/* ---- the tests -------------------------------------------------------------------------------------- */

static kf_module *parse(kf_context *ctx) {
  kf_module *m = NULL;
  OK(kf_module_parse(ctx, "pass.kir", src, strlen(src), &m));
  return m;
}

static void test_pipeline(kf_context *ctx) {
  kf_module *m = parse(ctx);
  char *report = NULL;
  OK(kf_module_run_pipeline(m, "canonicalize,mul-to-add,cse,dce", NULL, &report));
  kf_free(report);
  CHECK(total_runs == 1 && total_rewritten == 1);
  char *text = NULL;
  OK(kf_module_print(m, KF_PRINT_DEBUG_INFO, &text, NULL));
  CHECK_CONTAINS(text, "%4 = arith.addf(%3, %2) : (f32, f32) -> (f32) loc(\"pass.kir\":5:3)");
  CHECK(text && !strstr(text, "arith.mulf"));
  kf_free(text);
  char *norm = NULL;
  OK(kf_pipeline_normalize(ctx, "cse, mul-to-add ,dce", &norm));
  CHECK(norm && strcmp(norm, "cse,mul-to-add,dce") == 0);
  kf_free(norm);
  CHECK(kf_context_error_count(ctx) == 0);
  CHECK(kf_module_context(m) == ctx);
  kf_module_destroy(m);
}

static const char *kernel_py =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit('void(float32[:])')\n"
    "def triple(a):\n"
    "    i = cuda.grid(1)\n"
    "    if i < a.size:\n"
    "        a[i] = a[i] * 3.0\n";

static void test_runtime(kf_context *ctx) {
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_SIM;
  kf_runtime *rt = NULL;
  OK(kf_runtime_create(ctx, &o, &rt));
  if (!rt) return;
  kf_compile_options co;
  kf_compile_options_init(&co);
  co.pipeline = "canonicalize,mul-to-add,dce";
  kf_program *p = NULL;
  OK(kf_program_create(rt, "triple.py", kernel_py, strlen(kernel_py), &co, &p));
  kf_function *f = NULL;
  if (p) OK(kf_program_get_function(p, "triple", &f));
  float data[4] = {1, 2, 3, 4};
  int64_t n = 4;
  kf_array a;
  kf_array_init(&a, data, KF_MEMORY_HOST, KF_FLOAT32, 1, &n, 'C');
  kf_arg args[1] = {kf_arg_array(&a)};
  unsigned g[3] = {1, 1, 1}, b[3] = {4, 1, 1};
  unsigned runs = total_runs;
  if (f) OK(kf_function_launch(f, g, b, 0, NULL, args, 1));
  CHECK(total_runs > runs);
  for (int i = 0; i < 4; i++) CHECK_MSG(data[i] == (float)(i + 1) + 3.0f, "a[%d] = %g", i, data[i]);
  if (kf_context_error_count(ctx)) fprintf(stderr, "%s", kf_context_diagnostics(ctx));
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
}

static void test_failing(kf_context *ctx) {
  kf_module *m = parse(ctx);
  diags[0] = 0;
  kf_context_clear_diagnostics(ctx);
  counted = 0;
  CHECK(kf_module_run_pipeline(m, "no-stores,count", NULL, NULL) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "pass.kir:6:3: error: no-stores: this kernel writes memory\n"
                        "  mem.store(%y, %a, %i) : (f32, array<f32, 1, C>, i64) -> ()\n  ^");
  CHECK(counted == 0);  /* the pipeline stopped at the failing pass */
  kf_error_info e;
  CHECK(kf_context_first_error(ctx, &e) == KF_OK && e.kind == KF_ERRKIND_INVALID_IR && e.line == 6 && e.col == 3);

  diags[0] = 0;
  CHECK(kf_module_run_pipeline(m, "count,silent", NULL, NULL) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "error: embedder pass 'silent' failed (status");
  CHECK(counted == 1);

  diags[0] = 0;
  kf_context_clear_diagnostics(ctx);
  kf_pass_options po;
  kf_pass_options_init(&po);
  po.verify_each = 0;  /* an embedder pass is verified after all */
  CHECK(kf_module_run_pipeline(m, "breaks-dominance,count", &po, NULL) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "pass.kir:6:3: error:");
  CHECK_CONTAINS(diags, "error: the IR after embedder pass 'breaks-dominance' does not verify");
  CHECK(counted == 1);
  CHECK(kf_context_first_error(ctx, &e) == KF_OK && e.kind == KF_ERRKIND_INVALID_IR);
  kf_module_destroy(m);
}

static void test_register(kf_context *ctx) {
  diags[0] = 0;
  CHECK(kf_pass_register(ctx, "bad name", NULL, count_runs, NULL) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "kf_pass_register: 'bad name' is not a pass name");
  CHECK(kf_pass_register(ctx, "cse", NULL, count_runs, NULL) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "kf_pass_register: 'cse' is the name of a pass of kfront's");
  CHECK(kf_pass_register(ctx, "count", NULL, count_runs, NULL) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "kf_pass_register: 'count' is registered already");
  CHECK(kf_pass_register(ctx, "no-run", NULL, NULL, NULL) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(diags, "kf_pass_register: 'no-run' has no run function");
  CHECK(kf_pass_register(ctx, NULL, NULL, count_runs, NULL) == KF_ERROR_INVALID_INPUT);
  /* another context does not know this one's passes */
  kf_context *other = kf_context_create();
  char *norm = NULL;
  CHECK(kf_pipeline_normalize(other, "count", &norm) == KF_ERROR_INVALID_INPUT && !norm);
  CHECK_CONTAINS(kf_context_diagnostics(other), "unknown pass 'count'");
  kf_context_destroy(other);
}

int main(void) {
  kf_context *ctx = kf_context_create();
  kf_context_set_diagnostic_handler(ctx, on_diag, NULL);
  OK(kf_pass_register(ctx, "mul-to-add", "arith.mulf -> arith.addf", mul_to_add, &total_runs));
  OK(kf_pass_register(ctx, "no-stores", NULL, no_stores, NULL));
  OK(kf_pass_register(ctx, "silent", NULL, silent_failure, NULL));
  OK(kf_pass_register(ctx, "breaks-dominance", NULL, breaks_dominance, NULL));
  OK(kf_pass_register(ctx, "count", NULL, count_runs, NULL));
  test_pipeline(ctx);
  test_runtime(ctx);
  test_failing(ctx);
  test_register(ctx);
  kf_context_destroy(ctx);
  return test_result("api_pass");
}
