"""`numba.cuda.tests.support` under the conformance shim: the helpers numba-cuda's tests import from it, written
for the project from their documented behaviour (numba-cuda's test-support docstrings and what its tests
expect of them) and working over whichever `numba.cuda` conformance_boot installed.

    TestCase                 unittest.TestCase with assertPreciseEqual (type family, dtype, shape, strides,
                             writeability and values compared; 'exact', 'single' or 'double' precision, ulps,
                             signed zeros, NaN equal to NaN), assertTypingError, assertStridesEqual,
                             assertRefCount, random (a RandomState seeded alike for every test),
                             reset_module_warnings, run_test_in_subprocess
    CheckWarningsMixin       check_warnings(messages, category)
    MemoryLeakMixin          numba-cuda's NRT leak check where numba.cuda has NRT; nothing to check otherwise
    captured_stdout/stderr, override_config, run_in_subprocess, temp_directory, import_dynamic,
    ignore_internal_warnings, linux_only, windows_only, skip_unless_cffi, IS_NUMPY_2
"""
import cmath
import contextlib
import enum
import functools
import gc
import importlib
import importlib.util
import io
import math
import os
import subprocess
import sys
import tempfile
import unittest
import warnings

import numpy as np


def cuda_config():
    """numba.cuda's settings: numba.cuda.config (numba-cuda 0.30's layout), else kfront.config, which is what
    numba.cuda's settings are under kfront's drop-in while it lacks that layout."""
    try:
        from numba.cuda import config
        return config
    except ImportError:
        import kfront.config
        return kfront.config


def _cuda_errors():
    """numba.cuda's error classes module (numba.cuda.core.errors), else numba's (numba.core.errors)."""
    for name in ("numba.cuda.core.errors", "numba.core.errors"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


IS_NUMPY_2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"
linux_only = unittest.skipIf(not sys.platform.startswith("linux"), "linux only test")
windows_only = unittest.skipIf(not sys.platform.startswith("win"), "Windows only test")
skip_unless_cffi = unittest.skipUnless(importlib.util.find_spec("cffi") is not None, "requires cffi")


def captured_stdout():
    """A context manager whose value is an io.StringIO that receives what is written to sys.stdout in it."""
    return contextlib.redirect_stdout(io.StringIO())


def captured_stderr():
    """As captured_stdout, for sys.stderr."""
    return contextlib.redirect_stderr(io.StringIO())


@contextlib.contextmanager
def override_config(name, value):
    """Sets numba.cuda's setting `name` (which must exist) to `value` for the block, then puts it back."""
    config = cuda_config()
    saved = getattr(config, name)
    setattr(config, name, value)
    try:
        yield
    finally:
        setattr(config, name, saved)


def run_in_subprocess(code, flags=(), env=None, timeout=30):
    """Runs `python [flags] -c code` (this interpreter); returns (stdout, stderr) as text. A non-zero exit
    status fails the test with the child's stderr."""
    proc = subprocess.run([sys.executable, *flags, "-c", code], env=env, capture_output=True, text=True,
                          timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError("process failed with code %d: stderr:\n%s\n" % (proc.returncode, proc.stderr))
    return proc.stdout, proc.stderr


_TEMP_ROOT = os.path.join(tempfile.gettempdir(), "kfront-conformance-%d" % os.getuid())


def temp_directory(prefix):
    """A new directory, named with `prefix`, that outlives the process (tests inspect files in it from
    subprocesses)."""
    os.makedirs(_TEMP_ROOT, exist_ok=True)
    return tempfile.mkdtemp(prefix=prefix + "-", dir=_TEMP_ROOT)


def import_dynamic(modname):
    """Imports `modname` after forgetting the import system's directory caches (the module was just
    written); returns it."""
    importlib.invalidate_caches()
    return importlib.import_module(modname)


def ignore_internal_warnings():
    """In a warnings.catch_warnings block: ignores warnings that come from the implementation's own
    machinery rather than from the code under test (typeguard's, TBB's version notice)."""
    warnings.filterwarnings("ignore", module="typeguard")
    warnings.filterwarnings("ignore", message=r".*TBB_INTERFACE_VERSION.*")


class CheckWarningsMixin:
    @contextlib.contextmanager
    def check_warnings(self, messages, category=RuntimeWarning):
        """Asserts that the block warns once with each of `messages` (substrings), each of `category`."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
        matches = [(w, m) for w in caught for m in messages if m in str(w.message)]
        for w, _ in matches:
            self.assertEqual(w.category, category)
        self.assertEqual(len(matches), len(messages))


def _nrt_runtime():
    """numba.cuda's NRT runtime object (rtsys), or None where numba.cuda has no NRT."""
    try:
        return importlib.import_module("numba.cuda.memory_management.nrt").rtsys
    except (ImportError, AttributeError):
        return None


class MemoryLeakMixin:
    """Asserts that a test frees what NRT allocated in it (where numba.cuda has an NRT; kfront has none, so
    there is nothing to check)."""

    def setUp(self):
        super().setUp()
        self._leak_check = True
        self._nrt = _nrt_runtime()
        if self._nrt is not None:
            self._nrt.memsys_enable_stats()
            gc.collect()
            self._nrt_start = self._nrt.get_allocation_stats()

    def tearDown(self):
        gc.collect()
        if self._nrt is not None:
            if self._leak_check:
                self.assert_no_memory_leak()
            self._nrt.memsys_disable_stats()
        super().tearDown()

    def assert_no_memory_leak(self):
        if self._nrt is None:
            return
        start, now = self._nrt_start, self._nrt.get_allocation_stats()
        self.assertEqual(now.alloc - start.alloc, now.free - start.free)
        self.assertEqual(now.mi_alloc - start.mi_alloc, now.mi_free - start.mi_free)

    def disable_leak_check(self):
        self._leak_check = False


def _family(value):
    """The comparison family of a value for assertPreciseEqual."""
    if isinstance(value, np.ndarray):
        return "ndarray"
    if isinstance(value, enum.Enum):
        return "enum"
    if isinstance(value, (tuple, list)):
        return "sequence"
    if isinstance(value, (bool, np.bool_, int, str, np.integer, bytes, np.bytes_)):
        return "exact"
    if isinstance(value, (complex, np.complexfloating)):
        return "complex"
    if isinstance(value, (float, np.inexact)):
        return "approximate"
    return "unknown"


def _unit_strides(arr):
    """The strides of arr in elements, over its dimensions longer than 1 (all zero for an empty array)."""
    if arr.size == 0:
        return [0] * arr.ndim
    return [s / arr.itemsize for s, n in zip(arr.strides, arr.shape) if n > 1]


class TestCase(unittest.TestCase):
    longMessage = True

    @functools.cached_property
    def random(self):
        """A numpy RandomState seeded with the same seed for every test."""
        return np.random.RandomState(42)

    def reset_module_warnings(self, module):
        """Clears a module's (or module name's) __warningregistry__, so a warning it gave before is given again."""
        if isinstance(module, str):
            module = sys.modules[module]
        module.__dict__.pop("__warningregistry__", None)

    @contextlib.contextmanager
    def assertTypingError(self):
        """Asserts that the block fails to compile: a TypingError or LoweringError, TypeError or
        NotImplementedError."""
        accepted = [TypeError, NotImplementedError]
        errors = _cuda_errors()
        for name in ("TypingError", "LoweringError"):
            if errors is not None and hasattr(errors, name):
                accepted.append(getattr(errors, name))
        with self.assertRaises(tuple(accepted)) as cm:
            yield cm

    @contextlib.contextmanager
    def assertRefCount(self, *objects):
        """Asserts that the block leaves the reference counts of `objects` as they were."""
        before = [sys.getrefcount(x) for x in objects]
        yield
        gc.collect()
        for old, obj in zip(before, objects):
            new = sys.getrefcount(obj)
            if old != new:
                self.fail("Refcount changed from %d to %d for object: %r" % (old, new, obj))

    def assertStridesEqual(self, first, second):
        """Asserts that two arrays have the same shape, itemsize and strides (over dimensions longer than 1)."""
        self.assertEqual(first.shape, second.shape, "shapes differ")
        self.assertEqual(first.itemsize, second.itemsize, "itemsizes differ")
        self.assertEqual(_unit_strides(first), _unit_strides(second), "strides differ")

    def assertPreciseEqual(self, first, second, prec="exact", ulps=1, msg=None, ignore_sign_on_zero=False,
                           abs_tol=None):
        """Asserts first and second are equal as values of one family: arrays of the same dtype, shape,
        strides and writeability with equal elements; sequences of equal items; scalars of the same kind
        (a bool never equals a number; NumPy scalars of the same dtype) equal exactly, or for floats and
        complexes under prec='single' / 'double' within 2**(ulps - bits - 1) * (|a| + |b|) (24 or 53 bits);
        NaN equals NaN; zeros of different sign differ unless ignore_sign_on_zero; abs_tol (a float, or
        "eps": the type's machine epsilon) accepts any closer pair."""
        try:
            self._precise_equal(first, second, prec, ulps, msg, ignore_sign_on_zero, abs_tol)
        except AssertionError as e:
            failure = str(e)
        else:
            return
        self.fail("when comparing %s and %s: %s" % (first, second, failure))

    def _precise_equal(self, first, second, prec, ulps, msg, ignore_sign_on_zero, abs_tol):
        family = _family(first)
        other = _family(second)
        self.assertEqual(family, other, "Type Family mismatch. (%s != %s)%s" %
                         (family, other, ": %s" % msg if msg else ""))
        recurse = functools.partial(self._precise_equal, prec=prec, ulps=ulps, msg=msg,
                                    ignore_sign_on_zero=ignore_sign_on_zero, abs_tol=abs_tol)
        if family == "ndarray":
            self.assertEqual(first.dtype, second.dtype)
            self.assertEqual(first.ndim, second.ndim, "different number of dimensions")
            self.assertEqual(first.shape, second.shape, "different shapes")
            self.assertEqual(first.flags.writeable, second.flags.writeable, "different mutability")
            self.assertEqual(_unit_strides(first), _unit_strides(second), "different strides")
            for a, b in zip(first.flat, second.flat):
                recurse(a, b)
            return
        if family == "sequence":
            self.assertEqual(len(first), len(second), msg=msg)
            for a, b in zip(first, second):
                recurse(a, b)
            return
        if family == "enum":
            self.assertIs(first.__class__, second.__class__)
            recurse(first.value, second.value)
            return
        if family == "unknown":
            self.assertIs(first.__class__, second.__class__)
        if hasattr(first, "dtype") and hasattr(second, "dtype"):
            self.assertEqual(first.dtype, second.dtype)
        if isinstance(first, (bool, np.bool_)) != isinstance(second, (bool, np.bool_)):
            self.fail("Mismatching return types (%s vs. %s)%s" %
                      (first.__class__, second.__class__, ": %s" % msg if msg else ""))
        try:
            if cmath.isnan(first) and cmath.isnan(second):
                return
        except TypeError:
            pass
        if abs_tol is not None:
            if abs_tol == "eps":
                tolerance = np.finfo(type(first)).eps
            elif isinstance(abs_tol, float):
                tolerance = abs_tol
            else:
                raise ValueError('abs_tol is not "eps" or a float, found %s' % abs_tol)
            if abs(first - second) < tolerance:
                return
        delta = None
        if family in ("complex", "approximate") and prec != "exact":
            bits = {"single": 24, "double": 53}.get(prec)
            if bits is None:
                raise ValueError("unsupported precision %r" % (prec,))
            delta = 2 ** (ulps - bits - 1) * (abs(first) + abs(second))
        if isinstance(first, (complex, np.complexfloating)):
            self._number_equal(first.real, second.real, delta, msg, ignore_sign_on_zero)
            self._number_equal(first.imag, second.imag, delta, msg, ignore_sign_on_zero)
        elif isinstance(first, (np.timedelta64, np.datetime64)) and np.isnat(first):
            self.assertEqual(np.isnat(first), np.isnat(second))
        else:
            self._number_equal(first, second, delta, msg, ignore_sign_on_zero)

    def _number_equal(self, first, second, delta, msg, ignore_sign_on_zero):
        if delta is not None and not (first == second == 0.0 or math.isinf(first) or math.isinf(second)):
            self.assertAlmostEqual(first, second, delta=delta, msg=msg)
            return
        self.assertEqual(first, second, msg=msg)
        if not ignore_sign_on_zero:
            try:
                if math.copysign(1, first) != math.copysign(1, second):
                    self.fail(self._formatMessage(msg, "%s != %s" % (first, second)))
            except TypeError:
                pass

    def run_test_in_subprocess(maybefunc=None, timeout=60, envvars=None):
        """Decorator: the test runs in a new interpreter (the same resolution of numba.cuda: the conformance
        runner's environment is inherited), which runs only it, and passes when it passes there."""
        def wrapper(func):
            @functools.wraps(func)
            def inner(self, *args, **kwargs):
                if os.environ.get("SUBPROC_TEST") == func.__name__:
                    return func(self, *args, **kwargs)
                test = "%s.%s.%s" % (self.__module__, type(self).__name__, func.__name__)
                env = dict(os.environ, SUBPROC_TEST=func.__name__, **(envvars or {}))
                proc = subprocess.run([sys.executable, "-m", "unittest", test], capture_output=True, text=True,
                                      timeout=timeout, env=env)
                streams = "\ncaptured stdout: %s\ncaptured stderr: %s" % (proc.stdout, proc.stderr)
                self.assertEqual(proc.returncode, 0, streams)
                if "NO TESTS RAN" in proc.stderr:
                    self.skipTest("NO TESTS RAN")
                self.assertIn("OK", proc.stderr)
            return inner

        return wrapper(maybefunc) if callable(maybefunc) else wrapper
