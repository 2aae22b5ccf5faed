/* runtime_tuple_args.c — tuples as kernel arguments through the public API, on the simulator: the signature a
 * tuple spells (UniTuple, Tuple, nested), the fingerprint telling nestings apart, the kernel's parameters as the
 * tuples' elements flattened, host arrays inside tuples copied in and back, and the errors (too deep, items
 * missing, a tuple the kernel was not compiled for). */
#include <stdlib.h>
#include <string.h>

#include "kfront/kfront.h"
#include "runtime/rt.h"
#include "runtime/runtime.h"
#include "runtime_test.h"

static const char *SOURCE =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit\n"
    "def pairs(t, u, out):\n"
    "    a, (b, c) = t\n"
    "    x, y = u\n"
    "    out[0] = a + b * c + x * 1000\n"
    "    y[0] = a * 10\n"
    "\n"
    "@cuda.jit\n"
    "def scaled(arrs, k):\n"
    "    src, dst = arrs\n"
    "    for i in range(src.size):\n"
    "        dst[i] = src[i] * k[0] + k[1]\n";

static kf_arg array_arg(void *data, kf_dtype t, int64_t n) {
  kf_array a;
  kf_array_init(&a, data, KF_MEMORY_HOST, t, 1, &n, 'C');
  return kf_arg_array(&a);
}

static void test_signatures(void) {
  kf_arg inner[2] = {kf_arg_float(KF_FLOAT32, 2.5), kf_arg_float(KF_FLOAT32, 4)};
  kf_arg t[2] = {kf_arg_int(KF_INT64, 3), kf_arg_tuple(inner, 2)};
  float buf[4];
  kf_arg mixed[3] = {kf_arg_tuple(t, 2), kf_arg_tuple(inner, 2), array_arg(buf, KF_FLOAT32, 4)};
  StrBuf b;
  sb_init(&b);
  Diag d;
  diag_init(&d);
  CHECK(rt_args_signature(mixed, 3, &b, &d));
  CHECK(strcmp(sb_cstr(&b), "void(Tuple((int64, UniTuple(float32, 2))), UniTuple(float32, 2), float32[::1])") == 0);
  kf_arg one = kf_arg_int(KF_INT32, 1), single = kf_arg_tuple(&one, 1), empty = kf_arg_tuple(NULL, 0);
  sb_reset(&b);
  CHECK(rt_args_signature(&single, 1, &b, &d) && strcmp(sb_cstr(&b), "void(UniTuple(int32, 1))") == 0);
  sb_reset(&b);
  CHECK(rt_args_signature(&empty, 1, &b, &d) && strcmp(sb_cstr(&b), "void(Tuple(()))") == 0);
  /* the fingerprint tells ((1, 2), 3) from (1, (2, 3)), and both from three scalars */
  kf_arg s[3] = {kf_arg_int(KF_INT64, 1), kf_arg_int(KF_INT64, 2), kf_arg_int(KF_INT64, 3)};
  kf_arg left[2] = {kf_arg_tuple(s, 2), s[2]}, right[2] = {s[0], kf_arg_tuple(s + 1, 2)};
  RtFingerprint a, c, e;
  CHECK(rt_fingerprint(left, 2, &a, &d) && rt_fingerprint(right, 2, &c, &d) && rt_fingerprint(s, 3, &e, &d));
  CHECK(a.n == 4 && c.n == 4 && e.n == 3);
  CHECK(memcmp(a.words, c.words, sizeof a.words[0] * 4) != 0);
  /* a typed scalar (an enum member) inside a tuple: compared by its spelling, found by word */
  char red[] = "EnumMember(\"m.Color\", int64)", red2[] = "EnumMember(\"m.Color\", int64)",
       big[] = "EnumMember(\"m.Size\", int64)";
  kf_arg t1[2] = {kf_arg_int(KF_INT64, 1), s[1]}, t2[2] = {kf_arg_int(KF_INT64, 1), s[1]}, t3[2] = {t1[0], s[1]};
  t1[0].type = red;
  t2[0].type = red2;
  t3[0].type = big;
  kf_arg w1[2] = {s[0], kf_arg_tuple(t1, 2)}, w2[2] = {s[0], kf_arg_tuple(t2, 2)}, w3[2] = {s[0], kf_arg_tuple(t3, 2)};
  RtFingerprint f1, f2, f3;
  CHECK(rt_fingerprint(w1, 2, &f1, &d) && rt_fingerprint(w2, 2, &f2, &d) && rt_fingerprint(w3, 2, &f3, &d));
  CHECK(f1.typed && f1.n == 4 && f1.hash == f2.hash && f1.hash != f3.hash);
  RtDispatch disp = {0};
  CHECK(rt_dispatch_insert(&disp, &f1, (RtKernel *)&disp));
  red[0] = 'X'; /* the entry keeps a copy */
  CHECK(rt_dispatch_find(&disp, &f2) && !rt_dispatch_find(&disp, &f3));
  RtFingerprint forged = f2; /* another spelling under the same words and hash */
  forged.args = w3;
  CHECK(!rt_dispatch_find(&disp, &forged));
  rt_dispatch_free(&disp);
  /* flattened: the elements in order */
  kf_arg stack[4], *flat;
  unsigned n;
  CHECK(rt_flatten_args(mixed, 3, stack, 4, &flat, &n, &d) == KF_OK && n == 6 && flat != stack);
  if (n == 6) {
    CHECK(flat[0].kind == KF_ARG_SCALAR && flat[0].dtype == KF_INT64 && flat[0].value.i == 3);
    CHECK(flat[2].kind == KF_ARG_SCALAR && flat[2].value.f == 4);
    CHECK(flat[5].kind == KF_ARG_ARRAY);
  }
  if (flat != stack) kf_free(flat);
  /* invalid: items missing, nested too deep */
  kf_arg missing = kf_arg_tuple(NULL, 2);
  CHECK(!rt_args_signature(&missing, 1, &b, &d));
  CHECK_CONTAINS(diag_text(&d), "argument 1: a tuple of 2 items without them");
  kf_arg deep[KF_MAX_TUPLE_DEPTH + 2];
  deep[0] = kf_arg_int(KF_INT64, 1);
  for (int i = 1; i < KF_MAX_TUPLE_DEPTH + 2; i++) deep[i] = kf_arg_tuple(&deep[i - 1], 1);
  CHECK(!rt_fingerprint(&deep[KF_MAX_TUPLE_DEPTH + 1], 1, &a, &d));
  CHECK_CONTAINS(diag_text(&d), "argument 1: tuple nested too deeply");
  sb_free(&b);
  diag_free(&d);
}

static void test_launches(void) {
  kf_context *ctx = kf_context_create();
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  o.mode = KF_RUNTIME_SIM;
  kf_runtime *rt = NULL;
  CHECK(kf_runtime_create(ctx, &o, &rt) == KF_OK);
  kf_program *p = NULL;
  CHECK(kf_program_create(rt, "tuples.py", SOURCE, strlen(SOURCE), NULL, &p) == KF_OK);
  kf_function *f = NULL;
  CHECK(p && kf_program_get_function(p, "pairs", &f) == KF_OK);
  double out[1] = {0};
  int64_t y[1] = {0};
  kf_arg inner[2] = {kf_arg_float(KF_FLOAT64, 2.5), kf_arg_float(KF_FLOAT64, 4)};
  kf_arg t[2] = {kf_arg_int(KF_INT64, 3), kf_arg_tuple(inner, 2)};
  kf_arg u[2] = {kf_arg_int(KF_INT64, 7), array_arg(y, KF_INT64, 1)};
  kf_arg args[3] = {kf_arg_tuple(t, 2), kf_arg_tuple(u, 2), array_arg(out, KF_FLOAT64, 1)};
  unsigned g[3] = {1, 1, 1};
  if (f) {
    CHECK(kf_function_launch(f, g, g, 0, NULL, args, 3) == KF_OK);
    CHECK(out[0] == 3 + 2.5 * 4 + 7000);
    CHECK(y[0] == 30); /* the host array inside the tuple came back */
    kf_kernel *k = NULL;
    CHECK(kf_function_specialize(f, args, 3, &k) == KF_OK && k);
    if (k) {
      CHECK(strcmp(kf_kernel_signature(k),
                   "void(Tuple((int64, UniTuple(float64, 2))), Tuple((int64, int64[::1])), float64[::1])") == 0);
      CHECK(kf_kernel_param_count(k) == 6); /* the elements, flattened */
      kf_param_info pi;
      CHECK(kf_kernel_param(k, 4, &pi) == KF_OK && pi.kind == KF_ARG_ARRAY && pi.dtype == KF_INT64);
      /* a launch of that kernel with other tuple shapes is refused, naming the flattened parameters */
      kf_arg flat_args[3] = {kf_arg_int(KF_INT64, 1), kf_arg_tuple(u, 2), args[2]};
      CHECK(kf_launch(k, g, g, 0, NULL, flat_args, 3) == KF_ERROR_INVALID_INPUT);
      CHECK_CONTAINS(kf_context_diagnostics(ctx), "takes 6 arguments");
      kf_context_clear_diagnostics(ctx);
    }
  }
  kf_function *fs = NULL;
  CHECK(p && kf_program_get_function(p, "scaled", &fs) == KF_OK);
  if (fs) {
    float src[5] = {1, 2, 3, 4, 5}, dst[5] = {0};
    kf_arg arrs[2] = {array_arg(src, KF_FLOAT32, 5), array_arg(dst, KF_FLOAT32, 5)};
    kf_arg k2[2] = {kf_arg_float(KF_FLOAT32, 2), kf_arg_int(KF_INT32, -1)};
    kf_arg sargs[2] = {kf_arg_tuple(arrs, 2), kf_arg_tuple(k2, 2)};
    CHECK(kf_function_launch(fs, g, g, 0, NULL, sargs, 2) == KF_OK);
    for (int i = 0; i < 5; i++) CHECK(dst[i] == src[i] * 2 - 1);
  }
  kf_program_destroy(p);
  kf_runtime_destroy(rt);
  kf_context_destroy(ctx);
}

int main(void) {
  test_signatures();
  test_launches();
  return test_result("runtime_tuple_args");
}
