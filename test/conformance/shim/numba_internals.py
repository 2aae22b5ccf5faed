"""Placeholders, under the conformance shim, for numba-cuda's compiler internals that a few test modules import
at module level only to test them in some of their classes: numba.cuda.core.controlflow (CFGraph,
ControlFlowAnalysis), numba.cuda.core.bytecode (ByteCode, FunctionIdentity), numba.cuda.core.callconv
(CUDACallConv) and numba.cuda.core.rewrites (register_rewrite, Rewrite). kfront has none of them (its compiler is
C code with its own IR: out_of_scope.txt, "numba IR" and "numba's device-function ABI"), so its drop-in refuses
these imports, which stopped whole modules: test_flow_control.py's TestFlowControl (kernels over loops and
branches) and most of test_compiler.py (compile_ptx, compile) never ran.

Under target kfront, conformance_boot serves each of those module names from this file. Every name looked up in
one gives a placeholder that raises OutOfScopeInternal as soon as it is used (called, subclassed or its attributes
read), so the tests of numba's internals still fail, and are classed out of scope, while the other tests of the
module run against kfront. Nothing here stands in for behaviour: no test can pass by using a placeholder."""
import sys


class OutOfScopeInternal(NotImplementedError):
    """A numba-cuda compiler internal, which kfront does not have, was used by a test."""


def _refuse(name):
    raise OutOfScopeInternal("%s is numba-cuda's compiler internal, which kfront has no equivalent of (the "
                             "conformance shim's placeholder: test/conformance/shim/numba_internals.py)" % name)


class _PlaceholderMeta(type):
    def __getattr__(cls, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        _refuse("%s.%s" % (cls._kf_internal_name, attr))

    def __call__(cls, *args, **kwargs):
        _refuse(cls._kf_internal_name)

    def __mro_entries__(cls, bases):
        _refuse(cls._kf_internal_name)


def _placeholder(qualified):
    return _PlaceholderMeta(qualified.rsplit(".", 1)[-1], (), {"_kf_internal_name": qualified})


def __getattr__(attr):
    if attr.startswith("__") and attr.endswith("__"):
        raise AttributeError(attr)
    value = _placeholder("%s.%s" % (__name__, attr))
    setattr(sys.modules[__name__], attr, value)
    return value
