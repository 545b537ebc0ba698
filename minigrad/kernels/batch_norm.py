"""BatchNorm kernels: per-channel statistics over the batch (and the positions).

Two layouts, one set of kernels each, so that a model compiles only the set it uses:

- ``*_rows`` take ``[N, C]``: a channel is a column. The inner loops run along the
  channels (contiguous, vectorized) and the per-channel sums live in a float64 row.
- ``*_positions`` take ``[N, C, L]`` with ``L > 1`` (the length of ``[N, C, L]``, or
  ``H * W`` of ``[N, C, H, W]``): the inner loops run along the ``L`` contiguous
  positions of one (example, channel) pair.

A channel's ``N * L`` numbers are not contiguous, so the work is split into a fixed
number of chunks of examples (``rows_per_chunk`` examples each, chosen from the shape
only, never from the thread count):

- ``stats``: per chunk and channel, the chunk's mean and sum of squared deviations
  from it (two passes over a chunk that is still in cache). The wrapper merges the
  chunks in order with Chan's formula ``M2 = sum_k M2_k + n_k (mean_k - mean)^2``,
  which stays accurate when the data sit on a large offset and is bit-identical run
  to run.
- ``apply``: ``y = (x - mean_c) scale_c + shift_c`` (scale = w rstd, shift = b).
- ``backward_sums``: per chunk and channel, ``sum dy`` and ``sum dy (x - mean_c)``,
  merged in order by the wrapper. ``mean`` is float64 here and each term is formed in
  float64: in float32, ``x - mean_c`` rounds the same way for every x of similar size
  (the same mean is subtracted all along the channel), and those rounding errors add
  up instead of cancelling (measured: 6e-6 relative error in dweight over 8192 rows,
  against 3e-7 in float64).
- ``backward_input``: ``dx = a_c dy + b_c (x - mean_c) + d_c`` with per-channel
  coefficients from those sums (training), or ``b = d = 0`` (eval).

The backward needs two kernels because every dx depends on sums over the whole batch.
In the row layout the sums take four rows per update of the float64 accumulators (a
third less time than one row at a time: fewer loads and stores of the sums). The
fastmath choice is that of ``layer_norm.py`` (see its notes).
"""

import numba
import numpy as np

FASTMATH = {"reassoc", "contract"}


# ----------------------------------------------------------------------- [N, C] layout
@numba.njit(parallel=True, fastmath=FASTMATH, cache=True)
def stats_rows(x, rows_per_chunk, mean_part, m2_part):
    """``x`` [N, C]: per chunk k and channel c, ``mean_part[k, c]`` and ``m2_part[k, c]``."""
    n, channels = x.shape
    chunks = mean_part.shape[0]
    for k in numba.prange(chunks):
        lo = k * rows_per_chunk
        hi = min(n, lo + rows_per_chunk)
        four = lo + (hi - lo) // 4 * 4
        mean = mean_part[k]
        m2 = m2_part[k]
        for c in range(channels):
            mean[c] = 0.0
            m2[c] = 0.0
        for i in range(lo, four, 4):
            for c in range(channels):
                s01 = np.float64(x[i, c]) + np.float64(x[i + 1, c])
                s23 = np.float64(x[i + 2, c]) + np.float64(x[i + 3, c])
                mean[c] += s01 + s23
        for i in range(four, hi):
            for c in range(channels):
                mean[c] += x[i, c]
        for c in range(channels):
            mean[c] /= hi - lo
        for i in range(lo, four, 4):
            for c in range(channels):
                d0 = x[i, c] - mean[c]
                d1 = x[i + 1, c] - mean[c]
                d2 = x[i + 2, c] - mean[c]
                d3 = x[i + 3, c] - mean[c]
                m2[c] += (d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3)
        for i in range(four, hi):
            for c in range(channels):
                d = x[i, c] - mean[c]
                m2[c] += d * d


@numba.njit(parallel=True, fastmath=FASTMATH, cache=True)
def apply_rows(x, mean, scale, shift, y):
    """``y[i, c] = (x[i, c] - mean[c]) * scale[c] + shift[c]`` (all in x's dtype)."""
    n, channels = x.shape
    for i in numba.prange(n):
        for c in range(channels):
            y[i, c] = (x[i, c] - mean[c]) * scale[c] + shift[c]


@numba.njit(parallel=True, fastmath=FASTMATH, cache=True)
def backward_sums_rows(dy, x, mean, rows_per_chunk, sum_dy_part, sum_dy_xmu_part):
    """Per chunk k and channel c: ``sum dy`` and ``sum dy (x - mean_c)`` (float64)."""
    n, channels = x.shape
    chunks = sum_dy_part.shape[0]
    for k in numba.prange(chunks):
        lo = k * rows_per_chunk
        hi = min(n, lo + rows_per_chunk)
        four = lo + (hi - lo) // 4 * 4
        s_dy = sum_dy_part[k]
        s_dy_xmu = sum_dy_xmu_part[k]
        for c in range(channels):
            s_dy[c] = 0.0
            s_dy_xmu[c] = 0.0
        for i in range(lo, four, 4):
            for c in range(channels):
                d0 = np.float64(dy[i, c])
                d1 = np.float64(dy[i + 1, c])
                d2 = np.float64(dy[i + 2, c])
                d3 = np.float64(dy[i + 3, c])
                s_dy[c] += (d0 + d1) + (d2 + d3)
                s_dy_xmu[c] += (d0 * (x[i, c] - mean[c]) + d1 * (x[i + 1, c] - mean[c])) + (
                    d2 * (x[i + 2, c] - mean[c]) + d3 * (x[i + 3, c] - mean[c])
                )
        for i in range(four, hi):
            for c in range(channels):
                s_dy[c] += dy[i, c]
                s_dy_xmu[c] += dy[i, c] * (x[i, c] - mean[c])


@numba.njit(parallel=True, fastmath=FASTMATH, cache=True)
def backward_input_rows(dy, x, mean, a, b, d, dx):
    """``dx[i, c] = a[c] dy[i, c] + b[c] (x[i, c] - mean[c]) + d[c]``."""
    n, channels = x.shape
    for i in numba.prange(n):
        for c in range(channels):
            dx[i, c] = a[c] * dy[i, c] + b[c] * (x[i, c] - mean[c]) + d[c]


# -------------------------------------------------------------------- [N, C, L] layout
@numba.njit(parallel=True, fastmath=FASTMATH, cache=True)
def stats_positions(x, rows_per_chunk, mean_part, m2_part):
    """``x`` [N, C, L]: per chunk k and channel c, ``mean_part[k, c]``, ``m2_part[k, c]``."""
    n, channels, length = x.shape
    chunks = mean_part.shape[0]
    for kc in numba.prange(chunks * channels):  # every (chunk, channel) pair on its own
        k = kc // channels
        c = kc % channels
        lo = k * rows_per_chunk
        hi = min(n, lo + rows_per_chunk)
        total = 0.0
        for i in range(lo, hi):
            for p in range(length):
                total += x[i, c, p]
        m = total / ((hi - lo) * length)
        sq = 0.0
        for i in range(lo, hi):
            for p in range(length):
                d = x[i, c, p] - m
                sq += d * d
        mean_part[k, c] = m
        m2_part[k, c] = sq


@numba.njit(parallel=True, fastmath=FASTMATH, cache=True)
def apply_positions(x, mean, scale, shift, y):
    """``y[i, c, p] = (x[i, c, p] - mean[c]) * scale[c] + shift[c]`` (all in x's dtype)."""
    n, channels, length = x.shape
    for ic in numba.prange(n * channels):
        i = ic // channels
        c = ic % channels
        m = mean[c]
        a = scale[c]
        b = shift[c]
        for p in range(length):
            y[i, c, p] = (x[i, c, p] - m) * a + b


@numba.njit(parallel=True, fastmath=FASTMATH, cache=True)
def backward_sums_positions(dy, x, mean, rows_per_chunk, sum_dy_part, sum_dy_xmu_part):
    """Per chunk k and channel c: ``sum dy`` and ``sum dy (x - mean_c)`` (float64)."""
    n, channels, length = x.shape
    chunks = sum_dy_part.shape[0]
    for kc in numba.prange(chunks * channels):
        k = kc // channels
        c = kc % channels
        m = mean[c]
        s_dy = 0.0
        s_dy_xmu = 0.0
        for i in range(k * rows_per_chunk, min(n, (k + 1) * rows_per_chunk)):
            for p in range(length):
                s_dy += dy[i, c, p]
                s_dy_xmu += dy[i, c, p] * (x[i, c, p] - m)
        sum_dy_part[k, c] = s_dy
        sum_dy_xmu_part[k, c] = s_dy_xmu


@numba.njit(parallel=True, fastmath=FASTMATH, cache=True)
def backward_input_positions(dy, x, mean, a, b, d, dx):
    """``dx[i, c, p] = a[c] dy[i, c, p] + b[c] (x[i, c, p] - mean[c]) + d[c]``."""
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
