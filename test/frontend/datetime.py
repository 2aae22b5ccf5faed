# The typing and kir of datetime64/timedelta64 as numba-cuda types them: i64s with the unit in the type
# (datetime64<D>, timedelta64<s>), bitcast to i64 for arithmetic, NaT (INT64_MIN) checked, units converted to the
# finer one; and numba-cuda's TypingErrors, located.
# RUN: kfront compile %s -k sub --sig 'void(datetime64[D][::1], datetime64[s][::1], timedelta64[s][::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=SUB
# RUN: not kfront check %s -k add_dates --sig 'void(datetime64[D][::1])' 2>&1 | FileCheck %s --check-prefix=ADD
# RUN: not kfront check %s -k cmp_kinds --sig 'void(datetime64[D][::1], timedelta64[D][::1], boolean[::1])' 2>&1 | FileCheck %s --check-prefix=CMP
# RUN: not kfront check %s -k months_days --sig 'void(timedelta64[M][::1], timedelta64[D][::1])' 2>&1 | FileCheck %s --check-prefix=MD
# RUN: not kfront check %s -k truth --sig 'void(timedelta64[D][::1], int64[::1])' 2>&1 | FileCheck %s --check-prefix=TRUTH
# RUN: not kfront check %s -k other_unit --sig 'void(datetime64[D][::1], datetime64[s][::1])' 2>&1 | FileCheck %s --check-prefix=UNIT
from numba import cuda


# SUB: mem.load(%{{.*}}, %{{.*}}) : (array<datetime64<D>, 1, C>, i64) -> (datetime64<D>)
# SUB: arith.bitcast(%{{.*}}) : (datetime64<D>) -> (i64)
# SUB: arith.constant() {value = -9223372036854775808} : () -> (i64)
# SUB: arith.constant() {value = 86400} : () -> (i64)
# SUB: arith.muli
# SUB: arith.subi
# SUB: arith.select
# SUB: arith.bitcast(%{{.*}}) : (i64) -> (timedelta64<s>)
# SUB: mem.store
# SUB-LABEL: sym_name = @sub
@cuda.jit
def sub(d, s, o):
    o[0] = d[0] - s[0]


# ADD: datetime.py:[[@LINE+3]]:17: error: no implementation of '+' for datetime64[D] and datetime64[D]
@cuda.jit
def add_dates(d):
    d[0] = d[0] + d[1]


# CMP: datetime.py:[[@LINE+3]]:17: error: no implementation of '==' for datetime64[D] and timedelta64[D]
@cuda.jit
def cmp_kinds(d, t, o):
    o[0] = d[0] == t[0]


# MD: datetime.py:[[@LINE+3]]:17: error: no implementation of '-' for timedelta64[M] and timedelta64[D]
@cuda.jit
def months_days(m, d):
    d[0] = m[0] - d[0]


# TRUTH: datetime.py:[[@LINE+3]]:8: error: timedelta64[D] has no truth value
@cuda.jit
def truth(t, o):
    if t[0]:
        o[0] = 1


# UNIT: datetime.py:[[@LINE+3]]:12: error: cannot convert datetime64[D] to datetime64[s] to store it into an element
@cuda.jit
def other_unit(d, s):
    s[0] = d[0]
