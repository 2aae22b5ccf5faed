"""kfront.extending on the simulator (KFRONT_SIM=1 in the test command): numba-cuda's high-level extension API —
@overload typing functions called at compile time with each call's argument types (kfront.types objects), their
implementations compiled as device functions, numba-cuda's target preference, defaults and keywords, overloads that
call overloads or take functions, register_jitable; the errors numba raises as TypingError (no typing function
fits, one raises, one returns no function); and the low-level API, which imports and says where it is used that
kfront has none. Results are hand-computed."""
import numpy as np
import pytest

from kfront import cuda, errors, types
from kfront.extending import (intrinsic, models, overload, overload_method, register_jitable, register_model,
                              typeof_impl)


def scale(x):
    pass


@overload(scale, target="generic")
def ol_scale_generic(x):
    def impl(x):
        x[0] *= 2
    return impl


@overload(scale, target="cuda")
def ol_scale_cuda(x):  # numba-cuda prefers its target's overload to a generic one
    def impl(x):
        x[0] *= 3
    return impl


def cpu_only(x):
    pass


@overload(cpu_only, target="cpu")
def ol_cpu_only(x):
    def impl(x):
        x[0] = 99
    return impl


def outer(x):
    pass


@overload(outer)
def ol_outer(x):
    def impl(x):
        x[0] *= 5
        scale(x)  # an implementation calling another overloaded function
    return impl


def test_the_cuda_overload_is_preferred_and_overloads_call_overloads():
    def kernel(x):
        scale(x)
        outer(x)

    x = np.ones(1, dtype=np.int32)
    cuda.jit(kernel)[1, 1](x)
    assert x[0] == 3 * 5 * 3


def test_a_cpu_target_overload_is_not_used_in_kernels():
    def kernel(x):
        cpu_only(x)

    with pytest.raises(errors.TypingError, match="No implementation of function cpu_only"):
        cuda.jit(kernel)[1, 1](np.ones(1, dtype=np.int32))


def pick(a, b=None):
    pass


seen = []


@overload(pick)
def ol_pick(a, b=None):
    seen.append((a, b))
    b_is_tuple = isinstance(b, (types.Tuple, types.UniTuple))
    if isinstance(a, types.Float):
        def impl(a, b=None):
            return a * 10
    else:
        def impl(a, b=None):
            if b_is_tuple is True:
                return b[0]
            return a
    return impl


def test_the_typing_function_sees_each_calls_types_once():
    seen.clear()

    @cuda.jit
    def kernel(out, i, f, t):
        out[0] = pick(i, t)
        out[1] = pick(f)
        out[2] = pick(i, t)  # the same types: typed once
        out[3] = pick(i)

    out = np.zeros(4)
    kernel[1, 1](out, 1, 2.5, (7, 8))
    np.testing.assert_array_equal(out, [7, 25, 7, 1])
    assert seen == [(types.int64, types.UniTuple(types.int64, 2)), (types.float64, None), (types.int64, None)]


def with_defaults(out, x, y=5, z=6):
    pass


@overload(with_defaults)
def ol_with_defaults(out, x, y=5, z=6):
    def impl(out, x, y=5, z=6):
        out[0], out[1] = x + y, z
    return impl


def test_defaults_and_keyword_arguments():
    @cuda.jit
    def kernel(a, b, out):
        with_defaults(out, a, z=b)

    out = np.empty(2, dtype=np.int64)
    kernel[1, 1](1, 2, out)
    assert tuple(out) == (6, 2)


def apply(arg, func):
    pass


@overload(apply)
def ol_apply(arg, func):
    assert isinstance(func, types.Dispatcher)
    return lambda arg, func: func(arg)


@cuda.jit(device=True)
def plus_one(x):
    return x + 1


def test_functions_passed_to_an_overload():
    @cuda.jit
    def kernel(out, a):
        def mul10(x):
            return x * 10
        out[0] = apply(a, mul10) + apply(a, plus_one)

    out = np.zeros(1, dtype=np.int64)
    kernel[1, 1](out, 4)
    assert out[0] == 40 + 5


def countdown(x):
    pass


@overload(countdown)
def ol_countdown(x):
    def impl(x):
        if x <= 0:
            return 0
        return x + countdown(x - 1)
    return impl


def test_a_recursive_implementation():
    @cuda.jit
    def kernel(out, n):
        out[0] = countdown(n)

    out = np.zeros(1, dtype=np.int64)
    kernel[1, 1](out, 4)
    assert out[0] == 10


@register_jitable
def hypot2(a, b):
    return a * a + b * b


def test_register_jitable_is_callable_on_the_host_and_in_kernels():
    assert hypot2(3, 4) == 25

    @cuda.jit
    def kernel(out, a, b):
        out[0] = hypot2(a, b)

    out = np.zeros(1, dtype=np.float32)
    kernel[1, 1](out, np.float32(1.5), np.float32(2))
    assert out[0] == 6.25


def test_an_overload_registered_after_the_kernel_before_its_first_compile():
    def late(a):
        return 42

    @cuda.jit
    def kernel(out):
        out[0] = late(1)

    @overload(late)
    def ol_late(a):
        return late  # the function itself is its implementation

    out = np.zeros(1, dtype=np.int64)
    kernel[1, 1](out)
    assert out[0] == 42


def floats_only(x):
    pass


@overload(floats_only)
def ol_floats_only(x):
    if isinstance(x, types.Float):
        return lambda x: x


def raises(x):
    pass


@overload(raises)
def ol_raises(x):
    raise ValueError("no such type")


def not_a_function(x):
    pass


@overload(not_a_function)
def ol_not_a_function(x):
    return 42


def different_parameters(x):
    pass


@overload(different_parameters)
def ol_different_parameters(x):
    return lambda y: y


@pytest.mark.parametrize("fn, message", [
    (floats_only, r"No implementation of function floats_only found for signature: floats_only\(int64\)"),
    (raises, "the typing function ol_raises of raises raised ValueError: no such type"),
    (not_a_function, "Implementation function returned by `@overload` has an unexpected type. Got 42"),
    (different_parameters, r"Typing and implementation arguments differ .* \(x\) and the implementation \(y\)"),
])
def test_what_numba_refuses_is_a_located_typing_error(fn, message):
    def kernel(out, a):
        out[0] = fn(a)

    with pytest.raises(errors.TypingError, match=message) as e:
        cuda.jit(kernel)[1, 1](np.zeros(1), 1)
    assert e.value.line > 0 and "test_extending.py" in e.value.file


class Interval:
    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi


class IntervalType(types.Type):
    def __init__(self):
        super().__init__(name="Interval")


@typeof_impl.register(Interval)
def typeof_interval(val, c):
    return IntervalType()


@register_model(IntervalType)
class IntervalModel(models.StructModel):
    pass


def test_the_low_level_api_imports_and_says_where_it_is_used():
    with pytest.raises(errors.UnsupportedError, match="low-level extension API"):
        IntervalModel(None, None)

    @intrinsic
    def my_intrinsic(typingctx, x):
        pass

    with pytest.raises(errors.UnsupportedError, match="numba.cuda.extending.intrinsic"):
        my_intrinsic(1)

    @cuda.jit
    def kernel(out):
        out[0] = Interval(1, 2).lo

    with pytest.raises(errors.CompilerError, match=r"the class Interval, registered with numba's low-level extension "
                                                   r"API \(typeof_impl.register\)"):
        kernel[1, 1](np.zeros(1))
    with pytest.raises(errors.UnsupportedError, match="overload_method extends numba's types"):
        overload_method(types.Array, "thing")


def test_numba_cuda_extending_under_the_alias():
    from kfront._alias import install_numba_alias, uninstall_numba_alias
    install_numba_alias(scope="numba")
    try:
        from numba.cuda.extending import _Intrinsic, overload as alias_overload, register_jitable as alias_rj
        assert alias_overload is overload and alias_rj is register_jitable and _Intrinsic is not None
    finally:
        uninstall_numba_alias()


class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b


class PairType(types.Type):
    def __init__(self):
        super().__init__(name="Pair")


pair_type = PairType()


def test_cudaimpl_records_lowerings_and_a_kernel_using_them_is_told():
    """numba-cuda's extensions_usecases pattern: a type with a model and a constructor lowered through
    numba.cuda.cudaimpl.lower with cgutils; it imports, registers as numba's registry does, and a kernel using it
    is a compile error naming what kfront lacks."""
    from kfront.cuda import cgutils, cudaimpl
    from kfront.extending import Registry, builtin_registry, lower_builtin

    register_model(PairType)(type("PairModel", (models.StructModel,), {}))

    def lower_pair(context, builder, sig, args):
        return cgutils.create_struct_proxy(pair_type)(context, builder)

    before = len(cudaimpl.registry.functions)
    assert cudaimpl.lower(Pair, types.Integer, types.Integer)(lower_pair) is lower_pair
    assert cudaimpl.registry.functions[before:] == [(lower_pair, Pair, (types.Integer, types.Integer))]

    def getter(context, builder, typ, value):
        pass
    cudaimpl.lower_attr(PairType, "a")(getter)
    cudaimpl.lower_getattr_generic(PairType)(getter)
    cudaimpl.lower_setattr(PairType, "a")(getter)
    cudaimpl.lower_cast(types.int32, PairType)(getter)
    cudaimpl.lower_constant(PairType)(getter)
    reg = cudaimpl.registry
    assert reg.getattrs[-2:] == [(getter, "a", (PairType,)), (getter, None, (PairType,))]
    assert reg.setattrs[-1] == (getter, "a", (PairType,)) and reg.casts[-1] == (getter, (types.int32, PairType))
    assert reg.constants[-1] == (getter, (PairType,)) and repr(reg) == "Lowering Registry<cudaimpl>"
    assert isinstance(reg, Registry) and repr(builtin_registry) == "Lowering Registry<builtin_registry>"

    # what only numba's lowering runs refuses, naming kfront
    with pytest.raises(errors.UnsupportedError, match=r"kfront: numba.cuda.cgutils.create_struct_proxy is numba's "
                                                      r"low-level extension API"):
        lower_pair(None, None, None, None)
    with pytest.raises(errors.UnsupportedError, match="numba.cuda.cgutils.true_bit"):
        cgutils.true_bit
    with pytest.raises(errors.UnsupportedError, match="numba.cuda.cgutils.Structure"):
        cgutils.Structure(None, None)
    with pytest.raises(AttributeError):
        cgutils.no_such_helper

    @cuda.jit
    def make(out):
        out[0] = Pair(1, 2).a

    with pytest.raises(errors.CompilerError, match=r"the class Pair, registered with numba's low-level extension "
                                                   r"API \(cudaimpl.lower\)"):
        make[1, 1](np.zeros(1))

    @cuda.jit
    def use_instance(out):
        out[0] = len(pair_type)

    # (the class was registered last by cudaimpl.lower_constant above)
    with pytest.raises(errors.CompilerError, match=r"a PairType, registered with numba's low-level extension "
                                                   r"API \(cudaimpl.lower_constant\)"):
        use_instance[1, 1](np.zeros(1))
    lower_builtin(Pair, types.Integer)(lower_pair)  # numba's other registry: the builtin one
    assert builtin_registry.functions[-1] == (lower_pair, Pair, (types.Integer,))


def test_cgutils_helpers_without_llvm_are_numba_cudas():
    from kfront.cuda import cgutils
    assert cgutils.normalize_ir_text("\u00e9") == "\u00c3\u00a9"  # its UTF-8 bytes as latin-1 characters
    assert cgutils.is_nonelike(None) and cgutils.is_nonelike(types.none) and not cgutils.is_nonelike(types.int32)
    assert cgutils.is_empty_tuple(types.Tuple(())) and not cgutils.is_empty_tuple(types.UniTuple(types.int32, 2))


def test_cudaimpl_and_cgutils_under_the_alias():
    from kfront._alias import install_numba_alias, uninstall_numba_alias
    from kfront.cuda import cgutils, cudaimpl
    install_numba_alias(scope="numba")
    try:
        from numba.cuda.cudaimpl import lower, registry
        from numba.cuda import cgutils as alias_cgutils
        import numba.cuda
        assert registry is cudaimpl.registry and lower == cudaimpl.registry.lower
        assert alias_cgutils.create_struct_proxy is cgutils.create_struct_proxy
        assert numba.cuda.cudaimpl.lower_attr == cudaimpl.registry.lower_getattr
    finally:
        uninstall_numba_alias()
