# The classic Numba Black-Scholes (test/frontend/Inputs/example_kernels.py, float64 as Numba promotes) against
# numba-cuda's code (issue 24, item 5; bench/inst_count.py prints both, PTX and SASS; docs/numeric.md, "Instruction
# counts against numba-cuda"): kfront's arithmetic is Numba's in SASS. Pinned here: `(-1. * R) * T[i]` is -(R) * T
# (canonicalize's x * -1.0 = -x, as LLVM's instcombine writes it for Numba: one DMUL less), the 19 products and 75
# fused multiply-adds of kfront's rule (contract.c; 7 in the kernel, the rest libdevice's log/exp), and the PTX
# instruction count (430 on the toolkit's libNVVM 13.0; numba-cuda's is 372, mostly the .rn intrinsics' constants
# as mov.f64, which ptxas folds, and kfront's bounds checks).
# RUN: kfront compile %S/../frontend/Inputs/example_kernels.py -k black_scholes_cuda --sig 'void(float64[::1], float64[::1], float64[::1], float64[::1], float64[::1], float64, float64)' --arch=sm_90 -o %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: %python %S/../../bench/inst_count.py --check %t.ptx --max 430 --expect mul.rn.f64=19 --expect fma.rn.f64=75
# RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
# RUN: kfront compile %S/../frontend/Inputs/example_kernels.py -k black_scholes_cuda --sig 'void(float64[::1], float64[::1], float64[::1], float64[::1], float64[::1], float64, float64)' --emit=kir | FileCheck %s --check-prefix=KIR

# CHECK-LABEL: .entry black_scholes_cuda(
# CHECK-NOT: mov.f64 {{.*}}0dBFF0000000000000
# CHECK: ret;

# expRT = math.exp((-1. * R) * T[i]): R negated, no product by -1.0
# KIR: ^bb0({{.*}}, %[[R:[0-9]+]]: f64, %{{[0-9]+}}: f64):
# KIR: %[[NR:[0-9]+]] = arith.negf(%[[R]]) : (f64) -> (f64)
# KIR-NEXT: %[[T:[0-9]+]] = mem.load
# KIR-NEXT: %[[P:[0-9]+]] = arith.mulf(%[[NR]], %[[T]]) : (f64, f64) -> (f64)
# KIR-NEXT: math.exp(%[[P]])
