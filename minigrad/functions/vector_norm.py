"""The 2-norm ``||x|| = sqrt(sum x_i^2)`` and its gradient ``x / ||x||``.

Written as one operation rather than ``sqrt(sum(x * x))`` because of ``x = 0``: there
the composite's backward is ``0 * (1 / (2 * sqrt(0))) = 0 * inf = NaN``, while the norm
has a subgradient and PyTorch returns 0. The backward below returns 0 where the norm
is 0.
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import Function
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
