/* lower_strings.c — NumPy's bytes and str items in kernels (Numba's CharSeq and UnicodeCharSeq, numba-cuda's
 * cpython/charseq.py), and the bytes and str constants they meet.
 *
 * An item of an S12 / U12 array or record field is an FV_RECORD of a kir charseq type (a record whose one field
 * `chars` holds the characters, u8 or u32). What numba-cuda compiles of them without its NRT:
 *   - len(s): the index of the last non-null character, plus one (NumPy's length; earlier nulls count);
 *   - s[i] of a bytes item: the code of character i (uint32), IndexError when i is outside [0, count) or the
 *     character there is null (no wrap of negative indices); a str item's s[i] is numba-cuda's TypingError (its
 *     np.array(...).view(...) needs the NRT);
 *   - ==, !=, <, <=, >, >= between two items, or an item and a constant, of one kind (bytes with bytes, str with
 *     str; the counts may differ), character codes compared over each side's len;
 *   - truth (bool, not, if): len(s) > 0;
 *   - assignment of a constant of its kind (copied up to the count, the rest nulled), or of an item of the same
 *     type (numba-cuda casts no other count: a TypingError for bytes, a lowering error for str).
 * Values: numba-cuda loads an item into a value; a name bound to an item here holds a copy of it (a local
 * array of one), so a later store into the array does not change it. */
#include <stdio.h>
#include <string.h>

#include "frontend/lower.h"

enum { MAX_CHARSEQ_UNROLL = 4096 };

/* One side of an operation: an item (its characters loaded once, as u32) or a constant (its codes). */
typedef struct Chars {
  bool unicode;
  unsigned count;  /* characters held: the item's count, the constant's length */
  Value **codes;   /* count u32 values */
  Value *len;      /* i64: len() as numba-cuda computes it */
} Chars;

bool lw_is_charseq(const FeVal *v) { return v->kind == FV_RECORD && ty_is_charseq(v->type); }

static bool is_string_constant(const FeVal *v) { return v->kind == FV_STR || v->kind == FV_BYTES; }

/* The code points of UTF-8 text (a str constant as Python holds it), or its bytes (a bytes constant). */
static unsigned decode(Lower *L, const FeVal *c, uint32_t **out) {
  uint32_t *codes = ARENA_ARRAY(&L->fe->arena, uint32_t, c->str.len ? c->str.len : 1);
  const unsigned char *s = (const unsigned char *)c->str.s;
  unsigned n = 0;
  for (size_t i = 0; i < c->str.len;) {
    uint32_t cp = s[i];
    unsigned extra = c->kind == FV_BYTES || cp < 0x80 ? 0 : cp >= 0xF0 ? 3 : cp >= 0xE0 ? 2 : 1;
    if (extra) cp &= 0x3Fu >> extra;
    for (unsigned k = 1; k <= extra && i + k < c->str.len; k++) cp = cp << 6 | (s[i + k] & 0x3F);
    codes[n++] = cp;
    i += 1 + extra;
  }
  *out = codes;
  return n;
}

/* The array of the characters of every item of the item r's array, and r's indices into it (the character's
 * index last, set by the caller). */
static Value *chars_array(Lower *L, const FeVal *r, Value **idx) {
  unsigned rank = r->tup.n - 1;
  for (unsigned i = 0; i < rank; i++) idx[i] = lw_mat(L, &r->tup.elems[1 + i]);
  return lw_field_array(L, r->tup.elems[0].v, 0);
}

/* len() of an item from its character codes: the last non-null index + 1. */
static Value *len_of_codes(Lower *L, Value *const *codes, unsigned count) {
  Type *i64 = ty_i64(L->ctx);
  Value *r = ib_const_int(&L->b, i64, 0), *zero = ib_const_int(&L->b, ty_u32(L->ctx), 0);
  for (unsigned k = 0; k < count; k++)
    r = ib_select(&L->b, ib_cmpi(&L->b, IR_CMPI_NE, codes[k], zero), ib_const_int(&L->b, i64, k + 1), r);
  return r;
}

static bool load_chars(Lower *L, const FeVal *v, Chars *out, SrcLoc loc) {
  Type *u32 = ty_u32(L->ctx);
  if (is_string_constant(v)) {
    uint32_t *codes;
    out->unicode = v->kind == FV_STR;
    out->count = decode(L, v, &codes);
    out->codes = ARENA_ARRAY(&L->fe->arena, Value *, out->count ? out->count : 1);
    for (unsigned k = 0; k < out->count; k++) out->codes[k] = ib_const_int(&L->b, u32, codes[k]);
    out->len = ib_const_int(&L->b, ty_i64(L->ctx), out->count);
    return true;
  }
  unsigned count = ty_charseq_count(v->type);
  if (count > MAX_CHARSEQ_UNROLL) {
    lw_lerr(L, loc, "kfront compares and measures bytes and str items of at most %d characters, not %s",
            MAX_CHARSEQ_UNROLL, tname(L, v->type));
    return false;
  }
  out->unicode = v->type->chars == 4;
  out->count = count;
  out->codes = ARENA_ARRAY(&L->fe->arena, Value *, count);
  Value *idx[40];
  Value *fa = chars_array(L, v, idx);
  unsigned rank = v->tup.n - 1;
  for (unsigned k = 0; k < count; k++) {
    idx[rank] = ib_const_int(&L->b, ty_i64(L->ctx), k);
    FeVal c = lw_load_element(L, fa, idx);
    out->codes[k] = conv_v(L, c, u32);
  }
  out->len = len_of_codes(L, out->codes, count);
  return true;
}

FeVal lw_charseq_len(Lower *L, const FeVal *s, SrcLoc loc) {
  at(L, loc);
  Chars c;
  if (!load_chars(L, s, &c, loc)) return poison();
  FeVal r = val(ty_i64(L->ctx), c.len);
  r.nonneg = true;
  return r;
}

FeVal lw_charseq_truth(Lower *L, const FeVal *s, SrcLoc loc) {
  FeVal n = lw_charseq_len(L, s, loc);
  if (n.kind == FV_POISON) return n;
  return val(ty_bool(L->ctx), ib_cmpi(&L->b, IR_CMPI_NE, n.v, ib_const_int(&L->b, ty_i64(L->ctx), 0)));
}

/* s[i] of an item: numba-cuda's charseq_getitem. */
FeVal lw_charseq_item(Lower *L, const FeVal *s, const PyExpr *ie, SrcLoc loc) {
  FeVal i = lower_expr(L, ie);
  if (i.kind == FV_POISON) return i;
  if (s->type->chars == 4 || !is_scalar(&i) || i.type->kind != TY_INT)
    return lw_lerr(L, loc, "no implementation of getitem(%s, %s) in numba-cuda%s", tname(L, s->type), lw_vname(L, &i),
                   s->type->chars == 4 && is_scalar(&i) && i.type->kind == TY_INT
                       ? " (a str item's character is a str, which needs numba-cuda's NRT)"
                       : " (a bytes item is indexed by an integer)");
  at(L, loc);
  unsigned count = ty_charseq_count(s->type);
  Type *i64 = ty_i64(L->ctx), *u32 = ty_u32(L->ctx);
  Value *k = conv_v(L, i, i64);
  Value *in_range = ib_binary(&L->b, OP_ANDI, ib_cmpi(&L->b, IR_CMPI_SGE, k, ib_const_int(&L->b, i64, 0)),
                              ib_cmpi(&L->b, IR_CMPI_SLT, k, ib_const_int(&L->b, i64, count)));
  char text[80];
  snprintf(text, sizeof text, "IndexError: index out of range [0, %u]", count - 1);
  lw_emit_raise(L, ib_binary(&L->b, OP_XORI, in_range, ib_const_bool(&L->b, true)), text, loc);
  Value *idx[40];
  Value *fa = chars_array(L, s, idx);
  idx[s->tup.n - 1] = ib_select(&L->b, in_range, k, ib_const_int(&L->b, i64, 0)); /* read in bounds either way */
  FeVal c = lw_load_element(L, fa, idx);
  Value *code = conv_v(L, c, u32);
  lw_emit_raise(L, ib_cmpi(&L->b, IR_CMPI_EQ, code, ib_const_int(&L->b, u32, 0)), "IndexError: index out of range", loc);
  return val(u32, code);
}

static const char *kind_name(const FeVal *v) {
  return v->kind == FV_STR || (lw_is_charseq(v) && v->type->chars == 4) ? "str" : "bytes";
}

/* a <op> b where one side is an item: numba-cuda's charseq_eq / charseq_lt and the others made of them. */
FeVal lw_charseq_compare(Lower *L, PyCmpOp op, FeVal a, FeVal b, SrcLoc loc) {
  bool ok_a = lw_is_charseq(&a) || is_string_constant(&a), ok_b = lw_is_charseq(&b) || is_string_constant(&b);
  bool ordering = op == CMP_EQ || op == CMP_NE || op == CMP_LT || op == CMP_LE || op == CMP_GT || op == CMP_GE;
  if (!ok_a || !ok_b || !ordering || strcmp(kind_name(&a), kind_name(&b)) != 0)
    return lw_lerr(L, loc, "no implementation of '%s' for %s and %s in numba-cuda%s", ast_cmpop_str(op), lw_vname(L, &a),
                   lw_vname(L, &b), ok_a && ok_b && ordering ? " (bytes compare with bytes, str with str)" : "");
  at(L, loc);
  Chars x, y;
  if (!load_chars(L, &a, &x, loc) || !load_chars(L, &b, &y, loc)) return poison();
  if (op == CMP_GT || op == CMP_LE) { /* a > b is b < a; a <= b is not (b < a) */
    Chars t = x;
    x = y;
    y = t;
  }
  Value *r;
  Type *i64 = ty_i64(L->ctx);
  Value *t = ib_const_bool(&L->b, true), *f = ib_const_bool(&L->b, false);
  unsigned n = x.count < y.count ? x.count : y.count;
  if (op == CMP_EQ || op == CMP_NE) { /* equal lengths, and equal codes below them */
    r = ib_cmpi(&L->b, IR_CMPI_EQ, x.len, y.len);
    for (unsigned k = 0; k < n; k++) {
      Value *beyond = ib_cmpi(&L->b, IR_CMPI_SGE, ib_const_int(&L->b, i64, k), x.len);
      Value *same = ib_binary(&L->b, OP_ORI, beyond, ib_cmpi(&L->b, IR_CMPI_EQ, x.codes[k], y.codes[k]));
      r = ib_binary(&L->b, OP_ANDI, r, same);
    }
  } else { /* the first code that differs below both lengths decides, else the shorter is less */
    Value *shorter = ib_select(&L->b, ib_cmpi(&L->b, IR_CMPI_SLT, x.len, y.len), x.len, y.len);
    Value *decided = f;
    r = f;
    for (unsigned k = 0; k < n; k++) {
      Value *below = ib_cmpi(&L->b, IR_CMPI_SLT, ib_const_int(&L->b, i64, k), shorter);
      Value *differ = ib_cmpi(&L->b, IR_CMPI_NE, x.codes[k], y.codes[k]);
      Value *now = ib_binary(&L->b, OP_ANDI, ib_binary(&L->b, OP_ANDI, below, differ),
                             ib_binary(&L->b, OP_XORI, decided, t));
      r = ib_select(&L->b, now, ib_cmpi(&L->b, IR_CMPI_ULT, x.codes[k], y.codes[k]), r);
      decided = ib_binary(&L->b, OP_ORI, decided, now);
    }
    r = ib_select(&L->b, decided, r, ib_cmpi(&L->b, IR_CMPI_SLT, x.len, y.len));
  }
  if (op == CMP_NE || op == CMP_LE || op == CMP_GE) r = ib_binary(&L->b, OP_XORI, r, t);
  return val(ty_bool(L->ctx), r);
}

/* target = v where target is an item and v no item of its type (lw_assign_composite copies those): a constant of
 * its kind. */
void lw_charseq_assign(Lower *L, const FeVal *target, FeVal v, SrcLoc tloc, SrcLoc vloc) {
  Type *t = target->type;
  bool unicode = t->chars == 4;
  if (!(unicode ? v.kind == FV_STR : v.kind == FV_BYTES)) {
    lw_lerr(L, vloc, "cannot assign %s to an item of type %s (numba-cuda casts %s and items of the same type to it)",
            lw_vname(L, &v), tname(L, t), unicode ? "str constants" : "bytes constants");
    return;
  }
  uint32_t *codes;
  unsigned n = decode(L, &v, &codes), count = ty_charseq_count(t);
  if (count > MAX_CHARSEQ_UNROLL) {
    lw_lerr(L, tloc, "kfront assigns bytes and str items of at most %d characters, not %s", MAX_CHARSEQ_UNROLL,
            tname(L, t));
    return;
  }
  at(L, tloc);
  Value *idx[40];
  Value *fa = chars_array(L, target, idx);
  unsigned rank = target->tup.n - 1;
  Type *ct = fa->type->elem;
  for (unsigned k = 0; k < count; k++) { /* numba-cuda's bytes_to_charseq / unicode_to_unicode_charseq */
    idx[rank] = ib_const_int(&L->b, ty_i64(L->ctx), k);
    lw_store_element(L, fa, idx, ib_const_int(&L->b, ct, k < n ? codes[k] : 0));
  }
}

/* The value a name bound to v holds: an item's copy in a local array of one (numba-cuda loads the item). */
FeVal lw_charseq_copy(Lower *L, const FeVal *v, SrcLoc loc) {
  Type *arr = ty_array(L->ctx, v->type, 1, LAYOUT_C);
  Op *alloca = ir_op_create(L->m, OP_ALLOCA, L->b.loc, 0, NULL, 1, &arr, 0);
  Attr one = attr_int(ty_i64(L->ctx), 1);
  ir_op_set_attr(L->m, alloca, "shape", attr_array(L->m, 1, &one));
  ir_block_prepend(ir_func_entry(L->func_op), alloca);
  Value *zero = ib_const_int(&L->b, ty_i64(L->ctx), 0);
  FeVal copy = lw_record_ref(L, op_result(alloca, 0), &zero);
  lw_assign_composite(L, &copy, *v, loc, loc);
  return copy;
}
