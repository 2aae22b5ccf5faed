/* file.h — reading a whole file, and writing one so that a failure leaves nothing half-written.
 *
 * file_write_atomic writes to a temporary file that it creates exclusively (O_EXCL, a random name, mode 0600:
 * nothing planted at a predictable name, a symlink least of all, can be written through) in the target's
 * directory, checks every write, fsyncs and closes it, then renames it over the target. A reader sees the old
 * file or the whole new one; on any failure (a full disk, a file-size limit, no permission) the temporary file
 * is removed, the target is untouched, and err says why. A symlink at the target is replaced, not followed.
 * A target that exists and is a device or a FIFO (/dev/stdout, /dev/null) is written in place, every write
 * and the close checked — for FILE_MODE_DEFAULT (a user's output); a file of a given mode (a private one: a
 * cache entry) replaces whatever is there.
 *
 * Errors are written to a caller buffer (`err`, `errlen`), never printed. */
#ifndef KF_UTILS_FILE_H
#define KF_UTILS_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* mode of a new file: FILE_MODE_DEFAULT is what open(path, O_CREAT, 0666) gives (the umask applied), or the
 * mode of the regular file being replaced; any other value is applied as it is (0600: private). */
enum { FILE_MODE_DEFAULT = -1 };

bool file_write_atomic(const char *path, const void *data, size_t len, int mode, char *err, size_t errlen);

/* The whole of a regular file (or a FIFO, a device) in a malloc'ed buffer with a NUL after its *len bytes,
 * which the caller frees with mem_free; NULL with err set ("is a directory", strerror's text) when it cannot be read. */
char *file_read_all(const char *path, size_t *len, char *err, size_t errlen);

#endif
