/* utils_file.c — utils/file.c and kf_write_file: whole files written atomically (a new file gets the umask's
 * mode, a replaced one keeps its mode, a symlink at the target is replaced and not followed), nothing left
 * behind and an old file intact when a write fails (/dev/full, a file-size limit, a missing directory), a
 * device written in place; temporaries are created exclusively, so a symlink planted where kfront's .npy
 * writer used to put its temporary (<path>.tmp.<pid>) is never written through; reading a directory says so. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kfront/kfront.h"
#include "runtime_test.h"
#include "utils/file.h"
#include "utils/mem.h"

static char dir[64];

static const char *in_dir(const char *name) {
  static char path[8][512];
  static unsigned k;
  char *p = path[k++ % 8];
  snprintf(p, 512, "%s/%s", dir, name);
  return p;
}

static char *slurp(const char *path) {
  size_t len;
  char err[128];
  return file_read_all(path, &len, err, sizeof err);
}

/* The names in dir, sorted, joined by spaces. */
static void listing(char *out, size_t n) {
  struct dirent **names;
  int k = scandir(dir, &names, NULL, alphasort);
  out[0] = 0;
  for (int i = 0; i < k; i++) {
    if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, "..")) {
      if (out[0]) strncat(out, " ", n - strlen(out) - 1);
      strncat(out, names[i]->d_name, n - strlen(out) - 1);
    }
    free(names[i]);
  }
  free(names);
}

static void clear_dir(void) {
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlink(in_dir(e->d_name));
  if (d) closedir(d);
}

static void test_write_and_modes(void) {
  char err[256] = "";
  umask(022);
  CHECK(file_write_atomic(in_dir("a.txt"), "hello\n", 6, FILE_MODE_DEFAULT, err, sizeof err));
  char *s = slurp(in_dir("a.txt"));
  CHECK(s && strcmp(s, "hello\n") == 0);
  mem_free(s);
  struct stat st;
  CHECK(stat(in_dir("a.txt"), &st) == 0 && (st.st_mode & 0777) == 0644);
  /* replacing keeps the file's mode */
  CHECK(chmod(in_dir("a.txt"), 0640) == 0);
  CHECK(file_write_atomic(in_dir("a.txt"), "again\n", 6, FILE_MODE_DEFAULT, err, sizeof err));
  CHECK(stat(in_dir("a.txt"), &st) == 0 && (st.st_mode & 0777) == 0640);
  /* an explicit mode is applied as it is */
  CHECK(file_write_atomic(in_dir("private"), "x", 1, 0600, err, sizeof err));
  CHECK(stat(in_dir("private"), &st) == 0 && (st.st_mode & 0777) == 0600);
  /* an empty file */
  CHECK(file_write_atomic(in_dir("empty"), "", 0, FILE_MODE_DEFAULT, err, sizeof err));
  CHECK(stat(in_dir("empty"), &st) == 0 && st.st_size == 0);
  char names[512];
  listing(names, sizeof names);
  CHECK(strcmp(names, "a.txt empty private") == 0);
  clear_dir();
}

static void test_symlinks(void) {
  char err[256] = "";
  /* a symlink at the target is replaced by the new file; what it pointed at is untouched */
  CHECK(file_write_atomic(in_dir("victim"), "precious", 8, FILE_MODE_DEFAULT, err, sizeof err));
  CHECK(symlink(in_dir("victim"), in_dir("out.npy")) == 0);
  float f[3] = {1, 2, 3};
  int64_t n = 3;
  kf_array a;
  kf_array_init(&a, f, KF_MEMORY_HOST, KF_FLOAT32, 1, &n, 'C');
  kf_context *ctx = kf_context_create();
  CHECK(kf_npy_save(ctx, in_dir("out.npy"), &a) == KF_OK);
  struct stat st;
  CHECK(lstat(in_dir("out.npy"), &st) == 0 && S_ISREG(st.st_mode));
  char *s = slurp(in_dir("victim"));
  CHECK(s && strcmp(s, "precious") == 0);
  mem_free(s);
  /* a symlink planted where the .npy writer once put its temporary file (<path>.tmp.<pid>, opened without
   * O_EXCL) is not written through: temporaries are created exclusively under random names */
  char planted[300];
  snprintf(planted, sizeof planted, "%s.tmp.%ld", in_dir("b.npy"), (long)getpid());
  CHECK(symlink(in_dir("victim"), planted) == 0);
  CHECK(kf_npy_save(ctx, in_dir("b.npy"), &a) == KF_OK);
  s = slurp(in_dir("victim"));
  CHECK(s && strcmp(s, "precious") == 0);
  mem_free(s);
  CHECK(lstat(in_dir("b.npy"), &st) == 0 && S_ISREG(st.st_mode));
  char names[512], want[512];
  listing(names, sizeof names);
  snprintf(want, sizeof want, "b.npy b.npy.tmp.%ld out.npy victim", (long)getpid());
  CHECK(strcmp(names, want) == 0);
  kf_context_destroy(ctx);
  clear_dir();
}

static void test_write_errors(void) {
  char err[256] = "";
  /* a full device: written in place, the error reported */
  CHECK(!file_write_atomic("/dev/full", "data", 4, FILE_MODE_DEFAULT, err, sizeof err));
  CHECK_CONTAINS(err, "No space left on device");
  CHECK(file_write_atomic("/dev/null", "data", 4, FILE_MODE_DEFAULT, err, sizeof err));
  /* a directory, a missing directory */
  CHECK(!file_write_atomic(dir, "data", 4, FILE_MODE_DEFAULT, err, sizeof err));
  CHECK_CONTAINS(err, "it is a directory");
  CHECK(!file_write_atomic(in_dir("no/such/file"), "data", 4, FILE_MODE_DEFAULT, err, sizeof err));
  CHECK_CONTAINS(err, "No such file or directory");
  /* through the public API: located at the file */
  kf_context *ctx = kf_context_create();
  CHECK(kf_write_file(ctx, "/dev/full", "data", 4) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "/dev/full: error: cannot write: No space left on device");
  kf_context_destroy(ctx);
  /* reading a directory */
  size_t len;
  CHECK(file_read_all(dir, &len, err, sizeof err) == NULL);
  CHECK_CONTAINS(err, "it is a directory");
  char names[512];
  listing(names, sizeof names);
  CHECK(strcmp(names, "") == 0);
}

/* Past the file-size limit (ulimit -f) the write fails with EFBIG (SIGXFSZ ignored, as the tools do): the old
 * file stays as it was and no temporary is left. In a child, whose limit does not bind this process. */
static void test_file_size_limit(void) {
  char err[256] = "";
  CHECK(file_write_atomic(in_dir("big.out"), "old content", 11, FILE_MODE_DEFAULT, err, sizeof err));
  pid_t pid = fork();
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {4096, 4096};
    setrlimit(RLIMIT_FSIZE, &rl);
    static char big[65536];
    memset(big, 'x', sizeof big);
    kf_context *ctx = kf_context_create();
    bool failed = kf_write_file(ctx, in_dir("big.out"), big, sizeof big) != KF_OK;
    bool said = strstr(kf_context_diagnostics(ctx), "big.out: error: cannot write: File too large") != NULL;
    _exit(failed && said ? 0 : 1);
  }
  int status = 0;
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  char *s = slurp(in_dir("big.out"));
  CHECK(s && strcmp(s, "old content") == 0);
  mem_free(s);
  char names[512];
  listing(names, sizeof names);
  CHECK(strcmp(names, "big.out") == 0);
  clear_dir();
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/kfront-file-XXXXXX");
  CHECK(mkdtemp(dir) != NULL);
  test_write_and_modes();
  test_symlinks();
  test_write_errors();
  test_file_size_limit();
  rmdir(dir);
  return test_result("utils_file");
}
