/* diag.c — renders diagnostics with the quoted source line and a caret under the column. Control bytes in the
 * quoted line, the message and the file name (a NUL, an escape...) are written as \xNN, so a diagnostic is
 * never cut short or garbled on a terminal; the caret moves with them.
 *
 * Everything a Diag allocates is made with the calling thread's guard paused (it holds its lock meanwhile):
 * its buffers belong to no guard, and a failure unwinds only after the lock is released (diag.h). */
#include "diag.h"

#include <string.h>

#include "mem.h"

struct DiagSource {
  DiagSource *next;
  const char *file;
  const char *text;
  size_t len;
  unsigned first_line; /* the file line of the text's first line */
  unsigned seq;        /* registration number */
};

/* initial-exec: read and written on every launch (a few ns instead of a __tls_get_addr call in libkfront.so);
 * one int of the static TLS surplus glibc keeps for libraries loaded with dlopen (the Python module) */
static _Thread_local DiagKind current_kind __attribute__((tls_model("initial-exec"))) = DIAG_KIND_INTERNAL;

static const char OOM_LINE[] = "kfront: error: out of memory\n";

DiagKind diag_set_kind(DiagKind kind) {
  DiagKind prev = current_kind;
  current_kind = kind;
  return prev;
}

DiagKind diag_kind(void) { return current_kind; }

void diag_init(Diag *d) {
  memset(d, 0, sizeof *d);
  sb_init(&d->text);
  pthread_mutex_init(&d->lock, NULL);
}

static void first_free(DiagFirst *f) {
  mem_free(f->message);
  mem_free(f->file);
  mem_free(f->kernel);
  mem_free(f->exception);
  memset(f, 0, sizeof *f);
}

/* The first error is "out of memory" (its facts could not be kept, or it was that). Under d->lock. */
static void first_oom(DiagFirst *f) {
  first_free(f);
  f->set = true;
  f->kind = DIAG_KIND_OUT_OF_MEMORY;  /* message NULL: kf_context_first_error says "out of memory" */
}

/* Locks d with the thread's guard paused; unlock_d resumes it and unwinds when something was lost. */
static MemGuard *lock_d(Diag *d) {
  MemGuard *g = mem_guard_pause();
  pthread_mutex_lock(&d->lock);
  return g;
}

static void unlock_d(Diag *d, MemGuard *g, bool ok) {
  pthread_mutex_unlock(&d->lock);
  mem_guard_resume(g);
  if (!ok) mem_fail();
}

void diag_clear(Diag *d) {
  MemGuard *g = lock_d(d);
  sb_reset(&d->text);
  d->nerrors = d->nwarnings = 0;
  first_free(&d->first);
  unlock_d(d, g, true);
}

DiagMark diag_mark(Diag *d) {
  pthread_mutex_lock(&d->lock);
  DiagMark m = {d->text.len, d->nerrors, d->nwarnings, d->first.set, d->source_seq};
  pthread_mutex_unlock(&d->lock);
  return m;
}

void diag_rollback(Diag *d, const DiagMark *m) {
  pthread_mutex_lock(&d->lock);
  if (m->len <= d->text.len) {
    d->text.len = m->len;
    if (d->text.data) d->text.data[m->len] = 0;
  }
  d->text.failed = false;
  d->nerrors = m->nerrors;
  d->nwarnings = m->nwarnings;
  if (!m->first_set) first_free(&d->first);
  for (DiagSource **p = &d->sources; *p;) {
    if ((*p)->seq >= m->source_seq) {
      DiagSource *dead = *p;
      *p = dead->next;
      mem_free(dead);
    } else {
      p = &(*p)->next;
    }
  }
  pthread_mutex_unlock(&d->lock);
}

void diag_free(Diag *d) {
  first_free(&d->first);
  pthread_mutex_destroy(&d->lock);
  sb_free(&d->text);
  for (DiagSource *s = d->sources, *n; s; s = n) {
    n = s->next;
    mem_free(s);
  }
  d->sources = NULL;
}

bool diag_add_source_at(Diag *d, const char *file, const char *text, size_t len, unsigned first_line) {
  MemGuard *g = lock_d(d);
  DiagSource *s = mem_alloc(sizeof *s);
  if (s) {
    s->file = file;
    s->text = text;
    s->len = len;
    s->first_line = first_line ? first_line : 1;
    s->seq = d->source_seq++;
    s->next = d->sources;
    d->sources = s;
  }
  unlock_d(d, g, s != NULL);
  return s != NULL;
}

bool diag_add_source(Diag *d, const char *file, const char *text, size_t len) {
  return diag_add_source_at(d, file, text, len, 1);
}

void diag_remove_source(Diag *d, const char *text) {
  pthread_mutex_lock(&d->lock);
  for (DiagSource **p = &d->sources; *p;) {
    if ((*p)->text == text) {
      DiagSource *dead = *p;
      *p = dead->next;
      mem_free(dead);
    } else {
      p = &(*p)->next;
    }
  }
  pthread_mutex_unlock(&d->lock);
}

const char *diag_source_line(Diag *d, const char *file, unsigned line, size_t *len) {
  if (!file || line == 0) return NULL;
  for (DiagSource *s = d->sources; s; s = s->next) {
    if (line < s->first_line || (s->file != file && strcmp(s->file, file) != 0)) continue;
    const char *p = s->text, *end = s->text + s->len;
    for (unsigned l = s->first_line; l < line && p; l++) {
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      p = nl ? nl + 1 : NULL;
    }
    if (!p) continue; /* past the end of this text: another piece of the file may hold the line */
    const char *e = p;
    while (e < end && *e != '\n' && *e != '\r') e++;
    *len = (size_t)(e - p);
    return p;
  }
  return NULL;
}

/* Records the first error's facts (under d->lock). False when they could not be kept (then it is "out of
 * memory"). */
static bool note_first(Diag *d, SrcLoc loc, const char *message) {
  DiagFirst *f = &d->first;
  f->set = true;
  f->kind = current_kind;
  if (f->kind == DIAG_KIND_TYPING && (strstr(message, "not supported") || strstr(message, "unsupported")))
    f->kind = DIAG_KIND_UNSUPPORTED;
  f->message = mem_strdup(message);
  f->file = loc.file ? mem_strdup(loc.file) : NULL;
  f->line = loc.line;
  f->col = loc.col;
  if (!f->message || (loc.file && !f->file)) {
    first_oom(f);
    return false;
  }
  return true;
}

/* "out of memory" in the text (when it has room to grow) and to the callback (under d->lock). */
static void oom_text(Diag *d) {
  sb_puts(&d->text, OOM_LINE);
  d->text.failed = false;
  if (d->callback) d->callback(d->callback_user, DIAG_ERROR, OOM_LINE);
}

/* A byte quoted as \xNN: C0 controls but the tab and the newline (a message may span lines; a quoted source
 * line holds none), and DEL. */
static bool is_control(char c) { return ((unsigned char)c < 0x20 && c != '\t' && c != '\n') || c == 0x7f; }

static void put_escaped(StrBuf *out, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (is_control(s[i])) sb_printf(out, "\\x%02x", (unsigned char)s[i]);
    else sb_putc(out, s[i]);
  }
}

/* Under d->lock with the guard paused. False when an allocation failed (the error is then counted, and the
 * first error says out of memory if it was this one); "out of memory" is rendered here unless a guard will
 * report it (guarded). */
static bool report_locked(Diag *d, DiagLevel level, SrcLoc loc, const char *fmt, va_list ap, bool guarded) {
  if (level == DIAG_ERROR) {
    if (d->max_errors && d->nerrors >= d->max_errors) { d->nerrors++; return true; }
    d->nerrors++;
  } else if (level == DIAG_WARNING) {
    d->nwarnings++;
  }
  static const char *names[] = {"error", "warning", "note"};
  StrBuf one;
  sb_init(&one);
  if (loc.file) {
    put_escaped(&one, loc.file, strlen(loc.file));
    if (loc.line) sb_printf(&one, ":%u", loc.line);
    if (loc.line && loc.col) sb_printf(&one, ":%u", loc.col);
    sb_puts(&one, ": ");
  } else {
    sb_puts(&one, "kfront: ");
  }
  sb_printf(&one, "%s: ", names[level]);
  size_t message_at = one.len;
  StrBuf msg;
  sb_init(&msg);
  sb_vprintf(&msg, fmt, ap);
  put_escaped(&one, msg.data ? msg.data : "", msg.len);
  bool ok = !one.failed && !msg.failed;
  sb_free(&msg);
  if (level == DIAG_ERROR && !d->first.set) {
    if (ok) ok = note_first(d, loc, sb_cstr(&one) + message_at);
    else first_oom(&d->first);
  }
  sb_putc(&one, '\n');
  size_t len;
  const char *src = diag_source_line(d, loc.file, loc.line, &len);
  if (src) {
    put_escaped(&one, src, len);
    sb_putc(&one, '\n');
    if (loc.col) {
      for (unsigned i = 1; i < loc.col && i <= len; i++) {
        if (is_control(src[i - 1])) sb_puts(&one, "    ");
        else sb_putc(&one, src[i - 1] == '\t' ? '\t' : ' ');
      }
      sb_puts(&one, "^\n");
    }
  }
  ok = ok && !one.failed;
  if (ok) {
    sb_putn(&d->text, one.data, one.len);
    ok = !d->text.failed;
    d->text.failed = false;
  }
  if (ok) {
    if (d->callback) d->callback(d->callback_user, level, sb_cstr(&one));
  } else if (!guarded) {
    oom_text(d);
  }
  sb_free(&one);
  return ok;
}

void diag_replay_warnings(Diag *d, const char *rendered, size_t len, unsigned nwarnings) {
  if (!len || !nwarnings) return;
  MemGuard *g = lock_d(d);
  size_t at = d->text.len;
  sb_putn(&d->text, rendered, len);
  bool ok = !d->text.failed;
  d->text.failed = false;
  if (ok) {
    d->nwarnings += nwarnings;
    if (d->callback) d->callback(d->callback_user, DIAG_WARNING, sb_cstr(&d->text) + at);
  }
  unlock_d(d, g, ok);
}

unsigned diag_warnings_since(Diag *d, const DiagMark *m, StrBuf *out) {
  MemGuard *g = lock_d(d);
  unsigned n = d->nwarnings > m->nwarnings && d->nerrors == m->nerrors && d->text.len > m->len
                   ? d->nwarnings - m->nwarnings : 0;
  if (n) sb_putn(out, d->text.data + m->len, d->text.len - m->len);
  bool ok = !out->failed;
  unlock_d(d, g, true);
  return ok ? n : 0;
}

void diag_report(Diag *d, DiagLevel level, SrcLoc loc, const char *fmt, va_list ap) {
  MemGuard *g = lock_d(d);
  bool ok = report_locked(d, level, loc, fmt, ap, g != NULL);
  unlock_d(d, g, ok);
}

void diag_out_of_memory(Diag *d) {
  MemGuard *g = lock_d(d);
  d->nerrors++;
  if (!d->first.set) first_oom(&d->first);
  oom_text(d);
  unlock_d(d, g, true);
}

bool diag_guard(Diag *d, void (*fn)(void *), void *arg) {
  DiagMark mark = diag_mark(d);
  DiagKind kind = current_kind;
  if (mem_guard_run(fn, arg)) return true;
  current_kind = kind;
  diag_rollback(d, &mark);
  diag_out_of_memory(d);
  return false;
}

/* An error of a kernel's error record (an IndexError, a raised exception): reported as kind, its facts kept
 * when it is the first error. */
static void record_error(Diag *d, DiagKind kind, SrcLoc loc, const DiagFirst *facts, const char *fmt, va_list ap) {
  DiagKind prev = diag_set_kind(kind);
  MemGuard *g = lock_d(d);
  bool first = !d->first.set;
  bool ok = report_locked(d, DIAG_ERROR, loc, fmt, ap, g != NULL);
  if (ok && first && d->first.set) {
    DiagFirst *f = &d->first;
    f->has_index = true;
    f->kernel = facts->kernel ? mem_strdup(facts->kernel) : NULL;
    f->exception = facts->exception ? mem_strdup(facts->exception) : NULL;
    f->axis = facts->axis;
    f->index = facts->index;
    f->extent = facts->extent;
    memcpy(f->thread, facts->thread, sizeof f->thread);
    memcpy(f->block, facts->block, sizeof f->block);
    if ((facts->kernel && !f->kernel) || (facts->exception && !f->exception)) {
      first_oom(f);
      if (!g) oom_text(d);
      ok = false;
    }
  }
  diag_set_kind(prev);
  unlock_d(d, g, ok);
}

void diag_index_error(Diag *d, SrcLoc loc, const char *kernel, unsigned axis, int64_t index, int64_t extent,
                      const char *fmt, ...) {
  DiagFirst facts = {.kernel = (char *)kernel, .axis = axis, .index = index, .extent = extent};
  va_list ap;
  va_start(ap, fmt);
  record_error(d, DIAG_KIND_OUT_OF_BOUNDS, loc, &facts, fmt, ap);
  va_end(ap);
}

void diag_raised_error(Diag *d, SrcLoc loc, const char *kernel, const char *exception, const uint32_t thread[3],
                       const uint32_t block[3], const char *fmt, ...) {
  DiagFirst facts = {.kernel = (char *)kernel, .exception = (char *)exception};
  memcpy(facts.thread, thread, sizeof facts.thread);
  memcpy(facts.block, block, sizeof facts.block);
  va_list ap;
  va_start(ap, fmt);
  record_error(d, DIAG_KIND_RAISED, loc, &facts, fmt, ap);
  va_end(ap);
}

#define DIAG_FN(name, level)                                 \
  void name(Diag *d, SrcLoc loc, const char *fmt, ...) {     \
    va_list ap;                                              \
    va_start(ap, fmt);                                       \
    diag_report(d, level, loc, fmt, ap);                     \
    va_end(ap);                                              \
  }
DIAG_FN(diag_error, DIAG_ERROR)
DIAG_FN(diag_warning, DIAG_WARNING)
DIAG_FN(diag_note, DIAG_NOTE)

const char *diag_text(Diag *d) { return sb_cstr(&d->text); }
