"""Numba kernels: the hot inner loops, written as plain loops over rows.

Conventions (see STYLE.md, after numbagg):
- A kernel module imports numba at its top, so ``import minigrad`` must never import
  a kernel module: the Python wrapper that dispatches to a kernel imports it inside the
  function, on first use. Importing numba costs about half a second; compiling a kernel
  0.6-2 s, so every kernel is compiled lazily and cached on disk (``cache=True``).
- A kernel works on one dtype-specialized, C-contiguous layout and writes into an
  ``out`` argument; axis handling, dtype dispatch and allocation stay in the wrapper.
- Numba's cache does not notice edits to a jitted helper imported from another module,
  so each kernel module keeps its jitted helpers to itself.
- Reductions along a row need ``fastmath={"reassoc", ...}`` to be vectorized (without
  it LLVM keeps the additions in order); keep NaN / inf semantics (no ``nnan``/``ninf``).
- Never ``out[j] += ...`` across ``prange`` iterations (it races). A sum over rows is
  split into a fixed number of chunks chosen from the shape alone, each chunk writes its
  own row of partial sums (float64 for float32 inputs), and the wrapper adds the rows in
  order: bit-identical results on every run and any thread count.
- Small inputs are not worth waking the worker threads: below a size threshold the
  norm wrappers call ``serial(kernel)``, the same kernel compiled without
  ``parallel=True``, which runs on the calling thread (a parallel kernel set to one
  thread still hands its loop to a worker on the workqueue layer: a LayerNorm
  forward + backward of [6, 20] took 377 us that way against 101 us inline). They
  take their outputs from a pool of reusable buffers (``nn/norms/buffers.py``).

Importing this package imports numba and configures it once for every kernel:
- the threading layer is ``workqueue`` unless ``NUMBA_THREADING_LAYER`` says otherwise.
  The OpenMP layer's idle workers spin-wait for a while after each parallel loop, and so
  do OpenBLAS's after each matmul; on 2 cores the two pools then steal each other's
  cores, and a training step measured 2x slower (about 190 ms against 95 ms on the
  benchmark model). workqueue's idle workers sleep. It does not allow two Python
  threads to launch parallel kernels at the same time: set
  ``NUMBA_THREADING_LAYER=omp`` (or ``tbb``) for that. Its calling thread waits for its
  workers to wake, so on it the norm kernels do not use Numba's parallel loops: they
  share their rows among Python threads instead (``SHARE_ROWS`` below). Even so, a
  normalization layer's forward + backward alone runs faster on OpenMP (LayerNorm
  [4096, 256] 1.2-1.4 ms against 1.6 ms shared and 2.8 ms on workqueue's loops), so a
  program that runs mostly these kernels and few matmuls may prefer
  ``NUMBA_THREADING_LAYER=omp``. Setting ``GOMP_SPINCOUNT`` does not help both: the
  OpenMP runtime is shared with PyTorch when both are loaded (same ``libgomp.so.1``),
  and with workers that sleep at once PyTorch's own step ran 5x slower.
- the thread count is the one asked for with ``mg.set_num_threads`` (Numba keeps it per
  calling thread: ``nn/norms/fused.py`` applies it again before a parallel launch).
"""

import os

import numba

if "NUMBA_THREADING_LAYER" not in os.environ:
    numba.config.THREADING_LAYER = "workqueue"

import types  # noqa: E402

from minigrad.threads import apply_to_numba  # noqa: E402

apply_to_numba()

#: On the workqueue layer the norm kernels (every one that ``nn/norms/fused._run_rows``
#: runs) run as work items on Python threads instead (``minigrad.threads.share``): workqueue's calling thread waits
#: for its workers to wake, and on this 2-core VM that made a memory-bound kernel no
#: faster on two threads than on one (LayerNorm [8192, 768] forward, with other work
#: between the calls: 6.4 ms parallel, 6.4 serial, 4.0 shared).
SHARE_ROWS = numba.config.THREADING_LAYER == "workqueue"

_serial_twins: dict = {}


def serial(kernel):
    """``kernel`` compiled without ``parallel=True``: its ``prange`` loops run as plain
    loops on the calling thread, in the same order of chunks, so the results are the
    same bit for bit. It releases the GIL (``nogil``), so that Python threads can run
    it on different rows at once (``minigrad.threads.share``). Compiled on first use
    and cached on disk under its own name
    (Numba's cache key does not include the ``parallel`` option, so the twin is a copy
    of the Python function named ``<name>_serial``).

    Example::

        >>> from minigrad.kernels import layer_norm, serial
        >>> serial(layer_norm.layer_norm_forward)(x, w, b, 1e-5, y, mean, rstd)  # doctest: +SKIP
    """
    twin = _serial_twins.get(kernel)
    if twin is None:
        fn = kernel.py_func
        copy = types.FunctionType(
            fn.__code__, fn.__globals__, f"{fn.__name__}_serial", fn.__defaults__, fn.__closure__
        )
        copy.__qualname__ = f"{fn.__qualname__}_serial"
        copy.__module__ = fn.__module__
        options = kernel.targetoptions
        twin = numba.njit(fastmath=options.get("fastmath", False), nogil=True, cache=True)(copy)
        _serial_twins[kernel] = twin
    return twin
