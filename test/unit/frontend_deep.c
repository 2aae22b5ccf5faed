/* frontend_deep.c — deeply nested and very long input, through the public API (kf_compile_source, then the
 * LLVM IR; kf_module_parse, verify and the default pipeline for kir), on the main thread and on a thread with a
 * 256 KB stack (an embedder's): each either compiles or is refused with a located error (`deep.py:L:C: error:`,
 * the source line, a caret), never a crash. Chains through first operands (`x + x + ... + x` of 700 and of
 * 100,000 terms, module constants too) compile on both stacks; nesting past a limit is a located error. */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/kfront.h"
#include "runtime_test.h"

enum { SMALL_STACK = 256 * 1024 };

typedef enum { OK, ERROR, EITHER } Expect;

typedef struct Case {
  const char *name;
  int kir;                     /* the text is kir (kfront-opt's path), not Python */
  Expect main_thread, small_stack;
  const char *message;         /* part of the error message (ERROR, and EITHER when it fails) */
  unsigned line;               /* the error's line (0: any) */
  char *text;
} Case;

/* ---- sources ------------------------------------------------------------------------------------------- */

typedef struct Buf {
  char *s;
  size_t n, cap;
} Buf;

static void put(Buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (b->n + (size_t)k + 1 > b->cap) {
    b->cap = (b->n + (size_t)k + 1) * 2;
    b->s = realloc(b->s, b->cap);
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->n, (size_t)k + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)k;
}

static void repeat(Buf *b, const char *s, unsigned n) {
  for (unsigned i = 0; i < n; i++) put(b, "%s", s);
}

/* A kernel k(a, x) whose body line 5 starts with `    a[0] = `; `before` goes above the decorator. */
static Buf kernel_head(const char *before) {
  Buf b = {0};
  put(&b, "from numba import cuda\n%s\n@cuda.jit(\"void(float64[:], float64)\")\ndef k(a, x):\n", before);
  return b;
}

/* `a[0] = T op T op ... op T` with n terms. */
static char *chain(const char *term, const char *op, unsigned n) {
  Buf b = kernel_head("");
  put(&b, "    a[0] = %s", term);
  for (unsigned i = 1; i < n; i++) put(&b, " %s %s", op, term);
  put(&b, "\n");
  return b.s;
}

/* `a[0] = x` followed by n copies of a postfix (`[0]`, `.shape`, `()`). */
static char *postfix(const char *suffix, unsigned n) {
  Buf b = kernel_head("");
  put(&b, "    a[0] = x");
  repeat(&b, suffix, n);
  put(&b, "\n");
  return b.s;
}

/* `a[0] = ` open^n x close^n. */
static char *nested(const char *open, const char *close, unsigned n) {
  Buf b = kernel_head("");
  put(&b, "    a[0] = ");
  repeat(&b, open, n);
  put(&b, "x");
  repeat(&b, close, n);
  put(&b, "\n");
  return b.s;
}

static char *elif_chain(unsigned n) {
  Buf b = kernel_head("");
  put(&b, "    if x < 0:\n        a[0] = 0\n");
  for (unsigned i = 1; i < n; i++) put(&b, "    elif x < %u:\n        a[0] = %u\n", i, i);
  put(&b, "    else:\n        a[0] = -1\n");
  return b.s;
}

static char *nested_ifs(unsigned n) {
  Buf b = kernel_head("");
  for (unsigned i = 0; i < n; i++) {
    repeat(&b, "    ", i + 1);
    put(&b, "if x > %u:\n", i);
  }
  repeat(&b, "    ", n + 1);
  put(&b, "a[0] = 1\n");
  return b.s;
}

/* A match statement whose case has an or-pattern of n alternatives (frontend/match.c walks the chain). */
static char *or_pattern(unsigned n) {
  Buf b = kernel_head("");
  put(&b, "    match x:\n        case 0");
  for (unsigned i = 1; i < n; i++) put(&b, " | %u", i);
  put(&b, ":\n            a[0] = 1\n        case _:\n            a[0] = 2\n");
  return b.s;
}

/* n nested ifs with a match statement innermost (match.c's rewrite walks the nesting: it must stop, not overflow). */
static char *match_in_nested_ifs(unsigned n) {
  Buf b = kernel_head("");
  for (unsigned i = 0; i < n; i++) {
    repeat(&b, "    ", i + 1);
    put(&b, "if x > %u:\n", i);
  }
  repeat(&b, "    ", n + 1);
  put(&b, "match x:\n");
  repeat(&b, "    ", n + 2);
  put(&b, "case 1:\n");
  repeat(&b, "    ", n + 3);
  put(&b, "a[0] = 1\n");
  return b.s;
}

static char *module_constant_chain(unsigned n) {
  Buf c = {0};
  put(&c, "N = 1");
  for (unsigned i = 1; i < n; i++) put(&c, " + 1");
  put(&c, "\n");
  Buf b = kernel_head(c.s);
  free(c.s);
  put(&b, "    a[0] = N\n");
  return b.s;
}

static char *device_call_chain(unsigned n) {
  Buf b = {0};
  put(&b, "from numba import cuda\n\n");
  for (unsigned i = 0; i < n; i++) put(&b, "@cuda.jit(device=True)\ndef f%u(v):\n    return f%u(v) + 1\n\n", i, i + 1);
  put(&b, "@cuda.jit(device=True)\ndef f%u(v):\n    return v\n\n", n);
  put(&b, "@cuda.jit(\"void(float64[:], float64)\")\ndef k(a, x):\n    a[0] = f0(x)\n");
  return b.s;
}

static char *nested_tuples(unsigned n) {
  Buf b = kernel_head("");
  put(&b, "    t = (x,)\n");
  repeat(&b, "    t = (t, x)\n", n);
  put(&b, "    a[0] = 1\n");
  return b.s;
}

/* n scf.if nested in a kir function. */
static char *kir_nested_ifs(unsigned n) {
  Buf b = {0};
  put(&b, "func.func() ({\n^bb0(%%c: i1):\n");
  for (unsigned i = 0; i < n; i++) put(&b, "scf.if(%%c) ({\n");
  put(&b, "scf.yield() : () -> ()\n");
  for (unsigned i = 0; i < n; i++)
    put(&b, "}, {\nscf.yield() : () -> ()\n}) : (i1) -> ()\n%s", i + 1 < n ? "scf.yield() : () -> ()\n" : "");
  put(&b, "func.return() : () -> ()\n}) {sym_name = @f, function_type = (i1) -> ()} : () -> ()\n");
  return b.s;
}

/* ---- running a case -------------------------------------------------------------------------------------- */

typedef struct Outcome {
  kf_status status;
  char *diagnostics;
} Outcome;

static void compile_case(const Case *c, Outcome *out) {
  kf_context *ctx = kf_context_create();
  kf_module *m = NULL;
  kf_status st;
  if (c->kir) {
    st = kf_module_parse(ctx, "deep.kir", c->text, strlen(c->text), &m);
    if (st == KF_OK) st = kf_module_verify(m);
    if (st == KF_OK) st = kf_module_run_pipeline(m, kf_default_pipeline(), NULL, NULL);
  } else {
    st = kf_compile_source(ctx, "deep.py", c->text, strlen(c->text), NULL, &m);
    if (st == KF_OK) {
      kf_codegen_options cg;
      kf_codegen_options_init(&cg);
      cg.backend = KF_BACKEND_LLVM;
      char *ir = NULL;
      st = kf_module_emit_llvm(m, &cg, &ir, NULL);
      kf_free(ir);
    }
  }
  out->status = st;
  out->diagnostics = strdup(kf_context_diagnostics(ctx));
  kf_module_destroy(m);
  kf_context_destroy(ctx);
}

typedef struct Job {
  const Case *c;
  Outcome out;
} Job;

static void *job_main(void *arg) {
  Job *j = arg;
  compile_case(j->c, &j->out);
  return NULL;
}

static void check_outcome(const Case *c, Expect want, const Outcome *o, const char *where) {
  bool ok = o->status == KF_OK;
  if ((want == OK && !ok) || (want == ERROR && ok)) {
    fprintf(stderr, "%s (%s): %s, expected %s\n%.2000s\n", c->name, where, ok ? "compiled" : "failed",
            want == OK ? "success" : "an error", o->diagnostics);
    test_failures++;
    return;
  }
  if (ok) return;
  /* located: file:line:col: error: message, then the source line and a caret */
  const char *file = c->kir ? "deep.kir:" : "deep.py:";
  unsigned line = 0, col = 0;
  int at = 0;
  bool located = strncmp(o->diagnostics, file, strlen(file)) == 0 &&
                 sscanf(o->diagnostics + strlen(file), "%u:%u: error: %n", &line, &col, &at) == 2 && at > 0;
  if (!located || !strstr(o->diagnostics, "\n") || !strstr(o->diagnostics, "^\n")) {
    fprintf(stderr, "%s (%s): the error is not located:\n%.2000s\n", c->name, where, o->diagnostics);
    test_failures++;
    return;
  }
  if (c->line && line != c->line) {
    fprintf(stderr, "%s (%s): error on line %u, expected %u\n%.500s\n", c->name, where, line, c->line, o->diagnostics);
    test_failures++;
  }
  if (c->message && !strstr(o->diagnostics, c->message)) {
    fprintf(stderr, "%s (%s): expected \"%s\" in:\n%.2000s\n", c->name, where, c->message, o->diagnostics);
    test_failures++;
  }
}

static void run_case(const Case *c) {
  Outcome main_out;
  compile_case(c, &main_out);
  check_outcome(c, c->main_thread, &main_out, "main thread");
  free(main_out.diagnostics);

  pthread_attr_t attr;
  pthread_attr_init(&attr);
  CHECK(pthread_attr_setstacksize(&attr, SMALL_STACK) == 0);
  Job j = {c, {0}};
  pthread_t t;
  CHECK(pthread_create(&t, &attr, job_main, &j) == 0);
  pthread_join(t, NULL);
  pthread_attr_destroy(&attr);
  check_outcome(c, c->small_stack, &j.out, "256 KB stack");
  free(j.out.diagnostics);
}

int main(void) {
  Case cases[] = {
      {"700-term chain of constants", 0, OK, OK, NULL, 0, chain("1", "+", 700)},
      {"700-term chain of a parameter", 0, OK, OK, NULL, 0, chain("x", "+", 700)},
      {"100000-term chain of constants", 0, OK, OK, NULL, 0, chain("1", "+", 100000)},
      {"100000-term chain of a parameter", 0, OK, OK, NULL, 0, chain("x", "*", 100000)},
      {"10000-term chain of array loads", 0, OK, OK, NULL, 0, chain("a[1]", "-", 10000)},
      {"100000-term module constant", 0, OK, OK, NULL, 0, module_constant_chain(100000)},
      {"100000 subscripts", 0, ERROR, ERROR, "float64 is not subscriptable", 5, postfix("[0]", 100000)},
      {"100000 attributes", 0, ERROR, ERROR, "unknown attribute 'shape'", 5, postfix(".shape", 100000)},
      {"100000 calls", 0, ERROR, ERROR, "float64 is not callable", 5, postfix("()", 100000)},
      {"100000-term power chain", 0, ERROR, ERROR, "nested too deeply", 5, chain("x", "**", 100000)},
      {"100000 unary minus", 0, ERROR, ERROR, "nested too deeply", 5, nested("-", "", 100000)},
      {"100000 not", 0, ERROR, ERROR, "nested too deeply", 5, nested("not ", "", 100000)},
      {"100000-term comparison chain", 0, ERROR, ERROR, "nested too deeply", 5, chain("x", "<", 100000)},
      {"199 parentheses", 0, OK, EITHER, "nested too deeply", 5, nested("(", ")", 199)},
      {"150 nested min()", 0, OK, EITHER, "nested too deeply", 5, nested("min(x, ", ")", 150)},
      {"150 nested ternaries", 0, OK, EITHER, "nested too deeply", 5, nested("x if x else ", "", 150)},
      {"1000 nested tuples", 0, ERROR, ERROR, "nested more than 64 deep", 0, nested_tuples(1000)},
      {"98 nested ifs", 0, OK, EITHER, "nested too deeply", 0, nested_ifs(98)},
      {"200-branch elif chain", 0, OK, EITHER, "nested", 0, elif_chain(200)},
      {"2000-branch elif chain", 0, ERROR, ERROR, "nested", 0, elif_chain(2000)},
      {"40-alternative or-pattern", 0, OK, OK, NULL, 0, or_pattern(40)},
      {"20000-alternative or-pattern", 0, ERROR, ERROR, "nested too deeply", 0, or_pattern(20000)},
      {"97 nested ifs around a match", 0, OK, EITHER, "nested too deeply", 0, match_in_nested_ifs(97)},
      {"chain of 300 device functions", 0, OK, EITHER, "nested too deeply", 0, device_call_chain(300)},
      {"kir: 200 nested scf.if", 1, OK, EITHER, "nest", 0, kir_nested_ifs(200)},
      {"kir: 300 nested scf.if", 1, ERROR, ERROR, "nesting too deep", 0, kir_nested_ifs(300)},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    run_case(&cases[i]);
    free(cases[i].text);
  }
  return test_result("frontend_deep");
}
