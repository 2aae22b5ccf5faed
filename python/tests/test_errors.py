"""kfront.errors: the classes, their facts, the kind -> class table and its registration with the C
extension."""
import pickle
import sys
import types

import numpy as np
import pytest

from kfront import cuda, errors


def test_hierarchy():
    assert issubclass(errors.CompilerError, errors.KfrontError)
    assert issubclass(errors.TypingError, errors.CompilerError)
    assert issubclass(errors.UnsupportedError, errors.CompilerError)
    assert issubclass(errors.SourceUnavailableError, errors.CompilerError)
    assert issubclass(errors.LaunchError, errors.KfrontError) and issubclass(errors.LaunchError, ValueError)
    assert issubclass(errors.KernelArgumentError, TypeError)
    assert issubclass(errors.CudaDriverError, errors.KfrontError)
    assert not issubclass(errors.CudaDriverError, errors.CompilerError)
    assert issubclass(errors.PerformanceWarning, errors.KfrontWarning)
    assert issubclass(errors.KfrontDeprecationWarning, DeprecationWarning)


def test_text_and_facts():
    text = "k.py:3:5: error: cannot add float32 and tuple\n    x = a + t\n        ^"
    e = errors.TypingError(text, message="cannot add float32 and tuple", file="k.py", line=3, col=5)
    assert str(e) == text and e.message == "cannot add float32 and tuple"
    assert (e.kind, e.file, e.line, e.col) == (errors.KIND_TYPING, "k.py", 3, 5)
    plain = errors.KfrontError("something failed")
    assert plain.message == "something failed" and plain.file is None and plain.line == 0 and plain.kind == 0
    built = errors.UnsupportedError(message="no complex numbers", file="k.py", line=7)
    assert str(built) == "k.py:7: error: no complex numbers"
    assert errors.format_diagnostic("m") == "error: m"
    assert errors.format_diagnostic("m", "f.py", 2, 9) == "f.py:2:9: error: m"


def test_pickle_keeps_facts():
    e = errors.LaunchError("bad block", message="block too large", file=None, line=0, col=0)
    e.kind = errors.KIND_LAUNCH_CONFIG
    f = pickle.loads(pickle.dumps(e))
    assert type(f) is type(e) and str(f) == "bad block" and f.message == "block too large"
    assert f.kind == errors.KIND_LAUNCH_CONFIG


def test_launch_error_pickles_where_cuda_core_is_imported():
    # where cuda.core is imported, a LaunchError is also its CUDAError (a subclass made at run time): it still
    # pickles (multiprocessing sends exceptions back so), and comes back as that subclass
    core_errors = pytest.importorskip("cuda.core._utils.cuda_utils")
    e = errors.LaunchError("bad grid", message="grid too large", file=None, line=0, col=0)
    assert isinstance(e, core_errors.CUDAError) and isinstance(e, errors.LaunchError)
    f = pickle.loads(pickle.dumps(e))
    assert type(f) is type(e) and str(f) == "bad grid" and f.message == "grid too large"


def test_kind_classes_cover_every_kind():
    assert sorted(errors.KIND_CLASSES) == list(range(len(errors.KIND_NAMES)))
    assert errors.KIND_CLASSES[errors.KIND_OUT_OF_BOUNDS] is IndexError
    assert errors.KIND_CLASSES[errors.KIND_TYPING] is errors.TypingError
    assert errors.KIND_CLASSES[errors.KIND_ARGUMENT] is errors.KernelArgumentError
    assert errors.KIND_CLASSES[errors.KIND_OUT_OF_MEMORY] is errors.OutOfMemoryError
    assert issubclass(errors.OutOfMemoryError, MemoryError) and issubclass(errors.OutOfMemoryError, errors.CudaDriverError)
    assert errors.KIND_NAMES[errors.KIND_LAUNCH_CONFIG] == "launch_config"


def test_make_error():
    e = errors.make_error(errors.KIND_OUT_OF_BOUNDS, "IndexError: index 10 is out of bounds", message="index 10",
                          file="k.py", line=4, col=9, kernel="foo", axis=0, index=10, extent=10)
    assert type(e) is IndexError and str(e) == "IndexError: index 10 is out of bounds"
    assert (e.kernel, e.axis, e.index, e.extent, e.file, e.line, e.col) == ("foo", 0, 10, 10, "k.py", 4, 9)
    d = errors.make_error(errors.KIND_DEVICE, "driver failed")
    assert type(d) is errors.CudaDriverError and d.kind == errors.KIND_DEVICE and d.code is None
    s = errors.make_error(errors.KIND_SYNTAX, "k.py:1:1: error: walrus")
    assert isinstance(s, errors.UnsupportedError) and s.kind == errors.KIND_SYNTAX


def test_numba_names():
    assert errors.NUMBA_ERRORS["TypingError"] is errors.TypingError
    assert errors.NUMBA_ERRORS["NumbaError"] is errors.CompilerError
    assert errors.NUMBA_ERRORS["CudaAPIError"] is errors.CudaDriverError
    assert errors.NUMBA_ERRORS["NumbaPerformanceWarning"] is errors.PerformanceWarning
    for name, cls in errors.NUMBA_ERRORS.items():
        assert issubclass(cls, (errors.KfrontError, errors.KfrontWarning)), name


def test_register_hands_the_table_to_the_extension(monkeypatch):
    got = {}
    fake = types.ModuleType("kfront._kfront")
    fake.set_exceptions = got.update
    monkeypatch.setitem(sys.modules, "kfront._kfront", fake)
    errors.register()
    assert got == errors.KIND_CLASSES


# ---- beside a real numba: kfront's classes are also numba.core.errors' (derive_from_numba) ----

def _numba_like_errors():
    """Classes shaped as numba.core.errors' (their bases and __init__ signatures), for the tests that need no
    numba; the real ones are tested under the oracle's interpreter below."""
    mod = types.ModuleType("numba_like_errors")

    class NumbaError(Exception):
        def __init__(self, msg, loc=None, highlighting=True):
            self.msg, self.loc = msg, loc
            super().__init__(msg)

    class NumbaWarning(Warning):
        def __init__(self, msg, loc=None, highlighting=True):
            self.msg, self.loc = msg, loc
            super().__init__(msg)

    mod.NumbaError = NumbaError
    mod.TypingError = type("TypingError", (NumbaError,), {})
    mod.UnsupportedError = type("UnsupportedError", (NumbaError,), {})
    mod.NumbaWarning = NumbaWarning
    mod.NumbaPerformanceWarning = type("NumbaPerformanceWarning", (NumbaWarning,), {})
    mod.NumbaInvalidConfigWarning = type("NumbaInvalidConfigWarning", (NumbaWarning,), {})
    mod.NumbaDeprecationWarning = type("NumbaDeprecationWarning", (NumbaWarning, DeprecationWarning), {})
    # (no NumbaPendingDeprecationWarning: a name numba lacks leaves kfront's class as it is)
    return mod


@pytest.fixture
def derived():
    own = {cls: cls.__bases__ for cls in errors.NUMBA_BASES}
    nb = _numba_like_errors()
    errors.derive_from_numba(nb)
    yield nb
    errors.underive_from_numba()
    assert {cls: cls.__bases__ for cls in errors.NUMBA_BASES} == own


def test_derived_classes_are_caught_by_numbas_and_kfronts_names(derived):
    nb = derived
    e = errors.TypingError("k.py:3:5: error: bad", message="bad", file="k.py", line=3, col=5)
    assert isinstance(e, nb.TypingError) and isinstance(e, nb.NumbaError) and isinstance(e, errors.CompilerError)
    assert not isinstance(e, nb.UnsupportedError)
    # kfront's __init__ and __str__ come first: the facts and the located text are kfront's
    assert (str(e), e.message, e.file, e.line, e.col, e.kind) == ("k.py:3:5: error: bad", "bad", "k.py", 3, 5,
                                                                 errors.KIND_TYPING)
    for raised, numba_class in ((errors.TypingError("t"), nb.TypingError), (errors.UnsupportedError("u"),
                                nb.UnsupportedError), (errors.CompilerError("c"), nb.NumbaError),
                                (errors.SourceUnavailableError("s"), nb.NumbaError)):
        with pytest.raises(numba_class):
            raise raised
        with pytest.raises(type(raised)):
            raise raised
    # the C extension's classes (KIND_CLASSES) are the same objects, so its raises are numba's too
    assert isinstance(errors.make_error(errors.KIND_TYPING, "x"), nb.TypingError)
    assert isinstance(errors.make_error(errors.KIND_SYNTAX, "x"), nb.UnsupportedError)
    n = errors.not_on_simulator("regs_per_thread")
    assert isinstance(n, AttributeError) and isinstance(n, nb.UnsupportedError)
    assert not isinstance(errors.KernelArgumentError("a"), nb.NumbaError)
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is errors.TypingError and back.line == 3 and isinstance(back, nb.TypingError)


def test_derived_warnings_match_numbas_filters(derived):
    import warnings
    nb = derived
    assert issubclass(errors.PerformanceWarning, nb.NumbaPerformanceWarning)
    assert issubclass(errors.InvalidConfigWarning, nb.NumbaInvalidConfigWarning)
    assert issubclass(errors.KfrontDeprecationWarning, nb.NumbaDeprecationWarning)
    assert issubclass(errors.KfrontDeprecationWarning, DeprecationWarning)
    assert errors.KfrontPendingDeprecationWarning.__bases__ == (errors.KfrontWarning, PendingDeprecationWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error", nb.NumbaPerformanceWarning)
        with pytest.raises(errors.PerformanceWarning, match="low occupancy"):
            warnings.warn(errors.PerformanceWarning("low occupancy"))


def test_derive_is_idempotent_and_skips_kfronts_own_classes(derived):
    nb = derived
    errors.derive_from_numba(nb)
    assert errors.TypingError.__bases__ == (errors.CompilerError, nb.TypingError)
    # the alias of scope "numba" maps numba.core.errors' names to kfront's classes: nothing to derive from
    own = types.SimpleNamespace(**errors.NUMBA_ERRORS)
    errors.derive_from_numba(own)
    assert errors.TypingError.__bases__ == (errors.CompilerError,)


def test_the_numba_scope_derives_nothing():
    """Where numba is absent (the project's interpreter), the alias (scope "numba") leaves kfront's classes as they
    are; the cuda scope, beside a real numba, is tested under the oracle's interpreter (test_alias.py's fixture)."""
    import importlib.util
    from kfront._alias import alias_scope, install_numba_alias, uninstall_numba_alias
    if importlib.util.find_spec("numba") is not None:
        pytest.skip("numba is installed in this interpreter, so the alias's scope here is \"cuda\"")
    own = {cls: cls.__bases__ for cls in errors.NUMBA_BASES}
    install_numba_alias()
    try:
        import numba.core.errors
        assert alias_scope() == "numba" and numba.core.errors.TypingError is errors.TypingError
        assert {cls: cls.__bases__ for cls in errors.NUMBA_BASES} == own
    finally:
        uninstall_numba_alias()


# ---- numba-cuda's wordings, in kfront's located diagnostics ----

def _nonliteral_grid(x):
    cuda.grid(x)


def _nonliteral_gridsize(x):
    cuda.gridsize(x)


def test_nonliteral_grid_says_require_literal_value():
    """numba-cuda's grid/gridsize intrinsics raise RequireLiteralValue(type), which its TypingError quotes (its
    test_intrinsics checks the name)."""
    for fn, name in ((_nonliteral_grid, "cuda.grid"), (_nonliteral_gridsize, "cuda.gridsize")):
        with pytest.raises(errors.TypingError, match=r"RequireLiteralValue: int32") as info:
            cuda.jit("void(int32)")(fn)
        assert str(info.value).startswith("%s:%d:" % (__file__, fn.__code__.co_firstlineno + 1))
        assert info.value.message.startswith("%s() takes a literal 1, 2 or 3" % name)


def test_growing_recursive_tuple_does_not_converge():
    @cuda.jit
    def make_list(n):
        if n <= 0:
            return None
        return (n, make_list(n - 1))

    with pytest.raises(errors.TypingError, match="Return type of recursive function does not converge") as info:
        @cuda.jit("void()")
        def kernel():
            make_list(100)
    assert info.value.file == __file__ and info.value.line == make_list.py_func.__code__.co_firstlineno + 4


def test_recursion_that_converges_still_compiles():
    @cuda.jit(device=True)
    def fact(n):
        if n <= 1:
            return 1
        return n * fact(n - 1)

    @cuda.jit
    def kernel(out):
        out[0] = fact(5)

    out = np.zeros(1, np.int64)
    kernel[1, 1](out)
    assert out[0] == 120
