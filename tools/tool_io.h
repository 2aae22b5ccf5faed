/* tool_io.h — what the command-line tools share beyond the public API: reading a whole input file
 * (tool_io.c) and the environment variables they honour (tool_env.c). */
#ifndef KFRONT_TOOL_IO_H
#define KFRONT_TOOL_IO_H

#include <stdbool.h>
#include <stddef.h>

#include "kfront/kfront.h"

/* The whole of `path` ("-": standard input) in a malloc'd buffer with a NUL after its *len bytes (the caller
 * frees it), or NULL with errno set when it cannot be opened or read. */
char *tool_read_file(const char *path, size_t *len);

/* Tells the library where the CUDA toolkit is: $CUDA_HOME, $KFRONT_LIBNVVM, $KFRONT_LIBDEVICE,
 * $KFRONT_NVVM_VERIFY (call first thing in main). */
void tool_configure_toolkit_from_env(void);
/* Whether the variable is set to something other than "" or "0". */
bool tool_env_on(const char *name);
/* Applies KFRONT_SIM, KFRONT_NO_GRID_STRIDE, KFRONT_NO_CACHE, KFRONT_CACHE_DIR (XDG_CACHE_HOME, HOME),
 * KFRONT_BACKEND and KFRONT_LIBCUDA to o. *cache_dir is the directory string o->cache_dir points at
 * (the caller frees it with kf_free after the runtime is gone), or NULL. */
void tool_runtime_options_from_env(kf_runtime_options *o, char **cache_dir);

#endif
