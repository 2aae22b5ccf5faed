/* sema.c — what the kernel language's names and operators mean, with Numba's typing rules.
 *
 *   - the known dotted paths: numba.cuda.* (thread ids, grid, barriers, atomics, warp intrinsics, shared
 *     and local arrays), math.*, Python builtins, decorators; numba/numpy type names are recognised by
 *     sema_path_type;
 *   - the case lists Numba types operators and builtin functions with (numba/cuda/typing/builtins.py,
 *     cudamath.py, cudadecl.py), resolved by nb_resolve; float16 operators first try numba-cuda's
 *     float16 templates (an AbstractTemplate that wins when the other operand converts to float16 at
 *     most safely), as numba-cuda does;
 *   - per-function facts the lowering needs: the locals (parameters, then every assigned name: Python
 *     makes a name local to the whole function when it is assigned anywhere in it), and which statement
 *     lists return, break or continue. */
#include <math.h>
#include <string.h>

#include "frontend/fe.h"
#include "ir/libdevice.h"
#include "utils/stack.h"

/* ---- known paths -------------------------------------------------------------------------------------- */

/* builtins.def's PATHS: one list per row, then every (path, builtin) pair in row order */
#define NO_PATHS NULL
#define BUILTIN(id, name, call, params, typing, lower, op, ...) static const char *const paths_##id[] = {__VA_ARGS__, NULL};
#include "frontend/builtins.def"
#undef BUILTIN
static const char *const *const builtin_paths[BI__COUNT] = {
#define BUILTIN(id, ...) [BI_##id] = paths_##id,
#include "frontend/builtins.def"
#undef BUILTIN
};
#undef NO_PATHS

/* ---- the operator module ---------------------------------------------------------------------------------------- */

static const FeOperatorFn operator_fns[] = {
#define BINOP2(name, iname, op) {"operator." name, OPF_BINOP, op, 2}, {"operator." iname, OPF_BINOP, op, 2}
#define BINOP(name, op) BINOP2(name, "i" name, op)
    BINOP("add", BIN_ADD), BINOP("sub", BIN_SUB), BINOP("mul", BIN_MUL), BINOP("truediv", BIN_DIV),
    BINOP("floordiv", BIN_FLOORDIV), BINOP("mod", BIN_MOD), BINOP("pow", BIN_POW), BINOP("lshift", BIN_LSHIFT),
    BINOP("rshift", BIN_RSHIFT), BINOP2("and_", "iand", BIN_BITAND), BINOP2("or_", "ior", BIN_BITOR),
    BINOP("xor", BIN_BITXOR), BINOP("matmul", BIN_MATMUL),
#undef BINOP
#undef BINOP2
    {"operator.eq", OPF_CMP, CMP_EQ, 2}, {"operator.ne", OPF_CMP, CMP_NE, 2}, {"operator.lt", OPF_CMP, CMP_LT, 2},
    {"operator.le", OPF_CMP, CMP_LE, 2}, {"operator.gt", OPF_CMP, CMP_GT, 2}, {"operator.ge", OPF_CMP, CMP_GE, 2},
    {"operator.is_", OPF_CMP, CMP_IS, 2}, {"operator.is_not", OPF_CMP, CMP_ISNOT, 2},
    {"operator.contains", OPF_CONTAINS, CMP_IN, 2}, {"operator.neg", OPF_UNARY, UN_NEG, 1},
    {"operator.pos", OPF_UNARY, UN_POS, 1}, {"operator.invert", OPF_UNARY, UN_INVERT, 1},
    {"operator.inv", OPF_UNARY, UN_INVERT, 1}, {"operator.not_", OPF_UNARY, UN_NOT, 1},
    {"operator.truth", OPF_TRUTH, 0, 1}, {"operator.abs", OPF_ABS, 0, 1}, {"operator.getitem", OPF_GETITEM, 0, 2},
    {"operator.setitem", OPF_SETITEM, 0, 3}, {"operator.index", OPF_UNTYPED, 0, 1},
    {"operator.concat", OPF_UNTYPED, 0, 2}, {"operator.iconcat", OPF_UNTYPED, 0, 2},
    {"operator.delitem", OPF_UNTYPED, 0, 2}, {"operator.countOf", OPF_UNTYPED, 0, 2},
    {"operator.indexOf", OPF_UNTYPED, 0, 2}, {"operator.length_hint", OPF_UNTYPED, 0, 1},
};
enum { NOPERATOR_FNS = sizeof operator_fns / sizeof *operator_fns };
_Static_assert(FE_OPERATOR_BASE + NOPERATOR_FNS <= FE_BF16_BASE, "the operator functions' ids end before cuda.bf16's");

const FeOperatorFn *sema_operator_fn(int k) { return k >= 0 && k < NOPERATOR_FNS ? &operator_fns[k] : NULL; }

/* operator.NAME and its dunder spelling operator.__NAME__ (__and__ for and_, none for is_, is_not and truth). */
static void add_operator_paths(FeCtx *fe) {
  for (int k = 0; k < NOPERATOR_FNS; k++) {
    const char *name = operator_fns[k].name + 9;
    void *id = (void *)(intptr_t)(FE_OPERATOR_BASE + k + 1);
    strmap_put(&fe->known, operator_fns[k].name, id);
    size_t n = strlen(name);
    if (operator_fns[k].kind != OPF_TRUTH && strcmp(name, "is_") != 0 && strcmp(name, "is_not") != 0 &&
        strcmp(name, "countOf") != 0 && strcmp(name, "indexOf") != 0 && strcmp(name, "length_hint") != 0)
      strmap_put(&fe->known, arena_printf(&fe->arena, "operator.__%.*s__", (int)(name[n - 1] == '_' ? n - 1 : n), name),
                 id);
  }
  strmap_put(&fe->prefixes, "operator", (void *)1);
}

static const char *const builtin_names[BI__COUNT] = {
#define BUILTIN(id, name, ...) [BI_##id] = name,
#include "frontend/builtins.def"
#undef BUILTIN
};

const char *sema_builtin_name(int bi) {
  if (bi >= FE_LIBDEVICE_BASE) return ir_libdevice_at(bi - FE_LIBDEVICE_BASE)->name;
  if (bi >= FE_BF16_BASE) return num_lowp_name(bi - FE_BF16_BASE);
  if (bi >= FE_OPERATOR_BASE && bi < FE_OPERATOR_BASE + NOPERATOR_FNS) return operator_fns[bi - FE_OPERATOR_BASE].name;
  if (bi >= FE_VECTOR_BASE) return vec_name(bi - FE_VECTOR_BASE);
  if (bi >= FE_FP16_BASE) return num_lowp_name(bi - FE_FP16_BASE);
  if (bi >= FE_UFUNC_BASE) return num_ufunc_name(bi - FE_UFUNC_BASE);
  return bi >= 0 && bi < BI__COUNT ? builtin_names[bi] : "?";
}

const char *fe_builtin_path(unsigned i) {
  for (int bi = 0; bi < BI__COUNT; bi++)
    for (const char *const *p = builtin_paths[bi]; *p; p++)
      if (i-- == 0) return *p;
  return NULL;
}

void sema_init_known(FeCtx *fe) {
  strmap_init(&fe->known);
  strmap_init(&fe->prefixes);
  for (int bi = 0; bi < BI__COUNT; bi++)
    for (const char *const *pp = builtin_paths[bi]; *pp; pp++) {
      const char *p = *pp;
      strmap_put(&fe->known, p, (void *)(intptr_t)(bi + 1));
      for (const char *d = strchr(p, '.'); d; d = strchr(d + 1, '.'))
        strmap_putn(&fe->prefixes, p, (size_t)(d - p), (void *)1);
    }
  add_operator_paths(fe);
  /* roots whose attributes are types */
  static const char *const roots[] = {"numba", "numba.types", "numba.core", "numba.core.types", "numpy", "numba.cuda",
                                      "numba.cuda.types", "numba.cuda.fp16", "numba.cuda.bf16", "numba.cuda._internal",
                                      "numba.cuda._internal.cuda_bf16", "numba.cuda._internal.cuda_fp8",
                                      "numba.cuda.libdevice"};
  for (unsigned i = 0; i < sizeof roots / sizeof *roots; i++) strmap_put(&fe->prefixes, roots[i], (void *)1);
}

int sema_lookup_path(FeCtx *fe, const char *path) {
  void *p = strmap_get(&fe->known, path);
  if (p) return (int)(intptr_t)p - 1;
  if (strncmp(path, "numpy.", 6) == 0) {
    int u = num_ufunc_lookup(path + 6);
    if (u >= 0) return FE_UFUNC_BASE + u;
  }
  if (strncmp(path, "numba.cuda.fp16.", 16) == 0) {
    int k = num_lowp_lookup(LOWP_FP16, path + 16);
    if (k >= 0) return FE_FP16_BASE + k;
  }
  if (strncmp(path, "numba.cuda.libdevice.", 21) == 0) {
    const LibdeviceFn *f = ir_libdevice_lookup(path + 21);
    if (f) return FE_LIBDEVICE_BASE + ir_libdevice_index(f);
  }
  if (strncmp(path, "numba.cuda.bf16.", 16) == 0) {
    int k = num_lowp_lookup(LOWP_BF16, path + 16);
    if (k >= 0) return FE_BF16_BASE + k;
  }
  if (strncmp(path, "numba.cuda._internal.cuda_bf16.", 31) == 0) {
    int k = num_lowp_lookup(LOWP_BF16_INTERNAL, path + 31);
    if (k >= 0) return FE_BF16_BASE + k;
  }
  if (strncmp(path, "numba.cuda.", 11) == 0 && !strchr(path + 11, '.')) {
    int k = vec_lookup(path + 11);
    if (k >= 0) return FE_VECTOR_BASE + k;
  }
  return -1;
}

bool sema_is_prefix(FeCtx *fe, const char *path) { return strmap_get(&fe->prefixes, path) != NULL; }

Type *sema_path_type(FeCtx *fe, const char *path) {
  /* numba-cuda's bfloat16 type: cuda.bfloat16, numba.cuda.types.bfloat16, numba.cuda.bf16.bfloat16,
   * cuda_bf16.nv_bfloat16 */
  static const char *const bf16_paths[] = {"numba.cuda.bfloat16", "numba.cuda.types.bfloat16", "numba.cuda.bf16.bfloat16",
                                           "numba.cuda._internal.cuda_bf16.nv_bfloat16",
                                           "numba.cuda._internal.cuda_bf16.bfloat16"};
  for (unsigned i = 0; i < sizeof bf16_paths / sizeof *bf16_paths; i++)
    if (strcmp(path, bf16_paths[i]) == 0) return ty_bf16(fe->ctx);
  Type *storage = fe_fp8_path_type(fe->ctx, path); /* cuda_fp8's fp8_e4m3 ..., cuda_bf16's __nv_bfloat16_raw */
  if (storage) return storage;
  const char *dot = strrchr(path, '.');
  if (!dot) return NULL;
  size_t n = (size_t)(dot - path);
  static const char *const roots[] = {"numba", "numba.types", "numba.core.types", "numpy", "numba.cuda",
                                      "numba.cuda.types"};
  bool ok = false;
  for (unsigned i = 0; i < sizeof roots / sizeof *roots && !ok; i++)
    ok = strlen(roots[i]) == n && memcmp(roots[i], path, n) == 0;
  if (!ok) return NULL;
  const char *name = dot + 1;
  bool v;
  /* numpy spells the boolean type bool_ (np.bool is the same since numpy 2) */
  Type *t = nb_named_type(fe->ctx, name, &v);
  return t && ty_is_bf16(t) ? NULL : t; /* bfloat16 only by the paths above */
}

/* ---- case lists ------------------------------------------------------------------------------------ */

#define B NB_BOOL
#define I8 NB_I8
#define I16 NB_I16
#define I32 NB_I32
#define I64 NB_I64
#define U8 NB_U8
#define U16 NB_U16
#define U32 NB_U32
#define U64 NB_U64
#define F16 NB_F16
#define F32 NB_F32
#define F64 NB_F64
#define Z64 NB_C64
#define Z128 NB_C128
#define BF16 NB_BF16
#define C1(r, a) {r, 1, {a}}
#define C2(r, a, b) {r, 2, {a, b}}
#define C3(r, a, b, c) {r, 3, {a, b, c}}
#define N(a) (sizeof(a) / sizeof *(a))
#define INT_BINOP(r)                                                                                           \
  C2(I64, I64, I64), C2(I64, I64, U64), C2(I64, U64, I64), C2(U64, U64, U64)

static const NbCase binop_cases[] = {INT_BINOP(), C2(F32, F32, F32), C2(F64, F64, F64)};
/* + - * / ** ==, != and unary - + not take complex too (numba's templates add the complex domain; // and % not) */
#define COMPLEX_BINOP C2(Z64, Z64, Z64), C2(Z128, Z128, Z128)
/* + - * / and the comparisons also have numba-cuda's bfloat16 case after the others (cuda_bf16.py's BinOp.cases +
 * [bfloat16(bfloat16, bfloat16)], ...: the best rated case wins, bfloat16 only when both are bfloat16 or one
 * converts to it safely, an 8-bit integer) */
#define BF16_BINOP C2(BF16, BF16, BF16)
static const NbCase arith_cases[] = {INT_BINOP(), C2(F32, F32, F32), C2(F64, F64, F64), COMPLEX_BINOP, BF16_BINOP};
static const NbCase truediv_cases[] = {C2(F64, I64, I64), C2(F64, I64, U64), C2(F64, U64, I64), C2(F64, U64, U64),
                                       C2(F32, F32, F32), C2(F64, F64, F64), COMPLEX_BINOP, BF16_BINOP};
static const NbCase pow_cases[] = {INT_BINOP(),         C2(F32, F32, I32),  C2(F32, F32, I64), C2(F32, F32, U64),
                                   C2(F64, F64, I32),  C2(F64, F64, I64),  C2(F64, F64, U64), C2(F32, F32, F32),
                                   C2(F64, F64, F64),  COMPLEX_BINOP};
static const NbCase shift_cases[] = {
    C2(I64, I8, U64),  C2(I64, I8, I64),  C2(I64, I16, U64), C2(I64, I16, I64), C2(I64, I32, U64), C2(I64, I32, I64),
    C2(I64, I64, U64), C2(I64, I64, I64), C2(U64, U8, U64),  C2(U64, U8, I64),  C2(U64, U16, U64), C2(U64, U16, I64),
    C2(U64, U32, U64), C2(U64, U32, I64), C2(U64, U64, U64), C2(U64, U64, I64)};
static const NbCase bitwise_cases[] = {C2(B, B, B), INT_BINOP()};
static const NbCase invert_cases[] = {C1(B, B),     C1(U64, U8),  C1(U64, U16), C1(U64, U32), C1(U64, U64),
                                      C1(I64, I8), C1(I64, I16), C1(I64, I32), C1(I64, I64)};
static const NbCase unary_cases[] = {C1(U64, U8),  C1(U64, U16), C1(U64, U32), C1(U64, U64), C1(I64, I8), C1(I64, I16),
                                     C1(I64, I32), C1(I64, I64), C1(F32, F32), C1(F64, F64), C1(I64, B),
                                     C1(Z64, Z64), C1(Z128, Z128), C1(BF16, BF16)};
static const NbCase not_cases[] = {C1(B, B),   C1(B, I8),  C1(B, I16), C1(B, I32), C1(B, I64), C1(B, U8),
                                   C1(B, U16), C1(B, U32), C1(B, U64), C1(B, F32), C1(B, F64), C1(B, Z64), C1(B, Z128)};
static const NbCase cmp_cases[] = {C2(B, B, B),     C2(B, I8, I8),   C2(B, I16, I16), C2(B, I32, I32), C2(B, I64, I64),
                                   C2(B, U8, U8),   C2(B, U16, U16), C2(B, U32, U32), C2(B, U64, U64), C2(B, F32, F32),
                                   C2(B, F64, F64), C2(B, BF16, BF16)};
static const NbCase eq_cases[] = {C2(B, B, B),     C2(B, I8, I8),   C2(B, I16, I16), C2(B, I32, I32), C2(B, I64, I64),
                                  C2(B, U8, U8),   C2(B, U16, U16), C2(B, U32, U32), C2(B, U64, U64), C2(B, F32, F32),
                                  C2(B, F64, F64), C2(B, Z64, Z64), C2(B, Z128, Z128), C2(B, BF16, BF16)};
static const NbCase abs_cases[] = {C1(I8, I8),   C1(I16, I16), C1(I32, I32), C1(I64, I64), C1(U8, U8),
                                   C1(U16, U16), C1(U32, U32), C1(U64, U64), C1(F32, F32), C1(F64, F64),
                                   C1(F32, Z64), C1(F64, Z128)};
static const NbCase round_cases[] = {C1(I64, F32), C1(I64, F64), C2(F32, F32, I64), C2(F64, F64, I64)};
static const NbCase range_cases[] = {C1(I32, I32), C2(I32, I32, I32), C3(I32, I32, I32, I32),
                                     C1(I64, I64), C2(I64, I64, I64), C3(I64, I64, I64, I64),
                                     C1(U64, U64), C2(U64, U64, U64), C3(U64, U64, U64, U64)};
#define MATH_UNARY C1(F64, I64), C1(F64, U64), C1(F32, F32), C1(F64, F64)
static const NbCase math_unary_cases[] = {MATH_UNARY, C1(F16, F16)}; /* float16: numba-cuda's fp16 overloads */
static const NbCase math_unary_no_f16_cases[] = {MATH_UNARY};
static const NbCase math_atan2_cases[] = {C2(F64, I64, I64), C2(F64, U64, U64), C2(F32, F32, F32), C2(F64, F64, F64)};
static const NbCase math_binary_cases[] = {C2(F32, F32, F32), C2(F64, F64, F64)};
static const NbCase math_pow_cases[] = {C2(F32, F32, F32), C2(F64, F64, F64), C2(F32, F32, I32), C2(F64, F64, I32)};
static const NbCase math_isnan_cases[] = {C1(B, I64), C1(B, U64), C1(B, F32), C1(B, F64)};
static const NbCase popc_cases[] = {C1(I8, I8), C1(I16, I16), C1(I32, I32), C1(I64, I64),
                                    C1(U8, U8), C1(U16, U16), C1(U32, U32), C1(U64, U64)};
static const NbCase ffs_cases[] = {C1(U32, I8), C1(U32, I16), C1(U32, I32), C1(U32, I64),
                                   C1(U32, U8), C1(U32, U16), C1(U32, U32), C1(U32, U64)};
static const NbCase brev_cases[] = {C1(U32, U32), C1(U64, U64)};
/* numba-cuda's cudamath.py / cudadecl.py: remainder, ldexp, frexp and modf (the float of their tuples), fma, cbrt */
static const NbCase math_ldexp_cases[] = {C2(F32, F32, I32), C2(F64, F64, I32)};
static const NbCase math_frexp_cases[] = {C1(F32, F32), C1(F64, F64)};
static const NbCase math_modf_cases[] = {C1(F64, F64), C1(F32, F32)};
static const NbCase fma_cases[] = {C3(F32, F32, F32, F32), C3(F64, F64, F64, F64)};
static const NbCase divmod_cases[] = {C2(I64, I64, I64), C2(U64, U64, U64), C2(F32, F32, F32), C2(F64, F64, F64)};
/* numba-cuda's cudadecl of match_any_sync / match_all_sync: (int32 mask, int32 | int64 | float32 | float64 value),
 * the case chosen by Numba's overload rating (the return kind is the mask's: the lowering makes the results) */
static const NbCase match_cases[] = {C2(I32, I32, I32), C2(I32, I32, I64), C2(I32, I32, F32), C2(I32, I32, F64)};

/* numba-cuda's float16 operator templates (tried before the general ones): f16 with an operand that
 * converts to f16 exactly, by promotion or safely. */
static bool fp16_binary(const int *args, unsigned nargs) {
  if (nargs != 2 || (args[0] != NB_F16 && args[1] != NB_F16)) return false;
  int other = args[0] == NB_F16 ? args[1] : args[0];
  int conv = nb_can_convert(other, NB_F16);
  return conv == CONV_EXACT || conv == CONV_PROMOTE || conv == CONV_SAFE;
}

const NbCase *sema_op_case(NbFamily fam, int op, const int *args, unsigned nargs) {
  static const NbCase f16_binop = C2(F16, F16, F16), f16_cmp = C2(B, F16, F16), f16_unary = C1(F16, F16);
  switch (fam) {
  case NBF_BINOP:
    switch ((PyBinOp)op) {
    case BIN_ADD: case BIN_SUB: case BIN_MUL:
      if (fp16_binary(args, nargs)) return &f16_binop;
      return nb_resolve(arith_cases, N(arith_cases), args, nargs, true);
    case BIN_DIV:
      if (fp16_binary(args, nargs)) return &f16_binop;
      return nb_resolve(truediv_cases, N(truediv_cases), args, nargs, true);
    case BIN_FLOORDIV: case BIN_MOD: return nb_resolve(binop_cases, N(binop_cases), args, nargs, true);
    case BIN_POW: return nb_resolve(pow_cases, N(pow_cases), args, nargs, true);
    case BIN_LSHIFT: case BIN_RSHIFT: return nb_resolve(shift_cases, N(shift_cases), args, nargs, false);
    case BIN_BITAND: case BIN_BITOR: case BIN_BITXOR:
      return nb_resolve(bitwise_cases, N(bitwise_cases), args, nargs, false);
    default: return NULL;
    }
  case NBF_CMP:
    if (fp16_binary(args, nargs)) return &f16_cmp;
    if (op == CMP_EQ || op == CMP_NE) return nb_resolve(eq_cases, N(eq_cases), args, nargs, true);
    return nb_resolve(cmp_cases, N(cmp_cases), args, nargs, true);
  case NBF_UNARY:
    switch ((PyUnaryOp)op) {
    case UN_NEG: case UN_POS:
      if (nargs == 1 && args[0] == NB_F16) return &f16_unary;
      return nb_resolve(unary_cases, N(unary_cases), args, nargs, true);
    case UN_INVERT: return nb_resolve(invert_cases, N(invert_cases), args, nargs, false);
    case UN_NOT: return nb_resolve(not_cases, N(not_cases), args, nargs, true);
    }
  }
  return NULL;
}

/* builtins.def's TYPING, by builtin */
#define UNTYPED {NULL, 0, false, false}
#define CASES(list) {list, N(list), false, false}
#define CASES_F16(list) {list, N(list), true, false}
#define CASES_BF16(list) {list, N(list), false, true}
static const FeBuiltinTyping builtin_typings[BI__COUNT] = {
#define BUILTIN(id, name, call, params, typing, ...) [BI_##id] = typing,
#include "frontend/builtins.def"
#undef BUILTIN
};
#undef UNTYPED
#undef CASES
#undef CASES_F16
#undef CASES_BF16

const FeBuiltinTyping *sema_builtin_typing(int bi) {
  static const FeBuiltinTyping none = {NULL, 0, false, false};
  return bi >= 0 && bi < BI__COUNT ? &builtin_typings[bi] : &none;
}

bool sema_atomic_takes_floats(int bi) {
  return bi == BI_ATOMIC_ADD || bi == BI_ATOMIC_SUB || bi == BI_ATOMIC_MAX || bi == BI_ATOMIC_MIN ||
         bi == BI_ATOMIC_NANMAX || bi == BI_ATOMIC_NANMIN;
}

bool sema_atomic_element_ok(int bi, int kind) {
  if (bi == BI_ATOMIC_INC || bi == BI_ATOMIC_DEC) return kind == NB_U32 || kind == NB_U64;
  bool ints = kind == NB_I32 || kind == NB_U32 || kind == NB_I64 || kind == NB_U64;
  return ints || (sema_atomic_takes_floats(bi) && (kind == NB_F32 || kind == NB_F64));
}

const NbCase *sema_builtin_case(int bi, const int *kinds, unsigned n) {
  const FeBuiltinTyping *t = sema_builtin_typing(bi);
  static const NbCase f16 = C1(F16, F16), bf16 = C1(BF16, BF16);
  if (t->f16_overload && n == 1 && kinds[0] == NB_F16) return &f16;
  if (t->bf16_overload && n == 1 && kinds[0] == NB_BF16) return &bf16;
  return nb_resolve(t->cases, t->ncases, kinds, n, true);
}

/* ---- per-function analysis ------------------------------------------------------------------------------ */

typedef struct Analysis {
  FeCtx *fe;
  FeFunc *fn;
  const char **names;
  SrcLoc *first;
  unsigned n, cap;
} Analysis;

static void add_local(Analysis *A, const char *name, SrcLoc loc) {
  if (strmap_get(&A->fn->local_index, name)) return;
  if (A->n == A->cap) {
    A->cap = A->cap ? 2 * A->cap : 16;
    const char **nn = ARENA_ARRAY(&A->fe->arena, const char *, A->cap);
    SrcLoc *nf = ARENA_ARRAY(&A->fe->arena, SrcLoc, A->cap);
    if (A->n) {
      memcpy(nn, A->names, sizeof *nn * A->n);
      memcpy(nf, A->first, sizeof *nf * A->n);
    }
    A->names = nn;
    A->first = nf;
  }
  A->names[A->n] = name;
  A->first[A->n] = loc;
  A->n++;
  strmap_put(&A->fn->local_index, name, (void *)(uintptr_t)A->n);
}

static void an_target(Analysis *A, const PyExpr *e) {
  switch (e->kind) {
  case EX_NAME: add_local(A, e->name, e->loc); break;
  case EX_TUPLE: case EX_LIST:
    for (unsigned i = 0; i < e->elts.n; i++) an_target(A, e->elts.items[i]);
    break;
  case EX_STARRED: an_target(A, e->value); break;
  default: break; /* a[i] = ..., a.x = ...: not a local */
  }
}

static void an_stmts(Analysis *A, const PyStmtList *l) {
  for (unsigned i = 0; i < l->n; i++) {
    const PyStmt *s = l->items[i];
    switch (s->kind) {
    case ST_ASSIGN:
      for (unsigned t = 0; t < s->assign.targets.n; t++) an_target(A, s->assign.targets.items[t]);
      break;
    case ST_AUGASSIGN: an_target(A, s->augassign.target); break;
    case ST_ANNASSIGN:
      if (s->annassign.value) an_target(A, s->annassign.target);
      break;
    case ST_IF: an_stmts(A, &s->if_.body); an_stmts(A, &s->if_.orelse); break;
    case ST_FOR:
      an_target(A, s->for_.target);
      an_stmts(A, &s->for_.body);
      an_stmts(A, &s->for_.orelse);
      break;
    case ST_WHILE: an_stmts(A, &s->while_.body); an_stmts(A, &s->while_.orelse); break;
    case ST_FUNCDEF: add_local(A, s->funcdef.name, s->funcdef.name_loc); break;
    default: break;
    }
  }
}

/* ---- free names: what inner defs and lambdas read from enclosing functions ---------------------------------- */

typedef struct Names {
  FeCtx *fe;
  StrMap set;
  const char **v;
  unsigned n, cap;
} Names;

static void names_add(Names *N, const char *s) {
  if (strmap_get(&N->set, s)) return;
  strmap_put(&N->set, s, (void *)1);
  if (N->n == N->cap) {
    N->cap = N->cap ? 2 * N->cap : 8;
    const char **nv = ARENA_ARRAY(&N->fe->arena, const char *, N->cap);
    if (N->n) memcpy(nv, N->v, sizeof *nv * N->n);
    N->v = nv;
  }
  N->v[N->n++] = s;
}

/* The locals of a def or lambda (parameters and assigned names) in fn->local_index of a scratch FeFunc. */
static void scope_locals(FeCtx *fe, const PyParams *ps, const PyStmtList *body, FeFunc *scratch) {
  memset(scratch, 0, sizeof *scratch);
  strmap_init(&scratch->local_index);
  Analysis A = {.fe = fe, .fn = scratch};
  for (unsigned i = 0; i < ps->n; i++) add_local(&A, ps->items[i]->name, ps->items[i]->loc);
  if (body) an_stmts(&A, body);
}

static void scope_stmts(Names *N, const PyStmtList *l, const StrMap *locals, bool direct);
static void nested_free(Names *N, const PyParams *ps, const PyStmtList *body, const PyExpr *lambda_body,
                        const StrMap *locals);

/* Names read in e: loads of this scope (when direct, less its locals) and nested lambdas' free names. Chains are
 * followed by a loop (ast_chain_next). */
static void scope_expr(Names *N, const PyExpr *e, const StrMap *locals, bool direct);

typedef struct ScopeWalk {
  Names *N;
  const StrMap *locals;
  bool direct;
} ScopeWalk;

static void scope_operand(const PyExpr *e, void *arg) {
  const ScopeWalk *w = arg;
  scope_expr(w->N, e, w->locals, w->direct);
}

static void scope_expr(Names *N, const PyExpr *e, const StrMap *locals, bool direct) {
  if (stack_exhausted()) return; /* the lowering, whose frames are larger, reports the nesting */
  ScopeWalk w = {N, locals, direct};
  for (; e; e = ast_chain_next(e)) {
    switch (e->kind) {
    case EX_NAME:
      if (direct && !strmap_get(locals, e->name)) names_add(N, e->name);
      break;
    case EX_LAMBDA:
      for (unsigned i = 0; i < e->lambda.params.n; i++)
        if (e->lambda.params.items[i]->defval) scope_expr(N, e->lambda.params.items[i]->defval, locals, direct);
      nested_free(N, &e->lambda.params, NULL, e->lambda.body, locals);
      break;
    default: ast_expr_operands(e, scope_operand, &w); break;
    }
  }
}

/* Adds the free names of a nested def (body) or lambda (lambda_body) that are not locals of the enclosing scope
 * (locals NULL: all of them). */
static void nested_free(Names *N, const PyParams *ps, const PyStmtList *body, const PyExpr *lambda_body,
                        const StrMap *locals) {
  FeFunc scratch;
  scope_locals(N->fe, ps, body, &scratch);
  Names sub = {.fe = N->fe};
  strmap_init(&sub.set);
  if (body) scope_stmts(&sub, body, &scratch.local_index, true);
  else scope_expr(&sub, lambda_body, &scratch.local_index, true);
  for (unsigned i = 0; i < sub.n; i++)
    if (!locals || !strmap_get(locals, sub.v[i])) names_add(N, sub.v[i]);
  strmap_free(&sub.set);
  strmap_free(&scratch.local_index);
}

static void scope_stmts(Names *N, const PyStmtList *l, const StrMap *locals, bool direct) {
  if (stack_exhausted()) return; /* as scope_expr */
  for (unsigned i = 0; i < l->n; i++) {
    const PyStmt *s = l->items[i];
    switch (s->kind) {
    case ST_EXPR: scope_expr(N, s->expr, locals, direct); break;
    case ST_ASSIGN:
      for (unsigned t = 0; t < s->assign.targets.n; t++) scope_expr(N, s->assign.targets.items[t], locals, direct);
      scope_expr(N, s->assign.value, locals, direct);
      break;
    case ST_AUGASSIGN:
      scope_expr(N, s->augassign.target, locals, direct);
      scope_expr(N, s->augassign.value, locals, direct);
      break;
    case ST_ANNASSIGN:
      scope_expr(N, s->annassign.target, locals, direct);
      scope_expr(N, s->annassign.value, locals, direct);
      break;
    case ST_IF:
      scope_expr(N, s->if_.test, locals, direct);
      scope_stmts(N, &s->if_.body, locals, direct);
      scope_stmts(N, &s->if_.orelse, locals, direct);
      break;
    case ST_FOR:
      scope_expr(N, s->for_.target, locals, direct);
      scope_expr(N, s->for_.iter, locals, direct);
      scope_stmts(N, &s->for_.body, locals, direct);
      scope_stmts(N, &s->for_.orelse, locals, direct);
      break;
    case ST_WHILE:
      scope_expr(N, s->while_.test, locals, direct);
      scope_stmts(N, &s->while_.body, locals, direct);
      scope_stmts(N, &s->while_.orelse, locals, direct);
      break;
    case ST_RETURN: scope_expr(N, s->value, locals, direct); break;
    case ST_ASSERT:
      scope_expr(N, s->assert_.test, locals, direct);
      scope_expr(N, s->assert_.msg, locals, direct);
      break;
    case ST_RAISE:
      scope_expr(N, s->raise.exc, locals, direct);
      scope_expr(N, s->raise.cause, locals, direct);
      break;
    case ST_FUNCDEF:
      for (unsigned d = 0; d < s->funcdef.decorators.n; d++) scope_expr(N, s->funcdef.decorators.items[d], locals, direct);
      for (unsigned p = 0; p < s->funcdef.params.n; p++)
        if (s->funcdef.params.items[p]->defval) scope_expr(N, s->funcdef.params.items[p]->defval, locals, direct);
      nested_free(N, &s->funcdef.params, &s->funcdef.body, NULL, locals);
      break;
    default: break;
    }
  }
}

unsigned sema_free_names(FeCtx *fe, const PyStmt *def, const char ***out) {
  Names N = {.fe = fe};
  strmap_init(&N.set);
  nested_free(&N, &def->funcdef.params, &def->funcdef.body, NULL, NULL);
  strmap_free(&N.set);
  *out = N.v;
  return N.n;
}

void sema_analyse_function(FeCtx *fe, FeFunc *fn) {
  if (fn->analysed) return;
  fn->analysed = true;
  fn->def = match_rewrite_function(fe, fn->def);
  strmap_init(&fn->local_index);
  Analysis A = {.fe = fe, .fn = fn};
  const PyParams *ps = &fn->def->funcdef.params;
  for (unsigned i = 0; i < ps->n; i++) add_local(&A, ps->items[i]->name, ps->items[i]->loc);
  for (unsigned i = 0; i < fn->ncaptures; i++) add_local(&A, fn->captures[i], fn->loc);
  an_stmts(&A, &fn->def->funcdef.body);
  fn->nlocals = A.n;
  fn->locals = ARENA_ARRAY(&fe->arena, FeLocal, A.n ? A.n : 1);
  for (unsigned i = 0; i < A.n; i++) {
    fn->locals[i].name = A.names[i];
    fn->locals[i].first_assign = A.first[i];
  }
  /* the locals inner defs and lambdas read: their free names, less what the inner ones define themselves */
  fn->captured = ARENA_ARRAY(&fe->arena, bool, A.n ? A.n : 1);
  Names N = {.fe = fe};
  strmap_init(&N.set);
  scope_stmts(&N, &fn->def->funcdef.body, NULL, false);
  for (unsigned i = 0; i < N.n; i++) {
    int k = sema_local_index(fn, N.v[i]);
    if (k >= 0) fn->captured[k] = true;
  }
  strmap_free(&N.set);
}

/* Counts the bindings of name in statements (for sema_definitions). */
static unsigned count_target(const PyExpr *t, const char *name) {
  switch (t->kind) {
  case EX_NAME: return t->name == name || strcmp(t->name, name) == 0;
  case EX_TUPLE:
  case EX_LIST: {
    unsigned n = 0;
    for (unsigned i = 0; i < t->elts.n; i++) n += count_target(t->elts.items[i], name);
    return n;
  }
  case EX_STARRED: return count_target(t->value, name);
  default: return 0;
  }
}

static unsigned count_defs(const PyStmtList *l, const char *name) {
  unsigned n = 0;
  if (stack_exhausted()) return 0; /* (only a closure passed on asks: its lowering went deeper) */
  for (unsigned i = 0; i < l->n; i++) {
    const PyStmt *s = l->items[i];
    switch (s->kind) {
    case ST_ASSIGN:
      for (unsigned t = 0; t < s->assign.targets.n; t++) n += count_target(s->assign.targets.items[t], name);
      break;
    case ST_AUGASSIGN: n += count_target(s->augassign.target, name); break;
    case ST_ANNASSIGN:
      if (s->annassign.value) n += count_target(s->annassign.target, name);
      break;
    case ST_IF: n += count_defs(&s->if_.body, name) + count_defs(&s->if_.orelse, name); break;
    case ST_FOR:
      n += count_target(s->for_.target, name) + count_defs(&s->for_.body, name) + count_defs(&s->for_.orelse, name);
      break;
    case ST_WHILE: n += count_defs(&s->while_.body, name) + count_defs(&s->while_.orelse, name); break;
    case ST_FUNCDEF: n += strcmp(s->funcdef.name, name) == 0; break;
    default: break;
    }
  }
  return n;
}

unsigned sema_definitions(const FeFunc *fn, const char *name) {
  unsigned n = 0;
  const PyParams *ps = &fn->def->funcdef.params;
  for (unsigned i = 0; i < ps->n; i++) n += strcmp(ps->items[i]->name, name) == 0;
  for (unsigned i = 0; i < fn->ncaptures; i++) n += strcmp(fn->captures[i], name) == 0;
  return n + count_defs(&fn->def->funcdef.body, name);
}

/* Whether a binding of name comes before site (an inner def statement or a lambda expression) in the order Python
 * compiles fn's body: statements in source order, an assignment's targets after its value, a loop's target before
 * its body, a def's name after its defaults. Numba's interpreter makes a closure's cells from the variables stored
 * so far in that order. */
typedef struct SiteFind {
  const void *site;
  bool found;
} SiteFind;

static bool expr_holds(const PyExpr *e, const void *site);

static void holds_operand(const PyExpr *e, void *arg) {
  SiteFind *f = arg;
  if (!f->found) f->found = expr_holds(e, f->site);
}

static bool expr_holds(const PyExpr *e, const void *site) {
  if (stack_exhausted()) return false;
  for (; e; e = ast_chain_next(e)) {
    if (e == site) return true;
    if (e->kind == EX_LAMBDA) {
      for (unsigned i = 0; i < e->lambda.params.n; i++)
        if (e->lambda.params.items[i]->defval && expr_holds(e->lambda.params.items[i]->defval, site)) return true;
      continue; /* its body is its own scope */
    }
    SiteFind f = {site, false};
    ast_expr_operands(e, holds_operand, &f);
    if (f.found) return true;
  }
  return false;
}

/* Walks l up to site, setting *stored at each binding of name before it; true once the site is reached. */
static bool walk_to_site(const PyStmtList *l, const char *name, const void *site, bool *stored) {
  if (stack_exhausted()) return false;
  for (unsigned i = 0; i < l->n; i++) {
    const PyStmt *s = l->items[i];
    if (s == site) return true;
    switch (s->kind) {
    case ST_EXPR:
      if (expr_holds(s->expr, site)) return true;
      break;
    case ST_RETURN:
      if (expr_holds(s->value, site)) return true;
      break;
    case ST_ASSERT:
      if (expr_holds(s->assert_.test, site) || expr_holds(s->assert_.msg, site)) return true;
      break;
    case ST_RAISE:
      if (expr_holds(s->raise.exc, site) || expr_holds(s->raise.cause, site)) return true;
      break;
    case ST_ASSIGN:
      if (expr_holds(s->assign.value, site)) return true;
      for (unsigned t = 0; t < s->assign.targets.n; t++) {
        if (expr_holds(s->assign.targets.items[t], site)) return true;
        *stored |= count_target(s->assign.targets.items[t], name) > 0;
      }
      break;
    case ST_AUGASSIGN:
      if (expr_holds(s->augassign.value, site) || expr_holds(s->augassign.target, site)) return true;
      *stored |= count_target(s->augassign.target, name) > 0;
      break;
    case ST_ANNASSIGN:
      if (expr_holds(s->annassign.value, site)) return true;
      if (s->annassign.value) *stored |= count_target(s->annassign.target, name) > 0;
      break;
    case ST_IF:
      if (expr_holds(s->if_.test, site) || walk_to_site(&s->if_.body, name, site, stored) ||
          walk_to_site(&s->if_.orelse, name, site, stored))
        return true;
      break;
    case ST_FOR:
      if (expr_holds(s->for_.iter, site)) return true;
      *stored |= count_target(s->for_.target, name) > 0;
      if (walk_to_site(&s->for_.body, name, site, stored) || walk_to_site(&s->for_.orelse, name, site, stored))
        return true;
      break;
    case ST_WHILE:
      if (expr_holds(s->while_.test, site) || walk_to_site(&s->while_.body, name, site, stored) ||
          walk_to_site(&s->while_.orelse, name, site, stored))
        return true;
      break;
    case ST_FUNCDEF:
      for (unsigned p = 0; p < s->funcdef.params.n; p++)
        if (s->funcdef.params.items[p]->defval && expr_holds(s->funcdef.params.items[p]->defval, site)) return true;
      *stored |= strcmp(s->funcdef.name, name) == 0;
      break;
    default: break;
    }
  }
  return false;
}

bool sema_bound_before(const FeFunc *fn, const char *name, const void *site) {
  const PyParams *ps = &fn->def->funcdef.params;
  for (unsigned i = 0; i < ps->n; i++)
    if (strcmp(ps->items[i]->name, name) == 0) return true;
  for (unsigned i = 0; i < fn->ncaptures; i++) /* a free variable of fn: its enclosing function's cell */
    if (strcmp(fn->captures[i], name) == 0) return true;
  bool stored = false;
  walk_to_site(&fn->def->funcdef.body, name, site, &stored);
  return stored;
}

int sema_local_index(const FeFunc *fn, const char *name) {
  void *p = strmap_get(&fn->local_index, name);
  return p ? (int)(uintptr_t)p - 1 : -1;
}

/* ---- exits ------------------------------------------------------------------------------------------------ */

static ExitKind stmt_exits(const PyStmt *s) {
  switch (s->kind) {
  case ST_RETURN: case ST_RAISE: case ST_BREAK: case ST_CONTINUE: return EXIT_ALWAYS;
  case ST_IF: {
    ExitKind a = sema_exits((const PyStmt *const *)s->if_.body.items, s->if_.body.n);
    ExitKind b = sema_exits((const PyStmt *const *)s->if_.orelse.items, s->if_.orelse.n);
    if (a == b) return a;
    return EXIT_SOMETIMES;
  }
  case ST_FOR: case ST_WHILE: {
    const PyStmtList *body = s->kind == ST_FOR ? &s->for_.body : &s->while_.body;
    const PyStmtList *orelse = s->kind == ST_FOR ? &s->for_.orelse : &s->while_.orelse;
    if (sema_contains_return(body) || sema_exits((const PyStmt *const *)orelse->items, orelse->n) != EXIT_NEVER)
      return EXIT_SOMETIMES;
    return EXIT_NEVER;
  }
  default: return EXIT_NEVER;
  }
}

ExitKind sema_exits(const PyStmt *const *stmts, unsigned n) {
  ExitKind k = EXIT_NEVER;
  for (unsigned i = 0; i < n; i++) {
    ExitKind e = stmt_exits(stmts[i]);
    if (e == EXIT_ALWAYS) return EXIT_ALWAYS;
    if (e == EXIT_SOMETIMES) k = EXIT_SOMETIMES;
  }
  return k;
}

/* Whether l may leave the loop it is the body of: by break, or (with_continue) by continue too. */
static bool list_leaves_loop(const PyStmtList *l, bool with_continue) {
  for (unsigned i = 0; i < l->n; i++) {
    const PyStmt *s = l->items[i];
    if (s->kind == ST_BREAK || (with_continue && s->kind == ST_CONTINUE)) return true;
    if (s->kind == ST_IF &&
        (list_leaves_loop(&s->if_.body, with_continue) || list_leaves_loop(&s->if_.orelse, with_continue)))
      return true;
    /* a loop's own else clause belongs to the enclosing loop level */
    if (s->kind == ST_FOR && list_leaves_loop(&s->for_.orelse, with_continue)) return true;
    if (s->kind == ST_WHILE && list_leaves_loop(&s->while_.orelse, with_continue)) return true;
  }
  return false;
}

bool sema_contains_break(const PyStmtList *body) { return list_leaves_loop(body, false); }

bool sema_leaves_iteration(PyStmt *const *stmts, unsigned n) {
  PyStmtList l = {(PyStmt **)stmts, n};
  return list_leaves_loop(&l, true);
}

bool sema_contains_return(const PyStmtList *l) {
  for (unsigned i = 0; i < l->n; i++) {
    const PyStmt *s = l->items[i];
    switch (s->kind) {
    case ST_RETURN: case ST_RAISE: return true; /* a raise leaves the function as a return does */
    case ST_IF:
      if (sema_contains_return(&s->if_.body) || sema_contains_return(&s->if_.orelse)) return true;
      break;
    case ST_FOR:
      if (sema_contains_return(&s->for_.body) || sema_contains_return(&s->for_.orelse)) return true;
      break;
    case ST_WHILE:
      if (sema_contains_return(&s->while_.body) || sema_contains_return(&s->while_.orelse)) return true;
      break;
    default: break;
    }
  }
  return false;
}

unsigned sema_edit_distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (n > 64 || m > 64) return 1000;
  unsigned row[65];
  for (size_t j = 0; j <= m; j++) row[j] = (unsigned)j;
  for (size_t i = 1; i <= n; i++) {
    unsigned diag = row[0];
    row[0] = (unsigned)i;
    for (size_t j = 1; j <= m; j++) {
      unsigned up = row[j];
      unsigned best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[m];
}

/* ---- Python's own constant folding -------------------------------------------------------------------------
 * CPython folds operations between literals when it compiles a function (`2 ** 3` is the constant 8,
 * `2 ** -1` is 0.5, `~True` is -2), so Numba only ever sees the result; module constants are computed by
 * Python too. These fold int (int64 range), float and bool constants with Python's semantics; they fail
 * (return false) where Python would raise, overflow past int64, or produce another type. */

typedef struct PyNum {
  bool is_float;
  int64_t i;
  double f;
} PyNum;

static bool py_num(const FeVal *v, PyNum *n) {
  if (v->kind != FV_VAL || !v->is_const || !v->type) return false;
  if (v->type->kind == TY_BOOL || (v->type->kind == TY_INT && v->type->bits == 64 && !v->type->is_unsigned)) {
    n->is_float = false;
    n->i = v->c.i;
    return true;
  }
  if (v->type->kind == TY_FLOAT && v->type->bits == 64) {
    n->is_float = true;
    n->f = v->c.f;
    return true;
  }
  return false;
}

static FeVal py_int(IrContext *ctx, int64_t i) {
  FeVal v = {.kind = FV_VAL, .is_const = true, .literal = true, .type = ty_i64(ctx), .c.i = i, .nonneg = i >= 0};
  return v;
}

static FeVal py_float(IrContext *ctx, double f) {
  FeVal v = {.kind = FV_VAL, .is_const = true, .literal = true, .type = ty_f64(ctx), .c.f = f};
  return v;
}

static FeVal py_bool(IrContext *ctx, bool b) {
  FeVal v = {.kind = FV_VAL, .is_const = true, .literal = true, .type = ty_bool(ctx), .c.i = b, .nonneg = true};
  return v;
}

static double py_fmod(double a, double b) {
  double m = fmod(a, b);
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

/* ---- complex constants (module level: `C = 1 + 2j`) ----
 * Python's complex arithmetic on complex128 constants, a real operand converted to complex first (Python 3.13's
 * rules); folded only where every part is finite (Python's answers with infinities and NaN differ between its
 * versions), else the expression is not a compile-time constant (FV_HOST). */
static bool py_complex(const FeVal *v, double *re, double *im) {
  if (v->kind == FV_VAL && v->is_const && v->type && v->type->kind == TY_COMPLEX && v->type->elem->bits == 64) {
    *re = v->c.f;
    *im = v->im;
    return true;
  }
  PyNum n;
  if (!py_num(v, &n)) return false;
  *re = n.is_float ? n.f : (double)n.i;
  *im = 0;
  return true;
}

static FeVal py_cplx(IrContext *ctx, double re, double im) {
  FeVal v = {.kind = FV_VAL, .is_const = true, .literal = true, .type = ty_complex(ctx, ty_f64(ctx))};
  v.c.f = re;
  v.im = im;
  return v;
}

static bool is_complex_const(const FeVal *v) {
  return v->kind == FV_VAL && v->is_const && v->type && v->type->kind == TY_COMPLEX;
}

static bool complex_binop(IrContext *ctx, PyBinOp op, const FeVal *a, const FeVal *b, FeVal *out) {
  double ar, ai, br, bi, r, i;
  if (!py_complex(a, &ar, &ai) || !py_complex(b, &br, &bi)) return false;
  if (!isfinite(ar) || !isfinite(ai) || !isfinite(br) || !isfinite(bi)) return false;
  switch (op) {
  case BIN_ADD: r = ar + br, i = ai + bi; break;
  case BIN_SUB: r = ar - br, i = ai - bi; break;
  case BIN_MUL: r = ar * br - ai * bi, i = ar * bi + ai * br; break;
  case BIN_DIV: { /* Python's quotient: scaled by the divisor's larger part (Smith's method) */
    if (br == 0 && bi == 0) return false; /* ZeroDivisionError */
    if (fabs(br) >= fabs(bi)) {
      double ratio = bi / br, denom = br + bi * ratio;
      r = (ar + ai * ratio) / denom, i = (ai - ar * ratio) / denom;
    } else {
      double ratio = br / bi, denom = br * ratio + bi;
      r = (ar * ratio + ai) / denom, i = (ai * ratio - ar) / denom;
    }
    break;
  }
  default: return false; /* ** and the rest: not folded */
  }
  if (!isfinite(r) || !isfinite(i)) return false;
  *out = py_cplx(ctx, r, i);
  return true;
}

bool sema_py_binop(IrContext *ctx, PyBinOp op, const FeVal *a, const FeVal *b, FeVal *out) {
  if (is_complex_const(a) || is_complex_const(b)) return complex_binop(ctx, op, a, b, out);
  PyNum x, y;
  if (!py_num(a, &x) || !py_num(b, &y)) return false;
  bool both_bool = a->type->kind == TY_BOOL && b->type->kind == TY_BOOL;
  if (!x.is_float && !y.is_float) {
    int64_t p = x.i, q = y.i, r;
    switch (op) {
    case BIN_ADD: if (__builtin_add_overflow(p, q, &r)) return false; break;
    case BIN_SUB: if (__builtin_sub_overflow(p, q, &r)) return false; break;
    case BIN_MUL: if (__builtin_mul_overflow(p, q, &r)) return false; break;
    case BIN_DIV:
      if (q == 0) return false;
      *out = py_float(ctx, (double)p / (double)q);
      return true;
    case BIN_FLOORDIV:
    case BIN_MOD: {
      if (q == 0 || (p == INT64_MIN && q == -1)) return false;
      int64_t d = p / q, m = p % q;
      if (m != 0 && ((m < 0) != (q < 0))) {
        d -= 1;
        m += q;
      }
      r = op == BIN_FLOORDIV ? d : m;
      break;
    }
    case BIN_POW:
      if (q < 0) {
        if (p == 0) return false;
        *out = py_float(ctx, pow((double)p, (double)q));
        return true;
      }
      if (p == 0 || p == 1) r = q == 0 ? 1 : p;
      else if (p == -1) r = (q % 2) ? -1 : 1;
      else if (q > 63) return false;
      else {
        r = 1;
        for (int64_t k = 0; k < q; k++)
          if (__builtin_mul_overflow(r, p, &r)) return false;
      }
      break;
    case BIN_LSHIFT:
      if (q < 0 || q > 63 || (p != 0 && (q >= 63 || (p > 0 ? p > (INT64_MAX >> q) : p < (INT64_MIN >> q)))))
        return false;
      r = (int64_t)((uint64_t)p << q);
      break;
    case BIN_RSHIFT:
      if (q < 0) return false;
      r = q > 63 ? (p < 0 ? -1 : 0) : p >> q;
      break;
    case BIN_BITAND: r = p & q; if (both_bool) return *out = py_bool(ctx, r), true; break;
    case BIN_BITOR: r = p | q; if (both_bool) return *out = py_bool(ctx, r), true; break;
    case BIN_BITXOR: r = p ^ q; if (both_bool) return *out = py_bool(ctx, r), true; break;
    default: return false;
    }
    *out = py_int(ctx, r);
    return true;
  }
  double p = x.is_float ? x.f : (double)x.i, q = y.is_float ? y.f : (double)y.i, r;
  switch (op) {
  case BIN_ADD: r = p + q; break;
  case BIN_SUB: r = p - q; break;
  case BIN_MUL: r = p * q; break;
  case BIN_DIV: if (q == 0) return false; r = p / q; break;
  case BIN_FLOORDIV: if (q == 0) return false; r = floor(p / q); break;
  case BIN_MOD: if (q == 0) return false; r = py_fmod(p, q); break;
  case BIN_POW:
    if (p == 0 && q < 0) return false;
    if (p < 0 && q != floor(q)) return false; /* complex in Python */
    r = pow(p, q);
    break;
  default: return false;
  }
  *out = py_float(ctx, r);
  return true;
}

bool sema_py_unary(IrContext *ctx, PyUnaryOp op, const FeVal *a, FeVal *out) {
  double re, im;
  if (is_complex_const(a) && py_complex(a, &re, &im)) {
    if (op == UN_NOT) *out = py_bool(ctx, re == 0 && im == 0);
    else if (op == UN_POS || op == UN_NEG) *out = op == UN_POS ? py_cplx(ctx, re, im) : py_cplx(ctx, -re, -im);
    return op != UN_INVERT;
  }
  PyNum x;
  if (!py_num(a, &x)) return false;
  switch (op) {
  case UN_NOT: *out = py_bool(ctx, x.is_float ? x.f == 0 : x.i == 0); return true;
  case UN_POS: *out = x.is_float ? py_float(ctx, x.f) : py_int(ctx, x.i); return true;
  case UN_NEG:
    if (x.is_float) *out = py_float(ctx, -x.f);
    else if (x.i == INT64_MIN) return false;
    else *out = py_int(ctx, -x.i);
    return true;
  case UN_INVERT:
    if (x.is_float) return false;
    *out = py_int(ctx, ~x.i);
    return true;
  }
  return false;
}

bool sema_py_compare(IrContext *ctx, PyCmpOp op, const FeVal *a, const FeVal *b, FeVal *out) {
  if (is_complex_const(a) || is_complex_const(b)) { /* == and != only, as Python */
    double ar, ai, br, bi;
    if ((op != CMP_EQ && op != CMP_NE) || !py_complex(a, &ar, &ai) || !py_complex(b, &br, &bi)) return false;
    *out = py_bool(ctx, (ar == br && ai == bi) == (op == CMP_EQ));
    return true;
  }
  PyNum x, y;
  if (!py_num(a, &x) || !py_num(b, &y)) return false;
  int c;
  if (!x.is_float && !y.is_float) c = x.i < y.i ? -1 : x.i > y.i;
  else {
    double p = x.is_float ? x.f : (double)x.i, q = y.is_float ? y.f : (double)y.i;
    if (p != p || q != q) {
      *out = py_bool(ctx, op == CMP_NE);
      return op == CMP_EQ || op == CMP_NE || op == CMP_LT || op == CMP_LE || op == CMP_GT || op == CMP_GE;
    }
    c = p < q ? -1 : p > q;
  }
  bool r;
  switch (op) {
  case CMP_EQ: r = c == 0; break;
  case CMP_NE: r = c != 0; break;
  case CMP_LT: r = c < 0; break;
  case CMP_LE: r = c <= 0; break;
  case CMP_GT: r = c > 0; break;
  case CMP_GE: r = c >= 0; break;
  default: return false;
  }
  *out = py_bool(ctx, r);
  return true;
}
