# A device function compiled for a --sig returns the type that signature declares (converting its return
# values), as numba.cuda.compile_ptx does; a declared void with a value returned, or a value that does not
# convert, is an error. Before: the declared return type of --sig was ignored (found by fuzzing).
from numba import cuda


@cuda.jit(device=True)
def one(x):
    return x


@cuda.jit(device=True)
def pair(x):
    return x, x


# RUN: kfront compile %s -k one --sig 'float32(int32)' --emit=kir | FileCheck %s --check-prefix=F32
# F32: %1 = arith.sitofp(%0) : (i32) -> (f32)
# F32-NEXT: func.return(%1) : (f32) -> ()
# F32: function_type = (i32) -> (f32), device

# RUN: kfront compile %s -k one --sig '(int32,)' --emit=kir | FileCheck %s --check-prefix=INFER
# INFER: function_type = (i32) -> (i32), device

# RUN: not kfront compile %s -k one --sig 'void(int32)' 2>&1 | FileCheck %s --check-prefix=VOID
# VOID: device_sig_return.py:9:5: error: 'one' is declared to return void but returns a value
# VOID-NEXT: {{^}}    return x{{$}}
# VOID-NEXT: {{^}}    ^{{$}}

# RUN: not kfront compile %s -k pair --sig 'float32(int32)' 2>&1 | FileCheck %s --check-prefix=TUPLE
# TUPLE: device_sig_return.py:14:5: error: cannot unify UniTuple(int32 x 2) and float32 for '<return value>'
