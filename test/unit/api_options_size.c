/* api_options_size.c — the options structs' struct_size (kfront.h, "The ABI scheme"): every _init function sets it to
 * sizeof the struct; every entry point taking options refuses 0 (the _init function not called), a size below the
 * struct's first version and a larger one that sets bytes the library does not know, with KF_ERROR_INVALID_INPUT
 * and a diagnostic naming the call and the struct (kind invalid argument); a larger one whose extra bytes are zero
 * is read. api_options_read itself: an older caller's struct (a smaller struct_size) gets the defaults for the fields
 * past it, whatever lies in the caller's memory there. KF_API_VERSION and kf_api_version() agree. */
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "kfront/kfront.h"
#include "kfront/kir.h"
#include "runtime_test.h"

static const char SRC[] =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit('void(float32[::1])')\n"
    "def k(a):\n"
    "    a[0] = 1.0\n";

static const char KIR[] =
    "func.func() ({\n"
    "^bb0:\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @f, function_type = () -> (), kernel} : () -> ()\n";

/* The status was KF_ERROR_INVALID_INPUT and ctx's first error an invalid argument naming api and type. */
static void refused(kf_context *ctx, kf_status st, const char *api, const char *type) {
  CHECK(st == KF_ERROR_INVALID_INPUT);
  if (!ctx) return;
  kf_error_info e;
  CHECK(kf_context_first_error(ctx, &e) == KF_OK);
  CHECK(e.kind == KF_ERRKIND_INVALID_ARGUMENT);
  CHECK_CONTAINS(e.message, api);
  CHECK_CONTAINS(e.message, type);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "struct_size");
  kf_context_clear_diagnostics(ctx);
}

static void test_init_sets_size(void) {
  CHECK(kf_api_version() == KF_API_VERSION);
  kf_context_options a;
  kf_context_options_init(&a);
  CHECK(a.struct_size == sizeof a);
  kf_pass_options b;
  kf_pass_options_init(&b);
  CHECK(b.struct_size == sizeof b && b.verify_each == 1);
  kf_compile_options c;
  kf_compile_options_init(&c);
  CHECK(c.struct_size == sizeof c && c.bounds_check == 1);
  kf_runtime_options d;
  kf_runtime_options_init(&d);
  CHECK(d.struct_size == sizeof d && d.grid_stride == 1);
  kf_codegen_options e;
  kf_codegen_options_init(&e);
  CHECK(e.struct_size == sizeof e && e.arch == 90);
  kf_cuda_paths f;
  kf_cuda_paths_init(&f);
  CHECK(f.struct_size == sizeof f && !f.cuda_home);
  kf_nvrtc_options g;
  kf_nvrtc_options_init(&g);
  CHECK(g.struct_size == sizeof g && g.ninclude_dirs == 0);
  kf_generic_options h;
  kf_generic_options_init(&h);
  CHECK(h.struct_size == sizeof h && !h.specialize && !h.pipeline);
  kf_intrinsic_desc i;
  kf_intrinsic_desc_init(&i);
  CHECK(i.struct_size == sizeof i && !i.name && i.lowering == 0);
}

/* Every entry point that takes options refuses a struct_size of 0 (a struct filled by hand: {0}, memset). */
static void test_zero_refused(void) {
  kf_context_options xo;
  memset(&xo, 0, sizeof xo);
  kf_context *none = (kf_context *)&xo;
  CHECK(kf_context_create_with(&xo, &none) == KF_ERROR_INVALID_INPUT && none == NULL);

  kf_context *ctx = kf_context_create();
  kf_compile_options co;
  memset(&co, 0, sizeof co);
  kf_module *m = NULL;
  refused(ctx, kf_compile_source(ctx, "k.py", SRC, strlen(SRC), &co, &m), "kf_compile_source", "kf_compile_options");
  CHECK(m == NULL);
  kf_source s = {"k.py", SRC, strlen(SRC), 1};
  refused(ctx, kf_compile_sources(ctx, &s, 1, &co, &m), "kf_compile_sources", "kf_compile_options");
  char *key = NULL;
  CHECK(kf_compile_options_key(&co, &key) == KF_ERROR_INVALID_INPUT && key == NULL);

  kf_runtime_options ro;
  memset(&ro, 0, sizeof ro);
  ro.mode = KF_RUNTIME_SIM;
  kf_runtime *rt = NULL;
  refused(ctx, kf_runtime_create(ctx, &ro, &rt), "kf_runtime_create", "kf_runtime_options");
  CHECK(rt == NULL);
  int n = -1;
  refused(ctx, kf_device_count(ctx, &ro, &n), "kf_device_count", "kf_runtime_options");
  kf_device_info info;
  refused(ctx, kf_device_get_info(ctx, &ro, 0, &info), "kf_device_get_info", "kf_runtime_options");
  char *report = NULL;
  CHECK(kf_system_report(&ro, &report) == KF_ERROR_INVALID_INPUT && report == NULL);

  kf_runtime_options_init(&ro);
  ro.mode = KF_RUNTIME_SIM;
  CHECK(kf_runtime_create(ctx, &ro, &rt) == KF_OK && rt);
  kf_program *p = NULL;
  refused(ctx, kf_program_create(rt, "k.py", SRC, strlen(SRC), &co, &p), "kf_program_create", "kf_compile_options");
  refused(ctx, kf_program_create_sources(rt, &s, 1, &co, &p), "kf_program_create_sources", "kf_compile_options");
  CHECK(p == NULL);
  kf_compile_options_init(&co);
  CHECK(kf_program_create(rt, "k.py", SRC, strlen(SRC), &co, &p) == KF_OK && p);  /* the same, initialised */
  kf_program_destroy(p);
  p = NULL;
  kf_generic_options go;
  memset(&go, 0, sizeof go);
  refused(ctx, kf_program_create_generic(rt, &go, &p), "kf_program_create_generic", "kf_generic_options");
  CHECK(p == NULL);
  kf_runtime_destroy(rt);
  kf_intrinsic_desc id;
  memset(&id, 0, sizeof id);
  refused(ctx, kf_intrinsic_register(ctx, &id), "kf_intrinsic_register", "kf_intrinsic_desc");

  CHECK(kf_module_parse(ctx, "f.kir", KIR, strlen(KIR), &m) == KF_OK && m);
  kf_pass_options po;
  memset(&po, 0, sizeof po);
  refused(ctx, kf_module_run_pipeline(m, "cse", &po, NULL), "kf_module_run_pipeline", "kf_pass_options");
  kf_pass_options_init(&po);
  CHECK(kf_module_run_pipeline(m, "cse", &po, NULL) == KF_OK);
  kf_codegen_options cg;
  memset(&cg, 0, sizeof cg);
  char *text = NULL;
  refused(ctx, kf_module_emit_llvm(m, &cg, &text, NULL), "kf_module_emit_llvm", "kf_codegen_options");
  refused(ctx, kf_module_emit_ptx(m, &cg, &text, NULL), "kf_module_emit_ptx", "kf_codegen_options");
  refused(ctx, kf_module_emit_ltoir(m, &cg, &text, NULL), "kf_module_emit_ltoir", "kf_codegen_options");
  refused(ctx, kf_module_emit_lto_ptx(m, &cg, NULL, 0, NULL, 0, &text, NULL), "kf_module_emit_lto_ptx",
          "kf_codegen_options");
  CHECK(text == NULL);
  kf_codegen_options_init(&cg);
  cg.backend = KF_BACKEND_LLVM;
  CHECK(kf_module_emit_llvm(m, &cg, &text, NULL) == KF_OK && text);
  kf_free(text);
  kf_module_destroy(m);

  kf_nvrtc_options no;
  memset(&no, 0, sizeof no);
  refused(ctx, kf_nvrtc_compile(ctx, "x.cu", "", 0, &no, &text, NULL), "kf_nvrtc_compile", "kf_nvrtc_options");
  kf_cuda_paths cp;
  memset(&cp, 0, sizeof cp);
  CHECK(kf_configure_cuda_paths(&cp) == KF_ERROR_INVALID_INPUT);
  kf_context_destroy(ctx);
}

/* A struct_size below the first version's, and one above this library's: refused unless the extra bytes are 0. */
static void test_sizes(void) {
  kf_context *ctx = kf_context_create();
  kf_module *m = NULL;
  kf_compile_options co;
  kf_compile_options_init(&co);
  co.struct_size = offsetof(kf_compile_options, lto);  /* a struct without the first version's last fields */
  refused(ctx, kf_compile_source(ctx, "k.py", SRC, strlen(SRC), &co, &m), "kf_compile_source", "kf_compile_options");

  /* newer headers: a bigger struct whose new fields are unset (zero) is read; one setting them is refused */
  struct Newer {
    kf_compile_options known;
    int later_option;
  } newer;
  memset(&newer, 0, sizeof newer);
  kf_compile_options_init(&newer.known);
  newer.known.struct_size = sizeof newer;
  CHECK(kf_compile_source(ctx, "k.py", SRC, strlen(SRC), &newer.known, &m) == KF_OK && m);
  kf_module_destroy(m);
  m = NULL;
  newer.later_option = 1;
  kf_status st = kf_compile_source(ctx, "k.py", SRC, strlen(SRC), &newer.known, &m);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "newer headers");
  refused(ctx, st, "kf_compile_source", "kf_compile_options");
  CHECK(m == NULL);

  kf_runtime_options ro;
  kf_runtime_options_init(&ro);
  ro.struct_size = 4;
  kf_runtime *rt = NULL;
  kf_status rs = kf_runtime_create(ctx, &ro, &rt);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "smaller than the struct's first version");
  refused(ctx, rs, "kf_runtime_create", "kf_runtime_options");
  kf_context_destroy(ctx);
}

/* The reading itself, on a struct of two versions: version 2 appended `added` (default 7). */
typedef struct TwoVersions {
  size_t struct_size;
  int original;  /* version 1 ended here */
  int added;
} TwoVersions;

static void two_versions_init(TwoVersions *t) {
  memset(t, 0, sizeof *t);
  t->struct_size = sizeof *t;
  t->added = 7;
}

static void test_older_caller(void) {
  size_t v1 = API_OPTIONS_END(TwoVersions, original);
  TwoVersions given = {v1, 42, 12345};  /* `added` is not the caller's: whatever is in its memory there */
  TwoVersions out;
  two_versions_init(&out);
  CHECK(api_options_read(NULL, "t", "TwoVersions", &given, sizeof out, v1, &out) == KF_OK);
  CHECK(out.struct_size == sizeof out && out.original == 42 && out.added == 7);
  given.struct_size = sizeof given;  /* a caller of version 2 */
  CHECK(api_options_read(NULL, "t", "TwoVersions", &given, sizeof out, v1, &out) == KF_OK);
  CHECK(out.original == 42 && out.added == 12345);
  two_versions_init(&out);
  CHECK(api_options_read(NULL, "t", "TwoVersions", NULL, sizeof out, v1, &out) == KF_OK && out.added == 7);
  given.struct_size = v1 - 1;
  CHECK(api_options_read(NULL, "t", "TwoVersions", &given, sizeof out, v1, &out) == KF_ERROR_INVALID_INPUT);
}

int main(void) {
  test_init_sets_size();
  test_zero_refused();
  test_sizes();
  test_older_caller();
  return test_result("api_options_size");
}
