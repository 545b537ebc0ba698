"""Loss modules: ``CrossEntropyLoss``, ``NLLLoss``, ``MSELoss`` (the ``F.*`` losses with
their options stored). As in PyTorch, a class ``weight`` is a buffer, so it appears in
``state_dict`` when given."""

from __future__ import annotations

from minigrad.nn.functional import loss as F
from minigrad.nn.module import Module
from minigrad.tensor import Tensor, as_tensor

__all__ = ["CrossEntropyLoss", "NLLLoss", "NLLLoss2d", "MSELoss"]


class CrossEntropyLoss(Module):
    """``F.cross_entropy(input, target, ...)`` as a module.

    Args:
        weight: optional per-class weights ``(C,)``.
        ignore_index: class-index targets to skip (default -100).
        reduction: ``'mean'`` | ``'sum'`` | ``'none'``.
        label_smoothing: in [0, 1].

    Shape:
        input ``(N, C)`` or ``(N, C, d1, ...)``; target ``(N)`` / ``(N, d1, ...)`` class
        indices or probabilities shaped like the input; output a scalar (or the
        target's shape with ``'none'``).

    Example::

        >>> loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
        >>> loss = loss_fn(mg.randn(8, 5, requires_grad=True), mg.randint(0, 5, (8,)))
        >>> loss.backward()
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average=None,
        ignore_index: int = -100,
        reduce=None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__()
        F.check_reduction("CrossEntropyLoss", reduction, size_average, reduce)
        self.register_buffer("weight", None if weight is None else as_tensor(weight))
        self.ignore_index = ignore_index
        self.reduction = reduction
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class NLLLoss(Module):
    """``F.nll_loss(input, target, ...)`` as a module (input holds log-probabilities)."""

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average=None,
        ignore_index: int = -100,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        super().__init__()
        F.check_reduction("NLLLoss", reduction, size_average, reduce)
        self.register_buffer("weight", None if weight is None else as_tensor(weight))
        self.ignore_index = ignore_index
        self.reduction = reduction

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
        )


class MSELoss(Module):
    """Mean squared error ``(input - target)^2`` with ``reduction`` ``'mean'`` | ``'sum'`` |
    ``'none'``. Shape: input and target the same shape; output a scalar (or that shape).

    Example::

        >>> nn.MSELoss()(mg.tensor([1.0, 2.0]), mg.tensor([1.0, 4.0])).item()
        2.0
    """

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__()
        F.check_reduction("MSELoss", reduction, size_average, reduce)
        self.reduction = reduction

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class NLLLoss2d(NLLLoss):
    """Deprecated in PyTorch (``NLLLoss`` takes any ``(N, C, d1, ...)`` input): the same
    loss under its old name."""
