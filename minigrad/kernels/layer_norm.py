"""LayerNorm kernels: normalize each row of a C-contiguous ``[rows, n]`` array.

    mean_i = (1/n) sum_j x_ij          rstd_i = 1 / sqrt((1/n) sum_j (x_ij - mean_i)^2 + eps)
    y_ij   = (x_ij - mean_i) rstd_i w_j + b_j

Backward, with xhat_ij = (x_ij - mean_i) rstd_i and g_ij = dy_ij w_j:

    dx_ij = rstd_i (g_ij - (1/n) sum_k g_ik - xhat_ij (1/n) sum_k g_ik xhat_ik)
    dw_j  = sum_i dy_ij xhat_ij        db_j = sum_i dy_ij

Design notes (float32; the measurements are in ``docs/benchmarks.md``; the fastmath,
chunk and serial-twin conventions are those of ``kernels/__init__.py``):
- Rows are independent: the forward runs ``prange`` over rows. A row stays in L1/L2
  between its two passes (the statistics, then the output).
- Statistics: one pass sums ``d = x - x_i0`` and ``d*d`` in float64 (shifted by the row's
  first value), then ``mean = x_i0 + mean(d)``, ``var = mean(d^2) - mean(d)^2``. No
  sample is more than ``sqrt(n)`` standard deviations from its row's mean, so the
  cancellation loses at most a factor ``n`` of float64's precision: far below float32's.
  The float64 sums cannot overflow for float32 input, so a row near 1e30 is normalized
  (float32 sums of its squares would overflow: PyTorch gives NaN there); a float64 row
  whose variance overflows (near 1e300) gives NaN, as the reference and PyTorch, and so
  does ``eps=0`` on a constant row (``error_model="numpy"``: 1/0 is inf).
- dweight / dbias: each chunk of rows sums into its own float64 row of ``partial``
  (``BLOCK_ROWS`` rows at a time in x's dtype first, see ``_rows``).
"""

import math

import numba
import numpy as np

from minigrad.kernels.jit import both_floats, kernel
from minigrad.kernels.layout import backward_rows, contiguous, vector

_JIT = dict(fastmath={"reassoc", "contract"}, error_model="numpy", cache=True, nogil=True)
_FORWARD = both_floats("void(T[:, ::1], T[::1], T[::1], float64, T[:, ::1], T[::1], T[::1])")
_BACKWARD = both_floats(
    "void(T[:, ::1], T[:, ::1], T[::1], T[::1], T[::1], int64, boolean, T[:, ::1], "
    "float64[:, :, ::1])"
)
BLOCK_ROWS = 4  # rows whose dweight / dbias terms are added in x's dtype (see below)


@numba.njit(inline="always", **_JIT)
def _rows(dy, x, weight, mean, rstd, lo, hi, need_dx, dx, dw, db):
    """Rows ``lo .. hi - 1``, one at a time: their dx, their terms added to ``dw``, ``db``.

    One pass over x and dy forms the row's two sums (only dx needs them) and adds its
    dweight and dbias terms; a second pass, the row still in cache, writes dx. The terms
    are added in x's dtype over blocks of ``BLOCK_ROWS`` rows, and the blocks into
    float64: each float32 sum has only ``BLOCK_ROWS`` terms, and wide rows keep their
    running sums in half the cache.
    """
    n = x.shape[1]
    block_w = np.zeros(n, x.dtype)
    block_b = np.zeros(n, x.dtype)
    for i in range(lo, hi):
        m = mean[i]
        r = rstd[i]
        sum_g = 0.0
        sum_g_xhat = 0.0
        for j in range(n):
            xhat = (x[i, j] - m) * r
            g = dy[i, j] * weight[j]
            sum_g += g
            sum_g_xhat += g * xhat
            block_w[j] += dy[i, j] * xhat
            block_b[j] += dy[i, j]
        if need_dx:
            c1 = x.dtype.type(sum_g / n)
            c2 = x.dtype.type(sum_g_xhat / n)
            for j in range(n):
                xhat = (x[i, j] - m) * r
                dx[i, j] = r * (dy[i, j] * weight[j] - c1 - xhat * c2)
        if (i - lo) % BLOCK_ROWS == BLOCK_ROWS - 1 or i == hi - 1:
            for j in range(n):
                dw[j] += block_w[j]
                db[j] += block_b[j]
                block_w[j] = 0.0
                block_b[j] = 0.0


@kernel(_FORWARD, parallel=True, **_JIT)
def layer_norm_forward(x, weight, bias, eps, y, mean, rstd):
    """Write ``y`` ([rows, n]) and each row's ``mean`` and ``rstd`` ([rows])."""
    for i in numba.prange(x.shape[0]):
        n = x.shape[1]
        shift = np.float64(x[i, 0]) if n else 0.0
        sum_d = 0.0
        sum_d2 = 0.0
        for j in range(n):
            d = x[i, j] - shift
            sum_d += d
            sum_d2 += d * d
        mean_d = sum_d / n
        var = max(sum_d2 / n - mean_d * mean_d, 0.0)
        mean[i] = shift + mean_d
        # float64 sums: finite for any float32 row; a float64 row whose variance overflows
        # gets NaN (as PyTorch), not rstd = 0 and plausible zeros
        rstd[i] = 1.0 / np.sqrt(var + eps) if np.isfinite(var) else np.nan
        m = mean[i]  # read back: now in x's dtype, so the loop below stays in that dtype
        r = rstd[i]
        for j in range(n):
            y[i, j] = (x[i, j] - m) * r * weight[j] + bias[j]


@kernel(_BACKWARD, parallel=True, **_JIT)
def layer_norm_backward(dy, x, weight, mean, rstd, rows_per_chunk, need_dx, dx, partial):
    """Write ``dx`` ([rows, n], if ``need_dx``); chunk k sums the dweight and dbias terms
    of rows [k * rows_per_chunk, (k + 1) * rows_per_chunk) into ``partial[k, 0]`` and
    ``partial[k, 1]`` (``partial`` [chunks, 2, n], float64)."""
    for k in numba.prange(partial.shape[0]):
        rows = x.shape[0]
        dw = partial[k, 0]
        db = partial[k, 1]
        dw[:] = 0.0
        db[:] = 0.0
        lo = k * rows_per_chunk
        hi = min(rows, lo + rows_per_chunk)
        _rows(dy, x, weight, mean, rstd, lo, hi, need_dx, dx, dw, db)


# ------------------------------------------------------------------- the Python wrappers
def forward(x, weight, bias, normalized_ndim: int, eps: float):
    """``(y, mean, rstd)`` of LayerNorm over the last ``normalized_ndim`` axes of a
    float32 / float64 array (as ``nn/norms/layer_norm.layer_norm_forward``)."""
    lead = x.shape[: x.ndim - normalized_ndim]
    rows = math.prod(lead)
    n = x.size // rows if rows else math.prod(x.shape[x.ndim - normalized_ndim :])
    dt = x.dtype
    x2 = contiguous(x, dt).reshape(rows, n)
    y = np.empty((rows, n), dt)
    mean, rstd = np.empty(rows, dt), np.empty(rows, dt)
    w, b = vector(weight, n, dt, 1.0), vector(bias, n, dt, 0.0)
    layer_norm_forward.for_size(x.size)(x2, w, b, eps, y, mean, rstd)
    keep = lead + (1,) * normalized_ndim
    return y.reshape(x.shape), mean.reshape(keep), rstd.reshape(keep)


def backward(dy, x, weight, mean, rstd, normalized_ndim: int, need_dx: bool = True):
    """``(dx, dweight, dbias)`` for ``forward`` (dweight is None without a weight)."""
    norm_shape, dy2, x2, per, dx, partial = backward_rows(dy, x, normalized_ndim, need_dx, 2)
    (rows, n), dt = x2.shape, x.dtype
    layer_norm_backward.for_size(x.size)(
        dy2, x2, vector(weight, n, dt, 1.0), contiguous(mean, dt).reshape(rows),
        contiguous(rstd, dt).reshape(rows), per, need_dx, dx, partial,
    )  # fmt: skip
    dweight, dbias = partial.sum(0).astype(dt)  # the chunks in order, in float64
    return (
        dx.reshape(x.shape) if need_dx else None,
        None if weight is None else dweight.reshape(norm_shape),
        dbias.reshape(norm_shape),
    )
