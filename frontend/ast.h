/* ast.h — the Python syntax tree the parser builds (all of Python 3.12, host code included).
 *
 * A PyModule is a list of statements; statements hold expressions and nested statement
 * lists. Every node lives in the Arena given to parse_module() and is never freed on its
 * own. Lists are arrays of pointers with a count (PyExprList, PyStmtList); optional
 * children are NULL. The shapes follow Python's own `ast` module, so its documentation
 * describes them; the differences are noted below.
 *
 * Locations: every node's `loc` is its first token (for `a + b`, the `a`), so a node's
 * location is where its source text starts; the exceptions are ST_FUNCDEF and
 * ST_CLASSDEF, located at `def`/`class` (or `async`), not at their decorators, as in
 * Python's ast. Operators and names inside a node have their own location (`op_loc`,
 * `attr_loc`, `name_loc`) for diagnostics that point at them. Statements also record the
 * line of their last token and their byte extent in the source (decorators included).
 *
 * Identifiers are NUL-terminated and interned per module: equal names share one pointer.
 * String values are decoded (escapes processed) and may contain NUL bytes (use len).
 *
 * Which constructs the kernel language supports is not decided here; the `kernel` column
 * of the kind tables says which ones the frontend's later phases reject outright
 * (ast_expr_unsupported / ast_stmt_unsupported), and ast_*_kind_name() names a construct
 * in a diagnostic ("lambda", "list comprehension"...). */
#ifndef KF_FRONTEND_AST_H
#define KF_FRONTEND_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utils/arena.h"
#include "utils/diag.h"
#include "utils/strbuf.h"

typedef struct PyExpr PyExpr;
typedef struct PyStmt PyStmt;

/* X(KIND, "name in diagnostics", usable in kernels) */
#define AST_EXPR_KINDS(X)                                                            \
  X(NAME, "name", 1)                                                                 \
  X(INT, "integer literal", 1)                                                       \
  X(FLOAT, "float literal", 1)                                                       \
  X(COMPLEX, "complex literal", 1)                                                   \
  X(STR, "string literal", 1)                                                        \
  X(FSTRING, "f-string", 0)                                                          \
  X(BOOL, "boolean literal", 1)                                                      \
  X(NONE, "None", 1)                                                                 \
  X(ELLIPSIS, "Ellipsis", 0)                                                         \
  X(UNARY, "unary operation", 1)                                                     \
  X(BINARY, "binary operation", 1)                                                   \
  X(BOOLOP, "boolean operation", 1)                                                  \
  X(COMPARE, "comparison", 1)                                                        \
  X(IFEXP, "conditional expression", 1)                                              \
  X(CALL, "call", 1)                                                                 \
  X(ATTRIBUTE, "attribute", 1)                                                       \
  X(SUBSCRIPT, "subscript", 1)                                                       \
  X(SLICE, "slice", 1)                                                               \
  X(TUPLE, "tuple", 1)                                                               \
  X(LIST, "list", 1)                                                                 \
  X(DICT, "dict display", 0)                                                         \
  X(SET, "set display", 0)                                                           \
  X(LAMBDA, "lambda", 1)                                                             \
  X(LISTCOMP, "list comprehension", 0)                                               \
  X(SETCOMP, "set comprehension", 0)                                                 \
  X(DICTCOMP, "dict comprehension", 0)                                               \
  X(GENEXP, "generator expression", 0)                                               \
  X(STARRED, "starred expression", 0)                                                \
  X(NAMED, "assignment expression", 0)                                               \
  X(AWAIT, "await", 0)                                                               \
  X(YIELD, "yield", 0)                                                               \
  X(YIELDFROM, "yield from", 0)                                                      \
  X(MATCHAS, "'as' pattern", 0)

#define AST_STMT_KINDS(X)                                                            \
  X(EXPR, "expression statement", 1)                                                 \
  X(ASSIGN, "assignment", 1)                                                         \
  X(AUGASSIGN, "augmented assignment", 1)                                            \
  X(ANNASSIGN, "annotated assignment", 1)                                            \
  X(IF, "if statement", 1)                                                           \
  X(FOR, "for loop", 1)                                                              \
  X(WHILE, "while loop", 1)                                                          \
  X(BREAK, "break", 1)                                                               \
  X(CONTINUE, "continue", 1)                                                         \
  X(RETURN, "return", 1)                                                             \
  X(PASS, "pass", 1)                                                                 \
  X(FUNCDEF, "function definition", 1)                                               \
  X(CLASSDEF, "class definition", 0)                                                 \
  X(IMPORT, "import", 1)                                                             \
  X(IMPORTFROM, "import", 1)                                                         \
  X(GLOBAL, "global statement", 0)                                                   \
  X(NONLOCAL, "nonlocal statement", 0)                                               \
  X(DEL, "del statement", 0)                                                         \
  X(ASSERT, "assert statement", 1)                                                   \
  X(RAISE, "raise statement", 1)                                                     \
  X(TRY, "try statement", 0)                                                         \
  X(WITH, "with statement", 0)                                                       \
  X(MATCH, "match statement", 0)                                                     \
  X(TYPEALIAS, "type alias", 0)

typedef enum PyExprKind {
#define X(k, name, ok) EX_##k,
  AST_EXPR_KINDS(X)
#undef X
  EX_COUNT
} PyExprKind;

typedef enum PyStmtKind {
#define X(k, name, ok) ST_##k,
  AST_STMT_KINDS(X)
#undef X
  ST_COUNT
} PyStmtKind;

/* Operators, in the order of their spelling tables in ast_dump.c. */
typedef enum PyBinOp {
  BIN_ADD, BIN_SUB, BIN_MUL, BIN_MATMUL, BIN_DIV, BIN_FLOORDIV, BIN_MOD, BIN_POW,
  BIN_LSHIFT, BIN_RSHIFT, BIN_BITOR, BIN_BITXOR, BIN_BITAND
} PyBinOp;
typedef enum PyUnaryOp { UN_NEG, UN_POS, UN_INVERT, UN_NOT } PyUnaryOp;
typedef enum PyBoolOp { BOOL_AND, BOOL_OR } PyBoolOp;
typedef enum PyCmpOp { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_IS, CMP_ISNOT, CMP_IN, CMP_NOTIN } PyCmpOp;

typedef struct PyExprList { PyExpr **items; unsigned n; } PyExprList;
typedef struct PyStmtList { PyStmt **items; unsigned n; } PyStmtList;

/* f(x, *xs, k=1, **kw): x and Starred(xs) are positional args; k=1 and **kw (arg NULL) are
 * keywords. Python's relative order of positional and keyword arguments is not kept. */
typedef struct PyKeyword {
  const char *arg; /* NULL for **value */
  SrcLoc loc;      /* the name, or the '**' */
  PyExpr *value;
} PyKeyword;

typedef enum PyParamKind {
  PARAM_POSONLY, /* before '/' */
  PARAM_NORMAL,
  PARAM_VARARGS, /* *args */
  PARAM_KWONLY,  /* after '*' or *args */
  PARAM_VARKW    /* **kwargs */
} PyParamKind;

typedef struct PyParam {
  const char *name;
  SrcLoc loc;
  PyParamKind kind;
  PyExpr *annotation; /* NULL when absent */
  PyExpr *defval;     /* NULL when absent */
} PyParam;

/* Parameters in source order (a bare '*' or '/' is not a parameter; it shows in kinds). */
typedef struct PyParams { PyParam **items; unsigned n; } PyParams;

/* One `for target in iter if cond...` clause of a comprehension. */
typedef struct PyComprehension {
  SrcLoc loc; /* 'for' (or 'async') */
  PyExpr *target, *iter;
  PyExprList ifs;
  bool is_async;
} PyComprehension;

/* `import a.b.c as d` / `from m import x as y`: name is the dotted name ("a.b.c", "*"). */
typedef struct PyAlias {
  const char *name;
  SrcLoc loc;
  const char *asname; /* NULL when absent */
  SrcLoc asname_loc;
} PyAlias;

typedef struct PyExceptHandler {
  SrcLoc loc;      /* 'except' */
  PyExpr *type;    /* NULL for a bare except */
  const char *name; /* `as name`, or NULL */
  PyStmtList body;
} PyExceptHandler;

typedef struct PyWithItem {
  PyExpr *context;
  PyExpr *vars; /* `as` target, or NULL */
} PyWithItem;

/* A match case. Patterns are expressions: literals, Name (capture; "_" is the wildcard),
 * Attribute (value pattern), List/Tuple (sequence; Starred for *rest), Dict (mapping; a NULL
 * key for **rest), Call (class pattern, keywords for k=pattern), BINARY BIN_BITOR (or
 * pattern) and MATCHAS (pattern as name). */
typedef struct PyMatchCase {
  SrcLoc loc; /* 'case' */
  PyExpr *pattern, *guard;
  PyStmtList body;
} PyMatchCase;

/* Python 3.12 type parameters: `def f[T: int, *Ts, **P]()`. */
typedef struct PyTypeParam {
  const char *name;
  SrcLoc loc;
  int stars;       /* 0, 1 (*Ts) or 2 (**P) */
  PyExpr *bound;   /* `: bound`, or NULL */
  PyExpr *defval;  /* `= default`, or NULL */
} PyTypeParam;

typedef struct PyTypeParams { PyTypeParam **items; unsigned n; } PyTypeParams;

struct PyExpr {
  PyExprKind kind;
  unsigned parens; /* how many pairs of parentheses enclose it in the source */
  SrcLoc loc;      /* first token */
  union {
    const char *name; /* EX_NAME */
    struct {
      int64_t value; /* the literal's value (negative literals are UNARY minus) */
      int big;       /* 0: fits int64; 1: only uint64 (value holds the bits); 2: wider than 64 bits */
      const char *text; /* source spelling */
      unsigned len;
    } intlit;        /* EX_INT */
    double fval;     /* EX_FLOAT; EX_COMPLEX: the imaginary part (`2j` -> 2.0) */
    bool bval;       /* EX_BOOL */
    struct {
      const char *s; /* EX_STR: decoded, implicit concatenation done; EX_FSTRING: the source
                        text of the whole literal (all parts, prefixes and quotes) */
      size_t len;
      bool bytes;    /* b'...' */
    } str;
    struct { PyUnaryOp op; PyExpr *operand; } unary;
    struct { PyBinOp op; SrcLoc op_loc; PyExpr *lhs, *rhs; } binary;
    struct { PyBoolOp op; PyExprList values; } boolop; /* a or b or c: values [a, b, c] */
    struct {
      PyExpr *left;
      PyCmpOp *ops;     /* a < b <= c: left a, ops [<, <=], comparators [b, c] */
      SrcLoc *op_locs;
      PyExprList comparators;
    } compare;
    struct { PyExpr *test, *body, *orelse; } ifexp; /* body if test else orelse */
    struct {
      PyExpr *func;
      PyExprList args;
      PyKeyword **keywords;
      unsigned nkeywords;
    } call;
    struct { PyExpr *value; const char *attr; SrcLoc attr_loc; } attribute;
    /* a[i] index i; a[i, j] and a[:, ::1] a TUPLE (parens 0) of the items; slices are EX_SLICE */
    struct { PyExpr *value, *index; } subscript;
    struct { PyExpr *lower, *upper, *step; } slice; /* each NULL when omitted */
    PyExprList elts; /* EX_TUPLE, EX_LIST, EX_SET */
    struct { PyExprList keys, values; } dict; /* key NULL: {**value} */
    struct { PyParams params; PyExpr *body; } lambda;
    struct {
      PyExpr *elt;   /* EX_DICTCOMP: the key */
      PyExpr *value; /* EX_DICTCOMP only */
      PyComprehension **gens;
      unsigned ngens;
    } comp;
    PyExpr *value; /* EX_STARRED, EX_AWAIT, EX_YIELD (NULL: bare yield), EX_YIELDFROM */
    struct { PyExpr *target, *value; } named; /* target := value (target is a NAME) */
    struct { PyExpr *pattern; const char *name; SrcLoc name_loc; } matchas; /* pattern may be NULL */
  };
};

struct PyStmt {
  PyStmtKind kind;
  SrcLoc loc;        /* first token */
  unsigned end_line; /* line of the last token */
  uint32_t start_off, end_off; /* byte extent in the source text, decorators included */
  union {
    PyExpr *expr; /* ST_EXPR */
    /* a = b = 1: targets [a, b]; x, y = ...: one TUPLE target */
    struct { PyExprList targets; PyExpr *value; } assign;
    struct { PyExpr *target; PyBinOp op; SrcLoc op_loc; PyExpr *value; } augassign;
    struct {
      PyExpr *target, *annotation, *value; /* value NULL for `x: int` */
      bool simple;                         /* the target is a plain, unparenthesized name */
    } annassign;
    /* elif: the orelse list holds one ST_IF with is_elif set */
    struct { PyExpr *test; PyStmtList body, orelse; bool is_elif; } if_;
    struct { PyExpr *target, *iter; PyStmtList body, orelse; bool is_async; } for_;
    struct { PyExpr *test; PyStmtList body, orelse; } while_;
    PyExpr *value; /* ST_RETURN (NULL: bare return) */
    struct {
      const char *name;
      SrcLoc name_loc;
      PyExprList decorators; /* in source order; each the expression after '@' */
      PyTypeParams type_params;
      PyParams params;
      PyExpr *returns; /* `-> type`, or NULL */
      PyStmtList body;
      bool is_async;
    } funcdef;
    struct {
      const char *name;
      SrcLoc name_loc;
      PyExprList decorators;
      PyTypeParams type_params;
      PyExprList bases;
      PyKeyword **keywords;
      unsigned nkeywords;
      PyStmtList body;
    } classdef;
    /* ST_IMPORT: module NULL, level 0. ST_IMPORTFROM: `from ..a.b import x`: module "a.b"
     * (NULL for `from . import x`), level 2 (leading dots). */
    struct { PyAlias **names; unsigned n; const char *module; unsigned level; } import;
    struct { const char **names; SrcLoc *locs; unsigned n; } global; /* ST_GLOBAL, ST_NONLOCAL */
    PyExprList targets; /* ST_DEL */
    struct { PyExpr *test, *msg; } assert_;
    struct { PyExpr *exc, *cause; } raise; /* both NULL for a bare raise */
    struct {
      PyStmtList body;
      PyExceptHandler **handlers;
      unsigned nhandlers;
      PyStmtList orelse, finalbody;
      bool star; /* except* */
    } try_;
    struct { PyWithItem **items; unsigned nitems; PyStmtList body; bool is_async; } with;
    struct { PyExpr *subject; PyMatchCase **cases; unsigned ncases; } match;
    struct { PyExpr *name; PyTypeParams type_params; PyExpr *value; } typealias;
  };
};

typedef struct PyModule {
  const char *filename;
  const char *text; /* the source the offsets refer to (not owned) */
  size_t len;
  PyStmtList body;
} PyModule;

/* ast_dump.c */
const char *ast_expr_kind_name(PyExprKind k);
const char *ast_stmt_kind_name(PyStmtKind k);
/* True for constructs the kernel language never accepts (lambda, comprehensions, class...). */
bool ast_expr_unsupported(PyExprKind k);
bool ast_stmt_unsupported(PyStmtKind k);
const char *ast_binop_str(PyBinOp op);   /* "+", "//", ... */
const char *ast_unaryop_str(PyUnaryOp op); /* "-", "+", "~", "not" */
const char *ast_cmpop_str(PyCmpOp op);   /* "<", "is not", "not in", ... */
/* The docstring of a def, class or module body (its first statement, a string literal), or NULL. */
const PyExpr *ast_docstring(PyStmtList body);
/* The operand through which e continues a chain: a binary operator's left operand, the value of an attribute
 * or a subscript, a call's callee; NULL for any other expression. A chain is as long as the source makes it
 * (a + b + ... + z, a.b.c, f()()), while all other nesting is bounded by the parser (PARSE_MAX_DEPTH): walkers
 * of whole expressions follow chains with a loop, not by recursion. */
const PyExpr *ast_chain_next(const PyExpr *e);
/* Calls fn on each operand expression of e but ast_chain_next(e) (absent ones skipped): a walk of what an expression
 * reads follows chains by looping and everything else through this. A lambda's parameters and body, literals and
 * names have none here. */
void ast_expr_operands(const PyExpr *e, void (*fn)(const PyExpr *operand, void *arg), void *arg);
/* e's chain in the arena: links[0] is e, links[i + 1] = ast_chain_next(links[i]), *n links (0 when e
 * continues no chain); the innermost operand is ast_chain_next(links[*n - 1]). NULL when out of memory. */
const PyExpr **ast_chain(Arena *a, const PyExpr *e, size_t *n);
/* A stable S-expression dump, one statement per line, `@line:col` on every node. */
void ast_dump(const PyModule *m, StrBuf *out);
void ast_dump_stmt(const PyStmt *s, StrBuf *out, int indent);
void ast_dump_expr(const PyExpr *e, StrBuf *out);

#endif
