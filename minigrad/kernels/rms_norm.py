"""RMSNorm kernels: scale each row of a C-contiguous ``[rows, n]`` array by its root mean square.

    rstd_i = 1 / sqrt((1/n) sum_j x_ij^2 + eps)        y_ij = x_ij rstd_i w_j

Backward, with xhat_ij = x_ij rstd_i and g_ij = dy_ij w_j:

    dx_ij = rstd_i (g_ij - xhat_ij (1/n) sum_k g_ik xhat_ik)        dw_j = sum_i dy_ij xhat_ij

The layout, the chunked float64 sums for dweight, the fastmath and error-model choices
are those of ``layer_norm.py`` (see its notes). There is no mean, so one pass gives the
statistic and no offset can cancel: a sum of squares has no catastrophic cancellation.
The squares are added in float64, so a float32 row near 1e30 is scaled to its RMS
(PyTorch's float32 sum overflows there, and it gives zeros).
"""

import math

import numba
import numpy as np

from minigrad.kernels.jit import both_floats, kernel
from minigrad.kernels.layout import backward_rows, contiguous, vector

_JIT = dict(fastmath={"reassoc", "contract"}, error_model="numpy", cache=True, nogil=True)
BLOCK_ROWS = 4  # rows whose dweight terms are added in x's dtype (see rms_norm_backward)
_FORWARD = both_floats("void(T[:, ::1], T[::1], float64, T[:, ::1], T[::1])")
_BACKWARD = both_floats(
    "void(T[:, ::1], T[:, ::1], T[::1], T[::1], int64, boolean, T[:, ::1], float64[:, :, ::1])"
)


@kernel(_FORWARD, parallel=True, **_JIT)
def rms_norm_forward(x, weight, eps, y, rstd):
    """Write ``y`` ([rows, n]) and each row's ``rstd`` ([rows])."""
    for i in numba.prange(x.shape[0]):
        n = x.shape[1]
        sum_sq = 0.0
        for j in range(n):
            sum_sq += x[i, j] * np.float64(x[i, j])
        rstd[i] = 1.0 / np.sqrt(sum_sq / n + eps)
        r = rstd[i]  # in x's dtype
        for j in range(n):
            y[i, j] = x[i, j] * r * weight[j]


@kernel(_BACKWARD, parallel=True, **_JIT)
def rms_norm_backward(dy, x, weight, rstd, rows_per_chunk, need_dx, dx, partial):
    """Write ``dx`` ([rows, n], if ``need_dx``) and chunk k's sum of the dweight terms
    into ``partial[k, 0]`` (``partial`` [chunks, 1, n], float64). One pass forms a row's
    sum (only dx needs it) and adds its dweight terms, a second writes dx; the terms are
    added in x's dtype over blocks of ``BLOCK_ROWS`` rows and the blocks into float64 (as
    ``layer_norm._rows``)."""
    for k in numba.prange(partial.shape[0]):
        rows, n = x.shape
        dw = partial[k, 0]
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


# ------------------------------------------------------------------- the Python wrappers
def forward(x, weight, normalized_ndim: int, eps: float):
    """``(y, None, rstd)`` of RMSNorm over the last ``normalized_ndim`` axes."""
    lead = x.shape[: x.ndim - normalized_ndim]
    rows, n = math.prod(lead), math.prod(x.shape[x.ndim - normalized_ndim :])
    dt = x.dtype
    y, rstd = np.empty((rows, n), dt), np.empty(rows, dt)
    x2, w = contiguous(x, dt).reshape(rows, n), vector(weight, n, dt, 1.0)
    rms_norm_forward.for_size(x.size)(x2, w, eps, y, rstd)
    return y.reshape(x.shape), None, rstd.reshape(lead + (1,) * normalized_ndim)


def backward(dy, x, weight, mean, rstd, normalized_ndim: int, need_dx: bool = True):
    """``(dx, dweight, None)`` for ``forward`` (``mean`` is unused)."""
    norm_shape, dy2, x2, per, dx, partial = backward_rows(dy, x, normalized_ndim, need_dx, 1)
    (rows, n), dt = x2.shape, x.dtype
    rms_norm_backward.for_size(x.size)(
        dy2, x2, vector(weight, n, dt, 1.0), contiguous(rstd, dt).reshape(rows), per, need_dx, dx,
        partial,
    )  # fmt: skip
    dweight = partial[:, 0].sum(0).astype(dt)  # the chunks in order, in float64
    return (
        dx.reshape(x.shape) if need_dx else None,
        None if weight is None else dweight.reshape(norm_shape),
        None,
    )
