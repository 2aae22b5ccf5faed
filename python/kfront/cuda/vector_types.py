"""kfront.cuda.vector_types — numba.cuda.vector_types (and numba.cuda.simulator.vector_types): the table of
numba-cuda's vector types, `vector_types`, name -> VectorType.

A VectorType describes one of kfront.cuda's vector types (float32x4, ...; kernels construct them by the name, its
C-style aliases or the VectorType's user_facing_object, and read .x .y .z .w): its name, base_type (a kfront type),
attr_names, num_elements, and user_facing_object (the kernel-side object, whose `aliases` lists the C-style names).
numba-cuda's module also holds the typing and lowering registries behind them, which kfront's frontend has in C.
"""
from kfront import cuda, types
from kfront.cuda import intrinsics

_ATTR_NAMES = ("x", "y", "z", "w")


class VectorType(types.Type):
    """One vector type: name ("float32x4"), base_type (float32), attr_names (("x", "y", "z", "w")), num_elements,
    user_facing_object (cuda.float32x4)."""

    def __init__(self, name, base_type, attr_names, user_facing_object):
        super().__init__(name)
        self._base_type = base_type
        self._attr_names = attr_names
        self._user_facing_object = user_facing_object

    @property
    def base_type(self):
        return self._base_type

    @property
    def attr_names(self):
        return self._attr_names

    @property
    def num_elements(self):
        return len(self._attr_names)

    @property
    def user_facing_object(self):
        return self._user_facing_object


def _table():
    table = {}
    for name in intrinsics.VECTOR_TYPES:
        base, count = name.rsplit("x", 1)
        table[name] = VectorType(name, getattr(types, base), _ATTR_NAMES[:int(count)], getattr(cuda, name))
    return table


vector_types = _table()
