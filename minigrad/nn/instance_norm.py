"""``InstanceNorm1d/2d/3d``: ``F.instance_norm`` as layers (formula there). As in
PyTorch, ``affine`` and ``track_running_stats`` are off by default; with
``track_running_stats`` the running statistics are used in eval mode.

Example::

    >>> norm = nn.InstanceNorm1d(4, affine=True)
    >>> norm(mg.randn(2, 4, 10)).shape
    (2, 4, 10)
"""

from __future__ import annotations

from minigrad import dtypes
from minigrad.nn.functional.instance_norm import instance_norm
from minigrad.nn.module import Module
from minigrad.nn.normalization import _register_affine, _register_running_stats
from minigrad.tensor import Tensor

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(Module):
    spatial = 1  # the number of position dimensions after (N, C)

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.has_bias = bias
        dtype = dtypes.or_default_float(dtype)
        _register_affine(self, num_features, dtype, affine, bias=bias)
        _register_running_stats(self, num_features, dtype, track_running_stats)

    def forward(self, input: Tensor) -> Tensor:
        batched = self.spatial + 2
        if input.ndim not in (batched - 1, batched):
            raise ValueError(
                f"{type(self).__name__}: expected {batched - 1}D or {batched}D input "
                f"(got {input.ndim}D input)"
            )
        x = input if input.ndim == batched else input.unsqueeze(0)
        if x.shape[1] != self.num_features and self.affine:
            raise ValueError(
                f"{type(self).__name__}: expected input's size at dim=1 to match "
                f"num_features ({self.num_features}), but got: {x.shape[1]}."
            )
        use_input_stats = self.training or not self.track_running_stats
        y = instance_norm(
            x,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            use_input_stats,
            self.momentum,
            self.eps,
        )
        return y if input.ndim == batched else y.squeeze(0)

    def extra_repr(self) -> str:
        no_bias = ", bias=False" if self.affine and not self.has_bias else ""
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}{no_bias}, track_running_stats={self.track_running_stats}"
        )


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of ``(N, C, L)`` or ``(C, L)``."""

    spatial = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of ``(N, C, H, W)`` or ``(C, H, W)``."""

    spatial = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    spatial = 3
