"""BatchNorm kernels: per-channel statistics over the batch (and the positions).

Two layouts, each with its own kernels, so that a model compiles only the ones it
uses:

- ``*_rows`` take ``[N, C]``: a channel is a column. The inner loops run along the
  channels (contiguous, vectorized) and the per-channel sums live in float64 rows.
- ``*_positions`` take ``[N, C, L]`` with ``L > 1`` (the length of ``[N, C, L]``, or
  ``H * W`` of ``[N, C, H, W]``): the inner loops run along the ``L`` contiguous
  positions of one (example, channel) pair.

Every output depends on sums over the whole batch, so a forward and a backward are
each two parallel kernels with one-thread work between them (the wrappers at the end
call the steps):

forward
    1. (training) per chunk of examples and channel: the chunk's mean and sum of
       squared deviations from it, from one pass over the chunk shifted by its first
       value (as ``layer_norm.py``);
    2. one thread (NumPy) merges the chunks in order with Chan's formula
       ``M2 = sum_k M2_k + n_k (mean_k - mean)^2`` (accurate when the data sit on a
       large offset; bit-identical run to run) and forms per-channel ``scale = w rstd``;
    3. ``y = (x - mean_c) scale_c + b_c``.
backward
    1. per chunk and channel: ``sum dy`` and ``sum dy (x - mean_c)``, in float64 with
       each term formed in float64: in float32, ``x - mean_c`` rounds the same way for
       every x of similar size (the same mean is subtracted all along the channel) and
       those errors add up instead of cancelling;
    2. one thread (NumPy) adds the chunks in order: dweight, dbias and the coefficients of
    3. ``dx = a_c dy + b_c (x - mean_c) + d_c`` (training), or ``dx = a_c dy`` (eval).

Chunks are ``rows_per_chunk`` examples (``layout.row_chunks``). In the row layout the
sums take four rows per update of the float64 accumulators (fewer loads and stores of
the sums). The fastmath and error-model choices are those of ``layer_norm.py``; a
variance that overflows gives NaN, as there. The measurements are in
``docs/benchmarks.md``.
"""

import numba
import numpy as np

from minigrad.kernels.jit import both_floats, kernel
from minigrad.kernels.layout import contiguous, row_chunks, vector

FASTMATH = {"reassoc", "contract"}
_JIT = dict(parallel=True, fastmath=FASTMATH, error_model="numpy", cache=True, nogil=True)


_P = "float64[:, :, ::1]"  # the chunk sums


# ----------------------------------------------------------------------- [N, C] layout
@kernel(both_floats(f"void(T[:, ::1], int64, {_P})"), **_JIT)
def stats_rows(x, rows_per_chunk, partial):
    """Forward step 1 for ``x`` [N, C]: chunk k's mean and M2 (sum of squared deviations
    from that mean) per channel into ``partial[k, 0]`` and ``partial[k, 1]``
    (``partial`` [chunks, 2, C], float64). One pass over ``d = x - x[lo]`` (shifted by
    the chunk's first row; see the statistics note of ``layer_norm.py``)."""
    n, channels = x.shape
    chunks = partial.shape[0]
    for k in numba.prange(chunks):
        lo = k * rows_per_chunk
        hi = min(n, lo + rows_per_chunk)
        four = lo + (hi - lo) // 4 * 4
        s1 = partial[k, 0]
        s2 = partial[k, 1]
        shift = np.empty(channels)
        for c in range(channels):
            shift[c] = x[lo, c] if hi > lo else 0.0
            s1[c] = 0.0
            s2[c] = 0.0
        for i in range(lo, four, 4):
            for c in range(channels):
                d0 = x[i, c] - shift[c]
                d1 = x[i + 1, c] - shift[c]
                d2 = x[i + 2, c] - shift[c]
                d3 = x[i + 3, c] - shift[c]
                s1[c] += (d0 + d1) + (d2 + d3)
                s2[c] += (d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3)
        for i in range(four, hi):
            for c in range(channels):
                d = x[i, c] - shift[c]
                s1[c] += d
                s2[c] += d * d
        count = hi - lo
        for c in range(channels):
            mean_d = s1[c] / count
            s2[c] = max(s2[c] - count * mean_d * mean_d, 0.0)  # M2
            s1[c] = shift[c] + mean_d  # the mean


@kernel(both_floats("void(T[:, ::1], T[::1], T[::1], T[::1], T[:, ::1])"), **_JIT)
def output_rows(x, mean_x, scale, shift, y):
    """Forward step 3: ``y = (x - mean_c) scale_c + shift_c`` for ``x`` [N, C]."""
    n, channels = x.shape
    for i in numba.prange(n):
        for c in range(channels):
            y[i, c] = (x[i, c] - mean_x[c]) * scale[c] + shift[c]


@kernel(both_floats(f"void(T[:, ::1], T[:, ::1], T[::1], int64, {_P})"), **_JIT)
def sums_rows(dy, x, mean, rows_per_chunk, partial):
    """Backward step 1 for [N, C]: chunk k's ``sum dy`` and ``sum dy (x - mean_c)`` per
    channel into ``partial[k, 0]`` and ``partial[k, 1]`` (float64 terms)."""
    n, channels = x.shape
    chunks = partial.shape[0]
    for k in numba.prange(chunks):
        lo = k * rows_per_chunk
        hi = min(n, lo + rows_per_chunk)
        four = lo + (hi - lo) // 4 * 4
        s_dy = partial[k, 0]
        s_dy_xmu = partial[k, 1]
        for c in range(channels):
            s_dy[c] = 0.0
            s_dy_xmu[c] = 0.0
        for i in range(lo, four, 4):
            for c in range(channels):
                m = np.float64(mean[c])
                d0 = np.float64(dy[i, c])
                d1 = np.float64(dy[i + 1, c])
                d2 = np.float64(dy[i + 2, c])
                d3 = np.float64(dy[i + 3, c])
                s_dy[c] += (d0 + d1) + (d2 + d3)
                s_dy_xmu[c] += (d0 * (x[i, c] - m) + d1 * (x[i + 1, c] - m)) + (
                    d2 * (x[i + 2, c] - m) + d3 * (x[i + 3, c] - m)
                )
        for i in range(four, hi):
            for c in range(channels):
                s_dy[c] += dy[i, c]
                s_dy_xmu[c] += dy[i, c] * (x[i, c] - np.float64(mean[c]))


@kernel(
    both_floats("void(T[:, ::1], T[:, ::1], T[::1], T[::1], T[::1], T[::1], T[:, ::1])"), **_JIT
)
def input_grad_rows(dy, x, mean, a, b, d, dx):
    """Backward step 3: ``dx = a_c dy + b_c (x - mean_c) + d_c`` for [N, C]."""
    n, channels = x.shape
    for i in numba.prange(n):
        for c in range(channels):
            dx[i, c] = a[c] * dy[i, c] + b[c] * (x[i, c] - mean[c]) + d[c]


# -------------------------------------------------------------------- [N, C, L] layout
@kernel(both_floats(f"void(T[:, :, ::1], int64, {_P})"), **_JIT)
def stats_positions(x, rows_per_chunk, partial):
    """Forward step 1 for ``x`` [N, C, L]; as ``stats_rows`` (shifted by the chunk's
    first value of the channel)."""
    n, channels, length = x.shape
    chunks = partial.shape[0]
    for kc in numba.prange(chunks * channels):  # every (chunk, channel) on its own
        k = kc // channels
        c = kc % channels
        lo = k * rows_per_chunk
        hi = min(n, lo + rows_per_chunk)
        shift = np.float64(x[lo, c, 0]) if hi > lo else 0.0
        s1 = 0.0
        s2 = 0.0
        for i in range(lo, hi):
            for p in range(length):
                d = x[i, c, p] - shift
                s1 += d
                s2 += d * d
        count = (hi - lo) * length
        mean_d = s1 / count
        partial[k, 0, c] = shift + mean_d
        partial[k, 1, c] = max(s2 - count * mean_d * mean_d, 0.0)


@kernel(both_floats("void(T[:, :, ::1], T[::1], T[::1], T[::1], T[:, :, ::1])"), **_JIT)
def output_positions(x, mean_x, scale, shift, y):
    """Forward step 3 for [N, C, L]; as ``output_rows``."""
    n, channels, length = x.shape
    for ic in numba.prange(n * channels):
        i = ic // channels
        c = ic % channels
        m = mean_x[c]
        a = scale[c]
        b = shift[c]
        for p in range(length):
            y[i, c, p] = (x[i, c, p] - m) * a + b


@kernel(both_floats(f"void(T[:, :, ::1], T[:, :, ::1], T[::1], int64, {_P})"), **_JIT)
def sums_positions(dy, x, mean, rows_per_chunk, partial):
    """Backward step 1 for [N, C, L]; as ``sums_rows``."""
    n, channels, length = x.shape
    chunks = partial.shape[0]
    for kc in numba.prange(chunks * channels):
        k = kc // channels
        c = kc % channels
        m = np.float64(mean[c])
        s_dy = 0.0
        s_dy_xmu = 0.0
        for i in range(k * rows_per_chunk, min(n, (k + 1) * rows_per_chunk)):
            for p in range(length):
                s_dy += dy[i, c, p]
                s_dy_xmu += dy[i, c, p] * (x[i, c, p] - m)
        partial[k, 0, c] = s_dy
        partial[k, 1, c] = s_dy_xmu


@kernel(
    both_floats("void(T[:, :, ::1], T[:, :, ::1], T[::1], T[::1], T[::1], T[::1], T[:, :, ::1])"),
    **_JIT,
)
def input_grad_positions(dy, x, mean, a, b, d, dx):
    """Backward step 3 for [N, C, L]; as ``input_grad_rows``."""
    n, channels, length = x.shape
    for ic in numba.prange(n * channels):
        i = ic // channels
        c = ic % channels
        m = mean[c]
        ac = a[c]
        bc = b[c]
        dc = d[c]
        for p in range(length):
            dx[i, c, p] = ac * dy[i, c, p] + bc * (x[i, c, p] - m) + dc


# ------------------------------------------------- one-thread steps, shared (NumPy)
def merge_stats(partial, rows_per_chunk: int, n: int, length: int) -> tuple:
    """Forward step 2: chunk means and M2s (``partial[:, 0]``, ``partial[:, 1]``) -> the
    batch's ``mean`` and biased ``var`` ([C], float64), adding the chunks in order (Chan
    et al.)."""
    starts = np.arange(partial.shape[0]) * rows_per_chunk
    counts = ((np.minimum(n, starts + rows_per_chunk) - starts) * length)[:, None]
    mean = (counts * partial[:, 0]).sum(0) / (n * length)
    dev = partial[:, 0] - mean
    return mean, (partial[:, 1] + counts * dev * dev).sum(0) / (n * length)


def input_coefficients(partial, weight, rstd, count: int, training: bool) -> tuple:
    """Backward step 2: add the chunks' ``sum dy`` and ``sum dy (x - mean)`` in order;
    ``(dweight, dbias, a, b, d)`` with a, b, d of ``dx = a dy + b (x - mean) + d``
    (``count`` values per channel; float64). In training
    dx = w r (dy - sum(dy)/m - xhat sum(dy xhat)/m), xhat = (x - mean) r."""
    sum_dy, sum_dy_xmu = partial.sum(0)
    w, r = weight.astype(np.float64), rstd.astype(np.float64)
    b = -w * r * r * r * sum_dy_xmu / count if training else np.zeros_like(w)
    d = -w * r * sum_dy / count if training else np.zeros_like(w)
    return sum_dy_xmu * r, sum_dy, w * r, b, d


# ------------------------------------------------------------------- the Python wrappers
#: (statistics, output, sums, input gradient) kernels of each layout.
_STEPS = {
    "rows": (stats_rows, output_rows, sums_rows, input_grad_rows),
    "positions": (stats_positions, output_positions, sums_positions, input_grad_positions),
}


def _channel_layout(a, dtype):
    """``a`` [N, C, *] as the C-contiguous view its kernels loop over, and their suffix:
    [N, C] for ``*_rows`` when there are no positions, else [N, C, L] for ``*_positions``."""
    a = contiguous(a, dtype)
    n, c = a.shape[0], a.shape[1]
    length = a.size // (n * c)
    if length == 1:
        return a.reshape(n, c), "rows"
    return a.reshape(n, c, length), "positions"


def forward(x, weight, bias, running_mean, running_var, training: bool, eps: float):
    """``(y, mean, rstd, var)`` of BatchNorm of ``x`` [N, C, *] (as
    ``nn/norms/batch_norm.batch_norm_forward``): batch statistics in training, else the
    running ones."""
    dt = x.dtype
    xv, layout = _channel_layout(x, dt)
    stats, output, _, _ = [step.for_size(x.size) for step in _STEPS[layout]]
    n, c = x.shape[0], x.shape[1]
    if training:  # step 1: chunk statistics; step 2: merged in order
        per, chunks = row_chunks(n, x.size // max(1, n), c)
        partial = np.empty((chunks, 2, c))
        stats(xv, per, partial)
        mean, var = merge_stats(partial, per, n, xv.size // (n * c))
    else:
        mean = np.array(running_mean, dtype=np.float64).reshape(c)
        var = np.array(running_var, dtype=np.float64).reshape(c)
    with np.errstate(divide="ignore", invalid="ignore"):  # NaN where var overflowed
        rstd = np.where(var <= np.finfo(np.float64).max, 1.0 / np.sqrt(var + eps), np.nan)
    scale = (rstd * vector(weight, c, dt, 1.0)).astype(dt)
    y = np.empty(xv.shape, dt)
    output(xv, mean.astype(dt), scale, vector(bias, c, dt, 0.0), y)  # step 3: the output
    keep = (1, c) + (1,) * (x.ndim - 2)
    return y.reshape(x.shape), mean.astype(dt).reshape(keep), rstd.astype(dt).reshape(keep), var


def backward(dy, x, weight, mean, rstd, training: bool, need_dx: bool = True):
    """``(dx, dweight, dbias)`` for ``forward``."""
    dt = x.dtype
    xv, layout = _channel_layout(x, dt)
    dyv, _ = _channel_layout(dy, dt)
    _, _, sums, input_grad = [step.for_size(x.size) for step in _STEPS[layout]]
    n, c = x.shape[0], x.shape[1]
    per, chunks = row_chunks(n, x.size // max(1, n), c)
    mean_c = contiguous(mean, dt).reshape(c)
    partial = np.empty((chunks, 2, c))
    sums(dyv, xv, mean_c, per, partial)  # step 1: chunk sums
    dweight, dbias, *abd = input_coefficients(  # step 2: the sums added in order
        partial, vector(weight, c, dt, 1.0), contiguous(rstd, dt).reshape(c), xv.size // c,
        training,
    )  # fmt: skip
    dx = None
    if need_dx:  # step 3: dx
        dx = np.empty(xv.shape, dt)
        input_grad(dyv, xv, mean_c, *[v.astype(dt) for v in abd], dx)
        dx = dx.reshape(x.shape)
    return dx, None if weight is None else dweight.astype(dt), dbias.astype(dt)
