/* match.c — match statements (PEP 634) in kernels, as the if/elif chains CPython compiles them to.
 *
 * numba-cuda compiles bytecode, and its bytecode front end (numba/cuda/core/byteflow.py) has no MATCH_SEQUENCE,
 * MATCH_MAPPING or MATCH_CLASS: it compiles the match statements whose patterns CPython turns into plain
 * comparisons, and refuses the rest with UnsupportedBytecodeError "Use of unsupported opcode (MATCH_...) found".
 * What it compiles, kfront compiles by rewriting the statement into statements the lowering already has:
 *
 *   match SUBJECT:                   $match<line>_<col> = SUBJECT        (evaluated once)
 *       case 1 | 2: A                if $m == 1 or $m == 2: A
 *       case Color.RED if g: B       elif $m == Color.RED and g: B
 *       case None: C                 elif $m is None: C                  (None, True, False: `is`)
 *       case 5 as y if y > k: D      else:
 *       case y: E                        if $m == 5: y = $m
 *                                        if $m == 5 and y > k: D
 *                                        else: y = $m; E
 *
 * literal patterns (numbers, strings, negative and complex literals) compare with ==, value patterns (dotted
 * names: enum members, module constants) too, in order, short-circuit as CPython's bytecode does; captures
 * and `as` bind the subject (in the patterns numba-cuda compiles, a name always stands for the whole
 * subject) only once the pattern has matched and before the guard runs, as CPython binds them; the wildcard
 * binds nothing; a case that cannot fail ends the chain. The rewrite is made on a copy of the function's
 * definition, before the analysis of its locals (sema_analyse_function), so liveness, loops, returns and
 * unbound-local checks see ordinary statements. A match statement with a sequence, mapping or class pattern is
 * left as it is, and lowering it reports numba-cuda's error at that pattern (match_refused). */
#include <string.h>

#include "frontend/fe.h"

/* ---- what numba-cuda refuses --------------------------------------------------------------------------- */

/* The opcode CPython compiles pattern p to that numba-cuda has no support for, or NULL; *where is the pattern. */
static const char *refused_in(const PyExpr *p, const PyExpr **where) {
  if (!p) return NULL;
  *where = p;
  switch (p->kind) {
  case EX_TUPLE: case EX_LIST: case EX_STARRED: return "MATCH_SEQUENCE";
  case EX_DICT: return "MATCH_MAPPING";
  case EX_CALL: return "MATCH_CLASS";
  case EX_MATCHAS: return refused_in(p->matchas.pattern, where);
  case EX_BINARY: {
    if (p->binary.op != BIN_BITOR) return NULL;
    const char *r = refused_in(p->binary.lhs, where);
    return r ? r : refused_in(p->binary.rhs, where);
  }
  default: return NULL;
  }
}

const char *match_refused(const PyStmt *s, SrcLoc *loc) {
  for (unsigned i = 0; i < s->match.ncases; i++) {
    const PyExpr *where = NULL;
    const char *op = refused_in(s->match.cases[i]->pattern, &where);
    if (op) {
      *loc = where->loc;
      return op;
    }
  }
  *loc = s->loc;
  return NULL;
}

/* ---- building statements ----------------------------------------------------------------------------------- */

typedef struct Rewrite {
  FeCtx *fe;
  const PyStmt *match; /* the statement being rewritten: its extent for the statements made */
} Rewrite;

static PyExpr *name_expr(Rewrite *R, const char *name, SrcLoc loc) {
  PyExpr *e = ARENA_NEW(&R->fe->arena, PyExpr);
  e->kind = EX_NAME;
  e->loc = loc;
  e->name = name;
  return e;
}

static PyExprList expr_list2(Rewrite *R, PyExpr *a, PyExpr *b) {
  PyExpr **items = ARENA_ARRAY(&R->fe->arena, PyExpr *, 2);
  items[0] = a;
  items[1] = b;
  return (PyExprList){items, b ? 2 : 1};
}

static PyExpr *compare(Rewrite *R, PyExpr *lhs, PyCmpOp op, PyExpr *rhs, SrcLoc loc) {
  PyExpr *e = ARENA_NEW(&R->fe->arena, PyExpr);
  e->kind = EX_COMPARE;
  e->loc = loc;
  e->compare.left = lhs;
  e->compare.ops = ARENA_NEW(&R->fe->arena, PyCmpOp);
  e->compare.ops[0] = op;
  e->compare.op_locs = ARENA_NEW(&R->fe->arena, SrcLoc);
  e->compare.op_locs[0] = loc;
  e->compare.comparators = expr_list2(R, rhs, NULL);
  return e;
}

static PyExpr *boolop(Rewrite *R, PyBoolOp op, PyExpr *a, PyExpr *b) {
  PyExpr *e = ARENA_NEW(&R->fe->arena, PyExpr);
  e->kind = EX_BOOLOP;
  e->loc = a->loc;
  e->boolop.op = op;
  e->boolop.values = expr_list2(R, a, b);
  return e;
}

static PyStmt *new_stmt(Rewrite *R, PyStmtKind kind, SrcLoc loc) {
  PyStmt *s = ARENA_NEW(&R->fe->arena, PyStmt);
  s->kind = kind;
  s->loc = loc;
  s->end_line = R->match->end_line;
  s->start_off = R->match->start_off;
  s->end_off = R->match->end_off;
  return s;
}

static PyStmt *assign(Rewrite *R, const char *name, SrcLoc name_loc, PyExpr *value) {
  PyStmt *s = new_stmt(R, ST_ASSIGN, name_loc);
  s->assign.targets = expr_list2(R, name_expr(R, name, name_loc), NULL);
  s->assign.value = value;
  return s;
}

static PyStmt *if_stmt(Rewrite *R, PyExpr *test, PyStmtList body, PyStmtList orelse, SrcLoc loc) {
  PyStmt *s = new_stmt(R, ST_IF, loc);
  s->if_.test = test;
  s->if_.body = body;
  s->if_.orelse = orelse;
  return s;
}

/* a + b as one list (new storage; either may be empty) */
static PyStmtList join(Rewrite *R, PyStmtList a, PyStmtList b) {
  PyStmtList r = {ARENA_ARRAY(&R->fe->arena, PyStmt *, a.n + b.n ? a.n + b.n : 1), a.n + b.n};
  if (a.n) memcpy(r.items, a.items, sizeof *r.items * a.n);
  if (b.n) memcpy(r.items + a.n, b.items, sizeof *r.items * b.n);
  return r;
}

static PyStmtList one(Rewrite *R, PyStmt *s) {
  PyStmtList r = {ARENA_ARRAY(&R->fe->arena, PyStmt *, 1), 1};
  r.items[0] = s;
  return r;
}

/* ---- patterns ------------------------------------------------------------------------------------------ */

/* The test that pattern p matches the subject (the name subj), or NULL when it cannot fail. */
static PyExpr *pattern_test(Rewrite *R, const PyExpr *p, const char *subj) {
  switch (p->kind) {
  case EX_NAME: return NULL; /* a capture, or the wildcard _ */
  case EX_MATCHAS: return p->matchas.pattern ? pattern_test(R, p->matchas.pattern, subj) : NULL;
  case EX_BINARY:
    if (p->binary.op == BIN_BITOR) {
      PyExpr *a = pattern_test(R, p->binary.lhs, subj), *b = pattern_test(R, p->binary.rhs, subj);
      return a && b ? boolop(R, BOOL_OR, a, b) : NULL;
    }
    break; /* a complex literal 1+2j */
  case EX_NONE: case EX_BOOL: return compare(R, name_expr(R, subj, p->loc), CMP_IS, (PyExpr *)p, p->loc);
  default: break;
  }
  return compare(R, name_expr(R, subj, p->loc), CMP_EQ, (PyExpr *)p, p->loc);
}

/* The assignments `name = subj` of the names pattern p binds (the alternatives of an or-pattern bind the same
 * names: Python requires it), appended to *out. */
static void captures(Rewrite *R, const PyExpr *p, const char *subj, PyStmtList *out) {
  const char *name = NULL;
  SrcLoc loc = p->loc;
  switch (p->kind) {
  case EX_NAME:
    if (strcmp(p->name, "_") != 0) name = p->name;
    break;
  case EX_MATCHAS:
    if (p->matchas.pattern) captures(R, p->matchas.pattern, subj, out);
    name = p->matchas.name;
    loc = p->matchas.name_loc;
    break;
  case EX_BINARY:
    if (p->binary.op == BIN_BITOR) captures(R, p->binary.lhs, subj, out);
    break;
  default: break;
  }
  if (name) *out = join(R, *out, one(R, assign(R, name, loc, name_expr(R, subj, loc))));
}

/* ---- the rewrite ------------------------------------------------------------------------------------------- */

static PyStmtList rewrite_list(Rewrite *R, const PyStmtList *l, bool *changed);

/* The statements match statement s stands for. */
static PyStmtList rewrite_match(Rewrite *R, const PyStmt *s) {
  const char *subj = arena_printf(&R->fe->arena, "$match%u_%u", s->loc.line, s->loc.col);
  PyStmtList rest = {NULL, 0};
  for (unsigned i = s->match.ncases; i-- > 0;) {
    const PyMatchCase *c = s->match.cases[i];
    bool changed;
    PyStmtList body = rewrite_list(R, &c->body, &changed), binds = {NULL, 0};
    PyExpr *test = pattern_test(R, c->pattern, subj);
    captures(R, c->pattern, subj, &binds);
    if (!test) {
      rest = join(R, binds, c->guard ? one(R, if_stmt(R, c->guard, body, rest, c->loc)) : body);
    } else if (!c->guard) {
      rest = one(R, if_stmt(R, test, join(R, binds, body), rest, c->loc));
    } else {
      PyStmtList guarded = one(R, if_stmt(R, boolop(R, BOOL_AND, test, c->guard), body, rest, c->loc));
      rest = binds.n ? join(R, one(R, if_stmt(R, pattern_test(R, c->pattern, subj), binds, (PyStmtList){NULL, 0},
                                              c->loc)),
                            guarded)
                     : guarded;
    }
  }
  return join(R, one(R, assign(R, subj, s->match.subject->loc, s->match.subject)), rest);
}

/* A copy of statement s with its lists rewritten, or s itself when none held a match statement. */
static PyStmt *rewrite_stmt(Rewrite *R, PyStmt *s) {
  bool c1 = false, c2 = false;
  PyStmt copy = *s;
  switch (s->kind) {
  case ST_IF:
    copy.if_.body = rewrite_list(R, &s->if_.body, &c1);
    copy.if_.orelse = rewrite_list(R, &s->if_.orelse, &c2);
    break;
  case ST_FOR:
    copy.for_.body = rewrite_list(R, &s->for_.body, &c1);
    copy.for_.orelse = rewrite_list(R, &s->for_.orelse, &c2);
    break;
  case ST_WHILE:
    copy.while_.body = rewrite_list(R, &s->while_.body, &c1);
    copy.while_.orelse = rewrite_list(R, &s->while_.orelse, &c2);
    break;
  case ST_WITH: copy.with.body = rewrite_list(R, &s->with.body, &c1); break;
  case ST_FUNCDEF: copy.funcdef.body = rewrite_list(R, &s->funcdef.body, &c1); break;
  default: break;
  }
  if (!c1 && !c2) return s;
  PyStmt *n = ARENA_NEW(&R->fe->arena, PyStmt);
  *n = copy;
  return n;
}

static PyStmtList rewrite_list(Rewrite *R, const PyStmtList *l, bool *changed) {
  *changed = false;
  PyStmtList out = {NULL, 0};
  unsigned done = 0; /* l->items[0..done) are in out */
  for (unsigned i = 0; i < l->n; i++) {
    PyStmt *s = l->items[i];
    SrcLoc where;
    PyStmtList repl;
    if (s->kind == ST_MATCH && !match_refused(s, &where)) {
      const PyStmt *saved = R->match;
      R->match = s;
      repl = rewrite_match(R, s);
      R->match = saved;
    } else {
      PyStmt *n = rewrite_stmt(R, s);
      if (n == s) continue;
      repl = one(R, n);
    }
    out = join(R, join(R, out, (PyStmtList){l->items + done, i - done}), repl);
    done = i + 1;
    *changed = true;
  }
  if (!*changed) return *l;
  return join(R, out, (PyStmtList){l->items + done, l->n - done});
}

const PyStmt *match_rewrite_function(FeCtx *fe, const PyStmt *def) {
  Rewrite R = {fe, def};
  bool changed;
  PyStmtList body = rewrite_list(&R, &def->funcdef.body, &changed);
  if (!changed) return def;
  PyStmt *n = ARENA_NEW(&fe->arena, PyStmt);
  *n = *def;
  n->funcdef.body = body;
  return n;
}
