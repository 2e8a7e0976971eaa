"""The cold-L2 timing the anchor scripts share: `ops` operand sets rotated
past the L2, three warm-up calls, then the median of `reps` CUDA-event-timed
calls of `f` in milliseconds."""

import statistics

import torch


def median_cold_ms(f, ops, reps=50):
    for o in ops[:3]:
        f(o)
    torch.cuda.synchronize()
    times = []
    for i in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        f(ops[i % len(ops)])
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)
