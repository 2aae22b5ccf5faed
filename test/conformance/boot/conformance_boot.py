"""conformance_boot — makes `numba.cuda` resolve as the conformance target says, in every process of a run.

The conformance gauge (test/conformance/conformance.py) runs numba-cuda 0.30.4's own tests, unchanged, with
`numba.cuda` provided by one implementation or the other. This module installs that resolution; the
sitecustomize.py beside it calls install() at interpreter start-up when KFRONT_CONFORMANCE_TARGET is set, so
that the subprocesses a test starts (run_in_subprocess, multiprocessing's spawn, `python -m numba.runtests`)
resolve `numba.cuda` as the test process does. Environment:

    KFRONT_CONFORMANCE_TARGET   kfront          numba.cuda is kfront; the scaffolding (numba.cuda.testing,
                                                numba.cuda.tests, numba.cuda.tests.support) is the project's
                                                shim (test/conformance/shim/)
                                numba-cuda      numba.cuda is numba-cuda itself, with its own scaffolding:
                                                the baseline
                                numba-cuda+shim numba-cuda with the project's shim: checks the shim against
                                                numba-cuda's own scaffolding
    KFRONT_CONFORMANCE_TESTS    the prepared copy of numba-cuda's tests folder (`conformance.py prepare`): it
                                is `numba.cuda.tests`'s __path__ for every target, so all of them run the
                                same files

Under kfront, numba's own modules stay numba's where numba is installed ("cuda-only": `numba.core`,
`numba.njit`, `numba.np.numpy_support` are numba's, `numba.cuda` and below are kfront's), and are kfront's
drop-in otherwise ("whole", as `python -m kfront` has it): kfront._alias.install_numba_alias() with its default
scope does exactly that, and its finder answers every numba.cuda name the scaffolding finder here (put before
it) does not serve.
"""
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

TARGETS = ("kfront", "numba-cuda", "numba-cuda+shim")
SHIM_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "shim")

TARGET = None        # the installed target
TESTS_DIR = None     # the prepared tests folder
NUMBA_MODE = None    # kfront target: "cuda-only" (numba beside kfront's numba.cuda) or "whole" (no numba)
REAL_NUMBA = None    # whether `numba` (not numba.cuda) is numba itself


# numba-cuda's compiler internals that test modules import at module level (shim/numba_internals.py: placeholders
# that refuse every use, so that the module's other tests run; served under target kfront only).
NUMBA_INTERNALS = ("numba.cuda.core.controlflow", "numba.cuda.core.bytecode", "numba.cuda.core.callconv",
                   "numba.cuda.core.rewrites")


def _is_cuda_name(name):
    return name == "numba.cuda" or name.startswith("numba.cuda.")


class _ScaffoldingFinder(importlib.abc.MetaPathFinder):
    """First on sys.meta_path. Serves the scaffolding modules from their files (`served`: name -> (file,
    whether a package, its __path__)) and numba.cuda.tests.* from numba.cuda.tests's __path__; every other name
    goes to the finders after it (under kfront, its alias's finder, which answers every numba.cuda name, so
    numba-cuda's import hook never sees one)."""

    def __init__(self, served):
        self.served = served

    def find_spec(self, fullname, path=None, target=None):
        if fullname in self.served:
            origin, locations = self.served[fullname]
            return importlib.util.spec_from_file_location(fullname, origin,
                                                          submodule_search_locations=locations)
        if fullname.startswith("numba.cuda.tests."):
            return importlib.machinery.PathFinder.find_spec(fullname, path, target)
        return None


def _tests_package(init_file, tests_dir):
    return {"numba.cuda.tests": (init_file, [tests_dir])}


def _shim_modules(tests_dir):
    served = _tests_package(os.path.join(SHIM_DIR, "tests_init.py"), tests_dir)
    served["numba.cuda.testing"] = (os.path.join(SHIM_DIR, "testing.py"), None)
    served["numba.cuda.tests.support"] = (os.path.join(SHIM_DIR, "support.py"), None)
    return served


def _kfront_modules(tests_dir):
    served = _shim_modules(tests_dir)
    for internal in NUMBA_INTERNALS:
        served[internal] = (os.path.join(SHIM_DIR, "numba_internals.py"), None)
    return served


def _install_kfront():
    """numba.cuda -> kfront through its alias, cuda-only where numba is installed (the alias's default scope)."""
    global NUMBA_MODE, REAL_NUMBA
    from kfront._alias import install_numba_alias, alias_scope
    install_numba_alias()
    REAL_NUMBA = alias_scope() == "cuda"
    NUMBA_MODE = "cuda-only" if REAL_NUMBA else "whole"


def _numpy_compat():
    """numba's NumPy support names np.row_stack, which NumPy 2.5 removed (the GPU machine has 2.5): it is
    np.vstack (NumPy's deprecation said so), set before numba is imported."""
    import numpy
    if not hasattr(numpy, "row_stack"):
        numpy.row_stack = numpy.vstack


def install(target=None, tests_dir=None):
    """Installs the resolution of `numba.cuda` for `target` (default: $KFRONT_CONFORMANCE_TARGET) with the tests
    in `tests_dir` (default: $KFRONT_CONFORMANCE_TESTS). Idempotent for one target."""
    global TARGET, TESTS_DIR, REAL_NUMBA
    target = target or os.environ["KFRONT_CONFORMANCE_TARGET"]
    tests_dir = os.path.abspath(tests_dir or os.environ["KFRONT_CONFORMANCE_TESTS"])
    if TARGET is not None:
        if (TARGET, TESTS_DIR) != (target, tests_dir):
            raise RuntimeError("conformance_boot: %s is installed; cannot install %s" % (TARGET, target))
        return
    _numpy_compat()
    if target not in TARGETS:
        raise ValueError("conformance_boot: unknown target %r (one of %s)" % (target, ", ".join(TARGETS)))
    if not os.path.isfile(os.path.join(tests_dir, "cudapy", "__init__.py")):
        raise FileNotFoundError("conformance_boot: %s is not a prepared numba-cuda tests folder "
                                "(run test/conformance/conformance.py prepare)" % tests_dir)
    if target == "kfront":
        _install_kfront()
        served = _kfront_modules(tests_dir)
    else:
        REAL_NUMBA = True
        if target == "numba-cuda":
            served = _tests_package(os.path.join(tests_dir, "__init__.py"), tests_dir)
        else:
            served = _shim_modules(tests_dir)
    sys.meta_path.insert(0, _ScaffoldingFinder(served))
    TARGET, TESTS_DIR = target, tests_dir
