from enum import Enum, IntEnum

from numba import cuda


class Color(Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


class RequestError(IntEnum):
    DUMMY = 2
    NOT_FOUND = 404
    INTERNAL_ERROR = 500


@cuda.jit(device=True)
def shade(i):
    if i % 3 == 0:
        return Color.RED
    elif i % 3 == 1:
        return Color.GREEN
    return Color.BLUE


@cuda.jit("void(int64[:], int64[:])")
def classify(codes, out):
    i = cuda.grid(1)
    if i < codes.shape[0]:
        x = codes[i]
        if x > RequestError.INTERNAL_ERROR:
            out[i] = x - RequestError.NOT_FOUND
        elif x == RequestError.NOT_FOUND:
            out[i] = RequestError["DUMMY"]
        else:
            c = shade(i)
            out[i] = c.value * 10 + (c is Color.BLUE)
