"""kfront.cuda — numba.cuda's API over kfront's compiler and runtime (numba-cuda's documentation is the spec).

    from kfront import cuda

    @cuda.jit
    def double(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = 2 * a[i]

    double[blocks, threads](a, out)        # NumPy arrays are copied in and back; device arrays used in place

Kernels run on the GPU when a CUDA driver and a device are found, else on kfront's simulator (forced with
KFRONT_SIM=1 or NUMBA_ENABLE_CUDASIM=1). Errors are Python exceptions: kfront.errors.TypingError (located,
with the source line and a caret), IndexError for a failed bounds check, kfront.errors.LaunchError for a bad
launch configuration, kfront.errors.CudaDriverError.
"""
from kfront.cuda import args, intrinsics
from kfront.cuda.args import In, InOut, Out
from kfront.cuda._runtime import (Device, Event, Stream, close, current_context, default_stream, defer_cleanup,
                                  detect, event, event_elapsed_time, external_stream, get_current_device, gpus,
                                  is_available, legacy_default_stream, list_devices, per_thread_default_stream,
                                  require_context, select_device, stream, synchronize)
from kfront.cuda._runtime import is_bfloat16_supported, is_float16_supported, is_fp8_supported
from kfront.cuda.devicearray import (DeviceNDArray, DeviceRecord, ManagedNDArray, MappedNDArray, as_cuda_array,
                                     device_array, device_array_like, from_cuda_array_interface, is_cuda_array,
                                     managed_array, mapped, mapped_array, mapped_array_like, pinned, pinned_array,
                                     pinned_array_like, to_device)
from kfront.cuda.memory import (BaseCUDAMemoryManager, GetIpcHandleMixin, HostOnlyCUDAMemoryManager, MappedMemory,
                                MemoryInfo, MemoryPointer, PinnedMemory, set_memory_manager)
from kfront.cuda.driver import cuda_error
from kfront.errors import CudaSupportError
from kfront.cuda._dlpack import from_dlpack
from kfront.cuda.ipc import IpcArrayHandle, IpcHandle, open_ipc_array
from kfront.cuda.dispatcher import Dispatcher, jit
from kfront.cuda.compiler import (compile, compile_all, compile_for_current_device, compile_ptx,
                                  compile_ptx_for_current_device)
from kfront.cuda.ufuncs import reduce
from kfront.cuda.linking import (LTOIR, Archive, CUSource, Cubin, Fatbin, LinkableCode, Object, PTXSource,
                                 declare_device)
from kfront.cuda import random
from kfront.cuda.vectorizers import guvectorize, vectorize
from kfront import config, types
# numba-cuda 0.30 re-exports numba.cuda.types' type names (`bool` only under the alias: here it would be the builtin's)
globals().update((name, getattr(types, name)) for name in types.CUDA_TYPE_NAMES if name != "bool")

globals().update(intrinsics.make_namespace("numba.cuda"))

Reduce = reduce


def literal_unroll(container):
    """numba-cuda's literal_unroll: on the host the container itself; in a kernel, `for x in literal_unroll(t)`
    runs the loop body once per item of the tuple t, each item with its own type (t may mix types: functions,
    arrays of different ranks, numbers)."""
    return container


def is_supported_version():
    return True


def profile_start():
    pass


def profile_stop():
    pass


@__import__("contextlib").contextmanager
def profiling():
    yield


def __getattr__(name):
    raise AttributeError("kfront: numba.cuda.%s is not supported by kfront" % name)
