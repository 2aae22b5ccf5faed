"""The examples' kfront parts on the simulator: examples/multigpu_allreduce.py's kernel run on the shards of 2
simulated devices (KFRONT_SIM_DEVICES), each part on its own device, summed as its all-reduce sums them, against
NumPy. (The example itself needs PyTorch, NCCL and GPUs: test/gpu/run_multigpu.sh runs it.)"""
import importlib.util
import os

import numpy as np
import pytest

from kfront import config, cuda

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(EXAMPLES, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def two_devices():
    saved = config.KFRONT_SIM_DEVICES
    if config.ENABLE_CUDASIM:
        config.KFRONT_SIM_DEVICES = 2
    cuda.close()
    try:
        if len(cuda.gpus) < 2:
            pytest.skip("needs 2 devices, this machine has %d" % len(cuda.gpus))
        yield
    finally:
        cuda.close()
        config.KFRONT_SIM_DEVICES = saved


def test_multigpu_allreduce_kernel(two_devices):
    ex = load("multigpu_allreduce")
    rng = np.random.default_rng(7)
    rows, cols, world = 300, 64, 2
    a = rng.standard_normal((rows, cols))
    x = rng.standard_normal(cols)
    parts = []
    for rank in range(world):
        with cuda.gpus[rank]:
            shard = slice(rank * cols // world, (rank + 1) * cols // world)
            at = cuda.to_device(np.ascontiguousarray(a[:, shard].T))
            y = cuda.device_array(rows)
            ex.partial_matvec[(rows + 127) // 128, 128](at, cuda.to_device(x[shard]), y)
            assert y._device == rank
            parts.append(y.copy_to_host())
    np.testing.assert_allclose(parts[0] + parts[1], a @ x, rtol=1e-12, atol=1e-12)
