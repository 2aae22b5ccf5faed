/* api_alloc_fail.c — the allocator hook (kf_context_create_with) and out of memory through the public API.
 *
 * A counting allocator that fails at its Nth call (allocations and reallocations are counted; frees never
 * fail) runs three scenarios end to end, each in a context of its own:
 *   compile  an embedder's compile (kf_compile_sources: a fragment from line 10, a device function from another
 *            source, bound globals); Python source -> kir (kf_compile_source) -> LLVM IR and PTX (libNVVM);
 *   kir      kir text parsed, verified, the default pipeline run with IR dumps, printed, then made a program
 *            of a simulator runtime and launched; a generic program whose callback parses the same kir launched;
 *   runtime  a simulator runtime with no disk cache, a program from source, a kernel launched on host arrays,
 *            kf_reduce, kf_ufunc_call, kf_gufunc_call, a stream and events, device arrays and copies, a launch
 *            on them, a .npy file written and read back, a program over an embedder's sources and bindings
 *            (kf_program_create_sources) launched; results checked against C;
 *   workers  the launch again with two simulator worker threads (which allocate through the hook too; their
 *            share of the allocations depends on scheduling, so T varies a little from run to run).
 * Each scenario first runs with no failure to count its allocation calls T; then, for every N in 1..T, again
 * with the Nth call failing. For each N: the call during which the allocation failed returns
 * KF_ERROR_OUT_OF_MEMORY (every other call KF_OK: an OOM is never swallowed, nor turned into another error),
 * the context's first error says out of memory (kind and message) and its rendered diagnostics hold it; then, the
 * allocator working again, the same call on the same objects succeeds (the context, runtime and program
 * stay usable) and the scenario runs to its end with correct results; destroying never allocates; after
 * everything is destroyed the allocator holds no block and no byte. A second pass fails every call from the
 * Nth on (the cleanup after a failure must not need memory), at a stride when T is large (see STICKY_POINTS).
 * Every N of the first pass is tested (no stride). */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kfront/kfront.h"
#include "runtime_test.h"

/* ---- the counting allocator ---------------------------------------------------------------------- */

typedef struct Counter {
  pthread_mutex_t lock;        /* the simulator's workers allocate too */
  unsigned long calls;         /* allocation and reallocation calls so far */
  unsigned long fail_at;       /* the call that fails (0: none) */
  bool sticky;                 /* every call from fail_at on fails */
  unsigned long failures;      /* calls answered NULL */
  long live;                   /* blocks held */
  long long bytes;             /* bytes held */
  bool bad_free;               /* a free or reallocation of an unknown size (old_size 0 for a block) */
} Counter;

/* Called for each refused allocation (a place for a debugger's breakpoint). */
static __attribute__((noinline)) void allocation_refused(unsigned long n) { __asm__ volatile("" ::"r"(n)); }

static void *counting_alloc(void *ud, void *ptr, size_t old_size, size_t new_size) {
  Counter *c = ud;
  pthread_mutex_lock(&c->lock);
  if (new_size == 0) {
    if (ptr) {
      c->live--;
      c->bytes -= (long long)old_size;
      if (!old_size) c->bad_free = true;
    }
    pthread_mutex_unlock(&c->lock);
    free(ptr);
    return NULL;
  }
  unsigned long n = ++c->calls;
  bool fail = c->fail_at && (n == c->fail_at || (c->sticky && n > c->fail_at));
  if (fail) c->failures++;
  if (ptr && !old_size) c->bad_free = true;
  pthread_mutex_unlock(&c->lock);
  if (fail) {
    allocation_refused(n);
    return NULL;
  }
  void *p = realloc(ptr, new_size);
  if (!p) return NULL;
  pthread_mutex_lock(&c->lock);
  if (!ptr) c->live++;
  c->bytes += (long long)new_size - (long long)old_size;
  pthread_mutex_unlock(&c->lock);
  return p;
}

static unsigned long counter_failures(Counter *c) {
  pthread_mutex_lock(&c->lock);
  unsigned long f = c->failures;
  pthread_mutex_unlock(&c->lock);
  return f;
}

static unsigned long counter_calls(Counter *c) {
  pthread_mutex_lock(&c->lock);
  unsigned long n = c->calls;
  pthread_mutex_unlock(&c->lock);
  return n;
}

/* ---- what the scenarios work on ------------------------------------------------------------------- */

static const char python_source[] =
    "from numba import cuda, float32, guvectorize, vectorize\n"
    "\n"
    "TPB = 64\n"
    "\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def clamp(x, lo, hi):\n"
    "    return min(max(x, lo), hi)\n"
    "\n"
    "\n"
    "@cuda.jit\n"
    "def axpy(out, a, x, y):\n"
    "    i = cuda.grid(1)\n"
    "    if i < out.shape[0]:\n"
    "        out[i] = clamp(a * x[i] + y[i], -1000.0, 1000.0)\n"
    "\n"
    "\n"
    "@cuda.jit(\"void(float32[:], float32[:])\")\n"
    "def tile_sum(x, out):\n"
    "    s = cuda.shared.array(TPB, dtype=float32)\n"
    "    t = cuda.threadIdx.x\n"
    "    i = cuda.grid(1)\n"
    "    s[t] = x[i] if i < x.shape[0] else 0.0\n"
    "    cuda.syncthreads()\n"
    "    if t == 0:\n"
    "        acc = 0.0\n"
    "        for k in range(TPB):\n"
    "            acc += s[k]\n"
    "        out[cuda.blockIdx.x] = acc\n"
    "\n"
    "\n"
    "@cuda.reduce\n"
    "def total(a, b):\n"
    "    return a + b\n"
    "\n"
    "\n"
    "@vectorize([\"float32(float32, float32)\", \"float64(float64, float64)\"], target=\"cuda\")\n"
    "def hypot2(a, b):\n"
    "    return a * a + b * b\n"
    "\n"
    "\n"
    "@guvectorize([\"void(float64[:], float64[:])\"], \"(n)->(n)\", target=\"cuda\")\n"
    "def cumsum(x, out):\n"
    "    acc = 0.0\n"
    "    for i in range(x.shape[0]):\n"
    "        acc += x[i]\n"
    "        out[i] = acc\n";

/* An embedder's compile (kf_compile_sources): a function's lines as they stand in their file (indented, from
 * line 10), a device function from another source, bound globals (a module, an int, a constant array). */
static const char fragment_source[] =
    "    @cuda.jit\n"
    "    def scaled(out, x):\n"
    "        i = cuda.grid(1)\n"
    "        if i < out.shape[0]:\n"
    "            out[i] = helper(x[i]) * K + W[i % 4]\n";

static const char helper_source[] =
    "from numba import cuda\n"
    "\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def helper(v):\n"
    "    return v + 1.0\n";

/* What the frontend makes of x[i] = x[i] * k + x[i] * k (before any pass: cse has work). */
static const char kir_source[] =
    "func.func() ({\n"
    "^bb0(%0: array<f32, 1, A>, %1: i64):\n"
    "  %2 = gpu.block_dim() {dim = 0} : () -> (i32)\n"
    "  %3 = arith.extsi(%2) : (i32) -> (i64)\n"
    "  %4 = gpu.thread_id() {dim = 0} : () -> (i32)\n"
    "  %5 = arith.extsi(%4) : (i32) -> (i64)\n"
    "  %6 = gpu.block_id() {dim = 0} : () -> (i32)\n"
    "  %7 = arith.extsi(%6) : (i32) -> (i64)\n"
    "  %8 = arith.muli(%3, %7) : (i64, i64) -> (i64)\n"
    "  %9 = arith.addi(%8, %5) : (i64, i64) -> (i64)\n"
    "  %10 = mem.dim(%0) {axis = 0} : (array<f32, 1, A>) -> (i64)\n"
    "  %11 = arith.cmpi(%9, %10) {pred = \"slt\"} : (i64, i64) -> (i1)\n"
    "  scf.if(%11) ({\n"
    "    %12 = mem.dim(%0) {axis = 0} : (array<f32, 1, A>) -> (i64)\n"
    "    check.bounds(%9, %12) {axis = 0} : (i64, i64) -> ()\n"
    "    %13 = mem.load(%0, %9) : (array<f32, 1, A>, i64) -> (f32)\n"
    "    %14 = arith.extf(%13) : (f32) -> (f64)\n"
    "    %15 = arith.sitofp(%1) : (i64) -> (f64)\n"
    "    %16 = arith.mulf(%14, %15) : (f64, f64) -> (f64)\n"
    "    %17 = mem.dim(%0) {axis = 0} : (array<f32, 1, A>) -> (i64)\n"
    "    check.bounds(%9, %17) {axis = 0} : (i64, i64) -> ()\n"
    "    %18 = mem.load(%0, %9) : (array<f32, 1, A>, i64) -> (f32)\n"
    "    %19 = arith.extf(%18) : (f32) -> (f64)\n"
    "    %20 = arith.sitofp(%1) : (i64) -> (f64)\n"
    "    %21 = arith.mulf(%19, %20) : (f64, f64) -> (f64)\n"
    "    %22 = arith.addf(%16, %21) : (f64, f64) -> (f64)\n"
    "    %23 = mem.dim(%0) {axis = 0} : (array<f32, 1, A>) -> (i64)\n"
    "    check.bounds(%9, %23) {axis = 0} : (i64, i64) -> ()\n"
    "    %24 = arith.truncf(%22) : (f64) -> (f32)\n"
    "    mem.store(%24, %0, %9) : (f32, array<f32, 1, A>, i64) -> ()\n"
    "    scf.yield() : () -> ()\n"
    "  }, {\n"
    "    scf.yield() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  func.return() : () -> ()\n"
    "}) {sym_name = @double_it, function_type = (array<f32, 1, A>, i64) -> (), kernel, py_name = \"double_it\", "
    "arg_names = [\"x\", \"k\"]} : () -> ()\n";

enum { N = 200 };

typedef struct World {
  Counter *counter;
  unsigned workers;       /* the simulator's worker threads */
  kf_context *ctx;
  kf_module *m;
  kf_runtime *rt;
  kf_program *p, *p2;     /* p2: the embedder's program (kf_program_create_sources) */
  kf_function *scaled;
  kf_function *axpy, *total, *hypot2, *cumsum, *double_it;
  kf_stream *stream;
  kf_event *start, *end;
  void *dx, *dy, *dout;   /* device arrays */
  float x[N], y[N], out[N];
  double u[N], v[N], w[N];
  float wconst[4];
  char npy_path[128];
} World;

typedef kf_status (*StepFn)(World *w);

typedef struct Step {
  const char *name;
  StepFn run;
  bool destroys;    /* a destroy: must not allocate */
} Step;

static kf_status bad(const char *what) {
  fprintf(stderr, "  wrong result: %s\n", what);
  test_failures++;
  return KF_OK;  /* the status was fine; the check counted */
}

static kf_status make_context(World *w) {
  kf_context_options o;
  kf_context_options_init(&o);
  o.alloc = counting_alloc;
  o.alloc_ud = w->counter;
  kf_status st = kf_context_create_with(&o, &w->ctx);
  if ((st == KF_OK) != (w->ctx != NULL)) return bad("kf_context_create_with: status and context disagree");
  return st;
}

static kf_status destroy_context(World *w) {
  kf_context_destroy(w->ctx);
  w->ctx = NULL;
  return KF_OK;
}

static kf_status destroy_module(World *w) {
  kf_module_destroy(w->m);
  w->m = NULL;
  return KF_OK;
}

/* ---- scenario: compile ---- */

static kf_status compile_python(World *w) {
  kf_compile_options o;
  kf_compile_options_init(&o);
  const char *kernels[] = {"axpy", "tile_sum"};
  const char *sigs[] = {"void(float32[::1], float32, float32[::1], float32[::1])", "void(float32[:], float32[:])"};
  o.kernels = kernels;
  o.nkernels = 2;
  o.signatures = sigs;
  o.nsignatures = 2;
  kf_module *m = NULL;
  kf_status st = kf_compile_source(w->ctx, "kernels.py", python_source, strlen(python_source), &o, &m);
  if ((st == KF_OK) != (m != NULL)) return bad("kf_compile_source: status and module disagree");
  w->m = m;
  return st;
}

static kf_status emit_llvm(World *w) {
  kf_codegen_options o;
  kf_codegen_options_init(&o);
  char *text = NULL;
  size_t len = 0;
  kf_status st = kf_module_emit_llvm(w->m, &o, &text, &len);
  if (st == KF_OK && (!text || len != strlen(text) || !strstr(text, "define void @axpy"))) bad("LLVM IR");
  if (st != KF_OK && text) bad("kf_module_emit_llvm: output after an error");
  kf_free(text);
  return st;
}

static kf_status emit_ptx(World *w) {
  kf_codegen_options o;
  kf_codegen_options_init(&o);
  o.opt_level = 0;  /* libNVVM's time is most of this scenario's, run hundreds of times */
  char *text = NULL;
  kf_status st = kf_module_emit_ptx(w->m, &o, &text, NULL);
  if (st == KF_OK && (!text || !strstr(text, ".entry axpy") || !strstr(text, ".shared"))) bad("PTX");
  kf_free(text);
  return st;
}

/* What an embedder supplies for scaled (the bindings' values borrowed from w). */
typedef struct Embedding {
  kf_binding bindings[4];
  kf_source sources[2];
} Embedding;

static void embedding(World *w, Embedding *e, kf_compile_options *o) {
  int64_t wshape[1] = {4};
  kf_value warr = {.kind = KF_VALUE_ARRAY};
  kf_array_init(&warr.array, w->wconst, KF_MEMORY_HOST, KF_FLOAT32, 1, wshape, 'C');
  e->bindings[0] = (kf_binding){"cuda", {.kind = KF_VALUE_MODULE, .path = "numba.cuda"}};
  e->bindings[1] = (kf_binding){"K", {.kind = KF_VALUE_INT, .dtype = KF_INT64, .scalar.i = 3}};
  e->bindings[2] = (kf_binding){"W", warr};
  e->bindings[3] = (kf_binding){"helper", {.kind = KF_VALUE_FUNCTION, .source = 1, .function = "helper"}};
  e->sources[0] = (kf_source){"notebook.py", fragment_source, strlen(fragment_source), 10};
  e->sources[1] = (kf_source){"helpers.py", helper_source, strlen(helper_source), 1};
  kf_compile_options_init(o);
  o->bindings = e->bindings;
  o->nbindings = 4;
}

static kf_status compile_fragment(World *w) {
  Embedding e;
  kf_compile_options o;
  embedding(w, &e, &o);
  kf_source *sources = e.sources;
  const char *kernels[] = {"scaled"}, *sigs[] = {"void(float32[::1], float32[::1])"};
  o.kernels = kernels;
  o.nkernels = 1;
  o.signatures = sigs;
  o.nsignatures = 1;
  kf_module *m = NULL;
  kf_status st = kf_compile_sources(w->ctx, sources, 2, &o, &m);
  if ((st == KF_OK) != (m != NULL)) return bad("kf_compile_sources: status and module disagree");
  w->m = m;
  return st;
}

static kf_status print_fragment(World *w) {
  char *text = NULL;
  kf_status st = kf_module_print(w->m, KF_PRINT_DEBUG_INFO, &text, NULL);
  if (st == KF_OK && (!text || !strstr(text, "@scaled") || !strstr(text, "notebook.py\":14"))) bad("kir of scaled");
  kf_free(text);
  return st;
}

static const Step compile_steps[] = {
    {"kf_context_create_with", make_context, false},
    {"kf_compile_sources", compile_fragment, false},
    {"kf_module_print", print_fragment, false},
    {"kf_module_destroy", destroy_module, true},
    {"kf_compile_source", compile_python, false},
    {"kf_module_emit_llvm", emit_llvm, false},
    {"kf_module_emit_ptx", emit_ptx, false},
    {"kf_module_destroy", destroy_module, true},
    {"kf_context_destroy", destroy_context, true},
    {NULL, NULL, false},
};

/* ---- scenario: kir ---- */

static kf_status parse_kir(World *w) {
  kf_module *m = NULL;
  kf_status st = kf_module_parse(w->ctx, "double.kir", kir_source, strlen(kir_source), &m);
  if ((st == KF_OK) != (m != NULL)) return bad("kf_module_parse: status and module disagree");
  w->m = m;
  return st;
}

static kf_status verify_kir(World *w) { return kf_module_verify(w->m); }

static kf_status run_pipeline(World *w) {
  kf_pass_options o;
  kf_pass_options_init(&o);
  o.print_ir_after_all = 1;
  char *report = NULL;
  kf_status st = kf_module_run_pipeline(w->m, kf_default_pipeline(), &o, &report);
  if (st == KF_OK && (!report || !strstr(report, "IR Dump After cse"))) bad("pipeline report");
  kf_free(report);
  return st;
}

static kf_status print_kir(World *w) {
  char *text = NULL;
  size_t len = 0;
  kf_status st = kf_module_print(w->m, KF_PRINT_DEBUG_INFO, &text, &len);
  if (st == KF_OK) {
    /* cse merged the two loads and multiplications, bce removed the checks under the guard */
    if (!text || len != strlen(text) || !strstr(text, "@double_it") || strstr(text, "check.bounds") ||
        strstr(text, "loc(") == NULL)
      bad("printed kir");
  }
  kf_free(text);
  return st;
}

static kf_status normalize_pipeline(World *w) {
  char *text = NULL;
  kf_status st = kf_pipeline_normalize(w->ctx, " canonicalize , bce{report=1},dce", &text);
  if (st == KF_OK && (!text || strcmp(text, "canonicalize,bce{report=1},dce") != 0)) bad("normalized pipeline");
  kf_free(text);
  return st;
}

static kf_status make_runtime(World *w);
static kf_status destroy_program(World *w);
static kf_status destroy_runtime(World *w);
static kf_array vec32(float *data);

static kf_status program_from_module(World *w) {
  kf_status st = w->p ? KF_OK : kf_program_from_module(w->rt, w->m, &w->p);  /* a retry keeps the program */
  if ((st == KF_OK) != (w->p != NULL)) return bad("kf_program_from_module: status and program disagree");
  if (st == KF_OK) st = kf_program_get_function(w->p, "double_it", &w->double_it);
  return st;
}

static kf_status launch_double_it(World *w) {
  for (int i = 0; i < N; i++) w->out[i] = (float)i;
  kf_array a = vec32(w->out);
  kf_arg args[2] = {kf_arg_array(&a), kf_arg_int(KF_INT64, 3)};
  unsigned grid[3] = {(N + 127) / 128, 1, 1}, block[3] = {128, 1, 1};
  kf_status st = kf_function_launch(w->double_it, grid, block, 0, NULL, args, 2);
  if (st == KF_OK)
    for (int i = 0; i < N; i++)
      if (w->out[i] != 6.0f * (float)i) return bad("double_it's output");
  return st;
}

/* A generic program whose callback parses double_it's kir for every fingerprint (kf_program_create_generic). */
static kf_status parse_double_it(void *user, kf_context *ctx, const char *kernel, struct kf_type *const *types,
                                 unsigned n, kf_module **out) {
  (void)user, (void)kernel, (void)types, (void)n;
  return kf_module_parse(ctx, "double_it.kir", kir_source, strlen(kir_source), out);
}

static kf_status generic_program(World *w) {
  kf_generic_kernel k = {"double_it", 2};
  kf_generic_options o;
  kf_generic_options_init(&o);
  o.kernels = &k;
  o.nkernels = 1;
  o.specialize = parse_double_it;
  kf_status st = w->p2 ? KF_OK : kf_program_create_generic(w->rt, &o, &w->p2);  /* a retry keeps the program */
  if ((st == KF_OK) != (w->p2 != NULL)) return bad("kf_program_create_generic: status and program disagree");
  if (st == KF_OK) st = kf_program_get_function(w->p2, "double_it", &w->double_it);
  return st;
}

static kf_status destroy_program2(World *w) {
  kf_program_destroy(w->p2);
  w->p2 = NULL;
  return KF_OK;
}

static const Step kir_steps[] = {
    {"kf_context_create_with", make_context, false},
    {"kf_module_parse", parse_kir, false},
    {"kf_module_verify", verify_kir, false},
    {"kf_module_run_pipeline", run_pipeline, false},
    {"kf_module_print", print_kir, false},
    {"kf_pipeline_normalize", normalize_pipeline, false},
    {"kf_runtime_create", make_runtime, false},
    {"kf_program_from_module", program_from_module, false},
    {"kf_function_launch", launch_double_it, false},
    {"kf_program_create_generic", generic_program, false},
    {"kf_function_launch (generic: the callback's kir)", launch_double_it, false},
    {"kf_program_destroy (generic)", destroy_program2, true},
    {"kf_program_destroy", destroy_program, true},
    {"kf_runtime_destroy", destroy_runtime, true},
    {"kf_module_destroy", destroy_module, true},
    {"kf_context_destroy", destroy_context, true},
    {NULL, NULL, false},
};

/* ---- scenario: runtime ---- */

static kf_status make_runtime(World *w) {
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_SIM;
  o.disk_cache = 0;
  o.sim_workers = w->workers;
  kf_status st = kf_runtime_create(w->ctx, &o, &w->rt);
  if ((st == KF_OK) != (w->rt != NULL)) return bad("kf_runtime_create: status and runtime disagree");
  return st;
}

static kf_status make_program(World *w) {
  kf_status st = kf_program_create(w->rt, "kernels.py", python_source, strlen(python_source), NULL, &w->p);
  if ((st == KF_OK) != (w->p != NULL)) return bad("kf_program_create: status and program disagree");
  return st;
}

static kf_status get_functions(World *w) {
  kf_status st = kf_program_get_function(w->p, "axpy", &w->axpy);
  if (st == KF_OK) st = kf_program_get_function(w->p, "total", &w->total);
  if (st == KF_OK) st = kf_program_get_function(w->p, "hypot2", &w->hypot2);
  if (st == KF_OK) st = kf_program_get_function(w->p, "cumsum", &w->cumsum);
  return st;
}

static kf_array vec32(float *data) {
  kf_array a;
  int64_t shape[1] = {N};
  kf_array_init(&a, data, KF_MEMORY_HOST, KF_FLOAT32, 1, shape, 'C');
  return a;
}

static kf_array vec64(double *data) {
  kf_array a;
  int64_t shape[1] = {N};
  kf_array_init(&a, data, KF_MEMORY_HOST, KF_FLOAT64, 1, shape, 'C');
  return a;
}

static kf_status launch_axpy(World *w) {
  for (int i = 0; i < N; i++) w->out[i] = -1;
  kf_array out = vec32(w->out), x = vec32(w->x), y = vec32(w->y);
  kf_arg args[4] = {kf_arg_array(&out), kf_arg_float(KF_FLOAT32, 2.0), kf_arg_array(&x), kf_arg_array(&y)};
  unsigned grid[3] = {(N + 63) / 64, 1, 1}, block[3] = {64, 1, 1};
  kf_status st = kf_function_launch(w->axpy, grid, block, 0, NULL, args, 4);
  if (st == KF_OK)
    for (int i = 0; i < N; i++)
      if (w->out[i] != 2.0f * w->x[i] + w->y[i]) return bad("axpy's output");
  return st;
}

static kf_status reduce_total(World *w) {
  kf_array x = vec32(w->x);
  kf_arg r;
  memset(&r, 0, sizeof r);
  kf_status st = kf_reduce(w->total, &x, -1, NULL, NULL, &r, NULL);
  if (st == KF_OK) {
    double want = 0;
    for (int i = 0; i < N; i++) want += w->x[i];
    if (r.dtype != KF_FLOAT32 || fabs(r.value.f - want) > 1e-3 * (fabs(want) + 1)) return bad("kf_reduce's sum");
  }
  return st;
}

static kf_status ufunc_hypot2(World *w) {
  for (int i = 0; i < N; i++) w->w[i] = -1;
  kf_array u = vec64(w->u), v = vec64(w->v), out = vec64(w->w);
  kf_arg in[2] = {kf_arg_array(&u), kf_arg_array(&v)};
  kf_status st = kf_ufunc_call(w->hypot2, in, 2, &out, NULL);
  if (st == KF_OK)
    for (int i = 0; i < N; i++)
      if (w->w[i] != w->u[i] * w->u[i] + w->v[i] * w->v[i]) return bad("kf_ufunc_call's output");
  return st;
}

static kf_status gufunc_cumsum(World *w) {
  for (int i = 0; i < N; i++) w->w[i] = -1;
  kf_array u = vec64(w->u), out = vec64(w->w);
  kf_arg args[2] = {kf_arg_array(&u), kf_arg_array(&out)};
  kf_status st = kf_gufunc_call(w->cumsum, args, 2, NULL);
  if (st == KF_OK) {
    double acc = 0;
    for (int i = 0; i < N; i++)
      if (w->w[i] != (acc += w->u[i])) return bad("kf_gufunc_call's output");
  }
  return st;
}

static kf_status make_stream_events(World *w) {
  kf_status st = w->stream ? KF_OK : kf_stream_create(w->rt, &w->stream);
  if (st == KF_OK && !w->start) st = kf_event_create(w->rt, &w->start);
  if (st == KF_OK && !w->end) st = kf_event_create(w->rt, &w->end);
  return st;
}

static kf_status device_arrays(World *w) {
  kf_status st = KF_OK;
  void **ptrs[3] = {&w->dx, &w->dy, &w->dout};
  for (int i = 0; i < 3 && st == KF_OK; i++)
    if (!*ptrs[i]) st = kf_device_alloc(w->rt, sizeof(float) * N, ptrs[i]);
  if (st == KF_OK) st = kf_memcpy_to_device(w->rt, w->dx, w->x, sizeof w->x, w->stream);
  if (st == KF_OK) st = kf_memcpy_to_device(w->rt, w->dy, w->y, sizeof w->y, w->stream);
  return st;
}

/* axpy on device arrays, asynchronously on a stream between two events. */
static kf_status launch_on_stream(World *w) {
  int64_t shape[1] = {N};
  kf_array out, x, y;
  kf_array_init(&out, w->dout, KF_MEMORY_DEVICE, KF_FLOAT32, 1, shape, 'C');
  kf_array_init(&x, w->dx, KF_MEMORY_DEVICE, KF_FLOAT32, 1, shape, 'C');
  kf_array_init(&y, w->dy, KF_MEMORY_DEVICE, KF_FLOAT32, 1, shape, 'C');
  kf_arg args[4] = {kf_arg_array(&out), kf_arg_float(KF_FLOAT32, -1.5), kf_arg_array(&x), kf_arg_array(&y)};
  unsigned grid[3] = {(N + 31) / 32, 1, 1}, block[3] = {32, 1, 1};
  kf_status st = kf_event_record(w->start, w->stream);
  if (st == KF_OK) st = kf_function_launch(w->axpy, grid, block, 0, w->stream, args, 4);
  if (st == KF_OK) st = kf_event_record(w->end, w->stream);
  if (st == KF_OK) st = kf_stream_synchronize(w->stream);
  float ms;
  if (st == KF_OK) st = kf_event_elapsed_ms(w->start, w->end, &ms);
  for (int i = 0; i < N; i++) w->out[i] = 0;
  if (st == KF_OK) st = kf_memcpy_to_host(w->rt, w->out, w->dout, sizeof w->out, NULL);
  if (st == KF_OK)
    for (int i = 0; i < N; i++)
      if (w->out[i] != -1.5f * w->x[i] + w->y[i]) return bad("axpy's output on device arrays");
  return st;
}

static kf_status free_device(World *w) {
  kf_status st = KF_OK;
  void **ptrs[3] = {&w->dx, &w->dy, &w->dout};
  for (int i = 0; i < 3; i++) {
    kf_status s = kf_device_free(w->rt, *ptrs[i]);
    if (st == KF_OK) st = s;
    *ptrs[i] = NULL;
  }
  kf_event_destroy(w->start);
  kf_event_destroy(w->end);
  kf_stream_destroy(w->stream);
  w->start = w->end = NULL;
  w->stream = NULL;
  return st;
}

static kf_status embedder_program(World *w) {
  Embedding e;
  kf_compile_options o;
  embedding(w, &e, &o);
  kf_status st = w->p2 ? KF_OK : kf_program_create_sources(w->rt, e.sources, 2, &o, &w->p2);
  if ((st == KF_OK) != (w->p2 != NULL)) return bad("kf_program_create_sources: status and program disagree");
  if (st == KF_OK) st = kf_program_get_function(w->p2, "scaled", &w->scaled);
  if (st != KF_OK) return st;
  for (int i = 0; i < N; i++) w->out[i] = 0;
  kf_array out = vec32(w->out), x = vec32(w->x);
  kf_arg args[2] = {kf_arg_array(&out), kf_arg_array(&x)};
  unsigned grid[3] = {(N + 63) / 64, 1, 1}, block[3] = {64, 1, 1};
  st = kf_function_launch(w->scaled, grid, block, 0, NULL, args, 2);
  if (st == KF_OK)
    for (int i = 0; i < N; i++)
      if (w->out[i] != (w->x[i] + 1.0f) * 3 + w->wconst[i % 4]) return bad("scaled's output");
  return st;
}

static kf_status destroy_embedder_program(World *w) {
  kf_program_destroy(w->p2);
  w->p2 = NULL;
  return KF_OK;
}

static kf_status npy_round_trip(World *w) {
  kf_array a = vec64(w->u), back;
  kf_status st = kf_npy_save(w->ctx, w->npy_path, &a);
  if (st == KF_OK) st = kf_npy_load(w->ctx, w->npy_path, &back);
  if (st == KF_OK) {
    if (back.dtype != KF_FLOAT64 || back.ndim != 1 || back.shape[0] != N || memcmp(back.data, w->u, sizeof w->u))
      bad("the array read back from .npy");
    kf_free(back.data);
  }
  unlink(w->npy_path);
  return st;
}

static kf_status destroy_program(World *w) {
  kf_program_destroy(w->p);
  w->p = NULL;
  return KF_OK;
}

static kf_status destroy_runtime(World *w) {
  kf_runtime_destroy(w->rt);
  w->rt = NULL;
  return KF_OK;
}

/* The simulator's two worker threads allocate with the context's allocator too (how many allocations they
 * make depends on which worker runs which block: T varies a little between runs). */
static const Step workers_steps[] = {
    {"kf_context_create_with", make_context, false},
    {"kf_runtime_create", make_runtime, false},
    {"kf_program_create", make_program, false},
    {"kf_program_get_function", get_functions, false},
    {"kf_function_launch", launch_axpy, false},
    {"kf_program_destroy", destroy_program, true},
    {"kf_runtime_destroy", destroy_runtime, true},
    {"kf_context_destroy", destroy_context, true},
    {NULL, NULL, false},
};

static const Step runtime_steps[] = {
    {"kf_context_create_with", make_context, false},
    {"kf_runtime_create", make_runtime, false},
    {"kf_program_create", make_program, false},
    {"kf_program_get_function", get_functions, false},
    {"kf_function_launch", launch_axpy, false},
    {"kf_reduce", reduce_total, false},
    {"kf_ufunc_call", ufunc_hypot2, false},
    {"kf_gufunc_call", gufunc_cumsum, false},
    {"kf_stream_create, kf_event_create", make_stream_events, false},
    {"kf_device_alloc, kf_memcpy_to_device", device_arrays, false},
    {"kf_function_launch on a stream", launch_on_stream, false},
    {"kf_device_free, kf_event_destroy, kf_stream_destroy", free_device, true},
    {"kf_npy_save, kf_npy_load", npy_round_trip, false},
    {"kf_program_create_sources and a launch", embedder_program, false},
    {"kf_program_destroy (the embedder's)", destroy_embedder_program, true},
    {"kf_program_destroy", destroy_program, true},
    {"kf_runtime_destroy", destroy_runtime, true},
    {"kf_context_destroy", destroy_context, true},
    {NULL, NULL, false},
};

/* ---- the driver ----------------------------------------------------------------------------------- */

static void world_init(World *w, Counter *c, unsigned workers) {
  memset(w, 0, sizeof *w);
  w->counter = c;
  w->workers = workers;
  for (int i = 0; i < 4; i++) w->wconst[i] = (float)i / 4;
  snprintf(w->npy_path, sizeof w->npy_path, "/tmp/kfront_api_alloc_fail_%ld.npy", (long)getpid());
  for (int i = 0; i < N; i++) {
    w->x[i] = (float)((i * 37) % 101) / 8.0f - 3.0f;
    w->y[i] = (float)(i % 7) - 2.5f;
    w->u[i] = i * 0.5 - 20;
    w->v[i] = (i % 13) * 0.25;
  }
}

/* Destroys what a run that stopped early left. */
static void world_free(World *w) {
  free_device(w);
  kf_program_destroy(w->p2);
  kf_program_destroy(w->p);
  kf_runtime_destroy(w->rt);
  kf_module_destroy(w->m);
  kf_context_destroy(w->ctx);
  memset(w, 0, sizeof *w);
}

static void describe(const char *scenario, const Step *s, unsigned long fail_at, bool sticky) {
  fprintf(stderr, "  (scenario %s, step %s, %s at allocation call %lu)\n", scenario, s->name,
          sticky ? "failing from" : "failing", fail_at);
}

/* Runs the scenario with allocation call fail_at failing (0: none; sticky: and every later one, until the
 * first failure has been checked). Returns the number of allocation calls it made. */
static unsigned long run_scenario(const char *scenario, const Step *steps, unsigned workers, unsigned long fail_at,
                                  bool sticky) {
  Counter c = {.fail_at = fail_at, .sticky = sticky};
  pthread_mutex_init(&c.lock, NULL);
  World w;
  world_init(&w, &c, workers);
  int failures_before = test_failures;
  bool oom_seen = false;
  for (const Step *s = steps; s->name; s++) {
    unsigned long calls = counter_calls(&c), failed = counter_failures(&c);
    kf_status st = s->run(&w);
    if (s->destroys && counter_calls(&c) != calls) {
      fprintf(stderr, "%s allocated (destroying must not)\n", s->name);
      describe(scenario, s, fail_at, sticky);
      test_failures++;
    }
    if (counter_failures(&c) != failed) {
      oom_seen = true;
      if (st != KF_ERROR_OUT_OF_MEMORY) {
        fprintf(stderr, "%s returned %s after an allocation failed (expected out of memory)\n", s->name,
                kf_status_name(st));
        if (w.ctx) fprintf(stderr, "%s", kf_context_diagnostics(w.ctx));
        describe(scenario, s, fail_at, sticky);
        test_failures++;
      }
      if (w.ctx) {
        /* stop failing while the context is asked: the checks must not need memory, but the test's
         * own reporting would */
        c.sticky = false;
        c.fail_at = 0;
        kf_error_info e;
        if (kf_context_first_error(w.ctx, &e) != KF_OK || e.kind != KF_ERRKIND_OUT_OF_MEMORY ||
            strcmp(e.message, "out of memory") != 0 || e.file) {
          fprintf(stderr, "%s: the first error is not \"out of memory\" (kind %d: %s)\n%s", s->name, (int)e.kind,
                  e.message ? e.message : "(none)", kf_context_diagnostics(w.ctx));
          describe(scenario, s, fail_at, sticky);
          test_failures++;
        }
        CHECK(kf_context_error_count(w.ctx) >= 1);
        /* rendered too (best effort when every allocation fails: the text may have had no room to grow) */
        if (!sticky && !strstr(kf_context_diagnostics(w.ctx), "kfront: error: out of memory")) {
          fprintf(stderr, "%s: \"out of memory\" is not in the diagnostics:\n%s", s->name,
                  kf_context_diagnostics(w.ctx));
          describe(scenario, s, fail_at, sticky);
          test_failures++;
        }
        kf_context_clear_diagnostics(w.ctx);
      }
      /* the allocator works again: the same call on the same objects succeeds */
      c.sticky = false;
      c.fail_at = 0;
      st = s->run(&w);
    }
    if (st != KF_OK) {
      fprintf(stderr, "%s: %s%s\n%s", s->name, kf_status_name(st), oom_seen ? " (after an out of memory)" : "",
              w.ctx ? kf_context_diagnostics(w.ctx) : "");
      describe(scenario, s, fail_at, sticky);
      test_failures++;
      world_free(&w);
      break;
    }
    if (w.ctx && kf_context_error_count(w.ctx)) {
      fprintf(stderr, "%s succeeded with errors reported:\n%s", s->name, kf_context_diagnostics(w.ctx));
      describe(scenario, s, fail_at, sticky);
      test_failures++;
      kf_context_clear_diagnostics(w.ctx);
    }
  }
  if (fail_at && fail_at <= c.calls && !oom_seen) {
    fprintf(stderr, "scenario %s: allocation call %lu was never refused\n", scenario, fail_at);
    test_failures++;
  }
  if (c.live != 0 || c.bytes != 0 || c.bad_free) {
    fprintf(stderr, "scenario %s, allocation call %lu failing%s: %ld blocks and %lld bytes left after destroying "
            "everything%s\n", scenario, fail_at, sticky ? " (sticky)" : "", c.live, c.bytes,
            c.bad_free ? "; a block freed with the wrong size" : "");
    test_failures++;
  }
  pthread_mutex_destroy(&c.lock);
  if (test_failures > failures_before + 20) {
    fprintf(stderr, "too many failures: stopping\n");
    exit(1);
  }
  return c.calls;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The sticky pass tests at most this many points per scenario, evenly spread (all of them when T is smaller). */
enum { STICKY_POINTS = 400 };

/* workers: the simulator's threads (1: none, and the same allocations in every run). */
static void run_all(const char *scenario, const Step *steps, unsigned workers) {
  const char *one = getenv("ALLOC_FAIL_AT");  /* debugging: that N alone (and "s" after it: sticky) */
  if (one) {
    run_scenario(scenario, steps, workers, strtoul(one, NULL, 10), strchr(one, 's') != NULL);
    return;
  }
  double t0 = now();
  unsigned long total = run_scenario(scenario, steps, workers, 0, false);
  CHECK(total > 0);
  /* deterministic: the same count again (the library's one-time state used no context's allocator) */
  unsigned long again = run_scenario(scenario, steps, workers, 0, false);
  CHECK(workers > 1 || again == total);
  for (unsigned long n = 1; n <= total; n++) run_scenario(scenario, steps, workers, n, false);
  unsigned long stride = total > STICKY_POINTS ? (total + STICKY_POINTS - 1) / STICKY_POINTS : 1;
  for (unsigned long n = 1; n <= total; n += stride) run_scenario(scenario, steps, workers, n, true);
  if (stride == 1)
    printf("%-8s T = %lu allocation calls: every N in 1..%lu failing once, and failing from N on; %.2f s\n",
           scenario, total, total, now() - t0);
  else
    printf("%-8s T = %lu allocation calls: every N in 1..%lu failing once, and failing from N on for N in 1..%lu step "
           "%lu; %.2f s\n", scenario, total, total, total, stride, now() - t0);
}

/* kf_context_create (the default allocator) and kf_free from another thread, after the context is gone. */
typedef struct FreeJob { char *text; } FreeJob;
static void *free_elsewhere(void *arg) {
  kf_free(((FreeJob *)arg)->text);
  return NULL;
}

static void test_free_after_destroy(void) {
  Counter c = {0};
  pthread_mutex_init(&c.lock, NULL);
  kf_context_options o;
  kf_context_options_init(&o);
  o.alloc = counting_alloc;
  o.alloc_ud = &c;
  kf_context *ctx = NULL;
  CHECK(kf_context_create_with(&o, &ctx) == KF_OK);
  char *norm = NULL;
  CHECK(kf_pipeline_normalize(ctx, "cse", &norm) == KF_OK && norm && strcmp(norm, "cse") == 0);
  kf_context_destroy(ctx);
  CHECK(c.live == 1);  /* the string alone */
  FreeJob job = {norm};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, free_elsewhere, &job) == 0);
  pthread_join(t, NULL);
  CHECK(c.live == 0 && c.bytes == 0);
  pthread_mutex_destroy(&c.lock);
  /* the default allocator still works as it did */
  kf_context *plain = kf_context_create();
  CHECK(plain != NULL);
  CHECK(kf_context_create_with(NULL, &ctx) == KF_OK && ctx);
  kf_context_destroy(ctx);
  kf_context_destroy(plain);
}

int main(int argc, char **argv) {
  const char *cuda = getenv("CUDA_HOME");
  kf_cuda_paths paths;
  kf_cuda_paths_init(&paths);
  paths.cuda_home = cuda && *cuda ? cuda : NULL;
  paths.libnvvm = getenv("KFRONT_LIBNVVM");
  paths.libdevice = getenv("KFRONT_LIBDEVICE");
  kf_configure_cuda_paths(&paths);
  const char *only = argc > 1 ? argv[1] : NULL;
  test_free_after_destroy();
  if (!only || strcmp(only, "compile") == 0) run_all("compile", compile_steps, 1);
  if (!only || strcmp(only, "kir") == 0) run_all("kir", kir_steps, 1);
  if (!only || strcmp(only, "runtime") == 0) run_all("runtime", runtime_steps, 1);
  if (!only || strcmp(only, "workers") == 0) run_all("workers", workers_steps, 2);
  return test_result("api_alloc_fail");
}
