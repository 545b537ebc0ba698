"""Timing helpers shared by the benchmarks: interleaved repeats, medians, ratios.

These machines are shared and noisy, so every benchmark runs the implementations it
compares in the same process, alternating between them, and reports the ratio of the
medians: absolute times drift with the load, ratios hold.
"""

from __future__ import annotations

import statistics
import time


def interleaved(fns: dict, repeats: int = 15, warmup: int = 2, number: int = 1) -> dict:
    """Time each callable ``repeats`` times, round-robin; return the median seconds per call."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    samples = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            samples[name].append((time.perf_counter() - t0) / number)
    return {name: statistics.median(s) for name, s in samples.items()}


def try_import_torch():
    """torch, with 2 threads like minigrad's kernels, or None when it is not installed.

    minigrad's kernels are set up first, so that Numba's threading layer is chosen as
    in a process without PyTorch (``NUMBA_THREADING_LAYER`` still overrides it).
    """
    import minigrad.kernels  # noqa: F401

    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(2)
    return torch


def fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:8.1f} us"
    return f"{seconds * 1e3:8.2f} ms"
