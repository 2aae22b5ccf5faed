# Bad cuda.jit(launch_bounds=...) values (backend/launch_bounds.py checks the errors).
from numba import cuda


# BAD: launch_bounds_bad.py:[[@LINE+1]]:35: error: Got 4 launch bounds. A maximum of three are supported: (max_threads_per_block, min_blocks_per_sm, max_blocks_per_cluster)
@cuda.jit("void()", launch_bounds=(128, 2, 4, 8))
def too_many():
    pass


# BAD: launch_bounds_bad.py:[[@LINE+1]]:35: error: launch bound 1 (max_threads_per_block) is 0: it must be from 1 to 2**31-1
@cuda.jit("void()", launch_bounds=0)
def zero():
    pass


# BAD: launch_bounds_bad.py:[[@LINE+1]]:41: error: launch_bounds must be an integer or a tuple of up to three integers
@cuda.jit("void()", launch_bounds=(128, 2.5))
def not_int():
    pass
