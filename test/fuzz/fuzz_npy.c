/* fuzz_npy.c — libFuzzer harness: the .npy reader (utils/npy.c) on any bytes.
 *
 * An image is either refused with a message or read; one that is read must write back (npy_write_mem) as an
 * image that reads as the same array (type, rank, shape, order, bytes; a structured dtype's record and itemsize). A crash, a sanitizer report, a leak,
 * a refusal without a message or a broken round trip is a finding. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utils/mem.h"
#include "utils/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  NpyArray a;
  char err[256] = "";
  if (!npy_read_mem(data, size, &a, err, sizeof err)) {
    if (!err[0] || a.data) __builtin_trap();
    return 0;
  }
  StrBuf b;
  sb_init(&b);
  npy_write_mem(&a, &b);
  NpyArray r;
  if (!npy_read_mem(b.data, b.len, &r, err, sizeof err)) __builtin_trap();
  if (r.type != a.type || r.ndim != a.ndim || r.fortran_order != a.fortran_order ||
      r.nbytes != a.nbytes || memcmp(r.shape, a.shape, sizeof(int64_t) * a.ndim) != 0 ||
      (a.nbytes && memcmp(r.data, a.data, a.nbytes) != 0) || (!a.record) != (!r.record) ||
      (a.record && (strcmp(a.record, r.record) != 0 || a.itemsize != r.itemsize)))
    __builtin_trap();
  npy_free_record(&r);
  npy_free_record(&a);
  mem_free(r.data);
  mem_free(a.data);
  sb_free(&b);
  return 0;
}
