"""``Dropout``: inverted dropout in training, the identity in evaluation."""

from __future__ import annotations

from minigrad.nn.functional.dropout import check_probability, dropout
from minigrad.nn.module import Module
from minigrad.tensor import Tensor

__all__ = ["Dropout"]


class Dropout(Module):
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

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        self.p = check_probability(p, "Dropout")
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return dropout(input, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
