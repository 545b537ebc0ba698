"""``unbroadcast``: the one helper that undoes NumPy broadcasting in a backward pass.

If ``a`` of shape ``(3, 1)`` was broadcast against ``(2, 3, 4)``, the gradient that
arrives has shape ``(2, 3, 4)``. Every element of ``a`` was used once per broadcast
copy, so its gradient is the sum over those copies: over the leading dimensions that
were added (here dim 0) and over the dimensions where ``a`` had size 1 (here dim 2).
"""

from __future__ import annotations

import math

import numpy as np

from minigrad._format import shape_str
from minigrad.kernels.runtime import products_ran


def broadcast_error(op: str, a, b) -> ValueError:
    """The error for two operands whose shapes do not broadcast, naming both shapes."""
    return ValueError(
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
    if axes and isinstance(grad, np.ndarray) and axes == tuple(range(len(axes))):
        return sum_leading(grad, len(axes)).reshape(shape)
    if axes:
        grad = grad.sum(axes)
    return grad.reshape(shape)


#: Below this many elements ``sum_leading`` takes NumPy's sum: the BLAS call costs more.
SUM_LEADING_BLAS_ELEMENTS = 8192


def sum_leading(a: np.ndarray, k: int) -> np.ndarray:
    """``a.sum(axis=(0, ..., k - 1))``: for a C-contiguous float32 / float64 array of at
    least ``SUM_LEADING_BLAS_ELEMENTS``, one BLAS matrix-vector product ``ones @ a`` on
    ``a`` viewed as [lead, rest] (a bias's gradient, a broadcast add's). Measured against
    ``np.add.reduce`` on float32 [1024, 64] / [1024, 256] / [4096, 128]: 3.0 / 11.6 /
    14.7 us against 14.9 / 29.0 / 81 us, with a third of the error (BLAS sums in blocks),
    the same bits on 1 to 4 threads; but [32, 128] / [64, 64]: 3.0 / 2.9 us against
    1.6 / 1.8 us, and [256, 64]: 3.4 against 4.7 us."""
    if (
        a.dtype not in (np.float32, np.float64)
        or k == 0
        or a.size < SUM_LEADING_BLAS_ELEMENTS
        or not a.flags.c_contiguous
    ):
        return a.sum(tuple(range(k)))
    lead = math.prod(a.shape[:k])
    out = np.matmul(np.ones(lead, a.dtype), a.reshape(lead, math.prod(a.shape[k:])))
    products_ran()
    return out.reshape(a.shape[k:])
