"""Ordering and rearranging: sort, topk, flip, roll, repeat, cumsum.

``sort`` and ``topk`` pick elements by index, so their values are a ``Gather`` of the
input (see ``indexing.py``) and the gradient goes back to the places the values came
from. ``flip`` and ``roll`` move every element to another place, so the backward moves
the gradient back (flip again, roll the other way). ``repeat`` uses each element
several times, so its backward sums the copies. ``cumsum``'s output ``y_i`` is the sum
of ``x_j`` for ``j <= i``, so ``dL/dx_j`` is the sum of ``dL/dy_i`` for ``i >= j``: a
cumulative sum from the other end.
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import Function


class Flip(Function):
    """Reverse the order along ``dims``; the backward reverses the gradient the same way."""

    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return np.flip(x._data, dims).copy()

    @staticmethod
    def backward(ctx, g):
        return Flip.apply(g, ctx.dims), None


class Roll(Function):
    """Shift elements by ``shifts`` along ``dims`` (wrapping around); backward shifts back."""

    @staticmethod
    def forward(ctx, x, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        if dims is None:  # torch.roll without dims rolls the flattened tensor
            return np.roll(x._data.reshape(-1), shifts).reshape(x._data.shape)
        return np.roll(x._data, shifts, dims)

    @staticmethod
    def backward(ctx, g):
        if ctx.dims is None:
            return Roll.apply(g, -ctx.shifts, None), None, None
        return Roll.apply(g, tuple(-s for s in ctx.shifts), ctx.dims), None, None


class Repeat(Function):
    """``x.repeat(r0, r1, ...)``: tile ``x`` ``r_k`` times along dim ``k`` (new dims in front).

    Output element ``(i0, i1, ...)`` is ``x[i0 % s0, i1 % s1, ...]``, so the gradient of
    ``x`` is the output gradient reshaped to ``(r0, s0, r1, s1, ...)`` and summed over
    the ``r`` axes.
    """

    @staticmethod
    def forward(ctx, x, repeats):
        shape = (1,) * (len(repeats) - x._data.ndim) + x._data.shape
        ctx.in_shape, ctx.padded, ctx.repeats = x._data.shape, shape, repeats
        return np.tile(x._data.reshape(shape), repeats)

    @staticmethod
    def backward(ctx, g):
        split = []
        for r, s in zip(ctx.repeats, ctx.padded):
            split += [r, s]
        summed = g.reshape(tuple(split)).sum(dim=tuple(range(0, len(split), 2)))
        return summed.reshape(ctx.in_shape), None


class Cumsum(Function):
    """``y_i = sum_{j <= i} x_j`` along ``dim``; ``dL/dx_j = sum_{i >= j} dL/dy_i``."""

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return np.cumsum(x._data, axis=dim)

    @staticmethod
    def backward(ctx, g):
        # the cumulative sum taken from the far end: flip, cumsum, flip back
        return Flip.apply(Cumsum.apply(Flip.apply(g, (ctx.dim,)), ctx.dim), (ctx.dim,)), None


def sort_indices(data: np.ndarray, dim: int, descending: bool, stable: bool) -> np.ndarray:
    """The indices that sort ``data`` along ``dim`` (NaN counts as the largest, as in
    PyTorch; ties keep their order when ``stable``)."""
    kind = "stable" if stable else None
    if not descending:
        return np.argsort(data, axis=dim, kind=kind)
    if data.dtype.kind == "b":
        data = data.astype(np.int8)
    # Descending, keeping ties in their original order: sort the reversed array
    # ascending with a stable sort would reverse the ties, so negate instead.
    if data.dtype.kind == "f":
        keys = np.where(np.isnan(data), -np.inf, -data)
        nan_first = np.isnan(data)
        order = np.lexsort((keys, ~nan_first), axis=dim) if data.ndim else np.zeros((), int)
        return order
    if data.dtype.kind == "u":
        data = data.astype(np.int64)
    return np.argsort(-data, axis=dim, kind="stable")
