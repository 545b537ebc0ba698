"""Pointwise functions: y = f(x) element by element, so dx = dy * f'(x).

Each backward names f'(x) in terms of what the forward computed: exp, tanh, sigmoid
and sqrt reuse their output y (their derivatives are simplest in y), the others their
input x. Masks (relu, clamp, abs, maximum) are constants, so second derivatives
through them are zero, as they should be.
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import Function
from minigrad.functions.broadcast import broadcast_error, unbroadcast


def _const(array):
    from minigrad.tensor import Tensor

    return Tensor._make(array, False, None)


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


class Log(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.log(x._data)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
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


class Relu(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.maximum(x._data, 0)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * _const(x._data > 0)


class Abs(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.abs(x._data)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * _const(np.sign(x._data))  # sign(0) = 0, as in PyTorch


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
        inside = np.ones(x._data.shape, dtype=bool)
        if ctx.lo is not None:
            inside &= x._data >= ctx.lo
        if ctx.hi is not None:
            inside &= x._data <= ctx.hi
        return g * _const(inside), None, None


class Maximum(Function):
    """Elementwise max; at a tie each input gets half the gradient (as in PyTorch)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        try:
            return np.maximum(a._data, b._data)
        except ValueError:
            raise broadcast_error("maximum", a, b) from None

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return _split_by_mask(ctx, g, a, b, a._data > b._data)


class Minimum(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        try:
            return np.minimum(a._data, b._data)
        except ValueError:
            raise broadcast_error("minimum", a, b) from None

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return _split_by_mask(ctx, g, a, b, a._data < b._data)


def _split_by_mask(ctx, g, a, b, a_wins):
    tie = (a._data == b._data) * 0.5
    share_a = (a_wins + tie).astype(g._data.dtype)
    a_needs, b_needs = ctx.needs_input_grad
    return (
        unbroadcast(g * _const(share_a), a._data.shape) if a_needs else None,
        unbroadcast(g * _const(1.0 - share_a), b._data.shape) if b_needs else None,
    )


class Sin(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.sin(x._data)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.cos()


class Cos(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.cos(x._data)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * -x.sin()
