"""kfront.errors: the classes, their facts, the kind -> class table and its registration with the C
extension."""
import pickle
import sys
import types

import pytest

from kfront import errors


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
    assert type(f) is errors.LaunchError and str(f) == "bad block" and f.message == "block too large"


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
