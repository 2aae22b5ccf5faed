"""kfront.errors — the exceptions kfront raises, and the names numba programs catch them by.

Every kfront error is a `KfrontError` carrying the facts of its first diagnostic:

    kind      an int, kfront's error kind (kf_error_kind of kfront.h: KIND_TYPING, KIND_OUT_OF_BOUNDS, ...)
    message   the message alone, without location or source line
    file      the file it is located in, or None
    line, col 1-based; 0 when unknown

and `str(e)` is the whole located diagnostic as kfront renders it (`file:line:col: error: message`, the
source line, a caret). The C extension raises `cls(text)` with the class registered for the kind (see
`register`) and then sets these attributes; Python code may pass them as keywords.

The classes:

    KfrontError(Exception)
      CompilerError                  a function could not be compiled (numba's NumbaError / CompilerError)
        TypingError                  Numba's typing rules refuse it (numba.core.errors.TypingError)
        UnsupportedError             valid Numba that kfront does not handle (numba's UnsupportedError)
        SourceUnavailableError       no text is the function's source (kfront._capture: code from an AST, a pipe)
        CompileValueError(ValueError)  a constant numba-cuda's lowering refuses with ValueError (alignment=)
      KernelArgumentError(TypeError) arguments that do not fit the kernel
      LaunchError(ValueError)        a grid, block or shared-memory size the device cannot launch
      CudaDriverError                the CUDA driver or the device failed (numba's CudaAPIError, CudaDriverError)
        OutOfMemoryError(MemoryError)  device (or host) memory ran out
      KernelRaisedError              a kernel raised an exception of a class only the user's module knows
      UnsupportedError
        NotOnSimulatorError(AttributeError)  what only a GPU has (a kernel's registers, IPC), asked of the simulator

A failed bounds check is Python's own IndexError (with the attributes above plus kernel, axis, index and
extent); memory running out OutOfMemoryError, a MemoryError. An exception a kernel raised (`raise` or `assert` in a kernel
compiled with debug=True, the read of a local variable where it is unbound) is raised on the host as its own
class, a builtin (ValueError, UnboundLocalError, ...) or the user's; its text is numba-cuda's (kernel_exception_prefix):
on the simulator its simulator's, "tid=[1, 0, 0] ctaid=[0, 0, 0]: message" (threadIdx and blockIdx, x first), on a
GPU its GPU path's, "In function 'k', file /abs/k.py, line 7, tid=[0, 0, 1] ctaid=[0, 0, 0]: message" (z first),
then on the next line kfront's located diagnostic; it has the attributes above plus kernel,
exception (the class name and message as the kernel raised them: "ValueError: bad"), thread and block (the
raising thread's threadIdx and blockIdx). `KIND_CLASSES` maps each kind to its class;
`NUMBA_ERRORS` maps the names of numba.core.errors (and numba's warning categories) to kfront's classes,
for the `numba` drop-in (kfront._alias).

Beside a real numba (the alias's "cuda" scope), programs catch kfront's errors by numba's own classes
(`from numba.core.errors import TypingError`, `except numba.core.errors.NumbaError`, a warnings filter on
NumbaPerformanceWarning), and Python's `except` checks real subclassing. So while that alias is installed, each
class of NUMBA_BASES is also a subclass of numba's class of that name: `derive_from_numba` adds numba's class to
its bases (after kfront's own, so kfront's methods come first), `underive_from_numba` takes it out again. The
classes stay the same objects (those the C extension raises, those `except kfront.errors.TypingError` names):
kfront's TypingError is then both kfront's and numba's TypingError, its CompilerError numba's NumbaError, and so
on. Where numba is absent nothing is derived.
"""

# kf_error_kind (include/kfront/kfront.h), in its order
KIND_NONE = 0
KIND_INTERNAL = 1
KIND_SYNTAX = 2
KIND_TYPING = 3
KIND_UNSUPPORTED = 4
KIND_ARGUMENT = 5
KIND_LAUNCH_CONFIG = 6
KIND_OUT_OF_BOUNDS = 7
KIND_DEVICE = 8
KIND_BACKEND = 9
KIND_NOT_FOUND = 10
KIND_OUT_OF_MEMORY = 11
KIND_RAISED = 12
KIND_VALUE = 13
KIND_INVALID_IR = 14        # kir an embedder gave (kf_module_parse / kir.h's builder): not made from Python
KIND_INVALID_ARGUMENT = 15  # a C API call's own arguments

KIND_NAMES = ("none", "internal", "syntax", "typing", "unsupported", "argument", "launch_config",
              "out_of_bounds", "device", "backend", "not_found", "out_of_memory", "raised", "value",
              "invalid_ir", "invalid_argument")


class KfrontError(Exception):
    """The base of kfront's errors. `str()` is the full located diagnostic; `kind`, `message`, `file`,
    `line` and `col` are its facts (see the module's docstring)."""

    kind = KIND_NONE

    def __init__(self, text="", *, kind=None, message=None, file=None, line=0, col=0):
        if not text and message is not None:
            text = format_diagnostic(message, file, line, col)
        super().__init__(text)
        if kind is not None:
            self.kind = kind
        self.message = text if message is None else message
        self.file = file
        self.line = line
        self.col = col

    def __str__(self):
        return str(self.args[0]) if self.args else ""


class CompilerError(KfrontError):
    """A function could not be compiled. numba.core.errors.NumbaError and CompilerError are this class."""


class TypingError(CompilerError):
    """Numba's typing rules refuse the function (numba.core.errors.TypingError)."""

    kind = KIND_TYPING


class UnsupportedError(CompilerError):
    """Valid Numba that kfront does not handle (numba.core.errors.UnsupportedError)."""

    kind = KIND_UNSUPPORTED


class CompileValueError(CompilerError, ValueError):
    """A constant of the function that numba-cuda's lowering refuses with ValueError (cuda.local.array's
    alignment= that is not a positive power of 2 multiple of 8): a ValueError, as numba-cuda's."""


class SourceUnavailableError(CompilerError):
    """No text kfront found when the function was decorated is its source (kfront._capture), so kfront cannot
    compile it."""

    kind = KIND_NOT_FOUND


class NotOnSimulatorError(UnsupportedError, AttributeError):
    """What only a GPU has, asked of kfront's simulator: a compiled kernel's registers and local memory (the
    simulator runs kfront's IR, which has neither), memory shared with other processes (IPC). An AttributeError
    too, as numba-cuda's simulator has no such attributes: code that probes for them (hasattr, getattr with a
    default, except AttributeError) takes the same path under both."""


def not_on_simulator(what):
    """The NotOnSimulatorError for `what` (a kernel attribute's name; the C extension raises it)."""
    why = {"regs_per_thread": "the simulator runs kfront's IR, which has no registers",
           "local_mem_per_thread": "the simulator runs kfront's IR, which has no local-memory frame"}.get(what, "")
    return NotOnSimulatorError("kfront: %s is known on a GPU only%s" % (what, " (%s)" % why if why else ""))


def kernel_exception_prefix(gpu, kernel, file, line, thread, block):
    """The head numba-cuda 0.30.4 gives an exception a kernel raised (the C extension then adds ": message" and
    kfront's located diagnostic). Its simulator: "tid=[x, y, z] ctaid=[x, y, z]" (threadIdx and blockIdx, x first).
    On a GPU (its dispatcher's launch, reading the kernel's __tid*__ and __ctaid*__ globals in the order z, y, x):
    "In function 'f', file /abs/file.py, line L, tid=[z, y, x] ctaid=[z, y, x]", f the function whose source holds
    the raise — the nearest `def` above its line, as numba's Loc._raw_function_name finds it, else the kernel."""
    if not gpu:
        return "tid=%s ctaid=%s" % (list(thread), list(block))
    prefix = "tid=%s ctaid=%s" % (list(thread)[::-1], list(block)[::-1])
    if not file or not line:
        return prefix
    import linecache
    import os
    import re
    function = kernel
    lines = linecache.getlines(file)
    for text in reversed(lines[:line - 1]):
        if text.strip().startswith("def "):
            m = re.match(r"def\s+(\w+)", text.strip())
            function = m.group(1) if m else kernel
            break
    if function is None:
        return prefix
    return "In function %r, file %s, line %s, %s" % (function, os.path.abspath(file), line, prefix)


class KernelRaisedError(KfrontError):
    """An exception a kernel raised whose class the C layer does not know by name (a class of the user's
    module): kfront.cuda raises the user's class instead; `exception` names it."""

    kind = 12


class KernelArgumentError(KfrontError, TypeError):
    """Arguments that do not fit the kernel (count, dtype, rank, layout)."""

    kind = KIND_ARGUMENT


class UntypeableArgumentError(KernelArgumentError, ValueError):
    """A kernel argument kfront cannot pass (a generator, an iterator, a range, object(), a list...): numba-cuda's
    typeof raises ValueError ("Cannot determine Numba type of <class 'generator'>") for the objects it cannot type,
    and kfront's TypeError says the same; it is both."""


class LaunchError(KfrontError, ValueError):
    """A launch configuration the device cannot run: grid, block or shared memory out of its limits, or more
    threads per block than the kernel's launch_bounds. numba-cuda 0.30 launches through cuda.core, whose
    CUDAError (cuda.core._utils.cuda_utils) carries the driver's refusal (CUDA_ERROR_INVALID_VALUE); where a
    program has imported that class, so that it can catch it, a LaunchError is also an instance of it."""

    kind = KIND_LAUNCH_CONFIG

    def __new__(cls, *args, **kwargs):
        if cls is LaunchError:
            cls = _launch_error_class()
        return super().__new__(cls, *args, **kwargs)

    def __reduce__(self):
        # pickled as LaunchError (the subclass that is also cuda.core's CUDAError is made at run time and has no
        # importable name), whose __new__ makes that subclass again where the unpickling process imported cuda.core
        return (LaunchError, self.args, self.__dict__)


_CUDA_CORE_ERRORS = "cuda.core._utils.cuda_utils"
_launch_error_classes = {}


def _launch_error_class():
    """LaunchError, or its subclass that is also cuda.core's CUDAError when the program has imported it."""
    import sys
    core = getattr(sys.modules.get(_CUDA_CORE_ERRORS), "CUDAError", None)
    if not (isinstance(core, type) and issubclass(core, Exception)):
        return LaunchError
    cls = _launch_error_classes.get(core)
    if cls is None:
        cls = _launch_error_classes[core] = type("LaunchError", (LaunchError, core), {
            "__module__": __name__, "__doc__": LaunchError.__doc__})
    return cls


class CudaDriverError(KfrontError):
    """The CUDA driver or the device failed (numba's CudaAPIError and CudaDriverError). `code` is the
    driver's error code where one is known, else None."""

    kind = KIND_DEVICE
    code = None


class OutOfMemoryError(CudaDriverError, MemoryError):
    """Memory ran out: the device's (on a GPU numba-cuda's CudaAPIError of CUDA_ERROR_OUT_OF_MEMORY, on the
    simulator NumPy's MemoryError, as numba-cuda's simulator allocates with NumPy) or, rarely, the host's for
    kfront's own use. Both a CudaDriverError and a MemoryError, so either except clause catches it."""

    kind = KIND_OUT_OF_MEMORY


class CudaSupportError(KfrontError, ImportError):
    """No CUDA driver or device can be used (numba-cuda's cudadrv.error.CudaSupportError, an ImportError)."""

    kind = KIND_DEVICE


class NvrtcError(KfrontError):
    """NVRTC failed (numba-cuda's cudadrv.error.NvrtcError)."""

    kind = KIND_BACKEND

    def __str__(self):
        return "\n".join(map(str, self.args))


class NvrtcCompilationError(NvrtcError):
    """CUDA C/C++ that NVRTC did not compile: its errors, located (numba-cuda's NvrtcCompilationError)."""


class NvrtcSupportError(KfrontError, ImportError):
    """No NVRTC was found (numba-cuda's NvrtcSupportError, an ImportError): the message names every place searched."""


class CCSupportError(KfrontError, RuntimeError):
    """A compute capability the toolkit cannot compile for (numba-cuda's CCSupportError)."""


class KfrontWarning(Warning):
    """The base of kfront's warnings (numba.core.errors.NumbaWarning)."""


class PerformanceWarning(KfrontWarning):
    """Code that will run slowly, e.g. a launch of low occupancy (NumbaPerformanceWarning)."""


class InvalidConfigWarning(KfrontWarning):
    """Options that do not go together, e.g. cuda.jit(debug=True) with opt=True (NumbaInvalidConfigWarning)."""


class KfrontDeprecationWarning(KfrontWarning, DeprecationWarning):
    """NumbaDeprecationWarning."""


class KfrontPendingDeprecationWarning(KfrontWarning, PendingDeprecationWarning):
    """NumbaPendingDeprecationWarning."""


# the class each kind is raised as (registered with the C extension by `register`)
KIND_CLASSES = {
    KIND_NONE: KfrontError,
    KIND_INTERNAL: CompilerError,
    KIND_SYNTAX: UnsupportedError,      # Python parsed the source: what kfront cannot parse it does not support
    KIND_TYPING: TypingError,
    KIND_UNSUPPORTED: UnsupportedError,
    KIND_ARGUMENT: KernelArgumentError,
    KIND_LAUNCH_CONFIG: LaunchError,
    KIND_OUT_OF_BOUNDS: IndexError,
    KIND_DEVICE: CudaDriverError,
    KIND_BACKEND: CompilerError,
    KIND_NOT_FOUND: KfrontError,
    KIND_OUT_OF_MEMORY: OutOfMemoryError,
    KIND_RAISED: KernelRaisedError,
    KIND_VALUE: CompileValueError,
    KIND_INVALID_IR: CompilerError,        # as KIND_INTERNAL, which these were before they had kinds of their own
    KIND_INVALID_ARGUMENT: CompilerError,
}

# numba.core.errors (and numba.cuda.cudadrv) names -> kfront's classes
NUMBA_ERRORS = {
    "NumbaError": CompilerError,
    "CompilerError": CompilerError,
    "InternalError": CompilerError,
    "LoweringError": CompilerError,
    "TypingError": TypingError,
    "NumbaTypeError": TypingError,
    "NumbaValueError": TypingError,
    "NumbaAttributeError": TypingError,
    "NumbaNotImplementedError": TypingError,
    "NumbaKeyError": TypingError,
    "NumbaIndexError": TypingError,
    "UntypedAttributeError": TypingError,
    "NotDefinedError": TypingError,
    "UnsupportedError": UnsupportedError,
    "UnsupportedBytecodeError": UnsupportedError,  # numba's, for bytecode it has no support for (match patterns)
    "CudaAPIError": CudaDriverError,
    "CudaDriverError": CudaDriverError,
    "NumbaWarning": KfrontWarning,
    "NumbaPerformanceWarning": PerformanceWarning,
    "NumbaDeprecationWarning": KfrontDeprecationWarning,
    "NumbaPendingDeprecationWarning": KfrontPendingDeprecationWarning,
    "NumbaExperimentalFeatureWarning": KfrontWarning,
    "NumbaInvalidConfigWarning": InvalidConfigWarning,
    "NumbaDebugInfoWarning": KfrontWarning,
    "NumbaParallelSafetyWarning": KfrontWarning,
    "NumbaTypeSafetyWarning": KfrontWarning,
    "NumbaPedanticWarning": KfrontWarning,
    "NumbaIRAssumptionWarning": KfrontWarning,
    "NumbaSystemWarning": KfrontWarning,
}


# kfront's classes that are also numba.core.errors' classes beside a real numba (derive_from_numba), each a parent
# before its children. numba's TypingError and UnsupportedError are NumbaErrors but not CompilerErrors, so kfront's
# CompilerError (their base) is numba's NumbaError, the class of every numba compile error. KfrontWarning itself
# stays kfront's (Python cannot swap a builtin base, Warning, for a class of another layout, NumbaWarning; only
# kfront's own notices, the alias's, are raised as it): its subclasses are NumbaWarnings through numba's subclasses.
NUMBA_BASES = {
    CompilerError: "NumbaError",
    TypingError: "TypingError",
    UnsupportedError: "UnsupportedError",
    PerformanceWarning: "NumbaPerformanceWarning",
    InvalidConfigWarning: "NumbaInvalidConfigWarning",
    KfrontDeprecationWarning: "NumbaDeprecationWarning",
    KfrontPendingDeprecationWarning: "NumbaPendingDeprecationWarning",
}

_own_bases = {}  # the classes derive_from_numba changed -> their own bases


def derive_from_numba(numba_errors):
    """Makes each class of NUMBA_BASES a subclass of the class of its name in `numba_errors` (the real numba's
    numba.core.errors module) too, for the alias's "cuda" scope: numba's class joins the class's bases, after
    them, in place of any base numba's class already derives from (DeprecationWarning for NumbaDeprecationWarning).
    A name `numba_errors` does not have leaves its class as it is. Idempotent; underive_from_numba undoes it."""
    underive_from_numba()
    for cls, name in NUMBA_BASES.items():
        base = getattr(numba_errors, name, None)
        if not isinstance(base, type) or issubclass(base, (KfrontError, KfrontWarning)):
            continue  # not numba's (kfront's own alias of numba.core.errors, or a numba without the name)
        own = cls.__bases__
        cls.__bases__ = tuple(b for b in own if not issubclass(base, b)) + (base,)
        _own_bases[cls] = own


def underive_from_numba():
    """Gives the classes derive_from_numba changed their own bases back."""
    for cls, own in reversed(list(_own_bases.items())):
        cls.__bases__ = own
    _own_bases.clear()


def format_diagnostic(message, file=None, line=0, col=0):
    """`file:line:col: error: message` with the parts that are known (kfront's diagnostic head)."""
    where = ""
    if file:
        where = str(file)
        if line:
            where += ":%d" % line
            if col:
                where += ":%d" % col
        where += ": "
    return "%serror: %s" % (where, message)


def make_error(kind, text, *, message=None, file=None, line=0, col=0, **facts):
    """The exception kfront raises for a diagnostic of `kind` (an int of KIND_*): an instance of
    KIND_CLASSES[kind] with text as its str() and the facts as attributes (for IndexError also kernel,
    axis, index and extent, passed in **facts)."""
    cls = KIND_CLASSES.get(kind, KfrontError)
    if issubclass(cls, KfrontError):
        exc = cls(text, kind=kind, message=message, file=file, line=line, col=col)
    else:
        exc = cls(text)
        exc.kind = kind
        exc.message = text if message is None else message
        exc.file, exc.line, exc.col = file, line, col
    for name, value in facts.items():
        setattr(exc, name, value)
    return exc


_registered_with = None


def register():
    """Registers KIND_CLASSES with the C extension (kfront._kfront.set_exceptions), so that its errors are
    raised as these classes. Called by kfront.cuda when it makes its runtime or compiles without one (once per
    extension module)."""
    global _registered_with
    import importlib
    ext = importlib.import_module("kfront._kfront")
    if _registered_with is not ext:
        ext.set_exceptions(dict(KIND_CLASSES))
        _registered_with = ext
