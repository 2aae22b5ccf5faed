"""The kernel-side names of numba.cuda (threadIdx, grid, syncthreads, shared, atomic, ...) as host objects.

They exist so that `from numba.cuda import grid` and `cuda.shared.array` resolve in a program: a kernel that
uses one gets it bound by its path ("numba.cuda.grid"), which kfront's compiler knows; called on the host they
raise, as in Numba. Attribute chains (`cuda.atomic.add`, `cuda.shared.array`) give stable objects, so that a
name imported from them is recognised by identity.
"""

from kfront import _kfront

# numba.cuda's names that only mean something inside a kernel or device function: the first name after
# "numba.cuda." of each path of the compiler's builtins (frontend/builtins.def, read through kf_builtin_path), less
# the ones this package defines on the host itself (functions and modules), and the namespaces whose members the
# compiler knows by prefix (cuda.fp16.hadd, cuda.bf16.htrunc, cuda.libdevice.sin)
_HOST_DEFINED = frozenset(("jit", "reduce", "Reduce", "vectorize", "guvectorize", "literal_unroll", "misc", "np"))
_PREFIX_NAMESPACES = ("fp16", "bf16", "libdevice")
KERNEL_NAMES = tuple(sorted({path[len("numba.cuda."):].partition(".")[0] for path in _kfront.builtin_paths()
                             if path.startswith("numba.cuda.")} - _HOST_DEFINED)) + _PREFIX_NAMESPACES

# numba-cuda's vector types (numba.cuda.vector_types): <base>x<N>, and the C-style aliases of each (float4 is
# float32x4; long and ulong are 64-bit, as on Linux); an alias is the same object as the type it names
VECTOR_BASES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")
VECTOR_TYPES = tuple("%sx%d" % (base, n) for base in VECTOR_BASES for n in (1, 2, 3, 4))
VECTOR_ALIAS_BASES = {"char": "int8", "short": "int16", "int": "int32", "long": "int64", "longlong": "int64",
                      "uchar": "uint8", "ushort": "uint16", "uint": "uint32", "ulong": "uint64",
                      "ulonglong": "uint64", "float": "float32", "double": "float64"}
VECTOR_ALIASES = {"%s%d" % (alias, n): "%sx%d" % (base, n)
                  for alias, base in VECTOR_ALIAS_BASES.items() for n in (1, 2, 3, 4)}


class KernelOnly:
    """A name usable only in kernel code, known by its numba path."""

    __slots__ = ("_path", "_children")

    def __init__(self, path):
        self._path = path
        self._children = {}

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):  # not cuda.fp16.__hadd: a name numba-cuda spells so
            raise AttributeError(name)
        child = self._children.get(name)
        if child is None:
            child = self._children[name] = KernelOnly(self._path + "." + name)
        return child

    def __call__(self, *args, **kwargs):
        raise TypeError("kfront: %s() can only be used inside a @cuda.jit kernel or device function" % self._path)

    def __repr__(self):
        return "<kernel-only %s>" % self._path

    @property
    def __name__(self):  # as numba-cuda's stubs, types and functions have one (fp8_e4m3.__name__)
        return self._path.rpartition(".")[2]

    def walk(self):
        """(object, path) for this name and every attribute reached so far."""
        yield self, self._path
        for child in self._children.values():
            yield from child.walk()


class VectorTypeStub(KernelOnly):
    """A vector type's name in kernels (cuda.float32x4): as numba-cuda's stub, `aliases` lists its C-style names
    (["float4"]), each the same object under numba.cuda."""

    __slots__ = ("aliases",)

    def __init__(self, path, aliases):
        super().__init__(path)
        self.aliases = aliases


def make_namespace(prefix):
    """{name: KernelOnly(prefix.name)} for every kernel-side name and vector type, and the vector types' aliases."""
    names = {name: KernelOnly(prefix + "." + name) for name in KERNEL_NAMES}
    for name in VECTOR_TYPES:
        names[name] = VectorTypeStub(prefix + "." + name, sorted(a for a, n in VECTOR_ALIASES.items() if n == name))
    names.update((alias, names[name]) for alias, name in VECTOR_ALIASES.items())
    return names
