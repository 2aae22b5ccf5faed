/* vectors.c — CUDA vector types as numba-cuda has them (numba.cuda.vector_types): float32x4, int8x2, uint64x3, ...
 * (ten base types, one to four fields) and their C-style aliases (float4, int2, uchar3, double1, long4, ...); their
 * names, their constructors' typing and their fields. lower_cuda.c lowers the constructor calls, lower.c the field reads.
 *
 * Representation. A vector type is a kir tuple type marked `vector` (ty_vector: vector<f32, 4>), distinct from the
 * plain UniTuple of its fields, and a vector value is an FV_VECTOR FeVal holding its fields as a tuple holds its
 * elements. The frontend scalarises vectors as it scalarises tuples: a local variable, a value carried by a loop or
 * merged after an if, a device function's argument or result is its fields, one kir value each, so no kir op, the
 * backend or the simulator ever sees a vector and nothing new is needed below the frontend. A real struct is not
 * needed for calls: kfront's device functions are called only by kfront code with flattened parameters (the
 * backend's ABI is kfront's own). Nor for memory: numba-cuda lets vector values live nowhere in memory — they are
 * not kernel arguments (no host value has a vector type), not array dtypes (cuda.local.array(n, float32x4) is
 * refused) and not kernel results — so CUDA's layout (float4 16-byte aligned) never has to be reproduced; should
 * vectors ever be stored, ty_vector's users are where that alignment would go.
 *
 * Typing, as numba-cuda's: the constructor of an N-field type has one case per way of writing N as a sequence of
 * scalars of the base type and vectors of that base type with 1..N fields (numba-cuda's
 * build_constructor_overloads); a scalar argument converts to the base type (unsafely too, as a ConcreteTemplate
 * allows), a vector argument only matches a vector type exactly. Fields read as .x .y .z .w; they are immutable
 * (numba-cuda documents that they cannot be assigned). numba-cuda defines no operators on vector types. */
#include <string.h>

#include "frontend/fe.h"

static const char *const base_names[] = {"int8",  "int16",  "int32",  "int64",   "uint8",
                                         "uint16", "uint32", "uint64", "float32", "float64"};
enum { NBASE = sizeof base_names / sizeof *base_names };

/* numba-cuda's aliases (map_vector_type_stubs_to_alias, with the C type sizes of Linux x86-64 and aarch64): the
 * alias prefix and the base type it names. */
static const struct {
  const char *alias;
  unsigned base;
} aliases[] = {{"char", 0},  {"short", 1},    {"int", 2},   {"long", 3},    {"longlong", 3},  {"uchar", 4},
               {"ushort", 5}, {"uint", 6},    {"ulong", 7}, {"ulonglong", 7}, {"float", 8},    {"double", 9}};

static const char *const canonical[NBASE * 4] = {
#define V(b) b "x1", b "x2", b "x3", b "x4"
    V("int8"), V("int16"), V("int32"), V("int64"), V("uint8"), V("uint16"), V("uint32"), V("uint64"), V("float32"),
    V("float64"),
#undef V
};

int vec_lookup(const char *name) {
  size_t n = strlen(name);
  if (n < 2 || name[n - 1] < '1' || name[n - 1] > '4') return -1;
  unsigned fields = (unsigned)(name[n - 1] - '0');
  for (unsigned b = 0; b < NBASE; b++)
    if (strlen(base_names[b]) == n - 2 && name[n - 2] == 'x' && memcmp(name, base_names[b], n - 2) == 0)
      return (int)(b * 4 + fields - 1);
  for (unsigned a = 0; a < sizeof aliases / sizeof *aliases; a++)
    if (strlen(aliases[a].alias) == n - 1 && memcmp(name, aliases[a].alias, n - 1) == 0)
      return (int)(aliases[a].base * 4 + fields - 1);
  return -1;
}

const char *vec_name(int k) { return k >= 0 && k < NBASE * 4 ? canonical[k] : "?"; }

Type *vec_type(IrContext *ctx, int k) {
  return ty_vector(ctx, nb_named_type(ctx, base_names[k / 4], NULL), (unsigned)(k % 4) + 1);
}

int vec_field(const Type *vt, const char *attr) {
  static const char names[] = "xyzw";
  if (!attr[0] || attr[1]) return -1;
  const char *p = strchr(names, attr[0]);
  return p && (unsigned)(p - names) < vt->n ? (int)(p - names) : -1;
}

bool vec_ctor_accepts(const Type *vt, Type *const *args, unsigned n, const char **why) {
  unsigned total = 0;
  int base = nb_kind(vt->elems[0]);
  for (unsigned i = 0; i < n; i++) {
    const Type *t = args[i];
    if (t && t->kind == TY_TUPLE && t->vector) {
      if (t->elems[0] != vt->elems[0]) return *why = "a vector argument must have the base type of the result", false;
      total += t->n;
    } else if (t && nb_kind(t) >= 0 && nb_can_convert(nb_kind(t), base) != CONV_NONE) {
      total++;
    } else {
      return *why = "each argument must be a number or a vector of the same base type", false;
    }
  }
  if (total != vt->n) return *why = "the arguments' fields must add up to the vector's", false;
  return true;
}
