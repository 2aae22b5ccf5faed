/* link.c — linking foreign device code into a kernel module: NVRTC compiles CUDA C/C++ sources, nvJitLink links
 * kfront's module (PTX, or libNVVM's LTO-IR) with the inputs (.cu, .ptx, .cubin, .fatbin, .ltoir, .o, .a) into
 * one cubin for an sm_XY. With LTO the module and every input that can be (a .cu compiled to LTO-IR, .ltoir)
 * are optimised together, so a foreign device function can be inlined into the kernel that calls it; the same
 * link can give the PTX of that optimised program instead of a cubin (BeLinkOptions.ptx: nvJitLink's -ptx,
 * numba-cuda's inspect_lto_ptx).
 *
 * Both libraries are loaded with dlopen at first use, as libNVVM is (nvvm.c), each once (pthread_once), with the
 * default allocator and the guard paused (utils/mem.h: what is loaded once is process-wide). Where they are looked
 * for is cuda_paths.c's search (the library's own setting, conda, NVIDIA's pip wheels, CUDA_HOME, /usr/local/cuda,
 * the loader's path); a failure message names every place searched. NVRTC's headers are those beside the NVRTC
 * found (<its folder>/../include), else CUDA_HOME's, else /usr/local/cuda's. nvrtc.h and nvJitLink.h are not
 * needed: the few prototypes are here.
 *
 * Errors: NVRTC's log is parsed into located diagnostics, one per "file(line): error: message", at the line
 * of the .cu itself (its text is registered with the Diag so the line is quoted with a caret); nvJitLink's log
 * is reported whole, and an undefined symbol among them names the kernels that call it (be_link's callers
 * argument). */
#define _GNU_SOURCE /* memmem */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend/backend.h"
#include "utils/mem.h"

/* ---- the libraries -------------------------------------------------------------------------------------------- */

typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;
typedef int nvJitLinkResult;
typedef struct nvJitLink *nvJitLinkHandle;

/* nvJitLink's input types (nvJitLinkInputType) */
enum { JL_CUBIN = 1, JL_PTX = 2, JL_LTOIR = 3, JL_FATBIN = 4, JL_OBJECT = 5, JL_LIBRARY = 6 };

typedef struct NvrtcApi {
  const char *(*GetErrorString)(nvrtcResult);
  nvrtcResult (*Version)(int *, int *);
  nvrtcResult (*CreateProgram)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                               const char *const *);
  nvrtcResult (*DestroyProgram)(nvrtcProgram *);
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char *const *);
  nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t *);
  nvrtcResult (*GetPTX)(nvrtcProgram, char *);
  nvrtcResult (*GetLTOIRSize)(nvrtcProgram, size_t *);
  nvrtcResult (*GetLTOIR)(nvrtcProgram, char *);
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t *);
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char *);
  nvrtcResult (*GetNumSupportedArchs)(int *);  /* (CUDA 11.2 on: NULL in an older NVRTC) */
  nvrtcResult (*GetSupportedArchs)(int *);
} NvrtcApi;

typedef struct JitLinkApi {
  nvJitLinkResult (*Create)(nvJitLinkHandle *, uint32_t, const char **);
  nvJitLinkResult (*Destroy)(nvJitLinkHandle *);
  nvJitLinkResult (*AddData)(nvJitLinkHandle, int, const void *, size_t, const char *);
  nvJitLinkResult (*Complete)(nvJitLinkHandle);
  nvJitLinkResult (*GetLinkedCubinSize)(nvJitLinkHandle, size_t *);
  nvJitLinkResult (*GetLinkedCubin)(nvJitLinkHandle, void *);
  nvJitLinkResult (*GetLinkedPtxSize)(nvJitLinkHandle, size_t *);
  nvJitLinkResult (*GetLinkedPtx)(nvJitLinkHandle, char *);
  nvJitLinkResult (*GetErrorLogSize)(nvJitLinkHandle, size_t *);
  nvJitLinkResult (*GetErrorLog)(nvJitLinkHandle, char *);
  nvJitLinkResult (*Version)(unsigned *, unsigned *);
} JitLinkApi;

/* One dlopen'd library: where it was found, or why it was not. */
typedef struct Library {
  CudaLib which;
  const char *what;          /* "NVRTC" */
  const char *prefix;        /* of its symbols: "nvrtc", "nvJitLink" */
  void *handle;
  const char *path;
  const char *found_by;      /* cuda_paths_search's answer */
  const char *error;
  int version[2];
} Library;

static Library nvrtc_lib = {.which = CUDA_LIB_NVRTC, .what = "NVRTC", .prefix = "nvrtc"};
static Library jitlink_lib = {.which = CUDA_LIB_NVJITLINK, .what = "nvJitLink", .prefix = "nvJitLink"};
static NvrtcApi nvrtc;
static JitLinkApi jitlink;
static pthread_once_t nvrtc_once = PTHREAD_ONCE_INIT, jitlink_once = PTHREAD_ONCE_INIT;

/* cuda_paths_search's callback: dlopen of path into the Library (the StrBuf of tried places is its `tried`). */
typedef struct OpenJob {
  Library *lib;
  StrBuf *tried;
} OpenJob;

static bool open_path(const char *path, void *user) {
  OpenJob *j = user;
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    sb_printf(j->tried, "\n  %s: %s", path, why ? why : "cannot be loaded");
    return false;
  }
  j->lib->handle = h;
  j->lib->path = mem_strdup(path);
  return true;
}

static void find_library(Library *lib) {
  StrBuf tried;
  sb_init(&tried);
  OpenJob j = {lib, &tried};
  lib->found_by = cuda_paths_search(lib->which, NULL, open_path, &j, &tried);
  if (!lib->found_by) {
    StrBuf msg;
    sb_init(&msg);
    sb_printf(&msg, "%s not found (needed to link foreign code into a kernel: install NVIDIA's wheels: pip install "
              "'kfront-cuda[cu13]', or the CUDA toolkit; set %s or CUDA_HOME); searched:%s", lib->what,
              lib->which == CUDA_LIB_NVRTC ? "KFRONT_LIBNVRTC" : "KFRONT_LIBNVJITLINK", sb_cstr(&tried));
    lib->error = sb_take(&msg);
    if (!lib->error) lib->error = "a library to link foreign code with was not found (out of memory while searching)";
  }
  sb_free(&tried);
}

/* Looks up prefix+name; on a miss records why in lib->error. */
static void *symbol(Library *lib, const char *name) {
  if (lib->error) return NULL;
  char full[128];
  snprintf(full, sizeof full, "%s%s", lib->prefix, name);
  void *p = dlsym(lib->handle, full);
  if (!p) {
    char buf[4400];
    snprintf(buf, sizeof buf, "%s at %s lacks %s", lib->what, lib->path ? lib->path : "?", full);
    lib->error = mem_strdup(buf);
    if (!lib->error) lib->error = "a library to link foreign code with lacks a function kfront needs";
  }
  return p;
}

/* NVRTC dlopens libnvrtc-builtins.so.M.m (and its .alt twin) by name when it compiles; it has no RPATH, so where
 * its folder is not on the loader's path (NVIDIA's pip wheels, a toolkit found through CUDA_HOME) that fails
 * ("failed to open libnvrtc-builtins.so.13.0"). Loading them first from the folder NVRTC was found in makes that
 * dlopen find the loaded library by its soname. The handles stay open, as NVRTC's does. */
static void preload_nvrtc_builtins(void) {
  const char *slash = strrchr(nvrtc_lib.path, '/');
  if (!slash || !nvrtc_lib.version[0]) return;
  static const char *const names[] = {"libnvrtc-builtins.so", "libnvrtc-builtins.alt.so"};
  for (unsigned i = 0; i < 2; i++) {
    char path[4400];
    snprintf(path, sizeof path, "%.*s/%s.%d.%d", (int)(slash - nvrtc_lib.path), nvrtc_lib.path, names[i],
             nvrtc_lib.version[0], nvrtc_lib.version[1]);
    struct stat st;
    if (stat(path, &st) == 0) dlopen(path, RTLD_NOW | RTLD_LOCAL);
  }
}

static void load_nvrtc_now(void) {
  find_library(&nvrtc_lib);
  if (nvrtc_lib.error) return;
#define SYM(f) *(void **)&nvrtc.f = symbol(&nvrtc_lib, #f)
  SYM(GetErrorString);
  SYM(Version);
  SYM(CreateProgram);
  SYM(DestroyProgram);
  SYM(CompileProgram);
  SYM(GetPTXSize);
  SYM(GetPTX);
  SYM(GetLTOIRSize);
  SYM(GetLTOIR);
  SYM(GetProgramLogSize);
  SYM(GetProgramLog);
#undef SYM
  if (!nvrtc_lib.error) {
    *(void **)&nvrtc.GetNumSupportedArchs = dlsym(nvrtc_lib.handle, "nvrtcGetNumSupportedArchs");
    *(void **)&nvrtc.GetSupportedArchs = dlsym(nvrtc_lib.handle, "nvrtcGetSupportedArchs");
  }
  if (!nvrtc_lib.error && nvrtc.Version(&nvrtc_lib.version[0], &nvrtc_lib.version[1]) != 0)
    nvrtc_lib.version[0] = nvrtc_lib.version[1] = 0;
  if (!nvrtc_lib.error) preload_nvrtc_builtins();
}

static void load_jitlink_now(void) {
  find_library(&jitlink_lib);
  if (jitlink_lib.error) return;
#define SYM(f) *(void **)&jitlink.f = symbol(&jitlink_lib, #f)
  SYM(Create);
  SYM(Destroy);
  SYM(AddData);
  SYM(Complete);
  SYM(GetLinkedCubinSize);
  SYM(GetLinkedCubin);
  SYM(GetLinkedPtxSize);
  SYM(GetLinkedPtx);
  SYM(GetErrorLogSize);
  SYM(GetErrorLog);
  SYM(Version);
#undef SYM
  unsigned major = 0, minor = 0;
  if (!jitlink_lib.error && jitlink.Version(&major, &minor) == 0) {
    jitlink_lib.version[0] = (int)major;
    jitlink_lib.version[1] = (int)minor;
  }
}

/* The once-initialisations: process-wide, so with the default allocator and no guard (see the top). */
static void once_unguarded(void (*fn)(void)) {
  MemGuard *g = mem_guard_pause();
  MemAllocator prev = mem_set_allocator(mem_default_allocator());
  fn();
  mem_set_allocator(prev);
  mem_guard_resume(g);
}
static void load_nvrtc(void) { once_unguarded(load_nvrtc_now); }
static void load_jitlink(void) { once_unguarded(load_jitlink_now); }

bool be_nvrtc_load(Diag *diag) {
  pthread_once(&nvrtc_once, load_nvrtc);
  if (nvrtc_lib.error) diag_error(diag, (SrcLoc){0}, "%s", nvrtc_lib.error);
  return !nvrtc_lib.error;
}

bool be_jitlink_load(Diag *diag) {
  pthread_once(&jitlink_once, load_jitlink);
  if (jitlink_lib.error) diag_error(diag, (SrcLoc){0}, "%s", jitlink_lib.error);
  return !jitlink_lib.error;
}

bool be_nvrtc_supported_archs(int *archs, unsigned cap, unsigned *n, Diag *diag) {
  *n = 0;
  if (!be_nvrtc_load(diag)) return false;
  int count = 0;
  if (!nvrtc.GetNumSupportedArchs || !nvrtc.GetSupportedArchs || nvrtc.GetNumSupportedArchs(&count) != 0 ||
      count < 0) {
    diag_error(diag, (SrcLoc){0}, "NVRTC (%s) cannot list the architectures it compiles for "
               "(nvrtcGetSupportedArchs)", nvrtc_lib.path);
    return false;
  }
  int *all = mem_alloc(sizeof *all * (size_t)(count ? count : 1));
  bool ok = nvrtc.GetSupportedArchs(all) == 0;
  for (int i = 0; ok && i < count && *n < cap; i++) archs[(*n)++] = all[i];
  mem_free(all);
  if (!ok) diag_error(diag, (SrcLoc){0}, "NVRTC: nvrtcGetSupportedArchs failed");
  return ok;
}

void be_link_found(CudaLib which, const char **path, const char **found_by, const char **error, int version[2]) {
  Library *lib = which == CUDA_LIB_NVRTC ? &nvrtc_lib : &jitlink_lib;
  pthread_once(which == CUDA_LIB_NVRTC ? &nvrtc_once : &jitlink_once,
               which == CUDA_LIB_NVRTC ? load_nvrtc : load_jitlink);
  *path = lib->error ? NULL : lib->path;
  *found_by = lib->error ? NULL : lib->found_by;
  *error = lib->error;
  version[0] = lib->error ? 0 : lib->version[0];
  version[1] = lib->error ? 0 : lib->version[1];
}

/* The header folders NVRTC compiles a .cu with, found once after NVRTC (cuda_paths.c: CUDA's headers beside the NVRTC
 * found, else in conda, the wheels, CUDA_HOME, the system toolkit; CCCL's beside those, else likewise): "" where
 * none was found (NVRTC then names the #include it cannot open). */
static struct {
  pthread_once_t once;
  char cuda[4200], cccl[4200];
} headers = {PTHREAD_ONCE_INIT};

typedef struct HeaderJob {
  char *dir;           /* the folder, out */
  const char *header;  /* the file it was found by, under it */
} HeaderJob;

static bool take_header_dir(const char *path, void *user) {
  HeaderJob *j = user;
  size_t n = strlen(path), h = strlen(j->header);
  n = n > h + 1 ? n - h - 1 : n;
  if (n > 2 && path[n - 1] == '.' && path[n - 2] == '/') n -= 2; /* "<include>/." (CCCL's beside_dirs) */
  snprintf(j->dir, sizeof headers.cuda, "%.*s", (int)n, path);
  return true;
}

static void find_headers(void) {
  StrBuf tried;
  sb_init(&tried);
  HeaderJob cuda = {headers.cuda, "cuda_runtime.h"}, cccl = {headers.cccl, "cuda/std/version"};
  if (!cuda_paths_search(CUDA_HEADERS_CUDA, nvrtc_lib.path, take_header_dir, &cuda, &tried)) headers.cuda[0] = 0;
  char runtime_h[4300];
  snprintf(runtime_h, sizeof runtime_h, "%s/cuda_runtime.h", headers.cuda);
  if (!cuda_paths_search(CUDA_HEADERS_CCCL, headers.cuda[0] ? runtime_h : NULL, take_header_dir, &cccl, &tried))
    headers.cccl[0] = 0;
  sb_free(&tried);
}

/* ---- input kinds ---------------------------------------------------------------------------------------------- */

static const struct {
  const char *ext;
  BeLinkKind kind;
} extensions[] = {
    {".cu", BE_LINK_CU},         {".ptx", BE_LINK_PTX},     {".cubin", BE_LINK_CUBIN}, {".fatbin", BE_LINK_FATBIN},
    {".ltoir", BE_LINK_LTOIR},   {".o", BE_LINK_OBJECT},    {".a", BE_LINK_LIBRARY},
};

bool be_link_kind_of(const char *name, BeLinkKind *kind) {
  size_t n = strlen(name);
  for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++) {
    size_t e = strlen(extensions[i].ext);
    if (n >= e && strcmp(name + n - e, extensions[i].ext) == 0) {
      *kind = extensions[i].kind;
      return true;
    }
  }
  return false;
}

const char *be_link_kind_extension(BeLinkKind kind) {
  for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++)
    if (extensions[i].kind == kind) return extensions[i].ext;
  return NULL;
}

const char *be_link_kind_name(BeLinkKind kind) {
  switch (kind) {
  case BE_LINK_CU: return "CUDA C/C++ source";
  case BE_LINK_PTX: return "PTX";
  case BE_LINK_CUBIN: return "cubin";
  case BE_LINK_FATBIN: return "fatbin";
  case BE_LINK_LTOIR: return "LTO-IR";
  case BE_LINK_OBJECT: return "object";
  case BE_LINK_LIBRARY: return "archive";
  }
  return "?";
}

/* ---- NVRTC ---------------------------------------------------------------------------------------------------- */

static void destroy_nvrtc_program(void *prog) {
  nvrtcProgram p = prog;
  nvrtc.DestroyProgram(&p);
}

/* The column NVRTC's caret points at: after a located line it quotes the source line and a caret under the
 * character, each indented by two spaces ("    return nope;\n           ^"); 0 when the lines after `after` are
 * not such a pair. */
static unsigned caret_column(const char *after) {
  const char *quoted = after, *nl = strchr(quoted, '\n');
  if (!nl || strncmp(quoted, "  ", 2) != 0) return 0;
  const char *caret_line = nl + 1;
  size_t n = strcspn(caret_line, "\n");
  size_t lead = strspn(caret_line, " \t");
  if (lead + 1 != n || caret_line[lead] != '^' || lead < 2) return 0;
  return (unsigned)(lead - 2 + 1);
}

/* One line of NVRTC's log, "file(12): error: message" (or warning), as a located diagnostic, its column that of
 * the caret NVRTC quotes under the source line after it (those two lines are dropped: the Diag quotes the line
 * itself). Lines of no such form (the summary "1 error detected in the compilation of ...") are left out; false
 * when the line was not one. */
static bool report_log_line(const char *line, size_t len, unsigned col, Diag *diag) {
  const char *open = memchr(line, '(', len);
  if (!open || open == line) return false;
  char *end = NULL;
  unsigned long lineno = strtoul(open + 1, &end, 10);
  if (!end || end == open + 1 || (size_t)(end - line) + 3 > len || end[0] != ')' || end[1] != ':' || end[2] != ' ')
    return false;
  const char *rest = end + 3;
  size_t rest_len = len - (size_t)(rest - line);
  bool warning = rest_len >= 8 && memcmp(rest, "warning:", 8) == 0;
  bool error = rest_len >= 6 && memcmp(rest, "error:", 6) == 0;
  if (!warning && !error) return false;
  rest += warning ? 8 : 6;
  rest_len -= warning ? 8 : 6;
  while (rest_len && *rest == ' ') rest++, rest_len--;
  char file[4096];
  snprintf(file, sizeof file, "%.*s", (int)(open - line), line);
  SrcLoc loc = {file, (unsigned)lineno, col};
  if (warning) diag_warning(diag, loc, "NVRTC: %.*s", (int)rest_len, rest);
  else diag_error(diag, loc, "NVRTC: %.*s", (int)rest_len, rest);
  return true;
}

/* Reports NVRTC's log: located lines as diagnostics; when none was located, the whole log. */
static void report_nvrtc_log(const char *name, const char *log, bool failed, Diag *diag) {
  unsigned located = 0;
  for (const char *p = log; *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    if (report_log_line(p, n, nl ? caret_column(nl + 1) : 0, diag)) located++;
    p += n + (nl ? 1 : 0);
  }
  if (failed && !located) diag_error(diag, (SrcLoc){0}, "NVRTC cannot compile %s:\n%s", name, log);
}

static char *nvrtc_log(nvrtcProgram prog) {
  size_t n = 0;
  char *log = NULL;
  if (nvrtc.GetProgramLogSize(prog, &n) != 0 || n < 2 || !(log = mem_alloc(n + 1))) return NULL;
  if (nvrtc.GetProgramLog(prog, log) != 0) {
    mem_free(log);
    return NULL;
  }
  log[n] = 0;
  size_t l = strlen(log);
  while (l && (log[l - 1] == '\n' || log[l - 1] == '\r')) log[--l] = 0;
  return log;
}

BeStatus be_nvrtc_compile(const BeLinkInput *cu, const BeLinkOptions *o, bool lto, StrBuf *out, Diag *diag) {
  if (!be_nvrtc_load(diag)) return BE_NOT_FOUND;
  /* the text NVRTC compiles is NUL-terminated; the Diag quotes its lines in the diagnostics */
  char *src = mem_alloc(cu->len + 1);
  memcpy(src, cu->data, cu->len);
  src[cu->len] = 0;
  diag_add_source(diag, cu->name, src, cu->len);
  nvrtcProgram prog = NULL;
  nvrtcResult r = nvrtc.CreateProgram(&prog, src, cu->name, 0, NULL, NULL);
  if (r != 0) {
    diag_error(diag, (SrcLoc){0}, "NVRTC: nvrtcCreateProgram for %s failed (%s)", cu->name, nvrtc.GetErrorString(r));
    diag_remove_source(diag, src);
    mem_free(src);
    return BE_FAILED;
  }
  mem_guard_defer(destroy_nvrtc_program, prog);
  /* as numba-cuda compiles a linked .cu: for the sm_XY the kernel is built for, relocatable device code (the
   * device functions stay, to be linked), LTO-IR when the link is optimised; CUDA's and CCCL's headers (found by
   * cuda_paths.c), then the embedder's folders (numba-cuda's CUDA_NVRTC_EXTRA_SEARCH_PATHS) */
  unsigned nopts = 0;
  const char **opts = mem_alloc(sizeof *opts * (8 + 2 * (size_t)o->ninclude_dirs));
  char arch[32];
  snprintf(arch, sizeof arch, "-arch=sm_%u", o->arch ? o->arch : 90);
  opts[nopts++] = arch;
  opts[nopts++] = "-rdc=true";
  if (lto) opts[nopts++] = "-dlto";
  if (o->lineinfo) opts[nopts++] = "-lineinfo";
  if (o->debug) opts[nopts++] = "-G";
  StrBuf inc;  /* the -I options, each NUL-terminated */
  sb_init(&inc);
  pthread_once(&headers.once, find_headers);
  const char *dirs[2] = {headers.cuda, strcmp(headers.cccl, headers.cuda) != 0 ? headers.cccl : ""};
  for (unsigned i = 0; i < 2 + o->ninclude_dirs; i++) {
    const char *d = i < 2 ? dirs[i] : o->include_dirs[i - 2];
    if (!*d) continue;
    sb_printf(&inc, "-I%s", d);
    sb_putc(&inc, 0);
  }
  const char *incs = sb_cstr(&inc);
  for (size_t at = 0; !sb_failed(&inc) && at < inc.len; at += strlen(incs + at) + 1) opts[nopts++] = incs + at;
  r = nvrtc.CompileProgram(prog, (int)nopts, opts);
  char *log = nvrtc_log(prog);
  BeStatus st = BE_OK;
  if (r != 0 || log) report_nvrtc_log(cu->name, log ? log : nvrtc.GetErrorString(r), r != 0, diag);
  if (r != 0) {
    st = BE_FAILED;
  } else {
    size_t n = 0;
    r = lto ? nvrtc.GetLTOIRSize(prog, &n) : nvrtc.GetPTXSize(prog, &n);
    char *buf = r == 0 ? mem_alloc(n + 1) : NULL;
    if (buf) r = lto ? nvrtc.GetLTOIR(prog, buf) : nvrtc.GetPTX(prog, buf);
    if (r != 0 || !buf) {
      diag_error(diag, (SrcLoc){0}, "NVRTC: cannot read the %s of %s (%s)", lto ? "LTO-IR" : "PTX", cu->name,
                 nvrtc.GetErrorString(r));
      st = BE_FAILED;
    } else {
      sb_putn(out, buf, lto ? n : strlen(buf)); /* PTX: NUL-terminated text; LTO-IR: n bytes */
    }
    mem_free(buf);
  }
  mem_free(log);
  sb_free(&inc);
  mem_free(opts);
  mem_guard_undefer(destroy_nvrtc_program, prog);
  nvrtc.DestroyProgram(&prog);
  diag_remove_source(diag, src);
  mem_free(src);
  return st;
}

/* ---- nvJitLink ------------------------------------------------------------------------------------------------ */

static void destroy_jitlink(void *h) {
  nvJitLinkHandle handle = h;
  jitlink.Destroy(&handle);
}

/* nvJitLink's error log, or NULL. */
static char *jitlink_log(nvJitLinkHandle h) {
  size_t n = 0;
  char *log = NULL;
  if (jitlink.GetErrorLogSize(h, &n) != 0 || n < 2 || !(log = mem_alloc(n + 1))) return NULL;
  if (jitlink.GetErrorLog(h, log) != 0) {
    mem_free(log);
    return NULL;
  }
  log[n] = 0;
  size_t l = strlen(log);
  while (l && (log[l - 1] == '\n' || log[l - 1] == '\r')) log[--l] = 0;
  return log;
}

/* "Undefined reference to 'sym'" in nvJitLink's log (under LTO ptxas's "Unresolved extern function 'sym'"): a
 * note naming the kernels that call sym. */
static void name_callers(const char *log, const BeLinkCaller *callers, unsigned ncallers, Diag *diag) {
  static const char *const markers[2] = {"Undefined reference to '", "Unresolved extern function '"};
  for (unsigned k = 0; k < 2; k++)
    for (const char *p = strstr(log, markers[k]); p; p = strstr(p, markers[k])) {
      p += strlen(markers[k]);
      const char *q = strchr(p, '\'');
      if (!q) break;
      for (unsigned i = 0; i < ncallers; i++)
        if (strlen(callers[i].symbol) == (size_t)(q - p) && memcmp(callers[i].symbol, p, (size_t)(q - p)) == 0)
          diag_error(diag, callers[i].loc, "the foreign function '%s' that kernel '%s' calls is defined by none of "
                     "the linked files (cuda.declare_device(..., link=...), cuda.jit(link=...))", callers[i].symbol,
                     callers[i].kernel);
    }
}

BeLinkCaller *be_link_callers(Module *m, const char *kernel, unsigned *n) {
  *n = 0;
  unsigned nforeign = 0;
  for (Op *op = ir_module_body(m)->first; op; op = op->next) {
    nforeign += op->kind == OP_FUNC_FUNC && ir_op_attr(op, "foreign") != NULL;
    if (!kernel && op->kind == OP_FUNC_FUNC && ir_op_attr(op, "kernel")) kernel = ir_func_name(op);
  }
  BeLinkCaller *callers = mem_alloc(sizeof *callers * (nforeign ? nforeign : 1));
  if (!callers) return NULL;
  for (Op *op = ir_module_body(m)->first; op; op = op->next)
    if (op->kind == OP_FUNC_FUNC && ir_op_attr(op, "foreign"))
      callers[(*n)++] = (BeLinkCaller){ir_func_name(op), kernel ? kernel : "?", op->loc};
  return callers;
}

static bool add_input(nvJitLinkHandle h, int type, const void *data, size_t len, const char *name, Diag *diag) {
  nvJitLinkResult r = jitlink.AddData(h, type, data, len, name);
  if (r == 0) return true;
  char *log = jitlink_log(h);
  diag_error(diag, (SrcLoc){0}, "nvJitLink cannot take %s (error %d)%s%s", name, r, log ? ":\n" : "", log ? log : "");
  mem_free(log);
  return false;
}

static int jitlink_type(BeLinkKind kind) {
  switch (kind) {
  case BE_LINK_PTX: return JL_PTX;
  case BE_LINK_CUBIN: return JL_CUBIN;
  case BE_LINK_FATBIN: return JL_FATBIN;
  case BE_LINK_LTOIR: return JL_LTOIR;
  case BE_LINK_OBJECT: return JL_OBJECT;
  case BE_LINK_LIBRARY: return JL_LIBRARY;
  case BE_LINK_CU: break;
  }
  return 0;
}

typedef struct LinkJob {
  const char *image;
  size_t image_len;
  const BeLinkInput *inputs;
  unsigned ninputs;
  const BeLinkOptions *o;
  const BeLinkCaller *callers;
  unsigned ncallers;
  Diag *diag;
  StrBuf out;  /* the cubin, or (o->ptx) the PTX text */
  BeStatus st;
} LinkJob;

/* Whether code holds LTO-IR: a fatbin (and each fatbin embedded in an object or in an archive's objects, found by
 * its header's magic) with an entry of kind 8 (NVVM's LTO-IR; 1 is PTX, 2 a cubin), as cuobjdump would list it
 * (numba-cuda asks cuobjdump for an "nvvm" entry). Fatbin header: u32 magic, u16 version, u16 header size, u64 the
 * entries' size; entry: u16 kind, u16 flags, u32 header size, u64 payload size. */
static bool holds_ltoir(const unsigned char *data, size_t len) {
  static const unsigned char magic[4] = {0x50, 0xed, 0x55, 0xba}; /* 0xBA55ED50, little-endian */
  for (const unsigned char *p = data; len >= 16 && (p = memmem(p, len - (size_t)(p - data), magic, 4));) {
    size_t at = (size_t)(p - data);
    if (len - at < 16) break;
    uint16_t hsize;
    uint64_t fsize;
    memcpy(&hsize, p + 6, 2);
    memcpy(&fsize, p + 8, 8);
    size_t end = hsize >= 16 && hsize <= len - at && fsize <= len - at - hsize ? at + hsize + (size_t)fsize : at + 4;
    for (size_t e = at + hsize; end > at + 4 && e + 16 <= end;) {
      uint16_t kind;
      uint32_t ehsize;
      uint64_t esize;
      memcpy(&kind, data + e, 2);
      memcpy(&ehsize, data + e + 4, 4);
      memcpy(&esize, data + e + 8, 8);
      if (kind == 8) return true;
      if (ehsize < 16 || esize > end - e || ehsize > end - e - esize) break;
      e += ehsize + (size_t)esize;
    }
    p += 4;
  }
  return false;
}

/* Whether an input is or holds LTO-IR: a .ltoir, or a fatbin, object or archive with an LTO-IR entry. */
static bool holds_lto_ir_input(const BeLinkInput *in) {
  if (in->kind == BE_LINK_LTOIR) return true;
  return in->kind != BE_LINK_CU && in->kind != BE_LINK_PTX && in->kind != BE_LINK_CUBIN &&
         holds_ltoir((const unsigned char *)in->data, in->len);
}

/* With o->ptx: whether an input takes part in the link-time optimisation whose PTX nvJitLink gives (it refuses to
 * give PTX with any other input). PTX, cubins, and fatbins, objects or archives holding no LTO-IR do not: each is
 * left out with a warning, as numba-cuda's get_lto_ptx leaves them out (ignore_nonlto). */
static bool optimised_input(const BeLinkInput *in, Diag *diag) {
  if (in->kind == BE_LINK_CU || holds_lto_ir_input(in)) return true;
  diag_warning(diag, (SrcLoc){0}, "Not adding %s (%s) to the link-time optimised PTX (inspect_lto_ptx) as it is not "
               "optimizable at link time, and `ignore_nonlto == True` (numba-cuda's words: it holds no LTO-IR)",
               in->name, be_link_kind_name(in->kind));
  return false;
}

/* nvJitLink's result: the cubin, or with o->ptx the PTX (text, without its NUL), into j->out. */
static void take_result(LinkJob *j, nvJitLinkHandle h) {
  bool ptx = j->o->ptx;
  size_t n = 0;
  char *buf = NULL;
  nvJitLinkResult r = ptx ? jitlink.GetLinkedPtxSize(h, &n) : jitlink.GetLinkedCubinSize(h, &n);
  if (r == 0 && (buf = mem_alloc(n ? n : 1))) r = ptx ? jitlink.GetLinkedPtx(h, buf) : jitlink.GetLinkedCubin(h, buf);
  if (r != 0 || !buf) {
    diag_error(j->diag, (SrcLoc){0}, "nvJitLink: cannot read the linked %s (error %d)", ptx ? "PTX" : "cubin", r);
  } else {
    sb_putn(&j->out, buf, ptx ? strnlen(buf, n) : n);
    j->st = BE_OK;
  }
  mem_free(buf);
}

/* The link by the driver's linker (nvJitLink not found): kfront's PTX and the inputs, each .cu as NVRTC's PTX; an
 * input that is or holds LTO-IR is refused, naming it, since only nvJitLink links LTO-IR. */
static void driver_link_job(LinkJob *j) {
  j->st = BE_FAILED;
  for (unsigned i = 0; i < j->ninputs; i++) {
    const BeLinkInput *in = &j->inputs[i];
    if (holds_lto_ir_input(in)) {
      diag_error(j->diag, (SrcLoc){0}, "%s (%s) holds LTO-IR, which only nvJitLink links, and %s", in->name,
                 be_link_kind_name(in->kind), jitlink_lib.error);
      return;
    }
  }
  BeLinkInput *all = mem_alloc(sizeof *all * (j->ninputs + 1));
  StrBuf *codes = mem_alloc(sizeof *codes * (j->ninputs ? j->ninputs : 1));
  if (!all || !codes) {
    mem_free(all);
    mem_free(codes);
    diag_out_of_memory(j->diag);
    j->st = BE_OUT_OF_MEMORY;
    return;
  }
  all[0] = (BeLinkInput){BE_LINK_PTX, "kfront", j->image, j->image_len};
  bool ok = true;
  unsigned ncodes = 0;
  for (unsigned i = 0; ok && i < j->ninputs; i++) {
    all[i + 1] = j->inputs[i];
    if (j->inputs[i].kind != BE_LINK_CU) continue;
    StrBuf *code = &codes[ncodes++];
    sb_init(code);
    ok = be_nvrtc_compile(&j->inputs[i], j->o, false, code, j->diag) == BE_OK;  /* PTX: the driver takes no LTO-IR */
    all[i + 1] = (BeLinkInput){BE_LINK_PTX, j->inputs[i].name, sb_cstr(code), code->len};
  }
  char *log = NULL;
  if (ok && j->o->driver->link(j->o->driver->user, all, j->ninputs + 1, j->o->lineinfo, &j->out, &log, j->diag)) {
    j->st = BE_OK;
  } else if (ok) {
    if (log) name_callers(log, j->callers, j->ncallers, j->diag);
    diag_error(j->diag, (SrcLoc){0}, "the CUDA driver's linker (used as nvJitLink was not found) cannot link the "
               "kernel module%s%s", log ? ":\n" : "", log ? log : "");
  }
  mem_free(log);
  for (unsigned i = 0; i < ncodes; i++) sb_free(&codes[i]);
  mem_free(codes);
  mem_free(all);
}

static void link_job(void *arg) {
  LinkJob *j = arg;
  const BeLinkOptions *o = j->o;
  j->st = BE_FAILED;
  if (o->ptx && !o->lto) {
    diag_error(j->diag, (SrcLoc){0}, "internal error: nvJitLink gives PTX only from a link-time optimised link");
    return;
  }
  j->st = BE_NOT_FOUND;
  for (unsigned i = 0; i < j->ninputs; i++)
    if (j->inputs[i].kind == BE_LINK_CU && !be_nvrtc_load(j->diag)) return;
  pthread_once(&jitlink_once, load_jitlink);
  if (jitlink_lib.error && o->driver && !o->lto && !o->ptx) {
    driver_link_job(j);
    return;
  }
  if (!be_jitlink_load(j->diag)) return;
  j->st = BE_FAILED;
  char arch[32];
  snprintf(arch, sizeof arch, "-arch=sm_%u", o->arch ? o->arch : 90);
  const char *opts[5] = {arch};
  uint32_t nopts = 1;
  /* link-time optimisation when kfront's module is LTO-IR, and whenever an input is or holds LTO-IR: nvJitLink
   * takes LTO-IR only under -lto (the PTX and cubins beside it are linked as they are) */
  bool lto = o->lto;
  for (unsigned i = 0; i < j->ninputs; i++) lto |= holds_lto_ir_input(&j->inputs[i]);
  if (lto) opts[nopts++] = "-lto";
  if (o->ptx) opts[nopts++] = "-ptx";
  if (o->lineinfo) opts[nopts++] = "-lineinfo";
  nvJitLinkHandle h = NULL;
  nvJitLinkResult r = jitlink.Create(&h, nopts, opts);
  if (r != 0) {
    diag_error(j->diag, (SrcLoc){0}, "nvJitLink: nvJitLinkCreate failed (error %d)", r);
    return;
  }
  mem_guard_defer(destroy_jitlink, h);
  bool ok = add_input(h, o->lto ? JL_LTOIR : JL_PTX, j->image, j->image_len, "kfront", j->diag);
  for (unsigned i = 0; ok && i < j->ninputs; i++) {
    const BeLinkInput *in = &j->inputs[i];
    if (o->ptx && !optimised_input(in, j->diag)) continue;
    if (in->kind == BE_LINK_CU) {
      StrBuf code;
      sb_init(&code);
      ok = be_nvrtc_compile(in, o, o->lto, &code, j->diag) == BE_OK &&
           add_input(h, o->lto ? JL_LTOIR : JL_PTX, sb_cstr(&code), code.len, in->name, j->diag);
      sb_free(&code);
      continue;
    }
    /* PTX: nvJitLink reads it as text, NUL-terminated */
    if (in->kind == BE_LINK_PTX && (in->len == 0 || in->data[in->len - 1] != 0)) {
      char *text = mem_alloc(in->len + 1);
      memcpy(text, in->data, in->len);
      text[in->len] = 0;
      ok = add_input(h, JL_PTX, text, in->len + 1, in->name, j->diag);
      mem_free(text);
      continue;
    }
    ok = add_input(h, jitlink_type(in->kind), in->data, in->len, in->name, j->diag);
  }
  if (ok && (r = jitlink.Complete(h)) != 0) {
    char *log = jitlink_log(h);
    if (log) name_callers(log, j->callers, j->ncallers, j->diag);
    diag_error(j->diag, (SrcLoc){0}, "nvJitLink cannot link the kernel module (error %d)%s%s", r, log ? ":\n" : "",
               log ? log : "");
    mem_free(log);
    ok = false;
  }
  if (ok) take_result(j, h);
  mem_guard_undefer(destroy_jitlink, h);
  jitlink.Destroy(&h);
}

BeStatus be_link(const char *image, size_t image_len, const BeLinkInput *inputs, unsigned ninputs,
                 const BeLinkOptions *o, const BeLinkCaller *callers, unsigned ncallers, StrBuf *out, Diag *diag) {
  LinkJob j = {.image = image, .image_len = image_len, .inputs = inputs, .ninputs = ninputs, .o = o,
               .callers = callers, .ncallers = ncallers, .diag = diag};
  sb_init(&j.out);
  if (!diag_guard(diag, link_job, &j)) return BE_OUT_OF_MEMORY;
  if (j.st == BE_OK) {
    sb_putn(out, sb_cstr(&j.out), j.out.len);
    if (sb_failed(out)) {
      diag_out_of_memory(diag);
      j.st = BE_OUT_OF_MEMORY;
    }
  }
  sb_free(&j.out);
  return j.st;
}
