/* backend.h — kir to LLVM IR, NVVM IR and PTX (internal to the library; prefixes be_ and nvvm_).
 *
 *   be_emit_llvm     kir (any mix of scf and cf) -> LLVM IR text. For the nvvm backend the text is in the
 *                    dialect libNVVM (NVVM 7.0.1, LLVM 7 syntax) accepts; for the llvm backend it is
 *                    LLVM 14 IR for LLVM's own NVPTX target.
 *   be_compile_ptx   kir -> PTX, through libNVVM (nvvm.c) or LLVM's NVPTX target (nvptx.c).
 *
 * Nothing here keeps state between calls except the dlopen'd libNVVM, libdevice's bytes and LLVM's
 * target registration, each set up once under a pthread_once (with the default allocator and no guard:
 * utils/mem.h): the functions may run concurrently on different modules. The Module is only read (its
 * scratch `id` fields are written).
 *
 * Memory: be_emit_llvm and be_compile_ptx run the compile under a guard of their own (backend.c); everything
 * below them runs under it, and registers each LLVM object (builders, DIBuilders, messages, target machines,
 * pass managers, buffers) and libNVVM program with mem_guard_defer while it lives, so that an allocation
 * failure anywhere disposes of them. */
#ifndef KF_BACKEND_BACKEND_H
#define KF_BACKEND_BACKEND_H

#include <llvm-c/Core.h>

#include "ir/ir.h"

typedef enum { BE_NVVM = 0, BE_LLVM = 1 } BackendKind;

typedef struct BackendOptions {
  BackendKind kind;
  unsigned arch;        /* SM version: 90 for sm_90; 0 = 90 */
  char arch_feature;    /* 0, or 'a' (sm_90a: the SM's architecture-specific features) or 'f' (sm_100f: its
                         * family's): libNVVM's -arch=compute_90a (BE_NVVM only) */
  int opt;              /* 0..3 */
  bool fastmath;        /* ftz, approximate division and sqrt, fma contraction */
  bool lineinfo;        /* -generate-line-info */
  bool debuginfo;       /* full DWARF (libNVVM's -g; LLVM's NVPTX target emits it from the same metadata) */
  bool lto;             /* be_compile_ptx gives libNVVM's LTO-IR (-gen-lto, binary) instead of PTX (BE_NVVM only) */
} BackendOptions;

/* What the host needs to name a failed bounds check (see include/kfront/abi.h): kernel names by kernel
 * id and source file names by file id. Strings come from mem.h; be_tables_free releases them. */
typedef struct BackendTables {
  unsigned nkernels, nfiles;
  char **kernels;
  char **files;
} BackendTables;

/* Why a compile failed (the diagnostic says more). */
typedef enum BeStatus {
  BE_OK = 0,
  BE_UNSUPPORTED,   /* the module cannot be lowered (an op or type the backend does not handle, malformed IR) */
  BE_NOT_FOUND,     /* libNVVM or libdevice is missing */
  BE_FAILED,        /* libNVVM or LLVM's NVPTX target failed */
  BE_OUT_OF_MEMORY, /* an allocation failed (reported to the Diag as "out of memory") */
} BeStatus;

void be_options_default(BackendOptions *o);
void be_tables_free(BackendTables *t);

/* kir -> LLVM IR text, appended to out (only on success). tables may be NULL. BE_UNSUPPORTED or
 * BE_OUT_OF_MEMORY after reporting to diag. */
BeStatus be_emit_llvm(Module *m, const BackendOptions *o, StrBuf *out, BackendTables *tables, Diag *diag);
/* kir -> PTX text, appended to out (only on success); with o->lto, libNVVM's LTO-IR (binary, out->len bytes).
 * tables may be NULL. */
BeStatus be_compile_ptx(Module *m, const BackendOptions *o, StrBuf *out, BackendTables *tables, Diag *diag);
/* mem_guard_defer's cleanup for an LLVMContextRef (and every module in it). */
void be_dispose_context(void *ctx);

/* ---- backend/lower_llvm.c ------------------------------------------------------------------- */
/* Lowers m into a new LLVM module in ctx (caller owns both; ctx registered with the guard). nvvm_ir_version:
 * {major, minor, debug major, debug minor} written into !nvvmir.version (BE_NVVM only). NULL after reporting to
 * diag. */
LLVMModuleRef be_lower_module(Module *m, LLVMContextRef ctx, const BackendOptions *o, const int nvvm_ir_version[4],
                              BackendTables *tables, Diag *diag);
/* Prints an LLVM module as text (appended to out). For BE_NVVM the text is rewritten where LLVM 14's syntax
 * differs from what NVVM 7.0.1 reads (cmpxchg/atomicrmw alignment). */
void be_print_module(LLVMModuleRef mod, BackendKind kind, StrBuf *out);

/* ---- backend/cuda_paths.c: where the CUDA libraries are looked for ------------------------------ */
/* The libraries, then the header folders NVRTC is given (found by the file each holds). */
typedef enum CudaLib {
  CUDA_LIB_NVVM,
  CUDA_LIB_LIBDEVICE,
  CUDA_LIB_NVRTC,
  CUDA_LIB_NVJITLINK,
  CUDA_HEADERS_CUDA,   /* cuda_runtime.h's folder */
  CUDA_HEADERS_CCCL,   /* CCCL's (the folder holding cuda/std/version) */
  CUDA_LIB_COUNT
} CudaLib;
/* The embedder's settings (NULL or "": none; see kf_cuda_paths). */
typedef struct CudaPathsConfig {
  const char *lib[CUDA_LIB_COUNT];  /* each library's own setting: a file, or a folder holding it */
  const char *cuda_home;            /* a toolkit's root: CUDA_HOME or CUDA_PATH */
  const char *conda_prefix;         /* CONDA_PREFIX */
  const char *site_packages;        /* folders (colon-separated) holding NVIDIA's pip wheels */
  const char *system_toolkit;       /* the system toolkit's root ("": /usr/local/cuda) */
  bool verify;                      /* libNVVM runs nvvmVerifyProgram first */
} CudaPathsConfig;
/* Sets where to look. Only before the first search: false after (the first configuration stays). */
bool cuda_paths_configure(const CudaPathsConfig *c);
/* Searches for lib in the places of cuda_paths.c's comment, in order, calling open(path, user) on each file found
 * until one returns true (open records why a file did not load in tried; the search records every place without
 * the library). beside (or NULL): for libdevice, the path of the libNVVM found; for CUDA's headers, the NVRTC
 * found; for CCCL's, CUDA's cuda_runtime.h found. Returns how the library was found
 * ("NVIDIA's pip wheel", "CUDA_HOME", ...: static text), or NULL when nowhere. */
const char *cuda_paths_search(CudaLib lib, const char *beside, bool (*open)(const char *path, void *user), void *user,
                              StrBuf *tried);
/* The configured CUDA_HOME ("" when none); whether libNVVM verifies first. Both freeze the configuration. */
const char *cuda_paths_cuda_home(void);
bool cuda_paths_verify(void);
/* "libNVVM", "libdevice", "NVRTC", "nvJitLink", "CUDA's headers", "CCCL's headers". */
const char *cuda_lib_name(CudaLib lib);

/* ---- backend/nvvm.c: libNVVM ------------------------------------------------------------------ */
/* Loads libNVVM and libdevice once. On failure reports every path searched and returns false. */
bool nvvm_load(Diag *diag);
/* Where libNVVM was loaded from and how it was found (NULL, NULL when it was not: *error says why), and its
 * nvvmVersion. Loads it (once). */
void nvvm_found(const char **path, const char **found_by, const char **error, int version[2]);
/* Where libdevice was read from and how it was found (NULL, NULL when it was not). Loads it (once). */
void nvvm_libdevice_found(const char **path, const char **found_by, const char **error);
/* IR and debug metadata versions of the loaded libNVVM ({2, 0, 3, 2} if it cannot be loaded). */
void nvvm_ir_version(int version[4]);
/* libdevice's bitcode (loaded once; borrowed, immutable). NULL after reporting the paths searched. */
const char *nvvm_libdevice(size_t *len, Diag *diag);
/* Compiles NVVM IR text to PTX with libNVVM; libNVVM's log goes to diag on failure. */
BeStatus nvvm_compile(const char *ir, size_t ir_len, const BackendOptions *o, StrBuf *ptx, Diag *diag);

/* ---- backend/link.c: NVRTC and nvJitLink -------------------------------------------------------- */
/* What can be linked into a kernel module (numba-cuda's link items). */
typedef enum BeLinkKind {
  BE_LINK_CU,       /* CUDA C/C++ source, compiled with NVRTC */
  BE_LINK_PTX,
  BE_LINK_CUBIN,
  BE_LINK_FATBIN,
  BE_LINK_LTOIR,
  BE_LINK_OBJECT,   /* a host object holding device code (.o) */
  BE_LINK_LIBRARY,  /* an archive of them (.a) */
} BeLinkKind;
typedef struct BeLinkInput {
  BeLinkKind kind;
  const char *name;  /* the file's name (diagnostics locate NVRTC's errors in it) */
  const char *data;  /* its contents (borrowed) */
  size_t len;
} BeLinkInput;
/* The CUDA driver's own linker (cuLinkCreate ... cuLinkComplete), which the runtime offers for when nvJitLink is
 * missing: it links PTX, cubins, fatbins, objects and archives (no LTO-IR) for the current device into a cubin,
 * appended to *cubin. On failure it returns false with the linker's error log in *log (mem_alloc'd, or NULL), or a
 * diagnostic of its own. */
typedef struct BeDriverLinker {
  void *user;
  bool (*link)(void *user, const BeLinkInput *inputs, unsigned n, bool lineinfo, StrBuf *cubin, char **log,
               Diag *diag);
} BeDriverLinker;
typedef struct BeLinkOptions {
  unsigned arch;                     /* sm_XY: 90; 0 = 90 */
  bool lto;                          /* the module is LTO-IR, .cu inputs are compiled to LTO-IR: link-time optimised */
  bool ptx;                          /* with lto: be_link gives the optimised program's PTX text (nvJitLink's -ptx),
                                      * not a cubin; PTX and cubin inputs are left out of it, each with a warning */
  bool lineinfo;
  bool debug;                        /* NVRTC: -G */
  const char *const *include_dirs;   /* more -I folders for NVRTC, after the toolkit's include folder */
  unsigned ninclude_dirs;
  const BeDriverLinker *driver;      /* NULL, or the linker to use when nvJitLink is not found (not for lto/ptx) */
} BeLinkOptions;
/* A foreign function a kernel calls: an undefined reference to symbol is reported as the kernel's, at loc. */
typedef struct BeLinkCaller {
  const char *symbol, *kernel;
  SrcLoc loc;
} BeLinkCaller;
/* The foreign functions module m declares, each as called by kernel (NULL: m's first kernel), *n of them; owned by
 * the caller (mem_free), NULL when out of memory. */
BeLinkCaller *be_link_callers(Module *m, const char *kernel, unsigned *n);
/* Where NVRTC / nvJitLink were loaded from and how they were found (NULL, NULL when not: *error says why), and
 * their versions (nvrtcVersion, nvJitLinkVersion). Loads them (once). */
void be_link_found(CudaLib lib, const char **path, const char **found_by, const char **error, int version[2]);
/* Loads NVRTC / nvJitLink once. On failure reports every path searched and returns false. */
bool be_nvrtc_load(Diag *diag);
bool be_jitlink_load(Diag *diag);
/* The sm_XY NVRTC compiles for (90 for sm_90), ascending, at most cap of them in archs (*n how many); false,
 * reported, when NVRTC is missing or cannot say. */
bool be_nvrtc_supported_archs(int *archs, unsigned cap, unsigned *n, Diag *diag);
/* The kind of a link input by its file name's extension (.cu .ptx .cubin .fatbin .ltoir .o .a; the extension
 * alone is such a name); false if none. */
bool be_link_kind_of(const char *name, BeLinkKind *kind);
/* The file-name extension of a kind (".cu"); NULL for none. */
const char *be_link_kind_extension(BeLinkKind kind);
const char *be_link_kind_name(BeLinkKind kind);
/* A CUDA C/C++ source compiled with NVRTC to PTX text or (lto) LTO-IR bytes, appended to out. NVRTC's errors and
 * warnings are located diagnostics at the source's own lines. */
BeStatus be_nvrtc_compile(const BeLinkInput *cu, const BeLinkOptions *o, bool lto, StrBuf *out, Diag *diag);
/* kfront's module (PTX text, or with o->lto libNVVM's LTO-IR) linked with the inputs by nvJitLink into a cubin for
 * sm_<o->arch> (with o->ptx, the PTX of the link-time optimised program), appended to out. Without nvJitLink, and
 * neither o->lto nor o->ptx, by o->driver where given: each .cu compiled to PTX by NVRTC, an input holding LTO-IR
 * refused by name. Runs under a guard of its own. callers: the foreign functions the kernels call, to name the
 * kernel of an undefined reference. */
BeStatus be_link(const char *image, size_t image_len, const BeLinkInput *inputs, unsigned ninputs,
                 const BeLinkOptions *o, const BeLinkCaller *callers, unsigned ncallers, StrBuf *out, Diag *diag);

/* ---- backend/nvptx.c: LLVM's NVPTX target --------------------------------------------------- */
/* Links libdevice into mod (if it calls __nv_*), resolves __nvvm_reflect, optimises at o->opt and emits
 * PTX with LLVM 14's NVPTX target. mod is consumed (disposed; under a guard, with ctx if it fails). */
BeStatus nvptx_compile(LLVMModuleRef mod, LLVMContextRef ctx, const BackendOptions *o, StrBuf *ptx, Diag *diag);

#endif
