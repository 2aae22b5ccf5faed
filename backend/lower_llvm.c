/* lower_llvm.c — kir to LLVM IR through the LLVM-C API of LLVM 14 (typed pointers).
 *
 * Input: a kir module in cf form (backend.c runs lower-scf first on a copy of one with scf ops: one lowering
 * of structured control flow, which the simulator's is checked against). Output: an LLVM module for
 * the NVPTX triple, in one of two dialects:
 *   BE_NVVM  what libNVVM (NVVM 7.0.1, LLVM 7 syntax) reads: no fneg/freeze, no attributes newer than
 *            LLVM 7 (stripped from intrinsic declarations), float atomic add through
 *            llvm.nvvm.atomic.load.add.*, !nvvmir.version; be_print_module drops the `, align N` that
 *            LLVM 14 prints on cmpxchg/atomicrmw;
 *   BE_LLVM  plain LLVM 14 IR for LLVM's NVPTX target (atomicrmw fadd, fneg, fast-math attributes).
 * Both: kernels are external void functions listed in !nvvm.annotations, with named parameters laid out
 * by the kernel ABI (include/kfront/abi.h); device functions are internal, inlined as numba-cuda's options say:
 * inline = "always" (numba's IR-level inline=): each call inlined here (inline_calls), before the IR is printed or
 * optimised; forceinline: the function is alwaysinline (libNVVM inlines it); neither: called, for libNVVM's
 * optimiser to inline as its cost model says (as numba-cuda's device functions); recursive ones noinline.
 *
 * Values: each kir Value maps (through its scratch id, numbered per function) to an LLVM value, or, for
 * an array, to an ArrVal: a typed data pointer in a known address space plus i64 shape and stride
 * values (constants where known: the element stride of C/F layouts, shared/local/const shapes).
 * Block arguments become phis (arrays: one phi per component,
 * with a generic data pointer). Memory accesses compute data + sum(index * stride) with inbounds GEPs
 * (element-sized strides as element GEPs, the rest in bytes); a part of a complex (lower-complex's float view) as
 * the complex element, then the part in it. Loads and stores have their elements' alignment, or what kfront's own
 * memory (globals, allocas: 16-aligned) proves for the address (lower_llvm_memory.c's proven_align).
 *
 * check.bounds: `icmp ult index, extent`; on failure a branch to the function's one failure block
 * (atomicCAS of __kf_error.flag 0 -> 1, then the record), then `ret void` from a kernel, or PTX `exit`
 * from a device function (the thread ends either way; nothing traps).
 *
 * This file: the entry points (be_lower_module, be_print_module), the module level, targets, line information,
 * regions and functions; the ops are lowered in lower_llvm_ops.c, lower_llvm_memory.c and lower_llvm_arith.c
 * (lower_llvm_internal.h, which they share, maps them).
 *
 * Runs under the backend's guard (backend.c, utils/mem.h): the builders, DIBuilder and messages it makes are
 * registered with it while they live; the module goes with its context. */
#define _GNU_SOURCE /* memmem */
#include "backend/lower_llvm_internal.h"

#define NVPTX_TRIPLE "nvptx64-nvidia-cuda"
#define NVPTX_DATALAYOUT "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"

static bool lower_region(Lower *L, Region *r, LLVMBasicBlockRef entry_bb);

/* ---- module-level: functions, globals, the error record -------------------------------------- */

static char *sanitize_name(Lower *L, const char *s) {
  size_t n = strlen(s);
  char *out = arena_alloc(&L->arena, n + 2);
  size_t j = 0;
  if (!(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) out[j++] = 'p';
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    bool ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    out[j++] = ok ? c : '_';
  }
  out[j] = 0;
  return out;
}

static const char *param_base_name(Lower *L, const Op *func, unsigned i) {
  Attr *names = ir_op_attr(func, "arg_names");
  if (names && names->kind == ATTR_ARRAY && i < names->arr.n &&
      (names->arr.elems[i].kind == ATTR_STR || names->arr.elems[i].kind == ATTR_SYM) && names->arr.elems[i].s[0])
    return sanitize_name(L, names->arr.elems[i].s);
  return arena_printf(&L->arena, "p%u", i);
}

/* Appends the LLVM parameter types of one kir parameter (the kernel ABI). */
static bool abi_param_types(Lower *L, const Op *func, Type *t, bool kernel, LLVMTypeRef *out, unsigned *n) {
  if (ty_abi_rank(t)) { /* an array; a record as an array of one */
    out[(*n)++] = LLVMPointerType(mem_type(L, ty_abi_elem(t)), 0);
    for (unsigned k = 0; k < 2 * ty_abi_rank(t); k++) out[(*n)++] = L->t_i64;
    return true;
  }
  if (t->kind == TY_BOOL) {
    out[(*n)++] = kernel ? L->t_i8 : L->t_i1;
    return true;
  }
  LLVMTypeRef r = reg_type(L, t);
  if (!r) return fail(L, func, "parameters of tuple or function type are not supported");
  out[(*n)++] = r;
  return true;
}

static void name_list_add(Lower *L, NameList *l, const char *name) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 8;
    const char **n = ARENA_ARRAY(&L->arena, const char *, l->cap);
    if (l->n) memcpy(n, l->names, sizeof *n * l->n);
    l->names = n;
  }
  l->names[l->n++] = name;
}

static bool note_callee(Op *op, void *user) {
  Lower *L = user;
  Op *f = ir_call_target(L->m, op);
  return !f || ptrmap_put(&L->called, f, f);  /* under the backend's guard: never false */
}

bool ll_declare_function(Lower *L, Op *op) {
  const char *name = ir_func_name(op);
  Type *fty = ir_func_type(op);
  if (!name || !fty || fty->kind != TY_FUNC) return fail(L, op, "func.func without sym_name or function_type");
  bool kernel = attr_is_true(op, "kernel");
  unsigned np = 0;
  for (unsigned i = 0; i < fty->n; i++) np += abi_param_count(fty->elems[i]);
  LLVMTypeRef *pts = ARENA_ARRAY(&L->arena, LLVMTypeRef, np ? np : 1);
  unsigned k = 0;
  for (unsigned i = 0; i < fty->n; i++)
    if (!abi_param_types(L, op, fty->elems[i], kernel, pts, &k)) return false;
  LLVMTypeRef ret = L->t_void;
  if (kernel && fty->nresults) return fail(L, op, "kernel '%s' must not return values", name);
  if (fty->nresults == 1 && fty->results[0]->kind != TY_ARRAY) {
    ret = reg_type(L, fty->results[0]);
    if (!ret) return fail(L, op, "device function '%s' returns a tuple (not supported)", name);
  } else if (fty->nresults) {
    /* several results, or an array (its data pointer, shape and strides, as a parameter passes it): a struct
     * of them all, flattened */
    unsigned n = 0;
    for (unsigned i = 0; i < fty->nresults; i++) n += abi_param_count(fty->results[i]);
    LLVMTypeRef *rts = ARENA_ARRAY(&L->arena, LLVMTypeRef, n);
    unsigned k = 0;
    for (unsigned i = 0; i < fty->nresults; i++) {
      Type *t = fty->results[i];
      if (t->kind == TY_ARRAY) {
        abi_param_types(L, op, t, false, rts, &k);
        continue;
      }
      if (!(rts[k++] = reg_type(L, t))) return fail(L, op, "device function '%s' returns a tuple (not supported)", name);
    }
    ret = LLVMStructTypeInContext(L->ctx, rts, n, 0);
  }
  FuncInfo *fi = ARENA_NEW(&L->arena, FuncInfo);
  fi->op = op;
  fi->kernel = kernel;
  fi->fnty = LLVMFunctionType(ret, pts, np, 0);
  if (LLVMGetNamedFunction(L->mod, name) || strmap_get(&L->funcs, name))
    return fail(L, op, "function '%s' defined twice", name);
  fi->fn = LLVMAddFunction(L->mod, name, fi->fnty);
  /* Named parameters: NVVM 7.0.1 rejects the %0-style argument lists LLVM prints otherwise. */
  k = 0;
  for (unsigned i = 0; i < fty->n; i++) {
    const char *base = param_base_name(L, op, i);
    Type *t = fty->elems[i];
    if (ty_abi_rank(t)) {
      char buf[256];
      snprintf(buf, sizeof buf, "%s_data", base);
      LLVMSetValueName2(LLVMGetParam(fi->fn, k++), buf, strlen(buf));
      for (unsigned d = 0; d < ty_abi_rank(t); d++) {
        snprintf(buf, sizeof buf, "%s_shape%u", base, d);
        LLVMSetValueName2(LLVMGetParam(fi->fn, k++), buf, strlen(buf));
      }
      for (unsigned d = 0; d < ty_abi_rank(t); d++) {
        snprintf(buf, sizeof buf, "%s_stride%u", base, d);
        LLVMSetValueName2(LLVMGetParam(fi->fn, k++), buf, strlen(buf));
      }
    } else {
      LLVMSetValueName2(LLVMGetParam(fi->fn, k++), base, strlen(base));
    }
  }
  if (kernel) {
    fi->kernel_id = L->nkernels;
    if (L->nkernels == L->kernel_cap) {
      L->kernel_cap = L->kernel_cap ? 2 * L->kernel_cap : 8;
      const char **nk = ARENA_ARRAY(&L->arena, const char *, L->kernel_cap);
      if (L->nkernels) memcpy(nk, L->kernel_names, sizeof *nk * L->nkernels);
      L->kernel_names = nk;
    }
    L->kernel_names[L->nkernels++] = name;
  } else if (!ir_func_entry(op)) {
    /* a declaration (a foreign function, cuda.declare_device): an external symbol, resolved by the link step */
  } else if (!ptrmap_get(&L->called, op)) {
    /* a device function nothing in the module calls is what the module exports (compile_ptx(device=True));
     * forceinline marks it alwaysinline for the code it is linked into (numba-cuda's compile(forceinline=True)) */
    if (ir_op_attr(op, "forceinline")) add_fn_attr(L, fi->fn, "alwaysinline");
  } else {
    LLVMSetLinkage(fi->fn, LLVMInternalLinkage);
    Attr *inl = ir_op_attr(op, "inline");
    bool always =
        inl && ((inl->kind == ATTR_STR && strcmp(inl->s, "always") == 0) || (inl->kind == ATTR_BOOL && inl->b));
    bool no_memory; /* under the backend's guard: never set */
    if (ir_func_recursive(L->m, op, &no_memory)) {
      add_fn_attr(L, fi->fn, "noinline"); /* a recursive function is called, not inlined */
    } else if (always) {
      add_fn_attr(L, fi->fn, "alwaysinline"); /* until inline_calls has inlined its calls */
      name_list_add(L, &L->inline_always, name);
    } else if (ir_op_attr(op, "forceinline")) {
      name_list_add(L, &L->forceinline, name);
    }
  }
  add_fn_attr(L, fi->fn, "nounwind");
  /* fastmath through LLVM's NVPTX: ftz. No "unsafe-fp-math": LLVM 14's NVPTX reads that attribute only to allow
   * contracting x * y + z (passes/contract.c has contracted what kfront contracts); its f32 division and sqrt
   * follow the target's options, so they are what they were with it (div.rn.ftz, libdevice's sqrt) */
  if (!L->nvvm && L->o->fastmath) add_fn_str_attr(L, fi->fn, "denormal-fp-math-f32", "preserve-sign,preserve-sign");
  strmap_put(&L->funcs, name, fi);
  return true;
}

unsigned ll_file_id(Lower *L, const char *file) {
  if (!file) return KF_ERROR_FILE_UNKNOWN;
  void *p = strmap_get(&L->files, file);
  if (p) return (unsigned)(uintptr_t)p - 1;
  if (L->nfiles == L->file_cap) {
    L->file_cap = L->file_cap ? 2 * L->file_cap : 4;
    const char **nf = ARENA_ARRAY(&L->arena, const char *, L->file_cap);
    if (L->nfiles) memcpy(nf, L->file_names, sizeof *nf * L->nfiles);
    L->file_names = nf;
  }
  L->file_names[L->nfiles] = file;
  strmap_put(&L->files, file, (void *)(uintptr_t)(L->nfiles + 1));
  return L->nfiles++;
}

/* Flattens the value attribute of a const global into n elements of type elem. */
static void flatten_init(Lower *L, const Attr *a, Type *elem, LLVMValueRef *out, unsigned *k, unsigned n) {
  if (elem->kind == TY_COMPLEX && a->kind == ATTR_ARRAY && a->arr.n == 2 && a->arr.elems[0].kind != ATTR_ARRAY) {
    if (*k >= n) return; /* a complex element [re, im]: its two floats (mem_type) */
    LLVMTypeRef ft = reg_type(L, elem->elem);
    LLVMValueRef parts[2] = {LLVMConstReal(ft, attr_number_f(&a->arr.elems[0])), LLVMConstReal(ft, attr_number_f(&a->arr.elems[1]))};
    out[(*k)++] = LLVMConstArray(ft, parts, 2);
    return;
  }
  if (a->kind == ATTR_ARRAY) {
    for (unsigned i = 0; i < a->arr.n; i++) flatten_init(L, &a->arr.elems[i], elem, out, k, n);
    return;
  }
  if (*k >= n) return;
  LLVMTypeRef t = mem_type(L, elem);
  if (elem->kind == TY_FLOAT) out[(*k)++] = LLVMConstReal(t, attr_number_f(a));
  else if (elem->kind == TY_BOOL) out[(*k)++] = LLVMConstInt(t, attr_number_i(a) != 0, 0);
  else out[(*k)++] = LLVMConstInt(t, (unsigned long long)attr_number_i(a), 1);
}

static bool declare_global(Lower *L, Op *op) {
  const char *name = ir_op_attr_str(op, "sym_name");
  Type *t = ir_op_attr_type(op, "type");
  Attr *shape = ir_op_attr(op, "shape");
  const char *space = ir_op_attr_str(op, "space");
  if (!name || !t || t->kind != TY_ARRAY || !shape || shape->kind != ATTR_ARRAY || shape->arr.n != t->rank)
    return fail(L, op, "mem.global needs sym_name, an array type and a shape of its rank");
  GlobalInfo *g = ARENA_NEW(&L->arena, GlobalInfo);
  g->op = op;
  g->elem = t->elem;
  g->rank = t->rank;
  g->layout = t->layout;
  g->shape = ARENA_ARRAY(&L->arena, int64_t, t->rank);
  int64_t count = 1;
  for (unsigned k = 0; k < t->rank; k++) {
    if (shape->arr.elems[k].kind != ATTR_INT || shape->arr.elems[k].i < 0)
      return fail(L, op, "mem.global '%s' has a shape that is not a list of non-negative integers", name);
    g->shape[k] = shape->arr.elems[k].i;
    count *= g->shape[k];
  }
  if (space && strcmp(space, "captured") == 0) { /* no storage of the module's: an address and strides */
    Attr *addr = ir_op_attr(op, "address"), *st = ir_op_attr(op, "strides");
    if (!addr || addr->kind != ATTR_INT || !st || st->kind != ATTR_ARRAY || st->arr.n != t->rank)
      return fail(L, op, "a captured mem.global '%s' needs an address and strides of its rank", name);
    g->address = (uint64_t)addr->i;
    g->strides = ARENA_ARRAY(&L->arena, int64_t, t->rank ? t->rank : 1);
    for (unsigned k = 0; k < t->rank; k++) g->strides[k] = st->arr.elems[k].i;
    g->as = 0;
    strmap_put(&L->globals, name, g);
    return true;
  }
  bool is_const = space && strcmp(space, "const") == 0;
  bool is_shared = !space || strcmp(space, "shared") == 0;
  g->as = is_const ? ADDR_CONST : is_shared ? ADDR_SHARED : ADDR_GLOBAL;
  if (!is_const && !is_shared && strcmp(space, "global") != 0 && strcmp(space, "device") != 0)
    return fail(L, op, "mem.global with unknown space '%s'", space);
  LLVMTypeRef et = mem_type(L, t->elem);
  LLVMTypeRef at = LLVMArrayType(et, (unsigned)count);
  g->gv = LLVMAddGlobalInAddressSpace(L->mod, at, name, g->as);
  LLVMSetLinkage(g->gv, LLVMInternalLinkage);
  Attr *align = ir_op_attr(op, "align"); /* cuda.shared.array(alignment=): the global's, as numba-cuda sets it */
  if (align && (align->kind != ATTR_INT || align->i <= 0 || (align->i & (align->i - 1)) || align->i > (1 << 16)))
    return fail(L, op, "mem.global's align must be a power of 2 up to 65536");
  LLVMSetAlignment(g->gv, align ? (unsigned)align->i : 16);
  Attr *value = ir_op_attr(op, "value");
  if (g->as == ADDR_SHARED) {
    LLVMSetInitializer(g->gv, LLVMGetUndef(at));
  } else if (value) {
    LLVMValueRef *elems = ARENA_ARRAY(&L->arena, LLVMValueRef, count ? count : 1);
    unsigned k = 0;
    flatten_init(L, value, t->elem, elems, &k, (unsigned)count);
    while (k < count) elems[k++] = LLVMConstNull(et);
    LLVMSetInitializer(g->gv, LLVMConstArray(et, elems, (unsigned)count));
  } else {
    LLVMSetInitializer(g->gv, LLVMConstNull(at));
  }
  if (is_const) LLVMSetGlobalConstant(g->gv, 1);
  strmap_put(&L->globals, name, g);
  return true;
}

static LLVMTypeRef error_record_type(Lower *L) {
  LLVMTypeRef f[8] = {L->t_i32, L->t_i32, L->t_i32, L->t_i32, L->t_i32, L->t_i32, L->t_i64, L->t_i64};
  return LLVMStructTypeInContext(L->ctx, f, 8, 0);
}

/* @__kf_error, the device-side record of the first failed bounds check (abi.h), made on first use. */
static LLVMValueRef error_global(Lower *L) {
  if (L->err_gv) return L->err_gv;
  LLVMTypeRef rt = error_record_type(L);
  L->err_gv = LLVMAddGlobalInAddressSpace(L->mod, rt, KF_ERROR_RECORD_SYMBOL, ADDR_GLOBAL);
  LLVMSetInitializer(L->err_gv, LLVMConstNull(rt));
  LLVMSetAlignment(L->err_gv, 8);
  return L->err_gv;
}

/* The function's one failure block, made at its first check.bounds: phis gather (file_id, line, col, axis,
 * index, extent) from every failing check; the first failure in the grid wins the record (a CAS on its flag),
 * then the thread ends. One inlined copy per function: libNVVM compiles this faster than a call to a shared
 * noinline reporter, and the checks' fast paths stay a compare and a branch. */

static void dispose_dibuilder(void *b) { LLVMDisposeDIBuilder(b); }
static void dispose_message(void *m) { LLVMDisposeMessage(m); }

/* Ends the thread at b's position: `ret` from a kernel; PTX `exit` from a device function, then a return that
 * keeps the IR well formed. */
static void end_thread(Lower *L, LLVMBuilderRef b) {
  FuncInfo *fi = L->fi;
  if (fi->kernel) {
    LLVMBuildRetVoid(b);
    return;
  }
  LLVMBuilderRef saved = L->b;
  L->b = b;
  inline_asm(L, L->t_void, "exit;", "", true, NULL, 0);
  L->b = saved;
  LLVMTypeRef ret = LLVMGetReturnType(fi->fnty);
  if (LLVMGetTypeKind(ret) == LLVMVoidTypeKind) LLVMBuildRetVoid(b);
  else LLVMBuildRet(b, LLVMGetUndef(ret));
}

/* The error record's flag as it is now (a volatile load: another block may have set it). */
LLVMValueRef ll_error_flag(Lower *L) {
  LLVMValueRef idx0[2] = {ci32(L, 0), ci32(L, 0)};
  LLVMValueRef p = LLVMBuildInBoundsGEP2(L->b, error_record_type(L), error_global(L), idx0, 2, "");
  LLVMValueRef v = LLVMBuildLoad2(L->b, L->t_i32, p, "");
  LLVMSetVolatile(v, 1);
  LLVMSetAlignment(v, 8);
  return v;
}

/* The block a silent check.raise jumps to: the thread ends, nothing recorded. */
LLVMBasicBlockRef ll_quit_block(Lower *L) {
  FuncInfo *fi = L->fi;
  if (fi->quit) return fi->quit;
  LLVMBuilderRef b = new_builder(L->ctx);
  fi->quit = LLVMAppendBasicBlockInContext(L->ctx, fi->fn, "raise.quit");
  LLVMPositionBuilderAtEnd(b, fi->quit);
  end_thread(L, b);
  free_builder(b);
  return fi->quit;
}

/* The function's one failure block, shared by its check.bounds and recorded check.raise ops: phis gather
 * (file_id, line, col, axis, index, extent, flag) from each failing site; the first failure in the grid wins
 * the record (a CAS of its flag from 0 to KF_ERROR_BOUNDS or KF_ERROR_RAISE), then the thread ends. */
LLVMBasicBlockRef ll_oob_block(Lower *L) {
  FuncInfo *fi = L->fi;
  if (fi->oob) return fi->oob;
  LLVMTypeRef rt = error_record_type(L);
  LLVMValueRef gv = error_global(L);
  LLVMBuilderRef b = new_builder(L->ctx);
  fi->oob = LLVMAppendBasicBlockInContext(L->ctx, fi->fn, "oob");
  LLVMBasicBlockRef write = LLVMAppendBasicBlockInContext(L->ctx, fi->fn, "oob.write");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, fi->fn, "oob.done");
  LLVMPositionBuilderAtEnd(b, fi->oob);
  static const char *names[7] = {"oob.file", "oob.line", "oob.col", "oob.axis", "oob.index", "oob.extent", "oob.flag"};
  for (unsigned i = 0; i < 7; i++)
    fi->oob_phi[i] = LLVMBuildPhi(b, i < 4 || i == 6 ? L->t_i32 : L->t_i64, names[i]);
  LLVMValueRef idx0[2] = {ci32(L, 0), ci32(L, 0)};
  LLVMValueRef flag = LLVMBuildInBoundsGEP2(b, rt, gv, idx0, 2, "");
  LLVMValueRef pair = LLVMBuildAtomicCmpXchg(b, flag, ci32(L, 0), fi->oob_phi[6],
                                             LLVMAtomicOrderingMonotonic, LLVMAtomicOrderingMonotonic, 0);
  LLVMBuildCondBr(b, LLVMBuildExtractValue(b, pair, 1, ""), write, done);
  LLVMPositionBuilderAtEnd(b, write);
  /* the fields of kf_error_record after the flag: kernel_id, line, col, axis, file_id, index, extent */
  unsigned kid = fi->kernel ? fi->kernel_id : KF_ERROR_KERNEL_UNKNOWN;
  LLVMValueRef values[7] = {ci32(L, (int32_t)kid), fi->oob_phi[1], fi->oob_phi[2], fi->oob_phi[3],
                            fi->oob_phi[0], fi->oob_phi[4], fi->oob_phi[5]};
  for (unsigned i = 0; i < 7; i++) {
    LLVMValueRef idx[2] = {ci32(L, 0), ci32(L, i + 1)};
    LLVMValueRef st = LLVMBuildStore(b, values[i], LLVMBuildInBoundsGEP2(b, rt, gv, idx, 2, ""));
    LLVMSetVolatile(st, 1);
  }
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, done);
  end_thread(L, b);
  free_builder(b);
  return fi->oob;
}

/* After a function is lowered: a flag phi whose incoming values are all one constant (a function with only
 * bounds checks, or only raises) becomes that constant, so the CAS stores it directly. */
static void fold_flag_phi(Lower *L) {
  LLVMValueRef phi = L->fi->oob ? L->fi->oob_phi[6] : NULL;
  if (!phi) return;
  unsigned n = LLVMCountIncoming(phi);
  LLVMValueRef first = n ? LLVMGetIncomingValue(phi, 0) : NULL;
  for (unsigned i = 1; i < n && first; i++)
    if (LLVMGetIncomingValue(phi, i) != first) first = NULL;
  if (!first) return;
  LLVMReplaceAllUsesWith(phi, first);
  LLVMInstructionEraseFromParent(phi);
  L->fi->oob_phi[6] = NULL;
}

/* The id of an exception text in the __kf_error_strings table (its third section). */
unsigned ll_exception_id(Lower *L, const char *text) {
  void *p = strmap_get(&L->exceptions, text);
  if (p) return (unsigned)(uintptr_t)p - 1;
  if (L->nexceptions == L->exception_cap) {
    L->exception_cap = L->exception_cap ? 2 * L->exception_cap : 4;
    const char **ne = ARENA_ARRAY(&L->arena, const char *, L->exception_cap);
    if (L->nexceptions) memcpy(ne, L->exception_names, sizeof *ne * L->nexceptions);
    L->exception_names = ne;
  }
  L->exception_names[L->nexceptions] = text;
  strmap_put(&L->exceptions, text, (void *)(uintptr_t)(L->nexceptions + 1));
  return L->nexceptions++;
}

/* __kf_error_strings: kernel names, "", file names, "" (see abi.h). */
static void emit_error_strings(Lower *L) {
  StrBuf s;
  sb_init(&s);
  for (unsigned i = 0; i < L->nkernels; i++) sb_putn(&s, L->kernel_names[i], strlen(L->kernel_names[i]) + 1);
  sb_putc(&s, 0);
  for (unsigned i = 0; i < L->nfiles; i++) sb_putn(&s, L->file_names[i], strlen(L->file_names[i]) + 1);
  sb_putc(&s, 0);
  for (unsigned i = 0; i < L->nexceptions; i++)
    sb_putn(&s, L->exception_names[i], strlen(L->exception_names[i]) + 1);
  sb_putc(&s, 0);
  LLVMValueRef init = LLVMConstStringInContext(L->ctx, s.data, (unsigned)s.len, 1);
  LLVMValueRef gv = LLVMAddGlobalInAddressSpace(L->mod, LLVMTypeOf(init), KF_ERROR_STRINGS_SYMBOL, ADDR_GLOBAL);
  LLVMSetInitializer(gv, init);
  LLVMSetGlobalConstant(gv, 1);
  LLVMSetAlignment(gv, 1);
  sb_free(&s);
}

/* ---- targets (blocks reached with values) ------------------------------------------------- */

static Target *new_target(Lower *L, unsigned n, Type *const *types, const char *name) {
  Target *t = ARENA_NEW(&L->arena, Target);
  t->bb = LLVMAppendBasicBlockInContext(L->ctx, L->fi->fn, name);
  t->n = n;
  t->types = ARENA_ARRAY(&L->arena, Type *, n ? n : 1);
  t->phis = ARENA_ARRAY(&L->arena, Slot, n ? n : 1);
  if (n) memcpy(t->types, types, sizeof(Type *) * n);
  LLVMBasicBlockRef saved = LLVMGetInsertBlock(L->b);
  LLVMPositionBuilderAtEnd(L->b, t->bb);
  for (unsigned i = 0; i < n; i++) {
    Type *ty = types[i];
    if (ty->kind == TY_ARRAY) {
      ArrVal *a = new_arr(L, ty->rank);
      a->as = 0;
      a->data = LLVMBuildPhi(L->b, LLVMPointerType(mem_type(L, ty->elem), 0), "");
      for (unsigned k = 0; k < ty->rank; k++) a->shape[k] = LLVMBuildPhi(L->b, L->t_i64, "");
      for (unsigned k = 0; k < ty->rank; k++) a->stride[k] = LLVMBuildPhi(L->b, L->t_i64, "");
      t->phis[i].a = a;
    } else {
      LLVMTypeRef rt = reg_type(L, ty);
      if (!rt) {
        fail(L, NULL, "block arguments of tuple type are not supported");
        rt = L->t_i32;
      }
      t->phis[i].v = LLVMBuildPhi(L->b, rt, "");
    }
  }
  if (saved) LLVMPositionBuilderAtEnd(L->b, saved);
  return t;
}

/* Adds the incoming values (kir values) of an edge from the current block to t. */
void ll_add_incoming(Lower *L, Target *t, Value *const *vals, unsigned n, const Op *at) {
  if (n != t->n) {
    fail(L, at, "'%s' passes the wrong number of values to its successor", op_name(at));
    return;
  }
  LLVMBasicBlockRef from = LLVMGetInsertBlock(L->b);
  for (unsigned i = 0; i < n; i++) {
    Type *ty = t->types[i];
    if (ty->kind == TY_ARRAY) {
      ArrVal *src = get_arr(L, vals[i]), *dst = t->phis[i].a;
      if (!src || src->rank != dst->rank) {
        fail(L, at, "array value passed to '%s' is not available", op_name(at));
        return;
      }
      add_incoming1(dst->data, arr_data_in(L, src, mem_type(L, ty->elem), 0), from);
      for (unsigned k = 0; k < dst->rank; k++) add_incoming1(dst->shape[k], src->shape[k], from);
      for (unsigned k = 0; k < dst->rank; k++) add_incoming1(dst->stride[k], src->stride[k], from);
    } else {
      LLVMValueRef v = get(L, vals[i]);
      if (!v) {
        fail(L, at, "value passed by '%s' is not available", op_name(at));
        return;
      }
      add_incoming1(t->phis[i].v, v, from);
    }
  }
}

void ll_jump(Lower *L, Target *t, Value *const *vals, unsigned n, const Op *at) {
  ll_add_incoming(L, t, vals, n, at);
  LLVMBuildBr(L->b, t->bb);
}

/* Maps values (block arguments, op results) to the phis of a target. */
static void bind_target(Lower *L, Target *t, Value *const *vals, unsigned n) {
  for (unsigned i = 0; i < n && i < t->n; i++) {
    if (t->types[i]->kind == TY_ARRAY) set_arr(L, vals[i], t->phis[i].a);
    else set(L, vals[i], t->phis[i].v);
  }
}

Target *ll_block_target(Lower *L, Block *b) {
  if (b->id >= L->nblocks) return NULL;
  if (!L->block_targets[b->id]) {
    Type **types = ARENA_ARRAY(&L->arena, Type *, b->nargs ? b->nargs : 1);
    for (unsigned i = 0; i < b->nargs; i++) types[i] = b->args[i]->type;
    Target *t = new_target(L, b->nargs, types, "");
    bind_target(L, t, b->args, b->nargs);
    L->block_targets[b->id] = t;
  }
  return L->block_targets[b->id];
}

/* ---- line information -------------------------------------------------------------------------- */

static LLVMMetadataRef di_file(Lower *L, const char *path) {
  if (!path) path = L->m->name ? L->m->name : "kernel";
  LLVMMetadataRef f = strmap_get(&L->difiles, path);
  if (f) return f;
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  size_t dlen = slash ? (size_t)(slash - path) : 1;
  f = LLVMDIBuilderCreateFile(L->dib, name, strlen(name), slash ? path : ".", dlen);
  strmap_put(&L->difiles, path, f);
  return f;
}

static void di_begin_function(Lower *L, FuncInfo *fi) {
  if (!L->dib) return;
  SrcLoc loc = fi->op->loc;
  LLVMMetadataRef file = di_file(L, loc.file);
  if (!L->cu)
    L->cu = LLVMDIBuilderCreateCompileUnit(L->dib, LLVMDWARFSourceLanguagePython, file, "kfront", 6, L->o->opt > 0, "", 0,
                                           0, "", 0,
                                           L->o->debuginfo ? LLVMDWARFEmissionFull /* .debug_info: cuda-gdb */
                                                           : (LLVMDWARFEmissionKind)3 /* DebugDirectivesOnly: .loc/.file alone */,
                                           0, 0, 0, "", 0, "", 0);
  LLVMMetadataRef ty = LLVMDIBuilderCreateSubroutineType(L->dib, file, NULL, 0, LLVMDIFlagZero);
  const char *name = ir_func_name(fi->op);
  unsigned line = loc.line ? loc.line : 1;
  L->sp = LLVMDIBuilderCreateFunction(L->dib, file, name, strlen(name), name, strlen(name), file, line, ty, !fi->kernel,
                                      1, line, LLVMDIFlagZero, L->o->opt > 0);
  LLVMSetSubprogram(fi->fn, L->sp);
  LLVMSetCurrentDebugLocation2(L->b, LLVMDIBuilderCreateDebugLocation(L->ctx, line, loc.col, L->sp, NULL));
}

void ll_di_set_location(Lower *L, const Op *op) {
  if (L->dib && op->loc.line)
    LLVMSetCurrentDebugLocation2(L->b,
                                 LLVMDIBuilderCreateDebugLocation(L->ctx, op->loc.line, op->loc.col, L->sp, NULL));
}

/* ---- regions and functions ------------------------------------------------------------------ */

/* Blocks of r reachable from its entry, in reverse post-order (every block after its dominators). */
static Block **region_rpo(Lower *L, Region *r, unsigned *count) {
  unsigned n = 0;
  for (Block *b = r->first; b; b = b->next) n++;
  Block **order = ARENA_ARRAY(&L->arena, Block *, n ? n : 1);
  if (n == 1) {
    order[0] = r->first;
    *count = 1;
    return order;
  }
  /* visited marks in a local map: block -> state (1 on stack, 2 done) */
  Block **stack = ARENA_ARRAY(&L->arena, Block *, n + 1);
  unsigned *next_succ = ARENA_ARRAY(&L->arena, unsigned, n + 1);
  unsigned char *state = ARENA_ARRAY(&L->arena, unsigned char, L->nblocks ? L->nblocks : 1);
  Block **post = ARENA_ARRAY(&L->arena, Block *, n);
  unsigned sp = 0, np = 0;
  stack[sp] = r->first;
  next_succ[sp++] = 0;
  state[r->first->id] = 1;
  while (sp) {
    Block *b = stack[sp - 1];
    Op *term = ir_block_terminator(b);
    unsigned i = next_succ[sp - 1];
    if (term && i < term->nsuccessors) {
      next_succ[sp - 1]++;
      Block *s = term->successors[i];
      if (s->id < L->nblocks && !state[s->id] && sp <= n) {
        state[s->id] = 1;
        stack[sp] = s;
        next_succ[sp++] = 0;
      }
      continue;
    }
    state[b->id] = 2;
    post[np++] = b;
    sp--;
  }
  for (unsigned i = 0; i < np; i++) order[i] = post[np - 1 - i];
  *count = np;
  return order;
}

static bool lower_block_ops(Lower *L, Block *b) {
  for (Op *op = b->first; op; op = op->next) {
    if (!ll_lower_op(L, op)) return false;
    if (op_has(op, OPT_TERM)) return true;
  }
  return fail(L, b->last ? b->last : ir_block_parent_op(b), "block without a terminator");
}

/* Lowers the blocks of r; the entry block's arguments must already be bound, its code goes to entry_bb. */
static bool lower_region(Lower *L, Region *r, LLVMBasicBlockRef entry_bb) {
  unsigned n;
  Block **order = region_rpo(L, r, &n);
  for (unsigned i = 0; i < n; i++) {
    Block *b = order[i];
    LLVMBasicBlockRef bb = b == r->first ? entry_bb : ll_block_target(L, b)->bb;
    LLVMPositionBuilderAtEnd(L->b, bb);
    if (!lower_block_ops(L, b)) return false;
  }
  return true;
}

typedef struct Numbering {
  unsigned values, blocks;
} Numbering;

static void number_region(Region *r, Numbering *nb);

static void number_op(Op *op, Numbering *nb) {
  for (unsigned i = 0; i < op->nresults; i++) op->results[i].id = nb->values++;
  for (unsigned r = 0; r < op->nregions; r++) number_region(&op->regions[r], nb);
}

static void number_region(Region *r, Numbering *nb) {
  for (Block *b = r->first; b; b = b->next) {
    b->id = nb->blocks++;
    for (unsigned i = 0; i < b->nargs; i++) b->args[i]->id = nb->values++;
    for (Op *o = b->first; o; o = o->next) number_op(o, nb);
  }
}

/* At opt=0 (numba-cuda's opt=False: nothing optimised, so that a debugger sees each parameter where it lives) the n
 * LLVM parameters of one kir parameter (an array's data pointer, shapes and strides: numba-cuda's array struct; a
 * scalar) are kept in a local struct, stored on entry and loaded back field by field, as numba-cuda's lowering
 * does: libNVVM at -opt=0 leaves such a local in local memory (the PTX's __local_depot). vals: in, then out. */
static void spill_params(Lower *L, LLVMValueRef *vals, unsigned n) {
  if (L->o->opt != 0 || !n) return;
  LLVMTypeRef *ts = ARENA_ARRAY(&L->arena, LLVMTypeRef, n);
  for (unsigned i = 0; i < n; i++) ts[i] = LLVMTypeOf(vals[i]);
  LLVMTypeRef st = LLVMStructTypeInContext(L->ctx, ts, n, 0);
  LLVMValueRef slot = ll_entry_alloca(L, st);
  for (unsigned i = 0; i < n; i++) LLVMBuildStore(L->b, vals[i], LLVMBuildStructGEP2(L->b, st, slot, i, ""));
  for (unsigned i = 0; i < n; i++)
    vals[i] = LLVMBuildLoad2(L->b, ts[i], LLVMBuildStructGEP2(L->b, st, slot, i, ""), "");
}

static bool lower_function(Lower *L, FuncInfo *fi) {
  Op *f = fi->op;
  Block *entry = ir_func_entry(f);
  if (!entry) return true; /* a declaration: stays external */
  Numbering nb = {0, 0};
  number_region(&f->regions[0], &nb);
  L->fi = fi;
  L->nslots = nb.values;
  L->slots = ARENA_ARRAY(&L->arena, Slot, nb.values ? nb.values : 1);
  L->nblocks = nb.blocks;
  L->block_targets = ARENA_ARRAY(&L->arena, Target *, nb.blocks ? nb.blocks : 1);
  L->entry = LLVMAppendBasicBlockInContext(L->ctx, fi->fn, "entry");
  LLVMPositionBuilderAtEnd(L->b, L->entry);
  di_begin_function(L, fi);
  Type *fty = ir_func_type(f);
  if (entry->nargs != fty->n)
    return fail(L, f, "entry block of '%s' does not match its function_type", ir_func_name(f));
  unsigned k = 0;
  for (unsigned i = 0; i < fty->n; i++) {
    Type *t = fty->elems[i];
    Value *arg = entry->args[i];
    if (ty_abi_rank(t)) { /* an array; a record, as an array of one (mem.record_array reads it) */
      ArrVal *a = new_arr(L, ty_abi_rank(t));
      unsigned n = 1 + 2 * a->rank;
      LLVMValueRef *vals = ARENA_ARRAY(&L->arena, LLVMValueRef, n);
      for (unsigned j = 0; j < n; j++) vals[j] = LLVMGetParam(fi->fn, k++);
      spill_params(L, vals, n);
      LLVMValueRef data = vals[0];
      LLVMTypeRef et = mem_type(L, ty_abi_elem(t));
      if (fi->kernel) {
        /* kernel arrays live in global memory: loads and stores become ld.global/st.global */
        a->data = LLVMBuildAddrSpaceCast(L->b, data, LLVMPointerType(et, ADDR_GLOBAL), "");
        a->as = ADDR_GLOBAL;
      } else {
        a->data = data;
        a->as = 0;
      }
      for (unsigned d = 0; d < a->rank; d++) a->shape[d] = vals[1 + d];
      for (unsigned d = 0; d < a->rank; d++) a->stride[d] = vals[1 + a->rank + d];
      if (t->kind == TY_ARRAY) known_element_stride(L, a, t);
      else a->shape[0] = ci64(L, 1), a->stride[0] = ci64(L, t->size);
      set_arr(L, arg, a);
    } else {
      LLVMValueRef p = LLVMGetParam(fi->fn, k++);
      spill_params(L, &p, 1);
      if (t->kind == TY_BOOL && fi->kernel) p = LLVMBuildICmp(L->b, LLVMIntNE, p, LLVMConstInt(L->t_i8, 0, 0), "");
      set(L, arg, p);
    }
  }
  bool ok = lower_region(L, &f->regions[0], L->entry);
  if (ok) fold_flag_phi(L);
  return ok;
}

/* NVVM 7.0.1 reads LLVM 7's attribute set: drop anything else (LLVM 14 puts nofree, nosync, willreturn,
 * immarg, ... on intrinsic declarations). */
static void strip_new_attributes(Lower *L) {
  static const char *keep[] = {"nounwind", "readnone", "readonly", "convergent", "noinline", "alwaysinline",
                               "noreturn", "nocapture", "noalias", "argmemonly"};
  unsigned keep_kinds[sizeof keep / sizeof keep[0]];
  for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
    keep_kinds[i] = LLVMGetEnumAttributeKindForName(keep[i], strlen(keep[i]));
  for (LLVMValueRef fn = LLVMGetFirstFunction(L->mod); fn; fn = LLVMGetNextFunction(fn)) {
    unsigned np = LLVMCountParams(fn);
    for (long idx = -1; idx <= (long)np; idx++) {
      LLVMAttributeIndex ai = idx == -1 ? (LLVMAttributeIndex)LLVMAttributeFunctionIndex : (LLVMAttributeIndex)idx;
      unsigned n = LLVMGetAttributeCountAtIndex(fn, ai);
      if (!n) continue;
      LLVMAttributeRef *attrs = mem_alloc(sizeof *attrs * n);
      LLVMGetAttributesAtIndex(fn, ai, attrs);
      for (unsigned i = 0; i < n; i++) {
        if (LLVMIsStringAttribute(attrs[i])) {
          unsigned klen;
          const char *key = LLVMGetStringAttributeKind(attrs[i], &klen);
          LLVMRemoveStringAttributeAtIndex(fn, ai, key, klen);
          continue;
        }
        unsigned kind = LLVMGetEnumAttributeKind(attrs[i]);
        bool ok = false;
        for (size_t j = 0; j < sizeof keep / sizeof keep[0]; j++) ok |= kind == keep_kinds[j];
        if (!ok) LLVMRemoveEnumAttributeAtIndex(fn, ai, kind);
      }
      mem_free(attrs);
    }
  }
}

/* numba-cuda's inline="always": its calls are inlined before anything else sees the IR (numba inlines them in its
 * own IR), so the IR printed has neither the calls nor an alwaysinline mark for them. LLVM's always-inliner does it
 * (the functions are internal: it deletes them once their calls are gone); what it inlines besides is alwaysinline
 * anyway (forceinline functions are marked after it, so that their calls stay for libNVVM, as numba-cuda's). */
static void inline_calls(Lower *L) {
  if (L->inline_always.n) {
    LLVMPassManagerRef pm = LLVMCreatePassManager();
    LLVMAddAlwaysInlinerPass(pm);
    LLVMRunPassManager(pm, L->mod);
    LLVMDisposePassManager(pm);
    unsigned kind = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
    for (unsigned i = 0; i < L->inline_always.n; i++) {
      LLVMValueRef fn = LLVMGetNamedFunction(L->mod, L->inline_always.names[i]);
      if (fn) LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind);
    }
  }
  for (unsigned i = 0; i < L->forceinline.n; i++) {
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, L->forceinline.names[i]);
    if (fn) add_fn_attr(L, fn, "alwaysinline");
  }
}

/* LLVM 14 prints unnamed blocks as `9:`, which LLVM 7's parser (NVVM 7.0.1) does not read: name them. */
static void name_blocks(Lower *L) {
  for (LLVMValueRef fn = LLVMGetFirstFunction(L->mod); fn; fn = LLVMGetNextFunction(fn)) {
    unsigned k = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef v = LLVMBasicBlockAsValue(bb);
      size_t len;
      LLVMGetValueName2(v, &len);
      if (len) continue;
      char name[24];
      snprintf(name, sizeof name, "L%u", k++);
      LLVMSetValueName2(v, name, strlen(name));
    }
  }
}

/* !nvvm.annotations entry {fn, !"name", i32 value}. */
static void annotate(Lower *L, LLVMValueRef fn, const char *name, int64_t value) {
  LLVMValueRef md[3] = {fn, LLVMMDStringInContext(L->ctx, name, (unsigned)strlen(name)), ci32(L, (int)value)};
  LLVMAddNamedMetadataOperand(L->mod, "nvvm.annotations", LLVMMDNodeInContext(L->ctx, md, 3));
}

static void add_annotations(Lower *L, const int ir_version[4]) {
  for (unsigned i = 0; i < L->nkernels; i++) {
    FuncInfo *fi = strmap_get(&L->funcs, L->kernel_names[i]);
    LLVMValueRef md[3] = {fi->fn, LLVMMDStringInContext(L->ctx, "kernel", 6), ci32(L, 1)};
    LLVMAddNamedMetadataOperand(L->mod, "nvvm.annotations", LLVMMDNodeInContext(L->ctx, md, 3));
    /* a variant launched only with one block shape (launch_block, passes/tile_shared.c) may say so, and ask
     * for registers enough for launch_min_blocks of its blocks per SM (ptxas caps them) */
    Attr *block = ir_op_attr(fi->op, "launch_block");
    int64_t min_blocks = ir_op_attr_int(fi->op, "launch_min_blocks", 0);
    static const char *const maxntid[3] = {"maxntidx", "maxntidy", "maxntidz"};
    bool bounded = block && block->kind == ATTR_ARRAY && block->arr.n == 3;
    for (unsigned d = 0; bounded && d < 3; d++) {
      int64_t n = block->arr.elems[d].kind == ATTR_INT ? block->arr.elems[d].i : 0;
      if (n < 1 || n > 1024) break;
      annotate(L, fi->fn, maxntid[d], n);
    }
    if (bounded && min_blocks > 0 && min_blocks <= 32) annotate(L, fi->fn, "minctasm", min_blocks);
    /* cuda.jit(launch_bounds=...): [max threads per block, min blocks per SM, max blocks per cluster], 0 for none;
     * as numba-cuda, the thread bound is on the block's size, maxntidx (y and z are then 1: PTX .maxntid N, 1, 1).
     * A variant launched with one block shape has its own, exact, bound above. */
    Attr *user = ir_op_attr(fi->op, "launch_bounds");
    static const char *const user_props[3] = {"maxntidx", "minctasm", "cluster_max_blocks"};
    for (unsigned k = 0; user && user->kind == ATTR_ARRAY && k < user->arr.n && k < 3; k++) {
      int64_t n = user->arr.elems[k].kind == ATTR_INT ? user->arr.elems[k].i : 0;
      if (n < 1 || n > INT32_MAX || (k == 0 && bounded) || (k == 1 && bounded && min_blocks > 0)) continue;
      if (k == 2 && !L->nvvm) { /* LLVM 14's NVPTX target knows no cluster annotation: it would drop the bound */
        fail(L, fi->op, "launch_bounds' third value (the most blocks per cluster, PTX .maxclusterrank) needs the "
             "libNVVM backend; LLVM's NVPTX target does not emit it");
        continue;
      }
      annotate(L, fi->fn, user_props[k], n);
    }
  }
  if (L->nvvm) {
    /* with debug information NVVM wants its debug metadata version too */
    LLVMValueRef v[4] = {ci32(L, ir_version[0]), ci32(L, ir_version[1]), ci32(L, ir_version[2]),
                         ci32(L, ir_version[3])};
    LLVMAddNamedMetadataOperand(L->mod, "nvvmir.version", LLVMMDNodeInContext(L->ctx, v, L->cu ? 4 : 2));
  }
}

/* LTO-IR (-gen-lto) is optimised by nvJitLink as a whole program, which keeps only what @llvm.used holds: the
 * kernels (as numba-cuda marks its kernels) and the globals the runtime reads by name (abi.h's __kf_error and
 * __kf_error_strings, cuModuleGetGlobal), else dropped or internalised by the link. */
static void keep_for_lto(Lower *L) {
  LLVMTypeRef i8p = LLVMPointerType(LLVMInt8TypeInContext(L->ctx), 0);
  LLVMValueRef *used = ARENA_ARRAY(&L->arena, LLVMValueRef, L->nkernels + 2);
  unsigned n = 0;
  for (unsigned i = 0; i < L->nkernels; i++) {
    FuncInfo *fi = strmap_get(&L->funcs, L->kernel_names[i]);
    used[n++] = LLVMConstBitCast(fi->fn, i8p);
  }
  static const char *const globals[2] = {KF_ERROR_RECORD_SYMBOL, KF_ERROR_STRINGS_SYMBOL};
  for (unsigned i = 0; i < 2; i++) {
    LLVMValueRef gv = LLVMGetNamedGlobal(L->mod, globals[i]);
    if (gv) used[n++] = LLVMConstAddrSpaceCast(gv, i8p);
  }
  if (!n) return;
  LLVMValueRef init = LLVMConstArray(i8p, used, n);
  LLVMValueRef list = LLVMAddGlobal(L->mod, LLVMTypeOf(init), "llvm.used");
  LLVMSetInitializer(list, init);
  LLVMSetLinkage(list, LLVMAppendingLinkage);
  LLVMSetSection(list, "llvm.metadata");
}

LLVMModuleRef be_lower_module(Module *m, LLVMContextRef ctx, const BackendOptions *o, const int nvvm_ir_version[4],
                              BackendTables *tables, Diag *diag) {
  Lower L = {0};
  L.m = m;
  L.o = o;
  L.diag = diag;
  L.nvvm = o->kind == BE_NVVM;
  L.ctx = ctx;
  arena_init(&L.arena);
  strmap_init(&L.funcs);
  strmap_init(&L.globals);
  strmap_init(&L.files);
  strmap_init(&L.exceptions);
  strmap_init(&L.print_strings);
  strmap_init(&L.difiles);
  L.mod = LLVMModuleCreateWithNameInContext(m->name ? m->name : "kfront", ctx);
  if (o->lineinfo || o->debuginfo) {
    L.dib = LLVMCreateDIBuilder(L.mod);
    mem_guard_defer(dispose_dibuilder, L.dib);
  }
  LLVMSetTarget(L.mod, NVPTX_TRIPLE);
  LLVMSetDataLayout(L.mod, NVPTX_DATALAYOUT);
  L.b = new_builder(ctx);
  L.ab = new_builder(ctx);
  L.t_void = LLVMVoidTypeInContext(ctx);
  L.t_i1 = LLVMInt1TypeInContext(ctx);
  L.t_i8 = LLVMInt8TypeInContext(ctx);
  L.t_i16 = LLVMInt16TypeInContext(ctx);
  L.t_i32 = LLVMInt32TypeInContext(ctx);
  L.t_i64 = LLVMInt64TypeInContext(ctx);
  L.t_f16 = LLVMHalfTypeInContext(ctx);
  L.t_f32 = LLVMFloatTypeInContext(ctx);
  L.t_f64 = LLVMDoubleTypeInContext(ctx);

  bool ok = ir_walk_module(m, note_callee, &L);
  ll_scan_half_ops(&L);
  Block *body = ir_module_body(m);
  for (Op *op = body->first; ok && op; op = op->next) {
    if (op->kind == OP_GLOBAL) ok = declare_global(&L, op);
    else if (op->kind == OP_FUNC_FUNC) ok = ll_declare_function(&L, op);
    else ok = fail(&L, op, "'%s' at module level", op_name(op));
  }
  for (Op *op = body->first; ok && op; op = op->next) {
    if (op->kind != OP_FUNC_FUNC) continue;
    ok = lower_function(&L, strmap_get(&L.funcs, ir_func_name(op)));
  }
  if (L.dib) {
    LLVMDIBuilderFinalize(L.dib);
    mem_guard_undefer(dispose_dibuilder, L.dib);
    LLVMDisposeDIBuilder(L.dib);
    if (L.cu)
      LLVMAddModuleFlag(L.mod, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
                        LLVMValueAsMetadata(ci32(&L, (int64_t)LLVMDebugMetadataVersion())));
  }
  if (ok) {
    if (L.err_gv) emit_error_strings(&L);
    add_annotations(&L, nvvm_ir_version);
    if (L.nvvm && o->lto) keep_for_lto(&L);
    ok = !L.failed;
  }
  if (ok) {
    inline_calls(&L);
    if (L.nvvm) strip_new_attributes(&L);
    name_blocks(&L);
    char *msg = NULL;
    if (LLVMVerifyModule(L.mod, LLVMReturnStatusAction, &msg)) {
      mem_guard_defer(dispose_message, msg);
      diag_error(diag, (SrcLoc){0}, "backend: internal error: invalid LLVM IR for module '%s':\n%s",
                 m->name ? m->name : "", msg ? msg : "");
      mem_guard_undefer(dispose_message, msg);
      ok = false;
    }
    LLVMDisposeMessage(msg);
  }
  if (ok && tables) {
    tables->kernels = mem_calloc(L.nkernels ? L.nkernels : 1, sizeof(char *));
    tables->files = mem_calloc(L.nfiles ? L.nfiles : 1, sizeof(char *));
    tables->nkernels = L.nkernels;
    tables->nfiles = L.nfiles;
    for (unsigned i = 0; i < L.nkernels; i++) tables->kernels[i] = mem_strdup(L.kernel_names[i]);
    for (unsigned i = 0; i < L.nfiles; i++) tables->files[i] = mem_strdup(L.file_names[i]);
  }
  free_builder(L.b);
  free_builder(L.ab);
  strmap_free(&L.funcs);
  ptrmap_free(&L.called);
  strmap_free(&L.globals);
  strmap_free(&L.files);
  strmap_free(&L.exceptions);
  strmap_free(&L.print_strings);
  strmap_free(&L.difiles);
  arena_free(&L.arena);
  if (!ok) {
    LLVMDisposeModule(L.mod);
    return NULL;
  }
  return L.mod;
}

/* ---- printing -------------------------------------------------------------------------------- */

/* The attribute list of group #id in text's `attributes #id = { ... }` line (its length in *len), or NULL. */
static const char *attribute_group(const char *text, unsigned long id, size_t *len) {
  char head[40];
  int n = snprintf(head, sizeof head, "\nattributes #%lu = { ", id);
  const char *g = strstr(text, head);
  if (!g) return NULL;
  g += n;
  const char *end = strstr(g, " }\n");
  if (!end || memchr(g, '\n', (size_t)(end - g))) return NULL;
  *len = (size_t)(end - g);
  return g;
}

/* Writes a `define` line with its function attributes in place of the ` #N` naming their group, as numba-cuda's
 * IR (llvmlite's printer) spells them: `define internal void @f(...) alwaysinline nounwind {` (the group's line
 * stays, for any call that names it). */
static void put_define_line(const char *text, const char *p, size_t len, StrBuf *out) {
  for (const char *q = p; q + 2 < p + len; q++) {
    if (q[0] != ' ' || q[1] != '#' || q[2] < '0' || q[2] > '9') continue;
    char *end;
    unsigned long id = strtoul(q + 2, &end, 10);
    size_t glen;
    const char *g = end <= p + len && (end == p + len || *end == ' ') ? attribute_group(text, id, &glen) : NULL;
    if (!g) continue;
    sb_putn(out, p, (size_t)(q + 1 - p));
    sb_putn(out, g, glen);
    sb_putn(out, end, (size_t)(p + len - end));
    return;
  }
  sb_putn(out, p, len);
}

/* LLVM 14 prints `cmpxchg ... monotonic monotonic, align 4` and `atomicrmw ... monotonic, align 4`;
 * LLVM 7's parser (NVVM 7.0.1) stops at the comma. The alignment is the natural one: drop it.
 * Function attributes are printed on their `define` lines (put_define_line). */
static void print_nvvm_compatible(const char *text, StrBuf *out) {
  const char *p = text;
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    size_t keep = len;
    bool atomic = false;
    for (const char *q = p; q + 9 < p + len; q++) {
      if ((q[0] == '=' && q[1] == ' ') &&
          (strncmp(q + 2, "cmpxchg ", 8) == 0 || strncmp(q + 2, "atomicrmw ", 10) == 0)) {
        atomic = true;
        break;
      }
    }
    if (atomic) {
      /* find the last ", align " */
      for (size_t i = len; i >= 8; i--) {
        if (strncmp(p + i - 8, ", align ", 8) == 0) {
          keep = i - 8;
          break;
        }
      }
    }
    const char *sp = memmem(p, keep, "spFlags: ", 9);
    if (sp) {
      /* LLVM 14's `spFlags: DISPFlagDefinition | DISPFlagOptimized` is LLVM 7's isLocal/isDefinition/isOptimized */
      const char *end = sp + 9;
      while (end < p + keep && *end != ',' && *end != ')') end++;
      bool local = memmem(sp, (size_t)(end - sp), "LocalToUnit", 11) != NULL;
      bool def = memmem(sp, (size_t)(end - sp), "Definition", 10) != NULL;
      bool optimized = memmem(sp, (size_t)(end - sp), "Optimized", 9) != NULL;
      sb_putn(out, p, (size_t)(sp - p));
      sb_printf(out, "isLocal: %s, isDefinition: %s, isOptimized: %s", local ? "true" : "false", def ? "true" : "false",
                optimized ? "true" : "false");
      sb_putn(out, end, (size_t)(p + keep - end));
    } else if (strncmp(p, "define ", 7) == 0) {
      put_define_line(text, p, keep, out);
    } else {
      sb_putn(out, p, keep);
    }
    if (!nl) break;
    sb_putc(out, '\n');
    p = nl + 1;
  }
}

void be_print_module(LLVMModuleRef mod, BackendKind kind, StrBuf *out) {
  char *text = LLVMPrintModuleToString(mod);
  mem_guard_defer(dispose_message, text);
  if (kind == BE_NVVM) print_nvvm_compatible(text, out);
  else sb_puts(out, text);
  mem_guard_undefer(dispose_message, text);
  LLVMDisposeMessage(text);
}
