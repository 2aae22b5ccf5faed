/* diag.c — renders diagnostics with the quoted source line and a caret under the column. Control bytes in the
 * quoted line, the message and the file name (a NUL, an escape...) are written as \xNN, so a diagnostic is
 * never cut short or garbled on a terminal; the caret moves with them. */
#include "diag.h"

#include <stdlib.h>
#include <string.h>

struct DiagSource {
  DiagSource *next;
  const char *file;
  const char *text;
  size_t len;
  unsigned first_line; /* the file line of the text's first line */
};

static _Thread_local DiagKind current_kind = DIAG_KIND_INTERNAL;

DiagKind diag_set_kind(DiagKind kind) {
  DiagKind prev = current_kind;
  current_kind = kind;
  return prev;
}

void diag_init(Diag *d) {
  memset(d, 0, sizeof *d);
  sb_init(&d->text);
  pthread_mutex_init(&d->lock, NULL);
}

static void first_free(DiagFirst *f) {
  free(f->message);
  free(f->file);
  free(f->kernel);
  memset(f, 0, sizeof *f);
}

void diag_clear(Diag *d) {
  pthread_mutex_lock(&d->lock);
  sb_reset(&d->text);
  d->nerrors = d->nwarnings = 0;
  first_free(&d->first);
  pthread_mutex_unlock(&d->lock);
}

DiagMark diag_mark(Diag *d) {
  pthread_mutex_lock(&d->lock);
  DiagMark m = {d->text.len, d->nerrors, d->nwarnings, d->first.set};
  pthread_mutex_unlock(&d->lock);
  return m;
}

void diag_rollback(Diag *d, const DiagMark *m) {
  pthread_mutex_lock(&d->lock);
  d->text.len = m->len;
  if (d->text.data) d->text.data[m->len] = 0;
  d->nerrors = m->nerrors;
  d->nwarnings = m->nwarnings;
  if (!m->first_set) first_free(&d->first);
  pthread_mutex_unlock(&d->lock);
}

void diag_free(Diag *d) {
  first_free(&d->first);
  pthread_mutex_destroy(&d->lock);
  sb_free(&d->text);
  for (DiagSource *s = d->sources, *n; s; s = n) {
    n = s->next;
    free(s);
  }
  d->sources = NULL;
}

void diag_add_source_at(Diag *d, const char *file, const char *text, size_t len, unsigned first_line) {
  DiagSource *s = malloc(sizeof *s);
  if (!s) return;
  s->file = file;
  s->text = text;
  s->len = len;
  s->first_line = first_line ? first_line : 1;
  s->next = d->sources;
  d->sources = s;
}

void diag_add_source(Diag *d, const char *file, const char *text, size_t len) { diag_add_source_at(d, file, text, len, 1); }

void diag_remove_source(Diag *d, const char *text) {
  for (DiagSource **p = &d->sources; *p;) {
    if ((*p)->text == text) {
      DiagSource *dead = *p;
      *p = dead->next;
      free(dead);
    } else {
      p = &(*p)->next;
    }
  }
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

/* Records the first error's facts (under d->lock). */
static void note_first(Diag *d, SrcLoc loc, const char *message) {
  DiagFirst *f = &d->first;
  f->set = true;
  f->kind = current_kind;
  if (f->kind == DIAG_KIND_TYPING && (strstr(message, "not supported") || strstr(message, "unsupported")))
    f->kind = DIAG_KIND_UNSUPPORTED;
  f->message = strdup(message);
  f->file = loc.file ? strdup(loc.file) : NULL;
  f->line = loc.line;
  f->col = loc.col;
}

static void report_locked(Diag *d, DiagLevel level, SrcLoc loc, const char *fmt, va_list ap);

void diag_report(Diag *d, DiagLevel level, SrcLoc loc, const char *fmt, va_list ap) {
  pthread_mutex_lock(&d->lock);
  report_locked(d, level, loc, fmt, ap);
  pthread_mutex_unlock(&d->lock);
}

void diag_index_error(Diag *d, SrcLoc loc, const char *kernel, unsigned axis, int64_t index, int64_t extent,
                      const char *fmt, ...) {
  DiagKind prev = diag_set_kind(DIAG_KIND_OUT_OF_BOUNDS);
  pthread_mutex_lock(&d->lock);
  bool first = !d->first.set;
  va_list ap;
  va_start(ap, fmt);
  report_locked(d, DIAG_ERROR, loc, fmt, ap);
  va_end(ap);
  if (first && d->first.set) {
    d->first.has_index = true;
    d->first.kernel = kernel ? strdup(kernel) : NULL;
    d->first.axis = axis;
    d->first.index = index;
    d->first.extent = extent;
  }
  pthread_mutex_unlock(&d->lock);
  diag_set_kind(prev);
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

static void report_locked(Diag *d, DiagLevel level, SrcLoc loc, const char *fmt, va_list ap) {
  if (level == DIAG_ERROR) {
    if (d->max_errors && d->nerrors >= d->max_errors) { d->nerrors++; return; }
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
  sb_free(&msg);
  if (level == DIAG_ERROR && !d->first.set) note_first(d, loc, sb_cstr(&one) + message_at);
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
  sb_putn(&d->text, one.data, one.len);
  if (d->callback) d->callback(d->callback_user, level, sb_cstr(&one));
  sb_free(&one);
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
