/* runtime_records.c — records (NumPy structured dtypes) below the Python module: the kir record type (interning,
 * its text form round-tripping, malformed ones refused, sizes and alignments), Numba's spelling read and printed
 * back canonically, record dtypes through the public API (kf_dtype_record: one dtype per layout, its size, name and
 * alignment, bad spellings with the reason), and launches on the simulator of arrays of records and single records
 * (0-d arrays) through kf_function_launch: the signature they spell, the fingerprint telling layouts and a record
 * from an array of records apart, copies in and back, the argument checks. */
#include <stdlib.h>
#include <string.h>

#include "frontend/compile.h"
#include "ir/ir.h"
#include "kfront/kfront.h"
#include "runtime/rt.h"
#include "runtime/runtime.h"
#include "runtime_test.h"

static const char *REC = "Record(x[type=float32;offset=0],y[type=int64;offset=8],v[type=nestedarray(int16, (3,));offset=16],"
                         "r[type=Record(p[type=bool;offset=0],q[type=float64;offset=8];16;True);offset=24];40;True)";

static void test_types(void) {
  IrContext *ctx = ir_context_new();
  const char *why = NULL;
  Type *t = fe_record_parse(ctx, REC, strlen(REC), NULL, &why);
  CHECK(t && t->kind == TY_RECORD && !why);
  if (!t) {
    ir_context_free(ctx);
    return;
  }
  CHECK(t->n == 4 && t->size == 40 && t->align == 8 && t->aligned);
  CHECK(ty_size(t) == 40 && ty_align(t) == 8);
  CHECK(ty_record_field(t, "v", 1) == 2 && ty_record_field(t, "z", 1) == -1);
  CHECK(t->fields[2].ndims == 1 && t->fields[2].dims[0] == 3 && ty_field_count(&t->fields[2]) == 3);
  CHECK(t->elems[3]->kind == TY_RECORD && t->elems[3]->align == 8);
  /* interned: the same spelling is the same type; Numba's spelling prints back identically */
  CHECK(fe_record_parse(ctx, REC, strlen(REC), NULL, &why) == t);
  StrBuf b;
  sb_init(&b);
  fe_record_spell(t, &b);
  CHECK(strcmp(sb_cstr(&b), REC) == 0);
  /* kir's text form round-trips */
  sb_reset(&b);
  ty_print(t, &b);
  CHECK(strcmp(sb_cstr(&b), "record<x: f32 @0, y: i64 @8, v: i16[3] @16, r: record<p: i1 @0, q: f64 @8; size 16, "
                            "align 8, aligned> @24; size 40, align 8, aligned>") == 0);
  size_t pos = 0;
  CHECK(ty_parse(ctx, sb_cstr(&b), b.len, &pos) == t && pos == b.len);
  Type *arr = ty_array(ctx, t, 2, LAYOUT_C);
  sb_reset(&b);
  ty_print(arr, &b);
  pos = 0;
  CHECK(ty_parse(ctx, sb_cstr(&b), b.len, &pos) == arr);
  /* packed records: alignment 1, and another layout is another type */
  const char *packed = "Record(x[type=float32;offset=0],y[type=int64;offset=4];12;False)";
  Type *p = fe_record_parse(ctx, packed, strlen(packed), NULL, &why);
  CHECK(p && p != t && p->align == 1 && !p->aligned && p->size == 12);
  /* complex fields: aligned as their parts (complex128: 8), spelt back the same */
  const char *cplx = "Record(a[type=int8;offset=0],z[type=complex128;offset=8],c[type=complex64;offset=24];32;True)";
  Type *c = fe_record_parse(ctx, cplx, strlen(cplx), NULL, &why);
  CHECK(c && c->align == 8 && ty_is_complex(c->elems[1]) && ty_size(c->elems[1]) == 16 && ty_align(c->elems[1]) == 8);
  if (c) {
    StrBuf cb;
    sb_init(&cb);
    fe_record_spell(c, &cb);
    CHECK(strcmp(sb_cstr(&cb), cplx) == 0);
    sb_free(&cb);
  }
  /* malformed: each with its reason */
  static const struct {
    const char *text, *why;
  } bad[] = {
      {"Record(x[type=float64;offset=4];8;False)", "does not fit"},
      {"Record(x[type=complex32;offset=0];8;False)", "an integer, float, complex, datetime64 or timedelta64 type"},
      {"Record(x[type=int8;offset=0],x[type=int8;offset=1];2;False)", "twice"},
      {"Record(x[type=int8;offset=0];1;Maybe)", "True"},
      {"Record(x[type=int8;offset=0;title=t t];1;False)", "titles must be identifiers"},
      {"Record(x[type=nestedarray(int8, ());offset=0];1;False)", "dimension"},
      {"Record(1x[type=int8;offset=0];1;False)", "identifiers"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    why = NULL;
    CHECK(!fe_record_parse(ctx, bad[i].text, strlen(bad[i].text), NULL, &why));
    CHECK_CONTAINS(why, bad[i].why);
  }
  /* kir text that is no record type */
  const char *badkir[] = {"record<x: f64 @4; size 8, align 8>", "record<x: f32 @0; size 4, align 3>",
                          "record<x: f32 @0, x: f32 @0; size 4, align 4>", "record<; size 4, align 4>"};
  for (size_t i = 0; i < sizeof badkir / sizeof *badkir; i++) {
    pos = 0;
    CHECK(!ty_parse(ctx, badkir[i], strlen(badkir[i]), &pos));
  }
  sb_free(&b);
  ir_context_free(ctx);
}

static void test_dtypes(void) {
  kf_context *ctx = kf_context_create();
  kf_dtype a, b, c;
  CHECK(kf_dtype_record(ctx, REC, &a) == KF_OK);
  CHECK(kf_dtype_record(ctx, REC, &b) == KF_OK && a == b); /* one dtype per layout, process-wide */
  CHECK(kf_dtype_parse(REC, &c) == KF_OK && c == a);
  CHECK((unsigned)a >= (unsigned)KF_DTYPE_RECORD_BASE && kf_dtype_is_record(a) && !kf_dtype_is_record(KF_FLOAT32));
  CHECK(kf_dtype_size(a) == 40 && kf_dtype_alignment(a) == 8 && kf_dtype_alignment(KF_INT16) == 2);
  CHECK(strcmp(kf_dtype_name(a), REC) == 0);
  /* spaces are Numba's own: a spelling with other spacing is the same layout */
  const char *spaced = "Record(x[type=float32;offset=0],y[type=int64;offset=8],v[type=nestedarray(int16,(3,));offset=16],"
                       "r[type=Record(p[type=bool;offset=0],q[type=float64;offset=8];16;True);offset=24];40;True)";
  CHECK(kf_dtype_record(ctx, spaced, &b) == KF_OK && b == a);
  CHECK(kf_dtype_record(ctx, "Record(x[type=float64;offset=4];8;False)", &b) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "does not fit in the record's size");
  kf_context_clear_diagnostics(ctx);
  CHECK(kf_dtype_record(ctx, "Record(x[type=int8;offset=0];1;False) tail", &b) == KF_ERROR_INVALID_INPUT);
  CHECK(kf_dtype_size((kf_dtype)(KF_DTYPE_RECORD_BASE + KF_MAX_RECORD_DTYPES - 1)) == 0);
  /* NumPy titles, as Numba spells them: an entry by the name and one by the title; another title, another dtype */
  const char *titled = "Record(n[type=int32;offset=0;title=t],t[type=int32;offset=0;title=t];4;False)";
  CHECK(kf_dtype_record(ctx, titled, &b) == KF_OK && strcmp(kf_dtype_name(b), titled) == 0 && kf_dtype_size(b) == 4);
  CHECK(kf_dtype_record(ctx, "Record(n[type=int32;offset=0;title=u],u[type=int32;offset=0;title=u];4;False)", &c) ==
            KF_OK && c != b);
  CHECK(kf_dtype_record(ctx, "Record(n[type=int32;offset=0;title=a b];4;False)", &c) == KF_ERROR_INVALID_INPUT);
  CHECK_CONTAINS(kf_context_diagnostics(ctx), "titles must be identifiers");
  kf_context_destroy(ctx);
}

static const char *SOURCE =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit\n"
    "def bump(a, r, out):\n"
    "    i = cuda.grid(1)\n"
    "    if i < a.shape[0]:\n"
    "        out[i] = a[i].x + a[i].v[2] + r.q\n"
    "        a[i].y += i\n"
    "        a[i].r.q = r.q * 2\n"
    "    if i == 0:\n"
    "        r.p = not r.p\n";

typedef struct {
  float x;
  int64_t y;
  int16_t v[3];
  struct {
    uint8_t p;
    double q;
  } r;
} Rec; /* the C layout of REC: 40 bytes, as NumPy's align=True lays it out */

static void test_launches(void) {
  CHECK(sizeof(Rec) == 40);
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_SIM;
  kf_runtime *rt = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
  kf_program *p = NULL;
  CHECK(kf_program_create(rt, "records.py", SOURCE, strlen(SOURCE), NULL, &p) == KF_OK);
  kf_function *f = NULL;
  CHECK(p && kf_program_get_function(p, "bump", &f) == KF_OK);
  kf_dtype rd, inner;
  CHECK(kf_dtype_record(ctx, REC, &rd) == KF_OK);
  CHECK(kf_dtype_record(ctx, "Record(p[type=bool;offset=0],q[type=float64;offset=8];16;True)", &inner) == KF_OK);
  Rec recs[4];
  memset(recs, 0, sizeof recs);
  for (int i = 0; i < 4; i++) {
    recs[i].x = (float)i;
    recs[i].y = 100 * i;
    recs[i].v[2] = (int16_t)(10 + i);
  }
  struct {
    uint8_t p;
    double q;
  } one = {1, 0.25};
  double out[4] = {0};
  int64_t n = 4;
  kf_array a, r, ob;
  kf_array_init(&a, recs, KF_MEMORY_HOST, rd, 1, &n, 'C');
  kf_array_init(&r, &one, KF_MEMORY_HOST, inner, 0, NULL, 'C'); /* one record: a 0-d array */
  kf_array_init(&ob, out, KF_MEMORY_HOST, KF_FLOAT64, 1, &n, 'C');
  kf_arg args[3] = {kf_arg_array(&a), kf_arg_array(&r), kf_arg_array(&ob)};
  unsigned g[3] = {1, 1, 1}, blk[3] = {4, 1, 1};
  if (f) {
    CHECK(kf_function_launch(f, g, blk, 0, NULL, args, 3) == KF_OK);
    for (int i = 0; i < 4; i++) {
      CHECK(out[i] == i + 10 + i + 0.25);
      CHECK(recs[i].y == 101 * i && recs[i].r.q == 0.5 && recs[i].x == (float)i);
    }
    CHECK(one.p == 0 && one.q == 0.25); /* the single record came back */
    kf_kernel *k = NULL;
    CHECK(kf_function_specialize(f, args, 3, &k) == KF_OK && k);
    if (k) {
      char want[1024];
      snprintf(want, sizeof want, "void(%s[::1], %s, float64[::1])", REC,
               "Record(p[type=bool;offset=0],q[type=float64;offset=8];16;True)");
      CHECK(strcmp(kf_kernel_signature(k), want) == 0);
      kf_param_info pi;
      CHECK(kf_kernel_param(k, 0, &pi) == KF_OK && pi.kind == KF_ARG_ARRAY && pi.dtype == rd && pi.ndim == 1);
      CHECK(kf_kernel_param(k, 1, &pi) == KF_OK && pi.kind == KF_ARG_ARRAY && pi.dtype == inner && pi.ndim == 0);
      /* an array of the inner records where the kernel takes one record: refused */
      int64_t two = 2;
      Rec dummy[2];
      kf_array wrong;
      kf_array_init(&wrong, dummy, KF_MEMORY_HOST, inner, 1, &two, 'C');
      kf_arg bad[3] = {args[0], kf_arg_array(&wrong), args[2]};
      CHECK(kf_launch(k, g, blk, 0, NULL, bad, 3) == KF_ERROR_INVALID_INPUT);
      CHECK_CONTAINS(kf_context_diagnostics(ctx), "expected a record");
      kf_context_clear_diagnostics(ctx);
    }
    /* the fingerprint tells a record from an array of one, and one layout from another */
    RtFingerprint fa, fb;
    Diag d;
    diag_init(&d);
    int64_t one_n = 1;
    kf_array r1;
    kf_array_init(&r1, &one, KF_MEMORY_HOST, inner, 1, &one_n, 'C');
    kf_arg x1 = kf_arg_array(&r), x2 = kf_arg_array(&r1);
    CHECK(rt_fingerprint(&x1, 1, &fa, &d) && rt_fingerprint(&x2, 1, &fb, &d));
    CHECK(fa.n == 2 && fb.n == 2 && memcmp(fa.words, fb.words, sizeof fa.words[0] * 2) != 0);
    kf_arg y1 = kf_arg_array(&a);
    CHECK(rt_fingerprint(&y1, 1, &fb, &d) && memcmp(fa.words, fb.words, sizeof fa.words[0] * 2) != 0);
    diag_free(&d);
  }
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
}

int main(void) {
  test_types();
  test_dtypes();
  test_launches();
  return test_result("runtime_records");
}
