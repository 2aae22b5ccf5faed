/* api_intrinsic.c — include/kfront/kir.h's embedder intrinsics: kf_intrinsic_register checks a kf_intrinsic_desc
 * (its name, scalar types, and its lowering against ir/libdevice.def, the one table of libdevice's functions) and
 * keeps it in the context; kf_build_intrinsic checks a use against it, located at the builder's location, and
 * builds the op of its lowering (KF_INTRINSIC_LIBDEVICE: math.libdevice, which the verifier, passes, backend and
 * simulator know already). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/api_builder.h"
#include "ir/libdevice.h"
#include "kfront/kir.h"

typedef struct ApiIntrinsic {
  char *name;
  unsigned nparams;
  Type **params;
  Type *result;
  kf_intrinsic_lowering lowering;
  char *libdevice;  /* "__nv_brev" */
} ApiIntrinsic;

void kf_intrinsic_desc_init(kf_intrinsic_desc *d) {
  if (!d) return;
  memset(d, 0, sizeof *d);
  d->struct_size = sizeof *d;
}

static bool is_intrinsic_name(const char *s) {
  if (!s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '.'))
      return false;
  return true;
}

static const ApiIntrinsic *lookup(const kf_context *ctx, const char *name) {
  for (unsigned i = 0; i < ctx->nintrinsics; i++)
    if (strcmp(ctx->intrinsics[i].name, name) == 0) return &ctx->intrinsics[i];
  return NULL;
}

/* A type's kir text into buf (for messages; no allocation through the context). */
static const char *type_name(const Type *t, char *buf, size_t n) {
  if (!t) return "(null)";
  StrBuf sb;
  sb_init(&sb);
  ty_print(t, &sb);
  snprintf(buf, n, "%s", sb.failed || !sb.data ? "?" : sb.data);
  sb_free(&sb);
  return buf;
}

/* "i32 (i32)": a libdevice function's own signature, from its shape. */
static void libdevice_signature(const LdShape *sh, char *buf, size_t n) {
  size_t at = (size_t)snprintf(buf, n, "%s (", sh->nresults ? ir_libdevice_type_name(sh->results[0]) : "void");
  for (unsigned i = 0; i < sh->nargs && at < n; i++)
    at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? ", " : "", ir_libdevice_type_name(sh->args[i]));
  if (at < n) snprintf(buf + at, n - at, ")");
}

static kf_status refuse(kf_context *ctx, const kf_intrinsic_desc *d, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static kf_status refuse(kf_context *ctx, const kf_intrinsic_desc *d, const char *fmt, ...) {
  char msg[512];
  int at = snprintf(msg, sizeof msg, "kf_intrinsic_register: intrinsic '%s': ", d->name ? d->name : "(null)");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg + at, sizeof msg - (size_t)at, fmt, ap);
  va_end(ap);
  kf_status st = kf_context_report(ctx, 0, KF_ERRKIND_INVALID_ARGUMENT, d->loc, msg);
  return st == KF_ERROR_OUT_OF_MEMORY ? st : KF_ERROR_INVALID_INPUT;
}

/* The checks of a libdevice lowering: the function exists and its arguments and result are the intrinsic's. */
static kf_status check_libdevice(kf_context *ctx, const kf_intrinsic_desc *d) {
  const char *fn = d->libdevice;
  const LibdeviceFn *f = fn && strncmp(fn, "__nv_", 5) == 0 ? ir_libdevice_lookup(fn + 5) : NULL;
  if (!f)
    return refuse(ctx, d, "'%s' is not a libdevice function (ir/libdevice.def: \"__nv_brev\", \"__nv_rsqrtf\", ...)",
                  fn ? fn : "(null)");
  LdShape sh;
  ir_libdevice_shape(f, &sh);
  char sig[128], got[64];
  libdevice_signature(&sh, sig, sizeof sig);
  if (sh.nresults == 0) return refuse(ctx, d, "%s returns nothing (%s)", fn, sig);
  if (sh.nargs != d->nparams)
    return refuse(ctx, d, "%s takes %u arguments (%s), the intrinsic %u parameters", fn, sh.nargs, sig, d->nparams);
  for (unsigned i = 0; i < sh.nargs; i++)
    if (!ir_libdevice_type_is((const Type *)d->params[i], sh.args[i]))
      return refuse(ctx, d, "parameter %u is %s, but argument %u of %s is %s (%s)", i,
                    type_name((const Type *)d->params[i], got, sizeof got), i, fn, ir_libdevice_type_name(sh.args[i]),
                    sig);
  if (!ir_libdevice_type_is((const Type *)d->result, sh.results[0]))
    return refuse(ctx, d, "the result is %s, but %s returns %s (%s)", type_name((const Type *)d->result, got, sizeof got),
                  fn, ir_libdevice_type_name(sh.results[0]), sig);
  return KF_OK;
}

kf_status kf_intrinsic_register(kf_context *ctx, const kf_intrinsic_desc *given) {
  if (!ctx) return KF_ERROR_INVALID_INPUT;
  API_CONTEXT(ctx);
  if (!given) {
    diag_error_kind(&ctx->diag, DIAG_KIND_INVALID_ARGUMENT, (SrcLoc){0}, "kf_intrinsic_register: no descriptor");
    return KF_ERROR_INVALID_INPUT;
  }
  kf_intrinsic_desc dd;
  kf_status st = API_READ_OPTIONS(&ctx->diag, "kf_intrinsic_register", kf_intrinsic_desc, loc, given, &dd);
  if (st != KF_OK) return st;
  const kf_intrinsic_desc *d = &dd;
  if (!is_intrinsic_name(d->name)) return refuse(ctx, d, "not an intrinsic name ([A-Za-z_][A-Za-z0-9_.]*)");
  if (lookup(ctx, d->name)) return refuse(ctx, d, "registered already");
  if (d->nparams && !d->params) return refuse(ctx, d, "%u parameters but no parameter types", d->nparams);
  char buf[64];
  for (unsigned i = 0; i < d->nparams; i++)
    if (!d->params[i] || !ty_is_scalar((const Type *)d->params[i]))
      return refuse(ctx, d, "parameter %u is %s: an intrinsic takes scalars", i,
                    type_name((const Type *)d->params[i], buf, sizeof buf));
  if (!d->result || !ty_is_scalar((const Type *)d->result))
    return refuse(ctx, d, "the result is %s: an intrinsic returns a scalar", type_name((const Type *)d->result, buf,
                                                                                       sizeof buf));
  switch (d->lowering) {
  case KF_INTRINSIC_LIBDEVICE:
    if ((st = check_libdevice(ctx, d)) != KF_OK) return st;
    break;
  default: return refuse(ctx, d, "unknown lowering %d (KF_INTRINSIC_LIBDEVICE)", (int)d->lowering);
  }
  if (ctx->nintrinsics == ctx->intrinsics_cap) {
    unsigned cap = ctx->intrinsics_cap ? ctx->intrinsics_cap * 2 : 4;
    ApiIntrinsic *items = mem_realloc(ctx->intrinsics, cap * sizeof *items);
    if (!items) return api_out_of_memory(ctx);
    ctx->intrinsics = items;
    ctx->intrinsics_cap = cap;
  }
  ApiIntrinsic in = {.nparams = d->nparams, .result = (Type *)d->result, .lowering = d->lowering};
  in.name = mem_strdup(d->name);
  in.libdevice = mem_strdup(d->libdevice);
  in.params = d->nparams ? mem_calloc(d->nparams, sizeof *in.params) : NULL;
  if (!in.name || !in.libdevice || (d->nparams && !in.params)) {
    mem_free(in.name);
    mem_free(in.libdevice);
    mem_free(in.params);
    return api_out_of_memory(ctx);
  }
  for (unsigned i = 0; i < d->nparams; i++) in.params[i] = (Type *)d->params[i];
  ctx->intrinsics[ctx->nintrinsics++] = in;
  return KF_OK;
}

void api_intrinsics_free(kf_context *ctx) {
  for (unsigned i = 0; i < ctx->nintrinsics; i++) {
    mem_free(ctx->intrinsics[i].name);
    mem_free(ctx->intrinsics[i].libdevice);
    mem_free(ctx->intrinsics[i].params);
  }
  mem_free(ctx->intrinsics);
  ctx->intrinsics = NULL;
  ctx->nintrinsics = ctx->intrinsics_cap = 0;
}

kf_status kf_build_intrinsic(kf_builder *b, const char *name, unsigned nargs, kf_ir_value *const *args,
                             kf_ir_value **out) {
  if (out) *out = NULL;
  if (!b) return KF_ERROR_INVALID_INPUT;
  if (b->spent) return KF_ERROR_OUT_OF_MEMORY;
  API_CONTEXT(b->km->ctx);
  if (!out) return api_build_error(b, "kf_build_intrinsic: out is NULL");
  if (!name) return api_build_error(b, "kf_build_intrinsic: no intrinsic name");
  const ApiIntrinsic *in = lookup(b->km->ctx, name);
  if (!in) return api_build_error(b, "unknown intrinsic '%s': none of that name is registered (kf_intrinsic_register)",
                                  name);
  if (nargs != in->nparams)
    return api_build_error(b, "intrinsic '%s' takes %u argument%s, got %u", name, in->nparams,
                           in->nparams == 1 ? "" : "s", nargs);
  char want[64], got[64];
  for (unsigned i = 0; i < nargs; i++) {
    if (!args || !args[i]) return api_build_error(b, "intrinsic '%s': argument %u is NULL", name, i);
    const Type *t = kf_value_type(args[i]) ? (const Type *)kf_value_type(args[i]) : NULL;
    if (t != in->params[i])
      return api_build_error(b, "intrinsic '%s': argument %u must be %s, got %s", name, i,
                             type_name(in->params[i], want, sizeof want), type_name(t, got, sizeof got));
  }
  /* KF_INTRINSIC_LIBDEVICE, the one lowering (checked at registration). */
  kf_attr *fn = NULL;
  kf_status st = kf_attr_string(b, in->libdevice, &fn);
  if (st != KF_OK) return st;
  kf_named_attr na = {"name", fn};
  kf_type *rt = (kf_type *)in->result;
  kf_op_state s = {.name = "math.libdevice", .noperands = nargs, .operands = args, .nresults = 1,
                   .result_types = &rt, .nattrs = 1, .attrs = &na};
  kf_op *op = NULL;
  if ((st = kf_build_op(b, &s, &op)) != KF_OK) return st;
  *out = kf_op_result(op, 0);
  return KF_OK;
}
