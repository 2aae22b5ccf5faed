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

/* ---- records: every diagnostic as facts ---- */

static void record_free(DiagRecord *r) {
  mem_free(r->message);
  mem_free(r->file);
  mem_free(r->rendered);
}

/* Forgets the records from n on (under d->lock). */
static void records_truncate(Diag *d, unsigned n) {
  for (unsigned i = n; i < d->nrecs; i++) {
    DiagRecord *r = &d->recs[i];
    if (r->parent != DIAG_NO_PARENT && r->parent < n) d->recs[r->parent].nnotes--;
    record_free(r);
  }
  if (n < d->nrecs) d->nrecs = n;
  while (d->ntops && d->tops[d->ntops - 1] >= n) d->ntops--;
  if (n == 0) d->drop_notes = false;
}

static bool grow(void **items, unsigned *cap, unsigned need, size_t size) {
  if (need <= *cap) return true;
  unsigned ncap = *cap ? *cap * 2 : 16;
  void *p = mem_realloc(*items, size * ncap);
  if (!p) return false;
  *items = p;
  *cap = ncap;
  return true;
}

/* Keeps a diagnostic's facts (under d->lock, the guard paused); NULL when out of memory (nothing kept). A note
 * is attached to the last top-level diagnostic when attach is set and there is one. */
static DiagRecord *add_record(Diag *d, DiagLevel level, DiagKind kind, SrcLoc loc, unsigned end_col, bool attach,
                              const char *message, size_t message_len, const char *rendered, size_t rendered_len) {
  bool top = level != DIAG_NOTE || !attach || d->ntops == 0;
  if (!grow((void **)&d->recs, &d->caprecs, d->nrecs + 1, sizeof *d->recs) ||
      (top && !grow((void **)&d->tops, &d->captops, d->ntops + 1, sizeof *d->tops)))
    return NULL;
  DiagRecord r = {level, kind, mem_alloc(message_len + 1), loc.file ? mem_strdup(loc.file) : NULL,
                  mem_alloc(rendered_len + 1), loc.file ? loc.line : 0, loc.file ? loc.col : 0,
                  loc.file && loc.col ? end_col : 0, DIAG_NO_PARENT, 0, 0};
  if (!r.message || !r.rendered || (loc.file && !r.file)) {
    record_free(&r);
    return NULL;
  }
  memcpy(r.message, message, message_len);
  r.message[message_len] = 0;
  memcpy(r.rendered, rendered, rendered_len);
  r.rendered[rendered_len] = 0;
  if (top) {
    r.index = d->ntops;
    d->tops[d->ntops++] = d->nrecs;
  } else {
    r.parent = d->tops[d->ntops - 1];
    r.index = d->recs[r.parent].nnotes++;
  }
  d->recs[d->nrecs] = r;
  return &d->recs[d->nrecs++];
}

unsigned diag_record_count(Diag *d) {
  pthread_mutex_lock(&d->lock);
  unsigned n = d->ntops;
  pthread_mutex_unlock(&d->lock);
  return n;
}

bool diag_record_at(Diag *d, unsigned i, DiagRecord *out) {
  pthread_mutex_lock(&d->lock);
  bool ok = i < d->ntops;
  if (ok) *out = d->recs[d->tops[i]];
  pthread_mutex_unlock(&d->lock);
  return ok;
}

bool diag_record_note(Diag *d, unsigned i, unsigned j, DiagRecord *out) {
  pthread_mutex_lock(&d->lock);
  bool ok = false;
  if (i < d->ntops && j < d->recs[d->tops[i]].nnotes) {
    unsigned at = d->tops[i];
    for (unsigned k = at + 1; k < d->nrecs && !ok; k++)
      if (d->recs[k].parent == at && d->recs[k].index == j) {
        *out = d->recs[k];
        ok = true;
      }
  }
  pthread_mutex_unlock(&d->lock);
  return ok;
}

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
  records_truncate(d, 0);
  unlock_d(d, g, true);
}

DiagMark diag_mark(Diag *d) {
  pthread_mutex_lock(&d->lock);
  DiagMark m = {d->text.len, d->nerrors, d->nwarnings, d->first.set, d->nrecs, d->ntops, d->source_seq};
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
  records_truncate(d, m->nrecs);
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
  records_truncate(d, 0);
  mem_free(d->recs);
  mem_free(d->tops);
  d->recs = NULL;
  d->tops = NULL;
  d->caprecs = d->captops = 0;
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
static bool note_first(Diag *d, SrcLoc loc, DiagKind kind, const char *message) {
  DiagFirst *f = &d->first;
  f->set = true;
  f->kind = kind;
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

/* "out of memory" in the text (when it has room to grow), among the records (when they have room) and to the
 * callback (under d->lock, the guard paused). */
static void oom_text(Diag *d) {
  sb_puts(&d->text, OOM_LINE);
  d->text.failed = false;
  static const char message[] = "out of memory";
  DiagRecord *r = add_record(d, DIAG_ERROR, DIAG_KIND_OUT_OF_MEMORY, (SrcLoc){0}, 0, false, message,
                             sizeof message - 1, OOM_LINE, sizeof OOM_LINE - 1);
  DiagRecord stand_in = {DIAG_ERROR, DIAG_KIND_OUT_OF_MEMORY, (char *)message, NULL, (char *)OOM_LINE, 0, 0, 0,
                         DIAG_NO_PARENT, d->ntops, 0};
  if (d->callback) d->callback(d->callback_user, r ? r : &stand_in);
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
static bool report_locked(Diag *d, DiagLevel level, DiagKind kind, SrcLoc loc, unsigned end_col, bool attach,
                          const char *fmt, va_list ap, bool guarded) {
  if (level == DIAG_ERROR) {
    if (d->max_errors && d->nerrors >= d->max_errors) { d->nerrors++; d->drop_notes = true; return true; }
    d->nerrors++;
  } else if (level == DIAG_WARNING) {
    d->nwarnings++;
  }
  bool keep = level != DIAG_NOTE || !attach || !d->drop_notes;  /* not a note of a dropped error */
  if (level != DIAG_NOTE || !attach) d->drop_notes = false;
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
  size_t message_len = one.len - message_at;
  if (level == DIAG_ERROR && !kind) {
    kind = current_kind;
    if (kind == DIAG_KIND_TYPING && ok &&
        (strstr(sb_cstr(&one) + message_at, "not supported") || strstr(sb_cstr(&one) + message_at, "unsupported")))
      kind = DIAG_KIND_UNSUPPORTED;
  }
  if (level == DIAG_ERROR && !d->first.set) {
    if (ok) ok = note_first(d, loc, kind, sb_cstr(&one) + message_at);
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
  DiagRecord *r = NULL;
  if (ok && keep) {
    r = add_record(d, level, kind, loc, end_col, attach, one.data + message_at, message_len, one.data, one.len);
    ok = r != NULL;
  }
  if (ok) {
    if (d->callback && r) d->callback(d->callback_user, r);
  } else if (!guarded) {
    oom_text(d);
  }
  sb_free(&one);
  return ok;
}

/* A header line of rendered text, "FILE:LINE:COL: warning: MESSAGE" or "kfront: note: MESSAGE": its level, location
 * and where its message starts; false for another line (a quoted source line, a caret, a message's next line). */
static bool parse_header(const char *line, size_t n, DiagLevel *level, SrcLoc *loc, size_t *file_len, size_t *msg_at) {
  static const char *const tags[] = {": error: ", ": warning: ", ": note: "};
  for (int t = 0; t < 3; t++) {
    size_t tl = strlen(tags[t]);
    for (size_t i = 0; i + tl <= n; i++) {
      if (memcmp(line + i, tags[t], tl) != 0) continue;
      *level = (DiagLevel)t;
      *msg_at = i + tl;
      *loc = (SrcLoc){0};
      if (i == 6 && memcmp(line, "kfront", 6) == 0) { *file_len = 0; return true; }
      size_t end = i;
      unsigned nums[2] = {0, 0}, nnums = 0;
      while (nnums < 2) {  /* ":LINE:COL" or ":LINE" before the tag, read from the right */
        size_t j = end;
        unsigned v = 0, scale = 1;
        while (j > 0 && line[j - 1] >= '0' && line[j - 1] <= '9') { v += (unsigned)(line[j - 1] - '0') * scale; scale *= 10; j--; }
        if (j == end || j == 0 || line[j - 1] != ':') break;
        nums[nnums++] = v;
        end = j - 1;
      }
      if (nnums == 0 || end == 0) return false;
      loc->line = nnums == 2 ? nums[1] : nums[0];
      loc->col = nnums == 2 ? nums[0] : 0;
      *file_len = end;
      return true;
    }
  }
  return false;
}

/* The records of rendered diagnostics given again (under d->lock, the guard paused): one per header line, with the
 * lines up to the next header as its rendered text. False when out of memory. */
static bool replay_records(Diag *d, const char *text, size_t len) {
  const char *p = text, *end = text + len, *start = NULL;
  DiagLevel level = DIAG_WARNING;
  SrcLoc loc = {0};
  const char *msg = NULL;
  size_t msg_len = 0, file_len = 0;
  char file[512];
  while (p <= end) {
    const char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
    const char *le = nl ? nl : end;
    DiagLevel lv;
    SrcLoc l;
    size_t fl, ma;
    bool header = p < end && parse_header(p, (size_t)(le - p), &lv, &l, &fl, &ma);
    if ((header || p >= end) && start) {
      SrcLoc at = loc;
      if (file_len) {
        size_t n = file_len < sizeof file - 1 ? file_len : sizeof file - 1;
        memcpy(file, start, n);
        file[n] = 0;
        at.file = file;
      }
      if (!add_record(d, level, 0, at, 0, true, msg, msg_len, start, (size_t)(p - start))) return false;
      start = NULL;
    }
    if (p >= end) break;
    if (header) {
      start = p;
      level = lv;
      loc = l;
      file_len = fl;
      msg = p + ma;
      msg_len = (size_t)(le - msg);
    }
    p = nl ? nl + 1 : end + 1;
  }
  return true;
}

void diag_replay_warnings(Diag *d, const char *rendered, size_t len, unsigned nwarnings) {
  if (!len || !nwarnings) return;
  MemGuard *g = lock_d(d);
  size_t at = d->text.len;
  unsigned first_rec = d->nrecs;
  sb_putn(&d->text, rendered, len);
  bool ok = !d->text.failed;
  d->text.failed = false;
  if (ok) ok = replay_records(d, rendered, len);
  if (!ok) {
    if (d->text.data && at <= d->text.len) d->text.data[d->text.len = at] = 0;
    records_truncate(d, first_rec);
  } else {
    d->nwarnings += nwarnings;
    for (unsigned i = first_rec; i < d->nrecs && d->callback; i++) d->callback(d->callback_user, &d->recs[i]);
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

void diag_report_ex(Diag *d, DiagLevel level, DiagKind kind, SrcLoc loc, unsigned end_col, bool attach,
                    const char *fmt, va_list ap) {
  MemGuard *g = lock_d(d);
  bool ok = report_locked(d, level, kind, loc, end_col, attach, fmt, ap, g != NULL);
  unlock_d(d, g, ok);
}

void diag_report(Diag *d, DiagLevel level, SrcLoc loc, const char *fmt, va_list ap) {
  diag_report_ex(d, level, 0, loc, 0, true, fmt, ap);
}

void diag_error_kind(Diag *d, DiagKind kind, SrcLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_report_ex(d, DIAG_ERROR, kind, loc, 0, true, fmt, ap);
  va_end(ap);
}

void diag_remark(Diag *d, SrcLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_report_ex(d, DIAG_NOTE, 0, loc, 0, false, fmt, ap);
  va_end(ap);
}

void diag_out_of_memory(Diag *d) {
  MemGuard *g = lock_d(d);
  d->nerrors++;
  d->drop_notes = false;
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
  bool ok = report_locked(d, DIAG_ERROR, 0, loc, 0, true, fmt, ap, g != NULL);
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
