"""Process-level performance settings: threads, and how freed memory is kept.

``mg.set_num_threads`` / ``mg.get_num_threads``: how many threads minigrad computes with.

Three pools do minigrad's parallel work: the BLAS library behind NumPy's matmul
(OpenBLAS in NumPy's wheels), Numba's pool behind the fused kernels, and the helper
threads of ``share`` (the norm and activation kernels on the default threading layer).
Like ``torch.set_num_threads``, one call sets them all: the BLAS count is global,
Numba's is per calling thread (set here for the caller, and again by the norm wrappers
before a parallel launch), ``share`` reads ``get_num_threads()`` on every call. On a machine shared with other busy
processes, fewer threads than cores is often faster: a BLAS thread that has to wait
for a core stalls the whole matmul.

The BLAS library is found among the shared libraries the process has loaded (Linux);
where it cannot be found the BLAS setting is left alone and ``set_num_threads`` says so
by returning False.
"""

from __future__ import annotations

import ctypes
import os
import sys

_requested: int | None = None
_CORES = os.cpu_count() or 1  # read once: os.cpu_count() reads sysfs (~10 us a call)
_blas_setter = None  # the C function, once found; False when there is none


def _find_blas_setter():
    """``openblas_set_num_threads`` of the OpenBLAS that NumPy loaded, or None."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as f:
            paths = {line.split()[-1] for line in f if "openblas" in line.lower()}
    except OSError:
        return None
    names = (
        "scipy_openblas_set_num_threads64_",
        "scipy_openblas_set_num_threads",
        "openblas_set_num_threads64_",
        "openblas_set_num_threads",
    )
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in names:
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.argtypes = [ctypes.c_int]
                fn.restype = None
                return fn
    return None


def set_num_threads(n: int) -> bool:
    """Use ``n`` threads for matmuls (NumPy's BLAS) and minigrad's Numba kernels.

    Returns True when the BLAS thread count could be set too, False when only the
    kernels' count was (the BLAS library was not found).
    """
    global _requested, _blas_setter
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"set_num_threads: n must be a positive int, got {n!r}")
    _requested = n
    apply_to_numba()
    if _blas_setter is None:
        _blas_setter = _find_blas_setter() or False
    if _blas_setter:
        _blas_setter(n)
        return True
    return False


def get_num_threads() -> int:
    """The thread count set by ``set_num_threads``, or the number of cores by default."""
    return _requested if _requested is not None else _CORES


def apply_to_numba() -> None:
    """Give Numba's pool the requested count (called again once numba is imported)."""
    if _requested is None or "numba" not in sys.modules:
        return
    import numba

    numba.set_num_threads(min(_requested, numba.config.NUMBA_NUM_THREADS))


def keep_freed_memory() -> bool:
    """Let the C allocator keep freed memory for reuse (glibc only; True when applied).

    A training step allocates and frees the same large arrays every time. By default
    glibc hands each array above 128 KiB straight back to the operating system, so the
    next step's arrays start as fresh pages, and touching them costs a page fault per
    4 KiB: about 11,000 faults and a quarter of the step time on the benchmark model.
    With this setting freed arrays stay in the process's heap and are reused; the
    price is that the process keeps its peak memory until it exits. This changes the
    whole process (PyTorch's allocations too), so minigrad never does it on its own:
    ``minigrad train`` and the benchmarks call it.
    """
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3
    ok = mallopt(m_mmap_threshold, 256 * 1024 * 1024)
    ok &= mallopt(m_trim_threshold, 1024 * 1024 * 1024)
    return bool(ok)


# ------------------------------------------------------------------- shared work items
_helpers = None  # the thread pool of share(), created on first use


class _Items:
    """Work items handed out one at a time to whichever thread asks first."""

    __slots__ = ("task", "count", "next", "running", "lock", "idle", "error")

    def __init__(self, task, count: int):
        import threading

        self.task, self.count = task, count
        self.next = 0  # the next item not yet taken
        self.running = 0  # items taken and not finished
        self.lock = threading.Lock()
        self.idle = threading.Condition(self.lock)
        self.error: BaseException | None = None

    def run(self) -> None:
        while True:
            with self.lock:
                i = self.next
                if i >= self.count:
                    return
                self.next = i + 1
                self.running += 1
            try:
                self.task(i)
            except BaseException as error:  # noqa: BLE001  (re-raised by the caller)
                self.error = self.error or error
            finally:
                with self.lock:
                    self.running -= 1
                    if not self.running:
                        self.idle.notify_all()

    def wait(self) -> None:
        with self.lock:
            while self.running:
                self.idle.wait()


def share(task, count: int) -> None:
    """Run ``task(0)``, ..., ``task(count - 1)`` on the calling thread and up to
    ``get_num_threads() - 1`` helper threads; return when every item has run.

    Each thread takes the next item as soon as it is free, and the calling thread starts
    at once. A helper that wakes late takes fewer items, or none, and the caller never
    waits for a helper that has not started: on this 2-core VM a sleeping thread took
    from 0.1 to several milliseconds to wake, which is what made Numba's workqueue layer
    (whose calling thread waits for its workers) no faster than one thread on a
    memory-bound kernel. ``task`` must release the GIL for the threads to overlap
    (a ``nogil`` Numba function does). An exception from any item is raised here, after
    the items already taken have finished.

    Example::

        >>> share(lambda i: kernel(rows[i]), len(rows))  # doctest: +SKIP
    """
    global _helpers
    helpers = min(get_num_threads(), count) - 1
    items = _Items(task, count)
    if helpers > 0:
        if _helpers is None:
            from concurrent.futures import ThreadPoolExecutor

            _helpers = ThreadPoolExecutor(max(1, _CORES - 1), thread_name_prefix="minigrad")
        for _ in range(helpers):
            _helpers.submit(items.run)
    items.run()
    items.wait()
    if items.error is not None:
        raise items.error
