/* lower_llvm_internal.h — the kir-to-LLVM lowering (lower_llvm.c's top comment describes it), internal to the
 * backend: what its files share. The lowering state (Lower), its records of functions, globals and targets,
 * ArrVal (an array as a data pointer with shape and strides), the small helpers (errors, types, values,
 * declarations and calls) as static inline functions, and the functions each file offers the others (ll_).
 *
 * Files: lower_llvm.c the entry points (be_lower_module, be_print_module), module-level declarations (functions,
 * globals, the error record), targets, line information, regions and functions, printing; lower_llvm_ops.c the
 * op dispatch and the ops of constants, checks, calls, control flow, warps and printing; lower_llvm_memory.c
 * element addresses, atomics and the memory ops; lower_llvm_arith.c integer and float arithmetic, math and
 * libdevice, the never-contracted and fast float forms, bfloat16 and conversions by a rounding mode; lower_llvm_fp8.c
 * the FP8 conversions of cuda_fp8.h. */
#ifndef KF_BACKEND_LOWER_LLVM_INTERNAL_H
#define KF_BACKEND_LOWER_LLVM_INTERNAL_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Transforms/IPO.h>

#include "backend/backend.h"
#include "ir/libdevice.h"
#include "ir/op_semantics.h"
#include "kfront/abi.h"
#include "utils/mem.h"
#include "utils/ptrmap.h"

typedef struct ArrVal ArrVal;
struct ArrVal {
  LLVMValueRef data;     /* pointer to the element memory type, in address space `as` */
  unsigned as;
  unsigned rank;
  LLVMValueRef *shape;   /* rank i64 values */
  LLVMValueRef *stride;  /* rank i64 values, bytes */
  unsigned align;        /* alignment its elements are known to have, in bytes; 0: their size (natural) */
  unsigned base_align;   /* alignment data is known to have (kfront's own globals and allocas), in bytes; 0: none
                          * beyond the elements' (elem_ptr: an access at an offset of known trailing zeros has it) */
  /* a float view of complex elements (lower-complex's: parts_of's axes, then one of 2, the re and im parts):
   * elem_ptr addresses the complex element in parts_of, then the part in it, as numba-cuda's IR does (libNVVM then
   * loads or stores both parts as one vector where the element's alignment is known: ld.const.v2.f32) */
  struct ArrVal *parts_of;
  Type *parts_elem;      /* parts_of's element type (complex) */
};

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

typedef struct NameList {
  const char **names;
  unsigned n, cap;
} NameList;

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
  /* names of the called device functions of inline = "always" (whose calls inline_calls inlines) and of
   * forceinline (which it marks alwaysinline afterwards) */
  NameList inline_always, forceinline;
  /* binary16 +, -, * without PTX's rounding modifier (add.f16 ...: numba-cuda's cuda_fp16.h forms), which ptxas
   * may fuse into an fma: allowed where the module has nothing to fuse them with (ll_scan_half_ops) */
  bool half_plain_add, half_plain_mul;
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
  bool bf16_as_f32;             /* ll_lower_bf16: bf16 values are in registers as f32 for the op being lowered */
} Lower;

/* ---- errors and small helpers ------------------------------------------------------------- */

/* Reports the first lowering error at op's location (later ones follow from it) and returns false. */
static inline bool fail(Lower *L, const Op *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline bool fail(Lower *L, const Op *op, const char *fmt, ...) {
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

static inline LLVMValueRef ci32(Lower *L, int64_t v) { return LLVMConstInt(L->t_i32, (unsigned long long)v, 1); }
static inline LLVMValueRef ci64(Lower *L, int64_t v) { return LLVMConstInt(L->t_i64, (unsigned long long)v, 1); }

static inline bool attr_is_true(const Op *op, const char *name) {
  Attr *a = ir_op_attr(op, name);
  return a && (a->kind == ATTR_UNIT || (a->kind == ATTR_BOOL && a->b) || (a->kind == ATTR_INT && a->i));
}

static inline void add_fn_attr(Lower *L, LLVMValueRef fn, const char *name) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(L->ctx, kind, 0));
}

static inline void add_fn_str_attr(Lower *L, LLVMValueRef fn, const char *k, const char *v) {
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(L->ctx, k, (unsigned)strlen(k), v, (unsigned)strlen(v)));
}

/* ---- types ---------------------------------------------------------------------------------- */

/* The type a scalar has in memory (bool is a byte). */
static inline LLVMTypeRef mem_type(Lower *L, const Type *t);

/* The type a scalar or pointer value has in registers. NULL for arrays, tuples and functions. */
static inline LLVMTypeRef reg_type(Lower *L, const Type *t) {
  switch (t->kind) {
  case TY_BOOL: return L->t_i1;
  case TY_INT: return LLVMIntTypeInContext(L->ctx, t->bits);
  case TY_FLOAT:
    if (t->bfloat) return L->bf16_as_f32 ? L->t_f32 : L->t_i16; /* bfloat16: its bits (ll_lower_bf16) */
    return t->bits == 16 ? L->t_f16 : t->bits == 32 ? L->t_f32 : L->t_f64;
  case TY_PTR: return LLVMPointerType(mem_type(L, t->elem), t->addrspace);
  default: return NULL;
  }
}

static inline LLVMTypeRef mem_type(Lower *L, const Type *t) {
  if (t->kind == TY_BOOL) return L->t_i8;
  if (t->kind == TY_RECORD) return LLVMArrayType(L->t_i8, t->size); /* its fields are reached by mem.field */
  /* complex elements (lower-complex leaves them in memory only, read and written as their two floats) */
  if (t->kind == TY_COMPLEX) return LLVMArrayType(reg_type(L, t->elem), 2);
  if (t->kind == TY_ARRAY || t->kind == TY_TUPLE || t->kind == TY_FUNC) return L->t_i8;
  return reg_type(L, t);
}

static inline unsigned mem_size(const Type *t) { return t->kind == TY_BOOL ? 1 : ty_size(t); }

/* The alignment of a load or store of an element of a: natural unless a is a field of packed records. */
static inline unsigned access_align(const ArrVal *a, const Type *elem) {
  unsigned n = mem_size(elem);
  return a->align && a->align < n ? a->align : n;
}

/* Converts a loaded memory value to its register form, and back. */
static inline LLVMValueRef from_mem(Lower *L, const Type *t, LLVMValueRef v) {
  return t->kind == TY_BOOL ? LLVMBuildICmp(L->b, LLVMIntNE, v, LLVMConstInt(L->t_i8, 0, 0), "") : v;
}

static inline LLVMValueRef to_mem(Lower *L, const Type *t, LLVMValueRef v) {
  return t->kind == TY_BOOL ? LLVMBuildZExt(L->b, v, L->t_i8, "") : v;
}

/* ---- values --------------------------------------------------------------------------------- */

static inline Slot *slot(Lower *L, const Value *v) { return v->id < L->nslots ? &L->slots[v->id] : NULL; }

static inline LLVMValueRef get(Lower *L, const Value *v) {
  Slot *s = slot(L, v);
  return s ? s->v : NULL;
}

static inline ArrVal *get_arr(Lower *L, const Value *v) {
  Slot *s = slot(L, v);
  return s ? s->a : NULL;
}

static inline void set(Lower *L, const Value *v, LLVMValueRef x) {
  Slot *s = slot(L, v);
  if (s) s->v = x;
}

static inline void set_arr(Lower *L, const Value *v, ArrVal *a) {
  Slot *s = slot(L, v);
  if (s) s->a = a;
}

static inline ArrVal *new_arr(Lower *L, unsigned rank) {
  ArrVal *a = ARENA_NEW(&L->arena, ArrVal);
  a->rank = rank;
  a->shape = ARENA_ARRAY(&L->arena, LLVMValueRef, rank ? rank : 1);
  a->stride = ARENA_ARRAY(&L->arena, LLVMValueRef, rank ? rank : 1);
  return a;
}

/* An array passed (or returned) as data, shape and strides, of a contiguous layout: its element stride is
 * known (abi.h requires it), a constant instead of the value passed. */
static inline void known_element_stride(Lower *L, ArrVal *a, const Type *t) {
  if (t->layout == LAYOUT_C) a->stride[t->rank - 1] = ci64(L, mem_size(t->elem));
  else if (t->layout == LAYOUT_F) a->stride[0] = ci64(L, mem_size(t->elem));
}

/* The data pointer of a in address space `as` (addrspacecast through generic when needed). */
static inline LLVMValueRef arr_data_in(Lower *L, const ArrVal *a, LLVMTypeRef elem, unsigned as) {
  if (a->as == as) return a->data;
  LLVMValueRef p = a->data;
  if (a->as != 0) p = LLVMBuildAddrSpaceCast(L->b, p, LLVMPointerType(elem, 0), "");
  if (as != 0) p = LLVMBuildAddrSpaceCast(L->b, p, LLVMPointerType(elem, as), "");
  return p;
}

/* Strides of a C- or F-contiguous array of the given constant shape, in bytes. */
static inline void contiguous_strides(Lower *L, ArrVal *a, const int64_t *shape, unsigned esize, char layout) {
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

static inline LLVMValueRef declare(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n) {
  LLVMValueRef fn = LLVMGetNamedFunction(L->mod, name);
  if (fn) return fn;
  return LLVMAddFunction(L->mod, name, LLVMFunctionType(ret, params, n, 0));
}

static inline LLVMValueRef call(Lower *L, LLVMValueRef fn, LLVMValueRef *args, unsigned n) {
  return LLVMBuildCall2(L->b, LLVMGlobalGetValueType(fn), fn, args, n, "");
}

static inline LLVMValueRef call0(Lower *L, const char *name, LLVMTypeRef ret) {
  return call(L, declare(L, name, ret, NULL, 0), NULL, 0);
}

static inline LLVMValueRef call1(Lower *L, const char *name, LLVMTypeRef ret, LLVMValueRef a) {
  LLVMTypeRef pt = LLVMTypeOf(a);
  return call(L, declare(L, name, ret, &pt, 1), &a, 1);
}

static inline LLVMValueRef calln(Lower *L, const char *name, LLVMTypeRef ret, LLVMValueRef *args, unsigned n) {
  LLVMTypeRef pts[8];
  for (unsigned i = 0; i < n; i++) pts[i] = LLVMTypeOf(args[i]);
  return call(L, declare(L, name, ret, pts, n), args, n);
}

static inline LLVMValueRef inline_asm(Lower *L, LLVMTypeRef ret, const char *text, const char *constraints, bool side_effects,
                               LLVMValueRef *args, unsigned n) {
  LLVMTypeRef pts[4];
  for (unsigned i = 0; i < n; i++) pts[i] = LLVMTypeOf(args[i]);
  LLVMTypeRef fnty = LLVMFunctionType(ret, pts, n, 0);
  LLVMValueRef asmv = LLVMGetInlineAsm(fnty, (char *)text, strlen(text), (char *)constraints, strlen(constraints),
                                       side_effects, 0, LLVMInlineAsmDialectATT, 0);
  return LLVMBuildCall2(L->b, fnty, asmv, args, n, "");
}

/* Intrinsic names carrying the overloaded type: ".i32", ".f64", ... */
static inline const char *type_suffix(Lower *L, LLVMTypeRef t, char *buf, size_t n) {
  if (t == L->t_f16) return "f16";
  if (t == L->t_f32) return "f32";
  if (t == L->t_f64) return "f64";
  snprintf(buf, n, "i%u", LLVMGetIntTypeWidth(t));
  return buf;
}

static inline LLVMValueRef intrinsic1(Lower *L, const char *base, LLVMValueRef a) {
  char name[96], sfx[16];
  snprintf(name, sizeof name, "llvm.%s.%s", base, type_suffix(L, LLVMTypeOf(a), sfx, sizeof sfx));
  return call1(L, name, LLVMTypeOf(a), a);
}

/* ---- small helpers of the other files -------------------------------------------------------- */

static inline unsigned abi_param_count(const Type *t) { return ty_abi_rank(t) ? 1 + 2 * ty_abi_rank(t) : 1; }

/* LLVM objects live under the backend's guard (backend.c): each is registered while it lives, so an allocation
 * failure of ours disposes of it (utils/mem.h). */
static inline void dispose_builder(void *b) { LLVMDisposeBuilder(b); }

static inline LLVMBuilderRef new_builder(LLVMContextRef ctx) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  mem_guard_defer(dispose_builder, b);
  return b;
}

static inline void free_builder(LLVMBuilderRef b) {
  mem_guard_undefer(dispose_builder, b);
  LLVMDisposeBuilder(b);
}

static inline void add_incoming1(LLVMValueRef phi, LLVMValueRef v, LLVMBasicBlockRef from) {
  LLVMAddIncoming(phi, &v, &from, 1);
}

static inline LLVMValueRef is_zero(Lower *L, LLVMValueRef v) {
  return LLVMBuildICmp(L->b, LLVMIntEQ, v, LLVMConstNull(LLVMTypeOf(v)), "");
}

static inline LLVMValueRef fconst(LLVMTypeRef t, double v) { return LLVMConstReal(t, v); }

/* -v; of an f16 variable PTX's neg.f16 (numba-cuda's __hneg), not 0 - v (sub.f16, which ptxas may fuse) */
static inline LLVMValueRef fneg(Lower *L, LLVMValueRef v) {
  if (LLVMTypeOf(v) == L->t_f16 && !LLVMIsConstant(v)) return inline_asm(L, L->t_f16, "neg.f16 $0, $1;", "=h,h", false, &v, 1);
  if (L->nvvm) return LLVMBuildFSub(L->b, fconst(LLVMTypeOf(v), -0.0), v, ""); /* no fneg in LLVM 7 */
  return LLVMBuildFNeg(L->b, v, "");
}

static inline LLVMValueRef minmax_f(Lower *L, LLVMValueRef a, LLVMValueRef b, bool is_max) {
  /* Python: max(a, b) = b if b > a else a; min(a, b) = b if b < a else a */
  LLVMValueRef c = LLVMBuildFCmp(L->b, is_max ? LLVMRealOGT : LLVMRealOLT, b, a, "");
  return LLVMBuildSelect(L->b, c, b, a, "");
}

static inline LLVMValueRef operand(Lower *L, const Op *op, unsigned i) {
  if (i >= op->noperands) {
    fail(L, op, "'%s' has too few operands", op_name(op));
    return NULL;
  }
  Value *v = op_operand(op, i);
  LLVMValueRef x = v ? get(L, v) : NULL;
  if (!x) fail(L, op, "operand of '%s' is not an available scalar", op_name(op));
  return x;
}

/* LLVM's predicate of a kir comparison predicate. */
static inline LLVMIntPredicate icmp_pred(IrCmpIPred p) {
  switch (p) {
  case IR_CMPI_NE: return LLVMIntNE;
  case IR_CMPI_SLT: return LLVMIntSLT;
  case IR_CMPI_SLE: return LLVMIntSLE;
  case IR_CMPI_SGT: return LLVMIntSGT;
  case IR_CMPI_SGE: return LLVMIntSGE;
  case IR_CMPI_ULT: return LLVMIntULT;
  case IR_CMPI_ULE: return LLVMIntULE;
  case IR_CMPI_UGT: return LLVMIntUGT;
  case IR_CMPI_UGE: return LLVMIntUGE;
  default: return LLVMIntEQ;
  }
}

static inline LLVMRealPredicate fcmp_pred(IrCmpFPred p) {
  switch (p) {
  case IR_CMPF_ONE: return LLVMRealONE;
  case IR_CMPF_OLT: return LLVMRealOLT;
  case IR_CMPF_OLE: return LLVMRealOLE;
  case IR_CMPF_OGT: return LLVMRealOGT;
  case IR_CMPF_OGE: return LLVMRealOGE;
  case IR_CMPF_ORD: return LLVMRealORD;
  case IR_CMPF_UNE: return LLVMRealUNE;
  case IR_CMPF_ULT: return LLVMRealULT;
  case IR_CMPF_ULE: return LLVMRealULE;
  case IR_CMPF_UGT: return LLVMRealUGT;
  case IR_CMPF_UGE: return LLVMRealUGE;
  case IR_CMPF_UNO: return LLVMRealUNO;
  default: return LLVMRealOEQ;
  }
}

/* ---- functions of one file the others call --------------------------------------------------- */

/* lower_llvm.c */
bool ll_declare_function(Lower *L, Op *op);
unsigned ll_file_id(Lower *L, const char *file);
LLVMValueRef ll_error_flag(Lower *L);
LLVMBasicBlockRef ll_quit_block(Lower *L);
LLVMBasicBlockRef ll_oob_block(Lower *L);
unsigned ll_exception_id(Lower *L, const char *text);
void ll_add_incoming(Lower *L, Target *t, Value *const *vals, unsigned n, const Op *at);
void ll_jump(Lower *L, Target *t, Value *const *vals, unsigned n, const Op *at);
Target *ll_block_target(Lower *L, Block *b);
void ll_di_set_location(Lower *L, const Op *op);

/* lower_llvm_ops.c */
bool ll_lower_op(Lower *L, Op *op);
bool ll_lower_op_kind(Lower *L, Op *op);

/* lower_llvm_memory.c */
LLVMValueRef ll_entry_alloca(Lower *L, LLVMTypeRef t);
bool ll_lower_atomic(Lower *L, Op *op);
bool ll_lower_mem_op(Lower *L, Op *op);

/* lower_llvm_arith.c */
LLVMValueRef ll_libdevice(Lower *L, const char *name, LLVMValueRef *args, unsigned n);
void ll_scan_half_ops(Lower *L);
bool ll_lower_arith(Lower *L, Op *op);
bool ll_lower_frexp(Lower *L, Op *op);
bool ll_lower_libdevice(Lower *L, Op *op);
bool ll_lower_math(Lower *L, Op *op);
bool ll_is_bf16_op(const Op *op);
bool ll_lower_bf16(Lower *L, Op *op);
/* lower_llvm_fp8.c: arith.to_fp8 / from_fp8 */
bool ll_lower_fp8(Lower *L, Op *op);

#endif
