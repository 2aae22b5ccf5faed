/* program.c — programs and launches for kfront.cuda:
 *   Program(runtime, sources, bindings, functions, bounds_check=True, pipeline=None, links=(), include_dirs=(),
 *     module_callback=None, lto=False): a kf_program over one function's source fragment (sources[0]) and the device functions
 *     it calls (sources[1:]), with the globals bound by value and the decorators' facts (kf_program_create_sources);
 *     module_callback(event, library, module, device) is told of each module set up ("setup", before its first
 *     launch) and torn down ("teardown") as kf_module_callback is; lto: kf_compile_options.lto (the links optimised
 *     with the module by nvJitLink);
 *   Function (Program.function(name)): configure(grid, block, stream, shared) -> Launcher; specialize(*args);
 *     set_shared_memory_carveout(percent); set_specialized(on); info(); and the host side of @cuda.reduce / @vectorize / @guvectorize (reduce, ufunc_*, gufunc_*);
 *   Launcher: kernel[grid, block, stream, shared] — calling it converts the arguments (convert.c) and calls
 *     kf_function_launch, the prepared path (typed dispatch by fingerprint), on its function's device when that is
 *     the thread's current device, else through the launcher of the current device (made once by the redirect
 *     callable kfront.cuda gives, kept in a chain); numba-cuda's griddim, blockdim, stream, sharedmem and
 *     pre_launch_callbacks, and pickling (kfront.cuda.dispatcher's launcher_claimed and reduce_launcher);
 *   Kernel: one specialisation (signature, parameters, numba-cuda's kernel attributes: regs_per_thread,
 *     shared_mem_per_block, ...);
 *   compile(...): the same inputs to kir, LLVM IR or PTX text, or LTO-IR bytes (inspect_*, cuda.compile), or the PTX
 *     of the module link-time optimised with links (emit='lto_ptx': kf_module_emit_lto_ptx, inspect_lto_ptx), the
 *     function compiled renamed to `symbol` where given (numba-cuda's abi_info={"abi_name": ...});
 *   libdevice_functions(): the libdevice functions of cuda.libdevice and their signatures (numba.cuda.libdevicefuncs).
 * Inputs: sources are (filename, text, first_line) tuples; bindings (name, tagged value) pairs (convert.c);
 * functions dicts {name, source, kind, signatures, layout, fastmath, debug, lineinfo, opt, inline, cache}. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"

static PyTypeObject *Program_Type, *Function_Type, *Launcher_Type, *Kernel_Type;

typedef struct ProgramObject {
  PyObject_HEAD
  RuntimeObject *runtime;
  kf_program *p;
  PyObject *module_callback;  /* module_callback(event, library, module, device), or NULL (kept until p is gone) */
} ProgramObject;

typedef struct FunctionObject {
  PyObject_HEAD
  ProgramObject *program;
  kf_function *f;
  int nparams;         /* the Python function's parameters (set_parameters), or -1: not checked here */
  PyObject *defaults;  /* a tuple: the default values of its last parameters */
} FunctionObject;

typedef struct LauncherObject LauncherObject;
struct LauncherObject {
  PyObject_HEAD
  FunctionObject *function;
  unsigned grid[3], block[3];
  size_t shared;
  PyObject *stream;       /* the Python stream object (kept alive), or NULL */
  kf_stream *s;
  int device;             /* the device of the function's runtime */
  PyObject *redirect;     /* called (no arguments) when the thread's current device is another one: returns the
                           * launcher of this configuration for the current device; NULL: such a call fails */
  LauncherObject *other;  /* launchers of this configuration on other devices, made by redirect (a chain; strong) */
  PyObject *callbacks;    /* numba-cuda's pre_launch_callbacks: a list made when first asked for, or NULL */
};

typedef struct KernelObject {
  PyObject_HEAD
  FunctionObject *function;
  kf_kernel *k;
} KernelObject;

static kf_context *ctx_of(FunctionObject *f) { return f->program->runtime->ctx; }
static PyObject *new_kernel(PyObject *function, kf_kernel *k);

/* ---- inputs -------------------------------------------------------------------------------------------- */

static const char *utf8(PyObject *o, Py_ssize_t *len, const char *what) {
  if (!o || !PyUnicode_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s must be a str", what);
    return NULL;
  }
  return PyUnicode_AsUTF8AndSize(o, len);
}

static int dict_int(PyObject *d, const char *key, int dflt, int *out) {
  PyObject *v = PyDict_GetItemString(d, key);
  if (!v || v == Py_None) {
    *out = dflt;
    return 0;
  }
  long x = PyLong_AsLong(v);
  if (x == -1 && PyErr_Occurred()) return -1;
  *out = (int)x;
  return 0;
}

static const struct {
  const char *name;
  kf_function_kind kind;
} kind_names[] = {{"kernel", KF_FUNCTION_KERNEL},
                  {"device", KF_FUNCTION_DEVICE},
                  {"reduce", KF_FUNCTION_REDUCE},
                  {"vectorize", KF_FUNCTION_VECTORIZE},
                  {"guvectorize", KF_FUNCTION_GUVECTORIZE}};

static int read_spec(PyObject *d, kf_function_spec *sp, ExtPool *pool) {
  memset(sp, 0, sizeof *sp);
  if (!PyDict_Check(d)) {
    PyErr_SetString(PyExc_TypeError, "a function spec must be a dict");
    return -1;
  }
  if (!(sp->name = utf8(PyDict_GetItemString(d, "name"), NULL, "a function spec's name"))) return -1;
  int source;
  if (dict_int(d, "source", 0, &source) < 0) return -1;
  sp->source = (unsigned)source;
  const char *kind = utf8(PyDict_GetItemString(d, "kind"), NULL, "a function spec's kind");
  if (!kind) return -1;
  unsigned k = 0;
  while (k < sizeof kind_names / sizeof *kind_names && strcmp(kind_names[k].name, kind) != 0) k++;
  if (k == sizeof kind_names / sizeof *kind_names) {
    PyErr_Format(PyExc_ValueError, "unknown function kind '%s'", kind);
    return -1;
  }
  sp->kind = kind_names[k].kind;
  PyObject *sigs = PyDict_GetItemString(d, "signatures");
  if (sigs && sigs != Py_None) {
    PyObject *t = PySequence_Tuple(sigs);
    if (!t) return -1;
    Py_ssize_t n = PyTuple_Size(t);
    const char **v = ext_pool_alloc(pool, sizeof *v * (size_t)n);
    int r = v ? 0 : -1;
    for (Py_ssize_t i = 0; r == 0 && i < n; i++)
      if (!(v[i] = utf8(PyTuple_GetItem(t, i), NULL, "a signature"))) r = -1;
    /* the strings live in the tuple's items, which the spec's list also holds */
    Py_DECREF(t);
    if (r < 0) return -1;
    sp->signatures = v;
    sp->nsignatures = (unsigned)n;
  }
  PyObject *layout = PyDict_GetItemString(d, "layout");
  if (layout && layout != Py_None && !(sp->layout = utf8(layout, NULL, "a layout"))) return -1;
  if (dict_int(d, "fastmath", 0, &sp->fastmath) < 0 || dict_int(d, "debug", 0, &sp->debug) < 0 ||
      dict_int(d, "lineinfo", 0, &sp->lineinfo) < 0 || dict_int(d, "opt", -1, &sp->opt) < 0 ||
      dict_int(d, "inline", 0, &sp->inline_mode) < 0 || dict_int(d, "forceinline", 0, &sp->forceinline) < 0 ||
      dict_int(d, "cache", 0, &sp->cache) < 0)
    return -1;
  /* launch_bounds: up to three non-negative ints (the dispatcher has checked them as numba-cuda does) */
  PyObject *bounds = PyDict_GetItemString(d, "launch_bounds");
  if (bounds && bounds != Py_None) {
    PyObject *t = PySequence_Tuple(bounds);
    if (!t) return -1;
    Py_ssize_t n = PyTuple_Size(t);
    int r = n <= 3 ? 0 : -1;
    if (r < 0) PyErr_SetString(PyExc_ValueError, "a function spec's launch_bounds has more than 3 values");
    for (Py_ssize_t i = 0; r == 0 && i < n; i++) {
      long long v = PyLong_AsLongLong(PyTuple_GetItem(t, i));
      if (v == -1 && PyErr_Occurred()) r = -1;
      else if (v < 0 || v > 0x7fffffff) {
        PyErr_Format(PyExc_ValueError, "a function spec's launch bound %lld is out of range", v);
        r = -1;
      } else
        sp->launch_bounds[i] = (unsigned)v;
    }
    Py_DECREF(t);
    if (r < 0) return -1;
  }
  return 0;
}

typedef struct Inputs {
  ExtPool pool;
  kf_source *sources;
  unsigned nsources;
  kf_compile_options opts;
  PyObject *keep;         /* the tuples whose strings the inputs borrow */
  PyObject *keep_links;   /* the links' and include folders' tuples, likewise */
} Inputs;

static void inputs_free(Inputs *in) {
  ext_pool_free(&in->pool);
  Py_XDECREF(in->keep);
  Py_XDECREF(in->keep_links);
}

/* links: (extension, name, bytes) tuples (kfront.cuda.linking.link_input's), extension one of ".cu" ".ptx" ".cubin"
 * ".fatbin" ".ltoir" ".o" ".a"; include_dirs: folders (str); NULL: none. Into in->opts' links and include_dirs. */
static int links_read(Inputs *in, PyObject *links, PyObject *include_dirs) {
  PyObject *l = links ? PySequence_Tuple(links) : PyTuple_New(0);
  PyObject *d = !l ? NULL : include_dirs ? PySequence_Tuple(include_dirs) : PyTuple_New(0);
  in->keep_links = d ? PyTuple_Pack(2, l, d) : NULL;
  Py_XDECREF(l);
  Py_XDECREF(d);
  if (!in->keep_links) return -1;
  Py_ssize_t nl = PyTuple_Size(l), nd = PyTuple_Size(d);
  kf_link_input *lv = ext_pool_alloc(&in->pool, sizeof *lv * (size_t)(nl ? nl : 1));
  const char **dv = ext_pool_alloc(&in->pool, sizeof *dv * (size_t)(nd ? nd : 1));
  if (!lv || !dv) return -1;
  for (Py_ssize_t i = 0; i < nl; i++) {
    PyObject *t = PyTuple_GetItem(l, i);
    if (!PyTuple_Check(t) || PyTuple_Size(t) != 3 || !PyBytes_Check(PyTuple_GetItem(t, 2))) {
      PyErr_SetString(PyExc_TypeError, "a link input must be an (extension, name, bytes) tuple");
      return -1;
    }
    const char *ext = utf8(PyTuple_GetItem(t, 0), NULL, "a link input's extension");
    if (!ext) return -1;
    kf_link_kind kind;
    if (kf_link_kind_of(ext, &kind) != KF_OK) {
      PyErr_Format(PyExc_ValueError, "Don't know how to link file with extension %s", ext);
      return -1;
    }
    PyObject *data = PyTuple_GetItem(t, 2);
    lv[i] = (kf_link_input){kind, utf8(PyTuple_GetItem(t, 1), NULL, "a link input's name"),
                            PyBytes_AsString(data), (size_t)PyBytes_Size(data)};
    if (!lv[i].name) return -1;
  }
  for (Py_ssize_t i = 0; i < nd; i++)
    if (!(dv[i] = utf8(PyTuple_GetItem(d, i), NULL, "an include folder"))) return -1;
  in->opts.links = lv;
  in->opts.nlinks = (unsigned)nl;
  in->opts.include_dirs = dv;
  in->opts.ninclude_dirs = (unsigned)nd;
  return 0;
}

static int inputs_read(Inputs *in, PyObject *sources, PyObject *bindings, PyObject *functions, int bounds_check,
                       const char *pipeline) {
  memset(in, 0, sizeof *in);
  kf_compile_options_init(&in->opts);
  in->opts.bounds_check = bounds_check;
  in->opts.pipeline = pipeline;
  PyObject *s = PySequence_Tuple(sources), *b = s ? PySequence_Tuple(bindings) : NULL,
           *f = b ? PySequence_Tuple(functions) : NULL;
  in->keep = f ? PyTuple_Pack(3, s, b, f) : NULL;
  Py_XDECREF(s);
  Py_XDECREF(b);
  Py_XDECREF(f);
  if (!in->keep) return -1;
  Py_ssize_t ns = PyTuple_Size(s), nb = PyTuple_Size(b), nf = PyTuple_Size(f);
  if (ns < 1) {
    PyErr_SetString(PyExc_ValueError, "a program needs at least one source");
    return -1;
  }
  in->sources = ext_pool_alloc(&in->pool, sizeof *in->sources * (size_t)ns);
  kf_binding *bv = ext_pool_alloc(&in->pool, sizeof *bv * (size_t)(nb ? nb : 1));
  kf_function_spec *fv = ext_pool_alloc(&in->pool, sizeof *fv * (size_t)(nf ? nf : 1));
  if (!in->sources || !bv || !fv) return -1;
  for (Py_ssize_t i = 0; i < ns; i++) {
    PyObject *t = PyTuple_GetItem(s, i);
    if (!PyTuple_Check(t) || PyTuple_Size(t) != 3) {
      PyErr_SetString(PyExc_TypeError, "a source must be a (filename, text, first_line) tuple");
      return -1;
    }
    Py_ssize_t len;
    kf_source *src = &in->sources[i];
    if (!(src->filename = utf8(PyTuple_GetItem(t, 0), NULL, "a source's filename")) ||
        !(src->text = utf8(PyTuple_GetItem(t, 1), &len, "a source's text")))
      return -1;
    src->len = (size_t)len;
    long line = PyLong_AsLong(PyTuple_GetItem(t, 2));
    if (line < 0) return PyErr_Occurred() ? -1 : (PyErr_SetString(PyExc_ValueError, "a negative first line"), -1);
    src->first_line = (unsigned)line;
  }
  for (Py_ssize_t i = 0; i < nb; i++) {
    PyObject *t = PyTuple_GetItem(b, i);
    if (!PyTuple_Check(t) || PyTuple_Size(t) != 2) {
      PyErr_SetString(PyExc_TypeError, "a binding must be a (name, value) tuple");
      return -1;
    }
    if (!(bv[i].name = utf8(PyTuple_GetItem(t, 0), NULL, "a binding's name")) ||
        ext_value_from_object(PyTuple_GetItem(t, 1), &bv[i].value, &in->pool, 0) < 0)
      return -1;
  }
  for (Py_ssize_t i = 0; i < nf; i++)
    if (read_spec(PyTuple_GetItem(f, i), &fv[i], &in->pool) < 0) return -1;
  in->nsources = (unsigned)ns;
  in->opts.bindings = bv;
  in->opts.nbindings = (unsigned)nb;
  in->opts.functions = fv;
  in->opts.nfunctions = (unsigned)nf;
  return 0;
}

/* ---- Program ------------------------------------------------------------------------------------------ */

/* A program's kf_module_callback: calls the Python module_callback (user) as callback(event, library, module,
 * device), event "setup" or "teardown", the handles ints (library None where there is none). An exception of a
 * setup fails it (nonzero): left set on the launching thread, where ext_raise gives it for KF_ERROR_CALLBACK; one of
 * a teardown, or of a thread Python does not know, is unraisable (printed). */
static int call_module_callback(void *user, kf_module_event event, const kf_module_info *m) {
  int known_thread = PyGILState_GetThisThreadState() != NULL;
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject *type = NULL, *value = NULL, *tb = NULL;
  if (event == KF_MODULE_TEARDOWN) PyErr_Fetch(&type, &value, &tb);  /* a dealloc's exception in flight stays */
  PyObject *library = m->library ? PyLong_FromVoidPtr(m->library) : Py_NewRef(Py_None);
  PyObject *module = library ? PyLong_FromVoidPtr(m->module) : NULL;
  PyObject *r = module ? PyObject_CallFunction((PyObject *)user, "sOOi", event == KF_MODULE_SETUP ? "setup" : "teardown",
                                               library, module, m->device)
                       : NULL;
  Py_XDECREF(library);
  Py_XDECREF(module);
  int rc = r ? 0 : 1;
  Py_XDECREF(r);
  if (rc && (event == KF_MODULE_TEARDOWN || !known_thread)) PyErr_WriteUnraisable((PyObject *)user);
  if (event == KF_MODULE_TEARDOWN) PyErr_Restore(type, value, tb);
  PyGILState_Release(gil);
  return rc;
}

static PyObject *Program_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  static char *names[] = {"runtime", "sources", "bindings", "functions", "bounds_check", "pipeline", "links",
                          "include_dirs", "module_callback", "lto", NULL};
  PyObject *rt, *sources, *bindings, *functions, *links = NULL, *include_dirs = NULL, *module_callback = NULL;
  int bounds_check = 1, lto = 0;
  const char *pipeline = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O!OOO|pzOOOp", names, Runtime_Type, &rt, &sources, &bindings,
                                   &functions, &bounds_check, &pipeline, &links, &include_dirs, &module_callback,
                                   &lto))
    return NULL;
  if (module_callback == Py_None) module_callback = NULL;
  if (module_callback && !PyCallable_Check(module_callback)) {
    PyErr_SetString(PyExc_TypeError, "a program's module_callback must be callable");
    return NULL;
  }
  Inputs in;
  if (inputs_read(&in, sources, bindings, functions, bounds_check, pipeline) < 0 ||
      links_read(&in, links, include_dirs) < 0) {
    inputs_free(&in);
    return NULL;
  }
  in.opts.lto = lto;
  if (module_callback) {
    in.opts.module_callback = call_module_callback;
    in.opts.module_callback_data = module_callback;
  }
  RuntimeObject *r = (RuntimeObject *)rt;
  kf_program *p = NULL;
  kf_status st;
  Py_BEGIN_ALLOW_THREADS  /* (in holds what the compile reads; the overload resolver takes the GIL again) */
  st = kf_program_create_sources(r->rt, in.sources, in.nsources, &in.opts, &p);
  Py_END_ALLOW_THREADS
  inputs_free(&in);
  if (st != KF_OK) return ext_raise(r->ctx, st);
  ProgramObject *self = (ProgramObject *)PyType_GenericNew(type, NULL, NULL);
  if (!self) {
    kf_program_destroy(p);
    return NULL;
  }
  self->runtime = (RuntimeObject *)Py_NewRef(rt);
  self->p = p;
  self->module_callback = module_callback ? Py_NewRef(module_callback) : NULL;
  return (PyObject *)self;
}

static void Program_dealloc(PyObject *o) {
  ProgramObject *self = (ProgramObject *)o;
  PyTypeObject *tp = Py_TYPE(o);
  if (self->p) kf_program_destroy(self->p);  /* (its modules' teardowns call module_callback) */
  Py_XDECREF(self->module_callback);
  Py_XDECREF(self->runtime);
  ((freefunc)PyType_GetSlot(tp, Py_tp_free))(o);
  Py_DECREF(tp);
}

static PyObject *Program_function(PyObject *o, PyObject *arg) {
  ProgramObject *self = (ProgramObject *)o;
  const char *name = utf8(arg, NULL, "a function name");
  if (!name) return NULL;
  kf_function *f;
  kf_status st = kf_program_get_function(self->p, name, &f);
  if (st != KF_OK) return ext_raise(self->runtime->ctx, st);
  FunctionObject *fo = PyObject_New(FunctionObject, Function_Type);
  if (!fo) return NULL;
  fo->program = (ProgramObject *)Py_NewRef(o);
  fo->f = f;
  fo->nparams = -1;
  fo->defaults = NULL;
  return (PyObject *)fo;
}

/* ---- Function ----------------------------------------------------------------------------------------- */

static void Function_dealloc(PyObject *o) {
  PyTypeObject *tp = Py_TYPE(o);
  Py_XDECREF(((FunctionObject *)o)->program);
  Py_XDECREF(((FunctionObject *)o)->defaults);
  PyObject_Free(o);
  Py_DECREF(tp);
}

/* A launch dimension: an int, or a tuple/list of 1 to 3 ints (missing ones 1). */
static int read_dim(PyObject *o, unsigned out[3], const char *what) {
  out[0] = out[1] = out[2] = 1;
  PyObject *t = PyLong_Check(o) ? PyTuple_Pack(1, o) : PySequence_Check(o) ? PySequence_Tuple(o) : NULL;
  if (!t) {
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_TypeError, "%s must be an int or a tuple of 1 to 3 ints, not %R", what, o);
    return -1;
  }
  Py_ssize_t n = PyTuple_Size(t);
  int r = 0;
  if (n < 1 || n > 3) {
    PyErr_Format(PyExc_ValueError, "%s must have 1 to 3 dimensions, not %zd", what, n);
    r = -1;
  }
  for (Py_ssize_t i = 0; r == 0 && i < n; i++) {
    PyObject *v = PyTuple_GetItem(t, i);
    long long x = PyLong_Check(v) ? PyLong_AsLongLong(v) : -2;
    if (x == -2 && !PyLong_Check(v)) {
      PyErr_Format(PyExc_TypeError, "%s must hold ints, not %R", what, v);
      r = -1;
    } else if (x == -1 && PyErr_Occurred()) {
      r = -1;
    } else if (x < 0 || x > 0xffffffffLL) {
      PyErr_Format(PyExc_ValueError, "%s: %lld is not a valid launch dimension", what, x);
      r = -1;
    } else {
      out[i] = (unsigned)x;
    }
  }
  Py_DECREF(t);
  return r;
}

static PyObject *Function_configure(PyObject *o, PyObject *args) {
  PyObject *grid, *block, *stream = Py_None, *redirect = Py_None;
  Py_ssize_t shared = 0;
  if (!PyArg_ParseTuple(args, "OO|OnO", &grid, &block, &stream, &shared, &redirect)) return NULL;
  if (shared < 0) return PyErr_Format(PyExc_ValueError, "negative dynamic shared memory size %zd", shared);
  if (redirect != Py_None && !PyCallable_Check(redirect))
    return PyErr_Format(PyExc_TypeError, "configure: redirect must be callable or None");
  LauncherObject *l = PyObject_New(LauncherObject, Launcher_Type);
  if (!l) return NULL;
  l->function = (FunctionObject *)Py_NewRef(o);
  l->stream = NULL;
  l->shared = (size_t)shared;
  l->device = kf_runtime_device(((FunctionObject *)o)->program->runtime->rt);
  l->redirect = redirect == Py_None ? NULL : Py_NewRef(redirect);
  l->other = NULL;
  l->callbacks = NULL;
  int ok;
  l->s = ext_stream_arg(stream, &ok);
  if (!ok || read_dim(grid, l->grid, "griddim") < 0 || read_dim(block, l->block, "blockdim") < 0) {
    Py_DECREF(l);
    return NULL;
  }
  if (stream != Py_None) l->stream = Py_NewRef(stream);
  return (PyObject *)l;
}

enum { STACK_ARGS = 32 };

/* Waits, as the CUDA array interface asks, for the stream a producer named (its handle), unless the work
 * goes on that very stream: kfront.cuda._runtime.wait_for_producer(handle), which synchronises it through
 * Stream.synchronize as numba-cuda does (unless config.CUDA_ARRAY_INTERFACE_SYNC is 0). */
static int wait_for_producer(uintptr_t producer, kf_stream *consumer) {
  if (!producer || (consumer && (uintptr_t)kf_stream_handle(consumer) == producer)) return 0;
  PyObject *mod = PyImport_ImportModule("kfront.cuda._runtime");
  PyObject *r = mod ? PyObject_CallMethod(mod, "wait_for_producer", "K", (unsigned long long)producer) : NULL;
  Py_XDECREF(mod);
  Py_XDECREF(r);
  return r ? 0 : -1;
}

/* numba-cuda's argument hints (kfront.cuda.args: cuda.In, Out, InOut) of one launch: each hint argument is
 * replaced by hint.to_device(writebacks, stream), held until the launch ends, and the functions it appended to
 * writebacks are called after the kernel. */
typedef struct ArgHints {
  PyObject *stream;      /* the launch's stream object (borrowed), or 0 */
  PyObject *writebacks;  /* list, made at the first hint */
  PyObject *held;        /* list of the values the hints gave */
} ArgHints;

static PyTypeObject *arg_hint_type;  /* kfront.cuda.args.ArgHint, imported at the first launch (kept) */

/* 1 when o is an ArgHint, 0 when not, -1 with an exception. */
static int is_arg_hint(PyObject *o) {
  if (PyObject_TypeCheck(o, DeviceArray_Type) || PyLong_CheckExact(o) || PyFloat_CheckExact(o)) return 0;
  if (!arg_hint_type) {
    PyObject *mod = PyImport_ImportModule("kfront.cuda.args");
    PyObject *t = mod ? PyObject_GetAttrString(mod, "ArgHint") : NULL;
    Py_XDECREF(mod);
    if (!t) return -1;
    if (!PyType_Check(t)) {
      Py_DECREF(t);
      PyErr_SetString(PyExc_RuntimeError, "kfront: internal error: kfront.cuda.args.ArgHint is not a class");
      return -1;
    }
    arg_hint_type = (PyTypeObject *)t;
  }
  return PyObject_TypeCheck(o, arg_hint_type);
}

/* The value a hint gives for the launch (borrowed: hints->held keeps it), or NULL with an exception. */
static PyObject *hinted_value(PyObject *hint, ArgHints *hints) {
  if (!hints->writebacks && !(hints->writebacks = PyList_New(0))) return NULL;
  if (!hints->held && !(hints->held = PyList_New(0))) return NULL;
  PyObject *v = PyObject_CallMethod(hint, "to_device", "OO", hints->writebacks, hints->stream);
  if (!v) return NULL;
  int r = PyList_Append(hints->held, v);
  Py_DECREF(v);
  return r < 0 ? NULL : v;
}

/* Calls the writebacks the hints appended, in order; 0, or -1 with an exception. */
static int run_writebacks(ArgHints *hints) {
  if (!hints->writebacks) return 0;
  for (Py_ssize_t i = 0; i < PyList_Size(hints->writebacks); i++) {
    PyObject *r = PyObject_CallNoArgs(PyList_GetItem(hints->writebacks, i));
    if (!r) return -1;
    Py_DECREF(r);
  }
  return 0;
}

static void release_hints(ArgHints *hints) {
  Py_CLEAR(hints->writebacks);
  Py_CLEAR(hints->held);
}

/* One argument; a Python tuple (numba: UniTuple or Tuple) becomes a KF_ARG_TUPLE of its items converted alike, held
 * in pool, a namedtuple (NamedUniTuple or NamedTuple) one with its class's spelling. When the call uses their data
 * (`use`), waits for the streams their producers named. A launch's argument hints (`hints`, NULL for other calls)
 * pass the values they give. */
static int convert_arg(FunctionObject *f, PyObject *o, kf_arg *out, ExtPool *pool, const char *what, Py_ssize_t index,
                       int use, kf_stream *consumer, ArgHints *hints, unsigned depth) {
  int fast = ext_scalar_fast(o, out);  /* float, int, a NumPy scalar: no hint, tuple or producer to look for */
  if (fast) return fast < 0 ? -1 : 0;
  if (PyTuple_Check(o)) {
    const char *named = NULL;
    if (!PyTuple_CheckExact(o) && ext_namedtuple_spelling(o, &named) < 0) return -1;
    if (depth >= KF_MAX_TUPLE_DEPTH) {
      PyErr_Format(PyExc_ValueError, "%s argument %zd: tuples nested more than %d deep", what, index, KF_MAX_TUPLE_DEPTH);
      return -1;
    }
    Py_ssize_t n = PyTuple_Size(o);
    kf_arg *items = ext_pool_alloc(pool, sizeof *items * (size_t)(n ? n : 1));
    if (!items) return -1;
    for (Py_ssize_t i = 0; i < n; i++)
      if (convert_arg(f, PyTuple_GetItem(o, i), &items[i], pool, what, index, use, consumer, hints, depth + 1) < 0)
        return -1;
    *out = kf_arg_tuple(items, (unsigned)n);
    out->type = named;
    return 0;
  }
  if (hints) {
    int h = is_arg_hint(o);
    if (h < 0 || (h && !(o = hinted_value(o, hints)))) return -1;
  }
  uintptr_t producer = 0;
  if (ext_arg_from_object(o, out, what, index, &producer) < 0) return -1;
  return use ? wait_for_producer(producer, consumer) : 0;
}

/* Converts a tuple of Python arguments (into stack, or an allocation when more than STACK_ARGS; tuples' items in
 * pool: ext_pool_free after the call); when the call uses their data (`use`: launches, not queries), waits for
 * the streams their producers named. */
/* set_parameters(nparams, defaults): the Python function's parameter count and the default values of its last
 * ones, so that a launch or specialize with too few or too many arguments is numba-cuda's TypeError (its
 * dispatcher's find_named_args) and the defaults fill the missing ones. */
static PyObject *Function_set_parameters(PyObject *o, PyObject *args) {
  FunctionObject *self = (FunctionObject *)o;
  int nparams;
  PyObject *defaults;
  if (!PyArg_ParseTuple(args, "iO!", &nparams, &PyTuple_Type, &defaults)) return NULL;
  if (nparams < 0 || PyTuple_Size(defaults) > nparams) {
    PyErr_SetString(PyExc_ValueError, "set_parameters: more defaults than parameters");
    return NULL;
  }
  PyObject *old = self->defaults;
  self->defaults = Py_NewRef(defaults);
  Py_XDECREF(old);
  self->nparams = nparams;
  Py_RETURN_NONE;
}

/* The arguments of a call of f: args (a new reference), completed with f's defaults; NULL with numba-cuda's
 * TypeError when too few or too many are given. */
static PyObject *complete_args(FunctionObject *f, PyObject *args) {
  Py_ssize_t given = PyTuple_Size(args);
  if (f->nparams < 0 || given == f->nparams) return Py_NewRef(args);
  Py_ssize_t ndef = PyTuple_Size(f->defaults), required = f->nparams - ndef;
  if (given > f->nparams)
    return PyErr_Format(PyExc_TypeError, "too many arguments: expected %d, got %d", f->nparams, (int)given);
  if (given < required)
    return PyErr_Format(PyExc_TypeError,
                        required == f->nparams ? "not enough arguments: expected %d, got %d"
                                               : "not enough arguments: expected at least %d, got %d",
                        (int)required, (int)given);
  PyObject *full = PyTuple_New(f->nparams);
  if (!full) return NULL;
  for (Py_ssize_t i = 0; i < f->nparams; i++) {
    PyObject *item = i < given ? PyTuple_GetItem(args, i) : PyTuple_GetItem(f->defaults, i - required);
    if (PyTuple_SetItem(full, i, Py_NewRef(item)) < 0) {
      Py_DECREF(full);
      return NULL;
    }
  }
  return full;
}

static kf_arg *convert_args(FunctionObject *f, PyObject *args, kf_arg *stack, ExtPool *pool, Py_ssize_t *n,
                            const char *what, int use, kf_stream *consumer, ArgHints *hints) {
  *n = PyTuple_Size(args);
  kf_arg *v = *n <= STACK_ARGS ? stack : PyMem_Calloc((size_t)*n, sizeof *v);
  if (!v) return (kf_arg *)PyErr_NoMemory();
  for (Py_ssize_t i = 0; i < *n; i++) {
    if (convert_arg(f, PyTuple_GetItem(args, i), &v[i], pool, what, i, use, consumer, hints, 0) < 0) {
      if (v != stack) PyMem_Free(v);
      ext_pool_free(pool);
      return NULL;
    }
  }
  return v;
}

static PyObject *Function_set_shared_memory_carveout(PyObject *o, PyObject *arg) {
  FunctionObject *self = (FunctionObject *)o;
  int overflow = 0;
  long percent = PyLong_AsLongAndOverflow(arg, &overflow);
  if (percent == -1 && PyErr_Occurred()) return NULL;
  if (overflow || percent < INT32_MIN || percent > INT32_MAX) percent = INT32_MAX;  /* refused as out of range */
  kf_status st = kf_function_set_shared_memory_carveout(self->f, (int)percent);
  if (st != KF_OK) return ext_raise(ctx_of(self), st);
  Py_RETURN_NONE;
}

static PyObject *Function_set_specialized(PyObject *o, PyObject *arg) {
  FunctionObject *self = (FunctionObject *)o;
  int on = PyObject_IsTrue(arg);
  if (on < 0) return NULL;
  kf_status st = kf_function_set_specialized(self->f, on);
  if (st != KF_OK) return ext_raise(ctx_of(self), st);
  Py_RETURN_NONE;
}

static PyObject *Function_specialize(PyObject *o, PyObject *args) {
  FunctionObject *self = (FunctionObject *)o;
  kf_arg stack[STACK_ARGS];
  ExtPool pool = {0};
  Py_ssize_t n;
  PyObject *full = complete_args(self, args);
  if (!full) return NULL;
  kf_arg *v = convert_args(self, full, stack, &pool, &n, "specialize:", 0, NULL, NULL);
  if (!v) {
    Py_DECREF(full);
    return NULL;
  }
  kf_kernel *k = NULL;
  kf_status st;
  Py_BEGIN_ALLOW_THREADS
  st = kf_function_specialize(self->f, v, (unsigned)n, &k);
  Py_END_ALLOW_THREADS
  Py_DECREF(full);
  if (v != stack) PyMem_Free(v);
  ext_pool_free(&pool);
  if (st != KF_OK) return ext_raise(ctx_of(self), st);
  if (ext_flush_warnings(ctx_of(self)) < 0) return NULL;
  return new_kernel(o, k);
}

static PyObject *new_kernel(PyObject *function, kf_kernel *k) {
  KernelObject *ko = PyObject_New(KernelObject, Kernel_Type);
  if (!ko) return NULL;
  ko->function = (FunctionObject *)Py_NewRef(function);
  ko->k = k;
  return (PyObject *)ko;
}

/* kernels() -> [Kernel]: every specialisation so far, oldest first */
static PyObject *Function_kernels(PyObject *o, PyObject *unused) {
  (void)unused;
  FunctionObject *self = (FunctionObject *)o;
  unsigned n = kf_function_kernels(self->f, NULL, 0);
  kf_kernel **ks = PyMem_Calloc(n ? n : 1, sizeof *ks);
  if (!ks) return PyErr_NoMemory();
  n = kf_function_kernels(self->f, ks, n);
  PyObject *list = PyList_New(n);
  for (unsigned i = 0; list && i < n; i++) {
    PyObject *k = new_kernel(o, ks[i]);
    if (!k) {
      Py_CLEAR(list);
      break;
    }
    PyList_SetItem(list, i, k);
  }
  PyMem_Free(ks);
  return list;
}

static PyObject *Function_info(PyObject *o, PyObject *unused) {
  (void)unused;
  FunctionObject *self = (FunctionObject *)o;
  kf_function_info in;
  kf_status st = kf_function_get_info(self->f, &in);
  if (st != KF_OK) return ext_raise(ctx_of(self), st);
  const char *kind = "kernel";
  for (unsigned k = 0; k < sizeof kind_names / sizeof *kind_names; k++)
    if (kind_names[k].kind == in.kind) kind = kind_names[k].name;
  return Py_BuildValue("{s:s,s:I,s:I,s:I,s:z}", "kind", kind, "nin", in.nin, "nout", in.nout, "nsignatures",
                       in.nsignatures, "layout", in.layout);
}

static PyObject *shape_tuple(const kf_array *a) {
  PyObject *t = PyTuple_New(a->ndim);
  for (unsigned i = 0; t && i < a->ndim; i++) PyTuple_SetItem(t, i, PyLong_FromLongLong(a->shape[i]));
  return t;
}

/* reduce(arr, size, init, stream, res) -> the result as a Python number (None when only res is given) */
static PyObject *Function_reduce(PyObject *o, PyObject *args) {
  FunctionObject *self = (FunctionObject *)o;
  PyObject *arr, *init = Py_None, *stream = Py_None, *res = Py_None;
  long long size = -1;
  int want_result = 1;
  if (!PyArg_ParseTuple(args, "OL|OOOp", &arr, &size, &init, &stream, &res, &want_result)) return NULL;
  kf_array a, r;
  kf_arg iv, result;
  int ok;
  kf_stream *s = ext_stream_arg(stream, &ok);
  uintptr_t producer = 0;
  if (!ok || ext_array_from_object(arr, &a, "reduce", &producer) < 0 || wait_for_producer(producer, s) < 0)
    return NULL;
  if (init != Py_None && ext_arg_from_object(init, &iv, "reduce init", 0, NULL) < 0) return NULL;
  if (init != Py_None && iv.kind != KF_ARG_SCALAR) return PyErr_Format(PyExc_TypeError, "reduce: init must be a scalar");
  if (res != Py_None && (ext_array_from_object(res, &r, "reduce res", &producer) < 0 ||
                         wait_for_producer(producer, s) < 0))
    return NULL;
  kf_status st = kf_reduce(self->f, &a, size, init == Py_None ? NULL : &iv, s, want_result ? &result : NULL,
                           res == Py_None ? NULL : &r);
  if (st != KF_OK) return ext_raise(ctx_of(self), st);
  if (!want_result) Py_RETURN_NONE;
  return ext_scalar_to_object(&result);
}

static PyObject *Function_ufunc_result(PyObject *o, PyObject *inputs) {
  FunctionObject *self = (FunctionObject *)o;
  if (!PyTuple_Check(inputs)) return PyErr_Format(PyExc_TypeError, "ufunc_result: a tuple of inputs is needed");
  kf_arg stack[STACK_ARGS];
  ExtPool pool = {0};
  Py_ssize_t n;
  kf_arg *v = convert_args(self, inputs, stack, &pool, &n, "ufunc input", 0, NULL, NULL);
  if (!v) return NULL;
  kf_array out;
  kf_status st = kf_ufunc_result(self->f, v, (unsigned)n, &out);
  if (v != stack) PyMem_Free(v);
  ext_pool_free(&pool);
  if (st != KF_OK) return ext_raise(ctx_of(self), st);
  PyObject *shape = shape_tuple(&out);
  return shape ? Py_BuildValue("(sN)", ext_typestr(out.dtype), shape) : NULL;
}

static PyObject *Function_ufunc_call(PyObject *o, PyObject *args) {
  FunctionObject *self = (FunctionObject *)o;
  PyObject *inputs, *out, *stream = Py_None;
  if (!PyArg_ParseTuple(args, "O!O|O", &PyTuple_Type, &inputs, &out, &stream)) return NULL;
  int ok;
  kf_stream *s = ext_stream_arg(stream, &ok);
  if (!ok) return NULL;
  kf_array oa;
  uintptr_t producer = 0;
  if (ext_array_from_object(out, &oa, "ufunc out", &producer) < 0 || wait_for_producer(producer, s) < 0)
    return NULL;
  kf_arg stack[STACK_ARGS];
  ExtPool pool = {0};
  Py_ssize_t n;
  kf_arg *v = convert_args(self, inputs, stack, &pool, &n, "ufunc input", 1, s, NULL);
  if (!v) return NULL;
  kf_status st = kf_ufunc_call(self->f, v, (unsigned)n, &oa, s);
  if (v != stack) PyMem_Free(v);
  ext_pool_free(&pool);
  if (st != KF_OK) return ext_raise(ctx_of(self), st);
  Py_RETURN_NONE;
}

static PyObject *Function_gufunc_result(PyObject *o, PyObject *args) {
  FunctionObject *self = (FunctionObject *)o;
  PyObject *inputs;
  unsigned nouts;
  if (!PyArg_ParseTuple(args, "O!I", &PyTuple_Type, &inputs, &nouts)) return NULL;
  if (nouts == 0 || nouts > 64) return PyErr_Format(PyExc_ValueError, "gufunc_result: %u outputs", nouts);
  kf_arg stack[STACK_ARGS];
  ExtPool pool = {0};
  Py_ssize_t n;
  kf_arg *v = convert_args(self, inputs, stack, &pool, &n, "gufunc input", 0, NULL, NULL);
  if (!v) return NULL;
  kf_array outs[64];
  kf_status st = kf_gufunc_result(self->f, v, (unsigned)n, outs, nouts);
  if (v != stack) PyMem_Free(v);
  ext_pool_free(&pool);
  if (st != KF_OK) return ext_raise(ctx_of(self), st);
  PyObject *list = PyList_New(nouts);
  for (unsigned i = 0; list && i < nouts; i++) {
    PyObject *shape = shape_tuple(&outs[i]);
    PyObject *item = shape ? Py_BuildValue("(sN)", ext_typestr(outs[i].dtype), shape) : NULL;
    if (!item) {
      Py_DECREF(list);
      return NULL;
    }
    PyList_SetItem(list, i, item);
  }
  return list;
}

static PyObject *Function_gufunc_call(PyObject *o, PyObject *args) {
  FunctionObject *self = (FunctionObject *)o;
  PyObject *all, *stream = Py_None;
  if (!PyArg_ParseTuple(args, "O!|O", &PyTuple_Type, &all, &stream)) return NULL;
  int ok;
  kf_stream *s = ext_stream_arg(stream, &ok);
  if (!ok) return NULL;
  kf_arg stack[STACK_ARGS];
  ExtPool pool = {0};
  Py_ssize_t n;
  kf_arg *v = convert_args(self, all, stack, &pool, &n, "gufunc argument", 1, s, NULL);
  if (!v) return NULL;
  kf_status st = kf_gufunc_call(self->f, v, (unsigned)n, s);
  if (v != stack) PyMem_Free(v);
  ext_pool_free(&pool);
  if (st != KF_OK) return ext_raise(ctx_of(self), st);
  Py_RETURN_NONE;
}

/* ---- Launcher ----------------------------------------------------------------------------------------- */

static void Launcher_dealloc(PyObject *o) {
  LauncherObject *l = (LauncherObject *)o;
  PyTypeObject *tp = Py_TYPE(o);
  Py_XDECREF(l->function);
  Py_XDECREF(l->stream);
  Py_XDECREF(l->redirect);
  Py_XDECREF((PyObject *)l->other);
  Py_XDECREF(l->callbacks);
  PyObject_Free(o);
  Py_DECREF(tp);
}

/* The launcher of l's configuration for device `cur` (the thread's current one, not l's): one made before (l's
 * chain), else a new one from l's redirect, kept in the chain. Borrowed; NULL with an exception. */
static LauncherObject *launcher_for(LauncherObject *l, int cur) {
  LauncherObject **tail = &l->other;
  for (; *tail; tail = &(*tail)->other)
    if ((*tail)->device == cur) return *tail;
  if (!l->redirect) {
    PyErr_Format(PyExc_RuntimeError, "kfront: this launcher was configured on device %d, but the current device is "
                 "%d", l->device, cur);
    return NULL;
  }
  PyObject *r = PyObject_CallNoArgs(l->redirect);
  if (!r) return NULL;
  if (!PyObject_TypeCheck(r, Launcher_Type) || ((LauncherObject *)r)->device != cur) {
    Py_DECREF(r);
    PyErr_Format(PyExc_RuntimeError, "kfront: internal error: no launcher for device %d", cur);
    return NULL;
  }
  /* the redirect ran Python code: another thread may have added this device's launcher meanwhile */
  for (tail = &l->other; *tail; tail = &(*tail)->other)
    if ((*tail)->device == cur) {
      Py_DECREF(r);
      return *tail;
    }
  *tail = (LauncherObject *)r;  /* the chain keeps the new launcher (its own chain is empty) */
  return *tail;
}

/* How many of a launch's arguments (tuples' items included) are host arrays the launch copies in and back. */
static unsigned host_arrays(const kf_arg *v, unsigned n) {
  unsigned count = 0;
  for (unsigned i = 0; i < n; i++) {
    if (v[i].kind == KF_ARG_TUPLE)
      count += host_arrays(v[i].items, v[i].nitems);
    else if (v[i].kind == KF_ARG_ARRAY && v[i].array.memory == KF_MEMORY_HOST)
      count++;
  }
  return count;
}

/* numba-cuda's NumbaPerformanceWarning for each host array a launch copies implicitly:
 * kfront.cuda.dispatcher.warn_implicit_copies(count) warns as kfront.config says (-1 when the warning is an
 * error). */
static int warn_implicit_copies(unsigned count) {
  PyObject *mod = PyImport_ImportModule("kfront.cuda.dispatcher");
  PyObject *r = mod ? PyObject_CallMethod(mod, "warn_implicit_copies", "I", count) : NULL;
  Py_XDECREF(mod);
  Py_XDECREF(r);
  return r ? 0 : -1;
}

/* numba-cuda's pre-launch callbacks of `config` (the launcher called): each callback(kernel, config), kernel the
 * specialisation of l's function for the arguments v, just before the launch. -1 with an exception. */
static int run_pre_launch_callbacks(PyObject *config, LauncherObject *l, const kf_arg *v, Py_ssize_t n) {
  PyObject *callbacks = PySequence_Tuple(((LauncherObject *)config)->callbacks);  /* a callback may change the list */
  if (!callbacks) return -1;
  kf_kernel *k = NULL;
  kf_status st;
  Py_BEGIN_ALLOW_THREADS
  st = kf_function_specialize(l->function->f, v, (unsigned)n, &k);
  Py_END_ALLOW_THREADS
  PyObject *kernel = st == KF_OK ? new_kernel((PyObject *)l->function, k) : ext_raise(ctx_of(l->function), st);
  int rc = kernel ? 0 : -1;
  for (Py_ssize_t i = 0; rc == 0 && i < PyTuple_Size(callbacks); i++) {
    PyObject *r = PyObject_CallFunctionObjArgs(PyTuple_GetItem(callbacks, i), kernel, config, NULL);
    if (!r) rc = -1;
    Py_XDECREF(r);
  }
  Py_XDECREF(kernel);
  Py_DECREF(callbacks);
  return rc;
}

static PyObject *Launcher_call(PyObject *o, PyObject *args, PyObject *kw) {
  LauncherObject *l = (LauncherObject *)o;
  PyObject *callbacks = l->callbacks;
  if (kw && PyDict_Size(kw)) {
    PyErr_SetString(PyExc_TypeError, "a kernel takes no keyword arguments");
    return NULL;
  }
  int cur = kf_current_device();  /* a thread-local read: the one-device program's launch pays nothing more */
  if (cur != l->device && !(l = launcher_for(l, cur))) return NULL;
  kf_arg stack[STACK_ARGS];
  ExtPool pool = {0};
  Py_ssize_t n;
  PyObject *zero = NULL;
  if (!l->stream && !(zero = PyLong_FromLong(0))) return NULL;
  ArgHints hints = {l->stream ? l->stream : zero, NULL, NULL};
  PyObject *full = complete_args(l->function, args);
  if (!full) goto fail;
  kf_arg *v = convert_args(l->function, full, stack, &pool, &n, "kernel", 1, l->s, &hints);
  if (!v) {
    Py_DECREF(full);
    goto fail;
  }
  unsigned copies = host_arrays(v, (unsigned)n);
  if ((copies && warn_implicit_copies(copies) < 0) ||
      (callbacks && PyList_Size(callbacks) > 0 && run_pre_launch_callbacks(o, l, v, n) < 0)) {
    if (v != stack) PyMem_Free(v);
    ext_pool_free(&pool);
    Py_DECREF(full);
    goto fail;
  }
  /* the arguments' memory stays alive (full holds them); other Python threads run meanwhile */
  ExtInterruptible intr;
  kf_status st = KF_OK;
  int interrupted = ext_interruptible_begin(&intr, l->function->program->runtime->rt) < 0;
  if (!interrupted) {
    Py_BEGIN_ALLOW_THREADS
    st = kf_function_launch(l->function->f, l->grid, l->block, l->shared, l->s, v, (unsigned)n);
    Py_END_ALLOW_THREADS
  }
  if (ext_interruptible_end(&intr) < 0 && !interrupted) interrupted = 1;
  Py_DECREF(full);
  if (v != stack) PyMem_Free(v);
  ext_pool_free(&pool);
  if (interrupted) { /* KeyboardInterrupt, not the launch's "simulation interrupted" */
    kf_context_clear_diagnostics(ctx_of(l->function));
    goto fail;
  }
  if (st != KF_OK) {
    ext_raise(ctx_of(l->function), st);
    goto fail;
  }
  if (ext_flush_warnings(ctx_of(l->function)) < 0 || run_writebacks(&hints) < 0) goto fail;
  release_hints(&hints);
  Py_XDECREF(zero);
  Py_RETURN_NONE;
fail:
  release_hints(&hints);
  Py_XDECREF(zero);
  return NULL;
}

static PyObject *Launcher_get_griddim(PyObject *o, void *c) {
  const unsigned *d = ((LauncherObject *)o)->grid;
  return Py_BuildValue("(III)", d[0], d[1], d[2]);
}

static PyObject *Launcher_get_blockdim(PyObject *o, void *c) {
  const unsigned *d = ((LauncherObject *)o)->block;
  return Py_BuildValue("(III)", d[0], d[1], d[2]);
}

static PyObject *Launcher_get_sharedmem(PyObject *o, void *c) { return PyLong_FromSize_t(((LauncherObject *)o)->shared); }

static PyObject *Launcher_get_stream(PyObject *o, void *c) {
  LauncherObject *l = (LauncherObject *)o;
  return l->stream ? Py_NewRef(l->stream) : PyLong_FromLong(0);
}

/* Calls kfront.cuda.dispatcher.<name>(launcher, redirect or None, callbacks or None). */
static PyObject *launcher_hook(const char *name, LauncherObject *l) {
  PyObject *mod = PyImport_ImportModule("kfront.cuda.dispatcher");
  PyObject *r = mod ? PyObject_CallMethod(mod, name, "OOO", (PyObject *)l, l->redirect ? l->redirect : Py_None,
                                          l->callbacks ? l->callbacks : Py_None)
                    : NULL;
  Py_XDECREF(mod);
  return r;
}

/* The list is this launcher's own, as numba-cuda's of each kernel[...] is: asking for it tells the dispatcher
 * (launcher_claimed) to make later kernel[...] of this configuration a new launcher. */
static PyObject *Launcher_get_callbacks(PyObject *o, void *c) {
  LauncherObject *l = (LauncherObject *)o;
  if (!l->callbacks) {
    PyObject *r = launcher_hook("launcher_claimed", l);
    if (!r) return NULL;
    Py_DECREF(r);
    if (!l->callbacks && !(l->callbacks = PyList_New(0))) return NULL;
  }
  return Py_NewRef(l->callbacks);
}

static PyObject *Launcher_reduce(PyObject *o, PyObject *unused) { return launcher_hook("reduce_launcher", (LauncherObject *)o); }

/* ---- Kernel ------------------------------------------------------------------------------------------- */

static void Kernel_dealloc(PyObject *o) {
  PyTypeObject *tp = Py_TYPE(o);
  Py_XDECREF(((KernelObject *)o)->function);
  PyObject_Free(o);
  Py_DECREF(tp);
}

static PyObject *Kernel_get_signature(PyObject *o, void *c) {
  (void)c;
  return PyUnicode_FromString(kf_kernel_signature(((KernelObject *)o)->k));
}

static PyObject *Kernel_get_cache_source(PyObject *o, void *c) {
  (void)c;
  static const char *const names[] = {"compiled", "memory", "disk"};
  int s = kf_kernel_cache_source(((KernelObject *)o)->k);
  return PyUnicode_FromString(s >= 0 && s <= 2 ? names[s] : "unknown");
}

static PyObject *Kernel_get_cooperative(PyObject *o, void *c) {
  (void)c;
  return PyBool_FromLong(kf_kernel_is_cooperative(((KernelObject *)o)->k));
}

/* max_cooperative_grid_blocks(blockdim, dynsmemsize=0): blockdim an int or a tuple of up to 3 ints (their
 * product is what counts, as in numba-cuda). */
static PyObject *Kernel_max_cooperative_grid_blocks(PyObject *o, PyObject *args, PyObject *kw) {
  KernelObject *self = (KernelObject *)o;
  static char *names[] = {"blockdim", "dynsmemsize", NULL};
  PyObject *bd;
  unsigned long long shared = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|K", names, &bd, &shared)) return NULL;
  unsigned long long threads = 1;
  PyObject *seq = PyTuple_Check(bd) || PyList_Check(bd) ? PySequence_Tuple(bd) : PyTuple_Pack(1, bd);
  if (!seq) return NULL;
  Py_ssize_t n = PyTuple_Size(seq);
  for (Py_ssize_t i = 0; i < n && n <= 3; i++) {
    long long d = PyLong_AsLongLong(PyTuple_GetItem(seq, i));
    if (d == -1 && PyErr_Occurred()) {
      Py_DECREF(seq);
      return NULL;
    }
    threads = d > 0 && threads <= 1u << 20 ? threads * (unsigned long long)d : 0;
  }
  Py_DECREF(seq);
  if (n < 1 || n > 3 || threads == 0 || threads > 1u << 20)
    return PyErr_Format(PyExc_ValueError, "blockdim must be a positive int or a tuple of 1 to 3 positive ints");
  unsigned blocks;
  kf_status st = kf_kernel_max_cooperative_blocks(self->k, (unsigned)threads, (size_t)shared, &blocks);
  if (st != KF_OK) return ext_raise(ctx_of(self->function), st);
  return PyLong_FromUnsignedLong(blocks);
}

/* numba-cuda's kernel attributes (closure: which field of kf_kernel_attributes). One the device cannot tell (the
 * simulator's registers and local memory) is kfront.errors.not_on_simulator(name)'s error. */
enum { ATTR_REGS, ATTR_LOCAL, ATTR_SHARED, ATTR_CONST, ATTR_MAX_THREADS };
static const char *const attribute_names[] = {"regs_per_thread", "local_mem_per_thread", "shared_mem_per_block",
                                              "const_mem_size", "max_threads_per_block"};

static PyObject *Kernel_get_attribute(PyObject *o, void *closure) {
  KernelObject *self = (KernelObject *)o;
  int which = (int)(intptr_t)closure;
  kf_kernel_attributes a;
  kf_status st = kf_kernel_get_attributes(self->k, &a);
  if (st != KF_OK) return ext_raise(ctx_of(self->function), st);
  int64_t v = which == ATTR_REGS ? a.regs_per_thread : which == ATTR_LOCAL ? a.local_bytes
              : which == ATTR_SHARED ? a.shared_bytes : which == ATTR_CONST ? a.const_bytes : a.max_threads_per_block;
  if (v >= 0) return PyLong_FromLongLong(v);
  PyObject *errors = PyImport_ImportModule("kfront.errors");
  PyObject *exc = errors ? PyObject_CallMethod(errors, "not_on_simulator", "s", attribute_names[which]) : NULL;
  Py_XDECREF(errors);
  if (exc) {
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
  }
  return NULL;
}

static PyMethodDef Kernel_methods[] = {
    {"max_cooperative_grid_blocks", (PyCFunction)(void (*)(void))Kernel_max_cooperative_grid_blocks,
     METH_VARARGS | METH_KEYWORDS, "blocks of blockdim (and dynsmemsize bytes) the device holds at once"},
    {NULL, NULL, 0, NULL}};

/* [(kind 'array'|'scalar', typestr, ndim, layout, readonly)] */
static PyObject *Kernel_get_params(PyObject *o, void *c) {
  (void)c;
  KernelObject *self = (KernelObject *)o;
  unsigned n = kf_kernel_param_count(self->k);
  PyObject *list = PyList_New(n);
  for (unsigned i = 0; list && i < n; i++) {
    kf_param_info p;
    PyObject *item = kf_kernel_param(self->k, i, &p) == KF_OK
                         ? Py_BuildValue("(ssIC" "N)", p.kind == KF_ARG_ARRAY ? "array" : "scalar", ext_typestr(p.dtype),
                                         p.ndim, p.kind == KF_ARG_ARRAY ? p.layout : ' ', PyBool_FromLong(p.readonly))
                         : Py_NewRef(Py_None);
    if (!item) {
      Py_DECREF(list);
      return NULL;
    }
    PyList_SetItem(list, i, item);
  }
  return list;
}

/* ---- compile(): kir / LLVM IR / PTX text ------------------------------------------------------------- */

static PyObject *compile_text(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  static char *names[] = {"sources", "bindings", "functions", "kernels", "signatures", "emit", "bounds_check",
                          "pipeline", "arch", "opt", "fastmath", "lineinfo", "backend", "symbol", "arch_feature",
                          "debuginfo", "links", "include_dirs", NULL};
  PyObject *sources, *bindings, *functions, *kernels, *signatures, *links = NULL, *include_dirs = NULL;
  const char *emit = "ptx", *pipeline = NULL, *backend = "nvvm", *symbol = NULL, *feature = "";
  int bounds_check = 1, fastmath = 0, lineinfo = 0, opt = 3, debuginfo = 0;
  unsigned arch = 90;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOO|spzIippzzspOO", names, &sources, &bindings, &functions,
                                   &kernels, &signatures, &emit, &bounds_check, &pipeline, &arch, &opt, &fastmath,
                                   &lineinfo, &backend, &symbol, &feature, &debuginfo, &links, &include_dirs))
    return NULL;
  if (strcmp(feature, "") != 0 && strcmp(feature, "a") != 0 && strcmp(feature, "f") != 0)
    return PyErr_Format(PyExc_ValueError, "arch_feature must be '', 'a' or 'f', not '%s'", feature);
  int which = strcmp(emit, "kir") == 0     ? 0
              : strcmp(emit, "llvm") == 0  ? 1
              : strcmp(emit, "ptx") == 0   ? 2
              : strcmp(emit, "ltoir") == 0 ? 3
              : strcmp(emit, "lto_ptx") == 0 ? 4
              : strcmp(emit, "result") == 0 ? 5
                                           : -1;
  if (which < 0)
    return PyErr_Format(PyExc_ValueError, "emit must be 'kir', 'llvm', 'ptx', 'ltoir', 'lto_ptx' or 'result', not '%s'",
                        emit);
  Inputs in;
  PyObject *kt = NULL, *st_ = NULL, *result = NULL;
  kf_context *ctx = NULL;
  kf_module *m = NULL;
  if (inputs_read(&in, sources, bindings, functions, bounds_check, pipeline) < 0 ||
      links_read(&in, links, include_dirs) < 0)
    goto done;
  kt = PySequence_Tuple(kernels);
  st_ = kt ? PySequence_Tuple(signatures) : NULL;
  if (!st_) goto done;
  Py_ssize_t nk = PyTuple_Size(kt), nsig = PyTuple_Size(st_);
  const char **kv = ext_pool_alloc(&in.pool, sizeof *kv * (size_t)(nk ? nk : 1));
  const char **sv = ext_pool_alloc(&in.pool, sizeof *sv * (size_t)(nsig ? nsig : 1));
  if (!kv || !sv) goto done;
  for (Py_ssize_t i = 0; i < nk; i++)
    if (!(kv[i] = utf8(PyTuple_GetItem(kt, i), NULL, "a kernel name"))) goto done;
  for (Py_ssize_t i = 0; i < nsig; i++)
    if (!(sv[i] = utf8(PyTuple_GetItem(st_, i), NULL, "a signature"))) goto done;
  in.opts.kernels = kv;
  in.opts.nkernels = (unsigned)nk;
  in.opts.signatures = sv;
  in.opts.nsignatures = (unsigned)nsig;
  ctx = kf_context_create();
  if (!ctx) {
    PyErr_NoMemory();
    goto done;
  }
  kf_status st;
  Py_BEGIN_ALLOW_THREADS
  st = kf_compile_sources(ctx, in.sources, in.nsources, &in.opts, &m);
  Py_END_ALLOW_THREADS
  if (st == KF_OK && symbol) {
    if (nk != 1) {
      PyErr_SetString(PyExc_ValueError, "compile(symbol=...) renames the one function compiled: give one kernel");
      goto done;
    }
    st = kf_module_rename_function(m, kv[0], symbol);
  }
  char *text = NULL;
  size_t text_len = 0;
  if (st == KF_OK && which == 0) st = kf_module_print(m, 0, &text, NULL);
  kf_value *tree = NULL;
  if (st == KF_OK && which == 5) {
    if (nk != 1) {
      PyErr_SetString(PyExc_ValueError, "compile(emit='result') gives the result type of one function: give one kernel");
      goto done;
    }
    st = kf_module_function_result(m, symbol ? symbol : kv[0], &tree);
  }
  if (st == KF_OK && which > 0 && which < 5) {
    kf_codegen_options co;
    kf_codegen_options_init(&co);
    co.arch = arch;
    co.arch_feature = feature[0];
    co.opt_level = opt;
    co.fastmath = fastmath;
    co.lineinfo = lineinfo;
    co.debuginfo = debuginfo;
    co.backend = backend && strcmp(backend, "llvm") == 0 ? KF_BACKEND_LLVM : KF_BACKEND_NVVM;
    Py_BEGIN_ALLOW_THREADS  /* (the links in `in` are borrowed by the link, kept alive by in.keep_links) */
    st = which == 1   ? kf_module_emit_llvm(m, &co, &text, NULL)
         : which == 2 ? kf_module_emit_ptx(m, &co, &text, NULL)
         : which == 3 ? kf_module_emit_ltoir(m, &co, &text, &text_len)
                      : kf_module_emit_lto_ptx(m, &co, in.opts.links, in.opts.nlinks, in.opts.include_dirs,
                                               in.opts.ninclude_dirs, &text, NULL);
    Py_END_ALLOW_THREADS
  }
  if (st != KF_OK) ext_raise(ctx, st);
  else if (ext_flush_warnings(ctx) == 0)
    result = which == 5   ? ext_tree_to_object(tree)
             : which == 3 ? PyBytes_FromStringAndSize(text, (Py_ssize_t)text_len)
                          : PyUnicode_FromString(text);
  kf_free(text);
  kf_value_free(tree);
done:
  if (m) kf_module_destroy(m);
  if (ctx) kf_context_destroy(ctx);
  inputs_free(&in);
  Py_XDECREF(kt);
  Py_XDECREF(st_);
  return result;
}

/* ---- overloads ----------------------------------------------------------------------------------------- */

/* The Python callable kfront.extending gives (set_overload_resolver): resolver(path, arg_types, keywords) returns
 * (sources, bindings, functions, name), an implementation in the inputs' formats, or raises (its text is the typing
 * error); see kf_overload_resolver. */
static PyObject *overload_resolver;

typedef struct Resolved {
  Inputs in;
  char *error;
} Resolved;

static void resolved_release(void *data) {
  Resolved *r = data;
  PyGILState_STATE g = PyGILState_Ensure();
  inputs_free(&r->in);
  PyGILState_Release(g);
  free(r->error);
  free(r);
}

static PyObject *strings(const char *const *v, unsigned n) {
  PyObject *l = PyList_New(n);
  for (unsigned i = 0; l && i < n; i++) {
    PyObject *s = PyUnicode_FromString(v[i]);
    if (!s) {
      Py_CLEAR(l);
      break;
    }
    PyList_SetItem(l, i, s);
  }
  return l;
}

/* The text of the exception being handled (cleared): its str(), which kfront.extending.resolve makes the whole
 * reason (numba's TypingError text); a class's name before it where the str() is empty. */
static char *error_text(void) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  PyObject *text = value ? PyObject_Str(value) : NULL;
  PyObject *cls = type ? PyObject_GetAttrString(type, "__name__") : NULL;
  const char *t = text ? PyUnicode_AsUTF8AndSize(text, NULL) : NULL;
  const char *c = cls ? PyUnicode_AsUTF8AndSize(cls, NULL) : NULL;
  char *out = t && *t ? strdup(t) : c ? strdup(c) : NULL;
  PyErr_Clear();
  Py_XDECREF(text);
  Py_XDECREF(cls);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  return out ? out : strdup("the overload resolver failed");
}

static void resolve_overload(void *user, const char *path, const char *const *arg_types, unsigned nargs,
                             const char *const *keywords, unsigned nkeywords, kf_resolution *out) {
  (void)user;
  memset(out, 0, sizeof *out);
  Resolved *r = calloc(1, sizeof *r);
  if (!r) {
    out->error = "out of memory asking for an overload's implementation";
    return;
  }
  out->release = resolved_release;
  out->release_data = r;
  PyGILState_STATE g = PyGILState_Ensure();
  PyObject *types = strings(arg_types, nargs + nkeywords), *kws = types ? strings(keywords, nkeywords) : NULL;
  PyObject *res = kws && overload_resolver ? PyObject_CallFunction(overload_resolver, "sOO", path, types, kws) : NULL;
  Py_XDECREF(types);
  Py_XDECREF(kws);
  if (res && (!PyTuple_Check(res) || PyTuple_Size(res) != 4 || !PyUnicode_Check(PyTuple_GetItem(res, 3)))) {
    Py_CLEAR(res);
    PyErr_SetString(PyExc_TypeError, "the overload resolver must return (sources, bindings, functions, name)");
  }
  if (res && inputs_read(&r->in, PyTuple_GetItem(res, 0), PyTuple_GetItem(res, 1), PyTuple_GetItem(res, 2), 1,
                         NULL) == 0) {
    const char *name = PyUnicode_AsUTF8AndSize(PyTuple_GetItem(res, 3), NULL);
    /* the name's text lives in res, which the inputs keep (with the sources, bindings and specs it holds) */
    PyObject *keep = PyTuple_Pack(2, r->in.keep, res);
    if (keep && name) {
      Py_DECREF(r->in.keep);
      r->in.keep = keep;
      out->sources = r->in.sources;
      out->nsources = r->in.nsources;
      out->function = name;
      out->bindings = r->in.opts.bindings;
      out->nbindings = r->in.opts.nbindings;
      out->functions = r->in.opts.functions;
      out->nfunctions = r->in.opts.nfunctions;
    } else {
      Py_XDECREF(keep);
      out->error = r->error = error_text();
    }
  } else {
    out->error = r->error = error_text();
  }
  Py_XDECREF(res);
  PyGILState_Release(g);
}

static PyObject *set_overload_resolver(PyObject *self, PyObject *fn) {
  (void)self;
  if (fn != Py_None && !PyCallable_Check(fn)) {
    PyErr_SetString(PyExc_TypeError, "set_overload_resolver takes a callable or None");
    return NULL;
  }
  PyObject *old = overload_resolver;
  overload_resolver = fn == Py_None ? NULL : Py_NewRef(fn);
  Py_XDECREF(old);
  kf_set_overload_resolver(overload_resolver ? resolve_overload : NULL, NULL);
  Py_RETURN_NONE;
}

/* libdevice_functions(): kf_libdevice_foreach's rows as a list of (name, signature, parameter names) tuples. */
static void add_libdevice_row(void *user, const char *name, const char *signature, const char *params) {
  PyObject *list = user;
  if (PyErr_Occurred()) return;
  PyObject *row = Py_BuildValue("(sss)", name, signature, params);
  if (row) {
    PyList_Append(list, row);
    Py_DECREF(row);
  }
}

static PyObject *libdevice_functions(PyObject *self, PyObject *noargs) {
  (void)self;
  (void)noargs;
  PyObject *list = PyList_New(0);
  if (!list) return NULL;
  kf_libdevice_foreach(add_libdevice_row, list);
  if (PyErr_Occurred()) {
    Py_DECREF(list);
    return NULL;
  }
  return list;
}

PyMethodDef ext_program_functions[] = {
    {"set_overload_resolver", set_overload_resolver, METH_O,
     "set_overload_resolver(fn): fn(path, arg_types, keywords) -> (sources, bindings, functions, name) implements the "
     "overloaded functions kernels call (('overload', path) bindings); None: none"},
    {"libdevice_functions", libdevice_functions, METH_NOARGS,
     "libdevice_functions() -> [(name without __nv_, 'ret:args' in type letters, 'parameter,names')]: the "
     "libdevice functions of cuda.libdevice"},
    {"compile", (PyCFunction)(void (*)(void))compile_text, METH_VARARGS | METH_KEYWORDS,
     "compile(sources, bindings, functions, kernels, signatures, emit='ptx', bounds_check=True, pipeline=None, "
     "arch=90, opt=3, fastmath=False, lineinfo=False, backend='nvvm', symbol=None, arch_feature='', debuginfo=False, "
     "links=(), include_dirs=()) -> kir, LLVM IR or PTX text, LTO-IR bytes (emit='ltoir'), or the PTX nvJitLink's "
     "link-time optimisation gives of the module with the links (emit='lto_ptx'), or the one function's result type "
     "as parse_signature gives types (emit='result': kf_module_function_result)"},
    {NULL, NULL, 0, NULL}};

/* ---- types -------------------------------------------------------------------------------------------- */

static PyMethodDef Program_methods[] = {{"function", Program_function, METH_O, "function(name) -> Function"},
                                        {NULL, NULL, 0, NULL}};
static PyType_Slot Program_slots[] = {{Py_tp_new, Program_new},
                                      {Py_tp_dealloc, Program_dealloc},
                                      {Py_tp_methods, Program_methods},
                                      {0, NULL}};
static PyType_Spec Program_spec = {"kfront._kfront.Program", sizeof(ProgramObject), 0, Py_TPFLAGS_DEFAULT,
                                   Program_slots};

static PyMethodDef Function_methods[] = {
    {"configure", Function_configure, METH_VARARGS,
     "configure(grid, block, stream=None, shared=0, redirect=None) -> Launcher (of the function's device; called on "
     "another current device, it launches what redirect() returns for that device)"},
    {"specialize", Function_specialize, METH_VARARGS, "specialize(*args) -> Kernel for these argument types"},
    {"set_specialized", Function_set_specialized, METH_O,
     "set_specialized(on): as numba-cuda's dispatcher of one declared signature, a launch passes an integer array of "
     "the parameter's integer width, rank and layout as the parameter's dtype (kf_function_set_specialized)"},
    {"set_shared_memory_carveout", Function_set_shared_memory_carveout, METH_O,
     "set_shared_memory_carveout(percent): the shared-memory carveout its kernels prefer on a GPU (-1: default)"},
    {"set_parameters", Function_set_parameters, METH_VARARGS,
     "set_parameters(nparams, defaults): the Python function's parameter count and its defaults (a tuple), which "
     "launches and specialize then check and fill in as numba-cuda's dispatcher does"},
    {"info", Function_info, METH_NOARGS, "{kind, nin, nout, nsignatures, layout}"},
    {"kernels", Function_kernels, METH_NOARGS, "[Kernel]: the specialisations so far, oldest first"},
    {"reduce", Function_reduce, METH_VARARGS, "reduce(arr, size, init=None, stream=None, res=None, result=True)"},
    {"ufunc_result", Function_ufunc_result, METH_O, "ufunc_result(inputs) -> (typestr, shape)"},
    {"ufunc_call", Function_ufunc_call, METH_VARARGS, "ufunc_call(inputs, out, stream=None)"},
    {"gufunc_result", Function_gufunc_result, METH_VARARGS, "gufunc_result(inputs, nouts) -> [(typestr, shape)]"},
    {"gufunc_call", Function_gufunc_call, METH_VARARGS, "gufunc_call(inputs + outputs, stream=None)"},
    {NULL, NULL, 0, NULL}};
static PyType_Slot Function_slots[] = {{Py_tp_dealloc, Function_dealloc}, {Py_tp_methods, Function_methods}, {0, NULL}};
static PyType_Spec Function_spec = {"kfront._kfront.Function", sizeof(FunctionObject), 0, Py_TPFLAGS_DEFAULT,
                                    Function_slots};

static PyGetSetDef Launcher_getset[] = {
    {"griddim", Launcher_get_griddim, NULL, "the grid, (x, y, z)", NULL},
    {"blockdim", Launcher_get_blockdim, NULL, "the block, (x, y, z)", NULL},
    {"sharedmem", Launcher_get_sharedmem, NULL, "dynamic shared memory per block, bytes", NULL},
    {"stream", Launcher_get_stream, NULL, "the stream given, or 0", NULL},
    {"pre_launch_callbacks", Launcher_get_callbacks, NULL,
     "callbacks called as callback(kernel, launcher) before each launch of this launcher", NULL},
    {NULL, NULL, NULL, NULL, NULL}};
static PyMethodDef Launcher_methods[] = {
    {"__reduce__", Launcher_reduce, METH_NOARGS, "pickled as its dispatcher and configuration"},
    {NULL, NULL, 0, NULL}};
static PyType_Slot Launcher_slots[] = {{Py_tp_dealloc, Launcher_dealloc}, {Py_tp_call, Launcher_call},
                                       {Py_tp_getset, Launcher_getset}, {Py_tp_methods, Launcher_methods}, {0, NULL}};
static PyType_Spec Launcher_spec = {"kfront._kfront.Launcher", sizeof(LauncherObject), 0, Py_TPFLAGS_DEFAULT,
                                    Launcher_slots};

static PyGetSetDef Kernel_getset[] = {
    {"signature", Kernel_get_signature, NULL, "the Numba signature", NULL},
    {"cache_source", Kernel_get_cache_source, NULL, "'compiled', 'memory' or 'disk'", NULL},
    {"params", Kernel_get_params, NULL, "[(kind, typestr, ndim, layout, readonly)]", NULL},
    {"cooperative", Kernel_get_cooperative, NULL, "whether it synchronises its grid (a cooperative launch)", NULL},
    {"regs_per_thread", Kernel_get_attribute, NULL, "registers per thread (the driver's; not on the simulator)",
     (void *)(intptr_t)ATTR_REGS},
    {"local_mem_per_thread", Kernel_get_attribute, NULL, "local memory per thread, bytes (not on the simulator)",
     (void *)(intptr_t)ATTR_LOCAL},
    {"shared_mem_per_block", Kernel_get_attribute, NULL, "static shared memory per block, bytes",
     (void *)(intptr_t)ATTR_SHARED},
    {"const_mem_size", Kernel_get_attribute, NULL, "constant memory, bytes", (void *)(intptr_t)ATTR_CONST},
    {"max_threads_per_block", Kernel_get_attribute, NULL, "the most threads a block of this kernel may have",
     (void *)(intptr_t)ATTR_MAX_THREADS},
    {NULL, NULL, NULL, NULL, NULL}};
static PyType_Slot Kernel_slots[] = {
    {Py_tp_dealloc, Kernel_dealloc}, {Py_tp_getset, Kernel_getset}, {Py_tp_methods, Kernel_methods}, {0, NULL}};
static PyType_Spec Kernel_spec = {"kfront._kfront.Kernel", sizeof(KernelObject), 0, Py_TPFLAGS_DEFAULT, Kernel_slots};

int ext_program_init_types(PyObject *m) {
  return ext_add_type(m, &Program_spec, &Program_Type) < 0 || ext_add_type(m, &Function_spec, &Function_Type) < 0 ||
                 ext_add_type(m, &Launcher_spec, &Launcher_Type) < 0 || ext_add_type(m, &Kernel_spec, &Kernel_Type) < 0
             ? -1
             : 0;
}
