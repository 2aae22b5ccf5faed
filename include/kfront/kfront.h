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
 *    prints to stdout/stderr and never calls exit() or abort(): diagnostics accumulate in the context;
 *  - host memory comes from the context's allocator (kf_alloc_fn, given to kf_context_create_with); out of
 *    memory is a status (KF_ERROR_OUT_OF_MEMORY) like any other error;
 *  - threads: the contract below; every function's comment agrees with it.
 *
 * Threads (the one contract; test/unit/api_threads.c exercises what it promises):
 *  - Separate contexts, and everything made from each, are independent: any number of threads may use them at
 *    once, each its own.
 *  - A context and what is made from it directly — kir modules, builders, types and attributes, compiles
 *    (kf_compile_source(s)), pass pipelines, code generation (kf_module_emit_*), kf_signature_parse,
 *    kf_context_add_source, kf_context_report*, the handler and callback setters, kf_context_diagnostics,
 *    kf_context_first_error, kf_context_error_count, kf_context_clear_diagnostics — is used by one thread at a
 *    time, and not while its runtimes work on other threads (they report into it). Exception: the runtimes' own
 *    reports and kf_context_diagnostic_count / _at / _note, which may come from any thread at any time (the
 *    diagnostics are locked).
 *  - A runtime may be used from several threads at once: kf_program_create / _create_sources / _create_generic (nothing
 *    compiles there), kf_program_get_function, kf_function_specialize, kf_function_launch, kf_launch, kf_reduce,
 *    kf_ufunc_call, kf_gufunc_call and the queries of functions and kernels (kf_function_get_info, kf_kernel_*); device
 *    memory, pinned host memory and copies (kf_device_*, kf_managed_alloc, kf_host_*, kf_memcpy_*, kf_memset_device,
 *    kf_pointer_range); streams and events (each created, used and destroyed by whichever threads, one stream or event
 *    being destroyed by one thread once no other uses it); the runtime's queries (kf_runtime_get_stats, _memory_info,
 *    _device_info, _describe, _get_mode) and kf_runtime_set_sim_limits. A specialisation that does not exist yet is
 *    compiled once, under the runtime's lock, however many threads ask for it at the same time; lookups of existing
 *    ones are lock-free. Known limit: an error reported on the context by another thread (a failed launch) while a
 *    specialisation compiles makes that compile fail too (it counts the context's errors).
 *  - One thread, with no other using the object: kf_runtime_create and kf_runtime_destroy; kf_program_destroy
 *    and kf_program_from_module (the module's context's rules hold for it); the function setters
 *    (kf_function_set_*), before the function's first launch.
 *  - Callbacks run on the thread whose call triggers them: the diagnostic callback and handler on the reporting
 *    thread with the diagnostics locked (they must not call kfront on that context); a module callback
 *    (kf_module_callback) on the launching thread, other launches of that module waiting; the overload resolver
 *    on the compiling thread, under the runtime's lock for a runtime's compiles; a generic program's specialisation
 *    callback (kf_specialize_fn) on the thread whose launch or kf_function_specialize met a new fingerprint, under
 *    the runtime's lock, the one thread using the runtime's context while it runs; the allocator (kf_alloc_fn) on
 *    any thread that uses the context's objects and on the simulator's workers, so it must be thread-safe as soon
 *    as they are used from several threads.
 *  - Process-wide calls that take no handle (kf_version*, kf_api_version, kf_status_name, kf_dtype_*,
 *    kf_builtin_path, kf_default_pipeline, kf_pass_registry_foreach, kf_compile_options_key, kf_default_cache_dir,
 *    kf_cuda_library_find, kf_free, kf_value_free, the calling thread's kf_current_device / kf_set_current_device /
 *    kf_set_interrupt_flag) are any thread, any time; kf_configure_cuda_paths and kf_set_overload_resolver are set
 *    once, before the first compile or library search, and are not synchronised with them.
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
  KF_ERROR_OUT_OF_BOUNDS = 6,   /* a kernel's error record was set: a bounds check failed (IndexError), or
                                 * the kernel raised an exception (kf_context_first_error says which) */
  KF_ERROR_INTERNAL = 7,
  KF_ERROR_OUT_OF_MEMORY = 8,   /* an allocation failed (host memory; device memory is KF_ERROR_DEVICE) */
  KF_ERROR_CALLBACK = 9,        /* an embedder's callback said it failed (kf_module_callback) */
} kf_status;

/* The version of these headers (semantic versioning; CMakeLists.txt's project version, which checks they agree).
 * The ABI: libkfront.so's SONAME is libkfront.so.MAJOR, and while MAJOR is 0, libkfront.so.0.MINOR — every 0.x
 * release may change the ABI, a PATCH release never does (docs/c-api.md, "Versions"). KF_VERSION_NUMBER orders
 * versions as integers (MAJOR * 10000 + MINOR * 100 + PATCH) for #if tests; kf_version_number() is the library's,
 * at run time, which a client can compare with the headers' it was built with. */
#define KF_VERSION_MAJOR 0
#define KF_VERSION_MINOR 1
#define KF_VERSION_PATCH 0
#define KF_VERSION_NUMBER (KF_VERSION_MAJOR * 10000 + KF_VERSION_MINOR * 100 + KF_VERSION_PATCH)
/* The library's KF_VERSION_NUMBER. */
KF_API unsigned kf_version_number(void);

/* The ABI scheme (docs/c-api.md, "Versions").
 *  - KF_API_VERSION numbers the binary interface these headers describe: it goes up with every release that breaks
 *    programs built against an earlier one (a field removed, moved or retyped, a function's parameters changed, an
 *    enum value renumbered), and the SONAME changes with it. Adding a function, an enum value after the last, or a
 *    field at the end of an options struct does not change it. kf_api_version() is the library's: a program built
 *    with headers of another KF_API_VERSION must not use the library.
 *  - Every options struct the caller fills and passes in (kf_context_options, kf_pass_options, kf_compile_options,
 *    kf_runtime_options, kf_codegen_options, kf_cuda_paths, kf_nvrtc_options, kf_generic_options) begins with `size_t
 *    struct_size`, which its _init function sets to sizeof the struct as the caller's headers declare it; fill a struct
 *    with its _init function, then set the fields wanted. New fields are only ever appended. The library reads the
 *    fields that fit in struct_size and takes the defaults for the rest (a program built with older headers), accepts a
 *    larger struct_size when every byte past the fields it knows is zero (newer headers, their new options unused), and
 *    refuses with KF_ERROR_INVALID_INPUT (and a diagnostic naming the struct, where the call has a context) a
 *    struct_size of 0 (the _init function was not called), one smaller than the struct's first version, or a larger one
 *    that sets fields it does not know. NULL options are the defaults, as before.
 *  - The structs the library fills (kf_diagnostic, kf_error_info, kf_device_info, ...) and the elements of arrays
 *    (kf_source, kf_binding, kf_value, kf_function_spec, kf_link_input, kf_arg, kf_array, kf_generic_kernel) have a
 *    fixed layout for a KF_API_VERSION. */
#define KF_API_VERSION 1
/* The library's KF_API_VERSION. */
KF_API unsigned kf_api_version(void);

/* A short name for a status ("invalid input", ...). Borrowed, static. */
KF_API const char *kf_status_name(kf_status s);
/* kfront's version string ("0.1.0"). Borrowed, static. */
KF_API const char *kf_version(void);
/* Releases memory the library handed to the caller (strings, buffers), with the allocator that made it (see
 * kf_alloc_fn), from any thread, also after its context is destroyed. NULL is allowed. */
KF_API void kf_free(void *p);

/* ---- context -------------------------------------------------------------------------------- */
typedef struct kf_context kf_context;

/* The allocator hook, after Lua's lua_Alloc. The library calls it for every block of host memory it allocates
 * for a context and everything made from it (modules, runtimes, programs, functions, kernels, streams, events,
 * the strings and buffers it hands out): new_size == 0 frees ptr (a block of old_size bytes; the result is
 * ignored); otherwise ptr == NULL allocates new_size bytes (old_size is 0), and ptr != NULL reallocates a block
 * of old_size bytes to new_size. It returns NULL when it cannot (a reallocation then leaves the block as it
 * was), and memory aligned as malloc aligns it. It may be called from any thread that calls the library with
 * the context's objects and from the simulator's worker threads (kf_runtime_options.sim_workers), so it must
 * be thread-safe when they are used from several threads; ud must stay valid until every block it gave is
 * freed (after kf_context_destroy, and the kf_free of what the caller kept).
 *
 * Out of memory, a call returns KF_ERROR_OUT_OF_MEMORY (whatever it was doing: compiling, launching, copying
 * a result) and reports "out of memory" to the context (kf_context_first_error: KF_ERRKIND_OUT_OF_MEMORY when
 * it is the first error); nothing is left half made and the context, runtimes and programs stay usable (a
 * module whose pipeline ran out of memory may be half transformed: destroy it). The library never aborts.
 *
 * Not through the hook: LLVM's and libNVVM's own allocations during code generation (LLVM ends the process
 * when it runs out of memory, outside kfront's control), the CUDA driver's, device memory and pinned host
 * memory (kf_device_alloc, kf_host_alloc; the simulator's stand-in for device memory comes from the system
 * allocator), state loaded once per process (libNVVM, libdevice: the system allocator), and calls that take
 * no context (kf_compile_options_key, kf_default_cache_dir: the calling thread's allocator, the system's
 * unless called from a callback the library runs). */
typedef void *(*kf_alloc_fn)(void *ud, void *ptr, size_t old_size, size_t new_size);

typedef struct kf_context_options {
  size_t struct_size;  /* sizeof(kf_context_options): set by kf_context_options_init (see KF_API_VERSION) */
  kf_alloc_fn alloc;   /* NULL (the default): malloc, realloc and free */
  void *alloc_ud;      /* passed to alloc */
} kf_context_options;

/* Fills o with the defaults (the system allocator) and its struct_size. */
KF_API void kf_context_options_init(kf_context_options *o);
/* Creates a context with the given options (NULL: the defaults). Caller owns *out: kf_context_destroy.
 * KF_ERROR_OUT_OF_MEMORY (*out NULL) when the allocator fails; KF_ERROR_INVALID_INPUT (*out NULL, nothing
 * reported: there is no context yet) for a struct_size it cannot read (see KF_API_VERSION). */
KF_API kf_status kf_context_create_with(const kf_context_options *opts, kf_context **out);
/* kf_context_create_with(NULL). Returns NULL only when out of memory. */
KF_API kf_context *kf_context_create(void);
/* Destroys the context. Modules created in it must be destroyed first. */
KF_API void kf_context_destroy(kf_context *ctx);
/* Every diagnostic reported since the last clear, rendered (`file:line:col: error: ...`, the source line,
 * a caret). Borrowed: valid until the next call on ctx. Never NULL. */
KF_API const char *kf_context_diagnostics(kf_context *ctx);
KF_API unsigned kf_context_error_count(kf_context *ctx);
KF_API void kf_context_clear_diagnostics(kf_context *ctx);

/* The first error since the context was made or cleared, as facts (for embedders that map errors to their
 * own exceptions: a Python TypingError, IndexError, ...). */
typedef enum kf_error_kind {
  KF_ERRKIND_NONE = 0,
  KF_ERRKIND_INTERNAL = 1,       /* a bug in kfront (please report it) */
  KF_ERRKIND_SYNTAX = 2,         /* the source does not parse: Python source, kir text (kf_module_parse), a type's
                                  * kir text (kf_type_parse), a pass pipeline (kf_module_run_pipeline,
                                  * kf_pipeline_normalize: its syntax, pass and option names, option values) */
  KF_ERRKIND_TYPING = 3,         /* Numba's typing rules refuse it */
  KF_ERRKIND_UNSUPPORTED = 4,    /* valid Numba that kfront does not handle */
  KF_ERRKIND_ARGUMENT = 5,       /* arguments that do not fit the kernel (Python: TypeError) */
  KF_ERRKIND_LAUNCH_CONFIG = 6,  /* grid, block or shared memory out of the device's limits */
  KF_ERRKIND_OUT_OF_BOUNDS = 7,  /* a bounds check failed: IndexError (the index fields below are set) */
  KF_ERRKIND_DEVICE = 8,         /* the CUDA driver or the device failed (or the simulator found a race, ...) */
  KF_ERRKIND_BACKEND = 9,        /* libNVVM or LLVM failed */
  KF_ERRKIND_NOT_FOUND = 10,     /* no such kernel, file or library */
  KF_ERRKIND_OUT_OF_MEMORY = 11,
  KF_ERRKIND_RAISED = 12,        /* a kernel raised an exception (raise or assert under debug=True, a local read
                                  * where it is unbound): kernel, exception, thread and block below are set */
  KF_ERRKIND_VALUE = 13,         /* a constant Numba's lowering refuses with ValueError (an alignment= that is not
                                  * a positive power of 2 multiple of 8) */
  KF_ERRKIND_INVALID_IR = 14,    /* kir the embedder gave (parsed or built) that breaks kir's rules: the verifier's
                                  * errors (kf_module_verify, and a pipeline's check of its input), the builder's
                                  * refusals (kir.h), a pass's refusal of the module it was given; an input error,
                                  * not kfront's (a module kfront's own frontend made that fails is INTERNAL) */
  KF_ERRKIND_INVALID_ARGUMENT = 15, /* a call's own arguments the API refuses: a NULL text or name, a level or kind
                                  * out of range, a new function name that is not an identifier */
} kf_error_kind;
/* The largest kf_error_kind of these headers (a library of a later minor version may add kinds after it). */
#define KF_ERRKIND_LAST KF_ERRKIND_INVALID_ARGUMENT
typedef struct kf_error_info {
  kf_error_kind kind;
  const char *message;        /* the message alone, without location or source line */
  const char *file;           /* NULL when the error has no location */
  unsigned line, col;         /* 1-based; 0 unknown */
  /* KF_ERRKIND_OUT_OF_BOUNDS and KF_ERRKIND_RAISED: */
  const char *kernel;         /* the kernel's Python name */
  /* KF_ERRKIND_OUT_OF_BOUNDS: */
  unsigned axis;
  int64_t index, extent;
  /* KF_ERRKIND_RAISED: the exception as raised, "ValueError" (no arguments) or "ValueError: message"
   * (kf_error_exception of abi.h splits it); the raising thread's threadIdx and blockIdx */
  const char *exception;
  unsigned thread[3], block[3];
} kf_error_info;
/* Fills *out with the first error reported since the last clear; its strings are borrowed, valid until
 * the diagnostics are cleared or the context destroyed. KF_ERROR_NOT_FOUND (and kind NONE) when there was
 * none. */
KF_API kf_status kf_context_first_error(kf_context *ctx, kf_error_info *out);
/* Optional: called with each rendered diagnostic as it is reported (level: 0 error, 1 warning, 2 note). */
typedef void (*kf_diagnostic_fn)(void *user, int level, const char *rendered);
KF_API void kf_context_set_diagnostic_handler(kf_context *ctx, kf_diagnostic_fn fn, void *user);

/* ---- every diagnostic as facts ----
 * Besides the rendered text, the context keeps each diagnostic reported since the last clear (errors, warnings and
 * notes) as a kf_diagnostic, in the order reported. A note belongs to the diagnostic reported just before it (its
 * "operand defined here", "to close this region", "During: resolving callee type"): it is one of that
 * diagnostic's notes (kf_context_diagnostic_note), not a diagnostic of its own. A note with nothing before it and
 * a pass's own report (bce{report=1}, tile-shared's and pad-shared's reasons) stand alone: top-level diagnostics
 * of severity NOTE. Errors counted beyond a limit and dropped are not kept, nor their notes. Warnings a cached
 * compile gives again (the disk cache keeps their rendered text) are read back from that text: message, file,
 * line and column, no kind, no end column. */
typedef enum kf_severity {
  KF_SEVERITY_ERROR = 0,    /* the levels of kf_diagnostic_fn and kf_context_report */
  KF_SEVERITY_WARNING = 1,
  KF_SEVERITY_NOTE = 2,
} kf_severity;
#define KF_NO_DIAGNOSTIC 0xffffffffu
typedef struct kf_diagnostic {
  kf_severity severity;
  kf_error_kind kind;        /* an error's kind (as kf_context_first_error gives it); a warning's or note's
                              * KF_ERRKIND_NONE unless its reporter gave one (kf_context_report) */
  const char *message;       /* the message alone, without location or quoted line (NUL-terminated) */
  const char *file;          /* NULL when unlocated */
  unsigned line, col;        /* 1-based; 0 unknown */
  unsigned end_col;          /* one past the span's last column on that line, when the reporter knows the span
                              * (an embedder's, kf_context_report_diagnostic; kfront's own: not yet); else 0 */
  unsigned index;            /* a top-level diagnostic: its index for kf_context_diagnostic_at; a note: its index
                              * among its diagnostic's notes */
  unsigned parent;           /* a note: the index of the diagnostic it belongs to; else KF_NO_DIAGNOSTIC */
  unsigned nnotes;           /* the notes it has (so far, while its reporter may add more) */
  const char *rendered;      /* its text as kf_context_diagnostics has it: its lines, the quoted source line and
                              * the caret (a diagnostic's notes are not in it: each note has its own) */
} kf_diagnostic;
/* The number of top-level diagnostics (attached notes not counted) since the last clear. */
KF_API unsigned kf_context_diagnostic_count(kf_context *ctx);
/* The i-th top-level diagnostic (0-based, in the order reported). Its strings are borrowed from ctx: valid until
 * the diagnostics are cleared (kf_context_clear_diagnostics, or an API call that documents that it clears them)
 * or the context is destroyed, whatever is reported meanwhile. KF_ERROR_INVALID_INPUT (unreported, *out zeroed)
 * when i >= kf_context_diagnostic_count. Any thread (launches may report meanwhile). */
KF_API kf_status kf_context_diagnostic_at(kf_context *ctx, unsigned i, kf_diagnostic *out);
/* The j-th note of the i-th top-level diagnostic (j < its nnotes), borrowed as kf_context_diagnostic_at's.
 * KF_ERROR_INVALID_INPUT (unreported, *out zeroed) when there is no such note. */
KF_API kf_status kf_context_diagnostic_note(kf_context *ctx, unsigned i, unsigned j, kf_diagnostic *out);
/* Optional: called with each diagnostic as it is reported, notes included (their parent set), after it is kept
 * (it is then also kf_context_diagnostic_at(ctx, d->index) or that diagnostic's note d->index), on the reporting
 * thread (a launch's, under the runtime's work), with the context's diagnostics locked: fn must not call kfront on
 * ctx. *d and its strings are borrowed for the call only (keep what is needed, or read it again through
 * kf_context_diagnostic_at). NULL removes it. Independent of kf_context_set_diagnostic_handler: both are called
 * when both are set. */
typedef void (*kf_diagnostic_callback)(void *user, const kf_diagnostic *d);
KF_API void kf_context_set_diagnostic_callback(kf_context *ctx, kf_diagnostic_callback fn, void *user);

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
/* Renames the function `name` of the module to new_name (its symbol in the PTX: numba-cuda's
 * compile(abi_info={"abi_name": ...})), calls to it too. KF_ERROR_NOT_FOUND when there is no such function,
 * KF_ERROR_INVALID_INPUT when new_name is not an identifier ([A-Za-z_$][A-Za-z0-9_$]*) or names another symbol
 * of the module (see diagnostics). */
KF_API kf_status kf_module_rename_function(kf_module *m, const char *name, const char *new_name);

/* ---- passes --------------------------------------------------------------------------------- */
typedef struct kf_pass_options {
  size_t struct_size;           /* sizeof(kf_pass_options): set by kf_pass_options_init (see KF_API_VERSION) */
  int verify_each;              /* verify after every pass (recommended: 1) */
  int print_ir_after_all;
  const char *print_ir_after;   /* comma-separated pass names, or NULL */
  int print_debug_info;         /* loc(...) in IR dumps */
  int time_passes;
  unsigned arch;                /* the GPU the passes plan for (tile-shared's shared-memory budget and occupancy):
                                 * 90 for sm_90; 0: sm_90 */
} kf_pass_options;
/* Fills opts with the defaults: verify_each on, nothing printed or timed, sm_90; and its struct_size. */
KF_API void kf_pass_options_init(kf_pass_options *opts);

/* Runs a textual pipeline ("canonicalize,cse,dce") over m. IR dumps and the timing report asked for in
 * opts are appended to *report (caller owns, kf_free; may be NULL if none was asked for).
 * opts may be NULL (verify_each on, nothing printed). */
KF_API kf_status kf_module_run_pipeline(kf_module *m, const char *pipeline, const kf_pass_options *opts, char **report);
/* The pipeline as the pass manager reads it back (normalised); caller owns *out (kf_free). */
KF_API kf_status kf_pipeline_normalize(kf_context *ctx, const char *pipeline, char **out);
/* Calls fn for every registered pass with its name and summary. */
KF_API void kf_pass_registry_foreach(void (*fn)(void *user, const char *name, const char *summary), void *user);

/* ---- element types and arrays ----------------------------------------------------------------- */
typedef enum kf_dtype {
  KF_BOOL, KF_INT8, KF_INT16, KF_INT32, KF_INT64, KF_UINT8, KF_UINT16, KF_UINT32, KF_UINT64,
  KF_FLOAT16, KF_FLOAT32, KF_FLOAT64,
  KF_COMPLEX64, KF_COMPLEX128,  /* NumPy's complex64 / complex128: two floats (re, im) */
  KF_BFLOAT16, /* bfloat16 (numba-cuda's types.bfloat16; ml_dtypes.bfloat16 arrays) */
} kf_dtype;
enum { KF_DTYPE_COUNT = 15, KF_MAX_RANK = 8 };
/* Record dtypes (NumPy structured dtypes, Numba's Record types) are kf_dtype values from KF_DTYPE_RECORD_BASE on,
 * made by kf_dtype_record (or kf_dtype_parse of the same spelling). */
enum { KF_DTYPE_RECORD_BASE = 256, KF_MAX_RECORD_DTYPES = 4096 };
/* NumPy's datetime64 and timedelta64 of a unit (Numba's NPDatetime, NPTimedelta: 8 bytes, NaT the minimum int64)
 * are the kf_dtype values KF_DTYPE_DATETIME64 + u and KF_DTYPE_TIMEDELTA64 + u, u the unit's code as Numba numbers
 * them: 0 Y, 1 M, 2 W, 4 D, 5 h, 6 m, 7 s, 8 ms, 9 us, 10 ns, 11 ps, 12 fs, 13 as, 14 generic (no unit); 3 is
 * unused. kf_dtype_name spells them "datetime64[D]", "timedelta64[s]", "timedelta64[]". */
enum { KF_DTYPE_DATETIME64 = 64, KF_DTYPE_TIMEDELTA64 = 80, KF_DTYPE_TIME_UNITS = 15 };

typedef enum kf_memory { KF_MEMORY_HOST = 0, KF_MEMORY_DEVICE = 1 } kf_memory;

/* An array: element [0, 0, ...] at data, extents and strides (in bytes, NumPy's convention). The struct
 * does not own the data. A host array passed to kf_launch is copied to the device before the launch and
 * back after it (as Numba does with NumPy arrays); a device array (from kf_device_alloc) stays in place. */
typedef struct kf_array {
  void *data;                     /* host pointer, or device address (KF_MEMORY_DEVICE) */
  kf_memory memory;
  kf_dtype dtype;
  unsigned ndim;                  /* 0..KF_MAX_RANK (kernels take ndim >= 1) */
  int device;                     /* device memory: which device holds it, as kf_array_set_device records it
                                   * (1 + its ordinal); 0: not said, taken to be the launching runtime's own.
                                   * A launch refuses an array of another device. (This field fills what was
                                   * padding: kf_array's size and offsets are those of kfront 0.1.) */
  int64_t shape[KF_MAX_RANK];
  int64_t strides[KF_MAX_RANK];   /* bytes */
  int readonly;                   /* 1: the kernel may not write it (part of the argument types, as in Numba) */
} kf_array;

/* ---- compiling Numba-CUDA source -------------------------------------------------------------- */

/* A piece of Python source: a whole module, or one function's lines exactly as they stand in their file
 * (possibly indented: a def nested in a function or class; decorators included). Columns are true columns:
 * the indentation of the first logical line is the text's base level, and every location (diagnostics, kir
 * `loc(...)`, the line of a failed bounds check) is the file's: line first_line + (line within text) - 1.
 * The compile copies filename and text; the caller keeps ownership of its own. */
typedef struct kf_source {
  const char *filename;   /* for diagnostics; "<input>" when NULL; copied */
  const char *text;       /* need not be NUL-terminated; copied */
  size_t len;
  unsigned first_line;    /* the file line of the text's first line; 0 means 1 */
} kf_source;

/* A value bound to a name by the embedder (a global or closure variable of the function), frozen at compile
 * as Numba freezes globals and closure variables at the first compile. Everything it points to is borrowed
 * for the duration of the call that takes it (a compile copies what it keeps). */
typedef enum kf_value_kind {
  KF_VALUE_BOOL, KF_VALUE_INT, KF_VALUE_FLOAT,  /* scalar of `dtype` (Python int: int64, float: float64, complex: complex128, bool:
                                                 * boolean; NumPy scalars their own dtype); a complex one is a FLOAT (scalar.f, imag) */
  KF_VALUE_TUPLE,        /* items[0..nitems): scalars, arrays, functions, paths and tuples of them (nested allowed);
                          * with path, a named tuple (a collections.namedtuple or typing.NamedTuple instance): path its
                          * class as the embedder names it ("mod.Point"), names[0..nitems) its fields */
  KF_VALUE_ARRAY,        /* a host array (kf_array, memory HOST; rank 1..KF_MAX_RANK, any strides); its elements are
                          * copied at compile: a constant array in constant memory, as Numba makes a global array;
                          * an array of records (a record dtype) spells its record in path (kf_dtype_name's text);
                          * a device array (memory DEVICE) is captured at its address with its shape and strides, as
                          * numba-cuda captures a global device array's pointer: kernels read and write that memory in
                          * place (the caller keeps it alive as long as the program), and the program's code is never
                          * cached (it holds this process's addresses) */
  KF_VALUE_MODULE,       /* a Python module kfront knows, by dotted name: "numba", "numba.cuda", "math", "numpy", "cmath", "operator", ... */
  KF_VALUE_PATH,         /* a known object by dotted path, as `from numba import float32` binds "numba.float32", "numba.cuda.grid", "math.sqrt", "numpy.float32" */
  KF_VALUE_FUNCTION,     /* a Python function defined in sources[source] under the name `function` (a @cuda.jit device function, possibly from another file) */
  KF_VALUE_NAMESPACE,    /* named members (names[i] -> items[i]): an enum class (its members INT values, path its member type), or a module-like object */
  KF_VALUE_EXCEPTION,    /* an exception class kernels may raise that is not one of Python's builtins: path is the name the
                          * embedder knows it by ("mod.MyError"); a raise of it comes back as that name (kf_error_info.exception) */
  KF_VALUE_STRING,       /* a str (path holds its UTF-8 text): an exception's message, a dtype name */
  KF_VALUE_NONE,         /* None */
  KF_VALUE_SLICE,        /* a slice object: items[0..3) its start, stop and step, each INT (an integer dtype) or NONE;
                          * Numba's slice3_type when the step is given and not 1, else slice2_type (its typeof) */
  KF_VALUE_UNSUPPORTED,  /* a value kernels cannot use (a Python list, a plain Python function, ...): path says what it
                          * is; a kernel that reads the name gets a located error saying so (not "not defined") */
  KF_VALUE_PYMODULE,     /* a Python module of the embedder's own (not one kfront knows), bound by the attributes kernels
                          * read: names[i] -> items[i] as a NAMESPACE's (an attribute kernels cannot use an UNSUPPORTED
                          * item; a submodule a PYMODULE); path its name. An attribute not among them is
                          * "module 'path' has no attribute ..." where a kernel reads it */
  KF_VALUE_TUPLE_CLASS,  /* a named tuple class (collections.namedtuple, typing.NamedTuple): path its name as the
                          * embedder names it ("mod.Point", as KF_ARG_TUPLE's type and TUPLE's path name it),
                          * names[0..nitems) its fields; kernels construct it (Point(1, y=2.0)) */
  KF_VALUE_OVERLOAD,     /* a function whose implementation depends on the argument types of each call (numba's
                          * @overload): path names it for the overload resolver (kf_set_overload_resolver), which each
                          * call asks for the implementation; part of the compile's key, so an embedder whose
                          * resolutions can change spells that change into path */
  KF_VALUE_FOREIGN,      /* a foreign device function (numba-cuda's cuda.declare_device): path its symbol ("mul_f32_f32"),
                          * function its Numba signature ("float32(float32, float32)"); a call passes a pointer to the
                          * result's slot first and gets an int status back (extern "C" __device__ int
                          * mul_f32_f32(float *ret, float x, float y)), or with scalar.i KF_FOREIGN_ABI_C
                          * (declare_device(..., abi="c")) a plain C call (extern "C" __device__ float
                          * mul_f32_f32(float x, float y)): the code defining it is linked into the kernel
                          * (kf_compile_options' links); the simulator cannot run it */
} kf_value_kind;
/* How a KF_VALUE_FOREIGN function is called (its scalar.i): an ABI, with KF_FOREIGN_COOPERATIVE or'ed in for a
 * function that synchronises the grid (numba-cuda's declare_device(..., use_cooperative=True)): a kernel calling it,
 * or calling a device function that does, is launched cooperatively (every block resident, as cuda.cg's grid sync). */
enum { KF_FOREIGN_ABI_NUMBA = 0, KF_FOREIGN_ABI_C = 1, KF_FOREIGN_COOPERATIVE = 2 };
typedef struct kf_value kf_value;
struct kf_value {
  kf_value_kind kind;
  kf_dtype dtype;                /* scalars: BOOL with KF_BOOL, INT with an integer dtype, FLOAT with a float or complex dtype */
  union { int64_t i; uint64_t u; double f; } scalar;   /* signed ints and bool: i; unsigned: u; floats: f; complex: the real part */
  const kf_value *items;         /* TUPLE, NAMESPACE, PYMODULE */
  const char *const *names;      /* NAMESPACE, PYMODULE, TUPLE_CLASS, TUPLE with path */
  unsigned nitems;
  kf_array array;                /* ARRAY */
  const char *path;              /* MODULE, PATH, EXCEPTION, STRING, PYMODULE; ARRAY of records: its record's spelling;
                                  * INT: NULL, or an enum member's type (its value is scalar.i),
                                  * spelt EnumMember("mod.Color", int64) or IntEnumMember("mod.Color", int64);
                                  * for an enum of tuples or strings EnumMember("mod.Color", UniTuple(int64, 2),
                                  * ((1, 2), (3, 4))) with every member's value, and scalar.i is the member's index
                                  * (of the first member of an equal value);
                                  * NAMESPACE: NULL, or the type of its members when it is that enum class (its items
                                  * then the members' values) */
  const char *function;          /* FUNCTION */
  unsigned source;               /* FUNCTION: index into the sources given to the compile */
  double imag;                   /* FLOAT of a complex dtype: the imaginary part */
};
typedef struct kf_binding { const char *name; kf_value value; } kf_binding;

/* What the decorator says, supplied instead of read from the decorator text (which is then ignored for that
 * function: it may be undecorated, or use a decorator kfront does not know). The function is then exactly
 * what the equivalent decorator would make it: @cuda.jit(signatures, device=..., fastmath=..., ...),
 * @cuda.reduce, @vectorize(signatures, target="cuda"), @guvectorize(signatures, layout, target="cuda"). */
typedef enum kf_function_kind {
  KF_FUNCTION_KERNEL = 0,       /* @cuda.jit: kf_function_launch */
  KF_FUNCTION_DEVICE = 1,       /* @cuda.jit(device=True): called by kernels only */
  KF_FUNCTION_REDUCE = 2,       /* @cuda.reduce: kf_reduce */
  KF_FUNCTION_VECTORIZE = 3,    /* @vectorize([...], target="cuda"): kf_ufunc_call */
  KF_FUNCTION_GUVECTORIZE = 4,  /* @guvectorize([...], "(m,n)->(m)", target="cuda"): kf_gufunc_call */
} kf_function_kind;

typedef struct kf_function_spec {
  const char *name;                     /* the Python function's name */
  unsigned source;                      /* index of the source that defines it */
  kf_function_kind kind;
  const char *const *signatures;        /* eager signatures ("void(float32[:])", "float32(float32)"); 0: lazy */
  unsigned nsignatures;
  const char *layout;                   /* GUVECTORIZE: "(m,n),(n)->(m)" */
  int fastmath, debug, lineinfo;        /* 0/1 */
  int opt;                              /* -1: default; else 0..3 */
  int inline_mode;                      /* 0 default, 1 "always", 2 "never" */
  int cache;                            /* recorded only */
  /* KERNEL: cuda.jit(launch_bounds=...): the most threads per block it may be launched with, the fewest blocks
   * per multiprocessor its registers must allow, the most blocks per cluster (PTX .maxntid, .minnctapersm,
   * .maxclusterrank); 0: no bound. A launch of more threads per block fails. The first must be given for the
   * others (1..2**31-1 each). */
  unsigned launch_bounds[3];
  /* DEVICE: cuda.jit(forceinline=True): the LLVM function gets alwaysinline (libNVVM inlines it at each call);
   * inline_mode "always" instead inlines each call before the IR goes to libNVVM (numba-cuda's inline=). 0/1 */
  int forceinline;
} kf_function_spec;

/* Code defining the foreign device functions kernels call (KF_VALUE_FOREIGN bindings: numba-cuda's
 * cuda.declare_device(..., link=...) and cuda.jit(link=...)), linked by nvJitLink into each GPU module of a program
 * that calls one or is given any (without nvJitLink, by the CUDA driver's linker: all but LTO-IR; the simulator
 * cannot run foreign code: a kernel calling a foreign function fails there, naming it). KF_LINK_CU is CUDA C/C++
 * compiled with NVRTC for the device (CUDA's and CCCL's headers, found as the CUDA libraries are, then the options'
 * include_dirs searched); the others are what nvJitLink takes. */
typedef enum kf_link_kind {
  KF_LINK_CU,       /* .cu */
  KF_LINK_PTX,      /* .ptx */
  KF_LINK_CUBIN,    /* .cubin */
  KF_LINK_FATBIN,   /* .fatbin */
  KF_LINK_LTOIR,    /* .ltoir */
  KF_LINK_OBJECT,   /* .o: a host object holding device code */
  KF_LINK_LIBRARY,  /* .a: an archive of them */
} kf_link_kind;
/* The kind of a link input by its file name's extension, or by the extension alone (".cu", "kernels.ptx");
 * KF_ERROR_INVALID_INPUT for a name with none of them. */
KF_API kf_status kf_link_kind_of(const char *name, kf_link_kind *out);
typedef struct kf_link_input {
  kf_link_kind kind;
  const char *name;  /* its file name: NVRTC's errors are located in it */
  const void *data;  /* its contents, len bytes (borrowed for the call that takes it) */
  size_t len;
} kf_link_input;

/* A loaded module of a program, as its module callback is told of it. */
typedef enum kf_module_event {
  KF_MODULE_SETUP = 0,     /* loaded, and about to run its first launch */
  KF_MODULE_TEARDOWN = 1,  /* about to be unloaded */
} kf_module_event;
typedef struct kf_module_info {
  void *library;  /* GPU: the CUlibrary the module was loaded as (cuLibraryLoadData; cuLibraryGetGlobal finds its
                   * globals), NULL where the driver has no library API (loaded by cuModuleLoadDataEx); simulator:
                   * NULL */
  void *module;   /* GPU: its CUmodule in the device's primary context; simulator: an opaque handle, distinct for each
                   * module loaded at once */
  int device;     /* the ordinal of the runtime's device */
} kf_module_info;
/* numba-cuda's link items' setup_callback and teardown_callback. KF_MODULE_SETUP: once per loaded module of the
 * program, on the thread of the first launch of one of its kernels, before that launch (with the device's context
 * current on that thread; nothing of the runtime's is locked but the module's setup: other launches of the module
 * wait until the callback returns, and a launch the callback makes of the module itself does not wait); nonzero
 * fails that launch (KF_ERROR_CALLBACK) and the next launch sets the module up again. KF_MODULE_TEARDOWN: before
 * a module that was set up is unloaded (the program destroyed); its return value is not looked at. */
typedef int (*kf_module_callback)(void *user_data, kf_module_event event, const kf_module_info *module);

typedef struct kf_compile_options {
  size_t struct_size;             /* sizeof(kf_compile_options): set by kf_compile_options_init (KF_API_VERSION) */
  const char *const *kernels;     /* names of the functions to compile (NULL/0: every function with an eager
                                   * signature in its decorator); looked up in source 0 first, then in the
                                   * others in order */
  unsigned nkernels;
  const char *const *signatures;  /* Numba signatures ("void(float32[:], int64)") for the named functions:
                                   * needed for lazy @cuda.jit kernels; override eager ones */
  unsigned nsignatures;
  int bounds_check;               /* 1 (kf_compile_options_init's default): guard every array access with
                                   * check.bounds; 0: drop them all (--bounds-check=off) */
  const char *pipeline;           /* pass pipeline after lowering; NULL: kf_default_pipeline(), "" : none */
  int verify_each;                /* verify after each pass */
  /* What an embedder supplies (all borrowed for the call; zero/NULL: none, the source text alone decides). */
  const kf_source *extra_sources; /* more sources: index 1.. (the main source is index 0); every source is
                                   * parsed, and its functions are found by (source, name) */
  unsigned nextra_sources;
  const kf_binding *bindings;     /* names bound by the embedder: in every function of every source, a name
                                   * that is not a local is looked up here first, then among the module-level
                                   * names of the function's own source (imports, constants, functions), then
                                   * among Python's builtins; decorators and module-level constants see them
                                   * too. Names must be distinct. */
  unsigned nbindings;
  const kf_function_spec *functions; /* decorator facts: each must name a function of its source */
  unsigned nfunctions;
  /* Foreign code linked into the program's GPU modules (kf_link_input; programs only: kf_compile_source's kir
   * does not link). A program given any is never cached on disk (as numba-cuda refuses cache=True with link=). */
  const kf_link_input *links;
  unsigned nlinks;
  const char *const *include_dirs; /* more -I folders for the KF_LINK_CU inputs, after the toolkit's include */
  unsigned ninclude_dirs;
  /* Link-time optimisation (numba-cuda's cuda.jit(lto=True); programs only): 1: a GPU module that is linked with
   * foreign code (links given, or a KF_VALUE_FOREIGN binding) goes to nvJitLink as libNVVM's LTO-IR, each KF_LINK_CU
   * is compiled by NVRTC to LTO-IR (-dlto), and nvJitLink optimises them together with the KF_LINK_LTOIR inputs
   * (-lto), so a small foreign function is inlined into the kernels calling it (PTX and cubin inputs are linked as
   * they are). 0 (the default): kfront's PTX and the .cu's PTX, linked as they are. Nothing changes for a module
   * without foreign code (kfront compiles a kernel and its device functions as one module), nor under
   * KF_BACKEND_LLVM (LLVM's NVPTX target gives no LTO-IR: linked as 0). kf_module_emit_lto_ptx gives the PTX. */
  int lto;
  /* Told of each module of the program set up and torn down (kf_module_callback; programs only). A program given
   * one is never cached on disk (each kernel's module is its program's). NULL: none. */
  kf_module_callback module_callback;
  void *module_callback_data;
} kf_compile_options;

/* Overloaded functions (KF_VALUE_OVERLOAD bindings). A call of one in a kernel or device function is typed by
 * asking the process's overload resolver for an implementation for the call's argument types: it gets the binding's
 * path, the types of the positional arguments then of the keyword arguments (nargs + nkeywords texts), and the
 * keywords' names. Types are spelt as signatures spell them ("float32[:, ::1]", "UniTuple(int64, 2)",
 * "Tuple((int64, float32))"); a function value (a device function, an inner def) as "function(<name>)", anything else
 * as "opaque(<what it is>)". The resolver fills *out with either an error (why no implementation fits: the compile
 * reports it where the call is, as a typing error) or the implementation: sources as kf_compile_sources takes them,
 * whose sources[0] defines `function`, with the bindings and function specs of those sources (they see their own
 * bindings only, never the program's). The compile compiles it as a device function for the call (once per distinct
 * argument types and keywords), and calls release(release_data) once it has read *out (NULL: nothing to release).
 * With no resolver set, such a call is an error. The resolver is called on the compiling thread; it may be set
 * once, before any compile that needs it (it is not synchronised with compiles running). */
typedef struct kf_resolution {
  const char *error;                     /* non-NULL: no implementation, and why */
  const kf_source *sources;              /* the implementation: sources[0] defines it */
  unsigned nsources;
  const char *function;                  /* its name in sources[0] */
  const kf_binding *bindings;            /* the names the implementation's sources read */
  unsigned nbindings;
  const kf_function_spec *functions;     /* their decorator facts (the implementation itself: a device function) */
  unsigned nfunctions;
  void (*release)(void *release_data);   /* called once the compile has read the resolution; may be NULL */
  void *release_data;
} kf_resolution;
typedef void (*kf_overload_resolver)(void *user, const char *path, const char *const *arg_types, unsigned nargs,
                                     const char *const *keywords, unsigned nkeywords, kf_resolution *out);
/* Sets the process's overload resolver (NULL: none). */
KF_API void kf_set_overload_resolver(kf_overload_resolver resolver, void *user);

/* Fills opts with the defaults: every eager kernel, bounds checks on, default pipeline, verify_each on, no
 * extra sources, bindings or function specs; and its struct_size. */
KF_API void kf_compile_options_init(kf_compile_options *opts);
/* The default pass pipeline of kfront compile / run. Borrowed, static. */
KF_API const char *kf_default_pipeline(void);
/* The i-th dotted path that names a builtin of the kernel language ("builtins.range", "numba.cuda.grid",
 * "math.sqrt", "numba.cuda.atomic.add", ...: the frontend's registry), NULL past the last; static. Families
 * known by prefix are not listed one by one: numpy's ufuncs, numba.cuda.fp16 / bf16 / libdevice, vector types. */
KF_API const char *kf_builtin_path(unsigned i);
/* Compiles Python source (a module written for numba.cuda) to typed kir: one func.func per kernel and
 * signature, plus the device functions they call. The source is index 0; opts->extra_sources, if any, are
 * 1... On success the caller owns *out (kf_module_destroy). Errors (located, with the source line and a
 * caret) go to the context's diagnostics. */
KF_API kf_status kf_compile_source(kf_context *ctx, const char *filename, const char *text, size_t len,
                                   const kf_compile_options *opts, kf_module **out);
/* The same over nsources >= 1 sources: sources[0] is the main source (opts->extra_sources is then ignored),
 * sources[1..] may hold device functions the bindings name (KF_VALUE_FUNCTION). Symbols of functions from
 * different sources with one name are kept apart in kir (`name__s<source>`); `py_name` stays the Python
 * name. Bad embedder input (a binding or spec without a name, a FUNCTION or spec naming nothing, a source
 * index out of range, an array of an invalid dtype...) is KF_ERROR_INVALID_INPUT with a diagnostic located
 * at the use of the name, or naming the binding when no use locates it. The module keeps copies of every
 * source for its diagnostics. */
KF_API kf_status kf_compile_sources(kf_context *ctx, const kf_source *sources, unsigned nsources,
                                    const kf_compile_options *opts, kf_module **out);
/* A canonical text of everything in opts that changes the compiled code besides the main source: kernels,
 * signatures, bounds checks, the pipeline, the extra sources (file name, first line, SHA-256 of the text),
 * the bindings (sorted by name: kinds, dtypes, values, floats in hex, arrays as shape, dtype and the SHA-256
 * of their elements in C order), the function specs and the link inputs (kind, name, SHA-256 of the contents) and
 * include folders. Two option sets give the same text if and only if
 * they compile the same; a runtime hashes it into its cache keys. opts may be NULL (the defaults). The
 * caller owns *out (kf_free). KF_ERROR_INVALID_INPUT (and *out NULL) when opts cannot be read (a NULL name,
 * items or data pointer where one is needed, an invalid dtype or rank, a device array, a struct_size it cannot
 * read). */
KF_API kf_status kf_compile_options_key(const kf_compile_options *opts, char **out);

/* ---- Numba signatures and types as trees ----------------------------------------------------------
 * kfront's one reading of Numba's signature syntax, and the Numba types of what it compiled, for an embedder that
 * needs them as data (the Python module builds its type objects from them) rather than parsing either text itself.
 * A type is a kf_value tree: every node a KF_VALUE_TUPLE whose items[0] is a KF_VALUE_STRING (path) naming its form,
 * then its parts; counts are KF_VALUE_INT (int64), flags KF_VALUE_BOOL, an absent part KF_VALUE_NONE:
 *   ("none")                                   void / none
 *   ("scalar", name)                           Numba's name: "bool", "int8".."uint64", "float16", "bfloat16",
 *                                              "float32", "float64", "complex64", "complex128"
 *   ("datetime64", unit), ("timedelta64", unit)  NPDatetime / NPTimedelta; unit "D", "ms", ..., "" generic
 *   ("charseq", count), ("unicharseq", count)  NumPy's S<count> / U<count> items ([char x 12], [unichr x 12])
 *   ("array", dtype, ndim, layout, readonly)  layout "C", "F" or "A"
 *   ("tuple", (type, ...))                     a tuple (UniTuple when its elements are equal)
 *   ("namedtuple", class, (field, ...), (type, ...))
 *   ("record", ((name, type, offset, title or NONE), ...), size, aligned)   a structured dtype; a field of fixed
 *                                              shape has the type ("nestedarray", dtype, (dim, ...))
 *   ("pointer", dtype)                         CPointer(dtype), int32*
 *   ("optional", type)                         Optional(type)
 *   ("enum", class, is_int_enum, dtype, valued)  EnumMember / IntEnumMember("class", dtype); valued: an enum of
 *                                              tuples or strings, dtype its members' index
 *   ("signature", return type or NONE when only argument types are given, (argument type, ...))
 * Each tree is one block the caller owns: kf_value_free (or kf_free), from any thread.
 *
 * kf_signature_parse: a signature's text (len bytes, need not be NUL-terminated) as kernels' signatures are read:
 * "void(float32[:], int64)", "(float32[:, :], float32[:, :])", "float32(int32*, Record(...), [char x 4][::1])",
 * Numba's type names and constructors (UniTuple, Tuple, NamedTuple, Array(..., readonly=True), CPointer, Optional,
 * NPDatetime, CharSeq, EnumMember, ...). *out the "signature" node. Bad text: KF_ERROR_INVALID_INPUT with the error
 * in the context's diagnostics, located in the file "<signature>" at line 1, column of the offending token (kind
 * SYNTAX or TYPING); a type numba has and kfront does not compile (a pointer to what is not a number, voidptr):
 * KF_ERROR_UNSUPPORTED (kind UNSUPPORTED). Any thread, one call per context at a time.
 *
 * kf_module_function_result: the Numba type of what the function `name` (its symbol) of a compiled module returns:
 * its result_type attribute for an Optional result, else its function type's results (none for no result, a tuple
 * for several). KF_ERROR_NOT_FOUND when there is no such function; KF_ERROR_UNSUPPORTED when the type has none in
 * Numba (kir's ptr<f32, 1>; see diagnostics). */
KF_API kf_status kf_signature_parse(kf_context *ctx, const char *text, size_t len, kf_value **out);
KF_API kf_status kf_module_function_result(kf_module *m, const char *name, kf_value **out);
KF_API void kf_value_free(kf_value *v);

/* Calls fn for every kir op with its name, summary and an example in the generic text form. */
KF_API void kf_op_registry_foreach(void (*fn)(void *user, const char *name, const char *summary, const char *example),
                                   void *user);

/* Calls fn for every libdevice function kernels call as cuda.libdevice.NAME (numba-cuda's list, in name order):
 * its name without "__nv_"; its signature "ret:args", the types as letters (v void, h int16, i int32, l int64,
 * f float32, d float64), '*' before a pointer (out-)argument, whose pointed-to value the call returns after the
 * return value; and libdevice's names of its arguments, pointers too, comma-separated ("x,sptr,cptr"). */
KF_API void kf_libdevice_foreach(void (*fn)(void *user, const char *name, const char *signature, const char *params),
                                 void *user);

/* ---- runtime: arrays, devices, kernels, launches ---------------------------------------------
 *
 * A kf_runtime runs kernels on a GPU through the CUDA Driver API (libcuda.so.1, loaded at run time) or on
 * the simulator (a CPU interpreter of kir with the CUDA execution model). Kernels come from a kf_program:
 * Python source compiled on demand, one specialisation per argument-type signature (lazy @cuda.jit
 * kernels), or the eager signature(s) of the decorator; compiled code is cached in memory and on disk.
 * Errors (bad launches, driver failures, IndexError from a failed bounds check) go to the diagnostics of
 * the runtime's context. Threads: the contract at the top of this file (launches, lookups, memory, streams and
 * events may come from several threads at once; creating and destroying the runtime, one thread). */

/* Bytes per element (bool: 1; a record: its itemsize); 0 for an invalid value. */
KF_API size_t kf_dtype_size(kf_dtype t);
/* Numba's name: "boolean", "int8" ... "float64"; a record's spelling (kf_dtype_record). Borrowed, static. */
KF_API const char *kf_dtype_name(kf_dtype t);
/* Parses a Numba name ("float32", "int64", "boolean", "bool"), or a short form: b1, i8 i16 i32 i64,
 * u8 u16 u32 u64, f16 f32 f64 (bit widths, not NumPy's byte counts), or a record's spelling as kf_dtype_record
 * takes it. KF_OK or KF_ERROR_INVALID_INPUT. */
KF_API kf_status kf_dtype_parse(const char *text, kf_dtype *out);
/* A record dtype (a NumPy structured dtype) from Numba's spelling of its Record type, e.g.
 *   Record(x[type=float32;offset=0],v[type=nestedarray(int16, (3,));offset=4],r[type=Record(...);offset=16];32;True)
 * fields in offset order, each with its type (bool, an integer or float type, a record, or a nestedarray of one of
 * those) and byte offset, then the itemsize and whether NumPy laid the dtype out with align=True (its alignment is
 * then its fields' largest, else 1). The same layout gives the same dtype in the whole process (records are
 * registered once and never freed; at most KF_MAX_RECORD_DTYPES of them). Arrays of records are kf_arrays of
 * that dtype; a single record (NumPy's np.void / np.record, Numba's Record argument) is a kf_array of ndim 0 (its
 * one record at data), copied in and back like any array. Kernels spell the type the same way in signatures:
 * "void(Record(...)[::1], Record(...))". Errors (the reason) go to ctx's diagnostics. */
KF_API kf_status kf_dtype_record(kf_context *ctx, const char *spelling, kf_dtype *out);
/* 1 when t is a record dtype. Its alignment in bytes (a scalar dtype's: its size). */
KF_API int kf_dtype_is_record(kf_dtype t);
KF_API size_t kf_dtype_alignment(kf_dtype t);

/* Fills *a with a contiguous array of the given shape in order 'C' (row-major) or 'F' (column-major); its device
 * is not said (kf_array_set_device says it). */
KF_API void kf_array_init(kf_array *a, void *data, kf_memory memory, kf_dtype dtype, unsigned ndim,
                          const int64_t *shape, char order);
/* Records that a's memory is on device `ordinal` (kf_runtime_device of the runtime that allocated it); -1 unsays
 * it. Launches, @cuda.reduce and ufunc calls on a runtime of another device then refuse the array with an error
 * naming both devices (copy it over with kf_memcpy_peer). */
KF_API void kf_array_set_device(kf_array *a, int ordinal);
/* The device a's memory was said to be on, or -1 when not said. */
KF_API int kf_array_get_device(const kf_array *a);
/* Number of elements (the product of the extents). */
KF_API size_t kf_array_size(const kf_array *a);
/* Whether the strides are those of a contiguous array in order 'C' or 'F'. */
KF_API int kf_array_is_contiguous(const kf_array *a, char order);

/* A kernel argument: an array (copied by value; its data is borrowed for the duration of the call; of rank 0, a 0-d
 * array, Numba's array(float64, 0d, C), spelt float64[()], passed as its array of one; a 0-d array of a record
 * dtype is one record), a scalar of
 * a dtype, or a tuple of arguments (Numba's UniTuple and Tuple: scalars, arrays and tuples, nested at most
 * KF_MAX_TUPLE_DEPTH deep; items borrowed for the call). Signed integers and bool use value.i, unsigned
 * integers value.u, floats value.f. A tuple passes its elements, in order, as the kernel's parameters (as
 * Numba does, and abi.h lays them out): kf_kernel_param_count and kf_kernel_param count and describe those
 * flattened parameters; the kernel's signature spells the tuple ("void(UniTuple(int64, 2), float32[::1])"). */
typedef enum kf_arg_kind { KF_ARG_SCALAR = 0, KF_ARG_ARRAY = 1, KF_ARG_TUPLE = 2 } kf_arg_kind;
enum { KF_MAX_TUPLE_DEPTH = 16 };
typedef struct kf_arg kf_arg;
struct kf_arg {
  kf_arg_kind kind;
  kf_dtype dtype;                 /* KF_ARG_SCALAR: the scalar's type (KF_ARG_ARRAY: array.dtype) */
  union { int64_t i; uint64_t u; double f; } value;
  double imag;                    /* KF_ARG_SCALAR of a complex dtype: the imaginary part (value.f the real one) */
  kf_array array;                 /* KF_ARG_ARRAY */
  const char *type;               /* KF_ARG_SCALAR: NULL, or the Numba type of a value that is not a plain number:
                                   * an enum member (its value in value, of dtype KF_INT64, KF_FLOAT64 or KF_BOOL as
                                   * the class's members are typed), spelt EnumMember("mod.Color", int64) or
                                   * IntEnumMember("mod.Color", int64), also as an item of a tuple argument; a member
                                   * of an enum of tuples is its index (KF_INT64, below the number of values: another
                                   * raises ValueError in the kernel), its type spelt with the values as kf_value's path;
                                   * kernels are specialised on it as on a dtype (borrowed for the call) */
                                  /* KF_ARG_TUPLE: NULL, or a named tuple's class and field names (Numba's NamedTuple
                                   * and NamedUniTuple): the class as the embedder names it, then the names, spelt
                                   * "mod.Point", ("x", "y") (one field: ("x",)); the signature spells the argument
                                   * NamedTuple("mod.Point", ("x", "y"), (int64, float64)), kernels read p.x, and two
                                   * classes are two types (borrowed for the call) */
  const kf_arg *items;            /* KF_ARG_TUPLE: its elements (borrowed) */
  unsigned nitems;
};

KF_API kf_arg kf_arg_array(const kf_array *a);
KF_API kf_arg kf_arg_int(kf_dtype dtype, int64_t v);    /* bool or a signed integer type */
KF_API kf_arg kf_arg_uint(kf_dtype dtype, uint64_t v);  /* an unsigned integer type */
KF_API kf_arg kf_arg_float(kf_dtype dtype, double v);   /* float16/32/64 */
KF_API kf_arg kf_arg_complex(kf_dtype dtype, double re, double im); /* complex64/128 (two parameters: abi.h) */
KF_API kf_arg kf_arg_tuple(const kf_arg *items, unsigned n); /* items borrowed (they must outlive the call) */

/* Reads a NumPy .npy file (little-endian b1 i1..i8 u1..u8 f2 f4 f8, C or Fortran order, rank <= 8) into a
 * host array. The caller owns out->data (kf_free). Errors name the file and the reason. */
KF_API kf_status kf_npy_load(kf_context *ctx, const char *path, kf_array *out);
/* Writes a host array to a .npy file (a non-contiguous array is written in C order); replaces path
 * atomically. */
KF_API kf_status kf_npy_save(kf_context *ctx, const char *path, const kf_array *a);
/* Writes len bytes of data to path atomically: into a temporary file created exclusively beside it, every
 * write checked and synced, then renamed over path (a symlink there is replaced, not followed; an existing
 * device or FIFO, such as /dev/stdout, is written in place). On failure (a full disk, a file-size limit, ...)
 * the error ("PATH: error: cannot write: No space left on device") is in ctx's diagnostics, nothing is left
 * behind and an existing file keeps its content. A new file gets the mode open(2) would give it (0666 less
 * the umask), a replaced one keeps its mode. */
KF_API kf_status kf_write_file(kf_context *ctx, const char *path, const void *data, size_t len);

/* ---- the runtime ---- */
typedef struct kf_runtime kf_runtime;
typedef enum kf_runtime_mode { KF_RUNTIME_AUTO = 0, KF_RUNTIME_GPU = 1, KF_RUNTIME_SIM = 2 } kf_runtime_mode;

/* Which code generator a runtime uses for the GPU (kf_codegen_options.backend below). */
typedef enum kf_backend {
  KF_BACKEND_NVVM = 0,  /* libNVVM (dlopen'd; kf_runtime_options.libnvvm_path, CUDA_HOME or /usr/local/cuda) */
  KF_BACKEND_LLVM = 1,  /* LLVM 14's NVPTX target, built in (PTX for at most sm_86, which newer GPUs JIT) */
  KF_BACKEND_AUTO = 2,  /* runtime only: libNVVM when it loads, else LLVM */
} kf_backend;

/* The library reads no environment variable: every choice is an option (kfront's tools map KFRONT_SIM,
 * KFRONT_NO_GRID_STRIDE, KFRONT_NO_THREAD_MAP, KFRONT_NO_CACHE, KFRONT_CACHE_DIR, KFRONT_BACKEND, KFRONT_LIBCUDA to these). */
typedef struct kf_runtime_options {
  size_t struct_size;      /* sizeof(kf_runtime_options): set by kf_runtime_options_init (see KF_API_VERSION) */
  kf_runtime_mode mode;    /* AUTO (default): the GPUs when a CUDA driver and at least one device are found,
                            * else the simulator */
  int device;              /* the device: a GPU ordinal, or one of the simulator's sim_devices (default 0);
                            * KF_DEVICE_CURRENT: the calling thread's current device (kf_current_device) */
  int grid_stride;         /* 1 (default): the runtime's pipeline ends with grid-stride (abi.h); 0: kernels run
                            * on the user's grid as it is */
  int disk_cache;          /* 1 (default): compiled kernels are also cached on disk in cache_dir */
  const char *cache_dir;   /* the disk cache's directory (NULL, the default: no disk cache). Copied. */
  kf_backend backend;      /* KF_BACKEND_AUTO (default) */
  unsigned sim_devices;    /* simulator: how many devices it presents (default 1; 0 means 1). Each runtime is one
                            * of them, with its own programs and caches, as a GPU is; memory of one is refused
                            * by launches on another. Devices 2k and 2k+1 are peers (kf_device_can_access_peer),
                            * as GPUs linked two by two; copies between others are staged through host memory. */
  const char *libcuda_path;/* the CUDA driver library (NULL: "libcuda.so.1"); the first runtime's wins */
  int sim_detect_races;    /* simulator: report data races on shared memory (default 1) */
  unsigned sim_workers;    /* simulator: host threads running blocks (default 1; 0 = one per CPU) */
  uint64_t sim_max_steps;  /* simulator: ops one launch may execute before it stops with "simulation step limit
                            * exceeded" (0, the default: the simulator's own limit, 1e10 for a launch and 1e9
                            * for one thread; a value above 1e9 is also one thread's limit) */
  double sim_max_seconds;  /* simulator: wall-clock seconds one launch may take before it stops with "simulation
                            * time limit exceeded" (0, the default: no limit) */
  int thread_map;          /* 1 (default): the runtime's pipeline has thread-map (passes/thread_map.c: in a kernel
                            * whose threads do not cooperate, consecutive lanes run consecutive threadIdx.y where
                            * that makes its accesses contiguous); 0: it has not; 2: thread-map and block-pair's
                            * launch variants (passes/block_pair.c: two of the user's blocks per block along the
                            * contiguous axis; off by default, KFRONT_BLOCK_PAIR=1 from Python). Added after the first version:
                            * a caller whose struct_size ends before it gets 1 */
} kf_runtime_options;

/* Fills o with the defaults above and its struct_size. */
KF_API void kf_runtime_options_init(kf_runtime_options *o);
/* Simulator: new launch limits (kf_runtime_options.sim_max_steps and sim_max_seconds, 0 their defaults) for the
 * launches that start after it, and how the caller's users set them (NULL: the C API's names), which the limits'
 * messages name: "simulation step limit exceeded (N ops in the launch; <steps_setting>)". The settings are copied
 * (at most 160 bytes each are kept). KF_ERROR_UNSUPPORTED on a GPU runtime. */
KF_API kf_status kf_runtime_set_sim_limits(kf_runtime *rt, uint64_t max_steps, double max_seconds,
                                           const char *steps_setting, const char *seconds_setting);
/* The calling thread's interrupt flag (NULL, the default: none): a simulator launch this thread starts stops soon
 * after *flag becomes non-zero (each of its threads looks every 2^20 ops, the launch before each block) with
 * "simulation interrupted" (KF_ERROR_DEVICE), so that a signal handler (Ctrl-C) can end a long launch; the flag
 * must stay valid while such launches run. Compiles and GPU launches do not look at it. */
KF_API void kf_set_interrupt_flag(volatile int *flag);
/* The conventional disk-cache directory from the values of $KFRONT_CACHE_DIR, $XDG_CACHE_HOME and $HOME
 * (which the caller reads; any may be NULL): the first, else XDG/kfront, else HOME/.cache/kfront. *out is
 * owned by the caller (kf_free); KF_ERROR_NOT_FOUND when all three are unset. */
KF_API kf_status kf_default_cache_dir(const char *kfront_cache_dir, const char *xdg_cache_home, const char *home,
                                      char **out);
/* Creates a runtime whose diagnostics go to ctx (which must outlive it). opts may be NULL (defaults).
 * With KF_RUNTIME_GPU and no usable driver or device this fails (KF_ERROR_NOT_FOUND or KF_ERROR_DEVICE)
 * with the reason, e.g. "no CUDA driver found (libcuda.so.1): ...". Caller owns *out: kf_runtime_destroy. */
KF_API kf_status kf_runtime_create(kf_context *ctx, const kf_runtime_options *opts, kf_runtime **out);
/* Destroys the runtime after its programs, streams and events (destroy those first) and frees every
 * device allocation still held by it. */
KF_API void kf_runtime_destroy(kf_runtime *rt);
/* KF_RUNTIME_GPU or KF_RUNTIME_SIM: what the runtime actually uses. */
KF_API kf_runtime_mode kf_runtime_get_mode(kf_runtime *rt);
/* One line saying what runs the kernels and why: "GPU 0: NVIDIA H200 (sm_90, 132 SMs)" or
 * "simulator (no CUDA driver found (libcuda.so.1): ...)". Borrowed, valid as long as rt. */
KF_API const char *kf_runtime_describe(kf_runtime *rt);
/* The pass pipeline the runtime runs over every module it compiles from source when the program names none
 * (kf_default_pipeline's passes, or those without thread-map, as kf_runtime_options.thread_map says), as text for
 * kf_compile_options.pipeline. with_launch_variants 0: the passes that make the kernels the runtime launches as they
 * are compiled (their kir or PTX is that of exactly what such a launch runs); nonzero: the whole pipeline the
 * runtime runs, with the passes that add each kernel's launch variants beside it, as kf_runtime_options.grid_stride
 * and thread_map say (NAME__gs, NAME__bp: launched in its place where they pay). Borrowed, valid as long as rt. */
KF_API const char *kf_runtime_pipeline(kf_runtime *rt, int with_launch_variants);

typedef struct kf_device_info {
  char name[256];
  int cc_major, cc_minor;            /* compute capability (the simulator reports 9.0) */
  int multiprocessors;
  int warp_size;
  int max_threads_per_block;
  int max_block_dim[3];
  int max_grid_dim[3];
  size_t max_shared_per_block;        /* without opt-in */
  size_t max_shared_per_block_optin;  /* with cuFuncSetAttribute (kfront opts in as needed) */
} kf_device_info;
/* The limits launches are checked against. */
KF_API kf_status kf_runtime_device_info(kf_runtime *rt, kf_device_info *out);
/* Free and total device memory in bytes (the simulator: the host's). */
KF_API kf_status kf_runtime_memory_info(kf_runtime *rt, size_t *free_bytes, size_t *total_bytes);

typedef struct kf_runtime_stats {
  unsigned cache_memory_hits, cache_disk_hits, cache_misses;  /* compiled-kernel cache lookups */
  unsigned cache_corrupt;     /* disk entries found invalid (removed and recompiled) */
  unsigned cache_writes;      /* disk entries written */
  unsigned compiles;          /* Python source compiled to kir */
  unsigned launches;
} kf_runtime_stats;
KF_API void kf_runtime_get_stats(kf_runtime *rt, kf_runtime_stats *out);

/* ---- device memory, pinned host memory, streams ----
 * Any thread may call these (and kf_launch) on one runtime at once (the contract at the top of this file). */
typedef struct kf_stream kf_stream;

/* Allocates device memory (simulator: host memory standing in for it). Caller owns *dptr: kf_device_free.
 * bytes == 0 gives NULL. */
KF_API kf_status kf_device_alloc(kf_runtime *rt, size_t bytes, void **dptr);
KF_API kf_status kf_device_free(kf_runtime *rt, void *dptr);
/* Managed (unified) memory, as numba-cuda's managed arrays: one address the host and the device both read and
 * write (cuMemAllocManaged), attached to every stream at first, or to the host with KF_MANAGED_ATTACH_HOST
 * (CU_MEM_ATTACH_HOST). Device memory otherwise: freed by kf_device_free or kf_device_free_deferred, counted by
 * kf_runtime_allocated. The simulator's device memory is host memory already: its managed memory is that.
 * KF_ERROR_UNSUPPORTED (reported) for a CUDA driver without cuMemAllocManaged. bytes == 0 gives NULL. */
enum { KF_MANAGED_ATTACH_HOST = 1 };
KF_API kf_status kf_managed_alloc(kf_runtime *rt, size_t bytes, unsigned flags, void **dptr);
/* The allocation that device address ptr lies in (anyone's: kfront's, CuPy's, PyTorch's): its first address and
 * size (cuMemGetAddressRange). KF_ERROR_UNSUPPORTED (reported) where the device cannot tell: the simulator, whose
 * device memory is host memory, and a driver without the query; KF_ERROR_DEVICE (reported) for an address that
 * is no device memory. */
KF_API kf_status kf_pointer_range(kf_runtime *rt, const void *ptr, void **base, size_t *bytes);
/* Device memory rt has allocated and not yet freed: bytes and blocks (those waiting among the pending
 * deallocations below included). */
KF_API void kf_runtime_allocated(kf_runtime *rt, size_t *bytes, size_t *count);

/* Pending deallocations, as numba-cuda's (its cudadrv/driver.py _PendingDeallocs): kf_device_free_deferred and
 * kf_host_free_deferred queue a block instead of freeing it; the queue is flushed (every block freed) when it holds
 * more than max_count blocks or more than max_bytes bytes (by default numba-cuda's CUDA_DEALLOCS_COUNT, 10, and
 * CUDA_DEALLOCS_RATIO, 0.2, of the device's memory), by kf_deallocations_flush, and when an allocation finds the
 * device full (then it is tried again) — unless deferral is on: kf_deallocations_defer(rt, 1) turns it on, nested,
 * (rt, 0) undoes one level, and while it is on nothing is flushed (numba-cuda's defer_cleanup; the queue waits for
 * the next flush after it). A flush first waits until the device has finished the work of every stream, so memory
 * is never freed while a kernel that may use it runs (a free per block would synchronise the device at each). A
 * queued block still counts as allocated (kf_runtime_allocated); freeing it again is KF_ERROR_INVALID_INPUT. */
typedef struct kf_deallocations {
  size_t pending, pending_bytes;  /* blocks waiting, their bytes */
  size_t max_count, max_bytes;    /* the limits (kf_deallocations_set_limits) */
  unsigned deferring;             /* nesting depth of kf_deallocations_defer(rt, 1); 0: flushes happen */
} kf_deallocations;
KF_API kf_status kf_device_free_deferred(kf_runtime *rt, void *dptr);
/* p: pinned memory of kf_host_alloc, of `bytes` bytes (what the limit counts). */
KF_API kf_status kf_host_free_deferred(kf_runtime *rt, void *p, size_t bytes);
KF_API kf_status kf_deallocations_flush(kf_runtime *rt);
KF_API kf_status kf_deallocations_defer(kf_runtime *rt, int defer);
KF_API void kf_deallocations_get(kf_runtime *rt, kf_deallocations *out);
/* New limits; a queue already over them is flushed. */
KF_API kf_status kf_deallocations_set_limits(kf_runtime *rt, size_t max_count, size_t max_bytes);

/* IPC: device memory shared with another process of the same machine (numba-cuda's IPC handles; the driver's
 * cuIpcGetMemHandle, cuIpcOpenMemHandle with lazy peer access, cuIpcCloseMemHandle). kf_ipc_get_handle gives the
 * KF_IPC_HANDLE_BYTES-byte handle of an allocation of rt (dptr: what kf_device_alloc gave); another process opens
 * it with kf_ipc_open_handle (*dptr: the same memory, mapped into it; not in the process that made the handle, as
 * the driver refuses) and closes it with kf_ipc_close_handle. The memory must stay allocated in its own process
 * while others use it. The simulator cannot share its memory (this process's host memory): KF_ERROR_UNSUPPORTED. */
enum { KF_IPC_HANDLE_BYTES = 64 };
KF_API kf_status kf_ipc_get_handle(kf_runtime *rt, void *dptr, unsigned char handle[KF_IPC_HANDLE_BYTES]);
KF_API kf_status kf_ipc_open_handle(kf_runtime *rt, const unsigned char handle[KF_IPC_HANDLE_BYTES], void **dptr);
KF_API kf_status kf_ipc_close_handle(kf_runtime *rt, void *dptr);

/* Copies; with a stream the copy is asynchronous on it (host memory must then stay valid until the stream
 * is synchronised; it is truly asynchronous only for pinned host memory), with NULL it completes before
 * returning. */
KF_API kf_status kf_memcpy_to_device(kf_runtime *rt, void *dst_device, const void *src_host, size_t bytes, kf_stream *s);
KF_API kf_status kf_memcpy_to_host(kf_runtime *rt, void *dst_host, const void *src_device, size_t bytes, kf_stream *s);
KF_API kf_status kf_memcpy_device(kf_runtime *rt, void *dst_device, const void *src_device, size_t bytes, kf_stream *s);
/* Sets bytes bytes of device memory to value (asynchronously on a stream). */
KF_API kf_status kf_memset_device(kf_runtime *rt, void *dst_device, int value, size_t bytes, kf_stream *s);

/* Page-locked ("pinned") host memory: copies from and to it can overlap kernels. KF_HOST_MAPPED also maps
 * it into the device's address space (kf_host_device_pointer), as Numba's mapped_array. */
enum { KF_HOST_MAPPED = 1 };
/* Caller owns *out: kf_host_free. bytes == 0 gives NULL. */
KF_API kf_status kf_host_alloc(kf_runtime *rt, size_t bytes, unsigned flags, void **out);
KF_API kf_status kf_host_free(kf_runtime *rt, void *p);
/* Pins existing host memory (until kf_host_unregister), as Numba's cuda.pinned(). */
KF_API kf_status kf_host_register(kf_runtime *rt, void *p, size_t bytes, unsigned flags);
KF_API kf_status kf_host_unregister(kf_runtime *rt, void *p);
/* The device address of mapped pinned memory. */
KF_API kf_status kf_host_device_pointer(kf_runtime *rt, void *host, void **dptr);

/* A stream (simulator: launches run at once, so streams order nothing). Caller owns it:
 * kf_stream_destroy. NULL wherever a kf_stream is taken means the default stream. */
KF_API kf_status kf_stream_create(kf_runtime *rt, kf_stream **out);
/* A stream someone else made (a CUstream of the runtime's device, e.g. CuPy's or PyTorch's), used as it
 * is: kf_stream_destroy forgets it without destroying it. On the simulator any handle is accepted. */
KF_API kf_status kf_stream_wrap(kf_runtime *rt, void *cu_stream, kf_stream **out);
/* The driver's handle of a stream (a CUstream; NULL for the default stream). */
KF_API void *kf_stream_handle(kf_stream *s);
KF_API void kf_stream_destroy(kf_stream *s);
/* Waits for the stream's work; then checks the bounds-check records of the kernels launched since the
 * last check (an IndexError is reported here for asynchronous launches: KF_ERROR_OUT_OF_BOUNDS). s NULL (the
 * default stream, whose runtime it cannot name): KF_ERROR_INVALID_INPUT, unreported — use kf_runtime_synchronize. */
KF_API kf_status kf_stream_synchronize(kf_stream *s);
/* Waits for all work of the runtime, then checks as kf_stream_synchronize does. */
KF_API kf_status kf_runtime_synchronize(kf_runtime *rt);

/* Events, for timing on the GPU (the simulator measures host time). Caller owns: kf_event_destroy. */
typedef struct kf_event kf_event;
KF_API kf_status kf_event_create(kf_runtime *rt, kf_event **out);
KF_API void kf_event_destroy(kf_event *e);
KF_API kf_status kf_event_record(kf_event *e, kf_stream *s);
KF_API kf_status kf_event_synchronize(kf_event *e);
/* Milliseconds between two recorded events. */
KF_API kf_status kf_event_elapsed_ms(kf_event *start, kf_event *end, float *ms);

/* ---- several devices ----
 * A runtime drives one device (kf_runtime_options.device): its own CUDA context (the device's primary context,
 * which runtimes of one device share), programs, compiled kernels and launches; a program, and every kernel and
 * stream made from a runtime, run on that device only. Several devices are used through one runtime each: make
 * them with device = 0 .. kf_device_count - 1 (the disk cache is keyed by the compute capability, so devices of
 * one kind share its entries). Each host thread has a current device (0 until it selects one), which the
 * embedder's own dispatch (the Python module's `cuda.select_device`) follows; kf_runtime_options.device =
 * KF_DEVICE_CURRENT makes a runtime for it. Memory knows its device through kf_array_set_device: a launch given
 * an array of another device, or a stream of another device, fails with KF_ERROR_INVALID_INPUT and a message
 * naming both devices. */
enum { KF_DEVICE_CURRENT = -1 };

/* How many devices runtimes made with these options can use (opts: mode, libcuda_path, sim_devices; NULL: the
 * defaults): the GPUs the driver reports (KF_RUNTIME_GPU: KF_ERROR_NOT_FOUND with the reason when there is no
 * usable driver or no device; AUTO: the GPUs when there is a driver and at least one, else the simulator's), or the
 * simulator's sim_devices. Errors go to ctx's diagnostics. */
KF_API kf_status kf_device_count(kf_context *ctx, const kf_runtime_options *opts, int *count);
/* The properties of device `ordinal` (of those kf_device_count counts with the same options), without making a
 * runtime or a CUDA context. KF_ERROR_NOT_FOUND (reported) for an ordinal out of range. */
KF_API kf_status kf_device_get_info(kf_context *ctx, const kf_runtime_options *opts, int ordinal, kf_device_info *out);
/* One of the CUDA driver's attributes of device `ordinal` by its name, CUdevice_attribute's without the
 * CU_DEVICE_ATTRIBUTE_ prefix ("CLOCK_RATE", "L2_CACHE_SIZE", "MAX_THREADS_PER_MULTIPROCESSOR": every name of
 * CUDA 13.0's cuda.h), without making a runtime or a CUDA context: on a GPU the driver's value (cuDeviceGetAttribute),
 * on the simulator the simulated device's for the attributes kf_device_info holds. KF_ERROR_NOT_FOUND (reported) for
 * an unknown name, an attribute the simulator does not model, or an ordinal out of range. */
KF_API kf_status kf_device_get_attribute(kf_context *ctx, const kf_runtime_options *opts, int ordinal, const char *name,
                                         int *out);
/* The CUDA driver's version (cuDriverGetVersion: 13000 for CUDA 13.0) of libcuda_path (NULL: libcuda.so.1), loaded
 * and initialised once per process as a runtime would. KF_ERROR_NOT_FOUND (reported: "no CUDA driver found
 * (libcuda.so.1): ...") where there is none. */
KF_API kf_status kf_driver_version(kf_context *ctx, const char *libcuda_path, int *version);
/* What kfront finds on this machine, as text (`kfront -s`, `python -m kfront -s`; as `numba -s` prints it): kfront's
 * version, the CUDA driver's, what runs kernels with these options (mode, libcuda_path, sim_devices, cache_dir,
 * disk_cache; NULL: the defaults) and each device with its compute capability, where libNVVM, libdevice, NVRTC and
 * nvJitLink were found (loading them, as kf_cuda_library_find) or every place searched, the cache directory.
 * *out is the caller's (kf_free). KF_ERROR_INVALID_INPUT (*out NULL) for a struct_size it cannot read. */
KF_API kf_status kf_system_report(const kf_runtime_options *opts, char **out);
/* The calling thread's current device: the last one kf_set_current_device or kf_runtime_make_current set on this
 * thread, 0 before. */
KF_API int kf_current_device(void);
/* Sets the calling thread's current device (nothing else: no context is made; an ordinal that has no device
 * fails later, when a runtime is made for it). KF_ERROR_INVALID_INPUT for a negative ordinal. */
KF_API kf_status kf_set_current_device(int ordinal);
/* Makes rt's device the calling thread's current device and, on a GPU, its context the thread's current CUDA
 * context, so that other CUDA libraries called next on this thread (CuPy, PyTorch, the driver) use that device. */
KF_API kf_status kf_runtime_make_current(kf_runtime *rt);
/* The ordinal of rt's device (for the simulator: of its virtual device). */
KF_API int kf_runtime_device(kf_runtime *rt);
/* The ordinal of the GPU whose memory ptr is (memory of any allocator: kfront's, CuPy's, PyTorch's; asked of the
 * driver), or -1 when that cannot be told (host memory; the simulator, whose device memory is host memory). */
KF_API int kf_runtime_pointer_device(kf_runtime *rt, const void *ptr);
/* Whether rt's device reads and writes peer's memory directly (*can 1: GPUs with peer access, or the simulator's
 * peer pairs; 0: copies between them are staged through host memory). Both must be of one mode. */
KF_API kf_status kf_device_can_access_peer(kf_runtime *rt, kf_runtime *peer, int *can);
/* Copies bytes from device memory of src_rt's device to device memory of dst_rt's device: directly where the
 * devices have peer access (enabled on first use), else staged through page-locked host memory. With a stream
 * (of either runtime's device) a direct copy is asynchronous on it; NULL, and every staged copy (after waiting
 * for s), completes before returning. The same device on both sides is a device-to-device copy. */
KF_API kf_status kf_memcpy_peer(kf_runtime *dst_rt, void *dst_device, kf_runtime *src_rt, const void *src_device,
                                size_t bytes, kf_stream *s);

/* ---- programs, functions, kernels ----
 * A program holds Python source (or a compiled kir module); a function is one Python kernel of it,
 * resolved by name once; a kernel is one specialisation of a function for argument types. Finding the
 * kernel for arguments is a lookup by a binary fingerprint of their types (per argument: scalar dtype, or
 * array dtype, rank, layout C/F/A and readonly), lock-free when it was seen before; a new fingerprint is
 * compiled once, however many threads ask for it at the same time. */
typedef struct kf_program kf_program;
typedef struct kf_function kf_function;
typedef struct kf_kernel kf_kernel;

/* A program over Python source: text and filename are copied; opts may be NULL (kf_compile_options_init's
 * defaults); its kernels/signatures fields are ignored (the function name and the arguments pick the
 * kernel); bounds_check, pipeline, verify_each and what an embedder supplies (extra sources, bindings,
 * function specs: read and deep-copied here, bound arrays' elements included) are kept for every compile of
 * the program, and are part of its cache keys. Bad embedder input is KF_ERROR_INVALID_INPUT here. Nothing is
 * compiled here. Caller owns *out: kf_program_destroy (before the runtime). */
KF_API kf_status kf_program_create(kf_runtime *rt, const char *filename, const char *text, size_t len,
                                   const kf_compile_options *opts, kf_program **out);
/* The same over nsources >= 1 sources, as kf_compile_sources takes them: sources[0] is the main source (a
 * fragment starting at its first_line; its functions are the program's), sources[1..] the extra ones
 * (opts->extra_sources is then ignored). */
KF_API kf_status kf_program_create_sources(kf_runtime *rt, const kf_source *sources, unsigned nsources,
                                           const kf_compile_options *opts, kf_program **out);
/* A program over an already compiled kir module (kf_compile_source or kf_module_parse): its kernels are
 * used as they are (no new specialisations). m is borrowed and must outlive the program, unchanged. */
KF_API kf_status kf_program_from_module(kf_runtime *rt, kf_module *m, kf_program **out);

/* ---- generic programs: kernels an embedder builds for each argument-type fingerprint ----
 * A program whose kernels are made on demand by the embedder (a language with generic kernels: an element type
 * left open, a type variable): the embedder names its kernels, and the first launch or kf_function_specialize of a
 * kernel with argument types that have no specialisation yet calls the embedder's callback with the types of the
 * kernel's parameters for those arguments. The callback builds a kir module (kir.h's builder, or kf_module_parse)
 * in the runtime's context holding a kernel of that name whose parameters take them, and hands it over; the runtime
 * verifies it, runs its pipeline, compiles and loads it, and keeps it under the arguments' fingerprint, in the same
 * dispatch table, and found by the same lock-free lookup, as the specialisations of a Python program (f32 arrays,
 * then f64 arrays: two kernels, the callback called twice; every later launch of either is a lookup). */
struct kf_type; /* kir.h's kf_type */
/* The callback: build kernel `kernel` for parameters of types param_types[0..nparams) (kir.h's kf_type handles:
 * borrowed, interned in ctx: an array argument's array<dtype, ndim, layout> with layout C, F or A from its strides
 * as for any kernel, a scalar's scalar type (enum members: their integer type), a record's record type, a 0-d array's array of one
 * (array<dtype, 1, C>), a tuple's elements each a parameter of its own, in order, as kf_arg says).
 * Return KF_OK with *out a module of ctx (the runtime's context) holding a kernel (KF_FUNCTION_FLAG_KERNEL) named
 * `kernel` — and the device functions it calls — whose parameters those arguments fit (as kf_function_specialize
 * picks among a module's kernels; the types do not say readonly: a readonly array argument is taken only by a kernel
 * declaring that parameter readonly, its readonly_params attribute); the runtime owns *out from then on (it destroys
 * it with the program; the embedder must not touch it again). The module need not be verified. To refuse (types the
 * embedder's language cannot take), report why (kf_context_report, located in the embedder's source) and return any
 * other status: the launch or specialisation then fails with KF_ERROR_INVALID_INPUT and that diagnostic (the runtime
 * reports one of its own, naming the kernel and the argument types, when the callback reported no error);
 * KF_ERROR_OUT_OF_MEMORY is passed on as it is. It runs on the thread whose call met the new fingerprint, under the
 * runtime's lock (one callback at a time per runtime; other misses wait, lookups of existing specialisations and
 * launches go on); while it runs it is the one thread using ctx (build, parse, report), and it must not launch,
 * specialise or destroy anything of the runtime. A module that does not verify or that its pipeline refuses fails the
 * call with KF_ERROR_INVALID_INPUT (kind KF_ERRKIND_INVALID_IR), a kernel that its arguments do not fit with
 * KF_ERROR_INVALID_INPUT (kind KF_ERRKIND_ARGUMENT, "No matching definition"); nothing is kept then and the next call
 * with those types calls the callback again. */
typedef kf_status (*kf_specialize_fn)(void *user_data, kf_context *ctx, const char *kernel,
                                      struct kf_type *const *param_types, unsigned nparams, kf_module **out);

/* A kernel of a generic program. */
typedef struct kf_generic_kernel {
  const char *name;    /* its kf_function's name and its kir kernel's (copied) */
  int nparams;         /* the parameters it takes (a tuple's elements counted each): a launch with another count is
                        * refused (KF_ERROR_INVALID_INPUT, kind ARGUMENT) without calling the callback; -1: any */
} kf_generic_kernel;

typedef struct kf_generic_options {
  size_t struct_size;                /* sizeof(kf_generic_options): set by kf_generic_options_init */
  const kf_generic_kernel *kernels;  /* the program's kernels (read and copied by kf_program_create_generic) */
  unsigned nkernels;
  kf_specialize_fn specialize;       /* required */
  void *user_data;                   /* passed to specialize; must stay valid as long as the program */
  const char *pipeline;              /* the pass pipeline run over each module the callback builds (copied); NULL:
                                      * the runtime's default, as for Python programs; "": none */
} kf_generic_options;
/* Fills o with the defaults (no kernels, no callback, the runtime's pipeline) and its struct_size. */
KF_API void kf_generic_options_init(kf_generic_options *o);
/* A program over the kernels opts names, made by opts->specialize as they are launched (nothing is called here).
 * KF_ERROR_INVALID_INPUT (kind INVALID_ARGUMENT) for no callback, no kernels, a kernel with no name or named twice,
 * or options it cannot read. kf_program_get_function finds the kernels by name (another name: KF_ERROR_NOT_FOUND);
 * kf_function_get_info says KF_FUNCTION_KERNEL; kf_function_kernels lists the specialisations made so far. Never
 * cached on disk (the runtime cannot know what the callback would build). Caller owns *out: kf_program_destroy
 * (before the runtime), which destroys the modules the callback built. */
KF_API kf_status kf_program_create_generic(kf_runtime *rt, const kf_generic_options *opts, kf_program **out);
KF_API void kf_program_destroy(kf_program *p);

/* The function `name` of the program. Nothing is compiled yet: the source's top-level definitions are read (its
 * functions and decorators; no body is typed), a kir program's kernels looked up. *out is borrowed: valid until
 * the program is destroyed; asking again gives the same handle. KF_ERROR_NOT_FOUND (kind NOT_FOUND, *out NULL)
 * when the program has no such function or it is host code (no @cuda.jit, @cuda.reduce, @vectorize or
 * @guvectorize); KF_ERROR_INVALID_INPUT for a NULL or empty name. A source that does not parse gives a handle
 * still, and its errors when it compiles (as kf_program_get_kernel, kf_function_specialize and the launches
 * report them). */
KF_API kf_status kf_program_get_function(kf_program *p, const char *name, kf_function **out);
/* The kernel of f for these arguments (their types; values do not matter): for a lazy kernel, compiled for
 * the signature the arguments spell (e.g. float32[::1], int64), for an eager one (and a program over a kir
 * module), the first of its signatures the arguments convert to (scalars convert as by a C cast; arrays must
 * match dtype and rank exactly, and C/F layouts need such strides). Compiled code is cached. *out is borrowed:
 * valid until the program is destroyed. Arguments that fit none of the signatures: KF_ERROR_INVALID_INPUT (kind
 * ARGUMENT, numba's "No matching definition"); a compile's errors: its status and kinds. */
KF_API kf_status kf_function_specialize(kf_function *f, const kf_arg *args, unsigned nargs, kf_kernel **out);
/* The kernels f has so far (one per specialisation compiled or loaded, oldest first), as Numba's
 * dispatcher.overloads: up to max of them into out (borrowed, valid until the program is destroyed); returns how
 * many there are (out may be NULL to count). */
KF_API unsigned kf_function_kernels(kf_function *f, kf_kernel **out, unsigned max);
/* Specialises and launches (kf_launch's semantics) in one call: the prepared path for hot loops. The
 * argument checks run on the first launch of each argument-type fingerprint only. */
KF_API kf_status kf_function_launch(kf_function *f, const unsigned grid[3], const unsigned block[3],
                                    size_t shared_bytes, kf_stream *stream, const kf_arg *args, unsigned nargs);
/* numba-cuda's cuda.jit(shared_memory_carveout=): the share of each SM's unified L1/shared memory that f's
 * kernels prefer as shared memory, in percent (-1: the driver's default), set on each kernel as it is loaded on a
 * GPU (CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT); nothing on the simulator. Call it before f's first
 * kernel. KF_ERROR_INVALID_INPUT outside -1..100. */
KF_API kf_status kf_function_set_shared_memory_carveout(kf_function *f, int percent);
/* numba-cuda's dispatcher of one declared signature (cuda.jit("void(uint32[:])"), not a list): its launch passes
 * the arguments to its one kernel without typing them, so an integer array whose dtype is not the parameter's
 * integer type but has its width, with the parameter's rank and a layout it takes, is passed as the parameter's
 * dtype (the same bits: an int32 array for a uint32[:] parameter). Any other argument that does not fit is refused
 * as before ("No matching definition"; numba-cuda would read a float array's bytes as integers too). For a function
 * compiled with exactly one signature; on (nonzero) or off (0). */
KF_API kf_status kf_function_set_specialized(kf_function *f, int on);
/* kf_program_get_function + kf_function_specialize. */
KF_API kf_status kf_program_get_kernel(kf_program *p, const char *name, const kf_arg *args, unsigned nargs,
                                       kf_kernel **out);
/* The kernel's Numba signature, e.g. "void(float32[::1], int64)". Borrowed. */
KF_API const char *kf_kernel_signature(kf_kernel *k);
/* Where its code came from: 0 compiled, 1 memory cache, 2 disk cache (simulator: always 0 or 1). */
KF_API int kf_kernel_cache_source(kf_kernel *k);
/* 1 when k synchronises its grid (cuda.cg.this_grid(), numba-cuda's `cooperative`): kf_launch then launches it
 * cooperatively (cuLaunchCooperativeKernel) and refuses, as a launch configuration error, a grid with more
 * blocks than its device holds at once; 0 otherwise. */
KF_API int kf_kernel_is_cooperative(kf_kernel *k);
/* The most blocks of threads_per_block threads with shared_bytes of dynamic shared memory that its device
 * holds at once (numba-cuda's max_cooperative_grid_blocks: the occupancy of k times the multiprocessors; a
 * simulated device has two sm_90 multiprocessors for it: 32 blocks, 2048 threads in whole warps and 228 KiB of
 * shared memory each, 1 KiB more per block). KF_ERROR_INVALID_INPUT when threads_per_block is 0 or above
 * the device's limit. */
KF_API kf_status kf_kernel_max_cooperative_blocks(kf_kernel *k, unsigned threads_per_block, size_t shared_bytes,
                                                  unsigned *out);

/* What the compiled code of a kernel uses, as numba-cuda's kernel attributes give it (regs_per_thread,
 * local_mem_per_thread, shared_mem_per_block, const_mem_size, max_threads_per_block). On a GPU each is the
 * driver's cuFuncGetAttribute of the kernel's function (CU_FUNC_ATTRIBUTE_NUM_REGS, LOCAL_SIZE_BYTES,
 * SHARED_SIZE_BYTES, CONST_SIZE_BYTES, MAX_THREADS_PER_BLOCK). The simulator runs kir, which has no registers
 * and no local-memory frame: those two are -1 (not known); shared_bytes and const_bytes count the shared and
 * constant arrays the kernel and the functions it calls declare (each once; the GPU's figure can add alignment
 * and the module's error-string table), and max_threads_per_block is the simulated device's limit. */
typedef struct kf_kernel_attributes {
  int64_t regs_per_thread;       /* registers per thread; -1 not known */
  int64_t local_bytes;           /* local memory per thread, bytes; -1 not known */
  int64_t shared_bytes;          /* static shared memory per block, bytes */
  int64_t const_bytes;           /* constant memory, bytes */
  int64_t max_threads_per_block; /* the most threads a block of this kernel may have */
} kf_kernel_attributes;
KF_API kf_status kf_kernel_get_attributes(kf_kernel *k, kf_kernel_attributes *out);

/* A parameter of a specialised kernel, as the user passes it (parameters the runtime adds are not listed). */
typedef struct kf_param_info {
  kf_arg_kind kind;     /* scalar or array (a tuple argument's elements are parameters of their own) */
  kf_dtype dtype;       /* the scalar's or the elements' */
  unsigned ndim;        /* arrays */
  char layout;          /* arrays: 'C', 'F' or 'A' (any strides) */
  int readonly;         /* arrays */
} kf_param_info;
KF_API unsigned kf_kernel_param_count(kf_kernel *k);
/* KF_ERROR_INVALID_INPUT when i is out of range or the parameter has a type the API cannot describe. */
KF_API kf_status kf_kernel_param(kf_kernel *k, unsigned i, kf_param_info *out);

/* Launches k over grid x block threads with shared_bytes of dynamic shared memory on stream (NULL: the
 * default stream). Checked first, each a clear error: every dimension >= 1 and within the device's
 * limits, threads per block, shared memory, and the arguments against the kernel's signature (count,
 * array dtype/rank/layout; scalars are converted to the parameter types) — the type checks only on the
 * first launch of a specialisation and whenever the arguments' fingerprint differs from the one it was
 * specialised for.
 * With any host array among args: copies in, launches, synchronises, checks the bounds-check record and
 * copies back (also after an IndexError). With device arrays only: asynchronous on the GPU; a failed bounds
 * check is then reported by the next synchronising call. The simulator always runs to completion.
 * An IndexError is KF_ERROR_OUT_OF_BOUNDS with the message
 *   IndexError: index 10 is out of bounds for axis 0 with size 10 (kernel foo_grid, s000_kernels.py:23:5)
 * after which the runtime stays usable. */
KF_API kf_status kf_launch(kf_kernel *k, const unsigned grid[3], const unsigned block[3], size_t shared_bytes,
                           kf_stream *stream, const kf_arg *args, unsigned nargs);

/* ---- numba.cuda.random: xoroshiro128+ generator states ----
 * Kernels call numba.cuda.random's device functions (xoroshiro128p_uniform_float32(states, i), ...) on a state
 * array of n generators: numba-cuda's, a 1-D array of n xoroshiro128p_dtype records, each two uint64 (s0 at byte 0,
 * s1 at byte 8; 16 bytes, aligned) — the record dtype KF_XOROSHIRO128P_RECORD spells (kf_dtype_record), the type
 * kernel signatures name as "KF_XOROSHIRO128P_RECORD[::1]". In memory that is 2 * n uint64: s0 and s1 of generator
 * 0, then of generator 1, ... These functions make the states as numba-cuda's create_xoroshiro128p_states does
 * (SplitMix64 of the seed, then 2**64-step jumps between generators, subsequence_start jumps first), so the
 * kernels draw numba-cuda's numbers, and states numba-cuda made can be used by kfront's kernels and back. */
#define KF_XOROSHIRO128P_RECORD "Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)"
/* Into host memory: states holds 2 * n uint64 (n records). */
KF_API void kf_xoroshiro128p_init_states(uint64_t *states, size_t n, uint64_t seed, uint64_t subsequence_start);
/* Into device memory of rt (n * 16 bytes at dptr): computed on the host, copied on stream s (NULL: the default
 * stream); complete on return. */
KF_API kf_status kf_xoroshiro128p_init_device(kf_runtime *rt, void *dptr, size_t n, uint64_t seed,
                                              uint64_t subsequence_start, kf_stream *s);

/* ---- @cuda.reduce, @vectorize, @guvectorize: calling them from the host ----
 * What numba.cuda's Reduce, ufunc and gufunc objects do when called, over the kernels kfront generates for
 * them (each a kf_function of the program, found by the Python name), through kf_launch's one launch path.
 * Arrays may be host or device memory (host arrays are copied in, outputs copied back, before the call
 * returns), of any strides (broadcast dimensions are stride 0: nothing is copied to broadcast). Arguments are
 * borrowed for the call; nothing of them is kept. A @vectorize or @guvectorize call whose arguments are all
 * device arrays stays asynchronous on its stream, like kf_launch (its device memory is used after it returns);
 * any other call (host arrays or scalars among the arguments, and every kf_reduce) synchronises its stream
 * before it returns, when it frees its temporaries. A
 * function the program does not have is KF_ERROR_NOT_FOUND; a function of another kind, a wrong number of
 * arguments, dtypes no signature takes, shapes that do not broadcast or do not fit the layout, and outputs of
 * the wrong shape or dtype are KF_ERROR_INVALID_INPUT; launch and device errors are as for kf_launch. Each
 * comes with a message in the runtime's context; outputs are then unspecified. */

typedef struct kf_function_info {
  kf_function_kind kind;
  unsigned nin, nout;       /* @vectorize: its inputs and 1; @guvectorize: its layout's inputs and outputs; else 0 */
  unsigned nsignatures;     /* @vectorize, @guvectorize: the decorator's signatures; else 0 */
  const char *layout;       /* @guvectorize: the layout, e.g. "(m,n),(n)->(m)" (borrowed: valid as long as the
                             * program); else NULL */
} kf_function_info;

/* What f is, from its decorator (a program over a module: from its kernels). For @vectorize and @guvectorize
 * this compiles the decorator's signatures (to kir; once per function). out->layout is borrowed from the
 * program. KF_ERROR_NOT_FOUND when the program has no kernel of that name (undecorated host code included). */
KF_API kf_status kf_function_get_info(kf_function *f, kf_function_info *out);

/* Reduces arr (1-D, host or device) with the @cuda.reduce function f, as Numba's Reduce.__call__:
 *  - size < 0 reduces the whole array, else its first min(size, length) elements (Numba's size=None / size);
 *  - init (a scalar kf_arg, converted to arr's dtype as by a C cast) is combined with the elements; NULL
 *    means Numba's default init=0, which is combined too (a max-reduction of negative numbers with the default
 *    init gives 0, a product gives 0: pass init=1, as with Numba);
 *  - an empty range gives init;
 *  - the result, of arr's dtype, goes to *result (a scalar kf_arg) when result is not NULL, and to the first
 *    element of res (an array of arr's dtype with at least one element; device memory: written on the device
 *    without passing through the host) when res is not NULL; at least one of them must be given.
 * The reduction is a tree (compile.h): f must be associative and commutative, as Numba requires; floating-point
 * results may differ from a sequential sum by the reassociation. Runs on stream (NULL: the default stream)
 * and returns when it is done. */
KF_API kf_status kf_reduce(kf_function *f, const kf_array *arr, int64_t size, const kf_arg *init, kf_stream *stream,
                           kf_arg *result, const kf_array *res);

/* The output a @vectorize function f gives for these inputs (no launch): out->dtype, ndim, shape and
 * C-contiguous strides, data NULL and memory KF_MEMORY_HOST for the caller to fill in (kf_array_init's
 * strides for a new allocation). The inputs' types pick the signature as Numba's CUDA ufuncs do: arrays must
 * have exactly a signature's dtypes (NumPy's casting='no'); scalars (kf_arg scalars, each treated as a
 * 1-element array, so that scalars alone give shape (1,)) first match by their own dtype, else take the
 * signature the arrays alone select (an error when that is ambiguous); the first signature wins. Shapes
 * broadcast as NumPy's do. */
KF_API kf_status kf_ufunc_result(kf_function *f, const kf_arg *inputs, unsigned ninputs, kf_array *out);
/* Calls the @vectorize function f elementwise on the broadcast inputs (arrays of any rank and strides, or
 * scalars, converted to the signature's types) into out, which must have exactly the shape and dtype
 * kf_ufunc_result gives (host or device memory, any strides, not read-only; it may be one of the inputs). */
KF_API kf_status kf_ufunc_call(kf_function *f, const kf_arg *inputs, unsigned ninputs, const kf_array *out,
                               kf_stream *stream);

/* The outputs (nouts of them: the layout's) a @guvectorize function f gives for these inputs (no launch),
 * filled as kf_ufunc_result fills out: the broadcast loop dimensions of the inputs, then each output's core
 * dimensions from the layout (each must be bound by an input's). The signature: the first whose input dtypes
 * equal the inputs' (scalars: their dtype), else the first to which every input converts safely (NumPy's
 * can_cast); host arrays and scalars are then converted (a device array of another dtype is an error, as in
 * Numba). */
KF_API kf_status kf_gufunc_result(kf_function *f, const kf_arg *inputs, unsigned ninputs, kf_array *outs,
                                  unsigned nouts);
/* Calls the @guvectorize function f: args are its inputs (arrays, or scalars for a "()" input) then its
 * outputs (arrays, not read-only), as many as its layout names. Each argument's trailing dimensions are its
 * core dimensions (one per name in the layout: equal names must have equal extents, a number is an extent);
 * the leading ones are loop dimensions, which broadcast across the inputs (NumPy's rule) and must equal that
 * broadcast shape in every output. The function runs once per loop index. */
KF_API kf_status kf_gufunc_call(kf_function *f, const kf_arg *args, unsigned nargs, kf_stream *stream);

/* ---- code generation: LLVM IR and PTX ---------------------------------------------------------
 *
 * A kir module (after its pass pipeline) becomes LLVM IR or PTX. Kernels are the functions with the `kernel`
 * attribute; their PTX parameters follow the kernel ABI of kfront/abi.h, which also describes the
 * device-side record of a failed bounds check. Structured (scf) and unstructured (cf) control flow are
 * both accepted. Modules of different contexts may be compiled from different threads at once (each compile has its
 * own LLVMContext); a context's modules, one thread at a time (the contract at the top of this file). */
typedef struct kf_codegen_options {
  size_t struct_size;   /* sizeof(kf_codegen_options): set by kf_codegen_options_init (see KF_API_VERSION) */
  kf_backend backend;
  unsigned arch;        /* SM version: 90 for sm_90 (0: 90) */
  int opt_level;        /* 0..3 */
  int fastmath;         /* flush denormals to zero, approximate division and sqrt, fused multiply-add */
  int lineinfo;         /* ask for line information in the PTX */
  char arch_feature;    /* 0, or 'a' for sm_90a (the SM's architecture-specific features, from sm_90) or 'f' for
                         * sm_100f (its family's, from sm_100): PTX for that target only (libNVVM's
                         * -arch=compute_90a); KF_BACKEND_LLVM refuses both */
  int debuginfo;        /* full DWARF debug information in the PTX (.debug_info, for cuda-gdb; libNVVM's -g), as
                         * numba-cuda's debug=True gives; best read at opt_level 0 */
} kf_codegen_options;

/* Where the CUDA libraries kfront loads at run time are looked for: libNVVM, libdevice, NVRTC and nvJitLink (the
 * library reads no environment: kfront's tools pass $CUDA_HOME (else $CUDA_PATH), $CONDA_PREFIX,
 * $KFRONT_SITE_PACKAGES, $KFRONT_SYSTEM_TOOLKIT, $KFRONT_LIBNVVM, $KFRONT_LIBDEVICE, $KFRONT_LIBNVRTC,
 * $KFRONT_LIBNVJITLINK and $KFRONT_NVVM_VERIFY; the Python module adds its site-packages folders). Each library is searched for, in order:
 * its own setting (a file, or a folder holding it; libdevice next beside the libNVVM found), conda's prefix,
 * NVIDIA's pip wheels under each site-packages folder (CUDA 13's nvidia/cu13/lib and nvidia/cu13/nvvm/libdevice,
 * CUDA 12's nvidia/cuda_nvcc/nvvm/..., nvidia/cuda_nvrtc/lib, nvidia/nvjitlink/lib), cuda_home, the system toolkit
 * (/usr/local/cuda), then the dynamic loader's path: numba-cuda's order. When a library is found nowhere, the
 * error names every place searched. Every field may be NULL or "" (not set). */
typedef struct kf_cuda_paths {
  size_t struct_size;         /* sizeof(kf_cuda_paths): set by kf_cuda_paths_init (see KF_API_VERSION) */
  const char *cuda_home;      /* a CUDA toolkit's root (nvvm/lib64, lib64, nvvm/libdevice under it) */
  const char *conda_prefix;   /* a conda environment's prefix, searched as a toolkit's root */
  const char *site_packages;  /* folders, colon-separated, where NVIDIA's pip wheels may be installed */
  const char *system_toolkit; /* the system toolkit's root (NULL or "": /usr/local/cuda) */
  const char *libnvvm;        /* libnvvm.so, or its folder */
  const char *libdevice;      /* libdevice.10.bc, or its folder */
  const char *libnvrtc;       /* libnvrtc.so, or its folder */
  const char *libnvjitlink;   /* libnvJitLink.so, or its folder */
  int verify;                 /* run libNVVM's verifier before compiling */
} kf_cuda_paths;
/* Fills paths with nothing set (every field NULL, verify off) and its struct_size. */
KF_API void kf_cuda_paths_init(kf_cuda_paths *paths);
/* Sets where the CUDA libraries are looked for. Process-wide; only before the first search (KF_ERROR_UNSUPPORTED
 * after: the first configuration stays). NULL: nothing set. KF_ERROR_INVALID_INPUT (nothing reported: the call has
 * no context) for a struct_size it cannot read (see KF_API_VERSION). */
KF_API kf_status kf_configure_cuda_paths(const kf_cuda_paths *paths);

typedef enum kf_cuda_library { KF_CUDA_LIBNVVM, KF_CUDA_LIBDEVICE, KF_CUDA_NVRTC, KF_CUDA_NVJITLINK } kf_cuda_library;
typedef struct kf_cuda_library_info {
  const char *name;       /* "libNVVM", "libdevice", "NVRTC", "nvJitLink" */
  const char *path;       /* the file loaded, or NULL when not found */
  const char *found_by;   /* how: "KFRONT_LIBNVVM", "conda ($CONDA_PREFIX)", "NVIDIA's pip wheel", "CUDA_HOME",
                           * "the system toolkit", "the dynamic loader's path", "beside libNVVM"; NULL if not found */
  int version_major, version_minor;  /* nvvmVersion, nvrtcVersion, nvJitLinkVersion (0, 0: libdevice, not found) */
  const char *error;      /* when not found: why, with every place searched; else NULL */
} kf_cuda_library_info;
/* Finds (and loads, once per process, as a compile would) the library and says where it is. The strings live as
 * long as the process. KF_OK when found, KF_ERROR_NOT_FOUND (out->error says why) when not. */
KF_API kf_status kf_cuda_library_find(kf_cuda_library which, kf_cuda_library_info *out);

/* CUDA C/C++ compiled by NVRTC (found as kf_cuda_library_find finds it), as numba-cuda's nvrtc.compile and the
 * runtime's link step compile a .cu: relocatable device code for sm_<arch>, PTX text (NUL-terminated) or with
 * ltoir LTO-IR bytes; the toolkit's include folder searched, then include_dirs. NVRTC's errors and warnings are the
 * context's diagnostics, located at the source's own lines (name is its file name); *out is the caller's (kf_free).
 * KF_ERROR_NOT_FOUND without NVRTC, KF_ERROR_BACKEND when the source does not compile. */
typedef struct kf_nvrtc_options {
  size_t struct_size;              /* sizeof(kf_nvrtc_options): set by kf_nvrtc_options_init (see KF_API_VERSION) */
  unsigned arch;                   /* 90 for sm_90; 0: 90 */
  int ltoir, lineinfo, debug;      /* LTO-IR instead of PTX; -lineinfo; -G */
  const char *const *include_dirs;
  unsigned ninclude_dirs;
} kf_nvrtc_options;
/* Fills opts with the defaults (sm_90 PTX, no -lineinfo, no -G, no include folders) and its struct_size. */
KF_API void kf_nvrtc_options_init(kf_nvrtc_options *opts);
KF_API kf_status kf_nvrtc_compile(kf_context *ctx, const char *name, const char *src, size_t len,
                                  const kf_nvrtc_options *opts, char **out, size_t *out_len);
/* The architectures NVRTC compiles for (90 for sm_90), ascending: at most cap in archs, *n how many.
 * KF_ERROR_NOT_FOUND (ctx's diagnostics say why) without NVRTC or where it cannot say. */
KF_API kf_status kf_nvrtc_supported_archs(kf_context *ctx, int *archs, unsigned cap, unsigned *n);

/* Fills *opts with the defaults: libNVVM, sm_90, -O3, no fastmath, no lineinfo; and its struct_size. */
KF_API void kf_codegen_options_init(kf_codegen_options *opts);

/* The module as LLVM IR text: for KF_BACKEND_NVVM in the NVVM IR dialect libNVVM reads (what it would be
 * given), for KF_BACKEND_LLVM the LLVM 14 IR given to the NVPTX target (before libdevice is linked).
 * opts may be NULL (defaults). *out is NUL-terminated and owned by the caller (kf_free); len may be NULL.
 * KF_ERROR_UNSUPPORTED / KF_ERROR_INVALID_INPUT when the module cannot be lowered (see diagnostics). */
KF_API kf_status kf_module_emit_llvm(kf_module *m, const kf_codegen_options *opts, char **out, size_t *len);
/* The module compiled to PTX. *out is NUL-terminated and owned by the caller (kf_free); len may be NULL.
 * KF_ERROR_NOT_FOUND when libNVVM or libdevice is missing (the diagnostic names every path searched),
 * KF_ERROR_BACKEND when libNVVM or LLVM fails (libNVVM's log is in the diagnostic). */
KF_API kf_status kf_module_emit_ptx(kf_module *m, const kf_codegen_options *opts, char **out, size_t *len);
/* The module compiled to libNVVM's LTO-IR (-gen-lto: for nvJitLink; binary, *len bytes, owned by the caller),
 * as kf_module_emit_ptx otherwise; KF_ERROR_UNSUPPORTED for KF_BACKEND_LLVM (LLVM's NVPTX target has none). */
KF_API kf_status kf_module_emit_ltoir(kf_module *m, const kf_codegen_options *opts, char **out, size_t *len);
/* The PTX nvJitLink's link-time optimisation gives for the module linked with foreign code (numba-cuda's
 * inspect_lto_ptx, what a program with kf_compile_options.lto links): the module as libNVVM's LTO-IR
 * (kf_module_emit_ltoir), each KF_LINK_CU compiled by NVRTC to LTO-IR, optimised together with the KF_LINK_LTOIR,
 * fatbin, object and archive inputs by nvJitLink (-lto -ptx), so a small foreign function is inlined into the
 * kernels calling it. PTX and cubin inputs cannot be optimised: each is left out, with a warning (numba-cuda's
 * ignore_nonlto). links and include_dirs as kf_compile_options' (borrowed for the call). *out is NUL-terminated
 * and owned by the caller (kf_free); len may be NULL. KF_ERROR_UNSUPPORTED for KF_BACKEND_LLVM, KF_ERROR_NOT_FOUND
 * without libNVVM, NVRTC (for a .cu) or nvJitLink, KF_ERROR_BACKEND when a .cu does not compile or the link fails
 * (nvJitLink's log, and each foreign function no input defines, in the diagnostics). */
KF_API kf_status kf_module_emit_lto_ptx(kf_module *m, const kf_codegen_options *opts, const kf_link_input *links,
                                        unsigned nlinks, const char *const *include_dirs, unsigned ninclude_dirs,
                                        char **out, size_t *len);

#ifdef __cplusplus
}
#endif

#endif
