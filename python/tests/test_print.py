"""print() in kernels, as numba-cuda's test_print checks it (its kernels, its expected output): the lines go to
the process's standard output (the CUDA driver's printf on the GPU, when the launch is synchronised; the
simulator's when the launch ends, each thread's lines in its order and threads and blocks in order)."""
import numpy as np
import pytest

from kfront import cuda


def lines(capfd):
    cuda.synchronize()
    out, _ = capfd.readouterr()
    return [line.strip() for line in out.splitlines()]


@cuda.jit
def cuhello():
    i = cuda.grid(1)
    print(i, 999)
    print(-42)


@cuda.jit
def printfloat():
    i = cuda.grid(1)
    print(i, 23, 34.75, 321)


@cuda.jit
def printbool(x):
    print(True)
    print(False)
    print(x == 0)


@cuda.jit
def printstring():
    i = cuda.grid(1)
    print(i, "hop!", 999)


@cuda.jit
def printdim3():
    print(cuda.threadIdx)


@cuda.jit
def printempty():
    print()


@cuda.jit
def print_tuple(tup):
    print(tup)


@cuda.jit
def print_too_many(r):
    print(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10],
          r[11], r[12], r[13], r[14], r[15], r[16], r[17], r[18], r[19], r[20],
          r[21], r[22], r[23], r[24], r[25], r[26], r[27], r[28], r[29], r[30],
          r[31], r[32])


def test_cuhello(capfd):
    cuhello[2, 3]()
    # each print() is atomic; the order across threads is the GPU's (sorted here, as numba-cuda's test does)
    assert sorted(lines(capfd)) == ["-42"] * 6 + ["%d 999" % i for i in range(6)]


def test_printfloat(capfd):
    printfloat[1, 1]()
    assert lines(capfd) == ["0 23 34.750000 321"]


def test_bool(capfd):
    printbool[1, 1](0)
    printbool[1, 1](1)
    assert lines(capfd) == ["True", "False", "True", "True", "False", "False"]


def test_printempty(capfd):
    printempty[1, 1]()
    assert lines(capfd) == [""]


def test_string(capfd):
    printstring[1, 3]()
    assert sorted(lines(capfd)) == ["%d hop! 999" % i for i in range(3)]


def test_dim3(capfd):
    printdim3[1, (2, 2, 2)]()
    assert sorted(lines(capfd)) == [str(i) for i in np.ndindex(2, 2, 2)]


def test_tuples(capfd):
    print_tuple[1, 1]((1, 2, 3, 4, 5))
    print_tuple[1, 1]((1, ((2, 4), 3.0), (4,), 5))
    print_tuple[1, 1]((1,))
    assert lines(capfd) == ["(1, 2, 3, 4, 5)", "(1, ((2, 4), 3.000000), (4,), 5)", "(1,)"]


def test_too_many_args(capfd):
    with pytest.warns(Warning, match="CUDA print\\(\\) cannot print more than 32 items"):
        print_too_many[1, 1](np.arange(33))
    assert " ".join(["%lld" for _ in range(33)]) in "\n".join(lines(capfd))


@cuda.jit
def print_complex(a):
    print(a[0].real, a[0])


def test_complex_refused():
    # numba-cuda's printimpl has no complex implementation ("printing unimplemented for values of type complex64")
    a = np.array([1 + 2j], np.complex64)
    with pytest.raises(Exception, match=r"test_print.py:\d+:22: error: printing a complex64 is not supported"):
        print_complex[1, 1](a)
