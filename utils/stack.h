/* stack.h — how close the calling thread is to the end of its stack.
 *
 * kfront's parsers and tree walks recurse over nested input (parentheses, operands, blocks, regions). Each
 * recursive step over nesting the input controls asks stack_exhausted() and, when less than STACK_RESERVE
 * bytes of the thread's stack are left, stops with a located "nested too deeply" error instead of
 * overflowing: in a main thread (8 MB) as in an embedder's thread with a small stack (256 KB), whatever the
 * build's frame sizes (a sanitizer build's are several times larger). The reserve covers what runs between
 * two checks and the error report itself.
 *
 * The bounds of the thread's stack are read once per thread (pthread_getattr_np). On a stack they do not
 * describe (a coroutine's, switched to by the embedder), the check answers false: no protection, no false
 * alarm. */
#ifndef KF_UTILS_STACK_H
#define KF_UTILS_STACK_H

#include <stdbool.h>
#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define KF_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KF_ASAN 1
#endif
#endif

#ifdef KF_ASAN
enum { STACK_RESERVE = 160 * 1024 };
#else
enum { STACK_RESERVE = 64 * 1024 };
#endif

/* True when less than STACK_RESERVE bytes are left below the caller's frame. */
bool stack_exhausted(void);
/* Bytes left below the caller's frame on this thread's stack, or SIZE_MAX when unknown. */
size_t stack_left(void);

#endif
