"""Matrix inverse, determinant and linear solve, batched over leading dims.

- ``Inv``: Y = A^-1. From d(A Y) = 0: dY = -Y dA Y, so the gradient of A is
  ``-Y^T G Y^T``.
- ``Det``: y = det A. Jacobi's formula d det A = det A tr(A^-1 dA) gives the gradient
  ``g det(A) A^-T`` (written with the inverse: minigrad's det needs an invertible A to
  be differentiated).
- ``Solve``: X = A^-1 B. Then ``G_B = A^-T G`` (a solve with the transpose) and
  ``G_A = -G_B X^T``.

Each backward is written with these same operations, so it can be differentiated again.
A singular matrix raises ``RuntimeError`` (PyTorch's ``linalg.LinAlgError`` is one).
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import Function
from minigrad.functions.broadcast import unbroadcast


class LinAlgError(RuntimeError):
    """A matrix that is singular where an inverse is needed."""


def _inv(a: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        raise LinAlgError("linalg.inv: the matrix is singular (not invertible)") from None


def _mT(x):
    return x.swapaxes(-1, -2) if isinstance(x, np.ndarray) else x.mT


class Inv(Function):
    @staticmethod
    def forward(ctx, a):
        y = _inv(a._data)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return -(y.mT @ g @ y.mT)

    @staticmethod
    def backward_array(ctx, g):
        (y,) = ctx.saved_arrays
        return -(_mT(y) @ g @ _mT(y))


class Det(Function):
    @staticmethod
    def forward(ctx, a):
        y = np.linalg.det(a._data)
        ctx.save_for_backward(a, y)
        return y

    @staticmethod
    def backward(ctx, g):
        a, y = ctx.saved_tensors
        return (g * y).unsqueeze(-1).unsqueeze(-1) * Inv.apply(a).mT

    @staticmethod
    def backward_array(ctx, g):
        a, y = ctx.saved_arrays
        return (g * y)[..., None, None] * _mT(_inv(a))


class Solve(Function):
    @staticmethod
    def forward(ctx, a, b):
        try:
            x = np.linalg.solve(a._data, b._data)
        except np.linalg.LinAlgError:
            raise LinAlgError("linalg.solve: the matrix A is singular") from None
        ctx.save_for_backward(a, x)
        ctx.shapes = (a._data.shape, b._data.shape)
        return x

    @staticmethod
    def backward(ctx, g):
        a, x = ctx.saved_tensors
        gb = Solve.apply(a.mT, g)
        return _batch_unbroadcast(ctx, -(gb @ x.mT), gb)

    @staticmethod
    def backward_array(ctx, g):
        a, x = ctx.saved_arrays
        gb = np.linalg.solve(_mT(a), g)
        return _batch_unbroadcast(ctx, -(gb @ _mT(x)), gb)


def _batch_unbroadcast(ctx, ga, gb) -> tuple:
    """Sum the gradients over batch dims that broadcasting added (A or B had fewer)."""
    a_needs, b_needs = ctx.needs_input_grad
    a_shape, b_shape = ctx.shapes
    return (
        unbroadcast(ga, a_shape) if a_needs else None,
        unbroadcast(gb, b_shape) if b_needs else None,
    )
