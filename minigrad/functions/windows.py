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


class StridedView(Function):
    """y = ``view(x, *args)``, a view of x; a subclass names its ``view`` and its
    ``scatter`` (zeros of x's shape with g put back where each element came from)."""

    is_view = True

    @staticmethod
    def forward(ctx, x, *args):
        ctx.in_shape = x._data.shape
        ctx.args = args
        return ctx.view(x._data, *args)

    @staticmethod
    def backward(ctx, g):
        return Scatter.apply(g, ctx.in_shape, type(ctx), *ctx.args), *_nones(ctx.args)

    @staticmethod
    def backward_array(ctx, g):
        return ctx.scatter(g, ctx.in_shape, *ctx.args), *_nones(ctx.args)


class Scatter(Function):
    """y = zeros of ``shape`` with g put back where ``pattern``'s view took each
    element: a ``StridedView``'s backward. Its own backward takes the view again."""

    @staticmethod
    def forward(ctx, g, shape, pattern, *args):
        ctx.pattern = pattern
        ctx.args = args
        return pattern.scatter(g._data, shape, *args)

    @staticmethod
    def backward(ctx, gg):
        return ctx.pattern.apply(gg, *ctx.args), None, None, *_nones(ctx.args)

    @staticmethod
    def backward_array(ctx, gg):
        return ctx.pattern.view(gg, *ctx.args).copy(), None, None, *_nones(ctx.args)


def _nones(args: tuple) -> tuple:
    """No gradient for the pattern's arguments (offsets, dims, sizes)."""
    return (None,) * len(args)


def diagonal_scatter(g: np.ndarray, shape: tuple, offset, dim1, dim2) -> np.ndarray:
    out = np.zeros(shape, g.dtype)
    diagonal_view(out, offset, dim1, dim2)[...] = g
    return out


def unfold_scatter(g: np.ndarray, shape: tuple, dim, size, step) -> np.ndarray:
    """Each window's gradient added back where the window came from: one strided add per
    position inside a window (``size`` of them), so overlapping windows sum."""
    out = np.zeros(shape, g.dtype)
    count = g.shape[dim]
    for k in range(size):
        where = (slice(None),) * dim + (slice(k, k + step * (count - 1) + 1, step),)
        out[where] += g[..., k]
    return out


class Diagonal(StridedView):
    """y = the diagonal of x's planes (dim1, dim2) at ``offset``: a view."""

    view = staticmethod(diagonal_view)
    scatter = staticmethod(diagonal_scatter)


class Unfold(StridedView):
    """y = the windows of ``size`` every ``step`` along ``dim`` of x: a view."""

    view = staticmethod(unfold_view)
    scatter = staticmethod(unfold_scatter)
