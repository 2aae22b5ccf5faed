"""cuda.core's memory objects as kernel arguments, as numba-cuda takes them: a `cuda.core.Buffer` is a 1-d C array
of uint8 over its bytes (len(buf) is its size), a `cuda.core.utils.StridedMemoryView` an array of its dtype,
shape and strides (numba-cuda accepts contiguous views only, C, F or any order; readonly as the view says).
Neither has an array interface of its own: the C extension asks `cuda_array_interface_of` (registered with
kfront._kfront.set_interface_adapter by kfront.cuda._runtime) about objects that speak no interface, and it
describes these two as a __cuda_array_interface__ dict; cuda.core is imported only when one is seen."""


def _is_cuda_core(obj):
    module = type(obj).__module__ or ""
    return module == "cuda.core" or module.startswith("cuda.core.")


def cuda_array_interface_of(obj):
    """The __cuda_array_interface__ (version 3) of a cuda.core Buffer or device StridedMemoryView, else None."""
    if not _is_cuda_core(obj):
        return None
    from cuda.core import Buffer
    from cuda.core.utils import StridedMemoryView
    if isinstance(obj, Buffer):
        return {"shape": (int(obj.size),), "typestr": "|u1", "data": (int(obj.handle), False), "strides": None,
                "version": 3}
    if isinstance(obj, StridedMemoryView):
        if not obj.is_device_accessible:
            raise TypeError("a StridedMemoryView of host memory cannot be passed to a kernel (it is not "
                            "device-accessible): pass the array it views")
        layout = obj._layout
        if not (layout.is_contiguous_c or layout.is_contiguous_f or layout.is_contiguous_any):
            raise ValueError("Unsupported StridedMemoryView layout; must be contiguous")
        itemsize = obj.dtype.itemsize
        strides = obj.strides  # in elements (DLPack's convention); None: C order
        return {"shape": tuple(int(n) for n in obj.shape), "typestr": obj.dtype.str,
                "data": (int(obj.ptr), bool(obj.readonly)),
                "strides": None if strides is None else tuple(int(s) * itemsize for s in strides), "version": 3}
    return None
