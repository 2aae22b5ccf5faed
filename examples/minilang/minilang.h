/* minilang.h — a small C-like kernel language compiled to kir through kfront's public builder API.
 *
 * The language (README.md): kernels and device functions with typed parameters; scalars bool, i32, i64, f32,
 * f64 and 1-D arrays of them (f32[]); let (with or without a value), assignment, array stores, if/else, while,
 * for i in lo..hi, return, shared arrays (shared buf: f32[256];); arithmetic, comparisons, && and ||
 * (short-circuit), !, casts f32(x) ...; builtins thread_idx(), block_idx(), block_dim(), grid_dim() (the x
 * dimension, as i64), len(a), sync() (a barrier) and atomic_add/atomic_max/atomic_min(a, i, v).
 *
 * Generic kernels: a parameter's type may be a type variable (`a: T`, `x: T[]`, and `let s: T` in the kernel), which
 * each launch binds from its arguments' types (kf_program_create_generic's callback, ml_program).
 *
 * This header is the frontend's interface: the AST (parser.c builds it), and ml_compile and ml_program (lower.c),
 * which parse a source and lower it with kfront/kir.h. Only the installed headers kfront.h and kfront/kir.h are used. */
#ifndef MINILANG_H
#define MINILANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <kfront/kir.h>

/* ML_TVAR + k: the type variable 'A' + k (a scalar unknown until a generic kernel's arguments bind it) */
typedef enum { ML_VOID, ML_BOOL, ML_I32, ML_I64, ML_F32, ML_F64, ML_TVAR } MlScalar;

typedef struct MlType {
  MlScalar scalar;
  bool array; /* a 1-D array of scalar */
} MlType;

typedef struct MlLoc {
  unsigned line, col;
} MlLoc;

typedef enum { E_INT, E_FLOAT, E_BOOL, E_NAME, E_BINARY, E_UNARY, E_INDEX, E_CALL } MlExprKind;

typedef struct MlExpr MlExpr;
struct MlExpr {
  MlExprKind kind;
  MlLoc loc;
  const char *name; /* E_NAME, E_CALL: the name; E_BINARY, E_UNARY: the operator ("+", "<=", "&&", "!") */
  int64_t ival;     /* E_INT, E_BOOL */
  double fval;      /* E_FLOAT */
  MlExpr *lhs, *rhs; /* E_BINARY; E_UNARY: lhs; E_INDEX: lhs the array, rhs the index */
  MlExpr **args;    /* E_CALL */
  unsigned nargs;
};

typedef enum { S_LET, S_ASSIGN, S_STORE, S_IF, S_WHILE, S_FOR, S_RETURN, S_EXPR, S_BLOCK, S_SHARED } MlStmtKind;

typedef struct MlStmt MlStmt;
struct MlStmt {
  MlStmtKind kind;
  MlLoc loc;
  const char *name;    /* S_LET, S_ASSIGN, S_STORE (the array), S_FOR (the loop variable), S_SHARED */
  bool has_type;       /* S_LET: a type was written */
  MlType type;         /* S_LET, S_SHARED (an array) */
  int64_t extent;      /* S_SHARED: its size */
  MlExpr *value;       /* S_LET (NULL: no initial value), S_ASSIGN, S_STORE, S_RETURN (NULL: none), S_EXPR;
                        * S_IF, S_WHILE: the condition; S_FOR: the lower bound */
  MlExpr *index;       /* S_STORE: the index; S_FOR: the upper bound */
  MlStmt *body, *orelse; /* S_IF, S_WHILE, S_FOR: the body (an S_BLOCK); S_IF: else (NULL, an S_BLOCK or S_IF) */
  MlStmt **stmts;      /* S_BLOCK */
  unsigned nstmts;
};

typedef struct MlParam {
  const char *name;
  MlType type;
  MlLoc loc;
} MlParam;

typedef struct MlFunc {
  bool kernel;
  const char *name;
  MlLoc loc;
  MlParam *params;
  unsigned nparams;
  MlType result; /* ML_VOID for kernels */
  MlStmt *body;
} MlFunc;

typedef struct MlProgram {
  MlFunc **funcs;
  unsigned nfuncs;
} MlProgram;

/* Memory for one compilation: everything the parser makes lives until ml_arena_free. */
typedef struct MlArena MlArena;
void *ml_alloc(MlArena **arena, size_t size);
void ml_arena_free(MlArena **arena);

/* The contents of the file at path (caller owns: free; NUL-terminated), *len its length; NULL when unreadable. */
char *ml_read_file(const char *path, size_t *len);

/* Parses text (the file `file`) into *out. On a syntax error reports it to ctx (kf_context_report, located
 * in file) and returns false. */
bool ml_parse(kf_context *ctx, const char *file, const char *text, size_t len, MlArena **arena, MlProgram *out);

/* Compiles a minilang source to a verified kir module (caller owns *out: kf_module_destroy). The source is
 * registered with ctx (kf_context_add_source), so every diagnostic — minilang's own syntax and type errors
 * and kfront's (the builder's, the verifier's, an IndexError at run time) — is located in it with its line and
 * a caret. KF_ERROR_INVALID_INPUT on an error in the source (see kf_context_diagnostics). */
kf_status ml_compile(kf_context *ctx, const char *file, const char *text, size_t len, kf_module **out);

/* A program of every kernel of a minilang source on rt (caller owns *out: kf_program_destroy, then ml_unit_free of
 * *unit, which its callback reads), made with kf_program_create_generic: each kernel is lowered when it is first
 * launched with new argument types, its type variables (T in `x: T[]`) bound by them. A syntax error: reported,
 * KF_ERROR_INVALID_INPUT; type errors come with the launch that lowers the kernel. */
typedef struct MlUnit MlUnit;
kf_status ml_program(kf_runtime *rt, kf_context *ctx, const char *file, const char *text, size_t len, MlUnit **unit,
                     kf_program **out);
void ml_unit_free(MlUnit *unit);

#endif
