"""kfront._capture — a function's source text, taken when @cuda.jit runs and checked to be the function's own.

kfront compiles a function from its source text, not its bytecode, so a dispatcher takes that text when it is made
(`function_source`), never later: a file edited after import does not change a kernel, and a kernel whose text
Python keeps nowhere after that moment still compiles. The text is looked for, in this order, in:

    the texts of code compiled from strings    exec / compile of a str or bytes (code generators, numba-cuda's own
                                               tests), seen through an audit hook (sys.addaudithook: the "compile"
                                               event gives the text, the "exec" event the code it became) and kept
                                               while the functions compiled from it live; `python -m kfront -c` and
                                               `python -m kfront -` register theirs (`register`)
    linecache                                  files (read at decoration time), IPython and Jupyter cells, code
                                               that registered its text there
    the interpreter's own inputs               `python -c TEXT` (sys.orig_argv), `python - < file` / `python <
                                               file` (standard input when it is a regular file)
    the calling frames' strings                the texts cells run under IPython's magics were compiled from
                                               (%%time: `<timed exec>`, %%timeit: `<magic-timeit>`, %%prun ... keep
                                               the cell in a local of the magic; IPython's transform_cell of each
                                               is tried too), and an exec whose source is a local or a constant

Every candidate text is checked exactly before it is taken: the function's lines in it (decorators included,
indentation kept) are compiled in the function's own scope (its enclosing classes and functions rebuilt from its
qualified name, its closure variables as the enclosing function's), and the code object made must equal the
function's (bytecode, constants, names, line and column table, nested code), with the same constant default
values. So the text compiled is the function the user defined, or kfront says it has none
(SourceUnavailableError naming the function, where it was defined and what to do).
"""
import __future__
import ast
import collections
import importlib.util
import inspect
import linecache
import os
import re
import stat
import sys
import types as pytypes
import weakref

from kfront import errors

_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag


def _where(code):
    return "%s:%d" % (code.co_filename, code.co_firstlineno)


# ---- texts of code compiled from strings ------------------------------------------------------------------

# function code object -> (filename, text) of the string it was compiled from, while the code lives (code objects
# compare by value: equal ones compile from texts whose blocks for them are the same, so either text serves)
_string_texts = weakref.WeakKeyDictionary()
# (filename, text) of the latest compiles of strings whose code has not been run yet, newest last
_pending = collections.deque(maxlen=16)


def _functions_in(code):
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType):
            yield const
            yield from _functions_in(const)


def register(code, text):
    """Keeps `text` as the source of the functions of `code` (the code object compiled from it) while they live."""
    for fcode in _functions_in(code):
        _string_texts[fcode] = (code.co_filename, text)


def _decoded(source):
    if isinstance(source, str):
        return source
    return importlib.util.decode_source(bytes(source))


def _audit(event, args):
    """The audit hook: pairs the text of each compile of a string with the code an exec runs (an exec of a string
    raises both events; a compile() then an exec() of its code, the one then the other)."""
    try:
        if event == "compile":
            source, filename = args
            if isinstance(source, (bytes, bytearray, str)) and isinstance(filename, str) and \
                    (filename.startswith("<") or not os.path.isfile(filename)):
                _pending.append((filename, source))
        elif event == "exec" and _pending:
            code = args[0]
            if isinstance(code, pytypes.CodeType):
                for i in range(len(_pending) - 1, -1, -1):
                    filename, source = _pending[i]
                    if filename == code.co_filename:
                        del _pending[i]
                        register(code, _decoded(source))
                        break
    except Exception:  # an audit hook must never make the operation it watches fail
        pass


sys.addaudithook(_audit)


# ---- candidate texts --------------------------------------------------------------------------------------


def _interpreter_input(filename):
    """The text Python ran as `<string>` (python -c) or `<stdin>` (a regular file on standard input), or None."""
    if filename == "<string>":
        argv = getattr(sys, "orig_argv", ())
        for i, arg in enumerate(argv[1:], 1):
            if arg == "-c" and i + 1 < len(argv):
                return argv[i + 1]
            if arg.startswith("-c") and len(arg) > 2:
                return arg[2:]
            if not arg.startswith("-"):
                return None  # a script or `-m module`: -c was not given
    elif filename == "<stdin>":
        try:
            info = os.fstat(0)
            if stat.S_ISREG(info.st_mode) and info.st_size < (64 << 20):
                return _decoded(os.pread(0, info.st_size, 0))
        except (OSError, SyntaxError, UnicodeDecodeError):
            pass
    return None


def _ipython_shell():
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None)
    try:
        return get() if get is not None else None
    except Exception:
        return None


def _frame_strings(frame, defines):
    """The strings a frame holds (its locals, its code's constants) that may define the function."""
    try:
        values = list(frame.f_locals.values())
    except Exception:
        values = []
    values.extend(frame.f_code.co_consts)
    for value in values:
        if isinstance(value, str) and defines.search(value):
            yield value


def _candidates(fn, code, defines, frame):
    """Texts that may hold the function, most likely first: (lines, whether linecache has them for its file)."""
    filename = code.co_filename
    kept = _string_texts.get(code)
    if kept is not None and kept[0] == filename:
        yield kept[1].splitlines(True), False
    linecache.checkcache(filename)
    lines = linecache.getlines(filename, getattr(fn, "__globals__", None))
    if lines:
        yield lines, True
    text = _interpreter_input(filename)
    if text is not None:
        yield text.splitlines(True), False
    shell = _ipython_shell()
    seen = set()
    while frame is not None:
        for text in _frame_strings(frame, defines):
            variants = [text]
            if shell is not None:
                try:
                    variants.append(shell.transform_cell(text))
                except Exception:
                    pass
            for variant in variants:
                if variant not in seen:
                    seen.add(variant)
                    yield variant.splitlines(True), False
        frame = frame.f_back


# ---- the exact check --------------------------------------------------------------------------------------


def _scopes(code, qualname):
    """The enclosing scopes of a function, outermost first, as (kind, name) with kind "def" or "class", from its
    qualified name ("outer.<locals>.Holder.method"); None when one cannot be rebuilt (a lambda's, ...)."""
    parts = qualname.split(".")[:-1]
    scopes = []
    for i, part in enumerate(parts):
        if part == "<locals>":
            continue
        if not part.isidentifier():
            return None
        scopes.append(("def" if i + 1 < len(parts) and parts[i + 1] == "<locals>" else "class", part))
    return scopes


def _wrapped(body, scopes, freevars):
    """A module whose body is `body` nested in `scopes`, the innermost function taking the closure variables as
    parameters (so they are cells there, as in the function's own enclosing function)."""
    innermost_def = max((i for i, s in enumerate(scopes) if s[0] == "def"), default=None)
    if freevars and innermost_def is None:
        return None
    for i in range(len(scopes) - 1, -1, -1):
        kind, name = scopes[i]
        if kind == "class":
            node = ast.ClassDef(name=name, bases=[], keywords=[], body=body, decorator_list=[])
        else:
            params = [ast.arg(arg=v) for v in freevars] if i == innermost_def else []
            node = ast.FunctionDef(name=name, args=ast.arguments(posonlyargs=[], args=params, vararg=None,
                                                                 kwonlyargs=[], kw_defaults=[], kwarg=None,
                                                                 defaults=[]),
                                   body=body, decorator_list=[], returns=None)
        if "type_params" in node._fields:
            node.type_params = []
        body = [node]
    return ast.fix_missing_locations(ast.Module(body=body, type_ignores=[]))


def _constant(node):
    """The value of a default's expression when it is a constant one (a literal, a signed number, a tuple of
    them); _NOT_CONSTANT otherwise."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOT_CONSTANT


_NOT_CONSTANT = object()


def _same_defaults(funcdef, fn):
    """The def's default values are the function's: as many, and each constant one equal (type and value). (They
    are evaluated by the code around the def, which the code object compared does not hold.)"""
    if funcdef is None:
        return False
    args = funcdef.args
    defaults = getattr(fn, "__defaults__", None) or ()
    kwdefaults = getattr(fn, "__kwdefaults__", None) or {}
    if len(args.defaults) != len(defaults):
        return False
    pairs = list(zip(args.defaults, defaults))
    for arg, node in zip(args.kwonlyargs, args.kw_defaults):
        if node is not None:
            if arg.arg not in kwdefaults:
                return False
            pairs.append((node, kwdefaults[arg.arg]))
    for node, value in pairs:
        want = _constant(node)
        if want is not _NOT_CONSTANT and (type(want) is not type(value) or repr(want) != repr(value)):
            return False
    return True


def _find_code(code, name, first):
    for const in _functions_in(code):
        if const.co_name == name and const.co_firstlineno == first:
            yield const


def _pytest_rewritten(fn):
    """pytest's assertion rewriter, when fn's module was imported through it (it rewrites the asserts of test
    modules before compiling them; the check replays it)."""
    globals_ = getattr(fn, "__globals__", {})
    if "@py_builtins" not in globals_ and "@pytest_ar" not in globals_:
        return None
    rewrite = sys.modules.get("_pytest.assertion.rewrite")
    return getattr(rewrite, "rewrite_asserts", None)


# the last texts compiled whole: (filename, text, flags, rewritten) -> their code, so the functions of one file or
# cell are checked against one compile of it
_whole_texts = collections.OrderedDict()


def _compiled_whole(lines, fn, code):
    """The code of the whole text the function is in, compiled as Python compiled its file or cell (as pytest
    rewrote it, for a test module), or None when it does not compile."""
    text = "".join(lines)
    rewrite = _pytest_rewritten(fn)
    flags = code.co_flags & _FUTURE_FLAGS
    key = (code.co_filename, text, flags, rewrite is not None)
    compiled = _whole_texts.get(key)
    if compiled is None and key not in _whole_texts:
        try:
            tree = ast.parse(text, code.co_filename)
            if rewrite is not None:
                rewrite(tree, text.encode(), code.co_filename, None)
            compiled = compile(tree, code.co_filename, "exec", flags=flags, dont_inherit=True)
        except Exception:  # SyntaxError, ValueError, ... of a text that is not Python's
            compiled = None
        _whole_texts[key] = compiled
        while len(_whole_texts) > 4:
            _whole_texts.popitem(last=False)
    return compiled


def _is_the_function(lines, block, first, fn, code):
    """Whether the text `lines`, whose lines `block` from file line `first` on hold the function's def, is its
    source: the whole text compiles to its code (its own file or cell), or the block does, in the function's scope
    rebuilt (a text compiled inside another, as IPython's %%timeit compiles a cell inside a function)."""
    compiled = _compiled_whole(lines, fn, code)
    if compiled is not None and any(c == code for c in _find_code(compiled, code.co_name, code.co_firstlineno)):
        return _same_defaults(_block_def(block, first, code), fn)
    funcdef, body = _parsed_block(block, first, code)
    if funcdef is None or not _same_defaults(funcdef, fn):
        return False
    scopes = _scopes(code, getattr(code, "co_qualname", getattr(fn, "__qualname__", code.co_name)))
    if scopes is None:
        return False
    module = _wrapped(body, scopes, [v for v in code.co_freevars if v != "__class__"])
    if module is None:
        return False
    try:
        compiled = compile(module, code.co_filename, "exec", flags=code.co_flags & _FUTURE_FLAGS, dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return any(c == code for c in _find_code(compiled, code.co_name, code.co_firstlineno))


def _parsed_block(block, first, code):
    """(the def, the statements) of the function's lines parsed, at their file lines; (None, None) when they are
    not one def of the function."""
    text = "".join(block)
    try:
        if text[:1] in (" ", "\t"):  # indented: the body of an `if 1:`, which takes any indentation
            tree = ast.parse("if 1:\n" + text)
            body = tree.body[0].body
            ast.increment_lineno(tree, first - 2)
        else:
            tree = ast.parse(text)
            body = tree.body
            ast.increment_lineno(tree, first - 1)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None, None
    if len(body) != 1 or not isinstance(body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) or \
            body[0].name != code.co_name:
        return None, None
    return body[0], body


def _block_def(block, first, code):
    return _parsed_block(block, first, code)[0]


def _block(lines, first):
    if not lines or first > len(lines):
        return None
    try:
        return inspect.getblock(lines[first - 1:])
    except Exception:  # tokenize errors on text that is not the function's
        return None


# ---- the source of a function -----------------------------------------------------------------------------


def _missing(fn, code, qualname, file_changed):
    where = _where(code)
    filename = code.co_filename
    if file_changed:
        return errors.SourceUnavailableError(
            "kfront: the source lines at %s do not define function '%s' as Python compiled it (was the file changed "
            "after the function was compiled and before it was decorated?): kfront compiles a function from the "
            "text it had when @cuda.jit ran; re-import the module or run the definition again" % (where, qualname),
            file=filename, line=code.co_firstlineno)
    if filename == "<stdin>":
        hint = "a program piped to python: run it with `python -m kfront - < prog.py`, or from a file"
    elif filename.startswith("<"):
        hint = ("code compiled from a string before kfront was imported, or given to compile() as an AST: import "
                "kfront (or numba under kfront's drop-in) before the code is compiled, or register the text with "
                "linecache under the code's file name")
    elif not os.path.exists(filename):
        hint = ("its file %s is not there (a module installed as .pyc only?): install the module's .py files"
                % filename)
    else:
        hint = "the file holds no text for it"
    return errors.SourceUnavailableError(
        "kfront: the source of function '%s' (%s) is not available: kfront compiles a function from its source "
        "text, taken when @cuda.jit runs (from its file, a notebook cell, code compiled from a string after "
        "kfront was imported, python -c or standard input); here there is none: %s" % (qualname, where, hint),
        file=filename, line=code.co_firstlineno)


def function_source(fn, frame=None):
    """(filename, text, first_line) of a Python function: its lines exactly as Python compiled them (decorators
    included, indentation kept: a function nested in a function or a class is indented), first_line the file line
    of the text's first line. Found as the module's docstring says; `frame` is where the search of the calling
    frames' strings starts (by default the caller's).

    A lambda's text is the def `lambda_source` makes of it.

    SourceUnavailableError when no text compiles to the function (none kept, or the file changed before the
    function was decorated)."""
    code = getattr(fn, "__code__", None)
    if not isinstance(code, pytypes.CodeType):
        raise TypeError("kfront: %r is not a Python function" % (fn,))
    name = code.co_name
    qualname = getattr(fn, "__qualname__", name)
    frame = frame if frame is not None else sys._getframe(1)
    if name == "<lambda>":
        return _lambda_source(fn, code, qualname, frame)
    first = code.co_firstlineno
    defines = re.compile(r"(^|\n)[ \t]*(async[ \t]+)?def[ \t]+%s\b" % re.escape(name))
    file_changed = False
    for lines, from_file in _candidates(fn, code, defines, frame):
        block = _block(lines, first)
        if block is None or not any(defines.match(line) for line in block):
            file_changed |= from_file
            continue
        if _is_the_function(lines, block, first, fn, code):
            return code.co_filename, "".join(block), first
        file_changed |= from_file
    raise _missing(fn, code, qualname, file_changed)


# ---- lambdas ----------------------------------------------------------------------------------------------


def compiled_name(fn):
    """The name kfront compiles a Python function under: its own, or for a lambda `lambda_L<line>_C<column>` (the
    def _lambda_source makes of it; a lambda's <lambda> is no identifier)."""
    code = fn.__code__
    if code.co_name != "<lambda>":
        return code.co_name
    span = _body_span(code)
    return "lambda_L%d_C%d" % (code.co_firstlineno, span[2] if span else 0)


def _body_span(code):
    """(line, end line, column, end column) of a lambda's body, in UTF-8 bytes as ast gives them: the span its
    instructions cover together (each one's is part of the body; RESUME's is empty)."""
    spans = [p for p in code.co_positions() if None not in p and (p[0], p[2]) != (p[1], p[3])]
    if not spans:
        return None
    start = min((p[0], p[2]) for p in spans)
    end = max((p[1], p[3]) for p in spans)
    return start[0], end[0], start[1], end[1]


def _text_between(lines, node):
    """The source text of an ast node (lines of the whole text), its first line's lead replaced by spaces so that
    the node keeps its column."""
    first, last = node.lineno - 1, node.end_lineno - 1
    chunk = [line.encode() for line in lines[first:last + 1]]
    chunk[-1] = chunk[-1][:node.end_col_offset]
    lead = chunk[0][:node.col_offset].decode(errors="replace")
    chunk[0] = b" " * len(lead) + chunk[0][node.col_offset:]
    return b"".join(chunk).decode(errors="replace")


def _same_body(node, code):
    """Whether the lambda `node`, compiled alone, gives code's instructions, constants and names."""
    try:
        expr = compile(ast.fix_missing_locations(ast.Expression(node)), code.co_filename, "eval",
                       flags=code.co_flags & _FUTURE_FLAGS, dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    own = next((c for c in expr.co_consts if hasattr(c, "co_code")), None)
    return own is not None and all(getattr(own, a) == getattr(code, a) for a in (
        "co_code", "co_consts", "co_names", "co_varnames", "co_freevars", "co_argcount", "co_kwonlyargcount"))


def _lambda_node(tree, first, span, fn, code):
    """The ast.Lambda at line `first` (with fn's constant defaults) whose code's instructions span `span`: the one
    whose body spans exactly that (CPython 3.11), else the innermost one whose whole text holds it. Where no
    instruction has a column span (3.12's `lambda: None`, one RETURN_CONST without columns), the first whose text
    compiled alone gives the same instructions (lambdas alike in all of that are the same function)."""
    lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == first and _same_defaults(n, fn)]
    if span is None:
        return next((n for n in lambdas if _same_body(n, code)), None)
    for node in lambdas:
        if (node.body.lineno, node.body.end_lineno, node.body.col_offset, node.body.end_col_offset) == span:
            return node
    inner = None
    for node in lambdas:
        start, end = (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)
        if start <= (span[0], span[2]) and (span[1], span[3]) <= end and \
                (inner is None or (inner.lineno, inner.col_offset) <= start and end <= (inner.end_lineno, inner.end_col_offset)):
            inner = node
    return inner


def _lambda_source(fn, code, qualname, frame):
    """(filename, text, first_line) of a lambda: `def lambda_L<line>_C<col>(<its parameters>): return (<its
    body>)`, its body at its own lines and columns where there is room above it for the def (its line >= 3), else
    on one line. The lambda is the one of the text at its line whose whole text compiles to its code and whose
    body spans what its code's instructions do (and whose constant defaults are its own)."""
    first = code.co_firstlineno
    span = _body_span(code)
    file_changed = False
    for lines, from_file in _candidates(fn, code, re.compile(r"\blambda\b"), frame):
        compiled = _compiled_whole(lines, fn, code)
        if compiled is None or not any(c == code for c in _find_code(compiled, "<lambda>", first)):
            file_changed |= from_file
            continue
        node = _lambda_node(ast.parse("".join(lines)), first, span, fn, code)
        if node is not None:
            head = "def %s(%s):" % (compiled_name(fn), ast.unparse(node.args))
            body = _text_between(lines, node.body)
            if node.body.lineno >= 3:
                return code.co_filename, "%s\n return (\n%s\n )\n" % (head, body), node.body.lineno - 2
            return code.co_filename, "%s return (%s)\n" % (head, body.lstrip(" ")), node.body.lineno
        file_changed |= from_file
    raise _missing(fn, code, qualname, file_changed)
