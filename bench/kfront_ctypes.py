"""kfront_ctypes.py — the parts of libkfront's C API (include/kfront/kfront.h) the Python benchmarks use,
through ctypes: compile Python source to a kir module, emit LLVM IR / PTX, and the runtime (device memory,
programs, kernels, kf_launch, synchronize).

    lib = kfront_ctypes.load()                 # $KFRONT_LIB, else <build>/lib/libkfront.so
    kf = kfront_ctypes.Compiler(lib)
    m = kf.compile(path, text, "double", "void(float64[:], float64[:])")
    ptx = kf.emit_ptx(m); kf.destroy(m)

Build directories searched, in order: $KFRONT_BUILD, build, build-bench (relative to the repository root).
Errors raise KfrontError with the context's diagnostics.
"""
import ctypes
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KF_OK = 0
KF_RUNTIME_AUTO, KF_RUNTIME_GPU, KF_RUNTIME_SIM = 0, 1, 2
KF_BACKEND_NVVM, KF_BACKEND_LLVM = 0, 1
KF_MEMORY_HOST, KF_MEMORY_DEVICE = 0, 1
KF_ARG_SCALAR, KF_ARG_ARRAY = 0, 1
KF_MAX_RANK = 8
DTYPES = {"bool": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "uint8": 5, "uint16": 6, "uint32": 7,
          "uint64": 8, "float16": 9, "float32": 10, "float64": 11, "complex64": 12, "complex128": 13,
          "bfloat16": 14}


class KfrontError(RuntimeError):
    pass


def build_dirs():
    out = []
    env = os.environ.get("KFRONT_BUILD")
    if env:
        out.append(env if os.path.isabs(env) else os.path.join(ROOT, env))
    out += [os.path.join(ROOT, "build"), os.path.join(ROOT, "build-bench")]
    return out


def find_library():
    env = os.environ.get("KFRONT_LIB")
    if env:
        return env
    for d in build_dirs():
        p = os.path.join(d, "lib", "libkfront.so")
        if os.path.exists(p):
            return p
    raise KfrontError("libkfront.so not found (set KFRONT_LIB or KFRONT_BUILD; searched %s)" %
                      ", ".join(build_dirs()))


def find_tool(name):
    """<build>/bin/<name> from the first build directory that has it."""
    for d in build_dirs():
        p = os.path.join(d, "bin", name)
        if os.path.exists(p):
            return p
    return None


class CompileOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("kernels", ctypes.POINTER(ctypes.c_char_p)), ("nkernels", ctypes.c_uint),
                ("signatures", ctypes.POINTER(ctypes.c_char_p)), ("nsignatures", ctypes.c_uint),
                ("bounds_check", ctypes.c_int), ("pipeline", ctypes.c_char_p), ("verify_each", ctypes.c_int),
                ("extra_sources", ctypes.c_void_p), ("nextra_sources", ctypes.c_uint),
                ("bindings", ctypes.c_void_p), ("nbindings", ctypes.c_uint),
                ("functions", ctypes.c_void_p), ("nfunctions", ctypes.c_uint),
                ("links", ctypes.c_void_p), ("nlinks", ctypes.c_uint),
                ("include_dirs", ctypes.c_void_p), ("ninclude_dirs", ctypes.c_uint), ("lto", ctypes.c_int),
                ("module_callback", ctypes.c_void_p), ("module_callback_data", ctypes.c_void_p)]


class CodegenOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("backend", ctypes.c_int), ("arch", ctypes.c_uint),
                ("opt_level", ctypes.c_int), ("fastmath", ctypes.c_int), ("lineinfo", ctypes.c_int),
                ("arch_feature", ctypes.c_char), ("debuginfo", ctypes.c_int)]


class RuntimeOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("mode", ctypes.c_int), ("device", ctypes.c_int), ("grid_stride", ctypes.c_int),
                ("disk_cache", ctypes.c_int), ("cache_dir", ctypes.c_char_p), ("backend", ctypes.c_int),
                ("sim_devices", ctypes.c_uint), ("libcuda_path", ctypes.c_char_p),
                ("sim_detect_races", ctypes.c_int), ("sim_workers", ctypes.c_uint),
                ("sim_max_steps", ctypes.c_uint64), ("sim_max_seconds", ctypes.c_double), ("thread_map", ctypes.c_int)]


class Array(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("memory", ctypes.c_int), ("dtype", ctypes.c_int), ("ndim", ctypes.c_uint),
                ("device", ctypes.c_int), ("shape", ctypes.c_int64 * KF_MAX_RANK),
                ("strides", ctypes.c_int64 * KF_MAX_RANK), ("readonly", ctypes.c_int)]


class _Value(ctypes.Union):
    _fields_ = [("i", ctypes.c_int64), ("u", ctypes.c_uint64), ("f", ctypes.c_double)]


class Arg(ctypes.Structure):
    pass


Arg._fields_ = [("kind", ctypes.c_int), ("dtype", ctypes.c_int), ("value", _Value), ("imag", ctypes.c_double),
                ("array", Array),
                ("type", ctypes.c_char_p),
                ("items", ctypes.POINTER(Arg)), ("nitems", ctypes.c_uint)]  # items, nitems: KF_ARG_TUPLE


class DeviceInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 256), ("cc_major", ctypes.c_int), ("cc_minor", ctypes.c_int),
                ("multiprocessors", ctypes.c_int), ("warp_size", ctypes.c_int),
                ("max_threads_per_block", ctypes.c_int), ("max_block_dim", ctypes.c_int * 3),
                ("max_grid_dim", ctypes.c_int * 3), ("max_shared_per_block", ctypes.c_size_t),
                ("max_shared_per_block_optin", ctypes.c_size_t)]


_P = ctypes.c_void_p


def load(path=None):
    lib = ctypes.CDLL(path or find_library())
    sig = {
        "kf_version": (ctypes.c_char_p, []),
        "kf_free": (None, [_P]),
        "kf_context_create": (_P, []),
        "kf_context_destroy": (None, [_P]),
        "kf_context_diagnostics": (ctypes.c_char_p, [_P]),
        "kf_context_clear_diagnostics": (None, [_P]),
        "kf_compile_options_init": (None, [ctypes.POINTER(CompileOptions)]),
        "kf_compile_source": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                                             ctypes.POINTER(CompileOptions), ctypes.POINTER(_P)]),
        "kf_module_destroy": (None, [_P]),
        "kf_codegen_options_init": (None, [ctypes.POINTER(CodegenOptions)]),
        "kf_module_emit_llvm": (ctypes.c_int, [_P, ctypes.POINTER(CodegenOptions), ctypes.POINTER(_P),
                                               ctypes.POINTER(ctypes.c_size_t)]),
        "kf_module_emit_ptx": (ctypes.c_int, [_P, ctypes.POINTER(CodegenOptions), ctypes.POINTER(_P),
                                              ctypes.POINTER(ctypes.c_size_t)]),
        "kf_runtime_options_init": (None, [ctypes.POINTER(RuntimeOptions)]),
        "kf_runtime_create": (ctypes.c_int, [_P, ctypes.POINTER(RuntimeOptions), ctypes.POINTER(_P)]),
        "kf_runtime_destroy": (None, [_P]),
        "kf_runtime_get_mode": (ctypes.c_int, [_P]),
        "kf_runtime_describe": (ctypes.c_char_p, [_P]),
        "kf_runtime_device_info": (ctypes.c_int, [_P, ctypes.POINTER(DeviceInfo)]),
        "kf_runtime_synchronize": (ctypes.c_int, [_P]),
        "kf_program_create": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                                             ctypes.POINTER(CompileOptions), ctypes.POINTER(_P)]),
        "kf_program_destroy": (None, [_P]),
        "kf_program_get_kernel": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.POINTER(Arg), ctypes.c_uint,
                                                 ctypes.POINTER(_P)]),
        "kf_kernel_signature": (ctypes.c_char_p, [_P]),
        "kf_launch": (ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint),
                                     ctypes.c_size_t, _P, ctypes.POINTER(Arg), ctypes.c_uint]),
    }
    for name, (res, args) in sig.items():
        try:
            f = getattr(lib, name)
        except AttributeError:
            continue  # a library without it: the call fails when (if) it is made
        f.restype = res
        f.argtypes = args
    return lib


def _take_string(lib, p, n):
    try:
        return ctypes.string_at(p.value, n.value).decode()
    finally:
        lib.kf_free(p)


class Compiler:
    """A kf_context and compile/emit helpers (one thread at a time)."""

    def __init__(self, lib, arch=90):
        self.lib = lib
        self.ctx = lib.kf_context_create()
        self.arch = arch

    def close(self):
        if self.ctx:
            self.lib.kf_context_destroy(self.ctx)
            self.ctx = None

    def _fail(self, what, st):
        diags = self.lib.kf_context_diagnostics(self.ctx).decode(errors="replace")
        self.lib.kf_context_clear_diagnostics(self.ctx)
        raise KfrontError("%s failed (status %d)\n%s" % (what, st, diags))

    def options(self, kernel=None, signature=None, bounds_check=True):
        """kf_compile_options for one kernel and signature (kept alive on the returned object)."""
        o = CompileOptions()
        self.lib.kf_compile_options_init(ctypes.byref(o))
        if kernel:
            o._k = (ctypes.c_char_p * 1)(kernel.encode())
            o.kernels = o._k
            o.nkernels = 1
        if signature:
            o._s = (ctypes.c_char_p * 1)(signature.encode())
            o.signatures = o._s
            o.nsignatures = 1
        o.bounds_check = 1 if bounds_check else 0
        return o

    def compile(self, filename, text, kernel, signature, bounds_check=True, opts=None):
        """kf_compile_source -> module handle (destroy with destroy())."""
        if isinstance(text, str):
            text = text.encode()
        if opts is None:
            opts = self.options(kernel, signature, bounds_check)
        m = _P()
        st = self.lib.kf_compile_source(self.ctx, filename.encode(), text, len(text), ctypes.byref(opts),
                                        ctypes.byref(m))
        if st != KF_OK:
            self._fail("kf_compile_source(%s, %s)" % (kernel, signature), st)
        return m

    def codegen_options(self, backend=KF_BACKEND_NVVM):
        o = CodegenOptions()
        self.lib.kf_codegen_options_init(ctypes.byref(o))
        o.backend = backend
        o.arch = self.arch
        return o

    def emit_ptx(self, m, cg=None):
        p, n = _P(), ctypes.c_size_t()
        st = self.lib.kf_module_emit_ptx(m, ctypes.byref(cg or self.codegen_options()), ctypes.byref(p), ctypes.byref(n))
        if st != KF_OK:
            self._fail("kf_module_emit_ptx", st)
        return _take_string(self.lib, p, n)

    def emit_llvm(self, m, cg=None):
        p, n = _P(), ctypes.c_size_t()
        st = self.lib.kf_module_emit_llvm(m, ctypes.byref(cg or self.codegen_options()), ctypes.byref(p),
                                          ctypes.byref(n))
        if st != KF_OK:
            self._fail("kf_module_emit_llvm", st)
        return _take_string(self.lib, p, n)

    def destroy(self, m):
        self.lib.kf_module_destroy(m)

    def ptx_for(self, filename, text, kernel, signature, bounds_check=True):
        m = self.compile(filename, text, kernel, signature, bounds_check)
        try:
            return self.emit_ptx(m)
        finally:
            self.destroy(m)


def ptx_entries(ptx):
    """The .entry names of a PTX text, in order."""
    import re
    return re.findall(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\(", ptx)


def device_array_arg(ptr, dtype, shape, strides_bytes):
    """A kf_arg for a device array (e.g. a CuPy array's data.ptr)."""
    a = Arg()
    a.kind = KF_ARG_ARRAY
    a.dtype = DTYPES[dtype]
    a.array.data = ptr
    a.array.memory = KF_MEMORY_DEVICE
    a.array.dtype = DTYPES[dtype]
    a.array.ndim = len(shape)
    for d, (n, s) in enumerate(zip(shape, strides_bytes)):
        a.array.shape[d] = n
        a.array.strides[d] = s
    return a


def host_array_arg(nd):
    """A kf_arg for a NumPy array in host memory (kf_launch copies it to the device and back)."""
    a = Arg()
    a.kind = KF_ARG_ARRAY
    a.dtype = a.array.dtype = DTYPES[nd.dtype.name]
    a.array.data = nd.ctypes.data
    a.array.memory = KF_MEMORY_HOST
    a.array.ndim = nd.ndim
    for d in range(nd.ndim):
        a.array.shape[d] = nd.shape[d]
        a.array.strides[d] = nd.strides[d]
    return a


def scalar_arg(dtype, value):
    a = Arg()
    a.kind = KF_ARG_SCALAR
    a.dtype = DTYPES[dtype]
    if dtype.startswith("complex"):
        a.value.f = complex(value).real
        a.imag = complex(value).imag
    elif dtype.startswith("float"):
        a.value.f = float(value)
    elif dtype.startswith("uint"):
        a.value.u = int(value)
    else:
        a.value.i = int(value)
    return a


class Runtime:
    """A kf_runtime on the GPU (mode GPU: fails without one) with its own context."""

    def __init__(self, lib, mode=KF_RUNTIME_GPU, disk_cache=False):
        self.lib = lib
        self.ctx = lib.kf_context_create()
        o = RuntimeOptions()
        lib.kf_runtime_options_init(ctypes.byref(o))
        o.mode = mode
        o.disk_cache = 1 if disk_cache else 0
        self.rt = _P()
        st = lib.kf_runtime_create(self.ctx, ctypes.byref(o), ctypes.byref(self.rt))
        if st != KF_OK:
            msg = lib.kf_context_diagnostics(self.ctx).decode(errors="replace")
            lib.kf_context_destroy(self.ctx)
            self.ctx = None
            raise KfrontError("kf_runtime_create failed (status %d): %s" % (st, msg))
        self.programs = []

    def _fail(self, what, st):
        diags = self.lib.kf_context_diagnostics(self.ctx).decode(errors="replace")
        self.lib.kf_context_clear_diagnostics(self.ctx)
        raise KfrontError("%s failed (status %d)\n%s" % (what, st, diags))

    def describe(self):
        return self.lib.kf_runtime_describe(self.rt).decode()

    def device_info(self):
        info = DeviceInfo()
        st = self.lib.kf_runtime_device_info(self.rt, ctypes.byref(info))
        if st != KF_OK:
            self._fail("kf_runtime_device_info", st)
        return info

    def program(self, filename, text, bounds_check=True):
        if isinstance(text, str):
            text = text.encode()
        o = CompileOptions()
        self.lib.kf_compile_options_init(ctypes.byref(o))
        o.bounds_check = 1 if bounds_check else 0
        p = _P()
        st = self.lib.kf_program_create(self.rt, filename.encode(), text, len(text), ctypes.byref(o), ctypes.byref(p))
        if st != KF_OK:
            self._fail("kf_program_create", st)
        self.programs.append(p)
        return p

    def kernel(self, program, name, args):
        arr = (Arg * len(args))(*args)
        k = _P()
        st = self.lib.kf_program_get_kernel(program, name.encode(), arr, len(args), ctypes.byref(k))
        if st != KF_OK:
            self._fail("kf_program_get_kernel(%s)" % name, st)
        return k

    def signature(self, k):
        return self.lib.kf_kernel_signature(k).decode()

    def launcher(self, k, grid, block, args, shared=0):
        """A no-argument callable doing one kf_launch (arguments packed once, as a host program would)."""
        g = (ctypes.c_uint * 3)(*(tuple(grid) + (1,) * (3 - len(grid))))
        b = (ctypes.c_uint * 3)(*(tuple(block) + (1,) * (3 - len(block))))
        arr = (Arg * len(args))(*args)
        n = len(args)
        launch = self.lib.kf_launch

        def go():
            st = launch(k, g, b, shared, None, arr, n)
            if st != KF_OK:
                self._fail("kf_launch", st)
        return go

    def synchronize(self):
        st = self.lib.kf_runtime_synchronize(self.rt)
        if st != KF_OK:
            self._fail("kf_runtime_synchronize", st)

    def close(self):
        for p in self.programs:
            self.lib.kf_program_destroy(p)
        self.programs = []
        if self.ctx:
            self.lib.kf_runtime_destroy(self.rt)
            self.lib.kf_context_destroy(self.ctx)
            self.ctx = None


SELF_TEST = """
from numba import cuda

@cuda.jit
def k(a, s, z, out):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] += s
    if i == 0 and j == 0:
        out[0] = z.real
        out[1] = z.imag
"""


def self_test():
    """Launches a kernel on the simulator through these mirrors of kfront.h's structs (arrays of rank 2, a float,
    a complex): a struct that drifted from the header fails here instead of in a GPU benchmark run."""
    import numpy as np
    lib = load()
    for struct, init in ((CompileOptions, lib.kf_compile_options_init), (CodegenOptions, lib.kf_codegen_options_init),
                         (RuntimeOptions, lib.kf_runtime_options_init)):
        o = struct()  # the _init function sets struct_size to the header's sizeof: the mirror must be as big
        init(ctypes.byref(o))
        assert o.struct_size == ctypes.sizeof(struct), (struct.__name__, o.struct_size, ctypes.sizeof(struct))
    rt = Runtime(lib, mode=KF_RUNTIME_SIM)
    try:
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        out = np.zeros(2, np.float64)
        args = [host_array_arg(a), scalar_arg("float32", 0.5), scalar_arg("complex128", 3 - 2j),
                host_array_arg(out)]
        p = rt.program("<kfront_ctypes self-test>", SELF_TEST)
        k = rt.kernel(p, "k", args)
        sig = rt.signature(k)
        assert sig == "void(float32[:, ::1], float32, complex128, float64[::1])", sig
        rt.launcher(k, (1, 1), (4, 4), args)()
        rt.synchronize()
        assert (a == np.arange(12, dtype=np.float32).reshape(3, 4) + 0.5).all(), a
        assert list(out) == [3.0, -2.0], out
    finally:
        rt.close()
    print("kfront_ctypes self-test: ok")


if __name__ == "__main__":
    import sys
    if sys.argv[1:] != ["--self-test"]:
        sys.exit("usage: kfront_ctypes.py --self-test   (the module is imported by the benchmarks)")
    self_test()
