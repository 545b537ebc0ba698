"""Group normalization, top to bottom: the reference forward and its backward as named
gradient steps, the autograd Function, and the public ``group_norm``.

Each example's C channels are split into G groups of C / G channels; each group, with
all its positions, is standardized on its own (the statistics of LayerNorm over a
[N, G, C/G * positions] view), then scaled and shifted per channel::

    mean_{n,g}, rstd_{n,g} over the group     y = (x - mean_{n,g}) * rstd_{n,g} * w_c + b_c

The implementations are those of LayerNorm (see ``layer_norm.py``); the kernels are in
``minigrad/kernels/group_norm.py``.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.functions.errors import ShapeError
from minigrad.nn.norms.common import (
    NormFunction,
    affine,
    channel_shape,
    check_channels_first,
    check_input,
    check_param,
    normalize,
    standardize,
    standardize_backward,
)
from minigrad.printing import shape_str
from minigrad.tensor import Tensor

__all__ = ["GroupNormFunction", "group_norm", "group_norm_backward", "group_norm_forward"]


def _grouped(x, num_groups: int):
    """``x`` [N, C, *] viewed as [N, G, C/G * positions]."""
    return x.reshape(x.shape[0], num_groups, math.prod(x.shape[1:]) // num_groups)


def group_norm_forward(x, weight, bias, num_groups: int, eps: float):
    """``(y, mean, rstd)`` (arrays or Tensors), ``mean`` and ``rstd`` shaped [N, G, 1]."""
    mean, xmu, _, rstd = standardize(_grouped(x, num_groups), (2,), eps)
    xhat = (xmu * rstd).reshape(x.shape)  # (N, C, *)
    return affine(xhat, weight, bias, channel_shape(x)), mean, rstd


def group_norm_backward(dy, x, weight, mean, rstd, num_groups: int, need_dx: bool = True):
    """``(g_x, g_weight, g_bias)`` for ``group_norm_forward``."""
    xmu = _grouped(x, num_groups) - mean
    axes = (0,) + tuple(range(2, x.ndim))
    g_weight = None if weight is None else (dy * (xmu * rstd).reshape(x.shape)).sum(axes)
    g_bias = dy.sum(axes)
    if not need_dx:
        return None, g_weight, g_bias
    g_xhat = dy if weight is None else dy * weight.reshape(channel_shape(x))
    g_x = standardize_backward(_grouped(g_xhat, num_groups), xmu, rstd, (2,))
    return g_x.reshape(x.shape), g_weight, g_bias


class GroupNormFunction(NormFunction):
    """``group_norm`` on arrays: the reference lines above, or the fused kernels."""

    reference_forward = staticmethod(group_norm_forward)
    reference_backward = staticmethod(group_norm_backward)

    @staticmethod
    def kernels():  # imports Numba: on first use
        from minigrad.kernels import group_norm as kernels

        return kernels.forward, kernels.backward

    per_channel = True


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
    *,
    impl: str | None = None,
) -> Tensor:
    """Group normalization: each example's channels are split into ``num_groups``
    groups, and each group (with all its positions) is standardized on its own.

        y = (x - mean_{n,g}) / sqrt(var_{n,g} + eps) * weight_c + bias_c

    ``num_groups=1`` is LayerNorm over (C, *) with per-channel affine parameters;
    ``num_groups=C`` is instance normalization. An input with no examples gives an
    empty output, as in PyTorch.

    Args:
        input: ``[N, C, *]`` (any number of trailing dims, ``[N, C]`` included).
        num_groups: must divide C.
        weight, bias: optional ``[C]``, the input's dtype.
        eps: added to the variance.
        impl: ``"fused"``, ``"reference"`` or ``"composite"`` (a minigrad extension).

    Example::

        >>> F.group_norm(mg.randn(2, 6, 5), 3).shape
        (2, 6, 5)
    """
    x = check_input("group_norm", input)
    check_channels_first("group_norm", x)
    if not isinstance(num_groups, (int, np.integer)) or num_groups <= 0:
        raise ValueError(f"group_norm: num_groups must be a positive int, got {num_groups!r}")
    if x.shape[1] % num_groups != 0:
        raise ShapeError(
            "Expected number of channels in input to be divisible by num_groups, but got "
            f"input of shape {shape_str(x.shape)} and num_groups={num_groups}"
        )
    weight = check_param("group_norm", "weight", weight, x, (x.shape[1],))
    bias = check_param("group_norm", "bias", bias, x, (x.shape[1],))
    return normalize(GroupNormFunction, x, weight, bias, int(num_groups), eps, impl)
