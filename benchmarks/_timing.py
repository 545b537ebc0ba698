"""Timing helpers shared by the benchmarks: interleaved repeats, medians, ratios.

These machines are shared and noisy, so every benchmark runs the implementations it
compares in the same process, alternating between them, and reports the ratio of the
medians: absolute times drift with the load, ratios hold.
"""

from __future__ import annotations

import statistics
import time


def interleaved_samples(fns: dict, repeats: int = 15, warmup: int = 2, number: int = 1) -> dict:
    """Round-robin timing: ``{name: [seconds per call, one per repetition]}``.

    The implementations run one after the other in every repetition, so the k-th
    samples of two implementations were taken moments apart, under the same load. The
    order rotates from one repetition to the next, because each run inherits the state
    the previous one left (its data in the caches or evicted; worker threads spinning,
    or asleep on an idle core that takes a while to wake: after 20 ms of single-threaded
    work, a 2-thread LayerNorm forward took 4 ms instead of 0.3 ms on this VM), so no
    implementation may always follow the same one.
    """
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    samples = {name: [] for name in fns}
    names = list(fns)
    for r in range(repeats):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            fn = fns[name]
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            samples[name].append((time.perf_counter() - t0) / number)
    return samples


def interleaved(fns: dict, repeats: int = 15, warmup: int = 2, number: int = 1) -> dict:
    """``interleaved_samples``, as the median seconds per call of each callable."""
    samples = interleaved_samples(fns, repeats, warmup, number)
    return {name: statistics.median(s) for name, s in samples.items()}


def try_import_torch():
    """torch, with 2 threads (the benchmarks run minigrad on 2 too), or None when it is not installed.

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
