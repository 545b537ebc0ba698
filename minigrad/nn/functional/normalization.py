"""Normalization functions: ``layer_norm``, ``rms_norm``, ``batch_norm``, ``group_norm``.

Each checks its arguments (errors name the argument and the expected vs actual shape),
then runs one of three implementations that compute the same thing:

- ``"fused"`` (the default): Numba kernels (``minigrad/kernels/``), fastest;
- ``"reference"``: NumPy forward and closed-form backward (``minigrad/nn/norms/reference.py``),
  the one to read beside ``docs/normalization.md``;
- ``"composite"``: minigrad primitives; autograd derives the backward.

Choose per call with ``impl=...`` (a minigrad extension, not in PyTorch) or for a block
with ``nn.norm_impl(...)``. The output has the input's dtype.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from minigrad.nn.norms import composite, fused, reference
from minigrad.nn.norms.dispatch import resolve_impl
from minigrad.nn.norms.functions import (
    BatchNormFunction,
    GroupNormFunction,
    LayerNormFunction,
    RMSNormFunction,
)
from minigrad.tensor import Tensor, _shape_str, as_tensor

__all__ = ["batch_norm", "group_norm", "layer_norm", "rms_norm"]

_BACKENDS = {"fused": fused, "reference": reference}


# ------------------------------------------------------------------------ argument checks
def _input(name: str, x) -> Tensor:
    x = as_tensor(x)
    if x.dtype.kind != "f":
        raise TypeError(f"{name}: expected a floating-point input, got dtype {x.dtype}")
    return x


def _param(name: str, arg: str, p, x: Tensor, shape: tuple):
    """Check an optional weight / bias / running statistic: a Tensor of ``shape`` and of
    the input's dtype (running statistics may have any floating dtype)."""
    if p is None:
        return None
    p = as_tensor(p)
    if p.shape != shape:
        raise ValueError(
            f"{name}: {arg} has shape {_shape_str(p.shape)} but expected {_shape_str(shape)} "
            f"for an input of shape {_shape_str(x.shape)}"
        )
    if arg in ("weight", "bias") and p.dtype != x.dtype:
        raise TypeError(
            f"{name}: {arg} has dtype {p.dtype} but the input has dtype {x.dtype}; convert "
            "one of them (for a module: .to(dtype), .float() or .double())"
        )
    return p


def normalized_shape_tuple(name: str, normalized_shape) -> tuple:
    """``normalized_shape`` (an int or a sequence of ints) as a tuple of ints."""
    if type(normalized_shape) is tuple and all(type(s) is int and s > 0 for s in normalized_shape):
        if normalized_shape:
            return normalized_shape  # the common case, checked without the general path
    if isinstance(normalized_shape, (int, np.integer)):
        normalized_shape = (normalized_shape,)
    if not isinstance(normalized_shape, Sequence) or not all(
        isinstance(s, (int, np.integer)) and s > 0 for s in normalized_shape
    ):
        raise TypeError(
            f"{name}: normalized_shape must be a positive int or a sequence of positive ints, "
            f"got {normalized_shape!r}"
        )
    if len(normalized_shape) == 0:
        raise ValueError(f"{name}: normalized_shape must have at least one dimension")
    return tuple(int(s) for s in normalized_shape)


def _check_trailing(name: str, x: Tensor, shape: tuple) -> None:
    if x.shape[x.ndim - len(shape) :] != shape or x.ndim < len(shape):
        raise ValueError(
            f"{name}: normalized_shape={_shape_str(shape)} does not match the input: expected "
            f"an input of shape [*, {', '.join(map(str, shape))}], got {_shape_str(x.shape)}"
        )


def check_values_per_channel(x: Tensor) -> None:
    """Batch statistics need more than one value per channel (a variance of one number
    is 0, and its unbiased estimate divides by zero)."""
    if x._data.size // max(x.shape[1], 1) <= 1:
        raise ValueError(
            "expected more than 1 value per channel when training, got input size "
            f"{_shape_str(x.shape)}"
        )


# ----------------------------------------------------------------------------- the norms
def layer_norm(
    input: Tensor,  # noqa: A002  (PyTorch's argument name)
    normalized_shape,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
    *,
    impl: str | None = None,
) -> Tensor:
    """Layer normalization over the trailing ``normalized_shape`` dims of each example.

        y = (x - mean) / sqrt(var + eps) * weight + bias

    with the mean and the biased variance (divide by n) over the trailing dims.

    Args:
        input: ``[*, *normalized_shape]``.
        normalized_shape: an int or a tuple: the trailing dims to normalize over.
        weight, bias: optional, of shape ``normalized_shape`` and the input's dtype.
        eps: added to the variance.
        impl: ``"fused"``, ``"reference"`` or ``"composite"`` (a minigrad extension);
            default: the current ``nn.norm_impl`` (``"fused"``).

    Shape: output = input's shape and dtype.

    Example::

        >>> x = mg.randn(2, 3, 8)
        >>> F.layer_norm(x, (8,)).shape
        (2, 3, 8)
    """
    x = _input("layer_norm", input)
    shape = normalized_shape_tuple("layer_norm", normalized_shape)
    _check_trailing("layer_norm", x, shape)
    weight = _param("layer_norm", "weight", weight, x, shape)
    bias = _param("layer_norm", "bias", bias, x, shape)
    impl = resolve_impl(impl)
    if impl == "composite":
        return composite.layer_norm(x, weight, bias, len(shape), eps)
    return LayerNormFunction.apply(x, weight, bias, len(shape), float(eps), _BACKENDS[impl])


def rms_norm(
    input: Tensor,  # noqa: A002
    normalized_shape,
    weight: Tensor | None = None,
    eps: float | None = None,
    *,
    impl: str | None = None,
) -> Tensor:
    """Root-mean-square normalization over the trailing ``normalized_shape`` dims.

        y = x / sqrt(mean(x^2) + eps) * weight

    Args:
        input: ``[*, *normalized_shape]``.
        normalized_shape: an int or a tuple: the trailing dims to normalize over.
        weight: optional, of shape ``normalized_shape`` and the input's dtype.
        eps: added to the mean square; ``None`` means the machine epsilon of the
            input's dtype (``np.finfo(dtype).eps``), as in PyTorch.
        impl: ``"fused"``, ``"reference"`` or ``"composite"`` (a minigrad extension).

    Shape: output = input's shape and dtype.

    Example::

        >>> F.rms_norm(mg.randn(4, 16), 16).shape
        (4, 16)
    """
    x = _input("rms_norm", input)
    shape = normalized_shape_tuple("rms_norm", normalized_shape)
    _check_trailing("rms_norm", x, shape)
    weight = _param("rms_norm", "weight", weight, x, shape)
    eps = float(np.finfo(x.dtype).eps) if eps is None else float(eps)
    impl = resolve_impl(impl)
    if impl == "composite":
        return composite.rms_norm(x, weight, len(shape), eps)
    return RMSNormFunction.apply(x, weight, len(shape), eps, _BACKENDS[impl])


def batch_norm(
    input: Tensor,  # noqa: A002
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
    not depend on the rest of the batch.

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
    x = _input("batch_norm", input)
    if x.ndim < 2:
        raise ValueError(
            f"batch_norm: expected an input of shape [N, C, *] (at least 2 dims), got "
            f"{_shape_str(x.shape)}"
        )
    channels = (x.shape[1],)
    running_mean = _param("batch_norm", "running_mean", running_mean, x, channels)
    running_var = _param("batch_norm", "running_var", running_var, x, channels)
    weight = _param("batch_norm", "weight", weight, x, channels)
    bias = _param("batch_norm", "bias", bias, x, channels)
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
    impl = resolve_impl(impl)
    if impl == "composite":
        return composite.batch_norm(
            x, weight, bias, running_mean, running_var, use_batch_stats, momentum, float(eps)
        )
    return BatchNormFunction.apply(
        x, weight, bias, running_mean, running_var, use_batch_stats, momentum, float(eps),
        _BACKENDS[impl],
    )  # fmt: skip


def group_norm(
    input: Tensor,  # noqa: A002
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
    ``num_groups=C`` is instance normalization.

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
    x = _input("group_norm", input)
    if x.ndim < 2:
        raise ValueError(
            f"group_norm: expected an input of shape [N, C, *] (at least 2 dims), got "
            f"{_shape_str(x.shape)}"
        )
    if not isinstance(num_groups, (int, np.integer)) or num_groups <= 0:
        raise ValueError(f"group_norm: num_groups must be a positive int, got {num_groups!r}")
    if x.shape[1] % num_groups != 0:
        raise ValueError(
            "group_norm: expected the number of channels in the input to be divisible by "
            f"num_groups, got an input of shape {_shape_str(x.shape)} and "
            f"num_groups={num_groups}"
        )
    weight = _param("group_norm", "weight", weight, x, (x.shape[1],))
    bias = _param("group_norm", "bias", bias, x, (x.shape[1],))
    impl = resolve_impl(impl)
    if impl == "composite":
        return composite.group_norm(x, weight, bias, int(num_groups), float(eps))
    return GroupNormFunction.apply(x, weight, bias, int(num_groups), float(eps), _BACKENDS[impl])
