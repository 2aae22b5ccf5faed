/* glibc_compat.h — the two markers of packaging/glibc_compat*.c, each a symbol the portable link
 * (packaging/portable.cmake) wraps with `-Wl,--wrap=SYM`: every undefined reference to SYM in the link (kfront's
 * objects, LLVM's archives, the static libstdc++ and libgcc) goes to __wrap_SYM instead, defined here.
 *
 *   KF_PIN(SYM, "GLIBC_x.y"): __wrap_SYM is a tail jump to SYM@GLIBC_x.y, the old version of a glibc function
 *     whose default version is newer than 2.28 on the build machine (x86-64: a `jmp` keeps every argument
 *     register and the caller's return address, which dlopen and dlsym look at).
 *   KF_SHIM(SYM): __wrap_SYM is a C function of the file, for what glibc 2.28 lacks under any version.
 *
 * CMake reads the markers from the file (one at the start of a line each), so the list is written once.
 */
#ifndef KF_PACKAGING_GLIBC_COMPAT_H
#define KF_PACKAGING_GLIBC_COMPAT_H

#include <limits.h> /* __GLIBC__ */

#if !defined(__x86_64__) || !defined(__GLIBC__)
#error "packaging/glibc_compat*.c are for glibc on x86-64 (KFRONT_PORTABLE_LINUX)"
#endif

#define KF_PIN(sym, ver)                                                                                   \
  __asm__(".symver kf_pinned_" #sym ", " #sym "@" ver "\n"                                                 \
          "\t.pushsection .text.__wrap_" #sym ",\"ax\",@progbits\n"                                        \
          "\t.globl __wrap_" #sym "\n"                                                                     \
          "\t.hidden __wrap_" #sym "\n"                                                                    \
          "\t.type __wrap_" #sym ", @function\n"                                                           \
          "__wrap_" #sym ":\n"                                                                             \
          "\tjmp kf_pinned_" #sym "@PLT\n"                                                                 \
          "\t.size __wrap_" #sym ", . - __wrap_" #sym "\n"                                                 \
          "\t.popsection\n")

#define KF_SHIM(sym) /* __wrap_##sym is defined below the marker */

#endif
