"""``torch.nn.modules.adaptive``'s path: AdaptiveLogSoftmaxWithLoss."""

from minigrad.nn.adaptive import AdaptiveLogSoftmaxWithLoss

__all__ = ["AdaptiveLogSoftmaxWithLoss"]
