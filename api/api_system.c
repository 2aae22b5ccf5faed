/* api_system.c — kf_system_report: what kfront finds on this machine, as `numba -s` prints it (kfront -s and
 * python -m kfront -s print it): the CUDA driver and its version, what runs kernels (the GPUs, or the simulator and
 * why), each device with its compute capability, where libNVVM, libdevice, NVRTC and nvJitLink were found (how,
 * their versions) or every place searched, and the disk cache's directory. Built on the public API only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "kfront/kfront.h"
#include "utils/mem.h"
#include "utils/strbuf.h"

/* The first line of a context's diagnostics, without "error: " and the newline (for one-line reasons). */
static void put_reason(StrBuf *b, kf_context *ctx) {
  const char *d = kf_context_diagnostics(ctx);
  const char *e = strstr(d, "error: ");
  if (e) d = e + 7;
  sb_printf(b, "%.*s", (int)strcspn(d, "\n"), d);
  kf_context_clear_diagnostics(ctx);
}

static void put_devices(StrBuf *b, kf_context *ctx, const kf_runtime_options *o, int count) {
  for (int i = 0; i < count; i++) {
    kf_device_info info;
    if (kf_device_get_info(ctx, o, i, &info) != KF_OK) {
      sb_printf(b, "  %d: ", i);
      put_reason(b, ctx);
      sb_putc(b, '\n');
      continue;
    }
    sb_printf(b, "  %d: %s, compute capability %d.%d, %d SMs, %zu bytes of shared memory per block (%zu opted in)\n",
              i, info.name, info.cc_major, info.cc_minor, info.multiprocessors, info.max_shared_per_block,
              info.max_shared_per_block_optin);
  }
}

static void put_library(StrBuf *b, kf_cuda_library which) {
  kf_cuda_library_info info;
  kf_cuda_library_find(which, &info);
  sb_printf(b, "%-22s: ", info.name);
  if (!info.path) {
    /* "X not found (advice); searched:\n  place: why\n..." indented under the line */
    for (const char *e = info.error; *e; e++) {
      sb_putc(b, *e);
      if (*e == '\n') sb_puts(b, "  ");
    }
    sb_putc(b, '\n');
    return;
  }
  if (info.version_major || info.version_minor) sb_printf(b, "%d.%d, ", info.version_major, info.version_minor);
  sb_printf(b, "%s (found: %s)\n", info.path, info.found_by);
}

kf_status kf_system_report(const kf_runtime_options *opts, char **out) {
  *out = NULL;
  kf_runtime_options o;
  if (API_READ_OPTIONS(NULL, "kf_system_report", kf_runtime_options, sim_max_seconds, opts, &o) != KF_OK) return KF_ERROR_INVALID_INPUT;
  kf_context *ctx = kf_context_create();
  if (!ctx) return KF_ERROR_OUT_OF_MEMORY;
  StrBuf b;
  sb_init(&b);
  sb_printf(&b, "__kfront Information__\n%-22s: %s\n\n__CUDA Information__\n", "kfront version", kf_version());
  int driver = 0;
  sb_printf(&b, "%-22s: ", "CUDA driver");
  if (kf_driver_version(ctx, o.libcuda_path, &driver) == KF_OK)
    sb_printf(&b, "%d.%d (%s)\n", driver / 1000, driver % 1000 / 10, o.libcuda_path ? o.libcuda_path : "libcuda.so.1");
  else put_reason(&b, ctx), sb_putc(&b, '\n');
  kf_runtime_options gpu = o;
  gpu.mode = KF_RUNTIME_GPU;
  int gpus = 0;
  bool have_gpus = o.mode != KF_RUNTIME_SIM && kf_device_count(ctx, &gpu, &gpus) == KF_OK && gpus > 0;
  sb_printf(&b, "%-22s: ", "Kernels run on");
  if (have_gpus) {
    sb_printf(&b, "the GPU (%d device%s)\n", gpus, gpus == 1 ? "" : "s");
    put_devices(&b, ctx, &gpu, gpus);
  } else {
    if (o.mode == KF_RUNTIME_SIM) sb_puts(&b, "the simulator (asked for: KFRONT_SIM=1 or NUMBA_ENABLE_CUDASIM=1)");
    else if (o.mode == KF_RUNTIME_GPU) sb_puts(&b, "nothing: a GPU is required and none is usable");
    else sb_puts(&b, "the simulator (no GPU: "), put_reason(&b, ctx), sb_putc(&b, ')');
    kf_context_clear_diagnostics(ctx);
    sb_putc(&b, '\n');
    kf_runtime_options sim = o;
    sim.mode = KF_RUNTIME_SIM;
    int sims = 0;
    if (o.mode != KF_RUNTIME_GPU && kf_device_count(ctx, &sim, &sims) == KF_OK) put_devices(&b, ctx, &sim, sims);
  }
  put_library(&b, KF_CUDA_LIBNVVM);
  put_library(&b, KF_CUDA_LIBDEVICE);
  put_library(&b, KF_CUDA_NVRTC);
  put_library(&b, KF_CUDA_NVJITLINK);
  sb_printf(&b, "\n__Cache__\n%-22s: %s%s\n", "Cache directory", o.cache_dir ? o.cache_dir : "none (no disk cache)",
            o.cache_dir && !o.disk_cache ? " (disabled: KFRONT_NO_CACHE)" : "");
  kf_context_destroy(ctx);
  *out = sb_take(&b);  /* the calling thread's allocator, as kf_default_cache_dir's: the caller kf_frees it */
  return *out ? KF_OK : KF_ERROR_OUT_OF_MEMORY;
}
