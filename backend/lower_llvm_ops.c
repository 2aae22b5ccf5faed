/* lower_llvm_ops.c — the kir-to-LLVM lowering of one op (lower_llvm_internal.h): the dispatch on its kind, and
 * the ops of constants, bounds checks and raises, calls and returns, branches, warps (match, shuffle, vote),
 * the thread and block registers, barriers and fences, grid sync and printing. */
#include "backend/lower_llvm_internal.h"

/* ---- ops ------------------------------------------------------------------------------------- */

static LLVMValueRef convert_int(Lower *L, LLVMValueRef v, LLVMTypeRef to, bool is_signed) {
  unsigned a = LLVMGetIntTypeWidth(LLVMTypeOf(v)), b = LLVMGetIntTypeWidth(to);
  if (a == b) return v;
  if (a > b) return LLVMBuildTrunc(L->b, v, to, "");
  return is_signed ? LLVMBuildSExt(L->b, v, to, "") : LLVMBuildZExt(L->b, v, to, "");
}

static bool lower_constant(Lower *L, Op *op) {
  Attr *a = ir_op_attr(op, "value");
  Type *t = op->results[0].type;
  LLVMTypeRef rt = reg_type(L, t);
  if (!a || !rt) return fail(L, op, "arith.constant needs a scalar value attribute");
  if (t->kind == TY_FLOAT) {
    double f = a->kind == ATTR_FLOAT ? a->f : a->kind == ATTR_INT ? (double)a->i : a->kind == ATTR_BOOL ? a->b : 0;
    set(L, &op->results[0], t->bfloat ? LLVMConstInt(L->t_i16, sem_bf16_bits(f), 0) : LLVMConstReal(rt, f));
  } else if (t->kind == TY_BOOL || t->kind == TY_INT) {
    int64_t i = a->kind == ATTR_INT ? a->i : a->kind == ATTR_BOOL ? a->b : a->kind == ATTR_FLOAT ? (int64_t)a->f : 0;
    if (t->kind == TY_BOOL) i = i != 0;
    set(L, &op->results[0], LLVMConstInt(rt, (unsigned long long)i, 1));
  } else {
    return fail(L, op, "arith.constant of a non-scalar type");
  }
  return true;
}

static const char *dim_letter(const Op *op) {
  int64_t d = ir_op_attr_int(op, "dim", 0);
  return d == 1 ? "y" : d == 2 ? "z" : "x";
}

/* Result of an i32 special register converted to the op's result type. */
static void set_i32_result(Lower *L, Op *op, LLVMValueRef v) {
  LLVMTypeRef rt = reg_type(L, op->results[0].type);
  if (rt && rt != L->t_i32 && LLVMGetTypeKind(rt) == LLVMIntegerTypeKind) v = convert_int(L, v, rt, false);
  set(L, &op->results[0], v);
}

/* gpu.match: PTX match.any.sync / match.all.sync on the value's bits (a float bitcast to the integer of its
 * width). A 32-bit value goes through the intrinsics llvm.nvvm.match.any.sync.i32 and match.all.sync.i32p,
 * which both backends know; a 64-bit one through inline PTX, as no declaration of the .i64 intrinsics suits
 * both: LLVM 14 types their mask result i64 (and its NVPTX then prints a 64-bit destination ptxas refuses),
 * libNVVM i32. */
static bool lower_match(Lower *L, Op *op) {
  LLVMValueRef mask = operand(L, op, 0), val = operand(L, op, 1);
  if (!mask || !val) return false;
  IrMatchMode mode = ir_op_match_mode(op);
  if (mode == IR_MATCH_INVALID)
    return fail(L, op, "gpu.match with unknown mode '%s'", ir_op_attr_str(op, "mode") ? ir_op_attr_str(op, "mode") : "");
  bool all = mode == IR_MATCH_ALL;
  LLVMTypeRef vt = LLVMTypeOf(val);
  bool wide = vt == L->t_f64 || (vt != L->t_f32 && LLVMGetIntTypeWidth(vt) == 64);
  LLVMTypeRef it = wide ? L->t_i64 : L->t_i32;
  if (vt != it) val = LLVMBuildBitCast(L->b, val, it, "");
  mask = convert_int(L, mask, L->t_i32, false);
  LLVMValueRef m, p = NULL;
  if (!wide) {
    LLVMValueRef args[2] = {mask, val};
    if (!all) {
      m = calln(L, "llvm.nvvm.match.any.sync.i32", L->t_i32, args, 2);
    } else {
      LLVMTypeRef fields[2] = {L->t_i32, L->t_i1};
      LLVMValueRef r = calln(L, "llvm.nvvm.match.all.sync.i32p", LLVMStructTypeInContext(L->ctx, fields, 2, 0), args, 2);
      m = LLVMBuildExtractValue(L->b, r, 0, "");
      p = LLVMBuildExtractValue(L->b, r, 1, "");
    }
  } else {
    LLVMValueRef args[2] = {val, mask};
    if (!all) {
      m = inline_asm(L, L->t_i32, "match.any.sync.b64 $0, $1, $2;", "=r,l,r", true, args, 2);
    } else {
      LLVMTypeRef fields[2] = {L->t_i32, L->t_i32};
      LLVMValueRef r = inline_asm(L, LLVMStructTypeInContext(L->ctx, fields, 2, 0),
                                  "{\n\t.reg .pred %p;\n\tmatch.all.sync.b64 $0|%p, $2, $3;\n\tselp.u32 $1, 1, 0, %p;\n\t}",
                                  "=r,=r,l,r", true, args, 2);
      m = LLVMBuildExtractValue(L->b, r, 0, "");
      p = LLVMBuildICmp(L->b, LLVMIntNE, LLVMBuildExtractValue(L->b, r, 1, ""), LLVMConstInt(L->t_i32, 0, 0), "");
    }
  }
  set_i32_result(L, op, m);
  if (all) {
    LLVMTypeRef pt = reg_type(L, op->results[1].type);
    set(L, &op->results[1], pt != L->t_i1 ? LLVMBuildZExt(L->b, p, pt, "") : p);
  }
  return true;
}

static bool lower_shfl(Lower *L, Op *op) {
  LLVMValueRef mask = operand(L, op, 0), val = operand(L, op, 1), lane = operand(L, op, 2), width = operand(L, op, 3);
  if (!mask || !val || !lane || !width) return false;
  /* NVVM's names of the modes; no attribute: idx */
  static const char *const nvvm_mode[] = {[IR_SHUFFLE_IDX] = "idx", [IR_SHUFFLE_UP] = "up", [IR_SHUFFLE_DOWN] = "down",
                                          [IR_SHUFFLE_XOR] = "bfly"};
  IrShuffleMode mode = ir_op_attr_str(op, "mode") ? ir_op_shuffle_mode(op) : IR_SHUFFLE_IDX;
  if (mode == IR_SHUFFLE_INVALID) return fail(L, op, "gpu.shfl with unknown mode '%s'", ir_op_attr_str(op, "mode"));
  const char *m = nvvm_mode[mode];
  mask = convert_int(L, mask, L->t_i32, false);
  lane = convert_int(L, lane, L->t_i32, false);
  width = convert_int(L, width, L->t_i32, false);
  /* c = ((32 - width) << 8) | clamp, clamp 0 for up, 31 otherwise (as CUDA's __shfl_*_sync) */
  LLVMValueRef c = LLVMBuildShl(L->b, LLVMBuildSub(L->b, ci32(L, 32), width, ""), ci32(L, 8), "");
  if (mode != IR_SHUFFLE_UP) c = LLVMBuildOr(L->b, c, ci32(L, 31), "");
  char iname[64], fname[64];
  snprintf(iname, sizeof iname, "llvm.nvvm.shfl.sync.%s.i32", m);
  snprintf(fname, sizeof fname, "llvm.nvvm.shfl.sync.%s.f32", m);
  LLVMTypeRef t = LLVMTypeOf(val);
  LLVMValueRef res;
  if (t == L->t_f32) {
    LLVMValueRef args[4] = {mask, val, lane, c};
    res = calln(L, fname, L->t_f32, args, 4);
  } else {
    unsigned bits = t == L->t_f16 ? 16 : t == L->t_f64 ? 64 : LLVMGetIntTypeWidth(t);
    LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, bits);
    LLVMValueRef iv = LLVMTypeOf(val) == it ? val : LLVMBuildBitCast(L->b, val, it, "");
    if (bits == 64) {
      LLVMValueRef lo = LLVMBuildTrunc(L->b, iv, L->t_i32, "");
      LLVMValueRef hi = LLVMBuildTrunc(L->b, LLVMBuildLShr(L->b, iv, ci64(L, 32), ""), L->t_i32, "");
      LLVMValueRef a1[4] = {mask, lo, lane, c}, a2[4] = {mask, hi, lane, c};
      lo = calln(L, iname, L->t_i32, a1, 4);
      hi = calln(L, iname, L->t_i32, a2, 4);
      iv = LLVMBuildOr(L->b, LLVMBuildZExt(L->b, lo, L->t_i64, ""),
                       LLVMBuildShl(L->b, LLVMBuildZExt(L->b, hi, L->t_i64, ""), ci64(L, 32), ""), "");
    } else {
      LLVMValueRef w = bits == 32 ? iv : LLVMBuildZExt(L->b, iv, L->t_i32, "");
      LLVMValueRef args[4] = {mask, w, lane, c};
      w = calln(L, iname, L->t_i32, args, 4);
      iv = bits == 32 ? w : LLVMBuildTrunc(L->b, w, it, "");
    }
    res = it == t ? iv : LLVMBuildBitCast(L->b, iv, t, "");
  }
  set(L, &op->results[0], res);
  return true;
}

static bool lower_check_bounds(Lower *L, Op *op) {
  LLVMValueRef idx = operand(L, op, 0), ext = operand(L, op, 1);
  if (!idx || !ext) return false;
  idx = convert_int(L, idx, L->t_i64, true);
  ext = convert_int(L, ext, L->t_i64, true);
  LLVMValueRef ok = LLVMBuildICmp(L->b, LLVMIntULT, idx, ext, "");
  LLVMBasicBlockRef here = LLVMGetInsertBlock(L->b);
  LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(L->ctx, L->fi->fn, "");
  LLVMBasicBlockRef bad = ll_oob_block(L);
  LLVMValueRef br = LLVMBuildCondBr(L->b, ok, cont, bad);
  /* the failure path is cold */
  LLVMValueRef w[3] = {LLVMMDStringInContext(L->ctx, "branch_weights", 14), ci32(L, 2000), ci32(L, 1)};
  LLVMSetMetadata(br, LLVMGetMDKindIDInContext(L->ctx, "prof", 4), LLVMMDNodeInContext(L->ctx, w, 3));
  LLVMValueRef in[7] = {ci32(L, (int32_t)ll_file_id(L, op->loc.file)), ci32(L, op->loc.line), ci32(L, op->loc.col),
                        ci32(L, ir_op_attr_int(op, "axis", 0)), idx, ext, ci32(L, KF_ERROR_BOUNDS)};
  for (unsigned i = 0; i < 7; i++) LLVMAddIncoming(L->fi->oob_phi[i], &in[i], &here, 1);
  LLVMPositionBuilderAtEnd(L->b, cont);
  return true;
}

/* x | y << s1 | z << s2 over the zero-extended special registers sreg.{x,y,z} (kf_error_pack_thread/block). */
static LLVMValueRef packed_sregs(Lower *L, const char *reg, unsigned s1, unsigned s2) {
  LLVMValueRef v[3];
  for (unsigned d = 0; d < 3; d++) {
    char name[64];
    snprintf(name, sizeof name, "llvm.nvvm.read.ptx.sreg.%s.%c", reg, "xyz"[d]);
    v[d] = LLVMBuildZExt(L->b, call0(L, name, L->t_i32), L->t_i64, "");
  }
  LLVMValueRef r = LLVMBuildOr(L->b, v[0], LLVMBuildShl(L->b, v[1], ci64(L, s1), ""), "");
  return LLVMBuildOr(L->b, r, LLVMBuildShl(L->b, v[2], ci64(L, s2), ""), "");
}

/* check.raise: (when its condition holds) a cold block that reads the thread's position and joins the
 * failure block with the exception's id, or, silent, ends the thread. The code after an unconditional raise
 * is unreachable; it is lowered into a block of its own that nothing enters. */
static bool lower_check_raise(Lower *L, Op *op) {
  LLVMValueRef cond = op->noperands ? operand(L, op, 0) : NULL;
  if (op->noperands && !cond) return false;
  const char *exc = ir_op_attr_str(op, "exception");
  if (!exc) return fail(L, op, "check.raise without an exception");
  bool silent = ir_op_attr(op, "silent") != NULL;
  LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(L->ctx, L->fi->fn, "");
  LLVMBasicBlockRef site = silent ? ll_quit_block(L) : LLVMAppendBasicBlockInContext(L->ctx, L->fi->fn, "raise");
  if (cond) {
    LLVMValueRef br = LLVMBuildCondBr(L->b, cond, site, cont);
    LLVMValueRef w[3] = {LLVMMDStringInContext(L->ctx, "branch_weights", 14), ci32(L, 1), ci32(L, 2000)};
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(L->ctx, "prof", 4), LLVMMDNodeInContext(L->ctx, w, 3));
  } else {
    LLVMBuildBr(L->b, site);
  }
  if (!silent) {
    LLVMBasicBlockRef bad = ll_oob_block(L);
    LLVMPositionBuilderAtEnd(L->b, site);
    LLVMValueRef in[7] = {ci32(L, (int32_t)ll_file_id(L, op->loc.file)), ci32(L, op->loc.line), ci32(L, op->loc.col),
                          ci32(L, (int32_t)ll_exception_id(L, exc)), packed_sregs(L, "tid", 21, 42),
                          packed_sregs(L, "ctaid", 32, 48), ci32(L, KF_ERROR_RAISE)};
    LLVMBuildBr(L->b, bad);
    for (unsigned i = 0; i < 7; i++) LLVMAddIncoming(L->fi->oob_phi[i], &in[i], &site, 1);
  }
  LLVMPositionBuilderAtEnd(L->b, cont);
  return true;
}

static bool lower_call(Lower *L, Op *op) {
  const char *callee = ir_op_attr_str(op, "callee");
  FuncInfo *fi = callee ? strmap_get(&L->funcs, callee) : NULL;
  if (!fi) return fail(L, op, "func.call of unknown function '%s'", callee ? callee : "?");
  if (fi->kernel) return fail(L, op, "func.call of kernel '%s' (kernels cannot be called)", callee);
  unsigned np = LLVMCountParamTypes(fi->fnty);
  LLVMValueRef *args = ARENA_ARRAY(&L->arena, LLVMValueRef, np ? np : 1);
  LLVMTypeRef *pts = ARENA_ARRAY(&L->arena, LLVMTypeRef, np ? np : 1);
  LLVMGetParamTypes(fi->fnty, pts);
  unsigned k = 0;
  for (unsigned i = 0; i < op->noperands; i++) {
    Value *v = op_operand(op, i);
    unsigned need = abi_param_count(v->type);
    if (k + need > np) return fail(L, op, "func.call of '%s' with too many arguments", callee);
    if (v->type->kind == TY_ARRAY) {
      ArrVal *a = get_arr(L, v);
      if (!a) return fail(L, op, "array argument of '%s' is not available", callee);
      args[k++] = arr_data_in(L, a, mem_type(L, v->type->elem), 0);
      for (unsigned d = 0; d < a->rank; d++) args[k++] = a->shape[d];
      for (unsigned d = 0; d < a->rank; d++) args[k++] = a->stride[d];
    } else {
      LLVMValueRef x = get(L, v);
      if (!x) return fail(L, op, "argument of '%s' is not available", callee);
      args[k++] = x;
    }
  }
  if (k != np) return fail(L, op, "func.call of '%s' with the wrong number of arguments", callee);
  for (unsigned i = 0; i < np; i++)
    if (LLVMTypeOf(args[i]) != pts[i])
      return fail(L, op, "func.call of '%s' with arguments of the wrong types", callee);
  LLVMValueRef r = LLVMBuildCall2(L->b, fi->fnty, fi->fn, args, np, "");
  if (op->nresults == 1 && op->results[0].type->kind != TY_ARRAY) {
    set(L, &op->results[0], r);
    return true;
  }
  /* the flattened struct ll_declare_function made: an array is its data pointer, shape and strides */
  unsigned k2 = 0;
  for (unsigned i = 0; i < op->nresults; i++) {
    Type *t = op->results[i].type;
    if (t->kind != TY_ARRAY) {
      set(L, &op->results[i], LLVMBuildExtractValue(L->b, r, k2++, ""));
      continue;
    }
    ArrVal *a = new_arr(L, t->rank);
    a->data = LLVMBuildExtractValue(L->b, r, k2++, "");
    a->as = 0;
    for (unsigned d = 0; d < t->rank; d++) a->shape[d] = LLVMBuildExtractValue(L->b, r, k2++, "");
    for (unsigned d = 0; d < t->rank; d++) a->stride[d] = LLVMBuildExtractValue(L->b, r, k2++, "");
    known_element_stride(L, a, t);
    set_arr(L, &op->results[i], a);
  }
  return true;
}

static bool lower_return(Lower *L, Op *op) {
  if (L->fi->kernel || op->noperands == 0) {
    LLVMBuildRetVoid(L->b);
    return true;
  }
  if (op->noperands == 1 && op_operand(op, 0)->type->kind != TY_ARRAY) {
    LLVMValueRef v = operand(L, op, 0);
    if (!v) return false;
    LLVMBuildRet(L->b, v);
    return true;
  }
  LLVMValueRef agg = LLVMGetUndef(LLVMGetReturnType(L->fi->fnty));
  unsigned k = 0;
  for (unsigned i = 0; i < op->noperands; i++) {
    Value *x = op_operand(op, i);
    if (x->type->kind == TY_ARRAY) { /* flattened as ll_declare_function's result struct */
      ArrVal *a = get_arr(L, x);
      if (!a) return fail(L, op, "returned array is not available");
      agg = LLVMBuildInsertValue(L->b, agg, arr_data_in(L, a, mem_type(L, x->type->elem), 0), k++, "");
      for (unsigned d = 0; d < a->rank; d++) agg = LLVMBuildInsertValue(L->b, agg, a->shape[d], k++, "");
      for (unsigned d = 0; d < a->rank; d++) agg = LLVMBuildInsertValue(L->b, agg, a->stride[d], k++, "");
      continue;
    }
    LLVMValueRef v = operand(L, op, i);
    if (!v) return false;
    agg = LLVMBuildInsertValue(L->b, agg, v, k++, "");
  }
  LLVMBuildRet(L->b, agg);
  return true;
}

static Value **operand_values(Lower *L, const Op *op, unsigned from, unsigned n) {
  Value **vs = ARENA_ARRAY(&L->arena, Value *, n ? n : 1);
  for (unsigned i = 0; i < n; i++) vs[i] = op_operand(op, from + i);
  return vs;
}

static bool lower_br(Lower *L, Op *op) {
  if (op->nsuccessors != 1) return fail(L, op, "malformed cf.br");
  Target *t = ll_block_target(L, op->successors[0]);
  if (!t) return fail(L, op, "cf.br to a block outside the function");
  unsigned start = op_succ_operand_start(op, 0);
  ll_jump(L, t, operand_values(L, op, start, op->succ_operand_count[0]), op->succ_operand_count[0], op);
  return true;
}

static bool lower_cond_br(Lower *L, Op *op) {
  if (op->nsuccessors != 2) return fail(L, op, "malformed cf.cond_br");
  LLVMValueRef c = operand(L, op, 0);
  if (!c) return false;
  Target *t0 = ll_block_target(L, op->successors[0]), *t1 = ll_block_target(L, op->successors[1]);
  if (!t0 || !t1) return fail(L, op, "cf.cond_br to a block outside the function");
  unsigned s0 = op_succ_operand_start(op, 0), s1 = op_succ_operand_start(op, 1);
  Value **v0 = operand_values(L, op, s0, op->succ_operand_count[0]);
  Value **v1 = operand_values(L, op, s1, op->succ_operand_count[1]);
  LLVMBasicBlockRef bb1 = t1->bb;
  if (t0 == t1 && t0->n) {
    /* two edges to one block with (maybe) different values: split the false edge */
    LLVMBasicBlockRef cur = LLVMGetInsertBlock(L->b);
    bb1 = LLVMAppendBasicBlockInContext(L->ctx, L->fi->fn, "");
    LLVMPositionBuilderAtEnd(L->b, bb1);
    ll_jump(L, t1, v1, op->succ_operand_count[1], op);
    LLVMPositionBuilderAtEnd(L->b, cur);
  } else {
    ll_add_incoming(L, t1, v1, op->succ_operand_count[1], op);
  }
  ll_add_incoming(L, t0, v0, op->succ_operand_count[0], op);
  LLVMBuildCondBr(L->b, c, t0->bb, bb1);
  return true;
}

/* A NUL-terminated constant string in constant memory (one per text, as numba-cuda places its format strings:
 * the kernel's const_mem_size counts them), as a generic i8*. */
static LLVMValueRef string_const(Lower *L, const char *text) {
  LLVMValueRef gv = strmap_get(&L->print_strings, text);
  if (!gv) {
    LLVMValueRef init = LLVMConstStringInContext(L->ctx, text, (unsigned)strlen(text), 0);
    char name[32];
    snprintf(name, sizeof name, "__kf_str%u", (unsigned)L->print_strings.count);
    gv = LLVMAddGlobalInAddressSpace(L->mod, LLVMTypeOf(init), name, ADDR_CONST);
    LLVMSetInitializer(gv, init);
    LLVMSetGlobalConstant(gv, 1);
    LLVMSetLinkage(gv, LLVMInternalLinkage);
    LLVMSetAlignment(gv, 1);
    strmap_put(&L->print_strings, arena_strdup(&L->arena, text), gv);
  }
  LLVMValueRef z[2] = {ci64(L, 0), ci64(L, 0)};
  LLVMValueRef p = LLVMConstInBoundsGEP2(LLVMGlobalGetValueType(gv), gv, z, 2);
  return LLVMConstAddrSpaceCast(p, LLVMPointerType(L->t_i8, 0));
}

/* gpu.print: vprintf(format, a buffer of the operands at their natural alignments, an i1 as the address of
 * "True" or "False"), as CUDA C's printf compiles (the driver prints the buffer's lines at synchronisation). */
static bool lower_print(Lower *L, Op *op) {
  const char *fmt = ir_op_attr_str(op, "format");
  if (!fmt) return fail(L, op, "gpu.print without a format");
  unsigned n = op->noperands;
  LLVMTypeRef *ts = ARENA_ARRAY(&L->arena, LLVMTypeRef, n ? n : 1);
  LLVMValueRef *vs = ARENA_ARRAY(&L->arena, LLVMValueRef, n ? n : 1);
  for (unsigned i = 0; i < n; i++) {
    if (!(vs[i] = operand(L, op, i))) return false;
    if (op_operand(op, i)->type->kind == TY_BOOL)
      vs[i] = LLVMBuildSelect(L->b, vs[i], string_const(L, "True"), string_const(L, "False"), "");
    ts[i] = LLVMTypeOf(vs[i]);
  }
  LLVMTypeRef i8p = LLVMPointerType(L->t_i8, 0);
  LLVMValueRef buf = LLVMConstNull(i8p);
  if (n) {
    LLVMTypeRef st = LLVMStructTypeInContext(L->ctx, ts, n, 0);
    LLVMValueRef mem = ll_entry_alloca(L, st);
    for (unsigned i = 0; i < n; i++) LLVMBuildStore(L->b, vs[i], LLVMBuildStructGEP2(L->b, st, mem, i, ""));
    buf = LLVMBuildBitCast(L->b, mem, i8p, "");
  }
  LLVMTypeRef params[2] = {i8p, i8p};
  LLVMValueRef vprintf = declare(L, "vprintf", L->t_i32, params, 2);
  LLVMValueRef args[2] = {string_const(L, fmt), buf};
  LLVMBuildCall2(L->b, LLVMFunctionType(L->t_i32, params, 2, 0), vprintf, args, 2, "");
  return true;
}

/* gpu.grid_sync, as CUDA's cooperative groups implement grid.sync() in their headers (no cudadevrt, so nothing
 * to link: kfront hands PTX text to the driver): a block barrier; then thread 0 of each block adds to the
 * barrier word of the grid workspace the driver gives a cooperative launch (its address in %envreg2 (low
 * half) and %envreg1 (high half); the word follows the workspace's 32-bit size), block 0 adding
 * 0x80000000 - (blocks - 1) and the others 1, so that the word's top bit flips when the last block arrives;
 * it spins until the bit differs from the one it saw, with device-scope fences before the add and after the
 * spin; then a block barrier again. The runtime launches such kernels with cuLaunchCooperativeKernel (which
 * refuses a grid that is not resident at once) after checking the grid fits (runtime/launch.c).
 * A failed bounds check or a raise ends its thread, and a block whose threads all ended never arrives: so the
 * spin also stops once the error record's flag is set, and after the barrier every thread ends if it is (the
 * kernel stops at its next grid barrier once an error is recorded, as on the simulator) instead of hanging. */
static bool lower_grid_sync(Lower *L) {
  LLVMValueRef fn = L->fi->fn;
  call0(L, "llvm.nvvm.barrier0", L->t_void);
  LLVMValueRef t = LLVMBuildOr(L->b, call0(L, "llvm.nvvm.read.ptx.sreg.tid.x", L->t_i32),
                               LLVMBuildOr(L->b, call0(L, "llvm.nvvm.read.ptx.sreg.tid.y", L->t_i32),
                                           call0(L, "llvm.nvvm.read.ptx.sreg.tid.z", L->t_i32), ""), "");
  LLVMBasicBlockRef arrive = LLVMAppendBasicBlockInContext(L->ctx, fn, "gridsync.arrive");
  LLVMBasicBlockRef spin = LLVMAppendBasicBlockInContext(L->ctx, fn, "gridsync.spin");
  LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(L->ctx, fn, "gridsync.out");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, fn, "gridsync.done");
  LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, t, ci32(L, 0), ""), arrive, done);
  LLVMPositionBuilderAtEnd(L->b, arrive);
  LLVMValueRef lo = inline_asm(L, L->t_i32, "mov.u32 $0, %envreg2;", "=r", true, NULL, 0);
  LLVMValueRef hi = inline_asm(L, L->t_i32, "mov.u32 $0, %envreg1;", "=r", true, NULL, 0);
  LLVMValueRef ws = LLVMBuildOr(L->b, LLVMBuildShl(L->b, LLVMBuildZExt(L->b, hi, L->t_i64, ""), ci64(L, 32), ""),
                                LLVMBuildZExt(L->b, lo, L->t_i64, ""), "");
  LLVMValueRef word = LLVMBuildIntToPtr(L->b, LLVMBuildAdd(L->b, ws, ci64(L, 4), ""), LLVMPointerType(L->t_i32, 0), "");
  LLVMValueRef b = LLVMBuildOr(L->b, call0(L, "llvm.nvvm.read.ptx.sreg.ctaid.x", L->t_i32),
                               LLVMBuildOr(L->b, call0(L, "llvm.nvvm.read.ptx.sreg.ctaid.y", L->t_i32),
                                           call0(L, "llvm.nvvm.read.ptx.sreg.ctaid.z", L->t_i32), ""), "");
  LLVMValueRef blocks = LLVMBuildMul(L->b, call0(L, "llvm.nvvm.read.ptx.sreg.nctaid.x", L->t_i32),
                                     LLVMBuildMul(L->b, call0(L, "llvm.nvvm.read.ptx.sreg.nctaid.y", L->t_i32),
                                                  call0(L, "llvm.nvvm.read.ptx.sreg.nctaid.z", L->t_i32), ""), "");
  LLVMValueRef first = LLVMBuildSub(L->b, ci32(L, (int64_t)0x80000000u), LLVMBuildSub(L->b, blocks, ci32(L, 1), ""), "");
  LLVMValueRef add = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, b, ci32(L, 0), ""), first, ci32(L, 1), "");
  call0(L, "llvm.nvvm.membar.gl", L->t_void);
  LLVMValueRef old = LLVMBuildAtomicRMW(L->b, LLVMAtomicRMWBinOpAdd, word, add, LLVMAtomicOrderingMonotonic, 0);
  LLVMBuildBr(L->b, spin);
  LLVMPositionBuilderAtEnd(L->b, spin);
  LLVMValueRef cur = LLVMBuildLoad2(L->b, L->t_i32, word, "");
  LLVMSetVolatile(cur, 1);
  LLVMSetAlignment(cur, 4);
  LLVMValueRef same = LLVMBuildICmp(L->b, LLVMIntEQ,
                                    LLVMBuildAnd(L->b, LLVMBuildXor(L->b, old, cur, ""), ci32(L, (int64_t)0x80000000u), ""),
                                    ci32(L, 0), "");
  LLVMValueRef wait = LLVMBuildAnd(L->b, same, LLVMBuildICmp(L->b, LLVMIntEQ, ll_error_flag(L), ci32(L, 0), ""), "");
  LLVMBuildCondBr(L->b, wait, spin, out);
  LLVMPositionBuilderAtEnd(L->b, out);
  call0(L, "llvm.nvvm.membar.gl", L->t_void);
  LLVMBuildBr(L->b, done);
  LLVMPositionBuilderAtEnd(L->b, done);
  call0(L, "llvm.nvvm.barrier0", L->t_void);
  LLVMBasicBlockRef go_on = LLVMAppendBasicBlockInContext(L->ctx, fn, "gridsync.next");
  LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, ll_error_flag(L), ci32(L, 0), ""), go_on, ll_quit_block(L));
  LLVMPositionBuilderAtEnd(L->b, go_on);
  return true;
}

static bool lower_gpu_op(Lower *L, Op *op) {
  char name[96];
  switch (op->kind) {
  case OP_THREAD_ID:
  case OP_BLOCK_ID:
  case OP_BLOCK_DIM:
  case OP_GRID_DIM: {
    const char *reg = op->kind == OP_THREAD_ID   ? "tid"
                      : op->kind == OP_BLOCK_ID  ? "ctaid"
                      : op->kind == OP_BLOCK_DIM ? "ntid"
                                                 : "nctaid";
    snprintf(name, sizeof name, "llvm.nvvm.read.ptx.sreg.%s.%s", reg, dim_letter(op));
    set_i32_result(L, op, call0(L, name, L->t_i32));
    return true;
  }
  case OP_LANE_ID: set_i32_result(L, op, call0(L, "llvm.nvvm.read.ptx.sreg.laneid", L->t_i32)); return true;
  case OP_WARP_SIZE: set_i32_result(L, op, ci32(L, 32)); return true;
  case OP_BARRIER: call0(L, "llvm.nvvm.barrier0", L->t_void); return true;
  case OP_GRID_SYNC: return lower_grid_sync(L);
  case OP_BARRIER_RED: {
    LLVMValueRef p = operand(L, op, 0);
    if (!p) return false;
    /* NVVM's names of the kinds; no attribute: count */
    static const char *const nvvm_kind[] = {[IR_BARRIER_REDUCE_COUNT] = "popc", [IR_BARRIER_REDUCE_AND] = "and",
                                            [IR_BARRIER_REDUCE_OR] = "or"};
    IrBarrierReduceKind kind = ir_op_attr_str(op, "kind") ? ir_op_barrier_reduce_kind(op) : IR_BARRIER_REDUCE_COUNT;
    if (kind == IR_BARRIER_REDUCE_INVALID)
      return fail(L, op, "gpu.barrier_reduce with unknown kind '%s'", ir_op_attr_str(op, "kind"));
    const char *k = nvvm_kind[kind];
    if (LLVMTypeOf(p) != L->t_i32)
      p = LLVMTypeOf(p) == L->t_i1 ? LLVMBuildZExt(L->b, p, L->t_i32, "") : convert_int(L, p, L->t_i32, false);
    snprintf(name, sizeof name, "llvm.nvvm.barrier0.%s", k);
    LLVMValueRef r = call1(L, name, L->t_i32, p);
    if (reg_type(L, op->results[0].type) == L->t_i1)
      set(L, &op->results[0], LLVMBuildICmp(L->b, LLVMIntNE, r, ci32(L, 0), ""));
    else set_i32_result(L, op, r);
    return true;
  }
  case OP_SYNCWARP: {
    LLVMValueRef m = operand(L, op, 0);
    if (!m) return false;
    call1(L, "llvm.nvvm.bar.warp.sync", L->t_void, convert_int(L, m, L->t_i32, false));
    return true;
  }
  case OP_NANOSLEEP: {
    LLVMValueRef ns = operand(L, op, 0);
    if (!ns) return false;
    inline_asm(L, L->t_void, "nanosleep.u32 $0;", "r", true, &ns, 1);
    return true;
  }
  case OP_FENCE: {
    /* NVVM's membar of each scope; no attribute: device */
    static const char *const membar[] = {[IR_FENCE_BLOCK] = "cta", [IR_FENCE_DEVICE] = "gl", [IR_FENCE_SYSTEM] = "sys"};
    IrFenceScope scope = ir_op_attr_str(op, "scope") ? ir_op_fence_scope(op) : IR_FENCE_DEVICE;
    if (scope == IR_FENCE_INVALID) return fail(L, op, "gpu.fence with unknown scope '%s'", ir_op_attr_str(op, "scope"));
    const char *s = membar[scope];
    snprintf(name, sizeof name, "llvm.nvvm.membar.%s", s);
    call0(L, name, L->t_void);
    return true;
  }
  case OP_ATOMIC_RMW:
  case OP_ATOMIC_CAS: return ll_lower_atomic(L, op);
  case OP_SHFL: return lower_shfl(L, op);
  case OP_VOTE: {
    LLVMValueRef m = operand(L, op, 0), p = operand(L, op, 1);
    if (!m || !p) return false;
    if (!ir_op_attr_str(op, "mode")) return fail(L, op, "gpu.vote without a mode");
    IrVoteMode mode = ir_op_vote_mode(op);
    if (mode == IR_VOTE_INVALID) return fail(L, op, "gpu.vote with unknown mode '%s'", ir_op_attr_str(op, "mode"));
    bool ballot = mode == IR_VOTE_BALLOT;
    if (LLVMTypeOf(p) != L->t_i1) p = LLVMBuildICmp(L->b, LLVMIntNE, p, LLVMConstNull(LLVMTypeOf(p)), "");
    snprintf(name, sizeof name, "llvm.nvvm.vote.%s.sync", ir_vote_mode_name(mode));
    LLVMValueRef args[2] = {convert_int(L, m, L->t_i32, false), p};
    LLVMValueRef r = calln(L, name, ballot ? L->t_i32 : L->t_i1, args, 2);
    LLVMTypeRef rt = reg_type(L, op->results[0].type);
    if (!ballot && rt != L->t_i1) r = LLVMBuildZExt(L->b, r, rt, "");
    else if (ballot && rt != L->t_i32) r = convert_int(L, r, rt, false);
    set(L, &op->results[0], r);
    return true;
  }
  case OP_ACTIVEMASK:
    set_i32_result(L, op, inline_asm(L, L->t_i32, "activemask.b32 $0;", "=r", true, NULL, 0));
    return true;
  case OP_LANEMASK_LT:
    set_i32_result(L, op, call0(L, "llvm.nvvm.read.ptx.sreg.lanemask.lt", L->t_i32));
    return true;
  case OP_MATCH: return lower_match(L, op);
  case OP_PRINT: return lower_print(L, op);
  default: return fail(L, op, "cannot lower '%s'", op_name(op));
  }
}

bool ll_lower_op(Lower *L, Op *op) {
  ll_di_set_location(L, op);
  if (op->kind == OP_TO_FP8 || op->kind == OP_FROM_FP8) return ll_lower_fp8(L, op); /* bf16 operands as bits */
  if (ll_is_bf16_op(op)) return ll_lower_bf16(L, op);
  return ll_lower_op_kind(L, op);
}

bool ll_lower_op_kind(Lower *L, Op *op) {
  switch (op->kind) {
  case OP_CONSTANT: return lower_constant(L, op);
  case OP_FUNC_RETURN: return lower_return(L, op);
  case OP_FUNC_CALL: return lower_call(L, op);
  case OP_BOUNDS: return lower_check_bounds(L, op);
  case OP_RAISE: return lower_check_raise(L, op);
  case OP_IF: case OP_FOR: case OP_WHILE: case OP_YIELD: case OP_CONDITION:
    return fail(L, op, "'%s' in the backend's lowering (lower-scf runs before it)", op_name(op));
  case OP_BR: return lower_br(L, op);
  case OP_COND_BR: return lower_cond_br(L, op);
  case OP_DIM: case OP_STRIDE: case OP_SIZE: case OP_DATA: case OP_ADDR: case OP_LOAD: case OP_STORE:
  case OP_PTR_LOAD: case OP_PTR_STORE: case OP_PTR_ARRAY:
  case OP_ALLOCA: case OP_GLOBAL_REF: case OP_DYN_SHARED: case OP_SUBVIEW: case OP_REINTERPRET: case OP_FIELD: case OP_RECORD_ARRAY:
    return ll_lower_mem_op(L, op);
  case OP_THREAD_ID: case OP_BLOCK_ID: case OP_BLOCK_DIM: case OP_GRID_DIM: case OP_LANE_ID: case OP_WARP_SIZE:
  case OP_BARRIER: case OP_BARRIER_RED: case OP_SYNCWARP: case OP_FENCE: case OP_NANOSLEEP: case OP_ATOMIC_RMW: case OP_ATOMIC_CAS:
  case OP_GRID_SYNC: case OP_SHFL: case OP_VOTE: case OP_MATCH: case OP_ACTIVEMASK: case OP_LANEMASK_LT: case OP_PRINT:
    return lower_gpu_op(L, op);
  case OP_FUNC_FUNC:
  case OP_GLOBAL: return fail(L, op, "'%s' inside a function", op_name(op));
  case OP_POWI: case OP_ISNAN: case OP_ISINF: case OP_ISFINITE: return ll_lower_math(L, op);
  case OP_FREXP_MANT: case OP_FREXP_EXP: return ll_lower_frexp(L, op);
  case OP_LIBDEVICE: return ll_lower_libdevice(L, op);
  default:
    /* a libdevice function of ir_op_sem's table (sin, pow, ...) */
    if (ir_op_sem[op->kind].libdevice) return ll_lower_math(L, op);
    return ll_lower_arith(L, op);
  }
}
