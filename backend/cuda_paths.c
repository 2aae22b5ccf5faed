/* cuda_paths.c — where the CUDA libraries kfront loads at run time are looked for: libNVVM, libdevice, NVRTC and
 * nvJitLink, one search definition for all four (nvvm.c loads the first two, link.c the others), and the headers
 * NVRTC compiles a linked .cu with (link.c): CUDA's (cuda_runtime.h, curand_kernel.h, ...) and CCCL's (cuda/std/...,
 * which CUDA 13 keeps in include/cccl, its CUDA 12 wheel in nvidia/cuda_cccl), as numba-cuda's cuda.pathfinder
 * finds them.
 *
 * The embedder says where to look (cuda_paths_configure, from kf_configure_cuda_paths: kfront's tools fill it
 * from the environment, the Python module from its own and its site-packages; the library reads no environment).
 * The places, in numba-cuda 0.30.4's order (cuda.pathfinder: NVIDIA's pip wheels and conda before CUDA_HOME, the
 * system toolkit last), after the library's own setting:
 *   1. the library's own setting (KFRONT_LIBNVVM, KFRONT_LIBDEVICE, KFRONT_LIBNVRTC, KFRONT_LIBNVJITLINK): a
 *      file, or a folder holding one of its names; a setting naming nothing that loads ends the search there (no
 *      other copy is taken instead of the one asked for); libdevice then beside the libNVVM found
 *      (<its folder>/../nvvm/libdevice, <its folder>/../libdevice), so that both come from one install;
 *   2. conda: $CONDA_PREFIX, in a toolkit's layout;
 *   3. NVIDIA's pip wheels in each site-packages folder given: CUDA 13's nvidia/cu13/{lib,nvvm/libdevice}, CUDA
 *      12's nvidia/cuda_nvcc/nvvm/{lib64,libdevice}, nvidia/cuda_nvrtc/lib, nvidia/nvjitlink/lib;
 *   4. CUDA_HOME (or CUDA_PATH), in a toolkit's layout;
 *   5. the system toolkit, /usr/local/cuda (or the root configured instead), in a toolkit's layout;
 *   6. the dynamic loader's own path (LD_LIBRARY_PATH, ld.so.cache) by file name (not libdevice, a bitcode file).
 * libdevice is looked for beside the libNVVM found first, CUDA's headers beside the NVRTC found (<its folder>/../include:
 * a toolkit's, a CUDA 13 wheel's), CCCL's beside CUDA's headers (<include>/cccl, <include>); the headers have no setting
 * of their own (numba-cuda's CUDA_INCLUDE_PATH is one of the Python module's include folders, searched after them).
 * A toolkit's layout: nvvm/lib64, nvvm/lib, lib64, lib for libNVVM; nvvm/libdevice for libdevice; lib64, lib for
 * NVRTC and nvJitLink; include, targets/x86_64-linux/include (conda's) for CUDA's headers; include/cccl, include for
 * CCCL's. Wheels: nvidia/cu13/include (CUDA 13), nvidia/cuda_runtime/include (12); nvidia/cu13/include/cccl,
 * nvidia/cuda_cccl/include. In each folder the library's names are tried in order (the unversioned name, then CUDA 13's
 * and 12's sonames). Every place is named in the record of the search, the unset ones too, so a failure says
 * exactly where kfront looked. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "backend/backend.h"
#include "utils/mem.h"

typedef struct CudaLibDef {
  const char *what;              /* as messages name it */
  const char *setting;           /* the embedder's setting (as kfront's tools and the Python module spell it), or
                                  * NULL: none */
  const char *names[4];          /* file names in a folder, in order */
  const char *toolkit_dirs[5];   /* under a toolkit's root (conda, CUDA_HOME, /usr/local/cuda) */
  const char *wheel_dirs[3];     /* under a site-packages folder */
  bool by_loader;                /* a shared library the dynamic loader can find by name */
  const char *beside;            /* what cuda_paths_search's `beside` is the path of, or NULL: not asked */
  const char *beside_dirs[3];    /* the folders beside it (relative to its folder), tried first */
  const char *beside_found;      /* how such a find is named (cuda_paths_search's answer) */
} CudaLibDef;

static const CudaLibDef defs[CUDA_LIB_COUNT] = {
    [CUDA_LIB_NVVM] = {"libNVVM", "KFRONT_LIBNVVM", {"libnvvm.so", "libnvvm.so.4"},
                       {"nvvm/lib64", "nvvm/lib", "lib64", "lib"},
                       {"nvidia/cu13/lib", "nvidia/cuda_nvcc/nvvm/lib64"}, true},
    [CUDA_LIB_LIBDEVICE] = {"libdevice", "KFRONT_LIBDEVICE", {"libdevice.10.bc"}, {"nvvm/libdevice"},
                            {"nvidia/cu13/nvvm/libdevice", "nvidia/cuda_nvcc/nvvm/libdevice"}, false,
                            "libNVVM", {"../nvvm/libdevice", "../libdevice"}, "beside libNVVM"},
    [CUDA_LIB_NVRTC] = {"NVRTC", "KFRONT_LIBNVRTC", {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"},
                        {"lib64", "lib"}, {"nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib"}, true},
    [CUDA_LIB_NVJITLINK] = {"nvJitLink", "KFRONT_LIBNVJITLINK",
                            {"libnvJitLink.so", "libnvJitLink.so.13", "libnvJitLink.so.12"}, {"lib64", "lib"},
                            {"nvidia/cu13/lib", "nvidia/nvjitlink/lib"}, true},
    [CUDA_HEADERS_CUDA] = {"CUDA's headers", NULL, {"cuda_runtime.h"}, {"include", "targets/x86_64-linux/include"},
                           {"nvidia/cu13/include", "nvidia/cuda_runtime/include"}, false, "NVRTC", {"../include"},
                           "beside NVRTC"},
    [CUDA_HEADERS_CCCL] = {"CCCL's headers", NULL, {"cuda/std/version"},
                           {"include/cccl", "include", "targets/x86_64-linux/include/cccl"},
                           {"nvidia/cu13/include/cccl", "nvidia/cuda_cccl/include"}, false, "CUDA's headers",
                           {"cccl", "."}, "beside CUDA's headers"},
};

/* What the embedder configured; read (and frozen) by the first search. */
static struct {
  pthread_mutex_t lock;
  bool used;
  char lib[CUDA_LIB_COUNT][4096];
  char cuda_home[4096], conda_prefix[4096], site_packages[16384], system_toolkit[4096];
  bool verify;
} config = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void copy_setting(char *dst, size_t size, const char *src) { snprintf(dst, size, "%s", src ? src : ""); }

bool cuda_paths_configure(const CudaPathsConfig *c) {
  pthread_mutex_lock(&config.lock);
  bool ok = !config.used;
  if (ok) {
    for (int i = 0; i < CUDA_LIB_COUNT; i++) copy_setting(config.lib[i], sizeof config.lib[i], c->lib[i]);
    copy_setting(config.cuda_home, sizeof config.cuda_home, c->cuda_home);
    copy_setting(config.conda_prefix, sizeof config.conda_prefix, c->conda_prefix);
    copy_setting(config.site_packages, sizeof config.site_packages, c->site_packages);
    copy_setting(config.system_toolkit, sizeof config.system_toolkit,
                 c->system_toolkit && *c->system_toolkit ? c->system_toolkit : "/usr/local/cuda");
    config.verify = c->verify;
  }
  pthread_mutex_unlock(&config.lock);
  return ok;
}

static void freeze(void) {
  pthread_mutex_lock(&config.lock);
  config.used = true;
  pthread_mutex_unlock(&config.lock);
}

const char *cuda_paths_cuda_home(void) {
  freeze();
  return config.cuda_home;
}

bool cuda_paths_verify(void) {
  freeze();
  return config.verify;
}

const char *cuda_lib_name(CudaLib lib) { return defs[lib].what; }

/* One search: the library, the loader's callback, the record of the places tried. */
typedef struct Search {
  const CudaLibDef *def;
  bool (*open)(const char *path, void *user);
  void *user;
  StrBuf *tried;
} Search;

static bool try_file(Search *s, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0 || S_ISDIR(st.st_mode)) return false;
  return s->open(path, s->user);  /* a file that does not load is recorded by open */
}

/* The library's names in folder dir (dirlen bytes); records the folder when none of them is there. */
static bool try_folder(Search *s, const char *dir, size_t dirlen) {
  char path[8192];
  for (const char *const *n = s->def->names; *n; n++) {
    snprintf(path, sizeof path, "%.*s/%s", (int)dirlen, dir, *n);
    if (try_file(s, path)) return true;
  }
  snprintf(path, sizeof path, "%.*s", (int)dirlen, dir);
  struct stat st;
  if (stat(path, &st) != 0) {
    sb_printf(s->tried, "\n  %s: no such folder", path);
    return false;
  }
  sb_printf(s->tried, "\n  %s: no ", path);
  for (const char *const *n = s->def->names; *n; n++) sb_printf(s->tried, "%s%s", n == s->def->names ? "" : " or ", *n);
  sb_puts(s->tried, " there");
  return false;
}

/* The folders rel[] under root, each recorded with label. */
static bool try_root(Search *s, const char *label, const char *root, const char *const *rel) {
  char dir[8192];
  for (; *rel; rel++) {
    size_t mark = s->tried->len;
    snprintf(dir, sizeof dir, "%s/%s", root, *rel);
    if (try_folder(s, dir, strlen(dir))) return true;
    if (s->tried->len > mark) sb_printf(s->tried, " (%s)", label);
  }
  return false;
}

static bool try_setting(Search *s, const char *value) {
  if (!s->def->setting) return false;
  if (!*value) {
    sb_printf(s->tried, "\n  %s: not set", s->def->setting);
    return false;
  }
  struct stat st;
  if (stat(value, &st) == 0 && S_ISDIR(st.st_mode)) {
    size_t mark = s->tried->len;
    if (try_folder(s, value, strlen(value))) return true;
    if (s->tried->len > mark) sb_printf(s->tried, " (%s)", s->def->setting);
    return false;
  }
  if (stat(value, &st) == 0) return s->open(value, s->user);
  sb_printf(s->tried, "\n  %s (%s): not found", value, s->def->setting);
  return false;
}

const char *cuda_paths_search(CudaLib lib, const char *beside, bool (*open)(const char *path, void *user), void *user,
                              StrBuf *tried) {
  freeze();
  Search s = {&defs[lib], open, user, tried};
  if (try_setting(&s, config.lib[lib])) return s.def->setting;
  if (s.def->setting && *config.lib[lib]) { /* set: what it names, or nothing (never another library silently) */
    sb_printf(tried, "\n  (%s is set, so nothing else is searched)", s.def->setting);
    return NULL;
  }
  if (s.def->beside && beside && *beside) {
    char dir[4096], label[128];
    snprintf(dir, sizeof dir, "%s", beside);
    char *slash = strrchr(dir, '/');
    if (slash) {
      *slash = 0;
      snprintf(label, sizeof label, "beside the %s found", s.def->beside);
      if (try_root(&s, label, dir, s.def->beside_dirs)) return s.def->beside_found;
    }
  }
  if (!*config.conda_prefix) sb_puts(tried, "\n  conda: CONDA_PREFIX not set");
  else if (try_root(&s, "conda", config.conda_prefix, s.def->toolkit_dirs)) return "conda ($CONDA_PREFIX)";
  if (!*config.site_packages) sb_puts(tried, "\n  NVIDIA's pip wheels: no site-packages folder given");
  for (const char *d = config.site_packages; *d;) {
    const char *end = strchr(d, ':');
    size_t n = end ? (size_t)(end - d) : strlen(d);
    char root[4096];
    snprintf(root, sizeof root, "%.*s", (int)n, d);
    if (n && try_root(&s, "pip wheel", root, s.def->wheel_dirs)) return "NVIDIA's pip wheel";
    d += n + (end ? 1 : 0);
  }
  if (!*config.cuda_home) sb_puts(tried, "\n  CUDA_HOME / CUDA_PATH: not set");
  else if (try_root(&s, "CUDA_HOME", config.cuda_home, s.def->toolkit_dirs)) return "CUDA_HOME";
  const char *system = *config.system_toolkit ? config.system_toolkit : "/usr/local/cuda";
  if (try_root(&s, "the system toolkit", system, s.def->toolkit_dirs)) return "the system toolkit";
  if (s.def->by_loader) {
    for (const char *const *n = s.def->names; *n; n++)
      if (open(*n, user)) return "the dynamic loader's path";
  }
  return NULL;
}
