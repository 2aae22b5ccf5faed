/* strbuf.h — growable byte buffer used for printing IR, PTX and messages.
 *
 * Memory comes from mem.h (the buffer keeps the owner of its first block as it grows). Out of memory: under a
 * guard the failure unwinds to it; elsewhere the buffer becomes `failed` (sticky): it keeps what it held, every
 * later write is dropped, and sb_take returns NULL. A writer that needs the whole text checks sb_failed. */
#ifndef KF_UTILS_STRBUF_H
#define KF_UTILS_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct StrBuf {
  char *data;  /* NUL-terminated when not NULL */
  size_t len, cap;
  bool failed; /* an allocation failed: the text is incomplete */
} StrBuf;

void sb_init(StrBuf *b);
void sb_free(StrBuf *b);
/* Empties b (and clears `failed`), keeping its storage. */
void sb_reset(StrBuf *b);
void sb_putc(StrBuf *b, char c);
void sb_puts(StrBuf *b, const char *s);
void sb_putn(StrBuf *b, const char *s, size_t n);
void sb_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap);
static inline bool sb_failed(const StrBuf *b) { return b->failed; }
/* Always returns a NUL-terminated string (a static empty string for a buffer that holds nothing). Allocates
 * nothing. */
const char *sb_cstr(const StrBuf *b);
/* Hands the buffer to the caller (mem_free or kf_free it; an empty buffer gives a new "") and resets b.
 * NULL when b failed or out of memory (b is then freed). */
char *sb_take(StrBuf *b);

#endif
