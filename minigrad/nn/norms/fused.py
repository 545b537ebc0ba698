"""Fused normalization: thin wrappers that hand C-contiguous arrays to the Numba kernels.

Same functions and signatures as ``reference.py`` (on NumPy arrays), so the autograd
Functions in ``functions.py`` use either. Each wrapper views the input as the 2-D or
3-D layout its kernel loops over (a reshape, no copy for a C-contiguous input),
supplies ones / zeros for an absent weight / bias, and takes the outputs and scratch
arrays from a pool of reusable buffers (``buffers.py``).

The kernel modules import numba, so they are imported here on first use, never at
``import minigrad`` (see ``minigrad/kernels/__init__.py``). Inputs that are neither
float32 nor float64 (float16), and empty inputs, go to the reference implementation.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from minigrad.nn.norms import reference
from minigrad.nn.norms.buffers import default_pool
from minigrad.threads import apply_to_numba, get_num_threads

__all__ = [
    "batch_norm_backward",
    "batch_norm_forward",
    "group_norm_backward",
    "group_norm_forward",
    "layer_norm_backward",
    "layer_norm_forward",
    "rms_norm_backward",
    "rms_norm_forward",
]

_KERNEL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

#: The reductions over rows are cut into at most this many chunks, fixed by the shape
#: alone (never by the thread count), which makes dweight / dbias bit-identical from run
#: to run and on any number of threads. 32 chunks keep 2-16 threads busy.
MAX_CHUNKS = 32


#: Inputs smaller than this run the serial twin of their kernels, on the calling thread
#: (``minigrad.kernels.serial``). Waking the workers costs 100-150 us per parallel loop
#: on this machine's workqueue layer, and on a busy machine a 2-thread region waits for
#: its second thread to be scheduled (a 6 x 20 LayerNorm took 270 us on 2 threads
#: against 13 us on one while other processes were running).
PARALLEL_MIN_ELEMENTS = 1 << 15


_kernel_modules: dict = {}


def _kernels(name: str):
    """The kernel module ``minigrad.kernels.<name>`` (imports numba on first use)."""
    module = _kernel_modules.get(name)
    if module is None:
        import importlib

        module = _kernel_modules[name] = importlib.import_module(f"minigrad.kernels.{name}")
    return module


#: A row kernel shared among threads is cut into work items of about this many elements
#: (whole chunks of rows), few enough that the Python around each item stays small.
ITEM_ELEMENTS = 1 << 16


def _run_rows(kernel, size: int, rows: int, args_for) -> None:
    """Run a kernel whose parallel loop is over the rows (or the chunks of ``rows``, see
    ``_chunks``); ``args_for(k0, k1)`` gives its arguments for the rows of chunks
    ``k0 .. k1 - 1``.

    - fewer than ``PARALLEL_MIN_ELEMENTS`` elements, or one thread: the kernel's serial
      twin on the calling thread (``minigrad.kernels.serial``);
    - on the workqueue layer (``minigrad.kernels.SHARE_ROWS``): the chunks, as work items
      that run the serial twin, shared between the calling thread and helper threads
      (``minigrad.threads.share``);
    - otherwise the parallel kernel over every row.
    """
    from minigrad.kernels import SHARE_ROWS, serial

    _, chunks = _chunks(rows)
    if size < PARALLEL_MIN_ELEMENTS or get_num_threads() == 1:
        serial(kernel)(*args_for(0, chunks))
    elif not SHARE_ROWS or chunks == 1:
        apply_to_numba()  # Numba's thread count is per calling thread
        kernel(*args_for(0, chunks))
    else:
        from minigrad.threads import share

        twin = serial(kernel)
        items = min(chunks, max(2, size // ITEM_ELEMENTS))
        bounds = [chunks * i // items for i in range(items + 1)]
        share(lambda i: twin(*args_for(bounds[i], bounds[i + 1])), items)


def _chunk_sums(partial: np.ndarray, dtype) -> np.ndarray:
    """The per-chunk float64 sums ``partial`` [chunks, ...] added over the chunks (in one
    fixed order, whichever threads computed them), in ``dtype``."""
    return partial.sum(axis=0).astype(dtype, copy=False)


def _use_kernels(x: np.ndarray) -> bool:
    return x.dtype in _KERNEL_DTYPES and x.size > 0


def _chunks(rows: int) -> tuple[int, int]:
    """``(rows_per_chunk, chunks)``: a fixed partition of ``rows`` for the reductions."""
    per = max(1, -(-rows // MAX_CHUNKS))
    return per, -(-rows // per)


@functools.lru_cache(maxsize=64)
def _filled(n: int, dtype: np.dtype, value: float) -> np.ndarray:
    """``n`` copies of ``value``: the weight or bias of a norm without one. (Shared and
    never written; not flagged read-only, because Numba compiles a separate
    specialization for read-only arrays.)"""
    return np.full(n, value, dtype=dtype)


def _vector(param, n: int, dtype: np.dtype, default: float) -> np.ndarray:
    """A parameter as a contiguous [n] vector of ``dtype`` (``default`` everywhere if None)."""
    if param is None:
        return _filled(n, dtype, default)
    return np.ascontiguousarray(param, dtype=dtype).reshape(n)


def _contiguous(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``a`` as a C-contiguous array of ``dtype``; no copy when it already is one."""
    return np.ascontiguousarray(a, dtype=dtype)


def _empty(shape: tuple, dtype=np.float64) -> np.ndarray:
    """An output or scratch array from the pool of reusable buffers (see buffers.py)."""
    return default_pool.empty(shape, dtype)


def _empty_like_rows(need: bool, shape: tuple, dtype: np.dtype) -> np.ndarray:
    """The output for dx, or a 0-size stand-in of the same rank when dx is not needed."""
    return _empty(shape, dtype) if need else np.empty((0,) * len(shape), dtype=dtype)


# ---------------------------------------------------------------------------- LayerNorm
def layer_norm_forward(x, weight, bias, normalized_ndim: int, eps: float):
    if not _use_kernels(x):
        return reference.layer_norm_forward(x, weight, bias, normalized_ndim, eps)
    lead = x.shape[: x.ndim - normalized_ndim]
    rows, n = math.prod(lead), math.prod(x.shape[x.ndim - normalized_ndim :])
    x2 = _contiguous(x, x.dtype).reshape(rows, n)
    y = _empty((rows, n), x.dtype)
    mean = np.empty(rows, dtype=x.dtype)
    rstd = np.empty(rows, dtype=x.dtype)
    w, b = _vector(weight, n, x.dtype, 1.0), _vector(bias, n, x.dtype, 0.0)
    per, _ = _chunks(rows)

    def args_for(k0, k1):
        r0, r1 = k0 * per, min(rows, k1 * per)
        return x2[r0:r1], w, b, eps, y[r0:r1], mean[r0:r1], rstd[r0:r1]

    _run_rows(_kernels("layer_norm").layer_norm_forward, x.size, rows, args_for)
    keep = lead + (1,) * normalized_ndim
    return y.reshape(x.shape), mean.reshape(keep), rstd.reshape(keep)


def layer_norm_backward(dy, x, weight, mean, rstd, normalized_ndim: int, need_dx: bool = True):
    if not _use_kernels(x):
        return reference.layer_norm_backward(dy, x, weight, mean, rstd, normalized_ndim, need_dx)
    norm_shape = x.shape[x.ndim - normalized_ndim :]
    n = math.prod(norm_shape)
    rows = x.size // n
    per, chunks = _chunks(rows)
    dx = _empty_like_rows(need_dx, (rows, n), x.dtype)
    dy2 = _contiguous(dy, x.dtype).reshape(rows, n)
    x2 = _contiguous(x, x.dtype).reshape(rows, n)
    w = _vector(weight, n, x.dtype, 1.0)
    mean1, rstd1 = mean.reshape(rows), rstd.reshape(rows)
    partial = _empty((chunks, 2, n))

    def args_for(k0, k1):
        r0, r1 = k0 * per, min(rows, k1 * per)
        dx_rows = dx[r0:r1] if need_dx else dx
        return (
            dy2[r0:r1], x2[r0:r1], w, mean1[r0:r1], rstd1[r0:r1], per, need_dx, dx_rows,
            partial[k0:k1],
        )  # fmt: skip

    _run_rows(_kernels("layer_norm").layer_norm_backward, x.size, rows, args_for)
    dweight, dbias = _chunk_sums(partial, x.dtype)
    return (
        dx.reshape(x.shape) if need_dx else None,
        None if weight is None else dweight.reshape(norm_shape),
        dbias.reshape(norm_shape),
    )


# ------------------------------------------------------------------------------ RMSNorm
def rms_norm_forward(x, weight, normalized_ndim: int, eps: float):
    if not _use_kernels(x):
        return reference.rms_norm_forward(x, weight, normalized_ndim, eps)
    lead = x.shape[: x.ndim - normalized_ndim]
    rows, n = math.prod(lead), math.prod(x.shape[x.ndim - normalized_ndim :])
    y = _empty((rows, n), x.dtype)
    rstd = np.empty(rows, dtype=x.dtype)
    x2 = _contiguous(x, x.dtype).reshape(rows, n)
    w = _vector(weight, n, x.dtype, 1.0)
    per, _ = _chunks(rows)

    def args_for(k0, k1):
        r0, r1 = k0 * per, min(rows, k1 * per)
        return x2[r0:r1], w, eps, y[r0:r1], rstd[r0:r1]

    _run_rows(_kernels("rms_norm").rms_norm_forward, x.size, rows, args_for)
    return y.reshape(x.shape), None, rstd.reshape(lead + (1,) * normalized_ndim)


def rms_norm_backward(dy, x, weight, mean, rstd, normalized_ndim: int, need_dx: bool = True):
    if not _use_kernels(x):
        return reference.rms_norm_backward(dy, x, weight, mean, rstd, normalized_ndim, need_dx)
    norm_shape = x.shape[x.ndim - normalized_ndim :]
    n = math.prod(norm_shape)
    rows = x.size // n
    per, chunks = _chunks(rows)
    dx = _empty_like_rows(need_dx, (rows, n), x.dtype)
    dy2 = _contiguous(dy, x.dtype).reshape(rows, n)
    x2 = _contiguous(x, x.dtype).reshape(rows, n)
    w = _vector(weight, n, x.dtype, 1.0)
    rstd1 = rstd.reshape(rows)
    partial = _empty((chunks, n))

    def args_for(k0, k1):
        r0, r1 = k0 * per, min(rows, k1 * per)
        dx_rows = dx[r0:r1] if need_dx else dx
        return (
            dy2[r0:r1], x2[r0:r1], w, rstd1[r0:r1], per, need_dx, dx_rows, partial[k0:k1],
        )  # fmt: skip

    _run_rows(_kernels("rms_norm").rms_norm_backward, x.size, rows, args_for)
    dweight = _chunk_sums(partial, x.dtype)
    return (
        dx.reshape(x.shape) if need_dx else None,
        None if weight is None else dweight.reshape(norm_shape),
        None,
    )


# ---------------------------------------------------------------------------- BatchNorm
def _channel_layout(a: np.ndarray, dtype: np.dtype):
    """``a`` [N, C, *] as the C-contiguous view its kernels loop over, and their suffix:
    [N, C] for ``*_rows`` when there are no positions, else [N, C, L] for
    ``*_positions``."""
    a = _contiguous(a, dtype)
    n, c = a.shape[0], a.shape[1]
    length = a.size // (n * c)
    if length == 1:
        return a.reshape(n, c), "rows"
    return a.reshape(n, c, length), "positions"


def batch_norm_forward(x, weight, bias, running_mean, running_var, training: bool, eps: float):
    if not _use_kernels(x) or x.ndim < 2:
        return reference.batch_norm_forward(
            x, weight, bias, running_mean, running_var, training, eps
        )
    kernels = _kernels("batch_norm")
    dt = x.dtype
    xv, layout = _channel_layout(x, dt)
    n, c = x.shape[0], x.shape[1]
    per, chunks = _chunks(n)

    def rows_of(k0, k1):
        return slice(k0 * per, min(n, k1 * per))

    if training:  # step 1: chunk statistics; step 2: merged in order
        mean, var = np.empty(c), np.empty(c)
        partial = _empty((chunks, 2, c))
        _run_rows(
            getattr(kernels, "stats_" + layout), x.size, n,
            lambda k0, k1: (xv[rows_of(k0, k1)], per, partial[k0:k1]),
        )  # fmt: skip
        kernels.merge_stats(partial, per, n, xv.size // (n * c), mean, var)
    else:
        mean = np.array(running_mean, dtype=np.float64)
        var = np.array(running_var, dtype=np.float64)
    rstd = np.empty(c)
    mean_x, scale, shift = np.empty(c, dt), np.empty(c, dt), np.empty(c, dt)
    w, b = _vector(weight, c, dt, 1.0), _vector(bias, c, dt, 0.0)
    kernels.affine(mean, var, w, b, eps, rstd, mean_x, scale, shift)
    y = _empty(xv.shape, dt)
    _run_rows(  # step 3: the output
        getattr(kernels, "output_" + layout), x.size, n,
        lambda k0, k1: (xv[rows_of(k0, k1)], mean_x, scale, shift, y[rows_of(k0, k1)]),
    )  # fmt: skip
    keep = (1, c) + (1,) * (x.ndim - 2)
    return y.reshape(x.shape), mean.astype(dt).reshape(keep), rstd.astype(dt).reshape(keep), var


def batch_norm_backward(dy, x, weight, mean, rstd, training: bool, need_dx: bool = True):
    if not _use_kernels(x) or x.ndim < 2:
        return reference.batch_norm_backward(dy, x, weight, mean, rstd, training, need_dx)
    kernels = _kernels("batch_norm")
    dt = x.dtype
    xv, layout = _channel_layout(x, dt)
    dyv, _ = _channel_layout(dy, dt)
    n, c = x.shape[0], x.shape[1]
    per, chunks = _chunks(n)
    mean_c = np.ascontiguousarray(mean, dtype=dt).reshape(c)

    def rows_of(k0, k1):
        return slice(k0 * per, min(n, k1 * per))

    partial = _empty((chunks, 2, c))
    _run_rows(  # step 1: chunk sums of dy and dy (x - mean)
        getattr(kernels, "sums_" + layout), x.size, n,
        lambda k0, k1: (dyv[rows_of(k0, k1)], xv[rows_of(k0, k1)], mean_c, per,
                               partial[k0:k1]),
    )  # fmt: skip
    dweight, dbias = np.empty(c), np.empty(c)
    a, b, d = np.empty(c, dt), np.empty(c, dt), np.empty(c, dt)
    kernels.input_coefficients(  # step 2: the sums added in order
        partial, _vector(weight, c, dt, 1.0), np.ascontiguousarray(rstd, dtype=dt).reshape(c),
        xv.size // c, training, dweight, dbias, a, b, d,
    )  # fmt: skip
    dx = None
    if need_dx:
        dx = _empty(xv.shape, dt)
        _run_rows(  # step 3: dx
            getattr(kernels, "input_grad_" + layout), x.size, n,
            lambda k0, k1: (dyv[rows_of(k0, k1)], xv[rows_of(k0, k1)], mean_c, a, b, d,
                                   dx[rows_of(k0, k1)]),
        )  # fmt: skip
    return (
        dx.reshape(x.shape) if need_dx else None,
        None if weight is None else dweight.astype(dt),
        dbias.astype(dt),
    )


# ---------------------------------------------------------------------------- GroupNorm
def group_norm_forward(x, weight, bias, num_groups: int, eps: float):
    if not _use_kernels(x):
        return reference.group_norm_forward(x, weight, bias, num_groups, eps)
    n, c = x.shape[0], x.shape[1]
    rows, cg = n * num_groups, c // num_groups
    x3 = _contiguous(x, x.dtype).reshape(rows, cg, -1)
    y = _empty(x3.shape, x.dtype)
    mean = np.empty(rows, dtype=x.dtype)
    rstd = np.empty(rows, dtype=x.dtype)
    w, b = _vector(weight, c, x.dtype, 1.0), _vector(bias, c, x.dtype, 0.0)
    per, _ = _chunks(rows)

    def args_for(k0, k1):
        r0, r1 = k0 * per, min(rows, k1 * per)
        return x3[r0:r1], w, b, num_groups, r0, eps, y[r0:r1], mean[r0:r1], rstd[r0:r1]

    _run_rows(_kernels("group_norm").group_norm_forward, x.size, rows, args_for)
    keep = (n, num_groups, 1)
    return y.reshape(x.shape), mean.reshape(keep), rstd.reshape(keep)


def group_norm_backward(dy, x, weight, mean, rstd, num_groups: int, need_dx: bool = True):
    if not _use_kernels(x):
        return reference.group_norm_backward(dy, x, weight, mean, rstd, num_groups, need_dx)
    n, c = x.shape[0], x.shape[1]
    rows, cg = n * num_groups, c // num_groups
    x3 = _contiguous(x, x.dtype).reshape(rows, cg, -1)
    per, chunks = _chunks(rows)
    dx = _empty_like_rows(need_dx, x3.shape, x.dtype)
    dy3 = _contiguous(dy, x.dtype).reshape(x3.shape)
    w = _vector(weight, c, x.dtype, 1.0)
    mean1, rstd1 = mean.reshape(rows), rstd.reshape(rows)
    partial = _empty((chunks, 2, c))

    def args_for(k0, k1):
        r0, r1 = k0 * per, min(rows, k1 * per)
        dx_rows = dx[r0:r1] if need_dx else dx
        return (
            dy3[r0:r1], x3[r0:r1], w, num_groups, r0, mean1[r0:r1], rstd1[r0:r1], per, need_dx,
            dx_rows, partial[k0:k1],
        )  # fmt: skip

    _run_rows(_kernels("group_norm").group_norm_backward, x.size, rows, args_for)
    dweight, dbias = _chunk_sums(partial, x.dtype)
    return (dx.reshape(x.shape) if need_dx else None), (None if weight is None else dweight), dbias
