/* mem.c — blocks with a header (their allocator, size and guard links), the thread's current allocator, and
 * guards (setjmp/longjmp), as mem.h describes. The only file of the library that calls the C library's
 * allocator.
 *
 * A guard keeps the blocks it owns in a circular doubly linked list through their headers (its sentinel lives
 * in the MemGuard, on the stack of mem_guard_run), so mem_free unlinks in O(1), a failure frees them all, and
 * success splices them into the enclosing guard's list in O(1) (or, at the outermost guard, clears their
 * links). A block made "like" another is linked next to it: it lands in whatever list the other is in. */
#include "mem.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct MemHdr MemHdr;
struct MemHdr {
  MemAllocFn fn;      /* the allocator that made the block (NULL: malloc) */
  void *ud;
  size_t size;        /* payload bytes */
  MemHdr *next, *prev; /* the owning guard's list; NULL when no guard owns the block */
};

enum { HDR = (sizeof(MemHdr) + 15) & ~(size_t)15 };

typedef struct MemDefer MemDefer;
struct MemDefer {
  MemDefer *next;     /* older */
  void (*fn)(void *);
  void *arg;
};

struct MemGuard {
  jmp_buf jb;
  MemGuard *parent;
  MemHdr list;        /* sentinel: only next/prev are used */
  MemDefer *defers;   /* newest first */
  MemAllocator alloc; /* the thread's allocator at entry */
};

/* initial-exec, as diag.c's error kind: read and written by every api/ call and every allocation (no
 * __tls_get_addr call in libkfront.so); 24 bytes of the static TLS surplus glibc keeps for libraries loaded with
 * dlopen (the Python module). */
static _Thread_local MemAllocator tl_alloc __attribute__((tls_model("initial-exec")));
static _Thread_local MemGuard *tl_guard __attribute__((tls_model("initial-exec")));

MemAllocator mem_allocator(void) { return tl_alloc; }

MemAllocator mem_set_allocator(MemAllocator a) {
  MemAllocator prev = tl_alloc;
  tl_alloc = a;
  return prev;
}

static inline MemHdr *hdr_of(const void *p) { return (MemHdr *)((char *)p - HDR); }
static inline void *payload(MemHdr *h) { return (char *)h + HDR; }

static void raw_free(MemHdr *h) {
  if (h->fn) h->fn(h->ud, h, HDR + h->size, 0);
  else free(h);
}

static void link_after(MemHdr *at, MemHdr *h) {
  h->prev = at;
  h->next = at->next;
  at->next->prev = h;
  at->next = h;
}

static void unlink_hdr(MemHdr *h) {
  if (!h->next) return;
  h->prev->next = h->next;
  h->next->prev = h->prev;
  h->next = h->prev = NULL;
}

/* A new block from the current allocator, linked after `at` (NULL: owned by no guard). */
static void *block_new(size_t size, MemHdr *at) {
  MemAllocator a = tl_alloc;
  MemHdr *h = NULL;
  if (size <= SIZE_MAX - HDR) h = a.fn ? a.fn(a.ud, NULL, 0, HDR + size) : malloc(HDR + size);
  if (!h) {
    mem_fail();
    return NULL;
  }
  h->fn = a.fn;
  h->ud = a.ud;
  h->size = size;
  h->next = h->prev = NULL;
  if (at) link_after(at, h);
  return payload(h);
}

/* Where a block owned like `like` goes: after it when a guard owns it; else nowhere. like NULL: the current
 * guard's list (its tail), or nowhere. */
static MemHdr *place_like(const void *like) {
  if (like) {
    MemHdr *o = hdr_of(like);
    return o->next ? o : NULL;
  }
  return tl_guard ? tl_guard->list.prev : NULL;
}

void *mem_alloc(size_t size) { return block_new(size, tl_guard ? tl_guard->list.prev : NULL); }
void *mem_alloc_like(const void *like, size_t size) { return block_new(size, place_like(like)); }

void *mem_calloc_like(const void *like, size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) {
    mem_fail();
    return NULL;
  }
  void *p = block_new(n * size, place_like(like));
  if (p) memset(p, 0, n * size);
  return p;
}

void *mem_calloc(size_t n, size_t size) { return mem_calloc_like(NULL, n, size); }

void mem_free(void *p) {
  if (!p) return;
  MemHdr *h = hdr_of(p);
  unlink_hdr(h);
  raw_free(h);
}

void *mem_realloc_like(const void *like, void *p, size_t size) {
  if (!p) return mem_alloc_like(like, size);
  if (!size) {
    mem_free(p);
    return NULL;
  }
  MemHdr *h = hdr_of(p);
  MemHdr *prev = h->prev, *next = h->next;
  MemHdr *n = NULL;
  if (size <= SIZE_MAX - HDR) n = h->fn ? h->fn(h->ud, h, HDR + h->size, HDR + size) : realloc(h, HDR + size);
  if (!n) {
    mem_fail();
    return NULL;
  }
  n->size = size;
  if (next) {  /* the same place in the same list */
    prev->next = n;
    next->prev = n;
  }
  return payload(n);
}

void *mem_realloc(void *p, size_t size) { return mem_realloc_like(NULL, p, size); }

char *mem_strndup(const char *s, size_t n) {
  char *p = mem_alloc(n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *mem_strdup(const char *s) { return mem_strndup(s, strlen(s)); }

void *mem_system_alloc(size_t align, size_t size) {
  void *p = NULL;
  return posix_memalign(&p, align, size ? size : 1) == 0 ? p : NULL;
}

void mem_system_free(void *p) { free(p); }

/* ---- guards ------------------------------------------------------------------------------------------- */

MemGuard *mem_guard_pause(void) {
  MemGuard *g = tl_guard;
  tl_guard = NULL;
  return g;
}

void mem_guard_resume(MemGuard *g) { tl_guard = g; }

void mem_fail(void) {
  MemGuard *g = tl_guard;
  if (g) longjmp(g->jb, 1);
}

void mem_guard_defer(void (*fn)(void *), void *arg) {
  MemGuard *g = tl_guard;
  if (!g) return;
  tl_guard = NULL;  /* the record belongs to the guard's bookkeeping, not to its blocks */
  MemDefer *d = block_new(sizeof *d, NULL);
  tl_guard = g;
  if (!d) {
    fn(arg);
    mem_fail();
    return;
  }
  d->fn = fn;
  d->arg = arg;
  d->next = g->defers;
  g->defers = d;
}

void mem_guard_undefer(void (*fn)(void *), void *arg) {
  for (MemGuard *g = tl_guard; g; g = g->parent)
    for (MemDefer **p = &g->defers; *p; p = &(*p)->next)
      if ((*p)->fn == fn && (*p)->arg == arg) {
        MemDefer *d = *p;
        *p = d->next;
        mem_free(d);
        return;
      }
}

/* fn returned: the guard's blocks and cleanups pass to the enclosing guard, or to no guard. */
static void guard_succeed(MemGuard *g) {
  MemGuard *parent = g->parent;
  tl_guard = parent;
  MemHdr *first = g->list.next, *last = g->list.prev;
  if (first != &g->list) {
    if (parent) {
      MemHdr *tail = parent->list.prev;
      tail->next = first;
      first->prev = tail;
      last->next = &parent->list;
      parent->list.prev = last;
    } else {
      for (MemHdr *h = first, *n; h != &g->list; h = n) {
        n = h->next;
        h->next = h->prev = NULL;
      }
    }
  }
  if (parent && g->defers) {
    MemDefer *d = g->defers;
    while (d->next) d = d->next;
    d->next = parent->defers;
    parent->defers = g->defers;
  } else {
    for (MemDefer *d = g->defers, *n; d; d = n) {
      n = d->next;
      mem_free(d);
    }
  }
}

/* An allocation failed under g: its cleanups, then its blocks. */
static void guard_unwind(MemGuard *g) {
  tl_guard = NULL;  /* nothing here may unwind again */
  tl_alloc = g->alloc;
  for (MemDefer *d = g->defers, *n; d; d = n) {
    n = d->next;
    d->fn(d->arg);
    mem_free(d);
  }
  for (MemHdr *h = g->list.next, *n; h != &g->list; h = n) {
    n = h->next;
    raw_free(h);
  }
  tl_guard = g->parent;
}

/* setjmp lives here, and g in the caller's frame: nothing this function keeps in a local changes after
 * setjmp. */
static __attribute__((noinline)) bool guard_run(MemGuard *g, void (*fn)(void *), void *arg) {
  g->parent = tl_guard;
  g->list.next = g->list.prev = &g->list;
  g->defers = NULL;
  g->alloc = tl_alloc;
  tl_guard = g;
  if (setjmp(g->jb) == 0) {
    fn(arg);
    guard_succeed(g);
    return true;
  }
  guard_unwind(g);
  return false;
}

bool mem_guard_run(void (*fn)(void *), void *arg) {
  MemGuard g;
  return guard_run(&g, fn, arg);
}
