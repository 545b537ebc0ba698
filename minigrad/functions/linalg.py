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


def solve_arrays(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.linalg.solve`` for a (batch of) matrix ``b`` of shape ``(*, n, k)``: the batch
    dims are broadcast first, so the same call means the same thing on NumPy 1.x (where a
    ``b`` with one dim fewer than ``a`` is read as a stack of vectors) and 2.x."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    return np.linalg.solve(a, b)


class Solve(Function):
    @staticmethod
    def forward(ctx, a, b):
        try:
            x = solve_arrays(a._data, b._data)
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
        gb = solve_arrays(_mT(a), g)
        return _batch_unbroadcast(ctx, -(gb @ _mT(x)), gb)


def as_stack(a: np.ndarray, core: int = 2) -> np.ndarray:
    """``a`` of shape ``(*batch, *core_shape)`` as one stack ``(B, *core_shape)``, B the
    number of batch elements (a reshape that also works when a dim is 0)."""
    batch = a.shape[: a.ndim - core]
    return a.reshape((int(np.prod(batch)),) + a.shape[a.ndim - core :])


def pack(arrays, batch: tuple) -> np.ndarray:
    """Several results of one factorization as one array ``(*batch, total)``: each
    ``(*batch, ...)`` array flattened over its own dims, side by side (a ``Function`` has
    one output; ``unpack`` gives the pieces back as differentiable slices)."""
    flat = [a.reshape(batch + (int(np.prod(a.shape[len(batch) :])),)) for a in arrays]
    return np.concatenate(flat, -1)


def unpack(packed, shapes) -> list:
    """The pieces of ``pack``'s result (a Tensor or an array): one per shape, each
    ``(*batch, *shape)``."""
    batch = tuple(packed.shape[:-1])
    out, start = [], 0
    for shape in shapes:
        size = int(np.prod(shape))
        out.append(packed[..., start : start + size].reshape(batch + tuple(shape)))
        start += size
    return out


def _batch_unbroadcast(ctx, ga, gb) -> tuple:
    """Sum the gradients over batch dims that broadcasting added (A or B had fewer)."""
    a_needs, b_needs = ctx.needs_input_grad
    a_shape, b_shape = ctx.shapes
    return (
        unbroadcast(ga, a_shape) if a_needs else None,
        unbroadcast(gb, b_shape) if b_needs else None,
    )
