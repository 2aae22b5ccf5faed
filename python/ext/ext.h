/* ext.h — the pieces of kfront's Python extension (`kfront._kfront`, CPython's stable ABI, 3.10+) shared
 * between its files:
 *   module.c   the module, the exception mapping (kfront's error kinds -> the Python classes kfront.errors
 *              registers), the Runtime type (a kf_context + kf_runtime), memory, streams, events;
 *   convert.c  Python objects -> kf_arg (kernel arguments: DeviceArray, __cuda_array_interface__,
 *              __array_interface__, Python and NumPy scalars) and -> kf_value (bound globals);
 *   program.c  Program, Function, Launcher (the launch fast path), Kernel, and compile() (kir/LLVM/PTX text);
 *   darray.c   DeviceArray, the base type of kfront.cuda.DeviceNDArray: a kf_array and the object that owns
 *              its memory;
 *   hostbytes.c  HostBytes, the base of kfront.cuda's host memory objects: their bytes as a buffer.
 * Everything here runs with the GIL held, except the calls into the library that touch no Python object — waits
 * (synchronize), copies, compiles and launches — which release it (a compile's callbacks into Python, the
 * overload resolver, take it again). */
#ifndef KFRONT_PYTHON_EXT_H
#define KFRONT_PYTHON_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <signal.h>

#include "kfront/kfront.h"

/* ---- module.c ---- */
typedef struct RuntimeObject {
  PyObject_HEAD
  kf_context *ctx;
  kf_runtime *rt;
} RuntimeObject;

typedef struct StreamObject {
  PyObject_HEAD
  RuntimeObject *runtime;   /* strong */
  kf_stream *s;
  int external;             /* wraps someone else's CUstream */
} StreamObject;

extern PyTypeObject *Runtime_Type, *Stream_Type, *Event_Type, *Buffer_Type;

/* Raises the Python exception for the runtime context's first error (or `fallback`'s status when there is
 * none), with the rendered diagnostics as its text, and clears the diagnostics. Returns NULL. */
PyObject *ext_raise(kf_context *ctx, kf_status st);
/* After a call that succeeded: the warnings ctx holds (a compile's, a launch's) as one kfront.errors.KfrontWarning
 * (numba's NumbaWarning), then ctx's diagnostics cleared. -1 when the warning became an exception. */
int ext_flush_warnings(kf_context *ctx);
/* Ctrl-C during a long call into the library (a simulator launch, with the GIL released): ext_interruptible_begin,
 * on the main thread of a simulator runtime, chains a SIGINT handler that sets the interrupt flag the simulator
 * looks at (kf_set_interrupt_flag) before Python's own, then runs the signals already pending (a Ctrl-C that came
 * just before, which Python has not yet turned into KeyboardInterrupt): -1 with that exception (the call is not to
 * be made; ext_interruptible_end must still be called), else 0. ext_interruptible_end restores the handler and
 * returns -1 with KeyboardInterrupt (from Python's handler, PyErr_CheckSignals) when the signal came, else 0. GIL
 * held for both. */
typedef struct ExtInterruptible {
  int active, installed;
  struct sigaction previous;
} ExtInterruptible;
int ext_interruptible_begin(ExtInterruptible *st, kf_runtime *rt);
int ext_interruptible_end(ExtInterruptible *st);
/* Creates a type from spec and adds it to m under its short name. */
int ext_add_type(PyObject *m, PyType_Spec *spec, PyTypeObject **out);
/* The kf_stream of a Python stream argument: None, 0 or a Stream (NULL with an exception otherwise;
 * *ok tells them apart). */
kf_stream *ext_stream_arg(PyObject *o, int *ok);

/* ---- convert.c ---- */
/* A kernel argument (host arrays are read through __array_interface__, whose pointer stays valid while the
 * caller holds the object). An array from __cuda_array_interface__ whose producer named a stream other than
 * the default ones sets *producer (when not NULL) to it: the caller waits for that stream before using it. */
int ext_arg_from_object(PyObject *o, kf_arg *out, const char *what, Py_ssize_t index, uintptr_t *producer);
/* The launch's fast path of ext_arg_from_object for the common scalars, with no other check first: an exact
 * float or int (int64), or a NumPy scalar of a type seen before. 1 converted, 0 not such a value (the caller
 * takes the general path), -1 with an exception. */
int ext_scalar_fast(PyObject *o, kf_arg *out);
/* set_interface_adapter(callable or None): who describes objects without an array interface (cuda.core's). */
PyObject *ext_set_interface_adapter(PyObject *self, PyObject *adapter);
/* *spelling: NULL when o (a tuple) is no namedtuple, else its class and fields spelt as kf_arg.type says
 * (kfront._source.namedtuple_spelling, remembered per class); -1 with an exception. */
int ext_namedtuple_spelling(PyObject *o, const char **spelling);
/* A Python number of a kf_arg scalar. */
PyObject *ext_scalar_to_object(const kf_arg *a);
/* A type tree (kf_signature_parse's, kf_module_function_result's) as nested tuples of str, int, bool and None. */
PyObject *ext_tree_to_object(const kf_value *v);
/* kf_dtype of a NumPy typestr ("<f4", "|b1"); -1 (with an exception) when kfront has no such type. */
int ext_dtype_from_typestr(const char *ts, kf_dtype *out);
/* Whether a dtype object is ml_dtypes.bfloat16 (by its scalar type's module and name; ml_dtypes is not imported). */
int ext_dtype_is_bfloat16(PyObject *dtype);
/* The NumPy typestr of a dtype ("<f4"). */
const char *ext_typestr(kf_dtype t);
/* Bound values: the tagged tuples kfront.cuda builds — ('scalar', v), ('tuple', [...][, class, fields]) (a namedtuple
 * with its class's name and field names), ('tuple_class', class, fields), ('array', a),
 * ('namespace', {name: value}[, enum type]), ('pymodule', name, {attribute: value}), ('module', path), ('path', path), ('function', source, name) — into
 * kf_values (an enum member is ('scalar', value, its type spelling), an enum class a namespace with it)
 * allocated in `pool` (freed with ext_pool_free; strings point into the Python objects, which the caller
 * keeps alive). */
typedef struct ExtPool {
  void **blocks;
  size_t n, cap;
} ExtPool;
void *ext_pool_alloc(ExtPool *p, size_t bytes);
void ext_pool_free(ExtPool *p);
int ext_value_from_object(PyObject *o, kf_value *out, ExtPool *pool, unsigned depth);
/* A host or device array of an object with __cuda_array_interface__ / __array_interface__ (array args of
 * the host functions). */
int ext_array_from_object(PyObject *o, kf_array *out, const char *what, uintptr_t *producer);

/* ---- darray.c ---- */
typedef struct DeviceArrayObject {
  PyObject_HEAD
  kf_array a;               /* memory KF_MEMORY_DEVICE */
  PyObject *owner;          /* keeps the memory alive (a Buffer, a foreign array); may be NULL */
} DeviceArrayObject;
extern PyTypeObject *DeviceArray_Type;
int ext_darray_init_type(PyObject *m);

/* ---- hostbytes.c ---- */
/* kfront._kfront.HostBytes: the base of the host memory objects, their bytes through the buffer protocol. */
int ext_hostbytes_init_type(PyObject *m);

/* ---- program.c ---- */
int ext_program_init_types(PyObject *m);
extern PyMethodDef ext_program_functions[];

#endif
