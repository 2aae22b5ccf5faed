/* parse.c — reads kir's text form (exactly what print.c writes) back into a Module.
 *
 * One pass of recursive descent straight over the bytes: a cursor that skips blanks and `//` comments,
 * no token array and no allocation per token (names and literals are spans of the input; types go through
 * ty_parse at the cursor). Grammar (print.c's header comment shows the same form by example):
 *
 *   module   := op*
 *   op       := (value (',' value)* '=')? opname '(' values? ')' succs? regions? attrs?
 *               ':' '(' types? ')' '->' '(' types? ')' loc?
 *   succs    := '[' block ('(' values ')')? (',' ...)* ']'
 *   regions  := '(' region (',' region)* ')'
 *   region   := '{' op* (label op*)* '}'          ops before the first label form an implicit entry block
 *   label    := block ('(' value ':' type (',' ...)* ')')? ':'
 *   attrs    := '{' (name ('=' attr)? (',' ...)*)? '}'       a name alone is a unit attribute
 *   attr     := int (':' type)? | float (':' type)? | nan | inf | -inf (':' type)? | true | false
 *             | string | '@' name | '@' string | type | '[' (attr (',' attr)*)? ']'
 *               int: decimal or 0x hex; float: decimal or C99 hex (0x1.8p1); `true`/`false` as the `value`
 *               of an i1 arith.constant is the integer 1/0 : i1 (elsewhere a boolean attribute)
 *   loc      := 'loc' '(' string ':' int ':' int ')' | 'loc' '(' 'unknown' ')'
 *   value    := '%' [A-Za-z0-9_.$-]+      block := '^' [A-Za-z0-9_.$-]+
 *
 * Names. Value names are scoped per top-level op (each is defined once in it, even across sibling regions;
 * the printer numbers them so), block labels per region. Uses may precede definitions
 * (blocks of a cf region in any order, nested regions): the first use of an unknown %x makes a placeholder
 * Value typed from the op's signature, and the definition replaces all its uses (ir_value_replace_all_uses);
 * a placeholder still undefined at the end of its top-level op is "use of undefined value". A successor
 * naming a label not yet seen gets an unlinked Block, linked into the region when its label appears.
 * Both name tables are open-addressing hash tables cleared in O(1) per top-level op (a generation count).
 *
 * Ops are built bottom-up: an op's regions are parsed before its signature (which gives the operand and
 * result types), so operand names, successors, regions and attributes wait on scratch stacks owned by
 * the parser (indices, never pointers, survive the stacks' growth), and the op is created when its
 * signature has been read; its regions are then moved into it.
 *
 * Checks here are the ones that need the text: syntax, names (undefined, redefined), operand and result
 * counts against the signature, each operand's type against the signature, literal ranges. Everything
 * else (ops.def counts, regions, terminators, dominance, per-op rules) is ir/verify.c's.
 *
 * Errors: the first one is reported to diag at its position in the text (`file:line:col: error: ...`, the
 * text is registered with diag_add_source so the line and a caret print) and unwinds by longjmp to
 * ir_parse_module, which frees the partial module and returns NULL. Nesting of regions and attribute
 * arrays is capped (MAX_DEPTH) so no input can exhaust the C stack. An op without loc(...) gets its
 * position in the text (the first token: its first result name or its name). The parser runs under a guard
 * (utils/mem.h, set up by kf_module_parse): an allocation failure unwinds to it, past ir_parse_module. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "utils/mem.h"
#include "utils/stack.h"

enum {
  MAX_DEPTH = IR_MAX_NESTING, /* nested regions + attribute arrays */
  MAX_NAME = 1024,      /* longest value, block, op or attribute name */
  MAX_NUMBER = 128,     /* longest numeric literal */
};

typedef struct NameRef {
  const char *s;        /* the name in the text, without its sigil */
  unsigned len;
  SrcLoc loc;           /* of the sigil */
} NameRef;

/* One name of a NameTable: a value (scope 0) or a block label (scope = the region's number). */
typedef struct NameEntry {
  const char *name;
  unsigned len, gen, scope;
  uint32_t hash;
  void *ptr;            /* Value* or Block*; NULL in an entry nt_get has just made */
  SrcLoc use;           /* a value's first use while it is a forward reference */
  bool pending;         /* a value used but not yet defined (ptr is its placeholder) */
} NameEntry;

typedef struct NameTable {
  NameEntry *slots;     /* entries of another generation are free */
  size_t cap, count;
  unsigned gen;
} NameTable;

#define VEC(T) struct { T *v; size_t n, cap; }

typedef struct PendingBlock {
  Block *block;         /* linked into its region (block->region set) once its label appears */
  NameRef ref;          /* its first use */
} PendingBlock;

typedef struct Parser {
  IrContext *ctx;
  Diag *diag;
  Module *m;
  const char *file;
  const char *src, *p, *end;   /* the text and the cursor */
  const char *line_start;
  unsigned line;
  unsigned depth;
  unsigned cur_region, nregions_seen;
  jmp_buf fail;
  NameTable values, blocks;
  StrMap strings;              /* interned strings: attribute names, strings, symbols, loc files */
  StrBuf sbuf;                 /* unescaping */
  StrBuf tybuf[2];             /* types in messages */
  char found[96];              /* describe() */
  Type *scalars[3][5];         /* i u f  x  1 8 16 32 64: the scalar types met so far */
  VEC(NameRef) defs;           /* result names of the ops being parsed */
  VEC(NameRef) refs;           /* operand names of the ops being parsed (successor operands last) */
  VEC(Type *) types;           /* signatures */
  VEC(Value *) vals;           /* resolved operands */
  VEC(Region) regions;         /* parsed regions waiting for their op */
  VEC(Block *) succs;
  VEC(unsigned) succ_counts;
  VEC(NamedAttr) nattrs;
  VEC(Attr) attrs;             /* elements of attribute arrays */
  VEC(PendingBlock) pending_blocks;
  VEC(Value *) free_values;    /* placeholders already replaced, for reuse */
  size_t npending_values;
} Parser;

/* ---- errors ----------------------------------------------------------------------------------- */

static _Noreturn void fail_at(Parser *P, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static _Noreturn void fail_at(Parser *P, SrcLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_report(P->diag, DIAG_ERROR, loc, fmt, ap);
  va_end(ap);
  longjmp(P->fail, 1);
}

/* Runs under a guard (mem.h), where allocations do not fail; without one, a failure is reported as such. */
static _Noreturn void oom(Parser *P) {
  diag_out_of_memory(P->diag);
  longjmp(P->fail, 1);
}

static void *vec_grow(Parser *P, void *v, size_t *cap, size_t elem) {
  size_t ncap = *cap ? *cap * 2 : 64;
  void *nv = mem_realloc(v, ncap * elem);
  if (!nv) oom(P);
  *cap = ncap;
  return nv;
}

#define PUSH(P, vec, x)                                                        \
  do {                                                                         \
    if ((vec).n == (vec).cap) (vec).v = vec_grow((P), (vec).v, &(vec).cap, sizeof *(vec).v); \
    (vec).v[(vec).n++] = (x);                                                  \
  } while (0)

static const char *plural(size_t n) { return n == 1 ? "" : "s"; }

static const char *type_str(Parser *P, int slot, const Type *t) {
  sb_reset(&P->tybuf[slot]);
  ty_print(t, &P->tybuf[slot]);
  return sb_cstr(&P->tybuf[slot]);
}

/* ---- the cursor ------------------------------------------------------------------------------- */

static bool is_ident_start(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_ident_char(int c) { return is_ident_start(c) || is_digit(c) || c == '.' || c == '$'; }
static bool is_name_char(int c) { return is_ident_char(c) || c == '-'; }

static void skip_ws(Parser *P) {
  const char *p = P->p, *end = P->end;
  for (;;) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) p++;
    if (p == end) break;
    if (*p == '\n') {
      P->line++;
      P->line_start = ++p;
      continue;
    }
    if (*p == '/' && p + 1 < end && p[1] == '/') {
      while (p < end && *p != '\n') p++;
      continue;
    }
    break;
  }
  P->p = p;
}

static SrcLoc here(Parser *P) { return srcloc(P->file, P->line, (unsigned)(P->p - P->line_start) + 1); }

/* The next character (after blanks), or -1 at the end. */
static int peek(Parser *P) {
  skip_ws(P);
  return P->p < P->end ? (unsigned char)*P->p : -1;
}

/* What the cursor is at, for "expected X, found Y". */
static const char *describe(Parser *P) {
  skip_ws(P);
  const char *p = P->p;
  if (p >= P->end) return "end of file";
  unsigned char c = (unsigned char)*p;
  if (c == 0) return "a NUL byte";
  if (c < 0x20 || c >= 0x7f) {
    snprintf(P->found, sizeof P->found, "byte 0x%02X", c);
    return P->found;
  }
  size_t n = 1, avail = (size_t)(P->end - p);
  if (c == '%' || c == '^' || c == '@') {
    while (n < avail && n < 40 && is_name_char((unsigned char)p[n])) n++;
  } else if (is_ident_char(c) || (c == '-' && avail > 1 && is_digit((unsigned char)p[1]))) {
    while (n < avail && n < 40 && is_ident_char((unsigned char)p[n])) n++;
  } else if (c == '-' && avail > 1 && p[1] == '>') {
    n = 2;
  }
  snprintf(P->found, sizeof P->found, "'%.*s'", (int)n, p);
  return P->found;
}

static bool accept(Parser *P, char c) {
  if (peek(P) == (unsigned char)c) {
    P->p++;
    return true;
  }
  return false;
}

static void expect(Parser *P, char c) {
  if (!accept(P, c)) fail_at(P, here(P), "expected '%c', found %s", c, describe(P));
}

/* Whether the cursor is at the keyword w (not followed by an identifier character); consumes it if so. */
static bool accept_word(Parser *P, const char *w) {
  size_t n = strlen(w);
  skip_ws(P);
  if ((size_t)(P->end - P->p) < n || memcmp(P->p, w, n) != 0) return false;
  if (P->p + n < P->end && is_ident_char((unsigned char)P->p[n])) return false;
  P->p += n;
  return true;
}

/* [A-Za-z_][A-Za-z0-9_.$]* at the cursor. */
static NameRef scan_ident(Parser *P, const char *what) {
  skip_ws(P);
  NameRef r = {P->p, 0, here(P)};
  if (P->p >= P->end || !is_ident_start((unsigned char)*P->p)) fail_at(P, r.loc, "expected %s, found %s", what, describe(P));
  const char *s = P->p;
  while (P->p < P->end && is_ident_char((unsigned char)*P->p)) P->p++;
  if (P->p - s > MAX_NAME) fail_at(P, r.loc, "name too long (more than %d characters)", MAX_NAME);
  r.len = (unsigned)(P->p - s);
  return r;
}

/* sigil [A-Za-z0-9_.$-]+ at the cursor: a value (%) or block (^) name. */
static NameRef scan_sigil_name(Parser *P, char sigil, const char *what) {
  skip_ws(P);
  NameRef r = {NULL, 0, here(P)};
  if (P->p >= P->end || *P->p != sigil) fail_at(P, r.loc, "expected %s, found %s", what, describe(P));
  const char *s = ++P->p;
  while (P->p < P->end && is_name_char((unsigned char)*P->p)) P->p++;
  if (P->p == s) fail_at(P, r.loc, "expected a name after '%c'", sigil);
  if (P->p - s > MAX_NAME) fail_at(P, r.loc, "name too long (more than %d characters)", MAX_NAME);
  r.s = s;
  r.len = (unsigned)(P->p - s);
  return r;
}

static void enter(Parser *P, SrcLoc loc) {
  if (++P->depth > MAX_DEPTH) fail_at(P, loc, "nesting too deep (more than %d levels)", MAX_DEPTH);
  if (stack_exhausted()) fail_at(P, loc, "nesting too deep for the thread's stack");
}

/* ---- interned strings ------------------------------------------------------------------------- */

static const char *intern(Parser *P, const char *s, size_t n) {
  const char *k = strmap_getn(&P->strings, s, n);
  if (k) return k;
  char *copy = arena_strndup(&P->m->arena, s, n);
  if (!copy) oom(P);
  strmap_putn(&P->strings, copy, n, copy);
  return copy;
}

static int hex_digit(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* string := '"' (char | '\"' | '\\' | '\n' | '\t' | '\' hex hex)* '"'  — returns the interned contents. */
static const char *parse_string(Parser *P) {
  SrcLoc open = here(P);
  if (P->p >= P->end || *P->p != '"') fail_at(P, open, "expected a string, found %s", describe(P));
  const char *p = ++P->p, *end = P->end, *seg = p;
  bool escaped = false;
  sb_reset(&P->sbuf);
  for (;;) {
    if (p == end || *p == '\n' || *p == '\r') {
      P->p = p;
      fail_at(P, open, "unterminated string");
    }
    unsigned char c = (unsigned char)*p;
    if (c == '"') break;
    if (c == '\\') {
      SrcLoc at = srcloc(P->file, P->line, (unsigned)(p - P->line_start) + 1);
      sb_putn(&P->sbuf, seg, (size_t)(p - seg));
      escaped = true;
      if (p + 1 == end) {
        P->p = p + 1;
        fail_at(P, open, "unterminated string");
      }
      char e = p[1];
      int h1 = hex_digit((unsigned char)e), h2 = p + 2 < end ? hex_digit((unsigned char)p[2]) : -1;
      if (e == '"' || e == '\\') sb_putc(&P->sbuf, e), p += 2;
      else if (e == 'n') sb_putc(&P->sbuf, '\n'), p += 2;
      else if (e == 't') sb_putc(&P->sbuf, '\t'), p += 2;
      else if (h1 >= 0 && h2 >= 0) {
        if (h1 == 0 && h2 == 0) fail_at(P, at, "a string may not contain a NUL byte");
        sb_putc(&P->sbuf, (char)(h1 * 16 + h2));
        p += 3;
      } else if ((unsigned char)e >= 0x20 && (unsigned char)e < 0x7f) {
        fail_at(P, at, "invalid escape '\\%c' in string", e);
      } else {
        fail_at(P, at, "invalid escape in string");
      }
      seg = p;
      continue;
    }
    if (c < 0x20 && c != '\t') {
      P->p = p;
      fail_at(P, here(P), "invalid character in string (byte 0x%02X)", c);
    }
    p++;
  }
  const char *s;
  if (escaped) {
    sb_putn(&P->sbuf, seg, (size_t)(p - seg));
    s = intern(P, P->sbuf.data ? P->sbuf.data : "", P->sbuf.len);
  } else {
    s = intern(P, seg, (size_t)(p - seg));
  }
  P->p = p + 1;
  return s;
}

/* ---- types ------------------------------------------------------------------------------------ */

/* Whether the cursor is at something that starts like a type (for messages and attribute values). */
static bool at_type(Parser *P) {
  const char *p = P->p;
  size_t avail = (size_t)(P->end - p), n = 0;
  if (!avail) return false;
  if (*p == '(' || ((*p == 'i' || *p == 'u' || *p == 'f') && avail > 1 && is_digit((unsigned char)p[1]))) return true;
  while (n < avail && n < 12 && is_ident_char((unsigned char)p[n])) n++;
  static const char *const keywords[] = {"bf16",   "ptr",     "array",      "tuple",      "vector",
                                         "slice2", "slice3",  "complex",    "record",     "namedtuple",
                                         "charseq", "unicharseq", "datetime64", "timedelta64", "optional"};
  for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
    if (strlen(keywords[i]) == n && memcmp(p, keywords[i], n) == 0) return true;
  return false;
}

/* A scalar type at the cursor without going through ty_parse and the intern table (most types are). */
static Type *scalar_type(Parser *P) {
  const char *p = P->p;
  size_t avail = (size_t)(P->end - p), n = 1;
  unsigned bits = 0;
  int kind = avail < 2 ? -1 : p[0] == 'i' ? 0 : p[0] == 'u' ? 1 : p[0] == 'f' ? 2 : -1;
  if (kind < 0) return NULL;
  while (n < avail && n < 4 && is_digit((unsigned char)p[n])) bits = bits * 10 + (unsigned)(p[n++] - '0');
  if (n < avail && is_ident_char((unsigned char)p[n])) return NULL;
  int w = bits == 1 ? 0 : bits == 8 ? 1 : bits == 16 ? 2 : bits == 32 ? 3 : bits == 64 ? 4 : -1;
  if (w < 0 || (w == 0 && kind != 0) || (w == 1 && kind == 2)) return NULL; /* u1, f1, f8: let ty_parse say no */
  Type **t = &P->scalars[kind][w];
  if (!*t) *t = kind == 2 ? ty_float(P->ctx, bits) : w == 0 ? ty_bool(P->ctx) : ty_int(P->ctx, bits, kind == 1);
  P->p += n;
  return *t;
}

static Type *parse_type(Parser *P) {
  skip_ws(P);
  Type *st = scalar_type(P);
  if (st) return st;
  SrcLoc loc = here(P);
  size_t pos = (size_t)(P->p - P->src);
  Type *t = ty_parse(P->ctx, P->src, (size_t)(P->end - P->src), &pos);
  if (t && !(pos < (size_t)(P->end - P->src) && is_ident_char((unsigned char)P->src[pos]))) {
    P->p = P->src + pos;
    return t;
  }
  /* say "invalid type" when it starts like one, "expected a type" when it does not */
  const char *p = P->p;
  size_t avail = (size_t)(P->end - p);
  if (at_type(P)) {
    size_t n = 0;
    int level = 0;
    while (n < avail && n < 60 && p[n] != '\n' && p[n] != '\r') { /* the type's extent, for the message */
      if (p[n] == '<' || p[n] == '(') level++;
      else if (p[n] == '>' || p[n] == ')') {
        if (level == 0) break;
        if (--level == 0 && p[n] == '>') { n++; break; }
      } else if (p[n] == ',' && level == 0) break;
      n++;
    }
    while (n && p[n - 1] == ' ') n--;
    fail_at(P, loc, "invalid type '%.*s'", (int)n, p);
  }
  fail_at(P, loc, "expected a type, found %s", describe(P));
}

/* '(' (type (',' type)*)? ')' — pushed on P->types; returns how many. */
static size_t parse_type_list(Parser *P) {
  size_t n = 0;
  expect(P, '(');
  if (accept(P, ')')) return 0;
  do {
    Type *t = parse_type(P);
    PUSH(P, P->types, t);
    n++;
  } while (accept(P, ','));
  expect(P, ')');
  return n;
}

/* ---- name tables ------------------------------------------------------------------------------ */

static uint32_t name_hash(const char *s, unsigned len, unsigned scope) {
  uint32_t h = 2166136261u ^ (scope * 0x9e3779b9u);
  for (unsigned i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

static void nt_clear(NameTable *t) {
  t->gen++;
  t->count = 0;
}

static void nt_grow(Parser *P, NameTable *t) {
  size_t cap = t->cap ? t->cap * 2 : 256;
  NameEntry *slots = mem_calloc(cap, sizeof *slots);
  if (!slots) oom(P);
  for (size_t i = 0; i < t->cap; i++) {
    NameEntry *e = &t->slots[i];
    if (e->gen != t->gen) continue;
    size_t j = e->hash & (cap - 1);
    while (slots[j].gen == t->gen) j = (j + 1) & (cap - 1);
    slots[j] = *e;
  }
  mem_free(t->slots);
  t->slots = slots;
  t->cap = cap;
}

/* The entry of (name, scope), made (with ptr NULL) if absent. Valid until the next nt_get. */
static NameEntry *nt_get(Parser *P, NameTable *t, const NameRef *r, unsigned scope) {
  if ((t->count + 1) * 2 > t->cap) nt_grow(P, t);
  uint32_t h = name_hash(r->s, r->len, scope);
  size_t mask = t->cap - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    NameEntry *e = &t->slots[i];
    if (e->gen != t->gen) {
      *e = (NameEntry){.name = r->s, .len = r->len, .gen = t->gen, .scope = scope, .hash = h};
      t->count++;
      return e;
    }
    if (e->hash == h && e->len == r->len && e->scope == scope && memcmp(e->name, r->s, r->len) == 0) return e;
  }
}

/* ---- values and blocks ------------------------------------------------------------------------ */

/* The value named r, used with type t: the defined value, or a placeholder until its definition. */
static Value *use_value(Parser *P, const NameRef *r, Type *t) {
  NameEntry *e = nt_get(P, &P->values, r, 0);
  if (!e->ptr) {
    Value *v = P->free_values.n ? P->free_values.v[--P->free_values.n] : ARENA_NEW(&P->m->arena, Value);
    if (!v) oom(P);
    memset(v, 0, sizeof *v);
    v->type = t;
    e->ptr = v;
    e->pending = true;
    e->use = r->loc;
    P->npending_values++;
    return v;
  }
  Value *v = e->ptr;
  if (v->type != t) {
    if (e->pending)
      fail_at(P, r->loc, "type mismatch: '%%%.*s' was used as %s before, but the signature here says %s", (int)r->len,
              r->s, type_str(P, 0, v->type), type_str(P, 1, t));
    fail_at(P, r->loc, "type mismatch: '%%%.*s' is %s, but the signature says %s", (int)r->len, r->s,
            type_str(P, 0, v->type), type_str(P, 1, t));
  }
  return v;
}

static void define_value(Parser *P, const NameRef *r, Value *v) {
  NameEntry *e = nt_get(P, &P->values, r, 0);
  if (!e->ptr) {
    e->ptr = v;
    return;
  }
  if (!e->pending) fail_at(P, r->loc, "redefinition of value '%%%.*s'", (int)r->len, r->s);
  Value *ph = e->ptr;
  if (ph->type != v->type)
    fail_at(P, r->loc, "type mismatch: '%%%.*s' is defined as %s, but was used as %s", (int)r->len, r->s,
            type_str(P, 0, v->type), type_str(P, 1, ph->type));
  e->ptr = v;
  e->pending = false;
  P->npending_values--;
  ir_value_replace_all_uses(ph, v);
  PUSH(P, P->free_values, ph);
}

/* After a top-level op: every forward reference must have been defined. Reports the first in the text. */
static void check_undefined_values(Parser *P) {
  if (!P->npending_values) return;
  NameEntry *first = NULL;
  for (size_t i = 0; i < P->values.cap; i++) {
    NameEntry *e = &P->values.slots[i];
    if (e->gen != P->values.gen || !e->pending) continue;
    if (!first || e->use.line < first->use.line || (e->use.line == first->use.line && e->use.col < first->use.col))
      first = e;
  }
  fail_at(P, first->use, "use of undefined value '%%%.*s'", (int)first->len, first->name);
}

/* The block labelled r in the current region; an unlinked one until its label appears. */
static Block *use_block(Parser *P, const NameRef *r) {
  NameEntry *e = nt_get(P, &P->blocks, r, P->cur_region);
  if (!e->ptr) {
    Block *b = ir_block_new(P->m);
    if (!b) oom(P);
    e->ptr = b;
    PUSH(P, P->pending_blocks, ((PendingBlock){b, *r}));
  }
  return e->ptr;
}

/* Blocks used since `mark` must have been defined (linked into their region). */
static void check_undefined_blocks(Parser *P, size_t mark) {
  for (size_t i = mark; i < P->pending_blocks.n; i++) {
    PendingBlock *pb = &P->pending_blocks.v[i];
    if (!pb->block->region)
      fail_at(P, pb->ref.loc, "use of undefined block '^%.*s'", (int)pb->ref.len, pb->ref.s);
  }
  P->pending_blocks.n = mark;
}

/* ---- attributes ------------------------------------------------------------------------------- */

static Attr parse_attr(Parser *P);

/* number (':' type)? — the cursor is at a digit, '-', "nan" or "inf". Decimal integers and floats, hexadecimal
 * integers (0x2A) and C99 hexadecimal floats (0x1.8p1: hex digits, then a binary exponent), each with an
 * optional '-'. A float literal must be finite in f64, or for a narrower type in f32 (kept rounded to f32). */
static Attr parse_number(Parser *P) {
  SrcLoc loc = here(P);
  const char *s = P->p, *end = P->end;
  const char *p = s;
  bool neg = false, is_float = false, special = false, hex = false;
  double special_value = 0;
  if (*p == '-') neg = true, p++;
  if (end - p >= 3 && memcmp(p, "inf", 3) == 0 && !(end - p > 3 && is_ident_char((unsigned char)p[3]))) {
    special = true, special_value = neg ? -INFINITY : INFINITY, p += 3;
  } else if (!neg && end - p >= 3 && memcmp(p, "nan", 3) == 0 && !(end - p > 3 && is_ident_char((unsigned char)p[3]))) {
    special = true, special_value = NAN, p += 3;
  } else if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    /* 0x1F (an integer) or a C99 hex float 0x1.8p3 (the mantissa's hex digits, a binary exponent) */
    hex = true;
    p += 2;
    const char *digits = p;
    while (p < end && hex_digit((unsigned char)*p) >= 0) p++;
    size_t ndigits = (size_t)(p - digits);
    if (p < end && *p == '.') {
      is_float = true;
      p++;
      while (p < end && hex_digit((unsigned char)*p) >= 0) p++, ndigits++;
    }
    if (!ndigits) fail_at(P, loc, "expected hexadecimal digits after '0x'");
    if (p < end && (*p == 'p' || *p == 'P')) {
      const char *q = p + 1;
      if (q < end && (*q == '+' || *q == '-')) q++;
      if (!(q < end && is_digit((unsigned char)*q))) fail_at(P, loc, "expected an exponent after 'p' in a hexadecimal float");
      is_float = true;
      p = q;
      while (p < end && is_digit((unsigned char)*p)) p++;
    } else if (is_float) {
      fail_at(P, loc, "a hexadecimal float needs a binary exponent ('p'), as in 0x1.8p1");
    }
    if (p < end && is_ident_char((unsigned char)*p)) {
      while (p < end && p - s < 40 && is_ident_char((unsigned char)*p)) p++;
      fail_at(P, loc, "invalid number '%.*s'", (int)(p - s), s);
    }
    if (p - s >= MAX_NUMBER) fail_at(P, loc, "number too long");
  } else {
    if (p == end || !is_digit((unsigned char)*p)) {
      P->p = p;
      fail_at(P, loc, "expected a number after '-', found %s", describe(P));
    }
    while (p < end && is_digit((unsigned char)*p)) p++;
    if (p < end && *p == '.') {
      is_float = true;
      p++;
      while (p < end && is_digit((unsigned char)*p)) p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
      const char *q = p + 1;
      if (q < end && (*q == '+' || *q == '-')) q++;
      if (q < end && is_digit((unsigned char)*q)) {
        is_float = true;
        p = q;
        while (p < end && is_digit((unsigned char)*p)) p++;
      }
    }
    if (p < end && is_ident_char((unsigned char)*p)) {
      while (p < end && p - s < 40 && is_ident_char((unsigned char)*p)) p++;
      fail_at(P, loc, "invalid number '%.*s'", (int)(p - s), s);
    }
    if (p - s >= MAX_NUMBER) fail_at(P, loc, "number too long");
  }
  P->p = p;
  int nlen = (int)(p - s);

  Type *t = NULL;
  SrcLoc tloc = loc;
  if (accept(P, ':')) {
    skip_ws(P);
    tloc = here(P);
    t = parse_type(P);
  }
  if (!t) t = is_float || special ? ty_f64(P->ctx) : ty_i64(P->ctx);

  if (t->kind == TY_FLOAT) {
    double v = special_value;
    if (hex && !is_float)
      fail_at(P, loc, "hexadecimal integer %.*s with float type %s (a hexadecimal float has a 'p' exponent: 0x1p0)",
              nlen, s, type_str(P, 0, t));
    if (!special) {
      char buf[MAX_NUMBER + 1];
      memcpy(buf, s, (size_t)nlen);
      buf[nlen] = 0;
      v = strtod(buf, NULL);
      if (isinf(v) || (t->bits < 64 && isinf((float)v)))
        fail_at(P, loc, "float literal %.*s is out of range for %s", nlen, s, type_str(P, 0, t));
    }
    if (t->bits < 64 && !isnan(v)) v = (float)v;
    return attr_float(t, v);
  }
  if (t->kind != TY_INT && t->kind != TY_BOOL)
    fail_at(P, tloc, "a number needs an integer or float type, not %s", type_str(P, 0, t));
  if (is_float || special) fail_at(P, loc, "float literal %.*s with integer type %s", nlen, s, type_str(P, 0, t));
  uint64_t mag = 0;
  bool overflow = false;
  unsigned base = hex ? 16 : 10;
  for (const char *q = s + neg + (hex ? 2 : 0); q < p; q++) {
    unsigned d = (unsigned)hex_digit((unsigned char)*q);
    if (mag > (UINT64_MAX - d) / base) overflow = true;
    mag = mag * base + d;
  }
  unsigned bits = t->bits;
  bool is_unsigned = t->kind == TY_INT && t->is_unsigned;
  uint64_t max = is_unsigned ? (bits == 64 ? UINT64_MAX : (1ull << bits) - 1)
                 : t->kind == TY_BOOL ? 1
                 : (1ull << (bits - 1)) - 1;
  uint64_t min_mag = is_unsigned || t->kind == TY_BOOL ? 0 : 1ull << (bits - 1); /* largest negative magnitude */
  if (overflow || (neg ? mag > min_mag : mag > max))
    fail_at(P, loc, "integer literal %.*s is out of range for %s", nlen, s, type_str(P, 0, t));
  int64_t v = neg ? (int64_t)(0 - mag) : (int64_t)mag;
  return attr_int(t, v);
}

/* '[' (attr (',' attr)*)? ']' */
static Attr parse_attr_array(Parser *P) {
  enter(P, here(P));
  P->p++;
  size_t mark = P->attrs.n;
  if (!accept(P, ']')) {
    do {
      Attr a = parse_attr(P);
      PUSH(P, P->attrs, a);
    } while (accept(P, ','));
    expect(P, ']');
  }
  unsigned n = (unsigned)(P->attrs.n - mark);
  Attr a = attr_array(P->m, n, n ? P->attrs.v + mark : NULL);
  if (!a.arr.elems) oom(P);
  P->attrs.n = mark;
  P->depth--;
  return a;
}

static Attr parse_attr(Parser *P) {
  int c = peek(P);
  SrcLoc loc = here(P);
  if (c == '"') return (Attr){.kind = ATTR_STR, .s = parse_string(P)};
  if (c == '@') {
    P->p++;
    if (P->p < P->end && *P->p == '"') return (Attr){.kind = ATTR_SYM, .s = parse_string(P)};
    const char *s = P->p;
    while (P->p < P->end && is_ident_char((unsigned char)*P->p)) P->p++;
    if (P->p == s) fail_at(P, loc, "expected a symbol name after '@'");
    if (P->p - s > MAX_NAME) fail_at(P, loc, "name too long (more than %d characters)", MAX_NAME);
    return (Attr){.kind = ATTR_SYM, .s = intern(P, s, (size_t)(P->p - s))};
  }
  if (c == '[') return parse_attr_array(P);
  if (c == '-' || is_digit(c)) return parse_number(P);
  if (accept_word(P, "true")) return attr_bool(true);
  if (accept_word(P, "false")) return attr_bool(false);
  if (c == 'n' || c == 'i') {
    const char *p = P->p;
    size_t avail = (size_t)(P->end - p);
    if (avail >= 3 && (memcmp(p, "nan", 3) == 0 || memcmp(p, "inf", 3) == 0) &&
        !(avail > 3 && is_ident_char((unsigned char)p[3])))
      return parse_number(P);
  }
  if (at_type(P)) return attr_type(parse_type(P));
  fail_at(P, loc, "expected an attribute value, found %s", describe(P));
}

/* '{' (name ('=' attr)? (',' ...)*)? '}' — the '{' is consumed; entries pushed on P->nattrs. */
static void parse_attr_dict(Parser *P, size_t mark) {
  if (accept(P, '}')) return;
  do {
    NameRef r = scan_ident(P, "an attribute name");
    const char *name = intern(P, r.s, r.len);
    for (size_t i = mark; i < P->nattrs.n; i++)
      if (P->nattrs.v[i].name == name) fail_at(P, r.loc, "duplicate attribute '%s'", name);
    Attr a = attr_unit();
    if (accept(P, '=')) a = parse_attr(P);
    PUSH(P, P->nattrs, ((NamedAttr){name, a}));
  } while (accept(P, ','));
  expect(P, '}');
}

/* ---- ops, blocks, regions --------------------------------------------------------------------- */

static Op *parse_op(Parser *P, Block *into);

static unsigned parse_uint(Parser *P, const char *what) {
  skip_ws(P);
  SrcLoc loc = here(P);
  if (P->p >= P->end || !is_digit((unsigned char)*P->p)) fail_at(P, loc, "expected %s, found %s", what, describe(P));
  uint64_t v = 0;
  while (P->p < P->end && is_digit((unsigned char)*P->p)) {
    v = v * 10 + (unsigned)(*P->p++ - '0');
    if (v > UINT_MAX) fail_at(P, loc, "%s out of range", what);
  }
  return (unsigned)v;
}

/* loc := 'loc' '(' string ':' int ':' int ')' | 'loc' '(' 'unknown' ')' — 'loc' consumed. */
static SrcLoc parse_loc(Parser *P) {
  expect(P, '(');
  SrcLoc loc = {0};
  if (!accept_word(P, "unknown")) {
    if (peek(P) != '"') fail_at(P, here(P), "expected a location (\"file\":line:col or unknown), found %s", describe(P));
    loc.file = parse_string(P);
    expect(P, ':');
    loc.line = parse_uint(P, "a line number");
    expect(P, ':');
    loc.col = parse_uint(P, "a column number");
  }
  expect(P, ')');
  return loc;
}

/* label := '^' name ('(' %arg ':' type (',' ...)* ')')? ':' — defines the block and appends it to r. */
static Block *parse_block_label(Parser *P, Region *r) {
  NameRef name = scan_sigil_name(P, '^', "a block label");
  NameEntry *e = nt_get(P, &P->blocks, &name, P->cur_region);
  Block *b = e->ptr;
  if (!b) {
    b = ir_block_new(P->m);
    if (!b) oom(P);
    e->ptr = b;
  } else if (b->region) {
    fail_at(P, name.loc, "redefinition of block '^%.*s'", (int)name.len, name.s);
  }
  ir_region_append_block(r, b);
  if (accept(P, '(')) {
    do {
      NameRef arg = scan_sigil_name(P, '%', "a block argument (%name)");
      expect(P, ':');
      Type *t = parse_type(P);
      define_value(P, &arg, ir_block_add_arg(P->m, b, t));
    } while (accept(P, ','));
    expect(P, ')');
  }
  expect(P, ':');
  return b;
}

/* region := '{' op* (label op*)* '}' — into *out (its blocks' region pointers are fixed by the caller). */
static void parse_region(Parser *P, Region *out) {
  skip_ws(P);
  SrcLoc open = here(P);
  expect(P, '{');
  enter(P, open);
  unsigned saved_region = P->cur_region;
  P->cur_region = ++P->nregions_seen;
  size_t pending_mark = P->pending_blocks.n;
  Region r = {0};
  Block *cur = NULL;
  for (;;) {
    int c = peek(P);
    if (c == '}') {
      P->p++;
      break;
    }
    if (c < 0) {
      SrcLoc at = here(P);
      diag_error(P->diag, at, "expected '}', found end of file");
      diag_note(P->diag, open, "to close this region");
      longjmp(P->fail, 1);
    }
    if (c == '^') {
      cur = parse_block_label(P, &r);
      continue;
    }
    if (!cur) {
      cur = ir_block_new(P->m);
      if (!cur) oom(P);
      ir_region_append_block(&r, cur);
    }
    parse_op(P, cur);
  }
  check_undefined_blocks(P, pending_mark);
  P->cur_region = saved_region;
  P->depth--;
  *out = r;
}

static Op *parse_op(Parser *P, Block *into) {
  skip_ws(P);
  SrcLoc oploc = here(P);
  size_t defs_mark = P->defs.n, refs_mark = P->refs.n, types_mark = P->types.n, vals_mark = P->vals.n;
  size_t regions_mark = P->regions.n, succs_mark = P->succs.n, nattrs_mark = P->nattrs.n;

  /* results */
  if (peek(P) == '%') {
    do {
      NameRef r = scan_sigil_name(P, '%', "a result name (%name)");
      PUSH(P, P->defs, r);
    } while (accept(P, ','));
    expect(P, '=');
  }
  /* name */
  NameRef name = scan_ident(P, "an op");
  int kind = ir_op_lookup(name.s, name.len);
  if (kind < 0) fail_at(P, name.loc, "unknown op '%.*s'", (int)name.len, name.s);
  const char *opname = ir_op_info[kind].name;
  /* operands */
  expect(P, '(');
  if (!accept(P, ')')) {
    do {
      NameRef r = scan_sigil_name(P, '%', "an operand (%name)");
      PUSH(P, P->refs, r);
    } while (accept(P, ','));
    expect(P, ')');
  }
  /* successors */
  if (accept(P, '[')) {
    do {
      NameRef b = scan_sigil_name(P, '^', "a successor block (^name)");
      PUSH(P, P->succs, use_block(P, &b));
      unsigned n = 0;
      if (accept(P, '(')) {
        do {
          NameRef r = scan_sigil_name(P, '%', "a successor operand (%name)");
          PUSH(P, P->refs, r);
          n++;
        } while (accept(P, ','));
        expect(P, ')');
      }
      PUSH(P, P->succ_counts, n);
    } while (accept(P, ','));
    expect(P, ']');
  }
  /* regions */
  if (accept(P, '(')) {
    do {
      Region r;
      parse_region(P, &r);
      PUSH(P, P->regions, r);
    } while (accept(P, ','));
    expect(P, ')');
  }
  /* attributes */
  if (accept(P, '{')) parse_attr_dict(P, nattrs_mark);
  /* signature */
  expect(P, ':');
  size_t nin = parse_type_list(P);
  skip_ws(P);
  if (P->end - P->p < 2 || P->p[0] != '-' || P->p[1] != '>') fail_at(P, here(P), "expected '->', found %s", describe(P));
  P->p += 2;
  size_t nout = parse_type_list(P);
  /* location */
  SrcLoc loc = oploc;
  if (accept_word(P, "loc")) loc = parse_loc(P);

  size_t nrefs = P->refs.n - refs_mark, ndefs = P->defs.n - defs_mark;
  if (nrefs != nin)
    fail_at(P, name.loc, "'%s' has %zu operand%s but its signature lists %zu operand type%s", opname, nrefs,
            plural(nrefs), nin, plural(nin));
  if (ndefs != nout)
    fail_at(P, name.loc, "'%s' has %zu result%s but its signature lists %zu result type%s", opname, ndefs,
            plural(ndefs), nout, plural(nout));
  for (size_t i = 0; i < nin; i++) {
    Value *v = use_value(P, &P->refs.v[refs_mark + i], P->types.v[types_mark + i]);
    PUSH(P, P->vals, v);
  }
  size_t nregions = P->regions.n - regions_mark, nsuccs = P->succs.n - succs_mark;
  if (kind == OP_CONSTANT && nout == 1 && P->types.v[types_mark + nin]->kind == TY_BOOL) {
    /* {value = true} on an i1 constant is {value = 1 : i1}: one form of an i1 constant for every pass */
    for (size_t i = nattrs_mark; i < P->nattrs.n; i++)
      if (P->nattrs.v[i].value.kind == ATTR_BOOL && strcmp(P->nattrs.v[i].name, "value") == 0)
        P->nattrs.v[i].value = attr_int(P->types.v[types_mark + nin], P->nattrs.v[i].value.b);
  }
  Op *op = ir_op_create(P->m, (OpKind)kind, loc, (unsigned)nin, nin ? P->vals.v + vals_mark : NULL, (unsigned)nout,
                        nout ? P->types.v + types_mark + nin : NULL, (unsigned)nregions);
  if (!op) oom(P);
  for (size_t i = 0; i < nregions; i++) {
    Region *r = &op->regions[i];
    *r = P->regions.v[regions_mark + i];
    r->parent = op;
    for (Block *b = r->first; b; b = b->next) b->region = r;
  }
  if (nsuccs) ir_op_set_successors(P->m, op, (unsigned)nsuccs, P->succs.v + succs_mark, P->succ_counts.v + succs_mark);
  size_t nattrs = P->nattrs.n - nattrs_mark;
  if (nattrs) {
    op->attrs = ARENA_ARRAY(&P->m->arena, NamedAttr, nattrs);
    if (!op->attrs) oom(P);
    memcpy(op->attrs, P->nattrs.v + nattrs_mark, sizeof(NamedAttr) * nattrs);
    op->nattrs = (unsigned)nattrs;
  }
  ir_block_append(into, op);
  for (size_t i = 0; i < ndefs; i++) define_value(P, &P->defs.v[defs_mark + i], &op->results[i]);

  P->defs.n = defs_mark;
  P->refs.n = refs_mark;
  P->types.n = types_mark;
  P->vals.n = vals_mark;
  P->regions.n = regions_mark;
  P->succs.n = P->succ_counts.n = succs_mark;
  P->nattrs.n = nattrs_mark;
  return op;
}

/* module := op* */
static void parse_module(Parser *P) {
  Block *body = ir_module_body(P->m);
  while (peek(P) >= 0) {
    nt_clear(&P->values);
    nt_clear(&P->blocks);
    P->npending_values = 0;
    P->cur_region = 0;
    Op *op = parse_op(P, body);
    check_undefined_values(P);
    check_undefined_blocks(P, 0);
    ir_module_add_symbol(P->m, op);
  }
}

static void parser_free(Parser *P) {
  mem_free(P->values.slots);
  mem_free(P->blocks.slots);
  strmap_free(&P->strings);
  sb_free(&P->sbuf);
  sb_free(&P->tybuf[0]);
  sb_free(&P->tybuf[1]);
  mem_free(P->defs.v);
  mem_free(P->refs.v);
  mem_free(P->types.v);
  mem_free(P->vals.v);
  mem_free(P->regions.v);
  mem_free(P->succs.v);
  mem_free(P->succ_counts.v);
  mem_free(P->nattrs.v);
  mem_free(P->attrs.v);
  mem_free(P->pending_blocks.v);
  mem_free(P->free_values.v);
  mem_free(P);
}

Module *ir_parse_module(IrContext *ctx, Diag *diag, const char *filename, const char *text, size_t len) {
  if (!filename) filename = "<input>";
  if (!text) text = "", len = 0;
  Parser *P = mem_calloc(1, sizeof *P);
  Module *m = P ? ir_module_new(ctx, filename) : NULL;
  if (!m) {
    mem_free(P);
    diag_out_of_memory(diag);
    return NULL;
  }
  P->ctx = ctx;
  P->diag = diag;
  P->m = m;
  P->file = filename;
  P->src = P->p = P->line_start = text;
  P->end = text + len;
  P->line = 1;
  P->values.gen = P->blocks.gen = 1;
  strmap_init(&P->strings);
  sb_init(&P->sbuf);
  sb_init(&P->tybuf[0]);
  sb_init(&P->tybuf[1]);
  /* Diagnostics quote the text: the parser's own, and later ones located in it (verifier, passes). */
  diag_add_source(diag, filename, text, len);
  if (setjmp(P->fail)) {
    diag_remove_source(P->diag, P->src); /* the errors are rendered; on failure text need not outlive the call */
    ir_module_free(P->m);
    parser_free(P);
    return NULL;
  }
  parse_module(P);
  parser_free(P);
  return m;
}
