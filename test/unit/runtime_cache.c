/* runtime_cache.c — runtime/cache.c: keys, memory and disk hits, every kind of corrupt entry (ignored,
 * removed, then rewritten), atomic writes (no partial entry is ever seen, no temporary file is left),
 * concurrent writers and readers (processes via fork, threads on one RtCache), and what another user could
 * plant: directories 0700 and entries 0600; a directory of another owner or writable by group or others
 * refused; a symlinked, FIFO, foreign or group-writable entry refused without blocking; "kept" when an
 * invalid entry cannot be removed. */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "kfront/kfront.h"
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/cache.h"
#include "runtime_test.h"
#include "utils/mem.h"

static char dir[64];

static RtCacheKey key_for(const char *function, const char *sig) {
  RtCacheKeyParts p = {.filename = "k.py", .source = "def f(): pass\n", .source_len = 14, .function = function,
                       .signature = sig, .options = "bounds_check=1", .arch = "sm_90"};
  RtCacheKey k;
  rt_cache_key(&k, &p);
  return k;
}

static void entry_path(const RtCacheKey *k, char *out, size_t n) {
  StrBuf b;
  sb_init(&b);
  rt_cache_entry_path(dir, k, &b);
  snprintf(out, n, "%s", sb_cstr(&b));
  sb_free(&b);
}

static size_t file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (size_t)st.st_size : (size_t)-1;
}

static unsigned count_temp_files(void) {
  unsigned n = 0;
  DIR *d = opendir(dir);
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d));)
    if (strstr(e->d_name, ".tmp-")) n++;
  closedir(d);
  return n;
}

static void test_keys(void) {
  RtCacheKey a = key_for("f", "void(float32[:])"), b = key_for("f", "void(float32[:])");
  CHECK(memcmp(a.bytes, b.bytes, 32) == 0 && strlen(a.hex) == 64 && strcmp(a.hex, b.hex) == 0);
  RtCacheKey c = key_for("g", "void(float32[:])"), d = key_for("f", "void(float64[:])");
  CHECK(memcmp(a.bytes, c.bytes, 32) != 0 && memcmp(a.bytes, d.bytes, 32) != 0);
  /* parts are length-prefixed: moving text from one part to the next changes the key */
  RtCacheKeyParts p1 = {.function = "ab", .signature = "c"}, p2 = {.function = "a", .signature = "bc"};
  RtCacheKey k1, k2;
  rt_cache_key(&k1, &p1);
  rt_cache_key(&k2, &p2);
  CHECK(memcmp(k1.bytes, k2.bytes, 32) != 0);
  RtCacheKeyParts q = {.function = "f", .arch = "sm_80"}, r = {.function = "f", .arch = "sm_90"};
  rt_cache_key(&k1, &q);
  rt_cache_key(&k2, &r);
  CHECK(memcmp(k1.bytes, k2.bytes, 32) != 0);
}

static void test_memory_and_disk(void) {
  RtCache c;
  rt_cache_init(&c, true, NULL);
  RtCacheKey k = key_for("mem", "");
  char *p;
  size_t n;
  CHECK(rt_cache_get(&c, &k, &p, &n) == RT_CACHE_MISS && p == NULL);
  CHECK(rt_cache_put(&c, &k, "ptx text", 8));
  CHECK(rt_cache_get(&c, &k, &p, &n) == RT_CACHE_HIT_MEMORY && n == 8 && memcmp(p, "ptx text", 8) == 0);
  mem_free(p);
  rt_cache_free(&c);

  RtCache d1, d2;
  rt_cache_init(&d1, true, dir);
  k = key_for("disk", "");
  CHECK(rt_cache_get(&d1, &k, &p, &n) == RT_CACHE_MISS);
  CHECK(rt_cache_put(&d1, &k, "payload", 7));
  rt_cache_free(&d1);
  char path[256];
  entry_path(&k, path, sizeof path);
  CHECK(file_size(path) == RT_CACHE_HEADER_SIZE + 7);
  rt_cache_init(&d2, true, dir);  /* a fresh process, as far as memory goes */
  CHECK(rt_cache_get(&d2, &k, &p, &n) == RT_CACHE_HIT_DISK && n == 7 && memcmp(p, "payload", 7) == 0);
  mem_free(p);
  CHECK(rt_cache_get(&d2, &k, &p, &n) == RT_CACHE_HIT_MEMORY);
  mem_free(p);
  RtCacheStats s = rt_cache_stats(&d2);
  CHECK(s.disk_hits == 1 && s.memory_hits == 1 && s.misses == 0 && s.corrupt == 0);
  rt_cache_free(&d2);
  CHECK(count_temp_files() == 0);

  /* the disk cache in a nested directory that does not exist yet */
  char nested[128];
  snprintf(nested, sizeof nested, "%s/a/b/c", dir);
  CHECK(rt_cache_write_entry(nested, &k, "x", 1, NULL));
  /* a directory that cannot be created: a write failure, counted, not fatal */
  char blocked[300];
  snprintf(blocked, sizeof blocked, "%s/sub", path); /* path is a file, so path/sub cannot be a directory */
  RtCache e;
  rt_cache_init(&e, true, blocked);
  CHECK(!rt_cache_put(&e, &k, "y", 1));
  CHECK(rt_cache_stats(&e).write_failures == 1);
  CHECK_CONTAINS(sb_cstr(&e.last_problem), "cannot create cache directory");
  CHECK(rt_cache_get(&e, &k, &p, &n) == RT_CACHE_HIT_MEMORY);  /* memory still works */
  mem_free(p);
  rt_cache_free(&e);
}

typedef void (*Corruptor)(const char *path, const RtCacheKey *k);

static void flip_payload_byte(const char *path, const RtCacheKey *k) {
  int fd = open(path, O_RDWR);
  char c;
  CHECK(pread(fd, &c, 1, RT_CACHE_HEADER_SIZE + 3) == 1);
  c ^= 0x20;
  CHECK(pwrite(fd, &c, 1, RT_CACHE_HEADER_SIZE + 3) == 1);
  close(fd);
}
static void truncate_half(const char *path, const RtCacheKey *k) { CHECK(truncate(path, (off_t)(file_size(path) / 2)) == 0); }
static void truncate_payload(const char *path, const RtCacheKey *k) { CHECK(truncate(path, (off_t)file_size(path) - 1) == 0); }
static void truncate_empty(const char *path, const RtCacheKey *k) { CHECK(truncate(path, 0) == 0); }
static void append_junk(const char *path, const RtCacheKey *k) {
  int fd = open(path, O_WRONLY | O_APPEND);
  CHECK(write(fd, "junk", 4) == 4);
  close(fd);
}
static void break_magic(const char *path, const RtCacheKey *k) {
  int fd = open(path, O_RDWR);
  CHECK(pwrite(fd, "XX", 2, 1) == 2);
  close(fd);
}
static void bump_version(const char *path, const RtCacheKey *k) {
  int fd = open(path, O_RDWR);
  unsigned char v = RT_CACHE_FORMAT + 1;
  CHECK(pwrite(fd, &v, 1, 8) == 1);
  close(fd);
}
static void other_key(const char *path, const RtCacheKey *k) {
  /* a valid entry of another key, renamed to this key's file */
  RtCacheKey o = key_for("other", "");
  rt_cache_write_entry(dir, &o, "other payload", 13, NULL);
  char opath[256];
  entry_path(&o, opath, sizeof opath);
  rename(opath, path);
}

static void test_corruption(void) {
  static const struct {
    const char *name;
    Corruptor fn;
    const char *why;
  } cases[] = {
      {"flipped payload byte", flip_payload_byte, "checksum mismatch"},
      {"truncated in half", truncate_half, "truncated"},
      {"payload one byte short", truncate_payload, "length mismatch"},
      {"empty file", truncate_empty, "truncated header"},
      {"junk appended", append_junk, "length mismatch"},
      {"bad magic", break_magic, "bad magic"},
      {"newer format", bump_version, "format version"},
      {"another key's entry", other_key, "key mismatch"},
  };
  const char *payload = "// PTX\n.version 8.0\n.target sm_90\n.address_size 64\n";
  size_t plen = strlen(payload);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    RtCacheKey k = key_for("corrupt", cases[i].name);
    char path[256];
    entry_path(&k, path, sizeof path);
    CHECK(rt_cache_write_entry(dir, &k, payload, plen, NULL));
    cases[i].fn(path, &k);
    RtCache c;
    rt_cache_init(&c, true, dir);
    char *p;
    size_t n;
    RtCacheResult r = rt_cache_get(&c, &k, &p, &n);
    CHECK(r == RT_CACHE_MISS && p == NULL);
    if (r != RT_CACHE_MISS) fprintf(stderr, "  case: %s\n", cases[i].name);
    CHECK(rt_cache_stats(&c).corrupt == 1);
    CHECK_CONTAINS(sb_cstr(&c.last_problem), cases[i].why);
    CHECK(access(path, F_OK) != 0); /* removed */
    /* recompiled and stored again: the next reader hits */
    CHECK(rt_cache_put(&c, &k, payload, plen));
    rt_cache_free(&c);
    rt_cache_init(&c, false, dir);
    CHECK(rt_cache_get(&c, &k, &p, &n) == RT_CACHE_HIT_DISK && n == plen && memcmp(p, payload, plen) == 0);
    mem_free(p);
    rt_cache_free(&c);
  }
  /* a directory where the entry should be: refused, not trusted */
  RtCacheKey k = key_for("corrupt", "directory");
  char path[256];
  entry_path(&k, path, sizeof path);
  mkdir(path, 0755);
  char *p;
  size_t n;
  StrBuf why;
  sb_init(&why);
  CHECK(rt_cache_read_entry(dir, &k, &p, &n, &why) == RT_ENTRY_CORRUPT);
  CHECK_CONTAINS(sb_cstr(&why), "not a regular file");
  sb_free(&why);
  rmdir(path);
  CHECK(count_temp_files() == 0);
}

/* Several processes write different payloads under one key while reading it: every read sees a whole
 * entry (all bytes from one writer) or none. */
enum { WRITERS = 6, ROUNDS = 150, BIG = 48 * 1024 };

static int writer_process(int id) {
  RtCacheKey k = key_for("race", "");
  char *payload = malloc(BIG);
  memset(payload, 'A' + id, BIG);
  int bad = 0;
  for (int r = 0; r < ROUNDS; r++) {
    if (!rt_cache_write_entry(dir, &k, payload, BIG, NULL)) bad++;
    char *got;
    size_t n;
    RtEntryStatus s = rt_cache_read_entry(dir, &k, &got, &n, NULL);
    if (s == RT_ENTRY_CORRUPT) bad++;
    if (s == RT_ENTRY_OK) {
      if (n != BIG) bad++;
      else
        for (size_t i = 1; i < n; i++)
          if (got[i] != got[0]) {
            bad++;
            break;
          }
      mem_free(got);
    }
  }
  free(payload);
  return bad > 100 ? 100 : bad;
}

static void test_concurrent_processes(void) {
  pid_t pids[WRITERS];
  for (int i = 0; i < WRITERS; i++) {
    pids[i] = fork();
    if (pids[i] == 0) _exit(writer_process(i));
  }
  for (int i = 0; i < WRITERS; i++) {
    int st = 0;
    waitpid(pids[i], &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  RtCacheKey k = key_for("race", "");
  char *got;
  size_t n;
  CHECK(rt_cache_read_entry(dir, &k, &got, &n, NULL) == RT_ENTRY_OK && n == BIG);
  mem_free(got);
  CHECK(count_temp_files() == 0);
}

static RtCache shared_cache;

static void *thread_main(void *arg) {
  long id = (long)arg;
  long bad = 0;
  for (int r = 0; r < 200; r++) {
    char sig[32];
    snprintf(sig, sizeof sig, "sig%d", r % 17);
    RtCacheKey k = key_for("threads", sig);
    char *p;
    size_t n;
    if (rt_cache_get(&shared_cache, &k, &p, &n) != RT_CACHE_MISS) {
      if (n != strlen(sig) || memcmp(p, sig, n) != 0) bad++;
      mem_free(p);
    } else {
      rt_cache_put(&shared_cache, &k, sig, strlen(sig));
    }
  }
  (void)id;
  return (void *)bad;
}

static void test_concurrent_threads(void) {
  char tdir[128];
  snprintf(tdir, sizeof tdir, "%s/threads", dir);
  rt_cache_init(&shared_cache, true, tdir);
  pthread_t t[8];
  for (long i = 0; i < 8; i++) pthread_create(&t[i], NULL, thread_main, (void *)i);
  for (int i = 0; i < 8; i++) {
    void *bad;
    pthread_join(t[i], &bad);
    CHECK(bad == NULL);
  }
  RtCacheStats s = rt_cache_stats(&shared_cache);
  CHECK(s.corrupt == 0 && s.write_failures == 0);
  CHECK(s.memory_hits + s.disk_hits + s.misses == 8 * 200);
  rt_cache_free(&shared_cache);
}

static RtEntryStatus read_status(const char *d, const RtCacheKey *k, StrBuf *why) {
  char *p = NULL;
  size_t n;
  sb_reset(why);
  RtEntryStatus s = rt_cache_read_entry(d, k, &p, &n, why);
  mem_free(p);
  return s;
}

static mode_t mode_of(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

static void test_trust(void) {
  StrBuf why;
  sb_init(&why);
  RtCacheKey k = key_for("trust", "");
  /* created private: every new directory 0700, entries 0600 (whatever the umask) */
  mode_t old_mask = umask(0);
  char base[128], nested[160];
  snprintf(base, sizeof base, "%s/trust", dir);
  snprintf(nested, sizeof nested, "%s/x/y", base);
  CHECK(rt_cache_write_entry(nested, &k, "ptx", 3, &why));
  umask(old_mask);
  char x[160];
  snprintf(x, sizeof x, "%s/x", base);
  CHECK(mode_of(base) == 0700 && mode_of(x) == 0700 && mode_of(nested) == 0700);
  StrBuf p;
  sb_init(&p);
  rt_cache_entry_path(nested, &k, &p);
  CHECK(mode_of(sb_cstr(&p)) == 0600);
  sb_free(&p);
  CHECK(read_status(nested, &k, &why) == RT_ENTRY_OK);

  /* a directory others (or the group) can write: refused by rt_cache_init (the disk cache is off), and a
   * valid entry planted in it is never read */
  CHECK(chmod(nested, 0777) == 0);
  RtCache c;
  rt_cache_init(&c, true, nested);
  CHECK(c.dir == NULL);
  CHECK_CONTAINS(sb_cstr(&c.refused), "is writable by group and others (mode 777): another user could plant entries in it; "
                                      "compiling without the disk cache");
  char *got;
  size_t n;
  CHECK(rt_cache_get(&c, &k, &got, &n) == RT_CACHE_MISS);
  rt_cache_free(&c);
  CHECK(read_status(nested, &k, &why) == RT_ENTRY_MISSING);
  CHECK_CONTAINS(sb_cstr(&why), "writable by group and others");
  CHECK(!rt_cache_write_entry(nested, &k, "ptx", 3, &why));
  CHECK(chmod(nested, 0720) == 0);
  rt_cache_init(&c, true, nested);
  CHECK(c.dir == NULL);
  CHECK_CONTAINS(sb_cstr(&c.refused), "is writable by group (mode 720)");
  rt_cache_free(&c);
  /* a directory of another owner */
  CHECK(chmod(nested, 0700) == 0);
  if (geteuid() == 0) {
    CHECK(chown(nested, 12345, 12345) == 0);
    rt_cache_init(&c, true, nested);
    CHECK(c.dir == NULL);
    CHECK_CONTAINS(sb_cstr(&c.refused), "is owned by uid 12345, not by you (uid 0)");
    rt_cache_free(&c);
    CHECK(chown(nested, 0, 0) == 0);
  }
  /* a directory that turns unsafe after rt_cache_init: still nothing is read from it */
  rt_cache_init(&c, true, nested);
  CHECK(c.dir != NULL && c.refused.len == 0);
  CHECK(chmod(nested, 0777) == 0);
  CHECK(rt_cache_get(&c, &k, &got, &n) == RT_CACHE_MISS);
  CHECK_CONTAINS(sb_cstr(&c.last_problem), "writable by group and others");
  CHECK(chmod(nested, 0700) == 0);
  rt_cache_free(&c);

  /* entries: a symlink to a valid entry (not followed: refused and the link removed, its target intact) */
  RtCacheKey other = key_for("trust", "other");
  char target[256];
  StrBuf t;
  sb_init(&t);
  rt_cache_entry_path(nested, &k, &t);
  snprintf(target, sizeof target, "%s", sb_cstr(&t));
  sb_free(&t);
  StrBuf linkpath;
  sb_init(&linkpath);
  rt_cache_entry_path(nested, &other, &linkpath);
  CHECK(symlink(target, sb_cstr(&linkpath)) == 0);
  CHECK(read_status(nested, &other, &why) == RT_ENTRY_CORRUPT);
  CHECK_CONTAINS(sb_cstr(&why), "removed: a symbolic link");
  CHECK(mode_of(sb_cstr(&linkpath)) == (mode_t)-1 && mode_of(target) == 0600);
  /* a FIFO: refused at once (no reader would block on it), removed; a writer replaces one without blocking */
  CHECK(mkfifo(sb_cstr(&linkpath), 0600) == 0);
  alarm(20); /* a hang fails the test */
  CHECK(read_status(nested, &other, &why) == RT_ENTRY_CORRUPT);
  CHECK_CONTAINS(sb_cstr(&why), "removed: not a regular file");
  CHECK(mkfifo(sb_cstr(&linkpath), 0600) == 0);
  CHECK(rt_cache_write_entry(nested, &other, "new", 3, &why));
  alarm(0);
  CHECK(read_status(nested, &other, &why) == RT_ENTRY_OK);
  /* an entry others can write, and one of another owner */
  CHECK(chmod(sb_cstr(&linkpath), 0666) == 0);
  CHECK(read_status(nested, &other, &why) == RT_ENTRY_CORRUPT);
  CHECK_CONTAINS(sb_cstr(&why), "writable by group or others");
  if (geteuid() == 0) {
    CHECK(rt_cache_write_entry(nested, &other, "new", 3, &why));
    CHECK(chown(sb_cstr(&linkpath), 12345, 12345) == 0);
    CHECK(read_status(nested, &other, &why) == RT_ENTRY_CORRUPT);
    CHECK_CONTAINS(sb_cstr(&why), "owned by uid 12345, not by you");
  }
  /* an invalid entry that cannot be removed (a directory): "kept", not "removed" */
  CHECK(mkdir(sb_cstr(&linkpath), 0700) == 0);
  CHECK(read_status(nested, &other, &why) == RT_ENTRY_CORRUPT);
  CHECK_CONTAINS(sb_cstr(&why), "kept (it cannot be removed: Is a directory): not a regular file");
  CHECK(rmdir(sb_cstr(&linkpath)) == 0);
  sb_free(&linkpath);
  CHECK(count_temp_files() == 0);
  sb_free(&why);
}

static void test_default_dir(void) {
  StrBuf b;
  sb_init(&b);
  CHECK(rt_cache_default_dir("/x/kc", "/x/xdg", "/x/home", &b) && strcmp(sb_cstr(&b), "/x/kc") == 0);
  sb_reset(&b);
  CHECK(rt_cache_default_dir("", "/x/xdg", "/x/home", &b) && strcmp(sb_cstr(&b), "/x/xdg/kfront") == 0);
  sb_reset(&b);
  CHECK(rt_cache_default_dir(NULL, NULL, "/x/home", &b) && strcmp(sb_cstr(&b), "/x/home/.cache/kfront") == 0);
  sb_reset(&b);
  CHECK(!rt_cache_default_dir(NULL, "", NULL, &b));
  sb_free(&b);
  char *dir = NULL;
  CHECK(kf_default_cache_dir(NULL, "/x/xdg", NULL, &dir) == KF_OK && dir && strcmp(dir, "/x/xdg/kfront") == 0);
  kf_free(dir);
  CHECK(kf_default_cache_dir(NULL, NULL, NULL, &dir) == KF_ERROR_NOT_FOUND && !dir);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/kfront-cache-test-XXXXXX");
  if (!mkdtemp(dir)) return 1;
  test_keys();
  test_memory_and_disk();
  test_corruption();
  test_concurrent_processes();
  test_concurrent_threads();
  test_trust();
  test_default_dir();
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return test_result("runtime_cache");
}
