/* api_signature.c — kf_signature_parse and kf_module_function_result: signatures and compiled functions' result
 * types as kf_value trees (every form kfront.h lists), bad text as a located error of the right kind and status. */
#include <string.h>

#include "kfront/kfront.h"
#include "runtime_test.h"

/* Writes tree t as Python would print its tuples: ('array', ('scalar', 'float32'), 1, 'A', False). */
static void show(const kf_value *v, char *out, size_t cap) {
  size_t n = strlen(out);
  switch (v->kind) {
  case KF_VALUE_STRING: snprintf(out + n, cap - n, "'%s'", v->path); return;
  case KF_VALUE_INT: snprintf(out + n, cap - n, "%lld", (long long)v->scalar.i); return;
  case KF_VALUE_BOOL: snprintf(out + n, cap - n, "%s", v->scalar.i ? "True" : "False"); return;
  case KF_VALUE_NONE: snprintf(out + n, cap - n, "None"); return;
  case KF_VALUE_TUPLE:
    snprintf(out + n, cap - n, "(");
    for (unsigned i = 0; i < v->nitems; i++) {
      if (i) snprintf(out + strlen(out), cap - strlen(out), ", ");
      show(&v->items[i], out, cap);
    }
    snprintf(out + strlen(out), cap - strlen(out), v->nitems == 1 ? ",)" : ")");
    return;
  default: snprintf(out + n, cap - n, "?"); return;
  }
}

static void expect_tree(kf_context *ctx, const char *text, const char *expected) {
  kf_value *t = NULL;
  kf_status st = kf_signature_parse(ctx, text, strlen(text), &t);
  if (st != KF_OK) fprintf(stderr, "%s: %s\n%s", text, kf_status_name(st), kf_context_diagnostics(ctx));
  CHECK(st == KF_OK && t);
  char buf[4096] = "";
  show(t, buf, sizeof buf);
  if (strcmp(buf, expected) != 0) fprintf(stderr, "%s\n  got      %s\n  expected %s\n", text, buf, expected);
  CHECK(strcmp(buf, expected) == 0);
  kf_value_free(t);
}

static void expect_error(kf_context *ctx, const char *text, kf_status status, kf_error_kind kind, unsigned col,
                         const char *part) {
  kf_value *t = (kf_value *)1;
  kf_status st = kf_signature_parse(ctx, text, strlen(text), &t);
  kf_error_info e;
  CHECK(st == status && t == NULL);
  CHECK(kf_context_first_error(ctx, &e) == KF_OK);
  if (e.kind != kind || (col && e.col != col))
    fprintf(stderr, "%s: kind %d col %u\n%s", text, e.kind, e.col, kf_context_diagnostics(ctx));
  CHECK(e.kind == kind);
  CHECK(e.file && strcmp(e.file, "<signature>") == 0 && e.line == 1);
  if (col) CHECK(e.col == col);
  CHECK_CONTAINS(e.message, part);
  kf_context_clear_diagnostics(ctx);
}

static void test_signatures(kf_context *ctx) {
  expect_tree(ctx, "void(float32[:], int64)",
              "('signature', ('none',), (('array', ('scalar', 'float32'), 1, 'A', False), ('scalar', 'int64')))");
  expect_tree(ctx, "(f4[:, ::1], double[::1, :])",
              "('signature', None, (('array', ('scalar', 'float32'), 2, 'C', False), "
              "('array', ('scalar', 'float64'), 2, 'F', False)))");
  expect_tree(ctx, "()", "('signature', None, ())");
  expect_tree(ctx, "b1(UniTuple(int8, 2), Tuple((int32, float64)), float16[()])",
              "('signature', ('scalar', 'bool'), (('tuple', (('scalar', 'int8'), ('scalar', 'int8'))), "
              "('tuple', (('scalar', 'int32'), ('scalar', 'float64'))), ('array', ('scalar', 'float16'), 0, 'C', False)))");
  expect_tree(ctx, "void(Array(float32, 1, 'C', readonly=True), UniTuple(Array(int8, 2, 'F', readonly=True), 2))",
              "('signature', ('none',), (('array', ('scalar', 'float32'), 1, 'C', True), ('tuple', "
              "(('array', ('scalar', 'int8'), 2, 'F', True), ('array', ('scalar', 'int8'), 2, 'F', True)))))");
  expect_tree(ctx, "void(int32*, CPointer(float64), optional(int64), OptionalType(float32))",
              "('signature', ('none',), (('pointer', ('scalar', 'int32')), ('pointer', ('scalar', 'float64')), "
              "('optional', ('scalar', 'int64')), ('optional', ('scalar', 'float32'))))");
  expect_tree(ctx, "void(datetime64[D], NPTimedelta(''), NPDatetime(), datetime64[ms][:])",
              "('signature', ('none',), (('datetime64', 'D'), ('timedelta64', ''), ('datetime64', ''), "
              "('array', ('datetime64', 'ms'), 1, 'A', False)))");
  expect_tree(ctx, "void([char x 12][::1], UnicodeCharSeq(3)[:], CharSeq(2))",
              "('signature', ('none',), (('array', ('charseq', 12), 1, 'C', False), "
              "('array', ('unicharseq', 3), 1, 'A', False), ('charseq', 2)))");
  expect_tree(ctx, "void(Record(x[type=float32;offset=0],v[type=nestedarray(int16, (2, 3));offset=4];16;False)[:])",
              "('signature', ('none',), (('array', ('record', (('x', ('scalar', 'float32'), 0, None), "
              "('v', ('nestedarray', ('scalar', 'int16'), (2, 3)), 4, None)), 16, False), 1, 'A', False),))");
  expect_tree(ctx, "void(NamedTuple(\"m.P\", (\"x\", \"y\"), (int64, float32)), IntEnumMember(\"m.Color\", int64))",
              "('signature', ('none',), (('namedtuple', 'm.P', ('x', 'y'), (('scalar', 'int64'), ('scalar', 'float32'))), "
              "('enum', 'm.Color', True, ('scalar', 'int64'), False)))");
  expect_tree(ctx, "void(Tuple((EnumMember(\"m.E\", float64), int8)))",
              "('signature', ('none',), (('tuple', (('enum', 'm.E', False, ('scalar', 'float64'), False), "
              "('scalar', 'int8'))),))");
  expect_tree(ctx, "complex_(csingle, float_, numba.types.bfloat16)",
              "('signature', ('scalar', 'complex128'), (('scalar', 'complex64'), ('scalar', 'float32'), "
              "('scalar', 'bfloat16')))");
  /* not NUL-terminated: len decides */
  kf_value *t = NULL;
  CHECK(kf_signature_parse(ctx, "int8(int8)garbage", 10, &t) == KF_OK && t);
  kf_value_free(t);
}

static void test_errors(kf_context *ctx) {
  expect_error(ctx, "void(float33[:])", KF_ERROR_INVALID_INPUT, KF_ERRKIND_TYPING, 6, "unknown type 'float33'");
  expect_error(ctx, "void(float32[:]", KF_ERROR_INVALID_INPUT, KF_ERRKIND_SYNTAX, 0, "");
  expect_error(ctx, "float32[:]", KF_ERROR_INVALID_INPUT, KF_ERRKIND_TYPING, 1, "expected a signature");
  expect_error(ctx, "void(none)", KF_ERROR_INVALID_INPUT, KF_ERRKIND_TYPING, 6, "cannot be of type none");
  expect_error(ctx, "void(int32, float32[::2])", KF_ERROR_INVALID_INPUT, KF_ERRKIND_TYPING, 21, "expected ':' or '::1'");
  expect_error(ctx, "void(CharSeq(0))", KF_ERROR_INVALID_INPUT, KF_ERRKIND_TYPING, 6, "count of 1 or more");
  expect_error(ctx, "void(uint8**)", KF_ERROR_UNSUPPORTED, KF_ERRKIND_UNSUPPORTED, 0, "pointer types (uint8**)");
  expect_error(ctx, "void(voidptr)", KF_ERROR_UNSUPPORTED, KF_ERRKIND_UNSUPPORTED, 6, "pointer types (void*)");
  expect_error(ctx, "void(CPointer(complex64))", KF_ERROR_UNSUPPORTED, KF_ERRKIND_UNSUPPORTED, 0, "pointer types (complex64*)");
  kf_value *t = NULL;
  CHECK(kf_signature_parse(ctx, NULL, 0, &t) == KF_ERROR_INVALID_INPUT && !t);
  kf_context_clear_diagnostics(ctx);
}

static const char DEVICE[] =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def pair(x):\n"
    "    return x, 1.5\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def maybe(x):\n"
    "    if x > 0:\n"
    "        return x\n"
    "    return None\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def nothing(a):\n"
    "    a[0] = 1\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def view(a):\n"
    "    return a[1:]\n";

static void expect_result(kf_context *ctx, const char *fn, const char *sig, const char *expected) {
  kf_compile_options o;
  kf_compile_options_init(&o);
  o.kernels = &fn;
  o.nkernels = 1;
  o.signatures = &sig;
  o.nsignatures = 1;
  kf_module *m = NULL;
  kf_status st = kf_compile_source(ctx, "dev.py", DEVICE, strlen(DEVICE), &o, &m);
  if (st != KF_OK) fprintf(stderr, "%s\n", kf_context_diagnostics(ctx));
  CHECK(st == KF_OK);
  kf_value *t = NULL;
  CHECK(kf_module_function_result(m, fn, &t) == KF_OK && t);
  char buf[1024] = "";
  show(t, buf, sizeof buf);
  if (strcmp(buf, expected) != 0) fprintf(stderr, "%s\n  got      %s\n  expected %s\n", fn, buf, expected);
  CHECK(strcmp(buf, expected) == 0);
  kf_value_free(t);
  t = (kf_value *)1;
  CHECK(kf_module_function_result(m, "no_such_function", &t) == KF_ERROR_NOT_FOUND && !t);
  kf_context_clear_diagnostics(ctx);
  kf_module_destroy(m);
}

static void test_results(kf_context *ctx) {
  expect_result(ctx, "pair", "(int32,)", "('tuple', (('scalar', 'int32'), ('scalar', 'float64')))");
  expect_result(ctx, "maybe", "(int64,)", "('optional', ('scalar', 'int64'))");
  expect_result(ctx, "nothing", "(float32[::1],)", "('none',)");
  expect_result(ctx, "view", "(float32[::1],)", "('array', ('scalar', 'float32'), 1, 'C', False)");
  /* a kir function whose result has no Numba type */
  static const char KIR[] = "func.func() ({\n^bb0(%p: ptr<f32, 1>):\n  func.return(%p) : (ptr<f32, 1>) -> ()\n"
                            "}) {sym_name = @f, function_type = (ptr<f32, 1>) -> (ptr<f32, 1>)} : () -> ()\n";
  kf_module *m = NULL;
  if (kf_module_parse(ctx, "f.kir", KIR, strlen(KIR), &m) != KF_OK) fprintf(stderr, "%s", kf_context_diagnostics(ctx));
  CHECK(m);
  kf_value *t = NULL;
  CHECK(kf_module_function_result(m, "f", &t) == KF_ERROR_UNSUPPORTED && !t);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "has no Numba type");
  kf_context_clear_diagnostics(ctx);
  kf_module_destroy(m);
}

int main(void) {
  kf_context *ctx = kf_context_create();
  test_signatures(ctx);
  test_errors(ctx);
  test_results(ctx);
  kf_context_destroy(ctx);
  printf("api_signature: ok\n");
  return 0;
}
