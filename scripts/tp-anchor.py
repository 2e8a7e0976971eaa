#!/usr/bin/env python3
"""PyTorch's anchors for `cutlet tp`, run on the GPU machine:

    torchrun --nproc_per_node N scripts/tp-anchor.py [ag-gemm|gemm-rs|gemm-ar] [M,N,K]

M,N,K are the whole layer's, as `cutlet tp --mnk` takes them. It times, one
process per GPU, alternating the forms each iteration: the GEMM alone, the
collective alone, the sequential form (NCCL collective, then torch.mm, or
the other way round) and PyTorch's async-TP fused op (SymmetricMemory,
`torch.ops.symm_mem.fused_all_gather_matmul` / `fused_matmul_reduce_scatter`).
Each figure is the median over iterations of the slowest rank's time.
NVLink multicast stays off (the machine's rule): NCCL_NVLS_ENABLE=0 and
TORCH_SYMM_MEM_DISABLE_MULTICAST=1 are set before anything starts.
"""

import os
import statistics
import sys

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402


def main():
    op = sys.argv[1] if len(sys.argv) > 1 else "ag-gemm"
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(rank % torch.cuda.device_count())
    group = dist.group.WORLD
    name = group.group_name
    try:
        from torch.distributed._symmetric_memory import enable_symm_mem_for_group

        enable_symm_mem_for_group(name)
    except Exception as e:  # newer PyTorch needs no call
        if rank == 0:
            print(f"enable_symm_mem_for_group: {e}")
    default = {"ag-gemm": (8192, 28672, 8192), "gemm-rs": (8192, 8192, 28672), "gemm-ar": (16, 8192, 28672)}[op]
    m, n, k = (int(v) for v in sys.argv[2].split(",")) if len(sys.argv) > 2 else default
    torch.manual_seed(1234 + rank)
    bf = torch.bfloat16
    forms = {}
    if op == "ag-gemm":
        shard = m // world
        a_shard = torch.randn(shard, k, device="cuda", dtype=bf)
        a_full = torch.empty(shard * world, k, device="cuda", dtype=bf)
        b = torch.randn(n // world, k, device="cuda", dtype=bf).t()  # K-major B, as cuBLAS likes it
        forms["gemm alone"] = lambda: torch.mm(a_full, b)
        forms["collective alone"] = lambda: dist.all_gather_into_tensor(a_full, a_shard)
        forms["sequential"] = lambda: (dist.all_gather_into_tensor(a_full, a_shard), torch.mm(a_full, b))
        forms["fused (async-TP)"] = lambda: torch.ops.symm_mem.fused_all_gather_matmul(a_shard, [b], 0, name)
        coll_bytes = shard * world * k * 2
    else:
        a = torch.randn(m, k // world, device="cuda", dtype=bf)
        b = torch.randn(n, k // world, device="cuda", dtype=bf).t()
        d = torch.mm(a, b)
        if op == "gemm-rs":
            out = torch.empty(m // world, n, device="cuda", dtype=bf)
            forms["gemm alone"] = lambda: torch.mm(a, b)
            forms["collective alone"] = lambda: dist.reduce_scatter_tensor(out, d)
            forms["sequential"] = lambda: dist.reduce_scatter_tensor(out, torch.mm(a, b))
            forms["fused (async-TP)"] = lambda: torch.ops.symm_mem.fused_matmul_reduce_scatter(a, b, "sum", 0, name)
        else:
            forms["gemm alone"] = lambda: torch.mm(a, b)
            forms["collective alone"] = lambda: dist.all_reduce(d)
            forms["sequential"] = lambda: dist.all_reduce(torch.mm(a, b))
        coll_bytes = m * n * 2
    times = {f: [] for f in forms}
    failed = set()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for it in range(25):
        for form, fn in forms.items():
            if form in failed:
                continue
            dist.barrier()
            torch.cuda.synchronize()
            try:
                start.record()
                fn()
                end.record()
                torch.cuda.synchronize()
            except Exception as e:
                failed.add(form)
                if rank == 0:
                    print(f"{form}: {type(e).__name__}: {str(e).splitlines()[0][:200]}")
                continue
            if it >= 5:
                times[form].append(start.elapsed_time(end))
    for form in forms:
        if form in failed:
            continue
        t = torch.tensor(times[form], device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        med = statistics.median(t.tolist()) * 1e3
        if rank == 0:
            extra = ""
            if form == "collective alone":
                # NCCL's bus bandwidth: (W-1)/W of the gathered (or reduced) bytes per rank, 2x for all-reduce.
                factor = (world - 1) / world * (2 if op == "gemm-ar" else 1)
                extra = f"  bus {coll_bytes * factor / (med * 1e-6) / 1e9:.0f} GB/s"
            print(f"torch {op} TP={world} {m}x{n}x{k} {form:18s} {med:9.1f} us{extra}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
