/* cache.h — the compiled-kernel cache: in memory and on disk, keyed by a SHA-256 of everything the
 * compiled code depends on.
 *
 * Key: SHA-256 over (cache format, kfront version, file name, source text, function, signature, options, arch),
 * each part length-prefixed so no two different tuples hash the same text.
 * Entry file `<dir>/<64 hex digits of the key>.kfc`:
 *     magic "\x7fKFCACH" | u32 format version | u32 header size | key (32 bytes) | u64 payload length |
 *     SHA-256 of the payload (32 bytes) | payload
 * (integers little-endian). An entry is written (mode 0600) to a temporary file created exclusively in the same
 * directory and renamed over the final name, so readers see a whole entry or none. The directory is created
 * 0700; one that exists but is not this user's, or that group or others can write, is refused (another user
 * could plant entries: PTX that would be loaded, a manifest whose parameter types would be trusted). A reader
 * opens an entry with O_NOFOLLOW | O_NONBLOCK, takes only a regular file of this user that no one else can
 * write, and checks magic, version, key, length and checksum; an entry that fails any check is removed (or
 * kept, and said so, when it cannot be) and reported as a miss (the caller recompiles), never trusted. The
 * payload is opaque here (runtime/launch.c stores a small manifest and the PTX).
 *
 * Thread-safe: the memory map is guarded by a mutex; disk entries are safe between processes. */
#ifndef KF_RUNTIME_CACHE_H
#define KF_RUNTIME_CACHE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utils/strbuf.h"
#include "utils/strmap.h"

enum { RT_CACHE_FORMAT = 2, RT_CACHE_HEADER_SIZE = 88 };

typedef struct RtCacheKey {
  unsigned char bytes[32];
  char hex[65];
} RtCacheKey;

typedef struct RtCacheKeyParts {
  const char *filename;
  const char *source;
  size_t source_len;
  const char *function;
  const char *signature;  /* the argument types or eager signature the code was specialised for */
  const char *options;    /* canonical text of every compile option that changes the code */
  const char *arch;       /* "sm_90" */
} RtCacheKeyParts;

void rt_cache_key(RtCacheKey *key, const RtCacheKeyParts *parts);

typedef enum RtCacheResult { RT_CACHE_MISS, RT_CACHE_HIT_MEMORY, RT_CACHE_HIT_DISK } RtCacheResult;

typedef struct RtCacheStats {
  unsigned memory_hits, disk_hits, misses;
  unsigned corrupt;        /* disk entries found invalid (and removed) */
  unsigned writes, write_failures;
} RtCacheStats;

typedef struct RtCache {
  bool memory;             /* keep payloads in memory */
  char *dir;               /* disk cache directory (owned), NULL when the disk cache is off */
  StrMap entries;          /* hex key (owned) -> RtCacheBlob* */
  pthread_mutex_t lock;
  RtCacheStats stats;
  StrBuf last_problem;     /* why the last disk entry was refused or not written ("" if none) */
  StrBuf refused;          /* why rt_cache_init refused the directory (the disk cache is then off), or "" */
} RtCache;

/* The directory the disk cache uses by default, from the values of $KFRONT_CACHE_DIR, $XDG_CACHE_HOME and
 * $HOME (the embedder reads them; any may be NULL): the first, else XDG/kfront, else HOME/.cache/kfront.
 * Appends it to out; false when all three are unset or empty. */
bool rt_cache_default_dir(const char *kfront_cache_dir, const char *xdg_cache_home, const char *home, StrBuf *out);

/* memory: keep a copy of every payload in memory. disk_dir: NULL for no disk cache; the directory (and its
 * parents, all 0700) is created when the first entry is written. An existing directory that is not safe is
 * refused: the disk cache is off, and c->refused says why (the runtime warns with it). */
void rt_cache_init(RtCache *c, bool memory, const char *disk_dir);
void rt_cache_free(RtCache *c);

/* Looks key up in memory, then on disk (a disk hit is also kept in memory). On a hit *payload is a
 * malloc'ed copy the caller frees, followed by a NUL (not counted in *len). */
RtCacheResult rt_cache_get(RtCache *c, const RtCacheKey *key, char **payload, size_t *len);
/* Stores a payload in memory and on disk. A failed disk write is counted, not an error: false only tells
 * the caller (c->last_problem says why). */
bool rt_cache_put(RtCache *c, const RtCacheKey *key, const void *payload, size_t len);
RtCacheStats rt_cache_stats(RtCache *c);

/* ---- the entry files (exposed for tests) ---------------------------------------------------- */
/* Appends the entry path of key under dir. */
void rt_cache_entry_path(const char *dir, const RtCacheKey *key, StrBuf *out);
/* Writes one entry atomically (temporary file in the same directory, then rename). On failure (or in a directory
 * that is not safe) writes why. */
bool rt_cache_write_entry(const char *dir, const RtCacheKey *key, const void *payload, size_t len, StrBuf *why);
typedef enum RtEntryStatus { RT_ENTRY_OK, RT_ENTRY_MISSING, RT_ENTRY_CORRUPT } RtEntryStatus;
/* Reads and validates one entry (payload NUL-terminated as by rt_cache_get). RT_ENTRY_CORRUPT: the file is
 * removed (or kept when it cannot be) and why says what was wrong. RT_ENTRY_MISSING also for a directory that
 * is not safe (why says so). */
RtEntryStatus rt_cache_read_entry(const char *dir, const RtCacheKey *key, char **payload, size_t *len, StrBuf *why);

#endif
