/* tinfo_stub.c — libtinfo.a of the portable link (packaging/portable.cmake): the four terminfo calls LLVM's
 * Support library makes (sys::Process::FileDescriptorHasColors asks whether a terminal has colours), answered
 * "no terminfo database". Debian's own libtinfo.a is not position-independent, and libtinfo.so.6 is not a library
 * a manylinux wheel may need; kfront prints no colours through LLVM.
 */
#include <stddef.h>

struct term;
int setupterm(const char *term, int fd, int *errret);
struct term *set_curterm(struct term *t);
int del_curterm(struct term *t);
int tigetnum(const char *name);

int setupterm(const char *term, int fd, int *errret) {
  if (errret) *errret = -1;  /* the terminfo database was not found */
  return -1;                 /* ERR */
}
struct term *set_curterm(struct term *t) { return NULL; }
int del_curterm(struct term *t) { return -1; }
int tigetnum(const char *name) { return -2; }  /* not a numeric capability */
