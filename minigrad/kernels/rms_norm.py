"""RMSNorm kernels: scale each row of a C-contiguous ``[rows, n]`` array by its root mean square.

    rstd_i = 1 / sqrt((1/n) sum_j x_ij^2 + eps)        y_ij = x_ij rstd_i w_j

Backward, with xhat_ij = x_ij rstd_i and g_ij = dy_ij w_j:

    dx_ij = rstd_i (g_ij - xhat_ij (1/n) sum_k g_ik xhat_ik)        dw_j = sum_i dy_ij xhat_ij

The layout, the chunked float64 sums for dweight and the fastmath choice are those of
``layer_norm.py`` (see its notes). There is no mean, so one pass gives the statistic
and no offset can cancel: a sum of squares has no catastrophic cancellation.
"""

import numba
import numpy as np

FASTMATH = {"reassoc", "contract"}


@numba.njit(parallel=True, fastmath=FASTMATH, cache=True)
def rms_norm_forward(x, weight, eps, y, rstd):
    """Write ``y`` ([rows, n]) and each row's ``rstd`` ([rows])."""
    rows, n = x.shape
    for i in numba.prange(rows):
        sum_sq = 0.0
        for j in range(n):
            sum_sq += x[i, j] * x[i, j]
        rstd[i] = 1.0 / np.sqrt(sum_sq / n + eps)
        r = rstd[i]  # in x's dtype
        for j in range(n):
            y[i, j] = x[i, j] * r * weight[j]


@numba.njit(parallel=True, fastmath=FASTMATH, cache=True)
def rms_norm_backward(dy, x, weight, rstd, rows_per_chunk, need_dx, dx, partial):
    """Write ``dx`` ([rows, n], if ``need_dx``) and the chunk sums of dweight into
    ``partial`` ([chunks, n], float64); the caller adds the chunks."""
    rows, n = x.shape
    chunks = partial.shape[0]
    for k in numba.prange(chunks):
        dw = partial[k]
        for j in range(n):
            dw[j] = 0.0
        for i in range(k * rows_per_chunk, min(rows, (k + 1) * rows_per_chunk)):
            r = rstd[i]
            sum_g_xhat = 0.0
            for j in range(n):
                xhat = x[i, j] * r
                sum_g_xhat += dy[i, j] * weight[j] * xhat
                dw[j] += dy[i, j] * xhat
            if need_dx:
                c2 = x.dtype.type(sum_g_xhat / n)
                for j in range(n):
                    dx[i, j] = r * (dy[i, j] * weight[j] - x[i, j] * r * c2)
