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
  A row whose sum of squares overflows x's dtype gives NaN, as the reference (see
  ``nn/norms/common.standardize``); so does ``eps=0`` on a constant row
  (``error_model="numpy"``: 1/0 is inf, not ZeroDivisionError).
- dweight / dbias: each chunk of rows sums into its own float64 row of ``partial``
  (``BLOCK_ROWS`` rows at a time in x's dtype first, see ``_rows``).
- Rows of ``WIDE_ROWS`` values or more take the backward four rows at a time
  (``_wide_rows``): their block sums do not fit in L1.
"""

import math

import numba
import numpy as np

from minigrad.kernels.jit import both_floats, kernel
from minigrad.kernels.layout import contiguous, row_chunks, vector

_JIT = dict(fastmath={"reassoc", "contract"}, error_model="numpy", cache=True, nogil=True)
_FORWARD = both_floats("void(T[:, ::1], T[::1], T[::1], float64, T[:, ::1], T[::1], T[::1])")
_BACKWARD = both_floats(
    "void(T[:, ::1], T[:, ::1], T[::1], T[::1], T[::1], int64, boolean, T[:, ::1], "
    "float64[:, :, ::1])"
)
BLOCK_ROWS = 4  # rows whose dweight / dbias terms are added in x's dtype (see below)
WIDE_ROWS = 2048  # rows at least this wide go four at a time (_wide_rows)


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


@numba.njit(inline="always", **_JIT)
def _wide_rows(dy, x, weight, mean, rstd, lo, hi, need_dx, dx, dw, db):
    """``_rows`` for rows of at least ``WIDE_ROWS`` values: four rows at a time.

    A wide row's block sums in ``_rows`` do not stay in L1 (4096 values: 32 KB), and
    adding a row's terms to them costs a load and a store per value. Here a group of
    four rows gets its rows' two sums first (a pass per row), then one pass along the
    four rows writes their dx and adds each column's four terms (in x's dtype, in row
    order: ``_rows``' blocks) straight into ``dw`` and ``db``; the last rows (fewer than
    four) go to ``_rows``. The same dweight / dbias bits as ``_rows`` (dx may differ in
    its last bit: the row sums are added in another order). Faster from ``WIDE_ROWS``
    values a row, slower below (``docs/benchmarks.md``).
    """
    n = x.shape[1]
    c1 = np.empty(BLOCK_ROWS, x.dtype)
    c2 = np.empty(BLOCK_ROWS, x.dtype)
    zero = x.dtype.type(0.0)
    for i0 in range(lo, hi, BLOCK_ROWS):
        if hi - i0 < BLOCK_ROWS:
            _rows(dy, x, weight, mean, rstd, i0, hi, need_dx, dx, dw, db)
            break
        for r in range(BLOCK_ROWS):
            m = mean[i0 + r]
            rs = rstd[i0 + r]
            sum_g = 0.0
            sum_g_xhat = 0.0
            for j in range(n):
                g = dy[i0 + r, j] * weight[j]
                sum_g += g
                sum_g_xhat += g * ((x[i0 + r, j] - m) * rs)
            c1[r] = x.dtype.type(sum_g / n)
            c2[r] = x.dtype.type(sum_g_xhat / n)
        m0, m1, m2, m3 = mean[i0], mean[i0 + 1], mean[i0 + 2], mean[i0 + 3]
        r0, r1, r2, r3 = rstd[i0], rstd[i0 + 1], rstd[i0 + 2], rstd[i0 + 3]
        for j in range(n):  # BLOCK_ROWS = 4 spelled out, so that LLVM keeps four streams
            wj = weight[j]
            d0, d1, d2, d3 = dy[i0, j], dy[i0 + 1, j], dy[i0 + 2, j], dy[i0 + 3, j]
            x0 = (x[i0, j] - m0) * r0
            x1 = (x[i0 + 1, j] - m1) * r1
            x2 = (x[i0 + 2, j] - m2) * r2
            x3 = (x[i0 + 3, j] - m3) * r3
            if need_dx:
                dx[i0, j] = r0 * (d0 * wj - c1[0] - x0 * c2[0])
                dx[i0 + 1, j] = r1 * (d1 * wj - c1[1] - x1 * c2[1])
                dx[i0 + 2, j] = r2 * (d2 * wj - c1[2] - x2 * c2[2])
                dx[i0 + 3, j] = r3 * (d3 * wj - c1[3] - x3 * c2[3])
            dw[j] += (((zero + d0 * x0) + d1 * x1) + d2 * x2) + d3 * x3
            db[j] += (((zero + d0) + d1) + d2) + d3


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
        squares = n * ((shift + mean_d) ** 2 + var)  # the row's sum of x^2
        finite = np.isfinite(x.dtype.type(squares))  # as a number of x's dtype
        rstd[i] = 1.0 / np.sqrt(var + eps) if finite else np.nan
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
        rows, n = x.shape
        dw = partial[k, 0]
        db = partial[k, 1]
        dw[:] = 0.0
        db[:] = 0.0
        lo = k * rows_per_chunk
        hi = min(rows, lo + rows_per_chunk)
        if n >= WIDE_ROWS:
            _wide_rows(dy, x, weight, mean, rstd, lo, hi, need_dx, dx, dw, db)
        else:
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
    norm_shape = x.shape[x.ndim - normalized_ndim :]
    n = math.prod(norm_shape)
    rows = x.size // n
    dt = x.dtype
    per, chunks = row_chunks(rows, n, n)
    dx = np.empty((rows, n) if need_dx else (0, 0), dt)
    partial = np.empty((chunks, 2, n))
    layer_norm_backward.for_size(x.size)(
        contiguous(dy, dt).reshape(rows, n), contiguous(x, dt).reshape(rows, n),
        vector(weight, n, dt, 1.0), contiguous(mean, dt).reshape(rows),
        contiguous(rstd, dt).reshape(rows), per, need_dx, dx, partial,
    )  # fmt: skip
    dweight, dbias = partial.sum(0).astype(dt)  # the chunks in order, in float64
    return (
        dx.reshape(x.shape) if need_dx else None,
        None if weight is None else dweight.reshape(norm_shape),
        dbias.reshape(norm_shape),
    )
