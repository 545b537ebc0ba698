"""``LinearCrossEntropyLoss``: a linear head and the cross-entropy of its logits in one
module (``F.linear_cross_entropy``). Its parameters live in ``self.linear`` (state_dict
keys ``linear.weight``, ``linear.bias``) and a class ``weight`` is a buffer, as in
PyTorch."""

from __future__ import annotations

import math

from minigrad.functions.errors import ShapeError
from minigrad.nn.functional.linear_cross_entropy import (
    LinearCrossEntropyOptions,
    linear_cross_entropy,
)
from minigrad.nn.linear import Linear
from minigrad.nn.module import Module
from minigrad.tensor import Tensor, as_tensor

__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]


class LinearCrossEntropyLoss(Module):
    """``cross_entropy(linear(input), target)`` with a learned ``(num_classes,
    in_features)`` head. With ``out_features = (d_1, ..., d_K)`` (PyTorch's K-dimensional
    loss) the head is ``Linear(in_features, num_classes * d_1 * ... * d_K)``, as in
    PyTorch (the same state_dict), read as a ``(num_classes, d_1, ..., d_K, in_features)``
    weight.

    Shape: ``forward(input, target)``: ``(N, in_features)`` and ``(N, d_1, ..., d_K)`` ->
    a scalar (``(N, d_1, ..., d_K)`` with ``reduction='none'``).
    """

    def __init__(
        self,
        in_features: int,
        num_classes: int,
        *,
        out_features: tuple[int, ...] = (),
        bias: bool = False,
        device=None,
        dtype=None,
        reduction: str = "mean",
        weight: Tensor | None = None,
        ignore_index: int | None = None,
        label_smoothing: float = 0.0,
        options: LinearCrossEntropyOptions | None = None,
    ) -> None:
        super().__init__()
        if weight is not None and tuple(as_tensor(weight).shape) != (num_classes,):
            raise ShapeError(
                f"expected weight shape to be ({num_classes},), got "
                f"{tuple(as_tensor(weight).shape)}"
            )
        if not 0 <= label_smoothing <= 1:
            raise ShapeError(
                f"expected label_smoothing to be in range [0, 1], got {label_smoothing}"
            )
        self.in_features, self.num_classes = in_features, num_classes
        self.out_features = tuple(out_features)
        self.reduction, self.ignore_index = reduction, ignore_index
        self.label_smoothing, self.options = label_smoothing, options
        self.register_buffer("weight", None if weight is None else as_tensor(weight))
        heads = num_classes * math.prod(self.out_features)
        self.linear = Linear(in_features, heads, bias=bias, dtype=dtype)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        weight, bias = self.linear.weight, self.linear.bias
        if self.out_features:
            classes = (self.num_classes, *self.out_features)
            weight = weight.reshape(*classes, self.in_features)
            bias = None if bias is None else bias.reshape(*classes)
        return linear_cross_entropy(
            input,
            weight,
            target,
            linear_bias=bias,
            weight=self.weight,
            reduction=self.reduction,
            ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing,
            options=self.options,
        )

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, num_classes={self.num_classes}, "
            f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
            f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
            f"label_smoothing={self.label_smoothing}, options={self.options}"
        )
