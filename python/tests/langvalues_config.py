"""A module of the program's own whose attributes kernels in test_language_values.py read (config.THRESHOLD,
config.scaled(x), config.Color.GREEN, ...)."""
import enum

import numpy as np

from kfront import cuda

THRESHOLD = 5
SCALE = 2.5
LIMITS = (1, 2, 3)
WEIGHTS = np.array([10, 20, 30], dtype=np.int32)
NAMES = ["a", "b"]          # a list: kernels cannot use it
TOO_BIG = 1 << 70           # fits in no integer type of a kernel (only an error where a kernel reads it)


class Color(enum.IntEnum):
    RED = 1
    GREEN = 2


@cuda.jit(device=True)
def scaled(x):
    return x * THRESHOLD


def plain(x):               # not a @cuda.jit function
    return x
