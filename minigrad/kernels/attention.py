"""Attention's row kernels: the softmax of the scores and its backward, fused in one pass.

The products of attention (``Q K^T``, ``P V`` and the four of the backward) are batched
matrix products, left to BLAS. Everything between them runs here, one row of one
(batch, head) block at a time, on the [B1, B2, L, S] arrays those products make::

    forward   p_ij  = softmax_j(x_ij * scale + bias_ij)  (j <= i only when causal)
              pd_ij = p_ij keep_ij                        (dropout; keep is 0 or 1/(1-p))
    backward  ds_ij = (pd_ij g_ij - p_ij sum_j pd_ij g_ij) * out_scale

``g`` is the gradient of the weights that multiplied V (``dO V^T``) and ``ds`` the
gradient of the scores (times ``out_scale``: the caller passes ``scale`` so that
``dQ = ds K`` and ``dK = ds^T Q`` need no extra pass). Without dropout ``pd = p`` and
the backward is ``p (g - sum_j p g)``.

Design notes (float32; the measurements are in ``docs/benchmarks.md``):
- NumPy's softmax is six passes over the scores (the mask, max, subtract, exp, sum,
  divide) and its reductions over short rows are slow. Here one row is read once and
  stays in L1 for the row's four loops.
- With ``causal`` a row's keys j > i are not computed: they are written as zeros.
- ``exp`` is a vectorizable float32 polynomial (below); Numba's ``math.exp`` is a scalar
  libm call (no SVML). Float64 uses ``math.exp``.
- A row whose every key is masked (maximum ``-inf``) gets the caller's ``dead`` value:
  attention passes 0, so the row's output is zero and no gradient flows through it (as
  PyTorch's SDPA does); ``F.softmax`` passes NaN (0/0, as PyTorch's softmax gives).
- The kernels are serial: in attention they run right after a matrix product, while
  OpenBLAS's idle workers spin on the other core (``F.softmax`` runs them too, usually
  between products as well). ``bias`` and ``keep`` are absent when
  empty; ``bias`` may have any strides (a broadcast mask has stride 0).
"""

import math

import numpy as np
from numba import types
from numba.extending import overload

from minigrad.kernels.fast_exp import exp_poly, reduce_ln2
from minigrad.kernels.fast_exp import pow2 as _pow2
from minigrad.kernels.jit import kernel

FASTMATH = {"reassoc", "contract"}  # the row sums use SIMD lanes; NaN / inf kept

#: A causal row's loops run to a multiple of this many keys (the keys past the diagonal
#: inside it are masked): loops of a varying short length otherwise end in a scalar
#: remainder (``docs/benchmarks.md``).
_VEC = 16


# ------------------------------------------------- a vectorizable exp (see fast_exp.py)
_f32 = np.float32
_ZERO = _f32(0.0)
_LOW = _f32(-87.0)  # exp(-87) = 1.6e-38, the smallest normal float32 is 1.2e-38


def exp_nonpositive(t):
    """exp(t) for t <= 0 (a score minus its row maximum); 0 below -87 and for -inf, NaN
    for NaN (so that a NaN score makes its row NaN, as in NumPy and PyTorch)."""
    return math.exp(t)


@overload(exp_nonpositive, inline="always", fastmath={"contract"})
def _exp_nonpositive(t):
    if t == types.float32:

        def impl(t):
            c = max(t, _LOW)  # also turns -inf and NaN-free underflow into a safe input
            k, r = reduce_ln2(c, _ZERO)
            p = exp_poly(r)
            y = p * _pow2(k)
            return y if t >= _LOW else (_ZERO if t < _LOW else t)  # t NaN: NaN

        return impl
    return lambda t: math.exp(t)


# ---------------------------------------------------------------------------- kernels
def _signatures(kind: str) -> list:
    """The explicit signatures, float32 and float64: C-contiguous score rows, and a
    read-only ``bias`` of any strides (``np.broadcast_to`` views are read-only)."""
    sigs = []
    for dtype in (types.float32, types.float64):
        rows = types.Array(dtype, 4, "C")
        if kind == "forward":
            bias = types.Array(dtype, 4, "A", readonly=True)
            args = (rows, bias, rows, types.float64, types.boolean, rows, types.float64)
        else:
            args = (rows, rows, rows, types.float64, types.boolean)
        sigs.append(types.void(*args))
    return sigs


_FWD = _signatures("forward")
_BWD = _signatures("backward")


@kernel(_FWD, fastmath=FASTMATH, nogil=True, error_model="numpy", cache=True)
def softmax_forward(x, bias, keep, scale, causal, pd, dead):
    """``x`` [B1, B2, L, S] holds the raw scores ``q . k`` and is overwritten with the
    weights ``p``; ``pd`` gets ``p * keep`` when ``keep`` is not empty. A row whose every
    key is masked gets ``dead`` everywhere (attention: 0; ``F.softmax``: NaN)."""
    heads, L, S = x.shape[1], x.shape[2], x.shape[3]
    has_bias, has_keep = bias.size > 0, keep.size > 0
    sc = x.dtype.type(scale)
    zero = x.dtype.type(0.0)
    ninf = x.dtype.type(-np.inf)
    empty_row = x.dtype.type(dead)
    for blk in range(x.shape[0] * heads):
        n, h = blk // heads, blk % heads
        for i in range(L):
            row = x[n, h, i]
            jn = min(-(-(i + 1) // _VEC) * _VEC, S) if causal else S
            last = i if causal else S  # keys j > last are masked
            m = ninf
            if has_bias:  # scaled, masked and the maximum taken in one loop
                for j in range(jn):
                    t = row[j] * sc + bias[n, h, i, j] if j <= last else ninf
                    row[j] = t
                    m = max(m, t)
            else:
                for j in range(jn):
                    t = row[j] * sc if j <= last else ninf
                    row[j] = t
                    m = max(m, t)
            for j in range(jn, S):
                row[j] = zero
            if m == -np.inf:  # every key masked: no softmax
                for j in range(jn):
                    row[j] = empty_row
            else:
                total = zero
                for j in range(jn):
                    e = exp_nonpositive(row[j] - m)
                    row[j] = e
                    total += e
                inv = x.dtype.type(1.0) / total
                for j in range(jn):
                    row[j] = row[j] * inv
            if has_keep:
                prow = pd[n, h, i]
                krow = keep[n, h, i]
                for j in range(S):
                    prow[j] = row[j] * krow[j]


@kernel(_BWD, fastmath=FASTMATH, nogil=True, error_model="numpy", cache=True)
def softmax_backward(p, keep, g, out_scale, causal):
    """Overwrite ``g`` (the gradient of the weights after dropout, [B1, B2, L, S]) with
    the scores' gradient times ``out_scale``; ``keep`` is the dropout mask (empty without
    dropout)."""
    heads, L, S = p.shape[1], p.shape[2], p.shape[3]
    has_keep = keep.size > 0
    sc = p.dtype.type(out_scale)
    zero = p.dtype.type(0.0)
    for blk in range(p.shape[0] * heads):
        n, h = blk // heads, blk % heads
        for i in range(L):
            prow = p[n, h, i]
            grow = g[n, h, i]
            jn = min(-(-(i + 1) // _VEC) * _VEC, S) if causal else S  # p is 0 past i
            total = zero
            if has_keep:
                krow = keep[n, h, i]
                for j in range(jn):
                    grow[j] = prow[j] * krow[j] * grow[j]
                    total += grow[j]
            else:
                for j in range(jn):
                    total += prow[j] * grow[j]
                for j in range(jn):
                    grow[j] = prow[j] * grow[j]
            for j in range(jn):
                grow[j] = (grow[j] - prow[j] * total) * sc
            for j in range(jn, S):
                grow[j] = zero
