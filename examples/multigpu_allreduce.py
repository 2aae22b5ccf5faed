"""A kfront kernel on every GPU, one process per GPU, the results combined by torch.distributed (NCCL).

The product y = A @ x of a 4096 x 16384 float64 matrix A and a vector x is split by columns: process r (of
WORLD_SIZE) holds the columns [r*n/W, (r+1)*n/W) of A (transposed, so that neighbouring threads read neighbouring
elements) and the same rows of x on its own GPU, runs a kfront kernel computing its part A[:, cols] @ x[cols] (a
full-length vector) straight into a PyTorch tensor (through the CUDA array interface), and NCCL's all-reduce sums
the parts into y on every GPU. Rank 0 checks y against NumPy's A @ x and prints the time of the kernel and of the
all-reduce (the median of --repeat runs), so that running it with 1 and with 2 processes compares one GPU against
two on the same total work.

    torchrun --standalone --nproc_per_node=2 examples/multigpu_allreduce.py [--repeat 20] [--rows R --cols C]

The process manager (torchrun) and the collective (NCCL through torch.distributed) are PyTorch's; kfront only
compiles and launches the kernel, on the device cuda.select_device(LOCAL_RANK) chose.
"""
import argparse
import os
import sys
import time

import numpy as np

from kfront import cuda


@cuda.jit
def partial_matvec(at, x, y):
    """y[i] = sum over j of at[j, i] * x[j]: this process's columns' part of A @ x (at is A[:, cols] transposed)."""
    i = cuda.grid(1)
    if i < y.shape[0]:
        acc = 0.0
        for j in range(x.shape[0]):
            acc += at[j, i] * x[j]
        y[i] = acc


def fail(msg):
    print("multigpu_allreduce: %s" % msg, file=sys.stderr)
    sys.exit(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--cols", type=int, default=16384)
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args()
    if "RANK" not in os.environ or "WORLD_SIZE" not in os.environ:
        fail("run it under a process manager, one process per GPU: "
             "torchrun --standalone --nproc_per_node=NGPUS %s" % sys.argv[0])
    try:
        import torch
        import torch.distributed as dist
    except ImportError:
        fail("needs PyTorch (torch.distributed with NCCL)")
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    if not torch.cuda.is_available() or not dist.is_nccl_available():
        fail("needs CUDA GPUs and NCCL (torch.cuda.is_available() is %s)" % torch.cuda.is_available())
    if local >= torch.cuda.device_count() or local >= len(cuda.gpus):
        fail("process %d needs GPU %d, but this machine has %d (PyTorch) / %d (kfront): start at most one "
             "process per GPU" % (rank, local, torch.cuda.device_count(), len(cuda.gpus)))
    if args.cols % world:
        fail("--cols %d is not a multiple of the %d processes" % (args.cols, world))

    torch.cuda.set_device(local)
    cuda.select_device(local)  # kfront's arrays and launches of this process go to the same GPU
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))

    # every process makes the same A and x (seeded) and keeps its columns: no data is sent to start
    rng = np.random.default_rng(1234)
    a_full = rng.standard_normal((args.rows, args.cols))
    x_full = rng.standard_normal(args.cols)
    cols = slice(rank * args.cols // world, (rank + 1) * args.cols // world)
    at = cuda.to_device(np.ascontiguousarray(a_full[:, cols].T))
    x = cuda.to_device(x_full[cols])
    y = torch.empty(args.rows, dtype=torch.float64, device="cuda")
    y_view = cuda.as_cuda_array(y)  # the kernel writes the tensor's memory in place

    threads = 128
    blocks = (args.rows + threads - 1) // threads
    kernel_ms, reduce_ms = [], []
    for _ in range(args.repeat + 1):  # the first run compiles (or reads the disk cache): not timed
        dist.barrier()
        t0 = time.perf_counter()
        partial_matvec[blocks, threads](at, x, y_view)
        cuda.synchronize()
        t1 = time.perf_counter()
        dist.all_reduce(y, op=dist.ReduceOp.SUM)
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        kernel_ms.append((t1 - t0) * 1e3)
        reduce_ms.append((t2 - t1) * 1e3)

    ok = True
    if rank == 0:
        want = a_full @ x_full
        got = y.cpu().numpy()
        ok = np.allclose(got, want, rtol=1e-9, atol=1e-9)
        err = float(np.max(np.abs(got - want)))
        print("multigpu_allreduce: %d process(es), GPU %s, A %dx%d float64: %s (max |y - numpy| = %.3g)"
              % (world, torch.cuda.get_device_name(local), args.rows, args.cols, "ok" if ok else "WRONG", err))
        print("multigpu_allreduce: kernel %.3f ms, all-reduce %.3f ms, total %.3f ms (median of %d)"
              % (np.median(kernel_ms[1:]), np.median(reduce_ms[1:]),
                 np.median(np.add(kernel_ms[1:], reduce_ms[1:])), args.repeat))
    flag = torch.tensor([1 if ok else 0], device="cuda")
    dist.broadcast(flag, 0)
    dist.destroy_process_group()
    sys.exit(0 if flag.item() else 1)


if __name__ == "__main__":
    main()
