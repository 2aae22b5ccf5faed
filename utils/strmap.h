/* strmap.h — open-addressing hash map from strings to pointers (symbol tables, interning).
 * Keys are not copied: they must outlive the map (arena strings usually do). The table comes from mem.h: a new
 * table is owned like the old one, the first like the map's owner (strmap_init_owned) or by the current guard
 * (mem.h, rule 1); growing allocates before it changes anything, so a failure leaves the map as it was. */
#ifndef KF_UTILS_STRMAP_H
#define KF_UTILS_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct StrMapEntry {
  const char *key;
  size_t keylen;
  uint64_t hash;
  void *value;
} StrMapEntry;

typedef struct StrMap {
  StrMapEntry *slots;
  size_t cap, count;
  const void *owner;  /* a block the first table is owned like (NULL: the current guard) */
} StrMap;

void strmap_init(StrMap *m);
void strmap_init_owned(StrMap *m, const void *owner);
void strmap_free(StrMap *m);
void *strmap_get(const StrMap *m, const char *key);
void *strmap_getn(const StrMap *m, const char *key, size_t len);
/* Inserts or replaces. False (the map unchanged) when out of memory outside a guard. */
bool strmap_put(StrMap *m, const char *key, void *value);
bool strmap_putn(StrMap *m, const char *key, size_t len, void *value);

uint64_t hash_bytes(const void *p, size_t n);
static inline uint64_t hash_mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

#endif
