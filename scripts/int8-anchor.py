#!/usr/bin/env python3
"""PyTorch's INT8 anchor for `cutlet gemm --a_dtype Int8 --b_dtype Int8
--c_dtype Int32 ...`, run on the GPU machine: `torch._int_mm` (cuBLASLt;
s8 x s8 -> s32, A row-major and B column-major: TN, K-major both) at the
issue's shapes, median of CUDA-event-timed runs with operand sets rotated
past the L2 (cold L2).

    python3 scripts/int8-anchor.py [M,N,K ...]
"""

import sys

import torch

from cold_timing import median_cold_ms


def time_int_mm(m, n, k, reps=50):
    sets = max(2, int(3 * 64 * 2**20 // (m * k + n * k + 4 * m * n)) + 1)
    ops = []
    for _ in range(sets):
        a = torch.randint(-128, 128, (m, k), device="cuda", dtype=torch.int8)
        b = torch.randint(-128, 128, (n, k), device="cuda", dtype=torch.int8).t()  # K-major B
        ops.append((a, b))
    f = lambda o: torch._int_mm(o[0], o[1])
    ms = median_cold_ms(f, ops, reps)
    return ms, 2 * m * n * k / (ms * 1e-3) / 1e12


def main():
    shapes = [tuple(int(v) for v in s.split(",")) for s in sys.argv[1:]] or [
        (4096, 4096, 4096), (8192, 8192, 8192), (4096, 14336, 4096), (8192, 8192, 1024),
    ]
    print(torch.cuda.get_device_name(), torch.__version__)
    for m, n, k in shapes:
        ms, tops = time_int_mm(m, n, k)
        print(f"_int_mm s8 {m}x{n}x{k}: {ms * 1e3:9.1f} us  {tops:7.1f} TOP/s")


if __name__ == "__main__":
    main()
