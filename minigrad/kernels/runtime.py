"""The kernel runtime: the one place in minigrad that knows about threads.

A fused kernel is a Numba function compiled with ``parallel=True`` (``prange``), with a
``*_serial`` twin: the same row code in a plain loop. Its Python wrapper asks
``parallel(size)`` which one to run:

- the serial twin below ``PARALLEL_MIN_ELEMENTS`` elements, or on one thread: waking a
  second thread costs more than it saves. Measured on this 2-core VM, OpenMP layer, a
  LayerNorm forward on [6, 20]: 1.0 us serial, 2.5 us parallel on 1 thread, 5 us on 2;
  on [64, 64]: 6.6 / 9.8 us;
- the serial twin, too, for ``BLAS_SPIN_SECONDS`` after a matrix product (minigrad's
  matmul, linear, attention and einsum call ``products_ran()``): NumPy's OpenBLAS
  workers spin that long after each product (one 2-thread product of [512, 512], then a
  sleep: 97 ms of CPU burnt in the next 100 ms), and a 2-thread kernel would share a
  core with one of them. A training step of ``minigrad train``'s default model took
  122 ms with 2-thread kernels on Numba's default (OpenMP) layer, 22 ms on workqueue,
  and 12.6 ms with the kernels on the calling thread (PyTorch: 18.6 ms);
- else the parallel kernel on ``get_num_threads()`` threads (``mg.set_num_threads``,
  default: the number of cores). A kernel without a twin calls ``threads_for(size)``.

Nothing here runs at import, and nothing process-wide changes unless asked for:
Numba picks its threading layer as it always does (``NUMBA_THREADING_LAYER``, else TBB,
then OpenMP, then workqueue). Two explicit opt-ins, both for programs that want them:

- ``use_threading_layer(name)`` before the first kernel runs. On 2 cores, OpenMP's idle
  workers spin after each parallel loop and OpenBLAS's after each matmul, and the two
  pools can take each other's cores; "workqueue" workers sleep instead, but each launch
  then waits for them to wake (a [6, 20] LayerNorm forward measured 88 us against 2.5
  on OpenMP), so minigrad leaves the choice to the program.
- ``keep_freed_memory()``: glibc keeps freed memory for reuse instead of returning
  large blocks to the system (fewer page faults in a training loop; the process keeps
  its peak memory).
"""

from __future__ import annotations

import ctypes
import os
from threading import get_ident
from time import perf_counter

import numpy as np

__all__ = [
    "PARALLEL_MIN_ELEMENTS",
    "get_num_threads",
    "keep_freed_memory",
    "set_num_threads",
    "share",
    "parallel",
    "products_ran",
    "threads_for",
    "use_threading_layer",
]

#: Inputs with fewer elements than this run their kernel on the calling thread alone.
PARALLEL_MIN_ELEMENTS = 1 << 15
#: How long after a matrix product kernels stay on the calling thread (see above).
BLAS_SPIN_SECONDS = 0.1
_blas_spinning_until = 0.0  # perf_counter() until which OpenBLAS's workers spin

_CORES = os.cpu_count() or 1  # read once: os.cpu_count() reads sysfs (~10 us a call)
_threads = _CORES
_numba_threads: dict = {}  # thread id -> the count last given to Numba on it
_blas_setter = None  # OpenBLAS's set_num_threads once found; False when there is none


def set_num_threads(n: int) -> bool:
    """Use ``n`` threads for minigrad's kernels and for NumPy's matmuls (OpenBLAS).

    Returns True when the BLAS thread count could be set too, False when only the
    kernels' count was (no OpenBLAS found among the loaded libraries).
    """
    global _threads, _blas_setter
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"set_num_threads: n must be a positive int, got {n!r}")
    _threads = n
    if _blas_setter is None:
        _blas_setter = _find_blas_setter() or False
    if _blas_setter:
        _blas_setter(n)
    return bool(_blas_setter)


def get_num_threads() -> int:
    """The thread count set by ``set_num_threads`` (default: the number of cores)."""
    return _threads


def products_ran() -> None:
    """Note that NumPy has just run a matrix product: for ``BLAS_SPIN_SECONDS``, kernels
    and ``share`` stay on the calling thread (OpenBLAS's workers are spinning)."""
    global _blas_spinning_until
    _blas_spinning_until = perf_counter() + BLAS_SPIN_SECONDS


def parallel(size: int) -> bool:
    """Whether a kernel over ``size`` elements should run in parallel; if so, Numba's
    thread count for this calling thread is set (Numba keeps it per thread; it is set
    only when it changes: ``numba.set_num_threads`` costs 1-2 us)."""
    if size < PARALLEL_MIN_ELEMENTS or _threads == 1 or perf_counter() < _blas_spinning_until:
        return False
    thread = get_ident()
    if _numba_threads.get(thread) != _threads:
        import numba

        numba.set_num_threads(min(_threads, numba.config.NUMBA_NUM_THREADS))
        _numba_threads[thread] = _threads
    return True


def threads_for(size: int) -> None:
    """Set Numba's thread count for a parallel kernel over ``size`` elements that has no
    serial twin: 1 below ``PARALLEL_MIN_ELEMENTS`` (a parallel kernel on one thread costs
    about 3 us more than a serial one), else ``get_num_threads()``."""
    if not parallel(size):
        thread = get_ident()
        if _numba_threads.get(thread) != 1:
            import numba

            numba.set_num_threads(1)
            _numba_threads[thread] = 1


def use_threading_layer(name: str) -> None:
    """Opt in to Numba's ``name`` threading layer ("omp", "tbb" or "workqueue") for the
    whole process; call it before the first kernel runs (see the module docstring)."""
    import numba

    numba.config.THREADING_LAYER = name


def keep_freed_memory() -> bool:
    """Let glibc keep freed memory for reuse (True when applied; glibc only).

    A training step allocates and frees the same large arrays every step; by default
    glibc returns each block above its threshold to the system, and the next step faults
    its pages in again. This changes the whole process (PyTorch's allocations too), so
    minigrad never does it on its own: ``minigrad train`` and the benchmarks call it.
    """
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3
    ok = mallopt(m_mmap_threshold, 256 * 1024 * 1024)
    ok &= mallopt(m_trim_threshold, 1024 * 1024 * 1024)
    return bool(ok)


def _find_blas_setter():
    """``openblas_set_num_threads`` of the OpenBLAS NumPy loaded (Linux), or None."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as f:
            paths = sorted({line.split()[-1] for line in f if "openblas" in line.lower()})
    except OSError:
        return None
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_",
                     "scipy_openblas_set_num_threads", "openblas_set_num_threads"):  # fmt: skip
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.argtypes, fn.restype = [ctypes.c_int], None
                return fn
    return None


# ------------------------------------------ work items for code that is not a kernel
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

    For work split into calls that release the GIL but are not one ``prange`` kernel
    (dropout's mask, filled in slices by a serial kernel); kernels use ``prange``. Each
    thread takes the next item when it is free; the caller starts at once and never
    waits for a helper that has not started (on this 2-core VM a sleeping thread took
    0.1 to several ms to wake). An exception
    from any item is raised here, after the items already taken have finished.

    Example::

        >>> share(lambda i: kernel(rows[i]), len(rows))  # doctest: +SKIP
    """
    global _helpers
    helpers = min(get_num_threads(), count) - 1
    if perf_counter() < _blas_spinning_until:
        helpers = 0  # OpenBLAS's workers hold the other cores (see the module docstring)
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


# ------------------------------------------------- layout helpers of the kernel wrappers
#: The sums over rows (dweight, dbias, BatchNorm's statistics) are cut into at most this
#: many chunks of rows, fixed by the shape alone (never by the thread count): each chunk
#: sums into its own float64 row and the wrapper adds the rows in order, so the results
#: are bit-identical from run to run and on any number of threads.
MAX_CHUNKS = 32
#: A chunk holds at least this many values: below it, a chunk's own zeroed sums and the
#: extra row to add at the end cost more than the chunk's work. LayerNorm backward on
#: [64, 64]: 7.7 us in 32 chunks, 2.6 us in one.
MIN_CHUNK_ELEMENTS = 4096
#: Wide sums get fewer chunks (but at least ``MIN_CHUNKS``): all chunks' sums together
#: hold at most ``MAX_SUM_VALUES`` values per sum. LayerNorm backward on [512, 4096]:
#: 0.86-0.91x the time in 8 chunks as in 32; [1024, 2048] in 16: 0.94-1.00x.
MAX_SUM_VALUES = 32768
MIN_CHUNKS = 8


def row_chunks(rows: int, row_size: int, width: int) -> tuple[int, int]:
    """``(rows_per_chunk, chunks)``: the fixed partition of ``rows`` rows of ``row_size``
    values each, for sums ``width`` values wide."""
    most = min(MAX_CHUNKS, max(MIN_CHUNKS, MAX_SUM_VALUES // max(1, width)))
    per = max(1, -(-rows // most), -(-MIN_CHUNK_ELEMENTS // max(1, row_size)))
    return per, max(1, -(-rows // per))


def contiguous(a, dtype):
    """``a`` as a writeable C-contiguous array of ``dtype`` (a copy only when needed:
    the kernels' signatures take writeable C-contiguous arrays)."""
    flags = a.flags
    if a.dtype == dtype and flags.c_contiguous and flags.writeable:
        return a
    a = np.ascontiguousarray(a, dtype=dtype)
    return a if a.flags.writeable else a.copy()


def vector(param, n: int, dtype, default: float):
    """A parameter as a C-contiguous [n] vector of ``dtype`` (``default`` if None)."""
    if param is None:
        return np.full(n, default, dtype=dtype)
    param = contiguous(param, dtype)
    return param if param.ndim == 1 else param.reshape(n)
