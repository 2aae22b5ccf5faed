"""Device memory as numba.cuda gives it: DeviceNDArray (shape, strides, dtype, size, ndim, nbytes,
copy_to_host, copy_to_device, slicing into views, getitem/setitem on a stream, reshape, ravel, transpose,
__cuda_array_interface__, __dlpack__, gpu_data), DeviceRecord (a record in device memory: what indexing an array
of a structured dtype down to one element gives), to_device, device_array, device_array_like, pinned_array,
pinned, mapped_array, managed_array (ManagedNDArray), as_cuda_array, is_cuda_array, from_cuda_array_interface; and
numba-cuda's cudadrv.devicearray helpers: auto_device, from_record_like, from_array_like, array_core,
is_contiguous, sentry_contiguous (errmsg_contiguous_buffer), check_array_compatibility, is_cuda_ndarray,
verify_cuda_ndarray_interface, require_cuda_ndarray.

A DeviceNDArray is kfront._kfront.DeviceArray (the kf_array a launch passes as it is) plus this API; its memory
is a Buffer of a device's runtime (freed when the last array over it goes), memory an EMM plugin allocated (when
the device's context has one: kfront.cuda.memory), or a foreign array it keeps alive. `gpu_data` is the memory
the array spans, as a MemoryPointer (kfront.cuda.memory) that keeps it alive.
An array knows its device (its Buffer's; DLPack's device id): its copies go through that device's runtime, a copy
from an array of another device goes device to device (peer access, or staged through host memory), and a
kernel launched on another device refuses it with an error naming both devices.
"""
import contextlib
import ctypes
import operator

import sys

import numpy as np

from kfront import _kfront
from kfront import config as _config
from kfront import types as _types
from kfront.cuda import _runtime, memory

_HTOD, _DTOH, _DTOD = 0, 1, 2


def _c_strides(shape, itemsize):
    strides, s = [], itemsize
    for n in reversed(shape):
        strides.append(s)
        s *= n
    return tuple(reversed(strides))


def _f_strides(shape, itemsize):
    strides, s = [], itemsize
    for n in shape:
        strides.append(s)
        s *= n
    return tuple(strides)


def _span(shape, strides, itemsize):
    """Byte offsets [lo, hi) the elements cover, relative to element [0, ...]."""
    if any(n == 0 for n in shape):
        return 0, 0
    lo = hi = 0
    for n, s in zip(shape, strides):
        if s >= 0:
            hi += (n - 1) * s
        else:
            lo += (n - 1) * s
    return lo, hi + itemsize


def _normalize_shape(shape):
    """A shape as a tuple of ints: an integer or a sequence of them (TypeError for other numbers, as numba-cuda)."""
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(operator.index(n) for n in shape)


def _contiguous(shape, strides, itemsize, order):
    """NumPy's C_CONTIGUOUS / F_CONTIGUOUS flag: the strides of the dimensions longer than 1 are those of a dense
    array in that order (an empty array is both)."""
    if 0 in shape:
        return True
    dims = zip(reversed(shape), reversed(strides)) if order == "C" else zip(shape, strides)
    expected = itemsize
    for extent, stride in dims:
        if extent != 1:
            if stride != expected:
                return False
            expected *= extent
    return True


def _host_pointer(ary):
    return ary.__array_interface__["data"][0]


def _allocate(nbytes):
    """(address, owner, device) of nbytes of new device memory of the current device: a Buffer of its runtime, or
    what the EMM plugin of its context allocates."""
    if nbytes > sys.maxsize:  # (NumPy's words, as numba-cuda's simulator allocates with NumPy)
        raise ValueError("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.")
    rt = _runtime.runtime()
    context = _runtime.device_context(rt.device)
    if memory.is_kfront_manager(context.memory_manager):
        buf = rt.alloc(nbytes)
        return buf.ptr, buf, rt.device
    context.prepare_for_use()  # (a plugin's initialize() before its first memalloc)
    return memory.plugin_allocation(context, nbytes) + (rt.device,)


class DeviceNDArray(_kfront.DeviceArray):
    """An array in device memory (numba.cuda.cudadrv.devicearray.DeviceNDArray)."""

    __cuda_memory__ = True
    __cuda_ndarray__ = True

    def __init__(self, shape, strides, dtype, stream=0, gpu_data=None, readonly=False, device=None):
        shape = _normalize_shape(shape)
        dtype = np.dtype(dtype)
        strides = tuple(int(s) for s in strides) if strides is not None else _c_strides(shape, dtype.itemsize)
        if gpu_data is None:
            lo, hi = _span(shape, strides, dtype.itemsize)
            start, gpu_data, device = _allocate(hi - lo)
            ptr = start - lo
        elif isinstance(gpu_data, _kfront.Buffer):
            ptr = gpu_data.ptr
        elif getattr(gpu_data, "__cuda_memory__", False):  # a memory pointer (kfront.cuda.memory's, a plugin's)
            ptr = int(gpu_data.device_pointer_value or 0)
        else:
            ptr, gpu_data = int(gpu_data[0]), gpu_data[1]
        # the device the memory is on: its Buffer's, else what the caller knows (DLPack's device id); -1 unknown
        # (foreign memory through the CUDA array interface, which names no device: taken to be the launch's own)
        if isinstance(gpu_data, _kfront.Buffer):
            device = gpu_data.runtime.device
        super().__init__(ptr, shape, strides, _types.dtype_typestr(dtype), gpu_data, readonly,
                         -1 if device is None else device)
        self.shape = shape
        self.strides = strides
        self.dtype = dtype
        self.ndim = len(shape)
        self.size = int(np.prod(shape, dtype=np.int64))
        self.stream = stream

    # -- facts --------------------------------------------------------------------------------------------
    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def alloc_size(self):
        owner = self._owner
        return owner.nbytes if isinstance(owner, _kfront.Buffer) else self.nbytes

    @property
    def gpu_data(self):
        """The memory the array spans, as a MemoryPointer (made on each request; equal for the same memory) that
        keeps the allocation alive."""
        start, nbytes, _ = self._contiguous_span()
        context = _runtime.context_of(self._rt().device)
        return memory.MemoryPointer(context, start, nbytes, owner=self._owner)

    def _rt(self):
        """The runtime of the device that holds the memory (the current device's when that is not known)."""
        owner = self._owner
        if isinstance(owner, _kfront.Buffer):
            return owner.runtime
        d = self._device
        return _runtime.runtime(d if d >= 0 else None)

    @property
    def device_ctypes_pointer(self):
        return ctypes.c_void_p(self._ptr)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d device array")
        return self.shape[0]

    @property
    def _numba_type_(self):
        """Its Numba type (numba.typeof): Array(dtype's type — a Record for a structured dtype —, ndim, layout)."""
        if not self.ndim:
            raise AttributeError("_numba_type_")  # a 0-d device array is no kernel argument
        layout = "C" if self.is_c_contiguous() else "F" if self.is_f_contiguous() else "A"
        return _types.Array(_types.from_dtype(self.dtype), self.ndim, layout, readonly=bool(self._readonly))

    def is_c_contiguous(self):
        return _contiguous(self.shape, self.strides, self.dtype.itemsize, "C")

    def is_f_contiguous(self):
        return _contiguous(self.shape, self.strides, self.dtype.itemsize, "F")

    @property
    def flags(self):
        return {"C_CONTIGUOUS": self.is_c_contiguous(), "F_CONTIGUOUS": self.is_f_contiguous()}

    @property
    def __cuda_array_interface__(self):
        # the stream: the array's own (numba-cuda's: the handle of any stream given to it, else None)
        return {"shape": self.shape, "strides": None if self.is_c_contiguous() else self.strides,
                "data": (self._ptr if self.size else 0, bool(self._readonly)), "typestr": self.dtype.str,
                **({"descr": self.dtype.descr} if self.dtype.fields is not None else {}),
                "stream": int(self.stream) if self.stream is not None and self.stream != 0 else None, "version": 3}

    def __repr__(self):
        on = " on device %d" % self._device if self._device >= 0 else ""
        return "<kfront DeviceNDArray shape=%s dtype=%s at %#x%s>" % (self.shape, self.dtype, self._ptr, on)

    # -- copies -------------------------------------------------------------------------------------------
    def _contiguous_span(self):
        lo, hi = _span(self.shape, self.strides, self.dtype.itemsize)
        return self._ptr + lo, hi - lo, lo

    def copy_to_host(self, ary=None, stream=0):
        """The elements in host memory (a new array, or `ary`, of the same shape). As numba-cuda's, a view with a
        negative stride (a[::-1]) is NotImplementedError (kfront's own copies of such views go through
        _copy_out)."""
        if any(s < 0 for s in self.strides):
            raise NotImplementedError("D->H copy not implemented for negative strides: {}".format(self.strides))
        return self._copy_out(ary, stream)

    def _copy_out(self, ary=None, stream=0):
        """copy_to_host of any view, negative strides included."""
        start, nbytes, lo = self._contiguous_span()
        s = _runtime.stream_arg(stream)
        if ary is None:
            raw = np.empty(nbytes, dtype=np.uint8)
            if nbytes:
                self._rt().memcpy(_DTOH, _host_pointer(raw), start, nbytes, s)
            if self.size == 0:
                return np.empty(self.shape, dtype=self.dtype)
            return np.ndarray(self.shape, dtype=self.dtype, buffer=raw, offset=-lo, strides=self.strides)
        if isinstance(ary, np.ndarray) and ary.dtype != self.dtype:  # numba-cuda's check_array_compatibility
            raise TypeError("incompatible dtype: %s vs. %s" % (self.dtype, ary.dtype))
        if not isinstance(ary, np.ndarray) or ary.shape != self.shape:
            raise ValueError("copy_to_host: the host array must have shape %s and dtype %s" % (self.shape, self.dtype))
        if ary.strides == self.strides and ary.flags.writeable:
            if nbytes:
                self._rt().memcpy(_DTOH, _host_pointer(ary) + lo, start, nbytes, s)
        else:
            ary[...] = self._copy_out(stream=stream)
        return ary

    to_host = copy_to_host

    def copy_to_device(self, ary, stream=0):
        """Copies a host array, or another device array, of the same shape into this one. numba-cuda's rules: a
        copy is one range of bytes, so this array, and a device array copied from, must be contiguous (their
        broadcast dimensions aside; else ValueError(errmsg_contiguous_buffer)), and a device array copied from must
        have this one's strides (ValueError "incompatible strides"); a NumPy array copied from must have this one's dtype
        (TypeError "incompatible dtype") and shape, broadcast and 1-long dimensions aside."""
        given_ndarray = isinstance(ary, np.ndarray)
        if not (is_cuda_array(ary) or given_ndarray):
            ary = np.asarray(ary)
        if ary.size == 0:
            return
        sentry_contiguous(self)
        if is_cuda_array(ary):
            src = as_cuda_array(ary)
            sentry_contiguous(src)
            check_array_compatibility(array_core(self), array_core(src))
        elif given_ndarray:
            host_core = array_core(ary)
            if host_core.dtype != self.dtype or host_core.squeeze().shape != array_core(self).squeeze().shape:
                check_array_compatibility(array_core(self), host_core)  # (its strides may differ: copied in order)
        self._copy_in(ary, stream)

    def _copy_in(self, ary, stream):
        """copy_to_device without its rules: into views with gaps and from arrays of any layout, element by
        element where it must (through host memory)."""
        s = _runtime.stream_arg(stream)
        if is_cuda_array(ary):
            src = as_cuda_array(ary)
            if src.shape != self.shape or src.dtype != self.dtype:
                raise ValueError("copy_to_device: shapes or dtypes differ (%s %s vs %s %s)"
                                 % (src.shape, src.dtype, self.shape, self.dtype))
            if src.strides != self.strides or not (self.is_c_contiguous() or self.is_f_contiguous()):
                # the span of a view with gaps holds other arrays' elements, which a copy of the span would
                # overwrite: its elements go through the host, each where it belongs
                self._copy_in(src._copy_out(stream=stream), stream)
                return
            start, nbytes, _ = self._contiguous_span()
            sstart, _, _ = src._contiguous_span()
            if nbytes:
                dst_rt, src_rt = self._rt(), src._rt()
                if dst_rt is src_rt:
                    dst_rt.memcpy(_DTOD, start, sstart, nbytes, s)
                else:  # another device (peer access, or staged through host memory)
                    dst_rt.memcpy_peer(start, src_rt, sstart, nbytes, s)
            return
        host = np.asarray(ary)
        if host.dtype != self.dtype:
            host = host.astype(self.dtype)
        if host.shape != self.shape:
            host = np.broadcast_to(host, self.shape) if host.size == 1 or host.ndim < self.ndim else host
            if host.shape != self.shape:
                raise ValueError("copy_to_device: shape %s into a device array of shape %s" % (host.shape, self.shape))
        gaps = not (self.is_c_contiguous() or self.is_f_contiguous())
        if host.strides != self.strides or gaps:  # (a host array of the same strides has its own gaps' bytes)
            lo, hi = _span(self.shape, self.strides, self.dtype.itemsize)
            staged = np.zeros(hi - lo, dtype=np.uint8)
            view = np.ndarray(self.shape, dtype=self.dtype, buffer=staged, offset=-lo, strides=self.strides)
            if gaps:
                # a view with gaps: the bytes between its elements are read first so they are kept
                start, nbytes, _ = self._contiguous_span()
                if nbytes:
                    self._rt().memcpy(_DTOH, _host_pointer(staged), start, nbytes, s)
            view[...] = host
            host = view
        start, nbytes, lo = self._contiguous_span()
        if nbytes:
            self._rt().memcpy(_HTOD, start, _host_pointer(host) + lo, nbytes, s)

    def __array__(self, dtype=None, copy=None):
        """The elements copied to a new host array (NumPy's np.asarray / np.array): always a copy, so copy=False is
        a ValueError, as numba-cuda's."""
        if copy is False:
            raise ValueError("`copy=False` is not supported. A copy is always created.")
        host = self.copy_to_host()
        return host.astype(dtype) if dtype is not None and np.dtype(dtype) != host.dtype else host

    def squeeze(self, axis=None, stream=0):
        """The view without the dimensions of length 1 (those of `axis`, an int or a tuple; ValueError for one
        longer than 1)."""
        if axis is None:
            axes = [a for a, n in enumerate(self.shape) if n == 1]
        else:
            axes = [a % self.ndim for a in ((axis,) if isinstance(axis, (int, np.integer)) else axis)]
            for a in axes:
                if self.shape[a] != 1:
                    raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
        keep = [a for a in range(self.ndim) if a not in axes]
        return self._view(tuple(self.shape[a] for a in keep), tuple(self.strides[a] for a in keep), 0)

    def copy_to_host_async(self, stream):
        return self.copy_to_host(stream=stream)

    # -- views ----------------------------------------------------------------------------------------
    def _view(self, shape, strides, offset_bytes, dtype=None):
        return DeviceNDArray(shape, strides, dtype if dtype is not None else self.dtype, self.stream,
                             gpu_data=(self._ptr + offset_bytes, self._owner), readonly=self._readonly,
                             device=self._device)

    def __getitem__(self, key):
        return self.getitem(key)

    def getitem(self, key, stream=0):
        """self[key] (numba-cuda's getitem): a view, or one element copied to the host (on stream: then complete
        when it is synchronised) — a DeviceRecord over it for a structured dtype."""
        probe, offset = _probe(self, key)
        if probe.ndim == 0:
            if self.dtype.names is not None:
                return DeviceRecord(self.dtype, stream=stream or self.stream,
                                    gpu_data=(self._ptr + offset, self._owner), device=self._device)
            out = np.empty((), dtype=self.dtype)
            self._rt().memcpy(_DTOH, _host_pointer(out), self._ptr + offset, self.dtype.itemsize,
                              _runtime.stream_arg(stream))
            return out[()]
        return self._view(probe.shape, probe.strides, offset)

    def __setitem__(self, key, value):
        self._setitem(key, value, 0)

    def setitem(self, key, value, stream=0):
        """self[key] = value on stream (numba-cuda's setitem): asynchronous on it, where self[key] = value without
        a stream, on an array of no stream of its own, synchronises the default stream after the copy."""
        self._setitem(key, value, stream)

    def _setitem(self, key, value, stream):
        stream = stream or self.stream
        self._assign(key, value, stream)
        if not stream:
            _runtime.default_stream().synchronize()

    def _assign(self, key, value, stream):
        probe, offset = _probe(self, key)
        target = self._view(probe.shape, probe.strides, offset)
        source = as_cuda_array(value) if is_cuda_array(value) else np.asarray(value, dtype=self.dtype)
        # numba-cuda's rules and messages: the value's dimensions, aligned at the end, are the target's or 1
        if source.ndim > target.ndim:
            raise ValueError("Can't assign %d-D array to %d-D self" % (source.ndim, target.ndim))
        padded = (1,) * (target.ndim - source.ndim) + tuple(source.shape)
        for axis, (extent, given) in enumerate(zip(target.shape, padded)):
            if given != 1 and given != extent:
                raise ValueError("Can't copy sequence with size %d to array axis %d with dimension %d"
                                 % (given, axis, extent))
        if isinstance(source, DeviceNDArray) and tuple(source.shape) == tuple(target.shape):
            target._copy_in(source, stream)
        else:
            host = source._copy_out(stream=stream) if isinstance(source, DeviceNDArray) else source
            # (a copy from pageable host memory has read it when the call returns, on a stream too)
            target._copy_in(np.broadcast_to(host.reshape(padded), target.shape), stream)

    def reshape(self, *newshape, order="C"):
        if len(newshape) == 1 and not isinstance(newshape[0], (int, np.integer)):
            newshape = tuple(newshape[0])
        probe = np.lib.stride_tricks.as_strided(np.empty(1, dtype=self.dtype), self.shape, self.strides)
        try:
            out = probe.reshape(newshape, order=order)
        except ValueError as e:
            raise ValueError("kfront: cannot reshape %s to %s: %s" % (self.shape, newshape, e)) from None
        if not np.shares_memory(out, probe) and out.size > 1:
            raise NotImplementedError("kfront: this reshape needs a copy (the device array is not contiguous "
                                      "in that order)")
        return self._view(out.shape, out.strides, _host_pointer(out) - _host_pointer(probe))

    def ravel(self, order="C"):
        """The 1-D view of a contiguous array (numba-cuda's: C order for "C", F for "F", either for "A"); one
        that is not would need a copy, numba-cuda's NotImplementedError."""
        if order not in ("C", "F", "A"):
            raise ValueError("order not C|F|A")
        if not ((order in "CA" and self.is_c_contiguous()) or (order in "FA" and self.is_f_contiguous())):
            raise NotImplementedError("operation requires copying")
        return self.reshape((self.size,), order="F" if order == "F" or not self.is_c_contiguous() else "C")

    def transpose(self, axes=None):
        """numba-cuda's: the array itself for the identity permutation, else the transpose of a 2-D array as a new
        C-contiguous array (a copy, made by kfront.cuda.kernels.transpose on the array's stream, as numba-cuda's
        kernel makes it: not a view); another rank is NotImplementedError."""
        if axes and tuple(axes) == tuple(range(self.ndim)):
            return self
        if self.ndim != 2:
            raise NotImplementedError("transposing a non-2D DeviceNDArray isn't supported")
        if axes is not None and sorted(axes) != [0, 1]:
            raise ValueError("invalid axes list %r" % (axes,))
        from kfront.cuda import kernels
        return kernels.transpose(self)

    @property
    def T(self):
        return self.transpose()

    def view(self, dtype):
        """The same memory as another dtype (numba-cuda's rules and messages): of another itemsize, the array
        must be C-contiguous and its last axis's bytes a whole number of the new items."""
        dtype = np.dtype(dtype)
        shape, strides = list(self.shape), list(self.strides)
        if dtype.itemsize != self.dtype.itemsize:
            if not self.is_c_contiguous():
                raise ValueError("To change to a dtype of a different size, the array must be C-contiguous")
            if not shape:
                raise ValueError("Changing the dtype of a 0d array is only supported if the itemsize is unchanged")
            shape[-1], rem = divmod(shape[-1] * self.dtype.itemsize, dtype.itemsize)
            if rem:
                raise ValueError("When changing to a larger dtype, its size must be a divisor of the total size in "
                                 "bytes of the last axis of the array.")
            strides[-1] = dtype.itemsize
        return self._view(tuple(shape), tuple(strides), 0, dtype)

    def bind(self, stream=0):
        """The array with stream as its own (its copies and setitem default to it)."""
        view = self._view(self.shape, self.strides, 0)
        view.stream = stream
        return view

    def split(self, section, stream=0):
        if self.ndim != 1 or not self.is_c_contiguous():
            raise ValueError("kfront: split needs a contiguous 1-d array")
        return [self[i:i + section] for i in range(0, self.size, section)]

    def get_ipc_handle(self):
        """An IpcArrayHandle (kfront.cuda.ipc) that pickles, for another process of this machine to open the memory:
        its context's get_ipc_handle(self.gpu_data), the memory manager's."""
        from kfront.cuda import ipc
        return ipc.get_ipc_handle(self)

    # -- DLPack ------------------------------------------------------------------------------------------
    def __dlpack_device__(self):
        """(kDLCUDA, the device) on a GPU; (kDLCPU, 0) on the simulator, whose device memory is host memory."""
        rt = self._rt()
        return (2, rt.device) if rt.mode == "gpu" else (1, 0)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        from kfront.cuda import _dlpack
        return _dlpack.export(self)


def _probe(arr, key):
    """What basic indexing by `key` gives: a NumPy view over a stand-in (never read) with the array's shape
    and strides, and the byte offset of its element [0, ...]. Only slices, integers, None and Ellipsis."""
    k = key if isinstance(key, tuple) else (key,)
    for item in k:
        if not (item is None or item is Ellipsis or isinstance(item, (slice, int, np.integer))):
            raise TypeError("kfront: device arrays take slices and integers as indices, not %r" % (item,))
    base = np.empty(1, dtype=arr.dtype)
    probe = np.lib.stride_tricks.as_strided(base, arr.shape, arr.strides)
    if Ellipsis not in k:
        k = k + (Ellipsis,)  # a view even when every axis gets an integer: nothing is read
    out = probe[k]
    return out, _host_pointer(out) - _host_pointer(base)


# ---- making device arrays ----------------------------------------------------------------------------------

def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    shape = _normalize_shape(shape)
    dtype = np.dtype(dtype)
    if strides is None:
        strides = _f_strides(shape, dtype.itemsize) if order == "F" else _c_strides(shape, dtype.itemsize)
    return DeviceNDArray(shape, strides, dtype, stream)


def _like(ary):
    """(shape, dtype, strides, order) of a new contiguous array like ary, as numba-cuda's *_array_like make it:
    C order unless ary is F-contiguous only; a 2-d or more array that is neither gets strides that keep its
    dimensions' order in memory (NumPy's empty_like: the dimension of the smallest stride varies fastest)."""
    ary = ary if is_cuda_array(ary) or isinstance(ary, np.ndarray) else np.asarray(ary)
    dtype = np.dtype(ary.dtype)
    c, f = _is_c(ary), _is_f(ary)
    strides = None
    if not (c or f or ary.ndim <= 1):
        strides = [0] * ary.ndim
        step = dtype.itemsize
        for axis in sorted(range(ary.ndim), key=lambda a: ary.strides[a]):
            strides[axis] = step
            step *= ary.shape[axis]
        strides = tuple(strides)
    return ary.shape, dtype, strides, "F" if f and not c else "C"


def from_array_like(ary, stream=0, gpu_data=None):
    """numba-cuda's devicearray.from_array_like: a device array of ary's shape, strides and dtype (new memory, not
    copied from ary, unless gpu_data, a device array's gpu_data, gives it)."""
    return DeviceNDArray(ary.shape, ary.strides, ary.dtype, stream=stream, gpu_data=gpu_data)


def device_array_like(ary, stream=0):
    shape, dtype, strides, order = _like(ary)
    return device_array(shape, dtype, strides=strides, order=order, stream=stream)


def pinned_array_like(ary):
    shape, dtype, strides, order = _like(ary)
    return pinned_array(shape, dtype, strides=strides, order=order)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    shape, dtype, strides, order = _like(ary)
    return mapped_array(shape, dtype, strides=strides, order=order, stream=stream, portable=portable, wc=wc)


def _is_c(ary):
    return ary.flags["C_CONTIGUOUS"] if isinstance(ary, np.ndarray) else ary.is_c_contiguous()


def _is_f(ary):
    return ary.flags["F_CONTIGUOUS"] if isinstance(ary, np.ndarray) else ary.is_f_contiguous()


def to_device(obj, stream=0, copy=True, to=None):
    """A device array holding a copy of a host array (or the copy into `to`)."""
    if to is not None:
        to.copy_to_device(obj, stream=stream)
        return to
    if is_cuda_array(obj):
        src = as_cuda_array(obj)
        dst = device_array(src.shape, src.dtype, strides=src.strides if src.is_c_contiguous() or src.is_f_contiguous()
                           else None, stream=stream)
        dst._copy_in(src, stream)
        return dst
    host = np.asarray(obj)
    if host.dtype.byteorder == ">":
        host = host.astype(host.dtype.newbyteorder("="))
    core = array_core(host)
    if not (core.flags["C_CONTIGUOUS"] or core.flags["F_CONTIGUOUS"]):
        # (numba-cuda refuses such an array: errmsg_contiguous_buffer; kfront copies it contiguous first)
        host = np.ascontiguousarray(host)
    # a broadcast array keeps its strides, as numba-cuda's: only its core is in device memory (layout "A")
    dst = DeviceNDArray(host.shape, host.strides, host.dtype, stream)
    if copy:
        dst.copy_to_device(host, stream=stream)
    return dst


# ---- pinned and mapped host memory ----------------------------------------------------------------------

class _HostMemory:
    """A NumPy array's base over pinned memory: keeps the Buffer alive."""

    def __init__(self, buf, shape, strides, dtype):
        self.buffer = buf
        self.__array_interface__ = {"data": (buf.ptr, False), "shape": shape, "strides": strides,
                                    "typestr": dtype.str, "version": 3}


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    shape = _normalize_shape(shape)
    dtype = np.dtype(dtype)
    if strides is None:
        strides = _f_strides(shape, dtype.itemsize) if order == "F" else _c_strides(shape, dtype.itemsize)
    lo, hi = _span(shape, strides, dtype.itemsize)
    buf = _runtime.runtime().host_alloc(max(hi - lo, 1))
    return np.asarray(_HostMemory(buf, shape, tuple(strides), dtype))


class _HostDeviceArray(np.ndarray):
    """A host array that kernels use in place through its __cuda_array_interface__ (memory the device reaches),
    with a `stream` of its own (numba-cuda's; in the interface), kept by its views. CUDA memory too
    (__cuda_memory__, device_ctypes_pointer: cudadrv.driver's copies and memset take it)."""

    stream = 0
    __cuda_memory__ = True

    @property
    def device_ctypes_pointer(self):
        return ctypes.c_void_p(self._device_address(self.__array_interface__["data"][0]) if self.size else None)

    @property
    def _cuda_memsize_(self):
        lo, hi = _span(self.shape, self.strides, self.dtype.itemsize)
        return hi - lo

    def __array_finalize__(self, obj):
        self.stream = getattr(obj, "stream", 0)

    def _device_address(self, host_ptr):
        return host_ptr

    @property
    def __cuda_array_interface__(self):
        base_ptr = self.__array_interface__["data"][0]
        return {"shape": self.shape, "strides": self.strides, "typestr": self.dtype.str,
                "data": (self._device_address(base_ptr) if self.size else 0, False),
                "stream": int(self.stream) if self.stream is not None and self.stream != 0 else None,
                "version": 3}


class MappedNDArray(_HostDeviceArray):
    """A host array in mapped pinned memory: kernels use it in place through its __cuda_array_interface__."""

    def _device_address(self, host_ptr):
        return _runtime.runtime().host_device_pointer(host_ptr)


class ManagedNDArray(_HostDeviceArray):
    """A host array in managed memory (numba-cuda's managed_array): the host and kernels use the same memory, at
    the same address."""


def _host_array(cls, buf, shape, strides, dtype, stream):
    ary = np.asarray(_HostMemory(buf, shape, tuple(strides), dtype)).view(cls)
    ary.stream = stream
    return ary


def _layout(shape, dtype, strides, order):
    shape = _normalize_shape(shape)
    dtype = np.dtype(dtype)
    if strides is None:
        strides = _f_strides(shape, dtype.itemsize) if order == "F" else _c_strides(shape, dtype.itemsize)
    lo, hi = _span(shape, strides, dtype.itemsize)
    return shape, dtype, strides, hi - lo


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False, wc=False):
    shape, dtype, strides, nbytes = _layout(shape, dtype, strides, order)
    buf = _runtime.runtime().host_alloc(max(nbytes, 1), True)
    return _host_array(MappedNDArray, buf, shape, strides, dtype, stream)


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0, attach_global=True):
    """An array in managed memory (cuMemAllocManaged; the simulator's device memory, which is host memory): a
    NumPy array on the host that kernels use in place. attach_global: reachable from every stream at once, else
    attached to the host first."""
    shape, dtype, strides, nbytes = _layout(shape, dtype, strides, order)
    buf = _runtime.runtime().managed_alloc(max(nbytes, 1), bool(attach_global))
    return _host_array(ManagedNDArray, buf, shape, strides, dtype, stream)


@contextlib.contextmanager
def pinned(*arylist):
    """Pins the host arrays' memory for the duration of the block."""
    rt = _runtime.runtime()
    done = []
    try:
        for a in arylist:
            if a.nbytes:
                rt.host_register(_host_pointer(a), a.nbytes)
                done.append(a)
        yield
    finally:
        for a in done:
            rt.host_unregister(_host_pointer(a))


@contextlib.contextmanager
def mapped(*arylist, **kws):
    rt = _runtime.runtime()
    done, views = [], []
    try:
        for a in arylist:
            rt.host_register(_host_pointer(a), a.nbytes, True)
            done.append(a)
            views.append(from_cuda_array_interface({"shape": a.shape, "strides": a.strides, "typestr": a.dtype.str,
                                                    "data": (rt.host_device_pointer(_host_pointer(a)), False),
                                                    "version": 3}, owner=a))
        yield views[0] if len(views) == 1 else views
    finally:
        for a in done:
            rt.host_unregister(_host_pointer(a))


# ---- records in device memory ---------------------------------------------------------------------------------

class DeviceRecord(DeviceNDArray):
    """One record of a structured dtype in device memory (numba-cuda's DeviceRecord), of shape (): rec[name] is
    its field `name` copied to the host (a DeviceRecord for a nested record, a DeviceNDArray for an array field, in
    place), rec[name] = value writes it; getitem / setitem do the same on a stream; copy_to_device and copy_to_host
    take a NumPy record (np.void, np.record). A kernel takes it as a record (its _numba_type_)."""

    def __init__(self, dtype, stream=0, gpu_data=None, device=None):
        super().__init__((), (), dtype, stream, gpu_data=gpu_data, device=device)

    @property
    def flags(self):
        return {"C_CONTIGUOUS": True, "F_CONTIGUOUS": True}

    @property
    def _numba_type_(self):
        return _types.from_dtype(self.dtype)

    def _field(self, name):
        if self.dtype.names is None or name not in self.dtype.names:
            raise KeyError(name)
        typ, offset = self.dtype.fields[name][:2]
        return typ, self._ptr + offset

    def getitem(self, key, stream=0):
        typ, ptr = self._field(key)
        stream = stream or self.stream
        if typ.shape:  # an array field: a device array over it
            sub = typ.subdtype[0]
            return DeviceNDArray(typ.shape, _c_strides(typ.shape, sub.itemsize), sub, stream,
                                 gpu_data=(ptr, self._owner), device=self._device)
        if typ.names is not None:
            return DeviceRecord(typ, stream, gpu_data=(ptr, self._owner), device=self._device)
        host = np.empty(1, dtype=typ)
        self._rt().memcpy(_DTOH, _host_pointer(host), ptr, typ.itemsize, _runtime.stream_arg(stream))
        return host[0]

    def _assign(self, key, value, stream):
        typ, ptr = self._field(key)
        if typ.shape or typ.names is not None:
            target = self.getitem(key, stream)
            if typ.shape:
                target._assign(Ellipsis, value, stream)
            else:
                target.copy_to_device(value, stream=stream)
            return
        host = np.array(value, dtype=typ)
        self._rt().memcpy(_HTOD, ptr, _host_pointer(host), typ.itemsize, _runtime.stream_arg(stream))

    def copy_to_host(self, ary=None, stream=0):
        """The record in host memory: a new 0-d array, or copied into `ary` (a NumPy record, as numba-cuda writes
        into it)."""
        if isinstance(ary, np.void):
            if ary.dtype != self.dtype:
                raise TypeError("incompatible dtype: %s vs. %s" % (ary.dtype, self.dtype))
            self._rt().memcpy(_DTOH, _host_pointer(np.frombuffer(ary, dtype=np.uint8)), self._ptr,
                              self.dtype.itemsize, _runtime.stream_arg(stream))
            return ary
        return super().copy_to_host(ary, stream)

    def __repr__(self):
        return "<kfront DeviceRecord dtype=%s at %#x>" % (self.dtype, self._ptr)


def from_record_like(rec, stream=0, gpu_data=None):
    """A DeviceRecord of the dtype of rec (a NumPy record or a DeviceRecord), uninitialised (over gpu_data: that
    memory)."""
    return DeviceRecord(rec.dtype, stream=stream, gpu_data=gpu_data)


def from_array_like(ary, stream=0, gpu_data=None):
    """A DeviceNDArray of the shape, strides and dtype of ary, uninitialised (over gpu_data: that memory)."""
    return DeviceNDArray(ary.shape, ary.strides, ary.dtype, stream=stream, gpu_data=gpu_data)


# ---- numba-cuda's cudadrv.devicearray helpers ----------------------------------------------------------

errmsg_contiguous_buffer = ("Array contains non-contiguous buffer and cannot be transferred as a single memory "
                            "region. Please ensure contiguous buffer with numpy .ascontiguousarray()")


def array_core(ary):
    """The view of ary without its broadcast (stride 0) dimensions."""
    if not ary.strides or not ary.size:
        return ary
    return ary[tuple(0 if stride == 0 else slice(None) for stride in ary.strides)]


def is_contiguous(ary):
    """Whether ary is C-contiguous, its broadcast and 1-long dimensions ignored."""
    size = ary.dtype.itemsize
    for extent, stride in zip(reversed(ary.shape), reversed(ary.strides)):
        if extent > 1 and stride != 0:
            if stride != size:
                return False
            size *= extent
    return True


def sentry_contiguous(ary):
    """ValueError(errmsg_contiguous_buffer) unless ary's core is C- or F-contiguous."""
    core = array_core(ary)
    if not core.flags["C_CONTIGUOUS"] and not core.flags["F_CONTIGUOUS"]:
        raise ValueError(errmsg_contiguous_buffer)


def check_array_compatibility(ary1, ary2):
    """TypeError for different dtypes, ValueError for different shapes or strides (1-long dimensions ignored)."""
    sq1, sq2 = ary1.squeeze(), ary2.squeeze()
    if ary1.dtype != ary2.dtype:
        raise TypeError("incompatible dtype: %s vs. %s" % (ary1.dtype, ary2.dtype))
    if sq1.shape != sq2.shape:
        raise ValueError("incompatible shape: %s vs. %s" % (ary1.shape, ary2.shape))
    if ary1.size and sq1.strides != sq2.strides:
        raise ValueError("incompatible strides: %s vs. %s" % (ary1.strides, ary2.strides))


def auto_device(obj, stream=0, copy=True, user_explicit=False):
    """(a device array for obj, whether it was made here): obj itself when it is device memory (an object with
    __cuda_array_interface__ as a DeviceNDArray over it), else a new device array of its values (copied when
    `copy`); ValueError(errmsg_contiguous_buffer) for a host array that is not contiguous. (user_explicit: as
    numba-cuda's signature; kfront's launches warn of implicit copies themselves.)"""
    if isinstance(obj, DeviceNDArray):
        return obj, False
    if is_cuda_array(obj):
        return as_cuda_array(obj), False
    if isinstance(obj, np.void):
        rec = from_record_like(obj, stream=stream)
        if copy:
            rec.copy_to_device(obj, stream=stream)
        return rec, True
    obj = np.asarray(obj)
    sentry_contiguous(obj)
    return to_device(obj, stream=stream, copy=copy), True


def is_cuda_ndarray(obj):
    return getattr(obj, "__cuda_ndarray__", False)


def require_cuda_ndarray(obj):
    if not is_cuda_ndarray(obj):
        raise ValueError("require an cuda ndarray object")


def verify_cuda_ndarray_interface(obj):
    """ValueError unless obj is a CUDA ndarray; AttributeError unless its shape and strides are tuples, its dtype
    a NumPy dtype and its size an int."""
    require_cuda_ndarray(obj)
    for attr, kind in (("shape", tuple), ("strides", tuple), ("dtype", np.dtype), ("size", int)):
        if not hasattr(obj, attr):
            raise AttributeError(attr)
        if not isinstance(getattr(obj, attr), kind):
            raise AttributeError("%s must be of type %s" % (attr, kind))


# ---- foreign device arrays ---------------------------------------------------------------------------------

def is_cuda_array(obj):
    return isinstance(obj, _kfront.DeviceArray) or hasattr(obj, "__cuda_array_interface__")


def from_cuda_array_interface(desc, owner=None, sync=True):
    """A DeviceNDArray over the memory an interface dict describes (used in place; `owner` kept alive)."""
    if desc.get("mask") is not None:
        raise NotImplementedError("Masked arrays are not supported")
    shape = tuple(desc["shape"])
    dtype = np.dtype(desc["typestr"])
    strides = desc.get("strides")
    strides = tuple(strides) if strides is not None else _c_strides(shape, dtype.itemsize)
    ptr, readonly = desc["data"]
    stream_ptr = desc.get("stream")
    # the producer's stream becomes the array's (an external stream), synchronised first when `sync` (and
    # config.CUDA_ARRAY_INTERFACE_SYNC, as numba-cuda's)
    stream = _runtime.external_stream(stream_ptr) if stream_ptr is not None else 0
    if sync and _config.CUDA_ARRAY_INTERFACE_SYNC and stream_ptr not in (None, 0, 1, 2):
        stream.synchronize()
    # the interface names no device: the GPU's driver says whose memory it is (the simulator cannot: unknown)
    device = _runtime.runtime().pointer_device(ptr) if ptr else -1
    return DeviceNDArray(shape, strides, dtype, stream=stream, gpu_data=(ptr, owner), readonly=bool(readonly),
                         device=device if device >= 0 else None)


def as_cuda_array(obj, sync=True):
    """The object as a DeviceNDArray (itself when it is one), through __cuda_array_interface__, else DLPack of device
    memory; numba-cuda's TypeError for anything else, a NumPy array (host memory) included."""
    if isinstance(obj, DeviceNDArray):
        return obj
    interface = getattr(obj, "__cuda_array_interface__", None)  # as numba-cuda: a property's own error propagates
    if interface is not None:
        return from_cuda_array_interface(interface, owner=obj, sync=sync)
    if not isinstance(obj, np.ndarray) and hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        from kfront.cuda import _dlpack
        return _dlpack.from_dlpack(obj)
    raise TypeError("kfront: *obj* doesn't implement the cuda array interface (%r is not device memory: no "
                    "__cuda_array_interface__, nor DLPack of device memory)" % (type(obj),))
