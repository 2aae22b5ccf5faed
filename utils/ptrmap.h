/* ptrmap.h — open-addressing hash map from pointers to pointers (side tables keyed by IR objects).
 * Keys are not owned and must be non-NULL; a value of NULL reads the same as a missing key. A zeroed
 * PtrMap is empty; ptrmap_free releases its storage and leaves it empty. */
#ifndef KF_UTILS_PTRMAP_H
#define KF_UTILS_PTRMAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct PtrMap {
  const void **keys; /* cap slots, NULL when free; walk keys/vals to visit every entry */
  void **vals;
  size_t cap, n;
} PtrMap;

/* The value stored for key, or NULL. */
void *ptrmap_get(const PtrMap *m, const void *key);
/* Inserts or replaces; out of memory aborts (callers that can report it use ptrmap_try_put). */
void ptrmap_put(PtrMap *m, const void *key, void *val);
/* Inserts or replaces; false (the map unchanged) when out of memory. */
bool ptrmap_try_put(PtrMap *m, const void *key, void *val);
void ptrmap_free(PtrMap *m);

#endif
