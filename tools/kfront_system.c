/* kfront_system.c — `kfront --version` (kfront's version, then each CUDA library and the driver found, one line
 * each) and `kfront -s` (kf_system_report with the options the environment gives: the system as `numba -s`
 * prints it). */
#include <stdio.h>
#include <stdlib.h>

#include "kfront/kfront.h"
#include "kfront_tool.h"
#include "tool_io.h"

int kfront_version_main(void) {
  tool_printed(printf("kfront %s\n", kf_version()));
  static const kf_cuda_library libs[] = {KF_CUDA_LIBNVVM, KF_CUDA_LIBDEVICE, KF_CUDA_NVRTC, KF_CUDA_NVJITLINK};
  for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
    kf_cuda_library_info info;
    kf_cuda_library_find(libs[i], &info);
    if (!info.path) tool_printed(printf("%s: not found (kfront -s lists where kfront looked)\n", info.name));
    else if (info.version_major || info.version_minor)
      tool_printed(printf("%s %d.%d: %s\n", info.name, info.version_major, info.version_minor, info.path));
    else tool_printed(printf("%s: %s\n", info.name, info.path));
  }
  kf_context *ctx = kf_context_create();
  int version = 0;
  const char *libcuda = getenv("KFRONT_LIBCUDA");
  if (ctx && kf_driver_version(ctx, libcuda && *libcuda ? libcuda : NULL, &version) == KF_OK)
    tool_printed(printf("CUDA driver %d.%d\n", version / 1000, version % 1000 / 10));
  else tool_printed(printf("CUDA driver: not found\n"));
  kf_context_destroy(ctx);
  return 0;
}

int kfront_system_main(void) {
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  char *cache_dir = NULL, *report = NULL;
  tool_runtime_options_from_env(&o, &cache_dir);
  kf_status st = kf_system_report(&o, &report);
  if (st == KF_OK) tool_printed(fputs(report, stdout));
  else fprintf(stderr, "kfront: error: %s\n", kf_status_name(st));
  kf_free(report);
  kf_free(cache_dir);
  return st == KF_OK ? 0 : 1;
}
