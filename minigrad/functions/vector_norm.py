"""Vector norms: the 2-norm ``||x|| = sqrt(sum x_i^2)`` (gradient ``x / ||x||``), and
``PNorm`` for every other order, each with PyTorch's gradient where the formula breaks
down.

Written as one operation rather than ``sqrt(sum(x * x))`` because of ``x = 0``: there
the composite's backward is ``0 * (1 / (2 * sqrt(0))) = 0 * inf = NaN``, while the norm
has a subgradient and PyTorch returns 0. The backward below returns 0 where the norm
is 0.
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import Function
from minigrad.functions.constant import constant
from minigrad.functions.reduction import sum_array
from minigrad.tensor import Tensor


class Norm2(Function):
    @staticmethod
    def forward(ctx, x, dims, keepdim):
        ctx.dims, ctx.keepdim = dims, keepdim
        norm = np.sqrt(sum_array(x._data * x._data, dims, keepdims=True))
        ctx.save_for_backward(x)
        ctx.norm = norm
        return norm if keepdim else np.squeeze(norm, axis=dims)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        if not ctx.keepdim:
            g = g.reshape(ctx.norm.shape)
        # the norm again as a tensor, so that the gradient itself is differentiable
        norm = Norm2.apply(x, ctx.dims, True)
        safe = norm.masked_fill(Tensor._make(ctx.norm == 0, False, None), 1.0)  # x = 0 there
        return g * x / safe, None, None


class PNorm(Function):
    """The vector p-norm for every ``p`` but 2: ``(sum_i |x_i|^p)^(1/p)`` over ``dims``;
    ``p = 0`` counts the non-zeros, ``p = inf`` / ``-inf`` is ``max`` / ``min |x_i|``.

    Its gradient, with PyTorch's values at the points where the formula breaks down:

    - p = 0: 0 (a count does not change with x);
    - p = 1: ``g sign(x)`` (0 at x_i = 0);
    - p = +-inf: ``g sign(x_i)`` shared evenly among the elements whose |x_i| is the
      norm (or NaN);
    - p < 1: ``g sign(x_i) |x_i|^(p-1) ||x||^(1-p)``, taking 0 at x_i = 0 (where
      ``|x_i|^(p-1)`` is infinite);
    - p > 1: ``g sign(x_i) |x_i|^(p-1) / ||x||^(p-1)``, 0 where the norm is 0.
    """

    @staticmethod
    def forward(ctx, x, p, dims, keepdim):
        ctx.p, ctx.dims, ctx.keepdim = p, dims, keepdim
        norm = _p_norm(x._data, p, dims)
        ctx.save_for_backward(x, norm)
        return norm if keepdim else np.squeeze(norm, axis=dims)

    @staticmethod
    def backward(ctx, g):
        x, norm = ctx.saved_tensors
        p = ctx.p
        g = g.reshape(norm.shape)
        if p == 0:
            return x * 0.0, None, None, None
        sign = x.sign()
        if p == 1:
            return g * sign, None, None, None
        norm = PNorm.apply(x, p, ctx.dims, True)  # as a tensor: differentiable again
        if np.isinf(p):
            hit = constant(_extreme(x._data, norm._data, ctx.dims))
            return g * sign * hit, None, None, None
        x_zero = constant(x._data == 0)
        safe_abs = x.abs().masked_fill(x_zero, 1.0)
        if p < 1:
            scaled = (sign * safe_abs ** (p - 1)).masked_fill(x_zero, 0.0)
            return scaled * g * norm ** (1 - p), None, None, None
        norm_zero = constant(norm._data == 0)
        scale = (g / norm.masked_fill(norm_zero, 1.0) ** (p - 1)).masked_fill(norm_zero, 0.0)
        return sign * x.abs() ** (p - 1) * scale, None, None, None

    @staticmethod
    def backward_array(ctx, g):
        x, norm = ctx.saved_arrays
        p = ctx.p
        g = g.reshape(norm.shape)
        if p == 0:
            return np.zeros_like(x), None, None, None
        sign = np.sign(x)
        if p == 1:
            return g * sign, None, None, None
        if np.isinf(p):
            return g * sign * _extreme(x, norm, ctx.dims), None, None, None
        # (1/0 and 0 * inf inside the np.where: the engine silences NumPy's warnings)
        if p < 1:
            scaled = np.where(x == 0, 0.0, sign * np.abs(x) ** (p - 1))
            return (scaled * g * norm ** (1 - p)).astype(x.dtype), None, None, None
        scale = np.where(norm == 0, 0.0, g / norm ** (p - 1))
        return (sign * np.abs(x) ** (p - 1) * scale).astype(x.dtype), None, None, None


def _p_norm(x: np.ndarray, p: float, dims: tuple) -> np.ndarray:
    """The p-norm over ``dims``, keeping them as size-1 dims (in x's dtype)."""
    a = np.abs(x)
    if p == np.inf:
        return np.max(a, axis=dims, keepdims=True)
    if p == -np.inf:
        return np.min(a, axis=dims, keepdims=True)
    if p == 0:
        return sum_array((a != 0).astype(x.dtype), dims, keepdims=True)
    if p == 1:
        return sum_array(a, dims, keepdims=True)
    with np.errstate(divide="ignore", over="ignore"):
        return (sum_array(a**p, dims, keepdims=True) ** (1.0 / p)).astype(x.dtype)


def _extreme(x: np.ndarray, norm: np.ndarray, dims: tuple) -> np.ndarray:
    """1 / (number of them) at the elements whose |x| is the (inf or -inf) norm or NaN."""
    a = np.abs(x)
    hit = (a == norm) | np.isnan(a)
    return (hit / np.sum(hit, axis=dims, keepdims=True)).astype(x.dtype)
