"""numba-cuda's FP8 bindings (numba.cuda._internal.cuda_fp8, over CUDA's cuda_fp8.h) on the host.

The types fp8_e5m2, fp8_e4m3, fp8_e8m0 and their x2 / x4 forms, and the conversion intrinsics cvt_float_to_fp8,
cvt_double_to_e8m0, ..., are names kernels use (kfront.cuda.intrinsics.KernelOnly objects: calling one on the host
raises, as in numba-cuda); kfront's compiler types them by their numba path (frontend/lower_fp8.c). The enums
saturation_t and fp8_interpretation_t are numba-cuda's (IntEnums, usable on the host), and cudaRoundMode, which
numba-cuda takes from cuda.bindings.runtime, is here a copy with the same members for programs without
cuda-python; kernels take either class's members.
"""
import enum as _enum

from kfront.cuda import intrinsics as _intrinsics

_NAMESPACE = _intrinsics.KernelOnly("numba.cuda._internal.cuda_fp8")

_RECORD_SYMBOLS = ("fp8_e5m2", "fp8x2_e5m2", "fp8x4_e5m2", "fp8_e4m3", "fp8x2_e4m3", "fp8x4_e4m3",
                   "fp8_e8m0", "fp8x2_e8m0", "fp8x4_e8m0")
_FUNCTION_SYMBOLS = ("cvt_double_to_fp8", "cvt_double2_to_fp8x2", "cvt_float_to_fp8", "cvt_float2_to_fp8x2",
                     "cvt_bfloat16raw_to_fp8", "cvt_bfloat16raw_to_e8m0", "cvt_float_to_e8m0", "cvt_float2_to_e8m0x2",
                     "cvt_double_to_e8m0", "cvt_double2_to_e8m0x2", "cvt_e8m0_to_bf16raw")


class saturation_t(_enum.IntEnum):
    """cuda_fp8.h's __nv_saturation_t: NOSAT (overflow gives infinity, or NaN where the format has none) or
    SATFINITE (overflow gives the largest finite value)."""
    NOSAT = 0
    SATFINITE = 1


class fp8_interpretation_t(_enum.IntEnum):
    """cuda_fp8.h's __nv_fp8_interpretation_t: the format of an 8-bit float, E4M3 or E5M2."""
    E4M3 = 0
    E5M2 = 1


class cudaRoundMode(_enum.IntEnum):
    """The CUDA runtime's cudaRoundMode (cuda.bindings.runtime's members and values)."""
    cudaRoundNearest = 0
    cudaRoundZero = 1
    cudaRoundPosInf = 2
    cudaRoundMinInf = 3


def kernel_objects():
    """(object, numba path) for the kernel-side names above (kfront.cuda.dispatcher's registry)."""
    for name in _RECORD_SYMBOLS + _FUNCTION_SYMBOLS:
        obj = globals()[name]
        yield obj, obj._path


for _name in _RECORD_SYMBOLS + _FUNCTION_SYMBOLS:
    globals()[_name] = getattr(_NAMESPACE, _name)
del _name

__all__ = list(_RECORD_SYMBOLS + _FUNCTION_SYMBOLS) + ["saturation_t", "fp8_interpretation_t"]
