/* rt.h — the runtime's objects (what api/ wraps as kf_runtime, kf_program, kf_function, kf_kernel,
 * kf_stream, kf_event), one heading per file:
 *
 *   runtime/runtime.c   RtRuntime: the device (GPU or simulator), limits, caches, options; memory, streams,
 *                       events, pinned host memory; the devices there are, the thread's current device, copies
 *                       between devices
 *   runtime/program.c   RtProgram, RtFunction, RtKernel: Python source compiled on demand, one
 *                       specialisation per argument types, kir -> PTX, the disk-cache manifest
 *   runtime/dispatch.c  argument-type fingerprints and the lock-free specialisation table of a function
 *   runtime/plan.c      launch plans (how a compiled kernel is launched)
 *   runtime/launch.c    the one launch path: checks, host-array staging, packing, the device's launch
 *   runtime/compile_source.c  Python source -> kir -> pass pipeline (shared with kf_compile_source)
 *   runtime/host_funcs.c  the host side of @cuda.reduce, @vectorize and @guvectorize (kf_reduce, kf_ufunc_call,
 *                       kf_gufunc_call): signatures, broadcasting, staging, launches of the generated kernels
 *
 * Threads: a runtime may be used from several threads at once for specialisation lookups, launches,
 * memory, streams and events; compiles (misses) take the runtime's lock, so a specialisation is compiled
 * once however many threads ask for it first. Diagnostics of the context are reported under that lock
 * too. Everything else (creating/destroying programs, the runtime itself) is one thread at a time.
 *
 * Memory: the runtime's objects check every allocation and return KF_ERROR_OUT_OF_MEMORY after
 * diag_out_of_memory (utils/mem.h's second regime), leaving each object as it was before the call (a
 * specialisation that ran out of memory is compiled again by the next call); only the compilers they call
 * (rt_compile_source, the frontend's fe_function_kind, the backend, the simulator's compiler) run under
 * guards. */
#ifndef KF_RUNTIME_RT_H
#define KF_RUNTIME_RT_H

#include <pthread.h>
#include <stdatomic.h>

#include "runtime/cache.h"
#include "runtime/device.h"
#include "runtime/runtime.h"
#include "runtime/sim/sim.h"
#include "utils/arena.h"
#include "utils/mem.h"
#include "utils/ptrmap.h"
#include "utils/strmap.h"

/* ---- runtime/plan.c -------------------------------------------------------------------------- */

enum { RT_PLAN_MAX_HIDDEN = 8, RT_PLAN_MAX_DISJOINT = 32 };

/* Hidden parameters: values the runtime passes after the user's arguments. */
typedef enum RtHidden { RT_HIDDEN_GRID_X, RT_HIDDEN_GRID_Y, RT_HIDDEN_GRID_Z, RT_HIDDEN__COUNT } RtHidden;
/* How the physical grid follows from the user's. */
typedef enum RtGridRule {
  RT_GRID_AS_GIVEN,   /* the user's grid */
  RT_GRID_RESIDENT,   /* 1-D: min(user blocks, blocks the device holds at once) */
} RtGridRule;

typedef struct RtLaunchPlan {
  unsigned nhidden;
  RtHidden hidden[RT_PLAN_MAX_HIDDEN];
  RtGridRule grid;
  unsigned required_block[3];  /* 0,0,0: any block shape; else the only one this variant runs with */
  unsigned block_divisor[3];   /* physical block = user block / divisor (1,1,1: the user's) */
  unsigned grid_divisor[3];    /* physical grid = ceil(user grid / divisor) (rule "given"; 1,1,1: the user's) */
  size_t dynamic_shared;       /* added to the user's dynamic shared bytes */
  unsigned ndisjoint;          /* pairs of the user's parameters whose arrays must not overlap */
  unsigned disjoint[RT_PLAN_MAX_DISJOINT][2];
  bool cooperative;            /* a grid barrier: launched with every block resident, the grid checked to fit */
} RtLaunchPlan;

typedef struct RtLaunchShape {
  unsigned grid[3], block[3];
  size_t shared;               /* dynamic shared bytes */
} RtLaunchShape;

/* The plan of no transform: the user's grid and block, no hidden parameters. */
void rt_plan_init(RtLaunchPlan *p);
/* The plan of a compiled kernel, from its kir attributes (plan.c says which). False (reported) when they
 * are malformed. */
bool rt_plan_from_kir(Op *func, RtLaunchPlan *p, Diag *diag);
/* One-line text form (the cache manifest) and back; parse is strict (false on anything unexpected). */
void rt_plan_print(const RtLaunchPlan *p, StrBuf *out);
bool rt_plan_parse(const char *s, size_t len, RtLaunchPlan *p);
/* Whether the variant runs with this block shape. */
bool rt_plan_block_fits(const RtLaunchPlan *p, const unsigned block[3]);
/* Whether the arrays of the plan's disjoint pairs of arguments occupy no common byte (an argument that is
 * not an array overlaps nothing). */
bool rt_plan_args_disjoint(const RtLaunchPlan *p, const kf_arg *args, unsigned nargs);
/* The physical launch and the hidden values for the user's. resident_memo caches the device's answer for
 * the resident-grid rule (one per kernel, zero-initialised). */
void rt_plan_apply(const RtLaunchPlan *p, const RtLaunchShape *user, RtDevice *dev, RtDevFunction *fn,
                   _Atomic uint64_t *resident_memo, RtLaunchShape *phys, int64_t hidden[RT_PLAN_MAX_HIDDEN]);
/* A cooperative plan's physical grid against the blocks the device holds at once: false (reported as a launch
 * configuration error naming the kernel) when it does not fit; true for any other plan. */
bool rt_plan_fit_coop(const RtLaunchPlan *p, const RtLaunchShape *phys, RtDevice *dev, RtDevFunction *fn,
                      _Atomic uint64_t *resident_memo, const char *kernel, Diag *diag);
/* Blocks of fn (threads per block, dynamic shared bytes) the device holds at once (occupancy x
 * multiprocessors; the simulator's fixed count), memoised in resident_memo. */
unsigned rt_plan_resident_blocks(RtDevice *dev, RtDevFunction *fn, unsigned threads, size_t shared,
                                 _Atomic uint64_t *resident_memo);

/* ---- runtime/dispatch.c ---------------------------------------------------------------------- */

/* The fingerprint of argument types: one 16-bit word per argument (array bit, dtype, rank, layout C/F/A,
 * readonly) and a hash of them. Values never matter. */
enum { RT_FP_MAX_ARGS = 256 };
typedef struct RtFingerprint {
  unsigned n;
  uint32_t hash;
  bool typed;                   /* some scalar has a type spelling (kf_arg.type): compared in full */
  const kf_arg *args;           /* the arguments it was computed from (borrowed; their type spellings) */
  unsigned nargs;
  uint16_t words[RT_FP_MAX_ARGS];
} RtFingerprint;

/* Computes the fingerprint of args, validating what it reads (dtype, rank, kind, negative extents, a NULL
 * array with elements): false, reported to diag when not NULL, for an invalid argument. */
bool rt_fingerprint(const kf_arg *args, unsigned nargs, RtFingerprint *fp, Diag *diag);

typedef struct RtKernel RtKernel;
typedef struct RtDispatchEntry {
  uint32_t hash;
  unsigned n;
  RtKernel *kernel;
  char **types;                 /* NULL, or per word the type spelling of a typed scalar (else NULL) */
  atomic_bool checked;          /* a launch with these argument types has passed the full checks */
  uint16_t words[];
} RtDispatchEntry;

typedef struct RtDispatchTable RtDispatchTable;
/* Fingerprint -> kernel. Reads are lock-free (a table and its entries are immutable once published; a
 * grown table replaces the old one, which is kept until the dispatch is freed). Inserts are serialised
 * by the caller (the runtime's lock). */
typedef struct RtDispatch {
  _Atomic(RtDispatchTable *) table;
  RtDispatchTable *retired;     /* older tables, freed with the dispatch */
  size_t count;
} RtDispatch;

RtDispatchEntry *rt_dispatch_find(const RtDispatch *d, const RtFingerprint *fp);
/* Inserts fp -> kernel (not already present); NULL when out of memory. */
RtDispatchEntry *rt_dispatch_insert(RtDispatch *d, const RtFingerprint *fp, RtKernel *kernel);
void rt_dispatch_free(RtDispatch *d);

/* ---- runtime/deallocations.c: pending deallocations ---------------------------------------------- */

typedef struct RtPendingFree {
  void *ptr;
  size_t bytes;
  bool host;                    /* pinned host memory (else device memory) */
} RtPendingFree;

typedef struct RtDeallocs {
  pthread_mutex_t lock;
  RtPendingFree *items;
  size_t n, cap, bytes;
  size_t max_count, max_bytes;  /* flushed when more than these are pending */
  unsigned deferring;           /* nesting depth of kf_deallocations_defer(1) */
} RtDeallocs;

/* ---- runtime/runtime.c ----------------------------------------------------------------------- */

typedef struct RtRuntime {
  MemAllocator alloc;           /* the context's allocator (api/ makes it current for each call) */
  IrContext *ir;                /* the embedder's context (borrowed) */
  Diag *diag;
  RtDevice *dev;
  RtLimits limits;
  RtCache cache;
  kf_backend backend;           /* resolved: NVVM or LLVM */
  bool backend_chosen;
  char pipeline[256];           /* the default pipeline (without thread-map, + grid-stride, as the options say) */
  char kernel_pipeline[256];    /* its first passes, those making the kernels (the rest add launch variants) */
  const struct PassSet *passes; /* the context's embedder passes (kf_pass_register; borrowed), for its pipelines */
  pthread_mutex_t lock;         /* compiles, the context, the allocation set */
  PtrMap allocations;           /* device address -> its bytes while allocated here (| RT_PENDING_FREE while it
                                 * waits in deallocs) */
  size_t allocated_bytes, allocated_count;  /* of allocations (under lock) */
  RtDeallocs deallocs;
  StrBuf describe;
  atomic_uint compiles, launches;
  pthread_mutex_t scratch_lock; /* held by the one call using the scratch buffer */
  void *scratch;                /* device memory kept for synchronous helpers (kf_reduce's partials) */
  size_t scratch_bytes;
} RtRuntime;

typedef struct RtStream {
  RtRuntime *rt;
  void *handle;                 /* the device's stream (GPU: CUstream) */
  bool external;                /* made by someone else: not destroyed with this */
} RtStream;

typedef struct RtEvent {
  RtRuntime *rt;
  void *handle;
} RtEvent;

/* The devices the options give (kf_device_count, kf_device_get_info). */
kf_status rt_device_count(const kf_runtime_options *o, Diag *diag, int *count);
kf_status rt_device_info(const kf_runtime_options *o, int ordinal, Diag *diag, kf_device_info *out);
/* The device attribute `name` (runtime/device_attributes.def: "CLOCK_RATE", ...) of device `ordinal`:
 * KF_ERROR_NOT_FOUND (reported) for a name not in the table or one the simulator does not model. */
kf_status rt_device_attribute(const kf_runtime_options *o, int ordinal, const char *name, Diag *diag, int *out);
/* The calling thread's current device (thread-local; 0 until set). */
int rt_current_device(void);
void rt_set_current_device(int ordinal);
/* rt's device becomes the thread's current one (and, on a GPU, its context the thread's current context). */
kf_status rt_make_current(RtRuntime *rt);
bool rt_can_access_peer(RtRuntime *rt, RtRuntime *peer);
/* kf_memcpy_peer: diagnostics go to dst_rt's context. */
kf_status rt_copy_peer(RtRuntime *dst_rt, void *dst, RtRuntime *src_rt, const void *src, size_t bytes, RtStream *s);
/* Whether stream s (NULL: the default stream) may order work of rt's device; reports, for `what`, when not. */
bool rt_stream_fits(RtRuntime *rt, const RtStream *s, const char *what);

/* Made with the calling thread's allocator, which it keeps (alloc) for api/ to make current in each call. */
kf_status rt_runtime_create(IrContext *ir, Diag *diag, const kf_runtime_options *opts, RtRuntime **out);
/* Reports "out of memory" to the runtime's diagnostics; returns KF_ERROR_OUT_OF_MEMORY. */
kf_status rt_out_of_memory(RtRuntime *rt);
void rt_runtime_destroy(RtRuntime *rt);
void rt_runtime_stats(RtRuntime *rt, kf_runtime_stats *out);
kf_status rt_device_alloc(RtRuntime *rt, size_t bytes, void **out);
/* kfront.h's kf_managed_alloc and kf_pointer_range. */
kf_status rt_managed_alloc(RtRuntime *rt, size_t bytes, unsigned flags, void **out);
kf_status rt_pointer_range(RtRuntime *rt, const void *ptr, void **base, size_t *bytes);
kf_status rt_device_free(RtRuntime *rt, void *p);
/* Frees an allocation of rt (pending or not) at once; false when p is none. */
kf_status rt_device_release(RtRuntime *rt, void *p);
/* Marks allocation p as waiting in the deallocation queue (*bytes its size); false when p is no allocation of rt
 * or already waits. */
bool rt_device_mark_pending(RtRuntime *rt, void *p, size_t *bytes);
/* Device memory allocated and not yet freed (blocks waiting in the deallocation queue included). */
void rt_device_allocated(RtRuntime *rt, size_t *bytes, size_t *count);
/* kfront.h's pending deallocations (deallocations.c): see kf_device_free_deferred and what follows it. */
void rt_deallocs_init(RtDeallocs *q, size_t total_memory);
void rt_deallocs_free(RtDeallocs *q);
kf_status rt_device_free_deferred(RtRuntime *rt, void *p);
kf_status rt_host_free_deferred(RtRuntime *rt, void *p, size_t bytes);
kf_status rt_deallocs_flush(RtRuntime *rt);
kf_status rt_deallocs_defer(RtRuntime *rt, bool defer);
void rt_deallocs_get(RtRuntime *rt, kf_deallocations *out);
kf_status rt_deallocs_set_limits(RtRuntime *rt, size_t max_count, size_t max_bytes);
/* kf_set_interrupt_flag: the calling thread's flag, which the simulator's launches it starts look at. */
void rt_set_interrupt_flag(volatile int *flag);
/* kf_runtime_set_sim_limits. */
kf_status rt_set_sim_limits(RtRuntime *rt, uint64_t max_steps, double max_seconds, const char *steps_setting,
                            const char *seconds_setting);
/* The runtime's scratch device memory, at least `bytes` of it (grown as needed), for a call that has finished
 * using it before it returns (kf_reduce): NULL when another thread holds it or it cannot grow (the caller then
 * allocates its own), or, with *st KF_ERROR_OUT_OF_MEMORY (reported), when host memory ran out. Give it back
 * with rt_scratch_release. Reusing it spares a cuMemAlloc and a cuMemFree (which synchronises) per call. */
void *rt_scratch_acquire(RtRuntime *rt, size_t bytes, kf_status *st);
void rt_scratch_release(RtRuntime *rt);
kf_status rt_copy(RtRuntime *rt, RtCopyKind kind, void *dst, const void *src, size_t bytes, RtStream *s);
kf_status rt_memset(RtRuntime *rt, void *dst, int value, size_t bytes, RtStream *s);
kf_status rt_host_alloc(RtRuntime *rt, size_t bytes, unsigned flags, void **out);
kf_status rt_host_free(RtRuntime *rt, void *p);
kf_status rt_host_register(RtRuntime *rt, void *p, size_t bytes, unsigned flags);
kf_status rt_host_unregister(RtRuntime *rt, void *p);
kf_status rt_host_device_pointer(RtRuntime *rt, void *host, void **out);
kf_status rt_memory_info(RtRuntime *rt, size_t *free_bytes, size_t *total_bytes);
kf_status rt_stream_create(RtRuntime *rt, RtStream **out);
kf_status rt_stream_wrap(RtRuntime *rt, void *handle, RtStream **out);
void rt_stream_destroy(RtStream *s);
kf_status rt_stream_synchronize(RtStream *s);
/* Waits for stream s (NULL: the default stream), then checks the bounds-check records. */
kf_status rt_stream_sync(RtRuntime *rt, RtStream *s);
kf_status rt_synchronize(RtRuntime *rt);
kf_status rt_event_create(RtRuntime *rt, RtEvent **out);
void rt_event_destroy(RtEvent *e);
kf_status rt_event_record(RtEvent *e, RtStream *s);
kf_status rt_event_synchronize(RtEvent *e);
kf_status rt_event_elapsed_ms(RtEvent *start, RtEvent *end, float *ms);
/* The stream's device handle (NULL: the default stream). */
static inline void *rt_stream_handle(const RtStream *s) { return s ? s->handle : NULL; }
/* Whether array a may be used by rt's device (host memory, device memory of rt's device, or of a device not
 * said); reports, naming the function (`what`) and the argument's index, when not.
 * rt_array_wrong_device is the report (out of line: the check itself is a comparison on the launch path). */
bool rt_array_wrong_device(RtRuntime *rt, const kf_array *a, const char *what, unsigned index);
static inline bool rt_array_fits(RtRuntime *rt, const kf_array *a, const char *what, unsigned index) {
  return a->memory != KF_MEMORY_DEVICE || a->device == 0 || a->device == rt->dev->ordinal + 1 ||
         rt_array_wrong_device(rt, a, what, index);
}

/* ---- runtime/compile_source.c ---------------------------------------------------------------- */

typedef struct RtSourceOptions {
  const kf_compile_options *compile;  /* what to compile, how and with what (kfront.h; the pipeline NULL:
                                       * PASS_DEFAULT_PIPELINE, "": none); links and callbacks are not looked at */
  const TargetFacts *target;          /* the device's limits, for the passes (NULL: sm_90's) */
  const struct PassSet *passes;       /* the embedder's passes the pipeline may name (passes.h; NULL: none) */
} RtSourceOptions;

/* The frontend over the main source (and o->compile's extra sources), the verifier, then the pipeline, under a guard.
 * KF_OK with *out the module (caller owns), KF_ERROR_INVALID_INPUT (reported) on any error, or
 * KF_ERROR_OUT_OF_MEMORY (reported). */
kf_status rt_compile_source(IrContext *ir, Diag *diag, const kf_source *main, const RtSourceOptions *o, Module **out);
/* The same verifier and pipeline over an embedder's module m (a generic program's callback built it), under a
 * guard, its errors of kind INVALID_IR (the embedder's input): KF_OK, KF_ERROR_INVALID_INPUT or
 * KF_ERROR_OUT_OF_MEMORY (reported). m may be half transformed after an error. */
kf_status rt_compile_module(Diag *diag, Module *m, const RtSourceOptions *o);

/* ---- runtime/inputs.c ------------------------------------------------------------------------ */

/* What an embedder gave a program besides its main source, deep-copied (owned by the arena). */
typedef struct RtInputs {
  Arena arena;
  kf_compile_options opts;      /* the program's options, every pointer into the arena: extra sources (1..),
                                 * bindings, function specs, links (foreign code linked into the program's GPU
                                 * modules), include folders (NVRTC's -I for the .cu links), the pipeline (NULL:
                                 * the runtime's default), bounds_check and verify_each (0 or 1), lto, the module
                                 * callback (program.c; NULL: none); no kernels or signatures */
  char digest[65];              /* SHA-256 (hex) of fe_options_key's text of the extra sources, bindings and function
                                 * specs and rt_links_key's: part of the cache keys */
  bool captures_device_memory;  /* a binding is a device array: the code holds this process's addresses, never cached */
  bool links_code;              /* links given, or a binding is a foreign function: GPU modules are linked (never
                                 * cached on disk) */
  bool lto;                     /* links_code and kf_compile_options.lto: linked with link-time optimisation */
} RtInputs;

/* Reads (fe_options_key, rt_links_key: KF_ERROR_INVALID_INPUT, reported, if they cannot) and copies the extra
 * sources and o's bindings, function specs, links, include folders and pipeline into in->opts, with o's
 * bounds_check, verify_each, lto and module callback (o's kernels and signatures are not looked at). On error
 * nothing is left to free. */
kf_status rt_inputs_copy(RtInputs *in, const kf_source *extra, unsigned nextra, const kf_compile_options *o,
                         Diag *diag);
void rt_inputs_free(RtInputs *in);
/* The canonical text of o's link inputs (kind, name, SHA-256 of the contents) and include folders, appended to b
 * (kf_compile_options_key's last lines); false when they cannot be read (a NULL name, or data with a length, a kind
 * out of range, a NULL folder). */
bool rt_links_key(const kf_compile_options *o, StrBuf *b);


/* ---- runtime/program.c ----------------------------------------------------------------------- */

typedef struct RtProgModule RtProgModule;
typedef struct RtFunction RtFunction;

/* A generic program's maker of kernels (kf_program_create_generic): api/ turns the embedder's kf_specialize_fn
 * into make and release, the runtime calls them. */
typedef struct RtGenerator RtGenerator;
struct RtGenerator {
  /* Kernel `kernel` for parameters of these types: KF_OK with *m the module (the one *owner holds, which the
   * program keeps until it calls release); any other status is the embedder's refusal or out of memory. */
  kf_status (*make)(const RtGenerator *g, Diag *diag, const char *kernel, Type *const *types, unsigned n, Module **m,
                    void **owner);
  void (*release)(const RtGenerator *g, void *owner);
  kf_specialize_fn fn;          /* the embedder's callback and its data: make's to call */
  void *user;
};

/* A kernel of a generic program: its name and parameter count (-1: any). */
typedef struct RtGenericKernel {
  char *name;
  int nparams;
} RtGenericKernel;

typedef struct RtProgram {
  RtRuntime *rt;
  char *filename, *source;      /* owned; NULL for a program over a module */
  size_t len;
  unsigned first_line;          /* the file line of source's first line */
  RtInputs inputs;              /* its options: extra sources, bindings, function specs, pipeline, ... */
  RtProgModule *borrowed;       /* rt_program_from_module */
  RtGenerator gen;              /* rt_program_generic (gen.make NULL otherwise) */
  RtGenericKernel *generic;     /* its kernels (owned, names too) */
  unsigned ngeneric;
  char *gen_pipeline;           /* the pipeline of its modules (owned; NULL: the runtime's default) */
  RtProgModule *modules;
  pthread_mutex_t setup_lock;   /* recursive: held while a module's setup callback runs (rt_kernel_setup) */
  StrMap functions;             /* name (owned key) -> RtFunction* */
} RtProgram;

struct RtFunction {
  RtProgram *p;
  char *name;
  int eager;                    /* -1 not yet known, 0 lazy, 1 eager (compiled once with its signatures) */
  RtProgModule *eager_module;
  RtDispatch dispatch;          /* fingerprint -> kernel */
  StrMap by_signature;          /* argument signature (owned key) -> RtKernel*, for misses */
  PtrMap by_func;               /* kir func.func -> RtKernel* (eager and borrowed modules) */
  RtKernel *kernels;            /* every kernel made, owned */
  int kind;                     /* kf_function_kind, -1 until rt_function_kind finds it */
  Op **eager_kernels;           /* rt_function_eager_kernels (owned array; the ops are the module's) */
  unsigned neager_kernels;
  bool has_carveout;            /* kf_function_set_shared_memory_carveout: */
  int carveout;                 /* its kernels' preferred shared-memory carveout, percent (-1: the driver's default) */
  bool specialized;             /* kf_function_set_specialized: an array of the parameter's size, not dtype, fits */
};

struct RtKernel {
  RtFunction *f;
  RtKernel *next;
  char *entry, *signature;
  bool tuple_args;              /* signature spells tuples whose elements are parameters of their own */
  Type **params;                /* every kir parameter (the user's, then the plan's hidden ones) */
  unsigned nparams, nuser;      /* all, the user's */
  unsigned nslots;              /* packed slots of all the parameters (abi.h) */
  RtLaunchPlan plan;
  RtKernel *variant;            /* owned: the tiled variant (passes/tile_shared.c), launched instead of this kernel
                                 * when its plan's block and disjoint arrays allow it (same module, same
                                 * parameters but its hidden ones); NULL: none */
  RtDevModule *module;
  bool owns_module;             /* loaded for this kernel alone (from a cache entry) */
  RtProgModule *home;           /* the program's module it is loaded with (NULL: owns_module); set up by
                                 * rt_kernel_setup */
  RtDevFunction fn;
  atomic_int cache_source;      /* 0 compiled, 1 memory cache, 2 disk cache */
  atomic_uint launches;         /* launches of this kernel (of its variant: the variant's) */
  _Atomic uint64_t resident_memo;
};

/* A program over main (and extra[0..nextra), sources 1..), with opts' bindings, function specs, bounds_check,
 * pipeline and verify_each; everything is copied. */
kf_status rt_program_create(RtRuntime *rt, const kf_source *main, const kf_source *extra, unsigned nextra,
                            const kf_compile_options *opts, RtProgram **out);
/* m is borrowed; source (may be NULL) is the text it was read from, registered for diagnostics by its owner. */
kf_status rt_program_from_module(RtRuntime *rt, Module *m, RtProgram **out);
/* A generic program: its kernels (n of them, copied) are made by g on each new fingerprint (kfront.h's
 * kf_program_create_generic); pipeline (NULL: the runtime's) is copied. The caller has checked the kernels. */
kf_status rt_program_generic(RtRuntime *rt, const RtGenerator *g, const kf_generic_kernel *kernels, unsigned n,
                             const char *pipeline, RtProgram **out);
void rt_program_destroy(RtProgram *p);
/* The disk cache key of p's function `function` compiled for the argument signature argsig on rt's device:
 * kfront's version, the file name and source, the function, the signature, the backend, bounds checks, the
 * source's first line, the digest of the embedder's inputs, the pipeline and the architecture. False (reported)
 * when out of memory. */
bool rt_program_cache_key(RtProgram *p, const char *function, const char *argsig, RtCacheKey *key);
/* The function `name` of the program (made on first request; borrowed, lives as long as the program).
 * Nothing is compiled here. */
kf_status rt_program_function(RtProgram *p, const char *name, RtFunction **out);
/* The kernel for these arguments: a lock-free lookup by fingerprint, compiled on a miss (once, under the
 * runtime's lock). *entry (may be NULL) is the dispatch entry of these argument types. */
kf_status rt_function_specialize(RtFunction *f, const kf_arg *args, unsigned nargs, RtKernel **out,
                                 RtDispatchEntry **entry);
/* The kernels made for f so far (specialisations of its argument types; each once), oldest first: up to max
 * of them into out; returns how many there are. */
unsigned rt_function_kernels(RtFunction *f, RtKernel **out, unsigned max);
/* What f is, from its decorator (found once: a program over source reads the source's top level; one over a
 * module looks at the kernels' `generated` attribute). KF_ERROR_NOT_FOUND (reported) when the program has no
 * kernel of that name. */
kf_status rt_function_kind(RtFunction *f, kf_function_kind *out);
/* The kir kernels compiled from f's decorator signatures, in their order (@vectorize, @guvectorize, eager
 * @cuda.jit: the eager module, compiled once; a program over a module: its kernels of that name). The array
 * is f's. KF_ERROR_INVALID_INPUT (reported) when there are none (a lazy function, a compile error). */
kf_status rt_function_eager_kernels(RtFunction *f, Op *const **out, unsigned *n);

/* The module callback's KF_MODULE_SETUP of k's module, once (kfront.h's kf_module_callback): KF_OK at once when
 * the program has no callback or the module is set up; KF_ERROR_CALLBACK (reported) when the callback failed.
 * Called by rt_launch before each launch. */
kf_status rt_kernel_setup(RtKernel *k);

/* ---- runtime/launch.c ------------------------------------------------------------------------ */

/* Launches k. entry: the dispatch entry of the arguments' types when the caller looked it up (NULL: found
 * here); the full argument checks run unless that entry is k's and has passed them before. */
kf_status rt_launch(RtKernel *k, const RtLaunchShape *user, RtStream *stream, const kf_arg *args, unsigned nargs,
                    RtDispatchEntry *entry);
/* The rule of a grid-stride variant (passes/grid_stride.c, variant=1): launched instead of the plain kernel when
 * the device holds at least as many of its blocks per SM (variant_blocks against plain_blocks, at the user's
 * block), or when it has static shared memory the plain kernel has not (privatised atomics: bought on purpose). */
bool rt_grid_stride_pays(unsigned plain_blocks, unsigned variant_blocks, size_t plain_static_shared,
                         size_t variant_static_shared);
/* Where a kernel finds array a: *data is the device address of its element [0, ...]. A device array, and any
 * array on a device that reads host memory (the simulator), is used in place (*staged false); a host array's
 * span is given a device allocation *tmp (0 for an empty array), filled from the host on stream s when copy is
 * set. rt_stage_copy_back copies it back to the host array, rt_stage_free frees it (0: nothing). */
kf_status rt_stage_array(RtRuntime *rt, const kf_array *a, bool copy, RtStream *s, uint64_t *data, uint64_t *tmp,
                         bool *staged);
/* rt_stage_array after rt_array_fits(rt, a, what, index) (KF_ERROR_INVALID_INPUT when a is another device's). */
kf_status rt_stage_array_checked(RtRuntime *rt, const kf_array *a, const char *what, unsigned index, bool copy,
                                 RtStream *s, uint64_t *data, uint64_t *tmp, bool *staged);
kf_status rt_stage_copy_back(RtRuntime *rt, const kf_array *a, uint64_t tmp, RtStream *s);
void rt_stage_free(RtRuntime *rt, uint64_t tmp);

/* ---- runtime/random_states.c ------------------------------------------------------------------------ */

/* n xoroshiro128+ states (xoroshiro128p_dtype records: s0, s1) as numba-cuda's init_xoroshiro128p_states makes them. */
void rt_xoroshiro128p_init(uint64_t *states, size_t n, uint64_t seed, uint64_t subsequence_start);
/* The same into device memory dptr (n * 16 bytes), copied on s (complete on return). */
kf_status rt_xoroshiro128p_init_device(RtRuntime *rt, void *dptr, size_t n, uint64_t seed, uint64_t subsequence_start,
                                       RtStream *s);

/* ---- runtime/host_funcs.c ---------------------------------------------------------------------- */

/* kfront.h's kf_function_get_info, kf_reduce, kf_ufunc_result, kf_ufunc_call, kf_gufunc_result and
 * kf_gufunc_call, over the runtime's objects (their documentation is there). */
kf_status rt_function_info(RtFunction *f, kf_function_info *out);
kf_status rt_reduce(RtFunction *f, const kf_array *arr, int64_t size, const kf_arg *init, RtStream *stream,
                    kf_arg *result, const kf_array *res);
kf_status rt_ufunc_result(RtFunction *f, const kf_arg *inputs, unsigned ninputs, kf_array *out);
kf_status rt_ufunc_call(RtFunction *f, const kf_arg *inputs, unsigned ninputs, const kf_array *out, RtStream *stream);
kf_status rt_gufunc_result(RtFunction *f, const kf_arg *inputs, unsigned ninputs, kf_array *outs, unsigned nouts);
kf_status rt_gufunc_call(RtFunction *f, const kf_arg *args, unsigned nargs, RtStream *stream);

#endif
