"""``torch.nn.modules.linear_cross_entropy_options``'s path."""

from minigrad.nn.linear_cross_entropy import LinearCrossEntropyOptions

__all__ = ["LinearCrossEntropyOptions"]
