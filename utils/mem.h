/* mem.h — the one allocation interface of the library (prefix mem_), the embedder's allocator hook, and
 * guards: how an allocation failure becomes a clean error instead of a crash.
 *
 * Every block the library allocates comes from here (no other library file calls malloc, calloc, realloc,
 * strdup or free: test/lint/check_no_libc_alloc.py keeps it so). A block carries a small header saying which
 * allocator made it and its size, so mem_free and mem_realloc go to that allocator from any thread, whatever
 * the calling thread's allocator is by then (kf_free works after the context is gone).
 *
 * The allocator. Each thread has a current allocator (MemAllocator: the embedder's kf_alloc_fn and its user
 * data, or the default malloc/realloc/free); new blocks come from it. Each api/ entry point makes its object's
 * context's allocator current for the duration of the call (MEM_SCOPE), and the library passes it on to any
 * worker thread it starts (the simulator's). Process-wide state set up once (libNVVM and libdevice) is made
 * with the default allocator, so that no context's allocator holds it.
 *
 * Two regimes of failure.
 *
 *  (a) Guards, for computations that build a result from scratch (the frontend, the verifier and the pass
 *      pipeline, the backend, the simulator's compiler). mem_guard_run(fn, arg) runs fn under a guard
 *      (thread-local, nestable). Under a guard an allocation never returns NULL: its failure unwinds (longjmp,
 *      as Lua raises LUA_ERRMEM) to the innermost guard, which frees every block allocated under it and not
 *      yet freed, runs the cleanups registered with mem_guard_defer (newest first: LLVM contexts, libNVVM
 *      programs and other resources the library does not allocate itself), restores the thread's allocator
 *      and returns false. diag_guard (utils/diag.h) also rolls its Diag back to where it stood at entry and
 *      reports one "out of memory" error there (kind OUT_OF_MEMORY). When fn returns, the blocks it left
 *      allocated (and its cleanups not undone) pass to the enclosing guard, or belong to no guard when there is
 *      none. A guard nested in another that fails returns false to its caller like the outermost one does.
 *  (b) Everywhere else an allocation failure returns NULL; the caller checks and returns an error status
 *      (StrBuf has a sticky failed flag, StrMap/PtrMap puts return false, the runtime returns
 *      KF_ERROR_OUT_OF_MEMORY after diag_out_of_memory).
 *  Code shared by both (strbuf, maps, arenas, type interning) checks for NULL; under a guard it never sees one.
 *
 * The rules for code that runs under a guard:
 *  1. Ownership is decided when a block is allocated: by the current guard (mem_alloc), or like an existing
 *     block (the *_like functions: same guard, or none). mem_realloc keeps a block's owner. Containers grow
 *     like their current storage: an Arena's chunks like its previous chunk, a StrMap's or PtrMap's table like
 *     the old table; their first block is made like their `owner` when they have one (arena_init_owned,
 *     strmap_init_owned, ptrmap owner), else by the current guard. So a container that outlives the guard
 *     (a Module's arena and symbols, the IrContext's types, a SimProgram's tables) keeps all of its memory,
 *     and a container made under the guard goes with it.
 *  2. State that outlives the guard is changed publish-after-allocate: allocate everything first, then link
 *     it in, so that an unwinding failure at any allocation leaves it consistent (type interning, a Module's
 *     symbol table, the simulator's compiled functions). A Module a failed guard was transforming is
 *     consistent memory but may be half transformed: it can only be destroyed.
 *  3. No allocation that may unwind while a lock is held or a once-initialisation runs: such code pauses the
 *     guard (mem_guard_pause: allocations then return NULL), and after unlocking calls mem_fail() if it lost
 *     an allocation. The Diag does so for all its buffers, which belong to no guard.
 *  4. Results leave the guard only when it succeeds: a guarded function writes into its own buffers, and its
 *     caller hands them over after mem_guard_run returned true. Blocks a failed guard freed must not be
 *     reachable from outside it.
 *  5. A guard, and the blocks it owns, belong to one thread: free them on that thread while it runs.
 *  6. mem_guard_defer'd cleanups are for resources that live inside the guarded computation: release them and
 *     mem_guard_undefer before the computation ends (records left when the outermost guard succeeds are
 *     dropped unrun).
 */
#ifndef KF_UTILS_MEM_H
#define KF_UTILS_MEM_H

#include <stdbool.h>
#include <stddef.h>

/* The embedder's allocator, with the contract of kfront.h's kf_alloc_fn (Lua's lua_Alloc): new_size 0 frees
 * ptr (returns NULL); else ptr NULL allocates new_size bytes (old_size 0), ptr non-NULL reallocates a block of
 * old_size bytes. NULL means failure (the old block untouched). Memory is aligned as malloc aligns it. */
typedef void *(*MemAllocFn)(void *ud, void *ptr, size_t old_size, size_t new_size);
typedef struct MemAllocator {
  MemAllocFn fn;   /* NULL: malloc, realloc and free */
  void *ud;
} MemAllocator;

/* The calling thread's current allocator, and replacing it (returns the previous one). */
MemAllocator mem_allocator(void);
MemAllocator mem_set_allocator(MemAllocator a);
/* The default allocator (malloc, realloc, free). */
static inline MemAllocator mem_default_allocator(void) {
  MemAllocator a = {0, 0};
  return a;
}

/* MEM_SCOPE(a): makes a the thread's allocator until the enclosing block ends (then the previous one again).
 * One per block; api/ entry points begin with it. */
typedef struct MemScope { MemAllocator prev; } MemScope;
static inline MemScope mem_scope_enter(MemAllocator a) {
  MemScope s = {mem_set_allocator(a)};
  return s;
}
static inline void mem_scope_leave(MemScope *s) { mem_set_allocator(s->prev); }
#define MEM_SCOPE(a) MemScope mem_scope_ __attribute__((cleanup(mem_scope_leave), unused)) = mem_scope_enter(a)

/* Allocation. Blocks are aligned to 16 bytes. mem_calloc zeroes. mem_realloc(NULL, n) is mem_alloc(n);
 * mem_realloc(p, 0) frees p and returns NULL. NULL on failure outside a guard (see above). */
void *mem_alloc(size_t size);
void *mem_calloc(size_t n, size_t size);
void *mem_realloc(void *p, size_t size);
void mem_free(void *p);
char *mem_strdup(const char *s);
/* A copy of n bytes of s with a NUL after them. */
char *mem_strndup(const char *s, size_t n);
/* The same, owned as `like` is (the same guard, or none; like NULL: the current guard). mem_realloc_like
 * reallocates p keeping p's owner, or (p NULL) allocates like `like`. */
void *mem_alloc_like(const void *like, size_t size);
void *mem_calloc_like(const void *like, size_t n, size_t size);
void *mem_realloc_like(const void *like, void *p, size_t size);

/* Memory outside the embedder's allocator and the guards: the simulator's stand-in for device memory
 * (aligned to `align`, a power of two >= 16). NULL when out of memory; mem_system_free(NULL) does nothing. */
void *mem_system_alloc(size_t align, size_t size);
void mem_system_free(void *p);

/* ---- guards ----------------------------------------------------------------------------------------- */
typedef struct MemGuard MemGuard;

/* Runs fn(arg) under a new guard: true when fn returned, false when an allocation failed under it (after the
 * cleanup described above). */
bool mem_guard_run(void (*fn)(void *arg), void *arg);
/* Suspends the calling thread's guard (allocations return NULL and belong to no guard, unless made like a
 * block that has one) until mem_guard_resume(the returned value). */
MemGuard *mem_guard_pause(void);
void mem_guard_resume(MemGuard *g);
/* An allocation failed that the caller cannot absorb: under a guard, unwinds to it; otherwise returns. */
void mem_fail(void);
/* Under a guard: fn(arg) runs if the guard fails (cleanups run newest first). If the record itself cannot be
 * allocated, fn(arg) runs at once and the failure unwinds. Not under a guard: does nothing. */
void mem_guard_defer(void (*fn)(void *arg), void *arg);
/* Forgets the newest record of fn(arg) in the calling thread's guards (after releasing arg yourself). */
void mem_guard_undefer(void (*fn)(void *arg), void *arg);

#endif
