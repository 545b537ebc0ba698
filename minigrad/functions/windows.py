"""Two views that pick a regular pattern of elements: ``diagonal`` and ``unfold``.

Both are strided views of the input's memory (as PyTorch documents them), so writing
into the result writes into the input, and both share its version counter:

- ``diagonal(x, offset, dim1, dim2)``: the elements ``x[..., i, i + offset, ...]`` of
  each plane (dim1, dim2), as a new last dim. One step along it moves one row and one
  column: its stride is the sum of the two dims' strides.
- ``unfold(x, dim, size, step)``: the windows ``x[..., k*step : k*step + size, ...]``
  along ``dim``; that dim becomes the window count (its stride times ``step``) and a
  new last dim of ``size`` walks inside a window (the dim's own stride). Windows
  overlap when ``step < size``.

Backward: the gradient lands where the elements came from, in zeros of the input's
shape; for overlapping windows the contributions of every window add up.
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import Function

_strided = np.lib.stride_tricks.as_strided


def diagonal_view(x: np.ndarray, offset: int, dim1: int, dim2: int) -> np.ndarray:
    """The (writeable) view of ``x`` that ``diagonal`` returns; ``dim1 != dim2``,
    both non-negative."""
    rest = [d for d in range(x.ndim) if d not in (dim1, dim2)]
    planes = x.transpose(*rest, dim1, dim2)  # (..., rows, cols), a view
    rows, cols = planes.shape[-2:]
    n = max(0, min(rows + min(offset, 0), cols - max(offset, 0)))
    corner = planes[..., max(-offset, 0) :, max(offset, 0) :] if n else planes
    shape = planes.shape[:-2] + (n,)
    strides = planes.strides[:-2] + (planes.strides[-2] + planes.strides[-1],)
    return _strided(corner, shape, strides, writeable=x.flags.writeable)


def unfold_view(x: np.ndarray, dim: int, size: int, step: int) -> np.ndarray:
    """The (writeable) view of ``x`` that ``unfold`` returns (``x.ndim >= 1``)."""
    count = (x.shape[dim] - size) // step + 1
    shape = x.shape[:dim] + (count,) + x.shape[dim + 1 :] + (size,)
    strides = x.strides[:dim] + (x.strides[dim] * step,) + x.strides[dim + 1 :] + (x.strides[dim],)
    return _strided(x, shape, strides, writeable=x.flags.writeable)


class Diagonal(Function):
    """y = the diagonal of x's planes (dim1, dim2) at ``offset``: a view."""

    is_view = True

    @staticmethod
    def forward(ctx, x, offset, dim1, dim2):
        ctx.in_shape = x._data.shape
        ctx.args = (offset, dim1, dim2)
        return diagonal_view(x._data, offset, dim1, dim2)

    @staticmethod
    def backward(ctx, g):
        return DiagonalBackward.apply(g, ctx.in_shape, *ctx.args), None, None, None

    @staticmethod
    def backward_array(ctx, g):
        return _diagonal_backward(g, ctx.in_shape, *ctx.args), None, None, None


def _diagonal_backward(g: np.ndarray, shape: tuple, offset, dim1, dim2) -> np.ndarray:
    out = np.zeros(shape, g.dtype)
    diagonal_view(out, offset, dim1, dim2)[...] = g
    return out


class DiagonalBackward(Function):
    """zeros of ``shape`` with ``g`` on the diagonal (Diagonal's backward)."""

    @staticmethod
    def forward(ctx, g, shape, offset, dim1, dim2):
        ctx.args = (offset, dim1, dim2)
        return _diagonal_backward(g._data, shape, offset, dim1, dim2)

    @staticmethod
    def backward(ctx, gg):
        return Diagonal.apply(gg, *ctx.args), None, None, None, None

    @staticmethod
    def backward_array(ctx, gg):
        return diagonal_view(gg, *ctx.args).copy(), None, None, None, None


class Unfold(Function):
    """y = the windows of ``size`` every ``step`` along ``dim`` of x: a view."""

    is_view = True

    @staticmethod
    def forward(ctx, x, dim, size, step):
        ctx.in_shape = x._data.shape
        ctx.args = (dim, size, step)
        return unfold_view(x._data, dim, size, step)

    @staticmethod
    def backward(ctx, g):
        return UnfoldBackward.apply(g, ctx.in_shape, *ctx.args), None, None, None

    @staticmethod
    def backward_array(ctx, g):
        return _unfold_backward(g, ctx.in_shape, *ctx.args), None, None, None


def _unfold_backward(g: np.ndarray, shape: tuple, dim, size, step) -> np.ndarray:
    """Each window's gradient added back where the window came from: one strided add per
    position inside a window (``size`` of them), so overlapping windows sum."""
    out = np.zeros(shape, g.dtype)
    count = g.shape[dim]
    for k in range(size):
        where = (slice(None),) * dim + (slice(k, k + step * (count - 1) + 1, step),)
        out[where] += g[..., k]
    return out


class UnfoldBackward(Function):
    """zeros of ``shape`` with each window's gradient added back (Unfold's backward)."""

    @staticmethod
    def forward(ctx, g, shape, dim, size, step):
        ctx.args = (dim, size, step)
        return _unfold_backward(g._data, shape, dim, size, step)

    @staticmethod
    def backward(ctx, gg):
        return Unfold.apply(gg, *ctx.args), None, None, None, None

    @staticmethod
    def backward_array(ctx, gg):
        return unfold_view(gg, *ctx.args).copy(), None, None, None, None
