/* records.c — NumPy structured dtypes (Numba's Record types) in the frontend: Numba's spelling of a record,
 *   Record(a[type=float64;offset=0],h[type=nestedarray(float32, (2,));offset=8],r[type=Record(...);offset=16];32;True)
 * (fields in offset order, each with its type and byte offset; the itemsize; whether NumPy laid it out with
 * align=True), read into a kir record type and written back. Signatures, the runtime's record dtypes and kernel
 * signatures all spell records this way, so a record type read from any of them prints back identically.
 * A record's alignment is NumPy's: the largest alignment of its fields when aligned, else 1. NumPy's bytes and str
 * items (S12, U12) are spelled as Numba names them, [char x 12] and [unichr x 12], as fields and on their own (the
 * runtime registers them as it does records: kir's charseq types are records of one field). */
#include <stdio.h>
#include <string.h>

#include "frontend/compile.h"
#include "ir/ir.h"
#include "utils/strbuf.h"

typedef struct RecParser {
  IrContext *ctx;
  const char *s;
  size_t len, pos;
  int depth;
  const char *why;
} RecParser;

static bool rp_fail(RecParser *p, const char *why) {
  if (!p->why) p->why = why;
  return false;
}

static bool rp_lit(RecParser *p, const char *w) {
  while (p->pos < p->len && p->s[p->pos] == ' ') p->pos++;
  size_t n = strlen(w);
  if (p->pos + n > p->len || memcmp(p->s + p->pos, w, n) != 0) return false;
  p->pos += n;
  return true;
}

static bool rp_uint(RecParser *p, unsigned *out) {
  while (p->pos < p->len && p->s[p->pos] == ' ') p->pos++;
  size_t start = p->pos;
  uint64_t v = 0;
  while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9' && v < (1u << 30))
    v = v * 10 + (unsigned)(p->s[p->pos++] - '0');
  *out = (unsigned)v;
  return p->pos > start && v < (1u << 30);
}

static bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The scalar types a field may have, as Numba names them. */
static Type *scalar_named(IrContext *ctx, const char *s, size_t n) {
  static const struct {
    const char *name;
    char kind; /* b i u f c */
    unsigned bits;
  } names[] = {{"bool", 'b', 1},      {"boolean", 'b', 1}, {"int8", 'i', 8},    {"int16", 'i', 16}, {"int32", 'i', 32},
               {"int64", 'i', 64},    {"uint8", 'u', 8},   {"uint16", 'u', 16}, {"uint32", 'u', 32}, {"uint64", 'u', 64},
               {"float16", 'f', 16},  {"float32", 'f', 32}, {"float64", 'f', 64}, {"complex64", 'c', 32},
               {"complex128", 'c', 64}};
  for (unsigned i = 0; i < sizeof names / sizeof *names; i++) {
    if (strlen(names[i].name) != n || memcmp(names[i].name, s, n) != 0) continue;
    if (names[i].kind == 'b') return ty_bool(ctx);
    if (names[i].kind == 'f') return ty_float(ctx, names[i].bits);
    if (names[i].kind == 'c') return ty_complex(ctx, ty_float(ctx, names[i].bits));
    return ty_int(ctx, names[i].bits, names[i].kind == 'u');
  }
  return NULL;
}

static Type *parse_record(RecParser *p);

/* Numba's spelling of a bytes or str item, [char x 12] (CharSeq) or [unichr x 12] (UnicodeCharSeq). */
static Type *parse_charseq(RecParser *p) {
  bool unicode = rp_lit(p, "[unichr x ");
  unsigned count;
  if (!unicode && !rp_lit(p, "[char x ")) {
    rp_fail(p, "expected 'Record(', '[char x N]' or '[unichr x N]'");
    return NULL;
  }
  Type *t = rp_uint(p, &count) && rp_lit(p, "]") ? ty_charseq(p->ctx, unicode, count) : NULL;
  if (!t) rp_fail(p, "bad character count in a bytes or str type");
  return t;
}

/* A field's element type: a scalar name, a bytes or str item, or a Record(...). */
static Type *parse_elem(RecParser *p) {
  while (p->pos < p->len && p->s[p->pos] == ' ') p->pos++;
  size_t start = p->pos;
  if (p->len - p->pos >= 7 && memcmp(p->s + p->pos, "Record(", 7) == 0) return parse_record(p);
  if (p->pos < p->len && p->s[p->pos] == '[') return parse_charseq(p);
  while (p->pos < p->len && ident_char(p->s[p->pos])) p->pos++;
  Type *t = scalar_named(p->ctx, p->s + start, p->pos - start);
  size_t n = p->pos - start;
  /* datetime64[D], timedelta64[s], timedelta64[] (generic); NPDatetime('as'), NPTimedelta('') as kfront.types
   * spells the units that are no Python name */
  bool datetime = (n == 10 && memcmp(p->s + start, "datetime64", 10) == 0) ||
                  (n == 10 && memcmp(p->s + start, "NPDatetime", 10) == 0);
  bool timedelta = (n == 11 && memcmp(p->s + start, "timedelta64", 11) == 0) ||
                   (n == 11 && memcmp(p->s + start, "NPTimedelta", 11) == 0);
  bool called = p->s[start] == 'N';
  if (!t && (datetime || timedelta) && rp_lit(p, called ? "('" : "[")) {
    size_t u = p->pos;
    while (p->pos < p->len && p->s[p->pos] != (called ? '\'' : ']')) p->pos++;
    int code = ty_time_unit_parse(p->s + u, p->pos - u);
    if (code >= 0 && rp_lit(p, called ? "')" : "]")) return ty_time(p->ctx, datetime, (TimeUnit)code);
  }
  if (!t) rp_fail(p, "a record field's type must be bool, an integer, float, complex, datetime64 or timedelta64 type, "
                     "a bytes or str type, a nested array or a record");
  return t;
}

/* name[type=T;offset=N(;alignment=N)?] with T a scalar, a Record(...) or nestedarray(E, (d0, d1, ...)) */
static bool parse_field(RecParser *p, RecordField *f, Type **type, char *name, char *title, size_t cap) {
  while (p->pos < p->len && p->s[p->pos] == ' ') p->pos++;
  size_t start = p->pos;
  while (p->pos < p->len && ident_char(p->s[p->pos])) p->pos++;
  size_t n = p->pos - start;
  if (n == 0 || n >= cap || (p->s[start] >= '0' && p->s[start] <= '9'))
    return rp_fail(p, "record field names must be identifiers (letters, digits, underscores)");
  memcpy(name, p->s + start, n);
  name[n] = 0;
  memset(f, 0, sizeof *f);
  f->name = name;
  if (!rp_lit(p, "[type=")) return rp_fail(p, "expected '[type=' after a record field's name");
  if (rp_lit(p, "nestedarray(")) {
    if (!(*type = parse_elem(p))) return false;
    if (!rp_lit(p, ",") || !rp_lit(p, "(")) return rp_fail(p, "expected the nested array's shape");
    do {
      if (rp_lit(p, ")")) goto shape_done; /* (3,) */
      if (f->ndims >= TY_MAX_FIELD_DIMS) return rp_fail(p, "a nested array has more than 7 dimensions");
      if (!rp_uint(p, &f->dims[f->ndims]) || f->dims[f->ndims] == 0) return rp_fail(p, "bad nested array extent");
      f->ndims++;
    } while (rp_lit(p, ","));
    if (!rp_lit(p, ")")) return rp_fail(p, "expected ')' after the nested array's shape");
  shape_done:
    if (f->ndims == 0) return rp_fail(p, "a nested array needs at least one dimension");
    if (!rp_lit(p, ")")) return rp_fail(p, "expected ')' after nestedarray(...)");
  } else if (!(*type = parse_elem(p))) {
    return false;
  }
  if (!rp_lit(p, ";offset=") || !rp_uint(p, &f->offset)) return rp_fail(p, "expected ';offset=N' in a record field");
  if (rp_lit(p, ";alignment=")) {
    unsigned a;
    if (!rp_uint(p, &a)) return rp_fail(p, "bad field alignment");
  } else if (rp_lit(p, ";title=")) { /* NumPy's title: an identifier here (kernels reach the field by it) */
    size_t ts = p->pos;
    while (p->pos < p->len && ident_char(p->s[p->pos])) p->pos++;
    size_t tn = p->pos - ts;
    if (tn == 0 || tn >= cap || (p->s[ts] >= '0' && p->s[ts] <= '9') || p->pos == p->len || p->s[p->pos] != ']')
      return rp_fail(p, "record field titles must be identifiers (letters, digits, underscores)");
    memcpy(title, p->s + ts, tn);
    title[tn] = 0;
    f->title = title;
  }
  if (!rp_lit(p, "]")) return rp_fail(p, "expected ']' after a record field");
  return true;
}

enum { MAX_FIELDS = 64, MAX_NAME = 64 };

static Type *parse_record(RecParser *p) {
  if (++p->depth > 8) {
    rp_fail(p, "records nested more than 8 deep are not supported");
    return NULL;
  }
  if (!rp_lit(p, "Record(")) {
    rp_fail(p, "expected 'Record('");
    return NULL;
  }
  RecordField fields[MAX_FIELDS];
  Type *types[MAX_FIELDS];
  char names[MAX_FIELDS][MAX_NAME], titles[MAX_FIELDS][MAX_NAME];
  unsigned n = 0, size;
  do {
    if (n == MAX_FIELDS) {
      rp_fail(p, "records of more than 64 fields are not supported");
      return NULL;
    }
    if (!parse_field(p, &fields[n], &types[n], names[n], titles[n], MAX_NAME)) return NULL;
    n++;
  } while (rp_lit(p, ","));
  if (!rp_lit(p, ";") || !rp_uint(p, &size)) {
    rp_fail(p, "expected ';SIZE;ALIGNED)' after a record's fields");
    return NULL;
  }
  bool aligned;
  if (rp_lit(p, ";True")) aligned = true;
  else if (rp_lit(p, ";False")) aligned = false;
  else {
    rp_fail(p, "expected ';True' or ';False' after a record's size");
    return NULL;
  }
  if (!rp_lit(p, ")")) {
    rp_fail(p, "expected ')' at the end of a record");
    return NULL;
  }
  unsigned align = 1;
  if (aligned)
    for (unsigned i = 0; i < n; i++)
      if (ty_align(types[i]) > align) align = ty_align(types[i]);
  for (unsigned i = 0; i < n; i++)
    for (unsigned j = 0; j < i; j++)
      if (strcmp(names[i], names[j]) == 0) {
        rp_fail(p, "a record names a field twice");
        return NULL;
      }
  Type *t = ty_record(p->ctx, n, fields, types, size, align, aligned);
  if (!t) rp_fail(p, "a record field does not fit in the record's size");
  p->depth--;
  return t;
}

Type *fe_record_parse(IrContext *ctx, const char *s, size_t len, size_t *pos, const char **why) {
  RecParser p = {ctx, s, len, pos ? *pos : 0, 0, NULL};
  Type *t = p.pos < len && s[p.pos] == '[' ? parse_charseq(&p) : parse_record(&p);
  if (why) *why = t ? NULL : p.why ? p.why : "malformed record type";
  if (t && pos) *pos = p.pos;
  return t;
}

static void spell_scalar(const Type *t, StrBuf *out) {
  if (ty_is_time(t)) sb_printf(out, "%s[%s]", t->datetime ? "datetime64" : "timedelta64", ty_time_unit_name(ty_time_unit(t)));
  else if (t->kind == TY_BOOL) sb_puts(out, "bool");
  else if (t->kind == TY_INT) sb_printf(out, "%sint%u", t->is_unsigned ? "u" : "", t->bits);
  else if (t->kind == TY_FLOAT) sb_printf(out, "float%u", t->bits);
  else if (t->kind == TY_COMPLEX) sb_printf(out, "complex%u", 2 * t->elem->bits);
  else fe_record_spell(t, out);
}

void fe_record_spell(const Type *t, StrBuf *out) {
  if (t->kind != TY_RECORD) {
    spell_scalar(t, out);
    return;
  }
  if (t->chars) {
    sb_printf(out, "[%s x %u]", t->chars == 4 ? "unichr" : "char", ty_charseq_count(t));
    return;
  }
  sb_puts(out, "Record(");
  for (unsigned i = 0; i < t->n; i++) {
    const RecordField *f = &t->fields[i];
    sb_printf(out, "%s%s[type=", i ? "," : "", f->name);
    if (f->ndims) {
      sb_puts(out, "nestedarray(");
      spell_scalar(t->elems[i], out);
      sb_puts(out, ", (");
      for (unsigned d = 0; d < f->ndims; d++) sb_printf(out, "%s%u", d ? ", " : "", f->dims[d]);
      sb_puts(out, f->ndims == 1 ? ",))" : "))");
    } else {
      spell_scalar(t->elems[i], out);
    }
    sb_printf(out, ";offset=%u", f->offset);
    if (f->title) sb_printf(out, ";title=%s", f->title);
    sb_putc(out, ']');
  }
  sb_printf(out, ";%u;%s)", t->size, t->aligned ? "True" : "False");
}
