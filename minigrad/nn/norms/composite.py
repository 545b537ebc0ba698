"""Composite normalization: the forward built from minigrad's differentiable primitives.

Nothing here defines a backward. Each norm is a chain of ``mean``, ``-``, ``*`` and
``rsqrt``, and autograd derives the gradient by walking that chain backwards through
each primitive's own backward. This is the path that shows what autograd does, and it
is the slowest: every step allocates a full-size intermediate and records a graph node.

The ``*_stats`` functions are also used by the reference and fused paths when a graph
of the backward is wanted (``create_graph=True``): they recompute the statistics as
Tensors that depend on ``x``, so that the backward formula run on them can itself be
differentiated.
"""

from __future__ import annotations

import math

from minigrad.nn.norms.reference import update_running_stats
from minigrad.tensor import Tensor

__all__ = [
    "batch_norm",
    "batch_norm_stats",
    "group_norm",
    "group_norm_stats",
    "layer_norm",
    "layer_norm_stats",
    "rms_norm",
    "rms_norm_stats",
]


def _standardize(x: Tensor, axes: tuple, eps: float):
    mean = x.mean(axes, keepdim=True)
    xmu = x - mean
    var = (xmu * xmu).mean(axes, keepdim=True)
    rstd = (var + eps).rsqrt()
    return mean, xmu, var, rstd


def _channel_shape(x: Tensor) -> tuple:
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def _affine(y: Tensor, weight, bias, shape=None) -> Tensor:
    if weight is not None:
        y = y * (weight if shape is None else weight.reshape(shape))
    if bias is not None:
        y = y + (bias if shape is None else bias.reshape(shape))
    return y


# ---------------------------------------------------------------------------- LayerNorm
def layer_norm_stats(x: Tensor, normalized_ndim: int, eps: float):
    """``(mean, rstd)`` over the last ``normalized_ndim`` axes, as Tensors (keepdim)."""
    axes = tuple(range(x.ndim - normalized_ndim, x.ndim))
    mean, _, _, rstd = _standardize(x, axes, eps)
    return mean, rstd


def layer_norm(x: Tensor, weight, bias, normalized_ndim: int, eps: float) -> Tensor:
    axes = tuple(range(x.ndim - normalized_ndim, x.ndim))
    _, xmu, _, rstd = _standardize(x, axes, eps)
    return _affine(xmu * rstd, weight, bias)


# ------------------------------------------------------------------------------ RMSNorm
def rms_norm_stats(x: Tensor, normalized_ndim: int, eps: float):
    """``(None, rstd)`` with ``rstd = 1 / sqrt(mean(x^2) + eps)``, as a Tensor (keepdim)."""
    axes = tuple(range(x.ndim - normalized_ndim, x.ndim))
    return None, ((x * x).mean(axes, keepdim=True) + eps).rsqrt()


def rms_norm(x: Tensor, weight, normalized_ndim: int, eps: float) -> Tensor:
    _, rstd = rms_norm_stats(x, normalized_ndim, eps)
    return _affine(x * rstd, weight, None)


# ---------------------------------------------------------------------------- BatchNorm
def batch_norm_stats(x: Tensor, eps: float):
    """Training statistics ``(mean, rstd)`` per channel, shaped [1, C, 1, ...]."""
    axes = (0,) + tuple(range(2, x.ndim))
    mean, _, _, rstd = _standardize(x, axes, eps)
    return mean, rstd


def batch_norm(
    x: Tensor, weight, bias, running_mean, running_var, training: bool, momentum, eps: float
) -> Tensor:
    axes = (0,) + tuple(range(2, x.ndim))
    shape = _channel_shape(x)
    if training:
        mean, xmu, var, rstd = _standardize(x, axes, eps)
        if running_mean is not None or running_var is not None:
            n = math.prod(x.shape[a] for a in axes)
            update_running_stats(
                None if running_mean is None else running_mean._data,
                None if running_var is None else running_var._data,
                mean._data,
                var._data,
                n,
                momentum,
            )
    else:
        mean = Tensor._make(running_mean._data.reshape(shape).astype(x.dtype), False, None)
        var = Tensor._make(running_var._data.reshape(shape).astype(x.dtype), False, None)
        xmu = x - mean
        rstd = (var + eps).rsqrt()
    return _affine(xmu * rstd, weight, bias, shape)


# ---------------------------------------------------------------------------- GroupNorm
def group_norm_stats(x: Tensor, num_groups: int, eps: float):
    """``(mean, rstd)`` per example and group, shaped [N, G, 1]."""
    grouped = x.reshape(x.shape[0], num_groups, -1)  # (N, G, C/G * positions)
    mean, _, _, rstd = _standardize(grouped, (2,), eps)
    return mean, rstd


def group_norm(x: Tensor, weight, bias, num_groups: int, eps: float) -> Tensor:
    grouped = x.reshape(x.shape[0], num_groups, -1)  # (N, G, C/G * positions)
    _, xmu, _, rstd = _standardize(grouped, (2,), eps)
    y = (xmu * rstd).reshape(x.shape)  # (N, C, *)
    return _affine(y, weight, bias, _channel_shape(x))
