/* ptrmap.h — open-addressing hash map from pointers to pointers (side tables keyed by IR objects).
 * Keys are not owned and must be non-NULL; a value of NULL reads the same as a missing key. A zeroed
 * PtrMap is empty; ptrmap_free releases its storage and leaves it empty (keeping its owner). Tables come from
 * mem.h: a new table is owned like the old one, the first like `owner` when set (a block: the object the map
 * lives in, when that outlives guards) or by the current guard (mem.h, rule 1). */
#ifndef KF_UTILS_PTRMAP_H
#define KF_UTILS_PTRMAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct PtrMap {
  const void **keys; /* cap slots, NULL when free; walk keys/vals to visit every entry */
  void **vals;
  size_t cap, n;
  const void *owner; /* a block the first table is owned like (NULL: the current guard) */
} PtrMap;

/* The value stored for key, or NULL. */
void *ptrmap_get(const PtrMap *m, const void *key);
/* Inserts or replaces; false (the map unchanged) when out of memory outside a guard. */
bool ptrmap_put(PtrMap *m, const void *key, void *val);
void ptrmap_free(PtrMap *m);

#endif
