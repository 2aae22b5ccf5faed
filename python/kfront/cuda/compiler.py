"""kfront.cuda.compiler — numba-cuda's ahead-of-time compile API (numba.cuda.compiler; the functions are numba.cuda's
too): a Python function compiled for one signature to PTX text or to libNVVM's LTO-IR, without a device.

    ptx, resty = cuda.compile(add, int32(int32, int32))              # a device function, C ABI, PTX
    ltoir, resty = cuda.compile(add, (float32, float32), output="ltoir")
    ptx, resty = cuda.compile_ptx(kernel, (float32[::1], float32))   # a kernel by default

resty is the signature's return type or, where the signature gives the argument types only, the one kfront's
typing infers (void for a kernel), as numba-cuda returns it.

ABIs (abi=): "c", the default of compile(): the device function returns its value (func_retval0 in the PTX) and
takes its arguments as C passes them, under the Python function's name or abi_info={"abi_name": "name"} — what C
or C++ code linked with it calls. "numba", compile_ptx's default: a kernel as numba-cuda launches it; a device
function compiled with it is kfront's own device function (the same shape as the C ABI's: kfront has no numba ABI,
whose status return, result pointer and environment global are numba-cuda's, "not considered stable" by its
documentation). The C ABI is for device functions only, as in numba-cuda.
"""

from kfront import _capture, errors, types
from kfront.cuda.dispatcher import Dispatcher, _debug_and_opt, get_current_cc

_ABIS = ("numba", "c")
_OUTPUTS = ("ptx", "ltoir")
# what cc defaults to: 7.5, the oldest architecture CUDA 13's libNVVM targets (numba-cuda picks the toolkit's oldest)
DEFAULT_CC = (7, 5)


def _arch(cc):
    """The code generation options of a compute capability: (major, minor) is arch 10*major + minor; (major,
    minor, "a") or (major, minor, "f") an architecture-specific (sm_90a) or family-specific (sm_100f) target,
    from sm_90a and sm_100f on, as libNVVM takes them."""
    if len(cc) == 3 and cc[2] in ("a", "f"):
        arch = int(cc[0]) * 10 + int(cc[1])
        if arch < (90 if cc[2] == "a" else 100):
            raise errors.UnsupportedError("kfront: cc=%r: %s targets begin at %s" % (
                cc, "architecture-specific" if cc[2] == "a" else "family-specific",
                "sm_90a" if cc[2] == "a" else "sm_100f"))
        return dict(arch=arch, arch_feature=cc[2])
    if len(cc) != 2:
        raise errors.UnsupportedError("kfront: cc=%r: give (major, minor), or (major, minor, 'a') or (major, minor, "
                                      "'f') for an architecture- or family-specific target" % (cc,))
    return dict(arch=int(cc[0]) * 10 + int(cc[1]))


def compile(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None, opt=None, abi="c",
            abi_info=None, output="ptx", forceinline=False, launch_bounds=None):
    """numba.cuda.compile: (code, return type) of pyfunc compiled for sig (argument types, or a signature with
    its return type; text too), as a device function (device=True, the default) or a kernel. output "ptx" gives
    PTX text, "ltoir" libNVVM's LTO-IR (bytes, for nvJitLink). cc: (major, minor), default 7.5. forceinline
    (LTO-IR of a device function only): the function is marked alwaysinline for the code it is linked into."""
    if output not in _OUTPUTS:
        raise NotImplementedError("Unsupported output type: %s" % (output,))
    if forceinline and output != "ltoir":
        raise ValueError("Can only designate forced inlining in LTO-IR")
    if abi not in _ABIS:
        raise NotImplementedError("Unsupported ABI: %s" % (abi,))
    if abi == "c" and not device:
        raise NotImplementedError("The C ABI is not supported for kernels")
    if forceinline and not device:
        raise ValueError("Cannot force-inline kernels")
    debug, opt = _debug_and_opt(debug, opt, lineinfo)
    sig = types.normalize_signature(sig)
    resty = types.return_type(sig)
    if not device and resty is not None and resty != types.none:
        raise TypeError("CUDA kernel must have void return type.")
    symbol = (abi_info or {}).get("abi_name") if abi == "c" else None
    d = Dispatcher(pyfunc, [sig], device=device, debug=debug, lineinfo=lineinfo, fastmath=fastmath, opt=opt,
                   forceinline=forceinline, launch_bounds=launch_bounds)
    codegen = dict(_arch(cc or DEFAULT_CC), opt=d._options["opt"], fastmath=bool(fastmath), lineinfo=bool(lineinfo),
                   debuginfo=bool(debug))
    if symbol is not None:
        codegen["symbol"] = symbol
    try:
        code = d._compile_text(output, sig, **codegen)
    except errors.TypingError as e:
        if not device and resty is None and _inferred_return_type(pyfunc, sig, quiet=True) not in (None, types.none):
            raise TypeError("CUDA kernel must have void return type.") from e
        raise
    if resty is None:
        resty = _inferred_return_type(pyfunc, sig) if device else types.none
    return code, resty


def compile_all(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None, opt=None, abi="c",
                abi_info=None, output="ltoir", forceinline=False, launch_bounds=None):
    """numba.cuda.compile_all: as compile() (LTO-IR by default), the code in a list with that of the external
    functions it links; kfront links none (cuda.jit(link=...) and declare_device are not supported), so the list
    holds the function's code alone."""
    code, resty = compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=cc,
                          opt=opt, abi=abi, abi_info=abi_info, output=output, forceinline=forceinline,
                          launch_bounds=launch_bounds)
    return [code], resty


def compile_for_current_device(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, opt=None,
                               abi="c", abi_info=None, output="ptx", forceinline=False, launch_bounds=None):
    """compile() for the current device's compute capability (9.0 on the simulator)."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                   cc=get_current_cc(), opt=opt, abi=abi, abi_info=abi_info, output=output, forceinline=forceinline,
                   launch_bounds=launch_bounds)


def compile_ptx(pyfunc, sig, debug=None, lineinfo=False, device=False, fastmath=False, cc=None, opt=None,
                abi="numba", abi_info=None, forceinline=False, launch_bounds=None):
    """numba.cuda.compile_ptx: compile() to PTX, by default a kernel with numba-cuda's ABI."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath, cc=cc, opt=opt,
                   abi=abi, abi_info=abi_info, output="ptx", forceinline=forceinline, launch_bounds=launch_bounds)


def compile_ptx_for_current_device(pyfunc, sig, debug=None, lineinfo=False, device=False, fastmath=False, opt=None,
                                   abi="numba", abi_info=None, forceinline=False, launch_bounds=None):
    """compile_ptx() for the current device's compute capability."""
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                       cc=get_current_cc(), opt=opt, abi=abi, abi_info=abi_info, forceinline=forceinline,
                       launch_bounds=launch_bounds)


def _inferred_return_type(pyfunc, sig, quiet=False):
    """The return type kfront's typing gives pyfunc compiled as a device function for sig: its compiled function's
    result type, as the C library reads it from the kir (quiet: None where it does not compile)."""
    d = Dispatcher(pyfunc, [sig], device=True)
    try:
        return types._from_tree(d._compile_text("result", sig))
    except errors.KfrontError:
        if quiet:
            return None
        raise
