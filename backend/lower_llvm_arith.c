/* lower_llvm_arith.c — the kir-to-LLVM lowering of arithmetic (lower_llvm_internal.h): integer and float
 * arithmetic (Python's floor division and modulo, powers), floating +, -, * through libNVVM never contracted,
 * numba-cuda's fastmath forms and the correctly rounded ops they must not touch, frexp, libdevice and math
 * functions, bfloat16 ops, and conversions by a rounding mode. */
#include "backend/lower_llvm_internal.h"

/* ---- integer and float arithmetic ---------------------------------------------------------- */

static bool const_nonzero(LLVMValueRef v) {
  return LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) != 0;
}

/* fptosi/fptoui as LLVM converts, but for constants (below) */
static LLVMValueRef fp_to_int_unchecked(LLVMBuilderRef b, LLVMValueRef x, LLVMTypeRef rt, bool sgn) {
  if (LLVMGetTypeKind(rt) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(rt) == 8 && !LLVMIsAConstantFP(x)) {
    /* PTX has no 8-bit cvt: NVPTX converts to 16 bits and keeps the low byte (no saturation at 8 bits); convert
     * to i32 (saturating) and clamp to the byte's range instead */
    LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(rt));
    LLVMValueRef w = sgn ? LLVMBuildFPToSI(b, x, i32, "") : LLVMBuildFPToUI(b, x, i32, "");
    LLVMValueRef hi = LLVMConstInt(i32, sgn ? 127 : 255, 0), lo = LLVMConstInt(i32, sgn ? (unsigned long long)-128 : 0, 1);
    w = LLVMBuildSelect(b, LLVMBuildICmp(b, sgn ? LLVMIntSGT : LLVMIntUGT, w, hi, ""), hi, w, "");
    if (sgn) w = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, w, lo, ""), lo, w, "");
    return LLVMBuildTrunc(b, w, rt, "");
  }
  if (!LLVMIsAConstantFP(x) || LLVMGetTypeKind(rt) != LLVMIntegerTypeKind)
    return sgn ? LLVMBuildFPToSI(b, x, rt, "") : LLVMBuildFPToUI(b, x, rt, "");
  LLVMBool loses;
  double v = LLVMConstRealGetDouble(x, &loses);
  return LLVMConstInt(rt, sem_float_to_int(v, LLVMGetIntTypeWidth(rt), sgn), sgn);
}

/* fptosi/fptoui. A constant operand is converted here as the GPU's cvt.rzi does at run time (saturating, NaN
 * to 0: sem_float_to_int, what the simulator runs): LLVM would fold an out-of-range constant to `poison`, which
 * is undefined and which libNVVM's parser does not accept. A NaN operand is selected to 0 explicitly: LLVM's
 * conversion of NaN is poison, and the H200 gave 0 for some type pairs and the type's minimum for others
 * (f64 -> i32, f32 -> i64, ...), differently through libNVVM and LLVM's NVPTX. */
static LLVMValueRef fp_to_int(LLVMBuilderRef b, LLVMValueRef x, LLVMTypeRef rt, bool sgn) {
  LLVMValueRef r = fp_to_int_unchecked(b, x, rt, sgn);
  if (LLVMIsAConstantFP(x) || LLVMGetTypeKind(rt) != LLVMIntegerTypeKind) return r;
  return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNO, x, x, ""), LLVMConstNull(rt), r, "");
}

/* binary16 to and from integers: one PTX cvt each, numba-cuda's casts (its cuda_fp16.py): an integer to f16 is
 * cvt.rn.f16.{s,u}N (arith.sitofp / uitofp round to nearest), f16 to an integer cvt.rXi.{s,u}N.f16, which clamps
 * to the type's range (PTX's float-to-integer conversions saturate): arith.fptosi / fptoui truncate (rzi), and
 * the math.round / floor / ceil / trunc of f16 that feeds one is taken into it (rni, rmi, rpi, rzi: numba-cuda's
 * cast of a float16 to an integer is round then fptosi in kir, frontend/lowp.c). NaN is selected to 0 as in
 * fp_to_int. 8-bit integers travel in 16-bit registers, PTX having none of 8 bits: cvt reads and writes the
 * register's low byte as .s8 / .u8. */
static const char *int_constraint(unsigned bits) { return bits <= 16 ? "h" : bits == 32 ? "r" : "l"; }

static LLVMValueRef int_to_half(Lower *L, LLVMValueRef x, bool sgn) {
  unsigned bits = LLVMGetIntTypeWidth(LLVMTypeOf(x));
  if (bits == 8) x = sgn ? LLVMBuildSExt(L->b, x, L->t_i16, "") : LLVMBuildZExt(L->b, x, L->t_i16, "");
  char text[40], cons[8];
  snprintf(text, sizeof text, "cvt.rn.f16.%c%u $0, $1;", sgn ? 's' : 'u', bits);
  snprintf(cons, sizeof cons, "=h,%s", int_constraint(bits));
  return inline_asm(L, L->t_f16, text, cons, false, &x, 1);
}

static LLVMValueRef half_to_int(Lower *L, const Op *op, LLVMValueRef x, LLVMTypeRef rt, bool sgn) {
  const char *mode = "rzi";
  const Op *d = op_operand(op, 0)->def;
  if (d && d->noperands == 1 && ty_is_f16(op_operand(d, 0)->type)) {
    const char *m = d->kind == OP_ROUND ? "rni" : d->kind == OP_FLOOR ? "rmi" : d->kind == OP_CEIL ? "rpi" : d->kind == OP_TRUNC ? "rzi" : NULL;
    LLVMValueRef in = m ? get(L, op_operand(d, 0)) : NULL;
    if (in) {
      mode = m;
      x = in;
    }
  }
  unsigned bits = LLVMGetIntTypeWidth(rt);
  char text[40], cons[8];
  snprintf(text, sizeof text, "cvt.%s.%c%u.f16 $0, $1;", mode, sgn ? 's' : 'u', bits);
  snprintf(cons, sizeof cons, "=%s,h", int_constraint(bits));
  LLVMValueRef r = inline_asm(L, bits == 8 ? L->t_i16 : rt, text, cons, false, &x, 1);
  if (bits == 8) r = LLVMBuildTrunc(L->b, r, rt, "");
  return LLVMBuildSelect(L->b, LLVMBuildFCmp(L->b, LLVMRealUNO, x, x, ""), LLVMConstNull(rt), r, "");
}

/* An f16 comparison by kir predicate pred (a valid one): PTX's setp.<cmp>.f16, as numba-cuda's __hgt ... (the
 * predicate through a u16, which ptxas folds), so that it stays that comparison of those operands. */
static LLVMValueRef half_compare(Lower *L, IrCmpFPred pred, LLVMValueRef x, LLVMValueRef y) {
  static const char *const ptx[] = {
      [IR_CMPF_OEQ] = "eq",  [IR_CMPF_ONE] = "ne",  [IR_CMPF_OLT] = "lt",  [IR_CMPF_OLE] = "le",  [IR_CMPF_OGT] = "gt",
      [IR_CMPF_OGE] = "ge",  [IR_CMPF_ORD] = "num", [IR_CMPF_UNE] = "neu", [IR_CMPF_ULT] = "ltu", [IR_CMPF_ULE] = "leu",
      [IR_CMPF_UGT] = "gtu", [IR_CMPF_UGE] = "geu", [IR_CMPF_UNO] = "nan"};
  char text[96];
  snprintf(text, sizeof text, "{ .reg .pred __kf_p; setp.%s.f16 __kf_p, $1, $2; selp.u16 $0, 1, 0, __kf_p; }", ptx[pred]);
  LLVMValueRef args[2] = {x, y};
  return LLVMBuildICmp(L->b, LLVMIntNE, inline_asm(L, L->t_i16, text, "=h,h,h", false, args, 2), LLVMConstNull(L->t_i16), "");
}

/* Division-like ops are undefined in LLVM for a zero divisor: divide by 1 instead and select 0 after. */
static LLVMValueRef safe_divisor(Lower *L, LLVMValueRef b, LLVMValueRef *zero) {
  if (const_nonzero(b)) {
    *zero = NULL;
    return b;
  }
  *zero = is_zero(L, b);
  return LLVMBuildSelect(L->b, *zero, LLVMConstInt(LLVMTypeOf(b), 1, 0), b, "");
}

static LLVMValueRef zero_if(Lower *L, LLVMValueRef zero, LLVMValueRef v) {
  return zero ? LLVMBuildSelect(L->b, zero, LLVMConstNull(LLVMTypeOf(v)), v, "") : v;
}

/* Python floor division and modulo on signed integers (x // 0 == x % 0 == 0, as Numba). */
static LLVMValueRef floordiv_mod_si(Lower *L, LLVMValueRef a, LLVMValueRef b, bool want_mod) {
  LLVMValueRef zero, bs = safe_divisor(L, b, &zero);
  LLVMValueRef q = LLVMBuildSDiv(L->b, a, bs, "");
  LLVMValueRef r = LLVMBuildSRem(L->b, a, bs, "");
  LLVMValueRef rnz = LLVMBuildICmp(L->b, LLVMIntNE, r, LLVMConstNull(LLVMTypeOf(r)), "");
  LLVMValueRef sdiff = LLVMBuildICmp(L->b, LLVMIntSLT, LLVMBuildXor(L->b, r, bs, ""), LLVMConstNull(LLVMTypeOf(r)), "");
  LLVMValueRef adj = LLVMBuildAnd(L->b, rnz, sdiff, "");
  LLVMValueRef res;
  if (want_mod) res = LLVMBuildSelect(L->b, adj, LLVMBuildAdd(L->b, r, bs, ""), r, "");
  else res = LLVMBuildSub(L->b, q, LLVMBuildZExt(L->b, adj, LLVMTypeOf(q), ""), "");
  return zero_if(L, zero, res);
}

/* libdevice: __nv_<name>f for f32, __nv_<name> for f64; f16 computes in f32. */
LLVMValueRef ll_libdevice(Lower *L, const char *name, LLVMValueRef *args, unsigned n) {
  LLVMTypeRef t = LLVMTypeOf(args[0]);
  bool half = t == L->t_f16;
  LLVMValueRef a[4];
  for (unsigned i = 0; i < n; i++)
    a[i] = half && LLVMTypeOf(args[i]) == L->t_f16 ? LLVMBuildFPExt(L->b, args[i], L->t_f32, "") : args[i];
  LLVMTypeRef ct = half ? L->t_f32 : t;
  char fname[64];
  snprintf(fname, sizeof fname, "__nv_%s%s", name, ct == L->t_f32 ? "f" : "");
  LLVMValueRef r = calln(L, fname, ct, a, n);
  return half ? LLVMBuildFPTrunc(L->b, r, L->t_f16, "") : r;
}

static LLVMValueRef fmod_(Lower *L, LLVMValueRef a, LLVMValueRef b) {
  LLVMValueRef args[2] = {a, b};
  return ll_libdevice(L, "fmod", args, 2);
}

static LLVMValueRef copysign_(Lower *L, LLVMValueRef a, LLVMValueRef b) {
  LLVMValueRef args[2] = {a, b};
  return ll_libdevice(L, "copysign", args, 2);
}

/* CPython's float_rem: fmod, then moved to the sign of the divisor. */
static LLVMValueRef floormod_f(Lower *L, LLVMValueRef a, LLVMValueRef b) {
  LLVMTypeRef t = LLVMTypeOf(a);
  LLVMValueRef mod = fmod_(L, a, b);
  LLVMValueRef z = fconst(t, 0.0);
  LLVMValueRef nz = LLVMBuildFCmp(L->b, LLVMRealUNE, mod, z, "");
  LLVMValueRef bneg = LLVMBuildFCmp(L->b, LLVMRealOLT, b, z, "");
  LLVMValueRef mneg = LLVMBuildFCmp(L->b, LLVMRealOLT, mod, z, "");
  LLVMValueRef fix = LLVMBuildAnd(L->b, nz, LLVMBuildXor(L->b, bneg, mneg, ""), "");
  LLVMValueRef adj = LLVMBuildSelect(L->b, fix, LLVMBuildFAdd(L->b, mod, b, ""), mod, "");
  return LLVMBuildSelect(L->b, nz, adj, copysign_(L, z, b), "");
}

/* CPython's float_floor_div (x // 0.0 gives x / 0.0, as NumPy). */
static LLVMValueRef floordiv_f(Lower *L, LLVMValueRef a, LLVMValueRef b) {
  LLVMTypeRef t = LLVMTypeOf(a);
  LLVMValueRef z = fconst(t, 0.0), one = fconst(t, 1.0);
  LLVMValueRef mod = fmod_(L, a, b);
  LLVMValueRef div = LLVMBuildFDiv(L->b, LLVMBuildFSub(L->b, a, mod, ""), b, "");
  LLVMValueRef nz = LLVMBuildFCmp(L->b, LLVMRealUNE, mod, z, "");
  LLVMValueRef bneg = LLVMBuildFCmp(L->b, LLVMRealOLT, b, z, "");
  LLVMValueRef mneg = LLVMBuildFCmp(L->b, LLVMRealOLT, mod, z, "");
  LLVMValueRef fix = LLVMBuildAnd(L->b, nz, LLVMBuildXor(L->b, bneg, mneg, ""), "");
  div = LLVMBuildSelect(L->b, fix, LLVMBuildFSub(L->b, div, one, ""), div, "");
  LLVMValueRef fl = ll_libdevice(L, "floor", &div, 1);
  LLVMValueRef up = LLVMBuildFCmp(L->b, LLVMRealOGT, LLVMBuildFSub(L->b, div, fl, ""), fconst(t, 0.5), "");
  fl = LLVMBuildSelect(L->b, up, LLVMBuildFAdd(L->b, fl, one, ""), fl, "");
  LLVMValueRef dnz = LLVMBuildFCmp(L->b, LLVMRealUNE, div, z, "");
  LLVMValueRef q = LLVMBuildFDiv(L->b, a, b, "");
  LLVMValueRef res = LLVMBuildSelect(L->b, dnz, fl, copysign_(L, z, q), "");
  LLVMValueRef bz = LLVMBuildFCmp(L->b, LLVMRealOEQ, b, z, "");
  return LLVMBuildSelect(L->b, bz, q, res, "");
}

/* Helper functions with a loop, emitted once per type: r = 1; while (e) { if (e & 1) r *= x; x *= x; e >>= 1 }. */
static LLVMValueRef power_helper(Lower *L, LLVMTypeRef bt, LLVMTypeRef et, bool is_float, bool signed_exp) {
  char name[64], s1[16], s2[16];
  snprintf(name, sizeof name, "__kf_%s_%s_%s%s", is_float ? "powi" : "ipow", type_suffix(L, bt, s1, sizeof s1),
           signed_exp ? "" : "u", type_suffix(L, et, s2, sizeof s2));
  LLVMValueRef fn = LLVMGetNamedFunction(L->mod, name);
  if (fn) return fn;
  LLVMTypeRef pts[2] = {bt, et};
  fn = LLVMAddFunction(L->mod, name, LLVMFunctionType(bt, pts, 2, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  add_fn_attr(L, fn, "alwaysinline");
  add_fn_attr(L, fn, "nounwind");
  LLVMSetValueName2(LLVMGetParam(fn, 0), "x", 1);
  LLVMSetValueName2(LLVMGetParam(fn, 1), "n", 1);
  LLVMBuilderRef saved = L->b;
  L->b = new_builder(L->ctx);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(L->ctx, fn, "entry");
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(L->ctx, fn, "loop");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, fn, "done");
  LLVMValueRef x0 = LLVMGetParam(fn, 0), n0 = LLVMGetParam(fn, 1);
  LLVMValueRef one = is_float ? fconst(bt, 1.0) : LLVMConstInt(bt, 1, 0);
  LLVMValueRef ez = LLVMConstNull(et);
  LLVMPositionBuilderAtEnd(L->b, entry);
  LLVMValueRef neg = signed_exp ? LLVMBuildICmp(L->b, LLVMIntSLT, n0, ez, "") : LLVMConstInt(L->t_i1, 0, 0);
  LLVMValueRef e0 = signed_exp && is_float ? LLVMBuildSelect(L->b, neg, LLVMBuildNeg(L->b, n0, ""), n0, "") : n0;
  LLVMValueRef start = LLVMBuildICmp(L->b, signed_exp && !is_float ? LLVMIntSGT : LLVMIntNE, e0, ez, "");
  LLVMBuildCondBr(L->b, start, loop, done);
  LLVMPositionBuilderAtEnd(L->b, loop);
  LLVMValueRef r = LLVMBuildPhi(L->b, bt, ""), x = LLVMBuildPhi(L->b, bt, ""), e = LLVMBuildPhi(L->b, et, "");
  LLVMValueRef odd = LLVMBuildICmp(L->b, LLVMIntNE, LLVMBuildAnd(L->b, e, LLVMConstInt(et, 1, 0), ""), ez, "");
  LLVMValueRef rx = is_float ? LLVMBuildFMul(L->b, r, x, "") : LLVMBuildMul(L->b, r, x, "");
  LLVMValueRef r2 = LLVMBuildSelect(L->b, odd, rx, r, "");
  LLVMValueRef x2 = is_float ? LLVMBuildFMul(L->b, x, x, "") : LLVMBuildMul(L->b, x, x, "");
  LLVMValueRef e2 = LLVMBuildLShr(L->b, e, LLVMConstInt(et, 1, 0), "");
  LLVMValueRef more = LLVMBuildICmp(L->b, LLVMIntNE, e2, ez, "");
  LLVMBuildCondBr(L->b, more, loop, done);
  add_incoming1(r, one, entry);
  add_incoming1(x, x0, entry);
  add_incoming1(e, e0, entry);
  add_incoming1(r, r2, loop);
  add_incoming1(x, x2, loop);
  add_incoming1(e, e2, loop);
  LLVMPositionBuilderAtEnd(L->b, done);
  LLVMValueRef res = LLVMBuildPhi(L->b, bt, "");
  add_incoming1(res, one, entry);
  add_incoming1(res, r2, loop);
  LLVMValueRef out = res;
  if (is_float && signed_exp) out = LLVMBuildSelect(L->b, neg, LLVMBuildFDiv(L->b, one, res, ""), res, "");
  else if (!is_float && signed_exp) {
    /* a negative exponent (sem_ipow): 1 for x 1, -1 or 1 for x -1 (n odd or even), the minimum for x 0, else 0 */
    LLVMValueRef one_x = LLVMBuildICmp(L->b, LLVMIntEQ, x0, one, "");
    LLVMValueRef minus_one_x = LLVMBuildICmp(L->b, LLVMIntEQ, x0, LLVMConstAllOnes(bt), "");
    LLVMValueRef zero_x = LLVMBuildICmp(L->b, LLVMIntEQ, x0, LLVMConstNull(bt), "");
    LLVMValueRef odd_n = LLVMBuildTrunc(L->b, n0, L->t_i1, "");
    LLVMValueRef sign_one = LLVMBuildSelect(L->b, odd_n, LLVMConstAllOnes(bt), one, "");
    LLVMValueRef min = LLVMConstShl(LLVMConstInt(bt, 1, 0), LLVMConstInt(bt, LLVMGetIntTypeWidth(bt) - 1, 0));
    LLVMValueRef negr = LLVMBuildSelect(L->b, zero_x, min, LLVMConstNull(bt), "");
    negr = LLVMBuildSelect(L->b, minus_one_x, sign_one, negr, "");
    negr = LLVMBuildSelect(L->b, one_x, one, negr, "");
    out = LLVMBuildSelect(L->b, neg, negr, res, "");
  }
  LLVMBuildRet(L->b, out);
  free_builder(L->b);
  L->b = saved;
  return fn;
}

/* x ** n for a constant n: the same multiplications the helper's loop does, unrolled (as Numba). */
static LLVMValueRef powi_const(Lower *L, LLVMValueRef x, int64_t n) {
  LLVMTypeRef t = LLVMTypeOf(x);
  uint64_t e = n < 0 ? (uint64_t)0 - (uint64_t)n : (uint64_t)n;
  LLVMValueRef r = NULL;
  while (e) {
    if (e & 1) r = r ? LLVMBuildFMul(L->b, r, x, "") : x;
    e >>= 1;
    if (e) x = LLVMBuildFMul(L->b, x, x, "");
  }
  if (!r) r = fconst(t, 1.0);
  return n < 0 ? LLVMBuildFDiv(L->b, fconst(t, 1.0), r, "") : r;
}

/* ---- floating +, -, * through libNVVM: never contracted -------------------------------------------------------
 *
 * kfront contracts x * y + z itself (passes/contract.c, the simulator's definition too); what is left must stay
 * as it is. libNVVM is run with its default -fma=1, as numba-cuda runs it, so that libdevice's functions compute
 * as NVIDIA compiles them; kfront's own additions, subtractions and products are therefore the .rn operations
 * (which neither libNVVM nor ptxas fuse): llvm.nvvm.{add,mul}.rn[.ftz].{f,d}, and for f16 the PTX instruction.
 * For f16 the instruction may also be numba-cuda's own form (cuda_fp16.h's __hadd, __hsub, __hmul: add.f16,
 * sub.f16, mul.f16, with no rounding modifier), which computes the same correctly rounded result but which ptxas
 * may fuse with a product or a sum that has no modifier either: kfront writes it where nothing in the module can
 * be fused with it (ll_scan_half_ops), the .rn form elsewhere.
 * LLVM's NVPTX (nvptx.c) contracts nothing: there they are plain fadd / fsub / fmul. */

/* Whether op multiplies binary16 values, as ptxas could fuse into an fma: a product or a power (powi's
 * products are LLVM fmuls of half). */
static bool half_product(const Op *op) {
  return (op->kind == OP_MULF || op->kind == OP_POWI) && op->nresults && ty_is_f16(op->results[0].type);
}

/* Whether op adds or subtracts binary16 values: +, - and the CAS loop of an f16 atomic add or sub. */
static bool half_sum(const Op *op) {
  if ((op->kind == OP_ADDF || op->kind == OP_SUBF) && op->nresults && ty_is_f16(op->results[0].type)) return true;
  if (op->kind != OP_ATOMIC_RMW || !op->noperands || !op_operand(op, 0)) return false;
  const Type *at = op_operand(op, 0)->type;
  IrAtomicKind k = ir_op_atomic_kind(op);
  return at->kind == TY_ARRAY && ty_is_f16(at->elem) && (k == IR_ATOMIC_ADD || k == IR_ATOMIC_SUB);
}

static bool note_half_op(Op *op, void *user) {
  bool *seen = user; /* [0]: a product, [1]: a sum, [2]: a function declared here, defined elsewhere */
  if (half_product(op)) seen[0] = true;
  if (half_sum(op)) seen[1] = true;
  if (op->kind == OP_FUNC_FUNC && !ir_func_entry(op)) seen[2] = true;
  return true;
}

/* Sets L->half_plain_add (no f16 product anywhere in the module) and L->half_plain_mul (no f16 sum), for the
 * module's f16 +, - and * to take numba-cuda's unmodified forms. A module declaring a function it does not
 * define (code linked in later, which ptxas sees beside kfront's) keeps the .rn forms. */
void ll_scan_half_ops(Lower *L) {
  bool seen[3] = {false, false, false};
  ir_walk_module(L->m, note_half_op, seen);
  L->half_plain_add = L->nvvm && !seen[0] && !seen[2];
  L->half_plain_mul = L->nvvm && !seen[1] && !seen[2];
}

static LLVMValueRef uncontracted_nvvm(Lower *L, OpKind kind, LLVMValueRef x, LLVMValueRef y) {
  LLVMTypeRef t = LLVMTypeOf(x);
  bool mul = kind == OP_MULF;
  if (kind == OP_SUBF && t != L->t_f16) y = fneg(L, y); /* x - y is x + (-y), exactly */
  LLVMValueRef args[2] = {x, y};
  if (t == L->t_f16) {
    bool plain = mul ? L->half_plain_mul : L->half_plain_add;
    const char *name = mul ? "mul" : kind == OP_ADDF ? "add" : "sub";
    char text[32];
    snprintf(text, sizeof text, "%s%s.f16 $0, $1, $2;", name, plain ? "" : ".rn");
    return inline_asm(L, t, text, "=h,h,h", false, args, 2);
  }
  char name[40];
  snprintf(name, sizeof name, "llvm.nvvm.%s.rn%s.%s", mul ? "mul" : "add",
           t == L->t_f32 && L->o->fastmath ? ".ftz" : "", t == L->t_f32 ? "f" : "d");
  return calln(L, name, t, args, 2);
}

/* ---- the fast forms of numba-cuda's fastmath, and the correctly rounded ops it must not touch -----------------
 *
 * An f32 op marked `fastmath` (the function's fastmath: frontend/lower_math.c) is numba-cuda's fast form:
 * libdevice's __nv_fast_fdividef for a division and __nv_fast_<f>f for sin, cos, tan, exp, log, log2, log10 and
 * pow (they read __CUDA_FTZ, the module's option: div.approx.ftz.f32 under a fastmath kernel, div.approx.f32
 * under another), tanh.approx.f32 for tanh on sm_75 and later. An f32 division or sqrt marked
 * `correctly_rounded` (canonicalize narrowed it from f64, where -prec-div=0 and -prec-sqrt=0 change nothing)
 * stays correctly rounded in a fastmath module: llvm.nvvm.{div,sqrt}.rn.ftz.f, the f64 op's result there. */
static bool fast_form(Lower *L, Op *op, LLVMValueRef x) {
  return LLVMTypeOf(x) == L->t_f32 && ir_op_attr(op, "fastmath");
}

static bool kept_correctly_rounded(Lower *L, Op *op, LLVMValueRef x) {
  return L->o->fastmath && LLVMTypeOf(x) == L->t_f32 && ir_op_attr(op, "correctly_rounded");
}

static LLVMValueRef divf(Lower *L, Op *op, LLVMValueRef x, LLVMValueRef y) {
  LLVMValueRef args[2] = {x, y};
  if (fast_form(L, op, x)) return calln(L, "__nv_fast_fdividef", L->t_f32, args, 2);
  if (kept_correctly_rounded(L, op, x)) return calln(L, "llvm.nvvm.div.rn.ftz.f", L->t_f32, args, 2);
  return LLVMBuildFDiv(L->b, x, y, "");
}

bool ll_lower_arith(Lower *L, Op *op) {
  LLVMBuilderRef b = L->b;
  Type *rty = op->nresults ? op->results[0].type : NULL;
  LLVMTypeRef rt = rty ? reg_type(L, rty) : NULL;
  LLVMValueRef x = NULL, y = NULL, r = NULL;
  int arity = ir_op_info[op->kind].noperands;
  if (arity >= 1 && !(x = operand(L, op, 0))) return false;
  if (arity >= 2 && !(y = operand(L, op, 1))) return false;
  switch (op->kind) {
  case OP_ADDI: r = LLVMBuildAdd(b, x, y, ""); break;
  case OP_SUBI: r = LLVMBuildSub(b, x, y, ""); break;
  case OP_MULI: r = LLVMBuildMul(b, x, y, ""); break;
  case OP_DIVSI:
  case OP_DIVUI:
  case OP_REMSI:
  case OP_REMUI: {
    LLVMValueRef zero, d = safe_divisor(L, y, &zero);
    r = op->kind == OP_DIVSI ? LLVMBuildSDiv(b, x, d, "") : op->kind == OP_DIVUI ? LLVMBuildUDiv(b, x, d, "")
      : op->kind == OP_REMSI ? LLVMBuildSRem(b, x, d, "") : LLVMBuildURem(b, x, d, "");
    r = zero_if(L, zero, r);
    break;
  }
  case OP_FLOORDIVSI: r = floordiv_mod_si(L, x, y, false); break;
  case OP_FLOORMODSI: r = floordiv_mod_si(L, x, y, true); break;
  case OP_MINSI: r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, y, x, ""), y, x, ""); break;
  case OP_MAXSI: r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, y, x, ""), y, x, ""); break;
  case OP_MINUI: r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, y, x, ""), y, x, ""); break;
  case OP_MAXUI: r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGT, y, x, ""), y, x, ""); break;
  case OP_IPOW: {
    Type *yty = op_operand(op, 1)->type;
    LLVMValueRef fn = power_helper(L, LLVMTypeOf(x), LLVMTypeOf(y), false, yty->kind == TY_INT && !yty->is_unsigned);
    LLVMValueRef args[2] = {x, y};
    r = call(L, fn, args, 2);
    break;
  }
  case OP_ABSI: {
    LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, x, LLVMConstNull(LLVMTypeOf(x)), "");
    r = LLVMBuildSelect(b, neg, LLVMBuildNeg(b, x, ""), x, "");
    break;
  }
  case OP_SHLI:
  case OP_SHRSI:
  case OP_SHRUI: {
    /* LLVM leaves shifts by >= the width undefined: clamp to what Python's would give */
    unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(x));
    LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGE, y, LLVMConstInt(LLVMTypeOf(y), w, 0), "");
    if (op->kind == OP_SHRSI) {
      LLVMValueRef amt = LLVMBuildSelect(b, big, LLVMConstInt(LLVMTypeOf(y), w - 1, 0), y, "");
      r = LLVMBuildAShr(b, x, amt, "");
    } else {
      LLVMValueRef s = op->kind == OP_SHLI ? LLVMBuildShl(b, x, y, "") : LLVMBuildLShr(b, x, y, "");
      r = LLVMBuildSelect(b, big, LLVMConstNull(LLVMTypeOf(x)), s, "");
    }
    break;
  }
  case OP_ANDI: r = LLVMBuildAnd(b, x, y, ""); break;
  case OP_ORI: r = LLVMBuildOr(b, x, y, ""); break;
  case OP_XORI: r = LLVMBuildXor(b, x, y, ""); break;
  case OP_POPC: r = intrinsic1(L, "ctpop", x); break;
  case OP_CLZ:
  case OP_FFS: {
    char nm[64], sfx[16];
    snprintf(nm, sizeof nm, "llvm.%s.%s", op->kind == OP_CLZ ? "ctlz" : "cttz",
             type_suffix(L, LLVMTypeOf(x), sfx, sizeof sfx));
    LLVMValueRef args[2] = {x, LLVMConstInt(L->t_i1, op->kind == OP_FFS, 0)};
    r = calln(L, nm, LLVMTypeOf(x), args, 2);
    if (op->kind == OP_FFS)
      r = LLVMBuildSelect(b, is_zero(L, x), LLVMConstNull(LLVMTypeOf(x)),
                          LLVMBuildAdd(b, r, LLVMConstInt(LLVMTypeOf(x), 1, 0), ""), "");
    break;
  }
  case OP_BREV: r = intrinsic1(L, "bitreverse", x); break;
  case OP_ADDF:
  case OP_SUBF:
  case OP_MULF: r = L->nvvm ? uncontracted_nvvm(L, op->kind, x, y) : op->kind == OP_ADDF ? LLVMBuildFAdd(b, x, y, "")
                                 : op->kind == OP_SUBF ? LLVMBuildFSub(b, x, y, "") : LLVMBuildFMul(b, x, y, "");
    break;
  case OP_DIVF: r = divf(L, op, x, y); break;
  case OP_REMF:
  case OP_FLOORDIVF:
  case OP_FLOORMODF: {
    /* f16 computes in f32 and rounds once (ir/op_semantics.h), not op by op in half */
    bool half = LLVMTypeOf(x) == L->t_f16;
    if (half) {
      x = LLVMBuildFPExt(b, x, L->t_f32, "");
      y = LLVMBuildFPExt(b, y, L->t_f32, "");
    }
    r = op->kind == OP_REMF ? fmod_(L, x, y) : op->kind == OP_FLOORDIVF ? floordiv_f(L, x, y) : floormod_f(L, x, y);
    if (half) r = LLVMBuildFPTrunc(b, r, L->t_f16, "");
    break;
  }
  case OP_MINF: r = minmax_f(L, x, y, false); break;
  case OP_MAXF: r = minmax_f(L, x, y, true); break;
  case OP_NEGF: r = fneg(L, x); break;
  case OP_CMPI: {
    IrCmpIPred p = ir_op_cmpi_pred(op);
    if (p == IR_CMPI_INVALID)
      return fail(L, op, "arith.cmpi with unknown pred '%s'",
                  ir_op_attr_str(op, "pred") ? ir_op_attr_str(op, "pred") : "");
    r = LLVMBuildICmp(b, icmp_pred(p), x, y, "");
    break;
  }
  case OP_CMPF: {
    IrCmpFPred p = ir_op_cmpf_pred(op);
    if (p == IR_CMPF_INVALID)
      return fail(L, op, "arith.cmpf with unknown pred '%s'",
                  ir_op_attr_str(op, "pred") ? ir_op_attr_str(op, "pred") : "");
    r = LLVMTypeOf(x) == L->t_f16 && !(LLVMIsConstant(x) && LLVMIsConstant(y)) ? half_compare(L, p, x, y)
                                                                              : LLVMBuildFCmp(b, fcmp_pred(p), x, y, "");
    break;
  }
  case OP_SELECT: {
    Value *tv = op_operand(op, 1), *fv = op_operand(op, 2);
    LLVMValueRef c = x;
    if (tv->type->kind == TY_ARRAY) {
      ArrVal *ta = get_arr(L, tv), *fa = get_arr(L, fv);
      if (!ta || !fa || ta->rank != fa->rank) return fail(L, op, "arith.select of unavailable arrays");
      ArrVal *a = new_arr(L, ta->rank);
      LLVMTypeRef et = mem_type(L, tv->type->elem);
      a->as = ta->as == fa->as ? ta->as : 0;
      a->data = LLVMBuildSelect(b, c, arr_data_in(L, ta, et, a->as), arr_data_in(L, fa, et, a->as), "");
      for (unsigned k = 0; k < a->rank; k++) {
        a->shape[k] = LLVMBuildSelect(b, c, ta->shape[k], fa->shape[k], "");
        a->stride[k] = LLVMBuildSelect(b, c, ta->stride[k], fa->stride[k], "");
      }
      set_arr(L, &op->results[0], a);
      return true;
    }
    LLVMValueRef t = operand(L, op, 1), f = operand(L, op, 2);
    if (!t || !f) return false;
    r = LLVMBuildSelect(b, c, t, f, "");
    break;
  }
  case OP_EXTSI: r = LLVMBuildSExt(b, x, rt, ""); break;
  case OP_EXTUI: r = LLVMBuildZExt(b, x, rt, ""); break;
  case OP_TRUNCI:
    r = rt == L->t_i1 ? LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, x, LLVMConstInt(LLVMTypeOf(x), 1, 0), ""),
                                      LLVMConstNull(LLVMTypeOf(x)), "")
                      : LLVMBuildTrunc(b, x, rt, "");
    break;
  case OP_SITOFP:
  case OP_UITOFP:
    if (rt == L->t_f16 && LLVMTypeOf(x) != L->t_i1 && !LLVMIsConstant(x)) r = int_to_half(L, x, op->kind == OP_SITOFP);
    else r = op->kind == OP_SITOFP ? LLVMBuildSIToFP(b, x, rt, "") : LLVMBuildUIToFP(b, x, rt, "");
    break;
  case OP_FPTOSI:
  case OP_FPTOUI:
    if (LLVMTypeOf(x) == L->t_f16 && !LLVMIsConstant(x) && LLVMGetIntTypeWidth(rt) >= 8) r = half_to_int(L, op, x, rt, op->kind == OP_FPTOSI);
    else r = fp_to_int(b, x, rt, op->kind == OP_FPTOSI);
    break;
  case OP_EXTF: r = LLVMBuildFPExt(b, x, rt, ""); break;
  case OP_TRUNCF: r = LLVMBuildFPTrunc(b, x, rt, ""); break;
  case OP_BITCAST: r = LLVMTypeOf(x) == rt ? x : LLVMBuildBitCast(b, x, rt, ""); break;
  default: return fail(L, op, "cannot lower '%s'", op_name(op));
  }
  set(L, &op->results[0], r);
  return true;
}

/* math.frexp_mant / frexp_exp: libdevice's frexp (f16 as f32), the exponent through a stack slot. */
bool ll_lower_frexp(Lower *L, Op *op) {
  LLVMValueRef x = operand(L, op, 0);
  if (!x) return false;
  bool half = LLVMTypeOf(x) == L->t_f16;
  if (half) x = LLVMBuildFPExt(L->b, x, L->t_f32, "");
  LLVMTypeRef ft = LLVMTypeOf(x);
  LLVMValueRef slot = ll_entry_alloca(L, L->t_i32);
  LLVMValueRef args[2] = {x, slot};
  LLVMValueRef m = calln(L, ft == L->t_f32 ? "__nv_frexpf" : "__nv_frexp", ft, args, 2);
  if (op->kind == OP_FREXP_EXP) {
    set(L, &op->results[0], LLVMBuildLoad2(L->b, L->t_i32, slot, ""));
  } else {
    set(L, &op->results[0], half ? LLVMBuildFPTrunc(L->b, m, L->t_f16, "") : m);
  }
  return true;
}

/* math.libdevice: a call of __nv_<name> with libdevice's own prototype; the values it stores through its pointer
 * parameters go to stack slots, result number `part` is the op's result. */
static LLVMTypeRef ld_type(Lower *L, char letter) {
  switch (letter) {
  case 'h': return L->t_i16;
  case 'i': return L->t_i32;
  case 'l': return L->t_i64;
  case 'f': return L->t_f32;
  case 'd': return L->t_f64;
  default: return L->t_void;
  }
}

bool ll_lower_libdevice(Lower *L, Op *op) {
  const char *name = ir_op_attr_str(op, "name");
  const LibdeviceFn *f = name && strncmp(name, "__nv_", 5) == 0 ? ir_libdevice_lookup(name + 5) : NULL;
  if (!f) return fail(L, op, "math.libdevice of an unknown function");
  LdShape sh;
  ir_libdevice_shape(f, &sh);
  unsigned part = (unsigned)ir_op_attr_int(op, "part", 0);
  LLVMValueRef args[LD_MAX_ARGS + LD_MAX_RESULTS], slots[LD_MAX_RESULTS];
  unsigned nslots = 0, ni = 0;
  for (unsigned i = 0; i < sh.nproto; i++) {
    char c = sh.proto[i];
    if (c >= 'A' && c <= 'Z') {
      args[i] = slots[nslots++] = ll_entry_alloca(L, ld_type(L, (char)(c - 'A' + 'a')));
    } else if (!(args[i] = operand(L, op, ni++))) {
      return false;
    }
  }
  /* LLVM 14's NVPTX selects round-to-nearest for libdevice's toward-zero integer-to-float conversions (the H200's
   * backend_gpu run): through the LLVM backend they are the PTX instruction itself */
  static const struct { const char *name, *text, *constraints; } rz[] = {
      {"__nv_int2float_rz", "cvt.rz.f32.s32 $0, $1;", "=f,r"}, {"__nv_uint2float_rz", "cvt.rz.f32.u32 $0, $1;", "=f,r"},
      {"__nv_ll2float_rz", "cvt.rz.f32.s64 $0, $1;", "=f,l"}, {"__nv_ull2float_rz", "cvt.rz.f32.u64 $0, $1;", "=f,l"},
      {"__nv_ll2double_rz", "cvt.rz.f64.s64 $0, $1;", "=d,l"}, {"__nv_ull2double_rz", "cvt.rz.f64.u64 $0, $1;", "=d,l"}};
  for (unsigned i = 0; !L->nvvm && i < sizeof rz / sizeof *rz; i++)
    if (strcmp(name, rz[i].name) == 0) {
      set(L, &op->results[0], inline_asm(L, ld_type(L, sh.ret), rz[i].text, rz[i].constraints, false, args, 1));
      return true;
    }
  LLVMValueRef r = calln(L, name, ld_type(L, sh.ret), args, sh.nproto);
  bool has_ret = sh.ret != 'v';
  if (has_ret && part == 0) {
    set(L, &op->results[0], r);
  } else {
    unsigned k = part - (has_ret ? 1 : 0);
    set(L, &op->results[0], LLVMBuildLoad2(L->b, ld_type(L, sh.results[part]), slots[k], ""));
  }
  return true;
}

bool ll_lower_math(Lower *L, Op *op) {
  LLVMValueRef x = operand(L, op, 0);
  if (!x) return false;
  LLVMValueRef r;
  switch (op->kind) {
  case OP_POWI: {
    LLVMValueRef n = operand(L, op, 1);
    if (!n) return false;
    if (LLVMIsAConstantInt(n) && LLVMConstIntGetSExtValue(n) >= -64 && LLVMConstIntGetSExtValue(n) <= 64) {
      r = powi_const(L, x, LLVMConstIntGetSExtValue(n));
    } else {
      Type *nty = op_operand(op, 1)->type;
      LLVMValueRef fn = power_helper(L, LLVMTypeOf(x), LLVMTypeOf(n), true, nty->kind == TY_INT && !nty->is_unsigned);
      LLVMValueRef args[2] = {x, n};
      r = call(L, fn, args, 2);
    }
    break;
  }
  case OP_ISNAN: r = LLVMBuildFCmp(L->b, LLVMRealUNO, x, x, ""); break;
  case OP_FABS: /* f16: PTX's abs.f16 (numba-cuda's __habs), not fabsf of the f32 */
    r = LLVMTypeOf(x) == L->t_f16 ? inline_asm(L, L->t_f16, "abs.f16 $0, $1;", "=h,h", false, &x, 1) : ll_libdevice(L, "fabs", &x, 1);
    break;
  case OP_ISINF:
  case OP_ISFINITE: {
    LLVMValueRef ax = ll_libdevice(L, "fabs", &x, 1);
    LLVMValueRef inf = LLVMConstReal(LLVMTypeOf(x), __builtin_inf());
    r = LLVMBuildFCmp(L->b, op->kind == OP_ISINF ? LLVMRealOEQ : LLVMRealOLT, ax, inf, "");
    break;
  }
  case OP_FMA: { /* f32, f64: libdevice's fma (fma.rn); f16 rounded once to binary16 (ir/op_semantics.c), not in f32 */
    LLVMValueRef args[3] = {x, operand(L, op, 1), operand(L, op, 2)};
    if (!args[1] || !args[2]) return false;
    r = LLVMTypeOf(x) == L->t_f16 ? inline_asm(L, L->t_f16, "fma.rn.f16 $0, $1, $2, $3;", "=h,h,h,h", false, args, 3)
                                  : ll_libdevice(L, "fma", args, 3);
    break;
  }
  default: {
    const char *name = ir_op_sem[op->kind].libdevice;
    if (!name) return fail(L, op, "cannot lower '%s'", op_name(op));
    LLVMValueRef args[3] = {x, NULL, NULL};
    unsigned n = op->noperands < 3 ? op->noperands : 3;
    for (unsigned i = 1; i < n; i++)
      if (!(args[i] = operand(L, op, i))) return false;
    char fast[32];
    if (op->kind == OP_SQRT && kept_correctly_rounded(L, op, x)) {
      r = calln(L, "llvm.nvvm.sqrt.rn.ftz.f", L->t_f32, args, 1);
    } else if (op->kind == OP_TANH && fast_form(L, op, x) && (L->o->arch ? L->o->arch : 90) >= 75) {
      r = inline_asm(L, L->t_f32, "tanh.approx.f32 $0, $1;", "=f,f", false, args, 1);
    } else if (op->kind != OP_TANH && fast_form(L, op, x)) {
      snprintf(fast, sizeof fast, "fast_%s", name);
      r = ll_libdevice(L, fast, args, n);
    } else {
      r = ll_libdevice(L, name, args, n);
    }
  }
  }
  LLVMTypeRef rt = reg_type(L, op->results[0].type);
  if (rt == L->t_i1 || LLVMTypeOf(r) == rt) set(L, &op->results[0], r);
  else set(L, &op->results[0], LLVMBuildZExt(L->b, r, rt, ""));
  return true;
}

/* ---- bfloat16, and conversions by a rounding mode -------------------------------------------------------------
 *
 * A bf16 is its 16 bits in an i16 (LLVM 14's NVPTX and libNVVM have no bfloat arithmetic to rely on). An op on
 * bf16 values computes as ir/op_semantics.h defines it: on the f32 of each bf16 operand, the op's own f32 lowering,
 * its f32 result rounded to bf16 (round_bits; sm_90's native add, sub and mul give the same bits); math.fma of bf16 rounds the exact result once; conversions to a
 * float by a rounding mode (attr round) and those to bf16 round through round_bits too. */

/* A bf16's bits as the f32 of the same value. */
static LLVMValueRef bf16_widen(Lower *L, LLVMValueRef h) {
  LLVMValueRef w = LLVMBuildShl(L->b, LLVMBuildZExt(L->b, h, L->t_i32, ""), LLVMConstInt(L->t_i32, 16, 0), "");
  return LLVMBuildBitCast(L->b, w, L->t_f32, "");
}

static LLVMValueRef c64(Lower *L, uint64_t v) { return LLVMConstInt(L->t_i64, v, 0); }

/* The bits (i32) of the f64 d rounded to format f by mode: sem_round_bits's steps (ir/op_semantics.c). */
static LLVMValueRef round_bits(Lower *L, LLVMValueRef d, SemFormat f, unsigned mode) {
  LLVMBuilderRef b = L->b;
  LLVMValueRef bits = LLVMBuildBitCast(b, d, L->t_i64, "");
  LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, bits, c64(L, 0), "");
  uint64_t inf = (((uint64_t)1 << f.ebits) - 1) << f.mbits;
  LLVMValueRef sign = LLVMBuildSelect(b, neg, c64(L, (uint64_t)1 << (f.ebits + f.mbits)), c64(L, 0), "");
  LLVMValueRef exp = LLVMBuildAnd(b, LLVMBuildLShr(b, bits, c64(L, 52), ""), c64(L, 0x7ff), "");
  LLVMValueRef mant = LLVMBuildAnd(b, bits, c64(L, ((uint64_t)1 << 52) - 1), "");
  LLVMValueRef exp0 = LLVMBuildICmp(b, LLVMIntEQ, exp, c64(L, 0), "");
  int64_t emin = 2 - ((int64_t)1 << (f.ebits - 1));
  LLVMValueRef sig = LLVMBuildOr(b, mant, LLVMBuildSelect(b, exp0, c64(L, 0), c64(L, (uint64_t)1 << 52), ""), "");
  LLVMValueRef e = LLVMBuildSelect(b, exp0, c64(L, (uint64_t)-1022), LLVMBuildSub(b, exp, c64(L, 1023), ""), "");
  LLVMValueRef te = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, e, c64(L, (uint64_t)emin), ""), e, c64(L, (uint64_t)emin), "");
  LLVMValueRef shift = LLVMBuildAdd(b, LLVMBuildSub(b, te, e, ""), c64(L, 52 - f.mbits), "");
  LLVMValueRef in_range = LLVMBuildICmp(b, LLVMIntULT, shift, c64(L, 64), "");
  LLVMValueRef sh = LLVMBuildSelect(b, in_range, shift, c64(L, 63), ""); /* no shift by 64 or more */
  LLVMValueRef low = LLVMBuildSub(b, LLVMBuildShl(b, c64(L, 1), sh, ""), c64(L, 1), "");
  LLVMValueRef half = LLVMBuildShl(b, c64(L, 1), LLVMBuildSub(b, sh, c64(L, 1), ""), "");
  LLVMValueRef rest = LLVMBuildAnd(b, sig, low, "");
  LLVMValueRef q = LLVMBuildSelect(b, in_range, LLVMBuildLShr(b, sig, sh, ""), c64(L, 0), "");
  LLVMValueRef f0 = LLVMConstInt(L->t_i1, 0, 0);
  LLVMValueRef above = LLVMBuildSelect(b, in_range, LLVMBuildICmp(b, LLVMIntUGT, rest, half, ""), f0, "");
  LLVMValueRef tie = LLVMBuildSelect(b, in_range, LLVMBuildICmp(b, LLVMIntEQ, rest, half, ""), f0, "");
  LLVMValueRef inexact = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildSelect(b, in_range, rest, sig, ""), c64(L, 0), "");
  LLVMValueRef up;
  if (mode == IR_ROUND_RN) {
    LLVMValueRef odd = LLVMBuildTrunc(b, q, L->t_i1, "");
    up = LLVMBuildOr(b, above, LLVMBuildAnd(b, tie, odd, ""), "");
  } else if (mode == IR_ROUND_RD) {
    up = LLVMBuildAnd(b, inexact, neg, "");
  } else if (mode == IR_ROUND_RU) {
    up = LLVMBuildAnd(b, inexact, LLVMBuildNot(b, neg, ""), "");
  } else {
    up = f0;
  }
  LLVMValueRef r = LLVMBuildShl(b, LLVMBuildSub(b, te, c64(L, (uint64_t)emin), ""), c64(L, f.mbits), "");
  r = LLVMBuildAdd(b, LLVMBuildAdd(b, r, q, ""), LLVMBuildZExt(b, up, L->t_i64, ""), "");
  LLVMValueRef over = LLVMBuildICmp(b, LLVMIntUGE, r, c64(L, inf), "");
  LLVMValueRef big = mode == IR_ROUND_RN ? c64(L, inf)
                     : mode == IR_ROUND_RZ ? c64(L, inf - 1)
                                      : LLVMBuildSelect(b, mode == IR_ROUND_RD ? neg : LLVMBuildNot(b, neg, ""), c64(L, inf), c64(L, inf - 1), "");
  r = LLVMBuildOr(b, LLVMBuildSelect(b, over, big, r, ""), sign, "");
  /* infinities and NaN */
  LLVMValueRef special = LLVMBuildICmp(b, LLVMIntEQ, exp, c64(L, 0x7ff), "");
  LLVMValueRef nan = LLVMBuildAnd(b, special, LLVMBuildICmp(b, LLVMIntNE, mant, c64(L, 0), ""), "");
  LLVMValueRef nan_bits = f.ebits == 5 ? LLVMBuildOr(b, sign, c64(L, inf | ((uint64_t)1 << (f.mbits - 1))), "")
                                       : c64(L, inf | (((uint64_t)1 << f.mbits) - 1));
  r = LLVMBuildSelect(b, special, LLVMBuildSelect(b, nan, nan_bits, LLVMBuildOr(b, sign, c64(L, inf), ""), ""), r, "");
  return LLVMBuildTrunc(b, r, L->t_i32, "");
}

/* An integer as an f64: exact below 2^53, else rounded to odd (sem_int_to_double). */
static LLVMValueRef int_to_double_odd(Lower *L, LLVMValueRef x, bool sgn) {
  LLVMBuilderRef b = L->b;
  LLVMValueRef w = LLVMGetIntTypeWidth(LLVMTypeOf(x)) == 64 ? x : sgn ? LLVMBuildSExt(b, x, L->t_i64, "") : LLVMBuildZExt(b, x, L->t_i64, "");
  LLVMValueRef neg = sgn ? LLVMBuildICmp(b, LLVMIntSLT, w, c64(L, 0), "") : LLVMConstInt(L->t_i1, 0, 0);
  LLVMValueRef m = sgn ? LLVMBuildSelect(b, neg, LLVMBuildNeg(b, w, ""), w, "") : w;
  LLVMValueRef odd = LLVMBuildOr(b, LLVMBuildLShr(b, m, c64(L, 11), ""),
                                 LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, m, c64(L, 0x7ff), ""), c64(L, 0), ""), L->t_i64, ""), "");
  LLVMValueRef big = LLVMBuildFMul(b, LLVMBuildUIToFP(b, odd, L->t_f64, ""), LLVMConstReal(L->t_f64, 2048.0), "");
  LLVMValueRef d = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGE, m, c64(L, (uint64_t)1 << 53), ""), big,
                                   LLVMBuildUIToFP(b, m, L->t_f64, ""), "");
  return sgn ? LLVMBuildSelect(b, neg, fneg(L, d), d, "") : d;
}

/* The f64 d (exact, or rounded to odd) as a value of float type t, rounded by mode. */
static LLVMValueRef round_to(Lower *L, LLVMValueRef d, const Type *t, unsigned mode) {
  if (t->bits == 64) return d;
  if (t->bits == 32) {
    if (mode == IR_ROUND_RN) return LLVMBuildFPTrunc(L->b, d, L->t_f32, "");
    return LLVMBuildBitCast(L->b, round_bits(L, d, SEM_FMT_F32, mode), L->t_f32, "");
  }
  LLVMValueRef h = LLVMBuildTrunc(L->b, round_bits(L, d, t->bfloat ? SEM_FMT_BF16 : SEM_FMT_F16, mode), L->t_i16, "");
  return t->bfloat ? h : LLVMBuildBitCast(L->b, h, L->t_f16, "");
}

/* A float value of kir type t (bf16 as its bits) as an f64, exactly. */
static LLVMValueRef float_to_double(Lower *L, LLVMValueRef x, const Type *t) {
  if (t->bfloat) x = bf16_widen(L, x);
  return t->bits == 64 ? x : LLVMBuildFPExt(L->b, x, L->t_f64, "");
}

/* math.fma of bf16 (f32 operands): a * b exact in f64, the sum rounded to odd (TwoSum's error), then to bf16. */
static LLVMValueRef bf16_fma(Lower *L, LLVMValueRef a, LLVMValueRef b_, LLVMValueRef c) {
  LLVMBuilderRef b = L->b;
  LLVMValueRef pa = LLVMBuildFPExt(b, a, L->t_f64, ""), pb = LLVMBuildFPExt(b, b_, L->t_f64, ""), pc = LLVMBuildFPExt(b, c, L->t_f64, "");
  LLVMValueRef p = LLVMBuildFMul(b, pa, pb, ""), s = LLVMBuildFAdd(b, p, pc, "");
  LLVMValueRef bb = LLVMBuildFSub(b, s, p, "");
  LLVMValueRef err = LLVMBuildFAdd(b, LLVMBuildFSub(b, p, LLVMBuildFSub(b, s, bb, ""), ""), LLVMBuildFSub(b, pc, bb, ""), "");
  LLVMValueRef zero = LLVMConstReal(L->t_f64, 0.0);
  LLVMValueRef u = LLVMBuildBitCast(b, s, L->t_i64, "");
  LLVMValueRef even = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, u, c64(L, 1), ""), c64(L, 0), "");
  /* s - s is 0 for a finite s, NaN otherwise */
  LLVMValueRef is_finite = LLVMBuildFCmp(b, LLVMRealOEQ, LLVMBuildFSub(b, s, s, ""), zero, "");
  LLVMValueRef adjust = LLVMBuildAnd(b, LLVMBuildAnd(b, is_finite, even, ""), LLVMBuildFCmp(b, LLVMRealONE, err, zero, ""), "");
  LLVMValueRef toward = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildFCmp(b, LLVMRealOGT, err, zero, ""), LLVMBuildFCmp(b, LLVMRealOGT, s, zero, ""), "");
  LLVMValueRef step = LLVMBuildSelect(b, toward, c64(L, 1), c64(L, (uint64_t)-1), "");
  u = LLVMBuildSelect(b, adjust, LLVMBuildAdd(b, u, step, ""), u, "");
  return LLVMBuildTrunc(b, round_bits(L, LLVMBuildBitCast(b, u, L->t_f64, ""), SEM_FMT_BF16, IR_ROUND_RN), L->t_i16, "");
}

/* Whether op is a scalar op lowered by ll_lower_bf16: one of ir_op_sem's with a bf16 operand or result (but select
 * and bitcast, which move the bits as they are), or a conversion by a rounding mode. */
bool ll_is_bf16_op(const Op *op) {
  if (!ir_op_sem[op->kind].eval || op->kind == OP_SELECT || op->kind == OP_BITCAST) return false;
  if (ir_op_attr(op, "round")) return true;
  for (unsigned i = 0; i < op->nresults; i++)
    if (ty_is_bf16(op->results[i].type)) return true;
  for (unsigned i = 0; i < op->noperands; i++)
    if (op_operand(op, i) && ty_is_bf16(op_operand(op, i)->type)) return true;
  return false;
}

bool ll_lower_bf16(Lower *L, Op *op) {
  Type *rt = op->results[0].type;
  SemSig sig;
  if (!sem_sig_of(op, &sig)) return fail(L, op, "cannot lower '%s' of these types", op_name(op));
  bool to_float = op->kind == OP_TRUNCF || op->kind == OP_SITOFP || op->kind == OP_UITOFP;
  if (to_float) {
    Value *v = op_operand(op, 0);
    LLVMValueRef x = operand(L, op, 0);
    if (!x) return false;
    LLVMValueRef d = op->kind == OP_TRUNCF ? float_to_double(L, x, v->type)
                     : v->type->kind == TY_BOOL ? LLVMBuildUIToFP(L->b, x, L->t_f64, "")
                                                : int_to_double_odd(L, x, op->kind == OP_SITOFP);
    set(L, &op->results[0], round_to(L, d, rt, (unsigned)sig.pred));
    return true;
  }
  /* the operands as f32 for the op's own lowering, then its bf16 results rounded */
  enum { MAXOPS = 3 };
  LLVMValueRef saved[MAXOPS] = {NULL, NULL, NULL}, wide[MAXOPS] = {NULL, NULL, NULL};
  unsigned n = op->noperands < MAXOPS ? op->noperands : MAXOPS;
  for (unsigned i = 0; i < n; i++) {
    Value *v = op_operand(op, i);
    if (!v || !ty_is_bf16(v->type)) continue;
    if (!(saved[i] = operand(L, op, i))) return false;
    wide[i] = bf16_widen(L, saved[i]);
  }
  if (op->kind == OP_FMA && ty_is_bf16(rt)) {
    set(L, &op->results[0], bf16_fma(L, wide[0], wide[1], wide[2]));
    return true;
  }
  /* sm_90's add, sub and mul of bf16 (add.rn.bf16 ...), with libNVVM and without fastmath (whose f32 ops flush
   * subnormals): the exact result rounded to nearest even once, which is what rounding the f32 result gives (f32's
   * 24 bits are at least twice bf16's 8 plus 2, so the double rounding is innocuous; the two share their exponent
   * range, subnormals too) */
  bool arith = op->kind == OP_ADDF || op->kind == OP_SUBF || op->kind == OP_MULF;
  if (arith && L->nvvm && L->o->arch >= 90 && !L->o->fastmath && !ir_op_attr(op, "fastmath") && ty_is_bf16(rt) &&
      saved[0] && saved[1]) {
    char text[32];
    snprintf(text, sizeof text, "%s.rn.bf16 $0, $1, $2;",
             op->kind == OP_ADDF ? "add" : op->kind == OP_SUBF ? "sub" : "mul");
    LLVMValueRef args[2] = {saved[0], saved[1]};
    set(L, &op->results[0], inline_asm(L, L->t_i16, text, "=h,h,h", false, args, 2));
    return true;
  }
  if (op->kind == OP_EXTF) { /* bf16 -> f32 exactly, f64 beyond */
    set(L, &op->results[0], rt->bits == 64 ? LLVMBuildFPExt(L->b, wide[0], L->t_f64, "") : wide[0]);
    return true;
  }
  for (unsigned i = 0; i < n; i++)
    if (wide[i]) slot(L, op_operand(op, i))->v = wide[i];
  L->bf16_as_f32 = true;
  bool ok = ll_lower_op_kind(L, op);
  L->bf16_as_f32 = false;
  for (unsigned i = n; i-- > 0;)
    if (saved[i]) slot(L, op_operand(op, i))->v = saved[i];
  if (!ok) return false;
  if (ty_is_bf16(rt)) {
    LLVMValueRef r = get(L, &op->results[0]);
    set(L, &op->results[0], LLVMBuildTrunc(L->b, round_bits(L, LLVMBuildFPExt(L->b, r, L->t_f64, ""), SEM_FMT_BF16, IR_ROUND_RN), L->t_i16, ""));
  }
  return true;
}
