"""The kernel runtime: the one place in minigrad that chooses threads.

**The policy, in one sentence:** a kernel runs on ``mg.get_num_threads()`` threads when
its input has at least ``PARALLEL_MIN_ELEMENTS`` elements and more than one thread is
set (``mg.set_num_threads``), and on the calling thread otherwise; NumPy's matrix
products (BLAS) use the same count. Which code runs depends on the input's size and on
that explicit setting alone: never on the clock, on what ran before, or on reference
counts.

Each parallel kernel (``jit.kernel(..., parallel=True)``, its loop a ``prange``) has a
serial twin compiled from the same function; ``kernel.for_size(size)`` asks
``parallel(size)`` which to run.

Why 2^22 elements (4,194,304): measured (``benchmarks/bench_parallel_threshold.py``).
In a program a kernel runs between matrix products, and NumPy's OpenBLAS workers spin
for about 0.1 s after each product, so a 2-thread kernel started there waits for a core a
spinning worker holds: right after three products of a GPT's size, GELU and LayerNorm
took 4.6-5.0 ms on 2 OpenMP threads at every size from 2^17 to 2^20 elements against
0.13-1.23 ms on the calling thread, and the two broke even only at 2^21-2^22 (2 cores,
OpenMP layer). Alone, as in ``benchmarks/bench_norms.py``, 2 threads win from 2^17 on:
the threshold gives that up below 2^22 for the programs users run. A GPT 4x128 training
step (``benchmarks/bench_programs.py``; its largest kernel input, GELU on [1024, 512],
is 2^19) took 184 ms with the former threshold, 2^19, and 91 ms with its kernels on the
calling thread.

BLAS threads are set through ``threadpoolctl`` (the ecosystem's way to reach OpenBLAS,
MKL or BLIS), Numba's through ``numba.set_num_threads`` (Numba keeps the count per
calling thread, so ``parallel`` sets it on each thread that runs a kernel).

Nothing here runs at import: Numba picks its threading layer as it always does
(``NUMBA_THREADING_LAYER``, else TBB, then OpenMP, then workqueue), and
``use_threading_layer(name)``, before the first kernel runs, is the program's opt-in to
another. (On 2 cores, OpenMP's idle workers spin after each parallel loop and
OpenBLAS's after each matmul, and the two pools can take each other's cores;
"workqueue" workers sleep instead, but each launch then waits for them to wake, so
minigrad leaves the choice to the program.)

**The allocator policy, in one sentence:** from the first ``backward()`` on, glibc keeps
freed memory for reuse instead of returning large blocks to the system
(``keep_freed_memory``), unless the program turned it off with
``mg.keep_freed_memory(False)`` or ``MINIGRAD_KEEP_FREED_MEMORY=0``. A training step
allocates and frees the same few-MiB arrays (products' outputs, activations, gradients)
every step; by default glibc returns each to the system and faults its pages in again
on the next step: a GPT 4x128 step (``benchmarks/bench_programs.py``) faulted in 12,806
pages, 3.8 with the policy, for the same peak memory (211 MiB). It changes the whole
process (another library's allocations too), which is why it waits for training to start.
"""

from __future__ import annotations

import ctypes
import os
from threading import get_ident

__all__ = [
    "PARALLEL_MIN_ELEMENTS",
    "get_num_threads",
    "keep_freed_memory",
    "parallel",
    "set_num_threads",
    "use_threading_layer",
]

#: Inputs with fewer elements than this run their kernel on the calling thread alone
#: (the module docstring says why 2^22).
PARALLEL_MIN_ELEMENTS = 1 << 22

_threads = os.cpu_count() or 1
_numba_threads: dict = {}  # thread id -> the count last given to Numba on it


def set_num_threads(n: int) -> bool:
    """Use ``n`` threads for minigrad's kernels and for NumPy's matrix products.

    Returns True when the BLAS thread count could be set too (``threadpoolctl`` found
    NumPy's BLAS), False when only the kernels' count was.
    """
    global _threads
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"set_num_threads: n must be a positive int, got {n!r}")
    _threads = n
    from threadpoolctl import threadpool_limits

    limits = threadpool_limits(limits=n, user_api="blas")
    return limits.get_original_num_threads().get("blas") is not None


def get_num_threads() -> int:
    """The thread count set by ``set_num_threads`` (default: the number of cores)."""
    return _threads


def parallel(size: int) -> bool:
    """Whether a kernel over ``size`` elements runs in parallel (the policy above); if
    so, Numba's thread count for the calling thread is set (it is set only when it
    changes: ``numba.set_num_threads`` costs 1-2 us)."""
    if size < PARALLEL_MIN_ELEMENTS or _threads == 1:
        return False
    thread = get_ident()
    if _numba_threads.get(thread) != _threads:
        import numba

        numba.set_num_threads(min(_threads, numba.config.NUMBA_NUM_THREADS))
        _numba_threads[thread] = _threads
    return True


def use_threading_layer(name: str) -> None:
    """Opt in to Numba's ``name`` threading layer ("omp", "tbb" or "workqueue") for the
    whole process; call it before the first kernel runs (see the module docstring)."""
    import numba

    numba.config.THREADING_LAYER = name


#: The allocator policy: None until the program or the first backward decides.
_allocator = {"keep": None}

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def _mallopt(mmap_threshold: int, trim_threshold: int) -> bool:
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return False  # not glibc
    ok = mallopt(_M_MMAP_THRESHOLD, mmap_threshold)
    ok &= mallopt(_M_TRIM_THRESHOLD, trim_threshold)
    return bool(ok)


def keep_freed_memory(enabled: bool = True) -> bool:
    """Let glibc keep freed memory for reuse (``enabled``), or stop minigrad from asking
    it to (False). Returns True when glibc's thresholds were set (glibc only).

    minigrad applies it by itself when training starts (the first ``backward()``; see the
    module docstring); calling it applies it now. ``keep_freed_memory(False)`` turns the
    policy off, and if it was applied, puts glibc's thresholds back to their starting
    values (128 KiB; glibc then no longer adjusts them itself).
    """
    _allocator["keep"] = bool(enabled)
    if enabled:
        return _mallopt(256 << 20, 1 << 30)
    return _mallopt(128 << 10, 128 << 10)


def training_started() -> None:
    """Called by each ``backward()``: applies the allocator policy once, unless the
    program decided otherwise (``keep_freed_memory``, ``MINIGRAD_KEEP_FREED_MEMORY=0``)."""
    if _allocator["keep"] is None:
        _allocator["keep"] = os.environ.get("MINIGRAD_KEEP_FREED_MEMORY", "1") != "0"
        if _allocator["keep"]:
            _mallopt(256 << 20, 1 << 30)
