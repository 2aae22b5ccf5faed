# print() as numba-cuda's printimpl formats it: one gpu.print per call, the items' formats joined by spaces and a
# newline: %lld (signed integers, widened to i64), %llu (unsigned, u64), %f (floats as f64), %s of an i1 (True or
# False), strings as they are (% doubled), tuples "(a, b)" and "(a,)", cuda.threadIdx "(x, y, z)"; vprintf on the
# GPU. More than 32 items: the format itself is printed, with a warning (Numba's rule). Complex numbers are not
# printed: numba-cuda's printimpl has no implementation for them (its lowering fails), so kfront refuses them, located.
# RUN: kfront compile %s -k items --sig 'void(int32, uint8, float32, boolean)' --emit=kir --pass-pipeline= | FileCheck %s --check-prefix=ITEMS
# RUN: kfront compile %s -k tuples --sig 'void(Tuple((int64, Tuple((UniTuple(int64, 2), float64)), UniTuple(int64, 1))))' --emit=kir | FileCheck %s --check-prefix=TUPLES
# RUN: kfront compile %s -k items --sig 'void(int32, uint8, float32, boolean)' --emit=llvm | FileCheck %s --check-prefix=LLVM
# RUN: kfront compile %s -k items --sig 'void(int32, uint8, float32, boolean)' --emit=ptx -o %t.items.ptx && %ptxas -arch=sm_90 %t.items.ptx -o %t.items.cubin
# RUN: kfront compile %s -k items --sig 'void(int32, uint8, float32, boolean)' --emit=ptx --backend=llvm -o %t.items-llvm.ptx && %ptxas -arch=sm_90 %t.items-llvm.ptx -o %t.items-llvm.cubin
# RUN: kfront compile %s -k tuples --sig 'void(Tuple((int64, Tuple((UniTuple(int64, 2), float64)), UniTuple(int64, 1))))' --emit=ptx | FileCheck %s --check-prefix=PTX
# RUN: kfront compile %s -k too_many --sig 'void(int64[::1])' --emit=kir 2>&1 | FileCheck %s --check-prefix=MANY
# RUN: not kfront compile %s -k arrays --sig 'void(float32[::1])' 2>&1 | FileCheck %s --check-prefix=ARRAY
# RUN: not kfront compile %s -k keywords --sig 'void(float32[::1])' 2>&1 | FileCheck %s --check-prefix=KW
# RUN: not kfront compile %s -k complexes --sig 'void(complex64[::1])' 2>&1 | FileCheck %s --check-prefix=COMPLEX
# RUN: not kfront compile %s -k complex_tuple --sig 'void(float64)' 2>&1 | FileCheck %s --check-prefix=CTUPLE
from numba import cuda


@cuda.jit
def items(i, u, f, b):
    # ITEMS: %[[I:.*]] = arith.extsi(%0) : (i32) -> (i64)
    # ITEMS: %[[U:.*]] = arith.extui(%1) : (u8) -> (u64)
    # ITEMS: %[[F:.*]] = arith.extf(%2) : (f32) -> (f64)
    # ITEMS: gpu.print(%[[I]], %[[U]], %[[F]], %3) {format = "%lld %llu %f %s 100%% done\n"} : (i64, u64, f64, i1) -> ()
    print(i, u, f, b, "100% done")
    # ITEMS: gpu.print(%{{.*}}, %{{.*}}, %{{.*}}) {format = "(%lld, %lld, %lld)\n"} : (i64, i64, i64) -> ()
    print(cuda.threadIdx)
    # ITEMS: gpu.print() {format = "\n"} : () -> ()
    print()


@cuda.jit
def tuples(t):
    # TUPLES: gpu.print({{.*}}) {format = "(%lld, ((%lld, %lld), %f), (%lld,))\n"} : (i64, i64, i64, f64, i64) -> ()
    print(t)


# LLVM-DAG: @__kf_str{{[0-9]+}} = internal addrspace(4) constant [{{[0-9]+}} x i8] c"%lld %llu %f %s 100%% done\0A\00"
# LLVM-DAG: c"True\00"
# LLVM-DAG: c"False\00"
# LLVM: alloca { i64, i64, double, i8* }
# LLVM: call i32 @vprintf(i8*
# LLVM: declare i32 @vprintf(i8*, i8*)
# PTX: .extern .func  (.param .b32 func_retval0) vprintf
# PTX: call.uni (retval0),
# PTX-NEXT: vprintf,


@cuda.jit
def too_many(r):
    # MANY: print.py:[[@LINE+1]]:5: warning: CUDA print() cannot print more than 32 items. The raw format string will be emitted by the kernel instead.
    print(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10],
          r[11], r[12], r[13], r[14], r[15], r[16], r[17], r[18], r[19], r[20],
          r[21], r[22], r[23], r[24], r[25], r[26], r[27], r[28], r[29], r[30],
          r[31], r[32])
    # MANY: gpu.print() {format = "%%lld %%lld
    # MANY-SAME: %%lld\n"} : () -> ()


@cuda.jit
def arrays(a):
    # ARRAY: print.py:[[@LINE+1]]:14: error: printing array(float32, 1d, C) is not supported in kernels (print() takes numbers, booleans, strings, tuples of them and cuda.threadIdx and its kin, as Numba's CUDA target does)
    print(1, a)


@cuda.jit
def keywords(a):
    # KW: print.py:[[@LINE+1]]:17: error: print() keyword arguments are not supported in kernels
    print(a[0], end="")


@cuda.jit
def complexes(a):
    # COMPLEX: print.py:[[@LINE+1]]:14: error: printing a complex64 is not supported in kernels (numba-cuda: "printing unimplemented for values of type complex64"; print its .real and .imag)
    print(1, a[0])
    # COMPLEX-NOT: error


@cuda.jit
def complex_tuple(x):
    # CTUPLE: print.py:[[@LINE+1]]:11: error: printing a complex128 is not supported in kernels
    print((x, x * 1j))
