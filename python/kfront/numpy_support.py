"""kfront.numpy_support — the host-side names of numba-cuda's numba.cuda.np.numpy_support beyond from_dtype/as_dtype
(which are kfront.types'): numpy_version, and carray/farray, NumPy views over the memory a ctypes pointer points
to. In kernels they are arrays over a pointer (a CPointer value), as numba-cuda compiles them."""
import ctypes

import numpy as np

numpy_version = tuple(map(int, np.__version__.split(".")[:2]))


def carray(ptr, shape, dtype=None):
    """A NumPy array over the memory ptr (a ctypes pointer, or c_void_p with dtype given) points to, of the
    given shape in C order; dtype, when given with a typed pointer, must be the pointer's."""
    ptr = getattr(ptr, "_as_parameter_", ptr)
    if dtype is not None:
        dtype = np.dtype(dtype)
    if isinstance(ptr, ctypes.c_void_p):
        if dtype is None:
            raise TypeError("explicit dtype required for void* argument")
        address = ptr.value
    elif isinstance(ptr, ctypes._Pointer):
        ptr_dtype = np.dtype(ptr._type_)
        if dtype is not None and dtype != ptr_dtype:
            raise TypeError("mismatching dtype '%s' for pointer %s" % (dtype, ptr))
        dtype = ptr_dtype
        address = ctypes.cast(ptr, ctypes.c_void_p).value
    else:
        raise TypeError("expected a ctypes pointer, got %r" % (ptr,))
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    nbytes = dtype.itemsize * int(np.prod(shape, dtype=np.intp))
    if nbytes and not address:
        raise ValueError("carray: a NULL pointer")
    buffer = (ctypes.c_byte * nbytes).from_address(address) if nbytes else bytearray()
    return np.frombuffer(buffer, dtype).reshape(shape)


def farray(ptr, shape, dtype=None):
    """carray's view in Fortran order."""
    if not isinstance(shape, int):
        shape = tuple(shape)[::-1]
    return carray(ptr, shape, dtype).T
