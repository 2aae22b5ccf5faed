/* runtime_npy.c — utils/npy.c: round trips of every dtype and rank, headers of each format version,
 * and malformed files (bad magic, truncation, big-endian, object dtypes, bad structured ones, bad headers), structured dtypes read as records. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime_test.h"
#include "utils/npy.h"
#include "utils/mem.h"

/* Builds a .npy image by hand: version major.0 and the given header text (padded, newline added). */
static void make_npy(StrBuf *out, unsigned major, const char *header, const void *data, size_t n) {
  unsigned char pre[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)major, 0};
  size_t prefix = major == 1 ? 10 : 12;
  StrBuf h;
  sb_init(&h);
  sb_puts(&h, header);
  while ((prefix + h.len + 1) % 64) sb_putc(&h, ' ');
  sb_putc(&h, '\n');
  for (size_t i = 0; i < prefix - 8; i++) pre[8 + i] = (unsigned char)(h.len >> (8 * i));
  sb_putn(out, (const char *)pre, prefix);
  sb_putn(out, h.data, h.len);
  if (n) sb_putn(out, data, n);
  sb_free(&h);
}

static void expect_error(const char *header, unsigned major, const void *data, size_t n, const char *part) {
  StrBuf b;
  sb_init(&b);
  make_npy(&b, major, header, data, n);
  NpyArray a;
  char err[256] = "";
  CHECK(!npy_read_mem(b.data, b.len, &a, err, sizeof err));
  CHECK_CONTAINS(err, part);
  CHECK(a.data == NULL);
  sb_free(&b);
}

static void test_round_trip_types(void) {
  for (int t = 0; t < NPY__COUNT; t++) {
    size_t isz = npy_type_size((NpyType)t);
    CHECK(isz == 1 || isz == 2 || isz == 4 || isz == 8 || isz == 16);
    unsigned char data[6 * 16];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i * 7 + (unsigned)t);
    NpyArray a = {.type = (NpyType)t, .ndim = 2, .shape = {2, 3}, .fortran_order = t % 2, .data = data,
                  .nbytes = 6 * isz};
    StrBuf b;
    sb_init(&b);
    npy_write_mem(&a, &b);
    /* version 1.0, the data 64-byte aligned, the header ends with a newline */
    CHECK(b.len == 128 + a.nbytes || b.len == 64 + a.nbytes);
    CHECK((unsigned char)b.data[6] == 1 && b.data[b.len - a.nbytes - 1] == '\n');
    NpyArray r;
    char err[256] = "";
    CHECK(npy_read_mem(b.data, b.len, &r, err, sizeof err));
    CHECK(r.type == (NpyType)t && r.ndim == 2 && r.shape[0] == 2 && r.shape[1] == 3);
    CHECK(r.fortran_order == (t % 2 != 0));
    CHECK(r.nbytes == a.nbytes && memcmp(r.data, data, a.nbytes) == 0);
    mem_free(r.data);
    sb_free(&b);
  }
}

static void test_round_trip_ranks(void) {
  for (unsigned rank = 0; rank <= NPY_MAX_RANK; rank++) {
    NpyArray a = {.type = NPY_F64, .ndim = rank};
    for (unsigned i = 0; i < rank; i++) a.shape[i] = i % 3 == 2 ? 1 : 2;
    size_t count;
    CHECK(npy_count(rank, a.shape, &count));
    double *d = malloc(count * sizeof *d);
    for (size_t i = 0; i < count; i++) d[i] = (double)i * 0.5 - 3;
    a.data = d;
    a.nbytes = count * sizeof *d;
    StrBuf b;
    sb_init(&b);
    npy_write_mem(&a, &b);
    NpyArray r;
    char err[256] = "";
    CHECK(npy_read_mem(b.data, b.len, &r, err, sizeof err));
    CHECK(r.ndim == rank && r.nbytes == a.nbytes && memcmp(r.data, d, a.nbytes) == 0);
    for (unsigned i = 0; i < rank; i++) CHECK(r.shape[i] == a.shape[i]);
    mem_free(r.data);
    free(d);
    sb_free(&b);
  }
  /* an empty array */
  NpyArray e = {.type = NPY_I32, .ndim = 2, .shape = {0, 5}};
  StrBuf b;
  sb_init(&b);
  npy_write_mem(&e, &b);
  NpyArray r;
  char err[256];
  CHECK(npy_read_mem(b.data, b.len, &r, err, sizeof err));
  CHECK(r.ndim == 2 && r.shape[0] == 0 && r.shape[1] == 5 && r.nbytes == 0);
  mem_free(r.data);
  sb_free(&b);
}

static void test_header_variants(void) {
  int32_t v[3] = {1, -2, 3};
  const char *headers[] = {
      "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }",
      "{\"shape\": (3L,), \"fortran_order\": False, \"descr\": \"<i4\"}",
      "{'fortran_order':False,'descr':'=i4','shape':(3,)}",
      "{'descr': 'i4', 'fortran_order': False, 'shape': ( 3 , ) }",
  };
  for (unsigned major = 1; major <= 3; major++) {
    for (size_t k = 0; k < sizeof headers / sizeof *headers; k++) {
      StrBuf b;
      sb_init(&b);
      make_npy(&b, major, headers[k], v, sizeof v);
      NpyArray r;
      char err[256] = "";
      bool ok = npy_read_mem(b.data, b.len, &r, err, sizeof err);
      CHECK(ok);
      if (!ok) fprintf(stderr, "  version %u header %zu: %s\n", major, k, err);
      else CHECK(r.type == NPY_I32 && r.ndim == 1 && r.shape[0] == 3 && memcmp(r.data, v, sizeof v) == 0);
      mem_free(r.data);
      sb_free(&b);
    }
  }
  /* a scalar: shape () ; '>' is harmless for one-byte types */
  unsigned char one = 7;
  StrBuf b;
  sb_init(&b);
  make_npy(&b, 1, "{'descr': '>u1', 'fortran_order': False, 'shape': (), }", &one, 1);
  NpyArray r;
  char err[256] = "";
  CHECK(npy_read_mem(b.data, b.len, &r, err, sizeof err));
  CHECK(r.ndim == 0 && r.type == NPY_U8 && r.nbytes == 1 && *(unsigned char *)r.data == 7);
  mem_free(r.data);
  sb_free(&b);
}

/* A structured descr: Numba's spelling of the record (padding fields skipped, offsets laid out one after another,
 * nested subarrays and structures), its itemsize; the data as it stands. */
static void test_structured(void) {
  unsigned char d[2 * 42];
  for (size_t i = 0; i < sizeof d; i++) d[i] = (unsigned char)i;
  StrBuf b;
  sb_init(&b);
  make_npy(&b, 1, "{'descr': [('x', '<f4'), ('', '|V4'), ('y', '<i8'), ('v', '<i2', (3,)), ('r', [('p', '|b1'), "
                  "('', '|V7'), ('q', '<f8')]), ('m', '<f4', (1, 1))], 'fortran_order': False, 'shape': (2,), }",
           d, sizeof d);
  NpyArray r;
  char err[256] = "";
  CHECK(npy_read_mem(b.data, b.len, &r, err, sizeof err));
  CHECK(r.type == NPY_RECORD && r.itemsize == 42 && r.nbytes == 84 && r.ndim == 1 && r.shape[0] == 2);
  CHECK(r.record && strcmp(r.record, "Record(x[type=float32;offset=0],y[type=int64;offset=8],v[type=nestedarray(int16, "
                                     "(3,));offset=16],r[type=Record(p[type=bool;offset=0],q[type=float64;offset=8];16;"
                                     "False);offset=22],m[type=nestedarray(float32, (1, 1));offset=38];42;False)") == 0);
  CHECK(r.data && memcmp(r.data, d, sizeof d) == 0);
  CHECK(r.descr && strncmp(r.descr, "[('x', '<f4')", 13) == 0);
  /* written back with the same descr, it reads as the same record */
  StrBuf w;
  sb_init(&w);
  npy_write_mem(&r, &w);
  NpyArray r2;
  CHECK(npy_read_mem(w.data, w.len, &r2, err, sizeof err));
  CHECK(r2.type == NPY_RECORD && r2.record && r.record && strcmp(r2.record, r.record) == 0 && r2.nbytes == 84);
  npy_free_record(&r2);
  mem_free(r2.data);
  sb_free(&w);
  npy_free_record(&r);
  mem_free(r.data);
  sb_free(&b);
  /* complex fields (complex64, complex128, a nested array of complex64) */
  unsigned char c[40] = {0};
  sb_init(&b);
  make_npy(&b, 1, "{'descr': [('z', '<c16'), ('c', '<c8'), ('h', '<c8', (2,))], 'fortran_order': False, 'shape': (1,), }",
           c, sizeof c);
  CHECK(npy_read_mem(b.data, b.len, &r, err, sizeof err));
  CHECK(r.type == NPY_RECORD && r.itemsize == 40 && r.record &&
        strcmp(r.record, "Record(z[type=complex128;offset=0],c[type=complex64;offset=16],h[type=nestedarray(complex64, "
                         "(2,));offset=24];40;False)") == 0);
  npy_free_record(&r);
  mem_free(r.data);
  sb_free(&b);
}

static void test_malformed(void) {
  double d[4] = {0};
  expect_error("{'descr': '>f8', 'fortran_order': False, 'shape': (4,), }", 1, d, sizeof d, "big-endian");
  expect_error("{'descr': '|O', 'fortran_order': False, 'shape': (4,), }", 1, d, sizeof d, "object arrays");
  expect_error("{'descr': [('a', '<f4'), ('a b', '<f4')], 'fortran_order': False, 'shape': (4,), }", 1, d, sizeof d,
               "not an identifier");
  expect_error("{'descr': [('', '<f4')], 'fortran_order': False, 'shape': (4,), }", 1, d, sizeof d, "has no name");
  expect_error("{'descr': [('a', '<f4', ())], 'fortran_order': False, 'shape': (4,), }", 1, d, sizeof d, "subarray");
  expect_error("{'descr': [], 'fortran_order': False, 'shape': (4,), }", 1, d, sizeof d, "without fields");
  expect_error("{'descr': [('a', '<f8'), ('b', '<f8')], 'fortran_order': False, 'shape': (4,), }", 1, d, sizeof d,
               "truncated data");
  expect_error("{'descr': '<c32', 'fortran_order': False, 'shape': (4,), }", 1, d, sizeof d, "unsupported dtype '<c32'");
  expect_error("{'descr': '<U3', 'fortran_order': False, 'shape': (4,), }", 1, d, sizeof d, "unsupported dtype");
  expect_error("{'descr': '|f8', 'fortran_order': False, 'shape': (4,), }", 1, d, sizeof d, "malformed dtype");
  expect_error("{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }", 1, d, sizeof d, "truncated data");
  expect_error("{'descr': '<f8', 'shape': (4,), }", 1, d, sizeof d, "lacks 'fortran_order'");
  expect_error("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (4,), }", 1, d, sizeof d, "fortran_order");
  expect_error("{'descr': '<f8', 'fortran_order': False, 'shape': [4], }", 1, d, sizeof d, "not a tuple");
  expect_error("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), 'x': 1}", 1, d, sizeof d, "unexpected key");
  expect_error("{'descr': '<f8', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", 1, d, sizeof d, "rank above 8");
  expect_error("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }", 1, d, sizeof d, "too large");
  expect_error("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", 1, d, sizeof d, "too large");
  expect_error("['descr']", 1, d, sizeof d, "not a dict");
  expect_error("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", 4, d, sizeof d, "version 4.0");

  NpyArray r;
  char err[256] = "";
  CHECK(!npy_read_mem("hello world, not numpy", 22, &r, err, sizeof err));
  CHECK_CONTAINS(err, "bad magic");
  /* a header length running past the end of the file */
  StrBuf b;
  sb_init(&b);
  make_npy(&b, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", d, sizeof d);
  CHECK(!npy_read_mem(b.data, 40, &r, err, sizeof err));
  CHECK_CONTAINS(err, "truncated header");
  CHECK(!npy_read_mem(b.data, 8, &r, err, sizeof err));
  sb_free(&b);
}

static void test_files(void) {
  char dir[] = "/tmp/kfront-npy-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[256];
  snprintf(path, sizeof path, "%s/a.npy", dir);
  float f[6] = {1, 2, 3, 4, 5, 6};
  NpyArray a = {.type = NPY_F32, .ndim = 2, .shape = {3, 2}, .data = f, .nbytes = sizeof f};
  char err[256] = "";
  CHECK(npy_write_file(path, &a, err, sizeof err));
  NpyArray r;
  CHECK(npy_read_file(path, &r, err, sizeof err));
  CHECK(r.type == NPY_F32 && r.ndim == 2 && r.shape[0] == 3 && memcmp(r.data, f, sizeof f) == 0);
  mem_free(r.data);
  char missing[300];
  snprintf(missing, sizeof missing, "%s/missing.npy", dir);
  CHECK(!npy_read_file(missing, &r, err, sizeof err));
  CHECK_CONTAINS(err, "cannot open");
  char baddir[300];
  snprintf(baddir, sizeof baddir, "%s/no/such/dir/x.npy", dir);
  CHECK(!npy_write_file(baddir, &a, err, sizeof err));
  CHECK_CONTAINS(err, "cannot write");
  unlink(path);
  rmdir(dir);
}

int main(void) {
  test_structured();
  test_round_trip_types();
  test_round_trip_ranks();
  test_header_variants();
  test_malformed();
  test_files();
  return test_result("runtime_npy");
}
