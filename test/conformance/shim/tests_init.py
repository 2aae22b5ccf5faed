"""`numba.cuda.tests` under the conformance shim: the package holding numba-cuda's test folders (its __path__ is
the prepared tests folder, set by conformance_boot), with the one name the folders' __init__ files import,
load_testsuite (the unittest load_tests protocol's helper: the tests of a folder, by module name)."""
import os
import unittest


def load_testsuite(loader, folder):
    """A unittest suite of the test_*.py modules of `folder` (a folder of this package), each loaded by its
    module name numba.cuda.tests.<folder>.<module>, and of its subpackages."""
    suite = unittest.TestSuite()
    package = "numba.cuda.tests." + os.path.basename(os.path.normpath(folder))
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name.startswith("test_") and name.endswith(".py") and os.path.isfile(path):
            suite.addTests(loader.loadTestsFromName("%s.%s" % (package, name[:-3])))
        elif os.path.isfile(os.path.join(path, "__init__.py")):
            suite.addTests(loader.loadTestsFromName("%s.%s" % (package, name)))
    return suite
