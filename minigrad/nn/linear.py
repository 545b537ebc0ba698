"""``Linear`` (y = x W^T + b) and ``Identity``."""

from __future__ import annotations

import math

import numpy as np

from minigrad import dtypes
from minigrad.nn import init
from minigrad.nn.functional.linear import bilinear, linear
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.printing import shape_str
from minigrad.tensor import Tensor

__all__ = ["Linear", "Identity", "Bilinear", "NonDynamicallyQuantizableLinear"]


class Identity(Module):
    """Returns its input unchanged (a placeholder; accepts and ignores any arguments)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """Affine map ``y = x W^T + b``.

    Args:
        in_features: size of each input's last dimension.
        out_features: size of each output's last dimension.
        bias: learn an additive bias (default True).
        dtype: parameter dtype (default float32).

    Attributes:
        weight: ``(out_features, in_features)``, initialised from
            ``U(-1/sqrt(in_features), 1/sqrt(in_features))`` (PyTorch's default,
            ``kaiming_uniform_(a=sqrt(5))``).
        bias: ``(out_features,)``, from the same distribution; ``None`` if ``bias=False``.

    Shape:
        input ``(*, in_features)`` -> output ``(*, out_features)``.

    Example::

        >>> layer = nn.Linear(20, 30)
        >>> layer(mg.randn(128, 20)).shape
        (128, 30)
    """

    def __init__(
        self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__()
        for name, value in (("in_features", in_features), ("out_features", out_features)):
            if not isinstance(value, (int, np.integer)) or value < 0:
                raise ValueError(f"Linear: {name} must be a non-negative int, got {value!r}")
        self.in_features = int(in_features)
        self.out_features = int(out_features)
        dtype = dtypes.or_default_float(dtype)
        self.weight = Parameter(np.empty((self.out_features, self.in_features), dtype=dtype))
        if bias:
            self.bias = Parameter(np.empty((self.out_features,), dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default: weight ~ kaiming_uniform(a=sqrt(5)), which is
        U(-1/sqrt(fan_in), 1/sqrt(fan_in)); bias ~ the same bound."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0.0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        if input.shape[-1:] != (self.in_features,):
            raise ValueError(
                f"Linear(in_features={self.in_features}, out_features={self.out_features}): "
                f"expected input with last dimension {self.in_features}, got input of shape "
                f"{shape_str(input.shape)}"
            )
        return linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class NonDynamicallyQuantizableLinear(Linear):
    """A ``Linear`` under the name PyTorch gives ``MultiheadAttention.out_proj``'s class
    (it marks the layer for PyTorch's quantization tools), so programs that list it
    (``torch.serialization.safe_globals([...])``) or check ``type(mha.out_proj)`` run."""


class Bilinear(Module):
    """Bilinear map ``y = x1^T A x2 + b`` (one matrix ``A_o`` per output feature).

    Args:
        in1_features, in2_features: sizes of the two inputs' last dimensions.
        out_features: size of the output's last dimension.
        bias: learn an additive bias (default True).

    Attributes:
        weight: ``(out_features, in1_features, in2_features)``; weight and bias are
            initialised from ``U(-1/sqrt(in1_features), 1/sqrt(in1_features))``, as PyTorch.

    Shape: ``(*, in1)``, ``(*, in2)`` -> ``(*, out)``.
    """

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        dtype = dtypes.or_default_float(dtype)
        self.weight = Parameter(np.empty((out_features, in1_features, in2_features), dtype=dtype))
        if bias:
            self.bias = Parameter(np.empty((out_features,), dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.in1_features) if self.in1_features > 0 else 0.0
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
