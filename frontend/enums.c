/* enums.c — enum classes and their members' types, as Numba's EnumClass / EnumMember / IntEnumMember.
 *
 * An enum class is an FV_NAMESPACE whose members are FV_VAL constants tagged with their FeEnum (the member
 * type: the class, Enum or IntEnum, the values' dtype). It comes from a class statement of a source
 * (`class Color(IntEnum): RED = 1`, read here without running Python: members are integer constants or
 * auto()), or from the embedder (a namespace or a scalar whose kf_value.path spells the member type). A
 * member type is spelt EnumMember("mod.Color", int64) or IntEnumMember("mod.Color", int64) in signatures
 * (what a runtime writes for an enum argument), and named as Numba names it (Enum<int64>(Color)) in
 * diagnostics. One FeEnum per spelling, so pointers compare types. How members type in kernels (==, is,
 * .value, IntEnum as integers) is lower_operators.c's and lower.c's. */
#include <string.h>

#include "frontend/fe.h"
#include "frontend/parser.h"

const FeEnum *fe_enum_get(FeCtx *fe, const char *name, bool is_int, Type *dtype) {
  StrBuf b;
  sb_init(&b);
  sb_printf(&b, "%sEnumMember(\"%s\", ", is_int ? "Int" : "", name);
  nb_type_name(dtype, &b);
  sb_putc(&b, ')');
  FeEnum *e = strmap_get(&fe->enums, sb_cstr(&b));
  if (!e) {
    e = ARENA_NEW(&fe->arena, FeEnum);
    e->name = fe_intern(fe, name);
    e->spelling = fe_intern(fe, sb_cstr(&b));
    e->is_int = is_int;
    e->dtype = dtype;
    e->id = fe->nenums++;
    strmap_put(&fe->enums, e->spelling, e);
  }
  sb_free(&b);
  return e;
}

const FeEnum *fe_enum_get_valued(FeCtx *fe, const char *name, const char *value_type, const FeVal *values,
                                 unsigned n) {
  const char *spelling = arena_printf(&fe->arena, "EnumMember(\"%s\", %s)", name, value_type);
  FeEnum *e = strmap_get(&fe->enums, spelling);
  if (!e) {
    e = ARENA_NEW(&fe->arena, FeEnum);
    e->name = fe_intern(fe, name);
    e->spelling = fe_intern(fe, spelling);
    e->dtype = ty_i64(fe->ctx);
    e->id = fe->nenums++;
    e->values = values;
    e->nvalues = n;
    e->value_type = fe_intern(fe, value_type);
    strmap_put(&fe->enums, e->spelling, e);
  }
  return e;
}

const FeEnum *fe_enum_strings(FeCtx *fe, const FeEnum *e) {
  const char *key = arena_printf(&fe->arena, "unicode_type of %s", e->spelling);
  FeEnum *t = strmap_get(&fe->enums, key);
  if (!t) {
    t = ARENA_NEW(&fe->arena, FeEnum);
    *t = *e;
    t->spelling = fe_intern(fe, key);
    t->id = fe->nenums++;
    t->strings_of = e;
    strmap_put(&fe->enums, t->spelling, t);
  }
  return t;
}

/* Appends the name of constant v's type to b (numbers and tuples of them); false for anything else. */
static bool value_type_name(FeCtx *fe, const FeVal *v, StrBuf *b, unsigned depth) {
  if (v->kind == FV_VAL && v->is_const && ty_is_number(v->type) && v->type->kind != TY_COMPLEX) {
    nb_type_name(v->type, b);
    return true;
  }
  if (v->kind != FV_TUPLE || !v->tup.n || depth > FE_MAX_NESTING) return false;
  bool uni = true;
  StrBuf first;
  sb_init(&first);
  bool ok = value_type_name(fe, &v->tup.elems[0], &first, depth + 1);
  for (unsigned i = 1; ok && i < v->tup.n; i++) {
    StrBuf e;
    sb_init(&e);
    ok = value_type_name(fe, &v->tup.elems[i], &e, depth + 1);
    uni = uni && ok && strcmp(sb_cstr(&e), sb_cstr(&first)) == 0;
    sb_free(&e);
  }
  if (ok && uni) {
    sb_printf(b, "UniTuple(%s, %u)", sb_cstr(&first), v->tup.n);
  } else if (ok) {
    sb_puts(b, "Tuple(");
    for (unsigned i = 0; i < v->tup.n; i++) {
      if (i) sb_puts(b, ", ");
      value_type_name(fe, &v->tup.elems[i], b, depth + 1);
    }
    sb_putc(b, ')');
  }
  sb_free(&first);
  return ok;
}

const char *fe_enum_value_type(FeCtx *fe, const FeVal *v) {
  if (v->kind == FV_STR) return "unicode_type";
  if (v->kind != FV_TUPLE) return NULL;
  StrBuf b;
  sb_init(&b);
  const char *r = value_type_name(fe, v, &b, 0) ? fe_intern(fe, sb_cstr(&b)) : NULL;
  sb_free(&b);
  return r;
}

const char *fe_enum_type_name(FeCtx *fe, const FeEnum *e) {
  if (e->strings_of) return "unicode_type";
  if (e->values) return arena_printf(&fe->arena, "Enum<%s>(%s)", e->value_type, e->name);
  StrBuf b;
  sb_init(&b);
  sb_printf(&b, "%sEnum<", e->is_int ? "Int" : "");
  nb_type_name(e->dtype, &b);
  sb_printf(&b, ">(%s)", e->name);
  const char *s = arena_strdup(&fe->arena, sb_cstr(&b));
  sb_free(&b);
  return s;
}

static const char *callee_name(const PyExpr *e) {
  if (e->kind != EX_CALL) return NULL;
  const PyExpr *f = e->call.func;
  if (f->kind == EX_NAME) return f->name;
  if (f->kind == EX_ATTRIBUTE) return f->attribute.attr; /* types.IntEnumMember(...) */
  return NULL;
}

bool fe_enum_spelled(const PyExpr *e) {
  const char *n = callee_name(e);
  return n && (strcmp(n, "EnumMember") == 0 || strcmp(n, "IntEnumMember") == 0);
}

/* Whether two constant enum values (numbers, tuples of them, strings) are equal: Python makes the later member
 * an alias of the earlier. */
static bool const_equal(const FeVal *a, const FeVal *b) {
  if (a->kind != b->kind) return false;
  if (a->kind == FV_STR) return a->str.len == b->str.len && memcmp(a->str.s, b->str.s, a->str.len) == 0;
  if (a->kind == FV_VAL) return a->type == b->type && (a->type->kind == TY_FLOAT ? a->c.f == b->c.f : a->c.i == b->c.i);
  if (a->kind != FV_TUPLE || a->tup.n != b->tup.n) return false;
  for (unsigned i = 0; i < a->tup.n; i++)
    if (!const_equal(&a->tup.elems[i], &b->tup.elems[i])) return false;
  return true;
}

/* The type of constant v (a number, or a tuple of numbers and such tuples), interned; NULL for anything else. */
static Type *constant_type(FeCtx *fe, const FeVal *v, unsigned depth) {
  if (v->kind == FV_VAL && v->is_const && ty_is_number(v->type) && v->type->kind != TY_COMPLEX) return v->type;
  if (v->kind != FV_TUPLE || !v->tup.n || depth > FE_MAX_NESTING) return NULL;
  Type **elems = ARENA_ARRAY(&fe->arena, Type *, v->tup.n);
  for (unsigned i = 0; i < v->tup.n; i++)
    if (!(elems[i] = constant_type(fe, &v->tup.elems[i], depth + 1))) return NULL;
  return ty_tuple(fe->ctx, v->tup.n, elems);
}

/* EnumMember("Class", value type, (values...)): a valued enum, its members' values spelt after their type (one per
 * member, aliases included, in the class's order), so that a member passed as a kernel argument (its index) and
 * the class bound by an embedder name the same type. NULL after a located error. */
static const FeEnum *parse_valued(FeCtx *fe, const PyExpr *e) {
  const PyExpr *vt = e->call.args.items[1], *vs = e->call.args.items[2];
  FeVal tup = fe_eval_const(fe, vs);
  if (tup.kind != FV_TUPLE || !tup.tup.n) {
    fe_error(fe, vs->loc, "the values of an enum of tuples or strings are spelt as a tuple, one per member");
    return NULL;
  }
  bool strings = vt->kind == EX_NAME && strcmp(vt->name, "unicode_type") == 0;
  Type *want = strings ? NULL : nb_parse_type(fe, vt, NULL);
  if (!strings && !want) return NULL;
  bool same = true;
  for (unsigned i = 0; same && i < tup.tup.n; i++)
    same = strings ? tup.tup.elems[i].kind == FV_STR : constant_type(fe, &tup.tup.elems[i], 0) == want;
  if (!same) {
    fe_error(fe, vs->loc, "the values of an enum of %s must all be of that type",
             strings ? "unicode_type" : nb_type_str(&fe->arena, want));
    return NULL;
  }
  const char *vtype = fe_enum_value_type(fe, &tup.tup.elems[0]);
  const FeEnum *en = fe_enum_get_valued(fe, e->call.args.items[0]->str.s, vtype, tup.tup.elems, tup.tup.n);
  bool agree = en->nvalues == tup.tup.n;
  for (unsigned i = 0; agree && i < tup.tup.n; i++) agree = const_equal(&en->values[i], &tup.tup.elems[i]);
  if (!agree) { /* the class was met before (a class statement of the source, a binding) with other values */
    fe_error(fe, vs->loc, "the values spelt for %s are not those of its members (%u of them, in the class's order)",
             en->name, en->nvalues);
    return NULL;
  }
  return en;
}

const FeEnum *fe_enum_parse(FeCtx *fe, const PyExpr *e) {
  bool valued = fe_enum_spelled(e) && e->call.args.n == 3 && callee_name(e)[0] == 'E';
  if (!fe_enum_spelled(e) || (e->call.args.n != 2 && !valued) || e->call.nkeywords ||
      e->call.args.items[0]->kind != EX_STR || !e->call.args.items[0]->str.len) {
    fe_error(fe, e->loc, "an enum member type is spelt EnumMember(\"Class\", int64) or IntEnumMember(\"Class\", int64) "
                         "(an enum of tuples or strings: EnumMember(\"Class\", UniTuple(int64, 2), (values...)))");
    return NULL;
  }
  if (valued) return parse_valued(fe, e);
  bool is_int = callee_name(e)[0] == 'I';
  Type *dtype = nb_parse_type(fe, e->call.args.items[1], NULL);
  if (!dtype) return NULL;
  if (!ty_is_scalar(dtype) || (is_int && dtype->kind != TY_INT)) {
    fe_error(fe, e->call.args.items[1]->loc, "kfront supports enums whose members are %s, not %s%s",
             is_int ? "integers (IntEnumMember)" : "numbers or booleans", nb_type_str(&fe->arena, dtype),
             dtype->kind == TY_TUPLE ? " (an enum of tuples is spelt with its members' values: EnumMember(\"Class\", "
                                       "UniTuple(int64, 2), (values...)))" : "");
    return NULL;
  }
  return fe_enum_get(fe, e->call.args.items[0]->str.s, is_int, dtype);
}

const FeEnum *fe_enum_parse_text(FeCtx *fe, const char *text, SrcLoc loc) {
  PyExpr *e = parse_expression(&fe->arena, fe->diag, loc.file ? loc.file : "<enum type>", text, strlen(text),
                               loc.line ? loc.line : 1, loc.col ? loc.col : 1);
  return e ? fe_enum_parse(fe, e) : NULL;
}

/* ---- enum classes of a source ---------------------------------------------------------------------------- */

typedef enum { BASE_NONE, BASE_ENUM, BASE_INT_ENUM, BASE_FLAG, BASE_INT_FLAG, BASE_OTHER_ENUM } EnumBase;

/* What a base of a class statement is, among enum's classes. */
static EnumBase enum_base(FeCtx *fe, const PyExpr *e) {
  FeVal v = fe_eval_const(fe, e);
  if (v.kind == FV_NAMESPACE && v.ns->enumc) return v.ns->n ? BASE_OTHER_ENUM : (v.ns->enumc->is_int ? BASE_INT_ENUM : BASE_ENUM);
  if (v.kind != FV_PATH) return BASE_NONE;
  static const struct {
    const char *path;
    EnumBase base;
  } known[] = {{"enum.Enum", BASE_ENUM}, {"enum.IntEnum", BASE_INT_ENUM}, {"enum.Flag", BASE_FLAG},
               {"enum.IntFlag", BASE_INT_FLAG}, {"enum.StrEnum", BASE_OTHER_ENUM}, {"enum.ReprEnum", BASE_ENUM}};
  for (unsigned i = 0; i < sizeof known / sizeof *known; i++)
    if (strcmp(v.str.s, known[i].path) == 0) return known[i].base;
  return strncmp(v.str.s, "enum.", 5) == 0 ? BASE_OTHER_ENUM : BASE_NONE;
}

static FeVal invalid(FeCtx *fe, const char *fmt, const char *a, const char *b) {
  FeVal v = {.kind = FV_INVALID};
  v.str.s = arena_printf(&fe->arena, fmt, a, b);
  v.str.len = strlen(v.str.s);
  return v;
}

static bool is_auto(FeCtx *fe, const PyExpr *e) {
  if (e->kind != EX_CALL || e->call.args.n || e->call.nkeywords) return false;
  FeVal f = fe_eval_const(fe, e->call.func);
  return f.kind == FV_PATH && strcmp(f.str.s, "enum.auto") == 0;
}

FeVal fe_enum_valued_namespace(FeCtx *fe, const char *cls, const char *ns_name, const char *value_type,
                               const char *const *names, const FeVal *values, unsigned n) {
  FeNamespace *ns = ARENA_NEW(&fe->arena, FeNamespace);
  ns->name = ns_name;
  ns->n = n;
  ns->names = ARENA_ARRAY(&fe->arena, const char *, n ? n : 1);
  ns->vals = ARENA_ARRAY(&fe->arena, FeVal, n ? n : 1);
  const FeEnum *en = fe_enum_get_valued(fe, cls, value_type, values, n);
  for (unsigned i = 0; i < n; i++) {
    unsigned idx = i; /* an alias (a value equal to an earlier member's) is that member */
    for (unsigned k = 0; k < i && idx == i; k++)
      if (const_equal(&values[k], &values[i])) idx = k;
    ns->names[i] = names[i];
    ns->vals[i] = fe_const_int(fe, ty_i64(fe->ctx), idx);
    ns->vals[i].enumc = en;
  }
  ns->enumc = en;
  return (FeVal){.kind = FV_NAMESPACE, .ns = ns};
}

FeVal fe_enum_class(FeCtx *fe, const PyStmt *cls) {
  const char *name = cls->classdef.name;
  EnumBase base = BASE_NONE;
  bool int_mixin = false;
  for (unsigned i = 0; i < cls->classdef.bases.n; i++) {
    const PyExpr *b = cls->classdef.bases.items[i];
    if (b->kind == EX_NAME && strcmp(b->name, "int") == 0 && !fe_lookup(fe, fe->cur, "int")) {
      int_mixin = true;
      continue;
    }
    EnumBase k = enum_base(fe, b);
    if (k != BASE_NONE) base = k;
  }
  if (base == BASE_NONE) return (FeVal){.kind = FV_HOST};
  if (base == BASE_OTHER_ENUM)
    return invalid(fe, "the enum class '%s' is not one kfront supports (bases Enum, IntEnum, Flag, IntFlag%s)", name, "");
  bool is_int = base == BASE_INT_ENUM || base == BASE_INT_FLAG || int_mixin;
  bool flag = base == BASE_FLAG || base == BASE_INT_FLAG;
  Type *i64 = ty_i64(fe->ctx), *dtype = NULL;
  const PyStmtList *body = &cls->classdef.body;
  FeNamespace *ns = ARENA_NEW(&fe->arena, FeNamespace);
  ns->name = name;
  ns->names = ARENA_ARRAY(&fe->arena, const char *, body->n ? body->n : 1);
  ns->vals = ARENA_ARRAY(&fe->arena, FeVal, body->n ? body->n : 1);
  int64_t last = 0;
  bool any = false;
  const char *valued = NULL; /* the members' value type, when they are tuples or strings */
  FeVal *values = ARENA_ARRAY(&fe->arena, FeVal, body->n ? body->n : 1);
  for (unsigned i = 0; i < body->n; i++) {
    const PyStmt *s = body->items[i];
    if (s->kind == ST_PASS || s->kind == ST_FUNCDEF || (s->kind == ST_EXPR && s->expr->kind == EX_STR)) continue;
    if (s->kind != ST_ASSIGN || s->assign.targets.n != 1 || s->assign.targets.items[0]->kind != EX_NAME)
      return invalid(fe, "the enum class '%s' defines its members in a way kfront does not read (one 'NAME = "
                         "value' per member)%s", name, "");
    const char *member = s->assign.targets.items[0]->name;
    size_t len = strlen(member);
    if (len >= 2 && member[0] == '_' && member[len - 1] == '_') continue; /* _ignore_, __doc__: not members */
    FeVal m;
    if (is_auto(fe, s->assign.value)) {
      if (dtype && dtype != i64) return invalid(fe, "'%s.%s': auto() in an enum whose members are not integers", name, member);
      int64_t value;
      if (flag) value = !any ? 1 : last <= 0 ? 1 : (int64_t)1 << (64 - __builtin_clzll((unsigned long long)last));
      else value = any ? last + 1 : 1;
      m = fe_const_int(fe, i64, value);
    } else {
      /* Numba types the class by its members' values (typeof): integers int64, floats float64, bools boolean */
      FeVal v = fe_eval_const(fe, s->assign.value);
      if (!is_int && !flag && (v.kind == FV_TUPLE || v.kind == FV_STR)) {
        if (any && !valued) return invalid(fe, "Cannot type heterogeneous enum '%s': %s", name, "its members' values are of several kinds");
        const char *vt = fe_enum_value_type(fe, &v);
        if (!vt)
          return invalid(fe, "'%s.%s' is a tuple kfront cannot type as an enum value (tuples of numbers, nested ones "
                             "included, and strings are)%s", name, member);
        if (valued && strcmp(vt, valued) != 0)
          return invalid(fe, "Cannot type heterogeneous enum '%s': got value types %s", name,
                         arena_printf(&fe->arena, "%s, %s", valued, vt));
        valued = vt;
        values[ns->n] = v;
        any = true;
        ns->names[ns->n++] = member;
        continue;
      }
      if (valued) return invalid(fe, "Cannot type heterogeneous enum '%s': %s", name, "its members' values are of several kinds");
      if (v.kind != FV_VAL || !v.is_const || (v.type->is_unsigned && v.c.i < 0))
        return invalid(fe, "'%s.%s' is not a number: kfront supports enums whose members are numbers or booleans",
                       name, member);
      if (v.type->kind == TY_INT) m = fe_const_int(fe, i64, v.c.i);
      else if (v.type->kind == TY_FLOAT && !is_int && !flag) m = fe_const_float(ty_f64(fe->ctx), v.c.f);
      else if (v.type->kind == TY_BOOL && !is_int && !flag) m = fe_const_int(fe, ty_bool(fe->ctx), v.c.i != 0);
      else
        return invalid(fe, "'%s.%s' is not an integer: IntEnum and Flag members are "
                           "integers", name, member);
    }
    if (dtype && m.type != dtype) {
      const char *a = nb_type_str(&fe->arena, dtype), *b = nb_type_str(&fe->arena, m.type);
      return invalid(fe, "Cannot type heterogeneous enum '%s': got value types %s", name,
                     strcmp(a, b) < 0 ? arena_printf(&fe->arena, "%s, %s", a, b) : arena_printf(&fe->arena, "%s, %s", b, a));
    }
    dtype = m.type;
    if (m.type == i64) last = m.c.i;
    any = true;
    ns->names[ns->n] = member;
    ns->vals[ns->n++] = m;
  }
  if (valued) return fe_enum_valued_namespace(fe, name, name, valued, ns->names, values, ns->n);
  /* the members' type: an empty class is typed int64 (Numba cannot type it; it has no members to use) */
  const FeEnum *en = fe_enum_get(fe, name, is_int, dtype ? dtype : i64);
  ns->enumc = en;
  for (unsigned i = 0; i < ns->n; i++) ns->vals[i].enumc = en;
  return (FeVal){.kind = FV_NAMESPACE, .ns = ns};
}
