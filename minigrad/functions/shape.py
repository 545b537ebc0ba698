"""Views and joins: reshape, permute, expand, cat.

These move elements around without changing them, so each backward moves the
gradient back the same way: reshape it back, apply the inverse permutation, sum over
what expand broadcast, slice what cat joined.
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import Function
from minigrad.functions.broadcast import unbroadcast
from minigrad.functions.errors import ShapeError
from minigrad.printing import shape_str


class Reshape(Function):
    is_view = True

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x._data.shape
        try:
            return x._data.reshape(shape)
        except ValueError:
            raise ShapeError(
                f"reshape: shape {shape_str(shape)} is invalid for an input of shape "
                f"{shape_str(x._data.shape)} ({x._data.size} elements)"
            ) from None

    @staticmethod
    def backward(ctx, g):
        return g.reshape(ctx.in_shape), None

    backward_array = backward  # the same call on an array or a Tensor


class View(Reshape):
    """``x.view(shape)``: ``Reshape`` that refuses to copy (PyTorch's rule: a view
    exists when each new dim spans strides that the old dims can express)."""

    @staticmethod
    def forward(ctx, x, shape):
        out = Reshape.forward(ctx, x, shape)
        if out.size and not np.may_share_memory(out, x._data):
            raise ShapeError(
                "view size is not compatible with input tensor's size and stride (at least "
                "one dimension spans across two contiguous subspaces). Use .reshape(...) "
                "instead."
            )
        return out


class Permute(Function):
    is_view = True

    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return x._data.transpose(dims)

    @staticmethod
    def backward(ctx, g):
        return g.permute(tuple(np.argsort(ctx.dims))), None

    @staticmethod
    def backward_array(ctx, g):
        return g.transpose(np.argsort(ctx.dims)), None


class Expand(Function):
    """Broadcast to a larger shape (a view); backward sums over the broadcast dims."""

    is_view = True

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x._data.shape
        try:
            return np.broadcast_to(x._data, shape)
        except ValueError:
            raise ShapeError(
                f"expand: cannot expand shape {shape_str(x._data.shape)} to "
                f"{shape_str(shape)} (only size-1 dims can grow, new dims go in front)"
            ) from None

    @staticmethod
    def backward(ctx, g):
        return unbroadcast(g, ctx.in_shape), None

    backward_array = backward


class Cat(Function):
    """Join tensors along ``dim``; backward hands each input its slice of the gradient."""

    @staticmethod
    def forward(ctx, dim, *tensors):
        arrays = [t._data for t in tensors]
        ctx.dim = dim
        ctx.sizes = [a.shape[dim] for a in arrays]
        try:
            return np.concatenate(arrays, axis=dim)
        except ValueError:
            shapes = ", ".join(shape_str(a.shape) for a in arrays)
            raise ShapeError(
                f"cat: tensors must have the same shape except in dim {dim}, got {shapes}"
            ) from None

    @staticmethod
    def backward(ctx, g):
        grads = [None]
        start = 0
        lead = (slice(None),) * ctx.dim
        for needs, size in zip(ctx.needs_input_grad[1:], ctx.sizes, strict=True):
            grads.append(g[lead + (slice(start, start + size),)] if needs else None)
            start += size
        return tuple(grads)

    backward_array = backward  # slicing reads the same for arrays and Tensors
