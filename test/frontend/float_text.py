# float() of a string constant: Python's float() of its text, as numba-cuda's float_literal_impl; text Python refuses
# is a located error with Python's ValueError message.
from numba import cuda


# RUN: kfront compile %s -k constants --sig 'void(float64[:])' --emit=kir 2>&1 | FileCheck %s --check-prefix=OK
# OK: arith.constant() {value = -100.05} : () -> (f64)
@cuda.jit
def constants(out):
    out[0] = float(" -1_000.5e-1 ")


# RUN: not kfront compile %s -k bad_text --sig 'void(float64[:])' 2>&1 | FileCheck %s --check-prefix=BAD
@cuda.jit
def bad_text(out):
    # BAD: float_text.py:[[@LINE+1]]:20: error: could not convert string to float: '1__0' (ValueError; kfront reads Python's float() text in ASCII)
    out[0] = float("1__0")
