"""Normalization layers: ``LayerNorm``, ``RMSNorm``, ``BatchNorm1d`` / ``2d``, ``GroupNorm``.

Each layer holds its parameters (and BatchNorm its running statistics) and calls the
matching function (``F.layer_norm`` ...), defined with its math in its own file under
``minigrad/nn/norms/``, which runs the implementation chosen with ``nn.norm_impl``
(fused Numba kernels by default).
Constructor arguments, parameter and buffer names and ``state_dict`` keys are PyTorch's.
"""

from __future__ import annotations

import numpy as np

from minigrad import dtypes
from minigrad.nn.module import Module
from minigrad.nn.norms.batch_norm import batch_norm, check_values_per_channel
from minigrad.nn.norms.common import norm_impl, normalized_shape_tuple
from minigrad.nn.norms.group_norm import group_norm
from minigrad.nn.norms.layer_norm import layer_norm
from minigrad.nn.norms.rms_norm import rms_norm
from minigrad.nn.parameter import Parameter
from minigrad.printing import shape_str
from minigrad.tensor import Tensor

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "GroupNorm",
    "LayerNorm",
    "RMSNorm",
    "norm_impl",
]


def _positive_int(layer: str, name: str, value) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{layer}: {name} must be a positive int, got {value!r}")
    return int(value)


def _register_affine(module: Module, shape, dtype, affine: bool, bias: bool) -> None:
    """``weight`` (ones) and ``bias`` (zeros) of ``shape``; None for those absent."""
    weight = Parameter(np.ones(shape, dtype=dtype)) if affine else None
    module.register_parameter("weight", weight)
    module.register_parameter(
        "bias", Parameter(np.zeros(shape, dtype=dtype)) if affine and bias else None
    )


def _register_running_stats(module: Module, num_features: int, dtype, track: bool) -> None:
    """The buffers of a norm that tracks running statistics: ``running_mean`` (zeros)
    and ``running_var`` (ones) of ``num_features``, ``num_batches_tracked`` (0, int64);
    each None when it does not track them."""
    if track:
        module.register_buffer("running_mean", Tensor(np.zeros(num_features, dtype=dtype)))
        module.register_buffer("running_var", Tensor(np.ones(num_features, dtype=dtype)))
        module.register_buffer("num_batches_tracked", Tensor(np.array(0, dtype=np.int64)))
    else:
        module.register_buffer("running_mean", None)
        module.register_buffer("running_var", None)
        module.register_buffer("num_batches_tracked", None)


def _reset_affine(module: Module) -> None:
    """weight = 1, bias = 0 (those the module has)."""
    if module.weight is not None:
        module.weight._data[...] = 1
    if getattr(module, "bias", None) is not None:
        module.bias._data[...] = 0


class LayerNorm(Module):
    """Layer normalization over the trailing ``normalized_shape`` dims of each example.

        y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias

    The mean and the biased variance (divide by n) run over the last
    ``len(normalized_shape)`` dims, separately for every example (every position of a
    sequence): no statistic crosses the batch, so training and eval behave the same.

    Args:
        normalized_shape: an int or a tuple: ``LayerNorm((6, 4))`` normalizes the last two
            dims, which must be (6, 4).
        eps: added to the variance (default 1e-5).
        elementwise_affine: learn ``weight`` (init 1) and ``bias`` (init 0) of shape
            ``normalized_shape`` (default True).
        bias: learn the bias too (default True); ignored without ``elementwise_affine``.
        dtype: parameter dtype (default float32).

    Shape: input ``[*, *normalized_shape]`` -> output of the same shape and dtype.

    Example::

        >>> ln = nn.LayerNorm(8)
        >>> ln(mg.randn(2, 5, 8)).shape
        (2, 5, 8)
    """

    def __init__(
        self,
        normalized_shape,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.normalized_shape = normalized_shape_tuple("LayerNorm", normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _register_affine(
            self, self.normalized_shape, dtypes.or_default_float(dtype), elementwise_affine, bias
        )

    def reset_parameters(self) -> None:
        """weight = 1, bias = 0."""
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"
        )


class RMSNorm(Module):
    """Root-mean-square normalization over the trailing ``normalized_shape`` dims.

        y = x / sqrt(mean(x^2) + eps) * weight

    No mean is subtracted and there is no bias: only the scale of each example (each
    position) is normalized.

    Args:
        normalized_shape: an int or a tuple of the trailing dims.
        eps: added to the mean square; ``None`` (default) means the machine epsilon of
            the input's dtype (``np.finfo(dtype).eps``).
        elementwise_affine: learn ``weight`` (init 1) of shape ``normalized_shape``.
        dtype: parameter dtype (default float32).

    Shape: input ``[*, *normalized_shape]`` -> output of the same shape and dtype.

    Example::

        >>> nn.RMSNorm(16)(mg.randn(4, 16)).shape
        (4, 16)
    """

    def __init__(
        self,
        normalized_shape,
        eps: float | None = None,
        elementwise_affine: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.normalized_shape = normalized_shape_tuple("RMSNorm", normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(
                np.ones(self.normalized_shape, dtype=dtypes.or_default_float(dtype))
            )
        else:
            self.register_parameter("weight", None)

    def reset_parameters(self) -> None:
        """weight = 1."""
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )


class _BatchNorm(Module):
    """Shared by BatchNorm1d and BatchNorm2d (they differ only in the input ranks)."""

    _accepted = ""  # e.g. "a 2-D input [N, C] or a 3-D input [N, C, L]"

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        name = type(self).__name__
        self.num_features = _positive_int(name, "num_features", num_features)
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        dtype = dtypes.or_default_float(dtype)
        _register_affine(self, self.num_features, dtype, affine, bias)
        _register_running_stats(self, self.num_features, dtype, track_running_stats)

    def reset_running_stats(self) -> None:
        """running_mean = 0, running_var = 1, num_batches_tracked = 0."""
        if self.track_running_stats:
            self.running_mean._data[...] = 0
            self.running_var._data[...] = 1
            self.num_batches_tracked._data[...] = 0

    def reset_parameters(self) -> None:
        """Reset the running statistics; weight = 1, bias = 0."""
        self.reset_running_stats()
        _reset_affine(self)

    def _check_input(self, x: Tensor) -> None:
        name = type(self).__name__
        if x.ndim not in self._ranks:
            raise ValueError(
                f"{name}: expected {self._accepted}, got a {x.ndim}-D input of shape "
                f"{shape_str(x.shape)}"
            )
        if x.shape[1] != self.num_features:
            raise ValueError(
                f"{name}({self.num_features}): the input has {x.shape[1]} channels (dim 1 of "
                f"shape {shape_str(x.shape)}) but num_features is {self.num_features}"
            )

    def forward(self, input: Tensor) -> Tensor:
        """Normalize with the batch statistics in training (and update the running ones
        by ``momentum``, or as a cumulative average when ``momentum`` is None), with the
        running statistics in eval."""
        self._check_input(input)
        use_batch_stats = self.training or not self.track_running_stats
        if use_batch_stats:  # checked before num_batches_tracked counts this batch
            check_values_per_channel(input)
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked._data[...] += 1
            if self.momentum is None:  # cumulative moving average
                momentum = 1.0 / float(self.num_batches_tracked._data)
        keep_stats = not self.training or self.track_running_stats
        return batch_norm(
            input,
            self.running_mean if keep_stats else None,
            self.running_var if keep_stats else None,
            self.weight,
            self.bias,
            use_batch_stats,
            momentum,
            self.eps,
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalization over a 2-D ``[N, C]`` or 3-D ``[N, C, L]`` input.

        y = (x - mean_c) / sqrt(var_c + eps) * weight_c + bias_c

    In training, ``mean_c`` and ``var_c`` are the batch's statistics for channel c, over
    the N examples (and L positions), with the biased variance (divide by n); each
    call also updates the running estimates:
    ``running = (1 - momentum) * running + momentum * batch_statistic``, where the
    running variance takes the unbiased batch variance (divide by n - 1), and counts
    ``num_batches_tracked``. ``momentum=None`` makes the running statistics the
    cumulative average of every batch seen. In eval (``.eval()``) the running estimates
    are used, so one example's output no longer depends on the rest of the batch.

    Args:
        num_features: C, the number of channels.
        eps: added to the variance (default 1e-5).
        momentum: weight of the new batch in the running statistics (default 0.1), or
            None for a cumulative average.
        affine: learn ``weight`` (init 1) and ``bias`` (init 0), of shape [C].
        track_running_stats: keep ``running_mean`` (init 0), ``running_var`` (init 1)
            and ``num_batches_tracked``; if False, batch statistics are used in eval too.
        dtype: parameter and buffer dtype (default float32).
        bias: (keyword) learn the bias (default True).

    Shape: input ``[N, C]`` or ``[N, C, L]`` -> output of the same shape and dtype.

    Example::

        >>> bn = nn.BatchNorm1d(3)
        >>> y = bn(mg.randn(8, 3))          # training: batch statistics
        >>> y = bn.eval()(mg.randn(1, 3))   # eval: running statistics
    """

    _ranks = (2, 3)
    _accepted = "a 2-D input [N, C] or a 3-D input [N, C, L]"


class BatchNorm2d(_BatchNorm):
    """Batch normalization over a 4-D ``[N, C, H, W]`` input, per channel over N, H, W.

    Same statistics, running estimates and arguments as ``BatchNorm1d``.

    Shape: input ``[N, C, H, W]`` -> output of the same shape and dtype.

    Example::

        >>> nn.BatchNorm2d(3)(mg.randn(2, 3, 4, 4)).shape
        (2, 3, 4, 4)
    """

    _ranks = (4,)
    _accepted = "a 4-D input [N, C, H, W]"


class BatchNorm3d(_BatchNorm):
    """Batch normalization over a 5-D ``[N, C, D, H, W]`` input, per channel over N, D,
    H, W. Same statistics, running estimates and arguments as ``BatchNorm1d``."""

    _ranks = (5,)
    _accepted = "a 5-D input [N, C, D, H, W]"


class GroupNorm(Module):
    """Group normalization: split the C channels into ``num_groups`` groups and
    standardize each example's group (its channels and all their positions) on its own.

        y = (x - mean_{n,g}) / sqrt(var_{n,g} + eps) * weight_c + bias_c

    No statistic crosses the batch. ``num_groups=1`` is LayerNorm over (C, *) with
    per-channel affine parameters; ``num_groups=num_channels`` is instance normalization.

    Args:
        num_groups: G; must divide ``num_channels`` (else ``ValueError``).
        num_channels: C.
        eps: added to the variance (default 1e-5).
        affine: learn per-channel ``weight`` (init 1) and ``bias`` (init 0).
        dtype: parameter dtype (default float32).
        bias: (keyword) learn the bias (default True).

    Shape: input ``[N, C, *]`` (``[N, C]`` included) -> output of the same shape and dtype.

    Example::

        >>> nn.GroupNorm(2, 6)(mg.randn(4, 6, 10)).shape
        (4, 6, 10)
    """

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_groups = _positive_int("GroupNorm", "num_groups", num_groups)
        self.num_channels = _positive_int("GroupNorm", "num_channels", num_channels)
        if self.num_channels % self.num_groups != 0:
            raise ValueError(
                f"GroupNorm: num_channels ({num_channels}) must be divisible by "
                f"num_groups ({num_groups})"
            )
        self.eps = eps
        self.affine = affine
        _register_affine(self, self.num_channels, dtypes.or_default_float(dtype), affine, bias)

    def reset_parameters(self) -> None:
        """weight = 1, bias = 0."""
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim < 2 or input.shape[1] != self.num_channels:
            raise ValueError(
                f"GroupNorm({self.num_groups}, {self.num_channels}): expected an input of "
                f"shape [N, {self.num_channels}, *], got {shape_str(input.shape)}"
            )
        return group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )
