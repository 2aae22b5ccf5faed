/* cache.c — compiled-kernel cache (see cache.h for the key and the entry format).
 *
 * Memory: a StrMap from the key's hex text to a copy of the payload, under a mutex.
 * Disk: one file per key, in a directory only this user can write (created 0700; one owned by someone else
 * or writable by group or others is refused, as ccache and pip refuse theirs); atomic writes of 0600 files
 * (utils/file.c: an exclusively created temporary file + rename); every read opens the entry without
 * following a symlink or blocking on a FIFO, checks it is a regular file of this user that no one else can
 * write, and re-validates the whole entry. An invalid one is deleted (only if the file is still the one that
 * was read, so a valid entry renamed into place meanwhile by another process survives). */
#include "runtime/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "utils/file.h"
#include "utils/sha256.h"
#include "utils/mem.h"

static const unsigned char entry_magic[8] = {0x7f, 'K', 'F', 'C', 'A', 'C', 'H', 0};

typedef struct RtCacheBlob {
  size_t len;
  char data[];
} RtCacheBlob;

/* ---- keys ------------------------------------------------------------------------------------ */

static void key_part(Sha256 *s, const char *tag, const void *p, size_t n) {
  unsigned char len[8];
  for (int i = 0; i < 8; i++) len[i] = (unsigned char)((uint64_t)n >> (8 * i));
  sha256_update(s, tag, strlen(tag) + 1);
  sha256_update(s, len, sizeof len);
  if (n) sha256_update(s, p, n);
}

static void key_str(Sha256 *s, const char *tag, const char *str) { key_part(s, tag, str ? str : "", str ? strlen(str) : 0); }

void rt_cache_key(RtCacheKey *key, const RtCacheKeyParts *p) {
  Sha256 s;
  sha256_init(&s);
  char format[16];
  snprintf(format, sizeof format, "%d", RT_CACHE_FORMAT);
  key_str(&s, "format", format);
  key_str(&s, "kfront", KFRONT_VERSION);
  key_str(&s, "file", p->filename);
  key_part(&s, "source", p->source, p->source ? p->source_len : 0);
  key_str(&s, "function", p->function);
  key_str(&s, "signature", p->signature);
  key_str(&s, "options", p->options);
  key_str(&s, "arch", p->arch);
  sha256_final(&s, key->bytes);
  hex_encode(key->bytes, sizeof key->bytes, key->hex);
}

/* ---- directories ----------------------------------------------------------------------------- */

bool rt_cache_default_dir(const char *kfront_cache_dir, const char *xdg_cache_home, const char *home, StrBuf *out) {
  if (kfront_cache_dir && *kfront_cache_dir) {
    sb_puts(out, kfront_cache_dir);
    return true;
  }
  if (xdg_cache_home && *xdg_cache_home) {
    sb_printf(out, "%s/kfront", xdg_cache_home);
    return true;
  }
  if (home && *home) {
    sb_printf(out, "%s/.cache/kfront", home);
    return true;
  }
  return false;
}

/* Whether dir may hold cache entries: an existing directory owned by this user that neither group nor others
 * can write. DIR_MISSING when it does not exist (yet); DIR_UNSAFE with why. */
typedef enum { DIR_MISSING, DIR_SAFE, DIR_UNSAFE } DirState;

static DirState dir_state(const char *dir, StrBuf *why) {
  struct stat st;
  if (stat(dir, &st) != 0) return DIR_MISSING;
  const char *problem = NULL;
  char buf[96];
  if (!S_ISDIR(st.st_mode)) {
    problem = "is not a directory";
  } else if (st.st_uid != geteuid()) {
    snprintf(buf, sizeof buf, "is owned by uid %u, not by you (uid %u)", (unsigned)st.st_uid, (unsigned)geteuid());
    problem = buf;
  } else if (st.st_mode & 022) {
    snprintf(buf, sizeof buf, "is writable by %s (mode %03o)",
             (st.st_mode & 022) == 022 ? "group and others" : st.st_mode & 002 ? "others" : "group",
             (unsigned)(st.st_mode & 0777));
    problem = buf;
  }
  if (!problem) return DIR_SAFE;
  if (why) sb_printf(why, "cache directory %s %s: another user could plant entries in it", dir, problem);
  return DIR_UNSAFE;
}

/* mkdir -p, every directory it creates private (0700) */
static bool make_dirs(const char *dir) {
  size_t n = strlen(dir);
  char *p = mem_alloc(n + 1);
  if (!p) return false;
  memcpy(p, dir, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (p[i] != '/' && p[i] != 0) continue;
    char c = p[i];
    p[i] = 0;
    if (mkdir(p, 0700) != 0 && errno != EEXIST) {
      mem_free(p);
      return false;
    }
    p[i] = c;
  }
  mem_free(p);
  struct stat st;
  return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

void rt_cache_entry_path(const char *dir, const RtCacheKey *key, StrBuf *out) {
  sb_printf(out, "%s/%s.kfc", dir, key->hex);
}

/* ---- entry files ----------------------------------------------------------------------------- */

static void put_u32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get_u32(const unsigned char *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
  return v;
}
static uint64_t get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

bool rt_cache_write_entry(const char *dir, const RtCacheKey *key, const void *payload, size_t len, StrBuf *why) {
  if (!make_dirs(dir)) {
    if (why) sb_printf(why, "cannot create cache directory %s: %s", dir, strerror(errno));
    return false;
  }
  if (dir_state(dir, why) != DIR_SAFE) return false;
  unsigned char *entry = mem_alloc(RT_CACHE_HEADER_SIZE + len);
  if (!entry) {
    if (why) sb_printf(why, "cannot write a cache entry: out of memory");
    return false;
  }
  memcpy(entry, entry_magic, 8);
  put_u32(entry + 8, RT_CACHE_FORMAT);
  put_u32(entry + 12, RT_CACHE_HEADER_SIZE);
  memcpy(entry + 16, key->bytes, 32);
  put_u64(entry + 48, len);
  sha256(payload, len, entry + 56);
  if (len) memcpy(entry + RT_CACHE_HEADER_SIZE, payload, len);
  StrBuf final;
  sb_init(&final);
  rt_cache_entry_path(dir, key, &final);
  char err[256];
  bool ok = file_write_atomic(sb_cstr(&final), entry, RT_CACHE_HEADER_SIZE + len, 0600, err, sizeof err);
  if (!ok && why) sb_printf(why, "cache entry %s: %s", sb_cstr(&final), err);
  sb_free(&final);
  mem_free(entry);
  return ok;
}

/* Removes path only if it is still the file that fd was opened on (fd < 0: whatever is there, not followed).
 * NULL when removed, else why not. */
static const char *remove_if_same(const char *path, int fd) {
  struct stat a, b;
  if (fd >= 0) {
    if (fstat(fd, &a) != 0 || lstat(path, &b) != 0) return strerror(errno);
    if (a.st_dev != b.st_dev || a.st_ino != b.st_ino) return "another file has replaced it";
  }
  return unlink(path) == 0 ? NULL : strerror(errno);
}

RtEntryStatus rt_cache_read_entry(const char *dir, const RtCacheKey *key, char **payload, size_t *len, StrBuf *why) {
  *payload = NULL;
  *len = 0;
  StrBuf path;
  sb_init(&path);
  rt_cache_entry_path(dir, key, &path);
  if (dir_state(dir, why) != DIR_SAFE) { /* missing, or refused (why says so): nothing is read */
    sb_free(&path);
    return RT_ENTRY_MISSING;
  }
  /* not through a symlink, never blocking (a FIFO), only a regular file of this user no one else can write */
  int fd = open(sb_cstr(&path), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    sb_free(&path);
    return RT_ENTRY_MISSING;
  }
  const char *problem = NULL;
  char what[96];
  struct stat st;
  unsigned char *buf = NULL;
  size_t size = 0;
  if (fd < 0) {
    snprintf(what, sizeof what, "%s", errno == ELOOP ? "a symbolic link" : strerror(errno));
    problem = what;
  } else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    problem = "not a regular file";
  } else if (st.st_uid != geteuid()) {
    snprintf(what, sizeof what, "owned by uid %u, not by you", (unsigned)st.st_uid);
    problem = what;
  } else if (st.st_mode & 022) {
    problem = "writable by group or others";
  } else {
    size = (size_t)st.st_size;
    buf = mem_alloc(size + 1);  /* + a NUL after the payload, for text payloads */
    size_t got = 0;
    while (buf && got < size) {
      ssize_t r = read(fd, buf + got, size - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += (size_t)r;
    }
    if (!buf) problem = "out of memory";
    else if (got != size) problem = "short read";
  }
  if (!problem) {
    unsigned char digest[32];
    if (size < RT_CACHE_HEADER_SIZE) problem = "truncated header";
    else if (memcmp(buf, entry_magic, 8) != 0) problem = "bad magic";
    else if (get_u32(buf + 8) != RT_CACHE_FORMAT || get_u32(buf + 12) != RT_CACHE_HEADER_SIZE)
      problem = "unknown format version";
    else if (memcmp(buf + 16, key->bytes, 32) != 0) problem = "key mismatch";
    else if (get_u64(buf + 48) != size - RT_CACHE_HEADER_SIZE) problem = "payload length mismatch (truncated?)";
    else {
      sha256(buf + RT_CACHE_HEADER_SIZE, size - RT_CACHE_HEADER_SIZE, digest);
      if (memcmp(digest, buf + 56, 32) != 0) problem = "payload checksum mismatch";
    }
  }
  RtEntryStatus status = RT_ENTRY_OK;
  if (problem) {
    const char *kept = remove_if_same(sb_cstr(&path), fd);
    if (why && kept) sb_printf(why, "invalid cache entry %s kept (it cannot be removed: %s): %s", sb_cstr(&path), kept, problem);
    else if (why) sb_printf(why, "invalid cache entry %s removed: %s", sb_cstr(&path), problem);
    mem_free(buf);
    status = RT_ENTRY_CORRUPT;
  } else {
    *len = size - RT_CACHE_HEADER_SIZE;
    memmove(buf, buf + RT_CACHE_HEADER_SIZE, *len);
    buf[*len] = 0;
    *payload = (char *)buf;
  }
  if (fd >= 0) close(fd);
  sb_free(&path);
  return status;
}

/* ---- the cache ------------------------------------------------------------------------------- */

void rt_cache_init(RtCache *c, bool memory, const char *disk_dir) {
  memset(c, 0, sizeof *c);
  c->memory = memory;
  sb_init(&c->last_problem);
  sb_init(&c->refused);
  c->dir = disk_dir && *disk_dir && dir_state(disk_dir, &c->refused) != DIR_UNSAFE ? mem_strdup(disk_dir) : NULL;
  if (c->refused.len) sb_puts(&c->refused, "; compiling without the disk cache");
  strmap_init(&c->entries);
  pthread_mutex_init(&c->lock, NULL);
}

void rt_cache_free(RtCache *c) {
  for (size_t i = 0; i < c->entries.cap; i++) {
    StrMapEntry *e = &c->entries.slots[i];
    if (!e->key) continue;
    mem_free((char *)e->key);
    mem_free(e->value);
  }
  strmap_free(&c->entries);
  mem_free(c->dir);
  sb_free(&c->last_problem);
  sb_free(&c->refused);
  pthread_mutex_destroy(&c->lock);
}

/* Keeps a copy in memory (lock held). */
static void remember(RtCache *c, const RtCacheKey *key, const void *payload, size_t len) {
  if (!c->memory || strmap_get(&c->entries, key->hex)) return;
  RtCacheBlob *b = mem_alloc(sizeof *b + len + 1);
  char *k = mem_strdup(key->hex);
  if (!b || !k) {
    mem_free(b);
    mem_free(k);
    return;
  }
  b->len = len;
  memcpy(b->data, payload, len);
  b->data[len] = 0;
  if (!strmap_put(&c->entries, k, b)) {  /* out of memory: not cached */
    mem_free(b);
    mem_free(k);
  }
}

RtCacheResult rt_cache_get(RtCache *c, const RtCacheKey *key, char **payload, size_t *len) {
  *payload = NULL;
  *len = 0;
  pthread_mutex_lock(&c->lock);
  RtCacheBlob *b = c->memory ? strmap_get(&c->entries, key->hex) : NULL;
  if (b) {
    *payload = mem_alloc(b->len + 1);
    if (*payload) {
      memcpy(*payload, b->data, b->len + 1);
      *len = b->len;
      c->stats.memory_hits++;
      pthread_mutex_unlock(&c->lock);
      return RT_CACHE_HIT_MEMORY;
    }
  }
  pthread_mutex_unlock(&c->lock);
  RtCacheResult r = RT_CACHE_MISS;
  if (c->dir) {
    StrBuf why;
    sb_init(&why);
    RtEntryStatus s = rt_cache_read_entry(c->dir, key, payload, len, &why);
    pthread_mutex_lock(&c->lock);
    if (s == RT_ENTRY_OK) {
      remember(c, key, *payload, *len);
      c->stats.disk_hits++;
      r = RT_CACHE_HIT_DISK;
    } else if (s == RT_ENTRY_CORRUPT) {
      c->stats.corrupt++;
      sb_reset(&c->last_problem);
      sb_puts(&c->last_problem, sb_cstr(&why));
    } else if (why.len) { /* the directory was refused */
      sb_reset(&c->last_problem);
      sb_puts(&c->last_problem, sb_cstr(&why));
    }
    pthread_mutex_unlock(&c->lock);
    sb_free(&why);
  }
  if (r == RT_CACHE_MISS) {
    pthread_mutex_lock(&c->lock);
    c->stats.misses++;
    pthread_mutex_unlock(&c->lock);
  }
  return r;
}

bool rt_cache_put(RtCache *c, const RtCacheKey *key, const void *payload, size_t len) {
  pthread_mutex_lock(&c->lock);
  remember(c, key, payload, len);
  pthread_mutex_unlock(&c->lock);
  if (!c->dir) return true;
  StrBuf why;
  sb_init(&why);
  bool ok = rt_cache_write_entry(c->dir, key, payload, len, &why);
  pthread_mutex_lock(&c->lock);
  if (ok) {
    c->stats.writes++;
  } else {
    c->stats.write_failures++;
    sb_reset(&c->last_problem);
    sb_puts(&c->last_problem, sb_cstr(&why));
  }
  pthread_mutex_unlock(&c->lock);
  sb_free(&why);
  return ok;
}

RtCacheStats rt_cache_stats(RtCache *c) {
  pthread_mutex_lock(&c->lock);
  RtCacheStats s = c->stats;
  pthread_mutex_unlock(&c->lock);
  return s;
}
