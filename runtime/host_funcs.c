/* host_funcs.c — the host side of @cuda.reduce, @vectorize and @guvectorize: what numba.cuda's Reduce,
 * CUDAUFuncMechanism and CUDAGeneralizedUFunc do when called from Python, over the kernels the frontend
 * generates for them (their launch contract is in frontend/compile.h), through the runtime's one launch path
 * (rt_function_specialize, rt_launch).
 *
 * Signatures. The kernels of a @vectorize or @guvectorize function are compiled once from its decorator's
 * signatures (rt_function_eager_kernels); each kernel's parameters give a signature's dtypes and core ranks,
 * its `gu_layout` attribute the layout (fe_layout_parse). The inputs' dtypes pick a signature as Numba does:
 * ufunc_pick (arrays exactly, scalars by their dtype, else by the arrays alone), gufunc_pick (exactly, else
 * the first every input converts to safely; the conversions are made on the host).
 *
 * Broadcasting without copies. Every argument becomes an Operand: an array (a scalar: a 1-element host array
 * of the signature's dtype) whose trailing `core` dimensions belong to the function and whose leading ones
 * are loop dimensions. The inputs' loop dimensions broadcast (NumPy's rule); over the broadcast loop shape
 * each operand has one stride per dimension, 0 where it is broadcast. Dimensions of extent 1 are dropped and
 * neighbours merged where every operand's strides allow; the generated kernels take any strides along their
 * one loop dimension (their parameters have layout A, stride 0 included), so the longest remaining dimension
 * becomes the kernel's and the others, when some remain, are iterated here: one launch per index of them, on
 * views offset into the same memory. Nothing is copied to broadcast or to make an operand contiguous; a call
 * on same-shaped or contiguous operands and scalars is one launch.
 *
 * Memory. Host operands are staged once per call (rt_stage_array: inputs copied in, outputs copied in only
 * when they have gaps, and back after the launches). A call that staged anything synchronises its stream
 * before it frees the staging; with device memory only it stays asynchronous, like kf_launch.
 *
 * Reduction, compile.h's two-pass contract: pass 1 folds the input into p <= 255 partial results with blocks
 * of a power of two <= 256 threads (each block has elements), the init value is written after them, and pass
 * 2 folds those p + 1 values with one block into one more slot of the same temporary, from which the result
 * is copied. Both passes run on the caller's stream; the call synchronises it to free the temporary. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/compile.h"
#include "runtime/rt.h"
#include "utils/mem.h"

static const SrcLoc NOLOC = {0};

enum { MAX_ARGS = FE_LAYOUT_MAX_ARGS, MAX_BLOCK = 256, WARP = 32, SHAPE_TEXT = 8 * 24 + 4 };

static const char *kind_name(kf_function_kind k) {
  switch (k) {
  case KF_FUNCTION_KERNEL: return "a @cuda.jit kernel";
  case KF_FUNCTION_DEVICE: return "a device function";
  case KF_FUNCTION_REDUCE: return "a @cuda.reduce function";
  case KF_FUNCTION_VECTORIZE: return "a @vectorize function";
  case KF_FUNCTION_GUVECTORIZE: return "a @guvectorize function";
  }
  return "?";
}

/* f must be of kind `want`; api names the caller in the message. */
static kf_status check_kind(RtFunction *f, kf_function_kind want, const char *api) {
  kf_function_kind k;
  kf_status st = rt_function_kind(f, &k);
  if (st != KF_OK) return st;
  if (k == want) return KF_OK;
  diag_error(f->p->rt->diag, NOLOC, "%s: '%s' is %s, not %s", api, f->name, kind_name(k), kind_name(want));
  return KF_ERROR_INVALID_INPUT;
}

/* "(3, 4)", "(3,)", "()" */
static const char *shape_text(char buf[SHAPE_TEXT], unsigned ndim, const int64_t *shape) {
  size_t n = 0;
  n += (size_t)snprintf(buf + n, SHAPE_TEXT - n, "(");
  for (unsigned d = 0; d < ndim && d < KF_MAX_RANK; d++)
    n += (size_t)snprintf(buf + n, SHAPE_TEXT - n, "%s%" PRId64, d ? ", " : "", shape[d]);
  snprintf(buf + n, SHAPE_TEXT - n, "%s)", ndim == 1 ? "," : "");
  return buf;
}

/* An array the caller passed (of any rank, 0 included): valid dtype, rank, extents, data. */
static bool check_array(RtRuntime *rt, const char *api, const char *what, const kf_array *a) {
  if (rt_dtype_size(a->dtype) == 0) {
    diag_error(rt->diag, NOLOC, "%s: %s has an invalid dtype (%d)", api, what, (int)a->dtype);
    return false;
  }
  if (a->ndim > KF_MAX_RANK) {
    diag_error(rt->diag, NOLOC, "%s: %s has rank %u (at most %d)", api, what, a->ndim, KF_MAX_RANK);
    return false;
  }
  if (a->memory != KF_MEMORY_HOST && a->memory != KF_MEMORY_DEVICE) {
    diag_error(rt->diag, NOLOC, "%s: %s has an invalid memory kind (%d)", api, what, (int)a->memory);
    return false;
  }
  for (unsigned d = 0; d < a->ndim; d++) {
    if (a->shape[d] < 0) {
      diag_error(rt->diag, NOLOC, "%s: %s has a negative extent %" PRId64 " in axis %u", api, what, a->shape[d], d);
      return false;
    }
  }
  if (!a->data && rt_array_size(a) > 0) {
    diag_error(rt->diag, NOLOC, "%s: %s has %zu elements but no data pointer", api, what, rt_array_size(a));
    return false;
  }
  return true;
}

/* ---- signatures --------------------------------------------------------------------------------- */

/* A signature of a @vectorize / @guvectorize function, read from its kernel: every parameter (inputs, then
 * outputs) with its element dtype and its core rank (the kernel's rank less the loop dimension). */
typedef struct Sig {
  unsigned nargs;
  kf_dtype dtype[MAX_ARGS];
  unsigned core[MAX_ARGS];
} Sig;

static bool read_sig(RtRuntime *rt, Op *func, Sig *s) {
  RtLaunchPlan plan;
  if (!rt_plan_from_kir(func, &plan, rt->diag)) return false;
  unsigned np;
  Type *const *params = rt_kir_params(func, &np);
  bool ok = np >= plan.nhidden && np - plan.nhidden <= MAX_ARGS;
  s->nargs = ok ? np - plan.nhidden : 0;
  for (unsigned i = 0; ok && i < s->nargs; i++) {
    const Type *t = params[i];
    ok = t->kind == TY_ARRAY && t->rank >= 1 && rt_type_dtype(t->elem, &s->dtype[i]);
    if (ok) s->core[i] = t->rank - 1;
  }
  if (!ok)
    diag_error(rt->diag, NOLOC, "generated kernel %s has parameters the host side does not expect", ir_func_name(func));
  return ok;
}

/* "float32(float32, int32)" (ufunc) or "(float32[:], float32) -> (float32[:])" (gufunc). */
static void sig_text(StrBuf *b, const Sig *s, unsigned nin, bool ufunc) {
  if (ufunc) sb_puts(b, rt_dtype_name(s->dtype[nin]));
  sb_putc(b, '(');
  for (unsigned i = 0; i < (ufunc ? nin : s->nargs); i++) {
    sb_printf(b, "%s%s", i == 0 ? "" : i == nin ? ") -> (" : ", ", rt_dtype_name(s->dtype[i]));
    if (s->core[i]) {
      sb_putc(b, '[');
      for (unsigned d = 0; d < s->core[i]; d++) sb_puts(b, d ? ", :" : ":");
      sb_putc(b, ']');
    }
  }
  sb_putc(b, ')');
}

static void sigs_text(RtRuntime *rt, Op *const *kernels, unsigned n, unsigned nin, bool ufunc, StrBuf *b) {
  Sig s;
  for (unsigned k = 0; k < n; k++) {
    if (!read_sig(rt, kernels[k], &s)) continue;
    sb_puts(b, k ? ", " : "");
    sig_text(b, &s, nin, ufunc);
  }
}

static kf_dtype arg_dtype(const kf_arg *a) { return a->kind == KF_ARG_ARRAY ? a->array.dtype : a->dtype; }

static void arg_types_text(const kf_arg *in, unsigned nin, StrBuf *b) {
  sb_putc(b, '(');
  for (unsigned i = 0; i < nin; i++)
    sb_printf(b, "%s%s %s", i ? ", " : "", rt_dtype_name(arg_dtype(&in[i])),
              in[i].kind == KF_ARG_ARRAY ? "array" : "scalar");
  sb_putc(b, ')');
}

/* Numba's CUDA ufunc resolution (UFuncMechanism._resolve_signature): with scalars among the inputs, the
 * signatures matching every input's dtype exactly; when there is none, those matching the arrays' dtypes
 * exactly with the scalars left out, which must then be one. The first match is taken (signatures with the
 * same input types, which Numba's dictionary of them cannot have, are not an ambiguity). Returns the kernel's
 * index, or -1 (reported). */
static int ufunc_pick(RtFunction *f, Op *const *kernels, unsigned nk, const kf_arg *in, unsigned nin, Sig *out) {
  RtRuntime *rt = f->p->rt;
  bool scalars = false;
  for (unsigned i = 0; i < nin; i++) scalars |= in[i].kind == KF_ARG_SCALAR;
  Sig s;
  for (int phase = scalars ? 1 : 2; phase <= 2; phase++) {
    int first = -1;
    unsigned matches = 0;
    for (unsigned k = 0; k < nk; k++) {
      if (!read_sig(rt, kernels[k], &s)) return -1;
      bool match = s.nargs == nin + 1;
      for (unsigned i = 0; match && i < nin; i++)
        match = (phase == 2 && in[i].kind == KF_ARG_SCALAR) || arg_dtype(&in[i]) == s.dtype[i];
      if (!match) continue;
      if (first < 0) {
        first = (int)k;
        *out = s;
      }
      matches++;
    }
    if (phase == 2 && scalars && matches > 1) {
      StrBuf types;
      sb_init(&types);
      arg_types_text(in, nin, &types);
      diag_error(rt->diag, NOLOC, "vectorize '%s': the input types %s match %u of its signatures once the scalars "
                 "are left out, and no signature matches the scalars' own dtypes: give the scalars the dtype of one "
                 "signature", f->name, sb_cstr(&types), matches);
      sb_free(&types);
      return -1;
    }
    if (matches) return first;
  }
  StrBuf types, sigs;
  sb_init(&types);
  sb_init(&sigs);
  arg_types_text(in, nin, &types);
  sigs_text(rt, kernels, nk, nin, true, &sigs);
  diag_error(rt->diag, NOLOC, "vectorize '%s': no signature matches the input types %s; its signatures are %s (as "
             "in Numba, a CUDA ufunc needs arrays of exactly a signature's dtypes: NumPy's casting='no')", f->name,
             sb_cstr(&types), sb_cstr(&sigs));
  sb_free(&types);
  sb_free(&sigs);
  return -1;
}

/* Numba's CUDA gufunc resolution (GeneralizedUFunc._schedule): the first signature whose input dtypes equal
 * the inputs', else the first to which every input converts safely. Returns the kernel's index, or -1
 * (reported). */
static int gufunc_pick(RtFunction *f, Op *const *kernels, unsigned nk, const kf_arg *in, unsigned nin, Sig *out) {
  RtRuntime *rt = f->p->rt;
  Sig s;
  for (int phase = 1; phase <= 2; phase++) {
    for (unsigned k = 0; k < nk; k++) {
      if (!read_sig(rt, kernels[k], &s)) return -1;
      bool match = s.nargs > nin;
      for (unsigned i = 0; match && i < nin; i++)
        match = phase == 1 ? arg_dtype(&in[i]) == s.dtype[i] : rt_dtype_can_cast(arg_dtype(&in[i]), s.dtype[i]);
      if (match) {
        *out = s;
        return (int)k;
      }
    }
  }
  StrBuf types, sigs;
  sb_init(&types);
  sb_init(&sigs);
  arg_types_text(in, nin, &types);
  sigs_text(rt, kernels, nk, nin, false, &sigs);
  diag_error(rt->diag, NOLOC, "guvectorize '%s': no signature matches the input types %s, exactly or by safe "
             "conversions; its signatures are %s", f->name, sb_cstr(&types), sb_cstr(&sigs));
  sb_free(&types);
  sb_free(&sigs);
  return -1;
}

/* ---- a call: operands, broadcasting ------------------------------------------------------------ */

typedef struct Operand {
  kf_array a;                   /* what the kernel reads or writes (a scalar: the host array over `scalar`) */
  unsigned core;                /* trailing core dimensions */
  unsigned loop_ndim;           /* a.ndim - core */
  bool output;
  uint64_t scalar;              /* a scalar converted to the signature's dtype */
  void *converted;              /* a host array converted to the signature's dtype (owned) */
  uint64_t base, tmp;           /* rt_stage_array: the device address of element [0, ...], the staging */
  bool staged, copied_in;       /* staged; its staging filled from the host */
} Operand;

typedef struct Call {
  RtRuntime *rt;
  RtFunction *f;
  const char *what;             /* "vectorize" or "guvectorize", for messages */
  bool ufunc;
  Op *const *kernels;
  unsigned nkernels;
  Sig sig;                      /* the signature picked */
  unsigned nin, nargs;          /* inputs; operands (inputs, then outputs) */
  Operand *ops;                 /* nargs of them, owned */
  unsigned lr;                  /* the broadcast loop shape */
  int64_t loop[KF_MAX_RANK];
  FeLayout layout;              /* guvectorize */
  int64_t extent[FE_LAYOUT_MAX_DIMS];  /* guvectorize: each layout symbol's extent (-1: not bound yet) */
} Call;

static kf_status call_fail(Call *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static kf_status call_fail(Call *c, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  diag_error(c->rt->diag, NOLOC, "%s '%s': %s", c->what, c->f->name, msg);
  return KF_ERROR_INVALID_INPUT;
}

static void call_free(Call *c) {
  for (unsigned i = 0; c->ops && i < c->nargs; i++) {
    mem_free(c->ops[i].converted);
    rt_stage_free(c->rt, c->ops[i].tmp);
  }
  mem_free(c->ops);
  c->ops = NULL;
}

/* The function's kind, kernels and, for a gufunc, layout; nargs operands allocated. */
static kf_status call_begin(Call *c, RtFunction *f, bool ufunc, const char *api) {
  memset(c, 0, sizeof *c);
  c->rt = f->p->rt;
  c->f = f;
  c->ufunc = ufunc;
  c->what = ufunc ? "vectorize" : "guvectorize";
  kf_status st = check_kind(f, ufunc ? KF_FUNCTION_VECTORIZE : KF_FUNCTION_GUVECTORIZE, api);
  if (st == KF_OK) st = rt_function_eager_kernels(f, &c->kernels, &c->nkernels);
  if (st != KF_OK) return st;
  Sig first;
  if (!read_sig(c->rt, c->kernels[0], &first)) return KF_ERROR_INTERNAL;
  if (ufunc) {
    c->nin = first.nargs - 1;
    c->nargs = first.nargs;
  } else {
    const char *text = ir_op_attr_str(c->kernels[0], "gu_layout");
    if (!text || !fe_layout_parse(text, &c->layout) || c->layout.nargs != first.nargs) {
      diag_error(c->rt->diag, NOLOC, "guvectorize '%s': its kernel %s has no readable layout (attribute gu_layout)",
                 f->name, ir_func_name(c->kernels[0]));
      return KF_ERROR_INVALID_INPUT;
    }
    c->nin = c->layout.nin;
    c->nargs = c->layout.nargs;
    for (unsigned s = 0; s < c->layout.nsyms; s++) c->extent[s] = -1;
  }
  c->ops = mem_calloc(c->nargs, sizeof *c->ops);
  if (!c->ops) return rt_out_of_memory(c->rt);
  return KF_OK;
}

static void describe(const kf_arg *a, char buf[SHAPE_TEXT + 64]) {
  char shape[SHAPE_TEXT];
  if (a->kind == KF_ARG_SCALAR) snprintf(buf, SHAPE_TEXT + 64, "a scalar %s", rt_dtype_name(a->dtype));
  else
    snprintf(buf, SHAPE_TEXT + 64, "a %s array of shape %s", rt_dtype_name(a->array.dtype),
             shape_text(shape, a->array.ndim, a->array.shape));
}

/* Validates the inputs and picks the signature (given nin inputs). */
static kf_status call_pick(Call *c, const kf_arg *in, unsigned nin, const char *api) {
  if (nin != c->nin || (nin && !in))
    return call_fail(c, "takes %u input%s, but %u %s given", c->nin, c->nin == 1 ? "" : "s", nin,
                     nin == 1 ? "was" : "were");
  for (unsigned i = 0; i < nin; i++) {
    char what[32];
    snprintf(what, sizeof what, "input %u", i + 1);
    if (in[i].kind == KF_ARG_ARRAY) {
      if (!check_array(c->rt, api, what, &in[i].array)) return KF_ERROR_INVALID_INPUT;
    } else if (in[i].kind != KF_ARG_SCALAR || rt_dtype_size(in[i].dtype) == 0) {
      diag_error(c->rt->diag, NOLOC, "%s: %s is neither an array nor a scalar of a valid dtype", api, what);
      return KF_ERROR_INVALID_INPUT;
    }
  }
  int k = c->ufunc ? ufunc_pick(c->f, c->kernels, c->nkernels, in, nin, &c->sig)
                   : gufunc_pick(c->f, c->kernels, c->nkernels, in, nin, &c->sig);
  if (k < 0) return KF_ERROR_INVALID_INPUT;
  if (!c->ufunc)
    for (unsigned i = 0; i < c->nargs; i++)
      if (c->sig.core[i] != fe_layout_ndims(&c->layout, i))
        return call_fail(c, "its kernel's parameter %u does not have the layout's %u core dimensions", i + 1,
                         fe_layout_ndims(&c->layout, i));
  return KF_OK;
}

/* Binds the layout's symbols of operand i's core dimensions to its extents (a number must be that extent). */
static kf_status bind_core(Call *c, unsigned i) {
  const Operand *o = &c->ops[i];
  for (unsigned d = 0; d < o->core; d++) {
    unsigned sym = c->layout.dims[c->layout.first[i] + d];
    const FeLayoutSymbol *name = &c->layout.syms[sym];
    int64_t have = o->a.shape[o->loop_ndim + d];
    char *end;
    char text[64];
    snprintf(text, sizeof text, "%.*s", (int)name->len, name->name);
    long long fixed = strtoll(text, &end, 10);
    if (*end == 0 && fixed != have)
      return call_fail(c, "%s %u has extent %" PRId64 " in core dimension %u, but the layout '%s' fixes it to %lld",
                       i < c->nin ? "input" : "output", i < c->nin ? i + 1 : i - c->nin + 1, have, d + 1,
                       ir_op_attr_str(c->kernels[0], "gu_layout"), fixed);
    if (c->extent[sym] >= 0 && c->extent[sym] != have)
      return call_fail(c, "%s %u has extent %" PRId64 " for the core dimension '%s' of its layout '%s', but an "
                       "argument before it has %" PRId64, i < c->nin ? "input" : "output",
                       i < c->nin ? i + 1 : i - c->nin + 1, have, text, ir_op_attr_str(c->kernels[0], "gu_layout"),
                       c->extent[sym]);
    c->extent[sym] = have;
  }
  return KF_OK;
}

/* Operand i from input `arg`, converted to the signature's dtype where that differs (scalars; host arrays, for a
 * gufunc), then the loop shape broadcast with its loop dimensions. */
static kf_status add_input(Call *c, unsigned i, const kf_arg *arg) {
  Operand *o = &c->ops[i];
  kf_dtype want = c->sig.dtype[i];
  o->core = c->sig.core[i];
  if (arg->kind == KF_ARG_SCALAR) {
    if (o->core)
      return call_fail(c, "input %u is a scalar, but the layout gives it %u core dimensions", i + 1, o->core);
    rt_convert_to_dtype(arg, want, &o->scalar);
    /* Numba makes a scalar a 1-element array: shape (1,) for a ufunc (np.array([x])), () for a gufunc */
    int64_t one = 1;
    rt_array_init(&o->a, &o->scalar, KF_MEMORY_HOST, want, c->ufunc ? 1 : 0, &one, 'C');
    o->a.readonly = 1;
  } else {
    o->a = arg->array;
    if (o->a.ndim < o->core)
      return call_fail(c, "input %u has rank %u, but the layout '%s' gives it %u core dimensions", i + 1, o->a.ndim,
                       ir_op_attr_str(c->kernels[0], "gu_layout"), o->core);
    if (o->a.dtype != want) {
      if (o->a.memory == KF_MEMORY_DEVICE)
        return call_fail(c, "input %u is a device array of %s, which the signature picked wants as %s: device arrays "
                         "are not converted (as in Numba); convert it first", i + 1, rt_dtype_name(o->a.dtype),
                         rt_dtype_name(want));
      size_t n = rt_array_size(&o->a), from = rt_dtype_size(o->a.dtype), to = rt_dtype_size(want);
      char *gathered = mem_alloc(n * from + 1);
      o->converted = mem_alloc(n * to + 1);
      if (!gathered || !o->converted) {
        mem_free(gathered);
        return rt_out_of_memory(c->rt);
      }
      rt_array_gather(&o->a, gathered);
      for (size_t e = 0; e < n; e++) {
        kf_arg v = rt_scalar_read(gathered + e * from, o->a.dtype);
        rt_convert_to_dtype(&v, want, (char *)o->converted + e * to);
      }
      mem_free(gathered);
      kf_array conv;
      rt_array_init(&conv, o->converted, KF_MEMORY_HOST, want, o->a.ndim, o->a.shape, 'C');
      conv.readonly = 1;
      o->a = conv;
    }
  }
  o->loop_ndim = o->a.ndim - o->core;
  /* NumPy's broadcasting of the loop dimensions, right-aligned */
  unsigned lr = o->loop_ndim > c->lr ? o->loop_ndim : c->lr;
  int64_t loop[KF_MAX_RANK];
  for (unsigned d = 0; d < lr; d++) {
    int ours = (int)d - (int)(lr - o->loop_ndim), before = (int)d - (int)(lr - c->lr);
    int64_t e = ours >= 0 ? o->a.shape[ours] : 1, b = before >= 0 ? c->loop[before] : 1;
    if (e != b && e != 1 && b != 1) {
      char s1[SHAPE_TEXT], s2[SHAPE_TEXT];
      return call_fail(c, "input %u has loop shape %s, which does not broadcast with %s (the inputs before it)", i + 1,
                       shape_text(s1, o->loop_ndim, o->a.shape), shape_text(s2, c->lr, c->loop));
    }
    loop[d] = e == 1 ? b : e;
  }
  c->lr = lr;
  memcpy(c->loop, loop, sizeof *loop * lr);
  return c->ufunc ? KF_OK : bind_core(c, i);
}

/* Operand i from output array `out` (the caller's), checked against the broadcast loop shape and the
 * signature. */
static kf_status add_output(Call *c, unsigned i, const kf_array *out, const char *api) {
  unsigned k = i - c->nin + 1;
  char what[32], s1[SHAPE_TEXT], s2[SHAPE_TEXT];
  snprintf(what, sizeof what, "output %u", k);
  if (!check_array(c->rt, api, what, out)) return KF_ERROR_INVALID_INPUT;
  Operand *o = &c->ops[i];
  o->a = *out;
  o->output = true;
  o->core = c->sig.core[i];
  if (out->readonly) return call_fail(c, "output %u is read-only", k);
  if (out->dtype != c->sig.dtype[i])
    return call_fail(c, "output %u has dtype %s, but the signature picked for the inputs gives %s", k,
                     rt_dtype_name(out->dtype), rt_dtype_name(c->sig.dtype[i]));
  if (out->ndim != c->lr + o->core || memcmp(out->shape, c->loop, sizeof *c->loop * c->lr) != 0) {
    if (c->ufunc)
      return call_fail(c, "output has shape %s, but the inputs broadcast to %s", shape_text(s1, out->ndim, out->shape),
                       shape_text(s2, c->lr, c->loop));
    return call_fail(c, "output %u has shape %s: its loop dimensions must be the inputs' broadcast loop shape %s, "
                     "followed by %u core dimension%s", k, shape_text(s1, out->ndim, out->shape),
                     shape_text(s2, c->lr, c->loop), o->core, o->core == 1 ? "" : "s");
  }
  o->loop_ndim = c->lr;
  return c->ufunc ? KF_OK : bind_core(c, i);
}

/* Sets up the call's inputs (picking the signature). */
static kf_status call_inputs(Call *c, const kf_arg *in, unsigned nin, const char *api) {
  kf_status st = call_pick(c, in, nin, api);
  for (unsigned i = 0; st == KF_OK && i < nin; i++) st = add_input(c, i, &in[i]);
  /* numba-cuda's gufunc loop shape is the first largest input's loop shape (its GUFuncEngine.schedule), which is
   * NumPy's broadcast but where every input loops once and the first has no loop dimensions ('(n),()->(n)' of a
   * (4,) and a (1,)): then there are none, and the outputs have none either */
  bool once = st == KF_OK && !c->ufunc && c->ops[0].loop_ndim == 0;
  for (unsigned d = 0; once && d < c->lr; d++) once = c->loop[d] == 1;
  if (once) c->lr = 0;
  return st;
}

/* The description of output i (0-based among the outputs) for a caller to allocate. */
static kf_status result_array(Call *c, unsigned i, kf_array *out) {
  unsigned arg = c->nin + i, core = c->sig.core[arg];
  int64_t shape[KF_MAX_RANK + FE_LAYOUT_MAX_DIMS];
  memcpy(shape, c->loop, sizeof *shape * c->lr);
  for (unsigned d = 0; d < core; d++) {
    unsigned sym = c->layout.dims[c->layout.first[arg] + d];
    const FeLayoutSymbol *name = &c->layout.syms[sym];
    int64_t e = c->extent[sym];
    char *end;
    char text[64];
    snprintf(text, sizeof text, "%.*s", (int)name->len, name->name);
    long long fixed = strtoll(text, &end, 10);
    if (*end == 0) e = fixed;
    if (e < 0)
      return call_fail(c, "output %u's core dimension '%s' is given by no input: pass the outputs to kf_gufunc_call",
                       i + 1, text);
    shape[c->lr + d] = e;
  }
  if (c->lr + core > KF_MAX_RANK)
    return call_fail(c, "output %u would have %u dimensions (at most %d)", i + 1, c->lr + core, KF_MAX_RANK);
  rt_array_init(out, NULL, KF_MEMORY_HOST, c->sig.dtype[arg], c->lr + core, shape, 'C');
  return KF_OK;
}

/* ---- launching ----------------------------------------------------------------------------------- */

/* Blocks of up to 256 threads (fewer for a short loop, or where the kernel's registers allow fewer), enough
 * of them for n iterations but at most 32 per multiprocessor: the generated kernels loop grid-stride. */
static void elementwise_shape(RtRuntime *rt, const RtKernel *k, int64_t n, RtLaunchShape *s) {
  unsigned max = MAX_BLOCK;
  if (k->fn.max_threads && k->fn.max_threads < max) max = k->fn.max_threads;
  unsigned block = max;
  if (n < (int64_t)max) {
    block = (unsigned)((n + WARP - 1) / WARP * WARP);
    if (block > max) block = max;
  }
  int64_t cap = (int64_t)(rt->dev->info.multiprocessors > 0 ? rt->dev->info.multiprocessors : 1) * 32;
  if (cap > (int64_t)rt->limits.max_grid[0]) cap = rt->limits.max_grid[0];
  int64_t grid = (n + block - 1) / block;
  memset(s, 0, sizeof *s);
  s->grid[0] = (unsigned)(grid < cap ? grid : cap);
  s->block[0] = block;
  s->grid[1] = s->grid[2] = s->block[1] = s->block[2] = 1;
}

/* Runs the call: coalesces the loop dimensions, stages host operands, launches over the kernel's loop
 * dimension once per index of the others, copies outputs back. */
static kf_status call_run(Call *c, RtStream *stream) {
  RtRuntime *rt = c->rt;
  unsigned n = c->nargs;
  for (unsigned d = 0; d < c->lr; d++)
    if (c->loop[d] == 0) return KF_OK;
  /* strides over the loop dimensions (0 where broadcast), dimensions of extent 1 dropped, neighbours merged */
  int64_t ext[KF_MAX_RANK], (*str)[MAX_ARGS] = mem_calloc(KF_MAX_RANK, sizeof *str);
  kf_arg *views = mem_calloc(n, sizeof *views);
  if (!str || !views) {
    mem_free(str);
    mem_free(views);
    return rt_out_of_memory(rt);
  }
  unsigned m = 0;
  for (unsigned d = 0; d < c->lr; d++) {
    if (c->loop[d] == 1) continue;
    int64_t s[MAX_ARGS];
    bool merge = m > 0;
    for (unsigned j = 0; j < n; j++) {
      const Operand *o = &c->ops[j];
      int od = (int)d - (int)(c->lr - o->loop_ndim);
      s[j] = od < 0 || o->a.shape[od] == 1 ? 0 : o->a.strides[od];
      merge = merge && str[m - 1][j] == s[j] * c->loop[d];
    }
    if (merge) {
      ext[m - 1] *= c->loop[d];
    } else {
      ext[m] = c->loop[d];
      m++;
    }
    memcpy(str[m - 1], s, sizeof *s * n);
  }
  unsigned ax = 0;  /* the kernel's loop dimension: the longest (the innermost of equals) */
  for (unsigned k = 1; k < m; k++)
    if (ext[k] >= ext[ax]) ax = k;
  int64_t len = m ? ext[ax] : 1;

  kf_status st = KF_OK;
  bool staged = false;
  for (unsigned j = 0; st == KF_OK && j < n; j++) {
    Operand *o = &c->ops[j];
    /* an output whose elements fill its span is written whole: its staging needs no copy from the host */
    o->copied_in = !o->output || (!rt_array_is_contiguous(&o->a, 'C') && !rt_array_is_contiguous(&o->a, 'F'));
    st = rt_stage_array_checked(rt, &o->a, c->f->name, j, o->copied_in, stream, &o->base, &o->tmp, &o->staged);
    staged |= o->staged;
    kf_array *v = &views[j].array;
    views[j].kind = KF_ARG_ARRAY;
    views[j].dtype = o->a.dtype;
    v->dtype = o->a.dtype;
    v->memory = o->staged ? KF_MEMORY_DEVICE : o->a.memory;
    v->readonly = o->a.readonly;
    v->ndim = 1 + o->core;
    v->shape[0] = len;
    v->strides[0] = m ? str[ax][j] : 0;
    for (unsigned d = 0; d < o->core; d++) {
      v->shape[1 + d] = o->a.shape[o->loop_ndim + d];
      v->strides[1 + d] = o->a.strides[o->loop_ndim + d];
    }
    v->data = (void *)(uintptr_t)o->base;
  }
  RtKernel *k = NULL;
  RtDispatchEntry *entry = NULL;
  if (st == KF_OK) st = rt_function_specialize(c->f, views, n, &k, &entry);
  if (st == KF_OK) {
    RtLaunchShape shape;
    elementwise_shape(rt, k, len, &shape);
    int64_t idx[KF_MAX_RANK] = {0};
    for (;;) {
      for (unsigned j = 0; j < n; j++) {
        int64_t off = 0;
        for (unsigned d = 0; d < m; d++)
          if (d != ax) off += idx[d] * str[d][j];
        views[j].array.data = (void *)(uintptr_t)(c->ops[j].base + (uint64_t)off);
      }
      st = rt_launch(k, &shape, stream, views, n, entry);
      if (st != KF_OK) break;
      int d = (int)m - 1;
      for (; d >= 0; d--) {
        if ((unsigned)d == ax) continue;
        if (++idx[d] < ext[d]) break;
        idx[d] = 0;
      }
      if (d < 0) break;
    }
  }
  if (staged) {
    /* the launches' end (an IndexError of an asynchronous launch shows here), then the outputs back to the
     * host: after an IndexError too (as kf_launch does) where the staging held them; the staging is freed
     * after the stream's work, also after a failure */
    kf_status sync = rt_stream_sync(rt, stream);
    if (st == KF_OK) st = sync;
    bool back = false;
    for (unsigned j = 0; j < n; j++) {
      const Operand *o = &c->ops[j];
      if (!o->tmp || !o->output || !(st == KF_OK || (st == KF_ERROR_OUT_OF_BOUNDS && o->copied_in))) continue;
      kf_status b = rt_stage_copy_back(rt, &o->a, o->tmp, stream);
      if (st == KF_OK) st = b;
      back = true;
    }
    if (back) {
      sync = rt_stream_sync(rt, stream);
      if (st == KF_OK) st = sync;
    }
  }
  mem_free(str);
  mem_free(views);
  return st;
}

/* ---- the entry points ----------------------------------------------------------------------------- */

kf_status rt_function_info(RtFunction *f, kf_function_info *out) {
  memset(out, 0, sizeof *out);
  kf_status st = rt_function_kind(f, &out->kind);
  if (st != KF_OK || (out->kind != KF_FUNCTION_VECTORIZE && out->kind != KF_FUNCTION_GUVECTORIZE)) return st;
  Call c;
  st = call_begin(&c, f, out->kind == KF_FUNCTION_VECTORIZE, "kf_function_get_info");
  if (st == KF_OK) {
    out->nin = c.nin;
    out->nout = c.nargs - c.nin;
    out->nsignatures = c.nkernels;
    out->layout = c.ufunc ? NULL : ir_op_attr_str(c.kernels[0], "gu_layout");
  }
  call_free(&c);
  return st;
}

static kf_status ufunc_result_checked(RtFunction *f, const kf_arg *inputs, unsigned ninputs, kf_array *out) {
  memset(out, 0, sizeof *out);
  Call c;
  kf_status st = call_begin(&c, f, true, "kf_ufunc_result");
  if (st == KF_OK) st = call_inputs(&c, inputs, ninputs, "kf_ufunc_result");
  if (st == KF_OK) st = result_array(&c, 0, out);
  call_free(&c);
  return st;
}

static kf_status ufunc_call_checked(RtFunction *f, const kf_arg *inputs, unsigned ninputs, const kf_array *out, RtStream *stream) {
  Call c;
  kf_status st = call_begin(&c, f, true, "kf_ufunc_call");
  if (st == KF_OK) st = call_inputs(&c, inputs, ninputs, "kf_ufunc_call");
  if (st == KF_OK && !out) st = call_fail(&c, "no output array given");
  if (st == KF_OK) st = add_output(&c, c.nin, out, "kf_ufunc_call");
  if (st == KF_OK) st = call_run(&c, stream);
  call_free(&c);
  return st;
}

static kf_status gufunc_result_checked(RtFunction *f, const kf_arg *inputs, unsigned ninputs, kf_array *outs, unsigned nouts) {
  Call c;
  kf_status st = call_begin(&c, f, false, "kf_gufunc_result");
  if (st == KF_OK && nouts != c.nargs - c.nin)
    st = call_fail(&c, "has %u output%s, but room for %u was given", c.nargs - c.nin, c.nargs - c.nin == 1 ? "" : "s",
                   nouts);
  if (st == KF_OK && nouts && !outs) st = call_fail(&c, "no output descriptions given");
  if (st == KF_OK) st = call_inputs(&c, inputs, ninputs, "kf_gufunc_result");
  for (unsigned i = 0; st == KF_OK && i < nouts; i++) st = result_array(&c, i, &outs[i]);
  call_free(&c);
  return st;
}

static kf_status gufunc_call_checked(RtFunction *f, const kf_arg *args, unsigned nargs, RtStream *stream) {
  Call c;
  kf_status st = call_begin(&c, f, false, "kf_gufunc_call");
  if (st == KF_OK && (nargs != c.nargs || (nargs && !args)))
    st = call_fail(&c, "takes %u arguments (its layout '%s': %u input%s, then %u output%s), but %u %s given", c.nargs,
                   ir_op_attr_str(c.kernels[0], "gu_layout"), c.nin, c.nin == 1 ? "" : "s", c.nargs - c.nin,
                   c.nargs - c.nin == 1 ? "" : "s", nargs, nargs == 1 ? "was" : "were");
  if (st == KF_OK) st = call_inputs(&c, args, c.nin, "kf_gufunc_call");
  for (unsigned i = c.nin; st == KF_OK && i < c.nargs; i++) {
    if (args[i].kind != KF_ARG_ARRAY) {
      char what[SHAPE_TEXT + 64];
      describe(&args[i], what);
      st = call_fail(&c, "output %u must be an array, not %s", i - c.nin + 1, what);
    } else {
      st = add_output(&c, i, &args[i].array, "kf_gufunc_call");
    }
  }
  if (st == KF_OK) st = call_run(&c, stream);
  call_free(&c);
  return st;
}

/* ---- reduce ------------------------------------------------------------------------------------------ */

static kf_status reduce_fail(RtFunction *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static kf_status reduce_fail(RtFunction *f, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  diag_error(f->p->rt->diag, NOLOC, "kf_reduce: reduction '%s': %s", f->name, msg);
  return KF_ERROR_INVALID_INPUT;
}

/* The largest power of two <= max(k's thread limit, MAX_BLOCK). */
static unsigned reduce_block_limit(const RtKernel *k) {
  unsigned lim = k->fn.max_threads && k->fn.max_threads < MAX_BLOCK ? k->fn.max_threads : MAX_BLOCK, b = 1;
  while (b * 2 <= lim) b *= 2;
  return b;
}

static kf_arg array_arg(const kf_array *a) {
  kf_arg r;
  memset(&r, 0, sizeof r);
  r.kind = KF_ARG_ARRAY;
  r.dtype = a->dtype;
  r.array = *a;
  return r;
}

/* A 1-D contiguous device array of n elements of t at data. */
static kf_arg device_vector(void *data, kf_dtype t, int64_t n) {
  kf_array a;
  rt_array_init(&a, data, KF_MEMORY_DEVICE, t, 1, &n, 'C');
  return array_arg(&a);
}

/* Copies the t at `bits` (host) into element [0, ...] of res (host or device) on the stream. */
static kf_status write_res(RtRuntime *rt, const kf_array *res, const void *bits, size_t size, RtStream *stream) {
  if (res->memory == KF_MEMORY_HOST) {
    memcpy(res->data, bits, size);
    return KF_OK;
  }
  return rt_copy(rt, RT_COPY_HTOD, res->data, bits, size, stream);
}

static kf_status reduce_checked(RtFunction *f, const kf_array *arr, int64_t size, const kf_arg *init, RtStream *stream,
                    kf_arg *result, const kf_array *res) {
  RtRuntime *rt = f->p->rt;
  kf_status st = check_kind(f, KF_FUNCTION_REDUCE, "kf_reduce");
  if (st != KF_OK) return st;
  if (!arr) return reduce_fail(f, "no array given");
  if (!check_array(rt, "kf_reduce", "the array", arr)) return KF_ERROR_INVALID_INPUT;
  if (arr->ndim != 1)
    return reduce_fail(f, "the array has rank %u; a reduction takes a 1-D array (as Numba's: \"only support 1D "
                       "array\")", arr->ndim);
  if (!result && !res) return reduce_fail(f, "neither result nor res given: nowhere to put the result");
  if ((res && !rt_array_fits(rt, res, f->name, 1)) || !rt_stream_fits(rt, stream, f->name))
    return KF_ERROR_INVALID_INPUT;
  if (init && (init->kind != KF_ARG_SCALAR || rt_dtype_size(init->dtype) == 0))
    return reduce_fail(f, "init must be a scalar kf_arg of a valid dtype");
  kf_dtype t = arr->dtype;
  size_t isz = rt_dtype_size(t);
  if (res) {
    if (!check_array(rt, "kf_reduce", "res", res)) return KF_ERROR_INVALID_INPUT;
    if (res->dtype != t || rt_array_size(res) == 0 || res->readonly)
      return reduce_fail(f, "res must be a writable array of the input's dtype (%s) with at least one element; it is "
                         "a%s %s array of %zu elements", rt_dtype_name(t), res->readonly ? " read-only" : "",
                         rt_dtype_name(res->dtype), rt_array_size(res));
  }
  /* Numba: init = arr.dtype.type(init), default 0, always combined */
  uint64_t init_bits = 0, out_bits = 0;
  kf_arg zero = {.kind = KF_ARG_SCALAR, .dtype = KF_INT64};
  rt_convert_to_dtype(init ? init : &zero, t, &init_bits);
  int64_t n = arr->shape[0];
  if (size >= 0 && size < n) n = size;
  if (n == 0) {
    if (res) {
      st = write_res(rt, res, &init_bits, isz, stream);
      kf_status sync = rt_stream_sync(rt, stream);  /* init_bits is ours */
      if (st == KF_OK) st = sync;
    }
    if (st == KF_OK && result) *result = rt_scalar_read(&init_bits, t);
    return st;
  }

  kf_array in = *arr;
  in.shape[0] = n;
  uint64_t base, tmp;
  bool staged;
  void *partials = NULL;
  bool scratch = false;
  st = rt_stage_array_checked(rt, &in, f->name, 0, true, stream, &base, &tmp, &staged);
  in.data = (void *)(uintptr_t)base;
  if (staged) in.memory = KF_MEMORY_DEVICE;
  /* both passes' kernels first (their thread limits bound the blocks): the input's, and the partials' */
  kf_arg pass1[2] = {array_arg(&in), device_vector(NULL, t, 0)};
  kf_arg pass2[2] = {device_vector(NULL, t, 0), device_vector(NULL, t, 0)};
  RtKernel *k1 = NULL, *k2 = NULL;
  RtDispatchEntry *e1 = NULL, *e2 = NULL;
  if (st == KF_OK) st = rt_function_specialize(f, pass1, 2, &k1, &e1);
  if (st == KF_OK) st = rt_function_specialize(f, pass2, 2, &k2, &e2);
  if (st == KF_OK) {
    unsigned limit = reduce_block_limit(k1), limit2 = reduce_block_limit(k2);
    if (limit2 < limit) limit = limit2;
    unsigned block = 1;
    while (block < limit && (int64_t)block < n) block *= 2;
    /* enough blocks to keep every multiprocessor streaming (8 per SM), not more than have elements; the
     * second pass folds the partials with one block whatever their number (grid-stride) */
    int64_t p = (n + block - 1) / block, most = 8 * (int64_t)(rt->dev->info.multiprocessors > 0
                                                                 ? rt->dev->info.multiprocessors : 1);
    if (p > most) p = most;
    if (p < 1) {
      st = reduce_fail(f, "its kernel allows blocks of only %u thread", limit);
    } else {
      /* partials: p block results, init, the result (in the runtime's scratch memory unless another thread
       * uses it) */
      partials = rt_scratch_acquire(rt, (size_t)(p + 2) * isz, &st);
      scratch = partials != NULL;
      if (!scratch && st == KF_OK) st = rt_device_alloc(rt, (size_t)(p + 2) * isz, &partials);
      if (st == KF_OK) {  /* (no arithmetic on partials unless they were allocated) */
        char *pd = partials;
        RtLaunchShape shape = {.grid = {(unsigned)p, 1, 1}, .block = {block, 1, 1}};
        pass1[1] = device_vector(pd, t, p);
        st = rt_launch(k1, &shape, stream, pass1, 2, e1);
        if (st == KF_OK) st = rt_copy(rt, RT_COPY_HTOD, pd + p * isz, &init_bits, isz, stream);
        unsigned block2 = 1;
        while (block2 < limit && (int64_t)block2 < p + 1) block2 *= 2;
        RtLaunchShape shape2 = {.grid = {1, 1, 1}, .block = {block2, 1, 1}};
        pass2[0] = device_vector(pd, t, p + 1);
        pass2[1] = device_vector(pd + (p + 1) * isz, t, 1);
        if (st == KF_OK) st = rt_launch(k2, &shape2, stream, pass2, 2, e2);
        if (st == KF_OK && res)
          st = res->memory == KF_MEMORY_DEVICE ? rt_copy(rt, RT_COPY_DTOD, res->data, pd + (p + 1) * isz, isz, stream)
                                               : rt_copy(rt, RT_COPY_DTOH, res->data, pd + (p + 1) * isz, isz, stream);
        if (st == KF_OK && result) st = rt_copy(rt, RT_COPY_DTOH, &out_bits, pd + (p + 1) * isz, isz, stream);
      }
    }
  }
  /* the temporaries are freed after the stream's work, also after a failure */
  kf_status sync = rt_stream_sync(rt, stream);
  if (st == KF_OK) st = sync;
  if (scratch) rt_scratch_release(rt);
  else if (partials) rt_device_free(rt, partials);
  rt_stage_free(rt, tmp);
  if (st == KF_OK && result) *result = rt_scalar_read(&out_bits, t);
  return st;
}

/* The entry points: their own messages are about the caller's arguments (ARGUMENT); what they compile and
 * launch reports with its own kinds (typing, launch configuration, device). */
kf_status rt_ufunc_result(RtFunction *f, const kf_arg *inputs, unsigned ninputs, kf_array *out) {
  DiagKind prev = diag_set_kind(DIAG_KIND_ARGUMENT);
  kf_status st = ufunc_result_checked(f, inputs, ninputs, out);
  diag_set_kind(prev);
  return st;
}

kf_status rt_ufunc_call(RtFunction *f, const kf_arg *inputs, unsigned ninputs, const kf_array *out, RtStream *stream) {
  DiagKind prev = diag_set_kind(DIAG_KIND_ARGUMENT);
  kf_status st = rt_stream_fits(f->p->rt, stream, f->name) ? ufunc_call_checked(f, inputs, ninputs, out, stream)
                                                           : KF_ERROR_INVALID_INPUT;
  diag_set_kind(prev);
  return st;
}

kf_status rt_gufunc_result(RtFunction *f, const kf_arg *inputs, unsigned ninputs, kf_array *outs, unsigned nouts) {
  DiagKind prev = diag_set_kind(DIAG_KIND_ARGUMENT);
  kf_status st = gufunc_result_checked(f, inputs, ninputs, outs, nouts);
  diag_set_kind(prev);
  return st;
}

kf_status rt_gufunc_call(RtFunction *f, const kf_arg *args, unsigned nargs, RtStream *stream) {
  DiagKind prev = diag_set_kind(DIAG_KIND_ARGUMENT);
  kf_status st = rt_stream_fits(f->p->rt, stream, f->name) ? gufunc_call_checked(f, args, nargs, stream)
                                                           : KF_ERROR_INVALID_INPUT;
  diag_set_kind(prev);
  return st;
}

kf_status rt_reduce(RtFunction *f, const kf_array *arr, int64_t size, const kf_arg *init, RtStream *stream,
                    kf_arg *result, const kf_array *res) {
  DiagKind prev = diag_set_kind(DIAG_KIND_ARGUMENT);
  kf_status st = reduce_checked(f, arr, size, init, stream, result, res);
  diag_set_kind(prev);
  return st;
}
