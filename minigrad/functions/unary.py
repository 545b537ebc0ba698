"""``clamp`` with number bounds: y = min(max(x, lo), hi), so dx = dy where lo <= x <= hi.

The other pointwise functions (exp, tanh, sin, abs, relu, maximum, ...) are entries of
the elementwise table (``elementwise.py``). ``clamp`` stays a class of its own because
its bounds may be missing (``None``); with tensor bounds it is two ``where`` calls
(see ``Tensor.clamp``). The mask is a constant, so second derivatives through it are
zero, as they should be.
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import Function
from minigrad.functions.constant import constant


class Clamp(Function):
    """Gradient passes where ``min <= x <= max`` (both ends included, as in PyTorch)."""

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        return np.clip(x._data, lo, hi)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * constant(_inside(ctx, x._data)), None, None

    @staticmethod
    def backward_array(ctx, g):
        (x,) = ctx.saved_arrays
        return g * _inside(ctx, x), None, None


def _inside(ctx, x: np.ndarray) -> np.ndarray:
    """Where ``lo <= x <= hi``: where clamp passes its gradient."""
    inside = np.ones(x.shape, dtype=bool)
    if ctx.lo is not None:
        inside &= x >= ctx.lo
    if ctx.hi is not None:
        inside &= x <= ctx.hi
    return inside
