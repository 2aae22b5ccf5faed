/* strbuf.c — growable byte buffer over mem.h, with a sticky failed flag outside guards. */
#include "strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mem.h"

void sb_init(StrBuf *b) {
  b->data = NULL;
  b->len = b->cap = 0;
  b->failed = false;
}

void sb_free(StrBuf *b) {
  mem_free(b->data);
  sb_init(b);
}

void sb_reset(StrBuf *b) {
  b->len = 0;
  b->failed = false;
  if (b->data) b->data[0] = 0;
}

/* Room for extra more bytes and a NUL; false (b failed) when out of memory. */
static bool sb_grow(StrBuf *b, size_t extra) {
  if (b->failed) return false;
  if (extra < SIZE_MAX / 2 - b->len && b->len + extra + 1 <= b->cap) return true;
  if (extra >= SIZE_MAX / 4 - b->len) {
    b->failed = true;
    mem_fail();
    return false;
  }
  size_t cap = b->cap ? b->cap * 2 : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  char *p = mem_realloc(b->data, cap);
  if (!p) {
    b->failed = true;
    return false;
  }
  b->data = p;
  b->cap = cap;
  return true;
}

void sb_putn(StrBuf *b, const char *s, size_t n) {
  if (!sb_grow(b, n)) return;
  if (n) memcpy(b->data + b->len, s, n);
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
  if (n < 0) {
    /* an encoding error: nothing written */
  } else if (n < (int)sizeof tmp) {
    sb_putn(b, tmp, (size_t)n);
  } else if (sb_grow(b, (size_t)n)) {
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

const char *sb_cstr(const StrBuf *b) { return b->data ? b->data : ""; }

char *sb_take(StrBuf *b) {
  if (!b->failed && !b->data) sb_grow(b, 0);
  if (b->failed) {
    sb_free(b);
    return NULL;
  }
  b->data[b->len] = 0;
  char *p = b->data;
  sb_init(b);
  return p;
}
