/* strbuf.c — growable byte buffer. Out of memory aborts: a broken invariant, not bad input. */
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

void sb_init(StrBuf *b) { b->data = NULL; b->len = b->cap = 0; }
void sb_free(StrBuf *b) { mem_free(b->data); sb_init(b); }
void sb_reset(StrBuf *b) { b->len = 0; if (b->data) b->data[0] = 0; }

static void sb_grow(StrBuf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap * 2 : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  char *p = mem_realloc(b->data, cap);
  if (!p) { fputs("kfront: out of memory\n", stderr); abort(); }
  b->data = p;
  b->cap = cap;
}

void sb_putn(StrBuf *b, const char *s, size_t n) {
  sb_grow(b, n);
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
}
void sb_putc(StrBuf *b, char c) { sb_putn(b, &c, 1); }
void sb_puts(StrBuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

void sb_vprintf(StrBuf *b, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  char tmp[256];
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  if (n < (int)sizeof tmp) {
    sb_putn(b, tmp, (size_t)n);
  } else {
    sb_grow(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
    b->len += (size_t)n;
  }
  va_end(ap2);
}

void sb_printf(StrBuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(b, fmt, ap);
  va_end(ap);
}

const char *sb_cstr(StrBuf *b) {
  if (!b->data) sb_grow(b, 0), b->data[0] = 0;
  return b->data;
}

char *sb_take(StrBuf *b) {
  sb_cstr(b);
  char *p = b->data;
  sb_init(b);
  return p;
}
