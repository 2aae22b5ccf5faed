/* kir.h — building kir in memory: the builder API for other language frontends.
 *
 * An embedder that compiles its own kernel language builds kir (docs/kir.md) directly, instead of printing kir
 * text for kf_module_parse: types, attributes and locations, a module, functions, blocks with arguments, ops of
 * any kind created generically by name (checked against kir's op table, kf_op_registry_foreach) with typed
 * helpers for the common ones, scf.if, scf.for and scf.while whose regions the embedder fills, and mutable
 * variables that the builder turns into SSA values itself (block arguments for control-flow joins, scf results
 * and loop-carried values: Braun et al., "Simple and Efficient Construction of Static Single Assignment Form",
 * CC 2013), so that an embedder never writes a phi, a block argument for a variable, an scf.yield or an
 * scf.condition. The module is then verified (kf_module_verify), run through passes, compiled
 * (kf_module_emit_ptx) or made a program (kf_program_from_module), exactly as a parsed one.
 *
 * Conventions, as kfront.h's, after MLIR's C API and LLVM-C's builders:
 *  - handles are opaque; kf_type, kf_attr, kf_ir_value, kf_op, kf_block and kf_region are borrowed (types from
 *    the context: valid until it is destroyed; the rest from their module: valid until kf_module_destroy);
 *  - every function that can fail returns a kf_status and sets its out-parameters only on KF_OK (NULL
 *    otherwise); bad input (a NULL handle, a type that does not fit, an unknown op name, a wrong count of
 *    operands) is KF_ERROR_INVALID_INPUT with a diagnostic in the context located at the builder's current
 *    location, the embedder's own source position (kf_builder_set_location; kf_context_add_source lets the
 *    diagnostic quote the line and put a caret under the column);
 *  - out of memory is KF_ERROR_OUT_OF_MEMORY, reported; the builder is then spent (every later call on it
 *    returns KF_ERROR_OUT_OF_MEMORY without a new report) and its module may be half built: destroy both;
 *  - a builder, its module and its context are used by one thread at a time (kfront.h's rule for a context).
 *
 * Ops are checked as they are created against what the op table says of every op (operand, result, region and
 * successor counts); the per-op rules (operand types, attributes) are the verifier's: call kf_module_verify
 * once the module is built, and its diagnostics are located where the builder's location was when each op was
 * made. */
#ifndef KFRONT_KIR_H
#define KFRONT_KIR_H

#include "kfront/kfront.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kf_type kf_type;
typedef struct kf_attr kf_attr;
typedef struct kf_ir_value kf_ir_value;
typedef struct kf_op kf_op;
typedef struct kf_block kf_block;
typedef struct kf_region kf_region;
typedef struct kf_builder kf_builder;
typedef struct kf_var kf_var;

/* ---- types (interned in the context: equal types are equal pointers) -------------------------- */

/* The scalar type of a dtype: KF_BOOL i1, KF_INT32 i32, KF_UINT8 u8, KF_FLOAT32 f32, KF_BFLOAT16 bf16,
 * KF_COMPLEX64 complex<f32>, ... (record, datetime and timedelta dtypes: spell them for kf_type_parse). */
KF_API kf_status kf_type_scalar(kf_context *ctx, kf_dtype dtype, kf_type **out);
/* array<elem, rank, layout>: elem a scalar, complex or record type, rank 1..KF_MAX_RANK, layout 'C', 'F' or 'A'. */
KF_API kf_status kf_type_array(kf_context *ctx, kf_type *elem, unsigned rank, char layout, kf_type **out);
/* tuple<elems...> (n may be 0). */
KF_API kf_status kf_type_tuple(kf_context *ctx, unsigned n, kf_type *const *elems, kf_type **out);
/* (params...) -> (results...): a function's type. */
KF_API kf_status kf_type_function(kf_context *ctx, unsigned nparams, kf_type *const *params, unsigned nresults,
                                  kf_type *const *results, kf_type **out);
/* Any type in kir's text form (docs/kir.md: "f32", "array<f32, 2, A>", "record<x: f32 @0; size 4, align 4>"),
 * the whole text (NUL-terminated). A bad spelling is KF_ERROR_INVALID_INPUT (reported, unlocated). */
KF_API kf_status kf_type_parse(kf_context *ctx, const char *text, kf_type **out);
/* The type's kir text; caller owns *out (kf_free). */
KF_API kf_status kf_type_print(kf_context *ctx, const kf_type *t, char **out);

/* ---- locations and sources -------------------------------------------------------------------- */

/* A position in the embedder's source: file (NUL-terminated, copied where it is kept; NULL: no location),
 * 1-based line and column (0: not known). */
typedef struct kf_location {
  const char *file;
  unsigned line, col;
} kf_location;

/* Registers the text of the embedder's source file `file` (len bytes, need not be NUL-terminated; both are
 * copied, kept until the context is destroyed) so that diagnostics located in it quote the line and put a
 * caret under the column. Registering a file again replaces its text for later diagnostics. */
KF_API kf_status kf_context_add_source(kf_context *ctx, const char *file, const char *text, size_t len);

/* Reports the embedder's own diagnostic (its parser's or type checker's) among kfront's: level 0 error,
 * 1 warning, 2 note (kf_severity, kf_diagnostic_fn's levels); kind the kf_error_kind kf_context_first_error gives
 * for an error (KF_ERRKIND_SYNTAX, KF_ERRKIND_TYPING, ...; for a warning or note it is only its kf_diagnostic's
 * kind, and may be KF_ERRKIND_NONE); at loc (file copied; NULL: unlocated), rendered as kfront's are
 * (`file:line:col: error: message`, the line and a caret when the file was registered with kf_context_add_source),
 * kept as a kf_diagnostic (a note as a note of the diagnostic reported before it) and passed to the diagnostic
 * handler and callback. message is copied. An error counts in kf_context_error_count. KF_ERROR_INVALID_INPUT
 * (kind KF_ERRKIND_INVALID_ARGUMENT) for a bad level or kind or no message. */
KF_API kf_status kf_context_report(kf_context *ctx, int level, kf_error_kind kind, kf_location loc, const char *message);
/* kf_context_report from a kf_diagnostic's fields: severity, kind, message, file, line, col and end_col (the
 * others are ignored; everything is copied). Rendered the same way (one caret, at col). */
KF_API kf_status kf_context_report_diagnostic(kf_context *ctx, const kf_diagnostic *d);

/* ---- modules and builders --------------------------------------------------------------------- */

/* An empty module named name (NULL: "<builder>"; copied). Caller owns *out: kf_module_destroy. */
KF_API kf_status kf_module_create(kf_context *ctx, const char *name, kf_module **out);

/* A builder over m (which must outlive it), with no insertion point and no location. Caller owns *out:
 * kf_builder_destroy (before m). Any number of builders may work on one module, one at a time. */
KF_API kf_status kf_builder_create(kf_module *m, kf_builder **out);
KF_API void kf_builder_destroy(kf_builder *b);
/* The location given to every op the builder creates from now on and to the diagnostics of its calls. */
KF_API kf_status kf_builder_set_location(kf_builder *b, kf_location loc);
/* New ops go at the end of block (which must not be in the middle of an scf construct the builder has open
 * elsewhere), or before op. Variables (kf_var_*) are read and written at block ends: after
 * kf_builder_set_insertion_before they read as at the end of op's block. */
KF_API kf_status kf_builder_set_insertion_end(kf_builder *b, kf_block *block);
KF_API kf_status kf_builder_set_insertion_before(kf_builder *b, kf_op *op);
/* The block new ops go into (NULL when there is none). */
KF_API kf_block *kf_builder_insertion_block(kf_builder *b);

/* ---- functions, regions, blocks --------------------------------------------------------------- */

enum {
  KF_FUNCTION_FLAG_KERNEL = 1,   /* a kernel (`kernel` attribute): no results; launched by kf_function_launch */
  KF_FUNCTION_FLAG_DEVICE = 2,   /* a device function (`device`): called by kernels with kf_build_call */
  KF_FUNCTION_FLAG_EXTERN = 4,   /* an extern device function (`foreign`): declared here, with no body, defined by
                                  * code linked in (below) */
};
/* A func.func named name (a symbol: [A-Za-z_$][A-Za-z0-9_$.]*, not yet in the module) of function type fn_type,
 * with flags (KF_FUNCTION_FLAG_*), at the end of the module, its entry block's arguments the parameters. The
 * insertion point moves to the end of the entry block; the entry block is sealed (kf_block_seal). */
KF_API kf_status kf_build_function(kf_builder *b, const char *name, const kf_type *fn_type, unsigned flags,
                                   kf_op **out);
/* The function's entry block (NULL for an extern function).
 *
 * Extern device functions (KF_FUNCTION_FLAG_EXTERN, or'ed with KF_FUNCTION_FLAG_DEVICE or alone): a declaration of
 * a C function `extern "C" __device__ R name(P...)` of fn_type (parameters and at most one result: numbers,
 * booleans, pointers), which kernels call with kf_build_call like any device function; the insertion point does
 * not move (there is no body). It is resolved at link time, by the machinery numba-cuda's cuda.declare_device
 * uses (docs/c-api.md): the code defining it is a link input (kf_link_input: CUDA C/C++ compiled by NVRTC, PTX,
 * cubin, fatbin, LTO-IR, objects, archives) of kf_module_emit_lto_ptx or of a program's kf_compile_options.links;
 * kf_module_emit_ptx leaves it an `.extern .func` the PTX calls. A symbol no input defines is an error of the link
 * naming the kernel calling it. The simulator cannot run it: a kernel calling one fails there with a diagnostic
 * located at the call. */
KF_API kf_block *kf_function_entry(kf_op *func);

/* Region i of op (NULL when op has fewer); the blocks of a region. */
KF_API kf_region *kf_op_region(kf_op *op, unsigned i);
KF_API kf_block *kf_region_first_block(kf_region *r);
KF_API kf_block *kf_block_next(kf_block *block);
/* A new block at the end of region r (a function's body: kf_op_region(func, 0)). Blocks of a function body
 * after the entry are reached by kf_build_br / kf_build_cond_br; unless the embedder seals them
 * (kf_block_seal) they may gain predecessors. */
KF_API kf_status kf_block_create(kf_builder *b, kf_region *r, kf_block **out);
/* A new argument of type t at the end of block's arguments: before any branch to block (its operands name the
 * arguments in order). */
KF_API kf_status kf_block_add_arg(kf_builder *b, kf_block *block, const kf_type *t, kf_ir_value **out);
KF_API unsigned kf_block_num_args(kf_block *block);
/* Argument i, or NULL (the variables' own arguments count too, after the embedder's). */
KF_API kf_ir_value *kf_block_arg(kf_block *block, unsigned i);
/* Says that every branch to block has been built (Braun et al.'s sealing): the variables read in it get their
 * values from its predecessors now, and no further branch to it is allowed. Seal a loop header after its back
 * edge, any other block when its last predecessor is built (or at once, when it has them all already). The
 * function's entry block is sealed from the start; kf_builder_finish seals the rest. */
KF_API kf_status kf_block_seal(kf_builder *b, kf_block *block);

/* ---- values, ops, attributes ------------------------------------------------------------------ */

KF_API kf_type *kf_value_type(const kf_ir_value *v);
KF_API unsigned kf_op_num_results(const kf_op *op);
KF_API kf_ir_value *kf_op_result(kf_op *op, unsigned i);   /* NULL when out of range */
/* The op's name ("arith.addf"). Borrowed, static. */
KF_API const char *kf_op_name(const kf_op *op);

/* Attribute values, made in the builder's module (borrowed: valid as long as it). */
KF_API kf_status kf_attr_unit(kf_builder *b, kf_attr **out);
KF_API kf_status kf_attr_bool(kf_builder *b, int value, kf_attr **out);
/* An integer of type t (an integer type or i1; the value must fit it). */
KF_API kf_status kf_attr_int(kf_builder *b, const kf_type *t, int64_t value, kf_attr **out);
/* A float of type t (a float type; rounded to it). */
KF_API kf_status kf_attr_float(kf_builder *b, const kf_type *t, double value, kf_attr **out);
KF_API kf_status kf_attr_string(kf_builder *b, const char *s, kf_attr **out);      /* "text" (copied) */
KF_API kf_status kf_attr_symbol(kf_builder *b, const char *name, kf_attr **out);   /* @name (copied) */
KF_API kf_status kf_attr_type(kf_builder *b, const kf_type *t, kf_attr **out);
KF_API kf_status kf_attr_array(kf_builder *b, unsigned n, kf_attr *const *elems, kf_attr **out);

typedef struct kf_named_attr {
  const char *name;        /* copied */
  const kf_attr *value;
} kf_named_attr;

/* Everything an op is made of (MLIR's OperationState). Operands that belong to a successor come last, as in
 * the text form: succ_operand_counts[s] of them per successor, in order. Regions are made empty: fill them
 * with kf_block_create. */
typedef struct kf_op_state {
  const char *name;                       /* "dialect.op", one of kf_op_registry_foreach's */
  unsigned noperands;
  kf_ir_value *const *operands;
  unsigned nresults;
  kf_type *const *result_types;
  unsigned nregions;
  unsigned nsuccessors;
  kf_block *const *successors;
  const unsigned *succ_operand_counts;    /* NULL: no successor takes operands */
  unsigned nattrs;
  const kf_named_attr *attrs;
} kf_op_state;
/* Creates the op at the insertion point. Checked against the op table: the name, the counts of operands,
 * results, regions and successors; every operand and successor given. A branch (successors) must end its
 * block and makes the block a predecessor of its successors for the variables (as kf_build_br). */
KF_API kf_status kf_build_op(kf_builder *b, const kf_op_state *state, kf_op **out);
/* Sets (or replaces) attribute name of op. */
KF_API kf_status kf_op_set_attr(kf_builder *b, kf_op *op, const char *name, const kf_attr *value);

/* ---- typed helpers (each an op at the insertion point; *out its result) ------------------------ */

/* arith.constant: an integer (or i1) of type t, a float of type t. */
KF_API kf_status kf_build_constant_int(kf_builder *b, const kf_type *t, int64_t value, kf_ir_value **out);
KF_API kf_status kf_build_constant_float(kf_builder *b, const kf_type *t, double value, kf_ir_value **out);
/* An op of one result and no attributes, regions or successors (arith.addf, math.sqrt, gpu.lane_id, ...):
 * the result's type is result_type, or (NULL) the first operand's. */
KF_API kf_status kf_build_simple(kf_builder *b, const char *name, unsigned noperands, kf_ir_value *const *operands,
                                 const kf_type *result_type, kf_ir_value **out);
/* arith.cmpi (integers, i1) or arith.cmpf (floats) of predicate pred ("slt", "olt", ... : docs/kir.md);
 * KF_ERROR_INVALID_INPUT for a pred that is none of the operands' kind (integer or float). */
KF_API kf_status kf_build_compare(kf_builder *b, const char *pred, kf_ir_value *x, kf_ir_value *y, kf_ir_value **out);
/* v converted to the scalar type `to` by Numba's (and C's) rules: int widths and signedness, int <-> float,
 * float widths, to i1 as != 0. v itself when it already has type to. */
KF_API kf_status kf_build_cast(kf_builder *b, kf_ir_value *v, const kf_type *to, kf_ir_value **out);
/* gpu.thread_id, gpu.block_id, gpu.block_dim or gpu.grid_dim (name) along dim (0..2): an i32. */
KF_API kf_status kf_build_gpu_index(kf_builder *b, const char *name, unsigned dim, kf_ir_value **out);
/* mem.dim: the extent (i64) of axis `axis` of an array. */
KF_API kf_status kf_build_dim(kf_builder *b, kf_ir_value *array, unsigned axis, kf_ir_value **out);
/* mem.load / mem.store of array[indices] (one i64 index per axis, in range: the embedder checks bounds, or
 * the check.bounds op does; see docs/kir.md). */
KF_API kf_status kf_build_load(kf_builder *b, kf_ir_value *array, unsigned nindices, kf_ir_value *const *indices,
                               kf_ir_value **out);
KF_API kf_status kf_build_store(kf_builder *b, kf_ir_value *value, kf_ir_value *array, unsigned nindices,
                                kf_ir_value *const *indices);
/* func.call of the function named callee (defined in the module by the time it is verified), with result types
 * results. *out is the call op (its results: kf_op_result); out may be NULL. */
KF_API kf_status kf_build_call(kf_builder *b, const char *callee, unsigned nargs, kf_ir_value *const *args,
                               unsigned nresults, kf_type *const *results, kf_op **out);
/* cuda.shared.array: an array in the shared memory of each block (uninitialised, shared by the block's threads:
 * a gpu.barrier orders their writes and reads), of elem (a scalar type) and shape (rank 1..KF_MAX_RANK positive
 * extents), layout C. Made as a module-level mem.global named name (space "shared"; a symbol not yet in the
 * module, put before the function of the insertion point) and *out its array at the insertion point
 * (mem.global_ref). */
KF_API kf_status kf_build_shared_array(kf_builder *b, const char *name, const kf_type *elem, unsigned rank,
                                       const int64_t *shape, kf_ir_value **out);
/* func.return of the values. Ends the block. */
KF_API kf_status kf_build_return(kf_builder *b, unsigned nvalues, kf_ir_value *const *values);
/* cf.br to dest with its arguments; cf.cond_br on cond (i1). Each ends the block; dest must not be sealed. */
KF_API kf_status kf_build_br(kf_builder *b, kf_block *dest, unsigned nargs, kf_ir_value *const *args);
KF_API kf_status kf_build_cond_br(kf_builder *b, kf_ir_value *cond, kf_block *if_true, unsigned ntrue,
                                  kf_ir_value *const *true_args, kf_block *if_false, unsigned nfalse,
                                  kf_ir_value *const *false_args);

/* ---- embedder intrinsics (api/api_intrinsic.c) ------------------------------------------------ */
/* An operation of the embedder's language that kfront has no op for, registered once per context under a name
 * and then built by that name in any module of the context (kf_build_intrinsic): its parameter and result types
 * (scalars) and its lowering. Lowerings:
 *  - KF_INTRINSIC_LIBDEVICE: a call of the libdevice function `libdevice` ("__nv_brev": one of ir/libdevice.def,
 *    the functions of the libdevice kfront links, cuda.libdevice's list) whose arguments are the intrinsic's
 *    parameters and whose result (its return value, part 0) is the intrinsic's. It is built as kir's
 *    math.libdevice op (docs/kir.md: the text form, which round-trips through kf_module_parse/print without the
 *    registration), so the verifier, the passes (pure: CSE and DCE may merge or remove it), the backend (a call
 *    of the function, libdevice linked by libNVVM) and the simulator (ir/libdevice.c's evaluation of the
 *    function, the one definition both use) treat it as kfront's own.
 * Later lowerings (inline PTX assembly with operand constraints, side effects, convergence and a host callback
 * for the simulator) are appended to the enumeration and to the descriptor's fields. */
typedef enum kf_intrinsic_lowering {
  KF_INTRINSIC_LIBDEVICE = 1,
} kf_intrinsic_lowering;

typedef struct kf_intrinsic_desc {
  size_t struct_size;            /* sizeof(kf_intrinsic_desc): set by kf_intrinsic_desc_init (see KF_API_VERSION) */
  const char *name;              /* the intrinsic's name ([A-Za-z_][A-Za-z0-9_.]*), copied */
  unsigned nparams;
  kf_type *const *params;        /* nparams scalar types (the context's; the array is borrowed for the call) */
  kf_type *result;               /* a scalar type */
  kf_intrinsic_lowering lowering;
  const char *libdevice;         /* KF_INTRINSIC_LIBDEVICE: the function's name, "__nv_brev" (copied) */
  kf_location loc;               /* where the embedder declares it (its prelude, its source): the location of the
                                  * registration's diagnostics; {NULL, 0, 0}: unlocated */
} kf_intrinsic_desc;

/* Fills d with no name, no parameters, no result, lowering 0 (none: refused) and its struct_size. */
KF_API void kf_intrinsic_desc_init(kf_intrinsic_desc *d);
/* Registers the intrinsic d describes for every module of ctx, for the context's life (everything in d is copied
 * or borrowed for the call only). Checked here, each refusal KF_ERROR_INVALID_INPUT with a diagnostic of kind
 * KF_ERRKIND_INVALID_ARGUMENT located at d->loc: a name that is no intrinsic name or is registered already, a
 * parameter or result that is no scalar type, an unknown lowering, a libdevice function that is not one of
 * libdevice's (ir/libdevice.def), or whose arguments and result are not the intrinsic's parameters and result (the
 * message gives the function's own signature). A struct_size it cannot read is refused as for every options
 * struct. One thread at a time with the context (kfront.h's rule). */
KF_API kf_status kf_intrinsic_register(kf_context *ctx, const kf_intrinsic_desc *d);
/* The registered intrinsic `name` applied to args at the insertion point: *out its result. An unregistered name, a
 * wrong count of arguments, or an argument whose type is not the parameter's is KF_ERROR_INVALID_INPUT with a
 * diagnostic (kind KF_ERRKIND_INVALID_IR) at the builder's location, which names the intrinsic (and for an argument
 * its number, the type wanted and the type given). */
KF_API kf_status kf_build_intrinsic(kf_builder *b, const char *name, unsigned nargs, kf_ir_value *const *args,
                                    kf_ir_value **out);

/* ---- structured control flow ------------------------------------------------------------------ */
/* scf.if, scf.for and scf.while whose regions the embedder fills between a begin and an end, the results and
 * loop-carried values made by the builder from the variables assigned inside: the scf.yield and scf.condition
 * ops too. The constructs nest;
 * between begin and end the insertion point is the construct's own block (a branch or a return is not allowed
 * there: scf regions have one block). */

/* scf.if on cond (i1): the insertion point moves to the then-region. */
KF_API kf_status kf_build_if_begin(kf_builder *b, kf_ir_value *cond);
/* Moves to the else-region (at most once; without it the else-region yields the values from before the if). */
KF_API kf_status kf_build_if_else(kf_builder *b);
/* Ends the innermost open scf.if: every variable assigned in either region is a result, and the insertion point
 * is after the op. *out is the scf.if (may be NULL). */
KF_API kf_status kf_build_if_end(kf_builder *b, kf_op **out);
/* scf.for over range(lb, ub, step) (i64 each; a step of 0 loops forever, as in kir): the insertion point moves
 * into the body, *iv is the induction variable. */
KF_API kf_status kf_build_for_begin(kf_builder *b, kf_ir_value *lb, kf_ir_value *ub, kf_ir_value *step,
                                    kf_ir_value **iv);
/* Ends the innermost open scf.for: every variable assigned in the body is carried, and after the loop has its
 * value from the last iteration (or from before the loop, when it ran no iteration). */
KF_API kf_status kf_build_for_end(kf_builder *b, kf_op **out);
/* scf.while: a loop whose condition is computed by ops of its own each time round (while (c) { ... }, or a
 * do-while when the body is built in the condition's region), in three calls. kf_build_while_begin moves the
 * insertion point into the before-region, where the embedder builds the condition; kf_build_while_do(cond) ends
 * it (cond an i1: the loop goes on while it is true; the builder writes the scf.condition) and moves into the
 * after-region, the body; kf_build_while_end ends the loop and moves after it. Every variable assigned in either
 * region is carried (a before-region argument, given its value from before the loop and from the body's
 * scf.yield, which the builder writes) and passed on by scf.condition to the body and to after the loop (an
 * after-region argument and a result of the loop: after the loop a variable has its value at the last, false,
 * condition); a variable the loop only reads is neither. A variable first assigned in the body has no value in
 * the condition or after the loop (reading it there is the usual error). *out is the scf.while (may be NULL). */
KF_API kf_status kf_build_while_begin(kf_builder *b);
KF_API kf_status kf_build_while_do(kf_builder *b, kf_ir_value *cond);
KF_API kf_status kf_build_while_end(kf_builder *b, kf_op **out);

/* ---- variables: SSA construction by the builder ------------------------------------------------ */
/* A mutable variable of one function, of type t: kf_var_set at the insertion point assigns it, kf_var_get reads
 * the value it has there. Across blocks (kf_build_br, kf_build_cond_br and kf_block_seal) and scf constructs
 * the builder adds the block arguments, results and carried values it needs, and removes the ones that turn out
 * to be redundant. Reading a variable where it has not been assigned on every path to the read is
 * KF_ERROR_INVALID_INPUT, reported at the builder's location ("variable 'x' may be read before it is
 * assigned"). name is for diagnostics (copied). The variable belongs to the function of the insertion point. */
KF_API kf_status kf_var_declare(kf_builder *b, const char *name, const kf_type *t, kf_var **out);
KF_API kf_status kf_var_set(kf_builder *b, kf_var *var, kf_ir_value *value);
KF_API kf_status kf_var_get(kf_builder *b, kf_var *var, kf_ir_value **out);

/* Seals every block of the builder's functions and checks that no scf construct is left open. Call once all
 * functions are built, before kf_module_verify. */
KF_API kf_status kf_builder_finish(kf_builder *b);

/* ---- walking and mutation (api/api_walk.c) ------------------------------------------------------ */
/* What an embedder pass (kf_pass_register) or any other reader of a built or parsed module needs: the module's
 * functions, a block's ops, an op's parts, the walk over nested ops, a value's definition and uses, and the
 * changes a transformation makes. Every handle returned is borrowed from the module (valid until
 * kf_module_destroy; an erased op's handle, and those of its results and nested ops, must not be used again).
 * The accessors take NULL and out-of-range indices and return NULL or 0 for them; they never report. The
 * mutating functions take the module (for their diagnostics, located at the op concerned) and refuse what would
 * leave the IR unusable with KF_ERROR_INVALID_INPUT and a diagnostic; a change that breaks one of kir's rules
 * (types of an op's operands, dominance) is kf_module_verify's to find (the pass manager verifies after an
 * embedder pass). */

/* The module's top-level ops in order (func.func and mem.global), and its functions (func.func only): the first,
 * and the next after func. NULL at the end. */
KF_API kf_block *kf_module_body(kf_module *m);
KF_API kf_op *kf_module_first_function(kf_module *m);
KF_API kf_op *kf_function_next(kf_op *func);
/* The top-level op (function or global) named sym, or NULL. */
KF_API kf_op *kf_module_lookup(kf_module *m, const char *sym);
/* A func.func's name (borrowed from the module), its type, and its KF_FUNCTION_FLAG_* (the `kernel`, `device`
 * and `foreign` attributes); NULL / 0 for an op that is no function. */
KF_API const char *kf_function_name(const kf_op *func);
KF_API kf_type *kf_function_type(const kf_op *func);
KF_API unsigned kf_function_flags(const kf_op *func);

/* A block's ops, first to last (kf_op_next) or last to first (kf_op_prev); its terminator (its last op when that
 * ends blocks: func.return, cf.br, scf.yield, ...), its region and the op owning that region (NULL for the
 * module's body). */
KF_API kf_op *kf_block_first_op(kf_block *block);
KF_API kf_op *kf_block_last_op(kf_block *block);
KF_API kf_op *kf_op_next(kf_op *op);
KF_API kf_op *kf_op_prev(kf_op *op);
KF_API kf_op *kf_block_terminator(kf_block *block);
KF_API kf_region *kf_block_region(kf_block *block);
KF_API kf_op *kf_block_parent_op(kf_block *block);
KF_API kf_op *kf_region_parent_op(kf_region *r);

/* An op's block (NULL when it is in none), the op whose region holds it (NULL at module level), the function
 * it is in (NULL for a top-level op), and its location (file borrowed from the module; {NULL, 0, 0} when it has
 * none). */
KF_API kf_block *kf_op_block(kf_op *op);
KF_API kf_op *kf_op_parent_op(kf_op *op);
KF_API kf_op *kf_op_parent_function(kf_op *op);
KF_API kf_location kf_op_location(const kf_op *op);
/* Operands (successor operands last, as in kf_op_state), regions (kf_op_region above), successors. */
KF_API unsigned kf_op_num_operands(const kf_op *op);
KF_API kf_ir_value *kf_op_operand(kf_op *op, unsigned i);
KF_API unsigned kf_op_num_regions(const kf_op *op);
KF_API unsigned kf_op_num_successors(const kf_op *op);
KF_API kf_block *kf_op_successor(kf_op *op, unsigned i);
/* Attributes by index (*name, when name is not NULL, borrowed from the module) and by name (NULL when absent). */
KF_API unsigned kf_op_num_attrs(const kf_op *op);
KF_API kf_attr *kf_op_attr_at(kf_op *op, unsigned i, const char **name);
KF_API kf_attr *kf_op_attr(kf_op *op, const char *name);

/* Reading attribute values. */
typedef enum kf_attr_kind {
  KF_ATTR_UNIT, KF_ATTR_BOOL, KF_ATTR_INT, KF_ATTR_FLOAT, KF_ATTR_STRING, KF_ATTR_SYMBOL, KF_ATTR_TYPE, KF_ATTR_ARRAY
} kf_attr_kind;
KF_API kf_attr_kind kf_attr_get_kind(const kf_attr *a);
/* The value of a bool or int attribute (an unsigned one's bits), of a float one, of a string or symbol one
 * (borrowed; symbols without the @), of a type one; the elements of an array. 0 / NULL for another kind. */
KF_API int64_t kf_attr_get_int(const kf_attr *a);
KF_API double kf_attr_get_float(const kf_attr *a);
KF_API const char *kf_attr_get_string(const kf_attr *a);
KF_API kf_type *kf_attr_get_type(const kf_attr *a);
KF_API unsigned kf_attr_array_size(const kf_attr *a);
KF_API kf_attr *kf_attr_array_elem(kf_attr *a, unsigned i);

/* A value's defining op (NULL for a block argument), the block it belongs to (a block argument's block, or its
 * defining op's), its index (result or argument number), whether it is a block argument, and how many operands
 * use it. */
KF_API kf_op *kf_value_defining_op(kf_ir_value *v);
KF_API kf_block *kf_value_owner_block(kf_ir_value *v);
KF_API unsigned kf_value_index(const kf_ir_value *v);
KF_API int kf_value_is_block_arg(const kf_ir_value *v);
KF_API unsigned kf_value_num_uses(const kf_ir_value *v);
/* The uses of v, one at a time: the i-th (in the use list's order, which changes when uses are added or removed)
 * as the op using it and the operand's index there. KF_ERROR_INVALID_INPUT (unreported) when there is none. */
KF_API kf_status kf_value_use(kf_ir_value *v, unsigned i, kf_op **user, unsigned *operand);

/* The walk over op and every op nested in its regions (blocks and ops in order): the callback sees an op
 * before the ops in its regions (KF_WALK_PRE_ORDER) or after them (KF_WALK_POST_ORDER), and returns whether to go
 * on (KF_WALK_ADVANCE), not to enter the op's regions (KF_WALK_SKIP, in a pre-order walk; in a post-order one it
 * goes on) or to stop (KF_WALK_INTERRUPT). The callback may erase or move the op it is given (no other), in a
 * post-order walk, or in a pre-order one when it then returns KF_WALK_SKIP or KF_WALK_INTERRUPT. Returns
 * KF_WALK_INTERRUPT when the callback stopped the walk, else KF_WALK_ADVANCE. kf_module_walk walks each top-level
 * op in turn. */
typedef enum kf_walk_result { KF_WALK_ADVANCE, KF_WALK_SKIP, KF_WALK_INTERRUPT } kf_walk_result;
typedef enum kf_walk_order { KF_WALK_PRE_ORDER, KF_WALK_POST_ORDER } kf_walk_order;
typedef kf_walk_result (*kf_walk_fn)(kf_op *op, void *user);
KF_API kf_walk_result kf_op_walk(kf_op *op, kf_walk_order order, kf_walk_fn fn, void *user);
KF_API kf_walk_result kf_module_walk(kf_module *m, kf_walk_order order, kf_walk_fn fn, void *user);

/* Every use of from becomes a use of to (of the same type; from and to of m). */
KF_API kf_status kf_value_replace_all_uses(kf_module *m, kf_ir_value *from, kf_ir_value *to);
/* Operand i of op becomes value (of the type the operand has now). */
KF_API kf_status kf_op_set_operand(kf_module *m, kf_op *op, unsigned i, kf_ir_value *value);
/* Removes op, with everything in its regions, from its block; refused while a result of op (or a value defined
 * inside it) is used outside it, with a diagnostic at op naming where the first such use is. A function or global
 * of the module leaves its symbol table too. No builder may have its insertion point before op. */
KF_API kf_status kf_op_erase(kf_module *m, kf_op *op);
/* Removes the attribute name from op (KF_OK when it had none). */
KF_API kf_status kf_op_remove_attr(kf_module *m, kf_op *op, const char *name);
/* Moves op (with its regions) from its block to the builder's insertion point (into the builder's module, which
 * must be op's). Refused for a top-level op, and where the insertion point is inside op. The builder's variables
 * (kf_var_*) know nothing of the move: move ops in modules whose variables are all built (after
 * kf_builder_finish), as a pass does. */
KF_API kf_status kf_builder_insert_op(kf_builder *b, kf_op *op);

/* ---- embedder passes (api/api_pass.c) --------------------------------------------------------- */
/* A pass of the embedder's own (MLIR's mlirCreateExternalPass), run by name in any pipeline of the context:
 * kf_module_run_pipeline and kf_pipeline_normalize, and the pipelines of the programs of the context's runtimes
 * (kf_compile_options.pipeline, with kfront's passes around it: "canonicalize,my-pass,dce"). kfront-opt and
 * kf_compile_source, which take no context, do not know it.
 *
 * run(m, user) gets the module the pipeline is transforming (a handle valid during the call only; for a runtime's
 * program it is the program's module, not one the embedder made) and changes it with the walking, mutation and
 * builder functions of this header; builders it creates it destroys before returning. It returns KF_OK, or an
 * error status after reporting why (kf_op_report: located at the op concerned); a failure it does not explain is
 * reported for it ("embedder pass 'name' failed"). The pipeline stops at a failing pass. After the pass the module
 * is verified (whatever kf_pass_options.verify_each says, and the module given to the pipeline is verified first):
 * a module the pass left invalid is an error of kind KF_ERRKIND_INVALID_IR naming the pass, after the verifier's
 * own located ones. run is called on the thread running the pipeline (any thread that compiles a program of a
 * runtime used from several threads); the runtime caches what it compiled by the pipeline's text, so a pass must
 * do the same for the same module every time.
 *
 * name: a pipeline name ([A-Za-z0-9_-]+) that is neither kfront's pass nor one registered already; name and
 * summary (may be NULL) are copied. Registered for the context's life. KF_ERROR_INVALID_INPUT (reported, kind
 * KF_ERRKIND_INVALID_ARGUMENT) for a bad or taken name or no run. */
typedef kf_status (*kf_pass_fn)(kf_module *m, void *user);
KF_API kf_status kf_pass_register(kf_context *ctx, const char *name, const char *summary, kf_pass_fn run, void *user);
/* The context a module belongs to. */
KF_API kf_context *kf_module_context(kf_module *m);
/* kf_context_report at op's location: level 0 error (kind KF_ERRKIND_INVALID_IR), 1 warning, 2 note. */
KF_API kf_status kf_op_report(kf_module *m, const kf_op *op, int level, const char *message);

#ifdef __cplusplus
}
#endif

#endif
