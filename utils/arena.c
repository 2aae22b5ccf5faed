/* arena.c — bump-pointer arena: chunks from mem.h (each owned like the previous one), freed together. */
#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mem.h"

struct ArenaChunk {
  ArenaChunk *prev;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
};

enum { ARENA_CHUNK = 64 * 1024 };

void arena_init(Arena *a) { arena_init_owned(a, NULL); }

void arena_init_owned(Arena *a, const void *owner) {
  a->head = NULL;
  a->total = 0;
  a->owner = owner;
}

void arena_free(Arena *a) {
  ArenaChunk *c = a->head;
  while (c) {
    ArenaChunk *p = c->prev;
    mem_free(c);
    c = p;
  }
  a->head = NULL;
  a->total = 0;
}

void *arena_alloc(Arena *a, size_t size) {
  if (size > SIZE_MAX / 2) {
    mem_fail();
    return NULL;
  }
  size = (size + 15) & ~(size_t)15;
  ArenaChunk *c = a->head;
  if (!c || c->used + size > c->cap) {
    size_t cap = size > ARENA_CHUNK / 4 ? size : ARENA_CHUNK;
    ArenaChunk *n = mem_alloc_like(c ? (const void *)c : a->owner, sizeof(ArenaChunk) + cap);
    if (!n) return NULL;
    n->used = 0;
    n->cap = cap;
    a->total += cap;
    if (c && size > ARENA_CHUNK / 4) {
      /* Big block: keep filling the current chunk afterwards. */
      n->prev = c->prev;
      c->prev = n;
      n->used = size;
      memset(n->data, 0, size);
      return n->data;
    }
    n->prev = c;
    a->head = c = n;
  }
  void *p = c->data + c->used;
  c->used += size;
  memset(p, 0, size);
  return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = arena_alloc(a, (size_t)n + 1);
  if (p) vsnprintf(p, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return p;
}
