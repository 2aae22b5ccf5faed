/* module.c — the `kfront._kfront` module: the mapping of kfront's error kinds to Python exception classes,
 * the Runtime type (one kf_context and kf_runtime: one GPU or one simulated device), device and pinned memory
 * (Buffer), streams and events, the devices there are and the calling thread's current one, copies between
 * devices. kfront.cuda builds numba.cuda's API on these. */
#include <string.h>

#include "ext.h"
#include "kfront/abi.h"

PyTypeObject *Runtime_Type, *Stream_Type, *Event_Type, *Buffer_Type;

/* ---- errors ------------------------------------------------------------------------------------------ */

/* kf_error_kind -> exception class, registered by kfront.errors (set_exceptions); RuntimeError until then. */
static PyObject *exception_classes[KF_ERRKIND_LAST + 1];

static PyObject *set_exceptions(PyObject *self, PyObject *mapping) {
  (void)self;
  if (!PyDict_Check(mapping)) {
    PyErr_SetString(PyExc_TypeError, "set_exceptions: a dict {kind: exception class} is needed");
    return NULL;
  }
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(mapping, &pos, &key, &value)) {
    long k = PyLong_AsLong(key);
    if (k < 0 || k > KF_ERRKIND_LAST || !PyType_Check(value)) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "set_exceptions: kinds are kf_error_kinds, values classes");
      return NULL;
    }
    PyObject *old = exception_classes[k];
    exception_classes[k] = Py_NewRef(value);
    Py_XDECREF(old);
  }
  Py_RETURN_NONE;
}

static int set_attr_str(PyObject *o, const char *name, const char *v) {
  PyObject *s = v ? PyUnicode_DecodeUTF8(v, (Py_ssize_t)strlen(v), "replace") : Py_NewRef(Py_None);
  int r = s ? PyObject_SetAttrString(o, name, s) : -1;
  Py_XDECREF(s);
  return r;
}

static int set_attr_long(PyObject *o, const char *name, long long v) {
  PyObject *n = PyLong_FromLongLong(v);
  int r = n ? PyObject_SetAttrString(o, name, n) : -1;
  Py_XDECREF(n);
  return r;
}

static PyObject *triple(const unsigned v[3]) { return Py_BuildValue("(III)", v[0], v[1], v[2]); }

/* name -> class: the exception classes of the user's modules kernels may raise (register_exception). */
static PyObject *user_exceptions;

static PyObject *register_exception(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *name, *cls;
  if (!PyArg_ParseTuple(args, "UO:register_exception", &name, &cls)) return NULL;
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, (PyTypeObject *)PyExc_BaseException)) {
    PyErr_SetString(PyExc_TypeError, "register_exception: an exception class is needed");
    return NULL;
  }
  if (!user_exceptions && !(user_exceptions = PyDict_New())) return NULL;
  if (PyDict_SetItem(user_exceptions, name, cls) < 0) return NULL;
  Py_RETURN_NONE;
}

/* The class a kernel's raised exception is re-raised as: a class of the user's module registered under that
 * name, else the builtin exception of that name (ValueError, UnboundLocalError, ...), else the class registered
 * for KF_ERRKIND_RAISED. NULL without an exception set when there is none of them. */
static PyObject *raised_class(const char *exception) {
  size_t n = 0;
  const char *msg;
  if (exception) kf_error_exception(exception, &n, &msg);
  PyObject *cls = NULL;
  if (n && user_exceptions) {
    PyObject *name = PyUnicode_FromStringAndSize(exception, (Py_ssize_t)n);
    cls = name ? PyDict_GetItemWithError(user_exceptions, name) : NULL; /* borrowed */
    Py_XDECREF(name);
    PyErr_Clear();
    if (cls) return cls;
  }
  if (n && !memchr(exception, '.', n)) {
    PyObject *builtins = PyEval_GetBuiltins(); /* borrowed */
    PyObject *name = PyUnicode_FromStringAndSize(exception, (Py_ssize_t)n);
    cls = builtins && name ? PyDict_GetItemWithError(builtins, name) : NULL; /* borrowed */
    Py_XDECREF(name);
    PyErr_Clear();
    if (cls && !(PyType_Check(cls) && PyType_IsSubtype((PyTypeObject *)cls, (PyTypeObject *)PyExc_BaseException)))
      cls = NULL;
  }
  return cls ? cls : exception_classes[KF_ERRKIND_RAISED];
}

/* The contexts of the runtimes on a GPU (an exception their kernels raised is worded as numba-cuda words it on a
 * GPU; the simulator's as numba-cuda's simulator does). Read and written under the GIL. */
enum { MAX_GPU_CONTEXTS = 64 };
static kf_context *gpu_contexts[MAX_GPU_CONTEXTS];

static void set_gpu_context(kf_context *ctx, int on) {
  for (int i = 0; i < MAX_GPU_CONTEXTS; i++)
    if (on ? !gpu_contexts[i] : gpu_contexts[i] == ctx) {
      gpu_contexts[i] = on ? ctx : NULL;
      return;
    }
}

static int is_gpu_context(kf_context *ctx) {
  for (int i = 0; i < MAX_GPU_CONTEXTS; i++)
    if (gpu_contexts[i] == ctx) return 1;
  return 0;
}

/* The text of an exception a kernel raised, as numba-cuda words it — kfront.errors.kernel_exception_prefix gives
 * its head, "tid=[1, 0, 0] ctaid=[0, 0, 0]" (the simulator's) or "In function 'k', file F, line L, tid=[0, 0, 1]
 * ctaid=[0, 0, 0]" (the GPU's) —, then ": message" when it has one, then kfront's located diagnostic on the next
 * line. Steals diag. */
static PyObject *with_thread_prefix(PyObject *diag, const kf_error_info *e, int gpu) {
  size_t n = 0;
  const char *message = NULL;
  if (e->exception) kf_error_exception(e->exception, &n, &message);
  PyObject *errors = PyImport_ImportModule("kfront.errors");
  PyObject *head = errors ? PyObject_CallMethod(errors, "kernel_exception_prefix", "Ozzi(III)(III)", gpu ? Py_True
                                                : Py_False, e->kernel, e->file, (int)e->line, e->thread[0], e->thread[1],
                                                e->thread[2], e->block[0], e->block[1], e->block[2])
                          : NULL;
  Py_XDECREF(errors);
  PyObject *text = !head ? NULL
                   : message ? PyUnicode_FromFormat("%U: %s\n%U", head, message, diag)
                             : PyUnicode_FromFormat("%U\n%U", head, diag);
  Py_XDECREF(head);
  Py_DECREF(diag);
  return text;
}

PyObject *ext_raise(kf_context *ctx, kf_status st) {
  if (st == KF_ERROR_CALLBACK && PyErr_Occurred()) { /* a Python callback's own exception (a module's setup) */
    kf_context_clear_diagnostics(ctx);
    return NULL;
  }
  kf_error_info e;
  memset(&e, 0, sizeof e);
  if (kf_context_first_error(ctx, &e) != KF_OK) e.kind = KF_ERRKIND_NONE;
  kf_error_kind kind = e.kind;
  if ((unsigned)kind > KF_ERRKIND_LAST) kind = KF_ERRKIND_INTERNAL;  /* a kind of a newer library */
  if (kind == KF_ERRKIND_NONE) {
    switch (st) {  /* a status without a diagnostic: its kind from the status */
    case KF_ERROR_OUT_OF_BOUNDS: kind = KF_ERRKIND_OUT_OF_BOUNDS; break;
    case KF_ERROR_DEVICE: kind = KF_ERRKIND_DEVICE; break;
    case KF_ERROR_BACKEND: kind = KF_ERRKIND_BACKEND; break;
    case KF_ERROR_NOT_FOUND: kind = KF_ERRKIND_NOT_FOUND; break;
    case KF_ERROR_OUT_OF_MEMORY: kind = KF_ERRKIND_OUT_OF_MEMORY; break;
    case KF_ERROR_UNSUPPORTED: kind = KF_ERRKIND_UNSUPPORTED; break;
    case KF_ERROR_INVALID_INPUT: kind = KF_ERRKIND_ARGUMENT; break;
    default: kind = KF_ERRKIND_INTERNAL; break;
    }
  }
  const char *text = kf_context_diagnostics(ctx);
  size_t len = strlen(text);
  while (len && text[len - 1] == '\n') len--;
  PyObject *msg = len ? PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "replace")
                      : PyUnicode_FromFormat("kfront: %s", kf_status_name(st));
  if (msg && kind == KF_ERRKIND_RAISED) msg = with_thread_prefix(msg, &e, is_gpu_context(ctx));
  PyObject *cls = kind == KF_ERRKIND_RAISED ? raised_class(e.exception) : exception_classes[kind];
  if (!cls) {
    static PyObject *const *defaults[] = {
        [KF_ERRKIND_OUT_OF_BOUNDS] = &PyExc_IndexError, [KF_ERRKIND_ARGUMENT] = &PyExc_TypeError,
        [KF_ERRKIND_LAUNCH_CONFIG] = &PyExc_ValueError, [KF_ERRKIND_OUT_OF_MEMORY] = &PyExc_MemoryError,
        [KF_ERRKIND_VALUE] = &PyExc_ValueError};
    cls = kind < sizeof defaults / sizeof *defaults && defaults[kind] ? *defaults[kind] : PyExc_RuntimeError;
  }
  PyObject *exc = msg ? PyObject_CallFunctionObjArgs(cls, msg, NULL) : NULL;
  if (!exc && msg && kind == KF_ERRKIND_RAISED) { /* a class that takes other arguments: RuntimeError */
    PyErr_Clear();
    exc = PyObject_CallFunctionObjArgs(PyExc_RuntimeError, msg, NULL);
  }
  Py_XDECREF(msg);
  if (exc) {
    /* the facts, for code that wants them (kfront.errors documents them); a builtin class that takes no
     * attributes keeps its text only */
    if (set_attr_long(exc, "kind", (long long)kind) < 0 || set_attr_str(exc, "message", e.message) < 0 ||
        set_attr_str(exc, "file", e.file) < 0 || set_attr_long(exc, "line", e.line) < 0 ||
        set_attr_long(exc, "col", e.col) < 0 ||
        (kind == KF_ERRKIND_OUT_OF_BOUNDS &&
         (set_attr_str(exc, "kernel", e.kernel) < 0 || set_attr_long(exc, "axis", e.axis) < 0 ||
          set_attr_long(exc, "index", e.index) < 0 || set_attr_long(exc, "extent", e.extent) < 0)))
      PyErr_Clear();
    if (kind == KF_ERRKIND_RAISED) {
      PyObject *t = triple(e.thread), *b = triple(e.block);
      if (!t || !b || set_attr_str(exc, "kernel", e.kernel) < 0 || set_attr_str(exc, "exception", e.exception) < 0 ||
          PyObject_SetAttrString(exc, "thread", t) < 0 || PyObject_SetAttrString(exc, "block", b) < 0)
        PyErr_Clear();
      Py_XDECREF(t);
      Py_XDECREF(b);
    }
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
  }
  kf_context_clear_diagnostics(ctx);
  return NULL;
}

int ext_flush_warnings(kf_context *ctx) {
  const char *text = kf_context_diagnostics(ctx);
  if (!*text || kf_context_error_count(ctx)) return 0;
  size_t len = strlen(text);
  while (len && text[len - 1] == '\n') len--;
  PyObject *msg = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "replace");
  kf_context_clear_diagnostics(ctx);
  if (!msg) return -1;
  PyObject *errors = PyImport_ImportModule("kfront.errors");
  PyObject *cat = errors ? PyObject_GetAttrString(errors, "KfrontWarning") : NULL;
  Py_XDECREF(errors);
  PyErr_Clear();
  const char *utf8 = PyUnicode_AsUTF8AndSize(msg, NULL);
  int r = utf8 ? PyErr_WarnEx(cat && PyType_Check(cat) ? cat : PyExc_UserWarning, utf8, 1) : -1;
  Py_XDECREF(cat);
  Py_DECREF(msg);
  return r;
}

/* ---- Runtime ------------------------------------------------------------------------------------------ */

/* kf_runtime_mode of 'auto', 'gpu' or 'sim' (-1 with an exception otherwise). */
static int mode_of(const char *mode, const char *who) {
  if (strcmp(mode, "auto") == 0) return KF_RUNTIME_AUTO;
  if (strcmp(mode, "gpu") == 0) return KF_RUNTIME_GPU;
  if (strcmp(mode, "sim") == 0) return KF_RUNTIME_SIM;
  PyErr_Format(PyExc_ValueError, "%s: mode must be 'auto', 'gpu' or 'sim', not '%s'", who, mode);
  return -1;
}

static PyObject *info_dict(const kf_device_info *in) {
  return Py_BuildValue("{s:s,s:(ii),s:i,s:i,s:i,s:(iii),s:(iii),s:n,s:n}", "name", in->name, "compute_capability",
                       in->cc_major, in->cc_minor, "multiprocessors", in->multiprocessors, "warp_size", in->warp_size,
                       "max_threads_per_block", in->max_threads_per_block, "max_block_dim", in->max_block_dim[0],
                       in->max_block_dim[1], in->max_block_dim[2], "max_grid_dim", in->max_grid_dim[0],
                       in->max_grid_dim[1], in->max_grid_dim[2], "max_shared_per_block",
                       (Py_ssize_t)in->max_shared_per_block, "max_shared_per_block_optin",
                       (Py_ssize_t)in->max_shared_per_block_optin);
}

static PyObject *Runtime_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  static char *names[] = {"mode", "cache_dir", "backend", "libcuda", "grid_stride", "sim_workers",
                          "sim_max_steps", "sim_detect_races", "device", "sim_devices", "thread_map", NULL};
  const char *mode = "auto", *cache_dir = NULL, *backend = "auto", *libcuda = NULL;
  int grid_stride = 1, races = 1, device = 0, thread_map = 1;
  unsigned sim_workers = 1, sim_devices = 1;
  unsigned long long max_steps = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|szszpIKpiIi", names, &mode, &cache_dir, &backend, &libcuda,
                                   &grid_stride, &sim_workers, &max_steps, &races, &device, &sim_devices,
                                   &thread_map))
    return NULL;
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  int m = mode_of(mode, "Runtime");
  if (m < 0) return NULL;
  o.mode = (kf_runtime_mode)m;
  if (strcmp(backend, "auto") == 0) o.backend = KF_BACKEND_AUTO;
  else if (strcmp(backend, "nvvm") == 0) o.backend = KF_BACKEND_NVVM;
  else if (strcmp(backend, "llvm") == 0) o.backend = KF_BACKEND_LLVM;
  else return PyErr_Format(PyExc_ValueError, "Runtime: backend must be 'auto', 'nvvm' or 'llvm', not '%s'", backend);
  o.cache_dir = cache_dir;
  o.disk_cache = cache_dir != NULL;
  o.libcuda_path = libcuda;
  o.grid_stride = grid_stride;
  o.thread_map = thread_map;
  o.sim_workers = sim_workers;
  o.sim_max_steps = max_steps;
  o.sim_detect_races = races;
  o.device = device;
  o.sim_devices = sim_devices;
  RuntimeObject *self = (RuntimeObject *)PyType_GenericNew(type, NULL, NULL);
  if (!self) return NULL;
  self->ctx = kf_context_create();
  if (!self->ctx) {
    Py_DECREF(self);
    return PyErr_NoMemory();
  }
  kf_status st = kf_runtime_create(self->ctx, &o, &self->rt);
  if (st != KF_OK) {
    ext_raise(self->ctx, st);
    Py_DECREF(self);
    return NULL;
  }
  if (kf_runtime_get_mode(self->rt) == KF_RUNTIME_GPU) set_gpu_context(self->ctx, 1);
  return (PyObject *)self;
}

static void Runtime_dealloc(PyObject *o) {
  RuntimeObject *self = (RuntimeObject *)o;
  PyTypeObject *tp = Py_TYPE(o);
  if (self->rt) kf_runtime_destroy(self->rt);
  if (self->ctx) {
    set_gpu_context(self->ctx, 0);
    kf_context_destroy(self->ctx);
  }
  ((freefunc)PyType_GetSlot(tp, Py_tp_free))(o);
  Py_DECREF(tp);
}

#define RT_CALL(self, call)                         \
  do {                                              \
    kf_status st_ = (call);                         \
    if (st_ != KF_OK) return ext_raise((self)->ctx, st_); \
  } while (0)

static PyObject *Runtime_get_mode(PyObject *o, void *c) {
  (void)c;
  return PyUnicode_FromString(kf_runtime_get_mode(((RuntimeObject *)o)->rt) == KF_RUNTIME_GPU ? "gpu" : "sim");
}

static PyObject *Runtime_describe(PyObject *o, PyObject *unused) {
  (void)unused;
  return PyUnicode_FromString(kf_runtime_describe(((RuntimeObject *)o)->rt));
}

static PyObject *Runtime_device_info(PyObject *o, PyObject *unused) {
  (void)unused;
  RuntimeObject *self = (RuntimeObject *)o;
  kf_device_info in;
  RT_CALL(self, kf_runtime_device_info(self->rt, &in));
  return info_dict(&in);
}

static PyObject *Runtime_get_device(PyObject *o, void *c) {
  (void)c;
  return PyLong_FromLong(kf_runtime_device(((RuntimeObject *)o)->rt));
}

static PyObject *Runtime_get_pipeline(PyObject *o, void *c) {
  (void)c;
  return PyUnicode_FromString(kf_runtime_pipeline(((RuntimeObject *)o)->rt, 1));
}

static PyObject *Runtime_get_kernel_pipeline(PyObject *o, void *c) {
  (void)c;
  return PyUnicode_FromString(kf_runtime_pipeline(((RuntimeObject *)o)->rt, 0));
}

static PyObject *Runtime_make_current(PyObject *o, PyObject *unused) {
  (void)unused;
  RuntimeObject *self = (RuntimeObject *)o;
  RT_CALL(self, kf_runtime_make_current(self->rt));
  Py_RETURN_NONE;
}

static PyObject *Runtime_pointer_device(PyObject *o, PyObject *arg) {
  unsigned long long p = PyLong_AsUnsignedLongLong(arg);
  if (PyErr_Occurred()) return NULL;
  return PyLong_FromLong(kf_runtime_pointer_device(((RuntimeObject *)o)->rt, (const void *)(uintptr_t)p));
}

static PyObject *Runtime_can_access_peer(PyObject *o, PyObject *peer) {
  RuntimeObject *self = (RuntimeObject *)o;
  if (!PyObject_TypeCheck(peer, Runtime_Type)) return PyErr_Format(PyExc_TypeError, "can_access_peer: a Runtime");
  int can = 0;
  RT_CALL(self, kf_device_can_access_peer(self->rt, ((RuntimeObject *)peer)->rt, &can));
  return PyBool_FromLong(can);
}

/* memcpy_peer(dst, src_runtime, src, nbytes, stream=None): device memory of src_runtime's device into this
 * runtime's device memory */
static PyObject *Runtime_memcpy_peer(PyObject *o, PyObject *args) {
  RuntimeObject *self = (RuntimeObject *)o;
  PyObject *src_rt, *stream_obj = Py_None;
  unsigned long long dst, src, n;
  if (!PyArg_ParseTuple(args, "KO!KK|O", &dst, Runtime_Type, &src_rt, &src, &n, &stream_obj)) return NULL;
  int ok;
  kf_stream *s = ext_stream_arg(stream_obj, &ok);
  if (!ok) return NULL;
  kf_status st;
  Py_BEGIN_ALLOW_THREADS
  st = kf_memcpy_peer(self->rt, (void *)(uintptr_t)dst, ((RuntimeObject *)src_rt)->rt, (const void *)(uintptr_t)src,
                      (size_t)n, s);
  Py_END_ALLOW_THREADS
  if (st != KF_OK) return ext_raise(self->ctx, st);
  Py_RETURN_NONE;
}

static PyObject *Runtime_memory_info(PyObject *o, PyObject *unused) {
  (void)unused;
  RuntimeObject *self = (RuntimeObject *)o;
  size_t free_b = 0, total = 0;
  RT_CALL(self, kf_runtime_memory_info(self->rt, &free_b, &total));
  return Py_BuildValue("(KK)", (unsigned long long)free_b, (unsigned long long)total);
}

static PyObject *Runtime_stats(PyObject *o, PyObject *unused) {
  (void)unused;
  kf_runtime_stats s;
  kf_runtime_get_stats(((RuntimeObject *)o)->rt, &s);
  return Py_BuildValue("{s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "cache_memory_hits", s.cache_memory_hits, "cache_disk_hits",
                       s.cache_disk_hits, "cache_misses", s.cache_misses, "cache_corrupt", s.cache_corrupt,
                       "cache_writes", s.cache_writes, "compiles", s.compiles, "launches", s.launches);
}

/* ---- pending deallocations (kf_device_free_deferred: a Buffer's memory waits there when it goes) ---------- */

static PyObject *Runtime_allocated(PyObject *o, PyObject *unused) {
  (void)unused;
  size_t bytes = 0, count = 0;
  kf_runtime_allocated(((RuntimeObject *)o)->rt, &bytes, &count);
  return Py_BuildValue("(nn)", (Py_ssize_t)bytes, (Py_ssize_t)count);
}

static PyObject *Runtime_deallocations(PyObject *o, PyObject *unused) {
  (void)unused;
  kf_deallocations d;
  kf_deallocations_get(((RuntimeObject *)o)->rt, &d);
  return Py_BuildValue("{s:n,s:n,s:n,s:n,s:I}", "pending", (Py_ssize_t)d.pending, "pending_bytes",
                       (Py_ssize_t)d.pending_bytes, "max_count", (Py_ssize_t)d.max_count, "max_bytes",
                       (Py_ssize_t)d.max_bytes, "deferring", d.deferring);
}

static PyObject *Runtime_flush_deallocations(PyObject *o, PyObject *unused) {
  (void)unused;
  RuntimeObject *self = (RuntimeObject *)o;
  kf_status st;
  Py_BEGIN_ALLOW_THREADS
  st = kf_deallocations_flush(self->rt);
  Py_END_ALLOW_THREADS
  if (st != KF_OK) return ext_raise(self->ctx, st);
  Py_RETURN_NONE;
}

static PyObject *Runtime_defer_deallocations(PyObject *o, PyObject *arg) {
  RuntimeObject *self = (RuntimeObject *)o;
  int defer = PyObject_IsTrue(arg);
  if (defer < 0) return NULL;
  RT_CALL(self, kf_deallocations_defer(self->rt, defer));
  Py_RETURN_NONE;
}

static PyObject *Runtime_set_deallocation_limits(PyObject *o, PyObject *args) {
  RuntimeObject *self = (RuntimeObject *)o;
  Py_ssize_t count, bytes;
  if (!PyArg_ParseTuple(args, "nn", &count, &bytes)) return NULL;
  if (count < 0 || bytes < 0) return PyErr_Format(PyExc_ValueError, "set_deallocation_limits: negative limits");
  RT_CALL(self, kf_deallocations_set_limits(self->rt, (size_t)count, (size_t)bytes));
  Py_RETURN_NONE;
}

static PyObject *Runtime_set_sim_limits(PyObject *o, PyObject *args) {
  RuntimeObject *self = (RuntimeObject *)o;
  unsigned long long steps;
  double seconds;
  const char *steps_setting = NULL, *seconds_setting = NULL;
  if (!PyArg_ParseTuple(args, "Kd|zz", &steps, &seconds, &steps_setting, &seconds_setting)) return NULL;
  RT_CALL(self, kf_runtime_set_sim_limits(self->rt, steps, seconds, steps_setting, seconds_setting));
  Py_RETURN_NONE;
}

/* ---- IPC: memory shared with other processes --------------------------------------------------------- */

static PyObject *Runtime_ipc_get_handle(PyObject *o, PyObject *arg) {
  RuntimeObject *self = (RuntimeObject *)o;
  unsigned long long p = PyLong_AsUnsignedLongLong(arg);
  if (PyErr_Occurred()) return NULL;
  unsigned char h[KF_IPC_HANDLE_BYTES];
  RT_CALL(self, kf_ipc_get_handle(self->rt, (void *)(uintptr_t)p, h));
  return PyBytes_FromStringAndSize((const char *)h, KF_IPC_HANDLE_BYTES);
}

static PyObject *Runtime_ipc_open_handle(PyObject *o, PyObject *arg) {
  RuntimeObject *self = (RuntimeObject *)o;
  if (!PyBytes_Check(arg) || PyBytes_Size(arg) != KF_IPC_HANDLE_BYTES)
    return PyErr_Format(PyExc_ValueError, "ipc_open_handle: an IPC handle is %d bytes", KF_IPC_HANDLE_BYTES);
  void *p = NULL;
  RT_CALL(self, kf_ipc_open_handle(self->rt, (const unsigned char *)PyBytes_AsString(arg), &p));
  return PyLong_FromUnsignedLongLong((uintptr_t)p);
}

static PyObject *Runtime_ipc_close_handle(PyObject *o, PyObject *arg) {
  RuntimeObject *self = (RuntimeObject *)o;
  unsigned long long p = PyLong_AsUnsignedLongLong(arg);
  if (PyErr_Occurred()) return NULL;
  RT_CALL(self, kf_ipc_close_handle(self->rt, (void *)(uintptr_t)p));
  Py_RETURN_NONE;
}

static PyObject *Runtime_synchronize(PyObject *o, PyObject *unused) {
  (void)unused;
  RuntimeObject *self = (RuntimeObject *)o;
  kf_status st;
  Py_BEGIN_ALLOW_THREADS
  st = kf_runtime_synchronize(self->rt);
  Py_END_ALLOW_THREADS
  if (st != KF_OK) return ext_raise(self->ctx, st);
  Py_RETURN_NONE;
}

/* memcpy(kind, dst, src, nbytes, stream): kind 0 host->device, 1 device->host, 2 device->device; addresses
 * are integers (kfront.cuda takes them from __array_interface__ / __cuda_array_interface__). */
static PyObject *Runtime_memcpy(PyObject *o, PyObject *args) {
  RuntimeObject *self = (RuntimeObject *)o;
  int kind;
  unsigned long long dst, src, n;
  PyObject *stream_obj = Py_None;
  if (!PyArg_ParseTuple(args, "iKKK|O", &kind, &dst, &src, &n, &stream_obj)) return NULL;
  int ok;
  kf_stream *s = ext_stream_arg(stream_obj, &ok);
  if (!ok) return NULL;
  if (n == 0) Py_RETURN_NONE;
  kf_status st;
  void *d = (void *)(uintptr_t)dst;
  const void *sp = (const void *)(uintptr_t)src;
  Py_BEGIN_ALLOW_THREADS
  st = kind == 0   ? kf_memcpy_to_device(self->rt, d, sp, (size_t)n, s)
       : kind == 1 ? kf_memcpy_to_host(self->rt, d, sp, (size_t)n, s)
                   : kf_memcpy_device(self->rt, d, sp, (size_t)n, s);
  Py_END_ALLOW_THREADS
  if (st != KF_OK) return ext_raise(self->ctx, st);
  Py_RETURN_NONE;
}

static PyObject *Runtime_memset(PyObject *o, PyObject *args) {
  RuntimeObject *self = (RuntimeObject *)o;
  unsigned long long dst, n;
  int value;
  PyObject *stream_obj = Py_None;
  if (!PyArg_ParseTuple(args, "KiK|O", &dst, &value, &n, &stream_obj)) return NULL;
  int ok;
  kf_stream *s = ext_stream_arg(stream_obj, &ok);
  if (!ok) return NULL;
  if (n) RT_CALL(self, kf_memset_device(self->rt, (void *)(uintptr_t)dst, value, (size_t)n, s));
  Py_RETURN_NONE;
}

static PyObject *Runtime_host_register(PyObject *o, PyObject *args) {
  RuntimeObject *self = (RuntimeObject *)o;
  unsigned long long p, n;
  int mapped = 0;
  if (!PyArg_ParseTuple(args, "KK|p", &p, &n, &mapped)) return NULL;
  RT_CALL(self, kf_host_register(self->rt, (void *)(uintptr_t)p, (size_t)n, mapped ? KF_HOST_MAPPED : 0));
  Py_RETURN_NONE;
}

static PyObject *Runtime_host_unregister(PyObject *o, PyObject *arg) {
  RuntimeObject *self = (RuntimeObject *)o;
  unsigned long long p = PyLong_AsUnsignedLongLong(arg);
  if (PyErr_Occurred()) return NULL;
  RT_CALL(self, kf_host_unregister(self->rt, (void *)(uintptr_t)p));
  Py_RETURN_NONE;
}

static PyObject *Runtime_host_device_pointer(PyObject *o, PyObject *arg) {
  RuntimeObject *self = (RuntimeObject *)o;
  unsigned long long p = PyLong_AsUnsignedLongLong(arg);
  if (PyErr_Occurred()) return NULL;
  void *d = NULL;
  RT_CALL(self, kf_host_device_pointer(self->rt, (void *)(uintptr_t)p, &d));
  return PyLong_FromUnsignedLongLong((uintptr_t)d);
}

/* ---- Buffer: device memory, or pinned host memory, given to the pending deallocations with the object ------ */

typedef struct BufferObject {
  PyObject_HEAD
  RuntimeObject *runtime;   /* strong: the runtime outlives its memory */
  void *ptr;
  size_t nbytes;
  int host;                 /* kf_host_alloc'd (pinned; flags below) rather than kf_device_alloc'd */
  unsigned flags;
} BufferObject;

/* What a Buffer holds: device memory, pinned host memory (kf_host_alloc) or managed memory (kf_managed_alloc,
 * freed as device memory). */
enum { BUFFER_DEVICE, BUFFER_HOST, BUFFER_MANAGED };

static PyObject *buffer_new(RuntimeObject *rt, size_t n, int kind, unsigned flags) {
  BufferObject *b = PyObject_New(BufferObject, Buffer_Type);
  if (!b) return NULL;
  b->runtime = (RuntimeObject *)Py_NewRef((PyObject *)rt);
  b->ptr = NULL;
  b->nbytes = n;
  b->host = kind == BUFFER_HOST;
  b->flags = flags;
  kf_status st = kind == BUFFER_HOST      ? kf_host_alloc(rt->rt, n, flags, &b->ptr)
                 : kind == BUFFER_MANAGED ? kf_managed_alloc(rt->rt, n, flags, &b->ptr)
                                          : kf_device_alloc(rt->rt, n, &b->ptr);
  if (st != KF_OK) {
    Py_DECREF(b);
    return ext_raise(rt->ctx, st);
  }
  return (PyObject *)b;
}

static void Buffer_dealloc(PyObject *o) {
  BufferObject *b = (BufferObject *)o;
  PyTypeObject *tp = Py_TYPE(o);
  if (b->ptr) {
    /* numba-cuda's pending deallocations: the memory waits, and is freed with the others after the device's work */
    kf_status st = b->host ? kf_host_free_deferred(b->runtime->rt, b->ptr, b->nbytes)
                           : kf_device_free_deferred(b->runtime->rt, b->ptr);
    if (st != KF_OK) kf_context_clear_diagnostics(b->runtime->ctx);  /* nothing to raise to in a destructor */
  }
  Py_XDECREF(b->runtime);
  PyObject_Free(o);
  Py_DECREF(tp);
}

static PyObject *Buffer_get_ptr(PyObject *o, void *c) {
  (void)c;
  return PyLong_FromUnsignedLongLong((uintptr_t)((BufferObject *)o)->ptr);
}
static PyObject *Buffer_get_nbytes(PyObject *o, void *c) {
  (void)c;
  return PyLong_FromSize_t(((BufferObject *)o)->nbytes);
}
static PyObject *Buffer_get_runtime(PyObject *o, void *c) {
  (void)c;
  return Py_NewRef((PyObject *)((BufferObject *)o)->runtime);
}

static PyObject *Runtime_alloc(PyObject *o, PyObject *arg) {
  Py_ssize_t n = PyLong_AsSsize_t(arg);
  if (n < 0) return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_ValueError, "alloc: negative size %zd", n);
  return buffer_new((RuntimeObject *)o, (size_t)n, BUFFER_DEVICE, 0);
}

static PyObject *Runtime_managed_alloc(PyObject *o, PyObject *args) {
  Py_ssize_t n;
  int attach_global = 1;
  if (!PyArg_ParseTuple(args, "n|p", &n, &attach_global)) return NULL;
  if (n < 0) return PyErr_Format(PyExc_ValueError, "managed_alloc: negative size %zd", n);
  return buffer_new((RuntimeObject *)o, (size_t)n, BUFFER_MANAGED, attach_global ? 0 : KF_MANAGED_ATTACH_HOST);
}

static PyObject *Runtime_pointer_range(PyObject *o, PyObject *arg) {
  RuntimeObject *self = (RuntimeObject *)o;
  unsigned long long p = PyLong_AsUnsignedLongLong(arg);
  if (PyErr_Occurred()) return NULL;
  void *base = NULL;
  size_t n = 0;
  RT_CALL(self, kf_pointer_range(self->rt, (const void *)(uintptr_t)p, &base, &n));
  return Py_BuildValue("(Kn)", (unsigned long long)(uintptr_t)base, (Py_ssize_t)n);
}

static PyObject *Runtime_host_alloc(PyObject *o, PyObject *args) {
  Py_ssize_t n;
  int mapped = 0;
  if (!PyArg_ParseTuple(args, "n|p", &n, &mapped)) return NULL;
  if (n < 0) return PyErr_Format(PyExc_ValueError, "host_alloc: negative size %zd", n);
  return buffer_new((RuntimeObject *)o, (size_t)n, BUFFER_HOST, mapped ? KF_HOST_MAPPED : 0);
}

/* ---- Stream ------------------------------------------------------------------------------------------- */

static PyObject *stream_new(RuntimeObject *rt, kf_stream *s, int external) {
  StreamObject *so = PyObject_New(StreamObject, Stream_Type);
  if (!so) {
    kf_stream_destroy(s);
    return NULL;
  }
  so->runtime = (RuntimeObject *)Py_NewRef((PyObject *)rt);
  so->s = s;
  so->external = external;
  return (PyObject *)so;
}

static PyObject *Runtime_stream(PyObject *o, PyObject *unused) {
  (void)unused;
  RuntimeObject *self = (RuntimeObject *)o;
  kf_stream *s;
  RT_CALL(self, kf_stream_create(self->rt, &s));
  return stream_new(self, s, 0);
}

static PyObject *Runtime_external_stream(PyObject *o, PyObject *arg) {
  RuntimeObject *self = (RuntimeObject *)o;
  unsigned long long h = PyLong_AsUnsignedLongLong(arg);
  if (PyErr_Occurred()) return NULL;
  kf_stream *s;
  RT_CALL(self, kf_stream_wrap(self->rt, (void *)(uintptr_t)h, &s));
  return stream_new(self, s, 1);
}

static void Stream_dealloc(PyObject *o) {
  StreamObject *so = (StreamObject *)o;
  PyTypeObject *tp = Py_TYPE(o);
  if (so->s) kf_stream_destroy(so->s);
  Py_XDECREF(so->runtime);
  PyObject_Free(o);
  Py_DECREF(tp);
}

static PyObject *Stream_synchronize(PyObject *o, PyObject *unused) {
  (void)unused;
  StreamObject *so = (StreamObject *)o;
  kf_status st;
  Py_BEGIN_ALLOW_THREADS
  st = kf_stream_synchronize(so->s);
  Py_END_ALLOW_THREADS
  if (st != KF_OK) return ext_raise(so->runtime->ctx, st);
  Py_RETURN_NONE;
}

static PyObject *Stream_get_handle(PyObject *o, void *c) {
  (void)c;
  return PyLong_FromUnsignedLongLong((uintptr_t)kf_stream_handle(((StreamObject *)o)->s));
}

kf_stream *ext_stream_arg(PyObject *o, int *ok) {
  *ok = 1;
  if (o == NULL || o == Py_None) return NULL;
  if (PyObject_TypeCheck(o, Stream_Type)) return ((StreamObject *)o)->s;
  if (PyLong_Check(o) && PyLong_AsLong(o) == 0) return NULL;
  PyErr_Clear();
  /* kfront.cuda's Stream wraps ours as `_stream` */
  PyObject *inner = PyObject_GetAttrString(o, "_stream");
  if (inner && PyObject_TypeCheck(inner, Stream_Type)) {
    kf_stream *s = ((StreamObject *)inner)->s;
    Py_DECREF(inner);
    return s;
  }
  Py_XDECREF(inner);
  PyErr_Clear();
  *ok = 0;
  PyErr_Format(PyExc_TypeError, "a stream must be a kfront stream, 0 or None, not %R", o);
  return NULL;
}

/* ---- Event -------------------------------------------------------------------------------------------- */

typedef struct EventObject {
  PyObject_HEAD
  RuntimeObject *runtime;
  kf_event *e;
} EventObject;

static PyObject *Runtime_event(PyObject *o, PyObject *unused) {
  (void)unused;
  RuntimeObject *self = (RuntimeObject *)o;
  kf_event *e;
  RT_CALL(self, kf_event_create(self->rt, &e));
  EventObject *eo = PyObject_New(EventObject, Event_Type);
  if (!eo) {
    kf_event_destroy(e);
    return NULL;
  }
  eo->runtime = (RuntimeObject *)Py_NewRef(o);
  eo->e = e;
  return (PyObject *)eo;
}

static void Event_dealloc(PyObject *o) {
  EventObject *eo = (EventObject *)o;
  PyTypeObject *tp = Py_TYPE(o);
  if (eo->e) kf_event_destroy(eo->e);
  Py_XDECREF(eo->runtime);
  PyObject_Free(o);
  Py_DECREF(tp);
}

static PyObject *Event_record(PyObject *o, PyObject *args) {
  EventObject *eo = (EventObject *)o;
  PyObject *stream_obj = Py_None;
  if (!PyArg_ParseTuple(args, "|O", &stream_obj)) return NULL;
  int ok;
  kf_stream *s = ext_stream_arg(stream_obj, &ok);
  if (!ok) return NULL;
  RT_CALL(eo->runtime, kf_event_record(eo->e, s));
  Py_RETURN_NONE;
}

static PyObject *Event_synchronize(PyObject *o, PyObject *unused) {
  (void)unused;
  EventObject *eo = (EventObject *)o;
  kf_status st;
  Py_BEGIN_ALLOW_THREADS
  st = kf_event_synchronize(eo->e);
  Py_END_ALLOW_THREADS
  if (st != KF_OK) return ext_raise(eo->runtime->ctx, st);
  Py_RETURN_NONE;
}

static PyObject *Event_elapsed_ms(PyObject *o, PyObject *end) {
  EventObject *eo = (EventObject *)o;
  if (!PyObject_TypeCheck(end, Event_Type)) {
    PyErr_SetString(PyExc_TypeError, "elapsed_time: the other event must be an event");
    return NULL;
  }
  float ms = 0;
  RT_CALL(eo->runtime, kf_event_elapsed_ms(eo->e, ((EventObject *)end)->e, &ms));
  return PyFloat_FromDouble(ms);
}

/* ---- type definitions ------------------------------------------------------------------------------- */

static PyMethodDef Runtime_methods[] = {
    {"describe", Runtime_describe, METH_NOARGS, "One line: what runs the kernels and why."},
    {"device_info", Runtime_device_info, METH_NOARGS, "The device's name, compute capability and limits."},
    {"memory_info", Runtime_memory_info, METH_NOARGS, "(free, total) device memory in bytes."},
    {"stats", Runtime_stats, METH_NOARGS, "Cache and launch counters."},
    {"synchronize", Runtime_synchronize, METH_NOARGS, "Waits for all work; raises a pending IndexError."},
    {"ipc_get_handle", Runtime_ipc_get_handle, METH_O, "ipc_get_handle(ptr) -> the allocation's IPC handle (bytes)."},
    {"ipc_open_handle", Runtime_ipc_open_handle, METH_O,
     "ipc_open_handle(handle) -> the address of another process's memory, mapped into this one."},
    {"ipc_close_handle", Runtime_ipc_close_handle, METH_O, "ipc_close_handle(ptr): unmaps memory ipc_open_handle mapped."},
    {"allocated", Runtime_allocated, METH_NOARGS, "(bytes, blocks) of device memory allocated and not yet freed."},
    {"deallocations", Runtime_deallocations, METH_NOARGS,
     "The pending deallocations: {pending, pending_bytes, max_count, max_bytes, deferring}."},
    {"flush_deallocations", Runtime_flush_deallocations, METH_NOARGS,
     "Frees the pending deallocations (after the device's work), unless deferral is on."},
    {"defer_deallocations", Runtime_defer_deallocations, METH_O,
     "defer_deallocations(True) defers flushes (nested); (False) undoes one level."},
    {"set_sim_limits", Runtime_set_sim_limits, METH_VARARGS,
     "set_sim_limits(max_steps, max_seconds, steps_setting=None, seconds_setting=None): the simulator's launch "
     "limits (0: its defaults) and the settings their messages name, for the launches that start after it"},
    {"set_deallocation_limits", Runtime_set_deallocation_limits, METH_VARARGS,
     "set_deallocation_limits(count, bytes): flushed when more blocks or bytes than these are pending."},
    {"memcpy", Runtime_memcpy, METH_VARARGS, "memcpy(kind, dst, src, nbytes, stream=None): 0 HtoD, 1 DtoH, 2 DtoD."},
    {"memset", Runtime_memset, METH_VARARGS, "memset(dst, value, nbytes, stream=None) on device memory."},
    {"alloc", Runtime_alloc, METH_O, "alloc(nbytes) -> Buffer of device memory."},
    {"managed_alloc", Runtime_managed_alloc, METH_VARARGS,
     "managed_alloc(nbytes, attach_global=True) -> Buffer of managed memory (freed as device memory)."},
    {"pointer_range", Runtime_pointer_range, METH_O,
     "pointer_range(ptr) -> (base, size) of the device allocation ptr lies in."},
    {"host_alloc", Runtime_host_alloc, METH_VARARGS, "host_alloc(nbytes, mapped=False) -> Buffer of pinned memory."},
    {"host_register", Runtime_host_register, METH_VARARGS, "host_register(ptr, nbytes, mapped=False): pins memory."},
    {"host_unregister", Runtime_host_unregister, METH_O, "host_unregister(ptr)."},
    {"host_device_pointer", Runtime_host_device_pointer, METH_O, "The device address of mapped pinned memory."},
    {"stream", Runtime_stream, METH_NOARGS, "A new stream."},
    {"external_stream", Runtime_external_stream, METH_O, "A stream over someone else's CUstream handle."},
    {"event", Runtime_event, METH_NOARGS, "A new event."},
    {"make_current", Runtime_make_current, METH_NOARGS,
     "Makes the runtime's device the thread's current one (on a GPU, its context the thread's CUDA context)."},
    {"can_access_peer", Runtime_can_access_peer, METH_O, "Whether this device reads the other runtime's directly."},
    {"pointer_device", Runtime_pointer_device, METH_O,
     "The GPU whose memory an address is (asked of the driver), or -1 when that cannot be told."},
    {"memcpy_peer", Runtime_memcpy_peer, METH_VARARGS,
     "memcpy_peer(dst, src_runtime, src, nbytes, stream=None): device memory of another device into this one's."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Runtime_getset[] = {{"mode", Runtime_get_mode, NULL, "'gpu' or 'sim'", NULL},
                                       {"device", Runtime_get_device, NULL, "the device's ordinal", NULL},
                                       {"pipeline", Runtime_get_pipeline, NULL,
                                        "the pass pipeline its programs are compiled with", NULL},
                                       {"kernel_pipeline", Runtime_get_kernel_pipeline, NULL,
                                        "its first passes: those making the kernels (no launch variants)", NULL},
                                       {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot Runtime_slots[] = {{Py_tp_new, Runtime_new},
                                      {Py_tp_dealloc, Runtime_dealloc},
                                      {Py_tp_methods, Runtime_methods},
                                      {Py_tp_getset, Runtime_getset},
                                      {Py_tp_doc, "Runtime(mode='auto', cache_dir=None, backend='auto', libcuda=None, "
                                                  "grid_stride=True, sim_workers=1, sim_max_steps=0, "
                                                  "sim_detect_races=True, device=0, sim_devices=1, thread_map=True)"},
                                      {0, NULL}};
static PyType_Spec Runtime_spec = {"kfront._kfront.Runtime", sizeof(RuntimeObject), 0, Py_TPFLAGS_DEFAULT,
                                   Runtime_slots};

static PyGetSetDef Buffer_getset[] = {{"ptr", Buffer_get_ptr, NULL, "the address", NULL},
                                      {"nbytes", Buffer_get_nbytes, NULL, "the size in bytes", NULL},
                                      {"runtime", Buffer_get_runtime, NULL, "the runtime (device) it belongs to", NULL},
                                      {NULL, NULL, NULL, NULL, NULL}};
static PyType_Slot Buffer_slots[] = {{Py_tp_dealloc, Buffer_dealloc},
                                     {Py_tp_getset, Buffer_getset},
                                     {Py_tp_doc, "Device or pinned host memory, freed with the object."},
                                     {0, NULL}};
static PyType_Spec Buffer_spec = {"kfront._kfront.Buffer", sizeof(BufferObject), 0, Py_TPFLAGS_DEFAULT, Buffer_slots};

static PyMethodDef Stream_methods[] = {{"synchronize", Stream_synchronize, METH_NOARGS, "Waits for the stream."},
                                       {NULL, NULL, 0, NULL}};
static PyGetSetDef Stream_getset[] = {{"handle", Stream_get_handle, NULL, "the CUstream (0: the default)", NULL},
                                      {NULL, NULL, NULL, NULL, NULL}};
static PyType_Slot Stream_slots[] = {{Py_tp_dealloc, Stream_dealloc},
                                     {Py_tp_methods, Stream_methods},
                                     {Py_tp_getset, Stream_getset},
                                     {0, NULL}};
static PyType_Spec Stream_spec = {"kfront._kfront.Stream", sizeof(StreamObject), 0, Py_TPFLAGS_DEFAULT, Stream_slots};

static PyMethodDef Event_methods[] = {
    {"record", Event_record, METH_VARARGS, "record(stream=None)"},
    {"synchronize", Event_synchronize, METH_NOARGS, "Waits for the event."},
    {"elapsed_ms", Event_elapsed_ms, METH_O, "Milliseconds from this event to the other."},
    {NULL, NULL, 0, NULL}};
static PyType_Slot Event_slots[] = {{Py_tp_dealloc, Event_dealloc}, {Py_tp_methods, Event_methods}, {0, NULL}};
static PyType_Spec Event_spec = {"kfront._kfront.Event", sizeof(EventObject), 0, Py_TPFLAGS_DEFAULT, Event_slots};

/* ---- the module -------------------------------------------------------------------------------------- */

static PyObject *version(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  return PyUnicode_FromString(kf_version());
}

/* builtin_paths(): kf_builtin_path's paths, a tuple of str */
static PyObject *builtin_paths(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  unsigned n = 0;
  while (kf_builtin_path(n)) n++;
  PyObject *t = PyTuple_New(n);
  for (unsigned i = 0; t && i < n; i++) {
    PyObject *s = PyUnicode_FromString(kf_builtin_path(i));
    if (!s) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SetItem(t, i, s); /* steals s */
  }
  return t;
}

static PyObject *configure_cuda_paths(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  static char *names[] = {"cuda_home", "conda_prefix", "site_packages", "system_toolkit", "libnvvm", "libdevice",
                          "libnvrtc", "libnvjitlink", "verify", NULL};
  kf_cuda_paths p;
  kf_cuda_paths_init(&p);
  int verify = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|zzzzzzzzp", names, &p.cuda_home, &p.conda_prefix, &p.site_packages,
                                   &p.system_toolkit, &p.libnvvm, &p.libdevice, &p.libnvrtc, &p.libnvjitlink, &verify))
    return NULL;
  p.verify = verify;
  kf_status st = kf_configure_cuda_paths(&p);
  if (st == KF_ERROR_UNSUPPORTED) Py_RETURN_FALSE;  /* a library was already searched for: the first setting stays */
  if (st != KF_OK) return PyErr_Format(PyExc_RuntimeError, "kfront: %s", kf_status_name(st));
  Py_RETURN_TRUE;
}

/* cuda_library(name) -> dict(name, path, found_by, version, error): kf_cuda_library_find. */
static PyObject *cuda_library(PyObject *self, PyObject *arg) {
  (void)self;
  static const char *const keys[] = {"nvvm", "libdevice", "nvrtc", "nvjitlink"};
  const char *name = PyUnicode_AsUTF8AndSize(arg, NULL);
  if (!name) return NULL;
  int which = -1;
  for (int i = 0; i < 4; i++)
    if (strcmp(name, keys[i]) == 0) which = i;
  if (which < 0) return PyErr_Format(PyExc_ValueError, "cuda_library: no library '%s' (nvvm, libdevice, nvrtc, nvjitlink)", name);
  kf_cuda_library_info info;
  kf_cuda_library_find((kf_cuda_library)which, &info);
  PyObject *version = info.path && (info.version_major || info.version_minor)
                          ? Py_BuildValue("(ii)", info.version_major, info.version_minor)
                          : (Py_INCREF(Py_None), Py_None);
  PyObject *r = Py_BuildValue("{s:s,s:z,s:z,s:N,s:z}", "name", info.name, "path", info.path, "found_by", info.found_by,
                              "version", version, "error", info.error);
  return r;
}

/* nvrtc_compile(src, name, arch, ltoir=False, lineinfo=False, debug=False, include_dirs=()) -> (code, log, status):
 * kf_nvrtc_compile's PTX (str) or LTO-IR (bytes), or None; log NVRTC's diagnostics as text; status 'ok',
 * 'not-found' (no NVRTC) or 'failed' (the caller raises numba-cuda's class). */
static PyObject *nvrtc_compile(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  static char *names[] = {"src", "name", "arch", "ltoir", "lineinfo", "debug", "include_dirs", NULL};
  const char *src, *name;
  Py_ssize_t len;
  unsigned arch;
  int ltoir = 0, lineinfo = 0, debug = 0;
  PyObject *dirs = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s#sI|pppO", names, &src, &len, &name, &arch, &ltoir, &lineinfo,
                                   &debug, &dirs))
    return NULL;
  PyObject *dt = dirs ? PySequence_Tuple(dirs) : PyTuple_New(0);
  if (!dt) return NULL;
  Py_ssize_t nd = PyTuple_Size(dt);
  const char **dv = PyMem_Calloc((size_t)(nd ? nd : 1), sizeof *dv);
  for (Py_ssize_t i = 0; dv && i < nd; i++)
    if (!(dv[i] = PyUnicode_AsUTF8AndSize(PyTuple_GetItem(dt, i), NULL))) {
      PyMem_Free(dv);
      Py_DECREF(dt);
      return NULL;
    }
  if (!dv) {
    Py_DECREF(dt);
    return PyErr_NoMemory();
  }
  kf_context *ctx = kf_context_create();
  if (!ctx) {
    PyMem_Free(dv);
    Py_DECREF(dt);
    return PyErr_NoMemory();
  }
  kf_nvrtc_options o;
  kf_nvrtc_options_init(&o);
  o.arch = arch;
  o.ltoir = ltoir;
  o.lineinfo = lineinfo;
  o.debug = debug;
  o.include_dirs = dv;
  o.ninclude_dirs = (unsigned)nd;
  char *out = NULL;
  size_t n = 0;
  kf_status st;
  Py_BEGIN_ALLOW_THREADS
  st = kf_nvrtc_compile(ctx, name, src, (size_t)len, &o, &out, &n);
  Py_END_ALLOW_THREADS
  PyObject *code = !out ? (Py_INCREF(Py_None), Py_None)
                   : ltoir ? PyBytes_FromStringAndSize(out, (Py_ssize_t)n)
                           : PyUnicode_DecodeUTF8(out, (Py_ssize_t)n, "replace");
  const char *log = kf_context_diagnostics(ctx);
  PyObject *r = code ? Py_BuildValue("(Nss)", code, log ? log : "",
                                     st == KF_OK ? "ok" : st == KF_ERROR_NOT_FOUND ? "not-found" : "failed")
                     : NULL;
  kf_free(out);
  kf_context_destroy(ctx);
  PyMem_Free(dv);
  Py_DECREF(dt);
  return r;
}

/* nvrtc_supported_archs() -> (archs tuple, error text): what NVRTC compiles for (90 for sm_90); () and why without. */
static PyObject *nvrtc_supported_archs(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  kf_context *ctx = kf_context_create();
  if (!ctx) return PyErr_NoMemory();
  int archs[128];
  unsigned n = 0;
  kf_status st = kf_nvrtc_supported_archs(ctx, archs, 128, &n);
  PyObject *t = PyTuple_New(st == KF_OK ? (Py_ssize_t)n : 0);
  for (unsigned i = 0; t && st == KF_OK && i < n; i++) PyTuple_SetItem(t, (Py_ssize_t)i, PyLong_FromLong(archs[i]));
  const char *log = kf_context_diagnostics(ctx);
  PyObject *r = t ? Py_BuildValue("(Ns)", t, st == KF_OK ? "" : log ? log : "") : NULL;
  kf_context_destroy(ctx);
  return r;
}

/* system_report(mode='auto', libcuda=None, sim_devices=1, cache_dir=None) -> kf_system_report's text. */
static PyObject *system_report(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  static char *names[] = {"mode", "libcuda", "sim_devices", "cache_dir", NULL};
  const char *mode = "auto", *libcuda = NULL, *cache_dir = NULL;
  unsigned sim_devices = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|szIz", names, &mode, &libcuda, &sim_devices, &cache_dir)) return NULL;
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  if (strcmp(mode, "sim") == 0) o.mode = KF_RUNTIME_SIM;
  else if (strcmp(mode, "gpu") == 0) o.mode = KF_RUNTIME_GPU;
  else if (strcmp(mode, "auto") != 0) return PyErr_Format(PyExc_ValueError, "system_report: mode '%s'", mode);
  o.libcuda_path = libcuda;
  o.sim_devices = sim_devices;
  o.cache_dir = cache_dir;
  char *text = NULL;
  kf_status st;
  Py_BEGIN_ALLOW_THREADS
  st = kf_system_report(&o, &text);
  Py_END_ALLOW_THREADS
  if (st != KF_OK) return PyErr_NoMemory();
  PyObject *r = PyUnicode_FromString(text);
  kf_free(text);
  return r;
}

/* driver_version(libcuda=None) -> cuDriverGetVersion's number; RuntimeError with the reason where there is none. */
static PyObject *driver_version(PyObject *self, PyObject *args) {
  (void)self;
  const char *libcuda = NULL;
  if (!PyArg_ParseTuple(args, "|z", &libcuda)) return NULL;
  kf_context *ctx = kf_context_create();
  if (!ctx) return PyErr_NoMemory();
  int version = 0;
  kf_status st = kf_driver_version(ctx, libcuda, &version);
  PyObject *r = st == KF_OK ? PyLong_FromLong(version)
                            : PyErr_Format(PyExc_RuntimeError, "%s", kf_context_diagnostics(ctx));
  kf_context_destroy(ctx);
  return r;
}

static PyObject *default_cache_dir(PyObject *self, PyObject *args) {
  (void)self;
  const char *a = NULL, *b = NULL, *c = NULL;
  if (!PyArg_ParseTuple(args, "zzz", &a, &b, &c)) return NULL;
  char *out = NULL;
  if (kf_default_cache_dir(a, b, c, &out) != KF_OK) Py_RETURN_NONE;
  PyObject *r = PyUnicode_DecodeFSDefault(out);
  kf_free(out);
  return r;
}

/* The options a device query reads: mode, libcuda, sim_devices (-1 with an exception when bad). */
static int query_options(PyObject *args, PyObject *kw, int with_ordinal, int *ordinal, kf_runtime_options *o) {
  static char *names1[] = {"mode", "libcuda", "sim_devices", NULL};
  static char *names2[] = {"ordinal", "mode", "libcuda", "sim_devices", NULL};
  const char *mode = "auto", *libcuda = NULL;
  unsigned sim_devices = 1;
  int ok = with_ordinal ? PyArg_ParseTupleAndKeywords(args, kw, "i|szI", names2, ordinal, &mode, &libcuda, &sim_devices)
                        : PyArg_ParseTupleAndKeywords(args, kw, "|szI", names1, &mode, &libcuda, &sim_devices);
  if (!ok) return -1;
  kf_runtime_options_init(o);
  int m = mode_of(mode, with_ordinal ? "device_info" : "device_count");
  if (m < 0) return -1;
  o->mode = (kf_runtime_mode)m;
  o->libcuda_path = libcuda;
  o->sim_devices = sim_devices;
  return 0;
}

/* A query's context: its diagnostics become the exception. */
static PyObject *query_failed(kf_context *ctx, kf_status st) {
  ext_raise(ctx, st);
  kf_context_destroy(ctx);
  return NULL;
}

/* device_attribute(ordinal, name, mode=..., libcuda=..., sim_devices=...): the driver's attribute by name (an int),
 * or None where there is no such attribute or the simulator does not model it (Device raises AttributeError). */
static PyObject *device_attribute(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  static char *names[] = {"ordinal", "name", "mode", "libcuda", "sim_devices", NULL};
  const char *name = NULL, *mode = "auto", *libcuda = NULL;
  int ordinal = 0;
  unsigned sim_devices = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "is|szI", names, &ordinal, &name, &mode, &libcuda, &sim_devices))
    return NULL;
  kf_runtime_options o;
  kf_runtime_options_init(&o);
  int m = mode_of(mode, "device_attribute");
  if (m < 0) return NULL;
  o.mode = (kf_runtime_mode)m;
  o.libcuda_path = libcuda;
  o.sim_devices = sim_devices;
  kf_context *ctx = kf_context_create();
  if (!ctx) return PyErr_NoMemory();
  int value = 0;
  kf_status st = kf_device_get_attribute(ctx, &o, ordinal, name, &value);
  if (st == KF_ERROR_NOT_FOUND) {
    kf_context_destroy(ctx);
    Py_RETURN_NONE;
  }
  if (st != KF_OK) return query_failed(ctx, st);
  kf_context_destroy(ctx);
  return PyLong_FromLong(value);
}

static PyObject *device_count(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  kf_runtime_options o;
  if (query_options(args, kw, 0, NULL, &o) < 0) return NULL;
  kf_context *ctx = kf_context_create();
  if (!ctx) return PyErr_NoMemory();
  int n = 0;
  kf_status st = kf_device_count(ctx, &o, &n);
  if (st != KF_OK) return query_failed(ctx, st);
  kf_context_destroy(ctx);
  return PyLong_FromLong(n);
}

static PyObject *device_info(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  kf_runtime_options o;
  int ordinal = 0;
  if (query_options(args, kw, 1, &ordinal, &o) < 0) return NULL;
  kf_context *ctx = kf_context_create();
  if (!ctx) return PyErr_NoMemory();
  kf_device_info in;
  kf_status st = kf_device_get_info(ctx, &o, ordinal, &in);
  if (st != KF_OK) return query_failed(ctx, st);
  kf_context_destroy(ctx);
  return info_dict(&in);
}

static PyObject *current_device(PyObject *self, PyObject *unused) {
  (void)self, (void)unused;
  return PyLong_FromLong(kf_current_device());
}

static PyObject *set_current_device(PyObject *self, PyObject *arg) {
  (void)self;
  long d = PyLong_AsLong(arg);
  if (d == -1 && PyErr_Occurred()) return NULL;
  if (d < 0 || d > 1 << 20 || kf_set_current_device((int)d) != KF_OK)
    return PyErr_Format(PyExc_ValueError, "set_current_device: %ld is not a device number", d);
  Py_RETURN_NONE;
}

/* xoroshiro128p_init(address, n, seed, subsequence_start): n states (2n uint64 of host memory at address, the
 * caller's contiguous array) as numba-cuda's init_xoroshiro128p_states makes them. Seeds are taken modulo 2**64,
 * as numba-cuda's uint64(seed). */
static PyObject *xoroshiro128p_init(PyObject *self, PyObject *args) {
  (void)self;
  unsigned long long addr, n;
  PyObject *seed_o, *sub_o;
  if (!PyArg_ParseTuple(args, "KKOO", &addr, &n, &seed_o, &sub_o)) return NULL;
  unsigned long long seed = PyLong_AsUnsignedLongLongMask(seed_o);
  if (seed == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
  unsigned long long sub = PyLong_AsUnsignedLongLongMask(sub_o);
  if (sub == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
  if (n && !addr) return PyErr_Format(PyExc_ValueError, "xoroshiro128p_init: no memory for %llu states", n);
  Py_BEGIN_ALLOW_THREADS
  kf_xoroshiro128p_init_states((uint64_t *)(uintptr_t)addr, (size_t)n, seed, sub);
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

/* parse_signature(text): kf_signature_parse's tree as nested tuples; a bad signature raises as its error's kind
 * (the exception's kind, message and col say what and where). */
static PyObject *parse_signature(PyObject *self, PyObject *arg) {
  (void)self;
  Py_ssize_t len;
  const char *text = PyUnicode_AsUTF8AndSize(arg, &len);
  if (!text) return NULL;
  kf_context *ctx = kf_context_create();
  if (!ctx) return PyErr_NoMemory();
  kf_value *tree = NULL;
  kf_status st = kf_signature_parse(ctx, text, (size_t)len, &tree);
  PyObject *r = st == KF_OK ? ext_tree_to_object(tree) : ext_raise(ctx, st);
  kf_value_free(tree);
  kf_context_destroy(ctx);
  return r;
}

static PyMethodDef module_functions[] = {
    {"parse_signature", parse_signature, METH_O,
     "parse_signature(text) -> ('signature', return type or None, (argument types...)), each type a tuple "
     "('scalar', 'float32'), ('array', dtype, ndim, layout, readonly), ... (kfront.h: kf_signature_parse)."},
    {"xoroshiro128p_init", xoroshiro128p_init, METH_VARARGS,
     "xoroshiro128p_init(address, n, seed, subsequence_start): numba.cuda.random's states into host memory."},
    {"device_count", (PyCFunction)(void (*)(void))device_count, METH_VARARGS | METH_KEYWORDS,
     "device_count(mode='auto', libcuda=None, sim_devices=1): how many devices runtimes with these options use."},
    {"device_attribute", (PyCFunction)(void (*)(void))device_attribute, METH_VARARGS | METH_KEYWORDS,
     "device_attribute(ordinal, name, mode='auto', libcuda=None, sim_devices=1): the driver's attribute by name "
     "(CLOCK_RATE, ...), None where there is none or the simulator does not model it."},
    {"device_info", (PyCFunction)(void (*)(void))device_info, METH_VARARGS | METH_KEYWORDS,
     "device_info(ordinal, mode='auto', libcuda=None, sim_devices=1): a device's properties (no context made)."},
    {"current_device", current_device, METH_NOARGS, "The calling thread's current device (0 until set)."},
    {"set_current_device", set_current_device, METH_O, "Sets the calling thread's current device (nothing else)."},
    {"set_exceptions", set_exceptions, METH_O, "set_exceptions({kind: class}): the classes errors are raised as."},
    {"set_interface_adapter", ext_set_interface_adapter, METH_O,
     "set_interface_adapter(adapter): adapter(obj) gives a __cuda_array_interface__ dict for an object that has no "
     "array interface (cuda.core's Buffer, StridedMemoryView), or None."},
    {"register_exception", register_exception, METH_VARARGS,
     "register_exception(name, cls): a kernel's raise of the class named `name` is raised as cls on the host."},
    {"version", version, METH_NOARGS, "kfront's version."},
    {"builtin_paths", builtin_paths, METH_NOARGS, "The dotted paths of the kernel language's builtins (kf_builtin_path)."},
    {"configure_cuda_paths", (PyCFunction)(void (*)(void))configure_cuda_paths, METH_VARARGS | METH_KEYWORDS,
     "configure_cuda_paths(cuda_home=, conda_prefix=, site_packages=, system_toolkit=, libnvvm=, libdevice=, libnvrtc=, libnvjitlink=, "
     "verify=False) -> False if a CUDA library was already searched for (kf_configure_cuda_paths)."},
    {"cuda_library", cuda_library, METH_O,
     "cuda_library('nvvm'|'libdevice'|'nvrtc'|'nvjitlink') -> dict(name, path, found_by, version, error)."},
    {"nvrtc_compile", (PyCFunction)(void (*)(void))nvrtc_compile, METH_VARARGS | METH_KEYWORDS,
     "nvrtc_compile(src, name, arch, ltoir=False, lineinfo=False, debug=False, include_dirs=()) -> (code, log, status)."},
    {"nvrtc_supported_archs", nvrtc_supported_archs, METH_NOARGS,
     "nvrtc_supported_archs() -> (archs, error): the sm_XY NVRTC compiles for (90 for sm_90)."},
    {"system_report", (PyCFunction)(void (*)(void))system_report, METH_VARARGS | METH_KEYWORDS,
     "system_report(mode='auto', libcuda=None, sim_devices=1, cache_dir=None) -> what kfront finds (kfront -s)."},
    {"driver_version", driver_version, METH_VARARGS,
     "driver_version(libcuda=None) -> the CUDA driver's version (13000 for 13.0); RuntimeError where none."},
    {"default_cache_dir", default_cache_dir, METH_VARARGS,
     "default_cache_dir(KFRONT_CACHE_DIR, XDG_CACHE_HOME, HOME) -> the disk cache's folder, or None."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "kfront._kfront",
                                        "kfront's C extension: the runtime, programs, launches (see ext.h).", -1,
                                        NULL, NULL, NULL, NULL, NULL};

int ext_add_type(PyObject *m, PyType_Spec *spec, PyTypeObject **out) {
  *out = (PyTypeObject *)PyType_FromSpec(spec);
  if (!*out) return -1;
  const char *dot = strrchr(spec->name, '.');
  Py_INCREF(*out);
  if (PyModule_AddObject(m, dot + 1, (PyObject *)*out) < 0) {
    Py_DECREF(*out);
    return -1;
  }
  return 0;
}

/* ---- Ctrl-C during long calls ------------------------------------------------------------------------ */

static unsigned long main_thread_ident;          /* threading.main_thread().ident */
static volatile int main_thread_interrupt;       /* the main thread's kf_set_interrupt_flag flag */
static void (*python_sigint)(int);               /* the handler on_sigint calls on (Python's) */

static void on_sigint(int sig) {
  main_thread_interrupt = 1;
  if (python_sigint) python_sigint(sig);
}

int ext_interruptible_begin(ExtInterruptible *st, kf_runtime *rt) {
  st->active = st->installed = 0;
  if (PyThread_get_thread_ident() != main_thread_ident || kf_runtime_get_mode(rt) != KF_RUNTIME_SIM) return 0;
  st->active = 1;
  main_thread_interrupt = 0;
  kf_set_interrupt_flag(&main_thread_interrupt);
  if (sigaction(SIGINT, NULL, &st->previous) == 0) {
    void (*h)(int) = (st->previous.sa_flags & SA_SIGINFO) ? NULL : st->previous.sa_handler;
    if (h != on_sigint && h != SIG_IGN && h != SIG_DFL && h) { /* not nested, ignored, or another's */
      python_sigint = h;
      struct sigaction ours = st->previous;
      ours.sa_handler = on_sigint;
      st->installed = sigaction(SIGINT, &ours, NULL) == 0;
    }
  }
  /* a signal that came before ours was installed is pending in Python: KeyboardInterrupt now, not after the call */
  return PyErr_CheckSignals() < 0 ? -1 : 0;
}

int ext_interruptible_end(ExtInterruptible *st) {
  if (!st->active) return 0;
  if (st->installed) sigaction(SIGINT, &st->previous, NULL);
  kf_set_interrupt_flag(NULL);
  return main_thread_interrupt && PyErr_CheckSignals() < 0 ? -1 : 0;
}

static int read_main_thread_ident(void) {
  PyObject *threading = PyImport_ImportModule("threading");
  PyObject *main = threading ? PyObject_CallMethod(threading, "main_thread", NULL) : NULL;
  PyObject *ident = main ? PyObject_GetAttrString(main, "ident") : NULL;
  unsigned long v = ident ? PyLong_AsUnsignedLong(ident) : 0;
  Py_XDECREF(ident);
  Py_XDECREF(main);
  Py_XDECREF(threading);
  if (PyErr_Occurred()) return -1;
  main_thread_ident = v;
  return 0;
}

PyMODINIT_FUNC PyInit__kfront(void) {
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  if (read_main_thread_ident() < 0) {
    Py_DECREF(m);
    return NULL;
  }
  if (PyModule_AddFunctions(m, module_functions) < 0 || PyModule_AddFunctions(m, ext_program_functions) < 0 ||
      ext_add_type(m, &Runtime_spec, &Runtime_Type) < 0 || ext_add_type(m, &Buffer_spec, &Buffer_Type) < 0 ||
      ext_add_type(m, &Stream_spec, &Stream_Type) < 0 || ext_add_type(m, &Event_spec, &Event_Type) < 0 ||
      ext_darray_init_type(m) < 0 || ext_program_init_types(m) < 0 || ext_hostbytes_init_type(m) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
