# A @guvectorize layout that does not fit its signature (diag_decorators.py).
from numba import cuda, guvectorize


@guvectorize(["void(float32[:], float32[:, :])"], "(m,n)->(m,n)", target="cuda")
def gu2(x, out):
    out[0, 0] = x[0]
