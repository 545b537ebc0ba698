"""``Dropout``: inverted dropout in training, the identity in evaluation; its channel
(``Dropout1d/2d/3d``) and alpha (``AlphaDropout``, ``FeatureAlphaDropout``) variants."""

from __future__ import annotations

from minigrad.nn.functional import dropout_variants as V
from minigrad.nn.functional.dropout import check_probability, dropout
from minigrad.nn.module import Module
from minigrad.tensor import Tensor

__all__ = ["AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    """A dropout layer: ``p`` (checked to lie in [0, 1]) and ``inplace`` stored, and
    ``forward(input) = fn(input, p, training)`` with ``fn`` its ``F`` function (PyTorch's
    base class of the same name)."""

    fn = None  # the F.* function, set by each subclass

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        self.p = check_probability(p, type(self).__name__)
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return type(self).fn(input, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """During training, zero each element with probability ``p`` and scale the rest by
    ``1 / (1 - p)``; in eval mode (``model.eval()``), return the input unchanged.

    Args:
        p: probability of an element being zeroed, in [0, 1] (default 0.5).
        inplace: accepted for PyTorch compatibility; minigrad never overwrites an input.

    Shape:
        any shape -> the same shape.

    Example::

        >>> drop = nn.Dropout(0.1)
        >>> y = drop(mg.ones(4, 4))   # training mode: some zeros, the rest 1/0.9
        >>> drop.eval()(mg.ones(4, 4)).sum().item()
        16.0
    """

    fn = staticmethod(dropout)


class Dropout1d(_DropoutNd):
    """Zero whole channels of ``(N, C, L)`` / ``(C, L)`` in training (``F.dropout1d``)."""

    fn = staticmethod(V.dropout1d)


class Dropout2d(_DropoutNd):
    """Zero whole channels of ``(N, C, H, W)`` / ``(C, H, W)`` in training."""

    fn = staticmethod(V.dropout2d)


class Dropout3d(_DropoutNd):
    """Zero whole channels of ``(N, C, D, H, W)`` / ``(C, D, H, W)`` in training."""

    fn = staticmethod(V.dropout3d)


class AlphaDropout(_DropoutNd):
    """Alpha dropout for SELU networks (``F.alpha_dropout``): keeps mean and variance."""

    fn = staticmethod(V.alpha_dropout)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels (``F.feature_alpha_dropout``)."""

    fn = staticmethod(V.feature_alpha_dropout)
