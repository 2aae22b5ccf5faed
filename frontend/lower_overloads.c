/* lower_overloads.c — calls of overloaded functions: a name the embedder bound to KF_VALUE_OVERLOAD (numba's
 * @overload(func): a typing function of the argument types that returns the implementation to compile).
 *
 * A call lowers its arguments once, spells their types as signatures spell them (kfront.h: kf_overload_resolver) and
 * asks the process's resolver for an implementation: a self-contained set of sources, bindings and function specs,
 * read here as sources of their own (fresh source indices, so their functions' symbols never meet the program's) that
 * see their own bindings only (FeSource.bindings). Its function is then called as a device function with the arguments
 * already lowered, so it is instantiated per argument shapes like any other. Each (path, types, keywords) is resolved
 * once per compile: the loops' speculative passes and a second call with the same types reuse the answer, as numba
 * caches a typing template's result per signature. A resolver's error, or no resolver, is a typing error at the
 * call. */
#include <string.h>

#include "frontend/lower.h"
#include "utils/mem.h"

static kf_overload_resolver the_resolver;
static void *the_resolver_user;

void kf_set_overload_resolver(kf_overload_resolver resolver, void *user) {
  the_resolver = resolver;
  the_resolver_user = user;
}

/* ---- argument types, as signatures spell them --------------------------------------------------------------- */

/* Whether signatures spell t: not records (nor arrays of them), vectors or slices, nor tuples holding them. */
static bool spelt_by_signatures(const Type *t) {
  switch (t->kind) {
  case TY_RECORD: return false;
  case TY_ARRAY: return t->elem->kind != TY_RECORD;
  case TY_TUPLE:
    if (t->vector || t->slice) return false;
    for (unsigned i = 0; i < t->n; i++)
      if (!spelt_by_signatures(t->elems[i])) return false;
    return true;
  default: return true;
  }
}

/* t as signatures spell it (nb_type_signature), or opaque(what it is) for the typing function's error. */
static void spell_type(const Type *t, StrBuf *out) {
  if (spelt_by_signatures(t)) {
    nb_type_signature(t, out);
    return;
  }
  sb_puts(out, "opaque(");
  nb_type_name(t, out);
  sb_putc(out, ')');
}

/* The type of argument v as kf_overload_resolver spells it. */
static void spell_arg(Lower *L, const FeVal *v, StrBuf *out) {
  switch (v->kind) {
  case FV_FUNC: sb_printf(out, "function(%s)", v->func->name); return;
  case FV_CLOSURE: sb_printf(out, "function(%s)", v->clo->fn->name); return;
  case FV_OVERLOAD: sb_printf(out, "function(%s)", v->str.s); return;
  case FV_NONE: sb_puts(out, "none"); return;
  case FV_VAL:
    if (v->enumc) {
      sb_puts(out, v->enumc->spelling);
      return;
    }
    break;
  case FV_TUPLE: {
    bool enums = false; /* a tuple holding enum members or functions: its items one by one */
    for (unsigned i = 0; i < v->tup.n; i++)
      enums |= v->tup.elems[i].kind != FV_VAL || v->tup.elems[i].enumc != NULL;
    if (!v->type || enums) {
      sb_puts(out, "Tuple((");
      for (unsigned i = 0; i < v->tup.n; i++) {
        if (i) sb_puts(out, ", ");
        spell_arg(L, &v->tup.elems[i], out);
      }
      sb_puts(out, v->tup.n == 1 ? ",))" : "))");
      return;
    }
    break;
  }
  default: break;
  }
  Type *t = v->kind == FV_VIEW ? v->type : lw_fv_type(L, v);
  if (t) spell_type(t, out);
  else sb_printf(out, "opaque(%s)", lw_vname(L, v));
}

/* ---- implementations -------------------------------------------------------------------------------------------- */

/* Reads a resolution's sources as sources of their own: fe's sources, bindings and specs stand aside while they are
 * read (embed.c and module.c read what fe holds), and are put back. The implementation's FeFunc, or NULL after *why. */
static FeFunc *read_resolution(FeCtx *fe, const kf_resolution *r, const char **why) {
  if (!r->nsources || !r->sources || !r->function) {
    *why = "the overload resolver gave no implementation";
    return NULL;
  }
  kf_compile_options given = {.bindings = r->bindings, .nbindings = r->nbindings, .functions = r->functions,
                              .nfunctions = r->nfunctions};
  FeOptions sub = {.compile = &given};
  const FeOptions *opts = fe->opts;
  FeSource *srcs = fe->srcs;
  unsigned nsrcs = fe->nsrcs, nbinds = fe->nbinds, nfuncs0 = fe->nfuncs;
  FeBinding *binds = fe->binds;
  StrMap bindings = fe->bindings;
  bool *spec_found = fe->spec_found;
  unsigned errors = fe->diag->nerrors;

  fe->opts = &sub;
  fe->nsrcs = r->nsources;
  fe->srcs = ARENA_ARRAY(&fe->arena, FeSource, r->nsources);
  fe->nbinds = 0;
  strmap_init(&fe->bindings);
  embed_begin(fe);
  StrMap *own = ARENA_NEW(&fe->arena, StrMap);
  *own = fe->bindings;
  for (unsigned i = 0; i < r->nsources; i++) {
    kf_source ks = r->sources[i];
    char *text = arena_alloc(&fe->arena, ks.len + 1); /* quoted by diagnostics until the compile ends */
    if (ks.len) memcpy(text, ks.text, ks.len);
    text[ks.len] = 0;
    ks.text = text;
    fe->srcs[i].bindings = own;
    fe_read_source(fe, &fe->srcs[i], i, &ks);
    if (fe->nresolved == fe->resolved_cap) {
      fe->resolved_cap = fe->resolved_cap ? 2 * fe->resolved_cap : 8;
      FeSource **n = ARENA_ARRAY(&fe->arena, FeSource *, fe->resolved_cap);
      if (fe->nresolved) memcpy(n, fe->resolved, sizeof *n * fe->nresolved);
      fe->resolved = n;
    }
    fe->resolved[fe->nresolved++] = &fe->srcs[i];
  }
  if (fe->diag->nerrors == errors) embed_after_read(fe);
  FeFunc *impl = fe->diag->nerrors == errors ? fe_find_func(fe, &fe->srcs[0], r->function) : NULL;
  if (!impl && fe->diag->nerrors == errors) {
    FeVal *g = strmap_get(&fe->srcs[0].globals, r->function);
    *why = g && g->kind == FV_PYFUNC ? "the overload's implementation is not a device function"
                                     : "the overload resolver's source does not define its implementation";
  } else if (!impl) {
    *why = "the overload's implementation could not be read (see the errors above)";
  }
  /* indices after every source so far, so that their functions' symbols never meet another source's */
  for (unsigned i = 0; i < r->nsources; i++) fe->srcs[i].index = nsrcs + fe->resolved_index++;
  for (unsigned i = nfuncs0; i < fe->nfuncs; i++) fe->funcs[i]->sym = fe_func_symbol(fe, fe->funcs[i]);

  fe->opts = opts;
  fe->srcs = srcs;
  fe->nsrcs = nsrcs;
  fe->binds = binds;
  fe->nbinds = nbinds;
  fe->bindings = bindings;
  fe->spec_found = spec_found;
  if (impl && impl->kind == FN_KERNEL) impl->kind = FN_DEVICE; /* called from a kernel: a device function */
  return impl;
}

FeFunc *fe_overload_impl(FeCtx *fe, const char *path, const char *const *types, unsigned nargs,
                         const char *const *kw, unsigned nkw, const char **why) {
  StrBuf key;
  sb_init(&key);
  sb_printf(&key, "%s(", path);
  for (unsigned i = 0; i < nargs + nkw; i++)
    sb_printf(&key, "%s%s%s%s", i ? ", " : "", i >= nargs ? kw[i - nargs] : "", i >= nargs ? "=" : "", types[i]);
  sb_putc(&key, ')');
  const char *k = fe_intern(fe, sb_cstr(&key));
  sb_free(&key);
  if (!fe->overloads) {
    fe->overloads = ARENA_NEW(&fe->arena, StrMap);
    strmap_init(fe->overloads);
  }
  const char **known = strmap_get(fe->overloads, k); /* [0] the error, or NULL with the function in [1] */
  if (known) {
    *why = known[0];
    return (FeFunc *)known[1];
  }
  kf_resolution r = {0};
  FeFunc *impl = NULL;
  if (!the_resolver) {
    *why = "no overload resolver is set (kf_set_overload_resolver)";
  } else {
    the_resolver(the_resolver_user, path, types, nargs, kw, nkw, &r);
    if (r.error) *why = fe_intern(fe, r.error);
    else impl = read_resolution(fe, &r, why);
    if (r.release) r.release(r.release_data);
  }
  known = ARENA_ARRAY(&fe->arena, const char *, 2);
  known[0] = impl ? NULL : *why;
  known[1] = (const char *)impl;
  strmap_put(fe->overloads, k, known);
  return impl;
}

void fe_overloads_free(FeCtx *fe) {
  for (unsigned i = 0; i < fe->nresolved; i++) {
    FeSource *s = fe->resolved[i];
    diag_remove_source(fe->diag, s->text);
    strmap_free(&s->globals);
  }
  for (unsigned i = 0; i < fe->nresolved; i++) /* one bindings map per resolution, shared by its sources */
    if (fe->resolved[i]->bindings && (i == 0 || fe->resolved[i - 1]->bindings != fe->resolved[i]->bindings))
      strmap_free(fe->resolved[i]->bindings);
  if (fe->overloads) strmap_free(fe->overloads);
  fe->overloads = NULL;
  fe->nresolved = 0;
}

/* ---- the call ------------------------------------------------------------------------------------------------- */

FeVal lw_call_overload(Lower *L, const char *path, const PyExpr *e) {
  LwCallArgs ca;
  if (!lw_lower_call_args(L, e, &ca)) return (FeVal){.kind = FV_POISON};
  unsigned n = ca.npos + ca.nkw;
  const char **types = ARENA_ARRAY(&L->fe->arena, const char *, n ? n : 1);
  const char **kw = ARENA_ARRAY(&L->fe->arena, const char *, ca.nkw ? ca.nkw : 1);
  for (unsigned i = 0; i < n; i++) {
    StrBuf b;
    sb_init(&b);
    spell_arg(L, i < ca.npos ? &ca.pos[i] : &ca.kw[i - ca.npos], &b);
    types[i] = arena_strdup(&L->fe->arena, sb_cstr(&b));
    sb_free(&b);
  }
  for (unsigned k = 0; k < ca.nkw; k++) kw[k] = e->call.keywords[k]->arg;
  const char *why = NULL;
  FeFunc *impl = fe_overload_impl(L->fe, path, types, ca.npos, kw, ca.nkw, &why);
  if (!impl) return lw_lerr(L, e->loc, "%s", why);
  return lw_call_device_lowered(L, impl, e, &ca);
}
