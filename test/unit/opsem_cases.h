/* opsem_cases.h — the cases of the op-semantics differential tests, shared by test/unit/sim_opsem.c (the
 * simulator against ir/op_semantics.h) and test/gpu/backend_gpu.c (the GPU against the same definitions):
 * every op of ir_op_sem with an evaluation, in every type signature of scalar types (the operands' type and the
 * result's: every result type for one operand, the operand's own and i1 for more; every exponent type for
 * math.powi and math.ldexp; every predicate of the comparisons; every rounding mode (attr round) of arith.truncf,
 * sitofp and uitofp; every result of every libdevice function of math.libdevice the simulator runs, but jn / yn,
 * whose integer order the random operands make huge), as a kernel @k that loads its operands from arrays in%u, applies
 * the op and stores to out; operand values (edge values and random bits) and their element form in memory.
 * Signatures the verifier refuses are the callers' to skip. */
#ifndef KF_TEST_OPSEM_CASES_H
#define KF_TEST_OPSEM_CASES_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/libdevice.h"
#include "ir/op_semantics.h"
#include "utils/strbuf.h"

static uint64_t opsem_rng = 0x243f6a8885a308d3ull;
static inline uint64_t opsem_rnd(void) {
  opsem_rng ^= opsem_rng << 13;
  opsem_rng ^= opsem_rng >> 7;
  opsem_rng ^= opsem_rng << 17;
  return opsem_rng;
}

static const char *const OPSEM_TYPES[] = {"i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64"};
enum { OPSEM_NTYPES = sizeof OPSEM_TYPES / sizeof *OPSEM_TYPES };

/* The SemTy of a scalar type name of OPSEM_TYPES. */
static inline SemTy opsem_ty(const char *name) {
  SemTy t = {0, 0, false, false, false};
  t.bf = name[0] == 'b';
  t.is_float = name[0] == 'f' || t.bf;
  t.bits = (uint8_t)atoi(name + 1 + t.bf);
  if (!t.is_float) {
    t.sh = (uint8_t)(64 - t.bits);
    t.sgn = name[0] == 'i' && t.bits > 1;
  }
  return t;
}

/* An operand value of type t, normalised: edge values, small ones, else random bits. */
static inline SemVal opsem_pick(SemTy t) {
  static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.5, 1e300, -1e-300, 4.9e-324, 65504.0,
                                   INFINITY, -INFINITY, NAN, 2147483647.5, -2147483648.9, 9.3e18, 1.8e19, -0.9};
  uint64_t r = opsem_rnd();
  if (!t.is_float) {
    uint64_t v;
    switch (r % 6) {
    case 0: v = opsem_rnd() % 5 - 2; break;                        /* -2 .. 2 */
    case 1: v = (1ull << (t.bits - 1)) - (opsem_rnd() % 2); break; /* the signed minimum, maximum */
    case 2: v = opsem_rnd() % 70; break;                           /* shift amounts, exponents */
    default: v = opsem_rnd(); break;
    }
    return sem_from_bits(v, t);
  }
  double d;
  if (r % 3 == 0) {
    d = special[opsem_rnd() % (sizeof special / sizeof *special)];
  } else if (r % 3 == 1) {
    d = (double)(int64_t)(opsem_rnd() % 20001 - 10000) / 64.0;
  } else {
    uint64_t b = opsem_rnd();
    if (t.bits == 16) {
      d = sem_narrow_value(t, (uint16_t)b);
    } else if (t.bits == 32) {
      uint32_t b32 = (uint32_t)b;
      float f;
      memcpy(&f, &b32, 4);
      d = f;
    } else {
      memcpy(&d, &b, 8);
    }
  }
  return sem_from_double(d, t);
}

static inline size_t opsem_esize(SemTy t) { return t.bits == 1 ? 1 : t.bits / 8; }

/* v stored as element i of an array of type t (little-endian), and read back. */
static inline void opsem_put(void *base, unsigned i, SemTy t, SemVal v) {
  char *p = (char *)base + (size_t)i * opsem_esize(t);
  if (t.is_float && t.bits == 16) {
    uint16_t h = sem_narrow_bits(t, v.f);
    memcpy(p, &h, 2);
  } else if (t.is_float && t.bits == 32) {
    memcpy(p, &v.f, 4);
  } else {
    memcpy(p, &v.u, opsem_esize(t));
  }
}

static inline SemVal opsem_get(const void *base, unsigned i, SemTy t) {
  const char *p = (const char *)base + (size_t)i * opsem_esize(t);
  SemVal v;
  v.u = 0;
  if (t.is_float && t.bits == 16) {
    uint16_t h;
    memcpy(&h, p, 2);
    v.f = sem_narrow_value(t, h);
  } else if (t.is_float && t.bits == 32) {
    memcpy(&v.f, p, 4);
  } else if (t.is_float) {
    memcpy(&v.d, p, 8);
  } else {
    uint64_t raw = 0;
    memcpy(&raw, p, opsem_esize(t));
    v = sem_from_bits(raw, t);
  }
  return v;
}

/* v as an element of type t would hold it (an f16 rounded, an integer normalised). */
static inline SemVal opsem_stored(SemVal v, SemTy t) {
  uint64_t buf = 0;
  opsem_put(&buf, 0, t, v);
  return opsem_get(&buf, 0, t);
}

/* The distance in units in the last place between two floats of type t (0 when both are NaN, or equal; 1
 * from the largest finite value to infinity; UINT64_MAX when one is NaN and the other not); the integers'
 * bits compared exactly (0 or UINT64_MAX). */
static inline uint64_t opsem_ulps(SemVal a, SemVal b, SemTy t) {
  if (!t.is_float) return a.u == b.u ? 0 : UINT64_MAX;
  double x = sem_to_double(a, t), y = sem_to_double(b, t);
  if (isnan(x) || isnan(y)) return isnan(x) && isnan(y) ? 0 : UINT64_MAX;
  if (x == y) return signbit(x) == signbit(y) || x != 0 ? 0 : 1;
  /* ordered integer images of the bit patterns */
  int64_t ix, iy;
  if (t.bits == 64) {
    memcpy(&ix, &x, 8);
    memcpy(&iy, &y, 8);
  } else if (t.bits == 32) {
    float fx = (float)x, fy = (float)y;
    int32_t a32, b32;
    memcpy(&a32, &fx, 4);
    memcpy(&b32, &fy, 4);
    ix = a32;
    iy = b32;
  } else {
    ix = (int16_t)sem_narrow_bits(t, x);
    iy = (int16_t)sem_narrow_bits(t, y);
  }
  int64_t top = t.bits == 64 ? INT64_MIN : -((int64_t)1 << (t.bits - 1));
  if (ix < 0) ix = top - ix;
  if (iy < 0) iy = top - iy;
  return ix > iy ? (uint64_t)ix - (uint64_t)iy : (uint64_t)iy - (uint64_t)ix;
}

/* Whether op k converts to a float by a rounding mode (its attr round; a case's pred names the mode). */
static inline bool opsem_rounds(OpKind k) { return k == OP_TRUNCF || k == OP_SITOFP || k == OP_UITOFP; }

/* The kir text of kernel @name: out[i] = op(in0[i], ...) for i = the global thread index (no guard: launch
 * exactly as many threads as elements). */
static inline void opsem_kernel_text(StrBuf *t, const char *name, OpKind k, unsigned n, const char *const *ops, const char *rt,
                                     const char *pred) {
  sb_puts(t, "func.func() ({\n^bb0(");
  for (unsigned i = 0; i < n; i++) sb_printf(t, "%%in%u: array<%s, 1, C>, ", i, ops[i]);
  sb_printf(t, "%%out: array<%s, 1, C>):\n", rt);
  sb_puts(t, "  %tx = gpu.thread_id() {dim = 0} : () -> (i32)\n"
             "  %bx = gpu.block_id() {dim = 0} : () -> (i32)\n"
             "  %bw = gpu.block_dim() {dim = 0} : () -> (i32)\n"
             "  %g0 = arith.muli(%bx, %bw) : (i32, i32) -> (i32)\n"
             "  %g1 = arith.addi(%g0, %tx) : (i32, i32) -> (i32)\n"
             "  %i = arith.extsi(%g1) : (i32) -> (i64)\n");
  for (unsigned i = 0; i < n; i++)
    sb_printf(t, "  %%x%u = mem.load(%%in%u, %%i) : (array<%s, 1, C>, i64) -> (%s)\n", i, i, ops[i], ops[i]);
  sb_printf(t, "  %%r = %s(", ir_op_info[k].name);
  for (unsigned i = 0; i < n; i++) sb_printf(t, "%s%%x%u", i ? ", " : "", i);
  sb_puts(t, ")");
  if (pred && k == OP_LIBDEVICE) { /* pred: "name/part" */
    const char *slash = strchr(pred, '/');
    sb_printf(t, " {name = \"__nv_%.*s\", part = %s}", (int)(slash - pred), pred, slash + 1);
  } else if (pred) {
    sb_printf(t, " {%s = \"%s\"}", opsem_rounds(k) ? "round" : "pred", pred);
  }
  sb_puts(t, " : (");
  for (unsigned i = 0; i < n; i++) sb_printf(t, "%s%s", i ? ", " : "", ops[i]);
  sb_printf(t, ") -> (%s)\n", rt);
  sb_printf(t, "  mem.store(%%r, %%out, %%i) : (%s, array<%s, 1, C>, i64) -> ()\n", rt, rt);
  sb_printf(t, "  func.return() : () -> ()\n}) {sym_name = @%s, function_type = (", name);
  for (unsigned i = 0; i < n; i++) sb_printf(t, "array<%s, 1, C>, ", ops[i]);
  sb_printf(t, "array<%s, 1, C>) -> (), kernel} : () -> ()\n", rt);
}

/* The signature of a case, as ir/op_semantics.h evaluates it. */
static inline SemSig opsem_sig(OpKind k, unsigned n, const char *const *ops, const char *rt, const char *pred) {
  SemSig s;
  memset(&s, 0, sizeof s);
  s.kind = (uint16_t)k;
  s.n = (uint8_t)n;
  s.r = opsem_ty(rt);
  for (unsigned i = 0; i < n; i++) s.a[i] = opsem_ty(ops[i]);
  if (k == OP_LIBDEVICE) {
    const char *slash = strchr(pred, '/');
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(slash - pred), pred);
    s.fn = (uint16_t)(1 + ir_libdevice_index(ir_libdevice_lookup(name)));
    s.pred = (int8_t)atoi(slash + 1);
  } else if (opsem_rounds(k)) s.pred = (int8_t)(pred ? ir_round_mode_parse(pred) : IR_ROUND_RN);
  else s.pred = (int8_t)(pred ? ir_enum_parse(ir_cmp_pred_enum(k), pred) : -1);
  return s;
}

typedef void (*OpsemCaseFn)(OpKind k, unsigned n, const char *const *ops, const char *rt, const char *pred, void *user);

/* The libdevice cases: each function the simulator runs, each of its results ("name/part" as the case's pred). */
static inline void opsem_for_each_libdevice_case(OpsemCaseFn fn, void *user) {
  for (unsigned k = 0; k < ir_libdevice_count(); k++) {
    const LibdeviceFn *f = ir_libdevice_at((int)k);
    if (!ir_libdevice_eval(f) || strcmp(f->name, "jn") == 0 || strcmp(f->name, "jnf") == 0 ||
        strcmp(f->name, "yn") == 0 || strcmp(f->name, "ynf") == 0)
      continue;
    LdShape sh;
    ir_libdevice_shape(f, &sh);
    const char *ops[LD_MAX_ARGS];
    for (unsigned i = 0; i < sh.nargs; i++) ops[i] = ir_libdevice_type_name(sh.args[i]);
    for (unsigned p = 0; p < sh.nresults; p++) {
      static char pred[80]; /* the callbacks copy what they keep */
      snprintf(pred, sizeof pred, "%s/%u", f->name, p);
      fn(OP_LIBDEVICE, sh.nargs, ops, ir_libdevice_type_name(sh.results[p]), pred, user);
    }
  }
}

/* Calls fn for every case (see the top of the file). */
static inline void opsem_for_each_case(OpsemCaseFn fn, void *user) {
  opsem_for_each_libdevice_case(fn, user);
  for (int k = 0; k < OP__COUNT; k++) {
    if (!ir_op_sem[k].eval) continue;
    int n = ir_op_info[k].noperands;
    if (n < 1 || n > 3) continue;
    /* the values of its enumerated attribute, from `first` on (a rounding's rn is the case without the attr) */
    int preds = k == OP_CMPI ? IR_ENUM_CMPI : k == OP_CMPF ? IR_ENUM_CMPF : opsem_rounds((OpKind)k) ? IR_ENUM_ROUND : -1;
    unsigned first = opsem_rounds((OpKind)k) ? IR_ROUND_RZ : 0;
    for (unsigned a = 0; a < OPSEM_NTYPES; a++) {
      const char *ops[3] = {OPSEM_TYPES[a], OPSEM_TYPES[a], OPSEM_TYPES[a]};
      if (k == OP_SELECT) ops[0] = "i1";
      for (unsigned r = 0; r < OPSEM_NTYPES; r++) {
        if (k == OP_POWI || k == OP_LDEXP) {
          ops[1] = OPSEM_TYPES[r];
          fn((OpKind)k, 2, ops, OPSEM_TYPES[a], NULL, user);
          continue;
        }
        if (n > 1 && r != a && strcmp(OPSEM_TYPES[r], "i1") != 0) continue;
        if (opsem_rounds((OpKind)k)) fn((OpKind)k, (unsigned)n, ops, OPSEM_TYPES[r], NULL, user);
        if (preds >= 0)
          for (unsigned p = first; p < ir_enum_count((IrAttrEnum)preds); p++)
            fn((OpKind)k, (unsigned)n, ops, OPSEM_TYPES[r], ir_enum_name((IrAttrEnum)preds, (int)p), user);
        else
          fn((OpKind)k, (unsigned)n, ops, OPSEM_TYPES[r], NULL, user);
      }
    }
  }
}

#endif
