"""``unbroadcast``: the one helper that undoes NumPy broadcasting in a backward pass.

If ``a`` of shape ``(3, 1)`` was broadcast against ``(2, 3, 4)``, the gradient that
arrives has shape ``(2, 3, 4)``. Every element of ``a`` was used once per broadcast
copy, so its gradient is the sum over those copies: over the leading dimensions that
were added (here dim 0) and over the dimensions where ``a`` had size 1 (here dim 2).
"""

from __future__ import annotations

import numpy as np

from minigrad.functions.errors import ShapeError
from minigrad.printing import shape_str


def broadcast_error(op: str, a, b) -> ShapeError:
    """The error for two operands whose shapes do not broadcast, naming both shapes (a
    ``RuntimeError``, as PyTorch's, and a ``ValueError``, as NumPy's)."""
    return ShapeError(
        f"{op}: operands with shapes {shape_str(np.shape(a._data))} and "
        f"{shape_str(np.shape(b._data))} cannot be broadcast together"
    )


def broadcast_op(op: str, ufunc, a, b) -> np.ndarray:
    """``ufunc(a, b)`` on two tensors' arrays: the one broadcast check of the binary
    forwards. Shapes that do not broadcast raise an error naming ``op`` and both shapes
    (instead of NumPy's message about operands)."""
    try:
        return ufunc(a._data, b._data)
    except ValueError:
        raise broadcast_error(op, a, b) from None


def broadcast_axes(grad_shape: tuple, shape: tuple) -> tuple:
    """The axes of ``grad_shape`` to sum over to get back to ``shape``."""
    lead = len(grad_shape) - len(shape)
    axes = list(range(lead))
    for i, size in enumerate(shape):
        if size == 1 and grad_shape[lead + i] != 1:
            axes.append(lead + i)
    return tuple(axes)


def unbroadcast(grad, shape: tuple):
    """Sum ``grad`` over broadcast dimensions so that it has ``shape``.

    ``grad`` is a Tensor (in ``backward``) or a NumPy array (in ``backward_array``):
    the same two calls, ``sum`` over the axes and ``reshape``, serve both.
    """
    if grad.shape == shape:
        return grad
    axes = broadcast_axes(grad.shape, shape)
    if axes:
        grad = grad.sum(axes)
    return grad.reshape(shape)
