#!/usr/bin/env python3
"""PyTorch's FP8 anchor for `cutlet gemm --a_dtype Float8E4M3FN ...`, run on
the GPU machine: `torch._scaled_mm` (cuBLASLt; e4m3 x e4m3 -> bf16, per-tensor
scales, fast accumulation) at the issue's shapes, median of CUDA-event-timed
runs with operand sets rotated past the L2 (cold L2).

    python3 scripts/fp8-anchor.py [--blockwise] [M,N,K ...]

`--blockwise` adds DeepSeek-V3's block scales (1x128 for A, 128x128 for B,
promoting), where the installed PyTorch and cuBLASLt take them.
"""

import sys

import torch

from cold_timing import median_cold_ms


def time_scaled_mm(m, n, k, fast_accum=True, rowwise=False, blockwise=False, reps=50):
    sets = max(2, int(3 * 64 * 2**20 // (m * k + n * k)) + 1)
    ops = []
    for _ in range(sets):
        a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()  # K-major B: TN
        if blockwise:
            # DeepSeek-V3's scales as ScaledBlas.cpp checks them: A's 1x128
            # (M, K/128) with strides (1, M); B's 128x128 (K/128, N/128),
            # whose transpose is row-major (N/128, K/128).
            sa = torch.ones(k // 128, m, device="cuda").t()
            sb = torch.ones(n // 128, k // 128, device="cuda").t()
        elif rowwise:
            sa = torch.ones(m, 1, device="cuda")
            sb = torch.ones(1, n, device="cuda")
        else:
            sa = torch.ones((), device="cuda")
            sb = torch.ones((), device="cuda")
        ops.append((a, b, sa, sb))
    f = lambda o: torch._scaled_mm(o[0], o[1], scale_a=o[2], scale_b=o[3], out_dtype=torch.bfloat16, use_fast_accum=fast_accum)
    ms = median_cold_ms(f, ops, reps)
    return ms, 2 * m * n * k / (ms * 1e-3) / 1e12


def main():
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    shapes = [tuple(int(v) for v in s.split(",")) for s in sys.argv[1:] if not s.startswith("--")] or [
        (4096, 4096, 4096), (8192, 8192, 8192), (4096, 14336, 4096), (8192, 8192, 1024),
        (16, 4096, 4096), (128, 4096, 4096),
    ]
    print(torch.cuda.get_device_name(), torch.__version__)
    modes = [("per-tensor", dict()), ("row-wise", dict(rowwise=True))]
    if "--blockwise" in flags:
        # Block scales promote (cuBLASLt takes them without fast accumulation).
        modes.append(("blockwise 1x128 x 128x128", dict(blockwise=True, fast_accum=False)))
    for m, n, k in shapes:
        for name, mode in modes:
            try:
                ms, tflops = time_scaled_mm(m, n, k, **mode)
                accum = "fast-accum" if mode.get("fast_accum", True) else "promoting"
                print(f"_scaled_mm e4m3 {m}x{n}x{k} {name} {accum}: {ms * 1e3:9.1f} us  {tflops:7.1f} TFLOP/s")
            except Exception as e:  # row-wise and blockwise need a newer cuBLASLt on some builds
                print(f"_scaled_mm {m}x{n}x{k} {name}: {type(e).__name__}: {str(e).splitlines()[0][:160]}")


if __name__ == "__main__":
    main()
