/* passes.h — the pass manager and the passes over kir (internal to the library).
 *
 * Every pass is one file in passes/ exporting one `bool pass_<name>(Module *, const PassContext *)`,
 * registered in passes.def. A pass returns false only after reporting an error to pc->diag. Pipelines are
 * parsed and run under a guard (utils/mem.h; kf_module_run_pipeline, rt_compile_source): allocations here
 * do not fail, an allocation failure unwinds to the guard. */
#ifndef KF_PASSES_PASSES_H
#define KF_PASSES_PASSES_H

#include "ir/ir.h"
#include "ir/target.h"

enum { PASS_MAX_OPTIONS = 16 };

typedef struct PassContext {
  Diag *diag;
  const int64_t *options;   /* values of the pass's options, in passes.def order */
  const TargetFacts *target; /* the GPU the module is compiled for (never NULL: sm_90's when none is given) */
  void *user;               /* an embedder pass's PassInfo.user (NULL for kfront's own) */
} PassContext;

typedef bool (*PassFn)(Module *m, const PassContext *pc);

typedef struct PassOptionInfo {
  const char *name;
  int64_t dflt;
  const char *help;
} PassOptionInfo;

typedef struct PassInfo {
  const char *name;
  PassFn run;
  const char *summary;
  unsigned noptions;
  PassOptionInfo options[PASS_MAX_OPTIONS];
  void *user;               /* an embedder pass: given to run as PassContext.user */
  bool external;            /* an embedder pass (kf_pass_register): always verified after, its own kind of error */
} PassInfo;

/* Passes registered at run time by an embedder (kf_pass_register, api/api_pass.c), which pipelines look up by name
 * after passes.def's: each PassInfo kept at its address while the set lives (a pipeline parsed from the set points
 * to them). Owned by the embedder's context; the set only lists them. */
typedef struct PassSet {
  PassInfo **items;
  unsigned n, cap;
} PassSet;
/* The pass of set (may be NULL) named name (len bytes), or NULL. */
const PassInfo *pass_set_lookup(const PassSet *set, const char *name, size_t len);

typedef enum {
#define PASS(Id, name, fn, summary) PASS_##Id,
#define PASS_OPTION(Id, name, dflt, help)
#include "passes.def"
#undef PASS
#undef PASS_OPTION
  PASS__COUNT
} PassKind;

#define PASS(Id, name, fn, summary) bool fn(Module *m, const PassContext *pc);
#define PASS_OPTION(Id, name, dflt, help)
#include "passes.def"
#undef PASS
#undef PASS_OPTION

const PassInfo *pass_info(PassKind k);
/* The default pipeline after lowering (kfront compile; the runtime appends grid-stride), and the same without
 * thread-map (kf_runtime_options.thread_map = 0: KFRONT_NO_THREAD_MAP). thread-map comes after tile-shared (whose
 * affine analysis needs threadIdx as it is; the tiled variants it makes use shared memory, which thread-map
 * leaves alone) and before cse (which merges the block dims it reads again). */
#define PASS_DEFAULT_PIPELINE_HEAD "canonicalize,cse,bce,pad-shared,tile-shared"
#define PASS_DEFAULT_PIPELINE_TAIL "cse,hoist-checks,unroll,privatize-atomics,dce"
#define PASS_DEFAULT_PIPELINE PASS_DEFAULT_PIPELINE_HEAD ",thread-map," PASS_DEFAULT_PIPELINE_TAIL
/* kf_runtime_options.thread_map = 2: block-pair's launch variants too (passes/block_pair.c; off by default) */
#define PASS_BLOCK_PAIR_PIPELINE \
  PASS_DEFAULT_PIPELINE_HEAD ",block-pair{variant=1},thread-map," PASS_DEFAULT_PIPELINE_TAIL
#define PASS_DEFAULT_PIPELINE_NO_THREAD_MAP \
  "canonicalize,cse,bce,pad-shared,tile-shared{column=1}," PASS_DEFAULT_PIPELINE_TAIL
const PassInfo *pass_lookup(const char *name, size_t len);
/* Whether a value, block argument or function type of m is complex (passes/lower_complex.c): then the
 * simulator and the backend run lower-complex on a copy first. */
bool pass_module_has_complex(Module *m);

/* Whether the thread-map pass would remap kernel func's threads (eligible and profitable: passes/thread_map.c);
 * tile-shared asks it before staging neighbour reads only to coalesce them. */
bool thread_map_would_remap(Module *m, Op *func);
/* thread-map's eligibility (less the threadIdx.y condition) and its weights of accesses contiguous along
 * threadIdx.x and .y; *why the reason when not eligible (passes/block_pair.c uses it). */
bool thread_map_weights(Module *m, Op *func, uint64_t *along_x, uint64_t *along_y, const char **why);

/* Whether m has an addition or subtraction the contract pass fuses (passes/contract.c). */
bool pass_module_has_contractible(Module *m);

/* ---- passes/pass_manager.c ------------------------------------------------------------------- */

/* ---- passes/lower_scf.c: for the consumers of cf (the backend, the simulator) ---------------------- */
/* The one lowering both run before executing a module, in this order: lower-complex (passes/lower_complex.c),
 * lower-scf, contract (passes/contract.c). m itself when none of them has anything to do, else a copy (the
 * caller frees it); NULL when lower-complex failed (reported to diag). Runs under the caller's guard
 * (utils/mem.h). */
Module *lower_for_execution(Module *m, Diag *diag);
typedef struct PipelineEntry {
  const PassInfo *pass;
  int64_t options[PASS_MAX_OPTIONS];
  unsigned given;           /* bit i: option i was written explicitly */
} PipelineEntry;

typedef struct Pipeline {
  unsigned n, cap;
  PipelineEntry *entries;
  const PassSet *extra;     /* set before parsing: embedder passes the text may name too (NULL: none) */
} Pipeline;

/* Parses pipeline text; errors go to diag (located in "<pipeline>" at the column). A name is looked up in
 * passes.def, then in p->extra. */
bool pipeline_parse(Pipeline *p, const char *text, Diag *diag);
void pipeline_free(Pipeline *p);
void pipeline_print(const Pipeline *p, StrBuf *out);

typedef struct PassManagerOptions {
  bool verify_each;            /* verify after every pass (default on in tools and tests) */
  bool print_ir_after_all;
  const char *print_ir_after;  /* comma-separated pass names, or NULL */
  bool print_debug_info;       /* loc(...) in IR dumps */
  bool time_passes;
  StrBuf *dump;                /* where IR dumps and the timing report go */
  const TargetFacts *target;   /* the GPU the module is compiled for; NULL: sm_90 (ir/target.h) */
} PassManagerOptions;

/* Runs the pipeline over m. Returns false when a pass fails or verification after a pass fails
 * (the message names the pass). */
bool pipeline_run(const Pipeline *p, Module *m, const PassManagerOptions *opts, Diag *diag);

/* ---- shared helpers for passes (passes/pass_util.c) ----------------------------------------- */
/* True if the op can be erased when its results are unused (pure, no regions with side effects). */
bool op_is_trivially_dead(const Op *op);
/* Integer or float constant value of v if it is defined by arith.constant. */
bool value_const_int(const Value *v, int64_t *out);
bool value_const_float(const Value *v, double *out);
/* Integer arithmetic on raw bit patterns (what canonicalize folds with; no undefined behaviour):
 * the width of an integer or i1 type (1 for i1), the mask of its low `bits` bits, the `bits`-bit pattern
 * u read as a signed number, and the raw bits of an integer or i1 constant masked to its width. */
unsigned ty_int_width(const Type *t);
uint64_t int_mask(unsigned bits);
int64_t int_sext(uint64_t u, unsigned bits);
bool value_const_bits(const Value *v, uint64_t *out);
/* The `shape` attribute (an array of non-negative ints, one per dimension) of the array v when its shape is
 * static (v comes from mem.alloca, or mem.global_ref of a mem.global of module m), else NULL. */
const Attr *value_static_shape(Module *m, const Value *v);

#endif
