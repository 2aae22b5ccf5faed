"""numba.cuda.libdevicefuncs under kfront (kfront.cuda.libdevicefuncs): the table of libdevice functions and their
signatures, read from kfront's one table (ir/libdevice.def through _kfront.libdevice_functions()), checked against
numba-cuda 0.30.4's own module (the oracle), and used as numba-cuda's test_libdevice.py uses it: each function's
signature from create_signature, a kernel generated per function that calls it and stores its results, run on the
simulator; and the value checks of that test module (sincos, frexp, sad) on the simulator."""
import os
import subprocess

import numpy as np
import pytest

from kfront import cuda, types
from kfront.cuda import libdevice
from kfront.cuda.libdevicefuncs import arg, create_signature, functions

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# run here and in the oracle (numba-cuda's module): one line per function, its name, return type, arguments, and the
# result and argument types of the signature create_signature gives (a tuple's elements listed)
DESCRIBE = """
def describe(functions, create_signature):
    lines = []
    for name in sorted(functions):
        retty, args = functions[name]
        sig = create_signature(retty, args)
        results = list(sig.return_type) if hasattr(sig.return_type, "__iter__") else [sig.return_type]
        lines.append("%s %s (%s) -> %s (%s)" % (name, retty, ", ".join("%s:%s%s" % (a.name, a.ty, "*" * a.is_ptr)
                                                                        for a in args),
                                                ", ".join(map(str, results)), ", ".join(map(str, sig.args))))
    return "\\n".join(lines)
"""
ORACLE_DESCRIBE = DESCRIBE + """
from numba.cuda.libdevicefuncs import functions, create_signature
print(describe(functions, create_signature))
"""


def test_the_table_is_numba_cudas():
    r = subprocess.run(["bash", os.path.join(ROOT, "scripts", "oracle_env.sh")], capture_output=True, text=True,
                       timeout=900)
    if r.returncode != 0:
        pytest.fail("the oracle (scripts/oracle_env.sh) is not available: %s" % r.stderr[-2000:])
    oracle = r.stdout.strip().splitlines()[-1]
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp"), "NUMBA_ENABLE_CUDASIM": "1"}
    r = subprocess.run([oracle, "-c", ORACLE_DESCRIBE], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    scope = {}
    exec(DESCRIBE, scope)
    ours = scope["describe"](functions, create_signature)
    assert len(ours.splitlines()) == 317
    assert ours == r.stdout.strip()


def test_signatures_as_numba_cuda_types_the_calls():
    assert functions["__nv_sad"] == (types.int32, [arg("x", types.int32, False), arg("y", types.int32, False),
                                                   arg("z", types.int32, False)])
    assert create_signature(*functions["__nv_sad"]) == types.int32(types.int32, types.int32, types.int32)
    frexp = create_signature(*functions["__nv_frexp"])
    assert frexp.return_type == types.Tuple((types.float64, types.int32)) and frexp.args == (types.float64,)
    # a void function's results are its pointer arguments alone: two of one type, a UniTuple
    assert functions["__nv_sincosf"][0] == types.void
    sincosf = create_signature(*functions["__nv_sincosf"])
    assert sincosf.return_type == types.UniTuple(types.float32, 2) and sincosf.args == (types.float32,)
    assert [a.name for a in functions["__nv_sincosf"][1]] == ["x", "sptr", "cptr"]
    # one result, no pointers: the return type itself
    assert create_signature(*functions["__nv_clzll"]) == types.int32(types.int64)
    assert all(name.startswith("__nv_") and hasattr(libdevice, name[5:]) for name in functions)


CALL_TEMPLATE = """\
from kfront.cuda import libdevice

def pyfunc(%(pyargs)s):
    ret = libdevice.%(func)s(%(funcargs)s)
    %(retvars)s = ret
"""


def _call_of(libname):
    """numba-cuda's test_libdevice.py kernel for a libdevice function: it calls the function with its arguments and
    stores each result in an array of one element; (the kernel, its result types, its argument types)."""
    retty, args = functions[libname]
    sig = create_signature(retty, args)
    funcargs = ", ".join("a%d" % i for i, a in enumerate(args) if not a.is_ptr)
    results = list(sig.return_type) if isinstance(sig.return_type, types.BaseTuple) else [sig.return_type]
    outs = ["r%d" % i for i in range(len(results))]
    code = CALL_TEMPLATE % {"func": libname[5:], "pyargs": ", ".join(outs + ([funcargs] if funcargs else [])),
                            "funcargs": funcargs, "retvars": ", ".join(o + "[0]" for o in outs)}
    scope = {}
    exec(compile(code, "<libdevice %s>" % libname, "exec"), scope)
    return cuda.jit(scope["pyfunc"]), results, [a.ty for a in args if not a.is_ptr]


def test_every_function_compiles_and_runs_as_numba_cudas_test_calls_it():
    for libname in functions:
        kernel, results, argtypes = _call_of(libname)
        outs = [np.full(1, 7, dtype=types.as_dtype(t)) for t in results]
        # 1 is in the domain of every function (acosh, log, the bessel functions, the conversions, ...)
        ins = [types.as_dtype(t).type(1) for t in argtypes]
        kernel[1, 1](*outs, *ins)
        # typed as numba-cuda's test compiles it: an array per result, then the arguments that are no pointers
        assert kernel.signatures == [tuple(t[::1] for t in results) + tuple(argtypes)], libname


def use_sincos(s, c, x):
    i = cuda.grid(1)
    if i < len(x):
        sr, cr = libdevice.sincos(x[i])
        s[i] = sr
        c[i] = cr


def use_frexp(frac, exp, x):
    i = cuda.grid(1)
    if i < len(x):
        fracr, expr = libdevice.frexp(x[i])
        frac[i] = fracr
        exp[i] = expr


def use_sad(r, x, y, z):
    i = cuda.grid(1)
    if i < len(x):
        r[i] = libdevice.sad(x[i], y[i], z[i])


def test_sincos_returns_a_unituple():
    arr = np.arange(100, dtype=np.float64)
    s, c = np.zeros_like(arr), np.zeros_like(arr)
    cuda.jit(use_sincos)[4, 32](s, c, arr)
    np.testing.assert_allclose(np.sin(arr), s)
    np.testing.assert_allclose(np.cos(arr), c)


def test_frexp_returns_a_tuple():
    arr = np.linspace(start=1.0, stop=10.0, num=100, dtype=np.float64)
    frac, exp = np.zeros_like(arr), np.zeros(arr.shape, dtype=np.int32)
    cuda.jit(use_frexp)[4, 32](frac, exp, arr)
    frac_expect, exp_expect = np.frexp(arr)
    np.testing.assert_array_equal(frac_expect, frac)
    np.testing.assert_array_equal(exp_expect, exp)


def test_sad_returns_a_scalar():
    x, y, z = np.arange(0, 200, 2), np.arange(50, 150), np.arange(15, 115)
    r = np.zeros_like(x)
    cuda.jit(use_sad)[4, 32](r, x, y, z)
    np.testing.assert_array_equal(np.abs(x - y) + z, r)
