"""``Parameter``: a tensor that a ``Module`` registers as one of its weights."""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import register_tensor_type
from minigrad.tensor import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A leaf tensor that requires grad and is registered by ``Module.__setattr__``.

    ``Parameter(t)`` shares ``t``'s data (no copy), like PyTorch.

    Args:
        data: a Tensor, an array or anything ``mg.tensor`` accepts.
        requires_grad: whether the optimizer should update it (default True).
    """

    __slots__ = ()

    def __init__(self, data=None, requires_grad: bool = True):
        if data is None:
            data = np.empty((0,), dtype=np.float32)
        if isinstance(data, Tensor):
            data = data._data
        elif not isinstance(data, np.ndarray):
            data = Tensor(data)._data
        self._data = data
        self._counter = None
        self._view = None
        self._grad = None
        self._grad_fn = None
        self._requires_grad = False
        if requires_grad:
            self.requires_grad = True

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = Parameter(self._data.copy(), self._requires_grad)
        return memo[id(self)]


register_tensor_type(Parameter)
