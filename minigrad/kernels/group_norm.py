"""GroupNorm kernels on a C-contiguous ``[rows, cg, s]`` view of an ``[N, C, *]`` input.

Row ``i`` is group ``g = i % G`` of example ``i // G``: its ``cg = C / G`` channels times
``s`` positions (the product of the trailing dims, 1 for an ``[N, C]`` input), all
contiguous. Channel ``c`` of row ``i`` is ``(i % G) * cg + c`` in the affine parameters.

    mean_i, rstd_i over the row's cg * s numbers      y = (x - mean_i) rstd_i w_ch + b_ch

Backward, with xhat = (x - mean_i) rstd_i, g = dy w_ch and K = cg * s:

    dx = rstd_i (g - (1/K) sum_row g - xhat (1/K) sum_row g xhat)
    dw_ch = sum over examples and positions of dy xhat        db_ch = sum of dy

The statistics (in float64: finite for any finite group, NaN on a constant row with
eps=0), the chunked float64 sums and the fastmath choice are those of
``layer_norm.py`` (see its notes). The backward first sums dy and dy * xhat per channel
of the row (two running sums over its ``s`` positions), which gives both the row's
sums (weighted by w_ch) and that chunk's share of dweight and dbias.
"""

import numba
import numpy as np

from minigrad.kernels.jit import both_floats, kernel
from minigrad.kernels.layout import contiguous, row_chunks, vector

_JIT = dict(fastmath={"reassoc", "contract"}, error_model="numpy", cache=True, nogil=True)
_FORWARD = both_floats(
    "void(T[:, :, ::1], T[::1], T[::1], int64, float64, T[:, :, ::1], T[::1], T[::1])"
)
_BACKWARD = both_floats(
    "void(T[:, :, ::1], T[:, :, ::1], T[::1], int64, T[::1], T[::1], int64, boolean, "
    "T[:, :, ::1], float64[:, :, ::1])"
)


@kernel(_FORWARD, parallel=True, **_JIT)
def group_norm_forward(x, weight, bias, groups, eps, y, mean, rstd):
    """Write ``y`` ([rows, cg, s]) and each row's ``mean`` and ``rstd`` ([rows])."""
    for i in numba.prange(x.shape[0]):
        _, cg, s = x.shape
        n = cg * s
        flat = x[i].reshape(n)
        shift = np.float64(flat[0]) if n else 0.0  # one shifted pass, as layer_norm.py
        sum_d = 0.0
        sum_d2 = 0.0
        for j in range(n):
            d = flat[j] - shift
            sum_d += d
            sum_d2 += d * d
        mean_d = sum_d / n
        var = max(sum_d2 / n - mean_d * mean_d, 0.0)
        mean[i] = shift + mean_d
        rstd[i] = 1.0 / np.sqrt(var + eps) if np.isfinite(var) else np.nan  # as layer_norm
        m = mean[i]  # read back in x's dtype
        r = rstd[i]
        first = (i % groups) * cg
        for c in range(cg):
            scale = r * weight[first + c]
            shift = bias[first + c]
            for p in range(s):
                y[i, c, p] = (x[i, c, p] - m) * scale + shift


@kernel(_BACKWARD, parallel=True, **_JIT)
def group_norm_backward(dy, x, weight, groups, mean, rstd, rows_per_chunk, need_dx, dx, partial):
    """Write ``dx`` ([rows, cg, s], if ``need_dx``) and the chunk sums of dweight and
    dbias into ``partial`` ([chunks, 2, C], float64; chunk k covers rows
    [k * rows_per_chunk, ...))."""
    for k in numba.prange(partial.shape[0]):
        rows, cg, s = x.shape
        n = cg * s
        channels = partial.shape[2]
        dw = partial[k, 0]
        db = partial[k, 1]
        for c in range(channels):
            dw[c] = 0.0
            db[c] = 0.0
        for i in range(k * rows_per_chunk, min(rows, (k + 1) * rows_per_chunk)):
            m = mean[i]
            r = rstd[i]
            first = (i % groups) * cg
            sum_g = 0.0
            sum_g_xhat = 0.0
            for c in range(cg):
                sum_dy = 0.0
                sum_dy_xhat = 0.0
                for p in range(s):
                    sum_dy += dy[i, c, p]
                    sum_dy_xhat += dy[i, c, p] * (x[i, c, p] - m) * r
                w = weight[first + c]
                sum_g += w * sum_dy
                sum_g_xhat += w * sum_dy_xhat
                dw[first + c] += sum_dy_xhat
                db[first + c] += sum_dy
            if need_dx:
                c1 = x.dtype.type(sum_g / n)
                c2 = x.dtype.type(sum_g_xhat / n)
                for c in range(cg):
                    w = weight[first + c]
                    for p in range(s):
                        xhat = (x[i, c, p] - m) * r
                        dx[i, c, p] = r * (dy[i, c, p] * w - c1 - xhat * c2)


# ------------------------------------------------------------------- the Python wrappers
def forward(x, weight, bias, num_groups: int, eps: float):
    """``(y, mean, rstd)`` of GroupNorm of ``x`` [N, C, *], ``mean`` / ``rstd`` [N, G, 1]."""
    n, c = x.shape[0], x.shape[1]
    rows, dt = n * num_groups, x.dtype
    x3 = contiguous(x, dt).reshape(rows, c // num_groups, -1)
    y = np.empty(x3.shape, dt)
    mean, rstd = np.empty(rows, dt), np.empty(rows, dt)
    w, b = vector(weight, c, dt, 1.0), vector(bias, c, dt, 0.0)
    group_norm_forward.for_size(x.size)(x3, w, b, num_groups, eps, y, mean, rstd)
    keep = (n, num_groups, 1)
    return y.reshape(x.shape), mean.reshape(keep), rstd.reshape(keep)


def backward(dy, x, weight, mean, rstd, num_groups: int, need_dx: bool = True):
    """``(dx, dweight, dbias)`` for ``forward`` (dweight is None without a weight)."""
    n, c = x.shape[0], x.shape[1]
    rows, dt = n * num_groups, x.dtype
    x3 = contiguous(x, dt).reshape(rows, c // num_groups, -1)
    per, chunks = row_chunks(rows, x.size // max(1, rows), c)
    dx = np.empty(x3.shape if need_dx else (0, 0, 0), dt)
    partial = np.empty((chunks, 2, c))
    group_norm_backward.for_size(x.size)(
        contiguous(dy, dt).reshape(x3.shape), x3, vector(weight, c, dt, 1.0), num_groups,
        contiguous(mean, dt).reshape(rows), contiguous(rstd, dt).reshape(rows), per, need_dx, dx,
        partial,
    )  # fmt: skip
    dweight, dbias = partial.sum(0).astype(dt)  # the chunks in order, in float64
    return dx.reshape(x.shape) if need_dx else None, None if weight is None else dweight, dbias
