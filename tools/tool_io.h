/* tool_io.h — what the command-line tools share beyond the public API: reading a whole input file. */
#ifndef KFRONT_TOOL_IO_H
#define KFRONT_TOOL_IO_H

#include <stddef.h>

/* The whole of `path` ("-": standard input) in a malloc'd buffer with a NUL after its *len bytes (the caller
 * frees it), or NULL with errno set when it cannot be opened or read. */
char *tool_read_file(const char *path, size_t *len);

#endif
