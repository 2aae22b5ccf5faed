/* glibc_compat_exe.c — the executables' part of packaging/glibc_compat.c: __libc_start_main, which gcc's start
 * file (Scrt1.o of glibc 2.34 and later) calls, has a new version in 2.34. The new start file passes no `init`
 * function: glibc 2.34 and later run the executable's constructors themselves, glibc 2.28 leaves them to `init`
 * (the old start file's __libc_csu_init). So the wrapper passes one that does what both do: _init, then the
 * .init_array (.preinit_array is the dynamic loader's, on both), and calls the old version, which every glibc
 * has and which on 2.34 and later calls a given `init` instead of its own. Without it, LLVM's static constructors
 * (its command-line options) would not run on glibc 2.28.
 */
#define _GNU_SOURCE
#include "glibc_compat.h"

#include <stddef.h>

typedef int kf_main_fn(int, char **, char **);
typedef void kf_init_fn(int, char **, char **);

extern int kf_libc_start_main_2_2_5(kf_main_fn *main, int argc, char **argv, kf_init_fn *init, void (*fini)(void),
                                    void (*rtld_fini)(void), void *stack_end);
__asm__(".symver kf_libc_start_main_2_2_5, __libc_start_main@GLIBC_2.2.5");

/* the linker's (the default script's PROVIDE_HIDDEN) and crti.o's */
extern kf_init_fn *__init_array_start[] __attribute__((visibility("hidden")));
extern kf_init_fn *__init_array_end[] __attribute__((visibility("hidden")));
extern void _init(void) __attribute__((visibility("hidden")));

static void kf_run_constructors(int argc, char **argv, char **envp) {
  _init();
  size_t n = (size_t)(__init_array_end - __init_array_start);
  for (size_t i = 0; i < n; i++) __init_array_start[i](argc, argv, envp);
}

KF_SHIM(__libc_start_main)
int __wrap___libc_start_main(kf_main_fn *main, int argc, char **argv, kf_init_fn *init, void (*fini)(void),
                             void (*rtld_fini)(void), void *stack_end) {
  return kf_libc_start_main_2_2_5(main, argc, argv, init ? init : kf_run_constructors, fini, rtld_fini, stack_end);
}
