/* ptrmap.c — linear probing over a power-of-two table, a mixed pointer hash, grows at 50% load. */
#include "ptrmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

static size_t ptr_hash(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return (size_t)x;
}

void *ptrmap_get(const PtrMap *m, const void *key) {
  if (!m->cap) return NULL;
  size_t mask = m->cap - 1;
  for (size_t i = ptr_hash(key) & mask;; i = (i + 1) & mask) {
    if (m->keys[i] == key) return m->vals[i];
    if (!m->keys[i]) return NULL;
  }
}

void ptrmap_put(PtrMap *m, const void *key, void *val) {
  if (!ptrmap_try_put(m, key, val)) abort(); /* out of memory: these callers have no way to report it */
}

bool ptrmap_try_put(PtrMap *m, const void *key, void *val) {
  if ((m->n + 1) * 2 > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 16;
    const void **keys = mem_calloc(cap, sizeof *keys);
    void **vals = mem_calloc(cap, sizeof *vals);
    if (!keys || !vals) {
      mem_free(keys);
      mem_free(vals);
      return false;
    }
    for (size_t i = 0; i < m->cap; i++) {
      if (!m->keys[i]) continue;
      size_t j = ptr_hash(m->keys[i]) & (cap - 1);
      while (keys[j]) j = (j + 1) & (cap - 1);
      keys[j] = m->keys[i];
      vals[j] = m->vals[i];
    }
    mem_free(m->keys);
    mem_free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
  }
  size_t mask = m->cap - 1;
  size_t i = ptr_hash(key) & mask;
  while (m->keys[i] && m->keys[i] != key) i = (i + 1) & mask;
  if (!m->keys[i]) m->n++;
  m->keys[i] = key;
  m->vals[i] = val;
  return true;
}

void ptrmap_free(PtrMap *m) {
  mem_free(m->keys);
  mem_free(m->vals);
  memset(m, 0, sizeof *m);
}
