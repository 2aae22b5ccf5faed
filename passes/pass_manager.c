/* pass_manager.c — the pass registry (expanded from passes.def), textual pipelines, and running them
 * with --verify-each, --print-ir-after(-all) and --time-passes.
 *
 * Pipeline grammar:  pipeline := entry (',' entry)*     entry := NAME ('{' option (' '|',' option)* '}')?
 *                    option := NAME '=' INTEGER | NAME        (a bare NAME sets a boolean option to 1) */
#include "passes.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "utils/mem.h"

static const PassInfo passes[PASS__COUNT] = {
#define PASS(Id, name, fn, summary) [PASS_##Id] = {name, fn, summary, 0, {{0}}},
#define PASS_OPTION(Id, name, dflt, help)
#include "passes.def"
#undef PASS
#undef PASS_OPTION
};

/* Options are listed after their pass in passes.def; gather them into each PassInfo once. */
static PassInfo registry[PASS__COUNT];
static int registry_ready;

static void registry_init(void) {
  if (__atomic_load_n(&registry_ready, __ATOMIC_ACQUIRE)) return;
  static int lock;
  while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE)) {}
  if (!registry_ready) {
    memcpy(registry, passes, sizeof passes);
#define PASS(Id, name, fn, summary)
#define PASS_OPTION(Id, oname, dflt, ohelp)                                              \
  registry[PASS_##Id].options[registry[PASS_##Id].noptions++] = (PassOptionInfo){oname, dflt, ohelp};
#include "passes.def"
#undef PASS
#undef PASS_OPTION
    __atomic_store_n(&registry_ready, 1, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

const PassInfo *pass_info(PassKind k) {
  registry_init();
  return &registry[k];
}

const PassInfo *pass_lookup(const char *name, size_t len) {
  registry_init();
  for (int k = 0; k < PASS__COUNT; k++)
    if (strlen(registry[k].name) == len && memcmp(registry[k].name, name, len) == 0) return &registry[k];
  return NULL;
}

const PassInfo *pass_set_lookup(const PassSet *set, const char *name, size_t len) {
  for (unsigned i = 0; set && i < set->n; i++)
    if (strlen(set->items[i]->name) == len && memcmp(set->items[i]->name, name, len) == 0) return set->items[i];
  return NULL;
}

/* ---- pipelines ------------------------------------------------------------------------------ */

static PipelineEntry *pipeline_push(Pipeline *p, const PassInfo *pass) {
  if (p->n == p->cap) {
    unsigned cap = p->cap ? p->cap * 2 : 8;
    p->entries = mem_realloc(p->entries, cap * sizeof *p->entries);  /* under a guard (mem.h): never NULL */
    p->cap = cap;
  }
  PipelineEntry *e = &p->entries[p->n++];
  memset(e, 0, sizeof *e);
  e->pass = pass;
  for (unsigned i = 0; i < pass->noptions; i++) e->options[i] = pass->options[i].dflt;
  return e;
}

void pipeline_free(Pipeline *p) {
  mem_free(p->entries);
  p->entries = NULL;
  p->n = p->cap = 0;
}

static bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

static void pipeline_error(Diag *diag, const char *text, size_t at, const char *msg, const char *word, size_t wlen) {
  diag_add_source(diag, "<pipeline>", text, strlen(text));
  diag_error(diag, srcloc("<pipeline>", 1, (unsigned)at + 1), "%s '%.*s'", msg, (int)wlen, word);
}

bool pipeline_parse(Pipeline *p, const char *text, Diag *diag) {
  size_t i = 0, n = strlen(text);
  while (i < n && text[i] == ' ') i++;
  if (i == n) return true; /* the empty pipeline */
  for (;;) {
    while (i < n && text[i] == ' ') i++;
    size_t start = i;
    while (i < n && is_name_char(text[i])) i++;
    if (i == start) {
      pipeline_error(diag, text, i, "expected a pass name at", text + i, i < n ? 1 : 0);
      return false;
    }
    const PassInfo *pass = pass_lookup(text + start, i - start);
    if (!pass) pass = pass_set_lookup(p->extra, text + start, i - start);
    if (!pass) {
      pipeline_error(diag, text, start, "unknown pass", text + start, i - start);
      return false;
    }
    PipelineEntry *e = pipeline_push(p, pass);
    if (i < n && text[i] == '{') {
      i++;
      for (;;) {
        while (i < n && (text[i] == ' ' || text[i] == ',')) i++;
        if (i < n && text[i] == '}') { i++; break; }
        size_t os = i;
        while (i < n && is_name_char(text[i])) i++;
        if (i == os) {
          pipeline_error(diag, text, i, "expected an option name or '}' at", text + i, i < n ? 1 : 0);
          return false;
        }
        unsigned k = 0;
        while (k < pass->noptions && !(strlen(pass->options[k].name) == i - os &&
                                       memcmp(pass->options[k].name, text + os, i - os) == 0))
          k++;
        if (k == pass->noptions) {
          pipeline_error(diag, text, os, "unknown option of this pass:", text + os, i - os);
          return false;
        }
        int64_t v = 1;
        if (i < n && text[i] == '=') {
          i++;
          char *end;
          v = strtoll(text + i, &end, 0);
          if (end == text + i) {
            pipeline_error(diag, text, i, "expected an integer value at", text + i, i < n ? 1 : 0);
            return false;
          }
          i = (size_t)(end - text);
        }
        e->options[k] = v;
        e->given |= 1u << k;
      }
    }
    while (i < n && text[i] == ' ') i++;
    if (i == n) return true;
    if (text[i] != ',') {
      pipeline_error(diag, text, i, "expected ',' between passes, found", text + i, 1);
      return false;
    }
    i++;
  }
}

void pipeline_print(const Pipeline *p, StrBuf *out) {
  for (unsigned i = 0; i < p->n; i++) {
    const PipelineEntry *e = &p->entries[i];
    if (i) sb_putc(out, ',');
    sb_puts(out, e->pass->name);
    if (!e->given) continue;
    sb_putc(out, '{');
    bool first = true;
    for (unsigned k = 0; k < e->pass->noptions; k++) {
      if (!(e->given & (1u << k))) continue;
      if (!first) sb_putc(out, ' ');
      first = false;
      sb_printf(out, "%s=%lld", e->pass->options[k].name, (long long)e->options[k]);
    }
    sb_putc(out, '}');
  }
}

/* ---- running -------------------------------------------------------------------------------- */

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool name_in_list(const char *name, const char *list) {
  if (!list) return false;
  size_t n = strlen(name);
  for (const char *s = list; *s;) {
    const char *e = strchr(s, ',');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    if (len == n && memcmp(s, name, n) == 0) return true;
    if (!e) break;
    s = e + 1;
  }
  return false;
}

bool pipeline_run(const Pipeline *p, Module *m, const PassManagerOptions *opts, Diag *diag) {
  PassManagerOptions none = {0};
  if (!opts) opts = &none;
  double *times = mem_calloc(p->n ? p->n : 1, sizeof *times);
  double verify_time = 0;
  bool ok = true;
  TargetFacts sm90 = target_facts(90);
  const TargetFacts *target = opts->target ? opts->target : &sm90;
  bool external = false;  /* an embedder pass is verified after, whatever verify_each says: its input is too */
  for (unsigned i = 0; i < p->n; i++) external |= p->entries[i].pass->external;
  if ((opts->verify_each || external) && p->n) {  /* a module that does not verify is the caller's, not a pass's */
    double v0 = now_seconds();
    if (!ir_verify_module(m, diag)) {
      diag_error(diag, (SrcLoc){0}, "the IR given to the pass pipeline does not verify");
      ok = false;
    }
    verify_time += now_seconds() - v0;
  }
  for (unsigned i = 0; i < p->n && ok; i++) {
    const PipelineEntry *e = &p->entries[i];
    PassContext pc = {diag, e->options, target, e->pass->user};
    unsigned errors_before = diag_errors(diag);
    double t0 = now_seconds();
    ok = e->pass->run(m, &pc) && diag_errors(diag) == errors_before;
    times[i] = now_seconds() - t0;
    if (ok && (opts->verify_each || e->pass->external)) {  /* an embedder's pass is always checked */
      double v0 = now_seconds();
      /* it verified before: the pass broke it (kfront's fault, or the embedder's for its own pass) */
      DiagKind prev = diag_set_kind(e->pass->external ? DIAG_KIND_INVALID_IR : DIAG_KIND_INTERNAL);
      if (!ir_verify_module(m, diag)) {
        diag_error(diag, (SrcLoc){0}, "the IR after %spass '%s' does not verify", e->pass->external ? "embedder " : "",
                   e->pass->name);
        ok = false;
      }
      diag_set_kind(prev);
      verify_time += now_seconds() - v0;
    }
    if (opts->dump && (opts->print_ir_after_all || name_in_list(e->pass->name, opts->print_ir_after))) {
      IrPrintOptions po = {opts->print_debug_info};
      sb_printf(opts->dump, "// -----// IR Dump After %s //----- //\n", e->pass->name);
      ir_print_module(m, &po, opts->dump);
      sb_putc(opts->dump, '\n');
    }
  }
  if (opts->time_passes && opts->dump) {
    double total = verify_time;
    for (unsigned i = 0; i < p->n; i++) total += times[i];
    sb_puts(opts->dump, "===-------------------------------------------------------------------------===\n");
    sb_puts(opts->dump, "                         ... Pass execution timing report ...\n");
    sb_puts(opts->dump, "===-------------------------------------------------------------------------===\n");
    sb_printf(opts->dump, "  Total Execution Time: %.4f seconds\n\n   ----Wall Time----  ----Name----\n", total);
    for (unsigned i = 0; i < p->n; i++)
      sb_printf(opts->dump, "   %.4f (%5.1f%%)  %s\n", times[i], total > 0 ? 100 * times[i] / total : 0, p->entries[i].pass->name);
    if (opts->verify_each)
      sb_printf(opts->dump, "   %.4f (%5.1f%%)  (verifier)\n", verify_time, total > 0 ? 100 * verify_time / total : 0);
    sb_printf(opts->dump, "   %.4f (100.0%%)  Total\n", total);
  }
  mem_free(times);
  return ok;
}
