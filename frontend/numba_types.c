/* numba_types.c — Numba's scalar typing machinery and its type syntax.
 *
 * Numba types a call by rating each signature of a case list against the argument types: every argument
 * conversion is exact, promote, safe or unsafe (numba/cuda/typeconv/rules.py and the cast graph built
 * from it, tabled below), a case's rating is (unsafe, safe, promote) counts, and the first case of the
 * best rating wins (typing/context.py resolve_overload). Unification (the type of a variable assigned
 * different types on different paths) follows numba's unify_types, i.e. NumPy's promotion for numbers.
 * test/frontend/numba_scalar_typing.py checks these tables against an installed numba.
 *
 * The type syntax is the one of signatures: `void(float32[:], int64)`, `float32[:, ::1]` (C layout),
 * `float32[::1, :]` (F), `float32[:]` (A), `UniTuple(int64, 2)`, `Tuple((int64, float32))`, a named tuple
 * `NamedTuple("mod.Point", ("x", "y"), (int64, float64))`, and a tuple of argument types
 * `(float32[:, :], float32[:, :])` as @guvectorize takes it; Numba's constructor `Array(float32, 1, 'C')`, with
 * `readonly=True` for a readonly argument (FeSig.readonly); pointers `CPointer(int32)` / `int32*` (to numbers only:
 * others, and numba's `voidptr`, are errors of kind UNSUPPORTED), `NPDatetime('D')` / `datetime64[D]`,
 * `CharSeq(12)` / `[char x 12]` and `UnicodeCharSeq(12)` / `[unichr x 12]`, `Record(...)`, `optional(int64)`,
 * enum members. This is the one reader of the syntax: the Python module asks it (kf_signature_parse,
 * type_tree.c) rather than parsing signatures itself. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/fe.h"
#include "frontend/parser.h"

/* ---- kinds ------------------------------------------------------------------------------------------- */

int nb_kind(const Type *t) {
  if (!t) return -1;
  switch (t->kind) {
  case TY_BOOL: return NB_BOOL;
  case TY_INT: {
    if (t->time) return -1; /* datetime64/timedelta64: typed by lower_datetime.c, converted by no cast rule */
    if (t->storage) return -1; /* FP8 and bfloat16-raw storage: lower_fp8.c's */
    int w = t->bits == 8 ? 0 : t->bits == 16 ? 1 : t->bits == 32 ? 2 : 3;
    return (t->is_unsigned ? NB_U8 : NB_I8) + w;
  }
  case TY_FLOAT: return t->bfloat ? NB_BF16 : t->bits == 16 ? NB_F16 : t->bits == 32 ? NB_F32 : NB_F64;
  case TY_COMPLEX: return t->elem->bits == 32 ? NB_C64 : NB_C128;
  default: return -1;
  }
}

Type *nb_type(IrContext *ctx, int k) {
  switch (k) {
  case NB_BOOL: return ty_bool(ctx);
  case NB_I8: case NB_I16: case NB_I32: case NB_I64: return ty_int(ctx, 8u << (k - NB_I8), false);
  case NB_U8: case NB_U16: case NB_U32: case NB_U64: return ty_int(ctx, 8u << (k - NB_U8), true);
  case NB_F16: return ty_float(ctx, 16);
  case NB_F32: return ty_float(ctx, 32);
  case NB_F64: return ty_float(ctx, 64);
  case NB_C64: return ty_complex(ctx, ty_float(ctx, 32));
  case NB_C128: return ty_complex(ctx, ty_float(ctx, 64));
  case NB_BF16: return ty_bf16(ctx);
  default: return NULL;
  }
}

/* can_convert(row -> column): E exact, P promote, S safe, U unsafe, N none (numba's default type manager: a
 * complex converts to no real type; float32 -> complex64 and float64 -> complex128 are safe, complex64 ->
 * complex128 a promotion, the rest by the paths through them). bfloat16 is numba-cuda's types.bfloat16
 * (ext_types.Bfloat16): from any float unsafe, from 8-bit integers safe, from other integers unsafe; to float32
 * and float64 safe, to float16 and integers unsafe; bool and complex neither. */
static const char conv_table[NB_NKINDS][NB_NKINDS + 1] = {
    /*          b  i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128 bf16 */
    /* bool */ "ESSSSSSSSSSSSSN",
    /* i8   */ "UEPPPUUUUSSSSSS",
    /* i16  */ "UUEPPUUUUUSSSSU",
    /* i32  */ "UUUEPUUUUUUSUSU",
    /* i64  */ "UUUUEUUUUUUSUSU",
    /* u8   */ "UUSSSEPPPUSSSSS",
    /* u16  */ "UUUSSUEPPUUSUSU",
    /* u32  */ "UUUUSUUEPUUSUSU",
    /* u64  */ "UUUUUUUUEUUSUSU",
    /* f16  */ "UUUUUUUUUEPPSSU",
    /* f32  */ "UUUUUUUUUUEPSSU",
    /* f64  */ "UUUUUUUUUUUEUSU",
    /* c64  */ "NNNNNNNNNNNNEPN",
    /* c128 */ "NNNNNNNNNNNNUEN",
    /* bf16 */ "NUUUUUUUUUSSNNE",
};

int nb_can_convert(int from, int to) {
  if (from < 0 || to < 0) return CONV_NONE;
  switch (conv_table[from][to]) {
  case 'E': return CONV_EXACT;
  case 'P': return CONV_PROMOTE;
  case 'S': return CONV_SAFE;
  case 'N': return CONV_NONE;
  default: return CONV_UNSAFE;
  }
}

const NbCase *nb_resolve(const NbCase *cases, unsigned ncases, const int *args, unsigned nargs, bool unsafe_ok) {
  const NbCase *best = NULL;
  unsigned best_rate[3] = {0, 0, 0};
  for (unsigned c = 0; c < ncases; c++) {
    const NbCase *k = &cases[c];
    if ((unsigned)k->nargs != nargs) continue;
    unsigned rate[3] = {0, 0, 0}; /* unsafe, safe, promote */
    bool ok = true;
    for (unsigned i = 0; i < nargs && ok; i++) {
      int conv = nb_can_convert(args[i], k->args[i]);
      if (conv == CONV_NONE || (conv == CONV_UNSAFE && !unsafe_ok)) ok = false;
      else if (conv == CONV_UNSAFE) rate[0]++;
      else if (conv == CONV_SAFE) rate[1]++;
      else if (conv == CONV_PROMOTE) rate[2]++;
    }
    if (!ok) continue;
    bool better = !best;
    for (unsigned i = 0; i < 3 && !better; i++) {
      if (rate[i] < best_rate[i]) better = true;
      if (rate[i] != best_rate[i]) break;
    }
    if (better) {
      best = k;
      memcpy(best_rate, rate, sizeof rate);
    }
  }
  return best;
}

/* ---- unification ----------------------------------------------------------------------------------- */

static Type *unify_scalar(IrContext *ctx, Type *a, Type *b);

/* NumPy's promotion with a complex side: complex of the precision the two parts' floats promote to. */
static Type *unify_complex(IrContext *ctx, Type *a, Type *b) {
  Type *fa = a->kind == TY_COMPLEX ? a->elem : a, *fb = b->kind == TY_COMPLEX ? b->elem : b;
  Type *f = unify_scalar(ctx, fa, fb);
  if (f->kind != TY_FLOAT) f = ty_f64(ctx);  /* a complex part and a bool */
  return ty_complex(ctx, f->bits <= 32 ? ty_f32(ctx) : ty_f64(ctx));
}

static Type *unify_scalar(IrContext *ctx, Type *a, Type *b) {
  if (a == b) return a;
  if (a->kind == TY_COMPLEX || b->kind == TY_COMPLEX) return unify_complex(ctx, a, b);
  if (a->kind == TY_BOOL) return b;
  if (b->kind == TY_BOOL) return a;
  /* bfloat16 with a number: the one it converts to safely (f32, f64), else none (numba's unify_pairs) */
  if (ty_is_bf16(a) || ty_is_bf16(b)) {
    Type *o = ty_is_bf16(a) ? b : a;
    return o->kind == TY_FLOAT && o->bits >= 32 ? o : NULL;
  }
  if (a->kind == TY_FLOAT && b->kind == TY_FLOAT) return a->bits >= b->bits ? a : b;
  if (a->kind == TY_INT && b->kind == TY_INT) {
    if (a->is_unsigned == b->is_unsigned) return a->bits >= b->bits ? a : b;
    Type *s = a->is_unsigned ? b : a, *u = a->is_unsigned ? a : b;
    if (s->bits > u->bits) return s;
    if (u->bits < 64) return ty_int(ctx, u->bits * 2, false);
    return ty_f64(ctx);
  }
  Type *f = a->kind == TY_FLOAT ? a : b, *i = a->kind == TY_FLOAT ? b : a;
  if (f->bits == 16) return ty_float(ctx, i->bits == 8 ? 16 : i->bits == 16 ? 32 : 64);
  if (f->bits == 32) return ty_float(ctx, i->bits <= 16 ? 32 : 64);
  return f;
}

Type *nb_unify(IrContext *ctx, Type *a, Type *b) {
  if (!a || !b) return NULL;
  if (a == b) return a;
  if (ty_is_optional(a) || ty_is_optional(b)) { /* Numba's Optional.unify: Optional(unify(T, U)) */
    Type *u = nb_unify(ctx, ty_is_optional(a) ? a->elems[0] : a, ty_is_optional(b) ? b->elems[0] : b);
    return u ? ty_optional(ctx, u) : NULL;
  }
  if (ty_is_time(a) || ty_is_time(b)) return NULL; /* Numba's NPDatetime/NPTimedelta unify with themselves only */
  if (ty_is_number(a) && ty_is_number(b)) return unify_scalar(ctx, a, b);
  if (a->kind == TY_ARRAY && b->kind == TY_ARRAY) {
    if (a->elem != b->elem || a->rank != b->rank) return NULL;
    return ty_array(ctx, a->elem, a->rank, LAYOUT_A);
  }
  /* named tuples unify only with their own type (Numba's NamedTuple and NamedUniTuple define no unify) */
  if (a->kind == TY_TUPLE && b->kind == TY_TUPLE && a->n == b->n && !ty_is_struct_tuple(a) &&
      !ty_is_struct_tuple(b) && !a->tclass && !b->tclass) {
    Type *elems[64];
    if (a->n > 64) return NULL;
    for (unsigned i = 0; i < a->n; i++)
      if (!(elems[i] = nb_unify(ctx, a->elems[i], b->elems[i]))) return NULL;
    return ty_tuple(ctx, a->n, elems);
  }
  return NULL;
}

/* ---- names ------------------------------------------------------------------------------------------ */

static const char *const kind_names[NB_NKINDS] = {"bool",   "int8",   "int16",   "int32",   "int64",   "uint8",
                                                  "uint16", "uint32", "uint64", "float16", "float32", "float64",
                                                  "complex64", "complex128", "bfloat16"};
static const char *const kind_mangle[NB_NKINDS] = {"b1",  "i8",  "i16", "i32", "i64", "u8",  "u16", "u32",
                                                   "u64", "f16", "f32", "f64", "c8",  "c16", "bf16"};

void nb_type_name(const Type *t, StrBuf *out) {
  if (!t) {
    sb_puts(out, "none");
    return;
  }
  int k = nb_kind(t);
  if (k >= 0) {
    sb_puts(out, kind_names[k]);
    return;
  }
  switch (t->kind) {
  case TY_INT: /* a datetime64/timedelta64 (nb_kind has the others): Numba's name, datetime64[D], timedelta64[] */
    if (t->storage) {
      fe_storage_name(t, out);
      return;
    }
    sb_printf(out, "%s[%s]", t->datetime ? "datetime64" : "timedelta64", ty_time_unit_name(ty_time_unit(t)));
    return;
  case TY_ARRAY:
    sb_puts(out, "array(");
    nb_type_name(t->elem, out);
    sb_printf(out, ", %ud, %c)", t->rank, t->layout);
    return;
  case TY_TUPLE: {
    if (t->vector) { /* numba-cuda's names: float32x4 */
      nb_type_name(t->elems[0], out);
      sb_printf(out, "x%u", t->n);
      return;
    }
    if (t->slice) { /* Numba's names of slice2_type and slice3_type */
      sb_puts(out, t->slice == 3 ? "slice<a:b:c>" : "slice<a:b>");
      return;
    }
    if (t->optional) { /* Numba's name: OptionalType(int64) */
      sb_puts(out, "OptionalType(");
      nb_type_name(t->elems[0], out);
      sb_putc(out, ')');
      return;
    }
    bool uni = t->n > 0;
    for (unsigned i = 1; i < t->n; i++) uni = uni && t->elems[i] == t->elems[0];
    if (t->tclass) { /* Numba's NamedUniTuple and NamedTuple: Point(int64 x 2), Point(int64, float64) */
      nb_tuple_class_name(t->tclass, out);
      sb_putc(out, '(');
    } else if (uni) {
      sb_puts(out, "UniTuple(");
    } else {
      sb_puts(out, "Tuple(");
    }
    if (uni) {
      nb_type_name(t->elems[0], out);
      sb_printf(out, " x %u)", t->n);
      return;
    }
    for (unsigned i = 0; i < t->n; i++) {
      if (i) sb_puts(out, ", ");
      nb_type_name(t->elems[i], out);
    }
    sb_putc(out, ')');
    return;
  }
  case TY_RECORD: fe_record_spell(t, out); return;
  case TY_PTR: /* numba's name of CPointer(int32) */
    nb_type_name(t->elem, out);
    sb_putc(out, '*');
    return;
  default: ty_print(t, out); return;
  }
}

void nb_signature_dims(unsigned rank, char layout, StrBuf *out) {
  if (rank == 0) {
    sb_puts(out, "[()]");
    return;
  }
  sb_putc(out, '[');
  for (unsigned i = 0; i < rank; i++) {
    bool unit = (layout == 'C' && i == rank - 1) || (layout == 'F' && i == 0);
    sb_puts(out, unit ? "::1" : ":");
    if (i + 1 < rank) sb_puts(out, ", ");
  }
  sb_putc(out, ']');
}

void nb_type_signature(const Type *t, StrBuf *out) {
  switch (t->kind) {
  case TY_BOOL: sb_puts(out, "boolean"); return;
  case TY_INT:
    if (t->time) { /* datetime64[D]; the units that are no Python name: NPDatetime('as'), NPTimedelta('') */
      TimeUnit u = ty_time_unit(t);
      if (u == TU_as || u == TU_GENERIC) sb_printf(out, "%s('%s')", t->datetime ? "NPDatetime" : "NPTimedelta", ty_time_unit_name(u));
      else sb_printf(out, "%s[%s]", t->datetime ? "datetime64" : "timedelta64", ty_time_unit_name(u));
    } else if (t->storage) fe_storage_name(t, out);
    else sb_printf(out, "%sint%u", t->is_unsigned ? "u" : "", t->bits);
    return;
  case TY_FLOAT: t->bfloat ? sb_puts(out, "bfloat16") : sb_printf(out, "float%u", t->bits); return;
  case TY_COMPLEX: sb_printf(out, "complex%u", 2 * t->elem->bits); return;
  case TY_ARRAY:
    nb_type_signature(t->elem, out);
    nb_signature_dims(t->rank, t->layout, out);
    return;
  case TY_TUPLE: {
    if (t->optional) { /* OptionalType(int64), as Numba names it (nb_parse_type reads it) */
      sb_puts(out, "OptionalType(");
      nb_type_signature(t->elems[0], out);
      sb_putc(out, ')');
      return;
    }
    if (t->tclass) { /* NamedTuple("mod.Point", ("x", "y"), (int64, float64)): the frontend's spelling */
      sb_printf(out, "NamedTuple(\"%s\", (", t->tclass);
      for (unsigned i = 0; i < t->n; i++) sb_printf(out, "%s\"%s\"", i ? ", " : "", t->names[i]);
      sb_puts(out, t->n == 1 ? ",), (" : "), (");
      for (unsigned i = 0; i < t->n; i++) {
        if (i) sb_puts(out, ", ");
        nb_type_signature(t->elems[i], out);
      }
      sb_puts(out, t->n == 1 ? ",))" : "))");
      return;
    }
    /* Numba's constructors, as signatures spell them: UniTuple(int64, 2), Tuple((int64, float32)), Tuple(()) */
    bool uni = t->n > 0;
    for (unsigned i = 1; i < t->n && uni; i++) uni = t->elems[i] == t->elems[0];
    if (uni) {
      sb_puts(out, "UniTuple(");
      nb_type_signature(t->elems[0], out);
      sb_printf(out, ", %u)", t->n);
      return;
    }
    sb_puts(out, "Tuple((");
    for (unsigned i = 0; i < t->n; i++) {
      if (i) sb_puts(out, ", ");
      nb_type_signature(t->elems[i], out);
    }
    sb_puts(out, t->n == 1 ? ",))" : "))");
    return;
  }
  case TY_RECORD: fe_record_spell(t, out); return;
  case TY_PTR: /* int32*, as numba spells CPointer(int32) (nb_parse_signature_text reads it) */
    nb_type_signature(t->elem, out);
    sb_putc(out, '*');
    return;
  default: ty_print(t, out); return;
  }
}

void nb_mangle_tuple_class(const Type *t, StrBuf *out) {
  if (t && t->kind == TY_TUPLE && t->tclass) /* a class of its own (which fixes its field names): a hash of its name */
    sb_printf(out, "N%016llx", (unsigned long long)hash_bytes(t->tclass, strlen(t->tclass)));
}

void nb_tuple_class_name(const char *tclass, StrBuf *out) {
  const char *end = strchr(tclass, '#'), *start = tclass;
  if (!end) end = tclass + strlen(tclass);
  for (const char *c = tclass; c < end; c++)
    if (*c == '.') start = c + 1;
  sb_printf(out, "%.*s", (int)(end - start), start);
}

const char *nb_type_str(Arena *a, const Type *t) {
  StrBuf b;
  sb_init(&b);
  nb_type_name(t, &b);
  char *s = arena_strdup(a, sb_cstr(&b));
  sb_free(&b);
  return s;
}

void nb_mangle(const Type *t, StrBuf *out) {
  int k = nb_kind(t);
  if (k >= 0) {
    sb_puts(out, kind_mangle[k]);
  } else if (ty_is_storage(t)) { /* S8e4m3, S16e5m2 (fp8x2), S16r (bfloat16 raw) */
    sb_printf(out, "S%u%s", t->bits, t->storage == TS_BF16RAW ? "r" : ty_fp8_format_name((TyStorage)t->storage));
  } else if (ty_is_time(t)) { /* NumPy's type characters: M8D, m8s, m8 (generic) */
    sb_printf(out, "%c8%s", t->datetime ? 'M' : 'm', ty_time_unit_name(ty_time_unit(t)));
  } else if (t->kind == TY_ARRAY) {
    nb_mangle(t->elem, out);
    sb_printf(out, "_%u%c", t->rank, t->layout);
  } else if (t->kind == TY_TUPLE && t->vector) {
    nb_mangle(t->elems[0], out);
    sb_printf(out, "x%u", t->n);
  } else if (t->kind == TY_TUPLE && t->slice) {
    sb_printf(out, "S%u", t->slice);
  } else if (ty_is_optional(t)) {
    sb_putc(out, 'O');
    nb_mangle(t->elems[0], out);
  } else if (t->kind == TY_TUPLE) {
    nb_mangle_tuple_class(t, out);
    sb_printf(out, "T%u", t->n);
    for (unsigned i = 0; i < t->n; i++) {
      sb_putc(out, '_');
      nb_mangle(t->elems[i], out);
    }
    sb_puts(out, "_E");
  } else if (t->kind == TY_RECORD) { /* records differ in their layout: a hash of their spelling names them */
    StrBuf b;
    sb_init(&b);
    fe_record_spell(t, &b);
    sb_printf(out, "R%016llx", (unsigned long long)hash_bytes(sb_cstr(&b), b.len));
    sb_free(&b);
  } else {
    sb_puts(out, "x");
  }
}

static const struct {
  const char *name;
  int kind; /* NB_*, or -1 for none/void */
} type_names[] = {
    {"boolean", NB_BOOL}, {"bool_", NB_BOOL},  {"b1", NB_BOOL},       {"bool", NB_BOOL},     {"int8", NB_I8},
    {"int16", NB_I16},    {"int32", NB_I32},   {"int64", NB_I64},     {"uint8", NB_U8},      {"uint16", NB_U16},
    {"uint32", NB_U32},   {"uint64", NB_U64},  {"float16", NB_F16},   {"float32", NB_F32},   {"float64", NB_F64},
    {"i1", NB_I8},        {"i2", NB_I16},      {"i4", NB_I32},        {"i8", NB_I64},        {"u1", NB_U8},
    {"u2", NB_U16},       {"u4", NB_U32},      {"u8", NB_U64},        {"f2", NB_F16},        {"f4", NB_F32},
    {"f8", NB_F64},       {"intp", NB_I64},    {"uintp", NB_U64},     {"int_", NB_I64},      {"uint", NB_U64},
    {"intc", NB_I32},     {"uintc", NB_U32},   {"byte", NB_U8},       {"char", NB_I8},       {"uchar", NB_U8},
    {"short", NB_I16},    {"ushort", NB_U16},  {"long_", NB_I64},     {"ulong", NB_U64},     {"longlong", NB_I64},
    {"ulonglong", NB_U64}, {"size_t", NB_U64}, {"ssize_t", NB_I64},   {"double", NB_F64},    {"half", NB_F16},
    {"single", NB_F32},   {"complex64", NB_C64}, {"complex128", NB_C128}, {"c8", NB_C64}, {"c16", NB_C128},
    {"csingle", NB_C64},  {"cdouble", NB_C128}, {"complex_", NB_C128}, {"bfloat16", NB_BF16}, {"float_", NB_F32}, {"void", -1},
    {"none", -1},
};

Type *nb_named_type(IrContext *ctx, const char *name, bool *is_void) {
  if (is_void) *is_void = false;
  for (unsigned i = 0; i < sizeof type_names / sizeof *type_names; i++) {
    if (strcmp(type_names[i].name, name) != 0) continue;
    if (type_names[i].kind < 0) {
      if (is_void) *is_void = true;
      return NULL;
    }
    return nb_type(ctx, type_names[i].kind);
  }
  return NULL;
}

/* ---- type expressions ------------------------------------------------------------------------------- */

/* The name a type expression ends in: `float32`, `numba.float32`, `nb.types.float32`. */
static const char *type_expr_name(const PyExpr *e) {
  if (e->kind == EX_NAME) return e->name;
  if (e->kind == EX_ATTRIBUTE) return e->attribute.attr;
  if (e->kind == EX_NONE) return "none";
  return NULL;
}

static bool is_full_slice(const PyExpr *e) {
  return e->kind == EX_SLICE && !e->slice.lower && !e->slice.upper && !e->slice.step;
}

static bool is_unit_step_slice(const PyExpr *e) {
  return e->kind == EX_SLICE && !e->slice.lower && !e->slice.upper && e->slice.step && e->slice.step->kind == EX_INT &&
         e->slice.step->intlit.value == 1;
}

static Type *parse_array_type(FeCtx *fe, const PyExpr *e, Type *elem) {
  const PyExpr *idx = e->subscript.index;
  const PyExpr *const *items = &idx;
  unsigned n = 1;
  if (idx->kind == EX_TUPLE && idx->parens && idx->elts.n == 0) /* float64[()]: a 0-d array (numba's 0d, C) */
    return ty_array(fe->ctx, elem, 0, LAYOUT_C);
  if (idx->kind == EX_TUPLE && !idx->parens) {
    items = (const PyExpr *const *)idx->elts.items;
    n = idx->elts.n;
  }
  if (n == 0 || n > 8) {
    /* kir arrays have at most 8 dimensions (Numba allows 32) */
    fe_error(fe, idx->loc, "an array type needs between 1 and 8 dimensions (kfront supports at most 8), not %u", n);
    return NULL;
  }
  int unit = -1;
  for (unsigned i = 0; i < n; i++) {
    if (is_full_slice(items[i])) continue;
    if (is_unit_step_slice(items[i]) && unit < 0) {
      unit = (int)i;
      continue;
    }
    fe_error(fe, items[i]->loc, "expected ':' or '::1' in an array type");
    return NULL;
  }
  char layout = LAYOUT_A;
  if (unit == (int)n - 1) layout = LAYOUT_C;
  else if (unit == 0) layout = LAYOUT_F;
  else if (unit > 0) {
    fe_error(fe, items[unit]->loc, "'::1' must be the first (F order) or last (C order) dimension");
    return NULL;
  }
  return ty_array(fe->ctx, elem, n, layout);
}

/* NamedTuple("mod.Point", ("x", "y"), (int64, float64)): a named tuple's class (as the embedder names it), its
 * field names and their types, as the runtime spells a namedtuple argument (Numba's NamedTuple and NamedUniTuple,
 * whose own spelling, Point(int64 x 2), does not say which class). */
static Type *parse_named_tuple(FeCtx *fe, const PyExpr *e) {
  const PyExpr *cls = e->call.args.n == 3 ? e->call.args.items[0] : NULL;
  const PyExpr *names = cls ? e->call.args.items[1] : NULL, *types = cls ? e->call.args.items[2] : NULL;
  if (!cls || cls->kind != EX_STR || names->kind != EX_TUPLE || types->kind != EX_TUPLE ||
      names->elts.n != types->elts.n || names->elts.n > 64) {
    fe_error(fe, e->loc, "a named tuple type is spelt NamedTuple(\"module.Class\", (\"field\", ...), (type, ...)) "
                         "with a type per field (at most 64)");
    return NULL;
  }
  const char *fields[64];
  Type *elems[64];
  for (unsigned i = 0; i < names->elts.n; i++) {
    const PyExpr *n = names->elts.items[i];
    if (n->kind != EX_STR || !n->str.len) {
      fe_error(fe, n->loc, "a named tuple's field name must be a non-empty string");
      return NULL;
    }
    for (unsigned j = 0; j < i; j++)
      if (strcmp(fields[j], n->str.s) == 0) {
        fe_error(fe, n->loc, "the named tuple has two fields named '%s'", n->str.s);
        return NULL;
      }
    fields[i] = n->str.s;
    if (!(elems[i] = nb_parse_type(fe, types->elts.items[i], NULL))) return NULL;
  }
  return ty_named_tuple(fe->ctx, cls->str.s, fields, names->elts.n, elems);
}

/* Array(float32, 1, 'C'[, readonly=True]): Numba's constructor of an array type, as the runtime spells a readonly
 * array argument or item of a tuple argument (the slice syntax has no readonly arrays). *readonly gets the keyword's
 * value; NULL: where a readonly array cannot be (a named tuple's field, a return type), readonly=True is a located
 * error. */
static Type *parse_array_ctor(FeCtx *fe, const PyExpr *e, bool *readonly) {
  if (readonly) *readonly = false;
  const PyExprList *a = &e->call.args;
  if (a->n != 3 || e->call.nkeywords > 1 || (e->call.nkeywords && (!e->call.keywords[0]->arg ||
      strcmp(e->call.keywords[0]->arg, "readonly") != 0 || e->call.keywords[0]->value->kind != EX_BOOL))) {
    fe_error(fe, e->loc, "an array type is spelt Array(dtype, ndim, 'C'|'F'|'A'[, readonly=True|False])");
    return NULL;
  }
  Type *elem = nb_parse_type(fe, a->items[0], NULL);
  if (!elem) return NULL;
  if (!ty_is_element(elem)) {
    fe_error(fe, a->items[0]->loc, "array elements must be scalars or records, not %s", nb_type_str(&fe->arena, elem));
    return NULL;
  }
  const PyExpr *nd = a->items[1], *lay = a->items[2];
  if (nd->kind != EX_INT || nd->intlit.value < 0 || nd->intlit.value > 8) {
    fe_error(fe, nd->loc, "an array type needs between 0 and 8 dimensions (kfront supports at most 8)");
    return NULL;
  }
  if (lay->kind != EX_STR || lay->str.len != 1 || !strchr("CFA", lay->str.s[0])) {
    fe_error(fe, lay->loc, "an array's layout is 'C', 'F' or 'A'");
    return NULL;
  }
  bool ro = e->call.nkeywords && e->call.keywords[0]->value->bval;
  if (ro && !readonly) {
    fe_error(fe, e->loc, "a readonly array here is not supported by kfront (pass it as an argument of its own or an "
                         "item of a tuple argument)");
    return NULL;
  }
  if (readonly) *readonly = ro;
  char layout = nd->intlit.value == 0 ? LAYOUT_C : lay->str.s[0];
  return ty_array(fe->ctx, elem, (unsigned)nd->intlit.value, layout);
}

/* A pointer to what is not a number (elem: its Numba name): an error of kind UNSUPPORTED (numba has the type; kfront
 * compiles no parameter or result of it). */
static void unsupported_pointer(FeCtx *fe, SrcLoc loc, const char *elem) {
  DiagKind prev = diag_set_kind(DIAG_KIND_UNSUPPORTED);
  fe_error(fe, loc, "pointer types (%s*) are not supported in signatures: kernels and device functions take pointers "
           "to numbers (CPointer(float32), float32*) and arrays", elem);
  diag_set_kind(prev);
}

/* CPointer(T) (also spelt T*): a pointer to a number, in the generic address space, as numba-cuda's kernels take and
 * pass them (p[i] reads and writes through it). */
static Type *parse_pointer_type(FeCtx *fe, const PyExpr *e) {
  if (e->call.args.n != 1 || e->call.nkeywords) {
    DiagKind prev = diag_set_kind(DIAG_KIND_UNSUPPORTED);
    fe_error(fe, e->loc, "pointer types in an address space of their own are not supported in signatures: CPointer "
                         "takes one type (CPointer(float32))");
    diag_set_kind(prev);
    return NULL;
  }
  bool v = false;
  Type *elem = nb_parse_type(fe, e->call.args.items[0], &v);
  if (!elem && !v) return NULL;
  if (!elem || !ty_is_scalar(elem) || elem->time || elem->storage) {
    unsupported_pointer(fe, e->call.args.items[0]->loc, elem ? nb_type_str(&fe->arena, elem) : "void");
    return NULL;
  }
  return ty_ptr(fe->ctx, elem, 0);
}

/* Whether name is datetime64 / NPDatetime (1) or timedelta64 / NPTimedelta (2), else 0. */
static int time_type_name(const char *name, bool ctor) {
  if (!name) return 0;
  if (strcmp(name, ctor ? "NPDatetime" : "datetime64") == 0) return 1;
  if (strcmp(name, ctor ? "NPTimedelta" : "timedelta64") == 0) return 2;
  return 0;
}

/* The unit of datetime64[D] (a name or a string) or NPDatetime('D') (a string): a located error if it is none. */
static Type *parse_time_type(FeCtx *fe, int which, const PyExpr *u) {
  const char *name = u->kind == EX_NAME ? u->name : u->kind == EX_STR ? u->str.s : NULL;
  int code = name ? ty_time_unit_parse(name, strlen(name)) : -1;
  if (code < 0) {
    fe_error(fe, u->loc, "expected a unit of %s (Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as or '')",
             which == 1 ? "datetime64" : "timedelta64");
    return NULL;
  }
  return ty_time(fe->ctx, which == 1, (TimeUnit)code);
}

Type *nb_parse_type(FeCtx *fe, const PyExpr *e, bool *is_void) {
  bool v = false;
  if (is_void) *is_void = false;
  if (e->kind == EX_STR) {
    fe_error(fe, e->loc, "expected a type, found a string");
    return NULL;
  }
  int which;
  if (e->kind == EX_SUBSCRIPT && (which = time_type_name(type_expr_name(e->subscript.value), false)))
    return parse_time_type(fe, which, e->subscript.index);
  if (e->kind == EX_CALL && (which = time_type_name(type_expr_name(e->call.func), true)) && e->call.args.n <= 1 &&
      !e->call.nkeywords) /* NPDatetime('D'); NPDatetime(): the generic unit, as numba's default */
    return e->call.args.n ? parse_time_type(fe, which, e->call.args.items[0]) : ty_time(fe->ctx, which == 1, TU_GENERIC);
  if ((e->kind == EX_NAME || e->kind == EX_ATTRIBUTE) && (which = time_type_name(type_expr_name(e), false)))
    return ty_time(fe->ctx, which == 1, TU_GENERIC);
  if (e->kind == EX_SUBSCRIPT) {
    Type *elem = nb_parse_type(fe, e->subscript.value, &v);
    if (!elem) {
      if (v) fe_error(fe, e->loc, "an array of none is not a type");
      return NULL;
    }
    if (!ty_is_element(elem)) {
      fe_error(fe, e->loc, "array elements must be scalars or records, not %s", nb_type_str(&fe->arena, elem));
      return NULL;
    }
    return parse_array_type(fe, e, elem);
  }
  if (e->kind == EX_CALL) {
    const char *fname = type_expr_name(e->call.func);
    if (fname && strcmp(fname, "UniTuple") == 0 && e->call.args.n == 2) {
      Type *elem = nb_parse_type(fe, e->call.args.items[0], NULL);
      const PyExpr *cnt = e->call.args.items[1];
      if (!elem) return NULL;
      if (cnt->kind != EX_INT || cnt->intlit.value < 0 || cnt->intlit.value > 64) {
        fe_error(fe, cnt->loc, "UniTuple needs a count between 0 and 64");
        return NULL;
      }
      Type *elems[64];
      for (int64_t i = 0; i < cnt->intlit.value; i++) elems[i] = elem;
      return ty_tuple(fe->ctx, (unsigned)cnt->intlit.value, elems);
    }
    if (fname && strcmp(fname, "Tuple") == 0 && e->call.args.n == 1 &&
        (e->call.args.items[0]->kind == EX_TUPLE || e->call.args.items[0]->kind == EX_LIST)) {
      const PyExpr *l = e->call.args.items[0];
      Type *elems[64];
      if (l->elts.n > 64) {
        fe_error(fe, l->loc, "tuples of more than 64 elements are not supported");
        return NULL;
      }
      for (unsigned i = 0; i < l->elts.n; i++)
        if (!(elems[i] = nb_parse_type(fe, l->elts.items[i], NULL))) return NULL;
      return ty_tuple(fe->ctx, l->elts.n, elems);
    }
    if (fname && strcmp(fname, "NamedTuple") == 0) return parse_named_tuple(fe, e);
    if (fname && (strcmp(fname, "optional") == 0 || strcmp(fname, "Optional") == 0 || strcmp(fname, "OptionalType") == 0) && e->call.args.n == 1 &&
        !e->call.nkeywords) { /* numba.types.optional(int64): Optional(int64) */
      Type *t = nb_parse_type(fe, e->call.args.items[0], NULL);
      if (!t) return NULL;
      if (ty_is_optional(t)) return t; /* as numba.types.optional of an optional */
      return fe_optional_type(fe, t, e->loc);
    }
    if (fname && strcmp(fname, "CPointer") == 0) return parse_pointer_type(fe, e);
    if (fname && (strcmp(fname, "CharSeq") == 0 || strcmp(fname, "UnicodeCharSeq") == 0)) {
      /* CharSeq(12), UnicodeCharSeq(12): numba's constructors of [char x 12] and [unichr x 12] */
      const PyExpr *cnt = e->call.args.n == 1 && !e->call.nkeywords ? e->call.args.items[0] : NULL;
      Type *t = cnt && cnt->kind == EX_INT && cnt->intlit.value >= 1 && cnt->intlit.value <= INT32_MAX
                    ? ty_charseq(fe->ctx, fname[0] == 'U', (unsigned)cnt->intlit.value) : NULL;
      if (!t) fe_error(fe, e->loc, "%s needs a count of 1 or more characters (%s(12))", fname, fname);
      return t;
    }
    if (fname && strcmp(fname, "Array") == 0) return parse_array_ctor(fe, e, NULL);
    if (fe_enum_spelled(e)) { /* enum members are arguments of their own (the signature's top level) */
      fe_error(fe, e->loc, "an enum member inside a tuple or an array type is not supported by kfront (pass it as an "
                           "argument of its own)");
      return NULL;
    }
    fe_error(fe, e->loc, "expected a type, found a call (a signature where a type belongs?)");
    return NULL;
  }
  if (e->kind == EX_TUPLE) {
    Type *elems[64];
    if (e->elts.n > 64) {
      fe_error(fe, e->loc, "tuples of more than 64 elements are not supported");
      return NULL;
    }
    for (unsigned i = 0; i < e->elts.n; i++)
      if (!(elems[i] = nb_parse_type(fe, e->elts.items[i], NULL))) return NULL;
    return ty_tuple(fe->ctx, e->elts.n, elems);
  }
  const char *name = type_expr_name(e);
  if (e->kind == EX_NAME && strncmp(name, FE_RECORD_PLACEHOLDER, strlen(FE_RECORD_PLACEHOLDER)) == 0) {
    unsigned k = (unsigned)atoi(name + strlen(FE_RECORD_PLACEHOLDER));
    if (k < fe->nrecords) return fe->records[k];
  }
  if (name && strcmp(name, "voidptr") == 0) { /* numba's untyped pointer */
    unsupported_pointer(fe, e->kind == EX_ATTRIBUTE ? e->attribute.attr_loc : e->loc, "void");
    return NULL;
  }
  if (name) {
    Type *t = nb_named_type(fe->ctx, name, &v);
    if (t || v) {
      if (is_void) *is_void = v;
      else if (v) fe_error(fe, e->loc, "'%s' is not a value type here", name);
      return t;
    }
    SrcLoc at = e->kind == EX_ATTRIBUTE ? e->attribute.attr_loc : e->loc;
    fe_error(fe, at, "unknown type '%s'", name);
    return NULL;
  }
  fe_error(fe, e->loc, "expected a type, found %s", ast_expr_kind_name(e->kind));
  return NULL;
}

/* A tuple type expression (UniTuple(t, n), Tuple((a, b)), (a, b)) holding enum members or readonly arrays somewhere:
 * its parameter shape (enum members FV_VAL of their dtype with enumc, readonly arrays FV_VAL shapes with readonly).
 * False when e is not such a tuple (*out untouched) or after a reported error (*err). */
static bool tuple_param_shape(FeCtx *fe, const PyExpr *e, FeVal *out, bool *err, unsigned depth) {
  const PyExprList *items = NULL;
  unsigned count = 0;
  const char *fname = e->kind == EX_CALL ? type_expr_name(e->call.func) : NULL;
  if (fname && strcmp(fname, "UniTuple") == 0 && e->call.args.n == 2) {
    const PyExpr *cnt = e->call.args.items[1];
    if (cnt->kind != EX_INT || cnt->intlit.value < 0 || cnt->intlit.value > 64) return false;
    items = &e->call.args; /* items[0] repeated */
    count = (unsigned)cnt->intlit.value;
  } else if (fname && strcmp(fname, "Tuple") == 0 && e->call.args.n == 1 &&
             (e->call.args.items[0]->kind == EX_TUPLE || e->call.args.items[0]->kind == EX_LIST)) {
    items = &e->call.args.items[0]->elts;
    count = items->n;
  } else if (e->kind == EX_TUPLE) {
    items = &e->elts;
    count = items->n;
  } else {
    return false;
  }
  if (count > 64 || depth > FE_MAX_NESTING) return false;
  bool uni = fname && strcmp(fname, "UniTuple") == 0, any = false;
  FeVal *elems = ARENA_ARRAY(&fe->arena, FeVal, count ? count : 1);
  for (unsigned i = 0; i < count; i++) {
    const PyExpr *it = items->items[uni ? 0 : i];
    if (fe_enum_spelled(it)) {
      const FeEnum *en = fe_enum_parse(fe, it);
      if (!en) {
        *err = true;
        return false;
      }
      elems[i] = (FeVal){.kind = FV_VAL, .type = en->dtype, .enumc = en};
      any = true;
    } else if (tuple_param_shape(fe, it, &elems[i], err, depth + 1)) {
      any = true;
    } else if (it->kind == EX_CALL && type_expr_name(it->call.func) && strcmp(type_expr_name(it->call.func), "Array") == 0) {
      bool ro;
      Type *t = parse_array_ctor(fe, it, &ro);
      if (!t) {
        *err = true;
        return false;
      }
      elems[i] = lower_param_shape(fe, t);
      if (ro) lower_shape_set_readonly(&elems[i]);
      any |= ro;
    } else {
      if (*err) return false;
      Type *t = nb_parse_type(fe, it, NULL);
      if (!t) {
        *err = true;
        return false;
      }
      elems[i] = lower_param_shape(fe, t);
    }
  }
  if (!any) return false;
  Type **ts = ARENA_ARRAY(&fe->arena, Type *, count ? count : 1);
  for (unsigned i = 0; i < count; i++) ts[i] = elems[i].type;
  *out = (FeVal){.kind = FV_TUPLE, .type = ty_tuple(fe->ctx, count, ts)};
  out->tup.n = count;
  out->tup.elems = elems;
  return true;
}

bool nb_parse_signature(FeCtx *fe, const PyExpr *e, FeSig *out) {
  memset(out, 0, sizeof *out);
  out->loc = e->loc;
  const PyExprList *args;
  if (e->kind == EX_CALL) {
    bool v;
    if (e->call.nkeywords) {
      fe_error(fe, e->call.keywords[0]->loc, "a signature takes no keyword arguments");
      return false;
    }
    Type *ret = nb_parse_type(fe, e->call.func, &v);
    if (!ret && !v) return false;
    out->ret = ret;
    out->has_ret = true;
    args = &e->call.args;
  } else if (e->kind == EX_TUPLE) {
    args = &e->elts;
  } else {
    fe_error(fe, e->loc, "expected a signature such as 'void(float32[:], int64)', found %s", ast_expr_kind_name(e->kind));
    return false;
  }
  out->nargs = args->n;
  out->args = ARENA_ARRAY(&fe->arena, Type *, args->n ? args->n : 1);
  for (unsigned i = 0; i < args->n; i++) {
    bool v;
    if (fe_enum_spelled(args->items[i])) { /* an enum member: its dtype, and which enum */
      const FeEnum *en = fe_enum_parse(fe, args->items[i]);
      if (!en) return false;
      if (!out->enums) out->enums = ARENA_ARRAY(&fe->arena, const FeEnum *, args->n);
      out->enums[i] = en;
      out->args[i] = en->dtype;
      continue;
    }
    FeVal shape;
    bool err = false;
    if (tuple_param_shape(fe, args->items[i], &shape, &err, 0)) { /* a tuple holding enum members or readonly arrays */
      if (!out->shapes) {
        FeVal *sh = ARENA_ARRAY(&fe->arena, FeVal, args->n);
        for (unsigned k = 0; k < args->n; k++) sh[k] = (FeVal){.kind = FV_POISON};
        out->shapes = sh;
      }
      ((FeVal *)out->shapes)[i] = shape;
      out->args[i] = shape.type;
      continue;
    }
    if (err) return false;
    const PyExpr *ai = args->items[i];
    if (ai->kind == EX_CALL && type_expr_name(ai->call.func) && strcmp(type_expr_name(ai->call.func), "Array") == 0) {
      bool ro;
      if (!(out->args[i] = parse_array_ctor(fe, ai, &ro))) return false;
      if (ro && !out->readonly) out->readonly = ARENA_ARRAY(&fe->arena, bool, args->n);
      if (ro) ((bool *)out->readonly)[i] = true;
      continue;
    }
    out->args[i] = nb_parse_type(fe, args->items[i], &v);
    if (!out->args[i]) {
      if (v) fe_error(fe, args->items[i]->loc, "an argument cannot be of type none");
      return false;
    }
  }
  return true;
}

/* Record types spelt as Numba spells them (Record(a[type=float64;offset=0];8;False), and bytes / str items, [char x 12]
 * and [unichr x 12]: no Python expressions) are read
 * here, each replaced in a copy of the text by a name of the same length (FE_RECORD_PLACEHOLDER<k>, padded with
 * spaces) that nb_parse_type reads as fe->records[k]; columns after it stay true. False after a located error. */
static bool spelled_record_at(const char *s, size_t len, size_t i) {
  if (i + 7 <= len && memcmp(s + i, "Record(", 7) == 0)
    return !i || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_' || s[i - 1] == '.');
  return (i + 8 <= len && memcmp(s + i, "[char x ", 8) == 0) || (i + 10 <= len && memcmp(s + i, "[unichr x ", 10) == 0);
}

static bool take_records(FeCtx *fe, char *s, size_t len, const char *file, unsigned line, unsigned col) {
  for (size_t i = 0; i + 7 <= len; i++) {
    if (!spelled_record_at(s, len, i)) continue;
    size_t end = i;
    const char *why;
    Type *t = fe_record_parse(fe->ctx, s, len, &end, &why);
    if (!t) {
      fe_error(fe, srcloc(file, line, col + (unsigned)i), "%s", why);
      return false;
    }
    char name[32];
    int n = snprintf(name, sizeof name, "%s%u", FE_RECORD_PLACEHOLDER, fe->nrecords);
    if ((size_t)n > end - i) {
      fe_error(fe, srcloc(file, line, col + (unsigned)i), "record type too short to be read");
      return false;
    }
    if (fe->nrecords == fe->records_cap) {
      unsigned cap = fe->records_cap ? 2 * fe->records_cap : 8;
      Type **r = ARENA_ARRAY(&fe->arena, Type *, cap);
      if (fe->nrecords) memcpy(r, fe->records, sizeof *r * fe->nrecords);
      fe->records = r;
      fe->records_cap = cap;
    }
    fe->records[fe->nrecords++] = t;
    memcpy(s + i, name, (size_t)n);
    memset(s + i + n, ' ', end - i - (size_t)n);
    i = end - 1;
  }
  return true;
}

/* s (len bytes) with each pointer suffix, numba's spelling of a pointer type (int32*, float64**), as the call that
 * makes it (CPointer(int32)), which Python's grammar parses; quoted strings are left as they are. NULL after an
 * error (a '*' after no type). */
static const char *spell_pointers(FeCtx *fe, const char *s, size_t *len, const char *file, unsigned line, unsigned col) {
  static const char wrap[] = "CPointer(";
  size_t stars = 0, n = *len;
  for (size_t i = 0; i < n; i++) stars += s[i] == '*';
  char *out = arena_alloc(&fe->arena, n + stars * (sizeof wrap) + 1);
  size_t o = 0;
  char quote = 0;
  for (size_t i = 0; i < n; i++) {
    char ch = s[i];
    if (quote) {
      if (ch == quote) quote = 0;
    } else if (ch == '\'' || ch == '"') {
      quote = ch;
    } else if (ch == '*') {
      size_t end = o;
      while (end && (out[end - 1] == ' ' || out[end - 1] == '\t')) end--;
      size_t start = end;
      if (start && out[start - 1] == ')') { /* CPointer(int32)*: back to its '(' and the name before it */
        int depth = 0;
        while (start) {
          start--;
          depth += out[start] == ')' ? 1 : out[start] == '(' ? -1 : 0;
          if (!depth) break;
        }
      }
      while (start && (isalnum((unsigned char)out[start - 1]) || out[start - 1] == '_' || out[start - 1] == '.')) start--;
      if (start == end) {
        fe_error(fe, srcloc(file, line, col + (unsigned)i), "'*' follows no type (a pointer type is spelt int32*)");
        return NULL;
      }
      memmove(out + start + sizeof wrap - 1, out + start, end - start);
      memcpy(out + start, wrap, sizeof wrap - 1);
      o = end + sizeof wrap - 1;
      out[o++] = ')';
      continue;
    }
    out[o++] = ch;
  }
  out[o] = 0;
  *len = o;
  return out;
}

bool nb_parse_signature_text(FeCtx *fe, const char *s, size_t len, const char *file, unsigned line, unsigned col,
                             FeSig *out) {
  bool has_record = false;
  for (size_t i = 0; i + 7 <= len && !has_record; i++) has_record = spelled_record_at(s, len, i);
  if (has_record) {
    char *copy = arena_alloc(&fe->arena, len + 1);
    memcpy(copy, s, len);
    copy[len] = 0;
    if (!take_records(fe, copy, len, file, line, col)) return false;
    s = copy;
  }
  if (memchr(s, '*', len)) {
    if (!(s = spell_pointers(fe, s, &len, file, line, col))) return false;
  }
  PyExpr *e = parse_expression(&fe->arena, fe->diag, file, s, len, line, col);
  if (!e) return false;
  return nb_parse_signature(fe, e, out);
}

