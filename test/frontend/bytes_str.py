# NumPy's bytes and str items (numba-cuda's CharSeq / UnicodeCharSeq) in kernels: kir's charseq<N> / unicharseq<N>
# (records of one field `chars`, read through mem.field), constants stored character by character and nulled to
# the count, len from the last non-null character; and numba-cuda's TypingErrors, located.
# RUN: kfront compile %s -k assign --sig 'void([unichr x 4][::1], int64[::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=ASSIGN
# RUN: kfront compile %s -k assign --sig 'void([unichr x 4][::1], int64[::1])' --emit=kir --pass-pipeline= | kfront-opt - | FileCheck %s --check-prefix=ROUND
# RUN: kfront compile %s -k measure --sig 'void([char x 3][::1], int64[::1])' --emit=kir --pass-pipeline= | kfront-opt - | FileCheck %s --check-prefix=ROUND3
# RUN: not kfront check %s -k str_index --sig 'void([unichr x 4][::1], int64[::1])' 2>&1 | FileCheck %s --check-prefix=INDEX
# RUN: not kfront check %s -k kinds --sig 'void([char x 4][::1], [unichr x 4][::1], int64[::1])' 2>&1 | FileCheck %s --check-prefix=KINDS
# RUN: not kfront check %s -k wrong_constant --sig 'void([char x 4][::1])' 2>&1 | FileCheck %s --check-prefix=CONST
# RUN: not kfront check %s -k set_char --sig 'void([char x 4][::1])' 2>&1 | FileCheck %s --check-prefix=SET
from numba import cuda


# ASSIGN: mem.field(%{{.*}}) {name = "chars"} : (array<unicharseq<4>, 1, C>) -> (array<u32, 2, A>)
# ASSIGN: arith.constant() {value = 88 : u32} : () -> (u32)
# ASSIGN: mem.store
# ASSIGN: arith.constant() {value = 0 : u32} : () -> (u32)
# ASSIGN: mem.store
# ASSIGN: arith.select
# ASSIGN-LABEL: sym_name = @assign
@cuda.jit
def assign(a, out):
    a[0] = "XYZ"
    out[0] = len(a[1])


# ROUND: ^bb0(%0: array<unicharseq<4>, 1, C>, %1: array<i64, 1, C>):
# ROUND3: ^bb0(%0: array<charseq<3>, 1, C>, %1: array<i64, 1, C>):
# ROUND3: mem.field(%0) {name = "chars"} : (array<charseq<3>, 1, C>) -> (array<u8, 2, A>)
@cuda.jit
def measure(a, out):
    out[0] = a[0] < b"ab"


# INDEX: bytes_str.py:[[@LINE+3]]:14: error: no implementation of getitem([unichr x 4], int64) in numba-cuda (a str item's character is a str, which needs numba-cuda's NRT)
@cuda.jit
def str_index(a, out):
    out[0] = a[0][out[1]]


# KINDS: bytes_str.py:[[@LINE+3]]:19: error: no implementation of '==' for [char x 4] and [unichr x 4] in numba-cuda (bytes compare with bytes, str with str)
@cuda.jit
def kinds(s, u, out):
    out[0] = s[0] == u[0]


# CONST: bytes_str.py:[[@LINE+3]]:12: error: cannot assign unicode_type to an item of type [char x 4] (numba-cuda casts bytes constants and items of the same type to it)
@cuda.jit
def wrong_constant(s):
    s[0] = "AB"


# SET: bytes_str.py:[[@LINE+3]]:5: error: [char x 4] does not support item assignment
@cuda.jit
def set_char(s):
    s[0][0] = 65
