/* generated.c — the kernels behind @vectorize, @guvectorize and @cuda.reduce.
 *
 * Each is written as a small Python template (below), parsed like user code, and compiled as an ordinary
 * kernel whose names resolve in a scope of its own: `cuda`, `__op__` (the user's function, compiled as a
 * device function for the signature, so that arguments are converted and the result has the declared
 * type) and `__T__` (a result type). All ops and diagnostics of the template carry the location of the
 * user's `def`; the user's function keeps its own locations. The kernel's symbol is the signature's
 * (plain name, or mangled when several signatures are compiled), its `py_name` the Python name, and a
 * `generated` attribute says which contract (compile.h) the host follows to launch it. */
#include <stdio.h>
#include <string.h>

#include "frontend/fe.h"
#include "frontend/parser.h"

/* One element per thread over any length (grid-stride loop over n = out.shape[0]). */
static void vectorize_text(StrBuf *b, const char *name, unsigned nin) {
  sb_printf(b, "def %s(", name);
  for (unsigned i = 0; i < nin; i++) sb_printf(b, "a%u, ", i);
  sb_puts(b, "out):\n    for i in range(cuda.grid(1), out.shape[0], cuda.gridsize(1)):\n        out[i] = __op__(");
  for (unsigned i = 0; i < nin; i++) sb_printf(b, "%sa%u[i]", i ? ", " : "", i);
  sb_puts(b, ")\n");
}

/* One thread per index of the leading loop dimension; the user's function sees the core arrays as views, and an
 * argument of no core dimensions typed as a 1-d array (sliced[i]: numba-cuda's "scalar as array", an output `()`
 * typed int32[:]) as the one-element slice at the index, as numba-cuda's gufunc kernels pass it. */
static void guvectorize_text(StrBuf *b, const char *name, unsigned nargs, const bool *sliced) {
  sb_printf(b, "def %s(", name);
  for (unsigned i = 0; i < nargs; i++) sb_printf(b, "%sa%u", i ? ", " : "", i);
  sb_puts(b, "):\n    for b in range(cuda.grid(1), a0.shape[0], cuda.gridsize(1)):\n        __op__(");
  for (unsigned i = 0; i < nargs; i++) sb_printf(b, sliced[i] ? "%sa%u[b:b + 1]" : "%sa%u[b]", i ? ", " : "", i);
  sb_puts(b, ")\n");
}

/* Per block: each thread folds a grid-stride slice of the input, then a tree in shared memory over the
 * threads that had an element (a prefix of the block); thread 0 writes the block's value. */
static const char reduce_body[] =
    "    sm = cuda.shared.array(256, __T__)\n"
    "    tid = cuda.threadIdx.x\n"
    "    bs = cuda.blockDim.x\n"
    "    base = cuda.blockIdx.x * bs\n"
    "    n = inp.shape[0]\n"
    "    i = base + tid\n"
    "    if i < n:\n"
    "        acc = inp[i]\n"
    "        i += bs * cuda.gridDim.x\n"
    "        while i < n:\n"
    "            acc = __op__(acc, inp[i])\n"
    "            i += bs * cuda.gridDim.x\n"
    "        sm[tid] = acc\n"
    "    cuda.syncthreads()\n"
    "    m = min(n - base, bs)\n"
    "    s = bs // 2\n"
    "    while s > 0:\n"
    "        if tid < s and tid + s < m:\n"
    "            sm[tid] = __op__(sm[tid], sm[tid + s])\n"
    "        cuda.syncthreads()\n"
    "        s //= 2\n"
    "    if tid == 0 and m > 0:\n"
    "        out[cuda.blockIdx.x] = sm[0]\n";

static bool layout_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (c >= '0' && c <= '9');
}

/* layout := group ("," group)* "->" group ("," group)*;  group := "(" [name ("," name)*] ")"
 * (spaces anywhere between tokens). Each name is a symbol, numbered in order of first appearance. */
bool fe_layout_parse(const char *s, FeLayout *out) {
  memset(out, 0, sizeof *out);
  bool outputs = false;
  unsigned ndims = 0;
  const char *p = s;
  for (;;) {
    while (*p == ' ') p++;
    if (*p != '(' || out->nargs == FE_LAYOUT_MAX_ARGS) return false;
    p++;
    out->first[out->nargs] = ndims;
    for (;;) {
      while (*p == ' ') p++;
      if (*p == ')') break;
      if (!layout_name_char(*p)) return false;
      const char *name = p;
      while (layout_name_char(*p)) p++;
      unsigned len = (unsigned)(p - name), sym = 0;
      while (sym < out->nsyms && !(out->syms[sym].len == len && memcmp(out->syms[sym].name, name, len) == 0)) sym++;
      if (ndims == FE_LAYOUT_MAX_DIMS) return false;
      if (sym == out->nsyms) out->syms[out->nsyms++] = (FeLayoutSymbol){name, len};
      out->dims[ndims++] = sym;
      while (*p == ' ') p++;
      if (*p == ',') p++;
      else if (*p != ')') return false;
    }
    p++;
    out->nargs++;
    out->first[out->nargs] = ndims;
    if (!outputs) out->nin++;
    while (*p == ' ') p++;
    if (*p == ',') {
      p++;
      continue;
    }
    if (p[0] == '-' && p[1] == '>' && !outputs) {
      outputs = true;
      p += 2;
      continue;
    }
    break;
  }
  while (*p == ' ') p++;
  return *p == 0 && outputs;
}

/* A signature of the generated kernel itself (the arrays it is launched with, as a runtime that only knows
 * its arguments gives it): the element signature it stands for, and the kernel's parameter types. */
static bool kernel_level(FeCtx *fe, const FeFunc *fn, const FeSig *sig, FeSig *esig, Type **kparams, unsigned *nk) {
  unsigned nparams = fn->def->funcdef.params.n;
  if ((sig->has_ret && sig->ret) || sig->nargs == 0 || sig->nargs > 64) return false;
  for (unsigned i = 0; i < sig->nargs; i++)
    if (sig->args[i]->kind != TY_ARRAY) return false;
  memset(esig, 0, sizeof *esig);
  esig->loc = sig->loc;
  esig->args = ARENA_ARRAY(&fe->arena, Type *, sig->nargs);
  switch (fn->kind) {
  case FN_REDUCE:
    if (sig->nargs != 2 || sig->args[0]->rank != 1 || sig->args[1]->rank != 1) return false;
    esig->has_ret = true;
    esig->ret = sig->args[1]->elem;
    esig->nargs = 2;
    esig->args[0] = esig->args[1] = sig->args[0]->elem;
    break;
  case FN_VECTORIZE:
    if (sig->nargs != nparams + 1) return false;
    for (unsigned i = 0; i < sig->nargs; i++)
      if (sig->args[i]->rank != 1) return false;
    esig->has_ret = true;
    esig->ret = sig->args[nparams]->elem;
    esig->nargs = nparams;
    for (unsigned i = 0; i < nparams; i++) esig->args[i] = sig->args[i]->elem;
    break;
  case FN_GUVECTORIZE: {
    /* element signatures have arrays too: this is the kernel's when every rank is the layout's plus one */
    FeLayout layout;
    if (sig->nargs != nparams || !fn->gu_layout || !fe_layout_parse(fn->gu_layout, &layout) ||
        layout.nargs != nparams)
      return false;
    for (unsigned i = 0; i < nparams; i++)
      if (sig->args[i]->rank != fe_layout_ndims(&layout, i) + 1) return false;
    esig->nargs = nparams;
    for (unsigned i = 0; i < nparams; i++) {
      Type *t = sig->args[i];
      esig->args[i] = t->rank == 1 ? t->elem : ty_array(fe->ctx, t->elem, t->rank - 1, LAYOUT_A);
    }
    break;
  }
  default: return false;
  }
  for (unsigned i = 0; i < sig->nargs; i++) kparams[i] = sig->args[i];
  *nk = sig->nargs;
  return true;
}

bool gen_kernel(FeCtx *fe, FeFunc *fn, const FeSig *sig, const char *sym) {
  IrContext *ctx = fe->ctx;
  unsigned nparams = fn->def->funcdef.params.n;
  FeSig esig;
  Type *given[64];
  unsigned ngiven = 0;
  if (kernel_level(fe, fn, sig, &esig, given, &ngiven)) sig = &esig;
  if (sig->nargs != nparams) {
    fe_error(fe, sig->loc, "signature has %u argument%s but '%s' takes %u", sig->nargs, sig->nargs == 1 ? "" : "s",
             fn->name, nparams);
    return false;
  }
  Type *kparams[64];
  unsigned nk = 0;
  StrBuf text;
  sb_init(&text);
  FeSig *dsig = ARENA_NEW(&fe->arena, FeSig);
  *dsig = *sig;
  Type *result_type = NULL;
  switch (fn->kind) {
  case FN_VECTORIZE:
    if (!sig->has_ret || !sig->ret || !ty_is_number(sig->ret)) {
      fe_error(fe, sig->loc, "a @vectorize signature needs a scalar return type, such as 'float32(float32)'");
      return false;
    }
    for (unsigned i = 0; i < sig->nargs; i++) {
      if (!ty_is_number(sig->args[i])) {
        fe_error(fe, sig->loc, "@vectorize signatures take scalar arguments, not %s", nb_type_str(&fe->arena, sig->args[i]));
        return false;
      }
      kparams[nk++] = ty_array(ctx, sig->args[i], 1, LAYOUT_A);
    }
    kparams[nk++] = ty_array(ctx, sig->ret, 1, LAYOUT_A);
    vectorize_text(&text, sym, sig->nargs);
    break;
  case FN_GUVECTORIZE: {
    if (sig->has_ret && sig->ret) {
      fe_error(fe, sig->loc, "a @guvectorize signature returns void: outputs are arguments");
      return false;
    }
    FeLayout layout;
    if (!fn->gu_layout || !fe_layout_parse(fn->gu_layout, &layout)) {
      if (fn->gu_layout) fe_error(fe, fn->gu_layout_loc, "cannot read the layout '%s' (expected e.g. \"(m,n),(n)->(m)\")", fn->gu_layout);
      return false;
    }
    unsigned nargs = layout.nargs, nin = layout.nin;
    if (nargs != sig->nargs) {
      fe_error(fe, fn->gu_layout_loc, "the layout '%s' names %u arguments but the signature has %u", fn->gu_layout, nargs,
               sig->nargs);
      return false;
    }
    bool sliced[64];
    for (unsigned i = 0; i < nargs; i++) {
      Type *t = sig->args[i];
      unsigned r = t->kind == TY_ARRAY ? t->rank : 0, dims = fe_layout_ndims(&layout, i);
      sliced[i] = dims == 0 && r == 1; /* the kernel takes it 1-d, the loop dimension alone */
      if ((t->kind != TY_ARRAY && !ty_is_number(t)) || (r != dims && !sliced[i])) {
        fe_error(fe, fn->gu_layout_loc, "argument %u is %s but the layout '%s' gives it %u dimension%s", i + 1,
                 nb_type_str(&fe->arena, t), fn->gu_layout, dims, dims == 1 ? "" : "s");
        return false;
      }
      if (r >= 8) {
        fe_error(fe, fn->gu_layout_loc, "argument %u has %u dimensions: with the loop dimension the kernel would need %u "
                 "(kfront supports at most 8)", i + 1, r, r + 1);
        return false;
      }
      if (i >= nin && r == 0) {
        fe_error(fe, fn->gu_layout_loc, "output %u of '%s' is a scalar: kfront needs outputs to be arrays", i + 1 - nin,
                 fn->name);
        return false;
      }
      kparams[nk++] = ty_array(ctx, t->kind == TY_ARRAY ? t->elem : t, dims + 1, LAYOUT_A);
    }
    dsig->has_ret = false;
    dsig->ret = NULL;
    guvectorize_text(&text, sym, nargs, sliced);
    break;
  }
  case FN_REDUCE:
    if (nparams != 2 || !sig->has_ret || !sig->ret || !ty_is_number(sig->ret) || !ty_is_number(sig->args[0]) ||
        sig->args[0] != sig->args[1]) {
      fe_error(fe, sig->loc, "a @cuda.reduce function takes two values of one scalar type and returns a scalar, e.g. "
                             "'float32(float32, float32)'");
      return false;
    }
    kparams[nk++] = ty_array(ctx, sig->args[0], 1, LAYOUT_A);
    kparams[nk++] = ty_array(ctx, sig->ret, 1, LAYOUT_A);
    result_type = sig->ret;
    sb_printf(&text, "def %s(inp, out):\n%s", sym, reduce_body);
    break;
  default: return false;
  }
  if (ngiven == nk)
    for (unsigned i = 0; i < nk; i++) kparams[i] = given[i];
  /* the user's function, as a device function with this one signature */
  FeFunc *dev = ARENA_NEW(&fe->arena, FeFunc);
  *dev = *fn;
  dev->kind = FN_DEVICE;
  dev->lazy = false;
  dev->sigs = dsig;
  dev->nsigs = 1;
  dev->insts = NULL;
  dev->analysed = false;
  dev->name = arena_printf(&fe->arena, "%s__core", sym);
  dev->py_name = fn->name;
  fe_add_func(fe, dev);
  /* the kernel template */
  char *src = arena_strdup(&fe->arena, sb_cstr(&text));
  size_t len = text.len;
  sb_free(&text);
  const char *gname = arena_printf(&fe->arena, "<%s %s>", fn->kind == FN_REDUCE ? "cuda.reduce" : fn->kind == FN_VECTORIZE ? "vectorize" : "guvectorize", fn->name);
  PyModule *pm = parse_module(&fe->arena, fe->diag, gname, src, len);
  diag_remove_source(fe->diag, src);
  if (!pm || pm->body.n != 1 || pm->body.items[0]->kind != ST_FUNCDEF) return false;
  FeFunc *k = ARENA_NEW(&fe->arena, FeFunc);
  k->def = pm->body.items[0];
  k->name = fn->name;
  k->kind = FN_TEMPLATE;
  k->loc = fn->loc;
  k->src = fn->src;
  k->user = fn;
  k->fastmath = k->debug = k->lineinfo = k->opt = k->cache = -1;
  k->scope = ARENA_NEW(&fe->arena, StrMap);
  strmap_init(k->scope);
  FeVal *cuda = ARENA_NEW(&fe->arena, FeVal), *op = ARENA_NEW(&fe->arena, FeVal), *tt = ARENA_NEW(&fe->arena, FeVal);
  *cuda = (FeVal){.kind = FV_PATH};
  cuda->str.s = "numba.cuda";
  cuda->str.len = strlen("numba.cuda");
  *op = (FeVal){.kind = FV_FUNC, .func = dev};
  *tt = (FeVal){.kind = FV_NTYPE, .type = result_type};
  strmap_put(k->scope, "cuda", cuda);
  strmap_put(k->scope, "__op__", op);
  if (result_type) strmap_put(k->scope, "__T__", tt);
  fe_add_func(fe, k);
  FeVal params[64];
  for (unsigned i = 0; i < nk; i++) params[i] = lower_param_shape(fe, kparams[i]);
  FeInst *inst = lower_function(fe, k, params, nk, sym, true, false, NULL);
  strmap_free(k->scope);
  if (inst && inst->op) inst->requested = true;
  return inst && inst->op;
}
