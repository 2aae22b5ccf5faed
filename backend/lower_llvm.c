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
 * by the kernel ABI (include/kfront/abi.h); device functions are internal and alwaysinline.
 *
 * Values: each kir Value maps (through its scratch id, numbered per function) to an LLVM value, or, for
 * an array, to an ArrVal: a typed data pointer in a known address space plus i64 shape and stride
 * values (constants where known: the element stride of C/F layouts, shared/local/const shapes).
 * Block arguments become phis (arrays: one phi per component,
 * with a generic data pointer). Memory accesses compute data + sum(index * stride) with inbounds GEPs
 * (element-sized strides as element GEPs, the rest in bytes).
 *
 * check.bounds: `icmp ult index, extent`; on failure a branch to the function's one failure block
 * (atomicCAS of __kf_error.flag 0 -> 1, then the record), then `ret void` from a kernel, or PTX `exit`
 * from a device function (the thread ends either way; nothing traps).
 *
 * Runs under the backend's guard (backend.c, utils/mem.h): the builders, DIBuilder and messages it makes are
 * registered with it while they live; the module goes with its context. */
#define _GNU_SOURCE /* memmem */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>

#include "backend/backend.h"
#include "ir/libdevice.h"
#include "ir/op_semantics.h"
#include "kfront/abi.h"
#include "utils/mem.h"
#include "utils/ptrmap.h"

#define NVPTX_TRIPLE "nvptx64-nvidia-cuda"
#define NVPTX_DATALAYOUT "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"

typedef struct ArrVal {
  LLVMValueRef data;     /* pointer to the element memory type, in address space `as` */
  unsigned as;
  unsigned rank;
  LLVMValueRef *shape;   /* rank i64 values */
  LLVMValueRef *stride;  /* rank i64 values, bytes */
  unsigned align;        /* alignment its elements are known to have, in bytes; 0: their size (natural) */
} ArrVal;

typedef struct Slot {
  LLVMValueRef v;
  ArrVal *a;
} Slot;

/* A place control reaches with values: a block with one phi (set) per incoming value. */
typedef struct Target {
  LLVMBasicBlockRef bb;
  unsigned n;
  Type **types;
  Slot *phis;
} Target;

typedef struct FuncInfo {
  Op *op;
  LLVMValueRef fn;
  LLVMTypeRef fnty;
  bool kernel;
  unsigned kernel_id;
  LLVMBasicBlockRef oob;     /* the failure block of the function's checks and raises (made at the first one) */
  LLVMValueRef oob_phi[7];   /* its phis: file_id, line, col, axis (i32), index, extent (i64), flag (i32) */
  LLVMBasicBlockRef quit;    /* where a silent check.raise ends the thread (made at the first one) */
} FuncInfo;

typedef struct GlobalInfo {
  Op *op;
  LLVMValueRef gv;
  Type *elem;
  unsigned as, rank;
  int64_t *shape;
  char layout;
  int64_t *strides;      /* a "captured" global (device memory at a fixed address): its strides; else NULL */
  uint64_t address;
} GlobalInfo;


typedef struct Lower {
  Module *m;
  const BackendOptions *o;
  Diag *diag;
  bool nvvm, failed;
  Arena arena;
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMBuilderRef b, ab;   /* main builder; alloca builder */
  LLVMTypeRef t_void, t_i1, t_i8, t_i16, t_i32, t_i64, t_f16, t_f32, t_f64;
  PtrMap called;                /* func.func -> itself, for every function some func.call calls */
  StrMap funcs, globals, files;
  unsigned nkernels, nfiles, nexceptions;
  const char **kernel_names, **file_names, **exception_names;
  unsigned kernel_cap, file_cap, exception_cap;
  StrMap exceptions;            /* check.raise's exception text -> id + 1 */
  StrMap print_strings;         /* gpu.print's format and True/False strings -> their global */
  LLVMValueRef err_gv, dyn_shared;
  /* lineinfo: a compile unit, one DIFile per source file, one subprogram per function */
  LLVMDIBuilderRef dib;
  LLVMMetadataRef cu, sp;
  StrMap difiles;
  /* per function */
  FuncInfo *fi;
  LLVMBasicBlockRef entry;
  Slot *slots;
  unsigned nslots;
  Target **block_targets;
  unsigned nblocks;
  bool bf16_as_f32;             /* lower_bf16: bf16 values are in registers as f32 for the op being lowered */
} Lower;

static bool lower_region(Lower *L, Region *r, LLVMBasicBlockRef entry_bb);

/* ---- errors and small helpers ------------------------------------------------------------- */

/* Reports the first lowering error at op's location (later ones follow from it) and returns false. */
static bool fail(Lower *L, const Op *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(Lower *L, const Op *op, const char *fmt, ...) {
  if (!L->failed || diag_errors(L->diag) == 0) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_error(L->diag, op ? op->loc : (SrcLoc){0}, "backend: %s", msg);
  }
  L->failed = true;
  return false;
}

static LLVMValueRef ci32(Lower *L, int64_t v) { return LLVMConstInt(L->t_i32, (unsigned long long)v, 1); }
static LLVMValueRef ci64(Lower *L, int64_t v) { return LLVMConstInt(L->t_i64, (unsigned long long)v, 1); }

static bool attr_is_true(const Op *op, const char *name) {
  Attr *a = ir_op_attr(op, name);
  return a && (a->kind == ATTR_UNIT || (a->kind == ATTR_BOOL && a->b) || (a->kind == ATTR_INT && a->i));
}

static void add_fn_attr(Lower *L, LLVMValueRef fn, const char *name) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(L->ctx, kind, 0));
}

static void add_fn_str_attr(Lower *L, LLVMValueRef fn, const char *k, const char *v) {
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(L->ctx, k, (unsigned)strlen(k), v, (unsigned)strlen(v)));
}

/* ---- types ---------------------------------------------------------------------------------- */

/* The type a scalar has in memory (bool is a byte). */
static LLVMTypeRef mem_type(Lower *L, const Type *t);

/* The type a scalar or pointer value has in registers. NULL for arrays, tuples and functions. */
static LLVMTypeRef reg_type(Lower *L, const Type *t) {
  switch (t->kind) {
  case TY_BOOL: return L->t_i1;
  case TY_INT: return LLVMIntTypeInContext(L->ctx, t->bits);
  case TY_FLOAT:
    if (t->bfloat) return L->bf16_as_f32 ? L->t_f32 : L->t_i16; /* bfloat16: its bits (lower_bf16) */
    return t->bits == 16 ? L->t_f16 : t->bits == 32 ? L->t_f32 : L->t_f64;
  case TY_PTR: return LLVMPointerType(mem_type(L, t->elem), t->addrspace);
  default: return NULL;
  }
}

static LLVMTypeRef mem_type(Lower *L, const Type *t) {
  if (t->kind == TY_BOOL) return L->t_i8;
  if (t->kind == TY_RECORD) return LLVMArrayType(L->t_i8, t->size); /* its fields are reached by mem.field */
  /* complex elements (lower-complex leaves them in memory only, read and written as their two floats) */
  if (t->kind == TY_COMPLEX) return LLVMArrayType(reg_type(L, t->elem), 2);
  if (t->kind == TY_ARRAY || t->kind == TY_TUPLE || t->kind == TY_FUNC) return L->t_i8;
  return reg_type(L, t);
}

static unsigned mem_size(const Type *t) { return t->kind == TY_BOOL ? 1 : ty_size(t); }

/* The alignment of a load or store of an element of a: natural unless a is a field of packed records. */
static unsigned access_align(const ArrVal *a, const Type *elem) {
  unsigned n = mem_size(elem);
  return a->align && a->align < n ? a->align : n;
}

/* Converts a loaded memory value to its register form, and back. */
static LLVMValueRef from_mem(Lower *L, const Type *t, LLVMValueRef v) {
  return t->kind == TY_BOOL ? LLVMBuildICmp(L->b, LLVMIntNE, v, LLVMConstInt(L->t_i8, 0, 0), "") : v;
}

static LLVMValueRef to_mem(Lower *L, const Type *t, LLVMValueRef v) {
  return t->kind == TY_BOOL ? LLVMBuildZExt(L->b, v, L->t_i8, "") : v;
}

/* ---- values --------------------------------------------------------------------------------- */

static Slot *slot(Lower *L, const Value *v) { return v->id < L->nslots ? &L->slots[v->id] : NULL; }

static LLVMValueRef get(Lower *L, const Value *v) {
  Slot *s = slot(L, v);
  return s ? s->v : NULL;
}

static ArrVal *get_arr(Lower *L, const Value *v) {
  Slot *s = slot(L, v);
  return s ? s->a : NULL;
}

static void set(Lower *L, const Value *v, LLVMValueRef x) {
  Slot *s = slot(L, v);
  if (s) s->v = x;
}

static void set_arr(Lower *L, const Value *v, ArrVal *a) {
  Slot *s = slot(L, v);
  if (s) s->a = a;
}

static ArrVal *new_arr(Lower *L, unsigned rank) {
  ArrVal *a = ARENA_NEW(&L->arena, ArrVal);
  a->rank = rank;
  a->shape = ARENA_ARRAY(&L->arena, LLVMValueRef, rank ? rank : 1);
  a->stride = ARENA_ARRAY(&L->arena, LLVMValueRef, rank ? rank : 1);
  return a;
}

/* An array passed (or returned) as data, shape and strides, of a contiguous layout: its element stride is
 * known (abi.h requires it), a constant instead of the value passed. */
static void known_element_stride(Lower *L, ArrVal *a, const Type *t) {
  if (t->layout == LAYOUT_C) a->stride[t->rank - 1] = ci64(L, mem_size(t->elem));
  else if (t->layout == LAYOUT_F) a->stride[0] = ci64(L, mem_size(t->elem));
}

/* The data pointer of a in address space `as` (addrspacecast through generic when needed). */
static LLVMValueRef arr_data_in(Lower *L, const ArrVal *a, LLVMTypeRef elem, unsigned as) {
  if (a->as == as) return a->data;
  LLVMValueRef p = a->data;
  if (a->as != 0) p = LLVMBuildAddrSpaceCast(L->b, p, LLVMPointerType(elem, 0), "");
  if (as != 0) p = LLVMBuildAddrSpaceCast(L->b, p, LLVMPointerType(elem, as), "");
  return p;
}

/* Strides of a C- or F-contiguous array of the given constant shape, in bytes. */
static void contiguous_strides(Lower *L, ArrVal *a, const int64_t *shape, unsigned esize, char layout) {
  int64_t s = esize;
  if (layout == LAYOUT_F) {
    for (unsigned k = 0; k < a->rank; k++) {
      a->stride[k] = ci64(L, s);
      s *= shape[k];
    }
  } else {
    for (unsigned k = a->rank; k-- > 0;) {
      a->stride[k] = ci64(L, s);
      s *= shape[k];
    }
  }
}

/* ---- declarations and calls ------------------------------------------------------------------ */

static LLVMValueRef declare(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n) {
  LLVMValueRef fn = LLVMGetNamedFunction(L->mod, name);
  if (fn) return fn;
  return LLVMAddFunction(L->mod, name, LLVMFunctionType(ret, params, n, 0));
}

static LLVMValueRef call(Lower *L, LLVMValueRef fn, LLVMValueRef *args, unsigned n) {
  return LLVMBuildCall2(L->b, LLVMGlobalGetValueType(fn), fn, args, n, "");
}

static LLVMValueRef call0(Lower *L, const char *name, LLVMTypeRef ret) {
  return call(L, declare(L, name, ret, NULL, 0), NULL, 0);
}

static LLVMValueRef call1(Lower *L, const char *name, LLVMTypeRef ret, LLVMValueRef a) {
  LLVMTypeRef pt = LLVMTypeOf(a);
  return call(L, declare(L, name, ret, &pt, 1), &a, 1);
}

static LLVMValueRef calln(Lower *L, const char *name, LLVMTypeRef ret, LLVMValueRef *args, unsigned n) {
  LLVMTypeRef pts[8];
  for (unsigned i = 0; i < n; i++) pts[i] = LLVMTypeOf(args[i]);
  return call(L, declare(L, name, ret, pts, n), args, n);
}

static LLVMValueRef inline_asm(Lower *L, LLVMTypeRef ret, const char *text, const char *constraints, bool side_effects,
                               LLVMValueRef *args, unsigned n) {
  LLVMTypeRef pts[4];
  for (unsigned i = 0; i < n; i++) pts[i] = LLVMTypeOf(args[i]);
  LLVMTypeRef fnty = LLVMFunctionType(ret, pts, n, 0);
  LLVMValueRef asmv = LLVMGetInlineAsm(fnty, (char *)text, strlen(text), (char *)constraints, strlen(constraints),
                                       side_effects, 0, LLVMInlineAsmDialectATT, 0);
  return LLVMBuildCall2(L->b, fnty, asmv, args, n, "");
}

/* Intrinsic names carrying the overloaded type: ".i32", ".f64", ... */
static const char *type_suffix(Lower *L, LLVMTypeRef t, char *buf, size_t n) {
  if (t == L->t_f16) return "f16";
  if (t == L->t_f32) return "f32";
  if (t == L->t_f64) return "f64";
  snprintf(buf, n, "i%u", LLVMGetIntTypeWidth(t));
  return buf;
}

static LLVMValueRef intrinsic1(Lower *L, const char *base, LLVMValueRef a) {
  char name[96], sfx[16];
  snprintf(name, sizeof name, "llvm.%s.%s", base, type_suffix(L, LLVMTypeOf(a), sfx, sizeof sfx));
  return call1(L, name, LLVMTypeOf(a), a);
}

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

static unsigned abi_param_count(const Type *t) { return ty_abi_rank(t) ? 1 + 2 * ty_abi_rank(t) : 1; }

static bool note_callee(Op *op, void *user) {
  Lower *L = user;
  Op *f = ir_call_target(L->m, op);
  return !f || ptrmap_put(&L->called, f, f);  /* under the backend's guard: never false */
}

static bool declare_function(Lower *L, Op *op) {
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
  } else if (!ptrmap_get(&L->called, op)) {
    /* a device function nothing in the module calls is what the module exports (compile_ptx(device=True));
     * inline="always" marks it alwaysinline for the code it is linked into (numba-cuda's compile(forceinline=True)) */
    Attr *inl = ir_op_attr(op, "inline");
    if (inl && ((inl->kind == ATTR_STR && strcmp(inl->s, "always") == 0) || (inl->kind == ATTR_BOOL && inl->b)))
      add_fn_attr(L, fi->fn, "alwaysinline");
  } else {
    LLVMSetLinkage(fi->fn, LLVMInternalLinkage);
    Attr *inl = ir_op_attr(op, "inline");
    bool never =
        inl && ((inl->kind == ATTR_STR && strcmp(inl->s, "never") == 0) || (inl->kind == ATTR_BOOL && !inl->b));
    bool no_memory; /* under the backend's guard: never set */
    if (ir_func_recursive(L->m, op, &no_memory)) never = true; /* a recursive function is called, not inlined */
    add_fn_attr(L, fi->fn, never ? "noinline" : "alwaysinline");
  }
  add_fn_attr(L, fi->fn, "nounwind");
  /* fastmath through LLVM's NVPTX: ftz. No "unsafe-fp-math": LLVM 14's NVPTX reads that attribute only to allow
   * contracting x * y + z (passes/contract.c has contracted what kfront contracts); its f32 division and sqrt
   * follow the target's options, so they are what they were with it (div.rn.ftz, libdevice's sqrt) */
  if (!L->nvvm && L->o->fastmath) add_fn_str_attr(L, fi->fn, "denormal-fp-math-f32", "preserve-sign,preserve-sign");
  strmap_put(&L->funcs, name, fi);
  return true;
}

static unsigned file_id(Lower *L, const char *file) {
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
  LLVMSetAlignment(g->gv, 16);
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
/* LLVM objects live under the backend's guard (backend.c): each is registered while it lives, so an allocation
 * failure of ours disposes of it (utils/mem.h). */
static void dispose_builder(void *b) { LLVMDisposeBuilder(b); }
static void dispose_dibuilder(void *b) { LLVMDisposeDIBuilder(b); }
static void dispose_message(void *m) { LLVMDisposeMessage(m); }

static LLVMBuilderRef new_builder(LLVMContextRef ctx) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  mem_guard_defer(dispose_builder, b);
  return b;
}

static void free_builder(LLVMBuilderRef b) {
  mem_guard_undefer(dispose_builder, b);
  LLVMDisposeBuilder(b);
}

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
static LLVMValueRef error_flag(Lower *L) {
  LLVMValueRef idx0[2] = {ci32(L, 0), ci32(L, 0)};
  LLVMValueRef p = LLVMBuildInBoundsGEP2(L->b, error_record_type(L), error_global(L), idx0, 2, "");
  LLVMValueRef v = LLVMBuildLoad2(L->b, L->t_i32, p, "");
  LLVMSetVolatile(v, 1);
  LLVMSetAlignment(v, 8);
  return v;
}

/* The block a silent check.raise jumps to: the thread ends, nothing recorded. */
static LLVMBasicBlockRef quit_block(Lower *L) {
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
static LLVMBasicBlockRef oob_block(Lower *L) {
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
static unsigned exception_id(Lower *L, const char *text) {
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

static void add_incoming1(LLVMValueRef phi, LLVMValueRef v, LLVMBasicBlockRef from) {
  LLVMAddIncoming(phi, &v, &from, 1);
}

/* Adds the incoming values (kir values) of an edge from the current block to t. */
static void add_incoming(Lower *L, Target *t, Value *const *vals, unsigned n, const Op *at) {
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

static void jump(Lower *L, Target *t, Value *const *vals, unsigned n, const Op *at) {
  add_incoming(L, t, vals, n, at);
  LLVMBuildBr(L->b, t->bb);
}

/* Maps values (block arguments, op results) to the phis of a target. */
static void bind_target(Lower *L, Target *t, Value *const *vals, unsigned n) {
  for (unsigned i = 0; i < n && i < t->n; i++) {
    if (t->types[i]->kind == TY_ARRAY) set_arr(L, vals[i], t->phis[i].a);
    else set(L, vals[i], t->phis[i].v);
  }
}

static Target *block_target(Lower *L, Block *b) {
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

/* ---- integer and float arithmetic ---------------------------------------------------------- */

static LLVMValueRef is_zero(Lower *L, LLVMValueRef v) {
  return LLVMBuildICmp(L->b, LLVMIntEQ, v, LLVMConstNull(LLVMTypeOf(v)), "");
}

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

static LLVMValueRef fconst(LLVMTypeRef t, double v) { return LLVMConstReal(t, v); }

static LLVMValueRef fneg(Lower *L, LLVMValueRef v) {
  if (L->nvvm) return LLVMBuildFSub(L->b, fconst(LLVMTypeOf(v), -0.0), v, ""); /* no fneg in LLVM 7 */
  return LLVMBuildFNeg(L->b, v, "");
}

/* libdevice: __nv_<name>f for f32, __nv_<name> for f64; f16 computes in f32. */
static LLVMValueRef libdevice(Lower *L, const char *name, LLVMValueRef *args, unsigned n) {
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
  return libdevice(L, "fmod", args, 2);
}

static LLVMValueRef copysign_(Lower *L, LLVMValueRef a, LLVMValueRef b) {
  LLVMValueRef args[2] = {a, b};
  return libdevice(L, "copysign", args, 2);
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
  LLVMValueRef fl = libdevice(L, "floor", &div, 1);
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

/* ---- memory --------------------------------------------------------------------------------- */

/* Address of a[idx...]: data + sum(idx_k * stride_k), element-sized strides as element GEPs. */
static LLVMValueRef elem_ptr(Lower *L, const ArrVal *a, Type *elem, Use *idx, unsigned n, const Op *op) {
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
  return p;
}

static ArrVal *operand_arr(Lower *L, const Op *op, unsigned i) {
  Value *v = op_operand(op, i);
  ArrVal *a = v && v->type->kind == TY_ARRAY ? get_arr(L, v) : NULL;
  if (!a) fail(L, op, "operand of '%s' is not an available array", op_name(op));
  return a;
}

/* Entry-block alloca. */
static LLVMValueRef entry_alloca(Lower *L, LLVMTypeRef t) {
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
  const char *kind;
  bool is_unsigned;
} AtomicUpd;

static LLVMValueRef minmax_f(Lower *L, LLVMValueRef a, LLVMValueRef b, bool is_max);

static LLVMValueRef atomic_update(Lower *L, LLVMValueRef old, LLVMValueRef v, void *user) {
  const AtomicUpd *u = user;
  LLVMTypeRef t = LLVMTypeOf(old);
  bool is_float = t == L->t_f16 || t == L->t_f32 || t == L->t_f64;
  const char *k = u->kind;
  if (strcmp(k, "add") == 0) return is_float ? LLVMBuildFAdd(L->b, old, v, "") : LLVMBuildAdd(L->b, old, v, "");
  if (strcmp(k, "sub") == 0) return is_float ? LLVMBuildFSub(L->b, old, v, "") : LLVMBuildSub(L->b, old, v, "");
  bool nan_kind = strcmp(k, "nanmin") == 0 || strcmp(k, "nanmax") == 0;
  if (nan_kind) k += 3; /* "min" / "max": the same on integers */
  if (strcmp(k, "min") == 0 || strcmp(k, "max") == 0) {
    bool mx = k[1] == 'a';
    if (is_float && nan_kind) {
      /* nanmin / nanmax: a NaN value keeps the old one, a NaN old value is replaced */
      LLVMValueRef v_nan = LLVMBuildFCmp(L->b, LLVMRealUNO, v, v, ""), old_nan = LLVMBuildFCmp(L->b, LLVMRealUNO, old, old, "");
      LLVMValueRef r = LLVMBuildSelect(L->b, old_nan, v, minmax_f(L, old, v, mx), "");
      return LLVMBuildSelect(L->b, v_nan, old, r, "");
    }
    if (is_float) return minmax_f(L, old, v, mx);
    LLVMIntPredicate p = u->is_unsigned ? (mx ? LLVMIntUGT : LLVMIntULT) : (mx ? LLVMIntSGT : LLVMIntSLT);
    return LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, p, v, old, ""), v, old, "");
  }
  if (strcmp(k, "inc") == 0) { /* CUDA atomicInc: old >= v ? 0 : old + 1 (unsigned) */
    LLVMValueRef ge = LLVMBuildICmp(L->b, LLVMIntUGE, old, v, "");
    return LLVMBuildSelect(L->b, ge, LLVMConstNull(t), LLVMBuildAdd(L->b, old, LLVMConstInt(t, 1, 0), ""), "");
  }
  if (strcmp(k, "dec") == 0) { /* CUDA atomicDec: (old == 0 || old > v) ? v : old - 1 */
    LLVMValueRef wrap = LLVMBuildOr(L->b, is_zero(L, old), LLVMBuildICmp(L->b, LLVMIntUGT, old, v, ""), "");
    return LLVMBuildSelect(L->b, wrap, v, LLVMBuildSub(L->b, old, LLVMConstInt(t, 1, 0), ""), "");
  }
  if (strcmp(k, "and") == 0) return LLVMBuildAnd(L->b, old, v, "");
  if (strcmp(k, "or") == 0) return LLVMBuildOr(L->b, old, v, "");
  if (strcmp(k, "xor") == 0) return LLVMBuildXor(L->b, old, v, "");
  return v; /* exch */
}

static LLVMValueRef minmax_f(Lower *L, LLVMValueRef a, LLVMValueRef b, bool is_max) {
  /* Python: max(a, b) = b if b > a else a; min(a, b) = b if b < a else a */
  LLVMValueRef c = LLVMBuildFCmp(L->b, is_max ? LLVMRealOGT : LLVMRealOLT, b, a, "");
  return LLVMBuildSelect(L->b, c, b, a, "");
}

/* ---- ops ------------------------------------------------------------------------------------- */

static LLVMValueRef operand(Lower *L, const Op *op, unsigned i) {
  if (i >= op->noperands) {
    fail(L, op, "'%s' has too few operands", op_name(op));
    return NULL;
  }
  Value *v = op_operand(op, i);
  LLVMValueRef x = v ? get(L, v) : NULL;
  if (!x) fail(L, op, "operand of '%s' is not an available scalar", op_name(op));
  return x;
}

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

/* LLVM's predicates, in the order of SemIPred / SemFPred (ir/op_semantics.h). */
static LLVMIntPredicate icmp_pred(const char *p, bool *ok) {
  static const LLVMIntPredicate t[] = {LLVMIntEQ,  LLVMIntNE,  LLVMIntSLT, LLVMIntSLE, LLVMIntSGT,
                                       LLVMIntSGE, LLVMIntULT, LLVMIntULE, LLVMIntUGT, LLVMIntUGE};
  int i = sem_name_index(p, sem_cmpi_names);
  *ok = i >= 0;
  return i >= 0 ? t[i] : LLVMIntEQ;
}

static LLVMRealPredicate fcmp_pred(const char *p, bool *ok) {
  static const LLVMRealPredicate t[] = {LLVMRealOEQ, LLVMRealONE, LLVMRealOLT, LLVMRealOLE, LLVMRealOGT,
                                        LLVMRealOGE, LLVMRealORD, LLVMRealUNE, LLVMRealULT, LLVMRealULE,
                                        LLVMRealUGT, LLVMRealUGE, LLVMRealUNO};
  int i = sem_name_index(p, sem_cmpf_names);
  *ok = i >= 0;
  return i >= 0 ? t[i] : LLVMRealOEQ;
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
  const char *mode = ir_op_attr_str(op, "mode");
  bool all = mode && strcmp(mode, "all") == 0;
  if (!mode || (!all && strcmp(mode, "any"))) return fail(L, op, "gpu.match with unknown mode '%s'", mode ? mode : "");
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
  const char *mode = ir_op_attr_str(op, "mode");
  if (!mode) mode = "idx";
  const char *m = strcmp(mode, "xor") == 0 ? "bfly" : mode;
  if (strcmp(m, "idx") && strcmp(m, "up") && strcmp(m, "down") && strcmp(m, "bfly"))
    return fail(L, op, "gpu.shfl with unknown mode '%s'", mode);
  mask = convert_int(L, mask, L->t_i32, false);
  lane = convert_int(L, lane, L->t_i32, false);
  width = convert_int(L, width, L->t_i32, false);
  /* c = ((32 - width) << 8) | clamp, clamp 0 for up, 31 otherwise (as CUDA's __shfl_*_sync) */
  LLVMValueRef c = LLVMBuildShl(L->b, LLVMBuildSub(L->b, ci32(L, 32), width, ""), ci32(L, 8), "");
  if (strcmp(m, "up") != 0) c = LLVMBuildOr(L->b, c, ci32(L, 31), "");
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

static bool lower_atomic(Lower *L, Op *op) {
  bool cas = op->kind == OP_ATOMIC_CAS;
  ArrVal *a = operand_arr(L, op, 0);
  if (!a) return false;
  Type *at = op_operand(op, 0)->type;
  unsigned nval = cas ? 2 : 1;
  if (op->noperands != 1 + a->rank + nval) return fail(L, op, "'%s' needs one index per axis", op_name(op));
  Type *elem = at->elem;
  LLVMValueRef p = elem_ptr(L, a, elem, &op->operands[1], a->rank, op);
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
  const char *kind = ir_op_attr_str(op, "kind");
  if (!kind) return fail(L, op, "gpu.atomic_rmw without a kind");
  bool is_unsigned = elem->kind == TY_INT && elem->is_unsigned;
  LLVMValueRef old = NULL;
  if (!is_float) {
    static const struct { const char *k; LLVMAtomicRMWBinOp s, u; } ops[] = {
        {"add", LLVMAtomicRMWBinOpAdd, LLVMAtomicRMWBinOpAdd}, {"sub", LLVMAtomicRMWBinOpSub, LLVMAtomicRMWBinOpSub},
        {"and", LLVMAtomicRMWBinOpAnd, LLVMAtomicRMWBinOpAnd}, {"or", LLVMAtomicRMWBinOpOr, LLVMAtomicRMWBinOpOr},
        {"xor", LLVMAtomicRMWBinOpXor, LLVMAtomicRMWBinOpXor}, {"exch", LLVMAtomicRMWBinOpXchg, LLVMAtomicRMWBinOpXchg},
        {"min", LLVMAtomicRMWBinOpMin, LLVMAtomicRMWBinOpUMin}, {"max", LLVMAtomicRMWBinOpMax, LLVMAtomicRMWBinOpUMax},
        {"nanmin", LLVMAtomicRMWBinOpMin, LLVMAtomicRMWBinOpUMin}, {"nanmax", LLVMAtomicRMWBinOpMax, LLVMAtomicRMWBinOpUMax}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
      if (strcmp(kind, ops[i].k) == 0 && bits >= 32)
        old = LLVMBuildAtomicRMW(L->b, is_unsigned ? ops[i].u : ops[i].s, p, v, LLVMAtomicOrderingMonotonic, 0);
    if (!old && bits == 32 && (strcmp(kind, "inc") == 0 || strcmp(kind, "dec") == 0)) {
      char name[64];
      snprintf(name, sizeof name, "llvm.nvvm.atomic.load.%s.32.p%ui32", kind, a->as);
      LLVMValueRef args[2] = {p, v};
      old = calln(L, name, L->t_i32, args, 2);
    }
  } else if (strcmp(kind, "add") == 0 || strcmp(kind, "sub") == 0) {
    LLVMValueRef x = strcmp(kind, "sub") == 0 ? fneg(L, v) : v;
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
  } else if (strcmp(kind, "exch") == 0) {
    LLVMValueRef r = LLVMBuildAtomicRMW(L->b, LLVMAtomicRMWBinOpXchg, int_view_ptr(L, p, it, a->as),
                                        LLVMBuildBitCast(L->b, v, it, ""), LLVMAtomicOrderingMonotonic, 0);
    old = LLVMBuildBitCast(L->b, r, t, "");
  }
  if (!old) {
    static const char *known[] = {"add", "sub", "and", "or", "xor", "exch", "min", "max", "inc", "dec", "nanmin", "nanmax"};
    bool ok = false;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) ok |= strcmp(kind, known[i]) == 0;
    if (!ok) return fail(L, op, "gpu.atomic_rmw with unknown kind '%s'", kind);
    if (is_float && strcmp(kind, "add") && strcmp(kind, "sub") && strcmp(kind, "min") && strcmp(kind, "max") &&
        strcmp(kind, "nanmin") && strcmp(kind, "nanmax"))
      return fail(L, op, "gpu.atomic_rmw kind '%s' on a float array", kind);
    AtomicUpd u = {kind, is_unsigned};
    old = cas_loop(L, p, a->as, t, v, NULL, atomic_update, &u);
  }
  set(L, &op->results[0], old);
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
  LLVMBasicBlockRef bad = oob_block(L);
  LLVMValueRef br = LLVMBuildCondBr(L->b, ok, cont, bad);
  /* the failure path is cold */
  LLVMValueRef w[3] = {LLVMMDStringInContext(L->ctx, "branch_weights", 14), ci32(L, 2000), ci32(L, 1)};
  LLVMSetMetadata(br, LLVMGetMDKindIDInContext(L->ctx, "prof", 4), LLVMMDNodeInContext(L->ctx, w, 3));
  LLVMValueRef in[7] = {ci32(L, (int32_t)file_id(L, op->loc.file)), ci32(L, op->loc.line), ci32(L, op->loc.col),
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
  LLVMBasicBlockRef site = silent ? quit_block(L) : LLVMAppendBasicBlockInContext(L->ctx, L->fi->fn, "raise");
  if (cond) {
    LLVMValueRef br = LLVMBuildCondBr(L->b, cond, site, cont);
    LLVMValueRef w[3] = {LLVMMDStringInContext(L->ctx, "branch_weights", 14), ci32(L, 1), ci32(L, 2000)};
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(L->ctx, "prof", 4), LLVMMDNodeInContext(L->ctx, w, 3));
  } else {
    LLVMBuildBr(L->b, site);
  }
  if (!silent) {
    LLVMBasicBlockRef bad = oob_block(L);
    LLVMPositionBuilderAtEnd(L->b, site);
    LLVMValueRef in[7] = {ci32(L, (int32_t)file_id(L, op->loc.file)), ci32(L, op->loc.line), ci32(L, op->loc.col),
                          ci32(L, (int32_t)exception_id(L, exc)), packed_sregs(L, "tid", 21, 42),
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
  /* the flattened struct declare_function made: an array is its data pointer, shape and strides */
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
    if (x->type->kind == TY_ARRAY) { /* flattened as declare_function's result struct */
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
  Target *t = block_target(L, op->successors[0]);
  if (!t) return fail(L, op, "cf.br to a block outside the function");
  unsigned start = op_succ_operand_start(op, 0);
  jump(L, t, operand_values(L, op, start, op->succ_operand_count[0]), op->succ_operand_count[0], op);
  return true;
}

static bool lower_cond_br(Lower *L, Op *op) {
  if (op->nsuccessors != 2) return fail(L, op, "malformed cf.cond_br");
  LLVMValueRef c = operand(L, op, 0);
  if (!c) return false;
  Target *t0 = block_target(L, op->successors[0]), *t1 = block_target(L, op->successors[1]);
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
    jump(L, t1, v1, op->succ_operand_count[1], op);
    LLVMPositionBuilderAtEnd(L->b, cur);
  } else {
    add_incoming(L, t1, v1, op->succ_operand_count[1], op);
  }
  add_incoming(L, t0, v0, op->succ_operand_count[0], op);
  LLVMBuildCondBr(L->b, c, t0->bb, bb1);
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
  const char *const *known = op->kind == OP_LOAD ? loads : stores;
  for (unsigned i = 0; hint && i < (op->kind == OP_LOAD ? 5u : 4u); i++)
    if (strcmp(hint, known[i]) == 0) return true;
  return !ir_op_attr(op, "cache");
}

static const char *cache_hint(const Op *op, const ArrVal *a, const Type *elem) {
  const char *hint = ir_op_attr_str(op, "cache");
  if (!hint || (a->as != ADDR_GENERIC && a->as != ADDR_GLOBAL) || access_align(a, elem) < mem_size(elem)) return NULL;
  unsigned bits = mem_size(elem) * 8;
  return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? hint : NULL;
}

static LLVMValueRef cached_load(Lower *L, const ArrVal *a, const Type *elem, const char *hint, LLVMValueRef p) {
  unsigned bits = mem_size(elem) * 8, reg = bits == 8 ? 32 : bits;
  char text[64], cons[8];
  snprintf(text, sizeof text, "ld%s.%s.b%u $0, [$1];", a->as == ADDR_GLOBAL ? ".global" : "", hint, bits);
  snprintf(cons, sizeof cons, "=%c,l", reg == 16 ? 'h' : reg == 32 ? 'r' : 'l');
  LLVMValueRef addr = LLVMBuildPtrToInt(L->b, p, L->t_i64, "");
  LLVMValueRef v = inline_asm(L, LLVMIntTypeInContext(L->ctx, reg), text, cons, true, &addr, 1);
  if (reg != bits) v = LLVMBuildTrunc(L->b, v, LLVMIntTypeInContext(L->ctx, bits), "");
  LLVMTypeRef mt = mem_type(L, elem);
  return LLVMTypeOf(v) == mt ? v : LLVMBuildBitCast(L->b, v, mt, "");
}

static void cached_store(Lower *L, const ArrVal *a, const Type *elem, const char *hint, LLVMValueRef p, LLVMValueRef v) {
  unsigned bits = mem_size(elem) * 8, reg = bits == 8 ? 32 : bits;
  char text[64], cons[24];
  snprintf(text, sizeof text, "st%s.%s.b%u [$0], $1;", a->as == ADDR_GLOBAL ? ".global" : "", hint, bits);
  snprintf(cons, sizeof cons, "l,%c,~{memory}", reg == 16 ? 'h' : reg == 32 ? 'r' : 'l');
  LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, bits);
  if (LLVMTypeOf(v) != it) v = LLVMBuildBitCast(L->b, v, it, "");
  if (reg != bits) v = LLVMBuildZExt(L->b, v, LLVMIntTypeInContext(L->ctx, reg), "");
  LLVMValueRef args[2] = {LLVMBuildPtrToInt(L->b, p, L->t_i64, ""), v};
  inline_asm(L, LLVMVoidTypeInContext(L->ctx), text, cons, true, args, 2);
}

static bool lower_mem_op(Lower *L, Op *op) {
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
    LLVMValueRef p = elem_ptr(L, a, elem, &op->operands[1], op->noperands - 1, op);
    if (!p) return false;
    if (!known_cache_hint(op)) return fail(L, op, "mem.load's cache must be \"ca\", \"cg\", \"cs\", \"lu\" or \"cv\"");
    const char *hint = cache_hint(op, a, elem);
    LLVMValueRef v;
    if (hint) {
      v = cached_load(L, a, elem, hint, p);
    } else {
      v = LLVMBuildLoad2(L->b, mem_type(L, elem), p, "");
      LLVMSetAlignment(v, access_align(a, elem));
    }
    set(L, &op->results[0], from_mem(L, elem, v));
    return true;
  }
  case OP_STORE: {
    LLVMValueRef v = operand(L, op, 0);
    ArrVal *a = operand_arr(L, op, 1);
    if (!v || !a) return false;
    Type *elem = op_operand(op, 1)->type->elem;
    LLVMValueRef p = elem_ptr(L, a, elem, &op->operands[2], op->noperands - 2, op);
    if (!p) return false;
    if (!known_cache_hint(op)) return fail(L, op, "mem.store's cache must be \"cg\", \"cs\", \"wb\" or \"wt\"");
    const char *hint = cache_hint(op, a, elem);
    if (hint) {
      cached_store(L, a, elem, hint, p, to_mem(L, elem, v));
      return true;
    }
    LLVMValueRef st = LLVMBuildStore(L->b, to_mem(L, elem, v), p);
    LLVMSetAlignment(st, access_align(a, elem));
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
    LLVMValueRef mem = entry_alloca(L, LLVMArrayType(et, (unsigned)count));
    LLVMValueRef z[2] = {ci64(L, 0), ci64(L, 0)};
    a->data = LLVMBuildInBoundsGEP2(L->ab, LLVMArrayType(et, (unsigned)count), mem, z, 2, "");
    a->as = 0;
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

/* A NUL-terminated constant string in global memory (one per text), as a generic i8*. */
static LLVMValueRef string_const(Lower *L, const char *text) {
  LLVMValueRef gv = strmap_get(&L->print_strings, text);
  if (!gv) {
    LLVMValueRef init = LLVMConstStringInContext(L->ctx, text, (unsigned)strlen(text), 0);
    char name[32];
    snprintf(name, sizeof name, "__kf_str%u", (unsigned)L->print_strings.count);
    gv = LLVMAddGlobalInAddressSpace(L->mod, LLVMTypeOf(init), name, ADDR_GLOBAL);
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
    LLVMValueRef mem = entry_alloca(L, st);
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
  LLVMValueRef wait = LLVMBuildAnd(L->b, same, LLVMBuildICmp(L->b, LLVMIntEQ, error_flag(L), ci32(L, 0), ""), "");
  LLVMBuildCondBr(L->b, wait, spin, out);
  LLVMPositionBuilderAtEnd(L->b, out);
  call0(L, "llvm.nvvm.membar.gl", L->t_void);
  LLVMBuildBr(L->b, done);
  LLVMPositionBuilderAtEnd(L->b, done);
  call0(L, "llvm.nvvm.barrier0", L->t_void);
  LLVMBasicBlockRef go_on = LLVMAppendBasicBlockInContext(L->ctx, fn, "gridsync.next");
  LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, error_flag(L), ci32(L, 0), ""), go_on, quit_block(L));
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
    const char *kind = ir_op_attr_str(op, "kind");
    const char *k = !kind || strcmp(kind, "count") == 0 ? "popc" : kind;
    if (strcmp(k, "popc") && strcmp(k, "and") && strcmp(k, "or"))
      return fail(L, op, "gpu.barrier_reduce with unknown kind '%s'", kind);
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
  case OP_FENCE: {
    const char *scope = ir_op_attr_str(op, "scope");
    const char *s = !scope || strcmp(scope, "device") == 0 ? "gl"
                    : strcmp(scope, "block") == 0          ? "cta"
                    : strcmp(scope, "system") == 0         ? "sys"
                                                           : NULL;
    if (!s) return fail(L, op, "gpu.fence with unknown scope '%s'", scope);
    snprintf(name, sizeof name, "llvm.nvvm.membar.%s", s);
    call0(L, name, L->t_void);
    return true;
  }
  case OP_ATOMIC_RMW:
  case OP_ATOMIC_CAS: return lower_atomic(L, op);
  case OP_SHFL: return lower_shfl(L, op);
  case OP_VOTE: {
    LLVMValueRef m = operand(L, op, 0), p = operand(L, op, 1);
    if (!m || !p) return false;
    const char *mode = ir_op_attr_str(op, "mode");
    if (!mode) return fail(L, op, "gpu.vote without a mode");
    bool ballot = strcmp(mode, "ballot") == 0;
    if (!ballot && strcmp(mode, "all") && strcmp(mode, "any") && strcmp(mode, "uni"))
      return fail(L, op, "gpu.vote with unknown mode '%s'", mode);
    if (LLVMTypeOf(p) != L->t_i1) p = LLVMBuildICmp(L->b, LLVMIntNE, p, LLVMConstNull(LLVMTypeOf(p)), "");
    snprintf(name, sizeof name, "llvm.nvvm.vote.%s.sync", mode);
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

/* ---- floating +, -, * through libNVVM: never contracted -------------------------------------------------------
 *
 * kfront contracts x * y + z itself (passes/contract.c, the simulator's definition too); what is left must stay
 * as it is. libNVVM is run with its default -fma=1, as numba-cuda runs it, so that libdevice's functions compute
 * as NVIDIA compiles them; kfront's own additions, subtractions and products are therefore the .rn operations
 * (which neither libNVVM nor ptxas fuse): llvm.nvvm.{add,mul}.rn[.ftz].{f,d}, and for f16 the PTX instruction.
 * LLVM's NVPTX (nvptx.c) contracts nothing: there they are plain fadd / fsub / fmul. */
static LLVMValueRef uncontracted_nvvm(Lower *L, OpKind kind, LLVMValueRef x, LLVMValueRef y) {
  LLVMTypeRef t = LLVMTypeOf(x);
  bool mul = kind == OP_MULF;
  if (kind == OP_SUBF && t != L->t_f16) y = fneg(L, y); /* x - y is x + (-y), exactly */
  LLVMValueRef args[2] = {x, y};
  if (t == L->t_f16)
    return inline_asm(L, t, mul ? "mul.rn.f16 $0, $1, $2;" : kind == OP_ADDF ? "add.rn.f16 $0, $1, $2;" : "sub.rn.f16 $0, $1, $2;",
                      "=h,h,h", false, args, 2);
  char name[40];
  snprintf(name, sizeof name, "llvm.nvvm.%s.rn%s.%s", mul ? "mul" : "add",
           t == L->t_f32 && L->o->fastmath ? ".ftz" : "", t == L->t_f32 ? "f" : "d");
  return calln(L, name, t, args, 2);
}

static bool lower_arith(Lower *L, Op *op) {
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
  case OP_DIVF: r = LLVMBuildFDiv(b, x, y, ""); break;
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
    bool ok = true;
    LLVMIntPredicate p = icmp_pred(ir_op_attr_str(op, "pred"), &ok);
    if (!ok)
      return fail(L, op, "arith.cmpi with unknown pred '%s'",
                  ir_op_attr_str(op, "pred") ? ir_op_attr_str(op, "pred") : "");
    r = LLVMBuildICmp(b, p, x, y, "");
    break;
  }
  case OP_CMPF: {
    bool ok = true;
    LLVMRealPredicate p = fcmp_pred(ir_op_attr_str(op, "pred"), &ok);
    if (!ok)
      return fail(L, op, "arith.cmpf with unknown pred '%s'",
                  ir_op_attr_str(op, "pred") ? ir_op_attr_str(op, "pred") : "");
    r = LLVMBuildFCmp(b, p, x, y, "");
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
  case OP_SITOFP: r = LLVMBuildSIToFP(b, x, rt, ""); break;
  case OP_UITOFP: r = LLVMBuildUIToFP(b, x, rt, ""); break;
  case OP_FPTOSI: r = fp_to_int(b, x, rt, true); break;
  case OP_FPTOUI: r = fp_to_int(b, x, rt, false); break;
  case OP_EXTF: r = LLVMBuildFPExt(b, x, rt, ""); break;
  case OP_TRUNCF: r = LLVMBuildFPTrunc(b, x, rt, ""); break;
  case OP_BITCAST: r = LLVMTypeOf(x) == rt ? x : LLVMBuildBitCast(b, x, rt, ""); break;
  default: return fail(L, op, "cannot lower '%s'", op_name(op));
  }
  set(L, &op->results[0], r);
  return true;
}

/* math.frexp_mant / frexp_exp: libdevice's frexp (f16 as f32), the exponent through a stack slot. */
static bool lower_frexp(Lower *L, Op *op) {
  LLVMValueRef x = operand(L, op, 0);
  if (!x) return false;
  bool half = LLVMTypeOf(x) == L->t_f16;
  if (half) x = LLVMBuildFPExt(L->b, x, L->t_f32, "");
  LLVMTypeRef ft = LLVMTypeOf(x);
  LLVMValueRef slot = entry_alloca(L, L->t_i32);
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

static bool lower_libdevice(Lower *L, Op *op) {
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
      args[i] = slots[nslots++] = entry_alloca(L, ld_type(L, (char)(c - 'A' + 'a')));
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

static bool lower_math(Lower *L, Op *op) {
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
  case OP_ISINF:
  case OP_ISFINITE: {
    LLVMValueRef ax = libdevice(L, "fabs", &x, 1);
    LLVMValueRef inf = LLVMConstReal(LLVMTypeOf(x), __builtin_inf());
    r = LLVMBuildFCmp(L->b, op->kind == OP_ISINF ? LLVMRealOEQ : LLVMRealOLT, ax, inf, "");
    break;
  }
  case OP_FMA: { /* f32, f64: libdevice's fma (fma.rn); f16 rounded once to binary16 (ir/op_semantics.c), not in f32 */
    LLVMValueRef args[3] = {x, operand(L, op, 1), operand(L, op, 2)};
    if (!args[1] || !args[2]) return false;
    r = LLVMTypeOf(x) == L->t_f16 ? inline_asm(L, L->t_f16, "fma.rn.f16 $0, $1, $2, $3;", "=h,h,h,h", false, args, 3)
                                  : libdevice(L, "fma", args, 3);
    break;
  }
  default: {
    const char *name = ir_op_sem[op->kind].libdevice;
    if (!name) return fail(L, op, "cannot lower '%s'", op_name(op));
    LLVMValueRef args[3] = {x, NULL, NULL};
    unsigned n = op->noperands < 3 ? op->noperands : 3;
    for (unsigned i = 1; i < n; i++)
      if (!(args[i] = operand(L, op, i))) return false;
    r = libdevice(L, name, args, n);
  }
  }
  LLVMTypeRef rt = reg_type(L, op->results[0].type);
  if (rt == L->t_i1 || LLVMTypeOf(r) == rt) set(L, &op->results[0], r);
  else set(L, &op->results[0], LLVMBuildZExt(L->b, r, rt, ""));
  return true;
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
    L->cu = LLVMDIBuilderCreateCompileUnit(L->dib, LLVMDWARFSourceLanguagePython, file, "kfront", 6, 1, "", 0, 0, "", 0,
                                           (LLVMDWARFEmissionKind)3 /* DebugDirectivesOnly: .loc/.file alone */, 0,
                                           0, 0, "", 0, "", 0);
  LLVMMetadataRef ty = LLVMDIBuilderCreateSubroutineType(L->dib, file, NULL, 0, LLVMDIFlagZero);
  const char *name = ir_func_name(fi->op);
  unsigned line = loc.line ? loc.line : 1;
  L->sp = LLVMDIBuilderCreateFunction(L->dib, file, name, strlen(name), name, strlen(name), file, line, ty, !fi->kernel,
                                      1, line, LLVMDIFlagZero, L->o->opt > 0);
  LLVMSetSubprogram(fi->fn, L->sp);
  LLVMSetCurrentDebugLocation2(L->b, LLVMDIBuilderCreateDebugLocation(L->ctx, line, loc.col, L->sp, NULL));
}

static void di_set_location(Lower *L, const Op *op) {
  if (L->dib && op->loc.line)
    LLVMSetCurrentDebugLocation2(L->b,
                                 LLVMDIBuilderCreateDebugLocation(L->ctx, op->loc.line, op->loc.col, L->sp, NULL));
}

/* ---- bfloat16, and conversions by a rounding mode -------------------------------------------------------------
 *
 * A bf16 is its 16 bits in an i16 (LLVM 14's NVPTX and libNVVM have no bfloat arithmetic to rely on). An op on
 * bf16 values computes as ir/op_semantics.h defines it: on the f32 of each bf16 operand, the op's own f32 lowering,
 * its f32 result rounded to bf16 (round_bits); math.fma of bf16 rounds the exact result once; conversions to a
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
  if (mode == SEM_RN) {
    LLVMValueRef odd = LLVMBuildTrunc(b, q, L->t_i1, "");
    up = LLVMBuildOr(b, above, LLVMBuildAnd(b, tie, odd, ""), "");
  } else if (mode == SEM_RD) {
    up = LLVMBuildAnd(b, inexact, neg, "");
  } else if (mode == SEM_RU) {
    up = LLVMBuildAnd(b, inexact, LLVMBuildNot(b, neg, ""), "");
  } else {
    up = f0;
  }
  LLVMValueRef r = LLVMBuildShl(b, LLVMBuildSub(b, te, c64(L, (uint64_t)emin), ""), c64(L, f.mbits), "");
  r = LLVMBuildAdd(b, LLVMBuildAdd(b, r, q, ""), LLVMBuildZExt(b, up, L->t_i64, ""), "");
  LLVMValueRef over = LLVMBuildICmp(b, LLVMIntUGE, r, c64(L, inf), "");
  LLVMValueRef big = mode == SEM_RN ? c64(L, inf)
                     : mode == SEM_RZ ? c64(L, inf - 1)
                                      : LLVMBuildSelect(b, mode == SEM_RD ? neg : LLVMBuildNot(b, neg, ""), c64(L, inf), c64(L, inf - 1), "");
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
    if (mode == SEM_RN) return LLVMBuildFPTrunc(L->b, d, L->t_f32, "");
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
  return LLVMBuildTrunc(b, round_bits(L, LLVMBuildBitCast(b, u, L->t_f64, ""), SEM_FMT_BF16, SEM_RN), L->t_i16, "");
}

static bool lower_op_kind(Lower *L, Op *op);

/* Whether op is a scalar op lowered by lower_bf16: one of ir_op_sem's with a bf16 operand or result (but select
 * and bitcast, which move the bits as they are), or a conversion by a rounding mode. */
static bool is_bf16_op(const Op *op) {
  if (!ir_op_sem[op->kind].eval || op->kind == OP_SELECT || op->kind == OP_BITCAST) return false;
  if (ir_op_attr(op, "round")) return true;
  for (unsigned i = 0; i < op->nresults; i++)
    if (ty_is_bf16(op->results[i].type)) return true;
  for (unsigned i = 0; i < op->noperands; i++)
    if (op_operand(op, i) && ty_is_bf16(op_operand(op, i)->type)) return true;
  return false;
}

static bool lower_bf16(Lower *L, Op *op) {
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
  if (op->kind == OP_EXTF) { /* bf16 -> f32 exactly, f64 beyond */
    set(L, &op->results[0], rt->bits == 64 ? LLVMBuildFPExt(L->b, wide[0], L->t_f64, "") : wide[0]);
    return true;
  }
  for (unsigned i = 0; i < n; i++)
    if (wide[i]) slot(L, op_operand(op, i))->v = wide[i];
  L->bf16_as_f32 = true;
  bool ok = lower_op_kind(L, op);
  L->bf16_as_f32 = false;
  for (unsigned i = n; i-- > 0;)
    if (saved[i]) slot(L, op_operand(op, i))->v = saved[i];
  if (!ok) return false;
  if (ty_is_bf16(rt)) {
    LLVMValueRef r = get(L, &op->results[0]);
    set(L, &op->results[0], LLVMBuildTrunc(L->b, round_bits(L, LLVMBuildFPExt(L->b, r, L->t_f64, ""), SEM_FMT_BF16, SEM_RN), L->t_i16, ""));
  }
  return true;
}

static bool lower_op(Lower *L, Op *op) {
  di_set_location(L, op);
  if (is_bf16_op(op)) return lower_bf16(L, op);
  return lower_op_kind(L, op);
}

static bool lower_op_kind(Lower *L, Op *op) {
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
  case OP_ALLOCA: case OP_GLOBAL_REF: case OP_DYN_SHARED: case OP_SUBVIEW: case OP_REINTERPRET: case OP_FIELD: case OP_RECORD_ARRAY:
    return lower_mem_op(L, op);
  case OP_THREAD_ID: case OP_BLOCK_ID: case OP_BLOCK_DIM: case OP_GRID_DIM: case OP_LANE_ID: case OP_WARP_SIZE:
  case OP_BARRIER: case OP_BARRIER_RED: case OP_SYNCWARP: case OP_FENCE: case OP_ATOMIC_RMW: case OP_ATOMIC_CAS:
  case OP_GRID_SYNC: case OP_SHFL: case OP_VOTE: case OP_MATCH: case OP_ACTIVEMASK: case OP_LANEMASK_LT: case OP_PRINT:
    return lower_gpu_op(L, op);
  case OP_FUNC_FUNC:
  case OP_GLOBAL: return fail(L, op, "'%s' inside a function", op_name(op));
  case OP_POWI: case OP_ISNAN: case OP_ISINF: case OP_ISFINITE: return lower_math(L, op);
  case OP_FREXP_MANT: case OP_FREXP_EXP: return lower_frexp(L, op);
  case OP_LIBDEVICE: return lower_libdevice(L, op);
  default:
    /* a libdevice function of ir_op_sem's table (sin, pow, ...) */
    if (ir_op_sem[op->kind].libdevice) return lower_math(L, op);
    return lower_arith(L, op);
  }
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
    if (!lower_op(L, op)) return false;
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
    LLVMBasicBlockRef bb = b == r->first ? entry_bb : block_target(L, b)->bb;
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
      LLVMValueRef data = LLVMGetParam(fi->fn, k++);
      LLVMTypeRef et = mem_type(L, ty_abi_elem(t));
      if (fi->kernel) {
        /* kernel arrays live in global memory: loads and stores become ld.global/st.global */
        a->data = LLVMBuildAddrSpaceCast(L->b, data, LLVMPointerType(et, ADDR_GLOBAL), "");
        a->as = ADDR_GLOBAL;
      } else {
        a->data = data;
        a->as = 0;
      }
      for (unsigned d = 0; d < a->rank; d++) a->shape[d] = LLVMGetParam(fi->fn, k++);
      for (unsigned d = 0; d < a->rank; d++) a->stride[d] = LLVMGetParam(fi->fn, k++);
      if (t->kind == TY_ARRAY) known_element_stride(L, a, t);
      else a->shape[0] = ci64(L, 1), a->stride[0] = ci64(L, t->size);
      set_arr(L, arg, a);
    } else {
      LLVMValueRef p = LLVMGetParam(fi->fn, k++);
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
  if (o->lineinfo) {
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
  Block *body = ir_module_body(m);
  for (Op *op = body->first; ok && op; op = op->next) {
    if (op->kind == OP_GLOBAL) ok = declare_global(&L, op);
    else if (op->kind == OP_FUNC_FUNC) ok = declare_function(&L, op);
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
    ok = !L.failed;
  }
  if (ok) {
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

/* LLVM 14 prints `cmpxchg ... monotonic monotonic, align 4` and `atomicrmw ... monotonic, align 4`;
 * LLVM 7's parser (NVVM 7.0.1) stops at the comma. The alignment is the natural one: drop it. */
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
