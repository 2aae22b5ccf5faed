# Diagnostics of slicing and views, each located at the offending token. One kernel per case.
import numpy as np
from numba import cuda


# RUN: not kfront compile %s -k too_many --sig 'void(float32[:, :])' 2>&1 | FileCheck %s --check-prefix=MANY
@cuda.jit
def too_many(a):
    # MANY: diag_views.py:[[@LINE+1]]:11: error: cannot index array(float32, 2d, A) with this index: too many indices for the array
    b = a[0, :, 1:]


# RUN: not kfront compile %s -k ellipses --sig 'void(float32[:, :])' 2>&1 | FileCheck %s --check-prefix=ELL
@cuda.jit
def ellipses(a):
    # ELL: diag_views.py:[[@LINE+1]]:11: error: cannot index array(float32, 2d, A) with this index: an index can only have a single ellipsis ('...')
    b = a[..., 0, ...]


# RUN: not kfront compile %s -k zero_step --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=ZERO
@cuda.jit
def zero_step(a):
    # ZERO: diag_views.py:[[@LINE+1]]:14: error: slice step cannot be zero
    b = a[1::0]


# RUN: not kfront compile %s -k float_bound --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=FLOAT
@cuda.jit
def float_bound(a):
    # FLOAT: diag_views.py:[[@LINE+1]]:11: error: slice indices must be integers or None, not float64
    b = a[1.5:]


# RUN: not kfront compile %s -k slice_index --sig 'void(float32[:, :])' 2>&1 | FileCheck %s --check-prefix=SIDX
@cuda.jit
def slice_index(a):
    # SIDX: diag_views.py:[[@LINE+1]]:14: error: array index must be an integer, not float64
    b = a[:, 1.0]


# RUN: not kfront compile %s -k aug_slice --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=AUG
@cuda.jit
def aug_slice(a):
    # AUG: diag_views.py:[[@LINE+1]]:11: error: augmented assignment to a slice of an array is not supported in kernels (it is an array expression)
    a[1:] += 1


# RUN: not kfront compile %s -k axes --sig 'void(float32[:, :])' 2>&1 | FileCheck %s --check-prefix=AXES
@cuda.jit
def axes(a):
    # AXES: diag_views.py:[[@LINE+1]]:9: error: repeated axis in transpose
    b = a.transpose(1, 1)


# RUN: not kfront compile %s -k axes_count --sig 'void(float32[:, :])' 2>&1 | FileCheck %s --check-prefix=AXN
@cuda.jit
def axes_count(a):
    # AXN: diag_views.py:[[@LINE+1]]:9: error: axes don't match array: 3 given for array(float32, 2d, A)
    b = a.transpose((1, 0, 2))


# RUN: not kfront compile %s -k copies --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=COPY
@cuda.jit
def copies(a):
    # COPY: diag_views.py:[[@LINE+1]]:9: error: copy() of array(float32, 1d, A): kfront makes a copy as a thread-local array, which needs a shape known at compile time (a module-level NumPy array, or a local or shared array of constant shape); Numba's CUDA target allocates others with its NRT, which kfront has not
    b = a.copy()


# RUN: not kfront compile %s -k copy_in_loop --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=COPYLOOP
@cuda.jit
def copy_in_loop(a):
    for i in range(2):
        # COPYLOOP: diag_views.py:[[@LINE+1]]:13: error: copy() in a loop: kfront's copy is one thread-local array per call site, which a later iteration would overwrite (copy before the loop, or copy into a cuda.local.array)
        b = cuda.local.array(3, np.float32).copy()
        a[i] = b[0]


@cuda.jit(device=True)
def returns_copy():
    # COPYRET: diag_views.py:[[@LINE+1]]:12: error: a device function cannot return an array its copy() made: kfront's copy is a thread-local array of the call, gone when it returns (Numba's, made with its NRT, outlives it); pass in an array to copy into
    return cuda.local.array(3, np.float32).copy()


# RUN: not kfront compile %s -k copy_returned --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=COPYRET
@cuda.jit
def copy_returned(a):
    a[0] = returns_copy()[0]


# RUN: not kfront compile %s -k tuple_step --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=TSTEP
@cuda.jit
def tuple_step(a):
    t = (1, 2, 3)
    # TSTEP: diag_views.py:[[@LINE+1]]:13: error: slice step cannot be zero
    u = t[::0]
