"""GPU-only: cuda.jit given signatures compiles at decoration, kfront against numba-cuda on the GPU (run by
test/gpu/run_python_gpu.sh on the GPU machine, where both are installed; numba-cuda's simulator runs Python and
reads globals at each launch, so only the GPU shows numba-cuda's semantics). The same module text runs under both:
a kernel and a device function given signatures read globals rebound after their decoration, a bare kernel calls
the device function; both compilers must give the values frozen at decoration, and both must raise a TypingError
at the decorator for a non-constant cuda.grid dimension count (numba-cuda's test_nonliteral_grid_error)."""
import numba.cuda as ncuda  # the GPU machine has numba-cuda: missing, the suite fails (it is not skipped)
import numpy as np
import pytest

from kfront import cuda as kcuda

MODULE = '''
N = 10
M = 1


@cuda.jit("void(int64[:])")
def declared(a):
    a[0] = N


@cuda.jit("int64(int64)", device=True)
def add_m(x):
    return x + M


N = 20
M = 2


@cuda.jit
def calls_add_m(a):
    a[0] = add_m(1)
'''


def _load(cuda, tmp_path, name):
    path = tmp_path / ("%s.py" % name)
    path.write_text(MODULE)
    scope = {"cuda": cuda, "__name__": name}
    exec(compile(MODULE, str(path), "exec"), scope)
    return scope


@pytest.mark.parametrize("which", ["kfront", "numba-cuda"])
def test_globals_are_frozen_at_decoration(which, tmp_path):
    cuda = kcuda if which == "kfront" else ncuda
    m = _load(cuda, tmp_path, "decoration_" + which.replace("-", "_"))
    a = np.zeros(1, np.int64)
    m["declared"][1, 1](a)
    b = np.zeros(1, np.int64)
    m["calls_add_m"][1, 1](b)
    assert (a[0], b[0]) == (10, 2)


@pytest.mark.parametrize("which", ["kfront", "numba-cuda"])
def test_a_typing_error_is_raised_at_the_decorator(which):
    cuda = kcuda if which == "kfront" else ncuda

    def nonliteral_grid(x):
        cuda.grid(x)

    with pytest.raises(Exception) as e:
        cuda.jit("void(int32)")(nonliteral_grid)
    assert type(e.value).__name__ == "TypingError"
