/* runtime_gpu_fake.c — the GPU launch path without a GPU: a fake driver table (rt_cuda_install) whose
 * "device memory" is host memory and whose cuLaunchKernel runs the test's kernels in C from the packed
 * parameters. So the real code is exercised end to end: PTX from the backend loaded through
 * cuModuleLoadDataEx (and its JIT log on failure), parameters packed per abi.h (checked by the results),
 * host arrays copied in and back with their temporaries freed, the __kf_error record read after the launch,
 * turned into the located IndexError, reset, and a launch after it working; the kernel's own thread limit,
 * dynamic shared memory opt-in, asynchronous launches reporting at synchronisation, a kernel loaded from
 * a disk-cache entry without compiling anything (its launch plan restored; a compile's warnings given again by a
 * later hit), and a grid_stride kernel
 * launched on a smaller 1-D grid (SMs x occupancy) with the user's grid dims as 3 trailing parameters; a
 * cooperative kernel (a grid barrier) launched through cuLaunchCooperativeKernel after its grid is checked to
 * fit (SMs x occupancy), refused when it does not or when the driver lacks the entry point; the host side
 * of @vectorize, @cuda.reduce and @guvectorize, whose host operands are staged on this path; and a program's module
 * callback (setup before a module's first launch, teardown when it goes), with modules loaded through the library
 * API (cuLibraryLoadData) and without it; a pointer parameter, given an address; and a module linked with a .cu
 * through nvJitLink, with and without link-time optimisation (the cubin it loads), and (`driver-linker`, a run of
 * its own) through the driver's linker where nvJitLink is missing. */
#define _GNU_SOURCE /* memmem */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kfront/abi.h"
#include "kfront/kfront.h"
#include "runtime/cache.h"
#include "runtime/cuda_driver.h"
#include "runtime/rt.h"
#include "runtime_test.h"

/* ---- the fake driver ----------------------------------------------------------------------------- */

typedef struct FakeFunction {
  char name[64];
} FakeFunction;

typedef struct FakeModule {
  char *ptx;               /* "" for a cubin (a module linked with foreign code), whose image is elf */
  unsigned char *elf;
  size_t elf_len;
  FakeFunction fns[8];
  unsigned nfns;
  unsigned char strings[256];
  size_t nstrings;
} FakeModule;

static struct {
  kf_error_record rec;  /* __kf_error of every module (one module launched at a time in these tests) */
  int allocs, frees, loads, unloads, launches, sets;
  int lib_loads, lib_unloads;  /* through the library API (install_fake_with's library) */
  int fail_load, fail_launch;
  int func_max_threads;
  int dyn_attr;
  unsigned last_grid[3], last_block[3], last_shared;
  int grid_params;       /* the launched kernel takes the grid dims as params[grid_params..+2] (0: none) */
  int32_t last_gs[3];    /* and their values */
  int occupancy;         /* cuOccupancyMaxActiveBlocksPerMultiprocessor's answer; 0: it fails */
  int occupancy_gs;      /* its answer for a function named NAME__gs (a grid-stride variant), when not 0: as if
                          * that function's registers differed from the plain form's */
  char last_fn[64];      /* the name of the function launched last */
  int occ_calls;
  int coop_launches;     /* through cuLaunchCooperativeKernel */
  unsigned managed_flags;  /* of the last cuMemAllocManaged */
  CUdeviceptr last_alloc;  /* what the last allocation gave, and its size (cuMemGetAddressRange's answer) */
  size_t last_alloc_bytes;
  unsigned char *last_cubin;  /* the last cubin loaded (a module linked with foreign code), last_cubin_len bytes */
  size_t last_cubin_len;
  /* the driver's linker: what the last link was given (input types and names; whether an input defines
   * mul_f32_f32), and its result: the PTX input named "kfront", or an undefined reference when none defines it */
  int link_types[8];
  char link_names[8][64];
  unsigned nlink_inputs;
  bool link_defines_mul;
  char *link_kfront_ptx;
  bool link_lineinfo;
} fake;

static CUresult f_init(unsigned flags) { return CUDA_SUCCESS; }
static CUresult f_version(int *v) { *v = 12080; return CUDA_SUCCESS; }
static CUresult f_errname(CUresult r, const char **s) {
  switch (r) {
  case CUDA_ERROR_INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_PTX: *s = "CUDA_ERROR_INVALID_PTX"; return CUDA_SUCCESS;
  case CUDA_ERROR_NOT_FOUND: *s = "CUDA_ERROR_NOT_FOUND"; return CUDA_SUCCESS;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
}
static CUresult f_errstring(CUresult r, const char **s) {
  switch (r) {
  case CUDA_ERROR_INVALID_VALUE: *s = "invalid argument"; return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_PTX: *s = "a PTX JIT compilation failed"; return CUDA_SUCCESS;
  case CUDA_ERROR_NOT_FOUND: *s = "named symbol not found"; return CUDA_SUCCESS;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
}
static CUresult f_count(int *n) { *n = 1; return CUDA_SUCCESS; }
static CUresult f_get(CUdevice *d, int i) { *d = i; return i == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }
static CUresult f_name(char *s, int n, CUdevice d) { snprintf(s, (size_t)n, "Fake GPU"); return CUDA_SUCCESS; }
static CUresult f_attr(int *v, int a, CUdevice d) {
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *v = 1024; break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *v = 64; break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = 2147483647; break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *v = 65535; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 49152; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}
static CUcontext the_ctx = (CUcontext)0x1234;
static CUresult f_retain(CUcontext *c, CUdevice d) { *c = the_ctx; return CUDA_SUCCESS; }
static CUresult f_release(CUdevice d) { return CUDA_SUCCESS; }
static CUcontext current_ctx;  /* the calling thread's current context, as the driver keeps it */
static CUresult f_setcur(CUcontext c) {
  if (c != the_ctx) return CUDA_ERROR_INVALID_VALUE;
  current_ctx = c;
  return CUDA_SUCCESS;
}
static CUresult f_getcur(CUcontext *c) {
  *c = current_ctx;
  return CUDA_SUCCESS;
}
static CUresult f_sync(void) { return CUDA_SUCCESS; }
/* the runtime sizes its pending-deallocation limit by the device's memory: an 80 GiB card */
static CUresult f_meminfo(size_t *free_bytes, size_t *total_bytes) {
  *free_bytes = *total_bytes = (size_t)80 << 30;
  return CUDA_SUCCESS;
}

/* Parses "__kf_error_strings[N] = {a, b, ...}" out of the PTX. */
static void parse_strings(FakeModule *m) {
  const char *p = strstr(m->ptx, "__kf_error_strings[");
  if (!p) return;
  size_t n = strtoul(p + 19, NULL, 10);
  if (n > sizeof m->strings) n = sizeof m->strings;
  m->nstrings = n;
  const char *q = strchr(p, '{');
  for (size_t i = 0; q && i < n; i++) {
    char *end;
    long v = strtol(q + 1, &end, 10);
    if (end == q + 1) break;
    m->strings[i] = (unsigned char)v;
    q = strchr(end, ',');
  }
}

static CUresult f_load(CUmodule *mod, const void *image, unsigned nopts, int *opts, void **vals) {
  if (fake.fail_load) {
    for (unsigned i = 0; i < nopts; i++)
      if (opts[i] == CU_JIT_ERROR_LOG_BUFFER)
        snprintf(vals[i], (size_t)(uintptr_t)vals[i + 1], "ptxas application ptx input, line 7; fatal   : Parsing error near 'bogus'");
    return CUDA_ERROR_INVALID_PTX;
  }
  FakeModule *m = calloc(1, sizeof *m);
  if (memcmp(image, "\177ELF", 4) == 0) { /* a cubin: as long as its section headers, which end it */
    const unsigned char *e = image;
    uint64_t shoff;
    uint16_t shentsize, shnum;
    memcpy(&shoff, e + 0x28, 8);
    memcpy(&shentsize, e + 0x3a, 2);
    memcpy(&shnum, e + 0x3c, 2);
    m->elf_len = (size_t)shoff + (size_t)shentsize * shnum;
    m->elf = malloc(m->elf_len);
    memcpy(m->elf, image, m->elf_len);
    m->ptx = strdup("");
    free(fake.last_cubin);
    fake.last_cubin = malloc(m->elf_len);
    memcpy(fake.last_cubin, image, m->elf_len);
    fake.last_cubin_len = m->elf_len;
  } else {
    m->ptx = strdup(image);
    parse_strings(m);
  }
  fake.loads++;
  *mod = (CUmodule)m;
  return CUDA_SUCCESS;
}
static CUresult f_unload(CUmodule mod) {
  FakeModule *m = (FakeModule *)mod;
  free(m->elf);
  free(m->ptx);
  free(m);
  fake.unloads++;
  return CUDA_SUCCESS;
}
/* The library API: a library holds one module (loaded as cuModuleLoadDataEx loads it) */
typedef struct FakeLibrary {
  CUmodule mod;
} FakeLibrary;
static CUresult f_lib_load(CUlibrary *lib, const void *code, int *jit_opts, void **jit_vals, unsigned njit,
                           int *lib_opts, void **lib_vals, unsigned nlib) {
  CUmodule m = NULL;
  CUresult r = f_load(&m, code, njit, jit_opts, jit_vals);
  if (r != CUDA_SUCCESS) return r;
  FakeLibrary *l = calloc(1, sizeof *l);
  l->mod = m;
  fake.lib_loads++;
  *lib = (CUlibrary)l;
  return CUDA_SUCCESS;
}
static CUresult f_lib_module(CUmodule *m, CUlibrary lib) {
  *m = ((FakeLibrary *)lib)->mod;
  return CUDA_SUCCESS;
}
static CUresult f_lib_unload(CUlibrary lib) {
  f_unload(((FakeLibrary *)lib)->mod);
  free(lib);
  fake.lib_unloads++;
  return CUDA_SUCCESS;
}
static CUresult f_getfn(CUfunction *fn, CUmodule mod, const char *name) {
  FakeModule *m = (FakeModule *)mod;
  char pattern[80];
  snprintf(pattern, sizeof pattern, m->elf ? ".text.%s" : ".entry %s(", name);
  bool has = m->elf ? memmem(m->elf, m->elf_len, pattern, strlen(pattern) + 1) != NULL : strstr(m->ptx, pattern) != NULL;
  if (!has || m->nfns == 8) return CUDA_ERROR_NOT_FOUND;
  FakeFunction *f = &m->fns[m->nfns++];
  snprintf(f->name, sizeof f->name, "%s", name);
  *fn = (CUfunction)f;
  return CUDA_SUCCESS;
}
static CUresult f_getglobal(CUdeviceptr *p, size_t *bytes, CUmodule mod, const char *name) {
  FakeModule *m = (FakeModule *)mod;
  bool in_elf = m->elf && memmem(m->elf, m->elf_len, KF_ERROR_RECORD_SYMBOL, sizeof KF_ERROR_RECORD_SYMBOL);
  if (!strcmp(name, KF_ERROR_RECORD_SYMBOL) && (in_elf || strstr(m->ptx, KF_ERROR_RECORD_SYMBOL "["))) {
    *p = (CUdeviceptr)(uintptr_t)&fake.rec;
    if (bytes) *bytes = sizeof fake.rec;
    return CUDA_SUCCESS;
  }
  if (!strcmp(name, KF_ERROR_STRINGS_SYMBOL) && m->nstrings) {
    *p = (CUdeviceptr)(uintptr_t)m->strings;
    if (bytes) *bytes = m->nstrings;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_NOT_FOUND;
}
static CUresult f_fnattr(int *v, int a, CUfunction fn) {
  FakeFunction *f = (FakeFunction *)fn;
  if (a == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) *v = !strcmp(f->name, "scale__f32") ? fake.func_max_threads : 1024;
  else if (a == CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) *v = !strcmp(f->name, "tiled") ? 16384 : 0;
  else return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}
static CUresult f_setattr(CUfunction fn, int a, int v) {
  if (a != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) return CUDA_ERROR_INVALID_VALUE;
  fake.dyn_attr = v;
  fake.sets++;
  return CUDA_SUCCESS;
}

/* Runs the test kernels in C over every thread, from the packed parameters (abi.h). */
static CUresult f_launch(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                         unsigned shared, CUstream s, void **params, void **extra) {
  if (fake.fail_launch) return CUDA_ERROR_INVALID_VALUE;
  FakeFunction *f = (FakeFunction *)fn;
  fake.launches++;
  fake.last_grid[0] = gx, fake.last_grid[1] = gy, fake.last_grid[2] = gz;
  fake.last_block[0] = bx, fake.last_block[1] = by, fake.last_block[2] = bz;
  fake.last_shared = shared;
  int64_t threads = (int64_t)gx * bx;
  snprintf(fake.last_fn, sizeof fake.last_fn, "%s", f->name);
  if (fake.grid_params)
    for (int d = 0; d < 3; d++) fake.last_gs[d] = *(int32_t *)params[fake.grid_params + d];
  if (!strcmp(f->name, "foo_grid")) {
    char *in = *(char **)params[0];
    int64_t n = *(int64_t *)params[1], sin = *(int64_t *)params[2];
    char *out = *(char **)params[3];
    int64_t m = *(int64_t *)params[4], sout = *(int64_t *)params[5];
    for (int64_t i = 0; i < threads; i++) {
      if (i >= n || i >= m) {
        if (fake.rec.flag == KF_ERROR_NONE)
          fake.rec = (kf_error_record){.flag = KF_ERROR_BOUNDS, .kernel_id = 0, .line = 23, .col = 5, .axis = 0,
                                       .file_id = 0, .index = i, .extent = i >= n ? n : m};
        continue;
      }
      *(double *)(out + i * sout) = (double)*(int64_t *)(in + i * sin);
    }
  } else if (!strcmp(f->name, "ptr_fill")) {
    /* p[i] = i * 2 for i < n: the pointer parameter is one 8-byte slot holding the address the launch was given */
    int32_t *ptr = *(int32_t **)params[0];
    int64_t n = *(int64_t *)params[1];
    for (int64_t i = 0; i < threads && i < n; i++) ptr[i] = (int32_t)(2 * i);
  } else if (!strcmp(f->name, "twice") && !fake.grid_params) {
    /* the plain form (its grid-stride variant twice__gs beside it): one thread per element */
    char *in = *(char **)params[0], *out = *(char **)params[3];
    int64_t n = *(int64_t *)params[1], sin = *(int64_t *)params[2], sout = *(int64_t *)params[5];
    for (int64_t i = 0; i < threads && i < n; i++) *(double *)(out + i * sout) = 2 * *(double *)(in + i * sin);
  } else if (!strcmp(f->name, "twice") || !strcmp(f->name, "twice__gs")) {
    /* grid_stride: the threads of a 1-D grid loop over the user's gx*gy*gz virtual blocks */
    char *in = *(char **)params[0];
    int64_t n = *(int64_t *)params[1], sin = *(int64_t *)params[2];
    char *out = *(char **)params[3];
    int64_t sout = *(int64_t *)params[5];
    int64_t vx = *(int32_t *)params[6], vblocks = vx * *(int32_t *)params[7] * *(int32_t *)params[8];
    for (int64_t b = 0; b < gx; b++)
      for (int64_t vb = b; vb < vblocks; vb += gx)
        for (int64_t t = 0; t < bx; t++) {
          int64_t i = (vb % vx) * bx + t;
          if (i < n) *(double *)(out + i * sout) = 2 * *(double *)(in + i * sin);
        }
  } else if (!strcmp(f->name, "inc2") || !strcmp(f->name, "inc2__bp")) {
    /* a[x, y] += 1 of `x, y = cuda.grid(2)`; as block-pair's variant (passes/block_pair.c, the grid halved along y,
     * the user's grid after the array): physical thread p of a slice runs q = p and q = bx*by + p of the logical
     * pair of blocks (2*blockIdx.y, +1), threadIdx.x = q / (2*by), the half and threadIdx.y from q % (2*by) */
    bool paired = f->name[4] != 0;
    char *a = *(char **)params[0];
    int64_t n0 = *(int64_t *)params[1], n1 = *(int64_t *)params[2], s0 = *(int64_t *)params[3];
    int64_t s1 = *(int64_t *)params[4], uy = paired ? (int64_t)*(int32_t *)params[6] : (int64_t)gy;
    for (int64_t gbx = 0; gbx < gx; gbx++)
      for (int64_t gby = 0; gby < gy; gby++)
        for (int64_t p = 0; p < (int64_t)bx * by; p++)
          for (int64_t k = 0; k < (paired ? 2 : 1); k++) {
            int64_t tx = p % bx, ty = p / bx, lby = gby;
            if (paired) {
              int64_t q = k * bx * by + p, r = q % (2 * by);
              tx = q / (2 * by), ty = r % by, lby = 2 * gby + r / by;
              if (lby >= uy) continue;
            }
            int64_t x = gbx * bx + tx, y = lby * by + ty;
            if (x < n0 && y < n1) *(float *)(a + x * s0 + y * s1) += 1;
          }
  } else if (!strcmp(f->name, "vadd")) {
    /* @vectorize contract: out[i] = a[i] + b[i] for i < out.shape[0], whatever the grid (grid-stride) */
    char *a = *(char **)params[0], *b = *(char **)params[3], *out = *(char **)params[6];
    int64_t sa = *(int64_t *)params[2], sb = *(int64_t *)params[5], n = *(int64_t *)params[7], so = *(int64_t *)params[8];
    for (int64_t i = 0; i < n; i++) *(double *)(out + i * so) = *(double *)(a + i * sa) + *(double *)(b + i * sb);
  } else if (!strcmp(f->name, "rsum")) {
    /* @cuda.reduce contract: block b folds elements b*bx + t + k*bx*gx into out[b] */
    char *in = *(char **)params[0], *out = *(char **)params[3];
    int64_t n = *(int64_t *)params[1], si = *(int64_t *)params[2], m = *(int64_t *)params[4], so = *(int64_t *)params[5];
    for (int64_t b = 0; b < gx; b++) {
      double acc = 0;
      for (int64_t i = b * bx; i < n; i += (int64_t)bx * gx)
        for (int64_t t = 0; t < bx && i + t < n; t++) acc += *(double *)(in + (i + t) * si);
      if (b < m && b * bx < n) *(double *)(out + b * so) = acc;
      else fake.rec.flag = KF_ERROR_BOUNDS;  /* a block without elements breaks the contract */
    }
  } else if (!strcmp(f->name, "gcum")) {
    /* @guvectorize "(n)->(n)": a cumulative sum of x[b, :] into out[b, :] for b < x.shape[0] */
    char *x = *(char **)params[0], *out = *(char **)params[5];
    int64_t nb = *(int64_t *)params[1], n = *(int64_t *)params[2], sb = *(int64_t *)params[3], sx = *(int64_t *)params[4];
    int64_t ob = *(int64_t *)params[8], os = *(int64_t *)params[9];
    for (int64_t b = 0; b < nb; b++) {
      double acc = 0;
      for (int64_t i = 0; i < n; i++) {
        acc += *(double *)(x + b * sb + i * sx);
        *(double *)(out + b * ob + i * os) = acc;
      }
    }
  } else if (!strcmp(f->name, "raiser")) {
    /* check.raise when a[i] < 0 (ValueError, the module's exception 0); the first raising thread records */
    char *a = *(char **)params[0];
    int64_t n = *(int64_t *)params[1], sa = *(int64_t *)params[2];
    for (int64_t i = 0; i < threads && i < n; i++) {
      if (*(int64_t *)(a + i * sa) >= 0 || fake.rec.flag != KF_ERROR_NONE) continue;
      fake.rec = (kf_error_record){.flag = KF_ERROR_RAISE, .kernel_id = 0, .line = 7, .col = 9, .axis = 0,
                                   .file_id = 0, .index = kf_error_pack_thread((uint32_t)(i % bx), 0, 0),
                                   .extent = kf_error_pack_block((uint32_t)(i / bx), 0, 0)};
    }
  } else if (!strcmp(f->name, "gsum")) {
    /* cooperative: each block writes its sum to partial[b], grid barrier, every thread i < n writes the total */
    char *in = *(char **)params[0], *partial = *(char **)params[3], *out = *(char **)params[6];
    int64_t n = *(int64_t *)params[1], si = *(int64_t *)params[2], sp = *(int64_t *)params[5], so = *(int64_t *)params[8];
    double total = 0;
    for (int64_t b = 0; b < gx; b++) {
      double acc = 0;
      for (int64_t t = 0; t < bx; t++)
        if (b * bx + t < n) acc += *(double *)(in + (b * bx + t) * si);
      *(double *)(partial + b * sp) = acc;
    }
    for (int64_t b = 0; b < gx; b++) total += *(double *)(partial + b * sp);
    for (int64_t i = 0; i < threads && i < n; i++) *(double *)(out + i * so) = total;
  } else if (!strcmp(f->name, "scale__f32")) {
    char *a = *(char **)params[0];
    int64_t n = *(int64_t *)params[1], st = *(int64_t *)params[2];
    int32_t k = *(int32_t *)params[3];
    for (int64_t i = 0; i < threads && i < n; i++) *(float *)(a + i * st) *= (float)k;
  }
  return CUDA_SUCCESS;
}
static CUresult f_coop_launch(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                              unsigned bz, unsigned shared, CUstream s, void **params) {
  fake.coop_launches++;
  return f_launch(fn, gx, gy, gz, bx, by, bz, shared, s, params, NULL);
}
static CUresult f_occupancy(int *blocks, CUfunction fn, int block_size, size_t shared) {
  fake.occ_calls++;
  if (!fake.occupancy) return CUDA_ERROR_INVALID_VALUE;
  size_t len = strlen(((FakeFunction *)fn)->name);
  bool gs = len > 4 && !strcmp(((FakeFunction *)fn)->name + len - 4, "__gs");
  *blocks = gs && fake.occupancy_gs ? fake.occupancy_gs : fake.occupancy;
  return CUDA_SUCCESS;
}
static CUresult f_alloc(CUdeviceptr *p, size_t n) {
  void *h = malloc(n);
  if (!h) return CUDA_ERROR_OUT_OF_MEMORY;
  fake.allocs++;
  *p = (CUdeviceptr)(uintptr_t)h;
  fake.last_alloc = *p;
  fake.last_alloc_bytes = n;
  return CUDA_SUCCESS;
}
static CUresult f_alloc_managed(CUdeviceptr *p, size_t n, unsigned flags) {
  fake.managed_flags = flags;
  return f_alloc(p, n);
}
/* the last allocation is the one every address inside it lies in; others are no device memory */
static CUresult f_range(CUdeviceptr *base, size_t *bytes, CUdeviceptr p) {
  if (p < fake.last_alloc || p >= fake.last_alloc + fake.last_alloc_bytes) return CUDA_ERROR_INVALID_VALUE;
  *base = fake.last_alloc;
  *bytes = fake.last_alloc_bytes;
  return CUDA_SUCCESS;
}
static CUresult f_free(CUdeviceptr p) { fake.frees++; free((void *)(uintptr_t)p); return CUDA_SUCCESS; }
static CUresult f_htod(CUdeviceptr d, const void *s, size_t n) { memcpy((void *)(uintptr_t)d, s, n); return CUDA_SUCCESS; }
static CUresult f_dtoh(void *d, CUdeviceptr s, size_t n) { memcpy(d, (void *)(uintptr_t)s, n); return CUDA_SUCCESS; }
static CUresult f_dtod(CUdeviceptr d, CUdeviceptr s, size_t n) { memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); return CUDA_SUCCESS; }
static CUresult f_htod_a(CUdeviceptr d, const void *s, size_t n, CUstream st) { return f_htod(d, s, n); }
static CUresult f_dtoh_a(void *d, CUdeviceptr s, size_t n, CUstream st) { return f_dtoh(d, s, n); }
static CUresult f_dtod_a(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) { return f_dtod(d, s, n); }
static CUresult f_memset(CUdeviceptr d, unsigned char v, size_t n) { memset((void *)(uintptr_t)d, v, n); return CUDA_SUCCESS; }
static CUresult f_memset_a(CUdeviceptr d, unsigned char v, size_t n, CUstream s) { return f_memset(d, v, n); }
static CUresult f_screate(CUstream *s, unsigned flags) { *s = (CUstream)malloc(1); return CUDA_SUCCESS; }
static CUresult f_sdestroy(CUstream s) { free(s); return CUDA_SUCCESS; }
static CUresult f_ssync(CUstream s) { return CUDA_SUCCESS; }
static CUresult f_ecreate(CUevent *e, unsigned flags) { *e = (CUevent)calloc(1, sizeof(int)); return CUDA_SUCCESS; }
static CUresult f_erecord(CUevent e, CUstream s) { (*(int *)e)++; return CUDA_SUCCESS; }
static CUresult f_esync(CUevent e) { return CUDA_SUCCESS; }
static CUresult f_elapsed(float *ms, CUevent a, CUevent b) { *ms = 1.5f; return CUDA_SUCCESS; }
static CUresult f_edestroy(CUevent e) { free(e); return CUDA_SUCCESS; }

/* The driver's linker: records its inputs; the cubin it gives is kfront's PTX (which f_load loads as PTX) */
static CUresult f_link_create(unsigned nopts, int *opts, void **vals, CUlinkState *state) {
  fake.nlink_inputs = 0;
  fake.link_defines_mul = fake.link_lineinfo = false;
  free(fake.link_kfront_ptx);
  fake.link_kfront_ptx = NULL;
  char **log = calloc(1, sizeof *log * 2); /* the state: the error log buffer and its size */
  for (unsigned i = 0; i < nopts; i++) {
    if (opts[i] == CU_JIT_ERROR_LOG_BUFFER) log[0] = vals[i];
    if (opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) log[1] = vals[i];
    if (opts[i] == CU_JIT_GENERATE_LINE_INFO) fake.link_lineinfo = vals[i] != NULL;
  }
  *state = (CUlinkState)log;
  return CUDA_SUCCESS;
}
static CUresult f_link_add(CUlinkState state, int type, void *data, size_t bytes, const char *name, unsigned nopts,
                           int *opts, void **vals) {
  if (fake.nlink_inputs == 8) return CUDA_ERROR_INVALID_VALUE;
  if (type == CU_JIT_INPUT_PTX && (bytes == 0 || ((char *)data)[bytes - 1] != 0)) return CUDA_ERROR_INVALID_VALUE;
  fake.link_types[fake.nlink_inputs] = type;
  snprintf(fake.link_names[fake.nlink_inputs++], 64, "%s", name);
  if (type == CU_JIT_INPUT_PTX && strcmp(name, "kfront") == 0) fake.link_kfront_ptx = strdup(data);
  else if (type == CU_JIT_INPUT_PTX && strstr(data, ".visible .func") && strstr(data, "mul_f32_f32("))
    fake.link_defines_mul = true;
  return CUDA_SUCCESS;
}
static CUresult f_link_complete(CUlinkState state, void **cubin, size_t *bytes) {
  char **log = (char **)state;
  if (!fake.link_defines_mul || !fake.link_kfront_ptx) {
    if (log[0]) snprintf(log[0], (size_t)(uintptr_t)log[1], "error   : Undefined reference to 'mul_f32_f32' in 'kfront'");
    return CUDA_ERROR_INVALID_VALUE;
  }
  *cubin = fake.link_kfront_ptx;
  *bytes = strlen(fake.link_kfront_ptx) + 1;
  return CUDA_SUCCESS;
}
static CUresult f_link_destroy(CUlinkState state) {
  free(state);
  return CUDA_SUCCESS;
}

static void install_fake_with(bool cooperative, bool library) {
  RtCuda t = {
      .cuInit = f_init, .cuDriverGetVersion = f_version, .cuGetErrorName = f_errname, .cuGetErrorString = f_errstring,
      .cuDeviceGetCount = f_count, .cuDeviceGet = f_get, .cuDeviceGetName = f_name, .cuDeviceGetAttribute = f_attr,
      .cuDevicePrimaryCtxRetain = f_retain, .cuDevicePrimaryCtxRelease = f_release, .cuCtxSetCurrent = f_setcur,
      .cuCtxGetCurrent = f_getcur,
      .cuCtxSynchronize = f_sync, .cuModuleLoadDataEx = f_load, .cuModuleUnload = f_unload,
      .cuMemGetInfo = f_meminfo,
      .cuModuleGetFunction = f_getfn, .cuModuleGetGlobal = f_getglobal, .cuFuncGetAttribute = f_fnattr,
      .cuFuncSetAttribute = f_setattr, .cuLaunchKernel = f_launch, .cuMemAlloc = f_alloc, .cuMemFree = f_free,
      .cuMemcpyHtoD = f_htod, .cuMemcpyDtoH = f_dtoh, .cuMemcpyDtoD = f_dtod, .cuMemcpyHtoDAsync = f_htod_a,
      .cuMemcpyDtoHAsync = f_dtoh_a, .cuMemcpyDtoDAsync = f_dtod_a, .cuMemsetD8 = f_memset,
      .cuMemsetD8Async = f_memset_a, .cuStreamCreate = f_screate, .cuStreamDestroy = f_sdestroy,
      .cuStreamSynchronize = f_ssync, .cuEventCreate = f_ecreate, .cuEventRecord = f_erecord,
      .cuEventSynchronize = f_esync, .cuEventElapsedTime = f_elapsed, .cuEventDestroy = f_edestroy,
      .cuOccupancyMaxActiveBlocksPerMultiprocessor = f_occupancy,
      .cuLaunchCooperativeKernel = cooperative ? f_coop_launch : NULL,
      .cuMemAllocManaged = f_alloc_managed, .cuMemGetAddressRange = f_range,
      .cuLibraryLoadData = library ? f_lib_load : NULL, .cuLibraryGetModule = library ? f_lib_module : NULL,
      .cuLibraryUnload = library ? f_lib_unload : NULL,
      .cuLinkCreate = f_link_create, .cuLinkAddData = f_link_add, .cuLinkComplete = f_link_complete,
      .cuLinkDestroy = f_link_destroy,
  };
  rt_cuda_install(&t);
}

static void install_fake(void) { install_fake_with(true, false); }

/* ---- the kernels ------------------------------------------------------------------------------------ */

#define GRID1                                                                   \
  "  %tx = gpu.thread_id() {dim = 0} : () -> (i32)\n"                           \
  "  %bx = gpu.block_id() {dim = 0} : () -> (i32)\n"                            \
  "  %bw = gpu.block_dim() {dim = 0} : () -> (i32)\n"                           \
  "  %g0 = arith.muli(%bx, %bw) : (i32, i32) -> (i32)\n"                        \
  "  %g1 = arith.addi(%g0, %tx) : (i32, i32) -> (i32)\n"                        \
  "  %i = arith.extsi(%g1) : (i32) -> (i64)\n"

static const char *KIR =
    "func.func() ({\n"
    "^bb0(%in: array<i64, 1, A>, %out: array<f64, 1, A>):\n" GRID1
    "  %n = mem.dim(%in) {axis = 0} : (array<i64, 1, A>) -> (i64)\n"
    "  check.bounds(%i, %n) {axis = 0} : (i64, i64) -> () loc(\"s000_kernels.py\":23:5)\n"
    "  %v = mem.load(%in, %i) : (array<i64, 1, A>, i64) -> (i64)\n"
    "  %f = arith.sitofp(%v) : (i64) -> (f64)\n"
    "  %m = mem.dim(%out) {axis = 0} : (array<f64, 1, A>) -> (i64)\n"
    "  check.bounds(%i, %m) {axis = 0} : (i64, i64) -> () loc(\"s000_kernels.py\":23:5)\n"
    "  mem.store(%f, %out, %i) : (f64, array<f64, 1, A>, i64) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @foo_grid, function_type = (array<i64, 1, A>, array<f64, 1, A>) -> (), kernel} : () -> ()\n"
    "\n"
    "func.func() ({\n"
    "^bb0(%a: array<f32, 1, C>, %s: i32):\n" GRID1
    "  %n = mem.dim(%a) {axis = 0} : (array<f32, 1, C>) -> (i64)\n"
    "  %ok = arith.cmpi(%i, %n) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  scf.if(%ok) ({\n"
    "    %v = mem.load(%a, %i) : (array<f32, 1, C>, i64) -> (f32)\n"
    "    %sf = arith.sitofp(%s) : (i32) -> (f32)\n"
    "    %w = arith.mulf(%v, %sf) : (f32, f32) -> (f32)\n"
    "    mem.store(%w, %a, %i) : (f32, array<f32, 1, C>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @scale__f32, function_type = (array<f32, 1, C>, i32) -> (), kernel} : () -> ()\n";

static const char *RAISE_KIR =
    "func.func() ({\n"
    "^bb0(%a: array<i64, 1, C>):\n" GRID1
    "  %n = mem.dim(%a) {axis = 0} : (array<i64, 1, C>) -> (i64)\n"
    "  %ok = arith.cmpi(%i, %n) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  scf.if(%ok) ({\n"
    "    %v = mem.load(%a, %i) : (array<i64, 1, C>, i64) -> (i64)\n"
    "    %z = arith.constant() {value = 0} : () -> (i64)\n"
    "    %neg = arith.cmpi(%v, %z) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "    check.raise(%neg) {exception = \"ValueError: negative\"} : (i1) -> () loc(\"k.py\":7:9)\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @raiser, function_type = (array<i64, 1, C>) -> (), kernel} : () -> ()\n";

static kf_arg array_arg(void *data, kf_dtype t, unsigned ndim, const int64_t *shape, char order) {
  kf_array a;
  kf_array_init(&a, data, KF_MEMORY_HOST, t, ndim, shape, order);
  return kf_arg_array(&a);
}

/* A kernel taking a pointer (numba-cuda's CPointer), its PTX loaded from the backend: the launch packs the integer
 * address given into the pointer's one 8-byte slot; an array or a float for it is refused before any launch. */
static const char *PTR_KIR =
    "func.func() ({\n"
    "^bb0(%p: ptr<i32, 0>, %n: i64):\n" GRID1
    "  %ok = arith.cmpi(%i, %n) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  scf.if(%ok) ({\n"
    "    %v = mem.ptr_load(%p, %i) : (ptr<i32, 0>, i64) -> (i32)\n"
    "    %w = arith.addi(%v, %v) : (i32, i32) -> (i32)\n"
    "    mem.ptr_store(%w, %p, %i) : (i32, ptr<i32, 0>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @ptr_fill, function_type = (ptr<i32, 0>, i64) -> (), kernel} : () -> ()\n";

static void test_pointer_parameter(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_GPU;
  o.disk_cache = 0;
  kf_runtime *rt = NULL;
  kf_module *m = NULL;
  kf_program *p = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
  CHECK(kf_module_parse(ctx, "ptr.kir", PTR_KIR, strlen(PTR_KIR), &m) == KF_OK);
  CHECK(rt && m && kf_program_from_module(rt, m, &p) == KF_OK);
  void *d = NULL;
  CHECK(rt && kf_device_alloc(rt, 8 * sizeof(int32_t), &d) == KF_OK && d);
  kf_arg args[2] = {kf_arg_uint(KF_UINT64, (uint64_t)(uintptr_t)d), kf_arg_int(KF_INT64, 8)};
  kf_kernel *k = NULL;
  CHECK(p && d && kf_program_get_kernel(p, "ptr_fill", args, 2, &k) == KF_OK && k);
  if (k) {
    CHECK(strcmp(kf_kernel_signature(k), "void(int32*, int64)") == 0);
    unsigned g[3] = {1, 1, 1}, b[3] = {32, 1, 1};
    CHECK(kf_launch(k, g, b, 0, NULL, args, 2) == KF_OK);
    for (int i = 0; i < 8; i++) CHECK(((int32_t *)d)[i] == 2 * i);
    int64_t host[8], n8[1] = {8};
    kf_arg bad[2] = {array_arg(host, KF_INT32, 1, n8, 'C'), kf_arg_int(KF_INT64, 8)};
    int launches = fake.launches;
    CHECK(kf_launch(k, g, b, 0, NULL, bad, 2) != KF_OK && fake.launches == launches);
    CHECK_CONTAINS(kf_context_diagnostics(ctx), "argument 1 of kernel ptr_fill (void(int32*, int64)): expected an "
                                                "address (an integer) for int32*, got int32 array of rank 1");
    bad[0] = kf_arg_float(KF_FLOAT64, 1.0);
    CHECK(kf_launch(k, g, b, 0, NULL, bad, 2) != KF_OK && fake.launches == launches);
  }
  kf_device_free(rt, d);
  kf_program_destroy(p);
  kf_module_destroy(m);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
}

static void test_gpu_path(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_GPU;
  o.disk_cache = 0;
  kf_runtime *rt = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK && rt && kf_runtime_get_mode(rt) == KF_RUNTIME_GPU);
  if (!rt) {
    fputs(kf_context_diagnostics(ctx), stderr);
    return;
  }
  CHECK(strcmp(kf_runtime_describe(rt), "GPU 0: Fake GPU (sm_90, 132 SMs)") == 0);
  kf_module *m = NULL;
  CHECK(kf_module_parse(ctx, "kernels.kir", KIR, strlen(KIR), &m) == KF_OK);
  kf_program *p = NULL;
  CHECK(kf_program_from_module(rt, m, &p) == KF_OK);

  int64_t in[10];
  double out[10];
  for (int i = 0; i < 10; i++) in[i] = i * 3, out[i] = -1;
  int64_t n10[1] = {10};
  kf_arg args[2] = {array_arg(in, KF_INT64, 1, n10, 'C'), array_arg(out, KF_FLOAT64, 1, n10, 'C')};
  kf_kernel *k = NULL;
  CHECK(kf_program_get_kernel(p, "foo_grid", args, 2, &k) == KF_OK && k);
  if (!k) {
    fputs(kf_context_diagnostics(ctx), stderr);
    return;
  }
  CHECK(fake.loads == 1);

  /* 32 threads over 10 elements: results copied back, the record read, reported and reset */
  unsigned g[3] = {1, 1, 1}, b32[3] = {32, 1, 1}, b10[3] = {10, 1, 1};
  int allocs0 = fake.allocs;
  CHECK(kf_launch(k, g, b32, 0, NULL, args, 2) == KF_ERROR_OUT_OF_BOUNDS);
  CHECK_CONTAINS(kf_context_diagnostics(ctx),
                 "s000_kernels.py:23:5: error: IndexError: index 10 is out of bounds for axis 0 with size 10 "
                 "(kernel foo_grid, s000_kernels.py:23:5)");
  CHECK(fake.rec.flag == KF_ERROR_NONE && fake.rec.index == 0);  /* reset */
  for (int i = 0; i < 10; i++) CHECK(out[i] == i * 3);
  CHECK(fake.allocs == allocs0 + 2 && fake.frees == fake.allocs);  /* temporaries freed */
  CHECK(fake.last_block[0] == 32 && fake.last_grid[0] == 1);
  kf_context_clear_diagnostics(ctx);
  for (int i = 0; i < 10; i++) out[i] = 0;
  CHECK(kf_launch(k, g, b10, 0, NULL, args, 2) == KF_OK);
  for (int i = 0; i < 10; i++) CHECK(out[i] == i * 3);
  CHECK(kf_context_error_count(ctx) == 0);

  /* a strided host view (every other element of 20, reversed) keeps its strides on the device */
  int64_t big[20];
  for (int i = 0; i < 20; i++) big[i] = 100 + i;
  kf_arg view = array_arg(&big[18], KF_INT64, 1, n10, 'C');
  view.array.strides[0] = -16;
  kf_arg vargs[2] = {view, args[1]};
  kf_kernel *kv = NULL;
  CHECK(kf_program_get_kernel(p, "foo_grid", vargs, 2, &kv) == KF_OK && kv);  /* another argument signature, */
  CHECK(kv && strcmp(kf_kernel_signature(kv), kf_kernel_signature(k)) == 0); /* the same specialisation */
  CHECK(kf_launch(k, g, b10, 0, NULL, vargs, 2) == KF_OK);
  for (int i = 0; i < 10; i++) CHECK(out[i] == 118 - 2 * i);

  /* device arrays: the launch is asynchronous; the IndexError comes at the synchronisation */
  void *din = NULL, *dout = NULL;
  CHECK(kf_device_alloc(rt, sizeof in, &din) == KF_OK && kf_device_alloc(rt, sizeof out, &dout) == KF_OK);
  CHECK(kf_memcpy_to_device(rt, din, in, sizeof in, NULL) == KF_OK);
  kf_array ain, aout;
  kf_array_init(&ain, din, KF_MEMORY_DEVICE, KF_INT64, 1, n10, 'C');
  kf_array_init(&aout, dout, KF_MEMORY_DEVICE, KF_FLOAT64, 1, n10, 'C');
  kf_arg dev[2] = {kf_arg_array(&ain), kf_arg_array(&aout)};
  CHECK(kf_launch(k, g, b32, 0, NULL, dev, 2) == KF_OK);
  CHECK(fake.rec.flag == KF_ERROR_BOUNDS);
  CHECK(kf_runtime_synchronize(rt) == KF_ERROR_OUT_OF_BOUNDS);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "IndexError: index 10 is out of bounds for axis 0 with size 10");
  CHECK(fake.rec.flag == KF_ERROR_NONE);
  CHECK(kf_runtime_synchronize(rt) == KF_OK);  /* reported once */
  kf_context_clear_diagnostics(ctx);
  double back[10];
  CHECK(kf_memcpy_to_host(rt, back, dout, sizeof back, NULL) == KF_OK);
  for (int i = 0; i < 10; i++) CHECK(back[i] == i * 3);
  kf_event *e0 = NULL, *e1 = NULL;
  float ms = 0;
  CHECK(kf_event_create(rt, &e0) == KF_OK && kf_event_create(rt, &e1) == KF_OK);
  CHECK(kf_event_record(e0, NULL) == KF_OK && kf_event_record(e1, NULL) == KF_OK && kf_event_synchronize(e1) == KF_OK);
  CHECK(kf_event_elapsed_ms(e0, e1, &ms) == KF_OK && ms == 1.5f);
  kf_event_destroy(e0);
  kf_event_destroy(e1);

  /* scalars converted to the parameter type (int32), the kernel's own thread limit, dynamic shared memory */
  float fa[5] = {1, 2, 3, 4, 5};
  int64_t n5[1] = {5};
  kf_arg fargs[2] = {array_arg(fa, KF_FLOAT32, 1, n5, 'C'), kf_arg_float(KF_FLOAT64, -2.5)};
  kf_kernel *ks = NULL;
  fake.func_max_threads = 768;
  CHECK(kf_program_get_kernel(p, "scale", fargs, 2, &ks) == KF_OK && ks);
  if (ks) {
    CHECK(kf_launch(ks, g, b32, 0, NULL, fargs, 2) == KF_OK);
    for (int i = 0; i < 5; i++) CHECK(fa[i] == -2.0f * (float)(i + 1));
    CHECK(kf_launch(ks, g, (unsigned[3]){1024, 1, 1}, 0, NULL, fargs, 2) == KF_ERROR_INVALID_INPUT);
    CHECK_CONTAINS(kf_context_diagnostics(ctx), "a block of 1024 threads is above this kernel's limit of 768 threads per block");
    CHECK(kf_launch(ks, g, b32, 100000, NULL, fargs, 2) == KF_OK);
    CHECK(fake.sets == 1 && fake.dyn_attr == 100000 && fake.last_shared == 100000);
    CHECK(kf_launch(ks, g, b32, 60000, NULL, fargs, 2) == KF_OK && fake.sets == 1);  /* already allowed */
    CHECK(kf_launch(ks, g, b32, 240000, NULL, fargs, 2) == KF_ERROR_INVALID_INPUT);
    CHECK_CONTAINS(kf_context_diagnostics(ctx), "240000 bytes of dynamic shared memory plus 0 bytes of static shared "
                                                "memory are above the device's limit of 232448 bytes per block");
    /* a failing launch names the call */
    fake.fail_launch = 1;
    CHECK(kf_launch(ks, g, b32, 0, NULL, fargs, 2) == KF_ERROR_DEVICE);
    CHECK_CONTAINS(kf_context_diagnostics(ctx), "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (invalid argument)");
    fake.fail_launch = 0;
    CHECK(fake.frees == fake.allocs - 2);  /* only din and dout are still allocated */
  }
  kf_context_clear_diagnostics(ctx);
  kf_program_destroy(p);

  /* a module the JIT refuses: the error and its log */
  fake.fail_load = 1;
  CHECK(kf_program_from_module(rt, m, &p) == KF_OK);
  CHECK(kf_program_get_kernel(p, "foo_grid", args, 2, &k) == KF_ERROR_DEVICE);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)");
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "note: the JIT compiler's error log:\nptxas application ptx input, line 7; fatal");
  fake.fail_load = 0;
  kf_program_destroy(p);
  kf_context_clear_diagnostics(ctx);
  kf_runtime_destroy(rt);  /* frees din, dout */
  CHECK(fake.frees == fake.allocs);
  CHECK(fake.unloads == fake.loads);
  kf_module_destroy(m);
  kf_context_destroy(ctx);
}

/* A kernel whose cache entry is on disk loads without compiling anything (the frontend only reads which
 * functions the source defines: kf_program_get_function; the body is never typed); a corrupt entry is refused
 * and the kernel compiled instead. */
static void test_disk_cache_hit(void) {
  char dir[] = "/tmp/kfront-gpu-fake-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  const char *source = "from numba import cuda\n@cuda.jit\ndef foo_grid(a, b):\n"
                       "    never_typed(a, b)  # a cache hit does not compile it\n";
  const char *argsig = "void(int64[::1], float64[::1])";
  const char *payload =
      "kfront-kernel 4\nentry foo_grid\nplan hidden=grid_x,grid_y,grid_z grid=resident block=0,0,0 divisor=1,1,1 "
      "shared=0\nparams 5\narray<i64, 1, A>\narray<f64, 1, A>\ni32\ni32\ni32\n"
      "warnings 1 41\nk.py:3:5: warning: the compile's warning\nptx\n"
      "// fake PTX\n.visible .global .align 8 .b8 __kf_error[40];\n"
      ".visible .global .align 1 .b8 __kf_error_strings[15] = {102, 111, 111, 95, 103, 114, 105, 100, 0, 0, 107, 46, 112, 121, 0};\n"
      ".visible .entry foo_grid(\n";
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_GPU;
  o.cache_dir = dir;
  o.backend = KF_BACKEND_LLVM;
  kf_runtime *rt = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
  kf_program *p = NULL;
  CHECK(kf_program_create(rt, "k.py", source, strlen(source), NULL, &p) == KF_OK);
  RtCacheKey key;  /* the entry the program will look for, planted before it asks */
  CHECK(rt_program_cache_key((RtProgram *)p, "foo_grid", argsig, &key));
  CHECK(rt_cache_write_entry(dir, &key, payload, strlen(payload), NULL));
  int64_t in[4] = {5, 6, 7, 8};
  double out[4] = {0};
  int64_t n4[1] = {4};
  kf_arg args[2] = {array_arg(in, KF_INT64, 1, n4, 'C'), array_arg(out, KF_FLOAT64, 1, n4, 'C')};
  kf_kernel *k = NULL;
  CHECK(kf_program_get_kernel(p, "foo_grid", args, 2, &k) == KF_OK && k);
  if (k) {
    CHECK(kf_kernel_cache_source(k) == 2);
    /* the warnings of the compile the entry stands for are given again */
    CHECK_CONTAINS(kf_context_diagnostics(ctx), "k.py:3:5: warning: the compile's warning\n");
    CHECK(strcmp(kf_kernel_signature(k), "void(int64[:], float64[:])") == 0);
    unsigned g[3] = {1, 1, 1}, b[3] = {8, 1, 1};
    fake.grid_params = 6;  /* the manifest's plan: the grid dims follow the user's 6 slots */
    CHECK(kf_launch(k, g, b, 0, NULL, args, 2) == KF_ERROR_OUT_OF_BOUNDS);
    fake.grid_params = 0;
    CHECK(fake.last_gs[0] == 1 && fake.last_gs[1] == 1 && fake.last_gs[2] == 1);
    kf_arg three[3] = {args[0], args[1], kf_arg_int(KF_INT32, 1)};
    CHECK(kf_launch(k, g, b, 0, NULL, three, 3) == KF_ERROR_INVALID_INPUT);
    CHECK_CONTAINS(kf_context_diagnostics(ctx), "kernel foo_grid takes 2 arguments (void(int64[:], float64[:])), but 3 were given");
    /* names from the module's string table: file "k.py" */
    CHECK_CONTAINS(kf_context_diagnostics(ctx), "IndexError: index 4 is out of bounds for axis 0 with size 4 (kernel foo_grid, k.py:23:5)");
    for (int i = 0; i < 4; i++) CHECK(out[i] == in[i]);
  }
  kf_runtime_stats st;
  kf_runtime_get_stats(rt, &st);
  CHECK(st.cache_disk_hits == 1 && st.compiles == 0);
  kf_program_destroy(p);
  kf_context_clear_diagnostics(ctx);

  /* the same entry, corrupted: refused, removed, and the (unavailable here) compiler asked instead */
  StrBuf path;
  sb_init(&path);
  rt_cache_entry_path(dir, &key, &path);
  FILE *f = fopen(sb_cstr(&path), "r+b");
  CHECK(f && fseek(f, RT_CACHE_HEADER_SIZE + 20, SEEK_SET) == 0 && fputc('X', f) != EOF);
  if (f) fclose(f);
  kf_runtime_destroy(rt);
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
  CHECK(kf_program_create(rt, "k.py", source, strlen(source), NULL, &p) == KF_OK);
  CHECK(kf_program_get_kernel(p, "foo_grid", args, 2, &k) != KF_OK);
  kf_runtime_get_stats(rt, &st);
  CHECK(st.cache_corrupt == 1 && st.cache_disk_hits == 0 && st.compiles >= 1);
  CHECK(access(sb_cstr(&path), F_OK) != 0);
  sb_free(&path);
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

/* A compile's warnings are kept in its disk-cache entry and given again by the hit a fresh runtime takes. */
static void test_disk_cache_keeps_warnings(void) {
  char dir[] = "/tmp/kfront-gpu-fake-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  const char *source = "from numba import cuda\n"
                       "@cuda.jit\n"
                       "def warned(a, n):\n"
                       "    if n > 0:\n"
                       "        c = 1.0\n"
                       "        a[0] = c\n"
                       "    else:\n"
                       "        a[0] = c\n";
  double out[1] = {0};
  int64_t n1[1] = {1};
  kf_arg args[2] = {array_arg(out, KF_FLOAT64, 1, n1, 'C'), kf_arg_int(KF_INT64, 1)};
  for (int round = 0; round < 2; round++) {
    kf_context *ctx = kf_context_create();
    kf_runtime_options o;
    kf_runtime_options_init(&o);
    o.mode = KF_RUNTIME_GPU;
    o.cache_dir = dir;
    o.backend = KF_BACKEND_LLVM;
    kf_runtime *rt = NULL;
    kf_program *p = NULL;
    kf_kernel *k = NULL;
    CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
    CHECK(kf_program_create(rt, "w.py", source, strlen(source), NULL, &p) == KF_OK);
    CHECK(kf_program_get_kernel(p, "warned", args, 2, &k) == KF_OK && k);
    CHECK_CONTAINS(kf_context_diagnostics(ctx), "w.py:8:16: warning: Detected uninitialized variable c");
    kf_runtime_stats st;
    kf_runtime_get_stats(rt, &st);
    CHECK(round == 0 ? st.compiles >= 1 && st.cache_disk_hits == 0 : st.cache_disk_hits == 1 && st.compiles == 0);
    kf_program_destroy(p);
    kf_runtime_destroy(rt);
    kf_context_destroy(ctx);
  }
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

/* An entry another user could have planted is never a hit: a valid entry in a cache directory group and others
 * can write is not read (the runtime warns and compiles — here the compiler fails, the source is not Python),
 * nor one reached through a symlink from a private directory. */
static void test_disk_cache_refused(void) {
  char dir[] = "/tmp/kfront-gpu-fake-XXXXXX", priv[] = "/tmp/kfront-gpu-fake-XXXXXX";
  CHECK(mkdtemp(dir) != NULL && mkdtemp(priv) != NULL);
  const char *source = "from numba import cuda\n@cuda.jit\ndef foo_grid(a, b):\n"
                       "    never_typed(a, b)  # does not compile: only a cache hit could launch it\n";
  RtCacheKey key;  /* the key the program below looks for (rt_program_cache_key: the one definition) */
  {
    kf_context *kctx = kf_context_create();
    kf_runtime_options ko;
    kf_runtime_options_init(&ko);
    ko.mode = KF_RUNTIME_GPU;
    ko.backend = KF_BACKEND_LLVM;
    kf_runtime *krt = NULL;
    kf_program *kp = NULL;
    CHECK(kf_runtime_create(kctx, &ko, &krt) == KF_OK);
    CHECK(kf_program_create(krt, "k.py", source, strlen(source), NULL, &kp) == KF_OK);
    CHECK(rt_program_cache_key((RtProgram *)kp, "foo_grid", "void(int64[::1], float64[::1])", &key));
    kf_program_destroy(kp);
    kf_runtime_destroy(krt);
    kf_context_destroy(kctx);
  }
  const char *payload = "kfront-kernel 4\nentry foo_grid\nplan hidden= grid=user block=0,0,0 divisor=1,1,1 shared=0\n"
                        "params 2\narray<i64, 1, A>\narray<f64, 1, A>\nptx\n.visible .entry foo_grid(\n";
  CHECK(rt_cache_write_entry(dir, &key, payload, strlen(payload), NULL));
  CHECK(chmod(dir, 0777) == 0);
  int64_t in[4] = {5, 6, 7, 8};
  double out[4] = {0};
  int64_t n4[1] = {4};
  kf_arg args[2] = {array_arg(in, KF_INT64, 1, n4, 'C'), array_arg(out, KF_FLOAT64, 1, n4, 'C')};
  for (int round = 0; round < 2; round++) {
    kf_context *ctx = kf_context_create();
    kf_runtime_options o;
    kf_runtime_options_init(&o);
    o.mode = KF_RUNTIME_GPU;
    o.cache_dir = round == 0 ? dir : priv;
    o.backend = KF_BACKEND_LLVM;
    if (round == 1) { /* the private directory's entry is a symlink to the planted one */
      StrBuf from, to;
      sb_init(&from);
      sb_init(&to);
      rt_cache_entry_path(dir, &key, &to);
      rt_cache_entry_path(priv, &key, &from);
      CHECK(symlink(sb_cstr(&to), sb_cstr(&from)) == 0);
      sb_free(&from);
      sb_free(&to);
    }
    kf_runtime *rt = NULL;
    CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
    if (round == 0)
      CHECK_CONTAINS(kf_context_diagnostics(ctx), "warning: cache directory /tmp/kfront-gpu-fake-");
    if (round == 0)
      CHECK_CONTAINS(kf_context_diagnostics(ctx), "is writable by group and others (mode 777): another user could "
                                                  "plant entries in it; compiling without the disk cache");
    kf_program *p = NULL;
    CHECK(kf_program_create(rt, "k.py", source, strlen(source), NULL, &p) == KF_OK);
    kf_kernel *k = NULL;
    CHECK(kf_program_get_kernel(p, "foo_grid", args, 2, &k) != KF_OK);
    kf_runtime_stats st;
    kf_runtime_get_stats(rt, &st);
    CHECK(st.cache_disk_hits == 0 && st.compiles >= 1);
    CHECK(st.cache_corrupt == (round == 1 ? 1u : 0u)); /* the symlink: refused and removed */
    kf_program_destroy(p);
    kf_runtime_destroy(rt);
    kf_context_destroy(ctx);
  }
  char cmd[160];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir, priv);
  CHECK(system(cmd) == 0);
}

/* A kernel the grid-stride pass rewrote: the user's signature, a 1-D grid of min(blocks, SMs x occupancy)
 * blocks, the user's grid dims after the user's parameters; occupancy falls back to 2048 / threads. */
static const char *TWICE =
    "func.func() ({\n"
    "^bb0(%in: array<f64, 1, A>, %out: array<f64, 1, A>):\n" GRID1
    "  %n = mem.dim(%in) {axis = 0} : (array<f64, 1, A>) -> (i64)\n"
    "  %ok = arith.cmpi(%i, %n) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  scf.if(%ok) ({\n"
    "    %v = mem.load(%in, %i) : (array<f64, 1, A>, i64) -> (f64)\n"
    "    %w = arith.addf(%v, %v) : (f64, f64) -> (f64)\n"
    "    mem.store(%w, %out, %i) : (f64, array<f64, 1, A>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @twice, function_type = (array<f64, 1, A>, array<f64, 1, A>) -> (), kernel} : () -> ()\n";

/* The grid-stride form as a variant (the runtime's pipeline: grid-stride{variant=1}): launched where the device
 * holds as many of its blocks per SM as of the plain kernel's, else the plain kernel on the user's grid (the
 * loop's registers must not cost occupancy: launch.c's variant_pays); the answers memoised. */
static void test_grid_stride_variant(void) {
  CHECK(rt_grid_stride_pays(16, 16, 0, 0) && rt_grid_stride_pays(12, 16, 0, 0) && !rt_grid_stride_pays(16, 12, 0, 0));
  CHECK(rt_grid_stride_pays(16, 12, 0, 1024));  /* shared memory of its own (privatised atomics): on purpose */
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_GPU;
  o.disk_cache = 0;
  kf_runtime *rt = NULL;
  kf_module *m = NULL;
  kf_program *p = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK && rt);
  CHECK(kf_module_parse(ctx, "twice.kir", TWICE, strlen(TWICE), &m) == KF_OK);
  CHECK(m && kf_module_run_pipeline(m, "grid-stride{variant=1}", NULL, NULL) == KF_OK);
  CHECK(rt && m && kf_program_from_module(rt, m, &p) == KF_OK);
  enum { N = 5000 };
  double *in = malloc(N * sizeof *in), *out = calloc(N, sizeof *out);
  for (int i = 0; i < N; i++) in[i] = i;
  int64_t n[1] = {N};
  kf_arg args[2] = {array_arg(in, KF_FLOAT64, 1, n, 'C'), array_arg(out, KF_FLOAT64, 1, n, 'C')};
  kf_kernel *k = NULL;
  CHECK(p && kf_program_get_kernel(p, "twice", args, 2, &k) == KF_OK && k);
  if (k) {
    CHECK(strcmp(kf_kernel_signature(k), "void(float64[:], float64[:])") == 0);
    unsigned g[3] = {(N + 127) / 128, 1, 1}, b[3] = {128, 1, 1};
    /* as many blocks per SM (16 each): the grid-stride form, on the blocks the device holds at once */
    fake.occupancy = 16;
    fake.occupancy_gs = 0;
    fake.grid_params = 6;
    CHECK(kf_launch(k, g, b, 0, NULL, args, 2) == KF_OK);
    CHECK(!strcmp(fake.last_fn, "twice__gs") && fake.last_grid[0] == (N + 127) / 128 && fake.last_gs[0] == (N + 127) / 128);
    bool same = true;
    for (int i = 0; i < N; i++) same = same && out[i] == 2.0 * i;
    CHECK(same);
    /* another block size, where the variant's registers leave fewer blocks per SM (12 to 16): the plain kernel */
    fake.occupancy_gs = 12;
    fake.grid_params = 0;
    memset(out, 0, N * sizeof *out);
    unsigned g2[3] = {(N + 63) / 64, 1, 1}, b2[3] = {64, 1, 1};
    CHECK(kf_launch(k, g2, b2, 0, NULL, args, 2) == KF_OK);
    CHECK(!strcmp(fake.last_fn, "twice") && fake.last_grid[0] == (N + 63) / 64 && fake.last_block[0] == 64);
    same = true;
    for (int i = 0; i < N; i++) same = same && out[i] == 2.0 * i;
    CHECK(same);
    int calls = fake.occ_calls;
    CHECK(kf_launch(k, g2, b2, 0, NULL, args, 2) == KF_OK && fake.occ_calls == calls && !strcmp(fake.last_fn, "twice"));
    /* a failed launch configuration is still the configuration check's error */
    CHECK(kf_launch(k, g, (unsigned[3]){2048, 1, 1}, 0, NULL, args, 2) == KF_ERROR_INVALID_INPUT);
    CHECK_CONTAINS(kf_context_diagnostics(ctx), "2048");
  }
  fake.occupancy = fake.occupancy_gs = 0;
  fake.grid_params = 0;
  free(in);
  free(out);
  kf_program_destroy(p);
  kf_module_destroy(m);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
}

/* `x, y = cuda.grid(2); a[x, y] += 1` over a C-order float32 array */
static const char *INC2 =
    "func.func() ({\n"
    "^bb0(%0: array<f32, 2, C>):\n"
    "  %1 = gpu.block_dim() {dim = 0} : () -> (i32)\n"
    "  %2 = arith.extsi(%1) : (i32) -> (i64)\n"
    "  %3 = gpu.thread_id() {dim = 0} : () -> (i32)\n"
    "  %4 = arith.extsi(%3) : (i32) -> (i64)\n"
    "  %5 = gpu.block_id() {dim = 0} : () -> (i32)\n"
    "  %6 = arith.extsi(%5) : (i32) -> (i64)\n"
    "  %7 = arith.muli(%2, %6) : (i64, i64) -> (i64)\n"
    "  %8 = arith.addi(%7, %4) : (i64, i64) -> (i64)\n"
    "  %9 = gpu.block_dim() {dim = 1} : () -> (i32)\n"
    "  %10 = arith.extsi(%9) : (i32) -> (i64)\n"
    "  %11 = gpu.thread_id() {dim = 1} : () -> (i32)\n"
    "  %12 = arith.extsi(%11) : (i32) -> (i64)\n"
    "  %13 = gpu.block_id() {dim = 1} : () -> (i32)\n"
    "  %14 = arith.extsi(%13) : (i32) -> (i64)\n"
    "  %15 = arith.muli(%10, %14) : (i64, i64) -> (i64)\n"
    "  %16 = arith.addi(%15, %12) : (i64, i64) -> (i64)\n"
    "  %17 = mem.dim(%0) {axis = 0} : (array<f32, 2, C>) -> (i64)\n"
    "  %18 = arith.cmpi(%8, %17) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  %19 = mem.dim(%0) {axis = 1} : (array<f32, 2, C>) -> (i64)\n"
    "  %20 = arith.cmpi(%16, %19) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  %21 = arith.andi(%18, %20) : (i1, i1) -> (i1)\n"
    "  scf.if(%21) ({\n"
    "    %22 = mem.load(%0, %8, %16) : (array<f32, 2, C>, i64, i64) -> (f32)\n"
    "    %23 = arith.constant() {value = 1.0 : f32} : () -> (f32)\n"
    "    %24 = arith.addf(%22, %23) : (f32, f32) -> (f32)\n"
    "    mem.store(%24, %0, %8, %16) : (f32, array<f32, 2, C>, i64, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @inc2, function_type = (array<f32, 2, C>) -> (), kernel, arg_names = [\"a\"]} : () -> ()\n";

/* block-pair's variant (passes/block_pair.c, variant=1) on the GPU path: the launch runs inc2__bp on the user's
 * grid halved along y (rounded up: an odd grid's last pair has one half), the user's block, the user's grid as the
 * hidden parameters; every element of the user's launch incremented once, those outside it not at all. */
static void test_block_pair_variant(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_GPU;
  o.disk_cache = 0;
  kf_runtime *rt = NULL;
  kf_module *m = NULL;
  kf_program *p = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK && rt);
  CHECK(kf_module_parse(ctx, "inc2.kir", INC2, strlen(INC2), &m) == KF_OK);
  CHECK(m && kf_module_run_pipeline(m, "block-pair{variant=1}", NULL, NULL) == KF_OK);
  CHECK(rt && m && kf_program_from_module(rt, m, &p) == KF_OK);
  enum { R = 40, C = 100 };
  float *a = calloc(R * C, sizeof *a);
  int64_t shape[2] = {R, C};
  kf_arg args[1] = {array_arg(a, KF_FLOAT32, 2, shape, 'C')};
  kf_kernel *k = NULL;
  CHECK(p && kf_program_get_kernel(p, "inc2", args, 1, &k) == KF_OK && k);
  if (k) {
    unsigned g[3] = {3, 5, 1}, b[3] = {16, 16, 1};  /* 48 x 80 threads: columns 80.. are outside the launch */
    fake.grid_params = 5;
    CHECK(kf_launch(k, g, b, 0, NULL, args, 1) == KF_OK);
    CHECK(!strcmp(fake.last_fn, "inc2__bp"));
    CHECK(fake.last_grid[0] == 3 && fake.last_grid[1] == 3 && fake.last_grid[2] == 1);
    CHECK(fake.last_block[0] == 16 && fake.last_block[1] == 16 && fake.last_block[2] == 1);
    CHECK(fake.last_gs[0] == 3 && fake.last_gs[1] == 5 && fake.last_gs[2] == 1);
    bool right = true;
    for (int x = 0; x < R; x++)
      for (int y = 0; y < C; y++) right = right && a[x * C + y] == (y < 80 ? 1.0f : 0.0f);
    CHECK(right);
  }
  fake.grid_params = 0;
  free(a);
  kf_program_destroy(p);
  kf_module_destroy(m);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
}

static void test_grid_stride(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_GPU;
  o.disk_cache = 0;
  kf_runtime *rt = NULL;
  kf_module *m = NULL;
  kf_program *p = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK && rt);
  CHECK(kf_module_parse(ctx, "twice.kir", TWICE, strlen(TWICE), &m) == KF_OK);
  CHECK(m && kf_module_run_pipeline(m, "grid-stride", NULL, NULL) == KF_OK);
  CHECK(rt && m && kf_program_from_module(rt, m, &p) == KF_OK);
  enum { N = 100000 };
  double *in = malloc(N * sizeof *in), *out = calloc(N, sizeof *out);
  for (int i = 0; i < N; i++) in[i] = i;
  int64_t n[1] = {N};
  kf_arg args[2] = {array_arg(in, KF_FLOAT64, 1, n, 'C'), array_arg(out, KF_FLOAT64, 1, n, 'C')};
  kf_kernel *k = NULL;
  CHECK(p && kf_program_get_kernel(p, "twice", args, 2, &k) == KF_OK && k);
  if (!k) {
    fputs(kf_context_diagnostics(ctx), stderr);
  } else {
    CHECK(strcmp(kf_kernel_signature(k), "void(float64[:], float64[:])") == 0);
    unsigned g[3] = {(N + 127) / 128, 1, 1}, b[3] = {128, 1, 1};
    fake.grid_params = 6;
    fake.occupancy = 3;
    CHECK(kf_launch(k, g, b, 0, NULL, args, 2) == KF_OK);
    CHECK(fake.last_grid[0] == 132 * 3 && fake.last_grid[1] == 1 && fake.last_grid[2] == 1);
    CHECK(fake.last_block[0] == 128);
    CHECK(fake.last_gs[0] == (N + 127) / 128 && fake.last_gs[1] == 1 && fake.last_gs[2] == 1);
    bool same = true;
    for (int i = 0; i < N; i++) same = same && out[i] == 2.0 * i;
    CHECK(same);
    int calls = fake.occ_calls;
    CHECK(kf_launch(k, g, b, 0, NULL, args, 2) == KF_OK && fake.occ_calls == calls);  /* memoised */
    /* the occupancy query failing: 2048 / 512 = 4 blocks per SM */
    fake.occupancy = 0;
    memset(out, 0, N * sizeof *out);
    unsigned g2[3] = {2000, 1, 1}, b2[3] = {512, 1, 1};  /* more blocks than the data needs */
    CHECK(kf_launch(k, g2, b2, 0, NULL, args, 2) == KF_OK);
    CHECK(fake.last_grid[0] == 132 * 4 && fake.last_gs[0] == 2000);
    same = true;
    for (int i = 0; i < N; i++) same = same && out[i] == 2.0 * i;
    CHECK(same);
    /* fewer blocks than the device holds: the user's block count */
    unsigned g3[3] = {7, 1, 1};
    CHECK(kf_launch(k, g3, b, 0, NULL, args, 2) == KF_OK && fake.last_grid[0] == 7 && fake.last_gs[0] == 7);
    /* the user's grid is still checked against the device's limits, and the argument count against the user's */
    CHECK(kf_launch(k, (unsigned[3]){1, 70000, 1}, b, 0, NULL, args, 2) == KF_ERROR_INVALID_INPUT);
    CHECK_CONTAINS(kf_context_diagnostics(ctx), "grid dimension y is 70000, above the device's limit of 65535");
    kf_arg five[5] = {args[0], args[1], kf_arg_int(KF_INT32, 1), kf_arg_int(KF_INT32, 1), kf_arg_int(KF_INT32, 1)};
    CHECK(kf_launch(k, g, b, 0, NULL, five, 5) == KF_ERROR_INVALID_INPUT);
    CHECK_CONTAINS(kf_context_diagnostics(ctx), "kernel twice takes 2 arguments (void(float64[:], float64[:])), but 5 were given");
    CHECK(kf_program_get_kernel(p, "twice", five, 5, &k) != KF_OK);
    fake.grid_params = 0;
  }
  free(in);
  free(out);
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  kf_module_destroy(m);
  kf_context_destroy(ctx);
}

/* A cooperative kernel (as kfront compiles cuda.cg.this_grid().sync()): block sums, grid barrier, the total. */
static const char *GSUM =
    "func.func() ({\n"
    "^bb0(%in: array<f64, 1, A>, %partial: array<f64, 1, A>, %out: array<f64, 1, A>):\n" GRID1
    "  gpu.grid_sync() : () -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @gsum, function_type = (array<f64, 1, A>, array<f64, 1, A>, array<f64, 1, A>) -> (), kernel, "
    "cooperative} : () -> ()\n";

static void test_cooperative(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_GPU;
  o.disk_cache = 0;
  kf_runtime *rt = NULL;
  kf_module *m = NULL, *plain = NULL;
  kf_program *p = NULL, *pp = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK && rt);
  CHECK(kf_module_parse(ctx, "gsum.kir", GSUM, strlen(GSUM), &m) == KF_OK);
  CHECK(kf_module_parse(ctx, "k.kir", KIR, strlen(KIR), &plain) == KF_OK);
  CHECK(rt && m && kf_program_from_module(rt, m, &p) == KF_OK);
  CHECK(rt && plain && kf_program_from_module(rt, plain, &pp) == KF_OK);
  enum { N = 1000 };
  double in[N], partial[300], out[N];
  for (int i = 0; i < N; i++) in[i] = i;
  int64_t n[1] = {N}, n8[1] = {300};
  kf_arg args[3] = {array_arg(in, KF_FLOAT64, 1, n, 'C'), array_arg(partial, KF_FLOAT64, 1, n8, 'C'),
                    array_arg(out, KF_FLOAT64, 1, n, 'C')};
  kf_kernel *k = NULL, *tk = NULL;
  CHECK(p && kf_program_get_kernel(p, "gsum", args, 3, &k) == KF_OK && k);
  int64_t ints[N];
  for (int i = 0; i < N; i++) ints[i] = i;
  kf_arg targs[2] = {array_arg(ints, KF_INT64, 1, n, 'C'), args[2]};
  CHECK(pp && kf_program_get_kernel(pp, "foo_grid", targs, 2, &tk) == KF_OK && tk);
  if (k && tk) {
    CHECK(kf_kernel_is_cooperative(k) == 1 && kf_kernel_is_cooperative(tk) == 0);
    fake.occupancy = 2;
    unsigned blocks = 0;
    CHECK(kf_kernel_max_cooperative_blocks(k, 256, 0, &blocks) == KF_OK && blocks == 132 * 2);
    CHECK(kf_kernel_max_cooperative_blocks(k, 0, 0, &blocks) == KF_ERROR_INVALID_INPUT && blocks == 0);
    CHECK_CONTAINS(kf_context_diagnostics(ctx), "max_cooperative_grid_blocks of gsum: a block of 0 threads");
    kf_context_clear_diagnostics(ctx);
    /* a grid that fits: the cooperative entry point, the results of the kernel */
    int coop = fake.coop_launches, launches = fake.launches;
    unsigned g[3] = {4, 1, 1}, b[3] = {256, 1, 1};
    CHECK(kf_launch(k, g, b, 0, NULL, args, 3) == KF_OK);
    CHECK(fake.coop_launches == coop + 1 && fake.launches == launches + 1 && fake.last_grid[0] == 4);
    bool same = true;
    for (int i = 0; i < N; i++) same = same && out[i] == 499500.0;
    CHECK(same);
    /* a plain kernel: cuLaunchKernel */
    unsigned b250[3] = {250, 1, 1};
    CHECK(kf_launch(tk, g, b250, 0, NULL, targs, 2) == KF_OK && fake.coop_launches == coop + 1 && out[999] == 999.0);
    /* one block too many: refused before the driver sees it */
    launches = fake.launches;
    unsigned big[3] = {132 * 2 + 1, 1, 1};
    CHECK(kf_launch(k, big, b, 0, NULL, args, 3) == KF_ERROR_INVALID_INPUT && fake.launches == launches);
    CHECK_CONTAINS(kf_context_diagnostics(ctx), "invalid launch of gsum: it synchronises its grid (cuda.cg.this_grid), "
                   "so all 265 blocks of the grid (265, 1, 1) must be resident at once, but the device holds at most "
                   "264 blocks of 256 threads");
    kf_error_info e;
    CHECK(kf_context_first_error(ctx, &e) == KF_OK && e.kind == KF_ERRKIND_LAUNCH_CONFIG);
    kf_context_clear_diagnostics(ctx);
    unsigned g2d[3] = {12, 22, 1};  /* 264 blocks over two dimensions fit */
    CHECK(kf_launch(k, g2d, b, 0, NULL, args, 3) == KF_OK && fake.coop_launches == coop + 2);
    fake.occupancy = 0;
  }
  kf_program_destroy(p);
  kf_program_destroy(pp);
  kf_module_destroy(m);
  kf_module_destroy(plain);
  kf_runtime_destroy(rt);
  /* a driver without cuLaunchCooperativeKernel: the launch is refused with the reason */
  install_fake_with(false, false);
  rt = NULL;
  m = NULL;
  p = NULL;
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK && rt);
  CHECK(kf_module_parse(ctx, "gsum.kir", GSUM, strlen(GSUM), &m) == KF_OK);
  CHECK(rt && m && kf_program_from_module(rt, m, &p) == KF_OK);
  k = NULL;
  CHECK(p && kf_program_get_kernel(p, "gsum", args, 3, &k) == KF_OK && k);
  if (k) {
    unsigned g[3] = {2, 1, 1}, b[3] = {32, 1, 1};
    CHECK(kf_launch(k, g, b, 0, NULL, args, 3) == KF_ERROR_DEVICE);
    CHECK_CONTAINS(kf_context_diagnostics(ctx), "kernel gsum synchronises its grid, but the CUDA driver lacks "
                   "cuLaunchCooperativeKernel");
  }
  kf_program_destroy(p);
  kf_module_destroy(m);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
  install_fake();
}

/* The host side of @vectorize, @cuda.reduce and @guvectorize (runtime/host_funcs.c) on the GPU path, where host
 * operands are staged in device memory: kernels with the `generated` contracts of compile.h (run in C above),
 * their results, and every temporary freed. */
#define GEN_KERNEL(name, params, types, gen)                                                     \
  "func.func() ({\n^bb0(" params "):\n  func.return() : () -> ()\n}) {sym_name = @" name          \
  ", function_type = (" types ") -> (), kernel, py_name = \"" name "\", generated = " gen "} : () -> ()\n"
static const char *GENERATED =
    GEN_KERNEL("vadd", "%a: array<f64, 1, A>, %b: array<f64, 1, A>, %c: array<f64, 1, A>",
               "array<f64, 1, A>, array<f64, 1, A>, array<f64, 1, A>", "\"vectorize\"")
    GEN_KERNEL("rsum", "%a: array<f64, 1, A>, %b: array<f64, 1, A>", "array<f64, 1, A>, array<f64, 1, A>", "\"reduce\"")
    GEN_KERNEL("gcum", "%a: array<f64, 2, A>, %b: array<f64, 2, A>", "array<f64, 2, A>, array<f64, 2, A>",
               "\"guvectorize\", gu_layout = \"(n)->(n)\"");

static void test_host_funcs(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_GPU;
  o.disk_cache = 0;
  kf_runtime *rt = NULL;
  kf_module *m = NULL;
  kf_program *p = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK && rt);
  CHECK(kf_module_parse(ctx, "generated.kir", GENERATED, strlen(GENERATED), &m) == KF_OK);
  CHECK(rt && m && kf_program_from_module(rt, m, &p) == KF_OK);
  kf_function *vadd = NULL, *rsum = NULL, *gcum = NULL;
  CHECK(p && kf_program_get_function(p, "vadd", &vadd) == KF_OK && kf_program_get_function(p, "rsum", &rsum) == KF_OK &&
        kf_program_get_function(p, "gcum", &gcum) == KF_OK);
  if (!vadd || !rsum || !gcum) {
    fputs(kf_context_diagnostics(ctx), stderr);
    return;
  }
  int allocs0 = fake.allocs, frees0 = fake.frees;
  /* (3, 1) + a reversed (4,) -> a (3, 4) output with gaps (every other column of 3 x 8): staged once each */
  double a[3] = {1, 2, 3}, b[4] = {10, 20, 30, 40}, wide[24];
  for (int i = 0; i < 24; i++) wide[i] = -1;
  kf_arg in[2] = {array_arg(a, KF_FLOAT64, 2, (int64_t[]){3, 1}, 'C'), array_arg(&b[3], KF_FLOAT64, 1, (int64_t[]){4}, 'C')};
  in[1].array.strides[0] = -8;
  kf_arg out = array_arg(wide, KF_FLOAT64, 2, (int64_t[]){3, 4}, 'C');
  out.array.strides[0] = 64;
  out.array.strides[1] = 16;
  int launches0 = fake.launches;
  CHECK(kf_ufunc_call(vadd, in, 2, &out.array, NULL) == KF_OK);
  CHECK(fake.launches - launches0 == 3);  /* (3, 1) with (4,): no dimension merges: one launch per row */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) {
      CHECK(wide[i * 8 + 2 * j] == a[i] + b[3 - j]);
      CHECK(wide[i * 8 + 2 * j + 1] == -1);
    }
  CHECK(fake.allocs - allocs0 == 3 && fake.frees - frees0 == 3);
  /* a scalar with device arrays: only the scalar is staged */
  void *dx = NULL, *dy = NULL;
  CHECK(kf_device_alloc(rt, 4 * sizeof(double), &dx) == KF_OK && kf_device_alloc(rt, 4 * sizeof(double), &dy) == KF_OK);
  CHECK(kf_memcpy_to_device(rt, dx, b, sizeof b, NULL) == KF_OK);
  kf_array ax, ay;
  kf_array_init(&ax, dx, KF_MEMORY_DEVICE, KF_FLOAT64, 1, (int64_t[]){4}, 'C');
  kf_array_init(&ay, dy, KF_MEMORY_DEVICE, KF_FLOAT64, 1, (int64_t[]){4}, 'C');
  kf_arg sd[2] = {kf_arg_array(&ax), kf_arg_float(KF_FLOAT64, 0.5)};
  allocs0 = fake.allocs, frees0 = fake.frees;
  double back[4];
  CHECK(kf_ufunc_call(vadd, sd, 2, &ay, NULL) == KF_OK);
  CHECK(kf_memcpy_to_host(rt, back, dy, sizeof back, NULL) == KF_OK);
  for (int i = 0; i < 4; i++) CHECK(back[i] == b[i] + 0.5);
  CHECK(fake.allocs - allocs0 == 1 && fake.frees - frees0 == 1);
  /* device only: nothing allocated */
  kf_arg dd[2] = {kf_arg_array(&ax), kf_arg_array(&ax)};
  allocs0 = fake.allocs;
  CHECK(kf_ufunc_call(vadd, dd, 2, &ay, NULL) == KF_OK && fake.allocs == allocs0);

  /* reduce: a host input (staged), the partials, init, a device result */
  enum { N = 1000 };
  double x[N], total = 0;
  for (int i = 0; i < N; i++) x[i] = i % 17, total += x[i];
  kf_arg r;
  kf_array ah = array_arg(x, KF_FLOAT64, 1, (int64_t[]){N}, 'C').array;
  allocs0 = fake.allocs, frees0 = fake.frees;
  kf_arg init = kf_arg_float(KF_FLOAT64, 0.25);
  CHECK(kf_reduce(rsum, &ah, -1, &init, NULL, &r, NULL) == KF_OK && r.value.f == total + 0.25);
  /* the staged input (freed) and the runtime's scratch memory for the partials (kept for the next call) */
  CHECK(fake.allocs - allocs0 == 2 && fake.frees - frees0 == 1);
  CHECK(fake.last_grid[0] == 1 && fake.last_block[0] == 8);  /* pass 2: 4 partials and init in 8 threads */
  kf_array res;
  kf_array_init(&res, dy, KF_MEMORY_DEVICE, KF_FLOAT64, 1, (int64_t[]){4}, 'C');
  allocs0 = fake.allocs;
  CHECK(kf_reduce(rsum, &ax, 3, NULL, NULL, NULL, &res) == KF_OK && fake.allocs == allocs0);  /* the scratch again */
  CHECK(kf_memcpy_to_host(rt, back, dy, sizeof back, NULL) == KF_OK && back[0] == 60);
  CHECK(fake.rec.flag == KF_ERROR_NONE);

  /* guvectorize (n)->(n) over a (2, 3) host input into a (2, 3) host output */
  double g[6] = {1, 2, 3, 4, 5, 6}, go[6] = {0};
  kf_arg ga[2] = {array_arg(g, KF_FLOAT64, 2, (int64_t[]){2, 3}, 'C'), array_arg(go, KF_FLOAT64, 2, (int64_t[]){2, 3}, 'C')};
  CHECK(kf_gufunc_call(gcum, ga, 2, NULL) == KF_OK);
  CHECK(go[0] == 1 && go[2] == 6 && go[3] == 4 && go[5] == 15);
  if (kf_context_error_count(ctx)) fputs(kf_context_diagnostics(ctx), stderr);
  kf_device_free(rt, dx);
  kf_device_free(rt, dy);
  CHECK(fake.frees + 1 == fake.allocs);  /* the scratch memory: the runtime's until it goes */
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  CHECK(fake.frees == fake.allocs);
  kf_module_destroy(m);
  kf_context_destroy(ctx);
}

/* A raise read back from the record: its exception named from the module's table, thread and block unpacked,
 * reported as the exception it is (kind RAISED), the record reset. */
static void test_raise_record(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_GPU;
  o.disk_cache = 0;
  kf_runtime *rt = NULL;
  kf_module *m = NULL;
  kf_program *p = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
  CHECK(kf_module_parse(ctx, "raise.kir", RAISE_KIR, strlen(RAISE_KIR), &m) == KF_OK);
  CHECK(rt && m && kf_program_from_module(rt, m, &p) == KF_OK);
  int64_t a[40], n40[1] = {40};
  for (int i = 0; i < 40; i++) a[i] = i == 37 ? -1 : i;
  kf_arg args[1] = {array_arg(a, KF_INT64, 1, n40, 'C')};
  kf_kernel *k = NULL;
  CHECK(p && kf_program_get_kernel(p, "raiser", args, 1, &k) == KF_OK && k);
  if (k) {
    unsigned g[3] = {2, 1, 1}, b[3] = {32, 1, 1};
    CHECK(kf_launch(k, g, b, 0, NULL, args, 1) == KF_ERROR_OUT_OF_BOUNDS);
    CHECK_CONTAINS(kf_context_diagnostics(ctx),
                   "k.py:7:9: error: ValueError: negative (kernel raiser, k.py:7:9; thread (5, 0, 0) of block (1, 0, 0))");
    kf_error_info e;
    CHECK(kf_context_first_error(ctx, &e) == KF_OK && e.kind == KF_ERRKIND_RAISED);
    CHECK(e.exception && strcmp(e.exception, "ValueError: negative") == 0 && e.kernel && strcmp(e.kernel, "raiser") == 0);
    CHECK(e.thread[0] == 5 && e.block[0] == 1 && e.line == 7 && e.col == 9);
    CHECK(fake.rec.flag == KF_ERROR_NONE);  /* reset */
    kf_context_clear_diagnostics(ctx);
    a[37] = 37;
    CHECK(kf_launch(k, g, b, 0, NULL, args, 1) == KF_OK);
  }
  kf_program_destroy(p);
  kf_module_destroy(m);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
}

/* Managed memory through cuMemAllocManaged (attached as asked), freed as device memory; the allocation an address
 * lies in through cuMemGetAddressRange. */
static void test_managed_and_range(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_GPU;
  o.disk_cache = 0;
  kf_runtime *rt = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK && rt);
  if (!rt) return;
  void *m = NULL, *base = NULL;
  size_t bytes = 0, used = 0, count = 0;
  int frees = fake.frees;
  CHECK(kf_managed_alloc(rt, 256, 0, &m) == KF_OK && m && fake.managed_flags == CU_MEM_ATTACH_GLOBAL);
  kf_runtime_allocated(rt, &used, &count);
  CHECK(used == 256 && count == 1);
  CHECK(kf_pointer_range(rt, (char *)m + 100, &base, &bytes) == KF_OK && base == m && bytes == 256);
  CHECK(kf_pointer_range(rt, (char *)m + 256, &base, &bytes) == KF_ERROR_DEVICE);
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_device_free(rt, m) == KF_OK && fake.frees == frees + 1);
  CHECK(kf_managed_alloc(rt, 16, KF_MANAGED_ATTACH_HOST, &m) == KF_OK && fake.managed_flags == CU_MEM_ATTACH_HOST);
  CHECK(kf_device_free(rt, m) == KF_OK);
  CHECK(kf_managed_alloc(rt, 0, 0, &m) == KF_OK && m == NULL);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
}

/* ---- module callbacks --------------------------------------------------------------------------------- */

typedef struct ModuleEvents {
  int setups, teardowns, fail_setups;
  void *library[8], *module[8];  /* of each event, in order */
  int device;
  kf_function *relaunch;         /* launched (with relaunch_args) by the setup: the module being set up */
  kf_arg *relaunch_args;
  kf_status relaunch_status;
} ModuleEvents;

static int record_module_event(void *user, kf_module_event event, const kf_module_info *m) {
  ModuleEvents *e = user;
  int i = e->setups + e->teardowns;
  if (i < 8) e->library[i] = m->library, e->module[i] = m->module;
  e->device = m->device;
  if (event == KF_MODULE_TEARDOWN) {
    e->teardowns++;
    return 0;
  }
  e->setups++;
  if (e->relaunch) {
    unsigned g[3] = {1, 1, 1};
    e->relaunch_status = kf_function_launch(e->relaunch, g, g, 0, NULL, e->relaunch_args, 2);
  }
  if (e->fail_setups > 0) {
    e->fail_setups--;
    return 7;
  }
  return 0;
}

/* kf_compile_options' module callback on the GPU path: a module loaded as a library (its CUlibrary and CUmodule
 * given), set up once before its first launch (a failing setup fails the launch, and the next one sets it up again;
 * a launch the setup makes of its own module does not wait for it), torn down when the program goes; each
 * specialisation its own module; never a disk-cache entry. Without the library API: loaded by cuModuleLoadDataEx,
 * no library given. */
static void test_module_callbacks(bool library) {
  install_fake_with(true, library);
  char dir[] = "/tmp/kfront-gpu-fake-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  const char *source = "from numba import cuda\n"
                       "@cuda.jit\n"
                       "def fill(a, v):\n"
                       "    a[0] = v\n";
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_GPU;
  o.cache_dir = dir;
  o.backend = KF_BACKEND_LLVM;
  kf_runtime *rt = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
  ModuleEvents ev = {.fail_setups = 1, .device = -1};
  kf_compile_options co;
  kf_compile_options_init(&co);
  co.module_callback = record_module_event;
  co.module_callback_data = &ev;
  kf_program *p = NULL;
  kf_function *f = NULL;
  CHECK(kf_program_create(rt, "cb.py", source, strlen(source), &co, &p) == KF_OK);
  CHECK(p && kf_program_get_function(p, "fill", &f) == KF_OK);
  if (!f) {
    fputs(kf_context_diagnostics(ctx), stderr);
    return;
  }
  int64_t out[1] = {0};
  int64_t n1[1] = {1};
  kf_arg args[2] = {array_arg(out, KF_INT64, 1, n1, 'C'), kf_arg_int(KF_INT64, 5)};
  unsigned g[3] = {1, 1, 1};
  int loads0 = fake.loads, lib_loads0 = fake.lib_loads, launches0 = fake.launches;
  kf_kernel *k = NULL;
  CHECK(kf_function_specialize(f, args, 2, &k) == KF_OK && ev.setups == 0);  /* loaded, not yet set up */
  CHECK(fake.loads == loads0 + 1 && fake.lib_loads == lib_loads0 + (library ? 1 : 0));
  CHECK(kf_function_launch(f, g, g, 0, NULL, args, 2) == KF_ERROR_CALLBACK);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "the setup callback of the module of kernel fill failed (it returned 7)");
  CHECK(ev.setups == 1 && fake.launches == launches0);  /* not launched */
  kf_context_clear_diagnostics(ctx);
  ev.relaunch = f;
  ev.relaunch_args = args;
  CHECK(kf_function_launch(f, g, g, 0, NULL, args, 2) == KF_OK);
  CHECK(ev.setups == 2 && ev.relaunch_status == KF_OK && fake.launches == launches0 + 2);
  ev.relaunch = NULL;
  CHECK(kf_function_launch(f, g, g, 0, NULL, args, 2) == KF_OK && ev.setups == 2);  /* set up once */
  CHECK(ev.module[0] && ev.module[0] == ev.module[1] && ev.device == 0);
  CHECK(library ? ev.library[0] != NULL && ev.library[0] == ev.library[1] : ev.library[0] == NULL);
  /* another specialisation: a module of its own */
  double outf[1] = {0};
  kf_arg fargs[2] = {array_arg(outf, KF_FLOAT64, 1, n1, 'C'), kf_arg_float(KF_FLOAT64, 2.5)};
  CHECK(kf_function_launch(f, g, g, 0, NULL, fargs, 2) == KF_OK && ev.setups == 3);
  CHECK(ev.module[2] != ev.module[0]);
  kf_runtime_stats st;
  kf_runtime_get_stats(rt, &st);
  CHECK(st.cache_disk_hits == 0);
  int unloads0 = fake.unloads, lib_unloads0 = fake.lib_unloads;
  kf_program_destroy(p);
  CHECK(ev.teardowns == 2 && ev.setups == 3);
  CHECK((ev.module[3] == ev.module[0] || ev.module[3] == ev.module[2]) && ev.module[3] != ev.module[4]);
  CHECK(fake.unloads == unloads0 + 2 && fake.lib_unloads == lib_unloads0 + (library ? 2 : 0));
  /* no entry was written: a fresh program compiles again */
  CHECK(kf_program_create(rt, "cb.py", source, strlen(source), NULL, &p) == KF_OK);
  CHECK(kf_program_get_kernel(p, "fill", args, 2, &k) == KF_OK);
  kf_runtime_get_stats(rt, &st);
  CHECK(st.cache_disk_hits == 0);
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  install_fake();
}

/* A fork() child of a process that used the driver must not use it: every call is refused with numba-cuda's words
 * ("CUDA initialized before forking"), the parent goes on as before, and the child's runtime can be destroyed. */
static void test_fork_child_refused(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_GPU;
  o.disk_cache = 0;
  kf_runtime *rt = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK && rt);
  void *d = NULL;
  CHECK(rt && kf_device_alloc(rt, 64, &d) == KF_OK && d);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    void *c = NULL;
    kf_error_info e;
    bool refused = kf_device_alloc(rt, 64, &c) == KF_ERROR_DEVICE && !c &&
                   strstr(kf_context_diagnostics(ctx), "CUDA initialized before forking") != NULL &&
                   kf_context_first_error(ctx, &e) == KF_OK && e.kind == KF_ERRKIND_DEVICE;
    kf_runtime_destroy(rt); /* releases nothing of the parent's driver state */
    kf_context_destroy(ctx);
    _exit(refused ? 0 : 1);
  }
  int status = -1;
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  void *again = NULL;
  CHECK(kf_device_alloc(rt, 64, &again) == KF_OK && again);  /* the parent is not affected */
  kf_device_free(rt, again);
  kf_device_free(rt, d);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
}

/* The contents of test/unit/Inputs/<name> into buf (cap bytes); its length, 0 when it cannot be read. */
static size_t read_input(const char *name, char *buf, size_t cap) {
  char path[256];
  snprintf(path, sizeof path, "unit/Inputs/%s", name);
  FILE *fp = fopen(path, "rb");
  CHECK(fp != NULL);
  if (!fp) return 0;
  size_t n = fread(buf, 1, cap, fp);
  fclose(fp);
  return n;
}

static const char FOREIGN_MUL_KERNEL[] = "from numba import cuda\n"
                                         "@cuda.jit\n"
                                         "def multiply(r, x, y):\n"
                                         "    i = cuda.grid(1)\n"
                                         "    if i < len(r):\n"
                                         "        r[i] = mul(x[i], y[i])\n";

/* A program whose kernel `multiply` calls the foreign function mul_f32_f32 (numba-cuda's ABI), given links and
 * lto, specialised for three float32 arrays on the fake GPU: the status must be want and the diagnostics must hold
 * each of says (NULL-terminated). */
static void link_multiply(const kf_link_input *links, unsigned nlinks, bool lto, kf_status want,
                          const char *const *says) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_GPU;
  o.backend = KF_BACKEND_NVVM;
  kf_runtime *rt = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
  kf_binding b = {"mul", {.kind = KF_VALUE_FOREIGN, .path = "mul_f32_f32", .function = "float32(float32, float32)"}};
  kf_compile_options co;
  kf_compile_options_init(&co);
  co.bindings = &b;
  co.nbindings = 1;
  co.links = links;
  co.nlinks = nlinks;
  co.lto = lto;
  kf_program *p = NULL;
  kf_function *f = NULL;
  CHECK(kf_program_create(rt, "multiply.py", FOREIGN_MUL_KERNEL, strlen(FOREIGN_MUL_KERNEL), &co, &p) == KF_OK);
  CHECK(p && kf_program_get_function(p, "multiply", &f) == KF_OK);
  float r[4] = {0}, x[4] = {1, 2, 3, 4};
  int64_t n4[1] = {4};
  kf_arg args[3] = {array_arg(r, KF_FLOAT32, 1, n4, 'C'), array_arg(x, KF_FLOAT32, 1, n4, 'C'),
                    array_arg(x, KF_FLOAT32, 1, n4, 'C')};
  kf_kernel *k = NULL;
  kf_status st = f ? kf_function_specialize(f, args, 3, &k) : KF_ERROR_NOT_FOUND;
  CHECK(st == want);
  const char *text = kf_context_diagnostics(ctx);
  if (st != want) fputs(text, stderr);
  for (; *says; says++) CHECK_CONTAINS(text, *says);
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
}

/* A program calling a foreign function (numba-cuda's declare_device) linked from a .cu: with kf_compile_options.lto
 * its module goes to nvJitLink as libNVVM's LTO-IR with the .cu's, and the cubin loaded has the kernel and its
 * error record but no code of mul_f32_f32 (inlined); without, kfront's PTX and the .cu's are linked as they are
 * (mul_f32_f32 has code of its own). Needs libNVVM, NVRTC and nvJitLink (no GPU): skipped without them, a failure
 * under ctest (KFRONT_REQUIRE_PTXAS=1). */
static void test_lto_link(bool lto) {
  kf_cuda_library_info info;
  if (kf_cuda_library_find(KF_CUDA_LIBNVVM, &info) != KF_OK || kf_cuda_library_find(KF_CUDA_NVRTC, &info) != KF_OK ||
      kf_cuda_library_find(KF_CUDA_NVJITLINK, &info) != KF_OK) {
    CHECK(!getenv("KFRONT_REQUIRE_PTXAS"));
    printf("SKIP test_lto_link: libNVVM, NVRTC or nvJitLink not found\n");
    return;
  }
  char cu[4096];
  size_t cu_len = read_input("foreign_mul.cu", cu, sizeof cu);
  if (!cu_len) return;
  kf_link_input link = {KF_LINK_CU, "foreign_mul.cu", cu, cu_len};
  free(fake.last_cubin);
  fake.last_cubin = NULL;
  fake.last_cubin_len = 0;
  link_multiply(&link, 1, lto, KF_OK, (const char *const[]){NULL});
  const unsigned char *c = fake.last_cubin;
  size_t n = fake.last_cubin_len;
  CHECK(c && memmem(c, n, ".text.multiply", 15));  /* loaded: the kernel found in it (and its error record) */
  bool own_code = c && memmem(c, n, ".text.mul_f32_f32", 18) != NULL;
  CHECK(own_code == !lto);
  if (own_code != !lto) printf("  lto %d: mul_f32_f32 %s code of its own\n", lto, own_code ? "has" : "lacks");
}

/* Without nvJitLink (KFRONT_LIBNVJITLINK naming a file that is not there: nothing else is searched), the driver's
 * linker links the module: kfront's PTX and the .cu's PTX from NVRTC (NUL-terminated, named), the cubin it gives
 * loaded; a link input no input defines the foreign function in gives the linker's log and the kernel calling it;
 * an LTO-IR input is refused by name (only nvJitLink links it). Needs libNVVM and NVRTC (no GPU). */
static void test_driver_linker(void) {
  kf_cuda_paths paths;
  kf_cuda_paths_init(&paths);
  paths.libnvjitlink = "/nonexistent/libnvJitLink.so";
  CHECK(kf_configure_cuda_paths(&paths) == KF_OK);
  kf_cuda_library_info info;
  CHECK(kf_cuda_library_find(KF_CUDA_NVJITLINK, &info) != KF_OK);
  CHECK(info.error && strstr(info.error, "KFRONT_LIBNVJITLINK is set, so nothing else is searched"));
  if (kf_cuda_library_find(KF_CUDA_LIBNVVM, &info) != KF_OK || kf_cuda_library_find(KF_CUDA_NVRTC, &info) != KF_OK) {
    CHECK(!getenv("KFRONT_REQUIRE_PTXAS"));
    printf("SKIP test_driver_linker: libNVVM or NVRTC not found\n");
    return;
  }
  char cu[4096];
  size_t cu_len = read_input("foreign_mul.cu", cu, sizeof cu);
  if (!cu_len) return;
  kf_link_input cu_link = {KF_LINK_CU, "foreign_mul.cu", cu, cu_len};
  int loads = fake.loads;
  link_multiply(&cu_link, 1, false, KF_OK, (const char *const[]){NULL});
  CHECK(fake.nlink_inputs == 2 && fake.link_types[0] == CU_JIT_INPUT_PTX && fake.link_types[1] == CU_JIT_INPUT_PTX);
  CHECK(strcmp(fake.link_names[0], "kfront") == 0 && strcmp(fake.link_names[1], "foreign_mul.cu") == 0);
  CHECK(fake.link_defines_mul && !fake.link_lineinfo);
  CHECK(fake.loads == loads + 1);  /* the linker's result loaded */

  static const char other_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n";
  kf_link_input ptx_link = {KF_LINK_PTX, "other.ptx", other_ptx, sizeof other_ptx - 1};
  link_multiply(&ptx_link, 1, false, KF_ERROR_BACKEND,
                (const char *const[]){"the CUDA driver's linker (used as nvJitLink was not found) cannot link",
                                      "Undefined reference to 'mul_f32_f32'",
                                      "the foreign function 'mul_f32_f32' that kernel 'multiply' calls is defined by "
                                      "none of the linked files", NULL});
  CHECK(fake.nlink_inputs == 2 && strcmp(fake.link_names[1], "other.ptx") == 0);

  kf_link_input lto_link = {KF_LINK_LTOIR, "mul.ltoir", "\x7fNVVM", 5};
  link_multiply(&lto_link, 1, false, KF_ERROR_BACKEND,
                (const char *const[]){"mul.ltoir (LTO-IR) holds LTO-IR, which only nvJitLink links",
                                      "nvJitLink not found", "/nonexistent/libnvJitLink.so", NULL});
}

int main(int argc, char **argv) {
  install_fake();
  if (argc > 1 && strcmp(argv[1], "driver-linker") == 0) { /* a process of its own: the libraries load once */
    test_driver_linker();
    rt_cuda_install(NULL);
    return test_result("runtime_gpu_fake driver-linker");
  }
  test_fork_child_refused();
  test_managed_and_range();
  test_gpu_path();
  test_raise_record();
  test_pointer_parameter();
  test_host_funcs();
  test_grid_stride();
  test_grid_stride_variant();
  test_block_pair_variant();
  test_cooperative();
  test_disk_cache_hit();
  test_disk_cache_keeps_warnings();
  test_disk_cache_refused();
  test_module_callbacks(true);
  test_module_callbacks(false);
  test_lto_link(false);
  test_lto_link(true);
  rt_cuda_install(NULL);
  return test_result("runtime_gpu_fake");
}
