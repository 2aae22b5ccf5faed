# -g: full DWARF debug information in the PTX (a .debug_info section, the .file of this source), as numba-cuda's
# debug=True gives (its test_compiler.TestCompile.test_kernel_with_debug); ptxas takes it with -g. --lineinfo alone
# gives the line table (.loc) and no .debug_info. Both backends.
# RUN: kfront compile %s -k kernel -g -O0 -o %t.g.ptx
# RUN: FileCheck %s --check-prefix=DEBUG < %t.g.ptx
# RUN: %ptxas -arch=sm_90 -g %t.g.ptx -o %t.g.cubin
# RUN: kfront compile %s -k kernel -g -O0 --backend=llvm -o %t.gl.ptx
# RUN: FileCheck %s --check-prefix=DEBUG < %t.gl.ptx
# RUN: %ptxas -arch=sm_90 -g %t.gl.ptx -o %t.gl.cubin
# RUN: kfront compile %s -k kernel --lineinfo -o %t.l.ptx
# RUN: FileCheck %s --check-prefix=LINES < %t.l.ptx
# DEBUG: .loc {{[0-9]+}} 24
# DEBUG: .file {{[0-9]+}} "{{.*}}debuginfo.py"
# DEBUG: .section .debug_info
# LINES-NOT: .debug_info
# LINES: .loc {{[0-9]+}} 24
# LINES: .file {{[0-9]+}} "{{.*}}debuginfo.py"
# LINES-NOT: .debug_info
from numba import cuda


@cuda.jit("void(float64[::1], float64)")
def kernel(a, x):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * x + 1.0
