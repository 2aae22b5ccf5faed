"""kfront.cuda.libdevicefuncs — numba.cuda.libdevicefuncs: the libdevice functions kernels call as
cuda.libdevice.NAME, with their libdevice signatures, read from kfront's one table of them (ir/libdevice.def,
through the extension's libdevice_functions()).

    functions["__nv_frexp"]   ->  (float64, [arg(name="x", ty=float64, is_ptr=False),
                                             arg(name="b", ty=int32, is_ptr=True)])
    create_signature(*functions["__nv_frexp"])  ->  Tuple((float64, int32))(float64)

An argument with is_ptr is one libdevice stores a result through (its `ty` is the type pointed to): the call
from a kernel does not pass it, and returns its value after the return value, as create_signature says.
"""
from collections import namedtuple

from kfront import _kfront, types

# one argument of a libdevice function: its name in libdevice, its type, whether libdevice takes a pointer to it
arg = namedtuple("arg", ("name", "ty", "is_ptr"))

# the type letters of the table (ir/libdevice.def)
_LETTER_TYPES = {"v": types.void, "h": types.int16, "i": types.int32, "l": types.int64, "f": types.float32,
                 "d": types.float64}


def _row(signature, params):
    """(return type, [arg]) of a row's signature ("d:d*i") and parameter names ("x,b")."""
    ret, letters = signature.split(":")
    names = params.split(",") if params else []
    args, i = [], 0
    for name in names:
        is_ptr = letters[i] == "*"
        i += is_ptr
        args.append(arg(name=name, ty=_LETTER_TYPES[letters[i]], is_ptr=is_ptr))
        i += 1
    if i != len(letters):
        raise AssertionError("kfront: libdevice signature %r does not match its parameters %r" % (signature, params))
    return _LETTER_TYPES[ret], args


# '__nv_NAME' -> (return type, [arg]) for every function of cuda.libdevice
functions = {"__nv_" + name: _row(signature, params) for name, signature, params in _kfront.libdevice_functions()}


def create_signature(retty, args):
    """The signature of the call a kernel makes to the libdevice function of return type retty and arguments
    args: the arguments that are no pointers, returning the return value (unless void) and then the value of each
    pointer argument — a Tuple (or UniTuple) when there is more than one."""
    returns = ([] if retty == types.void else [retty]) + [a.ty for a in args if a.is_ptr]
    return_type = returns[0] if len(returns) == 1 else types.Tuple(returns)
    return types.signature(return_type, *[a.ty for a in args if not a.is_ptr])
