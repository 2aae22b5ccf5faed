"""DLPack for device arrays: `DeviceNDArray.__dlpack__` exports one (a "dltensor" capsule over a
DLManagedTensor that keeps the array alive until the consumer's deleter runs), and `from_dlpack` imports a
tensor of another library (CuPy, PyTorch) as a DeviceNDArray over the same memory. The structures are DLPack's
(dlpack.h, version 0.8 unversioned ABI, which every producer and consumer accepts); strides are in elements.
The device is the array's (kDLCUDA and its ordinal; an imported CUDA tensor is bound to its device_id). On the
simulator the memory is host memory, so the device is kDLCPU.
"""
import ctypes

import numpy as np

from kfront import errors
from kfront.cuda import _runtime

KDL_CPU, KDL_CUDA, KDL_CUDA_HOST = 1, 2, 3
_CODES = {"i": 0, "u": 1, "f": 2, "b": 6}


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]

# the same two, taking the capsule as a raw pointer (inside the capsule's destructor: no new reference to it)
_is_valid_raw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_IsValid", _api))
_get_pointer_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_GetPointer", _api))

_live = {}   # address of a DLManagedTensor we made -> (the struct, its shape/strides arrays, the array)


@_Deleter
def _delete(managed):
    _live.pop(ctypes.addressof(managed.contents), None)


_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@_CapsuleDestructor
def _capsule_destructor(capsule):
    # a capsule nobody consumed (still named "dltensor") owns its tensor
    if _is_valid_raw(capsule, b"dltensor"):
        _live.pop(_get_pointer_raw(capsule, b"dltensor"), None)


def export(arr):
    """A "dltensor" capsule over the device array (which it keeps alive)."""
    dt = arr.dtype
    if dt.kind not in _CODES:
        raise TypeError("kfront: DLPack cannot describe dtype %s" % dt)
    item = dt.itemsize
    if any(s % item for s in arr.strides):
        raise BufferError("kfront: DLPack needs strides that are multiples of the element size")
    n = arr.ndim
    shape = (ctypes.c_int64 * max(n, 1))(*arr.shape)
    strides = (ctypes.c_int64 * max(n, 1))(*(s // item for s in arr.strides))
    m = DLManagedTensor()
    m.dl_tensor.data = arr._ptr
    m.dl_tensor.device = DLDevice(*arr.__dlpack_device__())
    m.dl_tensor.ndim = n
    m.dl_tensor.dtype = DLDataType(_CODES[dt.kind], 8 * item, 1)
    m.dl_tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    m.dl_tensor.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    m.dl_tensor.byte_offset = 0
    m.deleter = _delete
    addr = ctypes.addressof(m)
    _live[addr] = (m, shape, strides, arr)
    return _api.PyCapsule_New(addr, b"dltensor", ctypes.cast(_capsule_destructor, ctypes.c_void_p))


class _Imported:
    """Owns an imported DLManagedTensor: its deleter runs when the last array over it goes."""

    def __init__(self, managed_ptr, capsule):
        self._managed = ctypes.cast(managed_ptr, ctypes.POINTER(DLManagedTensor))
        self._capsule = capsule

    def __del__(self):
        deleter = self._managed.contents.deleter
        if deleter:
            deleter(self._managed)


def _simulated_device_memory(rt, ptr):
    """Whether the simulator's registry holds ptr (memory it allocated, or host memory registered with it)."""
    try:
        rt.pointer_range(ptr)
        return True
    except errors.KfrontError:  # "not an address of the simulated device's memory"
        return False


def from_dlpack(obj):
    """A DeviceNDArray over the memory of a DLPack producer (an object with __dlpack__, or a capsule)."""
    from kfront.cuda.devicearray import DeviceNDArray
    capsule = obj.__dlpack__() if hasattr(obj, "__dlpack__") else obj
    ptr = _api.PyCapsule_GetPointer(capsule, b"dltensor")
    t = ctypes.cast(ptr, ctypes.POINTER(DLManagedTensor)).contents.dl_tensor
    rt = _runtime.runtime()
    want = KDL_CUDA if rt.mode == "gpu" else KDL_CPU
    if t.device.device_type not in (want, KDL_CUDA_HOST if want == KDL_CUDA else want):
        raise TypeError("kfront: the DLPack tensor lives on device type %d, not kfront's (%d)"
                        % (t.device.device_type, want))
    if want == KDL_CPU and t.data and not _simulated_device_memory(rt, t.data + t.byte_offset):
        # the simulator's device memory is host memory, so its tensors say kDLCPU: a host array's say so too
        raise TypeError("kfront: the DLPack tensor's memory (0x%x) is host memory, not the simulated device's"
                        % (t.data + t.byte_offset))
    codes = {v: k for k, v in _CODES.items()}
    if t.dtype.lanes != 1 or t.dtype.code not in codes:
        raise TypeError("kfront: DLPack dtype code %d bits %d lanes %d is not supported"
                        % (t.dtype.code, t.dtype.bits, t.dtype.lanes))
    dtype = np.dtype(codes[t.dtype.code] + str(t.dtype.bits // 8) if codes[t.dtype.code] != "b" else "?")
    shape = tuple(t.shape[i] for i in range(t.ndim))
    if t.strides:
        strides = tuple(t.strides[i] * dtype.itemsize for i in range(t.ndim))
    else:
        strides = None
    # a CUDA tensor is bound to its device (an id that is no device here is refused); host memory (the
    # simulator's) is any simulated device's
    device = _runtime._check_device(t.device.device_id) if t.device.device_type == KDL_CUDA else None
    _api.PyCapsule_SetName(capsule, b"used_dltensor")
    owner = _Imported(ptr, capsule)
    return DeviceNDArray(shape, strides, dtype, gpu_data=((t.data or 0) + t.byte_offset, owner), device=device)
