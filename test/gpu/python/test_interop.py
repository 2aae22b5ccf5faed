"""GPU-only tests of the Python module (run by test/gpu/run_python_gpu.sh on the GPU machine): kfront.cuda
on the GPU with CuPy and PyTorch both ways (their arrays as kernel arguments through __cuda_array_interface__,
kfront's device arrays read by them, DLPack in both directions), external streams, events, and an IndexError
raised by an asynchronous launch at the next synchronisation."""
import cupy as cp  # the GPU machine has both: missing, the suite fails (it is not skipped)
import numpy as np
import pytest
import torch

from kfront import cuda


@cuda.jit
def axpy(out, a, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + out[i]


def test_runs_on_the_gpu():
    assert cuda.is_available()
    assert cuda.get_current_device().compute_capability >= (7, 0)


def test_cupy_arrays_as_arguments():
    x = cp.arange(1000, dtype=cp.float32)
    out = cp.ones(1000, dtype=cp.float32)
    axpy[8, 128](out, 2.0, x)
    np.testing.assert_array_equal(cp.asnumpy(out), 2 * np.arange(1000) + 1)


def test_kfront_arrays_read_by_cupy_and_torch():
    d = cuda.to_device(np.arange(10, dtype=np.float64))
    c = cp.asarray(d)
    np.testing.assert_array_equal(cp.asnumpy(c * 2), np.arange(10) * 2)
    t = torch.from_dlpack(d)
    assert t.is_cuda and t.sum().item() == 45
    t2 = torch.as_tensor(d, device="cuda")
    assert t2.sum().item() == 45


def test_torch_tensors_as_arguments_and_dlpack_import():
    x = torch.arange(256, dtype=torch.float32, device="cuda")
    out = torch.zeros(256, dtype=torch.float32, device="cuda")
    axpy[2, 128](out, 3.0, x)
    torch.cuda.synchronize()
    assert torch.equal(out.cpu(), 3 * torch.arange(256, dtype=torch.float32))
    from kfront.cuda._dlpack import from_dlpack
    d = from_dlpack(x)
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(256, dtype=np.float32))


def test_external_stream_and_events():
    s = cp.cuda.Stream()
    ks = cuda.external_stream(s.ptr)
    out = cuda.to_device(np.zeros(4096, dtype=np.float32))
    x = cuda.to_device(np.ones(4096, dtype=np.float32))
    start, end = cuda.event(), cuda.event()
    start.record(ks)
    axpy[32, 128, ks](out, 1.0, x)
    end.record(ks)
    end.synchronize()
    assert cuda.event_elapsed_time(start, end) >= 0
    ks.synchronize()
    assert (out.copy_to_host() == 1).all()


def test_async_index_error_at_synchronize():
    @cuda.jit
    def over(a):
        i = cuda.grid(1)
        a[i] = 1.0

    d = cuda.device_array(8)
    over[1, 32](d)   # device arrays only: the launch is asynchronous
    with pytest.raises(IndexError) as e:
        cuda.synchronize()
    assert "over" in str(e.value)
    axpy[1, 32](cuda.to_device(np.zeros(4)), 1.0, cuda.to_device(np.zeros(4)))
    cuda.synchronize()


def test_cupy_array_on_its_own_stream_is_waited_for():
    """__cuda_array_interface__ v3: CuPy names the stream its work on the array is on; a kernel launched on
    another stream must see that work done."""
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        x = cp.arange(1 << 22, dtype=cp.float32)
        x *= 2          # queued on s
        assert x.__cuda_array_interface__["stream"] == s.ptr
        out = cp.zeros_like(x)
        axpy[(1 << 22) // 256, 256](out, 1.0, x)   # kfront's default stream: waits for s first
    cuda.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(out), 2 * np.arange(1 << 22, dtype=np.float32))
