"""``Parameter``: a tensor that a ``Module`` registers as one of its weights."""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import register_tensor_type
from minigrad.tensor import Tensor

__all__ = ["Buffer", "Parameter"]


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
        self._init_leaf(data, requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = Parameter(self._data.copy(), self._requires_grad)
        return memo[id(self)]


register_tensor_type(Parameter)


class _BufferMeta(type):
    """``isinstance(t, nn.Buffer)`` asks whether ``t`` was made by ``nn.Buffer``."""

    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, Tensor) and instance.__dict__.get("_is_buffer", False)


class Buffer(metaclass=_BufferMeta):
    """A tensor marked to be registered as a buffer: ``module.running = nn.Buffer(t)``
    is ``module.register_buffer("running", t, persistent=True)``.

    As in PyTorch, ``nn.Buffer(t)`` returns a plain tensor (detached from ``t``'s
    graph, sharing its memory) carrying the mark and ``persistent``.

    Args:
        data: the buffer's values (an empty float tensor by default).
        persistent: whether it is part of ``state_dict``.
    """

    def __new__(cls, data=None, *, persistent: bool = True):
        if data is None:
            data = Tensor(np.empty((0,), dtype=np.float32))
        if not isinstance(data, Tensor):
            data = Tensor(data)
        t = data.detach()
        if data.requires_grad:
            t.requires_grad_(True)
        t._is_buffer = True
        t.persistent = persistent
        return t
