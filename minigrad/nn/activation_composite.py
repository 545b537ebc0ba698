"""The rest of PyTorch's activation layers: each is its ``F.*`` function
(``nn/functional/activation_composite.py``, where the formulas are) with its options
stored. ``PReLU`` holds its slopes as a parameter; ``RReLU`` draws random slopes only in
training mode.

Example::

    >>> act = nn.Hardtanh(-2.0, 2.0)
    >>> act(mg.tensor([-3.0, 0.5, 3.0]))
    tensor([-2. ,  0.5,  2. ])
"""

from __future__ import annotations

import numpy as np

from minigrad import dtypes
from minigrad.nn.functional import activation_composite as F
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.tensor import Tensor

__all__ = [
    "CELU",
    "ELU",
    "GLU",
    "Hardshrink",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "LogSigmoid",
    "Mish",
    "PReLU",
    "RReLU",
    "ReLU6",
    "SELU",
    "Softmax2d",
    "Softmin",
    "Softplus",
    "Softshrink",
    "Softsign",
    "Tanhshrink",
    "Threshold",
]


class _Pointwise(Module):
    """A function of the input alone: ``forward(x) = fn(x, **options)``; the options are
    attributes (``act.alpha``) and make up the repr."""

    fn = None  # the F.* function, set by each subclass

    def __init__(self, **options) -> None:
        super().__init__()
        self._options = tuple(options)
        for name, value in options.items():
            setattr(self, name, value)

    def forward(self, input: Tensor) -> Tensor:
        return type(self).fn(input, **{k: getattr(self, k) for k in self._options})

    def extra_repr(self) -> str:
        return ", ".join(f"{k}={getattr(self, k)}" for k in self._options)


class _InplacePointwise(_Pointwise):
    """A pointwise layer whose one option is ``inplace`` (accepted as in PyTorch; the
    result is computed out of place)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(inplace=inplace)


class _AlphaPointwise(_Pointwise):
    """A pointwise layer with options ``alpha`` and ``inplace`` (ELU, CELU)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__(alpha=alpha, inplace=inplace)


class _Shrink(_Pointwise):
    """A shrinkage layer: its one option is the half-width ``lambd`` of the zeroed band."""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__(lambd=lambd)


class ELU(_AlphaPointwise):
    """``x`` for x > 0, ``alpha (exp(x) - 1)`` otherwise. Shape: any -> same."""

    fn = staticmethod(F.elu)


class SELU(_InplacePointwise):
    """``1.0507 * elu(x, 1.6733)`` (self-normalizing). Shape: any -> same."""

    fn = staticmethod(F.selu)


class CELU(_AlphaPointwise):
    """``max(0, x) + min(0, alpha (exp(x / alpha) - 1))``. Shape: any -> same."""

    fn = staticmethod(F.celu)


class Hardtanh(_Pointwise):
    """``x`` clamped to ``[min_val, max_val]``. Shape: any -> same."""

    fn = staticmethod(F.hardtanh)

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
        if min_val > max_val:
            raise ValueError("min_val cannot be greater than max_val")
        super().__init__(min_val=min_val, max_val=max_val, inplace=inplace)


class ReLU6(_InplacePointwise):
    """``min(max(0, x), 6)``. Shape: any -> same."""

    fn = staticmethod(F.relu6)


class Hardsigmoid(_InplacePointwise):
    """``relu6(x + 3) / 6``. Shape: any -> same."""

    fn = staticmethod(F.hardsigmoid)


class Hardswish(_InplacePointwise):
    """``x * relu6(x + 3) / 6``. Shape: any -> same."""

    fn = staticmethod(F.hardswish)


class Mish(_InplacePointwise):
    """``x * tanh(softplus(x))``. Shape: any -> same."""

    fn = staticmethod(F.mish)


class Softplus(_Pointwise):
    """``log(1 + exp(beta x)) / beta`` (linear above ``threshold``). Shape: any -> same."""

    fn = staticmethod(F.softplus)

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__(beta=beta, threshold=threshold)


class Softsign(_Pointwise):
    """``x / (1 + |x|)``. Shape: any -> same."""

    fn = staticmethod(F.softsign)


class Softshrink(_Shrink):
    """``x -/+ lambd`` outside ``[-lambd, lambd]``, 0 inside. Shape: any -> same."""

    fn = staticmethod(F.softshrink)


class Hardshrink(_Shrink):
    """``x`` outside ``[-lambd, lambd]``, 0 inside. Shape: any -> same."""

    fn = staticmethod(F.hardshrink)


class Tanhshrink(_Pointwise):
    """``x - tanh(x)``. Shape: any -> same."""

    fn = staticmethod(F.tanhshrink)


class LogSigmoid(_Pointwise):
    """``log(sigmoid(x))``. Shape: any -> same."""

    fn = staticmethod(F.logsigmoid)


class Threshold(_Pointwise):
    """``x`` where ``x > threshold``, ``value`` elsewhere. Shape: any -> same."""

    fn = staticmethod(F.threshold)

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__(threshold=threshold, value=value, inplace=inplace)


class GLU(_Pointwise):
    """``a * sigmoid(b)`` for the halves ``a, b`` of the input along ``dim``.
    Shape: ``(*, 2n, *) -> (*, n, *)``."""

    fn = staticmethod(F.glu)

    def __init__(self, dim: int = -1) -> None:
        super().__init__(dim=dim)


class Softmin(_Pointwise):
    """``softmax(-x)`` along ``dim``. Shape: any -> same."""

    fn = staticmethod(F.softmin)

    def __init__(self, dim: int | None = None) -> None:
        super().__init__(dim=dim)


class Softmax2d(Module):
    """Softmax over the channels of each position. Shape: ``(N, C, H, W)`` or
    ``(C, H, W)`` -> same."""

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return input.softmax(-3)


class PReLU(Module):
    """``x`` for x > 0, ``a x`` otherwise, with learnable slopes ``a``: one
    (``num_parameters=1``) or one per channel (dim 1 of the input), initialised to
    ``init``. Its parameter is ``weight`` (``state_dict`` key as in PyTorch).

    Shape: any -> same (with ``num_parameters = C``, the input's dim 1 is ``C``).
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, dtype=None) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(np.full(num_parameters, init, dtype=dtypes.or_default_float(dtype)))

    def reset_parameters(self) -> None:
        self.weight.data.fill_(self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """Randomized leaky ReLU: slopes drawn from ``U(lower, upper)`` in training mode,
    ``(lower + upper) / 2`` in eval mode. Shape: any -> same."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace}"
