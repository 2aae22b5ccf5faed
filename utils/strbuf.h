/* strbuf.h — growable byte buffer used for printing IR, PTX and messages. */
#ifndef KF_UTILS_STRBUF_H
#define KF_UTILS_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "mem.h"

typedef struct StrBuf {
  char *data;  /* NUL-terminated when len > 0 or after sb_cstr */
  size_t len, cap;
} StrBuf;

void sb_init(StrBuf *b);
void sb_free(StrBuf *b);
void sb_reset(StrBuf *b);
void sb_putc(StrBuf *b, char c);
void sb_puts(StrBuf *b, const char *s);
void sb_putn(StrBuf *b, const char *s, size_t n);
void sb_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap);
/* Always returns a NUL-terminated string (the empty string for an empty buffer). */
const char *sb_cstr(StrBuf *b);
/* Hands the heap buffer to the caller (mem_free() it) and resets b. */
char *sb_take(StrBuf *b);

#endif
