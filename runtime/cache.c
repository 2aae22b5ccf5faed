/* cache.c — compiled-kernel cache (see cache.h for the key and the entry format).
 *
 * Memory: a StrMap from the key's hex text to a copy of the payload, under a mutex.
 * Disk: one file per key; atomic writes (unique temporary file + rename); every read re-validates the
 * whole entry, and an invalid one is deleted (only if the file is still the one that was read, so a
 * valid entry renamed into place meanwhile by another process survives). */
#include "runtime/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* mkdir -p */
static bool make_dirs(const char *dir) {
  size_t n = strlen(dir);
  char *p = mem_alloc(n + 1);
  if (!p) return false;
  memcpy(p, dir, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (p[i] != '/' && p[i] != 0) continue;
    char c = p[i];
    p[i] = 0;
    if (mkdir(p, 0755) != 0 && errno != EEXIST) {
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

static bool write_all(int fd, const void *data, size_t n) {
  const char *p = data;
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= (size_t)w;
  }
  return true;
}

bool rt_cache_write_entry(const char *dir, const RtCacheKey *key, const void *payload, size_t len, StrBuf *why) {
  if (!make_dirs(dir)) {
    if (why) sb_printf(why, "cannot create cache directory %s: %s", dir, strerror(errno));
    return false;
  }
  unsigned char header[RT_CACHE_HEADER_SIZE];
  memcpy(header, entry_magic, 8);
  put_u32(header + 8, RT_CACHE_FORMAT);
  put_u32(header + 12, RT_CACHE_HEADER_SIZE);
  memcpy(header + 16, key->bytes, 32);
  put_u64(header + 48, len);
  sha256(payload, len, header + 56);

  static atomic_uint counter;
  StrBuf tmp, final;
  sb_init(&tmp);
  sb_init(&final);
  sb_printf(&tmp, "%s/.tmp-%.16s-%ld-%lx-%u", dir, key->hex, (long)getpid(), (unsigned long)pthread_self(),
            atomic_fetch_add(&counter, 1));
  rt_cache_entry_path(dir, key, &final);
  bool ok = false;
  int fd = open(sb_cstr(&tmp), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd >= 0) {
    ok = write_all(fd, header, sizeof header) && write_all(fd, payload, len);
    int saved = errno;
    if (close(fd) != 0) ok = false;
    else errno = saved;
    if (ok && rename(sb_cstr(&tmp), sb_cstr(&final)) != 0) ok = false;
    if (!ok) {
      saved = errno;
      unlink(sb_cstr(&tmp));
      errno = saved;
    }
  }
  if (!ok && why) sb_printf(why, "cannot write cache entry %s: %s", sb_cstr(&final), strerror(errno));
  sb_free(&tmp);
  sb_free(&final);
  return ok;
}

/* Removes path only if it is still the file that fd was opened on. */
static void remove_if_same(const char *path, int fd) {
  struct stat a, b;
  if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) unlink(path);
}

RtEntryStatus rt_cache_read_entry(const char *dir, const RtCacheKey *key, char **payload, size_t *len, StrBuf *why) {
  *payload = NULL;
  *len = 0;
  StrBuf path;
  sb_init(&path);
  rt_cache_entry_path(dir, key, &path);
  int fd = open(sb_cstr(&path), O_RDONLY);
  if (fd < 0) {
    sb_free(&path);
    return RT_ENTRY_MISSING;
  }
  const char *problem = NULL;
  struct stat st;
  unsigned char *buf = NULL;
  size_t size = 0;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    problem = "not a regular file";
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
    if (why) sb_printf(why, "invalid cache entry %s removed: %s", sb_cstr(&path), problem);
    remove_if_same(sb_cstr(&path), fd);
    mem_free(buf);
    status = RT_ENTRY_CORRUPT;
  } else {
    *len = size - RT_CACHE_HEADER_SIZE;
    memmove(buf, buf + RT_CACHE_HEADER_SIZE, *len);
    buf[*len] = 0;
    *payload = (char *)buf;
  }
  close(fd);
  sb_free(&path);
  return status;
}

/* ---- the cache ------------------------------------------------------------------------------- */

void rt_cache_init(RtCache *c, bool memory, const char *disk_dir) {
  memset(c, 0, sizeof *c);
  c->memory = memory;
  c->dir = disk_dir && *disk_dir ? mem_strdup(disk_dir) : NULL;
  strmap_init(&c->entries);
  pthread_mutex_init(&c->lock, NULL);
  sb_init(&c->last_problem);
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
