/* dtype.c — the runtime's element types (kf_dtype: size, Numba's name, parsing, NumPy's safe casts) and
 * host-side array facts (element count, contiguity as NumPy defines it, gathering elements in C order). One
 * table for every scalar dtype; record dtypes (NumPy structured dtypes) in a process-wide registry below. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "frontend/compile.h"
#include "runtime/runtime.h"
#include "utils/mem.h"

/* ---- record dtypes ----------------------------------------------------------------------------------
 * kf_dtype KF_DTYPE_RECORD_BASE + i is records[i]: a record layout, interned by its Numba spelling (the
 * frontend's one grammar, fe_record_parse, read and printed back canonically), so one layout has one dtype in
 * the whole process, whichever context or runtime registered it. Entries are published once (an atomic
 * pointer, then the count) and never change or go: lookups take no lock. They are made with the default
 * allocator (no context's allocator holds them) and live until the process ends. */
typedef struct RecDtype {
  char *spelling;
  size_t size, align;
} RecDtype;
static RecDtype *_Atomic records[KF_MAX_RECORD_DTYPES];
static atomic_uint nrecords;
static pthread_mutex_t records_lock = PTHREAD_MUTEX_INITIALIZER;

static const RecDtype *record_of(kf_dtype t) {
  unsigned i = (unsigned)t - KF_DTYPE_RECORD_BASE;
  if ((unsigned)t < KF_DTYPE_RECORD_BASE || i >= atomic_load(&nrecords)) return NULL;
  return atomic_load(&records[i]);
}

bool rt_dtype_is_record(kf_dtype t) { return record_of(t) != NULL; }

/* ---- datetime64 and timedelta64 -------------------------------------------------------------------------- */

static bool time_of(kf_dtype t, bool *datetime, unsigned *unit) {
  unsigned u = (unsigned)t;
  *datetime = u < KF_DTYPE_TIMEDELTA64;
  *unit = u - (*datetime ? KF_DTYPE_DATETIME64 : KF_DTYPE_TIMEDELTA64);
  return u >= KF_DTYPE_DATETIME64 && *unit < KF_DTYPE_TIME_UNITS && ty_time_unit_name(*unit);
}

bool rt_dtype_is_time(kf_dtype t) {
  bool dt;
  unsigned u;
  return time_of(t, &dt, &u);
}

/* Numba's names, datetime64[D], in the signature syntax: the units that are no Python name as NPDatetime('as'),
 * NPTimedelta('') (Numba's datetime64[as], timedelta64[]). */
static const char *time_name(kf_dtype t) {
  static const char *const names[2][KF_DTYPE_TIME_UNITS] = {
      {"timedelta64[Y]", "timedelta64[M]", "timedelta64[W]", NULL, "timedelta64[D]", "timedelta64[h]",
       "timedelta64[m]", "timedelta64[s]", "timedelta64[ms]", "timedelta64[us]", "timedelta64[ns]",
       "timedelta64[ps]", "timedelta64[fs]", "NPTimedelta('as')", "NPTimedelta('')"},
      {"datetime64[Y]", "datetime64[M]", "datetime64[W]", NULL, "datetime64[D]", "datetime64[h]", "datetime64[m]",
       "datetime64[s]", "datetime64[ms]", "datetime64[us]", "datetime64[ns]", "datetime64[ps]", "datetime64[fs]",
       "NPDatetime('as')", "NPDatetime('')"}};
  bool dt;
  unsigned u;
  return time_of(t, &dt, &u) ? names[dt][u] : NULL;
}

static bool time_parse(const char *text, kf_dtype *out) {
  for (unsigned k = KF_DTYPE_DATETIME64; k < KF_DTYPE_TIMEDELTA64 + KF_DTYPE_TIME_UNITS; k++)
    if (time_name((kf_dtype)k) && strcmp(text, time_name((kf_dtype)k)) == 0) {
      *out = (kf_dtype)k;
      return true;
    }
  bool dt = strncmp(text, "datetime64[", 11) == 0;
  if (!dt && strncmp(text, "timedelta64[", 12) != 0) return false;
  const char *u = text + (dt ? 11 : 12), *end = strchr(u, ']');
  int code = end && end[1] == 0 ? ty_time_unit_parse(u, (size_t)(end - u)) : -1;
  if (code < 0) return false;
  *out = (kf_dtype)((dt ? KF_DTYPE_DATETIME64 : KF_DTYPE_TIMEDELTA64) + code);
  return true;
}

size_t rt_dtype_align(kf_dtype t) {
  const RecDtype *r = record_of(t);
  return r ? r->align : rt_dtype_size(t);
}

/* The dtype of a record type (interning it). False when out of memory or the registry is full. */
bool rt_record_dtype_of(const Type *t, kf_dtype *out) {
  StrBuf b;
  sb_init(&b);
  fe_record_spell(t, &b);
  if (sb_failed(&b)) {
    sb_free(&b);
    return false;
  }
  bool ok = false;
  MemGuard *g = mem_guard_pause();
  MemAllocator prev = mem_set_allocator(mem_default_allocator());
  pthread_mutex_lock(&records_lock);
  unsigned n = atomic_load(&nrecords);
  for (unsigned i = 0; i < n && !ok; i++)
    if (strcmp(atomic_load(&records[i])->spelling, sb_cstr(&b)) == 0) {
      *out = (kf_dtype)(KF_DTYPE_RECORD_BASE + i);
      ok = true;
    }
  if (!ok && n < KF_MAX_RECORD_DTYPES) {
    RecDtype *r = mem_alloc(sizeof *r);
    char *sp = mem_strdup(sb_cstr(&b));
    if (r && sp) {
      r->spelling = sp;
      r->size = t->size;
      r->align = t->align;
      atomic_store(&records[n], r);
      atomic_store(&nrecords, n + 1);
      *out = (kf_dtype)(KF_DTYPE_RECORD_BASE + n);
      ok = true;
    } else {
      mem_free(r);
      mem_free(sp);
    }
  }
  pthread_mutex_unlock(&records_lock);
  mem_set_allocator(prev);
  mem_guard_resume(g);
  sb_free(&b);
  return ok;
}

bool rt_record_dtype_parse(const char *spelling, kf_dtype *out, const char **why) {
  IrContext *ctx = ir_context_new();
  if (!ctx) {
    *why = "out of memory";
    return false;
  }
  size_t len = strlen(spelling), pos = 0;
  Type *t = fe_record_parse(ctx, spelling, len, &pos, why);
  bool ok = false;
  if (t && pos != len) *why = "unexpected text after the record type";
  else if (t && !(ok = rt_record_dtype_of(t, out))) *why = "out of memory, or too many record dtypes";
  ir_context_free(ctx);
  return ok;
}

/* NumPy's typestr of a bytes or str item: '|S12', '<U12'. */
static void charseq_descr(const Type *t, StrBuf *out) {
  sb_printf(out, "'%s%u'", t->chars == 4 ? "<U" : "|S", ty_charseq_count(t));
}

/* NumPy's descr list of a record type: its fields in offset order, '' padding fields ('|Vn') for the gaps and the
 * tail, nested records as nested lists, nested arrays with their shape (what np.save writes). */
static void record_descr(const Type *t, StrBuf *out) {
  static const char *codes[] = {"|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8"};
  sb_putc(out, '[');
  unsigned at = 0;
  for (unsigned i = 0; i < t->n; i++) {
    const RecordField *f = &t->fields[i];
    if (f->offset > at) sb_printf(out, "('', '|V%u'), ", f->offset - at);
    sb_printf(out, "('%s', ", f->name);
    kf_dtype d;
    if (ty_is_charseq(t->elems[i])) charseq_descr(t->elems[i], out);
    else if (ty_is_time(t->elems[i])) { /* '<M8[D]', '<m8' (generic) */
      const Type *e = t->elems[i];
      bool generic = ty_time_unit(e) == TU_GENERIC;
      sb_printf(out, "'<%c8%s%s%s'", e->datetime ? 'M' : 'm', generic ? "" : "[", ty_time_unit_name(ty_time_unit(e)),
                generic ? "" : "]");
    }
    else if (t->elems[i]->kind == TY_RECORD) record_descr(t->elems[i], out);
    else if (rt_type_dtype(t->elems[i], &d)) sb_printf(out, "'%s'", codes[d]);
    if (f->ndims) {
      sb_puts(out, ", (");
      for (unsigned k = 0; k < f->ndims; k++) sb_printf(out, "%s%u", k ? ", " : "", f->dims[k]);
      sb_puts(out, f->ndims == 1 ? ",)" : ")");
    }
    sb_puts(out, "), ");
    unsigned end = f->offset + ty_size(t->elems[i]) * ty_field_count(f);
    if (end > at) at = end;
  }
  if (t->size > at) sb_printf(out, "('', '|V%u'), ", t->size - at);
  sb_putc(out, ']');
}

bool rt_record_descr(kf_dtype t, StrBuf *out) {
  IrContext *ctx = ir_context_new();
  Type *rec = ctx ? rt_record_type(ctx, t) : NULL;
  if (rec && ty_is_charseq(rec)) charseq_descr(rec, out);
  else if (rec) record_descr(rec, out);
  ir_context_free(ctx);
  return rec && !sb_failed(out);
}

Type *rt_record_type(IrContext *ctx, kf_dtype t) {
  const RecDtype *r = record_of(t);
  if (!r) return NULL;
  const char *why;
  return fe_record_parse(ctx, r->spelling, strlen(r->spelling), NULL, &why);
}

static const struct {
  const char *name, *short_name;
  size_t size;
  bool is_float, is_unsigned, is_complex;
} dtypes[KF_DTYPE_COUNT] = {
    [KF_BOOL] = {"boolean", "b1", 1},
    [KF_INT8] = {"int8", "i8", 1},
    [KF_INT16] = {"int16", "i16", 2},
    [KF_INT32] = {"int32", "i32", 4},
    [KF_INT64] = {"int64", "i64", 8},
    [KF_UINT8] = {"uint8", "u8", 1, false, true},
    [KF_UINT16] = {"uint16", "u16", 2, false, true},
    [KF_UINT32] = {"uint32", "u32", 4, false, true},
    [KF_UINT64] = {"uint64", "u64", 8, false, true},
    [KF_FLOAT16] = {"float16", "f16", 2, true},
    [KF_FLOAT32] = {"float32", "f32", 4, true},
    [KF_FLOAT64] = {"float64", "f64", 8, true},
    [KF_COMPLEX64] = {"complex64", "c8", 8, false, false, true},
    [KF_COMPLEX128] = {"complex128", "c16", 16, false, false, true},
    [KF_BFLOAT16] = {"bfloat16", "bf16", 2, true},
};

size_t rt_dtype_size(kf_dtype t) {
  if ((unsigned)t < KF_DTYPE_COUNT) return dtypes[t].size;
  if (rt_dtype_is_time(t)) return 8;
  const RecDtype *r = record_of(t);
  return r ? r->size : 0;
}
const char *rt_dtype_name(kf_dtype t) {
  if ((unsigned)t < KF_DTYPE_COUNT) return dtypes[t].name;
  if (rt_dtype_is_time(t)) return time_name(t);
  const RecDtype *r = record_of(t);
  return r ? r->spelling : "invalid";
}
bool rt_dtype_is_float(kf_dtype t) { return (unsigned)t < KF_DTYPE_COUNT && dtypes[t].is_float; }
bool rt_dtype_is_unsigned(kf_dtype t) { return (unsigned)t < KF_DTYPE_COUNT && dtypes[t].is_unsigned; }
bool rt_dtype_is_complex(kf_dtype t) { return (unsigned)t < KF_DTYPE_COUNT && dtypes[t].is_complex; }

bool rt_dtype_parse(const char *text, kf_dtype *out) {
  if (!text) return false;
  if (strncmp(text, "Record(", 7) == 0 || strncmp(text, "[char x ", 8) == 0 || strncmp(text, "[unichr x ", 10) == 0) {
    const char *why; /* a record, or a bytes / str item (registered as records are) */
    return rt_record_dtype_parse(text, out, &why);
  }
  if (time_parse(text, out)) return true;
  for (int i = 0; i < KF_DTYPE_COUNT; i++) {
    if (strcmp(text, dtypes[i].name) == 0 || strcmp(text, dtypes[i].short_name) == 0) {
      *out = (kf_dtype)i;
      return true;
    }
  }
  if (strcmp(text, "bool") == 0 || strcmp(text, "bool_") == 0) {
    *out = KF_BOOL;
    return true;
  }
  return false;
}

void rt_array_init(kf_array *a, void *data, kf_memory memory, kf_dtype dtype, unsigned ndim, const int64_t *shape,
                   char order) {
  memset(a, 0, sizeof *a);
  a->data = data;
  a->memory = memory;
  a->dtype = dtype;
  a->ndim = ndim > KF_MAX_RANK ? KF_MAX_RANK : ndim;
  int64_t stride = (int64_t)rt_dtype_size(dtype);
  for (unsigned k = 0; k < a->ndim; k++) {
    unsigned d = order == 'F' ? k : a->ndim - 1 - k;
    a->shape[d] = shape[d];
    a->strides[d] = stride;
    stride *= shape[d] > 0 ? shape[d] : 1;
  }
}

size_t rt_array_size(const kf_array *a) {
  size_t n = 1;
  for (unsigned d = 0; d < a->ndim && d < KF_MAX_RANK; d++) n *= a->shape[d] > 0 ? (size_t)a->shape[d] : 0;
  return n;
}

bool rt_array_is_contiguous(const kf_array *a, char order) {
  if (a->ndim > KF_MAX_RANK) return false;
  if (rt_array_size(a) == 0) return true;
  int64_t want = (int64_t)rt_dtype_size(a->dtype);
  for (unsigned k = 0; k < a->ndim; k++) {
    unsigned d = order == 'F' ? k : a->ndim - 1 - k;
    if (a->shape[d] == 1) continue;
    if (a->strides[d] != want) return false;
    want *= a->shape[d];
  }
  return true;
}

bool rt_dtype_can_cast(kf_dtype from, kf_dtype to) {
  if (rt_dtype_is_time(from) || rt_dtype_is_time(to)) return from == to; /* a unit converts to no other type here */
  if ((unsigned)from >= KF_DTYPE_COUNT || (unsigned)to >= KF_DTYPE_COUNT) return false;
  if (from == to || from == KF_BOOL) return true;
  if (to == KF_BOOL) return false;
  size_t fs = dtypes[from].size, ts = dtypes[to].size;
  /* bfloat16 to f32 and f64 (NumPy with ml_dtypes: "safe"); nothing else to or from it but bool */
  if (from == KF_BFLOAT16 || to == KF_BFLOAT16) return from == KF_BFLOAT16 && (to == KF_FLOAT32 || to == KF_FLOAT64);
  if (dtypes[from].is_complex) return dtypes[to].is_complex && ts >= fs;
  if (dtypes[to].is_complex) /* as to a float of half its size */
    return rt_dtype_can_cast(from, ts == 8 ? KF_FLOAT32 : KF_FLOAT64);
  if (dtypes[from].is_float) return dtypes[to].is_float && ts >= fs;
  /* integers: to a float that holds every value (and, as NumPy says, int64/uint64 to float64) */
  if (dtypes[to].is_float) return ts > fs || to == KF_FLOAT64;
  if (dtypes[from].is_unsigned) return dtypes[to].is_unsigned ? ts >= fs : ts > fs;
  return !dtypes[to].is_unsigned && ts >= fs;
}

void rt_array_gather(const kf_array *a, void *dst) {
  size_t isz = rt_dtype_size(a->dtype), n = rt_array_size(a);
  int64_t idx[KF_MAX_RANK] = {0};
  for (size_t e = 0; e < n; e++) {
    int64_t off = 0;
    for (unsigned d = 0; d < a->ndim; d++) off += idx[d] * a->strides[d];
    memcpy((char *)dst + e * isz, (const char *)a->data + off, isz);
    for (int d = (int)a->ndim - 1; d >= 0; d--) {
      if (++idx[d] < a->shape[d]) break;
      idx[d] = 0;
    }
  }
}
