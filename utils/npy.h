/* npy.h — reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0).
 *
 * Supported: little-endian (or byte-order-free '|') scalar dtypes b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8,
 * C or Fortran order, rank 0..NPY_MAX_RANK. Everything else (big-endian data, object, string, complex and
 * structured dtypes, truncated files, malformed headers) is refused with a message that says why.
 * Errors are written to a caller buffer (`err`, `errlen`), never printed; out of memory also sets errno to
 * ENOMEM. */
#ifndef KF_UTILS_NPY_H
#define KF_UTILS_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

enum { NPY_MAX_RANK = 8 };

typedef enum NpyType {
  NPY_BOOL, NPY_I8, NPY_I16, NPY_I32, NPY_I64, NPY_U8, NPY_U16, NPY_U32, NPY_U64, NPY_F16, NPY_F32, NPY_F64,
  NPY_C64, NPY_C128,
  NPY__COUNT
} NpyType;

typedef struct NpyArray {
  NpyType type;
  unsigned ndim;                 /* 0 for a scalar (one element) */
  int64_t shape[NPY_MAX_RANK];
  bool fortran_order;            /* data is in Fortran (column-major) order, else C order */
  void *data;                    /* nbytes, from mem_alloc by npy_read_*: the caller frees it (mem_free) */
  size_t nbytes;
} NpyArray;

/* Bytes per element. */
size_t npy_type_size(NpyType t);
/* The .npy descr of a type ("<f4", "|b1"). Static. */
const char *npy_type_descr(NpyType t);
/* Product of the extents (1 for rank 0); false on overflow. */
bool npy_count(unsigned ndim, const int64_t *shape, size_t *count);

/* Parses a whole .npy image. On success out->data is a fresh copy the caller frees. */
bool npy_read_mem(const void *buf, size_t len, NpyArray *out, char *err, size_t errlen);
bool npy_read_file(const char *path, NpyArray *out, char *err, size_t errlen);

/* Writes a.data (a.nbytes bytes, in the order a.fortran_order says) with a version 1.0 header, or 2.0 when
 * the header does not fit in 64 KiB. The header is padded so the data starts at a multiple of 64 bytes. Out of
 * memory, out is failed (sb_failed). */
void npy_write_mem(const NpyArray *a, StrBuf *out);
/* Writes the file atomically (utils/file.h: an exclusively created temporary file in the same directory,
 * renamed over path; nothing is left behind on failure). */
bool npy_write_file(const char *path, const NpyArray *a, char *err, size_t errlen);

#endif
