/* type_tree.c — Numba types as kf_value trees: what kf_signature_parse and kf_module_function_result answer, so
 * that an embedder (the Python module) asks the one signature grammar (numba_types.c) and reads the IR's types
 * instead of parsing either text itself.
 *
 * Every node is a KF_VALUE_TUPLE whose first item is a KF_VALUE_STRING naming its form (kfront.h lists them):
 * ("scalar", "float32"), ("array", dtype, ndim, "C", readonly), ("tuple", (t, ...)), ("signature", ret, (args)),
 * ... Integers are KF_VALUE_INT (int64), flags KF_VALUE_BOOL, an absent part KF_VALUE_NONE. The tree is built in
 * an arena and then copied into one block (fe_tree_finish): the caller frees it with kf_free. */
#include <string.h>

#include "frontend/compile.h"
#include "frontend/type_tree.h"
#include "utils/mem.h"

typedef struct TreeBuild {
  Arena *arena;
  Diag *diag;
  SrcLoc loc;  /* where an unsupported type is reported */
} TreeBuild;

static kf_value v_str(TreeBuild *b, const char *s) {
  return (kf_value){.kind = KF_VALUE_STRING, .path = arena_strdup(b->arena, s)};
}
static kf_value v_int(int64_t i) { return (kf_value){.kind = KF_VALUE_INT, .dtype = KF_INT64, .scalar.i = i}; }
static kf_value v_bool(bool f) { return (kf_value){.kind = KF_VALUE_BOOL, .dtype = KF_BOOL, .scalar.i = f}; }
static kf_value v_none(void) { return (kf_value){.kind = KF_VALUE_NONE}; }

/* A tuple of n items (copied). */
static kf_value v_tuple(TreeBuild *b, unsigned n, const kf_value *items) {
  kf_value *it = ARENA_ARRAY(b->arena, kf_value, n ? n : 1);
  if (n) memcpy(it, items, sizeof *it * n);
  return (kf_value){.kind = KF_VALUE_TUPLE, .items = it, .nitems = n};
}

/* A node: the form's tag, then n parts. */
static kf_value node(TreeBuild *b, const char *tag, unsigned n, const kf_value *parts) {
  kf_value it[8];
  it[0] = v_str(b, tag);
  for (unsigned i = 0; i < n; i++) it[i + 1] = parts[i];
  return v_tuple(b, n + 1, it);
}

static bool type_node(TreeBuild *b, const Type *t, kf_value *out);

static bool no_numba_type(TreeBuild *b, const Type *t) {
  StrBuf s;
  sb_init(&s);
  ty_print(t, &s);
  DiagKind prev = diag_set_kind(DIAG_KIND_UNSUPPORTED);
  diag_error(b->diag, b->loc, "the type %s has no Numba type", sb_cstr(&s));
  diag_set_kind(prev);
  sb_free(&s);
  return false;
}

/* n types as a tuple of nodes. */
static bool types_tuple(TreeBuild *b, unsigned n, Type *const *ts, kf_value *out) {
  kf_value *it = ARENA_ARRAY(b->arena, kf_value, n ? n : 1);
  for (unsigned i = 0; i < n; i++)
    if (!type_node(b, ts[i], &it[i])) return false;
  *out = v_tuple(b, n, it);
  return true;
}

static bool record_node(TreeBuild *b, const Type *t, kf_value *out) {
  kf_value *fields = ARENA_ARRAY(b->arena, kf_value, t->n ? t->n : 1);
  for (unsigned i = 0; i < t->n; i++) {
    const RecordField *f = &t->fields[i];
    kf_value ft;
    if (!type_node(b, t->elems[i], &ft)) return false;
    if (f->ndims) { /* ("nestedarray", dtype, (dims...)) */
      kf_value dims[TY_MAX_FIELD_DIMS];
      for (unsigned d = 0; d < f->ndims; d++) dims[d] = v_int(f->dims[d]);
      kf_value parts[2] = {ft, v_tuple(b, f->ndims, dims)};
      ft = node(b, "nestedarray", 2, parts);
    }
    kf_value entry[4] = {v_str(b, f->name), ft, v_int(f->offset), f->title ? v_str(b, f->title) : v_none()};
    fields[i] = v_tuple(b, 4, entry);
  }
  kf_value parts[3] = {v_tuple(b, t->n, fields), v_int(t->size), v_bool(t->aligned)};
  *out = node(b, "record", 3, parts);
  return true;
}

static bool type_node(TreeBuild *b, const Type *t, kf_value *out) {
  if (!t) {
    *out = node(b, "none", 0, NULL);
    return true;
  }
  if (nb_kind(t) >= 0) {
    kf_value name = v_str(b, nb_type_str(b->arena, t));
    *out = node(b, "scalar", 1, &name);
    return true;
  }
  if (ty_is_time(t)) {
    kf_value unit = v_str(b, ty_time_unit_name(ty_time_unit(t)));
    *out = node(b, t->datetime ? "datetime64" : "timedelta64", 1, &unit);
    return true;
  }
  if (ty_is_charseq(t)) {
    kf_value n = v_int(ty_charseq_count(t));
    *out = node(b, t->chars == 1 ? "charseq" : "unicharseq", 1, &n);
    return true;
  }
  switch (t->kind) {
  case TY_RECORD: return record_node(b, t, out);
  case TY_ARRAY: {
    kf_value parts[4];
    if (!type_node(b, t->elem, &parts[0])) return false;
    char layout[2] = {t->layout, 0};
    parts[1] = v_int(t->rank);
    parts[2] = v_str(b, layout);
    parts[3] = v_bool(false);
    *out = node(b, "array", 4, parts);
    return true;
  }
  case TY_PTR: {
    kf_value elem;
    if (t->addrspace != ADDR_GENERIC) return no_numba_type(b, t);
    if (!type_node(b, t->elem, &elem)) return false;
    *out = node(b, "pointer", 1, &elem);
    return true;
  }
  case TY_TUPLE: {
    if (t->vector || t->slice) return no_numba_type(b, t);
    kf_value parts[3];
    if (t->optional) {
      if (!type_node(b, t->elems[0], &parts[0])) return false;
      *out = node(b, "optional", 1, parts);
      return true;
    }
    if (t->tclass) {
      kf_value *names = ARENA_ARRAY(b->arena, kf_value, t->n ? t->n : 1);
      for (unsigned i = 0; i < t->n; i++) names[i] = v_str(b, t->names[i]);
      parts[0] = v_str(b, t->tclass);
      parts[1] = v_tuple(b, t->n, names);
      if (!types_tuple(b, t->n, t->elems, &parts[2])) return false;
      *out = node(b, "namedtuple", 3, parts);
      return true;
    }
    if (!types_tuple(b, t->n, t->elems, &parts[0])) return false;
    *out = node(b, "tuple", 1, parts);
    return true;
  }
  default: return no_numba_type(b, t);
  }
}

static bool enum_node(TreeBuild *b, const FeEnum *en, kf_value *out) {
  kf_value parts[4];
  parts[0] = v_str(b, en->name);
  parts[1] = v_bool(en->is_int);
  if (!type_node(b, en->dtype, &parts[2])) return false;
  parts[3] = v_bool(en->values != NULL); /* an enum of tuples or strings: dtype is its members' index */
  *out = node(b, "enum", 4, parts);
  return true;
}

/* A parameter of type t whose shape (lower_param_shape's, from a signature) may mark readonly arrays and enum
 * members inside tuples. */
static bool shape_node(TreeBuild *b, const FeVal *s, Type *t, kf_value *out) {
  if (s && s->kind == FV_VAL && s->enumc) return enum_node(b, s->enumc, out);
  if (t && t->kind == TY_ARRAY && s && s->readonly) {
    if (!type_node(b, t, out)) return false;
    ((kf_value *)out->items)[4] = v_bool(true);
    return true;
  }
  if (t && t->kind == TY_TUPLE && !t->optional && !ty_is_struct_tuple(t) && s && s->kind == FV_TUPLE &&
      s->tup.n == t->n) {
    kf_value *it = ARENA_ARRAY(b->arena, kf_value, t->n ? t->n : 1);
    for (unsigned i = 0; i < t->n; i++)
      if (!shape_node(b, &s->tup.elems[i], t->elems[i], &it[i])) return false;
    kf_value items = v_tuple(b, t->n, it);
    if (t->tclass) {
      kf_value *names = ARENA_ARRAY(b->arena, kf_value, t->n ? t->n : 1);
      for (unsigned i = 0; i < t->n; i++) names[i] = v_str(b, t->names[i]);
      kf_value parts[3] = {v_str(b, t->tclass), v_tuple(b, t->n, names), items};
      *out = node(b, "namedtuple", 3, parts);
    } else {
      *out = node(b, "tuple", 1, &items);
    }
    return true;
  }
  return type_node(b, t, out);
}

/* ---- one block ---- */

/* The nodes (below the root) and the string bytes of v. */
static void tree_count(const kf_value *v, size_t *nodes, size_t *chars) {
  if (v->path) *chars += strlen(v->path) + 1;
  *nodes += v->nitems;
  for (unsigned i = 0; i < v->nitems; i++) tree_count(&v->items[i], nodes, chars);
}

/* Copies v to dst, its items to *nodes and its strings to *chars (advancing both). */
static void tree_copy(const kf_value *v, kf_value *dst, kf_value **nodes, char **chars) {
  *dst = *v;
  dst->items = NULL;
  if (v->nitems) {
    kf_value *items = *nodes;
    *nodes += v->nitems;
    for (unsigned i = 0; i < v->nitems; i++) tree_copy(&v->items[i], &items[i], nodes, chars);
    dst->items = items;
  }
  if (v->path) {
    size_t len = strlen(v->path) + 1;
    memcpy(*chars, v->path, len);
    dst->path = *chars;
    *chars += len;
  }
}

/* The tree in one block of the current allocator: the root, the other nodes, then the strings. */
static kf_value *tree_finish(const kf_value *root) {
  size_t nodes = 0, chars = 0;
  tree_count(root, &nodes, &chars);
  kf_value *block = mem_alloc(sizeof(kf_value) * (1 + nodes) + chars);
  if (!block) return NULL;
  kf_value *next = block + 1;
  char *text = (char *)(block + 1 + nodes);
  tree_copy(root, block, &next, &text);
  return block;
}

/* ---- entry points (compile.h) ---- */

bool fe_type_tree(Diag *diag, const Type *t, kf_value **out) {
  *out = NULL;
  Arena a;
  arena_init(&a);
  TreeBuild b = {&a, diag, {0}};
  kf_value root;
  bool ok = type_node(&b, t, &root);
  if (ok && !(*out = tree_finish(&root))) {
    diag_out_of_memory(diag);
    ok = false;
  }
  arena_free(&a);
  return ok;
}

bool fe_sig_tree(FeCtx *fe, const FeSig *sig, kf_value **out) {
  *out = NULL;
  TreeBuild b = {&fe->arena, fe->diag, sig->loc};
  kf_value parts[2], *args = ARENA_ARRAY(&fe->arena, kf_value, sig->nargs ? sig->nargs : 1);
  if (sig->has_ret) {
    if (!type_node(&b, sig->ret, &parts[0])) return false;
  } else {
    parts[0] = v_none();
  }
  for (unsigned i = 0; i < sig->nargs; i++) {
    bool ok;
    if (sig->enums && sig->enums[i]) ok = enum_node(&b, sig->enums[i], &args[i]);
    else if (sig->shapes && sig->shapes[i].kind != FV_POISON) ok = shape_node(&b, &sig->shapes[i], sig->args[i], &args[i]);
    else {
      ok = type_node(&b, sig->args[i], &args[i]);
      if (ok && sig->readonly && sig->readonly[i]) ((kf_value *)args[i].items)[4] = v_bool(true);
    }
    if (!ok) return false;
  }
  parts[1] = v_tuple(&b, sig->nargs, args);
  kf_value root = node(&b, "signature", 2, parts);
  if (!(*out = tree_finish(&root))) {
    diag_out_of_memory(fe->diag);
    return false;
  }
  return true;
}
