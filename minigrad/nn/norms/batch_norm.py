"""Batch normalization, top to bottom: the reference forward and its backward as named
gradient steps (the symbols of the "BatchNorm by hand" page of the docs), the running statistics,
the autograd Function, and the public ``batch_norm``.

Per channel c of ``x`` [N, C, *], over the batch and every position::

    mean_c, var_c  (training: the batch's, biased; eval: the running estimates)
    rstd_c = (var_c + eps)^-1/2     xhat = (x - mean_c) * rstd_c     y = xhat * w_c + b_c

The implementations are those of LayerNorm (see ``layer_norm.py``); the kernels are in
``minigrad/kernels/batch_norm.py``.
"""

from __future__ import annotations

import numpy as np

from minigrad.functions.constant import constant
from minigrad.nn.norms.common import (
    NormFunction,
    affine,
    channel_shape,
    check_channels_first,
    check_input,
    check_param,
    data,
    normalize,
    standardize,
    standardize_backward,
)
from minigrad.printing import shape_str
from minigrad.tensor import Tensor

__all__ = [
    "BatchNormFunction",
    "batch_norm",
    "batch_norm_backward",
    "batch_norm_forward",
    "update_running_stats",
]


def _axes(x) -> tuple:
    """The batch axis and the positions: every axis but the channels'."""
    return (0,) + tuple(range(2, x.ndim))


def batch_norm_forward(x, weight, bias, running_mean, running_var, training: bool, eps: float):
    """``(y, mean, rstd, var)`` (arrays or Tensors), the statistics shaped [1, C, 1, ...]:
    in training the batch's own (biased variance); in eval ``running_mean`` and
    ``running_var`` ([C]), so that an example's output does not depend on the batch."""
    shape = channel_shape(x)
    if training:
        mean, xmu, var, rstd = standardize(x, _axes(x), eps)
    else:
        mean = running_mean.reshape(shape).astype(x.dtype)
        var = running_var.reshape(shape).astype(x.dtype)
        xmu = x - mean
        rstd = (var + eps) ** -0.5
    return affine(xmu * rstd, weight, bias, shape), mean, rstd, var


def batch_norm_backward(dy, x, weight, mean, rstd, training: bool, need_dx: bool = True):
    """``(g_x, g_weight, g_bias)`` for ``batch_norm_forward``. In training the statistics
    depend on every example, so g_x takes the whole ``standardize_backward``; in eval
    they are constants and ``g_x = g_xhat * rstd``."""
    axes = _axes(x)
    xmu = x - mean
    g_weight = None if weight is None else (dy * (xmu * rstd)).sum(axes)
    g_bias = dy.sum(axes)
    if not need_dx:
        return None, g_weight, g_bias
    g_xhat = dy if weight is None else dy * weight.reshape(channel_shape(x))
    if training:
        return standardize_backward(g_xhat, xmu, rstd, axes), g_weight, g_bias
    return g_xhat * rstd, g_weight, g_bias


def update_running_stats(running_mean, running_var, mean, var, n: int, momentum: float) -> None:
    """Move the running statistics (arrays [C]) toward the batch's, in place::

        running_mean = (1 - momentum) * running_mean + momentum * mean
        running_var  = (1 - momentum) * running_var  + momentum * var * n / (n - 1)

    ``var`` is the biased batch variance used to normalize; the running estimate takes
    the unbiased one (n - 1), as PyTorch does. ``n`` is the number of values per channel
    (batch size times positions). A ``momentum`` of 1 / k after k batches gives the
    cumulative average (``momentum=None`` in the modules).
    """
    mean = np.asarray(mean, dtype=np.float64).reshape(-1)
    unbiased = np.asarray(var, dtype=np.float64).reshape(-1) * (n / (n - 1))
    if running_mean is not None:
        running_mean *= 1.0 - momentum
        running_mean += momentum * mean
    if running_var is not None:
        running_var *= 1.0 - momentum
        running_var += momentum * unbiased


class BatchNormFunction(NormFunction):
    """``batch_norm`` on arrays: the reference lines above, or the fused kernels. In
    training it also updates the running statistics (if given)."""

    reference_forward = staticmethod(batch_norm_forward)
    reference_backward = staticmethod(batch_norm_backward)
    per_channel = True

    @staticmethod
    def kernels():  # imports Numba: on first use
        from minigrad.kernels import batch_norm as kernels

        return kernels.forward, kernels.backward

    @staticmethod
    def forward(ctx, x, weight, bias, training, eps, fused, running_mean, running_var, momentum):
        forward = ctx.implementation(fused)[0]
        rm, rv = data(running_mean), data(running_var)
        y, mean, rstd, var = forward(x._data, data(weight), data(bias), rm, rv, training, eps)
        if training and rm is not None:
            update_running_stats(rm, rv, mean, var, x._data.size // x.shape[1], momentum)
        ctx.save_for_backward(x, weight, mean, rstd)
        ctx.option, ctx.eps, ctx.fused = training, eps, fused
        return y

    @staticmethod
    def composite(x, weight, bias, training, eps, running_mean, running_var, momentum):
        rm, rv = data(running_mean), data(running_var)
        y, mean, _, var = batch_norm_forward(x, weight, bias, rm, rv, training, eps)
        if training and rm is not None:
            update_running_stats(rm, rv, mean._data, var._data, x._data.size // x.shape[1],
                                 momentum)  # fmt: skip
        return y

    def statistics(self, x, mean, rstd):
        """Batch statistics are recomputed from x; eval ones are constants."""
        if self.option:
            mean, _, _, rstd = standardize(x, _axes(x), self.eps)
            return mean, rstd
        return constant(mean), constant(rstd)


def check_values_per_channel(x: Tensor) -> None:
    """Batch statistics need more than one value per channel (the variance of one number
    is 0 and its unbiased estimate divides by zero); an empty batch is allowed."""
    if x._data.size // max(x.shape[1], 1) == 1:
        raise ValueError(
            "expected more than 1 value per channel when training, got input size "
            f"{shape_str(x.shape)}"
        )


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
    *,
    impl: str | None = None,
) -> Tensor:
    """Batch normalization per channel (dim 1), over the batch and every other dim.

        y = (x - mean_c) / sqrt(var_c + eps) * weight_c + bias_c

    In training, ``mean_c`` and ``var_c`` are the batch's (biased variance, divide by
    n), and ``running_mean`` / ``running_var`` (if given) are updated in place:
    ``running = (1 - momentum) * running + momentum * batch_statistic``, where the
    running variance takes the unbiased batch variance (divide by n - 1). Out of
    training the running statistics are used instead, so each example's output does
    not depend on the rest of the batch. An empty batch gives an empty output and
    leaves the running statistics alone, as in PyTorch.

    Args:
        input: ``[N, C]``, ``[N, C, L]``, ``[N, C, H, W]``, ... (any dims after C).
        running_mean, running_var: ``[C]`` or None (then the batch statistics are used
            even out of training).
        weight, bias: optional ``[C]``, the input's dtype.
        training: use (and update the running statistics from) the batch statistics.
        momentum: the weight of the new batch in the running statistics. The modules'
            ``momentum=None`` (cumulative average) passes ``1 / num_batches_tracked``.
        eps: added to the variance.
        impl: ``"fused"``, ``"reference"`` or ``"composite"`` (a minigrad extension).

    Example::

        >>> x = mg.randn(8, 3)
        >>> rm, rv = mg.zeros(3), mg.ones(3)
        >>> F.batch_norm(x, rm, rv, training=True).shape   # rm, rv updated in place
        (8, 3)
    """
    if training and not eps > 0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    x = check_input("batch_norm", input)
    if x.ndim < 2 and x.numel() == 0:  # PyTorch passes an empty vector through
        return x * 1
    check_channels_first("batch_norm", x)
    channels = (x.shape[1],)
    running_mean = check_param("batch_norm", "running_mean", running_mean, x, channels)
    running_var = check_param("batch_norm", "running_var", running_var, x, channels)
    weight = check_param("batch_norm", "weight", weight, x, channels)
    bias = check_param("batch_norm", "bias", bias, x, channels)
    if (running_mean is None) != (running_var is None):
        raise ValueError("batch_norm: give both running_mean and running_var, or neither")
    use_batch_stats = training or running_mean is None
    if use_batch_stats:
        check_values_per_channel(x)
    if training and running_mean is not None and momentum is None:
        raise ValueError(
            "batch_norm: momentum=None (a cumulative average) needs the number of batches "
            "seen: use nn.BatchNorm1d / nn.BatchNorm2d, or pass momentum=1/k for batch k"
        )
    return normalize(
        BatchNormFunction, x, weight, bias, use_batch_stats, eps, impl, running_mean, running_var,
        momentum,
    )  # fmt: skip
