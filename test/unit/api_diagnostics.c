/* api_diagnostics.c — every diagnostic as facts through the public API (kf_context_diagnostic_count / _at /
 * _note, kf_context_set_diagnostic_callback, kf_context_report_diagnostic), and the true kinds of the errors an
 * embedder's kir gets: kir text that does not parse (SYNTAX, with its note attached), a verifier failure of parsed
 * or built kir (INVALID_IR) located at the embedder's own loc("kernels.kl":9:32) with its line and caret, the
 * builder's refusals (INVALID_IR), a pipeline that does not parse (SYNTAX), a pipeline given a module that does
 * not verify and a pass refusing its input (INVALID_IR), the API's own argument checks (INVALID_ARGUMENT); warnings
 * and notes (attached, standalone, a pass's report); and the statuses of kf_program_get_function for a function
 * the program lacks (NOT_FOUND) and of arguments that fit no kernel of a kir program (INVALID_INPUT). */
#include <string.h>

#include "kfront/kir.h"
#include "runtime_test.h"

#define OK(call) CHECK((call) == KF_OK)

/* The embedder's source the kir below points into (kernels.kl, lines 1..10). */
static const char KERNELS_KL[] =
    "// kernels.kl\n"
    "kernel k(a: f32[], n: i64) {\n"
    "  let t = n + n;\n"
    "  for i in 0..n {\n"
    "    a[i] = 0;\n"
    "  }\n"
    "  let u = n;\n"
    "  let s = n + 1;\n"
    "  let bad = s + later_defined_value;\n"
    "}\n";

/* %s uses %t before %t is defined: "operand #1 does not dominate this use" at 9:32, "defined here" at 8:5 */
static const char NOT_DOMINATED[] =
    "func.func() ({\n"
    "^bb0(%a: i64):\n"
    "  %s = arith.addi(%a, %t) : (i64, i64) -> (i64) loc(\"kernels.kl\":9:32)\n"
    "  %t = arith.addi(%a, %a) : (i64, i64) -> (i64) loc(\"kernels.kl\":8:5)\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @f, function_type = (i64) -> ()} : () -> ()\n";

static const char KERNEL[] =
    "func.func() ({\n"
    "^bb0(%a: array<f32, 1, C>, %i: i64):\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @k, function_type = (array<f32, 1, C>, i64) -> (), kernel} : () -> ()\n";

static kf_diagnostic at(kf_context *ctx, unsigned i) {
  kf_diagnostic d;
  CHECK(kf_context_diagnostic_at(ctx, i, &d) == KF_OK);
  return d;
}

/* The only top-level diagnostic is an error of this kind whose message has `part`. */
static kf_diagnostic one_error(kf_context *ctx, kf_error_kind kind, const char *part) {
  CHECK(kf_context_diagnostic_count(ctx) >= 1);
  kf_diagnostic d = at(ctx, 0);
  if (d.kind != kind) fprintf(stderr, "kind %d, expected %d:\n%s", d.kind, kind, kf_context_diagnostics(ctx));
  CHECK(d.severity == KF_SEVERITY_ERROR && d.kind == kind);
  CHECK_CONTAINS(d.message, part);
  CHECK(d.parent == KF_NO_DIAGNOSTIC && d.index == 0);
  kf_error_info e;
  CHECK(kf_context_first_error(ctx, &e) == KF_OK && e.kind == kind);
  return d;
}

static void test_syntax(void) {
  kf_context *ctx = kf_context_create();
  static const char text[] = "func.func() ({\n^bb0:\n  func.return() : () -> ()\n";
  kf_module *m = NULL;
  CHECK(kf_module_parse(ctx, "open.kir", text, sizeof text - 1, &m) == KF_ERROR_INVALID_INPUT && !m);
  CHECK(kf_context_diagnostic_count(ctx) == 1);
  kf_diagnostic d = one_error(ctx, KF_ERRKIND_SYNTAX, "expected '}', found end of file");
  CHECK(d.file && strcmp(d.file, "open.kir") == 0 && d.line == 4);
  CHECK(d.nnotes == 1);
  kf_diagnostic n;
  OK(kf_context_diagnostic_note(ctx, 0, 0, &n));
  CHECK(n.severity == KF_SEVERITY_NOTE && n.kind == KF_ERRKIND_NONE && n.parent == 0 && n.index == 0);
  CHECK_CONTAINS(n.message, "to close this region");
  CHECK(n.file && strcmp(n.file, "open.kir") == 0 && n.line == 1 && n.col == 14);
  CHECK_CONTAINS(n.rendered, "open.kir:1:14: note: to close this region\nfunc.func() ({\n             ^\n");
  CHECK(kf_context_diagnostic_note(ctx, 0, 1, &n) == KF_ERROR_INVALID_INPUT);
  CHECK(kf_context_diagnostic_at(ctx, 1, &d) == KF_ERROR_INVALID_INPUT && d.message == NULL);
  /* the rendered text is each diagnostic's, in order */
  char all[1024];
  kf_diagnostic e = at(ctx, 0);
  OK(kf_context_diagnostic_note(ctx, 0, 0, &n));
  snprintf(all, sizeof all, "%s%s", e.rendered, n.rendered);
  CHECK(strcmp(all, kf_context_diagnostics(ctx)) == 0);
  /* a kir type's text */
  kf_type *t = NULL;
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_context_diagnostic_count(ctx) == 0);
  CHECK(kf_type_parse(ctx, "array<f32", &t) == KF_ERROR_INVALID_INPUT);
  one_error(ctx, KF_ERRKIND_SYNTAX, "is not a kir type");
  kf_context_destroy(ctx);
}

static void test_invalid_ir(void) {
  kf_context *ctx = kf_context_create();
  OK(kf_context_add_source(ctx, "kernels.kl", KERNELS_KL, sizeof KERNELS_KL - 1));
  kf_module *m = NULL;
  OK(kf_module_parse(ctx, "dom.kir", NOT_DOMINATED, sizeof NOT_DOMINATED - 1, &m));
  CHECK(kf_module_verify(m) == KF_ERROR_INVALID_INPUT);
  CHECK(kf_context_diagnostic_count(ctx) == 1);
  kf_diagnostic d = one_error(ctx, KF_ERRKIND_INVALID_IR, "operand #1 does not dominate this use");
  CHECK(d.file && strcmp(d.file, "kernels.kl") == 0 && d.line == 9 && d.col == 32);
  /* the embedder's line 9 and a caret under column 32 */
  CHECK_CONTAINS(d.rendered, "kernels.kl:9:32: error: 'arith.addi' op operand #1 does not dominate this use\n"
                             "  let bad = s + later_defined_value;\n"
                             "                               ^\n");
  CHECK(d.nnotes == 1);
  kf_diagnostic n;
  OK(kf_context_diagnostic_note(ctx, 0, 0, &n));
  CHECK(n.severity == KF_SEVERITY_NOTE && n.line == 8 && n.col == 5 && strcmp(n.file, "kernels.kl") == 0);
  CHECK_CONTAINS(n.message, "operand #1 defined here");
  CHECK_CONTAINS(n.rendered, "  let s = n + 1;\n    ^\n");

  /* a pipeline given that module (verifying each pass): the input is the embedder's, not a pass's fault */
  kf_context_clear_diagnostics(ctx);
  kf_pass_options po;
  kf_pass_options_init(&po);
  CHECK(kf_module_run_pipeline(m, "cse", &po, NULL) == KF_ERROR_INVALID_INPUT);
  one_error(ctx, KF_ERRKIND_INVALID_IR, "does not dominate");
  CHECK(kf_context_diagnostic_count(ctx) == 2);
  CHECK_CONTAINS(at(ctx, 1).message, "the IR given to the pass pipeline does not verify");
  CHECK(at(ctx, 1).kind == KF_ERRKIND_INVALID_IR);
  kf_module_destroy(m);

  /* a pipeline that does not parse */
  static const char good[] = "func.func() ({\n^bb0:\n  func.return() : () -> ()\n}) "
                             "{sym_name = @g, function_type = () -> ()} : () -> ()\n";
  OK(kf_module_parse(ctx, "good.kir", good, sizeof good - 1, &m));
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_module_run_pipeline(m, "cse,no-such-pass", NULL, NULL) == KF_ERROR_INVALID_INPUT);
  kf_diagnostic p = one_error(ctx, KF_ERRKIND_SYNTAX, "no-such-pass");
  CHECK(p.file && strcmp(p.file, "<pipeline>") == 0 && p.line == 1 && p.col == 5);
  kf_context_clear_diagnostics(ctx);
  char *normal = NULL;
  CHECK(kf_pipeline_normalize(ctx, "cse{", &normal) == KF_ERROR_INVALID_INPUT && !normal);
  one_error(ctx, KF_ERRKIND_SYNTAX, "");
  /* a pass refusing what it is given */
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_module_run_pipeline(m, "tile-shared{bx=0}", NULL, NULL) == KF_ERROR_INVALID_INPUT);
  one_error(ctx, KF_ERRKIND_INVALID_IR, "tile-shared:");
  /* the API's own argument checks, and a function the module lacks */
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_module_rename_function(m, "g", "1g") == KF_ERROR_INVALID_INPUT);
  one_error(ctx, KF_ERRKIND_INVALID_ARGUMENT, "'1g' is not a function name");
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_module_rename_function(m, "nope", "g2") == KF_ERROR_NOT_FOUND);
  one_error(ctx, KF_ERRKIND_NOT_FOUND, "no function 'nope'");
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_context_report(ctx, 7, KF_ERRKIND_SYNTAX, (kf_location){0}, "x") == KF_ERROR_INVALID_INPUT);
  one_error(ctx, KF_ERRKIND_INVALID_ARGUMENT, "level must be");
  kf_module_destroy(m);
  kf_context_destroy(ctx);
}

static void test_builder(void) {
  kf_context *ctx = kf_context_create();
  OK(kf_context_add_source(ctx, "kernels.kl", KERNELS_KL, sizeof KERNELS_KL - 1));
  kf_module *m = NULL;
  kf_builder *b = NULL;
  OK(kf_module_create(ctx, "kernels.kl", &m));
  OK(kf_builder_create(m, &b));
  kf_type *i64 = NULL, *fn = NULL;
  OK(kf_type_scalar(ctx, KF_INT64, &i64));
  OK(kf_type_function(ctx, 1, &i64, 0, NULL, &fn));
  kf_op *func = NULL, *op = NULL;
  OK(kf_builder_set_location(b, (kf_location){"kernels.kl", 2, 1}));
  OK(kf_build_function(b, "k", fn, KF_FUNCTION_FLAG_KERNEL, &func));
  OK(kf_builder_set_insertion_end(b, kf_function_entry(func)));
  OK(kf_builder_set_location(b, (kf_location){"kernels.kl", 9, 32}));
  kf_op_state st = {.name = "arith.wrong"};
  CHECK(kf_build_op(b, &st, &op) == KF_ERROR_INVALID_INPUT);
  kf_diagnostic d = one_error(ctx, KF_ERRKIND_INVALID_IR, "'arith.wrong' is not a kir op");
  CHECK(d.line == 9 && d.col == 32 && strcmp(d.file, "kernels.kl") == 0);
  CHECK_CONTAINS(d.rendered, "  let bad = s + later_defined_value;\n                               ^\n");
  kf_builder_destroy(b);
  kf_module_destroy(m);
  kf_context_destroy(ctx);
}

typedef struct Seen {
  unsigned n;
  kf_severity severity[16];
  kf_error_kind kind[16];
  unsigned parent[16], index[16];
  char message[16][64];
} Seen;

static void seen_fn(void *user, const kf_diagnostic *d) {
  Seen *s = user;
  if (s->n >= 16) return;
  s->severity[s->n] = d->severity;
  s->kind[s->n] = d->kind;
  s->parent[s->n] = d->parent;
  s->index[s->n] = d->index;
  snprintf(s->message[s->n], sizeof s->message[0], "%s", d->message);
  s->n++;
}

static unsigned handled;
static void handler_fn(void *user, int level, const char *rendered) {
  (void)user;
  (void)level;
  (void)rendered;
  handled++;
}

static void test_warnings_and_notes(void) {
  kf_context *ctx = kf_context_create();
  OK(kf_context_add_source(ctx, "kernels.kl", KERNELS_KL, sizeof KERNELS_KL - 1));
  Seen seen = {0};
  kf_context_set_diagnostic_callback(ctx, seen_fn, &seen);
  kf_context_set_diagnostic_handler(ctx, handler_fn, NULL);
  kf_location l3 = {"kernels.kl", 3, 7};
  OK(kf_context_report(ctx, 2, KF_ERRKIND_NONE, l3, "a note before anything"));    /* stands alone */
  OK(kf_context_report(ctx, 1, KF_ERRKIND_NONE, l3, "'t' is never read"));
  OK(kf_context_report(ctx, 2, KF_ERRKIND_NONE, (kf_location){"kernels.kl", 2, 1}, "in kernel 'k'"));
  kf_diagnostic e = {.severity = KF_SEVERITY_ERROR, .kind = KF_ERRKIND_TYPING, .message = "no such name",
                     .file = "kernels.kl", .line = 9, .col = 17, .end_col = 36};
  OK(kf_context_report_diagnostic(ctx, &e));
  OK(kf_context_report(ctx, 2, KF_ERRKIND_NONE, (kf_location){0}, "names are declared with 'let'"));
  OK(kf_context_report(ctx, 2, KF_ERRKIND_NONE, (kf_location){0}, "did you mean 'later'?"));
  CHECK(kf_context_error_count(ctx) == 1);
  CHECK(kf_context_diagnostic_count(ctx) == 3);
  kf_diagnostic d0 = at(ctx, 0), d1 = at(ctx, 1), d2 = at(ctx, 2);
  CHECK(d0.severity == KF_SEVERITY_NOTE && d0.nnotes == 0 && d0.parent == KF_NO_DIAGNOSTIC);
  CHECK(d1.severity == KF_SEVERITY_WARNING && d1.kind == KF_ERRKIND_NONE && d1.nnotes == 1 && d1.line == 3 &&
        d1.col == 7 && d1.end_col == 0 && d1.index == 1);
  CHECK_CONTAINS(d1.rendered, "kernels.kl:3:7: warning: 't' is never read\n  let t = n + n;\n      ^\n");
  CHECK(d2.severity == KF_SEVERITY_ERROR && d2.kind == KF_ERRKIND_TYPING && d2.nnotes == 2 && d2.col == 17 &&
        d2.end_col == 36);
  kf_diagnostic n;
  OK(kf_context_diagnostic_note(ctx, 1, 0, &n));
  CHECK(strcmp(n.message, "in kernel 'k'") == 0 && n.parent == 1 && n.line == 2);
  OK(kf_context_diagnostic_note(ctx, 2, 1, &n));
  CHECK(strcmp(n.message, "did you mean 'later'?") == 0 && n.parent == 2 && n.index == 1 && !n.file);
  /* the callback saw each one as it came, notes with their diagnostic's index */
  CHECK(seen.n == 6 && handled == 6);
  static const kf_severity sev[6] = {KF_SEVERITY_NOTE, KF_SEVERITY_WARNING, KF_SEVERITY_NOTE, KF_SEVERITY_ERROR,
                                     KF_SEVERITY_NOTE, KF_SEVERITY_NOTE};
  static const unsigned parent[6] = {KF_NO_DIAGNOSTIC, KF_NO_DIAGNOSTIC, 1, KF_NO_DIAGNOSTIC, 2, 2};
  static const unsigned index[6] = {0, 1, 0, 2, 0, 1};
  for (unsigned i = 0; i < 6 && i < seen.n; i++)
    CHECK(seen.severity[i] == sev[i] && seen.parent[i] == parent[i] && seen.index[i] == index[i]);
  CHECK(seen.kind[3] == KF_ERRKIND_TYPING && strcmp(seen.message[3], "no such name") == 0);
  /* cleared: nothing; the strings read before stay the caller's to forget */
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_context_diagnostic_count(ctx) == 0);
  kf_context_set_diagnostic_callback(ctx, NULL, NULL);

  /* a pass's report stands alone: bce{report=1}'s notes are top-level, not notes of anything before them */
  static const char loop[] =
      "func.func() ({\n"
      "^bb0(%a: array<f32, 1, C>):\n"
      "  %n = mem.dim(%a) {axis = 0} : (array<f32, 1, C>) -> (i64)\n"
      "  %i = arith.addi(%n, %n) : (i64, i64) -> (i64)\n"
      "  check.bounds(%i, %n) {axis = 0} : (i64, i64) -> ()\n"
      "  func.return() : () -> ()\n"
      "}) {sym_name = @k, function_type = (array<f32, 1, C>) -> (), kernel} : () -> ()\n";
  kf_module *m = NULL;
  OK(kf_context_report(ctx, 1, KF_ERRKIND_NONE, (kf_location){0}, "an earlier warning"));
  OK(kf_module_parse(ctx, "loop.kir", loop, sizeof loop - 1, &m));
  OK(kf_module_verify(m));
  OK(kf_module_run_pipeline(m, "bce{report=1}", NULL, NULL));
  unsigned count = kf_context_diagnostic_count(ctx);
  CHECK(count >= 2);
  CHECK(at(ctx, 0).nnotes == 0);
  for (unsigned i = 1; i < count; i++) CHECK(at(ctx, i).severity == KF_SEVERITY_NOTE);
  kf_module_destroy(m);
  kf_context_destroy(ctx);
}

static void test_statuses(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_SIM;
  kf_runtime *rt = NULL;
  OK(kf_runtime_create(ctx, &o, &rt));
  /* a source program: no function 'nope' */
  static const char src[] = "from numba import cuda\n\n@cuda.jit\ndef store(a, i):\n    a[i] = 1.0\n\n"
                            "def host():\n    pass\n";
  kf_program *p = NULL;
  OK(kf_program_create(rt, "e.py", src, sizeof src - 1, NULL, &p));
  kf_function *f = NULL;
  CHECK(kf_program_get_function(p, "nope", &f) == KF_ERROR_NOT_FOUND && !f);
  one_error(ctx, KF_ERRKIND_NOT_FOUND, "'nope'");
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_program_get_function(p, "host", &f) == KF_ERROR_NOT_FOUND && !f);
  one_error(ctx, KF_ERRKIND_NOT_FOUND, "host code");
  kf_context_clear_diagnostics(ctx);
  OK(kf_program_get_function(p, "store", &f));
  CHECK(f && kf_context_diagnostic_count(ctx) == 0);
  kf_function *again = NULL;
  OK(kf_program_get_function(p, "store", &again));
  CHECK(again == f);
  kf_program_destroy(p);
  /* a source that does not compile: its errors come when it compiles, as they always did */
  static const char broken[] = "from numba import cuda\n@cuda.jit\ndef k(a, i:\n    pass\n";
  OK(kf_program_create(rt, "b.py", broken, sizeof broken - 1, NULL, &p));
  OK(kf_program_get_function(p, "k", &f));
  CHECK(kf_context_diagnostic_count(ctx) == 0);
  kf_program_destroy(p);

  /* a kir program: no kernel of that name, and arguments that fit none */
  kf_module *m = NULL;
  OK(kf_module_parse(ctx, "k.kir", KERNEL, sizeof KERNEL - 1, &m));
  OK(kf_program_from_module(rt, m, &p));
  CHECK(kf_program_get_function(p, "nope", &f) == KF_ERROR_NOT_FOUND && !f);
  one_error(ctx, KF_ERRKIND_NOT_FOUND, "nope");
  kf_context_clear_diagnostics(ctx);
  OK(kf_program_get_function(p, "k", &f));
  kf_arg one = kf_arg_int(KF_INT64, 0);
  kf_kernel *k = NULL;
  CHECK(kf_function_specialize(f, &one, 1, &k) == KF_ERROR_INVALID_INPUT && !k);
  one_error(ctx, KF_ERRKIND_ARGUMENT, "No matching definition");
  kf_program_destroy(p);
  kf_module_destroy(m);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
}

int main(void) {
  test_syntax();
  test_invalid_ir();
  test_builder();
  test_warnings_and_notes();
  test_statuses();
  return test_result("api_diagnostics");
}
