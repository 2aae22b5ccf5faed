/* arena.h — bump-pointer arena allocator.
 *
 * Everything that lives as long as a module (ops, values, types, strings, AST nodes) is carved out of an
 * Arena and freed all at once with arena_free(). Nothing is freed node by node. Chunks come from mem.h:
 * each is owned like the arena's previous chunk, the first like the arena's owner (arena_init_owned: the
 * object holding the arena, e.g. a Module) or, without one, by the current guard (mem.h, rule 1). Under a
 * guard arena_alloc never fails (an allocation failure unwinds to the guard); elsewhere it returns NULL when
 * out of memory, leaving the arena as it was. */
#ifndef KF_UTILS_ARENA_H
#define KF_UTILS_ARENA_H

#include <stddef.h>

typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
  ArenaChunk *head;   /* chunk being filled */
  size_t total;       /* bytes obtained from mem_alloc, for statistics */
  const void *owner;  /* a block the first chunk is owned like (NULL: the current guard) */
} Arena;

void arena_init(Arena *a);
/* An arena whose chunks belong to whatever owns `owner` (a block from mem.h). */
void arena_init_owned(Arena *a, const void *owner);
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
