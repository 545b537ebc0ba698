"""Pointwise functions: y = f(x) element by element, so dx = dy * f'(x).

Each backward names f'(x) in terms of what the forward computed: exp, tanh, sigmoid
and sqrt reuse their output y (their derivatives are simplest in y), the others their
input x. Masks (relu, clamp, abs, maximum) are constants, so second derivatives
through them are zero, as they should be.

Each ``backward`` (Tensor operations, differentiable) has a ``backward_array`` twin
with the same formula on the arrays; where the formula reads the same for both
(``g * y``), one function serves as both.
"""

from __future__ import annotations

import numpy as np

from minigrad._constant import constant
from minigrad.autograd.function import Function
from minigrad.functions.broadcast import broadcast_op, unbroadcast


class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        y = np.exp(x._data)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y  # d exp(x) = exp(x) = y

    @staticmethod
    def backward_array(ctx, g):
        (y,) = ctx.saved_arrays
        return g * y


class Log(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.log(x._data)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g / x

    @staticmethod
    def backward_array(ctx, g):
        (x,) = ctx.saved_arrays
        return g / x


class Sqrt(Function):
    @staticmethod
    def forward(ctx, x):
        y = np.sqrt(x._data)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g / (y * 2.0)  # d sqrt(x) = 1 / (2 sqrt(x))

    @staticmethod
    def backward_array(ctx, g):
        (y,) = ctx.saved_arrays
        return g / (y * 2.0)


class Rsqrt(Function):
    @staticmethod
    def forward(ctx, x):
        y = 1.0 / np.sqrt(x._data)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * (y * y * y * -0.5)  # d x^(-1/2) = -1/2 x^(-3/2) = -y^3 / 2

    @staticmethod
    def backward_array(ctx, g):
        (y,) = ctx.saved_arrays
        return g * (y * y * y * -0.5)


class Tanh(Function):
    @staticmethod
    def forward(ctx, x):
        y = np.tanh(x._data)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * (1.0 - y * y)

    @staticmethod
    def backward_array(ctx, g):
        (y,) = ctx.saved_arrays
        return g * (1.0 - y * y)


class Sigmoid(Function):
    @staticmethod
    def forward(ctx, x):
        # exp of -|x| never overflows: for x >= 0, 1 / (1 + e^-x); for x < 0, e^x / (1 + e^x).
        x = x._data
        z = np.exp(-np.abs(x))
        y = np.where(x >= 0, 1.0, z) / (1.0 + z)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * (y * (1.0 - y))

    @staticmethod
    def backward_array(ctx, g):
        (y,) = ctx.saved_arrays
        return g * (y * (1.0 - y))


class Relu(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.maximum(x._data, 0)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * constant(x._data > 0)

    @staticmethod
    def backward_array(ctx, g):
        (x,) = ctx.saved_arrays
        return g * (x > 0)


class Abs(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.abs(x._data)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * constant(np.sign(x._data))  # sign(0) = 0, as in PyTorch

    @staticmethod
    def backward_array(ctx, g):
        (x,) = ctx.saved_arrays
        return g * np.sign(x)


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


class Maximum(Function):
    """Elementwise max; at a tie each input gets half the gradient (as in PyTorch)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return broadcast_op("maximum", np.maximum, a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_arrays
        return _split_by_mask(ctx, g, a, b, a > b, constant)

    @staticmethod
    def backward_array(ctx, g):
        a, b = ctx.saved_arrays
        return _split_by_mask(ctx, g, a, b, a > b, _same)


class Minimum(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return broadcast_op("minimum", np.minimum, a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_arrays
        return _split_by_mask(ctx, g, a, b, a < b, constant)

    @staticmethod
    def backward_array(ctx, g):
        a, b = ctx.saved_arrays
        return _split_by_mask(ctx, g, a, b, a < b, _same)


def _split_by_mask(ctx, g, a, b, a_wins, wrap):
    """``a``'s share of ``g`` where it won (half at a tie), the rest to ``b``: arrays
    ``a``, ``b``; ``g`` a Tensor (``wrap=_const``) or an array (``wrap=_same``)."""
    tie = (a == b) * 0.5
    share_a = (a_wins + tie).astype(g.dtype)
    a_needs, b_needs = ctx.needs_input_grad
    return (
        unbroadcast(g * wrap(share_a), a.shape) if a_needs else None,
        unbroadcast(g * wrap(1.0 - share_a), b.shape) if b_needs else None,
    )


def _same(array):
    return array


class Sin(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.sin(x._data)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.cos()

    @staticmethod
    def backward_array(ctx, g):
        (x,) = ctx.saved_arrays
        return g * np.cos(x)


class Cos(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.cos(x._data)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * -x.sin()

    @staticmethod
    def backward_array(ctx, g):
        (x,) = ctx.saved_arrays
        return g * -np.sin(x)
