"""The Python test suite's setup: as numba-cuda's CUDATestCase does, numba-cuda's performance warnings (a grid of
few blocks, a host array copied by a launch) are off in every test, which launches small grids on host arrays all
the time; test_host_api.py turns them on where it checks them.

`@pytest.mark.simulator_only("why")` marks a test of the simulator's own behaviour (its checks of pointers, its step
and time limits, fast forms computed exactly): on a GPU (test/gpu/run_python_gpu.sh runs this suite there) it is
skipped with that reason, where a fault would leave the process's CUDA context unusable or the GPU behaves otherwise
by design."""
import pytest

from kfront import config


def pytest_configure(config):  # (pytest's own config object, beside kfront's module of that name)
    config.addinivalue_line("markers", "simulator_only(reason): the simulator's own behaviour; skipped on a GPU")


def pytest_collection_modifyitems(items):
    if config.ENABLE_CUDASIM:
        return
    for item in items:
        mark = item.get_closest_marker("simulator_only")
        if mark is not None:
            item.add_marker(pytest.mark.skip(reason="simulator only: " + (mark.args[0] if mark.args else "")))


@pytest.fixture(autouse=True)
def _no_performance_warnings():
    saved = config.CUDA_LOW_OCCUPANCY_WARNINGS, config.CUDA_WARN_ON_IMPLICIT_COPY
    config.CUDA_LOW_OCCUPANCY_WARNINGS = config.CUDA_WARN_ON_IMPLICIT_COPY = 0
    yield
    config.CUDA_LOW_OCCUPANCY_WARNINGS, config.CUDA_WARN_ON_IMPLICIT_COPY = saved
