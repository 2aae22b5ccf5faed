/* compile.h — the frontend's entry point: Python source to typed kir (internal to the library).
 *
 * fe_compile reads the module (lexer + parser), finds the kernels and device functions, types each
 * requested function once per signature with Numba's rules, and lowers it to a kir Module: one func.func
 * per (function, signature), kernels marked `kernel`, device functions they call included. Every error is
 * reported to diag located at the offending token; the result is NULL if there was any.
 *
 * Memory: the frontend runs under a guard (utils/mem.h: rt_compile_source, the runtime's fe_function_kind,
 * kf_compile_options_key set one up): its allocations do not fail, an allocation failure unwinds to the guard,
 * which frees everything the frontend made (the new Module included).
 *
 * What is compiled. With no kernel names, every function that has eager signatures (@cuda.jit("sig"),
 * @cuda.jit([...]), device functions with signatures, @vectorize / @guvectorize lists). With names, each
 * named function, for the given signatures whose argument count matches its parameters (all of them when
 * one name is given; a count that does not match is an error), else for its eager signatures; a lazy
 * @cuda.jit kernel or a @cuda.reduce with neither is an error. Given signatures replace eager ones.
 *
 * Symbols. A function compiled for one signature is `name`; for several, each is `name__<args>` with the
 * argument types mangled and joined by "__" (f32, i64, u8, b1; arrays f32_2A = element, rank, layout C/F/A;
 * tuples T2_i64_f32_E), e.g. fast_matmul__f32_2A__f32_2A__f64_2A. Every func.func has `py_name` = the
 * Python name (how the runtime finds a kernel: rt_kir_find_kernels) and `arg_names`. Device functions are
 * compiled once per distinct argument types, from their call sites, and named the same way (`dev`, or
 * `dev__f32__f64` when several). Shared arrays are mem.global @<function symbol>__<variable>.
 * Attributes: `kernel` or `device`; the decorator's options as `fastmath`, `debug`, `lineinfo` (units),
 * `opt` (integer), `inline` ("always" / "never").
 *
 * Embedding (kf_compile_sources). A source may be one function's lines as they stand in their file
 * (indented, starting at line first_line): locations are the file's. Extra sources are read like the main
 * one; each function resolves names as locals, the embedder's bindings, its own source's module-level names,
 * Python's builtins. Requested names are looked up in the main source first, then in the others in order; a
 * function named as one of an earlier source has symbols based on `name__s<source>` (py_name unchanged).
 * A function spec stands for the decorators of the def it names (embed.c).
 *
 * Generated kernels (func attribute `generated`, and the user's function as the device function
 * `<symbol>__core`); each is compiled for an element signature (as in the decorator) or for the kernel's
 * own array signature (what a runtime launching it knows: void(float32[::1], float32[::1]) for a float32
 * reduction):
 *   - "vectorize": kernel(in_0, ..., in_k, out), 1-D arrays of the signature's argument and return types;
 *     out[i] = f(in_0[i], ...) for every i < out.shape[0] (grid-stride loop: any launch size works).
 *   - "guvectorize": kernel(a_0, ..., a_k): each argument of the signature with one extra leading loop
 *     dimension (a scalar argument becomes a 1-D array); thread b (grid-stride) runs the function on
 *     a_0[b], ..., a_k[b] for b < a_0.shape[0]. The host reshapes its arrays so that all loop dimensions
 *     are one (a call without loop dimensions passes (1, m, n) views and launches one thread). The kernel
 *     also has the decorator's layout as the attribute `gu_layout` ("(m,n),(n)->(m)"; fe_layout_parse
 *     reads it), which says which arguments are outputs and how core dimensions must agree.
 *   - "reduce": kernel(inp, out) for the signature T(T, T): each block folds a grid-stride slice of inp
 *     (block b, thread t: elements b*bs + t, + bs*gridDim.x, ...) and writes one partial result to
 *     out[blockIdx.x]; blockDim.x must be a power of two <= 256 and every block must have at least one
 *     element (launch at most ceil(n / blockDim.x) blocks). Two-pass contract: the host launches it on the
 *     input (n > 0) into a partials array of gridDim.x elements, then again on the partials with one block
 *     (or more passes) until one value remains; an `init` value is combined by one more launch on
 *     [result, init]; an empty input gives init (or 0). The operation must be associative and commutative
 *     (the tree reorders it), as Numba requires. */
#ifndef KF_FRONTEND_COMPILE_H
#define KF_FRONTEND_COMPILE_H

#include "ir/ir.h"
#include "kfront/kfront.h"

typedef struct FeOptions {
  /* What to compile and what an embedder supplies, as kf_compile_options has it (kfront.h says what each field
   * means; the frontend reads kernels, signatures, bounds_check, extra_sources, bindings and functions, and leaves
   * the rest to the runtime). NULL: none (nothing named, bounds checks off, the source text alone decides). */
  const kf_compile_options *compile;
  /* Optional (tests): called with the Numba type of each value a local variable takes (assignments,
   * parameters, values merged after branches and loops), in Numba's spelling ("int64",
   * "array(float32, 2d, A)"); func is the Python function's name. */
  void (*on_type)(void *user, const char *func, const char *var, const char *type);
  void *on_type_user;
} FeOptions;

/* Compiles the main source (index 0: a whole module or one function's lines, see kf_source) and
 * opts->compile->extra_sources (opts, or its compile, may be NULL: none). The texts must outlive the diagnostics
 * that quote them (each is registered with diag at its first line). */
Module *fe_compile(IrContext *ctx, Diag *diag, const kf_source *main, const FeOptions *opts);

/* A canonical text of everything in o that changes the compiled code besides the main source and the pipeline
 * (kernels, signatures, bounds checks, extra sources, bindings, function specs; kf_compile_options_key in kfront.h
 * says how each is written), appended to out (o NULL: none of them). False when o cannot be read (NULL where a
 * pointer is needed, an invalid dtype or rank, a device array): out then holds a partial text. */
bool fe_options_key(const kf_compile_options *o, StrBuf *out);

/* What the decorator of a module-level function makes of it. */
typedef enum FeFunctionKind {
  FE_FUNCTION_NONE,         /* no function of that name */
  FE_FUNCTION_PYTHON,       /* host code: no decorator kfront compiles (or a CPU @vectorize, @numba.jit) */
  FE_FUNCTION_KERNEL,       /* @cuda.jit */
  FE_FUNCTION_DEVICE,       /* @cuda.jit(device=True) */
  FE_FUNCTION_REDUCE,       /* @cuda.reduce */
  FE_FUNCTION_VECTORIZE,    /* @vectorize(..., target="cuda") */
  FE_FUNCTION_GUVECTORIZE,  /* @guvectorize(..., target="cuda") */
} FeFunctionKind;

/* The kind of the function `name` of the main source, from the sources' top level and the embedder's
 * function facts only (nothing is typed or lowered). False (reported) when a source or a decorator cannot be
 * read, as fe_compile would report it. */
bool fe_function_kind(IrContext *ctx, Diag *diag, const kf_source *main, const FeOptions *opts, const char *name,
                      FeFunctionKind *out);

/* A @guvectorize layout, "(m,n),(n)->(m)": the arguments (inputs, then outputs) and, for each, its core
 * dimensions as symbols numbered in order of first appearance. Names are borrowed from the text. */
enum { FE_LAYOUT_MAX_ARGS = 64, FE_LAYOUT_MAX_DIMS = 256 };
typedef struct FeLayoutSymbol {
  const char *name;
  unsigned len;
} FeLayoutSymbol;
typedef struct FeLayout {
  unsigned nargs, nin;                      /* arguments, of which inputs (at least one output follows) */
  unsigned first[FE_LAYOUT_MAX_ARGS + 1];   /* argument i's core dimensions: dims[first[i] .. first[i + 1]) */
  unsigned dims[FE_LAYOUT_MAX_DIMS];        /* each core dimension's symbol */
  unsigned nsyms;
  FeLayoutSymbol syms[FE_LAYOUT_MAX_DIMS];
} FeLayout;

/* Parses a layout (the one grammar, for the frontend and the runtime); false when it is malformed. */
bool fe_layout_parse(const char *text, FeLayout *out);
static inline unsigned fe_layout_ndims(const FeLayout *l, unsigned arg) { return l->first[arg + 1] - l->first[arg]; }

/* ---- type trees (type_tree.c) ----
 * Numba types as the kf_value trees of kf_signature_parse and kf_module_function_result (kfront.h lists the
 * forms), each in one block of the current allocator (kf_free). Both report to diag (a type with no Numba type:
 * kind UNSUPPORTED) and return false; run them under a guard.
 * fe_signature_tree: a signature's text as the frontend reads it (nb_parse_signature_text), located in `file`
 * ("<signature>" when NULL) at line 1. fe_type_tree: one type (NULL: none). */
bool fe_signature_tree(IrContext *ctx, Diag *diag, const char *file, const char *text, size_t len, kf_value **out);
bool fe_type_tree(Diag *diag, const Type *t, kf_value **out);

/* ---- records (records.c) ----
 * Numba's spelling of a record type (a NumPy structured dtype), the one grammar for signatures, the runtime's
 * record dtypes and kernel signatures:
 *   Record(a[type=float64;offset=0],h[type=nestedarray(float32, (2,));offset=8],r[type=Record(...);offset=16];32;True)
 * or a bytes / str item's, [char x 12] / [unichr x 12] (kir's charseq types).
 * Parses one from s[*pos..len) (pos may be NULL: from 0), advancing *pos; NULL with *why set when malformed. */
Type *fe_record_parse(IrContext *ctx, const char *s, size_t len, size_t *pos, const char **why);
/* Writes the spelling of a record type (a scalar field type: its Numba name). */
void fe_record_spell(const Type *t, StrBuf *out);
/* The i-th dotted path a builtin of the kernel language is known by (frontend/builtins.def's rows, in order:
 * "builtins.range", "numba.cuda.grid", "math.sqrt", ...), NULL past the last. */
const char *fe_builtin_path(unsigned i);

#endif
