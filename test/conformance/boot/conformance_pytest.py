"""conformance_pytest — the pytest plugin of the conformance gauge's test processes (`-p conformance_pytest`).

    --conformance-records FILE   appends one line per event to FILE (tab-separated, flushed at once, so a
                                 process that dies leaves what it did):
                                   start   TEST                          before a test's setup
                                   result  TEST OUTCOME SECONDS MESSAGE  after its teardown
                                 TEST is Class.method (or a module-level function's name; `<module>` for the
                                 import of the module); OUTCOME is pass, fail, error (setup or teardown, or the
                                 module's import), skip, xfail, xpass or timeout; MESSAGE is the first line of
                                 the exception (`Type: text`) or the skip reason. Tests FILE already has a
                                 result for are deselected, so a run resumed after a crash goes on from there.
    --conformance-timeout SECS   each test's limit (setup, call and teardown together). At the limit SIGALRM
                                 raises TestTimeout in the test (outcome timeout). A test stuck in native code
                                 does not see it: the runner (conformance.py) kills the process when a test's
                                 start has had no result for longer, records timeout, and resumes.

Test modules under numba.cuda.tests' folders are imported by their dotted names (numba.cuda.tests.cudapy.
test_x), through conformance_boot's resolution, not by pytest's file-path rules. Defines numba-cuda's
`initialize_from_pytest_config` fixture (its test classes ask for it by name).
"""
import importlib
import os
import signal
import time

import pytest

import conformance_boot

class TestTimeout(BaseException):
    """Raised in a test at its time limit (a BaseException: a test's `except Exception` does not swallow it)."""


def pytest_addoption(parser):
    group = parser.getgroup("conformance")
    group.addoption("--conformance-records", default=None)
    group.addoption("--conformance-timeout", type=float, default=60.0)
    group.addoption("--dump-failed-filechecks", action="store_true", default=False)


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    if request.cls is not None:
        request.cls._dump_failed_filechecks = request.config.getoption("dump_failed_filechecks")


class DottedModule(pytest.Module):
    """A test module imported by its name in the numba.cuda.tests package."""

    def _getobj(self):
        rel = os.path.relpath(str(self.path), conformance_boot.TESTS_DIR)
        name = "numba.cuda.tests." + rel[:-3].replace(os.sep, ".")
        return importlib.import_module(name)


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path, parent):
    tests = conformance_boot.TESTS_DIR
    if tests and str(module_path).startswith(tests + os.sep):
        return DottedModule.from_parent(parent, path=module_path)
    return None


def test_name(nodeid):
    """Class.method from a pytest node id (cudapy/test_x.py::Class::method)."""
    return ".".join(nodeid.split("::")[1:]) or "<module>"


def _one_line(text, limit=300):
    line = next((l.strip() for l in str(text).splitlines() if l.strip()), "")
    line = line.replace("\t", " ")
    return line[:limit]


class Recorder:
    def __init__(self, config):
        self.path = config.getoption("conformance_records")
        self.timeout = config.getoption("conformance_timeout")
        self.done = set()
        if os.path.exists(self.path):
            with open(self.path) as f:
                for line in f:
                    parts = line.rstrip("\n").split("\t")
                    if parts[0] == "result":
                        self.done.add(parts[1])
        self.out = open(self.path, "a", buffering=1)
        self.reports = {}

    def write(self, *fields):
        self.out.write("\t".join(str(f) for f in fields) + "\n")
        self.out.flush()

    # pytest hooks

    def pytest_collection_modifyitems(self, config, items):
        keep = [i for i in items if test_name(i.nodeid) not in self.done]
        dropped = [i for i in items if test_name(i.nodeid) in self.done]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = keep

    def pytest_collectreport(self, report):
        if report.outcome == "passed" or "<module>" in self.done:
            return
        if report.outcome == "skipped":
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
            self.write("result", "<module>", "skip", "0", _one_line(reason))
        else:
            self.write("result", "<module>", "error", "0", _exception_line(report))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        name = test_name(item.nodeid)
        self.write("start", name)
        self.reports[name] = []
        started = time.monotonic()
        previous = signal.signal(signal.SIGALRM, _raise_timeout)
        signal.setitimer(signal.ITIMER_REAL, self.timeout)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            elapsed = time.monotonic() - started
            outcome, message = _outcome(self.reports.pop(name))
            self.write("result", name, outcome, "%.2f" % elapsed, message)

    def pytest_runtest_logreport(self, report):
        name = test_name(report.nodeid)
        if name in self.reports:
            self.reports[name].append(report)


def _raise_timeout(signum, frame):
    raise TestTimeout("the test ran past its time limit")


def _exception_line(report):
    """`Type: first line` of a failed report's exception."""
    excinfo = getattr(report, "_conformance_exc", None)
    if excinfo:
        return excinfo
    text = str(report.longrepr) if report.longrepr is not None else ""
    lines = [l for l in text.splitlines() if l.startswith("E ")]
    if lines:
        return _one_line(lines[0][1:].strip())
    return _one_line(text.splitlines()[-1] if text.strip() else "")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is not None:
        e = call.excinfo
        report._conformance_exc = _one_line("%s: %s" % (e.type.__name__, e.value)) if str(e.value) \
            else e.type.__name__
        report._conformance_timeout = isinstance(e.value, TestTimeout)


def _outcome(reports):
    """The test's outcome and message from its setup, call and teardown reports."""
    # a test's subtests (unittest's subTest) report "call" too, before the test's own report: the first failed
    # report of a phase decides, so a failing subtest fails its test
    by_when = {}
    for r in reports:
        if r.when not in by_when or (r.failed and not by_when[r.when].failed):
            by_when[r.when] = r
    for when in ("setup", "call", "teardown"):
        r = by_when.get(when)
        if r is None:
            continue
        if getattr(r, "_conformance_timeout", False):
            return "timeout", "the test ran past its time limit (%s)" % when
        if hasattr(r, "wasxfail"):
            return ("xfail", _one_line(r.wasxfail)) if r.skipped else ("xpass", _one_line(r.wasxfail))
        if r.skipped:
            reason = r.longrepr[2] if isinstance(r.longrepr, tuple) else r.longrepr
            return "skip", _one_line(reason)
        if r.failed:
            return ("fail" if when == "call" else "error"), _exception_line(r)
    if "call" not in by_when:
        return "error", "no result (setup and call not reported)"
    return "pass", ""


def pytest_configure(config):
    if config.getoption("conformance_records"):
        config.pluginmanager.register(Recorder(config), "conformance_recorder")
