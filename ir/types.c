/* types.c — interned kir types: construction, printing and parsing of the type syntax.
 *
 * Types are hash-consed in the IrContext: a structural hash finds the one existing Type equal to the
 * requested one, so type equality everywhere else is pointer equality.
 *
 * The IrContext outlives every guard (mem.h) and is changed under them: its arena and table belong to its
 * own block, and interning allocates first and publishes last (a bigger table, then the new type and its
 * element lists, then the slot), so an allocation failure at any point leaves it consistent. Under a guard
 * the ty_* constructors never fail; elsewhere (the runtime) they return NULL when out of memory, and
 * ty_parse then fails. */
#include "ir.h"

#include <string.h>

#include "ir_internal.h"
#include "utils/mem.h"

static uint64_t type_hash(const Type *t) {
  uint64_t h = hash_mix(t->kind, t->bits);
  h = hash_mix(h, t->is_unsigned);
  h = hash_mix(h, t->bfloat);
  h = hash_mix(h, t->addrspace);
  h = hash_mix(h, t->elem ? t->elem->id : 0);
  h = hash_mix(h, t->rank);
  h = hash_mix(h, (uint64_t)t->layout);
  h = hash_mix(h, t->n);
  h = hash_mix(h, t->vector);
  h = hash_mix(h, t->slice);
  h = hash_mix(h, t->optional);
  if (t->tclass) {
    h = hash_mix(h, hash_bytes(t->tclass, strlen(t->tclass)));
    for (unsigned i = 0; i < t->n; i++) h = hash_mix(h, hash_bytes(t->names[i], strlen(t->names[i])));
  }
  h = hash_mix(h, (uint64_t)t->time << 1 | t->datetime);
  h = hash_mix(h, t->storage);
  for (unsigned i = 0; i < t->n; i++) h = hash_mix(h, t->elems[i]->id);
  h = hash_mix(h, t->nresults);
  for (unsigned i = 0; i < t->nresults; i++) h = hash_mix(h, t->results[i]->id);
  if (t->kind == TY_RECORD) {
    h = hash_mix(h, t->size);
    h = hash_mix(h, t->align);
    h = hash_mix(h, t->aligned);
    h = hash_mix(h, t->chars);
    for (unsigned i = 0; i < t->n; i++) {
      const RecordField *f = &t->fields[i];
      h = hash_mix(h, hash_bytes(f->name, strlen(f->name)));
      h = hash_mix(h, f->title ? hash_bytes(f->title, strlen(f->title)) : 0);
      h = hash_mix(h, f->offset);
      h = hash_mix(h, f->ndims);
      for (unsigned d = 0; d < f->ndims; d++) h = hash_mix(h, f->dims[d]);
    }
  }
  return h;
}

static bool type_equal(const Type *a, const Type *b) {
  if (a->kind != b->kind || a->bits != b->bits || a->is_unsigned != b->is_unsigned || a->bfloat != b->bfloat ||
      a->addrspace != b->addrspace || a->elem != b->elem || a->rank != b->rank || a->layout != b->layout ||
      a->n != b->n || a->vector != b->vector || a->slice != b->slice || a->optional != b->optional || a->nresults != b->nresults || a->time != b->time ||
      a->datetime != b->datetime || a->storage != b->storage)
    return false;
  for (unsigned i = 0; i < a->n; i++)
    if (a->elems[i] != b->elems[i]) return false;
  for (unsigned i = 0; i < a->nresults; i++)
    if (a->results[i] != b->results[i]) return false;
  if (!a->tclass != !b->tclass || (a->tclass && strcmp(a->tclass, b->tclass) != 0)) return false;
  for (unsigned i = 0; a->tclass && i < a->n; i++)
    if (strcmp(a->names[i], b->names[i]) != 0) return false;
  if (a->kind == TY_RECORD) {
    if (a->size != b->size || a->align != b->align || a->aligned != b->aligned || a->chars != b->chars) return false;
    for (unsigned i = 0; i < a->n; i++) {
      const RecordField *f = &a->fields[i], *g = &b->fields[i];
      if (strcmp(f->name, g->name) != 0 || f->offset != g->offset || f->ndims != g->ndims) return false;
      if (!f->title != !g->title || (f->title && strcmp(f->title, g->title) != 0)) return false;
      for (unsigned d = 0; d < f->ndims; d++)
        if (f->dims[d] != g->dims[d]) return false;
    }
  }
  return true;
}

IrContext *ir_context_new(void) {
  IrContext *ctx = mem_calloc(1, sizeof *ctx);
  if (!ctx) return NULL;
  arena_init_owned(&ctx->arena, ctx);
  return ctx;
}

void ir_context_free(IrContext *ctx) {
  if (!ctx) return;
  mem_free(ctx->types);
  arena_free(&ctx->arena);
  mem_free(ctx);
}

static Type *intern(IrContext *ctx, const Type *key) {
  for (unsigned i = 0; i < key->n; i++)
    if (!key->elems[i]) return NULL;  /* an element type that could not be made */
  for (unsigned i = 0; i < key->nresults; i++)
    if (!key->results[i]) return NULL;
  if ((key->kind == TY_PTR || key->kind == TY_ARRAY || key->kind == TY_COMPLEX) && !key->elem) return NULL;
  if ((ctx->ntypes + 1) * 2 > ctx->types_cap) {
    size_t cap = ctx->types_cap ? ctx->types_cap * 2 : 64;
    Type **slots = mem_calloc_like(ctx->types ? (const void *)ctx->types : ctx, cap, sizeof *slots);
    if (!slots) return NULL;
    for (size_t i = 0; i < ctx->types_cap; i++) {
      Type *t = ctx->types[i];
      if (!t) continue;
      size_t j = type_hash(t) & (cap - 1);
      while (slots[j]) j = (j + 1) & (cap - 1);
      slots[j] = t;
    }
    mem_free(ctx->types);
    ctx->types = slots;
    ctx->types_cap = cap;
  }
  size_t mask = ctx->types_cap - 1;
  size_t j = type_hash(key) & mask;
  for (; ctx->types[j]; j = (j + 1) & mask)
    if (type_equal(ctx->types[j], key)) return ctx->types[j];
  Type *t = ARENA_NEW(&ctx->arena, Type);
  if (!t) return NULL;
  *t = *key;
  if (key->n) {
    t->elems = ARENA_ARRAY(&ctx->arena, Type *, key->n);
    if (!t->elems) return NULL;
    memcpy(t->elems, key->elems, sizeof(Type *) * key->n);
  }
  if (key->nresults) {
    t->results = ARENA_ARRAY(&ctx->arena, Type *, key->nresults);
    if (!t->results) return NULL;
    memcpy(t->results, key->results, sizeof(Type *) * key->nresults);
  }
  if (key->tclass) {
    char *cls = arena_alloc(&ctx->arena, strlen(key->tclass) + 1);
    t->names = key->n ? ARENA_ARRAY(&ctx->arena, const char *, key->n) : NULL;
    if (!cls || (key->n && !t->names)) return NULL;
    t->tclass = strcpy(cls, key->tclass);
    for (unsigned i = 0; i < key->n; i++) {
      char *name = arena_alloc(&ctx->arena, strlen(key->names[i]) + 1);
      if (!name) return NULL;
      t->names[i] = strcpy(name, key->names[i]);
    }
  }
  if (key->kind == TY_RECORD) {
    t->fields = ARENA_ARRAY(&ctx->arena, RecordField, key->n);
    if (!t->fields) return NULL;
    for (unsigned i = 0; i < key->n; i++) {
      t->fields[i] = key->fields[i];
      size_t len = strlen(key->fields[i].name);
      char *name = arena_alloc(&ctx->arena, len + 1);
      if (!name) return NULL;
      memcpy(name, key->fields[i].name, len + 1);
      t->fields[i].name = name;
      if (key->fields[i].title) {
        size_t tlen = strlen(key->fields[i].title);
        char *title = arena_alloc(&ctx->arena, tlen + 1);
        if (!title) return NULL;
        memcpy(title, key->fields[i].title, tlen + 1);
        t->fields[i].title = title;
      }
    }
  }
  t->id = (unsigned)++ctx->ntypes;  /* published: everything above is in place */
  ctx->types[j] = t;
  return t;
}

Type *ty_bool(IrContext *ctx) {
  Type k = {.kind = TY_BOOL, .bits = 1};
  return intern(ctx, &k);
}

Type *ty_int(IrContext *ctx, unsigned bits, bool is_unsigned) {
  Type k = {.kind = TY_INT, .bits = bits, .is_unsigned = is_unsigned};
  return intern(ctx, &k);
}

static const char *const time_unit_names[TU_COUNT] = {"Y", "M", "W", NULL, "D", "h", "m", "s",
                                                       "ms", "us", "ns", "ps", "fs", "as", ""};

const char *ty_time_unit_name(unsigned u) { return u < TU_COUNT ? time_unit_names[u] : NULL; }

int ty_time_unit_parse(const char *name, size_t len) {
  for (unsigned u = 0; u < TU_COUNT; u++)
    if (time_unit_names[u] && strlen(time_unit_names[u]) == len && memcmp(time_unit_names[u], name, len) == 0)
      return (int)u;
  return -1;
}

Type *ty_time(IrContext *ctx, bool datetime, TimeUnit u) {
  if ((unsigned)u >= TU_COUNT || !time_unit_names[u]) return NULL;
  Type k = {.kind = TY_INT, .bits = 64, .time = (unsigned char)(u + 1), .datetime = datetime};
  return intern(ctx, &k);
}

static const char *const fp8_format_names[] = {[TS_E4M3] = "e4m3", [TS_E5M2] = "e5m2", [TS_E8M0] = "e8m0"};

const char *ty_fp8_format_name(TyStorage s) { return s >= TS_E4M3 && s <= TS_E8M0 ? fp8_format_names[s] : NULL; }

TyStorage ty_fp8_format_parse(const char *name, size_t len) {
  for (unsigned s = TS_E4M3; s <= TS_E8M0; s++)
    if (len == 4 && memcmp(name, fp8_format_names[s], 4) == 0) return (TyStorage)s;
  return TS_NONE;
}

Type *ty_storage(IrContext *ctx, TyStorage s, unsigned count) {
  if (s == TS_BF16RAW ? count != 1 : !(s >= TS_E4M3 && s <= TS_E8M0 && (count == 1 || count == 2 || count == 4)))
    return NULL;
  Type k = {.kind = TY_INT, .bits = s == TS_BF16RAW ? 16 : 8 * count, .is_unsigned = true, .storage = (unsigned char)s};
  return intern(ctx, &k);
}

Type *ty_float(IrContext *ctx, unsigned bits) {
  Type k = {.kind = TY_FLOAT, .bits = bits};
  return intern(ctx, &k);
}

Type *ty_complex(IrContext *ctx, Type *elem) {
  Type k = {.kind = TY_COMPLEX, .elem = elem};
  return intern(ctx, &k);
}

Type *ty_bf16(IrContext *ctx) {
  Type k = {.kind = TY_FLOAT, .bits = 16, .bfloat = true};
  return intern(ctx, &k);
}

Type *ty_ptr(IrContext *ctx, Type *elem, unsigned addrspace) {
  Type k = {.kind = TY_PTR, .elem = elem, .addrspace = addrspace};
  return intern(ctx, &k);
}

Type *ty_array(IrContext *ctx, Type *elem, unsigned rank, char layout) {
  Type k = {.kind = TY_ARRAY, .elem = elem, .rank = rank, .layout = layout};
  return intern(ctx, &k);
}

Type *ty_tuple(IrContext *ctx, unsigned n, Type *const *elems) {
  Type k = {.kind = TY_TUPLE, .n = n, .elems = (Type **)elems};
  return intern(ctx, &k);
}

Type *ty_named_tuple(IrContext *ctx, const char *tclass, const char *const *names, unsigned n, Type *const *elems) {
  if (!tclass) return NULL;
  for (unsigned i = 0; i < n; i++)
    if (!names[i]) return NULL;
  Type k = {.kind = TY_TUPLE, .n = n, .elems = (Type **)elems, .tclass = tclass, .names = (const char **)names};
  return intern(ctx, &k);
}

int ty_tuple_field(const Type *t, const char *name, size_t len) {
  if (t->kind != TY_TUPLE || !t->tclass) return -1;
  for (unsigned i = 0; i < t->n; i++)
    if (strlen(t->names[i]) == len && memcmp(t->names[i], name, len) == 0) return (int)i;
  return -1;
}

Type *ty_vector(IrContext *ctx, Type *elem, unsigned n) {
  Type *elems[4] = {elem, elem, elem, elem};
  if (n < 1 || n > 4) return NULL;
  Type k = {.kind = TY_TUPLE, .n = n, .elems = elems, .vector = true};
  return intern(ctx, &k);
}

Type *ty_slice(IrContext *ctx, bool has_step) {
  Type *i64 = ty_int(ctx, 64, false);
  Type *elems[3] = {i64, i64, i64};
  Type k = {.kind = TY_TUPLE, .n = 3, .elems = elems, .slice = has_step ? 3 : 2};
  return intern(ctx, &k);
}

Type *ty_optional(IrContext *ctx, Type *t) {
  Type *elems[2] = {t, ty_bool(ctx)};
  Type k = {.kind = TY_TUPLE, .n = 2, .elems = elems, .optional = true};
  return intern(ctx, &k);
}

Type *ty_func(IrContext *ctx, unsigned nparams, Type *const *params, unsigned nresults, Type *const *results) {
  Type k = {.kind = TY_FUNC, .n = nparams, .elems = (Type **)params, .nresults = nresults, .results = (Type **)results};
  return intern(ctx, &k);
}

unsigned ty_size(const Type *t) {
  switch (t->kind) {
  case TY_BOOL: return 1;
  case TY_INT:
  case TY_FLOAT: return t->bits / 8;
  case TY_PTR: return 8;
  case TY_RECORD: return t->size;
  case TY_COMPLEX: return 2 * t->elem->bits / 8;
  default: return 0;
  }
}

/* A complex is aligned as its parts are (NumPy's and the LLVM ABI's alignment of complex128 is 8). */
unsigned ty_align(const Type *t) {
  return t->kind == TY_RECORD ? t->align : t->kind == TY_COMPLEX ? ty_size(t->elem) : ty_size(t);
}

unsigned ty_field_align(const Type *rec, unsigned k, unsigned base) {
  unsigned align = base ? base : rec->align;
  while (align > 1 && (rec->fields[k].offset % align || rec->size % align)) align /= 2;
  return align ? align : 1;
}

/* ---- records ---------------------------------------------------------------------------------- */

unsigned ty_field_count(const RecordField *f) {
  unsigned n = 1;
  for (unsigned d = 0; d < f->ndims; d++) n *= f->dims[d];
  return n;
}

static bool valid_field_name(const char *s) {
  if (!s || !*s) return false;
  for (const char *c = s; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_' || (c != s && *c >= '0' && *c <= '9')))
      return false;
  return true;
}

Type *ty_record(IrContext *ctx, unsigned n, const RecordField *fields, Type *const *types, unsigned size,
                unsigned align, bool aligned) {
  if (n == 0 || size == 0 || align == 0 || (align & (align - 1)) || align > 256) return NULL;
  for (unsigned i = 0; i < n; i++) {
    const RecordField *f = &fields[i];
    if (!types[i] || !ty_is_element(types[i]) || !valid_field_name(f->name) || f->ndims > TY_MAX_FIELD_DIMS ||
        (f->title && !valid_field_name(f->title)))
      return NULL;
    uint64_t count = 1;
    for (unsigned d = 0; d < f->ndims; d++) {
      if (f->dims[d] == 0 || f->dims[d] > (1u << 20)) return NULL;
      count *= f->dims[d];
    }
    if ((uint64_t)f->offset + count * ty_size(types[i]) > size) return NULL;
    for (unsigned j = 0; j < i; j++)
      if (strcmp(fields[j].name, f->name) == 0) return NULL;
  }
  Type k = {.kind = TY_RECORD, .n = n, .elems = (Type **)types, .fields = (RecordField *)fields, .size = size,
            .align = align, .aligned = aligned};
  return intern(ctx, &k);
}

Type *ty_charseq(IrContext *ctx, bool unicode, unsigned count) {
  if (count == 0 || count > (1u << 20)) return NULL;
  unsigned width = unicode ? 4 : 1;
  RecordField f = {.name = "chars", .offset = 0, .ndims = 1, .dims = {count}};
  Type *chars = ty_int(ctx, 8 * width, true);
  Type k = {.kind = TY_RECORD, .n = 1, .elems = &chars, .fields = &f, .size = count * width, .align = width,
            .chars = (unsigned char)width};
  return intern(ctx, &k);
}

int ty_record_field(const Type *rec, const char *name, size_t len) {
  if (rec->kind != TY_RECORD) return -1;
  for (unsigned i = 0; i < rec->n; i++)
    if (strlen(rec->fields[i].name) == len && memcmp(rec->fields[i].name, name, len) == 0) return (int)i;
  return -1;
}

static void print_list(Type *const *ts, unsigned n, StrBuf *out) {
  for (unsigned i = 0; i < n; i++) {
    if (i) sb_puts(out, ", ");
    ty_print(ts[i], out);
  }
}

void ty_print(const Type *t, StrBuf *out) {
  switch (t->kind) {
  case TY_BOOL: sb_puts(out, "i1"); break;
  case TY_INT:
    if (t->time) sb_printf(out, "%s<%s>", t->datetime ? "datetime64" : "timedelta64", time_unit_names[t->time - 1]);
    else if (t->storage == TS_BF16RAW) sb_puts(out, "bf16raw");
    else if (t->storage) sb_printf(out, "fp8%s<%s>", t->bits == 8 ? "" : t->bits == 16 ? "x2" : "x4", fp8_format_names[t->storage]);
    else sb_printf(out, "%c%u", t->is_unsigned ? 'u' : 'i', t->bits);
    break;
  case TY_FLOAT: sb_printf(out, "%sf%u", t->bfloat ? "b" : "", t->bits); break;
  case TY_COMPLEX:
    sb_puts(out, "complex<");
    ty_print(t->elem, out);
    sb_putc(out, '>');
    break;
  case TY_PTR:
    sb_puts(out, "ptr<");
    ty_print(t->elem, out);
    sb_printf(out, ", %u>", t->addrspace);
    break;
  case TY_ARRAY:
    sb_puts(out, "array<");
    ty_print(t->elem, out);
    sb_printf(out, ", %u, %c>", t->rank, t->layout);
    break;
  case TY_TUPLE:
    if (t->vector) {
      sb_puts(out, "vector<");
      ty_print(t->elems[0], out);
      sb_printf(out, ", %u>", t->n);
      break;
    }
    if (t->slice) {
      sb_printf(out, "slice%u", t->slice);
      break;
    }
    if (t->optional) {
      sb_puts(out, "optional<");
      ty_print(t->elems[0], out);
      sb_putc(out, '>');
      break;
    }
    if (t->tclass) {
      sb_printf(out, "namedtuple<\"%s\"", t->tclass);
      for (unsigned i = 0; i < t->n; i++) {
        sb_printf(out, ", %s: ", t->names[i]);
        ty_print(t->elems[i], out);
      }
      sb_putc(out, '>');
      break;
    }
    sb_puts(out, "tuple<");
    print_list(t->elems, t->n, out);
    sb_putc(out, '>');
    break;
  case TY_FUNC:
    sb_putc(out, '(');
    print_list(t->elems, t->n, out);
    sb_puts(out, ") -> (");
    print_list(t->results, t->nresults, out);
    sb_putc(out, ')');
    break;
  case TY_RECORD:
    if (t->chars) {
      sb_printf(out, "%scharseq<%u>", t->chars == 4 ? "uni" : "", ty_charseq_count(t));
      break;
    }
    sb_puts(out, "record<");
    for (unsigned i = 0; i < t->n; i++) {
      const RecordField *f = &t->fields[i];
      sb_printf(out, "%s%s: ", i ? ", " : "", f->name);
      ty_print(t->elems[i], out);
      if (f->ndims) {
        sb_putc(out, '[');
        for (unsigned d = 0; d < f->ndims; d++) sb_printf(out, "%s%u", d ? ", " : "", f->dims[d]);
        sb_putc(out, ']');
      }
      sb_printf(out, " @%u", f->offset);
      if (f->title) sb_printf(out, " title %s", f->title);
    }
    sb_printf(out, "; size %u, align %u%s>", t->size, t->align, t->aligned ? ", aligned" : "");
    break;
  }
}

/* ---- parsing ---------------------------------------------------------------------------------- */

typedef struct {
  IrContext *ctx;
  const char *s;
  size_t len, pos;
  int depth;
} TyParser;

static void skip_ws(TyParser *p) {
  while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t')) p->pos++;
}

static bool eat(TyParser *p, char c) {
  skip_ws(p);
  if (p->pos < p->len && p->s[p->pos] == c) {
    p->pos++;
    return true;
  }
  return false;
}

static bool eat_word(TyParser *p, const char *w) {
  size_t n = strlen(w);
  if (p->pos + n <= p->len && memcmp(p->s + p->pos, w, n) == 0) {
    char c = p->pos + n < p->len ? p->s[p->pos + n] : 0;
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') return false;
    p->pos += n;
    return true;
  }
  return false;
}

static bool parse_uint(TyParser *p, unsigned *out) {
  skip_ws(p);
  size_t start = p->pos;
  unsigned v = 0;
  while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9' && v < 100000)
    v = v * 10 + (unsigned)(p->s[p->pos++] - '0');
  *out = v;
  return p->pos > start;
}

static Type *parse_type(TyParser *p);

/* list := type (',' type)*  — until `close` */
static bool parse_type_list(TyParser *p, char close, Type **buf, unsigned cap, unsigned *n) {
  *n = 0;
  if (eat(p, close)) return true;
  for (;;) {
    Type *t = parse_type(p);
    if (!t || *n >= cap) return false;
    buf[(*n)++] = t;
    if (eat(p, close)) return true;
    if (!eat(p, ',')) return false;
  }
}

enum { MAX_TYPE_LIST = 64 };

/* record<name: type[dims] @offset, ...; size N, align A[, aligned]> (after `record`) */
static Type *parse_record(TyParser *p) {
  RecordField fields[MAX_TYPE_LIST];
  Type *types[MAX_TYPE_LIST];
  char names[MAX_TYPE_LIST][64], titles[MAX_TYPE_LIST][64];
  unsigned n = 0, size, align;
  if (!eat(p, '<')) return NULL;
  do {
    if (n >= MAX_TYPE_LIST) return NULL;
    skip_ws(p);
    size_t start = p->pos;
    while (p->pos < p->len && p->pos - start < 63 &&
           ((p->s[p->pos] >= 'a' && p->s[p->pos] <= 'z') || (p->s[p->pos] >= 'A' && p->s[p->pos] <= 'Z') ||
            (p->s[p->pos] >= '0' && p->s[p->pos] <= '9') || p->s[p->pos] == '_'))
      p->pos++;
    size_t end = p->pos;
    if (end == start || !eat(p, ':')) return NULL;
    memcpy(names[n], p->s + start, end - start);
    names[n][end - start] = 0;
    RecordField *f = &fields[n];
    memset(f, 0, sizeof *f);
    f->name = names[n];
    if (!(types[n] = parse_type(p)) || !ty_is_element(types[n])) return NULL;
    if (eat(p, '[')) {
      do {
        if (f->ndims >= TY_MAX_FIELD_DIMS || !parse_uint(p, &f->dims[f->ndims])) return NULL;
        f->ndims++;
      } while (eat(p, ','));
      if (!eat(p, ']')) return NULL;
    }
    if (!eat(p, '@') || !parse_uint(p, &f->offset)) return NULL;
    skip_ws(p);
    if (eat_word(p, "title")) { /* x: i32 @0 title t */
      skip_ws(p);
      size_t ts = p->pos;
      while (p->pos < p->len && p->pos - ts < 63 &&
             ((p->s[p->pos] >= 'a' && p->s[p->pos] <= 'z') || (p->s[p->pos] >= 'A' && p->s[p->pos] <= 'Z') ||
              (p->s[p->pos] >= '0' && p->s[p->pos] <= '9') || p->s[p->pos] == '_'))
        p->pos++;
      if (p->pos == ts) return NULL;
      memcpy(titles[n], p->s + ts, p->pos - ts);
      titles[n][p->pos - ts] = 0;
      f->title = titles[n];
    }
    n++;
  } while (eat(p, ','));
  if (!eat(p, ';')) return NULL;
  skip_ws(p);
  if (!eat_word(p, "size") || !parse_uint(p, &size) || !eat(p, ',')) return NULL;
  skip_ws(p);
  if (!eat_word(p, "align") || !parse_uint(p, &align)) return NULL;
  bool aligned = false;
  if (eat(p, ',')) {
    skip_ws(p);
    if (!eat_word(p, "aligned")) return NULL;
    aligned = true;
  }
  if (!eat(p, '>')) return NULL;
  return ty_record(p->ctx, n, fields, types, size, align, aligned);
}

/* namedtuple<"mod.Point", x: type, ...> (after `namedtuple`) */
static Type *parse_named_tuple(TyParser *p) {
  Type *types[MAX_TYPE_LIST];
  char names[MAX_TYPE_LIST][64];
  const char *fields[MAX_TYPE_LIST];
  char cls[256];
  unsigned n = 0;
  if (!eat(p, '<') || !eat(p, '"')) return NULL;
  size_t start = p->pos;
  while (p->pos < p->len && p->s[p->pos] != '"') p->pos++;
  if (p->pos >= p->len || p->pos == start || p->pos - start >= sizeof cls) return NULL;
  memcpy(cls, p->s + start, p->pos - start);
  cls[p->pos - start] = 0;
  p->pos++;
  while (eat(p, ',')) {
    if (n >= MAX_TYPE_LIST) return NULL;
    skip_ws(p);
    size_t fs = p->pos;
    while (p->pos < p->len && p->pos - fs < 63 &&
           ((p->s[p->pos] >= 'a' && p->s[p->pos] <= 'z') || (p->s[p->pos] >= 'A' && p->s[p->pos] <= 'Z') ||
            (p->s[p->pos] >= '0' && p->s[p->pos] <= '9') || p->s[p->pos] == '_'))
      p->pos++;
    size_t fe = p->pos;
    if (fe == fs || !eat(p, ':')) return NULL;
    memcpy(names[n], p->s + fs, fe - fs);
    names[n][fe - fs] = 0;
    fields[n] = names[n];
    if (!(types[n] = parse_type(p))) return NULL;
    n++;
  }
  if (!eat(p, '>')) return NULL;
  return ty_named_tuple(p->ctx, cls, fields, n, types);
}

static Type *parse_type(TyParser *p) {
  skip_ws(p);
  if (p->pos >= p->len || ++p->depth > 64) return NULL;
  Type *result = NULL;
  bool is_datetime;
  const char *s = p->s + p->pos;
  char c = *s;
  if ((c == 'i' || c == 'u' || c == 'f') && p->pos + 1 < p->len && s[1] >= '0' && s[1] <= '9') {
    p->pos++;
    unsigned bits;
    parse_uint(p, &bits);
    if (c == 'i' && bits == 1) result = ty_bool(p->ctx);
    else if (c != 'f' && (bits == 8 || bits == 16 || bits == 32 || bits == 64)) result = ty_int(p->ctx, bits, c == 'u');
    else if (c == 'f' && (bits == 16 || bits == 32 || bits == 64)) result = ty_float(p->ctx, bits);
  } else if ((is_datetime = eat_word(p, "datetime64")) || eat_word(p, "timedelta64")) { /* datetime64<D> */
    if (eat(p, '<')) {
      size_t start = p->pos;
      while (p->pos < p->len && p->s[p->pos] != '>' && p->pos - start < 2) p->pos++;
      int u = ty_time_unit_parse(p->s + start, p->pos - start);
      if (u >= 0 && eat(p, '>')) result = ty_time(p->ctx, is_datetime, (TimeUnit)u);
    }
  } else if (eat_word(p, "bf16raw")) {
    result = ty_storage(p->ctx, TS_BF16RAW, 1);
  } else if (eat_word(p, "bf16")) {
    result = ty_bf16(p->ctx);
  } else if (eat_word(p, "fp8") || eat_word(p, "fp8x2") || eat_word(p, "fp8x4")) { /* fp8<e4m3>, fp8x2<e5m2> */
    unsigned count = p->s[p->pos - 1] == '2' ? 2 : p->s[p->pos - 1] == '4' ? 4 : 1;
    if (eat(p, '<') && p->pos + 4 <= p->len) {
      TyStorage f = ty_fp8_format_parse(p->s + p->pos, 4);
      p->pos += 4;
      if (f != TS_NONE && eat(p, '>')) result = ty_storage(p->ctx, f, count);
    }
  } else if (eat_word(p, "ptr")) {
    unsigned as;
    Type *elem;
    if (eat(p, '<') && (elem = parse_type(p)) && eat(p, ',') && parse_uint(p, &as) && eat(p, '>'))
      result = ty_ptr(p->ctx, elem, as);
  } else if (eat_word(p, "complex")) {
    Type *elem;
    if (eat(p, '<') && (elem = parse_type(p)) && elem->kind == TY_FLOAT && elem->bits >= 32 && eat(p, '>'))
      result = ty_complex(p->ctx, elem);
  } else if (eat_word(p, "array")) {
    unsigned rank;
    Type *elem;
    if (eat(p, '<') && (elem = parse_type(p)) && ty_is_element(elem) && eat(p, ',') && parse_uint(p, &rank) &&
        rank <= 8 && eat(p, ',')) {
      skip_ws(p);
      char l = p->pos < p->len ? p->s[p->pos] : 0;
      if ((l == 'C' || l == 'F' || l == 'A')) {
        p->pos++;
        if (eat(p, '>')) result = ty_array(p->ctx, elem, rank, l);
      }
    }
  } else if (eat_word(p, "record")) {
    result = parse_record(p);
  } else if (eat_word(p, "charseq") || eat_word(p, "unicharseq")) { /* charseq<12> */
    bool unicode = p->s[p->pos - 8] == 'i';
    unsigned count;
    if (eat(p, '<') && parse_uint(p, &count) && eat(p, '>')) result = ty_charseq(p->ctx, unicode, count);
  } else if (eat_word(p, "vector")) {
    unsigned n;
    Type *elem;
    if (eat(p, '<') && (elem = parse_type(p)) && ty_is_scalar(elem) && eat(p, ',') && parse_uint(p, &n) && n >= 1 &&
        n <= 4 && eat(p, '>'))
      result = ty_vector(p->ctx, elem, n);
  } else if (eat_word(p, "optional")) {
    Type *elem;
    if (eat(p, '<') && (elem = parse_type(p)) && !ty_is_optional(elem) && eat(p, '>')) result = ty_optional(p->ctx, elem);
  } else if (eat_word(p, "slice2") || eat_word(p, "slice3")) {
    result = ty_slice(p->ctx, p->s[p->pos - 1] == '3');
  } else if (eat_word(p, "namedtuple")) {
    result = parse_named_tuple(p);
  } else if (eat_word(p, "tuple")) {
    Type *buf[MAX_TYPE_LIST];
    unsigned n;
    if (eat(p, '<') && parse_type_list(p, '>', buf, MAX_TYPE_LIST, &n)) result = ty_tuple(p->ctx, n, buf);
  } else if (c == '(') {
    p->pos++;
    Type *params[MAX_TYPE_LIST], *results[MAX_TYPE_LIST];
    unsigned np, nr;
    if (parse_type_list(p, ')', params, MAX_TYPE_LIST, &np)) {
      skip_ws(p);
      if (p->pos + 1 < p->len && p->s[p->pos] == '-' && p->s[p->pos + 1] == '>') {
        p->pos += 2;
        if (eat(p, '(') && parse_type_list(p, ')', results, MAX_TYPE_LIST, &nr))
          result = ty_func(p->ctx, np, params, nr, results);
      }
    }
  }
  p->depth--;
  return result;
}

Type *ty_parse(IrContext *ctx, const char *text, size_t len, size_t *pos) {
  TyParser p = {ctx, text, len, *pos, 0};
  Type *t = parse_type(&p);
  if (t) *pos = p.pos;
  return t;
}
