"""Link items' setup and teardown callbacks (numba-cuda's LinkableCode setup_callback / teardown_callback, its
cudadrv/test_module_callbacks.py): setup once per loaded module before its first launch, teardown when the module is
unloaded (the context reset), both given the same kfront.cuda.linking.LoadedModule. The kernels here call nothing
foreign, so they run on the simulator as on a GPU (there the handle is the module's CUlibrary:
test/gpu/python/test_linking_gpu.py reads a global of the module through it)."""
import threading

import numpy as np
import pytest

from kfront import config, cuda
from kfront.cuda.linking import LoadedModule


def wipe_modules():
    cuda.current_context().reset()


class Counter:
    def __init__(self):
        self.count = 0
        self.setup_seen, self.teardown_seen, self.objects = set(), set(), []

    def setup(self, mod):
        assert isinstance(mod, LoadedModule)
        self.count += 1
        self.setup_seen.add(mod.handle)
        self.objects.append(mod)

    def teardown(self, mod):
        assert isinstance(mod, LoadedModule)
        self.count -= 1
        self.teardown_seen.add(mod.handle)
        self.objects.append(mod)

    def source(self, code=""):
        return cuda.CUSource(code, setup_callback=self.setup, teardown_callback=self.teardown)


def test_setup_once_per_module_and_teardown_at_reset():
    c = Counter()

    @cuda.jit(link=[c.source()])
    def kernel():
        pass

    assert c.count == 0
    kernel[1, 1]()
    assert c.count == 1
    kernel[1, 1]()  # the same module: no second setup
    assert c.count == 1
    wipe_modules()
    assert c.count == 0
    setup_obj, teardown_obj = c.objects
    assert setup_obj is teardown_obj and setup_obj.device == 0
    kernel[1, 1]()  # compiled and loaded again after the reset: set up again
    assert c.count == 1
    wipe_modules()
    assert c.count == 0


def test_callbacks_are_given_a_cuda_core_object_code_where_cuda_core_is_installed():
    ObjectCode = pytest.importorskip("cuda.core").ObjectCode  # (in the test venv: scripts/python_env.sh)
    seen = []

    @cuda.jit(link=[cuda.CUSource("", setup_callback=seen.append, teardown_callback=seen.append)])
    def kernel():
        pass

    kernel[1, 1]()
    wipe_modules()
    assert len(seen) == 2 and seen[0] is seen[1]
    assert isinstance(seen[0], ObjectCode) and isinstance(seen[0], LoadedModule)  # numba-cuda's callbacks get one
    assert isinstance(seen[0].handle, int) and "kfront loaded module" in repr(seen[0])


def test_each_specialisation_is_a_module():
    c = Counter()

    @cuda.jit(link=[c.source()])
    def kernel(arg):
        pass

    kernel[1, 1](42)
    kernel[1, 1](100)
    assert c.count == 1
    kernel[1, 1](3.14)
    assert c.count == 2
    wipe_modules()
    assert c.count == 0
    assert len(c.setup_seen) == 2 and c.teardown_seen == c.setup_seen


def test_two_kernels_linking_one_item():
    c = Counter()
    lib = c.source()

    @cuda.jit(link=[lib])
    def kernel():
        pass

    @cuda.jit(link=[lib])
    def kernel2():
        pass

    kernel[1, 1]()
    assert c.count == 1
    kernel2[1, 1]()
    assert c.count == 2
    wipe_modules()
    assert c.count == 0
    assert len(c.setup_seen) == 2 and c.teardown_seen == c.setup_seen


def test_a_declared_functions_items_count_for_the_kernels_calling_it():
    c = Counter()
    # (defined, so that the GPU's link step finds it: numba-cuda's ABI, the result through a pointer, status 0)
    f = cuda.declare_device("never_called", "int32()", link=[c.source(
        'extern "C" __device__ int never_called(int *result) { *result = 0; return 0; }')])

    @cuda.jit
    def uses(a):
        if a[0] == 12345:  # not taken: the simulator cannot run foreign code
            a[0] = f()

    @cuda.jit
    def other(a):
        a[0] = 1

    a = np.zeros(1, np.int32)
    uses.compile("void(int32[::1])")  # compiling loads it: no setup before a launch
    assert c.count == 0
    if config.ENABLE_CUDASIM:
        pytest.skip("the simulator cannot launch a kernel that calls a foreign function")
    uses[1, 1](a)
    assert c.count == 1
    other[1, 1](a)  # links nothing
    assert c.count == 1
    wipe_modules()
    assert c.count == 0


def test_setup_only_and_teardown_only():
    for setup, teardown in [(lambda m: None, None), (None, lambda m: None), (None, None)]:
        lib = cuda.CUSource("", setup_callback=setup, teardown_callback=teardown)

        @cuda.jit(link=[lib])
        def kernel():
            pass

        kernel[1, 1]()
    wipe_modules()


def test_callbacks_must_be_callable():
    with pytest.raises(TypeError, match="setup_callback must be callable"):
        cuda.CUSource("", setup_callback=1)
    with pytest.raises(TypeError, match="teardown_callback must be callable"):
        cuda.PTXSource("", teardown_callback="no")


def test_a_failing_setup_fails_the_launch_and_is_tried_again():
    calls = []

    def setup(mod):
        calls.append(mod.handle)
        if len(calls) == 1:
            raise ValueError("setup refused")

    @cuda.jit(link=[cuda.CUSource("", setup_callback=setup)])
    def kernel(a):
        a[0] = 7

    a = np.zeros(1, np.int32)
    with pytest.raises(ValueError, match="setup refused"):
        kernel[1, 1](a)
    assert a[0] == 0  # the kernel did not run
    kernel[1, 1](a)
    assert len(calls) == 2 and calls[0] == calls[1] and a[0] == 7
    kernel[1, 1](a)
    assert len(calls) == 2
    wipe_modules()


def test_a_setup_may_launch_the_kernel_itself():
    a = np.zeros(1, np.int32)
    holder = {}

    def setup(mod):
        holder["k"][1, 1](a)  # the module being set up: it does not wait for itself

    @cuda.jit(link=[cuda.CUSource("", setup_callback=setup)])
    def kernel(x):
        x[0] += 1

    holder["k"] = kernel
    kernel[1, 1](a)
    assert a[0] == 2
    wipe_modules()


def test_concurrent_first_launches_set_up_once():
    seen, max_seen, lock = set(), [0], threading.Lock()
    started = []

    def setup(mod):
        with lock:
            started.append(mod.handle)
            seen.add(mod.handle)
            max_seen[0] = max(max_seen[0], len(seen))

    def teardown(mod):
        seen.remove(mod.handle)  # KeyError for a module never set up

    lib = cuda.CUSource("", setup_callback=setup, teardown_callback=teardown)

    @cuda.jit(link=[lib])
    def kernel(a):
        pass

    def launch():
        kernel[1, 1](42)
        kernel[1, 1](9)
        kernel[1, 1](3.14)

    threads = [threading.Thread(target=launch) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(started) == 2 and max_seen[0] == 2  # two modules, shared by the threads
    wipe_modules()
    assert not seen


def test_modules_still_loaded_are_torn_down_at_exit():
    # as numba-cuda's finalizers at the interpreter's exit (its wipe_all_modules_in_context simulates it)
    import subprocess
    import sys
    import textwrap
    script = textwrap.dedent("""
        import numpy as np
        from kfront import config, cuda
        config.CUDA_LOW_OCCUPANCY_WARNINGS = config.CUDA_WARN_ON_IMPLICIT_COPY = 0
        lib = cuda.CUSource("", setup_callback=lambda m: print("setup", flush=True),
                            teardown_callback=lambda m: print("teardown", flush=True))

        @cuda.jit(link=[lib])
        def k(a):
            a[0] = 1

        k[1, 1](np.zeros(1))
        print("end", flush=True)
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["setup", "end", "teardown"]
