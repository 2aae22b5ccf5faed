/* hostbytes.c — kfront._kfront.HostBytes, the base class of kfront.cuda's host memory objects (pinned, mapped and
 * managed memory and their owned pointers): it exports their bytes through the buffer protocol, so that
 * `np.ndarray(n, dtype, buffer=mem)` and `memoryview(mem)` see the memory, as numba-cuda's objects allow. The bytes
 * are the object's own `_bufptr_` (an address) and `_buflen_` (a length), read at each request; the exporter keeps
 * the object alive while a view exists.
 *
 * The buffer slots and Py_buffer are in the limited API from 3.11, and CPython takes them from a type spec since
 * 3.9 (and exports PyBuffer_FillInfo, whose Py_buffer has not changed since 3.3): this one file is compiled against
 * the 3.11 limited API, the rest of the extension against 3.10's, and the binary works on 3.10 too (Python 3.12's
 * __buffer__ would only serve 3.12 and later). */
#undef Py_LIMITED_API
#define Py_LIMITED_API 0x030B0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ext.h"

static int read_size(PyObject *self, const char *name, Py_ssize_t *out) {
  PyObject *v = PyObject_GetAttrString(self, name);
  if (!v) return -1;
  *out = PyLong_AsSsize_t(v);
  Py_DECREF(v);
  return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

static int HostBytes_getbuffer(PyObject *self, Py_buffer *view, int flags) {
  Py_ssize_t ptr = 0, len = 0;
  if (read_size(self, "_bufptr_", &ptr) < 0 || read_size(self, "_buflen_", &len) < 0) return -1;
  if (len < 0 || (len > 0 && !ptr)) {
    PyErr_SetString(PyExc_BufferError, "kfront: this host memory has no bytes to export");
    return -1;
  }
  static char empty;
  return PyBuffer_FillInfo(view, self, len ? (void *)(intptr_t)ptr : &empty, len, 0, flags);
}

static PyType_Slot HostBytes_slots[] = {
    {Py_bf_getbuffer, HostBytes_getbuffer},
    {Py_tp_doc, "The base of kfront.cuda's host memory objects: their bytes (_bufptr_, _buflen_) through the buffer "
                "protocol."},
    {0, NULL}};

static PyType_Spec HostBytes_spec = {"kfront._kfront.HostBytes", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                                     HostBytes_slots};

int ext_hostbytes_init_type(PyObject *m) {
  PyTypeObject *t;
  return ext_add_type(m, &HostBytes_spec, &t);
}
