/* diag.h — located diagnostics: `file:line:col: error: message`, the source line, a caret.
 *
 * A Diag collects rendered diagnostics in a buffer (and optionally forwards each one to a
 * callback). The library never prints or exits on its own: tools print diag_text() and pick
 * the exit status from diag_errors(). Source texts registered with diag_add_source() let the
 * renderer quote the offending line; they are not copied and must outlive the Diag. A text may be a
 * piece of its file (diag_add_source_at: one function's lines, starting at some line); several pieces
 * of one file may be registered, and a line is quoted from the most recently registered text of that
 * file that holds it.
 *
 * Memory: a Diag's buffers belong to no guard (mem.h): it allocates with the guard paused, under its lock,
 * and unwinds to the guard (mem_fail) only after unlocking. Out of memory it still records the fact: the
 * first error becomes kind OUT_OF_MEMORY when its facts could not be kept, diag_out_of_memory needs no
 * memory to do so, and the rendered text is best effort. Do not create a Diag under a guard. */
#ifndef KF_UTILS_DIAG_H
#define KF_UTILS_DIAG_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

typedef struct SrcLoc {
  const char *file;   /* NULL: unknown location */
  unsigned line, col; /* 1-based; 0 = unknown */
} SrcLoc;

typedef enum { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagLevel;

/* What kind of error is reported (the public kf_error_kind has the same values in the same order). The
 * layer that reports sets it for the calling thread (diag_set_kind) around what it does; an error of kind
 * TYPING whose message says "not supported" or "unsupported" is UNSUPPORTED (the frontend's wording). */
typedef enum DiagKind {
  DIAG_KIND_NONE = 0, /* a warning's or a note's; for diag_report_ex: "the thread's" */
  DIAG_KIND_INTERNAL = 1, DIAG_KIND_SYNTAX, DIAG_KIND_TYPING, DIAG_KIND_UNSUPPORTED, DIAG_KIND_ARGUMENT,
  DIAG_KIND_LAUNCH_CONFIG, DIAG_KIND_OUT_OF_BOUNDS, DIAG_KIND_DEVICE, DIAG_KIND_BACKEND, DIAG_KIND_NOT_FOUND,
  DIAG_KIND_OUT_OF_MEMORY, DIAG_KIND_RAISED, DIAG_KIND_VALUE,
  DIAG_KIND_INVALID_IR,       /* kir an embedder parsed or built that breaks kir's rules */
  DIAG_KIND_INVALID_ARGUMENT, /* a call's arguments the API refuses */
} DiagKind;

/* The first error reported since the Diag was made or cleared, as facts. */
typedef struct DiagFirst {
  bool set;
  DiagKind kind;
  char *message;       /* without the location (owned) */
  char *file;          /* owned copy; NULL when unlocated */
  unsigned line, col;
  bool has_index;      /* an IndexError or an exception a kernel raised: */
  char *kernel;        /* owned */
  unsigned axis;
  int64_t index, extent;
  char *exception;     /* raised: "Class" or "Class: message" (owned) */
  uint32_t thread[3], block[3];
} DiagFirst;

/* Every diagnostic as facts, in the order reported (kf_diagnostic of kfront.h). A note is attached to the
 * diagnostic reported just before it (the last top-level one: an error, a warning or a remark) unless it is a
 * remark (diag_remark: a pass's report, standing alone) or nothing came before it. Warnings given again from
 * their rendered text (diag_replay_warnings) are read back from it: message and location from each header line. */
#define DIAG_NO_PARENT 0xffffffffu
typedef struct DiagRecord {
  DiagLevel level;
  DiagKind kind;       /* an error's kind (as the first error's); warnings and notes 0 unless their reporter says */
  char *message;       /* without the location (owned) */
  char *file;          /* owned; NULL when unlocated */
  char *rendered;      /* its text as it is in Diag.text (owned) */
  unsigned line, col, end_col; /* end_col: one past the last column of the span; 0 unknown */
  unsigned parent;     /* a note attached: the index in recs of its diagnostic; else DIAG_NO_PARENT */
  unsigned index;      /* top-level: its index among the top-level ones; a note attached: among its diagnostic's notes */
  unsigned nnotes;     /* the notes attached to it */
} DiagRecord;

typedef struct DiagSource DiagSource;
/* Called with each diagnostic as it is reported (under the Diag's lock: it must not report to the Diag). */
typedef void (*DiagCallback)(void *user, const DiagRecord *r);

typedef struct Diag {
  StrBuf text;         /* every rendered diagnostic, in order */
  unsigned nerrors, nwarnings;
  DiagSource *sources; /* registered source texts, newest first */
  unsigned source_seq; /* numbers the registrations (diag_rollback forgets the newer ones) */
  DiagCallback callback;
  void *callback_user;
  unsigned max_errors; /* 0 = unlimited; after that many errors further ones are dropped */
  DiagFirst first;
  DiagRecord *recs;    /* every diagnostic kept, as facts (notes included) */
  unsigned nrecs, caprecs;
  unsigned *tops;      /* the indices in recs of the top-level ones (all but attached notes) */
  unsigned ntops, captops;
  bool drop_notes;     /* the last error was dropped (max_errors): so are the notes that follow it */
  pthread_mutex_t lock; /* reports from several threads (the runtime's launches) */
} Diag;

void diag_init(Diag *d);
void diag_free(Diag *d);
/* Forgets every diagnostic (text, counts, the first error); sources stay registered. */
void diag_clear(Diag *d);
/* A point in a Diag's history, and forgetting everything reported after it (a quiet attempt). */
typedef struct DiagMark {
  size_t len;
  unsigned nerrors, nwarnings;
  bool first_set;
  unsigned nrecs, ntops;
  unsigned source_seq;  /* sources registered after the mark are forgotten by the rollback too */
} DiagMark;
DiagMark diag_mark(Diag *d);
void diag_rollback(Diag *d, const DiagMark *m);
/* Sets the kind of the errors the calling thread reports from now on; returns the previous one. */
DiagKind diag_set_kind(DiagKind kind);
DiagKind diag_kind(void);
/* Reports "out of memory" (kind OUT_OF_MEMORY). Recording it needs no memory: the first error's facts say out
 * of memory when it is the first; the rendered line is added when the text buffer has room to grow. */
void diag_out_of_memory(Diag *d);
/* mem_guard_run(fn, arg) reporting to d: when an allocation fails under it, d is rolled back to where it
 * stood at entry (the calling thread's error kind too) and one "out of memory" error is reported. */
bool diag_guard(Diag *d, void (*fn)(void *arg), void *arg);
/* Reports an IndexError (kind OUT_OF_BOUNDS) located at loc, recording its facts when it is the first. */
void diag_index_error(Diag *d, SrcLoc loc, const char *kernel, unsigned axis, int64_t index, int64_t extent,
                      const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* Reports an exception a kernel raised (kind RAISED) located at loc: exception is "Class" or "Class: message"
 * (abi.h's exception entries), thread and block where it was raised; the facts are recorded when it is the
 * first error. */
void diag_raised_error(Diag *d, SrcLoc loc, const char *kernel, const char *exception, const uint32_t thread[3],
                       const uint32_t block[3], const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* False when out of memory (outside a guard; under one the failure unwinds to it). */
bool diag_add_source(Diag *d, const char *file, const char *text, size_t len);
/* Registers text whose first line is line first_line of file (0 means 1). */
bool diag_add_source_at(Diag *d, const char *file, const char *text, size_t len, unsigned first_line);
/* Forgets every registered source whose text is `text` (before that text is freed). */
void diag_remove_source(Diag *d, const char *text);
void diag_error(Diag *d, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An error of this kind, whatever the thread's. */
void diag_error_kind(Diag *d, DiagKind kind, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void diag_warning(Diag *d, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Reports again nwarnings warnings rendered earlier (len bytes of a Diag's text: a cached compile's warnings,
 * given again where the cache stands in for the compile); the callback gets them as one text. */
void diag_replay_warnings(Diag *d, const char *rendered, size_t len, unsigned nwarnings);
/* The warnings reported since mark m, when no error was (a compile that succeeded): their rendered text appended to
 * out (copied under the Diag's lock: other threads may report meanwhile), their count returned; 0 when none. */
unsigned diag_warnings_since(Diag *d, const DiagMark *m, StrBuf *out);
void diag_note(Diag *d, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A note that stands alone, attached to nothing (a pass's report: bce{report=1}, tile-shared's reasons); rendered
 * as any note. */
void diag_remark(Diag *d, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_report(Diag *d, DiagLevel level, SrcLoc loc, const char *fmt, va_list ap);
/* diag_report with the facts only some reporters know: kind (0: an error's is the thread's, a warning's or note's
 * none), the span's end column (0 unknown), and whether a note is attached to the diagnostic before it. */
void diag_report_ex(Diag *d, DiagLevel level, DiagKind kind, SrcLoc loc, unsigned end_col, bool attach,
                    const char *fmt, va_list ap);
/* The number of top-level diagnostics; a copy of the i-th (its strings are the Diag's: valid until it is cleared,
 * rolled back past it or freed); of the j-th note of the i-th. False when there is none. */
unsigned diag_record_count(Diag *d);
bool diag_record_at(Diag *d, unsigned i, DiagRecord *out);
bool diag_record_note(Diag *d, unsigned i, unsigned j, DiagRecord *out);
static inline unsigned diag_errors(const Diag *d) { return d->nerrors; }
/* Never NULL. Allocates nothing. */
const char *diag_text(Diag *d);
/* The text of line `line` (1-based) of a registered file, without its newline; NULL if unknown. */
const char *diag_source_line(Diag *d, const char *file, unsigned line, size_t *len);

static inline SrcLoc srcloc(const char *file, unsigned line, unsigned col) {
  SrcLoc l = {file, line, col};
  return l;
}

#endif
