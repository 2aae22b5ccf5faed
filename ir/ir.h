/* ir.h — kir, kfront's typed SSA IR: every IR structure and the functions over them.
 *
 * Like QBE's all.h, this one internal header declares the IR and, grouped under a heading per
 * file, the functions each ir/ file exports. The op set lives in ops.def (one table: name, counts,
 * traits, verifier, summary, example) and is expanded here into the OpKind enum and the op info table.
 *
 * Ownership: an IrContext owns interned types; a Module owns (in its arena) every op, value, block,
 * region, attribute and string of its IR. Nothing is freed node by node: erased ops are unlinked
 * and their uses dropped, their memory goes with the module.
 *
 * Memory (utils/mem.h): building, parsing, verifying and transforming IR run under a guard (the api/ and
 * runtime/ callers set it up), so their allocations do not fail. The IrContext and every Module keep their
 * memory whatever guard they are changed under (their arenas and tables belong to their own blocks), and
 * change publish-after-allocate; type interning also works outside a guard (the runtime's), returning NULL
 * when out of memory. A module a failed guard was transforming is consistent memory but may be half
 * transformed: destroy it.
 *
 * Structure: Module -> top-level ops (func.func, mem.global) in the module's body block;
 *            Op -> regions -> blocks (arguments + op list) -> ops ...
 *            Value = op result or block argument, with a doubly-linked list of its Uses. */
#ifndef KF_IR_IR_H
#define KF_IR_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utils/arena.h"
#include "utils/diag.h"
#include "utils/ptrmap.h"
#include "utils/strbuf.h"
#include "utils/strmap.h"

/* Regions nest at most IR_MAX_NESTING deep in a module the verifier accepts (and in kir text the parser reads,
 * attribute arrays counted): the passes, the printer, the simulator and the backend recurse once per level
 * and rely on it. */
enum { IR_MAX_NESTING = 256 };

typedef struct Type Type;
typedef struct Value Value;
typedef struct Use Use;
typedef struct Op Op;
typedef struct Block Block;
typedef struct Region Region;
typedef struct Module Module;
typedef struct IrContext IrContext;

/* ---------------------------------------------------------------------------------------------
 * Types (ir/types.c). Interned in an IrContext: equal types are the same pointer.
 * Text: i1 i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 complex<f32> ptr<f32, 1> array<f32, 2, C> tuple<i64, f32>
 *       (i64, f32) -> (f32)   (function type; `() -> ()` for no parameters and results)
 *       record<a: f64 @0, b: i32 @8, h: f32[2, 3] @12; size 40, align 8, aligned>   (a NumPy structured
 *       dtype: named fields at byte offsets, each a scalar, a record, or a fixed-shape nested array of
 *       one of those; its itemsize, alignment and whether NumPy laid it out with align=True)
 *       datetime64<D> timedelta64<s> timedelta64<>   (NumPy's datetime64 / timedelta64 of a unit, Numba's
 *       NPDatetime / NPTimedelta: a TY_INT of 64 bits with the unit in the type, so the simulator and the
 *       backend see an i64 and the frontend types the unit; NaT is INT64_MIN)
 *       fp8<e4m3> fp8x2<e5m2> fp8x4<e8m0> bf16raw   (CUDA's storage types of cuda_fp8.h and cuda_bf16.h: __nv_fp8_e4m3,
 *       __nv_fp8x2_e5m2, __nv_fp8x4_e8m0 (one, two or four FP8 values of a format, the first in the low byte) and
 *       __nv_bfloat16_raw: a TY_INT of 8, 16 or 32 (bf16raw: 16) unsigned bits with the storage in the type, so the
 *       simulator and the backend see an unsigned integer and the frontend types the format; lower_fp8.c)
 *       charseq<12> unicharseq<12>   (NumPy's S12 / U12 items, Numba's CharSeq / UnicodeCharSeq: a record whose
 *       one field `chars` is u8[12] / u32[12] at offset 0, so the simulator and the backend see a record)
 * ------------------------------------------------------------------------------------------- */
typedef enum {
  TY_BOOL,   /* i1 */
  TY_INT,    /* bits 8/16/32/64, is_unsigned */
  TY_FLOAT,  /* bits 16/32/64; a 16-bit float is binary16 (f16) or, with bfloat, bfloat16 (bf16) */
  TY_COMPLEX,/* elem: f32 (complex64) or f64 (complex128); two floats (re, im) as NumPy lays them out: a value of
              * the complex dialect, which lower-complex turns into its two floats before the simulator and
              * the backend see it (arrays keep complex elements) */
  TY_PTR,    /* elem, addrspace (0 generic, 1 global, 3 shared, 4 const, 5 local) */
  TY_ARRAY,  /* elem (a scalar or record type), rank >= 1, layout C/F/A: data pointer + shape + strides (rank 0, numba's
              * 0-d array, only in the types of attributes: such a kernel argument is passed as its array of one) */
  TY_TUPLE,  /* n elems */
  TY_FUNC,   /* n params (elems), nresults results */
  TY_RECORD, /* n fields (elems their element types, fields their names, offsets and nested shapes), size, align */
} TypeKind;

/* One field of a record: a scalar or record of type elems[i] at byte offset `offset`, or a C-contiguous nested
 * array of them of shape dims[0..ndims) (NumPy's subarray: ('v', np.float32, (3, 2))). */
enum { TY_MAX_FIELD_DIMS = 7 };
typedef struct RecordField {
  const char *name;
  const char *title;    /* NumPy's title of the field, or NULL: Numba's Record has an entry by the name and one by the
                         * title (both with this title), two fields at one offset */
  unsigned offset;
  unsigned ndims;
  unsigned dims[TY_MAX_FIELD_DIMS];
} RecordField;

typedef enum { LAYOUT_C = 'C', LAYOUT_F = 'F', LAYOUT_A = 'A' } ArrayLayout;

struct Type {
  TypeKind kind;
  unsigned bits;        /* TY_BOOL: 1; TY_INT/TY_FLOAT: width */
  bool is_unsigned;     /* TY_INT */
  bool bfloat;          /* TY_FLOAT of 16 bits: bfloat16 (8 exponent bits, 7 fraction bits), not binary16 */
  unsigned addrspace;   /* TY_PTR */
  Type *elem;           /* TY_PTR, TY_ARRAY */
  unsigned rank;        /* TY_ARRAY */
  char layout;          /* TY_ARRAY: ArrayLayout */
  unsigned n;           /* TY_TUPLE: elements; TY_FUNC: parameters */
  Type **elems;
  bool vector;          /* TY_TUPLE: a CUDA vector type (float32x4...): n (1-4) equal scalar fields x, y, z, w */
  unsigned char slice;  /* TY_TUPLE: Numba's slice2_type (2) or slice3_type (3, a step given): fields start, stop,
                           step of i64 */
  bool optional;        /* TY_TUPLE: Numba's Optional(T) (ty_optional): fields the value and an i1 "present" flag */
  const char *tclass;   /* TY_TUPLE: a named tuple's class (Numba's NamedTuple / NamedUniTuple), as the embedder
                         * names it ("mod.Point"), NULL for a plain tuple; two classes are two types */
  const char **names;   /* TY_TUPLE with tclass: the n field names */
  unsigned nresults;    /* TY_FUNC */
  Type **results;
  RecordField *fields;  /* TY_RECORD: n of them */
  unsigned size, align; /* TY_RECORD: itemsize and alignment in bytes */
  bool aligned;         /* TY_RECORD: NumPy's isalignedstruct (align=True) */
  unsigned char chars;  /* TY_RECORD: 0, or a NumPy bytes / str item (Numba's CharSeq / UnicodeCharSeq): the bytes of
                         * one character, 1 (S) or 4 (U, UCS-4); its one field `chars` the characters (ty_charseq) */
  unsigned char time;   /* TY_INT: 0, or a datetime64/timedelta64: 1 + its unit's code (TimeUnit) */
  bool datetime;        /* TY_INT with time: datetime64 (else timedelta64) */
  unsigned char storage; /* TY_INT: 0, or a CUDA storage type (TyStorage): its bits hold FP8 values or a bfloat16 */
  unsigned id;          /* interning order, for hashing */
};

enum { ADDR_GENERIC = 0, ADDR_GLOBAL = 1, ADDR_SHARED = 3, ADDR_CONST = 4, ADDR_LOCAL = 5 };

IrContext *ir_context_new(void);
void ir_context_free(IrContext *ctx);
Type *ty_bool(IrContext *ctx);
Type *ty_int(IrContext *ctx, unsigned bits, bool is_unsigned);
Type *ty_float(IrContext *ctx, unsigned bits);
Type *ty_complex(IrContext *ctx, Type *elem);  /* elem: f32 or f64 */
Type *ty_bf16(IrContext *ctx);
Type *ty_ptr(IrContext *ctx, Type *elem, unsigned addrspace);
Type *ty_array(IrContext *ctx, Type *elem, unsigned rank, char layout);
Type *ty_tuple(IrContext *ctx, unsigned n, Type *const *elems);
/* A named tuple (a collections.namedtuple or typing.NamedTuple class `tclass` whose fields are names[0..n), of types
 * elems): a tuple indexed, unpacked and iterated as a plain one, distinct from it and from other classes' (printed
 * namedtuple<"mod.Point", x: i64, y: f64>). Scalarised by the frontend as tuples are. */
Type *ty_named_tuple(IrContext *ctx, const char *tclass, const char *const *names, unsigned n, Type *const *elems);
/* The field of named tuple t called name (len bytes), or -1. */
int ty_tuple_field(const Type *t, const char *name, size_t len);
/* A CUDA vector type: a tuple of n (1-4) fields of the scalar type elem, distinct from the plain tuple (printed
 * vector<f32, 4>). Like tuples, its values are scalarised by the frontend and never reach kir ops. */
Type *ty_vector(IrContext *ctx, Type *elem, unsigned n);
/* A slice object's type, Numba's slice2_type (has_step false) or slice3_type: a tuple of three i64 fields (start,
 * stop, step), distinct from the plain tuple (printed slice2, slice3). Scalarised by the frontend like vectors. */
Type *ty_slice(IrContext *ctx, bool has_step);
/* Numba's Optional(T), T or None (a value that is None on some paths): a tuple of T and an i1 that is true where
 * the value is present, distinct from the plain tuple (printed optional<T>). Scalarised by the frontend like vectors
 * (frontend/optional.c); T is no optional. */
Type *ty_optional(IrContext *ctx, Type *t);
static inline bool ty_is_optional(const Type *t) { return t->kind == TY_TUPLE && t->optional; }
/* A tuple type that is a type of its own (a CUDA vector, a slice) rather than a Python tuple. */
static inline bool ty_is_struct_tuple(const Type *t) { return t->kind == TY_TUPLE && (t->vector || t->slice); }
Type *ty_func(IrContext *ctx, unsigned nparams, Type *const *params, unsigned nresults, Type *const *results);
/* A record of n fields (names copied; distinct, fields inside size, align a power of two): NULL when malformed. */
Type *ty_record(IrContext *ctx, unsigned n, const RecordField *fields, Type *const *types, unsigned size,
                unsigned align, bool aligned);
/* The field named name (len bytes) of a record, or -1. */
int ty_record_field(const Type *rec, const char *name, size_t len);
/* NumPy's bytes (S, unicode false: 1-byte characters) or str (U: UCS-4) item of count characters (count >= 1): a
 * record of one field `chars`, u8[count] or u32[count] at 0, aligned as its characters. NULL for a bad count. */
Type *ty_charseq(IrContext *ctx, bool unicode, unsigned count);
static inline bool ty_is_charseq(const Type *t) { return t->kind == TY_RECORD && t->chars; }
static inline unsigned ty_charseq_count(const Type *t) { return t->fields[0].dims[0]; }
/* Elements of a field (the product of its nested shape; 1 for a plain field). */
unsigned ty_field_count(const RecordField *f);
/* Alignment in bytes of a scalar (a complex: its parts'), pointer or record type. */
unsigned ty_align(const Type *t);
/* The alignment field k's elements are known to have in records that start at multiples of base bytes (a power
 * of two; 0: the record's own alignment): the largest power of two dividing base, the field's offset and the
 * record's size (a packed record's fields, in an array of such records, may sit at any byte). */
unsigned ty_field_align(const Type *rec, unsigned k, unsigned base);
/* The units of datetime64 and timedelta64 with Numba's codes (npdatetime_helpers.DATETIME_UNITS: code 3 unused, 14
 * generic, i.e. no unit). */
typedef enum {
  TU_Y = 0, TU_M = 1, TU_W = 2, TU_D = 4, TU_h = 5, TU_m = 6, TU_s = 7, TU_ms = 8, TU_us = 9, TU_ns = 10,
  TU_ps = 11, TU_fs = 12, TU_as = 13, TU_GENERIC = 14,
} TimeUnit;
enum { TU_COUNT = 15 };
/* datetime64 (datetime) or timedelta64 of unit u: a signed i64 with the unit in the type. */
Type *ty_time(IrContext *ctx, bool datetime, TimeUnit u);
/* NumPy's name of a unit ("D", "ms"; "" generic), NULL for code 3; and the code of a name of len bytes, or -1. */
const char *ty_time_unit_name(unsigned u);
int ty_time_unit_parse(const char *name, size_t len);
static inline bool ty_is_time(const Type *t) { return t->kind == TY_INT && t->time; }
/* CUDA's storage types (cuda_fp8.h's __nv_fp8_e4m3 ..., cuda_bf16.h's __nv_bfloat16_raw): the FP8 formats of the
 * OCP 8-bit floating point specification (E4M3: no infinities, NaN S.1111.111, largest 448; E5M2: IEEE-like,
 * largest 57344; E8M0: an unsigned power of two 2^(e - 127), 0xff NaN) and bfloat16's bits. */
typedef enum { TS_NONE, TS_E4M3, TS_E5M2, TS_E8M0, TS_BF16RAW } TyStorage;
/* count (1, 2, 4) FP8 values of format s (TS_E4M3 .. TS_E8M0), or, for TS_BF16RAW (count 1), a bfloat16's bits;
 * NULL for another combination. */
Type *ty_storage(IrContext *ctx, TyStorage s, unsigned count);
static inline bool ty_is_storage(const Type *t) { return t->kind == TY_INT && t->storage; }
static inline bool ty_is_fp8(const Type *t) { return t->kind == TY_INT && t->storage && t->storage != TS_BF16RAW; }
/* The name of an FP8 format in kir's text ("e4m3"), and the format a name of len bytes spells, or TS_NONE. */
const char *ty_fp8_format_name(TyStorage s);
TyStorage ty_fp8_format_parse(const char *name, size_t len);
static inline TimeUnit ty_time_unit(const Type *t) { return (TimeUnit)(t->time - 1); }
#define ty_i32(ctx) ty_int((ctx), 32, false)
#define ty_i64(ctx) ty_int((ctx), 64, false)
#define ty_u32(ctx) ty_int((ctx), 32, true)
#define ty_f32(ctx) ty_float((ctx), 32)
#define ty_f64(ctx) ty_float((ctx), 64)
static inline bool ty_is_int(const Type *t) { return t->kind == TY_INT; }
static inline bool ty_is_bool(const Type *t) { return t->kind == TY_BOOL; }
static inline bool ty_is_int_or_bool(const Type *t) { return t->kind == TY_INT || t->kind == TY_BOOL; }
static inline bool ty_is_float(const Type *t) { return t->kind == TY_FLOAT; }
/* binary16 (f16) and bfloat16 (bf16): the two 16-bit floats */
static inline bool ty_is_f16(const Type *t) { return t->kind == TY_FLOAT && t->bits == 16 && !t->bfloat; }
static inline bool ty_is_bf16(const Type *t) { return t->kind == TY_FLOAT && t->bfloat; }
/* Whether every value of float type `from` is a value of float type `to` (a widening conversion). */
static inline bool ty_float_holds(const Type *to, const Type *from) {
  return to == from || (to->bits > from->bits && !(to->bits == 16 && from->bits == 16));
}
static inline bool ty_is_scalar(const Type *t) { return t->kind <= TY_FLOAT; }
static inline bool ty_is_complex(const Type *t) { return t->kind == TY_COMPLEX; }
/* A scalar or a complex number: what an array may hold. */
static inline bool ty_is_number(const Type *t) { return t->kind <= TY_COMPLEX; }
static inline bool ty_is_array(const Type *t) { return t->kind == TY_ARRAY; }
static inline bool ty_is_record(const Type *t) { return t->kind == TY_RECORD; }
/* What an array may hold: a scalar or a record. */
static inline bool ty_is_element(const Type *t) { return ty_is_number(t) || t->kind == TY_RECORD; }
/* The rank of a parameter of type t in the kernel ABI (kfront/abi.h): an array's rank; 1 for a record (passed as
 * an array of one record); 0 for a scalar. */
static inline unsigned ty_abi_rank(const Type *t) { return t->kind == TY_ARRAY ? t->rank : t->kind == TY_RECORD ? 1 : 0; }
/* The element type of a parameter passed as an array (ty_abi_rank > 0): an array's elements, or the record. */
static inline Type *ty_abi_elem(Type *t) { return t->kind == TY_RECORD ? t : t->elem; }
/* Size in bytes of a scalar, complex, pointer or record type (i1 counts as 1; complex: two floats). */
unsigned ty_size(const Type *t);
void ty_print(const Type *t, StrBuf *out);
/* Parses one type from text[*pos..]; advances *pos. NULL (and *pos unchanged) on failure. */
Type *ty_parse(IrContext *ctx, const char *text, size_t len, size_t *pos);

/* ---------------------------------------------------------------------------------------------
 * Attributes: named, typed constants hung on ops.
 * Text: 42 : i64 | 2.5 : f32 | "str" | @symbol | true | false | <type> | [a, b, ...] | (unit: name alone)
 * An integer or float without `: type` is i64 / f64.
 * ------------------------------------------------------------------------------------------- */
typedef enum { ATTR_UNIT, ATTR_BOOL, ATTR_INT, ATTR_FLOAT, ATTR_STR, ATTR_SYM, ATTR_TYPE, ATTR_ARRAY } AttrKind;

typedef struct Attr Attr;
struct Attr {
  AttrKind kind;
  Type *type;          /* ATTR_INT, ATTR_FLOAT: the value's type; ATTR_TYPE: the type itself */
  union {
    bool b;
    int64_t i;         /* ATTR_INT (unsigned values stored as their bits) */
    double f;
    const char *s;     /* ATTR_STR, ATTR_SYM (without the @) */
    struct { unsigned n; Attr *elems; } arr;
  };
};

typedef struct NamedAttr {
  const char *name;
  Attr value;
} NamedAttr;

/* ---------------------------------------------------------------------------------------------
 * Enumerated attributes (ir/attr_enums.def, ir/attr_enums.c): string attributes whose value is one of a fixed list,
 * each list a C enum. kir's text spells them as strings; code reads and writes them as the enum.
 * ------------------------------------------------------------------------------------------- */
typedef enum IrAttrEnum {
#define ATTR_ENUM(Prefix, Type, fn, attr) IR_ENUM_##Prefix,
#define ATTR_ENUM_VALUE(Prefix, Name, text)
#define ATTR_ENUM_END(Prefix)
#include "attr_enums.def"
#undef ATTR_ENUM
#undef ATTR_ENUM_VALUE
#undef ATTR_ENUM_END
  IR_ENUM__COUNT
} IrAttrEnum;

/* enum IrCmpIPred { IR_CMPI_INVALID = -1, IR_CMPI_EQ, ... } and its number of values IR_CMPI__COUNT (outside the
 * enum: a switch over one names each value, IR_CMPI_INVALID too, or has a default), and the others, typedef'd to
 * their names below */
#define ATTR_ENUM(Prefix, Type, fn, attr) enum Type { IR_##Prefix##_INVALID = -1,
#define ATTR_ENUM_VALUE(Prefix, Name, text) IR_##Prefix##_##Name,
#define ATTR_ENUM_END(Prefix) };
#include "attr_enums.def"
#undef ATTR_ENUM
#undef ATTR_ENUM_VALUE
#undef ATTR_ENUM_END
#define ATTR_ENUM(Prefix, Type, fn, attr) enum { IR_##Prefix##__COUNT = 0
#define ATTR_ENUM_VALUE(Prefix, Name, text) +1
#define ATTR_ENUM_END(Prefix) };
#include "attr_enums.def"
#undef ATTR_ENUM
#undef ATTR_ENUM_VALUE
#undef ATTR_ENUM_END
#define ATTR_ENUM(Prefix, Type, fn, attr) typedef enum Type Type;
#define ATTR_ENUM_VALUE(Prefix, Name, text)
#define ATTR_ENUM_END(Prefix)
#include "attr_enums.def"
#undef ATTR_ENUM
#undef ATTR_ENUM_VALUE
#undef ATTR_ENUM_END

/* The name of the op attribute that holds enumeration e ("pred", "kind", "mode", ...) and its number of values. */
const char *ir_enum_attr_name(IrAttrEnum e);
unsigned ir_enum_count(IrAttrEnum e);
/* Value v's kir spelling, NULL when v is not one of e's values. */
const char *ir_enum_name(IrAttrEnum e, int v);
/* The value spelled s (NUL-terminated), -1 when s is NULL or spells none of e's values. */
int ir_enum_parse(IrAttrEnum e, const char *s);
/* e's spellings in order, each in quotes or not, separated by ", " ("eq, ne, slt, ..."), into out. */
void ir_enum_list(IrAttrEnum e, bool quoted, StrBuf *out);
/* op's attribute of enumeration e (its ir_enum_attr_name: a string, or a symbol, as ir_op_attr_str reads it) as a
 * value; -1 when it is missing or spells none of e's values. */
int ir_op_enum_attr(const Op *op, IrAttrEnum e);
/* Sets op's attribute of enumeration e to value v (one of e's values), as its kir spelling. */
void ir_op_set_enum_attr(Module *m, Op *op, IrAttrEnum e, int v);
/* Typed forms, per enumeration (fn from the table): const char *ir_cmpi_pred_name(IrCmpIPred),
 * IrCmpIPred ir_cmpi_pred_parse(const char *), IrCmpIPred ir_op_cmpi_pred(const Op *) (IR_CMPI_INVALID when missing
 * or unknown), void ir_op_set_cmpi_pred(Module *, Op *, IrCmpIPred); likewise cmpf_pred, round_mode, atomic_kind,
 * shuffle_mode, vote_mode, match_mode, barrier_reduce_kind, fence_scope. */
#define ATTR_ENUM(Prefix, Type, fn, attr)                                                                          \
  static inline const char *ir_##fn##_name(Type v) { return ir_enum_name(IR_ENUM_##Prefix, (int)v); }               \
  static inline Type ir_##fn##_parse(const char *s) { return (Type)ir_enum_parse(IR_ENUM_##Prefix, s); }            \
  static inline Type ir_op_##fn(const Op *op) { return (Type)ir_op_enum_attr(op, IR_ENUM_##Prefix); }               \
  static inline void ir_op_set_##fn(Module *m, Op *op, Type v) { ir_op_set_enum_attr(m, op, IR_ENUM_##Prefix, (int)v); }
#define ATTR_ENUM_VALUE(Prefix, Name, text)
#define ATTR_ENUM_END(Prefix)
#include "attr_enums.def"
#undef ATTR_ENUM
#undef ATTR_ENUM_VALUE
#undef ATTR_ENUM_END
/* The predicate that compares the operands the other way round (slt -> sgt, olt -> ogt; eq, ne, ord, uno: itself). */
IrCmpIPred ir_cmpi_pred_swapped(IrCmpIPred p);
IrCmpFPred ir_cmpf_pred_swapped(IrCmpFPred p);

/* ---------------------------------------------------------------------------------------------
 * Values and uses.
 * ------------------------------------------------------------------------------------------- */
struct Use {
  Value *value;      /* the used value (NULL while unset) */
  Op *user;
  unsigned index;    /* operand number in user */
  Use *next, **prevp; /* the value's use list */
};

struct Value {
  Type *type;
  Use *uses;         /* head of the use list */
  Op *def;           /* defining op, or NULL for a block argument */
  Block *block;      /* block of a block argument (NULL for op results) */
  unsigned index;    /* result number or argument number */
  unsigned id;       /* scratch numbering for printers and passes */
};

static inline bool value_has_uses(const Value *v) { return v->uses != NULL; }
static inline bool value_has_one_use(const Value *v) { return v->uses && !v->uses->next; }

/* ---------------------------------------------------------------------------------------------
 * Ops: the table.
 * ------------------------------------------------------------------------------------------- */
typedef enum {
#define OP(Id, name, nopnds, nres, nregions, nsuccs, traits, verifier, summary, example) OP_##Id,
#include "ops.def"
#undef OP
  OP__COUNT
} OpKind;

enum {
  OPT_PURE = 1u << 0,
  OPT_COMM = 1u << 1,
  OPT_TERM = 1u << 2,
  OPT_CONST = 1u << 3,
  OPT_NOREC = 1u << 4,
  OPT_LOOP = 1u << 5,
  OPT_MEM_READ = 1u << 6,
  OPT_MEM_WRITE = 1u << 7,
  OPT_BARRIER = 1u << 8,
  OPT_CONVERGENT = 1u << 9,
};

typedef struct OpInfo {
  const char *name;     /* "dialect.op" */
  int noperands;        /* -1: variadic */
  int nresults;         /* -1: variadic */
  int nregions;
  int nsuccessors;      /* -1: variadic */
  unsigned traits;
  const char *summary;
  const char *example;
} OpInfo;

extern const OpInfo ir_op_info[OP__COUNT];
/* Op kind from its name, or -1. */
int ir_op_lookup(const char *name, size_t len);
static inline bool op_kind_has(OpKind k, unsigned trait) { return (ir_op_info[k].traits & trait) != 0; }
/* The enumeration of a comparison's attr pred: IR_ENUM_CMPI for arith.cmpi, IR_ENUM_CMPF for arith.cmpf. */
static inline IrAttrEnum ir_cmp_pred_enum(OpKind k) { return k == OP_CMPI ? IR_ENUM_CMPI : IR_ENUM_CMPF; }

/* ---------------------------------------------------------------------------------------------
 * Ops, blocks, regions.
 * ------------------------------------------------------------------------------------------- */
struct Op {
  OpKind kind;
  SrcLoc loc;
  unsigned noperands;
  Use *operands;         /* noperands entries; successor operands come last, per successor */
  unsigned nresults;
  Value *results;
  unsigned nregions;
  Region *regions;
  unsigned nsuccessors;
  Block **successors;
  unsigned *succ_operand_count; /* per successor: how many of the trailing operands it takes */
  unsigned nattrs;
  NamedAttr *attrs;
  Block *block;          /* containing block */
  Op *prev, *next;       /* in the block's op list */
  unsigned id;           /* scratch for passes */
};

struct Block {
  Region *region;        /* parent region */
  Block *prev, *next;
  Op *first, *last;
  unsigned nargs, args_cap;
  Value **args;
  unsigned id;           /* scratch for printers and passes */
};

struct Region {
  Op *parent;            /* the op owning this region (NULL for the module body) */
  Block *first, *last;
};

struct Module {
  IrContext *ctx;
  Arena arena;
  Region body;           /* one block holding func.func and mem.global ops */
  const char *name;
  StrMap symbols;        /* sym_name -> Op*, maintained by ir_module_add_symbol / lookups */
};

static inline Value *op_operand(const Op *op, unsigned i) { return op->operands[i].value; }
static inline Value *op_result(const Op *op, unsigned i) { return &op->results[i]; }
static inline const char *op_name(const Op *op) { return ir_op_info[op->kind].name; }
static inline bool op_has(const Op *op, unsigned trait) { return op_kind_has(op->kind, trait); }
static inline Block *region_entry(const Region *r) { return r->first; }
/* Number of operands that belong to no successor. */
unsigned op_num_main_operands(const Op *op);
/* Index of successor s's first operand. */
unsigned op_succ_operand_start(const Op *op, unsigned s);

/* ---- ir/ir.c: creation, mutation, walking -------------------------------------------------- */
Module *ir_module_new(IrContext *ctx, const char *name);
void ir_module_free(Module *m);
Block *ir_module_body(Module *m);

/* Creates an unlinked op. operands may be NULL (then all unset); result_types may be NULL when nresults is 0.
 * Regions are created empty. */
Op *ir_op_create(Module *m, OpKind kind, SrcLoc loc, unsigned noperands, Value *const *operands,
                 unsigned nresults, Type *const *result_types, unsigned nregions);
/* Sets the successors of an unlinked or linked op; succ_operands[s] counts that successor's operands,
 * which must already be the last operands of op. */
void ir_op_set_successors(Module *m, Op *op, unsigned n, Block *const *succs, const unsigned *succ_operand_count);
void ir_op_set_operand(Op *op, unsigned i, Value *v);
/* Replaces the whole operand list (uses are relinked). */
void ir_op_set_operands(Module *m, Op *op, unsigned n, Value *const *operands);
void ir_op_insert_before(Op *before, Op *op);
void ir_op_insert_after(Op *after, Op *op);
void ir_block_append(Block *b, Op *op);
void ir_block_prepend(Block *b, Op *op);
/* Unlinks op from its block (keeps its operands' uses). */
void ir_op_unlink(Op *op);
/* Unlinks op and drops every use it (and ops nested in its regions) makes. Its results must be unused. */
void ir_op_erase(Op *op);
/* Drops the operand uses of op and of every op nested in it (before erasing a whole tree). */
void ir_op_drop_uses(Op *op);
void ir_value_replace_all_uses(Value *from, Value *to);
unsigned ir_value_num_uses(const Value *v);

/* Attributes. Names are interned into the module arena by the setters. */
Attr *ir_op_attr(const Op *op, const char *name);
void ir_op_set_attr(Module *m, Op *op, const char *name, Attr value);
bool ir_op_remove_attr(Op *op, const char *name);
Attr attr_unit(void);
Attr attr_bool(bool b);
Attr attr_int(Type *type, int64_t v);
Attr attr_float(Type *type, double v);
Attr attr_str(Module *m, const char *s);
Attr attr_sym(Module *m, const char *s);
Attr attr_type(Type *t);
Attr attr_array(Module *m, unsigned n, const Attr *elems);
bool attr_equal(const Attr *a, const Attr *b);
/* A number attribute (int, float or bool; 0 for other kinds) as a double, and as an integer, as a const
 * global's element of that kind holds it: a float converted as arith.fptosi runs (sem_float_to_int). */
double attr_number_f(const Attr *a);
int64_t attr_number_i(const Attr *a);
bool attr_is_number(const Attr *a); /* int, float or bool */
/* Shorthands that return a default when the attribute is missing or of another kind. */
int64_t ir_op_attr_int(const Op *op, const char *name, int64_t dflt);
const char *ir_op_attr_str(const Op *op, const char *name);   /* ATTR_STR or ATTR_SYM, else NULL */
Type *ir_op_attr_type(const Op *op, const char *name);

Block *ir_block_new(Module *m);
void ir_region_append_block(Region *r, Block *b);
void ir_region_insert_block_after(Region *r, Block *after, Block *b);
void ir_block_unlink(Block *b);
Value *ir_block_add_arg(Module *m, Block *b, Type *t);
/* Removes argument i (must be unused); later arguments shift down. */
void ir_block_erase_arg(Block *b, unsigned i);
/* Moves ops [first .. end of its block] to the end of dest. */
void ir_block_splice_tail(Block *dest, Op *first);
/* The terminator of b (its last op, if it has the TERM trait) or NULL. */
Op *ir_block_terminator(const Block *b);
/* The op whose region holds b, or NULL at module level. */
static inline Op *ir_block_parent_op(const Block *b) { return b->region ? b->region->parent : NULL; }
/* Nearest enclosing func.func of an op, or NULL. */
Op *ir_op_parent_func(const Op *op);
bool ir_op_is_ancestor(const Op *ancestor, const Op *op);

/* Functions and symbols. */
Op *ir_func_create(Module *m, const char *name, Type *fn_type, SrcLoc loc);
const char *ir_func_name(const Op *func);
Type *ir_func_type(const Op *func);
Block *ir_func_entry(const Op *func);
Op *ir_module_lookup(Module *m, const char *sym);
/* The func.func a func.call op calls (its `callee` symbol), or NULL when op is not a call or names nothing
 * defined in m. The one definition of "what a call calls", for every walk over a kernel's callees. */
Op *ir_call_target(Module *m, const Op *op);
/* The walk over the functions func calls, transitively (the one callee walk: grid-stride, the runtime's
 * static shared-memory size, tiling): fn gets each func.func once, in the order of first call (pre-order,
 * depth first), with the call that reached it; a call that names nothing defined in m comes with callee
 * NULL (each such call). func itself is not visited (a call back to it is skipped). fn returning false
 * stops the walk (IR_WALK_STOPPED). The set of functions seen is allocated: outside a guard (utils/mem.h) the
 * walk can end with IR_WALK_NO_MEMORY, which the caller reports. */
typedef bool (*IrCalleeFn)(Op *callee, Op *call, void *user);
typedef enum IrWalkEnd { IR_WALK_DONE = 0, IR_WALK_STOPPED, IR_WALK_NO_MEMORY } IrWalkEnd;
IrWalkEnd ir_walk_callees(Module *m, Op *func, IrCalleeFn fn, void *user);
/* Whether func can call itself: a call to it in its body or in a function it calls, transitively (self or
 * mutual recursion). *no_memory is set when the walk could not keep its set (outside a guard). */
bool ir_func_recursive(Module *m, Op *func, bool *no_memory);
/* Registers a top-level op (func.func or mem.global) under its sym_name attribute. */
void ir_module_add_symbol(Module *m, Op *op);
void ir_module_rebuild_symbols(Module *m);

/* Walks: callback gets each op, outer before inner (pre-order) or inner first (post-order).
 * The callback may erase the op it is given in post-order walks. Returning false stops the walk. */
typedef bool (*OpWalkFn)(Op *op, void *user);
bool ir_walk_pre(Op *root, OpWalkFn fn, void *user);
bool ir_walk_post(Op *root, OpWalkFn fn, void *user);
bool ir_walk_module(Module *m, OpWalkFn fn, void *user);
/* The walk both are made of (and kir.h's kf_op_walk): fn says, for each op, whether to go on (IR_WALK_ADVANCE),
 * to leave the op's regions unvisited (IR_WALK_SKIP: in a pre-order walk; in a post-order one they were visited
 * already, and it goes on) or to stop (IR_WALK_INTERRUPT, which the walk returns; else IR_WALK_ADVANCE). The
 * callback may erase or move the op it is given in a post-order walk, and in a pre-order one when it returns
 * IR_WALK_SKIP or IR_WALK_INTERRUPT; no other op. */
typedef enum IrWalkStep { IR_WALK_ADVANCE, IR_WALK_SKIP, IR_WALK_INTERRUPT } IrWalkStep;
typedef enum IrWalkOrder { IR_WALK_PRE, IR_WALK_POST } IrWalkOrder;
typedef IrWalkStep (*IrWalkStepFn)(Op *op, void *user);
IrWalkStep ir_walk(Op *root, IrWalkOrder order, IrWalkStepFn fn, void *user);
/* Number of ops nested under root (root included). */
size_t ir_count_ops(Op *root);

/* ---- ir/clone.c: copying ops ----------------------------------------------------------------- */
/* A copy of op (of module m) and everything in its regions, unlinked, in m. Operands are remapped through
 * map (old Value * -> new Value *; a value absent from it stays itself), which also receives every result,
 * block argument (and Block *, for successors) of the copy, keyed by the original's; map may be NULL. */
Op *ir_op_clone(Module *m, const Op *op, PtrMap *map);
/* A copy of module src, in src's context. The copy's attributes share src's (immutable) attribute values and
 * strings: src must outlive it. Under a guard (utils/mem.h). */
Module *ir_module_clone(Module *src);

/* ---- ir/builder.c: building ops at an insertion point ------------------------------------- */
typedef struct IrBuilder {
  Module *m;
  IrContext *ctx;
  Block *block;   /* insertion block */
  Op *before;     /* insert before this op; NULL = at the end of block */
  SrcLoc loc;     /* location given to new ops */
} IrBuilder;

void ib_init(IrBuilder *b, Module *m);
void ib_set_end(IrBuilder *b, Block *block);
void ib_set_before(IrBuilder *b, Op *op);
void ib_set_after(IrBuilder *b, Op *op);
/* Inserts a created op at the insertion point and returns it. */
Op *ib_insert(IrBuilder *b, Op *op);
Op *ib_op(IrBuilder *b, OpKind kind, unsigned noperands, Value *const *operands, unsigned nresults,
          Type *const *result_types, unsigned nregions);
Value *ib_const_int(IrBuilder *b, Type *t, int64_t v);
Value *ib_const_float(IrBuilder *b, Type *t, double v);
Value *ib_const_bool(IrBuilder *b, bool v);
Value *ib_unary(IrBuilder *b, OpKind kind, Value *a, Type *result);  /* result NULL: a's type */
Value *ib_binary(IrBuilder *b, OpKind kind, Value *x, Value *y);     /* result type: x's */
Value *ib_cmpi(IrBuilder *b, IrCmpIPred pred, Value *x, Value *y);
Value *ib_cmpf(IrBuilder *b, IrCmpFPred pred, Value *x, Value *y);
Value *ib_select(IrBuilder *b, Value *c, Value *x, Value *y);
/* Converts between any two scalar types with Numba's cast rules (int widths, signedness, float, bool). */
Value *ib_cast(IrBuilder *b, Value *v, Type *to);
Value *ib_gpu_id(IrBuilder *b, OpKind kind, unsigned dim); /* gpu.thread_id/block_id/block_dim/grid_dim */
Value *ib_dim(IrBuilder *b, Value *array, unsigned axis);

/* Python's range(lb, ub, step) over i64 without overflow, for loops that test before each step (the one
 * definition of a counted loop's tests: lower-scf's scf.for, the frontend's range loops with break).
 * ib_range_init emits, at the builder, what is computed once: for a step counting up, lim = ub - step (MIN
 * where that is below MIN); counting down, lim = ub - step (MAX where above MAX); for a step whose sign is
 * known only at run time, both in the flipped order (x ^ f, f = step >> 63: all ones counting down, where
 * ~x < ~y is x > y); nothing for a constant step of 1 or -1. `dir` is 1 or -1 when the step's sign is known
 * (a constant step's own sign wins), 0 when not. ib_range_in(iv) is whether iv is an item: iv < ub (iv > ub
 * counting down). ib_range_step(iv), for an item iv, makes *next = iv + step and returns whether it is an
 * item too, tested on iv (iv < lim, iv > lim) so that a step past the range may wrap unobserved, or on
 * *next itself for a step of 1 or -1 (which cannot wrap). A step of 0 (which range() refuses) runs while
 * lb < ub, without end. */
typedef struct IbRange {
  int dir;                /* 1 up, -1 down, 0 by the run-time sign (flip set) */
  bool unit;              /* the step is the constant 1 or -1 */
  Value *ub, *lim, *flip; /* ub and lim flipped (x ^ flip) when dir == 0 */
  Value *step;
} IbRange;
IbRange ib_range_init(IrBuilder *b, Value *ub, Value *step, int dir);
Value *ib_range_in(IrBuilder *b, const IbRange *r, Value *iv);
Value *ib_range_step(IrBuilder *b, const IbRange *r, Value *iv, Value **next);

/* ---- ir/print.c: the text form --------------------------------------------------------------- */
typedef struct IrPrintOptions {
  bool debug_info;      /* print loc(...) on every op that has a location */
} IrPrintOptions;
void ir_print_module(Module *m, const IrPrintOptions *opts, StrBuf *out);
void ir_print_op(Op *op, const IrPrintOptions *opts, StrBuf *out);
void attr_print(const Attr *a, StrBuf *out);

/* ---- ir/parse.c: reading the text form ------------------------------------------------------ */
/* Parses a whole module from text. Errors go to diag, located in `filename`; returns NULL on any error.
 * text need not be NUL-terminated. It is registered with diag_add_source so diagnostics quote its lines:
 * on success it stays registered (keep text alive while diag may report into it, or diag_remove_source
 * it); on failure it is removed again. Locations keep `filename`. */
Module *ir_parse_module(IrContext *ctx, Diag *diag, const char *filename, const char *text, size_t len);

/* ---- ir/verify.c: structural and per-op rules ------------------------------------------------ */
/* Reports every violation to diag at the op's location; returns true if the module is valid. */
bool ir_verify_module(Module *m, Diag *diag);
bool ir_verify_op(Op *op, Diag *diag);

/* ---- ir/dominance.c ------------------------------------------------------------------------- */
typedef struct DomTree DomTree;
/* Dominator tree of the blocks of one region (unreachable blocks have no dominator). */
DomTree *dom_compute(Region *r);
void dom_free(DomTree *d);
bool dom_block_dominates(const DomTree *d, const Block *a, const Block *b);
bool dom_block_reachable(const DomTree *d, const Block *b);
/* The immediate dominator of b; NULL for the entry and for blocks that are unreachable or not of d's region. */
Block *dom_idom(const DomTree *d, const Block *b);
/* The *n blocks reachable from the entry, in dominator-tree pre-order (the entry first, each subtree
 * contiguous, children in region order). Owned by d: valid until dom_free, while the region's blocks and
 * edges do not change. A scoped walk: for each block, close scopes until the innermost is its dom_idom,
 * then open its own. */
Block *const *dom_preorder(const DomTree *d, unsigned *n);
/* Whether value v is visible (properly dominates) at op `user`, across nested regions. The cache keeps one
 * DomTree per region; pass NULL to compute on the fly. */
typedef struct DomCache DomCache;
DomCache *dom_cache_new(void);
void dom_cache_free(DomCache *c);
bool dom_value_dominates(DomCache *c, const Value *v, const Op *user);

#endif
