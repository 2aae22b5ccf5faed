/* api_builder.c — include/kfront/kir.h: building kir in memory (types, attributes, locations, modules,
 * functions, blocks, ops by name and the typed helpers, scf.if / scf.for), over ir/builder.c's IrBuilder. The
 * variables' SSA construction is api_ssa.c's.
 *
 * Every entry point that changes IR checks its input first (a located diagnostic at the builder's location and
 * KF_ERROR_INVALID_INPUT), then does the work under a guard reporting to the context (api_internal.h): an
 * allocation failure there is KF_ERROR_OUT_OF_MEMORY and spends the builder (api_builder.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/api_builder.h"

#define TY(t) ((Type *)(t))
#define VAL(v) ((Value *)(v))

/* ---- errors, growth, guards ------------------------------------------------------------------ */

kf_status api_build_error_at(kf_builder *b, SrcLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_report_ex(&b->km->ctx->diag, DIAG_ERROR, DIAG_KIND_INVALID_IR, loc, 0, true, fmt, ap);
  va_end(ap);
  return KF_ERROR_INVALID_INPUT;
}

kf_status api_build_error(kf_builder *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_report_ex(&b->km->ctx->diag, DIAG_ERROR, DIAG_KIND_INVALID_IR, b->ib.loc, 0, true, fmt, ap);
  va_end(ap);
  return KF_ERROR_INVALID_INPUT;
}

bool api_build_grow(kf_builder *b, void **items, unsigned *cap, unsigned need, size_t size) {
  if (need <= *cap) return true;
  unsigned ncap = *cap ? *cap : 4;
  while (ncap < need) ncap *= 2;
  void *p = mem_realloc_like(b, *items, size * ncap);
  if (!p) return false;
  *items = p;
  *cap = ncap;
  return true;
}

typedef kf_status (*BuildFn)(kf_builder *b, void *args);
typedef struct Guarded {
  kf_builder *b;
  BuildFn fn;
  void *args;
  kf_status st;
} Guarded;

static void guarded(void *p) {
  Guarded *g = p;
  g->st = g->fn(g->b, g->args);
}

/* Runs fn(b, args) under a guard (the caller is in the context's allocator scope). */
static kf_status run(kf_builder *b, BuildFn fn, void *args) {
  if (b->spent) return KF_ERROR_OUT_OF_MEMORY;
  Guarded g = {b, fn, args, KF_OK};
  if (!diag_guard(&b->km->ctx->diag, guarded, &g)) {
    b->spent = true;
    return KF_ERROR_OUT_OF_MEMORY;
  }
  return g.st;
}

/* The entry-point prologue of a builder call: NULL builder, then the allocator scope. */
#define BUILDER_CALL(b)                                        \
  if (!(b)) return KF_ERROR_INVALID_INPUT;                     \
  if ((b)->spent) return KF_ERROR_OUT_OF_MEMORY;               \
  API_CONTEXT((b)->km->ctx)

#define NEED(cond, ...)                                        \
  do {                                                         \
    if (!(cond)) return api_build_error(b, __VA_ARGS__);       \
  } while (0)

/* A type's text for diagnostics (into buf). */
static const char *type_text(const Type *t, char *buf, size_t n) {
  if (!t) return "(null)";
  StrBuf sb;
  sb_init(&sb);
  ty_print(t, &sb);
  snprintf(buf, n, "%s", sb.failed || !sb.data ? "?" : sb.data);
  sb_free(&sb);
  return buf;
}

/* ---- types ----------------------------------------------------------------------------------- */

static kf_status type_result(kf_context *ctx, Type *t, kf_type **out) {
  if (!t) return api_out_of_memory(ctx);
  *out = (kf_type *)t;
  return KF_OK;
}

kf_status kf_type_scalar(kf_context *ctx, kf_dtype dtype, kf_type **out) {
  *out = NULL;
  API_CONTEXT(ctx);
  IrContext *c = ctx->ir;
  Type *t;
  switch (dtype) {
  case KF_BOOL: t = ty_bool(c); break;
  case KF_INT8: case KF_INT16: case KF_INT32: case KF_INT64:
    t = ty_int(c, 8u << (dtype - KF_INT8), false);
    break;
  case KF_UINT8: case KF_UINT16: case KF_UINT32: case KF_UINT64:
    t = ty_int(c, 8u << (dtype - KF_UINT8), true);
    break;
  case KF_FLOAT16: t = ty_float(c, 16); break;
  case KF_FLOAT32: t = ty_float(c, 32); break;
  case KF_FLOAT64: t = ty_float(c, 64); break;
  case KF_BFLOAT16: t = ty_bf16(c); break;
  case KF_COMPLEX64: case KF_COMPLEX128: {
    Type *f = ty_float(c, dtype == KF_COMPLEX64 ? 32 : 64);
    t = f ? ty_complex(c, f) : NULL;
    break;
  }
  default:
    diag_error_kind(&ctx->diag, DIAG_KIND_INVALID_ARGUMENT, (SrcLoc){0}, "kf_type_scalar: dtype %d is not a scalar dtype (spell record, datetime64 "
               "and timedelta64 types for kf_type_parse)", (int)dtype);
    return KF_ERROR_INVALID_INPUT;
  }
  return type_result(ctx, t, out);
}

kf_status kf_type_array(kf_context *ctx, kf_type *elem, unsigned rank, char layout, kf_type **out) {
  *out = NULL;
  API_CONTEXT(ctx);
  if (!elem || !ty_is_element(TY(elem)) || rank < 1 || rank > KF_MAX_RANK ||
      (layout != 'C' && layout != 'F' && layout != 'A')) {
    char buf[128];
    diag_error_kind(&ctx->diag, DIAG_KIND_INVALID_IR, (SrcLoc){0}, "kf_type_array: an array of %s, rank %u, layout '%c' is not a kir array "
               "type (a scalar, complex or record element; rank 1..%d; layout 'C', 'F' or 'A')",
               type_text(TY(elem), buf, sizeof buf), rank, layout ? layout : '0', KF_MAX_RANK);
    return KF_ERROR_INVALID_INPUT;
  }
  return type_result(ctx, ty_array(ctx->ir, TY(elem), rank, layout), out);
}

static bool all_types(kf_context *ctx, const char *fn, unsigned n, kf_type *const *ts) {
  if (n && !ts) {
    diag_error_kind(&ctx->diag, DIAG_KIND_INVALID_ARGUMENT, (SrcLoc){0}, "%s: %u types given as NULL", fn, n);
    return false;
  }
  for (unsigned i = 0; i < n; i++)
    if (!ts[i]) {
      diag_error_kind(&ctx->diag, DIAG_KIND_INVALID_ARGUMENT, (SrcLoc){0}, "%s: type %u is NULL", fn, i);
      return false;
    }
  return true;
}

kf_status kf_type_tuple(kf_context *ctx, unsigned n, kf_type *const *elems, kf_type **out) {
  *out = NULL;
  API_CONTEXT(ctx);
  if (!all_types(ctx, "kf_type_tuple", n, elems)) return KF_ERROR_INVALID_INPUT;
  return type_result(ctx, ty_tuple(ctx->ir, n, (Type *const *)elems), out);
}

kf_status kf_type_function(kf_context *ctx, unsigned nparams, kf_type *const *params, unsigned nresults,
                           kf_type *const *results, kf_type **out) {
  *out = NULL;
  API_CONTEXT(ctx);
  if (!all_types(ctx, "kf_type_function", nparams, params) || !all_types(ctx, "kf_type_function", nresults, results))
    return KF_ERROR_INVALID_INPUT;
  return type_result(ctx, ty_func(ctx->ir, nparams, (Type *const *)params, nresults, (Type *const *)results), out);
}

kf_status kf_type_parse(kf_context *ctx, const char *text, kf_type **out) {
  *out = NULL;
  API_CONTEXT(ctx);
  if (!text) {
    diag_error_kind(&ctx->diag, DIAG_KIND_INVALID_ARGUMENT, (SrcLoc){0}, "kf_type_parse: no text");
    return KF_ERROR_INVALID_INPUT;
  }
  size_t len = strlen(text), pos = 0;
  while (pos < len && (text[pos] == ' ' || text[pos] == '\t')) pos++;
  Type *t = ty_parse(ctx->ir, text, len, &pos);
  while (t && pos < len && (text[pos] == ' ' || text[pos] == '\t')) pos++;
  if (!t || pos != len) {
    diag_error_kind(&ctx->diag, DIAG_KIND_SYNTAX, (SrcLoc){0}, "'%s' is not a kir type", text);
    return KF_ERROR_INVALID_INPUT;
  }
  *out = (kf_type *)t;
  return KF_OK;
}

kf_status kf_type_print(kf_context *ctx, const kf_type *t, char **out) {
  *out = NULL;
  API_CONTEXT(ctx);
  if (!t) {
    diag_error_kind(&ctx->diag, DIAG_KIND_INVALID_ARGUMENT, (SrcLoc){0}, "kf_type_print: no type");
    return KF_ERROR_INVALID_INPUT;
  }
  StrBuf sb;
  sb_init(&sb);
  ty_print(TY(t), &sb);
  *out = sb_take(&sb);
  return *out ? KF_OK : api_out_of_memory(ctx);
}

/* ---- sources --------------------------------------------------------------------------------- */

kf_status kf_context_add_source(kf_context *ctx, const char *file, const char *text, size_t len) {
  API_CONTEXT(ctx);
  if (!file || (!text && len)) {
    diag_error_kind(&ctx->diag, DIAG_KIND_INVALID_ARGUMENT, (SrcLoc){0}, "kf_context_add_source: %s", file ? "no text" : "no file name");
    return KF_ERROR_INVALID_INPUT;
  }
  kf_source *grown = mem_realloc(ctx->sources, sizeof *grown * (ctx->nsources + 1));
  if (!grown) return api_out_of_memory(ctx);
  ctx->sources = grown;
  char *f = mem_strdup(file), *t = mem_alloc(len + 1);
  if (f && t) {
    if (len) memcpy(t, text, len);
    t[len] = 0;
  }
  if (!f || !t || !diag_add_source(&ctx->diag, f, t, len)) {
    mem_free(f);
    mem_free(t);
    return api_out_of_memory(ctx);
  }
  ctx->sources[ctx->nsources++] = (kf_source){f, t, len, 1};
  return KF_OK;
}

static void report_fmt(Diag *d, DiagLevel level, DiagKind kind, SrcLoc at, unsigned end_col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static void report_fmt(Diag *d, DiagLevel level, DiagKind kind, SrcLoc at, unsigned end_col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_report_ex(d, level, kind, at, end_col, true, fmt, ap);
  va_end(ap);
}

/* An embedder's diagnostic: kind kept for warnings and notes too; a note belongs to the diagnostic before it. */
static kf_status report(kf_context *ctx, DiagLevel level, DiagKind kind, kf_location loc, unsigned end_col,
                        const char *message) {
  SrcLoc at = loc.file ? srcloc(loc.file, loc.line, loc.col) : (SrcLoc){0};
  report_fmt(&ctx->diag, level, kind, at, end_col, "%s", message);
  return KF_OK;
}

kf_status kf_context_report(kf_context *ctx, int level, kf_error_kind kind, kf_location loc, const char *message) {
  API_CONTEXT(ctx);
  if (!message || level < 0 || level > 2 || kind < KF_ERRKIND_NONE || kind > KF_ERRKIND_LAST ||
      (level == 0 && kind == KF_ERRKIND_NONE)) {
    diag_error_kind(&ctx->diag, DIAG_KIND_INVALID_ARGUMENT, (SrcLoc){0}, "kf_context_report: %s", !message ? "no message"
               : level < 0 || level > 2 ? "level must be 0 (error), 1 (warning) or 2 (note)"
               : "kind must be a kf_error_kind other than KF_ERRKIND_NONE");
    return KF_ERROR_INVALID_INPUT;
  }
  return report(ctx, (DiagLevel)level, (DiagKind)kind, loc, 0, message);
}

kf_status kf_context_report_diagnostic(kf_context *ctx, const kf_diagnostic *d) {
  API_CONTEXT(ctx);
  if (!d || !d->message || (unsigned)d->severity > KF_SEVERITY_NOTE || d->kind < KF_ERRKIND_NONE ||
      d->kind > KF_ERRKIND_LAST || (d->severity == KF_SEVERITY_ERROR && d->kind == KF_ERRKIND_NONE)) {
    diag_error_kind(&ctx->diag, DIAG_KIND_INVALID_ARGUMENT, (SrcLoc){0}, "kf_context_report_diagnostic: %s",
                    !d || !d->message ? "no diagnostic or no message"
                    : (unsigned)d->severity > KF_SEVERITY_NOTE ? "severity must be a kf_severity"
                    : "kind must be a kf_error_kind, not KF_ERRKIND_NONE for an error");
    return KF_ERROR_INVALID_INPUT;
  }
  kf_location loc = {d->file, d->line, d->col};
  return report(ctx, (DiagLevel)d->severity, (DiagKind)d->kind, loc, d->end_col, d->message);
}

/* ---- modules and builders -------------------------------------------------------------------- */

kf_status kf_module_create(kf_context *ctx, const char *name, kf_module **out) {
  *out = NULL;
  API_CONTEXT(ctx);
  kf_module *km = mem_calloc(1, sizeof *km);
  char *n = mem_strdup(name ? name : "<builder>");
  Module *m = ir_module_new(ctx->ir, n ? n : "");
  if (!km || !n || !m) {
    mem_free(km);
    mem_free(n);
    ir_module_free(m);
    return api_out_of_memory(ctx);
  }
  km->ctx = ctx;
  km->ir = m;
  km->filename = n;
  *out = km;
  return KF_OK;
}

kf_status kf_builder_create(kf_module *m, kf_builder **out) {
  *out = NULL;
  if (!m) return KF_ERROR_INVALID_INPUT;
  API_CONTEXT(m->ctx);
  kf_builder *b = mem_calloc(1, sizeof *b);
  if (!b) return api_out_of_memory(m->ctx);
  b->km = m;
  ib_init(&b->ib, m->ir);
  b->block_nodes.owner = b;
  b->phis.owner = b;
  b->maybe_undef.owner = b;
  *out = b;
  return KF_OK;
}

void kf_builder_destroy(kf_builder *b) {
  if (!b) return;
  API_CONTEXT(b->km->ctx);
  for (unsigned i = 0; i < b->nnodes; i++) {
    SsaNode *n = b->nodes[i];
    mem_free(n->edges);
    mem_free(n->defs);
    mem_free(n->incomplete);
    mem_free(n);
  }
  for (unsigned i = 0; i < b->nvars; i++) mem_free(b->vars[i]);
  mem_free(b->nodes);
  mem_free(b->vars);
  mem_free(b->open);
  ptrmap_free(&b->block_nodes);
  ptrmap_free(&b->phis);
  ptrmap_free(&b->maybe_undef);
  mem_free(b);
}

static kf_status do_set_location(kf_builder *b, void *args) {
  const kf_location *loc = args;
  const char *file = b->ib.loc.file;
  if (loc->file && (!file || strcmp(file, loc->file) != 0)) file = arena_strdup(&b->km->ir->arena, loc->file);
  b->ib.loc = loc->file ? srcloc(file, loc->line, loc->col) : (SrcLoc){0};
  return KF_OK;
}

kf_status kf_builder_set_location(kf_builder *b, kf_location loc) {
  BUILDER_CALL(b);
  return run(b, do_set_location, &loc);
}

/* The block of the innermost open construct's current region (NULL when none is open): while one is open, the
 * only place the builder builds. */
static Block *open_block(kf_builder *b) {
  if (!b->nopen) return NULL;
  const OpenConstruct *c = &b->open[b->nopen - 1];
  return c->has_else ? c->placeholder->regions[1].first : c->first->block;
}

kf_status kf_builder_set_insertion_end(kf_builder *b, kf_block *block) {
  BUILDER_CALL(b);
  Block *blk = (Block *)block;
  NEED(blk && blk->region, "kf_builder_set_insertion_end: %s", blk ? "the block is in no region" : "no block");
  NEED(!b->nopen || blk == open_block(b),
       "kf_builder_set_insertion_end: the block is outside the innermost open scf construct (end it first)");
  ib_set_end(&b->ib, blk);
  b->cur = ptrmap_get(&b->block_nodes, blk);
  return KF_OK;
}

kf_status kf_builder_set_insertion_before(kf_builder *b, kf_op *op) {
  BUILDER_CALL(b);
  Op *o = (Op *)op;
  NEED(o && o->block, "kf_builder_set_insertion_before: %s", o ? "the op is in no block" : "no op");
  NEED(!b->nopen || o->block == open_block(b),
       "kf_builder_set_insertion_before: the op is outside the innermost open scf construct (end it first)");
  ib_set_before(&b->ib, o);
  b->cur = ptrmap_get(&b->block_nodes, o->block);
  return KF_OK;
}

kf_block *kf_builder_insertion_block(kf_builder *b) { return b ? (kf_block *)b->ib.block : NULL; }

/* ---- functions, regions, blocks -------------------------------------------------------------- */

static bool is_symbol(const char *s) {
  if (!*s || (*s >= '0' && *s <= '9')) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
          *s == '$' || *s == '.'))
      return false;
  return true;
}

typedef struct FunctionArgs {
  const char *name;
  Type *type;
  unsigned flags;
  Op *func;
} FunctionArgs;

static kf_status do_function(kf_builder *b, void *args) {
  FunctionArgs *a = args;
  Module *m = b->km->ir;
  a->func = ir_func_create(m, a->name, a->type, b->ib.loc);
  if (a->flags & KF_FUNCTION_FLAG_KERNEL) ir_op_set_attr(m, a->func, "kernel", attr_unit());
  if (a->flags & KF_FUNCTION_FLAG_DEVICE) ir_op_set_attr(m, a->func, "device", attr_unit());
  if (a->flags & KF_FUNCTION_FLAG_EXTERN) {
    /* a declaration, resolved by the link step (backend/link.c), as lower_foreign.c's of cuda.declare_device: the
     * `foreign` attribute, and no body (ir_func_create's entry block goes); the insertion point stays */
    ir_op_set_attr(m, a->func, "foreign", attr_unit());
    ir_block_unlink(ir_func_entry(a->func));
    return KF_OK;
  }
  Block *entry = ir_func_entry(a->func);
  ib_set_end(&b->ib, entry);
  b->cur = ssa_node_new(b, NODE_BLOCK, entry, NULL);
  b->cur->sealed = true;
  return KF_OK;
}

kf_status kf_build_function(kf_builder *b, const char *name, const kf_type *fn_type, unsigned flags, kf_op **out) {
  if (out) *out = NULL;
  BUILDER_CALL(b);
  NEED(out, "kf_build_function: no place for the function (out is NULL)");
  NEED(name && is_symbol(name), "'%s' is not a function name: letters, digits, '_', '$' and '.', not first a digit",
       name ? name : "(null)");
  NEED(!ir_module_lookup(b->km->ir, name), "the module already has a symbol '%s'", name);
  NEED(fn_type && TY(fn_type)->kind == TY_FUNC, "function '%s': its type must be a function type", name);
  NEED(!(flags & ~7u), "function '%s': unknown flags 0x%x", name, flags & ~7u);
  NEED(!((flags & KF_FUNCTION_FLAG_KERNEL) && TY(fn_type)->nresults), "kernel '%s' must return no values", name);
  if (flags & KF_FUNCTION_FLAG_EXTERN) {
    NEED(!(flags & KF_FUNCTION_FLAG_KERNEL), "function '%s': an extern function is a device function, not a kernel",
         name);
    const Type *ft = TY(fn_type);
    NEED(ft->nresults <= 1, "extern function '%s': a C function returns at most one value, not %u", name, ft->nresults);
    for (unsigned i = 0; i <= ft->n; i++) {
      const Type *t = i < ft->n ? ft->elems[i] : ft->nresults ? ft->results[0] : NULL;
      char buf[96];
      NEED(!t || ty_is_scalar(t) || t->kind == TY_PTR, "extern function '%s': %s %u is %s; an extern function takes "
           "and returns numbers, booleans and pointers (C's types)", name, i < ft->n ? "parameter" : "result",
           i < ft->n ? i + 1 : 1, type_text(t, buf, sizeof buf));
    }
  }
  NEED(!b->nopen, "function '%s': an scf construct is still open", name);
  FunctionArgs a = {name, TY(fn_type), flags, NULL};
  kf_status st = run(b, do_function, &a);
  if (st == KF_OK) *out = (kf_op *)a.func;
  return st;
}

kf_block *kf_function_entry(kf_op *func) {
  Op *f = (Op *)func;
  return f && f->kind == OP_FUNC_FUNC ? (kf_block *)ir_func_entry(f) : NULL;
}

kf_region *kf_op_region(kf_op *op, unsigned i) {
  Op *o = (Op *)op;
  return o && i < o->nregions ? (kf_region *)&o->regions[i] : NULL;
}
kf_block *kf_region_first_block(kf_region *r) { return r ? (kf_block *)((Region *)r)->first : NULL; }
kf_block *kf_block_next(kf_block *block) { return block ? (kf_block *)((Block *)block)->next : NULL; }

typedef struct BlockArgs {
  Region *region;
  Block *block;
} BlockArgs;

static kf_status do_block(kf_builder *b, void *args) {
  BlockArgs *a = args;
  a->block = ir_block_new(b->km->ir);
  ir_region_append_block(a->region, a->block);
  /* a function body's block is a node of its own; an embedder's region of another op is its own business */
  Op *parent = a->region->parent;
  if (parent && parent->kind == OP_FUNC_FUNC) ssa_node_new(b, NODE_BLOCK, a->block, NULL);
  return KF_OK;
}

kf_status kf_block_create(kf_builder *b, kf_region *r, kf_block **out) {
  if (out) *out = NULL;
  BUILDER_CALL(b);
  NEED(r && out, "kf_block_create: %s", r ? "out is NULL" : "no region");
  Region *reg = (Region *)r;
  NEED(reg->parent, "kf_block_create: the module's body takes no blocks");
  NEED(!(reg->parent->kind == OP_IF || reg->parent->kind == OP_FOR) || !reg->first,
       "kf_block_create: a region of '%s' has one block", op_name(reg->parent));
  BlockArgs a = {reg, NULL};
  kf_status st = run(b, do_block, &a);
  if (st == KF_OK) *out = (kf_block *)a.block;
  return st;
}

typedef struct ArgArgs {
  Block *block;
  Type *type;
  Value *arg;
} ArgArgs;

static kf_status do_add_arg(kf_builder *b, void *args) {
  ArgArgs *a = args;
  a->arg = ir_block_add_arg(b->km->ir, a->block, a->type);
  return KF_OK;
}

kf_status kf_block_add_arg(kf_builder *b, kf_block *block, const kf_type *t, kf_ir_value **out) {
  if (out) *out = NULL;
  BUILDER_CALL(b);
  Block *blk = (Block *)block;
  NEED(blk && t, "kf_block_add_arg: %s", blk ? "no type" : "no block");
  SsaNode *n = ptrmap_get(&b->block_nodes, blk);
  NEED(!n || (!n->nedges && !n->nincomplete), "kf_block_add_arg: the block already has predecessors or the "
       "variables' arguments: add its own arguments first");
  NEED(!(blk->region && blk->region->parent && blk->region->parent->kind == OP_FUNC_FUNC &&
         blk == blk->region->first), "kf_block_add_arg: the entry block's arguments are the function's parameters");
  ArgArgs a = {blk, TY(t), NULL};
  kf_status st = run(b, do_add_arg, &a);
  if (st == KF_OK && out) *out = (kf_ir_value *)a.arg;
  return st;
}

unsigned kf_block_num_args(kf_block *block) { return block ? ((Block *)block)->nargs : 0; }
kf_ir_value *kf_block_arg(kf_block *block, unsigned i) {
  Block *blk = (Block *)block;
  return blk && i < blk->nargs ? (kf_ir_value *)blk->args[i] : NULL;
}

static kf_status do_seal(kf_builder *b, void *args) { return ssa_seal(b, args); }

kf_status kf_block_seal(kf_builder *b, kf_block *block) {
  BUILDER_CALL(b);
  SsaNode *n = block ? ptrmap_get(&b->block_nodes, (Block *)block) : NULL;
  NEED(n && n->kind == NODE_BLOCK, "kf_block_seal: %s", block ? "not a block of a function the builder made" :
       "no block");
  if (n->sealed) return KF_OK;
  return run(b, do_seal, n);
}

/* ---- values, ops, attributes ----------------------------------------------------------------- */

kf_type *kf_value_type(const kf_ir_value *v) { return v ? (kf_type *)VAL(v)->type : NULL; }
unsigned kf_op_num_results(const kf_op *op) { return op ? ((const Op *)op)->nresults : 0; }
kf_ir_value *kf_op_result(kf_op *op, unsigned i) {
  Op *o = (Op *)op;
  return o && i < o->nresults ? (kf_ir_value *)op_result(o, i) : NULL;
}
const char *kf_op_name(const kf_op *op) { return op ? op_name((const Op *)op) : NULL; }

typedef struct AttrArgs {
  Attr value;
  const char *text;   /* ATTR_STR, ATTR_SYM */
  unsigned n;         /* ATTR_ARRAY */
  kf_attr *const *elems;
  Attr *made;
} AttrArgs;

static kf_status do_attr(kf_builder *b, void *args) {
  AttrArgs *a = args;
  Module *m = b->km->ir;
  a->made = ARENA_NEW(&m->arena, Attr);
  if (a->value.kind == ATTR_STR) a->value = attr_str(m, a->text);
  else if (a->value.kind == ATTR_SYM) a->value = attr_sym(m, a->text);
  else if (a->value.kind == ATTR_ARRAY) {
    Attr *elems = ARENA_ARRAY(&m->arena, Attr, a->n ? a->n : 1);
    for (unsigned i = 0; i < a->n; i++) elems[i] = *(Attr *)a->elems[i];
    a->value = attr_array(m, a->n, elems);
  }
  *a->made = a->value;
  return KF_OK;
}

static kf_status make_attr(kf_builder *b, AttrArgs *a, kf_attr **out) {
  kf_status st = run(b, do_attr, a);
  if (st == KF_OK) *out = (kf_attr *)a->made;
  return st;
}

#define ATTR_CALL(b, out)                                                   \
  if (out) *out = NULL;                                                     \
  BUILDER_CALL(b);                                                          \
  NEED(out, "%s: out is NULL", __func__)

kf_status kf_attr_unit(kf_builder *b, kf_attr **out) {
  ATTR_CALL(b, out);
  AttrArgs a = {.value = attr_unit()};
  return make_attr(b, &a, out);
}

kf_status kf_attr_bool(kf_builder *b, int value, kf_attr **out) {
  ATTR_CALL(b, out);
  AttrArgs a = {.value = attr_bool(value != 0)};
  return make_attr(b, &a, out);
}

static bool int_fits(const Type *t, int64_t v) {
  if (t->kind == TY_BOOL) return v == 0 || v == 1;
  if (t->bits >= 64) return true;
  if (t->is_unsigned) return v >= 0 && (uint64_t)v < (1ull << t->bits);
  int64_t lim = (int64_t)1 << (t->bits - 1);
  return v >= -lim && v < lim;
}

kf_status kf_attr_int(kf_builder *b, const kf_type *t, int64_t value, kf_attr **out) {
  ATTR_CALL(b, out);
  char buf[128];
  NEED(t && ty_is_int_or_bool(TY(t)), "kf_attr_int: %s is not an integer type", type_text(TY(t), buf, sizeof buf));
  NEED(int_fits(TY(t), value), "kf_attr_int: %lld does not fit %s", (long long)value, type_text(TY(t), buf, sizeof buf));
  AttrArgs a = {.value = attr_int(TY(t), value)};
  return make_attr(b, &a, out);
}

kf_status kf_attr_float(kf_builder *b, const kf_type *t, double value, kf_attr **out) {
  ATTR_CALL(b, out);
  char buf[128];
  NEED(t && ty_is_float(TY(t)), "kf_attr_float: %s is not a float type", type_text(TY(t), buf, sizeof buf));
  AttrArgs a = {.value = attr_float(TY(t), TY(t)->bits == 32 ? (double)(float)value : value)};
  return make_attr(b, &a, out);
}

kf_status kf_attr_string(kf_builder *b, const char *s, kf_attr **out) {
  ATTR_CALL(b, out);
  NEED(s, "kf_attr_string: no text");
  AttrArgs a = {.value = {.kind = ATTR_STR}, .text = s};
  return make_attr(b, &a, out);
}

kf_status kf_attr_symbol(kf_builder *b, const char *name, kf_attr **out) {
  ATTR_CALL(b, out);
  NEED(name && *name, "kf_attr_symbol: no name");
  AttrArgs a = {.value = {.kind = ATTR_SYM}, .text = name};
  return make_attr(b, &a, out);
}

kf_status kf_attr_type(kf_builder *b, const kf_type *t, kf_attr **out) {
  ATTR_CALL(b, out);
  NEED(t, "kf_attr_type: no type");
  AttrArgs a = {.value = attr_type(TY(t))};
  return make_attr(b, &a, out);
}

kf_status kf_attr_array(kf_builder *b, unsigned n, kf_attr *const *elems, kf_attr **out) {
  ATTR_CALL(b, out);
  NEED(!n || elems, "kf_attr_array: %u elements given as NULL", n);
  for (unsigned i = 0; i < n; i++) NEED(elems[i], "kf_attr_array: element %u is NULL", i);
  AttrArgs a = {.value = {.kind = ATTR_ARRAY}, .n = n, .elems = elems};
  return make_attr(b, &a, out);
}

/* ---- ops ------------------------------------------------------------------------------------- */

typedef struct OpArgs {
  const kf_op_state *s;
  OpKind kind;
  Op *op;
} OpArgs;

static kf_status do_op(kf_builder *b, void *args) {
  OpArgs *a = args;
  const kf_op_state *s = a->s;
  Module *m = b->km->ir;
  Op *op = ir_op_create(m, a->kind, b->ib.loc, s->noperands, (Value *const *)s->operands, s->nresults,
                        (Type *const *)s->result_types, s->nregions);
  if (s->nsuccessors) ir_op_set_successors(m, op, s->nsuccessors, (Block *const *)s->successors, s->succ_operand_counts);
  for (unsigned i = 0; i < s->nattrs; i++) ir_op_set_attr(m, op, s->attrs[i].name, *(const Attr *)s->attrs[i].value);
  ib_insert(&b->ib, op);
  kf_status st = KF_OK;
  for (unsigned k = 0; k < op->nsuccessors; k++) {
    SsaNode *to = ptrmap_get(&b->block_nodes, op->successors[k]);
    if (to && b->cur && st == KF_OK) st = ssa_add_edge(b, to, op, k);
  }
  a->op = op;
  return st;
}

static kf_status check_values(kf_builder *b, const char *what, const char *name, unsigned n, kf_ir_value *const *vs) {
  NEED(!n || vs, "'%s': %u %ss given as NULL", name, n, what);
  for (unsigned i = 0; i < n; i++) NEED(vs[i], "'%s': %s %u is NULL", name, what, i);
  return KF_OK;
}

static kf_status check_count(kf_builder *b, const char *name, const char *what, int expected, unsigned given) {
  if (expected >= 0 && (unsigned)expected != given)
    return api_build_error(b, "'%s' takes %d %s%s, given %u", name, expected, what, expected == 1 ? "" : "s", given);
  return KF_OK;
}

/* Whether the builder may add an op there: an insertion point, and no terminator or scf construct at a place
 * the builder manages itself. */
static kf_status check_op_state(kf_builder *b, const kf_op_state *s, OpKind *kind) {
  NEED(s && s->name, "kf_build_op: %s", s ? "no op name" : "no op state");
  int k = ir_op_lookup(s->name, strlen(s->name));
  NEED(k >= 0, "'%s' is not a kir op (kfront-opt --list-ops lists them)", s->name);
  const OpInfo *info = &ir_op_info[k];
  kf_status st;
  if ((st = check_count(b, s->name, "operand", info->noperands, s->noperands)) != KF_OK) return st;
  if ((st = check_count(b, s->name, "result", info->nresults, s->nresults)) != KF_OK) return st;
  if ((st = check_count(b, s->name, "region", info->nregions, s->nregions)) != KF_OK) return st;
  if ((st = check_count(b, s->name, "successor", info->nsuccessors, s->nsuccessors)) != KF_OK) return st;
  if ((st = check_values(b, "operand", s->name, s->noperands, s->operands)) != KF_OK) return st;
  NEED(!s->nresults || s->result_types, "'%s': %u result types given as NULL", s->name, s->nresults);
  for (unsigned i = 0; i < s->nresults; i++) NEED(s->result_types[i], "'%s': result type %u is NULL", s->name, i);
  NEED(!s->nsuccessors || s->successors, "'%s': %u successors given as NULL", s->name, s->nsuccessors);
  unsigned succ_ops = 0;
  for (unsigned i = 0; i < s->nsuccessors; i++) {
    NEED(s->successors[i], "'%s': successor %u is NULL", s->name, i);
    Block *to = (Block *)s->successors[i];
    SsaNode *n = ptrmap_get(&b->block_nodes, to);
    NEED(!n || !n->sealed, "'%s': successor %u is a sealed block (kf_block_seal): it takes no more branches", s->name, i);
    NEED(!b->ib.block || to->region == b->ib.block->region, "'%s': successor %u is in another region", s->name, i);
    succ_ops += s->succ_operand_counts ? s->succ_operand_counts[i] : 0;
  }
  NEED(succ_ops <= s->noperands, "'%s': its successors take %u operands, more than the %u given", s->name, succ_ops,
       s->noperands);
  NEED(!s->nattrs || s->attrs, "'%s': %u attributes given as NULL", s->name, s->nattrs);
  for (unsigned i = 0; i < s->nattrs; i++)
    NEED(s->attrs[i].name && *s->attrs[i].name && s->attrs[i].value, "'%s': attribute %u has no %s", s->name, i,
         s->attrs[i].name && *s->attrs[i].name ? "value" : "name");
  NEED(b->ib.block, "'%s': the builder has no insertion point", s->name);
  NEED(k != OP_FUNC_FUNC && k != OP_GLOBAL, "'%s' is made at module level (kf_build_function)", s->name);
  if (b->nopen && b->ib.block == open_block(b))
    NEED(!(info->traits & OPT_TERM), "'%s' ends a block; the regions of the scf construct the builder has open end "
         "with the scf.yield it makes", s->name);
  *kind = (OpKind)k;
  return KF_OK;
}

static kf_status build_op(kf_builder *b, const kf_op_state *s, Op **out) {
  OpArgs a = {s, 0, NULL};
  kf_status st = check_op_state(b, s, &a.kind);
  if (st != KF_OK) return st;
  st = run(b, do_op, &a);
  if (out && a.op) *out = a.op;
  return st;
}

kf_status kf_build_op(kf_builder *b, const kf_op_state *state, kf_op **out) {
  if (out) *out = NULL;
  BUILDER_CALL(b);
  return build_op(b, state, (Op **)out);
}

typedef struct SetAttrArgs {
  Op *op;
  const char *name;
  const Attr *value;
} SetAttrArgs;

static kf_status do_set_attr(kf_builder *b, void *args) {
  SetAttrArgs *a = args;
  ir_op_set_attr(b->km->ir, a->op, a->name, *a->value);
  return KF_OK;
}

kf_status kf_op_set_attr(kf_builder *b, kf_op *op, const char *name, const kf_attr *value) {
  BUILDER_CALL(b);
  NEED(op && name && *name && value, "kf_op_set_attr: no %s", !op ? "op" : !name || !*name ? "name" : "value");
  SetAttrArgs a = {(Op *)op, name, (const Attr *)value};
  return run(b, do_set_attr, &a);
}

/* ---- typed helpers --------------------------------------------------------------------------- */

/* One op of one result, attributes from attrs (n of them), through build_op's checks. */
static kf_status build_one(kf_builder *b, const char *name, unsigned n, kf_ir_value *const *operands, Type *result,
                           unsigned nattrs, const kf_named_attr *attrs, kf_ir_value **out) {
  kf_type *rt = (kf_type *)result;
  kf_op_state s = {.name = name, .noperands = n, .operands = operands, .nresults = result ? 1 : 0,
                   .result_types = result ? &rt : NULL, .nattrs = nattrs, .attrs = attrs};
  Op *op = NULL;
  kf_status st = build_op(b, &s, &op);
  if (st == KF_OK && out) *out = op->nresults ? (kf_ir_value *)op_result(op, 0) : NULL;
  return st;
}

#define OUT_CALL(b, out)                                                    \
  if (out) *out = NULL;                                                     \
  BUILDER_CALL(b);                                                          \
  NEED(out, "%s: out is NULL", __func__)

kf_status kf_build_constant_int(kf_builder *b, const kf_type *t, int64_t value, kf_ir_value **out) {
  OUT_CALL(b, out);
  kf_attr *v;
  kf_status st = kf_attr_int(b, t, value, &v);
  if (st != KF_OK) return st;
  kf_named_attr na = {"value", v};
  return build_one(b, "arith.constant", 0, NULL, TY(t), 1, &na, out);
}

kf_status kf_build_constant_float(kf_builder *b, const kf_type *t, double value, kf_ir_value **out) {
  OUT_CALL(b, out);
  kf_attr *v;
  kf_status st = kf_attr_float(b, t, value, &v);
  if (st != KF_OK) return st;
  kf_named_attr na = {"value", v};
  return build_one(b, "arith.constant", 0, NULL, TY(t), 1, &na, out);
}

kf_status kf_build_simple(kf_builder *b, const char *name, unsigned noperands, kf_ir_value *const *operands,
                          const kf_type *result_type, kf_ir_value **out) {
  OUT_CALL(b, out);
  NEED(name, "kf_build_simple: no op name");
  kf_status st = check_values(b, "operand", name, noperands, operands);
  if (st != KF_OK) return st;
  NEED(result_type || noperands, "'%s': no result type and no operand to take it from", name);
  return build_one(b, name, noperands, operands, result_type ? TY(result_type) : VAL(operands[0])->type, 0, NULL, out);
}

kf_status kf_build_compare(kf_builder *b, const char *pred, kf_ir_value *x, kf_ir_value *y, kf_ir_value **out) {
  OUT_CALL(b, out);
  NEED(pred && x && y, "kf_build_compare: no %s", !pred ? "predicate" : "operand");
  Type *t = VAL(x)->type;
  NEED(ty_is_int_or_bool(t) || ty_is_float(t), "kf_build_compare: operands of a scalar type, not %s",
       type_text(t, (char[128]){0}, 128));
  IrAttrEnum preds = ir_cmp_pred_enum(ty_is_float(t) ? OP_CMPF : OP_CMPI);
  if (ir_enum_parse(preds, pred) < 0) {
    char list[160]; /* the predicates, from the table (no allocation: this may run outside a guard) */
    size_t at = 0;
    for (unsigned i = 0; i < ir_enum_count(preds) && at < sizeof list; i++)
      at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", ir_enum_name(preds, (int)i));
    return api_build_error(b, "kf_build_compare: unknown %s predicate \"%s\" (one of %s)",
                           ty_is_float(t) ? "float" : "integer", pred, list);
  }
  kf_attr *p;
  kf_status st = kf_attr_string(b, pred, &p);
  if (st != KF_OK) return st;
  kf_named_attr na = {ir_enum_attr_name(preds), p};
  kf_type *i1;
  if ((st = kf_type_scalar(b->km->ctx, KF_BOOL, &i1)) != KF_OK) return st;
  kf_ir_value *ops[2] = {x, y};
  return build_one(b, ty_is_float(t) ? "arith.cmpf" : "arith.cmpi", 2, ops, TY(i1), 1, &na, out);
}

typedef struct CastArgs {
  Value *v;
  Type *to;
  Value *r;
} CastArgs;

static kf_status do_cast(kf_builder *b, void *args) {
  CastArgs *a = args;
  a->r = ib_cast(&b->ib, a->v, a->to);
  return KF_OK;
}

kf_status kf_build_cast(kf_builder *b, kf_ir_value *v, const kf_type *to, kf_ir_value **out) {
  OUT_CALL(b, out);
  NEED(v && to, "kf_build_cast: no %s", v ? "type" : "value");
  char b1[128], b2[128];
  NEED(ty_is_scalar(VAL(v)->type) && ty_is_scalar(TY(to)), "cannot convert %s to %s: kf_build_cast converts scalars",
       type_text(VAL(v)->type, b1, sizeof b1), type_text(TY(to), b2, sizeof b2));
  NEED(b->ib.block, "kf_build_cast: the builder has no insertion point");
  CastArgs a = {VAL(v), TY(to), NULL};
  kf_status st = run(b, do_cast, &a);
  if (st == KF_OK) *out = (kf_ir_value *)a.r;
  return st;
}

static kf_status int_attr(kf_builder *b, const char *name, int64_t v, kf_named_attr *na) {
  kf_type *i64;
  kf_attr *a;
  kf_status st = kf_type_scalar(b->km->ctx, KF_INT64, &i64);
  if (st == KF_OK) st = kf_attr_int(b, i64, v, &a);
  if (st == KF_OK) *na = (kf_named_attr){name, a};
  return st;
}

kf_status kf_build_gpu_index(kf_builder *b, const char *name, unsigned dim, kf_ir_value **out) {
  OUT_CALL(b, out);
  NEED(name && (!strcmp(name, "gpu.thread_id") || !strcmp(name, "gpu.block_id") || !strcmp(name, "gpu.block_dim") ||
                !strcmp(name, "gpu.grid_dim")),
       "kf_build_gpu_index: '%s' is not gpu.thread_id, gpu.block_id, gpu.block_dim or gpu.grid_dim",
       name ? name : "(null)");
  NEED(dim < 3, "%s: dimension %u (0, 1 or 2)", name, dim);
  kf_named_attr na;
  kf_type *i32;
  kf_status st = int_attr(b, "dim", dim, &na);
  if (st == KF_OK) st = kf_type_scalar(b->km->ctx, KF_INT32, &i32);
  return st == KF_OK ? build_one(b, name, 0, NULL, TY(i32), 1, &na, out) : st;
}

static kf_status need_array(kf_builder *b, const char *what, kf_ir_value *a) {
  NEED(a && ty_is_array(VAL(a)->type), "%s: %s", what, a ? "the value is not an array" : "no array");
  return KF_OK;
}

kf_status kf_build_dim(kf_builder *b, kf_ir_value *array, unsigned axis, kf_ir_value **out) {
  OUT_CALL(b, out);
  kf_status st = need_array(b, "mem.dim", array);
  if (st != KF_OK) return st;
  NEED(axis < VAL(array)->type->rank, "mem.dim: axis %u of an array of rank %u", axis, VAL(array)->type->rank);
  kf_named_attr na;
  kf_type *i64;
  if ((st = int_attr(b, "axis", axis, &na)) == KF_OK) st = kf_type_scalar(b->km->ctx, KF_INT64, &i64);
  return st == KF_OK ? build_one(b, "mem.dim", 1, &array, TY(i64), 1, &na, out) : st;
}

static kf_status indexed(kf_builder *b, const char *name, kf_ir_value *value, kf_ir_value *array, unsigned n,
                         kf_ir_value *const *indices, kf_ir_value **out) {
  kf_status st = need_array(b, name, array);
  if (st != KF_OK) return st;
  if ((st = check_values(b, "index", name, n, indices)) != KF_OK) return st;
  NEED(n == VAL(array)->type->rank, "%s: %u indices into an array of rank %u", name, n, VAL(array)->type->rank);
  kf_ir_value *ops[1 + KF_MAX_RANK + 1];
  unsigned k = 0;
  if (value) ops[k++] = value;
  ops[k++] = array;
  for (unsigned i = 0; i < n; i++) ops[k++] = indices[i];
  return build_one(b, name, k, ops, value ? NULL : VAL(array)->type->elem, 0, NULL, out);
}

kf_status kf_build_load(kf_builder *b, kf_ir_value *array, unsigned nindices, kf_ir_value *const *indices,
                        kf_ir_value **out) {
  OUT_CALL(b, out);
  return indexed(b, "mem.load", NULL, array, nindices, indices, out);
}

kf_status kf_build_store(kf_builder *b, kf_ir_value *value, kf_ir_value *array, unsigned nindices,
                         kf_ir_value *const *indices) {
  BUILDER_CALL(b);
  NEED(value, "mem.store: no value");
  return indexed(b, "mem.store", value, array, nindices, indices, NULL);
}

kf_status kf_build_call(kf_builder *b, const char *callee, unsigned nargs, kf_ir_value *const *args,
                        unsigned nresults, kf_type *const *results, kf_op **out) {
  if (out) *out = NULL;
  BUILDER_CALL(b);
  NEED(callee && *callee, "func.call: no callee");
  kf_attr *sym;
  kf_status st = kf_attr_symbol(b, callee, &sym);
  if (st != KF_OK) return st;
  kf_named_attr na = {"callee", sym};
  kf_op_state s = {.name = "func.call", .noperands = nargs, .operands = args, .nresults = nresults,
                   .result_types = results, .nattrs = 1, .attrs = &na};
  return build_op(b, &s, (Op **)out);
}

typedef struct SharedArgs {
  const char *name;
  Type *type;
  unsigned rank;
  const int64_t *shape;
  Op *func;
  Value *out;
} SharedArgs;

/* The mem.global before the function (with the module's symbols), the mem.global_ref at the insertion point. */
static kf_status do_shared(kf_builder *b, void *args) {
  SharedArgs *a = args;
  Module *m = b->km->ir;
  Type *i64 = ty_i64(b->ib.ctx);
  Attr dims[KF_MAX_RANK];
  for (unsigned i = 0; i < a->rank; i++) dims[i] = attr_int(i64, a->shape[i]);
  Op *g = ir_op_create(m, OP_GLOBAL, b->ib.loc, 0, NULL, 0, NULL, 0);
  ir_op_set_attr(m, g, "sym_name", attr_sym(m, a->name));
  ir_op_set_attr(m, g, "type", attr_type(a->type));
  ir_op_set_attr(m, g, "shape", attr_array(m, a->rank, dims));
  ir_op_set_attr(m, g, "space", attr_str(m, "shared"));
  ir_op_insert_before(a->func, g);
  ir_module_add_symbol(m, g);
  Op *ref = ib_op(&b->ib, OP_GLOBAL_REF, 0, NULL, 1, &a->type, 0);
  ir_op_set_attr(m, ref, "name", attr_sym(m, a->name));
  a->out = op_result(ref, 0);
  return KF_OK;
}

kf_status kf_build_shared_array(kf_builder *b, const char *name, const kf_type *elem, unsigned rank,
                                const int64_t *shape, kf_ir_value **out) {
  OUT_CALL(b, out);
  char buf[128];
  NEED(name && is_symbol(name), "shared array '%s': not a symbol name (letters, digits, '_', '$' and '.', not first "
       "a digit)", name ? name : "(null)");
  NEED(!ir_module_lookup(b->km->ir, name), "shared array '%s': the module already has a symbol '%s'", name, name);
  NEED(elem && ty_is_scalar(TY(elem)), "shared array '%s': its element must be a scalar type%s%s", name,
       elem ? ", not " : " (none given)", elem ? type_text(TY(elem), buf, sizeof buf) : "");
  NEED(rank >= 1 && rank <= KF_MAX_RANK && shape, "shared array '%s': rank %u (1 to %d extents, given as an array)",
       name, rank, KF_MAX_RANK);
  for (unsigned i = 0; i < rank; i++)
    NEED(shape[i] > 0, "shared array '%s': extent %u is %lld, not positive", name, i, (long long)shape[i]);
  NEED(b->ib.block && b->cur, "shared array '%s': the builder has no insertion point in a function it made", name);
  Op *f = ir_block_parent_op(b->ib.block);
  while (f && f->kind != OP_FUNC_FUNC) f = ir_block_parent_op(f->block);
  SharedArgs a = {name, ty_array(b->ib.ctx, TY(elem), rank, LAYOUT_C), rank, shape, f, NULL};
  kf_status st = run(b, do_shared, &a);
  if (st == KF_OK) *out = (kf_ir_value *)a.out;
  return st;
}

/* Terminators of a function body: not inside a construct the builder has open. */
static kf_status need_function_block(kf_builder *b, const char *name) {
  NEED(b->ib.block, "'%s': the builder has no insertion point", name);
  Op *parent = ir_block_parent_op(b->ib.block);
  NEED(parent && parent->kind == OP_FUNC_FUNC, "'%s' must be in a block of a function's body, not in a region of "
       "'%s'", name, parent ? op_name(parent) : "the module");
  return KF_OK;
}

kf_status kf_build_return(kf_builder *b, unsigned nvalues, kf_ir_value *const *values) {
  BUILDER_CALL(b);
  kf_status st = need_function_block(b, "func.return");
  if (st != KF_OK) return st;
  kf_op_state s = {.name = "func.return", .noperands = nvalues, .operands = values};
  return build_op(b, &s, NULL);
}

kf_status kf_build_br(kf_builder *b, kf_block *dest, unsigned nargs, kf_ir_value *const *args) {
  BUILDER_CALL(b);
  kf_status st = need_function_block(b, "cf.br");
  if (st != KF_OK) return st;
  kf_op_state s = {.name = "cf.br", .noperands = nargs, .operands = args, .nsuccessors = 1, .successors = &dest,
                   .succ_operand_counts = &nargs};
  return build_op(b, &s, NULL);
}

kf_status kf_build_cond_br(kf_builder *b, kf_ir_value *cond, kf_block *if_true, unsigned ntrue,
                           kf_ir_value *const *true_args, kf_block *if_false, unsigned nfalse,
                           kf_ir_value *const *false_args) {
  BUILDER_CALL(b);
  kf_status st = need_function_block(b, "cf.cond_br");
  if (st != KF_OK) return st;
  NEED(cond, "cf.cond_br: no condition");
  if ((st = check_values(b, "argument", "cf.cond_br", ntrue, true_args)) != KF_OK) return st;
  if ((st = check_values(b, "argument", "cf.cond_br", nfalse, false_args)) != KF_OK) return st;
  NEED(1 + ntrue + nfalse <= 64, "cf.cond_br: more than 63 block arguments");
  kf_ir_value *ops[64];
  ops[0] = cond;
  for (unsigned i = 0; i < ntrue; i++) ops[1 + i] = true_args[i];
  for (unsigned i = 0; i < nfalse; i++) ops[1 + ntrue + i] = false_args[i];
  kf_block *succs[2] = {if_true, if_false};
  unsigned counts[2] = {ntrue, nfalse};
  kf_op_state s = {.name = "cf.cond_br", .noperands = 1 + ntrue + nfalse, .operands = ops, .nsuccessors = 2,
                   .successors = succs, .succ_operand_counts = counts};
  return build_op(b, &s, NULL);
}

/* ---- structured control flow ----------------------------------------------------------------- */

typedef struct BeginArgs {
  ConstructKind kind;
  Value *operands[3];
  Value *iv;
} BeginArgs;

static kf_status do_begin(kf_builder *b, void *args) {
  BeginArgs *a = args;
  Module *m = b->km->ir;
  static const OpKind kinds[] = {OP_IF, OP_FOR, OP_WHILE};
  static const unsigned noperands[] = {1, 3, 0}, nregions[] = {2, 1, 2};
  api_build_grow(b, (void **)&b->open, &b->open_cap, b->nopen + 1, sizeof *b->open);
  Op *op = ir_op_create(m, kinds[a->kind], b->ib.loc, noperands[a->kind], a->operands, 0, NULL, nregions[a->kind]);
  for (unsigned r = 0; r < op->nregions; r++) ir_region_append_block(&op->regions[r], ir_block_new(m));
  ib_insert(&b->ib, op);
  Block *first = op->regions[0].first;
  if (a->kind == CONSTRUCT_FOR) a->iv = ir_block_add_arg(m, first, ty_i64(b->ib.ctx));
  SsaNode *pre = b->cur;
  SsaNode *n = ssa_node_new(b, a->kind == CONSTRUCT_IF ? NODE_SCF : NODE_LOOP, first, pre);
  ptrmap_put(&b->block_nodes, first, n);
  b->open[b->nopen++] = (OpenConstruct){a->kind, op, pre, n, NULL, false, NULL, NULL, b->ib.block, b->ib.before};
  ib_set_end(&b->ib, first);
  b->cur = n;
  return KF_OK;
}

static kf_status need_node(kf_builder *b, const char *what) {
  NEED(b->ib.block && b->cur, "%s: the builder has no insertion point in a function it made", what);
  NEED(!b->nopen || b->ib.block == open_block(b), "%s: the insertion point is outside the innermost open scf construct", what);
  return KF_OK;
}

kf_status kf_build_if_begin(kf_builder *b, kf_ir_value *cond) {
  BUILDER_CALL(b);
  kf_status st = need_node(b, "scf.if");
  if (st != KF_OK) return st;
  NEED(cond && ty_is_bool(VAL(cond)->type), "scf.if: the condition must be an i1%s", cond ? "" : " (none given)");
  BeginArgs a = {CONSTRUCT_IF, {VAL(cond)}, NULL};
  return run(b, do_begin, &a);
}

static const char *const construct_names[] = {"scf.if", "scf.for", "scf.while"};

static OpenConstruct *innermost(kf_builder *b, ConstructKind kind) {
  return b->nopen && b->open[b->nopen - 1].kind == kind ? &b->open[b->nopen - 1] : NULL;
}

/* " innermost (an scf.for is)" when another construct than kind is open innermost, else "". */
static const char *other_open(kf_builder *b, ConstructKind kind, char *buf, size_t n) {
  *buf = 0;
  if (b->nopen && b->open[b->nopen - 1].kind != kind)
    snprintf(buf, n, " innermost (an %s is)", construct_names[b->open[b->nopen - 1].kind]);
  return buf;
}

typedef struct ElseArgs {
  OpenConstruct *c;
} ElseArgs;

static kf_status do_else(kf_builder *b, void *args) {
  OpenConstruct *c = ((ElseArgs *)args)->c;
  c->then_end = b->cur;
  c->has_else = true;
  Block *blk = c->placeholder->regions[1].first;
  SsaNode *n = ssa_node_new(b, NODE_SCF, blk, c->pre);
  ptrmap_put(&b->block_nodes, blk, n);
  ib_set_end(&b->ib, blk);
  b->cur = n;
  return KF_OK;
}

kf_status kf_build_if_else(kf_builder *b) {
  BUILDER_CALL(b);
  OpenConstruct *c = innermost(b, CONSTRUCT_IF);
  char buf[64];
  NEED(c, "kf_build_if_else: no scf.if is open%s", other_open(b, CONSTRUCT_IF, buf, sizeof buf));
  NEED(!c->has_else, "kf_build_if_else: this scf.if already has its else-region");
  ElseArgs a = {c};
  return run(b, do_else, &a);
}

static kf_status do_if_end(kf_builder *b, void *args) { return ssa_finish_if(b, args); }
static kf_status do_for_end(kf_builder *b, void *args) { return ssa_finish_for(b, args); }
static kf_status do_while_end(kf_builder *b, void *args) { return ssa_finish_while(b, args); }

/* kf_build_if_end, kf_build_for_end and kf_build_while_end: the innermost open construct, of kind, finished. */
static kf_status build_end(kf_builder *b, ConstructKind kind, kf_op **out) {
  static const char *const fns[] = {"kf_build_if_end", "kf_build_for_end", "kf_build_while_end"};
  static const BuildFn finish[] = {do_if_end, do_for_end, do_while_end};
  if (out) *out = NULL;
  BUILDER_CALL(b);
  char buf[64];
  NEED(innermost(b, kind), "%s: no %s is open%s", fns[kind], construct_names[kind],
       other_open(b, kind, buf, sizeof buf));
  NEED(kind != CONSTRUCT_WHILE || innermost(b, kind)->has_else,
       "kf_build_while_end: the scf.while is still in its condition (kf_build_while_do first)");
  Op *op = NULL;
  kf_status st = run(b, finish[kind], &op);
  if (out && st != KF_ERROR_OUT_OF_MEMORY) *out = (kf_op *)op;
  return st;
}

kf_status kf_build_if_end(kf_builder *b, kf_op **out) { return build_end(b, CONSTRUCT_IF, out); }

kf_status kf_build_for_begin(kf_builder *b, kf_ir_value *lb, kf_ir_value *ub, kf_ir_value *step, kf_ir_value **iv) {
  if (iv) *iv = NULL;
  BUILDER_CALL(b);
  kf_status st = need_node(b, "scf.for");
  if (st != KF_OK) return st;
  kf_ir_value *bounds[3] = {lb, ub, step};
  static const char *const names[3] = {"lower bound", "upper bound", "step"};
  for (int i = 0; i < 3; i++) {
    char buf[128];
    NEED(bounds[i], "scf.for: no %s", names[i]);
    NEED(VAL(bounds[i])->type == ty_i64(b->ib.ctx), "scf.for: the %s must be an i64, not %s", names[i],
         type_text(VAL(bounds[i])->type, buf, sizeof buf));
  }
  NEED(iv, "scf.for: no place for the induction variable (iv is NULL)");
  BeginArgs a = {CONSTRUCT_FOR, {VAL(lb), VAL(ub), VAL(step)}, NULL};
  st = run(b, do_begin, &a);
  if (st == KF_OK) *iv = (kf_ir_value *)a.iv;
  return st;
}

kf_status kf_build_for_end(kf_builder *b, kf_op **out) { return build_end(b, CONSTRUCT_FOR, out); }

kf_status kf_build_while_begin(kf_builder *b) {
  BUILDER_CALL(b);
  kf_status st = need_node(b, "scf.while");
  if (st != KF_OK) return st;
  BeginArgs a = {CONSTRUCT_WHILE, {NULL}, NULL};
  return run(b, do_begin, &a);
}

/* The before-region ends in scf.condition(cond) (its other operands come at the end); the after-region is a
 * NODE_LOOP of its own, unsealed: a variable read there becomes one of its arguments. */
static kf_status do_while_do(kf_builder *b, void *args) {
  OpenConstruct *c = &b->open[b->nopen - 1];
  Value *cond = args;
  Module *m = b->km->ir;
  ir_block_append(c->placeholder->regions[0].first, ir_op_create(m, OP_CONDITION, b->ib.loc, 1, &cond, 0, NULL, 0));
  c->condition = c->placeholder->regions[0].first->last;
  c->then_end = b->cur;
  c->has_else = true;
  Block *blk = c->placeholder->regions[1].first;
  SsaNode *n = ssa_node_new(b, NODE_LOOP, blk, NULL);
  ptrmap_put(&b->block_nodes, blk, n);
  c->after = n;
  ib_set_end(&b->ib, blk);
  b->cur = n;
  return KF_OK;
}

kf_status kf_build_while_do(kf_builder *b, kf_ir_value *cond) {
  BUILDER_CALL(b);
  OpenConstruct *c = innermost(b, CONSTRUCT_WHILE);
  char buf[64];
  NEED(c, "kf_build_while_do: no scf.while is open%s", other_open(b, CONSTRUCT_WHILE, buf, sizeof buf));
  NEED(!c->has_else, "kf_build_while_do: this scf.while is already in its body");
  NEED(b->ib.block == open_block(b), "kf_build_while_do: the insertion point is outside the scf.while's condition");
  NEED(cond && ty_is_bool(VAL(cond)->type), "scf.while: the condition must be an i1%s", cond ? "" : " (none given)");
  return run(b, do_while_do, VAL(cond));
}

kf_status kf_build_while_end(kf_builder *b, kf_op **out) { return build_end(b, CONSTRUCT_WHILE, out); }

/* ---- variables ------------------------------------------------------------------------------- */

typedef struct VarArgs {
  const char *name;
  Type *type;
  kf_var *var;
  Value *value;
} VarArgs;

static kf_status do_declare(kf_builder *b, void *args) {
  VarArgs *a = args;
  api_build_grow(b, (void **)&b->vars, &b->vars_cap, b->nvars + 1, sizeof *b->vars);
  kf_var *v = mem_calloc_like(b, 1, sizeof *v);  /* after the table: made is kept (it belongs to no guard) */
  v->id = b->nvars;
  b->vars[b->nvars] = v;  /* kept (and freed with the builder) before anything else can fail */
  v->name = arena_strdup(&b->km->ir->arena, a->name);
  v->type = a->type;
  Op *f = ir_block_parent_op(b->ib.block);
  while (f && f->kind != OP_FUNC_FUNC) f = ir_block_parent_op(f->block);
  v->func = f;
  b->nvars++;
  a->var = v;
  return KF_OK;
}

kf_status kf_var_declare(kf_builder *b, const char *name, const kf_type *t, kf_var **out) {
  if (out) *out = NULL;
  BUILDER_CALL(b);
  NEED(name && t && out, "kf_var_declare: no %s", !name ? "name" : !t ? "type" : "place for the variable (out)");
  kf_status st = need_node(b, "kf_var_declare");
  if (st != KF_OK) return st;
  VarArgs a = {name, TY(t), NULL, NULL};
  st = run(b, do_declare, &a);
  if (st == KF_OK) *out = a.var;
  return st;
}

static kf_status check_var(kf_builder *b, kf_var *v, const char *what) {
  NEED(v, "%s: no variable", what);
  kf_status st = need_node(b, what);
  if (st != KF_OK) return st;
  Op *f = ir_block_parent_op(b->ib.block);
  while (f && f->kind != OP_FUNC_FUNC) f = ir_block_parent_op(f->block);
  NEED(f == v->func, "variable '%s' belongs to another function", v->name);
  return KF_OK;
}

static kf_status do_set(kf_builder *b, void *args) {
  VarArgs *a = args;
  return ssa_write(b, a->var, b->cur, a->value);
}

kf_status kf_var_set(kf_builder *b, kf_var *var, kf_ir_value *value) {
  BUILDER_CALL(b);
  kf_status st = check_var(b, var, "kf_var_set");
  if (st != KF_OK) return st;
  char b1[128], b2[128];
  NEED(value, "variable '%s': no value to assign", var->name);
  NEED(VAL(value)->type == var->type, "variable '%s' of type %s cannot be assigned a value of type %s", var->name,
       type_text(var->type, b1, sizeof b1), type_text(VAL(value)->type, b2, sizeof b2));
  VarArgs a = {.var = var, .value = VAL(value)};
  return run(b, do_set, &a);
}

static kf_status do_get(kf_builder *b, void *args) {
  VarArgs *a = args;
  return ssa_read_checked(b, a->var, &a->value);
}

kf_status kf_var_get(kf_builder *b, kf_var *var, kf_ir_value **out) {
  OUT_CALL(b, out);
  kf_status st = check_var(b, var, "kf_var_get");
  if (st != KF_OK) return st;
  VarArgs a = {.var = var};
  st = run(b, do_get, &a);
  if (st == KF_OK) *out = (kf_ir_value *)a.value;
  return st;
}

static kf_status do_finish(kf_builder *b, void *args) {
  kf_status st = KF_OK;
  for (unsigned i = 0; i < b->nnodes; i++) {
    SsaNode *n = b->nodes[i];
    if (n->kind == NODE_BLOCK && !n->sealed) {
      kf_status s = ssa_seal(b, n);
      if (st == KF_OK) st = s;
    }
  }
  return st;
}

kf_status kf_builder_finish(kf_builder *b) {
  BUILDER_CALL(b);
  NEED(!b->nopen, "kf_builder_finish: an %s begun here is still open", construct_names[b->open[b->nopen - 1].kind]);
  return run(b, do_finish, NULL);
}
