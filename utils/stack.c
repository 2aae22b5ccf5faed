/* stack.c — the calling thread's stack bounds, read once per thread with pthread_getattr_np, and how much
 * of it is left below the current frame (see stack.h). */
#define _GNU_SOURCE
#include "stack.h"

#include <pthread.h>
#include <stdint.h>

static _Thread_local uintptr_t stack_lo, stack_hi; /* [lo, hi): this thread's stack; hi == 0 until read */
static _Thread_local bool stack_known;

static void read_bounds(void) {
  pthread_attr_t a;
  void *addr = NULL;
  size_t size = 0;
  stack_hi = 1; /* read once, whatever the outcome */
  if (pthread_getattr_np(pthread_self(), &a) != 0) return;
  if (pthread_attr_getstack(&a, &addr, &size) == 0 && addr && size) {
    stack_lo = (uintptr_t)addr;
    stack_hi = stack_lo + size;
    stack_known = true;
  }
  pthread_attr_destroy(&a);
}

__attribute__((noinline)) size_t stack_left(void) {
  if (!stack_hi) read_bounds();
  uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
  if (!stack_known || sp < stack_lo || sp >= stack_hi) return SIZE_MAX;
  return (size_t)(sp - stack_lo);
}

bool stack_exhausted(void) { return stack_left() < STACK_RESERVE; }
