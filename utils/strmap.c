/* strmap.c — open addressing with linear probing, FNV-1a hashes, grows at 50% load. */
#include "strmap.h"

#include <string.h>

#include "mem.h"

uint64_t hash_bytes(const void *p, size_t n) {
  const unsigned char *s = p;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ull;
  return h;
}

void strmap_init(StrMap *m) { strmap_init_owned(m, NULL); }

void strmap_init_owned(StrMap *m, const void *owner) {
  m->slots = NULL;
  m->cap = m->count = 0;
  m->owner = owner;
}

void strmap_free(StrMap *m) {
  mem_free(m->slots);
  m->slots = NULL;
  m->cap = m->count = 0;
}

static StrMapEntry *find(const StrMap *m, const char *key, size_t len, uint64_t h) {
  size_t mask = m->cap - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    StrMapEntry *e = &m->slots[i];
    if (!e->key) return e;
    if (e->hash == h && e->keylen == len && memcmp(e->key, key, len) == 0) return e;
  }
}

void *strmap_getn(const StrMap *m, const char *key, size_t len) {
  if (!m->cap) return NULL;
  StrMapEntry *e = find(m, key, len, hash_bytes(key, len));
  return e->key ? e->value : NULL;
}
void *strmap_get(const StrMap *m, const char *key) { return strmap_getn(m, key, strlen(key)); }

bool strmap_putn(StrMap *m, const char *key, size_t len, void *value) {
  if ((m->count + 1) * 2 > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 16;
    StrMapEntry *old = m->slots;
    size_t oldcap = m->cap;
    StrMapEntry *slots = mem_calloc_like(old ? (const void *)old : m->owner, cap, sizeof *slots);
    if (!slots) return false;
    m->slots = slots;
    m->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
      if (old[i].key) *find(m, old[i].key, old[i].keylen, old[i].hash) = old[i];
    mem_free(old);
  }
  uint64_t h = hash_bytes(key, len);
  StrMapEntry *e = find(m, key, len, h);
  if (!e->key) {
    e->key = key;
    e->keylen = len;
    e->hash = h;
    m->count++;
  }
  e->value = value;
  return true;
}
bool strmap_put(StrMap *m, const char *key, void *value) { return strmap_putn(m, key, strlen(key), value); }
