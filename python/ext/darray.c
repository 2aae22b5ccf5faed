/* darray.c — DeviceArray, the C base of kfront.cuda.DeviceNDArray: the kf_array a launch passes as it is
 * (no attribute lookups on the launch path) and a reference to the object that owns the memory. The Python
 * subclass adds numba.cuda's API (shape, copy_to_host, slicing, ...). */
#include <string.h>

#include "ext.h"

PyTypeObject *DeviceArray_Type;

/* DeviceArray(ptr, shape, strides, typestr, owner=None, readonly=False, device=-1) */
static int DeviceArray_init(PyObject *o, PyObject *args, PyObject *kw) {
  static char *names[] = {"ptr", "shape", "strides", "typestr", "owner", "readonly", "device", NULL};
  DeviceArrayObject *self = (DeviceArrayObject *)o;
  unsigned long long ptr;
  PyObject *shape, *strides, *owner = Py_None;
  const char *ts;
  int readonly = 0, device = -1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "KO!O!s|Opi", names, &ptr, &PyTuple_Type, &shape, &PyTuple_Type,
                                   &strides, &ts, &owner, &readonly, &device))
    return -1;
  kf_array a;
  memset(&a, 0, sizeof a);
  a.memory = KF_MEMORY_DEVICE;
  a.data = (void *)(uintptr_t)ptr;
  a.readonly = readonly;
  kf_array_set_device(&a, device);
  if (ext_dtype_from_typestr(ts, &a.dtype) < 0) return -1;
  Py_ssize_t n = PyTuple_Size(shape);
  if (n > KF_MAX_RANK || PyTuple_Size(strides) != n) {
    PyErr_Format(PyExc_ValueError, "DeviceArray: %zd dimensions with %zd strides (at most %d)", n,
                 PyTuple_Size(strides), KF_MAX_RANK);
    return -1;
  }
  a.ndim = (unsigned)n;
  for (Py_ssize_t i = 0; i < n; i++) {
    a.shape[i] = PyLong_AsLongLong(PyTuple_GetItem(shape, i));
    a.strides[i] = PyLong_AsLongLong(PyTuple_GetItem(strides, i));
    if (PyErr_Occurred()) return -1;
    if (a.shape[i] < 0) {
      PyErr_Format(PyExc_ValueError, "DeviceArray: negative extent %lld", (long long)a.shape[i]);
      return -1;
    }
  }
  self->a = a;
  PyObject *old = self->owner;
  self->owner = owner == Py_None ? NULL : Py_NewRef(owner);
  Py_XDECREF(old);
  return 0;
}

static int DeviceArray_traverse(PyObject *o, visitproc visit, void *arg) {
  Py_VISIT(((DeviceArrayObject *)o)->owner);
  Py_VISIT((PyObject *)Py_TYPE(o));
  return 0;
}

static int DeviceArray_clear(PyObject *o) {
  DeviceArrayObject *self = (DeviceArrayObject *)o;
  PyObject *old = self->owner;
  self->owner = NULL;
  Py_XDECREF(old);
  return 0;
}

static void DeviceArray_dealloc(PyObject *o) {
  PyTypeObject *tp = Py_TYPE(o);
  PyObject_GC_UnTrack(o);
  DeviceArray_clear(o);
  ((freefunc)PyType_GetSlot(tp, Py_tp_free))(o);
  Py_DECREF(tp);
}

static PyObject *get_ptr(PyObject *o, void *c) {
  (void)c;
  return PyLong_FromUnsignedLongLong((uintptr_t)((DeviceArrayObject *)o)->a.data);
}
static PyObject *get_owner(PyObject *o, void *c) {
  (void)c;
  PyObject *ow = ((DeviceArrayObject *)o)->owner;
  return Py_NewRef(ow ? ow : Py_None);
}
static PyObject *get_typestr(PyObject *o, void *c) {
  (void)c;
  return PyUnicode_FromString(ext_typestr(((DeviceArrayObject *)o)->a.dtype));
}
static PyObject *get_readonly(PyObject *o, void *c) {
  (void)c;
  return PyBool_FromLong(((DeviceArrayObject *)o)->a.readonly);
}
static PyObject *get_device(PyObject *o, void *c) {
  (void)c;
  return PyLong_FromLong(kf_array_get_device(&((DeviceArrayObject *)o)->a));
}

static PyGetSetDef DeviceArray_getset[] = {
    {"_ptr", get_ptr, NULL, "the device address of element [0, ...]", NULL},
    {"_owner", get_owner, NULL, "what keeps the memory alive", NULL},
    {"_typestr", get_typestr, NULL, "the element type as a NumPy typestr", NULL},
    {"_readonly", get_readonly, NULL, "whether kernels may write it", NULL},
    {"_device", get_device, NULL, "the device the memory is on (-1: not said; launches then take it as theirs)",
     NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot DeviceArray_slots[] = {
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_init, DeviceArray_init},
    {Py_tp_dealloc, DeviceArray_dealloc},
    {Py_tp_traverse, DeviceArray_traverse},
    {Py_tp_clear, DeviceArray_clear},
    {Py_tp_getset, DeviceArray_getset},
    {Py_tp_doc, "DeviceArray(ptr, shape, strides, typestr, owner=None, readonly=False, device=-1): device memory "
                "(of device `device`) a kernel takes as an array argument."},
    {0, NULL}};
static PyType_Spec DeviceArray_spec = {"kfront._kfront.DeviceArray", sizeof(DeviceArrayObject), 0,
                                       Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
                                       DeviceArray_slots};

int ext_darray_init_type(PyObject *m) { return ext_add_type(m, &DeviceArray_spec, &DeviceArray_Type); }
