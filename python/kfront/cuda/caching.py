"""cuda.jit(cache=True): numba-cuda's on-disk cache of a kernel's compilations, in the files and places numba-cuda
keeps them, with its semantics.

Where (numba-cuda's locators, the first that can be written): $NUMBA_CACHE_DIR/<dir>_<sha1 of dir> when
config.CACHE_DIR is set; the `__pycache__` folder beside the function's source file; the user-wide
~/.cache/numba/<dir>_<sha1 of dir> ($XDG_CACHE_HOME/numba); for a function of an IPython/Jupyter cell, IPython's
cache folder/numba_cache. A function with none (a source string run by exec, say) is numba-cuda's RuntimeError
"cannot cache function ...: no locator available" at decoration.

What: per function, an index `<module>.<qualname>-<first line>.py<XY>.nbi` and one data file per compiled
signature and target, `<module>.<qualname>-<first line>.py<XY>.<n>.nbc`. The index starts with kfront's version (so
numba-cuda and kfront each ignore the other's) and holds the source file's stamp (modification time and size) and
a map from each entry's key — the signature, the target (sim or sm_XY), kfront's version, the compile options, a
hash of the function's source and one of its closure cells' values, as numba-cuda's key hashes its bytecode and
cells — to its data file. A data file holds what the kernel was compiled from: the frozen inputs of its program
(the sources of the kernel and of the device functions it calls, the values of the globals and closure variables
they read as frozen at that compile, the options), which kfront's compiler turns into the same code; the PTX itself
is in kfront's compiled-kernel cache (KFRONT_CACHE_DIR), keyed by exactly those inputs, so a hit also skips NVVM
while that entry is there (the simulator always compiles the recorded kir).

Semantics, numba-cuda's: a dispatcher whose source file is unchanged since its entries were written takes the
recorded inputs at its first compile instead of freezing the globals again — the globals keep the values they had
when the cache was written (numba-cuda's documented limitation: "the cache does not detect changes to global
variables"); an edited file (another stamp) makes the index stale and every signature compiles afresh; recompile()
empties the index, freezes the globals anew and compiles every signature again, overwriting the entries. A kernel
that captures device memory, links foreign code (numba-cuda's errors) or reads a value that cannot be pickled (a
NumbaWarning, as numba-cuda's "cannot cache ... dynamic globals") is not cached. Dispatcher.stats counts each new
specialisation once: a hit when its entry was found, else a miss.
"""
import collections
import hashlib
import itertools
import os
import pickle
import sys
import tempfile
import uuid
import warnings

from kfront import errors

CompileStats = collections.namedtuple("_CompileStats", ("cache_path", "cache_hits", "cache_misses"))


def _version():
    """The index's header (numba-cuda writes its numba version there)."""
    import kfront
    return "kfront-" + kfront.__version__


def _ensure_writable(path):
    """Whether the folder exists (made if need be) and a file can be written in it."""
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
        return True
    except OSError:
        return False


def _subpath(py_file):
    """numba-cuda's name of a source folder inside a shared cache folder: its last part and a SHA-1 of its path."""
    folder = os.path.dirname(os.path.abspath(py_file))
    return "_".join([os.path.split(folder)[-1], hashlib.sha1(folder.encode()).hexdigest()])


def _user_cache_dir():
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Caches/numba")
    if os.name == "nt":
        return os.path.join(os.environ.get("LOCALAPPDATA", os.path.expanduser("~")), "numba", "Cache")
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "numba")


def _ipython_cache_dir():
    try:
        from IPython.paths import get_ipython_cache_dir
    except ImportError:
        return None
    return os.path.join(get_ipython_cache_dir(), "numba_cache")


def _locate(py_func, text):
    """(cache folder, source stamp, disambiguator) of py_func as numba-cuda's locators find them, or None.
    text: the source kfront took for it (an IPython cell's)."""
    from kfront import config
    py_file = py_func.__code__.co_filename
    if py_file.startswith("<ipython-") or os.path.basename(os.path.dirname(py_file)).startswith("ipykernel_"):
        folder = _ipython_cache_dir()
        if folder is None or text is None or not _ensure_writable(folder):
            return None
        source = text.encode("utf-8")
        first_lines = b"".join(source.splitlines(True)[:2])
        return folder, hashlib.sha256(source).hexdigest(), hashlib.sha256(first_lines).hexdigest()[:10]
    if not os.path.exists(py_file):
        return None
    st = os.stat(py_file)
    stamp = (st.st_mtime, st.st_size)
    lineno = str(py_func.__code__.co_firstlineno)
    folders = []
    if config.CACHE_DIR:
        folders.append(os.path.join(config.CACHE_DIR, _subpath(py_file)))
    folders += [os.path.join(os.path.dirname(py_file), "__pycache__"), os.path.join(_user_cache_dir(), _subpath(py_file))]
    for folder in folders:
        if _ensure_writable(folder):
            return folder, stamp, lineno
    return None


def digest(data):
    return hashlib.sha256(data).hexdigest()


class Cache:
    """A cache=True dispatcher's entries (see the module's docstring)."""

    def __init__(self, dispatcher, raising=True):
        fn = dispatcher.py_func
        source = dispatcher._source if not isinstance(dispatcher._source, BaseException) else None
        found = _locate(fn, source[1] if source else None)
        if found is None:
            if raising:
                raise RuntimeError("cannot cache function %r: no locator available for file %r"
                                   % (fn.__qualname__, fn.__code__.co_filename))
            self.cache_path = None
            return
        self.cache_path, self._stamp, disambiguator = found
        modname = os.path.splitext(os.path.basename(fn.__code__.co_filename))[0]
        fullname = ("%s.%s" % (modname, fn.__qualname__)).replace("<", "").replace(">", "")
        base = "%s-%s.py%d%d%s" % (fullname, disambiguator, sys.version_info[0], sys.version_info[1],
                                   getattr(sys, "abiflags", ""))
        self._index_path = os.path.join(self.cache_path, base + ".nbi")
        self._data_pattern = base + ".{:d}.nbc"
        self._dispatcher = dispatcher
        self._identity = None

    @property
    def enabled(self):
        return self.cache_path is not None

    def disable(self):
        self.cache_path = None

    def _entry_identity(self):
        """What, beside the signature and target, an entry's key holds (computed at the first compile, when the
        closure cells have their values): kfront's version, the options, hashes of the source and closure."""
        if self._identity is None:
            from kfront.cuda import dispatcher as _dispatcher
            from kfront import _pickle
            d = self._dispatcher
            filename, text, first_line = _dispatcher.taken_source(d)
            options = repr(sorted(d._spec_options().items())) + repr((d._bounds_check, d._kind))
            cells = pickle.dumps(_pickle.portable_cells(d.py_func, _dispatcher._registry()))
            code = "%s\0%d\0%s" % (filename, first_line, text)
            self._identity = (_version(), options, (digest(code.encode()), digest(cells)))
        return self._identity

    # -- the files -----------------------------------------------------------------------------------
    def _load_index(self):
        try:
            with open(self._index_path, "rb") as f:
                if pickle.load(f) != _version():
                    return {}
                stamp, entries = pickle.loads(f.read())
        except (OSError, EOFError, pickle.UnpicklingError, ValueError, TypeError):
            return {}
        return entries if stamp == self._stamp else {}

    def _write(self, path, data):
        tmp = "%s.tmp.%s" % (path, uuid.uuid4().hex[:16])
        try:
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except OSError:  # a cache that cannot be written is no error: the kernel runs, uncached
            try:
                os.unlink(tmp)
            except OSError:
                pass
            return False
        return True

    def _save_index(self, entries):
        return self._write(self._index_path, pickle.dumps(_version(), protocol=-1) +
                           pickle.dumps((self._stamp, entries), protocol=-1))

    def flush(self):
        """Empties the index (Dispatcher.recompile): every entry is stale."""
        if self.enabled:
            self._save_index({})

    # -- a dispatcher's inputs --------------------------------------------------------------------------
    def restore(self):
        """(inputs state, its pickle, {(signature, target)} cached with it) from an entry of this function, or None."""
        if not self.enabled:
            return None
        try:
            identity = self._entry_identity()
        except Exception as e:  # a closure value pickle refuses: numba-cuda's dynamic-globals case
            self._refuse(e)
            return None
        entries = {key: value for key, value in self._load_index().items() if key[2:] == identity}
        for name, wanted in set(entries.values()):
            try:
                with open(os.path.join(self.cache_path, name), "rb") as f:
                    data = pickle.loads(f.read())
            except Exception:  # removed meanwhile, or unreadable: compile afresh
                continue
            blob = data.get("inputs") if isinstance(data, dict) else None
            if isinstance(blob, bytes) and digest(blob) == wanted:
                try:
                    state = pickle.loads(blob)
                except Exception:  # a class it names is gone, say: compile afresh
                    continue
                return state, blob, {key[:2] for key, value in entries.items() if value[1] == wanted}
        return None

    def adopt(self, inputs):
        """Makes inputs (just frozen or restored) the ones this dispatcher's new entries record: their pickled
        state, once. False (and caching off, with numba-cuda's warning) when a value cannot be pickled."""
        if not self.enabled:
            return False
        try:
            self._entry_identity()
            if inputs.cache_blob is None:
                blob = pickle.dumps(inputs.state(), protocol=-1)
                inputs.cache_blob, inputs.cache_digest = blob, digest(blob)
        except Exception as e:
            self._refuse(e)
            return False
        return True

    def _refuse(self, why):
        warnings.warn(errors.KfrontWarning(
            'Cannot cache compiled function "%s" as it uses dynamic globals (%s: %s)'
            % (self._dispatcher.__qualname__, type(why).__name__, why)), stacklevel=4)
        self.disable()

    def note(self, signature, target, inputs):
        """A new specialisation of the dispatcher: True (a hit) when its entry holds these inputs, else its entry
        is written (a miss: False)."""
        key = (signature, target)
        if key in inputs.cached_signatures:
            return True
        if not self.adopt(inputs):
            return False
        entries = self._load_index()
        full_key = key + self._identity
        name = entries.get(full_key, (None,))[0]
        if name is None:
            taken = {value[0] for value in entries.values()}
            name = next(n for n in (self._data_pattern.format(i) for i in itertools.count(1)) if n not in taken)
        data = pickle.dumps({"signature": signature, "target": target, "inputs": inputs.cache_blob}, protocol=-1)
        if self._write(os.path.join(self.cache_path, name), data):
            entries[full_key] = (name, inputs.cache_digest)
            if self._save_index(entries):
                inputs.cached_signatures.add(key)
        return False

