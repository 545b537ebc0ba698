"""Functions made by hand for the gradcheck tests.

- ``numpy_function``: a NumPy forward and backward as a minigrad ``Function``, and
  ``torch_numpy_function`` the same pair as a ``torch.autograd.Function``, so that both
  checkers can be asked about one case;
- ``scale_with_wrong_weight_grad``: ``x * w`` whose weight gradient is off by a factor,
  the wrong parameter gradient a module check must name.
"""

from __future__ import annotations

import numpy as np

import minigrad as mg
from minigrad.functions.constant import constant


def numpy_function(forward, backward):
    """A minigrad Function from a NumPy ``forward(*arrays) -> array`` and
    ``backward(g, *arrays) -> tuple of arrays``; returns its ``apply``."""

    class NumpyOp(mg.autograd.Function):
        @staticmethod
        def forward(ctx, *xs):
            ctx.arrays = [x.numpy() for x in xs]
            return np.asarray(forward(*ctx.arrays), dtype=xs[0].dtype)

        @staticmethod
        def backward(ctx, g):
            grads = backward(g.numpy(), *ctx.arrays)
            return tuple(constant(np.asarray(d, dtype=g.dtype)) for d in grads)

    return NumpyOp.apply


def torch_numpy_function(torch, forward, backward):
    """The same NumPy forward and backward as a torch.autograd.Function's ``apply``."""

    class NumpyOp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *xs):
            ctx.arrays = [x.detach().numpy() for x in xs]
            dtype = ctx.arrays[0].dtype
            return torch.from_numpy(np.array(forward(*ctx.arrays), dtype=dtype))

        @staticmethod
        def backward(ctx, g):
            g = g.detach().numpy()
            grads = backward(g, *ctx.arrays)
            return tuple(torch.from_numpy(np.array(d, dtype=g.dtype)) for d in grads)

    return NumpyOp.apply


def scale_with_wrong_weight_grad(factor: float):
    """A Function ``x * w`` (``w`` broadcast over the rows) whose backward gives the
    right input gradient and ``factor`` times the weight's."""

    class WrongWeightGradScale(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x.numpy() * w.numpy()

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            return g * w, (g * x).sum(0) * factor

    return WrongWeightGradScale
