/* api_file.c — kf_write_file: a whole file written atomically (utils/file.c), for the tools' outputs and any
 * embedder's; the error goes to the context's diagnostics, located at the file. */
#include "api/api_internal.h"
#include "utils/file.h"

kf_status kf_write_file(kf_context *ctx, const char *path, const void *data, size_t len) {
  char err[512];
  if (!path || (!data && len)) {
    diag_error(&ctx->diag, srcloc(NULL, 0, 0), "kf_write_file: no path or no data");
    return KF_ERROR_INVALID_INPUT;
  }
  if (file_write_atomic(path, data ? data : "", len, FILE_MODE_DEFAULT, err, sizeof err)) return KF_OK;
  diag_error(&ctx->diag, srcloc(path, 0, 0), "%s", err);
  return KF_ERROR_INVALID_INPUT;
}
