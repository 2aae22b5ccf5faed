/* arena.h — bump-pointer arena allocator.
 *
 * Everything that lives as long as a module (ops, values, types, strings, AST
 * nodes) is carved out of an Arena and freed all at once with arena_free().
 * Nothing is freed node by node. Allocation failure is reported by returning
 * NULL from arena_alloc only when the system allocator fails; callers in the
 * library treat that as a fatal resource error through diag. */
#ifndef KF_UTILS_ARENA_H
#define KF_UTILS_ARENA_H

#include <stddef.h>

typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
  ArenaChunk *head;  /* chunk being filled */
  size_t total;      /* bytes obtained from malloc, for statistics */
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);
/* Returns zeroed memory aligned to 16 bytes. */
void *arena_alloc(Arena *a, size_t size);
/* Copy of s (n bytes) with a terminating NUL. */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

#endif
