// glibc_compat_test.cc — ctest's packaging/glibc-compat: every wrapper of packaging/glibc_compat.c and
// glibc_compat_exe.c (linked in by kfront_portable, as into the tools) against glibc's own function, reached as
// __real_SYM (-Wl,--wrap): same results, same errno. C++, so that the static libstdc++ and libgcc are exercised:
// a static constructor (__libc_start_main's `init`), an exception thrown and caught (the unwinder asks
// _dl_find_object), std::thread. Prints "glibc compat: ok".
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

extern "C" {
double __real_exp(double);
double __real_exp2(double);
double __real_log(double);
double __real_log2(double);
double __real_pow(double, double);
float __real_exp10f(float);
double __real_hypot(double, double);
float __real_hypotf(float, float);
int __real_stat(const char *, struct stat *);
int __real_fstat(int, struct stat *);
int __real_lstat(const char *, struct stat *);
struct mallinfo2 __real_mallinfo2(void);
int __real__dl_find_object(void *, struct dl_find_object *);
int __wrap__dl_find_object(void *, struct dl_find_object *);
}

static int failures = 0;
#define CHECK(cond)                                                    \
  do {                                                                 \
    if (!(cond)) {                                                     \
      fprintf(stderr, "glibc compat: FAIL: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                      \
    }                                                                  \
  } while (0)

// a static constructor: run only if the wrapped __libc_start_main runs the executable's .init_array
static int constructed = 0;
static struct Constructed {
  Constructed() { constructed = 42; }
} constructed_instance;
static std::string global_string("constructed");  // libstdc++'s own constructor path

static void math_same(void) {
  volatile double x = 0.75, y = 3.5, big = 1e6, zero = 0.0, neg = -1.0;
  volatile float xf = 1.25f, yf = 2.5f;
  CHECK(exp(x) == __real_exp(x));
  CHECK(exp2(y) == __real_exp2(y));
  CHECK(log(y) == __real_log(y));
  CHECK(log2(y) == __real_log2(y));
  CHECK(pow(x, y) == __real_pow(x, y));
  CHECK(exp10f(xf) == __real_exp10f(xf));
  CHECK(hypot(x, y) == __real_hypot(x, y));
  CHECK(hypotf(xf, yf) == __real_hypotf(xf, yf));
  // the error cases: the same value and errno as the new versions
  struct { double got, want; int got_errno, want_errno; } cases[4];
  double (*f[4])(double) = {exp, log, log, log2};
  double (*g[4])(double) = {__real_exp, __real_log, __real_log, __real_log2};
  double args[4] = {big, zero, neg, zero};
  for (int i = 0; i < 4; i++) {
    errno = 0; cases[i].got = f[i](args[i]); cases[i].got_errno = errno;
    errno = 0; cases[i].want = g[i](args[i]); cases[i].want_errno = errno;
    CHECK((isnan(cases[i].got) && isnan(cases[i].want)) || cases[i].got == cases[i].want);
    CHECK(cases[i].got_errno == cases[i].want_errno);
  }
  errno = 0; double p = pow(big, big); int pe = errno;
  errno = 0; double q = __real_pow(big, big); int qe = errno;
  CHECK(p == q && pe == qe && pe == ERANGE);
}

static void stat_same(void) {
  struct stat a, b;
  CHECK(stat("/proc/self/exe", &a) == 0 && __real_stat("/proc/self/exe", &b) == 0);
  CHECK(a.st_ino == b.st_ino && a.st_dev == b.st_dev && a.st_size == b.st_size && S_ISREG(a.st_mode));
  CHECK(lstat("/proc/self/exe", &a) == 0 && __real_lstat("/proc/self/exe", &b) == 0);
  CHECK(S_ISLNK(a.st_mode) && a.st_ino == b.st_ino);
  CHECK(fstat(1, &a) == 0 && __real_fstat(1, &b) == 0 && a.st_ino == b.st_ino && a.st_mode == b.st_mode);
  errno = 0;
  CHECK(stat("/nonexistent/kfront", &a) == -1 && errno == ENOENT);
}

static void mallinfo_same(void) {
  void *volatile p = malloc(1 << 16);
  struct mallinfo2 a = mallinfo2(), b = __real_mallinfo2();
  CHECK(a.arena == b.arena && a.uordblks == b.uordblks && a.hblkhd == b.hblkhd && a.arena > 0);
  free(p);
}

static void random_differs(void) {
  uint32_t v[4];
  for (int i = 0; i < 4; i++) v[i] = arc4random();
  CHECK(!(v[0] == v[1] && v[1] == v[2] && v[2] == v[3]));
}

static void unwinds(void) {
  // the unwinder's question, asked of the wrapper and of glibc: the same .eh_frame_hdr
  struct dl_find_object a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  CHECK(__wrap__dl_find_object((void *)&unwinds, &a) == 0 && __real__dl_find_object((void *)&unwinds, &b) == 0);
  CHECK(a.dlfo_eh_frame != NULL && a.dlfo_eh_frame == b.dlfo_eh_frame && a.dlfo_map_start == b.dlfo_map_start);
  CHECK((char *)a.dlfo_map_start <= (char *)&unwinds && (char *)&unwinds < (char *)a.dlfo_map_end);
  void *libc_fn = dlsym(RTLD_DEFAULT, "malloc");
  CHECK(libc_fn && __wrap__dl_find_object(libc_fn, &a) == 0 && __real__dl_find_object(libc_fn, &b) == 0 &&
        a.dlfo_eh_frame == b.dlfo_eh_frame);
  CHECK(__wrap__dl_find_object(NULL, &a) == -1);
  int caught = 0;
  try {
    throw std::runtime_error("thrown");
  } catch (const std::exception &e) {
    caught = strcmp(e.what(), "thrown") == 0;
  }
  CHECK(caught);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_runs = 0;
static void once_fn(void) { once_runs++; }

static void *thread_fn(void *arg) {
  pthread_attr_t attr;
  void *stack;
  size_t size;
  int ok = pthread_getattr_np(pthread_self(), &attr) == 0 && pthread_attr_getstack(&attr, &stack, &size) == 0 &&
           (char *)stack <= (char *)&attr && (char *)&attr < (char *)stack + size;
  pthread_attr_destroy(&attr);
  pthread_once(&once, once_fn);
  return ok ? arg : NULL;
}

static void threads_work(void) {
  pthread_attr_t attr;
  CHECK(pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, 1 << 20) == 0);
  pthread_t t;
  void *result = NULL;
  CHECK(pthread_create(&t, &attr, thread_fn, (void *)&once) == 0 && pthread_join(t, &result) == 0 &&
        result == &once);
  CHECK(pthread_create(&t, NULL, thread_fn, NULL) == 0 && pthread_detach(t) == 0);  // (ends on its own)
  pthread_attr_destroy(&attr);
  pthread_once(&once, once_fn);
  CHECK(once_runs == 1);

  pthread_key_t key;
  CHECK(pthread_key_create(&key, NULL) == 0 && pthread_setspecific(key, &key) == 0 &&
        pthread_getspecific(key) == &key && pthread_key_delete(key) == 0);
  pthread_mutexattr_t ma;
  pthread_mutex_t m;
  CHECK(pthread_mutexattr_init(&ma) == 0 && pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE) == 0 &&
        pthread_mutex_init(&m, &ma) == 0 && pthread_mutexattr_destroy(&ma) == 0);
  CHECK(pthread_mutex_trylock(&m) == 0 && pthread_mutex_trylock(&m) == 0);  // recursive
  pthread_mutex_unlock(&m);
  pthread_mutex_unlock(&m);
  pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
  CHECK(pthread_rwlock_rdlock(&rw) == 0 && pthread_rwlock_unlock(&rw) == 0 && pthread_rwlock_wrlock(&rw) == 0 &&
        pthread_rwlock_unlock(&rw) == 0);
  char name[16] = {0};
  CHECK(pthread_setname_np(pthread_self(), "kf-compat") == 0 &&
        pthread_getname_np(pthread_self(), name, sizeof name) == 0 && strcmp(name, "kf-compat") == 0);
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  CHECK(pthread_sigmask(SIG_BLOCK, &set, &old) == 0 && pthread_sigmask(SIG_SETMASK, &old, NULL) == 0);

  // libstdc++'s threads and shared_ptr's atomic counts (__libc_single_threaded is 0 here)
  std::atomic<int> sum(0);
  auto shared = std::make_shared<int>(5);
  std::thread a([&] { for (int i = 0; i < 1000; i++) { auto copy = shared; sum += *copy; } });
  std::thread b([&] { for (int i = 0; i < 1000; i++) { auto copy = shared; sum += *copy; } });
  a.join();
  b.join();
  CHECK(sum == 10000 && shared.use_count() == 1);
}

static void dl_works(void) {
  void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
  CHECK(h != NULL);
  if (!h) return;
  double (*cosine)(double) = (double (*)(double))dlsym(h, "cos");
  CHECK(cosine && cosine(0.0) == 1.0);
  dlerror();
  CHECK(dlsym(h, "kfront_no_such_symbol") == NULL && dlerror() != NULL);
  CHECK(dlclose(h) == 0);
  CHECK(dlopen("libkfront-no-such-library.so", RTLD_NOW) == NULL && strstr(dlerror(), "libkfront-no-such-library"));
}

int main(void) {
  CHECK(constructed == 42 && global_string == "constructed");
  math_same();
  stat_same();
  mallinfo_same();
  random_differs();
  unwinds();
  threads_work();
  dl_works();
  if (failures) return 1;
  printf("glibc compat: ok\n");
  return 0;
}
