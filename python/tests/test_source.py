"""kfront._source: source lines of functions (module level, nested, decorated, exec'd with linecache, none
for `-c`, lambdas refused), the names a function reads, and how each value is frozen."""
import cmath
import collections
import enum
import linecache
import math
import operator
import subprocess
import sys
import textwrap
import types as pytypes

import numpy as np
import pytest

from kfront import _source, errors
from kfront import types as kftypes
from kfront._capture import function_source
from kfront._source import freeze_value, referenced_names

TPB = 16
SCALE = 2.5
FLAG = True
SHAPE = (3, (4, 5))
TABLE = np.arange(6, dtype=np.float32).reshape(2, 3)


def decorate(*args, **kwargs):
    return lambda f: f


@decorate("void(float32[:])",
          fastmath=True)
def module_level(a):
    i = TPB * 2
    a[0] = SCALE + np.float32(i) + math.sqrt(a[1])


def test_module_level_function_source():
    filename, text, first = function_source(module_level)
    lines = open(__file__).read().splitlines(True)
    assert filename == __file__ and first == module_level.__code__.co_firstlineno
    assert text.startswith('@decorate("void(float32[:])",\n') and "def module_level(a):" in text
    assert text == "".join(lines[first - 1:first - 1 + text.count("\n")])
    assert text.endswith("math.sqrt(a[1])\n")


def make_nested():
    scale = 3

    @decorate()
    def nested(a):
        a[0] = scale * TPB
    return nested


def test_nested_function_source_keeps_indentation():
    fn = make_nested()
    filename, text, first = function_source(fn)
    assert text == "    @decorate()\n    def nested(a):\n        a[0] = scale * TPB\n"
    assert open(filename).read().splitlines()[first - 1] == "    @decorate()"


class Holder:
    @staticmethod
    def method(a):
        a[0] = 1


def test_function_in_class():
    _, text, _ = function_source(Holder.method)
    assert text == "    @staticmethod\n    def method(a):\n        a[0] = 1\n"


def exec_registered(src, filename):
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    ns = {"decorate": decorate}
    exec(compile(src, filename, "exec"), ns)
    return ns


CELL = """\
N = 4

@decorate()
def cell_kernel(a):
    for i in range(N):
        a[i] = i
"""


def test_exec_code_registered_in_linecache():
    ns = exec_registered(CELL, "<kfront-test-cell-1>")
    try:
        filename, text, first = function_source(ns["cell_kernel"])
        assert (filename, first) == ("<kfront-test-cell-1>", 3)
        assert text == "@decorate()\ndef cell_kernel(a):\n    for i in range(N):\n        a[i] = i\n"
    finally:
        del linecache.cache["<kfront-test-cell-1>"]


def test_exec_string_is_found():
    """a function exec'd from a string after kfront was imported: its text is kept (kfront._capture's audit hook)"""
    ns = {}
    exec(compile("def lost(a):\n    a[0] = 1\n", "<string>", "exec"), ns)
    assert function_source(ns["lost"]) == ("<string>", "def lost(a):\n    a[0] = 1\n", 1)


def test_source_unavailable_names_the_function():
    """code given to compile() as an AST, its text gone, keeps none anywhere: a clear error naming the function and
    what to do"""
    import ast
    ns = {}
    src = "def lost(a):\n    a[0] = %d\n" % 1
    tree = ast.parse(src)
    del src
    exec(compile(tree, "<generated>", "exec"), ns)
    with pytest.raises(errors.SourceUnavailableError, match="'lost' \\(<generated>:1\\) is not available") as e:
        function_source(ns["lost"])
    assert isinstance(e.value, errors.CompilerError) and e.value.line == 1 and "import kfront" in str(e.value)


def test_python_c(tmp_path):
    code = textwrap.dedent("""
        import sys
        sys.path.insert(0, %r)
        from kfront import _capture
        def k(a):
            a[0] = 1
        print(_capture.function_source(k))
    """ % (str(__import__("pathlib").Path(_source.__file__).parent.parent),))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout == repr(("<string>", "def k(a):\n    a[0] = 1\n", 5)) + "\n"


def test_text_compiled_wins_over_a_changed_linecache_entry():
    """the text a function was compiled from is kept: a linecache entry replaced afterwards changes nothing"""
    filename = "<kfront-test-cell-2>"
    ns = exec_registered("def first(a):\n    a[0] = 1\n", filename)
    try:
        linecache.cache[filename] = (10, None, ["x = 1\n", "y = 2\n"], filename)
        assert function_source(ns["first"]) == (filename, "def first(a):\n    a[0] = 1\n", 1)
    finally:
        del linecache.cache[filename]


# ---- source taken at decoration time, wherever Python keeps it ------------------------------------------

PYTHON_DIR = str(__import__("pathlib").Path(_source.__file__).parent.parent)


def _run(args, **kwargs):
    env = dict(__import__("os").environ, KFRONT_SIM="1", PYTHONPATH=PYTHON_DIR)
    return subprocess.run([sys.executable] + args, capture_output=True, text=True, env=env, timeout=120, **kwargs)


def _write_module(tmp_path, name, body):
    path = tmp_path / (name + ".py")
    path.write_text(textwrap.dedent(body))
    return path


def _edit(path, old, new):
    import os
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))  # a newer mtime, whatever the clock's grain
    linecache.checkcache(str(path))


def test_file_edited_after_import_compiles_the_imported_function(tmp_path, monkeypatch):
    """the source is taken when @cuda.jit runs: a kernel's file edited after import (before the first launch)
    compiles the function that was imported, not the edited text"""
    from kfront import cuda
    path = _write_module(tmp_path, "kfront_edited_mod", """
        from kfront import cuda

        @cuda.jit
        def k(out):
            out[0] = 1
    """)
    monkeypatch.syspath_prepend(str(tmp_path))
    import kfront_edited_mod as mod
    _edit(path, "out[0] = 1", "out[0] = 2 + 200")
    out = np.zeros(1)
    mod.k[1, 1](out)
    assert out[0] == 1
    assert isinstance(cuda.jit(mod.k.py_func), type(mod.k))


def test_file_edited_before_decoration_is_an_error(tmp_path, monkeypatch):
    """a file edited between its import and the decoration holds no text of the function Python compiled: a clear
    error, never the edited text compiled"""
    from kfront import cuda
    path = _write_module(tmp_path, "kfront_edited_undecorated", """
        def k(out):
            out[0] = 1
    """)
    monkeypatch.syspath_prepend(str(tmp_path))
    import kfront_edited_undecorated as mod
    _edit(path, "out[0] = 1", "out[0] = 2")
    kernel = cuda.jit(mod.k)  # decoration never fails for want of source, as numba-cuda's
    with pytest.raises(errors.SourceUnavailableError, match="do not define function 'k' as Python compiled it"):
        kernel[1, 1](np.zeros(1))


def test_edit_that_keeps_the_bytecode_but_changes_a_default(tmp_path, monkeypatch):
    """defaults are not in the function's code object: they are compared with the text's too"""
    path = _write_module(tmp_path, "kfront_edited_default", """
        def k(out, v=1):
            out[0] = v
    """)
    monkeypatch.syspath_prepend(str(tmp_path))
    import kfront_edited_default as mod
    _edit(path, "v=1", "v=7")
    with pytest.raises(errors.SourceUnavailableError, match="'k'"):
        function_source(mod.k)


def _generate_atomics(func):
    # numba-cuda's test_atomics builds kernels this way: exec of a formatted string into a dict, the string gone
    # when the functions are decorated
    fns = textwrap.dedent("""
    def atomic(res, ary):
        tx = cuda.threadIdx.x
        {func}(res, 0, ary[tx])

    def atomic_shared(res, ary):
        tid = cuda.threadIdx.x
        smary = cuda.shared.array(8, float64)
        smary[tid] = ary[tid]
        cuda.syncthreads()
        {func}(res, 0, smary[tid])
    """).format(func=func)
    from kfront import cuda, float64
    ld = {}
    exec(fns, {"cuda": cuda, "float64": float64}, ld)
    return ld["atomic"], ld["atomic_shared"]


ATOMIC_MAX, ATOMIC_MAX_SHARED = _generate_atomics("cuda.atomic.max")


def test_exec_generated_kernels_decorated_later():
    from kfront import cuda
    ary = np.array([3.0, 9.0, -1.0, 4.0, 2.0, 8.0, 0.5, 7.0])
    for fn in (ATOMIC_MAX, ATOMIC_MAX_SHARED):
        res = np.array([-100.0])
        cuda.jit(fn)[1, 8](res, ary)
        assert res[0] == 9.0
    assert function_source(ATOMIC_MAX)[0] == "<string>"


def test_compile_then_exec_with_other_compiles_between():
    from kfront import cuda
    src_a = "def ka(out):\n    out[0] = 11\n"
    code = compile(src_a, "generated_kernels.py", "exec")
    compile("def ka(out):\n    out[0] = 99\n", "generated_kernels.py", "exec")  # another text, same name
    compile("x = 1", "<other>", "exec")
    del src_a
    ns = {}
    exec(code, ns)
    out = np.zeros(1)
    cuda.jit(ns["ka"])[1, 1](out)
    assert out[0] == 11


def test_exec_of_bytes_with_a_coding_cookie():
    from kfront import cuda
    ns = {}
    exec("# -*- coding: latin-1 -*-\ndef kb(out):\n    out[0] = len('\xe9')\n".encode("latin-1"), ns)
    out = np.zeros(1)
    cuda.jit(ns["kb"])[1, 1](out)
    assert out[0] == 1


def test_ast_compiled_text_found_in_the_callers_frame():
    """a text compiled through an AST (as IPython's magics do): found among the calling frames' strings"""
    import ast
    from kfront import cuda
    text = "def kc(out):\n    out[0] = 5\n"
    ns = {}
    exec(compile(ast.parse(text), "<kfront-ast>", "exec"), ns)
    kernel = cuda.jit(ns["kc"])
    del text
    out = np.zeros(1)
    kernel[1, 1](out)
    assert out[0] == 5


PROGRAM = textwrap.dedent("""
    import numpy as np
    from numba import cuda

    N = 3

    @cuda.jit(device=True)
    def twice(x):
        return 2 * x

    @cuda.jit
    def k(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = twice(i) + N

    out = np.zeros(4)
    k[1, 4](out)
    print("result", out.tolist())
""")
EXPECTED = "result [3.0, 5.0, 7.0, 9.0]\n"


def test_kfront_runner_c_and_stdin(tmp_path):
    r = _run(["-m", "kfront", "-c", PROGRAM])
    assert (r.returncode, r.stdout) == (0, EXPECTED), r.stderr
    r = _run(["-m", "kfront", "-"], input=PROGRAM)  # a pipe
    assert (r.returncode, r.stdout) == (0, EXPECTED), r.stderr
    r = _run(["-m", "kfront", "-c", "import sys; print(sys.argv, __name__)", "a", "b"])
    assert r.stdout == "['-c', 'a', 'b'] __main__\n", r.stderr


def test_plain_python_c_and_stdin_file(tmp_path):
    program = PROGRAM.replace("from numba import cuda", "from kfront import cuda")
    r = _run(["-c", program])
    assert (r.returncode, r.stdout) == (0, EXPECTED), r.stderr
    path = tmp_path / "prog.py"
    path.write_text(program)
    with open(path) as f:  # `python - < prog.py`: standard input is the file
        r = _run(["-"], stdin=f)
    assert (r.returncode, r.stdout) == (0, EXPECTED), r.stderr
    r = _run(["-"], input=program)  # piped: Python keeps nothing, a clear error saying what to do
    assert r.returncode == 1 and "the source of function 'k' (<stdin>:11) is not available" in r.stderr, r.stderr
    assert "python -m kfront - < prog.py" in r.stderr


# ---- dispatchers pickled to another process -------------------------------------------------------------

def test_pickled_dispatcher_runs_where_its_file_is_not(tmp_path, monkeypatch):
    """a kernel pickled (as multiprocessing, Dask and Ray do) runs in a process that has neither its file nor its
    module: its source, globals, closure cells and device functions travel with it"""
    import pickle
    path = _write_module(tmp_path, "kfront_pickled_mod", """
        import math
        import numpy as np
        from kfront import cuda, float64

        TABLE = np.array([1.0, 4.0, 9.0, 16.0])

        @cuda.jit(device=True)
        def fact(n):
            if n <= 1:
                return 1
            return n * fact(n - 1)

        def make(offset):
            @cuda.jit("void(float64[:])")
            def k(out):
                i = cuda.grid(1)
                out[i] = math.sqrt(TABLE[i]) + float64(offset) + fact(3)
            return k
    """)
    monkeypatch.syspath_prepend(str(tmp_path))
    import kfront_pickled_mod as mod
    data = pickle.dumps(mod.make(10))
    path.unlink()
    child = textwrap.dedent("""
        import pickle, sys
        import numpy as np
        k = pickle.loads(sys.stdin.buffer.read())
        assert "kfront_pickled_mod" not in sys.modules
        out = np.zeros(4)
        k[1, 4](out)
        print(out.tolist(), k.py_func.__qualname__, k.signatures)
    """)
    r = _run(["-c", child], input=data.decode("latin-1"), cwd=str(tmp_path.parent), encoding="latin-1")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("[17.0, 18.0, 19.0, 20.0] make.<locals>.k [(float64[:],)]"), r.stdout


def test_pickled_dispatcher_with_multiprocessing_spawn(tmp_path):
    """multiprocessing with spawn: a script's kernel passed to a pool worker, pickled by value"""
    program = textwrap.dedent("""
        import multiprocessing as mp
        import numpy as np
        from kfront import cuda

        SCALE = 2.5

        @cuda.jit
        def scaled(out, x):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = x[i] * SCALE

        def work(kernel):
            x = np.arange(4.0)
            out = np.zeros(4)
            kernel[1, 4](out, x)
            return out.tolist()

        if __name__ == "__main__":
            with mp.get_context("spawn").Pool(1) as pool:
                print(pool.apply(work, (scaled,)))
    """)
    path = tmp_path / "spawner.py"
    path.write_text(program)
    r = _run([str(path)], cwd=str(tmp_path))
    assert (r.returncode, r.stdout) == (0, "[0.0, 2.5, 5.0, 7.5]\n"), r.stderr


def test_pickling_a_kernel_that_reads_a_device_array_is_refused():
    import pickle
    from kfront import cuda
    d_arr = cuda.to_device(np.zeros(2))

    @cuda.jit
    def k(out):
        out[0] = d_arr[0]

    with pytest.raises(pickle.PicklingError, match="global device arrays"):
        pickle.dumps(k)


def test_pickled_kernel_keeps_options_and_module_globals():
    import pickle
    from kfront import cuda

    @cuda.jit(device=True, fastmath=True)
    def dev(x):
        return math.sqrt(x) * SCALE

    again = pickle.loads(pickle.dumps(dev))
    assert again is not dev and again.targetoptions == dev.targetoptions and again._kind == "device"
    assert again.py_func.__globals__["math"] is math and again.py_func.__globals__["SCALE"] == SCALE
    assert function_source(dev.py_func) == again._source


def test_lambda_source_is_a_def_of_its_body():
    # a lambda compiles as the def of its body, kept at its own line and column (for cuda.reduce(lambda a, b: ...)
    # and lambda device functions, as numba-cuda compiles them)
    f = lambda a, b=2: (a +  # noqa: E731
                        b)
    filename, text, first = function_source(f)
    line = f.__code__.co_firstlineno
    assert filename == __file__ and first == line - 2
    col = open(__file__).read().splitlines()[line - 1].index("a +")  # the body, inside its parentheses
    assert text == "def lambda_L%d_C%d(a, b=2):\n return (\n%sa +  # noqa: E731\n                        b\n )\n" % (
        line, col, " " * col)


def test_not_a_function():
    with pytest.raises(TypeError):
        function_source(len)


# ---- referenced names ----------------------------------------------------------------------------------

UNUSED = 99
float32 = "a global named like an attribute"


def reads_globals(a):
    x = [TPB * k for k in range(3)]          # a comprehension's globals
    y = sum(SCALE for _ in a)                # a generator's
    z = np.float32(1)                        # np only: float32 is an attribute here
    if missing_name:                         # noqa: F821 (bound nowhere: left out)
        pass

    def inner():
        return FLAG                          # an inner function's
    return x, y, z, inner, len(a), (lambda: SHAPE)()


def test_referenced_globals():
    g, c = referenced_names(reads_globals)
    assert set(g) == {"TPB", "SCALE", "np", "FLAG", "SHAPE"}
    assert g["TPB"] == 16 and g["np"] is np and c == {}
    assert "UNUSED" not in g and "float32" not in g and "len" not in g and "range" not in g


def test_referenced_closure_variables():
    a_value = np.ones(2)

    def outer(flag):
        limit = 7
        unset = None
        del unset

        def k(a):
            b = [limit for _ in range(2)]
            return a_value, flag, TPB, b

        return k
    k = outer(True)
    g, c = referenced_names(k)
    assert g == {"TPB": 16}
    assert set(c) == {"a_value", "flag", "limit"} and c["a_value"] is a_value and c["flag"] is True


def test_empty_cell_is_left_out():
    def outer():
        def k():
            return later
        yield k
        later = 1  # noqa: F841
    k = next(outer())
    assert referenced_names(k) == ({}, {})


def test_shadowed_builtin_is_a_global():
    ns = {}
    exec("max = 3\ndef k():\n    return max\n", ns)
    assert referenced_names(ns["k"])[0] == {"max": 3}


# ---- freezing ------------------------------------------------------------------------------------------

class Color(enum.IntEnum):
    RED = 1
    GREEN = 2
    VERT = 2   # an alias


class Mode(enum.Enum):
    FAST = 0
    SLOW = 5


class Pairs(enum.Enum):
    ONE = (1, 0.5)
    TWO = (2, 1.5)
    ALIAS = (1, 0.5)


class Named(enum.Enum):
    A = "a"


Point = collections.namedtuple("Point", "x y")


def test_freeze_scalars():
    assert freeze_value("x", True, {}) == ("scalar", True)
    assert freeze_value("x", 3, {}) == ("scalar", 3)
    assert freeze_value("x", 2 ** 64 - 1, {}) == ("scalar", 2 ** 64 - 1)
    assert freeze_value("x", -(2 ** 63), {}) == ("scalar", -(2 ** 63))
    assert freeze_value("x", 0.5, {}) == ("scalar", 0.5)
    kind, v = freeze_value("x", np.float32(0.5), {})
    assert kind == "scalar" and type(v) is np.float32 and v == 0.5
    assert type(freeze_value("x", np.bool_(True), {})[1]) is np.bool_
    assert type(freeze_value("x", np.uint16(7), {})[1]) is np.uint16


@pytest.mark.parametrize("value,match", [(2 ** 64, "int64"), (-(2 ** 63) - 1, "int64"), (np.longdouble(1), ""),
                                         (np.clongdouble(1), "")])
def test_freeze_rejects_what_kfront_cannot_hold(value, match):
    long_size = {np.longdouble: 8, np.clongdouble: 16}.get(type(value))
    if long_size is not None and np.dtype(type(value)).itemsize == long_size:
        pytest.skip("long double is double here")
    with pytest.raises(errors.UnsupportedError, match="'bad'.*" + match):
        freeze_value("bad", value, {})


def test_freeze_tuples():
    assert freeze_value("s", SHAPE, {}) == ("tuple", [("scalar", 3), ("tuple", [("scalar", 4), ("scalar", 5)])])
    assert freeze_value("s", (), {}) == ("tuple", [])
    # a namedtuple keeps its class and fields (Numba's NamedTuple: p.x in kernels)
    assert freeze_value("p", Point(1, 2.0), {}) == ("tuple", [("scalar", 1), ("scalar", 2.0)], "test_source.Point",
                                                    tuple(Point._fields))
    assert freeze_value("s", (1, "text"), {}) is None
    assert freeze_value("s", (1, (2, None)), {}) == ("tuple", [("scalar", 1), ("tuple", [("scalar", 2), ("none", None)])])
    kind, items = freeze_value("s", (1, TABLE), {})
    assert kind == "tuple" and items[1][0] == "array"  # the compiler reports the array in a tuple, located
    with pytest.raises(errors.UnsupportedError, match=r"s\[1\]"):
        freeze_value("s", (1, 2 ** 64), {})
    assert freeze_value("s", (1, 2j), {}) == ("tuple", [("scalar", 1), ("scalar", 2j)])


def test_freeze_arrays_are_readonly_copies():
    kind, arr = freeze_value("TABLE", TABLE, {})
    assert kind == "array" and arr is not TABLE and not np.shares_memory(arr, TABLE)
    assert np.array_equal(arr, TABLE) and arr.dtype == np.float32 and not arr.flags.writeable
    f = np.asfortranarray(TABLE)
    assert freeze_value("F", f, {})[1].flags.f_contiguous
    big = np.arange(4, dtype=">i4" if sys.byteorder == "little" else "<i4")
    frozen = freeze_value("big", big, {})[1]
    assert frozen.dtype.isnative and frozen.dtype == np.int32 and list(frozen) == [0, 1, 2, 3]
    kind, view = freeze_value("v", TABLE[:, ::2], {})
    assert kind == "array" and np.array_equal(view, TABLE[:, ::2])
    assert freeze_value("e", np.zeros(0), {})[0] == "array"  # refused by the compiler, located at its use
    kind, arr = freeze_value("c", np.array([1 + 2j, 3j], np.complex64)[::-1], {})  # complex arrays too, as Numba's
    assert kind == "array" and arr.dtype == np.complex64 and list(arr) == [3j, 1 + 2j]


def test_freeze_complex_scalars():
    assert freeze_value("z", 1 - 2j, {}) == ("scalar", 1 - 2j)
    kind, v = freeze_value("z", np.complex64(0.5j), {})
    assert kind == "scalar" and type(v) is np.complex64 and v == 0.5j  # its dtype kept
    assert type(freeze_value("z", np.complex128(1j), {})[1]) is complex


def test_freeze_enums():
    c = 'IntEnumMember("%s.Color", int64)' % __name__
    m = 'EnumMember("%s.Mode", int64)' % __name__
    assert freeze_value("Color", Color, {}) == ("namespace", {"RED": ("scalar", 1, c), "GREEN": ("scalar", 2, c),
                                                              "VERT": ("scalar", 2, c)}, c)
    assert freeze_value("Mode", Mode, {}) == ("namespace", {"FAST": ("scalar", 0, m), "SLOW": ("scalar", 5, m)}, m)
    assert freeze_value("c", Color.GREEN, {}) == ("scalar", 2, c) and type(freeze_value("c", Color.RED, {})[1]) is int
    assert freeze_value("m", Mode.SLOW, {}) == ("scalar", 5, m)
    # str (and tuple) values: Numba's EnumMember of unicode_type, a namespace of the values with that spelling
    n = 'EnumMember("%s.Named", unicode_type, (\'a\',))' % __name__
    assert freeze_value("Named", Named, {}) == ("namespace", {"A": ("str", "a")}, n)
    with pytest.raises(errors.UnsupportedError, match="the members of Named have string values"):
        freeze_value("n", Named.A, {})
    # a member of an enum of tuples: the index of its value, typed by a spelling that lists every member's value
    p = 'EnumMember("%s.Pairs", Tuple((int64, float64)), ((1, 0.5), (2, 1.5), (1, 0.5)))' % __name__
    assert freeze_value("Pairs", Pairs, {})[2] == p
    assert freeze_value("q", Pairs.TWO, {}) == ("scalar", 1, p)
    assert freeze_value("q", Pairs.ALIAS, {}) == ("scalar", 0, p)


def test_freeze_modules_and_known_objects():
    assert freeze_value("math", math, {}) == ("module", "math")
    assert freeze_value("np", np, {}) == ("module", "numpy")
    assert freeze_value("cmath", cmath, {}) == ("module", "cmath")
    assert freeze_value("operator", operator, {}) == ("module", "operator")
    assert freeze_value("sqrt", math.sqrt, {}) == ("path", "math.sqrt")
    assert freeze_value("add", operator.add, {}) == ("path", "operator.add")
    assert freeze_value("f", np.float32, {}) == ("path", "numpy.float32")
    assert freeze_value("d", np.double, {}) == ("path", "numpy.float64")
    assert freeze_value("s", np.sqrt, {}) == ("path", "numpy.sqrt")
    assert freeze_value("r", np.random, {}) == ("module", "numpy.random")
    assert freeze_value("rng", range, {}) == ("path", "builtins.range")
    assert freeze_value("dt", np.dtype("float32"), {}) == ("path", "numpy.float32")
    assert freeze_value("pi", math.pi, {}) == ("scalar", math.pi)
    assert freeze_value("t", kftypes.float32, {}) == ("path", "numba.float32")
    assert freeze_value("t", kftypes.boolean, {}) == ("path", "numba.bool")
    # a module of the program's own: the attributes the function reads that it has (never walked whole)
    other = pytypes.ModuleType("somewhere.else")
    other.X, other.L, other.unread = 3, [1], 4
    assert freeze_value("m", other, {}) == ("pymodule", "somewhere.else", {})
    assert freeze_value("m", other, {}, {"X", "L", "Y"}) == (
        "pymodule", "somewhere.else", {"X": ("scalar", 3), "L": ("unsupported", "a Python list")})


def test_registry_comes_first():
    marker = object()
    fake_cuda = pytypes.ModuleType("kfront.cuda")
    registry = {id(marker): "numba.cuda.grid", id(math.sqrt): "numba.special_sqrt", id(fake_cuda): "numba.cuda"}
    assert freeze_value("grid", marker, registry) == ("path", "numba.cuda.grid")
    assert freeze_value("sqrt", math.sqrt, registry) == ("path", "numba.special_sqrt")
    assert freeze_value("cuda", fake_cuda, registry) == ("module", "numba.cuda")
    assert freeze_value("cuda", fake_cuda, {}) == ("module", "numba.cuda")
    assert freeze_value("grid", marker, {}) is None


def test_alias_modules_by_their_numba_name():
    m = pytypes.ModuleType("numba.cuda")
    m.__dict__["__kfront_alias__"] = "numba.cuda"
    assert freeze_value("cuda", m, {}) == ("module", "numba.cuda")


def test_dispatchers_and_everything_else():
    class Dispatcher:
        def __init__(self, fn):
            self.py_func = fn
    d = Dispatcher(module_level)
    assert freeze_value("dev", d, {}) == ("function", d)
    assert freeze_value("f", module_level, {}) is None       # a plain Python function
    assert freeze_value("s", "text", {}) == ("str", "text")  # an exception message, a dtype name

    class Oops(ValueError):
        pass

    assert freeze_value("ValueError", ValueError, {}) == ("path", "builtins.ValueError")
    assert freeze_value("Oops", Oops, {}) == ("exception", "%s.%s" % (__name__, Oops.__qualname__), Oops)
    assert freeze_value("n", None, {}) == ("none", None)  # Numba's none type
    assert freeze_value("l", [1, 2], {}) is None
    assert freeze_value("o", object(), {}) is None
    assert freeze_value("cls", Dispatcher, {}) is None


UNUSABLE_LIST = [1, 2, 3]
UNUSABLE_TUPLE = (1, [2])


def plain_python(x):
    return x


def test_values_kernels_cannot_use_are_reported_where_read():
    """A global kfront cannot bind (a list, a plain Python function, a tuple holding one) is named with what it is
    at the kernel's use of it, not as an undefined name"""
    from kfront import cuda

    def reads_list(out):
        out[0] = UNUSABLE_LIST[0]

    def calls_plain(out):
        out[0] = plain_python(1.0)

    def reads_tuple(out):
        out[0] = UNUSABLE_TUPLE[0]

    for fn, name, what in ((reads_list, "UNUSABLE_LIST", "a Python list"),
                           (calls_plain, "plain_python", "a Python function that is not a @cuda.jit device function"),
                           (reads_tuple, "UNUSABLE_TUPLE", "a tuple holding a Python list")):
        with pytest.raises(errors.TypingError) as e:
            cuda.jit(fn)[1, 1](np.zeros(1))
        msg = str(e.value)
        assert "test_source.py:" in msg and what in msg and "which kernels cannot use" in msg, msg
        assert "Untyped global name '%s'" % name in msg, msg  # numba-cuda's words
    assert _source.describe_unusable(len) == "a Python function that is not a @cuda.jit device function (len)"
    assert _source.describe_unusable(int) == "the class int"


NONE_GLOBAL = None
NONE_TUPLE = (1, None, slice(1, 3))


def test_none_globals_and_tuples_holding_none_and_slices():
    """None globals are Numba's none type (`is None`, None arguments of device functions); constant tuples may hold
    None and slices"""
    from kfront import cuda

    @cuda.jit(device=True)
    def scaled(x, factor):
        return x if factor is None else x * factor

    def reads(out, a):
        out[0] = scaled(3.0, NONE_GLOBAL)
        out[1] = 1.0 if NONE_TUPLE[1] is None else 2.0
        out[2] = a[NONE_TUPLE[2]][1]
        one, nothing, _ = NONE_TUPLE
        out[3] = one + (5 if nothing is None else 6)

    out = np.zeros(4)
    cuda.jit(reads)[1, 1](out, np.arange(5.0))
    assert out.tolist() == [3.0, 1.0, 2.0, 6.0]
