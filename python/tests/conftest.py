"""The Python test suite's setup: as numba-cuda's CUDATestCase does, numba-cuda's performance warnings (a grid of
few blocks, a host array copied by a launch) are off in every test, which launches small grids on host arrays all
the time; test_host_api.py turns them on where it checks them."""
import pytest

from kfront import config


@pytest.fixture(autouse=True)
def _no_performance_warnings():
    saved = config.CUDA_LOW_OCCUPANCY_WARNINGS, config.CUDA_WARN_ON_IMPLICIT_COPY
    config.CUDA_LOW_OCCUPANCY_WARNINGS = config.CUDA_WARN_ON_IMPLICIT_COPY = 0
    yield
    config.CUDA_LOW_OCCUPANCY_WARNINGS, config.CUDA_WARN_ON_IMPLICIT_COPY = saved
