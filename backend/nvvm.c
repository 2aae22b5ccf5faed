/* nvvm.c — libNVVM, loaded with dlopen at first use, and libdevice's bitcode.
 *
 * Where both are looked for is cuda_paths.c's search (the library's own setting, conda, NVIDIA's pip wheels,
 * CUDA_HOME, /usr/local/cuda, the loader's path; libdevice first beside the libNVVM found). Both are loaded once
 * (pthread_once) and then only read,
 * so compiles may run concurrently (libNVVM allows concurrent use of different programs). A failure
 * message names every path tried. nvvm.h is not needed: the few prototypes are declared here.
 *
 * Memory: what is loaded once is process-wide, so it is made with the default allocator and the calling
 * thread's guard paused (utils/mem.h): no context's allocator or guard ever holds it. A compile registers its
 * libNVVM program with the backend's guard while it lives. */
#define _GNU_SOURCE /* memmem */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend/backend.h"
#include "utils/mem.h"

typedef int nvvmResult;
typedef struct _nvvmProgram *nvvmProgram;

typedef struct NvvmApi {
  void *handle;
  char *path;
  const char *(*GetErrorString)(nvvmResult);
  nvvmResult (*Version)(int *, int *);
  nvvmResult (*IRVersion)(int *, int *, int *, int *);
  nvvmResult (*CreateProgram)(nvvmProgram *);
  nvvmResult (*DestroyProgram)(nvvmProgram *);
  nvvmResult (*AddModuleToProgram)(nvvmProgram, const char *, size_t, const char *);
  nvvmResult (*LazyAddModuleToProgram)(nvvmProgram, const char *, size_t, const char *);
  nvvmResult (*CompileProgram)(nvvmProgram, int, const char **);
  nvvmResult (*VerifyProgram)(nvvmProgram, int, const char **);
  nvvmResult (*GetCompiledResultSize)(nvvmProgram, size_t *);
  nvvmResult (*GetCompiledResult)(nvvmProgram, char *);
  nvvmResult (*GetProgramLogSize)(nvvmProgram, size_t *);
  nvvmResult (*GetProgramLog)(nvvmProgram, char *);
  int ir_version[4];
  int version[2];       /* nvvmVersion */
  const char *found_by; /* how the search found it (cuda_paths_search) */
  const char *error;    /* why loading failed (every path searched), or NULL */
  /* libdevice */
  char *libdevice_path;
  const char *libdevice_found_by;
  char *libdevice;
  size_t libdevice_len;
  const char *libdevice_error;
} NvvmApi;

static NvvmApi api;
static pthread_once_t api_once = PTHREAD_ONCE_INIT;
static pthread_once_t libdevice_once = PTHREAD_ONCE_INIT;
static void load_api(void);

static bool open_nvvm(const char *path, void *tried) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    sb_printf(tried, "\n  %s: %s", path, why ? why : "cannot be loaded");
    return false;
  }
  api.handle = h;
  api.path = mem_strdup(path);
  return true;
}

static void load_api_now(void) {
  StrBuf tried;
  sb_init(&tried);
  api.found_by = cuda_paths_search(CUDA_LIB_NVVM, NULL, open_nvvm, &tried, &tried);
  if (!api.found_by) {
    StrBuf msg;
    sb_init(&msg);
    sb_printf(&msg, "libNVVM not found (install NVIDIA's wheels: pip install 'kfront-cuda[cu13]', or the CUDA toolkit; "
              "set KFRONT_LIBNVVM or CUDA_HOME; or use the LLVM backend: --backend=llvm, KFRONT_BACKEND=llvm); "
              "searched:%s", sb_cstr(&tried));
    api.error = sb_take(&msg);
    if (!api.error) api.error = "libNVVM not found (out of memory while searching for it)";
    sb_free(&tried);
    return;
  }
  sb_free(&tried);
#define SYM(name)                                                                                  \
  do {                                                                                             \
    *(void **)&api.name = dlsym(api.handle, "nvvm" #name);                                         \
    if (!api.name) {                                                                               \
      char buf[4400];                                                                              \
      snprintf(buf, sizeof buf, "libNVVM at %s lacks nvvm" #name, api.path ? api.path : "?");    \
      api.error = mem_strdup(buf);                                                                 \
      if (!api.error) api.error = "libNVVM lacks a function kfront needs";                         \
      return;                                                                                      \
    }                                                                                              \
  } while (0)
  SYM(GetErrorString);
  SYM(Version);
  SYM(IRVersion);
  SYM(CreateProgram);
  SYM(DestroyProgram);
  SYM(AddModuleToProgram);
  SYM(LazyAddModuleToProgram);
  SYM(CompileProgram);
  SYM(VerifyProgram);
  SYM(GetCompiledResultSize);
  SYM(GetCompiledResult);
  SYM(GetProgramLogSize);
  SYM(GetProgramLog);
#undef SYM
  int major = 2, minor = 0, dmajor = 3, dminor = 2;
  if (api.IRVersion(&major, &minor, &dmajor, &dminor) != 0) major = 2, minor = 0, dmajor = 3, dminor = 2;
  api.ir_version[0] = major;
  api.ir_version[1] = minor;
  api.ir_version[2] = dmajor;
  api.ir_version[3] = dminor;
  if (api.Version(&api.version[0], &api.version[1]) != 0) api.version[0] = api.version[1] = 0;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    long n = ftell(f);
    if (n > 0 && fseek(f, 0, SEEK_SET) == 0) {
      buf = mem_alloc((size_t)n);
      if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        mem_free(buf);
        buf = NULL;
      }
      *len = (size_t)n;
    }
  }
  fclose(f);
  return buf;
}

static bool read_libdevice(const char *path, void *tried) {
  size_t len = 0;
  char *buf = read_file(path, &len);
  if (!buf) {
    sb_printf(tried, "\n  %s: cannot be read", path);
    return false;
  }
  api.libdevice = buf;
  api.libdevice_len = len;
  api.libdevice_path = mem_strdup(path);
  return true;
}

static void load_libdevice_now(void) {
  StrBuf tried;
  sb_init(&tried);
  pthread_once(&api_once, load_api);
  api.libdevice_found_by = cuda_paths_search(CUDA_LIB_LIBDEVICE, api.path, read_libdevice, &tried, &tried);
  if (!api.libdevice_found_by) {
    StrBuf msg;
    sb_init(&msg);
    sb_printf(&msg, "libdevice (libdevice.10.bc, needed for math functions) not found (install NVIDIA's wheels: pip "
              "install 'kfront-cuda[cu13]', or the CUDA toolkit; set KFRONT_LIBDEVICE or CUDA_HOME); searched:%s",
              sb_cstr(&tried));
    api.libdevice_error = sb_take(&msg);
  }
  sb_free(&tried);
}

/* The once-initialisations: process-wide, so with the default allocator and no guard (see the top). */
static void load_api(void) {
  MemGuard *g = mem_guard_pause();
  MemAllocator prev = mem_set_allocator(mem_default_allocator());
  load_api_now();
  mem_set_allocator(prev);
  mem_guard_resume(g);
}

static void load_libdevice(void) {
  MemGuard *g = mem_guard_pause();
  MemAllocator prev = mem_set_allocator(mem_default_allocator());
  load_libdevice_now();
  mem_set_allocator(prev);
  mem_guard_resume(g);
}

bool nvvm_load(Diag *diag) {
  pthread_once(&api_once, load_api);
  if (api.error) {
    diag_error(diag, (SrcLoc){0}, "%s", api.error);
    return false;
  }
  return true;
}

void nvvm_ir_version(int version[4]) {
  pthread_once(&api_once, load_api);
  static const int fallback[4] = {2, 0, 3, 2};
  for (int i = 0; i < 4; i++) version[i] = api.error ? fallback[i] : api.ir_version[i];
}

void nvvm_found(const char **path, const char **found_by, const char **error, int version[2]) {
  pthread_once(&api_once, load_api);
  *path = api.error ? NULL : api.path;
  *found_by = api.error ? NULL : api.found_by;
  *error = api.error;
  version[0] = api.error ? 0 : api.version[0];
  version[1] = api.error ? 0 : api.version[1];
}

void nvvm_libdevice_found(const char **path, const char **found_by, const char **error) {
  pthread_once(&libdevice_once, load_libdevice);
  *path = api.libdevice ? api.libdevice_path : NULL;
  *found_by = api.libdevice ? api.libdevice_found_by : NULL;
  *error = api.libdevice ? NULL : api.libdevice_error ? api.libdevice_error : "libdevice not found";
}

const char *nvvm_libdevice(size_t *len, Diag *diag) {
  pthread_once(&libdevice_once, load_libdevice);
  if (!api.libdevice) {
    diag_error(diag, (SrcLoc){0}, "%s", api.libdevice_error ? api.libdevice_error : "libdevice not found");
    return NULL;
  }
  *len = api.libdevice_len;
  return api.libdevice;
}

static void destroy_program(void *prog) {
  nvvmProgram p = prog;
  api.DestroyProgram(&p);
}

static void report_log(nvvmProgram prog, nvvmResult r, const char *what, Diag *diag) {
  size_t n = 0;
  char *log = NULL;
  if (api.GetProgramLogSize(prog, &n) == 0 && n > 1 && (log = mem_alloc(n)) && api.GetProgramLog(prog, log) == 0) {
    /* trim the trailing newline */
    size_t l = strlen(log);
    while (l && (log[l - 1] == '\n' || log[l - 1] == '\r')) log[--l] = 0;
    diag_error(diag, (SrcLoc){0}, "libNVVM: %s failed (%s):\n%s", what, api.GetErrorString(r), log);
  } else {
    diag_error(diag, (SrcLoc){0}, "libNVVM: %s failed (%s)", what, api.GetErrorString(r));
  }
  mem_free(log);
}

BeStatus nvvm_compile(const char *ir, size_t ir_len, const BackendOptions *o, StrBuf *ptx, Diag *diag) {
  if (!nvvm_load(diag)) return BE_NOT_FOUND;
  const char *libdevice = NULL;
  size_t libdevice_len = 0;
  /* libdevice is linked lazily; only modules that call into it need it */
  if (memmem(ir, ir_len, "@__nv_", 6) && !(libdevice = nvvm_libdevice(&libdevice_len, diag))) return BE_NOT_FOUND;
  nvvmProgram prog = NULL;
  nvvmResult r = api.CreateProgram(&prog);
  if (r != 0) {
    diag_error(diag, (SrcLoc){0}, "libNVVM: nvvmCreateProgram failed (%s)", api.GetErrorString(r));
    return BE_FAILED;
  }
  mem_guard_defer(destroy_program, prog);
  bool ok = false;
  char arch[32], opt[16];
  if (o->arch_feature) snprintf(arch, sizeof arch, "-arch=compute_%u%c", o->arch ? o->arch : 90, o->arch_feature);
  else snprintf(arch, sizeof arch, "-arch=compute_%u", o->arch ? o->arch : 90);
  snprintf(opt, sizeof opt, "-opt=%d", o->opt < 0 ? 3 : o->opt > 3 ? 3 : o->opt);
  const char *opts[10];
  int nopts = 0;
  opts[nopts++] = arch;
  opts[nopts++] = opt;
  /* -fma=1 (libNVVM's default, as numba-cuda runs it) contracts libdevice's code as NVIDIA compiles it; kfront's
   * own +, -, * reach libNVVM as the .rn operations it never fuses (lower_llvm_arith.c, uncontracted_nvvm): what kfront
   * contracts is decided in kir (passes/contract.c), which the simulator follows too */
  if (o->fastmath) {
    opts[nopts++] = "-ftz=1";
    opts[nopts++] = "-prec-div=0";
    opts[nopts++] = "-prec-sqrt=0";
    opts[nopts++] = "-fma=1";
  }
  if (o->debuginfo) opts[nopts++] = "-g";
  else if (o->lineinfo) opts[nopts++] = "-generate-line-info";
  if (o->lto) opts[nopts++] = "-gen-lto"; /* LTO-IR for nvJitLink, not PTX */
  if ((r = api.AddModuleToProgram(prog, ir, ir_len, "kfront")) != 0) {
    report_log(prog, r, "nvvmAddModuleToProgram", diag);
  } else if (libdevice && (r = api.LazyAddModuleToProgram(prog, libdevice, libdevice_len, "libdevice")) != 0) {
    report_log(prog, r, "nvvmLazyAddModuleToProgram(libdevice)", diag);
  } else if (cuda_paths_verify() && (r = api.VerifyProgram(prog, nopts, opts)) != 0) {
    report_log(prog, r, "nvvmVerifyProgram", diag);
  } else if ((r = api.CompileProgram(prog, nopts, opts)) != 0) {
    report_log(prog, r, "nvvmCompileProgram", diag);
  } else {
    size_t n = 0;
    char *buf = NULL;
    if ((r = api.GetCompiledResultSize(prog, &n)) != 0 || !(buf = mem_alloc(n + 1)) ||
        (r = api.GetCompiledResult(prog, buf)) != 0) {
      diag_error(diag, (SrcLoc){0}, "libNVVM: cannot read the compiled %s (%s)", o->lto ? "LTO-IR" : "PTX",
                 api.GetErrorString(r));
    } else if (o->lto) { /* binary: all n bytes */
      sb_putn(ptx, buf, n);
      ok = true;
    } else {
      buf[n] = 0;
      sb_puts(ptx, buf);
      ok = true;
    }
    mem_free(buf);
  }
  mem_guard_undefer(destroy_program, prog);
  api.DestroyProgram(&prog);
  return ok ? BE_OK : BE_FAILED;
}
