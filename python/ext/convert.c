/* convert.c — Python objects to what the C API takes.
 *
 * Kernel arguments (kf_arg), in the order Numba's typeof looks at them: kfront's DeviceArray; Python bool,
 * int (int64, or uint64 above its range) and float (float64); enum members (their value as an int64 scalar
 * typed by their class: kfront._source.enum_spelling, remembered per class); an object with __cuda_array_interface__ (CuPy,
 * PyTorch, Numba's device arrays: device memory used in place); an object with __array_interface__ (NumPy
 * arrays: host memory, copied in and back by the launch; NumPy scalars: scalars of their dtype, where a 0-d
 * ndarray is a 0-d array, as Numba's typeof tells them apart; a masked array is Numba's TypingError). Which protocol a type speaks is remembered per type, so a launch with device arrays costs no
 * failed attribute lookups.
 *
 * Bound values (kf_value) from the tagged tuples kfront.cuda builds (see ext.h). */
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "ext.h"

/* ---- dtypes ------------------------------------------------------------------------------------------- */

static const char *const typestrs[KF_DTYPE_COUNT] = {
    [KF_BOOL] = "|b1",   [KF_INT8] = "|i1",   [KF_INT16] = "<i2",  [KF_INT32] = "<i4",
    [KF_INT64] = "<i8",  [KF_UINT8] = "|u1",  [KF_UINT16] = "<u2", [KF_UINT32] = "<u4",
    [KF_UINT64] = "<u8", [KF_FLOAT16] = "<f2", [KF_FLOAT32] = "<f4", [KF_FLOAT64] = "<f8",
    [KF_COMPLEX64] = "<c8", [KF_COMPLEX128] = "<c16",
    [KF_BFLOAT16] = "<V2"}; /* bfloat16: ml_dtypes' typestr, a 2-byte void, is no dtype of its own (not parsed) */

/* NumPy's typestrs of datetime64 (M8[unit]) and timedelta64 (m8[unit]; m8 without a unit: generic), by
 * KF_DTYPE_DATETIME64 + unit and KF_DTYPE_TIMEDELTA64 + unit. */
static const char *const time_units[KF_DTYPE_TIME_UNITS] = {"Y",  "M",  "W",  NULL, "D",  "h",  "m", "s",
                                                           "ms", "us", "ns", "ps", "fs", "as", ""};

static const char *time_typestr(kf_dtype t) {
  static char names[2][KF_DTYPE_TIME_UNITS][12];
  unsigned u = (unsigned)t, dt = u < KF_DTYPE_TIMEDELTA64, unit = u - (dt ? KF_DTYPE_DATETIME64 : KF_DTYPE_TIMEDELTA64);
  if (u < KF_DTYPE_DATETIME64 || unit >= KF_DTYPE_TIME_UNITS || !time_units[unit]) return NULL;
  char *s = names[dt][unit];
  if (!s[0]) /* made under the GIL */
    snprintf(s, sizeof names[0][0], *time_units[unit] ? "<%c8[%s]" : "<%c8%s", dt ? 'M' : 'm', time_units[unit]);
  return s;
}

/* The time dtype of a typestr "<M8[D]", "<m8" (native order), or -1. */
static int time_dtype_from_typestr(const char *ts, kf_dtype *out) {
  if (!((ts[0] == '<' || ts[0] == '=') && (ts[1] == 'M' || ts[1] == 'm') && ts[2] == '8')) return -1;
  const char *u = ts + 3;
  size_t len = 0;
  if (*u == '[') {
    const char *end = strchr(++u, ']');
    if (!end || end[1]) return -1;
    len = (size_t)(end - u);
  } else if (*u) {
    return -1;
  }
  for (unsigned k = 0; k < KF_DTYPE_TIME_UNITS; k++)
    if (time_units[k] && strlen(time_units[k]) == len && strncmp(time_units[k], u, len) == 0) {
      *out = (kf_dtype)((ts[1] == 'M' ? KF_DTYPE_DATETIME64 : KF_DTYPE_TIMEDELTA64) + k);
      return 0;
    }
  return -1;
}

/* NumPy's bytes and str items (S12, U12) are the record-like dtypes kfront spells as Numba does, [char x 12] and
 * [unichr x 12]: the dtype of a typestr "|S12" / "<U12" (-1 if none), and the typestr of such a dtype (NULL if it is
 * none; kept per dtype, under the GIL). */
static int charseq_dtype_from_typestr(const char *ts, kf_dtype *out) {
  char kind = ts[0] ? ts[1] : 0;
  if (!((kind == 'S' && (ts[0] == '|' || ts[0] == '<' || ts[0] == '=')) ||
        (kind == 'U' && (ts[0] == '<' || ts[0] == '='))))
    return -1;
  char *end;
  unsigned long n = strtoul(ts + 2, &end, 10);
  if (ts[2] < '1' || ts[2] > '9' || *end || n > (1ul << 20)) return -1;
  char spelling[40];
  snprintf(spelling, sizeof spelling, "[%s x %lu]", kind == 'U' ? "unichr" : "char", n); /* "<U12": 12 characters */
  return kf_dtype_parse(spelling, out) == KF_OK ? 0 : -1;
}

static const char *charseq_typestr(kf_dtype t) {
  static char cache[KF_MAX_RECORD_DTYPES][16];
  unsigned i = (unsigned)t - KF_DTYPE_RECORD_BASE;
  const char *name = kf_dtype_is_record(t) ? kf_dtype_name(t) : "";
  int unicode = strncmp(name, "[unichr x ", 10) == 0;
  if (i >= KF_MAX_RECORD_DTYPES || (!unicode && strncmp(name, "[char x ", 8) != 0)) return NULL;
  if (!cache[i][0]) snprintf(cache[i], sizeof cache[i], "%s%lu", unicode ? "<U" : "|S", strtoul(name + (unicode ? 10 : 8), NULL, 10));
  return cache[i];
}

const char *ext_typestr(kf_dtype t) {
  if ((unsigned)t < KF_DTYPE_COUNT) return typestrs[t];
  const char *ts = time_typestr(t);
  if (!ts) ts = charseq_typestr(t);
  return ts ? ts : kf_dtype_is_record(t) ? kf_dtype_name(t) : "|V0";
}

int ext_dtype_from_typestr(const char *ts, kf_dtype *out) {
  size_t n = strlen(ts);
  if (time_dtype_from_typestr(ts, out) == 0 || charseq_dtype_from_typestr(ts, out) == 0) return 0;
  if (strcmp(ts, "bfloat16") == 0) { /* ml_dtypes.bfloat16, as kfront.types.dtype_typestr spells it */
    *out = KF_BFLOAT16;
    return 0;
  }
  if (strncmp(ts, "Record(", 7) == 0) { /* a record dtype, as kfront.types.record_spelling spells it */
    if (kf_dtype_parse(ts, out) == KF_OK) return 0;
    PyErr_Format(PyExc_TypeError, "kfront does not support the record dtype '%s'", ts);
    return -1;
  }
  if (n >= 3) {
    char order = ts[0];
    int native = order == '<' || order == '|' || order == '=';
    int size1 = ts[2] == '1' && ts[3] == 0;
    if (native || (order == '>' && size1)) {
      for (int t = 0; t < KF_DTYPE_COUNT; t++)
        if (t != KF_BFLOAT16 && strcmp(ts + 1, typestrs[t] + 1) == 0) {
          *out = (kf_dtype)t;
          return 0;
        }
    }
    if (order == '>' && !size1) {
      PyErr_Format(PyExc_TypeError, "kfront does not support big-endian arrays (dtype '%s')", ts);
      return -1;
    }
  }
  if (strcmp(ts + 1, "V2") == 0) { /* no owner told a bfloat16 array (read_interface) from another 2-byte void */
    PyErr_Format(PyExc_TypeError, "kfront does not support arrays of dtype '%s' (a 2-byte void: bfloat16 arrays are "
                 "ml_dtypes.bfloat16 NumPy arrays, or device arrays made from them)", ts);
    return -1;
  }
  PyErr_Format(PyExc_TypeError, "kfront does not support arrays of dtype '%s'", ts);
  return -1;
}

/* ---- array interfaces ------------------------------------------------------------------------------- */

static int tuple_int64s(PyObject *t, int64_t *out, unsigned max, unsigned *n, const char *what) {
  if (!PyTuple_Check(t)) {
    PyErr_Format(PyExc_TypeError, "%s must be a tuple", what);
    return -1;
  }
  Py_ssize_t len = PyTuple_Size(t);
  if (len > (Py_ssize_t)max) {
    PyErr_Format(PyExc_ValueError, "kfront supports arrays of at most %u dimensions, not %zd", max, len);
    return -1;
  }
  for (Py_ssize_t i = 0; i < len; i++) {
    long long v = PyLong_AsLongLong(PyTuple_GetItem(t, i));
    if (v == -1 && PyErr_Occurred()) return -1;
    out[i] = v;
  }
  *n = (unsigned)len;
  return 0;
}

/* Interned names, made once (PyDict_GetItemString and PyObject_GetAttrString would make each every call). */
static PyObject *k_shape, *k_typestr, *k_data, *k_strides, *k_mask, *k_stream, *a_cuda, *a_host;

static int intern_names(void) {
  if (k_shape) return 0;
  k_shape = PyUnicode_InternFromString("shape");
  k_typestr = PyUnicode_InternFromString("typestr");
  k_data = PyUnicode_InternFromString("data");
  k_strides = PyUnicode_InternFromString("strides");
  k_mask = PyUnicode_InternFromString("mask");
  k_stream = PyUnicode_InternFromString("stream");
  a_cuda = PyUnicode_InternFromString("__cuda_array_interface__");
  a_host = PyUnicode_InternFromString("__array_interface__");
  return k_shape && k_typestr && k_data && k_strides && k_mask && k_stream && a_cuda && a_host ? 0 : -1;
}

/* The record dtype of a structured NumPy dtype (kfront.types.record_spelling, remembered per dtype). */
static PyObject *record_dtypes, *record_spelling_fn;

static int record_dtype_of(PyObject *dtype, kf_dtype *out) {
  if (!record_dtypes) {
    PyObject *types = PyImport_ImportModule("kfront.types");
    record_spelling_fn = types ? PyObject_GetAttrString(types, "record_spelling") : NULL;
    Py_XDECREF(types);
    if (!record_spelling_fn || !(record_dtypes = PyDict_New())) {
      Py_CLEAR(record_spelling_fn);
      return -1;
    }
  }
  PyObject *known = PyDict_GetItemWithError(record_dtypes, dtype); /* borrowed */
  if (known) {
    *out = (kf_dtype)PyLong_AsLong(known);
    return 0;
  }
  if (PyErr_Occurred()) return -1;
  PyObject *text = PyObject_CallFunctionObjArgs(record_spelling_fn, dtype, NULL);
  const char *sp = text ? PyUnicode_AsUTF8AndSize(text, NULL) : NULL;
  int r = sp ? ext_dtype_from_typestr(sp, out) : -1;
  Py_XDECREF(text);
  if (r < 0) return -1;
  PyObject *v = PyLong_FromLong((long)*out);
  if (!v || PyDict_SetItem(record_dtypes, dtype, v) < 0) {
    Py_XDECREF(v);
    return -1;
  }
  Py_DECREF(v);
  return 0;
}

/* Whether dtype is ml_dtypes' bfloat16 (numba-cuda types its arrays as bfloat16 when ml_dtypes is installed):
 * its scalar type ml_dtypes.bfloat16, found by name so that ml_dtypes is never imported here. */
int ext_dtype_is_bfloat16(PyObject *dtype) {
  PyObject *type = dtype ? PyObject_GetAttrString(dtype, "type") : NULL;
  if (!type) {
    PyErr_Clear();
    return 0;
  }
  int yes = 0;
  if (PyType_Check(type)) {
    PyObject *mod = PyObject_GetAttrString(type, "__module__"), *name = PyObject_GetAttrString(type, "__name__");
    const char *m = mod && PyUnicode_Check(mod) ? PyUnicode_AsUTF8AndSize(mod, NULL) : NULL;
    const char *n = name && PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
    yes = m && n && strcmp(m, "ml_dtypes") == 0 && strcmp(n, "bfloat16") == 0;
    Py_XDECREF(mod);
    Py_XDECREF(name);
    PyErr_Clear();
  }
  Py_DECREF(type);
  return yes;
}

/* Reads an array interface dict (NumPy's __array_interface__ or CUDA's __cuda_array_interface__) into *a.
 * A 0-d array gives ndim 0. A structured (void) typestr takes the record dtype of owner.dtype; a 2-byte void one
 * is bfloat16 where owner.dtype is ml_dtypes.bfloat16. */
static int read_interface(PyObject *d, kf_array *a, kf_memory memory, const char *what, uintptr_t *producer,
                          PyObject *owner) {
  if (!PyDict_Check(d)) {
    PyErr_Format(PyExc_TypeError, "%s: the array interface is not a dict", what);
    return -1;
  }
  memset(a, 0, sizeof *a);
  a->memory = memory;
  PyObject *shape = PyDict_GetItem(d, k_shape), *typestr = PyDict_GetItem(d, k_typestr);
  PyObject *data = PyDict_GetItem(d, k_data), *strides = PyDict_GetItem(d, k_strides);
  PyObject *mask = PyDict_GetItem(d, k_mask);
  if (!shape || !typestr || !data || !PyUnicode_Check(typestr)) {
    PyErr_Format(PyExc_TypeError, "%s: the array interface lacks shape, typestr or data", what);
    return -1;
  }
  if (mask && mask != Py_None) {
    PyErr_Format(PyExc_TypeError, "%s: masked arrays are not supported", what);
    return -1;
  }
  const char *ts = PyUnicode_AsUTF8AndSize(typestr, NULL);
  if (!ts) return -1;
  if (ts[0] == '|' && ts[1] == 'V' && owner) { /* a structured dtype: its record (a plain void one: refused below) */
    PyObject *dt = PyObject_GetAttrString(owner, "dtype");
    PyObject *fields = dt ? PyObject_GetAttrString(dt, "fields") : NULL;
    int r = !fields ? -1 : fields != Py_None ? record_dtype_of(dt, &a->dtype) : ext_dtype_from_typestr(ts, &a->dtype);
    Py_XDECREF(fields);
    Py_XDECREF(dt);
    if (r < 0) return -1;
  } else if (strcmp(ts + 1, "V2") == 0 && owner) {
    PyObject *dt = PyObject_GetAttrString(owner, "dtype");
    if (!dt) PyErr_Clear();
    int bf = ext_dtype_is_bfloat16(dt);
    Py_XDECREF(dt);
    if (bf) a->dtype = KF_BFLOAT16;
    else if (ext_dtype_from_typestr(ts, &a->dtype) < 0) return -1;
  } else if (ext_dtype_from_typestr(ts, &a->dtype) < 0) {
    return -1;
  }
  if (tuple_int64s(shape, a->shape, KF_MAX_RANK, &a->ndim, "shape") < 0) return -1;
  if (!PyTuple_Check(data) || PyTuple_Size(data) != 2) {
    PyErr_Format(PyExc_TypeError, "%s: the array interface's data must be a (pointer, read-only) tuple", what);
    return -1;
  }
  unsigned long long ptr = PyLong_AsUnsignedLongLong(PyTuple_GetItem(data, 0));
  if (ptr == (unsigned long long)-1 && PyErr_Occurred()) return -1;
  int ro = PyObject_IsTrue(PyTuple_GetItem(data, 1));
  if (ro < 0) return -1;
  a->data = (void *)(uintptr_t)ptr;
  a->readonly = ro;
  /* CUDA array interface v3: a stream the producer's work on the data is ordered on. None needs nothing; 1 and
   * 2 (the legacy and per-thread default streams) are ordered with kfront's launches by CUDA itself; another
   * handle the consumer must wait for */
  PyObject *stream = memory == KF_MEMORY_DEVICE ? PyDict_GetItem(d, k_stream) : NULL;
  if (producer && stream && stream != Py_None) {
    unsigned long long h = PyLong_AsUnsignedLongLong(stream);
    if (h == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    if (h == 0) {
      PyErr_Format(PyExc_ValueError, "%s: the CUDA array interface's stream is 0, which it disallows", what);
      return -1;
    }
    if (h > 2) *producer = (uintptr_t)h;
  }
  size_t esize = kf_dtype_size(a->dtype);
  if (strides && strides != Py_None) {
    unsigned ns;
    if (tuple_int64s(strides, a->strides, KF_MAX_RANK, &ns, "strides") < 0) return -1;
    if (ns != a->ndim) {
      PyErr_Format(PyExc_ValueError, "%s: %u strides for %u dimensions", what, ns, a->ndim);
      return -1;
    }
  } else {
    int64_t s = (int64_t)esize;
    for (unsigned k = a->ndim; k-- > 0;) {
      a->strides[k] = s;
      s *= a->shape[k];
    }
  }
  return 0;
}

/* kfront.errors' class of that name (for an error being raised: looked up each time), or TypeError where it cannot
 * be had (kfront.errors not importable). */
static PyObject *errors_class(const char *name) {
  PyObject *errors = PyImport_ImportModule("kfront.errors");
  PyObject *cls = errors ? PyObject_GetAttrString(errors, name) : NULL;
  Py_XDECREF(errors);
  if (!cls) {
    PyErr_Clear();
    return Py_NewRef(PyExc_TypeError);
  }
  return cls;
}

/* Whether o is a NumPy masked array (numpy.ma.MaskedArray, found once); -1 with an exception. */
static int is_masked_array(PyObject *o) {
  static PyObject *masked;
  if (!masked) {
    PyObject *ma = PyImport_ImportModule("numpy.ma");
    masked = ma ? PyObject_GetAttrString(ma, "MaskedArray") : NULL;
    Py_XDECREF(ma);
    if (!masked) return -1;
  }
  return PyObject_IsInstance(o, masked);
}

/* Which protocol a type speaks, remembered for a few types (each held by a reference, so that no other type
 * takes its address). PROTO_MASKED: a NumPy masked array, whose __array_interface__ is its data only.
 * PROTO_ADAPTED: an object the Python layer's interface adapter (set_interface_adapter) describes, such as
 * cuda.core's Buffer and StridedMemoryView, which have no array interface of their own. */
enum { PROTO_NONE, PROTO_CUDA, PROTO_HOST, PROTO_MASKED, PROTO_ADAPTED };
enum { PROTO_CACHE = 8 };
static struct {
  PyTypeObject *type;
  int proto;
} proto_cache[PROTO_CACHE];
static unsigned proto_next;

static void remember_protocol(PyTypeObject *t, int proto) {
  unsigned slot = proto_next++ % PROTO_CACHE;
  PyTypeObject *old = proto_cache[slot].type;
  proto_cache[slot].type = (PyTypeObject *)Py_NewRef((PyObject *)t);
  proto_cache[slot].proto = proto;
  Py_XDECREF((PyObject *)old);
}

/* o's attribute name, a new reference; NULL with no exception set when it has none (an AttributeError, as getattr
 * with a default reads it), NULL with the exception set when looking it up raised anything else (a property's own
 * error reaches the caller, as numba-cuda's getattr(obj, "__cuda_array_interface__", None) lets it). */
static PyObject *optional_attr(PyObject *o, PyObject *name) {
  PyObject *v = PyObject_GetAttr(o, name);
  if (!v && PyErr_ExceptionMatches(PyExc_AttributeError)) PyErr_Clear();
  return v;
}

/* The Python callable adapter(obj) -> a __cuda_array_interface__ dict for obj, or None (kfront.cuda sets it:
 * cuda.core's Buffer and StridedMemoryView); asked about objects that speak neither interface. */
static PyObject *interface_adapter;

PyObject *ext_set_interface_adapter(PyObject *self, PyObject *adapter) {
  (void)self;
  if (adapter != Py_None && !PyCallable_Check(adapter)) {
    PyErr_SetString(PyExc_TypeError, "set_interface_adapter: a callable or None is needed");
    return NULL;
  }
  PyObject *old = interface_adapter;
  interface_adapter = adapter == Py_None ? NULL : Py_NewRef(adapter);
  Py_XDECREF(old);
  Py_RETURN_NONE;
}

/* The adapter's interface dict for o (a new reference), or NULL: none (no exception) or the adapter's error. */
static PyObject *adapted_interface(PyObject *o) {
  if (!interface_adapter) return NULL;
  PyObject *d = PyObject_CallFunctionObjArgs(interface_adapter, o, NULL);
  if (d == Py_None) Py_CLEAR(d);
  if (d && !PyDict_Check(d)) {
    PyErr_Format(PyExc_TypeError, "kfront's interface adapter gave %R for %R, not a dict", (PyObject *)Py_TYPE(d),
                 (PyObject *)Py_TYPE(o));
    Py_CLEAR(d);
  }
  return d;
}

/* The array interface o speaks (a new reference; *proto says which: PROTO_CUDA for an adapted one), or NULL:
 * PROTO_NONE without an exception when it has neither __cuda_array_interface__ nor __array_interface__ and the
 * adapter does not describe it, else the exception reading one raised. */
static PyObject *interface_of(PyObject *o, int *proto) {
  *proto = PROTO_NONE;
  if (intern_names() < 0) return NULL;
  PyTypeObject *t = Py_TYPE(o);
  for (unsigned i = 0; i < PROTO_CACHE; i++)
    if (proto_cache[i].type == t) {
      *proto = proto_cache[i].proto;
      if (*proto == PROTO_NONE) return NULL;
      if (*proto == PROTO_ADAPTED) {
        *proto = PROTO_CUDA;
        return adapted_interface(o);
      }
      return PyObject_GetAttr(o, *proto == PROTO_CUDA ? a_cuda : a_host);
    }
  PyObject *d = optional_attr(o, a_cuda);
  int remembered;
  if (d) {
    *proto = remembered = PROTO_CUDA;
  } else if (!PyErr_Occurred() && (d = optional_attr(o, a_host))) {
    int masked = is_masked_array(o);
    if (masked < 0) Py_CLEAR(d);
    *proto = remembered = masked > 0 ? PROTO_MASKED : PROTO_HOST;
  } else if (!PyErr_Occurred() && (d = adapted_interface(o))) {
    *proto = PROTO_CUDA;
    remembered = PROTO_ADAPTED;
  } else {
    remembered = PROTO_NONE;
  }
  if (!PyErr_Occurred()) remember_protocol(t, remembered);
  return d;
}

static int array_of_interface(PyObject *o, PyObject *d, int proto, kf_array *a, const char *what,
                              uintptr_t *producer) {
  int r = read_interface(d, a, proto == PROTO_CUDA ? KF_MEMORY_DEVICE : KF_MEMORY_HOST, what, producer, o);
  Py_DECREF(d);
  return r;
}

/* An array of any rank, 0-d included (a global's: numba-cuda's constant np.array(0)), read from o. */
static int array_any_rank(PyObject *o, kf_array *out, const char *what, uintptr_t *producer) {
  if (PyObject_TypeCheck(o, DeviceArray_Type)) {
    *out = ((DeviceArrayObject *)o)->a;
    return 0;
  }
  int proto;
  PyObject *d = interface_of(o, &proto);
  if (!d) {
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_TypeError, "%s: expected an array (NumPy, a device array, or an object with "
                   "__cuda_array_interface__), not %R", what, (PyObject *)Py_TYPE(o));
    return -1;
  }
  return array_of_interface(o, d, proto, out, what, producer);
}

int ext_array_from_object(PyObject *o, kf_array *out, const char *what, uintptr_t *producer) {
  if (array_any_rank(o, out, what, producer) < 0) return -1;
  if (out->ndim == 0 && !PyObject_TypeCheck(o, DeviceArray_Type)) { /* (kfront's own device arrays: any rank) */
    PyErr_Format(PyExc_TypeError, "%s: expected an array, not a 0-d array or scalar", what);
    return -1;
  }
  return 0;
}

/* ---- enum members ---------------------------------------------------------------------------------------- */

/* type -> the spelling of its members' type (bytes), for each enum class an argument was a member of; kept for
 * the process (the spellings are borrowed by kf_arg.type during a call). */
static PyObject *enum_types, *enum_base, *enum_spelling_fn;

/* 1 with *spelling set when o is an enum member, 0 when it is not, -1 with an exception. */
static int enum_member(PyObject *o, const char **spelling) {
  if (!enum_types) {
    PyObject *em = PyImport_ImportModule("enum"), *src = PyImport_ImportModule("kfront._source");
    enum_base = em ? PyObject_GetAttrString(em, "Enum") : NULL;
    enum_spelling_fn = src ? PyObject_GetAttrString(src, "enum_spelling") : NULL;
    Py_XDECREF(em);
    Py_XDECREF(src);
    if (!enum_base || !enum_spelling_fn || !(enum_types = PyDict_New())) {
      Py_CLEAR(enum_base);
      Py_CLEAR(enum_spelling_fn);
      return -1;
    }
  }
  PyObject *t = (PyObject *)Py_TYPE(o);
  PyObject *sp = PyDict_GetItemWithError(enum_types, t); /* borrowed */
  if (!sp) {
    if (PyErr_Occurred()) return -1;
    int is = PyObject_IsInstance(o, enum_base);
    if (is <= 0) return is;
    PyObject *text = PyObject_CallFunctionObjArgs(enum_spelling_fn, t, NULL);
    sp = text ? PyUnicode_AsUTF8String(text) : NULL;
    Py_XDECREF(text);
    if (!sp || PyDict_SetItem(enum_types, t, sp) < 0) {
      Py_XDECREF(sp);
      return -1;
    }
    Py_DECREF(sp); /* the dict holds it */
  }
  *spelling = PyBytes_AsString(sp);
  return *spelling ? 1 : -1;
}

/* An enum member as a kernel argument: its value (an integer in int64, a float in float64 or a bool, as its class's
 * spelling types the members), typed by its class; a member of an enum of tuples is its index. */
static int enum_arg(PyObject *o, const char *spelling, kf_arg *out, const char *what, Py_ssize_t index) {
  PyObject *v = PyLong_Check(o) ? Py_NewRef(o) : PyObject_GetAttrString(o, "value");
  if (v && (PyTuple_Check(v) || PyUnicode_Check(v))) { /* an enum of tuples: the member's index (_source.enum_index) */
    Py_DECREF(v);
    PyObject *src = PyImport_ImportModule("kfront._source");
    v = src ? PyObject_CallMethod(src, "enum_index", "O", o) : NULL;
    Py_XDECREF(src);
  }
  if (!v) return -1;
  int ok;
  if (PyBool_Check(v)) {
    *out = kf_arg_int(KF_BOOL, v == Py_True);
    ok = 1;
  } else if (PyFloat_Check(v)) {
    *out = kf_arg_float(KF_FLOAT64, PyFloat_AsDouble(v));
    ok = 1;
  } else {
    long long i = PyLong_Check(v) ? PyLong_AsLongLong(v) : -1;
    ok = PyLong_Check(v) && !(i == -1 && PyErr_Occurred());
    *out = kf_arg_int(KF_INT64, i);
  }
  Py_DECREF(v);
  if (!ok) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s argument %zd: %R: kfront passes enum members whose values are numbers (int64, "
                 "float64) or booleans", what, index, o);
    return -1;
  }
  out->type = spelling;
  return 0;
}

/* ---- namedtuples ----------------------------------------------------------------------------------------- */

/* type -> the spelling of its class and fields (bytes), or None for a tuple subclass that is no namedtuple, for each
 * tuple subclass an argument was; kept for the process (the spellings are borrowed by kf_arg.type during a call). */
static PyObject *namedtuple_types, *namedtuple_spelling_fn;

int ext_namedtuple_spelling(PyObject *o, const char **spelling) {
  *spelling = NULL;
  if (!namedtuple_types) {
    PyObject *src = PyImport_ImportModule("kfront._source");
    namedtuple_spelling_fn = src ? PyObject_GetAttrString(src, "namedtuple_spelling") : NULL;
    Py_XDECREF(src);
    if (!namedtuple_spelling_fn || !(namedtuple_types = PyDict_New())) {
      Py_CLEAR(namedtuple_spelling_fn);
      return -1;
    }
  }
  PyObject *t = (PyObject *)Py_TYPE(o);
  PyObject *sp = PyDict_GetItemWithError(namedtuple_types, t); /* borrowed */
  if (!sp) {
    if (PyErr_Occurred()) return -1;
    PyObject *text = PyObject_CallFunctionObjArgs(namedtuple_spelling_fn, t, NULL);
    sp = !text ? NULL : text == Py_None ? Py_NewRef(Py_None) : PyUnicode_AsUTF8String(text);
    Py_XDECREF(text);
    if (!sp || PyDict_SetItem(namedtuple_types, t, sp) < 0) {
      Py_XDECREF(sp);
      return -1;
    }
    Py_DECREF(sp); /* the dict holds it */
  }
  if (sp == Py_None) return 0;
  *spelling = PyBytes_AsString(sp);
  return *spelling ? 0 : -1;
}

/* ---- kernel arguments -------------------------------------------------------------------------------- */

static int scalar_from_memory(const kf_array *a, kf_arg *out) {
  const void *p = a->data;
  *out = (kf_arg){.kind = KF_ARG_SCALAR, .dtype = a->dtype};
  switch (a->dtype) {
  case KF_BOOL: out->value.i = *(const uint8_t *)p != 0; break;
  case KF_INT8: out->value.i = *(const int8_t *)p; break;
  case KF_INT16: out->value.i = *(const int16_t *)p; break;
  case KF_INT32: out->value.i = *(const int32_t *)p; break;
  case KF_INT64: out->value.i = *(const int64_t *)p; break;
  case KF_UINT8: out->value.u = *(const uint8_t *)p; break;
  case KF_UINT16: out->value.u = *(const uint16_t *)p; break;
  case KF_UINT32: out->value.u = *(const uint32_t *)p; break;
  case KF_UINT64: out->value.u = *(const uint64_t *)p; break;
  case KF_FLOAT16: {
    uint16_t h = *(const uint16_t *)p;  /* binary16 -> double, exactly */
    unsigned e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? m * (1.0 / (1 << 24)) : e == 31 ? (m ? __builtin_nan("") : __builtin_inf())
                                                        : (1024 + m) * __builtin_ldexp(1.0, (int)e - 25);
    out->value.f = h & 0x8000 ? -v : v;
    break;
  }
  case KF_FLOAT32: out->value.f = *(const float *)p; break;
  case KF_FLOAT64: out->value.f = *(const double *)p; break;
  case KF_COMPLEX64: out->value.f = ((const float *)p)[0]; out->imag = ((const float *)p)[1]; break;
  case KF_COMPLEX128: out->value.f = ((const double *)p)[0]; out->imag = ((const double *)p)[1]; break;
  case KF_BFLOAT16: { /* bfloat16 -> float32, exactly */
    uint32_t u = (uint32_t)(*(const uint16_t *)p) << 16;
    float f;
    memcpy(&f, &u, 4);
    out->value.f = f;
    break;
  }
  default: out->value.i = *(const int64_t *)p; break; /* datetime64/timedelta64: an int64 (NaT its minimum) */
  }
  return 0;
}

/* Whether o is a NumPy scalar (numpy.generic: np.float64(1.0)), not a 0-d ndarray (np.array(1.0)); -1 with an
 * exception. NumPy is loaded: o spoke its array interface. */
static int is_numpy_scalar(PyObject *o) {
  static PyObject *generic;
  if (!generic) {
    PyObject *np = PyImport_ImportModule("numpy");
    generic = np ? PyObject_GetAttrString(np, "generic") : NULL;
    Py_XDECREF(np);
    if (!generic) return -1;
  }
  return PyObject_IsInstance(o, generic);
}

/* NumPy's scalar types of real numbers (np.float32, np.int16, np.bool_, ...) by their dtype, learned
 * from the first of each passed (its array interface, read once): the next are read through the number protocol
 * (__float__ / __index__ / __bool__, exact for each of these dtypes) instead of a new 0-d array's
 * interface dict per argument, which cost about a microsecond each. Each type is held by a reference. */
enum { SCALAR_CACHE = 16 };
static struct {
  PyTypeObject *type;
  kf_dtype dtype;
  bool direct;  /* its value is read where NumPy keeps it: right after the object's header (probe_layout) */
} scalar_cache[SCALAR_CACHE];
static unsigned scalar_next;

static int number_dtype(kf_dtype d) {
  switch (d) {
  case KF_BOOL: case KF_INT8: case KF_INT16: case KF_INT32: case KF_INT64: case KF_UINT8: case KF_UINT16:
  case KF_UINT32: case KF_UINT64: case KF_FLOAT16: case KF_FLOAT32: case KF_FLOAT64: return 1;
  default: return 0;  /* (complex: the limited API reads a complex only through __complex__ from 3.13) */
  }
}

/* NumPy's scalar objects keep their value right after the object header (PyObject_HEAD, then obval): checked
 * once per type, not assumed. The type's __basicsize__ must be the header plus the value (rounded to 8), and a
 * probe made by the type itself, t(3), must hold 3 of dtype d there (a bool: True). Then the launch reads the
 * value with one load instead of the number protocol (np.float32.__float__ makes a float object each time:
 * about 0.1 µs an argument). */
static bool probe_layout(PyTypeObject *t, kf_dtype d) {
  size_t item = kf_dtype_size(d), head = sizeof(PyObject);
  PyObject *bs = PyObject_GetAttrString((PyObject *)t, "__basicsize__");
  long basic = bs ? PyLong_AsLong(bs) : -1;
  Py_XDECREF(bs);
  PyObject *probe = basic >= 0 ? PyObject_CallFunction((PyObject *)t, "i", 3) : NULL;
  bool ok = probe && Py_TYPE(probe) == t && item && (size_t)basic >= head + item && (size_t)basic <= head + 8;
  if (ok) {
    kf_array a = {.data = (char *)probe + head, .dtype = d};
    kf_arg v;
    scalar_from_memory(&a, &v);
    ok = d == KF_BOOL ? v.value.i == 1
         : d == KF_FLOAT16 || d == KF_FLOAT32 || d == KF_FLOAT64 ? v.value.f == 3.0
         : v.value.i == 3;
  }
  Py_XDECREF(probe);
  PyErr_Clear();
  return ok;
}

static void remember_scalar_type(PyTypeObject *t, kf_dtype d) {
  unsigned slot = scalar_next++ % SCALAR_CACHE;
  PyTypeObject *old = scalar_cache[slot].type;
  scalar_cache[slot].type = NULL;  /* (probe_layout runs Python code) */
  Py_XDECREF((PyObject *)old);
  bool direct = probe_layout(t, d);
  scalar_cache[slot].type = (PyTypeObject *)Py_NewRef((PyObject *)t);
  scalar_cache[slot].dtype = d;
  scalar_cache[slot].direct = direct;
}

/* A NumPy scalar of a type in scalar_cache into *out: 1 done, 0 not such a scalar, -1 an exception. */
static int cached_scalar(PyObject *o, kf_arg *out) {
  PyTypeObject *t = Py_TYPE(o);
  unsigned i = 0;
  while (i < SCALAR_CACHE && scalar_cache[i].type != t) i++;
  if (i == SCALAR_CACHE) return 0;
  kf_dtype d = scalar_cache[i].dtype;
  if (scalar_cache[i].direct) {
    kf_array a = {.data = (char *)o + sizeof(PyObject), .dtype = d};
    return scalar_from_memory(&a, out) == 0 ? 1 : -1;
  }
  switch (d) {
  case KF_BOOL: {
    int b = PyObject_IsTrue(o);
    if (b < 0) return -1;
    *out = kf_arg_int(KF_BOOL, b);
    return 1;
  }
  case KF_FLOAT16: case KF_FLOAT32: case KF_FLOAT64: {
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) return -1;
    *out = kf_arg_float(d, v);
    return 1;
  }
  default: {
    PyObject *n = PyNumber_Index(o);
    if (!n) return -1;
    if (d == KF_UINT8 || d == KF_UINT16 || d == KF_UINT32 || d == KF_UINT64) {
      unsigned long long u = PyLong_AsUnsignedLongLong(n);
      Py_DECREF(n);
      if (u == (unsigned long long)-1 && PyErr_Occurred()) return -1;
      *out = kf_arg_uint(d, u);
    } else {
      long long v = PyLong_AsLongLong(n);
      Py_DECREF(n);
      if (v == -1 && PyErr_Occurred()) return -1;
      *out = kf_arg_int(d, v);
    }
    return 1;
  }
  }
}

int ext_scalar_fast(PyObject *o, kf_arg *out) {
  if (PyFloat_CheckExact(o)) {
    *out = (kf_arg){.kind = KF_ARG_SCALAR, .dtype = KF_FLOAT64, .value.f = PyFloat_AsDouble(o)};
    return 1;
  }
  if (PyLong_CheckExact(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return 0;  /* the general path: uint64, or its OverflowError */
    }
    *out = (kf_arg){.kind = KF_ARG_SCALAR, .dtype = KF_INT64, .value.i = v};
    return 1;
  }
  return cached_scalar(o, out);
}

int ext_arg_from_object(PyObject *o, kf_arg *out, const char *what, Py_ssize_t index, uintptr_t *producer) {
  if (PyObject_TypeCheck(o, DeviceArray_Type)) {
    out->kind = KF_ARG_ARRAY;
    out->array = ((DeviceArrayObject *)o)->a;
    out->dtype = out->array.dtype;
    return 0;
  }
  if (PyBool_Check(o)) {
    *out = kf_arg_int(KF_BOOL, o == Py_True);
    return 0;
  }
  if (PyLong_Check(o) && !PyLong_CheckExact(o)) { /* an int subclass: an IntEnum member? */
    const char *sp;
    int r = enum_member(o, &sp);
    if (r) return r < 0 ? -1 : enum_arg(o, sp, out, what, index);
  }
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (!overflow) {
      if (v == -1 && PyErr_Occurred()) return -1;
      *out = kf_arg_int(KF_INT64, v);
      return 0;
    }
    unsigned long long u = PyLong_AsUnsignedLongLong(o);
    if (u == (unsigned long long)-1 && PyErr_Occurred()) {
      PyErr_Clear();
      PyErr_Format(PyExc_OverflowError, "%s argument %zd: the integer %R does not fit in int64 or uint64", what,
                   index, o);
      return -1;
    }
    *out = kf_arg_uint(KF_UINT64, u);
    return 0;
  }
  if (PyFloat_Check(o) && !PyFloat_CheckExact(o)) { /* np.float64 (a float subclass): its own dtype's fast path */
    int r = cached_scalar(o, out);
    if (r) return r < 0 ? -1 : 0;
  }
  if (PyFloat_Check(o)) {
    *out = kf_arg_float(KF_FLOAT64, PyFloat_AsDouble(o));
    return 0;
  }
  if (PyComplex_Check(o)) {
    *out = kf_arg_complex(KF_COMPLEX128, PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o));
    return 0;
  }
  int cached = cached_scalar(o, out);
  if (cached) return cached < 0 ? -1 : 0;
  int proto;
  PyObject *d = interface_of(o, &proto);
  if (!d) {
    if (PyErr_Occurred()) return -1;
    const char *sp;
    int r = enum_member(o, &sp);
    if (r) return r < 0 ? -1 : enum_arg(o, sp, out, what, index);
    PyObject *cls = errors_class("UntypeableArgumentError"); /* numba-cuda's typeof: ValueError; kfront's: TypeError */
    PyErr_Format(cls, "%s argument %zd: kfront cannot pass an object of type %R to a kernel (arrays, device arrays, "
                 "numbers, NumPy scalars and enum members are accepted)", what, index, (PyObject *)Py_TYPE(o));
    Py_DECREF(cls);
    return -1;
  }
  if (proto == PROTO_MASKED) { /* numba-cuda's typeof refuses it (its mask would be lost) */
    Py_DECREF(d);
    PyObject *cls = errors_class("TypingError");
    PyErr_Format(cls, "%s argument %zd: Unsupported array type: numpy.ma.MaskedArray.", what, index);
    Py_DECREF(cls);
    return -1;
  }
  kf_array a;
  if (array_of_interface(o, d, proto, &a, what, producer) < 0) return -1;
  if (a.ndim == 0 && kf_dtype_is_record(a.dtype)) { /* one record (np.void, np.record): passed by reference */
    out->kind = KF_ARG_ARRAY;
    out->dtype = a.dtype;
    out->array = a;
    return 0;
  }
  if (a.ndim == 0 && proto == PROTO_HOST) { /* a NumPy scalar is a scalar; a 0-d array an array (Numba's typeof) */
    int scalar = is_numpy_scalar(o);
    if (scalar < 0) return -1;
    if (scalar) {
      int r = scalar_from_memory(&a, out);  /* before remember_scalar_type, whose probe runs Python code */
      if (number_dtype(a.dtype)) remember_scalar_type(Py_TYPE(o), a.dtype);
      return r;
    }
  }
  out->kind = KF_ARG_ARRAY;
  out->dtype = a.dtype;
  out->array = a;
  return 0;
}

PyObject *ext_scalar_to_object(const kf_arg *a) {
  switch (a->dtype) {
  case KF_BOOL: return PyBool_FromLong(a->value.i != 0);
  case KF_INT8: case KF_INT16: case KF_INT32: case KF_INT64: return PyLong_FromLongLong(a->value.i);
  case KF_UINT8: case KF_UINT16: case KF_UINT32: case KF_UINT64: return PyLong_FromUnsignedLongLong(a->value.u);
  default: return PyFloat_FromDouble(a->value.f);
  }
}

/* ---- bound values ------------------------------------------------------------------------------------ */

void *ext_pool_alloc(ExtPool *p, size_t bytes) {
  if (p->n == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 16;
    void **b = PyMem_Realloc(p->blocks, cap * sizeof *b);
    if (!b) return PyErr_NoMemory();
    p->blocks = b;
    p->cap = cap;
  }
  void *m = PyMem_Calloc(1, bytes ? bytes : 1);
  if (!m) return PyErr_NoMemory();
  p->blocks[p->n++] = m;
  return m;
}

void ext_pool_free(ExtPool *p) {
  for (size_t i = 0; i < p->n; i++) PyMem_Free(p->blocks[i]);
  PyMem_Free(p->blocks);
  memset(p, 0, sizeof *p);
}

static const char *str_of(PyObject *o, const char *what) {
  if (!PyUnicode_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s must be a str, not %R", what, (PyObject *)Py_TYPE(o));
    return NULL;
  }
  return PyUnicode_AsUTF8AndSize(o, NULL);
}

/* A named tuple's class name and field names (a tuple of str) into out->path and out->names (nitems set). */
static int tuple_class_of(PyObject *name, PyObject *fields, kf_value *out, ExtPool *pool) {
  if (!(out->path = str_of(name, "a named tuple class's name"))) return -1;
  if (!PyTuple_Check(fields)) {
    PyErr_SetString(PyExc_TypeError, "a named tuple's fields must be a tuple of str");
    return -1;
  }
  Py_ssize_t n = PyTuple_Size(fields);
  const char **names = ext_pool_alloc(pool, sizeof *names * (size_t)(n ? n : 1));
  if (!names) return -1;
  for (Py_ssize_t i = 0; i < n; i++)
    if (!(names[i] = str_of(PyTuple_GetItem(fields, i), "a named tuple's field name"))) return -1;
  out->names = names;
  out->nitems = (unsigned)n;
  return 0;
}

int ext_value_from_object(PyObject *o, kf_value *out, ExtPool *pool, unsigned depth) {
  memset(out, 0, sizeof *out);
  if (depth > 32) {
    PyErr_SetString(PyExc_ValueError, "bound values nested more than 32 deep");
    return -1;
  }
  if (!PyTuple_Check(o) || PyTuple_Size(o) < 2 || !PyUnicode_Check(PyTuple_GetItem(o, 0))) {
    PyErr_Format(PyExc_TypeError, "a bound value must be a tagged tuple ('scalar', v), ..., not %R", o);
    return -1;
  }
  const char *tag = PyUnicode_AsUTF8AndSize(PyTuple_GetItem(o, 0), NULL);
  PyObject *v = PyTuple_GetItem(o, 1);
  if (!tag) return -1;
  if (strcmp(tag, "scalar") == 0) {
    kf_arg a;
    if (PyTuple_Size(o) == 3 && !(out->path = str_of(PyTuple_GetItem(o, 2), "an enum member's type"))) return -1;
    if (ext_arg_from_object(v, &a, "bound value", 0, NULL) < 0) return -1;
    if (a.kind != KF_ARG_SCALAR) {
      PyErr_Format(PyExc_TypeError, "('scalar', v): %R is not a scalar", v);
      return -1;
    }
    out->kind = a.dtype == KF_BOOL ? KF_VALUE_BOOL
                : a.dtype >= KF_FLOAT16 ? KF_VALUE_FLOAT : KF_VALUE_INT; /* bfloat16 too */
    out->dtype = a.dtype;
    memcpy(&out->scalar, &a.value, sizeof out->scalar);
    out->imag = a.imag; /* complex: the imaginary part */
    return 0;
  }
  if (strcmp(tag, "namespace") == 0 && PyTuple_Size(o) == 3 &&
      !(out->path = str_of(PyTuple_GetItem(o, 2), "an enum class's member type")))
    return -1;
  if (strcmp(tag, "none") == 0) {
    out->kind = KF_VALUE_NONE;
    return 0;
  }
  if (strcmp(tag, "tuple_class") == 0) { /* ('tuple_class', name, fields): a namedtuple class */
    if (PyTuple_Size(o) != 3) {
      PyErr_SetString(PyExc_TypeError, "('tuple_class', name, fields): three items");
      return -1;
    }
    out->kind = KF_VALUE_TUPLE_CLASS;
    return tuple_class_of(v, PyTuple_GetItem(o, 2), out, pool);
  }
  if (strcmp(tag, "pymodule") == 0) { /* ('pymodule', name, {attribute: value}): the attributes kernels read */
    if (PyTuple_Size(o) != 3 || !(out->path = str_of(v, "a module's name"))) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "('pymodule', name, d): three items");
      return -1;
    }
    v = PyTuple_GetItem(o, 2);
  }
  if (strcmp(tag, "tuple") == 0 || strcmp(tag, "namespace") == 0 || strcmp(tag, "slice") == 0 ||
      strcmp(tag, "pymodule") == 0) {
    int ns = tag[0] == 'n' || tag[0] == 'p';
    PyObject *items = ns ? (PyDict_Check(v) ? PyDict_Items(v) : NULL) : PySequence_Tuple(v);
    if (!items) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "('namespace', d): d must be a dict");
      return -1;
    }
    Py_ssize_t n = ns ? PyList_Size(items) : PyTuple_Size(items);
    kf_value *vals = ext_pool_alloc(pool, sizeof *vals * (size_t)n);
    const char **names = ns ? ext_pool_alloc(pool, sizeof *names * (size_t)n) : NULL;
    int r = vals && (!ns || names) ? 0 : -1;
    for (Py_ssize_t i = 0; r == 0 && i < n; i++) {
      PyObject *item = ns ? PyList_GetItem(items, i) : PyTuple_GetItem(items, i);
      if (ns) {
        if (!(names[i] = str_of(PyTuple_GetItem(item, 0), "a namespace member's name"))) r = -1;
        else r = ext_value_from_object(PyTuple_GetItem(item, 1), &vals[i], pool, depth + 1);
      } else {
        r = ext_value_from_object(item, &vals[i], pool, depth + 1);
      }
    }
    Py_DECREF(items);
    if (r < 0) return -1;
    out->kind = tag[0] == 'p' ? KF_VALUE_PYMODULE : ns ? KF_VALUE_NAMESPACE : tag[0] == 's' ? KF_VALUE_SLICE : KF_VALUE_TUPLE;
    out->items = vals;
    out->names = names;
    out->nitems = (unsigned)n;
    if (out->kind == KF_VALUE_TUPLE && PyTuple_Size(o) == 4) { /* ('tuple', items, class, fields): a namedtuple */
      if (tuple_class_of(PyTuple_GetItem(o, 2), PyTuple_GetItem(o, 3), out, pool) < 0) return -1;
      if (out->nitems != (unsigned)n) {
        PyErr_SetString(PyExc_ValueError, "a named tuple with a field name per item is needed");
        return -1;
      }
    }
    return 0;
  }
  if (strcmp(tag, "array") == 0) {
    out->kind = KF_VALUE_ARRAY;
    /* a host array becomes a constant array; a device array is captured by its address (the caller keeps it alive) */
    if (array_any_rank(v, &out->array, "a bound array", NULL) < 0) return -1;
    if (kf_dtype_is_record(out->array.dtype)) out->path = kf_dtype_name(out->array.dtype); /* the record's spelling */
    return 0;
  }
  if (strcmp(tag, "module") == 0 || strcmp(tag, "path") == 0) {
    out->kind = tag[0] == 'm' ? KF_VALUE_MODULE : KF_VALUE_PATH;
    return (out->path = str_of(v, "a module or path")) ? 0 : -1;
  }
  if (strcmp(tag, "str") == 0 || strcmp(tag, "unsupported") == 0) {
    out->kind = tag[0] == 's' ? KF_VALUE_STRING : KF_VALUE_UNSUPPORTED;
    return (out->path = str_of(v, tag[0] == 's' ? "a string" : "what the value is")) ? 0 : -1;
  }
  if (strcmp(tag, "overload") == 0) { /* ('overload', path): implemented per call by the overload resolver */
    out->kind = KF_VALUE_OVERLOAD;
    return (out->path = str_of(v, "an overloaded function's path")) ? 0 : -1;
  }
  if (strcmp(tag, "foreign") == 0 && (PyTuple_Size(o) == 4 || PyTuple_Size(o) == 5)) {
    /* ('foreign', symbol, signature, abi[, use_cooperative]): declare_device */
    out->kind = KF_VALUE_FOREIGN;
    if (!(out->path = str_of(v, "a foreign function's name"))) return -1;
    const char *abi = str_of(PyTuple_GetItem(o, 3), "a foreign function's ABI");
    if (!abi) return -1;
    if (strcmp(abi, "numba") != 0 && strcmp(abi, "c") != 0) {
      PyErr_Format(PyExc_NotImplementedError, "Unsupported ABI: %s", abi);
      return -1;
    }
    out->scalar.i = abi[0] == 'c' ? KF_FOREIGN_ABI_C : KF_FOREIGN_ABI_NUMBA;
    int cooperative = PyTuple_Size(o) == 5 ? PyObject_IsTrue(PyTuple_GetItem(o, 4)) : 0;
    if (cooperative < 0) return -1;
    if (cooperative) out->scalar.i |= KF_FOREIGN_COOPERATIVE;
    return (out->function = str_of(PyTuple_GetItem(o, 2), "a foreign function's signature")) ? 0 : -1;
  }
  if (strcmp(tag, "exception") == 0) {
    out->kind = KF_VALUE_EXCEPTION;
    return (out->path = str_of(v, "an exception class's name")) ? 0 : -1;
  }
  if (strcmp(tag, "function") == 0 && PyTuple_Size(o) == 3) {
    out->kind = KF_VALUE_FUNCTION;
    long src = PyLong_AsLong(v);
    if (src < 0) return PyErr_Occurred() ? -1 : (PyErr_SetString(PyExc_ValueError, "a negative source index"), -1);
    out->source = (unsigned)src;
    return (out->function = str_of(PyTuple_GetItem(o, 2), "a function's name")) ? 0 : -1;
  }
  PyErr_Format(PyExc_TypeError, "unknown bound value %R", o);
  return -1;
}

/* ---- type trees -------------------------------------------------------------------------------------- */

PyObject *ext_tree_to_object(const kf_value *v) {
  switch (v->kind) {
  case KF_VALUE_STRING: return PyUnicode_FromString(v->path);
  case KF_VALUE_INT: return PyLong_FromLongLong((long long)v->scalar.i);
  case KF_VALUE_BOOL: return PyBool_FromLong(v->scalar.i != 0);
  case KF_VALUE_NONE: Py_RETURN_NONE;
  case KF_VALUE_TUPLE: {
    PyObject *t = PyTuple_New((Py_ssize_t)v->nitems);
    for (unsigned i = 0; t && i < v->nitems; i++) {
      PyObject *item = ext_tree_to_object(&v->items[i]);
      if (!item) {
        Py_DECREF(t);
        return NULL;
      }
      PyTuple_SetItem(t, (Py_ssize_t)i, item);
    }
    return t;
  }
  default: return PyErr_Format(PyExc_SystemError, "kfront: a type tree holds a value of kind %d", (int)v->kind);
  }
}
