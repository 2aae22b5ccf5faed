/* kfront.h — the public C API of libkfront.
 *
 * Everything a host program (the kfront and kfront-opt tools, the Python module, other language
 * frontends) needs: a context that owns diagnostics and interned types, kir modules (parse, verify,
 * print, run pass pipelines), and compilation of Numba-CUDA source.
 *
 * Conventions (after MLIR's C API and Lua):
 *  - opaque handles; every function returns a kf_status (or a handle/value documented as such);
 *  - ownership is stated on every function: "caller owns" results must be released with the named
 *    function; "borrowed" pointers stay valid as long as the object they came from;
 *  - strings are passed as (pointer, length) or NUL-terminated where said; the library never
 *    prints to stdout/stderr and never calls exit(): diagnostics accumulate in the context;
 *  - a kf_context may be used by one thread at a time; separate contexts may be used concurrently.
 */
#ifndef KFRONT_KFRONT_H
#define KFRONT_KFRONT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(KF_BUILDING_LIBRARY)
#define KF_API __attribute__((visibility("default")))
#else
#define KF_API
#endif

typedef enum kf_status {
  KF_OK = 0,
  KF_ERROR_INVALID_INPUT = 1,   /* bad source, IR text, arguments: see kf_context_diagnostics */
  KF_ERROR_NOT_FOUND = 2,       /* no such kernel, file, library or device */
  KF_ERROR_UNSUPPORTED = 3,     /* valid input kfront does not handle */
  KF_ERROR_BACKEND = 4,         /* libNVVM or LLVM failed */
  KF_ERROR_DEVICE = 5,          /* CUDA driver failure */
  KF_ERROR_OUT_OF_BOUNDS = 6,   /* a kernel's bounds check failed (IndexError) */
  KF_ERROR_INTERNAL = 7,
} kf_status;

/* A short name for a status ("invalid input", ...). Borrowed, static. */
KF_API const char *kf_status_name(kf_status s);
/* kfront's version string ("0.1.0"). Borrowed, static. */
KF_API const char *kf_version(void);
/* Releases memory the library handed to the caller (strings, buffers). NULL is allowed. */
KF_API void kf_free(void *p);

/* ---- context -------------------------------------------------------------------------------- */
typedef struct kf_context kf_context;

/* Creates a context. Caller owns it: kf_context_destroy. Returns NULL only when out of memory. */
KF_API kf_context *kf_context_create(void);
/* Destroys the context. Modules created in it must be destroyed first. */
KF_API void kf_context_destroy(kf_context *ctx);
/* Every diagnostic reported since the last clear, rendered (`file:line:col: error: ...`, the source line,
 * a caret). Borrowed: valid until the next call on ctx. Never NULL. */
KF_API const char *kf_context_diagnostics(kf_context *ctx);
KF_API unsigned kf_context_error_count(kf_context *ctx);
KF_API void kf_context_clear_diagnostics(kf_context *ctx);
/* Optional: called with each rendered diagnostic as it is reported (level: 0 error, 1 warning, 2 note). */
typedef void (*kf_diagnostic_fn)(void *user, int level, const char *rendered);
KF_API void kf_context_set_diagnostic_handler(kf_context *ctx, kf_diagnostic_fn fn, void *user);

/* ---- kir modules ---------------------------------------------------------------------------- */
typedef struct kf_module kf_module;

/* Parses kir text (need not be NUL-terminated). On success *out is a module the caller owns
 * (kf_module_destroy). filename is used in diagnostics and locations and is copied. */
KF_API kf_status kf_module_parse(kf_context *ctx, const char *filename, const char *text, size_t len, kf_module **out);
KF_API void kf_module_destroy(kf_module *m);
/* Verifies the module; violations go to the context's diagnostics. */
KF_API kf_status kf_module_verify(kf_module *m);

enum { KF_PRINT_DEBUG_INFO = 1 };
/* Prints the module as kir text. *out is NUL-terminated and owned by the caller (kf_free). */
KF_API kf_status kf_module_print(kf_module *m, unsigned flags, char **out, size_t *len);

/* ---- passes --------------------------------------------------------------------------------- */
typedef struct kf_pass_options {
  int verify_each;              /* verify after every pass (recommended: 1) */
  int print_ir_after_all;
  const char *print_ir_after;   /* comma-separated pass names, or NULL */
  int print_debug_info;         /* loc(...) in IR dumps */
  int time_passes;
} kf_pass_options;

/* Runs a textual pipeline ("canonicalize,cse,dce") over m. IR dumps and the timing report asked for in
 * opts are appended to *report (caller owns, kf_free; may be NULL if none was asked for).
 * opts may be NULL (verify_each on, nothing printed). */
KF_API kf_status kf_module_run_pipeline(kf_module *m, const char *pipeline, const kf_pass_options *opts, char **report);
/* The pipeline as the pass manager reads it back (normalised); caller owns *out (kf_free). */
KF_API kf_status kf_pipeline_normalize(kf_context *ctx, const char *pipeline, char **out);
/* Calls fn for every registered pass with its name and summary. */
KF_API void kf_pass_registry_foreach(void (*fn)(void *user, const char *name, const char *summary), void *user);

/* ---- compiling Numba-CUDA source -------------------------------------------------------------- */
typedef struct kf_compile_options {
  const char *const *kernels;     /* names of the functions to compile (NULL/0: every function with an eager
                                   * signature in its decorator) */
  unsigned nkernels;
  const char *const *signatures;  /* Numba signatures ("void(float32[:], int64)") for the named functions:
                                   * needed for lazy @cuda.jit kernels; override eager ones */
  unsigned nsignatures;
  int bounds_check;               /* 1 (kf_compile_options_init's default): guard every array access with
                                   * check.bounds; 0: drop them all (--bounds-check=off) */
  const char *pipeline;           /* pass pipeline after lowering; NULL: kf_default_pipeline(), "" : none */
  int verify_each;                /* verify after each pass */
} kf_compile_options;

/* Fills opts with the defaults: every eager kernel, bounds checks on, default pipeline, verify_each on. */
KF_API void kf_compile_options_init(kf_compile_options *opts);
/* The default pass pipeline of kfront compile / run. Borrowed, static. */
KF_API const char *kf_default_pipeline(void);
/* Compiles Python source (a module written for numba.cuda) to typed kir: one func.func per kernel and
 * signature, plus the device functions they call. On success the caller owns *out (kf_module_destroy).
 * Errors (located, with the source line and a caret) go to the context's diagnostics. */
KF_API kf_status kf_compile_source(kf_context *ctx, const char *filename, const char *text, size_t len,
                                   const kf_compile_options *opts, kf_module **out);

/* Calls fn for every kir op with its name, summary and an example in the generic text form. */
KF_API void kf_op_registry_foreach(void (*fn)(void *user, const char *name, const char *summary, const char *example),
                                   void *user);

#ifdef __cplusplus
}
#endif

#endif
