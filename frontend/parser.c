/* parser.c — recursive-descent parser for Python 3.12 (plus PEP 758's `except A, B:`).
 *
 * How it works. Tokens come from the lexer on demand and are kept (in fixed chunks, so a
 * Token pointer stays valid) for look-ahead and for error messages. Each grammar rule of
 * Python's PEG grammar that matters is one function, with the rule as a comment above it;
 * precedence is Python's. Python's grammar needs unbounded look-ahead in three places,
 * resolved by scanning tokens without parsing: a parenthesized `with (a as b, c):`, the
 * soft keyword `match` (a match statement's line ends in ':' followed by an indented `case`)
 * and `type X = ...`.
 *
 * Lists are built on one scratch stack of pointers: a rule pushes its items and copies them
 * into the arena when done (nested rules push above it and pop before it pushes again).
 *
 * Errors: the first syntax error is reported with its location, then the parser unwinds
 * with longjmp to parse_module(), which frees the scratch memory and returns NULL. All
 * tree memory is in the arena, so nothing leaks. A generic error inside brackets that were
 * opened on an earlier line and never closed is reported as "'(' was never closed" at the
 * bracket, as CPython does. Recursion is bounded by PARSE_MAX_DEPTH, and by what is left of the
 * thread's stack (utils/stack.h). Out of memory is not a syntax error: the parser runs under a guard
 * (utils/mem.h), to which an allocation failure unwinds past parse_module. */
#include "frontend/parser.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lexer.h"
#include "utils/stack.h"
#include "utils/strmap.h"
#include "utils/mem.h"

enum { TOK_CHUNK_BITS = 10, TOK_CHUNK = 1 << TOK_CHUNK_BITS };

typedef struct Parser {
  Arena *arena;
  Diag *diag;
  const char *file; /* the arena's copy: every SrcLoc points at it */
  const char *text;
  Lexer lx;
  Token **chunks;   /* tokens lexed so far, TOK_CHUNK per chunk */
  size_t nchunks, ntoks;
  bool lexed_eof;
  size_t pos;       /* index of the current token */
  const Token *tok; /* the current token */
  const Token *last; /* last consumed token other than NEWLINE/INDENT/DEDENT */
  void **stack;     /* scratch stack for lists */
  size_t nstack, capstack;
  StrMap names;     /* interned identifiers */
  StrBuf sb;        /* scratch for dotted names */
  jmp_buf fail;
  int depth;        /* nested expressions and patterns */
  bool in_func;     /* 'return' allowed */
  int loops;        /* enclosing loops in the current function or class body */
  PyModule *module;
  PyExpr *expr;     /* parse_expression's result */
} Parser;

static PyExpr *expression(Parser *p);
static PyExpr *named_expression(Parser *p);
static PyExpr *star_expressions(Parser *p);
static PyExpr *star_named_expression(Parser *p);
static PyExpr *disjunction(Parser *p);
static PyExpr *bitwise_or(Parser *p);
static PyExpr *primary(Parser *p);
static PyExpr *pattern(Parser *p);
static void statement(Parser *p);
static bool starts_expression(TokKind k);

/* ---- errors ---- */

static _Noreturn void fail(Parser *p) { longjmp(p->fail, 1); }

static _Noreturn void error_at(Parser *p, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static _Noreturn void error_at(Parser *p, SrcLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  DiagKind prev = diag_set_kind(DIAG_KIND_SYNTAX);
  diag_report(p->diag, DIAG_ERROR, loc, fmt, ap);
  diag_set_kind(prev);
  va_end(ap);
  fail(p);
}

/* The frontend runs under a guard (mem.h), where allocations do not fail; without one, a failure is reported as
 * such. */
static _Noreturn void out_of_memory(Parser *p) {
  diag_out_of_memory(p->diag);
  fail(p);
}

/* ---- tokens ---- */

/* Lexes tokens up to index i (the lexer runs on demand, so a lexical error is reported only
 * when the parser reaches it). */
static const Token *lex_upto(Parser *p, size_t i) {
  while (i >= p->ntoks) {
    if (p->lexed_eof) return &p->chunks[(p->ntoks - 1) >> TOK_CHUNK_BITS][(p->ntoks - 1) & (TOK_CHUNK - 1)];
    if ((p->ntoks & (TOK_CHUNK - 1)) == 0) {
      Token **chunks = mem_realloc(p->chunks, (p->nchunks + 1) * sizeof *chunks);
      if (!chunks) out_of_memory(p);
      p->chunks = chunks;
      if (!(chunks[p->nchunks] = mem_alloc(TOK_CHUNK * sizeof(Token)))) out_of_memory(p);
      p->nchunks++;
    }
    Token *t = &p->chunks[p->ntoks >> TOK_CHUNK_BITS][p->ntoks & (TOK_CHUNK - 1)];
    lex_next(&p->lx, t);
    if (t->kind == TK_ERROR) fail(p); /* the lexer has reported it */
    p->ntoks++;
    if (t->kind == TK_EOF) p->lexed_eof = true;
  }
  return &p->chunks[i >> TOK_CHUNK_BITS][i & (TOK_CHUNK - 1)];
}

static inline const Token *tok_at(Parser *p, size_t i) {
  if (i < p->ntoks) return &p->chunks[i >> TOK_CHUNK_BITS][i & (TOK_CHUNK - 1)];
  return lex_upto(p, i);
}

/* The current token is cached in p->tok: every precedence level looks at it. */
static inline const Token *peek(Parser *p) { return p->tok; }
static const Token *peek_n(Parser *p, size_t n) { return tok_at(p, p->pos + n); }
static inline TokKind kind(Parser *p) { return (TokKind)p->tok->kind; }

static void seek(Parser *p, size_t pos) {
  p->pos = pos;
  p->tok = tok_at(p, pos);
}

static const Token *advance(Parser *p) {
  const Token *t = p->tok;
  if (t->kind != TK_EOF) {
    if (t->kind > TK_DEDENT) p->last = t;
    seek(p, p->pos + 1);
  }
  return t;
}

static bool accept(Parser *p, TokKind k) {
  if (kind(p) != k) return false;
  advance(p);
  return true;
}

static bool is_soft_keyword(const Token *t, const char *word) {
  size_t n = strlen(word);
  return t->kind == TK_NAME && t->len == n && memcmp(t->text, word, n) == 0;
}

/* A syntax error at the current token: `msg`, or "invalid syntax". As CPython does, the rest
 * of the file is tokenized first: for a generic error, a lexical error further on (often an
 * unterminated string that swallowed code) is reported instead; and if the token lies inside
 * a bracket opened on an earlier line and never closed, that bracket is the real error. */
static _Noreturn void unexpected(Parser *p, const char *msg) {
  const Token *t = peek(p);
  if (!p->lexed_eof) {
    Token rest;
    p->lx.quiet = true;
    do lex_next(&p->lx, &rest);
    while (rest.kind != TK_EOF);
    if (!msg && p->lx.quiet_msg[0]) error_at(p, p->lx.quiet_loc, "%s", p->lx.quiet_msg);
  }
  if (p->lx.unclosed.line && p->lx.unclosed.line < t->loc.line)
    error_at(p, p->lx.unclosed, "'%c' was never closed", p->lx.unclosed_char);
  if (t->kind == TK_INDENT) error_at(p, t->loc, "unexpected indent");
  error_at(p, t->loc, "%s", msg ? msg : "invalid syntax");
}

/* Two expressions in a row inside brackets: a missing comma, unless they are inside a
 * bracket that is never closed. */
static _Noreturn void unexpected_comma(Parser *p, const PyExpr *first) {
  const Token *t = peek(p);
  if (!p->lexed_eof) {
    Token rest;
    p->lx.quiet = true;
    do lex_next(&p->lx, &rest);
    while (rest.kind != TK_EOF);
  }
  SrcLoc u = p->lx.unclosed;
  if (u.line && (u.line < t->loc.line || (u.line == t->loc.line && u.col < t->loc.col)))
    error_at(p, u, "'%c' was never closed", p->lx.unclosed_char);
  error_at(p, first->loc, "invalid syntax. Perhaps you forgot a comma?");
}

static const Token *expect(Parser *p, TokKind k) {
  if (kind(p) == k) return advance(p);
  switch (k) {
  case TK_COLON: unexpected(p, "expected ':'");
  case TK_RPAR: case TK_RSQB: case TK_RBRACE: case TK_IN: case TK_IMPORT: case TK_EQUAL: {
    char msg[32];
    snprintf(msg, sizeof msg, "expected %s", lex_token_name(k));
    unexpected(p, msg);
  }
  default: unexpected(p, NULL);
  }
}

/* Expects the closing bracket `k` of a list whose last element is `last` (NULL if none).
 * Two expressions in a row inside brackets get CPython's hint about a missing comma,
 * located at the first of them (but `name "string"` is left to the generic message). */
static void close_bracket(Parser *p, TokKind k, const PyExpr *last) {
  if (kind(p) == k) {
    advance(p);
    return;
  }
  if (last && starts_expression(kind(p)) && !(last->kind == EX_NAME && kind(p) == TK_STRING)) {
    unexpected_comma(p, last);
  }
  expect(p, k);
}

/* Location of byte `at` inside token t (which may span lines). */
static SrcLoc loc_in_token(const Token *t, const char *at) {
  SrcLoc loc = t->loc;
  for (const char *s = t->text; s < at; s++) {
    if (*s == '\n' || (*s == '\r' && s[1] != '\n')) loc.line++, loc.col = 1;
    else if (*s != '\r' && ((unsigned char)*s & 0xC0) != 0x80) loc.col++;
  }
  return loc;
}

/* ---- memory ---- */

static void *alloc(Parser *p, size_t n) {
  void *m = arena_alloc(p->arena, n);
  if (!m) out_of_memory(p);
  return m;
}

static PyExpr *new_expr(Parser *p, PyExprKind k, SrcLoc loc) {
  PyExpr *e = alloc(p, sizeof *e);
  e->kind = k;
  e->loc = loc;
  return e;
}

static PyStmt *new_stmt(Parser *p, PyStmtKind k, const Token *first) {
  PyStmt *s = alloc(p, sizeof *s);
  s->kind = k;
  s->loc = first->loc;
  s->start_off = (uint32_t)(first->text - p->text);
  return s;
}

/* Records where statement s ends: its last consumed token. */
static PyStmt *finish(Parser *p, PyStmt *s) {
  const Token *t = p->last;
  if (!t) return s;
  unsigned line = t->loc.line;
  for (uint32_t i = 0; i < t->len; i++)
    if (t->text[i] == '\n' || (t->text[i] == '\r' && (i + 1 == t->len || t->text[i + 1] != '\n'))) line++;
  s->end_line = line;
  s->end_off = (uint32_t)(t->text + t->len - p->text);
  return s;
}

static size_t mark(Parser *p) { return p->nstack; }

static void push(Parser *p, void *x) {
  if (p->nstack == p->capstack) {
    size_t cap = p->capstack ? p->capstack * 2 : 256;
    void **s = mem_realloc(p->stack, cap * sizeof *s);
    if (!s) out_of_memory(p);
    p->stack = s;
    p->capstack = cap;
  }
  p->stack[p->nstack++] = x;
}

/* Pops the items pushed since `m` into an arena array. */
static void **collect(Parser *p, size_t m, unsigned *n) {
  *n = (unsigned)(p->nstack - m);
  void **a = NULL;
  if (*n) {
    a = alloc(p, *n * sizeof *a);
    memcpy(a, p->stack + m, *n * sizeof *a);
  }
  p->nstack = m;
  return a;
}

static PyExprList expr_list(Parser *p, size_t m) {
  PyExprList l;
  l.items = (PyExpr **)collect(p, m, &l.n);
  return l;
}

static PyStmtList stmt_list(Parser *p, size_t m) {
  PyStmtList l;
  l.items = (PyStmt **)collect(p, m, &l.n);
  return l;
}

static const char *intern(Parser *p, const char *s, size_t n) {
  const char *v = strmap_getn(&p->names, s, n);
  if (v) return v;
  char *c = arena_strndup(p->arena, s, n);
  if (!c) out_of_memory(p);
  strmap_putn(&p->names, c, n, c);
  return c;
}

/* Every recursion of the expression and pattern rules passes here: deeper than PARSE_MAX_DEPTH, or too close
 * to the end of the thread's stack (a small thread stack), is a located error rather than a stack overflow. */
static void enter(Parser *p) {
  if (++p->depth > PARSE_MAX_DEPTH)
    error_at(p, peek(p)->loc, "expression nested too deeply (more than %d levels)", PARSE_MAX_DEPTH);
  if (stack_exhausted()) error_at(p, peek(p)->loc, "expression nested too deeply for the thread's stack");
}
static void leave(Parser *p) { p->depth--; }

/* ---- helpers over expressions ---- */

static bool starts_expression(TokKind k) {
  switch (k) {
  case TK_NAME: case TK_INT: case TK_FLOAT: case TK_IMAG: case TK_STRING: case TK_FALSE: case TK_NONE:
  case TK_TRUE: case TK_NOT: case TK_LAMBDA: case TK_AWAIT: case TK_LPAR: case TK_LSQB: case TK_LBRACE:
  case TK_MINUS: case TK_PLUS: case TK_TILDE: case TK_STAR: case TK_ELLIPSIS:
    return true;
  default:
    return false;
  }
}

static bool at_for(Parser *p) {
  return kind(p) == TK_FOR || (kind(p) == TK_ASYNC && peek_n(p, 1)->kind == TK_FOR);
}

/* How CPython's messages name what cannot be assigned to. */
static const char *describe(const PyExpr *e) {
  switch (e->kind) {
  case EX_CALL: return "function call";
  case EX_INT: case EX_FLOAT: case EX_COMPLEX: case EX_STR: return "literal";
  case EX_FSTRING: return "f-string expression";
  case EX_BOOL: return e->bval ? "True" : "False";
  case EX_NONE: return "None";
  case EX_ELLIPSIS: return "ellipsis";
  case EX_COMPARE: return "comparison";
  case EX_IFEXP: return "conditional expression";
  case EX_LAMBDA: return "lambda";
  case EX_NAMED: return "named expression";
  case EX_DICT: return "dict literal";
  case EX_SET: return "set display";
  case EX_LISTCOMP: return "list comprehension";
  case EX_SETCOMP: return "set comprehension";
  case EX_DICTCOMP: return "dict comprehension";
  case EX_GENEXP: return "generator expression";
  case EX_AWAIT: return "await expression";
  case EX_YIELD: case EX_YIELDFROM: return "yield expression";
  case EX_STARRED: return "starred";
  case EX_TUPLE: return "tuple";
  case EX_LIST: return "list";
  case EX_NAME: return "name";
  case EX_ATTRIBUTE: return "attribute";
  case EX_SUBSCRIPT: return "subscript";
  default: return "expression";
  }
}

/* Checks that e can be assigned to (or deleted, with del). */
static void check_target(Parser *p, const PyExpr *e, bool del) {
  switch (e->kind) {
  case EX_NAME: case EX_ATTRIBUTE: case EX_SUBSCRIPT:
    return;
  case EX_TUPLE: case EX_LIST: {
    bool starred = false;
    for (unsigned i = 0; i < e->elts.n; i++) {
      const PyExpr *x = e->elts.items[i];
      if (x->kind == EX_STARRED && !del) {
        if (starred) error_at(p, x->loc, "multiple starred expressions in assignment");
        starred = true;
        if (x->value->kind == EX_STARRED) error_at(p, x->value->loc, "cannot assign to starred");
        check_target(p, x->value, del);
      } else {
        check_target(p, x, del);
      }
    }
    return;
  }
  case EX_STARRED:
    if (!del) error_at(p, e->loc, "starred assignment target must be in a list or tuple");
    /* fall through */
  default:
    error_at(p, e->loc, "cannot %s %s", del ? "delete" : "assign to", describe(e));
  }
}

static void no_bare_starred(Parser *p, const PyExpr *e) {
  if (e->kind == EX_STARRED && !e->parens) error_at(p, e->loc, "can't use starred expression here");
}

static PyExpr *name_expr(Parser *p, const Token *t) {
  PyExpr *e = new_expr(p, EX_NAME, t->loc);
  e->name = intern(p, t->text, t->len);
  return e;
}

static const Token *expect_name(Parser *p) {
  if (kind(p) != TK_NAME) unexpected(p, NULL);
  return advance(p);
}

static PyExpr *binary(Parser *p, PyBinOp op, SrcLoc start, const Token *optok, PyExpr *lhs, PyExpr *rhs) {
  PyExpr *e = new_expr(p, EX_BINARY, start);
  e->binary.op = op;
  e->binary.op_loc = optok->loc;
  e->binary.lhs = lhs;
  e->binary.rhs = rhs;
  return e;
}

/* ---- atoms ---- */

/* strings: STRING+   (implicit concatenation) */
static PyExpr *strings(Parser *p) {
  const Token *first = peek(p), *last = first;
  bool fstring = false, bytes = (first->flags & LEXF_BYTES) != 0;
  size_t total = 0, i = p->pos;
  for (const Token *t; (t = tok_at(p, i))->kind == TK_STRING; i++) {
    if (((t->flags & LEXF_BYTES) != 0) != bytes) error_at(p, t->loc, "cannot mix bytes and nonbytes literals");
    fstring |= (t->flags & LEXF_FSTRING) != 0;
    total += t->len;
    last = t;
  }
  PyExpr *e = new_expr(p, fstring ? EX_FSTRING : EX_STR, first->loc);
  e->str.bytes = bytes;
  if (fstring) {
    e->str.s = first->text;
    e->str.len = (size_t)(last->text + last->len - first->text);
    seek(p, i);
    p->last = last;
    return e;
  }
  char *buf = alloc(p, total + 1);
  size_t len = 0;
  for (size_t j = p->pos; j < i; j++) {
    const Token *t = tok_at(p, j);
    const char *bad, *why;
    long n = lex_string_decode(t, buf + len, &bad, &why);
    if (n < 0) error_at(p, loc_in_token(t, bad), "%s", why);
    len += (size_t)n;
  }
  e->str.s = buf;
  e->str.len = len;
  seek(p, i);
  p->last = last;
  return e;
}

/* NUMBER: an INT, FLOAT or IMAG token */
static PyExpr *number(Parser *p) {
  const Token *t = advance(p);
  PyExpr *e;
  if (t->kind == TK_INT) {
    e = new_expr(p, EX_INT, t->loc);
    e->intlit.big = lex_int_value(t, &e->intlit.value);
    e->intlit.text = t->text;
    e->intlit.len = t->len;
  } else {
    e = new_expr(p, t->kind == TK_FLOAT ? EX_FLOAT : EX_COMPLEX, t->loc);
    e->fval = lex_float_value(t);
  }
  return e;
}

static PyComprehension **for_if_clauses(Parser *p, unsigned *n);

static PyExpr *star_targets(Parser *p);

/* The comprehension whose element (and value, for a dict) is parsed: elt for_if_clauses. */
static PyExpr *comprehension(Parser *p, PyExprKind k, SrcLoc start, PyExpr *elt, PyExpr *value) {
  if (elt->kind == EX_STARRED && !elt->parens)
    error_at(p, elt->loc, "iterable unpacking cannot be used in comprehension");
  PyExpr *e = new_expr(p, k, start);
  e->comp.elt = elt;
  e->comp.value = value;
  e->comp.gens = for_if_clauses(p, &e->comp.ngens);
  return e;
}

/* for_if_clauses: (['async'] 'for' star_targets 'in' disjunction ('if' disjunction)*)+ */
static PyComprehension **for_if_clauses(Parser *p, unsigned *n) {
  size_t m = mark(p);
  while (at_for(p)) {
    PyComprehension *c = alloc(p, sizeof *c);
    c->loc = peek(p)->loc;
    c->is_async = accept(p, TK_ASYNC);
    advance(p);
    c->target = star_targets(p);
    expect(p, TK_IN);
    c->iter = disjunction(p);
    size_t mi = mark(p);
    while (accept(p, TK_IF)) push(p, disjunction(p));
    c->ifs = expr_list(p, mi);
    push(p, c);
  }
  return (PyComprehension **)collect(p, m, n);
}

static PyExpr *yield_expr(Parser *p);

/* group: '(' (yield_expr | named_expression) ')'
 * tuple: '(' [star_named_expression ',' [star_named_expressions]] ')'
 * genexp: '(' named_expression for_if_clauses ')' */
static PyExpr *paren_atom(Parser *p) {
  const Token *lp = advance(p);
  if (accept(p, TK_RPAR)) {
    PyExpr *e = new_expr(p, EX_TUPLE, lp->loc);
    e->parens = 1;
    return e;
  }
  if (kind(p) == TK_YIELD) {
    PyExpr *e = yield_expr(p);
    expect(p, TK_RPAR);
    e->parens++;
    return e;
  }
  PyExpr *first = star_named_expression(p);
  if (at_for(p)) {
    PyExpr *e = comprehension(p, EX_GENEXP, lp->loc, first, NULL);
    expect(p, TK_RPAR);
    e->parens = 1;
    return e;
  }
  if (kind(p) == TK_COMMA) {
    size_t m = mark(p);
    push(p, first);
    while (accept(p, TK_COMMA) && kind(p) != TK_RPAR) push(p, star_named_expression(p));
    close_bracket(p, TK_RPAR, p->stack[p->nstack - 1]);
    PyExpr *e = new_expr(p, EX_TUPLE, lp->loc);
    e->elts = expr_list(p, m);
    e->parens = 1;
    return e;
  }
  close_bracket(p, TK_RPAR, first);
  if (first->kind == EX_STARRED) error_at(p, first->loc, "cannot use starred expression here");
  first->parens++;
  return first;
}

/* list: '[' [star_named_expressions] ']'
 * listcomp: '[' named_expression for_if_clauses ']' */
static PyExpr *list_atom(Parser *p) {
  const Token *lb = advance(p);
  size_t m = mark(p);
  if (kind(p) != TK_RSQB) {
    PyExpr *first = star_named_expression(p);
    if (at_for(p)) {
      PyExpr *e = comprehension(p, EX_LISTCOMP, lb->loc, first, NULL);
      expect(p, TK_RSQB);
      return e;
    }
    push(p, first);
    while (accept(p, TK_COMMA) && kind(p) != TK_RSQB) push(p, star_named_expression(p));
  }
  close_bracket(p, TK_RSQB, p->nstack > m ? p->stack[p->nstack - 1] : NULL);
  PyExpr *e = new_expr(p, EX_LIST, lb->loc);
  e->elts = expr_list(p, m);
  return e;
}

/* dict: '{' [double_starred_kvpairs] '}'
 * set: '{' star_named_expressions '}'
 * dictcomp: '{' kvpair for_if_clauses '}'
 * setcomp: '{' named_expression for_if_clauses '}'
 * double_starred_kvpair: '**' bitwise_or | expression ':' expression */
static PyExpr *brace_atom(Parser *p) {
  const Token *lb = advance(p);
  if (accept(p, TK_RBRACE)) return new_expr(p, EX_DICT, lb->loc);
  size_t m = mark(p);
  PyExpr *first = NULL;
  if (kind(p) != TK_DOUBLESTAR) {
    first = star_named_expression(p);
    if (kind(p) != TK_COLON) { /* a set */
      if (at_for(p)) {
        PyExpr *e = comprehension(p, EX_SETCOMP, lb->loc, first, NULL);
        expect(p, TK_RBRACE);
        return e;
      }
      push(p, first);
      while (accept(p, TK_COMMA) && kind(p) != TK_RBRACE) push(p, star_named_expression(p));
      close_bracket(p, TK_RBRACE, p->stack[p->nstack - 1]);
      PyExpr *e = new_expr(p, EX_SET, lb->loc);
      e->elts = expr_list(p, m);
      return e;
    }
    if (first->kind == EX_STARRED || first->kind == EX_NAMED) error_at(p, first->loc, "invalid syntax");
    advance(p);
    PyExpr *value = expression(p);
    if (at_for(p)) {
      PyExpr *e = comprehension(p, EX_DICTCOMP, lb->loc, first, value);
      expect(p, TK_RBRACE);
      return e;
    }
    push(p, first);
    push(p, value);
    if (!accept(p, TK_COMMA)) goto done;
  }
  while (kind(p) != TK_RBRACE) {
    if (accept(p, TK_DOUBLESTAR)) {
      push(p, NULL);
      push(p, bitwise_or(p));
    } else {
      push(p, expression(p));
      expect(p, TK_COLON);
      push(p, expression(p));
    }
    if (!accept(p, TK_COMMA)) break;
  }
done:
  close_bracket(p, TK_RBRACE, p->nstack > m ? p->stack[p->nstack - 1] : NULL);
  PyExpr *e = new_expr(p, EX_DICT, lb->loc);
  unsigned n2;
  PyExpr **kv = (PyExpr **)collect(p, m, &n2);
  unsigned n = n2 / 2;
  e->dict.keys.n = e->dict.values.n = n;
  e->dict.keys.items = alloc(p, n * sizeof(PyExpr *));
  e->dict.values.items = alloc(p, n * sizeof(PyExpr *));
  for (unsigned i = 0; i < n; i++) {
    e->dict.keys.items[i] = kv[2 * i];
    e->dict.values.items[i] = kv[2 * i + 1];
  }
  return e;
}

/* atom: NAME | 'True' | 'False' | 'None' | strings | NUMBER | (tuple | group | genexp)
 *     | (list | listcomp) | (dict | set | dictcomp | setcomp) | '...' */
static PyExpr *atom(Parser *p) {
  const Token *t = peek(p);
  PyExpr *e;
  switch (t->kind) {
  case TK_NAME: advance(p); return name_expr(p, t);
  case TK_TRUE: case TK_FALSE:
    advance(p);
    e = new_expr(p, EX_BOOL, t->loc);
    e->bval = t->kind == TK_TRUE;
    return e;
  case TK_NONE: advance(p); return new_expr(p, EX_NONE, t->loc);
  case TK_ELLIPSIS: advance(p); return new_expr(p, EX_ELLIPSIS, t->loc);
  case TK_STRING: return strings(p);
  case TK_INT: case TK_FLOAT: case TK_IMAG: return number(p);
  case TK_LPAR: return paren_atom(p);
  case TK_LSQB: return list_atom(p);
  case TK_LBRACE: return brace_atom(p);
  default: unexpected(p, NULL);
  }
}

/* ---- calls and subscripts ---- */

/* arguments: ','.(starred_expression | (named_expression !'=') | kwarg)+ [','] &')'
 * kwarg: NAME '=' expression | '**' expression
 * A lone generator expression argument needs no parentheses: f(x for x in y); it is then
 * located at the call's '('. */
static const PyExpr *arguments(Parser *p, SrcLoc lparen, PyExprList *args, PyKeyword ***kws, unsigned *nkws) {
  size_t m = mark(p);
  bool seen_kw = false, seen_kwunpack = false;
  unsigned nargs = 0;
  while (kind(p) != TK_RPAR) {
    const Token *t = peek(p);
    if (t->kind == TK_STAR) {
      advance(p);
      if (seen_kwunpack) error_at(p, t->loc, "iterable argument unpacking follows keyword argument unpacking");
      PyExpr *e = new_expr(p, EX_STARRED, t->loc);
      e->value = expression(p);
      push(p, (void *)0), push(p, e);
    } else if (t->kind == TK_DOUBLESTAR || (t->kind == TK_NAME && peek_n(p, 1)->kind == TK_EQUAL)) {
      PyKeyword *k = alloc(p, sizeof *k);
      k->loc = t->loc;
      advance(p);
      if (t->kind == TK_NAME) {
        advance(p);
        k->arg = intern(p, t->text, t->len);
        for (size_t i = m; i < p->nstack; i += 2)
          if (p->stack[i] && ((PyKeyword *)p->stack[i + 1])->arg == k->arg)
            error_at(p, t->loc, "keyword argument repeated: %s", k->arg);
        seen_kw = true;
      } else {
        seen_kwunpack = true;
      }
      k->value = expression(p);
      push(p, (void *)1), push(p, k);
    } else {
      PyExpr *e = named_expression(p);
      if (kind(p) == TK_EQUAL)
        error_at(p, peek(p)->loc, "expression cannot contain assignment, perhaps you meant \"==\"?");
      if (at_for(p)) {
        e = comprehension(p, EX_GENEXP, lparen, e, NULL); /* located at the call's '(', as in CPython */
        if (p->nstack != m || (kind(p) == TK_COMMA && peek_n(p, 1)->kind != TK_RPAR))
          error_at(p, t->loc, "Generator expression must be parenthesized");
      }
      if (seen_kwunpack) error_at(p, t->loc, "positional argument follows keyword argument unpacking");
      if (seen_kw) error_at(p, t->loc, "positional argument follows keyword argument");
      push(p, (void *)0), push(p, e);
    }
    if (!accept(p, TK_COMMA)) break;
  }
  size_t n = (p->nstack - m) / 2;
  const PyExpr *last = NULL;
  if (n) last = p->stack[m + 2 * n - 2] ? ((PyKeyword *)p->stack[m + 2 * n - 1])->value : p->stack[m + 2 * n - 1];
  for (size_t i = 0; i < n; i++) nargs += p->stack[m + 2 * i] == NULL;
  args->n = nargs;
  args->items = nargs ? alloc(p, nargs * sizeof(PyExpr *)) : NULL;
  *nkws = (unsigned)(n - nargs);
  *kws = *nkws ? alloc(p, *nkws * sizeof(PyKeyword *)) : NULL;
  unsigned ia = 0, ik = 0;
  for (size_t i = 0; i < n; i++) {
    if (p->stack[m + 2 * i]) (*kws)[ik++] = p->stack[m + 2 * i + 1];
    else args->items[ia++] = p->stack[m + 2 * i + 1];
  }
  p->nstack = m;
  return last;
}

/* slice: [expression] ':' [expression] [':' [expression]] | named_expression | starred_expression */
static PyExpr *slice(Parser *p) {
  const Token *t = peek(p);
  if (t->kind == TK_STAR) {
    advance(p);
    PyExpr *e = new_expr(p, EX_STARRED, t->loc);
    e->value = bitwise_or(p);
    return e;
  }
  PyExpr *lower = NULL;
  if (t->kind != TK_COLON) {
    lower = named_expression(p);
    if (kind(p) != TK_COLON) return lower;
  }
  advance(p);
  PyExpr *e = new_expr(p, EX_SLICE, t->loc);
  e->slice.lower = lower;
  TokKind k = kind(p);
  if (k != TK_COLON && k != TK_COMMA && k != TK_RSQB) e->slice.upper = expression(p);
  if (accept(p, TK_COLON)) {
    k = kind(p);
    if (k != TK_COMMA && k != TK_RSQB) e->slice.step = expression(p);
  }
  return e;
}

/* slices: slice !',' | ','.slice+ [','] */
static PyExpr *slices(Parser *p) {
  SrcLoc start = peek(p)->loc;
  PyExpr *first = slice(p);
  if (kind(p) != TK_COMMA) return first;
  size_t m = mark(p);
  push(p, first);
  while (accept(p, TK_COMMA) && kind(p) != TK_RSQB) push(p, slice(p));
  PyExpr *e = new_expr(p, EX_TUPLE, start);
  e->elts = expr_list(p, m);
  return e;
}

/* primary: primary '.' NAME | primary '(' [arguments] ')' | primary '[' slices ']' | atom */
static PyExpr *primary(Parser *p) {
  SrcLoc start = peek(p)->loc;
  PyExpr *e = atom(p);
  for (;;) {
    PyExpr *x;
    switch (kind(p)) {
    case TK_DOT: {
      advance(p);
      const Token *n = expect_name(p);
      x = new_expr(p, EX_ATTRIBUTE, start);
      x->attribute.value = e;
      x->attribute.attr = intern(p, n->text, n->len);
      x->attribute.attr_loc = n->loc;
      break;
    }
    case TK_LPAR:
      x = new_expr(p, EX_CALL, start);
      x->call.func = e;
      close_bracket(p, TK_RPAR,
                    arguments(p, advance(p)->loc, &x->call.args, &x->call.keywords, &x->call.nkeywords));
      break;
    case TK_LSQB:
      advance(p);
      x = new_expr(p, EX_SUBSCRIPT, start);
      x->subscript.value = e;
      x->subscript.index = slices(p);
      close_bracket(p, TK_RSQB, x->subscript.index->kind == EX_TUPLE && !x->subscript.index->parens &&
                                        x->subscript.index->elts.n
                                    ? x->subscript.index->elts.items[x->subscript.index->elts.n - 1]
                                    : x->subscript.index);
      break;
    default:
      return e;
    }
    e = x;
  }
}

/* ---- operators, by increasing precedence ---- */

static PyExpr *factor(Parser *p);

/* power: await_primary ['**' factor]
 * await_primary: 'await' primary | primary */
static PyExpr *power(Parser *p) {
  const Token *t = peek(p);
  PyExpr *e;
  if (t->kind == TK_AWAIT) {
    advance(p);
    e = new_expr(p, EX_AWAIT, t->loc);
    e->value = primary(p);
  } else {
    e = primary(p);
  }
  if (kind(p) == TK_DOUBLESTAR) {
    const Token *op = advance(p);
    enter(p); /* right-associative: a ** b ** c ... recurses once per operator */
    e = binary(p, BIN_POW, t->loc, op, e, factor(p));
    leave(p);
  }
  return e;
}

/* factor: '+' factor | '-' factor | '~' factor | power */
static PyExpr *factor(Parser *p) {
  const Token *t = peek(p);
  PyUnaryOp op;
  switch (t->kind) {
  case TK_PLUS: op = UN_POS; break;
  case TK_MINUS: op = UN_NEG; break;
  case TK_TILDE: op = UN_INVERT; break;
  default: return power(p);
  }
  advance(p);
  enter(p);
  PyExpr *e = new_expr(p, EX_UNARY, t->loc);
  e->unary.op = op;
  e->unary.operand = factor(p);
  leave(p);
  return e;
}

/* The binary operators from bitwise_or down to term, Python's grammar:
 *   bitwise_or: bitwise_or '|' bitwise_xor     bitwise_xor: bitwise_xor '^' bitwise_and
 *   bitwise_and: bitwise_and '&' shift_expr    shift_expr: shift_expr ('<<' | '>>') sum
 *   sum: sum ('+' | '-') term                  term: term ('*' | '/' | '//' | '%' | '@') factor
 * each level left-associative over the next; level 0 binds loosest. */
static const struct {
  TokKind tok;
  PyBinOp op;
  unsigned level;
} BINARY_OPS[] = {
    {TK_VBAR, BIN_BITOR, 0},    {TK_CIRCUMFLEX, BIN_BITXOR, 1}, {TK_AMPER, BIN_BITAND, 2},
    {TK_LSHIFT, BIN_LSHIFT, 3}, {TK_RSHIFT, BIN_RSHIFT, 3},     {TK_PLUS, BIN_ADD, 4},
    {TK_MINUS, BIN_SUB, 4},     {TK_STAR, BIN_MUL, 5},          {TK_SLASH, BIN_DIV, 5},
    {TK_DOUBLESLASH, BIN_FLOORDIV, 5}, {TK_PERCENT, BIN_MOD, 5}, {TK_AT, BIN_MATMUL, 5},
};
enum { BINARY_LEVELS = 6 };

/* The operator of the given level at the cursor: its index in BINARY_OPS, or -1. */
static int binary_op_at(Parser *p, unsigned level) {
  for (unsigned i = 0; i < sizeof BINARY_OPS / sizeof *BINARY_OPS; i++)
    if (BINARY_OPS[i].level == level && BINARY_OPS[i].tok == kind(p)) return (int)i;
  return -1;
}

static PyExpr *binary_level(Parser *p, unsigned level) {
  if (level == BINARY_LEVELS) return factor(p);
  SrcLoc start = peek(p)->loc;
  PyExpr *e = binary_level(p, level + 1);
  for (int i; (i = binary_op_at(p, level)) >= 0;) {
    const Token *t = advance(p);
    e = binary(p, BINARY_OPS[i].op, start, t, e, binary_level(p, level + 1));
  }
  return e;
}

static PyExpr *bitwise_or(Parser *p) { return binary_level(p, 0); }

/* compare_op: '==' | '!=' | '<=' | '<' | '>=' | '>' | 'not' 'in' | 'in' | 'is' 'not' | 'is'
 * Returns the number of tokens of the operator at the cursor, 0 if there is none. */
static int compare_op(Parser *p, PyCmpOp *op) {
  switch (kind(p)) {
  case TK_EQEQUAL: *op = CMP_EQ; return 1;
  case TK_NOTEQUAL: *op = CMP_NE; return 1;
  case TK_LESS: *op = CMP_LT; return 1;
  case TK_LESSEQUAL: *op = CMP_LE; return 1;
  case TK_GREATER: *op = CMP_GT; return 1;
  case TK_GREATEREQUAL: *op = CMP_GE; return 1;
  case TK_IN: *op = CMP_IN; return 1;
  case TK_NOT:
    if (peek_n(p, 1)->kind != TK_IN) return 0;
    *op = CMP_NOTIN;
    return 2;
  case TK_IS:
    if (peek_n(p, 1)->kind == TK_NOT) { *op = CMP_ISNOT; return 2; }
    *op = CMP_IS;
    return 1;
  default: return 0;
  }
}

/* comparison: bitwise_or (compare_op bitwise_or)* */
static PyExpr *comparison(Parser *p) {
  SrcLoc start = peek(p)->loc;
  PyExpr *e = bitwise_or(p);
  PyCmpOp op;
  if (!compare_op(p, &op)) return e;
  size_t m = mark(p);
  int ntok;
  while ((ntok = compare_op(p, &op))) { /* pushes (operator token, operator, operand) */
    push(p, (void *)peek(p));
    push(p, (void *)(uintptr_t)op);
    seek(p, p->pos + (size_t)ntok);
    push(p, bitwise_or(p));
  }
  PyExpr *c = new_expr(p, EX_COMPARE, start);
  unsigned n = (unsigned)(p->nstack - m) / 3;
  c->compare.left = e;
  c->compare.ops = alloc(p, n * sizeof(PyCmpOp));
  c->compare.op_locs = alloc(p, n * sizeof(SrcLoc));
  c->compare.comparators.n = n;
  c->compare.comparators.items = alloc(p, n * sizeof(PyExpr *));
  for (unsigned i = 0; i < n; i++) {
    c->compare.op_locs[i] = ((const Token *)p->stack[m + 3 * i])->loc;
    c->compare.ops[i] = (PyCmpOp)(uintptr_t)p->stack[m + 3 * i + 1];
    c->compare.comparators.items[i] = p->stack[m + 3 * i + 2];
  }
  p->nstack = m;
  return c;
}

/* inversion: 'not' inversion | comparison */
static PyExpr *inversion(Parser *p) {
  const Token *t = peek(p);
  if (t->kind != TK_NOT) return comparison(p);
  advance(p);
  enter(p);
  PyExpr *e = new_expr(p, EX_UNARY, t->loc);
  e->unary.op = UN_NOT;
  e->unary.operand = inversion(p);
  leave(p);
  return e;
}

static PyExpr *boolop(Parser *p, PyBoolOp op, SrcLoc start, size_t m) {
  PyExpr *e = new_expr(p, EX_BOOLOP, start);
  e->boolop.op = op;
  e->boolop.values = expr_list(p, m);
  return e;
}

/* conjunction: inversion ('and' inversion)* */
static PyExpr *conjunction(Parser *p) {
  SrcLoc start = peek(p)->loc;
  PyExpr *e = inversion(p);
  if (kind(p) != TK_AND) return e;
  size_t m = mark(p);
  push(p, e);
  while (accept(p, TK_AND)) push(p, inversion(p));
  return boolop(p, BOOL_AND, start, m);
}

/* disjunction: conjunction ('or' conjunction)* */
static PyExpr *disjunction(Parser *p) {
  SrcLoc start = peek(p)->loc;
  PyExpr *e = conjunction(p);
  if (kind(p) != TK_OR) return e;
  size_t m = mark(p);
  push(p, e);
  while (accept(p, TK_OR)) push(p, conjunction(p));
  return boolop(p, BOOL_OR, start, m);
}

/* ---- parameters ---- */

static PyExpr *star_expression(Parser *p);

/* parameters (of def, up to ')', with annotations; of lambda, up to ':', without):
 *   ','.param+ [','] where param is
 *   NAME [':' expression] ['=' expression] | '/' | '*' [NAME [':' star_expression]]
 *   | '**' NAME [':' expression]
 * with Python's rules: '/' after at least one parameter and before '*'; one '*'; '**'
 * last; a parameter without a default not after one with a default (before '*'). */
static PyParams parameters(Parser *p, TokKind close, bool annotations) {
  size_t m = mark(p);
  bool seen_default = false, seen_star = false, seen_slash = false, seen_varkw = false, any_kwonly = false;
  const Token *bare_star = NULL;
  while (kind(p) != close) {
    const Token *t = peek(p);
    PyParam *a = NULL;
    if (seen_varkw) error_at(p, t->loc, "arguments cannot follow var-keyword argument");
    if (t->kind == TK_SLASH) {
      advance(p);
      if (seen_slash) error_at(p, t->loc, "/ may appear only once");
      if (seen_star) error_at(p, t->loc, "/ must be ahead of *");
      if (p->nstack == m) error_at(p, t->loc, "at least one argument must precede /");
      seen_slash = true;
      for (size_t i = m; i < p->nstack; i++) ((PyParam *)p->stack[i])->kind = PARAM_POSONLY;
    } else if (t->kind == TK_STAR) {
      advance(p);
      if (seen_star) error_at(p, t->loc, "* argument may appear only once");
      seen_star = true;
      if (kind(p) == TK_NAME) {
        const Token *n = advance(p);
        a = alloc(p, sizeof *a);
        a->name = intern(p, n->text, n->len);
        a->loc = n->loc;
        a->kind = PARAM_VARARGS;
        if (annotations && accept(p, TK_COLON)) a->annotation = star_expression(p);
        if (kind(p) == TK_EQUAL) error_at(p, peek(p)->loc, "var-positional argument cannot have default value");
      } else {
        bare_star = t;
      }
    } else if (t->kind == TK_DOUBLESTAR) {
      advance(p);
      const Token *n = expect_name(p);
      a = alloc(p, sizeof *a);
      a->name = intern(p, n->text, n->len);
      a->loc = n->loc;
      a->kind = PARAM_VARKW;
      if (annotations && accept(p, TK_COLON)) a->annotation = expression(p);
      if (kind(p) == TK_EQUAL) error_at(p, peek(p)->loc, "var-keyword argument cannot have default value");
      seen_varkw = true;
    } else {
      const Token *n = expect_name(p);
      a = alloc(p, sizeof *a);
      a->name = intern(p, n->text, n->len);
      a->loc = n->loc;
      a->kind = seen_star ? PARAM_KWONLY : PARAM_NORMAL;
      any_kwonly |= seen_star;
      if (annotations && accept(p, TK_COLON)) a->annotation = expression(p);
      if (accept(p, TK_EQUAL)) {
        a->defval = expression(p);
        if (!seen_star) seen_default = true;
      } else if (seen_default && !seen_star) {
        error_at(p, n->loc, "parameter without a default follows parameter with a default");
      }
    }
    if (a) {
      for (size_t i = m; i < p->nstack; i++)
        if (((PyParam *)p->stack[i])->name == a->name)
          error_at(p, a->loc, "duplicate argument '%s' in function definition", a->name);
      push(p, a);
    }
    if (!accept(p, TK_COMMA)) break;
  }
  if (bare_star && !any_kwonly) error_at(p, bare_star->loc, "named arguments must follow bare *");
  PyParams ps;
  ps.items = (PyParam **)collect(p, m, &ps.n);
  return ps;
}

/* ---- expressions ---- */

/* lambdef: 'lambda' [lambda_params] ':' expression */
static PyExpr *lambdef(Parser *p) {
  const Token *t = advance(p);
  PyExpr *e = new_expr(p, EX_LAMBDA, t->loc);
  e->lambda.params = parameters(p, TK_COLON, false);
  expect(p, TK_COLON);
  e->lambda.body = expression(p);
  return e;
}

/* expression: disjunction 'if' disjunction 'else' expression | disjunction | lambdef */
static PyExpr *expression(Parser *p) {
  enter(p);
  SrcLoc start = peek(p)->loc;
  PyExpr *e;
  if (kind(p) == TK_LAMBDA) {
    e = lambdef(p);
  } else {
    e = disjunction(p);
    if (accept(p, TK_IF)) {
      PyExpr *x = new_expr(p, EX_IFEXP, start);
      x->ifexp.body = e;
      x->ifexp.test = disjunction(p);
      if (kind(p) != TK_ELSE) unexpected(p, "expected 'else' after 'if' expression");
      advance(p);
      x->ifexp.orelse = expression(p);
      e = x;
    }
  }
  leave(p);
  return e;
}

/* named_expression: NAME ':=' expression | expression !':=' */
static PyExpr *named_expression(Parser *p) {
  const Token *t = peek(p);
  if (t->kind == TK_NAME && peek_n(p, 1)->kind == TK_COLONEQUAL) {
    advance(p);
    advance(p);
    PyExpr *e = new_expr(p, EX_NAMED, t->loc);
    e->named.target = name_expr(p, t);
    e->named.value = expression(p);
    return e;
  }
  PyExpr *e = expression(p);
  if (kind(p) == TK_COLONEQUAL) error_at(p, e->loc, "cannot use assignment expressions with %s", describe(e));
  return e;
}

/* star_expression: '*' bitwise_or | expression */
static PyExpr *star_expression(Parser *p) {
  const Token *t = peek(p);
  if (t->kind != TK_STAR) return expression(p);
  advance(p);
  PyExpr *e = new_expr(p, EX_STARRED, t->loc);
  e->value = bitwise_or(p);
  return e;
}

/* star_named_expression: '*' bitwise_or | named_expression */
static PyExpr *star_named_expression(Parser *p) {
  return kind(p) == TK_STAR ? star_expression(p) : named_expression(p);
}

/* star_expressions: star_expression (',' star_expression)* [','] */
static PyExpr *star_expressions(Parser *p) {
  SrcLoc start = peek(p)->loc;
  PyExpr *first = star_expression(p);
  if (kind(p) != TK_COMMA) return first;
  size_t m = mark(p);
  push(p, first);
  while (accept(p, TK_COMMA) && starts_expression(kind(p))) push(p, star_expression(p));
  PyExpr *e = new_expr(p, EX_TUPLE, start);
  e->elts = expr_list(p, m);
  return e;
}

/* yield_expr: 'yield' 'from' expression | 'yield' [star_expressions] */
static PyExpr *yield_expr(Parser *p) {
  const Token *t = advance(p);
  PyExpr *e;
  if (accept(p, TK_FROM)) {
    e = new_expr(p, EX_YIELDFROM, t->loc);
    e->value = expression(p);
  } else {
    e = new_expr(p, EX_YIELD, t->loc);
    if (starts_expression(kind(p))) e->value = star_expressions(p);
  }
  return e;
}

/* star_target: ['*'] target     (a target is an expression checked by check_target) */
static PyExpr *star_target(Parser *p) {
  const Token *t = peek(p);
  if (t->kind != TK_STAR) return bitwise_or(p);
  advance(p);
  PyExpr *e = new_expr(p, EX_STARRED, t->loc);
  e->value = star_target(p);
  return e;
}

/* star_targets: star_target (',' star_target)* [','] */
static PyExpr *star_targets(Parser *p) {
  SrcLoc start = peek(p)->loc;
  PyExpr *first = star_target(p), *e = first;
  if (kind(p) == TK_COMMA) {
    size_t m = mark(p);
    push(p, first);
    while (accept(p, TK_COMMA) && starts_expression(kind(p))) push(p, star_target(p));
    e = new_expr(p, EX_TUPLE, start);
    e->elts = expr_list(p, m);
  }
  check_target(p, e, false);
  return e;
}

/* ---- statements ---- */

static void simple_stmts(Parser *p);

/* block: NEWLINE INDENT statement+ DEDENT | simple_stmts
 * `what` and `line` name the statement that owns the block, for the error message. */
static PyStmtList block(Parser *p, const char *what, unsigned line) {
  size_t m = mark(p);
  if (stack_exhausted()) error_at(p, peek(p)->loc, "blocks nested too deeply for the thread's stack");
  if (accept(p, TK_NEWLINE)) {
    if (kind(p) != TK_INDENT)
      error_at(p, peek(p)->loc, "expected an indented block after %s on line %u", what, line);
    advance(p);
    do statement(p);
    while (kind(p) != TK_DEDENT && kind(p) != TK_EOF);
    accept(p, TK_DEDENT);
  } else {
    simple_stmts(p);
  }
  return stmt_list(p, m);
}

static void colon(Parser *p) { expect(p, TK_COLON); }

/* A condition of if/elif/while: named_expression, with CPython's hint for a mistyped '=='. */
static PyExpr *condition(Parser *p) {
  PyExpr *e = named_expression(p);
  if (kind(p) == TK_EQUAL) unexpected(p, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
  return e;
}

/* else_block: 'else' ':' block */
static PyStmtList else_block(Parser *p) {
  PyStmtList none = {NULL, 0};
  if (kind(p) != TK_ELSE) return none;
  const Token *t = advance(p);
  colon(p);
  return block(p, "'else' statement", t->loc.line);
}

/* if_stmt: 'if' named_expression ':' block (elif_stmt | [else_block])
 * elif_stmt: 'elif' named_expression ':' block (elif_stmt | [else_block])
 * An elif chain is built iteratively, each ST_IF in the orelse of the previous one. */
static PyStmt *if_stmt(Parser *p) {
  PyStmt *top = NULL, *prev = NULL;
  do {
    const Token *t = advance(p);
    PyStmt *s = new_stmt(p, ST_IF, t);
    s->if_.is_elif = t->kind == TK_ELIF;
    s->if_.test = condition(p);
    colon(p);
    s->if_.body = block(p, t->kind == TK_IF ? "'if' statement" : "'elif' statement", t->loc.line);
    if (prev) {
      PyStmtList l = {alloc(p, sizeof(PyStmt *)), 1};
      l.items[0] = s;
      prev->if_.orelse = l;
    } else {
      top = s;
    }
    prev = s;
  } while (kind(p) == TK_ELIF);
  prev->if_.orelse = else_block(p);
  /* every statement of the chain ends where the chain ends */
  for (PyStmt *s = top;; s = s->if_.orelse.items[0]) {
    finish(p, s);
    if (s == prev) break;
  }
  return top;
}

/* while_stmt: 'while' named_expression ':' block [else_block] */
static PyStmt *while_stmt(Parser *p) {
  const Token *t = advance(p);
  PyStmt *s = new_stmt(p, ST_WHILE, t);
  s->while_.test = condition(p);
  colon(p);
  p->loops++;
  s->while_.body = block(p, "'while' statement", t->loc.line);
  p->loops--;
  s->while_.orelse = else_block(p);
  return finish(p, s);
}

/* for_stmt: ['async'] 'for' star_targets 'in' star_expressions ':' block [else_block] */
static PyStmt *for_stmt(Parser *p) {
  const Token *t = peek(p);
  PyStmt *s = new_stmt(p, ST_FOR, t);
  s->for_.is_async = accept(p, TK_ASYNC);
  advance(p);
  s->for_.target = star_targets(p);
  expect(p, TK_IN);
  s->for_.iter = star_expressions(p);
  colon(p);
  p->loops++;
  s->for_.body = block(p, "'for' statement", t->loc.line);
  p->loops--;
  s->for_.orelse = else_block(p);
  return finish(p, s);
}

/* with_item: expression ['as' star_target] */
static PyWithItem *with_item(Parser *p) {
  PyWithItem *w = alloc(p, sizeof *w);
  w->context = expression(p);
  if (accept(p, TK_AS)) {
    w->vars = star_target(p);
    check_target(p, w->vars, false);
  }
  return w;
}

/* True if the '(' at the cursor closes with a ')' followed by ':' (a parenthesized list of
 * with-items, not an expression in parentheses). */
static bool parenthesized_with_items(Parser *p) {
  int depth = 0;
  for (size_t i = p->pos;; i++) {
    const Token *t = tok_at(p, i);
    switch (t->kind) {
    case TK_LPAR: case TK_LSQB: case TK_LBRACE: depth++; break;
    case TK_RPAR: case TK_RSQB: case TK_RBRACE:
      if (--depth == 0) return tok_at(p, i + 1)->kind == TK_COLON;
      break;
    case TK_NEWLINE: case TK_EOF: return false;
    default: break;
    }
  }
}

/* with_stmt: ['async'] 'with' '(' ','.with_item+ ','? ')' ':' block
 *          | ['async'] 'with' ','.with_item+ ':' block */
static PyStmt *with_stmt(Parser *p) {
  const Token *t = peek(p);
  PyStmt *s = new_stmt(p, ST_WITH, t);
  s->with.is_async = accept(p, TK_ASYNC);
  advance(p);
  size_t m = mark(p);
  if (kind(p) == TK_LPAR && parenthesized_with_items(p)) {
    advance(p);
    do push(p, with_item(p));
    while (accept(p, TK_COMMA) && kind(p) != TK_RPAR);
    expect(p, TK_RPAR);
  } else {
    do push(p, with_item(p));
    while (accept(p, TK_COMMA));
  }
  s->with.items = (PyWithItem **)collect(p, m, &s->with.nitems);
  colon(p);
  s->with.body = block(p, "'with' statement", t->loc.line);
  return finish(p, s);
}

/* try_stmt: 'try' ':' block finally_block
 *         | 'try' ':' block except_block+ [else_block] [finally_block]
 *         | 'try' ':' block except_star_block+ [else_block] [finally_block]
 * except_block: 'except' [expression ['as' NAME]] ':' block
 * except_star_block: 'except' '*' expression ['as' NAME] ':' block
 * finally_block: 'finally' ':' block
 * (Python 3.14 also allows `except A, B:` without parentheses when there is no 'as'.) */
static PyStmt *try_stmt(Parser *p) {
  const Token *t = advance(p);
  PyStmt *s = new_stmt(p, ST_TRY, t);
  colon(p);
  s->try_.body = block(p, "'try' statement", t->loc.line);
  size_t m = mark(p);
  bool plain = false;
  while (kind(p) == TK_EXCEPT) {
    const Token *e = advance(p);
    PyExceptHandler *h = alloc(p, sizeof *h);
    h->loc = e->loc;
    if (kind(p) == TK_STAR) {
      const Token *star = advance(p);
      if (plain) error_at(p, star->loc, "cannot have both 'except' and 'except*' on the same 'try'");
      s->try_.star = true;
      if (kind(p) == TK_COLON) unexpected(p, "expected one or more exception types");
    } else {
      if (s->try_.star) error_at(p, e->loc, "cannot have both 'except' and 'except*' on the same 'try'");
      plain = true;
    }
    if (kind(p) != TK_COLON) {
      SrcLoc start = peek(p)->loc;
      h->type = expression(p);
      if (kind(p) == TK_COMMA) {
        size_t mt = mark(p);
        push(p, h->type);
        while (accept(p, TK_COMMA) && starts_expression(kind(p))) push(p, expression(p));
        h->type = new_expr(p, EX_TUPLE, start);
        h->type->elts = expr_list(p, mt);
        if (kind(p) == TK_AS) unexpected(p, "multiple exception types must be parenthesized");
      }
      if (accept(p, TK_AS)) {
        const Token *n = expect_name(p);
        h->name = intern(p, n->text, n->len);
      }
    }
    colon(p);
    h->body = block(p, s->try_.star ? "'except*' statement" : "'except' statement", e->loc.line);
    push(p, h);
  }
  s->try_.handlers = (PyExceptHandler **)collect(p, m, &s->try_.nhandlers);
  if (s->try_.nhandlers) s->try_.orelse = else_block(p);
  if (kind(p) == TK_FINALLY) {
    const Token *f = advance(p);
    colon(p);
    s->try_.finalbody = block(p, "'finally' statement", f->loc.line);
  } else if (!s->try_.nhandlers) {
    unexpected(p, "expected 'except' or 'finally' block");
  }
  return finish(p, s);
}

/* type_params: '[' ','.type_param+ [','] ']'
 * type_param: NAME [':' expression] ['=' expression] | '*' NAME ['=' star_expression]
 *           | '**' NAME ['=' expression] */
static PyTypeParams type_params(Parser *p) {
  PyTypeParams tp = {NULL, 0};
  if (!accept(p, TK_LSQB)) return tp;
  size_t m = mark(p);
  do {
    PyTypeParam *a = alloc(p, sizeof *a);
    a->stars = accept(p, TK_STAR) ? 1 : accept(p, TK_DOUBLESTAR) ? 2 : 0;
    const Token *n = expect_name(p);
    a->name = intern(p, n->text, n->len);
    a->loc = n->loc;
    if (a->stars == 0 && accept(p, TK_COLON)) a->bound = expression(p);
    if (accept(p, TK_EQUAL)) a->defval = a->stars == 1 ? star_expression(p) : expression(p);
    push(p, a);
  } while (accept(p, TK_COMMA) && kind(p) != TK_RSQB);
  expect(p, TK_RSQB);
  tp.items = (PyTypeParam **)collect(p, m, &tp.n);
  return tp;
}

/* function_def: [decorators] ['async'] 'def' NAME [type_params] '(' [parameters] ')'
 *               ['->' expression] ':' block */
static PyStmt *funcdef(Parser *p, PyExprList decorators, const Token *first) {
  const Token *t = peek(p);
  PyStmt *s = new_stmt(p, ST_FUNCDEF, t);
  if (first) s->start_off = (uint32_t)(first->text - p->text);
  s->funcdef.decorators = decorators;
  s->funcdef.is_async = accept(p, TK_ASYNC);
  expect(p, TK_DEF);
  const Token *n = expect_name(p);
  s->funcdef.name = intern(p, n->text, n->len);
  s->funcdef.name_loc = n->loc;
  s->funcdef.type_params = type_params(p);
  if (kind(p) != TK_LPAR) unexpected(p, "expected '('");
  advance(p);
  s->funcdef.params = parameters(p, TK_RPAR, true);
  expect(p, TK_RPAR);
  if (accept(p, TK_RARROW)) s->funcdef.returns = expression(p);
  colon(p);
  bool in_func = p->in_func;
  int loops = p->loops;
  p->in_func = true;
  p->loops = 0;
  s->funcdef.body = block(p, "function definition", t->loc.line);
  p->in_func = in_func;
  p->loops = loops;
  return finish(p, s);
}

/* class_def: [decorators] 'class' NAME [type_params] ['(' [arguments] ')'] ':' block */
static PyStmt *classdef(Parser *p, PyExprList decorators, const Token *first) {
  const Token *t = advance(p);
  PyStmt *s = new_stmt(p, ST_CLASSDEF, t);
  if (first) s->start_off = (uint32_t)(first->text - p->text);
  s->classdef.decorators = decorators;
  const Token *n = expect_name(p);
  s->classdef.name = intern(p, n->text, n->len);
  s->classdef.name_loc = n->loc;
  s->classdef.type_params = type_params(p);
  if (kind(p) == TK_LPAR) {
    arguments(p, advance(p)->loc, &s->classdef.bases, &s->classdef.keywords, &s->classdef.nkeywords);
    expect(p, TK_RPAR);
  }
  colon(p);
  bool in_func = p->in_func;
  int loops = p->loops;
  p->in_func = false;
  p->loops = 0;
  s->classdef.body = block(p, "class definition", t->loc.line);
  p->in_func = in_func;
  p->loops = loops;
  return finish(p, s);
}

/* decorators: ('@' named_expression NEWLINE)+
 * decorated: decorators (class_def | function_def) */
static PyStmt *decorated(Parser *p) {
  const Token *first = peek(p);
  size_t m = mark(p);
  while (accept(p, TK_AT)) {
    push(p, named_expression(p));
    if (!accept(p, TK_NEWLINE)) unexpected(p, NULL);
  }
  PyExprList decorators = expr_list(p, m);
  if (kind(p) == TK_DEF || (kind(p) == TK_ASYNC && peek_n(p, 1)->kind == TK_DEF))
    return funcdef(p, decorators, first);
  if (kind(p) == TK_CLASS) return classdef(p, decorators, first);
  unexpected(p, "expected a function or class definition after decorators");
}

/* ---- match ---- */

/* A `match` statement starts with the soft keyword `match`, its first line ends in ':' and
 * the next line is an indented `case`. */
static bool looks_like_match(Parser *p) {
  size_t i = p->pos + 1;
  const Token *t = tok_at(p, i);
  if (t->kind == TK_NEWLINE || t->kind == TK_EOF || t->kind == TK_EQUAL || t->kind == TK_DOT) return false;
  while (t->kind != TK_NEWLINE && t->kind != TK_EOF) t = tok_at(p, ++i);
  return t->kind == TK_NEWLINE && tok_at(p, i - 1)->kind == TK_COLON && tok_at(p, i + 1)->kind == TK_INDENT &&
         is_soft_keyword(tok_at(p, i + 2), "case");
}

/* signed_number: ['-'] NUMBER [('+' | '-') NUMBER]   (literal patterns such as -1, 1+2j) */
static PyExpr *signed_number(Parser *p) {
  const Token *t = peek(p);
  PyExpr *e;
  if (t->kind == TK_MINUS) {
    advance(p);
    if (kind(p) != TK_INT && kind(p) != TK_FLOAT && kind(p) != TK_IMAG) unexpected(p, NULL);
    e = new_expr(p, EX_UNARY, t->loc);
    e->unary.op = UN_NEG;
    e->unary.operand = number(p);
  } else {
    e = number(p);
  }
  if ((kind(p) == TK_PLUS || kind(p) == TK_MINUS) && peek_n(p, 1)->kind == TK_IMAG) {
    const Token *op = advance(p);
    e = binary(p, op->kind == TK_PLUS ? BIN_ADD : BIN_SUB, t->loc, op, e, number(p));
  }
  return e;
}

/* maybe_star_pattern: '*' NAME | pattern */
static PyExpr *maybe_star_pattern(Parser *p) {
  const Token *t = peek(p);
  if (t->kind != TK_STAR) return pattern(p);
  advance(p);
  PyExpr *e = new_expr(p, EX_STARRED, t->loc);
  e->value = name_expr(p, expect_name(p));
  return e;
}

/* Patterns up to `close`, pushed on the stack. */
static void pattern_list(Parser *p, TokKind close) {
  while (kind(p) != close) {
    push(p, maybe_star_pattern(p));
    if (!accept(p, TK_COMMA)) break;
  }
}

/* closed_pattern: literal_pattern | capture_pattern | wildcard_pattern | value_pattern
 *   | group_pattern | sequence_pattern | mapping_pattern | class_pattern
 * value_pattern: NAME ('.' NAME)+
 * class_pattern: name_or_attr '(' [pattern, ... NAME '=' pattern, ...] ')'
 * group_pattern: '(' pattern ')'
 * sequence_pattern: '[' maybe_sequence_pattern? ']' | '(' open_sequence_pattern? ')'
 * mapping_pattern: '{' (key ':' pattern | '**' NAME), ... '}' */
static PyExpr *closed_pattern(Parser *p) {
  const Token *t = peek(p);
  size_t m = mark(p);
  PyExpr *e;
  switch (t->kind) {
  case TK_MINUS: case TK_INT: case TK_FLOAT: case TK_IMAG: return signed_number(p);
  case TK_STRING: case TK_NONE: case TK_TRUE: case TK_FALSE: return atom(p);
  case TK_NAME:
    e = name_expr(p, advance(p));
    while (accept(p, TK_DOT)) {
      const Token *n = expect_name(p);
      PyExpr *x = new_expr(p, EX_ATTRIBUTE, t->loc);
      x->attribute.value = e;
      x->attribute.attr = intern(p, n->text, n->len);
      x->attribute.attr_loc = n->loc;
      e = x;
    }
    if (accept(p, TK_LPAR)) {
      PyExpr *c = new_expr(p, EX_CALL, t->loc);
      c->call.func = e;
      bool kw = false;
      while (kind(p) != TK_RPAR) {
        const Token *a = peek(p);
        if (a->kind == TK_NAME && peek_n(p, 1)->kind == TK_EQUAL) {
          advance(p);
          advance(p);
          PyKeyword *k = alloc(p, sizeof *k);
          k->arg = intern(p, a->text, a->len);
          k->loc = a->loc;
          k->value = pattern(p);
          push(p, (void *)1), push(p, k);
          kw = true;
        } else {
          if (kw) error_at(p, a->loc, "positional patterns follow keyword patterns");
          push(p, (void *)0), push(p, pattern(p));
        }
        if (!accept(p, TK_COMMA)) break;
      }
      expect(p, TK_RPAR);
      size_t n = (p->nstack - m) / 2;
      unsigned na = 0, nk = 0;
      for (size_t i = 0; i < n; i++) na += p->stack[m + 2 * i] == NULL;
      c->call.args.n = na;
      c->call.args.items = na ? alloc(p, na * sizeof(PyExpr *)) : NULL;
      c->call.nkeywords = (unsigned)n - na;
      c->call.keywords = n - na ? alloc(p, (n - na) * sizeof(PyKeyword *)) : NULL;
      for (size_t i = 0, ia = 0; i < n; i++) {
        if (p->stack[m + 2 * i]) c->call.keywords[nk++] = p->stack[m + 2 * i + 1];
        else c->call.args.items[ia++] = p->stack[m + 2 * i + 1];
      }
      p->nstack = m;
      return c;
    }
    return e;
  case TK_LPAR: {
    advance(p);
    if (accept(p, TK_RPAR)) {
      e = new_expr(p, EX_TUPLE, t->loc);
      e->parens = 1;
      return e;
    }
    PyExpr *first = maybe_star_pattern(p);
    if (kind(p) != TK_COMMA && first->kind != EX_STARRED) {
      expect(p, TK_RPAR);
      first->parens++;
      return first;
    }
    push(p, first);
    if (accept(p, TK_COMMA)) pattern_list(p, TK_RPAR);
    expect(p, TK_RPAR);
    e = new_expr(p, EX_TUPLE, t->loc);
    e->elts = expr_list(p, m);
    e->parens = 1;
    return e;
  }
  case TK_LSQB:
    advance(p);
    pattern_list(p, TK_RSQB);
    expect(p, TK_RSQB);
    e = new_expr(p, EX_LIST, t->loc);
    e->elts = expr_list(p, m);
    return e;
  case TK_LBRACE: {
    advance(p);
    while (kind(p) != TK_RBRACE) {
      if (accept(p, TK_DOUBLESTAR)) {
        push(p, NULL);
        push(p, name_expr(p, expect_name(p)));
      } else {
        push(p, closed_pattern(p));
        expect(p, TK_COLON);
        push(p, pattern(p));
      }
      if (!accept(p, TK_COMMA)) break;
    }
    expect(p, TK_RBRACE);
    e = new_expr(p, EX_DICT, t->loc);
    unsigned n2;
    PyExpr **kv = (PyExpr **)collect(p, m, &n2);
    unsigned n = n2 / 2;
    e->dict.keys.n = e->dict.values.n = n;
    e->dict.keys.items = alloc(p, n * sizeof(PyExpr *));
    e->dict.values.items = alloc(p, n * sizeof(PyExpr *));
    for (unsigned i = 0; i < n; i++) {
      e->dict.keys.items[i] = kv[2 * i];
      e->dict.values.items[i] = kv[2 * i + 1];
    }
    return e;
  }
  default:
    unexpected(p, NULL);
  }
}

/* pattern: or_pattern ['as' NAME]
 * or_pattern: '|'.closed_pattern+ */
static PyExpr *pattern(Parser *p) {
  enter(p);
  SrcLoc start = peek(p)->loc;
  PyExpr *e = closed_pattern(p);
  while (kind(p) == TK_VBAR) {
    const Token *op = advance(p);
    e = binary(p, BIN_BITOR, start, op, e, closed_pattern(p));
  }
  if (accept(p, TK_AS)) {
    const Token *n = expect_name(p);
    if (n->len == 1 && n->text[0] == '_') error_at(p, n->loc, "cannot use '_' as a target");
    PyExpr *x = new_expr(p, EX_MATCHAS, start);
    x->matchas.pattern = e;
    x->matchas.name = intern(p, n->text, n->len);
    x->matchas.name_loc = n->loc;
    e = x;
  }
  leave(p);
  return e;
}

/* patterns: open_sequence_pattern | pattern
 * open_sequence_pattern: maybe_star_pattern ',' maybe_sequence_pattern? */
static PyExpr *patterns(Parser *p) {
  SrcLoc start = peek(p)->loc;
  PyExpr *first = maybe_star_pattern(p);
  if (kind(p) != TK_COMMA) {
    if (first->kind == EX_STARRED) error_at(p, first->loc, "can't use starred expression here");
    return first;
  }
  size_t m = mark(p);
  push(p, first);
  while (accept(p, TK_COMMA) && kind(p) != TK_COLON && kind(p) != TK_IF) push(p, maybe_star_pattern(p));
  PyExpr *e = new_expr(p, EX_TUPLE, start);
  e->elts = expr_list(p, m);
  return e;
}

/* match_stmt: "match" subject_expr ':' NEWLINE INDENT case_block+ DEDENT
 * subject_expr: star_named_expression ',' star_named_expressions? | named_expression
 * case_block: "case" patterns ['if' named_expression] ':' block */
static PyStmt *match_stmt(Parser *p) {
  const Token *t = advance(p);
  PyStmt *s = new_stmt(p, ST_MATCH, t);
  SrcLoc start = peek(p)->loc;
  PyExpr *subject = star_named_expression(p);
  if (kind(p) == TK_COMMA) {
    size_t m = mark(p);
    push(p, subject);
    while (accept(p, TK_COMMA) && kind(p) != TK_COLON) push(p, star_named_expression(p));
    subject = new_expr(p, EX_TUPLE, start);
    subject->elts = expr_list(p, m);
  }
  s->match.subject = subject;
  colon(p);
  expect(p, TK_NEWLINE);
  expect(p, TK_INDENT);
  size_t m = mark(p);
  do {
    const Token *c = peek(p);
    if (!is_soft_keyword(c, "case")) unexpected(p, "expected 'case' block");
    advance(p);
    PyMatchCase *mc = alloc(p, sizeof *mc);
    mc->loc = c->loc;
    mc->pattern = patterns(p);
    if (accept(p, TK_IF)) mc->guard = named_expression(p);
    colon(p);
    mc->body = block(p, "'case' statement", c->loc.line);
    push(p, mc);
  } while (kind(p) != TK_DEDENT && kind(p) != TK_EOF);
  accept(p, TK_DEDENT);
  s->match.cases = (PyMatchCase **)collect(p, m, &s->match.ncases);
  return finish(p, s);
}

/* ---- simple statements ---- */

/* dotted_name: NAME ('.' NAME)*   -> interned "a.b.c" */
static const char *dotted_name(Parser *p) {
  sb_reset(&p->sb);
  for (;;) {
    const Token *n = expect_name(p);
    sb_putn(&p->sb, n->text, n->len);
    if (kind(p) != TK_DOT) break;
    advance(p);
    sb_putc(&p->sb, '.');
  }
  return intern(p, p->sb.data, p->sb.len);
}

/* import_name: 'import' ','.(dotted_name ['as' NAME])+ */
static PyStmt *import_name(Parser *p) {
  const Token *t = advance(p);
  PyStmt *s = new_stmt(p, ST_IMPORT, t);
  size_t m = mark(p);
  do {
    PyAlias *a = alloc(p, sizeof *a);
    a->loc = peek(p)->loc;
    a->name = dotted_name(p);
    if (accept(p, TK_AS)) {
      const Token *n = expect_name(p);
      a->asname = intern(p, n->text, n->len);
      a->asname_loc = n->loc;
    }
    push(p, a);
  } while (accept(p, TK_COMMA));
  s->import.names = (PyAlias **)collect(p, m, &s->import.n);
  return s;
}

/* import_from: 'from' ('.' | '...')* dotted_name 'import' import_from_targets
 *            | 'from' ('.' | '...')+ 'import' import_from_targets
 * import_from_targets: '(' import_from_as_names [','] ')' | import_from_as_names !',' | '*'
 * import_from_as_name: NAME ['as' NAME] */
static PyStmt *import_from(Parser *p) {
  const Token *t = advance(p);
  PyStmt *s = new_stmt(p, ST_IMPORTFROM, t);
  for (;;) {
    if (accept(p, TK_DOT)) s->import.level++;
    else if (accept(p, TK_ELLIPSIS)) s->import.level += 3;
    else break;
  }
  if (kind(p) != TK_IMPORT || s->import.level == 0) s->import.module = dotted_name(p);
  expect(p, TK_IMPORT);
  size_t m = mark(p);
  if (kind(p) == TK_STAR) {
    PyAlias *a = alloc(p, sizeof *a);
    a->loc = advance(p)->loc;
    a->name = intern(p, "*", 1);
    push(p, a);
  } else {
    bool paren = accept(p, TK_LPAR);
    do {
      if (paren && kind(p) == TK_RPAR) break;
      if (!paren && p->nstack > m && kind(p) == TK_NEWLINE)
        error_at(p, p->last->loc, "trailing comma not allowed without surrounding parentheses");
      const Token *n = expect_name(p);
      PyAlias *a = alloc(p, sizeof *a);
      a->loc = n->loc;
      a->name = intern(p, n->text, n->len);
      if (accept(p, TK_AS)) {
        const Token *as = expect_name(p);
        a->asname = intern(p, as->text, as->len);
        a->asname_loc = as->loc;
      }
      push(p, a);
    } while (accept(p, TK_COMMA));
    if (paren) expect(p, TK_RPAR);
  }
  s->import.names = (PyAlias **)collect(p, m, &s->import.n);
  return s;
}

/* global_stmt: 'global' ','.NAME+
 * nonlocal_stmt: 'nonlocal' ','.NAME+ */
static PyStmt *global_stmt(Parser *p) {
  const Token *t = advance(p);
  PyStmt *s = new_stmt(p, t->kind == TK_GLOBAL ? ST_GLOBAL : ST_NONLOCAL, t);
  size_t m = mark(p);
  do push(p, (void *)expect_name(p));
  while (accept(p, TK_COMMA));
  unsigned n;
  const Token **names = (const Token **)collect(p, m, &n);
  s->global.n = n;
  s->global.names = alloc(p, n * sizeof(const char *));
  s->global.locs = alloc(p, n * sizeof(SrcLoc));
  for (unsigned i = 0; i < n; i++) {
    s->global.names[i] = intern(p, names[i]->text, names[i]->len);
    s->global.locs[i] = names[i]->loc;
  }
  return s;
}

static bool augassign_op(TokKind k, PyBinOp *op) {
  switch (k) {
  case TK_PLUSEQUAL: *op = BIN_ADD; return true;
  case TK_MINEQUAL: *op = BIN_SUB; return true;
  case TK_STAREQUAL: *op = BIN_MUL; return true;
  case TK_ATEQUAL: *op = BIN_MATMUL; return true;
  case TK_SLASHEQUAL: *op = BIN_DIV; return true;
  case TK_DOUBLESLASHEQUAL: *op = BIN_FLOORDIV; return true;
  case TK_PERCENTEQUAL: *op = BIN_MOD; return true;
  case TK_DOUBLESTAREQUAL: *op = BIN_POW; return true;
  case TK_LEFTSHIFTEQUAL: *op = BIN_LSHIFT; return true;
  case TK_RIGHTSHIFTEQUAL: *op = BIN_RSHIFT; return true;
  case TK_VBAREQUAL: *op = BIN_BITOR; return true;
  case TK_CIRCUMFLEXEQUAL: *op = BIN_BITXOR; return true;
  case TK_AMPEREQUAL: *op = BIN_BITAND; return true;
  default: return false;
  }
}

/* annotated_rhs: yield_expr | star_expressions */
static PyExpr *rhs(Parser *p) {
  PyExpr *e = kind(p) == TK_YIELD ? yield_expr(p) : star_expressions(p);
  no_bare_starred(p, e);
  return e;
}

/* assignment: NAME ':' expression ['=' annotated_rhs]
 *           | ('(' single_target ')' | single_subscript_attribute_target) ':' expression ['=' annotated_rhs]
 *           | (star_targets '=')+ (yield_expr | star_expressions) !'='
 *           | single_target augassign (yield_expr | star_expressions)
 * expression statement: star_expressions | yield_expr */
static PyStmt *expr_stmt(Parser *p) {
  const Token *t = peek(p);
  PyExpr *first = kind(p) == TK_YIELD ? yield_expr(p) : star_expressions(p);
  const Token *op = peek(p);
  PyBinOp bop;
  if (op->kind == TK_COLON) {
    advance(p);
    PyStmt *s = new_stmt(p, ST_ANNASSIGN, t);
    switch (first->kind) {
    case EX_NAME: case EX_ATTRIBUTE: case EX_SUBSCRIPT: break;
    case EX_TUPLE: case EX_LIST:
      error_at(p, first->loc, "only single target (not %s) can be annotated", first->kind == EX_TUPLE ? "tuple" : "list");
    default: error_at(p, first->loc, "illegal target for annotation");
    }
    s->annassign.target = first;
    s->annassign.simple = first->kind == EX_NAME && !first->parens;
    s->annassign.annotation = expression(p);
    if (accept(p, TK_EQUAL)) s->annassign.value = rhs(p);
    return s;
  }
  if (augassign_op((TokKind)op->kind, &bop)) {
    advance(p);
    if (first->kind != EX_NAME && first->kind != EX_ATTRIBUTE && first->kind != EX_SUBSCRIPT)
      error_at(p, first->loc, "'%s' is an illegal expression for augmented assignment", describe(first));
    PyStmt *s = new_stmt(p, ST_AUGASSIGN, t);
    s->augassign.target = first;
    s->augassign.op = bop;
    s->augassign.op_loc = op->loc;
    s->augassign.value = rhs(p);
    return s;
  }
  if (op->kind == TK_EQUAL) {
    PyStmt *s = new_stmt(p, ST_ASSIGN, t);
    size_t m = mark(p);
    PyExpr *value = first;
    while (accept(p, TK_EQUAL)) {
      check_target(p, value, false);
      push(p, value);
      value = kind(p) == TK_YIELD ? yield_expr(p) : star_expressions(p);
    }
    no_bare_starred(p, value);
    s->assign.targets = expr_list(p, m);
    s->assign.value = value;
    return s;
  }
  no_bare_starred(p, first);
  PyStmt *s = new_stmt(p, ST_EXPR, t);
  s->expr = first;
  return s;
}

/* simple_stmt: assignment | star_expressions | return_stmt | import_stmt | raise_stmt | 'pass'
 *   | del_stmt | yield_stmt | assert_stmt | 'break' | 'continue' | global_stmt | nonlocal_stmt
 *   | type_alias */
static PyStmt *simple_stmt(Parser *p) {
  const Token *t = peek(p);
  PyStmt *s;
  switch (t->kind) {
  case TK_PASS: advance(p); return new_stmt(p, ST_PASS, t);
  case TK_BREAK:
    if (!p->loops) error_at(p, t->loc, "'break' outside loop");
    advance(p);
    return new_stmt(p, ST_BREAK, t);
  case TK_CONTINUE:
    if (!p->loops) error_at(p, t->loc, "'continue' not properly in loop");
    advance(p);
    return new_stmt(p, ST_CONTINUE, t);
  /* return_stmt: 'return' [star_expressions] */
  case TK_RETURN:
    if (!p->in_func) error_at(p, t->loc, "'return' outside function");
    advance(p);
    s = new_stmt(p, ST_RETURN, t);
    if (starts_expression(kind(p))) s->value = rhs(p);
    return s;
  /* raise_stmt: 'raise' [expression ['from' expression]] */
  case TK_RAISE:
    advance(p);
    s = new_stmt(p, ST_RAISE, t);
    if (starts_expression(kind(p))) {
      s->raise.exc = expression(p);
      if (accept(p, TK_FROM)) s->raise.cause = expression(p);
    }
    return s;
  case TK_GLOBAL: case TK_NONLOCAL: return global_stmt(p);
  /* del_stmt: 'del' ','.del_target+ [','] */
  case TK_DEL: {
    advance(p);
    s = new_stmt(p, ST_DEL, t);
    size_t m = mark(p);
    do {
      PyExpr *e = bitwise_or(p);
      check_target(p, e, true);
      push(p, e);
    } while (accept(p, TK_COMMA) && starts_expression(kind(p)));
    s->targets = expr_list(p, m);
    return s;
  }
  /* assert_stmt: 'assert' expression [',' expression] */
  case TK_ASSERT:
    advance(p);
    s = new_stmt(p, ST_ASSERT, t);
    s->assert_.test = expression(p);
    if (accept(p, TK_COMMA)) s->assert_.msg = expression(p);
    return s;
  case TK_IMPORT: return import_name(p);
  case TK_FROM: return import_from(p);
  /* type_alias: "type" NAME [type_params] '=' expression */
  case TK_NAME:
    if (is_soft_keyword(t, "type") && peek_n(p, 1)->kind == TK_NAME &&
        (peek_n(p, 2)->kind == TK_EQUAL || peek_n(p, 2)->kind == TK_LSQB)) {
      advance(p);
      s = new_stmt(p, ST_TYPEALIAS, t);
      s->typealias.name = name_expr(p, advance(p));
      s->typealias.type_params = type_params(p);
      expect(p, TK_EQUAL);
      s->typealias.value = expression(p);
      return s;
    }
    return expr_stmt(p);
  default:
    return expr_stmt(p);
  }
}

/* simple_stmts: simple_stmt (';' simple_stmt)* [';'] NEWLINE */
static void simple_stmts(Parser *p) {
  for (;;) {
    push(p, finish(p, simple_stmt(p)));
    if (!accept(p, TK_SEMI) || kind(p) == TK_NEWLINE) break;
  }
  if (!accept(p, TK_NEWLINE)) unexpected(p, NULL);
}

/* statement: compound_stmt | simple_stmts
 * compound_stmt: function_def | if_stmt | class_def | with_stmt | for_stmt | try_stmt
 *              | while_stmt | match_stmt (each pushed on the stack) */
static void statement(Parser *p) {
  const Token *t = peek(p);
  switch (t->kind) {
  case TK_IF: push(p, if_stmt(p)); return;
  case TK_WHILE: push(p, while_stmt(p)); return;
  case TK_FOR: push(p, for_stmt(p)); return;
  case TK_TRY: push(p, try_stmt(p)); return;
  case TK_WITH: push(p, with_stmt(p)); return;
  case TK_DEF: push(p, funcdef(p, (PyExprList){NULL, 0}, NULL)); return;
  case TK_CLASS: push(p, classdef(p, (PyExprList){NULL, 0}, NULL)); return;
  case TK_AT: push(p, decorated(p)); return;
  case TK_ASYNC:
    switch (peek_n(p, 1)->kind) {
    case TK_DEF: push(p, funcdef(p, (PyExprList){NULL, 0}, NULL)); return;
    case TK_FOR: push(p, for_stmt(p)); return;
    case TK_WITH: push(p, with_stmt(p)); return;
    default: seek(p, p->pos + 1); unexpected(p, NULL);
    }
  case TK_INDENT: error_at(p, t->loc, "unexpected indent");
  case TK_NAME:
    if (is_soft_keyword(t, "match") && looks_like_match(p)) {
      push(p, match_stmt(p));
      return;
    }
    break;
  default:
    break;
  }
  simple_stmts(p);
}

/* ---- entry points ---- */

/* file: [statements] ENDMARKER */
static void file_rule(Parser *p) {
  size_t m = mark(p);
  seek(p, 0);
  while (kind(p) != TK_EOF) statement(p);
  p->module->body = stmt_list(p, m);
}

/* eval: expressions NEWLINE* ENDMARKER */
static void eval_rule(Parser *p) {
  seek(p, 0);
  p->expr = star_expressions(p);
  no_bare_starred(p, p->expr);
  while (accept(p, TK_NEWLINE)) {
  }
  if (kind(p) != TK_EOF) unexpected(p, NULL);
}

static bool init(Parser *p, Arena *arena, Diag *diag, const char *filename) {
  memset(p, 0, offsetof(Parser, lx));
  p->arena = arena;
  p->diag = diag;
  p->file = arena_strdup(arena, filename ? filename : "<input>");
  p->chunks = NULL;
  p->nchunks = p->ntoks = 0;
  p->lexed_eof = false;
  p->pos = 0;
  p->tok = NULL;
  p->last = NULL;
  p->stack = NULL;
  p->nstack = p->capstack = 0;
  strmap_init(&p->names);
  sb_init(&p->sb);
  p->depth = 0;
  p->in_func = false;
  p->loops = 0;
  p->module = NULL;
  p->expr = NULL;
  if (!p->file) diag_out_of_memory(diag);
  return p->file != NULL;
}

static void release(Parser *p) {
  for (size_t i = 0; i < p->nchunks; i++) mem_free(p->chunks[i]);
  mem_free(p->chunks);
  mem_free(p->stack);
  strmap_free(&p->names);
  sb_free(&p->sb);
}

/* The one place that catches the longjmp of a syntax error; its own locals never change. */
static bool run(Parser *p, void (*rule)(Parser *)) {
  if (setjmp(p->fail)) return false;
  rule(p);
  return true;
}

PyModule *parse_fragment(Arena *arena, Diag *diag, const char *filename, const char *text, size_t len,
                         unsigned first_line, bool indented) {
  Parser p;
  size_t l;
  if (!filename) filename = "<input>";
  if (!first_line) first_line = 1;
  if (!diag_source_line(diag, filename, first_line, &l)) diag_add_source_at(diag, filename, text, len, first_line);
  if (!init(&p, arena, diag, filename)) return NULL;
  p.text = text;
  lex_init_at(&p.lx, diag, p.file, text, len, first_line, 1, false);
  p.lx.base_indent = indented;
  PyModule *m = arena_alloc(arena, sizeof *m);
  bool ok = false;
  if (m) {
    m->filename = p.file;
    m->text = text;
    m->len = len;
    p.module = m;
    ok = run(&p, file_rule);
  }
  release(&p);
  return ok ? m : NULL;
}

PyModule *parse_module(Arena *arena, Diag *diag, const char *filename, const char *text, size_t len) {
  return parse_fragment(arena, diag, filename, text, len, 1, false);
}

PyExpr *parse_expression(Arena *arena, Diag *diag, const char *filename, const char *text, size_t len,
                         unsigned line, unsigned col) {
  Parser p;
  if (!init(&p, arena, diag, filename)) return NULL;
  p.text = text;
  lex_init_at(&p.lx, diag, p.file, text, len, line, col, true);
  bool ok = run(&p, eval_rule);
  release(&p);
  return ok ? p.expr : NULL;
}
