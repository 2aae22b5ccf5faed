/* lower_llvm_memory.c — the kir-to-LLVM lowering of memory (lower_llvm_internal.h): element addresses, entry
 * allocas, the compare-and-swap loops and atomics, views (subview, reinterpret, record fields), cache hints,
 * and the mem.* ops (dims, strides, loads, stores, allocas, globals, dynamic shared memory). */
#include "backend/lower_llvm_internal.h"

/* ---- memory --------------------------------------------------------------------------------- */

/* Trailing zero bits an i64 index or offset is known to have (constants, and sums, differences, products, shifts and
 * extensions of what is known; 64 for zero). */
static unsigned known_trailing_zeros(LLVMValueRef v, unsigned depth) {
  if (LLVMIsAConstantInt(v)) {
    unsigned long long c = LLVMConstIntGetZExtValue(v);
    return c ? (unsigned)__builtin_ctzll(c) : 64;
  }
  if (depth > 8 || !LLVMIsAInstruction(v)) return 0;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMAdd:
  case LLVMSub: {
    unsigned x = known_trailing_zeros(LLVMGetOperand(v, 0), depth + 1);
    unsigned y = known_trailing_zeros(LLVMGetOperand(v, 1), depth + 1);
    return x < y ? x : y;
  }
  case LLVMMul: {
    unsigned s = known_trailing_zeros(LLVMGetOperand(v, 0), depth + 1) +
                 known_trailing_zeros(LLVMGetOperand(v, 1), depth + 1);
    return s < 64 ? s : 64;
  }
  case LLVMShl: {
    LLVMValueRef k = LLVMGetOperand(v, 1);
    if (!LLVMIsAConstantInt(k)) return 0;
    unsigned s = known_trailing_zeros(LLVMGetOperand(v, 0), depth + 1) + (unsigned)LLVMConstIntGetZExtValue(k);
    return s < 64 ? s : 64;
  }
  case LLVMSExt:
  case LLVMZExt: {
    unsigned s = known_trailing_zeros(LLVMGetOperand(v, 0), depth + 1);
    unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(LLVMGetOperand(v, 0)));
    return s >= w ? 64 : s;
  }
  default:
    return 0;
  }
}

/* The alignment a's data pointer (base_align: kfront's own memory) proves for the address data + eidx elements of
 * esize bytes + boff bytes (either may be NULL); 0 where nothing is known. */
static unsigned proven_align(const ArrVal *a, int64_t esize, LLVMValueRef eidx, LLVMValueRef boff) {
  if (!a->base_align || esize <= 0) return 0;
  unsigned tz = 64;
  if (eidx) {
    unsigned t = known_trailing_zeros(eidx, 0) + (unsigned)__builtin_ctzll((unsigned long long)esize);
    tz = t < tz ? t : tz;
  }
  if (boff) {
    unsigned t = known_trailing_zeros(boff, 0);
    tz = t < tz ? t : tz;
  }
  return tz >= 31 || (1u << tz) >= a->base_align ? a->base_align : 1u << tz;
}

/* Address of a[idx...]: data + sum(idx_k * stride_k), element-sized strides as element GEPs. *proven: the
 * alignment data's proves for it (proven_align; a load or store has the larger of it and access_align's: a
 * complex's real part in a constant array is 8-aligned, which lets libNVVM load both parts as one vector). */
static LLVMValueRef elem_ptr(Lower *L, const ArrVal *a, Type *elem, Use *idx, unsigned n, const Op *op,
                             unsigned *proven) {
  if (a->parts_of && n == a->rank) { /* the complex element, then its part */
    unsigned complex_align;
    LLVMValueRef cp = elem_ptr(L, a->parts_of, a->parts_elem, idx, n - 1, op, &complex_align);
    LLVMValueRef part = cp ? get(L, idx[n - 1].value) : NULL;
    if (!part) {
      if (cp) fail(L, op, "index of '%s' is not available", op_name(op));
      return NULL;
    }
    if (LLVMGetIntTypeWidth(LLVMTypeOf(part)) != 64) part = LLVMBuildSExt(L->b, part, L->t_i64, "");
    LLVMValueRef at[2] = {ci64(L, 0), part};
    LLVMValueRef p = LLVMBuildInBoundsGEP2(L->b, mem_type(L, a->parts_elem), cp, at, 2, "");
    if (proven) /* the real part is where the element is */
      *proven = LLVMIsAConstantInt(part) && LLVMConstIntGetZExtValue(part) == 0 ? complex_align : 0;
    return p;
  }
  LLVMTypeRef et = mem_type(L, elem);
  int64_t esize = mem_size(elem);
  LLVMValueRef eidx = NULL, boff = NULL;
  if (n != a->rank) {
    fail(L, op, "'%s' needs one index per axis", op_name(op));
    return NULL;
  }
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef i = get(L, idx[k].value);
    if (!i) {
      fail(L, op, "index of '%s' is not available", op_name(op));
      return NULL;
    }
    if (LLVMGetIntTypeWidth(LLVMTypeOf(i)) != 64) i = LLVMBuildSExt(L->b, i, L->t_i64, "");
    LLVMValueRef s = a->stride[k];
    if (LLVMIsAConstantInt(s) && esize && LLVMConstIntGetSExtValue(s) % esize == 0) {
      int64_t m = LLVMConstIntGetSExtValue(s) / esize;
      LLVMValueRef term = m == 1 ? i : LLVMBuildNSWMul(L->b, i, ci64(L, m), "");
      eidx = eidx ? LLVMBuildNSWAdd(L->b, eidx, term, "") : term;
    } else {
      LLVMValueRef term = LLVMBuildNSWMul(L->b, i, s, "");
      boff = boff ? LLVMBuildNSWAdd(L->b, boff, term, "") : term;
    }
  }
  LLVMValueRef p = a->data;
  if (boff) {
    LLVMValueRef p8 = LLVMBuildBitCast(L->b, p, LLVMPointerType(L->t_i8, a->as), "");
    p8 = LLVMBuildInBoundsGEP2(L->b, L->t_i8, p8, &boff, 1, "");
    p = LLVMBuildBitCast(L->b, p8, LLVMPointerType(et, a->as), "");
  }
  if (eidx) p = LLVMBuildInBoundsGEP2(L->b, et, p, &eidx, 1, "");
  if (proven) *proven = proven_align(a, esize, eidx, boff);
  return p;
}

static ArrVal *operand_arr(Lower *L, const Op *op, unsigned i) {
  Value *v = op_operand(op, i);
  ArrVal *a = v && v->type->kind == TY_ARRAY ? get_arr(L, v) : NULL;
  if (!a) fail(L, op, "operand of '%s' is not an available array", op_name(op));
  return a;
}

/* Entry-block alloca. */
LLVMValueRef ll_entry_alloca(Lower *L, LLVMTypeRef t) {
  LLVMValueRef first = LLVMGetFirstInstruction(L->entry);
  if (first) LLVMPositionBuilderBefore(L->ab, first);
  else LLVMPositionBuilderAtEnd(L->ab, L->entry);
  LLVMValueRef a = LLVMBuildAlloca(L->ab, t, "");
  LLVMSetAlignment(a, 16);
  return a;
}

/* atomicrmw / cmpxchg on an integer view of the element; floats are bitcast. */
static LLVMValueRef int_view_ptr(Lower *L, LLVMValueRef p, LLVMTypeRef it, unsigned as) {
  return LLVMBuildBitCast(L->b, p, LLVMPointerType(it, as), "");
}

typedef LLVMValueRef (*CasUpdate)(Lower *L, LLVMValueRef old, LLVMValueRef v, void *user);

/* Compare-and-swap loop: old = *p; do { new = f(old, v) } while (!cas(p, old, new)); returns old. With
 * `expected` (a compare-and-swap of its own) new = old == expected ? v : old, compared as bits.
 * PTX has no 8- or 16-bit compare-and-swap (LLVM 14's NVPTX cannot select one, libNVVM rejects it): smaller
 * elements are updated inside their aligned 32-bit word. */
static LLVMValueRef cas_loop(Lower *L, LLVMValueRef p, unsigned as, LLVMTypeRef t, LLVMValueRef v, LLVMValueRef expected,
                             CasUpdate f, void *user) {
  bool is_float = t == L->t_f16 || t == L->t_f32 || t == L->t_f64;
  unsigned bits = t == L->t_f16 ? 16 : t == L->t_f32 ? 32 : t == L->t_f64 ? 64 : LLVMGetIntTypeWidth(t);
  LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, bits);
  bool sub = bits < 32;
  LLVMTypeRef wt = sub ? L->t_i32 : it;
  LLVMValueRef wp, shift = NULL, mask = NULL;
  if (sub) {
    LLVMValueRef addr = LLVMBuildPtrToInt(L->b, p, L->t_i64, "");
    wp = LLVMBuildIntToPtr(L->b, LLVMBuildAnd(L->b, addr, ci64(L, ~(int64_t)3), ""), LLVMPointerType(L->t_i32, as), "");
    shift = LLVMBuildTrunc(L->b, LLVMBuildShl(L->b, LLVMBuildAnd(L->b, addr, ci64(L, 3), ""), ci64(L, 3), ""), L->t_i32, "");
    mask = LLVMBuildShl(L->b, ci32(L, (int64_t)((1u << bits) - 1)), shift, "");
  } else {
    wp = is_float ? int_view_ptr(L, p, it, as) : p;
  }
  LLVMValueRef init = LLVMBuildLoad2(L->b, wt, wp, "");
  LLVMSetVolatile(init, 1);
  LLVMSetAlignment(init, sub ? 4 : bits / 8);
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(L->ctx, L->fi->fn, "");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, L->fi->fn, "");
  LLVMBuildBr(L->b, loop);
  LLVMPositionBuilderAtEnd(L->b, loop);
  LLVMValueRef old = LLVMBuildPhi(L->b, wt, "");
  LLVMValueRef oldi = sub ? LLVMBuildTrunc(L->b, LLVMBuildLShr(L->b, old, shift, ""), it, "") : old;
  LLVMValueRef oldv = is_float ? LLVMBuildBitCast(L->b, oldi, t, "") : oldi;
  LLVMValueRef ni;
  if (expected) {
    LLVMValueRef ei = is_float ? LLVMBuildBitCast(L->b, expected, it, "") : expected;
    LLVMValueRef vi = is_float ? LLVMBuildBitCast(L->b, v, it, "") : v;
    ni = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, oldi, ei, ""), vi, oldi, "");
  } else {
    LLVMValueRef nv = f(L, oldv, v, user);
    ni = is_float ? LLVMBuildBitCast(L->b, nv, it, "") : nv;
  }
  LLVMValueRef nw = ni;
  if (sub) {
    LLVMValueRef rest = LLVMBuildAnd(L->b, old, LLVMBuildNot(L->b, mask, ""), "");
    nw = LLVMBuildOr(L->b, rest, LLVMBuildShl(L->b, LLVMBuildZExt(L->b, ni, L->t_i32, ""), shift, ""), "");
  }
  LLVMValueRef pair =
      LLVMBuildAtomicCmpXchg(L->b, wp, old, nw, LLVMAtomicOrderingMonotonic, LLVMAtomicOrderingMonotonic, 0);
  LLVMValueRef seen = LLVMBuildExtractValue(L->b, pair, 0, "");
  LLVMValueRef ok = LLVMBuildExtractValue(L->b, pair, 1, "");
  LLVMBuildCondBr(L->b, ok, done, loop);
  add_incoming1(old, init, pre);
  add_incoming1(old, seen, loop);
  LLVMPositionBuilderAtEnd(L->b, done);
  return oldv;
}

typedef struct AtomicUpd {
  IrAtomicKind kind;
  bool is_unsigned;
} AtomicUpd;

static LLVMValueRef atomic_update(Lower *L, LLVMValueRef old, LLVMValueRef v, void *user) {
  const AtomicUpd *u = user;
  LLVMTypeRef t = LLVMTypeOf(old);
  bool is_float = t == L->t_f16 || t == L->t_f32 || t == L->t_f64;
  switch (u->kind) {
  case IR_ATOMIC_ADD: return is_float ? LLVMBuildFAdd(L->b, old, v, "") : LLVMBuildAdd(L->b, old, v, "");
  case IR_ATOMIC_SUB: return is_float ? LLVMBuildFSub(L->b, old, v, "") : LLVMBuildSub(L->b, old, v, "");
  case IR_ATOMIC_MIN:
  case IR_ATOMIC_MAX:
  case IR_ATOMIC_NANMIN:
  case IR_ATOMIC_NANMAX: { /* nanmin / nanmax: the same as min / max on integers */
    bool mx = u->kind == IR_ATOMIC_MAX || u->kind == IR_ATOMIC_NANMAX;
    if (is_float && (u->kind == IR_ATOMIC_NANMIN || u->kind == IR_ATOMIC_NANMAX)) {
      /* nanmin / nanmax: a NaN value keeps the old one, a NaN old value is replaced */
      LLVMValueRef v_nan = LLVMBuildFCmp(L->b, LLVMRealUNO, v, v, ""), old_nan = LLVMBuildFCmp(L->b, LLVMRealUNO, old, old, "");
      LLVMValueRef r = LLVMBuildSelect(L->b, old_nan, v, minmax_f(L, old, v, mx), "");
      return LLVMBuildSelect(L->b, v_nan, old, r, "");
    }
    if (is_float) return minmax_f(L, old, v, mx);
    LLVMIntPredicate p = u->is_unsigned ? (mx ? LLVMIntUGT : LLVMIntULT) : (mx ? LLVMIntSGT : LLVMIntSLT);
    return LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, p, v, old, ""), v, old, "");
  }
  case IR_ATOMIC_INC: { /* CUDA atomicInc: old >= v ? 0 : old + 1 (unsigned) */
    LLVMValueRef ge = LLVMBuildICmp(L->b, LLVMIntUGE, old, v, "");
    return LLVMBuildSelect(L->b, ge, LLVMConstNull(t), LLVMBuildAdd(L->b, old, LLVMConstInt(t, 1, 0), ""), "");
  }
  case IR_ATOMIC_DEC: { /* CUDA atomicDec: (old == 0 || old > v) ? v : old - 1 */
    LLVMValueRef wrap = LLVMBuildOr(L->b, is_zero(L, old), LLVMBuildICmp(L->b, LLVMIntUGT, old, v, ""), "");
    return LLVMBuildSelect(L->b, wrap, v, LLVMBuildSub(L->b, old, LLVMConstInt(t, 1, 0), ""), "");
  }
  case IR_ATOMIC_AND: return LLVMBuildAnd(L->b, old, v, "");
  case IR_ATOMIC_OR: return LLVMBuildOr(L->b, old, v, "");
  case IR_ATOMIC_XOR: return LLVMBuildXor(L->b, old, v, "");
  default: return v; /* exch */
  }
}

bool ll_lower_atomic(Lower *L, Op *op) {
  bool cas = op->kind == OP_ATOMIC_CAS;
  ArrVal *a = operand_arr(L, op, 0);
  if (!a) return false;
  Type *at = op_operand(op, 0)->type;
  unsigned nval = cas ? 2 : 1;
  if (op->noperands != 1 + a->rank + nval) return fail(L, op, "'%s' needs one index per axis", op_name(op));
  Type *elem = at->elem;
  LLVMValueRef p = elem_ptr(L, a, elem, &op->operands[1], a->rank, op, NULL);
  if (!p) return false;
  LLVMTypeRef t = mem_type(L, elem);
  bool is_float = elem->kind == TY_FLOAT;
  unsigned bits = mem_size(elem) * 8;
  LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, bits);
  if (elem->kind == TY_BOOL) return fail(L, op, "'%s' on a bool array is not supported", op_name(op));
  if (cas) {
    LLVMValueRef e = operand(L, op, 1 + a->rank), n = operand(L, op, 2 + a->rank);
    if (!e || !n) return false;
    if (bits < 32) {
      set(L, &op->results[0], cas_loop(L, p, a->as, t, n, e, NULL, NULL));
      return true;
    }
    LLVMValueRef ip = is_float ? int_view_ptr(L, p, it, a->as) : p;
    if (is_float) {
      e = LLVMBuildBitCast(L->b, e, it, "");
      n = LLVMBuildBitCast(L->b, n, it, "");
    }
    LLVMValueRef pair = LLVMBuildAtomicCmpXchg(L->b, ip, e, n, LLVMAtomicOrderingMonotonic,
                                               LLVMAtomicOrderingMonotonic, 0);
    LLVMValueRef old = LLVMBuildExtractValue(L->b, pair, 0, "");
    set(L, &op->results[0], is_float ? LLVMBuildBitCast(L->b, old, t, "") : old);
    return true;
  }
  LLVMValueRef v = operand(L, op, 1 + a->rank);
  if (!v) return false;
  IrAtomicKind kind = ir_op_atomic_kind(op);
  if (!ir_op_attr_str(op, "kind")) return fail(L, op, "gpu.atomic_rmw without a kind");
  if (kind == IR_ATOMIC_INVALID) return fail(L, op, "gpu.atomic_rmw with unknown kind '%s'", ir_op_attr_str(op, "kind"));
  bool is_unsigned = elem->kind == TY_INT && elem->is_unsigned;
  LLVMValueRef old = NULL;
  if (!is_float) {
    /* LLVM's atomicrmw of each kind it has (signed, unsigned); inc and dec through NVVM's intrinsics */
    static const struct { LLVMAtomicRMWBinOp s, u; bool has; } ops[IR_ATOMIC__COUNT] = {
        [IR_ATOMIC_ADD] = {LLVMAtomicRMWBinOpAdd, LLVMAtomicRMWBinOpAdd, true},
        [IR_ATOMIC_SUB] = {LLVMAtomicRMWBinOpSub, LLVMAtomicRMWBinOpSub, true},
        [IR_ATOMIC_AND] = {LLVMAtomicRMWBinOpAnd, LLVMAtomicRMWBinOpAnd, true},
        [IR_ATOMIC_OR] = {LLVMAtomicRMWBinOpOr, LLVMAtomicRMWBinOpOr, true},
        [IR_ATOMIC_XOR] = {LLVMAtomicRMWBinOpXor, LLVMAtomicRMWBinOpXor, true},
        [IR_ATOMIC_EXCH] = {LLVMAtomicRMWBinOpXchg, LLVMAtomicRMWBinOpXchg, true},
        [IR_ATOMIC_MIN] = {LLVMAtomicRMWBinOpMin, LLVMAtomicRMWBinOpUMin, true},
        [IR_ATOMIC_MAX] = {LLVMAtomicRMWBinOpMax, LLVMAtomicRMWBinOpUMax, true},
        [IR_ATOMIC_NANMIN] = {LLVMAtomicRMWBinOpMin, LLVMAtomicRMWBinOpUMin, true},
        [IR_ATOMIC_NANMAX] = {LLVMAtomicRMWBinOpMax, LLVMAtomicRMWBinOpUMax, true}};
    if (ops[kind].has && bits >= 32)
      old = LLVMBuildAtomicRMW(L->b, is_unsigned ? ops[kind].u : ops[kind].s, p, v, LLVMAtomicOrderingMonotonic, 0);
    if (!old && bits == 32 && (kind == IR_ATOMIC_INC || kind == IR_ATOMIC_DEC)) {
      char name[64];
      snprintf(name, sizeof name, "llvm.nvvm.atomic.load.%s.32.p%ui32", ir_atomic_kind_name(kind), a->as);
      LLVMValueRef args[2] = {p, v};
      old = calln(L, name, L->t_i32, args, 2);
    }
  } else if (kind == IR_ATOMIC_ADD || kind == IR_ATOMIC_SUB) {
    LLVMValueRef x = kind == IR_ATOMIC_SUB ? fneg(L, v) : v;
    if (elem->bits == 16) {
      /* no f16 atomic add below: CAS loop */
    } else if (L->nvvm) {
      char name[64];
      const char *s = elem->bits == 32 ? "f32" : "f64";
      snprintf(name, sizeof name, "llvm.nvvm.atomic.load.add.%s.p%u%s", s, a->as, s);
      LLVMValueRef args[2] = {p, x};
      old = calln(L, name, t, args, 2);
    } else {
      old = LLVMBuildAtomicRMW(L->b, LLVMAtomicRMWBinOpFAdd, p, x, LLVMAtomicOrderingMonotonic, 0);
    }
  } else if (kind == IR_ATOMIC_EXCH) {
    LLVMValueRef r = LLVMBuildAtomicRMW(L->b, LLVMAtomicRMWBinOpXchg, int_view_ptr(L, p, it, a->as),
                                        LLVMBuildBitCast(L->b, v, it, ""), LLVMAtomicOrderingMonotonic, 0);
    old = LLVMBuildBitCast(L->b, r, t, "");
  }
  if (!old) {
    if (is_float && kind != IR_ATOMIC_ADD && kind != IR_ATOMIC_SUB && kind != IR_ATOMIC_MIN && kind != IR_ATOMIC_MAX &&
        kind != IR_ATOMIC_NANMIN && kind != IR_ATOMIC_NANMAX)
      return fail(L, op, "gpu.atomic_rmw kind '%s' on a float array", ir_atomic_kind_name(kind));
    AtomicUpd u = {kind, is_unsigned};
    old = cas_loop(L, p, a->as, t, v, NULL, atomic_update, &u);
  }
  set(L, &op->results[0], old);
  return true;
}

/* mem.subview: the data pointer moved to the origin (a plain GEP: the origin of an empty view may lie just
 * outside the array), the extents as given, each stride the step times the walked axis's stride (0 for a new
 * axis). */
static bool lower_subview(Lower *L, Op *op) {
  ArrVal *a = operand_arr(L, op, 0);
  Attr *dims = ir_op_attr(op, "dims");
  Type *t = op->results[0].type;
  if (!a) return false;
  if (!dims || dims->kind != ATTR_ARRAY || dims->arr.n != t->rank || op->noperands != 1 + a->rank + 2 * t->rank)
    return fail(L, op, "malformed mem.subview");
  LLVMValueRef off = NULL;
  for (unsigned k = 0; k < a->rank; k++) {
    LLVMValueRef o = operand(L, op, 1 + k);
    if (!o) return false;
    if (LLVMIsAConstantInt(o) && LLVMConstIntGetSExtValue(o) == 0) continue;
    LLVMValueRef term = LLVMBuildMul(L->b, o, a->stride[k], "");
    off = off ? LLVMBuildAdd(L->b, off, term, "") : term;
  }
  ArrVal *v = new_arr(L, t->rank);
  v->as = a->as;
  v->data = a->data;
  if (off) {
    LLVMTypeRef et = LLVMGetElementType(LLVMTypeOf(a->data));
    LLVMValueRef p8 = LLVMBuildBitCast(L->b, a->data, LLVMPointerType(L->t_i8, a->as), "");
    p8 = LLVMBuildGEP2(L->b, L->t_i8, p8, &off, 1, "");
    v->data = LLVMBuildBitCast(L->b, p8, LLVMPointerType(et, a->as), "");
  }
  for (unsigned d = 0; d < t->rank; d++) {
    LLVMValueRef n = operand(L, op, 1 + a->rank + 2 * d), step = operand(L, op, 2 + a->rank + 2 * d);
    if (!n || !step) return false;
    int64_t axis = dims->arr.elems[d].kind == ATTR_INT ? dims->arr.elems[d].i : -2;
    if (axis < -1 || axis >= (int64_t)a->rank) return fail(L, op, "mem.subview names an axis the array does not have");
    v->shape[d] = n;
    bool unit = LLVMIsAConstantInt(step) && LLVMConstIntGetSExtValue(step) == 1;
    v->stride[d] = axis < 0 ? ci64(L, 0) : unit ? a->stride[axis] : LLVMBuildMul(L->b, step, a->stride[axis], "");
  }
  v->align = a->align; /* its elements are some of a's: a packed record's field stays accessed as packed */
  set_arr(L, &op->results[0], v);
  return true;
}

/* mem.reinterpret: the array's data pointer as one to the result's element type, the extents and strides given
 * (the elements keep the alignment a's are known to have: access_align caps it at their size). */
static bool lower_reinterpret(Lower *L, Op *op) {
  ArrVal *a = operand_arr(L, op, 0);
  Type *t = op->results[0].type;
  if (!a) return false;
  if (op->noperands != 1 + 2 * t->rank) return fail(L, op, "malformed mem.reinterpret");
  ArrVal *v = new_arr(L, t->rank);
  v->as = a->as;
  v->data = LLVMBuildBitCast(L->b, a->data, LLVMPointerType(mem_type(L, t->elem), a->as), "");
  for (unsigned d = 0; d < t->rank; d++) {
    v->shape[d] = operand(L, op, 1 + d);
    v->stride[d] = operand(L, op, 1 + t->rank + d);
    if (!v->shape[d] || !v->stride[d]) return false;
  }
  /* the elements lie in a's at multiples of their size (a complex's parts): what a's guarantee, at most their size */
  v->align = a->align;
  v->base_align = a->base_align; /* the same pointer */
  /* lower-complex's float view (a's axes as they are, then the two parts): its elements are addressed as parts of
   * a's (elem_ptr) */
  Type *at = op_operand(op, 0)->type;
  bool parts = at->elem->kind == TY_COMPLEX && t->elem == at->elem->elem && t->rank == a->rank + 1 &&
               LLVMIsAConstantInt(v->shape[a->rank]) && LLVMConstIntGetSExtValue(v->shape[a->rank]) == 2 &&
               LLVMIsAConstantInt(v->stride[a->rank]) &&
               LLVMConstIntGetSExtValue(v->stride[a->rank]) == (long long)mem_size(t->elem);
  for (unsigned d = 0; parts && d < a->rank; d++) parts = v->shape[d] == a->shape[d] && v->stride[d] == a->stride[d];
  if (parts) {
    v->parts_of = a;
    v->parts_elem = at->elem;
  }
  set_arr(L, &op->results[0], v);
  return true;
}

/* mem.ptr_array: the pointer as the data, in its address space; the extents and strides given; natural alignment
 * (numba-cuda's carray / farray). */
static bool lower_ptr_array(Lower *L, Op *op) {
  LLVMValueRef p = operand(L, op, 0);
  Type *t = op->results[0].type, *pt = op_operand(op, 0)->type;
  if (!p) return false;
  if (op->noperands != 1 + 2 * t->rank) return fail(L, op, "malformed mem.ptr_array");
  ArrVal *v = new_arr(L, t->rank);
  v->as = pt->addrspace;
  v->data = LLVMBuildBitCast(L->b, p, LLVMPointerType(mem_type(L, t->elem), pt->addrspace), "");
  for (unsigned d = 0; d < t->rank; d++) {
    v->shape[d] = operand(L, op, 1 + d);
    v->stride[d] = operand(L, op, 1 + t->rank + d);
    if (!v->shape[d] || !v->stride[d]) return false;
  }
  set_arr(L, &op->results[0], v);
  return true;
}

/* mem.field: data + the field's offset as a pointer to the field's elements, the array's shape and strides, then
 * the nested shape with C-contiguous strides. The elements' alignment is what the records' guarantees: every
 * record starts at a multiple of the array's (power-of-two) alignment, the field at its offset in it. */
static bool lower_field(Lower *L, Op *op) {
  ArrVal *a = operand_arr(L, op, 0);
  if (!a) return false;
  Type *rec = op_operand(op, 0)->type->elem, *t = op->results[0].type;
  const char *name = ir_op_attr_str(op, "name");
  int k = name ? ty_record_field(rec, name, strlen(name)) : -1;
  if (k < 0) return fail(L, op, "malformed mem.field");
  const RecordField *f = &rec->fields[k];
  ArrVal *v = new_arr(L, t->rank);
  v->as = a->as;
  LLVMValueRef off = ci64(L, f->offset);
  LLVMValueRef p8 = LLVMBuildBitCast(L->b, a->data, LLVMPointerType(L->t_i8, a->as), "");
  p8 = LLVMBuildInBoundsGEP2(L->b, L->t_i8, p8, &off, 1, "");
  v->data = LLVMBuildBitCast(L->b, p8, LLVMPointerType(mem_type(L, t->elem), a->as), "");
  for (unsigned d = 0; d < a->rank; d++) {
    v->shape[d] = a->shape[d];
    v->stride[d] = a->stride[d];
  }
  int64_t stride = mem_size(t->elem);
  for (unsigned d = f->ndims; d-- > 0;) {
    v->shape[a->rank + d] = ci64(L, f->dims[d]);
    v->stride[a->rank + d] = ci64(L, stride);
    stride *= f->dims[d];
  }
  v->align = ty_field_align(rec, (unsigned)k, a->align);
  set_arr(L, &op->results[0], v);
  return true;
}

/* A mem.load / mem.store with a cache hint (attribute `cache`: cuda.ldca ... cuda.stwt) as numba-cuda emits it: the
 * inline PTX ld.global.<op>.b<N> / st.global.<op>.b<N> (ld.<op> / st.<op>, generic, where the array's space is not
 * known, as in a device function). The value travels as an integer of its width (8 bits in a 32-bit register, as PTX
 * allows); the asm is volatile, so never moved across stores or barriers. Returns NULL (and does nothing) where the
 * hint does not apply — shared, constant or local memory, or an element not naturally aligned —: a plain access
 * then. */
static bool known_cache_hint(const Op *op) {
  const char *hint = ir_op_attr_str(op, "cache");
  static const char *const loads[] = {"ca", "cg", "cs", "lu", "cv"}, *const stores[] = {"cg", "cs", "wb", "wt"};
  bool load = op->kind == OP_LOAD || op->kind == OP_PTR_LOAD;
  const char *const *known = load ? loads : stores;
  for (unsigned i = 0; hint && i < (load ? 5u : 4u); i++)
    if (strcmp(hint, known[i]) == 0) return true;
  return !ir_op_attr(op, "cache");
}

static const char *cache_hint(const Op *op, const ArrVal *a, const Type *elem) {
  const char *hint = ir_op_attr_str(op, "cache");
  if (!hint || (a->as != ADDR_GENERIC && a->as != ADDR_GLOBAL) || access_align(a, elem) < mem_size(elem)) return NULL;
  unsigned bits = mem_size(elem) * 8;
  return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? hint : NULL;
}

/* ld[.global].<hint>.b<bits> of the element at p (global: the address is a global one) */
static LLVMValueRef cached_load(Lower *L, bool global, const Type *elem, const char *hint, LLVMValueRef p) {
  unsigned bits = mem_size(elem) * 8, reg = bits == 8 ? 32 : bits;
  char text[64], cons[8];
  snprintf(text, sizeof text, "ld%s.%s.b%u $0, [$1];", global ? ".global" : "", hint, bits);
  snprintf(cons, sizeof cons, "=%c,l", reg == 16 ? 'h' : reg == 32 ? 'r' : 'l');
  LLVMValueRef addr = LLVMBuildPtrToInt(L->b, p, L->t_i64, "");
  LLVMValueRef v = inline_asm(L, LLVMIntTypeInContext(L->ctx, reg), text, cons, true, &addr, 1);
  if (reg != bits) v = LLVMBuildTrunc(L->b, v, LLVMIntTypeInContext(L->ctx, bits), "");
  LLVMTypeRef mt = mem_type(L, elem);
  return LLVMTypeOf(v) == mt ? v : LLVMBuildBitCast(L->b, v, mt, "");
}

static void cached_store(Lower *L, bool global, const Type *elem, const char *hint, LLVMValueRef p, LLVMValueRef v) {
  unsigned bits = mem_size(elem) * 8, reg = bits == 8 ? 32 : bits;
  char text[64], cons[24];
  snprintf(text, sizeof text, "st%s.%s.b%u [$0], $1;", global ? ".global" : "", hint, bits);
  snprintf(cons, sizeof cons, "l,%c,~{memory}", reg == 16 ? 'h' : reg == 32 ? 'r' : 'l');
  LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, bits);
  if (LLVMTypeOf(v) != it) v = LLVMBuildBitCast(L->b, v, it, "");
  if (reg != bits) v = LLVMBuildZExt(L->b, v, LLVMIntTypeInContext(L->ctx, reg), "");
  LLVMValueRef args[2] = {LLVMBuildPtrToInt(L->b, p, L->t_i64, ""), v};
  inline_asm(L, LLVMVoidTypeInContext(L->ctx), text, cons, true, args, 2);
}

bool ll_lower_mem_op(Lower *L, Op *op) {
  switch (op->kind) {
  case OP_DIM:
  case OP_STRIDE: {
    ArrVal *a = operand_arr(L, op, 0);
    if (!a) return false;
    int64_t axis = ir_op_attr_int(op, "axis", 0);
    if (axis < 0 || axis >= a->rank) return fail(L, op, "'%s' axis out of range", op_name(op));
    set(L, &op->results[0], op->kind == OP_DIM ? a->shape[axis] : a->stride[axis]);
    return true;
  }
  case OP_SIZE: {
    ArrVal *a = operand_arr(L, op, 0);
    if (!a) return false;
    LLVMValueRef n = a->shape[0];
    for (unsigned k = 1; k < a->rank; k++) n = LLVMBuildNSWMul(L->b, n, a->shape[k], "");
    set(L, &op->results[0], n);
    return true;
  }
  case OP_DATA: {
    ArrVal *a = operand_arr(L, op, 0);
    if (!a) return false;
    Type *rt = op->results[0].type;
    Type *elem = op_operand(op, 0)->type->elem;
    unsigned as = rt->kind == TY_PTR ? rt->addrspace : 0;
    LLVMValueRef p = arr_data_in(L, a, mem_type(L, elem), as);
    LLVMTypeRef want = reg_type(L, rt);
    if (want && LLVMTypeOf(p) != want) p = LLVMBuildBitCast(L->b, p, want, "");
    set(L, &op->results[0], p);
    return true;
  }
  case OP_ADDR: {
    ArrVal *a = operand_arr(L, op, 0);
    if (!a) return false;
    LLVMValueRef p = arr_data_in(L, a, mem_type(L, op_operand(op, 0)->type->elem), 0);
    set(L, &op->results[0], LLVMBuildPtrToInt(L->b, p, LLVMInt64TypeInContext(L->ctx), ""));
    return true;
  }
  case OP_LOAD: {
    ArrVal *a = operand_arr(L, op, 0);
    if (!a) return false;
    Type *elem = op_operand(op, 0)->type->elem;
    unsigned align;
    LLVMValueRef p = elem_ptr(L, a, elem, &op->operands[1], op->noperands - 1, op, &align);
    if (!p) return false;
    if (align < access_align(a, elem)) align = access_align(a, elem);
    if (!known_cache_hint(op)) return fail(L, op, "mem.load's cache must be \"ca\", \"cg\", \"cs\", \"lu\" or \"cv\"");
    const char *hint = cache_hint(op, a, elem);
    LLVMValueRef v;
    if (hint) {
      v = cached_load(L, a->as == ADDR_GLOBAL, elem, hint, p);
    } else {
      v = LLVMBuildLoad2(L->b, mem_type(L, elem), p, "");
      LLVMSetAlignment(v, align);
    }
    set(L, &op->results[0], from_mem(L, elem, v));
    return true;
  }
  case OP_STORE: {
    LLVMValueRef v = operand(L, op, 0);
    ArrVal *a = operand_arr(L, op, 1);
    if (!v || !a) return false;
    Type *elem = op_operand(op, 1)->type->elem;
    unsigned align;
    LLVMValueRef p = elem_ptr(L, a, elem, &op->operands[2], op->noperands - 2, op, &align);
    if (!p) return false;
    if (align < access_align(a, elem)) align = access_align(a, elem);
    if (!known_cache_hint(op)) return fail(L, op, "mem.store's cache must be \"cg\", \"cs\", \"wb\" or \"wt\"");
    const char *hint = cache_hint(op, a, elem);
    if (hint) {
      cached_store(L, a->as == ADDR_GLOBAL, elem, hint, p, to_mem(L, elem, v));
      return true;
    }
    LLVMValueRef st = LLVMBuildStore(L->b, to_mem(L, elem, v), p);
    LLVMSetAlignment(st, align);
    return true;
  }
  case OP_PTR_LOAD:
  case OP_PTR_STORE: { /* p[i] as numba-cuda's getitem/setitem of a CPointer: a GEP by i elements, natural alignment */
    unsigned p0 = op->kind == OP_PTR_STORE;
    LLVMValueRef p = operand(L, op, p0), i = operand(L, op, p0 + 1);
    LLVMValueRef v = p0 ? operand(L, op, 0) : NULL;
    if (!p || !i || (p0 && !v)) return false;
    Type *elem = op_operand(op, p0)->type->elem;
    LLVMTypeRef et = mem_type(L, elem);
    LLVMValueRef ep = LLVMBuildGEP2(L->b, et, p, &i, 1, "");
    const char *hint = ir_op_attr_str(op, "cache");
    if (!known_cache_hint(op))
      return fail(L, op, "%s's cache must be %s", op_name(op), p0 ? "\"cg\", \"cs\", \"wb\" or \"wt\""
                                                                  : "\"ca\", \"cg\", \"cs\", \"lu\" or \"cv\"");
    unsigned bits = mem_size(elem) * 8;
    if (hint && (bits == 8 || bits == 16 || bits == 32 || bits == 64)) {
      /* numba-cuda's cache-hint intrinsics on a pointer: ld.global.<hint> / st.global.<hint> of the address */
      if (p0) cached_store(L, true, elem, hint, ep, to_mem(L, elem, v));
      else set(L, &op->results[0], from_mem(L, elem, cached_load(L, true, elem, hint, ep)));
      return true;
    }
    if (p0) {
      LLVMSetAlignment(LLVMBuildStore(L->b, to_mem(L, elem, v), ep), (unsigned)mem_size(elem));
      return true;
    }
    LLVMValueRef ld = LLVMBuildLoad2(L->b, et, ep, "");
    LLVMSetAlignment(ld, (unsigned)mem_size(elem));
    set(L, &op->results[0], from_mem(L, elem, ld));
    return true;
  }
  case OP_ALLOCA: {
    Type *t = op->results[0].type;
    Attr *shape = ir_op_attr(op, "shape");
    if (t->kind != TY_ARRAY || !shape || shape->kind != ATTR_ARRAY || shape->arr.n != t->rank)
      return fail(L, op, "mem.alloca needs an array result and a shape of its rank");
    ArrVal *a = new_arr(L, t->rank);
    int64_t *dims = ARENA_ARRAY(&L->arena, int64_t, t->rank);
    int64_t count = 1;
    for (unsigned k = 0; k < t->rank; k++) {
      if (shape->arr.elems[k].kind != ATTR_INT || shape->arr.elems[k].i < 0)
        return fail(L, op, "mem.alloca shape must be non-negative integers");
      dims[k] = shape->arr.elems[k].i;
      count *= dims[k];
      a->shape[k] = ci64(L, dims[k]);
    }
    LLVMTypeRef et = mem_type(L, t->elem);
    LLVMValueRef mem = ll_entry_alloca(L, LLVMArrayType(et, (unsigned)count));
    Attr *align = ir_op_attr(op, "align"); /* cuda.local.array(alignment=): the alloca's, as numba-cuda sets it */
    if (align && align->kind == ATTR_INT) {
      if (align->i <= 0 || (align->i & (align->i - 1)) || align->i > (1 << 16))
        return fail(L, op, "mem.alloca's align must be a power of 2 up to 65536");
      LLVMSetAlignment(mem, (unsigned)align->i);
    }
    LLVMValueRef z[2] = {ci64(L, 0), ci64(L, 0)};
    a->data = LLVMBuildInBoundsGEP2(L->ab, LLVMArrayType(et, (unsigned)count), mem, z, 2, "");
    a->as = 0;
    a->base_align = LLVMGetAlignment(mem);
    contiguous_strides(L, a, dims, mem_size(t->elem), t->layout);
    set_arr(L, &op->results[0], a);
    return true;
  }
  case OP_GLOBAL_REF: {
    const char *name = ir_op_attr_str(op, "name");
    GlobalInfo *g = name ? strmap_get(&L->globals, name) : NULL;
    Type *t = op->results[0].type;
    if (!g) return fail(L, op, "mem.global_ref of unknown global '%s'", name ? name : "?");
    if (t->kind != TY_ARRAY || t->rank != g->rank) return fail(L, op, "mem.global_ref type does not match @%s", name);
    ArrVal *a = new_arr(L, g->rank);
    if (g->strides) { /* captured: the address as a generic pointer */
      a->data = LLVMConstIntToPtr(ci64(L, (int64_t)g->address), LLVMPointerType(mem_type(L, g->elem), 0));
      a->as = 0;
      for (unsigned k = 0; k < g->rank; k++) {
        a->shape[k] = ci64(L, g->shape[k]);
        a->stride[k] = ci64(L, g->strides[k]);
      }
      set_arr(L, &op->results[0], a);
      return true;
    }
    LLVMValueRef z[2] = {ci64(L, 0), ci64(L, 0)};
    a->data = LLVMConstInBoundsGEP2(LLVMGlobalGetValueType(g->gv), g->gv, z, 2);
    a->as = g->as;
    a->base_align = LLVMGetAlignment(g->gv);
    for (unsigned k = 0; k < g->rank; k++) a->shape[k] = ci64(L, g->shape[k]);
    contiguous_strides(L, a, g->shape, mem_size(g->elem), g->layout);
    set_arr(L, &op->results[0], a);
    return true;
  }
  case OP_DYN_SHARED: {
    Type *t = op->results[0].type;
    if (t->kind != TY_ARRAY || t->rank != 1) return fail(L, op, "mem.dynamic_shared must be a 1-d array");
    if (!L->dyn_shared) {
      L->dyn_shared =
          LLVMAddGlobalInAddressSpace(L->mod, LLVMArrayType(L->t_i8, 0), "__kf_dynamic_shared", ADDR_SHARED);
      LLVMSetLinkage(L->dyn_shared, LLVMExternalLinkage);
      LLVMSetAlignment(L->dyn_shared, 16);
    }
    LLVMTypeRef et = mem_type(L, t->elem);
    ArrVal *a = new_arr(L, 1);
    a->as = ADDR_SHARED;
    a->data = LLVMConstBitCast(L->dyn_shared, LLVMPointerType(et, ADDR_SHARED));
    LLVMValueRef bytes = inline_asm(L, L->t_i32, "mov.u32 $0, %dynamic_smem_size;", "=r", false, NULL, 0);
    a->shape[0] = LLVMBuildUDiv(L->b, LLVMBuildZExt(L->b, bytes, L->t_i64, ""), ci64(L, mem_size(t->elem)), "");
    a->stride[0] = ci64(L, mem_size(t->elem));
    set_arr(L, &op->results[0], a);
    return true;
  }
  case OP_SUBVIEW: return lower_subview(L, op);
  case OP_REINTERPRET: return lower_reinterpret(L, op);
  case OP_PTR_ARRAY: return lower_ptr_array(L, op);
  case OP_FIELD: return lower_field(L, op);
  case OP_RECORD_ARRAY: { /* the parameter's array of one record, as it came */
    ArrVal *a = get_arr(L, op_operand(op, 0));
    if (!a) return fail(L, op, "record operand of mem.record_array is not available");
    set_arr(L, &op->results[0], a);
    return true;
  }
  default: return fail(L, op, "cannot lower '%s'", op_name(op));
  }
}
