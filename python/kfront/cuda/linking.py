"""kfront.cuda.linking — foreign device code: numba-cuda's cuda.declare_device and its link items.

    mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)", link="functions.cu")

    @cuda.jit
    def k(r, x, y):
        i = cuda.grid(1)
        if i < len(r):
            r[i] = mul(x[i], y[i])

A declared function is called with numba-cuda's ABI: `extern "C" __device__ int mul_f32_f32(float *ret, float x,
float y)`, the result stored through the pointer, 0 returned (anything else ends the thread); declared with abi="c",
as a plain C function: `extern "C" __device__ float mul_f32_f32(float x, float y)`. The code defining it
(`link=`: a .cu compiled with NVRTC, .ptx, .cubin, .fatbin, .ltoir, .o, .a, or an in-memory item of the classes
below) is linked, with the items of `cuda.jit(link=[...])` of the kernel and of the device functions it calls, by
nvJitLink into the kernel's module on the GPU (kfront's runtime: kf_compile_options' links). The NVRTC compile of a
.cu searches the toolkit's include folder, then config.CUDA_INCLUDE_PATH and the folders of
config.CUDA_NVRTC_EXTRA_SEARCH_PATHS (colon-separated), as numba-cuda's. A kernel linked with foreign code is never
cached on disk (cache=True with link= is numba-cuda's RuntimeError). The simulator cannot run foreign code: a kernel
calling a declared function raises there, naming the function.

`LinkableCode` and its subclasses are numba-cuda's in-memory link items (`cuda.CUSource(text)`, `cuda.PTXSource(...)`,
...): `data` the bytes (or text), `name` a file name for diagnostics, `kind` the extension that says what it is.
Their `setup_callback(module)` is called once per loaded module of a kernel linked with the item (its kernel's
`link=` or a declared function's it calls), before the module's first launch on the launching thread (other threads'
launches of it wait), and `teardown_callback(module)` before that module is unloaded (the device's context reset,
cuda.close(), the kernel gone). `module` is a LoadedModule: `handle`, the CUlibrary the module was loaded as
(cuda.bindings' cuLibraryGetGlobal(module.handle, b"name") finds its globals), `cumodule` and `device`; where
cuda.core is installed it is also a cuda.core ObjectCode, as numba-cuda's callbacks are given. A module is each compiled specialisation (a lazy kernel's
argument types; an eager kernel's declared signatures share one). The simulator calls them too, `handle` then an
opaque number distinct for each module loaded at once. An exception of a setup callback is the launch's.
"""
import atexit
import os
import weakref

from kfront import errors
from kfront import types as kftypes


class LinkableCode:
    """numba-cuda's in-memory link item: data (bytes or str), name (for diagnostics), kind (".cu", ".ptx", ...)."""
    kind = None
    default_name = None

    def __init__(self, data, name=None, setup_callback=None, teardown_callback=None, nrt=False):
        if setup_callback and not callable(setup_callback):  # numba-cuda's checks and words
            raise TypeError("setup_callback must be callable")
        if teardown_callback and not callable(teardown_callback):
            raise TypeError("teardown_callback must be callable")
        if isinstance(data, str):
            data = data.encode()
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError("%s needs bytes or str, not %s" % (type(self).__name__, type(data).__name__))
        self.data = bytes(data)
        self.name = name or self.default_name
        self.setup_callback = setup_callback
        self.teardown_callback = teardown_callback
        self.nrt = nrt


class PTXSource(LinkableCode):
    kind, default_name = ".ptx", "<unnamed-ptx>"


class CUSource(LinkableCode):
    kind, default_name = ".cu", "<unnamed-cu>"


class Fatbin(LinkableCode):
    kind, default_name = ".fatbin", "<unnamed-fatbin>"


class Cubin(LinkableCode):
    kind, default_name = ".cubin", "<unnamed-cubin>"


class Archive(LinkableCode):
    kind, default_name = ".a", "<unnamed-archive>"


class Object(LinkableCode):
    kind, default_name = ".o", "<unnamed-object>"


class LTOIR(LinkableCode):
    kind, default_name = ".ltoir", "<unnamed-ltoir>"


LINK_KINDS = (".cu", ".ptx", ".cubin", ".fatbin", ".ltoir", ".o", ".a")


def link_input(item):
    """One link item as (kind, name, data bytes): a path (its extension says the kind) or a LinkableCode. Raises
    numba-cuda's errors for what cannot be linked (a file that does not exist, an unknown extension)."""
    if isinstance(item, LinkableCode):
        return (item.kind, item.name, item.data)
    if isinstance(item, os.PathLike):
        item = os.fspath(item)
    if not isinstance(item, str):
        raise TypeError("a link item is a path or a cuda.LinkableCode (cuda.CUSource, cuda.PTXSource, ...), not %r"
                        % (item,))
    ext = os.path.splitext(item)[1]
    if ext not in LINK_KINDS:
        raise RuntimeError("Don't know how to link file with extension %s" % ext)  # numba-cuda's LinkerError text
    with open(item, "rb") as f:  # a missing file: FileNotFoundError naming it
        data = f.read()
    return (ext, item, data)


def link_items(link):
    """cuda.jit's or cuda.declare_device's link= as a tuple of items (None: none; one path or item, or a list,
    tuple or set of them), each checked readable and of a kind kfront links (link_input's errors)."""
    if link is None:
        return ()
    items = tuple(link) if isinstance(link, (list, tuple, set, frozenset)) else (link,)
    for item in items:
        if not isinstance(item, LinkableCode):
            link_input(item)
    return items


class LoadedModule:
    """A loaded module of a kernel, as link items' setup and teardown callbacks are given it (numba-cuda's cuda.core
    ObjectCode): `handle` the CUlibrary it was loaded as (the CUmodule where the driver has no library API; on the
    simulator an opaque number), `cumodule` its CUmodule in the device's context, `device` the device's ordinal.
    Where cuda.core is installed the callbacks get a LoadedObjectCode, a LoadedModule that is a cuda.core ObjectCode
    too, as numba-cuda's callbacks are given (its `handle` kfront's loaded library, not one cuda.core loads)."""

    def __new__(cls, library, module, device):
        return super().__new__(cls)  # (ObjectCode's __init__, which refuses direct construction, is not called)

    def __init__(self, library, module, device):
        self._kf_handle = library if library is not None else module
        self.cumodule = module
        self.device = device

    @property
    def handle(self):
        return self._kf_handle

    def __repr__(self):
        return "<kfront loaded module %#x on device %d>" % (self._kf_handle, self.device)


_loaded_module_class = None


def loaded_module(library, module, device):
    """The LoadedModule given to setup and teardown callbacks: a LoadedObjectCode where cuda.core is installed (the
    class made at the first call, which imports cuda.core: kfront's import does not pay for it)."""
    global _loaded_module_class
    if _loaded_module_class is None:
        try:
            from cuda.core import ObjectCode
            _loaded_module_class = type("LoadedObjectCode", (LoadedModule, ObjectCode),
                                        {"__module__": __name__, "__doc__": LoadedModule.__doc__})
        except Exception:  # cuda.core absent, or one this Python cannot import
            _loaded_module_class = LoadedModule
    return _loaded_module_class(library, module, device)


class ModuleCallbacks:
    """The setup and teardown callbacks of a program's link items, as kfront._kfront.Program's module_callback:
    called with (event, library, module, device) for each module set up and torn down; a module's setup and
    teardown callbacks are given the same LoadedModule. At the interpreter's exit the modules still loaded are torn
    down (as numba-cuda's finalizers do then; the process's end unloads them), and not again when their programs
    go afterwards."""

    def __init__(self, setups, teardowns):
        self.setups, self.teardowns = tuple(setups), tuple(teardowns)
        self._loaded = {}  # module handle -> its LoadedModule, from its setup to its teardown
        _with_modules.add(self)

    def __call__(self, event, library, module, device):
        if event == "setup":
            loaded = self._loaded[module] = loaded_module(library, module, device)
            for f in self.setups:
                f(loaded)
        else:
            self._teardown(self._loaded.pop(module, None))

    def _teardown(self, loaded):
        if loaded is None:  # torn down at exit already
            return
        for f in self.teardowns:
            f(loaded)

    def teardown_all(self):
        """Tears down every module still loaded (at exit)."""
        while self._loaded:
            self._teardown(self._loaded.popitem()[1])


_with_modules = weakref.WeakSet()  # the ModuleCallbacks alive


@atexit.register
def _teardown_at_exit():
    for callbacks in list(_with_modules):
        callbacks.teardown_all()


def module_callbacks(items):
    """The ModuleCallbacks of link items (LinkableCode and paths, each once), or None when none has a callback."""
    setups = [i.setup_callback for i in items if getattr(i, "setup_callback", None)]
    teardowns = [i.teardown_callback for i in items if getattr(i, "teardown_callback", None)]
    return ModuleCallbacks(setups, teardowns) if setups or teardowns else None


def include_dirs():
    """The folders NVRTC searches for a .cu's #includes after the toolkit's own: config.CUDA_INCLUDE_PATH (where
    set) and config.CUDA_NVRTC_EXTRA_SEARCH_PATHS's, read when a kernel is built."""
    from kfront import config
    dirs = [config.CUDA_INCLUDE_PATH] if config.CUDA_INCLUDE_PATH else []
    return dirs + [d for d in (config.CUDA_NVRTC_EXTRA_SEARCH_PATHS or "").split(":") if d]


class ForeignFunction:
    """What cuda.declare_device returns (numba-cuda's ExternFunction): name, sig (a kfront.types.Signature),
    link (the items to link), use_cooperative (it synchronises the grid: the kernels calling it are launched
    cooperatively). Kernels call it; the host cannot."""

    def __init__(self, name, sig, link, use_cooperative, abi="numba"):
        self.name = name
        self.sig = sig
        self.link = tuple(link)
        self.use_cooperative = bool(use_cooperative)
        self.abi = abi

    @property
    def signature_text(self):
        return str(self.sig)

    def __call__(self, *args, **kwargs):
        raise errors.UnsupportedError("kfront: the foreign function '%s' (cuda.declare_device) can be called only "
                                      "from kernels and device functions" % self.name)

    def __repr__(self):
        return "<foreign function %s: %s>" % (self.name, self.signature_text)


def declare_device(name, sig, link=None, use_cooperative=False, abi="numba"):
    """numba-cuda's cuda.declare_device: the signature of a foreign device function, callable from kernels."""
    if abi not in ("numba", "c"):
        raise NotImplementedError("Unsupported ABI: %s" % abi)
    link = link_items(link)
    args, restype = kftypes.parse_signature(sig)
    if restype is None:
        raise TypeError("Return type must be provided for device declarations")
    return ForeignFunction(name, kftypes.Signature(restype, args), link, use_cooperative, abi)
