/* lower.h — the lowering, internal to the frontend: types and lowers one Python function to kir, in one walk over
 * its body. What the lowering's files share: the Lower state, its frames, and the functions each file offers the
 * others.
 *
 * Values. Every expression lowers to an FeVal: a runtime scalar or array (a kir Value, or a constant made
 * on use), a tuple of FeVals (tuples never exist in kir: they are scalarised), a view a[i] of an array, or
 * a compile-time object (a module path, a builtin, a type, a function). Variables map to FeVals in `env`
 * (one slot per local, plus pseudo-variables for "has returned", the return value, "has broken" and
 * "has continued"); an assignment just rebinds the slot, so the IR is SSA from the start.
 *
 * Control flow is structured. An if statement lowers both branches into the regions of an scf.if and
 * merges the environments: a variable that differs (and may be read later: see "liveness") becomes a
 * result, its type unified as Numba unifies (int64 and float64 give float64; undefined on one path gives
 * the other path's type with a zero value). Loops are scf.for
 * (range loops without break or return) or scf.while; the values carried around a loop are the
 * variables assigned in it that are read before being assigned in the body or read after the loop.
 * Their types are found by lowering the body speculatively (diagnostics held back) until the types at
 * the loop head are stable, as Numba's type inference iterates, then once more if an error was held back.
 * return / break / continue set their pseudo-variable; the statements after one that may have exited are
 * lowered in the else region of an scf.if on the flag, and `if c: return` followed by more statements
 * puts those statements directly in the else region (no flag), so kernels keep their guard conditions.
 *
 * Arrays. Each element access is `mem.dim` + (for a signed index not known to be >= 0) a wrap of
 * negative indices + `check.bounds` (when bounds checks are on) + mem.load/mem.store with i64 indices.
 * a[i] of an array of higher rank is a view (the array and its fixed leading indices) that can be indexed,
 * measured and passed to device functions (as the array plus the indices).
 *
 * Files: lower.c the walk (names, attributes, expressions, assignment, statements, lower_function);
 * lower_values.c diagnostics, values, liveness, environments and the structured if; lower_operators.c operators,
 * comparisons, conditions; lower_arrays.c elements, views, slices, attributes and methods of arrays;
 * lower_records.c structured dtypes; lower_strings.c NumPy's bytes and str items; lower_datetime.c datetime64 and timedelta64; lower_reductions.c NumPy's
 * reductions; lower_calls.c arguments, device functions, recursion, closures; lower_builtins.c the builtin dispatch,
 * Python's builtins, print, the operator module; lower_math.c math, ufuncs, libdevice, cmath; lower_cuda.c
 * numba.cuda's builtins and vector types; lower_loops.c loops; lower_raise.c raise and assert; lower_overloads.c
 * calls of overloaded functions (numba's @overload, through the embedder's resolver); optional.c Numba's Optional(T)
 * (values that may be None). Match statements
 * never reach the walk: match.c rewrites them to ifs when sema reads the function. */
#ifndef KF_FRONTEND_LOWER_H
#define KF_FRONTEND_LOWER_H

#include <stdbool.h>

#include "frontend/fe.h"
#include "ir/libdevice.h"
#include "utils/stack.h"

enum { MAX_HIDDEN_IV = 16, MAX_FLAT = 256 };

typedef struct LoopCtx {
  struct LoopCtx *outer;
} LoopCtx;

typedef struct Memo {
  const PyExpr *key;
  Op *op;
} Memo;

typedef struct Note {
  unsigned var;
  const char *type;
} Note;

/* A statement list being lowered: k is the statement at hand. loop_ue: for a loop body, the locals the
 * loop (test, target, body, else clause) reads before assigning. */
typedef struct Frame {
  struct Frame *outer;
  PyStmt *const *s;
  unsigned n, k;
  const bool *loop_ue;
  /* the list holds the rest of the enclosing frame's (the statements after one that may exit, or after an if
   * whose other branch always exits): after it, control goes on after the enclosing frame's last statement */
  bool holds_rest;
} Frame;

struct Suffix;

typedef struct Lower {
  FeCtx *fe;
  IrContext *ctx;
  Module *m;
  FeFunc *fn;
  FeInst *inst;
  IrBuilder b;
  Op *func_op;
  const char *sym;
  bool kernel;
  unsigned nvars;            /* locals + pseudo-variables */
  unsigned v_ret, v_rv, v_brk, v_cont, v_iv0;
  unsigned v_bound0;         /* v_bound0 + i: whether local i is bound (i1), see "unbound locals" */
  unsigned niv;              /* hidden induction variables in use */
  FeVal *env;
  LoopCtx *loop;
  int quiet;
  unsigned suppressed, errors;
  unsigned pending_fn, pending_loop;
  bool has_value_return, has_bare_return;
  bool value_returns;        /* a device function with return statements of values: "has returned" is live to its end,
                              * where a path that did not return makes the result Optional (falling off returns None) */
  SrcLoc first_value_return;
  const PyExpr *returning;   /* the value of the return statement being lowered, or NULL (lw_recursive_call's check) */
  Memo *memo;
  unsigned nmemo, memo_cap;
  const char *assign_hint;
  Type *declared_ret;
  bool has_declared_ret;
  Note *notes;
  unsigned nnotes, notes_cap;
  Frame *frame;
  const bool *next_loop_ue; /* set by lower_loop for the body frame lower_stmts pushes next */
  bool next_holds_rest;     /* set by seq_fn for the frame lower_stmts pushes next (Frame.holds_rest) */
  struct Suffix *suffixes;
  unsigned nsuffixes, suffixes_cap;
  bool out_of_stack;        /* "nested too deeply for the thread's stack" was said */
  const PyExpr **raw_prints; /* print() calls of more than 32 items (a warning each when the function is done) */
  unsigned nraw_prints, raw_prints_cap;
  Type **seen_types;        /* per local: the type of the last number or boolean it was given anywhere in the
                             * function so far (lw_note_type), for a read where it is unbound on every path */
  Value **readonly_arrays;  /* the arrays known readonly: parameters of FeVal.readonly shapes, and the values of
                             * ifs, conditional expressions, loops and calls that merge or return one (lw_array_readonly) */
  unsigned nreadonly_arrays, readonly_arrays_cap;
} Lower;

/* The methods of arrays kfront knows (FV_METHOD's builtin): those Numba's CUDA target compiles without
 * allocating, and those it names only to say they allocate. */
#define ARRAY_METHODS(X)                                                                          \
  X(TRANSPOSE, "transpose") X(RESHAPE, "reshape") X(RAVEL, "ravel") X(VIEW, "view")              \
  X(COPY, "copy") X(FLATTEN, "flatten") X(ASTYPE, "astype") X(ITEM, "item")                     \
  X(CONJUGATE, "conjugate") X(SUM, "sum") X(PROD, "prod") X(MIN, "min") X(MAX, "max")          \
  X(ALL, "all") X(ANY, "any") X(MEAN, "mean") X(VAR, "var") X(STD, "std")
enum {
#define X(id, name) M_##id,
  ARRAY_METHODS(X)
#undef X
  M__COUNT,
  M_INT_BIT_COUNT = M__COUNT, /* the methods of integers (FV_METHOD of an integer value) */
  M_SLICE_INDICES,            /* slice.indices (FV_METHOD of a slice object: recv the slice) */
};

typedef void (*BranchFn)(Lower *L, void *arg);
/* c && <lazy> where <lazy> is produced by fn into the current insertion point: pure -> andi, else scf.if. */
typedef FeVal (*LazyFn)(Lower *L, void *arg);
/* A statement list lowered by seq_fn; holds_rest: it holds the rest of the frame at hand (Frame.holds_rest). */
typedef struct StmtSeq {
  PyStmt *const *s;
  unsigned n;
  bool holds_rest;
} StmtSeq;

/* ---- what the files of the lowering share (their other functions are their own) ------------------------------ */

/* ---- lower.c */
void lw_check_bound(Lower *L, unsigned i, SrcLoc loc);
FeVal lw_run_time_string_len(Lower *L, const FeVal *v, SrcLoc loc);
bool lw_run_time_string_compare(Lower *L, PyCmpOp op, const FeVal *a, const FeVal *b, SrcLoc loc, FeVal *out);
/* An expression's value; an Optional one used as its T (lw_unwrap). lw_lower_expr_opt: the value as it is, for the
 * places an Optional goes as one (assignments, returns, device function arguments, `is None`, tuples). */
FeVal lower_expr(Lower *L, const PyExpr *e);
FeVal lw_lower_expr_opt(Lower *L, const PyExpr *e);
void lw_assign(Lower *L, const PyExpr *t, FeVal v, SrcLoc vloc);
void lower_stmts(Lower *L, PyStmt *const *s, unsigned n);

/* ---- lower_values.c */
FeVal lw_lerr(Lower *L, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
FeVal lw_out_of_stack(Lower *L, SrcLoc loc, const char *what);
const char *lw_vname(Lower *L, const FeVal *v);
void lw_note_type(Lower *L, unsigned i, const FeVal *v);
void lw_report_notes(Lower *L);
Value *lw_mat(Lower *L, const FeVal *x);
FeVal lw_conv(Lower *L, FeVal x, Type *t);
FeVal lw_truth(Lower *L, FeVal x, SrcLoc loc);
Type *lw_fv_type(Lower *L, const FeVal *v);
FeVal lw_make_tuple(Lower *L, unsigned n, const FeVal *elems);
/* A tuple of elems of the named tuple class of `like` (its class and field names, the elements' own types) when like
 * is a named tuple type of n elements, else a plain tuple (lw_make_tuple). */
FeVal lw_make_tuple_like(Lower *L, const Type *like, unsigned n, const FeVal *elems);
FeVal lw_make_vector(Type *t, FeVal *fields);
FeVal lw_user_tuple(Lower *L, unsigned n, const FeVal *elems, SrcLoc loc);
bool lw_fv_same(const FeVal *a, const FeVal *b);
unsigned lw_type_slots(const Type *t);
void lw_flat_types(IrContext *ctx, const Type *t, Type **out, unsigned *n);
Value *lw_record_as_array(Lower *L, const FeVal *r);
bool lw_flatten_to(Lower *L, const FeVal *x, Type *t, Value **out, unsigned *n, Value *const *fallback,
                   SrcLoc loc, const char *var);
FeVal lw_unflatten(Lower *L, Type *t, Value *const *vals, unsigned *pos);
int lw_merge_static(Lower *L, const FeVal *a, const FeVal *b, SrcLoc loc, const char *var, FeVal *out);
bool lw_merge_enum(Lower *L, const FeVal *a, const FeVal *b, SrcLoc loc, const char *var, const FeEnum **out);
const char *lw_var_name(Lower *L, unsigned i);
bool lw_var_live(Lower *L, unsigned i, unsigned after);
FeVal *lw_env_copy(Lower *L);
void lw_emit_if(Lower *L, Value *cond, unsigned refine_mask, unsigned after, SrcLoc loc, BranchFn fthen, void *athen,
                BranchFn felse, void *aelse);
Block *lw_scratch_begin(Lower *L, IrBuilder *saved);
bool lw_block_pure(const Block *blk);
void lw_splice_block(Lower *L, Block *blk);
Value *lw_if_value(Lower *L, Value *cond, Block *bt, Value *tv, Block *be, Value *ev, Type *t);
void lw_ue_expr(Lower *L, const PyExpr *e, const bool *def, bool *ue);
void lw_ue_target(Lower *L, const PyExpr *t, bool *def, bool *ue);
bool *lw_bools(Lower *L, const bool *src);
void lw_ue_stmts(Lower *L, const PyStmtList *l, bool *def, bool *ue);
void lw_assigned_target(Lower *L, const PyExpr *t, bool *a);
void lw_assigned_in(Lower *L, const PyStmtList *l, bool *a);

/* ---- lower_operators.c */
FeVal lw_conv_complex(Lower *L, FeVal x, Type *t);
bool lw_implicit_conv_error(Lower *L, const FeVal *v, Type *t, SrcLoc loc, const char *what);
FeVal lw_binop(Lower *L, PyBinOp op, FeVal a, FeVal b, SrcLoc loc);
FeVal lw_unop(Lower *L, PyUnaryOp op, FeVal a, SrcLoc loc);
FeVal lw_compare2(Lower *L, PyCmpOp op, FeVal a, FeVal b, SrcLoc loc);
FeVal lw_lazy_and(Lower *L, FeVal c, LazyFn fn, void *arg, bool is_or, SrcLoc loc);
FeVal lower_compare(Lower *L, const PyExpr *e);
FeVal lower_cond(Lower *L, const PyExpr *e);
FeVal lower_ifexp(Lower *L, const PyExpr *e);
FeVal lower_boolop(Lower *L, const PyExpr *e);

/* ---- lower_datetime.c */
FeVal lw_time_binop(Lower *L, PyBinOp op, FeVal a, FeVal b, SrcLoc loc);
FeVal lw_time_unop(Lower *L, PyUnaryOp op, FeVal a, SrcLoc loc);
FeVal lw_time_abs(Lower *L, FeVal a, SrcLoc loc);
FeVal lw_time_compare(Lower *L, PyCmpOp op, FeVal a, FeVal b, SrcLoc loc);
FeVal lw_time_minmax(Lower *L, bool is_max, const FeVal *items, unsigned n, SrcLoc loc);
FeVal lw_time_isnat(Lower *L, FeVal a, SrcLoc loc);
FeVal lw_time_int(Lower *L, FeVal a, SrcLoc loc);
bool lw_time_conversion_error(Lower *L, const FeVal *v, Type *t, SrcLoc loc, const char *what);

/* ---- lower_arrays.c */
extern const char *const lw_method_names[];
bool lw_gather_indices(Lower *L, const PyExpr *ie, FeVal *out, unsigned *n, bool *views);
FeVal lw_index_array(Lower *L, const FeVal *a, const FeVal *ix, unsigned n, SrcLoc loc, bool store,
                     Value **base, Value **idx);
/* p[i] of a pointer (is_pointer): *base the pointer and idx[0] the index, for lw_load_element / lw_store_element;
 * false after a located error. */
bool lw_pointer_item(Lower *L, const FeVal *p, const PyExpr *ie, SrcLoc loc, Value **base, Value **idx);
/* base[idx...] of an array (one index per axis), or of a pointer (one index) */
FeVal lw_load_element(Lower *L, Value *base, Value **idx);
void lw_store_element(Lower *L, Value *base, Value **idx, Value *v);
/* Readonly arrays (Numba's, FeVal.readonly): whether arr is a readonly array or a view of one, and an array made one
 * (a parameter, a merged or returned value). lw_fv_readonly: whether v is one or a row a[i] of one. */
bool lw_array_readonly(Lower *L, const Value *arr);
void lw_add_readonly_array(Lower *L, Value *arr);
bool lw_fv_readonly(Lower *L, const FeVal *v);
/* Numba's unify of a readonly and a mutable array is readonly: each array of merged (the value of an if, a conditional
 * expression or a loop; tuples element by element) is made readonly where the same place of a or b holds one. */
void lw_merge_readonly(Lower *L, const FeVal *merged, const FeVal *a, const FeVal *b);
/* Numba's refusal of a subscript assignment to a readonly array (SetItemBuffer): true, with the located TypingError
 * "Cannot modify readonly array of type: readonly array(float32, 1d, C)" (type the array subscripted), when arr is
 * one. */
bool lw_refuse_readonly_store(Lower *L, const Value *arr, const Type *type, SrcLoc loc);
bool lw_is_view_index(const PyExpr *ie);
FeVal lw_view_value(Lower *L, const FeVal *v);
bool lw_holds_view(const FeVal *v);
FeVal lw_views_as_arrays(Lower *L, const FeVal *v);
FeVal lw_slice_attr(Lower *L, const FeVal *s, const char *a, SrcLoc aloc);
FeVal lw_slice_indices(Lower *L, const FeVal *s, const PyExpr *e);
FeVal lw_index_view(Lower *L, FeVal a, const PyExpr *ie, SrcLoc loc, Value **base, Value **idx);
FeVal lw_index_view_values(Lower *L, FeVal a, const FeVal *ix, unsigned n, const PyExpr *ie, SrcLoc loc,
                           Value **base, Value **idx);
void lw_store_into(Lower *L, Value *dst, FeVal v, SrcLoc vloc);
void lw_assign_view(Lower *L, const PyExpr *t, FeVal v, SrcLoc vloc);
FeVal lw_array_attribute(Lower *L, const FeVal *v, const char *a, SrcLoc aloc);
FeVal lw_ctypes_attribute(Lower *L, const FeVal *ct, const char *a, SrcLoc aloc);
/* Whether v (an array, a view, a record or a tuple of them) lies in a thread-local array that a.copy() made. */
bool lw_holds_copy(Lower *L, const FeVal *v);
FeVal lower_method(Lower *L, const FeVal *m, const PyExpr *e);
FeVal lw_subscript_of(Lower *L, const PyExpr *e, FeVal v);

/* ---- lower_records.c */
FeVal lw_record_ref(Lower *L, Value *arr, Value *const *idx);
Value *lw_field_array(Lower *L, Value *arr, unsigned k);
const char *lw_record_fields_list(Lower *L, const Type *rec);
FeVal lw_record_field(Lower *L, const FeVal *r, const char *name, size_t len, SrcLoc loc, Value **base,
                      Value **idx);
FeVal lw_record_item(Lower *L, const FeVal *r, const PyExpr *ie, Value **base, Value **idx);
unsigned lw_nested_dims(const FeVal *v, unsigned *dims);
void lw_assign_composite(Lower *L, const FeVal *target, FeVal v, SrcLoc tloc, SrcLoc vloc);

/* ---- lower_strings.c */
bool lw_is_charseq(const FeVal *v);
FeVal lw_charseq_len(Lower *L, const FeVal *s, SrcLoc loc);
FeVal lw_charseq_truth(Lower *L, const FeVal *s, SrcLoc loc);
FeVal lw_charseq_item(Lower *L, const FeVal *s, const PyExpr *ie, SrcLoc loc);
FeVal lw_charseq_compare(Lower *L, PyCmpOp op, FeVal a, FeVal b, SrcLoc loc);
void lw_charseq_assign(Lower *L, const FeVal *target, FeVal v, SrcLoc tloc, SrcLoc vloc);
FeVal lw_charseq_copy(Lower *L, const FeVal *v, SrcLoc loc);

/* ---- lower_reductions.c */
FeVal lower_reduction(Lower *L, const char *name, const char *fname, FeVal arr, const PyExpr *e, unsigned nargs);

/* ---- lower_calls.c */
/* A call's arguments, lowered once (lw_lower_call_args): positional ones (a *tuple's elements among them), then
 * keyword ones in the order of e->call.keywords. */
typedef struct LwCallArgs {
  unsigned npos, nkw;
  FeVal *pos, *kw;
  SrcLoc *pos_loc;
} LwCallArgs;
bool lw_lower_call_args(Lower *L, const PyExpr *e, LwCallArgs *ca);
bool lw_bind_lowered_args(Lower *L, const PyExpr *e, const LwCallArgs *ca, const char *fname,
                          const char *const *names, unsigned nmin, unsigned nmax, unsigned nposonly, FeVal *out,
                          FeVal *rest);
/* A call of device function f with arguments already lowered. */
FeVal lw_call_device_lowered(Lower *L, FeFunc *f, const PyExpr *e, const LwCallArgs *ca);
bool lw_bind_args_rest(Lower *L, const PyExpr *e, const char *fname, const char *const *names, unsigned nmin,
                       unsigned nmax, unsigned nposonly, FeVal *out, FeVal *rest);
bool lw_positional(Lower *L, const PyExpr *e, const char *fname, unsigned nmin, unsigned nmax, FeVal *out);
bool lw_want_int(Lower *L, const FeVal *v, const char *what, SrcLoc loc);
void lw_shape_key(const FeVal *s, StrBuf *out);
void lw_flatten_shape_types(const FeVal *s, Type **out, unsigned *n);
/* The flat parameters (numbered from *at, as lw_flatten_shape_types counts them) of parameter shape s that are
 * readonly arrays, as i64 attributes appended to out (*n of them; at most MAX_FLAT). */
void lw_readonly_params(Lower *L, const FeVal *s, unsigned *at, Attr *out, unsigned *n);
FeVal lw_shape_of_type(Lower *L, Type *t);
void lw_copy_enums(FeVal *shape, const FeVal *v);
/* The readonly arrays of v, onto the shape of its type (a device function returning a readonly array returns a
 * readonly array, as Numba types it). */
void lw_copy_readonly(Lower *L, FeVal *shape, const FeVal *v);
FeVal lw_from_shape(Lower *L, const FeVal *s, Value *const *vals, unsigned *pos);
void lw_note_return_type(Lower *L, const FeVal *v);
/* How many return statements of the statements return a value (not None). */
unsigned lw_value_returns(const PyStmtList *l);
void lw_check_recursive_return(Lower *L, Type *final);
FeVal lw_instantiate_and_call(Lower *L, FeFunc *f, const PyExpr *e, FeVal *args,
                              unsigned np);
void lw_check_member_index(Lower *L, const FeVal *v);
void lower_funcdef(Lower *L, const PyStmt *s);
FeVal lower_lambda(Lower *L, const PyExpr *e);
FeVal lw_call_of(Lower *L, const PyExpr *e, FeVal f);

/* ---- lower_overloads.c */
FeVal lw_call_overload(Lower *L, const char *path, const PyExpr *e);
/* lower_foreign.c: a call of a foreign device function (cuda.declare_device) with numba-cuda's ABI. */
FeVal lw_call_foreign(Lower *L, const FeVal *fn, const PyExpr *e);

/* ---- lower_builtins.c: the builtins of builtins.def, each row's lowering (LOWER) with its call's arguments bound as
 * its PARAMS say (NULL for SYNTAX: the function reads the call) */
typedef FeVal LwBuiltinLowering(Lower *L, int bi, const PyExpr *e, FeVal *args);
enum { LW_MAX_BUILTIN_ARGS = 8 };
typedef struct LwBuiltin {
  const char *call;              /* CALL: how a call's diagnostics name it ("cuda.atomic.add") */
  unsigned nmin, nmax;           /* PARAMS: how many arguments it takes */
  const char *const *keywords;   /* their names when they may be given by keyword (KEYWORDS), else NULL */
  bool syntax;                   /* SYNTAX: the arguments are not bound */
  LwBuiltinLowering *lower;
  int op;                        /* OP: the kir op of a math function, else -1 */
} LwBuiltin;
/* builtins.def's row of builtin bi (NULL for the families of their own tables: ufuncs, fp16, ...) */
const LwBuiltin *lw_builtin(int bi);
void lw_report_raw_prints(Lower *L);
FeVal lower_builtin_call(Lower *L, int bi, const PyExpr *e);
/* the rows' lowering functions, by file */
LwBuiltinLowering lower_slice_ctor;                                                             /* lower_arrays.c */
LwBuiltinLowering lower_math, lower_numeric_fn, lower_minmax, lower_cmath;                      /* lower_math.c */
LwBuiltinLowering lower_fp8_builtin;                                                            /* lower_fp8.c */
LwBuiltinLowering lower_grid, lower_numpy_dtype, lower_array_decl, lower_const_array, lower_atomic, lower_warp,
    lower_sync, lower_nanosleep, lower_cg, lower_bits, lower_cache_hint, lower_cfarray, lower_ffi_from_buffer; /* lower_cuda.c */

/* ---- lower_math.c */
const NbCase *lw_resolve_fn(Lower *L, int bi, const FeVal *args, unsigned n, const char *fname, SrcLoc loc);
bool lw_fastmath_f32(Lower *L, const Type *t);
Value *lw_fastmath_op(Lower *L, Value *v);
FeVal lw_round_ndigits(Lower *L, const FeVal *a, const PyExpr *e);
FeVal lower_lowp(Lower *L, bool bf16, int k, const PyExpr *e);
/* lower_fp8.c: FP8 storage types (ty_storage) in kernels. A call of the type t (fp8_e4m3(x)); x converted to a
 * scalar type by to(x) (float32(v)); an implicit conversion to or from one (an error: true, reported); an attribute;
 * the cvt_* intrinsics (BI_FP8_*). */
FeVal lw_storage_construct(Lower *L, Type *t, const PyExpr *e);
FeVal lw_storage_cast(Lower *L, FeVal x, Type *to, SrcLoc loc);
bool lw_storage_conversion_error(Lower *L, const FeVal *v, Type *t, SrcLoc loc, const char *what);
FeVal lw_storage_attr(Lower *L, const FeVal *v, const char *attr, SrcLoc loc);
FeVal lower_libdevice(Lower *L, int k, const PyExpr *e);
FeVal lower_ufunc(Lower *L, int u, const PyExpr *e);
FeVal lw_abs_of(Lower *L, FeVal a, const char *fname, SrcLoc loc);

/* ---- lower_cuda.c */
FeVal lower_vector_ctor(Lower *L, int k, const PyExpr *e);
Type *lw_dtype_of(Lower *L, const FeVal *d, SrcLoc loc);
/* The thread-local array of type t (C-contiguous, extents dims) of call site `site`: an alloca at the function's entry,
 * one per site (cuda.local.array, a.copy()). */
Value *lw_local_array(Lower *L, const PyExpr *site, Type *t, const int64_t *dims);
/* A 0-d array: the view x[...] of an array with every axis fixed (a 0-d parameter, global or captured array); and
 * such a view as the thread-local array of its one element, which a reduction reduces as NumPy reduces the 0-d
 * array (lower_reductions.c). */
bool lw_is_zero_d_view(const FeVal *v);
FeVal lw_zero_d_as_array_of_one(Lower *L, const FeVal *view);
FeVal lw_const_array_ref(Lower *L, const FeConstArr *ca, const char *hint);

/* ---- lower_loops.c */
void lower_for(Lower *L, const PyStmt *s);
void lower_while(Lower *L, const PyStmt *s);

/* ---- optional.c: Numba's Optional(T) (FV_OPTIONAL) */
/* An optional of type t (ty_optional) of its value and its i1 "present" flag. */
FeVal lw_make_optional(Lower *L, Type *t, FeVal payload, FeVal present);
/* v used as its T: an optional's value, raising TypeError("expected T, got None") at loc where it is None; any other
 * value as it is. */
FeVal lw_unwrap(Lower *L, FeVal v, SrcLoc loc);
/* Where two paths meet with None on one and a value on the other, or an optional on either: true with *out the
 * Optional type they unify to (NULL after a located error); false when neither is None nor optional. */
bool lw_optional_merge(Lower *L, const FeVal *a, const FeVal *b, SrcLoc loc, const char *var, Type **out);
/* x (None, an optional or a value) flattened as optional type t: the value's flat values (zeros for None), the flag. */
bool lw_flatten_optional(Lower *L, const FeVal *x, Type *t, Value **out, unsigned *n, SrcLoc loc, const char *var);
FeVal lw_unflatten_optional(Lower *L, Type *t, Value *const *vals, unsigned *pos);
/* A comparison with an optional operand decided here (is / is not None, == / != None, or an error): true with *out. */
bool lw_optional_compare(Lower *L, PyCmpOp op, const FeVal *a, const FeVal *b, SrcLoc loc, FeVal *out);
/* The truth of an optional: numba-cuda's TypingError. */
FeVal lw_optional_truth(Lower *L, const FeVal *v, SrcLoc loc);
/* A device function's result: rv where every path returned (returned the constant true), else the optional of rv
 * present where it returned a value (returned: the i1 "has returned"; falling off the end returns None). */
FeVal lw_optional_result(Lower *L, FeVal rv, FeVal returned, SrcLoc loc);

/* ---- lower_raise.c */
void lw_emit_raise(Lower *L, Value *cond, const char *text, SrcLoc loc);
const char *lw_exception_text(Lower *L, const char *cls, const PyExpr *e, SrcLoc loc);
void lower_raise(Lower *L, const PyStmt *s);
void lower_assert(Lower *L, const PyStmt *s);

/* ---- small helpers ---------------------------------------------------------------------------------------------- */

/* Whether the kernel being compiled (or the function compiled on its own) has debug=True. */
static inline bool debug_mode(FeCtx *fe) { return fe->cur_top && ir_op_attr(fe->cur_top, "debug"); }

static inline FeVal poison(void) { return (FeVal){.kind = FV_POISON}; }

static inline SrcLoc user_loc(Lower *L, SrcLoc loc) { return L->fn->user ? L->fn->user->loc : loc; }

/* loc as an op's location: its file the module arena's copy (the frontend's source goes before the IR does). */
static inline SrcLoc op_loc(Lower *L, SrcLoc loc) {
  loc = user_loc(L, loc);
  return (SrcLoc){L->fn->src->mfile, loc.line, loc.col};
}

static inline void at(Lower *L, SrcLoc loc) { L->b.loc = op_loc(L, loc); }

static inline const char *tname(Lower *L, const Type *t) { return nb_type_str(&L->fe->arena, t); }

static inline FeVal val(Type *t, Value *v) { return (FeVal){.kind = FV_VAL, .type = t, .v = v}; }

static inline FeVal cint(Type *t, int64_t i) {
  return (FeVal){.kind = FV_VAL, .is_const = true, .type = t, .c.i = i, .nonneg = t->kind == TY_BOOL || i >= 0};
}

static inline FeVal cfloat(Type *t, double f) { return (FeVal){.kind = FV_VAL, .is_const = true, .type = t, .c.f = f}; }

static inline FeVal cbool(Lower *L, bool b) { return cint(ty_bool(L->ctx), b); }

/* An Enum member (not an IntEnum one) is a value but not a number (enums.c, "enums" below). */
static inline bool is_enum_only(const FeVal *v) { return v->kind == FV_VAL && v->enumc && !v->enumc->is_int; }

/* an integer type that is no datetime64/timedelta64 (what indices, extents and counts must be) */
static inline bool is_int_type(const Type *t) { return t->kind == TY_INT && !t->time && !t->storage; }

/* a datetime64 or timedelta64 value (lower_datetime.c) */
static inline bool is_time(const FeVal *v) { return v->kind == FV_VAL && ty_is_time(v->type); }

/* a number: a scalar or a complex value */
static inline bool is_scalar(const FeVal *v) { return v->kind == FV_VAL && ty_is_number(v->type) && !is_enum_only(v); }

static inline bool is_complex(const FeVal *v) { return v->kind == FV_VAL && v->type->kind == TY_COMPLEX; }

static inline bool is_array(const FeVal *v) { return v->kind == FV_VAL && v->type->kind == TY_ARRAY; }

static inline bool is_pointer(const FeVal *v) { return v->kind == FV_VAL && v->type->kind == TY_PTR; }

static inline bool is_const_int(const FeVal *v) {
  return v->kind == FV_VAL && !is_enum_only(v) && v->is_const && (v->type->kind == TY_INT || v->type->kind == TY_BOOL);
}

static inline bool is_true(const FeVal *v) { return v->kind == FV_VAL && v->is_const && v->c.i != 0; }

/* Compile-time values passed to device functions: functions (device functions, closures, intrinsics), Numba types
 * and None. The callee is specialised on each (one instance per distinct value, as Numba's dispatcher types and
 * function literals make one per value): the value is part of the instance's key and has no kir parameter. */
/* cuda.cg.this_grid()'s group: a compile-time value (no run-time data), passed to and returned from device
 * functions as such. */
static inline bool is_grid_group(const FeVal *v) { return v->kind == FV_BUILTIN && v->builtin == BI_GRID_GROUP; }

/* Values made of others (tup): tuples, views and records a[i] (the array and the indices), CUDA vectors (the fields),
 * optionals (the value and its flag). */
static inline bool has_fields(const FeVal *v) {
  return v->kind == FV_TUPLE || v->kind == FV_VIEW || v->kind == FV_RECORD || v->kind == FV_VECTOR ||
         v->kind == FV_OPTIONAL;
}

static inline bool is_static(const FeVal *v) {
  return v->kind == FV_FUNC || v->kind == FV_BUILTIN || v->kind == FV_NTYPE || v->kind == FV_NONE ||
         v->kind == FV_CLOSURE;
}

static inline Value *conv_v(Lower *L, FeVal x, Type *t) {
  FeVal r = lw_conv(L, x, t);
  return lw_mat(L, &r);
}

static inline FeVal zero_of(Type *t) {
  return t->kind == TY_FLOAT || t->kind == TY_COMPLEX ? cfloat(t, 0) : cint(t, 0);
}

/* A record (a reference to one, Numba's Record value) where values meet (branches, loops, device function results)
 * is carried as the array of that one record: a view of one element of the array it is in. */
static inline Type *record_ref_type(IrContext *ctx, Type *rec) { return ty_array(ctx, rec, 1, LAYOUT_A); }

/* The record an array of one record (record_as_array's) stands for. */
static inline FeVal record_of_array(Lower *L, Value *arr) {
  Value *zero = ib_const_int(&L->b, ty_i64(L->ctx), 0);
  return lw_record_ref(L, arr, &zero);
}

static inline void env_set(Lower *L, const FeVal *e) { memcpy(L->env, e, sizeof(FeVal) * L->nvars); }

static inline unsigned bound_slot(Lower *L, unsigned local) { return L->v_bound0 + local; }

/* A string chosen at run time: one of the string values of a valued enum (what .value of a member chosen at run
 * time gives), its index in the enum's values; no string is made at run time in a kernel (numba-cuda's unicode
 * operations that would need one need its NRT), so len() and comparisons are chosen among the candidates'. */
static inline bool is_run_time_string(const FeVal *v) {
  return v->kind == FV_VAL && v->enumc && v->enumc->strings_of;
}

static inline bool is_nested_view(const FeVal *v) {
  unsigned dims[TY_MAX_FIELD_DIMS];
  return v->kind == FV_VIEW && lw_nested_dims(v, dims) && v->tup.n - 1 + lw_nested_dims(v, dims) == v->tup.elems[0].v->type->rank;
}

static inline bool is_slice_obj(const FeVal *v) { return v->kind == FV_VECTOR && v->type->slice; }

static inline Value *complex_make(Lower *L, Value *re, Value *im, Type *t) {
  Value *ops[2] = {re, im};
  return op_result(ib_op(&L->b, OP_COMPLEX_CREATE, 2, ops, 1, &t, 0), 0);
}

static inline Value *complex_part(Lower *L, Value *z, bool imag) {
  Type *ft = z->type->elem;
  return op_result(ib_op(&L->b, imag ? OP_COMPLEX_IM : OP_COMPLEX_RE, 1, &z, 1, &ft, 0), 0);
}

static inline bool bind_args(Lower *L, const PyExpr *e, const char *fname, const char *const *names, unsigned nmin,
                             unsigned nmax, FeVal *out) {
  return lw_bind_args_rest(L, e, fname, names, nmin, nmax, 0, out, NULL);
}

static inline SrcLoc arg_loc(const PyExpr *e, unsigned i) {
  return i < e->call.args.n ? e->call.args.items[i]->loc : e->loc;
}

/* The function being lowered needs a cooperative launch (numba-cuda: this_grid() or a grid sync in it, or a call
 * of such a function); the runtime reads the kernel's attribute (runtime/plan.c). */
static inline void mark_cooperative(Lower *L) {
  if (L->func_op && !ir_op_attr(L->func_op, "cooperative")) ir_op_set_attr(L->m, L->func_op, "cooperative", attr_unit());
}

static inline void seq_fn(Lower *L, void *arg) {
  StmtSeq *q = arg;
  L->next_holds_rest = q->holds_rest;
  lower_stmts(L, q->s, q->n);
}

#endif
