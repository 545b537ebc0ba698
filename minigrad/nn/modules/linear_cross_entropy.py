"""``torch.nn.modules.linear_cross_entropy``'s path."""

from minigrad.nn.linear_cross_entropy import LinearCrossEntropyLoss

__all__ = ["LinearCrossEntropyLoss"]
