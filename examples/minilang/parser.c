/* parser.c — minilang's lexer and recursive-descent parser: source text to the AST of minilang.h.
 *
 *   program  := func*
 *   func     := ('kernel' | 'fn') NAME '(' (param (',' param)*)? ')' ('->' type)? block
 *   param    := NAME ':' type              type := ('bool' | 'i32' | 'i64' | 'f32' | 'f64' | 'A'..'Z') ('[' ']')?
 *               (a capital letter is a type variable, bound by a generic kernel's arguments)
 *   block    := '{' stmt* '}'
 *   stmt     := 'let' NAME (':' type)? ('=' expr)? ';' | NAME '=' expr ';' | NAME '[' expr ']' '=' expr ';'
 *             | 'if' '(' expr ')' block ('else' (block | if))? | 'while' '(' expr ')' block
 *             | 'for' NAME 'in' expr '..' expr block | 'return' expr? ';' | expr ';' | block
 *             | 'shared' NAME ':' scalar '[' INT ']' ';'     (a block-wide array in shared memory)
 *   expr     := binary operators by precedence: || && (== !=) (< <= > >=) (+ -) (* / %), unary - !, then
 *               postfix a[i], calls f(x, ...), literals (12, 1.5, 2.5e3, true, false), names, ( expr )
 *
 * `//` comments run to the end of the line. The first syntax error is reported (kf_context_report, kind
 * KF_ERRKIND_SYNTAX) at its line and column and ends the parse (longjmp to ml_parse). */
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minilang.h"

struct MlArena {
  MlArena *next;
  max_align_t data[];
};

void *ml_alloc(MlArena **arena, size_t size) {
  MlArena *a = calloc(1, sizeof *a + size);
  if (!a) return NULL;
  a->next = *arena;
  *arena = a;
  return a->data;
}

void ml_arena_free(MlArena **arena) {
  while (*arena) {
    MlArena *next = (*arena)->next;
    free(*arena);
    *arena = next;
  }
}

typedef enum { TK_EOF, TK_NAME, TK_INT, TK_FLOAT, TK_PUNCT } TokKind;

typedef struct {
  kf_context *ctx;
  const char *file, *p, *end, *line_start;
  unsigned line;
  MlArena **arena;
  jmp_buf fail;
  /* the current token */
  TokKind tok;
  const char *start;
  size_t len;
  MlLoc loc;
} Parser;

static _Noreturn void syntax_error(Parser *P, MlLoc loc, const char *fmt, const char *arg) {
  char msg[256];
  snprintf(msg, sizeof msg, fmt, arg);
  /* at the current token: its span too (kf_diagnostic.end_col) */
  bool at_token = P->tok != TK_EOF && loc.line == P->loc.line && loc.col == P->loc.col;
  kf_diagnostic d = {.severity = KF_SEVERITY_ERROR, .kind = KF_ERRKIND_SYNTAX, .message = msg, .file = P->file,
                     .line = loc.line, .col = loc.col, .end_col = at_token ? loc.col + (unsigned)P->len : 0};
  kf_context_report_diagnostic(P->ctx, &d);
  longjmp(P->fail, 1);
}

static void *new_node(Parser *P, size_t size) {
  void *n = ml_alloc(P->arena, size);
  if (!n) {
    kf_context_report(P->ctx, 0, KF_ERRKIND_OUT_OF_MEMORY, (kf_location){0}, "out of memory");
    longjmp(P->fail, 1);
  }
  return n;
}

static char *copy_token(Parser *P) {
  char *s = new_node(P, P->len + 1);
  memcpy(s, P->start, P->len);
  return s;
}

static bool is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }

/* Reads the next token into P->tok. */
static void next(Parser *P) {
  for (;;) {
    while (P->p < P->end && (*P->p == ' ' || *P->p == '\t' || *P->p == '\r' || *P->p == '\n')) {
      if (*P->p++ == '\n') P->line++, P->line_start = P->p;
    }
    if (P->end - P->p >= 2 && P->p[0] == '/' && P->p[1] == '/') {
      while (P->p < P->end && *P->p != '\n') P->p++;
      continue;
    }
    break;
  }
  P->start = P->p;
  P->loc = (MlLoc){P->line, (unsigned)(P->p - P->line_start) + 1};
  if (P->p == P->end) {
    P->tok = TK_EOF, P->len = 0;
    return;
  }
  char c = *P->p;
  if (is_alpha(c)) {
    while (P->p < P->end && (is_alpha(*P->p) || is_digit(*P->p))) P->p++;
    P->tok = TK_NAME;
  } else if (is_digit(c)) {
    P->tok = TK_INT;
    while (P->p < P->end && is_digit(*P->p)) P->p++;
    if (P->end - P->p >= 2 && P->p[0] == '.' && is_digit(P->p[1])) {
      P->tok = TK_FLOAT;
      for (P->p++; P->p < P->end && is_digit(*P->p); P->p++) {}
    }
    if (P->p < P->end && (*P->p == 'e' || *P->p == 'E')) {
      const char *q = P->p + 1;
      if (q < P->end && (*q == '+' || *q == '-')) q++;
      if (q < P->end && is_digit(*q)) {
        P->tok = TK_FLOAT;
        for (P->p = q; P->p < P->end && is_digit(*P->p); P->p++) {}
      }
    }
    if (P->p < P->end && is_alpha(*P->p)) {
      P->len = 1;
      syntax_error(P, (MlLoc){P->line, (unsigned)(P->p - P->line_start) + 1}, "invalid character '%c' in a number",
                   (char[]){*P->p, 0});
    }
  } else {
    static const char *const two[] = {"->", "..", "==", "!=", "<=", ">=", "&&", "||"};
    P->tok = TK_PUNCT;
    P->p++;
    for (size_t i = 0; i < sizeof two / sizeof *two; i++)
      if (P->end - P->start >= 2 && memcmp(P->start, two[i], 2) == 0) P->p = P->start + 2;
    if (P->p - P->start == 1 && !strchr("(){}[];:,=+-*/%<>!", c)) {
      char what[32];
      snprintf(what, sizeof what, (unsigned char)c < 0x20 || (unsigned char)c >= 0x7f ? "byte 0x%02X" : "'%c'",
               (unsigned char)c);
      syntax_error(P, P->loc, "unexpected character %s", what);
    }
  }
  P->len = (size_t)(P->p - P->start);
}

static bool at(Parser *P, const char *s) { return P->tok != TK_EOF && strlen(s) == P->len && memcmp(P->start, s, P->len) == 0; }

static bool accept(Parser *P, const char *s) {
  if (!at(P, s) || P->tok == TK_INT || P->tok == TK_FLOAT) return false;
  next(P);
  return true;
}

static const char *describe(Parser *P) {
  static char buf[64];
  if (P->tok == TK_EOF) return "the end of the file";
  snprintf(buf, sizeof buf, "'%.*s'", (int)(P->len > 40 ? 40 : P->len), P->start);
  return buf;
}

static void expect(Parser *P, const char *s) {
  if (!accept(P, s)) {
    char msg[128];
    snprintf(msg, sizeof msg, "expected '%s', found %%s", s);
    syntax_error(P, P->loc, msg, describe(P));
  }
}

static const char *const keywords[] = {"kernel", "fn", "let", "if", "else", "while", "for", "in", "return",
                                       "true", "false", "shared"};

static const char *expect_name(Parser *P, const char *what) {
  bool keyword = false;
  for (size_t i = 0; P->tok == TK_NAME && i < sizeof keywords / sizeof *keywords; i++) keyword |= at(P, keywords[i]);
  if (P->tok != TK_NAME || keyword) {
    char msg[128];
    snprintf(msg, sizeof msg, "expected %s, found %%s", what);
    syntax_error(P, P->loc, msg, describe(P));
  }
  const char *s = copy_token(P);
  next(P);
  return s;
}

/* A type; with extent non-NULL, an array's brackets may hold its size (shared arrays: f32[256]), else 0. */
static MlType parse_type(Parser *P, int64_t *extent) {
  static const struct { const char *name; MlScalar s; } names[] = {
      {"bool", ML_BOOL}, {"i32", ML_I32}, {"i64", ML_I64}, {"f32", ML_F32}, {"f64", ML_F64}};
  for (size_t i = 0; i <= sizeof names / sizeof *names; i++) {
    bool tvar = i == sizeof names / sizeof *names; /* last: a type variable */
    if (P->tok == TK_NAME && (tvar ? P->len == 1 && *P->start >= 'A' && *P->start <= 'Z' : at(P, names[i].name))) {
      MlType t = {tvar ? (MlScalar)(ML_TVAR + *P->start - 'A') : names[i].s, false};
      next(P);
      if (accept(P, "[")) {
        if (extent && P->tok == TK_INT) {
          *extent = P->len > 9 ? 0 : strtoll(P->start, NULL, 10);
          if (*extent <= 0)
            syntax_error(P, P->loc, "a shared array's size must be 1 to 999999999, not %s", describe(P));
          next(P);
        }
        expect(P, "]");
        t.array = true;
      }
      return t;
    }
  }
  syntax_error(P, P->loc, "expected a type (bool, i32, i64, f32, f64, a type variable T, or an array of one: f32[]), found %s", describe(P));
}

static MlExpr *expr_node(Parser *P, MlExprKind kind, MlLoc loc) {
  MlExpr *e = new_node(P, sizeof *e);
  e->kind = kind;
  e->loc = loc;
  return e;
}

static MlExpr *parse_expr(Parser *P);

static MlExpr *parse_primary(Parser *P) {
  MlLoc loc = P->loc;
  if (P->tok == TK_INT || P->tok == TK_FLOAT) {
    char *text = copy_token(P);
    MlExpr *e = expr_node(P, P->tok == TK_INT ? E_INT : E_FLOAT, loc);
    if (e->kind == E_INT) {
      char *endp;
      e->ival = (int64_t)strtoll(text, &endp, 10);
      if (strlen(text) > 19 || (strlen(text) == 19 && strcmp(text, "9223372036854775807") > 0))
        syntax_error(P, loc, "integer literal %s is too large for i64", text);
    } else {
      e->fval = strtod(text, NULL);
    }
    next(P);
    return e;
  }
  if (accept(P, "(")) {
    MlExpr *e = parse_expr(P);
    expect(P, ")");
    return e;
  }
  if (P->tok == TK_NAME && (at(P, "true") || at(P, "false"))) {
    MlExpr *e = expr_node(P, E_BOOL, loc);
    e->ival = at(P, "true");
    next(P);
    return e;
  }
  const char *name = expect_name(P, "an expression");
  if (accept(P, "(")) {
    MlExpr *e = expr_node(P, E_CALL, loc);
    e->name = name;
    MlExpr *args[16];
    if (!accept(P, ")")) {
      do {
        if (e->nargs == 16) syntax_error(P, P->loc, "more than %s arguments", "16");
        args[e->nargs++] = parse_expr(P);
      } while (accept(P, ","));
      expect(P, ")");
    }
    e->args = new_node(P, sizeof *e->args * (e->nargs + 1));
    memcpy(e->args, args, sizeof *args * e->nargs);
    return e;
  }
  MlExpr *e = expr_node(P, E_NAME, loc);
  e->name = name;
  return e;
}

static MlExpr *parse_postfix(Parser *P) {
  MlExpr *e = parse_primary(P);
  while (at(P, "[")) {
    MlExpr *ix = expr_node(P, E_INDEX, e->loc); /* located at the array, as a[i] starts */
    next(P);
    ix->lhs = e;
    ix->rhs = parse_expr(P);
    expect(P, "]");
    e = ix;
  }
  return e;
}

static MlExpr *parse_unary(Parser *P) {
  if (P->tok == TK_PUNCT && (at(P, "-") || at(P, "!"))) {
    MlExpr *e = expr_node(P, E_UNARY, P->loc);
    e->name = at(P, "-") ? "-" : "!";
    next(P);
    e->lhs = parse_unary(P);
    return e;
  }
  return parse_postfix(P);
}

/* Binary operators, loosest first. */
static const char *const levels[][4] = {{"||"}, {"&&"}, {"==", "!="}, {"<", "<=", ">", ">="}, {"+", "-"}, {"*", "/", "%"}};
enum { NLEVELS = sizeof levels / sizeof *levels };

static MlExpr *parse_binary(Parser *P, int level) {
  if (level == NLEVELS) return parse_unary(P);
  MlExpr *e = parse_binary(P, level + 1);
  for (;;) {
    const char *op = NULL;
    for (int i = 0; i < 4 && levels[level][i]; i++)
      if (P->tok == TK_PUNCT && at(P, levels[level][i])) op = levels[level][i];
    if (!op) return e;
    MlExpr *b = expr_node(P, E_BINARY, P->loc);
    next(P);
    b->name = op;
    b->lhs = e;
    b->rhs = parse_binary(P, level + 1);
    e = b;
  }
}

static MlExpr *parse_expr(Parser *P) { return parse_binary(P, 0); }

static MlStmt *stmt_node(Parser *P, MlStmtKind kind, MlLoc loc) {
  MlStmt *s = new_node(P, sizeof *s);
  s->kind = kind;
  s->loc = loc;
  return s;
}

static MlStmt *parse_stmt(Parser *P);

static MlStmt *parse_block(Parser *P) {
  MlStmt *b = stmt_node(P, S_BLOCK, P->loc);
  expect(P, "{");
  unsigned cap = 0;
  while (!accept(P, "}")) {
    if (P->tok == TK_EOF) syntax_error(P, P->loc, "expected '}', found %s", describe(P));
    if (b->nstmts == cap) {
      MlStmt **grown = new_node(P, sizeof *grown * (cap = cap ? 2 * cap : 8));
      if (b->nstmts) memcpy(grown, b->stmts, sizeof *grown * b->nstmts);
      b->stmts = grown;
    }
    b->stmts[b->nstmts++] = parse_stmt(P);
  }
  return b;
}

static MlStmt *parse_if(Parser *P) {
  MlStmt *s = stmt_node(P, S_IF, P->loc);
  expect(P, "if");
  expect(P, "(");
  s->value = parse_expr(P);
  expect(P, ")");
  s->body = parse_block(P);
  if (accept(P, "else")) s->orelse = at(P, "if") ? parse_if(P) : parse_block(P);
  return s;
}

static MlStmt *parse_stmt(Parser *P) {
  MlLoc loc = P->loc;
  if (P->tok == TK_PUNCT && at(P, "{")) return parse_block(P);
  if (P->tok == TK_NAME && at(P, "if")) return parse_if(P);
  if (accept(P, "let")) {
    MlStmt *s = stmt_node(P, S_LET, loc);
    s->name = expect_name(P, "a variable name");
    if (accept(P, ":")) s->has_type = true, s->type = parse_type(P, NULL);
    if (accept(P, "=")) s->value = parse_expr(P);
    else if (!s->has_type) syntax_error(P, P->loc, "a let without a value needs a type ('let x: f32;'), found %s", describe(P));
    expect(P, ";");
    return s;
  }
  if (accept(P, "shared")) {
    MlStmt *s = stmt_node(P, S_SHARED, loc);
    s->name = expect_name(P, "a shared array's name");
    expect(P, ":");
    MlLoc tloc = P->loc;
    s->type = parse_type(P, &s->extent);
    if (!s->type.array || !s->extent)
      syntax_error(P, tloc, "a shared array needs its size: 'shared %s: f32[256];'", s->name);
    expect(P, ";");
    return s;
  }
  if (accept(P, "while")) {
    MlStmt *s = stmt_node(P, S_WHILE, loc);
    expect(P, "(");
    s->value = parse_expr(P);
    expect(P, ")");
    s->body = parse_block(P);
    return s;
  }
  if (accept(P, "for")) {
    MlStmt *s = stmt_node(P, S_FOR, loc);
    s->name = expect_name(P, "a loop variable");
    expect(P, "in");
    s->value = parse_expr(P);
    expect(P, "..");
    s->index = parse_expr(P);
    s->body = parse_block(P);
    return s;
  }
  if (accept(P, "return")) {
    MlStmt *s = stmt_node(P, S_RETURN, loc);
    if (!at(P, ";")) s->value = parse_expr(P);
    expect(P, ";");
    return s;
  }
  MlExpr *e = parse_expr(P);
  MlStmt *s;
  if (P->tok == TK_PUNCT && at(P, "=")) {
    if (e->kind == E_NAME) {
      s = stmt_node(P, S_ASSIGN, loc);
      s->name = e->name;
    } else if (e->kind == E_INDEX && e->lhs->kind == E_NAME) {
      s = stmt_node(P, S_STORE, loc);
      s->name = e->lhs->name;
      s->index = e->rhs;
    } else {
      syntax_error(P, P->loc, "the left of '=' must be a variable or an array element%s", "");
    }
    next(P);
    s->value = parse_expr(P);
  } else {
    s = stmt_node(P, S_EXPR, loc);
    s->value = e;
  }
  expect(P, ";");
  return s;
}

static MlFunc *parse_func(Parser *P) {
  MlFunc *f = new_node(P, sizeof *f);
  f->loc = P->loc;
  if (accept(P, "kernel")) f->kernel = true;
  else if (!accept(P, "fn")) syntax_error(P, P->loc, "expected 'kernel' or 'fn', found %s", describe(P));
  f->name = expect_name(P, "a function name");
  expect(P, "(");
  MlParam params[32];
  if (!accept(P, ")")) {
    do {
      if (f->nparams == 32) syntax_error(P, P->loc, "more than %s parameters", "32");
      MlParam *p = &params[f->nparams++];
      p->loc = P->loc;
      p->name = expect_name(P, "a parameter name");
      expect(P, ":");
      p->type = parse_type(P, NULL);
    } while (accept(P, ","));
    expect(P, ")");
  }
  f->params = new_node(P, sizeof *f->params * (f->nparams + 1));
  memcpy(f->params, params, sizeof *params * f->nparams);
  f->result = (MlType){ML_VOID, false};
  if (accept(P, "->")) {
    MlLoc rloc = P->loc;
    f->result = parse_type(P, NULL);
    if (f->kernel) syntax_error(P, rloc, "a kernel returns no value%s", "");
    if (f->result.array) syntax_error(P, rloc, "a function cannot return an array%s", "");
  }
  f->body = parse_block(P);
  return f;
}

char *ml_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  long n = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  char *buf = n >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)n + 1) : NULL;
  *len = buf ? fread(buf, 1, (size_t)n, f) : 0;
  if (buf) buf[*len] = 0;
  if (f) fclose(f);
  return buf;
}

bool ml_parse(kf_context *ctx, const char *file, const char *text, size_t len, MlArena **arena, MlProgram *out) {
  Parser P = {.ctx = ctx, .file = file, .p = text, .end = text + len, .line_start = text, .line = 1, .arena = arena};
  memset(out, 0, sizeof *out);
  if (setjmp(P.fail)) return false;
  next(&P);
  unsigned cap = 0;
  while (P.tok != TK_EOF) {
    if (out->nfuncs == cap) {
      MlFunc **grown = new_node(&P, sizeof *grown * (cap = cap ? 2 * cap : 8));
      if (out->nfuncs) memcpy(grown, out->funcs, sizeof *grown * out->nfuncs);
      out->funcs = grown;
    }
    out->funcs[out->nfuncs++] = parse_func(&P);
  }
  return true;
}
