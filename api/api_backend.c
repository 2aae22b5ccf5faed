/* api_backend.c — the code generation part of the public C API (kfront/kfront.h): kir module to LLVM IR
 * and PTX, over backend/backend.h (whose entry points run under a guard of their own). */
#include "api/api_internal.h"
#include "backend/backend.h"
#include "utils/mem.h"

#include <string.h>

void kf_codegen_options_init(kf_codegen_options *opts) {
  memset(opts, 0, sizeof *opts);
  opts->struct_size = sizeof *opts;
  opts->backend = KF_BACKEND_NVVM;
  opts->arch = 90;
  opts->opt_level = 3;
  opts->fastmath = 0;
  opts->lineinfo = 0;
  opts->arch_feature = 0;
  opts->debuginfo = 0;
}

/* The caller's options (NULL: the defaults) as the backend's; false (reported) for a struct_size it cannot read. */
static bool to_backend_options(kf_module *m, const char *api, const kf_codegen_options *given, BackendOptions *o) {
  be_options_default(o);
  if (!given) return true;
  kf_codegen_options read;
  if (API_READ_OPTIONS(&m->ctx->diag, api, kf_codegen_options, debuginfo, given, &read) != KF_OK) return false;
  const kf_codegen_options *in = &read;
  o->kind = in->backend == KF_BACKEND_LLVM ? BE_LLVM : BE_NVVM;
  o->arch = in->arch ? in->arch : 90;
  o->opt = in->opt_level < 0 ? 0 : in->opt_level > 3 ? 3 : in->opt_level;
  o->fastmath = in->fastmath != 0;
  o->lineinfo = in->lineinfo != 0;
  o->arch_feature = in->arch_feature;
  o->debuginfo = in->debuginfo != 0;
  return true;
}

static kf_status hand_out(kf_module *m, StrBuf *b, char **out, size_t *len) {
  size_t n = b->len;
  *out = sb_take(b);
  if (!*out) return api_out_of_memory(m->ctx);
  if (len) *len = n;
  return KF_OK;
}

static kf_status status_of(BeStatus st) {
  switch (st) {
  case BE_OK: return KF_OK;
  case BE_UNSUPPORTED: return KF_ERROR_UNSUPPORTED;
  case BE_NOT_FOUND: return KF_ERROR_NOT_FOUND;
  case BE_OUT_OF_MEMORY: return KF_ERROR_OUT_OF_MEMORY;
  case BE_FAILED: break;
  }
  return KF_ERROR_BACKEND;
}

/* What kf_module_emit_llvm / _ptx / _ltoir give: the module through the backend, handed out. */
typedef enum { EMIT_LLVM, EMIT_PTX, EMIT_LTOIR } EmitWhat;
static kf_status emit(kf_module *m, const kf_codegen_options *opts, EmitWhat what, char **out, size_t *len) {
  API_CONTEXT(m->ctx);
  *out = NULL;
  if (len) *len = 0;
  BackendOptions o;
  static const char *const api[] = {"kf_module_emit_llvm", "kf_module_emit_ptx", "kf_module_emit_ltoir"};
  if (!to_backend_options(m, api[what], opts, &o)) return KF_ERROR_INVALID_INPUT;
  o.lto = what == EMIT_LTOIR;
  StrBuf b;
  sb_init(&b);
  kf_status st = status_of(what == EMIT_LLVM ? be_emit_llvm(m->ir, &o, &b, NULL, &m->ctx->diag)
                                             : be_compile_ptx(m->ir, &o, &b, NULL, &m->ctx->diag));
  if (st != KF_OK) {
    sb_free(&b);
    return st;
  }
  return hand_out(m, &b, out, len);
}

kf_status kf_module_emit_llvm(kf_module *m, const kf_codegen_options *opts, char **out, size_t *len) {
  return emit(m, opts, EMIT_LLVM, out, len);
}

kf_status kf_module_emit_ltoir(kf_module *m, const kf_codegen_options *opts, char **out, size_t *len) {
  return emit(m, opts, EMIT_LTOIR, out, len);
}

kf_status kf_module_emit_lto_ptx(kf_module *m, const kf_codegen_options *opts, const kf_link_input *links,
                                 unsigned nlinks, const char *const *include_dirs, unsigned ninclude_dirs, char **out,
                                 size_t *len) {
  API_CONTEXT(m->ctx);
  *out = NULL;
  if (len) *len = 0;
  if ((nlinks && !links) || (ninclude_dirs && !include_dirs)) {
    diag_error(&m->ctx->diag, (SrcLoc){0}, "kf_module_emit_lto_ptx: a count of links or include folders with none");
    return KF_ERROR_INVALID_INPUT;
  }
  BackendOptions o;
  if (!to_backend_options(m, "kf_module_emit_lto_ptx", opts, &o)) return KF_ERROR_INVALID_INPUT;
  o.lto = true;
  StrBuf ltoir;
  sb_init(&ltoir);
  kf_status st = status_of(be_compile_ptx(m->ir, &o, &ltoir, NULL, &m->ctx->diag));
  BeLinkInput *inputs = st == KF_OK ? mem_alloc(sizeof *inputs * (nlinks ? nlinks : 1)) : NULL;
  unsigned nc = 0;
  BeLinkCaller *callers = inputs ? be_link_callers(m->ir, NULL, &nc) : NULL;
  if (st == KF_OK && !callers) st = api_out_of_memory(m->ctx);
  for (unsigned i = 0; st == KF_OK && i < nlinks; i++)
    inputs[i] = (BeLinkInput){(BeLinkKind)links[i].kind, links[i].name ? links[i].name : "?", links[i].data,
                              links[i].len};
  BeLinkOptions lo = {.arch = o.arch, .lto = true, .ptx = true, .lineinfo = o.lineinfo,
                      .include_dirs = include_dirs, .ninclude_dirs = ninclude_dirs};
  StrBuf b;
  sb_init(&b);
  if (st == KF_OK)
    st = status_of(be_link(ltoir.data, ltoir.len, inputs, nlinks, &lo, callers, nc, &b, &m->ctx->diag));
  mem_free(inputs);
  mem_free(callers);
  sb_free(&ltoir);
  if (st != KF_OK) {
    sb_free(&b);
    return st;
  }
  return hand_out(m, &b, out, len);
}

void kf_cuda_paths_init(kf_cuda_paths *paths) {
  memset(paths, 0, sizeof *paths);
  paths->struct_size = sizeof *paths;
}

kf_status kf_configure_cuda_paths(const kf_cuda_paths *given) {
  kf_cuda_paths none;
  if (API_READ_OPTIONS(NULL, "kf_configure_cuda_paths", kf_cuda_paths, verify, given, &none) != KF_OK)
    return KF_ERROR_INVALID_INPUT;
  const kf_cuda_paths *p = &none;
  CudaPathsConfig c = {.lib = {[CUDA_LIB_NVVM] = p->libnvvm, [CUDA_LIB_LIBDEVICE] = p->libdevice,
                               [CUDA_LIB_NVRTC] = p->libnvrtc, [CUDA_LIB_NVJITLINK] = p->libnvjitlink},
                       .cuda_home = p->cuda_home,
                       .conda_prefix = p->conda_prefix,
                       .site_packages = p->site_packages,
                       .system_toolkit = p->system_toolkit,
                       .verify = p->verify != 0};
  return cuda_paths_configure(&c) ? KF_OK : KF_ERROR_UNSUPPORTED;
}

kf_status kf_cuda_library_find(kf_cuda_library which, kf_cuda_library_info *out) {
  memset(out, 0, sizeof *out);
  int version[2] = {0, 0};
  switch (which) {  /* each loads once, process-wide, unguarded (nvvm.c, link.c) */
  case KF_CUDA_LIBNVVM: nvvm_found(&out->path, &out->found_by, &out->error, version); break;
  case KF_CUDA_LIBDEVICE: nvvm_libdevice_found(&out->path, &out->found_by, &out->error); break;
  case KF_CUDA_NVRTC: be_link_found(CUDA_LIB_NVRTC, &out->path, &out->found_by, &out->error, version); break;
  case KF_CUDA_NVJITLINK: be_link_found(CUDA_LIB_NVJITLINK, &out->path, &out->found_by, &out->error, version); break;
  default: return KF_ERROR_INVALID_INPUT;
  }
  out->name = cuda_lib_name((CudaLib)which);
  out->version_major = version[0];
  out->version_minor = version[1];
  return out->path ? KF_OK : KF_ERROR_NOT_FOUND;
}

kf_status kf_link_kind_of(const char *name, kf_link_kind *out) {
  BeLinkKind k;
  if (!name || !out || !be_link_kind_of(name, &k)) return KF_ERROR_INVALID_INPUT;
  *out = (kf_link_kind)k;
  return KF_OK;
}

void kf_nvrtc_options_init(kf_nvrtc_options *opts) {
  memset(opts, 0, sizeof *opts);
  opts->struct_size = sizeof *opts;
}

kf_status kf_nvrtc_compile(kf_context *ctx, const char *name, const char *src, size_t len,
                           const kf_nvrtc_options *given, char **out, size_t *out_len) {
  API_CONTEXT(ctx);
  *out = NULL;
  if (out_len) *out_len = 0;
  kf_nvrtc_options none;
  kf_status read = API_READ_OPTIONS(&ctx->diag, "kf_nvrtc_compile", kf_nvrtc_options, ninclude_dirs, given, &none);
  if (read != KF_OK) return read;
  const kf_nvrtc_options *opts = &none;
  if (!name || (len && !src) || (opts->ninclude_dirs && !opts->include_dirs)) {
    diag_error(&ctx->diag, (SrcLoc){0}, "kf_nvrtc_compile: no name, or a length with no source or include folders");
    return KF_ERROR_INVALID_INPUT;
  }
  BeLinkInput cu = {BE_LINK_CU, name, src ? src : "", len};
  BeLinkOptions lo = {.arch = opts->arch, .lineinfo = opts->lineinfo != 0, .debug = opts->debug != 0,
                      .include_dirs = opts->include_dirs, .ninclude_dirs = opts->ninclude_dirs};
  StrBuf b;
  sb_init(&b);
  BeStatus bs = be_nvrtc_compile(&cu, &lo, opts->ltoir != 0, &b, &ctx->diag);
  if (bs != BE_OK) {
    sb_free(&b);
    return status_of(bs);
  }
  size_t n = b.len;
  *out = sb_take(&b);
  if (!*out) return api_out_of_memory(ctx);
  if (out_len) *out_len = n;
  return KF_OK;
}

kf_status kf_nvrtc_supported_archs(kf_context *ctx, int *archs, unsigned cap, unsigned *n) {
  API_CONTEXT(ctx);
  return be_nvrtc_supported_archs(archs, cap, n, &ctx->diag) ? KF_OK : KF_ERROR_NOT_FOUND;
}

kf_status kf_module_emit_ptx(kf_module *m, const kf_codegen_options *opts, char **out, size_t *len) {
  return emit(m, opts, EMIT_PTX, out, len);
}
