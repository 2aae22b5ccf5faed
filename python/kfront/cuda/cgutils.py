"""kfront.cuda.cgutils — numba.cuda.cgutils under the drop-in: the names of numba-cuda's LLVM IR building helpers.

numba-cuda's cgutils builds LLVM IR with llvmlite inside lowering functions (cudaimpl.lower, extending.lower_builtin,
intrinsics), which kfront never calls: it compiles kernels in its C frontend. So a module written for numba-cuda that
imports cgutils and uses it inside such functions imports here; calling a helper, making one of its classes, or
reading one of its llvmlite types and constants (bool_t, true_bit, ...) raises UnsupportedError naming kfront.
The helpers that do not touch LLVM are numba-cuda's: normalize_ir_text, is_nonelike, is_empty_tuple.
"""
from kfront import extending, types


def normalize_ir_text(text):
    """The string re-encoded to latin-1 characters (its UTF-8 bytes), as LLVM IR text needs."""
    return text.encode("utf8").decode("latin1")


def is_nonelike(ty):
    """Whether ty is None or the none type (numba's Omitted type has no kfront counterpart)."""
    return ty is None or isinstance(ty, types.NoneType)


def is_empty_tuple(ty):
    """Whether ty is the type of the empty tuple."""
    return isinstance(ty, types.Tuple) and len(ty.types) == 0


def _refusing_function(name):
    def helper(*args, **kwargs):
        raise extending.unsupported(name, "numba.cuda.cgutils")
    helper.__name__ = helper.__qualname__ = name
    helper.__doc__ = "numba-cuda's cgutils.%s builds LLVM IR: an UnsupportedError under kfront." % name
    return helper


def _refusing_class(name):
    def __init__(self, *args, **kwargs):
        raise extending.unsupported(name, "numba.cuda.cgutils")
    return type(name, (), {"__init__": __init__, "__module__": __name__,
                           "__doc__": "numba-cuda's cgutils.%s works on LLVM IR: making one is an UnsupportedError "
                                      "under kfront." % name})


# numba-cuda 0.30.4's helpers over llvmlite builders and values
_LLVM_FUNCTIONS = (
    "add_global_variable", "add_no_capture_attribute", "alloca_once", "alloca_once_value", "as_bool_bit",
    "cbranch_or_continue", "copy_struct", "create_constant_array", "create_struct_proxy", "divmod_by_constant",
    "do_boundscheck", "early_exit_if", "early_exit_if_null", "for_range", "for_range_slice", "for_range_slice_generic",
    "gep", "gep_inbounds", "get_item_pointer", "get_item_pointer2", "get_null_value", "get_or_insert_function",
    "get_or_insert_named_metadata", "get_record_member", "global_constant", "guard_memory_error", "guard_null",
    "guard_zero", "hexdump", "if_likely", "if_unlikely", "if_zero", "ifnot", "increment_index", "insert_pure_function",
    "is_false", "is_neg_int", "is_not_null", "is_not_scalar_zero", "is_null", "is_pointer", "is_scalar_neg",
    "is_scalar_zero", "is_scalar_zero_or_nan", "is_true", "loop_nest", "make_anonymous_struct", "make_bytearray",
    "memcpy", "memset", "memset_padding", "muladd_with_overflow", "pack_array", "pack_struct", "pointer_add",
    "printf", "raw_memcpy", "raw_memmove", "sizeof", "snprintf", "snprintf_stackbuffer", "terminate",
    "unpack_tuple")
_LLVM_CLASSES = ("Structure", "ValueStructProxy", "DataStructProxy", "Loop")
# its llvmlite types and constants: read through the module's __getattr__, which refuses
_LLVM_VALUES = ("bool_t", "int8_t", "int32_t", "intp_t", "voidptr_t", "true_bit", "false_bit", "true_byte",
                "false_byte")

for _name in _LLVM_FUNCTIONS:
    globals()[_name] = _refusing_function(_name)
for _name in _LLVM_CLASSES:
    globals()[_name] = _refusing_class(_name)
del _name


def __getattr__(name):
    if name in _LLVM_VALUES:
        raise extending.unsupported(name, "numba.cuda.cgutils")
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
