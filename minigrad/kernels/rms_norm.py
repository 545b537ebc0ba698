"""RMSNorm kernels: scale each row of a C-contiguous ``[rows, n]`` array by its root mean square.

    rstd_i = 1 / sqrt((1/n) sum_j x_ij^2 + eps)        y_ij = x_ij rstd_i w_j

Backward, with xhat_ij = x_ij rstd_i and g_ij = dy_ij w_j:

    dx_ij = rstd_i (g_ij - xhat_ij (1/n) sum_k g_ik xhat_ik)        dw_j = sum_i dy_ij xhat_ij

The layout, the chunked float64 sums for dweight, the fastmath and error-model choices
are those of ``layer_norm.py`` (see its notes). There is no mean, so one pass gives the
statistic and no offset can cancel: a sum of squares has no catastrophic cancellation.
An overflowing mean square gives rstd = 0 and zeros, as PyTorch's RMSNorm.
"""

import math

import numba
import numpy as np

from minigrad.kernels.jit import kernel
from minigrad.kernels.runtime import contiguous, parallel, row_chunks, vector

FASTMATH = {"reassoc", "contract"}
_JIT = dict(fastmath=FASTMATH, error_model="numpy", cache=True, nogil=True)
BLOCK_ROWS = 4  # rows whose dweight terms are added in x's dtype (see _backward_chunk)
_PAR = dict(_JIT, parallel=True)
_FORWARD = [
    f"void({t}[:, ::1], {t}[::1], float64, {t}[:, ::1], {t}[::1])" for t in ("float32", "float64")
]
_BACKWARD = [
    f"void({t}[:, ::1], {t}[:, ::1], {t}[::1], {t}[::1], int64, boolean, {t}[:, ::1], "
    f"float64[:, ::1], {t}[::1])"
    for t in ("float32", "float64")
]


@numba.njit(inline="always", **_JIT)  # inlined: a call per row cost up to 2x
def _normalize_row(x, weight, eps, y, rstd, i):
    """Row i: its rstd, then its output."""
    n = x.shape[1]
    sum_sq = 0.0
    for j in range(n):
        sum_sq += x[i, j] * np.float64(x[i, j])
    rstd[i] = 1.0 / np.sqrt(sum_sq / n + eps)
    r = rstd[i]  # in x's dtype
    for j in range(n):
        y[i, j] = x[i, j] * r * weight[j]


@numba.njit(inline="always", **_JIT)  # inlined: a call per row cost up to 2x
def _backward_chunk(dy, x, weight, rstd, rows_per_chunk, need_dx, dx, partial, k):
    """Chunk k of the rows: their dx, and their sum of dweight: one pass forms the row's
    sum (only dx needs it) and adds its dweight terms, a second writes dx; the terms are
    added in x's dtype over blocks of ``BLOCK_ROWS`` rows and the blocks into float64 (as
    ``layer_norm._backward_chunk``)."""
    rows, n = x.shape
    dw = partial[k]
    dw[:] = 0.0
    block_w = np.zeros(n, x.dtype)
    lo = k * rows_per_chunk
    hi = min(rows, lo + rows_per_chunk)
    for i in range(lo, hi):
        r = rstd[i]
        sum_g_xhat = 0.0
        for j in range(n):
            xhat = x[i, j] * r
            block_w[j] += dy[i, j] * xhat
            sum_g_xhat += dy[i, j] * weight[j] * xhat
        if need_dx:
            c2 = x.dtype.type(sum_g_xhat / n)
            for j in range(n):
                xhat = x[i, j] * r
                dx[i, j] = r * (dy[i, j] * weight[j] - xhat * c2)
        if (i - lo) % BLOCK_ROWS == BLOCK_ROWS - 1 or i == hi - 1:
            for j in range(n):
                dw[j] += block_w[j]
                block_w[j] = 0.0


@numba.njit(**_JIT)
def _add_chunks(partial, dweight):
    """The chunks' sums added in one fixed order (chunk 0 first), whichever threads
    computed them; chunk by chunk, as in ``layer_norm._add_chunks``."""
    total = np.zeros(partial.shape[1])
    for k in range(partial.shape[0]):
        for j in range(partial.shape[1]):
            total[j] += partial[k, j]
    for j in range(partial.shape[1]):
        dweight[j] = total[j]


@kernel(_FORWARD, **_PAR)
def rms_norm_forward(x, weight, eps, y, rstd):
    """Write ``y`` ([rows, n]) and each row's ``rstd`` ([rows])."""
    for i in numba.prange(x.shape[0]):
        _normalize_row(x, weight, eps, y, rstd, i)


@kernel(_FORWARD, **_JIT)
def rms_norm_forward_serial(x, weight, eps, y, rstd):
    """``rms_norm_forward`` on the calling thread (small inputs)."""
    for i in range(x.shape[0]):
        _normalize_row(x, weight, eps, y, rstd, i)


@kernel(_BACKWARD, **_PAR)
def rms_norm_backward(dy, x, weight, rstd, rows_per_chunk, need_dx, dx, partial, dweight):
    """Write ``dx`` ([rows, n], if ``need_dx``) and ``dweight`` ([n]): the chunks' sums
    (``partial`` [chunks, n], float64, scratch) added in order on the calling thread."""
    for k in numba.prange(partial.shape[0]):
        _backward_chunk(dy, x, weight, rstd, rows_per_chunk, need_dx, dx, partial, k)
    _add_chunks(partial, dweight)


@kernel(_BACKWARD, **_JIT)
def rms_norm_backward_serial(dy, x, weight, rstd, rows_per_chunk, need_dx, dx, partial, dweight):
    """``rms_norm_backward`` on the calling thread (the same chunks, the same bits)."""
    for k in range(partial.shape[0]):
        _backward_chunk(dy, x, weight, rstd, rows_per_chunk, need_dx, dx, partial, k)
    _add_chunks(partial, dweight)


# ------------------------------------------------------------------- the Python wrappers
def forward(x, weight, normalized_ndim: int, eps: float):
    """``(y, None, rstd)`` of RMSNorm over the last ``normalized_ndim`` axes."""
    lead = x.shape[: x.ndim - normalized_ndim]
    rows, n = math.prod(lead), math.prod(x.shape[x.ndim - normalized_ndim :])
    dt = x.dtype
    y, rstd = np.empty((rows, n), dt), np.empty(rows, dt)
    kernel = rms_norm_forward if parallel(x.size) else rms_norm_forward_serial
    kernel(contiguous(x, dt).reshape(rows, n), vector(weight, n, dt, 1.0), eps, y, rstd)
    return y.reshape(x.shape), None, rstd.reshape(lead + (1,) * normalized_ndim)


def backward(dy, x, weight, mean, rstd, normalized_ndim: int, need_dx: bool = True):
    """``(dx, dweight, None)`` for ``forward`` (``mean`` is unused)."""
    norm_shape = x.shape[x.ndim - normalized_ndim :]
    n = math.prod(norm_shape)
    rows = x.size // n
    dt = x.dtype
    per, chunks = row_chunks(rows, n, n)
    dx = np.empty((rows, n) if need_dx else (0, 0), dt)
    partial, dweight = np.empty((chunks, n)), np.empty(n, dt)
    kernel = rms_norm_backward if parallel(x.size) else rms_norm_backward_serial
    kernel(
        contiguous(dy, dt).reshape(rows, n), contiguous(x, dt).reshape(rows, n),
        vector(weight, n, dt, 1.0), contiguous(rstd, dt).reshape(rows), per, need_dx, dx, partial,
        dweight,
    )  # fmt: skip
    return (
        dx.reshape(x.shape) if need_dx else None,
        None if weight is None else dweight.reshape(norm_shape),
        None,
    )
