/* backend_link.c — the link step (backend/link.c): a kernel calling a foreign device function (a KF_VALUE_FOREIGN
 * binding, cuda.declare_device's) compiled to PTX and to LTO-IR, linked by nvJitLink with a .cu NVRTC compiles
 * (and with that .cu's PTX as a .ptx input) into a cubin: without LTO mul_f32_f32 keeps its own code and the kernel
 * calls it, with LTO the call is inlined (no code of its own; where cuobjdump is, the SASS has no CALL); the PTX of
 * that LTO link (kf_module_emit_lto_ptx), the inputs it cannot optimise left out. Errors: a .cu that does not compile
 * (NVRTC's error at the .cu's own line), a missing symbol (named with the kernel calling it), a call with the wrong
 * number of arguments. NVRTC's libnvrtc-builtins loaded from NVRTC's own folder when NVRTC is (it is not on the
 * loader's path where NVRTC comes from NVIDIA's pip wheels).
 * Needs the CUDA toolkit (NVRTC, nvJitLink, libNVVM): under ctest (KFRONT_REQUIRE_PTXAS=1) their absence
 * is a failure. */
#define _GNU_SOURCE /* memmem, dlinfo */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "kfront/abi.h"
#include "kfront/kfront.h"
#include "backend_test.h"
#include "utils/mem.h"

static int failures;

#define CHECK(cond, ...)                          \
  do {                                            \
    if (!(cond)) {                                \
      printf("FAIL %s:%d: ", __func__, __LINE__); \
      printf(__VA_ARGS__);                        \
      printf("\n");                               \
      failures++;                                 \
    }                                             \
  } while (0)

static const char *kernel_src =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit\n"
    "def multiply(r, x, y):\n"
    "    i = cuda.grid(1)\n"
    "    if i < len(r):\n"
    "        r[i] = mul(x[i], y[i])\n";

static const char *sig = "void(float32[::1], float32[::1], float32[::1])";

/* The kernel compiled with mul bound to the foreign function declared as decl; NULL with the context's diagnostics
 * in *why. */
static kf_module *compile_kernel(kf_context *ctx, const char *src, const char *decl, const char **why) {
  kf_context_clear_diagnostics(ctx);
  kf_binding b = {"mul", {.kind = KF_VALUE_FOREIGN, .path = "mul_f32_f32", .function = decl}};
  const char *kernels[] = {"multiply"};
  kf_compile_options o;
  kf_compile_options_init(&o);
  o.kernels = kernels;
  o.nkernels = 1;
  o.signatures = &sig;
  o.nsignatures = 1;
  o.bindings = &b;
  o.nbindings = 1;
  kf_module *m = NULL;
  kf_status st = kf_compile_source(ctx, "link_test.py", src, strlen(src), &o, &m);
  *why = kf_context_diagnostics(ctx);
  return st == KF_OK ? m : NULL;
}

/* cuobjdump: on the PATH, else the toolkit's; where neither is, the cubin's sections alone are checked. */
static const char *cuobjdump(void) {
  return system("cuobjdump --version > /dev/null 2>&1") == 0 ? "cuobjdump" : "/usr/local/cuda/bin/cuobjdump";
}
static bool have_cuobjdump(void) {
  static int have = -1;
  if (have < 0)
    have = system("cuobjdump --version > /dev/null 2>&1") == 0 || system("test -x /usr/local/cuda/bin/cuobjdump") == 0;
  return have;
}

/* cuobjdump -sass of a cubin. */
static char *sass_of(const char *cubin, size_t len) {
  char path[] = "/tmp/kfront_link_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return NULL;
  FILE *f = fdopen(fd, "wb");
  fwrite(cubin, 1, len, f);
  fclose(f);
  char cmd[256], out[64];
  snprintf(out, sizeof out, "%s.sass", path);
  snprintf(cmd, sizeof cmd, "%s -sass %s > %s 2>&1", cuobjdump(), path, out);
  int rc = system(cmd);
  size_t n = 0;
  char *text = rc == 0 ? bt_read_file(out, &n) : NULL;
  remove(path);
  remove(out);
  return text;
}

static BeLinkInput file_input(const char *path, BeLinkKind kind, char **owned) {
  size_t n = 0;
  *owned = bt_read_file(path, &n);
  return (BeLinkInput){kind, path, *owned, n};
}

/* The kernel linked with foreign_mul.cu: the call resolved (and, with LTO, inlined). */
static void test_link(kf_context *ctx, bool lto) {
  const char *why = NULL;
  kf_module *m = compile_kernel(ctx, kernel_src, "float32(float32, float32)", &why);
  CHECK(m, "compile: %s", why);
  if (!m) return;
  kf_codegen_options co;
  kf_codegen_options_init(&co);
  co.arch = 90;
  char *image = NULL;
  size_t image_len = 0;
  kf_status st = lto ? kf_module_emit_ltoir(m, &co, &image, &image_len) : kf_module_emit_ptx(m, &co, &image, &image_len);
  CHECK(st == KF_OK, "emit: %s", kf_context_diagnostics(ctx));
  if (st == KF_OK && !lto) CHECK(strstr(image, ".extern .func") && strstr(image, "mul_f32_f32"), "PTX: %s", image);
  char *cu = NULL;
  BeLinkInput in = file_input("unit/Inputs/foreign_mul.cu", BE_LINK_CU, &cu);
  CHECK(cu, "cannot read foreign_mul.cu");
  BeLinkOptions lo = {.arch = 90, .lto = lto};
  Diag d;
  diag_init(&d);
  StrBuf cubin;
  sb_init(&cubin);
  BeStatus bs = st == KF_OK && cu ? be_link(image, image_len, &in, 1, &lo, NULL, 0, &cubin, &d) : BE_FAILED;
  CHECK(bs == BE_OK, "link (lto %d): %s", lto, diag_text(&d));
  if (bs == BE_OK) {
    /* the cubin's sections: mul_f32_f32's own code beside the kernel's when it is called, none when inlined */
    bool own_code = memmem(cubin.data, cubin.len, ".text.mul_f32_f32", 17) != NULL;
    CHECK(memmem(cubin.data, cubin.len, ".text.", 6) && memmem(cubin.data, cubin.len, "multiply", 8), "the cubin has the kernel");
    CHECK(own_code == !lto, "lto %d: mul_f32_f32 %s its own code in the cubin", lto, own_code ? "has" : "lacks");
    char *sass = have_cuobjdump() ? sass_of(cubin.data, cubin.len) : NULL; /* the SASS, where cuobjdump is */
    if (have_cuobjdump()) CHECK(sass && strstr(sass, "multiply"), "cuobjdump: %s", sass ? sass : "(did not run)");
    if (sass && lto) CHECK(!strstr(sass, "CALL") && strstr(sass, "FMUL"), "LTO: the call is inlined:\n%s", sass);
    if (sass && !lto) CHECK(strstr(sass, "CALL"), "no LTO: the kernel calls mul_f32_f32:\n%s", sass);
    free(sass);
  }
  /* the same .cu as PTX (NVRTC's), linked as a .ptx input */
  if (!lto && cu) {
    StrBuf ptx;
    sb_init(&ptx);
    CHECK(be_nvrtc_compile(&in, &lo, false, &ptx, &d) == BE_OK, "nvrtc: %s", diag_text(&d));
    BeLinkInput pin = {BE_LINK_PTX, "foreign_mul.ptx", ptx.data, ptx.len};
    sb_reset(&cubin);
    CHECK(be_link(image, image_len, &pin, 1, &lo, NULL, 0, &cubin, &d) == BE_OK, "link .ptx: %s", diag_text(&d));
    sb_free(&ptx);
    /* and as LTO-IR (NVRTC's -dlto) beside kfront's PTX: the link takes -lto for it (the runtime's case of a
     * cuda.LTOIR link item), the foreign function's code in the cubin */
    StrBuf lto_ir;
    sb_init(&lto_ir);
    CHECK(be_nvrtc_compile(&in, &lo, true, &lto_ir, &d) == BE_OK, "nvrtc -dlto: %s", diag_text(&d));
    BeLinkInput lin = {BE_LINK_LTOIR, "foreign_mul.ltoir", lto_ir.data, lto_ir.len};
    sb_reset(&cubin);
    CHECK(be_link(image, image_len, &lin, 1, &lo, NULL, 0, &cubin, &d) == BE_OK, "link .ltoir into PTX: %s",
          diag_text(&d));
    CHECK(memmem(cubin.data, cubin.len, "multiply", 8), "the cubin has the kernel");
    sb_free(&lto_ir);
  }
  sb_free(&cubin);
  diag_free(&d);
  free(cu);
  kf_free(image);
  kf_module_destroy(m);
}

/* The PTX of the link-time optimised link (kf_module_emit_lto_ptx, numba-cuda's inspect_lto_ptx): with the .cu, the
 * kernel alone, mul_f32_f32's multiply inlined into it (no call, no function of its own), and the globals the
 * runtime reads by name kept visible; the .cu's PTX and a fatbin holding no LTO-IR are left out of it with a warning
 * each (nvJitLink gives PTX only of LTO-IR), the call then staying; no LTO-IR from LLVM's NVPTX target. */
static void test_lto_ptx(kf_context *ctx) {
  const char *why = NULL;
  kf_module *m = compile_kernel(ctx, kernel_src, "float32(float32, float32)", &why);
  CHECK(m, "compile: %s", why);
  if (!m) return;
  size_t n = 0;
  char *cu = bt_read_file("unit/Inputs/foreign_mul.cu", &n);
  CHECK(cu, "cannot read foreign_mul.cu");
  if (!cu) {
    kf_module_destroy(m);
    return;
  }
  kf_codegen_options co;
  kf_codegen_options_init(&co);
  kf_link_input in = {KF_LINK_CU, "foreign_mul.cu", cu, n};
  char *ptx = NULL;
  size_t len = 0;
  kf_context_clear_diagnostics(ctx);
  kf_status st = kf_module_emit_lto_ptx(m, &co, &in, 1, NULL, 0, &ptx, &len);
  CHECK(st == KF_OK, "lto ptx: %s", kf_context_diagnostics(ctx));
  if (st == KF_OK) {
    CHECK(len == strlen(ptx), "the PTX is text of its length");
    CHECK(strstr(ptx, ".visible .entry multiply(") && strstr(ptx, "mul.f32"), "the kernel, multiplying: %s", ptx);
    CHECK(!strstr(ptx, "call") && !strstr(ptx, "mul_f32_f32"), "mul_f32_f32 inlined: %s", ptx);
    CHECK(strstr(ptx, ".visible .global .align 8 .b8 " KF_ERROR_RECORD_SYMBOL "[") &&
          strstr(ptx, ".visible .global .align 1 .b8 " KF_ERROR_STRINGS_SYMBOL "["),
          "the runtime's globals stay visible: %s", ptx);
  }
  kf_free(ptx);
  /* the .cu's PTX, and a fatbin whose one entry is a cubin (kind 2): left out, each with a warning */
  Diag d;
  diag_init(&d);
  StrBuf nvptx;
  sb_init(&nvptx);
  BeLinkInput bcu = {BE_LINK_CU, "foreign_mul.cu", cu, n};
  BeLinkOptions lo = {.arch = 90};
  CHECK(be_nvrtc_compile(&bcu, &lo, false, &nvptx, &d) == BE_OK, "nvrtc: %s", diag_text(&d));
  diag_free(&d);
  unsigned char fatbin[16 + 64 + 8] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 72};
  fatbin[16] = 2;  /* the entry: kind 2 (a cubin), header 64 bytes, 8 bytes of payload */
  fatbin[16 + 4] = 64;
  fatbin[16 + 8] = 8;
  kf_link_input others[2] = {{KF_LINK_PTX, "foreign_mul.ptx", nvptx.data, nvptx.len},
                             {KF_LINK_FATBIN, "sass_only.fatbin", fatbin, sizeof fatbin}};
  kf_context_clear_diagnostics(ctx);
  st = kf_module_emit_lto_ptx(m, &co, others, 2, NULL, 0, &ptx, &len);
  const char *diags = kf_context_diagnostics(ctx);
  CHECK(st == KF_OK, "lto ptx without LTO-IR inputs: %s", diags);
  CHECK(strstr(diags, "warning: Not adding foreign_mul.ptx (PTX) to the link-time optimised PTX") &&
        strstr(diags, "warning: Not adding sass_only.fatbin (fatbin) to the link-time optimised PTX") &&
        strstr(diags, "as it is not optimizable at link time, and `ignore_nonlto == True`"),
        "the warnings: %s", diags);
  if (st == KF_OK) CHECK(strstr(ptx, "call") && strstr(ptx, ".extern .func") && strstr(ptx, "mul_f32_f32"),
                         "the call stays: %s", ptx);
  kf_free(ptx);
  sb_free(&nvptx);
  co.backend = KF_BACKEND_LLVM;
  CHECK(kf_module_emit_lto_ptx(m, &co, &in, 1, NULL, 0, &ptx, &len) == KF_ERROR_UNSUPPORTED && !ptx,
        "LLVM's NVPTX target makes no LTO-IR");
  free(cu);
  kf_module_destroy(m);
}

static void test_errors(kf_context *ctx) {
  const char *why = NULL;
  kf_module *m = compile_kernel(ctx, kernel_src, "float32(float32, float32)", &why);
  CHECK(m, "compile: %s", why);
  if (!m) return;
  kf_codegen_options co;
  kf_codegen_options_init(&co);
  char *ptx = NULL;
  size_t len = 0;
  CHECK(kf_module_emit_ptx(m, &co, &ptx, &len) == KF_OK, "emit: %s", kf_context_diagnostics(ctx));
  BeLinkOptions lo = {.arch = 90};
  /* NVRTC's error at the .cu's own line, quoted */
  char *bad = NULL;
  BeLinkInput in = file_input("unit/Inputs/foreign_bad.cu", BE_LINK_CU, &bad);
  Diag d;
  diag_init(&d);
  StrBuf cubin;
  sb_init(&cubin);
  CHECK(be_link(ptx, len, &in, 1, &lo, NULL, 0, &cubin, &d) == BE_FAILED, "a .cu that does not compile links");
  CHECK(strstr(diag_text(&d), "unit/Inputs/foreign_bad.cu:4:3: error: NVRTC:") &&
        strstr(diag_text(&d), "\n  NOT VALID C++\n  ^"), "NVRTC's error located at line 4, column 3, quoted: %s", diag_text(&d));
  diag_free(&d);
  /* no input defines the symbol: the kernel calling it is named */
  diag_init(&d);
  BeLinkCaller caller = {"mul_f32_f32", "multiply", {"link_test.py", 7, 16}};
  CHECK(be_link(ptx, len, NULL, 0, &lo, &caller, 1, &cubin, &d) == BE_FAILED, "a missing symbol links");
  CHECK(strstr(diag_text(&d), "link_test.py:7:16: error: the foreign function 'mul_f32_f32' that kernel 'multiply' "
                              "calls is defined by none of the linked files"), "missing symbol: %s", diag_text(&d));
  diag_free(&d);
  /* the same under LTO (the module as LTO-IR): the kernel calling it named too */
  char *ltoir = NULL;
  size_t ltoir_len = 0;
  CHECK(kf_module_emit_ltoir(m, &co, &ltoir, &ltoir_len) == KF_OK, "emit: %s", kf_context_diagnostics(ctx));
  BeLinkOptions llo = {.arch = 90, .lto = true};
  diag_init(&d);
  CHECK(ltoir && be_link(ltoir, ltoir_len, NULL, 0, &llo, &caller, 1, &cubin, &d) == BE_FAILED,
        "a missing symbol links under LTO");
  CHECK(strstr(diag_text(&d), "link_test.py:7:16: error: the foreign function 'mul_f32_f32' that kernel 'multiply' "
                              "calls is defined by none of the linked files"), "missing symbol, LTO: %s", diag_text(&d));
  diag_free(&d);
  kf_free(ltoir);
  sb_free(&cubin);
  free(bad);
  kf_free(ptx);
  kf_module_destroy(m);
  /* a call that does not match the declared signature: a located typing error */
  kf_context_clear_diagnostics(ctx);
  CHECK(!compile_kernel(ctx, kernel_src, "float32(float32, float32, float32)", &why), "a wrong signature compiles");
  CHECK(strstr(why, "link_test.py:7:16: error: the foreign function 'mul_f32_f32' declared as \"float32(float32, "
                    "float32, float32)\" takes 3 arguments, not 2"), "wrong signature: %s", why);
}

/* After NVRTC is loaded (and before it compiles anything) libnvrtc-builtins.so.M.m is loaded, from NVRTC's folder. */
static void test_builtins_preloaded(void) {
  Diag d;
  diag_init(&d);
  CHECK(be_nvrtc_load(&d), "NVRTC loads: %s", diag_text(&d));
  diag_free(&d);
  const char *path = NULL, *found_by = NULL, *error = NULL;
  int version[2] = {0, 0};
  be_link_found(CUDA_LIB_NVRTC, &path, &found_by, &error, version);
  if (!path) return;
  char name[64];
  snprintf(name, sizeof name, "libnvrtc-builtins.so.%d.%d", version[0], version[1]);
  void *h = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
  CHECK(h != NULL, "%s is not loaded after NVRTC (%s)", name, path);
  if (!h) return;
  struct link_map *lm = NULL;
  CHECK(dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm, "dlinfo of %s", name);
  const char *slash = strrchr(path, '/');
  CHECK(lm && slash && strncmp(lm->l_name, path, (size_t)(slash - path + 1)) == 0, "%s loaded from %s, not beside %s",
        name, lm ? lm->l_name : "?", path);
  dlclose(h);
}

int main(void) {
  if (!bt_require()) {
    Diag d;
    diag_init(&d);
    bool have = be_nvrtc_load(&d) && be_jitlink_load(&d);
    diag_free(&d);
    if (!have) {
      printf("SKIP backend_link: NVRTC, nvJitLink or cuobjdump not found (KFRONT_REQUIRE_PTXAS=1 makes it fail)\n");
      return 0;
    }
  }
  test_builtins_preloaded();
  kf_context *ctx = kf_context_create();
  test_link(ctx, false);
  test_link(ctx, true);
  test_lto_ptx(ctx);
  test_errors(ctx);
  kf_context_destroy(ctx);
  if (failures) printf("%d failure(s)\n", failures);
  else printf("backend_link: ok\n");
  return failures ? 1 : 0;
}
