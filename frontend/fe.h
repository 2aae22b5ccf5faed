/* fe.h — the frontend's internals: what module.c, numba_types.c, sema.c, the lower*.c files and generated.c share.
 *
 * Phases (all driven by fe_compile in module.c):
 *   module.c      reads the parsed module: imports and their aliases, module constants (evaluated with
 *                 Python's semantics), decorated functions and their options and signatures; then
 *                 compiles each requested (function, signature) and tidies the kir module.
 *   numba_types.c Numba's scalar typing: the conversion table, overload resolution over case lists (as
 *                 numba's ConcreteTemplate does), unification, type names, signature syntax.
 *   sema.c        typing of one operation at a time (operators, builtins, cuda.*, math.*), the table of
 *                 known names (builtins, cuda, math, numpy, numba types), the per-function facts the
 *                 lowering needs (locals, where each is read, which statements exit).
 *   lower*.c      type and lower one function body to kir in one walk (lower.c, over lower.h; each
 *                 construct in a lower_*.c of its own): values are FeVals (a typed SSA value, a constant,
 *                 a tuple, a module path...); loops are typed to a fixed point by lowering their body
 *                 speculatively (quietly) until the loop-carried types are stable.
 *   generated.c   @vectorize, @guvectorize and @cuda.reduce kernels, written as Python templates that
 *                 call the user's function as a device function, compiled like any kernel.
 *   embed.c       what an embedder supplies instead of module text: the values bound to names (as the
 *                 FeVals a module-level constant, import or function would give), the decorator facts of
 *                 function specs, and the canonical text of all of it (fe_options_key).
 *
 * Several sources: each is parsed and read on its own (FeSource: its module-level names); every function
 * belongs to one and resolves names in it (locals, the embedder's bindings, its source's module-level
 * names, builtins: fe_lookup).
 *
 * Memory: FeCtx.arena holds everything of one fe_compile call (AST, tables, FeVals) and is freed when it
 * returns; the kir goes into the Module's arena (op locations name a copy of the file name kept there). */
#ifndef KF_FRONTEND_FE_H
#define KF_FRONTEND_FE_H

#include "frontend/ast.h"
#include "frontend/compile.h"
#include "ir/ir.h"
#include "utils/ptrmap.h"

typedef struct FeCtx FeCtx;
typedef struct FeEnum FeEnum;
typedef struct FeSource FeSource;
typedef struct FeFunc FeFunc;
typedef struct FeInst FeInst;
typedef struct FeVal FeVal;

/* ---- values ------------------------------------------------------------------------------------ */
typedef enum {
  FV_POISON,  /* an error was reported (or a speculative pass met an unknown): propagates silently */
  FV_UNDEF,   /* a local variable with no value on this path */
  FV_VAL,     /* a runtime scalar or array: type, and its SSA value (NULL for a constant not yet made) */
  FV_TUPLE,   /* a tuple of values (type is the tuple type when every element is a runtime value) */
  FV_VIEW,    /* a[i] of an array of higher rank: elems[0] the array, elems[1..] the fixed leading indices */
  FV_PATH,    /* a module or an attribute chain in one ("numba.cuda", "numba.cuda.threadIdx", "math") */
  FV_BUILTIN, /* a known function or object: builtin id */
  FV_NTYPE,   /* a Numba type object used as a value (float32, np.int32): type */
  FV_FUNC,    /* a decorated Python function of the module */
  FV_PYFUNC,  /* an undecorated Python function of the module */
  FV_NONE,    /* None */
  FV_STR,     /* a string constant */
  FV_HOST,    /* a module name bound to something that is not a compile-time constant */
  FV_SLICE,   /* a slice (only inside signatures and as a diagnostic) */
  FV_CONSTARR, /* a module-level NumPy array of constants (np.array([...])), for cuda.const.array_like */
  FV_NAMESPACE, /* named members bound by the embedder (an enum class, a module-like object): ns */
  FV_EXCEPTION, /* an exception class kernels may raise: str.s its name on the host ("ValueError", "mod.MyError") */
  FV_INVALID, /* a name the embedder bound to something kfront cannot use: str.s says why (never a value) */
  FV_METHOD,  /* a method of an array value (a.transpose): type and v the array, builtin the method (lower_arrays.c); of a
               * slice object (s.indices): type its type, recv the slice */
  FV_RECORD,  /* one record of an array of records (a[i], a record parameter): type the record type, tup.elems[0]
               * the array (FV_VAL), elems[1..] its i64 index per axis; fields are reached through mem.field */
  FV_VECTOR,  /* a CUDA vector value (float32x4): type its vector type, tup its fields (FV_VAL scalars; vectors.c);
               * also a slice object (type a ty_slice, tup its start, stop, step as i64 FV_VALs) */
  FV_CLOSURE, /* an inner def or a lambda of the function being lowered: clo (lower_calls.c, "closures") */
  FV_EXCINST, /* an exception instance made in a kernel (ValueError("x")), to raise: str.s the text it is recorded as */
  FV_OVERLOAD, /* a function the embedder's overload resolver implements per call (KF_VALUE_OVERLOAD): str.s its path */
  FV_FOREIGN, /* a foreign device function (KF_VALUE_FOREIGN: cuda.declare_device): foreign its symbol and signature */
  FV_BYTES,   /* a bytes constant (b"XYZ", Numba's readonly Bytes): str.s its bytes, str.len their count */
  FV_CTYPES,  /* a.ctypes of an array (numba's ArrayCTypes): type and v the array; its .data is the data's address */
  FV_OPTIONAL, /* Numba's Optional(T), a value that may be None (optional.c): type its ty_optional, tup.elems[0] the
                * value (of T; zeros where it is None), elems[1] the i1 "present" flag (FV_VAL, maybe constant) */
} FeValKind;

/* An inner def or lambda as a value: the function it defines, its default values (evaluated where it is defined,
 * as Python does), and its captured variables' values. Those are read from the defining function's variables
 * when it is called there (Python's cells, read at the call); a closure passed to another function carries
 * them (captured, set then: they must be constants, as Numba's MakeFunctionToJitFunction requires). */
typedef struct FeClosure {
  FeFunc *fn;            /* kind FN_DEVICE, outer set */
  const FeVal *defaults; /* per parameter: FV_UNDEF when it has none */
  const FeVal *captured; /* fn->ncaptures values, or NULL: read from the defining function's environment */
} FeClosure;

typedef struct FeNamespace {
  const char *name;  /* the name it was bound to (diagnostics, constant symbols) */
  unsigned n;
  const char **names;
  FeVal *vals;
  const FeEnum *enumc; /* an enum class: its members' type (every vals[i] is a member: FV_VAL with enumc) */
  const char *module;  /* a Python module of the embedder's (KF_VALUE_PYMODULE): its name; its members the attributes
                        * kernels read */
  const char *tclass;  /* a named tuple class (KF_VALUE_TUPLE_CLASS), called to make one: its name; no members */
  const char **fields; /* tclass: its nfields field names */
  unsigned nfields;
} FeNamespace;

/* The type of the members of an enum class (Numba's EnumMember / IntEnumMember): one per distinct spelling,
 * so that two FeEnum pointers are equal exactly when the types are (enums.c). */
struct FeEnum {
  const char *name;     /* the class: "Color" (a class of the module) or as the embedder names it ("mod.Color") */
  const char *spelling; /* the type in signatures: IntEnumMember("mod.Color", int64) */
  bool is_int;          /* IntEnum / IntFlag: members convert to integers (arithmetic, ordering, indexing) */
  Type *dtype;          /* the members' values (int64); for a valued enum, the members' index (int64) */
  unsigned id;          /* numbers the enums of one compile (instance keys, mangled names) */
  /* A valued enum (members whose values are tuples or strings, Numba's EnumMember of a tuple or unicode_type): a
   * member is the index of its value in values (FV_TUPLE constants or FV_STR); value_type is their type's name. */
  const FeVal *values;
  unsigned nvalues;
  const char *value_type;
  /* Set on the tag of the string values of a valued enum of strings (fe_enum_strings): a value with this tag is
   * the string values[index] of that enum's member index, chosen at run time (typed unicode_type). */
  const FeEnum *strings_of;
};

typedef struct FeConstArr {
  Type *type;     /* array<dtype, rank, C>; a captured device array's: array<dtype, rank, C or A> */
  int64_t dims[8];
  unsigned n;     /* elements; of an array of records, bytes */
  Attr *values;   /* n attributes of the element type, in C order; of an array of records, its bytes (u8) */
  /* a device array captured by its address (numba-cuda captures a global device array's pointer at compile time):
   * no values; the kernel reads and writes its memory in place */
  bool captured;
  uint64_t address;
  int64_t strides[8]; /* bytes */
  bool zero_d;        /* a 0-d array, constant or captured: held as its array of one, read as the view x[0] (a 0-d
                       * array parameter's form) */
} FeConstArr;

struct FeVal {
  uint8_t kind;
  bool is_const;     /* FV_VAL scalar whose value is known (c) */
  bool nonneg;       /* FV_VAL integer known to be >= 0 */
  bool literal;      /* an AST literal (CPython folds operations between literals) */
  bool readonly;     /* a parameter shape of an array (FV_VAL; an FV_VIEW's or FV_RECORD's elems[0]): Numba's readonly
                      * array (a NumPy array not writeable, an array interface marked read-only), which no subscript
                      * assignment may write (lw_array_readonly) */
  const FeEnum *enumc; /* FV_VAL: an enum member of this type (its value is the scalar), else NULL */
  Type *type;        /* FV_VAL, FV_NTYPE, FV_VIEW (the view's own array type), FV_TUPLE (may be NULL) */
  Value *v;          /* FV_VAL */
  const FeVal *recv; /* FV_METHOD of a value made of others (a slice object): the value */
  union {
    int64_t i;       /* integers and bools (unsigned values as their bits) */
    double f;        /* floats; complex numbers: the real part */
  } c;
  union {
    struct {
      unsigned n;
      FeVal *elems;
    } tup;           /* FV_TUPLE, FV_VIEW, FV_RECORD, FV_VECTOR */
    struct {
      const char *s; /* FV_PATH, FV_STR, FV_BYTES, FV_EXCEPTION, FV_INVALID */
      size_t len;
    } str;
    int builtin;     /* FV_BUILTIN, FV_METHOD */
    FeFunc *func;    /* FV_FUNC, FV_PYFUNC */
    FeConstArr *carr; /* FV_CONSTARR */
    FeNamespace *ns;  /* FV_NAMESPACE */
    FeClosure *clo;   /* FV_CLOSURE */
    struct {
      const char *symbol, *signature; /* FV_FOREIGN: "mul_f32_f32", "float32(float32, float32)" */
      bool c_abi;                     /* called as a plain C function (abi="c"), not with numba-cuda's ABI */
      bool cooperative;               /* it synchronises the grid: its callers are launched cooperatively */
    } foreign;
    double im;        /* FV_VAL complex constant: the imaginary part (module-level constants: lower.c makes a kernel's
                       * value of one where it reads it, global_value; kept here so FeVal grows not: deep recursion) */
  };
};

/* ---- signatures ---------------------------------------------------------------------------------- */
typedef struct FeSig {
  Type *ret;         /* NULL: void / none, or not given */
  bool has_ret;      /* a return type was written (`float32(...)` rather than `(...)`) */
  unsigned nargs;
  Type **args;
  const FeEnum **enums; /* NULL, or per argument: the enum member type it is (args[i] its dtype), or NULL */
  const FeVal *shapes;  /* NULL, or per argument: its parameter shape when it is a tuple holding enum members
                         * (FV_TUPLE of FV_VAL shapes, enumc set on the members), else kind FV_POISON */
  const bool *readonly; /* NULL, or per argument: a readonly array, spelt Array(float32, 1, 'C', readonly=True) */
  SrcLoc loc;
} FeSig;

/* ---- decorated functions -------------------------------------------------------------------------- */
typedef enum { FN_KERNEL, FN_DEVICE, FN_REDUCE, FN_VECTORIZE, FN_GUVECTORIZE, FN_TEMPLATE } FeFuncKind;

/* One local variable of a function. */
typedef struct FeLocal {
  const char *name;
  SrcLoc first_assign;
} FeLocal;

/* One source: a whole module or one function's lines (kf_source), with its module-level names. */
struct FeSource {
  unsigned index;          /* 0: the main source */
  const char *filename;    /* as given ("<input>" when none) */
  const char *mfile;       /* the file name in the module's arena (op locations) */
  const char *text;
  size_t len;
  unsigned first_line;     /* the file line of text's first line */
  PyModule *py;
  StrMap globals;          /* module-level name -> FeVal* */
  unsigned *line_starts;   /* byte offset of each line of text (for locations inside string literals) */
  unsigned nlines;
  bool prelude;            /* kfront's own source (random.c): the embedder's bindings do not apply */
  StrMap *bindings;        /* an overload's implementation (lower_overloads.c): the names bound for its sources, which see
                            * these instead of the embedder's */
};

struct FeFunc {
  const PyStmt *def;
  const char *name;
  const char *sym;         /* the base of its kir symbols: name, or name__s<source> when a function of an
                            * earlier source has that name */
  FeSource *src;           /* where it is defined (generated kernels: the user's function's source) */
  FeFuncKind kind;
  SrcLoc loc;              /* the `def` */
  SrcLoc deco_loc;         /* the decorator */
  bool lazy;               /* @cuda.jit with no signature (kernels), @cuda.reduce */
  FeSig *sigs;             /* eager signatures */
  unsigned nsigs;
  const char *gu_layout;   /* @guvectorize: "(m,n)->(m,n)" */
  SrcLoc gu_layout_loc;
  /* options as given to the decorator (-1: not given) */
  int fastmath, debug, lineinfo, opt, cache;
  const char *inline_opt;  /* "always": each call inlined (numba's IR-level inline=); NULL or "never": called */
  bool forceinline;        /* cuda.jit(forceinline=True): the LLVM function is alwaysinline */
  unsigned launch_bounds[3]; /* kernels: cuda.jit(launch_bounds=...), kf_function_spec's; 0: none */
  /* locals: parameters first, then every other assigned name (computed on first use) */
  bool analysed;
  unsigned nlocals;
  FeLocal *locals;
  StrMap local_index;      /* name -> index + 1 */
  /* instances (device functions: one per argument types) */
  FeInst *insts;
  /* templates (generated kernels): their own global names, looked up before the module's */
  StrMap *scope;
  FeFunc *user;            /* generated kernels: the user's function (for locations) */
  const char *py_name;     /* the Python name when `name` is not (the device copy of a @vectorize...) */
  /* closures (an inner def or lambda): the function it is defined in, and the names it reads from that function's
   * variables, which become its locals after its parameters (their values passed as extra arguments) */
  FeFunc *outer;
  const char **captures;
  unsigned ncaptures;
  bool *captured;          /* per local: read by an inner def or lambda (so live wherever the function goes on) */
};

/* One compiled (function, argument types) pair. */
struct FeInst {
  FeInst *next;
  FeFunc *fn;
  const char *key;         /* argument key: mangled types ("f32_1A__i64") */
  unsigned nparams;
  FeVal *params;           /* the parameters' shapes (types, tuples, views) */
  Op *op;                  /* the func.func */
  FeVal ret;               /* the shape of the result (FV_NONE for none) */
  unsigned nresults;
  bool in_progress, failed, requested;
  /* recursion (lower_calls.c): while it is being lowered, what a call of it from its own body returns — the declared
   * type, else the type of the value returns lowered so far — and what the first such call took */
  bool has_decl_ret;
  Type *decl_ret;          /* NULL with has_decl_ret: declared void */
  Type *ret_so_far;
  const FeEnum *ret_enum;
  bool rec_called;
  Type *rec_type;          /* NULL: none */
  SrcLoc rec_loc;
  bool rec_unknown;        /* a recursive call came before any value return: lowered again with ret_so_far */
  bool retry;              /* this is that second attempt */
  bool tainted;            /* typed on such a call of an enclosing instance: dropped with its first attempt */
};

/* A name bound by the embedder (embed.c). */
typedef struct FeBinding {
  const char *name;
  FeVal *val;              /* FV_INVALID when it cannot be used */
  const kf_value *value;   /* what the embedder gave */
} FeBinding;

/* ---- the module-level context ------------------------------------------------------------------- */
struct FeCtx {
  IrContext *ctx;
  Diag *diag;
  Module *m;
  const FeOptions *opts;
  Arena arena;
  FeSource *srcs;          /* the main source, then opts->extra_sources */
  unsigned nsrcs;
  FeSource *cur;           /* the source whose module level is being read */
  FeBinding *binds;        /* the embedder's bindings, in their order */
  unsigned nbinds;
  StrMap bindings;         /* name -> FeVal* (empty when none were given) */
  bool *spec_found;        /* per opts->functions: a def of its source was found */
  FeFunc **funcs;
  unsigned nfuncs, funcs_cap;
  StrMap known;            /* dotted path -> builtin id + 1 */
  StrMap prefixes;         /* every proper prefix of a known path -> 1 */
  unsigned errors0;
  Op *cur_top;             /* the top-level function being lowered: device functions go before it */
  StrMap enums;            /* enum spelling -> FeEnum* (enums.c) */
  PtrMap inner_funcs;      /* an inner def (PyStmt) or lambda (PyExpr) -> its FeFunc (lower_calls.c, "closures") */
  unsigned nenums;
  StrMap *cmath_funcs;     /* cmath.c: name -> FeFunc* of its Python source (NULL until first used) */
  StrMap *cmath_scope;     /* the names that source sees (math, cmath) */
  StrMap *reduce_funcs;    /* reductions.c: "NAME_RANK" -> FeFunc* of its generated source (NULL until used) */
  StrMap *reduce_scope;    /* the names that source sees (none) */
  FeSource *random_src;    /* numba.cuda.random's prelude once read (random.c), else NULL */
  StrMap *overloads;       /* lower_overloads.c: "path(types)" -> the FeFunc of its implementation (NULL until one is called) */
  FeSource **resolved;     /* the sources of those implementations (freed with the compile) */
  unsigned nresolved, resolved_cap, resolved_index;
  Type **records;          /* record types read from signature text (FE_RECORD_PLACEHOLDER<k> names records[k]) */
  unsigned nrecords, records_cap;
};
#define FE_RECORD_PLACEHOLDER "__kf_rec"


/* ---- builtins: every name kfront knows in numba.cuda, math, numpy and Python (builtins.def, one row each) -- */
typedef enum {
#define BUILTIN(id, ...) BI_##id,
#include "frontend/builtins.def"
#undef BUILTIN
  BI__COUNT
} FeBuiltin;

/* ---- numba_types.c ---------------------------------------------------------------------------------- */
/* Numba's scalar kinds, in the order of the tables. */
enum { NB_BOOL, NB_I8, NB_I16, NB_I32, NB_I64, NB_U8, NB_U16, NB_U32, NB_U64, NB_F16, NB_F32, NB_F64, NB_C64, NB_C128,
       NB_BF16, NB_NKINDS };
enum { CONV_NONE, CONV_EXACT, CONV_PROMOTE, CONV_SAFE, CONV_UNSAFE };

/* A signature of a case list: return kind, argument kinds (NB_*). */
typedef struct NbCase {
  int8_t ret, nargs, args[4];
} NbCase;

int nb_kind(const Type *t);                 /* -1 for a non-scalar */
Type *nb_type(IrContext *ctx, int kind);
int nb_can_convert(int from, int to);       /* CONV_* */
/* The best case for the argument kinds, as numba's resolve_overload picks it (first of the best rated);
 * NULL if none matches (unsafe conversions allowed unless !unsafe_ok). */
const NbCase *nb_resolve(const NbCase *cases, unsigned ncases, const int *args, unsigned nargs, bool unsafe_ok);
/* Numba's unify_types: scalars by the promotion table, tuples elementwise, arrays of one dtype and rank
 * (layouts differ: A); NULL when there is none. */
Type *nb_unify(IrContext *ctx, Type *a, Type *b);
/* optional.c: Optional(t) for a value type kfront can make optional (numbers, booleans, datetimes, arrays and plain
 * tuples of them), else NULL after a located TypingError at loc naming what is not supported. */
Type *fe_optional_type(FeCtx *fe, Type *t, SrcLoc loc);
/* Numba's spelling of a type: int64, float32, bool, array(float32, 2d, C), UniTuple(int64 x 2). */
void nb_type_name(const Type *t, StrBuf *out);
/* t as signatures spell it, which nb_parse_signature and kfront.types read back: float32[:, ::1], float32[()],
 * UniTuple(int64, 2), Tuple((int64, float32)), NamedTuple("m.P", ("x",), (int64,)), datetime64[D], bfloat16, a
 * record's dtype spelling (the runtime's kernel signatures, the overload resolver's argument types). */
void nb_type_signature(const Type *t, StrBuf *out);
/* An array's dimensions as signatures spell them: [:, ::1] for C, [::1, :] for F, [:, :] for A; [()] for 0-d. */
void nb_signature_dims(unsigned rank, char layout, StrBuf *out);
const char *nb_type_str(Arena *a, const Type *t);
/* Mangled spelling for symbol names: f32, i64, b1, f32_2A, T2_i64_i64_E. */
void nb_mangle(const Type *t, StrBuf *out);
/* The name Numba gives a named tuple class in type names: the last part of its dotted name ("mod.Point#2": Point). */
void nb_tuple_class_name(const char *tclass, StrBuf *out);
/* Nothing for a type that is no named tuple; for one, the mark of its class in mangled names and instance keys. */
void nb_mangle_tuple_class(const Type *t, StrBuf *out);
/* A Numba type name (int32, float32, bool_, intp, i4, f8, ...): its kir type, or NULL; *is_void for void/none. */
Type *nb_named_type(IrContext *ctx, const char *name, bool *is_void);
/* Reads a type expression of a signature: a type name (or attribute chain ending in one), an array
 * `float32[:, ::1]`, `UniTuple(int64, 2)`, `Tuple((int64, float32))`. Reports errors located in the
 * expression. */
Type *nb_parse_type(FeCtx *fe, const PyExpr *e, bool *is_void);
/* Reads a signature: `void(float32[:], int64)`, `float32(float32)`, `(float32[:], float32[:])`. */
bool nb_parse_signature(FeCtx *fe, const PyExpr *e, FeSig *out);
/* Parses a signature string that sits at `at` in the source (the first character inside its quotes). */
bool nb_parse_signature_text(FeCtx *fe, const char *s, size_t len, const char *file, unsigned line, unsigned col,
                             FeSig *out);

/* ---- match.c ----------------------------------------------------------------------------------------- */
/* The function definition with its match statements rewritten into the if/elif chains CPython compiles them to
 * (def itself when it has none); those with a pattern numba-cuda refuses are left as they are. */
const PyStmt *match_rewrite_function(FeCtx *fe, const PyStmt *def);
/* For a match statement: the opcode of the first pattern numba-cuda refuses ("MATCH_SEQUENCE", ...) and, in
 * *loc, where that pattern is; NULL when it has none. */
const char *match_refused(const PyStmt *s, SrcLoc *loc);

/* ---- sema.c ------------------------------------------------------------------------------------------ */
/* Registers every known dotted path (fe->known, fe->prefixes). */
void sema_init_known(FeCtx *fe);
/* The builtin a path names ("numba.cuda.grid", "math.sqrt", "builtins.range"), or -1. */
int sema_lookup_path(FeCtx *fe, const char *path);
/* Whether some known path starts with `path.` (so an attribute of it may still name something). */
bool sema_is_prefix(FeCtx *fe, const char *path);
/* Numba type named by a path ("numba.float32", "numpy.int32", "numba.types.uint8"), or NULL. */
Type *sema_path_type(FeCtx *fe, const char *path);
const char *sema_builtin_name(int bi);

/* Operator typing with Numba's templates. op: the PyBinOp / PyCmpOp / PyUnaryOp of ast.h, in the
 * families below. Returns the chosen case (argument and result kinds), or NULL if none applies. */
typedef enum { NBF_BINOP, NBF_CMP, NBF_UNARY } NbFamily;
const NbCase *sema_op_case(NbFamily fam, int op, const int *args, unsigned nargs);
/* Numba's typing of a builtin's calls (builtins.def's TYPING column): its case list (none for the ones typed by
 * their lowering), and whether a float16 or a bfloat16 argument gives its own type first (numba-cuda's fp16 and
 * bf16 overloads). */
typedef struct FeBuiltinTyping {
  const NbCase *cases;
  unsigned ncases;
  bool f16_overload, bf16_overload;
} FeBuiltinTyping;
const FeBuiltinTyping *sema_builtin_typing(int bi);
/* The case of builtin bi that Numba picks for arguments of those scalar kinds (NB_*), NULL if none fits. */
const NbCase *sema_builtin_case(int bi, const int *kinds, unsigned n);
/* numba-cuda's typing of cuda.atomic.* (cudadecl): whether builtin bi takes an array of elements of that scalar kind
 * (NB_*: 32- and 64-bit integers; float32 and float64 too for add, sub, max, min, nanmax, nanmin; inc and dec
 * unsigned only), and whether it takes floats at all. */
bool sema_atomic_element_ok(int bi, int kind);
bool sema_atomic_takes_floats(int bi);

/* Per-function facts: the locals (parameters first, then a closure's captured names), and which of them inner
 * defs and lambdas read (fn->captured). */
void sema_analyse_function(FeCtx *fe, FeFunc *fn);
/* The names an inner def (or a lambda's synthetic def) reads that are not its own locals, nested functions' free
 * names included, in order of first appearance (*out in the arena). */
unsigned sema_free_names(FeCtx *fe, const PyStmt *def, const char ***out);
/* How many times fn's body binds name (parameters, assignments, loop targets, defs). */
unsigned sema_definitions(const FeFunc *fn, const char *name);
/* Whether name (a local of fn read by an inner def or lambda, site) is bound before site in the order Python compiles
 * fn's body (parameters first): Numba makes the closure's cells from the variables stored by then. */
bool sema_bound_before(const FeFunc *fn, const char *name, const void *site);
int sema_local_index(const FeFunc *fn, const char *name);
/* Exit analysis of statements at one loop level: whether they return/break/continue. */
typedef enum { EXIT_NEVER, EXIT_SOMETIMES, EXIT_ALWAYS } ExitKind;
ExitKind sema_exits(const PyStmt *const *stmts, unsigned n);
bool sema_contains_break(const PyStmtList *body);    /* a break of this loop (not of nested loops) */
/* whether the statements may end the iteration of the loop around them early: a break or continue of that loop */
bool sema_leaves_iteration(PyStmt *const *stmts, unsigned n);
bool sema_contains_return(const PyStmtList *body); /* a return or a raise */
/* Edit distance, for "did you mean". */
unsigned sema_edit_distance(const char *a, const char *b);
/* Python's folding of constants (CPython folds operations between literals; module constants are computed
 * by Python): int (int64), float and bool constants; false where Python would raise or leave int64. */
bool sema_py_binop(IrContext *ctx, PyBinOp op, const FeVal *a, const FeVal *b, FeVal *out);
bool sema_py_unary(IrContext *ctx, PyUnaryOp op, const FeVal *a, FeVal *out);
bool sema_py_compare(IrContext *ctx, PyCmpOp op, const FeVal *a, const FeVal *b, FeVal *out);

/* ---- cmath.c: the cmath functions, written once in Python and compiled as device functions -------------- */
/* The function of that name (exp, log, log_base, log10, sqrt, cos, cosh, sin, sinh, tan, tanh, acos, acosh, asin,
 * asinh, atan, atanh, rect), parsed on first use; NULL for another name. */
FeFunc *fe_cmath_function(FeCtx *fe, const char *name);
/* Frees what fe_cmath_function made. */
void fe_cmath_free(FeCtx *fe);

/* ---- reductions.c: NumPy's whole-array reductions, written once in the kernel language ------------------------ */
/* The reduction NAME (sum, prod, min, max, all, any, count_nonzero, mean, var, std, nansum, nanprod, nanmin,
 * nanmax, nanmean, nanvar, nanstd) over arrays of `rank` axes, its source
 * generated for that rank on first use; NULL for another name. */
FeFunc *fe_reduce_function(FeCtx *fe, const char *name, unsigned rank);
/* Frees what fe_reduce_function made. */
void fe_reduce_free(FeCtx *fe);

/* ---- lower_overloads.c: functions the embedder implements per call's argument types (numba's @overload) ---------- */
/* The implementation of the overloaded function `path` for these argument types (spelt as kf_overload_resolver
 * says; nargs positional, then nkw keyword ones named kw), asked of the resolver once per distinct types and
 * read as a source of its own; NULL after *why is set (no resolver, the resolver's error, an unusable answer). */
FeFunc *fe_overload_impl(FeCtx *fe, const char *path, const char *const *types, unsigned nargs,
                         const char *const *kw, unsigned nkw, const char **why);
/* Frees what fe_overload_impl made. */
void fe_overloads_free(FeCtx *fe);

/* ---- numeric.c: NumPy's ufuncs in kernels ---------------------------------------------------------------- */
/* A ufunc is the builtin id FE_UFUNC_BASE + its index (sema_lookup_path gives it for "numpy.<name>"). */
enum { FE_UFUNC_BASE = BI__COUNT };
/* The loop chosen for a call: its input and output kinds (NB_*). */
typedef struct NumLoop {
  unsigned nin, nout;
  int in[2], out[2];
} NumLoop;
/* The index of the ufunc NumPy calls `name` (aliases such as abs, acos, mod included), or -1. */
int num_ufunc_lookup(const char *name);
const char *num_ufunc_name(int u);
unsigned num_ufunc_nin(int u);
unsigned num_ufunc_nout(int u);
/* false for the ufuncs numba-cuda does not lower in kernels (frexp, modf) */
bool num_ufunc_supported(int u);
/* np.can_cast(from, to, 'same_kind'): whether a loop's result may be stored to an output of kind to. */
bool num_can_cast_same_kind(int from, int to);
/* The loop NumPy and numba-cuda choose for inputs of these kinds; false when there is none. */
bool num_ufunc_loop(int u, const int *kinds, unsigned nin, NumLoop *out);
/* How num_ufunc_emit calls a function of kfront's cmath source (cmath.c) that a complex loop is built on: call
 * (lower_math.c's) compiles it for z's type and calls it at b's insertion point, giving its result in z's type, or NULL
 * after reporting an error. */
typedef struct NumCmath {
  Value *(*call)(void *ctx, const char *name, Value *z);
  void *ctx;
} NumCmath;
/* Builds what the loop computes at b's insertion point, from inputs of the loop's input types; false when a cmath
 * function it calls failed to compile (reported). */
bool num_ufunc_emit(IrBuilder *b, int u, const NumLoop *loop, Value *const *in, Value **out, const NumCmath *cm);

/* numpy's maximum/minimum (nan_wins) and fmax/fmin on floats, as numba's npyfuncs. */
Value *num_float_minmax(IrBuilder *b, Value *x, Value *y, bool is_max, bool nan_wins);

/* ---- lowp.c: cuda.fp16 and cuda.bf16 ------------------------------------------------------------------- */
/* An intrinsic of cuda.fp16 is the builtin id FE_FP16_BASE + its index, of cuda.bf16 FE_BF16_BASE + index (after
 * the operator functions' ids, below). */
enum { FE_FP16_BASE = FE_UFUNC_BASE + 256 };
typedef enum { LOWP_FP16, LOWP_BF16, LOWP_BF16_INTERNAL } LowpModule;
/* The index of a name of module m (numba.cuda.fp16, numba.cuda.bf16, numba.cuda._internal.cuda_bf16), or -1. */
int num_lowp_lookup(LowpModule m, const char *name);
const char *num_lowp_name(int k);
unsigned num_lowp_nargs(int k);
/* The type every argument converts to (h: the module's type, f16 or bf16). */
Type *num_lowp_arg_type(IrContext *ctx, int k, Type *h);
/* Builds the intrinsic on arguments of num_lowp_arg_type; its result (h, i1 for comparisons, i32 for hisinf, the
 * conversion's type). */
Value *num_lowp_emit(IrBuilder *b, int k, Type *h, Value *const *in);
Value *num_lowp_to_int(IrBuilder *b, Value *x, Type *to, int mode);

/* ---- lower_fp8.c: numba.cuda._internal.cuda_fp8 ---------------------------------------------------------- */
/* The storage type a path names (numba.cuda._internal.cuda_fp8.fp8_e4m3 ... fp8x4_e8m0, cuda_bf16's
 * unnamed1405307 / __nv_bfloat16_raw), or NULL; and a storage type's numba-cuda name (fp8x2_e5m2). */
Type *fe_fp8_path_type(IrContext *ctx, const char *path);
void fe_storage_name(const Type *t, StrBuf *out);

/* ---- random.c: numba.cuda.random ------------------------------------------------------------------------ */
/* path is "numba.cuda.random" (the module: *out its path), one of its device functions (*out the FV_FUNC of
 * kfront's prelude, read on first use) or host functions (*out FV_INVALID saying so); false for any other path. */
bool fe_random_path(FeCtx *fe, const char *path, FeVal *out);
/* Reads the top level of src (parsed: src->py) with fe->cur = src (module.c). */
void fe_read_source_stmts(FeCtx *fe, FeSource *src);

/* ---- vectors.c: CUDA vector types ------------------------------------------------------------------------------ */
/* A vector type's constructor is the builtin id FE_VECTOR_BASE + k ("numba.cuda.float32x4", aliases too), k in
 * 0..39: base type k / 4 (int8 ... float64), k % 4 + 1 fields. */
enum { FE_VECTOR_BASE = FE_FP16_BASE + 256, FE_VECTOR_COUNT = 40 };
int vec_lookup(const char *name);  /* k of a type named by its name or an alias ("float32x4", "float4"), or -1 */
const char *vec_name(int k);       /* numba-cuda's name: "float32x4" */
Type *vec_type(IrContext *ctx, int k);
/* The index of the field attr (x y z w) of vector type vt, or -1. */
int vec_field(const Type *vt, const char *attr);
/* Whether vt's constructor takes arguments of these types (numba-cuda's overloads; NULL: not a runtime value);
 * else *why. */
bool vec_ctor_accepts(const Type *vt, Type *const *args, unsigned n, const char **why);

/* ---- sema.c: Python's operator module as functions ------------------------------------------------------------ */
/* operator.add, operator.__add__, from operator import iadd...: the builtin id FE_OPERATOR_BASE + k. Each is lowered
 * as the syntax it stands for (operator.add(a, b) as a + b, operator.getitem(a, i) as a[i]), as Numba types both
 * with the same templates; the in-place forms (iadd...) as the plain operator, which is what they do on the immutable
 * values of a kernel. */
typedef enum {
  OPF_BINOP,    /* op: PyBinOp */
  OPF_CMP,      /* op: PyCmpOp */
  OPF_UNARY,    /* op: PyUnaryOp (not_ included) */
  OPF_CONTAINS, /* contains(a, b): b in a */
  OPF_TRUTH,    /* numba-cuda types it for booleans only */
  OPF_ABS,      /* numba-cuda types it for float16 only (cuda_fp16's operator.abs) */
  OPF_GETITEM,  /* a[i] */
  OPF_SETITEM,  /* a[i] = v */
  OPF_UNTYPED,  /* a function of the module numba-cuda does not type in kernels (index, concat, ...) */
} FeOperatorKind;
typedef struct FeOperatorFn {
  const char *name; /* "operator.add", "operator.iadd", "operator.not_" */
  uint8_t kind;     /* FeOperatorKind */
  uint8_t op;
  uint8_t nargs;
} FeOperatorFn;
enum { FE_OPERATOR_BASE = FE_VECTOR_BASE + FE_VECTOR_COUNT };
/* cuda.bf16's intrinsics (lowp.c), then cuda.libdevice.NAME: FE_LIBDEVICE_BASE + its row of ir/libdevice.def */
enum { FE_BF16_BASE = FE_OPERATOR_BASE + 256, FE_LIBDEVICE_BASE = FE_BF16_BASE + 256 };
const FeOperatorFn *sema_operator_fn(int k);

/* ---- lower.c, lower_calls.c ------------------------------------------------------------------------------ */
/* Compiles one function for the given parameter shapes: a kernel (kernel attr) or a device function.
 * sym is its symbol name. declared: the signature it is compiled for (its return type is the function's),
 * or NULL (a device function then returns the type of the decorator signature its arguments match, else the
 * type of its return statements). Returns the instance (with op NULL after errors). */
FeInst *lower_function(FeCtx *fe, FeFunc *fn, const FeVal *params, unsigned nparams, const char *sym, bool kernel,
                       bool quiet, const FeSig *declared);
/* A parameter shape for a signature argument type (a tuple type: a tuple of shapes, its parameters flattened). */
FeVal lower_param_shape(FeCtx *fe, Type *t);
/* Makes the parameter shape of an array (lower_param_shape's) that of a readonly one. */
void lower_shape_set_readonly(FeVal *shape);

/* ---- views.c ------------------------------------------------------------------------------------------- */
/* One item of a basic index a[...]: an integer (lowered, wrapped and checked: an i64 in range), a slice
 * start:stop:step (bounds as written, i64, NULL when omitted; a nonzero constant step, or one known at run time:
 * view_build checks it is not 0 as Numba does, ValueError), None (a new axis of extent 1) or an ellipsis. */
typedef enum { VI_INT, VI_SLICE, VI_NEWAXIS, VI_ELLIPSIS } ViewItemKind;
typedef struct ViewItem {
  ViewItemKind kind;
  Value *index;            /* VI_INT */
  Value *start, *stop;     /* VI_SLICE */
  int64_t step;            /* VI_SLICE: 1 when not written */
  Value *step_v;           /* VI_SLICE: the step (i64) when it is not a constant, else NULL */
  bool has_step;           /* VI_SLICE: a step was written (numba's slice3: the view is not contiguous) */
  int axis;                /* set by view_type: the array axis an integer or slice indexes (-1: none) */
} ViewItem;
/* The type of arr[items] by Numba's rules: an array (the view) or, when no axis is left, the element type;
 * NULL and *why when the index does not fit the array. Sets each item's axis. */
Type *view_type(IrContext *ctx, const Type *arr, ViewItem *items, unsigned n, const char **why);
/* The mem.subview of arr[items] (of type result, from view_type). */
Value *view_build(IrBuilder *b, Value *arr, const ViewItem *items, unsigned n, Type *result);
/* The type of arr.T (permuted: arr.transpose(axes), layout A as in Numba) and the transposed view (perm NULL:
 * the axes reversed; else result axis d walks axis perm[d]). */
Type *view_transpose_type(IrContext *ctx, const Type *arr, bool permuted);
Value *view_transpose(IrBuilder *b, Value *arr, const unsigned *perm, Type *result);
/* arr.real / arr.imag of a complex array (rank 1..7), as numba-cuda's array_complex_attr makes it: a view of the
 * parts, result the part's float array (layout A), the array's extents and strides (mem.reinterpret of the
 * elements as pairs of floats, mem.subview of one of the pair); reading and writing it reads and writes the parts. */
Value *view_complex_part(IrBuilder *b, Value *arr, bool imag, Type *result);
/* Unless ok (i1) holds, the thread raises ValueError(msg) as Numba raises it at run time: a check.raise recorded
 * whether or not the kernel is compiled with debug=True (kfront's run-time checks report, as its bounds checks do;
 * Numba's kernel without debug=True would end the thread silently). */
void view_value_check(IrBuilder *b, Value *ok, const char *msg);
/* arr.reshape(dims) of a contiguous (C or F) array: n i64 extents (a negative one inferred, as Numba infers it)
 * read in arr's order, after the checks (view_value_check) of Numba's conditions: at most one negative extent,
 * the size unchanged. */
Value *view_reshape(IrBuilder *b, Value *arr, Value *const *dims, unsigned n, Type *result);
/* arr.ravel() of a C array: its elements in order, as a 1-d C array (no condition). */
Value *view_ravel(IrBuilder *b, Value *arr, Type *result);
/* arr.view(dtype) of type result (arr's with the new element type), as Numba's _change_dtype makes it, after the
 * check (view_value_check) of its condition (the innermost axis's bytes divide; an A array contiguous along one
 * end when the element size changes). */
Value *view_dtype(IrBuilder *b, Value *arr, Type *result);

/* ---- module.c ------------------------------------------------------------------------------------------ */
void fe_error(FeCtx *fe, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* What a global name means in source src: the embedder's binding, else src's module-level name; NULL if
 * neither (the caller then tries Python's builtins). */
FeVal *fe_lookup(FeCtx *fe, const FeSource *src, const char *name);
/* Registers a decorated function (of fe->cur, unless fn->src is set) and gives it its symbol base. */
void fe_add_func(FeCtx *fe, FeFunc *fn);
/* An interned string in the frontend arena. */
const char *fe_intern(FeCtx *fe, const char *s);
/* A module-level expression evaluated with Python's semantics as module constants are (FV_HOST when it is
 * not a compile-time constant). */
FeVal fe_eval_const(FeCtx *fe, const PyExpr *e);
/* What `from a.b import c` binds c to, for the dotted path "a.b.c": a type, a known builtin (math constants
 * as float64 constants), or a path (a module, or an attribute chain still to be resolved). */
FeVal fe_import_value(FeCtx *fe, const char *path);
/* The value `import a.b` binds (a module path). */
FeVal fe_module_value(FeCtx *fe, const char *path);
/* Limits on constant and kernel tuples: nesting (also of an embedder's namespaces), and the values one holds at
 * module level (np.array data included). Tuples are made by combining others, so without them a few lines
 * (T = (T, T), repeated) would make a tuple too deep for the recursive walks over it or too large to visit. */
enum { FE_MAX_NESTING = 64, FE_MAX_CONST_ITEMS = 1 << 16 };
/* Whether the tuple v holds at most max_items values (non-tuples, nested ones and vectors' fields counted) and
 * nests at most FE_MAX_NESTING deep. Its elements are assumed to be such tuples (so the walk is bounded). */
bool fe_tuple_fits(const FeVal *v, unsigned max_items);
/* Constants of type t as module-level constants are kept (i: integers and bools; unsigned ones as their bits). */
FeVal fe_const_int(FeCtx *fe, Type *t, int64_t i);
FeVal fe_const_float(Type *t, double f);
FeVal fe_const_complex(Type *t, double re, double im);
/* A slice object constant (a module-level or bound slice), each field NULL for None: as Numba types a slice value
 * (slice3_type when its step is given and not 1, else slice2_type) and lowers it (make_slice_from_constant: the
 * omitted fields filled in as slice() fills them); a step of 0 stays, to raise where it is used. */
FeVal fe_const_slice(FeCtx *fe, const int64_t *start, const int64_t *stop, const int64_t *step);
/* A constant array (FV_CONSTARR, what np.array([...], dtype=...) at module level gives) of dtype with the
 * given extents (rank 1..8) from n constants in C order, each converted to dtype as np.array converts it;
 * FV_HOST when one cannot be. */
FeVal fe_const_array(FeCtx *fe, Type *dtype, unsigned rank, const int64_t *dims, const FeVal *elems, unsigned n);
/* A device array captured at its address (FeConstArr.captured) of dtype, extents and strides (bytes). */
FeVal fe_captured_array(FeCtx *fe, Type *dtype, unsigned rank, const int64_t *dims, const int64_t *strides,
                        uint64_t address);
/* The constant array of records of type rec and shape dims whose bytes (C order, NumPy's layout) are bytes[0..n). */
FeVal fe_const_record_array(FeCtx *fe, Type *rec, unsigned rank, const int64_t *dims, const unsigned char *bytes,
                            size_t n);
/* The function named `name` (decorated or specified) of source src, or NULL. */
FeFunc *fe_find_func(FeCtx *fe, const FeSource *src, const char *name);
/* Reads one embedded source (kf_source) as source `index` of fe->srcs: parsed, its top level read into src. */
void fe_read_source(FeCtx *fe, FeSource *src, unsigned index, const kf_source *ks);
/* The kir symbol base of fn (name, or name__s<source> when a function of an earlier source has its name). */
const char *fe_func_symbol(FeCtx *fe, const FeFunc *fn);

/* ---- embed.c ---------------------------------------------------------------------------------------------- */
/* Before the sources are read: the embedder's bindings as FeVals (fe->binds, fe->bindings; FUNCTION values
 * wait for the sources), the function specs checked. */
void embed_begin(FeCtx *fe);
/* The function a spec makes of this def of fe->cur (its decorators are then ignored), or NULL if no spec
 * names it. */
FeFunc *embed_spec_func(FeCtx *fe, const PyStmt *def);
/* After the sources are read: FUNCTION bindings resolved; a spec that named no function is an error. */
void embed_after_read(FeCtx *fe);
/* After compiling without errors: a binding kfront cannot use, which no use reported, is an error naming it. */
void embed_end(FeCtx *fe);
void embed_free(FeCtx *fe);

/* ---- enums.c ------------------------------------------------------------------------------------------------ */
/* The enum member type of that class, kind and dtype (made once per spelling). */
const FeEnum *fe_enum_get(FeCtx *fe, const char *name, bool is_int, Type *dtype);
/* The member type of a class whose members' values are tuples or strings (value_type their type's name,
 * "UniTuple(int64, 2)" or "unicode_type"), values[i] the value of member index i; made once per spelling (the
 * first class's values kept). */
const FeEnum *fe_enum_get_valued(FeCtx *fe, const char *name, const char *value_type, const FeVal *values,
                                 unsigned n);
/* The enum class (FV_NAMESPACE, named ns_name) of a valued enum cls: member i named names[i], of value values[i]
 * (an alias, equal to an earlier member's value, is that member). */
FeVal fe_enum_valued_namespace(FeCtx *fe, const char *cls, const char *ns_name, const char *value_type,
                               const char *const *names, const FeVal *values, unsigned n);
/* The tag of the strings of valued enum e's members (see FeEnum.strings_of), made once. */
const FeEnum *fe_enum_strings(FeCtx *fe, const FeEnum *e);
/* The name of the type of value v as a valued enum's members have it ("UniTuple(int64, 2)", "unicode_type"), or
 * NULL when v is not a tuple of numbers (nested ones included) or a string. */
const char *fe_enum_value_type(FeCtx *fe, const FeVal *v);
/* Reads a spelling EnumMember("mod.Color", int64) / IntEnumMember(...) (a signature's argument type, the type
 * of an embedder's bound member); NULL after a located error. */
const FeEnum *fe_enum_parse(FeCtx *fe, const PyExpr *e);
/* Whether e looks like such a spelling (a call of EnumMember or IntEnumMember). */
bool fe_enum_spelled(const PyExpr *e);
/* The same from text (an embedder's kf_value.path): NULL (reported at loc) when it is not one. */
const FeEnum *fe_enum_parse_text(FeCtx *fe, const char *text, SrcLoc loc);
/* Numba's name of the member type: Enum<int64>(Color), IntEnum<int64>(Color). */
const char *fe_enum_type_name(FeCtx *fe, const FeEnum *e);
/* What a module-level class statement binds its name to: an enum class of integer members (Enum, IntEnum,
 * Flag, IntFlag as bases; members assigned integer constants or auto()) as FV_NAMESPACE with enumc; an
 * enum class kfront cannot use as FV_INVALID saying why; any other class FV_HOST. */
FeVal fe_enum_class(FeCtx *fe, const PyStmt *cls);

/* ---- exceptions.c ------------------------------------------------------------------------------------------ */
/* Whether name is one of Python's builtin exception classes (ValueError, ZeroDivisionError, ...). */
bool fe_builtin_exception(const char *name);
/* The exception class v names, or NULL: FV_EXCEPTION, or a path to a builtin one ("builtins.ValueError"). */
const char *fe_exception_name(const FeVal *v);
/* What a module-level class statement deriving from exception classes binds its name to (FV_EXCEPTION named
 * by the class; FV_HOST for any other class). */
FeVal fe_exception_class(FeCtx *fe, const PyStmt *cls);
/* The text an exception is recorded as (abi.h): the class, then ": " and the message when it has arguments,
 * the message being str() of the one argument or of the tuple of them. args are constants (numbers, bools,
 * strings, None); false (with *why) for anything else. */
bool fe_exception_text(FeCtx *fe, const char *cls, const FeVal *args, unsigned nargs, const char **out,
                       const char **why);

/* ---- generated.c ------------------------------------------------------------------------------------------ */
/* Builds the kernel of a @vectorize, @guvectorize or @cuda.reduce function for one signature, named sym. */
bool gen_kernel(FeCtx *fe, FeFunc *fn, const FeSig *sig, const char *sym);

#endif
