/* program.c — programs, functions and their specialisations.
 *
 * RtProgram: Python source (copied, registered with the diagnostics so run-time errors quote it), a
 *   borrowed kir module, or an embedder's generic kernels (a generator: api/'s wrapper of its callback).
 *   RtFunction: one Python function (or kernel) of it, resolved by name once; its kernels are found by the
 *   fingerprint of the argument types (dispatch.c: lock-free on a hit). On a miss, under the runtime's lock:
 *   - a generic program's kernel is the one the callback builds for the argument types (generate_module: the
 *     verifier and the pipeline run over it, rt_compile_module), picked as a borrowed module's is;
 *   - a lazy kernel is compiled for the signature its arguments spell (e.g. void(float32[::1], int64));
 *     an eager one is compiled once with its decorator's signatures and the first one the arguments fit
 *     is used (whether a kernel is eager is found by compiling it with no signature, quietly);
 *   - on the GPU, kir -> PTX (backend) is cached in memory and on disk under a key of (kfront version,
 *     file, source, kernel, argument signature, options, arch); a hit skips the frontend and the backend:
 *     the entry holds a manifest (entry, launch plan, parameter types) and the PTX; never for a program that
 *     captures a device array (its code holds this process's addresses) or links foreign code;
 *   - a module calling foreign device functions (cuda.declare_device), or of a program given links, is linked with
 *     the program's link inputs by nvJitLink (without it, by the driver's linker) into a cubin (link_module), which is
 *     what is loaded; with the program's lto (kf_compile_options.lto) the module goes in as libNVVM's LTO-IR and
 *     is optimised with them;
 *   - each kernel gets its launch plan (plan.c) from its kir, or from the manifest;
 *   - a program given a module callback (kf_module_callback: numba-cuda's link items' setup and teardown callbacks)
 *     tells it of each module before the module's first launch (rt_kernel_setup, from rt_launch, outside the
 *     runtime's lock, under the program's recursive setup_lock) and before a module set up is unloaded; its
 *     kernels are never cached (a kernel from a cache entry owns a module of its own).
 * Several fingerprints may share a kernel (an eager kernel's signature fits many argument types).
 *
 * Out of memory (rt.h): the compilers run under guards (rt_compile_source, fe_function_kind here, the backend,
 * the cache manifest's reading); everything else checks its allocations, and a function's tables change only
 * once what they point to is complete, so a call that ran out of memory leaves the function as it was (what
 * it had compiled stays owned by the program and is found again, or compiled again, by the next call). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "frontend/compile.h"
#include "runtime/rt.h"
#include "utils/mem.h"

static const SrcLoc NOLOC = {0};

/* A kir module of a program: compiled from its source (owned), the borrowed one of from_module, or one a generic
 * program's callback built (held by owner, given back to the generator's release with the program). */
struct RtProgModule {
  Module *ir;
  bool owned;
  void *owner;
  RtDevModule *dev;        /* loaded on the device (the whole module: eager, borrowed, lazy compiles) */
  char *code;              /* GPU: the module's PTX, kept for the cache entries of each specialisation; a module
                            * linked with LTO (RtInputs.lto): libNVVM's LTO-IR, code_len bytes */
  size_t code_len;
  char *image;             /* GPU, a module linked with foreign code: the cubin nvJitLink made of code and the links
                            * (what is loaded; never cached on disk) */
  atomic_int setup;        /* the module callback's KF_MODULE_SETUP of dev: MODULE_NEW, MODULE_SETTING_UP (by the
                            * thread holding the program's setup_lock), MODULE_SET_UP */
  RtProgModule *next;
};

enum { MODULE_NEW, MODULE_SETTING_UP, MODULE_SET_UP };


static void setup_lock_init(RtProgram *p) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&p->setup_lock, &a);
  pthread_mutexattr_destroy(&a);
}

/* What the module callback is told of pm's loaded module. */
static kf_module_info module_info(RtRuntime *rt, RtProgModule *pm) {
  kf_module_info info = {NULL, NULL, rt->dev->ordinal};
  rt->dev->ops->module_handles(rt->dev, pm->dev, &info.module, &info.library);
  return info;
}

kf_status rt_kernel_setup(RtKernel *k) {
  RtProgram *p = k->f->p;
  RtProgModule *pm = k->home;
  if (!p->inputs.opts.module_callback || !pm || atomic_load_explicit(&pm->setup, memory_order_acquire) == MODULE_SET_UP)
    return KF_OK;
  RtRuntime *rt = p->rt;
  pthread_mutex_lock(&p->setup_lock);
  int state = atomic_load(&pm->setup);
  if (state != MODULE_NEW) { /* set up meanwhile, or being set up by this thread (a launch its callback made) */
    pthread_mutex_unlock(&p->setup_lock);
    return KF_OK;
  }
  kf_status st = KF_OK;
  if (!rt->dev->ops->make_current(rt->dev, rt->diag)) st = KF_ERROR_DEVICE;
  if (st == KF_OK) {
    atomic_store(&pm->setup, MODULE_SETTING_UP);
    kf_module_info info = module_info(rt, pm);
    int rc = p->inputs.opts.module_callback(p->inputs.opts.module_callback_data, KF_MODULE_SETUP, &info);
    atomic_store_explicit(&pm->setup, rc == 0 ? MODULE_SET_UP : MODULE_NEW, memory_order_release);
    if (rc != 0) {
      diag_error(rt->diag, NOLOC, "the setup callback of the module of kernel %s failed (it returned %d)",
                 k->f->name, rc);
      st = KF_ERROR_CALLBACK;
    }
  }
  pthread_mutex_unlock(&p->setup_lock);
  return st;
}

/* The module callback's KF_MODULE_TEARDOWN of pm, if it was set up, before it is unloaded. */
static void module_teardown(RtProgram *p, RtProgModule *pm) {
  if (!p->inputs.opts.module_callback || !pm->dev || atomic_load(&pm->setup) != MODULE_SET_UP) return;
  kf_module_info info = module_info(p->rt, pm);
  p->inputs.opts.module_callback(p->inputs.opts.module_callback_data, KF_MODULE_TEARDOWN, &info);
  atomic_store(&pm->setup, MODULE_NEW);
}

kf_status rt_program_create(RtRuntime *rt, const kf_source *main, const kf_source *extra, unsigned nextra,
                            const kf_compile_options *opts, RtProgram **out) {
  *out = NULL;
  RtProgram *p = mem_calloc(1, sizeof *p);
  if (!p) return rt_out_of_memory(rt);
  kf_status st = rt_inputs_copy(&p->inputs, extra, nextra, opts, rt->diag);
  if (st != KF_OK) {
    mem_free(p);
    return st;
  }
  p->rt = rt;
  p->filename = mem_strdup(main->filename ? main->filename : "<input>");
  p->source = mem_alloc(main->len + 1);
  if (!p->filename || !p->source) {
    rt_inputs_free(&p->inputs);
    mem_free(p->filename);
    mem_free(p->source);
    mem_free(p);
    return rt_out_of_memory(rt);
  }
  if (main->len) memcpy(p->source, main->text, main->len);
  p->source[main->len] = 0;
  p->len = main->len;
  p->first_line = main->first_line ? main->first_line : 1;
  setup_lock_init(p);
  strmap_init(&p->functions);
  /* registered so that run-time errors (IndexError) quote the source line, even on a cache hit */
  bool registered = diag_add_source_at(rt->diag, p->filename, p->source, p->len, p->first_line);
  for (unsigned i = 0; registered && i < p->inputs.opts.nextra_sources; i++) {
    const kf_source *x = &p->inputs.opts.extra_sources[i];
    registered = diag_add_source_at(rt->diag, x->filename ? x->filename : "<input>", x->text, x->len,
                                    x->first_line ? x->first_line : 1);
  }
  if (!registered) {
    rt_program_destroy(p);
    return rt_out_of_memory(rt);
  }
  *out = p;
  return KF_OK;
}

kf_status rt_program_from_module(RtRuntime *rt, Module *m, RtProgram **out) {
  *out = NULL;
  RtProgram *p = mem_calloc(1, sizeof *p);
  RtProgModule *pm = mem_calloc(1, sizeof *pm);
  if (!p || !pm) {
    mem_free(p);
    mem_free(pm);
    return rt_out_of_memory(rt);
  }
  p->rt = rt;
  pm->ir = m;
  p->borrowed = pm;
  p->modules = pm;
  setup_lock_init(p);
  strmap_init(&p->functions);
  *out = p;
  return KF_OK;
}

kf_status rt_program_generic(RtRuntime *rt, const RtGenerator *g, const kf_generic_kernel *kernels, unsigned n,
                             const char *pipeline, RtProgram **out) {
  *out = NULL;
  RtProgram *p = mem_calloc(1, sizeof *p);
  RtGenericKernel *ks = mem_calloc(n, sizeof *ks);
  char *pl = pipeline ? mem_strdup(pipeline) : NULL;
  bool ok = p && ks && (pl || !pipeline);
  for (unsigned i = 0; ok && i < n; i++) {
    ks[i].nparams = kernels[i].nparams;
    ok = (ks[i].name = mem_strdup(kernels[i].name)) != NULL;
  }
  if (!ok) {
    for (unsigned i = 0; ks && i < n; i++) mem_free(ks[i].name);
    mem_free(ks);
    mem_free(pl);
    mem_free(p);
    return rt_out_of_memory(rt);
  }
  p->rt = rt;
  p->gen = *g;
  p->generic = ks;
  p->ngeneric = n;
  p->gen_pipeline = pl;
  setup_lock_init(p);
  strmap_init(&p->functions);
  *out = p;
  return KF_OK;
}

static void kernel_free(RtRuntime *rt, RtKernel *k) {
  if (k->variant) kernel_free(rt, k->variant);
  if (k->owns_module) rt->dev->ops->unload(rt->dev, k->module);
  mem_free(k->entry);
  mem_free(k->signature);
  mem_free(k->params);
  mem_free(k);
}

static void function_free(RtRuntime *rt, RtFunction *f) {
  for (RtKernel *k = f->kernels, *n; k; k = n) {
    n = k->next;
    kernel_free(rt, k);
  }
  rt_dispatch_free(&f->dispatch);
  for (size_t i = 0; i < f->by_signature.cap; i++) mem_free((char *)f->by_signature.slots[i].key);
  strmap_free(&f->by_signature);
  ptrmap_free(&f->by_func);
  mem_free(f->eager_kernels);
  mem_free(f->name);
  mem_free(f);
}

void rt_program_destroy(RtProgram *p) {
  if (!p) return;
  RtRuntime *rt = p->rt;
  for (size_t i = 0; i < p->functions.cap; i++) {
    StrMapEntry *e = &p->functions.slots[i];
    if (!e->key) continue;
    function_free(rt, e->value);
    mem_free((char *)e->key);
  }
  strmap_free(&p->functions);
  for (RtProgModule *pm = p->modules, *n; pm; pm = n) {
    n = pm->next;
    module_teardown(p, pm);
    if (pm->dev) rt->dev->ops->unload(rt->dev, pm->dev);
    if (pm->owned) ir_module_free(pm->ir);
    if (pm->owner) p->gen.release(&p->gen, pm->owner);
    mem_free(pm->code);
    mem_free(pm->image);
    mem_free(pm);
  }
  if (p->source) diag_remove_source(rt->diag, p->source);
  for (unsigned i = 0; i < p->inputs.opts.nextra_sources; i++)
    diag_remove_source(rt->diag, p->inputs.opts.extra_sources[i].text);
  rt_inputs_free(&p->inputs);
  for (unsigned i = 0; i < p->ngeneric; i++) mem_free(p->generic[i].name);
  mem_free(p->generic);
  mem_free(p->gen_pipeline);
  mem_free(p->filename);
  mem_free(p->source);
  pthread_mutex_destroy(&p->setup_lock);
  mem_free(p);
}

static kf_status find_kind(RtFunction *f);

/* Whether the program has the function f names (its kind, found once, is kept): KF_OK, or the status find_kind
 * reports it with (KF_ERROR_NOT_FOUND: no such function, or host code). A source that does not compile is its
 * compile's to report (with the kinds a compile gives): the name is then taken as it is, found or not when it
 * compiles. Under the runtime's lock. */
static kf_status function_exists(RtFunction *f) {
  Diag *d = f->p->rt->diag;
  DiagMark mark = diag_mark(d);
  DiagCallback cb = d->callback;
  d->callback = NULL;  /* quiet, unless it is the answer */
  kf_status st = find_kind(f);
  d->callback = cb;
  if (st == KF_OK || st == KF_ERROR_OUT_OF_MEMORY) return st;
  diag_rollback(d, &mark);
  f->kind = -1;
  if (st != KF_ERROR_NOT_FOUND) return KF_OK;
  return find_kind(f);  /* again, reported */
}

kf_status rt_program_function(RtProgram *p, const char *name, RtFunction **out) {
  *out = NULL;
  RtRuntime *rt = p->rt;
  if (!name || !*name) {
    diag_error(rt->diag, NOLOC, "no kernel name given");
    return KF_ERROR_INVALID_INPUT;
  }
  pthread_mutex_lock(&rt->lock);
  RtFunction *f = strmap_get(&p->functions, name);
  kf_status st = KF_OK;
  if (!f) {
    f = mem_calloc(1, sizeof *f);
    char *key = mem_strdup(name);
    if (f) f->name = mem_strdup(name);
    if (f) {
      f->p = p;
      f->eager = -1;
      f->kind = -1;
      strmap_init(&f->by_signature);
    }
    kf_status found = f && key && f->name ? function_exists(f) : rt_out_of_memory(rt);
    if (found == KF_OK && !strmap_put(&p->functions, key, f)) found = rt_out_of_memory(rt);
    if (found != KF_OK) {
      if (f) mem_free(f->name);
      mem_free(f);
      mem_free(key);
      f = NULL;
      st = found;
    }
  }
  pthread_mutex_unlock(&rt->lock);
  *out = f;
  return st;
}

/* ---- compiling kir --------------------------------------------------------------------------- */

/* Compiles the program's source for one kernel: with a signature (lazy) or without (eager probe; quiet:
 * its diagnostics are dropped, a failure only means "not eager" — but out of memory is reported and returned
 * as such). */
static kf_status compile_kernel(RtProgram *p, const char *name, const char *signature, bool quiet,
                                RtProgModule **out) {
  *out = NULL;
  RtRuntime *rt = p->rt;
  const char *names[1] = {name}, *sigs[1] = {signature};
  kf_compile_options co = p->inputs.opts;
  co.kernels = names;
  co.nkernels = 1;
  co.signatures = signature ? sigs : NULL;
  co.nsignatures = signature ? 1 : 0;
  if (!co.pipeline) co.pipeline = rt->pipeline;
  RtSourceOptions o = {.compile = &co, .target = &rt->dev->target, .passes = rt->passes};
  Diag *d = rt->diag;
  DiagMark mark = diag_mark(d);
  DiagCallback cb = d->callback;
  if (quiet) d->callback = NULL;
  kf_source main = {p->filename, p->source, p->len, p->first_line};
  Module *m;
  kf_status st = rt_compile_source(rt->ir, d, &main, &o, &m);
  atomic_fetch_add(&rt->compiles, 1);
  if (quiet) {
    d->callback = cb;
    diag_rollback(d, &mark);
    if (st == KF_ERROR_OUT_OF_MEMORY) diag_out_of_memory(d);
  }
  if (st != KF_OK) return st;
  RtProgModule *pm = mem_calloc(1, sizeof *pm);
  if (!pm) {
    ir_module_free(m);
    return rt_out_of_memory(rt);
  }
  pm->ir = m;
  pm->owned = true;
  pm->next = p->modules;
  p->modules = pm;
  *out = pm;
  return KF_OK;
}

/* Whether f is an eager kernel (found once): compiled with no signature. KF_ERROR_OUT_OF_MEMORY (f->eager
 * still unknown) when that could not be found out. */
static kf_status find_eager(RtFunction *f) {
  if (f->eager >= 0) return KF_OK;
  RtProgModule *pm = NULL;
  kf_status st = compile_kernel(f->p, f->name, NULL, true, &pm);
  if (st == KF_ERROR_OUT_OF_MEMORY) return st;
  f->eager = 0;
  if (st == KF_OK) {
    Op *func;
    if (rt_kir_find_kernels(pm->ir, f->name, &func, 1) > 0) {
      f->eager = 1;
      f->eager_module = pm;
    }
  }
  return KF_OK;
}

enum { MAX_SPECIALISATIONS = 64 };

/* Whether the arguments fit kernel func once arrays of another dtype of their parameters' element size are read as
 * those (rt_arg_fits_as): what a specialized function's launch passes (kf_function_set_specialized). */
static bool reinterpreted_fit(RtProgram *p, Op *func, const kf_arg *args, unsigned nargs) {
  RtLaunchPlan plan;
  unsigned np, to_readonly;
  if (!rt_plan_from_kir(func, &plan, p->rt->diag)) return false;
  Type *const *params = rt_kir_params(func, &np);
  if (np - plan.nhidden != nargs || !rt_readonly_fits(func, args, nargs, &to_readonly)) return false;
  for (unsigned i = 0; i < nargs; i++)
    if (!rt_arg_fits_as(params[i], &args[i], true)) return false;
  return true;
}

/* The kernel of pm named `name` that numba's resolve_overload picks for the arguments: of those they fit, the one
 * whose conversions rate best, (unsafe, safe, promote) counts compared in that order; a tie for the best is its
 * "Ambiguous overloading" TypeError. Reports the signatures on a miss (NULL, with *oom set when out of memory
 * instead). */
static Op *pick_kernel(RtProgram *p, RtProgModule *pm, const char *name, const kf_arg *args, unsigned nargs,
                       const char *argsig, bool specialized, bool *oom, bool *none) {
  *oom = false;
  *none = false;
  Op *cands[MAX_SPECIALISATIONS];
  unsigned n = rt_kir_find_kernels(pm->ir, name, cands, MAX_SPECIALISATIONS);
  if (n > MAX_SPECIALISATIONS) n = MAX_SPECIALISATIONS;
  if (n == 0) {
    *none = true;
    DiagKind prev = diag_set_kind(DIAG_KIND_NOT_FOUND);
    diag_error(p->rt->diag, NOLOC, "no kernel named '%s' in %s", name, p->filename ? p->filename : "the module");
    diag_set_kind(prev);
    return NULL;
  }
  Op *best = NULL;
  unsigned best_rate[3] = {0, 0, 0}, tied = 0;
  unsigned rates[MAX_SPECIALISATIONS][3];
  bool fits[MAX_SPECIALISATIONS] = {false};
  for (unsigned i = 0; i < n; i++) {
    RtLaunchPlan plan;
    if (!rt_plan_from_kir(cands[i], &plan, p->rt->diag)) return NULL;
    unsigned np;
    Type *const *params = rt_kir_params(cands[i], &np);
    if (np - plan.nhidden != nargs) continue;
    unsigned rate[3];
    unsigned to_readonly;
    if (!rt_rate_args(params, args, nargs, rate) || !rt_readonly_fits(cands[i], args, nargs, &to_readonly)) continue;
    rate[1] += to_readonly;
    fits[i] = true;
    memcpy(rates[i], rate, sizeof rate);
    int cmp = best ? 0 : -1;
    for (unsigned r = 0; best && r < 3 && cmp == 0; r++)
      cmp = rate[r] < best_rate[r] ? -1 : rate[r] > best_rate[r] ? 1 : 0;
    if (cmp < 0) {
      best = cands[i];
      memcpy(best_rate, rate, sizeof rate);
      tied = 1;
    } else if (cmp == 0) {
      tied++;
    }
  }
  if (best && tied == 1) return best;
  if (!best && specialized && n == 1 && reinterpreted_fit(p, cands[0], args, nargs)) return cands[0];
  /* numba's resolve_overload: a tie names the arguments and the tied signatures only, as numba's types print */
  StrBuf sigs;
  sb_init(&sigs);
  if (best) {
    rt_args_repr_numba(args, nargs, &sigs);
    sb_putc(&sigs, ':');
  }
  for (unsigned i = 0; i < n; i++) {
    if (best && (!fits[i] || memcmp(rates[i], best_rate, sizeof best_rate) != 0)) continue;
    RtLaunchPlan plan;
    unsigned np;
    Type *const *params = rt_kir_params(cands[i], &np);
    rt_plan_from_kir(cands[i], &plan, p->rt->diag);
    const Attr *readonly = ir_op_attr(cands[i], "readonly_params");
    sb_puts(&sigs, best ? "\n" : "\n  ");
    if (best) rt_signature_repr_numba(params, np - plan.nhidden, readonly, &sigs);
    else rt_signature_numba(params, np - plan.nhidden, readonly, &sigs);
  }
  if (sb_failed(&sigs)) {
    sb_free(&sigs);
    *oom = true;
    rt_out_of_memory(p->rt);
    return NULL;
  }
  DiagKind prev = diag_set_kind(DIAG_KIND_ARGUMENT);
  if (best) { /* numba's words: "Ambiguous overloading for <function f at 0x...> (argument types):\n(tied) -> none" */
    SrcLoc def = best->loc;
    diag_error(p->rt->diag, NOLOC, "Ambiguous overloading for <function %s at %s:%u> %s\n%u of kernel %s's signatures "
               "fit the arguments equally well: declare one that fits them better", name,
               def.file ? def.file : p->filename ? p->filename : "?", def.line, sb_cstr(&sigs), tied, name);
  }
  else { /* numba's words, then kfront's: argsig is "void(<argument types>)" */
    size_t n = strlen(argsig);
    bool wrapped = n > 6 && strncmp(argsig, "void(", 5) == 0 && argsig[n - 1] == ')';
    diag_error(p->rt->diag, NOLOC, "No matching definition for argument type(s) %.*s: kernel %s has no "
               "signature that matches them; its signatures are:%s", wrapped ? (int)(n - 6) : (int)n, wrapped ? argsig + 5 : argsig,
               name, sb_cstr(&sigs));
  }
  diag_set_kind(prev);
  sb_free(&sigs);
  return NULL;
}

/* A generic program's kernel of f's name, or NULL. */
static const RtGenericKernel *generic_kernel(const RtProgram *p, const char *name) {
  for (unsigned i = 0; i < p->ngeneric; i++)
    if (strcmp(p->generic[i].name, name) == 0) return &p->generic[i];
  return NULL;
}

/* The parameter types of flat arguments, interned under a guard. */
typedef struct ArgTypesJob {
  IrContext *ir;
  const kf_arg *args;
  unsigned nargs;
  Type **types;
  bool ok;
} ArgTypesJob;

static void arg_types_job(void *arg) {
  ArgTypesJob *j = arg;
  j->ok = true;
  for (unsigned i = 0; i < j->nargs && j->ok; i++) j->ok = (j->types[i] = rt_arg_type(j->ir, &j->args[i])) != NULL;
}

/* A generic program's module for f and these (flat) arguments: the embedder's callback builds it, the verifier and
 * the pipeline make it ready (a refusal, a module that does not verify and one without the kernel are the
 * embedder's input errors). Under the runtime's lock. */
static kf_status generate_module(RtFunction *f, const kf_arg *args, unsigned nargs, const char *argsig,
                                 RtProgModule **out) {
  RtProgram *p = f->p;
  RtRuntime *rt = p->rt;
  *out = NULL;
  const RtGenericKernel *gk = generic_kernel(p, f->name);
  if (gk && gk->nparams >= 0 && (unsigned)gk->nparams != nargs) {
    diag_error_kind(rt->diag, DIAG_KIND_ARGUMENT, NOLOC, "kernel %s takes %d argument%s, not %u", f->name,
                    gk->nparams, gk->nparams == 1 ? "" : "s", nargs);
    return KF_ERROR_INVALID_INPUT;
  }
  Type **types = mem_alloc(sizeof *types * (nargs ? nargs : 1));
  if (!types) return rt_out_of_memory(rt);
  ArgTypesJob j = {rt->ir, args, nargs, types, false};
  if (!diag_guard(rt->diag, arg_types_job, &j)) {
    mem_free(types);
    return KF_ERROR_OUT_OF_MEMORY;
  }
  if (!j.ok) { /* not reached: flat arguments of checked dtypes all have types */
    mem_free(types);
    diag_error(rt->diag, NOLOC, "internal error: an argument of kernel %s has no kir type", f->name);
    return KF_ERROR_INTERNAL;
  }
  Module *m = NULL;
  void *owner = NULL;
  unsigned errors = diag_errors(rt->diag);
  DiagKind prev = diag_set_kind(DIAG_KIND_TYPING); /* the embedder's own reports say their kinds */
  kf_status st = p->gen.make(&p->gen, rt->diag, f->name, types, nargs, &m, &owner);
  diag_set_kind(prev);
  mem_free(types);
  atomic_fetch_add(&rt->compiles, 1);
  if ((st != KF_OK || !m) && owner) p->gen.release(&p->gen, owner);
  if (st == KF_ERROR_OUT_OF_MEMORY) return diag_errors(rt->diag) > errors ? st : rt_out_of_memory(rt);
  if (st != KF_OK || !m) {
    if (diag_errors(rt->diag) == errors)
      diag_error_kind(rt->diag, DIAG_KIND_ARGUMENT, NOLOC, "the specialisation callback of kernel %s %s for %s",
                      f->name, st != KF_OK ? "refused the argument types (it reported no reason)"
                                           : "returned no module", argsig);
    return KF_ERROR_INVALID_INPUT;
  }
  RtProgModule *pm = mem_calloc(1, sizeof *pm);
  if (!pm) {
    p->gen.release(&p->gen, owner);
    return rt_out_of_memory(rt);
  }
  pm->ir = m;
  pm->owner = owner;
  kf_compile_options co = {.struct_size = sizeof co, .verify_each = 1};  /* each pass's output verified */
  co.pipeline = p->gen_pipeline ? p->gen_pipeline : rt->pipeline;
  RtSourceOptions o = {.compile = &co, .target = &rt->dev->target, .passes = rt->passes};
  st = rt_compile_module(rt->diag, m, &o);
  if (st == KF_OK && rt_kir_find_kernels(m, f->name, NULL, 0) == 0) {
    diag_error_kind(rt->diag, DIAG_KIND_INVALID_IR, NOLOC, "the module the specialisation callback built for %s%s "
                    "has no kernel named '%s'", f->name, argsig + 4, f->name);
    st = KF_ERROR_INVALID_INPUT;
  }
  if (st != KF_OK) {
    p->gen.release(&p->gen, owner);
    mem_free(pm);
    return st;
  }
  pm->next = p->modules;
  p->modules = pm;
  *out = pm;
  return KF_OK;
}

/* The kir function (and its module) implementing f for these arguments: compiled if needed. */
static kf_status kir_kernel(RtFunction *f, const kf_arg *args, unsigned nargs, const char *argsig,
                            RtProgModule **pm_out, Op **func) {
  RtProgram *p = f->p;
  bool oom, none;
  if (p->gen.make) { /* a generic program: the embedder's module for these types */
    RtProgModule *pm;
    kf_status st = generate_module(f, args, nargs, argsig, &pm);
    if (st != KF_OK) return st;
    *pm_out = pm;
    *func = pick_kernel(p, pm, f->name, args, nargs, argsig, f->specialized, &oom, &none);
    return *func ? KF_OK : oom ? KF_ERROR_OUT_OF_MEMORY : KF_ERROR_INVALID_INPUT;
  }
  if (p->borrowed) {  /* no kernel of that name: not found; arguments that fit none of its kernels: bad input */
    *pm_out = p->borrowed;
    *func = pick_kernel(p, p->borrowed, f->name, args, nargs, argsig, f->specialized, &oom, &none);
    return *func ? KF_OK : oom ? KF_ERROR_OUT_OF_MEMORY : none ? KF_ERROR_NOT_FOUND : KF_ERROR_INVALID_INPUT;
  }
  kf_status st = find_eager(f);
  if (st != KF_OK) return st;
  if (f->eager) {
    *pm_out = f->eager_module;
    *func = pick_kernel(p, f->eager_module, f->name, args, nargs, argsig, f->specialized, &oom, &none);
    return *func ? KF_OK : oom ? KF_ERROR_OUT_OF_MEMORY : KF_ERROR_INVALID_INPUT;
  }
  RtProgModule *pm;
  st = compile_kernel(p, f->name, argsig, false, &pm);
  if (st != KF_OK) return st;
  *pm_out = pm;
  *func = pick_kernel(p, pm, f->name, args, nargs, argsig, f->specialized, &oom, &none);
  return *func ? KF_OK : oom ? KF_ERROR_OUT_OF_MEMORY : KF_ERROR_INTERNAL;
}

/* ---- GPU code: backend, cache entries --------------------------------------------------------- */

static void choose_backend(RtRuntime *rt) {
  if (rt->backend_chosen) return;
  rt->backend_chosen = true;
  Diag quiet;
  diag_init(&quiet);
  rt->backend = nvvm_load(&quiet) ? KF_BACKEND_NVVM : KF_BACKEND_LLVM; /* LLVM's NVPTX target without libNVVM */
  diag_free(&quiet);
}

/* BeDriverLinker's link: the device's own linker. */
static bool device_link(void *user, const BeLinkInput *inputs, unsigned n, bool lineinfo, StrBuf *cubin, char **log,
                        Diag *diag) {
  RtDevice *dev = user;
  return dev->ops->link(dev, inputs, n, lineinfo, cubin, log, diag);
}

/* The link step of a module calling foreign device functions (cuda.declare_device) or of a program given links:
 * its PTX (with LTO its LTO-IR, optimised with the links) and the program's link inputs made one cubin by nvJitLink
 * (backend/link.c; without nvJitLink by the device's own linker, where it has one), each foreign function a caller,
 * so that one no input defines is reported where kernel `func` calls it. */
static kf_status link_module(RtRuntime *rt, const RtProgram *p, RtProgModule *pm, Op *func, bool lto) {
  const kf_compile_options *in = &p->inputs.opts;
  unsigned nc = 0;
  BeLinkInput *inputs = mem_alloc(sizeof *inputs * (in->nlinks ? in->nlinks : 1));
  BeLinkCaller *callers = be_link_callers(pm->ir, ir_func_name(func), &nc);
  if (!inputs || !callers) {
    mem_free(inputs);
    mem_free(callers);
    return rt_out_of_memory(rt);
  }
  for (unsigned i = 0; i < in->nlinks; i++) {
    const kf_link_input *l = &in->links[i];
    inputs[i] = (BeLinkInput){(BeLinkKind)l->kind, l->name, l->data, l->len};
  }
  BeDriverLinker driver = {rt->dev, device_link};
  BeLinkOptions lo = {.arch = rt->dev->arch, .lto = lto, .lineinfo = ir_op_attr(func, "lineinfo") != NULL,
                      .include_dirs = in->include_dirs, .ninclude_dirs = in->ninclude_dirs,
                      .driver = rt->dev->ops->link ? &driver : NULL};
  StrBuf cubin;
  sb_init(&cubin);
  DiagKind prev = diag_set_kind(DIAG_KIND_BACKEND);
  BeStatus st = be_link(pm->code, pm->code_len, inputs, in->nlinks, &lo, callers, nc, &cubin, rt->diag);
  diag_set_kind(prev);
  mem_free(inputs);
  mem_free(callers);
  if (st != BE_OK) {
    sb_free(&cubin);
    return st == BE_NOT_FOUND ? KF_ERROR_NOT_FOUND : st == BE_OUT_OF_MEMORY ? KF_ERROR_OUT_OF_MEMORY : KF_ERROR_BACKEND;
  }
  pm->image = sb_take(&cubin);
  return pm->image ? KF_OK : rt_out_of_memory(rt);
}

static kf_status compile_ptx(RtRuntime *rt, const RtProgram *p, RtProgModule *pm, Op *func) {
  if (pm->code) return KF_OK;
  choose_backend(rt);
  BackendOptions o;
  be_options_default(&o);
  o.kind = rt->backend == KF_BACKEND_LLVM ? BE_LLVM : BE_NVVM;
  o.arch = rt->dev->arch;
  if (ir_op_attr(func, "lineinfo")) o.lineinfo = true;
  if (ir_op_attr(func, "debug")) o.debuginfo = true; /* numba-cuda's debug=True: DWARF for cuda-gdb */
  o.opt = (int)ir_op_attr_int(func, "opt", o.opt);
  /* linked with foreign code under LTO: libNVVM's LTO-IR (LLVM's NVPTX target has none: its PTX linked as is) */
  o.lto = p->inputs.lto && o.kind == BE_NVVM;
  StrBuf code;
  sb_init(&code);
  DiagKind prev = diag_set_kind(DIAG_KIND_BACKEND);
  BeStatus st = be_compile_ptx(pm->ir, &o, &code, NULL, rt->diag);
  diag_set_kind(prev);
  if (st != BE_OK) {
    sb_free(&code);
    return st == BE_NOT_FOUND      ? KF_ERROR_NOT_FOUND
           : st == BE_UNSUPPORTED  ? KF_ERROR_UNSUPPORTED
           : st == BE_OUT_OF_MEMORY ? KF_ERROR_OUT_OF_MEMORY
                                   : KF_ERROR_BACKEND;
  }
  pm->code_len = code.len;
  pm->code = sb_take(&code);
  if (!pm->code) return rt_out_of_memory(rt);
  if (!p->inputs.links_code) return KF_OK;
  kf_status ls = link_module(rt, p, pm, func, o.lto);
  if (ls != KF_OK) { /* the next compile of this module tries the link again */
    mem_free(pm->code);
    pm->code = NULL;
  }
  return ls;
}

/* Cache payload: a manifest, then the PTX.
 *   kfront-kernel 4\nentry NAME\nplan PLAN\nparams N\n<kir type>\n...[variant]signature SIG\n
 *   [warnings N BYTES\n<text>]ptx\n<PTX text>
 * params lists every kir parameter (the plan's hidden ones included, last). A kernel with a tiled variant
 * (RtKernel.variant: in the same PTX) has its entry, plan and params the same way before `ptx`:
 *   variant NAME\nplan PLAN\nparams N\n<kir type>\n...
 * signature is the kernel's Numba signature (which spells tuples, whose elements are its parameters, and readonly
 * arrays; the variant's too). warnings: the N warnings its compile gave, rendered (BYTES of text), given again on
 * a hit, as a compile would give them (diag_replay_warnings). */
enum { MANIFEST_FORMAT = 4, MANIFEST_MAX_PARAMS = 512 };

static void payload_kernel(StrBuf *out, const RtKernel *k) {
  rt_plan_print(&k->plan, out);
  sb_printf(out, "\nparams %u\n", k->nparams);
  for (unsigned i = 0; i < k->nparams; i++) {
    ty_print(k->params[i], out);
    sb_putc(out, '\n');
  }
}

static void payload_build(StrBuf *out, const RtKernel *k, const char *ptx, const char *warnings, size_t wlen,
                          unsigned nwarnings) {
  sb_printf(out, "kfront-kernel %d\nentry %s\nplan ", MANIFEST_FORMAT, k->entry);
  payload_kernel(out, k);
  if (k->variant) {
    sb_printf(out, "variant %s\nplan ", k->variant->entry);
    payload_kernel(out, k->variant);
  }
  sb_printf(out, "signature %s\n", k->signature);
  if (nwarnings && wlen) {
    sb_printf(out, "warnings %u %zu\n", nwarnings, wlen);
    sb_putn(out, warnings, wlen);
  }
  sb_puts(out, "ptx\n");
  sb_puts(out, ptx);
}

/* Reads one line starting at *pos; returns its start and length, advances past the newline. */
static const char *next_line(const char *s, size_t len, size_t *pos, size_t *n) {
  if (*pos >= len) return NULL;
  const char *start = s + *pos;
  const char *nl = memchr(start, '\n', len - *pos);
  if (!nl) return NULL;
  *n = (size_t)(nl - start);
  *pos += *n + 1;
  return start;
}

static bool line_is(const char *line, size_t n, const char *prefix) {
  size_t k = strlen(prefix);
  return line && n >= k && memcmp(line, prefix, k) == 0;
}

typedef struct ManifestKernel {
  char entry[256];
  RtLaunchPlan plan;
  unsigned nparams;
  Type *params[MANIFEST_MAX_PARAMS];
} ManifestKernel;

typedef struct Manifest {
  ManifestKernel k, variant;
  bool has_variant;
  char signature[1024];         /* empty: spelt from params */
  const char *warnings;         /* the compile's warnings (nwarnings of them, wlen bytes), or NULL */
  size_t wlen;
  unsigned nwarnings;
  const char *ptx;
} Manifest;

/* NAME (after `prefix`), then plan, params and their types. */
static bool payload_parse_kernel(IrContext *ir, const char *s, size_t len, size_t *pos, const char *prefix,
                                 ManifestKernel *m) {
  size_t n, k = strlen(prefix);
  const char *line = next_line(s, len, pos, &n);
  if (!line_is(line, n, prefix) || n == k || n - k >= sizeof m->entry) return false;
  memcpy(m->entry, line + k, n - k);
  m->entry[n - k] = 0;
  line = next_line(s, len, pos, &n);
  if (!line_is(line, n, "plan ") || !rt_plan_parse(line + 5, n - 5, &m->plan)) return false;
  line = next_line(s, len, pos, &n);
  if (!line_is(line, n, "params ") || n == 7) return false;
  char num[16];
  if (n - 7 >= sizeof num) return false;
  memcpy(num, line + 7, n - 7);
  num[n - 7] = 0;
  char *end;
  unsigned long np = strtoul(num, &end, 10);
  if (*end || np > MANIFEST_MAX_PARAMS || np < m->plan.nhidden) return false;
  m->nparams = (unsigned)np;
  for (unsigned i = 0; i < m->nparams; i++) {
    line = next_line(s, len, pos, &n);
    if (!line) return false;
    size_t tpos = 0;
    m->params[i] = ty_parse(ir, line, n, &tpos);
    if (!m->params[i] || tpos != n) return false;
  }
  return true;
}

static bool payload_parse(IrContext *ir, const char *s, size_t len, Manifest *m) {
  size_t pos = 0, n;
  char head[32];
  snprintf(head, sizeof head, "kfront-kernel %d", MANIFEST_FORMAT);
  const char *line = next_line(s, len, &pos, &n);
  if (!line || n != strlen(head) || memcmp(line, head, n) != 0) return false;
  if (!payload_parse_kernel(ir, s, len, &pos, "entry ", &m->k)) return false;
  size_t at = pos;
  line = next_line(s, len, &at, &n);
  if (line_is(line, n, "variant ")) {
    if (!payload_parse_kernel(ir, s, len, &pos, "variant ", &m->variant)) return false;
    m->has_variant = true;
  }
  line = next_line(s, len, &pos, &n);
  m->signature[0] = 0;
  if (line_is(line, n, "signature ")) {
    if (n - 10 >= sizeof m->signature) return false;
    memcpy(m->signature, line + 10, n - 10);
    m->signature[n - 10] = 0;
    line = next_line(s, len, &pos, &n);
  }
  m->warnings = NULL;
  m->wlen = 0;
  m->nwarnings = 0;
  if (line_is(line, n, "warnings ")) {
    char num[48];
    if (n - 9 >= sizeof num) return false;
    memcpy(num, line + 9, n - 9);
    num[n - 9] = 0;
    unsigned long long nw, bytes;
    char tail;
    if (sscanf(num, "%llu %llu%c", &nw, &bytes, &tail) != 2 || nw == 0 || nw > 100000 || bytes > len - pos)
      return false;
    m->warnings = s + pos;
    m->wlen = (size_t)bytes;
    m->nwarnings = (unsigned)nw;
    pos += (size_t)bytes;
    line = next_line(s, len, &pos, &n);
  }
  if (!line || n != 3 || memcmp(line, "ptx", 3) != 0) return false;
  m->ptx = s + pos;  /* the payload is NUL-terminated by rt_cache_get */
  return true;
}

/* The manifest read under a guard: its types are interned in the runtime's IrContext (rt.h). */
typedef struct ManifestJob {
  IrContext *ir;
  const char *s;
  size_t len;
  Manifest *m;
  bool ok;
} ManifestJob;

static void manifest_job(void *arg) {
  ManifestJob *j = arg;
  j->ok = payload_parse(j->ir, j->s, j->len, j->m);
}

bool rt_program_cache_key(RtProgram *p, const char *function, const char *argsig, RtCacheKey *key) {
  RtRuntime *rt = p->rt;
  choose_backend(rt);
  StrBuf options;  /* the pipeline is the user's text: no fixed buffer, so no two keys alike by truncation */
  sb_init(&options);
  sb_printf(&options, "backend=%s;bounds_check=%d;first_line=%u;inputs=%s;pipeline=%s",
            rt->backend == KF_BACKEND_NVVM ? "nvvm" : "llvm", p->inputs.opts.bounds_check, p->first_line,
            p->inputs.digest, p->inputs.opts.pipeline ? p->inputs.opts.pipeline : rt->pipeline);
  char arch[16];
  snprintf(arch, sizeof arch, "sm_%u", rt->dev->arch);
  RtCacheKeyParts parts = {.filename = p->filename, .source = p->source, .source_len = p->len, .function = function,
                           .signature = argsig, .options = sb_cstr(&options), .arch = arch};
  bool ok = !sb_failed(&options);  /* a key of a truncated text could be another program's */
  if (ok) rt_cache_key(key, &parts);
  else rt_out_of_memory(rt);
  sb_free(&options);
  return ok;
}

/* ---- kernels ----------------------------------------------------------------------------------- */

/* A kernel with every kir parameter (params, nparams >= plan->nhidden: the plan's hidden ones last), not yet
 * loaded. NULL when out of memory. */
static RtKernel *kernel_new(RtFunction *f, const char *entry, Type *const *params, unsigned nparams,
                            const RtLaunchPlan *plan, const char *signature) {
  RtKernel *k = mem_calloc(1, sizeof *k);
  if (!k) return NULL;
  k->f = f;
  k->entry = mem_strdup(entry);
  k->params = mem_alloc(sizeof *k->params * (nparams ? nparams : 1));
  k->nparams = nparams;
  k->nuser = nparams - plan->nhidden;
  k->plan = *plan;
  StrBuf sig;
  sb_init(&sig);
  if (signature && *signature) sb_puts(&sig, signature);
  else rt_signature_numba(params, k->nuser, NULL, &sig);
  k->signature = sb_take(&sig);
  k->tuple_args = signature && *signature;
  if (!k->entry || !k->params || !k->signature) {
    kernel_free(f->p->rt, k);
    return NULL;
  }
  memcpy(k->params, params, sizeof *k->params * nparams);
  k->nslots = rt_param_slots(params, nparams);
  return k;
}

/* Looks the kernel's entry up in a loaded module. */
static kf_status attach(RtKernel *k, RtDevModule *m, Op *func) {
  RtRuntime *rt = k->f->p->rt;
  kf_status fst = rt->dev->ops->function(rt->dev, m, k->entry, func, &k->fn, rt->diag);
  if (fst != KF_OK) return fst;
  k->module = m;
  k->fn.kernel = k->f->name;
  k->fn.entry = k->entry;
  k->fn.cooperative = k->plan.cooperative;
  if (k->f->has_carveout && rt->dev->ops->prefer_carveout)
    return rt->dev->ops->prefer_carveout(rt->dev, &k->fn, k->f->carveout, rt->diag);
  return KF_OK;
}

/* A kernel from a disk/memory cache entry: NULL when the entry is unreadable (compile afresh), or with *st
 * the error (out of memory, the device's). */
static RtKernel *kernel_from_cache(RtFunction *f, const RtCacheKey *key, kf_status *st) {
  RtRuntime *rt = f->p->rt;
  char *payload;
  size_t plen;
  RtCacheResult hit = rt_cache_get(&rt->cache, key, &payload, &plen);
  if (hit == RT_CACHE_MISS) return NULL;
  Manifest *m = mem_calloc(1, sizeof *m);
  RtKernel *k = NULL;
  ManifestJob j = {rt->ir, payload, plen, m, false};
  if (!m) *st = rt_out_of_memory(rt);
  else if (!diag_guard(rt->diag, manifest_job, &j)) *st = KF_ERROR_OUT_OF_MEMORY;
  else if (j.ok && !(k = kernel_new(f, m->k.entry, m->k.params, m->k.nparams, &m->k.plan, m->signature)))
    *st = rt_out_of_memory(rt);
  else if (k && m->has_variant &&
           !(k->variant = kernel_new(f, m->variant.entry, m->variant.params, m->variant.nparams, &m->variant.plan,
                                     m->signature)))
    *st = rt_out_of_memory(rt);
  if (k && *st != KF_OK) {
    kernel_free(rt, k);
    k = NULL;
  }
  if (k) {
    atomic_store(&k->cache_source, hit == RT_CACHE_HIT_MEMORY ? 1 : 2);
    diag_replay_warnings(rt->diag, m->warnings, m->wlen, m->nwarnings); /* what the compile it stands for said */
    RtDevModule *dm = NULL;
    *st = rt->dev->ops->load(rt->dev, NULL, m->ptx, &dm, rt->diag);
    k->owns_module = dm != NULL;
    if (*st == KF_OK) *st = attach(k, dm, NULL);
    if (*st == KF_OK && k->variant) *st = attach(k->variant, dm, NULL);
    if (*st != KF_OK) {
      kernel_free(rt, k);
      k = NULL;
    }
  }
  mem_free(m);
  mem_free(payload);
  return k;
}

/* Compiles (or finds, for eager and borrowed modules) the kernel for these arguments. */
/* Whether an argument is, or holds, a scalar with a type spelling (an enum member) or a named tuple. */
static bool arg_typed(const kf_arg *a) {
  if (a->kind == KF_ARG_SCALAR) return a->type != NULL;
  if (a->kind != KF_ARG_TUPLE) return false;
  if (a->type) return true;
  for (unsigned i = 0; i < a->nitems; i++)
    if (arg_typed(&a->items[i])) return true;
  return false;
}

static kf_status make_kernel(RtFunction *f, const kf_arg *args, unsigned nargs, const char *argsig, RtKernel **out) {
  RtProgram *p = f->p;
  RtRuntime *rt = p->rt;
  RtDevice *dev = rt->dev;
  *out = NULL;
  RtCacheKey key;
  bool use_cache = p->source != NULL && !dev->runs_kir && !p->inputs.captures_device_memory && !p->inputs.links_code &&
                   !p->inputs.opts.module_callback;
  if (use_cache) {
    if (!rt_program_cache_key(f->p, f->name, argsig, &key)) return KF_ERROR_OUT_OF_MEMORY;
    kf_status st = KF_OK;
    RtKernel *k = kernel_from_cache(f, &key, &st);
    if (st != KF_OK) return st;
    if (k) {
      *out = k;
      return KF_OK;
    }
  }
  RtProgModule *pm;
  Op *func;
  DiagMark before = diag_mark(rt->diag); /* the compile's warnings go into the cache entry, given again on a hit */
  kf_status st = kir_kernel(f, args, nargs, argsig, &pm, &func);
  if (st != KF_OK) return st;
  RtKernel *known = ptrmap_get(&f->by_func, func);
  if (known) {
    *out = known;
    return KF_OK;
  }
  RtLaunchPlan plan;
  if (!rt_plan_from_kir(func, &plan, rt->diag)) return KF_ERROR_INVALID_INPUT;
  unsigned np;
  Type *const *params = rt_kir_params(func, &np);
  if (np < plan.nhidden) {
    diag_error(rt->diag, NOLOC, "internal error: kernel %s has %u parameters and a launch plan with %u hidden ones",
               f->name, np, plan.nhidden);
    return KF_ERROR_INTERNAL;
  }
  /* a kernel taking tuples: its signature from the arguments' own types (arg_types), not the flat parameters */
  StrBuf tsig;
  sb_init(&tsig);
  Attr *ats = ir_op_attr(func, "arg_types");
  if (ats && ats->kind == ATTR_ARRAY) {
    Type **ts = mem_alloc(sizeof *ts * (ats->arr.n ? ats->arr.n : 1));
    for (unsigned i = 0; ts && i < ats->arr.n; i++) ts[i] = ats->arr.elems[i].kind == ATTR_TYPE ? ats->arr.elems[i].type : NULL;
    bool ok = ts != NULL;
    for (unsigned i = 0; ok && i < ats->arr.n; i++) ok = ts[i] != NULL;
    if (ok) rt_signature_numba(ts, ats->arr.n, NULL, &tsig);
    mem_free(ts);
  } else if (ir_op_attr(func, "readonly_params")) { /* readonly arrays declared: spelt so (Array(..., readonly=True)) */
    rt_signature_numba(params, np - plan.nhidden, ir_op_attr(func, "readonly_params"), &tsig);
  }
  RtKernel *k = sb_failed(&tsig) ? NULL : kernel_new(f, ir_func_name(func), params, np, &plan, sb_cstr(&tsig));
  sb_free(&tsig);
  if (!k) return rt_out_of_memory(rt);
  for (unsigned i = 0; i < nargs; i++)
    if (arg_typed(&args[i])) { /* typed (enum) arguments, also inside tuples: the kernel is theirs */
      char *sig = mem_strdup(argsig);
      if (!sig) {
        kernel_free(rt, k);
        return rt_out_of_memory(rt);
      }
      mem_free(k->signature);
      k->signature = sig;
      break;
    }
  /* its tiled variant, in the same module */
  const char *vname = ir_op_attr_str(func, "tiled_variant");
  Op *vfunc = vname ? ir_module_lookup(pm->ir, vname) : NULL;
  if (vfunc) {
    RtLaunchPlan vplan;
    unsigned vnp;
    Type *const *vparams = rt_kir_params(vfunc, &vnp);
    if (!rt_plan_from_kir(vfunc, &vplan, rt->diag)) {
      kernel_free(rt, k);
      return KF_ERROR_INVALID_INPUT;
    }
    if (vnp < vplan.nhidden || vnp - vplan.nhidden != k->nuser) {
      diag_error(rt->diag, NOLOC, "internal error: the variant %s of kernel %s takes other parameters", vname, f->name);
      kernel_free(rt, k);
      return KF_ERROR_INTERNAL;
    }
    if (!(k->variant = kernel_new(f, vname, vparams, vnp, &vplan, k->tuple_args ? k->signature : NULL))) {
      kernel_free(rt, k);
      return rt_out_of_memory(rt);
    }
  }
  if (!dev->runs_kir) {
    st = compile_ptx(rt, p, pm, func);
    if (st == KF_OK && use_cache) {
      /* a cache entry that cannot be written (out of memory, a failed disk write) is not an error */
      StrBuf payload;
      sb_init(&payload);
      StrBuf warned;
      sb_init(&warned);
      unsigned nw = diag_warnings_since(rt->diag, &before, &warned);
      payload_build(&payload, k, pm->code, sb_cstr(&warned), warned.len, nw);
      sb_free(&warned);
      if (!sb_failed(&payload)) rt_cache_put(&rt->cache, &key, sb_cstr(&payload), payload.len);
      sb_free(&payload);
    }
  }
  if (st == KF_OK && !pm->dev) st = dev->ops->load(dev, pm->ir, pm->image ? pm->image : pm->code, &pm->dev, rt->diag);
  if (st == KF_OK) st = attach(k, pm->dev, func);
  if (st == KF_OK && k->variant) st = attach(k->variant, pm->dev, vfunc);
  if (st == KF_OK) k->home = pm;
  if (st == KF_OK && k->variant) k->variant->home = pm;
  if (st == KF_OK && !ptrmap_put(&f->by_func, func, k)) st = rt_out_of_memory(rt);
  if (st != KF_OK) {
    kernel_free(rt, k);
    return st;
  }
  *out = k;
  return KF_OK;
}

/* The miss path, under the runtime's lock: the kernel for fp (found by its signature, or made) and its
 * dispatch entry. */
static kf_status specialize_locked(RtFunction *f, const kf_arg *args, unsigned nargs, const RtFingerprint *fp,
                                   RtDispatchEntry **out) {
  RtRuntime *rt = f->p->rt;
  RtDispatchEntry *e = rt_dispatch_find(&f->dispatch, fp);
  if (e) {
    *out = e;
    return KF_OK;
  }
  StrBuf argsig;
  sb_init(&argsig);
  if (!rt_args_signature(args, nargs, &argsig, rt->diag)) {
    bool oom = sb_failed(&argsig);
    sb_free(&argsig);
    return oom ? rt_out_of_memory(rt) : KF_ERROR_INVALID_INPUT;
  }
  if (sb_failed(&argsig)) {
    sb_free(&argsig);
    return rt_out_of_memory(rt);
  }
  RtKernel *k = strmap_get(&f->by_signature, sb_cstr(&argsig));
  kf_status st = KF_OK;
  if (!k) {
    bool fresh;
    kf_arg stack[16], *flat = (kf_arg *)args;
    unsigned nflat = nargs;
    if (rt_args_need_flattening(args, nargs)) st = rt_flatten_args(args, nargs, stack, 16, &flat, &nflat, rt->diag);
    if (st == KF_OK) st = make_kernel(f, flat, nflat, sb_cstr(&argsig), &k);
    if (flat != args && flat != stack) mem_free(flat);
    if (st == KF_ERROR_OUT_OF_MEMORY) st = rt_out_of_memory(rt);
    if (st == KF_OK) {
      fresh = true;
      for (RtKernel *o = f->kernels; o; o = o->next) fresh &= o != k;
      if (fresh) {
        k->next = f->kernels;
        f->kernels = k;
      }
      char *key = sb_take(&argsig);
      if (!key || !strmap_put(&f->by_signature, key, k)) {
        mem_free(key);
        st = rt_out_of_memory(rt);
      }
    }
  }
  sb_free(&argsig);
  if (st != KF_OK) return st;
  e = rt_dispatch_insert(&f->dispatch, fp, k);
  if (!e) return rt_out_of_memory(rt);
  *out = e;
  return KF_OK;
}

kf_status rt_function_specialize(RtFunction *f, const kf_arg *args, unsigned nargs, RtKernel **out,
                                 RtDispatchEntry **entry) {
  *out = NULL;
  if (entry) *entry = NULL;
  RtRuntime *rt = f->p->rt;
  if (nargs && !args) {
    diag_error(rt->diag, NOLOC, "%u arguments announced but none given", nargs);
    return KF_ERROR_INVALID_INPUT;
  }
  RtFingerprint fp;
  if (!rt_fingerprint(args, nargs, &fp, rt->diag)) return KF_ERROR_INVALID_INPUT;
  RtDispatchEntry *e = rt_dispatch_find(&f->dispatch, &fp);
  kf_status st = KF_OK;
  if (!e) {
    DiagKind prev = diag_set_kind(DIAG_KIND_DEVICE);  /* loading code; compiles say their own kinds */
    pthread_mutex_lock(&rt->lock);
    st = specialize_locked(f, args, nargs, &fp, &e);
    pthread_mutex_unlock(&rt->lock);
    diag_set_kind(prev);
    if (st != KF_OK) return st;
  }
  *out = e->kernel;
  if (entry) *entry = e;
  return KF_OK;
}

/* ---- what a function is ------------------------------------------------------------------------ */

static kf_function_kind kind_from_kir(Op *kernel) {
  const char *gen = ir_op_attr_str(kernel, "generated");
  if (!gen) return KF_FUNCTION_KERNEL;
  if (strcmp(gen, "reduce") == 0) return KF_FUNCTION_REDUCE;
  if (strcmp(gen, "vectorize") == 0) return KF_FUNCTION_VECTORIZE;
  return KF_FUNCTION_GUVECTORIZE;
}

/* The frontend's reading of the source's top level, under a guard. */
typedef struct KindJob {
  IrContext *ir;
  Diag *diag;
  kf_source main;
  const char *name;
  FeOptions fo;            /* the program's options: its extra sources, bindings and function specs */
  FeFunctionKind kind;
  bool ok;
} KindJob;

static void kind_job(void *arg) {
  KindJob *j = arg;
  j->ok = fe_function_kind(j->ir, j->diag, &j->main, &j->fo, j->name, &j->kind);
}

/* Under the runtime's lock. */
static kf_status find_kind(RtFunction *f) {
  RtProgram *p = f->p;
  Diag *diag = p->rt->diag;
  if (p->gen.make) {
    if (!generic_kernel(p, f->name)) {
      diag_error_kind(diag, DIAG_KIND_NOT_FOUND, NOLOC, "no kernel named '%s' in the generic program", f->name);
      return KF_ERROR_NOT_FOUND;
    }
    f->kind = KF_FUNCTION_KERNEL;
    return KF_OK;
  }
  if (p->borrowed) {
    Op *k;
    if (rt_kir_find_kernels(p->borrowed->ir, f->name, &k, 1) == 0) {
      diag_error_kind(diag, DIAG_KIND_NOT_FOUND, NOLOC, "no kernel named '%s' in the module", f->name);
      return KF_ERROR_NOT_FOUND;
    }
    f->kind = (int)kind_from_kir(k);
    return KF_OK;
  }
  KindJob j = {p->rt->ir, diag, {p->filename, p->source, p->len, p->first_line}, f->name,
               {.compile = &p->inputs.opts}, FE_FUNCTION_NONE, false};
  if (!diag_guard(diag, kind_job, &j)) return KF_ERROR_OUT_OF_MEMORY;
  if (!j.ok) return KF_ERROR_INVALID_INPUT;
  FeFunctionKind fk = j.kind;
  switch (fk) {
  case FE_FUNCTION_NONE:
    diag_error_kind(diag, DIAG_KIND_NOT_FOUND, NOLOC, "no function named '%s' in %s", f->name, p->filename);
    return KF_ERROR_NOT_FOUND;
  case FE_FUNCTION_PYTHON:
    diag_error_kind(diag, DIAG_KIND_NOT_FOUND, NOLOC, "'%s' in %s is host code: it has no @cuda.jit, @cuda.reduce, @vectorize or @guvectorize "
               "(target=\"cuda\") decorator", f->name, p->filename);
    return KF_ERROR_NOT_FOUND;
  case FE_FUNCTION_KERNEL: f->kind = KF_FUNCTION_KERNEL; break;
  case FE_FUNCTION_DEVICE: f->kind = KF_FUNCTION_DEVICE; break;
  case FE_FUNCTION_REDUCE: f->kind = KF_FUNCTION_REDUCE; break;
  case FE_FUNCTION_VECTORIZE: f->kind = KF_FUNCTION_VECTORIZE; break;
  case FE_FUNCTION_GUVECTORIZE: f->kind = KF_FUNCTION_GUVECTORIZE; break;
  }
  return KF_OK;
}

unsigned rt_function_kernels(RtFunction *f, RtKernel **out, unsigned max) {
  RtRuntime *rt = f->p->rt;
  pthread_mutex_lock(&rt->lock);  /* kernels are added under it */
  unsigned n = 0;
  for (RtKernel *k = f->kernels; k; k = k->next) n++;
  unsigned i = n;
  for (RtKernel *k = f->kernels; k; k = k->next) {  /* newest first in the list */
    i--;
    if (i < max) out[i] = k;
  }
  pthread_mutex_unlock(&rt->lock);
  return n;
}

kf_status rt_function_kind(RtFunction *f, kf_function_kind *out) {
  RtRuntime *rt = f->p->rt;
  pthread_mutex_lock(&rt->lock);
  kf_status st = f->kind >= 0 ? KF_OK : find_kind(f);
  pthread_mutex_unlock(&rt->lock);
  *out = st == KF_OK ? (kf_function_kind)f->kind : KF_FUNCTION_KERNEL;
  return st;
}

kf_status rt_function_eager_kernels(RtFunction *f, Op *const **out, unsigned *n) {
  RtProgram *p = f->p;
  RtRuntime *rt = p->rt;
  *out = NULL;
  *n = 0;
  kf_status st = KF_OK;
  pthread_mutex_lock(&rt->lock);
  if (!f->eager_kernels && p->gen.make) {
    diag_error(rt->diag, NOLOC, "'%s' is a kernel of a generic program: it has no kernels compiled from signatures",
               f->name);
    st = KF_ERROR_INVALID_INPUT;
  } else if (!f->eager_kernels) {
    RtProgModule *pm = p->borrowed;
    if (!pm) {
      st = find_eager(f);
      pm = st == KF_OK && f->eager ? f->eager_module : NULL;
    }
    unsigned count = pm ? rt_kir_find_kernels(pm->ir, f->name, NULL, 0) : 0;
    if (st != KF_OK) {
      /* out of memory: reported */
    } else if (count == 0) {
      /* compiled again, not quietly, for the reason (a lazy kernel has no eager signatures) */
      RtProgModule *unused;
      kf_status cst = p->borrowed ? KF_OK : compile_kernel(p, f->name, NULL, false, &unused);
      if (cst == KF_OK)
        diag_error(rt->diag, NOLOC, "'%s' has no kernels compiled from its decorator's signatures", f->name);
      st = cst == KF_ERROR_OUT_OF_MEMORY ? cst : KF_ERROR_INVALID_INPUT;
    } else {
      f->eager_kernels = mem_alloc(sizeof *f->eager_kernels * count);
      if (!f->eager_kernels) st = rt_out_of_memory(rt);
      else f->neager_kernels = rt_kir_find_kernels(pm->ir, f->name, f->eager_kernels, count);
    }
  }
  pthread_mutex_unlock(&rt->lock);
  if (st == KF_OK) {
    *out = f->eager_kernels;
    *n = f->neager_kernels;
  }
  return st;
}
