"""opt=False as numba-cuda 0.30.4 means it (its cudapy/test_optimization.py): nothing optimised, the kernel's
parameters kept in local memory where a debugger sees them (the PTX has __local_depot0, which optimisation removes),
and no multiply-add contraction in a device function; opt=True (the default) has neither."""
import numpy as np

from kfront import cuda, types

SIG = (types.float64[::1],)


def kernel_func(x):
    x[0] = 1


def device_func(x, y, z):
    return x * y + z


def test_eager_opt_false_keeps_locals_in_local_memory():
    assert "__local_depot0" in cuda.jit(SIG, opt=False)(kernel_func).inspect_asm()[SIG]
    assert "__local_depot0" not in cuda.jit(SIG)(kernel_func).inspect_asm()[SIG]


def test_lazy_opt_false_keeps_locals_in_local_memory_and_runs():
    for opt, depot in ((False, True), (True, False)):
        kernel = cuda.jit(opt=opt)(kernel_func)
        x = np.zeros(1, dtype=np.float64)
        kernel[1, 1](x)
        assert x[0] == 1
        ptx = next(iter(kernel.inspect_asm().items()))[1]
        assert ("__local_depot0" in ptx) == depot


def test_device_function_opt_false_does_not_contract():
    sig = (types.float64,) * 3
    assert "fma.rn.f64" in cuda.jit(sig, device=True)(device_func).inspect_asm(sig)
    assert "fma.rn.f64" not in cuda.jit(sig, device=True, opt=False)(device_func).inspect_asm(sig)


def test_opt_false_llvm_stores_each_array_parameter_in_a_local_struct():
    llvm = cuda.jit(SIG, opt=False)(kernel_func).inspect_llvm(SIG)
    assert "alloca { double*, i64, i64 }" in llvm
    assert "alloca" not in cuda.jit(SIG)(kernel_func).inspect_llvm(SIG)
