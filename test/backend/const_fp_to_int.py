# Float-to-integer conversions of constants out of range: LLVM would fold them to `poison`, which libNVVM's
# parser rejects ("parse expected value token"); kfront converts them as the GPU's cvt.rzi does at run time
# and as the simulator does (saturating, NaN to 0). Found by fuzzing.
# RUN: kfront compile %s -k sat --sig 'void(int64[::1])' --emit=llvm --bounds-check=off | FileCheck %s --check-prefix=LL
# RUN: kfront compile %s -k sat --sig 'void(int64[::1])' --emit=ptx --arch=sm_90 | FileCheck %s --check-prefix=PTX
# RUN: kfront compile %s -k sat --sig 'void(int64[::1])' --emit=ptx --backend=llvm | FileCheck %s --check-prefix=PTX
import math
from numba import cuda


# LL-NOT: poison
# LL: store i64 9223372036854775807
# LL: store i64 -9223372036854775808
# LL: store i64 0
# PTX: .entry
@cuda.jit
def sat(a):
    a[0] = int(1e300)
    a[1] = int(-1e300)
    a[2] = int(math.nan)
