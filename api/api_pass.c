/* api_pass.c — include/kfront/kir.h's embedder passes: kf_pass_register puts a PassInfo in the context's PassSet,
 * which every pipeline of the context (api.c's, the runtime's compile_source.c) looks names up in after passes.def;
 * the pass manager (passes/pass_manager.c) runs it as any pass, through run_embedder_pass here, and verifies after
 * it. Also kf_op_report, the located diagnostic such a pass gives. */
#include <string.h>

#include "api/api_internal.h"
#include "kfront/kir.h"

/* What an embedder pass is, behind its PassInfo (user). */
typedef struct ApiPass {
  kf_context *ctx;
  kf_pass_fn fn;
  void *user;
} ApiPass;

/* The PassFn of every embedder pass. The callback runs with the pipeline's guard paused: what it calls checks
 * its own allocations (or runs under a guard of its own), and no failure unwinds through the embedder's frames. */
static bool run_embedder_pass(Module *m, const PassContext *pc) {
  ApiPass *p = pc->user;
  struct kf_module km = {.ctx = p->ctx, .ir = m};
  unsigned before = diag_errors(pc->diag);
  MemGuard *g = mem_guard_pause();
  DiagKind prev = diag_set_kind(DIAG_KIND_INVALID_IR);
  kf_status st = p->fn(&km, p->user);
  diag_set_kind(prev);
  mem_guard_resume(g);
  if (st == KF_OK) return true;
  if (st == KF_ERROR_OUT_OF_MEMORY) mem_fail();  /* under the pipeline's guard: out of memory, as kfront's own */
  if (diag_errors(pc->diag) == before) {
    const PassInfo *info = NULL;
    for (unsigned i = 0; i < p->ctx->passes.n && !info; i++)
      if (p->ctx->passes.items[i]->user == p) info = p->ctx->passes.items[i];
    diag_error_kind(pc->diag, DIAG_KIND_INVALID_IR, (SrcLoc){0}, "embedder pass '%s' failed (status %d) without a "
                    "diagnostic", info ? info->name : "?", (int)st);
  }
  return false;
}

static bool is_pass_name(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
      return false;
  return true;
}

kf_status kf_pass_register(kf_context *ctx, const char *name, const char *summary, kf_pass_fn run, void *user) {
  if (!ctx) return KF_ERROR_INVALID_INPUT;
  API_CONTEXT(ctx);
  const char *why = !name || !is_pass_name(name) ? "is not a pass name ([A-Za-z0-9_-]+)"
                    : !run                       ? "has no run function"
                    : pass_lookup(name, strlen(name)) ? "is the name of a pass of kfront's"
                    : pass_set_lookup(&ctx->passes, name, strlen(name)) ? "is registered already"
                                                                        : NULL;
  if (why) {
    diag_error_kind(&ctx->diag, DIAG_KIND_INVALID_ARGUMENT, (SrcLoc){0}, "kf_pass_register: '%s' %s",
                    name ? name : "(null)", why);
    return KF_ERROR_INVALID_INPUT;
  }
  PassInfo *info = mem_calloc(1, sizeof *info);
  ApiPass *p = mem_calloc(1, sizeof *p);
  char *name_copy = mem_strdup(name), *summary_copy = mem_strdup(summary ? summary : "(an embedder's pass)");
  if (ctx->passes.n == ctx->passes.cap && info && p && name_copy && summary_copy) {
    unsigned cap = ctx->passes.cap ? ctx->passes.cap * 2 : 4;
    PassInfo **items = mem_realloc(ctx->passes.items, cap * sizeof *items);
    if (items) {
      ctx->passes.items = items;
      ctx->passes.cap = cap;
    }
  }
  if (!info || !p || !name_copy || !summary_copy || ctx->passes.n == ctx->passes.cap) {
    mem_free(info);
    mem_free(p);
    mem_free(name_copy);
    mem_free(summary_copy);
    return api_out_of_memory(ctx);
  }
  *p = (ApiPass){ctx, run, user};
  info->name = name_copy;
  info->summary = summary_copy;
  info->run = run_embedder_pass;
  info->user = p;
  info->external = true;
  ctx->passes.items[ctx->passes.n++] = info;
  return KF_OK;
}

void api_passes_free(kf_context *ctx) {
  for (unsigned i = 0; i < ctx->passes.n; i++) {
    PassInfo *info = ctx->passes.items[i];
    mem_free((char *)info->name);
    mem_free((char *)info->summary);
    mem_free(info->user);
    mem_free(info);
  }
  mem_free(ctx->passes.items);
  ctx->passes = (PassSet){0};
}

kf_context *kf_module_context(kf_module *m) { return m ? m->ctx : NULL; }

kf_status kf_op_report(kf_module *m, const kf_op *op, int level, const char *message) {
  if (!m) return KF_ERROR_INVALID_INPUT;
  return kf_context_report(m->ctx, level, level == 0 ? KF_ERRKIND_INVALID_IR : KF_ERRKIND_NONE, kf_op_location(op),
                           message);
}
