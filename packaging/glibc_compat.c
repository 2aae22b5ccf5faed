/* glibc_compat.c — lets kfront's binaries, built on Debian 12 (glibc 2.36, gcc 12, Debian's LLVM 14 archives),
 * run on glibc 2.28 and later: the manylinux_2_28 wheel (docs/python.md, "The wheel"). Linked into libkfront.so,
 * the Python extension and the tools when KFRONT_PORTABLE_LINUX is on (packaging/portable.cmake, which also links
 * libstdc++ and libgcc statically and adds DT_NEEDED entries for libpthread.so.0 and libdl.so.2, where glibc 2.28
 * keeps the pthread and dl functions). Every symbol below is wrapped (packaging/glibc_compat.h); the executables
 * add packaging/glibc_compat_exe.c. test/install/check_portable.sh checks the result: no symbol version above
 * GLIBC_2.28, no GLIBCXX or CXXABI; test/unit_cxx/glibc_compat_test.cc runs each wrapper.
 */
#define _GNU_SOURCE
#include "glibc_compat.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/stat.h>

/* libm: new versions in 2.29 (exp, exp2, log, log2, pow: without the SVID error wrappers), 2.32 (exp10f) and
 * 2.35 (hypot, hypotf); the old versions compute the same values and set errno as POSIX says */
KF_PIN(exp, "GLIBC_2.2.5");
KF_PIN(exp2, "GLIBC_2.2.5");
KF_PIN(log, "GLIBC_2.2.5");
KF_PIN(log2, "GLIBC_2.2.5");
KF_PIN(pow, "GLIBC_2.2.5");
KF_PIN(exp10f, "GLIBC_2.2.5");
KF_PIN(hypot, "GLIBC_2.2.5");
KF_PIN(hypotf, "GLIBC_2.2.5");

/* libpthread and libdl, merged into libc in 2.34 (pthread_sigmask and pthread_getattr_np in 2.32) with new
 * versions; the old ones are glibc 2.28's, in libpthread.so.0 and libdl.so.2 there */
KF_PIN(pthread_create, "GLIBC_2.2.5");
KF_PIN(pthread_join, "GLIBC_2.2.5");
KF_PIN(pthread_detach, "GLIBC_2.2.5");
KF_PIN(pthread_once, "GLIBC_2.2.5");
KF_PIN(pthread_key_create, "GLIBC_2.2.5");
KF_PIN(__pthread_key_create, "GLIBC_2.2.5");
KF_PIN(pthread_key_delete, "GLIBC_2.2.5");
KF_PIN(pthread_getspecific, "GLIBC_2.2.5");
KF_PIN(pthread_setspecific, "GLIBC_2.2.5");
KF_PIN(pthread_mutex_trylock, "GLIBC_2.2.5");
KF_PIN(pthread_mutexattr_init, "GLIBC_2.2.5");
KF_PIN(pthread_mutexattr_destroy, "GLIBC_2.2.5");
KF_PIN(pthread_mutexattr_settype, "GLIBC_2.2.5");
KF_PIN(pthread_rwlock_rdlock, "GLIBC_2.2.5");
KF_PIN(pthread_rwlock_wrlock, "GLIBC_2.2.5");
KF_PIN(pthread_rwlock_unlock, "GLIBC_2.2.5");
KF_PIN(pthread_attr_getstack, "GLIBC_2.2.5");
KF_PIN(pthread_attr_setstacksize, "GLIBC_2.2.5");
KF_PIN(pthread_getattr_np, "GLIBC_2.2.5");
KF_PIN(pthread_sigmask, "GLIBC_2.2.5");
KF_PIN(pthread_getname_np, "GLIBC_2.12");
KF_PIN(pthread_setname_np, "GLIBC_2.12");
KF_PIN(dlopen, "GLIBC_2.2.5");
KF_PIN(dlclose, "GLIBC_2.2.5");
KF_PIN(dlsym, "GLIBC_2.2.5");
KF_PIN(dlerror, "GLIBC_2.2.5");

/* libstdc++ (gcc 12) reads __libc_single_threaded (glibc 2.32) to skip atomic reference counts in a process
 * with one thread. Defined here, so the reference stays inside the binary: 0 is "not known to be single
 * threaded", the answer that is always safe (atomics always). */
__attribute__((visibility("hidden"))) char __libc_single_threaded = 0;

/* stat, fstat, lstat: functions since 2.33; before, <sys/stat.h> turned them into __xstat(_STAT_VER, ...),
 * which every glibc still has (_STAT_VER is 1 on x86-64) */
extern int __xstat(int ver, const char *path, struct stat *buf);
extern int __fxstat(int ver, int fd, struct stat *buf);
extern int __lxstat(int ver, const char *path, struct stat *buf);
#define KF_STAT_VER 1

KF_SHIM(stat)
int __wrap_stat(const char *path, struct stat *buf) { return __xstat(KF_STAT_VER, path, buf); }
KF_SHIM(fstat)
int __wrap_fstat(int fd, struct stat *buf) { return __fxstat(KF_STAT_VER, fd, buf); }
KF_SHIM(lstat)
int __wrap_lstat(const char *path, struct stat *buf) { return __lxstat(KF_STAT_VER, path, buf); }

/* mallinfo2 (2.33; LLVM's sys::Process::GetMallocUsage): mallinfo's int fields, widened (a count past 2 GiB
 * wraps as mallinfo's does) */
struct kf_mallinfo2 {
  size_t arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, fordblks, keepcost;
};
KF_SHIM(mallinfo2)
struct kf_mallinfo2 __wrap_mallinfo2(void) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  struct mallinfo m = mallinfo();
#pragma GCC diagnostic pop
  struct kf_mallinfo2 r = {(unsigned)m.arena,   (unsigned)m.ordblks,  (unsigned)m.smblks, (unsigned)m.hblks,
                           (unsigned)m.hblkhd,  (unsigned)m.usmblks,  (unsigned)m.fsmblks,
                           (unsigned)m.uordblks, (unsigned)m.fordblks, (unsigned)m.keepcost};
  return r;
}

/* arc4random (2.36; libstdc++'s std::random_device): the kernel's getrandom (glibc 2.25), which blocks only
 * until the pool is first seeded; without it (a kernel before 3.17) nothing random can be had: abort, as glibc's
 * arc4random does */
KF_SHIM(arc4random)
uint32_t __wrap_arc4random(void) {
  uint32_t v;
  int saved = errno;
  for (;;) {
    ssize_t n = getrandom(&v, sizeof v, 0);
    if (n == (ssize_t)sizeof v) break;
    if (n < 0 && errno != EINTR) abort();
  }
  errno = saved;
  return v;
}

/* _dl_find_object (2.35): the static libgcc's unwinder asks it for the .eh_frame_hdr of the object holding a
 * program counter. Answered as libgcc did before: walking the loaded objects with dl_iterate_phdr (2.2.5). The
 * layout is glibc's struct dl_find_object on x86-64 (no dlfo_eh_dbase, no dlfo_eh_count). */
struct kf_dl_find_object {
  unsigned long long dlfo_flags;
  void *dlfo_map_start;
  void *dlfo_map_end;
  struct link_map *dlfo_link_map;
  void *dlfo_eh_frame;
  unsigned long long dlfo_reserved[7];
};
struct kf_find_query {
  uintptr_t pc;
  struct kf_dl_find_object *result;
};

static int kf_find_object_in(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct kf_find_query *q = data;
  uintptr_t lo = UINTPTR_MAX, hi = 0, eh_frame = 0;
  int holds_pc = 0;
  for (size_t i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD) {
      if (q->pc >= start && q->pc - start < ph->p_memsz) holds_pc = 1;
      if (start < lo) lo = start;
      if (start + ph->p_memsz > hi) hi = start + ph->p_memsz;
    } else if (ph->p_type == PT_GNU_EH_FRAME) {
      eh_frame = start;
    }
  }
  if (!holds_pc) return 0;
  q->result->dlfo_flags = 0;
  q->result->dlfo_map_start = (void *)lo;
  q->result->dlfo_map_end = (void *)hi;
  q->result->dlfo_link_map = NULL;  /* libgcc does not read it */
  q->result->dlfo_eh_frame = (void *)eh_frame;
  return 1;
}

KF_SHIM(_dl_find_object)
int __wrap__dl_find_object(void *pc, struct kf_dl_find_object *result) {
  struct kf_find_query q = {(uintptr_t)pc, result};
  return dl_iterate_phdr(kf_find_object_in, &q) == 1 ? 0 : -1;
}
