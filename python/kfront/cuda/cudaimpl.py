"""kfront.cuda.cudaimpl — numba.cuda.cudaimpl under the drop-in: numba-cuda's lowering registry of the CUDA target
and its decorators.

`lower(func, *argtys)`, `lower_attr(ty, attr)` (and the other decorators below) record the implementation in
`registry` as numba-cuda's do (kfront.extending.Registry: registry.functions, .getattrs, ...) and return it
unchanged, so a module registering lowerings for numba-cuda imports. The implementations build LLVM IR through
numba's code generator and kfront never runs them: a kernel calling the function (or using the type) registered here
is a compile error that says so (kfront.extending's low-level registrations).
"""
from kfront.extending import Registry

registry = Registry("cudaimpl")
lower = registry.lower
lower_attr = registry.lower_getattr
lower_constant = registry.lower_constant
lower_getattr_generic = registry.lower_getattr_generic
lower_setattr = registry.lower_setattr
lower_setattr_generic = registry.lower_setattr_generic
lower_cast = registry.lower_cast
