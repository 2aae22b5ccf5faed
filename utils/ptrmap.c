/* ptrmap.c — linear probing over a power-of-two table, a mixed pointer hash, grows at 50% load. A grown table
 * (keys and values in one block) is allocated in full before it replaces the old one. */
#include "ptrmap.h"

#include <stdint.h>
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

bool ptrmap_put(PtrMap *m, const void *key, void *val) {
  if ((m->n + 1) * 2 > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 16;
    const void *like = m->keys ? (const void *)m->keys : m->owner;
    /* keys and values in one block: one allocation to fail or succeed */
    const void **keys = mem_calloc_like(like, 2 * cap, sizeof *keys);
    if (!keys) return false;
    void **vals = (void **)(keys + cap);
    for (size_t i = 0; i < m->cap; i++) {
      if (!m->keys[i]) continue;
      size_t j = ptr_hash(m->keys[i]) & (cap - 1);
      while (keys[j]) j = (j + 1) & (cap - 1);
      keys[j] = m->keys[i];
      vals[j] = m->vals[i];
    }
    mem_free(m->keys);
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
  m->keys = NULL;
  m->vals = NULL;
  m->cap = m->n = 0;
}
