/* ast_dump.c — names of AST kinds and operators, helpers over the tree (docstrings, chains), and a stable
 * S-expression dump for tests.
 *
 * Every node prints as `(kind@line:col ...)`. Expressions print on one line; each statement
 * starts a new line indented by two spaces per level, with nested bodies below it in
 * `(body ...)`, `(else ...)`... groups. Floats print in the shortest form that reads back
 * to the same double; strings print in double quotes with C escapes (\xHH for bytes
 * outside printable ASCII), so the dump is the same on every machine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/ast.h"

static const char *const expr_names[EX_COUNT] = {
#define X(k, name, ok) name,
    AST_EXPR_KINDS(X)
#undef X
};
static const bool expr_ok[EX_COUNT] = {
#define X(k, name, ok) ok,
    AST_EXPR_KINDS(X)
#undef X
};
static const char *const stmt_names[ST_COUNT] = {
#define X(k, name, ok) name,
    AST_STMT_KINDS(X)
#undef X
};
static const bool stmt_ok[ST_COUNT] = {
#define X(k, name, ok) ok,
    AST_STMT_KINDS(X)
#undef X
};

const char *ast_expr_kind_name(PyExprKind k) { return k < EX_COUNT ? expr_names[k] : "?"; }
const char *ast_stmt_kind_name(PyStmtKind k) { return k < ST_COUNT ? stmt_names[k] : "?"; }
bool ast_expr_unsupported(PyExprKind k) { return k >= EX_COUNT || !expr_ok[k]; }
bool ast_stmt_unsupported(PyStmtKind k) { return k >= ST_COUNT || !stmt_ok[k]; }

const char *ast_binop_str(PyBinOp op) {
  static const char *const s[] = {"+", "-", "*", "@", "/", "//", "%", "**", "<<", ">>", "|", "^", "&"};
  return (unsigned)op < sizeof s / sizeof *s ? s[op] : "?";
}
const char *ast_unaryop_str(PyUnaryOp op) {
  static const char *const s[] = {"-", "+", "~", "not"};
  return (unsigned)op < sizeof s / sizeof *s ? s[op] : "?";
}
const char *ast_cmpop_str(PyCmpOp op) {
  static const char *const s[] = {"==", "!=", "<", "<=", ">", ">=", "is", "is not", "in", "not in"};
  return (unsigned)op < sizeof s / sizeof *s ? s[op] : "?";
}

const PyExpr *ast_docstring(PyStmtList body) {
  if (!body.n || body.items[0]->kind != ST_EXPR) return NULL;
  const PyExpr *e = body.items[0]->expr;
  return e->kind == EX_STR && !e->str.bytes ? e : NULL;
}

const PyExpr *ast_chain_next(const PyExpr *e) {
  switch (e->kind) {
  case EX_BINARY: return e->binary.lhs;
  case EX_ATTRIBUTE: return e->attribute.value;
  case EX_SUBSCRIPT: return e->subscript.value;
  case EX_CALL: return e->call.func;
  default: return NULL;
  }
}

void ast_expr_operands(const PyExpr *e, void (*fn)(const PyExpr *operand, void *arg), void *arg) {
#define VISIT(x)                   \
  do {                             \
    if (x) fn((x), arg);           \
  } while (0)
  switch (e->kind) {
  case EX_UNARY: VISIT(e->unary.operand); break;
  case EX_BINARY: VISIT(e->binary.rhs); break;
  case EX_BOOLOP:
    for (unsigned i = 0; i < e->boolop.values.n; i++) VISIT(e->boolop.values.items[i]);
    break;
  case EX_COMPARE:
    VISIT(e->compare.left);
    for (unsigned i = 0; i < e->compare.comparators.n; i++) VISIT(e->compare.comparators.items[i]);
    break;
  case EX_IFEXP:
    VISIT(e->ifexp.test);
    VISIT(e->ifexp.body);
    VISIT(e->ifexp.orelse);
    break;
  case EX_CALL:
    for (unsigned i = 0; i < e->call.args.n; i++) VISIT(e->call.args.items[i]);
    for (unsigned i = 0; i < e->call.nkeywords; i++) VISIT(e->call.keywords[i]->value);
    break;
  case EX_SUBSCRIPT: VISIT(e->subscript.index); break;
  case EX_SLICE:
    VISIT(e->slice.lower);
    VISIT(e->slice.upper);
    VISIT(e->slice.step);
    break;
  case EX_TUPLE:
  case EX_LIST:
  case EX_SET:
    for (unsigned i = 0; i < e->elts.n; i++) VISIT(e->elts.items[i]);
    break;
  case EX_STARRED: VISIT(e->value); break;
  default: break; /* literals, names, lambdas; constructs kernels refuse (comprehensions...) are reported when lowered */
  }
#undef VISIT
}

const PyExpr **ast_chain(Arena *a, const PyExpr *e, size_t *n) {
  size_t k = 0;
  for (const PyExpr *x = e; ast_chain_next(x); x = ast_chain_next(x)) k++;
  *n = k;
  const PyExpr **links = ARENA_ARRAY(a, const PyExpr *, k ? k : 1);
  if (!links) return NULL;
  k = 0;
  for (const PyExpr *x = e; ast_chain_next(x); x = ast_chain_next(x)) links[k++] = x;
  return links;
}

/* ---- expressions ---- */

static void open_node(StrBuf *out, const char *name, SrcLoc loc) {
  sb_printf(out, "(%s@%u:%u", name, loc.line, loc.col);
}

static void put_float(StrBuf *out, double v) {
  if (isinf(v)) { sb_puts(out, v < 0 ? "-inf" : "inf"); return; }
  if (isnan(v)) { sb_puts(out, "nan"); return; }
  char buf[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  sb_puts(out, buf);
  if (!strpbrk(buf, ".e")) sb_puts(out, ".0");
}

static void put_quoted(StrBuf *out, const char *s, size_t n) {
  sb_putc(out, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
    case '"': sb_puts(out, "\\\""); break;
    case '\\': sb_puts(out, "\\\\"); break;
    case '\n': sb_puts(out, "\\n"); break;
    case '\t': sb_puts(out, "\\t"); break;
    case '\r': sb_puts(out, "\\r"); break;
    default:
      if (c < 0x20 || c >= 0x7F) sb_printf(out, "\\x%02X", c);
      else sb_putc(out, (char)c);
    }
  }
  sb_putc(out, '"');
}

static void put_expr(StrBuf *out, const PyExpr *e);

static void put_opt(StrBuf *out, const PyExpr *e) {
  sb_putc(out, ' ');
  if (e) put_expr(out, e);
  else sb_putc(out, '_');
}

static void put_list(StrBuf *out, PyExprList l) {
  for (unsigned i = 0; i < l.n; i++) {
    sb_putc(out, ' ');
    put_expr(out, l.items[i]);
  }
}

static void put_keywords(StrBuf *out, PyKeyword **k, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    sb_putc(out, ' ');
    open_node(out, "kw", k[i]->loc);
    sb_printf(out, " %s ", k[i]->arg ? k[i]->arg : "**");
    put_expr(out, k[i]->value);
    sb_putc(out, ')');
  }
}

static void put_params(StrBuf *out, PyParams ps) {
  static const char *const kinds[] = {" posonly", "", " vararg", " kwonly", " varkw"};
  sb_puts(out, "(params");
  for (unsigned i = 0; i < ps.n; i++) {
    const PyParam *a = ps.items[i];
    sb_putc(out, ' ');
    open_node(out, "param", a->loc);
    sb_printf(out, " %s%s", a->name, kinds[a->kind]);
    if (a->annotation) { sb_puts(out, " : "); put_expr(out, a->annotation); }
    if (a->defval) { sb_puts(out, " = "); put_expr(out, a->defval); }
    sb_putc(out, ')');
  }
  sb_putc(out, ')');
}

static void put_type_params(StrBuf *out, PyTypeParams tp) {
  if (!tp.n) return;
  sb_puts(out, " (typeparams");
  for (unsigned i = 0; i < tp.n; i++) {
    const PyTypeParam *a = tp.items[i];
    sb_putc(out, ' ');
    open_node(out, "typeparam", a->loc);
    sb_printf(out, " %s%s", a->stars == 1 ? "*" : a->stars == 2 ? "**" : "", a->name);
    if (a->bound) { sb_puts(out, " : "); put_expr(out, a->bound); }
    if (a->defval) { sb_puts(out, " = "); put_expr(out, a->defval); }
    sb_putc(out, ')');
  }
  sb_putc(out, ')');
}

static void put_expr(StrBuf *out, const PyExpr *e) {
  switch (e->kind) {
  case EX_NAME:
    open_node(out, "name", e->loc);
    sb_printf(out, " %s", e->name);
    break;
  case EX_INT:
    open_node(out, "int", e->loc);
    if (e->intlit.big == 2) sb_printf(out, " %.*s overflow", (int)e->intlit.len, e->intlit.text);
    else if (e->intlit.big == 1) sb_printf(out, " %llu", (unsigned long long)(uint64_t)e->intlit.value);
    else sb_printf(out, " %lld", (long long)e->intlit.value);
    break;
  case EX_FLOAT:
    open_node(out, "float", e->loc);
    sb_putc(out, ' ');
    put_float(out, e->fval);
    break;
  case EX_COMPLEX:
    open_node(out, "complex", e->loc);
    sb_putc(out, ' ');
    put_float(out, e->fval);
    sb_putc(out, 'j');
    break;
  case EX_STR:
  case EX_FSTRING:
    open_node(out, e->kind == EX_FSTRING ? "fstring" : e->str.bytes ? "bytes" : "str", e->loc);
    sb_putc(out, ' ');
    put_quoted(out, e->str.s, e->str.len);
    break;
  case EX_BOOL: open_node(out, e->bval ? "True" : "False", e->loc); break;
  case EX_NONE: open_node(out, "None", e->loc); break;
  case EX_ELLIPSIS: open_node(out, "Ellipsis", e->loc); break;
  case EX_UNARY:
    open_node(out, "unary", e->loc);
    sb_printf(out, " %s ", ast_unaryop_str(e->unary.op));
    put_expr(out, e->unary.operand);
    break;
  case EX_BINARY:
    open_node(out, "binop", e->loc);
    sb_printf(out, " %s ", ast_binop_str(e->binary.op));
    put_expr(out, e->binary.lhs);
    sb_putc(out, ' ');
    put_expr(out, e->binary.rhs);
    break;
  case EX_BOOLOP:
    open_node(out, e->boolop.op == BOOL_AND ? "and" : "or", e->loc);
    put_list(out, e->boolop.values);
    break;
  case EX_COMPARE:
    open_node(out, "compare", e->loc);
    sb_putc(out, ' ');
    put_expr(out, e->compare.left);
    for (unsigned i = 0; i < e->compare.comparators.n; i++) {
      sb_printf(out, " %s ", ast_cmpop_str(e->compare.ops[i]));
      put_expr(out, e->compare.comparators.items[i]);
    }
    break;
  case EX_IFEXP:
    open_node(out, "ifexp", e->loc);
    sb_putc(out, ' ');
    put_expr(out, e->ifexp.body);
    sb_puts(out, " if ");
    put_expr(out, e->ifexp.test);
    sb_puts(out, " else ");
    put_expr(out, e->ifexp.orelse);
    break;
  case EX_CALL:
    open_node(out, "call", e->loc);
    sb_putc(out, ' ');
    put_expr(out, e->call.func);
    put_list(out, e->call.args);
    put_keywords(out, e->call.keywords, e->call.nkeywords);
    break;
  case EX_ATTRIBUTE:
    open_node(out, "attr", e->loc);
    sb_putc(out, ' ');
    put_expr(out, e->attribute.value);
    sb_printf(out, " %s", e->attribute.attr);
    break;
  case EX_SUBSCRIPT:
    open_node(out, "subscript", e->loc);
    sb_putc(out, ' ');
    put_expr(out, e->subscript.value);
    sb_putc(out, ' ');
    put_expr(out, e->subscript.index);
    break;
  case EX_SLICE:
    open_node(out, "slice", e->loc);
    put_opt(out, e->slice.lower);
    put_opt(out, e->slice.upper);
    put_opt(out, e->slice.step);
    break;
  case EX_TUPLE: case EX_LIST: case EX_SET:
    open_node(out, e->kind == EX_TUPLE ? "tuple" : e->kind == EX_LIST ? "list" : "set", e->loc);
    put_list(out, e->elts);
    break;
  case EX_DICT:
    open_node(out, "dict", e->loc);
    for (unsigned i = 0; i < e->dict.keys.n; i++) {
      sb_puts(out, " (");
      if (e->dict.keys.items[i]) put_expr(out, e->dict.keys.items[i]);
      else sb_puts(out, "**");
      sb_putc(out, ' ');
      put_expr(out, e->dict.values.items[i]);
      sb_putc(out, ')');
    }
    break;
  case EX_LAMBDA:
    open_node(out, "lambda", e->loc);
    sb_putc(out, ' ');
    put_params(out, e->lambda.params);
    sb_putc(out, ' ');
    put_expr(out, e->lambda.body);
    break;
  case EX_LISTCOMP: case EX_SETCOMP: case EX_DICTCOMP: case EX_GENEXP:
    open_node(out, e->kind == EX_LISTCOMP ? "listcomp" : e->kind == EX_SETCOMP ? "setcomp"
                   : e->kind == EX_DICTCOMP ? "dictcomp" : "genexp", e->loc);
    sb_putc(out, ' ');
    put_expr(out, e->comp.elt);
    if (e->comp.value) { sb_putc(out, ' '); put_expr(out, e->comp.value); }
    for (unsigned i = 0; i < e->comp.ngens; i++) {
      const PyComprehension *c = e->comp.gens[i];
      sb_putc(out, ' ');
      open_node(out, c->is_async ? "async-for" : "for", c->loc);
      sb_putc(out, ' ');
      put_expr(out, c->target);
      sb_puts(out, " in ");
      put_expr(out, c->iter);
      for (unsigned j = 0; j < c->ifs.n; j++) {
        sb_puts(out, " (if ");
        put_expr(out, c->ifs.items[j]);
        sb_putc(out, ')');
      }
      sb_putc(out, ')');
    }
    break;
  case EX_STARRED: case EX_AWAIT: case EX_YIELD: case EX_YIELDFROM:
    open_node(out, e->kind == EX_STARRED ? "starred" : e->kind == EX_AWAIT ? "await"
                   : e->kind == EX_YIELD ? "yield" : "yieldfrom", e->loc);
    if (e->value) { sb_putc(out, ' '); put_expr(out, e->value); }
    break;
  case EX_NAMED:
    open_node(out, "named", e->loc);
    sb_putc(out, ' ');
    put_expr(out, e->named.target);
    sb_putc(out, ' ');
    put_expr(out, e->named.value);
    break;
  case EX_MATCHAS:
    open_node(out, "as", e->loc);
    put_opt(out, e->matchas.pattern);
    sb_printf(out, " %s", e->matchas.name);
    break;
  default:
    open_node(out, "?", e->loc);
  }
  sb_putc(out, ')');
}

void ast_dump_expr(const PyExpr *e, StrBuf *out) { put_expr(out, e); }

/* ---- statements ---- */

static void newline(StrBuf *out, int indent) {
  sb_putc(out, '\n');
  for (int i = 0; i < indent; i++) sb_puts(out, "  ");
}

static void put_body(StrBuf *out, const char *name, PyStmtList body, int indent) {
  newline(out, indent);
  sb_printf(out, "(%s", name);
  for (unsigned i = 0; i < body.n; i++) {
    newline(out, indent + 1);
    ast_dump_stmt(body.items[i], out, indent + 1);
  }
  sb_putc(out, ')');
}

static void put_decorators(StrBuf *out, PyExprList d, int indent) {
  for (unsigned i = 0; i < d.n; i++) {
    newline(out, indent);
    sb_puts(out, "(decorator ");
    put_expr(out, d.items[i]);
    sb_putc(out, ')');
  }
}

static void put_if(StrBuf *out, const PyStmt *s, int indent) {
  open_node(out, s->if_.is_elif ? "elif" : "if", s->loc);
  sb_putc(out, ' ');
  put_expr(out, s->if_.test);
  put_body(out, "body", s->if_.body, indent + 1);
  PyStmtList e = s->if_.orelse;
  if (e.n == 1 && e.items[0]->kind == ST_IF && e.items[0]->if_.is_elif) {
    newline(out, indent + 1);
    put_if(out, e.items[0], indent + 1);
  } else if (e.n) {
    put_body(out, "else", e, indent + 1);
  }
  sb_putc(out, ')');
}

/* Prints s at the current position (the caller has indented); nested lines use `indent`. */
void ast_dump_stmt(const PyStmt *s, StrBuf *out, int indent) {
  int in = indent + 1;
  switch (s->kind) {
  case ST_EXPR:
    open_node(out, "expr", s->loc);
    sb_putc(out, ' ');
    put_expr(out, s->expr);
    break;
  case ST_ASSIGN:
    open_node(out, "assign", s->loc);
    put_list(out, s->assign.targets);
    sb_puts(out, " = ");
    put_expr(out, s->assign.value);
    break;
  case ST_AUGASSIGN:
    open_node(out, "augassign", s->loc);
    sb_putc(out, ' ');
    put_expr(out, s->augassign.target);
    sb_printf(out, " %s= ", ast_binop_str(s->augassign.op));
    put_expr(out, s->augassign.value);
    break;
  case ST_ANNASSIGN:
    open_node(out, "annassign", s->loc);
    sb_putc(out, ' ');
    put_expr(out, s->annassign.target);
    sb_puts(out, " : ");
    put_expr(out, s->annassign.annotation);
    if (s->annassign.value) { sb_puts(out, " = "); put_expr(out, s->annassign.value); }
    break;
  case ST_IF:
    put_if(out, s, indent);
    return;
  case ST_FOR:
    open_node(out, s->for_.is_async ? "async-for" : "for", s->loc);
    sb_putc(out, ' ');
    put_expr(out, s->for_.target);
    sb_puts(out, " in ");
    put_expr(out, s->for_.iter);
    put_body(out, "body", s->for_.body, in);
    if (s->for_.orelse.n) put_body(out, "else", s->for_.orelse, in);
    break;
  case ST_WHILE:
    open_node(out, "while", s->loc);
    sb_putc(out, ' ');
    put_expr(out, s->while_.test);
    put_body(out, "body", s->while_.body, in);
    if (s->while_.orelse.n) put_body(out, "else", s->while_.orelse, in);
    break;
  case ST_BREAK: open_node(out, "break", s->loc); break;
  case ST_CONTINUE: open_node(out, "continue", s->loc); break;
  case ST_PASS: open_node(out, "pass", s->loc); break;
  case ST_RETURN:
    open_node(out, "return", s->loc);
    if (s->value) { sb_putc(out, ' '); put_expr(out, s->value); }
    break;
  case ST_FUNCDEF:
    open_node(out, s->funcdef.is_async ? "async-def" : "def", s->loc);
    sb_printf(out, " %s", s->funcdef.name);
    put_type_params(out, s->funcdef.type_params);
    put_decorators(out, s->funcdef.decorators, in);
    newline(out, in);
    put_params(out, s->funcdef.params);
    if (s->funcdef.returns) {
      newline(out, in);
      sb_puts(out, "(returns ");
      put_expr(out, s->funcdef.returns);
      sb_putc(out, ')');
    }
    put_body(out, "body", s->funcdef.body, in);
    break;
  case ST_CLASSDEF:
    open_node(out, "class", s->loc);
    sb_printf(out, " %s", s->classdef.name);
    put_type_params(out, s->classdef.type_params);
    if (s->classdef.bases.n || s->classdef.nkeywords) {
      sb_puts(out, " (bases");
      put_list(out, s->classdef.bases);
      put_keywords(out, s->classdef.keywords, s->classdef.nkeywords);
      sb_putc(out, ')');
    }
    put_decorators(out, s->classdef.decorators, in);
    put_body(out, "body", s->classdef.body, in);
    break;
  case ST_IMPORT: case ST_IMPORTFROM:
    if (s->kind == ST_IMPORT) {
      open_node(out, "import", s->loc);
    } else {
      open_node(out, "from", s->loc);
      sb_putc(out, ' ');
      for (unsigned i = 0; i < s->import.level; i++) sb_putc(out, '.');
      if (s->import.module) sb_puts(out, s->import.module);
    }
    for (unsigned i = 0; i < s->import.n; i++) {
      const PyAlias *a = s->import.names[i];
      sb_putc(out, ' ');
      open_node(out, "alias", a->loc);
      sb_printf(out, " %s", a->name);
      if (a->asname) sb_printf(out, " as %s", a->asname);
      sb_putc(out, ')');
    }
    break;
  case ST_GLOBAL: case ST_NONLOCAL:
    open_node(out, s->kind == ST_GLOBAL ? "global" : "nonlocal", s->loc);
    for (unsigned i = 0; i < s->global.n; i++) sb_printf(out, " %s", s->global.names[i]);
    break;
  case ST_DEL:
    open_node(out, "del", s->loc);
    put_list(out, s->targets);
    break;
  case ST_ASSERT:
    open_node(out, "assert", s->loc);
    sb_putc(out, ' ');
    put_expr(out, s->assert_.test);
    if (s->assert_.msg) { sb_putc(out, ' '); put_expr(out, s->assert_.msg); }
    break;
  case ST_RAISE:
    open_node(out, "raise", s->loc);
    if (s->raise.exc) { sb_putc(out, ' '); put_expr(out, s->raise.exc); }
    if (s->raise.cause) { sb_puts(out, " from "); put_expr(out, s->raise.cause); }
    break;
  case ST_TRY:
    open_node(out, s->try_.star ? "try*" : "try", s->loc);
    put_body(out, "body", s->try_.body, in);
    for (unsigned i = 0; i < s->try_.nhandlers; i++) {
      const PyExceptHandler *h = s->try_.handlers[i];
      newline(out, in);
      open_node(out, "except", h->loc);
      if (h->type) { sb_putc(out, ' '); put_expr(out, h->type); }
      if (h->name) sb_printf(out, " as %s", h->name);
      put_body(out, "body", h->body, in + 1);
      sb_putc(out, ')');
    }
    if (s->try_.orelse.n) put_body(out, "else", s->try_.orelse, in);
    if (s->try_.finalbody.n) put_body(out, "finally", s->try_.finalbody, in);
    break;
  case ST_WITH:
    open_node(out, s->with.is_async ? "async-with" : "with", s->loc);
    for (unsigned i = 0; i < s->with.nitems; i++) {
      sb_puts(out, " (item ");
      put_expr(out, s->with.items[i]->context);
      if (s->with.items[i]->vars) { sb_puts(out, " as "); put_expr(out, s->with.items[i]->vars); }
      sb_putc(out, ')');
    }
    put_body(out, "body", s->with.body, in);
    break;
  case ST_MATCH:
    open_node(out, "match", s->loc);
    sb_putc(out, ' ');
    put_expr(out, s->match.subject);
    for (unsigned i = 0; i < s->match.ncases; i++) {
      const PyMatchCase *c = s->match.cases[i];
      newline(out, in);
      open_node(out, "case", c->loc);
      sb_putc(out, ' ');
      put_expr(out, c->pattern);
      if (c->guard) { sb_puts(out, " if "); put_expr(out, c->guard); }
      put_body(out, "body", c->body, in + 1);
      sb_putc(out, ')');
    }
    break;
  case ST_TYPEALIAS:
    open_node(out, "type", s->loc);
    sb_putc(out, ' ');
    put_expr(out, s->typealias.name);
    put_type_params(out, s->typealias.type_params);
    sb_puts(out, " = ");
    put_expr(out, s->typealias.value);
    break;
  default:
    open_node(out, "?", s->loc);
  }
  sb_putc(out, ')');
}

void ast_dump(const PyModule *m, StrBuf *out) {
  sb_puts(out, "(module ");
  put_quoted(out, m->filename, strlen(m->filename));
  for (unsigned i = 0; i < m->body.n; i++) {
    newline(out, 1);
    ast_dump_stmt(m->body.items[i], out, 1);
  }
  sb_puts(out, ")\n");
}
