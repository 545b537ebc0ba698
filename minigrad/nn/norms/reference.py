"""Reference normalization: NumPy forward and closed-form backward, to read beside the docs.

Every norm here standardizes ``x`` over some axes and then applies an affine map:

    mean = (1/n) sum x                 xmu  = x - mean
    var  = (1/n) sum xmu^2             rstd = 1 / sqrt(var + eps)
    xhat = xmu * rstd                  y    = xhat * weight + bias

(the sums run over the normalized axes; ``n`` is how many numbers each sum adds up).
The backward walks the same chain in reverse, one named gradient per forward quantity,
exactly as ``docs/normalization.md`` derives it (``g_xhat`` is dL/dxhat, and so on).

The norms differ only in which axes they normalize:

    layer_norm   the trailing ``normalized_ndim`` axes of each example
    rms_norm     the same axes, without subtracting the mean
    batch_norm   the batch axis and the positions (0, 2, 3, ...), per channel
    group_norm   each example's group of channels and its positions

Every forward returns ``(y, mean, rstd)`` with ``mean`` and ``rstd`` shaped to broadcast
against ``x`` (``batch_norm`` also returns the biased variance); every backward takes
``(dy, x, weight, mean, rstd, ...)`` and returns ``(dx, dweight, dbias)``. The fused
kernels (``fused.py``) keep the same signatures, so the two are interchangeable.

The backward functions are plain arithmetic and sums, so they run unchanged on Tensors:
when a graph of the backward is wanted (``create_graph=True``), the autograd Functions
call them with Tensors and autograd records every step, which gives second derivatives.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "batch_norm_backward",
    "batch_norm_forward",
    "group_norm_backward",
    "group_norm_forward",
    "layer_norm_backward",
    "layer_norm_forward",
    "rms_norm_backward",
    "rms_norm_forward",
    "standardize_backward",
    "update_running_stats",
]


def sum_over(a, axes: tuple):
    """Sum over ``axes``, keeping them as size-1 dims (works on arrays and on Tensors)."""
    if isinstance(a, np.ndarray):
        return a.sum(axis=axes, keepdims=True)
    return a.sum(axes, keepdim=True)


def count(shape: tuple, axes: tuple) -> int:
    """How many numbers a sum over ``axes`` adds up."""
    return math.prod(shape[a] for a in axes)


def _standardize(x: np.ndarray, axes: tuple, eps: float):
    """mean, xmu, var and rstd of x over ``axes`` (two passes: mean first, then var)."""
    mean = x.mean(axis=axes, keepdims=True)
    xmu = x - mean
    var = (xmu * xmu).mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    return mean, xmu, var, rstd


def standardize_backward(g_xhat, xmu, rstd, axes: tuple):
    """dL/dx for ``xhat = (x - mean) * rstd`` over ``axes``, given ``g_xhat = dL/dxhat``.

    The chain, from the last forward step back to the first::

        xhat = xmu * rstd        g_rstd = sum(g_xhat * xmu)          (rstd is shared)
        rstd = (var + eps)^-1/2  g_var  = g_rstd * (-1/2) * rstd^3
        var  = mean(xmu^2)       g_xmu  = g_xhat * rstd + g_var * 2 xmu / n
        xmu  = x - mean          g_mean = -sum(g_xmu)
        mean = mean(x)           g_x    = g_xmu + g_mean / n
    """
    n = count(xmu.shape, axes)
    g_rstd = sum_over(g_xhat * xmu, axes)
    g_var = g_rstd * (-0.5) * rstd**3
    g_xmu = g_xhat * rstd + g_var * (2.0 / n) * xmu
    g_mean = -sum_over(g_xmu, axes)
    return g_xmu + g_mean * (1.0 / n)


# ---------------------------------------------------------------------------- LayerNorm
def layer_norm_forward(x, weight, bias, normalized_ndim: int, eps: float):
    """``y = (x - mean) * rstd * weight + bias`` over the last ``normalized_ndim`` axes."""
    axes = tuple(range(x.ndim - normalized_ndim, x.ndim))
    mean, xmu, _, rstd = _standardize(x, axes, eps)
    y = xmu * rstd
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y, mean, rstd


def layer_norm_backward(dy, x, weight, mean, rstd, normalized_ndim: int, need_dx: bool = True):
    """``(dx, dweight, dbias)`` for ``layer_norm_forward`` (dweight is None without a weight;
    dbias is returned whether or not there is a bias: the caller drops what it does not need)."""
    axes = tuple(range(x.ndim - normalized_ndim, x.ndim))
    batch_axes = tuple(range(x.ndim - normalized_ndim))
    xmu = x - mean
    xhat = xmu * rstd
    dweight = None
    if weight is not None:
        dweight = (dy * xhat).sum(batch_axes) if batch_axes else dy * xhat
    dbias = dy.sum(batch_axes) if batch_axes else dy
    g_xhat = dy if weight is None else dy * weight
    dx = standardize_backward(g_xhat, xmu, rstd, axes) if need_dx else None
    return dx, dweight, dbias


# ------------------------------------------------------------------------------ RMSNorm
def rms_norm_forward(x, weight, normalized_ndim: int, eps: float):
    """``y = x * rstd * weight`` with ``rstd = 1 / sqrt(mean(x^2) + eps)``.

    Returns ``(y, None, rstd)``: there is no mean to save.
    """
    axes = tuple(range(x.ndim - normalized_ndim, x.ndim))
    ms = (x * x).mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(ms + eps)
    y = x * rstd
    if weight is not None:
        y = y * weight
    return y, None, rstd


def rms_norm_backward(dy, x, weight, mean, rstd, normalized_ndim: int, need_dx: bool = True):
    """``(dx, dweight, None)`` for ``rms_norm_forward`` (``mean`` is unused: None).

    The chain::

        xhat = x * rstd           g_rstd = sum(g_xhat * x)
        rstd = (ms + eps)^-1/2    g_ms   = g_rstd * (-1/2) * rstd^3
        ms   = mean(x^2)          g_x    = g_xhat * rstd + g_ms * 2 x / n
    """
    axes = tuple(range(x.ndim - normalized_ndim, x.ndim))
    batch_axes = tuple(range(x.ndim - normalized_ndim))
    dweight = None
    if weight is not None:
        xhat = x * rstd
        dweight = (dy * xhat).sum(batch_axes) if batch_axes else dy * xhat
    if not need_dx:
        return None, dweight, None
    g_xhat = dy if weight is None else dy * weight
    n = count(x.shape, axes)
    g_rstd = sum_over(g_xhat * x, axes)
    g_ms = g_rstd * (-0.5) * rstd**3
    dx = g_xhat * rstd + g_ms * (2.0 / n) * x
    return dx, dweight, None


# ---------------------------------------------------------------------------- BatchNorm
def _channel_shape(x) -> tuple:
    """``[1, C, 1, ...]``: a per-channel vector broadcast against ``[N, C, *]``."""
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def batch_norm_forward(x, weight, bias, running_mean, running_var, training: bool, eps: float):
    """Per-channel standardization over the batch and the positions, then the affine map.

    In training the statistics are the batch's own (biased variance); in eval they are
    ``running_mean`` and ``running_var`` (arrays of shape [C]), so an example's output
    does not depend on the rest of the batch. Returns ``(y, mean, rstd, var)`` with
    ``mean``, ``rstd`` and ``var`` shaped [1, C, 1, ...].
    """
    axes = (0,) + tuple(range(2, x.ndim))
    if training:
        mean, xmu, var, rstd = _standardize(x, axes, eps)
    else:
        mean = running_mean.reshape(_channel_shape(x)).astype(x.dtype)
        var = running_var.reshape(_channel_shape(x)).astype(x.dtype)
        xmu = x - mean
        rstd = 1.0 / np.sqrt(var + eps)
    y = xmu * rstd
    if weight is not None:
        y = y * weight.reshape(_channel_shape(x))
    if bias is not None:
        y = y + bias.reshape(_channel_shape(x))
    return y, mean, rstd, var


def batch_norm_backward(dy, x, weight, mean, rstd, training: bool, need_dx: bool = True):
    """``(dx, dweight, dbias)`` for ``batch_norm_forward``.

    In training the statistics depend on every example, so dx takes the full
    ``standardize_backward``; in eval they are constants and ``dx = g_xhat * rstd``.
    """
    axes = (0,) + tuple(range(2, x.ndim))
    xmu = x - mean
    dweight = (dy * xmu * rstd).sum(axes) if weight is not None else None
    dbias = dy.sum(axes)
    if not need_dx:
        return None, dweight, dbias
    g_xhat = dy if weight is None else dy * weight.reshape(_channel_shape(x))
    if training:
        dx = standardize_backward(g_xhat, xmu, rstd, axes)
    else:
        dx = g_xhat * rstd
    return dx, dweight, dbias


def update_running_stats(running_mean, running_var, mean, var, n: int, momentum: float) -> None:
    """Move the running statistics (arrays of shape [C]) toward the batch's, in place.

        running_mean = (1 - momentum) * running_mean + momentum * mean
        running_var  = (1 - momentum) * running_var  + momentum * var * n / (n - 1)

    ``var`` is the biased batch variance used to normalize; the running estimate uses
    the unbiased one (n - 1), as PyTorch does. ``n`` is the number of values per
    channel (batch size times positions). A ``momentum`` of 1 / k after k batches gives
    the cumulative average (``momentum=None`` in the modules).
    """
    mean = np.asarray(mean, dtype=np.float64).reshape(-1)
    unbiased = np.asarray(var, dtype=np.float64).reshape(-1) * (n / (n - 1))
    if running_mean is not None:
        running_mean *= 1.0 - momentum
        running_mean += momentum * mean
    if running_var is not None:
        running_var *= 1.0 - momentum
        running_var += momentum * unbiased


# ---------------------------------------------------------------------------- GroupNorm
def group_norm_forward(x, weight, bias, num_groups: int, eps: float):
    """Standardize each example's groups of ``C / G`` channels (and their positions).

    ``x`` [N, C, *] is viewed as [N, G, C/G * positions]; the statistics run over the
    last axis; weight and bias are per channel. Returns ``(y, mean, rstd)`` with
    ``mean`` and ``rstd`` shaped [N, G, 1].
    """
    n = x.shape[0]
    grouped = x.reshape(n, num_groups, -1)  # (N, G, C/G * positions)
    mean, xmu, _, rstd = _standardize(grouped, (2,), eps)
    y = (xmu * rstd).reshape(x.shape)
    if weight is not None:
        y = y * weight.reshape(_channel_shape(x))
    if bias is not None:
        y = y + bias.reshape(_channel_shape(x))
    return y, mean, rstd


def group_norm_backward(dy, x, weight, mean, rstd, num_groups: int, need_dx: bool = True):
    """``(dx, dweight, dbias)`` for ``group_norm_forward``."""
    n = x.shape[0]
    grouped = x.reshape(n, num_groups, -1)
    xmu = grouped - mean
    axes = (0,) + tuple(range(2, x.ndim))
    dweight = None
    if weight is not None:
        xhat = (xmu * rstd).reshape(x.shape)
        dweight = (dy * xhat).sum(axes)
    dbias = dy.sum(axes)
    if not need_dx:
        return None, dweight, dbias
    g_xhat = dy if weight is None else dy * weight.reshape(_channel_shape(x))
    g_xhat = g_xhat.reshape(grouped.shape)
    dx = standardize_backward(g_xhat, xmu, rstd, (2,))
    return dx.reshape(x.shape), dweight, dbias
