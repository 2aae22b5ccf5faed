"""kfront.cuda.nvrtc — numba-cuda's numba.cuda.cudadrv.nvrtc: CUDA C/C++ compiled by NVRTC, and the compute
capabilities it compiles for.

NVRTC is the one kfront's C library finds (kf_cuda_library_find: KFRONT_LIBNVRTC, conda, NVIDIA's pip wheels,
CUDA_HOME, the system toolkit), and compile() is the compile the runtime's link step gives a `.cu` link item
(kf_nvrtc_compile: relocatable device code, CUDA's and CCCL's headers where the C library finds them, then
config.CUDA_INCLUDE_PATH and config.CUDA_NVRTC_EXTRA_SEARCH_PATHS).

    ptx, log = nvrtc.compile(src, "f.cu", (9, 0))            # PTX text
    ltoir, log = nvrtc.compile(src, "f.cu", (9, 0), ltoir=True)  # LTO-IR bytes
    nvrtc.get_supported_ccs()                                # [(7, 5), (8, 0), ..., (12, 1)]
    nvrtc.find_closest_arch((8, 7)), nvrtc.get_arch_option(9, 1)   # (8, 7), "compute_90"

Errors are numba-cuda's classes (kfront.errors): NvrtcSupportError without NVRTC, NvrtcCompilationError with
NVRTC's errors located at the source's lines, CCSupportError for a compute capability below NVRTC's lowest.
"""
import functools
import warnings

from kfront import _kfront, config
from kfront.errors import CCSupportError, NvrtcCompilationError, NvrtcError, NvrtcSupportError

__all__ = ["compile", "find_closest_arch", "get_arch_option", "get_lowest_supported_cc", "get_supported_ccs",
           "NvrtcError", "NvrtcCompilationError", "NvrtcSupportError", "CCSupportError"]


def _nvrtc():
    """The C library told where to look for NVRTC (kfront.config's search paths), before its first search: NVRTC used
    here first finds the one a kernel's link step would."""
    from kfront.cuda import _runtime
    _runtime.configure_cuda_paths()
    return _kfront


@functools.cache
def _get_nvrtc_version():
    """NVRTC's (major, minor)."""
    info = _nvrtc().cuda_library("nvrtc")
    if info["path"] is None:
        raise NvrtcSupportError("NVRTC cannot be found: %s" % info["error"])
    return info["version"] or (0, 0)


@functools.cache
def _supported_archs():
    archs, error = _nvrtc().nvrtc_supported_archs()
    if not archs:
        raise NvrtcSupportError("NVRTC cannot list the compute capabilities it compiles for: %s" % error.strip())
    return archs


def get_supported_ccs():
    """The compute capabilities NVRTC compiles for, ascending, as (major, minor) tuples."""
    return [(a // 10, a % 10) for a in _supported_archs()]


def get_lowest_supported_cc():
    return min(get_supported_ccs())


def find_closest_arch(cc):
    """The highest supported compute capability not above cc ((major, minor)); CCSupportError below them all."""
    ccs = get_supported_ccs()
    cc = tuple(cc[:2])
    below = [c for c in ccs if c <= cc]
    if not below:
        raise CCSupportError("GPU compute capability %d.%d is not supported(requires >=%d.%d)" % (cc + ccs[0]))
    return below[-1]


def get_arch_option(major, minor, arch=""):
    """The compute_XY option for the closest supported compute capability (config.FORCE_CUDA_CC first); an
    arch-specific suffix ("a", "f") only where that capability itself is supported."""
    if config.FORCE_CUDA_CC:
        fcc = config.FORCE_CUDA_CC
        major, minor = fcc[0], fcc[1]
        arch = fcc[2] if len(fcc) == 3 else ""
    else:
        new = find_closest_arch((major, minor))
        if new != (major, minor) and arch:
            raise ValueError("Can't use arch-specific compute_%d%d%s with closest found compute capability "
                             "compute_%d%d" % (major, minor, arch, new[0], new[1]))
        major, minor = new
    return "compute_%d%d%s" % (major, minor, arch)


def _verified_cc(cc):
    """cc ((major, minor) or (major, minor, suffix)) as the (major, minor, suffix) NVRTC compiles for: the closest
    supported one below, with numba-cuda's warning, when cc itself is not."""
    arch = cc[2] if len(cc) == 3 else ""
    if arch not in ("", "a", "f"):
        raise ValueError("Invalid architecture suffix '%s' in compute capability %d.%d%s. Expected '', 'a', or 'f'."
                         % (arch, cc[0], cc[1], arch))
    ccs = get_supported_ccs()
    below = [c for c in ccs if c <= tuple(cc[:2])]
    if not below:
        raise RuntimeError("Device compute capability %d.%d is less than the minimum supported by NVRTC %s. Supported "
                           "compute capabilities are %s." % (cc[0], cc[1], ".".join(map(str, _get_nvrtc_version())),
                                                             ", ".join("%d.%d" % c for c in ccs)))
    found = below[-1]
    if found != tuple(cc[:2]):
        warnings.warn("Device compute capability %d.%d is not supported by NVRTC %s. Using %d.%d instead."
                      % (cc[0], cc[1], ".".join(map(str, _get_nvrtc_version())), found[0], found[1]))
    return found + (arch,)


def compile(src, name, cc, ltoir=False, lineinfo=False, debug=False):
    """CUDA C/C++ source (str or bytes) compiled for compute capability cc ((major, minor) or with a suffix):
    (PTX text, or with ltoir LTO-IR bytes; NVRTC's log). The includes are searched in the toolkit's include folder,
    config.CUDA_INCLUDE_PATH and config.CUDA_NVRTC_EXTRA_SEARCH_PATHS's folders."""
    from kfront.cuda import linking
    if isinstance(src, (bytes, bytearray)):
        src = bytes(src).decode("utf8")
    major, minor, suffix = _verified_cc(cc)
    if suffix:
        raise NotImplementedError("kfront: NVRTC compiles for sm_%d%d; the arch-specific sm_%d%d%s is not passed "
                                  "through yet" % (major, minor, major, minor, suffix))
    code, log, status = _nvrtc().nvrtc_compile(src, name, major * 10 + minor, ltoir=bool(ltoir),
                                              lineinfo=bool(lineinfo), debug=bool(debug),
                                              include_dirs=linking.include_dirs())
    if status == "not-found":
        raise NvrtcSupportError(log.strip())
    if status != "ok":
        raise NvrtcCompilationError(log.strip())
    if log.strip():
        warnings.warn("NVRTC log messages: %s" % log.strip())
    return code, log
