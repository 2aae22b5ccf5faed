"""A kernel of a package that reads a sibling module imported relatively (`from . import consts`)."""
from kfront import cuda

from . import consts


@cuda.jit
def add_offset(out):
    out[0] = consts.OFFSET + 1
