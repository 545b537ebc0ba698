"""``torch.autograd.Variable``: PyTorch's pre-0.4 wrapper, kept by PyTorch (and here) so
that old code runs. Since 0.4 every tensor is a "Variable": ``Variable(t)`` returns a new
leaf tensor sharing ``t``'s memory, requiring grad only if asked, and
``isinstance(t, Variable)`` is true of every tensor."""

from __future__ import annotations

from minigrad.tensor import Tensor, as_tensor

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False)``: a leaf tensor sharing ``data``'s memory."""

    def __new__(cls, data, requires_grad: bool = False, volatile: bool = False):
        t = as_tensor(data).detach()
        return t.requires_grad_(True) if requires_grad else t
