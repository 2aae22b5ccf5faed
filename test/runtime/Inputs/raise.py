from numba import cuda


class TooBig(ValueError):
    pass


@cuda.jit(device=True)
def positive(x):
    if x <= 0:
        raise ValueError("must be positive")
    return x


@cuda.jit("void(int64[:])", debug=True)
def checked(a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        if a[i] > 1000:
            raise TooBig("too big", 1000)
        assert a[i] != 7, "seven"
        a[i] = positive(a[i]) * 2


@cuda.jit("void(int64[:])")
def unchecked(a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        if a[i] > 1000:
            raise TooBig("too big", 1000)
        assert a[i] != 7, "seven"
        a[i] = positive(a[i]) * 2
