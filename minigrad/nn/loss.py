"""Loss modules: the base ``_Loss`` (an ``F.*`` loss with its options stored) and
``CrossEntropyLoss``, ``NLLLoss``, ``MSELoss``; the other losses, built the same way,
are in ``loss_composite.py``. As in PyTorch, a class ``weight`` is a buffer, so it
appears in ``state_dict`` when given."""

from __future__ import annotations

from minigrad.nn.functional import loss as F
from minigrad.nn.module import Module
from minigrad.tensor import Tensor, as_tensor

__all__ = ["CrossEntropyLoss", "NLLLoss", "NLLLoss2d", "MSELoss"]


class _Loss(Module):
    """A loss with its options stored: ``forward(*inputs) = fn(*inputs, **options)``.

    ``reduction`` (one of ``reductions``) and PyTorch's deprecated ``size_average`` and
    ``reduce`` are checked when the module is built (``F.check_reduction``); the options
    named in ``weights`` are kept as buffers, the others as attributes.
    """

    fn = None  # the F.* loss, set by each subclass
    weights: tuple[str, ...] = ()
    reductions: tuple[str, ...] = F.REDUCTIONS

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", **options):
        super().__init__()
        F.check_reduction(type(self).__name__, reduction, size_average, reduce, self.reductions)
        self.reduction = reduction
        self._options = tuple(options)
        for name, value in options.items():
            if name in self.weights:
                self.register_buffer(name, None if value is None else as_tensor(value))
            else:
                setattr(self, name, value)

    def forward(self, *inputs: Tensor) -> Tensor:
        options = {k: getattr(self, k) for k in self._options}
        return type(self).fn(*inputs, reduction=self.reduction, **options)


class _ReductionOnly(_Loss):
    """A loss whose only options are ``reduction`` and the deprecated ``size_average``
    and ``reduce``."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    """A loss with a class ``weight`` (a buffer) and the reduction options, as PyTorch's
    base of the same name."""

    weights = ("weight",)

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction, weight=weight)


class CrossEntropyLoss(_Loss):
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

    fn = staticmethod(F.cross_entropy)
    weights = ("weight",)

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average=None,
        ignore_index: int = -100,
        reduce=None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(
            size_average,
            reduce,
            reduction,
            weight=weight,
            ignore_index=ignore_index,
            label_smoothing=label_smoothing,
        )


class NLLLoss(_Loss):
    """``F.nll_loss(input, target, ...)`` as a module (input holds log-probabilities)."""

    fn = staticmethod(F.nll_loss)
    weights = ("weight",)

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average=None,
        ignore_index: int = -100,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction, weight=weight, ignore_index=ignore_index)


class MSELoss(_ReductionOnly):
    """Mean squared error ``(input - target)^2`` with ``reduction`` ``'mean'`` | ``'sum'`` |
    ``'none'``. Shape: input and target the same shape; output a scalar (or that shape).

    Example::

        >>> nn.MSELoss()(mg.tensor([1.0, 2.0]), mg.tensor([1.0, 4.0])).item()
        2.0
    """

    fn = staticmethod(F.mse_loss)


class NLLLoss2d(NLLLoss):
    """Deprecated in PyTorch (``NLLLoss`` takes any ``(N, C, d1, ...)`` input): the same
    loss under its old name."""
