/* tool_io.h — what the command-line tools share beyond the public API: reading a whole input file, writing
 * the output and checking standard output (tool_io.c), the pass manager's debugging flags (tool_passes.c), and
 * the environment variables they honour (tool_env.c). */
#ifndef KFRONT_TOOL_IO_H
#define KFRONT_TOOL_IO_H

#include <stdbool.h>
#include <stddef.h>

#include "kfront/kfront.h"

/* The whole of `path` ("-": standard input) in a malloc'd buffer with a NUL after its *len bytes (the caller
 * frees it), or NULL with errno set when it cannot be opened or read. */
char *tool_read_file(const char *path, size_t *len);
/* What errno's value means for reading `path`: strerror, or "it is a directory" (EISDIR). */
const char *tool_read_error(int err);

/* A --link FILE option's input: its kind by the file's extension (kf_link_kind_of), its contents read (malloc'd:
 * tool_free_links), named by path. False, with `tool: error: ...` on stderr, for a name of no link kind or a file
 * that cannot be read. */
bool tool_read_link(const char *tool, const char *path, kf_link_input *out);
void tool_free_links(kf_link_input *links, unsigned n);

/* Call first in main: a write past the file-size limit (ulimit -f) fails with EFBIG, which is reported,
 * instead of killing the tool with SIGXFSZ. */
void tool_init(void);
/* Writes the output: to path atomically (kf_write_file: nothing half-written is left on failure), or to
 * standard output when path is NULL or "-". False after printing "TOOL: error: ..." to stderr. */
bool tool_write_output(const char *tool, const char *path, const void *data, size_t len);
/* Call after a printf to standard output with what it returned: a failed write (a flush of a full buffer inside
 * printf) keeps its errno for tool_exit's message. */
void tool_printed(int r);
/* Flushes and closes standard output and returns the exit status: `status`, or 1 when something written to
 * standard output was lost (a full disk, a closed pipe...), after saying so. main returns it. */
int tool_exit(const char *tool, int status);

/* The pass manager's debugging flags (tool_passes.c): when arg is one of them, applies it to po (and
 * KF_PRINT_DEBUG_INFO to *print_flags) and returns true. tool_pass_flags_help: their lines of --help. */
bool tool_pass_flag(const char *arg, kf_pass_options *po, unsigned *print_flags);
extern const char tool_pass_flags_help[];

/* Tells the library where to look for the CUDA libraries (kf_configure_cuda_paths): $CUDA_HOME (else $CUDA_PATH),
 * $CONDA_PREFIX, $KFRONT_SITE_PACKAGES, $KFRONT_SYSTEM_TOOLKIT, $KFRONT_LIBNVVM, $KFRONT_LIBDEVICE, $KFRONT_LIBNVRTC,
 * $KFRONT_LIBNVJITLINK, $KFRONT_NVVM_VERIFY (call first thing in main). */
void tool_configure_toolkit_from_env(void);
/* Whether the variable is set to something other than "" or "0". */
bool tool_env_on(const char *name);
/* Applies KFRONT_SIM, KFRONT_NO_GRID_STRIDE, KFRONT_NO_CACHE, KFRONT_CACHE_DIR (XDG_CACHE_HOME, HOME),
 * KFRONT_BACKEND, KFRONT_LIBCUDA, KFRONT_DEVICE and KFRONT_SIM_DEVICES to o (a malformed number is ignored
 * after a warning). *cache_dir is the directory string o->cache_dir points at
 * (the caller frees it with kf_free after the runtime is gone), or NULL. */
void tool_runtime_options_from_env(kf_runtime_options *o, char **cache_dir);

#endif
