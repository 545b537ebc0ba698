"""Activation layers: ``ReLU``, ``GELU``, ``SiLU``, ``Tanh``, ``Sigmoid``, ``LeakyReLU``,
``Softmax``, ``LogSoftmax``. Each is its ``F.*`` function as a module (no parameters)."""

from __future__ import annotations

from minigrad.nn.functional import activation as F
from minigrad.nn.module import Module
from minigrad.tensor import Tensor

__all__ = ["ReLU", "GELU", "SiLU", "Tanh", "Sigmoid", "LeakyReLU", "Softmax", "LogSoftmax"]


class _InplaceOption(Module):
    """An activation whose one option is ``inplace``: accepted and shown in the repr, as
    in PyTorch; the result is computed out of place."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ReLU(_InplaceOption):
    """``max(x, 0)`` elementwise. Shape: any -> same.

    Example::

        >>> nn.ReLU()(mg.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input)


class GELU(Module):
    """``x * Phi(x)`` (Phi the standard normal CDF), exact with ``approximate='none'``,
    or ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`` with ``'tanh'``.
    Shape: any -> same."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(_InplaceOption):
    """``x * sigmoid(x)`` (also called swish). Shape: any -> same."""

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input)


class Tanh(Module):
    """``tanh(x)`` elementwise. Shape: any -> same."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanh(input)


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` elementwise. Shape: any -> same."""

    def forward(self, input: Tensor) -> Tensor:
        return F.sigmoid(input)


class LeakyReLU(Module):
    """``x`` for x > 0, ``negative_slope * x`` otherwise. Shape: any -> same."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class _AlongDim(Module):
    """A layer that is ``fn(input, dim)`` (softmax, log-softmax): ``dim`` is its one
    option and its repr."""

    fn = None  # the F.* function, set by each subclass

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return type(self).fn(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_AlongDim):
    """Softmax along ``dim``. Shape: any -> same."""

    fn = staticmethod(F.softmax)


class LogSoftmax(_AlongDim):
    """Log-softmax along ``dim``. Shape: any -> same."""

    fn = staticmethod(F.log_softmax)
