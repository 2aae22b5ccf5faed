/* dispatch.c — typed dispatch: the fingerprint of a call's argument types and the per-function table from
 * fingerprints to specialised kernels.
 *
 * A fingerprint word per argument (16 bits):
 *     bit 15        1 for an array
 *     bits 11..14   dtype (kf_dtype)
 *     bits 7..10    rank (arrays)
 *     bits 5..6     layout: 0 C, 1 F, 2 A (arrays; rank-1 contiguous arrays are C, as Numba types them)
 *     bit 4         readonly (arrays)
 *     bit 10        a scalar with a type spelling (kf_arg.type: an enum member), hashed in and compared in full
 * a tuple is the word 0x7800 | its length (dtype bits 15: no dtype; length < 0x3e0), with bit 10 for a named tuple
 * (kf_arg.type: its class and field names, hashed in and compared in full), then its elements' words;
 * a datetime64/timedelta64 scalar the word 0x7be0 | its dtype's number from KF_DTYPE_DATETIME64 (0..31, past every
 * tuple's length, below every named tuple's word); an array of records or of datetime64/timedelta64 has dtype bits
 * 15 and a second word, 0x8000 | the record's number, or 0x9000 | the time dtype's number;
 * and a multiplicative hash of the words. Computing it validates each argument (the per-launch value
 * checks); comparing it with a known entry replaces the type checks against the kernel's parameters.
 *
 * The table is open addressing over pointers to immutable entries. A reader loads the table and then
 * slots with acquire ordering and never locks; a writer (serialised by the caller) fills a free slot with
 * a release store, or publishes a grown copy and retires the old table (kept until the end, so a reader
 * still probing it stays safe). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt.h"
#include "utils/mem.h"

struct RtDispatchTable {
  size_t cap;                   /* a power of two */
  RtDispatchTable *next_retired;
  _Atomic(RtDispatchEntry *) slots[];
};

static const SrcLoc NOLOC = {0};

static bool invalid(Diag *diag, unsigned i, const char *what) {
  if (diag) diag_error(diag, NOLOC, "argument %u: %s", i + 1, what);
  return false;
}

/* The words of args (a tuple: its word, then its elements'), appended to fp (fp->n words so far); i names the
 * top-level argument in messages. */
static bool words(const kf_arg *args, unsigned nargs, RtFingerprint *fp, unsigned depth, unsigned top, uint32_t *h,
                  Diag *diag) {
  for (unsigned j = 0; j < nargs; j++) {
    const kf_arg *a = &args[j];
    unsigned i = depth ? top : j;
    uint16_t w;
    if (fp->n >= RT_FP_MAX_ARGS) {
      if (diag) diag_error(diag, NOLOC, "kernels take at most %d arguments (tuples count their elements)", RT_FP_MAX_ARGS);
      return false;
    }
    if (a->kind == KF_ARG_TUPLE) {
      if (depth >= KF_MAX_TUPLE_DEPTH) return invalid(diag, i, "tuple nested too deeply");
      if (a->nitems >= 0x3e0 || (a->nitems && !a->items)) return invalid(diag, i, "invalid tuple");
      w = (uint16_t)(0x7800u | a->nitems);
      if (a->type) { /* a named tuple: its class and field names, hashed in and compared in full */
        w |= 0x400;
        for (const char *c = a->type; *c; c++) *h = (*h ^ (uint8_t)*c) * 0x01000193u;
        fp->typed = true;
      }
      fp->words[fp->n++] = w;
      *h = (*h ^ w) * 0x01000193u;
      if (!words(a->items, a->nitems, fp, depth + 1, i, h, diag)) return false;
      continue;
    }
    if (a->kind == KF_ARG_SCALAR) {
      bool time = rt_dtype_is_time(a->dtype);
      if ((unsigned)a->dtype >= KF_DTYPE_COUNT && !time) return invalid(diag, i, "invalid scalar dtype");
      w = time ? (uint16_t)(0x7be0u | ((unsigned)a->dtype - KF_DTYPE_DATETIME64)) : (uint16_t)(a->dtype << 11);
      if (a->type && !time) {
        w |= 0x400;
        for (const char *c = a->type; *c; c++) *h = (*h ^ (uint8_t)*c) * 0x01000193u;
        fp->typed = true;
      }
    } else if (a->kind == KF_ARG_ARRAY) {
      const kf_array *x = &a->array;
      bool record = rt_dtype_is_record(x->dtype), time = rt_dtype_is_time(x->dtype);
      if ((unsigned)x->dtype >= KF_DTYPE_COUNT && !record && !time) return invalid(diag, i, "invalid array dtype");
      if (x->ndim > KF_MAX_RANK) {
        if (diag)
          diag_error(diag, NOLOC, "argument %u: arrays of rank %u cannot be passed to a kernel (ranks 0 to %d are "
                     "supported)", i + 1, x->ndim, KF_MAX_RANK);
        return false;
      }
      bool empty = false;
      for (unsigned d = 0; d < x->ndim; d++) {
        if (x->shape[d] < 0) {
          if (diag)
            diag_error(diag, NOLOC, "argument %u: negative extent %" PRId64 " in axis %u", i + 1, x->shape[d], d);
          return false;
        }
        empty |= x->shape[d] == 0;
      }
      if (!x->data && !empty) {
        if (diag)
          diag_error(diag, NOLOC, "argument %u: array with %zu elements has no data pointer", i + 1, rt_array_size(x));
        return false;
      }
      unsigned layout = rt_array_is_contiguous(x, 'C') ? 0 : rt_array_is_contiguous(x, 'F') ? 1 : 2;
      /* records: dtype code 15, then a word of their own with the record's number (a 0-d array is one record) */
      unsigned code = record || time ? 15u : (unsigned)x->dtype;
      w = (uint16_t)(0x8000u | code << 11 | x->ndim << 7 | layout << 5 | (x->readonly ? 1u : 0u) << 4);
      if (record || time) {
        if (fp->n + 1 >= RT_FP_MAX_ARGS) {
          if (diag) diag_error(diag, NOLOC, "kernels take at most %d arguments (tuples count their elements)", RT_FP_MAX_ARGS);
          return false;
        }
        fp->words[fp->n++] = w;
        *h = (*h ^ w) * 0x01000193u;
        w = record ? (uint16_t)(0x8000u | ((unsigned)x->dtype - KF_DTYPE_RECORD_BASE))
                   : (uint16_t)(0x9000u | ((unsigned)x->dtype - KF_DTYPE_DATETIME64));
      }
    } else {
      return invalid(diag, i, "invalid argument kind");
    }
    fp->words[fp->n++] = w;
    *h = (*h ^ w) * 0x01000193u;
  }
  return true;
}

static bool fingerprint(const kf_arg *args, unsigned nargs, RtFingerprint *fp, Diag *diag) {
  uint32_t h = 0x9e3779b9u ^ nargs;
  fp->n = 0;
  fp->typed = false;
  fp->args = args;
  fp->nargs = nargs;
  if (!words(args, nargs, fp, 0, 0, &h, diag)) return false;
  fp->hash = h ^ (h >> 15);
  return true;
}

bool rt_fingerprint(const kf_arg *args, unsigned nargs, RtFingerprint *fp, Diag *diag) {
  if (fingerprint(args, nargs, fp, NULL)) return true;  /* the hot path reports nothing */
  if (diag) {
    DiagKind prev = diag_set_kind(DIAG_KIND_ARGUMENT);
    fingerprint(args, nargs, fp, diag);
    diag_set_kind(prev);
  }
  return false;
}

/* The type spelling of each word's argument (NULL for all but typed scalars and named tuples), in word order. */
static void word_types(const kf_arg *args, unsigned n, const char **out, unsigned *w) {
  for (unsigned i = 0; i < n && *w < RT_FP_MAX_ARGS; i++) {
    out[(*w)++] = args[i].kind != KF_ARG_ARRAY ? args[i].type : NULL;
    if (args[i].kind == KF_ARG_ARRAY && (rt_dtype_is_record(args[i].array.dtype) || rt_dtype_is_time(args[i].array.dtype)) &&
        *w < RT_FP_MAX_ARGS)
      out[(*w)++] = NULL; /* the record's or time dtype's number */
    if (args[i].kind == KF_ARG_TUPLE) word_types(args[i].items, args[i].nitems, out, w);
  }
}

static bool same(const RtDispatchEntry *e, const RtFingerprint *fp) {
  if (e->hash != fp->hash || e->n != fp->n || memcmp(e->words, fp->words, sizeof *fp->words * fp->n) != 0) return false;
  if (!fp->typed) return true;
  const char *types[RT_FP_MAX_ARGS];
  unsigned w = 0;
  word_types(fp->args, fp->nargs, types, &w);
  for (unsigned i = 0; i < fp->n; i++)
    if ((fp->words[i] & 0x8400) == 0x400 && (!e->types || !e->types[i] || !types[i] || strcmp(e->types[i], types[i]) != 0))
      return false;
  return true;
}

RtDispatchEntry *rt_dispatch_find(const RtDispatch *d, const RtFingerprint *fp) {
  RtDispatchTable *t = atomic_load_explicit(&((RtDispatch *)d)->table, memory_order_acquire);
  if (!t) return NULL;
  size_t mask = t->cap - 1;
  for (size_t i = fp->hash & mask;; i = (i + 1) & mask) {
    RtDispatchEntry *e = atomic_load_explicit(&t->slots[i], memory_order_acquire);
    if (!e) return NULL;
    if (same(e, fp)) return e;
  }
}

static RtDispatchTable *table_new(size_t cap) {
  RtDispatchTable *t = mem_calloc(1, sizeof *t + cap * sizeof(t->slots[0]));
  if (t) t->cap = cap;
  return t;
}

static void table_put(RtDispatchTable *t, RtDispatchEntry *e) {
  size_t mask = t->cap - 1;
  size_t i = e->hash & mask;
  while (atomic_load_explicit(&t->slots[i], memory_order_relaxed)) i = (i + 1) & mask;
  atomic_store_explicit(&t->slots[i], e, memory_order_release);
}

static void entry_free(RtDispatchEntry *e) {
  if (e && e->types)
    for (unsigned i = 0; i < e->n; i++) mem_free(e->types[i]);
  if (e) mem_free(e->types);
  mem_free(e);
}

RtDispatchEntry *rt_dispatch_insert(RtDispatch *d, const RtFingerprint *fp, RtKernel *kernel) {
  RtDispatchTable *t = atomic_load_explicit(&d->table, memory_order_relaxed);
  if (!t || (d->count + 1) * 2 > t->cap) {
    RtDispatchTable *bigger = table_new(t ? t->cap * 2 : 8);
    if (!bigger) return NULL;
    for (size_t i = 0; t && i < t->cap; i++) {
      RtDispatchEntry *e = atomic_load_explicit(&t->slots[i], memory_order_relaxed);
      if (e) table_put(bigger, e);
    }
    atomic_store_explicit(&d->table, bigger, memory_order_release);
    if (t) {
      t->next_retired = d->retired;
      d->retired = t;
    }
    t = bigger;
  }
  RtDispatchEntry *e = mem_calloc(1, sizeof *e + sizeof *fp->words * (fp->n ? fp->n : 1));
  if (!e) return NULL;
  e->hash = fp->hash;
  e->n = fp->n;
  e->kernel = kernel;
  memcpy(e->words, fp->words, sizeof *fp->words * fp->n);
  if (fp->typed) {
    if (!(e->types = mem_calloc(fp->n, sizeof *e->types))) {
      mem_free(e);
      return NULL;
    }
    const char *types[RT_FP_MAX_ARGS];
    unsigned w = 0;
    word_types(fp->args, fp->nargs, types, &w);
    for (unsigned i = 0; i < fp->n; i++)
      if ((fp->words[i] & 0x8400) == 0x400 && types[i] && !(e->types[i] = mem_strdup(types[i]))) {
        entry_free(e);
        return NULL;
      }
  }
  table_put(t, e);
  d->count++;
  return e;
}

void rt_dispatch_free(RtDispatch *d) {
  RtDispatchTable *t = atomic_load_explicit(&d->table, memory_order_relaxed);
  for (size_t i = 0; t && i < t->cap; i++) entry_free(atomic_load_explicit(&t->slots[i], memory_order_relaxed));
  mem_free(t);
  for (RtDispatchTable *r = d->retired, *n; r; r = n) {
    n = r->next_retired;
    mem_free(r);
  }
  memset(d, 0, sizeof *d);
}
