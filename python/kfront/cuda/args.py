"""kfront.cuda.args — numba-cuda's kernel argument hints (numba.cuda.args): cuda.In, cuda.Out and cuda.InOut say
how a host array passed to a kernel travels, in place of the default (copied in and back).

    kernel[1, 32](cuda.In(a), cuda.Out(b))   # a copied to the device only; b's device copy is not filled from
                                             # b, and is copied back to b after the kernel

A launch asks each ArgHint argument (tuples' items too) for the value to pass, hint.to_device(retr, stream),
and after the kernel has run calls, in order, the functions that call appended to `retr` (the copies back).
A hint around a device array passes the array itself and copies nothing; a host array must be contiguous
(numba-cuda's auto_device: ValueError otherwise). wrap_arg(value, default=InOut) is numba-cuda's helper for a
dispatcher's `extensions`: the value itself when it is a hint, else default(value).
"""
from kfront.cuda import devicearray as _devicearray


class ArgHint:
    """A kernel argument with how its memory travels; subclasses define to_device."""

    def __init__(self, value):
        self.value = value

    def to_device(self, retr, stream=0):
        """The value to pass to the kernel (usually a device array); appends to `retr` the functions (no
        arguments) to run after the kernel."""
        raise NotImplementedError("%s.to_device" % type(self).__name__)

    @property
    def _numba_type_(self):
        """The type of the value it wraps (kfront.types.typeof, as numba.typeof types a hint)."""
        from kfront import types
        return types.typeof(self.value)

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self.value)


class In(ArgHint):
    """Copied to the device before the kernel, not back."""

    def to_device(self, retr, stream=0):
        devary, _ = _devicearray.auto_device(self.value, stream=stream)
        retr.append(lambda: devary)  # keeps the copy alive until the kernel has run
        return devary


class Out(ArgHint):
    """Not copied to the device; its device copy is copied back after the kernel."""

    copy_input = False

    def to_device(self, retr, stream=0):
        devary, copied = _devicearray.auto_device(self.value, stream=stream, copy=self.copy_input)
        if copied:
            host = self.value
            retr.append(lambda: devary.copy_to_host(host, stream=stream))
        return devary


class InOut(Out):
    """Copied to the device before the kernel and back after it (what a host array gets by default)."""

    copy_input = True


def wrap_arg(value, default=InOut):
    return value if isinstance(value, ArgHint) else default(value)


__all__ = ["In", "Out", "InOut", "ArgHint", "wrap_arg"]
