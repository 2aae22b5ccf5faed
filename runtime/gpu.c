/* gpu.c — one CUDA device through the Driver API: its primary context and limits, modules loaded from
 * PTX (with the JIT's logs captured and shown when loading fails), kernel entries, and the device-side
 * error record of include/kfront/abi.h, read after a synchronisation and reset for the next launch. */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/abi.h"
#include "runtime/runtime.h"

#define CU(call, ...) RT_CU(g->cu, diag, call, __VA_ARGS__)

static bool attr(RtGpu *g, int which, int *out, Diag *diag) {
  return CU(cuDeviceGetAttribute, out, which, g->dev);
}

bool rt_gpu_open(RtGpu *g, const RtCuda *cu, int ordinal, Diag *diag) {
  memset(g, 0, sizeof *g);
  g->cu = cu;
  g->ordinal = ordinal;
  int count = 0;
  if (!CU(cuDeviceGetCount, &count)) return false;
  if (ordinal < 0 || ordinal >= count) {
    diag_error(diag, srcloc(NULL, 0, 0), "no CUDA device %d (the driver reports %d device%s)", ordinal, count,
               count == 1 ? "" : "s");
    return false;
  }
  if (!CU(cuDeviceGet, &g->dev, ordinal)) return false;
  kf_device_info *in = &g->info;
  if (!CU(cuDeviceGetName, in->name, (int)sizeof in->name, g->dev)) return false;
  in->name[sizeof in->name - 1] = 0;
  int shared = 0, optin = 0;
  if (!attr(g, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &in->cc_major, diag) ||
      !attr(g, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &in->cc_minor, diag) ||
      !attr(g, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &in->multiprocessors, diag) ||
      !attr(g, CU_DEVICE_ATTRIBUTE_WARP_SIZE, &in->warp_size, diag) ||
      !attr(g, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &in->max_threads_per_block, diag) ||
      !attr(g, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &in->max_block_dim[0], diag) ||
      !attr(g, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &in->max_block_dim[1], diag) ||
      !attr(g, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &in->max_block_dim[2], diag) ||
      !attr(g, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &in->max_grid_dim[0], diag) ||
      !attr(g, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &in->max_grid_dim[1], diag) ||
      !attr(g, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &in->max_grid_dim[2], diag) ||
      !attr(g, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, &shared, diag) ||
      !attr(g, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &optin, diag))
    return false;
  in->max_shared_per_block = (size_t)shared;
  in->max_shared_per_block_optin = (size_t)(optin > shared ? optin : shared);
  g->arch = (unsigned)(in->cc_major * 10 + in->cc_minor);
  if (!CU(cuDevicePrimaryCtxRetain, &g->ctx, g->dev)) return false;
  if (!CU(cuCtxSetCurrent, g->ctx)) {
    g->cu->cuDevicePrimaryCtxRelease(g->dev);
    g->ctx = NULL;
    return false;
  }
  return true;
}

void rt_gpu_close(RtGpu *g) {
  if (!g->cu) return;
  if (g->ctx) g->cu->cuCtxSetCurrent(g->ctx);
  for (RtGpuModule *m = g->modules, *n; m; m = n) {
    n = m->next;
    g->cu->cuModuleUnload(m->mod);
    free(m);
  }
  g->modules = NULL;
  if (g->ctx) g->cu->cuDevicePrimaryCtxRelease(g->dev);
  g->ctx = NULL;
}

bool rt_gpu_bind(RtGpu *g, Diag *diag) { return CU(cuCtxSetCurrent, g->ctx); }

/* Appends a JIT log (a NUL-terminated string the driver wrote into log) as a note, if it says anything. */
static void jit_note(Diag *diag, const char *what, char *log, size_t cap) {
  log[cap - 1] = 0;
  size_t n = strlen(log);
  while (n && (log[n - 1] == '\n' || log[n - 1] == ' ')) log[--n] = 0;
  if (n) diag_note(diag, srcloc(NULL, 0, 0), "%s:\n%s", what, log);
}

RtGpuModule *rt_gpu_load(RtGpu *g, const char *ptx, Diag *diag) {
  enum { LOG = 16384 };
  char *info = calloc(1, LOG), *err = calloc(1, LOG);
  if (!info || !err) {
    free(info);
    free(err);
    diag_error(diag, srcloc(NULL, 0, 0), "out of memory");
    return NULL;
  }
  int opts[4] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                 CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[4] = {info, (void *)(uintptr_t)LOG, err, (void *)(uintptr_t)LOG};
  CUmodule mod = NULL;
  CUresult r = g->cu->cuModuleLoadDataEx(&mod, ptx, 4, opts, vals);
  if (r != CUDA_SUCCESS) {
    rt_cu_check(g->cu, r, "cuModuleLoadDataEx", diag);
    jit_note(diag, "the JIT compiler's error log", err, LOG);
    jit_note(diag, "the JIT compiler's info log", info, LOG);
    free(info);
    free(err);
    return NULL;
  }
  free(info);
  free(err);
  RtGpuModule *m = calloc(1, sizeof *m);
  if (!m) {
    g->cu->cuModuleUnload(mod);
    diag_error(diag, srcloc(NULL, 0, 0), "out of memory");
    return NULL;
  }
  m->mod = mod;
  size_t bytes = 0;
  r = g->cu->cuModuleGetGlobal(&m->error_record, &bytes, mod, KF_ERROR_RECORD_SYMBOL);
  if (r == CUDA_ERROR_NOT_FOUND) {
    m->error_record = 0;  /* no bounds checks remain in this module */
  } else if (r != CUDA_SUCCESS || bytes < sizeof(kf_error_record)) {
    if (r != CUDA_SUCCESS) rt_cu_check(g->cu, r, "cuModuleGetGlobal(" KF_ERROR_RECORD_SYMBOL ")", diag);
    else diag_error(diag, srcloc(NULL, 0, 0), "the module's " KF_ERROR_RECORD_SYMBOL " is %zu bytes, not the %zu "
                    "of include/kfront/abi.h (PTX from another kfront version?)", bytes, sizeof(kf_error_record));
    g->cu->cuModuleUnload(mod);
    free(m);
    return NULL;
  }
  m->next = g->modules;
  g->modules = m;
  return m;
}

void rt_gpu_unload(RtGpu *g, RtGpuModule *m) {
  if (!m) return;
  for (RtGpuModule **p = &g->modules; *p; p = &(*p)->next) {
    if (*p == m) {
      *p = m->next;
      break;
    }
  }
  g->cu->cuCtxSetCurrent(g->ctx);
  g->cu->cuModuleUnload(m->mod);
  free(m);
}

bool rt_gpu_function(RtGpu *g, RtGpuModule *m, const char *entry, CUfunction *fn, unsigned *max_threads,
                     size_t *static_shared, Diag *diag) {
  CUresult r = g->cu->cuModuleGetFunction(fn, m->mod, entry);
  if (r != CUDA_SUCCESS) {
    rt_cu_check(g->cu, r, "cuModuleGetFunction", diag);
    diag_note(diag, srcloc(NULL, 0, 0), "looking for the kernel entry '%s' in the loaded PTX", entry);
    return false;
  }
  int threads = 0, shared = 0;
  if (!CU(cuFuncGetAttribute, &threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, *fn) ||
      !CU(cuFuncGetAttribute, &shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, *fn))
    return false;
  *max_threads = threads > 0 ? (unsigned)threads : 0;
  *static_shared = shared > 0 ? (size_t)shared : 0;
  return true;
}

/* The __kf_error_strings table of a module, copied to the host (caller frees), or NULL. */
static char *read_strings(RtGpu *g, RtGpuModule *m, size_t *len) {
  CUdeviceptr p = 0;
  size_t bytes = 0;
  if (g->cu->cuModuleGetGlobal(&p, &bytes, m->mod, KF_ERROR_STRINGS_SYMBOL) != CUDA_SUCCESS || !bytes) return NULL;
  char *t = malloc(bytes);
  if (t && g->cu->cuMemcpyDtoH(t, p, bytes) != CUDA_SUCCESS) {
    free(t);
    return NULL;
  }
  *len = bytes;
  return t;
}

bool rt_gpu_check_records(RtGpu *g, Diag *diag) {
  bool ok = true;
  for (RtGpuModule *m = g->modules; m; m = m->next) {
    if (!m->dirty || !m->error_record) continue;
    m->dirty = false;
    kf_error_record rec;
    if (!CU(cuMemcpyDtoH, &rec, m->error_record, sizeof rec)) return false;
    if (rec.flag == KF_ERROR_NONE) continue;
    ok = false;
    size_t tlen = 0;
    char *table = read_strings(g, m, &tlen);
    const char *kernel = NULL, *file = NULL;
    if (table && rec.kernel_id != KF_ERROR_KERNEL_UNKNOWN)
      kernel = kf_error_string(table, tlen, KF_ERROR_STRINGS_KERNELS, rec.kernel_id);
    if (!kernel || (m->last_entry && strcmp(kernel, m->last_entry) == 0)) kernel = m->last_kernel;
    if (table && rec.file_id != KF_ERROR_FILE_UNKNOWN)
      file = kf_error_string(table, tlen, KF_ERROR_STRINGS_FILES, rec.file_id);
    StrBuf msg;
    sb_init(&msg);
    if (rec.flag == KF_ERROR_BOUNDS)
      rt_format_index_error(&msg, kernel, file, rec.line, rec.col, rec.axis, rec.index, rec.extent);
    else
      sb_printf(&msg, "kernel %s failed with device error code %u", kernel ? kernel : "?", rec.flag);
    diag_error(diag, srcloc(file, file ? rec.line : 0, file ? rec.col : 0), "%s", sb_cstr(&msg));
    sb_free(&msg);
    free(table);
    /* reset, so the next launch of this module is checked afresh */
    if (!CU(cuMemsetD8, m->error_record, 0, sizeof rec)) return false;
  }
  return ok;
}
