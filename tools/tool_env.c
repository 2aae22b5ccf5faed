/* tool_env.c — the environment variables kfront's tools honour, read in one place and turned into options
 * (the library itself reads none):
 *   KFRONT_SIM=1              run on the simulator even when a GPU is present
 *   KFRONT_NO_GRID_STRIDE=1   leave grid-stride out of the runtime's pipeline
 *   KFRONT_NO_THREAD_MAP=1    leave thread-map out of the runtime's pipeline
 *   KFRONT_BLOCK_PAIR=1       block-pair's launch variants too (kf_runtime_options.thread_map = 2)
 *   KFRONT_NO_CACHE=1         no disk cache
 *   KFRONT_CACHE_DIR          the disk cache's directory (else $XDG_CACHE_HOME/kfront, else ~/.cache/kfront)
 *   KFRONT_BACKEND=llvm|nvvm  the code generator (default: libNVVM when it loads, else LLVM)
 *   KFRONT_LIBCUDA            the CUDA driver library to load (default libcuda.so.1)
 *   KFRONT_DEVICE=N           the device to run on (default 0)
 *   KFRONT_SIM_DEVICES=N      how many devices the simulator presents (default 1)
 *   KFRONT_LIBNVVM, KFRONT_LIBDEVICE, KFRONT_LIBNVRTC, KFRONT_LIBNVJITLINK   each CUDA library's file (or folder)
 *   CONDA_PREFIX, KFRONT_SITE_PACKAGES (folders holding NVIDIA's pip wheels, colon-separated; the console entry
 *   point of the Python package sets it), CUDA_HOME (else CUDA_PATH), KFRONT_SYSTEM_TOOLKIT (the system toolkit's
 *   root, default /usr/local/cuda)   where else to look for them
 *   KFRONT_NVVM_VERIFY=1      libNVVM verifies first (all these: kf_configure_cuda_paths) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_io.h"

bool tool_env_on(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

void tool_configure_toolkit_from_env(void) {
  const char *home = getenv("CUDA_HOME");
  kf_cuda_paths p;
  kf_cuda_paths_init(&p);
  p.cuda_home = home && *home ? home : getenv("CUDA_PATH");
  p.conda_prefix = getenv("CONDA_PREFIX");
  p.site_packages = getenv("KFRONT_SITE_PACKAGES");
  p.system_toolkit = getenv("KFRONT_SYSTEM_TOOLKIT");
  p.libnvvm = getenv("KFRONT_LIBNVVM");
  p.libdevice = getenv("KFRONT_LIBDEVICE");
  p.libnvrtc = getenv("KFRONT_LIBNVRTC");
  p.libnvjitlink = getenv("KFRONT_LIBNVJITLINK");
  p.verify = tool_env_on("KFRONT_NVVM_VERIFY");
  kf_configure_cuda_paths(&p);
}

/* The value of a variable holding a number from lo to hi; -1 when it is unset, and (after a warning) when it
 * holds something else. */
static long env_number(const char *name, long lo, long hi) {
  const char *v = getenv(name);
  if (!v || !*v) return -1;
  char *end;
  errno = 0;
  long n = strtol(v, &end, 10);
  if (end == v || *end || errno || n < lo || n > hi) {
    fprintf(stderr, "kfront: warning: ignoring %s='%s' (want a number from %ld to %ld)\n", name, v, lo, hi);
    return -1;
  }
  return n;
}

void tool_runtime_options_from_env(kf_runtime_options *o, char **cache_dir) {
  *cache_dir = NULL;
  if (tool_env_on("KFRONT_SIM")) o->mode = KF_RUNTIME_SIM;
  if (tool_env_on("KFRONT_NO_GRID_STRIDE")) o->grid_stride = 0;
  if (tool_env_on("KFRONT_NO_THREAD_MAP")) o->thread_map = 0;
  else if (tool_env_on("KFRONT_BLOCK_PAIR")) o->thread_map = 2;
  if (tool_env_on("KFRONT_NO_CACHE")) o->disk_cache = 0;
  if (kf_default_cache_dir(getenv("KFRONT_CACHE_DIR"), getenv("XDG_CACHE_HOME"), getenv("HOME"), cache_dir) == KF_OK)
    o->cache_dir = *cache_dir;
  const char *b = getenv("KFRONT_BACKEND");
  if (b && strcmp(b, "llvm") == 0) o->backend = KF_BACKEND_LLVM;
  else if (b && strcmp(b, "nvvm") == 0) o->backend = KF_BACKEND_NVVM;
  const char *lib = getenv("KFRONT_LIBCUDA");
  if (lib && *lib) o->libcuda_path = lib;
  long device = env_number("KFRONT_DEVICE", 0, 1 << 20), sims = env_number("KFRONT_SIM_DEVICES", 1, 1 << 20);
  if (device >= 0) o->device = (int)device;
  if (sims >= 0) o->sim_devices = (unsigned)sims;
}
