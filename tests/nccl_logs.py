"""Write nccl-tests text output for tests (the exact layout nccl-tests prints)."""

from __future__ import annotations

FACTOR = {"all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n}


def render(collective: str, hosts: list[str], gpus_per_host: int, busbw_of_size: dict[int, float]) -> str:
    n = len(hosts) * gpus_per_host
    lines = [
        "# nccl-tests version 2.17.6 nccl-headers=22803 nccl-library=22803",
        f"# Collective test starting: {collective}_perf",
        f"# nThread 1 nGpus 1 minBytes {min(busbw_of_size)} maxBytes {max(busbw_of_size)} step: 2(factor) "
        "warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
        "#",
        "# Using devices",
    ]
    rank = 0
    for h in hosts:
        for d in range(gpus_per_host):
            lines.append(f"#  Rank {rank:2d} Group  0 Pid {1000 + rank:6d} on {h} device {d:2d} "
                         f"[0000:{d:02x}:00] NVIDIA H100 80GB HBM3")
            rank += 1
    lines += [
        "#",
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong",
    ]
    total = 0.0
    for size, busbw in sorted(busbw_of_size.items()):
        algbw = busbw / FACTOR[collective](n)
        time_us = size / (algbw * 1e9) * 1e6
        cols = f"{time_us:8.1f} {algbw:7.2f} {busbw:7.2f}      0"
        lines.append(f"{size:12d} {size // 4:12d}     float     sum      -1 {cols} {cols}")
        total += busbw
    lines += ["# Out of bounds values : 0 OK", f"# Avg bus bandwidth    : {total / len(busbw_of_size):g} ", "#"]
    return "\n".join(lines) + "\n"
