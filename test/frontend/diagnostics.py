# Diagnostics, each located at the offending token (file:line:col, the source line and a caret). One
# kernel per case; the module itself is valid Python and every other kernel compiles.
from numba import cuda, float32

TPB = 16
input = [1, 2, 3]


# RUN: not kfront compile %s -k undefined --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=UNDEF
@cuda.jit
def undefined(x_array):
    # UNDEF: diagnostics.py:[[@LINE+1]]:13: error: NameError: name 'x' is not defined (did you mean 'x_array'?)
    x_array[x] = 1
    # UNDEF-NEXT: {{^}}    x_array[x] = 1{{$}}
    # UNDEF-NEXT: {{^}}            ^{{$}}


# RUN: not kfront compile %s -k before --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=BEFORE
@cuda.jit
def before(a):
    # BEFORE: diagnostics.py:[[@LINE+1]]:12: error: local variable 'v' is referenced before assignment
    a[0] = v
    v = 1


# RUN: not kfront compile %s -k store_array --sig 'void(float32[:], float32[:])' 2>&1 | FileCheck %s --check-prefix=STORE
@cuda.jit
def store_array(a, b):
    # STORE: diagnostics.py:[[@LINE+1]]:12: error: cannot store array(float32, 1d, A) into an element of array(float32, 1d, A)
    a[0] = b


# RUN: not kfront compile %s -k index_scalar --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=SCALAR
@cuda.jit
def index_scalar(a):
    x = a[0]
    # SCALAR: diagnostics.py:[[@LINE+1]]:12: error: float32 is not subscriptable (only arrays and tuples are)
    a[1] = x[0]


# RUN: not kfront compile %s -k too_many --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=MANY
@cuda.jit
def too_many(a):
    # MANY: diagnostics.py:[[@LINE+1]]:12: error: too many indices for array(float32, 1d, A): 2 given
    a[0] = a[0, 1]


# RUN: not kfront compile %s -k float_index --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=FIDX
@cuda.jit
def float_index(a):
    # FIDX: diagnostics.py:[[@LINE+1]]:7: error: array index must be an integer, not float64
    a[1.5] = 0


# RUN: not kfront compile %s -k unknown_attr --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=ATTR
@cuda.jit
def unknown_attr(a):
    # ATTR: diagnostics.py:[[@LINE+1]]:14: error: unknown attribute 'flat' of array(float32, 1d, A) (kfront supports shape, size, ndim, dtype, strides, itemsize, nbytes, T, real, imag, ctypes and the methods transpose, reshape, ravel, view and item)
    a[0] = a.flat[0]


# RUN: not kfront compile %s -k unknown_cuda --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=CUDA
@cuda.jit
def unknown_cuda(a):
    # CUDA: diagnostics.py:[[@LINE+1]]:17: error: module 'numba.cuda' has no attribute 'threadIndex' that kfront knows
    a[0] = cuda.threadIndex.x


# RUN: not kfront compile %s -k dim3 --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=DIM3
@cuda.jit
def dim3(a):
    # DIM3: diagnostics.py:[[@LINE+1]]:27: error: 'threadIdx' has no attribute 'w' (use .x, .y or .z)
    a[0] = cuda.threadIdx.w


# RUN: not kfront compile %s -k arity --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=ARITY
@cuda.jit
def arity(a):
    # ARITY: diagnostics.py:[[@LINE+1]]:25: error: cuda.grid() takes 1 argument but 2 were given
    a[0] = cuda.grid(1, 2)


# RUN: not kfront compile %s -k grid_const --sig 'void(float32[:], int64)' 2>&1 | FileCheck %s --check-prefix=GRID
@cuda.jit
def grid_const(a, n):
    # GRID: diagnostics.py:[[@LINE+1]]:19: error: cuda.grid() takes a literal 1, 2 or 3 (the number of dimensions), not a value of type int64 (RequireLiteralValue: int64)
    i = cuda.grid(n)


# RUN: not kfront compile %s -k grid_four --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=GRID4
@cuda.jit
def grid_four(a):
    # GRID4: diagnostics.py:[[@LINE+1]]:23: error: cuda.gridsize() takes a constant 1, 2 or 3 (the number of dimensions)
    i = cuda.gridsize(4)


# RUN: not kfront compile %s -k grows --sig 'void(int64[:])' 2>&1 | FileCheck %s --check-prefix=GROW
@cuda.jit(device=True)
def nest(n):
    if n <= 0:
        return
    # GROW: diagnostics.py:[[@LINE+1]]:16: error: Return type of recursive function does not converge: 'nest' returns a tuple holding its own result
    return (n, nest(n - 1))


@cuda.jit
def grows(a):
    nest(a[0])


# RUN: not kfront compile %s -k unpack --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=UNPACK
@cuda.jit
def unpack(a):
    # UNPACK: diagnostics.py:[[@LINE+1]]:5: error: cannot unpack int64 into 2 values
    x, y = cuda.grid(1)


# RUN: not kfront compile %s -k unpack_count --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=COUNT
@cuda.jit
def unpack_count(a):
    # COUNT: diagnostics.py:[[@LINE+1]]:5: error: too many values to unpack (expected 2, got 3)
    x, y = cuda.grid(3)


# RUN: not kfront compile %s -k shared_shape --sig 'void(float32[:], int64)' 2>&1 | FileCheck %s --check-prefix=SHAPE
@cuda.jit
def shared_shape(a, n):
    # SHAPE: diagnostics.py:[[@LINE+4]]:33: error: the shape of cuda.shared.array must be a constant integer or a tuple of constant integers, not int64: No implementation of function Function(<function shared.array>) found for signature:
    # SHAPE-NEXT: {{^ $}}
    # SHAPE-NEXT: {{^}} >>> array(shape=int64, dtype=class(float32)){{$}}
    # SHAPE-NEXT: {{^}}    s = cuda.shared.array(shape=n, dtype=float32){{$}}
    s = cuda.shared.array(shape=n, dtype=float32)
    # SHAPE-NEXT: {{^}}                                ^{{$}}


# numba-cuda's typing takes no list as a shape (its simulator does)
# RUN: not kfront compile %s -k shared_list_shape --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=LISTSHAPE
@cuda.jit
def shared_list_shape(a):
    # LISTSHAPE: diagnostics.py:[[@LINE+3]]:33: error: the shape of cuda.shared.array must be a constant integer or a tuple of constant integers, not a list: No implementation of function Function(<function shared.array>) found for signature:
    # LISTSHAPE-NEXT: {{^ $}}
    # LISTSHAPE-NEXT: {{^}} >>> array(shape=list(int64)<iv=[16, 2]>, dtype=class(float32)){{$}}
    s = cuda.shared.array(shape=[TPB, 2], dtype=float32)


# RUN: not kfront compile %s -k local_shape --sig 'void(float32[:], int64)' 2>&1 | FileCheck %s --check-prefix=LSHAPE
@cuda.jit
def local_shape(a, n):
    # LSHAPE: diagnostics.py:[[@LINE+3]]:26: error: the shape of cuda.local.array must be a constant integer or a tuple of constant integers: No implementation of function Function(<function local.array>) found for signature:
    # LSHAPE-NEXT: {{^ $}}
    # LSHAPE-NEXT: {{^}} >>> array(Tuple(Literal[int](16), int64), class(float32)){{$}}
    s = cuda.local.array((TPB, n), float32)


# RUN: not kfront compile %s -k dtype --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=DTYPE
@cuda.jit
def dtype(a):
    # DTYPE: diagnostics.py:[[@LINE+1]]:31: error: dtype must be a Numba or NumPy scalar type such as float32, not int64
    s = cuda.shared.array(16, 3)


# RUN: not kfront compile %s -k string_dtype --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=STRDTYPE
@cuda.jit
def string_dtype(a):
    # STRDTYPE: diagnostics.py:[[@LINE+1]]:36: error: Invalid NumPy dtype specified: 'int33' (dtype must be a Numba or NumPy scalar type such as float32)
    s = cuda.local.array(16, dtype="int33")


# RUN: not kfront compile %s -k kernel_return --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=KRET
@cuda.jit
def kernel_return(a):
    # KRET: diagnostics.py:[[@LINE+1]]:12: error: a kernel cannot return a value: 'kernel_return' is a kernel
    return a[0]


# RUN: not kfront compile %s -k unify_error --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=UNIFY
@cuda.jit
def unify_error(a):
    x = 0.0
    # UNIFY: diagnostics.py:[[@LINE+1]]:5: error: cannot unify array(float32, 1d, A) and float64 for 'x'
    if a[0] > 0:
        x = a
    a[0] = x


# RUN: not kfront compile %s -k loop_unify --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=LUNIFY
@cuda.jit
def loop_unify(a):
    x = 0
    # LUNIFY: diagnostics.py:[[@LINE+1]]:5: error: cannot unify int64 and array(float32, 1d, A) for 'x' around this loop
    for k in range(3):
        x = a
    a[0] = x[0]


# RUN: not kfront compile %s -k try_stmt --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=TRY
@cuda.jit
def try_stmt(a):
    # TRY: diagnostics.py:[[@LINE+1]]:5: error: try statement is not supported in kernels
    try:
        a[0] = 1
    except Exception:
        pass


# RUN: not kfront compile %s -k with_stmt --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=WITH
@cuda.jit
def with_stmt(a):
    # WITH: diagnostics.py:[[@LINE+1]]:5: error: with statement is not supported in kernels
    with open("x") as f:
        a[0] = 1


# RUN: not kfront compile %s -k lambda_expr --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=LAMBDA
@cuda.jit
def lambda_expr(a):
    f = lambda x, **kw: x + 1
    # LAMBDA: diagnostics.py:[[@LINE-1]]:21: error: **kw: **kwargs parameters are not supported in device functions


# RUN: not kfront compile %s -k comprehension --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=COMP
@cuda.jit
def comprehension(a):
    # COMP: diagnostics.py:[[@LINE+1]]:9: error: list comprehension is not supported in kernels
    b = [x for x in range(3)]


# RUN: not kfront compile %s -k generator --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=GEN
@cuda.jit
def generator(a):
    # GEN: diagnostics.py:[[@LINE+1]]:15: error: generator expression is not supported in kernels
    a[0] = max(x for x in range(3))


# RUN: not kfront compile %s -k global_stmt --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=GLOBAL
@cuda.jit
def global_stmt(a):
    # GLOBAL: diagnostics.py:[[@LINE+1]]:5: error: global statement is not supported in kernels
    global TPB
    a[0] = TPB


# RUN: not kfront compile %s -k yield_expr --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=YIELD
@cuda.jit
def yield_expr(a):
    # YIELD: diagnostics.py:[[@LINE+1]]:5: error: yield is not supported in kernels
    yield a[0]


# RUN: not kfront compile %s -k class_def --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=CLASS
@cuda.jit
def class_def(a):
    # CLASS: diagnostics.py:[[@LINE+1]]:5: error: class definition is not supported in kernels
    class C:
        pass


# RUN: not kfront compile %s -k import_stmt --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=IMPORT
@cuda.jit
def import_stmt(a):
    # IMPORT: diagnostics.py:[[@LINE+1]]:5: error: import inside a kernel is not supported (import at module level)
    import math


# RUN: not kfront compile %s -k fstring --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=FSTR
@cuda.jit
def fstring(a):
    # FSTR: diagnostics.py:[[@LINE+1]]:9: error: f-strings are not supported in kernels
    s = f"{a[0]}"


# RUN: not kfront compile %s -k printing --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=PRINT
@cuda.jit
def printing(a):
    # PRINT: diagnostics.py:[[@LINE+1]]:11: error: printing array(float32, 1d, A) is not supported in kernels
    print(a)


# RUN: not kfront compile %s -k host_global --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=HOST
@cuda.jit
def host_global(a):
    # HOST: diagnostics.py:[[@LINE+1]]:12: error: global name 'input' is not a compile-time constant
    a[0] = input[0]


# RUN: not kfront compile %s -k host_function --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=HOSTFN
def helper(x):
    return x


@cuda.jit
def host_function(a):
    # HOSTFN: diagnostics.py:[[@LINE+1]]:12: error: 'helper' is not a device function: decorate it with @cuda.jit(device=True)
    a[0] = helper(a[1])


# RUN: not kfront compile %s -k bad_operands --sig 'void(float32[:], float32[:])' 2>&1 | FileCheck %s --check-prefix=OPS
@cuda.jit
def bad_operands(a, b):
    # OPS: diagnostics.py:[[@LINE+1]]:11: error: unsupported operand types for '+': array(float32, 1d, A) and array(float32, 1d, A) (array expressions are not supported in kernels; operate on elements)
    c = a + b


# RUN: not kfront compile %s -k shift_float --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=SHIFT
@cuda.jit
def shift_float(a):
    # SHIFT: diagnostics.py:[[@LINE+1]]:14: error: unsupported operand types for '<<': float32 and int64
    x = a[0] << 2


# RUN: not kfront compile %s -k slicing --sig 'void(float32[:], int64)' 2>&1 | FileCheck %s --check-prefix=SLICE
@cuda.jit
def slicing(a, n):
    # (an array's slice may have a step known at run time; a tuple's is made at compile time)
    # SLICE: diagnostics.py:[[@LINE+1]]:21: error: a tuple is sliced with constant integers (or None), not int64
    b = (1, 2, 3)[::n]


# RUN: not kfront compile %s -k device_arity --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=DEVARITY
@cuda.jit(device=True)
def add2(x, y):
    return x + y


@cuda.jit
def device_arity(a):
    # DEVARITY: diagnostics.py:[[@LINE+1]]:12: error: add2() missing required argument 'y'
    a[0] = add2(a[1])


# A value on some paths and None on the others is an Optional(float32) (optional.c), which has no truth value
# RUN: not kfront compile %s -k mixed_return --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=MIXED
@cuda.jit(device=True)
def sometimes(x):
    if x > 0:
        return x


@cuda.jit
def mixed_return(a):
    # MIXED: diagnostics.py:[[@LINE+1]]:8: error: No implementation of function Function(<class 'bool'>) found for signature: bool(OptionalType(float32))
    if sometimes(a[1]):
        a[0] = 1


# RUN: not kfront compile %s -k atomic_type --sig 'void(int8[:])' 2>&1 | FileCheck %s --check-prefix=ATOMIC
@cuda.jit
def atomic_type(a):
    # ATOMIC: diagnostics.py:[[@LINE+1]]:27: error: cuda.atomic.add() does not support arrays of int8
    old = cuda.atomic.add(a, 0, 1)


# RUN: not kfront compile %s -k atomic_index --sig 'void(int32[:, :])' 2>&1 | FileCheck %s --check-prefix=AINDEX
@cuda.jit
def atomic_index(a):
    # AINDEX: diagnostics.py:[[@LINE+1]]:30: error: the index of a 2-d array in cuda.atomic.max() must have 2 integers, got 1
    old = cuda.atomic.max(a, 0, 1)


# RUN: not kfront compile %s -k shfl_type --sig 'void(int8[:])' 2>&1 | FileCheck %s --check-prefix=SHFL
@cuda.jit
def shfl_type(a):
    # SHFL: diagnostics.py:[[@LINE+1]]:36: error: cuda.shfl_sync() only supports 32- and 64-bit ints and floats, not int8
    x = cuda.shfl_sync(0xFFFFFFFF, a[0], 0)


# RUN: not kfront compile %s -k sync_pred --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=SYNC
@cuda.jit
def sync_pred(a):
    # SYNC: diagnostics.py:[[@LINE+1]]:32: error: cuda.syncthreads_count() takes an integer predicate, not bool
    n = cuda.syncthreads_count(a[0] > 0)


# RUN: not kfront compile %s -k range_float --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=RANGE
@cuda.jit
def range_float(a):
    # RANGE: diagnostics.py:[[@LINE+1]]:20: error: range() arguments must be integers, not float32
    for i in range(a[0]):
        pass


# RUN: not kfront compile %s -k math_arity --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=MARITY
import math


@cuda.jit
def math_arity(a):
    # MARITY: diagnostics.py:[[@LINE+1]]:28: error: math.sqrt() takes 1 argument but 2 were given
    a[0] = math.sqrt(a[0], a[1])


# RUN: not kfront compile %s -k tuple_store --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=TSTORE
@cuda.jit
def tuple_store(a):
    s = a.shape
    # TSTORE: diagnostics.py:[[@LINE+1]]:5: error: tuples are immutable: cannot assign to an element
    s[0] = 1


# RUN: not kfront compile %s -k tuple_index --sig 'void(float32[:], int64)' 2>&1 | FileCheck %s --check-prefix=TINDEX
@cuda.jit
def tuple_index(a, i):
    # TINDEX: diagnostics.py:[[@LINE+1]]:22: error: a tuple indexed with an integer known only at run time must have elements of one scalar type (Numba's UniTuple); Tuple(float32, int64) is not (index it with a constant)
    a[0] = (a[0], i)[i]


# RUN: not kfront compile %s -k lazy_kernel 2>&1 | FileCheck %s --check-prefix=LAZY
# LAZY: diagnostics.py:[[@LINE+2]]:1: error: kernel 'lazy_kernel' is lazy (@cuda.jit without a signature): give one with --sig
@cuda.jit
def lazy_kernel(a):
    a[0] = 1


# RUN: not kfront compile %s -k lazy_kernel --sig 'void(float32[:], float32[:])' 2>&1 | FileCheck %s --check-prefix=SIGARITY
# SIGARITY: <signature>:1:1: error: signature has 2 arguments but 'lazy_kernel' takes 1
# RUN: not kfront compile %s -k lazy_kernel --sig 'void(flaot32[:])' 2>&1 | FileCheck %s --check-prefix=SIGTYPE
# SIGTYPE: <signature>:1:6: error: unknown type 'flaot32'
# SIGTYPE-NEXT: void(flaot32[:])
# SIGTYPE-NEXT: {{^}}     ^{{$}}
# RUN: not kfront compile %s -k lazy_kernel --sig 'float32(float32[:])' 2>&1 | FileCheck %s --check-prefix=SIGRET
# SIGRET: error: kernel 'lazy_kernel' must return void, but its signature returns float32
# RUN: not kfront compile %s -k no_such_kernel 2>&1 | FileCheck %s --check-prefix=NOSUCH
# NOSUCH: error: no kernel or device function named 'no_such_kernel'
# RUN: not kfront compile %s -k lazy_kernl --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=NEAR
# NEAR: error: no kernel or device function named 'lazy_kernl' (did you mean 'lazy_kernel'?)
# RUN: not kfront compile %s -k helper --sig 'void(float32[:])' 2>&1 | FileCheck %s --check-prefix=NOTKERNEL
# NOTKERNEL: error: 'helper' is not a kernel: it has no @cuda.jit


# RUN: not kfront compile %s -k recursion --sig 'void(int64[:])' 2>&1 | FileCheck %s --check-prefix=REC
@cuda.jit(device=True)
def countdown(n):
    # REC: diagnostics.py:[[@LINE+1]]:9: error: cannot type infer runaway recursion: 'countdown' calls itself and no return statement gives its result type
    r = countdown(n - 1)
    return r


@cuda.jit
def recursion(a):
    a[0] = countdown(3)


# Arrays of one dtype and rank meet as layout A, as Numba unifies them (the C one viewed as A in its branch)
# RUN: kfront compile %s -k layouts --sig 'void(float32[:], float32[::1])' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=LAYOUTS
@cuda.jit
def layouts(a, b):
    x = a
    # LAYOUTS: mem.subview(%1, {{.*}}) {dims = [0]} : (array<f32, 1, C>, i64, i64, i64) -> (array<f32, 1, A>)
    # LAYOUTS: }) : (i1) -> (array<f32, 1, A>)
    if a[0] > 0:
        x = b
    x[0] = 1


# RUN: not kfront compile %s -k tuple_kernel --sig 'void(UniTuple(int64, 2))' 2>&1 | FileCheck %s --check-prefix=TUPLEARG
@cuda.jit
def tuple_kernel(t):
    # TUPLEARG: diagnostics.py:[[@LINE+1]]:11: error: tuple index 2 is out of range for a tuple of 2
    x = t[2]
